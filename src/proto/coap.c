/* SPDX-License-Identifier: BSD-3-Clause */
/* CoAP message codec: header, token, delta-encoded options and payload (RFC 7252 3). */
#include <string.h>

#include "coap.h"

static const char *const coap_errors[TP_COAP_E__COUNT] = {
    [TP_COAP_OK] = "ok",
    [TP_COAP_E_SHORT] = "message shorter than the 4-byte header",
    [TP_COAP_E_VERSION] = "version is not 1",
    [TP_COAP_E_TKL] = "token length 9-15 is reserved",
    [TP_COAP_E_TOKEN_TRUNC] = "token runs past the end",
    [TP_COAP_E_OPT_DELTA15] = "option delta 15 outside a payload marker",
    [TP_COAP_E_OPT_LEN15] = "option length 15 is reserved",
    [TP_COAP_E_OPT_EXT_TRUNC] = "extended option delta or length runs past the end",
    [TP_COAP_E_OPT_VALUE_TRUNC] = "option value runs past the end",
    [TP_COAP_E_OPT_NUM_RANGE] = "option number above 65535",
    [TP_COAP_E_TOO_MANY_OPTS] = "too many options",
    [TP_COAP_E_EMPTY_PAYLOAD] = "payload marker with an empty payload",
    [TP_COAP_E_EMPTY_NOT_EMPTY] = "empty message (0.00) with token, options or payload",
    [TP_COAP_E_RST_NOT_EMPTY] = "reset message is not empty",
    [TP_COAP_E_NON_EMPTY] = "non-confirmable message is empty",
    [TP_COAP_E_INVAL] = "invalid argument",
    [TP_COAP_E_NOSPC] = "buffer too small",
    [TP_COAP_E_OPT_ORDER] = "option number below the previous one",
    [TP_COAP_E_OPT_TOO_LONG] = "option value too long",
    [TP_COAP_E_PATH] = "empty or over-long path segment",
    [TP_COAP_E_AFTER_PAYLOAD] = "option or payload after the payload",
};

const char *tp_coap_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err >= TP_COAP_E__COUNT || coap_errors[err] == NULL)
		return "unknown";
	return coap_errors[err];
}

/* Resolve a 4-bit delta or length field: 13 and 14 take 1 or 2 more bytes (RFC 7252 3.1). */
static int read_ext(const uint8_t *buf, size_t len, size_t *pos, uint32_t *v)
{
	if (*v == 13) {
		if (len - *pos < 1)
			return -TP_COAP_E_OPT_EXT_TRUNC;
		*v = 13 + (uint32_t)buf[*pos];
		*pos += 1;
	} else if (*v == 14) {
		if (len - *pos < 2)
			return -TP_COAP_E_OPT_EXT_TRUNC;
		*v = 269 + (((uint32_t)buf[*pos] << 8) | buf[*pos + 1]);
		*pos += 2;
	}
	return 0;
}

