/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target for the sync manager's netlink parser (src/nf/ip4/control/netlink.c): a
 * datagram of the event socket, a stream of nlmsghdr (addresses, routes, neighbours,
 * anything else), applied to the real route, next-hop and neighbour tables of an EAL
 * without hugepages or devices. The datagram is an exact-size heap copy, so a read past
 * it is AddressSanitizer's report. Two ports stand behind TAPs of ifindex 3 and 2 (the seeds'
 * interfaces: tests/fuzz/make_seeds.py).
 *
 * Properties: every route left in the table has a depth of at most 32, an address with
 * no bit past its depth, a known type and one of the ports; the LPM answers for each
 * route's address what the route's next hop says (a longer route may cover it); a
 * port's primary address is its first; the neighbour table's next hops are on the
 * ports. Between inputs the tables are emptied (the sweep of a resync that found
 * nothing), so an input means the same every time. Built and run by scripts/fuzz.sh. */
#include <errno.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_lpm.h>

#include "nf/ip4/control/netlink.h"
#include "control/port.h"
#include "core/rcu.h"
#include "core/tp.h"
#include "fuzz_dpdk.h"
#include "tables/iface.h"
#include "nf/ip4/control/neigh.h"
#include "nf/ip4/control/nexthop.h"
#include "nf/ip4/control/nhg.h"
#include "nf/ip4/control/route.h"
#include "nf/ip4/ip4.h"

/* The daemon's global state (src/core/lcore.c, not linked here: no lcores) */
struct tp_global tp;

/* The ports the sync manager looks up by their TAP's ifindex (src/control/port.c's
 * lookups, over two ports of our own: no device, no TAP). */
static struct tp_port ports[2] = {
    {.name = "p0", .id = 0, .tap_ifindex = 3},
    {.name = "p1", .id = 1, .tap_ifindex = 2},
};

struct tp_port *tp_port_by_ifindex(int ifindex)
{
	for (unsigned int i = 0; i < RTE_DIM(ports); i++)
		if (ports[i].tap_ifindex == ifindex)
			return &ports[i];
	return NULL;
}

struct tp_port *tp_port_next(unsigned int *iter)
{
	return *iter < RTE_DIM(ports) ? &ports[(*iter)++] : NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{

	fuzz_eal_init("fuzz-netlink", 256);
	fuzz_tables_init();
	return 0;
}

/* A multipath route: its hops on our ports; installed with a group, every bucket holds
 * one of the group's members, as many as the live hops (one per gateway). */
static void check_group(const struct tp_route *r)
{
	const struct tp_route_path *p = &r->paths[0];
	unsigned int live = 0;

	must(p->n_hops > 0 && p->hops != NULL);
	for (unsigned int i = 0; i < p->n_hops; i++) {
		must(p->hops[i].port < RTE_DIM(ports));
		must(p->hops[i].weight >= 1 && p->hops[i].weight <= 256);
		live += !p->hops[i].dead;
	}
	if (!r->installed || !(r->nh & TP_NH_GROUP))
		return;
	const struct tp_nhg *g = tp_nhg_get(r->nh & TP_NHG_ID_MASK);
	must(g != NULL && g->n >= 1 && g->n <= live && g->n <= TP_NHG_MEMBERS);
	for (unsigned int b = 0; b < TP_NHG_BUCKETS; b++) {
		unsigned int k = 0;
		while (k < g->n && g->m[k].nh != g->bucket[b])
			k++;
		must(k < g->n && tp_nh_table[g->bucket[b]].in_use);
	}
}

static void check_tables(void)
{
	uint32_t iter = 0, ip, nh;
	const struct tp_route *r;

	while ((r = tp_route_iterate(&iter)) != NULL) {
		must(r->depth <= 32);
		must(r->depth == 32 || (r->ip & (uint32_t)(0xffffffffull >> r->depth)) == 0);
		/* blackhole, unreachable, prohibit and throw routes have no port; they stay
		 * when a delete does not match them exactly (another type or metric) */
		must(r->type <= TP_ROUTE_HOST
			 ? r->port < RTE_DIM(ports)
			 : r->type <= TP_ROUTE_MULTIPATH && r->port == TP_ROUTE_NO_PORT);
		if (r->type == TP_ROUTE_MULTIPATH)
			check_group(r);
		must(r->n_paths > 0 && (r->unfit != TP_UNFIT_NONE) == r->listed);
		if (!r->installed)
			continue; /* unfit: not in the LPM (its cover punts) */
		uint32_t got, want = r->unfit_below ? TP_NH_UNFIT : r->nh;
		must(rte_lpm_lookup(tp_route_lpm, r->ip, &got) == 0);
		if (got == want)
			continue;
		/* a more specific route covers the address */
		const struct tp_route *o;
		uint32_t it2 = 0;
		int covered = 0;
		while ((o = tp_route_iterate(&it2)) != NULL)
			covered |= o->depth > r->depth && o->installed &&
				   (o->unfit_below ? TP_NH_UNFIT : o->nh) == got &&
				   (r->ip & (uint32_t)(~0ull << (32 - o->depth))) == o->ip;
		must(covered);
	}
	for (unsigned int i = 0; i < RTE_DIM(ports); i++) {
		const struct tp_port *p = &ports[i];
		must(p->n_addrs <= TP_PORT_MAX_ADDRS);
		must(tp_ip4_port_addr(i, NULL) == (p->n_addrs ? p->addrs[0].ip : 0));
	}
	iter = 0;
	while (tp_neigh_iterate(&iter, &ip, &nh) == 0)
		must(tp_nh_table[nh].port < RTE_DIM(ports));
}

/* Everything gone: what a resync that finds nothing in the kernel leaves. */
static void tables_empty(uint32_t gen)
{
	static uint32_t ips[1024];
	static uint16_t port[1024];
	uint32_t iter = 0, ip, nh;
	unsigned int n = 0;

	tp_route_flush_port(0);
	tp_route_flush_port(1);
	tp_route_sweep(gen);
	while (n < RTE_DIM(ips) && tp_neigh_iterate(&iter, &ip, &nh) == 0)
		if (tp_nh_table[nh].learned) {
			port[n] = tp_nh_table[nh].port;
			ips[n++] = ip;
		}
	for (unsigned int i = 0; i < n; i++) {
		tp_neigh_learn(ips[i], port[i], NULL);
		tp_route_host_update(ips[i], port[i], -ENOENT);
	}
	tp_rcu_reclaim();
	must(tp_neigh_count() == 0 && tp_route_count() == 0 && tp_nhg_count() == 0);
	for (unsigned int i = 0; i < RTE_DIM(ports); i++) {
		ports[i].n_addrs = 0;
		tp_ip4_port_addr_set(i, 0, 0);
	}
	tp_rcu_reclaim();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint32_t gen = 0x80000000u;
	uint8_t *copy = malloc(size ? size : 1);

	must(copy != NULL);
	memcpy(copy, data, size);
	tp_nl_input(copy, size);
	free(copy);
	check_tables();
	tables_empty(gen++);
	return 0;
}
