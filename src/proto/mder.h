/* SPDX-License-Identifier: BSD-3-Clause */
/* ISO/IEEE 11073-20601 APDU codec (MDER): decode into caller structs, encode into buffers. */
#ifndef TP_PROTO_MDER_H
#define TP_PROTO_MDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "phd_nomenclature.h"

/*
 * Contract for the whole codec (see src/proto/README.md):
 * - Pure functions on buffers: no allocation, no global state, thread-safe.
 * - Decoders never read outside [buf, buf + len). Every length and count is
 *   checked against what is present, and the encoding must be exact: a list's
 *   entries fill its length, a message fills its APDU, nothing trails. MDER is
 *   canonical, so whatever decodes re-encodes to the same bytes.
 * - Decoded structs point into the input buffer (struct tp_phd_octets): they
 *   are valid while that buffer is, and the codec never copies payloads.
 * - Decoders return 0 or a negative enum tp_phd_err and, when err is not NULL,
 *   say which field, at which offset (from the start of the buffer given to
 *   that function), and what was wrong. Encoders return the number of bytes
 *   written or a negative enum tp_phd_err; nothing is written past size.
 * - Limits are fixed (TP_PHD_MAX_*); input beyond them is an error
 *   (TP_PHD_E_TOO_MANY), never a silent truncation.
 */

#define TP_PHD_UDP_PORT 6024 /* the gateway's default PHD port (DESIGN.md) */
#define TP_PHD_DATA_PROTO_20601 20601
#define TP_PHD_DATA_PROTO_EXTERNAL 65535

#define TP_PHD_MAX_PROTOS 4	  /* entries of an AARQ data-proto-list */
#define TP_PHD_MAX_ATTRS 32	  /* AVAs of one AttributeList; ids of a get; mods of a set */
#define TP_PHD_MAX_CFG_OBJS 32	  /* objects of a configuration report */
#define TP_PHD_MAX_OBS 64	  /* observations of a scan report (all persons) */
#define TP_PHD_MAX_SCAN_ATTRS 256 /* AVAs of all variable observations of a scan report */
#define TP_PHD_MAX_PERSONS 16	  /* person blocks of a multi-person scan report */
#define TP_PHD_MAX_AVM 16	  /* entries of one Attr-Val-Map */
#define TP_PHD_MAX_CMP 8	  /* components of a compound numeric value */
#define TP_PHD_MAX_LIST 64	  /* entries of a MetricIdList, TypeVerList or ProductionSpec */

/* APDU choice tags (20601 Annex A, APDU; in MDER a 16-bit tag and a 16-bit length). */
enum tp_phd_apdu_type {
	TP_PHD_AARQ = 0xE200,
	TP_PHD_AARE = 0xE300,
	TP_PHD_RLRQ = 0xE400,
	TP_PHD_RLRE = 0xE500,
	TP_PHD_ABRT = 0xE600,
	TP_PHD_PRST = 0xE700,
};

/* DataApdu message choices (20601 Annex A, DataApdu): roiv = invoke, rors = result. */
enum tp_phd_dchoice {
	TP_PHD_ROIV_EVENT_REPORT = 0x0100,
	TP_PHD_ROIV_CONF_EVENT_REPORT = 0x0101,
	TP_PHD_ROIV_GET = 0x0103,
	TP_PHD_ROIV_SET = 0x0104,
	TP_PHD_ROIV_CONF_SET = 0x0105,
	TP_PHD_ROIV_ACTION = 0x0106,
	TP_PHD_ROIV_CONF_ACTION = 0x0107,
	TP_PHD_RORS_CONF_EVENT_REPORT = 0x0201,
	TP_PHD_RORS_GET = 0x0203,
	TP_PHD_RORS_CONF_SET = 0x0205,
	TP_PHD_RORS_CONF_ACTION = 0x0207,
	TP_PHD_ROER = 0x0300,
	TP_PHD_RORJ = 0x0400,
};

