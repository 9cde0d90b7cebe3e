/* SPDX-License-Identifier: BSD-3-Clause */
/* The socket gateway's AE index: open addressing, linear probing, one thread. */
#include <errno.h>
#include <stdlib.h>

#include "../../../tables/keyed_hash.h"
#include "ae_index.h"
#include "../iotgw.h"

#define SLOTS (2 * TP_AE_MAX) /* a power of two, half full at most */
#define EMPTY UINT64_MAX
#define GONE (UINT64_MAX - 1)

static struct {
	uint64_t key;
	uint32_t idx;
} * slots;
static unsigned int count;
static uint32_t seed;

/* keyed (README: "Keyed hashes"): the key is the sender's address and port */
static unsigned int hash(uint64_t k)
{
	return tp_keyed_hash(&k, sizeof(k), seed) & (SLOTS - 1);
}

int tp_ae_index_init(size_t bytes, void **table)
{
	int ret = tp_hash_key_init();

	if (ret < 0)
		return ret;
	seed = tp_hash_seed();
	*table = calloc(1, bytes);
	if (*table == NULL)
		return -ENOMEM;
	slots = malloc(sizeof(*slots) * SLOTS);
	if (slots == NULL)
		goto free_table;
	for (unsigned int i = 0; i < SLOTS; i++)
		slots[i].key = EMPTY;
	return 0;
free_table:
	free(*table);
	*table = NULL;
	return -ENOMEM;
}

void tp_ae_index_fini(void *table)
{
	free(slots);
	slots = NULL;
	free(table);
}

static int find(uint64_t key)
{
	for (unsigned int i = hash(key), n = 0; n < SLOTS; i = (i + 1) & (SLOTS - 1), n++) {
		if (slots[i].key == key)
			return (int)i;
		if (slots[i].key == EMPTY)
			return -ENOENT;
	}
	return -ENOENT;
}

int tp_ae_index_add(uint64_t key, uint32_t idx)
{
	int at = find(key);

	if (at >= 0) {
		slots[at].idx = idx;
		return 0;
	}
	if (count >= TP_AE_MAX)
		return -ENOSPC;
	for (unsigned int i = hash(key);; i = (i + 1) & (SLOTS - 1)) {
		if (slots[i].key == EMPTY || slots[i].key == GONE) {
			slots[i].key = key;
			slots[i].idx = idx;
			count++;
			return 0;
		}
	}
}

int tp_ae_index_lookup(uint64_t key)
{
	int at = find(key);

	return at < 0 ? at : (int)slots[at].idx;
}

void tp_ae_index_del(uint64_t key, uint32_t idx)
{
	int at = find(key);

	if (at < 0)
		return;
	slots[at].key = GONE;
	count--;
	tp_ae_slot_free(idx); /* no concurrent reader here */
}

unsigned int tp_ae_index_count(void)
{
	return count;
}
