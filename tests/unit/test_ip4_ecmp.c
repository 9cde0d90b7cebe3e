/* SPDX-License-Identifier: BSD-3-Clause */
/* ECMP in the IPv4 fast path fed crafted mbufs: a multipath route's next-hop group
 * spreads flows by weight, keeps a flow on one member and in order, moves only a
 * removed member's flows, hashes fragments by their addresses, bounds a group's
 * members (unfit, counted), and replaces a group under a reader (RCU). */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/rtnetlink.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "../../src/core/input.h"
#include "../../src/core/nf.h"
#include "../../src/core/rcu.h"
#include "../../src/core/tp.h"
#include "../../src/nf/ip4/control/neigh.h"
#include "../../src/nf/ip4/control/nexthop.h"
#include "../../src/nf/ip4/control/nhg.h"
#include "../../src/nf/ip4/control/route.h"
#include "../../src/nf/ip4/ip4.h"
#include "../../src/nf/ip4/l3mode.h"
#include "../../src/nf/ip4/output.h"
#include "../../src/proto/ip4.h"
#include "../../src/tables/iface.h"
#include "eal_fixture.h"
#include "worker_fixture.h"

#define IP(a, b, c, d) (((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))
#define FLOWS 4096
#define NET IP(10, 9, 0, 0) /* the multipath route: 10.9.0.0/16 */

static struct rte_mempool *pool;
static struct tp_worker *w;
static const uint8_t mac_p0[6] = {2, 0, 0, 0, 0, 0x10};
static const uint8_t mac_p1[6] = {2, 0, 0, 0, 0, 0x11};
static const uint8_t mac_p2[6] = {2, 0, 0, 0, 0, 0x12};
static const uint8_t mac_h1[6] = {2, 0, 0, 0, 1, 0x02};
/* the members: A = 10.0.2.2 and C = 10.0.2.3 on port 1, B = 10.0.3.2 on port 2 */
static const uint8_t mac_a[6] = {2, 0, 0, 0, 2, 0x02};
static const uint8_t mac_b[6] = {2, 0, 0, 0, 3, 0x02};
static const uint8_t mac_c[6] = {2, 0, 0, 0, 2, 0x03};
static const struct tp_route_hop hop_a = {IP(10, 0, 2, 2), 1, 1, 0, {0}};
static const struct tp_route_hop hop_b = {IP(10, 0, 3, 2), 2, 1, 0, {0}};
static const struct tp_route_hop hop_c = {IP(10, 0, 2, 3), 1, 1, 0, {0}};
enum { NONE, A, B, C, PUNTED };
static unsigned int pool_base;

static int setup(void **state)
{
	w = tp_test_l3_worker("test", 2047, &pool);
	if (w == NULL)
		return -1;
	memcpy(&tp_iface_table[0].mac, mac_p0, 6);
	memcpy(&tp_iface_table[1].mac, mac_p1, 6);
	memcpy(&tp_iface_table[2].mac, mac_p2, 6);
	for (int p = 0; p < 3; p++) {
		tp_iface_table[p].up = 1;
		tp_iface_table[p].mtu = 1500;
		tp_iface_table[p].input = tp_l3_input;
	}
	tp_route_add(IP(10, 0, 1, 0), 24, TP_ROUTE_CONNECTED, 0, 0, 1);
	tp_route_add(IP(10, 0, 2, 0), 24, TP_ROUTE_CONNECTED, 0, 1, 1);
	tp_route_add(IP(10, 0, 3, 0), 24, TP_ROUTE_CONNECTED, 0, 2, 1);
	tp_neigh_learn(hop_a.gw, 1, mac_a);
	tp_neigh_learn(hop_b.gw, 2, mac_b);
	tp_neigh_learn(hop_c.gw, 1, mac_c);
	pool_base = rte_mempool_in_use_count(pool);
	return 0;
}

static int teardown(void **state)
{
	tp_rcu_reclaim();
	tp_route_fini();
	tp_neigh_fini();
	tp_nh_fini();
	return 0;
}

static int reset(void **state)
{
	void *m;

	memset(w->ctr, 0, sizeof(uint64_t) * TP_MAX_PORTS * TP_CTR_MAX);
	for (int k = 0; k < 2; k++)
		while (rte_ring_dequeue(w->exc_ring[k], &m) == 0)
			rte_pktmbuf_free(m);
	tp_test_buckets_open(w);
	tp_route_del(NET, 16);
	tp_rcu_reclaim();
	return 0;
}