/* Bit values of PhdAssociationInformation and the AARQ (20601 Annex A). */
#define TP_PHD_ASSOC_VERSION1 0x80000000u
#define TP_PHD_PROTOCOL_VERSION1 0x80000000u
#define TP_PHD_PROTOCOL_VERSION2 0x40000000u
#define TP_PHD_PROTOCOL_VERSION3 0x20000000u
#define TP_PHD_ENC_MDER 0x8000
#define TP_PHD_ENC_XER 0x4000
#define TP_PHD_ENC_PER 0x2000
#define TP_PHD_NOM_VERSION1 0x80000000u
#define TP_PHD_FUN_UNIDIRECTIONAL 0x80000000u
#define TP_PHD_FUN_HAVE_TEST_CAP 0x40000000u
#define TP_PHD_FUN_CREATE_TEST_ASSOC 0x20000000u
#define TP_PHD_SYS_TYPE_MANAGER 0x80000000u
#define TP_PHD_SYS_TYPE_AGENT 0x00800000u
#define TP_PHD_DATA_REQ_SUPP_INIT_AGENT 0x0001
/* ConfigId ranges (20601 Annex A, ConfigId) */
#define TP_PHD_CONFIG_MANAGER_RSP 0x0000
#define TP_PHD_CONFIG_STD_FIRST 0x0001
#define TP_PHD_CONFIG_STD_LAST 0x3FFF
#define TP_PHD_CONFIG_EXT_FIRST 0x4000
#define TP_PHD_CONFIG_EXT_LAST 0x7FFF
/* Data request id of agent-initiated scan reports (20601 Annex A, DataReqId) */
#define TP_PHD_DATA_REQ_ID_AGENT_INIT 0xF000
/* No object: obj-handle 0 is the MDS */
#define TP_PHD_HANDLE_MDS 0
/* RelativeTime 0xFFFFFFFF: time not supported */
#define TP_PHD_TIME_NONE 0xFFFFFFFFu

/* AssociateResult (20601 Annex A) */
enum tp_phd_assoc_result {
	TP_PHD_ACCEPTED = 0,
	TP_PHD_REJECTED_PERMANENT = 1,
	TP_PHD_REJECTED_TRANSIENT = 2,
	TP_PHD_ACCEPTED_UNKNOWN_CONFIG = 3,
	TP_PHD_REJECTED_NO_COMMON_PROTOCOL = 4,
	TP_PHD_REJECTED_NO_COMMON_PARAMETER = 5,
	TP_PHD_REJECTED_UNKNOWN = 6,
	TP_PHD_REJECTED_UNAUTHORIZED = 7,
	TP_PHD_REJECTED_UNSUPPORTED_ASSOC_VERSION = 8,
};

/* ConfigResult (20601 Annex A) */
enum tp_phd_config_result {
	TP_PHD_CONFIG_ACCEPTED = 0,
	TP_PHD_CONFIG_UNSUPPORTED = 1,
	TP_PHD_CONFIG_STD_UNKNOWN = 2,
};

/* Decode and encode errors; functions return them negated. */
enum tp_phd_err {
	TP_PHD_OK = 0,
	TP_PHD_E_TRUNCATED,	 /* a field runs past the end of the bytes present */
	TP_PHD_E_LENGTH,	 /* a length field exceeds the bytes its container holds */
	TP_PHD_E_TRAILING,	 /* bytes left over after the content a length declared */
	TP_PHD_E_TOO_MANY,	 /* a count exceeds the codec's fixed limit */
	TP_PHD_E_UNKNOWN_APDU,	 /* APDU tag is not one of E200..E700 */
	TP_PHD_E_UNKNOWN_CHOICE, /* DataApdu choice is not a known roiv/rors/roer/rorj */
	TP_PHD_E_UNKNOWN_EVENT,	 /* event type is not one this function decodes */
	TP_PHD_E_BAD_VALUE,	 /* a field holds a value the standard forbids */
	TP_PHD_E_BAD_TIME,	 /* absolute time: not BCD, or not a valid date/time */
	TP_PHD_E_ATTR_LEN,	 /* an attribute value has the wrong size for its type */
	TP_PHD_E_NO_CONFIG,	 /* a fixed observation's handle is not in the configuration */
	TP_PHD_E_MAP_MISMATCH,	 /* obs-val-data does not match the object's Attr-Val-Map */
	TP_PHD_E_NO_SPACE,	 /* encoder: the output buffer is too small */
	TP_PHD_E_TOO_LONG,	 /* encoder: content does not fit a 16-bit length */
	TP_PHD_E_INVALID, /* encoder: bad argument (count over a limit, value out of range) */
	TP_PHD_ERR_COUNT  /* number of codes, not an error */
};

/* Where and why a decode failed. */
struct tp_phd_error {
	int code;	      /* enum tp_phd_err (positive) */
	uint32_t offset;      /* of the offending field, from the start of the decoded buffer */
	const uint8_t *where; /* its address (any buffer's offset is where - buffer), or NULL */
	const char *field;    /* the 20601 field name, "config-obj-list.count" */
	uint32_t need, have;  /* TRUNCATED/LENGTH: bytes needed and present; TOO_MANY: count
				 and limit; BAD_VALUE/ATTR_LEN: the value and what was expected */
};

