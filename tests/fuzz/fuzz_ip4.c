/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target for the l3 input path: frames received on a port, single or chained
 * (multi-segment) mbufs, through the l3 mode's input function into the IPv4 router and
 * ARP (src/nf/ip4/datapath/l3mode.c, input.c, forward.c, local.c), as an lcore runs it.
 *
 * An EAL without hugepages or devices; the router's tables as the unit test builds
 * them (tests/unit/test_ip4_fwd.c). Each segment's bytes are a heap buffer of their
 * own attached to a pool mbuf as an external buffer, so AddressSanitizer sees a read
 * past a segment (a first segment gets at least 64 bytes: the fast path may read a
 * short frame's header bytes, which a port's mbufs always have room for).
 *
 * Properties, per burst: every frame is counted exactly once (a drop or punt reason)
 * or waits in a transmit buffer; what waits there is a valid mbuf chain holding an
 * IPv4 header that passes RFC 1812 5.2.2's checks, its TTL one less and its checksum
 * right, addressed from the output port to the next hop, the rest of the packet as it
 * came (Ethernet padding cut off); what was punted is a valid chain with its bytes as
 * they came; after the control plane's side is emptied every mbuf is back in its pool
 * and every external buffer freed (the leak check).
 *
 * Input: records of [flags][split][length, 2 bytes big-endian][frame bytes]; flags
 * bit 0: port 1 (else 0; the first record's port is the burst's), bits 1-2: the NIC's
 * checksum verdict (none, good, bad, unknown), bits 3-4: segments - 1, bit 5: the
 * punt buckets are empty, bit 6: this record starts a new burst; split: bytes in each
 * segment but the last (0: an even split). A length past the end takes what is left.
 * Built and run by scripts/fuzz.sh. */
#include <stdbool.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "core/input.h"
#include "nf/ip4/l3mode.h"
#include "core/nf.h"
#include "core/rcu.h"
#include "core/tp.h"
#include "fuzz_dpdk.h"
#include "fuzz_l3.h"
#include "nf/ip4/ip4.h"
#include "proto/ip4.h"
#include "tables/iface.h"
#include "nf/ip4/control/neigh.h"
#include "nf/ip4/control/nexthop.h"
#include "nf/ip4/control/nhg.h"
#include "nf/ip4/control/route.h"

#define IP(a, b, c, d) (((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))
#define EXC_RING 16 /* small: a burst can fill it */

static const uint8_t mac_port[2][6] = {{2, 0, 0, 0, 0, 0x10}, {2, 0, 0, 0, 0, 0x11}};
static const uint8_t mac_h2[6] = {2, 0, 0, 0, 2, 0x02};
static const uint8_t mac_h4[6] = {2, 0, 0, 0, 2, 0x04};

/* At exit, the tables give back what they hold (in DPDK memory that LeakSanitizer does
 * not scan, so it would take it for leaked). */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{

	fuzz_eal_init("fuzz-ip4", 256);
	fuzz_tables_init();
	fuzz_l3_init(mac_port, EXC_RING);
	/* the router registers IPv4 and ARP in the l3 mode's ethertype table */
	must(tp_ip4_datapath_register() == 0);
	for (unsigned int p = 0; p < 2; p++) {
		/* the subnets the control class's single-hop protocols come from */
		tp_ip4_port_addr_set(p, IP(10, 0, p + 1, 1), 24);
	}
	/* a control peer beyond the subnets, with GTSM (ip4.h) */
	tp_ip4_ctl_peers[0] = TP_IP4_CTL_PEER_USED | 255ull << 40 | 16ull << 32 | IP(10, 9, 0, 0);
	tp_ip4_ctl_peers_n = 1;
	/* p0 10.0.1.1/24, p1 10.0.2.1/24, 10.0.2.2 resolved, 10.0.2.3 not; 10.9/16 via the
	 * first, 10.8/16 via the second, 10.0.1.255 a broadcast address */
	tp_route_add(IP(10, 0, 1, 0), 24, TP_ROUTE_CONNECTED, 0, 0, 1);
	tp_route_add(IP(10, 0, 1, 1), 32, TP_ROUTE_LOCAL, 0, 0, 1);
	tp_route_add(IP(10, 0, 1, 255), 32, TP_ROUTE_LOCAL, 0, 0, 1);
	tp_route_add(IP(10, 0, 2, 0), 24, TP_ROUTE_CONNECTED, 0, 1, 1);
	tp_route_add(IP(10, 0, 2, 1), 32, TP_ROUTE_LOCAL, 0, 1, 1);
	tp_route_add(IP(10, 9, 0, 0), 16, TP_ROUTE_GATEWAY, IP(10, 0, 2, 2), 1, 1);
	tp_route_add(IP(10, 8, 0, 0), 16, TP_ROUTE_GATEWAY, IP(10, 0, 2, 3), 1, 1);
	int nh = tp_neigh_learn(IP(10, 0, 2, 2), 1, mac_h2);
	must(nh >= 0);
	tp_route_host_update(IP(10, 0, 2, 2), 1, nh);
	/* ECMP: 10.7/16 through a group of 10.0.2.2, 10.0.2.4 (resolved, weight 2) and the
	 * unresolved 10.0.2.3 */
	const struct tp_route_hop hops[] = {
	    {IP(10, 0, 2, 2), 1, 1, 0, {0}},
	    {IP(10, 0, 2, 4), 1, 2, 0, {0}},
	    {IP(10, 0, 2, 3), 1, 1, 0, {0}},
	};
	must(tp_neigh_learn(IP(10, 0, 2, 4), 1, mac_h4) >= 0);
	must(tp_route_add_multipath(IP(10, 7, 0, 0), 16, hops, 3, 1) == 0);
	fl3.pool_base = rte_mempool_in_use_count(fl3.pool);
	return 0;
}

