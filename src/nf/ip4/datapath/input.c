/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv4 forwarding: RFC 1812 checks, LPM, neighbour rewrite, TTL and checksum update, one packet
 * at a time from check to transmit buffer. */
#include <rte_ether.h>
#include <rte_lpm.h>
#include <rte_prefetch.h>
#include <immintrin.h>

#include "../../../proto/ip4.h"
#include "../../../tables/iface.h"
#include "../control/nexthop.h"
#include "../control/route.h"
#include "../ip4.h"
#include "udp_local.h"

#define PREFETCH_AHEAD 4

static const uint8_t verdict_ctr[] = {
    [TP_IP4_TOO_SHORT] = IP4_C_TOO_SHORT,
    [TP_IP4_BAD_VERSION] = IP4_C_BAD_VERSION,
    [TP_IP4_BAD_IHL] = IP4_C_BAD_IHL,
    [TP_IP4_BAD_TOTAL_LEN] = IP4_C_BAD_TOTAL_LEN,
    [TP_IP4_LEN_EXCEEDS_FRAME] = IP4_C_LEN_EXCEEDS_FRAME,
    [TP_IP4_BAD_CHECKSUM] = IP4_C_BAD_CHECKSUM,
};

/* What the classifier returns besides an address: flags above bit 32. */
#define IP4_TTL_LOW (1ll << 32) /* TTL <= 1: expired unless it is for us */

uint64_t tp_ip4_ctl_peers[TP_IP4_CTL_PEERS_MAX];
unsigned int tp_ip4_ctl_peers_n;
uint8_t tp_ip4_bgp_gtsm;

/* Whether src (host order) is on the ingress port's subnet (its primary address's
 * prefix) or IPv4 link-local (RFC 3927, 169.254/16): where single-hop protocols'
 * neighbours are. */
static inline int ctl_on_subnet(uint16_t port, uint32_t src)
{
	const struct tp_iface *f = &tp_iface_table[port];
	uint32_t ip = __atomic_load_n(&f->ip, __ATOMIC_RELAXED);
	uint8_t depth = __atomic_load_n(&f->depth, __ATOMIC_RELAXED);

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
static void ip4_punt(struct tp_worker *w, struct rte_mbuf *m, unsigned int c)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, TP_ETH_HDR_LEN);
	enum tp_punt_class cls;
	uint32_t src, e;

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

/* ARP (RFC 826): the sender protocol address at offset 14 of the packet is the source
 * of the per-source fairness; a frame too short to hold it shares source 0. */
void tp_ip4_arp_input(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint32_t spa = 0;
		if (rte_pktmbuf_data_len(m) >= TP_ETH_HDR_LEN + 18) {
			memcpy(&spa, rte_pktmbuf_mtod_offset(m, uint8_t *, TP_ETH_HDR_LEN + 14), 4);
			spa = rte_be_to_cpu_32(spa);
		}
		tp_punt_src(w, m, IP4_CTR(ARP), TP_PUNT_ARP, spa);
	}
}

/* Classify a frame the fast test refused, carefully, in RFC order. A frame that is not
 * IPv4 goes back to the l3 input function (*others); IPv4 not to us nor to a group
 * is dropped. Returns the destination address (host order) when it is an IPv4 packet
 * to route after all (an Ethernet-padded one), with IP4_TTL_LOW when its TTL would
 * expire if it were forwarded; otherwise -1: the frame has been handed back, punted
 * or dropped. */
