/* SPDX-License-Identifier: BSD-3-Clause */
/* twinplane-fetch's codecs: HTTP responses captured from nginx parsed whole, byte by
 * byte and truncated; RFC 9110/9112/3986 examples; TCP segments captured from Linux;
 * TCP checksums against DPDK's own. The server side of the HTTP codec (the metrics
 * server's): requests captured from Prometheus and curl, RFC 9112's request rules. */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <rte_ip.h>

#include "../../src/proto/http.h"
#include "../../src/proto/ip4.h"
#include "../../src/proto/sha256.h"
#include "../../src/proto/tcp.h"
#include "fetch_vectors.h"

static struct tp_http_resp r;

struct parsed {
	int err;
	int headers, done;
	uint8_t body[8192];
	size_t blen;
};

/* Feed in pieces of step bytes, then EOF when eof. */
static void parse(const uint8_t *p, size_t n, size_t step, bool eof, struct parsed *o)
{
	memset(o, 0, sizeof(*o));
	tp_http_resp_init(&r, false);
	for (size_t off = 0; off < n && !o->err; off += step) {
		size_t len = n - off < step ? n - off : step;
		const uint8_t *q = p + off;
		for (;;) {
			enum tp_http_event ev;
			const uint8_t *b;
			size_t bl;
			int k = tp_http_resp_feed(&r, q, len, &ev, &b, &bl);
			if (k < 0) {
				o->err = -k;
				break;
			}
			q += k;
			len -= (size_t)k;
			if (ev == TP_HTTP_EV_NONE)
				break;
			if (ev == TP_HTTP_EV_HEADERS)
				o->headers++;
			if (ev == TP_HTTP_EV_DONE)
				o->done++;
			if (ev == TP_HTTP_EV_BODY) {
				assert_true(o->blen + bl <= sizeof(o->body));
				memcpy(o->body + o->blen, b, bl);
				o->blen += bl;
			}
		}
	}
	if (eof && !o->err) {
		int k = tp_http_resp_eof(&r);
		if (k < 0)
			o->err = -k;
		else if (k == 1)
			o->done++;
	}
}

static void check_whole_and_bytewise(const uint8_t *p, size_t n, int status,
				     enum tp_http_framing framing, const uint8_t *body, size_t blen)
{
	static struct parsed o;
	size_t steps[] = {n, 1, 2, 7, 100, 1460};

	for (unsigned int i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		parse(p, n, steps[i], true, &o);
		assert_int_equal(o.err, 0);
		assert_int_equal(o.headers, 1);
		assert_int_equal(o.done, 1);
		assert_int_equal(r.status, status);
		assert_int_equal(r.framing, framing);
		assert_int_equal(o.blen, blen);
		assert_memory_equal(o.body, body, blen);
	}
}

static void test_nginx_content_length(void **state)
{
	check_whole_and_bytewise(nginx_length, sizeof(nginx_length), 200, TP_HTTP_LENGTH, vec_text,
				 sizeof(vec_text));
	assert_int_equal(r.content_length, sizeof(vec_text));
	assert_string_equal(r.reason, "OK");
	assert_false(r.keep_alive); /* the vectors asked for Connection: close */
}

static void test_nginx_chunked(void **state)
{
	check_whole_and_bytewise(nginx_chunked, sizeof(nginx_chunked), 200, TP_HTTP_CHUNKED,
				 vec_text, sizeof(vec_text));
}

static void test_nginx_range(void **state)
{
	check_whole_and_bytewise(nginx_range, sizeof(nginx_range), 206, TP_HTTP_LENGTH,
				 vec_text + 10, 90);
	assert_true(r.has_range);
	assert_int_equal(r.range_first, 10);
	assert_int_equal(r.range_last, 99);
	assert_int_equal(r.range_total, sizeof(vec_text));
}

