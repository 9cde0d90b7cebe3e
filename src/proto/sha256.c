/* SPDX-License-Identifier: BSD-3-Clause */
/* SHA-256, FIPS 180-4 section 6.2. */
#include <stdbool.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

#include "sha256.h"

/* 4.2.2: the first 32 bits of the fractional parts of the cube roots of the first
 * 64 primes */
static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t ror(uint32_t x, unsigned int n)
{
	return (x >> n) | (x << (32 - n));
}

/* 6.2.2: one 512-bit block */
static void block(uint32_t h[8], const uint8_t *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, k;

	for (int t = 0; t < 16; t++)
		w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 |
		       (uint32_t)p[4 * t + 2] << 8 | p[4 * t + 3];
	for (int t = 16; t < 64; t++) {
		uint32_t s0 = ror(w[t - 15], 7) ^ ror(w[t - 15], 18) ^ (w[t - 15] >> 3);
		uint32_t s1 = ror(w[t - 2], 17) ^ ror(w[t - 2], 19) ^ (w[t - 2] >> 10);
		w[t] = w[t - 16] + s0 + w[t - 7] + s1;
	}
	a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
	for (int t = 0; t < 64; t++) {
		uint32_t t1 =
		    k + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t];
		uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		k = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
	}
	h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

#if defined(__x86_64__)
/* The same 6.2.2 rounds with the SHA extensions (Intel SHA-NI, AMD Zen and later):
 * the state as two vectors, ABEF and CDGH, as SHA256RNDS2 wants them; the schedule
 * four words at a time (SHA256MSG1 adds sigma0, PALIGNR brings W[t-7], SHA256MSG2
 * adds sigma1). The hot spot of twinplane-fetch's receive path in perf (issue 13):
 * 2.1 cycles per byte against block()'s 10.5 on this machine (AMD EPYC). */
__attribute__((target("sha,sse4.1,ssse3"))) static void block_shani(uint32_t h[8], const uint8_t *p)
{
	const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
	__m128i dcba = _mm_loadu_si128((const __m128i *)&h[0]);
	__m128i hgfe = _mm_loadu_si128((const __m128i *)&h[4]);
	__m128i cdab = _mm_shuffle_epi32(dcba, 0xb1);
	__m128i efgh = _mm_shuffle_epi32(hgfe, 0x1b);
	__m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
	__m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xf0);
	const __m128i abef0 = abef, cdgh0 = cdgh;
	__m128i w[4];

	for (int i = 0; i < 16; i++) {
		if (i < 4) {
			w[i] =
			    _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), bswap);
		} else {
			/* W[4i..4i+3] from W[4i-16..4i-1]: w[i % 4] holds the oldest group */
			__m128i t = _mm_sha256msg1_epu32(w[i % 4], w[(i + 1) % 4]);
			t = _mm_add_epi32(t, _mm_alignr_epi8(w[(i + 3) % 4], w[(i + 2) % 4], 4));
			w[i % 4] = _mm_sha256msg2_epu32(t, w[(i + 3) % 4]);
		}
		__m128i m = _mm_add_epi32(w[i % 4], _mm_loadu_si128((const __m128i *)&K[4 * i]));
		cdgh = _mm_sha256rnds2_epu32(cdgh, abef, m);
		abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(m, 0x0e));
	}
	abef = _mm_add_epi32(abef, abef0);
	cdgh = _mm_add_epi32(cdgh, cdgh0);
	__m128i feba = _mm_shuffle_epi32(abef, 0x1b);
	__m128i dchg = _mm_shuffle_epi32(cdgh, 0xb1);
	_mm_storeu_si128((__m128i *)&h[0], _mm_blend_epi16(feba, dchg, 0xf0));
	_mm_storeu_si128((__m128i *)&h[4], _mm_alignr_epi8(dchg, feba, 8));
}

static bool cpu_has_sha(void)
{
	unsigned int a, b, c, d;
	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA) &&
	       __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE4_1) && (c & bit_SSSE3);
}
#endif

/* -1: not decided yet; then 0 (block) or 1 (block_shani) */
static int use_shani = -1;

