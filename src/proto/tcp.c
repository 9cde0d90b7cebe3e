/* SPDX-License-Identifier: BSD-3-Clause */
/* TCP header, options and checksum; ARP. */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>

#include "ip4.h"
#include "tcp.h"

static inline uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}
static inline uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline void wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}
static inline void wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

int tp_tcp_opts_parse(const uint8_t *p, size_t len, struct tp_tcp_opts *o)
{
	size_t i = 0;

	memset(o, 0, sizeof(*o));
	while (i < len) {
		uint8_t kind = p[i];
		if (kind == TP_TCP_OPT_EOL)
			break;
		if (kind == TP_TCP_OPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= len)
			return -EINVAL;
		uint8_t ol = p[i + 1];
		if (ol < 2 || i + ol > len)
			return -EINVAL;
		const uint8_t *v = p + i + 2;
		switch (kind) {
		case TP_TCP_OPT_MSS:
			if (ol != 4)
				return -EINVAL;
			o->has_mss = true;
			o->mss = rd16(v);
			break;
		case TP_TCP_OPT_WS:
			if (ol != 3)
				return -EINVAL;
			o->has_ws = true;
			/* RFC 7323 2.3: a shift over 14 is used as 14 */
			o->ws = v[0] > TP_TCP_WS_MAX ? TP_TCP_WS_MAX : v[0];
			break;
		case TP_TCP_OPT_SACK_PERM:
			if (ol != 2)
				return -EINVAL;
			o->sack_perm = true;
			break;
		case TP_TCP_OPT_SACK:
			/* RFC 2018 3: 8 bytes per block, 1-4 blocks */
			if (ol < 10 || (ol - 2) % 8 != 0)
				return -EINVAL;
			o->nsack = 0;
			for (unsigned int b = 0; b < (unsigned int)(ol - 2) / 8; b++) {
				if (b >= TP_TCP_SACK_MAX)
					return -EINVAL;
				o->sack[b][0] = rd32(v + 8 * b);
				o->sack[b][1] = rd32(v + 8 * b + 4);
				o->nsack++;
			}
			break;
		case TP_TCP_OPT_TS:
			if (ol != 10)
				return -EINVAL;
			o->has_ts = true;
			o->tsval = rd32(v);
			o->tsecr = rd32(v + 4);
			break;
		default:
			break; /* skipped by its length */
		}
		i += ol;
	}
	return 0;
}

enum tp_tcp_verdict tp_tcp_parse(const uint8_t *seg, size_t len, struct tp_tcp_hdr *h,
				 struct tp_tcp_opts *o)
{
	if (len < TP_TCP_HDR_LEN)
		return TP_TCP_TOO_SHORT;
	h->sport = rd16(seg);
	h->dport = rd16(seg + 2);
	h->seq = rd32(seg + 4);
	h->ack = rd32(seg + 8);
	h->hlen = (uint8_t)((seg[12] >> 4) * 4);
	h->flags = seg[13] & 0x3f;
	h->win = rd16(seg + 14);
	if (h->hlen < TP_TCP_HDR_LEN || h->hlen > len)
		return TP_TCP_BAD_OFFSET;
	if (tp_tcp_opts_parse(seg + TP_TCP_HDR_LEN, h->hlen - TP_TCP_HDR_LEN, o) < 0)
		return TP_TCP_BAD_OPTIONS;
	return TP_TCP_OK;
}

uint32_t tp_tcp_pseudo_sum(uint32_t src_be, uint32_t dst_be, size_t len)
{
	uint64_t sum = (uint64_t)(src_be & 0xffff) + (src_be >> 16) + (dst_be & 0xffff) +
		       (dst_be >> 16) + htons(TP_IPPROTO_TCP) + htons((uint16_t)len);
	sum = (sum & 0xffffffff) + (sum >> 32);
	return (uint32_t)sum;
}

bool tp_tcp_cksum_ok(const uint8_t *seg, size_t len, uint32_t src_be, uint32_t dst_be)
{
	uint64_t sum =
	    (uint64_t)tp_tcp_pseudo_sum(src_be, dst_be, len) + tp_csum_fold_sum(seg, len);
	return tp_csum_fold(sum) == 0xffff;
}

