/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv4 local delivery: packets for our own addresses go to the network function
 * registered on their UDP port, or to the kernel (through the TAP), as does what
 * the router punts; the punt class (control, error, other) of each, with routing
 * protocols checked against where their neighbours are (RFC 5082). */
#include <rte_lpm.h>
#include <rte_mbuf.h>

#include "../../../proto/ip4.h"
#include "../../../tables/iface.h"
#include "../control/nexthop.h"
#include "../control/route.h"
#include "../ip4.h"
#include "ip4_stages.h"
#include "udp_local.h"

uint64_t tp_ip4_ctl_peers[TP_IP4_CTL_PEERS_MAX];
unsigned int tp_ip4_ctl_peers_n;
uint8_t tp_ip4_bgp_gtsm;

/* Whether src (host order) is on the ingress port's subnet (its primary address's
 * prefix) or IPv4 link-local (RFC 3927, 169.254/16): where single-hop protocols'
 * neighbours are. */
static inline int ctl_on_subnet(uint16_t port, uint32_t src)
{
	uint8_t depth;
	uint32_t ip = tp_ip4_port_addr(port, &depth);

	if ((src >> 16) == 0xa9fe)
		return 1;
	return ip != 0 && depth != 0 && depth <= 32 && ((src ^ ip) >> (32 - depth)) == 0;
}

/* The control peers' verdict on src with TTL ttl: 1 if an entry covers src and ttl is
 * at least its lowest TTL (RFC 5082 3), 0 if no entry covers it, -1 if entries cover
 * it but none takes this TTL. */
static int ctl_peer(uint32_t src, uint8_t ttl)
{
	unsigned int n = __atomic_load_n(&tp_ip4_ctl_peers_n, __ATOMIC_ACQUIRE);
	int ret = 0;

	for (unsigned int i = 0; i < n && i < TP_IP4_CTL_PEERS_MAX; i++) {
		uint64_t e = __atomic_load_n(&tp_ip4_ctl_peers[i], __ATOMIC_RELAXED);
		uint32_t depth = (uint32_t)(e >> 32) & 0xff;
		if (!(e & TP_IP4_CTL_PEER_USED) ||
		    (depth && ((src ^ (uint32_t)e) >> (32 - depth)) != 0))
			continue;
		if (ttl >= (uint8_t)(e >> 40))
			return 1;
		ret = -1;
	}
	return ret;
}

/* Counted demotion (counter id) of a packet that looks like a routing protocol to the
 * other class. Returns TP_PUNT_OTHER. */
static enum tp_punt_class ctl_demote(struct tp_worker *w, uint16_t port, unsigned int id)
{
	tp_count(w, port, id);
	return TP_PUNT_OTHER;
}

/* A routing protocol from src: on the port's subnet (with TTL at least sub_ttl), or a
 * control peer (with its own lowest TTL); else demoted: for its TTL, or its source. */
static enum tp_punt_class ctl_from(struct tp_worker *w, uint16_t port, uint32_t src, uint8_t ttl,
				   uint8_t sub_ttl)
{
	int peer;

	if (ctl_on_subnet(port, src))
		return ttl >= sub_ttl ? TP_PUNT_CONTROL
				      : ctl_demote(w, port, IP4_CTR(CTL_DEMOTED_TTL));
	peer = ctl_peer(src, ttl);
	if (peer > 0)
		return TP_PUNT_CONTROL;
	return ctl_demote(w, port,
			  peer < 0 ? IP4_CTR(CTL_DEMOTED_TTL) : IP4_CTR(CTL_DEMOTED_SOURCE));
}

/* A link-scope protocol: from the port's subnet, to group (0: any), with TTL want_ttl. */
static enum tp_punt_class ctl_link(struct tp_worker *w, uint16_t port, uint32_t src, uint32_t dst,
				   uint8_t ttl, uint32_t group, uint8_t want_ttl)
{
	if (!ctl_on_subnet(port, src))
		return ctl_demote(w, port, IP4_CTR(CTL_DEMOTED_SOURCE));
	if (group != 0 && dst != group)
		return ctl_demote(w, port, IP4_CTR(CTL_DEMOTED_DESTINATION));
	if (ttl != want_ttl)
		return ctl_demote(w, port, IP4_CTR(CTL_DEMOTED_TTL));
	return TP_PUNT_CONTROL;
}

/* The punt class of a packet for us or for a group (ip points to the header of a
 * packet checked by tp_ip4_check, received on port). The control class holds only
 * routing protocols from where their neighbours are, with the TTL their RFC sets;
 * what merely looks like one is the other class, counted as demoted. */
