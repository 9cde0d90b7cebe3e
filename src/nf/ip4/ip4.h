/* SPDX-License-Identifier: BSD-3-Clause */
/* The IPv4 router: its module, counters and fast path. */
#ifndef TP_NF_IP4_H
#define TP_NF_IP4_H

#include <rte_mbuf.h>

#include "../../core/nf.h"
#include "../../core/worker.h"
#include "../../tables/iface.h"

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
	X(EXCEEDS_MTU, "exceeds_mtu", PUNT)                                                        \
	X(CTL_DEMOTED_TTL, "control_demoted_ttl", EVENT)                                           \
	X(CTL_DEMOTED_SOURCE, "control_demoted_source", EVENT)                                     \
	X(CTL_DEMOTED_DESTINATION, "control_demoted_destination", EVENT)                           \
	X(OUT_NO_ROUTE, "output_no_route", DROP)                                                   \
	X(OUT_UNRESOLVED, "output_unresolved", PUNT)                                               \
	X(OUT_ROUTE_UNFIT, "output_route_unfit", PUNT)                                             \
	X(OUT_LOCAL, "output_local", PUNT)                                                         \
	X(OUT_EXCEEDS_MTU, "output_exceeds_mtu", DROP)                                             \
	X(OUT_NO_HEADROOM, "output_no_headroom", DROP)

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

/* The router's per-port state: the port's primary IPv4 address (host order, 0 if
 * it has none) and its prefix length, as the kernel has them on the port's TAP.
 * Written only by the netlink mirror (control/netlink.c, tp_ip4_port_addr_set) with
 * single stores; read lock-free by any lcore and the control plane through
 * tp_ip4_port_addr. Indexed by DPDK port id, like the interface table. */
struct tp_ip4_port {
	uint32_t ip;
	uint8_t depth;
} __rte_cache_aligned;

extern struct tp_ip4_port tp_ip4_ports[TP_MAX_PORTS];

/* The port's primary IPv4 address (host order), 0 if it has none, and its prefix
 * length in *depth (may be NULL). */
static inline uint32_t tp_ip4_port_addr(uint16_t port, uint8_t *depth)
{
	const struct tp_ip4_port *f = &tp_ip4_ports[port];

	if (depth != NULL)
		*depth = __atomic_load_n(&f->depth, __ATOMIC_RELAXED);
	return __atomic_load_n(&f->ip, __ATOMIC_RELAXED);
}

/* Control plane: the port's primary address (0, 0 when it has none). */
static inline void tp_ip4_port_addr_set(uint16_t port, uint32_t ip, uint8_t depth)
{
	__atomic_store_n(&tp_ip4_ports[port].ip, ip, __ATOMIC_RELAXED);
	__atomic_store_n(&tp_ip4_ports[port].depth, depth, __ATOMIC_RELAXED);
}
/* The counter id of one of the router's reasons. */
#define IP4_CTR(e) (tp_ip4_nf.ctr_base + IP4_C_##e)

/* The l3 mode's first handler (l3mode.h): n frames received on one port. Each
 * IPv4 frame is forwarded (buffered in w->txb), handed to a local UDP function or
 * the control plane, or dropped into a named counter; the others are written to
 * others, in order, and their count returned. */
uint16_t tp_ip4_input(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n,
		      struct rte_mbuf **others);
/* ARP frames: to the kernel, in the ARP class, fair per sender address. */
void tp_ip4_arp_input(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n);
/* The data-plane half of the module's init: IPv4 as the l3 mode's first handler,
 * ARP in its ethertype table (the unit tests and fuzz targets, which make their own
 * tables, call it alone). 0 or a negative errno. */
int tp_ip4_datapath_register(void);

/* Control peers: the sources beyond the ingress port's subnet whose routing-protocol
 * packets (multi-hop BGP, multi-hop BFD, PIM Register, OSPF virtual links) are the
 * control class. Each entry is one 64-bit word, written with atomic stores by the
 * control plane and scanned by the lcores: bits 0-31 the prefix (host order), 32-39
 * its length, 40-47 the lowest TTL accepted (RFC 5082 GTSM: 255 for a single hop;
 * 0: any), bit 48 set when the entry is in use. */
#define TP_IP4_CTL_PEERS_MAX 64
#define TP_IP4_CTL_PEER_USED (1ull << 48)
extern uint64_t tp_ip4_ctl_peers[TP_IP4_CTL_PEERS_MAX];
/* 1 + the highest entry in use (the lcores scan that far) */
extern unsigned int tp_ip4_ctl_peers_n;
/* RFC 5082 GTSM for BGP from the port's own subnet: 1: only TTL 255 is the control
 * class ('set punt bgp-gtsm on'). */
extern uint8_t tp_ip4_bgp_gtsm;

#endif
