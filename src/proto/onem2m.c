/* SPDX-License-Identifier: BSD-3-Clause */
/* oneM2M CREATE, RETRIEVE and UPDATE requests over CoAP (TS-0008 6.2) and the JSON
 * resource bodies (TS-0004). */
#include <stdbool.h>
#include <string.h>

#include "json.h"
#include "onem2m.h"

/* The options of request r with CoAP method code up to FR (everything but RQI and
 * the payload), checked: a CREATE (POST) has a resource type, a RETRIEVE (GET) none. */
static int req_opts(struct tp_coap_writer *w, uint8_t *buf, size_t cap,
		    const struct tp_m2m_create *r, uint8_t code, bool payload)
{
	const char *rvi;
	size_t from_len;

	if (r == NULL || r->path == NULL || r->from == NULL ||
	    (code == TP_COAP_POST) != (r->ty != 0))
		return -TP_COAP_E_INVAL;
	rvi = r->rvi != NULL ? r->rvi : TP_M2M_RVI_DEFAULT;
	from_len = strlen(r->from);
	/* TS-0008 table 6.2.2.4.0-1: FR, RQI 0-255 bytes, RVI 1-2 */
	if (rvi[0] == '\0')
		return -TP_COAP_E_INVAL;
	if (from_len > TP_M2M_OPT_STR_MAX || strlen(rvi) > 2)
		return -TP_COAP_E_OPT_TOO_LONG;

	/* TS-0008 6.2.1 table 6.2.1-1: CREATE is POST, RETRIEVE is GET, UPDATE is PUT */
	tp_coap_begin(w, buf, cap, r->type, code, r->mid, r->token, r->tkl);
	/* TS-0008 6.2.2.3: the target as Uri-Path options */
	tp_coap_put_uri_path(w, r->path);
	if (payload)
		tp_coap_put_uint(w, TP_COAP_OPT_CONTENT_FORMAT,
				 r->cf != 0 ? r->cf : TP_COAP_CF_JSON);
	/* TS-0008 6.2.2.3: Response Type and other parameters as Uri-Query */
	if (r->query != NULL)
		tp_coap_put_uri_query(w, r->query);
	/* TS-0008 6.2.2.4.12, .16, .1 (in option-number order) */
	if (r->ty != 0)
		tp_coap_put_uint(w, TP_M2M_OPT_TY, r->ty);
	tp_coap_put_str(w, TP_M2M_OPT_RVI, rvi);
	tp_coap_put_opt(w, TP_M2M_OPT_FR, r->from, from_len);
	return 0;
}

static int request(uint8_t *buf, size_t cap, const struct tp_m2m_create *r, uint8_t code)
{
	struct tp_coap_writer w;
	size_t rqi_len;
	int rc;

	if (r == NULL || r->rqi == NULL)
		return -TP_COAP_E_INVAL;
	rqi_len = strlen(r->rqi);
	if ((rc = req_opts(&w, buf, cap, r, code, r->payload_len > 0)) < 0)
		return rc;
	if (rqi_len > TP_M2M_OPT_STR_MAX)
		return -TP_COAP_E_OPT_TOO_LONG;
	/* TS-0008 6.2.2.4.2 */
	tp_coap_put_opt(&w, TP_M2M_OPT_RQI, r->rqi, rqi_len);
	/* TS-0008 6.2.3: Content is the payload */
	tp_coap_put_payload(&w, r->payload, r->payload_len);
	return tp_coap_end(&w);
}

int tp_m2m_create_req(uint8_t *buf, size_t cap, const struct tp_m2m_create *r)
{
	return request(buf, cap, r, TP_COAP_POST);
}

int tp_m2m_retrieve_req(uint8_t *buf, size_t cap, const struct tp_m2m_create *r)
{
	return request(buf, cap, r, TP_COAP_GET);
}

int tp_m2m_update_req(uint8_t *buf, size_t cap, const struct tp_m2m_create *r)
{
	/* TS-0008 6.2.1: UPDATE is PUT, with the attributes to change as its content */
	if (r == NULL || r->payload_len == 0)
		return -TP_COAP_E_INVAL;
	return request(buf, cap, r, TP_COAP_PUT);
}

