/* SPDX-License-Identifier: BSD-3-Clause */
/* The IPv6 router's commands: addresses and routes written through the kernel (as
 * ip4's "address add" and "route add": the kernel stays the source of truth and the
 * sync manager mirrors what it took), and the route table as the data plane has it.
 * The family is in the command's name (address6, route6, show routes6), as iproute2's
 * "-6", FRR's "ipv6 route" and grout's and VPP's ip6 commands keep the families apart
 * (decision docs/decisions/0100-ipv6-commands.md). */
#include <errno.h>
#include <inttypes.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>

#include "../../control/cmd.h"
#include "../../control/out.h"
#include "../../control/port.h"
#include "../../proto/ip4.h"
#include "../../proto/ip6.h"
#include "../ip4/control/netlink.h"
#include "../ip4/control/nexthop.h"
#include "control/neigh6.h"
#include "control/netlink6.h"
#include "control/route6.h"

static const char *port_name(uint16_t id)
{
	struct tp_port *p = tp_port_by_id(id);
	return p ? p->name : "";
}

/* What a next hop is, for a route the kernel has no path of (a neighbour's /128). */
static const char *nh_kind(uint32_t nh)
{
	static const char *const special[TP_NH_FIRST] = {
	    "local", "connected", "blackhole", "unreachable", "prohibit", "unfit",
	};
	return nh < TP_NH_FIRST ? special[nh] : "neighbour";
}

/* The kernel route types' names, as ip4's show routes has them. */
static const char *type_name(uint8_t t)
{
	static const char *const names[] = {
	    [TP_ROUTE6_CONNECTED] = "connected",
	    [TP_ROUTE6_GATEWAY] = "gateway",
	    [TP_ROUTE6_LOCAL] = "local",
	    [TP_ROUTE6_BLACKHOLE] = "blackhole",
	    [TP_ROUTE6_UNREACHABLE] = "unreachable",
	    [TP_ROUTE6_PROHIBIT] = "prohibit",
	};
	return t < RTE_DIM(names) ? names[t] : "?";
}

static int need_port(struct tp_cmd_ctx *ctx, const char *cmd, const char *name, struct tp_port **p)
{
	*p = tp_port_by_name(name);
	if (*p == NULL)
		return tp_cmd_err(ctx, ENODEV, "%s: no port named '%s'", cmd, name);
	return 0;
}

/* ADDR/LEN into ip (masked) and depth, or an error naming the word. */
static int prefix_arg(struct tp_cmd_ctx *ctx, const char *cmd, const char *s, uint8_t ip[16],
		      uint8_t *depth)
{
	if (tp_ip6_parse_prefix(s, ip, depth) < 0)
		return tp_cmd_err(ctx, EINVAL,
				  "%s: bad IPv6 prefix '%s' (want ADDR/LEN, LEN 0-128)", cmd, s);
	return 0;
}

static int kernel_err(struct tp_cmd_ctx *ctx, const char *cmd, int ret)
{
	return tp_cmd_err(ctx, -ret, "%s: the kernel refused: %s", cmd, strerror(-ret));
}

/* address6 add|del ADDR/LEN dev PORT. The address itself, not masked: it is ours. */
static int address(struct tp_cmd_ctx *ctx, int argc, char **argv, bool add)
{
	const char *cmd = add ? "address6 add" : "address6 del";
	uint8_t ip[16], net[16], depth;
	struct tp_port *p;
	char buf[64], *slash;
	int ret;

	if (argc != 3 || strcmp(argv[1], "dev") != 0)
		return tp_cmd_err(ctx, EINVAL, "%s: usage: %s ADDR/LEN dev PORT", cmd, cmd);
	if ((ret = prefix_arg(ctx, cmd, argv[0], net, &depth)) < 0)
		return ret;
	snprintf(buf, sizeof(buf), "%s", argv[0]);
	slash = strchr(buf, '/');
	*slash = '\0';
	tp_ip6_parse_addr(buf, ip);
	if (tp_ip6_is_multicast(ip) || tp_ip6_is_unspec_or_loopback(ip))
		return tp_cmd_err(ctx, EINVAL,
				  "%s: '%s' is a multicast, unspecified or loopback address "
				  "(RFC 4291 2.5.2, 2.5.3, 2.7), not a port's",
				  cmd, argv[0]);
	if ((ret = need_port(ctx, cmd, argv[2], &p)) < 0)
		return ret;
	ret = tp_ip6_nl_addr(add, p->tap_ifindex, ip, depth);
	if (ret < 0)
		return kernel_err(ctx, cmd, ret);
	tp_nl_drain();
	return 0;
}

static int address_add(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	return address(ctx, argc, argv, true);
}

static int address_del(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	return address(ctx, argc, argv, false);
}

