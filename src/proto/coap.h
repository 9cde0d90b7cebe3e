/* SPDX-License-Identifier: BSD-3-Clause */
/* CoAP message codec (RFC 7252 3): encode requests into caller buffers, decode any message. */
#ifndef TP_PROTO_COAP_H
#define TP_PROTO_COAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Contract. Pure functions on plain buffers: no allocation, no global state,
 * safe to call from any thread (data-plane workers included) on distinct
 * buffers. Decoding never reads outside [buf, buf + len) and the decoded
 * message points into the caller's buffer, which must outlive it. Errors are
 * negative enum tp_coap_err values; tp_coap_strerror() names them.
 */

#define TP_COAP_VERSION 1
#define TP_COAP_HDR_LEN 4
#define TP_COAP_TOKEN_MAX 8 /* RFC 7252 3: TKL 9-15 are reserved */
#define TP_COAP_MAX_OPTS 24 /* options a decoded message may carry */
#define TP_COAP_PAYLOAD_MARKER 0xff
#define TP_COAP_OPT_LEN_MAX 65804 /* 16-bit extended length + 269 (RFC 7252 3.1) */
#define TP_COAP_PORT 5683

/* Message types (RFC 7252 3). */
enum tp_coap_type {
	TP_COAP_CON = 0,
	TP_COAP_NON = 1,
	TP_COAP_ACK = 2,
	TP_COAP_RST = 3,
};

/* Code c.dd packed as in the header: 3-bit class, 5-bit detail (RFC 7252 3, 12.1). */
#define TP_COAP_CODE(c, dd) ((uint8_t)(((c) << 5) | (dd)))
#define TP_COAP_CODE_CLASS(code) ((code) >> 5)
#define TP_COAP_CODE_DETAIL(code) ((code)&0x1f)

enum tp_coap_code {
	TP_COAP_EMPTY = TP_COAP_CODE(0, 0),
	TP_COAP_GET = TP_COAP_CODE(0, 1),
	TP_COAP_POST = TP_COAP_CODE(0, 2),
	TP_COAP_PUT = TP_COAP_CODE(0, 3),
	TP_COAP_DELETE = TP_COAP_CODE(0, 4),
	TP_COAP_CREATED = TP_COAP_CODE(2, 1),
	TP_COAP_DELETED = TP_COAP_CODE(2, 2),
	TP_COAP_VALID = TP_COAP_CODE(2, 3),
	TP_COAP_CHANGED = TP_COAP_CODE(2, 4),
	TP_COAP_CONTENT = TP_COAP_CODE(2, 5),
	TP_COAP_BAD_REQUEST = TP_COAP_CODE(4, 0),
	TP_COAP_BAD_OPTION = TP_COAP_CODE(4, 2),
	TP_COAP_FORBIDDEN = TP_COAP_CODE(4, 3),
	TP_COAP_NOT_FOUND = TP_COAP_CODE(4, 4),
	TP_COAP_METHOD_NOT_ALLOWED = TP_COAP_CODE(4, 5),
	TP_COAP_UNSUPPORTED_FORMAT = TP_COAP_CODE(4, 15),
	TP_COAP_INTERNAL_ERROR = TP_COAP_CODE(5, 0),
};

/* Option numbers (RFC 7252 5.10, RFC 7959 2.1, RFC 7641 2). */
enum tp_coap_optnum {
	TP_COAP_OPT_IF_MATCH = 1,
	TP_COAP_OPT_URI_HOST = 3,
	TP_COAP_OPT_ETAG = 4,
	TP_COAP_OPT_IF_NONE_MATCH = 5,
	TP_COAP_OPT_OBSERVE = 6,
	TP_COAP_OPT_URI_PORT = 7,
	TP_COAP_OPT_LOCATION_PATH = 8,
	TP_COAP_OPT_URI_PATH = 11,
	TP_COAP_OPT_CONTENT_FORMAT = 12,
	TP_COAP_OPT_MAX_AGE = 14,
	TP_COAP_OPT_URI_QUERY = 15,
	TP_COAP_OPT_ACCEPT = 17,
	TP_COAP_OPT_LOCATION_QUERY = 20,
	TP_COAP_OPT_BLOCK2 = 23,
	TP_COAP_OPT_BLOCK1 = 27,
	TP_COAP_OPT_SIZE2 = 28,
	TP_COAP_OPT_PROXY_URI = 35,
	TP_COAP_OPT_PROXY_SCHEME = 39,
	TP_COAP_OPT_SIZE1 = 60,
};

