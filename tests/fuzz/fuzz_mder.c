/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target for the IEEE 11073-20601 codec: decode anything, and whatever decodes must
 * re-encode to the same bytes. Built and run by scripts/fuzz.sh. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/mder.h"

static uint8_t out[70000];

/* A property violation: abort so libFuzzer saves the input. */
static void must(int cond)
{
	if (!cond)
		abort();
}

static void same(int len, const uint8_t *b, size_t n)
{
	must(len == (int)n && memcmp(out, b, n) == 0);
}

/* The error must describe a place inside the input. */
static void check_err(int rc, const struct tp_phd_error *e, const uint8_t *b, size_t n)
{
	if (rc >= 0)
		return;
	char msg[256];

	must(e->code == -rc && e->code > 0 && e->code < TP_PHD_ERR_COUNT);
	if (e->where != NULL)
		must(e->where >= b && e->where <= b + n);
	tp_phd_error_fmt(e, msg, sizeof(msg));
}

static void values_of(const struct tp_phd_ava *ava, size_t n)
{
	struct tp_phd_value v;

	for (size_t i = 0; i < n; i++)
		if (tp_phd_attr_value_decode(ava[i].id, ava[i].val.p, ava[i].val.len, &v, NULL) ==
		    0)
			same(tp_phd_attr_value_encode(&v, out, sizeof(out)), ava[i].val.p,
			     ava[i].val.len);
}

static void fixed_values(const struct tp_phd_value_map *map, const struct tp_phd_scan_report *s)
{
	struct tp_phd_value vals[TP_PHD_MAX_AVM];
	struct tp_phd_error err;

	for (uint16_t i = 0; i < s->nobs; i++) {
		const struct tp_phd_obj_map *om = tp_phd_value_map_find(map, s->obs[i].handle);
		if (om == NULL)
			continue;
		int rc = tp_phd_fixed_values(om, s->obs[i].data.p, s->obs[i].data.len, vals, &err);
		check_err(rc, &err, s->obs[i].data.p, s->obs[i].data.len);
		if (rc >= 0)
			must(rc == om->n);
		/* the report path's precomputed layout fails where the generic decoder fails */
		struct tp_phd_fixed_layout lay;
		struct tp_phd_fixed_reading fr;
		if (tp_phd_fixed_layout_build(om, &lay) < 0)
			continue;
		for (unsigned int c = 0; c <= TP_PHD_MAX_CMP; c++) {
			int rf = tp_phd_fixed_read(&lay, s->obs[i].data.p, s->obs[i].data.len,
						   c == TP_PHD_MAX_CMP ? TP_PHD_FIXED_WHOLE : c,
						   &fr, &err);
			check_err(rf, &err, s->obs[i].data.p, s->obs[i].data.len);
			must((rf < 0) == (rc < 0));
		}
	}
}

/* Event information as the event type says: configuration report, its
 * response, or one of the scan reports. */
static void event_info(uint16_t type, int reply, const uint8_t *b, size_t n,
		       const struct tp_phd_value_map *map)
{
	static struct tp_phd_config_report c;
	static struct tp_phd_scan_report s;
	static struct tp_phd_value_map m;
	struct tp_phd_config_rsp r;
	struct tp_phd_error err;
	int rc;

	if (type == MDC_NOTI_CONFIG && reply) {
		rc = tp_phd_decode_config_rsp(b, n, &r, &err);
		check_err(rc, &err, b, n);
		if (rc == 0)
			same(tp_phd_encode_config_rsp(&r, out, sizeof(out)), b, n);
	} else if (type == MDC_NOTI_CONFIG) {
		rc = tp_phd_decode_config_report(b, n, &c, &err);
		check_err(rc, &err, b, n);
		if (rc == 0) {
			same(tp_phd_encode_config_report(&c, out, sizeof(out)), b, n);
			for (uint16_t i = 0; i < c.nobjs; i++)
				values_of(c.obj[i].attrs.ava, c.obj[i].attrs.count);
			tp_phd_value_map_build(&c, &m, NULL);
		}
	} else if (!reply) {
		rc = tp_phd_decode_scan_report(type, b, n, &s, &err);
		check_err(rc, &err, b, n);
		if (rc == 0) {
			same(tp_phd_encode_scan_report(&s, out, sizeof(out)), b, n);
			values_of(s.attr, s.nattrs);
			if (s.form == TP_PHD_SCAN_FIXED)
				fixed_values(map, &s);
		}
	}
}

