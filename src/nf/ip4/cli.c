/* SPDX-License-Identifier: BSD-3-Clause */
/* Commands of the IPv4 router: addresses, routes and neighbours (written through
 * the kernel, read back from the shared tables), and the netlink sync manager. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>
#include <linux/rtnetlink.h>

#include <rte_byteorder.h>

#include "../../control/cmd.h"
#include "../../control/port.h"
#include "../../core/rcu.h"
#include "../../proto/ip4.h"
#include "../../tables/iface.h"
#include "control/neigh.h"
#include "control/netlink.h"
#include "control/nexthop.h"
#include "control/nhg.h"
#include "control/route.h"
#include "ip4.h"
#include "datapath/udp_local.h"

static int need_port(struct tp_cmd_ctx *ctx, const char *cmd, const char *name, struct tp_port **p)
{
	*p = tp_port_by_name(name);
	if (*p == NULL)
		return tp_cmd_err(ctx, ENODEV, "%s: no port named '%s'", cmd, name);
	return 0;
}

static int prefix_arg(struct tp_cmd_ctx *ctx, const char *cmd, const char *s, uint32_t *ip,
		      uint8_t *depth)
{
	const char *sp = strchr(cmd, ' ');

	if (strchr(s, ':') != NULL && sp != NULL) /* the family is in the name (nf/ip6/cli.c) */
		return tp_cmd_err(ctx, EINVAL, "%s: '%s' is an IPv6 prefix: use '%.*s6%s'", cmd, s,
				  (int)(sp - cmd), cmd, sp);
	if (tp_ip4_parse_prefix(s, ip, depth) < 0 || strchr(s, '/') == NULL)
		return tp_cmd_err(ctx, EINVAL, "%s: bad prefix '%s' (want A.B.C.D/LEN, LEN 0-32)",
				  cmd, s);
	return 0;
}

static int kernel_err(struct tp_cmd_ctx *ctx, const char *cmd, int ret)
{
	return tp_cmd_err(ctx, -ret, "%s: the kernel refused: %s", cmd, strerror(-ret));
}

/* The kernel took the route: apply what it told the sync manager, and if the route
 * does not fit in the data plane, take it back out of the kernel (exactly that one)
 * and say what is full, so "route add" either did all or nothing. */
static int route_added(struct tp_cmd_ctx *ctx, uint32_t ip, uint8_t depth, uint32_t gw, int ifindex,
		       uint8_t type)
{
	const struct tp_route *r;
	enum tp_route_unfit why;
	char a[16];

	tp_nl_drain();
	r = tp_route_find(ip, depth);
	if (r == NULL || r->unfit == TP_UNFIT_NONE)
		return 0;
	why = (enum tp_route_unfit)r->unfit;
	tp_nl_route(false, ip, depth, gw, ifindex, type);
	tp_nl_drain();
	return tp_cmd_err(
	    ctx, ENOSPC, "route add: %s/%u does not fit: %s (%u routes, %u tbl8 groups); not added",
	    tp_ip4_fmt(ip & (depth ? (uint32_t)(~0ull << (32 - depth)) : 0), a), depth,
	    tp_route_unfit_text(why), tp_route_max_routes(), tp_route_tbl8_groups());
}

static int address(struct tp_cmd_ctx *ctx, int argc, char **argv, bool add)
{
	const char *cmd = add ? "address add" : "address del";
	struct tp_port *p;
	uint32_t ip;
	uint8_t depth;
	int ret;

	if (argc != 3 || strcmp(argv[1], "dev") != 0)
		return tp_cmd_err(ctx, EINVAL, "%s: usage: %s A.B.C.D/LEN dev PORT", cmd, cmd);
	if ((ret = prefix_arg(ctx, cmd, argv[0], &ip, &depth)) < 0 ||
	    (ret = need_port(ctx, cmd, argv[2], &p)) < 0)
		return ret;
	ret = tp_nl_addr(add, p->tap_ifindex, ip, depth);
	return ret < 0 ? kernel_err(ctx, cmd, ret) : 0;
}

static int address_add(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	return address(ctx, argc, argv, true);
}

static int address_del(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	return address(ctx, argc, argv, false);
}

