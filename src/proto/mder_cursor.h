/* SPDX-License-Identifier: BSD-3-Clause */
/* MDER reader and writer primitives shared by the codec's .c files (not a public header). */
#ifndef TP_PROTO_MDER_CURSOR_H
#define TP_PROTO_MDER_CURSOR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mder.h"

/* A reader over [base + off, base + end): every read checks end first. Offsets
 * in errors are from base, so nested readers report absolute offsets. */
struct mder_rd {
	const uint8_t *base;
	size_t off, end;
	struct tp_phd_error *err;
};

static inline void rd_init(struct mder_rd *r, const uint8_t *buf, size_t len,
			   struct tp_phd_error *err)
{
	r->base = buf;
	r->off = 0;
	r->end = len;
	r->err = err;
	if (err != NULL)
		memset(err, 0, sizeof(*err));
}

static inline size_t rd_left(const struct mder_rd *r)
{
	return r->end - r->off;
}

/* Record an error at offset off and return it negated. */
static inline int rd_fail_at(struct mder_rd *r, size_t off, int code, const char *field,
			     size_t need, size_t have)
{
	if (r->err != NULL) {
		r->err->code = code;
		r->err->offset = (uint32_t)off;
		r->err->where = r->base != NULL ? r->base + off : NULL;
		r->err->field = field;
		r->err->need = (uint32_t)need;
		r->err->have = (uint32_t)have;
	}
	return -code;
}

static inline int rd_fail(struct mder_rd *r, int code, const char *field, size_t need, size_t have)
{
	return rd_fail_at(r, r->off, code, field, need, have);
}

static inline int rd_need(struct mder_rd *r, size_t n, const char *field)
{
	if (rd_left(r) < n)
		return rd_fail(r, TP_PHD_E_TRUNCATED, field, n, rd_left(r));
	return 0;
}

static inline int rd_u8(struct mder_rd *r, const char *field, uint8_t *v)
{
	int rc = rd_need(r, 1, field);
	if (rc < 0)
		return rc;
	*v = r->base[r->off++];
	return 0;
}

static inline int rd_u16(struct mder_rd *r, const char *field, uint16_t *v)
{
	int rc = rd_need(r, 2, field);
	if (rc < 0)
		return rc;
	*v = (uint16_t)(r->base[r->off] << 8 | r->base[r->off + 1]);
	r->off += 2;
	return 0;
}

static inline int rd_u32(struct mder_rd *r, const char *field, uint32_t *v)
{
	int rc = rd_need(r, 4, field);
	if (rc < 0)
		return rc;
	const uint8_t *p = r->base + r->off;
	*v = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	r->off += 4;
	return 0;
}

/* n bytes as a sub-reader (the caller has checked that n bytes are left). */
static inline void rd_take(struct mder_rd *r, size_t n, struct mder_rd *sub)
{
	sub->base = r->base;
	sub->err = r->err;
	sub->off = r->off;
	sub->end = r->off + n;
	r->off += n;
}

/* A 16-bit length (field names it) and that many bytes as a sub-reader. */
static inline int rd_block(struct mder_rd *r, const char *field, struct mder_rd *sub)
{
	size_t at = r->off;
	uint16_t n;
	int rc = rd_u16(r, field, &n);
	if (rc < 0)
		return rc;
	if (n > rd_left(r))
		return rd_fail_at(r, at, TP_PHD_E_LENGTH, field, n, rd_left(r));
	rd_take(r, n, sub);
	return 0;
}

/* An OCTET STRING or ANY: 16-bit length and the bytes, referenced in place. */
static inline int rd_octets(struct mder_rd *r, const char *field, struct tp_phd_octets *o)
{
	struct mder_rd sub;
	int rc = rd_block(r, field, &sub);
	if (rc < 0)
		return rc;
	o->p = r->base + sub.off;
	o->len = (uint16_t)(sub.end - sub.off);
	return 0;
}

