/* SPDX-License-Identifier: BSD-3-Clause */
/* The IPv6 route table: adds, replaces, exact deletes, routes that do not fit, and its
 * RCU guarantee with live readers: a reader's copy does not change under it, the
 * writer never waits, and a released next hop is handed back only once no copy
 * refers to it. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <rte_lpm6.h>
#include <rte_rcu_qsbr.h>

#include "../../src/core/rcu.h"
#include "../../src/core/tp.h"
#include "../../src/nf/ip4/control/nexthop.h"
#include "../../src/nf/ip6/control/route6.h"
#include "eal_fixture.h"

/* 2001:db8:a:b::c (RFC 3849 documentation prefix) */
static void addr(uint8_t ip[16], uint16_t a, uint16_t b, uint16_t c, uint16_t d, uint16_t last)
{
	memset(ip, 0, 16);
	ip[0] = 0x20, ip[1] = 0x01, ip[2] = 0x0d, ip[3] = 0xb8;
	ip[4] = (uint8_t)(a >> 8), ip[5] = (uint8_t)a;
	ip[6] = (uint8_t)(b >> 8), ip[7] = (uint8_t)b;
	ip[8] = (uint8_t)(c >> 8), ip[9] = (uint8_t)c;
	ip[10] = (uint8_t)(d >> 8), ip[11] = (uint8_t)d;
	ip[14] = (uint8_t)(last >> 8), ip[15] = (uint8_t)last;
}

/* the next hop lpm gives ip, or -1 for none */
static int64_t lookup_in(const struct rte_lpm6 *lpm, const uint8_t ip[16])
{
	uint32_t nh;

	return rte_lpm6_lookup(lpm, ip, &nh) == 0 ? (int64_t)nh : -1;
}

static int64_t lookup(const uint8_t ip[16])
{
	return lookup_in(tp_route6_reader(), ip);
}

/* next hops handed back by the table, in order */
static uint32_t released[64];
static unsigned int n_released;

static void on_release(uint32_t nh)
{
	if (n_released < RTE_DIM(released))
		released[n_released] = nh;
	n_released++;
}

static void settle(void)
{
	for (int i = 0; i < 1000 && tp_route6_pending(); i++) {
		tp_route6_poll();
		usleep(100);
	}
	assert_int_equal(tp_route6_pending(), 0);
}