static __rte_noinline int64_t ip4_classify_slow(struct tp_worker *w, struct rte_mbuf *m,
						struct rte_mbuf **others, uint16_t *n_others)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	uint8_t *ip = (uint8_t *)(eth + 1);
	int group;

	if (rte_pktmbuf_data_len(m) < TP_ETH_HDR_LEN ||
	    eth->ether_type != RTE_BE16(TP_ETHERTYPE_IP4)) {
		others[(*n_others)++] = m;
		return -1;
	}
	group = rte_is_multicast_ether_addr(&eth->dst_addr);
	if (!group && !rte_is_same_ether_addr(&eth->dst_addr, &tp_iface_table[m->port].mac)) {
		tp_drop(w, m, TP_DROP_L2_OTHER_HOST);
		return -1;
	}
	/* the packet may span segments (jumbo frames, chained by the PMD); its header
	 * must be in the first one (it is wherever a NIC puts it) */
	uint32_t avail = rte_pktmbuf_pkt_len(m) - TP_ETH_HDR_LEN;
	uint32_t seg = rte_pktmbuf_data_len(m) - TP_ETH_HDR_LEN;
	if (seg < avail && (seg < TP_IP4_HDR_LEN || seg < (uint32_t)(ip[0] & 0x0f) * 4)) {
		tp_drop(w, m, IP4_CTR(TOO_SHORT));
		return -1;
	}
	enum tp_ip4_verdict v = tp_ip4_check(ip, avail); /* RFC 1812 5.2.2 */
	if (v != TP_IP4_OK) {
		tp_drop(w, m, tp_ip4_nf.ctr_base + verdict_ctr[v]);
		return -1;
	}
	/* RFC 1812 5.3.7: no forwarding from 0/8, 127/8 or class D/E sources */
	uint8_t s0 = ip[12];
	if (s0 == 0 || s0 == 127 || s0 >= 224) {
		tp_drop(w, m, IP4_CTR(MARTIAN_SRC));
		return -1;
	}
	uint32_t tot = ((uint32_t)ip[2] << 8) | ip[3];
	if (tot < avail) /* Ethernet padding: the frame carries the packet only */
		tp_mbuf_cut(m, TP_ETH_HDR_LEN + tot);

	uint32_t d;
	memcpy(&d, ip + 16, 4);
	d = rte_be_to_cpu_32(d);
	if (group || d >= 0xe0000000u) {
		ip4_punt(w, m, IP4_C_MULTICAST);
		return -1;
	}
	if (ip[0] != 0x45) { /* options: the kernel processes them */
		ip4_punt(w, m, IP4_C_OPTIONS);
		return -1;
	}
	if (ip[8] <= 1) /* RFC 1812 5.3.1: only a packet to forward expires */
		return d | IP4_TTL_LOW;
	return d;
}

/* Per-burst constants of the fast test. */
struct ip4_fast {
#ifdef __SSE4_1__
	__m128i l2; /* bytes 0-15 as they must be: port MAC, type 0x0800, IPv4 IHL 5 */
#else
	uint64_t mac; /* port MAC in the low 6 bytes */
#endif
};

#ifdef __SSE4_1__
/* which of bytes 0-15 ip4_fast.l2 fixes: 0-5 (destination MAC), 12-14 */
static const uint8_t fast_l2_mask[16] __rte_aligned(16) = {
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0,
};
#endif

static inline void ip4_fast_init(struct ip4_fast *f, uint64_t mac)
{
#ifdef __SSE4_1__
	f->l2 = _mm_set_epi64x(
	    (long long)(((uint64_t)0x45 << 48) | ((uint64_t)RTE_BE16(TP_ETHERTYPE_IP4) << 32)),
	    (long long)mac);
#else
	f->mac = mac;
#endif
}

/* Header checksum of a 20-byte header verifies (RFC 1071): its one's-complement
 * sum is 0xffff. The sum is taken 64 bits at a time (add with carry, the last
 * carry added back), and since 2^16 = 1 modulo 0xffff, folding it to 16 bits
 * keeps its value modulo 0xffff: the folded sum is 0xffff exactly when the
 * 64-bit one is a non-zero multiple of 0xffff (a header with a version field is
 * never all zero). The compiler tests divisibility with one multiplication. */
