/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv6 input: the burst loop (tp_ip6_input), every stage of a packet in one function
 * (ip6_one): check, look up, rewrite, hop limit, transmit buffer; the validation of
 * what the fast test refuses, in RFC 8200 order (tp_ip6_classify_slow). */
#include <rte_ether.h>
#include <rte_lpm6.h>
#include <rte_prefetch.h>

#include "../../../core/mbuf.h"
#include "../../../proto/ip4.h"
#include "../../../proto/ip6.h"
#include "../../../tables/iface.h"
#include "../../ip4/control/nexthop.h"
#include "../control/route6.h"
#include "../ip6.h"
#include "ip6_stages.h"

#define PREFETCH_AHEAD 4
#define NH_NONE UINT32_MAX	  /* no route (rte_lpm6 next hops have 21 bits) */
#define CUR_NONE (UINT32_MAX - 1) /* nothing cached: no lookup gives it */

static const uint8_t verdict_ctr[] = {
    [TP_IP6_TOO_SHORT] = IP6_C_TOO_SHORT,
    [TP_IP6_BAD_VERSION] = IP6_C_BAD_VERSION,
    [TP_IP6_LEN_EXCEEDS_FRAME] = IP6_C_LEN_EXCEEDS_FRAME,
};

/* Classify a frame the fast test refused, carefully, in order: a frame that is not
 * IPv6 goes back to the l3 input function (*others); IPv6 to another host's MAC is
 * dropped; RFC 8200 3's header checks (dropped), addresses a router never forwards nor accepts (RFC
 * 4291 2.5.2, 2.5.3, 2.7: dropped; :: as the destination: to the kernel, which answers), group and
 * link-local destinations and link-local sources (RFC 4291 2.5.6: to the kernel), the extension
 * headers a router must look at (RFC 8200 4.3 Hop-by-Hop; 4.4 Routing: to the kernel), Ethernet
 * padding (cut). Returns IP6_FORWARD, IP6_HOP_LOW or IP6_CONSUMED. */
__rte_noinline int tp_ip6_classify_slow(struct tp_worker *w, struct rte_mbuf *m,
					struct rte_mbuf **others, uint16_t *n_others)
{
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *ip = eth + TP_ETH_HDR_LEN;

	if (rte_pktmbuf_data_len(m) < TP_ETH_HDR_LEN ||
	    ((const struct rte_ether_hdr *)eth)->ether_type != RTE_BE16(TP_ETHERTYPE_IP6)) {
		others[(*n_others)++] = m;
		return IP6_CONSUMED;
	}
	if (!(eth[0] & 1) && memcmp(eth, &tp_iface_table[m->port].mac, RTE_ETHER_ADDR_LEN) != 0) {
		tp_drop(w, m, TP_DROP_L2_OTHER_HOST);
		return IP6_CONSUMED;
	}
	uint32_t avail = rte_pktmbuf_pkt_len(m) - TP_ETH_HDR_LEN;
	uint32_t seg = rte_pktmbuf_data_len(m) - TP_ETH_HDR_LEN;

