/* SPDX-License-Identifier: BSD-3-Clause */
/* IEEE 11073-20601 values: SFLOAT/FLOAT, BCD absolute time, typed attribute values, value maps. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "mder.h"
#include "mder_cursor.h"

/* ---- SFLOAT-Type and FLOAT-Type (20601 Annex A) ---- */

/* 10^n for n >= 0; exact up to 10^22, the largest power of ten a double holds. */
static double pow10i(int n)
{
	static const double p[] = {1e0,	 1e1,  1e2,  1e3,  1e4,	 1e5,  1e6,  1e7,
				   1e8,	 1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
				   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
	double r = 1;

	while (n > 22) {
		r *= 1e22;
		n -= 22;
	}
	return r * p[n];
}

/* m * 10^e with one rounding while the power is exact (|e| <= 22). */
static double scale10(double m, int e)
{
	return e >= 0 ? m * pow10i(e) : m / pow10i(-e);
}

/* The special values are mantissas with exponent 0 (20601 Annex A, FLOAT-Type):
 * NaN +(2^(k-1) - 1), NRes -(2^(k-1)), +INF +(2^(k-1) - 2), -INF -(2^(k-1) - 2),
 * reserved -(2^(k-1) - 1), k the mantissa width. */
static void num_set(struct tp_phd_num *o, int32_t mant, int exp, int32_t top)
{
	o->mantissa = mant;
	o->exponent = (int8_t)exp;
	o->special = TP_PHD_FINITE;
	if (exp == 0) {
		if (mant == top - 1)
			o->special = TP_PHD_NAN;
		else if (mant == -top)
			o->special = TP_PHD_NRES;
		else if (mant == top - 2)
			o->special = TP_PHD_PINF;
		else if (mant == -(top - 2))
			o->special = TP_PHD_NINF;
		else if (mant == -(top - 1))
			o->special = TP_PHD_RESERVED;
	}
	switch (o->special) {
	case TP_PHD_FINITE:
		o->value = scale10(mant, exp);
		break;
	case TP_PHD_PINF:
		o->value = INFINITY;
		break;
	case TP_PHD_NINF:
		o->value = -INFINITY;
		break;
	default:
		o->value = NAN;
	}
}

void tp_phd_sfloat_decode(uint16_t raw, struct tp_phd_num *out)
{
	int exp = raw >> 12;	     /* 4-bit two's complement exponent */
	int32_t mant = raw & 0x0fff; /* 12-bit two's complement mantissa */

	if (exp >= 8)
		exp -= 16;
	if (mant >= 0x800)
		mant -= 0x1000;
	num_set(out, mant, exp, 0x800);
}

void tp_phd_float_decode(uint32_t raw, struct tp_phd_num *out)
{
	int exp = (int8_t)(raw >> 24);
	int32_t mant = (int32_t)(raw & 0x00ffffff);

	if (mant >= 0x800000)
		mant -= 0x1000000;
	num_set(out, mant, exp, 0x800000);
}

uint16_t tp_phd_sfloat_special(enum tp_phd_special s)
{
	switch (s) {
	case TP_PHD_NAN:
		return 0x07ff;
	case TP_PHD_NRES:
		return 0x0800;
	case TP_PHD_PINF:
		return 0x07fe;
	case TP_PHD_NINF:
		return 0x0802;
	case TP_PHD_RESERVED:
		return 0x0801;
	default:
		return 0;
	}
}

uint32_t tp_phd_float_special(enum tp_phd_special s)
{
	switch (s) {
	case TP_PHD_NAN:
		return 0x007fffff;
	case TP_PHD_NRES:
		return 0x00800000;
	case TP_PHD_PINF:
		return 0x007ffffe;
	case TP_PHD_NINF:
		return 0x00800002;
	case TP_PHD_RESERVED:
		return 0x00800001;
	default:
		return 0;
	}
}

/* Mantissa and exponent for v: the smallest exponent whose rounded mantissa
 * fits in +-max, then trailing zeros moved into the exponent. The mantissa
 * stays clear of the special values at every exponent (max = 2^(k-1) - 3), so
 * no decoder can mistake a number for NaN or INF. */
static int dec_split(double v, int32_t max, int emin, int emax, int32_t *m, int *e)
{
	if (v == 0) {
		*m = 0;
		*e = 0;
		return 0;
	}
	for (int ex = emin; ex <= emax; ex++) {
		double s = scale10(v, -ex);
		if (!(s < max + 1.0 && s > -(max + 1.0)))
			continue;
		/* round half away from zero */
		long long r = (long long)(s + (s >= 0 ? 0.5 : -0.5));
		if (r > max || r < -max)
			continue;
		if (r == 0) {
			*m = 0;
			*e = 0;
			return 0;
		}
		while (r % 10 == 0 && ex < emax) {
			r /= 10;
			ex++;
		}
		*m = (int32_t)r;
		*e = ex;
		return 0;
	}
	return -TP_PHD_E_INVALID;
}

int tp_phd_sfloat_encode(double v, uint16_t *raw)
{
	int32_t m;
	int e;

	if (isnan(v)) {
		*raw = tp_phd_sfloat_special(TP_PHD_NAN);
		return 0;
	}
	if (isinf(v)) {
		*raw = tp_phd_sfloat_special(v > 0 ? TP_PHD_PINF : TP_PHD_NINF);
		return 0;
	}
	if (dec_split(v, 0x800 - 3, -8, 7, &m, &e) < 0)
		return -TP_PHD_E_INVALID;
	*raw = (uint16_t)(((unsigned)e & 0xf) << 12 | ((unsigned)m & 0x0fff));
	return 0;
}

int tp_phd_float_encode(double v, uint32_t *raw)
{
	int32_t m;
	int e;

	if (isnan(v)) {
		*raw = tp_phd_float_special(TP_PHD_NAN);
		return 0;
	}
	if (isinf(v)) {
		*raw = tp_phd_float_special(v > 0 ? TP_PHD_PINF : TP_PHD_NINF);
		return 0;
	}
	if (dec_split(v, 0x800000 - 3, -128, 127, &m, &e) < 0)
		return -TP_PHD_E_INVALID;
	*raw = ((uint32_t)e & 0xff) << 24 | ((uint32_t)m & 0x00ffffff);
	return 0;
}

int tp_phd_num_from_double(struct tp_phd_num *n, double v, int float32)
{
	int rc;

	if (float32) {
		uint32_t raw;
		rc = tp_phd_float_encode(v, &raw);
		if (rc == 0)
			tp_phd_float_decode(raw, n);
	} else {
		uint16_t raw;
		rc = tp_phd_sfloat_encode(v, &raw);
		if (rc == 0)
			tp_phd_sfloat_decode(raw, n);
	}
	return rc;
}

/* Encode a decoded number back from its mantissa and exponent (exactly). */
static int num_raw(const struct tp_phd_num *n, int float32, uint32_t *raw)
{
	int32_t top = float32 ? 0x800000 : 0x800;
	int emin = float32 ? -128 : -8, emax = float32 ? 127 : 7;

	if (n->special != TP_PHD_FINITE) {
		if (n->special > TP_PHD_RESERVED)
			return -TP_PHD_E_INVALID;
		*raw =
		    float32 ? tp_phd_float_special(n->special) : tp_phd_sfloat_special(n->special);
		return 0;
	}
	if (n->mantissa >= top || n->mantissa < -top || n->exponent < emin || n->exponent > emax)
		return -TP_PHD_E_INVALID;
	/* a finite number must not encode as a special value */
	if (n->exponent == 0 && (n->mantissa >= top - 2 || n->mantissa <= -(top - 2)))
		return -TP_PHD_E_INVALID;
	if (float32)
		*raw = ((uint32_t)n->exponent & 0xff) << 24 | ((uint32_t)n->mantissa & 0xffffff);
	else
		*raw = ((uint32_t)n->exponent & 0xf) << 12 | ((uint32_t)n->mantissa & 0xfff);
	return 0;
}

const char *tp_phd_special_name(enum tp_phd_special s)
{
	switch (s) {
	case TP_PHD_FINITE:
		return "finite";
	case TP_PHD_NAN:
		return "NaN";
	case TP_PHD_NRES:
		return "NRes";
	case TP_PHD_PINF:
		return "+INF";
	case TP_PHD_NINF:
		return "-INF";
	case TP_PHD_RESERVED:
		return "reserved";
	}
	return "?";
}

int tp_phd_num_fmt(const struct tp_phd_num *n, char *buf, size_t len)
{
	char digits[16];
	int e = n->exponent, nd;
	long m = n->mantissa;
	const char *sign = m < 0 ? "-" : "";

	if (n->special != TP_PHD_FINITE)
		return snprintf(buf, len, "%s", tp_phd_special_name(n->special));
	if (e == 0 || m == 0)
		return snprintf(buf, len, "%ld", m);
	if (e > 9 || e < -9)
		return snprintf(buf, len, "%lde%+d", m, e);
	if (e > 0)
		return snprintf(buf, len, "%ld%.*s", m, e, "000000000");
	nd = snprintf(digits, sizeof(digits), "%ld", m < 0 ? -m : m);
	if (nd > -e) /* 12345e-2: 123.45 */
		return snprintf(buf, len, "%s%.*s.%s", sign, nd + e, digits, digits + nd + e);
	/* 12e-4: 0.0012 */
	return snprintf(buf, len, "%s0.%.*s%s", sign, -e - nd, "000000000", digits);
}

/* ---- AbsoluteTime (20601 Annex A): BCD century, year, month, day, hour, minute, second,
 * sec-fractions (hundredths) ---- */

static int days_in_month(unsigned year, unsigned month)
{
	static const uint8_t d[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (month == 2 && ((year % 4 == 0 && year % 100 != 0) || year % 400 == 0))
		return 29;
	return d[month - 1];
}

static int abs_time_valid(const struct tp_phd_abs_time *t)
{
	if (t->century > 99 || t->year > 99 || t->month < 1 || t->month > 12 || t->day < 1 ||
	    t->hour > 23 || t->minute > 59 || t->second > 59 || t->frac > 99)
		return 0;
	return t->day <= days_in_month(t->century * 100u + t->year, t->month);
}

int tp_phd_abs_time_decode(const uint8_t b[8], struct tp_phd_abs_time *t)
{
	static const uint8_t zero[8];
	uint8_t v[8];

	memset(t, 0, sizeof(*t));
	/* no clock set: agents send eight zeros (Antidote's agents, many real devices) */
	if (memcmp(b, zero, 8) == 0) {
		t->unset = 1;
		return 0;
	}
	for (int i = 0; i < 8; i++) {
		if ((b[i] >> 4) > 9 || (b[i] & 0xf) > 9)
			return -TP_PHD_E_BAD_TIME;
		v[i] = (uint8_t)((b[i] >> 4) * 10 + (b[i] & 0xf));
	}
	t->century = v[0];
	t->year = v[1];
	t->month = v[2];
	t->day = v[3];
	t->hour = v[4];
	t->minute = v[5];
	t->second = v[6];
	t->frac = v[7];
	return abs_time_valid(t) ? 0 : -TP_PHD_E_BAD_TIME;
}

struct tp_phd_abs_time tp_phd_abs_time_from_tm(const struct tm *tm)
{
	return (struct tp_phd_abs_time){(uint8_t)((tm->tm_year + 1900) / 100),
					(uint8_t)((tm->tm_year + 1900) % 100),
					(uint8_t)(tm->tm_mon + 1),
					(uint8_t)tm->tm_mday,
					(uint8_t)tm->tm_hour,
					(uint8_t)tm->tm_min,
					(uint8_t)(tm->tm_sec > 59 ? 59 : tm->tm_sec),
					0,
					0};
}

int tp_phd_abs_time_encode(const struct tp_phd_abs_time *t, uint8_t b[8])
{
	const uint8_t v[8] = {t->century, t->year,   t->month,	t->day,
			      t->hour,	  t->minute, t->second, t->frac};

	if (t->unset) {
		memset(b, 0, 8);
		return 0;
	}
	if (!abs_time_valid(t))
		return -TP_PHD_E_BAD_TIME;
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)((v[i] / 10) << 4 | v[i] % 10);
	return 0;
}

int tp_phd_abs_time_fmt(const struct tp_phd_abs_time *t, char *buf, size_t len)
{
	if (t->unset)
		return snprintf(buf, len, "unset");
	return snprintf(buf, len, "%02u%02u-%02u-%02uT%02u:%02u:%02u.%02u", t->century, t->year,
			t->month, t->day, t->hour, t->minute, t->second, t->frac);
}

/* ---- typed attribute values: each attribute's ASN.1 type (20601 Annex A and the object
 * classes' attribute tables) ---- */

enum tp_phd_vkind tp_phd_attr_kind(uint16_t attr_id)
{
	switch (attr_id) {
	case MDC_ATTR_NU_VAL_OBS_BASIC:
		return TP_PHD_V_SFLOAT;
	case MDC_ATTR_NU_VAL_OBS_SIMP:
	case MDC_ATTR_NU_ACCUR_MSMT:
	case MDC_ATTR_TIME_PD_MSMT_ACTIVE:
		return TP_PHD_V_FLOAT;
	case MDC_ATTR_NU_VAL_OBS:
		return TP_PHD_V_NU_OBS;
	case MDC_ATTR_NU_CMPD_VAL_OBS_BASIC:
		return TP_PHD_V_SFLOAT_CMP;
	case MDC_ATTR_NU_CMPD_VAL_OBS_SIMP:
		return TP_PHD_V_FLOAT_CMP;
	case MDC_ATTR_NU_CMPD_VAL_OBS:
		return TP_PHD_V_NU_OBS_CMP;
	case MDC_ATTR_TIME_STAMP_ABS:
	case MDC_ATTR_TIME_ABS:
	case MDC_ATTR_TIME_START_SEG:
	case MDC_ATTR_TIME_END_SEG:
		return TP_PHD_V_ABS_TIME;
	case MDC_ATTR_TIME_STAMP_REL:
	case MDC_ATTR_TIME_REL:
	case MDC_ATTR_CONFIRM_TIMEOUT:
	case MDC_ATTR_SCAN_REP_PD:
	case MDC_ATTR_SCAN_REP_PD_MIN:
	case MDC_ATTR_TIME_PD_SAMP:
	case MDC_ATTR_TRANSFER_TIMEOUT:
	case MDC_ATTR_CLEAR_TIMEOUT:
		return TP_PHD_V_REL_TIME;
	case MDC_ATTR_TIME_STAMP_REL_HI_RES:
	case MDC_ATTR_TIME_REL_HI_RES:
		return TP_PHD_V_HIRES_TIME;
	case MDC_ATTR_UNIT_CODE:
	case MDC_ATTR_ENUM_OBS_VAL_SIMP_OID:
	case MDC_ATTR_ID_PHYSIO:
		return TP_PHD_V_OID;
	case MDC_ATTR_ID_HANDLE:
	case MDC_ATTR_DEV_CONFIG_ID:
	case MDC_ATTR_SOURCE_HANDLE_REF:
	case MDC_ATTR_ENUM_OBS_VAL_PART:
	case MDC_ATTR_METRIC_ID_PART:
	case MDC_ATTR_ID_INSTNO:
	case MDC_ATTR_OP_STAT:
	case MDC_ATTR_CONFIRM_MODE:
	case MDC_ATTR_VAL_BATT_CHARGE:
	case MDC_ATTR_NUM_SEG:
	case MDC_ATTR_PM_SEG_PERSON_ID:
	case MDC_ATTR_METRIC_STORE_SAMPLE_ALG:
		return TP_PHD_V_U16;
	case MDC_ATTR_MSMT_STAT:
	case MDC_ATTR_METRIC_SPEC_SMALL:
	case MDC_ATTR_POWER_STAT:
	case MDC_ATTR_ENUM_OBS_VAL_BASIC_BIT_STR:
	case MDC_ATTR_PM_STORE_CAPAB:
		return TP_PHD_V_BITS16;
	case MDC_ATTR_ENUM_OBS_VAL_SIMP_BIT_STR:
		return TP_PHD_V_BITS32;
	case MDC_ATTR_ID_TYPE:
	case MDC_ATTR_SYS_TYPE:
		return TP_PHD_V_TYPE;
	case MDC_ATTR_ATTRIBUTE_VAL_MAP:
		return TP_PHD_V_AVM;
	case MDC_ATTR_ID_PHYSIO_LIST:
		return TP_PHD_V_OID_LIST;
	case MDC_ATTR_ID_MODEL:
		return TP_PHD_V_MODEL;
	case MDC_ATTR_SYS_TYPE_SPEC_LIST:
		return TP_PHD_V_TYPEVER;
	case MDC_ATTR_ID_PROD_SPECN:
		return TP_PHD_V_PROD_SPEC;
	case MDC_ATTR_SYS_ID:
	case MDC_ATTR_ID_LABEL_STRING:
	case MDC_ATTR_UNIT_LABEL_STRING:
	case MDC_ATTR_ENUM_OBS_VAL_SIMP_STR:
	case MDC_ATTR_SIMP_SA_OBS_VAL:
	case MDC_ATTR_PM_STORE_LABEL_STRING:
	case MDC_ATTR_PM_SEG_LABEL_STRING:
		return TP_PHD_V_STRING;
	}
	return TP_PHD_V_OCTETS;
}

bool tp_phd_attr_observed(uint16_t attr_id)
{
	switch (attr_id) {
	case MDC_ATTR_NU_VAL_OBS_BASIC:
	case MDC_ATTR_NU_VAL_OBS_SIMP:
	case MDC_ATTR_NU_VAL_OBS:
	case MDC_ATTR_NU_CMPD_VAL_OBS_BASIC:
	case MDC_ATTR_NU_CMPD_VAL_OBS_SIMP:
	case MDC_ATTR_NU_CMPD_VAL_OBS:
		return true;
	}
	return false;
}

/* Fixed size of a kind's encoding, or 0 when it carries its own lengths. */
static size_t kind_size(enum tp_phd_vkind k)
{
	switch (k) {
	case TP_PHD_V_SFLOAT:
	case TP_PHD_V_OID:
	case TP_PHD_V_U16:
	case TP_PHD_V_BITS16:
		return 2;
	case TP_PHD_V_FLOAT:
	case TP_PHD_V_REL_TIME:
	case TP_PHD_V_BITS32:
	case TP_PHD_V_TYPE:
		return 4;
	case TP_PHD_V_ABS_TIME:
	case TP_PHD_V_HIRES_TIME:
		return 8;
	case TP_PHD_V_NU_OBS:
		return 10;
	default:
		return 0;
	}
}

static int dec_nu_obs(struct mder_rd *r, struct tp_phd_nu_obs *nu)
{
	uint32_t raw;
	int rc;

	if ((rc = rd_u16(r, "metric-id", &nu->metric_id)) < 0 ||
	    (rc = rd_u16(r, "state", &nu->state)) < 0 ||
	    (rc = rd_u16(r, "unit-code", &nu->unit)) < 0 || (rc = rd_u32(r, "value", &raw)) < 0)
		return rc;
	tp_phd_float_decode(raw, &nu->num);
	return 0;
}

static int dec_value(struct mder_rd *r, uint16_t attr_id, struct tp_phd_value *v)
{
	enum tp_phd_vkind k = tp_phd_attr_kind(attr_id);
	size_t fixed = kind_size(k);
	struct mder_rd l;
	uint16_t u16 = 0, count = 0;
	uint32_t u32 = 0;
	int rc = 0;

	memset(v, 0, sizeof(*v));
	v->attr_id = attr_id;
	v->kind = (uint8_t)k;
	if (fixed && rd_left(r) != fixed)
		return rd_fail(r, TP_PHD_E_ATTR_LEN, "attribute-value", fixed, rd_left(r));
	switch (k) {
	case TP_PHD_V_SFLOAT:
		rc = rd_u16(r, "attribute-value", &u16);
		tp_phd_sfloat_decode(u16, &v->u.num);
		break;
	case TP_PHD_V_FLOAT:
		rc = rd_u32(r, "attribute-value", &u32);
		tp_phd_float_decode(u32, &v->u.num);
		break;
	case TP_PHD_V_NU_OBS:
		rc = dec_nu_obs(r, &v->u.nu);
		break;
	case TP_PHD_V_OID:
	case TP_PHD_V_U16:
	case TP_PHD_V_BITS16:
		rc = rd_u16(r, "attribute-value", &v->u.u16);
		break;
	case TP_PHD_V_REL_TIME:
	case TP_PHD_V_BITS32:
		rc = rd_u32(r, "attribute-value", &v->u.u32);
		break;
	case TP_PHD_V_HIRES_TIME:
		rc = rd_u32(r, "attribute-value", &u32);
		v->u.u64 = (uint64_t)u32 << 32;
		if (rc == 0)
			rc = rd_u32(r, "attribute-value", &u32);
		v->u.u64 |= u32;
		break;
	case TP_PHD_V_TYPE:
		if ((rc = rd_u16(r, "partition", &v->u.type.partition)) == 0)
			rc = rd_u16(r, "code", &v->u.type.code);
		break;
	case TP_PHD_V_ABS_TIME:
		if (tp_phd_abs_time_decode(r->base + r->off, &v->u.abs) < 0)
			return rd_fail(r, TP_PHD_E_BAD_TIME, "absolute-time", 0, 0);
		r->off += 8;
		break;
	case TP_PHD_V_SFLOAT_CMP:
	case TP_PHD_V_FLOAT_CMP:
	case TP_PHD_V_NU_OBS_CMP:
		rc = rd_list(r, "compound-value.count", "compound-value.length", TP_PHD_MAX_CMP,
			     &count, &l);
		for (uint16_t i = 0; rc == 0 && i < count; i++) {
			if (k == TP_PHD_V_SFLOAT_CMP) {
				rc = rd_u16(&l, "compound-value", &u16);
				tp_phd_sfloat_decode(u16, &v->u.cmp[i]);
			} else if (k == TP_PHD_V_FLOAT_CMP) {
				rc = rd_u32(&l, "compound-value", &u32);
				tp_phd_float_decode(u32, &v->u.cmp[i]);
			} else {
				rc = dec_nu_obs(&l, &v->u.nu_cmp[i]);
			}
		}
		if (rc == 0)
			rc = rd_done(&l, "compound-value.length");
		v->n = (uint8_t)count;
		break;
	case TP_PHD_V_AVM:
		rc = rd_list(r, "attr-val-map.count", "attr-val-map.length", TP_PHD_MAX_AVM, &count,
			     &l);
		for (uint16_t i = 0; rc == 0 && i < count; i++) {
			if ((rc = rd_u16(&l, "attribute-id", &v->u.avm[i].attr_id)) == 0)
				rc = rd_u16(&l, "attribute-len", &v->u.avm[i].len);
		}
		if (rc == 0)
			rc = rd_done(&l, "attr-val-map.length");
		v->n = (uint8_t)count;
		break;
	case TP_PHD_V_STRING:
		rc = rd_octets(r, "octet-string.length", &v->u.oct);
		break;
	case TP_PHD_V_OID_LIST: /* MetricIdList ::= SEQUENCE OF OID-Type */
		rc = rd_list(r, "metric-id-list.count", "metric-id-list.length", TP_PHD_MAX_LIST,
			     &count, &l);
		for (uint16_t i = 0; rc == 0 && i < count; i++)
			rc = rd_u16(&l, "metric-id", &v->u.oid[i]);
		if (rc == 0)
			rc = rd_done(&l, "metric-id-list.length");
		v->n = (uint8_t)count;
		break;
	case TP_PHD_V_MODEL: /* SystemModel ::= SEQUENCE { manufacturer, model-number } */
		if ((rc = rd_octets(r, "manufacturer.length", &v->u.model.manufacturer)) == 0)
			rc = rd_octets(r, "model-number.length", &v->u.model.model_number);
		break;
	case TP_PHD_V_TYPEVER: /* TypeVerList ::= SEQUENCE OF TypeVer { type, version } */
		rc = rd_list(r, "type-ver-list.count", "type-ver-list.length", TP_PHD_MAX_LIST,
			     &count, &l);
		for (uint16_t i = 0; rc == 0 && i < count; i++) {
			if ((rc = rd_u16(&l, "type", &v->u.tv[i].type)) == 0)
				rc = rd_u16(&l, "version", &v->u.tv[i].version);
		}
		if (rc == 0)
			rc = rd_done(&l, "type-ver-list.length");
		v->n = (uint8_t)count;
		break;
	case TP_PHD_V_PROD_SPEC: /* ProductionSpec ::= SEQUENCE OF ProdSpecEntry */
		rc = rd_list(r, "production-spec.count", "production-spec.length", TP_PHD_MAX_AVM,
			     &count, &l);
		for (uint16_t i = 0; rc == 0 && i < count; i++) {
			if ((rc = rd_u16(&l, "spec-type", &v->u.spec[i].spec_type)) == 0 &&
			    (rc = rd_u16(&l, "component-id", &v->u.spec[i].component_id)) == 0)
				rc = rd_octets(&l, "prod-spec.length", &v->u.spec[i].prod_spec);
		}
		if (rc == 0)
			rc = rd_done(&l, "production-spec.length");
		v->n = (uint8_t)count;
		break;
	case TP_PHD_V_KIND_COUNT:
		break;
	case TP_PHD_V_OCTETS:
		v->u.oct.p = r->base != NULL ? r->base + r->off : NULL;
		v->u.oct.len = (uint16_t)rd_left(r);
		r->off = r->end;
		break;
	}
	if (rc < 0)
		return rc;
	return rd_done(r, "attribute-value.length");
}

int tp_phd_attr_value_decode(uint16_t attr_id, const uint8_t *buf, size_t len,
			     struct tp_phd_value *out, struct tp_phd_error *err)
{
	struct mder_rd r;

	rd_init(&r, buf, len, err);
	if (len > 0xffff)
		return rd_fail(&r, TP_PHD_E_ATTR_LEN, "attribute-value", 0xffff, len);
	return dec_value(&r, attr_id, out);
}

static void enc_num(struct mder_wr *w, const struct tp_phd_num *n, int float32)
{
	uint32_t raw;

	if (num_raw(n, float32, &raw) < 0) {
		wr_invalid(w);
		return;
	}
	if (float32)
		wr_u32(w, raw);
	else
		wr_u16(w, (uint16_t)raw);
}

static void enc_nu_obs(struct mder_wr *w, const struct tp_phd_nu_obs *nu)
{
	wr_u16(w, nu->metric_id);
	wr_u16(w, nu->state);
	wr_u16(w, nu->unit);
	enc_num(w, &nu->num, 1);
}

int tp_phd_attr_value_encode(const struct tp_phd_value *v, uint8_t *buf, size_t size)
{
	struct mder_wr w;
	size_t len;
	uint8_t b[8];

	wr_init(&w, buf, size);
	switch (v->kind) {
	case TP_PHD_V_SFLOAT:
	case TP_PHD_V_FLOAT:
		enc_num(&w, &v->u.num, v->kind == TP_PHD_V_FLOAT);
		break;
	case TP_PHD_V_NU_OBS:
		enc_nu_obs(&w, &v->u.nu);
		break;
	case TP_PHD_V_SFLOAT_CMP:
	case TP_PHD_V_FLOAT_CMP:
	case TP_PHD_V_NU_OBS_CMP:
		if (v->n > TP_PHD_MAX_CMP)
			return -TP_PHD_E_INVALID;
		wr_u16(&w, v->n);
		len = wr_len_begin(&w);
		for (int i = 0; i < v->n; i++) {
			if (v->kind == TP_PHD_V_NU_OBS_CMP)
				enc_nu_obs(&w, &v->u.nu_cmp[i]);
			else
				enc_num(&w, &v->u.cmp[i], v->kind == TP_PHD_V_FLOAT_CMP);
		}
		wr_len_end(&w, len);
		break;
	case TP_PHD_V_ABS_TIME:
		if (tp_phd_abs_time_encode(&v->u.abs, b) < 0)
			return -TP_PHD_E_BAD_TIME;
		wr_bytes(&w, b, 8);
		break;
	case TP_PHD_V_REL_TIME:
	case TP_PHD_V_BITS32:
		wr_u32(&w, v->u.u32);
		break;
	case TP_PHD_V_HIRES_TIME:
		wr_u32(&w, (uint32_t)(v->u.u64 >> 32));
		wr_u32(&w, (uint32_t)v->u.u64);
		break;
	case TP_PHD_V_OID:
	case TP_PHD_V_U16:
	case TP_PHD_V_BITS16:
		wr_u16(&w, v->u.u16);
		break;
	case TP_PHD_V_TYPE:
		wr_u16(&w, v->u.type.partition);
		wr_u16(&w, v->u.type.code);
		break;
	case TP_PHD_V_AVM:
		if (v->n > TP_PHD_MAX_AVM)
			return -TP_PHD_E_INVALID;
		wr_u16(&w, v->n);
		wr_u16(&w, (uint16_t)(4 * v->n));
		for (int i = 0; i < v->n; i++) {
			wr_u16(&w, v->u.avm[i].attr_id);
			wr_u16(&w, v->u.avm[i].len);
		}
		break;
	case TP_PHD_V_STRING:
		wr_octets(&w, &v->u.oct);
		break;
	case TP_PHD_V_OID_LIST:
		if (v->n > TP_PHD_MAX_LIST)
			return -TP_PHD_E_INVALID;
		wr_u16(&w, v->n);
		wr_u16(&w, (uint16_t)(2 * v->n));
		for (int i = 0; i < v->n; i++)
			wr_u16(&w, v->u.oid[i]);
		break;
	case TP_PHD_V_MODEL:
		wr_octets(&w, &v->u.model.manufacturer);
		wr_octets(&w, &v->u.model.model_number);
		break;
	case TP_PHD_V_TYPEVER:
		if (v->n > TP_PHD_MAX_LIST)
			return -TP_PHD_E_INVALID;
		wr_u16(&w, v->n);
		wr_u16(&w, (uint16_t)(4 * v->n));
		for (int i = 0; i < v->n; i++) {
			wr_u16(&w, v->u.tv[i].type);
			wr_u16(&w, v->u.tv[i].version);
		}
		break;
	case TP_PHD_V_PROD_SPEC:
		if (v->n > TP_PHD_MAX_AVM)
			return -TP_PHD_E_INVALID;
		wr_u16(&w, v->n);
		len = wr_len_begin(&w);
		for (int i = 0; i < v->n; i++) {
			wr_u16(&w, v->u.spec[i].spec_type);
			wr_u16(&w, v->u.spec[i].component_id);
			wr_octets(&w, &v->u.spec[i].prod_spec);
		}
		wr_len_end(&w, len);
		break;
	case TP_PHD_V_OCTETS:
		if (v->u.oct.len && v->u.oct.p == NULL)
			return -TP_PHD_E_INVALID;
		wr_bytes(&w, v->u.oct.p, v->u.oct.len);
		break;
	default:
		return -TP_PHD_E_INVALID;
	}
	return wr_result(&w);
}

/* ---- value maps: what fixed observations need of the configuration ---- */

/* An attribute of a configured object that the value map needs, decoded; the
 * error's offset is from the attribute value. */
static int map_attr(const struct tp_phd_ava *a, struct tp_phd_value *v, struct tp_phd_error *err)
{
	return tp_phd_attr_value_decode(a->id, a->val.p, a->val.len, v, err);
}

int tp_phd_value_map_build(const struct tp_phd_config_report *cfg, struct tp_phd_value_map *map,
			   struct tp_phd_error *err)
{
	struct tp_phd_value v;
	int rc;

	if (err != NULL)
		memset(err, 0, sizeof(*err));
	if (cfg->nobjs > TP_PHD_MAX_CFG_OBJS)
		return -TP_PHD_E_INVALID;
	memset(map, 0, sizeof(*map));
	map->config_id = cfg->config_report_id;
	for (uint16_t i = 0; i < cfg->nobjs; i++) {
		const struct tp_phd_config_object *o = &cfg->obj[i];
		struct tp_phd_obj_map *om = &map->obj[i];

		if (tp_phd_value_map_find(map, o->handle) != NULL) {
			if (err != NULL) {
				err->code = TP_PHD_E_BAD_VALUE;
				err->field = "obj-handle (a second object with this handle)";
				err->have = o->handle;
			}
			return -TP_PHD_E_BAD_VALUE;
		}
		om->handle = o->handle;
		om->obj_class = o->obj_class;
		map->nobjs = (uint16_t)(i + 1);
		for (uint16_t j = 0; j < o->attrs.count; j++) {
			const struct tp_phd_ava *a = &o->attrs.ava[j];
			switch (a->id) {
			case MDC_ATTR_ID_TYPE:
				if ((rc = map_attr(a, &v, err)) < 0)
					return rc;
				om->type_partition = v.u.type.partition;
				om->type_code = v.u.type.code;
				break;
			case MDC_ATTR_UNIT_CODE:
				if ((rc = map_attr(a, &v, err)) < 0)
					return rc;
				om->unit = v.u.u16;
				break;
			case MDC_ATTR_ID_PHYSIO_LIST: /* the components of a compound (10407) */
				if ((rc = map_attr(a, &v, err)) < 0)
					return rc;
				om->ncmp = (uint8_t)(v.n < TP_PHD_MAX_CMP ? v.n : TP_PHD_MAX_CMP);
				for (int k = 0; k < om->ncmp; k++)
					om->cmp_id[k] = v.u.oid[k];
				break;
			case MDC_ATTR_ATTRIBUTE_VAL_MAP:
				if ((rc = map_attr(a, &v, err)) < 0)
					return rc;
				om->n = v.n;
				om->total_len = 0;
				for (int k = 0; k < v.n; k++) {
					om->e[k] = v.u.avm[k];
					om->total_len += v.u.avm[k].len;
				}
				break;
			}
		}
	}
	return 0;
}

const struct tp_phd_obj_map *tp_phd_value_map_find(const struct tp_phd_value_map *map,
						   uint16_t handle)
{
	for (uint16_t i = 0; i < map->nobjs && i < TP_PHD_MAX_CFG_OBJS; i++)
		if (map->obj[i].handle == handle)
			return &map->obj[i];
	return NULL;
}

int tp_phd_fixed_values(const struct tp_phd_obj_map *om, const uint8_t *data, size_t len,
			struct tp_phd_value *vals, struct tp_phd_error *err)
{
	struct mder_rd r, one;
	int rc;

	rd_init(&r, data, len, err);
	if (om->n > TP_PHD_MAX_AVM)
		return rd_fail(&r, TP_PHD_E_INVALID, "attr-val-map", om->n, TP_PHD_MAX_AVM);
	if (om->total_len != len)
		return rd_fail(&r, TP_PHD_E_MAP_MISMATCH, "obs-val-data", om->total_len, len);
	for (uint16_t i = 0; i < om->n; i++) {
		/* the map may come from shared memory: trust no sum */
		if (om->e[i].len > rd_left(&r))
			return rd_fail(&r, TP_PHD_E_MAP_MISMATCH, "obs-val-data", om->e[i].len,
				       rd_left(&r));
		rd_take(&r, om->e[i].len, &one);
		rc = dec_value(&one, om->e[i].attr_id, &vals[i]);
		if (rc < 0)
			return rc;
	}
	rc = rd_done(&r, "obs-val-data");
	return rc < 0 ? rc : om->n;
}

/* ---- fixed observations at precomputed offsets (the report path) ---- */

static int num_kind(enum tp_phd_vkind k)
{
	return k == TP_PHD_V_SFLOAT || k == TP_PHD_V_FLOAT || k == TP_PHD_V_NU_OBS ||
	       k == TP_PHD_V_SFLOAT_CMP || k == TP_PHD_V_FLOAT_CMP || k == TP_PHD_V_NU_OBS_CMP;
}

int tp_phd_fixed_layout_build(const struct tp_phd_obj_map *om, struct tp_phd_fixed_layout *l)
{
	uint32_t off = 0;

	memset(l, 0, sizeof(*l));
	l->num_kind = TP_PHD_V_OCTETS;
	l->time_off = TP_PHD_FIXED_NONE;
	if (om->n > TP_PHD_MAX_AVM)
		return -TP_PHD_E_INVALID;
	for (uint16_t i = 0; i < om->n; i++) {
		enum tp_phd_vkind k = tp_phd_attr_kind(om->e[i].attr_id);
		size_t fixed = kind_size(k), len = om->e[i].len;

		if (om->e[i].attr_id == MDC_ATTR_ENUM_OBS_VAL_SIMP_OID)
			return -TP_PHD_E_INVALID; /* an enumeration: the generic decoder's */
		if (num_kind(k) && tp_phd_attr_observed(om->e[i].attr_id)) {
			/* the compound forms: count and length, then at least one element */
			if (l->num_kind != TP_PHD_V_OCTETS || (fixed && len != fixed) ||
			    (!fixed && (len < 4 || len > 0xFF)))
				return -TP_PHD_E_INVALID;
			l->num_kind = (uint8_t)k;
			l->num_off = (uint16_t)off;
			l->num_len = (uint8_t)len;
		} else if (k == TP_PHD_V_ABS_TIME) {
			if (l->time_off != TP_PHD_FIXED_NONE || len != fixed)
				return -TP_PHD_E_INVALID;
			l->time_off = (uint16_t)off;
		} else if (k != TP_PHD_V_OCTETS && (fixed == 0 || len != fixed)) {
			/* a value of variable form, or a length its type forbids: the generic
			 * decoder checks (and fails) it */
			return -TP_PHD_E_INVALID;
		}
		off += len;
	}
	if (off != om->total_len || off >= TP_PHD_FIXED_NONE)
		return -TP_PHD_E_INVALID;
	l->len = (uint16_t)off;
	return 0;
}

/* element c of a compound of kind k at p (count and length checked by the caller) */
static void cmp_elem(enum tp_phd_vkind k, const uint8_t *p, unsigned int c,
		     struct tp_phd_fixed_reading *out)
{
	if (k == TP_PHD_V_SFLOAT_CMP) {
		tp_phd_sfloat_decode((uint16_t)(p[2 * c] << 8 | p[2 * c + 1]), &out->num);
	} else if (k == TP_PHD_V_FLOAT_CMP) {
		p += 4 * c;
		tp_phd_float_decode((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
					(uint32_t)p[2] << 8 | p[3],
				    &out->num);
	} else { /* NuObsValue: metric-id, state, unit-code, FLOAT */
		p += 10 * c;
		out->unit = (uint16_t)(p[4] << 8 | p[5]);
		tp_phd_float_decode((uint32_t)p[6] << 24 | (uint32_t)p[7] << 16 |
					(uint32_t)p[8] << 8 | p[9],
				    &out->num);
	}
}

static size_t cmp_elem_size(enum tp_phd_vkind k)
{
	return k == TP_PHD_V_SFLOAT_CMP ? 2 : k == TP_PHD_V_FLOAT_CMP ? 4 : 10;
}

int tp_phd_fixed_read(const struct tp_phd_fixed_layout *l, const uint8_t *data, size_t len,
		      unsigned int c, struct tp_phd_fixed_reading *out, struct tp_phd_error *err)
{
	struct mder_rd r;
	enum tp_phd_vkind k = (enum tp_phd_vkind)l->num_kind;

	out->has_num = out->has_time = 0;
	out->unit = 0;
	if (len != l->len) {
		rd_init(&r, data, len, err);
		return rd_fail(&r, TP_PHD_E_MAP_MISMATCH, "obs-val-data", l->len, len);
	}
	if (k == TP_PHD_V_SFLOAT_CMP || k == TP_PHD_V_FLOAT_CMP || k == TP_PHD_V_NU_OBS_CMP) {
		/* 20601 Annex A, BasicNuObsValueCmp and the others: count, length, elements
		 * filling the entry exactly, as dec_value() requires */
		const uint8_t *p = data + l->num_off;
		uint16_t count = (uint16_t)(p[0] << 8 | p[1]), clen = (uint16_t)(p[2] << 8 | p[3]);
		if (count > TP_PHD_MAX_CMP || clen != l->num_len - 4u ||
		    (size_t)count * cmp_elem_size(k) != clen) {
			rd_init(&r, data, len, err);
			r.off = l->num_off;
			return rd_fail(&r, TP_PHD_E_LENGTH, "compound-value.length", clen,
				       l->num_len - 4u);
		}
		if (c != TP_PHD_FIXED_WHOLE && c < count) {
			cmp_elem(k, p + 4, c, out);
			out->has_num = 1;
		}
	} else if (c == TP_PHD_FIXED_WHOLE && k != TP_PHD_V_OCTETS) {
		const uint8_t *p = data + l->num_off;
		if (k == TP_PHD_V_SFLOAT)
			cmp_elem(TP_PHD_V_SFLOAT_CMP, p, 0, out);
		else if (k == TP_PHD_V_FLOAT)
			cmp_elem(TP_PHD_V_FLOAT_CMP, p, 0, out);
		else
			cmp_elem(TP_PHD_V_NU_OBS_CMP, p, 0, out);
		out->has_num = 1;
	}
	if (l->time_off != TP_PHD_FIXED_NONE) {
		if (tp_phd_abs_time_decode(data + l->time_off, &out->time) < 0) {
			rd_init(&r, data, len, err);
			r.off = l->time_off;
			return rd_fail(&r, TP_PHD_E_BAD_TIME, "absolute-time", 0, 0);
		}
		out->has_time = 1;
	}
	return 0;
}
