/* SPDX-License-Identifier: BSD-3-Clause */
/* IEEE 11073-20601 codec: hand-built APDUs of every type, round trips, SFLOAT/FLOAT, BCD time,
 * and truncated or corrupted copies that must fail cleanly. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/proto/mder.h"

/* ---- the APDUs: written out byte by byte, offsets in the comments ---- */

/* clang-format off */

/* AARQ from a pulse oximeter offering standard configuration 0x0190 */
static const uint8_t aarq[] = {
	0xE2, 0x00,		/* 0 APDU choice: AARQ */
	0x00, 0x32,		/* 2 length = 50 */
	0x80, 0x00, 0x00, 0x00, /* 4 assoc-version = assoc-version1 */
	0x00, 0x01,		/* 8 data-proto-list.count = 1 */
	0x00, 0x2A,		/* 10 data-proto-list.length = 42 */
	0x50, 0x79,		/* 12 data-proto-id = 20601 */
	0x00, 0x26,		/* 14 data-proto-info.length = 38 */
	0x80, 0x00, 0x00, 0x00, /* 16 protocol-version1 */
	0xA0, 0x00,		/* 20 encoding rules: MDER or PER */
	0x80, 0x00, 0x00, 0x00, /* 22 nomenclature-version1 */
	0x00, 0x00, 0x00, 0x00, /* 26 functional-units: none */
	0x00, 0x80, 0x00, 0x00, /* 30 system-type = sys-type-agent */
	0x00, 0x08,		/* 34 system-id.length = 8 */
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, /* 36 system-id (EUI-64) */
	0x01, 0x90,		/* 44 dev-config-id = 0x0190 (standard) */
	0x00, 0x01,		/* 46 data-req-mode-flags = data-req-supp-init-agent */
	0x01, 0x00,		/* 48 data-req-init-agent-count 1, -manager-count 0 */
	0x00, 0x00, 0x00, 0x00, /* 50 option-list: count 0, length 0 */
};
static const uint16_t aarq_lens[] = {2, 10, 14, 34, 52};

/* AARE: the manager accepts the association */
static const uint8_t aare[] = {
	0xE3, 0x00,		/* 0 APDU choice: AARE */
	0x00, 0x2C,		/* 2 length = 44 */
	0x00, 0x00,		/* 4 result = accepted */
	0x50, 0x79,		/* 6 data-proto-id = 20601 */
	0x00, 0x26,		/* 8 data-proto-info.length = 38 */
	0x80, 0x00, 0x00, 0x00, /* 10 protocol-version1 */
	0x80, 0x00,		/* 14 encoding rules: MDER */
	0x80, 0x00, 0x00, 0x00, /* 16 nomenclature-version1 */
	0x00, 0x00, 0x00, 0x00, /* 20 functional-units */
	0x80, 0x00, 0x00, 0x00, /* 24 system-type = sys-type-manager */
	0x00, 0x08,		/* 28 system-id.length = 8 */
	0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, /* 30 system-id */
	0x00, 0x00,		/* 38 dev-config-id = manager-config-response */
	0x00, 0x00, 0x00, 0x00, /* 40 data-req-mode-capab */
	0x00, 0x00, 0x00, 0x00, /* 44 option-list: empty */
};
static const uint16_t aare_lens[] = {2, 8, 28, 46};

/* AARE rejecting with no protocol information */
static const uint8_t aare_rej[] = {
	0xE3, 0x00, 0x00, 0x06, /* AARE, length 6 */
	0x00, 0x06,		/* result = rejected-unknown */
	0x00, 0x00,		/* data-proto-id = 0 */
	0x00, 0x00,		/* data-proto-info: empty */
};

static const uint8_t rlrq[] = {0xE4, 0x00, 0x00, 0x02, 0x00, 0x00}; /* RLRQ normal */
static const uint8_t rlre[] = {0xE5, 0x00, 0x00, 0x02, 0x00, 0x00}; /* RLRE normal */
static const uint8_t abrt[] = {0xE6, 0x00, 0x00, 0x02, 0x00, 0x02}; /* ABRT response-timeout */

/* PRST: confirmed event report MDC_NOTI_CONFIG, an activity monitor's (10441)
 * extended configuration 0x4000 with four numerics */
static const uint8_t cfg_act[] = {
	0xE7, 0x00, 0x00, 0xBC, /* 0 PRST, length 188 */
	0x00, 0xBA,		/* 4 octet string length 186 */
	0x12, 0x35,		/* 6 invoke-id */
	0x01, 0x01,		/* 8 roiv-cmip-confirmed-event-report */
	0x00, 0xB4,		/* 10 length 180 */
	0x00, 0x00,		/* 12 obj-handle = 0 (MDS) */
	0xFF, 0xFF, 0xFF, 0xFF, /* 14 event-time: none */
	0x0D, 0x1C,		/* 18 event-type = MDC_NOTI_CONFIG */
	0x00, 0xAA,		/* 20 event-info.length = 170 */
	0x40, 0x00,		/* 22 config-report-id = 0x4000 (extended) */
	0x00, 0x04,		/* 24 config-obj-list.count = 4 */
	0x00, 0xA4,		/* 26 config-obj-list.length = 164 */
	/* 28 object 1: steps (distance in steps) */
	0x00, 0x06, 0x00, 0x01, /* MDC_MOC_VMO_METRIC_NU, handle 1 */
	0x00, 0x04, 0x00, 0x24, /* 32 attributes: count 4, length 36 */
	0x09, 0x2F, 0x00, 0x04, 0x00, 0x81, 0x00, 0x67, /* 36 type: PHD_HF, MDC_HF_DISTANCE */
	0x0A, 0x46, 0x00, 0x02, 0x40, 0x40,		/* 44 metric-spec-small */
	0x09, 0x96, 0x00, 0x02, 0x1A, 0x00,		/* 50 unit: MDC_DIM_X_STEP */
	0x0A, 0x55, 0x00, 0x0C,				/* 56 attribute-value-map, length 12 */
	0x00, 0x02, 0x00, 0x08,				/* 60 count 2, length 8 */
	0x0A, 0x56, 0x00, 0x04,				/* 64 NU_VAL_OBS_SIMP (FLOAT), 4 */
	0x09, 0x90, 0x00, 0x08,				/* 68 TIME_STAMP_ABS, 8 */
	/* 72 object 2: activity time */
	0x00, 0x06, 0x00, 0x02, 0x00, 0x04, 0x00, 0x20, /* numeric, handle 2, 4 attrs, 32 */
	0x09, 0x2F, 0x00, 0x04, 0x00, 0x81, 0x00, 0x7D, /* 80 type: MDC_HF_ACTIVITY_TIME */
	0x0A, 0x46, 0x00, 0x02, 0x40, 0x40,		/* 88 */
	0x09, 0x96, 0x00, 0x02, 0x08, 0xA0,		/* 94 unit: MDC_DIM_MIN */
	0x0A, 0x55, 0x00, 0x08, 0x00, 0x01, 0x00, 0x04, /* 100 map: 1 entry */
	0x0A, 0x4C, 0x00, 0x02,				/* 108 NU_VAL_OBS_BASIC (SFLOAT), 2 */
	/* 112 object 3: activity intensity */
	0x00, 0x06, 0x00, 0x03, 0x00, 0x04, 0x00, 0x20, /* numeric, handle 3 */
	0x09, 0x2F, 0x00, 0x04, 0x00, 0x81, 0x00, 0x7F, /* 120 type: MDC_HF_ACTIVITY_INTENSITY */
	0x0A, 0x46, 0x00, 0x02, 0x40, 0x40,		/* 128 */
	0x09, 0x96, 0x00, 0x02, 0x02, 0x20,		/* 134 unit: MDC_DIM_PERCENT */
	0x0A, 0x55, 0x00, 0x08, 0x00, 0x01, 0x00, 0x04, /* 140 */
	0x0A, 0x4C, 0x00, 0x02,				/* 148 SFLOAT */
	/* 152 object 4: distance in metres */
	0x00, 0x06, 0x00, 0x04, 0x00, 0x04, 0x00, 0x20, /* numeric, handle 4 */
	0x09, 0x2F, 0x00, 0x04, 0x00, 0x81, 0x00, 0x67, /* 160 type: MDC_HF_DISTANCE */
	0x0A, 0x46, 0x00, 0x02, 0x40, 0x40,		/* 168 */
	0x09, 0x96, 0x00, 0x02, 0x05, 0x00,		/* 174 unit: MDC_DIM_X_M */
	0x0A, 0x55, 0x00, 0x08, 0x00, 0x01, 0x00, 0x04, /* 180 */
	0x0A, 0x56, 0x00, 0x04,				/* 188 FLOAT */
};
static const uint16_t cfg_act_lens[] = {2,   4,	  10,  20,  26,	 34,  38,  46,	52,  58,
					62,  78,  82,  90,  96,	 102, 106, 118, 122, 130,
					136, 142, 146, 158, 162, 170, 176, 182, 186};

/* PRST: the manager's response, rors-cmip-confirmed-event-report with ConfigReportRsp */
static const uint8_t cfg_rsp[] = {
	0xE7, 0x00, 0x00, 0x16, /* PRST, length 22 */
	0x00, 0x14,		/* octet string length 20 */
	0x12, 0x35,		/* invoke-id (the report's) */
	0x02, 0x01,		/* rors-cmip-confirmed-event-report */
	0x00, 0x0E,		/* length 14 */
	0x00, 0x00,		/* obj-handle 0 */
	0x00, 0x00, 0x00, 0x00, /* currentTime 0 */
	0x0D, 0x1C,		/* event-type = MDC_NOTI_CONFIG */
	0x00, 0x04,		/* event-reply-info.length 4 */
	0x40, 0x00,		/* config-report-id 0x4000 */
	0x00, 0x00,		/* config-result = accepted-config */
};

/* PRST: confirmed fixed scan report of a pulse oximeter in configuration 0x0190 */
static const uint8_t scan_fixed[] = {
	0xE7, 0x00, 0x00, 0x36, /* 0 PRST, length 54 */
	0x00, 0x34,		/* 4 octet string length 52 */
	0x12, 0x36,		/* 6 invoke-id */
	0x01, 0x01,		/* 8 roiv-cmip-confirmed-event-report */
	0x00, 0x2E,		/* 10 length 46 */
	0x00, 0x00,		/* 12 obj-handle 0 */
	0x00, 0x00, 0x00, 0x00, /* 14 event-time 0 */
	0x0D, 0x1D,		/* 18 MDC_NOTI_SCAN_REPORT_FIXED */
	0x00, 0x24,		/* 20 event-info.length 36 */
	0xF0, 0x00,		/* 22 data-req-id: agent-initiated */
	0x00, 0x00,		/* 24 scan-report-no 0 */
	0x00, 0x02,		/* 26 obs-scan-fixed.count 2 */
	0x00, 0x1C,		/* 28 obs-scan-fixed.length 28 */
	0x00, 0x01,		/* 30 obj-handle 1 (SpO2) */
	0x00, 0x0A,		/* 32 obs-val-data.length 10 */
	0x00, 0x62,		/* 34 SFLOAT 98 */
	0x20, 0x07, 0x12, 0x06, 0x12, 0x10, 0x00, 0x00, /* 36 2007-12-06 12:10:00.00 */
	0x00, 0x0A,		/* 44 obj-handle 10 (pulse rate) */
	0x00, 0x0A,		/* 46 obs-val-data.length 10 */
	0x00, 0x48,		/* 48 SFLOAT 72 */
	0x20, 0x07, 0x12, 0x06, 0x12, 0x10, 0x00, 0x00, /* 50 */
};
static const uint16_t scan_fixed_lens[] = {2, 4, 10, 20, 28, 32, 46};

/* What the gateway answers to it: rors-cmip-confirmed-event-report, empty reply */
static const uint8_t scan_rsp[] = {
	0xE7, 0x00, 0x00, 0x12, /* PRST, length 18 */
	0x00, 0x10,		/* octet string length 16 */
	0x12, 0x36,		/* invoke-id */
	0x02, 0x01,		/* rors-cmip-confirmed-event-report */
	0x00, 0x0A,		/* length 10 */
	0x00, 0x00,		/* obj-handle */
	0x00, 0x00, 0x00, 0x00, /* currentTime */
	0x0D, 0x1D,		/* event-type */
	0x00, 0x00,		/* event-reply-info: empty */
};

/* PRST: unconfirmed fixed scan report of the activity monitor (configuration 0x4000) */
static const uint8_t scan_act[] = {
	0xE7, 0x00, 0x00, 0x3E, /* 0 PRST, length 62 */
	0x00, 0x3C,		/* 4 */
	0x00, 0x09,		/* 6 invoke-id */
	0x01, 0x00,		/* 8 roiv-cmip-event-report */
	0x00, 0x36,		/* 10 length 54 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 12 obj-handle, event-time */
	0x0D, 0x1D,		/* 18 MDC_NOTI_SCAN_REPORT_FIXED */
	0x00, 0x2C,		/* 20 event-info.length 44 */
	0xF0, 0x00, 0x00, 0x03, /* 22 data-req-id, scan-report-no 3 */
	0x00, 0x04, 0x00, 0x24, /* 26 obs-scan-fixed: 4 observations, 36 bytes */
	0x00, 0x01, 0x00, 0x0C, /* 30 handle 1, 12 bytes */
	0x00, 0x00, 0x04, 0xD2, /* 34 FLOAT 1234 (steps) */
	0x20, 0x18, 0x03, 0x15, 0x08, 0x30, 0x00, 0x00, /* 38 2018-03-15 08:30:00.00 */
	0x00, 0x02, 0x00, 0x02, 0x00, 0x2D, /* 46 handle 2: SFLOAT 45 (min) */
	0x00, 0x03, 0x00, 0x02, 0xF2, 0xF3, /* 52 handle 3: SFLOAT 755e-1 = 75.5 (%) */
	0x00, 0x04, 0x00, 0x04, 0x01, 0x00, 0x00, 0x7D, /* 58 handle 4: FLOAT 125e1 = 1250 (m) */
};

/* PRST: variable scan report of a medication monitor (10472) */
static const uint8_t scan_var[] = {
	0xE7, 0x00, 0x00, 0x3E, /* 0 PRST, length 62 */
	0x00, 0x3C,		/* 4 */
	0x00, 0x07,		/* 6 invoke-id */
	0x01, 0x01,		/* 8 confirmed event report */
	0x00, 0x36,		/* 10 length 54 */
	0x00, 0x00,		/* 12 obj-handle */
	0x00, 0x00, 0x10, 0x00, /* 14 event-time 4096 (0.512 s) */
	0x0D, 0x1E,		/* 18 MDC_NOTI_SCAN_REPORT_VAR */
	0x00, 0x2C,		/* 20 event-info.length 44 */
	0xF0, 0x00, 0x00, 0x01, /* 22 data-req-id, scan-report-no 1 */
	0x00, 0x02, 0x00, 0x24, /* 26 obs-scan-var: 2 observations, 36 bytes */
	0x00, 0x01,		/* 30 handle 1: doses dispensed */
	0x00, 0x02, 0x00, 0x12, /* 32 attribute-list: 2, 18 bytes */
	0x0A, 0x4C, 0x00, 0x02, 0x00, 0x01, /* 36 NU_VAL_OBS_BASIC = 1 */
	0x09, 0x90, 0x00, 0x08,		   /* 42 TIME_STAMP_ABS */
	0x20, 0x24, 0x01, 0x31, 0x08, 0x00, 0x00, 0x00, /* 46 2024-01-31 08:00:00.00 */
	0x00, 0x03,		/* 54 handle 3: monitor status */
	0x00, 0x01, 0x00, 0x06, /* 56 attribute-list: 1, 6 bytes */
	0x0A, 0x66, 0x00, 0x02, 0x80, 0x00, /* 60 ENUM_OBS_VAL_BASIC_BIT_STR = 0x8000 */
};
static const uint16_t scan_var_lens[] = {2, 4, 10, 20, 28, 34, 38, 44, 58, 62};

