/* SPDX-License-Identifier: BSD-3-Clause */
/* The IPv6 router: its module, counters and fast path. */
#ifndef TP_NF_IP6_H
#define TP_NF_IP6_H

#include <rte_mbuf.h>

#include "../../core/nf.h"
#include "../../core/worker.h"

/* X(enum suffix, name, kind) */
#define IP6_COUNTERS(X)                                                                            \
	X(TOO_SHORT, "too_short", DROP)                                                            \
	X(BAD_VERSION, "bad_version", DROP)                                                        \
	X(LEN_EXCEEDS_FRAME, "len_exceeds_frame", DROP)                                            \
	X(MARTIAN, "martian_address", DROP)                                                        \
	X(MARTIAN_SRC, "martian_source", DROP)                                                     \
	X(BLACKHOLE, "blackhole", DROP)                                                            \
	X(ND, "neighbor_discovery", PUNT)                                                          \
	X(LOCAL, "local_destination", PUNT)                                                        \
	X(MULTICAST, "multicast", PUNT)                                                            \
	X(LINK_LOCAL, "link_local", PUNT)                                                          \
	X(HOP_LIMIT, "hop_limit_expired", PUNT)                                                    \
	X(EXT_HEADER, "extension_header", PUNT)                                                    \
	X(UNRESOLVED, "unresolved_neighbour", PUNT)                                                \
	X(NO_ROUTE, "no_route", PUNT)                                                              \
	X(UNREACHABLE_ROUTE, "unreachable_route", PUNT)                                            \
	X(PROHIBITED_ROUTE, "prohibited_route", PUNT)                                              \
	X(ROUTE_UNFIT, "route_unfit", PUNT)                                                        \
	X(EXCEEDS_MTU, "exceeds_mtu", PUNT)                                                        \
	X(CTL_DEMOTED_HOP_LIMIT, "control_demoted_hop_limit", EVENT)                               \
	X(CTL_DEMOTED_SOURCE, "control_demoted_source", EVENT)

/* the list macro ends each name with a comma, which clang-format cannot see */
/* clang-format off */
enum ip6_ctr {
#define X(e, n, k) IP6_C_##e,
	IP6_COUNTERS(X)
#undef X
	IP6_C_MAX
};
/* clang-format on */

extern struct tp_nf tp_ip6_nf;

/* The counter id of one of the router's reasons. */
#define IP6_CTR(e) (tp_ip6_nf.ctr_base + IP6_C_##e)

/* The l3 mode's first handler of ethertype 0x86DD (l3mode.h): n frames received on one
 * port. Each IPv6 frame to our MAC or a group address is forwarded (buffered in
 * w->txb), handed to the kernel through the port's TAP, or dropped into a named
 * counter; one to another host is dropped (core.l2_other_host). The frames of other
 * ethertypes are written to others, in order; returns how many. */
uint16_t tp_ip6_input(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n,
		      struct rte_mbuf **others);
/* The data-plane half of the module's init: 0x86DD as the l3 mode's first handler
 * (the unit tests and fuzz targets, which make their own tables, call it alone).
 * 0 or a negative errno. */
int tp_ip6_datapath_register(void);

#endif