/* Critical options have an odd number (RFC 7252 5.4.6). */
#define TP_COAP_OPT_CRITICAL(num) (((num)&1) != 0)

/* Content-Format values (RFC 7252 12.3). */
enum tp_coap_cf {
	TP_COAP_CF_TEXT = 0,
	TP_COAP_CF_LINK = 40,
	TP_COAP_CF_XML = 41,
	TP_COAP_CF_OCTETS = 42,
	TP_COAP_CF_EXI = 47,
	TP_COAP_CF_JSON = 50,
	TP_COAP_CF_CBOR = 60,
};

/* Why a message could not be decoded or encoded; functions return the negation. */
enum tp_coap_err {
	TP_COAP_OK = 0,
	/* decoding: message format errors (RFC 7252 3, 4.1, 4.2, 4.3) */
	TP_COAP_E_SHORT,	   /* fewer than 4 bytes */
	TP_COAP_E_VERSION,	   /* version field is not 1 */
	TP_COAP_E_TKL,		   /* token length 9-15 (reserved) */
	TP_COAP_E_TOKEN_TRUNC,	   /* token runs past the end */
	TP_COAP_E_OPT_DELTA15,	   /* option delta 15 in a byte that is not the payload marker */
	TP_COAP_E_OPT_LEN15,	   /* option length 15 (reserved) */
	TP_COAP_E_OPT_EXT_TRUNC,   /* extended delta or length bytes run past the end */
	TP_COAP_E_OPT_VALUE_TRUNC, /* option value runs past the end */
	TP_COAP_E_OPT_NUM_RANGE,   /* option number above 65535 */
	TP_COAP_E_TOO_MANY_OPTS,   /* more than TP_COAP_MAX_OPTS options (a limit of ours) */
	TP_COAP_E_EMPTY_PAYLOAD,   /* payload marker followed by nothing */
	TP_COAP_E_EMPTY_NOT_EMPTY, /* code 0.00 with a token, options or payload */
	TP_COAP_E_RST_NOT_EMPTY,   /* Reset message that is not Empty */
	TP_COAP_E_NON_EMPTY,	   /* Non-confirmable message that is Empty */
	/* encoding */
	TP_COAP_E_INVAL,	 /* NULL argument, bad type, or option 0 */
	TP_COAP_E_NOSPC,	 /* the message does not fit the buffer */
	TP_COAP_E_OPT_ORDER,	 /* option number below the previous one */
	TP_COAP_E_OPT_TOO_LONG,	 /* value too long for the field or the option */
	TP_COAP_E_PATH,		 /* empty or over-long path segment */
	TP_COAP_E_AFTER_PAYLOAD, /* option added after the payload */
	TP_COAP_E__COUNT
};

/* One option; val points into the decoded buffer (or the caller's data when encoding). */
struct tp_coap_opt {
	const uint8_t *val;
	uint16_t num;
	uint32_t len;
};

/* A whole message. Options are in wire order (non-decreasing numbers). */
struct tp_coap_msg {
	uint8_t type; /* enum tp_coap_type */
	uint8_t code;
	uint16_t mid; /* host order */
	uint8_t tkl;
	uint8_t token[TP_COAP_TOKEN_MAX];
	uint16_t n_opts;
	struct tp_coap_opt opts[TP_COAP_MAX_OPTS];
	const uint8_t *payload; /* NULL when there is none */
	size_t payload_len;
};

/* Incremental encoder: options must be added in non-decreasing number order.
 * The first error sticks in err and makes every later call a no-op, so a
 * sequence of puts needs one check, at tp_coap_end(). */
struct tp_coap_writer {
	uint8_t *buf;
	size_t cap;
	size_t len;
	uint16_t last; /* number of the last option written */
	bool payload;  /* the payload is written; nothing may follow */
	int err;       /* 0 or a negative enum tp_coap_err */
};

/* Static name of an error (negative or positive value); "unknown" if out of range. */
const char *tp_coap_strerror(int err);

/* Decode the len bytes at buf into *m. Returns 0 or a negative enum tp_coap_err.
 * On error *m is partly filled and must not be used. */
int tp_coap_decode(const uint8_t *buf, size_t len, struct tp_coap_msg *m);

/* Encode *m into buf. Options may be in any order: they go out sorted by
 * number, options with equal numbers in their given order (so Uri-Path
 * segments stay in sequence). Returns the length or a negative enum tp_coap_err. */
int tp_coap_encode(uint8_t *buf, size_t cap, const struct tp_coap_msg *m);

