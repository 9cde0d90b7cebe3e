/* SPDX-License-Identifier: BSD-3-Clause */
/* IEEE 11073-10101 term-code table lookups and the seed devices' metric table. */
#include <stdio.h>
#include <string.h>

#include "phd_nomenclature.h"

static const struct tp_phd_nom nom_table[] = {
#define TP_PHD_NOM_ENTRY(part, name, code, descr, sym) {MDC_PART_##part, code, #name, descr, sym},
    TP_PHD_NOM_LIST(TP_PHD_NOM_ENTRY)
#undef TP_PHD_NOM_ENTRY
};

/* A linear scan: the table has a few hundred entries and is read by the
 * control plane and tools; the data plane names metrics from its AE entry. */
const struct tp_phd_nom *tp_phd_nom_find(uint16_t partition, uint16_t code)
{
	for (size_t i = 0; i < sizeof(nom_table) / sizeof(nom_table[0]); i++)
		if (nom_table[i].partition == partition && nom_table[i].code == code)
			return &nom_table[i];
	return NULL;
}

const char *tp_phd_nom_name(uint16_t partition, uint16_t code)
{
	const struct tp_phd_nom *n = tp_phd_nom_find(partition, code);
	return n ? n->name : NULL;
}

const char *tp_phd_partition_name(uint16_t partition)
{
	switch (partition) {
	case MDC_PART_OBJ:
		return "OBJ";
	case MDC_PART_SCADA:
		return "SCADA";
	case MDC_PART_EVT:
		return "EVT";
	case MDC_PART_DIM:
		return "DIM";
	case MDC_PART_VATTR:
		return "VATTR";
	case MDC_PART_PGRP:
		return "PGRP";
	case MDC_PART_SITES:
		return "SITES";
	case MDC_PART_INFRA:
		return "INFRA";
	case MDC_PART_FEF:
		return "FEF";
	case MDC_PART_ECG_EXTN:
		return "ECG_EXTN";
	case MDC_PART_PHD_DM:
		return "PHD_DM";
	case MDC_PART_PHD_HF:
		return "PHD_HF";
	case MDC_PART_PHD_AI:
		return "PHD_AI";
	case MDC_PART_RET_CODE:
		return "RET_CODE";
	case MDC_PART_EXT_NOM:
		return "EXT_NOM";
	case MDC_PART_PRIV:
		return "PRIV";
	}
	return NULL;
}

/* Decimal prefixes of unit codes, by the value of the low 5 bits (10101, units of measure). */
static const char *const unit_prefix[32] = {
    [0] = "",	[1] = "da", [2] = "h",	[3] = "k",  [4] = "M",	[5] = "G",  [6] = "T",
    [7] = "P",	[8] = "E",  [9] = "Z",	[10] = "Y", [16] = "d", [17] = "c", [18] = "m",
    [19] = "u", [20] = "n", [21] = "p", [22] = "f", [23] = "a", [24] = "z", [25] = "y",
};

const char *tp_phd_unit_symbol(uint16_t unit_code, char *buf, size_t len)
{
	const struct tp_phd_nom *n = tp_phd_nom_find(MDC_PART_DIM, unit_code);
	const char *prefix = unit_prefix[unit_code & 0x1f];

	if (buf == NULL || len == 0)
		return NULL;
	if (n == NULL || n->symbol == NULL) {
		n = tp_phd_nom_find(MDC_PART_DIM, (uint16_t)(unit_code & 0xffe0));
		if (n == NULL || n->symbol == NULL || prefix == NULL || n->symbol[0] == '\0')
			return NULL;
	} else {
		prefix = "";
	}
	size_t pl = strlen(prefix), sl = strlen(n->symbol);
	if (pl + sl >= len)
		return NULL;
	memcpy(buf, prefix, pl);
	memcpy(buf + pl, n->symbol, sl + 1);
	return buf;
}

