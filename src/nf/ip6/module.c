/* SPDX-License-Identifier: BSD-3-Clause */
/* The IPv6 router as a module: its counters and options, its tables (routes on two
 * rte_lpm6 copies, neighbours; next hops in ip4's shared table), the poller that
 * publishes route changes, IPv6 on the TAPs, 0x86DD on l3 ports. */
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>

#include "../../control/control.h"
#include "../../control/out.h"
#include "../../control/port.h"
#include "../../core/log.h"
#include "../../core/rcu.h"
#include "../../proto/ip6.h"
#include "../../proto/parse.h"
#include "../ip4/control/netlink.h"
#include "../ip4/l3mode.h"
#include "control/neigh6.h"
#include "control/netlink6.h"
#include "control/route6.h"
#include "ip6.h"

static const struct tp_ctr_desc ip6_ctrs[] = {IP6_COUNTERS(TP_CTR_DESC)};

/* --- options --- */
static unsigned int max_routes = 1 << 14;
static unsigned int tbl8_groups = 1 << 12;
static bool no_sysctl;

static int count_opt(const char *name, const char *arg, unsigned int *v)
{
	uint64_t n;

	if (tp_parse_u64(arg, 1, 1u << 20, &n) < 0) {
		fprintf(stderr, "twinplane: --%s: want 1 to 1048576, not '%s'\n", name, arg);
		return -EINVAL;
	}
	*v = (unsigned int)n;
	return 0;
}

static int opt_max_routes(const char *arg)
{
	return count_opt("max-routes6", arg, &max_routes);
}

static int opt_tbl8_groups(const char *arg)
{
	return count_opt("tbl8-groups6", arg, &tbl8_groups);
}

static int opt_no_sysctl(const char *arg)
{
	no_sysctl = true;
	return 0;
}

static const struct tp_nf_opt ip6_opts[] = {
    {"max-routes6", true, "IPv6 routes the data plane holds (16384), in each of two copies",
     opt_max_routes},
    {"tbl8-groups6", true, "IPv6 LPM groups of 256 entries (4096), in each of two copies",
     opt_tbl8_groups},
    {"no-sysctl6", false, "leave the namespace's IPv6 forwarding and the TAPs' IPv6 alone",
     opt_no_sysctl},
};

/* --- the kernel behind the TAPs --- */
static void sysctl_set(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, val, strlen(val)) < 0)
		TP_LOG(WARNING, "cannot set %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

/* Whether the kernel forwards IPv6 per device (conf/<dev>/force_forwarding, Linux
 * 6.17 and later): then only the TAPs forward, as for IPv4 (control/kpolicy.c). */
static bool per_device_forwarding;

/* The kernel forwards what the lcores punt (unresolved neighbours) and answers hop
 * limit expiry only where IPv6 forwarding is on for the receiving device: Linux's
 * ip6_forward checks conf/all/forwarding, or the device's force_forwarding. Without
 * the per-device switch the namespace routes IPv6 (which also stops its interfaces
 * from taking Router Advertisements: say so). */
static void kernel_setup(void)
{
	per_device_forwarding = access("/proc/sys/net/ipv6/conf/all/force_forwarding", F_OK) == 0;
	if (per_device_forwarding)
		return;
	TP_LOG(WARNING, "no per-device IPv6 forwarding in this kernel: "
			"net.ipv6.conf.all.forwarding=1 (--no-sysctl6 leaves it alone)");
	sysctl_set("/proc/sys/net/ipv6/conf/all/forwarding", "1");
}

/* --- life cycle --- */
int tp_ip6_datapath_register(void)
{
	return tp_l3_first_register(TP_ETHERTYPE_IP6, tp_ip6_input, "ip6");
}

static int ip6_init(void)
{
	static bool polling;
	int ret;

	if (!no_sysctl)
		kernel_setup();
	ret = tp_ip6_tables_init(1 << 16, max_routes, tbl8_groups);
	if (ret < 0) {
		TP_LOG(ERR, "ip6 tables (%u routes, %u tbl8 groups, twice): %s", max_routes,
		       tbl8_groups, rte_strerror(-ret));
		return ret;
	}
	/* route changes made during a grace period are published by the poller */
	if (!polling && (ret = tp_ctl_add_poller(tp_route6_poll)) < 0)
		goto fini;
	polling = true;
	/* the kernel's routes and neighbours, from ip4's sync manager (its first dump
	 * at ip4's start) */
	if ((ret = tp_ip6_nl_init(max_routes * 2)) < 0 || (ret = tp_ip6_nl_register()) < 0)
		goto fini;
	if ((ret = tp_ip6_datapath_register()) < 0)
		goto fini;
	return 0;
fini:
	tp_nl_family_unregister(AF_INET6);
	tp_ip6_nl_fini();
	tp_ip6_tables_fini();
	return ret;
}

static void ip6_fini(void)
{
	tp_nl_family_unregister(AF_INET6);
	tp_ip6_nl_fini();
	tp_rcu_reclaim(); /* what the tables deferred, before they go */
	tp_ip6_tables_fini();
}

/* A routed (l3) port's TAP: IPv6 on (the lab's namespaces, and hosts that set
 * net.ipv6.conf.default.disable_ipv6, create it off), so that the kernel answers
 * Neighbor Discovery and ICMPv6 for the port; forwarding on for it alone where the
 * kernel allows. A port in another mode (an L2 bridge port, a chain's NF port): IPv6
 * off, so that the kernel sends no RS, DAD or MLD of its own through the port. */
static void tap_ipv6(uint16_t port, bool on)
{
	struct tp_port *p = tp_port_by_id(port);
	char path[128];

	if (p == NULL || no_sysctl)
		return;
	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/disable_ipv6", p->tap_name);
	sysctl_set(path, on ? "0" : "1");
	if (per_device_forwarding) {
		snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/force_forwarding",
			 p->tap_name);
		sysctl_set(path, on ? "1" : "0");
	}
}