/* The kernel took the route: apply what it told the sync manager, and if the data
 * plane has no room for it, take exactly that route back out of the kernel and say
 * so, so that "route6 add" does all or nothing (as ip4's, decision 0070). */
static int route_added(struct tp_cmd_ctx *ctx, const uint8_t ip[16], uint8_t depth,
		       const uint8_t *gw, int ifindex, uint8_t type, const char *prefix)
{
	const struct tp_route6 *r;

	tp_nl_drain();
	r = tp_route6_find(ip, depth);
	if (r != NULL && !r->unfit)
		return 0;
	tp_ip6_nl_route(false, ip, depth, gw, ifindex, type);
	tp_nl_drain();
	return tp_cmd_err(ctx, ENOSPC,
			  "route6 add: %s does not fit: %s (%u routes in the index); not added",
			  prefix, r == NULL ? "the route index is full" : "the LPM6 table is full",
			  tp_route6_count());
}

/* route6 add ADDR/LEN via GW [dev PORT] | dev PORT | blackhole | unreachable | prohibit */
static int route_add(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	static const struct {
		const char *word;
		uint8_t type;
	} kinds[] = {
	    {"blackhole", RTN_BLACKHOLE},
	    {"unreachable", RTN_UNREACHABLE},
	    {"prohibit", RTN_PROHIBIT},
	};
	uint8_t ip[16], gw[16], depth;
	struct tp_port *p = NULL;
	const char *gw_word = NULL;
	int ret, i;

	if (argc < 2 || (argc != 2 && argc % 2 == 0))
		return tp_cmd_err(ctx, EINVAL,
				  "route6 add: usage: route6 add ADDR/LEN via GW [dev PORT] | "
				  "dev PORT | blackhole | unreachable | prohibit");
	if ((ret = prefix_arg(ctx, "route6 add", argv[0], ip, &depth)) < 0)
		return ret;
	if (argc == 2) { /* a route without a next hop, as ip route's route types */
		for (i = 0; i < (int)RTE_DIM(kinds); i++)
			if (strcmp(argv[1], kinds[i].word) == 0)
				break;
		if (i == (int)RTE_DIM(kinds))
			return tp_cmd_err(ctx, EINVAL,
					  "route6 add: unknown route type '%s' (blackhole, "
					  "unreachable, prohibit)",
					  argv[1]);
		ret = tp_ip6_nl_route(true, ip, depth, NULL, 0, kinds[i].type);
		return ret < 0 ? kernel_err(ctx, "route6 add", ret)
			       : route_added(ctx, ip, depth, NULL, 0, kinds[i].type, argv[0]);
	}
	for (i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "via") == 0) {
			if (tp_ip6_parse_addr(argv[i + 1], gw) < 0 || tp_ip6_is_multicast(gw) ||
			    tp_ip6_is_unspec_or_loopback(gw))
				return tp_cmd_err(ctx, EINVAL,
						  "route6 add: bad gateway '%s' (want a unicast "
						  "IPv6 address)",
						  argv[i + 1]);
			gw_word = argv[i + 1];
		} else if (strcmp(argv[i], "dev") == 0) {
			if ((ret = need_port(ctx, "route6 add", argv[i + 1], &p)) < 0)
				return ret;
		} else {
			return tp_cmd_err(ctx, EINVAL,
					  "route6 add: unknown keyword '%s' (via, dev)", argv[i]);
		}
	}
	bool has_gw = gw_word != NULL;
	if (!has_gw && p == NULL)
		return tp_cmd_err(ctx, EINVAL, "route6 add: give 'via GW' or 'dev PORT'");
	/* RFC 4291 2.5.6: a link-local address means nothing without its link */
	if (has_gw && tp_ip6_is_link_local(gw) && p == NULL)
		return tp_cmd_err(ctx, EINVAL,
				  "route6 add: the link-local gateway '%s' needs 'dev PORT'",
				  gw_word);
	ret = tp_ip6_nl_route(true, ip, depth, has_gw ? gw : NULL, p ? p->tap_ifindex : 0,
			      RTN_UNICAST);
	return ret < 0 ? kernel_err(ctx, "route6 add", ret)
		       : route_added(ctx, ip, depth, has_gw ? gw : NULL, p ? p->tap_ifindex : 0,
				     RTN_UNICAST, argv[0]);
}

/* route6 del ADDR/LEN: the main table's route of that prefix. */
static int route_del(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	uint8_t ip[16], depth;
	int ret;

	if (argc != 1)
		return tp_cmd_err(ctx, EINVAL, "route6 del: usage: route6 del ADDR/LEN");
	if ((ret = prefix_arg(ctx, "route6 del", argv[0], ip, &depth)) < 0)
		return ret;
	ret = tp_ip6_nl_route(false, ip, depth, NULL, 0, RTN_UNICAST);
	if (ret < 0)
		return kernel_err(ctx, "route6 del", ret);
	tp_nl_drain();
	return 0;
}

