/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv6 input: the burst in three passes (tp_ip6_input): the fast test, the lookups
 * in one call, the output (rewrite, hop limit, transmit buffer); the validation of
 * what the fast test refuses, in RFC 8200 order (tp_ip6_classify_slow). */
#include <stdbool.h>

#include <rte_common.h>
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

/* The fast test: unicast to our MAC (mac: the port's, in the low 6 bytes), ethertype
 * 0x86DD, one segment whose length is the header's, version 6, hop limit > 1, no
 * Hop-by-Hop or Routing header, source and destination outside ::/8, fe00::/7 and
 * ff00::/8 (what a router never forwards is in those; the slow path tells exactly).
 * Anything else takes the slow path, which checks again in order and names the reason. */
static __rte_always_inline bool ip6_fast_ok(uint64_t mac, const struct rte_mbuf *m)
{
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *ip = eth + TP_ETH_HDR_LEN;
	uint32_t len = rte_pktmbuf_data_len(m);
	uint64_t dmac;
	uint16_t type;

	memcpy(&dmac, eth, sizeof(dmac)); /* the source's first bytes: shifted out */
	memcpy(&type, eth + 12, sizeof(type));
	return ((dmac ^ mac) << 16) == 0 && type == RTE_BE16(TP_ETHERTYPE_IP6) &&
	       len >= TP_ETH_HDR_LEN + TP_IP6_HDR_LEN && len == rte_pktmbuf_pkt_len(m) &&
	       (ip[0] >> 4) == 6 &&
	       len == TP_ETH_HDR_LEN + TP_IP6_HDR_LEN + (uint32_t)tp_ip6_plen(ip) && ip[7] > 1 &&
	       ip[6] != TP_IP6_NH_HOP_BY_HOP && ip[6] != TP_IP6_NH_ROUTING &&
	       (uint8_t)(ip[8] + 2) > 2 && (uint8_t)(ip[24] + 2) > 2;
}

/* The output pass: n checked packets with their next hops (nh[i] < 0: no route),
 * in arrival order. Each is rewritten (MACs, hop limit) into its next hop's transmit
 * buffer, or consumed (no route, unresolved neighbour, too big for the link). The
 * next hop of the previous packet stays in locals (registers): its forwarding word,
 * source MAC + type, frame limit, buffer and the buffer's fill, written back when the
 * next hop changes and at the end. */
static __rte_always_inline void ip6_output(struct tp_worker *w, struct rte_mbuf **pkts,
					   const int32_t *nh, unsigned int n)
{
	uint32_t cur = CUR_NONE, frame_max = 0;
	uint64_t l2 = 0, smac = 0;
	struct tp_txbuf *b = NULL;
	unsigned int bn = 0;

	for (unsigned int i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint32_t id = nh[i] < 0 ? NH_NONE : (uint32_t)nh[i];

		if (unlikely(id != cur)) {
			if (b != NULL) { /* written back, as at the end */
				b->n = (uint16_t)bn;
				w->tx_dirty |= bn ? 1ull << tp_nh_l2_port(l2) : 0;
				b = NULL;
			}
			cur = CUR_NONE;
			uint64_t v = id == NH_NONE ? 0 : tp_nh_l2_load(id);
			if (unlikely(!(tp_nh_l2_flags(v) & TP_NH_F_RESOLVED))) {
				tp_ip6_no_forward(w, m, id, v);
				continue;
			}
			const struct tp_iface *out = &tp_iface_table[tp_nh_l2_port(v)];
			uint64_t mac = 0;
			memcpy(&mac, &out->mac, RTE_ETHER_ADDR_LEN);
			smac = mac | ((uint64_t)RTE_BE16(TP_ETHERTYPE_IP6) << 48);
			/* an MTU of 0 is one nobody set (a bare test table): no limit */
			frame_max = out->mtu ? (uint32_t)out->mtu + TP_ETH_HDR_LEN : UINT32_MAX;
			l2 = v;
			cur = id;
			b = &w->txb[tp_nh_l2_port(v)];
			bn = b->n;
		}
		/* RFC 8200 5: a router does not fragment; the kernel answers Packet Too Big
		 * (RFC 4443 3.2) with the link's MTU */
		if (unlikely(rte_pktmbuf_pkt_len(m) > frame_max)) {
			b->n = (uint16_t)bn;
			w->tx_dirty |= bn ? 1ull << tp_nh_l2_port(l2) : 0;
			b = NULL;
			cur = CUR_NONE;
			tp_ip6_punt(w, m, IP6_C_EXCEEDS_MTU);
			continue;
		}
		uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
		/* bytes 0-5: destination MAC (6-7 of the word are overwritten next) */
		memcpy(eth, &l2, sizeof(l2));
		memcpy(eth + 6, &smac, sizeof(smac));
		eth[TP_ETH_HDR_LEN + 7]--; /* RFC 8200 3: Hop Limit, less 1 at each router */
		b->pkts[bn++] = m;
		if (unlikely(bn == TP_BURST)) { /* full: sent now, never left full (worker.h) */
			b->n = TP_BURST;
			tp_worker_tx_flush_port(w, tp_nh_l2_port(l2));
			bn = 0;
		}
	}
	if (b != NULL) {
		b->n = (uint16_t)bn;
		w->tx_dirty |= bn ? 1ull << tp_nh_l2_port(l2) : 0;
	}
}