static uint64_t ctr(unsigned int id)
{
	uint64_t v = 0;
	for (unsigned int p = 0; p < TP_MAX_PORTS; p++)
		v += w->ctr[p][id];
	return v;
}

/* An Ethernet/IPv4 frame from 10.0.0.0/16 to port 0: proto 17 or 6 with ports, or
 * another with none; frag: the fragment field (host order); seq in the payload. */
static struct rte_mbuf *frame(uint32_t src, uint32_t dst, uint8_t proto, uint16_t sport,
			      uint16_t dport, uint16_t frag, uint32_t seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint16_t l4 = 20 + 4;
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(14 + 20 + l4));

	memcpy(p, mac_p0, 6);
	memcpy(p + 6, mac_h1, 6);
	p[12] = 0x08;
	p[13] = 0x00;
	tp_ip4_write(p + 14, htonl(src), htonl(dst), proto, 64, l4, 7);
	uint8_t *ip = p + 14, *u = p + 34;
	ip[6] = (uint8_t)(frag >> 8);
	ip[7] = (uint8_t)frag;
	uint16_t c = tp_ip4_cksum(ip, 20);
	memcpy(ip + 10, &c, 2);
	memset(u, 0, l4);
	u[0] = (uint8_t)(sport >> 8), u[1] = (uint8_t)sport;
	u[2] = (uint8_t)(dport >> 8), u[3] = (uint8_t)dport;
	memcpy(u + 20, &seq, 4);
	m->port = 0;
	return m;
}

/* The member a forwarded frame went to, by its destination MAC. */
static int member_of(struct rte_mbuf *m)
{
	const uint8_t *e = rte_pktmbuf_mtod(m, const uint8_t *);
	return !memcmp(e, mac_a, 6)   ? A
	       : !memcmp(e, mac_b, 6) ? B
	       : !memcmp(e, mac_c, 6) ? C
				      : NONE;
}

/* Run n frames as one burst; out[i]: the member frame i went to (in the order the
 * frames left), PUNTED when it went to the kernel. Every mbuf freed. Returns how many
 * were forwarded. */
static unsigned int burst(struct rte_mbuf **pkts, unsigned int n, int *out, uint32_t *seq_out)
{
	unsigned int k = 0;
	void *m;

	assert_true(n <= 16);
	memset(w->src_tb, 0, sizeof(w->src_tb)); /* no per-source limit on the punts */
	if (n > 0)				 /* none: only what is already in the buffers */
		tp_iface_table[0].input(w, pkts, (uint16_t)n);
	for (unsigned int p = 1; p <= 2; p++) {
		for (unsigned int i = 0; i < w->txb[p].n; i++, k++) {
			if (out)
				out[k] = member_of(w->txb[p].pkts[i]);
			if (seq_out)
				memcpy(&seq_out[k],
				       rte_pktmbuf_mtod_offset(w->txb[p].pkts[i], uint8_t *, 54),
				       4);
		}
		rte_pktmbuf_free_bulk(w->txb[p].pkts, w->txb[p].n);
		w->txb[p].n = 0;
	}
	w->tx_dirty = 0;
	unsigned int fwd = k;
	for (int c = 0; c < 2; c++)
		while (rte_ring_dequeue(w->exc_ring[c], &m) == 0) {
			rte_pktmbuf_free(m);
			if (out)
				out[k++] = PUNTED;
		}
	return fwd;
}

/* Flow i: a UDP flow from 10.0.0.0/16 to 10.9.0.0/16, ports varying. */
static struct rte_mbuf *flow(unsigned int i, uint32_t seq)
{
	return frame(IP(10, 0, 1, 2) + (i % 7), NET + (i % 251), 17, (uint16_t)(1024 + i),
		     (uint16_t)(5000 + i % 3), 0, seq);
}

/* The member of each of FLOWS flows, one frame each. */
static void flows_members(int *member)
{
	for (unsigned int i = 0; i < FLOWS; i++) {
		struct rte_mbuf *m = flow(i, 0);
		member[i] = NONE;
		burst(&m, 1, &member[i], NULL);
	}
}

