/* SPDX-License-Identifier: BSD-3-Clause */
/* Sync manager: mirrors the kernel's addresses, routes and neighbours on the TAPs
 * into the shared tables (full dump at start and after a netlink overrun, then
 * live updates), and writes to the kernel for the API, so the kernel stays the
 * source of truth. Control plane only. */
#ifndef TP_CONTROL_NETLINK_H
#define TP_CONTROL_NETLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nlmsghdr;

struct tp_nl_stats {
	uint64_t events;
	uint64_t resyncs;
	uint64_t overruns;
	uint64_t routes_ignored;   /* not through a TAP, or of a type we do not mirror */
	uint64_t nexthops_ignored; /* nexthop objects beyond the 4096 followed */
	uint64_t foreign;	   /* datagrams not from the kernel, ignored */
	uint64_t passes_capped;	   /* event-loop passes that left messages for the next */
	uint64_t resync_failures;  /* dumps that failed (tried again with backoff) */
	uint64_t drain_passes;	   /* passes that emptied an overrun queue only in part */
	uint64_t neigh_swept;	   /* neighbours a resync found gone from the kernel */
};

/* A request's answer (a dump) waits this long at most for each datagram. */
#define TP_NL_REQUEST_TIMEOUT_MS 5000

/* Messages of the event socket applied per event-loop pass, at most. */
#define TP_NL_PASS_BUDGET 1024
/* Next hops of one multipath route mirrored at most (a group takes TP_NHG_MEMBERS of
 * them alive: a route with more is unfit, counted) */
#define TP_NL_MAX_HOPS 256

extern struct tp_nl_stats tp_nl_stats;

int tp_nl_init(void);
void tp_nl_fini(void);
/* Full dump of links, addresses, routes and neighbours; sweeps what is gone. */
int tp_nl_resync(void);

/* Apply a datagram of the event socket (len bytes of netlink messages) to the tables;
 * what mnl_cb_run() returns. */
int tp_nl_input(const void *buf, size_t len);

/* Apply every message queued on the event socket now, whatever the budget (a
 * command that wants to see what its kernel write did). */
void tp_nl_drain(void);
/* The per-pass budget (tests). */
void tp_nl_set_pass_budget(unsigned int messages);

/* Receive buffer of the event socket, in bytes (a smaller one overruns sooner). */
int tp_nl_set_rcvbuf(int bytes);

/* Another address family's mirror (IPv6: nf/ip6), fed by the same sockets: its
 * messages (addresses, routes, neighbours of the family), the same dumps at every
 * resync, its sweep after a complete one. */
struct tp_nl_family_ops {
	/* One message of the family (RTM_NEW/DEL ADDR, ROUTE, NEIGH); gen is the resync
	 * generation a dump's entries carry. */
	void (*msg)(const struct nlmsghdr *nlh, uint32_t gen);
	/* After a complete dump: forget what does not carry gen. */
	void (*sweep)(uint32_t gen);
	/* Its routes that did not fit, tried again on a timer of their own with ip4's
	 * rules (tp_route_retry: 10 ms after room freed, then every second while any
	 * wait, 256 a pass); NULL: none. Whether room was freed since the last retry;
	 * try up to budget of them again; how many wait. */
	bool (*retry_wanted)(void);
	unsigned int (*retry)(unsigned int budget);
	unsigned int (*unfit_count)(void);
};
/* Register ops for family (AF_INET6 only) and join its n_groups multicast groups
 * (RTNLGRP_* numbers). Control plane, after tp_nl_init. 0, -EINVAL, -EEXIST,
 * -ENOTCONN or a negative errno. */
int tp_nl_family_register(uint8_t family, const struct tp_nl_family_ops *ops,
			  const unsigned int *groups, unsigned int n_groups);
void tp_nl_family_unregister(uint8_t family);
/* Send one request (NLM_F_REQUEST | NLM_F_ACK, built by the caller, another family's
 * writes: nf/ip6) on the request socket and wait for the kernel's answer: 0 or the
 * negative errno the kernel answered. The sequence number is set here. */
int tp_nl_write(struct nlmsghdr *nlh);
/* Kernel writes: 0 or negative errno (the kernel's answer). Addresses in host order. */
int tp_nl_addr(bool add, int ifindex, uint32_t ip, uint8_t depth);
/* A route of the main table: unicast (rtn_type RTN_UNICAST, via gw and/or out of
 * ifindex), or RTN_BLACKHOLE, RTN_UNREACHABLE, RTN_PROHIBIT (gw and ifindex 0). */
int tp_nl_route(bool add, uint32_t ip, uint8_t depth, uint32_t gw, int ifindex, uint8_t rtn_type);
int tp_nl_neigh(bool add, int ifindex, uint32_t ip, const uint8_t *mac);
/* The same for either family (the one writer of these requests; nf/ip6 uses it):
 * addresses of 4 (AF_INET) or 16 (AF_INET6) bytes in network order; brd, gw: NULL
 * for none; scope: the added route's (RT_SCOPE_UNIVERSE, or RT_SCOPE_LINK for an
 * IPv4 route out of a port with no gateway). */
int tp_nl_addr_af(uint8_t af, bool add, int ifindex, const void *ip, uint8_t depth, const void *brd,
		  uint8_t ifa_flags);
int tp_nl_route_af(uint8_t af, bool add, const void *dst, uint8_t depth, const void *gw,
		   int ifindex, uint8_t rtn_type, uint8_t scope);
int tp_nl_neigh_af(uint8_t af, bool add, int ifindex, const void *ip, const uint8_t *mac);

#endif