static int route_add(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_port *p = NULL;
	uint32_t ip, gw = 0;
	uint8_t depth;
	int ret, i;

	static const struct {
		const char *word;
		uint8_t type;
	} kinds[] = {
	    {"blackhole", RTN_BLACKHOLE},
	    {"unreachable", RTN_UNREACHABLE},
	    {"prohibit", RTN_PROHIBIT},
	};

	if (argc < 2 || (argc != 2 && argc % 2 == 0))
		return tp_cmd_err(ctx, EINVAL,
				  "route add: usage: route add A.B.C.D/LEN via GW [dev PORT] | "
				  "dev PORT | blackhole | unreachable | prohibit");
	if ((ret = prefix_arg(ctx, "route add", argv[0], &ip, &depth)) < 0)
		return ret;
	if (argc == 2) { /* a route without a next hop, as ip route's route types */
		for (i = 0; i < (int)RTE_DIM(kinds); i++)
			if (strcmp(argv[1], kinds[i].word) == 0)
				break;
		if (i == (int)RTE_DIM(kinds))
			return tp_cmd_err(ctx, EINVAL,
					  "route add: unknown route type '%s' (blackhole, "
					  "unreachable, prohibit)",
					  argv[1]);
		ret = tp_nl_route(true, ip, depth, 0, 0, kinds[i].type);
		return ret < 0 ? kernel_err(ctx, "route add", ret)
			       : route_added(ctx, ip, depth, 0, 0, kinds[i].type);
	}
	for (i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "via") == 0) {
			if (tp_ip4_parse_addr(argv[i + 1], &gw) < 0 || gw == 0)
				return tp_cmd_err(ctx, EINVAL, "route add: bad gateway '%s'",
						  argv[i + 1]);
		} else if (strcmp(argv[i], "dev") == 0) {
			if ((ret = need_port(ctx, "route add", argv[i + 1], &p)) < 0)
				return ret;
		} else {
			return tp_cmd_err(ctx, EINVAL, "route add: unknown keyword '%s' (via, dev)",
					  argv[i]);
		}
	}
	if (gw == 0 && p == NULL)
		return tp_cmd_err(ctx, EINVAL, "route add: give 'via GW' or 'dev PORT'");
	ret = tp_nl_route(true, ip, depth, gw, p ? p->tap_ifindex : 0, RTN_UNICAST);
	return ret < 0 ? kernel_err(ctx, "route add", ret)
		       : route_added(ctx, ip, depth, gw, p ? p->tap_ifindex : 0, RTN_UNICAST);
}

static int route_del(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	uint32_t ip;
	uint8_t depth;
	int ret;

	if (argc != 1)
		return tp_cmd_err(ctx, EINVAL, "route del: usage: route del A.B.C.D/LEN");
	if ((ret = prefix_arg(ctx, "route del", argv[0], &ip, &depth)) < 0)
		return ret;
	ret = tp_nl_route(false, ip, depth, 0, 0, RTN_UNICAST);
	return ret < 0 ? kernel_err(ctx, "route del", ret) : 0;
}

static int neigh(struct tp_cmd_ctx *ctx, int argc, char **argv, bool add)
{
	const char *cmd = add ? "neigh add" : "neigh del";
	struct tp_port *p;
	uint8_t mac[6];
	uint32_t ip;
	int ret;

	if (add && (argc != 5 || strcmp(argv[1], "lladdr") || strcmp(argv[3], "dev")))
		return tp_cmd_err(ctx, EINVAL,
				  "neigh add: usage: neigh add A.B.C.D lladdr MAC dev PORT");
	if (!add && (argc != 3 || strcmp(argv[1], "dev")))
		return tp_cmd_err(ctx, EINVAL, "neigh del: usage: neigh del A.B.C.D dev PORT");
	if (tp_ip4_parse_addr(argv[0], &ip) < 0)
		return tp_cmd_err(ctx, EINVAL, "%s: bad address '%s'", cmd, argv[0]);
	if (add && tp_mac_parse(argv[2], mac) < 0)
		return tp_cmd_err(ctx, EINVAL, "neigh add: bad MAC '%s' (want aa:bb:cc:dd:ee:ff)",
				  argv[2]);
	if ((ret = need_port(ctx, cmd, argv[add ? 4 : 2], &p)) < 0)
		return ret;
	ret = tp_nl_neigh(add, p->tap_ifindex, ip, add ? mac : NULL);
	return ret < 0 ? kernel_err(ctx, cmd, ret) : 0;
}

