/* SPDX-License-Identifier: BSD-3-Clause */
/* HTTP/1.1 client codec: URLs, requests, the incremental response parser. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "http.h"
#include "ip4.h"

/* --- URLs ------------------------------------------------------------------ */

static void set_err(char *err, size_t errlen, const char *msg)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", msg);
}

int tp_url_parse(const char *s, struct tp_url *u, char *err, size_t errlen)
{
	const char *h, *p;
	size_t hl;

	memset(u, 0, sizeof(*u));
	if (strncasecmp(s, "https://", 8) == 0) {
		set_err(err, errlen, "https is not supported (plain http:// only)");
		return -EINVAL;
	}
	if (strncasecmp(s, "http://", 7) != 0) {
		set_err(err, errlen, "not an http:// URL");
		return -EINVAL;
	}
	for (p = s; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f) {
			set_err(err, errlen, "URL has a space or control character");
			return -EINVAL;
		}
	h = s + 7;
	hl = strcspn(h, "/?#");
	if (memchr(h, '@', hl)) {
		set_err(err, errlen, "user information in URLs is not supported");
		return -EINVAL;
	}
	if (hl && h[0] == '[') {
		set_err(err, errlen, "IPv6 addresses are not supported");
		return -EINVAL;
	}
	const char *colon = memchr(h, ':', hl);
	size_t namel = colon ? (size_t)(colon - h) : hl;
	if (namel == 0 || namel >= sizeof(u->host)) {
		set_err(err, errlen, namel ? "host too long" : "URL has no host");
		return -EINVAL;
	}
	memcpy(u->host, h, namel);
	u->host[namel] = '\0';
	if (tp_ip4_parse_addr(u->host, &u->ip) < 0) {
		set_err(err, errlen,
			"host is not an IPv4 address (the downloader has no DNS resolver)");
		return -EINVAL;
	}
	u->port = 80;
	if (colon) {
		unsigned long port = 0;
		const char *q = colon + 1;
		if (q == h + hl) {
			/* "http://h:/": an empty port is the default (RFC 3986 3.2.3) */
		} else {
			for (; q < h + hl; q++) {
				if (!isdigit((unsigned char)*q) || port > 65535) {
					set_err(err, errlen, "bad port in URL");
					return -EINVAL;
				}
				port = port * 10 + (unsigned long)(*q - '0');
			}
			if (port == 0 || port > 65535) {
				set_err(err, errlen, "bad port in URL");
				return -EINVAL;
			}
			u->port = (uint16_t)port;
			u->port_given = true;
		}
	}
	p = h + hl;
	size_t pl = strcspn(p, "#"); /* the fragment is not sent (RFC 9110 4.2.4) */
	size_t need = pl + (p[0] != '/' ? 1 : 0);
	if (need >= sizeof(u->path)) {
		set_err(err, errlen, "path too long");
		return -EINVAL;
	}
	if (p[0] != '/')
		u->path[0] = '/';
	memcpy(u->path + (p[0] != '/'), p, pl);
	u->path[need] = '\0';
	return 0;
}

int tp_url_fmt(const struct tp_url *u, char *buf, size_t len)
{
	int n;

	if (u->port != 80)
		n = snprintf(buf, len, "http://%s:%u%s", u->host, u->port, u->path);
	else
		n = snprintf(buf, len, "http://%s%s", u->host, u->path);
	return n < 0 || (size_t)n >= len ? -ENOSPC : n;
}

/* RFC 3986 5.2.4: remove "." and ".." segments from the path in place (the query, from
 * the first '?', is left alone). */
