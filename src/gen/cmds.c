/* SPDX-License-Identifier: BSD-3-Clause */
/* The generator's API commands: ports, streams, trials. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "../control/cmd.h"
#include "../control/timer.h"
#include "../proto/ip4.h"
#include "engine.h"
#include "ndn_producer.h"

#define PORT_ADD_ARGS                                                                              \
	"NAME DEVARGS [rxd N] [txd N] [rxq N] [sink coap [delay-us N]] [producer ndn "             \
	"[payload N] [freshness MS] [nack congestion|duplicate|no-route|unspecified|N] "           \
	"[sign digest|null]]"

static int parse_num(const char *s, double min, double max, double *v)
{
	char *end;
	double x;

	if (s == NULL || *s == '\0')
		return -EINVAL;
	x = strtod(s, &end);
	if (*end == 'k' || *end == 'K')
		x *= 1e3, end++;
	else if (*end == 'M')
		x *= 1e6, end++;
	else if (*end == 'G')
		x *= 1e9, end++;
	if (*end || !isfinite(x) || x < min || x > max)
		return -EINVAL;
	*v = x;
	return 0;
}

static int port_add(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	uint64_t rxd = 0, txd = 0, rxq = 0;
	double delay_us = 0;
	struct gen_ndn_producer_conf ndn = {.freshness_ms = -1};
	struct gen_ndn_producer *prod = NULL;
	bool sink = false, ndn_words = false;
	int ret;

	if (argc < 2 || argc % 2)
		return tp_cmd_err(ctx, EINVAL, "port add: usage: port add " PORT_ADD_ARGS);
	for (int i = 2; i < argc; i += 2) {
		uint64_t *dst = strcmp(argv[i], "rxd") == 0   ? &rxd
				: strcmp(argv[i], "txd") == 0 ? &txd
				: strcmp(argv[i], "rxq") == 0 ? &rxq
							      : NULL;
		if (strcmp(argv[i], "delay-us") == 0) {
			if (parse_num(argv[i + 1], 0, 1e6, &delay_us) < 0)
				return tp_cmd_err(ctx, EINVAL,
						  "port add: delay-us: bad number '%s' "
						  "(0-1000000)",
						  argv[i + 1]);
			continue;
		}
		if (strcmp(argv[i], "sink") == 0) {
			if (strcmp(argv[i + 1], "coap") != 0)
				return tp_cmd_err(ctx, EINVAL,
						  "port add: sink: unknown kind '%s' (coap)",
						  argv[i + 1]);
			sink = true;
			continue;
		}
		ret =
		    gen_ndn_producer_option(&ndn, argv[i], argv[i + 1], ctx->err, sizeof(ctx->err));
		if (ret < 0) {
			char tmp[sizeof(ctx->err)];
			snprintf(tmp, sizeof(tmp), "%s", ctx->err);
			return tp_cmd_err(ctx, EINVAL, "port add: %s", tmp);
		}
		if (ret > 0) {
			ndn_words |= strcmp(argv[i], "producer") != 0;
			continue;
		}
		if (dst == NULL)
			return tp_cmd_err(
			    ctx, EINVAL,
			    "port add: unknown option '%s' (rxd, txd, rxq, sink, delay-us, "
			    "producer, payload, freshness, nack, sign)",
			    argv[i]);
		if (tp_parse_u64(argv[i + 1], 1, dst == &rxq ? 8 : 16384, dst) < 0)
			return tp_cmd_err(ctx, EINVAL, "port add: %s: bad number '%s' (1-%u)",
					  argv[i], argv[i + 1], dst == &rxq ? 8 : 16384);
	}
	if (delay_us > 0 && !sink)
		return tp_cmd_err(ctx, EINVAL, "port add: delay-us goes with sink coap");
	if (ndn_words && !ndn.on)
		return tp_cmd_err(
		    ctx, EINVAL,
		    "port add: payload, freshness, nack and sign go with producer ndn");
	if (ndn.on && sink)
		return tp_cmd_err(ctx, EINVAL,
				  "port add: a port is a sink or a producer, not both");
	if (ndn.on) {
		uint32_t room = gen.pool
				    ? rte_pktmbuf_data_room_size(gen.pool) - RTE_PKTMBUF_HEADROOM
				    : RTE_MBUF_DEFAULT_DATAROOM;
		prod = gen_ndn_producer_new(&ndn, room, ctx->err, sizeof(ctx->err));
		if (prod == NULL) {
			char tmp[sizeof(ctx->err)];
			snprintf(tmp, sizeof(tmp), "%s", ctx->err);
			return tp_cmd_err(ctx, EINVAL, "port add %s: %s", argv[0], tmp);
		}
	}
	ret = gen_port_add(argv[0], argv[1], (uint16_t)rxd, (uint16_t)txd, (uint16_t)rxq, sink,
			   delay_us, prod, ctx->err, sizeof(ctx->err));
	if (ret < 0) {
		char tmp[sizeof(ctx->err)];
		gen_ndn_producer_free(prod);
		snprintf(tmp, sizeof(tmp), "%s", ctx->err);
		return tp_cmd_err(ctx, -ret, "port add %s: %s", argv[0], tmp);
	}
	return 0;
}

static int stream_add(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	static const char usage[] = "stream add: usage: stream add NAME port PORT template "
				    "TEMPLATE size BYTES [template options]";
	unsigned int port;
	uint64_t size;
	int ret;

	if (argc < 7 || strcmp(argv[1], "port") || strcmp(argv[3], "template") ||
	    strcmp(argv[5], "size"))
		return tp_cmd_err(ctx, EINVAL, "%s", usage);
	if (gen_port_find(argv[2], &port) == NULL)
		return tp_cmd_err(ctx, ENODEV, "stream add: no port named '%s'", argv[2]);
	if (tp_parse_u64(argv[6], 64, 9018, &size) < 0)
		return tp_cmd_err(ctx, EINVAL, "stream add: bad size '%s' (64-9018 bytes with FCS)",
				  argv[6]);
	ret = gen_stream_add(argv[0], port, argv[4], (uint32_t)size, argc - 7, argv + 7, ctx->err,
			     sizeof(ctx->err));
	if (ret < 0) {
		char tmp[sizeof(ctx->err)];
		snprintf(tmp, sizeof(tmp), "%s", ctx->err);
		return tp_cmd_err(ctx, -ret, "stream add %s: %s", argv[0], tmp);
	}
	return 0;
}

static int stream_del(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	if (argc != 1)
		return tp_cmd_err(ctx, EINVAL, "stream del: usage: stream del NAME");
	if (gen_stream_del(argv[0]) < 0)
		return tp_cmd_err(ctx, ENOENT, "stream del: no stream named '%s'", argv[0]);
	return 0;
}

static void latency_out(struct tp_node *o, const struct tp_rxstats *rx)
{
	struct tp_node *l = tp_out_obj(o, "latency_ns"), *h;

	tp_out_u64(l, "min", rx->lat_n ? rx->lat_min : 0);
	tp_out_u64(l, "p50", tp_rxstats_quantile(rx, 0.5));
	tp_out_u64(l, "p99", tp_rxstats_quantile(rx, 0.99));
	tp_out_u64(l, "p999", tp_rxstats_quantile(rx, 0.999));
	tp_out_u64(l, "max", rx->lat_max);
	tp_out_dbl(l, "mean", rx->lat_n ? (double)rx->lat_sum / (double)rx->lat_n : 0);
	h = tp_out_list(l, "hist");
	for (unsigned int b = 0; b < TP_LAT_BUCKETS; b++) {
		if (rx->hist[b] == 0)
			continue;
		struct tp_node *pair = tp_out_list(h, NULL);
		tp_out_u64(pair, NULL, tp_lat_bucket_upper(b));
		tp_out_u64(pair, NULL, rx->hist[b]);
	}
}

static const char *const nack_keys[TP_GEN_NACK_N] = {"congestion", "duplicate", "no_route",
						     "other"};

/* A request stream's answers (templates with rx_decode): Data (satisfied, once
 * each) against Interests sent, and Nacks by reason. */
