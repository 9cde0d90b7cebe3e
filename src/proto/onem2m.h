/* SPDX-License-Identifier: BSD-3-Clause */
/* oneM2M over CoAP (TS-0008): create, retrieve and update requests and the JSON bodies
 * of AE, container, contentInstance. */
#ifndef TP_PROTO_ONEM2M_H
#define TP_PROTO_ONEM2M_H

#include <stddef.h>
#include <stdint.h>

#include "coap.h"

/*
 * Contract: as coap.h. Pure functions on caller buffers, no allocation, no
 * global state, any thread. Every function returns a length or a negative
 * enum tp_coap_err (the JSON builders use only TP_COAP_E_NOSPC and
 * TP_COAP_E_INVAL); output strings are NUL-terminated, the NUL not counted.
 *
 * Option numbers: TS-0008 V3.x/V4.x table 6.2.2.4.0-1. They agree with what
 * DESIGN.md lists (TY 267, RVI 271, FR 279, RQI 283) and with ACME (acmecse
 * 2026.5.3: helpers/CoAPthonTools.py registerOneM2MOptions(), and requests
 * sent to it in tests/integration/test_acme.py). Older implementations
 * (TS-0008 V1-era) number them from 256 (FR 256, RQI 257, ... TY 267); ACME
 * ignores the even (elective) ones and refuses a request carrying an odd
 * (critical) one such as RQI 257 at the CoAP layer, answering with a Reset.
 * All the options here are odd, so critical (RFC 7252 5.4.1): a server that
 * does not know them must reject the request, never silently drop them.
 *
 * Responses: ACME answers a CON request with a piggybacked ACK and a NON
 * request with a NON response (RFC 7252 5.2.3), both carrying RSC (307),
 * RQI, RVI, OT (259) and the created resource as JSON; a NON create with the
 * Uri-Query "rt=5" (TS-0004 responseType noResponse) is processed and not
 * answered. A POST without Uri-Path is dropped without an answer.
 *
 * Content-Format: application/json (50) is what we send and what ACME
 * answers with. TS-0008 table 6.2.2.2-1 also lists vnd.onem2m-res+json as
 * 10001 ("subject to change after IANA registration"); ACME reads 50, 10001,
 * 10003, 10007, 10009 and 10015 all as JSON.
 *
 * Target: a CoAP URI path, one Uri-Path option per segment (TS-0008 6.2.2.3).
 * A CSE-relative To "cse-in/PHD-x/spo2" is the path "/cse-in/PHD-x/spo2"; an
 * SP-relative To "/id-in/cse-in/..." is "/~/id-in/cse-in/..."; an absolute
 * To "//sp/id-in/..." is "/_/sp/id-in/...". ACME takes all three; "/~/cse-in"
 * (resource name where the CSE-ID belongs) is 4.04.
 */

/* TS-0008 table 6.2.2.4.0-1 */
enum tp_m2m_optnum {
	TP_M2M_OPT_OT = 259,	/* originating timestamp, string */
	TP_M2M_OPT_RTURI = 263, /* response type notification URI, string */
	TP_M2M_OPT_TY = 267,  /* resource type, uint; its presence makes a POST a CREATE (6.2.1) */
	TP_M2M_OPT_RVI = 271, /* release version indicator, string 1-2 */
	TP_M2M_OPT_ASRI = 275,
	TP_M2M_OPT_FR = 279,  /* From (originator), string 0-255 */
	TP_M2M_OPT_RQI = 283, /* request identifier, string 0-255 */
	TP_M2M_OPT_RQET = 291,
	TP_M2M_OPT_RSET = 295,
	TP_M2M_OPT_OET = 299,
	TP_M2M_OPT_EC = 303,
	TP_M2M_OPT_RSC = 307, /* response status code, uint */
	TP_M2M_OPT_GID = 311,
	TP_M2M_OPT_CTO = 319,
	TP_M2M_OPT_CTS = 323,
	TP_M2M_OPT_ATI = 327,
	TP_M2M_OPT_VSI = 331,
	TP_M2M_OPT_GTM = 335,
	TP_M2M_OPT_AUS = 339,
};

#define TP_M2M_OPT_STR_MAX 255	 /* FR, RQI (TS-0008 table 6.2.2.4.0-1) */
#define TP_M2M_CF_RES_JSON 10001 /* vnd.onem2m-res+json (TS-0008 table 6.2.2.2-1) */
#define TP_M2M_RVI_DEFAULT "3"	 /* release 3; ACME supports 2a, 3, 4, 5 */
#define TP_M2M_CIN_CNF_JSON                                                                        \
	"application/json:0" /* TS-0004 contentInfo: type, encoding 0 (none)                       \
			      */

