/* SPDX-License-Identifier: BSD-3-Clause */
/* Commands of the core on lcores: show (roles, queues, rings, cycles), role,
 * rings between lcores, idle backoff. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "../core/lcore.h"
#include "../core/ring.h"
#include "../core/tp.h"
#include "cmd.h"
#include "cmds.h"
#include "port.h"

static int show_lcores(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_node *l = tp_out_list(ctx->out, "workers");
	uint64_t now = rte_rdtsc();

	for (unsigned int w = 0; w < tp.n_workers; w++) {
		struct tp_worker *wk = tp.workers[w];
		struct tp_node *o = tp_out_obj(l, NULL), *ql, *rl;
		struct tp_wstats s;
		const struct tp_lcore_conf *c = __atomic_load_n(&wk->conf, __ATOMIC_ACQUIRE);

		tp_cmds_wstats_get(w, &s);
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

static int set_backoff(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	if (argc != 1 || (strcmp(argv[0], "on") && strcmp(argv[0], "off")))
		return tp_cmd_err(ctx, EINVAL, "set backoff: usage: set backoff on|off");
	tp.backoff = strcmp(argv[0], "on") == 0;
	return 0;
}

static struct tp_cmd c_show_workers = {"show workers", NULL, "data-plane lcores (show lcores)",
				       show_lcores, NULL};
static struct tp_cmd c_show_lcores = {
    "show lcores", NULL, "data-plane lcores: roles, queues, rings, cycles", show_lcores, NULL};
static struct tp_cmd c_lcore = {"lcore", "LCORE role worker|input|forwarding|output",
				"a data-plane lcore's role", lcore_role, NULL};
static struct tp_cmd c_show_rings = {"show rings", NULL, "rings between lcores", show_rings, NULL};
static struct tp_cmd c_set_backoff = {"set backoff", "on|off", "idle sleep of the lcores",
				      set_backoff, NULL};
TP_CMD_REGISTER(c_show_workers)
TP_CMD_REGISTER(c_show_lcores)
TP_CMD_REGISTER(c_lcore)
TP_CMD_REGISTER(c_show_rings)
TP_CMD_REGISTER(c_set_backoff)
