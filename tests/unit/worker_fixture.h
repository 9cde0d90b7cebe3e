/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared set-up of the stage tests that run the router's l3 input: one data-plane
 * worker with its counters and exception rings, the router's tables and its
 * data-plane registration, a mempool. No device: frames stay in the TX buffers. */
#ifndef TP_TEST_WORKER_FIXTURE_H
#define TP_TEST_WORKER_FIXTURE_H

#include <stdint.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "../../src/core/rcu.h"
#include "../../src/core/tp.h"
#include "../../src/nf/ip4/control/neigh.h"
#include "../../src/nf/ip4/control/nexthop.h"
#include "../../src/nf/ip4/control/route.h"
#include "../../src/nf/ip4/ip4.h"

/* Every punt bucket of w full and never running dry. */
static inline void tp_test_buckets_open(struct tp_worker *w)
{
	for (unsigned int p = 0; p < TP_MAX_PORTS; p++)
		for (unsigned int c = 0; c < TP_PUNT_CLASSES; c++)
			w->tb[p][c] = (struct tp_tbucket){.tokens = UINT64_MAX / 4,
							  .cost = 1,
							  .max_tokens = UINT64_MAX / 4,
							  .last_tsc = rte_rdtsc()};
}

/* RCU for one reader, the router's tables (1024 neighbours and routes), a pool of
 * n_mbufs named pool_name (*pool), worker 0 with counters and two exception rings,
 * the router's IPv4 and ARP in the l3 mode's ethertype table, the buckets open.
 * Returns the worker, or NULL. */
static inline struct tp_worker *tp_test_l3_worker(const char *pool_name, unsigned int n_mbufs,
						  struct rte_mempool **pool)
{
	struct tp_worker *w;

	if (tp_rcu_init(1) < 0)
		return NULL;
	if (tp_nh_init() < 0 || tp_neigh_init(1024) < 0 || tp_route_init(tp.qs, 1024) < 0)
		return NULL;
	*pool = rte_pktmbuf_pool_create(pool_name, n_mbufs, 0, TP_MBUF_PRIV_SIZE,
					RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	w = rte_zmalloc("w", sizeof(*w), RTE_CACHE_LINE_SIZE);
	if (*pool == NULL || w == NULL)
		return NULL;
	w->ctr = rte_zmalloc("ctr", sizeof(uint64_t) * TP_MAX_PORTS * TP_CTR_MAX, 0);
	w->exc_ring[0] = rte_ring_create("exc0", 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	w->exc_ring[1] = rte_ring_create("exc1", 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (w->ctr == NULL || w->exc_ring[0] == NULL || w->exc_ring[1] == NULL)
		return NULL;
	tp.n_workers = 1;
	tp.workers[0] = w;
	/* the router registers IPv4 and ARP in the l3 mode's ethertype table */
	if (tp_ip4_datapath_register() < 0)
		return NULL;
	tp_test_buckets_open(w);
	return w;
}

#endif
