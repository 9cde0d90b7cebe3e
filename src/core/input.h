/* SPDX-License-Identifier: BSD-3-Clause */
/* Packet entry points: every port has a mode, and the mode's input function gets
 * every burst the port receives (published with RCU in the interface table).
 *
 * Modes are registered by modules (TP_PORT_MODE_REGISTER): the router's "l3" mode
 * (nf/ip4/l3mode.h) demultiplexes by destination MAC and ethertype, and is a new
 * port's mode; other modes take the whole port (an L2 bridge, an NDN face, an
 * application that owns the port). The core has only "none". Input functions
 * consume every mbuf they are given (forward, hand on, punt or drop it, counted). */
#ifndef TP_CORE_INPUT_H
#define TP_CORE_INPUT_H

#include <stdbool.h>
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
	bool is_default; /* every new port's mode (one module's: the router's l3) */
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
/* The mode a port is in when it is added: the registered mode with is_default set
 * (ip4's "l3", nf/ip4/l3mode.h), else "none". */
struct tp_port_mode *tp_port_mode_default(void);

/* Hand packets to their ports' input functions (they may come from several ports):
 * for code that held packets back and processes them later. */
void tp_input(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n);

#endif
