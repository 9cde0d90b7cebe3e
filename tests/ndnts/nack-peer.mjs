// SPDX-License-Identifier: BSD-3-Clause
// NDNts peer on a raw face (@ndn/l3face; NDNts's own forwarder never sends a Nack):
// registers --prefix with the forwarder (NFD's rib/register, its ControlParameters and
// signed command Interest built by @ndn/nfdmgmt and @ndn/packet, under /localhost/nfd
// on a local face, /localhop/nfd else) and answers every Interest under it with an
// NDNLPv2 Nack of --reason (Congestion, Duplicate, NoRoute or a number), the
// Interest's PIT token echoed. Prints {"event": "registered", "status_code"} and
// {"event": "nacked", "name", "reason"} per Interest; runs until killed.
//   node nack-peer.mjs --transport unix:///PATH --prefix /P --reason Congestion
import { parseArgs } from "node:util";

import { FwPacket } from "@ndn/fw";
import { L3Face } from "@ndn/l3face";
import {
  ControlCommandOptions,
  ControlParameters,
  ControlResponse,
  getPrefix,
} from "@ndn/nfdmgmt";
import {
  Data,
  digestSigning,
  Interest,
  Nack,
  NackReason,
  Name,
  SignedInterestPolicy,
} from "@ndn/packet";
import { Decoder } from "@ndn/tlv";
import { pushable } from "@ndn/util";

import { connect, emit, uri } from "./common.mjs";

const { values: a } = parseArgs({
  options: {
    transport: { type: "string" },
    prefix: { type: "string" },
    reason: { type: "string", default: "Congestion" },
  },
});
const reason = NackReason[a.reason] ?? Number(a.reason);
const prefix = new Name(a.prefix);

const transport = await connect(a.transport);
const face = new L3Face(transport);
const tx = pushable();
void face.tx(tx);

// rib/register as NfdPrefixReg sends it (ControlParameters in a name component, a
// signed Interest: Nonce and Time, DigestSha256)
const mgmt = getPrefix(transport.attributes.local);
const command = ControlCommandOptions.formatCommandParamsComp(
  mgmt, "rib/register", new ControlParameters({ name: prefix }));
await new SignedInterestPolicy(SignedInterestPolicy.Nonce(), SignedInterestPolicy.Time())
  .makeSigner(digestSigning).sign(command);
tx.push(FwPacket.create(command));

for await (const { l3, token } of face.rx) {
  if (l3 instanceof Data && mgmt.append("rib", "register").isPrefixOf(l3.name)) {
    const cr = Decoder.decode(l3.content, ControlResponse);
    emit({ event: "registered", prefix: uri(prefix), status_code: cr.statusCode,
           status_text: cr.statusText });
  } else if (l3 instanceof Interest && prefix.isPrefixOf(l3.name)) {
    tx.push(FwPacket.create(new Nack(l3, reason), token));
    emit({ event: "nacked", name: uri(l3.name), reason, nonce: l3.nonce });
  }
}
