/* SPDX-License-Identifier: BSD-3-Clause */
/* NDN packet format 0.3: TLV, names, Interest and Data (NDNLPv2 is in ndn_lp.c). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ndn.h"
#include "sha256.h"

static const char *const err_names[TP_NDN_E_MAX] = {
#define X(e, n) [TP_NDN_E_##e] = n,
    TP_NDN_ERRORS(X)
#undef X
};

const char *tp_ndn_err_name(int err)
{
	if (err < 0)
		err = -err;
	return err < TP_NDN_E_MAX ? err_names[err] : "?";
}

/* --- TLV --- */

size_t tp_ndn_varnum_read(const uint8_t *p, size_t avail, uint64_t *v)
{
	uint64_t x = 0;
	size_t n;

	if (avail < 1)
		return 0;
	if (p[0] < 253) {
		*v = p[0];
		return 1;
	}
	n = p[0] == 253 ? 2 : p[0] == 254 ? 4 : 8;
	if (avail < 1 + n)
		return 0;
	for (size_t i = 0; i < n; i++)
		x = x << 8 | p[1 + i];
	/* 1.2: the shortest encoding only (a name has one wire form) */
	if ((n == 2 && x < 253) || (n == 4 && x <= 0xffff) || (n == 8 && x <= 0xffffffffull))
		return 0;
	*v = x;
	return 1 + n;
}

/* Why a VAR-NUMBER at p (avail > 0 bytes) did not read: too few bytes, or not shortest. */
static int varnum_err(const uint8_t *p, size_t avail)
{
	size_t need = p[0] < 253 ? 1 : p[0] == 253 ? 3 : p[0] == 254 ? 5 : 9;
	return avail < need ? TP_NDN_E_TRUNCATED : TP_NDN_E_BAD_VARNUM;
}

int tp_ndn_tlv_read_slow(const uint8_t **pp, const uint8_t *end, struct tp_ndn_tlv *t)
{
	const uint8_t *p = *pp;
	uint64_t type, len;
	size_t k;

	if (p >= end)
		return TP_NDN_E_TRUNCATED;
	k = tp_ndn_varnum_read(p, (size_t)(end - p), &type);
	if (k == 0)
		return varnum_err(p, (size_t)(end - p));
	if (type > UINT32_MAX)
		return TP_NDN_E_BAD_VARNUM;
	p += k;
	if (p >= end)
		return TP_NDN_E_TRUNCATED;
	k = tp_ndn_varnum_read(p, (size_t)(end - p), &len);
	if (k == 0)
		return varnum_err(p, (size_t)(end - p));
	p += k;
	if (len > (uint64_t)(end - p))
		return TP_NDN_E_TRUNCATED;
	t->start = *pp;
	t->type = (uint32_t)type;
	t->len = (uint32_t)len;
	t->value = p;
	t->end = p + len;
	*pp = t->end;
	return TP_NDN_E_OK;
}

int tp_ndn_nni_read(const uint8_t *v, uint32_t len, uint64_t *out)
{
	uint64_t x = 0;

	if (len != 1 && len != 2 && len != 4 && len != 8)
		return TP_NDN_E_BAD_NNI;
	for (uint32_t i = 0; i < len; i++)
		x = x << 8 | v[i];
	*out = x;
	return TP_NDN_E_OK;
}

size_t tp_ndn_nni_size(uint64_t v)
{
	return v <= 0xff ? 1 : v <= 0xffff ? 2 : v <= 0xffffffffull ? 4 : 8;
}

size_t tp_ndn_nni_write(uint8_t *p, uint64_t v)
{
	size_t n = tp_ndn_nni_size(v);

	for (size_t i = 0; i < n; i++)
		p[n - 1 - i] = (uint8_t)(v >> (8 * i));
	return n;
}

/* a TLV header at p: type, length (the caller checked room) */
static size_t tl_write(uint8_t *p, uint32_t type, uint64_t len)
{
	size_t k = tp_ndn_varnum_write(p, type);
	return k + tp_ndn_varnum_write(p + k, len);
}

static size_t tl_size(uint32_t type, uint64_t len)
{
	return tp_ndn_varnum_size(type) + tp_ndn_varnum_size(len);
}

/* --- Name --- */

int tp_ndn_name_decode(const uint8_t *value, size_t len, struct tp_ndn_name *n)
{
	const uint8_t *p = value, *end = value + len;
	struct tp_ndn_tlv c;
	int rc;

	if (len > TP_NDN_NAME_MAX_LEN)
		return TP_NDN_E_NAME_TOO_LONG;
	n->value = value;
	n->len = (uint16_t)len;
	n->n_comps = 0;
	n->has_params_digest = false;
	while (p < end) {
		if ((rc = tp_ndn_tlv_read(&p, end, &c)) != TP_NDN_E_OK)
			return rc == TP_NDN_E_TRUNCATED ? TP_NDN_E_BAD_NAME : rc;
		/* 2.1: component types 1-65535 */
		if (c.type == 0 || c.type > 0xffff)
			return TP_NDN_E_BAD_COMPONENT;
		if ((c.type == TP_NDN_T_IMPLICIT_DIGEST || c.type == TP_NDN_T_PARAMS_DIGEST) &&
		    c.len != 32)
			return TP_NDN_E_BAD_COMPONENT;
		if (c.type == TP_NDN_T_PARAMS_DIGEST) {
			if (n->has_params_digest)
				return TP_NDN_E_BAD_PARAMS_DIGEST;
			n->has_params_digest = true;
			n->params_digest_comp = n->n_comps;
		}
		if (n->n_comps == TP_NDN_NAME_MAX_COMPS)
			return TP_NDN_E_NAME_TOO_LONG;
		n->comp_end[n->n_comps++] = (uint16_t)(p - value);
	}
	return TP_NDN_E_OK;
}

