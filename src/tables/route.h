/* SPDX-License-Identifier: BSD-3-Clause */
/* Route table: IPv4 prefix -> next-hop id, rte_lpm with RCU-protected tbl8 reclamation.
 *
 * The control plane is the only writer and also keeps, beside the LPM, a list of
 * the routes it installed (rte_lpm cannot be iterated) with their origin, for
 * show and for mark-and-sweep resynchronisation. Workers read with
 * tp_route_lookup_bulk() between two quiescent-state reports.
 *
 * Kernel routes win over host routes: a resolved neighbour gets a /32 host
 * route only where the kernel has no /32 of its own, and a kernel /32 that is
 * deleted falls back to the neighbour's host route. */
#ifndef TP_TABLES_ROUTE_H
#define TP_TABLES_ROUTE_H

#include <stdint.h>
#include <string.h>

#include <rte_lpm.h>
#include <rte_rcu_qsbr.h>

enum tp_route_type {
	TP_ROUTE_CONNECTED, /* subnet on a port: punt until the neighbour resolves */
	TP_ROUTE_GATEWAY,   /* via a neighbour */
	TP_ROUTE_LOCAL,	    /* one of our addresses (or a broadcast address): punt */
	TP_ROUTE_HOST,	    /* /32 to a resolved neighbour on a connected subnet */
	/* kernel routes of types other than unicast (no port): */
	TP_ROUTE_BLACKHOLE,   /* dropped, silently (RTN_BLACKHOLE) */
	TP_ROUTE_UNREACHABLE, /* the kernel answers Host Unreachable (RTN_UNREACHABLE) */
	TP_ROUTE_PROHIBIT,    /* the kernel answers Administratively Prohibited */
	TP_ROUTE_THROW,	      /* the kernel looks further (RTN_THROW): to the kernel */
};

/* The port of a route that has none (blackhole, unreachable, prohibit, throw). */
#define TP_ROUTE_NO_PORT UINT16_MAX

struct tp_route {
	uint32_t ip; /* host order, masked */
	uint8_t depth;
	uint8_t type;	/* enum tp_route_type */
	uint8_t kernel; /* installed from a kernel route */
	uint8_t pad;
	uint32_t gw; /* gateway (GATEWAY) or neighbour (HOST) */
	uint16_t port;
	uint32_t nh;
	uint32_t gen; /* resync generation */
};

extern struct rte_lpm *tp_route_lpm;

int tp_route_init(struct rte_rcu_qsbr *qs, unsigned int max_routes);
void tp_route_fini(void);

/* Add or replace a kernel route. gw is used for TP_ROUTE_GATEWAY only; port is
 * TP_ROUTE_NO_PORT for the types without one. 0 or negative errno. */
int tp_route_add(uint32_t ip, uint8_t depth, enum tp_route_type type, uint32_t gw, uint16_t port,
		 uint32_t gen);
/* Delete a kernel route. 0 or -ENOENT. */
int tp_route_del(uint32_t ip, uint8_t depth);
/* A neighbour resolved (nh >= 0) or went away (nh < 0): keep its /32 host route in step. */
void tp_route_host_update(uint32_t ip, uint16_t port, int nh);
/* Delete kernel routes whose generation is not gen (after a full resync). Returns how many. */
unsigned int tp_route_sweep(uint32_t gen);
/* Delete every kernel route through port (the port is going away). */
void tp_route_flush_port(uint16_t port);

/* Iterate over installed routes: *iter starts at 0; returns NULL at the end. */
const struct tp_route *tp_route_iterate(uint32_t *iter);
unsigned int tp_route_count(void);
const char *tp_route_type_name(enum tp_route_type t);

/* An LPM entry no lookup returns (depth 63): a "nothing cached" value for callers
 * that keep the last entry they resolved. */
#define TP_ROUTE_ENTRY_NONE UINT32_MAX

/* Datapath: the LPM entry ip (host order) resolves to, read as rte_lpm_lookup()
 * reads it (tbl24, then tbl8 for a tbl24 entry that extends to one): a hit when
 * e & RTE_LPM_LOOKUP_SUCCESS, with next-hop id e & 0xffffff. Two addresses with
 * the same entry have the same next hop, so a caller may compare entries to skip
 * work it did for the previous address. */
static inline uint32_t tp_route_entry(const struct rte_lpm *lpm, uint32_t ip)
{
	uint32_t e;

	memcpy(&e, &lpm->tbl24[ip >> 8], sizeof(e));
	/* the group bit alone first: one test on the common path */
	if (unlikely(e & RTE_LPM_VALID_EXT_ENTRY_BITMASK & ~RTE_LPM_LOOKUP_SUCCESS) &&
	    (e & RTE_LPM_VALID_EXT_ENTRY_BITMASK) == RTE_LPM_VALID_EXT_ENTRY_BITMASK)
		memcpy(&e,
		       &lpm->tbl8[(uint8_t)ip + (e & 0x00ffffff) * RTE_LPM_TBL8_GROUP_NUM_ENTRIES],
		       sizeof(e));
	return e;
}

/* Datapath: next-hop ids for n addresses (host order); a miss gives UINT32_MAX.
 * Four at a time with rte_lpm_lookupx4 (SSE), as l3fwd does. */
static inline void tp_route_lookup_bulk(const uint32_t *ips, uint32_t *nhs, unsigned int n)
{
	unsigned int i = 0;

	for (; i + 4 <= n; i += 4) {
		xmm_t v = _mm_loadu_si128((const __m128i *)(ips + i));
		rte_lpm_lookupx4(tp_route_lpm, v, nhs + i, UINT32_MAX);
	}
	for (; i < n; i++)
		if (rte_lpm_lookup(tp_route_lpm, ips[i], &nhs[i]) != 0)
			nhs[i] = UINT32_MAX;
}

#endif
