/* SPDX-License-Identifier: BSD-3-Clause */
/* Generator templates: how a stream's frames are built. A template registers
 * itself at start-up; the engine never knows what a frame contains beyond the
 * 12-byte signature it writes into every frame (its last bytes unless the
 * template says where) and, for a template whose frames are requests, how to
 * find that signature in an answer. */
#ifndef TP_GEN_TEMPLATE_H
#define TP_GEN_TEMPLATE_H

#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>

#define TP_GEN_SIG_LEN 12
#define TP_GEN_SIG_MAGIC 0x74 /* 't' */
#define TP_GEN_SIG_TSC_MASK ((1ull << 40) - 1)

/* The signature, little-endian, in the last 12 bytes of every frame (or where the
 * template's sig_offset says): 12 bytes, so that RFC 5180's smallest IPv6 test
 * frame (78 B: Ethernet, IPv6, UDP, FCS and 12 bytes) carries it. The TSC keeps
 * its low 40 bits (over 6 minutes at 3 GHz; a frame's latency is a difference
 * modulo 2^40: tp_gen_sig_age). */
struct tp_gen_sig {
	uint8_t magic;	 /* TP_GEN_SIG_MAGIC */
	uint8_t trial;	 /* trial generation: frames of an older trial are ignored */
	uint8_t stream;	 /* below TP_GEN_MAX_STREAMS */
	uint8_t tsc_hi;	 /* the TSC's bits 32-39 */
	uint32_t seq;	 /* the stream's frame count in this trial */
	uint32_t tsc_lo; /* the TSC's bits 0-31 */
} __attribute__((packed));
_Static_assert(sizeof(struct tp_gen_sig) == TP_GEN_SIG_LEN, "signature is 12 bytes");

static inline struct tp_gen_sig tp_gen_sig_make(uint8_t trial, uint8_t stream, uint32_t seq,
						uint64_t tsc)
{
	return (struct tp_gen_sig){.magic = TP_GEN_SIG_MAGIC,
				   .trial = trial,
				   .stream = stream,
				   .tsc_hi = (uint8_t)(tsc >> 32),
				   .seq = seq,
				   .tsc_lo = (uint32_t)tsc};
}

/* TSC cycles from the signature's sending to now (modulo 2^40). */
static inline uint64_t tp_gen_sig_age(const struct tp_gen_sig *sig, uint64_t now)
{
	uint64_t sent = (uint64_t)sig->tsc_hi << 32 | sig->tsc_lo;

	return (now - sent) & TP_GEN_SIG_TSC_MASK;
}

/* Negative answers to a request, by reason (NDN Nack reasons, NDNLPv2 "Nack"). */
enum tp_gen_nack {
	TP_GEN_NACK_CONGESTION, /* 50 */
	TP_GEN_NACK_DUPLICATE,	/* 100 */
	TP_GEN_NACK_NO_ROUTE,	/* 150 */
	TP_GEN_NACK_OTHER,	/* any other reason, or none */
	TP_GEN_NACK_N
};

enum tp_gen_rx_kind {
	TP_GEN_RX_ANSWER = 1, /* the request was satisfied (an NDN Data) */
	TP_GEN_RX_NACK,	      /* it was refused (an NDN Nack); nack says why */
};

/* What a template's rx_decode found in a received frame. */
struct tp_gen_rx {
	struct tp_gen_sig sig; /* the signature of the request it answers */
	uint8_t kind;	       /* enum tp_gen_rx_kind */
	uint8_t nack;	       /* enum tp_gen_nack, with TP_GEN_RX_NACK */
};

struct tp_gen_template {
	const char *name;
	const char *usage; /* the words parse() takes */
	/* Parse the words after "size N"; frame_len excludes the FCS. Returns the
	 * template's state, or NULL with err set (a message naming the bad word). */
	void *(*parse)(int argc, char **argv, uint32_t frame_len, char *err, size_t errlen);
	/* Distinct frames the stream cycles through (the engine builds them once). */
	uint32_t (*variants)(const void *state);
	/* Write variant i, frame_len bytes, into buf (the signature is written after). */
	void (*build)(const void *state, uint32_t i, uint8_t *buf, uint32_t frame_len);
	/* Optional: per-frame fields, called before sending. n counts the stream's
	 * frames over its whole life (0 for its first frame), not per trial: a field
	 * derived from it keeps advancing from one trial to the next. stream: the
	 * stream's id (below TP_GEN_MAX_STREAMS), for fields unique across streams. */
	void (*update)(const void *state, uint16_t stream, uint64_t n, uint8_t *buf,
		       uint32_t frame_len);
	void (*free)(void *state);
	/* Optional: the frame length (without FCS) the template chose in parse(),
	 * when its frames are not the "size" asked for (NDN: the name decides it).
	 * Without it, frames are size - 4 bytes. */
	uint32_t (*frame_len)(const void *state);
	/* Optional: where in each frame the engine writes the signature; without it,
	 * the last TP_GEN_SIG_LEN bytes. */
	uint32_t (*sig_offset)(const void *state);
	/* Optional, for templates whose frames are requests answered by a peer (NDN
	 * Interests): look at a received frame (len bytes, contiguous) and return 1
	 * with rx filled when it answers this template's frames, 0 when it does not
	 * (the engine then reads the signature from the frame's last bytes). Runs on
	 * the worker for every frame received during a trial of such a stream: it
	 * must reject other frames in a few instructions, and never fails loudly. */
	int (*rx_decode)(const uint8_t *frame, uint32_t len, struct tp_gen_rx *rx);
	/* Optional: called on every frame after the engine wrote its signature at
	 * sig_off, for fields that cover it (IPv6's mandatory UDP checksum). A few
	 * instructions: it runs for every frame sent. */
	void (*finish)(const void *state, uint8_t *buf, uint32_t frame_len, uint32_t sig_off);
	struct tp_gen_template *next;
};

/* A range of addresses or ports, from the words "A.B.C.D[-A.B.C.D]" or "N[-N]". */
struct tp_gen_range {
	uint32_t lo, hi; /* host order */
};
/* Parse s into r (is_addr: IPv4 addresses, else ports 0-65535). 0 or -EINVAL. */
int tp_gen_parse_range(const char *s, int is_addr, struct tp_gen_range *r);
/* Where a UDP template keeps the options they all share: the MACs, the number of
 * source MACs, the ports, and the TTL or hop limit (its word: "ttl", "hlim"). */
struct tp_gen_udp_opts {
	uint8_t *dmac, *smac;
	uint32_t *smacs;
	struct tp_gen_range *sport, *dport;
	uint8_t *ttl;
	const char *ttl_word;
};
/* The option k with value v, if it is one of o's: 1, with *bad 0 or nonzero (the
 * value is wrong); 0 when k is none of them. */
int tp_gen_udp_opt(const struct tp_gen_udp_opts *o, const char *k, const char *v, int *bad);
static inline uint32_t tp_gen_range_span(const struct tp_gen_range *r)
{
	return r->hi - r->lo + 1;
}

void tp_gen_template_register(struct tp_gen_template *t);
const struct tp_gen_template *tp_gen_template_find(const char *name);
const struct tp_gen_template *tp_gen_template_first(void);

#define TP_GEN_TEMPLATE_REGISTER(t)                                                                \
	RTE_INIT(tp_gen_template_register_##t)                                                     \
	{                                                                                          \
		tp_gen_template_register(&t);                                                      \
	}

#endif
