/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv6 header codec (RFC 8200): validation, address classes, the header writer. */
#ifndef TP_PROTO_IP6_H
#define TP_PROTO_IP6_H

#include <stdint.h>
#include <string.h>

#define TP_ETHERTYPE_IP6 0x86dd
#define TP_IP6_HDR_LEN 40

/* Next Header values (IANA "Assigned Internet Protocol Numbers") */
#define TP_IP6_NH_HOP_BY_HOP 0 /* RFC 8200 4.3 */
#define TP_IP6_NH_TCP 6
#define TP_IP6_NH_UDP 17
#define TP_IP6_NH_ROUTING 43  /* RFC 8200 4.4 */
#define TP_IP6_NH_FRAGMENT 44 /* RFC 8200 4.5 */
#define TP_IP6_NH_ICMP6 58
#define TP_IP6_NH_OSPF 89

/* ICMPv6 types of Neighbor Discovery (RFC 4861 4.1-4.5) */
#define TP_ICMP6_ROUTER_SOLICIT 133
#define TP_ICMP6_NEIGHBOR_ADVERT 137

/* Result of tp_ip6_check(): what RFC 8200 3 says about a header. */
enum tp_ip6_verdict {
	TP_IP6_OK = 0,
	TP_IP6_TOO_SHORT,	  /* fewer than 40 bytes of header */
	TP_IP6_BAD_VERSION,	  /* version field is not 6 */
	TP_IP6_LEN_EXCEEDS_FRAME, /* 40 + payload length > bytes present */
};

/* Check the fixed header at ip, avail bytes from ip to the end of the frame (all
 * segments). A payload length shorter than what the frame holds is Ethernet padding
 * (the caller cuts it); 0 with a Hop-by-Hop header is a jumbogram (RFC 2675), left
 * to the kernel with the Hop-by-Hop header. */
static inline enum tp_ip6_verdict tp_ip6_check(const uint8_t *ip, uint32_t avail)
{
	if (avail < TP_IP6_HDR_LEN)
		return TP_IP6_TOO_SHORT;
	if ((ip[0] >> 4) != 6) /* RFC 8200 3: Version = 6 */
		return TP_IP6_BAD_VERSION;
	/* RFC 8200 3: Payload Length, the rest of the packet after the header */
	if (TP_IP6_HDR_LEN + (((uint32_t)ip[4] << 8) | ip[5]) > avail)
		return TP_IP6_LEN_EXCEEDS_FRAME;
	return TP_IP6_OK;
}

/* The payload length field (host order). */
static inline uint16_t tp_ip6_plen(const uint8_t *ip)
{
	return (uint16_t)(((uint16_t)ip[4] << 8) | ip[5]);
}

/* RFC 4291 2.7: ff00::/8 */
static inline int tp_ip6_is_multicast(const uint8_t *a)
{
	return a[0] == 0xff;
}

/* RFC 4291 2.5.6: fe80::/10, never forwarded (source or destination) */
static inline int tp_ip6_is_link_local(const uint8_t *a)
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

/* RFC 4291 2.5.2, 2.5.3: the unspecified address :: and the loopback ::1, which a
 * router never forwards (nor takes as a destination from the wire) */
static inline int tp_ip6_is_unspec_or_loopback(const uint8_t *a)
{
	static const uint8_t zero[15];

	return memcmp(a, zero, 15) == 0 && a[15] <= 1;
}

/* Write a 40-byte header at ip: traffic class 0, flow label 0, the payload length,
 * next header, hop limit, source and destination (16 bytes each, network order). */
static inline void tp_ip6_write(uint8_t *ip, const uint8_t src[16], const uint8_t dst[16],
				uint8_t next_header, uint8_t hop_limit, uint16_t plen)
{
	ip[0] = 0x60, ip[1] = ip[2] = ip[3] = 0;
	ip[4] = (uint8_t)(plen >> 8), ip[5] = (uint8_t)plen;
	ip[6] = next_header;
	ip[7] = hop_limit;
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, dst, 16);
}

/* Text forms (proto/addr.c). */
#define TP_IP6_STRLEN 46 /* INET6_ADDRSTRLEN */
/* An address (RFC 4291 2.2 text forms) into ip, network order. 0 or -EINVAL. */
int tp_ip6_parse_addr(const char *s, uint8_t ip[16]);
/* ADDR/LEN, LEN 0-128 (required), into ip masked to LEN and *depth. 0 or -EINVAL. */
int tp_ip6_parse_prefix(const char *s, uint8_t ip[16], uint8_t *depth);
/* RFC 5952's form of ip into buf (TP_IP6_STRLEN bytes); returns buf. */
char *tp_ip6_fmt(const uint8_t ip[16], char *buf);

#endif
