/* SPDX-License-Identifier: BSD-3-Clause */
/* Keyed hashing (review N4, N9, F15): SipHash against its published vectors, the NDN
 * name hashes against plain SipHash, and the attacks the unkeyed hashes allowed, run
 * against the real tables:
 * - 20,000 one-component names made to collide under the old name hash (CRC32C chained
 *   from a seed, for every seed: solved 4 bytes per name over GF(2), the review's
 *   ndn-crc reproduction) go into a real PCCT (ndn_pcc_find + ndn_pcc_insert) with
 *   chains as short as 20,000 random names', where the old hash put them all in one;
 * - 17 MAC keys made to share both cuckoo buckets of a 256-entry rte_hash under
 *   rte_jhash with seed 0 (the old tp_rcu_hash_create): that table refuses the 17th
 *   while nearly empty; the keyed one takes them all. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_jhash.h>
#include <rte_random.h>

#include "../../src/nf/l2/l2.h"
#include "../../src/nf/ndn/ndn.h"
#include "../../src/tables/keyed_hash.h"
#include "../../src/tables/rcu_hash.h"
#include "../tools/ndn_crc_collide.h"
#include "eal_fixture.h"

/* The reference implementation's vectors (github.com/veorq/SipHash, vectors.h, as in
 * the paper's appendix): key 00..0f, message 00..len-1 */
static void test_siphash24_vectors(void **state)
{
	static const struct {
		size_t len;
		uint64_t want;
	} v[] = {{0, 0x726fdb47dd0e0e31ull},  {1, 0x74f839c593dc67fdull},
		 {7, 0xab0200f58b01d137ull},  {8, 0x93f5f5799a932462ull},
		 {15, 0xa129ca6149be45e5ull}, {16, 0x3f2acc7f57c29bdbull},
		 {63, 0x958a324ceb064572ull}};
	const uint64_t key[2] = {0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull};
	uint8_t msg[64];

	for (int i = 0; i < 64; i++)
		msg[i] = (uint8_t)i;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		assert_int_equal(tp_siphash24(key, msg, v[i].len), v[i].want);
		assert_int_equal(ndn_siphash(key, msg, v[i].len), v[i].want); /* the NDT's */
	}
}

/* SipHash-1-3, key 0, message 00..len-1: the reference implementation's output as
 * OCaml's runtime test (testsuite/tests/hash/sip13.ml) and the digest-sip-hash crate
 * list it */
static void test_siphash13_vectors(void **state)
{
	static const struct {
		size_t len;
		uint64_t want;
	} v[] = {{0, 0xd1fba762150c532cull},  {1, 0x68a914128e01e473ull},
		 {7, 0x2f098ab0c751325aull},  {8, 0xead411e67ebe2eeaull},
		 {15, 0xf30eb725bb91c9eaull}, {16, 0x8972188433a5c5b7ull},
		 {63, 0x385d3e39e5f37359ull}};
	const uint64_t key[2] = {0, 0};
	uint8_t msg[64];

	for (int i = 0; i < 64; i++)
		msg[i] = (uint8_t)i;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_int_equal(tp_siphash13(key, msg, v[i].len), v[i].want);
}

/* Every prefix's hash from one pass equals the hash of the prefix alone (SipHash-1-3:
 * SipHash-1-3 of it), for prefix ends on and off word boundaries, below 8 and 16
 * bytes, and equal ends; both implementations of the name hashes */