/* 2.1 canonical order: by type, then length, then bytes */
static int comp_compare(const uint8_t *a, uint16_t al, const uint8_t *b, uint16_t bl)
{
	const uint8_t *pa = a, *pb = b;
	struct tp_ndn_tlv ta = {0}, tb = {0};

	/* both are components of decoded names: they read */
	tp_ndn_tlv_read(&pa, a + al, &ta);
	tp_ndn_tlv_read(&pb, b + bl, &tb);
	if (ta.type != tb.type)
		return ta.type < tb.type ? -1 : 1;
	if (ta.len != tb.len)
		return ta.len < tb.len ? -1 : 1;
	return memcmp(ta.value, tb.value, ta.len);
}

int tp_ndn_name_compare(const struct tp_ndn_name *a, const struct tp_ndn_name *b)
{
	unsigned int n = a->n_comps < b->n_comps ? a->n_comps : b->n_comps;

	for (unsigned int i = 0; i < n; i++) {
		uint16_t al, bl;
		const uint8_t *ca = tp_ndn_name_comp(a, i, &al), *cb = tp_ndn_name_comp(b, i, &bl);
		int c = comp_compare(ca, al, cb, bl);
		if (c)
			return c < 0 ? -1 : 1;
	}
	return a->n_comps == b->n_comps ? 0 : a->n_comps < b->n_comps ? -1 : 1;
}

bool tp_ndn_name_is_prefix(const struct tp_ndn_name *a, const struct tp_ndn_name *b)
{
	return a->n_comps <= b->n_comps && a->len <= b->len &&
	       memcmp(a->value, b->value, a->len) == 0 &&
	       (a->n_comps == 0 || b->comp_end[a->n_comps - 1] == a->len);
}

/* URI markers of the number types (naming conventions rev 3) */
static const struct {
	uint16_t type;
	const char *marker;
} markers[] = {
    {TP_NDN_T_SEGMENT, "seg"}, {TP_NDN_T_BYTE_OFFSET, "off"},  {TP_NDN_T_VERSION, "v"},
    {TP_NDN_T_TIMESTAMP, "t"}, {TP_NDN_T_SEQUENCE_NUM, "seq"},
};