int tp_coap_decode(const uint8_t *buf, size_t len, struct tp_coap_msg *m)
{
	size_t pos = TP_COAP_HDR_LEN;
	uint32_t num = 0;
	int rc;

	if (buf == NULL || m == NULL)
		return -TP_COAP_E_INVAL;
	if (len < TP_COAP_HDR_LEN)
		return -TP_COAP_E_SHORT;
	if ((buf[0] >> 6) != TP_COAP_VERSION)
		return -TP_COAP_E_VERSION;
	m->type = (buf[0] >> 4) & 0x3;
	m->tkl = buf[0] & 0xf;
	m->code = buf[1];
	m->mid = (uint16_t)((buf[2] << 8) | buf[3]);
	m->n_opts = 0;
	m->payload = NULL;
	m->payload_len = 0;
	if (m->tkl > TP_COAP_TOKEN_MAX)
		return -TP_COAP_E_TKL; /* RFC 7252 3: a message format error */
	if (m->code == TP_COAP_EMPTY) {
		/* RFC 7252 4.1: nothing may follow the Message ID of an Empty message */
		if (m->tkl != 0 || len != TP_COAP_HDR_LEN)
			return -TP_COAP_E_EMPTY_NOT_EMPTY;
		/* RFC 7252 4.3: a Non-confirmable message MUST NOT be Empty */
		if (m->type == TP_COAP_NON)
			return -TP_COAP_E_NON_EMPTY;
		return 0;
	}
	/* RFC 7252 4.2: a Reset message is Empty */
	if (m->type == TP_COAP_RST)
		return -TP_COAP_E_RST_NOT_EMPTY;
	if (len - pos < m->tkl)
		return -TP_COAP_E_TOKEN_TRUNC;
	memcpy(m->token, buf + pos, m->tkl);
	pos += m->tkl;

	while (pos < len) {
		uint8_t b = buf[pos++];
		if (b == TP_COAP_PAYLOAD_MARKER) {
			/* RFC 7252 3: a marker followed by a zero-length payload is an error */
			if (pos == len)
				return -TP_COAP_E_EMPTY_PAYLOAD;
			m->payload = buf + pos;
			m->payload_len = len - pos;
			return 0;
		}
		uint32_t delta = b >> 4, olen = b & 0xf;
		/* RFC 7252 3.1: 15 is reserved in both fields */
		if (delta == 15)
			return -TP_COAP_E_OPT_DELTA15;
		if (olen == 15)
			return -TP_COAP_E_OPT_LEN15;
		/* the extended delta bytes come before the extended length bytes */
		rc = read_ext(buf, len, &pos, &delta);
		if (rc < 0)
			return rc;
		rc = read_ext(buf, len, &pos, &olen);
		if (rc < 0)
			return rc;
		num += delta;
		if (num > UINT16_MAX)
			return -TP_COAP_E_OPT_NUM_RANGE;
		if (olen > len - pos)
			return -TP_COAP_E_OPT_VALUE_TRUNC;
		if (m->n_opts == TP_COAP_MAX_OPTS)
			return -TP_COAP_E_TOO_MANY_OPTS;
		struct tp_coap_opt *o = &m->opts[m->n_opts++];
		o->num = (uint16_t)num;
		o->len = olen;
		o->val = buf + pos;
		pos += olen;
	}
	return 0;
}

static void w_fail(struct tp_coap_writer *w, int err)
{
	if (w->err == 0)
		w->err = err;
}

void tp_coap_begin(struct tp_coap_writer *w, uint8_t *buf, size_t cap, enum tp_coap_type type,
		   uint8_t code, uint16_t mid, const uint8_t *token, size_t tkl)
{
	w->buf = buf;
	w->cap = cap;
	w->len = 0;
	w->last = 0;
	w->payload = false;
	w->err = 0;
	if (buf == NULL || (unsigned int)type > TP_COAP_RST || (tkl > 0 && token == NULL)) {
		w_fail(w, -TP_COAP_E_INVAL);
		return;
	}
	if (tkl > TP_COAP_TOKEN_MAX) {
		w_fail(w, -TP_COAP_E_TKL);
		return;
	}
	if (cap < TP_COAP_HDR_LEN + tkl) {
		w_fail(w, -TP_COAP_E_NOSPC);
		return;
	}
	/* RFC 7252 3: Ver (2 bits) | T (2) | TKL (4), Code, Message ID */
	buf[0] = (uint8_t)((TP_COAP_VERSION << 6) | ((unsigned int)type << 4) | tkl);
	buf[1] = code;
	buf[2] = (uint8_t)(mid >> 8);
	buf[3] = (uint8_t)mid;
	if (tkl > 0)
		memcpy(buf + TP_COAP_HDR_LEN, token, tkl);
	w->len = TP_COAP_HDR_LEN + tkl;
}

/* The 4-bit field for v; 13/14 append 1/2 extended bytes at ext + *n (RFC 7252 3.1). */
static uint8_t put_nibble(uint32_t v, uint8_t *ext, size_t *n)
{
	if (v < 13)
		return (uint8_t)v;
	if (v < 269) {
		ext[(*n)++] = (uint8_t)(v - 13);
		return 13;
	}
	v -= 269;
	ext[(*n)++] = (uint8_t)(v >> 8);
	ext[(*n)++] = (uint8_t)v;
	return 14;
}

