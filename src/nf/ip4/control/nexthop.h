/* SPDX-License-Identifier: BSD-3-Clause */
/* Next-hop table: an array indexed by the id the route table returns.
 *
 * Each entry's forwarding state is one 64-bit word (destination MAC, output
 * port, flags) written atomically by the control plane and read lock-free by
 * workers, so a reader never sees half an update. Entry 0 is the punt next hop:
 * local addresses and connected subnets point to it, and packets that reach it
 * go to the control plane. Every other entry is a neighbour (gateway or host on
 * a connected subnet; entry 1 is the same for connected subnets, counted as
 * unresolved), created by the neighbour table and freed by it only
 * after an RCU grace period; except entries 2-5, what the kernel's blackhole,
 * unreachable and prohibit routes point to, and what a route punts through while
 * a more specific one does not fit in the route table (neither resolved nor punt:
 * the fast path tells them by their id). Control-plane only: alloc, free, set. */
#ifndef TP_TABLES_NEXTHOP_H
#define TP_TABLES_NEXTHOP_H

#include <stdbool.h>
#include <stdint.h>

#define TP_NH_MAX (1u << 16)
#define TP_NH_PUNT 0u	     /* local addresses: punt */
#define TP_NH_CONNECTED 1u   /* connected subnets, no /32 for the neighbour yet: punt */
#define TP_NH_BLACKHOLE 2u   /* kernel blackhole route: drop */
#define TP_NH_UNREACHABLE 3u /* kernel unreachable (or throw) route: the kernel answers */
#define TP_NH_PROHIBIT 4u    /* kernel prohibit route: the kernel answers */
#define TP_NH_UNFIT 5u	     /* a route that does not fit, or covers one: the kernel forwards */
#define TP_NH_FIRST 6u	     /* first neighbour entry */

#define TP_NH_F_RESOLVED 0x01u /* MAC known: forward */
#define TP_NH_F_PUNT 0x02u     /* hand to the control plane */

struct tp_nexthop {
	uint64_t l2;   /* mac[0..5] in bytes 0-5, port in byte 6, flags in byte 7 */
	uint32_t ip;   /* neighbour address, host order (0 for the punt entry) */
	uint16_t port; /* port the neighbour is on */
	uint8_t in_use;
	uint8_t learned; /* control plane only: the kernel has a valid neighbour entry */
	uint32_t refcnt; /* control plane only: routes + the kernel neighbour */
	uint32_t next_free;
	uint32_t gen; /* control plane only: resync generation of the kernel entry */
};

extern struct tp_nexthop *tp_nh_table;

static inline uint64_t tp_nh_l2_make(const uint8_t mac[6], uint16_t port, uint8_t flags)
{
	uint64_t w = 0;
	for (int i = 0; i < 6; i++)
		w |= (uint64_t)mac[i] << (8 * i);
	return w | ((uint64_t)(port & 0xff) << 48) | ((uint64_t)flags << 56);
}

static inline uint8_t tp_nh_l2_flags(uint64_t w)
{
	return (uint8_t)(w >> 56);
}

static inline uint16_t tp_nh_l2_port(uint64_t w)
{
	return (uint16_t)((w >> 48) & 0xff);
}

static inline uint64_t tp_nh_l2_load(uint32_t id)
{
	return __atomic_load_n(&tp_nh_table[id].l2, __ATOMIC_ACQUIRE);
}

static inline int tp_nh_special(uint32_t id)
{
	return id < TP_NH_FIRST;
}

/* Allocate the table of n entries (TP_NH_FIRST < n <= TP_NH_MAX; the special entries
 * set up). 0, -EINVAL or -ENOMEM. */
int tp_nh_init_size(unsigned int n);
/* tp_nh_init_size(TP_NH_MAX). */
int tp_nh_init(void);
void tp_nh_fini(void);
/* Take a free entry for neighbour ip on port, unresolved, refcnt 0. Id or -ENOSPC. */
int tp_nh_alloc(uint32_t ip, uint16_t port);
/* Return an entry to the free list. Caller guarantees no reader can still hold it. */
void tp_nh_free(uint32_t id);
/* Publish forwarding state for id (one atomic store). */
void tp_nh_set_l2(uint32_t id, const uint8_t mac[6], uint16_t port, uint8_t flags);
/* True when no entry is free. */
bool tp_nh_full(void);
/* Number of entries in use, the punt entry included. */
unsigned int tp_nh_count(void);

#endif