/* Name of an error code ("TRUNCATED"), either sign. */
const char *tp_phd_err_name(int code);
/* Sentence for an error code, either sign. */
const char *tp_phd_strerror(int code);
/* "config-obj-list.length at offset 10: length field exceeds the bytes present (needs 42,
 * 30 present)". Returns the length snprintf() would have written. */
int tp_phd_error_fmt(const struct tp_phd_error *e, char *buf, size_t len);

/* Bytes inside the decoded buffer (or, for encoding, anywhere). */
struct tp_phd_octets {
	const uint8_t *p;
	uint16_t len;
};

/* AVA-Type: an attribute id and its still-encoded value (decode it with
 * tp_phd_attr_value_decode). */
struct tp_phd_ava {
	uint16_t id;
	struct tp_phd_octets val;
};

/* AttributeList */
struct tp_phd_attr_list {
	uint16_t count;
	struct tp_phd_ava ava[TP_PHD_MAX_ATTRS];
};

/* PhdAssociationInformation (20601 Annex A) */
struct tp_phd_assoc_info {
	uint32_t protocol_version;	/* TP_PHD_PROTOCOL_VERSION* bits */
	uint16_t encoding_rules;	/* TP_PHD_ENC_* bits */
	uint32_t nomenclature_version;	/* TP_PHD_NOM_VERSION1 */
	uint32_t functional_units;	/* TP_PHD_FUN_* bits */
	uint32_t system_type;		/* TP_PHD_SYS_TYPE_AGENT or _MANAGER */
	struct tp_phd_octets system_id; /* the EUI-64, 8 bytes in practice */
	uint16_t dev_config_id;
	uint16_t data_req_mode_flags;
	uint8_t data_req_init_agent_count;
	uint8_t data_req_init_manager_count;
	struct tp_phd_attr_list option_list;
};

/* DataProto: data-proto-id and its data-proto-info, still encoded. */
struct tp_phd_data_proto {
	uint16_t id;
	struct tp_phd_octets info;
};

/* AarqApdu. The entry with id 20601 is decoded into phd (phd_index says which;
 * -1 when there is none). When encoding, entry phd_index is written from phd
 * and the others from their info bytes. */
struct tp_phd_aarq {
	uint32_t assoc_version; /* TP_PHD_ASSOC_VERSION1 */
	uint16_t nprotos;
	struct tp_phd_data_proto proto[TP_PHD_MAX_PROTOS];
	int phd_index;
	struct tp_phd_assoc_info phd;
};

/* AareApdu. has_phd: selected-data-proto is 20601 with information (decoded
 * into phd, and encoded from it); otherwise its info bytes are used as is. */
struct tp_phd_aare {
	uint16_t result; /* enum tp_phd_assoc_result */
	struct tp_phd_data_proto proto;
	int has_phd;
	struct tp_phd_assoc_info phd;
};

/* EventReportArgumentSimple (0100, 0101) and EventReportResultSimple (0201):
 * time is event-time or currentTime, info is event-info or event-reply-info. */
struct tp_phd_event_report {
	uint16_t obj_handle;
	uint32_t time; /* RelativeTime, 1/8 ms ticks; TP_PHD_TIME_NONE if unsupported */
	uint16_t type; /* MDC_NOTI_* */
	struct tp_phd_octets info;
};

/* GetArgumentSimple (0103): an empty id list asks for all attributes. */
struct tp_phd_get {
	uint16_t obj_handle;
	uint16_t nids;
	uint16_t id[TP_PHD_MAX_ATTRS];
};

/* GetResultSimple (0203), SetResultSimple (0205) */
struct tp_phd_attr_result {
	uint16_t obj_handle;
	struct tp_phd_attr_list attrs;
};

/* SetArgumentSimple (0104, 0105): ModificationList of AttributeModEntry. */
struct tp_phd_set {
	uint16_t obj_handle;
	uint16_t nmods;
	struct {
		uint16_t op; /* 0 replace, 1 add-values, 2 remove-values, 3 set-to-default */
		struct tp_phd_ava ava;
	} mod[TP_PHD_MAX_ATTRS];
};

/* ActionArgumentSimple (0106, 0107) and ActionResultSimple (0207) */
struct tp_phd_action {
	uint16_t obj_handle;
	uint16_t type; /* MDC_ACT_* */
	struct tp_phd_octets args;
};

/* ErrorResult (0300) */
struct tp_phd_roer {
	uint16_t error_value;
	struct tp_phd_octets parameter;
};