static void answers_out(struct tp_node *o, const struct gen_stream *s)
{
	uint64_t u = tp_rxstats_unique(&s->rx), total = 0;
	struct tp_node *n;

	tp_out_u64(o, "satisfied", u);
	tp_out_dbl(o, "satisfaction_ratio", s->tx ? (double)u / (double)s->tx : 0);
	n = tp_out_obj(o, "nacks");
	for (unsigned int k = 0; k < TP_GEN_NACK_N; k++) {
		tp_out_u64(n, nack_keys[k], s->nacks[k]);
		total += s->nacks[k];
	}
	tp_out_u64(o, "nacks_total", total);
}

/* A producer port's counters. */
static void producer_out(struct tp_node *o, const struct gen_ndn_producer_counters *c)
{
	tp_out_u64(o, "rx_interests", c->rx_interests);
	tp_out_u64(o, "tx_data", c->tx_data);
	tp_out_u64(o, "tx_nacks", c->tx_nacks);
	tp_out_u64(o, "rx_malformed", c->rx_malformed);
	tp_out_u64(o, "drop_tx_full", c->drop_tx_full);
	tp_out_u64(o, "drop_nombuf", c->drop_nombuf);
	tp_out_u64(o, "drop_too_big", c->drop_too_big);
}

/* The trial whose answer is pending (one at a time). */
struct trial_wait {
	struct tp_cmd_ctx *ctx;
	uint64_t mask;
	double rate, burst;
	struct tp_timer poll;
};
static struct trial_wait pending;
static void trial_poll(struct tp_timer *t);
static void trial_result(struct tp_cmd_ctx *ctx, uint64_t mask, double rate, double burst);

