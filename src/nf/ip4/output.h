/* SPDX-License-Identifier: BSD-3-Clause */
/* The router's output for packets the data plane originates (a network function's
 * datagrams: the IoT gateway's CoAP requests, NDN's UDP faces, anything later): route
 * lookup, next hop, MTU, Ethernet header, the worker's transmit buffer. One L3 output
 * for everyone, as grout's modules/ip/datapath/ip_output.c.
 *
 * Where a packet goes when it cannot leave here, counted in ip4's output_* counters
 * (`show counters`), counted on the output port or, before a route names one, on
 * m->port (port 0 when m->port names none):
 * - no route, or a blackhole, unreachable or prohibit route: dropped, output_no_route
 *   (the kernel would answer our own packet with an ICMP error to ourselves);
 * - a neighbour not resolved yet: to the kernel through the output port's TAP, as the
 *   router's own forwarded packets go (output_unresolved): the kernel resolves it and
 *   sends the packet on (the TAP accepts our own source address: kpolicy.c);
 * - a route that does not fit in the tables: to the kernel, which has it
 *   (output_route_unfit); one of our own addresses: to the kernel (output_local);
 * - longer than the output port's MTU: dropped, output_exceeds_mtu (a sender sizes
 *   its packets to the path; its header says DF clear, but the data plane does not
 *   fragment);
 * - no headroom for the headers: dropped, output_no_headroom.
 * Worker context only (the tables are read as an RCU reader). */
#ifndef TP_NF_IP4_OUTPUT_H
#define TP_NF_IP4_OUTPUT_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "../../core/worker.h"

/* What became of the packet; it is consumed in every case. */
enum tp_ip4_out {
	TP_IP4_OUT_SENT,    /* in the worker's transmit buffer of the output port */
	TP_IP4_OUT_PUNTED,  /* handed to the kernel (its TAP), or dropped by the punt bucket */
	TP_IP4_OUT_DROPPED, /* dropped, counted */
};

/* Send m, whose data starts at a complete IPv4 header (checksum included), to dst
 * (host order; the header's destination, or a next hop's address) with an Ethernet
 * header written in front of it (14 bytes of headroom). m is one segment or a chain;
 * m->port is the port charged for a drop before a route is found. Consumes m. */
enum tp_ip4_out tp_ip4_output(struct tp_worker *w, struct rte_mbuf *m, uint32_t dst);

/* Send m's data (the UDP payload, 42 bytes of headroom) as a UDP datagram from
 * src:sport to dst:dport (host order), with IPv4 (tp_ip4_write: TTL 64, DF clear,
 * identification ip_id) and UDP (tp_udp_write: no checksum, RFC 768) headers, through
 * tp_ip4_output. src 0: the output port's address, as a router chooses the source of
 * what it originates (RFC 1122 3.3.4.3; Linux's inet_select_addr); a packet that
 * finds no port takes m->port's. Consumes m. */
enum tp_ip4_out tp_udp_send(struct tp_worker *w, struct rte_mbuf *m, uint32_t src, uint32_t dst,
			    uint16_t sport, uint16_t dport, uint16_t ip_id);

#endif