/* The arguments of the actions 20601 types (data request and its answer, set time):
 * whatever decodes re-encodes to the same bytes. */
static void action_args(const struct tp_phd_data_apdu *d)
{
	const struct tp_phd_action *a = &d->u.action;
	struct tp_phd_data_request q;
	struct tp_phd_data_response r;
	struct tp_phd_set_time t;
	struct tp_phd_error err;
	int rc;

	if (a->type == MDC_ACT_DATA_REQUEST && d->choice != TP_PHD_RORS_CONF_ACTION) {
		rc = tp_phd_decode_data_request(a->args.p, a->args.len, &q, &err);
		check_err(rc, &err, a->args.p, a->args.len);
		if (rc == 0)
			same(tp_phd_encode_data_request(&q, out, sizeof(out)), a->args.p,
			     a->args.len);
	} else if (a->type == MDC_ACT_DATA_REQUEST) {
		rc = tp_phd_decode_data_response(a->args.p, a->args.len, &r, &err);
		check_err(rc, &err, a->args.p, a->args.len);
		if (rc == 0)
			same(tp_phd_encode_data_response(&r, out, sizeof(out)), a->args.p,
			     a->args.len);
	} else if (a->type == MDC_ACT_SET_TIME && d->choice != TP_PHD_RORS_CONF_ACTION) {
		rc = tp_phd_decode_set_time(a->args.p, a->args.len, &t, &err);
		check_err(rc, &err, a->args.p, a->args.len);
		if (rc == 0)
			same(tp_phd_encode_set_time(&t, out, sizeof(out)), a->args.p, a->args.len);
	}
}

