/* SPDX-License-Identifier: BSD-3-Clause */
/* Neighbour table on rte_hash with lock-free concurrency and RCU reclamation. */
#include <errno.h>

#include <rte_errno.h>
#include <rte_hash.h>

#include "neigh.h"
#include "../../../tables/rcu_hash.h"
#include "nexthop.h"

static struct rte_hash *neigh_hash;

/* Once no reader can hold the key any more. */
static void neigh_release(uint32_t nh)
{
	tp_nh_free(nh);
}

int tp_neigh_init(unsigned int max_entries)
{
	neigh_hash = tp_rcu_hash_create("tp_neigh", max_entries, sizeof(uint32_t));
	return neigh_hash ? 0 : -rte_errno;
}

void tp_neigh_fini(void)
{
	rte_hash_free(neigh_hash);
	neigh_hash = NULL;
}

int tp_neigh_lookup(uint32_t ip)
{
	void *data;

	if (rte_hash_lookup_data(neigh_hash, &ip, &data) < 0)
		return -ENOENT;
	return (int)(uintptr_t)data;
}

int tp_neigh_ref(uint32_t ip, uint16_t port)
{
	int nh = tp_neigh_lookup(ip);
	int ret;

	if (nh < 0) {
		nh = tp_nh_alloc(ip, port);
		if (nh < 0)
			return nh;
		ret = rte_hash_add_key_data(neigh_hash, &ip, (void *)(uintptr_t)nh);
		if (ret < 0) {
			tp_nh_free((uint32_t)nh);
			return ret;
		}
	}
	tp_nh_table[nh].refcnt++;
	return nh;
}

void tp_neigh_unref(uint32_t nh)
{
	struct tp_nexthop *e = &tp_nh_table[nh];
	uint32_t ip = e->ip;

	if (tp_nh_special(nh) || !e->in_use || e->refcnt == 0)
		return;
	if (--e->refcnt > 0)
		return;
	/* the next-hop entry is freed after a grace period (neigh_release) */
	tp_rcu_hash_del(neigh_hash, &ip, neigh_release);
}

int tp_neigh_learn(uint32_t ip, uint16_t port, const uint8_t *mac)
{
	int nh;

	if (mac == NULL) {
		nh = tp_neigh_lookup(ip);
		if (nh < 0 || !tp_nh_table[nh].learned)
			return -ENOENT;
		tp_nh_table[nh].learned = 0;
		/* unresolved first, so packets punt to the kernel while routes still point here */
		tp_nh_set_l2((uint32_t)nh, (const uint8_t[6]){0}, port, 0);
		tp_neigh_unref((uint32_t)nh);
		return -ENOENT;
	}
	nh = tp_neigh_lookup(ip);
	if (nh < 0 || !tp_nh_table[nh].learned) {
		nh = tp_neigh_ref(ip, port);
		if (nh < 0)
			return nh;
		tp_nh_table[nh].learned = 1;
	}
	tp_nh_table[nh].port = port;
	tp_nh_set_l2((uint32_t)nh, mac, port, TP_NH_F_RESOLVED);
	return nh;
}

int tp_neigh_iterate(uint32_t *iter, uint32_t *ip, uint32_t *nh)
{
	const void *key;
	void *data;

	if (rte_hash_iterate(neigh_hash, &key, &data, iter) < 0)
		return -ENOENT;
	*ip = *(const uint32_t *)key;
	*nh = (uint32_t)(uintptr_t)data;
	return 0;
}

unsigned int tp_neigh_count(void)
{
	return (unsigned int)rte_hash_count(neigh_hash);
}

void tp_neigh_flush_port(uint16_t port)
{
	uint32_t ip, nh, victims[256];
	unsigned int n;

	/* all of them, in batches until the iterator is exhausted: the hash is not changed
	 * while it is iterated, and a forgotten neighbour is no longer learned, so each
	 * pass finds the next ones */
	do {
		uint32_t iter = 0;
		n = 0;
		while (n < RTE_DIM(victims) && tp_neigh_iterate(&iter, &ip, &nh) == 0)
			if (tp_nh_table[nh].port == port && tp_nh_table[nh].learned)
				victims[n++] = ip;
		for (unsigned int i = 0; i < n; i++)
			tp_neigh_learn(victims[i], port, NULL);
	} while (n == RTE_DIM(victims));
}
