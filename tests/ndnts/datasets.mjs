// SPDX-License-Identifier: BSD-3-Clause
// NDNts reads the forwarder's NFD status datasets (@ndn/nfdmgmt list: version
// discovery, then the segments, each item decoded by NDNts): status/general,
// faces/list, faces/channels, fib/list, rib/list, strategy-choice/list. Prints one
// JSON object, the items by dataset name ({"error"} for one that failed).
//   node datasets.mjs --transport unix:///PATH
import { parseArgs } from "node:util";

import {
  ChannelStatus,
  FaceStatus,
  GeneralStatus,
  list,
  RibEntry,
  StrategyChoice,
} from "@ndn/nfdmgmt";
import { StructFieldName, TT as l3TT } from "@ndn/packet";
import { EvDecoder, StructBuilder, StructFieldNNI, StructFieldType } from "@ndn/tlv";

import { createFace, emit } from "./common.mjs";

// @ndn/nfdmgmt has no FIB dataset: NFD's FibEntry (0x80) { Name, NextHopRecord (0x81)
// { FaceId (0x69), Cost (0x6a) }* } (NFD Management, "FIB Dataset"), declared with
// NDNts's own StructBuilder as @ndn/nfdmgmt declares RibEntry
const buildNextHopRecord = new StructBuilder("NextHopRecord")
  .add(0x69, "faceId", StructFieldNNI, { required: true })
  .add(0x6a, "cost", StructFieldNNI, { required: true })
  .setIsCritical(EvDecoder.neverCritical);
class NextHopRecord extends buildNextHopRecord.baseClass() {}
buildNextHopRecord.subclass = NextHopRecord;
const buildFibEntry = new StructBuilder("FibEntry", 0x80)
  .add(l3TT.Name, "name", StructFieldName, { required: true })
  .add(0x81, "nextHopRecords", StructFieldType.nest(NextHopRecord), { repeat: true })
  .setIsCritical(EvDecoder.neverCritical);
class FibEntry extends buildFibEntry.baseClass() {
  static datasetName = "fib/list";
}
buildFibEntry.subclass = FibEntry;

const { values: a } = parseArgs({ options: { transport: { type: "string" } } });
const face = await createFace(a.transport);
const out = {};
for (const d of [GeneralStatus, FaceStatus, ChannelStatus, FibEntry, RibEntry, StrategyChoice]) {
  try {
    out[d.datasetName] = await list(d);
  } catch (err) {
    out[d.datasetName] = { error: `${err}` };
  }
}
emit(out);
face.close();
process.exit(0);