static void remove_dot_segments(char *path)
{
	char *q = strchr(path, '?');
	char tail[TP_HTTP_PATH_MAX];
	char out[TP_HTTP_PATH_MAX];
	size_t o = 0;
	char *in = path;

	snprintf(tail, sizeof(tail), "%s", q ? q : "");
	if (q)
		*q = '\0';
	while (*in) {
		if (strncmp(in, "../", 3) == 0) {
			in += 3; /* A */
		} else if (strncmp(in, "./", 2) == 0) {
			in += 2;
		} else if (strncmp(in, "/./", 3) == 0) {
			in += 2; /* B */
		} else if (strcmp(in, "/.") == 0) {
			in[1] = '\0';
		} else if (strncmp(in, "/../", 4) == 0 || strcmp(in, "/..") == 0) {
			/* C: drop the last output segment */
			if (in[3] == '\0')
				in[2] = '/', in += 2;
			else
				in += 3;
			while (o > 0 && out[--o] != '/')
				;
		} else if (strcmp(in, ".") == 0 || strcmp(in, "..") == 0) {
			break; /* D */
		} else {
			/* E: the first segment of the input, with its leading '/' */
			size_t k = in[0] == '/' ? 1 : 0;
			k += strcspn(in + k, "/");
			if (o + k < sizeof(out)) {
				memcpy(out + o, in, k);
				o += k;
			}
			in += k;
		}
	}
	size_t tl = strlen(tail);
	if (o + tl >= TP_HTTP_PATH_MAX)
		tl = TP_HTTP_PATH_MAX - 1 - o;
	memcpy(path, out, o);
	memcpy(path + o, tail, tl);
	path[o + tl] = '\0';
}

int tp_url_resolve(const struct tp_url *base, const char *loc, struct tp_url *out, char *err,
		   size_t errlen)
{
	char buf[TP_HTTP_HOST_MAX + TP_HTTP_PATH_MAX + 32], path[TP_HTTP_PATH_MAX];
	char hp[TP_HTTP_HOST_MAX + 8];
	int n;

	if (strncasecmp(loc, "http://", 7) == 0 || strncasecmp(loc, "https://", 8) == 0)
		return tp_url_parse(loc, out, err, errlen);
	if (strchr(loc, ':') && strcspn(loc, ":") < strcspn(loc, "/?#")) {
		set_err(err, errlen, "redirect to a scheme other than http");
		return -EINVAL;
	}
	if (loc[0] == '/' && loc[1] == '/') {
		n = snprintf(buf, sizeof(buf), "http:%s", loc);
		if (n < 0 || (size_t)n >= sizeof(buf)) {
			set_err(err, errlen, "redirect location too long");
			return -EINVAL;
		}
		return tp_url_parse(buf, out, err, errlen);
	}
	/* RFC 3986 5.2.2 and 5.2.3, the fragment dropped (not sent) */
	size_t ll = strcspn(loc, "#");
	size_t bpath = strcspn(base->path, "?");
	if (ll == 0) {
		n = snprintf(path, sizeof(path), "%s", base->path);
	} else if (loc[0] == '?') {
		n = snprintf(path, sizeof(path), "%.*s%.*s", (int)bpath, base->path, (int)ll, loc);
	} else if (loc[0] == '/') {
		n = snprintf(path, sizeof(path), "%.*s", (int)ll, loc);
	} else {
		size_t dir = bpath;
		while (dir > 0 && base->path[dir - 1] != '/')
			dir--;
		n = snprintf(path, sizeof(path), "%.*s%.*s", (int)dir, base->path, (int)ll, loc);
	}
	if (n < 0 || (size_t)n >= sizeof(path)) {
		set_err(err, errlen, "redirect location too long");
		return -EINVAL;
	}
	remove_dot_segments(path);
	if (base->port != 80)
		snprintf(hp, sizeof(hp), "%s:%u", base->host, base->port);
	else
		snprintf(hp, sizeof(hp), "%s", base->host);
	n = snprintf(buf, sizeof(buf), "http://%s%s%s", hp, path[0] == '/' ? "" : "/", path);
	if (n < 0 || (size_t)n >= sizeof(buf)) {
		set_err(err, errlen, "redirect location too long");
		return -EINVAL;
	}
	return tp_url_parse(buf, out, err, errlen);
}