/* Three passes over at most TP_BURST packets, as l3fwd's burst: the checks, with the
 * destinations gathered (nothing is buffered yet, so the slow path may punt and
 * answer); the lookups in one call (back to back, so the CPU overlaps them: decision
 * 0117); the output in arrival order. */
static __rte_always_inline void ip6_chunk(struct tp_worker *w, const struct rte_lpm6 *lpm,
					  uint64_t mac, struct rte_mbuf **pkts, unsigned int n,
					  struct rte_mbuf **others, uint16_t *n_others)
{
	struct rte_mbuf *fwd[TP_BURST];
	uint8_t dst[TP_BURST][16];
	int32_t nh[TP_BURST];
	unsigned int i, nf = 0;

	for (i = 0; i < PREFETCH_AHEAD && i < n; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		if (i + PREFETCH_AHEAD < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + PREFETCH_AHEAD], void *));
		if (unlikely(!ip6_fast_ok(mac, m))) {
			int r = tp_ip6_classify_slow(w, m, others, n_others);
			if (r == IP6_HOP_LOW)
				tp_ip6_hop_low(w, m);
			if (r != IP6_FORWARD)
				continue;
		}
		memcpy(dst[nf], rte_pktmbuf_mtod_offset(m, uint8_t *, TP_ETH_HDR_LEN + 24), 16);
		fwd[nf++] = m;
	}
	if (nf == 0)
		return;
	rte_lpm6_lookup_bulk_func(lpm, dst, nh, nf);
	ip6_output(w, fwd, nh, nf);
}

uint16_t tp_ip6_input(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n,
		      struct rte_mbuf **others)
{
	uint16_t n_others = 0;
	uint64_t mac = 0;

	if (unlikely(n == 0))
		return 0;
	TP_TRACE_BURST(w, pkts, n, "ip6.input");

	const struct rte_lpm6 *lpm = tp_route6_reader();

	if (unlikely(lpm == NULL)) { /* no table (a module that did not start) */
		for (unsigned int i = 0; i < n; i++) {
			uint16_t type = 0;
			if (rte_pktmbuf_data_len(pkts[i]) >= TP_ETH_HDR_LEN)
				memcpy(&type, rte_pktmbuf_mtod_offset(pkts[i], uint8_t *, 12), 2);
			if (type == RTE_BE16(TP_ETHERTYPE_IP6))
				tp_ip6_punt(w, pkts[i], IP6_C_NO_ROUTE);
			else
				others[n_others++] = pkts[i];
		}
		return n_others;
	}
	/* one burst comes from one rx queue, so from one port */
	memcpy(&mac, &tp_iface_table[pkts[0]->port].mac, RTE_ETHER_ADDR_LEN);
	for (unsigned int i = 0; i < n; i += TP_BURST)
		ip6_chunk(w, lpm, mac, &pkts[i], RTE_MIN(n - i, (unsigned int)TP_BURST), others,
			  &n_others);
	return n_others;
}
