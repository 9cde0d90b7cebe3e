/* SPDX-License-Identifier: BSD-3-Clause */
/* PHD device types of the seed paper: configurations and readings. */
#include <string.h>

#include "phd_devices.h"
#include "phd_nomenclature.h"

const struct tp_phd_device tp_phd_devices[] = {
    {"pulse-oximeter", 0x0190, {MDC_DIM_PERCENT, MDC_DIM_BEAT_PER_MIN}},
    {"activity-monitor", 0x4000, {MDC_DIM_X_STEP, MDC_DIM_X_M, MDC_DIM_SEC, MDC_DIM_PERCENT}},
    {"medication-monitor", 0x4001, {MDC_DIM_DIMLESS, MDC_DIM_DIMLESS, MDC_DIM_DIMLESS}},
    /* standard configurations of 10407, 10415, 10408, 10417 (mder_stdconf.c) */
    {"blood-pressure", 0x02BC, {MDC_DIM_MMHG, MDC_DIM_BEAT_PER_MIN}},
    {"weighing-scale", 0x05DC, {MDC_DIM_KILO_G}},
    {"thermometer", 0x0320, {MDC_DIM_DEGC}},
    {"glucose-meter", 0x06A4, {MDC_DIM_MILLI_G_PER_DL}},
    {NULL, 0, {0}},
};

const struct tp_phd_device *tp_phd_device_find(const char *name)
{
	for (const struct tp_phd_device *d = tp_phd_devices; d->name; d++)
		if (strcmp(d->name, name) == 0)
			return d;
	return NULL;
}

int tp_phd_device_config(const struct tp_phd_device *d, struct tp_phd_config_report *cfg,
			 uint8_t *store, size_t size)
{
	struct tp_phd_octets std;
	size_t used = 0;
	unsigned int k = 0;

	/* a standard configuration: the specialization's own table, sent as is when a
	 * manager does not know it (20601 8.4) */
	if (tp_phd_std_config_report(d->config_id, &std) == 0)
		return tp_phd_decode_config_report(std.p, std.len, cfg, NULL);
	memset(cfg, 0, sizeof(*cfg));
	cfg->config_report_id = d->config_id;
	for (const struct tp_phd_metric *m = tp_phd_metrics; m->device; m++) {
		if (strcmp(m->device, d->name) != 0)
			continue;
		struct tp_phd_config_object *o = &cfg->obj[cfg->nobjs++];
		struct tp_phd_value v[4] = {0};
		o->obj_class = MDC_MOC_VMO_METRIC_NU;
		o->handle = (uint16_t)(k + 1);
		v[0].attr_id = MDC_ATTR_ID_TYPE;
		v[0].kind = TP_PHD_V_TYPE;
		v[0].u.type.partition = m->partition;
		v[0].u.type.code = m->code;
		v[1].attr_id = MDC_ATTR_METRIC_SPEC_SMALL;
		v[1].kind = TP_PHD_V_BITS16;
		v[1].u.u16 =
		    0xF040; /* mss-avail-intermittent, stored-data, upd-aperiodic, msmt-supp */
		v[2].attr_id = MDC_ATTR_UNIT_CODE;
		v[2].kind = TP_PHD_V_U16;
		v[2].u.u16 = d->units[k] ? d->units[k] : m->unit;
		v[3].attr_id = MDC_ATTR_ATTRIBUTE_VAL_MAP;
		v[3].kind = TP_PHD_V_AVM;
		v[3].n = 2;
		v[3].u.avm[0] = (struct tp_phd_avm_entry){MDC_ATTR_NU_VAL_OBS_BASIC, 2};
		v[3].u.avm[1] = (struct tp_phd_avm_entry){MDC_ATTR_TIME_STAMP_ABS, 8};
		for (int i = 0; i < 4; i++) {
			int n = tp_phd_attr_value_encode(&v[i], store + used, size - used);
			if (n < 0)
				return n;
			o->attrs.ava[i] =
			    (struct tp_phd_ava){v[i].attr_id, {store + used, (uint16_t)n}};
			used += (size_t)n;
		}
		o->attrs.count = 4;
		k++;
	}
	return 0;
}

