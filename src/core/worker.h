/* SPDX-License-Identifier: BSD-3-Clause */
/* Data-plane lcores: their roles, state, counters and loops.
 *
 * Every data-plane lcore is a struct tp_worker, whatever its role:
 *   worker      run to completion: receive, the port's input function, transmit
 *   input       receive and run the port's input function, which hands packets on
 *               through rings (core/ring.h) instead of finishing them
 *   forwarding  dequeue from its rings, run each ring's handler
 *   output      dequeue from its rings, run each ring's handler (usually transmit)
 * Each lcore has a TX queue on every port: its own, or, on a port with fewer queues
 * than lcores, one it shares under a lock (as OVS-DPDK does). It has its own
 * exception rings to the control plane and an inject ring from it, and reports an
 * RCU quiescent state once per loop (it goes offline only while it sleeps).
 *
 * Ownership: the control plane allocates the lcores at start-up and publishes each
 * one's configuration (struct tp_lcore_conf: role, receive queues, rings) with an
 * atomic pointer store; the old one is freed after an RCU grace period (core/rcu.h).
 * An lcore writes only its own counters and buffers; the control plane reads the
 * counters without locks. */
#ifndef TP_CORE_WORKER_H
#define TP_CORE_WORKER_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_debug.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_per_lcore.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include "counter.h"
#include "limits.h"
#include "mbuf.h"
#include "trace.h"

enum tp_role { TP_ROLE_WORKER, TP_ROLE_INPUT, TP_ROLE_FORWARDING, TP_ROLE_OUTPUT, TP_ROLE_MAX };

/* Classes of what goes to the control plane, each with its own token bucket per port
 * and lcore; the control and ARP classes also share a ring, drained first. A flood of
 * ARP cannot take the routing protocols' budget, nor the reverse. Inside the control
 * and ARP classes one source takes at most 1/TP_PUNT_SRC_SHARE of the class
 * (tp_punt_src). */
enum tp_punt_class {
	TP_PUNT_CONTROL,   /* routing protocols that pass nf/ip4's checks: from the port's
			    * subnet or a control peer, with the TTL their RFC sets */
	TP_PUNT_ARP,	   /* ARP */
	TP_PUNT_SIGNALING, /* a network function's signaling (11073 association, ...) */
	TP_PUNT_OTHER,	   /* unresolved neighbours, options, other local traffic */
	TP_PUNT_ERROR,	   /* what only earns an ICMP error from the kernel (no route, TTL) */
	TP_PUNT_CLASSES
};

/* The error class's default bucket: the kernel's net.ipv4.icmp_msgs_per_sec and
 * icmp_msgs_burst, per port. */
#define TP_PUNT_ERROR_RATE 1000ull
#define TP_PUNT_SIGNALING_RATE 50000ull /* default of the signaling class (main.c) */
#define TP_PUNT_ERROR_BURST 50ull

/* Per-source fairness inside the control and ARP classes: TP_PUNT_SRC_SLOTS buckets per
 * lcore, indexed by a seeded hash of (port, class, source address); sources that share
 * a slot share its bucket. Each slot refills at 1/TP_PUNT_SRC_SHARE of its class's rate
 * (its burst is the class's), so one source flooding leaves at least 3/4 of the class to
 * the others. */
#define TP_PUNT_SRC_SLOTS 1024u
#define TP_PUNT_SRC_SHARE 4u

struct tp_src_bucket {
	uint64_t tokens; /* TSC cycles of credit */
	uint64_t last_tsc;
};

/* The ring a class goes to: 0 (drained first) for control and ARP, 1 for the rest. */
static inline unsigned int tp_punt_ring(unsigned int cls)
{
	return cls == TP_PUNT_CONTROL || cls == TP_PUNT_ARP ? 0 : 1;
}

struct tp_rxq {
	uint16_t port;
	uint16_t queue;
};

struct tp_ring;

/* What one lcore does; published with RCU, replaced whole. */
struct tp_lcore_conf {
	uint8_t role; /* enum tp_role */
	unsigned int n_rxq;
	unsigned int n_rings;
	struct tp_rxq *rxq;
	struct tp_ring **rings;
};

struct tp_port_ctr {
	uint64_t rx;
	uint64_t tx;
	uint64_t exc;
};

/* no pass of a data-plane loop takes this long (a busy one: tens of microseconds) */
#define TP_LONG_PASS_US 1000

struct tp_wstats {
	uint64_t rx;
	uint64_t tx;
	uint64_t exc;
	uint64_t polls;
	uint64_t idle_polls;
	uint64_t busy_cycles;
	/* passes of the loop that took over TP_LONG_PASS_US, and their cycles: its thread
	 * off the CPU, or its vCPU held by the host (which the guest counts as running) */
	uint64_t long_passes;
	uint64_t long_pass_cycles;
	uint64_t start_tsc;
	struct tp_port_ctr port[TP_MAX_PORTS];
};

/* Token bucket bounding what one lcore hands to the control plane. */
struct tp_tbucket {
	uint64_t tokens; /* TSC cycles of credit */
	uint64_t last_tsc;
	uint64_t cost;	     /* cycles of credit one packet takes: tsc_hz / rate */
	uint64_t max_tokens; /* burst * cost */
};

