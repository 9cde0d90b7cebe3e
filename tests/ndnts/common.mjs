// SPDX-License-Identifier: BSD-3-Clause
// Shared by the NDNts test peers (tests/ndnts/*.mjs, run by
// tests/integration/test_ndn_ndnts.py): the forwarder's transport from a face URI,
// JSON lines on stdout, the lab's deterministic object.
import { L3Face } from "@ndn/l3face";
import { AltUri } from "@ndn/naming-convention2";
import { TcpTransport, UnixTransport } from "@ndn/node-transport";
import { Name } from "@ndn/packet";

/** NFD's FaceUri forms: unix:///PATH or tcp4://HOST[:PORT] (6363 by default). */
function parse(uri) {
  const u = new URL(uri);
  if (u.protocol === "unix:") {
    return { connect: UnixTransport.connect, args: [u.pathname] };
  }
  if (u.protocol === "tcp4:") {
    return { connect: TcpTransport.connect, args: [u.hostname, Number(u.port || 6363)] };
  }
  throw new Error(`transport ${uri}: unix:///PATH or tcp4://HOST:PORT`);
}

/** A transport to the forwarder, for a raw L3Face (no NDNts forwarder in between). */
export function connect(uri) {
  const { connect, args } = parse(uri);
  return connect(...args);
}

/** A face of NDNts's default logical forwarder to the forwarder at uri. */
export async function createFace(uri, opts = {}) {
  const { connect, args } = parse(uri);
  return L3Face.makeCreateFace(connect)(opts, ...args);
}

/** Names as NDN URIs with the naming conventions' alternate syntax (v=, seg=). */
export const uri = (name) => AltUri.ofName(name);

/** One JSON line: bigints as numbers, Names as URIs. */
export function emit(obj) {
  const line = JSON.stringify(obj, (_, v) =>
    typeof v === "bigint" ? Number(v) : v instanceof Name ? uri(v) : v);
  process.stdout.write(`${line}\n`);
}

/** The lab's object of size bytes: byte i is (i * 7 + 3) mod 251 (ndnpeer.py's). */
export function objectBytes(size) {
  const b = new Uint8Array(size);
  for (let i = 0; i < size; i++) {
    b[i] = (i * 7 + 3) % 251;
  }
  return b;
}
