/* SPDX-License-Identifier: BSD-3-Clause */
/* AE table: agent (address, port) -> entry, through the index of ae_index.h. */
#include <errno.h>
#include <string.h>

#include "../../../proto/onem2m.h"
#include "ae_index.h"
#include "../iotgw.h"

struct tp_ae *tp_ae_table;
static uint32_t free_list[TP_AE_MAX];
static unsigned int n_free;
/* the free list's lock: the daemon frees slots on its control thread after a grace
 * period while a single-plane lcore may be creating entries (held for a few
 * instructions) */
static volatile int free_lock;

static void free_list_lock(void)
{
	while (__atomic_exchange_n(&free_lock, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&free_lock, __ATOMIC_RELAXED))
			;
}

static void free_list_unlock(void)
{
	__atomic_store_n(&free_lock, 0, __ATOMIC_RELEASE);
}

static uint64_t ae_key(uint32_t ip, uint16_t port)
{
	return (uint64_t)ip << 16 | port;
}

void tp_ae_slot_free(uint32_t idx)
{
	uint16_t gen = tp_ae_table[idx].gen;
	memset(&tp_ae_table[idx], 0, sizeof(tp_ae_table[idx]));
	tp_ae_table[idx].gen = gen;
	free_list_lock();
	free_list[n_free++] = idx;
	free_list_unlock();
}

int tp_ae_init(void)
{
	void *t;

	if (tp_ae_table != NULL)
		return 0;
	if (tp_ae_index_init(sizeof(*tp_ae_table) * TP_AE_MAX, &t) < 0)
		return -ENOMEM;
	tp_ae_table = t;
	for (uint32_t i = 0; i < TP_AE_MAX; i++)
		free_list[i] = TP_AE_MAX - 1 - i;
	n_free = TP_AE_MAX;
	return 0;
}

void tp_ae_fini(void)
{
	if (tp_ae_table == NULL)
		return;
	tp_ae_index_fini(tp_ae_table);
	tp_ae_table = NULL;
	n_free = 0;
}

int tp_ae_lookup(uint32_t ip, uint16_t port)
{
	return tp_ae_index_lookup(ae_key(ip, port));
}

int tp_ae_create(uint32_t ip, uint16_t port, const uint8_t sysid[8], uint64_t l2src)
{
	struct tp_ae *e;
	uint32_t idx;

	free_list_lock();
	if (n_free == 0) {
		free_list_unlock();
		return -ENOSPC;
	}
	idx = free_list[--n_free];
	free_list_unlock();
	e = &tp_ae_table[idx];
	uint16_t gen = (uint16_t)(e->gen + 1);
	memset(e, 0, sizeof(*e));
	e->gen = gen ? gen : 1;
	e->ip = ip;
	e->port = port;
	e->l2src = l2src; /* before the index has it: no reader sees the entry unbound */
	memcpy(e->sysid, sysid, 8);
	tp_m2m_phd_ae_name(sysid, e->ae_name);
	tp_m2m_phd_originator(sysid, e->origin);
	e->state = TP_AE_CONFIGURING;
	if (tp_ae_index_add(ae_key(ip, port), idx) < 0) {
		free_list_lock();
		free_list[n_free++] = idx;
		free_list_unlock();
		return -ENOSPC;
	}
	return (int)idx;
}

void tp_ae_delete(int idx)
{
	/* unusable first, then gone; the slot is freed once no reader holds it */
	__atomic_store_n(&tp_ae_table[idx].state, TP_AE_FAILED, __ATOMIC_RELEASE);
	tp_ae_index_del(ae_key(tp_ae_table[idx].ip, tp_ae_table[idx].port), (uint32_t)idx);
}

unsigned int tp_ae_count(void)
{
	return tp_ae_table ? tp_ae_index_count() : 0;
}

void tp_ae_set_state(int idx, enum tp_ae_state s)
{
	struct tp_ae *e = &tp_ae_table[idx];

	/* the workers read the templates once they see READY (release below); one that
	 * does not fit (a long path) stays empty: the general encoder makes its requests */
	if (s == TP_AE_READY)
		for (unsigned int m = 0; m < e->n_metrics && m < TP_AE_MAX_METRICS; m++) {
			struct tp_ae_metric *mt = &e->metric[m];
			struct tp_m2m_create r = tp_iotgw_cin_create(e, mt);
			if (tp_m2m_create_tmpl(&mt->cin, &r) < 0)
				mt->cin.len = 0;
			/* the value's offsets; an object the layout cannot describe is
			 * decoded by tp_phd_fixed_values() */
			const struct tp_phd_obj_map *om =
			    tp_phd_value_map_find(&e->map, mt->handle);
			mt->fixed = om != NULL && tp_phd_fixed_layout_build(om, &mt->lay) == 0;
		}
	__atomic_store_n(&tp_ae_table[idx].state, (uint8_t)s, __ATOMIC_RELEASE);
}

const char *tp_ae_state_name(uint8_t s)
{
	static const char *const names[] = {"free",	   "configuring", "querying",
					    "registering", "ready",	  "failed"};
	return s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}