static bool unreserved(uint8_t c)
{
	return isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

/* append to buf at *pos (cap), keeping a NUL; false when it does not fit */
static bool put(char *buf, size_t cap, size_t *pos, const char *s, size_t n)
{
	if (*pos + n + 1 > cap)
		return false;
	memcpy(buf + *pos, s, n);
	*pos += n;
	buf[*pos] = '\0';
	return true;
}

static bool put_escaped(char *buf, size_t cap, size_t *pos, const uint8_t *v, uint32_t len)
{
	bool dots = true;
	char hex[4];

	for (uint32_t i = 0; i < len; i++)
		dots = dots && v[i] == '.';
	if (dots && !put(buf, cap, pos, "...", 3)) /* 2.1: all periods (or none): three more */
		return false;
	for (uint32_t i = 0; i < len; i++) {
		if (unreserved(v[i])) {
			if (!put(buf, cap, pos, (const char *)&v[i], 1))
				return false;
		} else {
			snprintf(hex, sizeof(hex), "%%%02X", v[i]);
			if (!put(buf, cap, pos, hex, 3))
				return false;
		}
	}
	return true;
}

int tp_ndn_name_to_uri(const struct tp_ndn_name *n, char *buf, size_t cap)
{
	size_t pos = 0;
	char tmp[32];

	if (cap == 0)
		return -TP_NDN_E_NO_SPACE;
	buf[0] = '\0';
	if (n->n_comps == 0)
		return put(buf, cap, &pos, "/", 1) ? 1 : -TP_NDN_E_NO_SPACE;
	for (unsigned int i = 0; i < n->n_comps; i++) {
		uint16_t tl;
		const uint8_t *c = tp_ndn_name_comp(n, i, &tl), *p = c;
		struct tp_ndn_tlv t;
		const char *marker = NULL;
		uint64_t num;

		tp_ndn_tlv_read(&p, c + tl, &t);
		if (!put(buf, cap, &pos, "/", 1))
			return -TP_NDN_E_NO_SPACE;
		for (size_t k = 0; k < sizeof(markers) / sizeof(markers[0]); k++)
			if (markers[k].type == t.type)
				marker = markers[k].marker;
		/* the marker form for a number in its shortest encoding: it parses back to
		 * the same bytes (anything else is written as TYPE=escaped bytes) */
		if (marker && tp_ndn_nni_read(t.value, t.len, &num) == TP_NDN_E_OK &&
		    t.len == tp_ndn_nni_size(num)) {
			int k =
			    snprintf(tmp, sizeof(tmp), "%s=%llu", marker, (unsigned long long)num);
			if (!put(buf, cap, &pos, tmp, (size_t)k))
				return -TP_NDN_E_NO_SPACE;
			continue;
		}
		if (t.type == TP_NDN_T_IMPLICIT_DIGEST || t.type == TP_NDN_T_PARAMS_DIGEST) {
			const char *m =
			    t.type == TP_NDN_T_IMPLICIT_DIGEST ? "sha256digest=" : "params-sha256=";
			if (!put(buf, cap, &pos, m, strlen(m)))
				return -TP_NDN_E_NO_SPACE;
			for (uint32_t k = 0; k < t.len; k++) {
				snprintf(tmp, sizeof(tmp), "%02x", t.value[k]);
				if (!put(buf, cap, &pos, tmp, 2))
					return -TP_NDN_E_NO_SPACE;
			}
			continue;
		}
		if (t.type != TP_NDN_T_GENERIC) {
			int k = snprintf(tmp, sizeof(tmp), "%u=", t.type);
			if (!put(buf, cap, &pos, tmp, (size_t)k))
				return -TP_NDN_E_NO_SPACE;
		}
		if (!put_escaped(buf, cap, &pos, t.value, t.len))
			return -TP_NDN_E_NO_SPACE;
	}
	return (int)pos;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

/* one component's text [s, e) into a component TLV at out (cap): its size or < 0 */
static int comp_from_text(const char *s, const char *e, uint8_t *out, size_t cap)
{
	uint8_t val[TP_NDN_NAME_MAX_LEN];
	size_t n = 0;
	uint32_t type = TP_NDN_T_GENERIC;
	const char *eq = memchr(s, '=', (size_t)(e - s));
	bool number = false, hex = false;

	if (eq != NULL) {
		size_t ml = (size_t)(eq - s);
		bool found = false;
		for (size_t k = 0; k < sizeof(markers) / sizeof(markers[0]); k++)
			if (strlen(markers[k].marker) == ml &&
			    memcmp(s, markers[k].marker, ml) == 0) {
				type = markers[k].type;
				number = found = true;
			}
		if (!found && ml == 12 && memcmp(s, "sha256digest", 12) == 0) {
			type = TP_NDN_T_IMPLICIT_DIGEST;
			hex = found = true;
		} else if (!found && ml == 13 && memcmp(s, "params-sha256", 13) == 0) {
			type = TP_NDN_T_PARAMS_DIGEST;
			hex = found = true;
		} else if (!found) {
			char *end;
			char num[16];
			unsigned long t;
			if (ml == 0 || ml >= sizeof(num))
				return -TP_NDN_E_BAD_NAME;
			memcpy(num, s, ml);
			num[ml] = '\0';
			t = strtoul(num, &end, 10);
			if (*end || t == 0 || t > 0xffff || !isdigit((unsigned char)num[0]))
				return -TP_NDN_E_BAD_NAME;
			type = (uint32_t)t;
		}
		s = eq + 1;
	}
	if (number) {
		char num[24], *end;
		unsigned long long v;
		if ((size_t)(e - s) == 0 || (size_t)(e - s) >= sizeof(num))
			return -TP_NDN_E_BAD_NAME;
		memcpy(num, s, (size_t)(e - s));
		num[e - s] = '\0';
		if (!isdigit((unsigned char)num[0]))
			return -TP_NDN_E_BAD_NAME;
		v = strtoull(num, &end, 10);
		if (*end)
			return -TP_NDN_E_BAD_NAME;
		n = tp_ndn_nni_write(val, v);
	} else if (hex) {
		if (e - s != 64)
			return -TP_NDN_E_BAD_NAME;
		for (int i = 0; i < 32; i++) {
			int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
			if (hi < 0 || lo < 0)
				return -TP_NDN_E_BAD_NAME;
			val[n++] = (uint8_t)(hi << 4 | lo);
		}
	} else {
		bool dots = e - s >= 3;
		for (const char *q = s; q < e; q++)
			dots = dots && *q == '.';
		if (dots) /* "..." is the empty component, "...." one period */
			s += 3;
		else if (e - s > 0 && e - s < 3 && s[0] == '.' && (e - s == 1 || s[1] == '.'))
			return -TP_NDN_E_BAD_NAME; /* "." and ".." are not components */
		for (const char *q = s; q < e; q++) {
			if (n == sizeof(val))
				return -TP_NDN_E_NAME_TOO_LONG;
			if (*q == '%') {
				int hi = q + 2 < e ? hexval(q[1]) : -1,
				    lo = q + 2 < e ? hexval(q[2]) : -1;
				if (hi < 0 || lo < 0)
					return -TP_NDN_E_BAD_NAME;
				val[n++] = (uint8_t)(hi << 4 | lo);
				q += 2;
			} else {
				val[n++] = (uint8_t)*q;
			}
		}
	}
	if (tl_size(type, n) + n > cap)
		return -TP_NDN_E_NO_SPACE;
	size_t k = tl_write(out, type, n);
	memcpy(out + k, val, n);
	return (int)(k + n);
}

int tp_ndn_name_from_uri(const char *uri, uint8_t *buf, size_t cap)
{
	const char *p = uri;
	size_t len = 0;

	if (strncmp(p, "ndn:", 4) == 0)
		p += 4;
	if (*p != '/')
		return -TP_NDN_E_BAD_NAME;
	while (*p == '/') {
		const char *s = p + 1, *e = s;
		int k;
		while (*e && *e != '/')
			e++;
		if (e == s) { /* "/" alone, or a trailing "/" */
			if (*e != '\0')
				return -TP_NDN_E_BAD_NAME;
			p = e;
			break;
		}
		k = comp_from_text(s, e, buf + len, cap - len);
		if (k < 0)
			return k;
		len += (size_t)k;
		p = e;
	}
	if (*p != '\0')
		return -TP_NDN_E_BAD_NAME;
	struct tp_ndn_name check;
	int rc = tp_ndn_name_decode(buf, len, &check);
	return rc == TP_NDN_E_OK ? (int)len : -rc;
}

int tp_ndn_comp_number(const uint8_t *comp_tlv, uint16_t tlv_len, uint64_t *v)
{
	const uint8_t *p = comp_tlv;
	struct tp_ndn_tlv t;
	int rc = tp_ndn_tlv_read(&p, comp_tlv + tlv_len, &t);

	if (rc != TP_NDN_E_OK)
		return -rc;
	rc = tp_ndn_nni_read(t.value, t.len, v);
	return rc == TP_NDN_E_OK ? 0 : -rc;
}

/* --- Interest --- */

/* 3: the order of the Interest's elements; one not in it is unrecognized */
static int interest_order(uint32_t type)
{
	switch (type) {
	case TP_NDN_T_NAME:
		return 1;
	case TP_NDN_T_CAN_BE_PREFIX:
		return 2;
	case TP_NDN_T_MUST_BE_FRESH:
		return 3;
	case TP_NDN_T_FWD_HINT:
		return 4;
	case TP_NDN_T_NONCE:
		return 5;
	case TP_NDN_T_LIFETIME:
		return 6;
	case TP_NDN_T_HOP_LIMIT:
		return 7;
	case TP_NDN_T_APP_PARAMS:
		return 8;
	case TP_NDN_T_ISIG_INFO:
		return 9;
	case TP_NDN_T_ISIG_VALUE:
		return 10;
	default:
		return 0;
	}
}

static int interest_decode(const uint8_t *buf, size_t len, struct tp_ndn_interest *i, size_t *used,
			   bool verify)
{
	const uint8_t *p = buf, *end = buf + len, *v, *vend;
	struct tp_ndn_tlv outer, t;
	int rc, last = 0;
	uint64_t x;

	memset(i, 0, offsetof(struct tp_ndn_interest, name.comp_end));
	i->lifetime_ms = TP_NDN_LIFETIME_DEFAULT;
	if ((rc = tp_ndn_tlv_read(&p, end, &outer)) != TP_NDN_E_OK)
		return rc;
	if (outer.type != TP_NDN_T_INTEREST)
		return TP_NDN_E_BAD_TYPE;
	if (used)
		*used = (size_t)(outer.end - buf);
	v = outer.value;
	vend = outer.end;
	while (v < vend) {
		if ((rc = tp_ndn_tlv_read(&v, vend, &t)) != TP_NDN_E_OK)
			return rc;
		int ord = interest_order(t.type);
		if (ord == 0 || ord <= last) {
			/* unknown, repeated or out of order: 1.3's rule */
			if (tp_ndn_critical(t.type))
				return ord ? TP_NDN_E_BAD_TYPE : TP_NDN_E_CRITICAL;
			continue;
		}
		if (last == 0 && ord != 1)
			return TP_NDN_E_MISSING; /* the Name comes first */
		last = ord;
		if (ord < 5) /* the Nonce's place is after these */
			i->nonce_slot = t.end;
		switch (t.type) {
		case TP_NDN_T_NAME:
			if ((rc = tp_ndn_name_decode(t.value, t.len, &i->name)) != TP_NDN_E_OK)
				return rc;
			if (i->name.n_comps == 0)
				return TP_NDN_E_EMPTY_NAME;
			break;
		case TP_NDN_T_CAN_BE_PREFIX:
		case TP_NDN_T_MUST_BE_FRESH:
			if (t.len != 0)
				return TP_NDN_E_BAD_FLAG;
			*(t.type == TP_NDN_T_CAN_BE_PREFIX ? &i->can_be_prefix
							   : &i->must_be_fresh) = true;
			break;
		case TP_NDN_T_FWD_HINT:
			if (t.len > 0xffff)
				return TP_NDN_E_BAD_TYPE;
			i->fwd_hint = t.value;
			i->fwd_hint_len = (uint16_t)t.len;
			break;
		case TP_NDN_T_NONCE:
			if (t.len != 4)
				return TP_NDN_E_BAD_NONCE;
			i->has_nonce = true;
			i->nonce_pos = t.value;
			i->nonce = (uint32_t)t.value[0] << 24 | (uint32_t)t.value[1] << 16 |
				   (uint32_t)t.value[2] << 8 | t.value[3];
			break;
		case TP_NDN_T_LIFETIME:
			if ((rc = tp_ndn_nni_read(t.value, t.len, &x)) != TP_NDN_E_OK)
				return rc;
			i->lifetime_ms = x > UINT32_MAX ? UINT32_MAX : (uint32_t)x;
			break;
		case TP_NDN_T_HOP_LIMIT:
			if (t.len != 1)
				return TP_NDN_E_BAD_NNI;
			i->has_hop_limit = true;
			i->hop_limit = t.value[0];
			i->hop_limit_pos = t.value;
			break;
		case TP_NDN_T_APP_PARAMS:
			i->params_start = t.start;
			i->app_params = t.value;
			i->app_params_len = t.len;
			break;
		case TP_NDN_T_ISIG_INFO:
			if (i->params_start == NULL)
				return TP_NDN_E_BAD_SIGNATURE; /* 3.2: signed Interests carry
								  parameters */
			i->sig_info = t.value;
			i->sig_info_len = t.len;
			break;
		case TP_NDN_T_ISIG_VALUE:
			if (i->sig_info == NULL)
				return TP_NDN_E_BAD_SIGNATURE;
			i->sig_value = t.value;
			i->sig_value_len = t.len;
			break;
		}
	}
	if (last == 0)
		return TP_NDN_E_MISSING;
	if (i->sig_info != NULL && i->sig_value == NULL)
		return TP_NDN_E_BAD_SIGNATURE;
	/* 3.2: ApplicationParameters and the digest component go together, and the digest
	 * covers everything from ApplicationParameters to the end */
	if ((i->params_start != NULL) != i->name.has_params_digest)
		return TP_NDN_E_BAD_PARAMS_DIGEST;
	if (i->params_start != NULL && verify) {
		uint8_t d[32];
		uint16_t tl;
		const uint8_t *c = tp_ndn_name_comp(&i->name, i->name.params_digest_comp, &tl);
		tp_sha256(i->params_start, (size_t)(vend - i->params_start), d);
		if (memcmp(c + tl - 32, d, 32) != 0)
			return TP_NDN_E_BAD_PARAMS_DIGEST;
	}
	return TP_NDN_E_OK;
}

int tp_ndn_interest_decode(const uint8_t *buf, size_t len, struct tp_ndn_interest *i, size_t *used)
{
	return interest_decode(buf, len, i, used, true);
}

int tp_ndn_interest_decode_fwd(const uint8_t *buf, size_t len, struct tp_ndn_interest *i,
			       size_t *used)
{
	return interest_decode(buf, len, i, used, false);
}

int tp_ndn_interest_add_nonce(uint8_t *buf, size_t len, const struct tp_ndn_interest *i,
			      uint32_t nonce)
{
	const uint8_t *p = buf;
	struct tp_ndn_tlv outer;

	if (i->has_nonce)
		return -TP_NDN_E_BAD_NONCE;
	if (tp_ndn_tlv_read(&p, buf + len, &outer) != TP_NDN_E_OK ||
	    outer.type != TP_NDN_T_INTEREST || i->nonce_slot < outer.value ||
	    i->nonce_slot > outer.end)
		return -TP_NDN_E_BAD_TYPE;
	size_t hl = (size_t)(outer.value - buf), vlen = (size_t)outer.len + 6;
	size_t nhl = tl_size(TP_NDN_T_INTEREST, vlen), grow = nhl + 6 - hl;
	size_t before = (size_t)(i->nonce_slot - outer.value);
	uint8_t *start = buf - grow;
	/* the elements before the Nonce's place move 6 bytes down, the rest stays */
	memmove(start + nhl, outer.value, before);
	uint8_t *q = start + nhl + before;
	q[0] = TP_NDN_T_NONCE;
	q[1] = 4;
	for (int k = 0; k < 4; k++)
		q[2 + k] = (uint8_t)(nonce >> (24 - 8 * k));
	tl_write(start, TP_NDN_T_INTEREST, vlen);
	return (int)grow;
}

int tp_ndn_interest_encode(uint8_t *buf, size_t cap, const struct tp_ndn_interest_spec *s)
{
	bool params = s->app_params != NULL || s->app_params_len > 0;
	size_t name_len = s->name_len + (params ? 2 + 32 : 0);
	size_t val = tl_size(TP_NDN_T_NAME, name_len) + name_len;
	size_t params_tlv =
	    params ? tl_size(TP_NDN_T_APP_PARAMS, s->app_params_len) + s->app_params_len : 0;
	uint8_t *p;

	val += s->can_be_prefix ? 2 : 0;
	val += s->must_be_fresh ? 2 : 0;
	val += 6; /* Nonce */
	val += s->lifetime_ms >= 0 ? 2 + tp_ndn_nni_size((uint64_t)s->lifetime_ms) : 0;
	val += s->hop_limit >= 0 ? 3 : 0;
	val += params_tlv;
	if (tl_size(TP_NDN_T_INTEREST, val) + val > cap || s->hop_limit > 255)
		return -TP_NDN_E_NO_SPACE;
	p = buf + tl_write(buf, TP_NDN_T_INTEREST, val);
	p += tl_write(p, TP_NDN_T_NAME, name_len);
	memcpy(p, s->name_value, s->name_len);
	p += s->name_len;
	uint8_t *digest = NULL;
	if (params) {
		*p++ = TP_NDN_T_PARAMS_DIGEST;
		*p++ = 32;
		digest = p;
		p += 32;
	}
	if (s->can_be_prefix) {
		*p++ = TP_NDN_T_CAN_BE_PREFIX;
		*p++ = 0;
	}
	if (s->must_be_fresh) {
		*p++ = TP_NDN_T_MUST_BE_FRESH;
		*p++ = 0;
	}
	*p++ = TP_NDN_T_NONCE;
	*p++ = 4;
	for (int k = 3; k >= 0; k--)
		*p++ = (uint8_t)(s->nonce >> (8 * k));
	if (s->lifetime_ms >= 0) {
		*p++ = TP_NDN_T_LIFETIME;
		*p++ = (uint8_t)tp_ndn_nni_size((uint64_t)s->lifetime_ms);
		p += tp_ndn_nni_write(p, (uint64_t)s->lifetime_ms);
	}
	if (s->hop_limit >= 0) {
		*p++ = TP_NDN_T_HOP_LIMIT;
		*p++ = 1;
		*p++ = (uint8_t)s->hop_limit;
	}
	if (params) {
		uint8_t *ps = p;
		p += tl_write(p, TP_NDN_T_APP_PARAMS, s->app_params_len);
		if (s->app_params_len)
			memcpy(p, s->app_params, s->app_params_len);
		p += s->app_params_len;
		tp_sha256(ps, (size_t)(p - ps), digest);
	}
	return (int)(p - buf);
}

/* --- Data --- */

static int meta_decode(const struct tp_ndn_tlv *m, struct tp_ndn_data *d)
{
	const uint8_t *p = m->value;
	struct tp_ndn_tlv t;
	uint64_t x;
	int rc, last = 0;

	while (p < m->end) {
		if ((rc = tp_ndn_tlv_read(&p, m->end, &t)) != TP_NDN_E_OK)
			return rc;
		int ord = t.type == TP_NDN_T_CONTENT_TYPE  ? 1
			  : t.type == TP_NDN_T_FRESHNESS   ? 2
			  : t.type == TP_NDN_T_FINAL_BLOCK ? 3
							   : 0;
		if (ord == 0 || ord <= last) {
			if (tp_ndn_critical(t.type))
				return ord ? TP_NDN_E_BAD_TYPE : TP_NDN_E_CRITICAL;
			continue;
		}
		last = ord;
		if (ord == 3) {
			/* a name component TLV inside */
			const uint8_t *c = t.value;
			struct tp_ndn_tlv ct;
			if ((rc = tp_ndn_tlv_read(&c, t.end, &ct)) != TP_NDN_E_OK || c != t.end ||
			    ct.type == 0 || ct.type > 0xffff)
				return TP_NDN_E_BAD_COMPONENT;
			d->final_block = t.value;
			d->final_block_len = (uint16_t)t.len;
			continue;
		}
		if ((rc = tp_ndn_nni_read(t.value, t.len, &x)) != TP_NDN_E_OK)
			return rc;
		if (ord == 1) {
			d->content_type = x > UINT32_MAX ? UINT32_MAX : (uint32_t)x;
		} else {
			d->has_freshness = true;
			d->freshness_ms = x > UINT32_MAX ? UINT32_MAX : (uint32_t)x;
		}
	}
	return TP_NDN_E_OK;
}

static int siginfo_decode(const struct tp_ndn_tlv *s, uint32_t *type)
{
	const uint8_t *p = s->value;
	struct tp_ndn_tlv t;
	uint64_t x;
	int rc;
	bool got = false;

	while (p < s->end) {
		if ((rc = tp_ndn_tlv_read(&p, s->end, &t)) != TP_NDN_E_OK)
			return rc;
		if (t.type == TP_NDN_T_SIG_TYPE && !got) {
			if ((rc = tp_ndn_nni_read(t.value, t.len, &x)) != TP_NDN_E_OK)
				return rc;
			*type = x > UINT32_MAX ? UINT32_MAX : (uint32_t)x;
			got = true;
		} else if (t.type != TP_NDN_T_KEY_LOCATOR && t.type != TP_NDN_T_SIG_NONCE &&
			   t.type != TP_NDN_T_SIG_TIME && t.type != TP_NDN_T_SIG_SEQ &&
			   tp_ndn_critical(t.type)) {
			return TP_NDN_E_CRITICAL;
		}
	}
	return got ? TP_NDN_E_OK : TP_NDN_E_BAD_SIGNATURE;
}

int tp_ndn_data_decode(const uint8_t *buf, size_t len, struct tp_ndn_data *d, size_t *used)
{
	const uint8_t *p = buf, *end = buf + len, *v;
	struct tp_ndn_tlv outer, t;
	int rc, last = 0;

	memset(d, 0, offsetof(struct tp_ndn_data, name.comp_end));
	if ((rc = tp_ndn_tlv_read(&p, end, &outer)) != TP_NDN_E_OK)
		return rc;
	if (outer.type != TP_NDN_T_DATA)
		return TP_NDN_E_BAD_TYPE;
	if (used)
		*used = (size_t)(outer.end - buf);
	d->start = outer.start;
	d->end = outer.end;
	v = outer.value;
	while (v < outer.end) {
		if ((rc = tp_ndn_tlv_read(&v, outer.end, &t)) != TP_NDN_E_OK)
			return rc;
		int ord = t.type == TP_NDN_T_NAME	 ? 1
			  : t.type == TP_NDN_T_META_INFO ? 2
			  : t.type == TP_NDN_T_CONTENT	 ? 3
			  : t.type == TP_NDN_T_SIG_INFO	 ? 4
			  : t.type == TP_NDN_T_SIG_VALUE ? 5
							 : 0;
		if (ord == 0 || ord <= last) {
			if (tp_ndn_critical(t.type))
				return ord ? TP_NDN_E_BAD_TYPE : TP_NDN_E_CRITICAL;
			continue;
		}
		if (last == 0 && ord != 1)
			return TP_NDN_E_MISSING;
		last = ord;
		switch (ord) {
		case 1:
			if ((rc = tp_ndn_name_decode(t.value, t.len, &d->name)) != TP_NDN_E_OK)
				return rc;
			d->signed_start = t.start;
			break;
		case 2:
			if ((rc = meta_decode(&t, d)) != TP_NDN_E_OK)
				return rc;
			break;
		case 3:
			d->content = t.value;
			d->content_len = t.len;
			break;
		case 4:
			if ((rc = siginfo_decode(&t, &d->sig_type)) != TP_NDN_E_OK)
				return rc;
			d->signed_end = t.end;
			break;
		case 5:
			d->sig_value = t.value;
			d->sig_value_len = t.len;
			break;
		}
	}
	/* 4: Name, SignatureInfo and SignatureValue are required */
	if (d->signed_start == NULL || d->signed_end == NULL || d->sig_value == NULL)
		return last == 0		 ? TP_NDN_E_MISSING
		       : d->signed_start == NULL ? TP_NDN_E_MISSING
						 : TP_NDN_E_BAD_SIGNATURE;
	return TP_NDN_E_OK;
}

int tp_ndn_data_verify_digest(const struct tp_ndn_data *d)
{
	uint8_t md[32];

	if (d->sig_type != TP_NDN_SIG_DIGEST_SHA256)
		return -TP_NDN_E_BAD_SIGNATURE;
	if (d->sig_value_len != 32)
		return 0;
	tp_sha256(d->signed_start, (size_t)(d->signed_end - d->signed_start), md);
	return memcmp(md, d->sig_value, 32) == 0;
}

void tp_ndn_data_implicit_digest(const struct tp_ndn_data *d, uint8_t out[32])
{
	tp_sha256(d->start, (size_t)(d->end - d->start), out);
}

int tp_ndn_data_encode(uint8_t *buf, size_t cap, const struct tp_ndn_data_spec *s)
{
	size_t meta = 0, val, content;
	uint8_t *p, *signed_start;

	if (s->content_type >= 0)
		meta += 2 + tp_ndn_nni_size((uint64_t)s->content_type);
	if (s->freshness_ms >= 0)
		meta += 2 + tp_ndn_nni_size((uint64_t)s->freshness_ms);
	if (s->final_block)
		meta += tl_size(TP_NDN_T_FINAL_BLOCK, s->final_block_len) + s->final_block_len;
	content = tl_size(TP_NDN_T_CONTENT, s->content_len) + s->content_len;
	val = tl_size(TP_NDN_T_NAME, s->name_len) + s->name_len +
	      (meta ? tl_size(TP_NDN_T_META_INFO, meta) + meta : 0) + content + 5 /* SigInfo */ +
	      2 + 32 /* SigValue */;
	if (tl_size(TP_NDN_T_DATA, val) + val > cap)
		return -TP_NDN_E_NO_SPACE;
	p = buf + tl_write(buf, TP_NDN_T_DATA, val);
	signed_start = p;
	p += tl_write(p, TP_NDN_T_NAME, s->name_len);
	memcpy(p, s->name_value, s->name_len);
	p += s->name_len;
	if (meta) {
		p += tl_write(p, TP_NDN_T_META_INFO, meta);
		if (s->content_type >= 0) {
			*p++ = TP_NDN_T_CONTENT_TYPE;
			*p++ = (uint8_t)tp_ndn_nni_size((uint64_t)s->content_type);
			p += tp_ndn_nni_write(p, (uint64_t)s->content_type);
		}
		if (s->freshness_ms >= 0) {
			*p++ = TP_NDN_T_FRESHNESS;
			*p++ = (uint8_t)tp_ndn_nni_size((uint64_t)s->freshness_ms);
			p += tp_ndn_nni_write(p, (uint64_t)s->freshness_ms);
		}
		if (s->final_block) {
			p += tl_write(p, TP_NDN_T_FINAL_BLOCK, s->final_block_len);
			memcpy(p, s->final_block, s->final_block_len);
			p += s->final_block_len;
		}
	}
	p += tl_write(p, TP_NDN_T_CONTENT, s->content_len);
	if (s->content_len)
		memcpy(p, s->content, s->content_len);
	p += s->content_len;
	/* 5: SignatureInfo with SignatureType DigestSha256, the digest of Name..SignatureInfo */
	*p++ = TP_NDN_T_SIG_INFO;
	*p++ = 3;
	*p++ = TP_NDN_T_SIG_TYPE;
	*p++ = 1;
	*p++ = TP_NDN_SIG_DIGEST_SHA256;
	*p++ = TP_NDN_T_SIG_VALUE;
	*p++ = 32;
	tp_sha256(signed_start, (size_t)(p - 2 - signed_start), p);
	p += 32;
	return (int)(p - buf);
}

/* The SignatureType in a SignatureInfo's TLV-VALUE, or -1. */
static int64_t sig_type_of(const uint8_t *v, uint32_t len)
{
	const uint8_t *p = v;
	struct tp_ndn_tlv t;
	uint64_t type;

	if (v == NULL || tp_ndn_tlv_read(&p, v + len, &t) != TP_NDN_E_OK ||
	    t.type != TP_NDN_T_SIG_TYPE || tp_ndn_nni_read(t.value, t.len, &type) != TP_NDN_E_OK)
		return -1;
	return (int64_t)type;
}

/* An Interest's signed portion (3.2): the name's components but the
 * ParametersSha256DigestComponent, then ApplicationParameters to the end of
 * InterestSignatureInfo, each piece given to update(ctx, bytes, len). */
static void signed_portion(const struct tp_ndn_interest *i,
			   void (*update)(void *ctx, const uint8_t *p, size_t n), void *ctx)
{
	for (unsigned int k = 0; k < i->name.n_comps; k++) {
		uint16_t len;
		const uint8_t *comp = tp_ndn_name_comp(&i->name, k, &len);
		if (comp[0] != TP_NDN_T_PARAMS_DIGEST)
			update(ctx, comp, len);
	}
	update(ctx, i->params_start, (size_t)(i->sig_info + i->sig_info_len - i->params_start));
}

static void sha256_piece(void *ctx, const uint8_t *p, size_t n)
{
	tp_sha256_update(ctx, p, n);
}

static void hmac_piece(void *ctx, const uint8_t *p, size_t n)
{
	tp_hmac_sha256_update(ctx, p, n);
}

int tp_ndn_interest_verify_digest(const struct tp_ndn_interest *i)
{
	struct tp_sha256 c;
	uint8_t md[32];

	if (i->sig_info == NULL)
		return -TP_NDN_E_MISSING;
	if (sig_type_of(i->sig_info, i->sig_info_len) != TP_NDN_SIG_DIGEST_SHA256)
		return -TP_NDN_E_BAD_SIGNATURE;
	tp_sha256_init(&c);
	signed_portion(i, sha256_piece, &c);
	tp_sha256_final(&c, md);
	return i->sig_value_len == 32 && memcmp(md, i->sig_value, 32) == 0;
}

int tp_ndn_interest_verify_hmac(const struct tp_ndn_interest *i, const uint8_t *key, size_t key_len,
				int64_t *time_ms)
{
	struct tp_hmac_sha256 c;
	uint8_t md[32];

	if (i->sig_info == NULL)
		return -TP_NDN_E_MISSING;
	if (sig_type_of(i->sig_info, i->sig_info_len) != TP_NDN_SIG_HMAC_SHA256)
		return -TP_NDN_E_BAD_SIGNATURE;
	if (time_ms) { /* 3.2: SignatureTime, a NonNegativeInteger of ms since the epoch */
		const uint8_t *p = i->sig_info, *end = i->sig_info + i->sig_info_len;
		struct tp_ndn_tlv t;
		uint64_t v;
		*time_ms = -1;
		while (p < end && tp_ndn_tlv_read(&p, end, &t) == TP_NDN_E_OK)
			if (t.type == TP_NDN_T_SIG_TIME &&
			    tp_ndn_nni_read(t.value, t.len, &v) == TP_NDN_E_OK && v <= INT64_MAX)
				*time_ms = (int64_t)v;
	}
	/* the signed portion as for DigestSha256 (3.2) */
	tp_hmac_sha256_init(&c, key, key_len);
	signed_portion(i, hmac_piece, &c);
	tp_hmac_sha256_final(&c, md);
	/* every byte compared: no early exit on the first difference */
	uint8_t diff = i->sig_value_len == 32 ? 0 : 1;
	for (unsigned int k = 0; k < 32 && i->sig_value_len == 32; k++)
		diff |= (uint8_t)(md[k] ^ i->sig_value[k]);
	return diff == 0;
}

int tp_ndn_command_verify_digest(const struct tp_ndn_name *n)
{
	uint16_t il, vl;
	const uint8_t *info, *val;
	struct tp_ndn_tlv si, sv;

	if (n->n_comps < 3)
		return -TP_NDN_E_MISSING;
	info = tp_ndn_name_comp(n, n->n_comps - 2, &il);
	val = tp_ndn_name_comp(n, n->n_comps - 1, &vl);
	/* each a GenericNameComponent holding the TLV */
	const uint8_t *p = info, *q = val;
	struct tp_ndn_tlv ci, cv;
	if (tp_ndn_tlv_read(&p, info + il, &ci) != TP_NDN_E_OK ||
	    tp_ndn_tlv_read(&q, val + vl, &cv) != TP_NDN_E_OK)
		return -TP_NDN_E_MISSING;
	p = ci.value;
	q = cv.value;
	if (tp_ndn_tlv_read(&p, ci.value + ci.len, &si) != TP_NDN_E_OK ||
	    si.type != TP_NDN_T_SIG_INFO ||
	    tp_ndn_tlv_read(&q, cv.value + cv.len, &sv) != TP_NDN_E_OK ||
	    sv.type != TP_NDN_T_SIG_VALUE)
		return -TP_NDN_E_MISSING;
	if (sig_type_of(si.value, si.len) != TP_NDN_SIG_DIGEST_SHA256)
		return -TP_NDN_E_BAD_SIGNATURE;
	uint8_t md[32];
	tp_sha256(n->value, tp_ndn_name_prefix_len(n, n->n_comps - 1u), md);
	return sv.len == 32 && memcmp(md, sv.value, 32) == 0;
}
