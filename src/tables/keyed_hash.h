/* SPDX-License-Identifier: BSD-3-Clause */
/* Keyed hashing for every table whose keys an outsider chooses (README.md: "Keyed
 * hashes"): SipHash (Aumasson and Bernstein, "SipHash: a fast short-input PRF",
 * INDOCRYPT 2012), under a key drawn from the kernel (getrandom) when the process
 * starts, so that nobody can compute colliding keys offline. SipHash-1-3 (one round
 * per word, three to finish) for the tables, as Rust's and CPython's hash tables;
 * SipHash-2-4 where the NDT spreads names over lcores; keyed AES rounds for the NDN
 * name hashes when the CPU has AES-NI (below).
 *
 * No DPDK here: the socket gateway links it too. Little-endian host (x86-64): the
 * words are the message's bytes in little-endian order, as the paper's. */
#ifndef TP_TABLES_KEYED_HASH_H
#define TP_TABLES_KEYED_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cpuid.h>
#include <immintrin.h>

/* The state: v0..v3 (paper, section 2) */
struct tp_sip {
	uint64_t v0, v1, v2, v3;
};

static inline uint64_t tp_sip_rotl(uint64_t x, unsigned int b)
{
	return x << b | x >> (64 - b);
}

/* SipRound (paper, figure 2.1) */
static inline void tp_sip_round(struct tp_sip *s)
{
	s->v0 += s->v1;
	s->v1 = tp_sip_rotl(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = tp_sip_rotl(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = tp_sip_rotl(s->v3, 16);
	s->v3 ^= s->v2;
	s->v0 += s->v3;
	s->v3 = tp_sip_rotl(s->v3, 21);
	s->v3 ^= s->v0;
	s->v2 += s->v1;
	s->v1 = tp_sip_rotl(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = tp_sip_rotl(s->v2, 32);
}

/* Initialization (section 2.1): the key k0, k1 into the four constants */
static inline void tp_sip_init(struct tp_sip *s, const uint64_t key[2])
{
	s->v0 = 0x736f6d6570736575ull ^ key[0];
	s->v1 = 0x646f72616e646f6dull ^ key[1];
	s->v2 = 0x6c7967656e657261ull ^ key[0];
	s->v3 = 0x7465646279746573ull ^ key[1];
}

/* Compression of one word m, c SipRounds (section 2.2) */
static inline void tp_sip_absorb(struct tp_sip *s, uint64_t m, unsigned int c)
{
	s->v3 ^= m;
	for (unsigned int i = 0; i < c; i++)
		tp_sip_round(s);
	s->v0 ^= m;
}

/* Finalization, d SipRounds (section 2.3): the 64-bit output */
static inline uint64_t tp_sip_final(struct tp_sip s, unsigned int d)
{
	s.v2 ^= 0xff;
	for (unsigned int i = 0; i < d; i++)
		tp_sip_round(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

static inline uint64_t tp_sip_load(const uint8_t *p)
{
	uint64_t m;
	memcpy(&m, p, 8);
	return m;
}

/* The last word (section 2.2) of a message of len bytes whose whole words end at
 * p + at: its 0-7 bytes left, then len mod 256 in the top byte. Reads only p[0, len). */
static inline uint64_t tp_sip_last(const uint8_t *p, size_t at, size_t len)
{
	size_t left = len - at;
	uint64_t m = 0;

	if (left && len >= 8) /* the 8 bytes ending at len, the ones before at shifted out */
		m = tp_sip_load(p + len - 8) >> (64 - 8 * left);
	else
		for (size_t j = 0; j < left; j++)
			m |= (uint64_t)p[at + j] << (8 * j);
	return m | (uint64_t)len << 56;
}

/* SipHash-c-d of p[0, len) */
static inline uint64_t tp_siphash_cd(const uint64_t key[2], const void *msg, size_t len,
				     unsigned int c, unsigned int d)
{
	const uint8_t *p = msg;
	struct tp_sip s;
	size_t at = 0;

	tp_sip_init(&s, key);
	for (; at + 8 <= len; at += 8)
		tp_sip_absorb(&s, tp_sip_load(p + at), c);
	tp_sip_absorb(&s, tp_sip_last(p, at, len), c);
	return tp_sip_final(s, d);
}

static inline uint64_t tp_siphash13(const uint64_t key[2], const void *msg, size_t len)
{
	return tp_siphash_cd(key, msg, len, 1, 3);
}

static inline uint64_t tp_siphash24(const uint64_t key[2], const void *msg, size_t len)
{
	return tp_siphash_cd(key, msg, len, 2, 4);
}

/* SipHash-1-3 of every prefix p[0, ends[i]) of one message, i < n (ends ascending):
 * out[i] its low 32 bits. The words are absorbed once, each prefix finished from a
 * copy of the state, so the cost is linear in ends[n - 1] plus 4 rounds a prefix.
 * out[i] == (uint32_t)tp_siphash13(key, p, ends[i]). */
static inline void tp_siphash13_prefixes(const uint64_t key[2], const uint8_t *p,
					 const uint16_t *ends, unsigned int n, uint32_t *out)
{
	struct tp_sip s;
	size_t at = 0;

	tp_sip_init(&s, key);
	for (unsigned int i = 0; i < n; i++) {
		size_t end = ends[i];
		for (; at + 8 <= end; at += 8)
			tp_sip_absorb(&s, tp_sip_load(p + at), 1);
		struct tp_sip t = s;
		tp_sip_absorb(&t, tp_sip_last(p, at, end), 1);
		out[i] = (uint32_t)tp_sip_final(t, 3);
	}
}

/* --- keyed AES rounds: the NDN name hashes' fast path ---
 *
 * AES-NI rounds (FIPS 197's round function) under random round keys, as Go's runtime
 * hashes its maps on amd64 (runtime/asm_amd64.s, aeshashbody: a per-process random
 * key schedule, 3 AESENC rounds to finish) against hash flooding: the state starts at
 * k[0]; each whole 16-byte block is XORed in and goes through 2 rounds (k[1], k[2]);
 * a prefix is finished from a copy: its last 0-15 bytes and its length mod 256 in the
 * top byte XORed in, 3 rounds (k[3..5]), the low 32 bits. An attacker who does not
 * know the keys cancels a block's difference with the next block's with probability
 * at most 53 / 2^34 (about 2^-28.3: the exact maximum expected differential
 * probability of two AES rounds, Keliher and Sui 2007); the finishing rounds are a
 * permutation of the state, their output truncated.
 * Two to four times cheaper than SipHash-1-3 on a name's prefixes (an AESENC is one
 * instruction, a SipRound 14): 27 against 74 cycles for /0/0/<seq>, CRC32C 20. */
#define TP_AES_TARGET __attribute__((target("aes,sse4.1")))

struct tp_aeshash_key {
	__m128i k[6];
};

/* The last word of a prefix: its bytes p[at, end) (0-15), zero-padded, and end mod 256
 * in the top byte. Reads only p[at, end). */
static inline TP_AES_TARGET __m128i tp_aeshash_last(const uint8_t *p, size_t at, size_t end)
{
	const uint8_t *q = p + at;
	size_t left = end - at;
	uint64_t lo = 0, hi = 0;

	if (left >= 8) {
		lo = tp_sip_load(q);
		if (left > 8) /* the 8 bytes ending at end, those below q + 8 shifted out */
			hi = tp_sip_load(q + left - 8) >> (8 * (16 - left));
	} else if (left >= 4) { /* two 4-byte loads, overlapping if need be */
		uint32_t a, b;
		memcpy(&a, q, 4);
		memcpy(&b, q + left - 4, 4);
		lo = a | (uint64_t)b << (8 * (left - 4));
	} else if (left) {
		lo = q[0] | (uint64_t)q[left >> 1] << (8 * (left >> 1)) |
		     (uint64_t)q[left - 1] << (8 * (left - 1));
	}
	return _mm_set_epi64x((long long)(hi | (uint64_t)end << 56), (long long)lo);
}

/* The hash of every prefix p[0, ends[i]) of one message, i < n (ends ascending), as
 * tp_siphash13_prefixes. The CPU must have AES-NI (tp_aeshash_usable()). */
static inline TP_AES_TARGET void tp_aeshash_prefixes(const struct tp_aeshash_key *key,
						     const uint8_t *p, const uint16_t *ends,
						     unsigned int n, uint32_t *out)
{
	__m128i s = key->k[0];
	size_t at = 0;

	for (unsigned int i = 0; i < n; i++) {
		size_t end = ends[i];
		for (; at + 16 <= end; at += 16) {
			s = _mm_xor_si128(s,
					  _mm_loadu_si128((const __m128i *)(const void *)(p + at)));
			s = _mm_aesenc_si128(_mm_aesenc_si128(s, key->k[1]), key->k[2]);
		}
		__m128i x = _mm_xor_si128(s, tp_aeshash_last(p, at, end));
		x = _mm_aesenc_si128(x, key->k[3]);
		x = _mm_aesenc_si128(x, key->k[4]);
		x = _mm_aesenc_si128(x, key->k[5]);
		out[i] = (uint32_t)_mm_cvtsi128_si32(x);
	}
}

/* Whether the CPU has AES-NI and SSE4.1: CPUID leaf 1, ECX (as proto/sha256.c asks
 * for SHA), not __builtin_cpu_supports, which links libgcc's CPU model constructor
 * (4.5 KB at the head of .text) into the daemon, and out of a build that does not
 * call this, so that every function of the two builds' fast paths lay at other
 * addresses (decision 0099). */
static inline bool tp_aeshash_usable(void)
{
	unsigned int a, b, c, d;

	return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_AES) && (c & bit_SSE4_1);
}

/* The process's table key: drawn by tp_hash_key_init(), zero before. */
extern uint64_t tp_hash_key[2];

/* n random bytes from the kernel (getrandom(2), waiting for its pool at boot if need
 * be). Control path. 0 or negative errno. */
int tp_random_bytes(void *buf, size_t n);
/* Draw tp_hash_key on the first call (later calls: nothing). Every constructor of
 * a table hashed by tp_keyed_hash() calls it. 0 or negative errno. */
int tp_hash_key_init(void);
/* A random 32-bit value: a table's init_val (tp_keyed_hash()), drawn by
 * tp_random_bytes; 0 if the kernel gave none (after tp_hash_key_init succeeded it
 * cannot fail). */
uint32_t tp_hash_seed(void);
/* rte_hash's hash_func (rte_hash_function's signature): SipHash-1-3 of key[0, len)
 * under tp_hash_key, with the table's init_val XORed into the key's first half (each
 * table its own key); the low 32 bits. */
uint32_t tp_keyed_hash(const void *key, uint32_t len, uint32_t init_val);

#endif
