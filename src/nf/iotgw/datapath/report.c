/* SPDX-License-Identifier: BSD-3-Clause */
/* The report path, transport-free: a PHD datagram -> verdict and measurements.
 * Used on the workers (fast.c), and by the socket gateway (sockgw.c). No
 * allocation, no system call, no lock: the AE table is read as published. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#else
#include <time.h>
#endif

#include "../../../proto/phd_nomenclature.h"
#include "../iotgw.h"

const char *const tp_iotgw_ctr_names[TP_IOTGW_CTR_MAX] = {
#define X(e, n, k) [TP_IOTGW_##e] = n,
    TP_IOTGW_COUNTERS(X)
#undef X
};

volatile uint32_t tp_iotgw_now_s;
volatile uint64_t tp_iotgw_wall_s;

/* One metric's reading of an observation: a JSON number (empty for NaN, NRes, INF),
 * its unit and time. */
struct reading {
	char value[40];
	const char *unit;
	char time[32];
	int has_value, has_time;
};

/* CCYYMMDDThhmmss (oneM2M's basic ISO 8601 form) of an AbsoluteTime */
static void time_fmt(char *o, const struct tp_phd_abs_time *t)
{
	const uint8_t f[7] = {t->century, t->year, t->month, t->day, t->hour, t->minute, t->second};

	for (int i = 0; i < 7; i++) {
		if (i == 4)
			*o++ = 'T';
		*o++ = (char)('0' + f[i] / 10 % 10);
		*o++ = (char)('0' + f[i] % 10);
	}
	*o = '\0';
}

/* Fill r from the number num (NULL: none), the unit code of the NuObsValue it came
 * from (has_unit) and the time stamp t (NULL: none). An unset (all-zero) time stamp
 * is the gateway's receive time. */
static void reading_set(struct reading *r, const struct tp_phd_num *num, int has_unit,
			uint16_t unit, const struct tp_phd_abs_time *t, char *unit_buf,
			size_t unit_len)
{
	if (t != NULL) {
		if (t->unset)
			tp_m2m_time_from_epoch(tp_iotgw_wall_s, r->time);
		else
			time_fmt(r->time, t);
		r->has_time = 1;
	}
	if (num == NULL)
		return;
	if (has_unit)
		r->unit = tp_phd_unit_symbol(unit, unit_buf, unit_len);
	r->has_value = 1;
	if (num->special != TP_PHD_FINITE ||
	    tp_m2m_decimal(r->value, sizeof(r->value), num->mantissa, num->exponent) < 0)
		r->value[0] = '\0';
}

/* The number metric mt takes from an observation's values: component mt->component of
 * its compound value, or its simple value; and the observation's first time stamp. */
static void reading_of(struct reading *r, const struct tp_ae_metric *mt,
		       const struct tp_phd_value *vals, int n, char *unit_buf, size_t unit_len)
{
	const struct tp_phd_num *num = NULL;
	const struct tp_phd_abs_time *t = NULL;
	struct tp_phd_num oid;
	unsigned int c = mt->component;
	int has_unit = 0;
	uint16_t unit = 0;

	for (int k = 0; k < n; k++) {
		const struct tp_phd_value *v = &vals[k];
		if (v->kind != TP_PHD_V_ABS_TIME && v->kind != TP_PHD_V_OID &&
		    !tp_phd_attr_observed(v->attr_id))
			continue; /* a measure-active period, an accuracy: not the value */
		switch (v->kind) {
		case TP_PHD_V_OID:
			/* an enumeration's value (10417's meal context): its nomenclature code */
			if (v->attr_id == MDC_ATTR_ENUM_OBS_VAL_SIMP_OID && num == NULL &&
			    c == TP_AE_WHOLE) {
				oid = (struct tp_phd_num){.value = v->u.u16, .mantissa = v->u.u16};
				num = &oid;
			}
			break;
		case TP_PHD_V_SFLOAT:
		case TP_PHD_V_FLOAT:
			if (num == NULL && c == TP_AE_WHOLE)
				num = &v->u.num;
			break;
		case TP_PHD_V_NU_OBS:
			if (num == NULL && c == TP_AE_WHOLE) {
				num = &v->u.nu.num;
				has_unit = 1;
				unit = v->u.nu.unit;
			}
			break;
		case TP_PHD_V_SFLOAT_CMP:
		case TP_PHD_V_FLOAT_CMP:
			/* every component is its own metric (register.c) */
			if (num == NULL && c != TP_AE_WHOLE && c < v->n)
				num = &v->u.cmp[c];
			break;
		case TP_PHD_V_NU_OBS_CMP:
			if (num == NULL && c != TP_AE_WHOLE && c < v->n) {
				num = &v->u.nu_cmp[c].num;
				has_unit = 1;
				unit = v->u.nu_cmp[c].unit;
			}
			break;
		case TP_PHD_V_ABS_TIME:
			if (t == NULL)
				t = &v->u.abs;
			break;
		default:
			break;
		}
	}
	reading_set(r, num, has_unit, unit, t, unit_buf, unit_len);
}