static void test_nginx_redirect_and_404(void **state)
{
	static struct parsed o;

	parse(nginx_redirect, sizeof(nginx_redirect), 3, true, &o);
	assert_int_equal(o.err, 0);
	assert_int_equal(r.status, 302);
	assert_string_equal(r.location + strlen(r.location) - strlen("/small.bin"), "/small.bin");
	parse(nginx_404, sizeof(nginx_404), 5, true, &o);
	assert_int_equal(o.err, 0);
	assert_int_equal(r.status, 404);
	assert_string_equal(r.reason, "Not Found");
	assert_true(o.blen > 0); /* nginx's error page */
}

/* Every truncation of a response is an error at EOF: no header section yet, or a short
 * body; never a success. */
static void test_truncated_responses(void **state)
{
	static struct parsed o;
	const struct {
		const uint8_t *p;
		size_t n;
	} v[] = {{nginx_length, sizeof(nginx_length)},
		 {nginx_chunked, sizeof(nginx_chunked)},
		 {nginx_range, sizeof(nginx_range)}};

	for (unsigned int i = 0; i < 3; i++) {
		const uint8_t *hend = memmem(v[i].p, v[i].n, "\r\n\r\n", 4);
		size_t hl = (size_t)(hend - v[i].p) + 4;
		for (size_t cut = 0; cut < v[i].n; cut++) {
			parse(v[i].p, cut, 1460, true, &o);
			assert_int_equal(o.done, 0);
			assert_int_equal(o.err,
					 cut < hl ? TP_HTTP_E_NO_RESPONSE : TP_HTTP_E_SHORT_BODY);
		}
	}
}

static void parse_str(const char *s, struct parsed *o)
{
	parse((const uint8_t *)s, strlen(s), strlen(s), true, o);
}

static void test_rfc9112_framing_rules(void **state)
{
	static struct parsed o;

	/* RFC 9110 8.6: differing Content-Length values are an error, a list of one
	 * value is that value */
	parse_str("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello", &o);
	assert_int_equal(o.err, TP_HTTP_E_LENGTH);
	parse_str("HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\nhello", &o);
	assert_int_equal(o.err, 0);
	assert_int_equal(o.blen, 5);
	parse_str("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", &o);
	assert_int_equal(o.err, TP_HTTP_E_LENGTH);
	/* RFC 9112 6.3 item 3: Transfer-Encoding overrides Content-Length */
	parse_str("HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n"
		  "5\r\nhello\r\n0\r\n\r\n",
		  &o);
	assert_int_equal(o.err, 0);
	assert_int_equal(o.blen, 5);
	assert_int_equal(r.framing, TP_HTTP_CHUNKED);
	/* item 4 (responses): a coding other than chunked last: until the close */
	parse_str("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\nabc", &o);
	assert_int_equal(o.err, 0);
	assert_int_equal(r.framing, TP_HTTP_CLOSE);
	assert_int_equal(o.done, 1);
	/* item 8: neither: until the close */
	parse_str("HTTP/1.0 200 OK\r\n\r\nabc", &o);
	assert_int_equal(r.framing, TP_HTTP_CLOSE);
	assert_int_equal(o.blen, 3);
	/* items 1: 204 and 304 have no body; 1xx responses are skipped (RFC 9110 15.2) */
	parse_str("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n", &o);
	assert_int_equal(o.err, 0);
	assert_int_equal(r.status, 204);
	assert_int_equal(o.headers, 1);
	assert_int_equal(o.done, 1);
	/* 7.1.1: chunk extensions ignored; 7.1.2: trailer fields skipped; bare LF lines
	 * accepted (2.2) */
	parse_str("HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n"
		  "3;name=value\r\nabc\r\nA ; x\r\n0123456789\r\n0\r\nExpires: never\r\n\r\n",
		  &o);
	assert_int_equal(o.err, 0);
	assert_int_equal(o.blen, 13);
	assert_memory_equal(o.body, "abc0123456789", 13);
	/* 5.1: no whitespace between a field name and its colon; 5.2: obs-fold refused */
	parse_str("HTTP/1.1 200 OK\r\nContent-Length : 3\r\n\r\nabc", &o);
	assert_int_equal(o.err, TP_HTTP_E_HEADER);
	parse_str("HTTP/1.1 200 OK\r\nX: a\r\n  b\r\nContent-Length: 0\r\n\r\n", &o);
	assert_int_equal(o.err, TP_HTTP_E_HEADER);
	/* malformed status lines and chunk sizes */
	parse_str("HTTP/2 200 OK\r\n\r\n", &o);
	assert_int_equal(o.err, TP_HTTP_E_STATUS);
	parse_str("HTTP/1.1 20 OK\r\n\r\n", &o);
	assert_int_equal(o.err, TP_HTTP_E_STATUS);
	parse_str("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nxyz\r\n", &o);
	assert_int_equal(o.err, TP_HTTP_E_CHUNK);
	parse_str("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n", &o);
	assert_int_equal(o.err, TP_HTTP_E_CHUNK);
	parse_str("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		  "10000000000000000\r\n",
		  &o);
	assert_int_equal(o.err, TP_HTTP_E_CHUNK); /* 17 hex digits: over 2^64 */
	/* bytes after a complete response that were not asked for */
	parse_str("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nab", &o);
	assert_int_equal(o.err, TP_HTTP_E_TRAILING);
}