static int add(const struct tp_route_hop *hops, unsigned int n)
{
	return tp_route_add_multipath(NET, 16, hops, n, 1);
}

/* Many flows over two equal members: each within 10 % of half; each flow on one member
 * whatever the burst it is in. */
static void test_spread_and_stable(void **state)
{
	static int first[FLOWS], again[FLOWS];
	const struct tp_route_hop hops[] = {hop_a, hop_b};
	unsigned int n[5] = {0};

	assert_int_equal(add(hops, 2), 0);
	flows_members(first);
	for (unsigned int i = 0; i < FLOWS; i++)
		n[first[i]]++;
	print_message("2 members, %u flows: A %u, B %u\n", FLOWS, n[A], n[B]);
	assert_int_equal(n[A] + n[B], FLOWS);
	assert_true(n[A] >= FLOWS / 2 * 9 / 10 && n[B] >= FLOWS / 2 * 9 / 10);
	/* again, 16 flows a burst, in reverse order: the same members */
	for (unsigned int i = 0; i < FLOWS; i += 16) {
		struct rte_mbuf *pkts[16];
		int out[16];
		for (unsigned int j = 0; j < 16; j++)
			pkts[j] = flow(FLOWS - 1 - (i + j), 1);
		assert_int_equal(burst(pkts, 16, out, NULL), 16);
		unsigned int na = 0;
		for (unsigned int j = 0; j < 16; j++)
			na += first[FLOWS - 1 - (i + j)] == A;
		/* port 1 (A) leaves first: the first na are A's */
		for (unsigned int j = 0; j < 16; j++)
			assert_int_equal(out[j], j < na ? A : B);
	}
	for (unsigned int i = 0; i < FLOWS; i++) {
		struct rte_mbuf *m = flow(i, 2);
		burst(&m, 1, &again[i], NULL);
	}
	assert_memory_equal(first, again, sizeof(first));
	assert_int_equal(rte_mempool_in_use_count(pool), pool_base);
}

/* One flow's 1000 frames, in bursts of 16 mixed with other flows: all on one member, in
 * the order sent. */
static void test_one_flow_one_member_in_order(void **state)
{
	const struct tp_route_hop hops[] = {hop_a, hop_b};
	uint32_t next = 0;
	int member = NONE;

	assert_int_equal(add(hops, 2), 0);
	for (uint32_t s = 0; s < 1000; s += 8) {
		struct rte_mbuf *pkts[16];
		int out[16];
		uint32_t seq[16];
		for (unsigned int j = 0; j < 16; j++)
			pkts[j] = j % 2 ? flow(77, s + j / 2) : flow(1000 + s + j, 0xffffffff);
		assert_int_equal(burst(pkts, 16, out, seq), 16);
		for (unsigned int j = 0; j < 16; j++) {
			if (seq[j] == 0xffffffff)
				continue;
			if (member == NONE)
				member = out[j];
			assert_int_equal(out[j], member);
			assert_int_equal(seq[j], next++);
		}
	}
	assert_int_equal(next, 1000);
}

/* A, B, C; C removed (a kernel replace of the route): C's flows go to A and B, no flow of
 * A or B moves; C back: only flows move to C. The group keeps its id. */
static void test_member_removal_moves_only_its_flows(void **state)
{
	static int three[FLOWS], two[FLOWS], back[FLOWS];
	const struct tp_route_hop abc[] = {hop_a, hop_b, hop_c}, ab[] = {hop_a, hop_b};
	unsigned int moved = 0, n[5] = {0};

	assert_int_equal(add(abc, 3), 0);
	uint32_t gid = tp_route_find(NET, 16)->nh;
	assert_true(gid & TP_NH_GROUP);
	flows_members(three);
	for (unsigned int i = 0; i < FLOWS; i++)
		n[three[i]]++;
	print_message("3 members: A %u, B %u, C %u\n", n[A], n[B], n[C]);
	assert_true(n[A] > FLOWS / 3 * 9 / 10 && n[B] > FLOWS / 3 * 9 / 10 &&
		    n[C] > FLOWS / 3 * 9 / 10);
	assert_int_equal(add(ab, 2), 0);
	assert_int_equal(tp_route_find(NET, 16)->nh, gid);
	flows_members(two);
	for (unsigned int i = 0; i < FLOWS; i++) {
		if (three[i] != C)
			assert_int_equal(two[i], three[i]);
		else
			assert_true(two[i] == A || two[i] == B);
	}
	/* C's flows spread over both others, not all on one */
	unsigned int c_to_a = 0;
	for (unsigned int i = 0; i < FLOWS; i++)
		c_to_a += three[i] == C && two[i] == A;
	assert_true(c_to_a > n[C] / 3 && c_to_a < n[C] * 2 / 3);
	assert_int_equal(add(abc, 3), 0);
	flows_members(back);
	for (unsigned int i = 0; i < FLOWS; i++) {
		if (back[i] != two[i]) {
			assert_int_equal(back[i], C);
			moved++;
		}
	}
	print_message("C back: %u flows moved to it\n", moved);
	assert_true(moved > FLOWS / 3 * 9 / 10 && moved < FLOWS / 3 * 11 / 10);
}

