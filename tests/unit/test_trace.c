/* SPDX-License-Identifier: BSD-3-Clause */
/* The per-lcore trace buffer (core/trace_buf.h): first in first out, bounded (a full
 * buffer refuses and counts), wrapping, and one producer thread with one consumer
 * thread losing nothing it did not count. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "../../src/core/trace_buf.h"

static struct tp_trace_buf *new_buf(void)
{
	struct tp_trace_buf *b = aligned_alloc(64, sizeof(*b));

	assert_non_null(b);
	memset(b, 0, sizeof(*b));
	return b;
}

static struct tp_trace_ent ent(uint32_t id)
{
	struct tp_trace_ent e = {.id = id, .type = TP_TRACE_STAGE, .len = id * 3};

	e.snap[0] = (uint8_t)id;
	e.snap[TP_TRACE_SNAP - 1] = (uint8_t)(id >> 8);
	return e;
}

static void test_fifo_and_empty(void **state)
{
	struct tp_trace_buf *b = new_buf();
	struct tp_trace_ent out[8];

	assert_int_equal(tp_trace_buf_get(b, out, 8), 0);
	for (uint32_t i = 1; i <= 5; i++) {
		struct tp_trace_ent e = ent(i);
		assert_true(tp_trace_buf_put(b, &e));
	}
	assert_int_equal(tp_trace_buf_get(b, out, 3), 3);
	for (uint32_t i = 0; i < 3; i++) {
		assert_int_equal(out[i].id, i + 1);
		assert_int_equal(out[i].len, (i + 1) * 3);
		assert_int_equal(out[i].snap[0], i + 1);
	}
	assert_int_equal(tp_trace_buf_get(b, out, 8), 2);
	assert_int_equal(out[0].id, 4);
	assert_int_equal(out[1].id, 5);
	assert_int_equal(tp_trace_buf_get(b, out, 8), 0);
	assert_int_equal(b->full, 0);
	free(b);
}

/* Full: the entry is refused and counted, what is in stays; room again once read. */
static void test_full_refuses_and_counts(void **state)
{
	struct tp_trace_buf *b = new_buf();
	struct tp_trace_ent out[64];
	unsigned int got = 0, n;

	for (uint32_t i = 0; i < TP_TRACE_ENTRIES; i++) {
		struct tp_trace_ent e = ent(i + 1);
		assert_true(tp_trace_buf_put(b, &e));
	}
	for (uint32_t i = 0; i < 10; i++) {
		struct tp_trace_ent e = ent(999999);
		assert_false(tp_trace_buf_put(b, &e));
	}
	assert_int_equal(b->full, 10);
	assert_null(tp_trace_buf_slot(b));
	assert_int_equal(b->full, 11);
	while ((n = tp_trace_buf_get(b, out, 64)) > 0) {
		for (unsigned int i = 0; i < n; i++)
			assert_int_equal(out[i].id, got + i + 1);
		got += n;
	}
	assert_int_equal(got, TP_TRACE_ENTRIES);
	struct tp_trace_ent e = ent(7);
	assert_true(tp_trace_buf_put(b, &e));
	free(b);
}

/* Head and tail run past the ring many times (and past 2^32 through wrap-around of the
 * unsigned difference): order kept. */
static void test_wraps(void **state)
{
	struct tp_trace_buf *b = new_buf();
	struct tp_trace_ent out[100];
	uint32_t next = 1, expect = 1;

	b->head = b->tail = UINT32_MAX - 1000; /* the counters wrap during the test */
	for (unsigned int round = 0; round < 200; round++) {
		for (unsigned int i = 0; i < 77; i++) {
			struct tp_trace_ent e = ent(next++);
			assert_true(tp_trace_buf_put(b, &e));
		}
		unsigned int n = tp_trace_buf_get(b, out, 100);
		assert_int_equal(n, 77);
		for (unsigned int i = 0; i < n; i++)
			assert_int_equal(out[i].id, expect++);
	}
	assert_int_equal(b->full, 0);
	free(b);
}

#define SPSC_N 2000000u

static void *producer(void *arg)
{
	struct tp_trace_buf *b = arg;

	for (uint32_t i = 1; i <= SPSC_N; i++) {
		struct tp_trace_ent e = ent(i);
		tp_trace_buf_put(b, &e); /* refused when full: counted */
	}
	return NULL;
}

/* An lcore writing while the control plane reads: every entry read is whole and in
 * order, and read + refused = written. */
static void test_spsc_threads(void **state)
{
	struct tp_trace_buf *b = new_buf();
	static struct tp_trace_ent out[256];
	uint64_t read = 0;
	uint32_t last = 0;
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, producer, b), 0);
	for (;;) {
		unsigned int n = tp_trace_buf_get(b, out, 256);
		for (unsigned int i = 0; i < n; i++) {
			assert_true(out[i].id > last);
			assert_int_equal(out[i].len, out[i].id * 3);
			assert_int_equal(out[i].snap[0], (uint8_t)out[i].id);
			assert_int_equal(out[i].snap[TP_TRACE_SNAP - 1], (uint8_t)(out[i].id >> 8));
			last = out[i].id;
		}
		read += n;
		if (n == 0 && last == SPSC_N)
			break;
		if (n == 0 && read + __atomic_load_n(&b->full, __ATOMIC_ACQUIRE) == SPSC_N &&
		    __atomic_load_n(&b->head, __ATOMIC_ACQUIRE) == b->tail)
			break;
	}
	pthread_join(t, NULL);
	read += tp_trace_buf_get(b, out, 256);
	assert_int_equal(read + b->full, SPSC_N);
	assert_true(read > 0);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fifo_and_empty),
	    cmocka_unit_test(test_full_refuses_and_counts),
	    cmocka_unit_test(test_wraps),
	    cmocka_unit_test(test_spsc_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
