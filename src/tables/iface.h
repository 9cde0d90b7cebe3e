/* SPDX-License-Identifier: BSD-3-Clause */
/* Interface table: per-port state the data plane reads, indexed by DPDK port id.
 *
 * Written by the control plane before a port is published to any lcore and when
 * its state changes (single aligned stores); read lock-free by the lcores. The
 * input function and its context are the port's mode (core/input.h): replaced with
 * release stores, the old context released after an RCU grace period. */
#ifndef TP_TABLES_IFACE_H
#define TP_TABLES_IFACE_H

#include <stdint.h>

#include <rte_common.h>
#include <rte_ether.h>

#include "../core/input.h"

struct tp_iface {
	tp_input_fn input; /* never NULL for a polled port */
	void *mode_ctx;	   /* the mode's context for this port */
	struct rte_ether_addr mac;
	uint16_t mtu;
	uint8_t up; /* 1 while the port is started and may transmit */
	uint8_t pad;
	uint32_t tap_ifindex;
} __rte_cache_aligned;

extern struct tp_iface tp_iface_table[TP_MAX_PORTS];

#endif
