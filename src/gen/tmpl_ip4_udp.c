/* SPDX-License-Identifier: BSD-3-Clause */
/* Template ip4-udp: Ethernet / IPv4 / UDP with ranges of addresses and ports. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../proto/ip4.h"
#include "../proto/parse.h"
#include "../proto/udp.h"
#include "template.h"

#define MIN_LEN (TP_ETH_HDR_LEN + TP_IP4_HDR_LEN + 8 + TP_GEN_SIG_LEN)

struct ip4_udp {
	uint8_t dmac[6], smac[6];
	struct tp_gen_range src, dst, sport, dport;
	uint8_t ttl;
	uint32_t smacs; /* source MACs: smac + 0 .. smacs-1 in the low 24 bits */
};

static void *parse(int argc, char **argv, uint32_t frame_len, char *err, size_t errlen)
{
	struct ip4_udp *t = calloc(1, sizeof(*t));

	if (t == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (frame_len < MIN_LEN - 0 || frame_len > 9000) {
		snprintf(err, errlen, "size %u: ip4-udp frames are %u to 9004 bytes with FCS",
			 frame_len + 4, MIN_LEN + 4);
		goto fail;
	}
	/* defaults: RFC 2544 appendix C test addresses */
	memcpy(t->dmac, (uint8_t[]){0x02, 0, 0, 0, 0, 0x01}, 6);
	memcpy(t->smac, (uint8_t[]){0x02, 0, 0, 0, 0, 0x02}, 6);
	t->src = (struct tp_gen_range){0xc6120002, 0xc6120002}; /* 198.18.0.2 */
	t->dst = (struct tp_gen_range){0xc6130002, 0xc6130002}; /* 198.19.0.2 */
	t->sport = (struct tp_gen_range){1024, 1024};
	t->dport = (struct tp_gen_range){1024, 1024};
	t->ttl = 64;
	t->smacs = 1;
	const struct tp_gen_udp_opts opts = {t->dmac,	t->smac, &t->smacs, &t->sport,
					     &t->dport, &t->ttl, "ttl"};
	for (int i = 0; i < argc; i += 2) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int bad;
		if (v == NULL) {
			snprintf(err, errlen, "'%s' needs a value", k);
			goto fail;
		}
		if (tp_gen_udp_opt(&opts, k, v, &bad))
			;
		else if (strcmp(k, "src") == 0)
			bad = tp_gen_parse_range(v, 1, &t->src);
		else if (strcmp(k, "dst") == 0)
			bad = tp_gen_parse_range(v, 1, &t->dst);
		else {
			snprintf(err, errlen,
				 "unknown ip4-udp option '%s' (dmac smac smacs src dst sport dport "
				 "ttl)",
				 k);
			goto fail;
		}
		if (bad) {
			snprintf(err, errlen, "bad %s '%s'", k, v);
			goto fail;
		}
	}
	return t;
fail:
	free(t);
	return NULL;
}

static uint32_t variants(const void *state)
{
	const struct ip4_udp *t = state;
	uint64_t n = (uint64_t)tp_gen_range_span(&t->src) * tp_gen_range_span(&t->dst) *
		     tp_gen_range_span(&t->sport) * tp_gen_range_span(&t->dport) * t->smacs;
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

static void build(const void *state, uint32_t i, uint8_t *buf, uint32_t frame_len)
{
	const struct ip4_udp *t = state;
	/* the last field varies fastest: dport, sport, dst, src, then the source MAC */
	uint32_t dport = t->dport.lo + i % tp_gen_range_span(&t->dport);
	i /= tp_gen_range_span(&t->dport);
	uint32_t sport = t->sport.lo + i % tp_gen_range_span(&t->sport);
	i /= tp_gen_range_span(&t->sport);
	uint32_t dst = t->dst.lo + i % tp_gen_range_span(&t->dst);
	i /= tp_gen_range_span(&t->dst);
	uint32_t src = t->src.lo + i % tp_gen_range_span(&t->src);
	uint32_t smac_k = i / tp_gen_range_span(&t->src) % t->smacs;
	uint16_t udp_len = (uint16_t)(frame_len - TP_ETH_HDR_LEN - TP_IP4_HDR_LEN);
	uint8_t *udp = buf + TP_ETH_HDR_LEN + TP_IP4_HDR_LEN;

	memset(buf, 0, frame_len);
	memcpy(buf, t->dmac, 6);
	memcpy(buf + 6, t->smac, 6);
	if (smac_k) {
		uint32_t low =
		    ((uint32_t)t->smac[3] << 16 | (uint32_t)t->smac[4] << 8 | t->smac[5]) + smac_k;
		buf[9] = (uint8_t)(low >> 16);
		buf[10] = (uint8_t)(low >> 8);
		buf[11] = (uint8_t)low;
	}
	buf[12] = TP_ETHERTYPE_IP4 >> 8;
	buf[13] = TP_ETHERTYPE_IP4 & 0xff;
	tp_ip4_write(buf + TP_ETH_HDR_LEN, htonl(src), htonl(dst), 17, t->ttl, udp_len,
		     (uint16_t)i);
	/* UDP checksum 0: none (RFC 768), the signature changes every frame */
	tp_udp_write(udp, (uint16_t)sport, (uint16_t)dport, (uint16_t)(udp_len - TP_UDP_HDR_LEN));
}

static struct tp_gen_template ip4_udp = {
    .name = "ip4-udp",
    .usage = "[dmac MAC] [smac MAC] [src A.B.C.D[-A.B.C.D]] [dst A.B.C.D[-A.B.C.D]] "
	     "[sport N[-N]] [dport N[-N]] [ttl N] [smacs N (source MACs smac, smac+1, ...)]",
    .parse = parse,
    .variants = variants,
    .build = build,
    .free = free,
};
TP_GEN_TEMPLATE_REGISTER(ip4_udp)