static void test_prefixes(void **state)
{
	uint64_t key[2] = {rte_rand(), rte_rand()};
	struct tp_aeshash_key ak;
	uint8_t msg[40 * 19 + 1]; /* the longest prefix and a byte past it */
	uint16_t ends[40];
	uint32_t out[40], one, last = 0;
	bool aes = tp_aeshash_usable();

	/* its CPUID bits are the CPU's features as the compiler's runtime reads them */
	assert_int_equal(aes, __builtin_cpu_supports("aes") && __builtin_cpu_supports("sse4.1"));
	assert_int_equal(tp_random_bytes(&ak, sizeof(ak)), 0);
	if (!aes)
		print_message("no AES-NI: the keyed AES rounds not tested\n");
	for (int round = 0; round < 4000; round++) {
		for (size_t i = 0; i < sizeof(msg); i++)
			msg[i] = (uint8_t)rte_rand();
		unsigned int n = 1 + (unsigned int)rte_rand_max(40), at = 0;
		for (unsigned int i = 0; i < n; i++) {
			at += (unsigned int)rte_rand_max(round % 2 ? 3 : 20);
			ends[i] = (uint16_t)at;
		}
		tp_siphash13_prefixes(key, msg, ends, n, out);
		for (unsigned int i = 0; i < n; i++)
			assert_int_equal(out[i], (uint32_t)tp_siphash13(key, msg, ends[i]));
		if (!aes)
			continue;
		tp_aeshash_prefixes(&ak, msg, ends, n, out);
		for (unsigned int i = 0; i < n; i++) {
			tp_aeshash_prefixes(&ak, msg, &ends[i], 1, &one);
			assert_int_equal(out[i], one);
			/* a byte past the prefix changes nothing, one inside it changes it */
			msg[ends[i]] ^= 1;
			tp_aeshash_prefixes(&ak, msg, &ends[i], 1, &one);
			assert_int_equal(out[i], one);
			msg[ends[i]] ^= 1;
			if (ends[i] && (i == 0 || ends[i] != ends[i - 1])) {
				msg[ends[i] - 1] ^= 0x80;
				tp_aeshash_prefixes(&ak, msg, &ends[i], 1, &one);
				assert_int_not_equal(out[i], one); /* 2^-32 to fail */
				msg[ends[i] - 1] ^= 0x80;
			}
			if (i && ends[i] != ends[i - 1])
				assert_int_not_equal(out[i], out[i - 1]);
		}
		last ^= out[0];
	}
	(void)last;
}

/* /a/bb/ccc... : each prefix's hash among the name's is the hash of that prefix as a
 * name of its own, and the FIB finds an entry by the hashes of a longer name */
static void test_name_hashes(void **state)
{
	uint8_t v[512];
	struct tp_ndn_name n, p;
	uint32_t all[TP_NDN_NAME_MAX_COMPS], own[TP_NDN_NAME_MAX_COMPS];
	size_t len = 0;

	for (int c = 0; c < 20; c++) {
		v[len++] = TP_NDN_T_GENERIC;
		v[len++] = (uint8_t)(c + 1);
		for (int j = 0; j <= c; j++)
			v[len++] = (uint8_t)('a' + c);
	}
	assert_int_equal(tp_ndn_name_decode(v, len, &n), TP_NDN_E_OK);
	assert_int_equal(n.n_comps, 20);
	ndn_name_hashes(&n, all);
	for (unsigned int i = 0; i < n.n_comps; i++) {
		assert_int_equal(tp_ndn_name_decode(v, n.comp_end[i], &p), TP_NDN_E_OK);
		ndn_name_hashes(&p, own);
		assert_int_equal(own[i], all[i]);
		if (i)
			assert_int_not_equal(all[i], all[i - 1]); /* 2^-32 to fail */
	}
	const struct ndn_nexthop nh = {.face = 1, .cost = 0};
	assert_int_equal(ndn_fib_set(v, n.comp_end[1], &nh, 1), 0);
	assert_int_equal(ndn_fib_set(v, n.comp_end[6], &nh, 1), 0);
	const struct ndn_fib_entry *e = ndn_fib_lpm(&n, all);
	assert_non_null(e);
	assert_int_equal(e->name_len, n.comp_end[6]);
	assert_int_equal(tp_ndn_name_decode(v, n.comp_end[4], &p), TP_NDN_E_OK);
	ndn_name_hashes(&p, own);
	e = ndn_fib_lpm(&p, own);
	assert_non_null(e);
	assert_int_equal(e->name_len, n.comp_end[1]);
}

/* --- the ndn-crc reproduction (the method: tests/tools/ndn_crc_collide.h, which the
 * lab's ndn-crc-collide shares) --- */
#define N_NAMES 20000
#define NAME_LEN NDN_CRC_COMP_LEN /* 08 18, 16 random bytes, 4 solved, 4 zero */

/* The old name hash (fib.c before keyed hashing): CRC32C per component, chained from
 * the seed; for one component, rte_hash_crc(name, seed) */
static uint32_t old_hash(const uint8_t *p, uint32_t seed)
{
	return ndn_crc_old_comp(p, seed);
}

/* names[i]: N_NAMES distinct names, colliding under the old hash (CRC from 0
 * NDN_CRC_TARGET) or random (the bytes solved for left random) */