static void test_rfc9110_content_range(void **state)
{
	static struct parsed o;
	const char *ok[][4] = {
	    /* RFC 9110 14.4's examples */
	    {"bytes 42-1233/1234", "42", "1233", "1234"},
	    {"bytes 42-1233/*", "42", "1233", "*"},
	};
	char buf[256];

	for (unsigned int i = 0; i < 2; i++) {
		snprintf(buf, sizeof(buf),
			 "HTTP/1.1 206 Partial Content\r\nContent-Range: %s\r\n"
			 "Content-Length: 0\r\n\r\n",
			 ok[i][0]);
		parse_str(buf, &o);
		assert_int_equal(o.err, 0);
		assert_true(r.has_range);
		assert_int_equal(r.range_first, strtoull(ok[i][1], NULL, 10));
		assert_int_equal(r.range_last, strtoull(ok[i][2], NULL, 10));
		assert_int_equal(r.range_total,
				 ok[i][3][0] == '*' ? UINT64_MAX : strtoull(ok[i][3], NULL, 10));
	}
	/* 14.4: invalid when last < first or total <= last */
	const char *bad[] = {"bytes 1233-42/1234", "bytes 42-1234/1234", "bytes */1234",
			     "items 1-2/3"};
	for (unsigned int i = 0; i < 4; i++) {
		snprintf(buf, sizeof(buf),
			 "HTTP/1.1 206 Partial Content\r\nContent-Range: %s\r\n"
			 "Content-Length: 0\r\n\r\n",
			 bad[i]);
		parse_str(buf, &o);
		assert_int_equal(o.err, TP_HTTP_E_CONTENT_RANGE);
	}
}

/* RFC 3986 5.4.1 and 5.4.2: the reference resolution examples (base
 * "http://a/b/c/d;p?q", with 10.0.0.1 for the host "a", and without the examples that
 * change the scheme or the authority to "g"). */
