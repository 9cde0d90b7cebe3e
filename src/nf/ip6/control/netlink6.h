/* SPDX-License-Identifier: BSD-3-Clause */
/* The kernel's IPv6 routes and neighbours on the TAPs, mirrored into ip6's tables
 * through ip4's sync manager (control/netlink.h: tp_nl_family_register): every kernel
 * route of a prefix kept as a path, the one the kernel uses installed, exact deletes,
 * a resync's sweep. Control plane only. */
#ifndef TP_NF_IP6_NETLINK6_H
#define TP_NF_IP6_NETLINK6_H

#include <stdbool.h>
#include <stdint.h>

struct nlmsghdr;

struct tp_ip6_nl_stats {
	uint64_t routes_ignored; /* not through a TAP, or a type not mirrored (multicast) */
	uint64_t add_failed;	 /* a best path the tables refused */
	uint64_t index_full;	 /* prefixes beyond the path index */
	uint64_t paths_swept;	 /* paths a resync found gone from the kernel */
	uint64_t neigh_swept;	 /* neighbours a resync found gone */
	uint64_t neigh_ignored;	 /* multicast entries (not next hops) */
};
extern struct tp_ip6_nl_stats tp_ip6_nl_stats;

/* The path index for max_prefixes prefixes. 0 or -ENOMEM. */
int tp_ip6_nl_init(unsigned int max_prefixes);
void tp_ip6_nl_fini(void);
/* Join the sync manager (IPv6 groups, dumps). 0 or a negative errno. */
int tp_ip6_nl_register(void);
/* One AF_INET6 message (route or neighbour; addresses come as local routes); gen:
 * the resync generation. */
void tp_ip6_nl_msg(const struct nlmsghdr *nlh, uint32_t gen);
/* After a complete dump: the paths and neighbours without gen go. */
void tp_ip6_nl_sweep(uint32_t gen);
/* Forget every path through port (the port is going). */
void tp_ip6_nl_flush_port(uint16_t port);
/* How many kernel paths ip/depth has (tests, show). */
unsigned int tp_ip6_nl_paths(const uint8_t ip[16], uint8_t depth);

/* The kernel path of ip/depth the data plane has (the one the kernel uses). */
struct tp_ip6_nl_path {
	uint32_t table, metric;
	uint8_t gw[16]; /* a gateway route's; else zero */
	uint16_t port;	/* UINT16_MAX for the types without one */
	uint8_t type;	/* enum tp_route6_type (neigh6.h) */
};
/* Fill out with ip/depth's installed kernel path: 0, or -ENOENT when the kernel has
 * no route of that prefix (a neighbour's /128 is ours, not the kernel's). */
int tp_ip6_nl_best(const uint8_t ip[16], uint8_t depth, struct tp_ip6_nl_path *out);

/* Kernel writes (the API's commands): 0 or the negative errno the kernel answered.
 * An address on the TAP ifindex, without Duplicate Address Detection. */
int tp_ip6_nl_addr(bool add, int ifindex, const uint8_t ip[16], uint8_t depth);
/* A route of the main table: RTN_UNICAST via gw (NULL: none) and/or out of ifindex
 * (0: none), or RTN_BLACKHOLE, RTN_UNREACHABLE, RTN_PROHIBIT (gw NULL, ifindex 0). A
 * delete removes the main table's route of ip/depth the kernel finds first. */
int tp_ip6_nl_route(bool add, const uint8_t ip[16], uint8_t depth, const uint8_t *gw, int ifindex,
		    uint8_t rtn_type);
/* A permanent neighbour ip -> mac on the TAP ifindex (mac NULL for a delete). */
int tp_ip6_nl_neigh(bool add, int ifindex, const uint8_t ip[16], const uint8_t *mac);

#endif