static int trial(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	static const char usage[] =
	    "trial: usage: trial STREAM[,STREAM...] rate RATE "
	    "(duration SECONDS | count N) [burst N] [warmup SECONDS] [drain SECONDS] "
	    "[weights W,W...]";
	double rate = -1, duration = -1, count = -1, burst = 32, warmup = 0, drain = 0.2;
	double weight[TP_GEN_MAX_STREAMS] = {0};
	uint64_t mask = 0, line_pps = UINT64_MAX;
	unsigned int order[TP_GEN_MAX_STREAMS], n_order = 0;
	char names[512], *save;
	int ret;

	if (argc < 5 || argc % 2 == 0)
		return tp_cmd_err(ctx, EINVAL, "%s", usage);
	snprintf(names, sizeof(names), "%s", argv[0]);
	for (char *n = strtok_r(names, ",", &save); n; n = strtok_r(NULL, ",", &save)) {
		struct gen_stream *s = gen_stream_find(n);
		if (s == NULL)
			return tp_cmd_err(ctx, ENOENT, "trial: no stream named '%s'", n);
		mask |= 1ull << s->id;
		if (n_order < TP_GEN_MAX_STREAMS)
			order[n_order++] = s->id;
		/* nominal line rate of the slowest of the trial's ports, for % rates */
		uint64_t pps = gen.ports[s->port].speed_bps / ((s->frame_len + 4 + 20) * 8ull);
		if (pps < line_pps)
			line_pps = pps;
	}
	for (int i = 1; i < argc; i += 2) {
		const char *k = argv[i], *v = argv[i + 1];
		if (strcmp(k, "rate") == 0) {
			size_t l = strlen(v);
			if (l > 1 && v[l - 1] == '%') {
				char tmp[64];
				double pct;
				snprintf(tmp, sizeof(tmp), "%.*s", (int)(l - 1), v);
				if (parse_num(tmp, 0.0001, 100, &pct) < 0)
					return tp_cmd_err(ctx, EINVAL,
							  "trial: bad rate '%s' (0-100%%)", v);
				rate = pct / 100.0 * (double)line_pps;
			} else if (parse_num(v, 1, 1e9, &rate) < 0) {
				return tp_cmd_err(
				    ctx, EINVAL,
				    "trial: bad rate '%s' (packets/s, e.g. 1.5M, or N%%)", v);
			}
		} else if (strcmp(k, "duration") == 0) {
			if (parse_num(v, 0.001, 3600, &duration) < 0)
				return tp_cmd_err(ctx, EINVAL,
						  "trial: bad duration '%s' (0.001-3600 s)", v);
		} else if (strcmp(k, "count") == 0) {
			if (parse_num(v, 1, 1e12, &count) < 0 || count != floor(count))
				return tp_cmd_err(ctx, EINVAL, "trial: bad count '%s'", v);
		} else if (strcmp(k, "burst") == 0) {
			if (parse_num(v, 1, TP_GEN_BURST_MAX, &burst) < 0 || burst != floor(burst))
				return tp_cmd_err(ctx, EINVAL, "trial: bad burst '%s' (1-%d)", v,
						  TP_GEN_BURST_MAX);
		} else if (strcmp(k, "warmup") == 0) {
			if (parse_num(v, 0, 60, &warmup) < 0)
				return tp_cmd_err(ctx, EINVAL, "trial: bad warmup '%s' (0-60 s)",
						  v);
		} else if (strcmp(k, "drain") == 0) {
			if (parse_num(v, 0, 10, &drain) < 0)
				return tp_cmd_err(ctx, EINVAL, "trial: bad drain '%s' (0-10 s)", v);
		} else if (strcmp(k, "weights") == 0) {
			char wl[256], *wsave, *w;
			unsigned int n = 0;
			snprintf(wl, sizeof(wl), "%s", v);
			for (w = strtok_r(wl, ",", &wsave); w;
			     w = strtok_r(NULL, ",", &wsave), n++) {
				if (n >= n_order || parse_num(w, 1e-9, 1e12, &weight[order[n]]) < 0)
					return tp_cmd_err(ctx, EINVAL,
							  "trial: bad weights '%s' (one positive "
							  "number per stream, in their order)",
							  v);
			}
			if (n != n_order)
				return tp_cmd_err(ctx, EINVAL,
						  "trial: weights '%s': %u weights for %u "
						  "streams",
						  v, n, n_order);
		} else {
			return tp_cmd_err(ctx, EINVAL,
					  "trial: unknown keyword '%s' (rate duration count "
					  "burst warmup drain weights)",
					  k);
		}
	}
	if (rate < 0)
		return tp_cmd_err(ctx, EINVAL, "trial: give a rate");
	if ((duration < 0) == (count < 0))
		return tp_cmd_err(ctx, EINVAL, "trial: give a duration or a count, not both");
	if (count < 0)
		count = floor(rate * duration + 0.5);
	if (count < 1)
		return tp_cmd_err(ctx, EINVAL, "trial: rate x duration is less than one frame");

	ret = gen_trial_start(mask, weight, rate, (uint64_t)count, (uint64_t)(rate * warmup),
			      (uint32_t)burst, drain);
	if (ret == -EBUSY)
		return tp_cmd_err(ctx, EBUSY, "trial: a trial is running");
	if (ret < 0)
		return tp_cmd_err(ctx, -ret, "trial: %s", strerror(-ret));
	/* the answer when the trial is over: the control loop goes on meanwhile (other
	 * requests, 'show stats' during a trial) */
	pending = (struct trial_wait){.ctx = ctx, .mask = mask, .rate = rate, .burst = burst};
	tp_timer_init(&pending.poll, "trial", trial_poll, NULL);
	tp_timer_every(&pending.poll, 1);
	return TP_CMD_PENDING;
}