/* neigh6 add ADDR lladdr MAC dev PORT | neigh6 del ADDR dev PORT: a permanent
 * neighbour in the kernel, which the sync manager mirrors (as ip4's neigh add). */
static int neigh(struct tp_cmd_ctx *ctx, int argc, char **argv, bool add)
{
	const char *cmd = add ? "neigh6 add" : "neigh6 del";
	uint8_t ip[16], mac[6];
	struct tp_port *p;
	int ret;

	if (add && (argc != 5 || strcmp(argv[1], "lladdr") || strcmp(argv[3], "dev")))
		return tp_cmd_err(ctx, EINVAL,
				  "neigh6 add: usage: neigh6 add ADDR lladdr MAC dev PORT");
	if (!add && (argc != 3 || strcmp(argv[1], "dev")))
		return tp_cmd_err(ctx, EINVAL, "neigh6 del: usage: neigh6 del ADDR dev PORT");
	if (tp_ip6_parse_addr(argv[0], ip) < 0 || tp_ip6_is_multicast(ip) ||
	    tp_ip6_is_unspec_or_loopback(ip))
		return tp_cmd_err(ctx, EINVAL, "%s: bad address '%s' (want a unicast IPv6 address)",
				  cmd, argv[0]);
	if (add && tp_mac_parse(argv[2], mac) < 0)
		return tp_cmd_err(ctx, EINVAL, "neigh6 add: bad MAC '%s' (want aa:bb:cc:dd:ee:ff)",
				  argv[2]);
	if ((ret = need_port(ctx, cmd, argv[add ? 4 : 2], &p)) < 0)
		return ret;
	ret = tp_ip6_nl_neigh(add, p->tap_ifindex, ip, add ? mac : NULL);
	if (ret < 0)
		return kernel_err(ctx, cmd, ret);
	tp_nl_drain();
	return 0;
}

static int neigh_add(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	return neigh(ctx, argc, argv, true);
}

static int neigh_del(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	return neigh(ctx, argc, argv, false);
}

/* As ip4's show routes (SHOW_ROUTES_MAX): past this many, page. */
#define SHOW_ROUTES6_MAX 65536

/* show routes6 [offset N] [limit M]: the routes [N, N + M) in the index's order, with
 * the fields of ip4's show routes (prefix, type, via, port, nexthop, metric, state,
 * reason) and the kernel paths the prefix has; their total. */
static int show_routes6(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	uint64_t offset = 0, limit = 0, total = 0, k = 0;
	const struct tp_route6 *r;
	bool limited = false;
	uint32_t iter = 0;
	char a[TP_IP6_STRLEN];

	for (int i = 0; i < argc; i += 2) {
		bool off = strcmp(argv[i], "offset") == 0;
		if (!off && strcmp(argv[i], "limit") != 0)
			return tp_cmd_err(ctx, EINVAL,
					  "show routes6: unknown keyword '%s' (offset N, limit M)",
					  argv[i]);
		if (i + 1 == argc)
			return tp_cmd_err(ctx, EINVAL, "show routes6: %s needs a number", argv[i]);
		if (off && tp_parse_u64(argv[i + 1], 0, UINT32_MAX, &offset) < 0)
			return tp_cmd_err(ctx, EINVAL, "show routes6: bad offset '%s'",
					  argv[i + 1]);
		if (!off && tp_parse_u64(argv[i + 1], 1, SHOW_ROUTES6_MAX, &limit) < 0)
			return tp_cmd_err(ctx, EINVAL, "show routes6: bad limit '%s' (1-%d)",
					  argv[i + 1], SHOW_ROUTES6_MAX);
		limited |= !off;
	}
	total = tp_route6_count();
	if (!limited && total > offset && total - offset > SHOW_ROUTES6_MAX)
		return tp_cmd_err(ctx, EFBIG,
				  "show routes6: %" PRIu64 " routes, more than %d in one answer: "
				  "page with 'show routes6 offset N limit M' (M up to %d)",
				  total - offset, SHOW_ROUTES6_MAX, SHOW_ROUTES6_MAX);
	if (!limited)
		limit = SHOW_ROUTES6_MAX;
	struct tp_node *l = tp_out_list(ctx->out, "routes");
	while (k < offset + limit && (r = tp_route6_iterate(&iter)) != NULL) {
		struct tp_ip6_nl_path path;
		bool kernel;

		if (k++ < offset)
			continue;
		kernel = tp_ip6_nl_best(r->ip, r->depth, &path) == 0;
		struct tp_node *o = tp_out_obj(l, NULL);
		tp_out_strf(o, "prefix", "%s/%u", tp_ip6_fmt(r->ip, a), r->depth);
		tp_out_str(o, "type",
			   kernel && path.type != TP_ROUTE6_CONNECTED &&
				   path.type != TP_ROUTE6_LOCAL
			       ? type_name(path.type)
			       : nh_kind(r->nh));
		tp_out_str(o, "via",
			   kernel && path.type == TP_ROUTE6_GATEWAY ? tp_ip6_fmt(path.gw, a) : "");
		tp_out_str(o, "port",
			   r->nh >= TP_NH_FIRST		       ? port_name(tp_nh_table[r->nh].port)
			   : kernel && path.port != UINT16_MAX ? port_name(path.port)
							       : "");
		tp_out_u64(o, "nexthop", r->nh);
		tp_out_u64(o, "metric", kernel ? path.metric : 0);
		/* punting: installed, but it covers a route that does not fit, so its
		 * packets go to the kernel (route6.h) */
		tp_out_str(o, "state",
			   r->fit     ? (r->unfit_below ? "punting" : "installed")
			   : r->unfit ? "unfit"
				      : "waiting");
		tp_out_str(o, "reason", r->unfit ? "lpm6" : "");
		tp_out_u64(o, "unfit_below", r->unfit_below);
		tp_out_u64(o, "kernel_paths", tp_ip6_nl_paths(r->ip, r->depth));
	}
	tp_out_u64(ctx->out, "total", total);
	tp_out_u64(ctx->out, "offset", offset);
	tp_out_u64(ctx->out, "unpublished", tp_route6_unpublished());
	return 0;
}