/* PRST: multi-person fixed scan report (0x0D1F), configuration 0x0190 */
static const uint8_t scan_mp_fixed[] = {
	0xE7, 0x00, 0x00, 0x42, /* 0 PRST, length 66 */
	0x00, 0x40,		/* 4 */
	0x00, 0x08, 0x01, 0x00, /* 6 invoke-id, roiv-cmip-event-report */
	0x00, 0x3A,		/* 10 length 58 */
	0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, /* 12 obj-handle, event-time: none */
	0x0D, 0x1F,		/* 18 MDC_NOTI_SCAN_REPORT_MP_FIXED */
	0x00, 0x30,		/* 20 event-info.length 48 */
	0xF0, 0x00, 0x00, 0x02, /* 22 data-req-id, scan-report-no 2 */
	0x00, 0x02, 0x00, 0x28, /* 26 scan-per-fixed: 2 persons, 40 bytes */
	0x00, 0x01,		/* 30 person-id 1 */
	0x00, 0x01, 0x00, 0x0E, /* 32 obs-scan-fix: 1, 14 bytes */
	0x00, 0x01, 0x00, 0x0A, /* 36 handle 1, 10 bytes */
	0x00, 0x62, 0x20, 0x24, 0x02, 0x29, 0x23, 0x59, 0x59, 0x99, /* 40 98, 2024-02-29 */
	0x00, 0x02,		/* 50 person-id 2 */
	0x00, 0x01, 0x00, 0x0E, /* 52 */
	0x00, 0x0A, 0x00, 0x0A, /* 56 handle 10 */
	0x00, 0x3C, 0x20, 0x24, 0x02, 0x29, 0x23, 0x59, 0x59, 0x99, /* 60 60 bpm */
};
static const uint16_t scan_mp_fixed_lens[] = {2, 4, 10, 20, 28, 34, 38, 54, 58};

/* PRST: multi-person variable scan report (0x0D20) */
static const uint8_t scan_mp_var[] = {
	0xE7, 0x00, 0x00, 0x2C, 0x00, 0x2A, /* PRST 44, octets 42 */
	0x00, 0x0A, 0x01, 0x01, 0x00, 0x24, /* invoke-id, confirmed event report, 36 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* obj-handle, event-time */
	0x0D, 0x20, 0x00, 0x1A,		    /* MDC_NOTI_SCAN_REPORT_MP_VAR, 26 bytes */
	0xF0, 0x00, 0x00, 0x00,		    /* data-req-id, scan-report-no */
	0x00, 0x01, 0x00, 0x12,		    /* scan-per-var: 1 person, 18 bytes */
	0x00, 0x07,			    /* person-id 7 */
	0x00, 0x01, 0x00, 0x0C,		    /* obs-scan-var: 1, 12 bytes */
	0x00, 0x01, 0x00, 0x01, 0x00, 0x06, /* handle 1, attribute-list 1, 6 bytes */
	0x0A, 0x4C, 0x00, 0x02, 0x00, 0x62, /* NU_VAL_OBS_BASIC 98 */
};

/* PRST: unbuffered grouped scan report (0x0D24): two groups, kept as octets */
static const uint8_t scan_grouped[] = {
	0xE7, 0x00, 0x00, 0x22, 0x00, 0x20, /* PRST 34, octets 32 */
	0x00, 0x0B, 0x01, 0x00, 0x00, 0x1A, /* invoke-id, event report, 26 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* */
	0x0D, 0x24, 0x00, 0x10,		    /* MDC_NOTI_UNBUF_SCAN_REPORT_GROUPED, 16 */
	0xF0, 0x00, 0x00, 0x00,		    /* */
	0x00, 0x02, 0x00, 0x08,		    /* obs-scan-grouped: 2, 8 bytes */
	0x00, 0x03, 0x01, 0x02, 0x03,	    /* 3 bytes */
	0x00, 0x01, 0xFF,		    /* 1 byte */
};

/* PRST: buffered multi-person grouped scan report (0x0D2D) */
static const uint8_t scan_mp_grouped[] = {
	0xE7, 0x00, 0x00, 0x20, 0x00, 0x1E, /* PRST 32, octets 30 */
	0x00, 0x0C, 0x01, 0x00, 0x00, 0x18, /* invoke-id, event report, 24 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* */
	0x0D, 0x2D, 0x00, 0x0E,		    /* MDC_NOTI_BUF_SCAN_REPORT_MP_GROUPED, 14 */
	0x00, 0x01, 0x00, 0x05,		    /* data-req-id 1 (manager), scan-report-no 5 */
	0x00, 0x01, 0x00, 0x06,		    /* scan-per-grouped: 1, 6 bytes */
	0x00, 0x05, 0x00, 0x02, 0xAA, 0xBB, /* person 5: 2 bytes */
};

/* PRST: GET of all MDS attributes (roiv-cmip-get, empty id list) */
static const uint8_t get_all[] = {
	0xE7, 0x00, 0x00, 0x0E, 0x00, 0x0C, /* PRST 14, octets 12 */
	0x00, 0x05, 0x01, 0x03, 0x00, 0x06, /* invoke-id 5, roiv-cmip-get, 6 */
	0x00, 0x00,			    /* obj-handle 0 */
	0x00, 0x00, 0x00, 0x00,		    /* attribute-id-list: empty */
};

/* PRST: GET of two attributes */
static const uint8_t get_two[] = {
	0xE7, 0x00, 0x00, 0x12, 0x00, 0x10, /* PRST 18, octets 16 */
	0x00, 0x06, 0x01, 0x03, 0x00, 0x0A, /* invoke-id 6, roiv-cmip-get, 10 */
	0x00, 0x00, 0x00, 0x02, 0x00, 0x04, /* handle 0, 2 ids, 4 bytes */
	0x09, 0x84, 0x0A, 0x44,		    /* MDC_ATTR_SYS_ID, MDC_ATTR_DEV_CONFIG_ID */
};

/* PRST: the MDS attributes (rors-cmip-get) */
static const uint8_t get_rsp[] = {
	0xE7, 0x00, 0x00, 0x3E, /* 0 PRST, length 62 */
	0x00, 0x3C,		/* 4 */
	0x00, 0x05, 0x02, 0x03, /* 6 invoke-id 5, rors-cmip-get */
	0x00, 0x36,		/* 10 length 54 */
	0x00, 0x00,		/* 12 obj-handle 0 */
	0x00, 0x04, 0x00, 0x30, /* 14 attribute-list: 4, 48 bytes */
	0x09, 0x84, 0x00, 0x0A, /* 18 MDC_ATTR_SYS_ID, 10 */
	0x00, 0x08, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, /* 22 octet string */
	0x0A, 0x44, 0x00, 0x02, 0x01, 0x90, /* 32 MDC_ATTR_DEV_CONFIG_ID 0x0190 */
	0x0A, 0x5A, 0x00, 0x08,		    /* 38 MDC_ATTR_SYS_TYPE_SPEC_LIST, 8 */
	0x00, 0x01, 0x00, 0x04, 0x10, 0x04, 0x00, 0x01, /* 42 pulse oximeter, version 1 */
	0x09, 0x28, 0x00, 0x0C,				/* 50 MDC_ATTR_ID_MODEL, 12 */
	0x00, 0x04, 'A', 'C', 'M', 'E', 0x00, 0x04, 'P', 'O', '-', '1', /* 54 */
};
static const uint16_t get_rsp_lens[] = {2, 4, 10, 16, 20, 22, 34, 40, 52};

/* PRST: confirmed SET of a scanner's operational state, and its result */
static const uint8_t set_req[] = {
	0xE7, 0x00, 0x00, 0x16, 0x00, 0x14, /* PRST 22, octets 20 */
	0x00, 0x0D, 0x01, 0x05, 0x00, 0x0E, /* invoke-id 13, roiv-cmip-confirmed-set, 14 */
	0x00, 0x05,			    /* obj-handle 5 */
	0x00, 0x01, 0x00, 0x08,		    /* modification-list: 1, 8 bytes */
	0x00, 0x00,			    /* replace */
	0x09, 0x53, 0x00, 0x02, 0x00, 0x01, /* MDC_ATTR_OP_STAT = enabled */
};
static const uint8_t set_rsp[] = {
	0xE7, 0x00, 0x00, 0x14, 0x00, 0x12, /* PRST 20, octets 18 */
	0x00, 0x0D, 0x02, 0x05, 0x00, 0x0C, /* rors-cmip-confirmed-set, 12 */
	0x00, 0x05, 0x00, 0x01, 0x00, 0x06, /* handle 5, attribute-list 1, 6 bytes */
	0x09, 0x53, 0x00, 0x02, 0x00, 0x01, /* MDC_ATTR_OP_STAT */
};

/* PRST: confirmed ACTION set-time (SetTimeInvoke) and its result */
static const uint8_t action_req[] = {
	0xE7, 0x00, 0x00, 0x1A, 0x00, 0x18, /* PRST 26, octets 24 */
	0x00, 0x0E, 0x01, 0x07, 0x00, 0x12, /* invoke-id 14, roiv-cmip-confirmed-action, 18 */
	0x00, 0x00, 0x0C, 0x17,		    /* MDS, MDC_ACT_SET_TIME */
	0x00, 0x0C,			    /* action-info-args.length 12 */
	0x20, 0x24, 0x05, 0x17, 0x10, 0x30, 0x00, 0x00, /* date-time */
	0x00, 0x00, 0x00, 0x00,				/* accuracy FLOAT 0 */
};
static const uint8_t action_rsp[] = {
	0xE7, 0x00, 0x00, 0x0E, 0x00, 0x0C, /* PRST 14, octets 12 */
	0x00, 0x0E, 0x02, 0x07, 0x00, 0x06, /* rors-cmip-confirmed-action, 6 */
	0x00, 0x00, 0x0C, 0x17, 0x00, 0x00, /* MDS, set-time, no result args */
};

/* PRST: roer no-such-object-instance; rorj unrecognized-operation */
static const uint8_t roer[] = {
	0xE7, 0x00, 0x00, 0x0C, 0x00, 0x0A, 0x00, 0x0F, 0x03, 0x00,
	0x00, 0x04, 0x00, 0x01, 0x00, 0x00,
};
static const uint8_t rorj[] = {
	0xE7, 0x00, 0x00, 0x0A, 0x00, 0x08, 0x00, 0x10, 0x04, 0x00, 0x00, 0x02, 0x00, 0x65,
};

/* clang-format on */

/* ---- helpers ---- */

enum { MAP_NONE, MAP_STD, MAP_ACT };

static struct tp_phd_value_map std_map, act_map;

static const struct tp_phd_value_map *map_of(int which)
{
	return which == MAP_STD ? &std_map : which == MAP_ACT ? &act_map : NULL;
}

/* An exact-size heap copy: AddressSanitizer flags any read past its end. */
static uint8_t *dup_exact(const uint8_t *b, size_t n)
{
	uint8_t *p = malloc(n ? n : 1);
	assert_non_null(p);
	if (n)
		memcpy(p, b, n);
	return p;
}

static int check(const uint8_t *b, size_t n, int which, struct tp_phd_error *err)
{
	uint8_t *p = dup_exact(b, n);
	int rc = tp_phd_check(p, n, map_of(which), err);
	free(p);
	return rc;
}

static uint8_t out[70000];

/* What decodes must re-encode to the same bytes (MDER is canonical): the APDU,
 * the event information of configuration and scan reports, every AVA. */
static int canonical(const uint8_t *b, size_t n)
{
	static struct tp_phd_apdu a;
	static struct tp_phd_config_report c;
	static struct tp_phd_scan_report s;
	struct tp_phd_config_rsp r;
	struct tp_phd_value v;
	const struct tp_phd_event_report *e = &a.u.prst.u.evt;
	int len;

	if (tp_phd_decode_apdu(b, n, &a, NULL) < 0)
		return 0;
	len = tp_phd_encode_apdu(&a, out, sizeof(out));
	if (len != (int)n || memcmp(out, b, n) != 0)
		return 0;
	if (a.type != TP_PHD_PRST)
		return 1;
	if (a.u.prst.choice != TP_PHD_ROIV_EVENT_REPORT &&
	    a.u.prst.choice != TP_PHD_ROIV_CONF_EVENT_REPORT &&
	    a.u.prst.choice != TP_PHD_RORS_CONF_EVENT_REPORT)
		return 1;
	if (e->type == MDC_NOTI_CONFIG && a.u.prst.choice == TP_PHD_RORS_CONF_EVENT_REPORT) {
		if (tp_phd_decode_config_rsp(e->info.p, e->info.len, &r, NULL) == 0) {
			len = tp_phd_encode_config_rsp(&r, out, sizeof(out));
			return len == e->info.len && memcmp(out, e->info.p, len) == 0;
		}
	} else if (e->type == MDC_NOTI_CONFIG) {
		if (tp_phd_decode_config_report(e->info.p, e->info.len, &c, NULL) == 0) {
			len = tp_phd_encode_config_report(&c, out, sizeof(out));
			if (len != e->info.len || memcmp(out, e->info.p, len) != 0)
				return 0;
			for (int i = 0; i < c.nobjs; i++)
				for (int k = 0; k < c.obj[i].attrs.count; k++) {
					const struct tp_phd_ava *av = &c.obj[i].attrs.ava[k];
					if (tp_phd_attr_value_decode(av->id, av->val.p, av->val.len,
								     &v, NULL) < 0)
						continue;
					len = tp_phd_attr_value_encode(&v, out, sizeof(out));
					if (len != av->val.len || memcmp(out, av->val.p, len) != 0)
						return 0;
				}
		}
	} else if (tp_phd_decode_scan_report(e->type, e->info.p, e->info.len, &s, NULL) == 0) {
		len = tp_phd_encode_scan_report(&s, out, sizeof(out));
		if (len != e->info.len || memcmp(out, e->info.p, len) != 0)
			return 0;
	}
	return 1;
}

