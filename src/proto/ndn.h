/* SPDX-License-Identifier: BSD-3-Clause */
/* NDN packet format v0.3 and NDNLPv2: the one codec of the NDN forwarder, the traffic
 * generator's NDN templates and the tests. Pure functions on contiguous buffers; no
 * DPDK, no allocation. Decoders never read outside [buf, buf + len) and point into
 * the buffer they were given (the caller keeps it alive); encoders write at most cap
 * bytes and return the length written or a negative error.
 *
 * Specifications: NDN Packet Format 0.3 (named-data.net/doc/NDN-packet-spec/0.3:
 * TLV 1.2-1.3, Name 2, Interest 3, Data 4, signature 5), NDN naming conventions
 * rev 3 (typed components), NDNLPv2 (redmine.named-data.net/projects/nfd/wiki/
 * NDNLPv2: LpPacket, fragmentation, Nack, PIT token as NDN-DPDK uses it,
 * CongestionMark). */
#ifndef TP_PROTO_NDN_H
#define TP_PROTO_NDN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* --- TLV-TYPE numbers --- */
enum tp_ndn_type {
	TP_NDN_T_IMPLICIT_DIGEST = 0x01, /* ImplicitSha256DigestComponent */
	TP_NDN_T_PARAMS_DIGEST = 0x02,	 /* ParametersSha256DigestComponent */
	TP_NDN_T_INTEREST = 0x05,
	TP_NDN_T_DATA = 0x06,
	TP_NDN_T_NAME = 0x07,
	TP_NDN_T_GENERIC = 0x08, /* GenericNameComponent */
	TP_NDN_T_NONCE = 0x0a,
	TP_NDN_T_LIFETIME = 0x0c,
	TP_NDN_T_MUST_BE_FRESH = 0x12,
	TP_NDN_T_META_INFO = 0x14,
	TP_NDN_T_CONTENT = 0x15,
	TP_NDN_T_SIG_INFO = 0x16,
	TP_NDN_T_SIG_VALUE = 0x17,
	TP_NDN_T_CONTENT_TYPE = 0x18,
	TP_NDN_T_FRESHNESS = 0x19,
	TP_NDN_T_FINAL_BLOCK = 0x1a,
	TP_NDN_T_SIG_TYPE = 0x1b,
	TP_NDN_T_KEY_LOCATOR = 0x1c,
	TP_NDN_T_KEY_DIGEST = 0x1d,
	TP_NDN_T_FWD_HINT = 0x1e,
	TP_NDN_T_KEYWORD = 0x20, /* KeywordNameComponent */
	TP_NDN_T_CAN_BE_PREFIX = 0x21,
	TP_NDN_T_HOP_LIMIT = 0x22,
	TP_NDN_T_APP_PARAMS = 0x24,
	TP_NDN_T_ISIG_INFO = 0x2c,
	TP_NDN_T_ISIG_VALUE = 0x2e,
	TP_NDN_T_SIG_NONCE = 0x26,
	TP_NDN_T_SIG_TIME = 0x28,
	TP_NDN_T_SIG_SEQ = 0x2a,
	TP_NDN_T_SEGMENT = 0x32, /* naming conventions rev 3 */
	TP_NDN_T_BYTE_OFFSET = 0x34,
	TP_NDN_T_VERSION = 0x36,
	TP_NDN_T_TIMESTAMP = 0x38,
	TP_NDN_T_SEQUENCE_NUM = 0x3a,
	/* NDNLPv2 */
	TP_NDN_T_LP_FRAGMENT = 0x50,
	TP_NDN_T_LP_SEQUENCE = 0x51,
	TP_NDN_T_LP_FRAG_INDEX = 0x52,
	TP_NDN_T_LP_FRAG_COUNT = 0x53,
	TP_NDN_T_LP_PIT_TOKEN = 0x62,
	TP_NDN_T_LP_PACKET = 0x64,
	TP_NDN_T_LP_NACK = 0x0320,
	TP_NDN_T_LP_NACK_REASON = 0x0321,
	TP_NDN_T_LP_CONGESTION_MARK = 0x0340,
};

