/* SPDX-License-Identifier: BSD-3-Clause */
/* The NDN codec against python-ndn's wire encodings (ndn_vectors.h) and FIPS 180-4's
 * SHA-256 examples: decoding, the encoders giving the same bytes, URIs, NDNLPv2 and
 * reassembly; truncated and corrupted copies, as exact-size heap copies, are refused
 * without reading past them (this test also runs under ASan: test_ndn_asan). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/proto/ndn.h"
#include "../../src/proto/sha256.h"
#include "ndn_vectors.h"

#define V(x) (x), sizeof(x)

static void hex_to(const char *hex, uint8_t *out)
{
	for (size_t i = 0; hex[2 * i]; i++) {
		unsigned int b;
		sscanf(hex + 2 * i, "%2x", &b);
		out[i] = (uint8_t)b;
	}
}

/* FIPS 180-4 / 180-2 appendix B examples */
static void test_sha256_fips(void **state)
{
	uint8_t md[32], want[32];
	struct tp_sha256 c;

	tp_sha256("abc", 3, md);
	hex_to("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", want);
	assert_memory_equal(md, want, 32);
	tp_sha256("", 0, md);
	hex_to("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", want);
	assert_memory_equal(md, want, 32);
	const char *m2 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	tp_sha256(m2, strlen(m2), md);
	hex_to("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1", want);
	assert_memory_equal(md, want, 32);
	/* one million 'a', fed in uneven pieces */
	char a[1001];
	memset(a, 'a', sizeof(a));
	tp_sha256_init(&c);
	for (int i = 0; i < 1000; i++)
		tp_sha256_update(&c, a, i % 2 ? 999 : 1001);
	tp_sha256_final(&c, md);
	hex_to("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0", want);
	assert_memory_equal(md, want, 32);
}

/* The FIPS examples with each block function, and the two against each other on
 * every length up to 4 blocks and pieces of a larger buffer (skipped where the CPU has
 * no SHA extensions: only the portable one runs there) */
static void test_sha256_block_functions(void **state)
{
	static uint8_t buf[300000];
	uint8_t md[2][32];
	uint32_t x = 12345;
	bool has_ni = tp_sha256_use_shani(1);

	(void)state;
	tp_sha256_use_shani(0);
	test_sha256_fips(state);
	if (!has_ni) {
		tp_sha256_use_shani(-1);
		skip();
	}
	tp_sha256_use_shani(1);
	test_sha256_fips(state);
	for (size_t i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	for (size_t len = 0; len <= 256; len++) {
		for (int ni = 0; ni < 2; ni++) {
			tp_sha256_use_shani(ni);
			tp_sha256(buf + len % 7, len, md[ni]);
		}
		assert_memory_equal(md[0], md[1], 32);
	}
	for (int ni = 0; ni < 2; ni++) {
		struct tp_sha256 c;
		tp_sha256_use_shani(ni);
		tp_sha256_init(&c);
		for (size_t off = 0, k = 1; off < sizeof(buf); off += k, k = k * 3 % 1459 + 1)
			tp_sha256_update(&c, buf + off,
					 k < sizeof(buf) - off ? k : sizeof(buf) - off);
		tp_sha256_final(&c, md[ni]);
	}
	assert_memory_equal(md[0], md[1], 32);
	tp_sha256_use_shani(-1);
}

static void test_varnum(void **state)
{
	static const struct {
		uint8_t wire[9];
		size_t len;
		uint64_t v;
	} ok[] = {
	    {{0x00}, 1, 0},
	    {{0xfc}, 1, 252},
	    {{0xfd, 0x00, 0xfd}, 3, 253},
	    {{0xfd, 0xff, 0xff}, 3, 65535},
	    {{0xfe, 0x00, 0x01, 0x00, 0x00}, 5, 65536},
	    {{0xff, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00}, 9, 1ull << 32},
	};
	uint8_t buf[9];
	uint64_t v;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(tp_ndn_varnum_read(ok[i].wire, ok[i].len, &v), ok[i].len);
		assert_int_equal(v, ok[i].v);
		assert_int_equal(tp_ndn_varnum_size(ok[i].v), ok[i].len);
		assert_int_equal(tp_ndn_varnum_write(buf, ok[i].v), ok[i].len);
		assert_memory_equal(buf, ok[i].wire, ok[i].len);
		/* one byte short */
		assert_int_equal(tp_ndn_varnum_read(ok[i].wire, ok[i].len - 1, &v), 0);
	}
	/* not in the shortest form */
	assert_int_equal(tp_ndn_varnum_read((const uint8_t[]){0xfd, 0x00, 0x10}, 3, &v), 0);
	assert_int_equal(tp_ndn_varnum_read((const uint8_t[]){0xfe, 0x00, 0x00, 0x01, 0x00}, 5, &v),
			 0);
}

static void test_interest_flags(void **state)
{
	struct tp_ndn_interest i;
	size_t used;
	uint16_t tl;

	assert_int_equal(tp_ndn_interest_decode(V(v_interest_flags), &i, &used), TP_NDN_E_OK);
	assert_int_equal(used, sizeof(v_interest_flags));
	assert_int_equal(i.name.n_comps, 2);
	assert_memory_equal(tp_ndn_name_comp(&i.name, 1, &tl),
			    "\x08\x01"
			    "b",
			    3);
	assert_true(i.can_be_prefix && i.must_be_fresh && i.has_nonce && i.has_hop_limit);
	assert_int_equal(i.nonce, 0x01020304);
	assert_int_equal(i.lifetime_ms, 4000);
	assert_int_equal(i.hop_limit, 32);
	assert_null(i.app_params);
	/* the same Interest from the encoder */
	uint8_t buf[64];
	struct tp_ndn_interest_spec s = {.name_value = i.name.value,
					 .name_len = i.name.len,
					 .can_be_prefix = true,
					 .must_be_fresh = true,
					 .nonce = 0x01020304,
					 .lifetime_ms = 4000,
					 .hop_limit = 32};
	assert_int_equal(tp_ndn_interest_encode(buf, sizeof(buf), &s), sizeof(v_interest_flags));
	assert_memory_equal(buf, v_interest_flags, sizeof(v_interest_flags));
	assert_int_equal(tp_ndn_interest_encode(buf, sizeof(v_interest_flags) - 1, &s),
			 -TP_NDN_E_NO_SPACE);
	/* InterestLifetime 0 is written (found by fuzz_ndn), -1 leaves the default */
	s.lifetime_ms = 0;
	int len = tp_ndn_interest_encode(buf, sizeof(buf), &s);
	assert_int_equal(tp_ndn_interest_decode(buf, (size_t)len, &i, NULL), TP_NDN_E_OK);
	assert_int_equal(i.lifetime_ms, 0);
	s.lifetime_ms = -1;
	len = tp_ndn_interest_encode(buf, sizeof(buf), &s);
	assert_int_equal(tp_ndn_interest_decode(buf, (size_t)len, &i, NULL), TP_NDN_E_OK);
	assert_int_equal(i.lifetime_ms, TP_NDN_LIFETIME_DEFAULT);
}