/* Everything the codec promises about one well-formed APDU. */
static void check_apdu(const char *name, const uint8_t *b, size_t n, int which,
		       const uint16_t *lens, size_t nlens)
{
	struct tp_phd_error err;
	uint8_t *m;
	int rc;

	rc = check(b, n, which, &err);
	if (rc != 0) {
		char msg[200];
		tp_phd_error_fmt(&err, msg, sizeof(msg));
		fail_msg("%s: %s", name, msg);
	}
	assert_true(canonical(b, n));

	/* every truncation fails, with an error inside the bytes given */
	for (size_t l = 0; l < n; l++) {
		rc = check(b, l, which, &err);
		if (rc >= 0)
			fail_msg("%s: truncated to %zu bytes decodes", name, l);
		assert_int_equal(err.code, -rc);
		assert_true(err.offset <= l);
	}
	/* a length field one off, or huge, fails */
	m = dup_exact(b, n);
	for (size_t i = 0; i < nlens; i++) {
		size_t o = lens[i];
		uint16_t orig = (uint16_t)(b[o] << 8 | b[o + 1]);
		const uint16_t vals[] = {(uint16_t)(orig + 1), (uint16_t)(orig - 1), 0xFFFF};
		for (int d = 0; d < 3; d++) {
			uint16_t v = vals[d];
			m[o] = (uint8_t)(v >> 8);
			m[o + 1] = (uint8_t)v;
			if (tp_phd_check(m, n, map_of(which), &err) >= 0)
				fail_msg("%s: length at %zu set to %u decodes", name, o, v);
		}
		m[o] = b[o];
		m[o + 1] = b[o + 1];
	}
	/* any corruption: no crash, no read past the end, and what still decodes
	 * is canonical */
	for (size_t i = 0; i < n; i++) {
		static const uint8_t flips[] = {0x01, 0x02, 0x10, 0x80, 0xFF};
		for (size_t f = 0; f < sizeof(flips); f++) {
			m[i] = b[i] ^ flips[f];
			if (tp_phd_check(m, n, map_of(which), &err) == 0 && !canonical(m, n))
				fail_msg("%s: byte %zu ^ 0x%02x decodes but is not canonical", name,
					 i, flips[f]);
		}
		m[i] = b[i];
		if (i + 1 < n) {
			static const uint16_t words[] = {0x0000, 0x0001, 0x7FFF, 0xFFFF};
			for (size_t w = 0; w < 4; w++) {
				m[i] = (uint8_t)(words[w] >> 8);
				m[i + 1] = (uint8_t)words[w];
				if (tp_phd_check(m, n, map_of(which), &err) == 0)
					assert_true(canonical(m, n));
			}
			m[i] = b[i];
			m[i + 1] = b[i + 1];
		}
	}
	free(m);
}

/* CHECK_LENS also names the offsets of the APDU's 16-bit length fields. */
#define CHECK(a, map) check_apdu(#a, a, sizeof(a), map, NULL, 0)
#define CHECK_LENS(a, map, lens) check_apdu(#a, a, sizeof(a), map, lens, sizeof(lens) / 2)

static int setup(void **state)
{
	static struct tp_phd_apdu a;
	static struct tp_phd_config_report c;

	assert_int_equal(tp_phd_std_value_map(0x0190, &std_map), 0);
	assert_int_equal(tp_phd_decode_apdu(cfg_act, sizeof(cfg_act), &a, NULL), 0);
	assert_int_equal(
	    tp_phd_decode_config_report(a.u.prst.u.evt.info.p, a.u.prst.u.evt.info.len, &c, NULL),
	    0);
	assert_int_equal(tp_phd_value_map_build(&c, &act_map, NULL), 0);
	return 0;
}

/* ---- association ---- */

static void test_aarq(void **state)
{
	static struct tp_phd_apdu a;
	struct tp_phd_assoc_info *ai = &a.u.aarq.phd;

	assert_int_equal(tp_phd_decode_apdu(aarq, sizeof(aarq), &a, NULL), 0);
	assert_int_equal(a.type, TP_PHD_AARQ);
	assert_int_equal(a.u.aarq.assoc_version, TP_PHD_ASSOC_VERSION1);
	assert_int_equal(a.u.aarq.nprotos, 1);
	assert_int_equal(a.u.aarq.proto[0].id, TP_PHD_DATA_PROTO_20601);
	assert_int_equal(a.u.aarq.phd_index, 0);
	assert_int_equal(ai->protocol_version, TP_PHD_PROTOCOL_VERSION1);
	assert_int_equal(ai->encoding_rules, TP_PHD_ENC_MDER | TP_PHD_ENC_PER);
	assert_int_equal(ai->nomenclature_version, TP_PHD_NOM_VERSION1);
	assert_int_equal(ai->system_type, TP_PHD_SYS_TYPE_AGENT);
	assert_int_equal(ai->system_id.len, 8);
	assert_ptr_equal(ai->system_id.p, aarq + 36); /* in place, not copied */
	assert_int_equal(ai->dev_config_id, 0x0190);
	assert_int_equal(ai->data_req_mode_flags, TP_PHD_DATA_REQ_SUPP_INIT_AGENT);
	assert_int_equal(ai->data_req_init_agent_count, 1);
	assert_int_equal(ai->option_list.count, 0);
	CHECK_LENS(aarq, MAP_NONE, aarq_lens);
}

/* An agent builds its AARQ from fields: the same bytes. */
static void test_aarq_encode(void **state)
{
	static const uint8_t sysid[8] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};
	static struct tp_phd_apdu a;
	uint8_t buf[128];

	memset(&a, 0, sizeof(a));
	a.type = TP_PHD_AARQ;
	a.u.aarq.assoc_version = TP_PHD_ASSOC_VERSION1;
	a.u.aarq.nprotos = 1;
	a.u.aarq.proto[0].id = TP_PHD_DATA_PROTO_20601;
	a.u.aarq.phd_index = 0;
	a.u.aarq.phd.protocol_version = TP_PHD_PROTOCOL_VERSION1;
	a.u.aarq.phd.encoding_rules = TP_PHD_ENC_MDER | TP_PHD_ENC_PER;
	a.u.aarq.phd.nomenclature_version = TP_PHD_NOM_VERSION1;
	a.u.aarq.phd.system_type = TP_PHD_SYS_TYPE_AGENT;
	a.u.aarq.phd.system_id.p = sysid;
	a.u.aarq.phd.system_id.len = 8;
	a.u.aarq.phd.dev_config_id = 0x0190;
	a.u.aarq.phd.data_req_mode_flags = TP_PHD_DATA_REQ_SUPP_INIT_AGENT;
	a.u.aarq.phd.data_req_init_agent_count = 1;
	assert_int_equal(tp_phd_encode_apdu(&a, buf, sizeof(buf)), sizeof(aarq));
	assert_memory_equal(buf, aarq, sizeof(aarq));
	/* every buffer too small fails without writing past its end */
	for (size_t size = 0; size < sizeof(aarq); size++) {
		memset(buf, 0xA5, sizeof(buf));
		assert_int_equal(tp_phd_encode_apdu(&a, buf, size), -TP_PHD_E_NO_SPACE);
		for (size_t i = size; i < sizeof(buf); i++)
			assert_int_equal(buf[i], 0xA5);
	}
}

static void test_aare(void **state)
{
	static struct tp_phd_apdu a;

	assert_int_equal(tp_phd_decode_apdu(aare, sizeof(aare), &a, NULL), 0);
	assert_int_equal(a.type, TP_PHD_AARE);
	assert_int_equal(a.u.aare.result, TP_PHD_ACCEPTED);
	assert_true(a.u.aare.has_phd);
	assert_int_equal(a.u.aare.phd.system_type, TP_PHD_SYS_TYPE_MANAGER);
	assert_int_equal(a.u.aare.phd.encoding_rules, TP_PHD_ENC_MDER);
	assert_int_equal(a.u.aare.phd.dev_config_id, TP_PHD_CONFIG_MANAGER_RSP);
	assert_string_equal(tp_phd_assoc_result_name(a.u.aare.result), "accepted");
	CHECK_LENS(aare, MAP_NONE, aare_lens);

	assert_int_equal(tp_phd_decode_apdu(aare_rej, sizeof(aare_rej), &a, NULL), 0);
	assert_int_equal(a.u.aare.result, TP_PHD_REJECTED_UNKNOWN);
	assert_false(a.u.aare.has_phd);
	assert_int_equal(a.u.aare.proto.info.len, 0);
	assert_string_equal(tp_phd_assoc_result_name(TP_PHD_ACCEPTED_UNKNOWN_CONFIG),
			    "accepted-unknown-config");
	CHECK(aare_rej, MAP_NONE);
}

static void test_release_abort(void **state)
{
	static struct tp_phd_apdu a;
	uint8_t buf[8];

	assert_int_equal(tp_phd_decode_apdu(rlrq, sizeof(rlrq), &a, NULL), 0);
	assert_int_equal(a.type, TP_PHD_RLRQ);
	assert_int_equal(a.u.reason, 0);
	assert_int_equal(tp_phd_decode_apdu(rlre, sizeof(rlre), &a, NULL), 0);
	assert_int_equal(a.type, TP_PHD_RLRE);
	assert_int_equal(tp_phd_decode_apdu(abrt, sizeof(abrt), &a, NULL), 0);
	assert_int_equal(a.type, TP_PHD_ABRT);
	assert_string_equal(tp_phd_abort_reason_name(a.u.reason), "response-timeout");
	a.type = TP_PHD_RLRQ;
	a.u.reason = 1;
	assert_int_equal(tp_phd_encode_apdu(&a, buf, sizeof(buf)), 6);
	assert_memory_equal(buf, ((uint8_t[]){0xE4, 0x00, 0x00, 0x02, 0x00, 0x01}), 6);
	assert_string_equal(tp_phd_release_reason_name(1), "no-more-configurations");
	CHECK(rlrq, MAP_NONE);
	CHECK(rlre, MAP_NONE);
	CHECK(abrt, MAP_NONE);
}

/* ---- configuration ---- */

static void test_config_report(void **state)
{
	static struct tp_phd_apdu a;
	static struct tp_phd_config_report c;
	struct tp_phd_value v;
	const struct tp_phd_obj_map *om;

	assert_int_equal(tp_phd_decode_apdu(cfg_act, sizeof(cfg_act), &a, NULL), 0);
	assert_int_equal(a.u.prst.invoke_id, 0x1235);
	assert_int_equal(a.u.prst.choice, TP_PHD_ROIV_CONF_EVENT_REPORT);
	assert_int_equal(a.u.prst.u.evt.type, MDC_NOTI_CONFIG);
	assert_int_equal(a.u.prst.u.evt.time, TP_PHD_TIME_NONE);
	assert_ptr_equal(a.u.prst.u.evt.info.p, cfg_act + 22);
	assert_int_equal(
	    tp_phd_decode_config_report(a.u.prst.u.evt.info.p, a.u.prst.u.evt.info.len, &c, NULL),
	    0);
	assert_int_equal(c.config_report_id, 0x4000);
	assert_int_equal(c.nobjs, 4);
	assert_int_equal(c.obj[0].obj_class, MDC_MOC_VMO_METRIC_NU);
	assert_int_equal(c.obj[0].handle, 1);
	assert_int_equal(c.obj[0].attrs.count, 4);
	assert_int_equal(c.obj[0].attrs.ava[0].id, MDC_ATTR_ID_TYPE);
	assert_int_equal(tp_phd_attr_value_decode(MDC_ATTR_ID_TYPE, c.obj[0].attrs.ava[0].val.p,
						  c.obj[0].attrs.ava[0].val.len, &v, NULL),
			 0);
	assert_int_equal(v.kind, TP_PHD_V_TYPE);
	assert_int_equal(v.u.type.partition, MDC_PART_PHD_HF);
	assert_int_equal(v.u.type.code, MDC_HF_DISTANCE);
	assert_int_equal(tp_phd_attr_value_decode(MDC_ATTR_ATTRIBUTE_VAL_MAP,
						  c.obj[0].attrs.ava[3].val.p,
						  c.obj[0].attrs.ava[3].val.len, &v, NULL),
			 0);
	assert_int_equal(v.kind, TP_PHD_V_AVM);
	assert_int_equal(v.n, 2);
	assert_int_equal(v.u.avm[0].attr_id, MDC_ATTR_NU_VAL_OBS_SIMP);
	assert_int_equal(v.u.avm[1].len, 8);

	/* what the session manager keeps for the fast path */
	assert_int_equal(act_map.config_id, 0x4000);
	assert_int_equal(act_map.nobjs, 4);
	om = tp_phd_value_map_find(&act_map, 1);
	assert_non_null(om);
	assert_int_equal(om->type_partition, MDC_PART_PHD_HF);
	assert_int_equal(om->type_code, MDC_HF_DISTANCE);
	assert_int_equal(om->unit, MDC_DIM_X_STEP);
	assert_int_equal(om->n, 2);
	assert_int_equal(om->total_len, 12);
	assert_string_equal(tp_phd_metric_find(om->type_partition, om->type_code, om->unit)->label,
			    "steps");
	om = tp_phd_value_map_find(&act_map, 4);
	assert_string_equal(tp_phd_metric_find(om->type_partition, om->type_code, om->unit)->label,
			    "distance");
	assert_null(tp_phd_value_map_find(&act_map, 5));
	CHECK_LENS(cfg_act, MAP_NONE, cfg_act_lens);
}

static void test_config_rsp(void **state)
{
	static struct tp_phd_apdu a;
	struct tp_phd_config_rsp r = {0x4000, TP_PHD_CONFIG_ACCEPTED};
	uint8_t info[4], buf[64];
	int n;

	assert_int_equal(tp_phd_decode_apdu(cfg_rsp, sizeof(cfg_rsp), &a, NULL), 0);
	assert_int_equal(a.u.prst.choice, TP_PHD_RORS_CONF_EVENT_REPORT);
	assert_int_equal(
	    tp_phd_decode_config_rsp(a.u.prst.u.evt.info.p, a.u.prst.u.evt.info.len, &r, NULL), 0);
	assert_int_equal(r.config_report_id, 0x4000);
	assert_int_equal(r.result, TP_PHD_CONFIG_ACCEPTED);
	assert_string_equal(tp_phd_config_result_name(TP_PHD_CONFIG_UNSUPPORTED),
			    "unsupported-config");

	/* the control plane builds it: reply info first, then the APDU around it */
	n = tp_phd_encode_config_rsp(&r, info, sizeof(info));
	assert_int_equal(n, 4);
	memset(&a, 0, sizeof(a));
	a.type = TP_PHD_PRST;
	a.u.prst.invoke_id = 0x1235;
	a.u.prst.choice = TP_PHD_RORS_CONF_EVENT_REPORT;
	a.u.prst.u.evt.type = MDC_NOTI_CONFIG;
	a.u.prst.u.evt.info.p = info;
	a.u.prst.u.evt.info.len = (uint16_t)n;
	assert_int_equal(tp_phd_encode_apdu(&a, buf, sizeof(buf)), sizeof(cfg_rsp));
	assert_memory_equal(buf, cfg_rsp, sizeof(cfg_rsp));
	CHECK(cfg_rsp, MAP_NONE);
}

/* The standard configuration the codec carries decodes and re-encodes as it is. */
static void test_std_config(void **state)
{
	static struct tp_phd_config_report c;
	struct tp_phd_octets rep;
	const struct tp_phd_obj_map *om;

	assert_int_equal(tp_phd_std_config_report(0x0190, &rep), 0);
	assert_int_equal(tp_phd_decode_config_report(rep.p, rep.len, &c, NULL), 0);
	assert_int_equal(tp_phd_encode_config_report(&c, out, sizeof(out)), rep.len);
	assert_memory_equal(out, rep.p, rep.len);
	assert_int_equal(tp_phd_std_config_report(0x4000, &rep), -TP_PHD_E_NO_CONFIG);
	assert_int_equal(std_map.nobjs, 2);
	om = tp_phd_value_map_find(&std_map, 1);
	assert_int_equal(om->type_code, MDC_PULS_OXIM_SAT_O2);
	assert_int_equal(om->unit, MDC_DIM_PERCENT);
	assert_int_equal(om->total_len, 10);
	om = tp_phd_value_map_find(&std_map, 10);
	assert_int_equal(om->type_code, MDC_PULS_OXIM_PULS_RATE);
	assert_int_equal(om->unit, MDC_DIM_BEAT_PER_MIN);
	assert_int_equal(om->e[0].attr_id, MDC_ATTR_NU_VAL_OBS_BASIC);
	assert_int_equal(om->e[1].attr_id, MDC_ATTR_TIME_STAMP_ABS);
}