static void make_names(uint8_t (*names)[NAME_LEN], bool colliding, const uint32_t inv[32])
{
	for (int i = 0; i < N_NAMES; i++) {
		uint8_t *p = names[i], free[NDN_CRC_FREE + 4];
		for (size_t j = 0; j < sizeof(free); j++)
			free[j] = (uint8_t)rte_rand();
		memcpy(free, &i, sizeof(i)); /* distinct whatever the random bytes */
		if (colliding) {
			ndn_crc_component(p, free, inv);
			continue;
		}
		memset(p, 0, NAME_LEN);
		p[0] = TP_NDN_T_GENERIC;
		p[1] = NAME_LEN - 2;
		memcpy(p + 2, free, sizeof(free));
	}
}

struct pcct_run {
	double walked; /* entries compared per insert's find, on average */
	uint32_t longest;
	uint64_t cycles; /* per find + insert */
};

/* Insert every name into a PCCT of the defaults' bucket count (262,144: PIT 65,536
 * and CS 16,384 entries' worth), each after its ndn_pcc_find, as fwd.c does; hashes
 * by the old function (old, with old_seed) or the keyed ndn_name_hashes */
static struct pcct_run pcct_insert_all(uint8_t (*names)[NAME_LEN], uint32_t old_seed, bool old)
{
	struct ndn_fwd f = {0};
	uint32_t *h = malloc(N_NAMES * sizeof(*h));
	uint64_t walked = 0, t = 0;
	struct pcct_run r = {0};

	assert_non_null(h);
	ndn_conf.pit_capacity = 65536 + 2 * 16384; /* pcc_cap as the defaults' (no CS pools) */
	ndn_conf.cs_capacity = 0;
	assert_int_equal(ndn_pcct_create(&f, SOCKET_ID_ANY), 0);
	assert_int_equal(f.bucket_mask, 262143);
	for (int i = 0; i < N_NAMES; i++) {
		struct tp_ndn_name n;
		assert_int_equal(tp_ndn_name_decode(names[i], NAME_LEN, &n), TP_NDN_E_OK);
		if (old)
			h[i] = old_hash(names[i], old_seed);
		else
			ndn_name_hashes(&n, &h[i]);
	}
	for (int i = 0; i < N_NAMES; i++) {
		for (uint32_t j = f.bucket[h[i] & f.bucket_mask]; j; j = f.pcc[j].next)
			walked++;
		uint64_t t0 = rte_rdtsc();
		uint32_t e = ndn_pcc_find(&f, names[i], NAME_LEN, h[i]);
		if (e == 0)
			e = ndn_pcc_insert(&f, names[i], NAME_LEN, 1, h[i]);
		t += rte_rdtsc() - t0;
		assert_int_not_equal(e, 0);
	}
	uint64_t hit_walk = 0, used = 0;
	for (uint32_t b = 0; b <= f.bucket_mask; b++) {
		uint32_t len = 0;
		for (uint32_t j = f.bucket[b]; j; j = f.pcc[j].next)
			len++;
		r.longest = len > r.longest ? len : r.longest;
		hit_walk += (uint64_t)len * (len + 1) / 2;
		used += len > 0;
	}
	assert_int_equal(f.pcc_used, N_NAMES);
	/* what 'show ndn chains' gives (ndn_pcct_chains): the same, the table at rest */
	struct ndn_chain_stats cs;
	ndn_pcct_chains(&f, &cs);
	assert_false(cs.torn);
	assert_int_equal(cs.buckets, f.bucket_mask + 1);
	assert_int_equal(cs.entries, N_NAMES);
	assert_int_equal(cs.longest, r.longest);
	assert_int_equal(cs.hit_walk, hit_walk);
	assert_int_equal(cs.buckets - cs.by_len[0], used);
	uint64_t in_bins = 0;
	for (unsigned int k = 0; k < NDN_CHAIN_HIST; k++)
		in_bins += cs.by_len[k];
	assert_int_equal(in_bins, cs.buckets);
	if (r.longest >= NDN_CHAIN_HIST - 1) /* the old hash's one chain: the last bin */
		assert_int_equal(cs.by_len[NDN_CHAIN_HIST - 1], 1);
	/* every name found again */
	for (int i = 0; i < N_NAMES; i += 97)
		assert_int_not_equal(ndn_pcc_find(&f, names[i], NAME_LEN, h[i]), 0);
	ndn_pcct_free(&f);
	free(h);
	r.walked = (double)walked / N_NAMES;
	r.cycles = t / N_NAMES;
	return r;
}

