/* SPDX-License-Identifier: BSD-3-Clause */
/* rte_hash with lock-free readers and RCU reclamation. */
#include <rte_errno.h>
#include <rte_jhash.h>

#include "rcu_hash.h"

struct rte_hash *tp_rcu_hash_create(const char *name, uint32_t entries, uint32_t key_len,
				    struct rte_rcu_qsbr *qs, rte_hash_free_key_data free_data)
{
	struct rte_hash_parameters p = {
		.name = name,
		.entries = entries,
		.key_len = key_len,
		.hash_func = rte_jhash,
		.socket_id = SOCKET_ID_ANY,
		.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF,
	};
	struct rte_hash_rcu_config rc = {
		.v = qs,
		.mode = RTE_HASH_QSBR_MODE_SYNC,
		.free_key_data_func = free_data,
	};
	struct rte_hash *h = rte_hash_create(&p);

	if (h == NULL)
		return NULL;
	if (qs != NULL && rte_hash_rcu_qsbr_add(h, &rc) != 0) {
		int err = rte_errno;
		rte_hash_free(h);
		rte_errno = err;
		return NULL;
	}
	return h;
}
