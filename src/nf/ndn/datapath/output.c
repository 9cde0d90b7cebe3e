/* SPDX-License-Identifier: BSD-3-Clause */
/* The output stage (NDN-DPDK's output threads). With lcores of role "output", the
 * forwarding stage hands each packet to the output lcore of its face (face id modulo
 * their number: one face's packets keep their order) through that lcore's ring; the
 * output lcore writes the NDNLPv2 and link headers, fragments to the face's MTU and
 * transmits. Without output lcores the forwarding lcore does that itself. What the
 * output stage needs travels in the packet's metadata. */
#include <string.h>

#include "../ndn.h"

struct tp_ring *ndn_out_ring[NDN_OUT_MAX];

void ndn_out(struct tp_worker *w, uint16_t face, struct rte_mbuf *m, const uint8_t *tok,
	     uint8_t tok_len, uint8_t nack_reason, enum ndn_face_ctr what)
{
	unsigned int n = ndn_conf.n_out;

	if (likely(n == 0) || face == NDN_FACE_INTERNAL) {
		ndn_face_tx(w, face, m, tok, tok_len, nack_reason, what);
		return;
	}
	struct ndn_meta *mt = ndn_meta(m);
	mt->out_face = face;
	mt->out_what = (uint8_t)what;
	mt->nack_reason = nack_reason;
	mt->tok_len = tok_len;
	if (tok != mt->tok)
		memcpy(mt->tok, tok, sizeof(mt->tok)); /* whole: a fixed-size copy */
	tp_ring_enqueue(w, ndn_out_ring[face % n], &m, 1);
}

void ndn_out_ring_fn(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n, void *ctx)
{
	(void)ctx;
	for (uint16_t i = 0; i < n; i++) {
		struct ndn_meta *mt = ndn_meta(pkts[i]);
		ndn_face_tx(w, mt->out_face, pkts[i], mt->tok, mt->tok_len, mt->nack_reason,
			    (enum ndn_face_ctr)mt->out_what);
	}
}