static void test_rfc3986_resolution(void **state)
{
	const char *ex[][2] = {
	    {"g", "/b/c/g"},
	    {"./g", "/b/c/g"},
	    {"g/", "/b/c/g/"},
	    {"/g", "/g"},
	    {"?y", "/b/c/d;p?y"},
	    {"g?y", "/b/c/g?y"},
	    {"#s", "/b/c/d;p?q"},
	    {"g#s", "/b/c/g"},
	    {"g?y#s", "/b/c/g?y"},
	    {";x", "/b/c/;x"},
	    {"g;x", "/b/c/g;x"},
	    {"g;x?y#s", "/b/c/g;x?y"},
	    {"", "/b/c/d;p?q"},
	    {".", "/b/c/"},
	    {"./", "/b/c/"},
	    {"..", "/b/"},
	    {"../", "/b/"},
	    {"../g", "/b/g"},
	    {"../..", "/"},
	    {"../../", "/"},
	    {"../../g", "/g"},
	    {"../../../g", "/g"},
	    {"../../../../g", "/g"},
	    {"/./g", "/g"},
	    {"/../g", "/g"},
	    {"g.", "/b/c/g."},
	    {".g", "/b/c/.g"},
	    {"g..", "/b/c/g.."},
	    {"..g", "/b/c/..g"},
	    {"./../g", "/b/g"},
	    {"./g/.", "/b/c/g/"},
	    {"g/./h", "/b/c/g/h"},
	    {"g/../h", "/b/c/h"},
	    {"g;x=1/./y", "/b/c/g;x=1/y"},
	    {"g;x=1/../y", "/b/c/y"},
	    {"g?y/./x", "/b/c/g?y/./x"},
	    {"g?y/../x", "/b/c/g?y/../x"},
	};
	struct tp_url base, u;
	char err[128];

	assert_int_equal(tp_url_parse("http://10.0.0.1/b/c/d;p?q", &base, err, sizeof(err)), 0);
	for (unsigned int i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
		int ret = tp_url_resolve(&base, ex[i][0], &u, err, sizeof(err));
		if (ret != 0)
			fail_msg("'%s': %s", ex[i][0], err);
		if (strcmp(u.path, ex[i][1]) != 0)
			fail_msg("'%s' resolved to '%s', RFC 3986 says '%s'", ex[i][0], u.path,
				 ex[i][1]);
		assert_int_equal(u.ip, 0x0a000001);
	}
	assert_int_equal(tp_url_resolve(&base, "//10.1.2.3:81/x", &u, err, sizeof(err)), 0);
	assert_int_equal(u.ip, 0x0a010203);
	assert_int_equal(u.port, 81);
	assert_int_equal(tp_url_resolve(&base, "ftp://x/", &u, err, sizeof(err)), -EINVAL);
}

static void test_url_and_request(void **state)
{
	struct tp_url u;
	char err[128], req[512];

	assert_int_equal(tp_url_parse("http://10.0.2.2:8080/a%20b?x=1#frag", &u, err, sizeof(err)),
			 0);
	assert_int_equal(u.port, 8080);
	assert_string_equal(u.path, "/a%20b?x=1");
	assert_true(tp_http_get(req, sizeof(req), &u, 100, TP_HTTP_NO_RANGE, "t/1") > 0);
	assert_string_equal(req, "GET /a%20b?x=1 HTTP/1.1\r\nHost: 10.0.2.2:8080\r\n"
				 "User-Agent: t/1\r\nAccept: */*\r\nRange: bytes=100-\r\n\r\n");
	assert_int_equal(tp_url_parse("http://10.0.2.2", &u, err, sizeof(err)), 0);
	assert_string_equal(u.path, "/");
	assert_true(tp_http_get(req, sizeof(req), &u, 0, 99, "t") > 0);
	assert_non_null(strstr(req, "Host: 10.0.2.2\r\n")); /* RFC 9110 7.2: no :80 */
	assert_non_null(strstr(req, "Range: bytes=0-99\r\n"));
	const char *bad[] = {"https://10.0.0.1/",      "http://example.com/",
			     "http://[::1]/",	       "http://10.0.0.1:0/",
			     "http://10.0.0.1:65536/", "http://u@10.0.0.1/",
			     "http://10.0.0.1/a b",    "http:///x"};
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(tp_url_parse(bad[i], &u, err, sizeof(err)), -EINVAL);
}

/* Linux's SYN-ACK and a data segment, as captured: they parse, and their checksums
 * verify over the captured addresses; one flipped bit fails it. */
