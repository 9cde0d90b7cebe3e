/* SPDX-License-Identifier: BSD-3-Clause */
/* HTTP/1.1 codec (RFC 9110, RFC 9112): URLs, GET requests and an incremental response
 * parser (status line, headers, Content-Length, chunked) for clients, a request-head
 * parser for servers; on plain buffers, no allocation. The body comes out as spans of
 * the input: nothing is copied. */
#ifndef TP_PROTO_HTTP_H
#define TP_PROTO_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TP_HTTP_HOST_MAX 256
#define TP_HTTP_PATH_MAX 2048
#define TP_HTTP_HDR_MAX 16384 /* status line and header section together */
#define TP_HTTP_LOCATION_MAX 2048
#define TP_HTTP_CHUNK_LINE_MAX 4096 /* chunk-size line with its extensions, trailer lines */
#define TP_HTTP_NO_RANGE UINT64_MAX

/* An http:// URL whose host is an IPv4 address (RFC 9110 4.2.1). */
struct tp_url {
	char host[TP_HTTP_HOST_MAX]; /* as written, for the Host header */
	uint32_t ip;		     /* host order */
	uint16_t port;		     /* 80 unless given */
	bool port_given;
	char path[TP_HTTP_PATH_MAX]; /* origin-form: "/" at least, query kept */
};

/* Parse s into u. 0, or -EINVAL with the reason in err. */
int tp_url_parse(const char *s, struct tp_url *u, char *err, size_t errlen);
/* Resolve a Location value against base (RFC 3986 5.2: absolute URLs, absolute paths,
 * relative paths). 0, or -EINVAL with the reason in err. */
int tp_url_resolve(const struct tp_url *base, const char *loc, struct tp_url *out, char *err,
		   size_t errlen);
/* Format u as "http://host[:port]/path" into buf. Length, or -ENOSPC. */
int tp_url_fmt(const struct tp_url *u, char *buf, size_t len);

/* Write a GET request for u into buf: Host, User-Agent, Accept, and "Range: bytes=FROM-"
 * or "bytes=FROM-TO" when from != TP_HTTP_NO_RANGE (to may be TP_HTTP_NO_RANGE).
 * Length, or -ENOSPC. */
int tp_http_get(char *buf, size_t len, const struct tp_url *u, uint64_t from, uint64_t to,
		const char *user_agent);

/* Parser errors (negated returns of tp_http_resp_feed and tp_http_resp_eof). */
enum tp_http_err {
	TP_HTTP_E_OK = 0,
	TP_HTTP_E_HDR_TOO_LONG = 1, /* header section over TP_HTTP_HDR_MAX */
	TP_HTTP_E_STATUS,	    /* status line not "HTTP/1.x NNN ..." */
	TP_HTTP_E_HEADER,	    /* a field line without a colon, with obs-fold, ... */
	TP_HTTP_E_LENGTH,	    /* bad or conflicting Content-Length */
	TP_HTTP_E_CHUNK,	    /* bad chunk-size line or missing CRLF after data */
	TP_HTTP_E_CONTENT_RANGE,    /* bad Content-Range in a 206 */
	TP_HTTP_E_NO_RESPONSE,	    /* connection closed before a whole header section */
	TP_HTTP_E_SHORT_BODY,	    /* connection closed before the body's end */
	TP_HTTP_E_TRAILING,	    /* bytes after a complete response (not asked for) */
	TP_HTTP_E_REQUEST,	    /* request line not "METHOD SP target SP HTTP/1.x" */
	TP_HTTP_E_VERSION,	    /* a request of another major version than 1 */
	TP_HTTP_E_HOST,		    /* an HTTP/1.1 request without one Host field */
};

/* What one call of tp_http_resp_feed() produced. */
enum tp_http_event {
	TP_HTTP_EV_NONE = 0, /* everything consumed; more input needed */
	TP_HTTP_EV_HEADERS,  /* the final (non-1xx) header section is complete */
	TP_HTTP_EV_BODY,     /* body bytes: out->body, out->body_len (a span of the input) */
	TP_HTTP_EV_DONE,     /* the response is complete */
};

