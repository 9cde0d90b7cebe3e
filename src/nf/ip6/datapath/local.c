/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv6's cold stages: what does not forward (hop limit expired, no route, a special,
 * unfit or unresolved next hop), packets for our own addresses, and the punt to the
 * kernel with its class: Neighbor Discovery and OSPFv3 from the link, with the hop
 * limit their RFCs set, are the control class, fair per source; what comes from one of
 * our own addresses is not punted but dropped. */
#include <stdbool.h>

#include <rte_lpm6.h>
#include <rte_mbuf.h>

#include "../../../proto/ip4.h"
#include "../../../proto/ip6.h"
#include "../../ip4/control/nexthop.h"
#include "../control/route6.h"
#include "../ip6.h"
#include "ip6_stages.h"

/* The source address folded to 32 bits: the key of the per-source buckets. */
static inline uint32_t src_fold(const uint8_t *ip)
{
	uint32_t w[4];

	memcpy(w, ip + 8, sizeof(w));
	return w[0] ^ w[1] ^ w[2] ^ w[3];
}

/* Counted demotion (counter id) of a packet that looks like a control protocol. */
static enum tp_punt_class ctl_demote(struct tp_worker *w, uint16_t port, unsigned int id)
{
	tp_count(w, port, id);
	return TP_PUNT_OTHER;
}

/* The class of a packet for us or a group, and the counter it is punted under (*c,
 * changed to ND for Neighbor Discovery). Only the first Next Header is looked at: a
 * control packet behind extension headers is the other class. */
static enum tp_punt_class ip6_punt_class(struct tp_worker *w, const struct rte_mbuf *m,
					 const uint8_t *ip, unsigned int *c)
{
	uint32_t seg = rte_pktmbuf_data_len(m) - TP_ETH_HDR_LEN;
	uint8_t hl = ip[7];

	switch (ip[6]) {
	case TP_IP6_NH_ICMP6:
		if (seg < TP_IP6_HDR_LEN + 4)
			return TP_PUNT_OTHER;
		if (ip[40] < TP_ICMP6_ROUTER_SOLICIT || ip[40] > TP_ICMP6_NEIGHBOR_ADVERT)
			return TP_PUNT_OTHER; /* echo and errors: the kernel answers */
		*c = IP6_C_ND;
		/* RFC 4861 6.1.1, 6.1.2, 7.1.1, 7.1.2, 8.1: a node drops RS, RA, NS, NA
		 * and Redirect whose hop limit is not 255 (sent from off the link) */
		if (hl != 255)
			return ctl_demote(w, m->port, IP6_CTR(CTL_DEMOTED_HOP_LIMIT));
		return TP_PUNT_CONTROL;
	case TP_IP6_NH_OSPF:
		/* RFC 5340 A.1: OSPFv3 from the neighbour's link-local address, hop
		 * limit 1 on the link (virtual links: later, as control peers) */
		if (!tp_ip6_is_link_local(ip + 8))
			return ctl_demote(w, m->port, IP6_CTR(CTL_DEMOTED_SOURCE));
		if (hl != 1)
			return ctl_demote(w, m->port, IP6_CTR(CTL_DEMOTED_HOP_LIMIT));
		return TP_PUNT_CONTROL;
	default:
		return TP_PUNT_OTHER;
	}
}

/* Whether m, to be punted, comes from one of our own addresses: a spoof, dropped
 * before the kernel sees it as its own packet (ip4's punt does the same; Linux
 * forwards such a packet, and so does the fast path, test_conformance6.py).
 * Neighbor Discovery is let through: a node that holds our address too answers our
 * Duplicate Address Detection from it (RFC 4862 5.4.4). */
static inline bool own_source(const struct rte_mbuf *m, const uint8_t *ip)
{
	const struct rte_lpm6 *lpm = tp_route6_reader();
	uint32_t nh;

	if (lpm == NULL || rte_lpm6_lookup(lpm, ip + 8, &nh) != 0 || nh != TP_NH_PUNT)
		return false;
	return !(ip[6] == TP_IP6_NH_ICMP6 &&
		 rte_pktmbuf_data_len(m) >= TP_ETH_HDR_LEN + TP_IP6_HDR_LEN + 1 &&
		 ip[40] >= TP_ICMP6_ROUTER_SOLICIT && ip[40] <= TP_ICMP6_NEIGHBOR_ADVERT);
}