int tp_phd_device_value_map(const struct tp_phd_device *d, struct tp_phd_value_map *map)
{
	struct tp_phd_config_report cfg;
	struct tp_phd_error err;
	uint8_t store[1024];
	int ret;

	if (tp_phd_std_value_map(d->config_id, map) == 0)
		return 0;
	ret = tp_phd_device_config(d, &cfg, store, sizeof(store));
	return ret < 0 ? ret : tp_phd_value_map_build(&cfg, map, &err);
}

/* A value for metric handle h: plausible, and different for each i. */
double tp_phd_device_reading(const struct tp_phd_device *d, unsigned int h, unsigned long i)
{
	return tp_phd_device_component(d, h, 0, i);
}

double tp_phd_device_component(const struct tp_phd_device *d, unsigned int h, unsigned int c,
			       unsigned long i)
{
	if (strcmp(d->name, "blood-pressure") == 0) {
		double sys = 118 + (double)(i % 9), dia = 76 + (double)(i % 7);
		if (h != 1)
			return 62 + (double)(i * 3 % 20); /* pulse rate */
		/* mean arterial pressure: diastolic + a third of the pulse pressure */
		return c == 0 ? sys : c == 1 ? dia : (double)(long)(dia + (sys - dia) / 3 + 0.5);
	}
	if (strcmp(d->name, "weighing-scale") == 0)
		return 70 + (double)(i % 20) / 10; /* kg, one decimal */
	if (strcmp(d->name, "thermometer") == 0)
		return 36.5 + (double)(i % 6) / 10;
	if (strcmp(d->name, "glucose-meter") == 0)
		return 90 + (double)(i * 7 % 40);
	if (strcmp(d->name, "pulse-oximeter") == 0)
		return h == 1 ? 95 + (double)(i % 5) : 60 + (double)(i * 7 % 30);
	if (strcmp(d->name, "activity-monitor") == 0)
		return h == 1	? 100.0 * (double)(i + 1)
		       : h == 2 ? 75.0 * (double)(i + 1)
		       : h == 3 ? 60.0 * (double)(i + 1)
				: 40 + (double)(i % 50);
	return h == 3 ? 1 : (double)(i + 1);
}

void tp_phd_device_aarq(const struct tp_phd_device *d, const uint8_t *sysid, struct tp_phd_apdu *a)
{
	struct tp_phd_aarq *q = &a->u.aarq;

	memset(a, 0, sizeof(*a));
	a->type = TP_PHD_AARQ;
	q->assoc_version = TP_PHD_ASSOC_VERSION1;
	q->nprotos = 1;
	q->phd_index = 0;
	q->proto[0].id = TP_PHD_DATA_PROTO_20601;
	q->phd.protocol_version = TP_PHD_PROTOCOL_VERSION1;
	q->phd.encoding_rules = TP_PHD_ENC_MDER;
	q->phd.nomenclature_version = TP_PHD_NOM_VERSION1;
	q->phd.system_type = TP_PHD_SYS_TYPE_AGENT;
	q->phd.system_id = (struct tp_phd_octets){sysid, 8};
	q->phd.dev_config_id = d->config_id;
	q->phd.data_req_mode_flags = TP_PHD_DATA_REQ_SUPP_INIT_AGENT;
	q->phd.data_req_init_agent_count = 1;
}

/* Store reading (h, c, x) when the caller keeps them. */
static void keep(struct tp_phd_reading *r, unsigned int *n, uint16_t h, int c, double x)
{
	if (r != NULL && *n < TP_PHD_MAX_CFG_OBJS * TP_PHD_MAX_CMP)
		r[(*n)++] = (struct tp_phd_reading){h, c, x};
}