/* 3 (Nonce): the forwarder's Nonce for an Interest without one. python-ndn's
 * make_interest of the same Interest with nonce None, and with 0x01020304: adding
 * that Nonce gives the second, bytes for bytes; the long one's TLV-LENGTH grows
 * from one byte to three. */
static void test_interest_add_nonce(void **state)
{
	static const char *const pairs[][2] = {
	    {"05130706080161080162210012000c020fa0220105",
	     "05190706080161080162210012000a04010203040c020fa0220105"},
	    {"05f807f208f0", "05fd00fe07f208f0"}, /* + 240 'n', then 0c020fa0 / 0a04...0c020fa0 */
	};
	uint8_t room[600], want[600];
	struct tp_ndn_interest i;
	size_t used;

	(void)state;
	for (unsigned int k = 0; k < 2; k++) {
		size_t n = 0, wn = 0;
		uint8_t *buf = room + TP_NDN_NONCE_GROW;
		for (const char *h = pairs[k][0]; *h; h += 2)
			sscanf(h, "%2hhx", &buf[n++]);
		for (const char *h = pairs[k][1]; *h; h += 2)
			sscanf(h, "%2hhx", &want[wn++]);
		if (k == 1) {
			memset(buf + n, 'n', 240);
			n += 240;
			memcpy(buf + n, "\x0c\x02\x0f\xa0", 4);
			n += 4;
			memset(want + wn, 'n', 240);
			wn += 240;
			memcpy(want + wn, "\x0a\x04\x01\x02\x03\x04\x0c\x02\x0f\xa0", 10);
			wn += 10;
		}
		assert_int_equal(tp_ndn_interest_decode(buf, n, &i, &used), TP_NDN_E_OK);
		assert_false(i.has_nonce);
		int g = tp_ndn_interest_add_nonce(buf, n, &i, 0x01020304);
		assert_int_equal(g, k == 0 ? 6 : 8);
		assert_int_equal(n + (size_t)g, wn);
		assert_memory_equal(buf - g, want, wn);
		assert_int_equal(tp_ndn_interest_decode(buf - g, wn, &i, &used), TP_NDN_E_OK);
		assert_true(i.has_nonce);
		assert_int_equal(i.nonce, 0x01020304);
		/* one Nonce is all an Interest has */
		assert_int_equal(tp_ndn_interest_add_nonce(buf - g, wn, &i, 1),
				 -TP_NDN_E_BAD_NONCE);
	}
}

static void test_interest_params_digest(void **state)
{
	struct tp_ndn_interest i;
	uint8_t copy[sizeof(v_interest_params)], buf[128];
	uint64_t num;
	uint16_t tl;

	assert_int_equal(tp_ndn_interest_decode(V(v_interest_params), &i, NULL), TP_NDN_E_OK);
	assert_int_equal(i.name.n_comps, 4);
	assert_true(i.name.has_params_digest);
	assert_int_equal(i.name.params_digest_comp, 3);
	const uint8_t *c = tp_ndn_name_comp(&i.name, 1, &tl);
	assert_int_equal(tp_ndn_comp_number(c, tl, &num), 0);
	assert_int_equal(num, 3); /* seg=3 */
	c = tp_ndn_name_comp(&i.name, 2, &tl);
	assert_int_equal(tp_ndn_comp_number(c, tl, &num), 0);
	assert_int_equal(num, 7); /* v=7 */
	assert_int_equal(i.app_params_len, 5);
	assert_memory_equal(i.app_params, "hello", 5);
	assert_int_equal(i.nonce, 0xa1b2c3d4);
	/* a changed parameter no longer matches the digest component */
	memcpy(copy, v_interest_params, sizeof(copy));
	copy[sizeof(copy) - 1] ^= 1;
	assert_int_equal(tp_ndn_interest_decode(V(copy), &i, NULL), TP_NDN_E_BAD_PARAMS_DIGEST);
	/* the forwarding path's decoder leaves the digest's value to the producer (N12) */
	assert_int_equal(tp_ndn_interest_decode_fwd(V(copy), &i, NULL), TP_NDN_E_OK);
	/* the encoder appends the digest component and makes the same bytes */
	tp_ndn_interest_decode(V(v_interest_params), &i, NULL);
	struct tp_ndn_interest_spec s = {.name_value = i.name.value,
					 .name_len = (uint16_t)tp_ndn_name_prefix_len(&i.name, 3),
					 .nonce = 0xa1b2c3d4,
					 .lifetime_ms = 2000,
					 .hop_limit = -1,
					 .app_params = (const uint8_t *)"hello",
					 .app_params_len = 5};
	assert_int_equal(tp_ndn_interest_encode(buf, sizeof(buf), &s), sizeof(v_interest_params));
	assert_memory_equal(buf, v_interest_params, sizeof(v_interest_params));
}