static int neigh_add(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	return neigh(ctx, argc, argv, true);
}

static int neigh_del(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	return neigh(ctx, argc, argv, false);
}

static const char *port_name(uint16_t id)
{
	struct tp_port *p = tp_port_by_id(id);
	return p ? p->name : "?";
}

/* Routes in one answer at most: about 200 bytes each rendered (text or JSON), 13 MB,
 * under a client's TP_API_MAX_ANSWER (16 MiB). --max-routes allows 16 M: beyond this
 * many, show routes pages (review N15: twinctl failed past about 7,000 routes, with
 * "not an answer of API version 1"). */
#define SHOW_ROUTES_MAX 65536

/* A multipath route's via and port, for the text table too: "A(1) B(2) C(dead)" (each
 * gateway with its weight) and "p1 p2 p3". */
static void show_route_vias(struct tp_node *o, const struct tp_route *r)
{
	const struct tp_route_path *p = &r->paths[0];
	char via[512] = "", ports[256] = "", a[16];
	size_t nv = 0, np = 0;

	for (unsigned int i = 0; i < p->n_hops; i++) {
		const struct tp_route_hop *h = &p->hops[i];
		int k = h->dead ? snprintf(via + nv, sizeof(via) - nv, "%s%s(dead)", i ? " " : "",
					   tp_ip4_fmt(h->gw, a))
				: snprintf(via + nv, sizeof(via) - nv, "%s%s(%u)", i ? " " : "",
					   tp_ip4_fmt(h->gw, a), h->weight);
		if (k < 0 || (size_t)k >= sizeof(via) - nv) {
			snprintf(via + (nv < sizeof(via) - 4 ? nv : sizeof(via) - 4), 4, "...");
			break;
		}
		nv += (size_t)k;
		k = snprintf(ports + np, sizeof(ports) - np, "%s%s", i ? " " : "",
			     port_name(h->port));
		np = k > 0 && (size_t)k < sizeof(ports) - np ? np + (size_t)k : np;
	}
	tp_out_str(o, "via", via);
	tp_out_str(o, "port", ports);
}

/* A multipath route's group id and hops: gateway, port, weight, whether the kernel
 * marks it dead, and the buckets it has in the published group (nhg.h). */
static void show_route_hops(struct tp_node *o, const struct tp_route *r)
{
	const struct tp_route_path *p = &r->paths[0];
	const struct tp_nhg *g = NULL;
	char a[16];

	if (r->nh & TP_NH_GROUP) {
		g = tp_nhg_get(r->nh & TP_NHG_ID_MASK);
		tp_out_u64(o, "group", r->nh & TP_NHG_ID_MASK);
	}
	struct tp_node *l = tp_out_list(o, "hops");
	for (unsigned int i = 0; i < p->n_hops; i++) {
		const struct tp_route_hop *h = &p->hops[i];
		struct tp_node *ho = tp_out_obj(l, NULL);
		int nh = tp_neigh_lookup(h->gw);
		unsigned int buckets = 0;
		for (unsigned int b = 0; g != NULL && nh >= 0 && b < TP_NHG_BUCKETS; b++)
			buckets += g->bucket[b] == (uint32_t)nh;
		tp_out_str(ho, "via", tp_ip4_fmt(h->gw, a));
		tp_out_str(ho, "port", port_name(h->port));
		tp_out_u64(ho, "weight", h->weight);
		tp_out_str(ho, "state", h->dead ? "dead" : "alive");
		tp_out_u64(ho, "buckets", buckets);
	}
}

/* show routes [offset N] [limit M]: the routes [N, N + M) in the table's order (stable
 * while no route comes or goes), and their total; without a limit all from N, or an
 * error naming the paging when more than SHOW_ROUTES_MAX would be rendered. */
