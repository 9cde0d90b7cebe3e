/* SPDX-License-Identifier: BSD-3-Clause */
/* CoAP and oneM2M codecs: RFC 7252 byte vectors, extended option forms, round trips, bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../src/nf/iotgw/iotgw.h"
#include "../../src/nf/iotgw/control/control.h"
#include "../../src/proto/coap.h"
#include "../../src/proto/mder.h"
#include "../../src/proto/onem2m.h"
#include "eal_fixture.h"

/* Bytes placed right before a PROT_NONE page: reading or writing one byte past
 * the end faults, so "never touches past the buffer" is tested without a sanitizer. */
struct guarded {
	uint8_t *map;
	size_t page;
};

static uint8_t *guard_place(struct guarded *g, const void *data, size_t len)
{
	uint8_t *p = g->map + g->page - len;
	if (len > 0 && data != NULL)
		memcpy(p, data, len);
	return p;
}

static int setup(void **state)
{
	static struct guarded g;
	g.page = (size_t)sysconf(_SC_PAGESIZE);
	g.map = mmap(NULL, 2 * g.page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g.map == MAP_FAILED)
		return -1;
	if (mprotect(g.map + g.page, g.page, PROT_NONE) != 0)
		return -1;
	*state = &g;
	return 0;
}

static int teardown(void **state)
{
	struct guarded *g = *state;
	munmap(g->map, 2 * g->page);
	return 0;
}

#define ASSERT_BYTES(got, got_len, exp)                                                            \
	do {                                                                                       \
		assert_int_equal((got_len), sizeof(exp));                                          \
		assert_memory_equal((got), (exp), sizeof(exp));                                    \
	} while (0)

/* RFC 7252 appendix A, figure 16: CON GET /temperature, MID 0x7d34, no token,
 * and its piggybacked ACK 2.05 "22.3 C". */
static void test_rfc7252_figure16(void **state)
{
	static const uint8_t req[] = {0x40, 0x01, 0x7d, 0x34, 0xbb, 't', 'e', 'm',
				      'p',  'e',  'r',	'a',  't',  'u', 'r', 'e'};
	static const uint8_t rsp[] = {0x60, 0x45, 0x7d, 0x34, 0xff, '2', '2', '.', '3', ' ', 'C'};
	struct tp_coap_writer w;
	struct tp_coap_msg m;
	uint8_t buf[64];

	tp_coap_begin(&w, buf, sizeof(buf), TP_COAP_CON, TP_COAP_GET, 0x7d34, NULL, 0);
	tp_coap_put_uri_path(&w, "/temperature");
	ASSERT_BYTES(buf, tp_coap_end(&w), req);

	assert_int_equal(tp_coap_decode(rsp, sizeof(rsp), &m), 0);
	assert_int_equal(m.type, TP_COAP_ACK);
	assert_int_equal(m.code, TP_COAP_CONTENT);
	assert_int_equal(TP_COAP_CODE_CLASS(m.code), 2);
	assert_int_equal(TP_COAP_CODE_DETAIL(m.code), 5);
	assert_int_equal(m.mid, 0x7d34);
	assert_int_equal(m.tkl, 0);
	assert_int_equal(m.n_opts, 0);
	assert_int_equal(m.payload_len, 6);
	assert_memory_equal(m.payload, "22.3 C", 6);
}

/* RFC 7252 appendix A, figure 17 style: a token (0x20) and a Uri-Path; response 2.05
 * with the token echoed and a Content-Format; encode and decode agree byte for byte. */