/* Weights as the kernel gives them (rtnh_hops + 1): 1 and 3 take a quarter and three
 * quarters of the buckets, and about as many of the flows. */
static void test_weights(void **state)
{
	static int member[FLOWS];
	struct tp_route_hop hops[] = {hop_a, hop_b};
	unsigned int n[5] = {0}, buckets_a = 0;

	hops[1].weight = 3;
	assert_int_equal(add(hops, 2), 0);
	const struct tp_nhg *g = tp_nhg_get(tp_route_find(NET, 16)->nh & TP_NHG_ID_MASK);
	assert_non_null(g);
	for (unsigned int b = 0; b < TP_NHG_BUCKETS; b++)
		buckets_a += g->bucket[b] == (uint32_t)tp_neigh_lookup(hop_a.gw);
	assert_int_equal(buckets_a, TP_NHG_BUCKETS / 4);
	flows_members(member);
	for (unsigned int i = 0; i < FLOWS; i++)
		n[member[i]]++;
	print_message("weights 1:3: A %u, B %u\n", n[A], n[B]);
	assert_true(n[A] > FLOWS / 4 * 9 / 10 && n[A] < FLOWS / 4 * 11 / 10);
}

/* Fragments go by addresses only: a datagram's first fragment (ports in it) and the
 * next (payload where they would be) take one member, for many address pairs; so does
 * a protocol without ports between the same addresses. */
static void test_fragments_by_addresses(void **state)
{
	const struct tp_route_hop hops[] = {hop_a, hop_b};
	unsigned int seen[5] = {0};

	assert_int_equal(add(hops, 2), 0);
	for (unsigned int i = 0; i < 512; i++) {
		uint32_t src = IP(10, 0, 1, 2) + i % 5, dst = NET + i;
		struct rte_mbuf *pkts[3] = {
		    frame(src, dst, 17, (uint16_t)(1000 + i), 53, 0x2000, 0), /* MF, offset 0 */
		    frame(src, dst, 17, (uint16_t)(7 * i), (uint16_t)i, 0x00b9, 1), /* the last */
		    frame(src, dst, 47, (uint16_t)i, 9, 0, 2),			    /* GRE */
		};
		int out[3];
		assert_int_equal(burst(pkts, 3, out, NULL), 3);
		assert_int_equal(out[0], out[1]);
		assert_int_equal(out[1], out[2]);
		seen[out[0]]++;
	}
	assert_true(seen[A] > 0 && seen[B] > 0);
}

/* The hash is symmetric: a flow and its reply give one value (decision: ecmp-hash). */
static void test_hash_symmetric(void **state)
{
	struct rte_mbuf *f = frame(IP(10, 0, 1, 2), IP(10, 9, 3, 4), 6, 40000, 443, 0, 0);
	struct rte_mbuf *r = frame(IP(10, 9, 3, 4), IP(10, 0, 1, 2), 6, 443, 40000, 0, 0);
	struct rte_mbuf *o = frame(IP(10, 0, 1, 2), IP(10, 9, 3, 4), 6, 40001, 443, 0, 0);
	const uint8_t *fi = rte_pktmbuf_mtod_offset(f, uint8_t *, 14);

	assert_int_equal(tp_nhg_hash_ip4(fi, 44),
			 tp_nhg_hash_ip4(rte_pktmbuf_mtod_offset(r, uint8_t *, 14), 44));
	assert_int_not_equal(tp_nhg_hash_ip4(fi, 44),
			     tp_nhg_hash_ip4(rte_pktmbuf_mtod_offset(o, uint8_t *, 14), 44));
	rte_pktmbuf_free(f);
	rte_pktmbuf_free(r);
	rte_pktmbuf_free(o);
}

