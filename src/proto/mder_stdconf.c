/* SPDX-License-Identifier: BSD-3-Clause */
/* The standard configurations of the IEEE 11073-104xx device specializations: the
 * ConfigReport an agent of each would send, from the specializations' tables. */
#include <stddef.h>

#include "mder.h"

/*
 * A standard configuration (20601 8.4, ConfigId 0x0001-0x3FFF) is one the agent does
 * not send: a manager that knows it answers the AARQ with "accepted" and decodes
 * the agent's fixed scan reports from its own copy. Each table below is that
 * copy in the wire form of the ConfigReport (MDC_NOTI_CONFIG event-info), so one
 * decoder (tp_phd_decode_config_report, tp_phd_value_map_build) serves standard
 * and extended configurations alike. Sources: the specializations' standard
 * configuration tables as Antidote (signove/antidote, src/specializations/) and
 * its test vectors (tests/resources/apdu/) carry them; src/proto/README.md says
 * where a table differs from an implementation and why.
 */

/* clang-format off */
/* IEEE 11073-10404 standard configuration 0x0190 (pulse oximeter): the
 * ConfigReport an agent would send for it. Two numerics report an SFLOAT
 * basic value followed by an 8-byte absolute time stamp. */
static const uint8_t std_config_0190[] = {
	0x01, 0x90, /* config-report-id = 0x0190 */
	0x00, 0x02, /* config-obj-list.count = 2 */
	0x00, 0x58, /* config-obj-list.length = 88 */
	/* object 1: SpO2 */
	0x00, 0x06,		/* obj-class = MDC_MOC_VMO_METRIC_NU */
	0x00, 0x01,		/* obj-handle = 1 */
	0x00, 0x04,		/* attributes.count = 4 */
	0x00, 0x24,		/* attributes.length = 36 */
	0x09, 0x2F, 0x00, 0x04, /* MDC_ATTR_ID_TYPE, length 4 */
	0x00, 0x02, 0x4B, 0xB8, /* MDC_PART_SCADA, MDC_PULS_OXIM_SAT_O2 */
	0x0A, 0x46, 0x00, 0x02, /* MDC_ATTR_METRIC_SPEC_SMALL, length 2 */
	0x40, 0x40,		/* avail-stored-data, acc-agent-initiated */
	0x09, 0x96, 0x00, 0x02, /* MDC_ATTR_UNIT_CODE, length 2 */
	0x02, 0x20,		/* MDC_DIM_PERCENT */
	0x0A, 0x55, 0x00, 0x0C, /* MDC_ATTR_ATTRIBUTE_VAL_MAP, length 12 */
	0x00, 0x02, 0x00, 0x08, /* AttrValMap.count = 2, .length = 8 */
	0x0A, 0x4C, 0x00, 0x02, /* MDC_ATTR_NU_VAL_OBS_BASIC, 2 bytes */
	0x09, 0x90, 0x00, 0x08, /* MDC_ATTR_TIME_STAMP_ABS, 8 bytes */
	/* object 10: pulse rate */
	0x00, 0x06,		/* obj-class = MDC_MOC_VMO_METRIC_NU */
	0x00, 0x0A,		/* obj-handle = 10 */
	0x00, 0x04,		/* attributes.count = 4 */
	0x00, 0x24,		/* attributes.length = 36 */
	0x09, 0x2F, 0x00, 0x04, /* MDC_ATTR_ID_TYPE, length 4 */
	0x00, 0x02, 0x48, 0x1A, /* MDC_PART_SCADA, MDC_PULS_OXIM_PULS_RATE */
	0x0A, 0x46, 0x00, 0x02, /* MDC_ATTR_METRIC_SPEC_SMALL, length 2 */
	0x40, 0x40,		/* avail-stored-data, acc-agent-initiated */
	0x09, 0x96, 0x00, 0x02, /* MDC_ATTR_UNIT_CODE, length 2 */
	0x0A, 0xA0,		/* MDC_DIM_BEAT_PER_MIN */
	0x0A, 0x55, 0x00, 0x0C, /* MDC_ATTR_ATTRIBUTE_VAL_MAP, length 12 */
	0x00, 0x02, 0x00, 0x08, /* AttrValMap.count = 2, .length = 8 */
	0x0A, 0x4C, 0x00, 0x02, /* MDC_ATTR_NU_VAL_OBS_BASIC, 2 bytes */
	0x09, 0x90, 0x00, 0x08, /* MDC_ATTR_TIME_STAMP_ABS, 8 bytes */
};

