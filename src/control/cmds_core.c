/* SPDX-License-Identifier: BSD-3-Clause */
/* Commands of the core: ports, workers, counters, mempools, the exception path. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_version.h>

#include "../core/tp.h"
#include "../proto/ip4.h"
#include "../tables/iface.h"
#include "../tables/neigh.h"
#include "../tables/nexthop.h"
#include "../tables/route.h"
#include "cmd.h"
#include "exception.h"
#include "netlink.h"
#include "port.h"

/* 'clear counters' keeps a baseline: the workers own their counters and are never stopped */
static struct tp_wstats baseline[TP_MAX_WORKERS];
static struct tp_exc_stats exc_baseline;

static int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	char *end;
	unsigned long long x;

	if (s == NULL || *s == '\0' || *s == '-')
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || *end || x < min || x > max)
		return -EINVAL;
	*v = x;
	return 0;
}

static int port_add(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_port_opts o = {0};
	uint64_t v;
	int ret;

	if (argc < 2 || argc % 2)
		return tp_cmd_err(ctx, EINVAL,
				  "port add: usage: port add NAME DEVARGS [rxq N] [rxd N] [txd N] [mtu N]");
	for (int i = 2; i < argc; i += 2) {
		uint16_t *dst = strcmp(argv[i], "rxq") == 0   ? &o.nb_rxq
				: strcmp(argv[i], "rxd") == 0 ? &o.nb_rxd
				: strcmp(argv[i], "txd") == 0 ? &o.nb_txd
				: strcmp(argv[i], "mtu") == 0 ? &o.mtu
							      : NULL;
		if (dst == NULL)
			return tp_cmd_err(ctx, EINVAL,
					  "port add: unknown option '%s' (rxq, rxd, txd, mtu)", argv[i]);
		if (parse_u64(argv[i + 1], 1, 16384, &v) < 0)
			return tp_cmd_err(ctx, EINVAL, "port add: %s: bad number '%s' (1-16384)",
					  argv[i], argv[i + 1]);
		*dst = (uint16_t)v;
	}
	ret = tp_port_add(argv[0], argv[1], &o, ctx->err, sizeof(ctx->err));
	if (ret < 0) {
		char tmp[sizeof(ctx->err)];
		snprintf(tmp, sizeof(tmp), "%s", ctx->err);
		return tp_cmd_err(ctx, -ret, "port add %s: %s", argv[0], tmp);
	}
	/* pick up what the kernel already knows about the new TAP */
	tp_nl_resync();
	return 0;
}

static int port_del(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	if (argc != 1)
		return tp_cmd_err(ctx, EINVAL, "port del: usage: port del NAME");
	if (tp_port_del(argv[0]) < 0)
		return tp_cmd_err(ctx, ENODEV, "port del: no port named '%s'", argv[0]);
	return 0;
}

static int show_ports(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_node *l = tp_out_list(ctx->out, "ports");
	unsigned int it = 0;
	struct tp_port *p;
	char m[18], a[16];

	while ((p = tp_port_next(&it)) != NULL) {
		struct tp_node *o = tp_out_obj(l, NULL), *al, *s;
		struct rte_eth_stats st = {0};

		tp_out_str(o, "name", p->name);
		tp_out_u64(o, "id", p->id);
		tp_out_str(o, "devargs", p->devargs);
		tp_out_str(o, "mac", tp_mac_fmt(tp_iface_table[p->id].mac.addr_bytes, m));
		tp_out_str(o, "tap", p->tap_name);
		tp_out_u64(o, "tap_ifindex", (uint64_t)p->tap_ifindex);
		tp_out_u64(o, "mtu", p->mtu);
		tp_out_bool(o, "up", tp_iface_table[p->id].up);
		al = tp_out_list(o, "addrs");
		for (unsigned int i = 0; i < p->n_addrs; i++)
			tp_out_strf(al, NULL, "%s/%u", tp_ip4_fmt(p->addrs[i].ip, a),
				    p->addrs[i].depth);
		tp_out_u64(o, "rx_queues", p->nb_rxq);
		tp_out_u64(o, "tx_queues", p->nb_txq);
		rte_eth_stats_get(p->id, &st);
		s = tp_out_obj(o, "stats");
		tp_out_u64(s, "ipackets", st.ipackets);
		tp_out_u64(s, "opackets", st.opackets);
		tp_out_u64(s, "ibytes", st.ibytes);
		tp_out_u64(s, "obytes", st.obytes);
		tp_out_u64(s, "imissed", st.imissed);
		tp_out_u64(s, "ierrors", st.ierrors);
		tp_out_u64(s, "oerrors", st.oerrors);
		tp_out_u64(s, "rx_nombuf", st.rx_nombuf);
	}
	return 0;
}