/* Decoding errors: each names what was wrong (the forwarder counts them by name). */
#define TP_NDN_ERRORS(X)                                                                           \
	X(OK, "ok")                                                                                \
	X(TRUNCATED, "truncated")                                                                  \
	X(BAD_VARNUM, "bad_varnum")                                                                \
	X(BAD_TYPE, "unexpected_type")                                                             \
	X(CRITICAL, "unknown_critical_element")                                                    \
	X(BAD_NAME, "bad_name")                                                                    \
	X(EMPTY_NAME, "empty_name")                                                                \
	X(NAME_TOO_LONG, "name_too_long")                                                          \
	X(BAD_COMPONENT, "bad_name_component")                                                     \
	X(BAD_NNI, "bad_number")                                                                   \
	X(BAD_NONCE, "bad_nonce")                                                                  \
	X(BAD_FLAG, "bad_flag")                                                                    \
	X(BAD_PARAMS_DIGEST, "bad_parameters_digest")                                              \
	X(BAD_SIGNATURE, "bad_signature_info")                                                     \
	X(MISSING, "missing_element")                                                              \
	X(TRAILING, "trailing_bytes")                                                              \
	X(BAD_LP, "bad_lp_header")                                                                 \
	X(BAD_FRAGMENT, "bad_fragment")                                                            \
	X(NO_SPACE, "no_space")

/* the list macro ends each name with a comma, which clang-format cannot see */
/* clang-format off */
enum tp_ndn_err {
#define X(e, n) TP_NDN_E_##e,
	TP_NDN_ERRORS(X)
#undef X
	TP_NDN_E_MAX
};
/* clang-format on */

/* The error's name ("truncated"). */
const char *tp_ndn_err_name(int err);

/* --- TLV 1.2: VAR-NUMBER, TLV, NonNegativeInteger --- */

/* Read a VAR-NUMBER at p (avail bytes): its size (1, 3, 5 or 9), or 0 when truncated
 * or not in its shortest form (an NDN decoder may reject those; this one does). */
size_t tp_ndn_varnum_read(const uint8_t *p, size_t avail, uint64_t *v);
static inline size_t tp_ndn_varnum_size(uint64_t v)
{
	return v < 253 ? 1 : v <= 0xffff ? 3 : v <= 0xffffffffull ? 5 : 9;
}

/* Write v at p (tp_ndn_varnum_size(v) bytes). */
static inline size_t tp_ndn_varnum_write(uint8_t *p, uint64_t v)
{
	size_t n = tp_ndn_varnum_size(v);

	if (n == 1) {
		p[0] = (uint8_t)v;
		return 1;
	}
	p[0] = n == 3 ? 253 : n == 5 ? 254 : 255;
	for (size_t i = 0; i < n - 1; i++)
		p[n - 1 - i] = (uint8_t)(v >> (8 * i));
	return n;
}

/* One TLV element: its type, its value, and where it starts and ends. */
struct tp_ndn_tlv {
	uint32_t type;
	uint32_t len;
	const uint8_t *value;
	const uint8_t *start; /* its first byte (TLV-TYPE) */
	const uint8_t *end;   /* one past its value */
};

/* The general case of tp_ndn_tlv_read (any VAR-NUMBER sizes). */
int tp_ndn_tlv_read_slow(const uint8_t **p, const uint8_t *end, struct tp_ndn_tlv *t);

/* Read the element at *p (before end) and advance *p past it. TP_NDN_E_OK,
 * TP_NDN_E_TRUNCATED or TP_NDN_E_BAD_VARNUM (types above 2^32 - 1 included).
 * Inline for the common shapes (a one-byte type, a one- or three-byte length), the
 * rest out of line: the forwarder reads a dozen elements per packet. */
