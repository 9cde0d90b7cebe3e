/* SPDX-License-Identifier: BSD-3-Clause */
/* The input stage: decode what a face received (NDNLPv2, reassembling fragments in
 * lp.c, then the Interest or Data), keep what the next stage needs in the mbuf's
 * metadata, and dispatch: Interests by
 * the NDT, Data and Nacks by their PIT token (our tokens begin with the forwarding
 * context's index), tokenless ones by the NDT of their name. To the lcore's own
 * context the packet goes at once, decoded; to another one through its ring, where
 * the forwarding stage decodes it again. A burst from a port is decoded a few packets
 * ahead of the forwarding stage, so that the first cache misses of each (the PCCT
 * bucket of an Interest, the PIT entry of a Data) overlap with the others' work. */
#include <string.h>

#include <rte_cycles.h>
#include <rte_prefetch.h>
#include <rte_random.h>

#include "../ndn.h"

static inline unsigned int ndt_ctx(const struct tp_ndn_name *n)
{
	if (ndn_conf.n_fwd == 1) /* every NDT entry names it: no hash */
		return 0;
	unsigned int k = RTE_MIN((unsigned int)n->n_comps, ndn_conf.ndt_comps);
	uint64_t h = ndn_siphash(ndn_conf.siphash_key, n->value, tp_ndn_name_prefix_len(n, k));

	return ndn_ndt[h & ((1u << ndn_conf.ndt_bits) - 1)];
}

static inline void rx_drop(struct tp_worker *w, struct rte_mbuf *m, uint16_t face, unsigned int c)
{
	ndn_fcount(w, face, NDN_FC_RX_DROP);
	tp_drop(w, m, NDN_CTR(c));
}

/* Decode m (from face) into r, choose its context, and when that is the lcore's own
 * prefetch what the forwarding stage will read first (the PCCT bucket of an
 * Interest's name, the PIT entry a Data's token names). false: dropped (counted). */
static bool rx_decode(struct tp_worker *w, struct ndn_lcore *lc, struct rte_mbuf *m, uint16_t face,
		      struct ndn_rx *r)
{
	struct tp_ndn_lp lp;
	size_t used;
	unsigned int ctx;

	uint64_t t0 = 0;
	uint8_t sampled = 0;
	uint32_t every = __atomic_load_n(&ndn_tel_every, __ATOMIC_RELAXED);
	if (unlikely(every) && --lc->tel.countdown == 0) {
		/* the next one at random, 1 to 2 every - 1 packets on (mean: every): a
		 * fixed period dividing the burst size picks the same places in each
		 * burst, e.g. always the packet whose enqueue sends the whole burst */
		lc->tel.countdown = every > 1 ? 1 + (uint32_t)rte_rand_max(2ull * every - 1) : 1;
		sampled = 1;
		t0 = rte_rdtsc();
	}
	if (unlikely(m->nb_segs > 1)) {
		rx_drop(w, m, face, NDN_C_MULTISEG);
		return false;
	}
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	int rc = tp_ndn_lp_decode(p, m->data_len, &lp);
	if (unlikely(rc != TP_NDN_E_OK)) {
		rx_drop(w, m, face,
			rc == TP_NDN_E_BAD_FRAGMENT ? NDN_C_LP_BAD_FRAGMENT : NDN_C_DECODE);
		return false;
	}
	lc->fctr[face][NDN_FC_RX_BYTES] += m->data_len;
	if (unlikely(lp.frag_count > 1)) {
		/* a fragment: on with the packet it completes, if it does */
		if ((m = ndn_lp_reassemble(w, m, face, &lp)) == NULL)
			return false;
		p = lp.payload;
	}
	rte_pktmbuf_adj(m, (uint16_t)(lp.payload - p));
	rte_pktmbuf_trim(m, (uint16_t)(m->data_len - lp.payload_len));