int tp_m2m_create_tmpl(struct tp_coap_tmpl *t, const struct tp_m2m_create *r)
{
	struct tp_coap_writer w;
	uint8_t buf[TP_COAP_TMPL_MAX], tok[TP_COAP_TOKEN_MAX] = {0};
	struct tp_m2m_create c;
	int rc;

	t->len = 0;
	if (r == NULL)
		return -TP_COAP_E_INVAL;
	c = *r;
	if (c.token == NULL) /* each request brings its own: a placeholder of its length */
		c.token = tok;
	if ((rc = req_opts(&w, buf, sizeof(buf), &c, TP_COAP_POST, true)) < 0)
		return rc;
	return tp_coap_tmpl_save(t, &w);
}

void tp_m2m_create_from_tmpl(struct tp_coap_writer *w, uint8_t *buf, size_t cap,
			     const struct tp_coap_tmpl *t, enum tp_coap_type type, uint16_t mid,
			     const uint8_t *token, const char *rqi, size_t rqi_len)
{
	tp_coap_tmpl_begin(w, buf, cap, t, type, mid, token);
	if (rqi_len > TP_M2M_OPT_STR_MAX && w->err == 0)
		w->err = -TP_COAP_E_OPT_TOO_LONG;
	/* TS-0008 6.2.2.4.2 */
	tp_coap_put_opt(w, TP_M2M_OPT_RQI, rqi, rqi_len);
}

int tp_m2m_rsc(const struct tp_coap_msg *m)
{
	const struct tp_coap_opt *o = tp_coap_find_opt(m, TP_M2M_OPT_RSC, 0);
	uint32_t v;

	/* TS-0008 6.2.2.4.10; a 2-byte uint (a longer one is no status: fuzz_coap) */
	if (o == NULL || o->len > 2 || tp_coap_opt_uint(o, &v) < 0)
		return -1;
	return (int)v;
}

/* The JSON writer into buf (proto/json.h); false when there is no buffer. */
static bool jb_init(struct tp_json *j, char *buf, size_t cap)
{
	if (buf == NULL || cap == 0)
		return false;
	tp_json_init_buf(j, buf, cap);
	return true;
}

/* The length written, or -TP_COAP_E_NOSPC when it did not fit. */
static int jb_end(const struct tp_json *j)
{
	return j->err ? -TP_COAP_E_NOSPC : (int)j->len;
}

int tp_m2m_json_escape(char *dst, size_t cap, const char *s, size_t n)
{
	struct tp_json j;

	if (s == NULL && n > 0)
		return -TP_COAP_E_INVAL;
	if (!jb_init(&j, dst, cap))
		return -TP_COAP_E_NOSPC;
	tp_json_esc(&j, s, n);
	return jb_end(&j);
}