void tp_tcp_write(uint8_t *seg, size_t len, uint32_t src_be, uint32_t dst_be,
		  const struct tp_tcp_hdr *h)
{
	wr16(seg, h->sport);
	wr16(seg + 2, h->dport);
	wr32(seg + 4, h->seq);
	wr32(seg + 8, h->ack);
	seg[12] = (uint8_t)((h->hlen / 4) << 4);
	seg[13] = h->flags;
	wr16(seg + 14, h->win);
	seg[16] = seg[17] = 0;
	seg[18] = seg[19] = 0; /* urgent pointer: never used */
	uint64_t sum =
	    (uint64_t)tp_tcp_pseudo_sum(src_be, dst_be, len) + tp_csum_fold_sum(seg, len);
	uint16_t ck = (uint16_t)~tp_csum_fold(sum);
	memcpy(seg + 16, &ck, 2);
}

size_t tp_tcp_opts_syn(uint8_t *p, uint16_t mss, int ws, bool sack_perm, bool ts, uint32_t tsval,
		       uint32_t tsecr)
{
	size_t n = 0;

	p[n++] = TP_TCP_OPT_MSS;
	p[n++] = 4;
	wr16(p + n, mss);
	n += 2;
	if (sack_perm && ts) {
		p[n++] = TP_TCP_OPT_SACK_PERM;
		p[n++] = 2;
	} else if (ts) {
		p[n++] = TP_TCP_OPT_NOP;
		p[n++] = TP_TCP_OPT_NOP;
	}
	if (ts) {
		p[n++] = TP_TCP_OPT_TS;
		p[n++] = 10;
		wr32(p + n, tsval);
		wr32(p + n + 4, tsecr);
		n += 8;
	} else if (sack_perm) {
		p[n++] = TP_TCP_OPT_NOP;
		p[n++] = TP_TCP_OPT_NOP;
		p[n++] = TP_TCP_OPT_SACK_PERM;
		p[n++] = 2;
	}
	if (ws >= 0) {
		p[n++] = TP_TCP_OPT_NOP;
		p[n++] = TP_TCP_OPT_WS;
		p[n++] = 3;
		p[n++] = (uint8_t)ws;
	}
	return n;
}

size_t tp_tcp_opts_data(uint8_t *p, bool ts, uint32_t tsval, uint32_t tsecr,
			const uint32_t (*sack)[2], unsigned int nsack)
{
	size_t n = 0;
	unsigned int max = ts ? 3 : 4;

	if (ts) {
		/* RFC 7323 appendix A: NOP NOP TS, aligned */
		p[n++] = TP_TCP_OPT_NOP;
		p[n++] = TP_TCP_OPT_NOP;
		p[n++] = TP_TCP_OPT_TS;
		p[n++] = 10;
		wr32(p + n, tsval);
		wr32(p + n + 4, tsecr);
		n += 8;
	}
	if (nsack > max)
		nsack = max;
	if (nsack) {
		p[n++] = TP_TCP_OPT_NOP;
		p[n++] = TP_TCP_OPT_NOP;
		p[n++] = TP_TCP_OPT_SACK;
		p[n++] = (uint8_t)(2 + 8 * nsack);
		for (unsigned int b = 0; b < nsack; b++) {
			wr32(p + n, sack[b][0]);
			wr32(p + n + 4, sack[b][1]);
			n += 8;
		}
	}
	return n;
}

int tp_arp_parse(const uint8_t *p, size_t len, struct tp_arp *a)
{
	/* htype 1 (Ethernet), ptype 0x0800, hlen 6, plen 4 */
	if (len < TP_ARP_LEN || rd16(p) != 1 || rd16(p + 2) != TP_ETHERTYPE_IP4 || p[4] != 6 ||
	    p[5] != 4)
		return -EINVAL;
	a->op = rd16(p + 6);
	memcpy(a->sha, p + 8, 6);
	a->spa = rd32(p + 14);
	memcpy(a->tha, p + 18, 6);
	a->tpa = rd32(p + 24);
	return 0;
}

void tp_arp_write(uint8_t *p, const struct tp_arp *a)
{
	wr16(p, 1);
	wr16(p + 2, TP_ETHERTYPE_IP4);
	p[4] = 6;
	p[5] = 4;
	wr16(p + 6, a->op);
	memcpy(p + 8, a->sha, 6);
	wr32(p + 14, a->spa);
	memcpy(p + 18, a->tha, 6);
	wr32(p + 24, a->tpa);
}
