/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv4 input: the burst loop (tp_ip4_input), which runs every stage of a packet
 * in one function (ip4_one, ip4_stages.h): check, look up, rewrite, TTL and
 * checksum update, transmit buffer; the validation of what the fast test refuses,
 * in RFC 1812 order (tp_ip4_classify_slow); ARP to the kernel. */
#include <rte_ether.h>
#include <rte_lpm.h>
#include <rte_prefetch.h>

#include "../../../proto/ip4.h"
#include "../../../tables/iface.h"
#include "../control/nexthop.h"
#include "../control/route.h"
#include "../ip4.h"
#include "ip4_stages.h"

#define PREFETCH_AHEAD 4

static const uint8_t verdict_ctr[] = {
    [TP_IP4_TOO_SHORT] = IP4_C_TOO_SHORT,
    [TP_IP4_BAD_VERSION] = IP4_C_BAD_VERSION,
    [TP_IP4_BAD_IHL] = IP4_C_BAD_IHL,
    [TP_IP4_BAD_TOTAL_LEN] = IP4_C_BAD_TOTAL_LEN,
    [TP_IP4_LEN_EXCEEDS_FRAME] = IP4_C_LEN_EXCEEDS_FRAME,
    [TP_IP4_BAD_CHECKSUM] = IP4_C_BAD_CHECKSUM,
};

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
		TP_TRACE_STAGE(w, m, "ip4.arp");
		tp_punt_src(w, m, IP4_CTR(ARP), TP_PUNT_ARP, spa);
	}
}

/* Classify a frame the fast test refused, carefully, in RFC order. A frame that is not
 * IPv4 goes back to the l3 input function (*others); IPv4 not to us nor to a group
 * is dropped. Returns the destination address (host order) when it is an IPv4 packet
 * to route after all (an Ethernet-padded one), with IP4_TTL_LOW when its TTL would
 * expire if it were forwarded; otherwise -1: the frame has been handed back, punted
 * or dropped. */
__rte_noinline int64_t tp_ip4_classify_slow(struct tp_worker *w, struct rte_mbuf *m,
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
		tp_ip4_punt(w, m, IP4_C_MULTICAST);
		return -1;
	}
	if (ip[0] != 0x45) { /* options: the kernel processes them */
		tp_ip4_punt(w, m, IP4_C_OPTIONS);
		return -1;
	}
	if (ip[8] <= 1) /* RFC 1812 5.3.1: only a packet to forward expires */
		return d | IP4_TTL_LOW;
	return d;
}

/* The burst loop; trace (a constant) makes the copy that records each packet's stages
 * (core/trace.h): the other copy has no per-packet test of it. */
static __rte_always_inline uint16_t ip4_input_burst(struct tp_worker *w, struct rte_mbuf **pkts,
						    uint16_t n, struct rte_mbuf **others,
						    const bool trace)
{
	unsigned int i;

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
		ip4_one(&s, pkts[i], trace);
	}
	for (; i < n; i++)
		ip4_one(&s, pkts[i], trace);
	ip4_burst_sync(&s);
	return s.n_others;
}

static __rte_noinline uint16_t ip4_input_traced(struct tp_worker *w, struct rte_mbuf **pkts,
						uint16_t n, struct rte_mbuf **others)
{
	return ip4_input_burst(w, pkts, n, others, true);
}

uint16_t tp_ip4_input(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n,
		      struct rte_mbuf **others)
{
	if (unlikely(n == 0))
		return 0;
	if (unlikely(w->obs & TP_OBS_TRACE)) /* once per burst */
		return ip4_input_traced(w, pkts, n, others);
	return ip4_input_burst(w, pkts, n, others, false);
}