/* Decimal digits of v (no sign) into d, most significant first; returns the count. */
static size_t utoa(uint32_t v, char d[10])
{
	char tmp[10];
	size_t n = 10;

	do {
		tmp[--n] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	memcpy(d, tmp + n, 10 - n);
	return 10 - n;
}

#define DECIMAL_MAX 24 /* "-0.00000000000000000001" and more: 23 characters at most */

/* The JSON number mantissa * 10^exponent at o, no NUL; its length (<= 23). */
static size_t decimal_put(char *o, int32_t mantissa, int8_t exponent)
{
	char d[10];
	uint32_t mag = mantissa < 0 ? 0u - (uint32_t)mantissa : (uint32_t)mantissa;
	size_t n = utoa(mag, d), k = 0;

	if (mantissa < 0)
		o[k++] = '-';
	if (mag == 0) {
		o[k++] = '0';
	} else if (exponent >= 0 && exponent <= 9) {
		memcpy(o + k, d, n);
		k += n;
		memset(o + k, '0', (size_t)exponent);
		k += (size_t)exponent;
	} else if (exponent < 0 && exponent >= -20) {
		size_t frac = (size_t)-exponent;
		if (n > frac) {
			memcpy(o + k, d, n - frac);
			k += n - frac;
		} else {
			o[k++] = '0';
		}
		o[k++] = '.';
		if (n < frac) {
			memset(o + k, '0', frac - n);
			k += frac - n;
		}
		memcpy(o + k, n > frac ? d + n - frac : d, n > frac ? frac : n);
		k += n > frac ? frac : n;
	} else {
		/* RFC 8259 6: int exp */
		char e[10];
		uint32_t emag = exponent < 0 ? (uint32_t)-exponent : (uint32_t)exponent;
		size_t en = utoa(emag, e);
		memcpy(o + k, d, n);
		k += n;
		o[k++] = 'e';
		if (exponent < 0)
			o[k++] = '-';
		memcpy(o + k, e, en);
		k += en;
	}
	return k;
}

int tp_m2m_decimal(char *buf, size_t cap, int32_t mantissa, int8_t exponent)
{
	char tmp[DECIMAL_MAX];
	size_t n = decimal_put(tmp, mantissa, exponent);

	if (buf == NULL || cap == 0)
		return -TP_COAP_E_NOSPC;
	if (n >= cap) {
		buf[0] = '\0';
		return -TP_COAP_E_NOSPC;
	}
	memcpy(buf, tmp, n);
	buf[n] = '\0';
	return (int)n;
}

int tp_m2m_ae_json(char *buf, size_t cap, const char *rn, const char *api)
{
	return tp_m2m_ae_json_lbl(buf, cap, rn, api, NULL, 0);
}

int tp_m2m_ae_json_lbl(char *buf, size_t cap, const char *rn, const char *api,
		       const char *const *lbl, size_t nlbl)
{
	struct tp_json j;
	size_t k = 0;

	if (rn == NULL || api == NULL || (nlbl > 0 && lbl == NULL))
		return -TP_COAP_E_INVAL;
	if (!jb_init(&j, buf, cap))
		return -TP_COAP_E_NOSPC;
	/* TS-0004 7.3.5 <AE>: rn, labels, App-ID, requestReachability,
	 * supportedReleaseVersions */
	tp_json_obj(&j, NULL);
	tp_json_obj(&j, "m2m:ae");
	tp_json_str(&j, "rn", rn);
	for (size_t i = 0; i < nlbl; i++) {
		if (lbl[i] == NULL || lbl[i][0] == '\0')
			continue;
		if (k++ == 0)
			tp_json_arr(&j, "lbl");
		tp_json_str(&j, NULL, lbl[i]);
	}
	if (k > 0)
		tp_json_end(&j, ']');
	tp_json_str(&j, "api", api);
	tp_json_bool(&j, "rr", false);
	tp_json_arr(&j, "srv");
	tp_json_str(&j, NULL, TP_M2M_RVI_DEFAULT);
	tp_json_end(&j, ']');
	tp_json_end(&j, '}');
	tp_json_end(&j, '}');
	return jb_end(&j);
}

int tp_m2m_et_json(char *buf, size_t cap, const char *type, const char *et)
{
	struct tp_json j;

	if (type == NULL)
		return -TP_COAP_E_INVAL;
	if (!jb_init(&j, buf, cap))
		return -TP_COAP_E_NOSPC;
	/* TS-0004 7.3: the resource's short name, then its universal attribute et */
	tp_json_obj(&j, NULL);
	tp_json_obj(&j, type);
	if (et != NULL)
		tp_json_str(&j, "et", et);
	else
		tp_json_null(&j, "et"); /* TS-0004 7.2.2.2: null deletes the attribute's value */
	tp_json_end(&j, '}');
	tp_json_end(&j, '}');
	return jb_end(&j);
}

int tp_m2m_cnt_json(char *buf, size_t cap, const char *rn, uint32_t mni)
{
	struct tp_json j;

	if (rn == NULL)
		return -TP_COAP_E_INVAL;
	if (!jb_init(&j, buf, cap))
		return -TP_COAP_E_NOSPC;
	tp_json_obj(&j, NULL);
	tp_json_obj(&j, "m2m:cnt");
	tp_json_str(&j, "rn", rn);
	if (mni > 0)
		tp_json_u64(&j, "mni", mni);
	tp_json_end(&j, '}');
	tp_json_end(&j, '}');
	return jb_end(&j);
}

int tp_m2m_cin_json(char *buf, size_t cap, const char *cnf, const char *con)
{
	struct tp_json j;

	if (con == NULL)
		return -TP_COAP_E_INVAL;
	if (!jb_init(&j, buf, cap))
		return -TP_COAP_E_NOSPC;
	tp_json_obj(&j, NULL);
	tp_json_obj(&j, "m2m:cin");
	if (cnf != NULL)
		tp_json_str(&j, "cnf", cnf);
	tp_json_str(&j, "con", con);
	tp_json_end(&j, '}');
	tp_json_end(&j, '}');
	return jb_end(&j);
}

static bool json_number_chars(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++)
		if (!((*s >= '0' && *s <= '9') || *s == '-' || *s == '+' || *s == '.' ||
		      *s == 'e' || *s == 'E'))
			return false;
	return true;
}

