/* SPDX-License-Identifier: BSD-3-Clause */
/* Template phd: ISO/IEEE 11073-20601 agents over Ethernet / IPv4 / UDP, one APDU
 * per frame, for the IoT gateway (src/nf/iotgw). A range of agent identities
 * (source address x source port: the gateway keys its AE table by both) sends
 * to one gateway address and port:
 *   report             PRST roiv-cmip-confirmed-event-report (0101), a fixed scan
 *                      report with one observation per metric of the device;
 *                      the invoke-id counts the stream's frames over its life
 *                      (update()), so an agent's invoke-ids keep increasing from
 *                      one trial to the next as a real agent's do, and the gateway
 *                      never takes a report of a new trial for a duplicate
 *   report-unconfirmed the same with roiv-cmip-event-report (0100)
 *   aarq               an association request; system-id from the endpoint
 *   rlrq               a release request
 *   churn              aarq then rlrq for each identity (control-plane load)
 * Devices and their configurations are phd-sim's (src/tools/phd-sim.c): the
 * pulse oximeter uses standard configuration 0x0190, the activity and
 * medication monitors phd-sim's extended configurations, built the same way.
 * Every APDU is encoded with the project's codec (src/proto/mder.h).
 *
 * Frame layout. The codec decodes an APDU of exactly the UDP payload (no
 * trailing bytes), and the engine writes its 12-byte signature into the last
 * bytes of the frame. So the UDP length covers the APDU only, the IPv4 total
 * length is 20 + the UDP length, and the signature rides in the Ethernet
 * padding after the IPv4 packet:
 *   Ethernet | IPv4 | UDP | APDU | zero padding | signature (12)
 * The gateway trims a frame to the IPv4 total length (nf/ip4/datapath/input.c), the
 * generator's receive side reads the signature from the end of the frame. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../proto/ip4.h"
#include "../proto/udp.h"
#include "../proto/mder.h"
#include "../proto/parse.h"
#include "../proto/phd_nomenclature.h"
#include "../proto/phd_devices.h"
#include "template.h"

#define HDR_LEN (TP_ETH_HDR_LEN + TP_IP4_HDR_LEN + 8)
#define MAX_IDENTITIES 65536
#define APDU_MAX 1024
/* PRST tag (2), length (2), octet-string length (2), then the invoke-id */
#define INVOKE_ID_OFF 6

enum kind { K_REPORT, K_REPORT_UNCONFIRMED, K_AARQ, K_RLRQ, K_CHURN };
static const char *const kind_names[] = {"report", "report-unconfirmed", "aarq", "rlrq", "churn"};

struct phd {
	uint8_t dmac[6], smac[6];
	struct tp_gen_range src, sport;
	uint32_t dst;
	uint16_t dport;
	const struct tp_phd_device *dev;
	enum kind kind;
	uint32_t identities;
	struct tp_phd_value_map map;  /* what the reports follow */
	struct tp_phd_abs_time stamp; /* the observations' time stamp: stream creation */
};

/* The APDU of identity id at endpoint src:sport (is_rlrq: churn's second frame);
 * its length or a negative tp_phd_err. The system id is the endpoint's, "\x02tpg",
 * the source address's low 16 bits and the source port, not the identity index:
 * two streams on different ports never announce the same system id (the gateway
 * refuses one associated from another endpoint, as a real manager should). */
static int encode_apdu(const struct phd *t, uint32_t id, uint32_t src, uint32_t sport, int is_rlrq,
		       uint8_t *buf, size_t size)
{
	struct tp_phd_apdu a;
	uint8_t sysid[8] = {0x02, 0x74, 0x70, 0x67, 0, 0, 0, 0};
	uint8_t info[APDU_MAX];

	memset(&a, 0, sizeof(a));
	if (t->kind == K_RLRQ || (t->kind == K_CHURN && is_rlrq)) {
		a.type = TP_PHD_RLRQ;
		a.u.reason = 0; /* normal */
		return tp_phd_encode_apdu(&a, buf, size);
	}
	if (t->kind == K_AARQ || t->kind == K_CHURN) {
		sysid[4] = (uint8_t)(src >> 8);
		sysid[5] = (uint8_t)src;
		sysid[6] = (uint8_t)(sport >> 8);
		sysid[7] = (uint8_t)sport;
		tp_phd_device_aarq(t->dev, sysid, &a);
		return tp_phd_encode_apdu(&a, buf, size);
	}
	/* a fixed scan report, one observation per object of the value map, the
	 * device's readings of agent id (phd_devices.c, as phd-sim sends them) */
	int n = tp_phd_device_scan_report(t->dev, &t->map, id, 0, &t->stamp, info, sizeof(info),
					  NULL, NULL);
	if (n < 0)
		return n;
	a.type = TP_PHD_PRST;
	a.u.prst.invoke_id = 0; /* update() writes the frame's own */
	a.u.prst.choice =
	    t->kind == K_REPORT ? TP_PHD_ROIV_CONF_EVENT_REPORT : TP_PHD_ROIV_EVENT_REPORT;
	a.u.prst.u.evt.obj_handle = TP_PHD_HANDLE_MDS;
	a.u.prst.u.evt.time = TP_PHD_TIME_NONE;
	a.u.prst.u.evt.type = MDC_NOTI_SCAN_REPORT_FIXED;
	a.u.prst.u.evt.info = (struct tp_phd_octets){info, (uint16_t)n};
	return tp_phd_encode_apdu(&a, buf, size);
}