static int setup(void **state)
{
	if (tp_rcu_init(1) < 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	tp_rcu_fini();
	return 0;
}

static int table_setup(void **state)
{
	n_released = 0;
	return tp_route6_init(tp.qs, 64, 4096, on_release) < 0 ? -1 : 0;
}

static int table_teardown(void **state)
{
	tp_route6_fini();
	return 0;
}

/* Longest prefix match, a replace, exact deletes; each change releases the next hop it
 * dropped once both copies have it; the copies end equal. */
static void test_add_replace_delete(void **state)
{
	uint8_t p32[16], p48[16], a[16], b[16];

	addr(p32, 0, 0, 0, 0, 0);
	addr(p48, 1, 0, 0, 0, 0);
	addr(a, 1, 2, 0, 0, 1); /* in the /48 */
	addr(b, 2, 0, 0, 0, 1); /* in the /32 only */
	assert_int_equal(tp_route6_add(p32, 32, 7), 0);
	assert_int_equal(tp_route6_add(p48, 48, 9), 0);
	settle();
	assert_int_equal(lookup(a), 9);
	assert_int_equal(lookup(b), 7);
	assert_int_equal(tp_route6_count(), 2);
	/* host bits are masked: 2001:db8:1::5/48 is 2001:db8:1::/48 */
	assert_non_null(tp_route6_find(a, 48));
	assert_int_equal(tp_route6_find(a, 48)->nh, 9);
	assert_true(tp_route6_find(a, 48)->fit);
	/* replace: the old next hop comes back once, after both copies */
	assert_int_equal(tp_route6_add(p48, 48, 11), 0);
	settle();
	assert_int_equal(lookup(a), 11);
	assert_int_equal(n_released, 1);
	assert_int_equal(released[0], 9);
	/* the same next hop again: nothing changes, nothing released */
	assert_int_equal(tp_route6_add(p48, 48, 11), 0);
	settle();
	assert_int_equal(n_released, 1);
	/* exact deletes: a length that is not there is not the /32 */
	assert_int_equal(tp_route6_del(p48, 40), -ENOENT);
	assert_int_equal(tp_route6_del(p48, 48), 0);
	assert_int_equal(tp_route6_del(p48, 48), -ENOENT);
	settle();
	assert_int_equal(lookup(a), 7);
	assert_int_equal(n_released, 2);
	assert_int_equal(released[1], 11);
	assert_int_equal(tp_route6_count(), 1);
	/* both copies answer the same */
	tp_route6_add(p48, 48, 3);
	settle();
	const struct rte_lpm6 *one = tp_route6_reader();
	tp_route6_add(b, 128, 4);
	settle();
	assert_ptr_not_equal(one, tp_route6_reader());
	assert_int_equal(lookup_in(one, a), 3);
	assert_int_equal(lookup(a), 3);
	assert_int_equal(lookup_in(one, b), 4);
	assert_int_equal(lookup(b), 4);
	/* bad input */
	assert_int_equal(tp_route6_add(p32, 0, 1), -EINVAL);
	assert_int_equal(tp_route6_add(p32, 129, 1), -EINVAL);
	assert_int_equal(tp_route6_add(p32, 32, 1u << 21), -EINVAL);
}

/* A table of 64 rules: the 65th route is in the index, marked unfit, and not in either
 * copy (tp_route6_retry tries it again: test_unfit_retried), and the copies stay
 * equal. */
static void test_unfit(void **state)
{
	uint8_t p[16];

	for (uint16_t i = 0; i < 65; i++) {
		addr(p, i, 0, 0, 0, 0);
		assert_int_equal(tp_route6_add(p, 48, 100 + i), 0);
	}
	settle();
	assert_int_equal(tp_route6_count(), 65);
	assert_int_equal(tp_route6_stats.unfit, 1);
	addr(p, 64, 0, 0, 0, 0);
	assert_true(tp_route6_find(p, 48)->unfit);
	assert_false(tp_route6_find(p, 48)->fit);
	assert_int_equal(lookup(p), -1);
	const struct rte_lpm6 *one = tp_route6_reader();
	tp_route6_add(p, 128, 5); /* also unfit: switches the published copy */
	settle();
	assert_int_equal(lookup_in(one, p), -1);
	addr(p, 63, 0, 0, 0, 1);
	assert_int_equal(lookup_in(one, p), 163);
	assert_int_equal(lookup(p), 163);
}

/* 3f<i>::/16, outside 2001:db8::/32: routes that only fill the table */
static void filler(uint8_t ip[16], uint16_t i)
{
	memset(ip, 0, 16);
	ip[0] = 0x3f, ip[1] = (uint8_t)i;
}

/* A route that does not fit has its cover (the longest fitting route over it) punt:
 * the cover's rule holds TP_NH_UNFIT in both copies while it covers one, so the
 * kernel, which has every route, forwards their packets (the cover's own too). A
 * replaced cover keeps punting; a closer route that fits takes the unfit route over;
 * a deleted cover hands it to the next one; the unfit route deleted, its cover
 * forwards again. Without the covers, 2001:db8:1::1 would follow 2001:db8::/32. */
static void test_unfit_punts_through_cover(void **state)
{
	uint8_t c32[16], d40[16], r48[16], in_r[16], in_c[16], in_d[16], p[16];

	addr(c32, 0, 0, 0, 0, 0);
	addr(d40, 0, 0, 0, 0, 0);
	addr(r48, 1, 0, 0, 0, 0);
	addr(in_r, 1, 0, 0, 0, 1);
	addr(in_d, 2, 0, 0, 0, 1);	/* in the /40 and the /32 */
	addr(in_c, 0xff00, 0, 0, 0, 1); /* in the /32 only */
	assert_int_equal(tp_route6_add(c32, 32, 7), 0);
	for (uint16_t i = 0; i < 63; i++) {
		filler(p, i);
		assert_int_equal(tp_route6_add(p, 16, 200 + i), 0);
	}
	assert_int_equal(tp_route6_add(r48, 48, 9), 0); /* the 65th rule */
	settle();
	assert_true(tp_route6_find(r48, 48)->unfit);
	assert_ptr_equal(tp_route6_find(r48, 48)->cover, tp_route6_find(c32, 32));
	assert_int_equal(tp_route6_find(c32, 32)->unfit_below, 1);
	assert_int_equal(lookup(in_r), TP_NH_UNFIT);
	assert_int_equal(lookup(in_c), TP_NH_UNFIT);

	/* the cover replaced: it punts still, in both copies; its old next hop comes back */
	const struct rte_lpm6 *one = tp_route6_reader();
	assert_int_equal(tp_route6_add(c32, 32, 8), 0);
	settle();
	assert_ptr_not_equal(one, tp_route6_reader());
	assert_int_equal(lookup_in(one, in_r), TP_NH_UNFIT);
	assert_int_equal(lookup(in_r), TP_NH_UNFIT);
	assert_int_equal(tp_route6_find(c32, 32)->nh, 8);
	assert_int_equal(n_released, 1);
	assert_int_equal(released[0], 7);

	/* a closer route that fits takes it over; the /32 forwards again */
	filler(p, 0);
	assert_int_equal(tp_route6_del(p, 16), 0);
	assert_int_equal(tp_route6_add(d40, 40, 11), 0);
	settle();
	assert_ptr_equal(tp_route6_find(r48, 48)->cover, tp_route6_find(d40, 40));
	assert_int_equal(tp_route6_find(c32, 32)->unfit_below, 0);
	assert_int_equal(lookup(in_c), 8);
	assert_int_equal(lookup(in_d), TP_NH_UNFIT);
	assert_int_equal(lookup(in_r), TP_NH_UNFIT);

	/* that route deleted: the /32 covers it again */
	assert_int_equal(tp_route6_del(d40, 40), 0);
	settle();
	assert_ptr_equal(tp_route6_find(r48, 48)->cover, tp_route6_find(c32, 32));
	assert_int_equal(lookup(in_c), TP_NH_UNFIT);
	assert_int_equal(lookup(in_r), TP_NH_UNFIT);

	/* the unfit route deleted: its cover forwards */
	assert_int_equal(tp_route6_del(r48, 48), 0);
	settle();
	assert_int_equal(tp_route6_find(c32, 32)->unfit_below, 0);
	assert_int_equal(lookup(in_r), 8);
	assert_int_equal(lookup(in_c), 8);

	/* unfit again (the table full again), then its cover deleted: no route left over
	 * it, its packets find none and go to the kernel */
	assert_int_equal(tp_route6_add(p, 16, 200), 0);
	assert_int_equal(tp_route6_add(r48, 48, 9), 0);
	settle();
	assert_true(tp_route6_find(r48, 48)->unfit);
	assert_int_equal(lookup(in_r), TP_NH_UNFIT);
	assert_int_equal(tp_route6_del(c32, 32), 0);
	settle();
	assert_null(tp_route6_find(r48, 48)->cover);
	assert_int_equal(lookup(in_r), -1);
	assert_int_equal(lookup(in_c), -1);
	assert_int_equal(tp_route6_stats.cover_lost, 0);
}

/* Unfit routes tried again, as ip4's (tp_route_retry): a retry with no room changes
 * nothing (counted as a retry, not as a new unfit); a delete of a route with a rule
 * asks for a retry, that of an unfit one does not; the retry goes round the list from
 * where the last stopped (u0 tried first without room, then u1 gets the rule); the
 * route that fits leaves the list and its cover forwards again in both copies. */
static void test_unfit_retried(void **state)
{
	uint8_t c32[16], u0[16], u1[16], in_u0[16], in_u1[16], in_c[16], p[16];

	addr(c32, 0, 0, 0, 0, 0);
	addr(u0, 1, 0, 0, 0, 0);
	addr(u1, 2, 0, 0, 0, 0);
	addr(in_u0, 1, 0, 0, 0, 1);
	addr(in_u1, 2, 0, 0, 0, 1);
	addr(in_c, 0xff00, 0, 0, 0, 1);
	assert_int_equal(tp_route6_add(c32, 32, 7), 0);
	for (uint16_t i = 0; i < 63; i++) {
		filler(p, i);
		assert_int_equal(tp_route6_add(p, 16, 200 + i), 0);
	}
	assert_int_equal(tp_route6_add(u0, 48, 9), 0); /* the 65th and 66th rules */
	assert_int_equal(tp_route6_add(u1, 48, 10), 0);
	settle();
	assert_int_equal(tp_route6_unfit_count(), 2);
	assert_int_equal(tp_route6_stats.unfit, 2);
	assert_false(tp_route6_retry_wanted());
	assert_int_equal(lookup(in_u1), TP_NH_UNFIT);

	/* no room: u0 (the first in the list) tried, still unfit, not counted again */
	assert_int_equal(tp_route6_retry(1), 1);
	settle();
	assert_true(tp_route6_find(u0, 48)->unfit);
	assert_int_equal(tp_route6_stats.retries, 1);
	assert_int_equal(tp_route6_stats.refit, 0);
	assert_int_equal(tp_route6_stats.unfit, 2);
	assert_int_equal(lookup(in_u0), TP_NH_UNFIT);

	/* room for one: the next in turn, u1, gets it; the /32 still punts for u0 */
	filler(p, 0);
	assert_int_equal(tp_route6_del(p, 16), 0);
	assert_true(tp_route6_retry_wanted());
	const struct rte_lpm6 *one = tp_route6_reader();
	assert_int_equal(tp_route6_retry(1), 1);
	assert_false(tp_route6_retry_wanted());
	settle();
	assert_true(tp_route6_find(u1, 48)->fit);
	assert_false(tp_route6_find(u1, 48)->unfit);
	assert_true(tp_route6_find(u0, 48)->unfit);
	assert_int_equal(tp_route6_unfit_count(), 1);
	assert_int_equal(tp_route6_stats.refit, 1);
	assert_int_equal(tp_route6_stats.retries, 2);
	assert_int_equal(lookup(in_u1), 10);
	assert_int_equal(lookup_in(one, in_u1), 10);
	assert_int_equal(lookup(in_u0), TP_NH_UNFIT);
	assert_int_equal(tp_route6_find(c32, 32)->unfit_below, 1);

	/* an unfit route deleted frees no room; a fitting one does, and u0 gets it: the
	 * /32 forwards again, in both copies */
	addr(p, 3, 0, 0, 0, 0);
	assert_int_equal(tp_route6_add(p, 48, 11), 0);
	settle();
	assert_int_equal(tp_route6_unfit_count(), 2);
	assert_int_equal(tp_route6_del(p, 48), 0);
	assert_false(tp_route6_retry_wanted());
	settle();
	filler(p, 1);
	assert_int_equal(tp_route6_del(p, 16), 0);
	assert_int_equal(tp_route6_retry(256), 1);
	settle();
	assert_int_equal(tp_route6_unfit_count(), 0);
	assert_int_equal(tp_route6_find(c32, 32)->unfit_below, 0);
	assert_int_equal(lookup(in_u0), 9);
	assert_int_equal(lookup(in_c), 7);
	assert_int_equal(lookup_in(one, in_u0), 9);
	assert_int_equal(lookup_in(one, in_c), 7);
	assert_int_equal(tp_route6_stats.refit, 2);
	assert_int_equal(tp_route6_stats.cover_lost, 0);
}

/* --- RCU: a reader's copy does not change under it, the writer does not wait --- */
static volatile int reader_holding, reader_release, reader_released, reader_stop;
static const struct rte_lpm6 *volatile held;

static void *reader(void *arg)
{
	rte_rcu_qsbr_thread_register(tp.qs, 0);
	rte_rcu_qsbr_thread_online(tp.qs, 0);
	held = tp_route6_reader(); /* start of a read-side critical section (a burst) */
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

/* The reader holds the published copy through changes that, written in place, would
 * change what it reads (an add under its covering route, then that route's delete
 * and a new one that takes tbl8 groups): it keeps reading the table as it was, each
 * change returns at once, and the next hop the delete dropped comes back only after
 * the reader's quiescent state. Written in place (one copy), the first lookup below on
 * the held copy would give 9, not 7. */
static void test_reader_keeps_its_copy(void **state)
{
	uint8_t p32[16], p48[16], q[16], a[16], c[16];
	pthread_t t;

	addr(p32, 0, 0, 0, 0, 0);
	addr(p48, 1, 0, 0, 0, 0);
	addr(q, 3, 4, 5, 6, 0);
	addr(a, 1, 2, 0, 0, 1);
	addr(c, 3, 4, 5, 6, 1);
	assert_int_equal(tp_route6_add(p32, 32, 7), 0);
	settle();

	reader_holding = reader_release = reader_released = reader_stop = 0;
	assert_int_equal(pthread_create(&t, NULL, reader, NULL), 0);
	while (!reader_holding)
		usleep(1000);
	assert_int_equal(lookup_in(held, a), 7);

	/* the spare is free: the add is published at once, the held copy unchanged */
	assert_int_equal(tp_route6_add(p48, 48, 9), 0);
	assert_int_equal(lookup(a), 9);
	assert_ptr_not_equal(tp_route6_reader(), held);
	assert_int_equal(lookup_in(held, a), 7);
	/* the held copy is the spare now, in its grace period: these wait in the log */
	assert_int_equal(tp_route6_del(p48, 48), 0);
	assert_int_equal(tp_route6_add(q, 64, 12), 0);
	assert_int_equal(tp_route6_unpublished(), 2);
	usleep(20 * 1000);
	assert_int_equal(tp_route6_poll(), 0);
	assert_true(tp_route6_stats.deferred > 0);
	assert_false(reader_released);
	assert_int_equal(lookup_in(held, a), 7);
	assert_int_equal(lookup_in(held, c), 7);
	assert_int_equal(lookup(a), 9);
	assert_int_equal(n_released, 0);

	/* the reader's quiescent state ends the grace period: the log goes in */
	reader_release = 1;
	while (!reader_released)
		usleep(1000);
	settle();
	assert_int_equal(tp_route6_unpublished(), 0);
	assert_int_equal(lookup(a), 7);
	assert_int_equal(lookup(c), 12);
	assert_int_equal(n_released, 1);
	assert_int_equal(released[0], 9);
	reader_stop = 1;
	pthread_join(t, NULL);
}

/* --- under load: a reader looks up without pause while the writer churns --- */
#define CHURN 24
static volatile int stress_stop;
static volatile uint64_t stress_lookups, stress_bad;

/* Every address the reader checks has a covering /32 (next hop 7) that never goes and
 * a /48 (100 + i) or /120 (300 + i) that comes and goes: any other answer, or none, is
 * a torn read. */
static void *stress_reader(void *arg)
{
	uint8_t ip[16];

	rte_rcu_qsbr_thread_register(tp.qs, 0);
	rte_rcu_qsbr_thread_online(tp.qs, 0);
	while (!stress_stop) {
		const struct rte_lpm6 *lpm = tp_route6_reader();
		for (uint16_t i = 0; i < CHURN; i++) {
			addr(ip, i, 0, 0, 0, 1);
			int64_t nh = lookup_in(lpm, ip);
			if (nh != 7 && nh != 100 + i && nh != 300 + i)
				stress_bad++;
			stress_lookups++;
		}
		rte_rcu_qsbr_quiescent(tp.qs, 0);
	}
	rte_rcu_qsbr_thread_offline(tp.qs, 0);
	rte_rcu_qsbr_thread_unregister(tp.qs, 0);
	return NULL;
}

static void test_stress_reader_writer(void **state)
{
	uint8_t p32[16], p[16];
	pthread_t t;

	addr(p32, 0, 0, 0, 0, 0);
	assert_int_equal(tp_route6_add(p32, 32, 7), 0);
	settle();
	stress_stop = 0;
	stress_lookups = stress_bad = 0;
	assert_int_equal(pthread_create(&t, NULL, stress_reader, NULL), 0);
	for (unsigned int round = 0; round < 300; round++) {
		for (uint16_t i = 0; i < CHURN; i++) {
			addr(p, i, 0, 0, 0, 0);
			if ((round + i) % 2)
				tp_route6_add(p, 48, 100 + i);
			else
				tp_route6_del(p, 48);
			addr(p, i, 0, 0, 0, 1);
			if ((round + i) % 3)
				tp_route6_add(p, 120, 300 + i);
			else
				tp_route6_del(p, 120);
		}
		tp_route6_poll();
		usleep(200);
	}
	settle();
	stress_stop = 1;
	pthread_join(t, NULL);
	print_message("%lu lookups, %lu publishes, %lu polls deferred, log at most %lu\n",
		      (unsigned long)stress_lookups, (unsigned long)tp_route6_stats.publishes,
		      (unsigned long)tp_route6_stats.deferred,
		      (unsigned long)tp_route6_stats.log_max);
	assert_true(stress_lookups > 0);
	assert_int_equal(stress_bad, 0);
	/* what round 299 left: the /32, the /48s with (299 + i) odd, the /120s with
	 * (299 + i) % 3 != 0 */
	unsigned int want = 1;
	for (unsigned int i = 0; i < CHURN; i++)
		want += (299 + i) % 2 + ((299 + i) % 3 != 0);
	assert_int_equal(tp_route6_count(), want);
	addr(p, 0, 0, 0, 0, 1);
	assert_int_equal(lookup(p), 300); /* (299 + 0) % 3 != 0: its /120 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_add_replace_delete, table_setup, table_teardown),
	    cmocka_unit_test_setup_teardown(test_unfit, table_setup, table_teardown),
	    cmocka_unit_test_setup_teardown(test_unfit_punts_through_cover, table_setup,
					    table_teardown),
	    cmocka_unit_test_setup_teardown(test_unfit_retried, table_setup, table_teardown),
	    cmocka_unit_test_setup_teardown(test_reader_keeps_its_copy, table_setup,
					    table_teardown),
	    cmocka_unit_test_setup_teardown(test_stress_reader_writer, table_setup, table_teardown),
	};
	if (tp_test_eal_init() < 0)
		return 1;
	return cmocka_run_group_tests_name("ip6_tables", tests, setup, teardown);
}
