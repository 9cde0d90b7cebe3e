/* SPDX-License-Identifier: BSD-3-Clause */
/* Template ndn: an NDN consumer, Interests in NDNLPv2 LpPackets whose PIT token
 * carries the generator's signature, over Ethernet (0x8624) or IPv4/UDP (6363).
 *
 * Names are /PREFIX/<i>/<j>/<padding...>/<seq>: i in 0..streams-i - 1 and j in
 * 0..variants-j - 1 as decimal GenericNameComponents zero-padded to the width of
 * the largest (so every frame has the same length), then GenericNameComponents
 * "p0", "p1"... until the name has comps components, then a SequenceNum (naming
 * conventions rev 3, type 0x3a) of 8 bytes. Frame n of the stream (n counts
 * over its whole life) asks for (i, j) number n mod (streams-i x variants-j),
 * j fastest, with seq = n div (streams-i x variants-j), mod seq-mod when given:
 * every name is new until seq-mod wraps, and with seq-mod N the stream asks
 * for the same streams-i x variants-j x N names in turn (Content Store hits).
 *
 * Every field a frame changes is written in place by update(): the digits of
 * i and j, the 8 bytes of seq, and the Nonce (a bijective mix of the frame
 * count and the stream id, so no two Interests of the generator repeat a nonce
 * over 2^26 frames of each stream). The Interest and the LpPacket are encoded
 * once, with the project's codec (src/proto/ndn.h), in parse(); the offsets of
 * those fields are found by decoding the result with the same codec.
 *
 * Frame length: the name decides it. "size N" is a minimum: a frame shorter
 * than N - 4 bytes is padded with zeros after the LpPacket (Ethernet padding:
 * outside the IPv4 and UDP lengths with encap udp). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../proto/ip4.h"
#include "../proto/parse.h"
#include "../proto/udp.h"
#include "../proto/ndn.h"
#include "engine.h"
#include "template.h"

#define ETHERTYPE_NDN 0x8624 /* NDN over Ethernet (NFD's EthernetTransport) */
#define NDN_UDP_PORT 6363
#define SEQ_LEN 8
#define FRAME_MAX 9014 /* 9018 with FCS */
#define ETH_MIN 60     /* without FCS */
#define STREAM_BITS 6  /* the stream id in the nonce */
_Static_assert(TP_GEN_MAX_STREAMS <= 1 << STREAM_BITS, "stream ids fit the nonce's low bits");

struct ndn_tmpl {
	uint8_t *frame; /* the frame of (0, 0, seq 0), nonce 0 */
	uint32_t len, sig_off;
	uint32_t i_off, j_off, seq_off, nonce_off;
	uint8_t i_width, j_width;
	uint32_t n_i, n_j;
	uint64_t seq_mod; /* 0: none */
};