static inline int ip4_sum20_ok(const uint8_t *ip)
{
	uint64_t s, b;
	uint32_t c;

	memcpy(&s, ip, 8);
	memcpy(&b, ip + 8, 8);
	memcpy(&c, ip + 16, 4);
	/* s + b + c + carries; the last carry cannot carry out again */
#if defined(__x86_64__)
	__asm__("addq %[b], %[s]\n\tadcq %[c], %[s]\n\tadcq $0, %[s]"
		: [s] "+r"(s)
		: [b] "r"(b), [c] "r"((uint64_t)c)
		: "cc");
#else
	s += b;
	s += s < b; /* end-around carry (RFC 1071 2.(B)): s + carry <= 2^64 - 1 */
	s += c;
	s += s < c;
#endif
	return s % 0xffff == 0;
}

/* The common case, tested with few instructions: unicast to our MAC, IPv4
 * with no options, total length equal to what the frame holds, checksum
 * right, ordinary source and destination, TTL > 1. Anything else takes the
 * slow path, which checks again in order and names the reason. Reading the
 * header of a frame shorter than one is safe: the bytes are inside the mbuf's
 * data room, and the length test sends such a frame to the slow path whatever
 * they hold. Returns the destination (host order) of a packet to route, or -1
 * when the packet has been consumed. */
static __rte_always_inline int64_t ip4_classify(struct tp_worker *w, struct rte_mbuf *m,
						struct rte_mbuf **others, uint16_t *n_others,
						const uint8_t *eth, const struct ip4_fast *f)
{
	const uint8_t *ip = eth + TP_ETH_HDR_LEN;
	uint32_t len = rte_pktmbuf_data_len(m);
	uint16_t tot_be;
	uint32_t d;

#ifdef __SSE4_1__
	__m128i v = _mm_loadu_si128((const __m128i *)eth);
	if (unlikely(!_mm_testz_si128(_mm_xor_si128(v, f->l2),
				      _mm_load_si128((const __m128i *)fast_l2_mask))))
		goto slow;
#else
	uint64_t dmac;
	uint32_t et_vihl;

	memcpy(&dmac, eth, 8);
	memcpy(&et_vihl, eth + 12, 4);
	if (unlikely(((dmac ^ f->mac) << 16) != 0 || (et_vihl & 0xffffff) != 0x450008))
		goto slow;
#endif
	/* TTL > 1; no source in 0/8, 127/8, 224/3 (RFC 1812 5.3.7); no multicast destination */
	if (unlikely(ip[8] <= 1 || (uint8_t)(ip[12] - 1) >= 223 || ip[12] == 127 || ip[16] >= 224))
		goto slow;
	memcpy(&tot_be, ip + 2, 2);
	/* one segment (a chain's other segments would be more than the packet) */
	if (unlikely(len < TP_ETH_HDR_LEN + TP_IP4_HDR_LEN || len != rte_pktmbuf_pkt_len(m) ||
		     tot_be != rte_cpu_to_be_16((uint16_t)(len - TP_ETH_HDR_LEN))))
		goto slow;
	/* a NIC that checked the header checksum saves the work (RFC 1812 5.2.2
	 * allows it); anything else (unknown, bad, none) is checked here */
	if ((m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) != RTE_MBUF_F_RX_IP_CKSUM_GOOD &&
	    unlikely(!ip4_sum20_ok(ip)))
		goto slow;
	memcpy(&d, ip + 16, 4);
	return rte_be_to_cpu_32(d);
slow:
	return ip4_classify_slow(w, m, others, n_others);
}

/* A packet for one of our addresses: a network function registered on its UDP port
 * takes it on the worker, and the first fragment of such a datagram too (the function
 * drops what it cannot take whole: reassembled by the kernel, the datagram would reach
 * the function's control side without its checks, e.g. the IoT gateway's source
 * binding); the kernel (through the TAP) gets everything else. */
static __rte_noinline void ip4_local(struct tp_worker *w, struct rte_mbuf *m)
{
	uint8_t *l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, TP_ETH_HDR_LEN);
	uint32_t ihl = (uint32_t)(l3[0] & 0x0f) * 4;

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
	ip4_punt(w, m, IP4_C_LOCAL);
}