static void test_linux_segments(void **state)
{
	struct tp_tcp_hdr h;
	struct tp_tcp_opts o;
	uint32_t src, dst;
	uint8_t seg[2048];

	assert_int_equal(tp_tcp_parse(linux_synack, sizeof(linux_synack), &h, &o), TP_TCP_OK);
	assert_int_equal(h.flags, TP_TCP_SYN | TP_TCP_ACK);
	assert_int_equal(h.sport, 80);
	assert_true(o.has_mss && o.mss == 1460);
	assert_true(o.sack_perm && o.has_ts && o.has_ws);
	assert_int_not_equal(o.tsval, 0);
	memcpy(&src, linux_synack_src, 4);
	memcpy(&dst, linux_synack_dst, 4);
	assert_true(tp_tcp_cksum_ok(linux_synack, sizeof(linux_synack), src, dst));

	assert_int_equal(tp_tcp_parse(linux_data, sizeof(linux_data), &h, &o), TP_TCP_OK);
	assert_true(h.flags & TP_TCP_ACK);
	assert_true(o.has_ts && !o.has_mss);
	memcpy(&src, linux_data_src, 4);
	memcpy(&dst, linux_data_dst, 4);
	assert_true(tp_tcp_cksum_ok(linux_data, sizeof(linux_data), src, dst));
	memcpy(seg, linux_data, sizeof(linux_data));
	seg[sizeof(linux_data) - 1] ^= 0x01;
	assert_false(tp_tcp_cksum_ok(seg, sizeof(linux_data), src, dst));
	assert_false(tp_tcp_cksum_ok(linux_data, sizeof(linux_data), src, dst ^ 0x100));
}

/* Our segments' checksums are DPDK's rte_ipv4_udptcp_cksum(), the independent reference:
 * random headers, options and odd and even payload lengths. */
static void test_tcp_write_cksum_matches_dpdk(void **state)
{
	uint8_t pkt[20 + 60 + 1500];
	srand(7);
	for (unsigned int i = 0; i < 5000; i++) {
		size_t plen = (size_t)(rand() % 1461);
		uint32_t sack[3][2];
		for (int b = 0; b < 3; b++)
			sack[b][0] = (uint32_t)rand(), sack[b][1] = (uint32_t)rand();
		uint8_t *seg = pkt + 20;
		size_t ol = (i & 1) ? tp_tcp_opts_data(seg + 20, true, (uint32_t)rand(),
						       (uint32_t)rand(), sack, (unsigned)(i % 4))
				    : tp_tcp_opts_syn(seg + 20, 1460, 7, true, true, 1, 2);
		for (size_t k = 0; k < plen; k++)
			seg[20 + ol + k] = (uint8_t)rand();
		struct tp_tcp_hdr h = {.sport = (uint16_t)rand(),
				       .dport = 80,
				       .seq = (uint32_t)rand(),
				       .ack = (uint32_t)rand(),
				       .hlen = (uint8_t)(20 + ol),
				       .flags = TP_TCP_ACK,
				       .win = (uint16_t)rand()};
		uint32_t s = (uint32_t)rand(), d = (uint32_t)rand();
		size_t len = 20 + ol + plen;
		tp_tcp_write(seg, len, s, d, &h);
		tp_ip4_write(pkt, s, d, TP_IPPROTO_TCP, 64, (uint16_t)len, 1);
		uint16_t mine;
		memcpy(&mine, seg + 16, 2);
		seg[16] = seg[17] = 0;
		assert_int_equal(mine,
				 rte_ipv4_udptcp_cksum((const struct rte_ipv4_hdr *)pkt, seg));
		memcpy(seg + 16, &mine, 2);
		assert_true(tp_tcp_cksum_ok(seg, len, s, d));
		/* and the options parse back */
		struct tp_tcp_hdr back;
		struct tp_tcp_opts o;
		assert_int_equal(tp_tcp_parse(seg, len, &back, &o), TP_TCP_OK);
		assert_int_equal(back.seq, h.seq);
		assert_int_equal(back.hlen, h.hlen);
		if (i & 1) {
			assert_int_equal(o.nsack, i % 4);
			for (unsigned int b = 0; b < o.nsack; b++)
				assert_int_equal(o.sack[b][1], sack[b][1]);
		} else {
			assert_true(o.has_mss && o.mss == 1460 && o.ws == 7 && o.sack_perm);
		}
	}
}

