/* SPDX-License-Identifier: BSD-3-Clause */
/* Template ip6-udp: Ethernet / IPv6 / UDP with ranges of destinations and ports, the
 * IPv6 twin of ip4-udp. The header comes from the one IPv6 writer (proto/ip6.h), the
 * UDP header and its checksum, mandatory over IPv6 (RFC 8200 8.1), from the one UDP
 * codec (proto/udp.h). The checksum covers the engine's signature: build() writes it
 * over the frame with the signature zero, finish() adds the signature's bytes
 * (RFC 1624 incremental update), so a receiving kernel takes the datagrams. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../proto/ip4.h"
#include "../proto/ip6.h"
#include "../proto/parse.h"
#include "../proto/udp.h"
#include "template.h"

#define UDP_OFF (TP_ETH_HDR_LEN + TP_IP6_HDR_LEN)
#define MIN_LEN (UDP_OFF + TP_UDP_HDR_LEN + TP_GEN_SIG_LEN)

struct ip6_udp {
	uint8_t dmac[6], smac[6];
	uint8_t src[16], dst[16];   /* dst's last 32 bits: dst_lo.lo .. dst_lo.hi */
	struct tp_gen_range dst_lo; /* the destinations' last 32 bits, host order */
	struct tp_gen_range sport, dport;
	uint8_t hlim;
	uint32_t smacs; /* source MACs: smac + 0 .. smacs-1 in the low 24 bits */
};

static uint32_t low32(const uint8_t a[16])
{
	return (uint32_t)a[12] << 24 | (uint32_t)a[13] << 16 | (uint32_t)a[14] << 8 | a[15];
}

/* "ADDR" or "ADDR-ADDR" (the two equal but in their last 32 bits, lo <= hi) into
 * t->dst and t->dst_lo. 0 or -EINVAL. */
static int parse_dst(const char *s, struct ip6_udp *t)
{
	char buf[2 * TP_IP6_STRLEN + 2], *dash;
	uint8_t hi[16];

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	dash = strchr(buf, '-');
	if (dash)
		*dash = '\0';
	if (tp_ip6_parse_addr(buf, t->dst) < 0)
		return -EINVAL;
	if (dash == NULL) {
		memcpy(hi, t->dst, 16);
	} else if (tp_ip6_parse_addr(dash + 1, hi) < 0 || memcmp(hi, t->dst, 12) != 0 ||
		   low32(hi) < low32(t->dst)) {
		return -EINVAL;
	}
	t->dst_lo = (struct tp_gen_range){low32(t->dst), low32(hi)};
	return 0;
}