static int show_routes(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	const struct tp_route *r;
	uint64_t offset = 0, limit = 0, total = 0, k = 0;
	bool limited = false;
	uint32_t iter = 0;
	char a[16], g[16];

	for (int i = 0; i < argc; i += 2) {
		bool off = strcmp(argv[i], "offset") == 0;
		if (!off && strcmp(argv[i], "limit") != 0)
			return tp_cmd_err(ctx, EINVAL,
					  "show routes: unknown keyword '%s' (offset N, limit M)",
					  argv[i]);
		if (i + 1 == argc)
			return tp_cmd_err(ctx, EINVAL, "show routes: %s needs a number", argv[i]);
		if (off && tp_parse_u64(argv[i + 1], 0, UINT32_MAX, &offset) < 0)
			return tp_cmd_err(ctx, EINVAL, "show routes: bad offset '%s'", argv[i + 1]);
		if (!off && tp_parse_u64(argv[i + 1], 1, SHOW_ROUTES_MAX, &limit) < 0)
			return tp_cmd_err(ctx, EINVAL, "show routes: bad limit '%s' (1-%d)",
					  argv[i + 1], SHOW_ROUTES_MAX);
		limited |= !off;
	}
	while (tp_route_iterate(&iter) != NULL)
		total++;
	if (!limited && total > offset && total - offset > SHOW_ROUTES_MAX)
		return tp_cmd_err(ctx, EFBIG,
				  "show routes: %" PRIu64 " routes, more than %d in one answer: "
				  "page with 'show routes offset N limit M' (M up to %d)",
				  total - offset, SHOW_ROUTES_MAX, SHOW_ROUTES_MAX);
	if (!limited)
		limit = SHOW_ROUTES_MAX;
	struct tp_node *l = tp_out_list(ctx->out, "routes");
	iter = 0;
	while (k < offset + limit && (r = tp_route_iterate(&iter)) != NULL) {
		if (k++ < offset)
			continue;
		struct tp_node *o = tp_out_obj(l, NULL);
		tp_out_strf(o, "prefix", "%s/%u", tp_ip4_fmt(r->ip, a), r->depth);
		tp_out_str(o, "type", tp_route_type_name((enum tp_route_type)r->type));
		if (r->type == TP_ROUTE_MULTIPATH && r->n_paths > 0) {
			show_route_vias(o, r);
		} else {
			tp_out_str(o, "via", r->gw ? tp_ip4_fmt(r->gw, g) : "");
			tp_out_str(o, "port",
				   r->port == TP_ROUTE_NO_PORT ? "" : port_name(r->port));
		}
		tp_out_u64(o, "nexthop", r->nh);
		tp_out_u64(o, "metric", r->metric);
		/* installed; punting (no next hop to be had, or covering routes that do not
		 * fit: their traffic goes to the kernel); unfit (no LPM rule) */
		tp_out_str(o, "state",
			   !r->installed				 ? "unfit"
			   : r->unfit != TP_UNFIT_NONE || r->unfit_below ? "punting"
									 : "installed");
		tp_out_str(o, "reason", tp_route_unfit_name((enum tp_route_unfit)r->unfit));
		tp_out_u64(o, "unfit_below", r->unfit_below);
		if (r->type == TP_ROUTE_MULTIPATH && r->n_paths > 0)
			show_route_hops(o, r);
	}
	tp_out_u64(ctx->out, "total", total);
	tp_out_u64(ctx->out, "offset", offset);
	return 0;
}

static int show_neigh(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_node *l = tp_out_list(ctx->out, "neighbours");
	uint32_t iter = 0, ip, nh;
	char a[16], m[18];

	while (tp_neigh_iterate(&iter, &ip, &nh) == 0) {
		uint64_t w = tp_nh_l2_load(nh);
		uint8_t mac[6];
		for (int i = 0; i < 6; i++)
			mac[i] = (uint8_t)(w >> (8 * i));
		struct tp_node *o = tp_out_obj(l, NULL);
		tp_out_str(o, "ip", tp_ip4_fmt(ip, a));
		tp_out_str(o, "mac", tp_mac_fmt(mac, m));
		tp_out_str(o, "port", port_name(tp_nh_table[nh].port));
		tp_out_str(o, "state",
			   tp_nh_l2_flags(w) & TP_NH_F_RESOLVED ? "resolved" : "unresolved");
		tp_out_u64(o, "nexthop", nh);
		tp_out_u64(o, "refs", tp_nh_table[nh].refcnt);
	}
	return 0;
}

static int show_udp_local(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_node *l = tp_out_list(ctx->out, "udp_local");
	unsigned int n = __atomic_load_n(&tp_udp_local.n, __ATOMIC_ACQUIRE);

	for (unsigned int i = 0; i < n; i++) {
		struct tp_node *o = tp_out_obj(l, NULL);
		tp_out_u64(o, "port", rte_be_to_cpu_16(tp_udp_local.e[i].key_be));
		tp_out_str(o, "module", tp_udp_local.e[i].owner);
	}
	return 0;
}