/* The same from a fixed observation read at mt's layout: 0, or a decode error. */
static int reading_fixed(struct reading *r, const struct tp_ae_metric *mt,
			 const struct tp_phd_observation *o, char *unit_buf, size_t unit_len)
{
	struct tp_phd_fixed_reading fr;

	if (tp_phd_fixed_read(&mt->lay, o->data.p, o->data.len, mt->component, &fr, NULL) < 0)
		return -1;
	reading_set(r, fr.has_num ? &fr.num : NULL,
		    mt->lay.num_kind == TP_PHD_V_NU_OBS || mt->lay.num_kind == TP_PHD_V_NU_OBS_CMP,
		    fr.unit, fr.has_time ? &fr.time : NULL, unit_buf, unit_len);
	return 0;
}

/* The same object observed with the same bytes earlier in this report: a repeat. */
static int repeated(const struct tp_phd_scan_report *sr, unsigned int i)
{
	const struct tp_phd_observation *o = &sr->obs[i];

	for (unsigned int j = 0; j < i; j++) {
		const struct tp_phd_observation *p = &sr->obs[j];
		if (p->handle != o->handle)
			continue;
		if (sr->form == TP_PHD_SCAN_FIXED) {
			if (p->data.len == o->data.len &&
			    memcmp(p->data.p, o->data.p, o->data.len) == 0)
				return 1;
		} else if (p->nattrs == o->nattrs) {
			unsigned int a = 0;
			for (; a < o->nattrs; a++) {
				const struct tp_phd_ava *x = &sr->attr[p->attr_first + a];
				const struct tp_phd_ava *y = &sr->attr[o->attr_first + a];
				if (x->id != y->id || x->val.len != y->val.len ||
				    memcmp(x->val.p, y->val.p, x->val.len) != 0)
					break;
			}
			if (a == o->nattrs)
				return 1;
		}
	}
	return 0;
}

/* Every value of observation o by the generic decoder: their number (0 when none
 * decodes), or a negative error. */
static int decode_values(const struct tp_ae *ae, const struct tp_phd_scan_report *sr,
			 const struct tp_phd_observation *o, struct tp_phd_value *vals,
			 struct tp_phd_error *err)
{
	int n = 0;

	if (sr->form == TP_PHD_SCAN_FIXED) {
		const struct tp_phd_obj_map *om = tp_phd_value_map_find(&ae->map, o->handle);
		return om ? tp_phd_fixed_values(om, o->data.p, o->data.len, vals, err) : -1;
	}
	for (unsigned int a = 0; a < o->nattrs && n < TP_PHD_MAX_AVM; a++) {
		const struct tp_phd_ava *ava = &sr->attr[o->attr_first + a];
		if (tp_phd_attr_value_decode(ava->id, ava->val.p, ava->val.len, &vals[n], err) == 0)
			n++;
	}
	return n;
}

/* One measurement of metric mt from reading r, if it has a value. */
static void reading_emit(struct tp_iotgw_dp *dp, const struct tp_ae *ae,
			 const struct tp_ae_metric *mt, const struct reading *r,
			 tp_iotgw_emit_fn emit, void *ctx)
{
	if (!r->has_value)
		return;
	struct tp_m2m_measure meas = {
	    .value = r->value[0] ? r->value : NULL,
	    .unit = r->unit ? r->unit : (mt->unit[0] ? mt->unit : NULL),
	    .time = r->has_time ? r->time : NULL,
	};
	emit(ctx, dp, ae, mt, &meas);
}

/* Convert every observation of a scan report: one emit() per metric of the observed
 * object (a compound's components are metrics of their own). An observation
 * repeated with the same bytes in one report is stored once; an object observed
 * twice with different values or times is stored twice, once per observation.
 * A fixed observation of an object with a layout (every standard configuration's)
 * is read at its metrics' offsets; any other is decoded whole. */
