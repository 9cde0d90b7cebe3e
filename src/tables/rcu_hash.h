/* SPDX-License-Identifier: BSD-3-Clause */
/* rte_hash with lock-free readers and reclamation after an RCU grace period: the
 * one constructor for the project's shared hashes (neighbours, the AE table).
 *
 * The writer (one at a time) never waits: a deleted key's slot, and the value it
 * held, are released by core/rcu.h's defer queue once no reader can hold them.
 * Values are 32-bit indexes (into a next-hop or AE array). */
#ifndef TP_TABLES_RCU_HASH_H
#define TP_TABLES_RCU_HASH_H

#include <stdint.h>

#include <rte_hash.h>

/* NULL with rte_errno set. */
struct rte_hash *tp_rcu_hash_create(const char *name, uint32_t entries, uint32_t key_len);
/* Delete key; after a grace period its slot is freed and release(value) runs (on the
 * control thread). 0 or -ENOENT. */
int tp_rcu_hash_del(struct rte_hash *h, const void *key, void (*release)(uint32_t value));

#endif
