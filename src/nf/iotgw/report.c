/* SPDX-License-Identifier: BSD-3-Clause */
/* The report path, transport-free: a PHD datagram -> verdict and measurements.
 * Used on the workers (fast.c), and by the socket gateway (sockgw.c). No
 * allocation, no system call, no lock: the AE table is read as published. */
#include <stdio.h>
#include <string.h>
#include <x86intrin.h>

#include "../../proto/phd_nomenclature.h"
#include "iotgw.h"

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

/* The number metric mt takes from an observation's values: component mt->component of
 * its compound value, or its simple value; and the observation's time stamp. An
 * unset (all-zero) time stamp is the gateway's receive time. */
static void reading_of(struct reading *r, const struct tp_ae_metric *mt,
		       const struct tp_phd_value *vals, int n, char *unit_buf, size_t unit_len)
{
	const struct tp_phd_num *num = NULL;
	unsigned int c = mt->component;

	for (int k = 0; k < n; k++) {
		const struct tp_phd_value *v = &vals[k];
		switch (v->kind) {
		case TP_PHD_V_SFLOAT:
		case TP_PHD_V_FLOAT:
			if (num == NULL && c == TP_AE_WHOLE)
				num = &v->u.num;
			break;
		case TP_PHD_V_NU_OBS:
			if (num == NULL && c == TP_AE_WHOLE) {
				num = &v->u.nu.num;
				r->unit = tp_phd_unit_symbol(v->u.nu.unit, unit_buf, unit_len);
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
				r->unit =
				    tp_phd_unit_symbol(v->u.nu_cmp[c].unit, unit_buf, unit_len);
			}
			break;
		case TP_PHD_V_ABS_TIME:
			if (r->has_time)
				break;
			if (v->u.abs.unset)
				tp_m2m_time_from_epoch(tp_iotgw_wall_s, r->time);
			else
				time_fmt(r->time, &v->u.abs);
			r->has_time = 1;
			break;
		default:
			break;
		}
	}
	if (num == NULL)
		return;
	r->has_value = 1;
	if (num->special != TP_PHD_FINITE ||
	    tp_m2m_decimal(r->value, sizeof(r->value), num->mantissa, num->exponent) < 0)
		r->value[0] = '\0';
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

/* Convert every observation of a scan report: one emit() per metric of the observed
 * object (a compound's components are metrics of their own). An observation
 * repeated with the same bytes in one report is stored once; an object observed
 * twice with different values or times is stored twice, once per observation. */
static void convert(struct tp_iotgw_dp *dp, const struct tp_ae *ae,
		    const struct tp_phd_scan_report *sr, tp_iotgw_emit_fn emit, void *ctx)
{
	struct tp_phd_value vals[TP_PHD_MAX_AVM];
	struct tp_phd_error err;
	char unit_buf[16];

	for (unsigned int i = 0; i < sr->nobs; i++) {
		const struct tp_phd_observation *o = &sr->obs[i];
		int n = 0, found = 0;

		if (sr->form == TP_PHD_SCAN_GROUPED)
			continue; /* needs the scanner's handle map: not converted */
		if (repeated(sr, i)) {
			dp->ctr[TP_IOTGW_REPEATED_OBS]++;
			continue;
		}
		if (sr->form == TP_PHD_SCAN_FIXED) {
			const struct tp_phd_obj_map *om =
			    tp_phd_value_map_find(&ae->map, o->handle);
			n = om ? tp_phd_fixed_values(om, o->data.p, o->data.len, vals, &err) : -1;
		} else {
			for (unsigned int a = 0; a < o->nattrs && n < TP_PHD_MAX_AVM; a++) {
				const struct tp_phd_ava *ava = &sr->attr[o->attr_first + a];
				if (tp_phd_attr_value_decode(ava->id, ava->val.p, ava->val.len,
							     &vals[n], &err) == 0)
					n++;
			}
		}
		for (unsigned int m = 0; m < ae->n_metrics; m++) {
			const struct tp_ae_metric *mt = &ae->metric[m];
			struct reading r = {0};

			if (mt->handle != o->handle)
				continue;
			found = 1;
			if (n <= 0)
				break;
			reading_of(&r, mt, vals, n, unit_buf, sizeof(unit_buf));
			if (!r.has_value)
				continue;
			struct tp_m2m_measure meas = {
			    .value = r.value[0] ? r.value : NULL,
			    .unit = r.unit ? r.unit : (mt->unit[0] ? mt->unit : NULL),
			    .time = r.has_time ? r.time : NULL,
			};
			emit(ctx, dp, ae, mt, &meas);
		}
		if (!found)
			dp->ctr[TP_IOTGW_UNKNOWN_OBJ]++;
		else if (n <= 0)
			dp->ctr[TP_IOTGW_DECODE_ERR]++;
	}
}

static enum tp_iotgw_verdict report(struct tp_iotgw_dp *dp, const uint8_t *apdu, size_t len,
				    uint32_t ip, uint16_t port, struct tp_phd_apdu *a,
				    tp_iotgw_emit_fn emit, void *ctx, enum tp_iotgw_ctr *drop)
{
	struct tp_phd_scan_report sr;
	struct tp_phd_error err;
	enum tp_phd_scan_form form;
	int multi;

	/* signaling (AARQ, RLRQ, ABRT, configuration...) belongs to the session manager */
	if (len < 4 || apdu[0] != (TP_PHD_PRST >> 8) ||
	    tp_phd_decode_apdu(apdu, len, a, &err) < 0 ||
	    (a->u.prst.choice != TP_PHD_ROIV_EVENT_REPORT &&
	     a->u.prst.choice != TP_PHD_ROIV_CONF_EVENT_REPORT) ||
	    tp_phd_scan_kind(a->u.prst.u.evt.type, &form, &multi) < 0)
		return TP_IOTGW_V_SIGNALING;
	dp->ctr[TP_IOTGW_REPORTS]++;
	int idx = tp_ae_lookup(ip, port);
	if (idx < 0) {
		*drop = TP_IOTGW_UNASSOCIATED;
		return TP_IOTGW_V_DROP;
	}
	const struct tp_ae *ae = &tp_ae_table[idx];
	if (__atomic_load_n(&ae->state, __ATOMIC_ACQUIRE) != TP_AE_READY) {
		*drop = TP_IOTGW_NOT_READY;
		return TP_IOTGW_V_DROP;
	}
	dp->last_seen[idx] = tp_iotgw_now_s;
	if (dp->defer)
		return TP_IOTGW_V_SIGNALING; /* confirmed delivery: the control plane's */
	int confirmed = a->u.prst.choice == TP_PHD_ROIV_CONF_EVENT_REPORT;
	uint32_t tag = (uint32_t)ae->gen << 16 | (uint16_t)(a->u.prst.invoke_id + 1);
	if (confirmed && dp->last_invoke[idx] == tag) {
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
	dp->last_invoke[idx] = tag;
	return TP_IOTGW_V_ANSWER;
}

enum tp_iotgw_verdict tp_iotgw_report(struct tp_iotgw_dp *dp, const uint8_t *apdu, size_t len,
				      uint32_t ip, uint16_t port, struct tp_phd_apdu *a,
				      tp_iotgw_emit_fn emit, void *ctx, enum tp_iotgw_ctr *drop)
{
	if (!tp_iotgw.profile)
		return report(dp, apdu, len, ip, port, a, emit, ctx, drop);
	uint64_t t0 = __rdtsc();
	enum tp_iotgw_verdict v = report(dp, apdu, len, ip, port, a, emit, ctx, drop);
	dp->proc_cycles += __rdtsc() - t0;
	return v;
}

/* "w<worker>-<n>" without printf (it is per request on the worker) */
static void rqi_format(char out[24], unsigned int id, uint32_t n)
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
}

int tp_iotgw_cin_request(struct tp_iotgw_dp *dp, uint8_t *buf, size_t cap, const struct tp_ae *ae,
			 const struct tp_ae_metric *mt, const struct tp_m2m_measure *meas)
{
	char json[256], rqi[24];
	uint16_t mid = dp->mid++;
	uint8_t tok[2];
	int jl = tp_m2m_cin_measure_json(json, sizeof(json), meas);

	if (jl < 0)
		return jl;
	memcpy(tok, &mid, 2);
	rqi_format(rqi, dp->id, dp->rqi++);
	struct tp_m2m_create req = {
	    /* rt=5: noResponse (TS-0004 response type): ACME otherwise answers every NON
	     * create, a datagram per reading the gateway has no use for; confirmed
	     * delivery (dp->con) wants the answer, piggybacked on the ACK */
	    .type = dp->con ? TP_COAP_CON : TP_COAP_NON,
	    .mid = mid,
	    .token = tok,
	    .tkl = 2,
	    .path = mt->path,
	    .query = dp->con ? NULL : "rt=5",
	    .ty = TP_M2M_TY_CIN,
	    .from = ae->origin,
	    .rqi = rqi,
	    .payload = json,
	    .payload_len = (size_t)jl,
	};
	return tp_m2m_create_req(buf, cap, &req);
}

int tp_iotgw_answer(const struct tp_phd_data_apdu *d, uint8_t *buf, size_t cap)
{
	return tp_phd_encode_event_report_rsp(buf, cap, d->invoke_id, d->u.evt.obj_handle,
					      d->u.evt.time, d->u.evt.type);
}