static void convert(struct tp_iotgw_dp *dp, const struct tp_ae *ae,
		    const struct tp_phd_scan_report *sr, tp_iotgw_emit_fn emit, void *ctx)
{
	struct tp_phd_value vals[TP_PHD_MAX_AVM];
	struct tp_phd_error err;
	char unit_buf[16];

	for (unsigned int i = 0; i < sr->nobs; i++) {
		const struct tp_phd_observation *o = &sr->obs[i];
		int n = 0, found = 0, decoded = 0, bad = 0;

		if (sr->form == TP_PHD_SCAN_GROUPED)
			continue; /* needs the scanner's handle map: not converted */
		if (repeated(sr, i)) {
			dp->ctr[TP_IOTGW_REPEATED_OBS]++;
			continue;
		}
		for (unsigned int m = 0; m < ae->n_metrics; m++) {
			const struct tp_ae_metric *mt = &ae->metric[m];
			struct reading r;

			if (mt->handle != o->handle)
				continue;
			found = 1;
			r.unit = NULL;
			r.has_value = r.has_time = 0;
			if (sr->form == TP_PHD_SCAN_FIXED && mt->fixed) {
				if ((bad =
					 reading_fixed(&r, mt, o, unit_buf, sizeof(unit_buf)) < 0))
					break;
			} else {
				if (!decoded) {
					decoded = 1;
					n = decode_values(ae, sr, o, vals, &err);
				}
				if ((bad = n <= 0))
					break;
				reading_of(&r, mt, vals, n, unit_buf, sizeof(unit_buf));
			}
			reading_emit(dp, ae, mt, &r, emit, ctx);
		}
		if (!found)
			dp->ctr[TP_IOTGW_UNKNOWN_OBJ]++;
		else if (bad)
			dp->ctr[TP_IOTGW_DECODE_ERR]++;
	}
}

/* Start loading what a report of agent idx reads (its entry's state, the first
 * metrics with their value layouts and request templates, the worker's duplicate
 * and last-seen slot) while the APDU is decoded: the table
 * is far bigger than the caches and a report finds its agent's lines cold.
 * Measured with bench/iotgw.py (memif, 1,000 agents): without it, the first
 * reads of the entry and of a metric stalled for most of the report path's cycles. */
static void ae_prefetch(const struct tp_iotgw_dp *dp, int idx)
{
	const struct tp_ae *ae = &tp_ae_table[idx];

	__builtin_prefetch(ae);
	for (unsigned int m = 0; m < 2; m++) {
		const char *mt = (const char *)&ae->metric[m];
		for (size_t off = 0; off < offsetof(struct tp_ae_metric, label); off += 64)
			__builtin_prefetch(mt + off);
	}
	__builtin_prefetch(&dp->agent[idx]);
}

static enum tp_iotgw_verdict report(struct tp_iotgw_dp *dp, const uint8_t *apdu, size_t len,
				    uint32_t ip, uint16_t port, struct tp_phd_apdu *a,
				    tp_iotgw_emit_fn emit, void *ctx, enum tp_iotgw_ctr *drop)
{
	struct tp_phd_scan_report sr;
	struct tp_phd_error err;
	enum tp_phd_scan_form form;
	int multi, idx = -1;

	/* a report of a known agent: its entry loads while the APDU is decoded */
	if (len >= 4 && apdu[0] == (TP_PHD_PRST >> 8) && (idx = tp_ae_lookup(ip, port)) >= 0)
		ae_prefetch(dp, idx);
	/* signaling (AARQ, RLRQ, ABRT, configuration...) belongs to the session manager */
	if (len < 4 || apdu[0] != (TP_PHD_PRST >> 8) ||
	    tp_phd_decode_apdu(apdu, len, a, &err) < 0 ||
	    (a->u.prst.choice != TP_PHD_ROIV_EVENT_REPORT &&
	     a->u.prst.choice != TP_PHD_ROIV_CONF_EVENT_REPORT) ||
	    tp_phd_scan_kind(a->u.prst.u.evt.type, &form, &multi) < 0)
		return TP_IOTGW_V_SIGNALING;
	dp->ctr[TP_IOTGW_REPORTS]++;
	if (idx < 0) {
		*drop = TP_IOTGW_UNASSOCIATED;
		return TP_IOTGW_V_DROP;
	}
	const struct tp_ae *ae = &tp_ae_table[idx];
	if (__builtin_expect(ae->l2src != dp->l2src, 0) && ae->l2src != 0 && dp->l2src != 0) {
		/* the agent's address and port from another port or MAC: not the agent */
		*drop = TP_IOTGW_SPOOFED;
		return TP_IOTGW_V_DROP;
	}
	uint8_t state = __atomic_load_n(&ae->state, __ATOMIC_ACQUIRE);
	if (state != TP_AE_READY) {
		if (dp->early && (state == TP_AE_QUERYING || state == TP_AE_REGISTERING)) {
			/* configured, its AE not made yet: held on the control plane */
			dp->ctr[TP_IOTGW_EARLY]++;
			return TP_IOTGW_V_SIGNALING;
		}
		*drop = TP_IOTGW_NOT_READY;
		return TP_IOTGW_V_DROP;
	}
	dp->agent[idx].seen = tp_iotgw_now_s;
	if (dp->defer)
		return TP_IOTGW_V_SIGNALING; /* confirmed delivery: the control plane's */
	int confirmed = a->u.prst.choice == TP_PHD_ROIV_CONF_EVENT_REPORT;
	uint32_t tag = (uint32_t)ae->gen << 16 | (uint16_t)(a->u.prst.invoke_id + 1);
	if (confirmed && dp->agent[idx].invoke == tag) {
		/* a retransmission: answer again, forward nothing twice */
		dp->ctr[TP_IOTGW_DUPLICATES]++;
		return TP_IOTGW_V_ANSWER;
	}
	if (tp_phd_decode_scan_report(a->u.prst.u.evt.type, a->u.prst.u.evt.info.p,
				      a->u.prst.u.evt.info.len, &sr, &err) < 0) {
		*drop = TP_IOTGW_DECODE_ERR;
		return TP_IOTGW_V_DROP;
	}
	convert(dp, ae, &sr, emit, ctx);
	if (!confirmed)
		return TP_IOTGW_V_DONE;
	dp->agent[idx].invoke = tag;
	return TP_IOTGW_V_ANSWER;
}

