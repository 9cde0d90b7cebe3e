/* SPDX-License-Identifier: BSD-3-Clause */
/* Neighbour (ARP) table: IPv4 address -> next-hop id, an rte_hash with lock-free reads.
 *
 * The control plane is the only writer. A neighbour entry owns one next-hop
 * entry (control/nexthop.h) holding its MAC and port; routes through the
 * neighbour and the kernel's own neighbour entry each hold a reference. When
 * the last reference goes, the key is deleted and, after an RCU grace period
 * (the defer queue of core/rcu.h: the writer does not wait), the next-hop entry
 * is freed. Readers (any
 * worker) call tp_neigh_lookup() between two quiescent-state reports. */
#ifndef TP_TABLES_NEIGH_H
#define TP_TABLES_NEIGH_H

#include <stdint.h>

#include <rte_rcu_qsbr.h>

/* Create the table (core/rcu.h must be set up). 0 or negative errno. */
int tp_neigh_init(unsigned int max_entries);
void tp_neigh_fini(void);
/* Next-hop id of ip, or -ENOENT. Lock-free; callable from workers. */
int tp_neigh_lookup(uint32_t ip);
/* Get (creating unresolved if absent) the neighbour ip on port and take a reference.
 * Returns the next-hop id or a negative errno. Control plane only. */
int tp_neigh_ref(uint32_t ip, uint16_t port);
/* Drop a reference; the last one deletes the entry (its next hop is freed after an
 * RCU grace period, without waiting). */
void tp_neigh_unref(uint32_t nh);
/* The kernel resolved ip to mac on port (mac != NULL), or forgot it (mac == NULL).
 * Returns the next-hop id (>= 0) the neighbour has after the update, -ENOENT when
 * it was forgotten, or a negative errno. Control plane only. */
int tp_neigh_learn(uint32_t ip, uint16_t port, const uint8_t *mac);
/* Iterate: *iter starts at 0; returns 0 and fills ip/nh, or -ENOENT at the end. */
int tp_neigh_iterate(uint32_t *iter, uint32_t *ip, uint32_t *nh);
unsigned int tp_neigh_count(void);
/* Forget every neighbour the kernel taught us on port (a port being removed; its
 * routes are flushed separately, tp_route_flush_port). Control plane only. */
void tp_neigh_flush_port(uint16_t port);

#endif
