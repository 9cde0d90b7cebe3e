// SPDX-License-Identifier: BSD-3-Clause
// NDNts producer: registers its prefix with the forwarder by NFD prefix registration
// (@ndn/nfdmgmt NfdPrefixReg: rib/register under /localhost/nfd on a local face,
// /localhop/nfd else) and serves the lab's object of --size bytes as a segmented
// object (@ndn/segmented-object serve: PREFIX/seg=K, --chunk-size bytes each,
// FinalBlockId). Prints {"event": "registered", "prefix"} once the forwarder accepted
// the command; runs until killed.
//   node producer.mjs --transport unix:///PATH --prefix /P --size N [--chunk-size 8000]
import { parseArgs } from "node:util";

import { NfdPrefixReg } from "@ndn/nfdmgmt";
import { BufferChunkSource, serve } from "@ndn/segmented-object";

import { createFace, emit, objectBytes, uri } from "./common.mjs";

const { values: a } = parseArgs({
  options: {
    transport: { type: "string" },
    prefix: { type: "string" },
    size: { type: "string", default: "1000000" },
    "chunk-size": { type: "string", default: "8000" },
  },
});

/** NDNts's NfdPrefixReg, telling when the forwarder accepted the command. */
class ReportingPrefixReg extends NfdPrefixReg {
  async doAdvertise(name, state) {
    try {
      await super.doAdvertise(name, state);
    } catch (err) {
      emit({ event: "register_failed", prefix: uri(name), error: `${err}` });
      throw err;
    }
    emit({ event: "registered", prefix: uri(name) });
  }
}

// no route from NDNts's forwarder to the uplink: only the registration's Interests go out
const face = await createFace(a.transport, { addRoutes: [] });
new ReportingPrefixReg(face, {}).enable(face.fw);
const source = new BufferChunkSource(objectBytes(Number(a.size)), {
  chunkSize: Number(a["chunk-size"]),
});
serve(a.prefix, source);