static inline int tp_ndn_tlv_read(const uint8_t **pp, const uint8_t *end, struct tp_ndn_tlv *t)
{
	const uint8_t *p = *pp;
	size_t avail = (size_t)(end - p);

	if (__builtin_expect(p < end && avail >= 2 && p[0] < 253, 1)) {
		size_t len = p[1], hl = 2;
		if (len == 253 && avail >= 4) {
			len = (size_t)p[2] << 8 | p[3];
			hl = 4;
			if (len < 253) /* not the shortest form */
				return tp_ndn_tlv_read_slow(pp, end, t);
		} else if (len >= 253) {
			return tp_ndn_tlv_read_slow(pp, end, t);
		}
		if (__builtin_expect(len <= avail - hl, 1)) {
			t->start = p;
			t->type = p[0];
			t->len = (uint32_t)len;
			t->value = p + hl;
			t->end = p + hl + len;
			*pp = t->end;
			return TP_NDN_E_OK;
		}
	}
	return tp_ndn_tlv_read_slow(pp, end, t);
}

/* 1.3: a TLV-TYPE in 0-31, or odd, is critical: an unknown critical element makes
 * the packet invalid; an unknown non-critical one is ignored. */
static inline bool tp_ndn_critical(uint32_t type)
{
	return type <= 31 || (type & 1);
}

/* NonNegativeInteger: 1, 2, 4 or 8 bytes, big-endian. TP_NDN_E_OK or _BAD_NNI. */
int tp_ndn_nni_read(const uint8_t *v, uint32_t len, uint64_t *out);
/* Its shortest encoding's size, and the writer. */
size_t tp_ndn_nni_size(uint64_t v);
size_t tp_ndn_nni_write(uint8_t *p, uint64_t v);

/* Write a TLV-TYPE and TLV-LENGTH at p (the value follows): the end. The caller
 * makes room (tp_ndn_varnum_size of both). */
static inline uint8_t *tp_ndn_tl_write(uint8_t *p, uint32_t type, uint64_t len)
{
	p += tp_ndn_varnum_write(p, type);
	return p + tp_ndn_varnum_write(p, len);
}
/* A whole element holding a NonNegativeInteger in its shortest form: the end. */
uint8_t *tp_ndn_nni_tlv_write(uint8_t *p, uint32_t type, uint64_t v);

/* --- Name (2) --- */
#define TP_NDN_NAME_MAX_COMPS 64
#define TP_NDN_NAME_MAX_LEN 2048 /* TLV-VALUE of a Name */

/* A decoded Name: its TLV-VALUE and where each component ends in it. */
struct tp_ndn_name {
	const uint8_t *value;
	uint16_t len;
	uint8_t n_comps;
	bool has_params_digest;	    /* a ParametersSha256DigestComponent (the only one allowed) */
	uint8_t params_digest_comp; /* its index */
	uint16_t comp_end[TP_NDN_NAME_MAX_COMPS];
};

/* Decode a Name's TLV-VALUE (value, len). Components of any type but 0 are accepted
 * (2: types above 0xFFFF too); the digest components must be 32 bytes; at most one
 * ParametersSha256DigestComponent. */
int tp_ndn_name_decode(const uint8_t *value, size_t len, struct tp_ndn_name *n);

/* Component i: its whole TLV (type, length and value). */
static inline const uint8_t *tp_ndn_name_comp(const struct tp_ndn_name *n, unsigned int i,
					      uint16_t *tlv_len)
{
	uint16_t start = i ? n->comp_end[i - 1] : 0;
	*tlv_len = (uint16_t)(n->comp_end[i] - start);
	return n->value + start;
}

/* The TLV-VALUE bytes of the first k components (a prefix): its length. */
static inline uint16_t tp_ndn_name_prefix_len(const struct tp_ndn_name *n, unsigned int k)
{
	return k ? n->comp_end[k - 1] : 0;
}

/* Whether len bytes at a and b are equal: the forwarder's test of a name (or a
 * prefix) against a table's key. Names are short (tens of bytes): up to 64 bytes it
 * compares in 8-byte words inline, the last word overlapping, or 4-byte and byte
 * loads below 8; the library's memcmp beyond. Reads nothing outside the len bytes.
 * (perf: memcmp was 7 % of the forwarder's CPU at capacity, three calls per
 * exchange, docs/results/ndn.md.) */