/* A control peer's prefix: A.B.C.D or A.B.C.D/LEN, the address masked. 0 or an error. */
static int peer_prefix(struct tp_cmd_ctx *ctx, const char *cmd, const char *s, uint32_t *ip,
		       uint8_t *depth)
{
	int bad = strchr(s, '/') ? tp_ip4_parse_prefix(s, ip, depth) : tp_ip4_parse_addr(s, ip);

	if (bad < 0)
		return tp_cmd_err(ctx, EINVAL, "%s: bad peer '%s' (want A.B.C.D or A.B.C.D/LEN)",
				  cmd, s);
	if (!strchr(s, '/'))
		*depth = 32;
	*ip &= *depth ? (uint32_t)(~0ull << (32 - *depth)) : 0;
	return 0;
}

static uint64_t peer_word(uint32_t ip, uint8_t depth, uint8_t min_ttl)
{
	return TP_IP4_CTL_PEER_USED | (uint64_t)min_ttl << 40 | (uint64_t)depth << 32 | ip;
}

/* The entry of ip/depth, or -1. */
static int peer_find(uint32_t ip, uint8_t depth)
{
	for (unsigned int i = 0; i < tp_ip4_ctl_peers_n; i++) {
		uint64_t e = tp_ip4_ctl_peers[i];
		if ((e & TP_IP4_CTL_PEER_USED) && (uint32_t)e == ip && ((e >> 32) & 0xff) == depth)
			return (int)i;
	}
	return -1;
}

/* punt control-peer add|del PREFIX [min-ttl N]: one 64-bit store per change, so the
 * lcores see an entry whole or not at all (ip4.h). */
static int control_peer(struct tp_cmd_ctx *ctx, int argc, char **argv, bool add)
{
	const char *cmd = add ? "punt control-peer add" : "punt control-peer del";
	uint64_t min_ttl = 0;
	uint32_t ip;
	uint8_t depth;
	int ret, i;

	if (add ? argc != 1 && !(argc == 3 && strcmp(argv[1], "min-ttl") == 0) : argc != 1)
		return tp_cmd_err(ctx, EINVAL, "%s: usage: %s A.B.C.D[/LEN]%s", cmd, cmd,
				  add ? " [min-ttl 1-255]" : "");
	if ((ret = peer_prefix(ctx, cmd, argv[0], &ip, &depth)) < 0)
		return ret;
	if (argc == 3 && tp_parse_u64(argv[2], 1, 255, &min_ttl) < 0)
		return tp_cmd_err(ctx, EINVAL, "%s: bad min-ttl '%s' (1-255; 255: GTSM, RFC 5082)",
				  cmd, argv[2]);
	i = peer_find(ip, depth);
	if (!add) {
		if (i < 0)
			return tp_cmd_err(ctx, ENOENT, "%s: no control peer %s", cmd, argv[0]);
		__atomic_store_n(&tp_ip4_ctl_peers[i], 0, __ATOMIC_RELEASE);
		while (tp_ip4_ctl_peers_n > 0 &&
		       !(tp_ip4_ctl_peers[tp_ip4_ctl_peers_n - 1] & TP_IP4_CTL_PEER_USED))
			__atomic_store_n(&tp_ip4_ctl_peers_n, tp_ip4_ctl_peers_n - 1,
					 __ATOMIC_RELEASE);
		return 0;
	}
	if (i < 0)
		for (i = 0; i < TP_IP4_CTL_PEERS_MAX; i++)
			if (!(tp_ip4_ctl_peers[i] & TP_IP4_CTL_PEER_USED))
				break;
	if (i == TP_IP4_CTL_PEERS_MAX)
		return tp_cmd_err(ctx, ENOSPC, "%s: all %d control peers in use", cmd,
				  TP_IP4_CTL_PEERS_MAX);
	__atomic_store_n(&tp_ip4_ctl_peers[i], peer_word(ip, depth, (uint8_t)min_ttl),
			 __ATOMIC_RELEASE);
	if ((unsigned int)i >= tp_ip4_ctl_peers_n)
		__atomic_store_n(&tp_ip4_ctl_peers_n, (unsigned int)i + 1, __ATOMIC_RELEASE);
	return 0;
}