static void test_rfc7252_token(void **state)
{
	static const uint8_t req[] = {0x41, 0x01, 0x7d, 0x35, 0x20, 0xbb, 't', 'e', 'm',
				      'p',  'e',  'r',	'a',  't',  'u',  'r', 'e'};
	static const uint8_t rsp[] = {0x61, 0x45, 0x7d, 0x35, 0x20, 0xc0, 0xff, '2', '2', ' ', 'C'};
	const uint8_t tok = 0x20;
	struct tp_coap_writer w;
	struct tp_coap_msg m;
	uint8_t buf[64];
	uint32_t v;

	tp_coap_begin(&w, buf, sizeof(buf), TP_COAP_CON, TP_COAP_GET, 0x7d35, &tok, 1);
	tp_coap_put_uri_path(&w, "temperature");
	ASSERT_BYTES(buf, tp_coap_end(&w), req);

	assert_int_equal(tp_coap_decode(req, sizeof(req), &m), 0);
	assert_int_equal(m.n_opts, 1);
	assert_int_equal(m.opts[0].num, TP_COAP_OPT_URI_PATH);
	assert_int_equal(m.opts[0].len, 11);
	assert_ptr_equal(m.opts[0].val, req + 6); /* points into the buffer */
	assert_null(m.payload);

	assert_int_equal(tp_coap_decode(rsp, sizeof(rsp), &m), 0);
	assert_int_equal(m.tkl, 1);
	assert_int_equal(m.token[0], 0x20);
	assert_int_equal(m.n_opts, 1);
	assert_int_equal(m.opts[0].num, TP_COAP_OPT_CONTENT_FORMAT);
	/* Content-Format text/plain (0) is the empty uint (RFC 7252 3.2) */
	assert_int_equal(tp_coap_opt_uint(&m.opts[0], &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(tp_coap_encode(buf, sizeof(buf), &m), sizeof(rsp));
	assert_memory_equal(buf, rsp, sizeof(rsp));
}

/* One option of number num and length len as the first option: its header bytes. */
static int one_opt(uint8_t *buf, size_t cap, uint16_t num, size_t len)
{
	static uint8_t val[400];
	struct tp_coap_writer w;

	memset(val, 'v', sizeof(val));
	tp_coap_begin(&w, buf, cap, TP_COAP_CON, TP_COAP_GET, 0, NULL, 0);
	tp_coap_put_opt(&w, num, val, len);
	return tp_coap_end(&w);
}

static void test_option_extended_forms(void **state)
{
	uint8_t buf[512];
	struct tp_coap_msg m;
	struct {
		uint16_t num;
		size_t len;
		uint8_t hdr[5];
		size_t hdr_len;
	} cases[] = {
	    /* RFC 7252 3.1: 0-12 in the nibble, 13 + 1 byte (13-268), 14 + 2 bytes (269-) */
	    {12, 0, {0xc0}, 1},
	    {13, 0, {0xd0, 0x00}, 2},
	    {267, 1, {0xd1, 0xfe}, 2},	     /* oneM2M-TY first: 13 form, 267 - 13 = 254 */
	    {268, 0, {0xd0, 0xff}, 2},	     /* the largest 13 form */
	    {269, 0, {0xe0, 0x00, 0x00}, 3}, /* the smallest 14 form */
	    {271, 1, {0xe1, 0x00, 0x02}, 3}, /* oneM2M-RVI first */
	    {279, 2, {0xe2, 0x00, 0x0a}, 3}, /* oneM2M-FR first */
	    {283, 2, {0xe2, 0x00, 0x0e}, 3}, /* oneM2M-RQI first */
	    {65535, 0, {0xe0, 0xfe, 0xf2}, 3},
	    {1, 12, {0x1c}, 1},
	    {1, 13, {0x1d, 0x00}, 2},
	    {1, 268, {0x1d, 0xff}, 2},
	    {1, 269, {0x1e, 0x00, 0x00}, 3},
	    {1, 300, {0x1e, 0x00, 0x1f}, 3},
	    {300, 300, {0xee, 0x00, 0x1f, 0x00, 0x1f}, 5}, /* delta bytes before length bytes */
	    {20, 14, {0xdd, 0x07, 0x01}, 3},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int n = one_opt(buf, sizeof(buf), cases[i].num, cases[i].len);
		assert_int_equal(n, 4 + cases[i].hdr_len + cases[i].len);
		assert_memory_equal(buf + 4, cases[i].hdr, cases[i].hdr_len);
		assert_int_equal(tp_coap_decode(buf, (size_t)n, &m), 0);
		assert_int_equal(m.n_opts, 1);
		assert_int_equal(m.opts[0].num, cases[i].num);
		assert_int_equal(m.opts[0].len, cases[i].len);
		assert_ptr_equal(m.opts[0].val, buf + 4 + cases[i].hdr_len);
	}
}

/* The deltas between the oneM2M options: 12 -> 267 is 255 (13 form), 267 -> 271 -> 279 -> 283
 * fit the nibble; with no Content-Format, 11 -> 267 is 256 (still 13 form). */
static void test_onem2m_create_bytes(void **state)
{
	static const uint8_t exp[] = {
	    0x51, 0x02, 0x12, 0x34, 0xab,	    /* NON POST, MID 0x1234, token ab */
	    0xb6, 'c',	's',  'e',  '-',  'i', 'n', /* Uri-Path (11) */
	    0x05, 'P',	'H',  'D',  '-',  '1',	    /* Uri-Path */
	    0x04, 's',	'p',  'o',  '2',	    /* Uri-Path */
	    0x11, 50,				    /* Content-Format (12): application/json */
	    0xd1, 0xf2, 0x04,			    /* TY (267): delta 255 = 13 + 242; cin */
	    0x41, '3',				    /* RVI (271) */
	    0x82, 'C',	'x',			    /* FR (279) */
	    0x42, 'r',	'1',			    /* RQI (283) */
	    0xff, '{',	'}',
	};
	static const uint8_t exp_nopayload[] = {
	    0x40, 0x02, 0x00, 0x07, 0xb6, 'c',	's', 'e',
	    '-',  'i',	'n',  0xd1, 0xf3, 0x02, /* TY (267) after Uri-Path (11): delta 256 = 13 +
						   243 */
	    0x41, '3',	0x82, 'C',  'x',  0x42, 'r', '2',
	};
	const uint8_t tok = 0xab;
	struct tp_m2m_create r = {
	    .type = TP_COAP_NON,
	    .mid = 0x1234,
	    .token = &tok,
	    .tkl = 1,
	    .path = "/cse-in/PHD-1/spo2",
	    .ty = TP_M2M_TY_CIN,
	    .from = "Cx",
	    .rqi = "r1",
	    .payload = "{}",
	    .payload_len = 2,
	};
	uint8_t buf[128];
	struct tp_coap_msg m;
	char s[16];

	ASSERT_BYTES(buf, tp_m2m_create_req(buf, sizeof(buf), &r), exp);
	assert_int_equal(tp_coap_decode(buf, sizeof(exp), &m), 0);
	assert_int_equal(m.n_opts, 8);
	assert_int_equal(tp_coap_opt_str(tp_coap_find_opt(&m, TP_M2M_OPT_FR, 0), s, sizeof(s)), 2);
	assert_string_equal(s, "Cx");
	const struct tp_coap_opt *p = tp_coap_find_opt(&m, TP_COAP_OPT_URI_PATH, 0);
	assert_non_null(p);
	p = tp_coap_find_opt(&m, TP_COAP_OPT_URI_PATH, tp_coap_opt_index(&m, p) + 1);
	assert_int_equal(tp_coap_opt_str(p, s, sizeof(s)), 5);
	assert_string_equal(s, "PHD-1");

	/* CON, no token, no payload: no Content-Format either */
	r.type = TP_COAP_CON;
	r.mid = 7;
	r.tkl = 0;
	r.token = NULL;
	r.path = "cse-in";
	r.ty = TP_M2M_TY_AE;
	r.rqi = "r2";
	r.payload = NULL;
	r.payload_len = 0;
	ASSERT_BYTES(buf, tp_m2m_create_req(buf, sizeof(buf), &r), exp_nopayload);

	/* SP-relative target (TS-0008 6.2.2.3): "~" is an ordinary first segment */
	r.path = "/~/id-in/cse-in";
	int n = tp_m2m_create_req(buf, sizeof(buf), &r);
	assert_true(n > 0);
	assert_int_equal(tp_coap_decode(buf, (size_t)n, &m), 0);
	assert_int_equal(m.opts[0].len, 1);
	assert_int_equal(m.opts[0].val[0], '~');

	/* Uri-Query (15) sits between Content-Format (12) and TY (267): 15 -> 267 is
	 * 252 = 13 + 239 */
	static const uint8_t exp_query[] = {
	    0x40, 0x02, 0x00, 0x07, 0xb6, 'c',	's', 'e', '-',	'i', 'n',
	    0x11, 50,			 /* Content-Format (12) */
	    0x34, 'r',	't',  '=',  '5', /* Uri-Query (15) */
	    0x03, 'a',	'=',  'b',	 /* Uri-Query */
	    0xd1, 0xef, 0x02,		 /* TY (267) */
	    0x41, '3',	0x82, 'C',  'x',  0x42, 'r', '2', 0xff, '{', '}',
	};
	r.path = "cse-in";
	r.query = "?rt=5&a=b";
	r.payload = "{}";
	r.payload_len = 2;
	ASSERT_BYTES(buf, tp_m2m_create_req(buf, sizeof(buf), &r), exp_query);
	r.query = "rt=5&";
	assert_int_equal(tp_m2m_create_req(buf, sizeof(buf), &r), -TP_COAP_E_PATH);
	r.query = NULL;
	r.rvi = "";
	assert_int_equal(tp_m2m_create_req(buf, sizeof(buf), &r), -TP_COAP_E_INVAL);
	r.rvi = NULL;

	/* a 10001 (vnd.onem2m-res+json) Content-Format takes two bytes */
	r.path = "cse-in";
	r.payload = "{}";
	r.payload_len = 2;
	r.cf = TP_M2M_CF_RES_JSON;
	n = tp_m2m_create_req(buf, sizeof(buf), &r);
	assert_int_equal(tp_coap_decode(buf, (size_t)n, &m), 0);
	uint32_t cf;
	assert_int_equal(tp_coap_opt_uint(tp_coap_find_opt(&m, TP_COAP_OPT_CONTENT_FORMAT, 0), &cf),
			 0);
	assert_int_equal(cf, 10001);
	assert_int_equal(tp_coap_find_opt(&m, TP_COAP_OPT_CONTENT_FORMAT, 0)->len, 2);
}

static void test_onem2m_create_errors(void **state)
{
	char longs[300];
	uint8_t buf[600];
	struct tp_m2m_create r = {
	    .type = TP_COAP_CON,
	    .path = "/cse-in",
	    .ty = 2,
	    .from = "C1",
	    .rqi = "r",
	};

	memset(longs, 'x', sizeof(longs) - 1);
	longs[sizeof(longs) - 1] = '\0';
	assert_true(tp_m2m_create_req(buf, sizeof(buf), &r) > 0);
	r.ty = 0;
	assert_int_equal(tp_m2m_create_req(buf, sizeof(buf), &r), -TP_COAP_E_INVAL);
	r.ty = 2;
	r.from = NULL;
	assert_int_equal(tp_m2m_create_req(buf, sizeof(buf), &r), -TP_COAP_E_INVAL);
	r.from = longs;
	assert_int_equal(tp_m2m_create_req(buf, sizeof(buf), &r), -TP_COAP_E_OPT_TOO_LONG);
	r.from = "C1";
	r.rvi = "333";
	assert_int_equal(tp_m2m_create_req(buf, sizeof(buf), &r), -TP_COAP_E_OPT_TOO_LONG);
	r.rvi = NULL;
	r.path = "/cse-in//x";
	assert_int_equal(tp_m2m_create_req(buf, sizeof(buf), &r), -TP_COAP_E_PATH);
	r.path = "/cse-in";
	r.tkl = 9;
	r.token = (const uint8_t *)longs;
	assert_int_equal(tp_m2m_create_req(buf, sizeof(buf), &r), -TP_COAP_E_TKL);
	r.tkl = 0;
	r.type = (enum tp_coap_type)4;
	assert_int_equal(tp_m2m_create_req(buf, sizeof(buf), &r), -TP_COAP_E_INVAL);
	r.type = TP_COAP_NON;
	r.payload = NULL;
	r.payload_len = 3;
	assert_int_equal(tp_m2m_create_req(buf, sizeof(buf), &r), -TP_COAP_E_INVAL);
}

/* A RETRIEVE (TS-0008 6.2.1: GET) has no resource type and no payload: the method
 * code 0.01, the path, RVI, FR and RQI, no TY option; a resource type is refused. */
static void test_retrieve_request(void **state)
{
	uint8_t buf[256];
	const uint8_t tok[2] = {7, 9};
	struct tp_m2m_create r = {
	    .type = TP_COAP_CON,
	    .mid = 0x1234,
	    .token = tok,
	    .tkl = 2,
	    .path = "/cse-in/PHD-1",
	    .from = "C1",
	    .rqi = "reg-1-v",
	};
	struct tp_coap_msg m;

	(void)state;
	int n = tp_m2m_retrieve_req(buf, sizeof(buf), &r);
	assert_true(n > 0);
	assert_int_equal(tp_coap_decode(buf, (size_t)n, &m), 0);
	assert_int_equal(m.code, TP_COAP_GET);
	assert_int_equal(m.mid, 0x1234);
	assert_null(tp_coap_find_opt(&m, TP_M2M_OPT_TY, 0));
	assert_non_null(tp_coap_find_opt(&m, TP_M2M_OPT_FR, 0));
	assert_non_null(tp_coap_find_opt(&m, TP_M2M_OPT_RQI, 0));
	assert_int_equal(m.payload_len, 0);
	r.ty = 2;
	assert_int_equal(tp_m2m_retrieve_req(buf, sizeof(buf), &r), -TP_COAP_E_INVAL);
}

/* Every capacity below the needed one fails with NOSPC and writes nothing past it. */
static void test_encode_nospc(void **state)
{
	struct guarded *g = *state;
	uint8_t ref[256];
	const uint8_t tok[4] = {1, 2, 3, 4};
	struct tp_m2m_create r = {
	    .type = TP_COAP_NON,
	    .mid = 1,
	    .token = tok,
	    .tkl = 4,
	    .path = "/cse-in/PHD-0011223344556677/spo2",
	    .ty = 4,
	    .from = "C0011223344556677",
	    .rqi = "0011223344556677-42",
	    .payload = "{\"m2m:cin\":{\"con\":\"x\"}}",
	    .payload_len = 23,
	};
	int need = tp_m2m_create_req(ref, sizeof(ref), &r);

	assert_true(need > 0);
	for (int cap = 0; cap < need; cap++) {
		uint8_t *p = guard_place(g, NULL, (size_t)cap);
		assert_int_equal(tp_m2m_create_req(p, (size_t)cap, &r), -TP_COAP_E_NOSPC);
	}
	uint8_t *p = guard_place(g, NULL, (size_t)need);
	assert_int_equal(tp_m2m_create_req(p, (size_t)need, &r), need);
	assert_memory_equal(p, ref, (size_t)need);
}

static void test_encode_errors(void **state)
{
	struct tp_coap_writer w;
	uint8_t buf[512];
	char seg[300];

	tp_coap_begin(&w, buf, sizeof(buf), TP_COAP_CON, TP_COAP_GET, 0, NULL, 0);
	tp_coap_put_uint(&w, 12, 50);
	tp_coap_put_uint(&w, 11, 1); /* below 12 */
	tp_coap_put_uint(&w, 14, 1); /* ignored: the first error sticks */
	assert_int_equal(tp_coap_end(&w), -TP_COAP_E_OPT_ORDER);

	tp_coap_begin(&w, buf, sizeof(buf), TP_COAP_CON, TP_COAP_GET, 0, NULL, 0);
	tp_coap_put_payload(&w, "x", 1);
	tp_coap_put_uint(&w, 12, 0);
	assert_int_equal(tp_coap_end(&w), -TP_COAP_E_AFTER_PAYLOAD);

	tp_coap_begin(&w, buf, sizeof(buf), TP_COAP_CON, TP_COAP_GET, 0, NULL, 0);
	tp_coap_put_opt(&w, 0, "x", 1);
	assert_int_equal(tp_coap_end(&w), -TP_COAP_E_INVAL);

	tp_coap_begin(&w, buf, sizeof(buf), TP_COAP_CON, TP_COAP_GET, 0, buf, 9);
	assert_int_equal(tp_coap_end(&w), -TP_COAP_E_TKL);

	tp_coap_begin(&w, NULL, 10, TP_COAP_CON, TP_COAP_GET, 0, NULL, 0);
	assert_int_equal(tp_coap_end(&w), -TP_COAP_E_INVAL);

	static const char *bad_paths[] = {"a//b", "a/", "//a", "/a/b/"};
	for (size_t i = 0; i < sizeof(bad_paths) / sizeof(bad_paths[0]); i++) {
		tp_coap_begin(&w, buf, sizeof(buf), TP_COAP_CON, TP_COAP_GET, 0, NULL, 0);
		tp_coap_put_uri_path(&w, bad_paths[i]);
		assert_int_equal(tp_coap_end(&w), -TP_COAP_E_PATH);
	}
	memset(seg, 'a', sizeof(seg));
	seg[256] = '\0';
	tp_coap_begin(&w, buf, sizeof(buf), TP_COAP_CON, TP_COAP_GET, 0, NULL, 0);
	tp_coap_put_uri_path(&w, seg);
	assert_int_equal(tp_coap_end(&w), -TP_COAP_E_PATH);
	seg[255] = '\0';
	tp_coap_begin(&w, buf, sizeof(buf), TP_COAP_CON, TP_COAP_GET, 0, NULL, 0);
	tp_coap_put_uri_path(&w, seg);
	assert_int_equal(tp_coap_end(&w), 4 + 2 + 255);

	/* "" and "/" add no option (RFC 7252 6.4 step 8) */
	tp_coap_begin(&w, buf, sizeof(buf), TP_COAP_CON, TP_COAP_GET, 0, NULL, 0);
	tp_coap_put_uri_path(&w, "/");
	tp_coap_put_uri_path(&w, "");
	assert_int_equal(tp_coap_end(&w), 4);

	/* an empty payload adds no marker */
	tp_coap_begin(&w, buf, sizeof(buf), TP_COAP_NON, TP_COAP_POST, 0, NULL, 0);
	tp_coap_put_payload(&w, NULL, 0);
	assert_int_equal(tp_coap_end(&w), 4);
}

static void test_uint_options(void **state)
{
	static const struct {
		uint32_t v;
		uint8_t len;
		uint8_t bytes[4];
	} cases[] = {
	    {0, 0, {0}},
	    {1, 1, {1}},
	    {255, 1, {0xff}},
	    {256, 2, {1, 0}},
	    {2001, 2, {0x07, 0xd1}},
	    {10001, 2, {0x27, 0x11}},
	    {0x10000, 3, {1, 0, 0}},
	    {0x01000000, 4, {1, 0, 0, 0}},
	    {UINT32_MAX, 4, {0xff, 0xff, 0xff, 0xff}},
	};
	struct tp_coap_writer w;
	struct tp_coap_msg m;
	uint8_t buf[32];
	uint32_t v;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tp_coap_begin(&w, buf, sizeof(buf), TP_COAP_CON, TP_COAP_GET, 0, NULL, 0);
		tp_coap_put_uint(&w, TP_COAP_OPT_ACCEPT, cases[i].v);
		assert_int_equal(tp_coap_end(&w), 4 + 2 + cases[i].len);
		assert_int_equal(buf[4], 0xd0 | cases[i].len); /* 17 = 13 + 4 */
		assert_int_equal(buf[5], 4);
		assert_memory_equal(buf + 6, cases[i].bytes, cases[i].len);
		assert_int_equal(tp_coap_decode(buf, (size_t)tp_coap_end(&w), &m), 0);
		assert_int_equal(tp_coap_opt_uint(&m.opts[0], &v), 0);
		assert_int_equal(v, cases[i].v);
	}
	struct tp_coap_opt five = {.val = (const uint8_t *)"12345", .num = 14, .len = 5};
	assert_int_equal(tp_coap_opt_uint(&five, &v), -TP_COAP_E_OPT_TOO_LONG);
	char s[5];
	assert_int_equal(tp_coap_opt_str(&five, s, sizeof(s)), -TP_COAP_E_NOSPC);
	assert_int_equal(tp_coap_opt_str(&five, s, 0), -TP_COAP_E_NOSPC);
}

static void assert_msg_equal(const struct tp_coap_msg *a, const struct tp_coap_msg *b)
{
	assert_int_equal(a->type, b->type);
	assert_int_equal(a->code, b->code);
	assert_int_equal(a->mid, b->mid);
	assert_int_equal(a->tkl, b->tkl);
	assert_memory_equal(a->token, b->token, a->tkl);
	assert_int_equal(a->n_opts, b->n_opts);
	for (unsigned int i = 0; i < a->n_opts; i++) {
		assert_int_equal(a->opts[i].num, b->opts[i].num);
		assert_int_equal(a->opts[i].len, b->opts[i].len);
		assert_memory_equal(a->opts[i].val, b->opts[i].val, a->opts[i].len);
	}
	assert_int_equal(a->payload_len, b->payload_len);
	if (a->payload_len > 0)
		assert_memory_equal(a->payload, b->payload, a->payload_len);
}

/* A random valid request: options given out of order (the encoder sorts them). */
static void random_msg(struct tp_coap_msg *m, uint8_t *store, unsigned int seed)
{
	static const uint16_t nums[] = {1,   3,	  11,  11,  12,	 13,  14,  15,	 60,   255,
					267, 268, 269, 271, 279, 283, 307, 1000, 2000, 65535};
	srand(seed);
	m->type = (uint8_t)(rand() % 2); /* CON or NON: never Empty */
	m->code = (uint8_t)(1 + rand() % 200);
	m->mid = (uint16_t)rand();
	m->tkl = (uint8_t)(rand() % 9);
	for (int i = 0; i < m->tkl; i++)
		m->token[i] = (uint8_t)rand();
	m->n_opts = (uint16_t)(rand() % (TP_COAP_MAX_OPTS + 1));
	for (unsigned int i = 0; i < m->n_opts; i++) {
		uint32_t len = (uint32_t)(rand() % 8 == 0 ? rand() % 600 : rand() % 14);
		m->opts[i].num = nums[rand() % (int)(sizeof(nums) / sizeof(nums[0]))];
		m->opts[i].len = len;
		m->opts[i].val = store;
		for (uint32_t k = 0; k < len; k++)
			store[k] = (uint8_t)rand();
		store += len;
	}
	m->payload_len = (size_t)(rand() % 3 == 0 ? 0 : 1 + rand() % 300);
	m->payload = m->payload_len ? store : NULL;
	for (size_t k = 0; k < m->payload_len; k++)
		store[k] = (uint8_t)rand();
}

static void test_round_trip_random(void **state)
{
	static uint8_t store[TP_COAP_MAX_OPTS * 600 + 300];
	static uint8_t buf[32768], buf2[32768];
	struct tp_coap_msg in, out, sorted;

	for (unsigned int seed = 1; seed <= 3000; seed++) {
		random_msg(&in, store, seed);
		int n = tp_coap_encode(buf, sizeof(buf), &in);
		assert_true(n > 0);
		assert_int_equal(tp_coap_decode(buf, (size_t)n, &out), 0);
		/* the decoded options come sorted, equal numbers in their given order */
		sorted = in;
		for (unsigned int i = 1; i < sorted.n_opts; i++)
			for (unsigned int j = i;
			     j > 0 && sorted.opts[j - 1].num > sorted.opts[j].num; j--) {
				struct tp_coap_opt t = sorted.opts[j];
				sorted.opts[j] = sorted.opts[j - 1];
				sorted.opts[j - 1] = t;
			}
		assert_msg_equal(&sorted, &out);
		/* re-encoding the decoded message gives the same bytes */
		assert_int_equal(tp_coap_encode(buf2, sizeof(buf2), &out), n);
		assert_memory_equal(buf, buf2, (size_t)n);
	}
}

static void test_decode_errors(void **state)
{
	struct tp_coap_msg m;
	static const struct {
		uint8_t b[16];
		size_t len;
		int err;
	} cases[] = {
	    {{0x40, 0x01, 0x00}, 3, -TP_COAP_E_SHORT},
	    {{0x00, 0x01, 0x00, 0x01}, 4, -TP_COAP_E_VERSION},
	    {{0x80, 0x01, 0x00, 0x01}, 4, -TP_COAP_E_VERSION},
	    {{0xc0, 0x01, 0x00, 0x01}, 4, -TP_COAP_E_VERSION},
	    {{0x49, 0x01, 0x00, 0x01, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 13, -TP_COAP_E_TKL},
	    {{0x4f, 0x01, 0x00, 0x01}, 4, -TP_COAP_E_TKL},
	    {{0x42, 0x01, 0x00, 0x01, 0xaa}, 5, -TP_COAP_E_TOKEN_TRUNC},
	    {{0x40, 0x01, 0x00, 0x01, 0xf0}, 5, -TP_COAP_E_OPT_DELTA15},
	    {{0x40, 0x01, 0x00, 0x01, 0x1f}, 5, -TP_COAP_E_OPT_LEN15},
	    {{0x40, 0x01, 0x00, 0x01, 0xd0}, 5, -TP_COAP_E_OPT_EXT_TRUNC},
	    {{0x40, 0x01, 0x00, 0x01, 0xe0, 0x00}, 6, -TP_COAP_E_OPT_EXT_TRUNC},
	    {{0x40, 0x01, 0x00, 0x01, 0x1d}, 5, -TP_COAP_E_OPT_EXT_TRUNC},
	    {{0x40, 0x01, 0x00, 0x01, 0xde, 0x00, 0x00}, 7, -TP_COAP_E_OPT_EXT_TRUNC},
	    {{0x40, 0x01, 0x00, 0x01, 0x13, 'a', 'b'}, 7, -TP_COAP_E_OPT_VALUE_TRUNC},
	    {{0x40, 0x01, 0x00, 0x01, 0x1d, 0x00, 'a'}, 7, -TP_COAP_E_OPT_VALUE_TRUNC},
	    /* 65535 then +1: past the 16-bit option number space */
	    {{0x40, 0x01, 0x00, 0x01, 0xe0, 0xfe, 0xf2, 0x10}, 8, -TP_COAP_E_OPT_NUM_RANGE},
	    {{0x40, 0x01, 0x00, 0x01, 0xff}, 5, -TP_COAP_E_EMPTY_PAYLOAD},
	    {{0x41, 0x00, 0x00, 0x01, 0xaa}, 5, -TP_COAP_E_EMPTY_NOT_EMPTY},
	    {{0x40, 0x00, 0x00, 0x01, 0xff, 'x'}, 6, -TP_COAP_E_EMPTY_NOT_EMPTY},
	    {{0x50, 0x00, 0x00, 0x01}, 4, -TP_COAP_E_NON_EMPTY},
	    {{0x70, 0x45, 0x00, 0x01}, 4, -TP_COAP_E_RST_NOT_EMPTY},
	    /* valid: CoAP ping (CON Empty), Empty ACK, RST */
	    {{0x40, 0x00, 0x12, 0x34}, 4, 0},
	    {{0x60, 0x00, 0x12, 0x34}, 4, 0},
	    {{0x70, 0x00, 0x12, 0x34}, 4, 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(tp_coap_decode(cases[i].b, cases[i].len, &m), cases[i].err);
		assert_string_not_equal(tp_coap_strerror(cases[i].err), "unknown");
	}
	assert_int_equal(tp_coap_decode(NULL, 4, &m), -TP_COAP_E_INVAL);

	/* one option more than we keep */
	uint8_t many[4 + TP_COAP_MAX_OPTS + 1] = {0x40, 0x01, 0, 1};
	memset(many + 4, 0x10, TP_COAP_MAX_OPTS + 1); /* option 1, then 1 + 0 ... */
	assert_int_equal(tp_coap_decode(many, sizeof(many) - 1, &m), 0);
	assert_int_equal(m.n_opts, TP_COAP_MAX_OPTS);
	assert_int_equal(tp_coap_decode(many, sizeof(many), &m), -TP_COAP_E_TOO_MANY_OPTS);

	for (int e = 0; e < TP_COAP_E__COUNT; e++)
		assert_string_not_equal(tp_coap_strerror(-e), "unknown");
	assert_string_equal(tp_coap_strerror(-TP_COAP_E__COUNT), "unknown");
}

/* A message exercising every field form; cut at every length, it decodes cleanly:
 * an error, or a shorter valid message whose parts all lie inside the cut. */
static void test_truncation(void **state)
{
	struct guarded *g = *state;
	uint8_t full[1024];
	struct tp_coap_writer w;
	struct tp_coap_msg m;
	char big[400];
	const uint8_t tok[8] = {1, 2, 3, 4, 5, 6, 7, 8};

	memset(big, 'b', sizeof(big));
	tp_coap_begin(&w, full, sizeof(full), TP_COAP_CON, TP_COAP_POST, 0xbeef, tok, 8);
	tp_coap_put_uri_path(&w, "/cse-in/PHD-0011223344556677/spo2");
	tp_coap_put_uint(&w, TP_COAP_OPT_CONTENT_FORMAT, 50);
	tp_coap_put_opt(&w, 20, big, 14);	/* 13-form delta and length */
	tp_coap_put_opt(&w, 60, big, 300);	/* 14-form length */
	tp_coap_put_uint(&w, TP_M2M_OPT_TY, 4); /* 14-form delta */
	tp_coap_put_str(&w, TP_M2M_OPT_RQI, "r-1");
	tp_coap_put_opt(&w, 2000, big, 269); /* 14-form both */
	tp_coap_put_payload(&w, "{\"m2m:cin\":{}}", 14);
	int n = tp_coap_end(&w);
	assert_true(n > 0);

	for (int cut = 0; cut <= n; cut++) {
		const uint8_t *p = guard_place(g, full, (size_t)cut);
		int rc = tp_coap_decode(p, (size_t)cut, &m);
		if (cut < 4)
			assert_int_equal(rc, -TP_COAP_E_SHORT);
		else if (cut < 12)
			assert_int_equal(rc, -TP_COAP_E_TOKEN_TRUNC);
		if (rc == 0) {
			for (unsigned int i = 0; i < m.n_opts; i++)
				assert_true(m.opts[i].val + m.opts[i].len <= p + cut);
			if (m.payload != NULL)
				assert_ptr_equal(m.payload + m.payload_len, p + cut);
		} else {
			assert_true(rc < 0 && rc > -TP_COAP_E__COUNT);
		}
	}
	/* the whole message decodes to what was written */
	assert_int_equal(tp_coap_decode(full, (size_t)n, &m), 0);
	assert_int_equal(m.n_opts, 3 + 1 + 1 + 1 + 1 + 1 + 1);
	assert_int_equal(m.payload_len, 14);
}

/* Every byte of a valid message set to every value, and random garbage: the
 * decoder never faults and never reports parts outside the buffer. */
static void test_corruption(void **state)
{
	struct guarded *g = *state;
	uint8_t ref[128];
	struct tp_coap_msg m;
	const uint8_t tok[2] = {0xca, 0xfe};
	struct tp_m2m_create r = {
	    .type = TP_COAP_NON,
	    .mid = 9,
	    .token = tok,
	    .tkl = 2,
	    .path = "/cse-in/PHD-9/hr",
	    .ty = 4,
	    .from = "C9",
	    .rqi = "9-1",
	    .payload = "{\"a\":1}",
	    .payload_len = 7,
	};
	int n = tp_m2m_create_req(ref, sizeof(ref), &r);
	assert_true(n > 0);

	for (int pos = 0; pos < n; pos++) {
		for (int v = 0; v < 256; v++) {
			uint8_t *p = guard_place(g, ref, (size_t)n);
			p[pos] = (uint8_t)v;
			int rc = tp_coap_decode(p, (size_t)n, &m);
			if (rc != 0) {
				assert_true(rc < 0 && rc > -TP_COAP_E__COUNT);
				continue;
			}
			for (unsigned int i = 0; i < m.n_opts; i++)
				assert_true(m.opts[i].val + m.opts[i].len <= p + n);
		}
	}
	srand(4242);
	for (int i = 0; i < 200000; i++) {
		uint8_t junk[64];
		size_t len = (size_t)(rand() % (int)sizeof(junk));
		for (size_t k = 0; k < len; k++)
			junk[k] = (uint8_t)rand();
		if (len > 0)
			junk[0] = (uint8_t)(0x40 | (junk[0] & 0x3f)); /* mostly version 1 */
		const uint8_t *p = guard_place(g, junk, len);
		int rc = tp_coap_decode(p, len, &m);
		assert_true(rc <= 0 && rc > -TP_COAP_E__COUNT);
	}
}

static void test_rsc(void **state)
{
	/* ACK 2.01 as ACME sends it: Content-Format 50, OT (259), RVI, RQI, RSC (307) 2001 */
	static const uint8_t rsp[] = {
	    0x62, 0x41, 0x00, 0x07, 0x01, 0x02, /* ACK 2.01, token 0102 */
	    0xc1, 50,				/* Content-Format (12) */
	    0xd2, 0xea, '2',  '0',		/* OT (259): 259-12 = 247 = 13 + 234 */
	    0xc1, '3',				/* RVI (271) */
	    0xc2, 'r',	'1',			/* RQI (283) */
	    0xd2, 0x0b, 0x07, 0xd1,		/* RSC (307): 24 = 13 + 11; 2001 */
	    0xff, '{',	'}',
	};
	struct tp_coap_msg m;

	assert_int_equal(tp_coap_decode(rsp, sizeof(rsp), &m), 0);
	assert_int_equal(m.code, TP_COAP_CREATED);
	assert_int_equal(tp_m2m_rsc(&m), TP_M2M_RSC_CREATED);
	assert_int_equal(tp_coap_decode(rsp, 4 + 2 + 2, &m), 0);
	assert_int_equal(tp_m2m_rsc(&m), -1);
}

/* Found by fuzz_coap: an RSC of 4 bytes above INT_MAX came back as a negative status
 * (-1 for 0xffffffff, "no RSC"). RSC is a 2-byte uint (TS-0008 table 6.2.2.4.0-1):
 * a longer value is no status at all. */
static void test_rsc_too_long(void **state)
{
	static const uint8_t rsp[] = {
	    0x64, 0x73, 0x2d, 0x73, 0x01, 0x00, 0x01, 0x00, /* ACK 3.19, token 01000100 */
	    0xe4, 0x00, 0x26, 0xff, 0xff, 0xff, 0xff,	    /* RSC (307 = 269 + 38) 0xffffffff */
	};
	static const uint8_t rsp3[] = {
	    0x60, 0x41, 0x00, 0x01, 0xe3, 0x00, 0x26, 0x01, 0x00, 0x00, /* RSC 65536 */
	};
	struct tp_coap_msg m;

	assert_int_equal(tp_coap_decode(rsp, sizeof(rsp), &m), 0);
	assert_int_equal(tp_m2m_rsc(&m), -1);
	assert_int_equal(tp_coap_decode(rsp3, sizeof(rsp3), &m), 0);
	assert_int_equal(tp_m2m_rsc(&m), -1);
}

static void test_json_bodies(void **state)
{
	char buf[512];
	const uint8_t sysid[8] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77};
	char rn[TP_M2M_AE_RN_SIZE], orig[TP_M2M_ORIGIN_SIZE];

	tp_m2m_phd_ae_name(sysid, rn);
	tp_m2m_phd_originator(sysid, orig);
	assert_string_equal(rn, "PHD-0011223344556677");
	assert_string_equal(orig, "C0011223344556677");

	const char *ae = "{\"m2m:ae\":{\"rn\":\"PHD-0011223344556677\",\"api\":\"Ntwinplane.phd\","
			 "\"rr\":false,\"srv\":[\"3\"]}}";
	assert_int_equal(tp_m2m_ae_json(buf, sizeof(buf), rn, "Ntwinplane.phd"), (int)strlen(ae));
	assert_string_equal(buf, ae);
	assert_int_equal(tp_m2m_cnt_json(buf, sizeof(buf), "spo2", 0),
			 (int)strlen("{\"m2m:cnt\":{\"rn\":\"spo2\"}}"));
	assert_string_equal(buf, "{\"m2m:cnt\":{\"rn\":\"spo2\"}}");
	tp_m2m_cnt_json(buf, sizeof(buf), "hr", 100);
	assert_string_equal(buf, "{\"m2m:cnt\":{\"rn\":\"hr\",\"mni\":100}}");
	tp_m2m_cin_json(buf, sizeof(buf), "text/plain:0", "a\"b\\c\n\x01");
	assert_string_equal(
	    buf, "{\"m2m:cin\":{\"cnf\":\"text/plain:0\",\"con\":\"a\\\"b\\\\c\\n\\u0001\"}}");
	tp_m2m_cin_json(buf, sizeof(buf), NULL, "x");
	assert_string_equal(buf, "{\"m2m:cin\":{\"con\":\"x\"}}");

	struct tp_m2m_measure meas = {.value = "97.5", .unit = "%", .time = "20260101T120000"};
	const char *cin = "{\"m2m:cin\":{\"cnf\":\"application/json:0\",\"con\":"
			  "\"{\\\"value\\\":97.5,\\\"unit\\\":\\\"%\\\",\\\"time\\\":"
			  "\\\"20260101T120000\\\"}\"}}";
	assert_int_equal(tp_m2m_cin_measure_json(buf, sizeof(buf), &meas), (int)strlen(cin));
	assert_string_equal(buf, cin);
	/* every smaller buffer: NOSPC, nothing written past cap (the last byte is the NUL) */
	for (size_t cap = 0; cap <= strlen(cin); cap++) {
		memset(buf, 0x5a, sizeof(buf));
		assert_int_equal(tp_m2m_cin_measure_json(buf, cap, &meas), -TP_COAP_E_NOSPC);
		assert_int_equal((unsigned char)buf[cap], 0x5a);
	}
	meas.value = NULL;
	meas.unit = NULL;
	meas.time = NULL;
	tp_m2m_cin_measure_json(buf, sizeof(buf), &meas);
	assert_string_equal(
	    buf, "{\"m2m:cin\":{\"cnf\":\"application/json:0\",\"con\":\"{\\\"value\\\":null}\"}}");
	meas.value = "1,5";
	assert_int_equal(tp_m2m_cin_measure_json(buf, sizeof(buf), &meas), -TP_COAP_E_INVAL);
	meas.value = "";
	assert_int_equal(tp_m2m_cin_measure_json(buf, sizeof(buf), &meas), -TP_COAP_E_INVAL);

	assert_int_equal(tp_m2m_json_escape(buf, sizeof(buf), "\t\x1f\x7f\xc3\xa9", 5), 11);
	assert_string_equal(buf, "\\t\\u001f\x7f\xc3\xa9");
	assert_int_equal(tp_m2m_ae_json(buf, sizeof(buf), NULL, "N"), -TP_COAP_E_INVAL);
	/* labels (TS-0004 lbl), empty ones left out, escaped */
	const char *lbl[] = {"manufacturer:The \"Co\"", "", "system-type:weighing-scale"};
	assert_true(tp_m2m_ae_json_lbl(buf, sizeof(buf), "PHD-1", "Nx", lbl, 3) > 0);
	assert_string_equal(buf, "{\"m2m:ae\":{\"rn\":\"PHD-1\",\"lbl\":[\"manufacturer:The "
				 "\\\"Co\\\"\",\"system-type:weighing-scale\"],\"api\":\"Nx\","
				 "\"rr\":false,\"srv\":[\"3\"]}}");
	/* receive times: UTC seconds to oneM2M's basic ISO 8601 form */
	char t[TP_M2M_TIME_SIZE];
	tp_m2m_time_from_epoch(0, t);
	assert_string_equal(t, "19700101T000000");
	tp_m2m_time_from_epoch(951782400, t); /* 2000-02-29, a leap day */
	assert_string_equal(t, "20000229T000000");
	tp_m2m_time_from_epoch(1767225599, t);
	assert_string_equal(t, "20251231T235959");
}

static void test_decimal(void **state)
{
	static const struct {
		int32_t m;
		int8_t e;
		const char *s;
	} cases[] = {
	    {975, -1, "97.5"},
	    {5, -2, "0.05"},
	    {-5, -2, "-0.05"},
	    {100, -2, "1.00"},
	    {12, 2, "1200"},
	    {0, 5, "0"},
	    {0, -3, "0"},
	    {2047, 0, "2047"},
	    {-2048, 7, "-20480000000"},
	    {72, 0, "72"},
	    {1, -20, "0.00000000000000000001"},
	    {12, 30, "12e30"},
	    {-3, -128, "-3e-128"},
	    {7, 10, "7e10"},
	    {INT32_MIN, 0, "-2147483648"},
	    {8388607, -24, "8388607e-24"},
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(tp_m2m_decimal(buf, sizeof(buf), cases[i].m, cases[i].e),
				 (int)strlen(cases[i].s));
		assert_string_equal(buf, cases[i].s);
	}
	assert_int_equal(tp_m2m_decimal(buf, 4, 975, -1), -TP_COAP_E_NOSPC);
	assert_int_equal(tp_m2m_decimal(buf, 5, 975, -1), 4);
}

/* The CoAP template (tp_coap_tmpl_*) against the writer it was saved from: the
 * same options put after it, the same payload, the same bytes; any type, message
 * id and token. */
static void test_coap_template(void **state)
{
	struct tp_coap_writer w, t_w;
	struct tp_coap_tmpl t;
	uint8_t a[256], b[256], scratch[TP_COAP_TMPL_MAX];
	const uint8_t tok[4] = {0xde, 0xad, 0xbe, 0xef}, tok2[4] = {1, 2, 3, 4};

	tp_coap_begin(&w, scratch, sizeof(scratch), TP_COAP_CON, TP_COAP_POST, 0, tok, 4);
	tp_coap_put_uri_path(&w, "/a/bb/ccc");
	tp_coap_put_uint(&w, TP_COAP_OPT_CONTENT_FORMAT, TP_COAP_CF_JSON);
	assert_int_equal(tp_coap_tmpl_save(&t, &w), 0);
	for (unsigned int type = TP_COAP_CON; type <= TP_COAP_ACK; type++) {
		for (size_t plen = 0; plen < 40; plen += 13) {
			/* the general way */
			tp_coap_begin(&w, a, sizeof(a), (enum tp_coap_type)type, TP_COAP_POST,
				      0x1234, tok2, 4);
			tp_coap_put_uri_path(&w, "/a/bb/ccc");
			tp_coap_put_uint(&w, TP_COAP_OPT_CONTENT_FORMAT, TP_COAP_CF_JSON);
			tp_coap_put_str(&w, 300, "x");
			tp_coap_put_payload(&w, "0123456789012345678901234567890123456789", plen);
			int la = tp_coap_end(&w);
			/* from the template, the payload written in place */
			size_t room;
			tp_coap_tmpl_begin(&t_w, b, sizeof(b), &t, (enum tp_coap_type)type, 0x1234,
					   tok2);
			tp_coap_put_str(&t_w, 300, "x");
			uint8_t *p = tp_coap_payload_reserve(&t_w, &room);
			assert_non_null(p);
			memcpy(p, "0123456789012345678901234567890123456789", plen);
			tp_coap_payload_commit(&t_w, plen);
			int lb = tp_coap_end(&t_w);
			assert_true(la > 0);
			assert_int_equal(la, lb);
			assert_memory_equal(a, b, (size_t)la);
		}
	}
	/* too small a buffer, an option below the template's last, a payload after the
	 * payload: the writer's own errors */
	tp_coap_tmpl_begin(&t_w, b, 10, &t, TP_COAP_NON, 1, tok2);
	assert_int_equal(tp_coap_end(&t_w), -TP_COAP_E_NOSPC);
	tp_coap_tmpl_begin(&t_w, b, sizeof(b), &t, TP_COAP_NON, 1, tok2);
	tp_coap_put_str(&t_w, TP_COAP_OPT_URI_PATH, "late");
	assert_int_equal(tp_coap_end(&t_w), -TP_COAP_E_OPT_ORDER);
	size_t room;
	tp_coap_tmpl_begin(&t_w, b, t.len + 1, &t, TP_COAP_NON, 1, tok2);
	assert_null(tp_coap_payload_reserve(&t_w, &room));
	assert_int_equal(tp_coap_end(&t_w), -TP_COAP_E_NOSPC);
	tp_coap_tmpl_begin(&t_w, b, t.len + 2, &t, TP_COAP_NON, 1, tok2);
	assert_non_null(tp_coap_payload_reserve(&t_w, &room));
	assert_int_equal(room, 1);
	tp_coap_payload_commit(&t_w, 2);
	assert_int_equal(tp_coap_end(&t_w), -TP_COAP_E_NOSPC);
	/* a template longer than TP_COAP_TMPL_MAX is refused, and left empty */
	uint8_t big[512];
	char seg[201];
	memset(seg, 's', 200);
	seg[200] = '\0';
	tp_coap_begin(&w, big, sizeof(big), TP_COAP_NON, TP_COAP_POST, 0, NULL, 0);
	tp_coap_put_str(&w, TP_COAP_OPT_URI_PATH, seg);
	assert_int_equal(tp_coap_tmpl_save(&t, &w), -TP_COAP_E_NOSPC);
	assert_int_equal(t.len, 0);
	tp_coap_tmpl_begin(&t_w, b, sizeof(b), &t, TP_COAP_NON, 1, NULL);
	assert_int_equal(tp_coap_end(&t_w), -TP_COAP_E_INVAL);
}

/* 11073-20601's number types (SFLOAT-Type and FLOAT-Type, 20601 Annex F.6-F.7) as
 * the report path writes them (report.c: special values are JSON null). */
static const char *reading_text(const struct tp_phd_num *n, char buf[40])
{
	if (n->special != TP_PHD_FINITE || tp_m2m_decimal(buf, 40, n->mantissa, n->exponent) < 0)
		return NULL;
	return buf;
}

/* The contentInstance request from the metric's template and from the general
 * encoder (tp_m2m_create_req, tp_m2m_cin_measure_json) for the same values:
 * byte-identical. Values: every SFLOAT special (NaN 0x07FF, NRes 0x0800, +INF
 * 0x07FE, -INF 0x0802, reserved 0x0801) and FLOAT special, negative mantissas,
 * the extreme exponents of both types (SFLOAT -8..7, FLOAT -128..127), and random
 * codes; units that need escaping and none; request ids across the option length
 * forms (12/13 bytes); paths that do not fit a template. */
static void test_cin_template_identical(void **state)
{
	static const uint16_t sfloats[] = {
	    0x07FF, 0x0800, 0x07FE, 0x0802, 0x0801, /* the specials */
	    0x0000, 0x0001, 0xF3CF,		    /* 0, 1, 975e-1 */
	    0x0FFF, 0x0803, 0x8001, 0x7001,	    /* -1, -2045, 1e-8, 1e7 */
	    0x87FD, 0x77FD, 0xF800,		    /* 2045e-8, 2045e7, -2048e-1 */
	};
	static const uint32_t floats[] = {
	    0x007FFFFF, 0x00800000, 0x007FFFFE, 0x00800002, 0x00800001, /* the specials */
	    0x80000001, 0x7F000001, 0xFF7FFFFD, 0x80800003,		/* e-128, e127, ... */
	    0x00FFFFFF, 0xFE00F3CF, 0x00000000,				/* -1, 62415e-2, 0 */
	};
	static const char *const units[] = {"%",
					    "bpm",
					    NULL,
					    "\xc2\xb0"
					    "C",
					    "mmHg",
					    "a\"b",
					    "c\\d",
					    "\x01",
					    "kg/m2"};
	static const char *const labels[] = {"spo2", "pulse-rate", "x", "a-label-of-twenty-three"};
	static const uint32_t rqis[] = {0, 9, 12345678, 123456789, UINT32_MAX};
	static struct tp_iotgw_dp dp_t, dp_g; /* big: not on the stack */
	struct tp_ae ae;
	uint8_t a[512], b[512];
	char vbuf[40];
	unsigned int checked = 0;
	uint64_t rnd = 0x9e3779b97f4a7c15ull;

	memset(&ae, 0, sizeof(ae));
	const uint8_t sysid[8] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77};
	tp_m2m_phd_originator(sysid, ae.origin);
	tp_m2m_phd_ae_name(sysid, ae.ae_name);
	struct tp_ae_metric *mt = &ae.metric[0];
	ae.n_metrics = 1;

	for (size_t li = 0; li < sizeof(labels) / sizeof(labels[0]); li++) {
		snprintf(mt->path, sizeof(mt->path), "/cse-in/%s/%s", ae.ae_name, labels[li]);
		struct tp_m2m_create r = tp_iotgw_cin_create(&ae, mt);
		assert_int_equal(tp_m2m_create_tmpl(&mt->cin, &r), 0);
		struct tp_coap_tmpl tmpl = mt->cin;
		for (size_t k = 0; k < 200 + 15 + 12; k++) {
			struct tp_phd_num num;
			if (k < sizeof(sfloats) / sizeof(sfloats[0]))
				tp_phd_sfloat_decode(sfloats[k], &num);
			else if (k < 15 + sizeof(floats) / sizeof(floats[0]))
				tp_phd_float_decode(floats[k - 15], &num);
			else {
				rnd = rnd * 6364136223846793005ull + 1442695040888963407ull;
				if (k & 1)
					tp_phd_float_decode((uint32_t)(rnd >> 32), &num);
				else
					tp_phd_sfloat_decode((uint16_t)(rnd >> 40), &num);
			}
			const char *unit = units[k % (sizeof(units) / sizeof(units[0]))];
			struct tp_m2m_measure meas = {
			    .value = reading_text(&num, vbuf),
			    .unit = unit,
			    .time = k % 3 ? "20260101T120000" : NULL,
			};
			dp_t.id = dp_g.id = (unsigned int)(k % 1000);
			dp_t.rqi = dp_g.rqi = rqis[k % (sizeof(rqis) / sizeof(rqis[0]))];
			dp_t.mid = dp_g.mid = (uint16_t)(k * 7919);
			mt->cin = tmpl;
			int lt = tp_iotgw_cin_request(&dp_t, a, sizeof(a), &ae, mt, &meas);
			mt->cin.len = 0; /* the general encoder */
			int lg = tp_iotgw_cin_request(&dp_g, b, sizeof(b), &ae, mt, &meas);
			assert_true(lg > 0);
			assert_int_equal(lt, lg);
			assert_memory_equal(a, b, (size_t)lg);
			/* and it decodes as the request it is */
			struct tp_coap_msg m;
			assert_int_equal(tp_coap_decode(a, (size_t)lt, &m), 0);
			assert_int_equal(m.type, TP_COAP_NON);
			assert_int_equal(m.code, TP_COAP_POST);
			assert_non_null(m.payload);
			checked++;
			/* every smaller buffer: NOSPC from both */
			if (k == 20) {
				for (size_t cap = 0; cap < (size_t)lg; cap++) {
					mt->cin = tmpl;
					assert_true(tp_iotgw_cin_request(&dp_t, a, cap, &ae, mt,
									 &meas) < 0);
				}
			}
		}
	}
	assert_int_equal(checked, 4 * 227);
	/* a path too long for a template: none made (the general encoder serves it) */
	memset(mt->path, 'p', sizeof(mt->path) - 1);
	mt->path[0] = '/';
	mt->path[sizeof(mt->path) - 1] = '\0';
	struct tp_m2m_create r = tp_iotgw_cin_create(&ae, mt);
	char from[121];
	memset(from, 'C', 120);
	from[120] = '\0';
	r.from = from;
	assert_int_equal(tp_m2m_create_tmpl(&mt->cin, &r), -TP_COAP_E_NOSPC);
	assert_int_equal(mt->cin.len, 0);
}

/* The IN-CSE's answer to the registration step in flight (its message id and token),
 * with code and, if rsc > 0, the oneM2M response status code. */
static int reg_answer(int idx, uint8_t code, int rsc, uint8_t *buf, size_t cap)
{
	uint8_t req[1024];
	struct tp_coap_msg m;
	struct tp_coap_writer w;
	int n = tp_iotgw_reg_request(idx, req, sizeof(req), (uint16_t)(0x4000 + idx));

	assert_true(n > 0);
	assert_int_equal(tp_coap_decode(req, (size_t)n, &m), 0);
	tp_coap_begin(&w, buf, cap, TP_COAP_ACK, code, m.mid, m.token, m.tkl);
	if (rsc > 0)
		tp_coap_put_uint(&w, TP_M2M_OPT_RSC, (uint32_t)rsc);
	return tp_coap_end(&w);
}

/* What the registrar makes of refusals: 4.00 Bad Request (what ACME answers to valid
 * requests while it starts: README Decisions) and 5.xx are transient, the same step
 * is sent again, up to TP_IOTGW_SERVER_ERRORS answers; other 4.xx end the
 * registration at once; a success moves on and forgets the transient ones. */
static void test_registration_refusals(void **state)
{
	static const uint8_t sysid[8] = {0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77};
	uint8_t buf[256];
	int got = -1, n;

	(void)state;
	assert_int_equal(tp_test_eal_init(), 0);
	assert_int_equal(tp_ae_init(), 0);
	int idx = tp_ae_create(0x0a000102u, 6024, sysid, 0);
	assert_true(idx >= 0);
	assert_int_equal(tp_phd_std_value_map(0x0190, &tp_ae_table[idx].map), 0);
	struct tp_ae *e = &tp_ae_table[idx];

	tp_iotgw_reg_begin(idx);
	uint64_t counted = tp_iotgw_sess.reg_server_errors;
	for (int i = 1; i < TP_IOTGW_SERVER_ERRORS; i++) {
		n = reg_answer(idx, TP_COAP_CODE(4, 0), TP_M2M_RSC_BAD_REQUEST, buf, sizeof(buf));
		assert_int_equal(tp_iotgw_reg_response(buf, (size_t)n, &got), TP_IOTGW_REG_AGAIN);
		assert_int_equal(got, idx);
		assert_int_equal(e->state, TP_AE_REGISTERING);
		assert_int_equal(e->reg_step, 0);
	}
	assert_int_equal(tp_iotgw_sess.reg_server_errors - counted, TP_IOTGW_SERVER_ERRORS - 1);
	/* created: the next step, the transient count forgotten */
	n = reg_answer(idx, TP_COAP_CREATED, TP_M2M_RSC_CREATED, buf, sizeof(buf));
	assert_int_equal(tp_iotgw_reg_response(buf, (size_t)n, &got), TP_IOTGW_REG_NEXT);
	assert_int_equal(e->reg_step, 1);
	assert_int_equal(e->reg_errors, 0);
	/* 5.03 with no status code: transient too */
	n = reg_answer(idx, TP_COAP_CODE(5, 3), 0, buf, sizeof(buf));
	assert_int_equal(tp_iotgw_reg_response(buf, (size_t)n, &got), TP_IOTGW_REG_AGAIN);
	assert_int_equal(e->reg_step, 1);
	/* too many in a row: refused */
	for (int i = 1; i < TP_IOTGW_SERVER_ERRORS - 1; i++) {
		n = reg_answer(idx, TP_COAP_CODE(5, 0), 5000, buf, sizeof(buf));
		assert_int_equal(tp_iotgw_reg_response(buf, (size_t)n, &got), TP_IOTGW_REG_AGAIN);
	}
	n = reg_answer(idx, TP_COAP_CODE(5, 0), 5000, buf, sizeof(buf));
	assert_int_equal(tp_iotgw_reg_response(buf, (size_t)n, &got), TP_IOTGW_REG_FAILED);
	assert_int_equal(e->state, TP_AE_FAILED);

	/* 4.03 No Privilege: final at the first answer */
	tp_iotgw_reg_begin(idx);
	n = reg_answer(idx, TP_COAP_CODE(4, 3), TP_M2M_RSC_NO_PRIVILEGE, buf, sizeof(buf));
	assert_int_equal(tp_iotgw_reg_response(buf, (size_t)n, &got), TP_IOTGW_REG_FAILED);
	assert_int_equal(e->state, TP_AE_FAILED);
	/* 4.09 Conflict (the AE is there): on to the next step */
	tp_iotgw_reg_begin(idx);
	n = reg_answer(idx, TP_COAP_CODE(4, 9), TP_M2M_RSC_CONFLICT, buf, sizeof(buf));
	assert_int_equal(tp_iotgw_reg_response(buf, (size_t)n, &got), TP_IOTGW_REG_NEXT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rfc7252_figure16),
	    cmocka_unit_test(test_rfc7252_token),
	    cmocka_unit_test(test_option_extended_forms),
	    cmocka_unit_test(test_onem2m_create_bytes),
	    cmocka_unit_test(test_onem2m_create_errors),
	    cmocka_unit_test(test_encode_nospc),
	    cmocka_unit_test(test_encode_errors),
	    cmocka_unit_test(test_uint_options),
	    cmocka_unit_test(test_round_trip_random),
	    cmocka_unit_test(test_decode_errors),
	    cmocka_unit_test(test_truncation),
	    cmocka_unit_test(test_corruption),
	    cmocka_unit_test(test_rsc),
	    cmocka_unit_test(test_rsc_too_long),
	    cmocka_unit_test(test_json_bodies),
	    cmocka_unit_test(test_decimal),
	    cmocka_unit_test(test_coap_template),
	    cmocka_unit_test(test_cin_template_identical),
	    cmocka_unit_test(test_registration_refusals),
	    cmocka_unit_test(test_retrieve_request),
	};
	return cmocka_run_group_tests_name("coap", tests, setup, teardown);
}
