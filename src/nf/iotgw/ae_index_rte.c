/* SPDX-License-Identifier: BSD-3-Clause */
/* The daemon's AE index: rte_hash with lock-free reads, RCU (SYNC) reclamation. */
#include <errno.h>

#include <rte_hash.h>
#include <rte_malloc.h>

#include "../../tables/rcu_hash.h"
#include "ae_index.h"
#include "iotgw.h"

static struct rte_hash *ae_hash;

/* rte_hash calls this once no reader can hold the index any more (RCU SYNC). */
static void ae_free(void *p, void *data)
{
	(void)p;
	tp_ae_slot_free((uint32_t)(uintptr_t)data);
}

int tp_ae_index_init(struct rte_rcu_qsbr *qs, size_t bytes, void **table)
{
	*table = rte_zmalloc("tp_ae_table", bytes, RTE_CACHE_LINE_SIZE);
	ae_hash = tp_rcu_hash_create("tp_ae", TP_AE_MAX, sizeof(uint64_t), qs, ae_free);
	return *table == NULL || ae_hash == NULL ? -ENOMEM : 0;
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
	rte_hash_del_key(ae_hash, &key);
}

unsigned int tp_ae_index_count(void)
{
	return ae_hash ? (unsigned int)rte_hash_count(ae_hash) : 0;
}