int tp_http_get(char *buf, size_t len, const struct tp_url *u, uint64_t from, uint64_t to,
		const char *user_agent)
{
	char host[TP_HTTP_HOST_MAX + 8], range[80] = "";
	int n;

	/* RFC 9110 7.2: the port is left out when it is the scheme's default */
	if (u->port != 80)
		snprintf(host, sizeof(host), "%s:%u", u->host, u->port);
	else
		snprintf(host, sizeof(host), "%s", u->host);
	if (from != TP_HTTP_NO_RANGE) {
		/* RFC 9110 14.1.2: an int-range, open-ended or not */
		if (to != TP_HTTP_NO_RANGE)
			snprintf(range, sizeof(range), "Range: bytes=%" PRIu64 "-%" PRIu64 "\r\n",
				 from, to);
		else
			snprintf(range, sizeof(range), "Range: bytes=%" PRIu64 "-\r\n", from);
	}
	n = snprintf(buf, len,
		     "GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: %s\r\nAccept: */*\r\n%s\r\n",
		     u->path, host, user_agent, range);
	return n < 0 || (size_t)n >= len ? -ENOSPC : n;
}

/* --- the response parser ---------------------------------------------------- */

enum {
	S_HDR = 0,
	S_BODY_LEN,
	S_BODY_CLOSE,
	S_CHUNK_SIZE,
	S_CHUNK_DATA,
	S_CHUNK_CR,
	S_CHUNK_LF,
	S_TRAILER,
	S_DONE,
	S_DONE_SAID,
};

void tp_http_resp_init(struct tp_http_resp *r, bool head)
{
	/* the header buffer needs no clearing */
	memset(r, 0, offsetof(struct tp_http_resp, hdr));
	r->head = head;
	r->state = S_HDR;
}

bool tp_http_resp_done(const struct tp_http_resp *r)
{
	return r->state == S_DONE || r->state == S_DONE_SAID;
}

const char *tp_http_strerror(int err)
{
	switch (err < 0 ? -err : err) {
	case TP_HTTP_E_OK:
		return "no error";
	case TP_HTTP_E_HDR_TOO_LONG:
		return "response header section too long";
	case TP_HTTP_E_STATUS:
		return "malformed status line";
	case TP_HTTP_E_HEADER:
		return "malformed header field";
	case TP_HTTP_E_LENGTH:
		return "bad or conflicting Content-Length";
	case TP_HTTP_E_CHUNK:
		return "malformed chunked transfer coding";
	case TP_HTTP_E_CONTENT_RANGE:
		return "bad Content-Range";
	case TP_HTTP_E_NO_RESPONSE:
		return "connection closed before a complete response header";
	case TP_HTTP_E_SHORT_BODY:
		return "connection closed before the end of the body (short body)";
	case TP_HTTP_E_TRAILING:
		return "unexpected bytes after the response";
	case TP_HTTP_E_REQUEST:
		return "malformed request line";
	case TP_HTTP_E_VERSION:
		return "HTTP version not supported";
	case TP_HTTP_E_HOST:
		return "an HTTP/1.1 request needs exactly one Host field";
	}
	return "unknown HTTP error";
}

static int fail(struct tp_http_resp *r, int e)
{
	r->err = e;
	return -e;
}

/* Trim optional whitespace (SP, HTAB) around [*b, *e). */
static void trim_ows(const char **b, const char **e)
{
	while (*b < *e && (**b == ' ' || **b == '\t'))
		(*b)++;
	while (*e > *b && ((*e)[-1] == ' ' || (*e)[-1] == '\t'))
		(*e)--;
}

