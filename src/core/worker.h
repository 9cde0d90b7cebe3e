/* SPDX-License-Identifier: BSD-3-Clause */
/* Data-plane workers: their state, counters, and the run-to-completion loop.
 *
 * Ownership: the control plane allocates workers at start-up and publishes each
 * worker's receive-queue list (struct tp_worker_conf) with an atomic pointer
 * store; the old list is freed only after rte_rcu_qsbr_synchronize(). A worker
 * writes only its own counters; the control plane reads them without locks
 * (64-bit loads do not tear on x86-64). */
#ifndef TP_CORE_WORKER_H
#define TP_CORE_WORKER_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "drop.h"

#define TP_BURST 32
#define TP_MAX_PORTS RTE_MAX_ETHPORTS
#define TP_MAX_WORKERS 16

struct tp_rxq {
	uint16_t port;
	uint16_t queue;
};

struct tp_worker_conf {
	unsigned int n_rxq;
	struct tp_rxq rxq[];
};

struct tp_port_ctr {
	uint64_t rx;
	uint64_t tx;
	uint64_t exc;
	uint64_t drop;
};

struct tp_wstats {
	uint64_t rx;
	uint64_t tx;
	uint64_t exc;
	uint64_t drops[TP_DROP_MAX];
	uint64_t polls;
	uint64_t idle_polls;
	uint64_t busy_cycles;
	uint64_t start_tsc;
	struct tp_port_ctr port[TP_MAX_PORTS];
};

/* Token bucket bounding what one worker hands to the control plane. */
struct tp_tbucket {
	uint64_t tokens;	/* TSC cycles of credit */
	uint64_t last_tsc;
	uint64_t cost;		/* cycles of credit one packet takes: tsc_hz / rate */
	uint64_t max_tokens;	/* burst * cost */
};

struct tp_txbuf {
	uint16_t n;
	struct rte_mbuf *pkts[TP_BURST];
};

/* Per-packet metadata in the mbuf private area (one cache line is reserved). */
struct tp_mbuf_priv {
	uint8_t punt;		/* enum tp_punt when handed to the control plane */
	uint8_t pad[7];
};
_Static_assert(sizeof(struct tp_mbuf_priv) <= RTE_CACHE_LINE_SIZE, "mbuf private area");

struct tp_worker {
	unsigned int id;	/* 0..n_workers-1, also the RCU thread id and TX queue */
	unsigned int lcore;
	struct tp_worker_conf *conf; /* RCU-published, see above */
	struct rte_ring *exc_ring;   /* worker -> control plane (SP/SC) */
	struct rte_ring *inject_ring; /* control plane -> worker: frames to transmit (SP/SC) */
	struct tp_tbucket tb;
	uint64_t tx_dirty;	     /* bit per port with frames in txb */
	struct tp_txbuf txb[TP_MAX_PORTS];
	struct tp_wstats st __rte_cache_aligned;
} __rte_cache_aligned;

static inline struct tp_mbuf_priv *tp_mbuf_priv(struct rte_mbuf *m)
{
	return (struct tp_mbuf_priv *)rte_mbuf_to_priv(m);
}

/* Main loop of a worker lcore; arg is its struct tp_worker. */
int tp_worker_main(void *arg);

/* Hand m to the control plane for reason r; consumes m (queued or dropped and counted). */
void tp_worker_punt(struct tp_worker *w, struct rte_mbuf *m, enum tp_punt r);

/* Drop m for reason r on ingress port; consumes m. */
/* Transmit every buffered frame; counts what the port did not take as dropped. */
void tp_worker_tx_flush(struct tp_worker *w);

/* Buffer m for transmission on port; flushes the port's buffer when it is full. */
static inline void tp_worker_tx_enqueue(struct tp_worker *w, struct rte_mbuf *m, uint16_t port)
{
	struct tp_txbuf *b = &w->txb[port];

	b->pkts[b->n++] = m;
	w->tx_dirty |= 1ull << port;
	if (unlikely(b->n == TP_BURST))
		tp_worker_tx_flush(w);
}

/* Buffer n frames for port (n <= TP_BURST). */
static inline void tp_worker_tx_enqueue_bulk(struct tp_worker *w, struct rte_mbuf **m,
					     unsigned int n, uint16_t port)
{
	struct tp_txbuf *b = &w->txb[port];
	unsigned int room = TP_BURST - b->n;

	if (unlikely(n > room)) {
		memcpy(&b->pkts[b->n], m, room * sizeof(*m));
		b->n = TP_BURST;
		w->tx_dirty |= 1ull << port;
		tp_worker_tx_flush(w);
		m += room;
		n -= room;
	}
	memcpy(&b->pkts[b->n], m, n * sizeof(*m));
	b->n = (uint16_t)(b->n + n);
	w->tx_dirty |= 1ull << port;
}

static inline void tp_worker_drop(struct tp_worker *w, struct rte_mbuf *m, enum tp_drop r)
{
	w->st.drops[r]++;
	w->st.port[m->port].drop++;
	rte_pktmbuf_free(m);
}

#endif