void tp_coap_put_opt(struct tp_coap_writer *w, uint16_t num, const void *val, size_t len)
{
	uint8_t hdr[5];
	size_t h = 1;

	if (w->err != 0)
		return;
	if (w->payload) {
		w_fail(w, -TP_COAP_E_AFTER_PAYLOAD);
		return;
	}
	/* option 0 is reserved (RFC 7252 12.2) */
	if (num == 0 || (len > 0 && val == NULL)) {
		w_fail(w, -TP_COAP_E_INVAL);
		return;
	}
	if (num < w->last) {
		w_fail(w, -TP_COAP_E_OPT_ORDER);
		return;
	}
	if (len > TP_COAP_OPT_LEN_MAX) {
		w_fail(w, -TP_COAP_E_OPT_TOO_LONG);
		return;
	}
	/* the delta's extended bytes go first, then the length's (RFC 7252 3.1) */
	uint8_t d = put_nibble((uint32_t)(num - w->last), hdr, &h);
	uint8_t l = put_nibble((uint32_t)len, hdr, &h);
	hdr[0] = (uint8_t)((d << 4) | l);
	if (w->cap - w->len < h + len) {
		w_fail(w, -TP_COAP_E_NOSPC);
		return;
	}
	memcpy(w->buf + w->len, hdr, h);
	if (len > 0)
		memcpy(w->buf + w->len + h, val, len);
	w->len += h + len;
	w->last = num;
}

void tp_coap_put_uint(struct tp_coap_writer *w, uint16_t num, uint32_t v)
{
	uint8_t b[4];
	size_t n = 0;

	/* RFC 7252 3.2: as few bytes as possible; 0 is the empty value */
	for (int shift = 24; shift >= 0; shift -= 8) {
		uint8_t byte = (uint8_t)(v >> shift);
		if (n > 0 || byte != 0)
			b[n++] = byte;
	}
	tp_coap_put_opt(w, num, b, n);
}

void tp_coap_put_str(struct tp_coap_writer *w, uint16_t num, const char *s)
{
	if (s == NULL) {
		w_fail(w, -TP_COAP_E_INVAL);
		return;
	}
	tp_coap_put_opt(w, num, s, strlen(s));
}

/* One option per sep-separated part of s; empty parts and parts over 255 bytes
 * (Uri-Path and Uri-Query are 0-255 bytes, RFC 7252 5.10) are TP_COAP_E_PATH. */
static void put_split(struct tp_coap_writer *w, uint16_t num, const char *s, char sep)
{
	while (*s != '\0' && w->err == 0) {
		const char *end = strchr(s, sep);
		size_t n = end != NULL ? (size_t)(end - s) : strlen(s);
		if (n == 0 || n > 255 || (end != NULL && end[1] == '\0')) {
			w_fail(w, -TP_COAP_E_PATH);
			return;
		}
		tp_coap_put_opt(w, num, s, n);
		if (end == NULL)
			break;
		s = end + 1;
	}
}

void tp_coap_put_uri_path(struct tp_coap_writer *w, const char *path)
{
	if (path == NULL) {
		w_fail(w, -TP_COAP_E_INVAL);
		return;
	}
	/* RFC 7252 6.4 step 8: one Uri-Path option per segment */
	put_split(w, TP_COAP_OPT_URI_PATH, path[0] == '/' ? path + 1 : path, '/');
}

void tp_coap_put_uri_query(struct tp_coap_writer *w, const char *query)
{
	if (query == NULL) {
		w_fail(w, -TP_COAP_E_INVAL);
		return;
	}
	/* RFC 7252 6.4 step 9: one Uri-Query option per argument */
	put_split(w, TP_COAP_OPT_URI_QUERY, query[0] == '?' ? query + 1 : query, '&');
}

void tp_coap_put_payload(struct tp_coap_writer *w, const void *p, size_t len)
{
	if (w->err != 0)
		return;
	if (w->payload) {
		w_fail(w, -TP_COAP_E_AFTER_PAYLOAD);
		return;
	}
	/* RFC 7252 3: no marker without a payload */
	if (len == 0)
		return;
	if (p == NULL) {
		w_fail(w, -TP_COAP_E_INVAL);
		return;
	}
	if (w->cap - w->len < 1 + len) {
		w_fail(w, -TP_COAP_E_NOSPC);
		return;
	}
	w->buf[w->len] = TP_COAP_PAYLOAD_MARKER;
	memcpy(w->buf + w->len + 1, p, len);
	w->len += 1 + len;
	w->payload = true;
}

int tp_coap_tmpl_save(struct tp_coap_tmpl *t, const struct tp_coap_writer *w)
{
	t->len = 0;
	if (w->err != 0)
		return w->err;
	if (w->payload)
		return -TP_COAP_E_AFTER_PAYLOAD;
	if (w->len > sizeof(t->buf))
		return -TP_COAP_E_NOSPC;
	memcpy(t->buf, w->buf, w->len);
	t->last = w->last;
	t->len = (uint16_t)w->len;
	return 0;
}

