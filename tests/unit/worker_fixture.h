/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared set-up of the stage tests that run the router's l3 input: one data-plane
 * worker with its counters and exception rings, the router's tables and its
 * data-plane registration, a mempool, two l3 ports; and the checks the IPv4 and IPv6
 * stage tests share (a frame run through its port's input, dropped or punted with
 * nothing else happening). No device: frames stay in the TX buffers. Include it
 * after cmocka.h. */
#ifndef TP_TEST_WORKER_FIXTURE_H
#define TP_TEST_WORKER_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "../../src/core/mbuf.h"
#include "../../src/core/rcu.h"
#include "../../src/core/tp.h"
#include "../../src/nf/ip4/control/neigh.h"
#include "../../src/nf/ip4/control/nexthop.h"
#include "../../src/nf/ip4/control/route.h"
#include "../../src/nf/ip4/ip4.h"
#include "../../src/nf/ip4/l3mode.h"
#include "../../src/tables/iface.h"

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

/* Ports 0 and 1 with MACs mac0 and mac1, up, MTU 1500, in the l3 mode. */
static inline void tp_test_l3_ports(const uint8_t mac0[6], const uint8_t mac1[6])
{
	memcpy(&tp_iface_table[0].mac, mac0, 6);
	memcpy(&tp_iface_table[1].mac, mac1, 6);
	tp_iface_table[0].up = tp_iface_table[1].up = 1;
	tp_iface_table[0].mtu = tp_iface_table[1].mtu = 1500;
	tp_iface_table[0].input = tp_iface_table[1].input = tp_l3_input;
}

/* The tables tp_test_l3_worker made, given back (what RCU deferred first). */
static inline void tp_test_tables_fini(void)
{
	tp_rcu_reclaim();
	tp_route_fini();
	tp_neigh_fini();
	tp_nh_fini();
}

/* w's counters, rings and transmit buffers back to zero (every mbuf they held back in
 * its pool), its buckets open. */
static inline void tp_test_worker_reset(struct tp_worker *w)
{
	void *m;

	memset(&w->st, 0, sizeof(w->st));
	memset(w->ctr, 0, sizeof(uint64_t) * TP_MAX_PORTS * TP_CTR_MAX);
	memset(w->src_tb, 0, sizeof(w->src_tb));
	for (int k = 0; k < 2; k++)
		while (rte_ring_dequeue(w->exc_ring[k], &m) == 0)
			rte_pktmbuf_free(m);
	for (unsigned int p = 0; p < TP_MAX_PORTS; p++) {
		rte_pktmbuf_free_bulk(w->txb[p].pkts, w->txb[p].n);
		w->txb[p].n = 0;
	}
	w->tx_dirty = 0;
	tp_test_buckets_open(w);
}

/* Counter id of w, all ports together. */
static inline uint64_t tp_test_ctr(const struct tp_worker *w, unsigned int id)
{
	uint64_t v = 0;
	for (unsigned int p = 0; p < TP_MAX_PORTS; p++)
		v += w->ctr[p][id];
	return v;
}

/* m through its port's input function on w, as an lcore runs it. */
static inline void tp_test_run(struct tp_worker *w, struct rte_mbuf *m)
{
	tp_iface_table[m->port].input(w, &m, 1);
}

/* m is dropped into counter id and nothing else happens; then w is reset. */
static inline void tp_test_expect_drop(struct tp_worker *w, struct rte_mbuf *m, unsigned int id)
{
	tp_test_run(w, m);
	for (unsigned int i = 0; i < TP_CTR_MAX; i++)
		assert_int_equal(tp_test_ctr(w, i), i == id ? 1 : 0);
	assert_int_equal(w->tx_dirty, 0);
	assert_int_equal(rte_ring_count(w->exc_ring[0]) + rte_ring_count(w->exc_ring[1]), 0);
	tp_test_worker_reset(w);
}

/* m is handed to the control plane for reason id, in class cls (its ring), and
 * nothing else happens; then m is freed and w reset. */
static inline void tp_test_expect_punt(struct tp_worker *w, struct rte_mbuf *m, unsigned int id,
				       enum tp_punt_class cls)
{
	struct rte_ring *r = w->exc_ring[tp_punt_ring(cls)];
	void *out;

	tp_test_run(w, m);
	assert_int_equal(rte_ring_count(w->exc_ring[0]) + rte_ring_count(w->exc_ring[1]), 1);
	assert_int_equal(rte_ring_dequeue(r, &out), 0);
	assert_ptr_equal(out, m);
	assert_int_equal(tp_mbuf_priv(m)->punt_reason, id);
	assert_int_equal(tp_mbuf_priv(m)->punt_class, cls);
	assert_int_equal(tp_test_ctr(w, id), 1);
	assert_int_equal(w->st.exc, 1);
	assert_int_equal(w->tx_dirty, 0);
	rte_pktmbuf_free(m);
	tp_test_worker_reset(w);
}

#endif
