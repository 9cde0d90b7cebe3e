/* SPDX-License-Identifier: BSD-3-Clause */
/* The gateway's data plane on the workers: scan reports to oneM2M contentInstances
 * (report.c decides, this file turns measurements and answers into frames). */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "../../../core/nf.h"
#include "../../../core/tp.h"
#include "../../../proto/ip4.h"
#include "../../../tables/iface.h"
#include "../../../proto/udp.h"
#include "../../ip4/datapath/udp_local.h"
#include "../../ip4/output.h"
#include "fast.h"
#include "../iotgw.h"

uint32_t tp_iotgw_last_seen(int idx)
{
	uint32_t t = 0;
	for (unsigned int i = 0; i < tp.n_workers; i++) {
		const struct tp_iotgw_dp *dp = tp_iotgw_wstate(tp.workers[i]);
		if (dp->agent[idx].seen > t)
			t = dp->agent[idx].seen;
	}
	return t;
}

uint64_t tp_iotgw_counter(enum tp_iotgw_ctr c)
{
	uint64_t sum = 0;
	for (unsigned int i = 0; i < tp.n_workers; i++)
		for (unsigned int p = 0; p < TP_MAX_PORTS; p++)
			sum += __atomic_load_n(&tp.workers[i]->ctr[p][tp_iotgw_nf.ctr_base + c],
					       __ATOMIC_RELAXED);
	return sum;
}

uint64_t tp_iotgw_proc_cycles(void)
{
	uint64_t sum = 0;
	for (unsigned int i = 0; i < tp.n_workers; i++)
		sum +=
		    __atomic_load_n(&tp_iotgw_wstate(tp.workers[i])->proc_cycles, __ATOMIC_RELAXED);
	return sum;
}

struct tp_iotgw_dp *tp_iotgw_wstate(const struct tp_worker *w)
{
	return tp_nf_lcore(w, &tp_iotgw_nf);
}

/* The set of agent ip:port's AARQ source (its first way's index). */
static inline unsigned int src_set(uint32_t ip, uint16_t port)
{
	uint32_t h = (ip ^ (uint32_t)port << 16 ^ port) * 2654435761u;

	return (h >> 22) * TP_IOTGW_SRC_WAYS;
}
_Static_assert(TP_IOTGW_SRC_SLOTS / TP_IOTGW_SRC_WAYS == 1024, "src_set takes 10 bits");

/* Remember where agent ip:port's AARQ came from, for the session manager: in its
 * own slot of the set if it has one, else in place of the set's oldest. */
static void src_remember(struct tp_iotgw_dp *dp, uint32_t ip, uint16_t port, uint64_t l2src)
{
	unsigned int set = src_set(ip, port), w = 0;

	while (w < TP_IOTGW_SRC_WAYS &&
	       !(dp->src[set + w].ip == ip && dp->src[set + w].port == port))
		w++;
	if (w == TP_IOTGW_SRC_WAYS)
		w = dp->src_next[set / TP_IOTGW_SRC_WAYS]++ % TP_IOTGW_SRC_WAYS;
	struct tp_iotgw_src *s = &dp->src[set + w];
	uint32_t q = s->seq;

	__atomic_store_n(&s->seq, q + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&s->ip, ip, __ATOMIC_RELAXED);
	__atomic_store_n(&s->port, port, __ATOMIC_RELAXED);
	__atomic_store_n(&s->l2src, l2src, __ATOMIC_RELAXED);
	__atomic_store_n(&s->seq, q + 2, __ATOMIC_RELEASE);
}

uint64_t tp_iotgw_aarq_source(uint32_t ip, uint16_t port)
{
	uint64_t found = 0;

	for (unsigned int i = 0; i < tp.n_workers * TP_IOTGW_SRC_WAYS; i++) {
		struct tp_iotgw_dp *dp = tp_iotgw_wstate(tp.workers[i / TP_IOTGW_SRC_WAYS]);
		struct tp_iotgw_src *s = &dp->src[src_set(ip, port) + i % TP_IOTGW_SRC_WAYS];
		for (int tries = 0; tries < 16; tries++) {
			uint32_t q = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
			uint32_t sip = __atomic_load_n(&s->ip, __ATOMIC_RELAXED);
			uint16_t sport = __atomic_load_n(&s->port, __ATOMIC_RELAXED);
			uint64_t l2 = __atomic_load_n(&s->l2src, __ATOMIC_RELAXED);
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if ((q & 1) || __atomic_load_n(&s->seq, __ATOMIC_RELAXED) != q)
				continue; /* being written: read it again */
			if (sip == ip && sport == port && l2 != 0) {
				if (found != 0 && found != l2)
					return 0; /* two sources claim the agent: bind to neither */
				found = l2;
			}
			break;
		}
	}
	return found;
}

