/* SPDX-License-Identifier: BSD-3-Clause */
/* The IPv6 router's commands: its route and neighbour tables as the data plane has
 * them. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "../../control/cmd.h"
#include "../../control/out.h"
#include "../../control/port.h"
#include "../ip4/control/nexthop.h"
#include "control/netlink6.h"
#include "control/route6.h"

static const char *port_name(uint16_t id)
{
	struct tp_port *p = tp_port_by_id(id);
	return p ? p->name : "";
}

static const char *nh_kind(uint32_t nh)
{
	static const char *const special[TP_NH_FIRST] = {
	    "local", "connected", "blackhole", "unreachable", "prohibit", "unfit",
	};
	return nh < TP_NH_FIRST ? special[nh] : "neighbour";
}

/* show routes6: every IPv6 route of the data plane (the index's order), what it
 * points to, whether an LPM copy holds it, how many kernel paths the prefix has. */
static int show_routes6(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_node *l = tp_out_list(ctx->out, "routes");
	const struct tp_route6 *r;
	uint32_t iter = 0;
	char a[INET6_ADDRSTRLEN];

	while ((r = tp_route6_iterate(&iter)) != NULL) {
		struct tp_node *o = tp_out_obj(l, NULL);
		inet_ntop(AF_INET6, r->ip, a, sizeof(a));
		tp_out_strf(o, "prefix", "%s/%u", a, r->depth);
		tp_out_str(o, "type", nh_kind(r->nh));
		tp_out_u64(o, "nexthop", r->nh);
		tp_out_str(o, "port",
			   r->nh >= TP_NH_FIRST ? port_name(tp_nh_table[r->nh].port) : "");
		/* punting: installed, but it covers a route that does not fit, so its
		 * packets go to the kernel (route6.h) */
		tp_out_str(o, "state",
			   r->fit     ? (r->unfit_below ? "punting" : "installed")
			   : r->unfit ? "unfit"
				      : "waiting");
		tp_out_u64(o, "unfit_below", r->unfit_below);
		tp_out_u64(o, "kernel_paths", tp_ip6_nl_paths(r->ip, r->depth));
	}
	tp_out_u64(ctx->out, "total", tp_route6_count());
	tp_out_u64(ctx->out, "unpublished", tp_route6_unpublished());
	return 0;
}

static struct tp_cmd c_show_routes6 = {"show routes6", NULL, "the data plane's IPv6 route table",
				       show_routes6, NULL};
TP_CMD_REGISTER(c_show_routes6)