/* An unresolved member's flows go to the kernel (which resolves it), the others' on. */
static void test_unresolved_member_punts(void **state)
{
	const struct tp_route_hop d = {IP(10, 0, 3, 9), 2, 1, 0, {0}};
	const struct tp_route_hop hops[] = {hop_a, d};
	static int member[FLOWS];
	unsigned int n[5] = {0};

	assert_int_equal(add(hops, 2), 0);
	flows_members(member);
	for (unsigned int i = 0; i < FLOWS; i++)
		n[member[i]]++;
	assert_int_equal(n[A] + n[PUNTED], FLOWS);
	assert_true(n[A] > 0 && n[PUNTED] > 0);
	assert_int_equal(ctr(IP4_CTR(UNRESOLVED)), n[PUNTED]);
}

/* A dead hop (RTNH_F_DEAD) is left out; a route of more live hops than a group holds
 * does not fit: counted, its traffic to the kernel. */
static void test_dead_hop_and_bound(void **state)
{
	static int member[FLOWS];
	struct tp_route_hop hops[TP_NHG_MEMBERS + 1];
	uint64_t before = tp_route_stats.unfit[TP_UNFIT_GROUP_SIZE];

	hops[0] = hop_a;
	hops[1] = hop_b;
	hops[1].dead = 1;
	assert_int_equal(add(hops, 2), 0);
	flows_members(member);
	for (unsigned int i = 0; i < FLOWS; i++)
		assert_int_equal(member[i], A);
	/* the kernel says B is alive again: the same route, refreshed */
	hops[1].dead = 0;
	assert_int_equal(add(hops, 2), 0);
	flows_members(member);
	unsigned int nb = 0;
	for (unsigned int i = 0; i < FLOWS; i++)
		nb += member[i] == B;
	assert_true(nb > FLOWS / 3);

	for (unsigned int i = 0; i <= TP_NHG_MEMBERS; i++)
		hops[i] = (struct tp_route_hop){IP(10, 0, 2, 10) + i, 1, 1, 0, {0}};
	assert_int_equal(add(hops, TP_NHG_MEMBERS + 1), TP_UNFIT_GROUP_SIZE);
	assert_int_equal(tp_route_stats.unfit[TP_UNFIT_GROUP_SIZE], before + 1);
	struct rte_mbuf *m = flow(1, 0);
	int out;
	assert_int_equal(burst(&m, 1, &out, NULL), 0);
	assert_int_equal(out, PUNTED);
	assert_int_equal(ctr(IP4_CTR(ROUTE_UNFIT)), 1);
	/* one hop fewer fits */
	assert_int_equal(add(hops, TP_NHG_MEMBERS), 0);
	assert_int_equal(tp_route_find(NET, 16)->unfit, TP_UNFIT_NONE);
}

/* Every group id in use: a further multipath route does not fit (counted, its traffic
 * to the kernel) until a group is freed and its id back after the grace period. */
static void test_groups_full(void **state)
{
	const struct tp_route_hop hops[] = {hop_a, hop_b};
	uint64_t before = tp_route_stats.unfit[TP_UNFIT_GROUPS];
	const uint32_t n2 = IP(10, 10, 0, 0), n3 = IP(10, 11, 0, 0);

	assert_int_equal(tp_nhg_count(), 0);
	tp_nhg_fini();
	assert_int_equal(tp_nhg_init(2), 0);
	assert_int_equal(add(hops, 2), 0);
	assert_int_equal(tp_route_add_multipath(n2, 16, hops, 2, 1), 0);
	assert_int_equal(tp_route_add_multipath(n3, 16, hops, 2, 1), TP_UNFIT_GROUPS);
	assert_int_equal(tp_route_stats.unfit[TP_UNFIT_GROUPS], before + 1);
	struct rte_mbuf *m = frame(IP(10, 0, 1, 2), n3 + 5, 17, 1, 2, 0, 0);
	int out;
	assert_int_equal(burst(&m, 1, &out, NULL), 0);
	assert_int_equal(out, PUNTED);
	assert_int_equal(ctr(IP4_CTR(ROUTE_UNFIT)), 1);
	/* one goes: its id is back after the grace period, and the retry installs n3 */
	assert_int_equal(tp_route_del(n2, 16), 0);
	tp_rcu_reclaim();
	assert_true(tp_route_retry_wanted());
	assert_int_equal(tp_route_retry(256), 1);
	assert_int_equal(tp_route_find(n3, 16)->unfit, TP_UNFIT_NONE);
	m = frame(IP(10, 0, 1, 2), n3 + 5, 17, 1, 2, 0, 0);
	assert_int_equal(burst(&m, 1, &out, NULL), 1);
	assert_true(out == A || out == B);
	tp_route_del(n3, 16);
	tp_route_del(NET, 16);
	tp_rcu_reclaim();
	tp_nhg_fini();
	assert_int_equal(tp_nhg_init(TP_NHG_DEFAULT), 0);
}

