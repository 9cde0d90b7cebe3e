/* SPDX-License-Identifier: BSD-3-Clause */
/* NDN TLV framing on a byte stream: whole elements out of bytes split anywhere. */
#include <string.h>

#include "ndn.h"

uint8_t *tp_ndn_stream_space(struct tp_ndn_stream *s, size_t *room)
{
	if (s->err != TP_NDN_E_OK) {
		*room = 0;
		return s->buf;
	}
	if (s->off) {
		/* what is held is one partial element, less than the buffer */
		memmove(s->buf, s->buf + s->off, s->len - s->off);
		s->len -= s->off;
		s->off = 0;
	}
	*room = sizeof(s->buf) - s->len;
	return s->buf + s->len;
}

/* A VAR-NUMBER at p (avail bytes): its size, 0 when more bytes are needed, -1 when it
 * is not in its shortest form (packet format 1.2). */
static int varnum(const uint8_t *p, size_t avail, uint64_t *v)
{
	size_t need, n;

	if (avail == 0)
		return 0;
	need = p[0] < 253 ? 1 : p[0] == 253 ? 3 : p[0] == 254 ? 5 : 9;
	if (avail < need)
		return 0;
	n = tp_ndn_varnum_read(p, avail, v);
	return n ? (int)n : -1;
}

int tp_ndn_stream_next(struct tp_ndn_stream *s, const uint8_t **elem, size_t *len)
{
	uint64_t type, vlen;
	int tn, ln;

	if (s->err != TP_NDN_E_OK)
		return s->err;
	const uint8_t *p = s->buf + s->off;
	size_t avail = s->len - s->off;
	if ((tn = varnum(p, avail, &type)) <= 0)
		goto header;
	if ((ln = varnum(p + tn, avail - (size_t)tn, &vlen)) <= 0) {
		if (ln == 0 && (type == 0 || type > UINT32_MAX))
			goto bad; /* no need to wait for the length */
		tn = ln;
		goto header;
	}
	/* 1.3: TLV-TYPE 0 is invalid; types are at most 2^32 - 1 */
	if (type == 0 || type > UINT32_MAX)
		goto bad;
	size_t hl = (size_t)tn + (size_t)ln;
	if (vlen > TP_NDN_STREAM_MAX - hl)
		return s->err = TP_NDN_E_NO_SPACE;
	if (avail < hl + vlen)
		return TP_NDN_E_TRUNCATED;
	*elem = p;
	*len = hl + (size_t)vlen;
	s->off += (uint32_t)*len;
	return TP_NDN_E_OK;
header:
	if (tn == 0)
		return TP_NDN_E_TRUNCATED;
bad:
	return s->err = TP_NDN_E_BAD_VARNUM;
}