/* Start a message in buf: header and token (tkl <= 8). */
void tp_coap_begin(struct tp_coap_writer *w, uint8_t *buf, size_t cap, enum tp_coap_type type,
		   uint8_t code, uint16_t mid, const uint8_t *token, size_t tkl);
/* Append one option (number >= the previous one). */
void tp_coap_put_opt(struct tp_coap_writer *w, uint16_t num, const void *val, size_t len);
/* Append a uint option: big-endian, no leading zero bytes, 0 is empty (RFC 7252 3.2). */
void tp_coap_put_uint(struct tp_coap_writer *w, uint16_t num, uint32_t v);
/* Append a string option (the NUL is not sent). */
void tp_coap_put_str(struct tp_coap_writer *w, uint16_t num, const char *s);
/* Append one Uri-Path option per segment of path ("/a/b", "a/b"; "" and "/" add
 * none). Segments are sent as given (no percent-decoding); an empty segment
 * ("a//b", "a/") or one over 255 bytes (RFC 7252 5.10) is TP_COAP_E_PATH. */
void tp_coap_put_uri_path(struct tp_coap_writer *w, const char *path);
/* Append one Uri-Query option per '&'-separated argument of query ("a=1&b=2", an
 * optional leading '?'); sent as given, same limits as tp_coap_put_uri_path(). */
void tp_coap_put_uri_query(struct tp_coap_writer *w, const char *query);
/* Append the payload marker and payload; a zero-length payload adds nothing. */
void tp_coap_put_payload(struct tp_coap_writer *w, const void *p, size_t len);
/* Finish: the message length, or the first error (negative). */
int tp_coap_end(const struct tp_coap_writer *w);

/* A message's beginning kept for reuse (per destination, as a template): header,
 * token and the options a writer put, byte for byte as it wrote them. A message
 * built from it by tp_coap_tmpl_begin() and further puts is byte-identical to one
 * built by tp_coap_begin() and the same puts throughout: the template is a saved
 * writer, not a second encoder. */
#define TP_COAP_TMPL_MAX 176
struct tp_coap_tmpl {
	uint16_t len;  /* bytes in buf; 0: no template */
	uint16_t last; /* number of its last option (the delta base of the next one) */
	uint8_t buf[TP_COAP_TMPL_MAX];
};

/* Save what w has written (no payload yet) into t. 0, w's error, or
 * -TP_COAP_E_NOSPC when it is longer than TP_COAP_TMPL_MAX (t->len is then 0). */
int tp_coap_tmpl_save(struct tp_coap_tmpl *t, const struct tp_coap_writer *w);
/* Start a message in buf as a copy of t with its type, message id and token (the
 * template's token length: tkl bytes at token) replaced; then put the remaining
 * options and the payload as usual. */
void tp_coap_tmpl_begin(struct tp_coap_writer *w, uint8_t *buf, size_t cap,
			const struct tp_coap_tmpl *t, enum tp_coap_type type, uint16_t mid,
			const uint8_t *token);
/* The payload written in place: the marker is put and *room bytes may be written at
 * the returned pointer (NULL, and w's error set, when not even the marker and one
 * byte fit); tp_coap_payload_commit() then says how many were. Committing 0 bytes
 * takes the marker back (RFC 7252 3: no marker without a payload). */
uint8_t *tp_coap_payload_reserve(struct tp_coap_writer *w, size_t *room);
void tp_coap_payload_commit(struct tp_coap_writer *w, size_t len);

/* Value of a uint option (at most 4 bytes, RFC 7252 3.2) in *v; 0 or -TP_COAP_E_OPT_TOO_LONG. */
int tp_coap_opt_uint(const struct tp_coap_opt *o, uint32_t *v);
/* Copy an option's value into buf as a NUL-terminated string; returns its length, or
 * -TP_COAP_E_NOSPC if it does not fit in cap - 1 bytes. */
int tp_coap_opt_str(const struct tp_coap_opt *o, char *buf, size_t cap);
/* First option numbered num at index >= from of a decoded message (options sorted by
 * number), or NULL. Iterate with from = tp_coap_opt_index() + 1. */
const struct tp_coap_opt *tp_coap_find_opt(const struct tp_coap_msg *m, uint16_t num,
					   unsigned int from);
/* Index of o in m (for tp_coap_find_opt's from). */
static inline unsigned int tp_coap_opt_index(const struct tp_coap_msg *m,
					     const struct tp_coap_opt *o)
{
	return (unsigned int)(o - m->opts);
}

#endif
