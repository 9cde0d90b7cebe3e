/* SPDX-License-Identifier: BSD-3-Clause */
/* IEEE 11073-10101 nomenclature: the term codes the PHD codec and the IoT gateway name. */
#ifndef TP_PROTO_PHD_NOMENCLATURE_H
#define TP_PROTO_PHD_NOMENCLATURE_H

#include <stddef.h>
#include <stdint.h>

/* Code partitions (IEEE 11073-10101; IEEE 11073-20601 Annex A, NomPartition).
 * A term code is 16 bits inside its partition; where a context-free 32-bit
 * code is needed it is partition << 16 | code (tp_phd_oid32). */
#define MDC_PART_OBJ 1	 /* object infrastructure: classes, attributes, actions, notifications */
#define MDC_PART_SCADA 2 /* physiological measurements (metric ids) */
#define MDC_PART_EVT 3	 /* events, alerts */
#define MDC_PART_DIM 4	 /* units of measure */
#define MDC_PART_VATTR 5 /* virtual attributes */
#define MDC_PART_PGRP 6	 /* parameter groups */
#define MDC_PART_SITES 7 /* body sites */
#define MDC_PART_INFRA 8 /* communication infrastructure: device profiles, time sync */
#define MDC_PART_FEF 9	 /* file exchange format */
#define MDC_PART_ECG_EXTN 10  /* ECG extensions */
#define MDC_PART_PHD_DM 128   /* personal health devices: disease management */
#define MDC_PART_PHD_HF 129   /* personal health devices: health and fitness */
#define MDC_PART_PHD_AI 130   /* personal health devices: aging independently */
#define MDC_PART_RET_CODE 255 /* return codes */
#define MDC_PART_EXT_NOM 256  /* external nomenclature */
#define MDC_PART_PRIV 1024    /* private */

/*
 * The table of known codes: X(partition suffix, name, code, description, unit symbol).
 * The unit symbol is set for MDC_PART_DIM entries only. Codes are the
 * standard's (IEEE 11073-10101 and its amendments as used by 11073-20601,
 * -10404, -10441 and -10472); the names are the standard's reference ids.
 */