/* TTL <= 1: for us, it is ours (OSPF and eBGP send TTL 1 to their peers); to be
 * forwarded, it expires and the kernel sends Time Exceeded (RFC 1812 5.3.1). */
static __rte_noinline void ip4_ttl_low(struct tp_worker *w, struct rte_mbuf *m, uint32_t d)
{
	uint32_t e = tp_route_entry(tp_route_lpm, d);

	if ((e & RTE_LPM_LOOKUP_SUCCESS) && (e & 0x00ffffff) == TP_NH_PUNT)
		ip4_local(w, m);
	else
		ip4_punt(w, m, IP4_C_TTL);
}

/* A packet whose next hop does not forward: no route (the kernel answers Destination
 * Unreachable, RFC 1812 5.2.7.1), a kernel blackhole, unreachable or prohibit route,
 * a route that does not fit in the tables or covers one that does not (the kernel,
 * which has the route, forwards it), one of our addresses, or a neighbour not
 * resolved (the kernel resolves it and forwards through the TAP, or answers Host
 * Unreachable when that fails). */
static __rte_noinline void ip4_no_forward(struct tp_worker *w, struct rte_mbuf *m, uint32_t id,
					  uint64_t v)
{
	switch (id) {
	case UINT32_MAX:
		ip4_punt(w, m, IP4_C_NO_ROUTE);
		return;
	case TP_NH_BLACKHOLE:
		tp_drop(w, m, IP4_CTR(BLACKHOLE));
		return;
	case TP_NH_UNREACHABLE:
		ip4_punt(w, m, IP4_C_UNREACHABLE_ROUTE);
		return;
	case TP_NH_PROHIBIT:
		ip4_punt(w, m, IP4_C_PROHIBITED_ROUTE);
		return;
	case TP_NH_UNFIT:
		ip4_punt(w, m, IP4_C_ROUTE_UNFIT);
		return;
	default:
		if (tp_nh_l2_flags(v) & TP_NH_F_PUNT)
			ip4_local(w, m);
		else
			ip4_punt(w, m, IP4_C_UNRESOLVED);
	}
}

/* A burst's packets that did not take the cached next hop. Returns 1 (and fills the
 * cache: forwarding word, source MAC, largest frame the output port takes) if m is
 * to be forwarded on the new next hop id; otherwise m has been consumed. */
static inline int ip4_nh_switch(struct tp_worker *w, struct rte_mbuf *m, uint32_t id, uint64_t *l2,
				uint64_t *smac, uint32_t *frame_max)
{
	uint64_t v = id == UINT32_MAX ? 0 : tp_nh_l2_load(id);

	if (unlikely(!(tp_nh_l2_flags(v) & TP_NH_F_RESOLVED))) {
		ip4_no_forward(w, m, id, v);
		return 0;
	}
	*l2 = v;
	/* source MAC and type 0x0800 (checked on input), one 8-byte store at offset 6 */
	const struct tp_iface *out = &tp_iface_table[tp_nh_l2_port(v)];
	memcpy(smac, &out->mac, sizeof(*smac));
	*smac = (*smac & 0xffffffffffffull) | ((uint64_t)RTE_BE16(TP_ETHERTYPE_IP4) << 48);
	/* an MTU of 0 is one nobody set (a bare test table): no limit */
	*frame_max = out->mtu ? (uint32_t)out->mtu + TP_ETH_HDR_LEN : UINT32_MAX;
	return 1;
}

/* What a burst keeps between its packets. */
struct ip4_burst {
	struct tp_worker *w;
	const struct rte_lpm *lpm;
	struct ip4_fast f;
	uint32_t cur;		  /* LPM entry l2/smac/b belong to, or TP_ROUTE_ENTRY_NONE */
	uint64_t l2, smac;	  /* next hop's forwarding word, source MAC + type */
	uint32_t frame_max;	  /* largest frame its port takes: MTU + Ethernet header */
	struct tp_txbuf *b;	  /* output buffer of the cached next hop */
	unsigned int bn;	  /* its fill, written back to b->n when the buffer changes */
	struct rte_mbuf **others; /* frames that are not IPv4, for the l3 input function */
	uint16_t n_others;
};

