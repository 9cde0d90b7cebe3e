/* SPDX-License-Identifier: BSD-3-Clause */
/* Commands of the core on the daemon itself: the API server, the modules and
 * their port modes, versions. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_version.h>

#include "../core/input.h"
#include "../core/nf.h"
#include "api_server.h"
#include "cmd.h"
#include "timer.h"

static int set_api(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	return tp_conn_limits_set(ctx, &tp_api_server, argc, argv);
}

static int show_api(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	tp_conn_show(ctx, &tp_api_server);
	tp_out_u64(ctx->out, "requests", tp_api_stats.requests);
	tp_out_u64(ctx->out, "refused_peer", tp_api_stats.refused_peer);
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

static struct tp_cmd c_set_api = {"set api", "[deadline MS] [idle S] [max-clients N]",
				  "limits of the API server", set_api, NULL};
static struct tp_cmd c_show_api = {"show api", NULL, "the API server", show_api, NULL};
static struct tp_cmd c_show_modules = {"show modules", NULL,
				       "network functions, their counters, port modes, ethertypes",
				       show_modules, NULL};
static struct tp_cmd c_version = {"version", NULL, "versions", version, NULL};
TP_CMD_REGISTER(c_set_api)
TP_CMD_REGISTER(c_show_api)
TP_CMD_REGISTER(c_show_modules)
TP_CMD_REGISTER(c_version)
