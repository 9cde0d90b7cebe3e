/* SPDX-License-Identifier: BSD-3-Clause */
/* Data-plane lcores as the control plane sees them: receive-queue placement over the
 * lcores that receive, pinning, roles, rings in their consumers' lists, punt buckets
 * split over the lcores that receive a port, and a publish that cannot allocate
 * leaving what was published in place (and saying so). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "../../src/core/lcore.h"
#include "../../src/core/rcu.h"
#include "../../src/core/ring.h"
#include "../../src/core/tp.h"
#include "eal_fixture.h"

#define N 3

/* calloc that fails on demand (linked with --wrap=calloc) */
void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);
static int fail_calloc;
void *__wrap_calloc(size_t n, size_t size)
{
	if (fail_calloc)
		return NULL;
	return __real_calloc(n, size);
}

static const struct tp_lcore_conf *conf(unsigned int id)
{
	return __atomic_load_n(&tp.workers[id]->conf, __ATOMIC_ACQUIRE);
}

/* "port:queue" polled by lcore id, as a bit set of (port * 8 + queue) */
static uint64_t polled(unsigned int id)
{
	uint64_t set = 0;
	for (unsigned int i = 0; i < conf(id)->n_rxq; i++)
		set |= 1ull << (conf(id)->rxq[i].port * 8 + conf(id)->rxq[i].queue);
	return set;
}

#define Q(p, q) (1ull << ((p)*8 + (q)))

static int setup(void **state)
{
	tp.tsc_hz = 1000000000;
	for (unsigned int i = 0; i < N; i++) {
		tp.workers[i] = rte_zmalloc("w", sizeof(struct tp_worker), RTE_CACHE_LINE_SIZE);
		if (tp.workers[i] == NULL)
			return -1;
		tp.workers[i]->id = i;
		tp.workers[i]->lcore = 10 + i;
	}
	tp.n_workers = N;
	if (tp_rcu_init(N) < 0)
		return -1;
	tp_punt_rate_set(TP_PUNT_CLASSES, 20000, 100);
	return tp_lcores_publish();
}

static int teardown(void **state)
{
	tp_rcu_reclaim();
	return 0;
}

static void test_round_robin_and_pins(void **state)
{
	int16_t pin[4] = {TP_RXQ_AUTO, 2, TP_RXQ_AUTO, TP_RXQ_AUTO};

	assert_int_equal(tp_lcore_port_rxqs(0, 2, NULL), 0);
	assert_int_equal(polled(0), Q(0, 0));
	assert_int_equal(polled(1), Q(0, 1));
	assert_int_equal(polled(2), 0);
	/* the next port's queues go on where the last one's stopped */
	assert_int_equal(tp_lcore_port_rxqs(1, 4, pin), 0);
	assert_int_equal(polled(2),
			 Q(1, 0) | Q(1, 1)); /* auto q0 continues at lcore 2; q1 pinned */
	assert_int_equal(polled(0), Q(0, 0) | Q(1, 2));
	assert_int_equal(polled(1), Q(0, 1) | Q(1, 3));
	assert_int_equal(tp_lcore_rxq_owner(1, 1), 2);
	/* a pin to an lcore that does not exist */
	assert_int_equal(tp_lcore_pin_rxq(1, 0, 7), -EINVAL);
	assert_int_equal(tp_lcore_pin_rxq(1, 9, 0), -ENOENT);
	/* the port goes */
	assert_int_equal(tp_lcore_port_rxqs(1, 0, NULL), 0);
	assert_int_equal(polled(2), 0);
	assert_int_equal(tp_lcore_port_rxqs(0, 0, NULL), 0);
}

static void test_roles(void **state)
{
	assert_int_equal(tp_lcore_port_rxqs(0, 3, NULL), 0);
	assert_int_equal(tp_lcore_set_role(1, TP_ROLE_FORWARDING), 0);
	assert_int_equal(conf(1)->role, TP_ROLE_FORWARDING);
	/* a forwarding lcore receives nothing: the queues go to the others */
	assert_int_equal(polled(1), 0);
	assert_int_equal(polled(0) | polled(2), Q(0, 0) | Q(0, 1) | Q(0, 2));
	/* pinning to it is refused, and so is taking the role from an lcore with pins */
	assert_int_equal(tp_lcore_pin_rxq(0, 0, 1), -EBUSY);
	assert_int_equal(tp_lcore_pin_rxq(0, 0, 2), 0);
	assert_int_equal(tp_lcore_set_role(2, TP_ROLE_OUTPUT), -EBUSY);
	assert_int_equal(tp_lcore_pin_rxq(0, 0, TP_RXQ_AUTO), 0);
	assert_int_equal(tp_lcore_set_role(2, TP_ROLE_INPUT), 0);
	assert_int_equal(tp_lcore_set_role(1, TP_ROLE_WORKER), 0);
	assert_int_equal(tp_role_parse("output"), TP_ROLE_OUTPUT);
	assert_int_equal(tp_role_parse("outputs"), -EINVAL);
	assert_int_equal(tp_lcore_set_role(2, TP_ROLE_WORKER), 0);
	assert_int_equal(tp_lcore_port_rxqs(0, 0, NULL), 0);
}

