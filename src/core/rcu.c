/* SPDX-License-Identifier: BSD-3-Clause */
/* QSBR variable and the defer queue (rte_rcu_qsbr_dq). */
#include <errno.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "rcu.h"
#include "tp.h"

#define DQ_SIZE 16384

struct deferred {
	tp_rcu_fn fn;
	void *a;
	void *b;
};

static struct rte_rcu_qsbr_dq *dq;
static unsigned int pending;

static void run_deferred(void *p, void *e, unsigned int n)
{
	struct deferred *d = e;

	for (unsigned int i = 0; i < n; i++)
		d[i].fn(d[i].a, d[i].b);
	__atomic_fetch_sub(&pending, n, __ATOMIC_RELAXED);
}

int tp_rcu_init(unsigned int n_readers)
{
	size_t sz = rte_rcu_qsbr_get_memsize(n_readers);
	struct rte_rcu_qsbr_dq_parameters p = {
	    .name = "tp_defer",
	    .flags = 0, /* multi-thread safe (an lcore may defer in single-plane mode) */
	    .size = DQ_SIZE,
	    .esize = sizeof(struct deferred),
	    /* never reclaimed by an enqueue (which may run on an lcore): by the control loop */
	    .trigger_reclaim_limit = DQ_SIZE + 1,
	    .max_reclaim_size = DQ_SIZE,
	    .free_fn = run_deferred,
	};

	tp.qs = rte_zmalloc("tp_rcu", sz, RTE_CACHE_LINE_SIZE);
	if (tp.qs == NULL)
		return -ENOMEM;
	if (rte_rcu_qsbr_init(tp.qs, n_readers) != 0)
		return -rte_errno;
	p.v = tp.qs;
	dq = rte_rcu_qsbr_dq_create(&p);
	return dq ? 0 : -rte_errno;
}

void tp_rcu_fini(void)
{
	if (dq) {
		/* the readers are gone: every token is over */
		rte_rcu_qsbr_dq_reclaim(dq, UINT32_MAX, NULL, NULL, NULL);
		rte_rcu_qsbr_dq_delete(dq);
		dq = NULL;
	}
	rte_free(tp.qs);
	tp.qs = NULL;
}

int tp_rcu_defer(tp_rcu_fn fn, void *a, void *b)
{
	struct deferred d = {fn, a, b};

	__atomic_fetch_add(&pending, 1, __ATOMIC_RELAXED);
	if (rte_rcu_qsbr_dq_enqueue(dq, &d) != 0) {
		__atomic_fetch_sub(&pending, 1, __ATOMIC_RELAXED);
		return -ENOSPC;
	}
	return 0;
}

unsigned int tp_rcu_reclaim(void)
{
	unsigned int freed = 0, left = 0, avail = 0;

	if (dq == NULL || __atomic_load_n(&pending, __ATOMIC_RELAXED) == 0)
		return 0;
	rte_rcu_qsbr_dq_reclaim(dq, UINT32_MAX, &freed, &left, &avail);
	return freed;
}

unsigned int tp_rcu_pending(void)
{
	return __atomic_load_n(&pending, __ATOMIC_RELAXED);
}