/* The result of the trial that just ended. */
static void trial_result(struct tp_cmd_ctx *ctx, uint64_t mask, double rate, double burst)
{
	const struct gen_trial *t = &gen.trial;
	/* the sending phase's length without the pauses (the worker lost its CPU and
	 * its schedule moved on): the time frames were offered at the rate */
	double wall = (double)(t->end_tsc - t->start_tsc) / (double)gen.tsc_hz;
	double paused = (double)t->paused_tsc / (double)gen.tsc_hz;
	double secs = wall > paused ? wall - paused : wall;
	uint64_t tx = 0, full = 0, nombuf = 0, uniq = 0, rx = 0, reord = 0, dup = 0;
	struct tp_node *sl = tp_out_list(ctx->out, "streams");
	for (unsigned int i = 0; i < TP_GEN_MAX_STREAMS; i++) {
		const struct gen_stream *s = &gen.streams[i];
		if (!(mask & (1ull << i)))
			continue;
		uint64_t offered = s->tx + s->tx_full + s->tx_nombuf;
		uint64_t u = tp_rxstats_unique(&s->rx);
		struct tp_node *o = tp_out_obj(sl, NULL);
		tp_out_str(o, "name", s->name);
		tp_out_u64(o, "id", s->id);
		tp_out_u64(o, "offered", offered);
		tp_out_u64(o, "tx", s->tx);
		tp_out_u64(o, "rx", s->rx.rx);
		tp_out_u64(o, "lost", offered > u ? offered - u : 0);
		tp_out_u64(o, "reordered", s->rx.reordered);
		tp_out_u64(o, "duplicates", s->rx.duplicates);
		if (s->tmpl->rx_decode)
			answers_out(o, s);
		latency_out(o, &s->rx);
		tx += s->tx;
		full += s->tx_full;
		nombuf += s->tx_nombuf;
		uniq += u;
		rx += s->rx.rx;
		reord += s->rx.reordered;
		dup += s->rx.duplicates;
	}
	uint64_t offered = tx + full + nombuf;
	struct tp_node *o = tp_out_obj(ctx->out, "trial");
	tp_out_dbl(o, "rate_pps", rate);
	tp_out_dbl(o, "duration_s", secs);
	tp_out_dbl(o, "wall_s", wall);
	tp_out_dbl(o, "paused_s", paused);
	tp_out_u64(o, "pauses", t->pauses);
	tp_out_u64(o, "held", t->held);
	tp_out_dbl(o, "lag_max_us", (double)t->lag_max_tsc * 1e6 / (double)gen.tsc_hz);
	tp_out_u64(o, "burst", (uint64_t)burst);
	tp_out_u64(o, "offered", offered);
	tp_out_u64(o, "tx", tx);
	tp_out_u64(o, "rx", rx);
	tp_out_dbl(o, "tx_rate_pps", secs > 0 ? (double)offered / secs : 0);
	tp_out_dbl(o, "rx_rate_pps", secs > 0 ? (double)uniq / secs : 0);
	tp_out_u64(o, "lost", offered > uniq ? offered - uniq : 0);
	tp_out_dbl(o, "loss_ratio",
		   offered ? (double)(offered > uniq ? offered - uniq : 0) / (double)offered : 0);
	tp_out_u64(o, "reordered", reord);
	tp_out_u64(o, "duplicates", dup);
	tp_out_u64(o, "tx_full", full);
	tp_out_u64(o, "tx_nombuf", nombuf);
	tp_out_u64(o, "rx_stray", gen.rx_stray);
	struct tp_node *pl = tp_out_list(ctx->out, "ports");
	for (unsigned int i = 0; i < TP_GEN_MAX_PORTS; i++) {
		const struct gen_port *p = &gen.ports[i];
		if (!p->used)
			continue;
		struct tp_node *po = tp_out_obj(pl, NULL);
		tp_out_str(po, "name", p->name);
		tp_out_u64(po, "rx", p->rx);
		tp_out_u64(po, "rx_tagged", p->rx_tagged);
		if (p->coap_sink) {
			tp_out_u64(po, "rx_coap_non", p->rx_coap_non);
			tp_out_u64(po, "rx_coap_con", p->rx_coap_con);
			tp_out_u64(po, "coap_acked", p->coap_acked);
		}
		if (p->ndn)
			producer_out(tp_out_obj(po, "ndn_producer"), &p->ndn->trial);
	}
}