/* ---- scan reports ---- */

static void test_scan_fixed(void **state)
{
	static struct tp_phd_apdu a;
	static struct tp_phd_scan_report s;
	struct tp_phd_value v[TP_PHD_MAX_AVM];
	const struct tp_phd_obj_map *om;
	char b[32];

	assert_int_equal(tp_phd_decode_apdu(scan_fixed, sizeof(scan_fixed), &a, NULL), 0);
	assert_int_equal(a.u.prst.invoke_id, 0x1236);
	assert_int_equal(a.u.prst.u.evt.type, MDC_NOTI_SCAN_REPORT_FIXED);
	assert_int_equal(tp_phd_decode_scan_report(a.u.prst.u.evt.type, a.u.prst.u.evt.info.p,
						   a.u.prst.u.evt.info.len, &s, NULL),
			 0);
	assert_int_equal(s.form, TP_PHD_SCAN_FIXED);
	assert_false(s.multi_person);
	assert_int_equal(s.data_req_id, TP_PHD_DATA_REQ_ID_AGENT_INIT);
	assert_int_equal(s.nobs, 2);
	assert_int_equal(s.obs[0].handle, 1);
	assert_int_equal(s.obs[1].handle, 10);
	assert_ptr_equal(s.obs[1].data.p, scan_fixed + 48);

	om = tp_phd_value_map_find(&std_map, s.obs[0].handle);
	assert_int_equal(tp_phd_fixed_values(om, s.obs[0].data.p, s.obs[0].data.len, v, NULL), 2);
	assert_int_equal(v[0].kind, TP_PHD_V_SFLOAT);
	assert_true(v[0].u.num.value == 98.0);
	assert_int_equal(v[1].kind, TP_PHD_V_ABS_TIME);
	assert_int_equal(v[1].u.abs.century, 20);
	assert_int_equal(v[1].u.abs.year, 7);
	assert_int_equal(v[1].u.abs.month, 12);
	assert_int_equal(v[1].u.abs.minute, 10);
	tp_phd_abs_time_fmt(&v[1].u.abs, b, sizeof(b));
	assert_string_equal(b, "2007-12-06T12:10:00.00");
	om = tp_phd_value_map_find(&std_map, s.obs[1].handle);
	assert_int_equal(tp_phd_fixed_values(om, s.obs[1].data.p, s.obs[1].data.len, v, NULL), 2);
	assert_true(v[0].u.num.value == 72.0);
	CHECK_LENS(scan_fixed, MAP_STD, scan_fixed_lens);
}

/* The fast path's answer to a confirmed report. */
static void test_event_report_rsp(void **state)
{
	uint8_t buf[32];

	assert_int_equal(tp_phd_encode_event_report_rsp(buf, sizeof(buf), 0x1236, 0, 0,
							MDC_NOTI_SCAN_REPORT_FIXED),
			 sizeof(scan_rsp));
	assert_memory_equal(buf, scan_rsp, sizeof(scan_rsp));
	assert_int_equal(tp_phd_encode_event_report_rsp(buf, 21, 1, 0, 0, 0), -TP_PHD_E_NO_SPACE);
	CHECK(scan_rsp, MAP_NONE);
}

/* The generator builds a scan report from values: the same bytes as by hand. */
static void test_scan_encode(void **state)
{
	static struct tp_phd_scan_report s;
	static struct tp_phd_apdu a;
	struct tp_phd_value v = {.kind = TP_PHD_V_SFLOAT};
	struct tp_phd_abs_time t = {20, 7, 12, 6, 12, 10, 0, 0, 0};
	uint8_t obs[2][10], info[64], buf[128];
	int n;

	for (int i = 0; i < 2; i++) {
		assert_int_equal(tp_phd_num_from_double(&v.u.num, i ? 72 : 98, 0), 0);
		assert_int_equal(tp_phd_attr_value_encode(&v, obs[i], 2), 2);
		assert_int_equal(tp_phd_abs_time_encode(&t, obs[i] + 2), 0);
	}
	memset(&s, 0, sizeof(s));
	s.event_type = MDC_NOTI_SCAN_REPORT_FIXED;
	s.form = TP_PHD_SCAN_FIXED;
	s.data_req_id = TP_PHD_DATA_REQ_ID_AGENT_INIT;
	s.nobs = 2;
	s.obs[0] = (struct tp_phd_observation){.handle = 1, .data = {obs[0], 10}};
	s.obs[1] = (struct tp_phd_observation){.handle = 10, .data = {obs[1], 10}};
	n = tp_phd_encode_scan_report(&s, info, sizeof(info));
	assert_int_equal(n, 36);
	a.type = TP_PHD_PRST;
	a.u.prst.invoke_id = 0x1236;
	a.u.prst.choice = TP_PHD_ROIV_CONF_EVENT_REPORT;
	a.u.prst.u.evt =
	    (struct tp_phd_event_report){0, 0, MDC_NOTI_SCAN_REPORT_FIXED, {info, (uint16_t)n}};
	assert_int_equal(tp_phd_encode_apdu(&a, buf, sizeof(buf)), sizeof(scan_fixed));
	assert_memory_equal(buf, scan_fixed, sizeof(scan_fixed));
	/* form and event type must agree */
	s.form = TP_PHD_SCAN_VAR;
	assert_int_equal(tp_phd_encode_scan_report(&s, info, sizeof(info)), -TP_PHD_E_INVALID);
}

static void test_scan_fixed_extended(void **state)
{
	static struct tp_phd_apdu a;
	static struct tp_phd_scan_report s;
	struct tp_phd_value v[TP_PHD_MAX_AVM];
	const double want[] = {1234, 45, 75.5, 1250};
	const uint16_t units[] = {MDC_DIM_X_STEP, MDC_DIM_MIN, MDC_DIM_PERCENT, MDC_DIM_X_M};
	char sym[16];

	assert_int_equal(tp_phd_decode_apdu(scan_act, sizeof(scan_act), &a, NULL), 0);
	assert_int_equal(a.u.prst.choice, TP_PHD_ROIV_EVENT_REPORT);
	assert_int_equal(tp_phd_decode_scan_report(a.u.prst.u.evt.type, a.u.prst.u.evt.info.p,
						   a.u.prst.u.evt.info.len, &s, NULL),
			 0);
	assert_int_equal(s.scan_report_no, 3);
	assert_int_equal(s.nobs, 4);
	for (int i = 0; i < 4; i++) {
		const struct tp_phd_obj_map *om = tp_phd_value_map_find(&act_map, s.obs[i].handle);
		assert_non_null(om);
		assert_int_equal(
		    tp_phd_fixed_values(om, s.obs[i].data.p, s.obs[i].data.len, v, NULL), om->n);
		assert_true(v[0].u.num.value == want[i]);
		assert_int_equal(om->unit, units[i]);
	}
	assert_string_equal(tp_phd_unit_symbol(MDC_DIM_X_STEP, sym, sizeof(sym)), "step");
	/* the standard configuration's object 1 is SpO2: 10 bytes, not these 12 */
	assert_int_equal(check(scan_act, sizeof(scan_act), MAP_STD, NULL), -TP_PHD_E_MAP_MISMATCH);
	CHECK(scan_act, MAP_ACT);
}

static void test_scan_var(void **state)
{
	static struct tp_phd_apdu a;
	static struct tp_phd_scan_report s;
	struct tp_phd_value v;

	assert_int_equal(tp_phd_decode_apdu(scan_var, sizeof(scan_var), &a, NULL), 0);
	assert_int_equal(a.u.prst.u.evt.time, 4096);
	assert_int_equal(tp_phd_decode_scan_report(MDC_NOTI_SCAN_REPORT_VAR, a.u.prst.u.evt.info.p,
						   a.u.prst.u.evt.info.len, &s, NULL),
			 0);
	assert_int_equal(s.form, TP_PHD_SCAN_VAR);
	assert_int_equal(s.nobs, 2);
	assert_int_equal(s.nattrs, 3);
	assert_int_equal(s.obs[0].handle, 1);
	assert_int_equal(s.obs[0].attr_first, 0);
	assert_int_equal(s.obs[0].nattrs, 2);
	assert_int_equal(s.obs[1].attr_first, 2);
	assert_int_equal(s.obs[1].nattrs, 1);
	assert_int_equal(
	    tp_phd_attr_value_decode(s.attr[0].id, s.attr[0].val.p, s.attr[0].val.len, &v, NULL),
	    0);
	assert_true(v.u.num.value == 1.0);
	assert_int_equal(
	    tp_phd_attr_value_decode(s.attr[2].id, s.attr[2].val.p, s.attr[2].val.len, &v, NULL),
	    0);
	assert_int_equal(v.kind, TP_PHD_V_BITS16);
	assert_int_equal(v.u.u16, 0x8000);
	CHECK_LENS(scan_var, MAP_NONE, scan_var_lens);
}

static void test_scan_mp(void **state)
{
	static struct tp_phd_apdu a;
	static struct tp_phd_scan_report s;
	struct tp_phd_value v[TP_PHD_MAX_AVM];

	assert_int_equal(tp_phd_decode_apdu(scan_mp_fixed, sizeof(scan_mp_fixed), &a, NULL), 0);
	assert_int_equal(tp_phd_decode_scan_report(a.u.prst.u.evt.type, a.u.prst.u.evt.info.p,
						   a.u.prst.u.evt.info.len, &s, NULL),
			 0);
	assert_true(s.multi_person);
	assert_int_equal(s.npersons, 2);
	assert_int_equal(s.person[1].person_id, 2);
	assert_int_equal(s.person[1].obs_first, 1);
	assert_int_equal(s.person[1].nobs, 1);
	assert_int_equal(tp_phd_fixed_values(tp_phd_value_map_find(&std_map, 10), s.obs[1].data.p,
					     s.obs[1].data.len, v, NULL),
			 2);
	assert_true(v[0].u.num.value == 60.0);
	assert_int_equal(v[1].u.abs.day, 29); /* 2024 is a leap year */
	assert_int_equal(v[1].u.abs.frac, 99);
	CHECK_LENS(scan_mp_fixed, MAP_STD, scan_mp_fixed_lens);

	assert_int_equal(tp_phd_decode_apdu(scan_mp_var, sizeof(scan_mp_var), &a, NULL), 0);
	assert_int_equal(tp_phd_decode_scan_report(a.u.prst.u.evt.type, a.u.prst.u.evt.info.p,
						   a.u.prst.u.evt.info.len, &s, NULL),
			 0);
	assert_int_equal(s.npersons, 1);
	assert_int_equal(s.person[0].person_id, 7);
	assert_int_equal(s.nobs, 1);
	assert_int_equal(s.nattrs, 1);
	CHECK(scan_mp_var, MAP_NONE);

	assert_int_equal(tp_phd_decode_apdu(scan_grouped, sizeof(scan_grouped), &a, NULL), 0);
	assert_int_equal(tp_phd_decode_scan_report(a.u.prst.u.evt.type, a.u.prst.u.evt.info.p,
						   a.u.prst.u.evt.info.len, &s, NULL),
			 0);
	assert_int_equal(s.form, TP_PHD_SCAN_GROUPED);
	assert_int_equal(s.nobs, 2);
	assert_int_equal(s.obs[0].data.len, 3);
	assert_int_equal(s.obs[1].data.p[0], 0xFF);
	CHECK(scan_grouped, MAP_STD);

	assert_int_equal(tp_phd_decode_apdu(scan_mp_grouped, sizeof(scan_mp_grouped), &a, NULL), 0);
	assert_int_equal(tp_phd_decode_scan_report(a.u.prst.u.evt.type, a.u.prst.u.evt.info.p,
						   a.u.prst.u.evt.info.len, &s, NULL),
			 0);
	assert_int_equal(s.npersons, 1);
	assert_int_equal(s.person[0].person_id, 5);
	assert_int_equal(s.obs[0].data.len, 2);
	CHECK(scan_mp_grouped, MAP_NONE);
}

/* All sixteen scan-report event types, and what is not one. */
static void test_scan_kinds(void **state)
{
	static const struct {
		uint16_t type;
		enum tp_phd_scan_form form;
		int mp;
	} k[] = {
	    {0x0D1D, TP_PHD_SCAN_FIXED, 0},   {0x0D1E, TP_PHD_SCAN_VAR, 0},
	    {0x0D1F, TP_PHD_SCAN_FIXED, 1},   {0x0D20, TP_PHD_SCAN_VAR, 1},
	    {0x0D22, TP_PHD_SCAN_VAR, 0},     {0x0D23, TP_PHD_SCAN_FIXED, 0},
	    {0x0D24, TP_PHD_SCAN_GROUPED, 0}, {0x0D25, TP_PHD_SCAN_VAR, 1},
	    {0x0D26, TP_PHD_SCAN_FIXED, 1},   {0x0D27, TP_PHD_SCAN_GROUPED, 1},
	    {0x0D28, TP_PHD_SCAN_VAR, 0},     {0x0D29, TP_PHD_SCAN_FIXED, 0},
	    {0x0D2A, TP_PHD_SCAN_GROUPED, 0}, {0x0D2B, TP_PHD_SCAN_VAR, 1},
	    {0x0D2C, TP_PHD_SCAN_FIXED, 1},   {0x0D2D, TP_PHD_SCAN_GROUPED, 1},
	};
	static struct tp_phd_scan_report s;
	enum tp_phd_scan_form form;
	int mp;

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		assert_int_equal(tp_phd_scan_kind(k[i].type, &form, &mp), 0);
		assert_int_equal(form, k[i].form);
		assert_int_equal(mp, k[i].mp);
		assert_non_null(tp_phd_nom_name(MDC_PART_OBJ, k[i].type));
	}
	assert_int_equal(tp_phd_scan_kind(MDC_NOTI_CONFIG, NULL, NULL), -TP_PHD_E_UNKNOWN_EVENT);
	assert_int_equal(tp_phd_scan_kind(MDC_NOTI_SEGMENT_DATA, NULL, NULL),
			 -TP_PHD_E_UNKNOWN_EVENT);
	/* the unbuffered variant of the fixed report decodes like it */
	assert_int_equal(tp_phd_decode_scan_report(MDC_NOTI_UNBUF_SCAN_REPORT_FIXED,
						   scan_fixed + 22, 36, &s, NULL),
			 0);
	assert_int_equal(s.nobs, 2);
	assert_int_equal(tp_phd_decode_scan_report(MDC_NOTI_CONFIG, scan_fixed + 22, 36, &s, NULL),
			 -TP_PHD_E_UNKNOWN_EVENT);
}

/* ---- get, set, action, errors ---- */