bool tp_sha256_use_shani(int on)
{
#if defined(__x86_64__)
	if (on < 0 || (on > 0 && !cpu_has_sha()))
		use_shani = cpu_has_sha();
	else
		use_shani = on;
#else
	(void)on;
	use_shani = 0;
#endif
	return use_shani == 1;
}

static void blocks(uint32_t h[8], const uint8_t *p, size_t n)
{
	if (use_shani < 0)
		tp_sha256_use_shani(-1);
#if defined(__x86_64__)
	if (use_shani) {
		for (; n; n--, p += 64)
			block_shani(h, p);
		return;
	}
#endif
	for (; n; n--, p += 64)
		block(h, p);
}

void tp_sha256_init(struct tp_sha256 *c)
{
	/* 5.3.3 */
	static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
				       0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	memcpy(c->h, h0, sizeof(h0));
	c->bytes = 0;
	c->n = 0;
}

void tp_sha256_update(struct tp_sha256 *c, const void *data, size_t len)
{
	const uint8_t *p = data;

	c->bytes += len;
	if (c->n) {
		size_t k = 64 - c->n < len ? 64 - c->n : len;
		memcpy(c->buf + c->n, p, k);
		c->n += (uint32_t)k;
		p += k;
		len -= k;
		if (c->n < 64)
			return;
		blocks(c->h, c->buf, 1);
		c->n = 0;
	}
	blocks(c->h, p, len / 64);
	p += len / 64 * 64;
	len %= 64;
	memcpy(c->buf, p, len);
	c->n = (uint32_t)len;
}

void tp_sha256_final(struct tp_sha256 *c, uint8_t out[32])
{
	uint64_t bits = c->bytes * 8;

	/* 5.1.1: a 1 bit, zeros, the length in bits as 64 bits */
	c->buf[c->n++] = 0x80;
	if (c->n > 56) {
		memset(c->buf + c->n, 0, 64 - c->n);
		blocks(c->h, c->buf, 1);
		c->n = 0;
	}
	memset(c->buf + c->n, 0, 56 - c->n);
	for (int i = 0; i < 8; i++)
		c->buf[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
	blocks(c->h, c->buf, 1);
	for (int i = 0; i < 8; i++) {
		out[4 * i] = (uint8_t)(c->h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(c->h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(c->h[i] >> 8);
		out[4 * i + 3] = (uint8_t)c->h[i];
	}
}

void tp_sha256(const void *data, size_t len, uint8_t out[32])
{
	struct tp_sha256 c;

	tp_sha256_init(&c);
	tp_sha256_update(&c, data, len);
	tp_sha256_final(&c, out);
}

/* RFC 2104 section 2: H(K XOR opad, H(K XOR ipad, text)); K zero-padded to B = 64
 * bytes, or H(K) when longer. */
void tp_hmac_sha256_init(struct tp_hmac_sha256 *c, const void *key, size_t key_len)
{
	uint8_t k[64] = {0}, ikey[64];

	if (key_len > sizeof(k))
		tp_sha256(key, key_len, k);
	else if (key_len)
		memcpy(k, key, key_len);
	for (unsigned int i = 0; i < 64; i++) {
		ikey[i] = k[i] ^ 0x36;
		c->okey[i] = k[i] ^ 0x5c;
	}
	tp_sha256_init(&c->inner);
	tp_sha256_update(&c->inner, ikey, sizeof(ikey));
}

void tp_hmac_sha256_update(struct tp_hmac_sha256 *c, const void *data, size_t len)
{
	tp_sha256_update(&c->inner, data, len);
}

void tp_hmac_sha256_final(struct tp_hmac_sha256 *c, uint8_t out[32])
{
	struct tp_sha256 o;
	uint8_t ih[32];

	tp_sha256_final(&c->inner, ih);
	tp_sha256_init(&o);
	tp_sha256_update(&o, c->okey, sizeof(c->okey));
	tp_sha256_update(&o, ih, sizeof(ih));
	tp_sha256_final(&o, out);
}
