/* SPDX-License-Identifier: BSD-3-Clause */
/* Next-hop groups: the table of groups, their bucket tables and RCU replacement. */
#include <errno.h>
#include <stdlib.h>

#include <rte_malloc.h>
#include <rte_random.h>

#include "../../../core/log.h"
#include "../../../core/rcu.h"
#include "nhg.h"

struct tp_nhg **tp_nhg_table;
uint64_t tp_nhg_seed;
static uint32_t *free_ids; /* a stack of free ids */
static unsigned int n_free, n_max;
static uint32_t table_gen; /* a deferred free of an older table's id does nothing */

int tp_nhg_init(unsigned int max)
{
	if (max == 0 || max > TP_NHG_ID_MASK + 1)
		return -EINVAL;
	tp_nhg_table = rte_zmalloc("tp_nhg", max * sizeof(*tp_nhg_table), RTE_CACHE_LINE_SIZE);
	free_ids = malloc(max * sizeof(*free_ids));
	if (tp_nhg_table == NULL || free_ids == NULL) {
		rte_free(tp_nhg_table);
		free(free_ids);
		tp_nhg_table = NULL;
		free_ids = NULL;
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < max; i++)
		free_ids[i] = max - 1 - i; /* id 0 first */
	n_free = n_max = max;
	table_gen++;
	tp_nhg_seed = rte_rand();
	return 0;
}

void tp_nhg_fini(void)
{
	for (unsigned int i = 0; tp_nhg_table != NULL && i < n_max; i++)
		rte_free(tp_nhg_table[i]);
	rte_free(tp_nhg_table);
	free(free_ids);
	tp_nhg_table = NULL;
	free_ids = NULL;
	n_free = n_max = 0;
	table_gen++;
}

int tp_nhg_alloc(void)
{
	return n_free ? (int)free_ids[--n_free] : -ENOSPC;
}

/* Each member's share of the buckets: weight / total, rounded down, the rest one each
 * to the first members (largest remainder would move more buckets on a change of
 * weights, for no better spread at 256 buckets). */
static void shares(const struct tp_nhg_member *m, unsigned int n, uint32_t *share)
{
	uint32_t total = 0, given = 0;

	for (unsigned int i = 0; i < n; i++)
		total += m[i].weight;
	for (unsigned int i = 0; i < n; i++)
		given += share[i] = m[i].weight * TP_NHG_BUCKETS / total;
	for (unsigned int i = 0; given < TP_NHG_BUCKETS; i = (i + 1) % n, given++)
		share[i]++;
}

/* Fill g's buckets for its members: the buckets of old whose member stays keep it while
 * it is under its share; the others go round the members still under theirs. */
static void buckets_fill(struct tp_nhg *g, const struct tp_nhg *old)
{
	uint32_t share[TP_NHG_MEMBERS] = {0}, used[TP_NHG_MEMBERS] = {0};
	bool taken[TP_NHG_BUCKETS] = {0};
	unsigned int k = 0;

	shares(g->m, g->n, share);
	for (unsigned int b = 0; old != NULL && b < TP_NHG_BUCKETS; b++)
		for (unsigned int i = 0; i < g->n; i++)
			if (g->m[i].nh == old->bucket[b]) {
				if (used[i] < share[i]) {
					used[i]++;
					g->bucket[b] = (uint16_t)g->m[i].nh;
					taken[b] = true;
				}
				break;
			}
	for (unsigned int b = 0; b < TP_NHG_BUCKETS; b++) {
		if (taken[b])
			continue;
		while (used[k] >= share[k]) /* the shares add up to the buckets: one is under */
			k = (k + 1) % g->n;
		used[k]++;
		g->bucket[b] = (uint16_t)g->m[k].nh;
		/* the next free bucket to the next member: interleaved, not in runs */
		k = (k + 1) % g->n;
	}
}

/* A replaced bucket table, after the grace period. */
static void table_free(void *g, void *unused)
{
	rte_free(g);
}

int tp_nhg_set(uint32_t gid, const struct tp_nhg_member *m, unsigned int n)
{
	return tp_nhg_set_from(gid, m, n, NULL);
}

int tp_nhg_set_from(uint32_t gid, const struct tp_nhg_member *m, unsigned int n,
		    const struct tp_nhg *from)
{
	struct tp_nhg *g, *old;

	if (gid >= n_max || n == 0 || n > TP_NHG_MEMBERS)
		return -EINVAL;
	for (unsigned int i = 0; i < n; i++) {
		if (m[i].weight == 0 || m[i].weight > 256 || m[i].nh > UINT16_MAX)
			return -EINVAL;
		for (unsigned int j = 0; j < i; j++)
			if (m[j].nh == m[i].nh)
				return -EINVAL;
	}
	g = rte_zmalloc("tp_nhg_group", sizeof(*g), RTE_CACHE_LINE_SIZE);
	if (g == NULL)
		return -ENOMEM;
	g->n = n;
	memcpy(g->m, m, n * sizeof(*m));
	old = tp_nhg_table[gid];
	buckets_fill(g, old != NULL ? old : from);
	__atomic_store_n(&tp_nhg_table[gid], g, __ATOMIC_RELEASE);
	if (old != NULL && tp_rcu_defer(table_free, old, NULL) < 0) {
		/* never expected (a 16k queue emptied every millisecond): leaked, not freed
		 * under a reader */
		TP_LOG(ERR, "next-hop group %u: defer queue full, old table leaked", gid);
	}
	return 0;
}

const struct tp_nhg *tp_nhg_get(uint32_t gid)
{
	return gid < n_max ? tp_nhg_table[gid] : NULL;
}

/* After the grace period: the table freed and the id free; nothing when the table of
 * groups went meanwhile (tp_nhg_fini freed what was in the slots). */
static void group_release(void *g, void *arg)
{
	uint64_t v = (uintptr_t)arg;
	uint32_t gid = (uint32_t)v, gen = (uint32_t)(v >> 32);

	if (gen != table_gen || gid >= n_max)
		return; /* tp_nhg_fini freed it with its slot's table */
	rte_free(g);
	tp_nhg_table[gid] = NULL;
	free_ids[n_free++] = gid;
}

void tp_nhg_free(uint32_t gid)
{
	struct tp_nhg *g;

	if (gid >= n_max)
		return;
	if ((g = tp_nhg_table[gid]) == NULL) { /* never published: no reader knows it */
		free_ids[n_free++] = gid;
		return;
	}
	/* the id stays taken (its table in place) until no reader can hold its value */
	if (tp_rcu_defer(group_release, g, (void *)(uintptr_t)((uint64_t)table_gen << 32 | gid)) <
	    0)
		TP_LOG(ERR, "next-hop group %u: defer queue full, id leaked", gid);
}

unsigned int tp_nhg_count(void)
{
	return n_max - n_free;
}

unsigned int tp_nhg_max(void)
{
	return n_max;
}