static int control_peer_add(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	return control_peer(ctx, argc, argv, true);
}

static int control_peer_del(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	return control_peer(ctx, argc, argv, false);
}

static int set_punt(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	if (argc != 2 || strcmp(argv[0], "bgp-gtsm") ||
	    (strcmp(argv[1], "on") && strcmp(argv[1], "off")))
		return tp_cmd_err(ctx, EINVAL, "set punt: usage: set punt bgp-gtsm on|off");
	__atomic_store_n(&tp_ip4_bgp_gtsm, strcmp(argv[1], "on") == 0, __ATOMIC_RELAXED);
	return 0;
}

static int show_punt(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_node *l;
	char a[16];

	tp_out_bool(ctx->out, "bgp_gtsm", tp_ip4_bgp_gtsm);
	tp_out_u64(ctx->out, "source_share", TP_PUNT_SRC_SHARE);
	tp_out_u64(ctx->out, "source_slots", TP_PUNT_SRC_SLOTS);
	l = tp_out_list(ctx->out, "control_peers");
	for (unsigned int i = 0; i < tp_ip4_ctl_peers_n; i++) {
		uint64_t e = tp_ip4_ctl_peers[i];
		if (!(e & TP_IP4_CTL_PEER_USED))
			continue;
		struct tp_node *o = tp_out_obj(l, NULL);
		tp_out_strf(o, "prefix", "%s/%u", tp_ip4_fmt((uint32_t)e, a),
			    (unsigned int)(e >> 32) & 0xff);
		tp_out_u64(o, "min_ttl", (e >> 40) & 0xff);
	}
	return 0;
}

static struct tp_cmd c_peer_add = {
    "punt control-peer add", "A.B.C.D[/LEN] [min-ttl N]",
    "routing protocols from this source (beyond the port's subnet: multi-hop BGP/BFD, PIM "
    "Register) are the control class; min-ttl 255: GTSM (RFC 5082)",
    control_peer_add, NULL};
static struct tp_cmd c_peer_del = {"punt control-peer del", "A.B.C.D[/LEN]",
				   "forget a control peer", control_peer_del, NULL};
static struct tp_cmd c_set_punt = {
    "set punt", "bgp-gtsm on|off",
    "on: BGP from a port's own subnet is the control class only with TTL 255 (RFC 5082)", set_punt,
    NULL};
static struct tp_cmd c_show_punt = {"show punt", NULL,
				    "what makes a packet the control class: control peers, GTSM",
				    show_punt, NULL};
TP_CMD_REGISTER(c_peer_add)
TP_CMD_REGISTER(c_peer_del)
TP_CMD_REGISTER(c_set_punt)
TP_CMD_REGISTER(c_show_punt)

static struct tp_cmd c_show_udp = {"show udp-local", NULL,
				   "UDP ports on our addresses handled on the lcores",
				   show_udp_local, NULL};
TP_CMD_REGISTER(c_show_udp)

static struct tp_cmd c_addr_add = {"address add", "A.B.C.D/LEN dev PORT",
				   "add an address to a port (on its TAP)", address_add, NULL};
static struct tp_cmd c_addr_del = {"address del", "A.B.C.D/LEN dev PORT",
				   "remove an address from a port", address_del, NULL};
static struct tp_cmd c_route_add = {
    "route add", "A.B.C.D/LEN via GW | dev PORT | blackhole | unreachable | prohibit",
    "add a route (in the kernel's main table)", route_add, NULL};
static struct tp_cmd c_route_del = {
    "route del", "A.B.C.D/LEN", "delete a route (from the kernel's main table)", route_del, NULL};
static struct tp_cmd c_neigh_add = {"neigh add", "A.B.C.D lladdr MAC dev PORT",
				    "add a permanent neighbour", neigh_add, NULL};
static struct tp_cmd c_neigh_del = {"neigh del", "A.B.C.D dev PORT", "delete a neighbour",
				    neigh_del, NULL};
static struct tp_cmd c_show_routes = {"show routes", "[offset N] [limit M]",
				      "the data plane's route table (a page of it)", show_routes,
				      NULL};
static struct tp_cmd c_show_neigh = {"show neigh", NULL, "the data plane's neighbour table",
				     show_neigh, NULL};