static inline bool tp_ndn_bytes_eq(const uint8_t *a, const uint8_t *b, size_t len)
{
	uint64_t x, y;

	if (len >= 8) {
		if (len > 64)
			return memcmp(a, b, len) == 0;
		size_t last = len - 8;
		for (size_t i = 0; i < last; i += 8) {
			memcpy(&x, a + i, 8);
			memcpy(&y, b + i, 8);
			if (x != y)
				return false;
		}
		memcpy(&x, a + last, 8);
		memcpy(&y, b + last, 8);
		return x == y;
	}
	if (len >= 4) {
		uint32_t p, q, r, s;
		memcpy(&p, a, 4);
		memcpy(&q, b, 4);
		memcpy(&r, a + len - 4, 4);
		memcpy(&s, b + len - 4, 4);
		return ((p ^ q) | (r ^ s)) == 0;
	}
	if (len == 0)
		return true;
	/* 1 to 3 bytes: the first, the middle and the last cover them */
	return a[0] == b[0] && a[len >> 1] == b[len >> 1] && a[len - 1] == b[len - 1];
}

/* Compare names (canonical order, 2.1): <0, 0, >0; and whether a is a prefix of b. */
int tp_ndn_name_compare(const struct tp_ndn_name *a, const struct tp_ndn_name *b);
bool tp_ndn_name_is_prefix(const struct tp_ndn_name *a, const struct tp_ndn_name *b);

/* The NDN URI of a name ("/a/b/seg=3/v=7", naming conventions' markers, %XX escapes):
 * the length written (NUL not counted), or -TP_NDN_E_NO_SPACE. */
int tp_ndn_name_to_uri(const struct tp_ndn_name *n, char *buf, size_t cap);
/* Parse an NDN URI into a Name's TLV-VALUE at buf: its length, or a negative error
 * (-TP_NDN_E_BAD_NAME with a bad escape, component or marker). Accepts "/", "ndn:/"
 * prefixes, "8=...", "seg=", "off=", "v=", "t=", "seq=", "sha256digest=", "params-sha256=",
 * and "N=..." for any type N. */
int tp_ndn_name_from_uri(const char *uri, uint8_t *buf, size_t cap);
/* Number in a component of a number type (segment, version...), or a negative error. */
int tp_ndn_comp_number(const uint8_t *comp_tlv, uint16_t tlv_len, uint64_t *v);

/* --- Interest (3) --- */
#define TP_NDN_LIFETIME_DEFAULT 4000 /* ms */

struct tp_ndn_interest {
	bool can_be_prefix;
	bool must_be_fresh;
	bool has_nonce;
	bool has_hop_limit;
	uint32_t nonce;	      /* as the four bytes read big-endian */
	uint32_t lifetime_ms; /* TP_NDN_LIFETIME_DEFAULT when absent */
	uint8_t hop_limit;
	const uint8_t *fwd_hint; /* ForwardingHint TLV-VALUE (a sequence of Names), or NULL */
	uint16_t fwd_hint_len;
	const uint8_t *app_params; /* ApplicationParameters TLV-VALUE, or NULL */
	uint32_t app_params_len;
	const uint8_t *params_start; /* ApplicationParameters' first byte: the digest covers */
	const uint8_t *sig_info;     /* from it to the end of the Interest; NULL if unsigned */
	uint32_t sig_info_len;
	const uint8_t *sig_value;
	uint32_t sig_value_len;
	const uint8_t *nonce_pos; /* the Nonce's 4 value bytes in the buffer (to rewrite) */
	const uint8_t *hop_limit_pos;
	/* where a Nonce goes (3: after Name, CanBePrefix, MustBeFresh, ForwardingHint):
	 * the end of the last of them */
	const uint8_t *nonce_slot;
	struct tp_ndn_name name; /* last: decoders clear what comes before comp_end */
};

/* Decode the Interest element at buf (its TLV-TYPE first, len bytes, nothing after it
 * but what *used says). Checks 3: element order and cardinality, Nonce of 4 bytes,
 * HopLimit of 1, flags of 0 bytes, a name of at least one component, and with
 * ApplicationParameters the ParametersSha256DigestComponent's value equal to the
 * SHA-256 of the bytes from ApplicationParameters to the end. TP_NDN_E_OK or an error. */