static void test_get(void **state)
{
	static struct tp_phd_apdu a;
	struct tp_phd_value v;

	assert_int_equal(tp_phd_decode_apdu(get_all, sizeof(get_all), &a, NULL), 0);
	assert_int_equal(a.u.prst.choice, TP_PHD_ROIV_GET);
	assert_int_equal(a.u.prst.u.get.nids, 0);
	CHECK(get_all, MAP_NONE);
	assert_int_equal(tp_phd_decode_apdu(get_two, sizeof(get_two), &a, NULL), 0);
	assert_int_equal(a.u.prst.u.get.nids, 2);
	assert_int_equal(a.u.prst.u.get.id[1], MDC_ATTR_DEV_CONFIG_ID);
	CHECK(get_two, MAP_NONE);

	assert_int_equal(tp_phd_decode_apdu(get_rsp, sizeof(get_rsp), &a, NULL), 0);
	assert_int_equal(a.u.prst.choice, TP_PHD_RORS_GET);
	assert_int_equal(a.u.prst.u.attrs.attrs.count, 4);
	assert_int_equal(tp_phd_attr_value_decode(MDC_ATTR_SYS_ID,
						  a.u.prst.u.attrs.attrs.ava[0].val.p,
						  a.u.prst.u.attrs.attrs.ava[0].val.len, &v, NULL),
			 0);
	assert_int_equal(v.kind, TP_PHD_V_STRING);
	assert_int_equal(v.u.oct.len, 8);
	assert_int_equal(v.u.oct.p[7], 0x88);
	assert_int_equal(tp_phd_attr_value_decode(MDC_ATTR_DEV_CONFIG_ID,
						  a.u.prst.u.attrs.attrs.ava[1].val.p,
						  a.u.prst.u.attrs.attrs.ava[1].val.len, &v, NULL),
			 0);
	assert_int_equal(v.u.u16, 0x0190);
	/* SystemModel: manufacturer and model number, each an octet string */
	assert_int_equal(tp_phd_attr_value_decode(MDC_ATTR_ID_MODEL,
						  a.u.prst.u.attrs.attrs.ava[3].val.p,
						  a.u.prst.u.attrs.attrs.ava[3].val.len, &v, NULL),
			 0);
	assert_int_equal(v.kind, TP_PHD_V_MODEL);
	assert_int_equal(v.u.model.manufacturer.len, 4);
	assert_memory_equal(v.u.model.manufacturer.p, "ACME", 4);
	assert_memory_equal(v.u.model.model_number.p, "PO-1", 4);
	/* an attribute the codec has no type for stays octets */
	assert_int_equal(tp_phd_attr_kind(MDC_ATTR_REG_CERT_DATA_LIST), TP_PHD_V_OCTETS);
	CHECK_LENS(get_rsp, MAP_NONE, get_rsp_lens);
}

static void test_set_action_errors(void **state)
{
	static struct tp_phd_apdu a;
	struct tp_phd_abs_time t;
	struct tp_phd_num n;

	assert_int_equal(tp_phd_decode_apdu(set_req, sizeof(set_req), &a, NULL), 0);
	assert_int_equal(a.u.prst.choice, TP_PHD_ROIV_CONF_SET);
	assert_int_equal(a.u.prst.u.set.obj_handle, 5);
	assert_int_equal(a.u.prst.u.set.nmods, 1);
	assert_int_equal(a.u.prst.u.set.mod[0].op, 0);
	assert_int_equal(a.u.prst.u.set.mod[0].ava.id, MDC_ATTR_OP_STAT);
	CHECK(set_req, MAP_NONE);
	assert_int_equal(tp_phd_decode_apdu(set_rsp, sizeof(set_rsp), &a, NULL), 0);
	assert_int_equal(a.u.prst.choice, TP_PHD_RORS_CONF_SET);
	assert_int_equal(a.u.prst.u.attrs.obj_handle, 5);
	CHECK(set_rsp, MAP_NONE);

	assert_int_equal(tp_phd_decode_apdu(action_req, sizeof(action_req), &a, NULL), 0);
	assert_int_equal(a.u.prst.choice, TP_PHD_ROIV_CONF_ACTION);
	assert_int_equal(a.u.prst.u.action.type, MDC_ACT_SET_TIME);
	assert_int_equal(a.u.prst.u.action.args.len, 12);
	assert_int_equal(tp_phd_abs_time_decode(a.u.prst.u.action.args.p, &t), 0);
	assert_int_equal(t.month, 5);
	tp_phd_float_decode(0, &n);
	assert_true(n.value == 0.0);
	CHECK(action_req, MAP_NONE);
	assert_int_equal(tp_phd_decode_apdu(action_rsp, sizeof(action_rsp), &a, NULL), 0);
	assert_int_equal(a.u.prst.choice, TP_PHD_RORS_CONF_ACTION);
	CHECK(action_rsp, MAP_NONE);

	assert_int_equal(tp_phd_decode_apdu(roer, sizeof(roer), &a, NULL), 0);
	assert_int_equal(a.u.prst.u.roer.error_value, 1);
	assert_string_equal(tp_phd_error_value_name(1), "no-such-object-instance");
	CHECK(roer, MAP_NONE);
	assert_int_equal(tp_phd_decode_apdu(rorj, sizeof(rorj), &a, NULL), 0);
	assert_int_equal(a.u.prst.u.rorj_problem, 101);
	assert_string_equal(tp_phd_reject_problem_name(101), "unrecognized-operation");
	CHECK(rorj, MAP_NONE);
}

/* ---- errors say what, where and why ---- */

static void test_error_reports(void **state)
{
	static struct tp_phd_apdu a;
	struct tp_phd_value v, vals[TP_PHD_MAX_AVM];
	struct tp_phd_error err;
	uint8_t m[sizeof(scan_fixed) + 1];
	char msg[200];

	/* truncated: the APDU length promises more than the datagram holds */
	assert_int_equal(tp_phd_decode_apdu(aarq, 20, &a, &err), -TP_PHD_E_LENGTH);
	assert_int_equal(err.offset, 2);
	assert_string_equal(err.field, "apdu.length");
	assert_int_equal(err.need, 50);
	assert_int_equal(err.have, 16);
	tp_phd_error_fmt(&err, msg, sizeof(msg));
	assert_string_equal(msg, "apdu.length at offset 2: length field exceeds the bytes present "
				 "(needs 50 bytes, 16 present)");
	assert_string_equal(tp_phd_err_name(-TP_PHD_E_LENGTH), "LENGTH");

	/* a byte after the APDU */
	memcpy(m, scan_fixed, sizeof(scan_fixed));
	m[sizeof(scan_fixed)] = 0;
	assert_int_equal(tp_phd_decode_apdu(m, sizeof(m), &a, &err), -TP_PHD_E_TRAILING);
	assert_int_equal(err.offset, sizeof(scan_fixed));

	/* unknown APDU and message choices */
	assert_int_equal(tp_phd_decode_apdu((const uint8_t[]){0xE8, 0x00, 0x00, 0x00}, 4, &a, &err),
			 -TP_PHD_E_UNKNOWN_APDU);
	memcpy(m, scan_fixed, sizeof(scan_fixed));
	m[9] = 0x02; /* 0x0102: not a choice */
	assert_int_equal(tp_phd_decode_apdu(m, sizeof(scan_fixed), &a, &err),
			 -TP_PHD_E_UNKNOWN_CHOICE);
	assert_int_equal(err.offset, 8);

	/* a bad month in the first time stamp: offset of the time in the APDU */
	memcpy(m, scan_fixed, sizeof(scan_fixed));
	m[38] = 0x13;
	assert_int_equal(tp_phd_check(m, sizeof(scan_fixed), &std_map, &err), -TP_PHD_E_BAD_TIME);
	assert_int_equal(err.offset, 36);
	/* a handle the configuration does not have: offset of the handle */
	memcpy(m, scan_fixed, sizeof(scan_fixed));
	m[45] = 0x05;
	assert_int_equal(tp_phd_check(m, sizeof(scan_fixed), &std_map, &err), -TP_PHD_E_NO_CONFIG);
	assert_int_equal(err.offset, 44);
	assert_int_equal(err.have, 5);
	/* two bytes where a TYPE takes four */
	assert_int_equal(tp_phd_attr_value_decode(MDC_ATTR_ID_TYPE, aarq, 2, &v, &err),
			 -TP_PHD_E_ATTR_LEN);
	assert_int_equal(err.need, 4);
	assert_int_equal(err.have, 2);
	/* obs-val-data that does not match the map */
	assert_int_equal(
	    tp_phd_fixed_values(tp_phd_value_map_find(&std_map, 1), scan_fixed + 34, 8, vals, &err),
	    -TP_PHD_E_MAP_MISMATCH);
	for (int c = 0; c < TP_PHD_ERR_COUNT; c++) {
		assert_non_null(tp_phd_strerror(c));
		assert_string_not_equal(tp_phd_err_name(c), "UNKNOWN");
	}
}

/* Fixed limits: exceeded input is an error, never silently cut. */
static void test_limits(void **state)
{
	static struct tp_phd_config_report c;
	static struct tp_phd_scan_report s;
	static uint8_t b[8192];
	struct tp_phd_error err;
	size_t n = 0;

	/* 33 configuration objects */
	const uint8_t cfg33[] = {0x40, 0x00, 0x00, 0x21, 0x00, 0x00};
	assert_int_equal(tp_phd_decode_config_report(cfg33, sizeof(cfg33), &c, &err),
			 -TP_PHD_E_TOO_MANY);
	assert_string_equal(err.field, "config-obj-list.count");
	assert_int_equal(err.offset, 2);
	assert_int_equal(err.need, 33);
	assert_int_equal(err.have, TP_PHD_MAX_CFG_OBJS);

	/* 65 fixed observations of 0 bytes each */
	b[n++] = 0xF0, b[n++] = 0x00, b[n++] = 0x00, b[n++] = 0x00;
	b[n++] = 0x00, b[n++] = 65, b[n++] = 0x01, b[n++] = 0x04; /* 65 obs, 260 bytes */
	for (int i = 0; i < 65; i++)
		b[n++] = 0, b[n++] = (uint8_t)i, b[n++] = 0, b[n++] = 0;
	assert_int_equal(tp_phd_decode_scan_report(MDC_NOTI_SCAN_REPORT_FIXED, b, n, &s, &err),
			 -TP_PHD_E_TOO_MANY);
	b[5] = 64, b[7] = 0x00; /* 64 obs, 256 bytes: fits */
	assert_int_equal(tp_phd_decode_scan_report(MDC_NOTI_SCAN_REPORT_FIXED, b, n - 4, &s, &err),
			 0);
	assert_int_equal(s.nobs, 64);

	/* variable observations whose attributes overflow the shared pool */
	n = 0;
	b[n++] = 0xF0, b[n++] = 0x00, b[n++] = 0x00, b[n++] = 0x00;
	b[n++] = 0x00, b[n++] = 9; /* 9 obs of 32 attributes each: 288 > 256 */
	size_t len_at = n;
	n += 2;
	for (int i = 0; i < 9; i++) {
		b[n++] = 0, b[n++] = (uint8_t)i, b[n++] = 0, b[n++] = 32, b[n++] = 0, b[n++] = 128;
		for (int k = 0; k < 32; k++)
			b[n++] = 0x0A, b[n++] = 0x4C, b[n++] = 0, b[n++] = 0;
	}
	b[len_at] = (uint8_t)((n - len_at - 2) >> 8);
	b[len_at + 1] = (uint8_t)(n - len_at - 2);
	assert_int_equal(tp_phd_decode_scan_report(MDC_NOTI_SCAN_REPORT_VAR, b, n, &s, &err),
			 -TP_PHD_E_TOO_MANY);
	assert_string_equal(err.field, "attribute-list.count");
	assert_int_equal(err.offset, 8 + 8 * (6 + 128) + 2);
	assert_int_equal(err.have, TP_PHD_MAX_SCAN_ATTRS - 8 * 32);
}

/* ---- numbers ---- */

static void sf(uint16_t raw, double value, int special)
{
	struct tp_phd_num n;
	tp_phd_sfloat_decode(raw, &n);
	assert_int_equal(n.special, special);
	if (special == TP_PHD_FINITE)
		assert_true(n.value == value);
}

static void sf_enc(double v, uint16_t want)
{
	uint16_t raw;
	assert_int_equal(tp_phd_sfloat_encode(v, &raw), 0);
	if (raw != want)
		fail_msg("SFLOAT of %g: 0x%04x, want 0x%04x", v, raw, want);
}

static void fl_enc(double v, uint32_t want)
{
	uint32_t raw;
	assert_int_equal(tp_phd_float_encode(v, &raw), 0);
	if (raw != want)
		fail_msg("FLOAT of %g: 0x%08x, want 0x%08x", v, raw, want);
}

static void test_sfloat(void **state)
{
	uint16_t raw;
	struct tp_phd_num n;

	sf(0x0062, 98, TP_PHD_FINITE);
	sf(0xF3D4, 98, TP_PHD_FINITE); /* 980e-1 */
	sf(0xFFFF, -0.1, TP_PHD_FINITE);
	sf(0x17FF, 20470, TP_PHD_FINITE); /* 2047e1: special only with exponent 0 */
	sf(0x07FF, 0, TP_PHD_NAN);
	sf(0x0800, 0, TP_PHD_NRES);
	sf(0x07FE, 0, TP_PHD_PINF);
	sf(0x0802, 0, TP_PHD_NINF);
	sf(0x0801, 0, TP_PHD_RESERVED);
	tp_phd_sfloat_decode(0x07FE, &n);
	assert_true(isinf(n.value) && n.value > 0);
	tp_phd_sfloat_decode(0x0800, &n);
	assert_true(isnan(n.value));
	tp_phd_sfloat_decode(0x8001, &n); /* smallest exponent */
	assert_int_equal(n.exponent, -8);

	sf_enc(98, 0x0062);
	sf_enc(98.5, 0xF3D9);
	sf_enc(0, 0x0000);
	sf_enc(-0.0, 0x0000);
	sf_enc(-0.1, 0xFFFF);
	sf_enc(36.6, 0xF16E);
	sf_enc(1e9, 0x7064); /* 100e7 */
	sf_enc(2045e7, 0x77FD);
	sf_enc(20.45, 0xE7FD);	/* 2045e-2 */
	sf_enc(20.46, 0xF0CD);	/* 2046 is too big: 205e-1, rounded */
	sf_enc(1234.5, 0x04D3); /* half away from zero */
	sf_enc(-1234.5, 0x0B2D);
	sf_enc(3e-8, 0x8003);
	sf_enc(1e-9, 0x0000);
	sf_enc(2047, 0x10CD); /* never a mantissa that reads as a special value: 205e1 */
	sf_enc(NAN, 0x07FF);
	sf_enc(INFINITY, 0x07FE);
	sf_enc(-INFINITY, 0x0802);
	assert_int_equal(tp_phd_sfloat_encode(2046e7, &raw), -TP_PHD_E_INVALID);
	assert_int_equal(tp_phd_sfloat_encode(-1e12, &raw), -TP_PHD_E_INVALID);
	assert_int_equal(tp_phd_sfloat_special(TP_PHD_NRES), 0x0800);

	/* every finite encoding re-encodes to itself from its mantissa/exponent, and its
	 * double re-encodes to the same value */
	for (uint32_t r = 0; r <= 0xFFFF; r++) {
		struct tp_phd_value v = {.kind = TP_PHD_V_SFLOAT};
		uint8_t b[2];
		tp_phd_sfloat_decode((uint16_t)r, &v.u.num);
		assert_int_equal(tp_phd_attr_value_encode(&v, b, 2), 2);
		assert_int_equal(b[0] << 8 | b[1], r);
		if (v.u.num.special == TP_PHD_FINITE && v.u.num.mantissa > -2046 &&
		    v.u.num.mantissa < 2046) {
			struct tp_phd_num back;
			assert_int_equal(tp_phd_sfloat_encode(v.u.num.value, &raw), 0);
			tp_phd_sfloat_decode(raw, &back);
			assert_true(back.value == v.u.num.value);
		}
	}
}

