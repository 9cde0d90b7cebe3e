/* SPDX-License-Identifier: BSD-3-Clause */
/* The registry of rings between data-plane lcores. Control plane only, but tp_ring_tx. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "lcore.h"
#include "log.h"
#include "rcu.h"
#include "ring.h"
#include "tp.h"

static struct tp_ring *rings[TP_RINGS_MAX];

struct tp_ring *tp_ring_find(const char *name)
{
	for (unsigned int i = 0; i < TP_RINGS_MAX; i++)
		if (rings[i] && strcmp(rings[i]->name, name) == 0)
			return rings[i];
	return NULL;
}

struct tp_ring *tp_ring_next(unsigned int *iter)
{
	while (*iter < TP_RINGS_MAX) {
		struct tp_ring *r = rings[(*iter)++];
		if (r)
			return r;
	}
	return NULL;
}

unsigned int tp_ring_list(unsigned int consumer, struct tp_ring **out, unsigned int cap)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < TP_RINGS_MAX && n < cap; i++)
		if (rings[i] && rings[i]->consumer == consumer)
			out[n++] = rings[i];
	return n;
}

struct tp_ring *tp_ring_create(const char *name, const char *owner, unsigned int size,
			       unsigned int consumer, unsigned int flags, tp_ring_fn fn, void *ctx)
{
	char rname[RTE_RING_NAMESIZE];
	static unsigned int seq;
	struct tp_ring *r;
	int slot = -1, ret;

	if (name == NULL || strlen(name) == 0 || strlen(name) >= TP_RING_NAME_MAX || fn == NULL ||
	    consumer >= tp.n_workers || size < 2 || size > (1u << 24) || (size & (size - 1))) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (tp_ring_find(name)) {
		rte_errno = EEXIST;
		return NULL;
	}
	for (int i = 0; i < TP_RINGS_MAX && slot < 0; i++)
		if (rings[i] == NULL)
			slot = i;
	if (slot < 0) {
		rte_errno = ENOSPC;
		return NULL;
	}
	r = rte_zmalloc("tp_ring", sizeof(*r), RTE_CACHE_LINE_SIZE);
	if (r == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->owner = owner;
	r->size = size;
	r->consumer = consumer;
	r->fn = fn;
	r->ctx = ctx;
	/* rte_ring names are process-wide and outlive a deleted ring's grace period */
	snprintf(rname, sizeof(rname), "tpr%u_%.20s", seq++, name);
	r->r = rte_ring_create(rname, size, SOCKET_ID_ANY,
			       RING_F_SC_DEQ | ((flags & TP_RING_SP) ? RING_F_SP_ENQ : 0));
	if (r->r == NULL) {
		ret = rte_errno;
		rte_free(r);
		rte_errno = ret;
		return NULL;
	}
	rings[slot] = r;
	if ((ret = tp_lcores_publish()) < 0) {
		rings[slot] = NULL;
		rte_ring_free(r->r);
		rte_free(r);
		rte_errno = -ret;
		return NULL;
	}
	return r;
}

static void ring_free(void *a, void *b)
{
	struct tp_ring *r = a;
	void *m;

	while (rte_ring_dequeue(r->r, &m) == 0)
		rte_pktmbuf_free(m);
	rte_ring_free(r->r);
	rte_free(r);
}

int tp_ring_delete(struct tp_ring *r)
{
	int slot = -1, ret;

	for (int i = 0; i < TP_RINGS_MAX; i++)
		if (rings[i] == r)
			slot = i;
	if (slot < 0)
		return -ENOENT;
	rings[slot] = NULL;
	if ((ret = tp_lcores_publish()) < 0) {
		rings[slot] = r; /* still published: keep it */
		return ret;
	}
	if (tp_rcu_defer(ring_free, r, NULL) < 0)
		TP_LOG(WARNING, "ring %s: defer queue full, its memory is leaked", r->name);
	return 0;
}

void tp_ring_tx(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n, void *ctx)
{
	for (uint16_t i = 0; i < n; i++)
		tp_worker_tx_enqueue(w, pkts[i], pkts[i]->port);
}