TP_CMD_REGISTER(c_addr_add)
TP_CMD_REGISTER(c_addr_del)
TP_CMD_REGISTER(c_route_add)
TP_CMD_REGISTER(c_route_del)
TP_CMD_REGISTER(c_neigh_add)
TP_CMD_REGISTER(c_neigh_del)
TP_CMD_REGISTER(c_show_routes)
TP_CMD_REGISTER(c_show_neigh)

/* --- the netlink sync manager --- */
static int show_sync(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	tp_out_u64(ctx->out, "events", tp_nl_stats.events);
	tp_out_u64(ctx->out, "resyncs", tp_nl_stats.resyncs);
	tp_out_u64(ctx->out, "overruns", tp_nl_stats.overruns);
	tp_out_u64(ctx->out, "routes_ignored", tp_nl_stats.routes_ignored);
	tp_out_u64(ctx->out, "nexthops_ignored", tp_nl_stats.nexthops_ignored);
	tp_out_u64(ctx->out, "foreign", tp_nl_stats.foreign);
	tp_out_u64(ctx->out, "passes_capped", tp_nl_stats.passes_capped);
	tp_out_u64(ctx->out, "resync_failures", tp_nl_stats.resync_failures);
	tp_out_u64(ctx->out, "drain_passes", tp_nl_stats.drain_passes);
	tp_out_u64(ctx->out, "neigh_swept", tp_nl_stats.neigh_swept);
	tp_out_u64(ctx->out, "routes", tp_route_count());
	tp_out_u64(ctx->out, "max_routes", tp_route_max_routes());
	tp_out_u64(ctx->out, "tbl8_groups", tp_route_tbl8_groups());
	tp_out_u64(ctx->out, "ecmp_groups", tp_nhg_count());
	tp_out_u64(ctx->out, "max_ecmp_groups", tp_nhg_max());
	/* routes that did not fit, by reason (each time one became unfit), those still
	 * waiting (their traffic goes to the kernel), the installed routes punting for
	 * them, and the retries */
	struct tp_node *u = tp_out_obj(ctx->out, "unfit");
	for (unsigned int i = TP_UNFIT_NONE + 1; i < TP_UNFIT_REASONS; i++)
		tp_out_u64(u, tp_route_unfit_name((enum tp_route_unfit)i), tp_route_stats.unfit[i]);
	tp_out_u64(ctx->out, "unfit_pending", tp_route_unfit_count());
	tp_out_u64(ctx->out, "unfit_covers", tp_route_unfit_covers());
	tp_out_u64(ctx->out, "refit", tp_route_stats.refit);
	tp_out_u64(ctx->out, "retries", tp_route_stats.retries);
	tp_out_u64(ctx->out, "neighbours", tp_neigh_count());
	tp_out_u64(ctx->out, "nexthops", tp_nh_count());
	tp_out_u64(ctx->out, "rcu_deferred", tp_rcu_pending());
	return 0;
}

static int sync_resync(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	int ret = tp_nl_resync();
	return ret < 0
		   ? tp_cmd_err(ctx, -ret, "sync resync: netlink dump failed: %s", strerror(-ret))
		   : 0;
}

static int set_netlink(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	uint64_t v;
	int ret;

	if (argc != 2 || strcmp(argv[0], "rcvbuf"))
		return tp_cmd_err(ctx, EINVAL, "set netlink: usage: set netlink rcvbuf BYTES");
	if (tp_parse_u64(argv[1], 1024, 1 << 30, &v) < 0)
		return tp_cmd_err(ctx, EINVAL, "set netlink: bad size '%s' (1024-1073741824)",
				  argv[1]);
	ret = tp_nl_set_rcvbuf((int)v);
	return ret < 0 ? tp_cmd_err(ctx, -ret, "set netlink: %s", strerror(-ret)) : 0;
}

static struct tp_cmd c_show_sync = {"show sync", NULL, "the netlink sync manager", show_sync, NULL};
static struct tp_cmd c_resync = {"sync resync", NULL,
				 "dump the kernel's tables again and sweep what is gone",
				 sync_resync, NULL};
static struct tp_cmd c_set_nl = {"set netlink", "rcvbuf BYTES",
				 "receive buffer of the netlink event socket", set_netlink, NULL};
TP_CMD_REGISTER(c_show_sync)
TP_CMD_REGISTER(c_resync)
TP_CMD_REGISTER(c_set_nl)