/* A cycle count for `iotgw profile` (no DPDK here: the socket gateway links this file
 * too): the TSC on x86-64; elsewhere CLOCK_MONOTONIC's nanoseconds (vDSO, no system
 * call), so the profile's "cycles" are nanoseconds there. */
static inline uint64_t report_cycles(void)
{
#if defined(__x86_64__)
	return __rdtsc();
#else
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
#endif
}

enum tp_iotgw_verdict tp_iotgw_report(struct tp_iotgw_dp *dp, const uint8_t *apdu, size_t len,
				      uint32_t ip, uint16_t port, struct tp_phd_apdu *a,
				      tp_iotgw_emit_fn emit, void *ctx, enum tp_iotgw_ctr *drop)
{
	if (!tp_iotgw.profile)
		return report(dp, apdu, len, ip, port, a, emit, ctx, drop);
	uint64_t t0 = report_cycles();
	enum tp_iotgw_verdict v = report(dp, apdu, len, ip, port, a, emit, ctx, drop);
	dp->proc_cycles += report_cycles() - t0;
	return v;
}

/* "w<worker>-<n>" without printf (it is per request on the worker) */
static size_t rqi_format(char out[24], unsigned int id, uint32_t n)
{
	char d[10];
	size_t k = 0, i = 0;

	out[i++] = 'w';
	do
		d[k++] = (char)('0' + id % 10);
	while ((id /= 10) != 0 && k < 3);
	while (k)
		out[i++] = d[--k];
	out[i++] = '-';
	do
		d[k++] = (char)('0' + n % 10);
	while ((n /= 10) != 0);
	while (k)
		out[i++] = d[--k];
	out[i] = '\0';
	return i;
}

int tp_iotgw_cin_request(struct tp_iotgw_dp *dp, uint8_t *buf, size_t cap, const struct tp_ae *ae,
			 const struct tp_ae_metric *mt, const struct tp_m2m_measure *meas)
{
	char rqi[24];
	uint16_t mid = dp->mid++;
	uint8_t tok[TP_IOTGW_CIN_TKL];
	size_t rl = rqi_format(rqi, dp->id, dp->rqi++);

	memcpy(tok, &mid, 2);
	if (mt->cin.len != 0 && !dp->con) {
		/* the template's options, then RQI and the JSON written in place: one pass */
		struct tp_coap_writer w;
		size_t room;
		tp_m2m_create_from_tmpl(&w, buf, cap, &mt->cin, TP_COAP_NON, mid, tok, rqi, rl);
		uint8_t *p = tp_coap_payload_reserve(&w, &room);
		if (p == NULL)
			return tp_coap_end(&w);
		int jl = tp_m2m_cin_measure_put((char *)p, room, meas);
		if (jl < 0)
			return jl;
		tp_coap_payload_commit(&w, (size_t)jl);
		return tp_coap_end(&w);
	}
	char json[256];
	int jl = tp_m2m_cin_measure_json(json, sizeof(json), meas);
	if (jl < 0)
		return jl;
	struct tp_m2m_create req = tp_iotgw_cin_create(ae, mt);
	if (dp->con) {
		/* confirmed delivery wants the answer, piggybacked on the ACK */
		req.type = TP_COAP_CON;
		req.query = NULL;
	}
	req.mid = mid;
	req.token = tok;
	req.rqi = rqi;
	req.payload = json;
	req.payload_len = (size_t)jl;
	return tp_m2m_create_req(buf, cap, &req);
}

int tp_iotgw_answer(const struct tp_phd_data_apdu *d, uint8_t *buf, size_t cap)
{
	return tp_phd_encode_event_report_rsp(buf, cap, d->invoke_id, d->u.evt.obj_handle,
					      d->u.evt.time, d->u.evt.type);
}