#define TP_M2M_CON_MAX 256 /* the inner JSON of one measurement */

int tp_m2m_cin_measure_json(char *buf, size_t cap, const struct tp_m2m_measure *m)
{
	char con[TP_M2M_CON_MAX];
	struct tp_json j;

	if (m == NULL || (m->value != NULL && !json_number_chars(m->value)))
		return -TP_COAP_E_INVAL;
	tp_json_init_buf(&j, con, sizeof(con));
	tp_json_obj(&j, NULL);
	tp_json_lit(&j, "value", m->value != NULL ? m->value : "null");
	if (m->unit != NULL)
		tp_json_str(&j, "unit", m->unit);
	if (m->time != NULL)
		tp_json_str(&j, "time", m->time);
	tp_json_end(&j, '}');
	if (j.err)
		return -TP_COAP_E_NOSPC;
	return tp_m2m_cin_json(buf, cap, TP_M2M_CIN_CNF_JSON, con);
}

/* Length of s if no byte of it needs a JSON escape (RFC 8259 7), else -1: such a
 * string is the same escaped once or twice. */
static long plain_len(const char *s)
{
	const char *p = s;

	for (; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == '"' || *p == '\\')
			return -1;
	return p - s;
}

/* The constant parts of tp_m2m_cin_measure_json()'s output, as the JSON writer
 * (tp_json_str) writes them: the con string's quotes come out escaped. */
#define CIN_HEAD "{\"m2m:cin\":{\"cnf\":\"" TP_M2M_CIN_CNF_JSON "\",\"con\":\"{\\\"value\\\":"
#define CIN_UNIT ",\\\"unit\\\":\\\""
#define CIN_TIME ",\\\"time\\\":\\\""
#define CIN_QUOTE "\\\""

#define CIN_TAIL "}\"}}"
#define SLEN(s) (sizeof(s) - 1)

/* key, then len plain bytes of val, then the closing escaped quote, at o; past them */
static char *put_field(char *o, const char *key, size_t klen, const char *val, size_t len)
{
	memcpy(o, key, klen);
	o += klen;
	memcpy(o, val, len);
	o += len;
	memcpy(o, CIN_QUOTE, SLEN(CIN_QUOTE));
	return o + SLEN(CIN_QUOTE);
}

