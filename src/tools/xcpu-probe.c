/* SPDX-License-Identifier: BSD-3-Clause */
/* tp-xcpu-probe: how long a cache line takes to travel between two CPUs and back.
 *
 * On this project's machines (KVM guests) the host moves the two vCPUs between
 * places that share a cache and places that do not, every minute or so, and a
 * benchmark whose DUT and generator exchange packets through shared memory (memif)
 * pays that transfer for every frame: the DUT's cycles per packet move by 3x with
 * it. The benchmarks run this probe next to their trials so the report can say in
 * which placement each trial ran (python/twinplane/bench/duts.py: xcpu_probe).
 *
 *   tp-xcpu-probe [CPU_A CPU_B [ROUNDS [BLOCKS]]]
 *
 * Two threads pinned to CPU_A and CPU_B hand one cache line back and forth ROUNDS
 * times per block; the output is one JSON line: the median and the lowest block's
 * nanoseconds per round trip (two transfers), and each block's. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../proto/json.h"
#include "../proto/parse.h"

#define MAX_BLOCKS 64

static _Alignas(64) atomic_uint flag;
static _Alignas(64) atomic_int ready; /* the responder: 1 pinned and waiting, -1 not pinned */
static unsigned rounds = 2000, blocks = 9;

static int pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return pthread_setaffinity_np(pthread_self(), sizeof(s), &s);
}

static int parse(const char *s, const char *what, unsigned lo, unsigned hi, unsigned *out)
{
	uint64_t v;

	if (tp_parse_u64(s, lo, hi, &v) < 0) {
		fprintf(stderr, "tp-xcpu-probe: %s '%s': want an integer %u..%u\n", what, s, lo,
			hi);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

static void *responder(void *arg)
{
	unsigned total = rounds * blocks;

	if (pin(*(int *)arg) != 0) {
		atomic_store(&ready, -1);
		return NULL;
	}
	atomic_store(&ready, 1);
	for (unsigned i = 0; i < total; i++) {
		while (atomic_load_explicit(&flag, memory_order_acquire) != 2 * i + 1)
			;
		atomic_store_explicit(&flag, 2 * i + 2, memory_order_release);
	}
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	unsigned a = 0, b = 1, i = 0;
	double ns[MAX_BLOCKS], sorted[MAX_BLOCKS];
	pthread_t t;
	int cpu_b;

	if (argc > 5 || (argc > 1 && argc < 3)) {
		fprintf(stderr, "usage: tp-xcpu-probe [CPU_A CPU_B [ROUNDS [BLOCKS]]]\n");
		return 2;
	}
	if (argc >= 3 && (parse(argv[1], "CPU_A", 0, CPU_SETSIZE - 1, &a) < 0 ||
			  parse(argv[2], "CPU_B", 0, CPU_SETSIZE - 1, &b) < 0))
		return 2;
	if (argc >= 4 && parse(argv[3], "ROUNDS", 1, 10000000, &rounds) < 0)
		return 2;
	if (argc >= 5 && parse(argv[4], "BLOCKS", 1, MAX_BLOCKS, &blocks) < 0)
		return 2;
	if (a == b) {
		fprintf(stderr, "tp-xcpu-probe: CPU_A and CPU_B are both %u\n", a);
		return 2;
	}
	if (pin((int)a) != 0) {
		fprintf(stderr, "tp-xcpu-probe: cannot run on CPU %u\n", a);
		return 1;
	}
	cpu_b = (int)b;
	/* the responder starts on CPU_B: under SCHED_FIFO it would otherwise wait behind
	 * this thread's spin on CPU_A forever */
	pthread_attr_t attr;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(b, &set);
	pthread_attr_init(&attr);
	pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	if (pthread_create(&t, &attr, responder, &cpu_b) != 0) {
		fprintf(stderr, "tp-xcpu-probe: cannot start a thread on CPU %u\n", b);
		return 1;
	}
	while (atomic_load(&ready) == 0)
		sched_yield();
	if (atomic_load(&ready) < 0) {
		pthread_join(t, NULL);
		fprintf(stderr, "tp-xcpu-probe: cannot run on CPU %u\n", b);
		return 1;
	}
	for (unsigned k = 0; k < blocks; k++) {
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (unsigned r = 0; r < rounds; r++, i++) {
			atomic_store_explicit(&flag, 2 * i + 1, memory_order_release);
			while (atomic_load_explicit(&flag, memory_order_acquire) != 2 * i + 2)
				;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ns[k] =
		    ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) /
		    rounds;
	}
	pthread_join(t, NULL);
	memcpy(sorted, ns, sizeof(double) * blocks);
	qsort(sorted, blocks, sizeof(double), cmp_double);
	struct tp_json j;
	tp_json_init_file(&j, stdout, false);
	tp_json_obj(&j, NULL);
	tp_json_arr(&j, "cpus");
	tp_json_u64(&j, NULL, a);
	tp_json_u64(&j, NULL, b);
	tp_json_end(&j, ']');
	tp_json_u64(&j, "rounds", rounds);
	tp_json_numf(&j, "rtt_ns", "%.1f", sorted[blocks / 2]);
	tp_json_numf(&j, "rtt_ns_min", "%.1f", sorted[0]);
	tp_json_arr(&j, "blocks_ns");
	for (unsigned k = 0; k < blocks; k++)
		tp_json_numf(&j, NULL, "%.1f", ns[k]);
	tp_json_end(&j, ']');
	tp_json_end(&j, '}');
	putchar('\n');
	return 0;
}