int tp_ndn_interest_decode(const uint8_t *buf, size_t len, struct tp_ndn_interest *i, size_t *used);
/* The same but for the digest's value: the component must be there with
 * ApplicationParameters, its SHA-256 is not computed. The forwarding path's decoder:
 * a forwarder does not act on the parameters and leaves their digest to the producer
 * (as NFD does: ndn-cxx's Interest decoding checks the component's presence,
 * isParametersDigestValid() is the application's), so a 9 KB parameterised Interest
 * costs no 18,000 cycles of hashing per lcore it crosses (security review N12).
 * Management, which acts on them, uses tp_ndn_interest_decode(). */
int tp_ndn_interest_decode_fwd(const uint8_t *buf, size_t len, struct tp_ndn_interest *i,
			       size_t *used);

/* 3 (Nonce): a forwarder gives an Interest without a Nonce one (NFD does: ndn-cxx
 * encodes one whenever it is missing). The Interest i, without a Nonce, was decoded
 * from buf (its TLV-TYPE first; len bytes, what follows the element stays), and the
 * caller owns TP_NDN_NONCE_GROW bytes before buf. Writes the Interest again with a
 * Nonce element (nonce, big-endian) where the element order puts it, ending where it
 * ended: returns how many bytes earlier it now starts, or -TP_NDN_E_BAD_NONCE (it has
 * one) or -TP_NDN_E_BAD_TYPE (buf is not i). i then points into stale bytes: decode
 * the Interest again. */
#define TP_NDN_NONCE_GROW 8 /* the Nonce element, and an outer TLV-LENGTH 2 bytes longer */
int tp_ndn_interest_add_nonce(uint8_t *buf, size_t len, const struct tp_ndn_interest *i,
			      uint32_t nonce);

/* A signed Interest (3.2, InterestSignatureInfo): 1 when its signature is DigestSha256
 * and its value the SHA-256 of the signed portion (the name's components but the
 * ParametersSha256DigestComponent, then ApplicationParameters to the end of
 * InterestSignatureInfo), 0 when it is not, -TP_NDN_E_MISSING when the Interest is
 * not signed, -TP_NDN_E_BAD_SIGNATURE for another signature type. */
int tp_ndn_interest_verify_digest(const struct tp_ndn_interest *i);
/* The same for SignatureHmacWithSha256 (signature type 4): 1 when the value is the
 * HMAC-SHA256 (RFC 2104) under key of that signed portion, 0 when it is not,
 * -TP_NDN_E_MISSING when not signed, -TP_NDN_E_BAD_SIGNATURE for another type. When
 * time_ms is not NULL it gets the InterestSignatureInfo's SignatureTime (3.2), or -1
 * when it has none. */
int tp_ndn_interest_verify_hmac(const struct tp_ndn_interest *i, const uint8_t *key, size_t key_len,
				int64_t *time_ms);
/* The older command Interest (NFD ControlCommand, as python-ndn's make_command
 * writes it): name components .../<SignatureInfo>/<SignatureValue>, each holding
 * the TLV; 1 when SignatureValue is the DigestSha256 of the components before it,
 * 0 when it is not, negative as above. */
int tp_ndn_command_verify_digest(const struct tp_ndn_name *n);

/* What tp_ndn_interest_encode writes. name_value: a Name's TLV-VALUE. */
struct tp_ndn_interest_spec {
	const uint8_t *name_value;
	uint16_t name_len;
	bool can_be_prefix;
	bool must_be_fresh;
	uint32_t nonce;
	int64_t lifetime_ms;	   /* -1: omitted (the default applies); 0 is a lifetime */
	int hop_limit;		   /* -1: omitted */
	const uint8_t *app_params; /* with app_params_len > 0 or app_params != NULL: */
	uint32_t app_params_len;   /* ApplicationParameters, and the digest component
				    * appended to the name */
};
int tp_ndn_interest_encode(uint8_t *buf, size_t cap, const struct tp_ndn_interest_spec *s);