/* DataApdu: invoke-id and the message; the union member follows choice. */
struct tp_phd_data_apdu {
	uint16_t invoke_id;
	uint16_t choice; /* enum tp_phd_dchoice */
	union {
		struct tp_phd_event_report evt;	 /* 0100, 0101, 0201 */
		struct tp_phd_get get;		 /* 0103 */
		struct tp_phd_set set;		 /* 0104, 0105 */
		struct tp_phd_action action;	 /* 0106, 0107, 0207 */
		struct tp_phd_attr_result attrs; /* 0203, 0205 */
		struct tp_phd_roer roer;	 /* 0300 */
		uint16_t rorj_problem;		 /* 0400 */
	} u;
};

/* An APDU; the union member follows type. */
struct tp_phd_apdu {
	uint16_t type; /* enum tp_phd_apdu_type */
	union {
		struct tp_phd_aarq aarq;
		struct tp_phd_aare aare;
		uint16_t reason; /* RLRQ, RLRE: release reason; ABRT: abort reason */
		struct tp_phd_data_apdu prst;
	} u;
};

/* Decode one APDU of exactly len bytes (one per UDP datagram): the envelope,
 * the AARQ/AARE association information and the DataApdu header. Event and
 * action information stay encoded (decode them with the functions below), so
 * the fast path pays only for what it reads. */
int tp_phd_decode_apdu(const uint8_t *buf, size_t len, struct tp_phd_apdu *out,
		       struct tp_phd_error *err);
/* Encode an APDU; returns its length. */
int tp_phd_encode_apdu(const struct tp_phd_apdu *a, uint8_t *buf, size_t size);

/* Decode PhdAssociationInformation (a data-proto-info of id 20601). */
int tp_phd_decode_assoc_info(const uint8_t *buf, size_t len, struct tp_phd_assoc_info *out,
			     struct tp_phd_error *err);
int tp_phd_encode_assoc_info(const struct tp_phd_assoc_info *ai, uint8_t *buf, size_t size);

/* ConfigReport (event-info of MDC_NOTI_CONFIG, 20601 Annex A) */
struct tp_phd_config_object {
	uint16_t obj_class; /* MDC_MOC_* */
	uint16_t handle;
	struct tp_phd_attr_list attrs;
};
struct tp_phd_config_report {
	uint16_t config_report_id;
	uint16_t nobjs;
	struct tp_phd_config_object obj[TP_PHD_MAX_CFG_OBJS];
};
int tp_phd_decode_config_report(const uint8_t *buf, size_t len, struct tp_phd_config_report *out,
				struct tp_phd_error *err);
int tp_phd_encode_config_report(const struct tp_phd_config_report *c, uint8_t *buf, size_t size);

/* ConfigReportRsp (event-reply-info of MDC_NOTI_CONFIG) */
struct tp_phd_config_rsp {
	uint16_t config_report_id;
	uint16_t result; /* enum tp_phd_config_result */
};
int tp_phd_decode_config_rsp(const uint8_t *buf, size_t len, struct tp_phd_config_rsp *out,
			     struct tp_phd_error *err);
int tp_phd_encode_config_rsp(const struct tp_phd_config_rsp *r, uint8_t *buf, size_t size);

/* Scan reports (20601 Annex A, ScanReportInfo*): the sixteen MDC_NOTI_*SCAN_REPORT* event types
 * have three observation forms, single- or multi-person. */
enum tp_phd_scan_form {
	TP_PHD_SCAN_FIXED,   /* ObservationScanFixed: handle + obs-val-data per Attr-Val-Map */
	TP_PHD_SCAN_VAR,     /* ObservationScan: handle + AttributeList */
	TP_PHD_SCAN_GROUPED, /* ObservationScanGrouped: octets per the scanner's handle map */
};
/* Form and multi-person flag of a scan-report event type; 0, or
 * -TP_PHD_E_UNKNOWN_EVENT when type is not a scan report. */
int tp_phd_scan_kind(uint16_t event_type, enum tp_phd_scan_form *form, int *multi_person);

/* One observation. Fixed: handle and data (obs-val-data). Variable: handle and
 * nattrs AVAs from scan->attr[attr_first]. Grouped: data only (handle 0). */
struct tp_phd_observation {
	uint16_t handle;
	uint16_t attr_first, nattrs;
	struct tp_phd_octets data;
};
/* A decoded scan report. Multi-person reports list their persons in person[]
 * with the span of obs[] each holds; single-person reports have npersons 0. */