static unsigned int digits(uint32_t v)
{
	unsigned int d = 1;

	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

/* The value of component k of n, as an offset in frame. */
static uint32_t comp_value_off(const struct tp_ndn_name *n, unsigned int k, const uint8_t *frame)
{
	uint16_t tlv_len;
	const uint8_t *c = tp_ndn_name_comp(n, k, &tlv_len), *p = c;
	struct tp_ndn_tlv t;

	tp_ndn_tlv_read(&p, c + tlv_len, &t);
	return (uint32_t)(t.value - frame);
}

/* Encode the frame of t's words and find its per-frame fields. */
static int build_frame(struct ndn_tmpl *t, const struct tp_ndn_interest_spec *is, bool udp,
		       const uint8_t dmac[6], const uint8_t smac[6], uint32_t src, uint32_t dst,
		       uint16_t sport, uint16_t dport, uint32_t min_len, unsigned int n_prefix,
		       char *err, size_t errlen)
{
	static const uint8_t token[TP_GEN_SIG_LEN]; /* the signature goes there */
	uint8_t interest[TP_NDN_NAME_MAX_LEN + 64], lp[sizeof(interest) + 64];
	uint32_t hdr = TP_ETH_HDR_LEN + (udp ? TP_IP4_HDR_LEN + 8 : 0);
	struct tp_ndn_lp dl;
	struct tp_ndn_interest di;
	struct tp_ndn_tlv f;
	int il, ll;

	il = tp_ndn_interest_encode(interest, sizeof(interest), is);
	if (il < 0) {
		snprintf(err, errlen, "the Interest does not encode: %s", tp_ndn_err_name(-il));
		return -EINVAL;
	}
	struct tp_ndn_lp_spec ls = {.payload = interest,
				    .payload_len = (uint32_t)il,
				    .pit_token_len = TP_GEN_SIG_LEN,
				    .pit_token = token};
	ll = tp_ndn_lp_encode(lp, sizeof(lp), &ls);
	if (ll < 0) {
		snprintf(err, errlen, "the LpPacket does not encode: %s", tp_ndn_err_name(-ll));
		return -EINVAL;
	}
	t->len = hdr + (uint32_t)ll;
	if (t->len < min_len)
		t->len = min_len;
	if (t->len < ETH_MIN)
		t->len = ETH_MIN;
	if (t->len > FRAME_MAX) {
		snprintf(err, errlen, "frames of %u bytes with FCS: at most %u", t->len + 4,
			 FRAME_MAX + 4);
		return -EMSGSIZE;
	}
	t->frame = calloc(1, t->len);
	if (t->frame == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memcpy(t->frame, dmac, 6);
	memcpy(t->frame + 6, smac, 6);
	if (udp) {
		uint8_t *u = t->frame + TP_ETH_HDR_LEN + TP_IP4_HDR_LEN;
		uint16_t ulen = (uint16_t)(TP_UDP_HDR_LEN + ll);
		t->frame[12] = TP_ETHERTYPE_IP4 >> 8;
		t->frame[13] = TP_ETHERTYPE_IP4 & 0xff;
		tp_ip4_write(t->frame + TP_ETH_HDR_LEN, htonl(src), htonl(dst), 17, 64, ulen, 0);
		/* UDP checksum 0: none (RFC 768), nonce and signature change every frame */
		tp_udp_write(u, (uint16_t)sport, (uint16_t)dport, (uint16_t)ll);
	} else {
		t->frame[12] = ETHERTYPE_NDN >> 8;
		t->frame[13] = ETHERTYPE_NDN & 0xff;
	}
	memcpy(t->frame + hdr, lp, (size_t)ll);

	/* where the fields are: decode what was encoded */
	const uint8_t *p = t->frame + hdr, *end = p + ll;
	struct tp_ndn_tlv outer;
	if (tp_ndn_tlv_read(&p, end, &outer) != TP_NDN_E_OK ||
	    tp_ndn_lp_decode(t->frame + hdr, (size_t)ll, &dl) != TP_NDN_E_OK ||
	    tp_ndn_interest_decode(dl.payload, dl.payload_len, &di, NULL) != TP_NDN_E_OK)
		goto internal;
	t->sig_off = 0;
	for (p = outer.value; p < outer.end;) {
		if (tp_ndn_tlv_read(&p, outer.end, &f) != TP_NDN_E_OK)
			goto internal;
		if (f.type == TP_NDN_T_LP_PIT_TOKEN && f.len == TP_GEN_SIG_LEN)
			t->sig_off = (uint32_t)(f.value - t->frame);
	}
	unsigned int nc = di.name.n_comps;
	if (t->sig_off == 0 || nc < n_prefix + 3)
		goto internal;
	t->i_off = comp_value_off(&di.name, n_prefix, t->frame);
	t->j_off = comp_value_off(&di.name, n_prefix + 1, t->frame);
	t->nonce_off = (uint32_t)(di.nonce_pos - t->frame);
	t->seq_off = comp_value_off(&di.name, nc - 1, t->frame);
	return 0;
internal:
	snprintf(err, errlen, "internal: the codec does not decode what it encoded");
	free(t->frame);
	t->frame = NULL;
	return -EPROTO;
}

static void tmpl_free(void *state)
{
	struct ndn_tmpl *t = state;

	if (t)
		free(t->frame);
	free(t);
}

static const char usage[] =
    "[encap eth|udp] [dmac MAC] [smac MAC] [src A.B.C.D] [dst A.B.C.D] [sport N] [dport N] "
    "[prefix URI] [streams-i N] [variants-j N] [comps N] [must-be-fresh] [can-be-prefix] "
    "[lifetime MS] [hop-limit N] [seq-mod N]";

static void *parse(int argc, char **argv, uint32_t frame_len, char *err, size_t errlen)
{
	struct ndn_tmpl *t = calloc(1, sizeof(*t));
	uint8_t dmac[6] = {0x01, 0x00, 0x5e, 0x00, 0x17, 0xaa}; /* NDN's Ethernet multicast group */
	uint8_t smac[6] = {0x02, 0, 0, 0, 0, 0x02};
	bool udp = false, dmac_set = false, ip_words = false;
	uint32_t src = 0xc6120002, dst = 0xc6130002; /* 198.18.0.2 -> 198.19.0.2 (RFC 2544) */
	uint64_t sport = NDN_UDP_PORT, dport = NDN_UDP_PORT, comps = 0, x = 0;
	const char *prefix = "/tp";
	struct tp_ndn_interest_spec is = {.lifetime_ms = -1, .hop_limit = -1};
	uint8_t name[TP_NDN_NAME_MAX_LEN];
	struct tp_ndn_name pn;
	int plen, bad;

	if (t == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->n_i = t->n_j = 1;
	for (int i = 0; i < argc; i += 2) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		/* the flags take no value */
		if (strcmp(k, "must-be-fresh") == 0 || strcmp(k, "can-be-prefix") == 0) {
			*(k[0] == 'm' ? &is.must_be_fresh : &is.can_be_prefix) = true;
			i--;
			continue;
		}
		if (strcmp(k, "encap") && strcmp(k, "dmac") && strcmp(k, "smac") &&
		    strcmp(k, "src") && strcmp(k, "dst") && strcmp(k, "sport") &&
		    strcmp(k, "dport") && strcmp(k, "prefix") && strcmp(k, "streams-i") &&
		    strcmp(k, "variants-j") && strcmp(k, "comps") && strcmp(k, "lifetime") &&
		    strcmp(k, "hop-limit") && strcmp(k, "seq-mod")) {
			snprintf(err, errlen, "unknown ndn option '%s' (%s)", k, usage);
			goto fail;
		}
		if (v == NULL) {
			snprintf(err, errlen, "'%s' needs a value", k);
			goto fail;
		}
		bad = 0;
		if (strcmp(k, "encap") == 0) {
			if (strcmp(v, "udp") && strcmp(v, "eth")) {
				snprintf(err, errlen, "bad encap '%s' (eth or udp)", v);
				goto fail;
			}
			udp = strcmp(v, "udp") == 0;
		} else if (strcmp(k, "dmac") == 0) {
			bad = tp_mac_parse(v, dmac);
			dmac_set = true;
		} else if (strcmp(k, "smac") == 0) {
			bad = tp_mac_parse(v, smac);
		} else if (strcmp(k, "src") == 0 || strcmp(k, "dst") == 0) {
			bad = tp_ip4_parse_addr(v, k[0] == 's' ? &src : &dst);
			ip_words = true;
		} else if (strcmp(k, "sport") == 0 || strcmp(k, "dport") == 0) {
			bad = tp_parse_u64(v, 1, 65535, k[0] == 's' ? &sport : &dport);
			ip_words = true;
		} else if (strcmp(k, "prefix") == 0) {
			prefix = v;
		} else if (strcmp(k, "streams-i") == 0 || strcmp(k, "variants-j") == 0) {
			bad = tp_parse_u64(v, 1, 1000000, &x);
			*(k[0] == 's' ? &t->n_i : &t->n_j) = (uint32_t)x;
		} else if (strcmp(k, "comps") == 0) {
			bad = tp_parse_u64(v, 1, 65535, &comps);
		} else if (strcmp(k, "lifetime") == 0) {
			bad = tp_parse_u64(v, 0, 3600000, &x);
			is.lifetime_ms = (int64_t)x;
		} else if (strcmp(k, "hop-limit") == 0) {
			bad = tp_parse_u64(v, 0, 255, &x);
			is.hop_limit = (int)x;
		} else {
			bad = tp_parse_u64(v, 1, UINT64_MAX, &t->seq_mod);
		}
		if (bad) {
			snprintf(err, errlen, "bad %s '%s'", k, v);
			goto fail;
		}
	}
	if (ip_words && !udp) {
		snprintf(err, errlen, "src, dst, sport and dport go with encap udp");
		goto fail;
	}
	if (udp && !dmac_set)
		memcpy(dmac, (uint8_t[]){0x02, 0, 0, 0, 0, 0x01}, 6); /* as ip4-udp's */
	if ((uint64_t)t->n_i * t->n_j > UINT32_MAX) {
		snprintf(err, errlen, "streams-i x variants-j: at most %u names per round",
			 UINT32_MAX);
		goto fail;
	}

	/* the name, from one URI through the codec: prefix, i, j, padding, seq */
	plen = tp_ndn_name_from_uri(prefix, name, sizeof(name));
	if (plen < 0) {
		snprintf(err, errlen, "bad prefix '%s': %s", prefix, tp_ndn_err_name(-plen));
		goto fail;
	}
	pn.n_comps = 0;
	if (plen > 0 && tp_ndn_name_decode(name, (size_t)plen, &pn) != TP_NDN_E_OK) {
		snprintf(err, errlen, "bad prefix '%s'", prefix);
		goto fail;
	}
	unsigned int need = pn.n_comps + 3u;
	if (comps == 0)
		comps = need;
	if (comps < need) {
		snprintf(err, errlen,
			 "comps %u: too few for prefix %s (%u components), <i>, <j> and <seq>: "
			 "at least %u",
			 (unsigned int)comps, prefix, pn.n_comps, need);
		goto fail;
	}
	if (comps > TP_NDN_NAME_MAX_COMPS) {
		snprintf(err, errlen, "comps %u: at most %d", (unsigned int)comps,
			 TP_NDN_NAME_MAX_COMPS);
		goto fail;
	}
	t->i_width = (uint8_t)digits(t->n_i - 1);
	t->j_width = (uint8_t)digits(t->n_j - 1);
	/* the rest of the name appended to the prefix's components, also from a URI */
	char uri[64 * 16];
	size_t u = (size_t)snprintf(uri, sizeof(uri), "/%0*u/%0*u", t->i_width, 0, t->j_width, 0);
	for (unsigned int k = 0; k < comps - need; k++)
		u += (size_t)snprintf(uri + u, sizeof(uri) - u, "/p%u", k);
	u += (size_t)snprintf(uri + u, sizeof(uri) - u, "/%d=", TP_NDN_T_SEQUENCE_NUM);
	for (unsigned int k = 0; k < SEQ_LEN; k++)
		u += (size_t)snprintf(uri + u, sizeof(uri) - u, "%%00");
	int slen = tp_ndn_name_from_uri(uri, name + plen, sizeof(name) - (size_t)plen);
	if (slen < 0) {
		snprintf(err, errlen, "the name does not fit an NDN name (%d bytes at most)",
			 TP_NDN_NAME_MAX_LEN);
		goto fail;
	}
	plen += slen;
	is.name_value = name;
	is.name_len = (uint16_t)plen;
	if (build_frame(t, &is, udp, dmac, smac, src, dst, (uint16_t)sport, (uint16_t)dport,
			frame_len, pn.n_comps, err, errlen) < 0)
		goto fail;
	return t;
fail:
	tmpl_free(t);
	return NULL;
}

static uint32_t variants(const void *state)
{
	RTE_SET_USED(state);
	return 1; /* update() writes what changes */
}

static void build(const void *state, uint32_t i, uint8_t *buf, uint32_t frame_len)
{
	const struct ndn_tmpl *t = state;

	RTE_SET_USED(i);
	memcpy(buf, t->frame, frame_len);
}

static inline void write_dec(uint8_t *p, unsigned int width, uint32_t v)
{
	while (width-- > 0) {
		p[width] = (uint8_t)('0' + v % 10);
		v /= 10;
	}
}

/* murmur3's finaliser: a bijection of 32-bit words, so distinct inputs give
 * distinct nonces that do not look sequential */
static inline uint32_t mix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6b;
	h ^= h >> 13;
	h *= 0xc2b2ae35;
	h ^= h >> 16;
	return h;
}

static void update(const void *state, uint16_t stream, uint64_t n, uint8_t *buf, uint32_t frame_len)
{
	const struct ndn_tmpl *t = state;
	uint64_t names = (uint64_t)t->n_i * t->n_j, round = n, v = 0;
	uint8_t *p;

	RTE_SET_USED(frame_len);
	if (names > 1) {
		round = n / names;
		v = n % names;
		write_dec(buf + t->i_off, t->i_width, (uint32_t)(v / t->n_j));
		write_dec(buf + t->j_off, t->j_width, (uint32_t)(v % t->n_j));
	}
	if (t->seq_mod)
		round %= t->seq_mod;
	p = buf + t->seq_off;
	for (int k = SEQ_LEN - 1; k >= 0; k--, round >>= 8)
		p[k] = (uint8_t)round;
	/* the constant keeps the first frame's nonce from being 0 */
	uint32_t nonce = mix32(((uint32_t)(n << STREAM_BITS) | stream) + 0x9e3779b9u);
	memcpy(buf + t->nonce_off, &nonce, 4);
}

static uint32_t ndn_frame_len(const void *state)
{
	return ((const struct ndn_tmpl *)state)->len;
}

static uint32_t sig_offset(const void *state)
{
	return ((const struct ndn_tmpl *)state)->sig_off;
}

/* NDNLPv2 Nack reasons, as the generator counts them */
static uint8_t nack_kind(uint32_t reason)
{
	switch (reason) {
	case TP_NDN_NACK_CONGESTION:
		return TP_GEN_NACK_CONGESTION;
	case TP_NDN_NACK_DUPLICATE:
		return TP_GEN_NACK_DUPLICATE;
	case TP_NDN_NACK_NO_ROUTE:
		return TP_GEN_NACK_NO_ROUTE;
	default:
		return TP_GEN_NACK_OTHER;
	}
}

/* An answer to our Interests: an LpPacket with a 12-byte PIT token (ours, echoed)
 * holding a Data, or a Nack. Fragments are not reassembled: they are not answers
 * here (stray frames). */
static int rx_decode(const uint8_t *frame, uint32_t len, struct tp_gen_rx *rx)
{
	const uint8_t *ndn;
	uint32_t nlen;
	struct tp_ndn_lp lp;

	if (len < TP_ETH_HDR_LEN + 1)
		return 0;
	if (frame[12] == ETHERTYPE_NDN >> 8 && frame[13] == (ETHERTYPE_NDN & 0xff)) {
		ndn = frame + TP_ETH_HDR_LEN;
		nlen = len - TP_ETH_HDR_LEN;
	} else if (frame[12] == TP_ETHERTYPE_IP4 >> 8 && frame[13] == (TP_ETHERTYPE_IP4 & 0xff)) {
		const uint8_t *ip = frame + TP_ETH_HDR_LEN;
		uint32_t ihl = (ip[0] & 0x0fu) * 4;
		if (len < TP_ETH_HDR_LEN + TP_IP4_HDR_LEN + 8 + 1 || ip[9] != 17 || ihl < 20 ||
		    len < TP_ETH_HDR_LEN + ihl + 8 + 1)
			return 0;
		struct tp_udp_view uv;
		int plen = tp_udp_read(ip + ihl, len - TP_ETH_HDR_LEN - ihl, &uv);
		if (plen < 1)
			return 0;
		ndn = ip + ihl + TP_UDP_HDR_LEN;
		nlen = (uint32_t)plen;
	} else {
		return 0;
	}
	if (ndn[0] != TP_NDN_T_LP_PACKET || tp_ndn_lp_decode(ndn, nlen, &lp) != TP_NDN_E_OK ||
	    lp.pit_token_len != TP_GEN_SIG_LEN)
		return 0;
	if (lp.is_nack) {
		rx->kind = TP_GEN_RX_NACK;
		rx->nack = nack_kind(lp.nack_reason);
	} else if (lp.frag_count == 1 && lp.payload[0] == TP_NDN_T_DATA) {
		rx->kind = TP_GEN_RX_ANSWER;
	} else {
		return 0;
	}
	memcpy(&rx->sig, lp.pit_token, TP_GEN_SIG_LEN);
	return 1;
}

static struct tp_gen_template ndn = {
    .name = "ndn",
    .usage = usage,
    .parse = parse,
    .variants = variants,
    .build = build,
    .update = update,
    .free = tmpl_free,
    .frame_len = ndn_frame_len,
    .sig_offset = sig_offset,
    .rx_decode = rx_decode,
};
TP_GEN_TEMPLATE_REGISTER(ndn)