/* --- Data (4) --- */
#define TP_NDN_SIG_DIGEST_SHA256 0 /* DigestSha256 */
#define TP_NDN_SIG_HMAC_SHA256 4   /* SignatureHmacWithSha256 */

struct tp_ndn_data {
	uint32_t content_type; /* 0 (BLOB) when absent */
	bool has_freshness;
	uint32_t freshness_ms;
	const uint8_t *final_block; /* FinalBlockId's TLV-VALUE: a name component TLV */
	uint16_t final_block_len;
	const uint8_t *content;
	uint32_t content_len;
	uint32_t sig_type;
	const uint8_t *sig_value;
	uint32_t sig_value_len;
	const uint8_t *signed_start; /* the signed portion: Name to SignatureInfo, inclusive */
	const uint8_t *signed_end;
	const uint8_t *start; /* the whole Data element (its implicit digest) */
	const uint8_t *end;
	struct tp_ndn_name name; /* last: decoders clear what comes before comp_end */
};

int tp_ndn_data_decode(const uint8_t *buf, size_t len, struct tp_ndn_data *d, size_t *used);
/* 1 when the signature is DigestSha256 and its value is the SHA-256 of the signed
 * portion, 0 when it is not, -TP_NDN_E_BAD_SIGNATURE when the type is another one. */
int tp_ndn_data_verify_digest(const struct tp_ndn_data *d);
/* The implicit digest (SHA-256 of the whole Data element). */
void tp_ndn_data_implicit_digest(const struct tp_ndn_data *d, uint8_t out[32]);

struct tp_ndn_data_spec {
	const uint8_t *name_value;
	uint16_t name_len;
	int64_t content_type;	    /* -1: omitted */
	int64_t freshness_ms;	    /* -1: omitted */
	const uint8_t *final_block; /* a component TLV, or NULL */
	uint16_t final_block_len;
	const uint8_t *content;
	uint32_t content_len;
	/* signed with DigestSha256 */
};
int tp_ndn_data_encode(uint8_t *buf, size_t cap, const struct tp_ndn_data_spec *s);

/* --- NDNLPv2 --- */
enum tp_ndn_nack_reason {
	TP_NDN_NACK_NONE = 0,
	TP_NDN_NACK_CONGESTION = 50,
	TP_NDN_NACK_DUPLICATE = 100,
	TP_NDN_NACK_NO_ROUTE = 150,
	TP_NDN_NACK_UNSPECIFIED = 255, /* also what an absent or unknown reason reads as */
};
#define TP_NDN_PIT_TOKEN_MAX 32
#define TP_NDN_FRAG_MAX 32 /* fragments of one packet this codec reassembles */

struct tp_ndn_lp {
	const uint8_t *payload; /* the Fragment's value (or the bare packet) */
	uint32_t payload_len;
	bool has_seq;
	uint64_t seq;
	uint32_t frag_index; /* 0 and 1 when absent */
	uint32_t frag_count;
	uint8_t pit_token_len;	  /* 0: none */
	const uint8_t *pit_token; /* in buf */
	bool is_nack;
	uint32_t nack_reason;
	uint64_t congestion_mark;
};

/* Decode what a face received: an LpPacket, or a bare Interest or Data (then payload is
 * the whole of it; bytes after the element, such as Ethernet padding, are cut). An
 * LpPacket without Fragment (IDLE) is TP_NDN_E_MISSING. Unknown header fields are
 * ignored only when their type is in 800-959 with its two low bits 0. */
int tp_ndn_lp_decode(const uint8_t *buf, size_t len, struct tp_ndn_lp *lp);

struct tp_ndn_lp_spec {
	const uint8_t *payload;
	uint32_t payload_len;
	bool frag; /* write Sequence, FragIndex, FragCount */
	uint64_t seq;
	uint32_t frag_index, frag_count;
	uint8_t pit_token_len;
	const uint8_t *pit_token;
	bool nack;
	uint32_t nack_reason;
	uint64_t congestion_mark; /* 0: omitted */
};
/* With payload NULL (payload_len still given), only what precedes the payload is
 * written: a header to put in front of a packet that is already in place. */