/* m dropped for reason c (a DROP counter of the port m came in on: dp->ctr) */
static inline void count_drop(struct tp_iotgw_dp *dp, struct rte_mbuf *m, enum tp_iotgw_ctr c)
{
	dp->ctr[c]++;
	rte_pktmbuf_free(m);
}

uint8_t *tp_iotgw_frame_to(struct tp_iotgw_dp *dp, struct rte_mempool *pool, struct rte_mbuf **mp,
			   size_t *room)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	if (m == NULL) {
		dp->ctr[TP_IOTGW_NOMBUF]++;
		return NULL;
	}
	*mp = m;
	*room = rte_pktmbuf_tailroom(m);
	return rte_pktmbuf_mtod(m, uint8_t *);
}

bool tp_iotgw_frame_send(struct tp_worker *w, struct rte_mbuf *m, uint16_t in_port, uint32_t dst,
			 uint16_t sport, uint16_t dport, size_t len, uint16_t ip_id)
{
	m->data_len = m->pkt_len = (uint32_t)len;
	m->port = in_port; /* charged for a drop before a route is found */
	/* headers, route, next hop: the router's output (nf/ip4/output.h), which counts
	 * what it cannot send (output_no_route, output_unresolved, ...) */
	return tp_udp_send(w, m, 0, dst, sport, dport, ip_id) != TP_IP4_OUT_DROPPED;
}

/* A report's requests share one allocation: as many mbufs as the agent has metrics
 * are taken from the pool at once; what is left returns after the report. */
struct emit_ctx {
	struct tp_worker *w;
	struct rte_mempool *pool;
	uint16_t port;	 /* the report's ingress port */
	uint8_t n, next; /* mbufs in m[], the next one to use */
	struct rte_mbuf *m[TP_AE_MAX_METRICS];
};

/* An mbuf for the next request: from the report's batch, refilled with as many as
 * the agent has metrics (one at a time when the pool cannot give them all). */
static struct rte_mbuf *emit_mbuf(struct emit_ctx *c, struct tp_iotgw_dp *dp,
				  const struct tp_ae *ae)
{
	if (c->next == c->n) {
		unsigned int k = ae->n_metrics;
		if (k < 1 || k > TP_AE_MAX_METRICS)
			k = 1;
		c->next = c->n = 0;
		if (rte_pktmbuf_alloc_bulk(c->pool, c->m, k) == 0)
			c->n = (uint8_t)k;
		else if ((c->m[0] = rte_pktmbuf_alloc(c->pool)) != NULL)
			c->n = 1;
		else {
			dp->ctr[TP_IOTGW_NOMBUF]++;
			return NULL;
		}
	}
	return c->m[c->next++];
}

/* One measurement: a CoAP NON POST to the IN-CSE, routed like any packet. */
static void emit_cin(void *arg, struct tp_iotgw_dp *dp, const struct tp_ae *ae,
		     const struct tp_ae_metric *mt, const struct tp_m2m_measure *meas)
{
	struct emit_ctx *c = arg;
	struct rte_mbuf *m = emit_mbuf(c, dp, ae);

	if (m == NULL)
		return;
	uint8_t *coap = rte_pktmbuf_mtod(m, uint8_t *);
	uint16_t mid = dp->mid;
	int cl = tp_iotgw_cin_request(dp, coap, rte_pktmbuf_tailroom(m), ae, mt, meas);
	if (cl < 0) {
		rte_pktmbuf_free(m);
		dp->ctr[TP_IOTGW_NOMBUF]++;
		return;
	}
	if (tp_iotgw_frame_send(c->w, m, c->port, tp_iotgw.cse_ip, TP_IOTGW_COAP_SPORT,
				tp_iotgw.cse_port, (size_t)cl, mid))
		dp->ctr[TP_IOTGW_CIN_SENT]++;
}

/* The batch's mbufs the report did not use go back to the pool. */
static inline void emit_done(struct emit_ctx *c)
{
	if (c->next < c->n)
		rte_pktmbuf_free_bulk(&c->m[c->next], c->n - c->next);
}

