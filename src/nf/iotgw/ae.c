/* SPDX-License-Identifier: BSD-3-Clause */
/* AE table: agent (address, port) -> entry index, rte_hash with lock-free reads. */
#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_malloc.h>

#include "../../proto/onem2m.h"
#include "../../tables/rcu_hash.h"
#include "iotgw.h"

struct tp_ae *tp_ae_table;
static struct rte_hash *ae_hash;
static uint32_t free_list[TP_AE_MAX];
static unsigned int n_free;

static uint64_t ae_key(uint32_t ip, uint16_t port)
{
	return (uint64_t)ip << 16 | port;
}

/* rte_hash calls this once no reader can hold the index any more (RCU SYNC). */
static void ae_free(void *p, void *data)
{
	uint32_t idx = (uint32_t)(uintptr_t)data;

	uint16_t gen = tp_ae_table[idx].gen;
	memset(&tp_ae_table[idx], 0, sizeof(tp_ae_table[idx]));
	tp_ae_table[idx].gen = gen;
	free_list[n_free++] = idx;
}

int tp_ae_init(struct rte_rcu_qsbr *qs)
{
	if (ae_hash != NULL)
		return 0;
	tp_ae_table = rte_zmalloc("tp_ae_table", sizeof(*tp_ae_table) * TP_AE_MAX,
				  RTE_CACHE_LINE_SIZE);
	ae_hash = tp_rcu_hash_create("tp_ae", TP_AE_MAX, sizeof(uint64_t), qs, ae_free);
	if (tp_ae_table == NULL || ae_hash == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < TP_AE_MAX; i++)
		free_list[i] = TP_AE_MAX - 1 - i;
	n_free = TP_AE_MAX;
	return 0;
}

int tp_ae_lookup(uint32_t ip, uint16_t port)
{
	uint64_t k = ae_key(ip, port);
	void *data;

	if (rte_hash_lookup_data(ae_hash, &k, &data) < 0)
		return -ENOENT;
	return (int)(uintptr_t)data;
}

int tp_ae_create(uint32_t ip, uint16_t port, const uint8_t sysid[8])
{
	uint64_t k = ae_key(ip, port);
	struct tp_ae *e;
	uint32_t idx;

	if (n_free == 0)
		return -ENOSPC;
	idx = free_list[--n_free];
	e = &tp_ae_table[idx];
	uint16_t gen = (uint16_t)(e->gen + 1);
	memset(e, 0, sizeof(*e));
	e->gen = gen ? gen : 1;
	e->ip = ip;
	e->port = port;
	memcpy(e->sysid, sysid, 8);
	tp_m2m_phd_ae_name(sysid, e->ae_name);
	tp_m2m_phd_originator(sysid, e->origin);
	e->state = TP_AE_CONFIGURING;
	if (rte_hash_add_key_data(ae_hash, &k, (void *)(uintptr_t)idx) < 0) {
		free_list[n_free++] = idx;
		return -ENOSPC;
	}
	return (int)idx;
}

void tp_ae_delete(int idx)
{
	uint64_t k = ae_key(tp_ae_table[idx].ip, tp_ae_table[idx].port);

	/* unusable first, then gone; the slot is freed after the grace period */
	__atomic_store_n(&tp_ae_table[idx].state, TP_AE_FAILED, __ATOMIC_RELEASE);
	rte_hash_del_key(ae_hash, &k);
}

unsigned int tp_ae_count(void)
{
	return ae_hash ? (unsigned int)rte_hash_count(ae_hash) : 0;
}

void tp_ae_set_state(int idx, enum tp_ae_state s)
{
	__atomic_store_n(&tp_ae_table[idx].state, (uint8_t)s, __ATOMIC_RELEASE);
}

const char *tp_ae_state_name(uint8_t s)
{
	static const char *const names[] = {"free", "configuring", "registering", "ready",
					    "failed"};
	return s < RTE_DIM(names) ? names[s] : "?";
}