int tp_ndn_lp_encode(uint8_t *buf, size_t cap, const struct tp_ndn_lp_spec *s);

/* The common case of tp_ndn_lp_encode's header: a PIT token (1-32 bytes) and
 * nothing else before the Fragment of payload_len bytes. Writes
 * tp_ndn_lp_token_header_size bytes and returns that. Same bytes as
 * tp_ndn_lp_encode. */
static inline size_t tp_ndn_lp_token_header_size(uint8_t tok_len, uint32_t payload_len)
{
	size_t val = 2 + (size_t)tok_len + 1 + tp_ndn_varnum_size(payload_len) + payload_len;

	return 1 + tp_ndn_varnum_size(val) + val - payload_len;
}

static inline size_t tp_ndn_lp_token_header(uint8_t *buf, const uint8_t *tok, uint8_t tok_len,
					    uint32_t payload_len)
{
	size_t frag_hl = 1 + tp_ndn_varnum_size(payload_len);
	size_t val = 2 + (size_t)tok_len + frag_hl + payload_len;
	uint8_t *p = tp_ndn_tl_write(buf, TP_NDN_T_LP_PACKET, val);

	p[0] = TP_NDN_T_LP_PIT_TOKEN;
	p[1] = tok_len;
	memcpy(p + 2, tok, tok_len);
	p = tp_ndn_tl_write(p + 2 + tok_len, TP_NDN_T_LP_FRAGMENT, payload_len);
	return (size_t)(p - buf);
}
/* The most LpPacket overhead of one fragment (up to 65,535 bytes, FragIndex and FragCount
 * under 65,536) carrying these headers (a PIT token, a Nack with a reason under 256):
 * a sender picks fragment sizes that fit an MTU with it. */
size_t tp_ndn_lp_frag_overhead(uint8_t pit_token_len, bool nack);

/* Reassembly of fragmented LpPackets. The reassembler keeps caller-owned fragment
 * handles (mbufs in the forwarder, buffers in the tests), never copies bytes: when a
 * packet is complete, the caller gets its fragments in order. A packet is known by its
 * flow (the caller's name for the sender: Sequence numbers are per sender) and its
 * first fragment's Sequence (Sequence - FragIndex of each, NDNLPv2 indexed
 * fragmentation). Holds up to TP_NDN_REASM_SLOTS packets at a time, at most
 * TP_NDN_REASM_PER_FLOW of one flow; a partial packet is given up when no fragment of
 * it came for the timeout (as NFD's LpReassembler does), or when a new packet needs a
 * slot: the flow's own that waited longest when the flow has its share, else, every
 * slot taken, the one that waited longest of the flow holding the most (a sender
 * starting packets never takes a slot from one that holds fewer: security review
 * N13). */
#define TP_NDN_REASM_SLOTS 16
#define TP_NDN_REASM_PER_FLOW 4
/* fragments held at most (each a handle: in the forwarder, a port's mbuf) */
#define TP_NDN_REASM_HELD_MAX (TP_NDN_REASM_SLOTS * (TP_NDN_FRAG_MAX - 1))

struct tp_ndn_reasm_slot {
	bool used;
	uint32_t flow;
	uint64_t seq_base; /* seq - frag_index of each fragment */
	uint32_t frag_count;
	uint32_t n_got;
	uint64_t deadline; /* caller's clock: the last fragment's arrival + timeout */
	void *frag[TP_NDN_FRAG_MAX];
};

struct tp_ndn_reasm {
	struct tp_ndn_reasm_slot slot[TP_NDN_REASM_SLOTS];
	uint64_t timeout; /* in the caller's clock units */
	uint64_t n_complete, n_dropped_frags, n_timeouts, n_bad;
	uint64_t n_flow_full; /* packets given up for a newer one of their own flow */
};