static void test_tcp_bad_options(void **state)
{
	struct tp_tcp_opts o;
	const uint8_t mss_len3[] = {2, 3, 5};
	const uint8_t past_end[] = {8, 10, 0, 0, 0, 1};
	const uint8_t zero_len[] = {99, 0};
	const uint8_t sack_odd[] = {5, 6, 0, 0, 0, 1};
	const uint8_t unknown_ok[] = {99, 4, 1, 2, 1, 0, 55};
	const uint8_t ws_big[] = {3, 3, 30};

	assert_int_equal(tp_tcp_opts_parse(mss_len3, 3, &o), -EINVAL);
	assert_int_equal(tp_tcp_opts_parse(past_end, 6, &o), -EINVAL);
	assert_int_equal(tp_tcp_opts_parse(zero_len, 2, &o), -EINVAL);
	assert_int_equal(tp_tcp_opts_parse(sack_odd, 6, &o), -EINVAL);
	assert_int_equal(tp_tcp_opts_parse(unknown_ok, 7, &o), 0); /* EOL ends them */
	assert_int_equal(tp_tcp_opts_parse(ws_big, 3, &o), 0);
	assert_int_equal(o.ws, 14); /* RFC 7323 2.3 */
	assert_true(tp_seq_lt(0xfffffff0u, 0x10));
	assert_true(tp_seq_gt(0x10, 0xfffffff0u));
}

/* Captured on loopback from Prometheus 2.42.0 (Debian 12) scraping, and curl 7.88.1. */
static const char prom_req[] =
    "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:19188\r\nUser-Agent: Prometheus/2.42.0+ds\r\n"
    "Accept: application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
    "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\n"
    "Accept-Encoding: gzip\r\nX-Prometheus-Scrape-Timeout-Seconds: 1\r\n\r\n";
static const char curl_req[] =
    "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:19188\r\nUser-Agent: curl/7.88.1\r\n"
    "Accept: */*\r\n\r\n";

static int req(const char *s, struct tp_http_req *q)
{
	return tp_http_req_parse((const uint8_t *)s, strlen(s), q);
}

static void test_requests_of_prometheus_and_curl(void **state)
{
	const char *reqs[] = {prom_req, curl_req};
	struct tp_http_req q;

	for (size_t i = 0; i < 2; i++) {
		size_t n = strlen(reqs[i]);
		/* every prefix is incomplete, the whole head is taken, nothing more */
		for (size_t k = 0; k < n; k++)
			assert_int_equal(tp_http_req_parse((const uint8_t *)reqs[i], k, &q), 0);
		memset(&q, 0, sizeof(q));
		assert_int_equal(req(reqs[i], &q), (int)n);
		assert_string_equal(q.method, "GET");
		assert_string_equal(q.path, "/metrics");
		assert_int_equal(q.minor, 1);
		assert_true(q.keep_alive);
		assert_false(q.has_body);
	}
	/* two pipelined: the first head's length, then the second */
	char two[1024];
	snprintf(two, sizeof(two), "%s%s", curl_req, prom_req);
	assert_int_equal(req(two, &q), (int)strlen(curl_req));
	assert_int_equal(req(two + strlen(curl_req), &q), (int)strlen(prom_req));
}