	/* the IPv6 header must be in the first segment (it is wherever a NIC puts it) */
	if (seg < TP_IP6_HDR_LEN) {
		tp_drop(w, m, IP6_CTR(TOO_SHORT));
		return IP6_CONSUMED;
	}
	enum tp_ip6_verdict v = tp_ip6_check(ip, avail); /* RFC 8200 3 */
	if (v != TP_IP6_OK) {
		tp_drop(w, m, tp_ip6_nf.ctr_base + verdict_ctr[v]);
		return IP6_CONSUMED;
	}
	/* RFC 4291 2.7: no multicast source; 2.5.3: no loopback source or destination;
	 * 2.5.2: the unspecified source is never forwarded, and comes only to a group
	 * from a node without an address yet (RFC 4862 5.4.2, Duplicate Address
	 * Detection: the kernel's) */
	const uint8_t *src = ip + 8, *dst = ip + 24;
	if (tp_ip6_is_multicast(src) || (tp_ip6_is_unspec_or_loopback(dst) && dst[15] == 1) ||
	    (tp_ip6_is_unspec_or_loopback(src) && (src[15] == 1 || !tp_ip6_is_multicast(dst)))) {
		tp_drop(w, m, IP6_CTR(MARTIAN));
		return IP6_CONSUMED;
	}
	uint32_t tot = TP_IP6_HDR_LEN + tp_ip6_plen(ip);
	if (tot < avail) /* Ethernet padding: the frame carries the packet only */
		tp_mbuf_cut(m, TP_ETH_HDR_LEN + tot);
	/* RFC 4291 2.5.2: :: is never a destination; Linux answers it as one without a
	 * route (RFC 4443 3.1 code 0), so the kernel answers (test_conformance6.py) */
	if (tp_ip6_is_unspec_or_loopback(dst)) {
		tp_ip6_punt(w, m, IP6_C_NO_ROUTE);
		return IP6_CONSUMED;
	}
	if ((eth[0] & 1) || tp_ip6_is_multicast(dst)) {
		tp_ip6_punt(w, m, IP6_C_MULTICAST);
		return IP6_CONSUMED;
	}
	/* RFC 4291 2.5.6: a router does not forward link-local sources or destinations;
	 * to the kernel, which takes its own and answers the rest (RFC 4443 3.1 code 2) */
	if (tp_ip6_is_link_local(dst) || tp_ip6_is_link_local(src)) {
		tp_ip6_punt(w, m, IP6_C_LINK_LOCAL);
		return IP6_CONSUMED;
	}
	/* RFC 8200 4.3: every node on the path examines Hop-by-Hop options (also a
	 * jumbogram's, RFC 2675); 4.4: a Routing header is the kernel's to process */
	if (ip[6] == TP_IP6_NH_HOP_BY_HOP || ip[6] == TP_IP6_NH_ROUTING) {
		tp_ip6_punt(w, m, IP6_C_EXT_HEADER);
		return IP6_CONSUMED;
	}
	/* RFC 8200 3: a packet is discarded when the hop limit would reach 0 by
	 * forwarding; one for us is ours (ND sends 255, OSPFv3 1) */
	return ip[7] <= 1 ? IP6_HOP_LOW : IP6_FORWARD;
}

/* What a burst keeps between its packets. */
struct ip6_burst {
	struct tp_worker *w;
	const struct rte_lpm6 *lpm;
	uint64_t mac;		  /* the port's MAC in the low 6 bytes */
	uint32_t cur;		  /* next hop l2/smac/b belong to, or CUR_NONE */
	uint64_t l2, smac;	  /* its forwarding word, source MAC + type 0x86DD */
	uint32_t frame_max;	  /* largest frame its port takes: MTU + Ethernet header */
	struct tp_txbuf *b;	  /* output buffer of the cached next hop */
	unsigned int bn;	  /* its fill, written back to b->n when the buffer changes */
	struct rte_mbuf **others; /* frames that are not IPv6, for the l3 mode */
	uint16_t n_others;
};

static inline void ip6_burst_sync(struct ip6_burst *s)
{
	if (s->b != NULL) {
		s->b->n = (uint16_t)s->bn;
		s->w->tx_dirty |= s->bn ? 1ull << tp_nh_l2_port(s->l2) : 0;
		s->b = NULL;
	}
	s->cur = CUR_NONE;
}

/* A packet whose next hop is not the cached one. Returns 1 (the cache filled) if m
 * is to be forwarded on next hop id; otherwise m has been consumed. */
static inline int ip6_nh_switch(struct ip6_burst *s, struct rte_mbuf *m, uint32_t id)
{
	uint64_t v = id == NH_NONE ? 0 : tp_nh_l2_load(id);

	ip6_burst_sync(s);
	if (unlikely(!(tp_nh_l2_flags(v) & TP_NH_F_RESOLVED))) {
		tp_ip6_no_forward(s->w, m, id, v);
		return 0;
	}
	s->l2 = v;
	const struct tp_iface *out = &tp_iface_table[tp_nh_l2_port(v)];
	memcpy(&s->smac, &out->mac, sizeof(s->smac));
	s->smac = (s->smac & 0xffffffffffffull) | ((uint64_t)RTE_BE16(TP_ETHERTYPE_IP6) << 48);
	/* an MTU of 0 is one nobody set (a bare test table): no limit */
	s->frame_max = out->mtu ? (uint32_t)out->mtu + TP_ETH_HDR_LEN : UINT32_MAX;
	s->cur = id;
	s->b = &s->w->txb[tp_nh_l2_port(v)];
	s->bn = s->b->n;
	return 1;
}

/* One packet, start to end. The fast test: unicast to our MAC, ethertype 0x86DD, one
 * segment whose
 * length is the header's, version 6, hop limit > 1, no Hop-by-Hop or Routing header,
 * source and destination outside ::/8, fe00::/7 and ff00::/8 (what a router never
 * forwards is in those; the slow path tells exactly). Anything else takes the slow
 * path, which checks again in order and names the reason. */