static void test_ndn_crc_collisions(void **state)
{
	uint8_t(*bad)[NAME_LEN] = malloc(N_NAMES * NAME_LEN);
	uint8_t(*rnd)[NAME_LEN] = malloc(N_NAMES * NAME_LEN);
	uint32_t inv[32];
	uint32_t seeds[] = {0, (uint32_t)rte_rand(), (uint32_t)rte_rand()};

	assert_non_null(bad);
	assert_non_null(rnd);
	assert_int_equal(ndn_crc_solve_setup(inv), 0);
	make_names(bad, true, inv);
	make_names(rnd, false, inv);
	/* the attack is real: every name collides under the old hash, whatever the seed */
	for (size_t s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
		uint32_t h0 = old_hash(bad[0], seeds[s]);
		for (int i = 1; i < N_NAMES; i++)
			assert_int_equal(old_hash(bad[i], seeds[s]), h0);
	}
	/* both implementations of the name hashes (the daemon uses one), by the buckets
	 * alone: the fullest of 131,072 */
	uint64_t sk[2] = {rte_rand(), rte_rand()};
	struct tp_aeshash_key ak;
	uint32_t *count = calloc(131072, sizeof(*count)), most[2] = {0, 0};
	assert_non_null(count);
	assert_int_equal(tp_random_bytes(&ak, sizeof(ak)), 0);
	for (int impl = 0; impl < (tp_aeshash_usable() ? 2 : 1); impl++) {
		memset(count, 0, 131072 * sizeof(*count));
		for (int i = 0; i < N_NAMES; i++) {
			const uint16_t end = NAME_LEN;
			uint32_t h;
			if (impl == 0)
				tp_siphash13_prefixes(sk, bad[i], &end, 1, &h);
			else
				tp_aeshash_prefixes(&ak, bad[i], &end, 1, &h);
			if (++count[h & 131071] > most[impl])
				most[impl] = count[h & 131071];
		}
		assert_true(most[impl] <= 12);
	}
	free(count);
	print_message("fullest of 131,072 buckets: SipHash-1-3 %u, AES rounds %u\n", most[0],
		      most[1]);
	struct pcct_run old_bad = pcct_insert_all(bad, seeds[1], true);
	struct pcct_run new_bad = pcct_insert_all(bad, 0, false);
	struct pcct_run new_rnd = pcct_insert_all(rnd, 0, false);
	print_message("PCCT, %d names: old hash, colliding: longest chain %u, %.1f entries "
		      "walked and %" PRIu64 " cycles a find+insert; keyed, colliding: %u, %.2f, "
		      "%" PRIu64 "; keyed, random: %u, %.2f, %" PRIu64 "\n",
		      N_NAMES, old_bad.longest, old_bad.walked, old_bad.cycles, new_bad.longest,
		      new_bad.walked, new_bad.cycles, new_rnd.longest, new_rnd.walked,
		      new_rnd.cycles);
	/* the old hash: one chain of them all */
	assert_int_equal(old_bad.longest, N_NAMES);
	/* keyed: chains of random names'. 20,000 keys in 262,144 buckets: a chain of 13
	 * has a probability below 1e-18; walked ~ 0.04 on average */
	assert_true(new_bad.longest <= 12);
	assert_true(new_rnd.longest <= 12);
	assert_true(new_bad.walked < 0.2 && new_rnd.walked < 0.2);
	free(bad);
	free(rnd);
}

/* --- the MAC table's cuckoo buckets (N9) --- */
#define MAC_ENTRIES 256 /* 32 buckets of 8 */
#define MAC_KEYS 17	/* one more than two buckets hold */

/* Keys with the same primary bucket (low 5 bits) and short signature (top 16 bits:
 * the secondary bucket) under rte_jhash with seed 0: both buckets the same pair */
union mac_key {
	struct l2_key k;
	uint32_t w[3]; /* rte_jhash reads whole words: 2 bytes past a 10-byte key */
};