enum tp_http_framing {
	TP_HTTP_LENGTH,	 /* Content-Length */
	TP_HTTP_CHUNKED, /* Transfer-Encoding: chunked */
	TP_HTTP_CLOSE,	 /* until the connection closes (RFC 9112 6.3 item 8) */
	TP_HTTP_NONE,	 /* no body: HEAD, 1xx, 204, 304 */
};

struct tp_http_resp {
	/* the response, valid from TP_HTTP_EV_HEADERS on */
	int status; /* 200, 206, 404... */
	int minor;  /* HTTP/1.minor */
	enum tp_http_framing framing;
	uint64_t content_length;		       /* TP_HTTP_LENGTH: the body's length */
	bool keep_alive;			       /* no "Connection: close" and HTTP/1.1 */
	bool has_range;				       /* a Content-Range "bytes A-B/T" was given */
	bool range_unsat;			       /* "bytes * /T" (416): T in range_total */
	uint64_t range_first, range_last, range_total; /* range_total UINT64_MAX for '*' */
	char reason[64];
	char location[TP_HTTP_LOCATION_MAX]; /* "" when absent */
	uint64_t body_bytes;		     /* body bytes delivered so far */

	/* parser state */
	bool head;	   /* the request was HEAD: no body */
	int state;	   /* internal */
	int err;	   /* first error, sticky */
	size_t hlen;	   /* bytes in hdr */
	uint64_t left;	   /* of the body (LENGTH) or of the current chunk */
	unsigned int line; /* chunk-size or trailer line length so far */
	unsigned int ndigits;
	bool ext;		      /* in a chunk extension */
	uint8_t hdr[TP_HTTP_HDR_MAX]; /* the header section, copied until complete */
};

/* Start a response (head: the request was HEAD). */
void tp_http_resp_init(struct tp_http_resp *r, bool head);
/* Feed n bytes of the connection's stream. Returns how many bytes were consumed (the
 * caller feeds the rest again) and sets *ev; for TP_HTTP_EV_BODY, *body and *body_len
 * point into p. A negative tp_http_err on malformed input (and on every later call). */
int tp_http_resp_feed(struct tp_http_resp *r, const uint8_t *p, size_t n, enum tp_http_event *ev,
		      const uint8_t **body, size_t *body_len);
/* The connection closed: 1 if that completes the response (body delimited by close),
 * 0 if it was complete already, or a negative tp_http_err (no response, short body). */
int tp_http_resp_eof(struct tp_http_resp *r);
/* The response is complete. */
bool tp_http_resp_done(const struct tp_http_resp *r);
/* A message for a tp_http_err. */
const char *tp_http_strerror(int err);

/* A request's head, as a server reads it (RFC 9112 3). */
#define TP_HTTP_METHOD_MAX 16
struct tp_http_req {
	char method[TP_HTTP_METHOD_MAX]; /* "GET", case-sensitive (RFC 9110 9.1) */
	char path[TP_HTTP_PATH_MAX];	 /* the target's path, without the query */
	int minor;			 /* HTTP/1.minor */
	bool keep_alive;		 /* HTTP/1.1 without "Connection: close" */
	bool has_body; /* Content-Length above 0, or Transfer-Encoding: not read here */
};

/* Parse the request head at the start of p[0, n): request line and field lines up to
 * the empty line (empty lines before the request line are skipped, RFC 9112 2.2).
 * Returns the head's length (the body or the next request follows), 0 when the head
 * is not complete yet (the caller bounds how much it buffers), or a negative
 * tp_http_err: TP_HTTP_E_REQUEST, TP_HTTP_E_VERSION, TP_HTTP_E_HEADER, TP_HTTP_E_HOST,
 * TP_HTTP_E_LENGTH. req is written only on success. */
int tp_http_req_parse(const uint8_t *p, size_t n, struct tp_http_req *req);

#endif