/* One attribute value of handle h's fixed observation, len bytes at p (zeroed). */
static void fill_attr(const struct tp_phd_device *d, uint16_t h, uint16_t id, uint16_t len,
		      unsigned long i, const struct tp_phd_abs_time *stamp, uint8_t *p,
		      struct tp_phd_reading *r, unsigned int *n)
{
	memset(p, 0, len);
	if (id == MDC_ATTR_NU_VAL_OBS_BASIC && len == 2) {
		/* BasicNuObsValue: an SFLOAT-Type (20601 Annex A) */
		uint16_t raw;
		double x = tp_phd_device_component(d, h, 0, i);
		tp_phd_sfloat_encode(x, &raw);
		p[0] = (uint8_t)(raw >> 8);
		p[1] = (uint8_t)raw;
		keep(r, n, h, -1, x);
	} else if (id == MDC_ATTR_NU_VAL_OBS_SIMP && len == 4) {
		/* SimpleNuObsValue: a FLOAT-Type (20601 Annex A) */
		uint32_t raw;
		double x = tp_phd_device_component(d, h, 0, i);
		tp_phd_float_encode(x, &raw);
		for (int b = 0; b < 4; b++)
			p[b] = (uint8_t)(raw >> (24 - 8 * b));
		keep(r, n, h, -1, x);
	} else if (id == MDC_ATTR_NU_CMPD_VAL_OBS_BASIC && len >= 4 && (len - 4) % 2 == 0) {
		/* BasicNuObsValueCmp (20601 Annex A): count, length, the SFLOATs */
		unsigned int nc = (len - 4u) / 2;
		p[1] = (uint8_t)nc;
		p[3] = (uint8_t)(2 * nc);
		for (unsigned int c = 0; c < nc; c++) {
			uint16_t raw;
			double x = tp_phd_device_component(d, h, c, i);
			tp_phd_sfloat_encode(x, &raw);
			p[4 + 2 * c] = (uint8_t)(raw >> 8);
			p[5 + 2 * c] = (uint8_t)raw;
			keep(r, n, h, (int)c, x);
		}
	} else if (id == MDC_ATTR_TIME_STAMP_ABS && len == 8 && stamp != NULL) {
		tp_phd_abs_time_encode(stamp, p);
	}
}

int tp_phd_device_scan_report(const struct tp_phd_device *d, const struct tp_phd_value_map *map,
			      unsigned long i, uint16_t scan_report_no,
			      const struct tp_phd_abs_time *stamp, uint8_t *info, size_t size,
			      struct tp_phd_reading *readings, unsigned int *nreadings)
{
	struct tp_phd_scan_report s;
	uint8_t obs[TP_PHD_MAX_CFG_OBJS][64];
	unsigned int nr = 0;

	memset(&s, 0, sizeof(s));
	s.event_type = MDC_NOTI_SCAN_REPORT_FIXED;
	s.data_req_id = TP_PHD_DATA_REQ_ID_AGENT_INIT;
	s.scan_report_no = scan_report_no;
	for (unsigned int k = 0;
	     k < map->nobjs && k < TP_PHD_MAX_CFG_OBJS && s.nobs < TP_PHD_MAX_OBS; k++) {
		const struct tp_phd_obj_map *om = &map->obj[k];
		size_t off = 0;
		if (om->n == 0 || om->total_len > sizeof(obs[k]))
			continue;
		/* ObservationScanFixed: the values in Attr-Val-Map order (20601 Annex A) */
		for (unsigned int e = 0; e < om->n; e++) {
			fill_attr(d, om->handle, om->e[e].attr_id, om->e[e].len, i, stamp,
				  obs[k] + off, readings, &nr);
			off += om->e[e].len;
		}
		s.obs[s.nobs++] = (struct tp_phd_observation){.handle = om->handle,
							      .data = {obs[k], (uint16_t)off}};
	}
	if (nreadings != NULL)
		*nreadings = nr;
	return tp_phd_encode_scan_report(&s, info, size);
}