/* Routes of kernel nexthop object id through hops[0..n) (as netlink adds them). */
static int add_object_route(uint32_t net, uint32_t id, const struct tp_route_hop *hops,
			    unsigned int n)
{
	struct tp_route_path p = {.table = RT_TABLE_MAIN,
				  .port = TP_ROUTE_NO_PORT,
				  .type = TP_ROUTE_MULTIPATH,
				  .gen = 1,
				  .n_hops = (uint16_t)n,
				  .hops = (struct tp_route_hop *)(uintptr_t)hops,
				  .nhid = id};
	return tp_route_add_path(net, 16, &p, true);
}

/* The routes of one nexthop object share its group: one group for 64 routes; the
 * object's member removed once for all of them; zebra's move of every route to another
 * object (a replace, route by route) ends in one group whose surviving members kept
 * their buckets; the last route gone, the group goes. */
static void test_object_routes_share_group(void **state)
{
	const struct tp_route_hop abc[] = {hop_a, hop_b, hop_c}, ab[] = {hop_a, hop_b};
	uint16_t before[TP_NHG_BUCKETS];
	const uint32_t base = IP(10, 64, 0, 0);

	for (uint32_t i = 0; i < 64; i++)
		assert_int_equal(add_object_route(base + (i << 16), 14, abc, 3), 0);
	assert_int_equal(tp_nhg_count(), 1);
	uint32_t g14 = tp_route_find(base, 16)->nh;
	assert_int_equal(tp_route_find(base + (63 << 16), 16)->nh, g14);
	memcpy(before, tp_nhg_get(g14 & TP_NHG_ID_MASK)->bucket, sizeof(before));
	/* zebra: object 21 without c, each route replaced in turn */
	for (uint32_t i = 0; i < 64; i++)
		assert_int_equal(add_object_route(base + (i << 16), 21, ab, 2), 0);
	tp_rcu_reclaim();
	assert_int_equal(tp_nhg_count(), 1);
	uint32_t g21 = tp_route_find(base, 16)->nh;
	for (uint32_t i = 0; i < 64; i++)
		assert_int_equal(tp_route_find(base + (i << 16), 16)->nh, g21);
	const struct tp_nhg *g = tp_nhg_get(g21 & TP_NHG_ID_MASK);
	uint32_t nc = (uint32_t)tp_neigh_lookup(hop_c.gw);
	for (unsigned int b = 0; b < TP_NHG_BUCKETS; b++)
		if (before[b] != nc)
			assert_int_equal(g->bucket[b], before[b]);
	/* the object loses b: one update for every route (tp_route_nhid_update) */
	const struct tp_route_hop a_only[] = {hop_a};
	assert_int_equal(tp_route_nhid_update(21, a_only, 1), 64);
	g = tp_nhg_get(g21 & TP_NHG_ID_MASK);
	for (unsigned int b = 0; b < TP_NHG_BUCKETS; b++)
		assert_int_equal(g->bucket[b], (uint32_t)tp_neigh_lookup(hop_a.gw));
	/* all but one route gone: the group stays; the last one gone: it goes */
	for (uint32_t i = 1; i < 64; i++)
		assert_int_equal(tp_route_del(base + (i << 16), 16), 0);
	tp_rcu_reclaim();
	assert_int_equal(tp_nhg_count(), 1);
	struct rte_mbuf *m = frame(IP(10, 0, 1, 2), base + 9, 17, 1, 2, 0, 0);
	int out;
	assert_int_equal(burst(&m, 1, &out, NULL), 1);
	assert_int_equal(out, A);
	assert_int_equal(tp_route_del(base, 16), 0);
	tp_rcu_reclaim();
	assert_int_equal(tp_nhg_count(), 0);
}