static void make_mac_keys(struct l2_key_buf *k)
{
	const uint32_t want = 0xbeef0011u, mask = 0xffff001fu;
	int n = 0;

	for (uint64_t c = rte_rand(); n < MAC_KEYS; c++) {
		union mac_key t = {.k = {.vlan = 10, .bridge = 1}};
		t.k.mac.addr_bytes[0] = 0x02;	       /* unicast, locally administered */
		memcpy(t.k.mac.addr_bytes + 1, &c, 5); /* distinct: c counts */
		if ((rte_jhash(&t, sizeof(t.k), 0) & mask) == want)
			k[n++].k = t.k;
	}
}

static int add_all(struct rte_hash *h, const struct l2_key_buf *k)
{
	for (int i = 0; i < MAC_KEYS; i++)
		if (rte_hash_add_key_data(h, &k[i].k, (void *)(uintptr_t)(i + 1)) < 0)
			return i;
	return MAC_KEYS;
}

static void test_mac_cuckoo_collisions(void **state)
{
	/* each key with room after it: rte_jhash reads the last one's 2 bytes past its end
	 * too (l2.h; test_hash_asan found this array's last key read past) */
	struct l2_key_buf k[MAC_KEYS];
	uint64_t t0 = rte_rdtsc();

	make_mac_keys(k);
	print_message("%d MAC keys sharing both buckets under rte_jhash seed 0: %.1f s\n", MAC_KEYS,
		      (double)(rte_rdtsc() - t0) / (double)rte_get_tsc_hz());
	/* the old table: tp_rcu_hash_create before keyed hashing */
	struct rte_hash_parameters p = {
	    .name = "test_mac_old",
	    .entries = MAC_ENTRIES,
	    .key_len = sizeof(struct l2_key),
	    .hash_func = rte_jhash,
	    .socket_id = SOCKET_ID_ANY,
	    .extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF,
	};
	struct rte_hash *old = rte_hash_create(&p);
	assert_non_null(old);
	assert_int_equal(add_all(old, k), MAC_KEYS - 1); /* 16 in, the 17th refused */
	assert_int_equal(rte_hash_count(old), MAC_KEYS - 1);
	rte_hash_free(old);
	/* the keyed one, as the L2 module makes it */
	struct rte_hash *h =
	    tp_rcu_hash_create("test_mac_keyed", MAC_ENTRIES, sizeof(struct l2_key));
	assert_non_null(h);
	assert_int_equal(add_all(h, k), MAC_KEYS);
	for (int i = 0; i < MAC_KEYS; i++) {
		void *d;
		assert_true(rte_hash_lookup_data(h, &k[i].k, &d) >= 0);
		assert_int_equal((uintptr_t)d, i + 1);
	}
	rte_hash_free(h);
}

/* tp_keyed_hash: each table its own key (init_val), the process key drawn */
static void test_keyed_hash_seeds(void **state)
{
	const uint8_t key[12] = {2, 0, 0, 0, 0, 1, 0, 10, 0, 1}; /* 10 bytes hashed */

	assert_int_equal(tp_hash_key_init(), 0);
	assert_true(tp_hash_key[0] != 0 || tp_hash_key[1] != 0);
	const uint64_t k[2] = {tp_hash_key[0] ^ 7, tp_hash_key[1]};
	assert_int_equal(tp_keyed_hash(key, 10, 7), (uint32_t)tp_siphash13(k, key, 10));
	assert_int_not_equal(tp_keyed_hash(key, 10, 7), tp_keyed_hash(key, 10, 8));
	/* information: the cost against the unkeyed functions it replaces */
	volatile uint32_t sink = 0;
	uint64_t t0 = rte_rdtsc();
	for (uint32_t i = 0; i < 1000000; i++)
		sink += tp_keyed_hash(key, 10, i);
	uint64_t t1 = rte_rdtsc();
	for (uint32_t i = 0; i < 1000000; i++)
		sink += rte_jhash(key, 10, i);
	uint64_t t2 = rte_rdtsc();
	print_message("10-byte key: SipHash-1-3 %.1f cycles, rte_jhash %.1f\n",
		      (double)(t1 - t0) / 1e6, (double)(t2 - t1) / 1e6);
	(void)sink;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_siphash24_vectors),  cmocka_unit_test(test_siphash13_vectors),
	    cmocka_unit_test(test_prefixes),	       cmocka_unit_test(test_name_hashes),
	    cmocka_unit_test(test_ndn_crc_collisions), cmocka_unit_test(test_mac_cuckoo_collisions),
	    cmocka_unit_test(test_keyed_hash_seeds),
	};

	if (tp_test_eal_init() < 0 || ndn_fib_init() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