int tp_m2m_cin_measure_put(char *dst, size_t cap, const struct tp_m2m_measure *m)
{
	long vl = 4, ul = 0, tl = 0;
	size_t need, con;
	char *o = dst;

	if (m == NULL || dst == NULL)
		return -TP_COAP_E_INVAL;
	if (m->value != NULL) {
		const char *s = m->value;
		for (; *s != '\0'; s++)
			if (!((*s >= '0' && *s <= '9') || *s == '-' || *s == '+' || *s == '.' ||
			      *s == 'e' || *s == 'E'))
				return -TP_COAP_E_INVAL;
		vl = s - m->value;
		if (vl == 0)
			return -TP_COAP_E_INVAL;
	}
	if ((m->unit != NULL && (ul = plain_len(m->unit)) < 0) ||
	    (m->time != NULL && (tl = plain_len(m->time)) < 0)) {
		/* escapes to make: the general builder (then the NUL is not ours to keep) */
		char tmp[2 * TP_M2M_CON_MAX + 64];
		int n = tp_m2m_cin_measure_json(tmp, sizeof(tmp), m);
		if (n < 0)
			return n;
		if ((size_t)n > cap)
			return -TP_COAP_E_NOSPC;
		memcpy(dst, tmp, (size_t)n);
		return n;
	}
	/* the inner JSON as tp_m2m_cin_measure_json() bounds it */
	con = SLEN("{\"value\":") + (size_t)vl +
	      (m->unit ? SLEN(",\"unit\":\"\"") + (size_t)ul : 0) +
	      (m->time ? SLEN(",\"time\":\"\"") + (size_t)tl : 0) + 1;
	if (con >= TP_M2M_CON_MAX)
		return -TP_COAP_E_NOSPC;
	need = SLEN(CIN_HEAD) + (size_t)vl +
	       (m->unit ? SLEN(CIN_UNIT) + (size_t)ul + SLEN(CIN_QUOTE) : 0) +
	       (m->time ? SLEN(CIN_TIME) + (size_t)tl + SLEN(CIN_QUOTE) : 0) + SLEN(CIN_TAIL);
	if (need > cap)
		return -TP_COAP_E_NOSPC;
	memcpy(o, CIN_HEAD, SLEN(CIN_HEAD));
	o += SLEN(CIN_HEAD);
	memcpy(o, m->value != NULL ? m->value : "null", (size_t)vl);
	o += vl;
	if (m->unit != NULL)
		o = put_field(o, CIN_UNIT, SLEN(CIN_UNIT), m->unit, (size_t)ul);
	if (m->time != NULL)
		o = put_field(o, CIN_TIME, SLEN(CIN_TIME), m->time, (size_t)tl);
	memcpy(o, CIN_TAIL, SLEN(CIN_TAIL));
	o += SLEN(CIN_TAIL);
	return (int)(o - dst);
}

static void sysid_hex(const uint8_t *sysid, char *out)
{
	static const char hex[] = "0123456789ABCDEF";

	for (int i = 0; i < TP_M2M_SYSID_LEN; i++) {
		out[2 * i] = hex[sysid[i] >> 4];
		out[2 * i + 1] = hex[sysid[i] & 0xf];
	}
	out[2 * TP_M2M_SYSID_LEN] = '\0';
}

void tp_m2m_phd_ae_name(const uint8_t sysid[TP_M2M_SYSID_LEN], char out[TP_M2M_AE_RN_SIZE])
{
	memcpy(out, "PHD-", 4);
	sysid_hex(sysid, out + 4);
}

void tp_m2m_phd_originator(const uint8_t sysid[TP_M2M_SYSID_LEN], char out[TP_M2M_ORIGIN_SIZE])
{
	out[0] = 'C';
	sysid_hex(sysid, out + 1);
}

void tp_m2m_time_from_epoch(uint64_t s, char out[TP_M2M_TIME_SIZE])
{
	/* days since 1970-01-01 to a civil date (proleptic Gregorian; H. Hinnant's
	 * days_from_civil inverted), no library call */
	int64_t z = (int64_t)(s / 86400) + 719468;
	uint32_t sod = (uint32_t)(s % 86400);
	int64_t era = z / 146097;
	uint32_t doe = (uint32_t)(z - era * 146097);
	uint32_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	uint32_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	uint32_t mp = (5 * doy + 2) / 153;
	uint32_t d = doy - (153 * mp + 2) / 5 + 1;
	uint32_t m = mp < 10 ? mp + 3 : mp - 9;
	uint32_t y = (uint32_t)(yoe + era * 400) + (m <= 2);
	const uint32_t f[7] = {y / 100 % 100, y % 100, m, d, sod / 3600, sod / 60 % 60, sod % 60};
	char *o = out;

	for (int i = 0; i < 7; i++) {
		if (i == 4)
			*o++ = 'T';
		*o++ = (char)('0' + f[i] / 10);
		*o++ = (char)('0' + f[i] % 10);
	}
	*o = '\0';
}