#define TP_PHD_NOM_LIST(X)                                                                         \
	/* object classes (partition OBJ) */                                                       \
	X(OBJ, MDC_MOC_VMO_METRIC, 4, "metric", NULL)                                              \
	X(OBJ, MDC_MOC_VMO_METRIC_ENUM, 5, "enumeration object", NULL)                             \
	X(OBJ, MDC_MOC_VMO_METRIC_NU, 6, "numeric object", NULL)                                   \
	X(OBJ, MDC_MOC_VMO_METRIC_SA_RT, 9, "real-time sample array object", NULL)                 \
	X(OBJ, MDC_MOC_SCAN, 16, "scanner", NULL)                                                  \
	X(OBJ, MDC_MOC_SCAN_CFG, 17, "configurable scanner", NULL)                                 \
	X(OBJ, MDC_MOC_SCAN_CFG_EPI, 18, "episodic configurable scanner", NULL)                    \
	X(OBJ, MDC_MOC_SCAN_CFG_PERI, 19, "periodic configurable scanner", NULL)                   \
	X(OBJ, MDC_MOC_VMS_MDS_SIMP, 37, "medical device system", NULL)                            \
	X(OBJ, MDC_MOC_VMO_PMSTORE, 61, "PM-store", NULL)                                          \
	X(OBJ, MDC_MOC_PM_SEGMENT, 62, "PM-segment", NULL)                                         \
	/* attributes */                                                                           \
	X(OBJ, MDC_ATTR_CONFIRM_MODE, 2323, "confirm mode", NULL)                                  \
	X(OBJ, MDC_ATTR_CONFIRM_TIMEOUT, 2324, "confirm timeout", NULL)                            \
	X(OBJ, MDC_ATTR_ID_HANDLE, 2337, "handle", NULL)                                           \
	X(OBJ, MDC_ATTR_ID_INSTNO, 2338, "instance number", NULL)                                  \
	X(OBJ, MDC_ATTR_ID_LABEL_STRING, 2343, "label string", NULL)                               \
	X(OBJ, MDC_ATTR_ID_MODEL, 2344, "system model", NULL)                                      \
	X(OBJ, MDC_ATTR_ID_PHYSIO, 2347, "metric id", NULL)                                        \
	X(OBJ, MDC_ATTR_ID_PROD_SPECN, 2349, "production specification", NULL)                     \
	X(OBJ, MDC_ATTR_ID_TYPE, 2351, "type", NULL)                                               \
	X(OBJ, MDC_ATTR_METRIC_STORE_CAPAC_CNT, 2369, "metric store capacity", NULL)               \
	X(OBJ, MDC_ATTR_METRIC_STORE_SAMPLE_ALG, 2371, "metric store sample algorithm", NULL)      \
	X(OBJ, MDC_ATTR_METRIC_STORE_USAGE_CNT, 2372, "metric store usage count", NULL)            \
	X(OBJ, MDC_ATTR_MSMT_STAT, 2375, "measurement status", NULL)                               \
	X(OBJ, MDC_ATTR_NU_ACCUR_MSMT, 2378, "accuracy", NULL)                                     \
	X(OBJ, MDC_ATTR_NU_CMPD_VAL_OBS, 2379, "compound observed value", NULL)                    \
	X(OBJ, MDC_ATTR_NU_VAL_OBS, 2384, "observed value", NULL)                                  \
	X(OBJ, MDC_ATTR_NUM_SEG, 2385, "number of segments", NULL)                                 \
	X(OBJ, MDC_ATTR_OP_STAT, 2387, "operational state", NULL)                                  \
	X(OBJ, MDC_ATTR_POWER_STAT, 2389, "power status", NULL)                                    \
	X(OBJ, MDC_ATTR_SA_SPECN, 2413, "sample array specification", NULL)                        \
	X(OBJ, MDC_ATTR_SCALE_SPECN_I16, 2415, "scale and range specification 16", NULL)           \
	X(OBJ, MDC_ATTR_SCALE_SPECN_I32, 2416, "scale and range specification 32", NULL)           \
	X(OBJ, MDC_ATTR_SCALE_SPECN_I8, 2417, "scale and range specification 8", NULL)             \
	X(OBJ, MDC_ATTR_SCAN_REP_PD, 2421, "reporting interval", NULL)                             \
	X(OBJ, MDC_ATTR_SEG_USAGE_CNT, 2427, "segment usage count", NULL)                          \
	X(OBJ, MDC_ATTR_SYS_ID, 2436, "system id", NULL)                                           \
	X(OBJ, MDC_ATTR_SYS_TYPE, 2438, "system type", NULL)                                       \
	X(OBJ, MDC_ATTR_TIME_ABS, 2439, "date and time", NULL)                                     \
	X(OBJ, MDC_ATTR_TIME_BATT_REMAIN, 2440, "remaining battery time", NULL)                    \
	X(OBJ, MDC_ATTR_TIME_END_SEG, 2442, "segment end time", NULL)                              \
	X(OBJ, MDC_ATTR_TIME_PD_SAMP, 2445, "sample period", NULL)                                 \
	X(OBJ, MDC_ATTR_TIME_REL, 2447, "relative time", NULL)                                     \
	X(OBJ, MDC_ATTR_TIME_STAMP_ABS, 2448, "absolute time stamp", NULL)                         \
	X(OBJ, MDC_ATTR_TIME_STAMP_REL, 2449, "relative time stamp", NULL)                         \
	X(OBJ, MDC_ATTR_TIME_START_SEG, 2450, "segment start time", NULL)                          \
	X(OBJ, MDC_ATTR_TX_WIND, 2453, "transmit window", NULL)                                    \
	X(OBJ, MDC_ATTR_UNIT_CODE, 2454, "unit code", NULL)                                        \
	X(OBJ, MDC_ATTR_UNIT_LABEL_STRING, 2457, "unit label string", NULL)                        \
	X(OBJ, MDC_ATTR_VAL_BATT_CHARGE, 2460, "battery level", NULL)                              \
	X(OBJ, MDC_ATTR_VAL_ENUM_OBS, 2462, "enumeration observed value", NULL)                    \
	X(OBJ, MDC_ATTR_TIME_REL_HI_RES, 2536, "high-resolution relative time", NULL)              \
	X(OBJ, MDC_ATTR_TIME_STAMP_REL_HI_RES, 2537, "high-resolution relative time stamp", NULL)  \
	X(OBJ, MDC_ATTR_DEV_CONFIG_ID, 2628, "device configuration id", NULL)                      \
	X(OBJ, MDC_ATTR_MDS_TIME_INFO, 2629, "MDS time information", NULL)                         \
	X(OBJ, MDC_ATTR_METRIC_SPEC_SMALL, 2630, "metric specification small", NULL)               \
	X(OBJ, MDC_ATTR_SOURCE_HANDLE_REF, 2631, "source handle reference", NULL)                  \
	X(OBJ, MDC_ATTR_SIMP_SA_OBS_VAL, 2632, "simple sample array observed value", NULL)         \
	X(OBJ, MDC_ATTR_ENUM_OBS_VAL_SIMP_OID, 2633, "enumeration observed value (OID)", NULL)     \
	X(OBJ, MDC_ATTR_ENUM_OBS_VAL_SIMP_STR, 2634, "enumeration observed value (string)", NULL)  \
	X(OBJ, MDC_ATTR_REG_CERT_DATA_LIST, 2635, "regulatory certification data list", NULL)      \
	X(OBJ, MDC_ATTR_NU_VAL_OBS_BASIC, 2636, "basic observed value (SFLOAT)", NULL)             \
	X(OBJ, MDC_ATTR_PM_STORE_CAPAB, 2637, "PM-store capabilities", NULL)                       \
	X(OBJ, MDC_ATTR_PM_SEG_MAP, 2638, "PM-segment entry map", NULL)                            \
	X(OBJ, MDC_ATTR_PM_SEG_PERSON_ID, 2639, "PM-segment person id", NULL)                      \
	X(OBJ, MDC_ATTR_SEG_STATS, 2640, "segment statistics", NULL)                               \
	X(OBJ, MDC_ATTR_SEG_FIXED_DATA, 2641, "fixed segment data", NULL)                          \
	X(OBJ, MDC_ATTR_PM_SEG_ELEM_STAT_ATTR, 2642, "PM-segment element static attributes", NULL) \
	X(OBJ, MDC_ATTR_SCAN_HANDLE_ATTR_VAL_MAP, 2643, "scan handle attribute value map", NULL)   \
	X(OBJ, MDC_ATTR_SCAN_REP_PD_MIN, 2644, "minimum reporting interval", NULL)                 \
	X(OBJ, MDC_ATTR_ATTRIBUTE_VAL_MAP, 2645, "attribute value map", NULL)                      \
	X(OBJ, MDC_ATTR_NU_VAL_OBS_SIMP, 2646, "simple observed value (FLOAT)", NULL)              \
	X(OBJ, MDC_ATTR_PM_STORE_LABEL_STRING, 2647, "PM-store label", NULL)                       \
	X(OBJ, MDC_ATTR_PM_SEG_LABEL_STRING, 2648, "PM-segment label", NULL)                       \
	X(OBJ, MDC_ATTR_TIME_PD_MSMT_ACTIVE, 2649, "measure active period", NULL)                  \
	X(OBJ, MDC_ATTR_SYS_TYPE_SPEC_LIST, 2650, "system type specification list", NULL)          \
	X(OBJ, MDC_ATTR_METRIC_ID_PART, 2655, "metric id partition", NULL)                         \
	X(OBJ, MDC_ATTR_ENUM_OBS_VAL_PART, 2656, "enumeration observed value partition", NULL)     \
	X(OBJ, MDC_ATTR_SUPPLEMENTAL_TYPES, 2657, "supplemental types", NULL)                      \
	X(OBJ, MDC_ATTR_TIME_ABS_ADJUST, 2658, "absolute time adjustment", NULL)                   \
	X(OBJ, MDC_ATTR_CLEAR_TIMEOUT, 2659, "clear timeout", NULL)                                \
	X(OBJ, MDC_ATTR_TRANSFER_TIMEOUT, 2660, "transfer timeout", NULL)                          \
	X(OBJ, MDC_ATTR_ENUM_OBS_VAL_SIMP_BIT_STR, 2661, "enumeration observed value (BITS-32)",   \
	  NULL)                                                                                    \
	X(OBJ, MDC_ATTR_ENUM_OBS_VAL_BASIC_BIT_STR, 2662, "enumeration observed value (BITS-16)",  \
	  NULL)                                                                                    \
	X(OBJ, MDC_ATTR_METRIC_STRUCT_SMALL, 2675, "metric structure small", NULL)                 \
	X(OBJ, MDC_ATTR_NU_CMPD_VAL_OBS_SIMP, 2676, "compound simple observed value", NULL)        \
	X(OBJ, MDC_ATTR_NU_CMPD_VAL_OBS_BASIC, 2677, "compound basic observed value", NULL)        \
	X(OBJ, MDC_ATTR_ID_PHYSIO_LIST, 2678, "metric id list", NULL)                              \
	X(OBJ, MDC_ATTR_SCAN_HANDLE_LIST, 2679, "scan handle list", NULL)                          \
	/* actions */                                                                              \
	X(OBJ, MDC_ACT_SEG_CLR, 3084, "clear segments", NULL)                                      \
	X(OBJ, MDC_ACT_SEG_GET_INFO, 3085, "get segment info", NULL)                               \
	X(OBJ, MDC_ACT_SET_TIME, 3095, "set time", NULL)                                           \
	X(OBJ, MDC_ACT_DATA_REQUEST, 3099, "data request", NULL)                                   \
	X(OBJ, MDC_ACT_SEG_TRIG_XFER, 3100, "trigger segment transfer", NULL)                      \
	/* notifications: event types */                                                           \
	X(OBJ, MDC_NOTI_CONFIG, 3356, "configuration report", NULL)                                \
	X(OBJ, MDC_NOTI_SCAN_REPORT_FIXED, 3357, "scan report, fixed", NULL)                       \
	X(OBJ, MDC_NOTI_SCAN_REPORT_VAR, 3358, "scan report, variable", NULL)                      \
	X(OBJ, MDC_NOTI_SCAN_REPORT_MP_FIXED, 3359, "scan report, multi-person fixed", NULL)       \
	X(OBJ, MDC_NOTI_SCAN_REPORT_MP_VAR, 3360, "scan report, multi-person variable", NULL)      \
	X(OBJ, MDC_NOTI_SEGMENT_DATA, 3361, "segment data", NULL)                                  \
	X(OBJ, MDC_NOTI_UNBUF_SCAN_REPORT_VAR, 3362, "unbuffered scan report, variable", NULL)     \
	X(OBJ, MDC_NOTI_UNBUF_SCAN_REPORT_FIXED, 3363, "unbuffered scan report, fixed", NULL)      \
	X(OBJ, MDC_NOTI_UNBUF_SCAN_REPORT_GROUPED, 3364, "unbuffered scan report, grouped", NULL)  \
	X(OBJ, MDC_NOTI_UNBUF_SCAN_REPORT_MP_VAR, 3365,                                            \
	  "unbuffered scan report, multi-person variable", NULL)                                   \
	X(OBJ, MDC_NOTI_UNBUF_SCAN_REPORT_MP_FIXED, 3366,                                          \
	  "unbuffered scan report, multi-person fixed", NULL)                                      \
	X(OBJ, MDC_NOTI_UNBUF_SCAN_REPORT_MP_GROUPED, 3367,                                        \
	  "unbuffered scan report, multi-person grouped", NULL)                                    \
	X(OBJ, MDC_NOTI_BUF_SCAN_REPORT_VAR, 3368, "buffered scan report, variable", NULL)         \
	X(OBJ, MDC_NOTI_BUF_SCAN_REPORT_FIXED, 3369, "buffered scan report, fixed", NULL)          \
	X(OBJ, MDC_NOTI_BUF_SCAN_REPORT_GROUPED, 3370, "buffered scan report, grouped", NULL)      \
	X(OBJ, MDC_NOTI_BUF_SCAN_REPORT_MP_VAR, 3371,                                              \
	  "buffered scan report, multi-person variable", NULL)                                     \
	X(OBJ, MDC_NOTI_BUF_SCAN_REPORT_MP_FIXED, 3372,                                            \
	  "buffered scan report, multi-person fixed", NULL)                                        \
	X(OBJ, MDC_NOTI_BUF_SCAN_REPORT_MP_GROUPED, 3373,                                          \
	  "buffered scan report, multi-person grouped", NULL)                                      \
	/* SCADA metrics: pulse oximeter (10404) and neighbours */                                 \
	X(SCADA, MDC_ECG_HEART_RATE, 16770, "heart rate (ECG)", NULL)                              \
	X(SCADA, MDC_PULS_OXIM_PULS_RATE, 18458, "pulse rate (oximeter)", NULL)                    \
	X(SCADA, MDC_PULS_RATE_NON_INV, 18474, "pulse rate (non-invasive)", NULL)                  \
	X(SCADA, MDC_PRESS_BLD_NONINV, 18948, "blood pressure (non-invasive)", NULL)               \
	X(SCADA, MDC_PRESS_BLD_NONINV_SYS, 18949, "systolic blood pressure", NULL)                 \
	X(SCADA, MDC_PRESS_BLD_NONINV_DIA, 18950, "diastolic blood pressure", NULL)                \
	X(SCADA, MDC_PRESS_BLD_NONINV_MEAN, 18951, "mean blood pressure", NULL)                    \
	X(SCADA, MDC_SAT_O2_QUAL, 19248, "pulse quality", NULL)                                    \
	X(SCADA, MDC_TEMP_BODY, 19292, "body temperature", NULL)                                   \
	X(SCADA, MDC_PULS_OXIM_PERF_REL, 19376, "relative perfusion", NULL)                        \
	X(SCADA, MDC_PULS_OXIM_PLETH, 19380, "plethysmogram", NULL)                                \
	X(SCADA, MDC_PULS_OXIM_SAT_O2, 19384, "oxygen saturation (SpO2)", NULL)                    \
	X(SCADA, MDC_MODALITY_FAST, 19508, "fast response", NULL)                                  \
	X(SCADA, MDC_MODALITY_SLOW, 19512, "slow response", NULL)                                  \
	X(SCADA, MDC_MODALITY_SPOT, 19516, "spot check", NULL)                                     \
	X(SCADA, MDC_PULS_OXIM_DEV_STATUS, 19532, "oximeter device and sensor status", NULL)       \
	X(SCADA, MDC_PULS_OXIM_PULS_CHAR, 19533, "pulse characteristics", NULL)                    \
	X(SCADA, MDC_RESP_RATE, 20490, "respiration rate", NULL)                                   \
	X(SCADA, MDC_CONC_GLU_CAPILLARY_WHOLEBLOOD, 29112, "glucose, capillary whole blood", NULL) \
	X(SCADA, MDC_MASS_BODY_ACTUAL, 57664, "body mass", NULL)                                   \
	X(SCADA, MDC_LEN_BODY_ACTUAL, 57668, "body height", NULL)                                  \
	X(SCADA, MDC_BODY_FAT, 57676, "body fat", NULL)                                            \
	X(SCADA, MDC_RATIO_MASS_BODY_LEN_SQ, 57680, "body mass index", NULL)                       \
	/* units (DIM): base unit + decimal prefix in the low 5 bits */                            \
	X(DIM, MDC_DIM_DIMLESS, 512, "dimensionless", "")                                          \
	X(DIM, MDC_DIM_PERCENT, 544, "percent", "%")                                               \
	X(DIM, MDC_DIM_ANG_DEG, 736, "degree (angle)", "deg")                                      \
	X(DIM, MDC_DIM_X_M, 1280, "metre", "m")                                                    \
	X(DIM, MDC_DIM_KILO_M, 1283, "kilometre", "km")                                            \
	X(DIM, MDC_DIM_CENTI_M, 1297, "centimetre", "cm")                                          \
	X(DIM, MDC_DIM_X_FOOT, 1344, "foot", "ft")                                                 \
	X(DIM, MDC_DIM_INCH, 1376, "inch", "in")                                                   \
	X(DIM, MDC_DIM_X_L, 1600, "litre", "L")                                                    \
	X(DIM, MDC_DIM_MILLI_L, 1618, "millilitre", "mL")                                          \
	X(DIM, MDC_DIM_X_G, 1728, "gram", "g")                                                     \
	X(DIM, MDC_DIM_KILO_G, 1731, "kilogram", "kg")                                             \
	X(DIM, MDC_DIM_MILLI_G, 1746, "milligram", "mg")                                           \
	X(DIM, MDC_DIM_LB, 1760, "pound", "lb")                                                    \
	X(DIM, MDC_DIM_KG_PER_M_SQ, 1952, "kilogram per square metre", "kg/m2")                    \
	X(DIM, MDC_DIM_MILLI_G_PER_DL, 2130, "milligram per decilitre", "mg/dL")                   \
	X(DIM, MDC_DIM_SEC, 2176, "second", "s")                                                   \
	X(DIM, MDC_DIM_MILLI_SEC, 2194, "millisecond", "ms")                                       \
	X(DIM, MDC_DIM_MIN, 2208, "minute", "min")                                                 \
	X(DIM, MDC_DIM_HR, 2240, "hour", "h")                                                      \
	X(DIM, MDC_DIM_DAY, 2272, "day", "d")                                                      \
	X(DIM, MDC_DIM_YR, 2368, "year", "y")                                                      \
	X(DIM, MDC_DIM_BEAT_PER_MIN, 2720, "beats per minute", "bpm")                              \
	X(DIM, MDC_DIM_RESP_PER_MIN, 2784, "respirations per minute", "resp/min")                  \
	X(DIM, MDC_DIM_KILO_PASCAL, 3843, "kilopascal", "kPa")                                     \
	X(DIM, MDC_DIM_MMHG, 3872, "millimetre of mercury", "mmHg")                                \
	X(DIM, MDC_DIM_X_JOULES, 3968, "joule", "J")                                               \
	X(DIM, MDC_DIM_X_WATT, 4032, "watt", "W")                                                  \
	X(DIM, MDC_DIM_FAHR, 4416, "degree Fahrenheit", "degF")                                    \
	X(DIM, MDC_DIM_MILLI_MOLE_PER_L, 4722, "millimole per litre", "mmol/L")                    \
	X(DIM, MDC_DIM_DEGC, 6048, "degree Celsius", "degC")                                       \
	X(DIM, MDC_DIM_X_M_PER_MIN, 6560, "metre per minute", "m/min")                             \
	X(DIM, MDC_DIM_X_STEP, 6656, "step", "step")                                               \
	X(DIM, MDC_DIM_X_FOOT_PER_MIN, 6688, "foot per minute", "ft/min")                          \
	X(DIM, MDC_DIM_X_INCH_PER_MIN, 6720, "inch per minute", "in/min")                          \
	X(DIM, MDC_DIM_X_STEP_PER_MIN, 6752, "step per minute", "step/min")                        \
	X(DIM, MDC_DIM_X_CAL, 6784, "calorie", "cal")                                              \
	X(DIM, MDC_DIM_RPM, 6816, "revolutions per minute", "rpm")                                 \
	/* communication infrastructure: device specializations, time sync */                      \
	X(INFRA, MDC_DEV_SPEC_PROFILE_PULS_OXIM, 4100, "pulse oximeter (10404)", NULL)             \
	X(INFRA, MDC_DEV_SPEC_PROFILE_BP, 4103, "blood pressure monitor (10407)", NULL)            \
	X(INFRA, MDC_DEV_SPEC_PROFILE_TEMP, 4104, "thermometer (10408)", NULL)                     \
	X(INFRA, MDC_DEV_SPEC_PROFILE_SCALE, 4111, "weighing scale (10415)", NULL)                 \
	X(INFRA, MDC_DEV_SPEC_PROFILE_GLUCOSE, 4113, "glucose meter (10417)", NULL)                \
	X(INFRA, MDC_DEV_SPEC_PROFILE_HF_CARDIO, 4137,                                             \
	  "cardiovascular fitness and activity monitor (10441)", NULL)                             \
	X(INFRA, MDC_DEV_SPEC_PROFILE_HF_STRENGTH, 4138, "strength fitness equipment (10442)",     \
	  NULL)                                                                                    \
	X(INFRA, MDC_DEV_SPEC_PROFILE_AI_ACTIVITY_HUB, 4167, "activity hub (10471)", NULL)         \
	X(INFRA, MDC_DEV_SPEC_PROFILE_AI_MED_MINDER, 4168, "medication monitor (10472)", NULL)     \
	X(INFRA, MDC_DEV_SUB_SPEC_PROFILE_STEP_COUNTER, 4196, "step counter (10441)", NULL)        \
	X(INFRA, MDC_TIME_SYNC_NONE, 7936, "no time synchronization", NULL)                        \
	X(INFRA, MDC_TIME_SYNC_NTPV3, 7937, "NTPv3", NULL)                                         \
	X(INFRA, MDC_TIME_SYNC_NTPV4, 7938, "NTPv4", NULL)                                         \
	X(INFRA, MDC_TIME_SYNC_SNTPV4, 7939, "SNTPv4", NULL)                                       \
	X(INFRA, MDC_TIME_SYNC_SNTPV4330, 7940, "SNTPv4 (RFC 4330)", NULL)                         \
	X(INFRA, MDC_TIME_SYNC_BTV1, 7941, "Bluetooth MDP", NULL)                                  \
	/* disease management: the glucose meter's context objects (10417) */                      \
	X(PHD_DM, MDC_CTXT_GLU_EXERCISE, 29152, "exercise", NULL)                                  \
	X(PHD_DM, MDC_CTXT_GLU_CARB, 29156, "carbohydrates", NULL)                                 \
	X(PHD_DM, MDC_CTXT_MEDICATION, 29188, "medication", NULL)                                  \
	X(PHD_DM, MDC_CTXT_GLU_HEALTH, 29212, "health", NULL)                                      \
	X(PHD_DM, MDC_CTXT_GLU_SAMPLELOCATION, 29236, "sample location", NULL)                     \
	X(PHD_DM, MDC_CTXT_GLU_MEAL, 29256, "meal", NULL)                                          \
	X(PHD_DM, MDC_CTXT_GLU_MEAL_PREPRANDIAL, 29260, "preprandial", NULL)                       \
	X(PHD_DM, MDC_CTXT_GLU_MEAL_POSTPRANDIAL, 29264, "postprandial", NULL)                     \
	X(PHD_DM, MDC_CTXT_GLU_MEAL_FASTING, 29268, "fasting", NULL)                               \
	X(PHD_DM, MDC_CTXT_GLU_MEAL_CASUAL, 29272, "casual", NULL)                                 \
	X(PHD_DM, MDC_CTXT_GLU_TESTER, 29276, "tester", NULL)                                      \
	X(PHD_DM, MDC_CTXT_GLU_MEAL_BEDTIME, 29300, "bedtime", NULL)                               \
	/* health and fitness: cardiovascular fitness and activity monitor (10441) */              \
	X(PHD_HF, MDC_HF_ALT_GAIN, 100, "altitude gain", NULL)                                     \
	X(PHD_HF, MDC_HF_ALT_LOSS, 101, "altitude loss", NULL)                                     \
	X(PHD_HF, MDC_HF_ALT, 102, "altitude", NULL)                                               \
	X(PHD_HF, MDC_HF_DISTANCE, 103, "distance", NULL)                                          \
	X(PHD_HF, MDC_HF_ASC_TME_DIST, 104, "ascent time distance", NULL)                          \
	X(PHD_HF, MDC_HF_DESC_TIME_DIST, 105, "descent time distance", NULL)                       \
	X(PHD_HF, MDC_HF_LATITUDE, 106, "latitude", NULL)                                          \
	X(PHD_HF, MDC_HF_LONGITUDE, 107, "longitude", NULL)                                        \
	X(PHD_HF, MDC_HF_PROGRAM_ID, 108, "program id", NULL)                                      \
	X(PHD_HF, MDC_HF_SLOPES, 109, "slopes", NULL)                                              \
	X(PHD_HF, MDC_HF_SPEED, 110, "speed", NULL)                                                \
	X(PHD_HF, MDC_HF_CAD, 111, "cadence", NULL)                                                \
	X(PHD_HF, MDC_HF_INCLINE, 112, "incline", NULL)                                            \
	X(PHD_HF, MDC_HF_HR_MAX_USER, 113, "user maximum heart rate", NULL)                        \
	X(PHD_HF, MDC_HF_HR, 114, "heart rate", NULL)                                              \
	X(PHD_HF, MDC_HF_POWER, 115, "power", NULL)                                                \
	X(PHD_HF, MDC_HF_RESIST, 116, "resistance", NULL)                                          \
	X(PHD_HF, MDC_HF_STRIDE, 117, "stride length", NULL)                                       \
	X(PHD_HF, MDC_HF_ENERGY, 119, "energy expended", NULL)                                     \
	X(PHD_HF, MDC_HF_CAL_INGEST, 120, "calories ingested", NULL)                               \
	X(PHD_HF, MDC_HF_CAL_INGEST_CARB, 121, "carbohydrate calories ingested", NULL)             \
	X(PHD_HF, MDC_HF_SUST_PA_THRESHOLD, 122, "sustained physical activity threshold", NULL)    \
	X(PHD_HF, MDC_HF_SESSION, 123, "session", NULL)                                            \
	X(PHD_HF, MDC_HF_SUBSESSION, 124, "subsession", NULL)                                      \
	X(PHD_HF, MDC_HF_ACTIVITY_TIME, 125, "activity time", NULL)                                \
	X(PHD_HF, MDC_HF_AGE, 126, "age", NULL)                                                    \
	X(PHD_HF, MDC_HF_ACTIVITY_INTENSITY, 127, "activity intensity", NULL)                      \
	X(PHD_HF, MDC_HF_ACT_AMB, 1000, "activity: ambulating", NULL)                              \
	X(PHD_HF, MDC_HF_ACT_REST, 1001, "activity: resting", NULL)                                \
	X(PHD_HF, MDC_HF_ACT_MOTOR, 1002, "activity: motorized transport", NULL)                   \
	X(PHD_HF, MDC_HF_ACT_LYING, 1003, "activity: lying", NULL)                                 \
	X(PHD_HF, MDC_HF_ACT_SLEEP, 1004, "activity: sleeping", NULL)                              \
	X(PHD_HF, MDC_HF_ACT_PHYS, 1005, "activity: physical", NULL)                               \
	X(PHD_HF, MDC_HF_ACT_SUS_PHYS, 1006, "activity: sustained physical", NULL)                 \
	X(PHD_HF, MDC_HF_ACT_UNKNOWN, 1007, "activity: unknown", NULL)                             \
	X(PHD_HF, MDC_HF_ACT_MULTIPLE, 1008, "activity: multiple", NULL)                           \
	X(PHD_HF, MDC_HF_ACT_MONITOR, 1009, "activity: monitoring", NULL)                          \
	X(PHD_HF, MDC_HF_ACT_SKI, 1010, "activity: skiing", NULL)                                  \
	X(PHD_HF, MDC_HF_ACT_RUN, 1011, "activity: running", NULL)                                 \
	X(PHD_HF, MDC_HF_ACT_BIKE, 1012, "activity: cycling", NULL)                                \
	X(PHD_HF, MDC_HF_ACT_STAIR, 1013, "activity: stairs", NULL)                                \
	X(PHD_HF, MDC_HF_ACT_ROW, 1014, "activity: rowing", NULL)                                  \
	X(PHD_HF, MDC_HF_ACT_HOME, 1015, "activity: house work", NULL)                             \
	X(PHD_HF, MDC_HF_ACT_WORK, 1016, "activity: work", NULL)                                   \
	X(PHD_HF, MDC_HF_ACT_WALK, 1017, "activity: walking", NULL)                                \
	/* aging independently: medication monitor (10472) */                                      \
	X(PHD_AI, MDC_AI_MED_DISPENSED_FIXED, 13312, "medication dispensed, fixed dosage", NULL)   \
	X(PHD_AI, MDC_AI_MED_DISPENSED_VARIABLE, 13313, "medication dispensed, variable dosage",   \
	  NULL)                                                                                    \
	X(PHD_AI, MDC_AI_MED_STATUS, 13314, "medication monitor status", NULL)                     \
	X(PHD_AI, MDC_AI_MED_FEEDBACK, 13315, "user feedback", NULL)                               \
	X(PHD_AI, MDC_AI_MED_UF_LOCATION, 13316, "user feedback: location", NULL)                  \
	X(PHD_AI, MDC_AI_MED_UF_RESPONSE, 13317, "user feedback: response", NULL)                  \
	X(PHD_AI, MDC_AI_MED_UF_TYPE_YESNO, 13318, "user feedback type: yes/no", NULL)             \
	/* return codes */                                                                         \
	X(RET_CODE, MDC_RET_CODE_UNKNOWN, 1, "unknown error", NULL)                                \
	X(RET_CODE, MDC_RET_CODE_OBJ_BUSY, 1000, "object busy", NULL)                              \
	X(RET_CODE, MDC_RET_CODE_STORE_EXH, 2000, "storage exhausted", NULL)                       \
	X(RET_CODE, MDC_RET_CODE_STORE_OFFLN, 2001, "storage offline", NULL)