/* A worker's counters minus the 'clear counters' baseline. */
static void wstats_get(unsigned int w, struct tp_wstats *s)
{
	const uint64_t *cur = (const uint64_t *)&tp.workers[w]->st;
	const uint64_t *base = (const uint64_t *)&baseline[w];
	uint64_t *out = (uint64_t *)s;

	for (size_t i = 0; i < sizeof(*s) / sizeof(uint64_t); i++)
		out[i] = __atomic_load_n(&cur[i], __ATOMIC_RELAXED) - base[i];
	s->start_tsc = tp.workers[w]->st.start_tsc;
}

static int show_workers(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_node *l = tp_out_list(ctx->out, "workers");
	uint64_t now = rte_rdtsc();

	for (unsigned int w = 0; w < tp.n_workers; w++) {
		struct tp_worker *wk = tp.workers[w];
		struct tp_node *o = tp_out_obj(l, NULL), *ql;
		struct tp_wstats s;
		const struct tp_worker_conf *c = __atomic_load_n(&wk->conf, __ATOMIC_ACQUIRE);

		wstats_get(w, &s);
		tp_out_u64(o, "id", w);
		tp_out_u64(o, "lcore", wk->lcore);
		ql = tp_out_list(o, "rxqs");
		for (unsigned int q = 0; c && q < c->n_rxq; q++)
			tp_out_strf(ql, NULL, "%s:%u",
				    tp_port_by_id(c->rxq[q].port) ? tp_port_by_id(c->rxq[q].port)->name
								  : "?",
				    c->rxq[q].queue);
		tp_out_u64(o, "rx", s.rx);
		tp_out_u64(o, "tx", s.tx);
		tp_out_u64(o, "exception", s.exc);
		tp_out_u64(o, "polls", s.polls);
		tp_out_u64(o, "idle_polls", s.idle_polls);
		tp_out_u64(o, "busy_cycles", s.busy_cycles);
		tp_out_u64(o, "total_cycles", s.start_tsc ? now - s.start_tsc : 0);
	}
	tp_out_u64(ctx->out, "tsc_hz", tp.tsc_hz);
	return 0;
}

static void exc_out(struct tp_node *o)
{
	const struct tp_exc_stats *s = &tp_exc_stats, *b = &exc_baseline;
	struct tp_node *r;

	tp_out_u64(o, "to_kernel", s->to_kernel - b->to_kernel);
	tp_out_u64(o, "from_kernel", s->from_kernel - b->from_kernel);
	tp_out_u64(o, "tap_errors", s->tap_errors - b->tap_errors);
	tp_out_u64(o, "inject_full", s->inject_full - b->inject_full);
	tp_out_u64(o, "nombuf", s->nombuf - b->nombuf);
	r = tp_out_obj(o, "reasons");
	for (unsigned int i = 0; i < TP_PUNT_MAX; i++)
		tp_out_u64(r, tp_punt_names[i], s->punt[i] - b->punt[i]);
}

static void mempool_out(struct tp_node *o)
{
	uint64_t size, in_use;

	tp_pools_usage(&size, &in_use);
	tp_out_u64(o, "size", size);
	tp_out_u64(o, "in_use", in_use);
	tp_out_u64(o, "available", size - in_use);
}