void tp_coap_tmpl_begin(struct tp_coap_writer *w, uint8_t *buf, size_t cap,
			const struct tp_coap_tmpl *t, enum tp_coap_type type, uint16_t mid,
			const uint8_t *token)
{
	size_t tkl = t->len ? t->buf[0] & 0xf : 0;

	w->buf = buf;
	w->cap = cap;
	w->len = 0;
	w->last = t->last;
	w->payload = false;
	w->err = 0;
	if (buf == NULL || t->len == 0 || (unsigned int)type > TP_COAP_RST ||
	    (tkl > 0 && token == NULL)) {
		w_fail(w, -TP_COAP_E_INVAL);
		return;
	}
	if (cap < t->len) {
		w_fail(w, -TP_COAP_E_NOSPC);
		return;
	}
	memcpy(buf, t->buf, t->len);
	/* RFC 7252 3: the type bits of the first byte, the Message ID, the token */
	buf[0] = (uint8_t)((buf[0] & 0xcf) | (unsigned int)type << 4);
	buf[2] = (uint8_t)(mid >> 8);
	buf[3] = (uint8_t)mid;
	if (tkl > 0)
		memcpy(buf + TP_COAP_HDR_LEN, token, tkl);
	w->len = t->len;
}

uint8_t *tp_coap_payload_reserve(struct tp_coap_writer *w, size_t *room)
{
	*room = 0;
	if (w->err != 0)
		return NULL;
	if (w->payload) {
		w_fail(w, -TP_COAP_E_AFTER_PAYLOAD);
		return NULL;
	}
	if (w->cap - w->len < 2) {
		w_fail(w, -TP_COAP_E_NOSPC);
		return NULL;
	}
	w->buf[w->len++] = TP_COAP_PAYLOAD_MARKER;
	w->payload = true;
	*room = w->cap - w->len;
	return w->buf + w->len;
}

void tp_coap_payload_commit(struct tp_coap_writer *w, size_t len)
{
	if (w->err != 0 || !w->payload)
		return;
	if (len > w->cap - w->len) {
		w_fail(w, -TP_COAP_E_NOSPC);
		return;
	}
	if (len == 0) { /* RFC 7252 3: no marker without a payload */
		w->len--;
		w->payload = false;
		return;
	}
	w->len += len;
}

int tp_coap_end(const struct tp_coap_writer *w)
{
	return w->err != 0 ? w->err : (int)w->len;
}

int tp_coap_encode(uint8_t *buf, size_t cap, const struct tp_coap_msg *m)
{
	struct tp_coap_writer w;
	uint8_t order[TP_COAP_MAX_OPTS];

	if (m == NULL || m->n_opts > TP_COAP_MAX_OPTS)
		return -TP_COAP_E_INVAL;
	tp_coap_begin(&w, buf, cap, (enum tp_coap_type)m->type, m->code, m->mid, m->token, m->tkl);
	/* stable insertion sort by number: already sorted input costs one pass */
	for (unsigned int i = 0; i < m->n_opts; i++) {
		unsigned int j = i;
		while (j > 0 && m->opts[order[j - 1]].num > m->opts[i].num) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = (uint8_t)i;
	}
	for (unsigned int i = 0; i < m->n_opts; i++) {
		const struct tp_coap_opt *o = &m->opts[order[i]];
		tp_coap_put_opt(&w, o->num, o->val, o->len);
	}
	if (m->payload_len > 0)
		tp_coap_put_payload(&w, m->payload, m->payload_len);
	return tp_coap_end(&w);
}

int tp_coap_opt_uint(const struct tp_coap_opt *o, uint32_t *v)
{
	uint32_t x = 0;

	if (o->len > 4)
		return -TP_COAP_E_OPT_TOO_LONG;
	for (uint32_t i = 0; i < o->len; i++)
		x = (x << 8) | o->val[i];
	*v = x;
	return 0;
}

int tp_coap_opt_str(const struct tp_coap_opt *o, char *buf, size_t cap)
{
	if (cap == 0 || o->len > cap - 1)
		return -TP_COAP_E_NOSPC;
	if (o->len > 0)
		memcpy(buf, o->val, o->len);
	buf[o->len] = '\0';
	return (int)o->len;
}

const struct tp_coap_opt *tp_coap_find_opt(const struct tp_coap_msg *m, uint16_t num,
					   unsigned int from)
{
	for (unsigned int i = from; i < m->n_opts; i++) {
		if (m->opts[i].num == num)
			return &m->opts[i];
		if (m->opts[i].num > num)
			break; /* wire order is sorted */
	}
	return NULL;
}