static void test_float(void **state)
{
	uint32_t raw;
	struct tp_phd_num n;

	tp_phd_float_decode(0xFF0002FA, &n); /* 10415's example weight */
	assert_true(n.value == 76.2);
	assert_int_equal(n.mantissa, 762);
	assert_int_equal(n.exponent, -1);
	tp_phd_float_decode(0x007FFFFF, &n);
	assert_int_equal(n.special, TP_PHD_NAN);
	tp_phd_float_decode(0x00800000, &n);
	assert_int_equal(n.special, TP_PHD_NRES);
	tp_phd_float_decode(0x007FFFFE, &n);
	assert_int_equal(n.special, TP_PHD_PINF);
	tp_phd_float_decode(0x00800002, &n);
	assert_int_equal(n.special, TP_PHD_NINF);
	assert_true(isinf(n.value) && n.value < 0);
	tp_phd_float_decode(0x00800001, &n);
	assert_int_equal(n.special, TP_PHD_RESERVED);
	tp_phd_float_decode(0x80000001, &n);
	assert_int_equal(n.exponent, -128);
	assert_true(n.value > 0 && n.value < 1e-127);

	fl_enc(76.2, 0xFF0002FA);
	fl_enc(1234, 0x000004D2);
	fl_enc(-1, 0x00FFFFFF);
	fl_enc(1e100, 0x64000001);
	fl_enc(3.14159265, 0xFA2FEFD9); /* 3141593e-6: 7 digits */
	fl_enc(1e-130, 0);
	fl_enc(NAN, 0x007FFFFF);
	fl_enc(-INFINITY, 0x00800002);
	assert_int_equal(tp_phd_float_encode(1e200, &raw), -TP_PHD_E_INVALID);
	assert_int_equal(tp_phd_float_special(TP_PHD_PINF), 0x007FFFFE);
}

static void fmt(uint16_t raw, const char *want)
{
	struct tp_phd_num n;
	char b[48];
	tp_phd_sfloat_decode(raw, &n);
	tp_phd_num_fmt(&n, b, sizeof(b));
	assert_string_equal(b, want);
}

static void test_num_fmt(void **state)
{
	struct tp_phd_num n;
	char b[48];

	fmt(0x0062, "98");
	fmt(0xF3D9, "98.5");
	fmt(0xF3D4, "98.0");
	fmt(0xFFFF, "-0.1");
	fmt(0xC00C, "0.0012");
	fmt(0x107D, "1250");
	fmt(0xE7FD, "20.45");
	fmt(0x07FF, "NaN");
	fmt(0x0800, "NRes");
	fmt(0x0802, "-INF");
	tp_phd_float_decode(0x64000001, &n);
	tp_phd_num_fmt(&n, b, sizeof(b));
	assert_string_equal(b, "1e+100");
	tp_phd_float_decode(0xEC000005, &n);
	tp_phd_num_fmt(&n, b, sizeof(b));
	assert_string_equal(b, "5e-20");
	tp_phd_float_decode(0xF9FFFFFF, &n); /* -1e-7 */
	tp_phd_num_fmt(&n, b, sizeof(b));
	assert_string_equal(b, "-0.0000001");
}

/* ---- absolute time ---- */

static void test_abs_time(void **state)
{
	static const struct {
		uint8_t b[8];
		int ok;
	} cases[] = {
	    {{0x20, 0x07, 0x12, 0x06, 0x12, 0x10, 0x00, 0x00}, 1},
	    {{0x20, 0x24, 0x02, 0x29, 0x23, 0x59, 0x59, 0x99}, 1}, /* leap day */
	    {{0x20, 0x00, 0x02, 0x29, 0x00, 0x00, 0x00, 0x00}, 1}, /* 2000: leap */
	    {{0x19, 0x00, 0x02, 0x29, 0x00, 0x00, 0x00, 0x00}, 0}, /* 1900: not */
	    {{0x20, 0x23, 0x02, 0x29, 0x00, 0x00, 0x00, 0x00}, 0},
	    {{0x20, 0x24, 0x04, 0x31, 0x00, 0x00, 0x00, 0x00}, 0}, /* April 31 */
	    {{0x20, 0x24, 0x13, 0x01, 0x00, 0x00, 0x00, 0x00}, 0}, /* month 13 */
	    {{0x20, 0x24, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00}, 0}, /* month 0 */
	    {{0x20, 0x24, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00}, 0}, /* day 0 */
	    {{0x20, 0x24, 0x01, 0x01, 0x24, 0x00, 0x00, 0x00}, 0}, /* hour 24 */
	    {{0x20, 0x24, 0x01, 0x01, 0x00, 0x60, 0x00, 0x00}, 0}, /* minute 60 */
	    {{0x20, 0x24, 0x01, 0x01, 0x00, 0x00, 0x60, 0x00}, 0}, /* second 60 */
	    {{0x20, 0x24, 0x01, 0x01, 0x00, 0x00, 0x00, 0x9A}, 0}, /* not BCD */
	    {{0x2A, 0x24, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00}, 0},
	    /* all zero: a clock never set, as real agents send it (unset, accepted) */
	    {{0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}, 1},
	    /* only some zero: a bad date, not "unset" */
	    {{0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01}, 0},
	};
	struct tp_phd_abs_time t;
	uint8_t b[8];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = tp_phd_abs_time_decode(cases[i].b, &t);
		if (cases[i].ok != (rc == 0))
			fail_msg("time case %zu: %d", i, rc);
		if (rc == 0) {
			assert_int_equal(tp_phd_abs_time_encode(&t, b), 0);
			assert_memory_equal(b, cases[i].b, 8);
		}
	}
	t = (struct tp_phd_abs_time){20, 24, 2, 30, 0, 0, 0, 0, 0};
	assert_int_equal(tp_phd_abs_time_encode(&t, b), -TP_PHD_E_BAD_TIME);
	t = (struct tp_phd_abs_time){20, 24, 12, 31, 23, 59, 59, 100, 0};
	assert_int_equal(tp_phd_abs_time_encode(&t, b), -TP_PHD_E_BAD_TIME);
	/* unset decodes as such, prints as such and encodes back to zeros */
	static const uint8_t zero[8];
	char s[32];
	assert_int_equal(tp_phd_abs_time_decode(zero, &t), 0);
	assert_int_equal(t.unset, 1);
	assert_int_equal(t.month, 0);
	tp_phd_abs_time_fmt(&t, s, sizeof(s));
	assert_string_equal(s, "unset");
	memset(b, 0xff, sizeof(b));
	assert_int_equal(tp_phd_abs_time_encode(&t, b), 0);
	assert_memory_equal(b, zero, 8);
}

/* ---- typed values round trip ---- */

static void test_values(void **state)
{
	static const struct {
		uint16_t id;
		uint8_t b[24];
		uint8_t n;
		uint8_t kind;
	} cases[] = {
	    {MDC_ATTR_NU_VAL_OBS,
	     {0x4B, 0xB8, 0x00, 0x00, 0x02, 0x20, 0xFF, 0x00, 0x03, 0xD9},
	     10,
	     TP_PHD_V_NU_OBS},
	    {MDC_ATTR_NU_CMPD_VAL_OBS_BASIC,
	     {0x00, 0x03, 0x00, 0x06, 0x00, 0x78, 0x00, 0x50, 0x00, 0x5A},
	     10,
	     TP_PHD_V_SFLOAT_CMP},
	    {MDC_ATTR_NU_CMPD_VAL_OBS_SIMP,
	     {0x00, 0x01, 0x00, 0x04, 0xFF, 0x00, 0x02, 0xFA},
	     8,
	     TP_PHD_V_FLOAT_CMP},
	    {MDC_ATTR_NU_CMPD_VAL_OBS,
	     {0x00, 0x01, 0x00, 0x0A, 0x4B, 0xB8, 0x00, 0x00, 0x02, 0x20, 0x00, 0x00, 0x00, 0x62},
	     14,
	     TP_PHD_V_NU_OBS_CMP},
	    {MDC_ATTR_TIME_STAMP_REL, {0x00, 0x00, 0x1F, 0x40}, 4, TP_PHD_V_REL_TIME},
	    {MDC_ATTR_TIME_STAMP_REL_HI_RES, {0, 0, 0, 1, 0, 0, 0, 2}, 8, TP_PHD_V_HIRES_TIME},
	    {MDC_ATTR_ENUM_OBS_VAL_SIMP_BIT_STR, {0x80, 0x00, 0x00, 0x01}, 4, TP_PHD_V_BITS32},
	    {MDC_ATTR_ENUM_OBS_VAL_SIMP_OID, {0x4B, 0xB8}, 2, TP_PHD_V_OID},
	    {MDC_ATTR_ENUM_OBS_VAL_SIMP_STR, {0x00, 0x02, 'o', 'k'}, 4, TP_PHD_V_STRING},
	    {MDC_ATTR_ID_MODEL, {0x00, 0x01, 'A', 0x00, 0x01, 'B'}, 6, TP_PHD_V_MODEL},
	    {MDC_ATTR_ID_PHYSIO_LIST,
	     {0x00, 0x02, 0x00, 0x04, 0x4A, 0x05, 0x4A, 0x06},
	     8,
	     TP_PHD_V_OID_LIST},
	    {MDC_ATTR_SYS_TYPE_SPEC_LIST,
	     {0x00, 0x01, 0x00, 0x04, 0x10, 0x07, 0x00, 0x01},
	     8,
	     TP_PHD_V_TYPEVER},
	    {MDC_ATTR_ID_PROD_SPECN,
	     {0x00, 0x01, 0x00, 0x08, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 'D', 'E'},
	     12,
	     TP_PHD_V_PROD_SPEC},
	    {MDC_ATTR_NU_VAL_OBS_SIMP, {0x00, 0x7F, 0xFF, 0xFF}, 4, TP_PHD_V_FLOAT},
	};
	struct tp_phd_value v;
	uint8_t b[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(
		    tp_phd_attr_value_decode(cases[i].id, cases[i].b, cases[i].n, &v, NULL), 0);
		assert_int_equal(v.kind, cases[i].kind);
		assert_int_equal(tp_phd_attr_value_encode(&v, b, sizeof(b)), cases[i].n);
		assert_memory_equal(b, cases[i].b, cases[i].n);
		/* one byte short or long: wrong */
		assert_true(tp_phd_attr_value_decode(cases[i].id, cases[i].b, cases[i].n - 1u, &v,
						     NULL) < 0 ||
			    cases[i].kind == TP_PHD_V_OCTETS);
	}
	assert_int_equal(tp_phd_attr_value_decode(MDC_ATTR_NU_VAL_OBS, cases[0].b, 10, &v, NULL),
			 0);
	assert_int_equal(v.u.nu.metric_id, MDC_PULS_OXIM_SAT_O2);
	assert_int_equal(v.u.nu.unit, MDC_DIM_PERCENT);
	assert_true(v.u.nu.num.value == 98.5);
	assert_int_equal(
	    tp_phd_attr_value_decode(MDC_ATTR_NU_CMPD_VAL_OBS_BASIC, cases[1].b, 10, &v, NULL), 0);
	assert_int_equal(v.n, 3); /* systolic, diastolic, mean */
	assert_true(v.u.cmp[1].value == 80);
}

/* ---- nomenclature ---- */

