/* SPDX-License-Identifier: BSD-3-Clause */
/* NDNLPv2 reassembly for the input stage: each data-plane lcore keeps the fragments it
 * receives in its own reassembler, and copies a complete packet into one mbuf, so that
 * what follows sees one contiguous packet, as if it had come whole. */
#include <string.h>

#include <rte_errno.h>
#include <rte_mbuf.h>

#include "../../../control/port.h"
#include "../../../core/tp.h"
#include "../ndn.h"

struct rte_mempool *ndn_lp_pool;
struct rte_mempool *ndn_frag_pool;

int ndn_lp_init(void)
{
	int ret;

	/* one segment per packet (the forwarding stage's rule), longer than a port's mbuf */
	ndn_lp_pool =
	    rte_pktmbuf_pool_create("ndn_lp", NDN_LP_POOL_SIZE, 64, TP_MBUF_PRIV_SIZE,
				    RTE_PKTMBUF_HEADROOM + NDN_LP_DATA_ROOM, SOCKET_ID_ANY);
	if (ndn_lp_pool == NULL)
		return -rte_errno;
	if ((ret = tp_pool_track(ndn_lp_pool)) < 0)
		return ret;
	/* the fragments the lcores hold, as copies: a port's pool is sized for its rings,
	 * not for what waits here (security review N13); exactly what the reassemblers
	 * can hold, no per-lcore cache to hoard any */
	ndn_frag_pool =
	    rte_pktmbuf_pool_create("ndn_frag", tp.n_workers * TP_NDN_REASM_HELD_MAX + 1, 0,
				    TP_MBUF_PRIV_SIZE, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (ndn_frag_pool == NULL)
		return -rte_errno;
	return tp_pool_track(ndn_frag_pool);
}

void ndn_lp_lcore_init(struct tp_worker *w, struct ndn_lp_lcore *lp)
{
	tp_ndn_reasm_init(&lp->reasm, tp.tsc_hz * NDN_LP_TIMEOUT_MS / 1000);
	lp->next_expiry = UINT64_MAX;
	/* a face's peer reassembles by Sequence, and every lcore may send on every face:
	 * the lcore in the top byte keeps their numbers apart */
	lp->seq_hi = (uint64_t)w->id << 56;
}

/* A fragment lost (m at its payload, its meta's face set). */
static void frag_drop(struct tp_worker *w, struct rte_mbuf *m, unsigned int c)
{
	ndn_fcount(w, ndn_meta(m)->face, NDN_FC_RX_DROP);
	tp_drop(w, m, NDN_CTR(c));
}

/* The packet of fragments frags[0..n-1] (each at its payload), in one new mbuf; lp
 * describes it. NULL when it cannot be made (the fragments dropped, counted). */
static struct rte_mbuf *linearize(struct tp_worker *w, struct ndn_lp_lcore *st,
				  struct rte_mbuf **frags, uint32_t n, struct tp_ndn_lp *lp)
{
	const struct ndn_meta *first = ndn_meta(frags[0]);
	struct rte_mbuf *p = NULL;
	unsigned int why = 0;
	uint32_t len = 0;

	for (uint32_t k = 0; k < n; k++)
		len += frags[k]->data_len;
	if (len > NDN_LP_DATA_ROOM)
		why = NDN_C_LP_TOO_LONG;
	else if ((p = rte_pktmbuf_alloc(ndn_lp_pool)) == NULL)
		why = NDN_C_NOMBUF;
	if (why) {
		for (uint32_t k = 0; k < n; k++)
			frag_drop(w, frags[k], why);
		return NULL;
	}
	uint8_t *d = (uint8_t *)rte_pktmbuf_append(p, (uint16_t)len);
	for (uint32_t k = 0; k < n; k++) {
		memcpy(d, rte_pktmbuf_mtod(frags[k], const uint8_t *), frags[k]->data_len);
		d += frags[k]->data_len;
	}
	p->port = frags[n - 1]->port;
	/* NDNLPv2: the header fields of the network-layer packet are on its first
	 * fragment (as NFD's LpFragmenter sends them, and its reassembler reads them) */
	memset(lp, 0, sizeof(*lp));
	lp->payload = rte_pktmbuf_mtod(p, const uint8_t *);
	lp->payload_len = len;
	lp->frag_count = 1;
	lp->pit_token_len = first->tok_len;
	memcpy(st->tok, first->tok, first->tok_len);
	lp->pit_token = st->tok;
	lp->is_nack = first->type == NDN_PKT_NACK;
	lp->nack_reason = first->nack_reason;
	rte_pktmbuf_free_bulk(frags, n);
	tp_count(w, p->port, NDN_CTR(NDN_C_LP_REASSEMBLED));
	return p;
}

struct rte_mbuf *ndn_lp_reassemble(struct tp_worker *w, struct rte_mbuf *m, uint16_t face,
				   struct tp_ndn_lp *lp)
{
	struct ndn_lp_lcore *st = &ndn_lcore(w)->lp;
	struct ndn_meta *mt = ndn_meta(m);
	void *out[TP_NDN_FRAG_MAX], *ev[TP_NDN_REASM_EVICT_MAX];
	uint32_t n_out, n_ev;

	ndn_fcount(w, face, NDN_FC_RX_FRAGMENTS);
	mt->face = face;
	if (lp->frag_index == 0) { /* its header fields, for the packet */
		mt->tok_len = lp->pit_token_len;
		if (lp->pit_token_len) /* none: pit_token is NULL */
			memcpy(mt->tok, lp->pit_token, lp->pit_token_len);
		mt->type = lp->is_nack ? NDN_PKT_NACK : 0;
		mt->nack_reason = (uint8_t)RTE_MIN(lp->nack_reason, 255u);
	}
	/* the fragment's payload alone */
	rte_pktmbuf_adj(m, (uint16_t)(lp->payload - rte_pktmbuf_mtod(m, const uint8_t *)));
	rte_pktmbuf_trim(m, (uint16_t)(m->data_len - lp->payload_len));
	/* held as a copy in the module's own pool: the port's mbuf goes home at once (the
	 * input stage takes one segment, so is the copy) */
	struct rte_mbuf *c = rte_pktmbuf_copy(m, ndn_frag_pool, 0, UINT32_MAX);
	if (unlikely(c == NULL)) {
		frag_drop(w, m, NDN_C_NOMBUF);
		return NULL;
	}
	memcpy(rte_mbuf_to_priv(c), rte_mbuf_to_priv(m), TP_MBUF_PRIV_SIZE);
	rte_pktmbuf_free(m);
	m = c;
	enum tp_ndn_reasm_result r =
	    tp_ndn_reasm_add(&st->reasm, lp, face, m, w->now, out, &n_out, ev, &n_ev);
	/* a duplicate of a fragment held comes back as itself; else a partial packet
	 * evicted for this one's */
	for (uint32_t k = 0; k < n_ev; k++)
		frag_drop(w, ev[k], ev[k] == m ? NDN_C_LP_DUPLICATE : NDN_C_LP_EVICTED);
	switch (r) {
	case TP_NDN_REASM_BAD: /* its FragCount is not its packet's */
		frag_drop(w, m, NDN_C_LP_BAD_FRAGMENT);
		return NULL;
	case TP_NDN_REASM_HELD:
		/* a bound: ndn_lp_expire finds the earliest deadline */
		st->next_expiry = RTE_MIN(st->next_expiry, w->now + st->reasm.timeout);
		return NULL;
	default: {
		struct rte_mbuf *frags[TP_NDN_FRAG_MAX];
		for (uint32_t k = 0; k < n_out; k++)
			frags[k] = out[k];
		return linearize(w, st, frags, n_out, lp);
	}
	}
}

unsigned int ndn_lp_expire(struct tp_worker *w, struct ndn_lp_lcore *lp)
{
	void *ev[TP_NDN_REASM_EVICT_MAX];
	uint32_t n_ev;
	unsigned int n = 0;

	while (tp_ndn_reasm_expire(&lp->reasm, w->now, ev, &n_ev)) {
		for (uint32_t k = 0; k < n_ev; k++)
			frag_drop(w, ev[k], NDN_C_LP_TIMEOUT);
		n += n_ev;
	}
	lp->next_expiry = tp_ndn_reasm_next_deadline(&lp->reasm);
	return n;
}
