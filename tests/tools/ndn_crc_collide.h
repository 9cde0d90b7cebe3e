/* SPDX-License-Identifier: BSD-3-Clause */
/* NDN name components that collide under the forwarder's old name hash (review N4,
 * the ndn-crc reproduction): the hash of a prefix was CRC32C (rte_hash_crc, no final
 * XOR) of each component's TLV, chained from a random seed. For inputs of one length
 * raw CRC32C is affine in its initial value, crc(s, x) = A.s ^ crc(0, x), so
 * components of one length and one crc(0, .) give names that collide for every seed,
 * after any components that come before them. Solving 4 bytes of a component over
 * GF(2) gives it any crc(0, .).
 *
 * One method for both users: tests/unit/test_hash.c (20,000 names into a real PCCT)
 * and tests/tools/ndn-crc-collide.c (the lab's names, test_ndn_collisions.py). */
#ifndef TP_TESTS_NDN_CRC_COLLIDE_H
#define TP_TESTS_NDN_CRC_COLLIDE_H

#include <stdint.h>
#include <string.h>

#include <rte_hash_crc.h>

#define NDN_CRC_COMP_LEN 26 /* 08 18, 16 free bytes, 4 solved, 4 zero */
#define NDN_CRC_FREE 16
#define NDN_CRC_SOLVED 18
#define NDN_CRC_TARGET 0x12345678u

/* The old hash of one NDN_CRC_COMP_LEN-byte component TLV, chained from h (the seed,
 * or the previous components' hash) */
static inline uint32_t ndn_crc_old_comp(const uint8_t *p, uint32_t h)
{
	return rte_hash_crc(p, NDN_CRC_COMP_LEN, h);
}

/* inv: the inverse over GF(2) of the map from the 32 bits of bytes NDN_CRC_SOLVED..+3
 * to the component's CRC from 0 (its column b: the CRC of bit b alone; rows as bit
 * masks). Returns 0, or -1 if the map is not invertible (never: 32 consecutive bits
 * of a CRC message). */
static inline int ndn_crc_solve_setup(uint32_t inv[32])
{
	uint64_t row[32] = {0};
	uint8_t e[NDN_CRC_COMP_LEN];

	for (int b = 0; b < 32; b++) {
		memset(e, 0, sizeof(e));
		e[NDN_CRC_SOLVED + b / 8] = (uint8_t)(1u << (b % 8));
		uint32_t col = ndn_crc_old_comp(e, 0);
		for (int r = 0; r < 32; r++)
			row[r] |= (uint64_t)(col >> r & 1) << b;
	}
	for (int r = 0; r < 32; r++)
		row[r] |= 1ull << (32 + r); /* [M | I] */
	for (int c = 0; c < 32; c++) {
		int p = c;
		while (p < 32 && !(row[p] >> c & 1))
			p++;
		if (p == 32)
			return -1;
		uint64_t t = row[p];
		row[p] = row[c];
		row[c] = t;
		for (int r = 0; r < 32; r++)
			if (r != c && (row[r] >> c & 1))
				row[r] ^= row[c];
	}
	for (int b = 0; b < 32; b++)
		inv[b] = (uint32_t)(row[b] >> 32);
	return 0;
}

/* p: NDN_CRC_COMP_LEN bytes, a GenericNameComponent (type 8) whose value is the 16
 * bytes of free, then 4 bytes solved so that its CRC from 0 is NDN_CRC_TARGET, then 4
 * zero bytes */
static inline void ndn_crc_component(uint8_t *p, const uint8_t free[NDN_CRC_FREE],
				     const uint32_t inv[32])
{
	memset(p, 0, NDN_CRC_COMP_LEN);
	p[0] = 8; /* GenericNameComponent */
	p[1] = NDN_CRC_COMP_LEN - 2;
	memcpy(p + 2, free, NDN_CRC_FREE);
	/* the solved bytes are zero here: crc0(p) + M.x = TARGET */
	uint32_t y = NDN_CRC_TARGET ^ ndn_crc_old_comp(p, 0), x = 0;
	for (int b = 0; b < 32; b++)
		x |= (uint32_t)__builtin_parity(inv[b] & y) << b;
	for (int k = 0; k < 4; k++)
		p[NDN_CRC_SOLVED + k] = (uint8_t)(x >> (8 * k));
}

#endif