struct tp_phd_scan_report {
	uint16_t event_type; /* set by the caller when encoding */
	uint8_t form;	     /* enum tp_phd_scan_form */
	uint8_t multi_person;
	uint16_t data_req_id;
	uint16_t scan_report_no;
	uint16_t npersons;
	struct {
		uint16_t person_id;
		uint16_t obs_first, nobs;
	} person[TP_PHD_MAX_PERSONS];
	uint16_t nobs;
	struct tp_phd_observation obs[TP_PHD_MAX_OBS];
	uint16_t nattrs;
	struct tp_phd_ava attr[TP_PHD_MAX_SCAN_ATTRS];
};
/* Decode the event-info of a scan report of event_type. */
int tp_phd_decode_scan_report(uint16_t event_type, const uint8_t *buf, size_t len,
			      struct tp_phd_scan_report *out, struct tp_phd_error *err);
/* Encode s (form, multi_person from s->event_type). */
int tp_phd_encode_scan_report(const struct tp_phd_scan_report *s, uint8_t *buf, size_t size);

/* The fast path's reply to a confirmed event report (roiv 0101): a PRST with
 * rors-cmip-confirmed-event-report (0201), the same invoke-id, obj-handle and
 * event-type, and an empty event-reply-info (a scan report's reply). Returns
 * its length (22) or -TP_PHD_E_NO_SPACE. */
int tp_phd_encode_event_report_rsp(uint8_t *buf, size_t size, uint16_t invoke_id,
				   uint16_t obj_handle, uint32_t current_time, uint16_t event_type);

/* ---- numbers, times and attribute values (mder_value.c) ---- */

/* Special values of SFLOAT-Type and FLOAT-Type (20601 Annex A: NaN, NRes, +-INF, reserved). */
enum tp_phd_special {
	TP_PHD_FINITE = 0,
	TP_PHD_NAN,	 /* not a number */
	TP_PHD_NRES,	 /* not at this resolution */
	TP_PHD_PINF,	 /* +infinity */
	TP_PHD_NINF,	 /* -infinity */
	TP_PHD_RESERVED, /* reserved for future use */
};
/* A decoded SFLOAT or FLOAT: value = mantissa * 10^exponent when finite. */
struct tp_phd_num {
	double value; /* NaN for NaN/NRes/reserved, +-INFINITY for +-INF */
	int32_t mantissa;
	int8_t exponent;
	uint8_t special; /* enum tp_phd_special */
};
/* Whether attribute attr_id is a numeric's observed value (20601 Annex A: the Simple-,
 * Basic- and Nu-Observed-Value attributes and their compounds), not another number an
 * observation may carry (a measure-active period, an accuracy). */
bool tp_phd_attr_observed(uint16_t attr_id);
void tp_phd_sfloat_decode(uint16_t raw, struct tp_phd_num *out);
void tp_phd_float_decode(uint32_t raw, struct tp_phd_num *out);
/* Encode v with the most precision that fits (trailing decimal zeros moved to
 * the exponent, so 98 is 0x0062), rounding half away from zero. NaN encodes as
 * NaN, +-inf as +-INF. 0, or -TP_PHD_E_INVALID when |v| is too large. */
int tp_phd_sfloat_encode(double v, uint16_t *raw);
int tp_phd_float_encode(double v, uint32_t *raw);
/* Set n from a double as an SFLOAT (float32 == 0) or a FLOAT would carry it. */
int tp_phd_num_from_double(struct tp_phd_num *n, double v, int float32);
/* The encoding of a special value (TP_PHD_FINITE gives zero). */
uint16_t tp_phd_sfloat_special(enum tp_phd_special s);
uint32_t tp_phd_float_special(enum tp_phd_special s);
/* Exact decimal text of a number: "98", "-0.05", "12e+30"; for special values
 * their name ("NaN", "NRes", "+INF", "-INF", "reserved"). Returns snprintf's. */
int tp_phd_num_fmt(const struct tp_phd_num *n, char *buf, size_t len);
const char *tp_phd_special_name(enum tp_phd_special s);

/* AbsoluteTime (20601 Annex A): eight BCD bytes, decoded to binary fields. */
struct tp_phd_abs_time {
	uint8_t century, year, month, day, hour, minute, second;
	uint8_t frac;  /* sec-fractions, hundredths */
	uint8_t unset; /* all eight bytes zero: the agent's clock is not set (every other
			  field is then 0) */
};
/* Decode and validate (BCD digits, month 1-12, day within the month, leap years,
 * hour < 24, minute and second < 60). All-zero bytes are accepted as unset: real
 * agents without a set clock send them (a manager uses its receive time).
 * 0 or -TP_PHD_E_BAD_TIME. */
