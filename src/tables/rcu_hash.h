/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared tables on rte_hash: one writer (the control plane), lock-free readers,
 * entries reclaimed after an RCU grace period. */
#ifndef TP_TABLES_RCU_HASH_H
#define TP_TABLES_RCU_HASH_H

#include <stdint.h>

#include <rte_hash.h>
#include <rte_rcu_qsbr.h>

/* A hash of entries keys of key_len bytes, lock-free for readers, registered
 * with qs (when not NULL) in SYNC mode: a delete returns after the grace
 * period, having called free_data(NULL, data). NULL with rte_errno set. */
struct rte_hash *tp_rcu_hash_create(const char *name, uint32_t entries, uint32_t key_len,
				    struct rte_rcu_qsbr *qs, rte_hash_free_key_data free_data);

#endif