static void test_interest_signed_and_long(void **state)
{
	struct tp_ndn_interest i;

	assert_int_equal(tp_ndn_interest_decode(V(v_interest_signed), &i, NULL), TP_NDN_E_OK);
	assert_non_null(i.sig_info);
	assert_int_equal(i.sig_value_len, 32);
	assert_int_equal(i.app_params_len, 0);
	assert_non_null(i.app_params);
	assert_int_equal(tp_ndn_interest_decode(V(v_interest_long_name), &i, NULL), TP_NDN_E_OK);
	assert_int_equal(i.name.n_comps, 20);
	assert_false(i.has_hop_limit);
}

/* RFC 4231 section 4.2 (test case 1), 4.3 (test case 2), 4.7 (test case 6: a key
 * longer than the block, hashed first), then SignatureHmacWithSha256 on the
 * Interest python-ndn's HmacSha256Signer signed */
static void test_hmac_sha256(void **state)
{
	static const uint8_t tc1[32] = {0xb0, 0x34, 0x4c, 0x61, 0xd8, 0xdb, 0x38, 0x53,
					0x5c, 0xa8, 0xaf, 0xce, 0xaf, 0x0b, 0xf1, 0x2b,
					0x88, 0x1d, 0xc2, 0x00, 0xc9, 0x83, 0x3d, 0xa7,
					0x26, 0xe9, 0x37, 0x6c, 0x2e, 0x32, 0xcf, 0xf7};
	static const uint8_t tc2[32] = {0x5b, 0xdc, 0xc1, 0x46, 0xbf, 0x60, 0x75, 0x4e,
					0x6a, 0x04, 0x24, 0x26, 0x08, 0x95, 0x75, 0xc7,
					0x5a, 0x00, 0x3f, 0x08, 0x9d, 0x27, 0x39, 0x83,
					0x9d, 0xec, 0x58, 0xb9, 0x64, 0xec, 0x38, 0x43};
	static const uint8_t tc6[32] = {0x60, 0xe4, 0x31, 0x59, 0x1e, 0xe0, 0xb6, 0x7f,
					0x0d, 0x8a, 0x26, 0xaa, 0xcb, 0xf5, 0xb7, 0x7f,
					0x8e, 0x0b, 0xc6, 0x21, 0x37, 0x28, 0xc5, 0x14,
					0x05, 0x46, 0x04, 0x0f, 0x0e, 0xe3, 0x7f, 0x54};
	static const char m6[] = "Test Using Larger Than Block-Size Key - Hash Key First";
	struct tp_hmac_sha256 c;
	uint8_t key[131], md[32];
	struct tp_ndn_interest i;
	int64_t t;

	(void)state;
	memset(key, 0x0b, 20);
	tp_hmac_sha256_init(&c, key, 20);
	tp_hmac_sha256_update(&c, "Hi ", 3);
	tp_hmac_sha256_update(&c, "There", 5);
	tp_hmac_sha256_final(&c, md);
	assert_memory_equal(md, tc1, 32);
	tp_hmac_sha256_init(&c, "Jefe", 4);
	tp_hmac_sha256_update(&c, "what do ya want for nothing?", 28);
	tp_hmac_sha256_final(&c, md);
	assert_memory_equal(md, tc2, 32);
	memset(key, 0xaa, sizeof(key));
	tp_hmac_sha256_init(&c, key, sizeof(key));
	tp_hmac_sha256_update(&c, m6, strlen(m6));
	tp_hmac_sha256_final(&c, md);
	assert_memory_equal(md, tc6, 32);

	for (unsigned int k = 0; k < 32; k++)
		key[k] = (uint8_t)k;
	assert_int_equal(tp_ndn_interest_decode(V(v_interest_hmac), &i, NULL), TP_NDN_E_OK);
	assert_int_equal(tp_ndn_interest_verify_hmac(&i, key, 32, &t), 1);
	assert_true(t == INT64_C(1700000000000));
	key[31] ^= 1; /* another key */
	assert_int_equal(tp_ndn_interest_verify_hmac(&i, key, 32, NULL), 0);
	key[31] ^= 1;
	/* not an HMAC signature; not signed */
	assert_int_equal(tp_ndn_interest_decode(V(v_interest_signed), &i, NULL), TP_NDN_E_OK);
	assert_int_equal(tp_ndn_interest_verify_hmac(&i, key, 32, NULL), -TP_NDN_E_BAD_SIGNATURE);
	assert_int_equal(tp_ndn_interest_decode(V(v_interest_flags), &i, NULL), TP_NDN_E_OK);
	assert_int_equal(tp_ndn_interest_verify_hmac(&i, key, 32, NULL), -TP_NDN_E_MISSING);
	/* a changed byte of the signed portion (the Nonce is not in it, the name is) */
	uint8_t w[sizeof(v_interest_hmac)];
	memcpy(w, v_interest_hmac, sizeof(w));
	w[8] ^= 0x20; /* 'localhop' -> 'Localhop' */
	assert_int_equal(tp_ndn_interest_decode(w, sizeof(w), &i, NULL), TP_NDN_E_OK);
	assert_int_equal(tp_ndn_interest_verify_hmac(&i, key, 32, NULL), 0);
}

