/* SPDX-License-Identifier: BSD-3-Clause */
/* The NDN producer port: every Interest in, a Data (or a Nack) out, on the worker.
 *
 * An Interest arrives over Ethernet (EtherType 0x8624) or IPv4/UDP to port 6363,
 * bare or in an NDNLPv2 LpPacket, and is decoded with the project's codec
 * (tp_ndn_lp_decode, tp_ndn_interest_decode). The answer is built in a fresh mbuf
 * from the decoded name: Ethernet (and IPv4/UDP) addresses swapped, then the Data
 * -- bare when the Interest was bare, in an LpPacket echoing its PIT token when it
 * came in one -- or, with "nack", an LpPacket with Nack/NackReason holding the
 * Interest (NDNLPv2 "Network NACK").
 *
 * The Data is signed with DigestSha256 ("sign digest", tp_ndn_data_encode: one
 * SHA-256 per Data), or by default with the null signature python-ndn's NullSigner
 * writes: SignatureType 200, an empty SignatureValue. The codec's Data encoder only
 * signs with DigestSha256, so the null-signed Data is the codec's encoding of a
 * Data with a stand-in name, made once at port add and decoded again to find its
 * parts: per Interest the producer writes the Data and Name headers, the name, and
 * that encoding's MetaInfo, Content and SignatureInfo (SignatureType patched to 200)
 * followed by an empty SignatureValue -- no hashing on the fast path. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>

#include "../proto/ip4.h"
#include "../proto/parse.h"
#include "../proto/udp.h"
#include "../proto/ndn.h"
#include "ndn_producer.h"

#define ETHERTYPE_NDN 0x8624
#define NDN_UDP_PORT 6363
#define SIG_TYPE_NULL 200 /* python-ndn's NullSigner; NDN-DPDK's "null" signature */
#define PAYLOAD_MAX 8800

static const struct {
	const char *name;
	uint32_t reason;
} nack_names[] = {
    {"congestion", TP_NDN_NACK_CONGESTION},
    {"duplicate", TP_NDN_NACK_DUPLICATE},
    {"no-route", TP_NDN_NACK_NO_ROUTE},
    {"unspecified", TP_NDN_NACK_UNSPECIFIED},
};

const char *gen_ndn_nack_name(uint32_t reason)
{
	for (unsigned int k = 0; k < RTE_DIM(nack_names); k++)
		if (nack_names[k].reason == reason)
			return nack_names[k].name;
	return NULL;
}

int gen_ndn_producer_option(struct gen_ndn_producer_conf *c, const char *k, const char *v,
			    char *err, size_t errlen)
{
	uint64_t x;

	if (strcmp(k, "producer") == 0) {
		if (strcmp(v, "ndn") != 0) {
			snprintf(err, errlen, "producer: unknown kind '%s' (ndn)", v);
			return -EINVAL;
		}
		c->on = true;
	} else if (strcmp(k, "payload") == 0) {
		if (tp_parse_u64(v, 0, PAYLOAD_MAX, &x) < 0) {
			snprintf(err, errlen, "payload: bad size '%s' (0-%d bytes)", v,
				 PAYLOAD_MAX);
			return -EINVAL;
		}
		c->payload = (uint32_t)x;
	} else if (strcmp(k, "freshness") == 0) {
		if (tp_parse_u64(v, 0, UINT32_MAX, &x) < 0) {
			snprintf(err, errlen, "freshness: bad period '%s' (milliseconds)", v);
			return -EINVAL;
		}
		c->freshness_ms = (int64_t)x;
	} else if (strcmp(k, "nack") == 0) {
		unsigned int n = 0;
		while (n < RTE_DIM(nack_names) && strcmp(nack_names[n].name, v))
			n++;
		if (n < RTE_DIM(nack_names)) {
			c->nack_reason = nack_names[n].reason;
		} else if (tp_parse_u64(v, 0, UINT32_MAX, &x) == 0) {
			c->nack_reason = (uint32_t)x; /* 0: a Nack without NackReason */
		} else {
			snprintf(err, errlen,
				 "nack: bad reason '%s' (congestion, duplicate, no-route, "
				 "unspecified or a number)",
				 v);
			return -EINVAL;
		}
		c->nack = true;
	} else if (strcmp(k, "sign") == 0) {
		if (strcmp(v, "digest") && strcmp(v, "null")) {
			snprintf(err, errlen, "sign: bad signature '%s' (digest or null)", v);
			return -EINVAL;
		}
		c->sign_digest = strcmp(v, "digest") == 0;
	} else {
		return 0;
	}
	return 1;
}

