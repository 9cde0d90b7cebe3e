/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target for the IPv6 input path: frames received on a port, single or
 * chained (multi-segment) mbufs, through the l3 mode's input function into the IPv6
 * router (src/nf/ip6/datapath/input.c, local.c), as an lcore runs it, while the
 * control plane changes the tables between bursts (a neighbour forgotten and learnt
 * again, a route switched between a gateway and an unreachable route: both route
 * copies, the log and the next hops' references in play).
 *
 * An EAL without hugepages or devices; the tables as the unit test builds them
 * (tests/unit/test_ip6_fwd.c). Each segment's bytes are a heap buffer of their own
 * attached to a pool mbuf as an external buffer, so AddressSanitizer sees a read past
 * a segment (a first segment gets at least 64 bytes, as a port's mbufs have).
 *
 * Properties, per burst: every frame is counted exactly once (a drop or punt reason)
 * or waits in a transmit buffer; what waits there is a valid chain holding an IPv6
 * header that passes RFC 8200 3's checks and whose payload length is the frame's, its
 * hop limit one less (and was more than 1), no Hop-by-Hop or Routing header,
 * addressed from port 1 to the resolved neighbour, the rest as it came; what was
 * punted is a valid chain with its bytes as they came (Ethernet padding perhaps cut)
 * and the priority ring holds only the control class; after the control plane's side
 * is emptied every mbuf is back in its pool and every external buffer freed. After
 * every table change the log empties (no reader here: grace periods end at once).
 *
 * Input: records of [flags][split][length, 2 bytes big-endian][frame bytes]; flags
 * bit 0: port 1 (else 0; the first record's port is the burst's), bit 1: forget the
 * neighbour 2001:db8:2::2 (or learn it again) before the burst, bit 2: switch
 * 2001:db8:9::/48 between via that neighbour and unreachable, bits 3-4: segments - 1,
 * bit 5: the punt buckets are empty, bit 6: this record starts a new burst; split:
 * bytes in each segment but the last (0: an even split). Built and run by
 * scripts/fuzz.sh. */
#include <stdbool.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "core/input.h"
#include "core/mbuf.h"
#include "core/nf.h"
#include "core/tp.h"
#include "fuzz_dpdk.h"
#include "fuzz_l3.h"
#include "nf/ip4/ip4.h"
#include "nf/ip4/l3mode.h"
#include "nf/ip6/control/neigh6.h"
#include "nf/ip6/control/route6.h"
#include "nf/ip6/ip6.h"
#include "proto/ip6.h"
#include "tables/iface.h"

#define EXC_RING 16 /* small: a burst can fill it */

static const uint8_t mac_port[2][6] = {{2, 0, 0, 0, 0, 0x10}, {2, 0, 0, 0, 0, 0x11}};
static const uint8_t mac_h2[6] = {2, 0, 0, 0, 2, 0x02};
static bool h2_learned = true, via_unreachable;

/* 2001:db8:<net>::<host> */
static const uint8_t *A(uint16_t net, uint16_t host)
{
	static uint8_t a[4][16];
	static unsigned int i;
	uint8_t *p = a[i++ % 4];

	memset(p, 0, 16);
	p[0] = 0x20, p[1] = 0x01, p[2] = 0x0d, p[3] = 0xb8;
	p[4] = (uint8_t)(net >> 8), p[5] = (uint8_t)net;
	p[14] = (uint8_t)(host >> 8), p[15] = (uint8_t)host;
	return p;
}

/* Publish what the control plane changed: with no reader, every grace period is
 * over at once, so two polls bring both copies up to date. */
static void settle(void)
{
	tp_route6_poll();
	tp_route6_poll();
	must(tp_route6_pending() == 0);
}

static void tables_fini(void)
{
	tp_rcu_reclaim();
	tp_ip6_tables_fini();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_eal_init("fuzz-ip6", 384);
	fuzz_tables_init();
	must(tp_ip6_tables_init(1024, 1024, 256) == 0);
	atexit(tables_fini); /* before fuzz_tables_fini: the next hops are ip4's */
	fuzz_l3_init(mac_port, EXC_RING);
	/* IPv4 first, then IPv6 in the l3 mode's ethertype table, as the daemon does */
	must(tp_ip4_datapath_register() == 0);
	must(tp_ip6_datapath_register() == 0);
	tp_iface_table[0].mtu = tp_iface_table[1].mtu = 1500;
	/* p0 2001:db8:1::1/64, p1 2001:db8:2::1/64, 2001:db8:2::2 resolved, 2001:db8:9::/48
	 * via it, 2001:db8:8::/48 via 2001:db8:2::3 (not resolved), kernel routes without
	 * a next hop */
	must(tp_ip6_route_add(A(1, 0), 64, TP_ROUTE6_CONNECTED, NULL, 0) == 0);
	must(tp_ip6_route_add(A(1, 1), 128, TP_ROUTE6_LOCAL, NULL, 0) == 0);
	must(tp_ip6_route_add(A(2, 0), 64, TP_ROUTE6_CONNECTED, NULL, 1) == 0);
	must(tp_ip6_route_add(A(2, 1), 128, TP_ROUTE6_LOCAL, NULL, 1) == 0);
	must(tp_ip6_route_add(A(9, 0), 48, TP_ROUTE6_GATEWAY, A(2, 2), 1) == 0);
	must(tp_ip6_route_add(A(8, 0), 48, TP_ROUTE6_GATEWAY, A(2, 3), 1) == 0);
	must(tp_ip6_route_add(A(0x66, 0), 48, TP_ROUTE6_BLACKHOLE, NULL, 0) == 0);
	must(tp_ip6_route_add(A(0x67, 0), 48, TP_ROUTE6_UNREACHABLE, NULL, 0) == 0);
	must(tp_ip6_route_add(A(0x68, 0), 48, TP_ROUTE6_PROHIBIT, NULL, 0) == 0);
	must(tp_neigh6_learn(A(2, 2), 1, mac_h2) >= 0);
	settle();
	fl3.pool_base = rte_mempool_in_use_count(fl3.pool);
	return 0;
}

/* A frame waiting to go out on port p. */
static void check_forwarded(const struct rte_mbuf *m, uint16_t p, const struct fuzz_l3_sent *s)
{
	static uint8_t out[FUZZ_L3_MAX_FRAME];
	uint32_t len = fuzz_l3_flat(m, out, sizeof(out));
	const uint8_t *ip = out + 14, *in = s->bytes + 14;
	must(len >= 14 + TP_IP6_HDR_LEN && len <= s->len);
	/* RFC 8200 3: a well-formed header, the payload length the packet's */
	must(tp_ip6_check(ip, len - 14) == TP_IP6_OK && tp_ip6_plen(ip) + 40u == len - 14);
	must(ip[6] != TP_IP6_NH_HOP_BY_HOP && ip[6] != TP_IP6_NH_ROUTING);
	/* never a group, link-local, loopback or unspecified address forwarded (RFC 4291
	 * 2.5.2, 2.5.3, 2.5.6, 2.7) */
	must(!tp_ip6_is_multicast(ip + 24) && !tp_ip6_is_link_local(ip + 24) &&
	     !tp_ip6_is_link_local(ip + 8) && !tp_ip6_is_multicast(ip + 8) &&
	     !tp_ip6_is_unspec_or_loopback(ip + 24) && !tp_ip6_is_unspec_or_loopback(ip + 8));
	/* to the resolved neighbour, from port 1, the hop limit one less */
	must(h2_learned && p == 1 && memcmp(out, mac_h2, 6) == 0 &&
	     memcmp(out + 6, mac_port[1], 6) == 0);
	must(out[12] == 0x86 && out[13] == 0xdd);
	must(in[7] > 1 && ip[7] == in[7] - 1);
	must(memcmp(ip, in, 7) == 0 && memcmp(ip + 8, in + 8, len - 14 - 8) == 0);
}

/* The control plane's changes before a burst (flags bits 1 and 2). */
static void tables_change(uint8_t flags)
{
	if (flags & 0x02) {
		if (h2_learned)
			must(tp_neigh6_learn(A(2, 2), 1, NULL) == -ENOENT);
		else
			must(tp_neigh6_learn(A(2, 2), 1, mac_h2) >= 0);
		h2_learned = !h2_learned;
	}
	if (flags & 0x04) {
		if (via_unreachable)
			must(tp_ip6_route_add(A(9, 0), 48, TP_ROUTE6_GATEWAY, A(2, 2), 1) == 0);
		else
			must(tp_ip6_route_add(A(9, 0), 48, TP_ROUTE6_UNREACHABLE, NULL, 0) == 0);
		via_unreachable = !via_unreachable;
	}
	settle();
	tp_rcu_reclaim();
	/* a neighbour stays while a route holds it or the kernel has it (2001:db8:2::3:
	 * the route via it); learnt, it has a host route too */
	must(tp_neigh6_count() == 1u + (h2_learned || !via_unreachable));
	must((tp_route6_find(A(2, 2), 128) != NULL) == h2_learned);
}

/* Only an IPv6 packet loses its Ethernet padding. */
static bool padding_cut(const uint8_t *out, uint32_t len)
{
	return len >= 54 && tp_ip6_plen(out + 14) + 40u == len - 14;
}

static void burst_start(uint8_t flags)
{
	if (flags & 0x06)
		tables_change(flags);
}

static const struct fuzz_l3_ops ops = {
    .burst_start = burst_start,
    .check_forwarded = check_forwarded,
    .padding_cut = padding_cut,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_l3_input(data, size, &ops);
	return 0;
}