/* 1.3: unknown elements, critical or not, inserted before InterestLifetime */
static void test_critical_rule(void **state)
{
	struct tp_ndn_interest i;
	uint8_t buf[64];
	size_t n = sizeof(v_interest_flags);
	/* offset of InterestLifetime (0x0c) in v_interest_flags */
	size_t at = 20;

	assert_int_equal(v_interest_flags[at], 0x0c);
	for (int critical = 0; critical < 2; critical++) {
		uint8_t elem[3] = {critical ? 0x41 : 0x40, 1, 0xaa};
		memcpy(buf, v_interest_flags, at);
		memcpy(buf + at, elem, 3);
		memcpy(buf + at + 3, v_interest_flags + at, n - at);
		buf[1] = (uint8_t)(v_interest_flags[1] + 3);
		assert_int_equal(tp_ndn_interest_decode(buf, n + 3, &i, NULL),
				 critical ? TP_NDN_E_CRITICAL : TP_NDN_E_OK);
		if (!critical)
			assert_int_equal(i.lifetime_ms, 4000); /* what follows still read */
	}
	/* a recognized element out of order (Nonce after InterestLifetime) counts as unknown,
	 * and Nonce (10) is critical */
	memcpy(buf, v_interest_flags, n);
	memcpy(buf + 14, v_interest_flags + 20, 4); /* lifetime first */
	memcpy(buf + 18, v_interest_flags + 14, 6); /* then nonce */
	assert_int_equal(tp_ndn_interest_decode(buf, n, &i, NULL), TP_NDN_E_BAD_TYPE);
	/* the Name must come first */
	static const uint8_t no_name[] = {0x05, 0x06, 0x0a, 0x04, 1, 2, 3, 4};
	assert_int_equal(tp_ndn_interest_decode(V(no_name), &i, NULL), TP_NDN_E_MISSING);
	static const uint8_t empty_name[] = {0x05, 0x02, 0x07, 0x00};
	assert_int_equal(tp_ndn_interest_decode(V(empty_name), &i, NULL), TP_NDN_E_EMPTY_NAME);
	static const uint8_t bad_nonce[] = {0x05, 0x08, 0x07, 0x03, 0x08,
					    0x01, 0x61, 0x0a, 0x01, 0x01};
	assert_int_equal(tp_ndn_interest_decode(V(bad_nonce), &i, NULL), TP_NDN_E_BAD_NONCE);
}

static void test_data(void **state)
{
	struct tp_ndn_data d;
	uint8_t copy[sizeof(v_data_final_block)], buf[512], md[32];
	uint16_t tl;
	uint64_t num;

	assert_int_equal(tp_ndn_data_decode(V(v_data_plain), &d, NULL), TP_NDN_E_OK);
	assert_int_equal(d.name.n_comps, 3);
	assert_true(d.has_freshness);
	assert_int_equal(d.freshness_ms, 1000);
	assert_int_equal(d.content_len, 5);
	assert_memory_equal(d.content, "hello", 5);
	assert_int_equal(d.sig_type, TP_NDN_SIG_DIGEST_SHA256);
	assert_int_equal(tp_ndn_data_verify_digest(&d), 1);
	tp_ndn_data_implicit_digest(&d, md);
	uint8_t want[32];
	tp_sha256(v_data_plain, sizeof(v_data_plain), want);
	assert_memory_equal(md, want, 32);
	/* our encoder: the same bytes */
	struct tp_ndn_data_spec s = {.name_value = d.name.value,
				     .name_len = d.name.len,
				     .content_type = 0, /* python-ndn writes it */
				     .freshness_ms = 1000,
				     .content = (const uint8_t *)"hello",
				     .content_len = 5};
	assert_int_equal(tp_ndn_data_encode(buf, sizeof(buf), &s), sizeof(v_data_plain));
	assert_memory_equal(buf, v_data_plain, sizeof(v_data_plain));

	assert_int_equal(tp_ndn_data_decode(V(v_data_final_block), &d, NULL), TP_NDN_E_OK);
	assert_int_equal(d.content_len, 300);
	assert_non_null(d.final_block);
	assert_int_equal(tp_ndn_comp_number(d.final_block, d.final_block_len, &num), 0);
	assert_int_equal(num, 9);
	assert_int_equal(d.freshness_ms, 0);
	assert_int_equal(tp_ndn_data_verify_digest(&d), 1);
	const uint8_t *last = tp_ndn_name_comp(&d.name, 2, &tl);
	assert_int_equal(last[0], TP_NDN_T_SEGMENT);
	/* a changed content byte: the signature no longer verifies */
	memcpy(copy, v_data_final_block, sizeof(copy));
	copy[100] ^= 0x10;
	assert_int_equal(tp_ndn_data_decode(V(copy), &d, NULL), TP_NDN_E_OK);
	assert_int_equal(tp_ndn_data_verify_digest(&d), 0);
}