/* The punt class of reason c: what only earns an ICMPv6 error (hop limit, no route,
 * an unreachable or prohibit route, too big) the error class, whose bucket is the
 * kernel's ICMPv6 error rate; for us, a group or a link-local destination,
 * ip6_punt_class; else the other class. A packet from one of our own addresses is
 * dropped instead (own_source: martian_source). Consumes m. */
void tp_ip6_punt(struct tp_worker *w, struct rte_mbuf *m, unsigned int c)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, TP_ETH_HDR_LEN);
	enum tp_punt_class cls;

	if (unlikely(own_source(m, ip))) {
		tp_drop(w, m, IP6_CTR(MARTIAN_SRC));
		return;
	}
	switch (c) {
	case IP6_C_LOCAL:
	case IP6_C_MULTICAST:
	case IP6_C_LINK_LOCAL:
		cls = ip6_punt_class(w, m, ip, &c);
		if (cls == TP_PUNT_CONTROL) { /* fair per source inside the class */
			tp_punt_src(w, m, tp_ip6_nf.ctr_base + c, cls, src_fold(ip));
			return;
		}
		break;
	case IP6_C_HOP_LIMIT:
	case IP6_C_NO_ROUTE:
	case IP6_C_UNREACHABLE_ROUTE:
	case IP6_C_PROHIBITED_ROUTE:
	case IP6_C_EXCEEDS_MTU:
		cls = TP_PUNT_ERROR;
		break;
	default:
		cls = TP_PUNT_OTHER;
		break;
	}
	tp_punt(w, m, tp_ip6_nf.ctr_base + c, cls);
}

/* Hop limit <= 1: for us, it is ours (OSPFv3 sends 1 to its neighbours); to be
 * forwarded, it expires and the kernel sends Time Exceeded (RFC 4443 3.3). */
__rte_noinline void tp_ip6_hop_low(struct tp_worker *w, struct rte_mbuf *m)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, TP_ETH_HDR_LEN);
	uint32_t nh;

	if (rte_lpm6_lookup(tp_route6_reader(), ip + 24, &nh) == 0 && nh == TP_NH_PUNT)
		tp_ip6_punt(w, m, IP6_C_LOCAL);
	else
		tp_ip6_punt(w, m, IP6_C_HOP_LIMIT);
}

/* A packet whose next hop does not forward: no route (the kernel answers Destination
 * Unreachable, RFC 4443 3.1 code 0), a kernel blackhole, unreachable or prohibit
 * route, a route that does not fit, one of our addresses, or a neighbour not
 * resolved (the kernel resolves it with Neighbor Solicitations and forwards, or
 * answers Address Unreachable, code 3). */
__rte_noinline void tp_ip6_no_forward(struct tp_worker *w, struct rte_mbuf *m, uint32_t id,
				      uint64_t v)
{
	switch (id) {
	case UINT32_MAX:
		tp_ip6_punt(w, m, IP6_C_NO_ROUTE);
		return;
	case TP_NH_BLACKHOLE:
		tp_drop(w, m, IP6_CTR(BLACKHOLE));
		return;
	case TP_NH_UNREACHABLE:
		tp_ip6_punt(w, m, IP6_C_UNREACHABLE_ROUTE);
		return;
	case TP_NH_PROHIBIT:
		tp_ip6_punt(w, m, IP6_C_PROHIBITED_ROUTE);
		return;
	case TP_NH_UNFIT:
		tp_ip6_punt(w, m, IP6_C_ROUTE_UNFIT);
		return;
	default:
		if (tp_nh_l2_flags(v) & TP_NH_F_PUNT)
			tp_ip6_punt(w, m, IP6_C_LOCAL);
		else
			tp_ip6_punt(w, m, IP6_C_UNRESOLVED);
	}
}