/* The longest APDU the stream sends (identity index does not change lengths,
 * but check the last identity too), or a negative tp_phd_err. */
static int max_apdu_len(const struct phd *t)
{
	uint8_t buf[APDU_MAX];
	int max = 0;

	for (int r = 0; r < (t->kind == K_CHURN ? 2 : 1); r++) {
		uint32_t ids[2] = {0, t->identities - 1};
		for (int k = 0; k < 2; k++) {
			int n = encode_apdu(t, ids[k], t->src.lo, t->sport.lo, r, buf, sizeof(buf));
			if (n < 0)
				return n;
			if (n > max)
				max = n;
		}
	}
	return max;
}

static void *parse(int argc, char **argv, uint32_t frame_len, char *err, size_t errlen)
{
	struct phd *t = calloc(1, sizeof(*t));

	if (t == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	memcpy(t->dmac, (uint8_t[]){0x02, 0, 0, 0, 0, 0x01}, 6);
	memcpy(t->smac, (uint8_t[]){0x02, 0, 0, 0, 0, 0x02}, 6);
	t->src = (struct tp_gen_range){0xc6120002, 0xc6120002}; /* 198.18.0.2 */
	t->dst = 0xc6130002;					/* 198.19.0.2 */
	t->sport = (struct tp_gen_range){40000, 40000};
	t->dport = TP_PHD_UDP_PORT;
	t->dev = &tp_phd_devices[0];
	t->kind = K_REPORT;
	for (int i = 0; i < argc; i += 2) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int bad = 0;
		if (v == NULL) {
			snprintf(err, errlen, "'%s' needs a value", k);
			goto fail;
		}
		if (strcmp(k, "dmac") == 0) {
			bad = tp_mac_parse(v, t->dmac);
		} else if (strcmp(k, "smac") == 0) {
			bad = tp_mac_parse(v, t->smac);
		} else if (strcmp(k, "src") == 0) {
			bad = tp_gen_parse_range(v, 1, &t->src);
		} else if (strcmp(k, "sport") == 0) {
			bad = tp_gen_parse_range(v, 0, &t->sport);
		} else if (strcmp(k, "dst") == 0) {
			bad = tp_ip4_parse_addr(v, &t->dst);
		} else if (strcmp(k, "dport") == 0) {
			uint64_t x = 0;
			bad = tp_parse_u64(v, 1, 65535, &x);
			t->dport = (uint16_t)x;
		} else if (strcmp(k, "device") == 0) {
			t->dev = tp_phd_device_find(v);
			if (t->dev == NULL) {
				snprintf(err, errlen,
					 "bad device '%s' (pulse-oximeter activity-monitor "
					 "medication-monitor)",
					 v);
				goto fail;
			}
		} else if (strcmp(k, "kind") == 0) {
			size_t n;
			for (n = 0; n < RTE_DIM(kind_names); n++)
				if (strcmp(v, kind_names[n]) == 0)
					break;
			if (n == RTE_DIM(kind_names)) {
				snprintf(err, errlen,
					 "bad kind '%s' (report report-unconfirmed aarq "
					 "rlrq churn)",
					 v);
				goto fail;
			}
			t->kind = (enum kind)n;
		} else {
			snprintf(err, errlen,
				 "unknown phd option '%s' (dmac smac src sport dst dport "
				 "device kind)",
				 k);
			goto fail;
		}
		if (bad) {
			snprintf(err, errlen, "bad %s '%s'", k, v);
			goto fail;
		}
	}
	uint64_t ids = (uint64_t)tp_gen_range_span(&t->src) * tp_gen_range_span(&t->sport);
	if (ids > MAX_IDENTITIES) {
		snprintf(err, errlen, "%llu agent identities (src x sport): at most %u",
			 (unsigned long long)ids, MAX_IDENTITIES);
		goto fail;
	}
	t->identities = (uint32_t)ids;

	/* the value map the reports follow: phd-sim's, standard or extended */
	if (t->dev->config_id == 0x0190) {
		if (tp_phd_std_value_map(t->dev->config_id, &t->map) < 0) {
			snprintf(err, errlen, "no standard configuration 0x%04x",
				 t->dev->config_id);
			goto fail;
		}
	} else {
		struct tp_phd_config_report *cfg = calloc(1, sizeof(*cfg));
		uint8_t store[2048];
		struct tp_phd_error perr;
		int ret = cfg ? tp_phd_device_config(t->dev, cfg, store, sizeof(store))
			      : -TP_PHD_E_NO_SPACE;
		if (ret == 0)
			ret = tp_phd_value_map_build(cfg, &t->map, &perr);
		free(cfg);
		if (ret < 0) {
			snprintf(err, errlen, "%s configuration: %s", t->dev->name,
				 tp_phd_strerror(ret));
			goto fail;
		}
	}
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	t->stamp = tp_phd_abs_time_from_tm(&tm);

	int apdu = max_apdu_len(t);
	if (apdu < 0) {
		snprintf(err, errlen, "%s %s: encode: %s", t->dev->name, kind_names[t->kind],
			 tp_phd_strerror(apdu));
		goto fail;
	}
	uint32_t min = HDR_LEN + (uint32_t)apdu + TP_GEN_SIG_LEN;
	if (min < 60)
		min = 60;
	if (frame_len < min || frame_len > 9000) {
		snprintf(err, errlen,
			 "size %u: phd %s %s frames are %u to 9004 bytes with FCS "
			 "(headers %u + APDU %d + signature %u + FCS 4)",
			 frame_len + 4, t->dev->name, kind_names[t->kind], min + 4, HDR_LEN, apdu,
			 TP_GEN_SIG_LEN);
		goto fail;
	}
	if (t->kind == K_REPORT || t->kind == K_REPORT_UNCONFIRMED) {
		/* the invoke-id update() writes is where the encoding put it */
		uint8_t buf[APDU_MAX];
		struct tp_phd_apdu a;
		encode_apdu(t, 0, t->src.lo, t->sport.lo, 0, buf, sizeof(buf));
		buf[INVOKE_ID_OFF] = 0xa5;
		buf[INVOKE_ID_OFF + 1] = 0x5a;
		if (tp_phd_decode_apdu(buf, (size_t)apdu, &a, NULL) < 0 || a.type != TP_PHD_PRST ||
		    a.u.prst.invoke_id != 0xa55a) {
			snprintf(err, errlen, "phd: invoke-id is not at APDU offset %d",
				 INVOKE_ID_OFF);
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
	const struct phd *t = state;
	return t->kind == K_CHURN ? 2 * t->identities : t->identities;
}

static void build(const void *state, uint32_t i, uint8_t *buf, uint32_t frame_len)
{
	const struct phd *t = state;
	int is_rlrq = 0;
	if (t->kind == K_CHURN) { /* aarq, rlrq of identity 0, then of identity 1... */
		is_rlrq = i & 1;
		i >>= 1;
	}
	uint32_t id = i;
	/* source port varies fastest */
	uint32_t sport = t->sport.lo + i % tp_gen_range_span(&t->sport);
	i /= tp_gen_range_span(&t->sport);
	uint32_t src = t->src.lo + i % tp_gen_range_span(&t->src);
	uint8_t *udp = buf + TP_ETH_HDR_LEN + TP_IP4_HDR_LEN;

	memset(buf, 0, frame_len);
	/* parse() checked that the longest APDU fits before the signature */
	int n = encode_apdu(t, id, src, sport, is_rlrq, udp + TP_UDP_HDR_LEN,
			    frame_len - HDR_LEN - TP_GEN_SIG_LEN);
	if (n < 0)
		n = 0; /* cannot happen: parse() encoded the same */
	uint16_t udp_len = (uint16_t)(TP_UDP_HDR_LEN + n);

	memcpy(buf, t->dmac, 6);
	memcpy(buf + 6, t->smac, 6);
	buf[12] = TP_ETHERTYPE_IP4 >> 8;
	buf[13] = TP_ETHERTYPE_IP4 & 0xff;
	/* IPv4 total length 20 + UDP length: the signature rides in the Ethernet padding */
	tp_ip4_write(buf + TP_ETH_HDR_LEN, htonl(src), htonl(t->dst), 17, 64, udp_len,
		     (uint16_t)id);
	/* UDP checksum 0: none (RFC 768), the invoke-id changes every frame */
	tp_udp_write(udp, (uint16_t)sport, (uint16_t)t->dport, (uint16_t)n);
}

/* Reports: invoke-id = the stream's frame count (mod 2^16), so each frame is a new
 * report to the gateway, also in the next trial (the per-trial sequence number
 * restarts at 0 and would repeat the invoke-ids the agents just used). */
static void update(const void *state, uint16_t stream, uint64_t n, uint8_t *buf, uint32_t frame_len)
{
	const struct phd *t = state;
	uint8_t *apdu = buf + HDR_LEN;

	RTE_SET_USED(stream);
	RTE_SET_USED(frame_len);
	if (t->kind != K_REPORT && t->kind != K_REPORT_UNCONFIRMED)
		return;
	apdu[INVOKE_ID_OFF] = (uint8_t)(n >> 8);
	apdu[INVOKE_ID_OFF + 1] = (uint8_t)n;
}

static struct tp_gen_template phd = {
    .name = "phd",
    .usage = "[dmac MAC] [smac MAC] [src A.B.C.D[-A.B.C.D]] [sport N[-N]] [dst A.B.C.D] "
	     "[dport N] [device pulse-oximeter|activity-monitor|medication-monitor] "
	     "[kind report|report-unconfirmed|aarq|rlrq|churn]",
    .parse = parse,
    .variants = variants,
    .build = build,
    .update = update,
    .free = free,
};
TP_GEN_TEMPLATE_REGISTER(phd)