/* IEEE 11073-10404 standard configuration 0x0191 (pulse oximeter, spot check):
 * as 0x0190, each numeric marked with the supplemental type MDC_MODALITY_SPOT. */
static const uint8_t std_config_0191[] = {
	0x01, 0x91,	/* config-report-id = 0x0191 */
	0x00, 0x02,	/* config-obj-list.count = 2 */
	0x00, 0x70,	/* config-obj-list.length = 112 */
	0x00, 0x06,	/* obj-class = MDC_MOC_VMO_METRIC_NU (SpO2) */
	0x00, 0x01,	/* obj-handle = 1 */
	0x00, 0x05,	/* attributes.count = 5 */
	0x00, 0x30,	/* attributes.length = 48 */
	0x09, 0x2F, 0x00, 0x04,	/* MDC_ATTR_ID_TYPE, length 4 */
	0x00, 0x02, 0x4B, 0xB8,	/* MDC_PART_SCADA, MDC_PULS_OXIM_SAT_O2 */
	0x0A, 0x46, 0x00, 0x02,	/* MDC_ATTR_METRIC_SPEC_SMALL, length 2 */
	0x40, 0x40,	/* 0x4040: stored data, agent-initiated */
	0x09, 0x96, 0x00, 0x02,	/* MDC_ATTR_UNIT_CODE, length 2 */
	0x02, 0x20,	/* MDC_DIM_PERCENT */
	0x0A, 0x55, 0x00, 0x0C,	/* MDC_ATTR_ATTRIBUTE_VAL_MAP, length 12 */
	0x00, 0x02, 0x00, 0x08, 0x0A, 0x4C, 0x00, 0x02, 0x09, 0x90, 0x00, 0x08,	/* Attr-Val-Map: NU_VAL_OBS_BASIC 2, TIME_STAMP_ABS 8 */
	0x0A, 0x61, 0x00, 0x08,	/* MDC_ATTR_SUPPLEMENTAL_TYPES, length 8 */
	0x00, 0x01, 0x00, 0x04, 0x00, 0x02, 0x4C, 0x3C,	/* SupplementalTypeList {MDC_PART_SCADA, MDC_MODALITY_SPOT} */
	0x00, 0x06,	/* obj-class = MDC_MOC_VMO_METRIC_NU (pulse rate) */
	0x00, 0x0A,	/* obj-handle = 10 */
	0x00, 0x05,	/* attributes.count = 5 */
	0x00, 0x30,	/* attributes.length = 48 */
	0x09, 0x2F, 0x00, 0x04,	/* MDC_ATTR_ID_TYPE, length 4 */
	0x00, 0x02, 0x48, 0x1A,	/* MDC_PART_SCADA, MDC_PULS_OXIM_PULS_RATE */
	0x0A, 0x46, 0x00, 0x02,	/* MDC_ATTR_METRIC_SPEC_SMALL, length 2 */
	0x40, 0x40,	/* 0x4040: stored data, agent-initiated */
	0x09, 0x96, 0x00, 0x02,	/* MDC_ATTR_UNIT_CODE, length 2 */
	0x0A, 0xA0,	/* MDC_DIM_BEAT_PER_MIN */
	0x0A, 0x55, 0x00, 0x0C,	/* MDC_ATTR_ATTRIBUTE_VAL_MAP, length 12 */
	0x00, 0x02, 0x00, 0x08, 0x0A, 0x4C, 0x00, 0x02, 0x09, 0x90, 0x00, 0x08,	/* Attr-Val-Map: NU_VAL_OBS_BASIC 2, TIME_STAMP_ABS 8 */
	0x0A, 0x61, 0x00, 0x08,	/* MDC_ATTR_SUPPLEMENTAL_TYPES, length 8 */
	0x00, 0x01, 0x00, 0x04, 0x00, 0x02, 0x4C, 0x3C,	/* SupplementalTypeList {MDC_PART_SCADA, MDC_MODALITY_SPOT} */
};