static void test_rfc9112_request_rules(void **state)
{
	struct tp_http_req q;

	/* 2.2: empty lines before the request line are skipped; a bare LF ends lines */
	assert_int_equal(req("\r\n\nGET /metrics HTTP/1.1\nHost: a\n\n", &q), 34);
	/* 3.2.2: absolute-form; the query is not part of the path */
	assert_int_equal(req("GET http://a:9/metrics?x=1 HTTP/1.1\r\nHost: a:9\r\n\r\n", &q), 50);
	assert_string_equal(q.path, "/metrics");
	assert_true(req("GET http://a HTTP/1.1\r\nHost: a\r\n\r\n", &q) > 0);
	assert_string_equal(q.path, "/");
	/* HTTP/1.0: closes unless it asks for keep-alive; no Host needed */
	assert_true(req("GET / HTTP/1.0\r\n\r\n", &q) > 0);
	assert_false(q.keep_alive);
	assert_true(req("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", &q) > 0);
	assert_true(q.keep_alive);
	assert_true(req("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", &q) > 0);
	assert_false(q.keep_alive);
	/* a body is announced (the server refuses it) */
	assert_true(req("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\n", &q) > 0);
	assert_true(q.has_body);
	assert_string_equal(q.method, "POST");
	assert_true(req("GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n", &q) > 0);
	assert_true(q.has_body);
	/* malformed request lines (3) */
	assert_int_equal(req("GET /metrics\r\n\r\n", &q), -TP_HTTP_E_REQUEST);
	assert_int_equal(req("GET  /metrics HTTP/1.1\r\nHost: a\r\n\r\n", &q), -TP_HTTP_E_REQUEST);
	assert_int_equal(req("G(T / HTTP/1.1\r\nHost: a\r\n\r\n", &q), -TP_HTTP_E_REQUEST);
	assert_int_equal(req("GET metrics HTTP/1.1\r\nHost: a\r\n\r\n", &q), -TP_HTTP_E_REQUEST);
	assert_int_equal(req("GET * HTTP/1.1\r\nHost: a\r\n\r\n", &q), -TP_HTTP_E_REQUEST);
	assert_int_equal(req("GET / HTTP/1.10\r\nHost: a\r\n\r\n", &q), -TP_HTTP_E_REQUEST);
	assert_int_equal(req("GET / http/1.1\r\nHost: a\r\n\r\n", &q), -TP_HTTP_E_REQUEST);
	assert_int_equal(req("GET /\x01 HTTP/1.1\r\nHost: a\r\n\r\n", &q), -TP_HTTP_E_REQUEST);
	assert_int_equal(req("AVERYLONGMETHODNAME / HTTP/1.1\r\nHost: a\r\n\r\n", &q),
			 -TP_HTTP_E_REQUEST);
	/* 2.6: another major version */
	assert_int_equal(req("GET / HTTP/2.0\r\nHost: a\r\n\r\n", &q), -TP_HTTP_E_VERSION);
	/* 3.2: HTTP/1.1 needs exactly one Host */
	assert_int_equal(req("GET / HTTP/1.1\r\n\r\n", &q), -TP_HTTP_E_HOST);
	assert_int_equal(req("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", &q), -TP_HTTP_E_HOST);
	/* 5.1, 5.2: whitespace before the colon, obs-fold, no colon */
	assert_int_equal(req("GET / HTTP/1.1\r\nHost : a\r\n\r\n", &q), -TP_HTTP_E_HEADER);
	assert_int_equal(req("GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", &q),
			 -TP_HTTP_E_HEADER);
	assert_int_equal(req("GET / HTTP/1.1\r\nHost a\r\n\r\n", &q), -TP_HTTP_E_HEADER);
	/* conflicting Content-Length (RFC 9112 6.3 item 5) */
	assert_int_equal(
	    req("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", &q),
	    -TP_HTTP_E_LENGTH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nginx_content_length),
	    cmocka_unit_test(test_nginx_chunked),
	    cmocka_unit_test(test_nginx_range),
	    cmocka_unit_test(test_nginx_redirect_and_404),
	    cmocka_unit_test(test_truncated_responses),
	    cmocka_unit_test(test_rfc9112_framing_rules),
	    cmocka_unit_test(test_rfc9110_content_range),
	    cmocka_unit_test(test_rfc3986_resolution),
	    cmocka_unit_test(test_url_and_request),
	    cmocka_unit_test(test_linux_segments),
	    cmocka_unit_test(test_tcp_write_cksum_matches_dpdk),
	    cmocka_unit_test(test_tcp_bad_options),
	    cmocka_unit_test(test_requests_of_prometheus_and_curl),
	    cmocka_unit_test(test_rfc9112_request_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