enum tp_ndn_reasm_result {
	TP_NDN_REASM_HELD,     /* kept; more fragments to come */
	TP_NDN_REASM_COMPLETE, /* out[0..frag_count-1] are the packet's fragments, in order */
	TP_NDN_REASM_BAD,      /* not a valid fragment (index, count): the caller frees it */
};

void tp_ndn_reasm_init(struct tp_ndn_reasm *r, uint64_t timeout);
/* Room the caller gives for evicted handles: a partial packet's fragments, and a
 * duplicate fragment. */
#define TP_NDN_REASM_EVICT_MAX (TP_NDN_FRAG_MAX + 1)

/* A fragment (lp decoded, with frag_count > 1) from flow with handle h, at time now.
 * Handles of a partial packet this evicts, and of a duplicate fragment (then h itself;
 * the one held is kept), are written to evicted (*n_evicted, at most
 * TP_NDN_REASM_EVICT_MAX) for the caller to free. A fragment whose FragCount differs
 * from its packet's is BAD (the partial packet stays). */
enum tp_ndn_reasm_result tp_ndn_reasm_add(struct tp_ndn_reasm *r, const struct tp_ndn_lp *lp,
					  uint32_t flow, void *h, uint64_t now, void **out,
					  uint32_t *n_out, void **evicted, uint32_t *n_evicted);
/* Give up one partial packet past its deadline: 1 with its handles in evicted
 * (*n_evicted, at most TP_NDN_FRAG_MAX), 0 if none is due. Call until 0. */
int tp_ndn_reasm_expire(struct tp_ndn_reasm *r, uint64_t now, void **evicted, uint32_t *n_evicted);
/* The earliest deadline of a partial packet, UINT64_MAX when none is held. */
uint64_t tp_ndn_reasm_next_deadline(const struct tp_ndn_reasm *r);

/* --- NDN TLV on a byte stream (Unix and TCP faces): the receiver's framing ---
 * Elements arrive split at any point; a partial one is kept until complete, as NFD's
 * StreamTransport does (daemon/face/stream-transport.hpp). An element longer than
 * TP_NDN_STREAM_MAX (NFD's MAX_NDN_PACKET_SIZE, TLV-TYPE and TLV-LENGTH included), a
 * TLV-TYPE 0 or above 2^32 - 1 (packet format 1.2, 1.3) or a VAR-NUMBER not in its
 * shortest form is an error as soon as its header is in: the caller closes the
 * connection (NFD waits for its buffer to fill before it gives up). */
#define TP_NDN_STREAM_MAX 8800

struct tp_ndn_stream {
	uint32_t off; /* the first byte not yet yielded */
	uint32_t len; /* bytes held, from buf[0] */
	int err;      /* TP_NDN_E_OK, or why the stream broke */
	uint8_t buf[TP_NDN_STREAM_MAX];
};

static inline void tp_ndn_stream_init(struct tp_ndn_stream *s)
{
	s->off = s->len = 0;
	s->err = TP_NDN_E_OK;
}
/* Where the next bytes received go: *room bytes at the pointer returned (the held
 * bytes moved to the front first; after an error, nothing: *room is 0). */
uint8_t *tp_ndn_stream_space(struct tp_ndn_stream *s, size_t *room);
/* n bytes (at most the room given) were written at the space. */
static inline void tp_ndn_stream_commit(struct tp_ndn_stream *s, size_t n)
{
	s->len += (uint32_t)n;
}
/* The next whole element: TP_NDN_E_OK with *elem and *len (its TLV, in s's buffer
 * until the next tp_ndn_stream_space); TP_NDN_E_TRUNCATED when more bytes are
 * needed; TP_NDN_E_BAD_VARNUM (a malformed TLV-TYPE or TLV-LENGTH) or
 * TP_NDN_E_NO_SPACE (longer than TP_NDN_STREAM_MAX): the stream is broken, and every
 * later call returns the same. */
int tp_ndn_stream_next(struct tp_ndn_stream *s, const uint8_t **elem, size_t *len);
/* Bytes held: received, not yet yielded. */
static inline size_t tp_ndn_stream_held(const struct tp_ndn_stream *s)
{
	return s->len - s->off;
}

#endif
