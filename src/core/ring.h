/* SPDX-License-Identifier: BSD-3-Clause */
/* Named rings between data-plane lcores of different roles (a pipeline: input ->
 * forwarding -> output, as NDN-DPDK's threads are).
 *
 * A module creates a ring with a size (from its configuration), the lcore that
 * consumes it and a handler; the consumer dequeues bursts and runs the handler on
 * them. Producers enqueue with tp_ring_enqueue(), which counts what went in and
 * drops (counted, per producer) what did not fit. Rings are multi-producer unless
 * created TP_RING_SP. Control plane: create, delete, show; data plane: enqueue. */
#ifndef TP_CORE_RING_H
#define TP_CORE_RING_H

#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "worker.h"

#define TP_RING_NAME_MAX 24
#define TP_RINGS_MAX 64
#define TP_RING_SP 0x1 /* one producer lcore only */

/* n (>= 1) packets dequeued by the consumer lcore w. */
typedef void (*tp_ring_fn)(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n, void *ctx);

struct tp_ring_pctr {
	uint64_t enqueued;
	uint64_t dropped_full;
} __rte_cache_aligned;

struct tp_ring {
	char name[TP_RING_NAME_MAX];
	const char *owner; /* module name */
	struct rte_ring *r;
	unsigned int size;
	unsigned int consumer; /* worker id */
	tp_ring_fn fn;
	void *ctx;
	uint64_t dequeued;			  /* written by the consumer */
	struct tp_ring_pctr prod[TP_MAX_WORKERS]; /* written by each producer */
};

/* Create a ring of size slots (a power of two >= 2; usable size - 1) consumed by
 * worker id consumer, and publish it to that lcore. NULL with rte_errno set
 * (EEXIST, EINVAL, ENOSPC, ENOMEM). */
struct tp_ring *tp_ring_create(const char *name, const char *owner, unsigned int size,
			       unsigned int consumer, unsigned int flags, tp_ring_fn fn, void *ctx);
/* Unpublish; once no lcore can see it, free what it still holds and the ring.
 * 0, -ENOENT, or -ENOMEM (republishing failed: the ring stays). */
int tp_ring_delete(struct tp_ring *r);
struct tp_ring *tp_ring_find(const char *name);
/* Iterate: *iter starts at 0; NULL at the end. */
struct tp_ring *tp_ring_next(unsigned int *iter);
/* The rings consumer polls (the lcore configuration's list): n written, at most cap. */
unsigned int tp_ring_list(unsigned int consumer, struct tp_ring **out, unsigned int cap);

/* A handler for output lcores: transmit each packet on m->port. */
void tp_ring_tx(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n, void *ctx);

/* Producer w puts n packets on r; what does not fit is dropped (ring_full) and
 * counted as r's dropped_full. Returns how many went in. */
static inline unsigned int tp_ring_enqueue(struct tp_worker *w, struct tp_ring *r,
					   struct rte_mbuf **pkts, unsigned int n)
{
	unsigned int k = rte_ring_enqueue_burst(r->r, (void **)pkts, n, NULL);

	r->prod[w->id].enqueued += k;
	if (unlikely(k < n)) {
		r->prod[w->id].dropped_full += n - k;
		for (unsigned int i = k; i < n; i++)
			tp_drop(w, pkts[i], TP_DROP_RING_FULL);
	}
	return k;
}

#endif
