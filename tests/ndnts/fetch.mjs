// SPDX-License-Identifier: BSD-3-Clause
// NDNts consumer: fetches a segmented object (@ndn/segmented-object fetch: NAME/seg=K
// until the FinalBlockId, its congestion control and retransmissions) through the
// forwarder; prints {"size", "sha256", "segments"}, or {"error"}.
//   node fetch.mjs --transport unix:///PATH|tcp4://HOST:PORT --name /P
import { createHash } from "node:crypto";
import { parseArgs } from "node:util";

import { fetch } from "@ndn/segmented-object";

import { createFace, emit } from "./common.mjs";

const { values: a } = parseArgs({
  options: {
    transport: { type: "string" },
    name: { type: "string" },
  },
});

const face = await createFace(a.transport);
const h = createHash("sha256");
let size = 0;
let segments = 0;
try {
  for await (const data of fetch(a.name, { retxLimit: 5 })) {
    h.update(data.content);
    size += data.content.length;
    segments++;
  }
  emit({ size, sha256: h.digest("hex"), segments });
} catch (err) {
  emit({ error: `${err}`, size, segments });
}
face.close();
process.exit(0);
