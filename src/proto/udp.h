/* SPDX-License-Identifier: BSD-3-Clause */
/* UDP header codec (RFC 768) on plain buffers: the one writer and reader every part
 * of twinplane uses (data plane, control plane, generator, tools, tests). */
#ifndef TP_PROTO_UDP_H
#define TP_PROTO_UDP_H

#include <stddef.h>
#include <stdint.h>

#include "ip4.h" /* tp_csum_fold, tp_csum_fold_sum: the one checksum fold */

#define TP_UDP_HDR_LEN 8
#define TP_IPPROTO_UDP 17

/* Write an 8-byte UDP header for payload_len bytes of payload. The checksum is 0,
 * "no checksum" (RFC 768, IPv4 only; IPv6 must compute it, RFC 8200 8.1).
 * Returns TP_UDP_HDR_LEN. */
static inline size_t tp_udp_write(uint8_t *udp, uint16_t sport, uint16_t dport,
				  uint16_t payload_len)
{
	uint16_t dgram_len = (uint16_t)(TP_UDP_HDR_LEN + payload_len);

	udp[0] = (uint8_t)(sport >> 8);
	udp[1] = (uint8_t)sport;
	udp[2] = (uint8_t)(dport >> 8);
	udp[3] = (uint8_t)dport;
	udp[4] = (uint8_t)(dgram_len >> 8);
	udp[5] = (uint8_t)dgram_len;
	udp[6] = udp[7] = 0;
	return TP_UDP_HDR_LEN;
}

/* The UDP checksum of a datagram over IPv6 (RFC 8200 8.1: mandatory; the
 * pseudo-header of source, destination, upper-layer length and next header 17), as it
 * belongs in the header (network order; a computed 0 is sent as 0xffff, RFC 768): ip6
 * is the IPv6 header (its addresses are read), udp the len-byte datagram, whose
 * checksum field must be zero. */
static inline uint16_t tp_udp6_cksum(const uint8_t *ip6, const uint8_t *udp, uint16_t len)
{
	uint64_t sum = tp_csum_fold_sum(ip6 + 8, 32); /* source, destination */

	sum += htons(len) + htons(TP_IPPROTO_UDP) + tp_csum_fold_sum(udp, len);
	uint16_t ck = (uint16_t)~tp_csum_fold(sum);
	return ck ? ck : 0xffff;
}

/* The header's fields, host order. */
struct tp_udp_view {
	uint16_t sport, dport;
	uint16_t dgram_len; /* header + payload, as the header says */
};

/* Read a UDP header of which avail bytes are present. Returns the payload length
 * (dgram_len - 8, which may be less than avail - 8: the rest is padding), or -1 when
 * fewer than 8 bytes are present or the length field is < 8 or > avail (RFC 768). */
static inline int tp_udp_read(const uint8_t *udp, size_t avail, struct tp_udp_view *v)
{
	if (avail < TP_UDP_HDR_LEN)
		return -1;
	v->sport = (uint16_t)(udp[0] << 8 | udp[1]);
	v->dport = (uint16_t)(udp[2] << 8 | udp[3]);
	v->dgram_len = (uint16_t)(udp[4] << 8 | udp[5]);
	if (v->dgram_len < TP_UDP_HDR_LEN || v->dgram_len > avail)
		return -1;
	return v->dgram_len - TP_UDP_HDR_LEN;
}

#endif