/* A decimal number of [b, e) (1*DIGIT, at most 2^62). 0 or -1. */
static int parse_dec(const char *b, const char *e, uint64_t *v)
{
	uint64_t x = 0;

	if (b == e)
		return -1;
	for (; b < e; b++) {
		if (*b < '0' || *b > '9' || x > (UINT64_C(1) << 62) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*b - '0');
	}
	*v = x;
	return 0;
}

/* Does the comma-separated list [b, e) contain token tok (case-insensitive)? Sets *last
 * to whether it was the list's last element. */
static bool list_has(const char *b, const char *e, const char *tok, bool *last)
{
	size_t tl = strlen(tok);
	bool found = false;

	if (last)
		*last = false;
	while (b < e) {
		const char *c = memchr(b, ',', (size_t)(e - b));
		const char *ie = c ? c : e, *ib = b;
		trim_ows(&ib, &ie);
		bool is = (size_t)(ie - ib) == tl && strncasecmp(ib, tok, tl) == 0;
		found |= is;
		if (last && ie > ib)
			*last = is;
		b = c ? c + 1 : e;
	}
	return found;
}

/* "bytes FIRST-LAST/TOTAL", or with an asterisk for TOTAL (RFC 9110 14.4). */
static int parse_content_range(struct tp_http_resp *r, const char *b, const char *e)
{
	const char *dash, *slash;

	if (e - b < 6 || strncasecmp(b, "bytes ", 6) != 0)
		return -1;
	b += 6;
	if (e - b >= 3 && b[0] == '*' && b[1] == '/') {
		/* unsatisfied-range, in a 416 */
		if (parse_dec(b + 2, e, &r->range_total) < 0)
			return -1;
		r->range_unsat = true;
		return 0;
	}
	dash = memchr(b, '-', (size_t)(e - b));
	slash = memchr(b, '/', (size_t)(e - b));
	if (!dash || !slash || slash < dash)
		return -1;
	if (parse_dec(b, dash, &r->range_first) < 0 ||
	    parse_dec(dash + 1, slash, &r->range_last) < 0)
		return -1;
	if (r->range_last < r->range_first)
		return -1;
	if (slash + 1 == e - 1 && slash[1] == '*')
		r->range_total = UINT64_MAX;
	else if (parse_dec(slash + 1, e, &r->range_total) < 0 || r->range_total <= r->range_last)
		return -1;
	r->has_range = true;
	return 0;
}

/* The field line at *pp (RFC 9112 5): its name [line, line + *nl) (*pp on entry), its
 * value [*vb, *ve) without the whitespace around it; *pp moves past the line. 1 for a
 * field line, 0 for the empty line that ends the section, -1 for a malformed line. The
 * section [*pp, end) ends with a line feed. */
static int field_line(const char **pp, const char *end, size_t *nl, const char **vb,
		      const char **ve)
{
	const char *p = *pp, *le = memchr(p, '\n', (size_t)(end - p));
	const char *fe = le, *colon;

	if (le == NULL)
		return 0;
	*pp = le + 1;
	if (fe > p && fe[-1] == '\r')
		fe--;
	if (fe == p)
		return 0; /* the empty line */
	/* obs-fold (RFC 9112 5.2): refused, as a field line must start with a name */
	if (*p == ' ' || *p == '\t')
		return -1;
	colon = memchr(p, ':', (size_t)(fe - p));
	if (colon == NULL || colon == p)
		return -1;
	for (const char *q = p; q < colon; q++)
		if (*q <= ' ' || *q == 0x7f) /* no whitespace before the colon (5.1) */
			return -1;
	*nl = (size_t)(colon - p);
	*vb = colon + 1;
	*ve = fe;
	trim_ows(vb, ve);
	return 1;
}