/* Data of name (a Name's TLV-VALUE) into out (cap bytes): its length, or < 0. */
static int data_build(const struct gen_ndn_producer *p, const uint8_t *name, uint16_t name_len,
		      uint8_t *out, size_t cap)
{
	if (p->conf.sign_digest) {
		struct tp_ndn_data_spec ds = {.name_value = name,
					      .name_len = name_len,
					      .content_type = -1,
					      .freshness_ms = p->conf.freshness_ms,
					      .content = p->content,
					      .content_len = p->conf.payload};
		return tp_ndn_data_encode(out, cap, &ds);
	}
	/* 4: Data = Name MetaInfo? Content? SignatureInfo SignatureValue */
	size_t nl = tp_ndn_varnum_size(TP_NDN_T_NAME) + tp_ndn_varnum_size(name_len) + name_len;
	size_t val = nl + p->tail_len;
	size_t len = tp_ndn_varnum_size(TP_NDN_T_DATA) + tp_ndn_varnum_size(val) + val;
	uint8_t *q = out;
	if (len > cap)
		return -TP_NDN_E_NO_SPACE;
	q += tp_ndn_varnum_write(q, TP_NDN_T_DATA);
	q += tp_ndn_varnum_write(q, val);
	q += tp_ndn_varnum_write(q, TP_NDN_T_NAME);
	q += tp_ndn_varnum_write(q, name_len);
	memcpy(q, name, name_len);
	memcpy(q + name_len, p->tail, p->tail_len);
	return (int)len;
}

/* The null-signed Data's tail, from the codec's encoding of a Data named "/x". */
static int tail_build(struct gen_ndn_producer *p, char *err, size_t errlen)
{
	static const uint8_t stand_in[] = {TP_NDN_T_GENERIC, 1, 'x'};
	static const uint8_t siginfo[] = {TP_NDN_T_SIG_INFO, 3, TP_NDN_T_SIG_TYPE, 1,
					  TP_NDN_SIG_DIGEST_SHA256};
	size_t cap = p->conf.payload + 128;
	uint8_t *buf = malloc(cap);
	struct tp_ndn_data d;
	int n, ret = -EPROTO;

	if (buf == NULL || (p->tail = malloc(cap)) == NULL) {
		snprintf(err, errlen, "out of memory");
		free(buf);
		return -ENOMEM;
	}
	struct tp_ndn_data_spec ds = {.name_value = stand_in,
				      .name_len = sizeof(stand_in),
				      .content_type = -1,
				      .freshness_ms = p->conf.freshness_ms,
				      .content = p->content,
				      .content_len = p->conf.payload};
	n = tp_ndn_data_encode(buf, cap, &ds);
	if (n < 0 || tp_ndn_data_decode(buf, (size_t)n, &d, NULL) != TP_NDN_E_OK)
		goto out;
	/* from the end of the Name to the end of SignatureInfo, which must be the
	 * codec's DigestSha256 one (5.1: SignatureInfo = SignatureType only) */
	const uint8_t *from = d.name.value + d.name.len;
	size_t l = (size_t)(d.signed_end - from);
	if (l < sizeof(siginfo) || memcmp(d.signed_end - sizeof(siginfo), siginfo, sizeof(siginfo)))
		goto out;
	memcpy(p->tail, from, l);
	p->tail[l - 1] = SIG_TYPE_NULL; /* a one-byte NonNegativeInteger still */
	p->tail[l] = TP_NDN_T_SIG_VALUE;
	p->tail[l + 1] = 0;
	p->tail_len = (uint32_t)l + 2;
	/* what the fast path will write decodes as a null-signed Data */
	n = data_build(p, stand_in, sizeof(stand_in), buf, cap);
	if (n > 0 && tp_ndn_data_decode(buf, (size_t)n, &d, NULL) == TP_NDN_E_OK &&
	    d.sig_type == SIG_TYPE_NULL && d.content_len == p->conf.payload)
		ret = 0;
out:
	if (ret < 0)
		snprintf(err, errlen,
			 "internal: the codec's Data does not have the layout expected");
	free(buf);
	return ret;
}

