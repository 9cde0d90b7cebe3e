/* SPDX-License-Identifier: BSD-3-Clause */
/* The kernel's IPv6 routes and neighbours on the TAPs, mirrored into ip6's tables
 * through ip4's sync manager (control/netlink.h: tp_nl_family_register): every kernel
 * route of a prefix kept as a path, the one the kernel uses installed, exact deletes,
 * a resync's sweep. Control plane only. */
#ifndef TP_NF_IP6_NETLINK6_H
#define TP_NF_IP6_NETLINK6_H

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

#endif
