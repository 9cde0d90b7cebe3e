/* SPDX-License-Identifier: BSD-3-Clause */
/* Commands of the core on counters: show (per port, lcore, reason of every
 * module, the exception path, the mbufs), clear (a baseline), show mempool. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

#include "../core/counter.h"
#include "../core/lcore.h"
#include "../core/nf.h"
#include "../core/tp.h"
#include "cmd.h"
#include "cmds.h"
#include "exception.h"
#include "port.h"

/* 'clear counters' keeps a baseline: the lcores own their counters and are never
 * stopped. Allocated at the first clear. */
struct baseline {
	struct tp_wstats st;
	uint64_t ctr[TP_MAX_PORTS][TP_CTR_MAX];
};
static struct baseline *baseline[TP_MAX_WORKERS];
static struct tp_exc_stats exc_baseline;

/* A worker's statistics minus the 'clear counters' baseline. */
void tp_cmds_wstats_get(unsigned int w, struct tp_wstats *s)
{
	const uint64_t *cur = (const uint64_t *)&tp.workers[w]->st;
	const uint64_t *base = baseline[w] ? (const uint64_t *)&baseline[w]->st : NULL;
	uint64_t *out = (uint64_t *)s;

	for (size_t i = 0; i < sizeof(*s) / sizeof(uint64_t); i++)
		out[i] = __atomic_load_n(&cur[i], __ATOMIC_RELAXED) - (base ? base[i] : 0);
	s->start_tsc = tp.workers[w]->st.start_tsc;
}

/* Counter id on port of worker w, minus the baseline. */
uint64_t tp_cmds_ctr_get(unsigned int w, unsigned int port, unsigned int id)
{
	uint64_t v = __atomic_load_n(&tp.workers[w]->ctr[port][id], __ATOMIC_RELAXED);

	return v - (baseline[w] ? baseline[w]->ctr[port][id] : 0);
}

void tp_cmds_exc_out(struct tp_node *o)
{
	const struct tp_exc_stats *s = &tp_exc_stats, *b = &exc_baseline;

	tp_out_u64(o, "to_kernel", s->to_kernel - b->to_kernel);
	tp_out_u64(o, "to_kernel_control", s->to_kernel_control - b->to_kernel_control);
	tp_out_u64(o, "from_kernel", s->from_kernel - b->from_kernel);
	tp_out_u64(o, "tap_errors", s->tap_errors - b->tap_errors);
	tp_out_u64(o, "inject_full", s->inject_full - b->inject_full);
	tp_out_u64(o, "from_kernel_pool_share",
		   s->from_kernel_pool_share - b->from_kernel_pool_share);
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
			tp_cmds_wstats_get(w, &s);
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
				v += tp_cmds_ctr_get(w, p->id, id);
			drops += v;
			if (v)
				tp_out_u64(dr, tp_ctr_name(id, name, sizeof(name)), v);
		}
		tp_out_u64(o, "drops", drops);
		/* frames from its TAP over its share of mbufs (read, dropped) */
		tp_out_u64(o, "from_kernel_pool_share", tp_exc_pool_share_drops(p->id));
	}
	for (unsigned int w = 0; w < tp.n_workers; w++) {
		struct tp_node *o = tp_out_obj(wl, NULL);
		const struct tp_lcore_conf *c =
		    __atomic_load_n(&tp.workers[w]->conf, __ATOMIC_ACQUIRE);
		tp_cmds_wstats_get(w, &s);
		tp_out_u64(o, "lcore", tp.workers[w]->lcore);
		tp_out_str(o, "role", tp_role_name((enum tp_role)c->role));
		tp_out_u64(o, "rx", s.rx);
		tp_out_u64(o, "tx", s.tx);
		tp_out_u64(o, "exception", s.exc);
		d = tp_out_obj(o, "counters");
		for (unsigned int id = 0; id < nc; id++) {
			uint64_t v = 0;
			for (unsigned int port = 0; port < TP_MAX_PORTS; port++)
				v += tp_cmds_ctr_get(w, port, id);
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
	tp_cmds_exc_out(e);
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
	tp_exc_pool_share_clear(); /* the control thread's own: zeroed */
	return 0;
}

static struct tp_cmd c_show_counters = {
    "show counters", NULL, "per port, per lcore and per reason counters of every module",
    show_counters, NULL};
static struct tp_cmd c_show_mempool = {"show mempool", NULL, "mbufs in use", show_mempool, NULL};
static struct tp_cmd c_clear = {"clear counters", NULL, "zero the counters", clear_counters, NULL};
TP_CMD_REGISTER(c_show_counters)
TP_CMD_REGISTER(c_show_mempool)
TP_CMD_REGISTER(c_clear)
