/* SPDX-License-Identifier: BSD-3-Clause */
/* The router's local UDP port table: network functions on the router's own addresses.
 *
 * A packet routed to a local address (the punt next hop) whose UDP destination
 * port has a registered handler is given to that handler on the lcore, instead
 * of the kernel (the IoT gateway's 6024, NDN's 6363). Handlers register from the
 * control plane; an entry is published with a release store, so an lcore sees a
 * complete entry or none. Handlers consume the mbuf (forward, answer, punt or
 * drop it, counted). */
#ifndef TP_NF_IP4_UDP_LOCAL_H
#define TP_NF_IP4_UDP_LOCAL_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "../../../core/dispatch.h"
#include "../../../core/worker.h"

/* l3 points to the IPv4 header, l4 to the UDP header (both inside m's first segment). */
typedef void (*tp_udp_local_fn)(struct tp_worker *w, struct rte_mbuf *m, uint8_t *l3, uint8_t *l4);

extern struct tp_dispatch tp_udp_local;

/* Register fn for UDP port (host order). 0, -EEXIST or -ENOSPC. Control plane only. */
int tp_udp_local_register(uint16_t port, tp_udp_local_fn fn, const char *owner);

static inline tp_udp_local_fn tp_udp_local_lookup(uint16_t port_be)
{
	return (tp_udp_local_fn)tp_dispatch_find(&tp_udp_local, port_be);
}

#endif
