/* SPDX-License-Identifier: BSD-3-Clause */
/* TCP header codec (RFC 9293 3.1): options (MSS, window scale, SACK-permitted, SACK,
 * timestamps: RFC 7323, RFC 2018), sequence arithmetic and the checksum with its IPv4
 * pseudo-header; ARP for Ethernet and IPv4 (RFC 826). Plain buffers, no DPDK. */
#ifndef TP_PROTO_TCP_H
#define TP_PROTO_TCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TP_IPPROTO_ICMP 1
#define TP_IPPROTO_TCP 6

#define TP_TCP_HDR_LEN 20
#define TP_TCP_FIN 0x01
#define TP_TCP_SYN 0x02
#define TP_TCP_RST 0x04
#define TP_TCP_PSH 0x08
#define TP_TCP_ACK 0x10
#define TP_TCP_URG 0x20

#define TP_TCP_OPT_EOL 0
#define TP_TCP_OPT_NOP 1
#define TP_TCP_OPT_MSS 2
#define TP_TCP_OPT_WS 3
#define TP_TCP_OPT_SACK_PERM 4
#define TP_TCP_OPT_SACK 5
#define TP_TCP_OPT_TS 8

#define TP_TCP_WS_MAX 14  /* RFC 7323 2.3 */
#define TP_TCP_SACK_MAX 4 /* blocks in one option (40 bytes of options) */

/* Sequence numbers compare modulo 2^32 (RFC 9293 3.4). */
static inline bool tp_seq_lt(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}
static inline bool tp_seq_le(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) <= 0;
}
static inline bool tp_seq_gt(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}
static inline bool tp_seq_ge(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) >= 0;
}

/* A TCP header, decoded (host order). */
struct tp_tcp_hdr {
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t hlen; /* data offset in bytes, 20-60 */
	uint8_t flags;
	uint16_t win; /* unscaled */
};

/* The options of one segment. */
struct tp_tcp_opts {
	bool has_mss, has_ws, sack_perm, has_ts;
	uint16_t mss;
	uint8_t ws;
	uint32_t tsval, tsecr;
	uint8_t nsack;
	uint32_t sack[TP_TCP_SACK_MAX][2]; /* [left, right) edges */
};

enum tp_tcp_verdict {
	TP_TCP_OK = 0,
	TP_TCP_TOO_SHORT,   /* fewer than 20 bytes */
	TP_TCP_BAD_OFFSET,  /* data offset < 5 or past the segment */
	TP_TCP_BAD_OPTIONS, /* an option's length is wrong or runs past the header */
};

/* Decode the header of the segment seg[0, len) and its options. */
enum tp_tcp_verdict tp_tcp_parse(const uint8_t *seg, size_t len, struct tp_tcp_hdr *h,
				 struct tp_tcp_opts *o);
/* Decode options p[0, len). 0 or -EINVAL. Unknown options are skipped by their length;
 * a known option with a wrong length is an error (RFC 9293 3.2: MUST be tolerated by
 * skipping only when its length is sane). */
int tp_tcp_opts_parse(const uint8_t *p, size_t len, struct tp_tcp_opts *o);

/* Write a TCP header of hlen bytes (20 + the options already at seg + 20) with the
 * checksum over the pseudo-header and len bytes of segment. Addresses are network
 * order. */
void tp_tcp_write(uint8_t *seg, size_t len, uint32_t src_be, uint32_t dst_be,
		  const struct tp_tcp_hdr *h);
/* Options of a SYN: MSS, SACK-permitted, timestamps, window scale (as Linux orders
 * them: 20 bytes). ws < 0 leaves window scaling out; tsval is the timestamp. Returns
 * the length written (a multiple of 4). */
size_t tp_tcp_opts_syn(uint8_t *p, uint16_t mss, int ws, bool sack_perm, bool ts, uint32_t tsval,
		       uint32_t tsecr);
/* Options of a synchronized segment: timestamps (when ts) and up to nsack SACK blocks
 * (3 at most with timestamps). Returns the length written (a multiple of 4). */
size_t tp_tcp_opts_data(uint8_t *p, bool ts, uint32_t tsval, uint32_t tsecr,
			const uint32_t (*sack)[2], unsigned int nsack);

/* One's-complement sum of the IPv4 pseudo-header for a TCP segment of len bytes
 * (RFC 9293 3.1), not folded below 32 bits. */
uint32_t tp_tcp_pseudo_sum(uint32_t src_be, uint32_t dst_be, size_t len);
/* Does the segment's checksum verify? */
bool tp_tcp_cksum_ok(const uint8_t *seg, size_t len, uint32_t src_be, uint32_t dst_be);

/* --- ARP (RFC 826), Ethernet and IPv4 only --------------------------------- */

#define TP_ARP_LEN 28
#define TP_ARP_REQUEST 1
#define TP_ARP_REPLY 2

struct tp_arp {
	uint16_t op;
	uint8_t sha[6], tha[6];
	uint32_t spa, tpa; /* host order */
};

/* Decode an ARP packet (after the Ethernet header) of len bytes: 0, or -EINVAL when it
 * is not Ethernet/IPv4 or too short. */
int tp_arp_parse(const uint8_t *p, size_t len, struct tp_arp *a);
/* Write a 28-byte ARP packet. */
void tp_arp_write(uint8_t *p, const struct tp_arp *a);

#endif
