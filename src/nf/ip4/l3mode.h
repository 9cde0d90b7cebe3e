/* SPDX-License-Identifier: BSD-3-Clause */
/* The router's "l3" port mode: every port's mode when it is added (core/input.h's
 * default). It demultiplexes by destination MAC and ethertype: IPv4 first (the
 * router's fast test, given each burst whole), then the ethertype table, into which
 * modules register their handlers (ARP by the router, 0x8624 by the NDN forwarder).
 * A module that registers an ethertype here depends on ip4. */
#ifndef TP_NF_IP4_L3MODE_H
#define TP_NF_IP4_L3MODE_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "../../core/input.h"

/* The mode (ip4's datapath/l3mode.c). */
extern struct tp_port_mode tp_mode_l3;

/* Control plane: packets of ethertype (host order) on l3 ports to our MAC, a
 * multicast or the broadcast address go to fn, in runs of consecutive packets of
 * that type. owner names the module in 'show modules'. 0, -EEXIST or -ENOSPC. */
int tp_ethertype_register(uint16_t ethertype, tp_input_fn fn, const char *owner);
/* Iterate for show: returns 0 and fills the i-th entry, or -ENOENT. */
int tp_ethertype_get(unsigned int i, uint16_t *ethertype, const char **owner);

/* The l3 mode's first handlers (TP_L3_FIRST_MAX): each is given each burst that
 * starts with a frame of its ethertype whole (no demultiplexing pass before it), takes the frames
 * of its ethertype, checking their destination MAC itself (ours or a group, else dropped as
 * core.l2_other_host), and writes the others, in order, to others: they then go
 * through the ethertype table. Returns how many it wrote there. A burst that starts
 * with another frame is demultiplexed first, and the handler is given the runs of its
 * frames (it then hands none back). The router's IPv4, whose fast test checks MAC,
 * ethertype and header in one compare, so that on a routed port the common case costs
 * nothing more, and the router's IPv6 likewise (the first frame's ethertype is
 * compared with each first handler's in turn; NDN does not pay for their tests).
 * 0, -EEXIST (the ethertype has a handler) or -ENOSPC. */
#define TP_L3_FIRST_MAX 2
typedef uint16_t (*tp_l3_first_fn)(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n,
				   struct rte_mbuf **others);
int tp_l3_first_register(uint16_t ethertype, tp_l3_first_fn fn, const char *owner);

/* The l3 mode's input function. */
void tp_l3_input(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n);

#endif
