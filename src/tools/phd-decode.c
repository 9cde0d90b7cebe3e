/* SPDX-License-Identifier: BSD-3-Clause */
/* phd-decode: print ISO/IEEE 11073-20601 APDUs given as hex as JSON, one object per APDU. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../proto/json.h"
#include "../proto/mder.h"
#include "../proto/parse.h"

/* ---- JSON: one object per APDU, compact or indented, through the project's one
 * writer (proto/json.h); non-ASCII bytes of octet strings escaped ---- */

static struct tp_json J;

static void j_sep(const char *key)
{
	tp_json_key(&J, key);
}

/* A document ends with its line. */
static void j_close(char c)
{
	tp_json_end(&J, c);
	if (J.depth == 0)
		fputc('\n', J.f);
}

static void j_obj(const char *key)
{
	tp_json_obj(&J, key);
}

static void j_end(void)
{
	j_close('}');
}

static void j_arr(const char *key)
{
	tp_json_arr(&J, key);
}

static void j_end_arr(void)
{
	j_close(']');
}

/* The n bytes at s as a string, bytes >= 0x7f as \u00XX (J.ascii). */
static void j_escaped(const char *s, size_t n)
{
	tp_json_raw(&J, "\"", 1);
	tp_json_esc(&J, s, n);
	tp_json_raw(&J, "\"", 1);
}

static void j_str(const char *key, const char *s)
{
	tp_json_str(&J, key, s);
}

static void j_int(const char *key, long long v)
{
	tp_json_i64(&J, key, v);
}

static void j_raw(const char *key, const char *literal)
{
	tp_json_lit(&J, key, literal);
}

static void j_hex16(const char *key, unsigned v)
{
	char b[8];
	snprintf(b, sizeof(b), "0x%04x", v & 0xffff);
	j_str(key, b);
}

static void j_hex32(const char *key, unsigned long v)
{
	char b[12];
	snprintf(b, sizeof(b), "0x%08lx", v & 0xffffffffUL);
	j_str(key, b);
}

static void j_bytes(const char *key, const uint8_t *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	j_sep(key);
	tp_json_raw(&J, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		char h[2] = {hex[p[i] >> 4], hex[p[i] & 0xf]};
		tp_json_raw(&J, h, 2);
	}
	tp_json_raw(&J, "\"", 1);
}

/* A name when there is one, so output stays stable for unknown codes. */
static void j_name(const char *key, const char *name)
{
	if (name != NULL)
		j_str(key, name);
}

/* ---- the configuration used for fixed observations ---- */

static struct tp_phd_value_map cur_map;
static int have_map;

/* ---- values ---- */

struct bitname {
	uint32_t bit;
	const char *name;
};

static const struct bitname metric_spec_bits[] = {
    {0x8000, "avail-intermittent"},    {0x4000, "avail-stored-data"},	{0x2000, "upd-aperiodic"},
    {0x1000, "msmt-aperiodic"},	       {0x0800, "msmt-phys-ev-id"},	{0x0400, "msmt-btb-metric"},
    {0x0080, "acc-manager-initiated"}, {0x0040, "acc-agent-initiated"}, {0x0008, "cat-manual"},
    {0x0004, "cat-setting"},	       {0x0002, "cat-calculation"},	{0, NULL},
};

static const struct bitname msmt_status_bits[] = {
    {0x8000, "invalid"},	{0x4000, "questionable"},
    {0x2000, "not-available"},	{0x1000, "calibration-ongoing"},
    {0x0800, "test-data"},	{0x0400, "demo-data"},
    {0x0080, "validated-data"}, {0x0040, "early-indication"},
    {0x0020, "msmt-ongoing"},	{0, NULL},
};

static const struct bitname data_req_mode_bits[] = {
    {0x8000, "data-req-supp-stop"},
    {0x0800, "data-req-supp-scope-all"},
    {0x0400, "data-req-supp-scope-class"},
    {0x0200, "data-req-supp-scope-handle"},
    {0x0080, "data-req-supp-mode-single-rsp"},
    {0x0040, "data-req-supp-mode-time-period"},
    {0x0020, "data-req-supp-mode-time-no-limit"},
    {0x0010, "data-req-supp-person-id"},
    {0x0001, "data-req-supp-init-agent"},
    {0, NULL},
};

static void j_bits(const char *key, uint32_t v, const struct bitname *b)
{
	j_arr(key);
	for (; b->name != NULL; b++)
		if (v & b->bit)
			j_str(NULL, b->name);
	j_end_arr();
}