int tp_phd_abs_time_decode(const uint8_t b[8], struct tp_phd_abs_time *t);
/* Validate and encode (unset encodes as eight zeros). 0 or -TP_PHD_E_BAD_TIME. */
int tp_phd_abs_time_encode(const struct tp_phd_abs_time *t, uint8_t b[8]);
struct tm;
/* A broken-down time (gmtime_r) as an AbsoluteTime, whole seconds (a leap second as 59). */
struct tp_phd_abs_time tp_phd_abs_time_from_tm(const struct tm *tm);
/* "2007-12-06T12:10:00.00", or "unset"; returns snprintf's. */
int tp_phd_abs_time_fmt(const struct tp_phd_abs_time *t, char *buf, size_t len);

/* AttrValMapEntry (20601 Annex A) */
struct tp_phd_avm_entry {
	uint16_t attr_id;
	uint16_t len;
};

/* How a value is typed, chosen by its attribute id (tp_phd_attr_kind). */
enum tp_phd_vkind {
	TP_PHD_V_OCTETS,     /* not interpreted: oct holds the whole value */
	TP_PHD_V_SFLOAT,     /* BasicNuObsValue: num */
	TP_PHD_V_FLOAT,	     /* SimpleNuObsValue, FLOAT-Type: num */
	TP_PHD_V_NU_OBS,     /* NuObsValue: nu */
	TP_PHD_V_SFLOAT_CMP, /* BasicNuObsValueCmp: n in cmp */
	TP_PHD_V_FLOAT_CMP,  /* SimpleNuObsValueCmp: n in cmp */
	TP_PHD_V_NU_OBS_CMP, /* NuObsValueCmp: n in nu_cmp */
	TP_PHD_V_ABS_TIME,   /* AbsoluteTime: abs */
	TP_PHD_V_REL_TIME,   /* RelativeTime (1/8 ms): u32 */
	TP_PHD_V_HIRES_TIME, /* HighResRelativeTime (us): u64 */
	TP_PHD_V_OID,	     /* OID-Type: u16 */
	TP_PHD_V_U16,	     /* INT-U16, HANDLE, ConfigId, NomPartition: u16 */
	TP_PHD_V_BITS16,     /* BITS-16: u16 */
	TP_PHD_V_BITS32,     /* BITS-32: u32 */
	TP_PHD_V_TYPE,	     /* TYPE: type */
	TP_PHD_V_AVM,	     /* AttrValMap: n in avm */
	TP_PHD_V_STRING,     /* OCTET STRING: oct holds the content after its length */
	TP_PHD_V_OID_LIST,   /* MetricIdList, SEQUENCE OF OID-Type: n in oid */
	TP_PHD_V_MODEL,	     /* SystemModel: manufacturer and model-number in model */
	TP_PHD_V_TYPEVER,    /* TypeVerList (System-Type-Spec-List): n in tv */
	TP_PHD_V_PROD_SPEC,  /* ProductionSpec: n in spec */
	TP_PHD_V_KIND_COUNT  /* number of kinds, not a kind */
};
struct tp_phd_nu_obs {
	uint16_t metric_id, state, unit;
	struct tp_phd_num num;
};
struct tp_phd_value {
	uint16_t attr_id;
	uint8_t kind; /* enum tp_phd_vkind */
	uint8_t n;    /* elements of cmp, nu_cmp, avm, oid, tv, spec */
	union {
		struct tp_phd_num num;
		struct tp_phd_nu_obs nu;
		struct tp_phd_num cmp[TP_PHD_MAX_CMP];
		struct tp_phd_nu_obs nu_cmp[TP_PHD_MAX_CMP];
		struct tp_phd_abs_time abs;
		uint16_t u16;
		uint32_t u32;
		uint64_t u64;
		struct {
			uint16_t partition, code;
		} type;
		struct tp_phd_avm_entry avm[TP_PHD_MAX_AVM];
		struct tp_phd_octets oct;
		uint16_t oid[TP_PHD_MAX_LIST];
		struct {
			struct tp_phd_octets manufacturer, model_number;
		} model;
		struct {
			uint16_t type, version; /* MDC_DEV_SPEC_PROFILE_* (INFRA), its version */
		} tv[TP_PHD_MAX_LIST];
		struct {
			uint16_t spec_type, component_id; /* 1 serial-number, 2 part-number... */
			struct tp_phd_octets prod_spec;
		} spec[TP_PHD_MAX_AVM];
	} u;
};
/* The kind an attribute's value has (TP_PHD_V_OCTETS for ids it does not know). */
enum tp_phd_vkind tp_phd_attr_kind(uint16_t attr_id);
/* Decode the value of attribute attr_id from exactly len bytes. */
int tp_phd_attr_value_decode(uint16_t attr_id, const uint8_t *buf, size_t len,
			     struct tp_phd_value *out, struct tp_phd_error *err);
