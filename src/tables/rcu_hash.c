/* SPDX-License-Identifier: BSD-3-Clause */
/* rte_hash with lock-free readers, slots reclaimed through the RCU defer queue. */
#include <errno.h>
#include <stdlib.h>

#include <rte_errno.h>
#include <rte_lcore.h>

#include "../core/log.h"
#include "../core/rcu.h"
#include "../core/tp.h"
#include "keyed_hash.h"
#include "rcu_hash.h"

struct tp_rcu_hash_del {
	struct rte_hash *h;
	int32_t pos;
	uint32_t value;
	void (*release)(uint32_t value);
};

struct rte_hash *tp_rcu_hash_create(const char *name, uint32_t entries, uint32_t key_len)
{
	int ret = tp_hash_key_init();

	if (ret < 0) {
		rte_errno = -ret;
		return NULL;
	}
	/* the keys are an outsider's (MACs, addresses and ports): a keyed hash, its own
	 * key per table (README: "Keyed hashes") */
	struct rte_hash_parameters p = {
	    .name = name,
	    .entries = entries,
	    .key_len = key_len,
	    .hash_func = tp_keyed_hash,
	    .hash_func_init_val = tp_hash_seed(),
	    .socket_id = SOCKET_ID_ANY,
	    /* lock-free readers; with no RCU attached, a deleted key's slot stays
	     * taken until rte_hash_free_key_with_position() */
	    .extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF,
	};

	return rte_hash_create(&p);
}

static void reclaim(void *a, void *b)
{
	struct tp_rcu_hash_del *d = a;

	rte_hash_free_key_with_position(d->h, d->pos);
	if (d->release)
		d->release(d->value);
	free(d);
}

int tp_rcu_hash_del(struct rte_hash *h, const void *key, void (*release)(uint32_t value))
{
	struct tp_rcu_hash_del *d = malloc(sizeof(*d));
	void *data;
	int32_t pos;

	if (d == NULL)
		return -ENOMEM;
	if (rte_hash_lookup_data(h, key, &data) < 0 || (pos = rte_hash_del_key(h, key)) < 0) {
		free(d);
		return -ENOENT;
	}
	*d = (struct tp_rcu_hash_del){h, pos, (uint32_t)(uintptr_t)data, release};
	if (tp_rcu_defer(reclaim, d, NULL) < 0) {
		/* never expected (the queue holds 16k and is emptied every millisecond):
		 * the control thread waits rather than leak; an lcore must not wait */
		TP_LOG(WARNING, "hash %p: defer queue full", (void *)h);
		if (rte_lcore_id() == rte_get_main_lcore()) {
			rte_rcu_qsbr_synchronize(tp.qs, RTE_QSBR_THRID_INVALID);
			reclaim(d, NULL);
		}
	}
	return 0;
}