void tp_iotgw_reply(struct tp_worker *w, struct rte_mbuf *m, uint8_t *l3, uint8_t *l4,
		    const uint8_t *payload, size_t len)
{
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *), tmp[6];
	uint32_t src, dst;

	if (l4 != l3 + TP_IP4_HDR_LEN) /* IP options: the answer has none */
		memmove(l3 + TP_IP4_HDR_LEN, l4, 8);
	l4 = l3 + TP_IP4_HDR_LEN;
	memcpy(tmp, eth, 6);
	memcpy(eth, eth + 6, 6); /* back to the agent, or the router it came through */
	memcpy(eth + 6, tmp, 6);
	memcpy(&src, l3 + 12, 4);
	memcpy(&dst, l3 + 16, 4);
	uint16_t sport = (uint16_t)(l4[0] << 8 | l4[1]), dport = (uint16_t)(l4[2] << 8 | l4[3]);
	tp_ip4_write(l3, dst, src, TP_IPPROTO_UDP, 64, (uint16_t)(TP_UDP_HDR_LEN + len), 0);
	tp_udp_write(l4, dport, sport, (uint16_t)len);
	memcpy(l4 + 8, payload, len);
	m->data_len = m->pkt_len = (uint32_t)(l4 + 8 + len - eth);
	tp_worker_tx_enqueue(w, m, m->port);
}

/* UDP to the gateway's PHD port: PRST scan reports here, everything else to the
 * control plane (through the TAP to the session manager's socket), or, in
 * single-plane mode, to the session manager right here. */
static void iotgw_input(struct tp_worker *w, struct rte_mbuf *m, uint8_t *l3, uint8_t *l4)
{
	struct tp_iotgw_dp *dp = tp_iotgw_wstate(w);
	uint8_t *end = rte_pktmbuf_mtod(m, uint8_t *) + rte_pktmbuf_data_len(m);
	uint16_t ulen = (uint16_t)(l4[4] << 8 | l4[5]);
	struct emit_ctx ctx = {.w = w, .pool = m->pool, .port = m->port};
	enum tp_iotgw_ctr drop;
	struct tp_phd_apdu a;
	uint32_t sip;

	dp->ctr = &w->ctr[m->port][tp_iotgw_nf.ctr_base]; /* counted on the ingress port */
	if (unlikely(l3[6] & 0x20)) { /* MF: the first fragment (tp_ip4_local); APDUs fit a frame */
		count_drop(dp, m, TP_IOTGW_FRAGMENT);
		return;
	}
	if (ulen < 8 + 4 || l4 + ulen > end) {
		count_drop(dp, m, TP_IOTGW_DECODE_ERR);
		return;
	}
	memcpy(&sip, l3 + 12, 4);
	uint32_t ip = rte_be_to_cpu_32(sip);
	uint16_t port = (uint16_t)(l4[0] << 8 | l4[1]);
	dp->l2src = tp_iotgw_l2src(m->port, rte_pktmbuf_mtod(m, uint8_t *) + 6);
	enum tp_iotgw_verdict v =
	    tp_iotgw_report(dp, l4 + 8, ulen - 8u, ip, port, &a, emit_cin, &ctx, &drop);
	emit_done(&ctx);
	switch (v) {
	case TP_IOTGW_V_SIGNALING: {
		/* a session's signaling from another port or MAC than its AARQ's: not the
		 * agent's (a spoofed release or abort ends no one's session) */
		int idx = tp_ae_lookup(ip, port);
		if (idx >= 0) {
			uint64_t b = __atomic_load_n(&tp_ae_table[idx].l2src, __ATOMIC_RELAXED);
			if (b != 0 && b != dp->l2src) {
				count_drop(dp, m, TP_IOTGW_SPOOFED);
				return;
			}
		}
		if (l4[8] == (TP_PHD_AARQ >> 8))
			src_remember(dp, ip, port, dp->l2src);
		if (tp_iotgw.single_plane) {
			dp->ctr[TP_IOTGW_SIGNALING_INLINE]++;
			tp_iotgw_single_input(w, m, l4 + 8, ulen - 8u, ip, port);
			return;
		}
		tp_punt(w, m, tp_iotgw_nf.ctr_base + TP_IOTGW_TO_CONTROL, TP_PUNT_SIGNALING);
		return;
	}
	case TP_IOTGW_V_DROP:
		count_drop(dp, m, drop);
		return;
	case TP_IOTGW_V_DONE:
		rte_pktmbuf_free(m);
		return;
	case TP_IOTGW_V_ANSWER: {
		uint8_t rsp[64];
		int len = tp_iotgw_answer(&a.u.prst, rsp, sizeof(rsp));
		if (len < 0) {
			count_drop(dp, m, TP_IOTGW_DECODE_ERR);
			return;
		}
		dp->ctr[TP_IOTGW_RESPONSES]++;
		tp_iotgw_reply(w, m, l3, l4, rsp, (size_t)len);
		return;
	}
	}
}

int tp_iotgw_fast_register(void)
{
	return tp_udp_local_register(tp_iotgw.port, iotgw_input, "iotgw");
}
