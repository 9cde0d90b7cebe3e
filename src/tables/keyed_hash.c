/* SPDX-License-Identifier: BSD-3-Clause */
/* The process's hash key and rte_hash's keyed hash function (keyed_hash.h). */
#include <errno.h>
#include <sys/random.h>

#include "keyed_hash.h"

uint64_t tp_hash_key[2];
static int key_drawn;

int tp_random_bytes(void *buf, size_t n)
{
	uint8_t *p = buf;

	while (n) {
		ssize_t k = getrandom(p, n, 0); /* blocks only until the kernel's pool is ready */
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

int tp_hash_key_init(void)
{
	uint64_t k[2];
	int ret;

	if (__atomic_load_n(&key_drawn, __ATOMIC_ACQUIRE))
		return 0;
	if ((ret = tp_random_bytes(k, sizeof(k))) < 0)
		return ret;
	/* the control thread draws it before any table exists: no race to settle */
	tp_hash_key[0] = k[0];
	tp_hash_key[1] = k[1];
	__atomic_store_n(&key_drawn, 1, __ATOMIC_RELEASE);
	return 0;
}

uint32_t tp_hash_seed(void)
{
	uint32_t s = 0;

	(void)tp_random_bytes(&s, sizeof(s));
	return s;
}

uint32_t tp_keyed_hash(const void *key, uint32_t len, uint32_t init_val)
{
	const uint64_t k[2] = {tp_hash_key[0] ^ init_val, tp_hash_key[1]};

	return (uint32_t)tp_siphash13(k, key, len);
}
