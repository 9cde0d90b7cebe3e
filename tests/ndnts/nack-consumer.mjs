// SPDX-License-Identifier: BSD-3-Clause
// NDNts consumer on a raw face (@ndn/l3face over the transport, NDNLPv2 by
// @ndn/lp): NDNts's own forwarder drops every Nack it receives (@ndn/fw
// Forwarder.processNack), so an application behind it would only see a timeout; the
// raw face shows what the forwarder sent. Expresses one Interest for --name; prints
// {"result": "nack", "reason": N, "reason_name", "name"}, {"result": "data", "name"}
// or {"result": "timeout"}; with --hold it keeps its connection (its face) open until
// killed, so that the face's counters can be read.
//   node nack-consumer.mjs --transport unix:///PATH --name /N [--lifetime MS] [--hold]
import { parseArgs } from "node:util";

import { FwPacket } from "@ndn/fw";
import { L3Face } from "@ndn/l3face";
import { Data, Interest, Nack, NackReason } from "@ndn/packet";
import { pushable } from "@ndn/util";

import { connect, emit, uri } from "./common.mjs";

const { values: a } = parseArgs({
  options: {
    transport: { type: "string" },
    name: { type: "string" },
    lifetime: { type: "string", default: "2000" },
    hold: { type: "boolean", default: false },
  },
});
const reasonName = Object.fromEntries(Object.entries(NackReason).map(([k, v]) => [v, k]));

const face = new L3Face(await connect(a.transport));
const tx = pushable();
void face.tx(tx);
const interest = new Interest(a.name, Interest.Lifetime(Number(a.lifetime)));
const timer = setTimeout(() => {
  emit({ result: "timeout" });
  finish();
}, Number(a.lifetime) + 1000);
tx.push(FwPacket.create(interest));

function finish() {
  clearTimeout(timer);
  if (!a.hold) {
    process.exit(0);
  }
}

for await (const { l3 } of face.rx) {
  if (l3 instanceof Nack) {
    emit({ result: "nack", reason: l3.reason, reason_name: reasonName[l3.reason] ?? "",
           name: uri(l3.interest.name), nonce: l3.interest.nonce });
    finish();
  } else if (l3 instanceof Data) {
    emit({ result: "data", name: uri(l3.name) });
    finish();
  }
}
