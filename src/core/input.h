/* SPDX-License-Identifier: BSD-3-Clause */
/* Packet entry points: every port has a mode, and the mode's input function gets
 * every burst the port receives (published with RCU in the interface table).
 *
 * Modes are registered by modules (TP_PORT_MODE_REGISTER): the core's own "l3"
 * mode demultiplexes by destination MAC and ethertype through the ethertype table,
 * into which modules register their handlers (IPv4 and ARP by the router, 0x8624
 * by the NDN forwarder); other modes take the whole port (an L2 bridge, an NDN
 * face, an application that owns the port). Input functions consume every mbuf
 * they are given (forward, hand on, punt or drop it, counted). */
#ifndef TP_CORE_INPUT_H
#define TP_CORE_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "worker.h"

/* n (>= 1) packets received on one port. */
typedef void (*tp_input_fn)(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n);

struct tp_port_mode {
	const char *name;  /* the word after 'port set P mode' */
	const char *usage; /* words after the name, or NULL */
	const char *help;
	tp_input_fn input;
	/* Control plane: port is to enter the mode with these words. Set *ctx (read by
	 * the input function as tp_iface_table[port].mode_ctx). 0 or a negative errno
	 * with err saying why. NULL: the mode takes no words. */
	int (*attach)(uint16_t port, int argc, char **argv, void **ctx, char *err, size_t errlen);
	/* Control plane: the port left the mode; no lcore can see ctx any more. */
	void (*detach)(uint16_t port, void *ctx);
	struct tp_port_mode *next;
};

void tp_port_mode_register(struct tp_port_mode *m);
#define TP_PORT_MODE_REGISTER(m)                                                                   \
	RTE_INIT(tp_port_mode_register_##m)                                                        \
	{                                                                                          \
		tp_port_mode_register(&m);                                                         \
	}
struct tp_port_mode *tp_port_mode_find(const char *name);
/* Iterate: *iter starts at NULL. */
struct tp_port_mode *tp_port_mode_next(struct tp_port_mode *prev);
/* The core's "l3" mode, every port's mode when it is added. */
extern struct tp_port_mode tp_mode_l3;

/* --- the l3 mode's ethertype table (core/dispatch.h) --- */
/* Control plane: packets of ethertype (host order) on l3 ports to our MAC, a
 * multicast or the broadcast address go to fn, in runs of consecutive packets of
 * that type. owner names the module in 'show modules'. 0, -EEXIST or -ENOSPC. */
int tp_ethertype_register(uint16_t ethertype, tp_input_fn fn, const char *owner);
/* Iterate for show: returns 0 and fills the i-th entry, or -ENOENT. */
int tp_ethertype_get(unsigned int i, uint16_t *ethertype, const char **owner);

/* The l3 mode's first handler: it is given each burst whole (no demultiplexing pass
 * before it), takes the frames of its ethertype, checking their destination MAC
 * itself (ours or a group, else dropped as core.l2_other_host), and writes the
 * others, in order, to others: they then go through the ethertype table. Returns
 * how many it wrote there. One per daemon: the router's IPv4, whose fast test
 * checks MAC, ethertype and header in one compare, so that on a routed port the
 * common case costs nothing more. 0, -EEXIST. */
typedef uint16_t (*tp_l3_first_fn)(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n,
				   struct rte_mbuf **others);
int tp_l3_first_register(uint16_t ethertype, tp_l3_first_fn fn, const char *owner);

/* The l3 mode's input function. */
void tp_l3_input(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n);

/* Hand packets to their ports' input functions (they may come from several ports):
 * for code that held packets back and processes them later. */
void tp_input(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n);

#endif