/* Resource types (TS-0004 6.3.4.2.1) */
enum tp_m2m_ty {
	TP_M2M_TY_AE = 2,
	TP_M2M_TY_CNT = 3,
	TP_M2M_TY_CIN = 4,
	TP_M2M_TY_CSEBASE = 5,
};

/* Response status codes we act on (TS-0004 6.6.3) */
enum tp_m2m_rsc {
	TP_M2M_RSC_OK = 2000,
	TP_M2M_RSC_CREATED = 2001,
	TP_M2M_RSC_UPDATED = 2004,
	TP_M2M_RSC_BAD_REQUEST = 4000,
	TP_M2M_RSC_NOT_FOUND = 4004,
	TP_M2M_RSC_NO_PRIVILEGE = 4103,
	TP_M2M_RSC_CONFLICT = 4105, /* a resource with that name exists */
	TP_M2M_RSC_ALREADY_REGISTERED = 4117,
};

/* A CREATE request primitive bound to CoAP (TS-0008 6.2). */
struct tp_m2m_create {
	enum tp_coap_type type; /* TP_COAP_NON (data plane) or TP_COAP_CON (registrar) */
	uint16_t mid;
	const uint8_t *token; /* tkl bytes, may be NULL if tkl is 0 */
	uint8_t tkl;
	const char *path;    /* CoAP URI path of the parent, e.g. "/cse-in/PHD-x/spo2" */
	const char *query;   /* NULL, or Uri-Query arguments, e.g. "rt=5" (TS-0008 6.2.2.3) */
	uint16_t ty;	     /* enum tp_m2m_ty, required */
	const char *from;    /* originator, e.g. "C0011223344556677", required */
	const char *rqi;     /* request identifier, required */
	const char *rvi;     /* NULL: TP_M2M_RVI_DEFAULT */
	uint16_t cf;	     /* Content-Format; 0 means TP_COAP_CF_JSON */
	const void *payload; /* the resource representation (JSON) */
	size_t payload_len;
};

/* Encode a CoAP POST carrying r into buf: Uri-Path..., Content-Format (when
 * there is a payload), Uri-Query..., TY, RVI, FR, RQI, payload. Returns the length or a
 * negative enum tp_coap_err (TP_COAP_E_INVAL for a missing field, ty 0 or rvi "",
 * TP_COAP_E_OPT_TOO_LONG for FR or RQI over 255 bytes or RVI over 2). */
int tp_m2m_create_req(uint8_t *buf, size_t cap, const struct tp_m2m_create *r);
/* The same as a RETRIEVE (TS-0008 6.2.1: GET) of the resource at r->path: r->ty 0, no
 * payload (Uri-Path..., Uri-Query..., RVI, FR, RQI). */
int tp_m2m_retrieve_req(uint8_t *buf, size_t cap, const struct tp_m2m_create *r);
/* The same as an UPDATE (TS-0008 6.2.1: PUT) of the resource at r->path with the
 * attributes in r->payload: r->ty 0 (Uri-Path..., Content-Format, Uri-Query..., RVI, FR,
 * RQI, payload). */
int tp_m2m_update_req(uint8_t *buf, size_t cap, const struct tp_m2m_create *r);

/* The template of r's requests (TS-0008 6.2, as tp_m2m_create_req() encodes them
 * with a payload): every option but RQI, which goes with the payload per request.
 * r->rqi and r->payload are not read. 0 or a negative enum tp_coap_err. */
int tp_m2m_create_tmpl(struct tp_coap_tmpl *t, const struct tp_m2m_create *r);
/* Start a request from t (type, message id, token replaced) with its RQI; the caller
 * puts the payload (tp_coap_payload_reserve()) and ends with tp_coap_end(). The bytes
 * are those tp_m2m_create_req() makes of the same request. */
void tp_m2m_create_from_tmpl(struct tp_coap_writer *w, uint8_t *buf, size_t cap,
			     const struct tp_coap_tmpl *t, enum tp_coap_type type, uint16_t mid,
			     const uint8_t *token, const char *rqi, size_t rqi_len);

/* The oneM2M Response Status Code of a decoded response (its RSC option), or -1. */
int tp_m2m_rsc(const struct tp_coap_msg *m);

