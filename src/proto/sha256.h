/* SPDX-License-Identifier: BSD-3-Clause */
/* SHA-256 (FIPS 180-4 section 6.2): NDN's digest components and DigestSha256
 * signatures. Incremental or one shot; no allocation. */
#ifndef TP_PROTO_SHA256_H
#define TP_PROTO_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tp_sha256 {
	uint32_t h[8];
	uint64_t bytes;
	uint8_t buf[64];
	uint32_t n;
};

void tp_sha256_init(struct tp_sha256 *c);
void tp_sha256_update(struct tp_sha256 *c, const void *data, size_t len);
void tp_sha256_final(struct tp_sha256 *c, uint8_t out[32]);
void tp_sha256(const void *data, size_t len, uint8_t out[32]);

/* HMAC-SHA256 (RFC 2104 section 2, with B = 64 and L = 32): NDN's
 * SignatureHmacWithSha256. init with the key (any length: longer than 64 bytes it is
 * hashed first), update the message, final the 32-byte MAC. */
struct tp_hmac_sha256 {
	struct tp_sha256 inner;
	uint8_t okey[64]; /* K XOR opad */
};
void tp_hmac_sha256_init(struct tp_hmac_sha256 *c, const void *key, size_t key_len);
void tp_hmac_sha256_update(struct tp_hmac_sha256 *c, const void *data, size_t len);
void tp_hmac_sha256_final(struct tp_hmac_sha256 *c, uint8_t out[32]);
/* The block function: on > 0 the CPU's SHA extensions if it has them, 0 the portable
 * one, < 0 the default (the extensions when present). Returns whether the extensions
 * are used now. Not thread-safe against hashing in progress: for tests and start-up. */
bool tp_sha256_use_shani(int on);

#endif
