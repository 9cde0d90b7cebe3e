/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target for what twinplane-fetch parses from the network: HTTP responses,
 * redirect locations, TCP headers and options, ARP; and the HTTP requests the metrics
 * server parses (a head is complete at no shorter prefix, and more bytes after it do
 * not change it). Properties: a response fed whole
 * and fed in pieces (split where the input's first byte says) gives the same events,
 * body bytes and error; the body never exceeds Content-Length; body spans point inside
 * the input; TCP options written by the codec parse back to themselves; the error is
 * one of the codec's. Built and run by scripts/fuzz.sh. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/http.h"
#include "proto/sha256.h"
#include "proto/tcp.h"

static void must(int cond)
{
	if (!cond)
		abort();
}

struct outcome {
	int err;
	bool headers, done;
	int status;
	uint64_t body;
	uint8_t digest[32];
};

static struct tp_http_resp resp;

/* Feed p[0, n) in pieces of at most step bytes, then EOF. */
static void run(const uint8_t *p, size_t n, size_t step, bool head, struct outcome *o)
{
	struct tp_sha256 sha;
	size_t off = 0;

	memset(o, 0, sizeof(*o));
	tp_sha256_init(&sha);
	tp_http_resp_init(&resp, head);
	while (!o->err) {
		size_t len = n - off < step ? n - off : step;
		const uint8_t *q = p + off;
		size_t left = len;
		for (;;) {
			enum tp_http_event ev;
			const uint8_t *b;
			size_t bl;
			int k = tp_http_resp_feed(&resp, q, left, &ev, &b, &bl);
			if (k < 0) {
				must(-k >= TP_HTTP_E_HDR_TOO_LONG && -k <= TP_HTTP_E_TRAILING);
				o->err = -k;
				break;
			}
			must((size_t)k <= left);
			q += k;
			left -= (size_t)k;
			if (ev == TP_HTTP_EV_NONE) {
				must(left == 0);
				break;
			}
			if (ev == TP_HTTP_EV_HEADERS) {
				o->headers = true;
				o->status = resp.status;
			} else if (ev == TP_HTTP_EV_BODY) {
				must(bl > 0 && b >= p + off && b + bl <= p + off + len);
				o->body += bl;
				tp_sha256_update(&sha, b, bl);
				if (resp.framing == TP_HTTP_LENGTH)
					must(o->body <= resp.content_length);
			} else if (ev == TP_HTTP_EV_DONE) {
				o->done = true;
			}
		}
		off += len;
		if (off == n)
			break;
	}
	if (!o->err) {
		int r = tp_http_resp_eof(&resp);
		if (r < 0)
			o->err = -r;
		else if (r == 1)
			o->done = true;
	}
	if (o->done && resp.framing == TP_HTTP_LENGTH)
		must(o->body == resp.content_length);
	tp_sha256_final(&sha, o->digest);
}

static void fuzz_http(const uint8_t *p, size_t n)
{
	struct outcome whole, pieces;

	if (n < 1)
		return;
	size_t step = (size_t)p[0] % 17 + 1;
	bool head = p[0] & 0x80;
	run(p + 1, n - 1, n, head, &whole);
	run(p + 1, n - 1, step, head, &pieces);
	/* trailing bytes after DONE fail at once whole, and in pieces at the next feed */
	if (whole.err == TP_HTTP_E_TRAILING || pieces.err == TP_HTTP_E_TRAILING)
		return;
	must(whole.err == pieces.err);
	must(whole.headers == pieces.headers && whole.status == pieces.status);
	must(whole.done == pieces.done && whole.body == pieces.body);
	must(memcmp(whole.digest, pieces.digest, 32) == 0);
}

static void fuzz_url(const uint8_t *p, size_t n)
{
	static char s[TP_HTTP_PATH_MAX + 512], fmt[TP_HTTP_PATH_MAX + 512];
	struct tp_url base, u, back;
	char err[128];

	if (n >= sizeof(s))
		n = sizeof(s) - 1;
	memcpy(s, p, n);
	s[n] = '\0';
	if (tp_url_parse("http://10.0.0.1:8080/a/b/c?q", &base, err, sizeof(err)) < 0)
		abort();
	if (tp_url_resolve(&base, s, &u, err, sizeof(err)) == 0) {
		/* a resolved URL prints and parses back to itself */
		must(tp_url_fmt(&u, fmt, sizeof(fmt)) > 0);
		must(tp_url_parse(fmt, &back, err, sizeof(err)) == 0);
		must(back.ip == u.ip && back.port == u.port && strcmp(back.path, u.path) == 0);
		char req[TP_HTTP_PATH_MAX + 1024];
		must(tp_http_get(req, sizeof(req), &u, 0, TP_HTTP_NO_RANGE, "fuzz") > 0);
	}
}

static void fuzz_tcp(const uint8_t *p, size_t n)
{
	struct tp_tcp_hdr h;
	struct tp_tcp_opts o, back;
	struct tp_arp a;
	uint8_t buf[60];

	enum tp_tcp_verdict v = tp_tcp_parse(p, n, &h, &o);
	must(v <= TP_TCP_BAD_OPTIONS);
	if (v == TP_TCP_OK) {
		must(h.hlen >= 20 && h.hlen <= n);
		(void)tp_tcp_cksum_ok(p, n, 0x0100000a, 0x0200000a);
		/* what we would answer with: the options written parse back */
		uint32_t blocks[4][2];
		unsigned int nb = o.nsack;
		memcpy(blocks, o.sack, sizeof(blocks));
		size_t ol = tp_tcp_opts_data(buf, o.has_ts, o.tsval, o.tsecr,
					     (const uint32_t(*)[2])blocks, nb);
		must(ol <= 40 && ol % 4 == 0);
		must(tp_tcp_opts_parse(buf, ol, &back) == 0);
		must(back.has_ts == o.has_ts &&
		     (!o.has_ts || (back.tsval == o.tsval && back.tsecr == o.tsecr)));
		unsigned int want = nb > (o.has_ts ? 3u : 4u) ? (o.has_ts ? 3u : 4u) : nb;
		must(back.nsack == want);
		for (unsigned int i = 0; i < want; i++)
			must(back.sack[i][0] == o.sack[i][0] && back.sack[i][1] == o.sack[i][1]);
		ol = tp_tcp_opts_syn(buf, o.mss, o.has_ws ? o.ws : -1, o.sack_perm, o.has_ts,
				     o.tsval, o.tsecr);
		must(ol <= 40 && ol % 4 == 0 && tp_tcp_opts_parse(buf, ol, &back) == 0);
		must(back.has_mss && back.mss == o.mss && back.has_ws == o.has_ws &&
		     back.sack_perm == o.sack_perm && back.has_ts == o.has_ts);
	}
	if (tp_arp_parse(p, n, &a) == 0) {
		uint8_t w[TP_ARP_LEN];
		tp_arp_write(w, &a);
		must(memcmp(w, p, TP_ARP_LEN) == 0);
	}
}

/* The server side: tp_http_req_parse. */
static void fuzz_req(const uint8_t *p, size_t n)
{
	struct tp_http_req a, b;
	int r = tp_http_req_parse(p, n, &a);

	if (r < 0) {
		must(-r >= TP_HTTP_E_HDR_TOO_LONG && -r <= TP_HTTP_E_HOST);
		return;
	}
	must((size_t)r <= n);
	if (r == 0)
		return;
	/* the head: a method of tchars, a path from '/', both terminated */
	must(a.method[0] != '\0' && memchr(a.method, '\0', sizeof(a.method)) != NULL);
	must(a.path[0] == '/' && memchr(a.path, '\0', sizeof(a.path)) != NULL);
	must(a.minor >= 0 && a.minor <= 9);
	/* it was not complete one byte earlier */
	must(tp_http_req_parse(p, (size_t)r - 1, &b) == 0);
	/* the bytes after it (a body, the next request) change nothing */
	must(tp_http_req_parse(p, (size_t)r, &b) == r);
	must(strcmp(a.method, b.method) == 0 && strcmp(a.path, b.path) == 0);
	must(a.keep_alive == b.keep_alive && a.has_body == b.has_body && a.minor == b.minor);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	/* the first byte picks the parser */
	switch (data[0] % 4) {
	case 0:
		fuzz_http(data + 1, size - 1);
		break;
	case 1:
		fuzz_url(data + 1, size - 1);
		break;
	case 3:
		fuzz_req(data + 1, size - 1);
		break;
	default:
		fuzz_tcp(data + 1, size - 1);
		break;
	}
	return 0;
}