/* What the data plane sends itself (tp_udp_send) through a group: the datagrams of
 * one flow to one member, the flows to both. */
static void test_output_through_group(void **state)
{
	const struct tp_route_hop hops[] = {hop_a, hop_b};
	unsigned int n[5] = {0};

	assert_int_equal(add(hops, 2), 0);
	for (unsigned int i = 0; i < 256; i++) {
		int first = NONE;
		for (int k = 0; k < 3; k++) {
			struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
			assert_non_null(rte_pktmbuf_append(m, 8));
			m->port = 0;
			assert_int_equal(tp_udp_send(w, m, IP(10, 0, 2, 1), NET + i,
						     (uint16_t)(4000 + i), 6024, 0),
					 TP_IP4_OUT_SENT);
			int out[2];
			assert_int_equal(burst(NULL, 0, out, NULL), 1);
			if (first == NONE)
				first = out[0];
			assert_int_equal(out[0], first);
		}
		n[first]++;
	}
	print_message("tp_udp_send, 256 flows: A %u, B %u\n", n[A], n[B]);
	assert_true(n[A] > 64 && n[B] > 64);
}

/* Deleting the route gives the group and its members' references back. */
static void test_delete_frees_group(void **state)
{
	const struct tp_route_hop hops[] = {hop_a, hop_b};
	unsigned int groups = tp_nhg_count(), nhs = tp_nh_count();

	assert_int_equal(add(hops, 2), 0);
	assert_int_equal(tp_nhg_count(), groups + 1);
	assert_int_equal(tp_route_del(NET, 16), 0);
	tp_rcu_reclaim();
	assert_int_equal(tp_nhg_count(), groups);
	assert_int_equal(tp_nh_count(), nhs);
	/* an unresolved member's neighbour, made for the route, goes with it */
	const struct tp_route_hop d[] = {hop_a, {IP(10, 0, 3, 77), 2, 1, 0, {0}}};
	assert_int_equal(add(d, 2), 0);
	assert_int_equal(tp_nh_count(), nhs + 1);
	assert_int_equal(tp_route_del(NET, 16), 0);
	tp_rcu_reclaim();
	assert_int_equal(tp_nh_count(), nhs);
}

/* --- RCU: a reader keeps picking members while the writer replaces the group; an old
 * bucket table is freed only after the reader's quiescent state --- */
static volatile int rd_stop, rd_hold, rd_release, rd_released;
static volatile uint64_t rd_picks, rd_bad;
static uint32_t nh_a, nh_b, nh_c;

static void *reader(void *arg)
{
	uint32_t h = 1;

	rte_rcu_qsbr_thread_register(tp.qs, 0);
	rte_rcu_qsbr_thread_online(tp.qs, 0);
	/* first: hold one table across a replacement */
	uint32_t e = tp_route_entry(tp_route_lpm, NET + 1);
	const struct tp_nhg *held = tp_nhg_table[e & TP_NHG_ID_MASK];
	rd_hold = 1;
	while (!rd_release)
		usleep(1000);
	for (unsigned int b = 0; b < TP_NHG_BUCKETS; b++)
		if (held->bucket[b] != nh_a && held->bucket[b] != nh_b && held->bucket[b] != nh_c)
			rd_bad++;
	rd_released = 1;
	rte_rcu_qsbr_quiescent(tp.qs, 0);
	/* then: pick as a worker does, quiescent every 64 picks */
	while (!rd_stop) {
		for (int i = 0; i < 64; i++) {
			e = tp_route_entry(tp_route_lpm, NET + (h & 0xff));
			uint32_t nh = tp_nhg_pick(e & TP_NHG_ID_MASK, h);
			rd_bad += !(e & TP_NH_GROUP) || (nh != nh_a && nh != nh_b && nh != nh_c);
			h = h * 2654435761u + 1;
			rd_picks++;
		}
		rte_rcu_qsbr_quiescent(tp.qs, 0);
	}
	rte_rcu_qsbr_thread_offline(tp.qs, 0);
	rte_rcu_qsbr_thread_unregister(tp.qs, 0);
	return NULL;
}

