/* SPDX-License-Identifier: BSD-3-Clause */
/* Commands of the core: ports and their modes, lcores and their roles, rings,
 * counters, mempools, the exception path, the API, modules. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_version.h>

#include "../core/lcore.h"
#include "../core/nf.h"
#include "../core/rcu.h"
#include "../core/ring.h"
#include "../core/tp.h"
#include "../proto/ip4.h"
#include "../tables/iface.h"
#include "api_server.h"
#include "cmd.h"
#include "exception.h"
#include "port.h"
#include "timer.h"

/* 'clear counters' keeps a baseline: the lcores own their counters and are never
 * stopped. Allocated at the first clear. */
struct baseline {
	struct tp_wstats st;
	uint64_t ctr[TP_MAX_PORTS][TP_CTR_MAX];
};
static struct baseline *baseline[TP_MAX_WORKERS];
static struct tp_exc_stats exc_baseline;

static int port_add(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_port_opts o = {0};
	uint64_t v;
	int ret;

	if (argc < 2 || argc % 2)
		return tp_cmd_err(ctx, EINVAL,
				  "port add: usage: port add NAME DEVARGS [rxq N] [txq N] [rxd N] "
				  "[txd N] [mtu N]");
	for (int i = 2; i < argc; i += 2) {
		uint16_t *dst = strcmp(argv[i], "rxq") == 0   ? &o.nb_rxq
				: strcmp(argv[i], "txq") == 0 ? &o.nb_txq
				: strcmp(argv[i], "rxd") == 0 ? &o.nb_rxd
				: strcmp(argv[i], "txd") == 0 ? &o.nb_txd
				: strcmp(argv[i], "mtu") == 0 ? &o.mtu
							      : NULL;
		if (dst == NULL)
			return tp_cmd_err(ctx, EINVAL,
					  "port add: unknown option '%s' (rxq, txq, rxd, txd, mtu)",
					  argv[i]);
		if (tp_parse_u64(argv[i + 1], 1, 16384, &v) < 0)
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
	return 0;
}

/* A pending port command is over. */
static void port_cmd_done(int ret, void *arg)
{
	tp_cmd_done(arg, ret);
}

static int port_del(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	int ret;

	if (argc != 1)
		return tp_cmd_err(ctx, EINVAL, "port del: usage: port del NAME");
	ret = tp_port_del(argv[0], port_cmd_done, ctx);
	if (ret == -ENOENT)
		return tp_cmd_err(ctx, ENODEV, "port del: no port named '%s'", argv[0]);
	if (ret == -EBUSY)
		return tp_cmd_err(ctx, EBUSY, "port del: port '%s' is being changed or removed",
				  argv[0]);
	if (ret < 0)
		return tp_cmd_err(ctx, -ret, "port del %s: %s (the port is unchanged)", argv[0],
				  strerror(-ret));
	return TP_CMD_PENDING; /* answered once the device is closed */
}

static int port_set(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_port *p;
	int ret;

	if (argc < 3)
		return tp_cmd_err(ctx, EINVAL,
				  "port set: usage: port set NAME mode MODE [WORDS] | "
				  "port set NAME rxq Q lcore LCORE|auto");
	p = tp_port_by_name(argv[0]);
	if (p == NULL)
		return tp_cmd_err(ctx, ENODEV, "port set: no port named '%s'", argv[0]);
	if (strcmp(argv[1], "mode") == 0) {
		struct tp_port_mode *m = tp_port_mode_find(argv[2]);
		if (m == NULL) {
			char names[256] = "";
			for (m = tp_port_mode_next(NULL); m; m = tp_port_mode_next(m))
				snprintf(names + strlen(names), sizeof(names) - strlen(names),
					 "%s%s", names[0] ? ", " : "", m->name);
			return tp_cmd_err(ctx, EINVAL, "port set %s mode: unknown mode '%s' (%s)",
					  argv[0], argv[2], names);
		}
		ret = tp_port_set_mode(p, m, argc - 3, argv + 3, port_cmd_done, ctx, ctx->err,
				       sizeof(ctx->err));
		if (ret < 0) {
			char tmp[sizeof(ctx->err)];
			snprintf(tmp, sizeof(tmp), "%s", ctx->err[0] ? ctx->err : strerror(-ret));
			return tp_cmd_err(ctx, -ret, "port set %s mode %s: %s", argv[0], m->name,
					  tmp);
		}
		return TP_CMD_PENDING;
	}
	if (strcmp(argv[1], "rxq") == 0) {
		uint64_t q, lc;
		int id = TP_RXQ_AUTO;
		if (argc != 5 || strcmp(argv[3], "lcore"))
			return tp_cmd_err(ctx, EINVAL,
					  "port set: usage: port set NAME rxq Q lcore LCORE|auto");
		if (tp_parse_u64(argv[2], 0, p->nb_rxq - 1u, &q) < 0)
			return tp_cmd_err(ctx, EINVAL, "port set %s rxq: bad queue '%s' (0-%u)",
					  argv[0], argv[2], p->nb_rxq - 1u);
		if (strcmp(argv[4], "auto") != 0) {
			if (tp_parse_u64(argv[4], 0, RTE_MAX_LCORE - 1, &lc) < 0 ||
			    (id = tp_lcore_by_eal((unsigned int)lc)) < 0)
				return tp_cmd_err(
				    ctx, EINVAL,
				    "port set %s rxq %s: '%s' is not a data-plane lcore "
				    "(see show lcores)",
				    argv[0], argv[2], argv[4]);
		}
		ret = tp_lcore_pin_rxq(p->id, (uint16_t)q, id);
		if (ret == -EBUSY)
			return tp_cmd_err(ctx, EBUSY,
					  "port set %s rxq %s: lcore %s does not receive (its role "
					  "is not worker or input)",
					  argv[0], argv[2], argv[4]);
		if (ret < 0)
			return tp_cmd_err(ctx, -ret, "port set %s rxq %s: %s", argv[0], argv[2],
					  strerror(-ret));
		return 0;
	}
	return tp_cmd_err(ctx, EINVAL, "port set: unknown setting '%s' (mode, rxq)", argv[1]);
}

static int show_ports(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_node *l = tp_out_list(ctx->out, "ports");
	unsigned int it = 0;
	struct tp_port *p;
	char m[18], a[16];

	while ((p = tp_port_next(&it)) != NULL) {
		struct tp_node *o = tp_out_obj(l, NULL), *al, *ql, *s;
		struct rte_eth_stats st = {0};

		tp_out_str(o, "name", p->name);
		tp_out_u64(o, "id", p->id);
		tp_out_str(o, "devargs", p->devargs);
		tp_out_str(o, "mac", tp_mac_fmt(tp_iface_table[p->id].mac.addr_bytes, m));
		tp_out_strf(o, "mode", "%s%s%s", p->mode->name, p->mode_args[0] ? " " : "",
			    p->mode_args);
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
		tp_out_bool(o, "tx_queues_shared", p->txq_locks != NULL);
		ql = tp_out_list(o, "rxq_lcores");
		for (uint16_t q = 0; q < p->nb_rxq; q++) {
			int w = tp_lcore_rxq_owner(p->id, q);
			if (w >= 0)
				tp_out_u64(ql, NULL, tp.workers[w]->lcore);
			else
				tp_out_i64(ql, NULL, -1);
		}
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

/* A worker's statistics minus the 'clear counters' baseline. */
static void wstats_get(unsigned int w, struct tp_wstats *s)
{
	const uint64_t *cur = (const uint64_t *)&tp.workers[w]->st;
	const uint64_t *base = baseline[w] ? (const uint64_t *)&baseline[w]->st : NULL;
	uint64_t *out = (uint64_t *)s;

	for (size_t i = 0; i < sizeof(*s) / sizeof(uint64_t); i++)
		out[i] = __atomic_load_n(&cur[i], __ATOMIC_RELAXED) - (base ? base[i] : 0);
	s->start_tsc = tp.workers[w]->st.start_tsc;
}

/* Counter id on port of worker w, minus the baseline. */
static uint64_t ctr_get(unsigned int w, unsigned int port, unsigned int id)
{
	uint64_t v = __atomic_load_n(&tp.workers[w]->ctr[port][id], __ATOMIC_RELAXED);

	return v - (baseline[w] ? baseline[w]->ctr[port][id] : 0);
}

static int show_lcores(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_node *l = tp_out_list(ctx->out, "workers");
	uint64_t now = rte_rdtsc();

	for (unsigned int w = 0; w < tp.n_workers; w++) {
		struct tp_worker *wk = tp.workers[w];
		struct tp_node *o = tp_out_obj(l, NULL), *ql, *rl;
		struct tp_wstats s;
		const struct tp_lcore_conf *c = __atomic_load_n(&wk->conf, __ATOMIC_ACQUIRE);

		wstats_get(w, &s);
		tp_out_u64(o, "id", w);
		tp_out_u64(o, "lcore", wk->lcore);
		tp_out_str(o, "role", tp_role_name((enum tp_role)c->role));
		ql = tp_out_list(o, "rxqs");
		for (unsigned int q = 0; q < c->n_rxq; q++) {
			struct tp_port *p = tp_port_by_id(c->rxq[q].port);
			tp_out_strf(ql, NULL, "%s:%u", p ? p->name : "?", c->rxq[q].queue);
		}
		rl = tp_out_list(o, "rings");
		for (unsigned int i = 0; i < c->n_rings; i++)
			tp_out_str(rl, NULL, c->rings[i]->name);
		/* its RCU reader state: 0 is offline, else the last grace-period token it
		 * acknowledged (the counter rte_rcu_qsbr_quiescent() writes) */
		uint64_t qcnt = __atomic_load_n(&tp.qs->qsbr_cnt[w].cnt, __ATOMIC_ACQUIRE);
		tp_out_bool(o, "rcu_online", qcnt != 0);
		tp_out_u64(o, "rcu_token_seen", qcnt);
		tp_out_u64(o, "rx", s.rx);
		tp_out_u64(o, "tx", s.tx);
		tp_out_u64(o, "exception", s.exc);
		tp_out_u64(o, "polls", s.polls);
		tp_out_u64(o, "idle_polls", s.idle_polls);
		tp_out_u64(o, "busy_cycles", s.busy_cycles);
		tp_out_u64(o, "long_passes", s.long_passes);
		tp_out_u64(o, "long_pass_cycles", s.long_pass_cycles);
		tp_out_u64(o, "total_cycles", s.start_tsc ? now - s.start_tsc : 0);
	}
	tp_out_u64(ctx->out, "tsc_hz", tp.tsc_hz);
	tp_out_u64(ctx->out, "rcu_token", __atomic_load_n(&tp.qs->token, __ATOMIC_ACQUIRE));
	return 0;
}

static int lcore_role(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	uint64_t lc;
	int id, role, ret;

	if (argc != 3 || strcmp(argv[1], "role"))
		return tp_cmd_err(ctx, EINVAL,
				  "lcore: usage: lcore LCORE role worker|input|forwarding|output");
	if (tp_parse_u64(argv[0], 0, RTE_MAX_LCORE - 1, &lc) < 0 ||
	    (id = tp_lcore_by_eal((unsigned int)lc)) < 0)
		return tp_cmd_err(ctx, EINVAL,
				  "lcore: '%s' is not a data-plane lcore (see show lcores)",
				  argv[0]);
	if ((role = tp_role_parse(argv[2])) < 0)
		return tp_cmd_err(
		    ctx, EINVAL,
		    "lcore %s role: unknown role '%s' (worker, input, forwarding, output)", argv[0],
		    argv[2]);
	ret = tp_lcore_set_role((unsigned int)id, (enum tp_role)role);
	if (ret == -EBUSY)
		return tp_cmd_err(
		    ctx, EBUSY,
		    "lcore %s role %s: queues are pinned to it (port set P rxq Q lcore auto)",
		    argv[0], argv[2]);
	return ret < 0 ? tp_cmd_err(ctx, -ret, "lcore %s role: %s", argv[0], strerror(-ret)) : 0;
}

static int show_rings(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_node *l = tp_out_list(ctx->out, "rings");
	unsigned int it = 0;
	struct tp_ring *r;

	while ((r = tp_ring_next(&it)) != NULL) {
		struct tp_node *o = tp_out_obj(l, NULL);
		uint64_t enq = 0, full = 0;
		for (unsigned int w = 0; w < TP_MAX_WORKERS; w++) {
			enq += __atomic_load_n(&r->prod[w].enqueued, __ATOMIC_RELAXED);
			full += __atomic_load_n(&r->prod[w].dropped_full, __ATOMIC_RELAXED);
		}
		tp_out_str(o, "name", r->name);
		tp_out_str(o, "owner", r->owner ? r->owner : "");
		tp_out_u64(o, "size", r->size);
		tp_out_u64(o, "consumer_lcore", tp.workers[r->consumer]->lcore);
		tp_out_u64(o, "count", rte_ring_count(r->r));
		tp_out_u64(o, "enqueued", enq);
		tp_out_u64(o, "dequeued", __atomic_load_n(&r->dequeued, __ATOMIC_RELAXED));
		tp_out_u64(o, "dropped_full", full);
	}
	return 0;
}

static void exc_out(struct tp_node *o)
{
	const struct tp_exc_stats *s = &tp_exc_stats, *b = &exc_baseline;

	tp_out_u64(o, "to_kernel", s->to_kernel - b->to_kernel);
	tp_out_u64(o, "to_kernel_control", s->to_kernel_control - b->to_kernel_control);
	tp_out_u64(o, "from_kernel", s->from_kernel - b->from_kernel);
	tp_out_u64(o, "tap_errors", s->tap_errors - b->tap_errors);
	tp_out_u64(o, "inject_full", s->inject_full - b->inject_full);
	tp_out_u64(o, "nombuf", s->nombuf - b->nombuf);
	tp_out_u64(o, "oversize_to_kernel", s->oversize_to_kernel - b->oversize_to_kernel);
	tp_out_u64(o, "oversize_from_kernel", s->oversize_from_kernel - b->oversize_from_kernel);
	tp_out_u64(o, "from_kernel_ratelimited",
		   s->from_kernel_ratelimited - b->from_kernel_ratelimited);
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
	unsigned int nc = tp_ctr_count(), it = 0;
	uint64_t *total = calloc(nc ? nc : 1, sizeof(*total));
	struct tp_node *po = tp_out_obj(ctx->out, "ports");
	struct tp_node *wl = tp_out_list(ctx->out, "workers");
	struct tp_node *d, *e, *r;
	struct tp_wstats s;
	struct tp_port *p;
	char name[64];

	if (total == NULL)
		return tp_cmd_err(ctx, ENOMEM, "show counters: out of memory");
	while ((p = tp_port_next(&it)) != NULL) {
		struct tp_port_ctr sum = {0};
		struct tp_node *o = tp_out_obj(po, p->name), *dr;
		uint64_t drops = 0;
		for (unsigned int w = 0; w < tp.n_workers; w++) {
			wstats_get(w, &s);
			sum.rx += s.port[p->id].rx;
			sum.tx += s.port[p->id].tx;
			sum.exc += s.port[p->id].exc;
		}
		tp_out_u64(o, "rx", sum.rx);
		tp_out_u64(o, "tx", sum.tx);
		tp_out_u64(o, "exception", sum.exc);
		dr = tp_out_obj(o, "drop_reasons");
		for (unsigned int id = 0; id < nc; id++) {
			uint64_t v = 0;
			if (tp_ctr_kind(id) != TP_CTR_DROP)
				continue;
			for (unsigned int w = 0; w < tp.n_workers; w++)
				v += ctr_get(w, p->id, id);
			drops += v;
			if (v)
				tp_out_u64(dr, tp_ctr_name(id, name, sizeof(name)), v);
		}
		tp_out_u64(o, "drops", drops);
	}
	for (unsigned int w = 0; w < tp.n_workers; w++) {
		struct tp_node *o = tp_out_obj(wl, NULL);
		const struct tp_lcore_conf *c =
		    __atomic_load_n(&tp.workers[w]->conf, __ATOMIC_ACQUIRE);
		wstats_get(w, &s);
		tp_out_u64(o, "lcore", tp.workers[w]->lcore);
		tp_out_str(o, "role", tp_role_name((enum tp_role)c->role));
		tp_out_u64(o, "rx", s.rx);
		tp_out_u64(o, "tx", s.tx);
		tp_out_u64(o, "exception", s.exc);
		d = tp_out_obj(o, "counters");
		for (unsigned int id = 0; id < nc; id++) {
			uint64_t v = 0;
			for (unsigned int port = 0; port < TP_MAX_PORTS; port++)
				v += ctr_get(w, port, id);
			total[id] += v;
			if (v)
				tp_out_u64(d, tp_ctr_name(id, name, sizeof(name)), v);
		}
	}
	d = tp_out_obj(ctx->out, "drops");
	e = tp_out_obj(ctx->out, "counters");
	r = NULL;
	for (unsigned int id = 0; id < nc; id++) {
		enum tp_ctr_kind k = tp_ctr_kind(id);
		if (k == TP_CTR_DROP)
			tp_out_u64(d, tp_ctr_name(id, name, sizeof(name)), total[id]);
		else if (k == TP_CTR_EVENT)
			tp_out_u64(e, tp_ctr_name(id, name, sizeof(name)), total[id]);
	}
	e = tp_out_obj(ctx->out, "exception");
	exc_out(e);
	tp_out_u64(e, "ratelimited", total[TP_DROP_EXC_RATELIMITED]);
	tp_out_u64(e, "ring_full", total[TP_DROP_EXC_RING_FULL]);
	r = tp_out_obj(e, "reasons");
	for (unsigned int id = 0; id < nc; id++)
		if (tp_ctr_kind(id) == TP_CTR_PUNT)
			tp_out_u64(r, tp_ctr_name(id, name, sizeof(name)), total[id]);
	mempool_out(tp_out_obj(ctx->out, "mempool"));
	free(total);
	return 0;
}

static int show_mempool(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	mempool_out(ctx->out);
	return 0;
}

static int show_exception(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_node *cl = tp_out_obj(ctx->out, "classes");

	exc_out(ctx->out);
	for (unsigned int c = 0; c < TP_PUNT_CLASSES; c++) {
		struct tp_node *o = tp_out_obj(cl, tp_punt_class_name((enum tp_punt_class)c));
		tp_out_u64(o, "rate_pps", tp.exc_rate[c]);
		tp_out_u64(o, "burst", tp.exc_burst[c]);
	}
	tp_out_str(ctx->out, "per", "port");
	return 0;
}

static int clear_counters(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	for (unsigned int w = 0; w < tp.n_workers; w++) {
		if (baseline[w] == NULL)
			baseline[w] = rte_zmalloc("tp_ctr_base", sizeof(*baseline[w]), 0);
		if (baseline[w] == NULL)
			return tp_cmd_err(ctx, ENOMEM, "clear counters: out of memory");
		const uint64_t *cur = (const uint64_t *)&tp.workers[w]->st;
		uint64_t *base = (uint64_t *)&baseline[w]->st;
		for (size_t i = 0; i < sizeof(baseline[w]->st) / sizeof(uint64_t); i++)
			base[i] = __atomic_load_n(&cur[i], __ATOMIC_RELAXED);
		for (unsigned int p = 0; p < TP_MAX_PORTS; p++)
			for (unsigned int id = 0; id < TP_CTR_MAX; id++)
				baseline[w]->ctr[p][id] =
				    __atomic_load_n(&tp.workers[w]->ctr[p][id], __ATOMIC_RELAXED);
	}
	exc_baseline = tp_exc_stats;
	return 0;
}

static int set_exception(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	uint64_t rate, burst = 64;
	int cls = TP_PUNT_CLASSES;

	if (argc < 2 || argc % 2 || strcmp(argv[0], "rate"))
		return tp_cmd_err(ctx, EINVAL,
				  "set exception: usage: set exception rate PPS "
				  "[burst N] [class control|arp|signaling|other|error]");
	if (tp_parse_u64(argv[1], 1, 100000000, &rate) < 0)
		return tp_cmd_err(ctx, EINVAL, "set exception: bad rate '%s' (1-100000000 pps)",
				  argv[1]);
	for (int i = 2; i < argc; i += 2) {
		if (strcmp(argv[i], "burst") == 0) {
			if (tp_parse_u64(argv[i + 1], 1, 1000000, &burst) < 0)
				return tp_cmd_err(ctx, EINVAL,
						  "set exception: bad burst '%s' (1-1000000)",
						  argv[i + 1]);
		} else if (strcmp(argv[i], "class") == 0) {
			if ((cls = tp_punt_class_parse(argv[i + 1])) < 0)
				return tp_cmd_err(ctx, EINVAL,
						  "set exception: unknown class '%s' (control, "
						  "arp, signaling, other, error)",
						  argv[i + 1]);
		} else {
			return tp_cmd_err(ctx, EINVAL,
					  "set exception: unknown keyword '%s' (burst, class)",
					  argv[i]);
		}
	}
	tp_punt_rate_set((enum tp_punt_class)cls, rate, burst);
	return 0;
}

static int set_backoff(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	if (argc != 1 || (strcmp(argv[0], "on") && strcmp(argv[0], "off")))
		return tp_cmd_err(ctx, EINVAL, "set backoff: usage: set backoff on|off");
	tp.backoff = strcmp(argv[0], "on") == 0;
	return 0;
}

static int set_api(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_api_limits l = tp_api_limits;
	uint64_t v;

	if (argc == 0 || argc % 2)
		return tp_cmd_err(ctx, EINVAL,
				  "set api: usage: set api [deadline MS] [idle S] "
				  "[max-clients N]");
	for (int i = 0; i < argc; i += 2) {
		if (strcmp(argv[i], "deadline") == 0 &&
		    tp_parse_u64(argv[i + 1], 10, 600000, &v) == 0)
			l.deadline_ms = (unsigned int)v;
		else if (strcmp(argv[i], "idle") == 0 &&
			 tp_parse_u64(argv[i + 1], 1, 86400, &v) == 0)
			l.idle_ms = (unsigned int)v * 1000;
		else if (strcmp(argv[i], "max-clients") == 0 &&
			 tp_parse_u64(argv[i + 1], 1, 256, &v) == 0)
			l.max_conns = (unsigned int)v;
		else
			return tp_cmd_err(
			    ctx, EINVAL,
			    "set api: bad '%s %s' (deadline 10-600000 ms, idle 1-86400 s, "
			    "max-clients 1-256)",
			    argv[i], argv[i + 1]);
	}
	tp_api_limits = l;
	return 0;
}

static int show_api(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	tp_out_u64(ctx->out, "clients", tp_api_conns());
	tp_out_u64(ctx->out, "max_clients", tp_api_limits.max_conns);
	tp_out_u64(ctx->out, "deadline_ms", tp_api_limits.deadline_ms);
	tp_out_u64(ctx->out, "idle_s", tp_api_limits.idle_ms / 1000);
	tp_out_u64(ctx->out, "accepted", tp_api_stats.accepted);
	tp_out_u64(ctx->out, "requests", tp_api_stats.requests);
	tp_out_u64(ctx->out, "refused_peer", tp_api_stats.refused_peer);
	tp_out_u64(ctx->out, "refused_full", tp_api_stats.refused_full);
	tp_out_u64(ctx->out, "closed_deadline", tp_api_stats.deadline_closed);
	tp_out_u64(ctx->out, "closed_idle", tp_api_stats.idle_closed);
	tp_out_u64(ctx->out, "timers", tp_timer_count());
	return 0;
}

static int show_modules(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_node *l = tp_out_list(ctx->out, "modules"), *ml;
	struct tp_port_mode *m;

	for (struct tp_nf *nf = tp_nf_first(); nf; nf = nf->next) {
		struct tp_node *o = tp_out_obj(l, NULL), *cl;
		tp_out_str(o, "name", nf->name);
		tp_out_str(o, "help", nf->help ? nf->help : "");
		cl = tp_out_list(o, "counters");
		for (unsigned int i = 0; i < nf->n_ctrs; i++)
			tp_out_str(cl, NULL, nf->ctrs[i].name);
	}
	ml = tp_out_list(ctx->out, "port_modes");
	for (m = tp_port_mode_next(NULL); m; m = tp_port_mode_next(m)) {
		struct tp_node *o = tp_out_obj(ml, NULL);
		tp_out_strf(o, "mode", "%s%s%s", m->name, m->usage ? " " : "",
			    m->usage ? m->usage : "");
		tp_out_str(o, "help", m->help ? m->help : "");
	}
	tp_nf_show_all(ctx->out); /* e.g. ip4's ethertype table */
	return 0;
}

static int version(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	tp_out_str(ctx->out, "twinplane", TP_VERSION);
	tp_out_u64(ctx->out, "api", 1);
	tp_out_str(ctx->out, "dpdk", rte_version());
	return 0;
}

static struct tp_cmd c_port_add = {"port add",
				   "NAME DEVARGS [rxq N] [txq N] [rxd N] [txd N] [mtu N]",
				   "probe a device and start forwarding on it", port_add, NULL};
static struct tp_cmd c_port_del = {"port del", "NAME", "stop and remove a port", port_del, NULL};
static struct tp_cmd c_port_set = {
    "port set", "NAME mode MODE [WORDS] | NAME rxq Q lcore LCORE|auto",
    "a port's mode (show modules), or where a receive queue is polled", port_set, NULL};
static struct tp_cmd c_show_ports = {"show ports", NULL, "ports and their device counters",
				     show_ports, NULL};
static struct tp_cmd c_show_workers = {"show workers", NULL, "data-plane lcores (show lcores)",
				       show_lcores, NULL};
static struct tp_cmd c_show_lcores = {
    "show lcores", NULL, "data-plane lcores: roles, queues, rings, cycles", show_lcores, NULL};
static struct tp_cmd c_lcore = {"lcore", "LCORE role worker|input|forwarding|output",
				"a data-plane lcore's role", lcore_role, NULL};
static struct tp_cmd c_show_rings = {"show rings", NULL, "rings between lcores", show_rings, NULL};
static struct tp_cmd c_show_counters = {
    "show counters", NULL, "per port, per lcore and per reason counters of every module",
    show_counters, NULL};
static struct tp_cmd c_show_mempool = {"show mempool", NULL, "mbufs in use", show_mempool, NULL};
static struct tp_cmd c_show_exc = {"show exception", NULL, "the exception path", show_exception,
				   NULL};
static struct tp_cmd c_clear = {"clear counters", NULL, "zero the counters", clear_counters, NULL};
static struct tp_cmd c_set_exc = {"set exception", "rate PPS [burst N] [class C]",
				  "bound what each port hands to the control plane, per class",
				  set_exception, NULL};
static struct tp_cmd c_set_backoff = {"set backoff", "on|off", "idle sleep of the lcores",
				      set_backoff, NULL};
static struct tp_cmd c_set_api = {"set api", "[deadline MS] [idle S] [max-clients N]",
				  "limits of the API server", set_api, NULL};
static struct tp_cmd c_show_api = {"show api", NULL, "the API server", show_api, NULL};
static struct tp_cmd c_show_modules = {"show modules", NULL,
				       "network functions, their counters, port modes, ethertypes",
				       show_modules, NULL};
static struct tp_cmd c_version = {"version", NULL, "versions", version, NULL};
TP_CMD_REGISTER(c_port_add)
TP_CMD_REGISTER(c_port_del)
TP_CMD_REGISTER(c_port_set)
TP_CMD_REGISTER(c_show_ports)
TP_CMD_REGISTER(c_show_workers)
TP_CMD_REGISTER(c_show_lcores)
TP_CMD_REGISTER(c_lcore)
TP_CMD_REGISTER(c_show_rings)
TP_CMD_REGISTER(c_show_counters)
TP_CMD_REGISTER(c_show_mempool)
TP_CMD_REGISTER(c_show_exc)
TP_CMD_REGISTER(c_clear)
TP_CMD_REGISTER(c_set_exc)
TP_CMD_REGISTER(c_set_backoff)
TP_CMD_REGISTER(c_set_api)
TP_CMD_REGISTER(c_show_api)
TP_CMD_REGISTER(c_show_modules)
TP_CMD_REGISTER(c_version)