static void trial_poll(struct tp_timer *t)
{
	struct tp_cmd_ctx *ctx = pending.ctx;
	int st = gen_trial_state();

	if (st > 0) /* still running */
		return;
	tp_timer_cancel(t);
	pending.ctx = NULL;
	if (st < 0) {
		tp_cmd_done(ctx, tp_cmd_err(ctx, -st, "trial: interrupted"));
		return;
	}
	trial_result(ctx, pending.mask, pending.rate, pending.burst);
	tp_cmd_done(ctx, 0);
}

static int show_ports(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_node *l = tp_out_list(ctx->out, "ports");
	char m[18];

	for (unsigned int i = 0; i < TP_GEN_MAX_PORTS; i++) {
		const struct gen_port *p = &gen.ports[i];
		struct rte_ether_addr mac;
		struct rte_eth_stats st = {0};
		if (!p->used)
			continue;
		rte_eth_macaddr_get(p->id, &mac);
		rte_eth_stats_get(p->id, &st);
		struct tp_node *o = tp_out_obj(l, NULL);
		tp_out_str(o, "name", p->name);
		tp_out_u64(o, "id", p->id);
		tp_out_str(o, "devargs", p->devargs);
		tp_out_str(o, "mac", tp_mac_fmt(mac.addr_bytes, m));
		tp_out_u64(o, "speed_bps", p->speed_bps);
		tp_out_u64(o, "ipackets", st.ipackets);
		tp_out_u64(o, "opackets", st.opackets);
		tp_out_u64(o, "imissed", st.imissed);
		if (p->ndn) {
			const struct gen_ndn_producer_conf *c = &p->ndn->conf;
			struct tp_node *n = tp_out_obj(o, "ndn_producer");
			const char *reason = gen_ndn_nack_name(c->nack_reason);
			if (c->nack) {
				if (reason)
					tp_out_str(n, "nack", reason);
				else
					tp_out_u64(n, "nack", c->nack_reason);
			} else {
				tp_out_u64(n, "payload", c->payload);
				if (c->freshness_ms >= 0)
					tp_out_u64(n, "freshness_ms", (uint64_t)c->freshness_ms);
				tp_out_str(n, "sign", c->sign_digest ? "digest" : "null");
			}
			/* since the port was added */
			producer_out(n, &p->ndn->total);
		}
	}
	return 0;
}