/* A SEQUENCE OF header: count (at most limit) and length, the entries as a sub-reader. */
static inline int rd_list(struct mder_rd *r, const char *fcount, const char *flength, size_t limit,
			  uint16_t *count, struct mder_rd *sub)
{
	size_t at = r->off;
	int rc = rd_u16(r, fcount, count);
	if (rc < 0)
		return rc;
	rc = rd_block(r, flength, sub);
	if (rc < 0)
		return rc;
	if (*count > limit)
		return rd_fail_at(r, at, TP_PHD_E_TOO_MANY, fcount, *count, limit);
	return 0;
}

/* The reader must be used up: its length declared exactly what it holds. */
static inline int rd_done(struct mder_rd *r, const char *field)
{
	if (r->off != r->end)
		return rd_fail(r, TP_PHD_E_TRAILING, field, 0, rd_left(r));
	return 0;
}

/* A writer into [buf, buf + size): the first error sticks and stops all writes. */
struct mder_wr {
	uint8_t *buf;
	size_t size, off;
	int err;
};

static inline void wr_init(struct mder_wr *w, uint8_t *buf, size_t size)
{
	w->buf = buf;
	w->size = buf == NULL ? 0 : size;
	w->off = 0;
	w->err = 0;
}

static inline uint8_t *wr_room(struct mder_wr *w, size_t n)
{
	if (w->err)
		return NULL;
	if (w->size - w->off < n) {
		w->err = -TP_PHD_E_NO_SPACE;
		return NULL;
	}
	uint8_t *p = w->buf + w->off;
	w->off += n;
	return p;
}

static inline void wr_u8(struct mder_wr *w, uint8_t v)
{
	uint8_t *p = wr_room(w, 1);
	if (p)
		p[0] = v;
}

static inline void wr_u16(struct mder_wr *w, uint16_t v)
{
	uint8_t *p = wr_room(w, 2);
	if (p) {
		p[0] = (uint8_t)(v >> 8);
		p[1] = (uint8_t)v;
	}
}

static inline void wr_u32(struct mder_wr *w, uint32_t v)
{
	uint8_t *p = wr_room(w, 4);
	if (p) {
		p[0] = (uint8_t)(v >> 24);
		p[1] = (uint8_t)(v >> 16);
		p[2] = (uint8_t)(v >> 8);
		p[3] = (uint8_t)v;
	}
}

static inline void wr_bytes(struct mder_wr *w, const void *src, size_t n)
{
	uint8_t *p = wr_room(w, n);
	if (p && n)
		memcpy(p, src, n);
}

/* Reserve a 16-bit length; wr_len_end() fills in what was written since. */
static inline size_t wr_len_begin(struct mder_wr *w)
{
	size_t at = w->off;
	wr_u16(w, 0);
	return at;
}

static inline void wr_len_end(struct mder_wr *w, size_t at)
{
	if (w->err)
		return;
	size_t n = w->off - at - 2;
	if (n > 0xffff) {
		w->err = -TP_PHD_E_TOO_LONG;
		return;
	}
	w->buf[at] = (uint8_t)(n >> 8);
	w->buf[at + 1] = (uint8_t)n;
}

static inline void wr_octets(struct mder_wr *w, const struct tp_phd_octets *o)
{
	if (o->len && o->p == NULL) {
		if (!w->err)
			w->err = -TP_PHD_E_INVALID;
		return;
	}
	wr_u16(w, o->len);
	wr_bytes(w, o->p, o->len);
}

static inline void wr_invalid(struct mder_wr *w)
{
	if (!w->err)
		w->err = -TP_PHD_E_INVALID;
}

static inline int wr_result(const struct mder_wr *w)
{
	return w->err ? w->err : (int)w->off;
}

/* Shared between mder.c and mder_value.c */
int tp_mder_dec_avas(struct mder_rd *r, const char *fcount, const char *flength,
		     struct tp_phd_ava *ava, size_t room, uint16_t *count);
void tp_mder_enc_avas(struct mder_wr *w, const struct tp_phd_ava *ava, size_t n, size_t limit);

#endif