/* JSON-escape n bytes of s into dst (RFC 8259 7: quote, backslash, control
 * characters; other bytes, UTF-8 included, are copied). No quotes added. */
int tp_m2m_json_escape(char *dst, size_t cap, const char *s, size_t n);

/* A JSON number for mantissa * 10^exponent, exactly (as 11073 SFLOAT/FLOAT
 * values are): 975,-1 -> "97.5"; 12,2 -> "1200"; beyond 10^-20..10^9, "12e30". */
int tp_m2m_decimal(char *buf, size_t cap, int32_t mantissa, int8_t exponent);

/* {"m2m:ae":{"rn":"<rn>","api":"<api>","rr":false,"srv":["3"]}}; api starts with N or R. */
int tp_m2m_ae_json(char *buf, size_t cap, const char *rn, const char *api);
/* The same with labels (TS-0004 lbl: "manufacturer:ACME"), empty or NULL ones left
 * out: {"m2m:ae":{"rn":"<rn>","lbl":["a","b"],"api":...}}. */
int tp_m2m_ae_json_lbl(char *buf, size_t cap, const char *rn, const char *api,
		       const char *const *lbl, size_t nlbl);

/* An UPDATE body setting a resource's expirationTime (TS-0004 6.3.5.38 timestamp,
 * "20260101T120000"): {"<m2m:type>":{"et":"<et>"}}, or with et NULL {"...":{"et":null}},
 * which asks the hosting CSE for its own (default) lifetime (TS-0001 9.6.1.3.2). type:
 * "m2m:ae", "m2m:cnt". */
int tp_m2m_et_json(char *buf, size_t cap, const char *type, const char *et);

/* {"m2m:cnt":{"rn":"<rn>"}}, with ,"mni":<mni> when mni > 0 (keep only the latest mni). */
int tp_m2m_cnt_json(char *buf, size_t cap, const char *rn, uint32_t mni);

/* {"m2m:cin":{"cnf":"<cnf>","con":"<con, escaped>"}}; cnf NULL leaves it out. */
int tp_m2m_cin_json(char *buf, size_t cap, const char *cnf, const char *con);

/* One measurement as the content of a contentInstance. */
struct tp_m2m_measure {
	const char *value; /* a JSON number (tp_m2m_decimal()), or NULL for null (NaN, NRes, INF) */
	const char *unit;  /* e.g. "%", "bpm"; NULL: left out */
	const char *time;  /* e.g. "20260101T120000"; NULL: left out */
};

/* {"m2m:cin":{"cnf":"application/json:0","con":"{\"value\":97.5,\"unit\":\"%\",\"time\":\"...\"}"}}
 * TP_COAP_E_INVAL if value is not made of JSON number characters. */
int tp_m2m_cin_measure_json(char *buf, size_t cap, const struct tp_m2m_measure *m);

/* The same bytes as tp_m2m_cin_measure_json() (tests/unit/test_coap.c compares them),
 * written in one pass when unit and time need no escape (the general builder
 * otherwise), with no NUL: for a payload written in place. The length, or
 * TP_COAP_E_NOSPC / TP_COAP_E_INVAL as tp_m2m_cin_measure_json(). */
int tp_m2m_cin_measure_put(char *dst, size_t cap, const struct tp_m2m_measure *m);

#define TP_M2M_TIME_SIZE 16 /* "20260101T120000" and its NUL */
/* UTC seconds since 1970 as oneM2M's basic ISO 8601 time, "20260101T120000". */
void tp_m2m_time_from_epoch(uint64_t s, char out[TP_M2M_TIME_SIZE]);

#define TP_M2M_SYSID_LEN 8				 /* IEEE 11073-20601 System-Id: an EUI-64 */
#define TP_M2M_AE_RN_SIZE (4 + 2 * TP_M2M_SYSID_LEN + 1) /* "PHD-" + hex + NUL */
#define TP_M2M_ORIGIN_SIZE (1 + 2 * TP_M2M_SYSID_LEN + 1) /* "C" + hex + NUL */

/* "PHD-0011223344556677": the AE resource name of a device (upper-case hex). */
void tp_m2m_phd_ae_name(const uint8_t sysid[TP_M2M_SYSID_LEN], char out[TP_M2M_AE_RN_SIZE]);
/* "C0011223344556677": the originator of a device's requests (DESIGN.md). */
void tp_m2m_phd_originator(const uint8_t sysid[TP_M2M_SYSID_LEN], char out[TP_M2M_ORIGIN_SIZE]);

#endif