static void test_rcu_group_replacement(void **state)
{
	const struct tp_route_hop abc[] = {hop_a, hop_b, hop_c}, ab[] = {hop_a, hop_b},
				  bc[] = {hop_b, hop_c};
	pthread_t t;

	nh_a = (uint32_t)tp_neigh_lookup(hop_a.gw);
	nh_b = (uint32_t)tp_neigh_lookup(hop_b.gw);
	nh_c = (uint32_t)tp_neigh_lookup(hop_c.gw);
	assert_int_equal(add(abc, 3), 0);
	tp_rcu_reclaim();
	assert_int_equal(tp_rcu_pending(), 0);
	rd_stop = rd_hold = rd_release = rd_released = 0;
	rd_picks = rd_bad = 0;
	assert_int_equal(pthread_create(&t, NULL, reader, NULL), 0);
	while (!rd_hold)
		usleep(1000);
	/* replaced while the reader holds the table: the old one waits for it */
	assert_int_equal(add(ab, 2), 0);
	assert_int_equal(tp_rcu_pending(), 1);
	usleep(20 * 1000);
	assert_int_equal(tp_rcu_reclaim(), 0);
	assert_int_equal(tp_rcu_pending(), 1);
	rd_release = 1;
	while (!rd_released)
		usleep(1000);
	for (int i = 0; i < 1000 && tp_rcu_pending(); i++) {
		tp_rcu_reclaim();
		usleep(1000);
	}
	assert_int_equal(tp_rcu_pending(), 0);
	/* then 3000 replacements under a reader picking all the while */
	for (int i = 0; i < 3000; i++) {
		assert_int_equal(add(i % 3 == 0	  ? ab
				     : i % 3 == 1 ? bc
						  : abc,
				     i % 3 == 2 ? 3 : 2),
				 0);
		tp_rcu_reclaim();
	}
	rd_stop = 1;
	pthread_join(t, NULL);
	for (int i = 0; i < 1000 && tp_rcu_pending(); i++)
		tp_rcu_reclaim();
	print_message("reader: %" PRIu64 " picks during 3000 replacements\n", (uint64_t)rd_picks);
	assert_int_equal(rd_bad, 0);
	assert_true(rd_picks > 0);
	assert_int_equal(tp_rcu_pending(), 0);
}

/* The tables torn down while a group's release waits for its grace period: the release
 * that runs later frees nothing twice (tp_nhg_fini freed the group with its slot). */
static void test_fini_with_release_pending(void **state)
{
	const struct tp_route_hop hops[] = {hop_a, hop_b};

	assert_int_equal(add(hops, 2), 0);
	assert_int_equal(tp_route_del(NET, 16), 0);
	assert_true(tp_rcu_pending() > 0);
	tp_route_fini();
	assert_int_equal(tp_route_init(tp.qs, 1024), 0);
	tp_rcu_reclaim();
	assert_int_equal(tp_rcu_pending(), 0);
	assert_int_equal(tp_nhg_count(), 0);
	/* the new table works */
	assert_int_equal(add(hops, 2), 0);
	assert_int_equal(tp_nhg_count(), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_spread_and_stable, reset),
	    cmocka_unit_test_setup(test_one_flow_one_member_in_order, reset),
	    cmocka_unit_test_setup(test_member_removal_moves_only_its_flows, reset),
	    cmocka_unit_test_setup(test_weights, reset),
	    cmocka_unit_test_setup(test_fragments_by_addresses, reset),
	    cmocka_unit_test_setup(test_hash_symmetric, reset),
	    cmocka_unit_test_setup(test_unresolved_member_punts, reset),
	    cmocka_unit_test_setup(test_dead_hop_and_bound, reset),
	    cmocka_unit_test_setup(test_delete_frees_group, reset),
	    cmocka_unit_test_setup(test_object_routes_share_group, reset),
	    cmocka_unit_test_setup(test_output_through_group, reset),
	    cmocka_unit_test_setup(test_groups_full, reset),
	    cmocka_unit_test_setup(test_rcu_group_replacement, reset),
	    /* last: it makes the route table anew */
	    cmocka_unit_test_setup(test_fini_with_release_pending, reset),
	};
	if (tp_test_eal_init() < 0)
		return 1;
	return cmocka_run_group_tests_name("ip4_ecmp", tests, setup, teardown);
}