static enum tp_punt_class ip4_punt_class(struct tp_worker *w, uint16_t port, const uint8_t *ip,
					 uint32_t avail)
{
	uint32_t ihl = (uint32_t)(ip[0] & 0x0f) * 4;
	uint32_t src, dst;
	uint16_t sport, dport;
	uint8_t ttl = ip[8];

	memcpy(&src, ip + 12, 4);
	memcpy(&dst, ip + 16, 4);
	src = rte_be_to_cpu_32(src);
	dst = rte_be_to_cpu_32(dst);
	switch (ip[9]) {
	case 2: /* IGMP: RFC 2236 2, RFC 3376 4: TTL 1, from the link */
		return ctl_link(w, port, src, dst, ttl, 0, 1);
	case 89: /* OSPF: RFC 2328 8.1: to AllSPFRouters/AllDRouters with TTL 1; 8.2: from
		  * the interface's network (unicast, or virtual links: a control peer) */
		if (dst >= 0xe0000000u)
			return dst == 0xe0000005u || dst == 0xe0000006u
				   ? ctl_link(w, port, src, dst, ttl, dst, 1)
				   : ctl_demote(w, port, IP4_CTR(CTL_DEMOTED_DESTINATION));
		return ctl_from(w, port, src, ttl, 0);
	case 103: /* PIM: RFC 7761 4.9: to ALL-PIM-ROUTERS (224.0.0.13) with TTL 1; unicast
		   * (Register, Register-Stop, C-RP-Advertisement) from the subnet or a peer */
		if (dst >= 0xe0000000u)
			return ctl_link(w, port, src, dst, ttl, 0xe000000du, 1);
		return ctl_from(w, port, src, ttl, 0);
	case 112: /* VRRP: RFC 5798 5.1.1.3, 5.2.1: to 224.0.0.18 with TTL 255 */
		return ctl_link(w, port, src, dst, ttl, 0xe0000012u, 255);
	case 6:	 /* TCP: BGP (RFC 4271: port 179) */
	case 17: /* UDP: BFD (RFC 5881, 5883: 3784, 4784; echo 3785), RIP (520) */
		if (avail < ihl + 4 || ((ip[6] & 0x1f) | ip[7]) != 0)
			return TP_PUNT_OTHER; /* no ports here (a fragment) */
		sport = (uint16_t)(ip[ihl] << 8 | ip[ihl + 1]);
		dport = (uint16_t)(ip[ihl + 2] << 8 | ip[ihl + 3]);
		if (ip[9] == 6) {
			if (sport != 179 && dport != 179)
				return TP_PUNT_OTHER;
			/* RFC 5082 3: with GTSM, a directly connected peer sends TTL 255 */
			return ctl_from(w, port, src, ttl, tp_ip4_bgp_gtsm ? 255 : 0);
		}
		switch (dport) {
		case 3784: /* RFC 5881 5: single-hop BFD control, TTL 255 */
			return ctl_from(w, port, src, ttl, 255);
		case 3785: /* RFC 5881 4: echo, our own packet back from the neighbour */
		case 520:  /* RFC 2453 3.9.2: RIP from a directly connected network */
			return ctl_from(w, port, src, ttl, 0);
		case 4784: /* RFC 5883: multi-hop BFD, from a configured peer */
			return ctl_from(w, port, src, ttl, 0);
		default:
			return TP_PUNT_OTHER;
		}
	default:
		return TP_PUNT_OTHER;
	}
}

/* The punt class of reason c: for what is only answered with an ICMP error (TTL
 * expired, no route, an unreachable or prohibit route) the error class, whose
 * bucket is the kernel's global ICMP error rate; the kernel behind the TAP sends
 * the error itself, with its own per-destination limit (icmp_ratelimit). */
void tp_ip4_punt(struct tp_worker *w, struct rte_mbuf *m, unsigned int c)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, TP_ETH_HDR_LEN);
	enum tp_punt_class cls;
	uint32_t src, e;

	TP_TRACE_STAGE(w, m, "ip4.punt");
	/* one of our own addresses as the source, from the wire, is a spoof: dropped
	 * here as Linux drops it (fib_validate_source: a local source is martian), since
	 * the TAP has accept_local for what tp_ip4_output punts (nf/ip4/output.h) */
	memcpy(&src, ip + 12, 4);
	e = tp_route_entry(tp_route_lpm, rte_be_to_cpu_32(src));
	if (unlikely((e & RTE_LPM_LOOKUP_SUCCESS) && (e & 0x00ffffff) == TP_NH_PUNT)) {
		tp_drop(w, m, IP4_CTR(MARTIAN_SRC));
		return;
	}
	switch (c) {
	case IP4_C_LOCAL:
	case IP4_C_MULTICAST:
		cls = ip4_punt_class(w, m->port, ip, rte_pktmbuf_data_len(m) - TP_ETH_HDR_LEN);
		if (cls == TP_PUNT_CONTROL) { /* fair per source inside the class */
			memcpy(&src, ip + 12, 4);
			tp_punt_src(w, m, tp_ip4_nf.ctr_base + c, cls, rte_be_to_cpu_32(src));
			return;
		}
		break;
	case IP4_C_TTL:
	case IP4_C_NO_ROUTE:
	case IP4_C_UNREACHABLE_ROUTE:
	case IP4_C_PROHIBITED_ROUTE:
		cls = TP_PUNT_ERROR;
		break;
	default:
		cls = TP_PUNT_OTHER;
		break;
	}
	tp_punt(w, m, tp_ip4_nf.ctr_base + c, cls);
}

/* A packet for one of our addresses: a network function registered on its UDP port
 * takes it on the worker, and the first fragment of such a datagram too (the function
 * drops what it cannot take whole: reassembled by the kernel, the datagram would reach
 * the function's control side without its checks, e.g. the IoT gateway's source
 * binding); the kernel (through the TAP) gets everything else. */
__rte_noinline void tp_ip4_local(struct tp_worker *w, struct rte_mbuf *m)
{
	uint8_t *l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, TP_ETH_HDR_LEN);
	uint32_t ihl = (uint32_t)(l3[0] & 0x0f) * 4;

	TP_TRACE_STAGE(w, m, "ip4.local");
	if (l3[9] == 17 /* UDP */ && ((l3[6] & 0x1f) | l3[7]) == 0 /* at offset 0 */ &&
	    rte_pktmbuf_data_len(m) >= TP_ETH_HDR_LEN + ihl + 8) {
		uint8_t *l4 = l3 + ihl;
		uint16_t dport;
		memcpy(&dport, l4 + 2, 2);
		tp_udp_local_fn fn = tp_udp_local_lookup(dport);
		if (fn != NULL) {
			fn(w, m, l3, l4);
			return;
		}
	}
	tp_ip4_punt(w, m, IP4_C_LOCAL);
}