/* A term code of a known partition: number and name. */
static void j_code(const char *key, uint16_t partition, uint16_t code)
{
	const struct tp_phd_nom *n = tp_phd_nom_find(partition, code);
	if (key != NULL)
		j_obj(key);
	else
		j_obj(NULL);
	j_int("partition", partition);
	j_name("partition_name", tp_phd_partition_name(partition));
	j_int("code", code);
	if (n != NULL) {
		j_str("name", n->name);
		j_str("text", n->descr);
	}
	j_end();
}

static void j_unit(uint16_t unit)
{
	char sym[32];
	j_int("unit_code", unit);
	j_name("unit_name", tp_phd_nom_name(MDC_PART_DIM, unit));
	j_name("unit", tp_phd_unit_symbol(unit, sym, sizeof(sym)));
}

static int printable(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isprint(p[i]))
			return 0;
	return 1;
}

/* A number; a special value (NaN, NRes, +-INF: no JSON number) is null with its name
 * beside it: "value": null, "special": "NaN" in an object (key_special for keys
 * other than "value"), {"value": null, "special": "NaN"} as an array element. */
static void j_num(const char *key, const struct tp_phd_num *n)
{
	char b[48], k[48];
	tp_phd_num_fmt(n, b, sizeof(b));
	if (n->special == TP_PHD_FINITE) {
		j_raw(key, b);
	} else if (key == NULL) {
		j_obj(NULL);
		j_raw("value", "null");
		j_str("special", b);
		j_end();
	} else {
		j_raw(key, "null");
		snprintf(k, sizeof(k), "%s", strcmp(key, "value") == 0 ? "special" : key);
		if (strcmp(key, "value") != 0)
			strncat(k, "_special", sizeof(k) - strlen(k) - 1);
		j_str(k, b);
	}
}

