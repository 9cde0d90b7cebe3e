/* SPDX-License-Identifier: BSD-3-Clause */
/* BPDUs to and from bytes (802.1D-2004 clause 9). */
#include <string.h>

#include "bpdu.h"

static const uint8_t group[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x00};

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t rd64(const uint8_t *p)
{
	return (uint64_t)rd32(p) << 32 | rd32(p + 4);
}

static void wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void wr32(uint8_t *p, uint32_t v)
{
	wr16(p, (uint16_t)(v >> 16));
	wr16(p + 2, (uint16_t)v);
}

static void wr64(uint8_t *p, uint64_t v)
{
	wr32(p, (uint32_t)(v >> 32));
	wr32(p + 4, (uint32_t)v);
}

int tp_bpdu_parse(const uint8_t *f, size_t len, struct tp_bpdu *b)
{
	const uint8_t *p;
	size_t n;
	uint16_t l;

	if (len < TP_BPDU_ETH_LEN + TP_BPDU_LLC_LEN + TP_BPDU_TCN_LEN)
		return TP_BPDU_ERR_SHORT;
	l = rd16(f + 12);
	/* 802.3 length/type (IEEE 802.3 3.2.6): a length, never above 1500 */
	if (l > 1500 || f[14] != 0x42 || f[15] != 0x42 || f[16] != 0x03)
		return TP_BPDU_ERR_LLC;
	/* the octets the frame holds after LLC, at most what its length field says
	 * (the rest is the padding of a short frame) */
	n = len - TP_BPDU_ETH_LEN - TP_BPDU_LLC_LEN;
	if (l < TP_BPDU_LLC_LEN + TP_BPDU_TCN_LEN)
		return TP_BPDU_ERR_SHORT;
	if ((size_t)l - TP_BPDU_LLC_LEN < n)
		n = (size_t)l - TP_BPDU_LLC_LEN;
	p = f + TP_BPDU_ETH_LEN + TP_BPDU_LLC_LEN;
	memset(b, 0, sizeof(*b));
	if (rd16(p) != 0) /* 9.3.4: protocol identifier 0000 0000 0000 0000 */
		return TP_BPDU_ERR_PROTOCOL;
	b->version = p[2];
	b->type = p[3];
	switch (b->type) {
	case TP_BPDU_TCN: /* 9.3.4 b: at least 4 octets */
		return 0;
	case TP_BPDU_CONFIG: /* 9.3.4 a: at least 35 octets */
		if (n < TP_BPDU_CONFIG_LEN)
			return TP_BPDU_ERR_SHORT;
		break;
	case TP_BPDU_RST: /* 9.3.4 c: version 2 or more, at least 36 octets */
		if (b->version < 2)
			return TP_BPDU_ERR_TYPE;
		if (n < TP_BPDU_RST_LEN)
			return TP_BPDU_ERR_SHORT;
		break;
	default:
		return TP_BPDU_ERR_TYPE;
	}
	b->flags = p[4];
	b->root = rd64(p + 5);
	b->cost = rd32(p + 13);
	b->bridge = rd64(p + 17);
	b->port = rd16(p + 25);
	b->msg_age = rd16(p + 27) >> 8; /* 9.2.8: in 1/256 s */
	b->max_age = rd16(p + 29) >> 8;
	b->hello = rd16(p + 31) >> 8;
	b->fwd_delay = rd16(p + 33) >> 8;
	/* 9.3.4 a: a Configuration BPDU whose message age is not below its max age is
	 * not taken. An RST BPDU has no such rule (c): its receiver's Port Information
	 * machine ages such information at once (17.21.23) */
	if (b->type == TP_BPDU_CONFIG && rd16(p + 27) >= rd16(p + 29))
		return TP_BPDU_ERR_AGE;
	return 0;
}

size_t tp_bpdu_write(uint8_t *buf, size_t cap, const uint8_t *src, const struct tp_bpdu *b)
{
	size_t blen;
	uint8_t *p;

	switch (b->type) {
	case TP_BPDU_TCN:
		blen = TP_BPDU_TCN_LEN;
		break;
	case TP_BPDU_CONFIG:
		blen = TP_BPDU_CONFIG_LEN;
		break;
	case TP_BPDU_RST:
		blen = TP_BPDU_RST_LEN;
		break;
	default:
		return 0;
	}
	if (cap < TP_BPDU_FRAME_MAX)
		return 0;
	memset(buf, 0, TP_BPDU_FRAME_MAX);
	memcpy(buf, group, 6);
	memcpy(buf + 6, src, 6);
	wr16(buf + 12, (uint16_t)(TP_BPDU_LLC_LEN + blen)); /* 802.3 length */
	buf[14] = 0x42;					    /* 802.2 LLC: DSAP, SSAP, UI */
	buf[15] = 0x42;
	buf[16] = 0x03;
	p = buf + TP_BPDU_ETH_LEN + TP_BPDU_LLC_LEN;
	/* 9.3.1-9.3.3: protocol identifier 0, version 0 (STP) or 2 (RSTP), type */
	p[2] = b->type == TP_BPDU_RST ? 2 : 0;
	p[3] = b->type;
	if (b->type != TP_BPDU_TCN) {
		/* 9.3.1: a Configuration BPDU carries TC and TCA only */
		p[4] = b->type == TP_BPDU_CONFIG
			   ? (uint8_t)(b->flags & (TP_BPDU_F_TC | TP_BPDU_F_TCA))
			   : (uint8_t)(b->flags & (uint8_t)~TP_BPDU_F_TCA);
		wr64(p + 5, b->root);
		wr32(p + 13, b->cost);
		wr64(p + 17, b->bridge);
		wr16(p + 25, b->port);
		wr16(p + 27, (uint16_t)(b->msg_age << 8));
		wr16(p + 29, (uint16_t)(b->max_age << 8));
		wr16(p + 31, (uint16_t)(b->hello << 8));
		wr16(p + 33, (uint16_t)(b->fwd_delay << 8));
		/* p[35] of an RST BPDU: Version 1 Length 0 (9.3.3) */
	}
	return TP_BPDU_FRAME_MAX;
}

const char *tp_bpdu_strerror(int err)
{
	switch (err) {
	case TP_BPDU_OK:
		return "ok";
	case TP_BPDU_ERR_SHORT:
		return "short";
	case TP_BPDU_ERR_LLC:
		return "not LLC 42 42 03";
	case TP_BPDU_ERR_PROTOCOL:
		return "protocol identifier not 0";
	case TP_BPDU_ERR_TYPE:
		return "unknown type or version";
	case TP_BPDU_ERR_AGE:
		return "message age not below max age";
	default:
		return "?";
	}
}