static int show_streams(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_node *l = tp_out_list(ctx->out, "streams");

	for (unsigned int i = 0; i < TP_GEN_MAX_STREAMS; i++) {
		const struct gen_stream *s = &gen.streams[i];
		if (!s->used)
			continue;
		struct tp_node *o = tp_out_obj(l, NULL);
		tp_out_str(o, "name", s->name);
		tp_out_u64(o, "id", s->id);
		tp_out_str(o, "port", gen.ports[s->port].name);
		tp_out_str(o, "template", s->tmpl->name);
		tp_out_u64(o, "size", s->frame_len + 4);
		tp_out_u64(o, "variants", s->n_frames);
		if (s->tmpl->rx_decode) {
			/* the last (or current) trial's: the worker writes them meanwhile */
			tp_out_u64(o, "tx", s->tx);
			answers_out(o, s);
		}
	}
	return 0;
}

static int show_templates(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_node *l = tp_out_list(ctx->out, "templates");

	for (const struct tp_gen_template *t = tp_gen_template_first(); t; t = t->next) {
		struct tp_node *o = tp_out_obj(l, NULL);
		tp_out_str(o, "name", t->name);
		tp_out_str(o, "options", t->usage);
	}
	return 0;
}

static int version(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	tp_out_str(ctx->out, "twinplane-gen", TP_VERSION);
	tp_out_u64(ctx->out, "api", 1);
	tp_out_u64(ctx->out, "tsc_hz", gen.tsc_hz);
	return 0;
}

/* debug spin US: the sending loop busy-waits once for US on its CPU (tests) */
static int debug_spin(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	uint64_t us;

	if (argc != 1)
		return tp_cmd_err(ctx, EINVAL, "debug spin: usage: debug spin US");
	if (tp_parse_u64(argv[0], 1, 1000000, &us) != 0)
		return tp_cmd_err(ctx, EINVAL, "debug spin: bad US '%s' (1-1000000 microseconds)",
				  argv[0]);
	gen.spin_us = (uint32_t)us;
	return 0;
}

static struct tp_cmd c_port_add = {"port add", PORT_ADD_ARGS, "probe a port", port_add, NULL};
static struct tp_cmd c_stream_add = {"stream add",
				     "NAME port PORT template TEMPLATE size BYTES [options]",
				     "define a stream (see show templates)", stream_add, NULL};
static struct tp_cmd c_stream_del = {"stream del", "NAME", "remove a stream", stream_del, NULL};
static struct tp_cmd c_trial = {
    "trial", "STREAM[,STREAM] rate RATE (duration S | count N) [burst N] [warmup S] [drain S]",
    "send, wait, and answer with the result", trial, NULL};
static struct tp_cmd c_show_ports = {"show ports", NULL, "ports", show_ports, NULL};
static struct tp_cmd c_show_streams = {"show streams", NULL, "streams", show_streams, NULL};
static struct tp_cmd c_show_tmpl = {"show templates", NULL, "templates", show_templates, NULL};
static struct tp_cmd c_version = {"version", NULL, "versions", version, NULL};
TP_CMD_REGISTER(c_port_add)
TP_CMD_REGISTER(c_stream_add)
TP_CMD_REGISTER(c_stream_del)
TP_CMD_REGISTER(c_trial)
TP_CMD_REGISTER(c_show_ports)
TP_CMD_REGISTER(c_show_streams)
TP_CMD_REGISTER(c_show_tmpl)
static struct tp_cmd c_debug_spin = {
    "debug spin", "US", "the sending loop busy-waits once for US (tests)", debug_spin, NULL};
TP_CMD_REGISTER(c_version)
TP_CMD_REGISTER(c_debug_spin)
