/* SPDX-License-Identifier: BSD-3-Clause */
/* The daemon's AE index: rte_hash with lock-free reads, slots reclaimed through the
 * RCU defer queue. */
#include <errno.h>

#include <rte_hash.h>
#include <rte_malloc.h>

#include "../../../tables/rcu_hash.h"
#include "ae_index.h"
#include "../iotgw.h"

static struct rte_hash *ae_hash;

/* Once no reader can hold the index any more (the control thread). */
static void ae_release(uint32_t idx)
{
	tp_ae_slot_free(idx);
}

int tp_ae_index_init(size_t bytes, void **table)
{
	*table = rte_zmalloc("tp_ae_table", bytes, RTE_CACHE_LINE_SIZE);
	if (*table == NULL)
		return -ENOMEM;
	ae_hash = tp_rcu_hash_create("tp_ae", TP_AE_MAX, sizeof(uint64_t));
	if (ae_hash == NULL)
		goto free_table;
	return 0;
free_table:
	rte_free(*table);
	*table = NULL;
	return -ENOMEM;
}

void tp_ae_index_fini(void *table)
{
	rte_hash_free(ae_hash);
	ae_hash = NULL;
	rte_free(table);
}

int tp_ae_index_add(uint64_t key, uint32_t idx)
{
	return rte_hash_add_key_data(ae_hash, &key, (void *)(uintptr_t)idx) < 0 ? -ENOSPC : 0;
}

int tp_ae_index_lookup(uint64_t key)
{
	void *data;

	if (rte_hash_lookup_data(ae_hash, &key, &data) < 0)
		return -ENOENT;
	return (int)(uintptr_t)data;
}

void tp_ae_index_del(uint64_t key, uint32_t idx)
{
	(void)idx;
	tp_rcu_hash_del(ae_hash, &key, ae_release);
}

unsigned int tp_ae_index_count(void)
{
	return ae_hash ? (unsigned int)rte_hash_count(ae_hash) : 0;
}