/* Every code of the list as a constant: MDC_PULS_OXIM_SAT_O2 == 19384. */
enum tp_phd_nom_code {
#define TP_PHD_NOM_ENUM(part, name, code, descr, sym) name = code,
	TP_PHD_NOM_LIST(TP_PHD_NOM_ENUM)
#undef TP_PHD_NOM_ENUM
};

/* One entry of the table. */
struct tp_phd_nom {
	uint16_t partition;
	uint16_t code;
	const char *name;   /* reference id, "MDC_PULS_OXIM_SAT_O2" */
	const char *descr;  /* "oxygen saturation (SpO2)" */
	const char *symbol; /* unit symbol for MDC_PART_DIM, else NULL */
};

/* The context-free 32-bit code (partition << 16 | code), as HL7 and oneM2M name terms. */
static inline uint32_t tp_phd_oid32(uint16_t partition, uint16_t code)
{
	return (uint32_t)partition << 16 | code;
}

/* Table entry for (partition, code), or NULL when the code is not in the table. */
const struct tp_phd_nom *tp_phd_nom_find(uint16_t partition, uint16_t code);
/* Reference id of (partition, code), or NULL. */
const char *tp_phd_nom_name(uint16_t partition, uint16_t code);
/* Name of a partition ("SCADA", "PHD_HF"), or NULL. */
const char *tp_phd_partition_name(uint16_t partition);
/* Unit symbol of a unit code (MDC_PART_DIM): the table's symbol, or one composed
 * from a known base unit and the decimal prefix in the low 5 bits ("kcal").
 * Writes at most len bytes (NUL-terminated) into buf and returns buf, or
 * returns NULL when the unit is unknown. */