/* The control class's demotions (events), all ports and reasons. */
static uint64_t demoted_total(void)
{
	uint64_t v = 0;

	for (unsigned int p = 0; p < 2; p++)
		v += fl3.w->ctr[p][IP4_CTR(CTL_DEMOTED_TTL)] +
		     fl3.w->ctr[p][IP4_CTR(CTL_DEMOTED_SOURCE)] +
		     fl3.w->ctr[p][IP4_CTR(CTL_DEMOTED_DESTINATION)];
	return v;
}

/* A frame waiting to go out on port p. */
static void check_forwarded(const struct rte_mbuf *m, uint16_t p, const struct fuzz_l3_sent *s)
{
	static uint8_t out[FUZZ_L3_MAX_FRAME];
	uint32_t len = fuzz_l3_flat(m, out, sizeof(out));
	const uint8_t *ip = out + 14, *in = s->bytes + 14;
	must(len >= 14 + 20 && len <= s->len);
	/* RFC 1812 5.2.2: what leaves was a well-formed IPv4 packet */
	must(ip[0] == 0x45 && ((uint32_t)ip[2] << 8 | ip[3]) == len - 14);
	/* its checksum verifies (RFC 1071), unless a NIC said a bad one was good */
	must(tp_csum_fold_sum(ip, 20) == 0xffff || s->ol == RTE_MBUF_F_RX_IP_CKSUM_GOOD);
	/* to the next hop, from the output port, the TTL one less (RFC 1812 5.3.1); through
	 * a group, to the member its flow's hash picks (what it hashes is unchanged) */
	uint32_t d = (uint32_t)ip[16] << 24 | ip[17] << 16 | ip[18] << 8 | ip[19];
	uint32_t e = tp_route_entry(tp_route_lpm, d);
	must(e & RTE_LPM_LOOKUP_SUCCESS);
	uint64_t v = tp_nh_l2_load(
	    tp_nhg_resolve(e & 0x00ffffff, tp_nhg_hash_ip4(ip, rte_pktmbuf_data_len(m) - 14)));
	must(memcmp(out, &v, 6) == 0 && (memcmp(out, mac_h2, 6) == 0 || (d >> 16) == 0x0a07));
	must(p == tp_nh_l2_port(v) && p == 1 && memcmp(out + 6, mac_port[1], 6) == 0);
	must(out[12] == 0x08 && out[13] == 0x00);
	must(ip[8] == in[8] - 1 && in[8] > 1 && ip[9] == in[9]);
	must(memcmp(ip, in, 8) == 0 && memcmp(ip + 12, in + 12, len - 14 - 12) == 0);
}

/* Only an IPv4 packet loses its Ethernet padding. */
static bool padding_cut(const uint8_t *out, uint32_t len)
{
	return len >= 34 && ((uint32_t)out[16] << 8 | out[17]) == len - 14;
}

/* Flags bits 1-2: the NIC's checksum verdict. */
static uint64_t offload(uint8_t flags)
{
	static const uint64_t cksum[4] = {RTE_MBUF_F_RX_IP_CKSUM_NONE, RTE_MBUF_F_RX_IP_CKSUM_GOOD,
					  RTE_MBUF_F_RX_IP_CKSUM_BAD,
					  RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN};

	return cksum[(flags >> 1) & 3];
}

static uint64_t demoted_before;

static void burst_start(uint8_t flags)
{
	demoted_before = demoted_total();
}

/* A demoted packet was punted (other class) or dropped at its bucket, once. */
static void burst_end(unsigned int n, unsigned int punted_ctl)
{
	must(demoted_total() - demoted_before + punted_ctl <= n);
}

static const struct fuzz_l3_ops ops = {
    .burst_start = burst_start,
    .offload = offload,
    .check_forwarded = check_forwarded,
    .padding_cut = padding_cut,
    .burst_end = burst_end,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_l3_input(data, size, &ops);
	return 0;
}