/* Encode v->kind; returns its length. */
int tp_phd_attr_value_encode(const struct tp_phd_value *v, uint8_t *buf, size_t size);

/* What decoding fixed observations needs of one configured object: a flat
 * struct without pointers, so it can live in a shared AE table. */
struct tp_phd_obj_map {
	uint16_t handle;
	uint16_t obj_class;
	uint16_t type_partition, type_code; /* MDC_ATTR_ID_TYPE; 0/0 when absent */
	uint16_t unit;			    /* MDC_ATTR_UNIT_CODE; 0 when absent */
	uint8_t ncmp;			    /* metric ids of a compound's components */
	uint16_t cmp_id[TP_PHD_MAX_CMP];    /* MDC_ATTR_ID_PHYSIO_LIST (SCADA codes) */
	uint32_t total_len;		    /* sum of the entries' lengths */
	uint16_t n;			    /* Attr-Val-Map entries; 0 when absent */
	struct tp_phd_avm_entry e[TP_PHD_MAX_AVM];
};
struct tp_phd_value_map {
	uint16_t config_id;
	uint16_t nobjs;
	struct tp_phd_obj_map obj[TP_PHD_MAX_CFG_OBJS];
};
/* Build the value map of a decoded configuration report. */
int tp_phd_value_map_build(const struct tp_phd_config_report *cfg, struct tp_phd_value_map *map,
			   struct tp_phd_error *err);
/* The object of a handle, or NULL. */
const struct tp_phd_obj_map *tp_phd_value_map_find(const struct tp_phd_value_map *map,
						   uint16_t handle);
/* Decode a fixed observation's obs-val-data into om->n values (vals has room
 * for TP_PHD_MAX_AVM). Returns om->n, or a negative error. */
int tp_phd_fixed_values(const struct tp_phd_obj_map *om, const uint8_t *data, size_t len,
			struct tp_phd_value *vals, struct tp_phd_error *err);

/* The report path's shortcut for fixed observations: where an object's number and
 * time stamp lie in its obs-val-data, computed once from its Attr-Val-Map (at
 * association), so reading a report is loading fixed offsets, not walking the map
 * and decoding every entry. It gives what tp_phd_fixed_values() gives for those
 * two values (the unit test holds them together on the specializations' reports),
 * and fails where it fails. */
struct tp_phd_fixed_layout {
	uint16_t len;	   /* obs-val-data length (the map's total) */
	uint16_t num_off;  /* offset of the numeric value */
	uint16_t time_off; /* offset of the AbsoluteTime; TP_PHD_FIXED_NONE: none */
	uint8_t num_kind;  /* TP_PHD_V_SFLOAT, _FLOAT, _NU_OBS or a _CMP kind; _OCTETS: none */
	uint8_t num_len;   /* its entry's length (a compound's count is checked against it) */
};
#define TP_PHD_FIXED_NONE 0xFFFF
/* What one metric reads of a fixed observation: its number (component c of a
 * compound, or the simple value), the unit code a NuObsValue carries (0 otherwise)
 * and the time stamp. */
struct tp_phd_fixed_reading {
	struct tp_phd_num num;
	struct tp_phd_abs_time time;
	uint16_t unit;
	uint8_t has_num, has_time;
};
#define TP_PHD_FIXED_WHOLE 0xFF /* component: the simple value, not a compound's part */
/* The layout of om's values: 0, or -TP_PHD_E_INVALID when om's map has what only
 * tp_phd_fixed_values() decodes (more than one numeric value or time stamp, a
 * value of variable form such as a string, an entry whose length its type
 * forbids): the caller then uses tp_phd_fixed_values(). */
int tp_phd_fixed_layout_build(const struct tp_phd_obj_map *om, struct tp_phd_fixed_layout *l);
/* Read component c (TP_PHD_FIXED_WHOLE: the simple value) and the time stamp of a
 * fixed observation of len bytes at data. has_num is 0 when the layout has no such
 * value (a simple value asked of a compound, a component past its count). 0, or a
 * negative error where tp_phd_fixed_values() fails (length, compound form, time). */
int tp_phd_fixed_read(const struct tp_phd_fixed_layout *l, const uint8_t *data, size_t len,
		      unsigned int c, struct tp_phd_fixed_reading *out, struct tp_phd_error *err);

