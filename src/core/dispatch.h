/* SPDX-License-Identifier: BSD-3-Clause */
/* A small table from a 16-bit key (network order) to a handler, read lock-free by the
 * lcores: the l3 mode's ethertype table, the router's local UDP port table.
 *
 * The control plane appends entries (never removes one) and publishes each with a
 * release store of the count, so an lcore sees a complete entry or none. Handlers
 * are stored type-erased; each table's own wrapper casts them back to its type. */
#ifndef TP_CORE_DISPATCH_H
#define TP_CORE_DISPATCH_H

#include <errno.h>
#include <stdint.h>

#define TP_DISPATCH_MAX 16

typedef void (*tp_dispatch_fn)(void);

struct tp_dispatch {
	unsigned int n;
	struct {
		uint16_t key_be;
		tp_dispatch_fn fn;
		const char *owner; /* module name, for show */
	} e[TP_DISPATCH_MAX];
};

/* Control plane. 0, -EEXIST or -ENOSPC. */
static inline int tp_dispatch_add(struct tp_dispatch *t, uint16_t key_be, tp_dispatch_fn fn,
				  const char *owner)
{
	for (unsigned int i = 0; i < t->n; i++)
		if (t->e[i].key_be == key_be)
			return -EEXIST;
	if (t->n == TP_DISPATCH_MAX)
		return -ENOSPC;
	t->e[t->n].key_be = key_be;
	t->e[t->n].fn = fn;
	t->e[t->n].owner = owner;
	__atomic_store_n(&t->n, t->n + 1, __ATOMIC_RELEASE);
	return 0;
}

/* Any thread: the handler for key_be, or NULL. */
static inline tp_dispatch_fn tp_dispatch_find(const struct tp_dispatch *t, uint16_t key_be)
{
	unsigned int n = __atomic_load_n(&t->n, __ATOMIC_ACQUIRE);

	for (unsigned int i = 0; i < n; i++)
		if (t->e[i].key_be == key_be)
			return t->e[i].fn;
	return NULL;
}

#endif
