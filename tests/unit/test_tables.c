/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared tables: next hops, neighbours, routes (also full ones); RCU reclamation with a
 * live reader. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "../../src/core/rcu.h"
#include "../../src/core/tp.h"
#include "../../src/nf/ip4/control/neigh.h"
#include "../../src/nf/ip4/control/nexthop.h"
#include "../../src/nf/ip4/control/route.h"
#include "eal_fixture.h"

static const uint8_t mac_a[6] = {2, 0, 0, 0, 0, 0xa};
static const uint8_t mac_b[6] = {2, 0, 0, 0, 0, 0xb};

static int setup(void **state)
{
	if (tp_rcu_init(1) < 0)
		return -1;
	if (tp_nh_init() < 0 || tp_neigh_init(1024) < 0 || tp_route_init(tp.qs, 1024) < 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	tp_rcu_reclaim();
	tp_route_fini();
	tp_neigh_fini();
	tp_nh_fini();
	tp_rcu_fini();
	return 0;
}

static uint32_t lookup(uint32_t ip)
{
	uint32_t nh;
	tp_route_lookup_bulk(&ip, &nh, 1);
	return nh;
}

/* 'port del' forgets every neighbour of the port, not one batch of them: 700 on the
 * port (more than two of tp_neigh_flush_port's batches of 256), 100 on another
 * that stay. */
static void test_neigh_flush_port_all(void **state)
{
	const uint32_t base1 = 0x0a010000, base2 = 0x0a020000;

	for (uint32_t i = 0; i < 700; i++)
		assert_true(tp_neigh_learn(base1 + i, 1, mac_a) >= 0);
	for (uint32_t i = 0; i < 100; i++)
		assert_true(tp_neigh_learn(base2 + i, 2, mac_b) >= 0);
	tp_neigh_flush_port(1);
	for (uint32_t i = 0; i < 700; i++)
		assert_int_equal(tp_neigh_lookup(base1 + i), -ENOENT);
	for (uint32_t i = 0; i < 100; i++) {
		int nh = tp_neigh_lookup(base2 + i);
		assert_true(nh >= (int)TP_NH_FIRST);
		assert_true(tp_nh_table[nh].learned);
		assert_int_equal(tp_nh_table[nh].port, 2);
	}
	tp_neigh_flush_port(2);
	for (uint32_t i = 0; i < 100; i++)
		assert_int_equal(tp_neigh_lookup(base2 + i), -ENOENT);
	tp_rcu_reclaim();
}

static void test_nexthop_alloc_free(void **state)
{
	unsigned int base = tp_nh_count();
	int a = tp_nh_alloc(0x0a000001, 1), b = tp_nh_alloc(0x0a000002, 1);

	assert_true(a >= (int)TP_NH_FIRST && b >= (int)TP_NH_FIRST && a != b);
	assert_int_equal(tp_nh_count(), base + 2);
	tp_nh_set_l2((uint32_t)a, mac_a, 3, TP_NH_F_RESOLVED);
	uint64_t w = tp_nh_l2_load((uint32_t)a);
	assert_int_equal(tp_nh_l2_port(w), 3);
	assert_true(tp_nh_l2_flags(w) & TP_NH_F_RESOLVED);
	assert_memory_equal(&w, mac_a, 6);
	tp_nh_free((uint32_t)a);
	tp_nh_free((uint32_t)b);
	assert_int_equal(tp_nh_count(), base);
	tp_nh_free(TP_NH_PUNT); /* the special entries are never freed */
	assert_int_equal(tp_nh_count(), base);
}

static void test_neigh_learn_replace_forget(void **state)
{
	unsigned int base = tp_nh_count();
	int nh = tp_neigh_learn(0x0a000002, 1, mac_a);

	assert_true(nh >= (int)TP_NH_FIRST);
	assert_int_equal(tp_neigh_lookup(0x0a000002), nh);
	/* a new MAC replaces in place: same entry, new word */
	assert_int_equal(tp_neigh_learn(0x0a000002, 1, mac_b), nh);
	uint64_t w = tp_nh_l2_load((uint32_t)nh);
	assert_memory_equal(&w, mac_b, 6);
	assert_int_equal(tp_neigh_count(), 1);
	assert_int_equal(tp_neigh_learn(0x0a000002, 1, NULL), -ENOENT);
	assert_int_equal(tp_neigh_lookup(0x0a000002), -ENOENT);
	/* the next hop goes after a grace period (no reader here: the next reclaim) */
	assert_int_equal(tp_rcu_reclaim(), 1);
	assert_int_equal(tp_nh_count(), base);
}

static void test_routes_connected_gateway_local(void **state)
{
	assert_int_equal(tp_route_add(0x0a000000, 24, TP_ROUTE_CONNECTED, 0, 1, 1), 0);
	assert_int_equal(tp_route_add(0x0a000001, 32, TP_ROUTE_LOCAL, 0, 1, 1), 0);
	assert_int_equal(tp_route_add(0xc0a80000, 16, TP_ROUTE_GATEWAY, 0x0a000002, 1, 1), 0);

	assert_int_equal(lookup(0x0a000077), TP_NH_CONNECTED);
	assert_int_equal(lookup(0x0a000001), TP_NH_PUNT);
	int gw = tp_neigh_lookup(0x0a000002);
	assert_true(gw >= (int)TP_NH_FIRST);
	assert_int_equal(lookup(0xc0a81234), (uint32_t)gw);
	/* the gateway is known but not resolved until the kernel says so */
	assert_false(tp_nh_l2_flags(tp_nh_l2_load((uint32_t)gw)) & TP_NH_F_RESOLVED);
	assert_int_equal(tp_neigh_learn(0x0a000002, 1, mac_a), gw);
	assert_true(tp_nh_l2_flags(tp_nh_l2_load((uint32_t)gw)) & TP_NH_F_RESOLVED);
	tp_route_host_update(0x0a000002, 1, gw);
	assert_int_equal(lookup(0x0a000002), (uint32_t)gw); /* host route beats connected */
	assert_int_equal(lookup(0x0b000000), UINT32_MAX);   /* no route */

	/* replace: the same prefix through another gateway */
	assert_int_equal(tp_route_add(0xc0a80000, 16, TP_ROUTE_GATEWAY, 0x0a000003, 1, 1), 0);
	int gw2 = tp_neigh_lookup(0x0a000003);
	assert_int_equal(lookup(0xc0a80001), (uint32_t)gw2);

	/* the neighbour goes away: host route gone, entry freed once unreferenced */
	tp_neigh_learn(0x0a000002, 1, NULL);
	tp_route_host_update(0x0a000002, 1, -ENOENT);
	assert_int_equal(lookup(0x0a000002), TP_NH_CONNECTED);
	assert_int_equal(tp_neigh_lookup(0x0a000002), -ENOENT);

	assert_int_equal(tp_route_del(0xc0a80000, 16), 0);
	assert_int_equal(lookup(0xc0a80001), UINT32_MAX);
	assert_int_equal(tp_neigh_lookup(0x0a000003), -ENOENT); /* its only route went */
	assert_int_equal(tp_route_del(0xc0a80000, 16), -ENOENT);
	assert_int_equal(tp_route_del(0x0a000000, 24), 0);
	assert_int_equal(tp_route_del(0x0a000001, 32), 0);
	assert_int_equal(tp_route_count(), 0);
}

static void test_route_sweep(void **state)
{
	assert_int_equal(tp_route_add(0x0a010000, 16, TP_ROUTE_CONNECTED, 0, 1, 5), 0);
	assert_int_equal(tp_route_add(0x0a020000, 16, TP_ROUTE_CONNECTED, 0, 1, 6), 0);
	assert_int_equal(tp_route_sweep(6), 1);
	assert_int_equal(lookup(0x0a010001), UINT32_MAX);
	assert_int_equal(lookup(0x0a020001), TP_NH_CONNECTED);
	tp_route_del(0x0a020000, 16);
}

/* A kernel /32 wins over a host route and, deleted, falls back to it. */
static void test_kernel_host_route_precedence(void **state)
{
	int nh = tp_neigh_learn(0x0a000009, 1, mac_a);
	tp_route_host_update(0x0a000009, 1, nh);
	assert_int_equal(tp_route_add(0x0a000009, 32, TP_ROUTE_LOCAL, 0, 1, 1), 0);
	assert_int_equal(lookup(0x0a000009), TP_NH_PUNT);
	assert_int_equal(tp_route_del(0x0a000009, 32), 0);
	assert_int_equal(lookup(0x0a000009), (uint32_t)nh);
	tp_neigh_learn(0x0a000009, 1, NULL);
	tp_route_host_update(0x0a000009, 1, -ENOENT);
	assert_int_equal(lookup(0x0a000009), UINT32_MAX);
	assert_int_equal(tp_route_count(), 0);
}

/* --- tables under pressure (issue 15 item 3): small tables, filled --- */
#define IP(a, b, c, d) (((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))

/* The route table again with max_routes rules and tbl8 tbl8 groups. */
static void route_reinit(unsigned int max_routes, unsigned int tbl8)
{
	tp_route_fini();
	tp_rcu_reclaim();
	assert_int_equal(tp_route_init2(tp.qs, max_routes, tbl8), 0);
}

static uint32_t gw_nh(uint32_t gw)
{
	int nh = tp_neigh_lookup(gw);
	assert_true(nh >= (int)TP_NH_FIRST);
	return (uint32_t)nh;
}

static const struct tp_route *must_find(uint32_t ip, uint8_t depth)
{
	const struct tp_route *r = tp_route_find(ip, depth);
	assert_non_null(r);
	return r;
}

/* rte_lpm's rules full: the route is kept (unfit, counted), its cover punts, not
 * forwards; a delete elsewhere frees a rule and the retry installs it. */
static void test_unfit_lpm_rules(void **state)
{
	const uint32_t gw_c = IP(192, 0, 2, 1), gw_u = IP(192, 0, 2, 2);
	uint64_t rules0 = tp_route_stats.unfit[TP_UNFIT_LPM_RULES], refit0 = tp_route_stats.refit;

	route_reinit(4, 16);
	assert_int_equal(tp_route_add(IP(10, 0, 0, 0), 8, TP_ROUTE_GATEWAY, gw_c, 1, 1), 0);
	for (int i = 11; i <= 13; i++)
		assert_int_equal(tp_route_add(IP(i, 0, 0, 0), 8, TP_ROUTE_CONNECTED, 0, 1, 1), 0);
	uint32_t nh_c = gw_nh(gw_c);
	assert_int_equal(lookup(IP(10, 1, 2, 3)), nh_c);

	/* the fifth rule: no room */
	assert_int_equal(tp_route_add(IP(10, 1, 0, 0), 16, TP_ROUTE_GATEWAY, gw_u, 1, 1),
			 TP_UNFIT_LPM_RULES);
	assert_int_equal(tp_route_stats.unfit[TP_UNFIT_LPM_RULES], rules0 + 1);
	assert_int_equal(tp_route_unfit_count(), 1);
	assert_int_equal(tp_route_unfit_covers(), 1);
	assert_int_equal(tp_route_count(), 4);
	const struct tp_route *u = must_find(IP(10, 1, 0, 0), 16);
	assert_false(u->installed);
	assert_int_equal(u->unfit, TP_UNFIT_LPM_RULES);
	assert_string_equal(tp_route_unfit_name(TP_UNFIT_LPM_RULES), "lpm_rules");
	/* its traffic is never sent through the /8's next hop: the /8 punts */
	assert_int_equal(lookup(IP(10, 1, 2, 3)), TP_NH_UNFIT);
	assert_int_equal(lookup(IP(10, 200, 0, 1)), TP_NH_UNFIT);
	assert_int_equal(lookup(IP(11, 0, 0, 1)), TP_NH_CONNECTED); /* elsewhere as before */
	assert_int_equal(tp_neigh_lookup(gw_u), -ENOENT); /* an unfit route holds no next hop */
	/* the same route again (a dump) is still unfit, counted once */
	assert_int_equal(tp_route_add(IP(10, 1, 0, 0), 16, TP_ROUTE_GATEWAY, gw_u, 1, 2),
			 TP_UNFIT_LPM_RULES);
	assert_int_equal(tp_route_stats.unfit[TP_UNFIT_LPM_RULES], rules0 + 1);
	/* iterated after the installed ones, for show */
	uint32_t it = 0;
	unsigned int n = 0, unfit_seen = 0;
	const struct tp_route *r;
	while ((r = tp_route_iterate(&it)) != NULL) {
		n++;
		unfit_seen += r == u;
	}
	assert_int_equal(n, 5);
	assert_int_equal(unfit_seen, 1);

	/* nothing freed yet: a retry finds no room */
	assert_false(tp_route_retry_wanted());
	assert_int_equal(tp_route_retry(16), 0);
	/* a delete elsewhere frees a rule: retried, installed, the /8 forwards again */
	assert_int_equal(tp_route_del(IP(12, 0, 0, 0), 8), 0);
	assert_true(tp_route_retry_wanted());
	assert_int_equal(tp_route_retry(16), 1);
	assert_int_equal(tp_route_stats.refit, refit0 + 1);
	assert_int_equal(tp_route_unfit_count(), 0);
	assert_int_equal(tp_route_unfit_covers(), 0);
	assert_int_equal(lookup(IP(10, 1, 2, 3)), gw_nh(gw_u));
	assert_int_equal(lookup(IP(10, 200, 0, 1)), nh_c);
	route_reinit(1024, 1 << 12);
}

/* The cover moves: a route installed between an unfit one and its cover punts in
 * the cover's place; the cover deleted, the next one (or none: a miss) takes over. */
static void test_unfit_cover_moves(void **state)
{
	const uint32_t gw_c = IP(192, 0, 2, 1), gw_d = IP(192, 0, 2, 3);

	route_reinit(3, 16);
	assert_int_equal(tp_route_add(IP(10, 0, 0, 0), 8, TP_ROUTE_GATEWAY, gw_c, 1, 1), 0);
	assert_int_equal(tp_route_add(IP(11, 0, 0, 0), 8, TP_ROUTE_CONNECTED, 0, 1, 1), 0);
	assert_int_equal(tp_route_add(IP(12, 0, 0, 0), 8, TP_ROUTE_CONNECTED, 0, 1, 1), 0);
	assert_int_equal(tp_route_add(IP(10, 1, 1, 0), 24, TP_ROUTE_GATEWAY, gw_c, 1, 1),
			 TP_UNFIT_LPM_RULES);
	uint32_t nh_c = gw_nh(gw_c);
	assert_int_equal(lookup(IP(10, 9, 0, 1)), TP_NH_UNFIT);
	/* room for one, taken by a /16 between the /24 and the /8 */
	assert_int_equal(tp_route_del(IP(12, 0, 0, 0), 8), 0);
	assert_int_equal(tp_route_add(IP(10, 1, 0, 0), 16, TP_ROUTE_GATEWAY, gw_d, 1, 1), 0);
	assert_ptr_equal(must_find(IP(10, 1, 1, 0), 24)->cover, must_find(IP(10, 1, 0, 0), 16));
	assert_int_equal(lookup(IP(10, 1, 1, 7)), TP_NH_UNFIT);
	assert_int_equal(lookup(IP(10, 1, 2, 7)), TP_NH_UNFIT); /* the /16 punts now */
	assert_int_equal(lookup(IP(10, 9, 0, 1)), nh_c);	/* the /8 forwards again */
	assert_int_equal(tp_route_unfit_covers(), 1);
	/* the /16 goes: the /8 punts again (before the /16's rule went) */
	assert_int_equal(tp_route_del(IP(10, 1, 0, 0), 16), 0);
	assert_ptr_equal(must_find(IP(10, 1, 1, 0), 24)->cover, must_find(IP(10, 0, 0, 0), 8));
	assert_int_equal(lookup(IP(10, 1, 1, 7)), TP_NH_UNFIT);
	assert_int_equal(lookup(IP(10, 1, 2, 7)), TP_NH_UNFIT);
	/* the /8 goes too: no cover, a miss (the kernel answers or forwards) */
	assert_int_equal(tp_route_del(IP(10, 0, 0, 0), 8), 0);
	assert_null(must_find(IP(10, 1, 1, 0), 24)->cover);
	assert_int_equal(lookup(IP(10, 1, 1, 7)), UINT32_MAX);
	assert_int_equal(tp_route_unfit_covers(), 0);
	/* deleted while unfit: gone from the list */
	assert_int_equal(tp_route_del(IP(10, 1, 1, 0), 24), 0);
	assert_int_equal(tp_route_unfit_count(), 0);
	assert_null(tp_route_find(IP(10, 1, 1, 0), 24));
	route_reinit(1024, 1 << 12);
}

/* No tbl8 group for a /25: unfit (lpm_tbl8); a /25 in a /24 that has a group still
 * fits; a group freed by a delete (after the RCU grace period) is retried. */
static void test_unfit_lpm_tbl8(void **state)
{
	const uint32_t gw_c = IP(192, 0, 2, 1), gw_u = IP(192, 0, 2, 4);
	uint64_t tbl80 = tp_route_stats.unfit[TP_UNFIT_LPM_TBL8];

	route_reinit(64, 2);
	assert_int_equal(tp_route_add(IP(10, 0, 0, 0), 16, TP_ROUTE_GATEWAY, gw_c, 1, 1), 0);
	assert_int_equal(tp_route_add(IP(10, 0, 1, 128), 25, TP_ROUTE_CONNECTED, 0, 1, 1), 0);
	assert_int_equal(tp_route_add(IP(10, 0, 2, 128), 25, TP_ROUTE_CONNECTED, 0, 1, 1), 0);
	assert_int_equal(tp_route_add(IP(10, 0, 3, 128), 25, TP_ROUTE_GATEWAY, gw_u, 1, 1),
			 TP_UNFIT_LPM_TBL8);
	assert_int_equal(tp_route_stats.unfit[TP_UNFIT_LPM_TBL8], tbl80 + 1);
	assert_int_equal(lookup(IP(10, 0, 3, 200)), TP_NH_UNFIT);
	assert_int_equal(lookup(IP(10, 0, 3, 1)), TP_NH_UNFIT);
	/* the /24 10.0.1 has its group: another /25 there fits */
	assert_int_equal(tp_route_add(IP(10, 0, 1, 0), 25, TP_ROUTE_CONNECTED, 0, 1, 1), 0);
	/* 10.0.2's group freed (no reader: reclaimed when a group is wanted) */
	assert_int_equal(tp_route_del(IP(10, 0, 2, 128), 25), 0);
	assert_int_equal(tp_route_retry(16), 1);
	assert_int_equal(lookup(IP(10, 0, 3, 200)), gw_nh(gw_u));
	assert_int_equal(lookup(IP(10, 0, 3, 1)), gw_nh(gw_c));
	route_reinit(1024, 1 << 12);
}

/* The next-hop table full: the route has its LPM rule but no neighbour entry, so
 * it punts itself (its cover forwards the rest); a freed entry lets it in. */
static void test_unfit_nexthops(void **state)
{
	const uint32_t g1 = IP(192, 0, 2, 11), g2 = IP(192, 0, 2, 12), g3 = IP(192, 0, 2, 13);
	uint64_t nhs0 = tp_route_stats.unfit[TP_UNFIT_NEXTHOPS];

	tp_route_fini();
	tp_neigh_fini();
	tp_rcu_reclaim();
	tp_nh_fini();
	assert_int_equal(tp_nh_init_size(TP_NH_FIRST + 2), 0);
	assert_int_equal(tp_neigh_init(1024), 0);
	assert_int_equal(tp_route_init2(tp.qs, 64, 16), 0);
	assert_int_equal(tp_route_add(IP(10, 0, 0, 0), 8, TP_ROUTE_GATEWAY, g1, 1, 1), 0);
	assert_int_equal(tp_route_add(IP(10, 2, 0, 0), 16, TP_ROUTE_GATEWAY, g2, 1, 1), 0);
	assert_true(tp_nh_full());
	assert_int_equal(tp_route_add(IP(10, 3, 0, 0), 16, TP_ROUTE_GATEWAY, g3, 1, 1),
			 TP_UNFIT_NEXTHOPS);
	assert_int_equal(tp_route_stats.unfit[TP_UNFIT_NEXTHOPS], nhs0 + 1);
	const struct tp_route *r = must_find(IP(10, 3, 0, 0), 16);
	assert_true(r->installed);
	assert_int_equal(tp_route_unfit_count(), 1);
	assert_int_equal(tp_route_unfit_covers(), 0);
	assert_int_equal(lookup(IP(10, 3, 0, 1)), TP_NH_UNFIT);
	assert_int_equal(lookup(IP(10, 4, 0, 1)), gw_nh(g1));
	uint32_t it = 0;
	unsigned int seen = 0;
	const struct tp_route *o;
	while ((o = tp_route_iterate(&it)) != NULL)
		seen += o == r;
	assert_int_equal(seen, 1); /* in the index and on the unfit list: listed once */
	/* g2's only route goes; its entry is freed after the grace period */
	assert_int_equal(tp_route_del(IP(10, 2, 0, 0), 16), 0);
	tp_rcu_reclaim();
	assert_false(tp_nh_full());
	assert_true(tp_route_retry_wanted());
	assert_int_equal(tp_route_retry(16), 1);
	assert_int_equal(lookup(IP(10, 3, 0, 1)), gw_nh(g3));
	assert_int_equal(tp_route_unfit_count(), 0);
	tp_route_fini();
	tp_neigh_fini();
	tp_rcu_reclaim();
	tp_nh_fini();
	assert_int_equal(tp_nh_init(), 0);
	assert_int_equal(tp_neigh_init(1024), 0);
	assert_int_equal(tp_route_init(tp.qs, 1024), 0);
}

/* Several kernel routes for one prefix: the kernel's choice is installed (local
 * table first, then the lowest metric), and a delete removes exactly the route the
 * kernel deleted. */
static void test_paths_exact_delete(void **state)
{
	const uint32_t g1 = IP(192, 0, 2, 21), g2 = IP(192, 0, 2, 22);
	struct tp_route_path p100 = {
	    .table = 254, .metric = 100, .gw = g1, .port = 1, .type = TP_ROUTE_GATEWAY, .gen = 1};
	struct tp_route_path p200 = {
	    .table = 254, .metric = 200, .gw = g2, .port = 1, .type = TP_ROUTE_GATEWAY, .gen = 1};
	struct tp_route_path other = p200;

	assert_int_equal(tp_route_add_path(IP(10, 5, 0, 0), 16, &p200, false), 0);
	assert_int_equal(lookup(IP(10, 5, 0, 1)), gw_nh(g2));
	assert_int_equal(tp_route_add_path(IP(10, 5, 0, 0), 16, &p100, false), 0);
	assert_int_equal(lookup(IP(10, 5, 0, 1)), gw_nh(g1)); /* the lower metric */
	assert_int_equal(must_find(IP(10, 5, 0, 0), 16)->n_paths, 2);
	/* the metric 200 route goes: the metric 100 one stays, untouched */
	assert_int_equal(tp_route_del_path(IP(10, 5, 0, 0), 16, &p200), 0);
	assert_int_equal(lookup(IP(10, 5, 0, 1)), gw_nh(g1));
	assert_int_equal(tp_neigh_lookup(g2), -ENOENT);
	/* a route the kernel deleted that we do not have (another metric): nothing */
	other.metric = 300;
	assert_int_equal(tp_route_del_path(IP(10, 5, 0, 0), 16, &other), -ENOENT);
	assert_int_equal(lookup(IP(10, 5, 0, 1)), gw_nh(g1));
	/* back, then the best one goes: the other takes its place */
	assert_int_equal(tp_route_add_path(IP(10, 5, 0, 0), 16, &p200, false), 0);
	assert_int_equal(tp_route_del_path(IP(10, 5, 0, 0), 16, &p100), 0);
	assert_int_equal(lookup(IP(10, 5, 0, 1)), gw_nh(g2));
	assert_int_equal(must_find(IP(10, 5, 0, 0), 16)->metric, 200);
	/* NLM_F_REPLACE of the metric 200 route by another gateway */
	p100.metric = 200;
	assert_int_equal(tp_route_add_path(IP(10, 5, 0, 0), 16, &p100, true), 0);
	assert_int_equal(must_find(IP(10, 5, 0, 0), 16)->n_paths, 1);
	assert_int_equal(lookup(IP(10, 5, 0, 1)), gw_nh(g1));
	assert_int_equal(tp_route_del_path(IP(10, 5, 0, 0), 16, &p100), 0);
	assert_int_equal(lookup(IP(10, 5, 0, 1)), UINT32_MAX);
	assert_int_equal(tp_route_count(), 0);
}

/* --- RCU: a neighbour's next hop is not freed while a reader may hold it, and the
 * writer does not wait for the reader --- */
static volatile int reader_holding, reader_release, reader_released, reader_stop;
static volatile uint32_t reader_nh;

static void *reader(void *arg)
{
	rte_rcu_qsbr_thread_register(tp.qs, 0);
	rte_rcu_qsbr_thread_online(tp.qs, 0);
	reader_nh = lookup(0x0a000005); /* start of a read-side critical section */
	reader_holding = 1;
	while (!reader_release) /* a long burst */
		usleep(1000);
	reader_released = 1;
	rte_rcu_qsbr_quiescent(tp.qs, 0); /* end of it */
	while (!reader_stop) {
		rte_rcu_qsbr_quiescent(tp.qs, 0);
		usleep(100);
	}
	rte_rcu_qsbr_thread_offline(tp.qs, 0);
	rte_rcu_qsbr_thread_unregister(tp.qs, 0);
	return NULL;
}

static void test_rcu_reclamation_waits_for_reader(void **state)
{
	pthread_t t;
	int nh = tp_neigh_learn(0x0a000005, 1, mac_a);
	tp_route_host_update(0x0a000005, 1, nh);
	tp_rcu_reclaim(); /* what earlier tests left: no reader yet */
	assert_int_equal(tp_rcu_pending(), 0);
	unsigned int used = tp_nh_count();

	reader_holding = reader_release = reader_released = reader_stop = 0;
	assert_int_equal(pthread_create(&t, NULL, reader, NULL), 0);
	while (!reader_holding)
		usleep(1000);
	assert_int_equal(reader_nh, (uint32_t)nh);
	/* delete while the reader holds the id: returns at once, frees nothing yet */
	tp_neigh_learn(0x0a000005, 1, NULL);
	tp_route_host_update(0x0a000005, 1, -ENOENT);
	assert_false(reader_released);
	assert_int_equal(tp_rcu_reclaim(), 0);
	usleep(20 * 1000);
	assert_int_equal(tp_rcu_reclaim(), 0);
	assert_true(tp_nh_table[nh].in_use);
	assert_int_equal(tp_nh_count(), used);
	/* the reader's quiescent state ends the grace period */
	reader_release = 1;
	while (!reader_released)
		usleep(1000);
	for (int i = 0; i < 1000 && tp_rcu_pending(); i++) {
		tp_rcu_reclaim();
		usleep(1000);
	}
	assert_int_equal(tp_rcu_pending(), 0);
	assert_int_equal(tp_nh_count(), used - 1);
	assert_false(tp_nh_table[nh].in_use);
	reader_stop = 1;
	pthread_join(t, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nexthop_alloc_free),
	    cmocka_unit_test(test_neigh_learn_replace_forget),
	    cmocka_unit_test(test_neigh_flush_port_all),
	    cmocka_unit_test(test_routes_connected_gateway_local),
	    cmocka_unit_test(test_route_sweep),
	    cmocka_unit_test(test_kernel_host_route_precedence),
	    cmocka_unit_test(test_unfit_lpm_rules),
	    cmocka_unit_test(test_unfit_cover_moves),
	    cmocka_unit_test(test_unfit_lpm_tbl8),
	    cmocka_unit_test(test_unfit_nexthops),
	    cmocka_unit_test(test_paths_exact_delete),
	    cmocka_unit_test(test_rcu_reclamation_waits_for_reader),
	};
	if (tp_test_eal_init() < 0)
		return 1;
	return cmocka_run_group_tests_name("tables", tests, setup, teardown);
}
