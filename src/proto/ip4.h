/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv4 header codec: validation, checksum and TTL arithmetic on plain buffers. */
#ifndef TP_PROTO_IP4_H
#define TP_PROTO_IP4_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>

#define TP_IP4_HDR_LEN 20
#define TP_ETH_HDR_LEN 14
#define TP_ETHERTYPE_IP4 0x0800
#define TP_ETHERTYPE_ARP 0x0806

/* Result of tp_ip4_check(): what RFC 1812 5.2.2 says about a header. */
enum tp_ip4_verdict {
	TP_IP4_OK = 0,
	TP_IP4_TOO_SHORT,	  /* fewer than 20 bytes of header in the frame */
	TP_IP4_BAD_VERSION,	  /* version field is not 4 */
	TP_IP4_BAD_IHL,		  /* IHL < 5, or the header is longer than the frame */
	TP_IP4_BAD_TOTAL_LEN,	  /* total length < IHL * 4 */
	TP_IP4_LEN_EXCEEDS_FRAME, /* total length > bytes present */
	TP_IP4_BAD_CHECKSUM,	  /* header checksum does not verify */
};

/* A 64-bit one's-complement accumulator folded to 16 bits, not inverted (RFC 1071
 * 4.1: end-around carries): the one fold of the IPv4, TCP and UDP checksums. */
static inline uint16_t tp_csum_fold(uint64_t sum)
{
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* One's-complement sum of len bytes (len even), folded to 16 bits, not inverted. */
static inline uint16_t tp_csum_fold_sum(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint64_t sum = 0;
	while (len >= 4) {
		uint32_t w;
		memcpy(&w, p, 4);
		sum += w;
		p += 4;
		len -= 4;
	}
	if (len >= 2) {
		uint16_t w;
		memcpy(&w, p, 2);
		sum += w;
		p += 2;
		len -= 2;
	}
	if (len)
		sum += *p; /* little-endian host: odd byte is the low byte of a BE word */
	return tp_csum_fold(sum);
}

/* tp_csum_fold_sum() of exactly 20 bytes: five 32-bit words, two folds each way. */
static inline uint16_t tp_csum_sum20(const uint8_t *p)
{
	uint32_t w[5];
	uint64_t sum;

	memcpy(w, p, sizeof(w));
	sum = (uint64_t)w[0] + w[1] + w[2] + w[3] + w[4];
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* Header checksum as it belongs in the header (network order), computed with the
 * checksum field taken as zero (RFC 791 3.1). */
static inline uint16_t tp_ip4_cksum(const void *hdr, size_t hlen)
{
	uint8_t tmp[60];
	memcpy(tmp, hdr, hlen);
	tmp[10] = tmp[11] = 0;
	return (uint16_t)~tp_csum_fold_sum(tmp, hlen);
}

/* Validate an IPv4 header of which avail bytes are present (RFC 1812 5.2.2).
 * Options are allowed here; the caller decides where packets with options go. */
static inline enum tp_ip4_verdict tp_ip4_check(const uint8_t *ip, size_t avail)
{
	if (avail < TP_IP4_HDR_LEN)
		return TP_IP4_TOO_SHORT;
	if ((ip[0] >> 4) != 4)
		return TP_IP4_BAD_VERSION;
	size_t hlen = (size_t)(ip[0] & 0x0f) * 4;
	if (hlen < TP_IP4_HDR_LEN || hlen > avail)
		return TP_IP4_BAD_IHL;
	size_t tot = ((size_t)ip[2] << 8) | ip[3];
	if (tot < hlen)
		return TP_IP4_BAD_TOTAL_LEN;
	if (tot > avail)
		return TP_IP4_LEN_EXCEEDS_FRAME;
	/* a valid header sums to 0xffff (RFC 1071) */
	if (hlen == TP_IP4_HDR_LEN ? tp_csum_sum20(ip) != 0xffff
				   : tp_csum_fold_sum(ip, hlen) != 0xffff)
		return TP_IP4_BAD_CHECKSUM;
	return TP_IP4_OK;
}

/* TTL - 1 and the checksum patched to match (RFC 1812 5.3.1; RFC 1624 eqn. 3,
 * HC' = ~(~HC + ~m + m')). With TTL the high byte of header word 4, eqn. 3
 * comes to HC' = HC + 0x0100 in one's complement with a result of 0xffff
 * written 0 (as Linux's ip_decrease_ttl, and grout's ip_forward.c); byte-swapped,
 * as loaded on a little-endian host, that is ck + 1, and the carry/-0 correction
 * is ((ck + 2) >> 16): 1 exactly when ck + 1 >= 0xffff. The router's fast path
 * (nf/ip4/datapath/input.c) runs this one. The caller has checked TTL > 1. */
static inline void tp_ip4_ttl_dec(uint8_t *ip)
{
	uint16_t ck;

	ip[8]--;
	memcpy(&ck, ip + 10, 2);
	ck = (uint16_t)((uint32_t)ck + 1 + (((uint32_t)ck + 2) >> 16));
	memcpy(ip + 10, &ck, 2);
}

/* Write a minimal IPv4 header (IHL 5, DF clear) with a valid checksum. Returns 20. */
static inline size_t tp_ip4_write(uint8_t *ip, uint32_t src_be, uint32_t dst_be, uint8_t proto,
				  uint8_t ttl, uint16_t payload_len, uint16_t id)
{
	uint16_t tot = htons((uint16_t)(TP_IP4_HDR_LEN + payload_len));
	uint16_t idn = htons(id);
	ip[0] = 0x45;
	ip[1] = 0;
	memcpy(ip + 2, &tot, 2);
	memcpy(ip + 4, &idn, 2);
	ip[6] = ip[7] = 0;
	ip[8] = ttl;
	ip[9] = proto;
	ip[10] = ip[11] = 0;
	memcpy(ip + 12, &src_be, 4);
	memcpy(ip + 16, &dst_be, 4);
	uint16_t ck = tp_ip4_cksum(ip, TP_IP4_HDR_LEN);
	memcpy(ip + 10, &ck, 2);
	return TP_IP4_HDR_LEN;
}

/* Parse "a.b.c.d/len" into a host-order address and a depth; 0 or -EINVAL. */
int tp_ip4_parse_prefix(const char *s, uint32_t *ip, uint8_t *depth);
/* Parse "a.b.c.d" into a host-order address; 0 or -EINVAL. */
int tp_ip4_parse_addr(const char *s, uint32_t *ip);
/* Format a host-order address into buf (>= 16 bytes); returns buf. */
char *tp_ip4_fmt(uint32_t ip, char *buf);
/* Parse "aa:bb:cc:dd:ee:ff"; 0 or -EINVAL. */
int tp_mac_parse(const char *s, uint8_t mac[6]);
/* Format a MAC into buf (>= 18 bytes); returns buf. */
char *tp_mac_fmt(const uint8_t mac[6], char *buf);

#endif