static void test_lp(void **state)
{
	struct tp_ndn_lp lp;
	struct tp_ndn_interest i;
	uint8_t buf[128];

	/* a bare Interest, with Ethernet padding after it */
	memset(buf, 0, sizeof(buf));
	memcpy(buf, v_interest_flags, sizeof(v_interest_flags));
	assert_int_equal(tp_ndn_lp_decode(buf, 60, &lp), TP_NDN_E_OK);
	assert_int_equal(lp.payload_len, sizeof(v_interest_flags));
	assert_int_equal(lp.frag_count, 1);
	/* Nack NoRoute around the Interest */
	assert_int_equal(tp_ndn_lp_decode(V(v_nack_no_route), &lp), TP_NDN_E_OK);
	assert_true(lp.is_nack);
	assert_int_equal(lp.nack_reason, TP_NDN_NACK_NO_ROUTE);
	assert_int_equal(tp_ndn_interest_decode(lp.payload, lp.payload_len, &i, NULL), TP_NDN_E_OK);
	assert_int_equal(i.nonce, 0x01020304);
	struct tp_ndn_lp_spec s = {.payload = v_interest_flags,
				   .payload_len = sizeof(v_interest_flags),
				   .nack = true,
				   .nack_reason = TP_NDN_NACK_NO_ROUTE};
	assert_int_equal(tp_ndn_lp_encode(buf, sizeof(buf), &s), sizeof(v_nack_no_route));
	assert_memory_equal(buf, v_nack_no_route, sizeof(v_nack_no_route));
	/* PIT token */
	assert_int_equal(tp_ndn_lp_decode(V(v_lp_pit_token), &lp), TP_NDN_E_OK);
	assert_int_equal(lp.pit_token_len, 8);
	assert_memory_equal(lp.pit_token, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
	assert_false(lp.is_nack);
	s = (struct tp_ndn_lp_spec){.payload = v_interest_flags,
				    .payload_len = sizeof(v_interest_flags),
				    .pit_token_len = 8,
				    .pit_token = lp.pit_token};
	assert_int_equal(tp_ndn_lp_encode(buf, sizeof(buf), &s), sizeof(v_lp_pit_token));
	assert_memory_equal(buf, v_lp_pit_token, sizeof(v_lp_pit_token));
	/* the forwarder's fast path writes the same header */
	size_t hl = tp_ndn_lp_token_header(buf, lp.pit_token, 8, sizeof(v_interest_flags));
	assert_int_equal(hl + sizeof(v_interest_flags), sizeof(v_lp_pit_token));
	assert_int_equal(tp_ndn_lp_token_header_size(8, sizeof(v_interest_flags)), hl);
	assert_memory_equal(buf, v_lp_pit_token, hl);
	/* and with a payload over 252 bytes (a three-byte Fragment length) */
	static uint8_t big[600];
	memset(big, 0x5a, sizeof(big));
	s = (struct tp_ndn_lp_spec){.payload = big,
				    .payload_len = sizeof(big),
				    .pit_token_len = 8,
				    .pit_token = lp.pit_token};
	uint8_t ref[700];
	int rl = tp_ndn_lp_encode(ref, sizeof(ref), &s);
	hl = tp_ndn_lp_token_header(buf, lp.pit_token, 8, sizeof(big));
	assert_int_equal(hl + sizeof(big), rl);
	assert_int_equal(tp_ndn_lp_token_header_size(8, sizeof(big)), hl);
	assert_memory_equal(buf, ref, hl);
	/* CongestionMark */
	assert_int_equal(tp_ndn_lp_decode(V(v_lp_congestion), &lp), TP_NDN_E_OK);
	assert_int_equal(lp.congestion_mark, 1);
	/* header fields: an unknown one at 804 (ignorable), 801 (not) */
	static const uint8_t ign[] = {0x64, 0x0a, 0xfd, 0x03, 0x24, 0x00,
				      0x50, 0x04, 0x05, 0x02, 0x07, 0x00};
	static const uint8_t crit[] = {0x64, 0x0a, 0xfd, 0x03, 0x21, 0x00,
				       0x50, 0x04, 0x05, 0x02, 0x07, 0x00};
	assert_int_equal(tp_ndn_lp_decode(V(ign), &lp), TP_NDN_E_OK);
	assert_int_equal(tp_ndn_lp_decode(V(crit), &lp), TP_NDN_E_BAD_LP);
	/* IDLE: no fragment */
	static const uint8_t idle[] = {0x64, 0x00};
	assert_int_equal(tp_ndn_lp_decode(V(idle), &lp), TP_NDN_E_MISSING);
}

static void test_reassembly(void **state)
{
	struct tp_ndn_reasm r;
	struct tp_ndn_lp l0, l1;
	void *out[TP_NDN_FRAG_MAX], *ev[TP_NDN_REASM_EVICT_MAX];
	uint32_t n_out, n_ev;
	uint8_t whole[64];
	size_t len = 0;

	assert_int_equal(tp_ndn_lp_decode(V(v_lp_frag0), &l0), TP_NDN_E_OK);
	assert_int_equal(tp_ndn_lp_decode(V(v_lp_frag1), &l1), TP_NDN_E_OK);
	assert_int_equal(l1.frag_index, 1);
	assert_int_equal(l1.frag_count, 2);
	assert_int_equal(l1.seq, 1001);
	tp_ndn_reasm_init(&r, 100);
	assert_true(tp_ndn_reasm_next_deadline(&r) == UINT64_MAX);
	/* out of order: the second fragment first */
	assert_int_equal(tp_ndn_reasm_add(&r, &l1, 7, &l1, 0, out, &n_out, ev, &n_ev),
			 TP_NDN_REASM_HELD);
	assert_int_equal(tp_ndn_reasm_add(&r, &l1, 7, (void *)1, 0, out, &n_out, ev, &n_ev),
			 TP_NDN_REASM_HELD); /* a duplicate, handed back */
	assert_int_equal(n_ev, 1);
	assert_ptr_equal(ev[0], (void *)1);
	/* the same Sequence numbers from another sender are another packet */
	assert_int_equal(tp_ndn_reasm_add(&r, &l0, 8, (void *)2, 1, out, &n_out, ev, &n_ev),
			 TP_NDN_REASM_HELD);
	assert_int_equal(n_ev, 0);
	assert_int_equal(tp_ndn_reasm_add(&r, &l0, 7, &l0, 1, out, &n_out, ev, &n_ev),
			 TP_NDN_REASM_COMPLETE);
	assert_int_equal(n_out, 2);
	for (uint32_t k = 0; k < n_out; k++) {
		const struct tp_ndn_lp *f = out[k];
		memcpy(whole + len, f->payload, f->payload_len);
		len += f->payload_len;
	}
	assert_int_equal(len, sizeof(v_interest_flags));
	assert_memory_equal(whole, v_interest_flags, len);
	assert_int_equal(r.n_complete, 1);
	/* flow 8's partial packet is still there; it gives up 100 after its last fragment */
	assert_true(tp_ndn_reasm_next_deadline(&r) == 101);
	assert_int_equal(tp_ndn_reasm_expire(&r, 100, ev, &n_ev), 0);
	assert_int_equal(tp_ndn_reasm_expire(&r, 101, ev, &n_ev), 1);
	assert_int_equal(n_ev, 1);
	assert_ptr_equal(ev[0], (void *)2);
	assert_int_equal(tp_ndn_reasm_expire(&r, 101, ev, &n_ev), 0);
	assert_true(tp_ndn_reasm_next_deadline(&r) == UINT64_MAX);
	/* a partial packet times out 100 after its last fragment, not its first */
	struct tp_ndn_lp f = l0;
	f.frag_count = 3;
	assert_int_equal(tp_ndn_reasm_add(&r, &f, 7, &l0, 10, out, &n_out, ev, &n_ev),
			 TP_NDN_REASM_HELD);
	f.frag_index = 1;
	f.seq = l0.seq + 1;
	assert_int_equal(tp_ndn_reasm_add(&r, &f, 7, &l1, 60, out, &n_out, ev, &n_ev),
			 TP_NDN_REASM_HELD);
	assert_int_equal(tp_ndn_reasm_expire(&r, 150, ev, &n_ev), 0);
	assert_int_equal(tp_ndn_reasm_expire(&r, 160, ev, &n_ev), 1);
	assert_int_equal(n_ev, 2);
	assert_ptr_equal(ev[0], &l0);
	assert_ptr_equal(ev[1], &l1);
	assert_int_equal(r.n_timeouts, 2);
	assert_int_equal(r.n_dropped_frags, 4); /* the duplicate, 1 then 2 timed out */
	/* a FragCount that disagrees with the packet's: refused, the packet stays */
	f = l0;
	f.frag_count = 3;
	assert_int_equal(tp_ndn_reasm_add(&r, &f, 7, (void *)4, 200, out, &n_out, ev, &n_ev),
			 TP_NDN_REASM_HELD);
	f.frag_index = 1;
	f.seq++;
	f.frag_count = 4;
	assert_int_equal(tp_ndn_reasm_add(&r, &f, 7, (void *)5, 200, out, &n_out, ev, &n_ev),
			 TP_NDN_REASM_BAD);
	assert_int_equal(tp_ndn_reasm_expire(&r, 300, ev, &n_ev), 1);
	assert_int_equal(n_ev, 1);
	assert_ptr_equal(ev[0], (void *)4);
	/* a flow holds TP_NDN_REASM_PER_FLOW partial packets: its next one takes the place
	 * of its own idle longest, not another flow's */
	f = l0;
	for (unsigned int k = 0; k < TP_NDN_REASM_SLOTS; k++) {
		f.seq = 5000 + 10 * k; /* flows 7, 8, 9, 10: four each, in turn */
		assert_int_equal(tp_ndn_reasm_add(&r, &f, 7 + k % 4, (void *)(uintptr_t)(100 + k),
						  k, out, &n_out, ev, &n_ev),
				 TP_NDN_REASM_HELD);
		assert_int_equal(n_ev, 0);
	}
	f.seq = 9000;
	assert_int_equal(tp_ndn_reasm_add(&r, &f, 8, (void *)2, 100, out, &n_out, ev, &n_ev),
			 TP_NDN_REASM_HELD);
	assert_int_equal(n_ev, 1);
	assert_ptr_equal(ev[0], (void *)101); /* flow 8's oldest, not flow 7's (100) */
	assert_int_equal(r.n_flow_full, 1);
	/* every slot busy, a new flow: of the flows holding the most (all 4), the packet
	 * idle longest gives way (flow 7's first) */
	f.seq = 9100;
	assert_int_equal(tp_ndn_reasm_add(&r, &f, 11, (void *)3, 101, out, &n_out, ev, &n_ev),
			 TP_NDN_REASM_HELD);
	assert_int_equal(n_ev, 1);
	assert_ptr_equal(ev[0], (void *)100);
	/* flow 11 (1 slot) starting another: taken from a flow holding 4, never from the
	 * one holding 3 (flow 7) */
	f.seq = 9200;
	assert_int_equal(tp_ndn_reasm_add(&r, &f, 11, (void *)4, 102, out, &n_out, ev, &n_ev),
			 TP_NDN_REASM_HELD);
	assert_int_equal(n_ev, 1);
	assert_ptr_equal(ev[0], (void *)102); /* flow 9's oldest */
	/* an index beyond the count, a packet of one fragment, no Sequence */
	f.frag_index = 2;
	assert_int_equal(tp_ndn_reasm_add(&r, &f, 7, (void *)3, 100, out, &n_out, ev, &n_ev),
			 TP_NDN_REASM_BAD);
	f.frag_index = 0;
	f.frag_count = 1;
	assert_int_equal(tp_ndn_reasm_add(&r, &f, 7, (void *)3, 100, out, &n_out, ev, &n_ev),
			 TP_NDN_REASM_BAD);
	f.frag_count = 2;
	f.has_seq = false;
	assert_int_equal(tp_ndn_reasm_add(&r, &f, 7, (void *)3, 100, out, &n_out, ev, &n_ev),
			 TP_NDN_REASM_BAD);
	/* what is held comes back once, whatever way */
	unsigned int back = 0;
	while (tp_ndn_reasm_expire(&r, UINT64_MAX, ev, &n_ev))
		back += n_ev;
	assert_int_equal(back, TP_NDN_REASM_SLOTS);
	/* the overhead a sender plans with bounds the header the encoder writes */
	uint8_t hdr[128], tok[TP_NDN_PIT_TOKEN_MAX] = {0};
	struct tp_ndn_lp_spec s = {.payload_len = 9000,
				   .frag = true,
				   .seq = UINT64_MAX,
				   .frag_index = TP_NDN_FRAG_MAX - 1,
				   .frag_count = TP_NDN_FRAG_MAX,
				   .pit_token_len = sizeof(tok),
				   .pit_token = tok,
				   .nack = true,
				   .nack_reason = TP_NDN_NACK_UNSPECIFIED};
	int h = tp_ndn_lp_encode(hdr, sizeof(hdr), &s);
	assert_true(h > 0 && (size_t)h <= tp_ndn_lp_frag_overhead(sizeof(tok), true));
	s.pit_token_len = 0;
	s.nack = false;
	h = tp_ndn_lp_encode(hdr, sizeof(hdr), &s);
	assert_true(h > 0 && (size_t)h <= tp_ndn_lp_frag_overhead(0, false));
}

/* The stream faces' framing: python-ndn's packets, back to back as an application
 * writes them on its socket, come out whole whether they arrive at once or a byte at
 * a time; an element announced past 8,800 bytes, or of TLV-TYPE 0, breaks the stream. */
static void test_stream_framing(void **state)
{
	static const struct {
		const uint8_t *p;
		size_t n;
	} pkts[] = {
	    {v_interest_signed, sizeof(v_interest_signed)},
	    {v_data_final_block, sizeof(v_data_final_block)},
	    {v_nack_no_route, sizeof(v_nack_no_route)},
	    {v_lp_pit_token, sizeof(v_lp_pit_token)},
	};
	static struct tp_ndn_stream s;
	uint8_t all[1024];
	size_t total = 0;
	const uint8_t *e;
	size_t len, room;

	(void)state;
	for (unsigned int i = 0; i < 4; i++) {
		memcpy(all + total, pkts[i].p, pkts[i].n);
		total += pkts[i].n;
	}
	for (size_t step = 1; step <= total; step = step == 1 ? total : total + 1) {
		unsigned int got = 0;
		tp_ndn_stream_init(&s);
		for (size_t off = 0; off < total; off += step) {
			size_t k = total - off < step ? total - off : step;
			uint8_t *sp = tp_ndn_stream_space(&s, &room);
			assert_true(room >= k);
			memcpy(sp, all + off, k);
			tp_ndn_stream_commit(&s, k);
			int rc;
			while ((rc = tp_ndn_stream_next(&s, &e, &len)) == TP_NDN_E_OK) {
				assert_int_equal(len, pkts[got].n);
				assert_memory_equal(e, pkts[got].p, len);
				got++;
			}
			assert_int_equal(rc, TP_NDN_E_TRUNCATED);
		}
		assert_int_equal(got, 4);
		assert_int_equal(tp_ndn_stream_held(&s), 0);
	}
	/* a partial element waits; the header of one too long breaks the stream */
	static const uint8_t too_long[] = {0x06, 0xfd, 0x22, 0x5d}; /* 4 + 8,797 */
	static const uint8_t longest[] = {0x06, 0xfd, 0x22, 0x5c};  /* 4 + 8,796 */
	tp_ndn_stream_init(&s);
	memcpy(tp_ndn_stream_space(&s, &room), longest, 4);
	tp_ndn_stream_commit(&s, 4);
	assert_int_equal(tp_ndn_stream_next(&s, &e, &len), TP_NDN_E_TRUNCATED);
	tp_ndn_stream_init(&s);
	memcpy(tp_ndn_stream_space(&s, &room), too_long, 4);
	tp_ndn_stream_commit(&s, 4);
	assert_int_equal(tp_ndn_stream_next(&s, &e, &len), TP_NDN_E_NO_SPACE);
	assert_int_equal(tp_ndn_stream_next(&s, &e, &len), TP_NDN_E_NO_SPACE);
	tp_ndn_stream_space(&s, &room);
	assert_int_equal(room, 0);
	tp_ndn_stream_init(&s);
	memcpy(tp_ndn_stream_space(&s, &room), "\x00", 1); /* TLV-TYPE 0 */
	tp_ndn_stream_commit(&s, 1);
	assert_int_equal(tp_ndn_stream_next(&s, &e, &len), TP_NDN_E_BAD_VARNUM);
}

static void test_names_and_uris(void **state)
{
	const struct {
		const uint8_t *v;
		size_t len;
	} names[] = {{V(v_name_0)}, {V(v_name_1)}, {V(v_name_2)}};
	struct tp_ndn_name n, m;
	char uri[256];
	uint8_t buf[256];

	for (size_t k = 0; k < 3; k++) {
		assert_int_equal(tp_ndn_name_decode(names[k].v, names[k].len, &n), TP_NDN_E_OK);
		assert_int_equal(tp_ndn_name_to_uri(&n, uri, sizeof(uri)), strlen(v_name_uri[k]));
		assert_string_equal(uri, v_name_uri[k]);
		int len = tp_ndn_name_from_uri(v_name_uri[k], buf, sizeof(buf));
		assert_int_equal(len, names[k].len);
		assert_memory_equal(buf, names[k].v, names[k].len);
	}
	/* the NDN URI scheme (ndn-cxx): a component of periods only is written with three
	 * more; "..." is the empty component */
	static const uint8_t dots[] = {0x08, 0x02, '.', '.', 0x08, 0x00, 0x08, 0x01, 'x'};
	assert_int_equal(tp_ndn_name_decode(V(dots), &n), TP_NDN_E_OK);
	assert_true(tp_ndn_name_to_uri(&n, uri, sizeof(uri)) > 0);
	assert_string_equal(uri, "/...../.../x");
	assert_int_equal(tp_ndn_name_from_uri(uri, buf, sizeof(buf)), sizeof(dots));
	assert_memory_equal(buf, dots, sizeof(dots));
	/* a number component not in its shortest form keeps its bytes through a URI (found
	 * by fuzz_ndn): "50=%00%05", not "seg=5" */
	static const uint8_t seg_long[] = {0x32, 0x02, 0x00, 0x05};
	assert_int_equal(tp_ndn_name_decode(V(seg_long), &n), TP_NDN_E_OK);
	assert_true(tp_ndn_name_to_uri(&n, uri, sizeof(uri)) > 0);
	assert_string_equal(uri, "/50=%00%05");
	assert_int_equal(tp_ndn_name_from_uri(uri, buf, sizeof(buf)), sizeof(seg_long));
	assert_memory_equal(buf, seg_long, sizeof(seg_long));
	/* prefixes and order */
	int la = tp_ndn_name_from_uri("/a/b", buf, sizeof(buf));
	assert_int_equal(tp_ndn_name_decode(buf, (size_t)la, &n), TP_NDN_E_OK);
	uint8_t buf2[64];
	int lb = tp_ndn_name_from_uri("/a/b/c", buf2, sizeof(buf2));
	assert_int_equal(tp_ndn_name_decode(buf2, (size_t)lb, &m), TP_NDN_E_OK);
	assert_true(tp_ndn_name_is_prefix(&n, &m));
	assert_false(tp_ndn_name_is_prefix(&m, &n));
	assert_true(tp_ndn_name_compare(&n, &m) < 0);
	assert_int_equal(tp_ndn_name_compare(&m, &m), 0);
	/* "/a/bc" is not under "/a/b" even though its bytes start the same way */
	lb = tp_ndn_name_from_uri("/a/bc", buf2, sizeof(buf2));
	assert_int_equal(tp_ndn_name_decode(buf2, (size_t)lb, &m), TP_NDN_E_OK);
	assert_false(tp_ndn_name_is_prefix(&n, &m));
	/* bad URIs */
	assert_true(tp_ndn_name_from_uri("a/b", buf, sizeof(buf)) < 0);
	assert_true(tp_ndn_name_from_uri("/a/%zz", buf, sizeof(buf)) < 0);
	assert_true(tp_ndn_name_from_uri("/seg=x", buf, sizeof(buf)) < 0);
	assert_true(tp_ndn_name_from_uri("/sha256digest=00", buf, sizeof(buf)) < 0);
	assert_true(tp_ndn_name_from_uri("/a//b", buf, sizeof(buf)) < 0);
	assert_true(tp_ndn_name_from_uri("/..", buf, sizeof(buf)) < 0);
	assert_int_equal(tp_ndn_name_from_uri("/", buf, sizeof(buf)), 0);
	assert_int_equal(tp_ndn_name_from_uri("/a/b/c", buf, 5), -TP_NDN_E_NO_SPACE);
}

/* Every vector truncated at every length, each an exact-size heap copy: no decoder may
 * read past it, and none may take a truncated packet for a whole one. */
static void test_truncated_and_corrupted(void **state)
{
	const struct {
		const uint8_t *v;
		size_t len;
		int kind; /* 0 interest, 1 data, 2 lp */
	} vec[] = {
	    {V(v_interest_flags), 0},	  {V(v_interest_params), 0}, {V(v_interest_signed), 0},
	    {V(v_interest_long_name), 0}, {V(v_data_plain), 1},	     {V(v_data_final_block), 1},
	    {V(v_nack_no_route), 2},	  {V(v_lp_pit_token), 2},    {V(v_lp_frag0), 2},
	    {V(v_lp_congestion), 2},
	};
	struct tp_ndn_interest i;
	struct tp_ndn_data d;
	struct tp_ndn_lp lp;

	for (size_t k = 0; k < sizeof(vec) / sizeof(vec[0]); k++) {
		for (size_t n = 0; n < vec[k].len; n++) {
			uint8_t *copy = malloc(n ? n : 1);
			memcpy(copy, vec[k].v, n);
			int rc = vec[k].kind == 0   ? tp_ndn_interest_decode(copy, n, &i, NULL)
				 : vec[k].kind == 1 ? tp_ndn_data_decode(copy, n, &d, NULL)
						    : tp_ndn_lp_decode(copy, n, &lp);
			assert_int_not_equal(rc, TP_NDN_E_OK);
			free(copy);
		}
		/* every byte flipped: anything may come back but a read out of bounds */
		for (size_t b = 0; b < vec[k].len; b++) {
			uint8_t *copy = malloc(vec[k].len);
			memcpy(copy, vec[k].v, vec[k].len);
			copy[b] ^= 0xff;
			if (tp_ndn_lp_decode(copy, vec[k].len, &lp) == TP_NDN_E_OK) {
				tp_ndn_interest_decode(lp.payload, lp.payload_len, &i, NULL);
				tp_ndn_data_decode(lp.payload, lp.payload_len, &d, NULL);
			}
			free(copy);
		}
	}
}

/* tp_ndn_bytes_eq against memcmp: every length to past its inline limit, equal
 * copies and a difference at each position (one bit, the high or the low one), in
 * exact-size heap copies (under ASan, a read outside them fails the run) */
static void test_bytes_eq(void **state)
{
	(void)state;
	for (size_t len = 0; len <= 80; len++) {
		/* len + !len, not len ? len : 1: gcc 12 -O3 took the latter for a [1, 80]-byte
		 * object written at offset 80 (-Wstringop-overflow, a false positive) */
		uint8_t *a = malloc(len + !len), *b = malloc(len + !len);
		assert_non_null(a);
		assert_non_null(b);
		for (size_t i = 0; i < len; i++)
			a[i] = (uint8_t)(i * 37 + len);
		memcpy(b, a, len);
		assert_true(tp_ndn_bytes_eq(a, b, len));
		for (size_t pos = 0; pos < len; pos++)
			for (unsigned int bit = 0; bit < 8; bit += 7) {
				b[pos] ^= (uint8_t)(1u << bit);
				assert_int_equal(tp_ndn_bytes_eq(a, b, len),
						 memcmp(a, b, len) == 0);
				assert_false(tp_ndn_bytes_eq(a, b, len));
				assert_false(tp_ndn_bytes_eq(b, a, len));
				b[pos] ^= (uint8_t)(1u << bit);
			}
		assert_true(tp_ndn_bytes_eq(b, a, len));
		free(a);
		free(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sha256_fips),
	    cmocka_unit_test(test_sha256_block_functions),
	    cmocka_unit_test(test_varnum),
	    cmocka_unit_test(test_interest_flags),
	    cmocka_unit_test(test_interest_add_nonce),
	    cmocka_unit_test(test_interest_params_digest),
	    cmocka_unit_test(test_interest_signed_and_long),
	    cmocka_unit_test(test_hmac_sha256),
	    cmocka_unit_test(test_critical_rule),
	    cmocka_unit_test(test_data),
	    cmocka_unit_test(test_lp),
	    cmocka_unit_test(test_reassembly),
	    cmocka_unit_test(test_stream_framing),
	    cmocka_unit_test(test_names_and_uris),
	    cmocka_unit_test(test_truncated_and_corrupted),
	    cmocka_unit_test(test_bytes_eq),
	};
	return cmocka_run_group_tests_name("ndn", tests, NULL, NULL);
}
