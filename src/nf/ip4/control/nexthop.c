/* SPDX-License-Identifier: BSD-3-Clause */
/* Next-hop table storage and free list. */
#include <errno.h>

#include <rte_malloc.h>

#include "nexthop.h"

struct tp_nexthop *tp_nh_table;
static uint32_t nh_free_head;
static unsigned int nh_used;

int tp_nh_init_size(unsigned int n)
{
	static const uint8_t zero[6];

	if (n <= TP_NH_FIRST || n > TP_NH_MAX)
		return -EINVAL;
	tp_nh_table = rte_zmalloc("tp_nexthops", sizeof(*tp_nh_table) * n, RTE_CACHE_LINE_SIZE);
	if (tp_nh_table == NULL)
		return -ENOMEM;
	for (uint32_t i = TP_NH_FIRST; i < n; i++)
		tp_nh_table[i].next_free = i + 1 < n ? i + 1 : 0;
	nh_free_head = TP_NH_FIRST;
	tp_nh_table[TP_NH_PUNT].in_use = 1;
	tp_nh_set_l2(TP_NH_PUNT, zero, 0, TP_NH_F_PUNT);
	for (uint32_t i = TP_NH_CONNECTED; i < TP_NH_FIRST; i++) {
		tp_nh_table[i].in_use = 1;
		tp_nh_set_l2(i, zero, 0, 0);
	}
	nh_used = TP_NH_FIRST;
	return 0;
}

int tp_nh_init(void)
{
	return tp_nh_init_size(TP_NH_MAX);
}

void tp_nh_fini(void)
{
	rte_free(tp_nh_table);
	tp_nh_table = NULL;
}

int tp_nh_alloc(uint32_t ip, uint16_t port)
{
	static const uint8_t zero[6];
	uint32_t id = nh_free_head;

	if (id == 0)
		return -ENOSPC;
	nh_free_head = tp_nh_table[id].next_free;
	tp_nh_table[id].ip = ip;
	tp_nh_table[id].port = port;
	tp_nh_table[id].refcnt = 0;
	tp_nh_table[id].in_use = 1;
	tp_nh_set_l2(id, zero, port, 0);
	nh_used++;
	return (int)id;
}

void tp_nh_free(uint32_t id)
{
	static const uint8_t zero[6];

	if (tp_nh_special(id) || id >= TP_NH_MAX || !tp_nh_table[id].in_use)
		return;
	tp_nh_set_l2(id, zero, 0, 0);
	tp_nh_table[id].in_use = 0;
	tp_nh_table[id].ip = 0;
	tp_nh_table[id].next_free = nh_free_head;
	nh_free_head = id;
	nh_used--;
}

void tp_nh_set_l2(uint32_t id, const uint8_t mac[6], uint16_t port, uint8_t flags)
{
	__atomic_store_n(&tp_nh_table[id].l2, tp_nh_l2_make(mac, port, flags), __ATOMIC_RELEASE);
}

bool tp_nh_full(void)
{
	return nh_free_head == 0;
}

unsigned int tp_nh_count(void)
{
	return nh_used;
}