static int show_counters(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_node *po = tp_out_obj(ctx->out, "ports");
	struct tp_node *wl = tp_out_list(ctx->out, "workers");
	struct tp_node *e;
	uint64_t drops[TP_DROP_MAX] = {0}, rl = 0, rf = 0;
	struct tp_wstats s;
	unsigned int it = 0;
	struct tp_port *p;

	while ((p = tp_port_next(&it)) != NULL) {
		struct tp_port_ctr sum = {0};
		for (unsigned int w = 0; w < tp.n_workers; w++) {
			wstats_get(w, &s);
			sum.rx += s.port[p->id].rx;
			sum.tx += s.port[p->id].tx;
			sum.exc += s.port[p->id].exc;
			sum.drop += s.port[p->id].drop;
		}
		struct tp_node *o = tp_out_obj(po, p->name);
		tp_out_u64(o, "rx", sum.rx);
		tp_out_u64(o, "tx", sum.tx);
		tp_out_u64(o, "exception", sum.exc);
		tp_out_u64(o, "drops", sum.drop);
	}
	for (unsigned int w = 0; w < tp.n_workers; w++) {
		struct tp_node *o = tp_out_obj(wl, NULL), *d;
		wstats_get(w, &s);
		tp_out_u64(o, "lcore", tp.workers[w]->lcore);
		tp_out_u64(o, "rx", s.rx);
		tp_out_u64(o, "tx", s.tx);
		tp_out_u64(o, "exception", s.exc);
		d = tp_out_obj(o, "drops");
		for (unsigned int i = 0; i < TP_DROP_MAX; i++) {
			if (s.drops[i])
				tp_out_u64(d, tp_drop_names[i], s.drops[i]);
			drops[i] += s.drops[i];
		}
	}
	e = tp_out_obj(ctx->out, "drops");
	for (unsigned int i = 0; i < TP_DROP_MAX; i++)
		tp_out_u64(e, tp_drop_names[i], drops[i]);
	rl = drops[TP_DROP_EXC_RATELIMITED];
	rf = drops[TP_DROP_EXC_RING_FULL];
	e = tp_out_obj(ctx->out, "exception");
	exc_out(e);
	tp_out_u64(e, "ratelimited", rl);
	tp_out_u64(e, "ring_full", rf);
	mempool_out(tp_out_obj(ctx->out, "mempool"));
	return 0;
}

static int show_mempool(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	mempool_out(ctx->out);
	return 0;
}

static int show_exception(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	const struct tp_tbucket *tb = tp.n_workers ? &tp.workers[0]->tb : NULL;

	exc_out(ctx->out);
	if (tb) {
		tp_out_u64(ctx->out, "rate_pps", tb->cost ? tp.tsc_hz * tp.n_workers / tb->cost : 0);
		tp_out_u64(ctx->out, "burst", tb->cost ? tb->max_tokens / tb->cost : 0);
	}
	return 0;
}

static int show_sync(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	tp_out_u64(ctx->out, "events", tp_nl_stats.events);
	tp_out_u64(ctx->out, "resyncs", tp_nl_stats.resyncs);
	tp_out_u64(ctx->out, "overruns", tp_nl_stats.overruns);
	tp_out_u64(ctx->out, "routes_ignored", tp_nl_stats.routes_ignored);
	tp_out_u64(ctx->out, "routes", tp_route_count());
	tp_out_u64(ctx->out, "neighbours", tp_neigh_count());
	tp_out_u64(ctx->out, "nexthops", tp_nh_count());
	return 0;
}

static int sync_resync(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	int ret = tp_nl_resync();
	return ret < 0 ? tp_cmd_err(ctx, -ret, "sync resync: netlink dump failed: %s",
				    strerror(-ret))
		       : 0;
}

static int set_netlink(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	uint64_t v;
	int ret;

	if (argc != 2 || strcmp(argv[0], "rcvbuf"))
		return tp_cmd_err(ctx, EINVAL, "set netlink: usage: set netlink rcvbuf BYTES");
	if (parse_u64(argv[1], 1024, 1 << 30, &v) < 0)
		return tp_cmd_err(ctx, EINVAL, "set netlink: bad size '%s' (1024-1073741824)",
				  argv[1]);
	ret = tp_nl_set_rcvbuf((int)v);
	return ret < 0 ? tp_cmd_err(ctx, -ret, "set netlink: %s", strerror(-ret)) : 0;
}