static void *parse(int argc, char **argv, uint32_t frame_len, char *err, size_t errlen)
{
	struct ip6_udp *t = calloc(1, sizeof(*t));

	if (t == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (frame_len < MIN_LEN || frame_len > 9000) {
		snprintf(err, errlen, "size %u: ip6-udp frames are %u to 9004 bytes with FCS",
			 frame_len + 4, MIN_LEN + 4);
		goto fail;
	}
	/* defaults: RFC 5180 5's benchmarking prefix 2001:2::/48 */
	memcpy(t->dmac, (uint8_t[]){0x02, 0, 0, 0, 0, 0x01}, 6);
	memcpy(t->smac, (uint8_t[]){0x02, 0, 0, 0, 0, 0x02}, 6);
	tp_ip6_parse_addr("2001:2::2", t->src);
	parse_dst("2001:2:0:1::2", t);
	t->sport = (struct tp_gen_range){1024, 1024};
	t->dport = (struct tp_gen_range){1024, 1024};
	t->hlim = 64;
	t->smacs = 1;
	const struct tp_gen_udp_opts opts = {t->dmac,	t->smac,  &t->smacs, &t->sport,
					     &t->dport, &t->hlim, "hlim"};
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
			bad = tp_ip6_parse_addr(v, t->src);
		else if (strcmp(k, "dst") == 0)
			bad = parse_dst(v, t);
		else {
			snprintf(err, errlen,
				 "unknown ip6-udp option '%s' (dmac smac smacs src dst sport dport "
				 "hlim)",
				 k);
			goto fail;
		}
		if (bad) {
			snprintf(
			    err, errlen,
			    strcmp(k, "dst") == 0
				? "bad dst '%s' (ADDR or ADDR-ADDR differing in the last 32 bits)"
				: "bad %s '%s'",
			    strcmp(k, "dst") == 0 ? v : k, v);
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
	const struct ip6_udp *t = state;
	uint64_t n = (uint64_t)tp_gen_range_span(&t->dst_lo) * tp_gen_range_span(&t->sport) *
		     tp_gen_range_span(&t->dport) * t->smacs;
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

static void build(const void *state, uint32_t i, uint8_t *buf, uint32_t frame_len)
{
	const struct ip6_udp *t = state;
	/* the last field varies fastest: dport, sport, dst, then the source MAC */
	uint32_t dport = t->dport.lo + i % tp_gen_range_span(&t->dport);
	i /= tp_gen_range_span(&t->dport);
	uint32_t sport = t->sport.lo + i % tp_gen_range_span(&t->sport);
	i /= tp_gen_range_span(&t->sport);
	uint32_t dst_lo = t->dst_lo.lo + i % tp_gen_range_span(&t->dst_lo);
	uint32_t smac_k = i / tp_gen_range_span(&t->dst_lo) % t->smacs;
	uint16_t udp_len = (uint16_t)(frame_len - UDP_OFF);
	uint8_t *udp = buf + UDP_OFF, dst[16], ck[2];

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
	buf[12] = TP_ETHERTYPE_IP6 >> 8;
	buf[13] = TP_ETHERTYPE_IP6 & 0xff;
	memcpy(dst, t->dst, 12);
	dst[12] = (uint8_t)(dst_lo >> 24), dst[13] = (uint8_t)(dst_lo >> 16);
	dst[14] = (uint8_t)(dst_lo >> 8), dst[15] = (uint8_t)dst_lo;
	tp_ip6_write(buf + TP_ETH_HDR_LEN, t->src, dst, TP_IP6_NH_UDP, t->hlim, udp_len);
	tp_udp_write(udp, (uint16_t)sport, (uint16_t)dport, (uint16_t)(udp_len - TP_UDP_HDR_LEN));
	/* the checksum with the signature zero; finish() adds the signature */
	uint16_t c = tp_udp6_cksum(buf + TP_ETH_HDR_LEN, udp, udp_len);
	memcpy(ck, &c, 2);
	udp[6] = ck[0], udp[7] = ck[1];
}

/* RFC 1624 eqn. 3 with the signature's 12 bytes as the changed words (they were zero):
 * HC' = ~(~HC + m'). A signature at an odd offset from the UDP header adds its sum
 * byte-swapped (RFC 1071 2(B)). */
static void finish(const void *state, uint8_t *buf, uint32_t frame_len, uint32_t sig_off)
{
	uint8_t *udp = buf + UDP_OFF;
	uint16_t hc, m;

	(void)state, (void)frame_len;
	memcpy(&hc, udp + 6, 2);
	m = tp_csum_fold_sum(buf + sig_off, TP_GEN_SIG_LEN);
	if ((sig_off - UDP_OFF) & 1)
		m = (uint16_t)(m << 8 | m >> 8);
	hc = (uint16_t)~tp_csum_fold((uint64_t)(uint16_t)~hc + m);
	if (hc == 0)
		hc = 0xffff; /* RFC 768: a computed 0 is sent as all ones */
	memcpy(udp + 6, &hc, 2);
}

static struct tp_gen_template ip6_udp = {
    .name = "ip6-udp",
    .usage = "[dmac MAC] [smac MAC] [src ADDR] [dst ADDR[-ADDR] (the last 32 bits vary)] "
	     "[sport N[-N]] [dport N[-N]] [hlim N] [smacs N (source MACs smac, smac+1, ...)]",
    .parse = parse,
    .variants = variants,
    .build = build,
    .free = free,
    .finish = finish,
};
TP_GEN_TEMPLATE_REGISTER(ip6_udp)