/* Standard configurations the codec knows (mder_stdconf.c: the 104xx specializations'
 * tables, 0x0190 and 0x0191 pulse oximeter, 0x02BC blood pressure, 0x0320
 * thermometer, 0x05DC weighing scale, 0x06A4 glucose meter): the ConfigReport
 * event-info an agent would send for it, and its value map. 0, or
 * -TP_PHD_E_NO_CONFIG for an unknown id. */
int tp_phd_std_config_report(uint16_t config_id, struct tp_phd_octets *report);
int tp_phd_std_value_map(uint16_t config_id, struct tp_phd_value_map *map);
/* The specialization of a known standard configuration ("IEEE 11073-10407 blood
 * pressure monitor"), or NULL. */
const char *tp_phd_std_config_name(uint16_t config_id);
/* The i-th known standard configuration id (0 past the end), for listing them. */
uint16_t tp_phd_std_config_id(unsigned int i);

/* ---- action arguments and results (20601 Annex A; mder.c) ---- */

/* DataRequest, the action-info-args of MDC_ACT_DATA_REQUEST */
struct tp_phd_data_request {
	uint16_t data_req_id, mode; /* DataReqMode bits */
	uint32_t time;		    /* RelativeTime */
	uint16_t person_id, class_id;
	uint16_t nhandles;
	uint16_t handle[TP_PHD_MAX_LIST];
};
/* DataResponse, the action-info-args of the result of MDC_ACT_DATA_REQUEST: an
 * event (a scan report) inside */
struct tp_phd_data_response {
	uint32_t rel_time_stamp;
	uint16_t result; /* DataReqResult: 0 normal */
	uint16_t event_type;
	struct tp_phd_octets event_info;
};
/* SetTimeInvoke, the action-info-args of MDC_ACT_SET_TIME */
struct tp_phd_set_time {
	struct tp_phd_abs_time time;
	struct tp_phd_num accuracy; /* FLOAT-Type, seconds */
};
int tp_phd_decode_data_request(const uint8_t *buf, size_t len, struct tp_phd_data_request *out,
			       struct tp_phd_error *err);
int tp_phd_encode_data_request(const struct tp_phd_data_request *r, uint8_t *buf, size_t size);
int tp_phd_decode_data_response(const uint8_t *buf, size_t len, struct tp_phd_data_response *out,
				struct tp_phd_error *err);
int tp_phd_encode_data_response(const struct tp_phd_data_response *r, uint8_t *buf, size_t size);
int tp_phd_decode_set_time(const uint8_t *buf, size_t len, struct tp_phd_set_time *out,
			   struct tp_phd_error *err);
int tp_phd_encode_set_time(const struct tp_phd_set_time *t, uint8_t *buf, size_t size);

/* Decode everything this codec understands in one APDU: the APDU, association
 * information, configuration reports and responses, scan reports and every
 * attribute value of a known type; fixed observations against map when it is
 * not NULL. 0 or the first error, with offsets from the start of buf. Uses
 * about 40 KiB of stack: for the control plane, tests and tools. */
int tp_phd_check(const uint8_t *buf, size_t len, const struct tp_phd_value_map *map,
		 struct tp_phd_error *err);
/* The same with flags: TP_PHD_CHECK_UNDECLARED_OK passes fixed observations of
 * handles map does not declare (real agents report some: a 0x05DC scale's BMI),
 * which tp_phd_check() refuses as -TP_PHD_E_NO_CONFIG; their bytes stay unread. */
#define TP_PHD_CHECK_UNDECLARED_OK 1u
int tp_phd_check_flags(const uint8_t *buf, size_t len, const struct tp_phd_value_map *map,
		       unsigned int flags, struct tp_phd_error *err);

/* ---- names (mder_names.c) ---- */
const char *tp_phd_apdu_name(uint16_t type);	      /* "AARQ" */
const char *tp_phd_choice_name(uint16_t choice);      /* "roiv-cmip-confirmed-event-report" */
const char *tp_phd_assoc_result_name(uint16_t r);     /* "accepted-unknown-config" */
const char *tp_phd_release_reason_name(uint16_t r);   /* RLRQ reasons; RLRE has only normal */
const char *tp_phd_abort_reason_name(uint16_t r);     /* "response-timeout" */
const char *tp_phd_config_result_name(uint16_t r);    /* "accepted-config" */
const char *tp_phd_error_value_name(uint16_t e);      /* roer error-value */
const char *tp_phd_reject_problem_name(uint16_t p);   /* rorj problem */
const char *tp_phd_modify_operator_name(uint16_t op); /* "replace" */
const char *tp_phd_vkind_name(uint8_t kind);	      /* "SFLOAT" */

#endif