const struct tp_phd_metric tp_phd_metrics[] = {
    /* IEEE 11073-10404 pulse oximeter */
    {"pulse-oximeter", "spo2", MDC_PART_SCADA, MDC_PULS_OXIM_SAT_O2, 0},
    {"pulse-oximeter", "pulse-rate", MDC_PART_SCADA, MDC_PULS_OXIM_PULS_RATE, 0},
    /* IEEE 11073-10441 activity monitor: steps are a distance counted in steps */
    {"activity-monitor", "steps", MDC_PART_PHD_HF, MDC_HF_DISTANCE, MDC_DIM_X_STEP},
    {"activity-monitor", "distance", MDC_PART_PHD_HF, MDC_HF_DISTANCE, 0},
    {"activity-monitor", "activity-time", MDC_PART_PHD_HF, MDC_HF_ACTIVITY_TIME, 0},
    {"activity-monitor", "intensity", MDC_PART_PHD_HF, MDC_HF_ACTIVITY_INTENSITY, 0},
    /* IEEE 11073-10472 medication monitor */
    {"medication-monitor", "dispensed-fixed", MDC_PART_PHD_AI, MDC_AI_MED_DISPENSED_FIXED, 0},
    {"medication-monitor", "dispensed-variable", MDC_PART_PHD_AI, MDC_AI_MED_DISPENSED_VARIABLE, 0},
    {"medication-monitor", "status", MDC_PART_PHD_AI, MDC_AI_MED_STATUS, 0},
    /* IEEE 11073-10407 blood pressure monitor: the compound and its components */
    {"blood-pressure", "blood-pressure", MDC_PART_SCADA, MDC_PRESS_BLD_NONINV, 0},
    {"blood-pressure", "systolic", MDC_PART_SCADA, MDC_PRESS_BLD_NONINV_SYS, 0},
    {"blood-pressure", "diastolic", MDC_PART_SCADA, MDC_PRESS_BLD_NONINV_DIA, 0},
    {"blood-pressure", "mean-arterial-pressure", MDC_PART_SCADA, MDC_PRESS_BLD_NONINV_MEAN, 0},
    {"blood-pressure", "pulse-rate", MDC_PART_SCADA, MDC_PULS_RATE_NON_INV, 0},
    /* IEEE 11073-10408 thermometer */
    {"thermometer", "temperature", MDC_PART_SCADA, MDC_TEMP_BODY, 0},
    /* IEEE 11073-10415 weighing scale */
    {"weighing-scale", "body-weight", MDC_PART_SCADA, MDC_MASS_BODY_ACTUAL, 0},
    {"weighing-scale", "body-height", MDC_PART_SCADA, MDC_LEN_BODY_ACTUAL, 0},
    {"weighing-scale", "body-mass-index", MDC_PART_SCADA, MDC_RATIO_MASS_BODY_LEN_SQ, 0},
    {"weighing-scale", "body-fat", MDC_PART_SCADA, MDC_BODY_FAT, 0},
    /* IEEE 11073-10417 glucose meter */
    {"glucose-meter", "glucose", MDC_PART_SCADA, MDC_CONC_GLU_CAPILLARY_WHOLEBLOOD, 0},
    {"glucose-meter", "exercise", MDC_PART_PHD_DM, MDC_CTXT_GLU_EXERCISE, 0},
    {"glucose-meter", "carbohydrates", MDC_PART_PHD_DM, MDC_CTXT_GLU_CARB, 0},
    {"glucose-meter", "medication", MDC_PART_PHD_DM, MDC_CTXT_MEDICATION, 0},
    {"glucose-meter", "health", MDC_PART_PHD_DM, MDC_CTXT_GLU_HEALTH, 0},
    {"glucose-meter", "sample-location", MDC_PART_PHD_DM, MDC_CTXT_GLU_SAMPLELOCATION, 0},
    {"glucose-meter", "meal", MDC_PART_PHD_DM, MDC_CTXT_GLU_MEAL, 0},
    {"glucose-meter", "tester", MDC_PART_PHD_DM, MDC_CTXT_GLU_TESTER, 0},
    /* metrics other specializations share */
    {"pulse-oximeter", "perfusion", MDC_PART_SCADA, MDC_PULS_OXIM_PERF_REL, 0},
    {"pulse-oximeter", "pulse-quality", MDC_PART_SCADA, MDC_SAT_O2_QUAL, 0},
    {"ecg", "heart-rate", MDC_PART_SCADA, MDC_ECG_HEART_RATE, 0},
    {"respiration", "respiration-rate", MDC_PART_SCADA, MDC_RESP_RATE, 0},
    {NULL, NULL, 0, 0, 0},
};

const struct tp_phd_metric *tp_phd_metric_find(uint16_t partition, uint16_t code, uint16_t unit)
{
	const struct tp_phd_metric *any = NULL;

	for (const struct tp_phd_metric *m = tp_phd_metrics; m->device != NULL; m++) {
		if (m->partition != partition || m->code != code)
			continue;
		if (m->unit == unit && unit != 0)
			return m;
		if (m->unit == 0 && any == NULL)
			any = m;
	}
	return any;
}

/* Lower-case words of s joined by '-', up to the first '(' ("body mass index" ->
 * "body-mass-index"); 0 when nothing fits. */
static size_t slug(const char *s, char *buf, size_t len)
{
	size_t n = 0;
	int dash = 0;

	for (; *s != '\0' && *s != '(' && n + 2 < len; s++) {
		char c = *s;
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
			if (dash && n > 0)
				buf[n++] = '-';
			buf[n++] = c;
			dash = 0;
		} else {
			dash = 1;
		}
	}
	buf[n] = '\0';
	return n;
}

const char *tp_phd_metric_label(uint16_t partition, uint16_t code, uint16_t unit, char *buf,
				size_t len)
{
	const struct tp_phd_metric *m = tp_phd_metric_find(partition, code, unit);
	const struct tp_phd_nom *n;

	if (buf == NULL || len == 0)
		return NULL;
	if (m != NULL)
		snprintf(buf, len, "%s", m->label);
	else if ((n = tp_phd_nom_find(partition, code)) == NULL || slug(n->descr, buf, len) == 0)
		snprintf(buf, len, "m%u-%u", partition, code);
	return buf;
}

const char *tp_phd_slug(const char *text, char *buf, size_t len)
{
	if (buf == NULL || len == 0 || text == NULL)
		return NULL;
	return slug(text, buf, len) ? buf : NULL;
}