/* IEEE 11073-10407 standard configuration 0x02BC (blood pressure monitor): handle 1
 * a compound numeric (systolic, diastolic, mean arterial pressure in mmHg, their
 * metric ids in the MetricIdList) reported as a BasicNuObsValueCmp of three
 * SFLOATs, handle 2 the pulse rate. */
static const uint8_t std_config_02bc[] = {
	0x02, 0xBC,	/* config-report-id = 0x02BC */
	0x00, 0x02,	/* config-obj-list.count = 2 */
	0x00, 0x6C,	/* config-obj-list.length = 108 */
	0x00, 0x06,	/* obj-class = MDC_MOC_VMO_METRIC_NU (systolic, diastolic, mean) */
	0x00, 0x01,	/* obj-handle = 1 */
	0x00, 0x06,	/* attributes.count = 6 */
	0x00, 0x38,	/* attributes.length = 56 */
	0x09, 0x2F, 0x00, 0x04,	/* MDC_ATTR_ID_TYPE, length 4 */
	0x00, 0x02, 0x4A, 0x04,	/* MDC_PART_SCADA, MDC_PRESS_BLD_NONINV */
	0x0A, 0x46, 0x00, 0x02,	/* MDC_ATTR_METRIC_SPEC_SMALL, length 2 */
	0xF0, 0x40,	/* 0xF040: intermittent, stored data, aperiodic update and msmt, agent-initiated */
	0x0A, 0x73, 0x00, 0x02,	/* MDC_ATTR_METRIC_STRUCT_SMALL, length 2 */
	0x03, 0x03,	/* ms-struct-compound-fix, 3 components */
	0x09, 0x96, 0x00, 0x02,	/* MDC_ATTR_UNIT_CODE, length 2 */
	0x0F, 0x20,	/* MDC_DIM_MMHG */
	0x0A, 0x76, 0x00, 0x0A,	/* MDC_ATTR_ID_PHYSIO_LIST, length 10 */
	0x00, 0x03, 0x00, 0x06, 0x4A, 0x05, 0x4A, 0x06, 0x4A, 0x07,	/* MetricIdList: MDC_PRESS_BLD_NONINV_SYS, _DIA, _MEAN */
	0x0A, 0x55, 0x00, 0x0C,	/* MDC_ATTR_ATTRIBUTE_VAL_MAP, length 12 */
	0x00, 0x02, 0x00, 0x08, 0x0A, 0x75, 0x00, 0x0A, 0x09, 0x90, 0x00, 0x08,	/* Attr-Val-Map: NU_CMPD_VAL_OBS_BASIC 10, TIME_STAMP_ABS 8 */
	0x00, 0x06,	/* obj-class = MDC_MOC_VMO_METRIC_NU (pulse rate) */
	0x00, 0x02,	/* obj-handle = 2 */
	0x00, 0x04,	/* attributes.count = 4 */
	0x00, 0x24,	/* attributes.length = 36 */
	0x09, 0x2F, 0x00, 0x04,	/* MDC_ATTR_ID_TYPE, length 4 */
	0x00, 0x02, 0x48, 0x2A,	/* MDC_PART_SCADA, MDC_PULS_RATE_NON_INV */
	0x0A, 0x46, 0x00, 0x02,	/* MDC_ATTR_METRIC_SPEC_SMALL, length 2 */
	0xF0, 0x40,	/* 0xF040: intermittent, stored data, aperiodic update and msmt, agent-initiated */
	0x09, 0x96, 0x00, 0x02,	/* MDC_ATTR_UNIT_CODE, length 2 */
	0x0A, 0xA0,	/* MDC_DIM_BEAT_PER_MIN */
	0x0A, 0x55, 0x00, 0x0C,	/* MDC_ATTR_ATTRIBUTE_VAL_MAP, length 12 */
	0x00, 0x02, 0x00, 0x08, 0x0A, 0x4C, 0x00, 0x02, 0x09, 0x90, 0x00, 0x08,	/* Attr-Val-Map: NU_VAL_OBS_BASIC 2, TIME_STAMP_ABS 8 */
};

