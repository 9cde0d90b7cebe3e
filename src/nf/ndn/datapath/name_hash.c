/* SPDX-License-Identifier: BSD-3-Clause */
/* The name hashes of the FIB and the PCCT: one keyed hash per name prefix, so that
 * colliding names cannot be computed offline (review N4). Keyed AES rounds where the
 * CPU has AES-NI, else SipHash-1-3 (tables/keyed_hash.h), under keys drawn from the
 * kernel at start.
 *
 * Its own file, the last of the module's in the link (meson.build): a change of this
 * function's size (the CRC32C it replaced, built for bench/ndn_ab.py's "before")
 * moves no other code of the NDN fast path, whose alignment would otherwise differ
 * between the two builds and be measured with the hash (decision
 * 0099). */
#include <stdbool.h>

#include "../../../tables/keyed_hash.h"
#include "../ndn.h"

static struct tp_aeshash_key aes_key;
static uint64_t sip_key[2];
static bool use_aes;

/* Keyed: colliding names cannot be computed offline. The CRC32C chained from a random
 * seed this replaces was affine in the seed, so names made to collide with seed 0
 * collided with every seed (review N4). Each prefix's hash is of its bytes alone,
 * the words absorbed once for all prefixes: linear in the name's length. */
static __attribute__((noinline)) void name_hashes_sip(const struct tp_ndn_name *n, uint32_t *hashes)
{
	tp_siphash13_prefixes(sip_key, n->value, n->comp_end, n->n_comps, hashes);
}

void ndn_name_hashes(const struct tp_ndn_name *n, uint32_t *hashes)
{
	if (likely(use_aes)) /* a branch and a jump: neither saves a register */
		tp_aeshash_prefixes(&aes_key, n->value, n->comp_end, n->n_comps, hashes);
	else
		name_hashes_sip(n, hashes);
}

int ndn_name_hash_init(void)
{
	int ret;

	if ((ret = tp_random_bytes(&aes_key, sizeof(aes_key))) < 0 ||
	    (ret = tp_random_bytes(sip_key, sizeof(sip_key))) < 0)
		return ret;
	use_aes = tp_aeshash_usable();
	return 0;
}
