/* SPDX-License-Identifier: BSD-3-Clause */
/* What the fuzz targets that run on DPDK share: an EAL without hugepages, devices or
 * shared files, and the forwarding tables (route, neighbour, next hop) with their
 * teardown at exit. */
#ifndef TP_TESTS_FUZZ_DPDK_H
#define TP_TESTS_FUZZ_DPDK_H

#include <stdio.h>
#include <stdlib.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_malloc.h>

#include "core/rcu.h"
#include "core/tp.h"
#include "nf/ip4/control/neigh.h"
#include "nf/ip4/control/nexthop.h"
#include "nf/ip4/control/route.h"

#include "fuzz.h"

/* The EAL of target name (its file prefix tp-<name>) with mem_mb MB of heap memory. */
static inline void fuzz_eal_init(const char *name, unsigned int mem_mb)
{
	static char prog[64], mem[16], prefix[96];
	snprintf(prog, sizeof(prog), "%s", name);
	snprintf(mem, sizeof(mem), "%u", mem_mb);
	snprintf(prefix, sizeof(prefix), "--file-prefix=tp-%s", name);
	char *eal[] = {prog,   "--no-huge",	 "-m", mem, "--no-pci",		 "--no-shconf",
		       prefix, "--no-telemetry", "-l", "0", "--log-level=error", NULL};

	if (rte_eal_init((int)RTE_DIM(eal) - 1, eal) < 0)
		abort();
}

/* At exit, the tables give back what they hold (in DPDK memory that LeakSanitizer does
 * not scan, so it would take it for leaked). */
static inline void fuzz_tables_fini(void)
{
	tp_rcu_reclaim();
	tp_route_fini();
	tp_neigh_fini();
	tp_nh_fini();
}

/* The forwarding tables, 1,024 neighbours and routes, torn down at exit. */
static inline void fuzz_tables_init(void)
{
	if (tp_rcu_init(1) < 0 || tp_nh_init() < 0 || tp_neigh_init(1024) < 0 ||
	    tp_route_init(tp.qs, 1024) < 0)
		abort();
	atexit(fuzz_tables_fini);
}

/* The state of one data-plane lcore, tp.workers[0], with its counters: for a target
 * that runs a stage itself. */
static inline struct tp_worker *fuzz_worker(void)
{
	struct tp_worker *w = rte_zmalloc("w", sizeof(*w), RTE_CACHE_LINE_SIZE);

	must(w != NULL);
	w->ctr = rte_zmalloc("ctr", sizeof(uint64_t) * TP_MAX_PORTS * TP_CTR_MAX, 0);
	must(w->ctr != NULL);
	tp.n_workers = 1;
	tp.workers[0] = w;
	return w;
}

#endif
