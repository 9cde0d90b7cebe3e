/* SPDX-License-Identifier: BSD-3-Clause */
/* Network functions on the router's own addresses: a UDP port registry.
 *
 * A packet routed to a local address (the punt next hop) whose UDP destination
 * port has a registered handler is given to that handler on the worker, instead
 * of the kernel. Handlers register from the control plane; registration is
 * published with a release store, so a worker sees a complete entry or none.
 * Handlers consume the mbuf (forward, answer, punt or drop it, counted). */
#ifndef TP_CORE_L4_H
#define TP_CORE_L4_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "worker.h"

#define TP_UDP_LOCAL_MAX 8

/* l3 points to the IPv4 header, l4 to the UDP header (both inside m). */
typedef void (*tp_udp_local_fn)(struct tp_worker *w, struct rte_mbuf *m, uint8_t *l3,
				uint8_t *l4);

struct tp_udp_local {
	uint16_t port_be; /* network order */
	tp_udp_local_fn fn;
};

extern struct tp_udp_local tp_udp_local_table[TP_UDP_LOCAL_MAX];
extern unsigned int tp_udp_local_count;

/* Register fn for UDP port (host order). 0, -EEXIST or -ENOSPC. Control plane only. */
int tp_udp_local_register(uint16_t port, tp_udp_local_fn fn);

static inline tp_udp_local_fn tp_udp_local_lookup(uint16_t port_be)
{
	unsigned int n = __atomic_load_n(&tp_udp_local_count, __ATOMIC_ACQUIRE);

	for (unsigned int i = 0; i < n; i++)
		if (tp_udp_local_table[i].port_be == port_be)
			return tp_udp_local_table[i].fn;
	return NULL;
}

#endif