static const uint16_t event_types[] = {
    MDC_NOTI_CONFIG,
    MDC_NOTI_SCAN_REPORT_FIXED,
    MDC_NOTI_SCAN_REPORT_VAR,
    MDC_NOTI_SCAN_REPORT_MP_FIXED,
    MDC_NOTI_SCAN_REPORT_MP_VAR,
    MDC_NOTI_UNBUF_SCAN_REPORT_VAR,
    MDC_NOTI_UNBUF_SCAN_REPORT_FIXED,
    MDC_NOTI_UNBUF_SCAN_REPORT_GROUPED,
    MDC_NOTI_UNBUF_SCAN_REPORT_MP_VAR,
    MDC_NOTI_UNBUF_SCAN_REPORT_MP_FIXED,
    MDC_NOTI_UNBUF_SCAN_REPORT_MP_GROUPED,
    MDC_NOTI_BUF_SCAN_REPORT_VAR,
    MDC_NOTI_BUF_SCAN_REPORT_FIXED,
    MDC_NOTI_BUF_SCAN_REPORT_GROUPED,
    MDC_NOTI_BUF_SCAN_REPORT_MP_VAR,
    MDC_NOTI_BUF_SCAN_REPORT_MP_FIXED,
    MDC_NOTI_BUF_SCAN_REPORT_MP_GROUPED,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tp_phd_value_map std, all[8];
	static struct tp_phd_apdu a;
	static unsigned int nstd;
	static int init;
	struct tp_phd_error err;
	struct tp_phd_value v;
	struct tp_phd_num num;
	char buf[64];
	int rc;

	if (!init) {
		must(tp_phd_std_value_map(0x0190, &std) == 0);
		for (nstd = 0; tp_phd_std_config_id(nstd) != 0 && nstd < 8; nstd++)
			must(tp_phd_std_value_map(tp_phd_std_config_id(nstd), &all[nstd]) == 0);
		init = 1;
	}

	/* 1. the input as an APDU, decoded deep, against a standard configuration (the
	 * last byte picks which) */
	rc = tp_phd_check(data, size, size ? &all[data[size - 1] % nstd] : &std, &err);
	check_err(rc, &err, data, size);
	rc = tp_phd_decode_apdu(data, size, &a, &err);
	check_err(rc, &err, data, size);
	if (rc == 0) {
		same(tp_phd_encode_apdu(&a, out, sizeof(out)), data, size);
		if (a.type == TP_PHD_AARQ && a.u.aarq.phd_index >= 0)
			values_of(a.u.aarq.phd.option_list.ava, a.u.aarq.phd.option_list.count);
		if (a.type == TP_PHD_PRST && (a.u.prst.choice == TP_PHD_ROIV_EVENT_REPORT ||
					      a.u.prst.choice == TP_PHD_ROIV_CONF_EVENT_REPORT ||
					      a.u.prst.choice == TP_PHD_RORS_CONF_EVENT_REPORT))
			event_info(a.u.prst.u.evt.type,
				   a.u.prst.choice == TP_PHD_RORS_CONF_EVENT_REPORT,
				   a.u.prst.u.evt.info.p, a.u.prst.u.evt.info.len, &std);
		if (a.type == TP_PHD_PRST && (a.u.prst.choice == TP_PHD_ROIV_ACTION ||
					      a.u.prst.choice == TP_PHD_ROIV_CONF_ACTION ||
					      a.u.prst.choice == TP_PHD_RORS_CONF_ACTION))
			action_args(&a.u.prst);
	}
	if (size < 2)
		return 0;

	/* 2. the rest as the event information of the type the first byte picks, so
	 * reports are reached without a valid envelope around them */
	event_info(event_types[data[0] % (sizeof(event_types) / sizeof(event_types[0]))],
		   data[1] & 1, data + 2, size - 2, &std);

	/* 3. the rest as the value of the attribute the first two bytes name */
	uint16_t id = (uint16_t)(data[0] << 8 | data[1]);
	rc = tp_phd_attr_value_decode(id, data + 2, size - 2, &v, &err);
	check_err(rc, &err, data + 2, size - 2);
	if (rc == 0) {
		same(tp_phd_attr_value_encode(&v, out, sizeof(out)), data + 2, size - 2);
		if (v.kind == TP_PHD_V_SFLOAT || v.kind == TP_PHD_V_FLOAT)
			tp_phd_num_fmt(&v.u.num, buf, sizeof(buf));
	}

	/* 4. numbers: a finite value survives encode/decode */
	if (size >= 4) {
		uint32_t raw = (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 |
			       (uint32_t)data[2] << 8 | data[3];
		tp_phd_float_decode(raw, &num);
		tp_phd_num_fmt(&num, buf, sizeof(buf));
		if (num.special == TP_PHD_FINITE) {
			struct tp_phd_num back;
			uint32_t r2;
			if (tp_phd_float_encode(num.value, &r2) == 0) {
				tp_phd_float_decode(r2, &back);
				/* at most the 7 significant digits FLOAT carries change */
				must(back.special == TP_PHD_FINITE);
			}
		}
		tp_phd_sfloat_decode((uint16_t)raw, &num);
		tp_phd_num_fmt(&num, buf, sizeof(buf));
		if (num.special == TP_PHD_FINITE && num.mantissa > -2046 && num.mantissa < 2046) {
			struct tp_phd_num back;
			uint16_t r2;
			must(tp_phd_sfloat_encode(num.value, &r2) == 0);
			tp_phd_sfloat_decode(r2, &back);
			must(back.value == num.value);
		}
	}

	/* 5. names and symbols of any code */
	tp_phd_apdu_name(id);
	tp_phd_choice_name(id);
	tp_phd_assoc_result_name(id);
	tp_phd_release_reason_name(id);
	tp_phd_abort_reason_name(id);
	tp_phd_config_result_name(id);
	tp_phd_error_value_name(id);
	tp_phd_reject_problem_name(id);
	tp_phd_modify_operator_name(id);
	tp_phd_vkind_name(data[0]);
	tp_phd_err_name(data[0]);
	tp_phd_strerror(-(int)data[1]);
	tp_phd_nom_name(data[0], id);
	tp_phd_partition_name(id);
	tp_phd_unit_symbol(id, buf, (size_t)data[0] % sizeof(buf));
	tp_phd_metric_find(data[0], id, id);
	return 0;
}