static void ring_fn(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n, void *ctx)
{
}

static void test_rings_in_consumer_lists(void **state)
{
	struct tp_ring *a = tp_ring_create("a", "test", 64, 2, 0, ring_fn, NULL);
	struct tp_ring *b = tp_ring_create("b", "test", 64, 2, 0, ring_fn, NULL);

	assert_non_null(a);
	assert_non_null(b);
	assert_null(tp_ring_create("a", "test", 64, 1, 0, ring_fn, NULL));
	assert_int_equal(rte_errno, EEXIST);
	assert_null(tp_ring_create("c", "test", 63, 1, 0, ring_fn, NULL)); /* not a power of 2 */
	assert_int_equal(rte_errno, EINVAL);
	assert_null(tp_ring_create("c", "test", 64, N, 0, ring_fn, NULL)); /* no such lcore */
	assert_int_equal(conf(2)->n_rings, 2);
	assert_int_equal(conf(0)->n_rings, 0);
	assert_ptr_equal(tp_ring_find("b"), b);
	assert_int_equal(tp_ring_delete(a), 0);
	assert_int_equal(conf(2)->n_rings, 1);
	assert_ptr_equal(conf(2)->rings[0], b);
	assert_int_equal(tp_ring_delete(a), -ENOENT);
	assert_int_equal(tp_ring_delete(b), 0);
	assert_int_equal(conf(2)->n_rings, 0);
	tp_rcu_reclaim(); /* no reader here: the rings are freed now */
}

static void test_punt_rates_split_over_receivers(void **state)
{
	assert_int_equal(tp_lcore_port_rxqs(0, 2, NULL), 0); /* two lcores receive port 0 */
	assert_int_equal(tp_lcore_port_rxqs(1, 1, NULL), 0); /* one receives port 1 */
	/* 20,000 pps per port and class: 10,000 each for port 0, 20,000 for port 1 */
	assert_int_equal(tp.workers[0]->tb[0][TP_PUNT_OTHER].cost, 100000);
	assert_int_equal(tp.workers[0]->tb[1][TP_PUNT_CONTROL].cost, 50000);
	tp_punt_rate_set(TP_PUNT_CONTROL, 40000, 10);
	assert_int_equal(tp.workers[1]->tb[0][TP_PUNT_CONTROL].cost, 50000);
	assert_int_equal(tp.workers[1]->tb[0][TP_PUNT_CONTROL].max_tokens, 500000);
	assert_int_equal(tp.workers[1]->tb[0][TP_PUNT_OTHER].cost, 100000);
	tp_punt_rate_set(TP_PUNT_CLASSES, 20000, 100);
	assert_int_equal(tp_lcore_port_rxqs(0, 0, NULL), 0);
	assert_int_equal(tp_lcore_port_rxqs(1, 0, NULL), 0);
}

/* No memory for the new lists: nothing changes, and the caller is told. */
static void test_failed_publish_changes_nothing(void **state)
{
	const struct tp_lcore_conf *before[N];

	assert_int_equal(tp_lcore_port_rxqs(0, 2, NULL), 0);
	for (unsigned int i = 0; i < N; i++)
		before[i] = conf(i);
	fail_calloc = 1;
	assert_int_equal(tp_lcore_port_rxqs(0, 0, NULL), -ENOMEM); /* removing the port */
	assert_int_equal(tp_lcore_set_role(0, TP_ROLE_OUTPUT), -ENOMEM);
	fail_calloc = 0;
	for (unsigned int i = 0; i < N; i++)
		assert_ptr_equal(conf(i), before[i]);
	assert_int_equal(tp_lcore_role(0), TP_ROLE_WORKER);
	assert_int_equal(tp_lcore_rxq_owner(0, 1), 1); /* the port is still polled */
	assert_int_equal(tp_lcore_port_rxqs(0, 0, NULL), 0);
	assert_int_equal(tp_lcore_rxq_owner(0, 1), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_robin_and_pins),
	    cmocka_unit_test(test_roles),
	    cmocka_unit_test(test_rings_in_consumer_lists),
	    cmocka_unit_test(test_punt_rates_split_over_receivers),
	    cmocka_unit_test(test_failed_publish_changes_nothing),
	};
	if (tp_test_eal_init() < 0)
		return 1;
	return cmocka_run_group_tests_name("lcore", tests, setup, teardown);
}
