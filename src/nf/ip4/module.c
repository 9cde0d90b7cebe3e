/* SPDX-License-Identifier: BSD-3-Clause */
/* The IPv4 router as a module: its counters and options, its tables (routes,
 * neighbours, next hops) and their kernel mirror (netlink, the TAPs' policy), set
 * up and torn down here; IPv4 and ARP on l3 ports. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>

#include "../../control/metrics.h"
#include "../../control/out.h"
#include "../../control/port.h"
#include "../../core/input.h"
#include "../../core/log.h"
#include "../../core/rcu.h"
#include "../../core/tp.h"
#include "../../proto/ip4.h"
#include "../../proto/parse.h"
#include "control/kpolicy.h"
#include "control/neigh.h"
#include "control/netlink.h"
#include "control/nexthop.h"
#include "control/nhg.h"
#include "control/route.h"
#include "l3mode.h"
#include "ip4.h"

static const struct tp_ctr_desc ip4_ctrs[] = {IP4_COUNTERS(TP_CTR_DESC)};

/* --- options --- */
static unsigned int max_routes = 1 << 16;
static unsigned int tbl8_groups = 1 << 12;
static unsigned int nexthop_groups = TP_NHG_DEFAULT;
static bool no_sysctl;

/* A count of 1 to 2^24 for option name: 0 or -EINVAL, having said why on stderr. */
static int count_opt(const char *name, const char *arg, unsigned int *v)
{
	uint64_t n;

	if (tp_parse_u64(arg, 1, 1u << 24, &n) < 0) {
		fprintf(stderr, "twinplane: --%s: want 1 to 16777216, not '%s'\n", name, arg);
		return -EINVAL;
	}
	*v = (unsigned int)n;
	return 0;
}

static int opt_max_routes(const char *arg)
{
	return count_opt("max-routes", arg, &max_routes);
}

static int opt_tbl8_groups(const char *arg)
{
	return count_opt("tbl8-groups", arg, &tbl8_groups);
}

static int opt_nexthop_groups(const char *arg)
{
	uint64_t n;

	if (tp_parse_u64(arg, 1, TP_NHG_ID_MASK + 1, &n) < 0) {
		fprintf(stderr, "twinplane: --ecmp-groups: want 1 to 65536, not '%s'\n", arg);
		return -EINVAL;
	}
	nexthop_groups = (unsigned int)n;
	return 0;
}

static int opt_no_sysctl(const char *arg)
{
	no_sysctl = true;
	return 0;
}