/* The header section hdr[0, hlen) is complete: read the status line and the fields. */
static int parse_header_section(struct tp_http_resp *r)
{
	const char *p = (const char *)r->hdr, *end = p + r->hlen;
	const char *le = memchr(p, '\n', (size_t)(end - p));
	bool have_cl = false, te = false, te_chunked = false, conn_close = false, conn_ka = false;
	uint64_t cl = 0;
	const char *range_b = NULL, *range_e = NULL;

	/* status-line = HTTP-version SP status-code SP [ reason-phrase ] (RFC 9112 4) */
	const char *se = le;
	if (se > p && se[-1] == '\r')
		se--;
	if (se - p < 12 || memcmp(p, "HTTP/1.", 7) != 0 || !isdigit((unsigned char)p[7]) ||
	    p[8] != ' ' || !isdigit((unsigned char)p[9]) || !isdigit((unsigned char)p[10]) ||
	    !isdigit((unsigned char)p[11]) || (se - p > 12 && p[12] != ' '))
		return fail(r, TP_HTTP_E_STATUS);
	r->minor = p[7] - '0';
	r->status = (p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0');
	if (r->status < 100)
		return fail(r, TP_HTTP_E_STATUS);
	if (se - p > 13)
		snprintf(r->reason, sizeof(r->reason), "%.*s", (int)(se - p - 13), p + 13);
	else
		r->reason[0] = '\0';
	r->location[0] = '\0';
	r->has_range = r->range_unsat = false;

	for (p = le + 1;;) {
		size_t nl;
		const char *nb = p, *vb, *ve;
		int k = field_line(&p, end, &nl, &vb, &ve);
		if (k < 0)
			return fail(r, TP_HTTP_E_HEADER);
		if (k == 0)
			break;
#define IS(name) (nl == sizeof(name) - 1 && strncasecmp(nb, name, nl) == 0)
		if (IS("content-length")) {
			/* RFC 9110 8.6: a list of identical values is one value */
			for (const char *b = vb; b < ve;) {
				const char *c = memchr(b, ',', (size_t)(ve - b));
				const char *ie = c ? c : ve, *ib = b;
				uint64_t v;
				trim_ows(&ib, &ie);
				if (parse_dec(ib, ie, &v) < 0 || (have_cl && v != cl))
					return fail(r, TP_HTTP_E_LENGTH);
				have_cl = true;
				cl = v;
				b = c ? c + 1 : ve;
			}
			if (!have_cl)
				return fail(r, TP_HTTP_E_LENGTH);
		} else if (IS("transfer-encoding")) {
			bool last;
			te = true;
			list_has(vb, ve, "chunked", &last);
			te_chunked = last; /* chunked must be the final coding (RFC 9112 6.1) */
		} else if (IS("connection")) {
			conn_close |= list_has(vb, ve, "close", NULL);
			conn_ka |= list_has(vb, ve, "keep-alive", NULL);
		} else if (IS("location")) {
			if ((size_t)(ve - vb) >= sizeof(r->location))
				return fail(r, TP_HTTP_E_HEADER);
			memcpy(r->location, vb, (size_t)(ve - vb));
			r->location[ve - vb] = '\0';
		} else if (IS("content-range")) {
			range_b = vb;
			range_e = ve;
		}
#undef IS
	}
	r->keep_alive = r->minor >= 1 ? !conn_close : conn_ka && !conn_close;
	if (range_b && parse_content_range(r, range_b, range_e) < 0 && r->status == 206)
		return fail(r, TP_HTTP_E_CONTENT_RANGE);
	/* we ask for one range at most: a 206 must say which (RFC 9110 15.3.7.1) */
	if (r->status == 206 && !r->has_range)
		return fail(r, TP_HTTP_E_CONTENT_RANGE);

	/* message body length, RFC 9112 6.3 */
	if (r->head || r->status < 200 || r->status == 204 || r->status == 304) {
		r->framing = TP_HTTP_NONE;
	} else if (te) {
		/* Transfer-Encoding overrides Content-Length (item 3); not chunked last:
		 * the body runs until the connection closes (item 4, response) */
		r->framing = te_chunked ? TP_HTTP_CHUNKED : TP_HTTP_CLOSE;
		r->keep_alive &= te_chunked;
	} else if (have_cl) {
		r->framing = TP_HTTP_LENGTH;
		r->content_length = cl;
	} else {
		r->framing = TP_HTTP_CLOSE;
		r->keep_alive = false;
	}
	return 0;
}

/* Take header bytes; returns bytes consumed, sets *complete when the section ended. */
static int take_header(struct tp_http_resp *r, const uint8_t *p, size_t n, bool *complete)
{
	size_t i;

	*complete = false;
	for (i = 0; i < n; i++) {
		if (r->hlen >= sizeof(r->hdr))
			return fail(r, TP_HTTP_E_HDR_TOO_LONG);
		uint8_t c = p[i];
		r->hdr[r->hlen++] = c;
		if (c != '\n') {
			if (c != '\r')
				r->line++;
			continue;
		}
		/* a line ended: an empty one (CRLF or a bare LF, RFC 9112 2.2) ends the
		 * section; empty lines before the status line are ignored (2.2) */
		if (r->line == 0) {
			if (r->hlen == 1 || (r->hlen == 2 && r->hdr[0] == '\r')) {
				r->hlen = 0;
				continue;
			}
			*complete = true;
			r->line = 0;
			return (int)(i + 1);
		}
		r->line = 0;
	}
	return (int)i;
}

int tp_http_resp_feed(struct tp_http_resp *r, const uint8_t *p, size_t n, enum tp_http_event *ev,
		      const uint8_t **body, size_t *body_len)
{
	size_t i = 0, take;
	int k;

	*ev = TP_HTTP_EV_NONE;
	if (r->err)
		return -r->err;
	while (i < n || r->state == S_DONE) {
		switch (r->state) {
		case S_HDR: {
			bool complete;
			k = take_header(r, p + i, n - i, &complete);
			if (k < 0)
				return k;
			i += (size_t)k;
			if (!complete)
				break;
			k = parse_header_section(r);
			if (k < 0)
				return k;
			r->hlen = 0;
			if (r->status < 200 && !r->head) {
				/* 1xx: an interim response; the final one follows (RFC 9110 15.2)
				 */
				continue;
			}
			switch (r->framing) {
			case TP_HTTP_NONE:
				r->state = S_DONE;
				break;
			case TP_HTTP_LENGTH:
				r->left = r->content_length;
				r->state = r->left ? S_BODY_LEN : S_DONE;
				break;
			case TP_HTTP_CHUNKED:
				r->state = S_CHUNK_SIZE;
				r->left = r->line = r->ndigits = 0;
				r->ext = false;
				break;
			case TP_HTTP_CLOSE:
				r->state = S_BODY_CLOSE;
				break;
			}
			*ev = TP_HTTP_EV_HEADERS;
			return (int)i;
		}
		case S_BODY_LEN:
			take = n - i < r->left ? n - i : (size_t)r->left;
			r->left -= take;
			if (r->left == 0)
				r->state = S_DONE;
			goto body;
		case S_BODY_CLOSE:
			take = n - i;
			goto body;
		case S_CHUNK_DATA:
			take = n - i < r->left ? n - i : (size_t)r->left;
			r->left -= take;
			if (r->left == 0)
				r->state = S_CHUNK_CR;
			goto body;
		case S_CHUNK_SIZE: {
			/* chunk-size [ chunk-ext ] CRLF (RFC 9112 7.1, 7.1.1) */
			uint8_t c = p[i++];
			if (++r->line > TP_HTTP_CHUNK_LINE_MAX)
				return fail(r, TP_HTTP_E_CHUNK);
			if (c == '\n') {
				if (r->ndigits == 0)
					return fail(r, TP_HTTP_E_CHUNK);
				r->state = r->left ? S_CHUNK_DATA : S_TRAILER;
				r->line = 0;
				break;
			}
			if (r->ext || c == '\r')
				break; /* extensions are ignored; a CR may precede the LF */
			int d = isdigit(c)		 ? c - '0'
				: (c >= 'a' && c <= 'f') ? c - 'a' + 10
				: (c >= 'A' && c <= 'F') ? c - 'A' + 10
							 : -1;
			if (d >= 0 && r->ndigits < 15) {
				r->left = r->left * 16 + (uint64_t)d;
				r->ndigits++;
			} else if ((c == ';' || c == ' ' || c == '\t') && r->ndigits) {
				r->ext = true;
			} else {
				return fail(r, TP_HTTP_E_CHUNK);
			}
			break;
		}
		case S_CHUNK_CR:
			if (p[i] == '\r') {
				r->state = S_CHUNK_LF;
			} else if (p[i] == '\n') {
				r->state = S_CHUNK_SIZE;
				r->left = r->line = r->ndigits = 0;
				r->ext = false;
			} else {
				return fail(r, TP_HTTP_E_CHUNK);
			}
			i++;
			break;
		case S_CHUNK_LF:
			if (p[i++] != '\n')
				return fail(r, TP_HTTP_E_CHUNK);
			r->state = S_CHUNK_SIZE;
			r->left = r->line = r->ndigits = 0;
			r->ext = false;
			break;
		case S_TRAILER: {
			/* trailer-section CRLF: field lines, ignored, up to an empty line */
			uint8_t c = p[i++];
			if (c == '\n') {
				if (r->line == 0)
					r->state = S_DONE;
				r->line = 0;
			} else if (c != '\r' && ++r->line > TP_HTTP_CHUNK_LINE_MAX) {
				return fail(r, TP_HTTP_E_CHUNK);
			}
			break;
		}
		case S_DONE:
			r->state = S_DONE_SAID;
			*ev = TP_HTTP_EV_DONE;
			return (int)i;
		case S_DONE_SAID:
			return fail(r, TP_HTTP_E_TRAILING);
		}
		continue;
	body:
		if (take == 0)
			continue;
		*body = p + i;
		*body_len = take;
		r->body_bytes += take;
		*ev = TP_HTTP_EV_BODY;
		return (int)(i + take);
	}
	return (int)i;
}

int tp_http_resp_eof(struct tp_http_resp *r)
{
	if (r->err)
		return -r->err;
	switch (r->state) {
	case S_HDR:
		return fail(r, TP_HTTP_E_NO_RESPONSE);
	case S_BODY_CLOSE:
		r->state = S_DONE_SAID;
		return 1;
	case S_DONE:
	case S_DONE_SAID:
		return 0;
	default:
		return fail(r, TP_HTTP_E_SHORT_BODY);
	}
}

/* --- the request-head parser (servers) ------------------------------------------ */

/* tchar (RFC 9110 5.6.2) */
static bool is_tchar(char c)
{
	return isalnum((unsigned char)c) || (c && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

int tp_http_req_parse(const uint8_t *in, size_t n, struct tp_http_req *req)
{
	const char *p = (const char *)in, *end = p + n, *le, *sp1, *sp2, *t, *te;
	bool conn_close = false, conn_ka = false, have_cl = false;
	unsigned int hosts = 0;
	struct tp_http_req r = {0};
	uint64_t cl = 0;
	size_t ml;

	/* RFC 9112 2.2: empty lines before the request line are ignored */
	while (p < end && (*p == '\n' || (*p == '\r' && p + 1 < end && p[1] == '\n')))
		p += *p == '\n' ? 1 : 2;
	/* complete once an empty line follows the request line: LF (CR) LF */
	for (le = p; (le = memchr(le, '\n', (size_t)(end - le))) != NULL; le++) {
		const char *q = le + 1;
		if (q < end && *q == '\r')
			q++;
		if (q < end && *q == '\n') {
			end = q + 1;
			break;
		}
		if (q >= end)
			return 0;
	}
	if (le == NULL)
		return 0;

	/* request-line = method SP request-target SP HTTP-version (RFC 9112 3) */
	le = memchr(p, '\n', (size_t)(end - p));
	te = le > p && le[-1] == '\r' ? le - 1 : le;
	sp1 = memchr(p, ' ', (size_t)(te - p));
	sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(te - sp1 - 1)) : NULL;
	if (sp1 == NULL || sp2 == NULL || sp1 == p || sp2 == sp1 + 1)
		return -TP_HTTP_E_REQUEST;
	ml = (size_t)(sp1 - p);
	if (ml >= sizeof(r.method))
		return -TP_HTTP_E_REQUEST;
	for (const char *q = p; q < sp1; q++)
		if (!is_tchar(*q))
			return -TP_HTTP_E_REQUEST;
	memcpy(r.method, p, ml);
	/* HTTP-version = "HTTP/" DIGIT "." DIGIT (RFC 9112 2.3) */
	if (te - sp2 != 9 || memcmp(sp2 + 1, "HTTP/", 5) != 0 || !isdigit((unsigned char)sp2[6]) ||
	    sp2[7] != '.' || !isdigit((unsigned char)sp2[8]))
		return -TP_HTTP_E_REQUEST;
	if (sp2[6] != '1')
		return -TP_HTTP_E_VERSION;
	r.minor = sp2[8] - '0';
	/* request-target: origin-form, or absolute-form which a server must accept too
	 * (RFC 9112 3.2.1, 3.2.2); no whitespace or control characters in it */
	t = sp1 + 1;
	for (const char *q = t; q < sp2; q++)
		if ((unsigned char)*q <= ' ' || *q == 0x7f)
			return -TP_HTTP_E_REQUEST;
	if (sp2 - t > 7 && strncasecmp(t, "http://", 7) == 0) {
		t = memchr(t + 7, '/', (size_t)(sp2 - t - 7));
		if (t == NULL)
			t = sp2; /* an empty path is "/" (RFC 9112 3.2.2) */
	} else if (*t != '/') {
		return -TP_HTTP_E_REQUEST; /* authority-form, asterisk-form: not for us */
	}
	const char *pe = t;
	while (pe < sp2 && *pe != '?' && *pe != '#')
		pe++;
	if (pe - t >= (ptrdiff_t)sizeof(r.path))
		return -TP_HTTP_E_REQUEST;
	if (pe == t)
		r.path[0] = '/';
	else
		memcpy(r.path, t, (size_t)(pe - t));

	for (p = le + 1;;) {
		size_t nl;
		const char *nb = p, *vb, *ve;
		int k = field_line(&p, end, &nl, &vb, &ve);
		if (k < 0)
			return -TP_HTTP_E_HEADER;
		if (k == 0)
			break;
#define IS(name) (nl == sizeof(name) - 1 && strncasecmp(nb, name, nl) == 0)
		if (IS("host")) {
			hosts++;
		} else if (IS("connection")) {
			conn_close |= list_has(vb, ve, "close", NULL);
			conn_ka |= list_has(vb, ve, "keep-alive", NULL);
		} else if (IS("content-length")) {
			uint64_t v;
			if (parse_dec(vb, ve, &v) < 0 || (have_cl && v != cl))
				return -TP_HTTP_E_LENGTH;
			have_cl = true;
			cl = v;
		} else if (IS("transfer-encoding")) {
			r.has_body = true;
		}
#undef IS
	}
	/* RFC 9112 3.2: a 1.1 request without a Host field, or with more than one, is a
	 * 400 */
	if (r.minor >= 1 && hosts != 1)
		return -TP_HTTP_E_HOST;
	r.has_body |= cl > 0;
	r.keep_alive = r.minor >= 1 ? !conn_close : conn_ka && !conn_close;
	*req = r;
	return (int)(end - (const char *)in);
}