/* show neigh6: ip4's show neigh for IPv6 (the same fields, the address in RFC 5952's
 * form): each neighbour's MAC, port and state from its next hop, its references. */
static int show_neigh6(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_node *l = tp_out_list(ctx->out, "neighbours");
	uint32_t iter = 0, nh;
	uint16_t port;
	uint8_t ip[16];
	char a[TP_IP6_STRLEN], m[18];

	while (tp_neigh6_iterate(&iter, ip, &port, &nh) == 0) {
		uint64_t w = tp_nh_l2_load(nh);
		uint8_t mac[6];
		for (int i = 0; i < 6; i++)
			mac[i] = (uint8_t)(w >> (8 * i));
		struct tp_node *o = tp_out_obj(l, NULL);
		tp_out_str(o, "ip", tp_ip6_fmt(ip, a));
		tp_out_str(o, "mac", tp_mac_fmt(mac, m));
		tp_out_str(o, "port", port_name(port));
		tp_out_str(o, "state",
			   tp_nh_l2_flags(w) & TP_NH_F_RESOLVED ? "resolved" : "unresolved");
		tp_out_u64(o, "nexthop", nh);
		tp_out_u64(o, "refs", tp_nh_table[nh].refcnt);
	}
	return 0;
}

static struct tp_cmd c_addr_add = {"address6 add", "ADDR/LEN dev PORT",
				   "add an IPv6 address to a port (on its TAP, no DAD)",
				   address_add, NULL};
static struct tp_cmd c_addr_del = {"address6 del", "ADDR/LEN dev PORT",
				   "remove an IPv6 address from a port", address_del, NULL};
static struct tp_cmd c_route_add = {
    "route6 add", "ADDR/LEN via GW [dev PORT] | dev PORT | blackhole | unreachable | prohibit",
    "add an IPv6 route (in the kernel's main table)", route_add, NULL};
static struct tp_cmd c_route_del = {"route6 del", "ADDR/LEN",
				    "delete an IPv6 route (from the kernel's main table)",
				    route_del, NULL};
static struct tp_cmd c_show_neigh6 = {"show neigh6", NULL, "the data plane's IPv6 neighbour table",
				      show_neigh6, NULL};
static struct tp_cmd c_show_routes6 = {"show routes6", "[offset N] [limit M]",
				       "the data plane's IPv6 route table (a page of it)",
				       show_routes6, NULL};
static struct tp_cmd c_neigh_add = {"neigh6 add", "ADDR lladdr MAC dev PORT",
				    "add a permanent IPv6 neighbour", neigh_add, NULL};
static struct tp_cmd c_neigh_del = {"neigh6 del", "ADDR dev PORT", "delete an IPv6 neighbour",
				    neigh_del, NULL};
TP_CMD_REGISTER(c_neigh_add)
TP_CMD_REGISTER(c_neigh_del)
TP_CMD_REGISTER(c_addr_add)
TP_CMD_REGISTER(c_addr_del)
TP_CMD_REGISTER(c_route_add)
TP_CMD_REGISTER(c_route_del)
TP_CMD_REGISTER(c_show_routes6)
TP_CMD_REGISTER(c_show_neigh6)