	struct ndn_meta *mt = ndn_meta(m);
	mt->face = face;
	mt->sampled = sampled;
	mt->tok_len = lp.pit_token_len;
	if (likely(lp.pit_token_len == NDN_TOKEN_LEN)) /* ours: a fixed-size copy */
		memcpy(mt->tok, lp.pit_token, NDN_TOKEN_LEN);
	else if (lp.pit_token_len == 16)
		memcpy(mt->tok, lp.pit_token, 16);
	else if (lp.pit_token_len) /* none: pit_token is NULL */
		memcpy(mt->tok, lp.pit_token, lp.pit_token_len);
	const uint8_t *pkt = lp.payload;
	r->hashed = false;
	/* NDNLPv2: a Fragment holds one network-layer packet, nothing after it (NFD's link
	 * service refuses a TLV-LENGTH short of the fragment) */
	if (pkt[0] == TP_NDN_T_INTEREST) {
		if (unlikely(tp_ndn_interest_decode_fwd(pkt, lp.payload_len, &r->u.i, &used) !=
				 TP_NDN_E_OK ||
			     used != lp.payload_len)) {
			rx_drop(w, m, face, NDN_C_DECODE);
			return false;
		}
		if (lp.is_nack) {
			mt->type = NDN_PKT_NACK;
			mt->nack_reason = (uint8_t)RTE_MIN(lp.nack_reason, 255u);
			lc->fctr[face][NDN_FC_RX_NACK]++;
			tp_count(w, m->port, NDN_CTR(NDN_C_RX_NACK));
			ctx = (mt->tok_len == NDN_TOKEN_LEN && mt->tok[0] < ndn_conf.n_fwd)
				  ? mt->tok[0]
				  : ndt_ctx(&r->u.i.name);
		} else {
			mt->type = NDN_PKT_INTEREST;
			lc->fctr[face][NDN_FC_RX_INTEREST]++;
			tp_count(w, m->port, NDN_CTR(NDN_C_RX_INTEREST));
			ctx = ndt_ctx(&r->u.i.name);
			struct ndn_fwd *f = ndn_fwd[ctx];
			if (f == lc->fwd && r->u.i.name.n_comps) {
				ndn_name_hashes(&r->u.i.name, r->hashes);
				r->hashed = true;
				rte_prefetch0(&f->bucket[r->hashes[r->u.i.name.n_comps - 1] &
							 f->bucket_mask]);
			}
		}
	} else if (pkt[0] == TP_NDN_T_DATA && !lp.is_nack) {
		if (unlikely(tp_ndn_data_decode(pkt, lp.payload_len, &r->u.d, &used) !=
				 TP_NDN_E_OK ||
			     used != lp.payload_len)) {
			rx_drop(w, m, face, NDN_C_DECODE);
			return false;
		}
		mt->type = NDN_PKT_DATA;
		lc->fctr[face][NDN_FC_RX_DATA]++;
		tp_count(w, m->port, NDN_CTR(NDN_C_RX_DATA));
		if (mt->tok_len == NDN_TOKEN_LEN && mt->tok[0] < ndn_conf.n_fwd) {
			ctx = mt->tok[0];
			struct ndn_fwd *f = ndn_fwd[ctx];
			uint32_t idx;
			memcpy(&idx, mt->tok + 4, 4);
			if (f == lc->fwd && idx && idx <= f->pit_cap)
				rte_prefetch0(&f->pit[idx]);
		} else {
			ctx = ndt_ctx(&r->u.d.name);
		}
	} else {
		rx_drop(w, m, face, NDN_C_DECODE);
		return false;
	}
	r->m = m;
	r->ctx = ctx;
	if (unlikely(sampled)) {
		mt->rx_tsc = rte_rdtsc();
		ndn_tel_record(w, NDN_ST_INPUT, mt->rx_tsc - t0);
	}
	return true;
}

/* Hand a decoded packet to its context: at once when it is the lcore's own, else
 * through the context's ring (where the forwarding stage decodes it again). */
static inline void rx_dispatch(struct tp_worker *w, struct ndn_lcore *lc, struct ndn_rx *r)
{
	struct ndn_fwd *f = ndn_fwd[r->ctx];
	struct rte_mbuf *m = r->m;
	struct ndn_meta *mt = ndn_meta(m);

	if (f == lc->fwd) {
		switch (mt->type) {
		case NDN_PKT_INTEREST:
			ndn_fwd_interest(w, f, m, &r->u.i, r->hashed ? r->hashes : NULL);
			break;
		case NDN_PKT_DATA:
			ndn_fwd_data(w, f, m, &r->u.d);
			break;
		default:
			ndn_fwd_nack(w, f, m, &r->u.i);
		}
		return;
	}
	tp_ring_enqueue(w, f->ring[mt->type - 1], &m, 1);
}

void ndn_face_rx(struct tp_worker *w, struct rte_mbuf *m, uint16_t face)
{
	struct ndn_lcore *lc = ndn_lcore(w);
	struct ndn_rx r;

	if (rx_decode(w, lc, m, face, &r))
		rx_dispatch(w, lc, &r);
}

#define RX_BATCH 8 /* decoded ahead of the forwarding stage: prefetches land meanwhile */

void ndn_face_rx_burst(struct tp_worker *w, struct rte_mbuf **pkts, const uint16_t *faces,
		       uint16_t n)
{
	struct ndn_lcore *lc = ndn_lcore(w);
	struct ndn_rx r[RX_BATCH];

	for (uint16_t b = 0; b < n; b += RX_BATCH) {
		unsigned int k = 0, end = RTE_MIN((unsigned int)(n - b), (unsigned int)RX_BATCH);
		for (unsigned int i = 0; i < end; i++)
			k += rx_decode(w, lc, pkts[b + i], faces[b + i], &r[k]);
		for (unsigned int i = 0; i < k; i++)
			rx_dispatch(w, lc, &r[i]);
	}
}

void ndn_fwd_ring(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n, void *ctx)
{
	struct ndn_fwd *f = ctx;
	union {
		struct tp_ndn_interest i;
		struct tp_ndn_data d;
	} u;
	size_t used;

	for (uint16_t k = 0; k < n; k++) {
		struct rte_mbuf *m = pkts[k];
		const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
		switch (ndn_meta(m)->type) {
		case NDN_PKT_INTEREST:
			if (tp_ndn_interest_decode_fwd(p, m->data_len, &u.i, &used) == TP_NDN_E_OK)
				ndn_fwd_interest(w, f, m, &u.i, NULL);
			else
				tp_drop(w, m, NDN_CTR(NDN_C_DECODE));
			break;
		case NDN_PKT_DATA:
			if (tp_ndn_data_decode(p, m->data_len, &u.d, &used) == TP_NDN_E_OK)
				ndn_fwd_data(w, f, m, &u.d);
			else
				tp_drop(w, m, NDN_CTR(NDN_C_DECODE));
			break;
		default:
			if (tp_ndn_interest_decode_fwd(p, m->data_len, &u.i, &used) == TP_NDN_E_OK)
				ndn_fwd_nack(w, f, m, &u.i);
			else
				tp_drop(w, m, NDN_CTR(NDN_C_DECODE));
		}
	}
}

void ndn_rx_ring(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n, void *ctx)
{
	(void)ctx;
	for (uint16_t k = 0; k < n; k++)
		ndn_face_rx(w, pkts[k], ndn_meta(pkts[k])->face);
}