static void test_nomenclature(void **state)
{
	char sym[16];

	assert_int_equal(MDC_PULS_OXIM_SAT_O2, 19384);
	assert_int_equal(MDC_PULS_OXIM_PULS_RATE, 18458);
	assert_int_equal(tp_phd_oid32(MDC_PART_SCADA, MDC_PULS_OXIM_SAT_O2), 150456);
	assert_string_equal(tp_phd_nom_name(MDC_PART_SCADA, 19384), "MDC_PULS_OXIM_SAT_O2");
	assert_string_equal(tp_phd_nom_name(MDC_PART_OBJ, 0x0D1C), "MDC_NOTI_CONFIG");
	assert_string_equal(tp_phd_nom_name(MDC_PART_PHD_HF, 125), "MDC_HF_ACTIVITY_TIME");
	assert_string_equal(tp_phd_nom_name(MDC_PART_PHD_AI, 13314), "MDC_AI_MED_STATUS");
	assert_string_equal(tp_phd_nom_name(MDC_PART_INFRA, 4100),
			    "MDC_DEV_SPEC_PROFILE_PULS_OXIM");
	assert_null(tp_phd_nom_name(MDC_PART_SCADA, 1));
	assert_string_equal(tp_phd_partition_name(MDC_PART_PHD_AI), "PHD_AI");
	assert_string_equal(tp_phd_unit_symbol(MDC_DIM_PERCENT, sym, sizeof(sym)), "%");
	assert_string_equal(tp_phd_unit_symbol(MDC_DIM_BEAT_PER_MIN, sym, sizeof(sym)), "bpm");
	assert_string_equal(tp_phd_unit_symbol(MDC_DIM_X_CAL + 3, sym, sizeof(sym)), "kcal");
	assert_null(tp_phd_unit_symbol(0x7FE0, sym, sizeof(sym)));
	assert_string_equal(tp_phd_metric_find(MDC_PART_SCADA, MDC_PULS_OXIM_SAT_O2, 0)->label,
			    "spo2");
	assert_string_equal(tp_phd_metric_find(MDC_PART_PHD_AI, MDC_AI_MED_STATUS, 0)->device,
			    "medication-monitor");
	assert_null(tp_phd_metric_find(MDC_PART_SCADA, MDC_PULS_OXIM_PLETH, 0));
	/* readable names: the table's, the nomenclature's words, or the code */
	char lb[24];
	static const struct {
		uint16_t part, code;
		const char *label;
	} names[] = {
	    {MDC_PART_SCADA, MDC_PRESS_BLD_NONINV_SYS, "systolic"},
	    {MDC_PART_SCADA, MDC_PRESS_BLD_NONINV_DIA, "diastolic"},
	    {MDC_PART_SCADA, MDC_PRESS_BLD_NONINV_MEAN, "mean-arterial-pressure"},
	    {MDC_PART_SCADA, MDC_MASS_BODY_ACTUAL, "body-weight"},
	    {MDC_PART_SCADA, MDC_RATIO_MASS_BODY_LEN_SQ, "body-mass-index"},
	    {MDC_PART_SCADA, MDC_TEMP_BODY, "temperature"},
	    {MDC_PART_SCADA, MDC_CONC_GLU_CAPILLARY_WHOLEBLOOD, "glucose"},
	    {MDC_PART_SCADA, MDC_PULS_OXIM_PLETH, "plethysmogram"},
	    {MDC_PART_PHD_HF, MDC_HF_SPEED, "speed"},
	    {MDC_PART_SCADA, 1, "m2-1"},
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		assert_string_equal(
		    tp_phd_metric_label(names[i].part, names[i].code, 0, lb, sizeof(lb)),
		    names[i].label);
	assert_string_equal(tp_phd_slug("blood pressure monitor (10407)", lb, sizeof(lb)),
			    "blood-pressure-monitor");
}

/* ---- real agents' APDUs: the 20601 Annex H examples and the 104xx specializations'
 * examples as Antidote carries them (signove/antidote, tests/resources/apdu/: the file
 * name is given with each), decoded by our codec; none is produced by our encoder ---- */

/* Hex text to bytes (test vectors are kept as their hex). */
static size_t unhex(const char *h, uint8_t *out, size_t cap)
{
	size_t n = 0;
	for (; h[0] && h[1] && n < cap; h += 2) {
		unsigned int b;
		assert_int_equal(sscanf(h, "%2x", &b), 1);
		out[n++] = (uint8_t)b;
	}
	assert_true(h[0] == '\0');
	return n;
}

/* tests/resources/apdu/H211_ID_02BC: AARQ of a 10407 blood-pressure monitor, 0x02BC */
static const char h211_02bc[] =
    "e2000032800000000001002a5079002680000000a000800000004000000000800000"
    "0008112233445566770702bc8480010100000000";
/* H233_ID_02BC: its answer to a GET of the MDS attributes (model "TheBPM ABC") */
static const char h233_02bc[] = "e700006c006a00240203006400000006005e0a5a000800010004100700010928"
				"0018000a546865436f6d70616e79000a54686542504d204142430984000a0008"
				"11223344556677070a44000202bc092d00120001000e00010000000844453132"
				"34353637098700082007020112050000";
/* H241_ID_02BC: a confirmed fixed scan report, 120/80/100 mmHg and 60 bpm */
static const char h241_02bc[] = "e700003e003c0054010100360000004900500d1d002cf0000000000200240001"
				"00120003000600780050006420071206121000000002000af258200712061210"
				"0000";
/* weighing_scale/std_config_05DC: the 10415 standard configuration as a
 * ConfigReport */
static const char std_05dc[] = "e7000044004212450101003c0000ffffffff0d1c003205dc0001002c00060001"
			       "00040024092f00040002e1400a460002f0400996000206c30a55000c00020008"
			       "0a56000409900008";
/* H241_ID_05DC: a 10415 report: weight (handle 1) and BMI (3), each observed twice */
static const char h241_05dc[] = "e700005a00581236010100520000000000000d1d0048f0000000000400400001"
				"000cff0002fa20071206121000000003000cff0000f320071206121000000001"
				"000cff0002f820071206200500000003000cff0000f22007120620050000";
/* H241_ID_0190: a 10404 report, 98 % and 72 bpm */
static const char h241_0190[] = "e7000036003412380101002e0000ffffffff0d1d0024f00000000002001c0001"
				"000a00622007120612100000000a000a00482007120612100000";
/* H221: the 20601 Annex H weighing scale's extended configuration 0x4000 */
static const char h221[] = "e7000070006e4321010100680000000000000d1c005e4000000200580006000100"
			   "040024092f00040002e1400a460002d0400996000206c30a55000c000200080a56"
			   "0004099000080006000200040024092f00040002e14c0a460002d0420996000202"
			   "200a55000c000200080a56000409900008";
/* H243: the manager's data request (MDC_ACT_DATA_REQUEST), H244 the agent's answer
 * with a scan report inside */
static const char h243[] = "e700001e001c76540107001600000c1b001001008480000000000000000600000000";
static const char h244[] = "e7000040003e76540207003800000c1b00320000000000000d1d00280100000000"
			   "0200200001000cff00027020070201121000000002000cff0001002007020112"
			   "100000";
/* H232: GET of all MDS attributes */
static const char h232[] = "e700000e000c345601030006000000000000";

static void test_std_configs(void **state)
{
	static const uint16_t ids[] = {0x0190, 0x0191, 0x02BC, 0x0320, 0x05DC, 0x06A4};
	struct tp_phd_value_map map;
	struct tp_phd_apdu a;
	uint8_t m[512];
	size_t n;

	(void)state;
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		assert_int_equal(tp_phd_std_config_id((unsigned)i), ids[i]);
		assert_int_equal(tp_phd_std_value_map(ids[i], &map), 0);
		assert_int_equal(map.config_id, ids[i]);
		assert_non_null(tp_phd_std_config_name(ids[i]));
		/* every object has a metric type, a unit and an Attr-Val-Map */
		for (unsigned int k = 0; k < map.nobjs; k++) {
			assert_int_equal(map.obj[k].type_partition, MDC_PART_SCADA);
			assert_true(map.obj[k].unit != 0 && map.obj[k].n > 0);
		}
	}
	assert_int_equal(tp_phd_std_config_id(6), 0);
	assert_null(tp_phd_std_config_name(0x4000));

	/* 10407 (0x02BC): the compound and its three metric ids, then the pulse rate */
	assert_int_equal(tp_phd_std_value_map(0x02BC, &map), 0);
	assert_int_equal(map.nobjs, 2);
	assert_int_equal(map.obj[0].type_code, MDC_PRESS_BLD_NONINV);
	assert_int_equal(map.obj[0].unit, MDC_DIM_MMHG);
	assert_int_equal(map.obj[0].ncmp, 3);
	assert_int_equal(map.obj[0].cmp_id[0], MDC_PRESS_BLD_NONINV_SYS);
	assert_int_equal(map.obj[0].cmp_id[1], MDC_PRESS_BLD_NONINV_DIA);
	assert_int_equal(map.obj[0].cmp_id[2], MDC_PRESS_BLD_NONINV_MEAN);
	assert_int_equal(map.obj[0].e[0].attr_id, MDC_ATTR_NU_CMPD_VAL_OBS_BASIC);
	assert_int_equal(map.obj[0].total_len, 18);
	assert_int_equal(map.obj[1].handle, 2);
	assert_int_equal(map.obj[1].type_code, MDC_PULS_RATE_NON_INV);
	/* the other specializations' single numerics */
	assert_int_equal(tp_phd_std_value_map(0x0320, &map), 0);
	assert_int_equal(map.obj[0].type_code, MDC_TEMP_BODY);
	assert_int_equal(map.obj[0].unit, MDC_DIM_DEGC);
	assert_int_equal(tp_phd_std_value_map(0x06A4, &map), 0);
	assert_int_equal(map.obj[0].type_code, MDC_CONC_GLU_CAPILLARY_WHOLEBLOOD);
	assert_int_equal(map.obj[0].unit, MDC_DIM_MILLI_G_PER_DL);
	assert_int_equal(tp_phd_std_value_map(0x0191, &map), 0);
	assert_int_equal(map.obj[1].handle, 10);
	assert_int_equal(map.obj[1].total_len, 10);

	/* 10415 (0x05DC): our table is byte for byte the ConfigReport Antidote's
	 * vector carries */
	n = unhex(std_05dc, m, sizeof(m));
	assert_int_equal(tp_phd_decode_apdu(m, n, &a, NULL), 0);
	struct tp_phd_octets rep;
	assert_int_equal(tp_phd_std_config_report(0x05DC, &rep), 0);
	assert_int_equal(rep.len, a.u.prst.u.evt.info.len);
	assert_memory_equal(rep.p, a.u.prst.u.evt.info.p, rep.len);
}

static void test_blood_pressure_session(void **state)
{
	static struct tp_phd_scan_report sr;
	struct tp_phd_value_map map;
	struct tp_phd_value vals[TP_PHD_MAX_AVM], v;
	struct tp_phd_error err;
	struct tp_phd_apdu a;
	uint8_t m[512];
	size_t n;

	(void)state;
	n = unhex(h211_02bc, m, sizeof(m));
	assert_int_equal(tp_phd_check(m, n, NULL, &err), 0);
	assert_int_equal(tp_phd_decode_apdu(m, n, &a, NULL), 0);
	assert_int_equal(a.u.aarq.phd.dev_config_id, 0x02BC);
	assert_int_equal(tp_phd_std_value_map(a.u.aarq.phd.dev_config_id, &map), 0);

	/* the MDS attributes a manager reads after association */
	n = unhex(h233_02bc, m, sizeof(m));
	assert_int_equal(tp_phd_check(m, n, NULL, &err), 0);
	assert_int_equal(tp_phd_decode_apdu(m, n, &a, NULL), 0);
	assert_int_equal(a.u.prst.choice, TP_PHD_RORS_GET);
	const struct tp_phd_attr_list *l = &a.u.prst.u.attrs.attrs;
	int seen = 0;
	for (int i = 0; i < l->count; i++) {
		assert_int_equal(tp_phd_attr_value_decode(l->ava[i].id, l->ava[i].val.p,
							  l->ava[i].val.len, &v, NULL),
				 0);
		if (v.kind == TP_PHD_V_MODEL) {
			assert_int_equal(v.u.model.model_number.len, 10);
			assert_memory_equal(v.u.model.model_number.p, "TheBPM ABC", 10);
			assert_memory_equal(v.u.model.manufacturer.p, "TheCompany", 10);
			seen |= 1;
		} else if (v.kind == TP_PHD_V_TYPEVER) {
			assert_int_equal(v.n, 1);
			assert_int_equal(v.u.tv[0].type, MDC_DEV_SPEC_PROFILE_BP);
			seen |= 2;
		} else if (v.kind == TP_PHD_V_PROD_SPEC) {
			assert_int_equal(v.u.spec[0].spec_type, 1); /* serial-number */
			assert_memory_equal(v.u.spec[0].prod_spec.p, "DE124567", 8);
			seen |= 4;
		} else if (v.kind == TP_PHD_V_ABS_TIME) {
			assert_int_equal(v.u.abs.year, 7);
			seen |= 8;
		}
	}
	assert_int_equal(seen, 15);

	/* the report, against 0x02BC: every component of the compound */
	n = unhex(h241_02bc, m, sizeof(m));
	assert_int_equal(tp_phd_check(m, n, &map, &err), 0);
	assert_int_equal(tp_phd_decode_apdu(m, n, &a, NULL), 0);
	assert_int_equal(a.u.prst.invoke_id, 0x0054);
	assert_int_equal(tp_phd_decode_scan_report(a.u.prst.u.evt.type, a.u.prst.u.evt.info.p,
						   a.u.prst.u.evt.info.len, &sr, NULL),
			 0);
	assert_int_equal(sr.nobs, 2);
	const struct tp_phd_obj_map *om = tp_phd_value_map_find(&map, sr.obs[0].handle);
	assert_int_equal(tp_phd_fixed_values(om, sr.obs[0].data.p, sr.obs[0].data.len, vals, NULL),
			 2);
	assert_int_equal(vals[0].kind, TP_PHD_V_SFLOAT_CMP);
	assert_int_equal(vals[0].n, 3);
	assert_true(vals[0].u.cmp[0].value == 120 && vals[0].u.cmp[1].value == 80 &&
		    vals[0].u.cmp[2].value == 100);
	assert_int_equal(vals[1].u.abs.hour, 12);
	om = tp_phd_value_map_find(&map, sr.obs[1].handle);
	assert_int_equal(tp_phd_fixed_values(om, sr.obs[1].data.p, sr.obs[1].data.len, vals, NULL),
			 2);
	assert_true(vals[0].u.num.value == 60);
}

static void test_scale_and_oximeter_reports(void **state)
{
	static struct tp_phd_scan_report sr;
	struct tp_phd_value_map map, ext;
	struct tp_phd_value vals[TP_PHD_MAX_AVM];
	struct tp_phd_error err;
	struct tp_phd_apdu a;
	uint8_t m[512];
	size_t n;

	(void)state;
	/* 10415 against 0x05DC: handle 1 twice, each its own value and time; BMI (3)
	 * is not in the standard configuration */
	assert_int_equal(tp_phd_std_value_map(0x05DC, &map), 0);
	n = unhex(h241_05dc, m, sizeof(m));
	assert_int_equal(tp_phd_check(m, n, &map, &err), -TP_PHD_E_NO_CONFIG);
	assert_int_equal(err.have, 3);
	assert_int_equal(tp_phd_decode_apdu(m, n, &a, NULL), 0);
	assert_int_equal(tp_phd_decode_scan_report(a.u.prst.u.evt.type, a.u.prst.u.evt.info.p,
						   a.u.prst.u.evt.info.len, &sr, NULL),
			 0);
	assert_int_equal(sr.nobs, 4);
	const struct tp_phd_obj_map *om = tp_phd_value_map_find(&map, 1);
	assert_int_equal(tp_phd_fixed_values(om, sr.obs[0].data.p, sr.obs[0].data.len, vals, NULL),
			 2);
	assert_int_equal(vals[0].kind, TP_PHD_V_FLOAT);
	assert_true(fabs(vals[0].u.num.value - 76.2) < 1e-9);
	assert_int_equal(tp_phd_fixed_values(om, sr.obs[2].data.p, sr.obs[2].data.len, vals, NULL),
			 2);
	assert_true(fabs(vals[0].u.num.value - 76.0) < 1e-9);
	assert_int_equal(vals[1].u.abs.hour, 20);

	/* 10404 0x0190, and the same report with its clock unset (all-zero times) */
	assert_int_equal(tp_phd_std_value_map(0x0190, &map), 0);
	n = unhex(h241_0190, m, sizeof(m));
	assert_int_equal(tp_phd_check(m, n, &map, &err), 0);
	memset(m + 36, 0, 8);
	memset(m + 50, 0, 8);
	assert_int_equal(tp_phd_check(m, n, &map, &err), 0);
	assert_int_equal(tp_phd_decode_apdu(m, n, &a, NULL), 0);
	assert_int_equal(tp_phd_decode_scan_report(a.u.prst.u.evt.type, a.u.prst.u.evt.info.p,
						   a.u.prst.u.evt.info.len, &sr, NULL),
			 0);
	om = tp_phd_value_map_find(&map, 10);
	assert_int_equal(tp_phd_fixed_values(om, sr.obs[1].data.p, sr.obs[1].data.len, vals, NULL),
			 2);
	assert_true(vals[0].u.num.value == 72);
	assert_int_equal(vals[1].u.abs.unset, 1);

	/* 20601 Annex H: the extended configuration, GET, and the data request's
	 * answer carrying a scan report decoded against that configuration */
	n = unhex(h221, m, sizeof(m));
	assert_int_equal(tp_phd_check(m, n, NULL, &err), 0);
	assert_int_equal(tp_phd_decode_apdu(m, n, &a, NULL), 0);
	static struct tp_phd_config_report cfg;
	assert_int_equal(
	    tp_phd_decode_config_report(a.u.prst.u.evt.info.p, a.u.prst.u.evt.info.len, &cfg, NULL),
	    0);
	assert_int_equal(tp_phd_value_map_build(&cfg, &ext, NULL), 0);
	n = unhex(h232, m, sizeof(m));
	assert_int_equal(tp_phd_check(m, n, NULL, &err), 0);
	n = unhex(h243, m, sizeof(m));
	assert_int_equal(tp_phd_check(m, n, NULL, &err), 0);
	assert_int_equal(tp_phd_decode_apdu(m, n, &a, NULL), 0);
	struct tp_phd_data_request q;
	assert_int_equal(tp_phd_decode_data_request(a.u.prst.u.action.args.p,
						    a.u.prst.u.action.args.len, &q, NULL),
			 0);
	assert_int_equal(q.data_req_id, 0x0100);
	assert_int_equal(q.mode, 0x8480);
	assert_int_equal(q.class_id, MDC_MOC_VMO_METRIC_NU);
	uint8_t out[64];
	assert_int_equal(tp_phd_encode_data_request(&q, out, sizeof(out)),
			 a.u.prst.u.action.args.len);
	assert_memory_equal(out, a.u.prst.u.action.args.p, a.u.prst.u.action.args.len);
	n = unhex(h244, m, sizeof(m));
	assert_int_equal(tp_phd_check(m, n, &ext, &err), 0);
	assert_int_equal(tp_phd_decode_apdu(m, n, &a, NULL), 0);
	struct tp_phd_data_response r;
	assert_int_equal(tp_phd_decode_data_response(a.u.prst.u.action.args.p,
						     a.u.prst.u.action.args.len, &r, NULL),
			 0);
	assert_int_equal(r.event_type, MDC_NOTI_SCAN_REPORT_FIXED);
	assert_int_equal(r.event_info.len, 40);
	/* against another configuration, or with a handle it does not have: clear errors */
	assert_int_equal(tp_phd_std_value_map(0x06A4, &map), 0);
	assert_int_equal(tp_phd_check(m, n, &map, &err), -TP_PHD_E_MAP_MISMATCH); /* 10 != 12 */
	m[n - 15] = 0x09; /* the second observation's handle 2 -> 9 */
	assert_int_equal(tp_phd_check(m, n, &ext, &err), -TP_PHD_E_NO_CONFIG);
	assert_int_equal(err.have, 9);
	/* a data request one byte short */
	n = unhex(h243, m, sizeof(m));
	assert_int_equal(tp_phd_decode_apdu(m, n, &a, NULL), 0);
	assert_int_equal(tp_phd_decode_data_request(a.u.prst.u.action.args.p,
						    a.u.prst.u.action.args.len - 1u, &q, &err),
			 -TP_PHD_E_TRUNCATED);
}