static int clear_counters(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	for (unsigned int w = 0; w < tp.n_workers; w++) {
		const uint64_t *cur = (const uint64_t *)&tp.workers[w]->st;
		uint64_t *base = (uint64_t *)&baseline[w];
		for (size_t i = 0; i < sizeof(baseline[w]) / sizeof(uint64_t); i++)
			base[i] = __atomic_load_n(&cur[i], __ATOMIC_RELAXED);
	}
	exc_baseline = tp_exc_stats;
	return 0;
}

static int set_exception(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	uint64_t rate, burst = 64;

	if ((argc != 2 && argc != 4) || strcmp(argv[0], "rate") ||
	    (argc == 4 && strcmp(argv[2], "burst")))
		return tp_cmd_err(ctx, EINVAL, "set exception: usage: set exception rate PPS [burst N]");
	if (parse_u64(argv[1], 1, 100000000, &rate) < 0)
		return tp_cmd_err(ctx, EINVAL, "set exception: bad rate '%s' (1-100000000 pps)",
				  argv[1]);
	if (argc == 4 && parse_u64(argv[3], 1, 1000000, &burst) < 0)
		return tp_cmd_err(ctx, EINVAL, "set exception: bad burst '%s' (1-1000000)", argv[3]);
	tp_exception_rate_set(rate, burst);
	return 0;
}

static int set_backoff(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	if (argc != 1 || (strcmp(argv[0], "on") && strcmp(argv[0], "off")))
		return tp_cmd_err(ctx, EINVAL, "set backoff: usage: set backoff on|off");
	tp.backoff = strcmp(argv[0], "on") == 0;
	return 0;
}

static int version(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	tp_out_str(ctx->out, "twinplane", TP_VERSION);
	tp_out_u64(ctx->out, "api", 1);
	tp_out_str(ctx->out, "dpdk", rte_version());
	return 0;
}

static struct tp_cmd c_port_add = {"port add", "NAME DEVARGS [rxq N] [rxd N] [txd N] [mtu N]",
				   "probe a device and start forwarding on it", port_add, NULL};
static struct tp_cmd c_port_del = {"port del", "NAME", "stop and remove a port", port_del, NULL};
static struct tp_cmd c_show_ports = {"show ports", NULL, "ports and their device counters",
				     show_ports, NULL};
static struct tp_cmd c_show_workers = {"show workers", NULL, "workers, queues, cycles",
				       show_workers, NULL};
static struct tp_cmd c_show_counters = {"show counters", NULL,
					"per port, per worker and per drop reason counters",
					show_counters, NULL};
static struct tp_cmd c_show_mempool = {"show mempool", NULL, "mbufs in use", show_mempool, NULL};
static struct tp_cmd c_show_exc = {"show exception", NULL, "the exception path", show_exception,
				   NULL};
static struct tp_cmd c_show_sync = {"show sync", NULL, "the netlink sync manager", show_sync,
				    NULL};
static struct tp_cmd c_clear = {"clear counters", NULL, "zero the counters", clear_counters, NULL};
static struct tp_cmd c_set_exc = {"set exception", "rate PPS [burst N]",
				  "bound what the workers hand to the control plane", set_exception,
				  NULL};
static struct tp_cmd c_set_backoff = {"set backoff", "on|off", "idle sleep of the workers",
				      set_backoff, NULL};
static struct tp_cmd c_resync = {"sync resync", NULL,
				 "dump the kernel's tables again and sweep what is gone", sync_resync,
				 NULL};
static struct tp_cmd c_set_nl = {"set netlink", "rcvbuf BYTES",
				 "receive buffer of the netlink event socket", set_netlink, NULL};
TP_CMD_REGISTER(c_resync)
TP_CMD_REGISTER(c_set_nl)
static struct tp_cmd c_version = {"version", NULL, "versions", version, NULL};
TP_CMD_REGISTER(c_port_add)
TP_CMD_REGISTER(c_port_del)
TP_CMD_REGISTER(c_show_ports)
TP_CMD_REGISTER(c_show_workers)
TP_CMD_REGISTER(c_show_counters)
TP_CMD_REGISTER(c_show_mempool)
TP_CMD_REGISTER(c_show_exc)
TP_CMD_REGISTER(c_show_sync)
TP_CMD_REGISTER(c_clear)
TP_CMD_REGISTER(c_set_exc)
TP_CMD_REGISTER(c_set_backoff)
TP_CMD_REGISTER(c_version)