/* A new port is in the default mode, the router's l3 */
static void ip6_port_add(uint16_t port)
{
	tap_ipv6(port, true);
}

static void ip6_port_mode(uint16_t port, const char *mode)
{
	tap_ipv6(port, strcmp(mode, "l3") == 0);
}

/* The port goes: its routes and neighbours now (packets to them go to the kernel
 * until it removes them too). */
static void ip6_port_del(uint16_t port)
{
	tp_ip6_nl_flush_port(port);
	tp_neigh6_flush_port(port);
}

/* 'show modules': the route table's two copies at work. */
static void ip6_show(struct tp_node *out)
{
	struct tp_node *o = tp_out_obj(out, "ip6_routes");

	tp_out_u64(o, "routes", tp_route6_count());
	tp_out_u64(o, "neighbours", tp_neigh6_count());
	tp_out_u64(o, "unpublished", tp_route6_unpublished());
	tp_out_u64(o, "pending", tp_route6_pending());
	tp_out_u64(o, "publishes", tp_route6_stats.publishes);
	tp_out_u64(o, "grace_waits", tp_route6_stats.deferred);
	tp_out_u64(o, "unfit", tp_route6_stats.unfit);
	/* as ip4's show sync: the routes still waiting for room, those that fitted on a
	 * retry, the retries */
	tp_out_u64(o, "unfit_pending", tp_route6_unfit_count());
	tp_out_u64(o, "refit", tp_route6_stats.refit);
	tp_out_u64(o, "retries", tp_route6_stats.retries);
	tp_out_u64(o, "log_max", tp_route6_stats.log_max);
	tp_out_u64(o, "kernel_routes_ignored", tp_ip6_nl_stats.routes_ignored);
	tp_out_u64(o, "kernel_paths_swept", tp_ip6_nl_stats.paths_swept);
	tp_out_u64(o, "kernel_neighbours_swept", tp_ip6_nl_stats.neigh_swept);
	tp_out_u64(o, "kernel_neighbours_ignored", tp_ip6_nl_stats.neigh_ignored);
	tp_out_u64(o, "add_failed", tp_ip6_nl_stats.add_failed);
}

static const char *const ip6_deps[] = {"ip4", NULL};

struct tp_nf tp_ip6_nf = {
    .name = "ip6",
    .help = "IPv6 router: RFC 8200 checks, LPM on two RCU copies, ND through the kernel",
    .ctrs = ip6_ctrs,
    .n_ctrs = RTE_DIM(ip6_ctrs),
    .opts = ip6_opts,
    .n_opts = RTE_DIM(ip6_opts),
    .depends_on = ip6_deps,
    .init = ip6_init,
    .fini = ip6_fini,
    .port_add = ip6_port_add,
    .port_mode = ip6_port_mode,
    .port_del = ip6_port_del,
    .show = ip6_show,
};
TP_NF_REGISTER(tp_ip6_nf)