static __rte_always_inline void ip6_one(struct ip6_burst *s, struct rte_mbuf *m)
{
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t *ip = eth + TP_ETH_HDR_LEN;
	uint32_t len = rte_pktmbuf_data_len(m);
	uint64_t dmac;
	uint16_t type;
	uint32_t nh;
	int r = IP6_FORWARD;

	memcpy(&dmac, eth, sizeof(dmac)); /* the source's first bytes: shifted out */
	memcpy(&type, eth + 12, sizeof(type));
	if (unlikely(((dmac ^ s->mac) << 16) != 0 || type != RTE_BE16(TP_ETHERTYPE_IP6) ||
		     len < TP_ETH_HDR_LEN + TP_IP6_HDR_LEN || len != rte_pktmbuf_pkt_len(m) ||
		     (ip[0] >> 4) != 6 ||
		     len != TP_ETH_HDR_LEN + TP_IP6_HDR_LEN + (uint32_t)tp_ip6_plen(ip) ||
		     ip[7] <= 1 || ip[6] == TP_IP6_NH_HOP_BY_HOP || ip[6] == TP_IP6_NH_ROUTING ||
		     (uint8_t)(ip[8] + 2) <= 2 || (uint8_t)(ip[24] + 2) <= 2)) {
		ip6_burst_sync(s); /* the slow path may punt */
		r = tp_ip6_classify_slow(s->w, m, s->others, &s->n_others);
		if (r == IP6_CONSUMED)
			return;
		if (r == IP6_HOP_LOW) {
			tp_ip6_hop_low(s->w, m);
			return;
		}
	}
	if (rte_lpm6_lookup(s->lpm, ip + 24, &nh) != 0)
		nh = NH_NONE;
	if (unlikely(nh != s->cur) && !ip6_nh_switch(s, m, nh))
		return;
	/* RFC 8200 5: a router does not fragment; the kernel answers Packet Too Big
	 * (RFC 4443 3.2) with the link's MTU */
	if (unlikely(rte_pktmbuf_pkt_len(m) > s->frame_max)) {
		ip6_burst_sync(s);
		tp_ip6_punt(s->w, m, IP6_C_EXCEEDS_MTU);
		return;
	}
	/* bytes 0-5: destination MAC (6-7 of the word are overwritten next) */
	memcpy(eth, &s->l2, sizeof(s->l2));
	memcpy(eth + 6, &s->smac, sizeof(s->smac));
	ip[7]--; /* RFC 8200 3: Hop Limit, decremented by 1 by each forwarding node */
	s->b->pkts[s->bn++] = m;
	if (unlikely(s->bn == TP_BURST)) { /* full: sent now, never left full (worker.h) */
		s->b->n = TP_BURST;
		tp_worker_tx_flush_port(s->w, tp_nh_l2_port(s->l2));
		s->bn = 0;
	}
}

uint16_t tp_ip6_input(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n,
		      struct rte_mbuf **others)
{
	unsigned int i;

	if (unlikely(n == 0))
		return 0;
	TP_TRACE_BURST(w, pkts, n, "ip6.input");

	struct ip6_burst s = {
	    .w = w,
	    .lpm = tp_route6_reader(),
	    .cur = CUR_NONE,
	    .others = others,
	};

	if (unlikely(s.lpm == NULL)) { /* no table (a module that did not start) */
		for (i = 0; i < n; i++) {
			uint16_t type = 0;
			if (rte_pktmbuf_data_len(pkts[i]) >= TP_ETH_HDR_LEN)
				memcpy(&type, rte_pktmbuf_mtod_offset(pkts[i], uint8_t *, 12), 2);
			if (type == RTE_BE16(TP_ETHERTYPE_IP6))
				tp_ip6_punt(w, pkts[i], IP6_C_NO_ROUTE);
			else
				others[s.n_others++] = pkts[i];
		}
		return s.n_others;
	}
	/* one burst comes from one rx queue, so from one port */
	memcpy(&s.mac, &tp_iface_table[pkts[0]->port].mac, RTE_ETHER_ADDR_LEN);

	for (i = 0; i < PREFETCH_AHEAD && i < n; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i + PREFETCH_AHEAD < n; i++) {
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i + PREFETCH_AHEAD], void *));
		ip6_one(&s, pkts[i]);
	}
	for (; i < n; i++)
		ip6_one(&s, pkts[i]);
	ip6_burst_sync(&s);
	return s.n_others;
}