const char *tp_phd_unit_symbol(uint16_t unit_code, char *buf, size_t len);

/* The metrics of the device types a gateway names, in the order it names them
 * (IEEE 11073-10404, -10441, -10472: the seed paper's three; -10407, -10408,
 * -10415, -10417). */
struct tp_phd_metric {
	const char *device; /* "pulse-oximeter", "activity-monitor", "blood-pressure", ... */
	const char *label;  /* short name for a container: "spo2", "steps" */
	uint16_t partition; /* of the metric id (MDC_ATTR_ID_TYPE) */
	uint16_t code;
	uint16_t unit; /* the unit that tells this metric apart, or 0 for any unit */
};
/* The table, terminated by an entry with device == NULL. */
extern const struct tp_phd_metric tp_phd_metrics[];
/* The entry for a metric id and unit: an exact unit match first, then an
 * entry for any unit. NULL when the metric is not one of the table. */
const struct tp_phd_metric *tp_phd_metric_find(uint16_t partition, uint16_t code, uint16_t unit);
/* A readable name for a metric, as a oneM2M container is named: the table's label
 * ("systolic", "body-weight"), else the nomenclature's description as lower-case
 * words joined by '-' ("respiration-rate"), else "m<partition>-<code>". Written
 * into buf (len bytes, NUL-terminated, cut to fit); returns buf. */
const char *tp_phd_metric_label(uint16_t partition, uint16_t code, uint16_t unit, char *buf,
				size_t len);
/* text as lower-case words joined by '-', up to a '(' ("blood pressure monitor
 * (10407)" -> "blood-pressure-monitor"); NULL when nothing is left. */
const char *tp_phd_slug(const char *text, char *buf, size_t len);

#endif