static inline void ip4_burst_sync(struct ip4_burst *s)
{
	if (s->b != NULL) {
		s->b->n = (uint16_t)s->bn;
		s->w->tx_dirty |= s->bn ? 1ull << tp_nh_l2_port(s->l2) : 0;
		s->b = NULL;
	}
	s->cur = TP_ROUTE_ENTRY_NONE;
}

/* One packet, start to end: check, look up, rewrite, buffer. Bursts mostly go to
 * one next hop: the LPM entry of the destination is compared with the last one
 * resolved, and only a different entry loads the next hop's forwarding word and
 * source MAC and writes back the output buffer's fill (before anything that may
 * touch the buffers: punts, local functions). */
static __rte_always_inline void ip4_one(struct ip4_burst *s, struct rte_mbuf *m)
{
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
	int64_t d = ip4_classify(s->w, m, s->others, &s->n_others, eth, &s->f);
	uint32_t e;

	/* one test for both: consumed (-1) or TTL <= 1 (IP4_TTL_LOW) */
	if (unlikely((uint64_t)d >> 32)) {
		if (d < 0)
			return;
		ip4_burst_sync(s); /* a local function may send */
		ip4_ttl_low(s->w, m, (uint32_t)d);
		return;
	}
	e = tp_route_entry(s->lpm, (uint32_t)d);
	if (unlikely(e != s->cur)) {
		ip4_burst_sync(s);
		if (!ip4_nh_switch(s->w, m,
				   (e & RTE_LPM_LOOKUP_SUCCESS) ? e & 0x00ffffff : UINT32_MAX,
				   &s->l2, &s->smac, &s->frame_max))
			return;
		s->cur = e;
		s->b = &s->w->txb[tp_nh_l2_port(s->l2)];
		s->bn = s->b->n;
	}
	/* longer than the output port's MTU: the kernel fragments it, or answers
	 * Fragmentation Needed with the MTU when DF is set (RFC 1812 5.2.6, 4.3.2.3) */
	if (unlikely(rte_pktmbuf_pkt_len(m) > s->frame_max)) {
		ip4_punt(s->w, m, IP4_C_EXCEEDS_MTU);
		return;
	}
	/* bytes 0-5: destination MAC (6-7 of the word are overwritten next) */
	memcpy(eth, &s->l2, sizeof(s->l2));
	memcpy(eth + 6, &s->smac, sizeof(s->smac));
	tp_ip4_ttl_dec(eth + TP_ETH_HDR_LEN);
	s->b->pkts[s->bn++] = m;
	if (unlikely(s->bn == TP_BURST)) { /* full: sent now, never left full (worker.h) */
		s->b->n = TP_BURST;
		tp_worker_tx_flush_port(s->w, tp_nh_l2_port(s->l2));
		s->bn = 0;
	}
}

uint16_t tp_ip4_input(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n,
		      struct rte_mbuf **others)
{
	unsigned int i;

	if (unlikely(n == 0))
		return 0;

	struct ip4_burst s = {
	    .w = w,
	    .lpm = tp_route_lpm,
	    .cur = TP_ROUTE_ENTRY_NONE,
	    .others = others,
	};
	uint64_t mac64 = 0;

	/* one burst comes from one rx queue, so from one port */
	memcpy(&mac64, &tp_iface_table[pkts[0]->port].mac, RTE_ETHER_ADDR_LEN);
	ip4_fast_init(&s.f, mac64);

	for (i = 0; i < PREFETCH_AHEAD && i < n; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i + PREFETCH_AHEAD < n; i++) {
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i + PREFETCH_AHEAD], void *));
		ip4_one(&s, pkts[i]);
	}
	for (; i < n; i++)
		ip4_one(&s, pkts[i]);
	ip4_burst_sync(&s);
	return s.n_others;
}