static const struct tp_nf_opt ip4_opts[] = {
    {"max-routes", true,
     "routes the data plane holds (65536); the kernel's others\n"
     "                          go through the kernel, counted in show sync",
     opt_max_routes},
    {"tbl8-groups", true, "LPM groups for routes longer than /24, one a /24 (4096)",
     opt_tbl8_groups},
    {"ecmp-groups", true,
     "ECMP next-hop groups the data plane holds (4096), one a\n"
     "                          multipath route; beyond, they go through the kernel",
     opt_nexthop_groups},
    {"no-sysctl", false, "leave the namespace's redirects alone", opt_no_sysctl},
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

/* The kernel behind the TAPs forwards what the lcores punt (unresolved
 * neighbours, TTL expiry): it must route, and must not answer with redirects. Only
 * the TAPs forward (conf/tp-X/forwarding, set by control/kpolicy.c: IPv4 checks it on
 * the receiving device); the namespace-wide ip_forward is left as it is, so a
 * management interface does not route into the data plane. */
static void kernel_setup(void)
{
	sysctl_set("/proc/sys/net/ipv4/conf/all/send_redirects", "0");
	sysctl_set("/proc/sys/net/ipv4/conf/default/send_redirects", "0");
	/* rp_filter stays as it is: each TAP gets a loose one (kpolicy.c) */
}

/* --- life cycle --- */
int tp_ip4_datapath_register(void)
{
	/* IPv4 sees each burst first, whole: the router's fast test checks MAC, type and
	 * header in one compare, with no demultiplexing pass before it */
	int ret = tp_l3_first_register(TP_ETHERTYPE_IP4, tp_ip4_input, "ip4");

	return ret < 0 ? ret : tp_ethertype_register(TP_ETHERTYPE_ARP, tp_ip4_arp_input, "ip4");
}

static int ip4_init(void)
{
	int ret;

	if (!no_sysctl)
		kernel_setup();
	tp_route_set_groups(nexthop_groups);
	if ((ret = tp_nh_init()) < 0 || (ret = tp_neigh_init(1 << 16)) < 0 ||
	    (ret = tp_route_init2(tp.qs, max_routes, tbl8_groups)) < 0) {
		TP_LOG(ERR, "ip4 tables: %s", rte_strerror(-ret));
		goto tables_fini;
	}
	if ((ret = tp_nl_init()) < 0)
		goto tables_fini;
	if ((ret = tp_ip4_datapath_register()) < 0)
		goto nl_fini;
	return 0;
nl_fini:
	tp_nl_fini();
tables_fini:
	tp_rcu_reclaim();
	tp_route_fini();
	tp_neigh_fini();
	tp_nh_fini();
	return ret;
}

/* The lcores run and no port exists yet: the first dump of the kernel's tables. */
static void ip4_start(void)
{
	tp_nl_resync();
}

static void ip4_fini(void)
{
	tp_nl_fini();
	tp_rcu_reclaim(); /* what the tables deferred, before they go */
	tp_route_fini();
	tp_neigh_fini();
	tp_nh_fini();
}

/* A new port's TAP: the kernel's policy for what it is handed, then what the kernel
 * already knows about the TAP. */
static void ip4_port_add(uint16_t port)
{
	struct tp_port *p = tp_port_by_id(port);
	int ret;

	if (p == NULL)
		return;
	ret = tp_kpolicy_tap_add(p->tap_name, p->tap_ifindex);
	if (ret < 0)
		TP_LOG(WARNING,
		       "%s: no policy rules (%s): the kernel may route punted frames "
		       "through interfaces that are not TAPs",
		       p->tap_name, strerror(-ret));
	tp_nl_resync();
}

/* The port goes: its routes and neighbours now (packets to them go to the kernel
 * until it removes them too), its TAP's policy rules. */
static void ip4_port_del(uint16_t port)
{
	struct tp_port *p = tp_port_by_id(port);

	tp_route_flush_port(port);
	tp_neigh_flush_port(port);
	tp_ip4_port_addr_set(port, 0, 0);
	if (p != NULL)
		tp_kpolicy_tap_del(p->tap_name);
}

/* 'show modules': the l3 mode's ethertype table. */
static void ip4_show(struct tp_node *out)
{
	struct tp_node *el = tp_out_list(out, "ethertypes");
	const char *owner;
	uint16_t et;

	for (unsigned int i = 0; tp_ethertype_get(i, &et, &owner) == 0; i++) {
		struct tp_node *o = tp_out_obj(el, NULL);
		tp_out_strf(o, "ethertype", "0x%04x", et);
		tp_out_str(o, "module", owner);
	}
}

/* The metrics page: the sizes of the tables the kernel and the commands fill. */
static void ip4_metrics(struct tp_metrics *m)
{
	tp_metrics_family(m, "twinplane_ip4_routes", "gauge", "Routes in the IPv4 FIB");
	tp_metrics_u64(m, "twinplane_ip4_routes", tp_route_count(), NULL);
	tp_metrics_family(m, "twinplane_ip4_neighbours", "gauge", "Entries of the neighbour table");
	tp_metrics_u64(m, "twinplane_ip4_neighbours", tp_neigh_count(), NULL);
}

struct tp_nf tp_ip4_nf = {
    .name = "ip4",
    .help = "IPv4 router: RFC 1812 checks, LPM, neighbours, local UDP functions",
    .ctrs = ip4_ctrs,
    .n_ctrs = RTE_DIM(ip4_ctrs),
    .opts = ip4_opts,
    .n_opts = RTE_DIM(ip4_opts),
    .init = ip4_init,
    .start = ip4_start,
    .fini = ip4_fini,
    .port_add = ip4_port_add,
    .port_del = ip4_port_del,
    .show = ip4_show,
    .metrics = ip4_metrics,
};
TP_NF_REGISTER(tp_ip4_nf)
