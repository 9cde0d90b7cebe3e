/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv6 neighbours and routes as the control plane sets them: neighbour (address,
 * port) -> next-hop id (an rte_hash with lock-free reads), the next hops in
 * ip4's shared table (control/nexthop.h: the fast path's word does not depend on the
 * family), and routes by type onto route6.h's table.
 *
 * The control plane is the only writer. A neighbour owns one next-hop entry; routes
 * through it, its /128 host route and the kernel's own neighbour entry each hold a
 * reference. A route's reference is dropped when no route-table copy has the route
 * any more (route6.h's release); the last one deletes the key, and the next-hop entry
 * is freed after one more RCU grace period (core/rcu.h's defer queue). */
#ifndef TP_NF_IP6_NEIGH6_H
#define TP_NF_IP6_NEIGH6_H

#include <stdint.h>

/* The route types, as ip4's (control/route.h) */
enum tp_route6_type {
	TP_ROUTE6_CONNECTED,   /* subnet on a port: punt until the neighbour resolves */
	TP_ROUTE6_GATEWAY,     /* via a neighbour */
	TP_ROUTE6_LOCAL,       /* one of our addresses: punt */
	TP_ROUTE6_BLACKHOLE,   /* dropped (RTN_BLACKHOLE) */
	TP_ROUTE6_UNREACHABLE, /* the kernel answers Destination Unreachable */
	TP_ROUTE6_PROHIBIT,    /* the kernel answers Administratively Prohibited */
};

/* Tables: max_neigh neighbours; routes as tp_route6_init. 0 or a negative errno. */
int tp_ip6_tables_init(unsigned int max_neigh, unsigned int max_routes, unsigned int tbl8_groups);
void tp_ip6_tables_fini(void);

/* Next-hop id of neighbour ip on port, or -ENOENT. Lock-free. */
int tp_neigh6_lookup(const uint8_t ip[16], uint16_t port);
/* The kernel resolved ip to mac on port (mac != NULL): its next hop forwards, and a
 * /128 host route points to it; or forgot it (mac == NULL). The next-hop id, -ENOENT
 * when forgotten, or a negative errno. */
int tp_neigh6_learn(const uint8_t ip[16], uint16_t port, const uint8_t *mac);
unsigned int tp_neigh6_count(void);
/* Iterate: *iter starts at 0; returns 0 and fills ip, port and nh (its next-hop id),
 * or -ENOENT at the end. Control plane only. */
int tp_neigh6_iterate(uint32_t *iter, uint8_t ip[16], uint16_t *port, uint32_t *nh);
/* Forget every neighbour the kernel taught us whose next hop's gen is not gen (a
 * resync did not see it). Returns how many. */
unsigned int tp_neigh6_sweep(uint32_t gen);
/* Forget every neighbour the kernel taught us on port. */
void tp_neigh6_flush_port(uint16_t port);

/* Add or replace ip/depth of type (gw for TP_ROUTE6_GATEWAY, on port). 0 or a
 * negative errno (-EINVAL, -ENOSPC, -ENOMEM). */
int tp_ip6_route_add(const uint8_t ip[16], uint8_t depth, enum tp_route6_type type,
		     const uint8_t *gw, uint16_t port);
/* Delete ip/depth exactly. 0 or -ENOENT. */
int tp_ip6_route_del(const uint8_t ip[16], uint8_t depth);

#endif
