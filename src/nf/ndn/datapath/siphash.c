/* SPDX-License-Identifier: BSD-3-Clause */
/* SipHash-2-4 (Aumasson and Bernstein, 2012): the NDT's keyed hash of a name prefix,
 * so that no sender can aim its Interests at one forwarding lcore. The one SipHash of
 * the project is tables/keyed_hash.h's; the FIB's and PCCT's name hashes are keyed
 * AES rounds, or its SipHash-1-3 without AES-NI (name_hash.c). */
#include "../../../tables/keyed_hash.h"
#include "../ndn.h"

uint64_t ndn_siphash(const uint64_t key[2], const uint8_t *p, size_t len)
{
	return tp_siphash24(key, p, len);
}
