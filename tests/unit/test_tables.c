/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared tables: next hops, neighbours, routes; RCU reclamation with a live reader. */
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
#include "../../src/tables/neigh.h"
#include "../../src/tables/nexthop.h"
#include "../../src/tables/route.h"
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
	    cmocka_unit_test(test_routes_connected_gateway_local),
	    cmocka_unit_test(test_route_sweep),
	    cmocka_unit_test(test_kernel_host_route_precedence),
	    cmocka_unit_test(test_rcu_reclamation_waits_for_reader),
	};
	if (tp_test_eal_init() < 0)
		return 1;
	return cmocka_run_group_tests_name("tables", tests, setup, teardown);
}