struct gen_ndn_producer *gen_ndn_producer_new(const struct gen_ndn_producer_conf *c,
					      uint32_t data_room, char *err, size_t errlen)
{
	struct gen_ndn_producer *p = calloc(1, sizeof(*p));
	static const uint8_t one[] = {TP_NDN_T_GENERIC, 1, 'x'};
	uint8_t token[TP_NDN_PIT_TOKEN_MAX] = {0};

	if (p == NULL || (p->content = calloc(1, c->payload + 1)) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	p->conf = *c;
	if (c->nack && (c->payload || c->freshness_ms >= 0 || c->sign_digest)) {
		snprintf(err, errlen, "nack: a Nack carries no payload, freshness or signature");
		goto fail;
	}
	if (c->nack)
		return p;
	if (!c->sign_digest && tail_build(p, err, errlen) < 0)
		goto fail;
	/* the largest answer to a one-component name must fit one mbuf */
	size_t cap = c->payload + 256;
	uint8_t *d = malloc(cap), *lp = malloc(cap + 64);
	int dl = d ? data_build(p, one, sizeof(one), d, cap) : -1, ll = -1;
	if (dl > 0 && lp) {
		struct tp_ndn_lp_spec ls = {.payload = d,
					    .payload_len = (uint32_t)dl,
					    .pit_token_len = TP_NDN_PIT_TOKEN_MAX,
					    .pit_token = token};
		ll = tp_ndn_lp_encode(lp, cap + 64, &ls);
	}
	free(d);
	free(lp);
	if (ll < 0) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	uint32_t need = TP_ETH_HDR_LEN + TP_IP4_HDR_LEN + TP_UDP_HDR_LEN + (uint32_t)ll;
	if (need > data_room) {
		snprintf(err, errlen,
			 "payload %u: a Data answer (%u bytes with its headers) does not fit the "
			 "generator's mbufs (%u bytes): at most %u bytes of payload",
			 c->payload, need, data_room, c->payload - (need - data_room));
		goto fail;
	}
	return p;
fail:
	gen_ndn_producer_free(p);
	return NULL;
}

void gen_ndn_producer_free(struct gen_ndn_producer *p)
{
	if (p == NULL)
		return;
	free(p->content);
	free(p->tail);
	free(p);
}

void gen_ndn_producer_trial_reset(struct gen_ndn_producer *p)
{
	memset(&p->trial, 0, sizeof(p->trial));
}

enum verdict {
	NOT_NDN,  /* not an Interest: the engine's */
	ANSWERED, /* *out is the answer */
	CONSUMED, /* counted (malformed, or no answer possible) */
};

/* Answer m (received on port): the answer's mbuf in *out. */
static enum verdict answer(const struct gen_ndn_producer *pr, const struct gen_port *port,
			   struct rte_mbuf *m, struct rte_mbuf **out,
			   struct gen_ndn_producer_counters *c)
{
	static uint8_t flat[RTE_MBUF_DEFAULT_BUF_SIZE * 5];    /* a chained frame, the worker's */
	static uint8_t scratch[RTE_MBUF_DEFAULT_BUF_SIZE * 5]; /* a Data to put in an LpPacket */
	const uint8_t *f, *ndn;
	uint32_t len = m->pkt_len, hdr, nlen;
	struct tp_ndn_lp lp;
	struct tp_ndn_interest in;
	struct tp_udp_view uv = {0};
	bool udp;

	if (len > sizeof(flat) || len < TP_ETH_HDR_LEN + 2)
		return NOT_NDN;
	f = rte_pktmbuf_read(m, 0, len, flat);
	if (f[12] == ETHERTYPE_NDN >> 8 && f[13] == (ETHERTYPE_NDN & 0xff)) {
		udp = false;
		hdr = TP_ETH_HDR_LEN;
		nlen = len - hdr;
	} else if (f[12] == TP_ETHERTYPE_IP4 >> 8 && f[13] == (TP_ETHERTYPE_IP4 & 0xff)) {
		const uint8_t *ip = f + TP_ETH_HDR_LEN;
		uint32_t ihl = (ip[0] & 0x0fu) * 4;
		if (len < TP_ETH_HDR_LEN + TP_IP4_HDR_LEN + TP_UDP_HDR_LEN || ip[9] != 17 ||
		    ihl < TP_IP4_HDR_LEN || len < TP_ETH_HDR_LEN + ihl + TP_UDP_HDR_LEN)
			return NOT_NDN;
		if (((ip + ihl)[2] << 8 | (ip + ihl)[3]) != NDN_UDP_PORT)
			return NOT_NDN;
		udp = true;
		hdr = TP_ETH_HDR_LEN + ihl + TP_UDP_HDR_LEN;
		int plen = tp_udp_read(ip + ihl, len - TP_ETH_HDR_LEN - ihl, &uv);
		if (plen < 0) {
			c->rx_malformed++;
			return CONSUMED;
		}
		nlen = (uint32_t)plen;
	} else {
		return NOT_NDN;
	}
	ndn = f + hdr;
	if (tp_ndn_lp_decode(ndn, nlen, &lp) != TP_NDN_E_OK || lp.frag_count > 1) {
		c->rx_malformed++;
		return CONSUMED;
	}
	if (lp.is_nack || lp.payload[0] != TP_NDN_T_INTEREST)
		return NOT_NDN; /* a Data or a Nack: the engine may be waiting for it */
	if (tp_ndn_interest_decode(lp.payload, lp.payload_len, &in, NULL) != TP_NDN_E_OK) {
		c->rx_malformed++;
		return CONSUMED;
	}
	c->rx_interests++;

	struct rte_mbuf *o = rte_pktmbuf_alloc(m->pool);
	if (o == NULL) {
		c->drop_nombuf++;
		return CONSUMED;
	}
	uint8_t *a = rte_pktmbuf_mtod(o, uint8_t *);
	uint32_t hl = udp ? TP_ETH_HDR_LEN + TP_IP4_HDR_LEN + TP_UDP_HDR_LEN : TP_ETH_HDR_LEN;
	size_t cap = rte_pktmbuf_tailroom(o) - hl;
	int n;
	bool in_lp = ndn[0] == TP_NDN_T_LP_PACKET;
	struct tp_ndn_lp_spec ls = {.pit_token_len = lp.pit_token_len, .pit_token = lp.pit_token};
	if (pr->conf.nack) {
		ls.payload = lp.payload;
		ls.payload_len = lp.payload_len;
		ls.nack = true;
		ls.nack_reason = pr->conf.nack_reason;
		n = tp_ndn_lp_encode(a + hl, cap, &ls);
	} else if (in_lp) {
		n = data_build(pr, in.name.value, in.name.len, scratch, sizeof(scratch));
		ls.payload = scratch;
		ls.payload_len = n > 0 ? (uint32_t)n : 0;
		if (n > 0)
			n = tp_ndn_lp_encode(a + hl, cap, &ls);
	} else {
		n = data_build(pr, in.name.value, in.name.len, a + hl, cap);
	}
	if (n <= 0) {
		rte_pktmbuf_free(o);
		c->drop_too_big++;
		return CONSUMED;
	}
	/* the way back: addresses swapped; a multicast destination (NDN's Ethernet
	 * group) is no source: the port's own address then */
	memcpy(a, f + 6, 6);
	memcpy(a + 6, (f[0] & 1) ? port->mac : f, 6);
	a[12] = f[12];
	a[13] = f[13];
	if (udp) {
		const uint8_t *ip = f + TP_ETH_HDR_LEN;
		uint32_t src, dst;
		memcpy(&src, ip + 12, 4);
		memcpy(&dst, ip + 16, 4);
		tp_ip4_write(a + TP_ETH_HDR_LEN, dst, src, 17, 64, (uint16_t)(TP_UDP_HDR_LEN + n),
			     0);
		/* ports swapped, no checksum (RFC 768) */
		tp_udp_write(a + TP_ETH_HDR_LEN + TP_IP4_HDR_LEN, uv.dport, uv.sport, (uint16_t)n);
	}
	o->data_len = (uint16_t)(hl + (uint32_t)n);
	o->pkt_len = o->data_len;
	*out = o;
	if (pr->conf.nack)
		c->tx_nacks++;
	else
		c->tx_data++;
	return ANSWERED;
}

static void counters_add(struct gen_ndn_producer_counters *to,
			 const struct gen_ndn_producer_counters *c)
{
	to->rx_interests += c->rx_interests;
	to->tx_data += c->tx_data;
	to->tx_nacks += c->tx_nacks;
	to->rx_malformed += c->rx_malformed;
	to->drop_tx_full += c->drop_tx_full;
	to->drop_nombuf += c->drop_nombuf;
	to->drop_too_big += c->drop_too_big;
}

#define CHUNK 64

/* One chunk of up to CHUNK frames. */
static uint16_t produce(struct gen_port *p, struct rte_mbuf **pkts, uint16_t n,
			struct gen_ndn_producer_counters *c)
{
	const struct gen_ndn_producer *pr = p->ndn;
	struct rte_mbuf *out[CHUNK], *done[CHUNK];
	uint16_t kept = 0, n_out = 0, n_done = 0;

	for (uint16_t k = 0; k < n; k++) {
		switch (answer(pr, p, pkts[k], &out[n_out], c)) {
		case NOT_NDN:
			pkts[kept++] = pkts[k];
			break;
		case ANSWERED:
			n_out++;
			/* fall through */
		case CONSUMED:
			done[n_done++] = pkts[k];
			break;
		}
	}
	rte_pktmbuf_free_bulk(done, n_done);
	if (n_out) {
		uint16_t sent = rte_eth_tx_burst(p->id, 0, out, n_out);
		if (sent < n_out) {
			/* the refused answers were counted as sent: they are drops */
			*(pr->conf.nack ? &c->tx_nacks : &c->tx_data) -= n_out - sent;
			c->drop_tx_full += n_out - sent;
			rte_pktmbuf_free_bulk(&out[sent], n_out - sent);
		}
	}
	return kept;
}

uint16_t gen_ndn_produce(struct gen_port *p, struct rte_mbuf **pkts, uint16_t n, bool count)
{
	struct gen_ndn_producer_counters c = {0};
	uint16_t kept = 0;

	for (uint16_t k = 0; k < n; k += CHUNK) {
		uint16_t m = (uint16_t)RTE_MIN(CHUNK, n - k);
		uint16_t left = produce(p, pkts + k, m, &c);
		memmove(pkts + kept, pkts + k, left * sizeof(*pkts));
		kept = (uint16_t)(kept + left);
	}
	counters_add(&p->ndn->total, &c);
	if (count)
		counters_add(&p->ndn->trial, &c);
	return kept;
}