struct tp_txbuf {
	uint16_t n; /* invariant: < TP_BURST outside tp_worker_tx_enqueue */
	struct rte_mbuf *pkts[TP_BURST];
};

struct tp_worker {
	unsigned int id; /* 0..n_workers-1: the RCU thread id */
	unsigned int lcore;
	struct tp_lcore_conf *conf;   /* RCU-published, see above */
	struct rte_ring *exc_ring[2]; /* to the control plane: [0] control and ARP, [1] others */
	struct rte_ring *inject_ring; /* from the control plane: frames to send (m->port) */
	uint64_t (*ctr)[TP_CTR_MAX];  /* [port][counter id] */
	void *nf_state[TP_NF_MAX];    /* core/nf.h: tp_nf_lcore() */
	uint64_t now;		      /* TSC at the end of the loop's last pass */
	uint64_t tx_dirty;	      /* bit per port with frames in txb */
	uint8_t obs;		      /* TP_OBS_* (core/trace.h): set by the control plane */
	struct tp_trace_buf *trace;   /* its trace records (allocated at the first trace) */
	uint16_t txq[TP_MAX_PORTS];   /* its TX queue on each port */
	rte_spinlock_t *txq_lock[TP_MAX_PORTS]; /* NULL: the queue is its own */
	struct tp_txbuf txb[TP_MAX_PORTS];
	struct tp_tbucket tb[TP_MAX_PORTS][TP_PUNT_CLASSES];
	uint32_t src_seed; /* of the per-source slots' hash (random, set at creation) */
	struct tp_src_bucket src_tb[TP_PUNT_SRC_SLOTS];
	struct tp_wstats st __rte_cache_aligned;
} __rte_cache_aligned;

/* Main loop of a data-plane lcore; arg is its struct tp_worker. */
int tp_worker_main(void *arg);
/* The data-plane lcore's own struct tp_worker (NULL on other threads): for code the
 * lcore runs without being handed it, such as an RX callback (core/afpacket.c). */
RTE_DECLARE_PER_LCORE(struct tp_worker *, tp_worker_self);

/* One pass of the lcore's loop, for code that must keep the lcore's other work
 * going while it waits (single-plane signaling): polls the inject ring, transmits,
 * and reports a quiescent state, so the caller must hold no pointer into
 * RCU-protected tables across it. */
void tp_worker_keepalive(struct tp_worker *w);

/* Count event or reason id on port (the packet stays the caller's). */
static inline void tp_count(struct tp_worker *w, uint16_t port, unsigned int id)
{
	w->ctr[port][id]++;
}

/* Drop m for reason id (a TP_CTR_DROP counter) on its ingress port; consumes m. */
static inline void tp_drop(struct tp_worker *w, struct rte_mbuf *m, unsigned int id)
{
	if (unlikely(w->obs & TP_OBS_TRACE))
		tp_trace_pkt(w, m, TP_TRACE_DROP, NULL, id, 0);
	w->ctr[m->port][id]++;
	rte_pktmbuf_free(m);
}

/* Hand m to the control plane (its port's TAP) for reason id (a TP_CTR_PUNT counter),
 * within the token bucket of (m->port, cls) on this lcore; consumes m (queued, or
 * dropped and counted as exception_ratelimited or exception_ring_full). */
void tp_punt(struct tp_worker *w, struct rte_mbuf *m, unsigned int id, enum tp_punt_class cls);

/* tp_punt within the per-source slot of src (an IPv4 address, host order) first: a
 * packet over its source's share is dropped and counted as
 * exception_source_ratelimited; consumes m. */
void tp_punt_src(struct tp_worker *w, struct rte_mbuf *m, unsigned int id, enum tp_punt_class cls,
		 uint32_t src);

/* Transmit what port's buffer holds; counts what the port did not take as dropped. */
void tp_worker_tx_flush_port(struct tp_worker *w, uint16_t port);
/* Transmit every buffered frame. */
void tp_worker_tx_flush(struct tp_worker *w);

/* Buffer m for transmission on port. Invariant: a buffer is never full on entry
 * (whoever fills one sends it as it becomes full), so this writes in bounds. */
static inline void tp_worker_tx_enqueue(struct tp_worker *w, struct rte_mbuf *m, uint16_t port)
{
	struct tp_txbuf *b = &w->txb[port];

	RTE_VERIFY(b->n < TP_BURST); /* in release too: past it, pkts[] overflows */
	b->pkts[b->n++] = m;
	w->tx_dirty |= 1ull << port;
	if (unlikely(b->n == TP_BURST))
		tp_worker_tx_flush_port(w, port);
}

/* Buffer n frames for port (any n). */
static inline void tp_worker_tx_enqueue_bulk(struct tp_worker *w, struct rte_mbuf **m,
					     unsigned int n, uint16_t port)
{
	struct tp_txbuf *b = &w->txb[port];

	RTE_VERIFY(b->n < TP_BURST); /* in release too: past it, pkts[] overflows */
	while (n) {
		unsigned int k = RTE_MIN(n, (unsigned int)(TP_BURST - b->n));
		memcpy(&b->pkts[b->n], m, k * sizeof(*m));
		b->n = (uint16_t)(b->n + k);
		w->tx_dirty |= 1ull << port;
		m += k;
		n -= k;
		if (b->n == TP_BURST)
			tp_worker_tx_flush_port(w, port);
	}
}

#endif