/* IEEE 11073-10408 standard configuration 0x0320 (thermometer): one numeric, the
 * generic body temperature in degrees Celsius, an SFLOAT and a time stamp. */
static const uint8_t std_config_0320[] = {
	0x03, 0x20,	/* config-report-id = 0x0320 */
	0x00, 0x01,	/* config-obj-list.count = 1 */
	0x00, 0x2C,	/* config-obj-list.length = 44 */
	0x00, 0x06,	/* obj-class = MDC_MOC_VMO_METRIC_NU (body temperature) */
	0x00, 0x01,	/* obj-handle = 1 */
	0x00, 0x04,	/* attributes.count = 4 */
	0x00, 0x24,	/* attributes.length = 36 */
	0x09, 0x2F, 0x00, 0x04,	/* MDC_ATTR_ID_TYPE, length 4 */
	0x00, 0x02, 0x4B, 0x5C,	/* MDC_PART_SCADA, MDC_TEMP_BODY */
	0x0A, 0x46, 0x00, 0x02,	/* MDC_ATTR_METRIC_SPEC_SMALL, length 2 */
	0xF0, 0x40,	/* 0xF040: intermittent, stored data, aperiodic update and msmt, agent-initiated */
	0x09, 0x96, 0x00, 0x02,	/* MDC_ATTR_UNIT_CODE, length 2 */
	0x17, 0xA0,	/* MDC_DIM_DEGC */
	0x0A, 0x55, 0x00, 0x0C,	/* MDC_ATTR_ATTRIBUTE_VAL_MAP, length 12 */
	0x00, 0x02, 0x00, 0x08, 0x0A, 0x4C, 0x00, 0x02, 0x09, 0x90, 0x00, 0x08,	/* Attr-Val-Map: NU_VAL_OBS_BASIC 2, TIME_STAMP_ABS 8 */
};

/* IEEE 11073-10415 standard configuration 0x05DC (weighing scale): one numeric, the
 * body weight in kg as a FLOAT (SimpleNuObsValue) and a time stamp; height and
 * BMI need an extended configuration. */
static const uint8_t std_config_05dc[] = {
	0x05, 0xDC,	/* config-report-id = 0x05DC */
	0x00, 0x01,	/* config-obj-list.count = 1 */
	0x00, 0x2C,	/* config-obj-list.length = 44 */
	0x00, 0x06,	/* obj-class = MDC_MOC_VMO_METRIC_NU (body weight) */
	0x00, 0x01,	/* obj-handle = 1 */
	0x00, 0x04,	/* attributes.count = 4 */
	0x00, 0x24,	/* attributes.length = 36 */
	0x09, 0x2F, 0x00, 0x04,	/* MDC_ATTR_ID_TYPE, length 4 */
	0x00, 0x02, 0xE1, 0x40,	/* MDC_PART_SCADA, MDC_MASS_BODY_ACTUAL */
	0x0A, 0x46, 0x00, 0x02,	/* MDC_ATTR_METRIC_SPEC_SMALL, length 2 */
	0xF0, 0x40,	/* 0xF040: intermittent, stored data, aperiodic update and msmt, agent-initiated */
	0x09, 0x96, 0x00, 0x02,	/* MDC_ATTR_UNIT_CODE, length 2 */
	0x06, 0xC3,	/* MDC_DIM_KILO_G */
	0x0A, 0x55, 0x00, 0x0C,	/* MDC_ATTR_ATTRIBUTE_VAL_MAP, length 12 */
	0x00, 0x02, 0x00, 0x08, 0x0A, 0x56, 0x00, 0x04, 0x09, 0x90, 0x00, 0x08,	/* Attr-Val-Map: NU_VAL_OBS_SIMP 4, TIME_STAMP_ABS 8 */
};