/* What the report path takes of a fixed observation's values decoded whole (as
 * src/nf/iotgw/datapath/report.c picks it): component c of a compound, or the simple value,
 * the unit code of a NuObsValue, the first time stamp. */
struct pick {
	const struct tp_phd_num *num;
	const struct tp_phd_abs_time *time;
	int has_unit;
	uint16_t unit;
};
static struct pick pick_of(const struct tp_phd_value *v, int n, unsigned int c)
{
	struct pick p = {0};

	for (int k = 0; k < n; k++) {
		/* the observed value, not another number (a measure-active period) */
		int obs = tp_phd_attr_observed(v[k].attr_id);
		int cmp =
		    obs && (v[k].kind == TP_PHD_V_SFLOAT_CMP || v[k].kind == TP_PHD_V_FLOAT_CMP ||
			    v[k].kind == TP_PHD_V_NU_OBS_CMP);
		int whole = obs && (v[k].kind == TP_PHD_V_SFLOAT || v[k].kind == TP_PHD_V_FLOAT ||
				    v[k].kind == TP_PHD_V_NU_OBS);
		if (p.num == NULL && whole && c == TP_PHD_FIXED_WHOLE) {
			p.num = v[k].kind == TP_PHD_V_NU_OBS ? &v[k].u.nu.num : &v[k].u.num;
			p.has_unit = v[k].kind == TP_PHD_V_NU_OBS;
			p.unit = v[k].u.nu.unit;
		} else if (p.num == NULL && cmp && c != TP_PHD_FIXED_WHOLE && c < v[k].n) {
			p.num = v[k].kind == TP_PHD_V_NU_OBS_CMP ? &v[k].u.nu_cmp[c].num
								 : &v[k].u.cmp[c];
			p.has_unit = v[k].kind == TP_PHD_V_NU_OBS_CMP;
			p.unit = v[k].u.nu_cmp[c].unit;
		} else if (p.time == NULL && v[k].kind == TP_PHD_V_ABS_TIME) {
			p.time = &v[k].u.abs;
		}
	}
	return p;
}

/* Every observation of a fixed scan report (event-info) against map: read at the
 * precomputed layout, each component and the simple value give what the generic
 * decoder gives; returns the number of values compared. */
static int layout_vs_generic(const uint8_t *info, size_t len, uint16_t type,
			     const struct tp_phd_value_map *map)
{
	static struct tp_phd_scan_report sr;
	struct tp_phd_value vals[TP_PHD_MAX_AVM];
	struct tp_phd_fixed_layout lay;
	struct tp_phd_fixed_reading fr;
	int compared = 0;

	assert_int_equal(tp_phd_decode_scan_report(type, info, len, &sr, NULL), 0);
	for (unsigned int i = 0; i < sr.nobs; i++) {
		const struct tp_phd_observation *o = &sr.obs[i];
		const struct tp_phd_obj_map *om = tp_phd_value_map_find(map, o->handle);
		if (om == NULL)
			continue; /* not configured (05DC's BMI): neither decodes it */
		assert_int_equal(tp_phd_fixed_layout_build(om, &lay), 0);
		int n = tp_phd_fixed_values(om, o->data.p, o->data.len, vals, NULL);
		assert_int_equal(n, om->n);
		for (unsigned int c = 0; c <= TP_PHD_MAX_CMP; c++) {
			unsigned int comp = c == TP_PHD_MAX_CMP ? TP_PHD_FIXED_WHOLE : c;
			struct pick p = pick_of(vals, n, comp);
			assert_int_equal(
			    tp_phd_fixed_read(&lay, o->data.p, o->data.len, comp, &fr, NULL), 0);
			assert_int_equal(fr.has_num, p.num != NULL);
			assert_int_equal(fr.has_time, p.time != NULL);
			if (p.num != NULL) {
				assert_int_equal(fr.num.mantissa, p.num->mantissa);
				assert_int_equal(fr.num.exponent, p.num->exponent);
				assert_int_equal(fr.num.special, p.num->special);
				assert_int_equal(fr.unit, p.has_unit ? p.unit : 0);
				compared++;
			}
			if (p.time != NULL)
				assert_memory_equal(&fr.time, p.time, sizeof(fr.time));
		}
		/* and they fail together: one byte short, a bad BCD digit in the time */
		int g = tp_phd_fixed_values(om, o->data.p, o->data.len - 1u, vals, NULL);
		int f = tp_phd_fixed_read(&lay, o->data.p, o->data.len - 1u, TP_PHD_FIXED_WHOLE,
					  &fr, NULL);
		assert_true(g < 0 && f < 0);
		if (lay.time_off != TP_PHD_FIXED_NONE) {
			uint8_t bad[64];
			assert_true(o->data.len <= sizeof(bad));
			memcpy(bad, o->data.p, o->data.len);
			bad[lay.time_off + 1] = 0x1A;
			assert_true(tp_phd_fixed_values(om, bad, o->data.len, vals, NULL) < 0);
			assert_int_equal(tp_phd_fixed_read(&lay, bad, o->data.len, 0, &fr, NULL),
					 -TP_PHD_E_BAD_TIME);
		}
		if (lay.num_kind == TP_PHD_V_SFLOAT_CMP) {
			uint8_t bad[64];
			memcpy(bad, o->data.p, o->data.len);
			bad[lay.num_off + 1]++; /* count one more than the length holds */
			assert_true(tp_phd_fixed_values(om, bad, o->data.len, vals, NULL) < 0);
			assert_true(tp_phd_fixed_read(&lay, bad, o->data.len, 0, &fr, NULL) < 0);
		}
	}
	return compared;
}

/* The precomputed-layout path of fixed observations against the generic decoder, on
 * the specializations' example reports (10404, 10407, 10415) and 20601 Annex H's. */
static void test_fixed_layout(void **state)
{
	struct tp_phd_value_map map;
	struct tp_phd_apdu a;
	uint8_t m[512];
	size_t n;
	static const struct {
		uint16_t config;
		const char *hex;
		int values; /* numbers compared: each component, each simple value */
	} v[] = {
	    {0x0190, h241_0190, 2}, /* SpO2, pulse rate */
	    {0x02BC, h241_02bc, 4}, /* systolic, diastolic, mean; pulse */
	    {0x05DC, h241_05dc, 2}, /* body weight twice (BMI is not configured) */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		assert_int_equal(tp_phd_std_value_map(v[i].config, &map), 0);
		n = unhex(v[i].hex, m, sizeof(m));
		assert_int_equal(tp_phd_decode_apdu(m, n, &a, NULL), 0);
		assert_int_equal(layout_vs_generic(a.u.prst.u.evt.info.p, a.u.prst.u.evt.info.len,
						   a.u.prst.u.evt.type, &map),
				 v[i].values);
	}
	/* Annex H: the extended configuration and the scan report of the data response */
	static struct tp_phd_config_report cfg;
	n = unhex(h221, m, sizeof(m));
	assert_int_equal(tp_phd_decode_apdu(m, n, &a, NULL), 0);
	assert_int_equal(
	    tp_phd_decode_config_report(a.u.prst.u.evt.info.p, a.u.prst.u.evt.info.len, &cfg, NULL),
	    0);
	assert_int_equal(tp_phd_value_map_build(&cfg, &map, NULL), 0);
	n = unhex(h244, m, sizeof(m));
	assert_int_equal(tp_phd_decode_apdu(m, n, &a, NULL), 0);
	struct tp_phd_data_response r;
	assert_int_equal(tp_phd_decode_data_response(a.u.prst.u.action.args.p,
						     a.u.prst.u.action.args.len, &r, NULL),
			 0);
	assert_true(layout_vs_generic(r.event_info.p, r.event_info.len, r.event_type, &map) > 0);

	/* what the layout leaves to the generic decoder: two numbers, a string */
	struct tp_phd_obj_map om = {.handle = 1, .n = 2, .total_len = 4};
	struct tp_phd_fixed_layout lay;
	om.e[0] = (struct tp_phd_avm_entry){MDC_ATTR_NU_VAL_OBS_BASIC, 2};
	om.e[1] = (struct tp_phd_avm_entry){MDC_ATTR_NU_VAL_OBS_BASIC, 2};
	assert_int_equal(tp_phd_fixed_layout_build(&om, &lay), -TP_PHD_E_INVALID);
	om.e[1] = (struct tp_phd_avm_entry){MDC_ATTR_TIME_STAMP_ABS, 2}; /* 8 bytes, not 2 */
	assert_int_equal(tp_phd_fixed_layout_build(&om, &lay), -TP_PHD_E_INVALID);
	om.e[1] = (struct tp_phd_avm_entry){MDC_ATTR_TIME_STAMP_ABS, 8};
	om.total_len = 10;
	assert_int_equal(tp_phd_fixed_layout_build(&om, &lay), 0);
	assert_int_equal(lay.time_off, 2);
	/* an enumeration (10417's meal context) is the generic decoder's */
	om.e[0] = (struct tp_phd_avm_entry){MDC_ATTR_ENUM_OBS_VAL_SIMP_OID, 2};
	assert_int_equal(tp_phd_fixed_layout_build(&om, &lay), -TP_PHD_E_INVALID);

	/* 10417's exercise context (Freescale's PHDC agent): time, a measure-active period
	 * (a FLOAT) and then the value: the value is the SFLOAT, not the period */
	static const uint8_t ex[] = {0x20, 0x09, 0x06, 0x12, 0x12, 0x05, 0x00,
				     0x00, 0x01, 0xB7, 0x74, 0x00, 0xF3, 0x84};
	struct tp_phd_fixed_reading fr;
	struct tp_phd_value vals[3];
	om = (struct tp_phd_obj_map){.handle = 3, .n = 3, .total_len = 14};
	om.e[0] = (struct tp_phd_avm_entry){MDC_ATTR_TIME_STAMP_ABS, 8};
	om.e[1] = (struct tp_phd_avm_entry){MDC_ATTR_TIME_PD_MSMT_ACTIVE, 4};
	om.e[2] = (struct tp_phd_avm_entry){MDC_ATTR_NU_VAL_OBS_BASIC, 2};
	assert_int_equal(tp_phd_fixed_layout_build(&om, &lay), 0);
	assert_int_equal(lay.num_off, 12);
	assert_int_equal(tp_phd_fixed_read(&lay, ex, sizeof(ex), TP_PHD_FIXED_WHOLE, &fr, NULL), 0);
	assert_true(fr.has_num && fr.num.mantissa == 900 && fr.num.exponent == -1);
	assert_int_equal(tp_phd_fixed_values(&om, ex, sizeof(ex), vals, NULL), 3);
	struct pick p = pick_of(vals, 3, TP_PHD_FIXED_WHOLE);
	assert_true(p.num != NULL && p.num->mantissa == 900 && p.time != NULL);
	assert_false(tp_phd_attr_observed(MDC_ATTR_TIME_PD_MSMT_ACTIVE));
}

static void test_set_time(void **state)
{
	/* SetTimeInvoke: 2024-05-17 10:30:00.00, accuracy 0 */
	static const uint8_t args[] = {0x20, 0x24, 0x05, 0x17, 0x10, 0x30,
				       0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
	struct tp_phd_set_time t;
	struct tp_phd_error err;
	uint8_t out[16];

	(void)state;
	assert_int_equal(tp_phd_decode_set_time(args, sizeof(args), &t, &err), 0);
	assert_int_equal(t.time.month, 5);
	assert_int_equal(tp_phd_encode_set_time(&t, out, sizeof(out)), 12);
	assert_memory_equal(out, args, 12);
	assert_int_equal(tp_phd_decode_set_time(args, 11, &t, &err), -TP_PHD_E_TRUNCATED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_aarq),
	    cmocka_unit_test(test_aarq_encode),
	    cmocka_unit_test(test_aare),
	    cmocka_unit_test(test_release_abort),
	    cmocka_unit_test(test_config_report),
	    cmocka_unit_test(test_config_rsp),
	    cmocka_unit_test(test_std_config),
	    cmocka_unit_test(test_scan_fixed),
	    cmocka_unit_test(test_event_report_rsp),
	    cmocka_unit_test(test_scan_encode),
	    cmocka_unit_test(test_scan_fixed_extended),
	    cmocka_unit_test(test_scan_var),
	    cmocka_unit_test(test_scan_mp),
	    cmocka_unit_test(test_scan_kinds),
	    cmocka_unit_test(test_get),
	    cmocka_unit_test(test_set_action_errors),
	    cmocka_unit_test(test_error_reports),
	    cmocka_unit_test(test_limits),
	    cmocka_unit_test(test_sfloat),
	    cmocka_unit_test(test_float),
	    cmocka_unit_test(test_num_fmt),
	    cmocka_unit_test(test_abs_time),
	    cmocka_unit_test(test_values),
	    cmocka_unit_test(test_nomenclature),
	    cmocka_unit_test(test_std_configs),
	    cmocka_unit_test(test_blood_pressure_session),
	    cmocka_unit_test(test_scale_and_oximeter_reports),
	    cmocka_unit_test(test_fixed_layout),
	    cmocka_unit_test(test_set_time),
	};
	return cmocka_run_group_tests_name("mder", tests, setup, NULL);
}