/* Now, UTC, as AbsoluteTime prints: what a manager uses for an unset time. */
static void j_receive_time(const char *key)
{
	char b[64];
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	snprintf(b, sizeof(b), "%04d-%02d-%02dT%02d:%02d:%02d.00", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	j_str(key, b);
}

/* An octet string as text when it is printable, else as hex. */
static void j_text(const char *key, const struct tp_phd_octets *o)
{
	if (printable(o->p, o->len)) {
		j_sep(key);
		j_escaped((const char *)o->p, o->len);
	} else {
		j_bytes(key, o->p, o->len);
	}
}

static void j_nu_obs(const struct tp_phd_nu_obs *nu)
{
	j_code("metric", MDC_PART_SCADA, nu->metric_id);
	j_hex16("state", nu->state);
	j_bits("state_bits", nu->state, msmt_status_bits);
	j_unit(nu->unit);
	j_num("value", &nu->num);
}

/* One attribute value; unit is the object's unit code for numerics (0: none). */
static void j_value(const struct tp_phd_value *v, uint16_t unit)
{
	char b[64];

	j_str("type", tp_phd_vkind_name(v->kind));
	switch (v->kind) {
	case TP_PHD_V_SFLOAT:
	case TP_PHD_V_FLOAT:
		j_num("value", &v->u.num);
		if (unit)
			j_unit(unit);
		break;
	case TP_PHD_V_NU_OBS:
		j_obj("value");
		j_nu_obs(&v->u.nu);
		j_end();
		break;
	case TP_PHD_V_SFLOAT_CMP:
	case TP_PHD_V_FLOAT_CMP:
		j_arr("value");
		for (int i = 0; i < v->n; i++)
			j_num(NULL, &v->u.cmp[i]);
		j_end_arr();
		if (unit)
			j_unit(unit);
		break;
	case TP_PHD_V_NU_OBS_CMP:
		j_arr("value");
		for (int i = 0; i < v->n; i++) {
			j_obj(NULL);
			j_nu_obs(&v->u.nu_cmp[i]);
			j_end();
		}
		j_end_arr();
		break;
	case TP_PHD_V_ABS_TIME:
		if (v->u.abs.unset) {
			/* all zero: the agent's clock is not set; a manager uses its own */
			j_receive_time("value");
			j_raw("unset", "true");
			j_str("time_source", "receive");
			break;
		}
		tp_phd_abs_time_fmt(&v->u.abs, b, sizeof(b));
		j_str("value", b);
		break;
	case TP_PHD_V_OID_LIST:
		j_arr("value");
		for (int i = 0; i < v->n; i++)
			j_code(NULL, MDC_PART_SCADA, v->u.oid[i]);
		j_end_arr();
		break;
	case TP_PHD_V_MODEL:
		j_text("manufacturer", &v->u.model.manufacturer);
		j_text("model_number", &v->u.model.model_number);
		break;
	case TP_PHD_V_TYPEVER:
		j_arr("value");
		for (int i = 0; i < v->n; i++) {
			j_obj(NULL);
			j_code("type", MDC_PART_INFRA, v->u.tv[i].type);
			j_int("version", v->u.tv[i].version);
			j_end();
		}
		j_end_arr();
		break;
	case TP_PHD_V_PROD_SPEC: {
		static const char *const spec_names[] = {
		    "unspecified", "serial-number", "part-number",	 "hw-revision",
		    "sw-revision", "fw-revision",   "protocol-revision", "prod-spec-gmdn"};
		j_arr("value");
		for (int i = 0; i < v->n; i++) {
			j_obj(NULL);
			j_int("spec_type", v->u.spec[i].spec_type);
			if (v->u.spec[i].spec_type < 8)
				j_str("spec_type_name", spec_names[v->u.spec[i].spec_type]);
			j_int("component_id", v->u.spec[i].component_id);
			j_text("prod_spec", &v->u.spec[i].prod_spec);
			j_end();
		}
		j_end_arr();
		break;
	}
	case TP_PHD_V_REL_TIME:
		j_int("value", v->u.u32);
		if (v->u.u32 != TP_PHD_TIME_NONE) {
			snprintf(b, sizeof(b), "%.6f", v->u.u32 / 8000.0);
			j_raw("seconds", b); /* 1/8 ms ticks */
		}
		break;
	case TP_PHD_V_HIRES_TIME:
		j_int("value", (long long)v->u.u64);
		j_str("resolution", "us");
		break;
	case TP_PHD_V_OID:
		if (v->attr_id == MDC_ATTR_UNIT_CODE) {
			j_int("value", v->u.u16);
			j_unit(v->u.u16);
		} else {
			j_code("value", MDC_PART_SCADA, v->u.u16);
		}
		break;
	case TP_PHD_V_U16:
		j_int("value", v->u.u16);
		break;
	case TP_PHD_V_BITS16:
		j_hex16("value", v->u.u16);
		if (v->attr_id == MDC_ATTR_METRIC_SPEC_SMALL)
			j_bits("bits", v->u.u16, metric_spec_bits);
		else if (v->attr_id == MDC_ATTR_MSMT_STAT)
			j_bits("bits", v->u.u16, msmt_status_bits);
		break;
	case TP_PHD_V_BITS32:
		j_hex32("value", v->u.u32);
		break;
	case TP_PHD_V_TYPE:
		j_code("value", v->u.type.partition, v->u.type.code);
		break;
	case TP_PHD_V_AVM:
		j_arr("value");
		for (int i = 0; i < v->n; i++) {
			j_obj(NULL);
			j_int("id", v->u.avm[i].attr_id);
			j_name("name", tp_phd_nom_name(MDC_PART_OBJ, v->u.avm[i].attr_id));
			j_int("len", v->u.avm[i].len);
			j_end();
		}
		j_end_arr();
		break;
	case TP_PHD_V_STRING:
		if (v->attr_id != MDC_ATTR_SYS_ID && printable(v->u.oct.p, v->u.oct.len)) {
			j_sep("value");
			j_escaped((const char *)v->u.oct.p, v->u.oct.len);
		} else {
			j_bytes("hex", v->u.oct.p, v->u.oct.len);
		}
		break;
	default:
		j_bytes("hex", v->u.oct.p, v->u.oct.len);
	}
}

/* An AVA; its value has been checked by tp_phd_check already. */
static void j_ava(const struct tp_phd_ava *a, uint16_t unit)
{
	struct tp_phd_value v;

	j_obj(NULL);
	j_int("id", a->id);
	j_name("name", tp_phd_nom_name(MDC_PART_OBJ, a->id));
	if (tp_phd_attr_value_decode(a->id, a->val.p, a->val.len, &v, NULL) == 0)
		j_value(&v, unit);
	else
		j_bytes("hex", a->val.p, a->val.len);
	j_end();
}

static void j_avas(const char *key, const struct tp_phd_ava *a, size_t n, uint16_t unit)
{
	j_arr(key);
	for (size_t i = 0; i < n; i++)
		j_ava(&a[i], unit);
	j_end_arr();
}

/* ---- association ---- */

static void j_assoc_info(const char *key, const struct tp_phd_assoc_info *ai)
{
	static const struct bitname enc_bits[] = {
	    {TP_PHD_ENC_MDER, "MDER"}, {TP_PHD_ENC_XER, "XER"}, {TP_PHD_ENC_PER, "PER"}, {0, NULL}};
	static const struct bitname fu_bits[] = {
	    {TP_PHD_FUN_UNIDIRECTIONAL, "unidirectional"},
	    {TP_PHD_FUN_HAVE_TEST_CAP, "have-test-cap"},
	    {TP_PHD_FUN_CREATE_TEST_ASSOC, "create-test-assoc"},
	    {0, NULL}};
	static const struct bitname pv_bits[] = {{TP_PHD_PROTOCOL_VERSION1, "version1"},
						 {TP_PHD_PROTOCOL_VERSION2, "version2"},
						 {TP_PHD_PROTOCOL_VERSION3, "version3"},
						 {0, NULL}};
	const char *sys = ai->system_type == TP_PHD_SYS_TYPE_AGENT     ? "agent"
			  : ai->system_type == TP_PHD_SYS_TYPE_MANAGER ? "manager"
								       : NULL;
	uint16_t id = ai->dev_config_id;

	j_obj(key);
	j_hex32("protocol_version", ai->protocol_version);
	j_bits("protocol_versions", ai->protocol_version, pv_bits);
	j_hex16("encoding_rules", ai->encoding_rules);
	j_bits("encodings", ai->encoding_rules, enc_bits);
	j_hex32("nomenclature_version", ai->nomenclature_version);
	j_hex32("functional_units", ai->functional_units);
	j_bits("functional_unit_bits", ai->functional_units, fu_bits);
	j_hex32("system_type", ai->system_type);
	j_name("system_type_name", sys);
	j_bytes("system_id", ai->system_id.p, ai->system_id.len);
	j_int("dev_config_id", id);
	j_hex16("dev_config_id_hex", id);
	j_str("dev_config_kind", id == 0			? "manager-config-response"
				 : id <= TP_PHD_CONFIG_STD_LAST ? "standard"
				 : id <= TP_PHD_CONFIG_EXT_LAST ? "extended"
								: "reserved");
	j_hex16("data_req_mode_flags", ai->data_req_mode_flags);
	j_bits("data_req_mode", ai->data_req_mode_flags, data_req_mode_bits);
	j_int("data_req_init_agent_count", ai->data_req_init_agent_count);
	j_int("data_req_init_manager_count", ai->data_req_init_manager_count);
	j_avas("option_list", ai->option_list.ava, ai->option_list.count, 0);
	j_end();
}

static void j_aarq(const struct tp_phd_aarq *a)
{
	j_hex32("assoc_version", a->assoc_version);
	j_arr("data_protos");
	for (int i = 0; i < a->nprotos; i++) {
		j_obj(NULL);
		j_int("data_proto_id", a->proto[i].id);
		if (i == a->phd_index)
			j_assoc_info("phd_association_information", &a->phd);
		else
			j_bytes("data_proto_info", a->proto[i].info.p, a->proto[i].info.len);
		j_end();
	}
	j_end_arr();
}

static void j_aare(const struct tp_phd_aare *a)
{
	j_int("result", a->result);
	j_name("result_name", tp_phd_assoc_result_name(a->result));
	j_obj("selected_data_proto");
	j_int("data_proto_id", a->proto.id);
	if (a->has_phd)
		j_assoc_info("phd_association_information", &a->phd);
	else
		j_bytes("data_proto_info", a->proto.info.p, a->proto.info.len);
	j_end();
}

/* ---- event reports ---- */

static void j_config_report(const uint8_t *p, size_t n)
{
	static struct tp_phd_config_report c;
	uint16_t id;

	if (tp_phd_decode_config_report(p, n, &c, NULL) < 0)
		return;
	id = c.config_report_id;
	j_obj("config_report");
	j_int("config_report_id", id);
	j_hex16("config_report_id_hex", id);
	j_str("config_kind", id <= TP_PHD_CONFIG_STD_LAST ? "standard" : "extended");
	j_arr("objects");
	for (int i = 0; i < c.nobjs; i++) {
		const struct tp_phd_config_object *o = &c.obj[i];
		uint16_t unit = 0;

		for (int k = 0; k < o->attrs.count; k++)
			if (o->attrs.ava[k].id == MDC_ATTR_UNIT_CODE &&
			    o->attrs.ava[k].val.len == 2)
				unit = (uint16_t)(o->attrs.ava[k].val.p[0] << 8 |
						  o->attrs.ava[k].val.p[1]);
		j_obj(NULL);
		j_int("obj_class", o->obj_class);
		j_name("obj_class_name", tp_phd_nom_name(MDC_PART_OBJ, o->obj_class));
		j_int("obj_handle", o->handle);
		j_avas("attributes", o->attrs.ava, o->attrs.count, unit);
		j_end();
	}
	j_end_arr();
	j_end();
	/* later scan reports in the input use this configuration */
	if (tp_phd_value_map_build(&c, &cur_map, NULL) == 0)
		have_map = 1;
}

static void j_metric(const struct tp_phd_obj_map *om)
{
	const struct tp_phd_metric *m;
	char label[32];

	if (om == NULL || (om->type_partition == 0 && om->type_code == 0))
		return;
	j_code("metric", om->type_partition, om->type_code);
	m = tp_phd_metric_find(om->type_partition, om->type_code, om->unit);
	if (m != NULL)
		j_str("device", m->device);
	/* the container name a gateway gives it */
	j_str("label", tp_phd_metric_label(om->type_partition, om->type_code, om->unit, label,
					   sizeof(label)));
}

/* A compound value's components under their metric ids (MetricIdList) and names. */
static void j_components(const struct tp_phd_obj_map *om, const struct tp_phd_value *v)
{
	char label[32];

	if (v->kind != TP_PHD_V_SFLOAT_CMP && v->kind != TP_PHD_V_FLOAT_CMP)
		return;
	j_arr("components");
	for (int i = 0; i < v->n; i++) {
		uint16_t id = i < om->ncmp ? om->cmp_id[i] : 0;
		j_obj(NULL);
		if (id) {
			j_code("metric", MDC_PART_SCADA, id);
			j_str("label", tp_phd_metric_label(MDC_PART_SCADA, id, om->unit, label,
							   sizeof(label)));
		}
		j_num("value", &v->u.cmp[i]);
		j_end();
	}
	j_end_arr();
}

static void j_observation(const struct tp_phd_scan_report *s, const struct tp_phd_observation *o)
{
	const struct tp_phd_obj_map *om =
	    have_map ? tp_phd_value_map_find(&cur_map, o->handle) : NULL;
	struct tp_phd_value vals[TP_PHD_MAX_AVM];
	uint16_t unit = om ? om->unit : 0;

	j_obj(NULL);
	if (s->form == TP_PHD_SCAN_GROUPED) {
		j_bytes("obs_scan_grouped", o->data.p, o->data.len);
		j_end();
		return;
	}
	j_int("obj_handle", o->handle);
	j_metric(om);
	if (s->form == TP_PHD_SCAN_VAR) {
		j_avas("attributes", &s->attr[o->attr_first], o->nattrs, unit);
	} else if (om != NULL && tp_phd_fixed_values(om, o->data.p, o->data.len, vals, NULL) >= 0) {
		j_arr("attributes");
		for (int i = 0; i < om->n; i++) {
			j_obj(NULL);
			j_int("id", vals[i].attr_id);
			j_name("name", tp_phd_nom_name(MDC_PART_OBJ, vals[i].attr_id));
			j_value(&vals[i], unit);
			j_components(om, &vals[i]);
			j_end();
		}
		j_end_arr();
	} else {
		/* no layout for it: a handle the configuration does not declare */
		if (have_map && om == NULL)
			j_raw("undeclared", "true");
		j_bytes("obs_val_data", o->data.p, o->data.len);
	}
	j_end();
}

static void j_scan_report(uint16_t type, const uint8_t *p, size_t n)
{
	static struct tp_phd_scan_report s;

	if (tp_phd_decode_scan_report(type, p, n, &s, NULL) < 0)
		return;
	j_obj("scan_report");
	j_hex16("data_req_id", s.data_req_id);
	if (s.data_req_id == TP_PHD_DATA_REQ_ID_AGENT_INIT)
		j_str("data_req", "agent-initiated");
	j_int("scan_report_no", s.scan_report_no);
	if (s.form == TP_PHD_SCAN_FIXED && have_map) {
		j_hex16("config_used", cur_map.config_id);
		/* the handles it reports that the configuration does not declare, once each */
		int n = 0;
		for (int i = 0; i < s.nobs; i++) {
			uint16_t h = s.obs[i].handle;
			int seen = tp_phd_value_map_find(&cur_map, h) != NULL;
			for (int k = 0; k < i && !seen; k++)
				seen = s.obs[k].handle == h;
			if (seen)
				continue;
			if (n++ == 0)
				j_arr("undeclared_handles");
			j_int(NULL, h);
		}
		if (n)
			j_end_arr();
	}
	if (!s.multi_person) {
		j_arr("observations");
		for (int i = 0; i < s.nobs; i++)
			j_observation(&s, &s.obs[i]);
		j_end_arr();
	} else {
		j_arr("persons");
		for (int k = 0; k < s.npersons; k++) {
			j_obj(NULL);
			j_int("person_id", s.person[k].person_id);
			j_arr("observations");
			for (int i = 0; i < s.person[k].nobs; i++)
				j_observation(&s, &s.obs[s.person[k].obs_first + i]);
			j_end_arr();
			j_end();
		}
		j_end_arr();
	}
	j_end();
}

static void j_event(const struct tp_phd_data_apdu *d)
{
	const struct tp_phd_event_report *e = &d->u.evt;
	int result = d->choice == TP_PHD_RORS_CONF_EVENT_REPORT;

	j_int("obj_handle", e->obj_handle);
	j_int(result ? "current_time" : "event_time", e->time);
	j_int("event_type", e->type);
	j_name("event_type_name", tp_phd_nom_name(MDC_PART_OBJ, e->type));
	if (e->type == MDC_NOTI_CONFIG && result) {
		struct tp_phd_config_rsp r;
		if (tp_phd_decode_config_rsp(e->info.p, e->info.len, &r, NULL) == 0) {
			j_obj("config_report_rsp");
			j_int("config_report_id", r.config_report_id);
			j_hex16("config_report_id_hex", r.config_report_id);
			j_int("config_result", r.result);
			j_name("config_result_name", tp_phd_config_result_name(r.result));
			j_end();
		}
	} else if (e->type == MDC_NOTI_CONFIG) {
		j_config_report(e->info.p, e->info.len);
	} else if (!result && tp_phd_scan_kind(e->type, NULL, NULL) == 0) {
		j_scan_report(e->type, e->info.p, e->info.len);
	} else {
		j_bytes(result ? "event_reply_info" : "event_info", e->info.p, e->info.len);
	}
}

static void j_action(const struct tp_phd_action *a)
{
	j_int("obj_handle", a->obj_handle);
	j_int("action_type", a->type);
	j_name("action_type_name", tp_phd_nom_name(MDC_PART_OBJ, a->type));
	j_bytes("action_info_args", a->args.p, a->args.len);
}

static void j_prst(const struct tp_phd_data_apdu *d)
{
	j_int("invoke_id", d->invoke_id);
	j_obj("message");
	j_hex16("choice", d->choice);
	j_name("choice_name", tp_phd_choice_name(d->choice));
	switch (d->choice) {
	case TP_PHD_ROIV_EVENT_REPORT:
	case TP_PHD_ROIV_CONF_EVENT_REPORT:
	case TP_PHD_RORS_CONF_EVENT_REPORT:
		j_event(d);
		break;
	case TP_PHD_ROIV_GET:
		j_int("obj_handle", d->u.get.obj_handle);
		j_arr("attribute_ids");
		for (int i = 0; i < d->u.get.nids; i++) {
			j_obj(NULL);
			j_int("id", d->u.get.id[i]);
			j_name("name", tp_phd_nom_name(MDC_PART_OBJ, d->u.get.id[i]));
			j_end();
		}
		j_end_arr();
		break;
	case TP_PHD_ROIV_SET:
	case TP_PHD_ROIV_CONF_SET:
		j_int("obj_handle", d->u.set.obj_handle);
		j_arr("modifications");
		for (int i = 0; i < d->u.set.nmods; i++) {
			j_obj(NULL);
			j_int("modify_operator", d->u.set.mod[i].op);
			j_name("modify_operator_name",
			       tp_phd_modify_operator_name(d->u.set.mod[i].op));
			j_avas("attribute", &d->u.set.mod[i].ava, 1, 0);
			j_end();
		}
		j_end_arr();
		break;
	case TP_PHD_ROIV_ACTION:
	case TP_PHD_ROIV_CONF_ACTION:
	case TP_PHD_RORS_CONF_ACTION:
		j_action(&d->u.action);
		break;
	case TP_PHD_RORS_GET:
	case TP_PHD_RORS_CONF_SET:
		j_int("obj_handle", d->u.attrs.obj_handle);
		j_avas("attributes", d->u.attrs.attrs.ava, d->u.attrs.attrs.count, 0);
		break;
	case TP_PHD_ROER:
		j_int("error_value", d->u.roer.error_value);
		j_name("error_value_name", tp_phd_error_value_name(d->u.roer.error_value));
		j_bytes("parameter", d->u.roer.parameter.p, d->u.roer.parameter.len);
		break;
	case TP_PHD_RORJ:
		j_int("problem", d->u.rorj_problem);
		j_name("problem_name", tp_phd_reject_problem_name(d->u.rorj_problem));
		break;
	}
	j_end();
}

/* ---- one APDU ---- */

static void j_error(const char *msg, const char *code, long offset, const char *field, int config)
{
	j_obj(NULL);
	j_str("error", msg);
	j_str("code", code);
	if (offset >= 0)
		j_int("offset", offset);
	else
		j_raw("offset", "null");
	if (field != NULL)
		j_str("field", field);
	/* which configuration a fixed observation was held against */
	if (config)
		j_hex16("config_used", cur_map.config_id);
	j_end();
}

static int decode_one(const uint8_t *buf, size_t len)
{
	static struct tp_phd_apdu a;
	struct tp_phd_error err;
	char msg[256];

	/* everything is checked first, so what is printed below decodes */
	/* an observation of a handle the configuration does not declare is shown raw
	 * (j_observation), not a failure of the whole report: real agents send some */
	if (tp_phd_check_flags(buf, len, have_map ? &cur_map : NULL, TP_PHD_CHECK_UNDECLARED_OK,
			       &err) < 0) {
		tp_phd_error_fmt(&err, msg, sizeof(msg));
		j_error(msg, tp_phd_err_name(err.code), err.where ? (long)err.offset : -1,
			err.field,
			have_map &&
			    (err.code == TP_PHD_E_NO_CONFIG || err.code == TP_PHD_E_MAP_MISMATCH));
		return -1;
	}
	tp_phd_decode_apdu(buf, len, &a, NULL);
	j_obj(NULL);
	j_str("apdu", tp_phd_apdu_name(a.type));
	j_hex16("apdu_choice", a.type);
	j_int("length", (long long)len - 4);
	switch (a.type) {
	case TP_PHD_AARQ:
		j_aarq(&a.u.aarq);
		/* a session starts: its reports follow the standard configuration it
		 * names, or the extended one its configuration report will give */
		if (a.u.aarq.phd_index >= 0) {
			uint16_t id = a.u.aarq.phd.dev_config_id;
			have_map = tp_phd_std_value_map(id, &cur_map) == 0;
			j_name("standard_config", tp_phd_std_config_name(id));
		}
		break;
	case TP_PHD_AARE:
		j_aare(&a.u.aare);
		break;
	case TP_PHD_RLRQ:
	case TP_PHD_RLRE:
		j_int("reason", a.u.reason);
		j_name("reason_name", tp_phd_release_reason_name(a.u.reason));
		break;
	case TP_PHD_ABRT:
		j_int("reason", a.u.reason);
		j_name("reason_name", tp_phd_abort_reason_name(a.u.reason));
		break;
	case TP_PHD_PRST:
		j_prst(&a.u.prst);
		break;
	}
	j_end();
	return 0;
}

/* ---- hex input: tp_hex_decode (proto/parse.h) ---- */

/* Decode one line of hex, size bytes at line, as an APDU: argument (is_arg) or stdin
 * line number index. A blank line or '#' comment on stdin is skipped (1); an argument
 * that holds no APDU, and a line with a NUL byte (strlen stopped there: the rest went
 * unseen), are errors naming it (review F13). 0 decoded, -1 not. */
static int decode_hex(char *line, size_t size, bool is_arg, unsigned int index)
{
	size_t bad = 0, len;
	uint8_t *buf;
	long n;
	char msg[96];
	const char *nul = memchr(line, '\0', size);
	char *hash;
	int rc;

	if (nul != NULL) {
		snprintf(msg, sizeof(msg), "%s %u: a NUL byte at character %zu",
			 is_arg ? "argument" : "line", index, (size_t)(nul - line));
		j_error(msg, "HEX", (long)(nul - line), NULL, 0);
		fflush(J.f);
		return -1;
	}
	hash = strchr(line, '#');
	if (hash != NULL)
		*hash = '\0';
	len = strlen(line);
	while (len > 0 && isspace((unsigned char)line[len - 1]))
		line[--len] = '\0';
	if (strspn(line, " \t\r\n") == len) {
		if (!is_arg)
			return 1;
		snprintf(msg, sizeof(msg), "argument %u is %s: no APDU", index,
			 size == 0 ? "empty" : "blank");
		j_error(msg, "HEX", -1, NULL, 0);
		fflush(J.f);
		return -1;
	}
	/* exactly the APDU's bytes, so a sanitizer catches any read past them */
	buf = malloc(len / 2 + 1);
	if (buf == NULL) {
		perror("phd-decode");
		exit(2);
	}
	n = tp_hex_decode(line, buf, len / 2 + 1, &bad);
	if (n < 0) {
		snprintf(msg, sizeof(msg), "input is not hex: character %zu ('%c')", bad,
			 line[bad] ? line[bad] : ' ');
		j_error(msg, "HEX", (long)bad, NULL, 0);
		rc = -1;
	} else {
		uint8_t *exact = malloc(n ? (size_t)n : 1);
		if (exact == NULL) {
			perror("phd-decode");
			exit(2);
		}
		memcpy(exact, buf, (size_t)n);
		rc = decode_one(exact, (size_t)n);
		free(exact);
	}
	free(buf);
	fflush(J.f);
	return rc;
}

/* --config: a PRST with a configuration report, or the bare ConfigReport. */
static int load_config(const char *hex)
{
	static struct tp_phd_apdu a;
	static struct tp_phd_config_report c;
	size_t bad, len = strlen(hex);
	uint8_t *buf = malloc(len / 2 + 1);
	const uint8_t *rep;
	size_t rep_len;
	struct tp_phd_error err;
	char msg[256];
	long n;
	int rc = -1;

	if (buf == NULL)
		return -1;
	n = tp_hex_decode(hex, buf, len / 2 + 1, &bad);
	if (n < 0) {
		fprintf(stderr, "phd-decode: --config is not hex (character %zu)\n", bad);
		goto out;
	}
	rep = buf;
	rep_len = (size_t)n;
	if (tp_phd_decode_apdu(buf, (size_t)n, &a, NULL) == 0 && a.type == TP_PHD_PRST &&
	    (a.u.prst.choice == TP_PHD_ROIV_CONF_EVENT_REPORT ||
	     a.u.prst.choice == TP_PHD_ROIV_EVENT_REPORT) &&
	    a.u.prst.u.evt.type == MDC_NOTI_CONFIG) {
		rep = a.u.prst.u.evt.info.p;
		rep_len = a.u.prst.u.evt.info.len;
	}
	if (tp_phd_decode_config_report(rep, rep_len, &c, &err) < 0 ||
	    tp_phd_value_map_build(&c, &cur_map, &err) < 0) {
		tp_phd_error_fmt(&err, msg, sizeof(msg));
		fprintf(stderr, "phd-decode: --config is not a configuration report: %s\n", msg);
		goto out;
	}
	have_map = 1;
	rc = 0;
out:
	free(buf);
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: phd-decode [--config HEX] [--pretty] [HEX ...]\n"
		"Decode ISO/IEEE 11073-20601 APDUs (MDER) given as hex and print each as one\n"
		"JSON object: names beside codes, values with units, or {\"error\", \"offset\"}.\n"
		"Each HEX argument is one APDU (quote it when it has spaces). Without HEX\n"
		"arguments, reads one APDU per line from stdin. Whitespace, ':'\n"
		"and ',' may separate the digits, text after '#' is a comment.\n"
		"  --config HEX  the configuration that fixed scan reports are decoded with:\n"
		"                a PRST carrying an MDC_NOTI_CONFIG report, or the bare\n"
		"                ConfigReport. Default: standard configuration 0x0190\n"
		"                (IEEE 11073-10404 pulse oximeter).\n"
		"  --pretty      indent the JSON\n"
		"Fed a whole session (one APDU per line), it follows the session: an AARQ\n"
		"naming a standard configuration (0x0190, 0x0191, 0x02BC, 0x0320, 0x05DC,\n"
		"0x06A4) or a configuration report sets the configuration of the scan\n"
		"reports that follow; an AARQ with an extended one clears it until its\n"
		"configuration report. Special values (NaN, NRes, +-INF) print as null with\n"
		"their name beside; an all-zero (unset) time as the time of decoding.\n"
		"Exit status: 0 when every APDU decoded, 1 when one did not, 2 on bad usage.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"config", required_argument, NULL, 'c'},
	    {"pretty", no_argument, NULL, 'p'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c, failed = 0;

	tp_json_init_file(&J, stdout, false);
	J.ascii = true;
	if (tp_phd_std_value_map(0x0190, &cur_map) == 0)
		have_map = 1;
	while ((c = getopt_long(argc, argv, "c:ph", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (load_config(optarg) < 0)
				return 2;
			break;
		case 'p':
			J.pretty = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		for (int i = optind; i < argc; i++)
			if (decode_hex(argv[i], strlen(argv[i]), true,
				       (unsigned int)(i - optind + 1)) < 0)
				failed = 1;
	} else {
		char *line = NULL;
		size_t cap = 0;
		ssize_t n;
		unsigned int lineno = 0;
		while ((n = getline(&line, &cap, stdin)) != -1)
			if (decode_hex(line, (size_t)n, false, ++lineno) < 0)
				failed = 1;
		free(line);
	}
	return failed;
}