/* IEEE 11073-10417 standard configuration 0x06A4 (glucose meter): one numeric,
 * capillary whole-blood glucose in mg/dL, an SFLOAT and a time stamp. */
static const uint8_t std_config_06a4[] = {
	0x06, 0xA4,	/* config-report-id = 0x06A4 */
	0x00, 0x01,	/* config-obj-list.count = 1 */
	0x00, 0x2C,	/* config-obj-list.length = 44 */
	0x00, 0x06,	/* obj-class = MDC_MOC_VMO_METRIC_NU (blood glucose) */
	0x00, 0x01,	/* obj-handle = 1 */
	0x00, 0x04,	/* attributes.count = 4 */
	0x00, 0x24,	/* attributes.length = 36 */
	0x09, 0x2F, 0x00, 0x04,	/* MDC_ATTR_ID_TYPE, length 4 */
	0x00, 0x02, 0x71, 0xB8,	/* MDC_PART_SCADA, MDC_CONC_GLU_CAPILLARY_WHOLEBLOOD */
	0x0A, 0x46, 0x00, 0x02,	/* MDC_ATTR_METRIC_SPEC_SMALL, length 2 */
	0xF0, 0x40,	/* 0xF040: intermittent, stored data, aperiodic update and msmt, agent-initiated */
	0x09, 0x96, 0x00, 0x02,	/* MDC_ATTR_UNIT_CODE, length 2 */
	0x08, 0x52,	/* MDC_DIM_MILLI_G_PER_DL */
	0x0A, 0x55, 0x00, 0x0C,	/* MDC_ATTR_ATTRIBUTE_VAL_MAP, length 12 */
	0x00, 0x02, 0x00, 0x08, 0x0A, 0x4C, 0x00, 0x02, 0x09, 0x90, 0x00, 0x08,	/* Attr-Val-Map: NU_VAL_OBS_BASIC 2, TIME_STAMP_ABS 8 */
};
/* clang-format on */

static const struct {
	uint16_t id;
	const char *name;
	const uint8_t *report;
	uint16_t len;
} std_configs[] = {
    {0x0190, "IEEE 11073-10404 pulse oximeter", std_config_0190, sizeof(std_config_0190)},
    {0x0191, "IEEE 11073-10404 pulse oximeter (spot check)", std_config_0191,
     sizeof(std_config_0191)},
    {0x02BC, "IEEE 11073-10407 blood pressure monitor", std_config_02bc, sizeof(std_config_02bc)},
    {0x0320, "IEEE 11073-10408 thermometer", std_config_0320, sizeof(std_config_0320)},
    {0x05DC, "IEEE 11073-10415 weighing scale", std_config_05dc, sizeof(std_config_05dc)},
    {0x06A4, "IEEE 11073-10417 glucose meter", std_config_06a4, sizeof(std_config_06a4)},
};

int tp_phd_std_config_report(uint16_t config_id, struct tp_phd_octets *report)
{
	for (size_t i = 0; i < sizeof(std_configs) / sizeof(std_configs[0]); i++) {
		if (std_configs[i].id == config_id) {
			report->p = std_configs[i].report;
			report->len = std_configs[i].len;
			return 0;
		}
	}
	return -TP_PHD_E_NO_CONFIG;
}

const char *tp_phd_std_config_name(uint16_t config_id)
{
	for (size_t i = 0; i < sizeof(std_configs) / sizeof(std_configs[0]); i++)
		if (std_configs[i].id == config_id)
			return std_configs[i].name;
	return NULL;
}

uint16_t tp_phd_std_config_id(unsigned int i)
{
	return i < sizeof(std_configs) / sizeof(std_configs[0]) ? std_configs[i].id : 0;
}

int tp_phd_std_value_map(uint16_t config_id, struct tp_phd_value_map *map)
{
	struct tp_phd_config_report cfg;
	struct tp_phd_octets rep;
	int rc = tp_phd_std_config_report(config_id, &rep);

	if (rc < 0)
		return rc;
	rc = tp_phd_decode_config_report(rep.p, rep.len, &cfg, NULL);
	if (rc < 0)
		return rc;
	return tp_phd_value_map_build(&cfg, map, NULL);
}
