/* SPDX-License-Identifier: BSD-3-Clause */
/* The IPv4 router: its module, counters and fast path. */
#ifndef TP_NF_IP4_H
#define TP_NF_IP4_H

#include <rte_mbuf.h>

#include "../../core/nf.h"
#include "../../core/worker.h"

/* X(enum suffix, name, kind) */
#define IP4_COUNTERS(X)                                                                            \
	X(TOO_SHORT, "too_short", DROP)                                                            \
	X(BAD_VERSION, "bad_version", DROP)                                                        \
	X(BAD_IHL, "bad_ihl", DROP)                                                                \
	X(BAD_TOTAL_LEN, "bad_total_length", DROP)                                                 \
	X(LEN_EXCEEDS_FRAME, "len_exceeds_frame", DROP)                                            \
	X(BAD_CHECKSUM, "bad_checksum", DROP)                                                      \
	X(MARTIAN_SRC, "martian_source", DROP)                                                     \
	X(BLACKHOLE, "blackhole", DROP)                                                            \
	X(ARP, "arp", PUNT)                                                                        \
	X(LOCAL, "local_destination", PUNT)                                                        \
	X(MULTICAST, "multicast_broadcast", PUNT)                                                  \
	X(TTL, "ttl_expired", PUNT)                                                                \
	X(OPTIONS, "ip_options", PUNT)                                                             \
	X(UNRESOLVED, "unresolved_neighbour", PUNT)                                                \
	X(NO_ROUTE, "no_route", PUNT)                                                              \
	X(UNREACHABLE_ROUTE, "unreachable_route", PUNT)                                            \
	X(PROHIBITED_ROUTE, "prohibited_route", PUNT)                                              \
	X(ROUTE_UNFIT, "route_unfit", PUNT)                                                        \
	X(EXCEEDS_MTU, "exceeds_mtu", PUNT)

/* the list macro ends each name with a comma, which clang-format cannot see */
/* clang-format off */
enum ip4_ctr {
#define X(e, n, k) IP4_C_##e,
	IP4_COUNTERS(X)
#undef X
	IP4_C_MAX
};
/* clang-format on */

extern struct tp_nf tp_ip4_nf;
/* The counter id of one of the router's reasons. */
#define IP4_CTR(e) (tp_ip4_nf.ctr_base + IP4_C_##e)

/* The l3 mode's first handler (core/input.h): n frames received on one port. Each
 * IPv4 frame is forwarded (buffered in w->txb), handed to a local UDP function or
 * the control plane, or dropped into a named counter; the others are written to
 * others, in order, and their count returned. */
uint16_t tp_ip4_input(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n,
		      struct rte_mbuf **others);
/* ARP frames: to the kernel, in the control class. */
void tp_ip4_arp_input(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n);

#endif
