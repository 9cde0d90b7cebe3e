/* SPDX-License-Identifier: BSD-3-Clause */
/* Route table: IPv4 prefix -> next-hop id, rte_lpm with RCU-protected tbl8 reclamation.
 *
 * The control plane is the only writer and also keeps, beside the LPM, an index
 * of the routes it installed (rte_lpm cannot be iterated) for show and for
 * mark-and-sweep resynchronisation. Workers read with tp_route_lookup_bulk()
 * between two quiescent-state reports.
 *
 * A prefix may have several kernel routes (paths: tables, metrics, next hops);
 * the one the kernel itself uses is installed, and a delete removes exactly the
 * path the kernel deleted. Kernel routes win over host routes: a resolved
 * neighbour's /32 host route is the last path of its prefix.
 *
 * A route that does not fit (rte_lpm's rules or tbl8 groups, the next-hop table,
 * a hash full) is kept on the unfit list, counted by reason and retried when
 * space frees; until it fits, the longest installed route covering it punts
 * (TP_NH_UNFIT), so its traffic goes to the kernel, never through the less
 * specific route. See src/tables/README.md. */
#ifndef TP_TABLES_ROUTE_H
#define TP_TABLES_ROUTE_H

#include <stdbool.h>
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
	TP_ROUTE_MULTIPATH,   /* via several gateways (RTA_MULTIPATH): a next-hop group */
};

/* The port of a route that has none (blackhole, unreachable, prohibit, throw). */
#define TP_ROUTE_NO_PORT UINT16_MAX

/* Why a route is not (fully) in the data plane. */
enum tp_route_unfit {
	TP_UNFIT_NONE,
	TP_UNFIT_LPM_RULES,  /* rte_lpm's rule table is full (max_routes) */
	TP_UNFIT_LPM_TBL8,   /* a /25../32 needs a tbl8 group and none is free */
	TP_UNFIT_INDEX,	     /* the route index (a hash) is full */
	TP_UNFIT_NEXTHOPS,   /* the next-hop table is full: installed, punting */
	TP_UNFIT_NEIGHBOURS, /* the neighbour hash is full: installed, punting */
	TP_UNFIT_NOMEM,	     /* no memory for the unfit list itself (not tracked) */
	TP_UNFIT_GROUPS,     /* the next-hop group table is full: installed, punting */
	TP_UNFIT_GROUP_SIZE, /* more than TP_NHG_MEMBERS live next hops: installed, punting */
	TP_UNFIT_REASONS,
};

/* One next hop of a multipath route (a struct rtnexthop). */
struct tp_route_hop {
	uint32_t gw;	 /* gateway, host order */
	uint16_t port;	 /* the port it is on */
	uint16_t weight; /* 1..256: rtnh_hops + 1 */
	uint8_t dead;	 /* RTNH_F_DEAD: left out of the group; not part of the identity */
	uint8_t pad[3];
};

/* One kernel route for a prefix, as the kernel identifies it (or the neighbour's
 * host route: table 0). */
struct tp_route_path {
	uint32_t table;	 /* RT_TABLE_LOCAL, RT_TABLE_MAIN; 0 for a host route */
	uint32_t metric; /* RTA_PRIORITY */
	uint32_t gw;	 /* gateway (GATEWAY) or neighbour (HOST), else 0 */
	uint16_t port;	 /* TP_ROUTE_NO_PORT for the types without one */
	uint8_t type;	 /* enum tp_route_type */
	uint8_t pad;
	uint32_t gen;		   /* resync generation */
	uint16_t n_hops;	   /* TP_ROUTE_MULTIPATH: its next hops, hops[0..n_hops) */
	struct tp_route_hop *hops; /* owned by the route (tp_route_add_path copies them) */
	uint32_t nhid;		   /* the kernel's nexthop object (RTA_NH_ID), 0 for none */
};

struct tp_route {
	uint32_t ip; /* host order, masked */
	uint8_t depth;
	/* the installed path's (paths[0]) type, origin, gateway and port */
	uint8_t type;	/* enum tp_route_type */
	uint8_t kernel; /* installed from a kernel route */
	uint8_t unfit;	/* enum tp_route_unfit: TP_UNFIT_NONE when it is in the data plane */
	uint32_t gw;
	uint16_t port;
	uint8_t installed; /* has an LPM rule (else punted for by its cover) */
	uint8_t listed;	   /* on the unfit list (unfit != TP_UNFIT_NONE) */
	uint8_t dying;
	uint32_t nh;	 /* the next hop it forwards to (TP_NH_UNFIT: punts), or a group (nhg.h) */
	uint32_t gen;	 /* paths[0]'s */
	uint32_t metric; /* paths[0]'s */
	uint32_t table;	 /* paths[0]'s */
	uint32_t unfit_below;	     /* unfit routes it covers: while > 0 the LPM punts it */
	struct tp_route *cover;	     /* unfit: the installed route that punts for it */
	struct tp_route_path *paths; /* best first */
	uint16_t n_paths, cap_paths;
};

struct tp_route_stats {
	uint64_t unfit[TP_UNFIT_REASONS]; /* routes that did not fit, by reason */
	uint64_t refit;			  /* unfit routes installed later */
	uint64_t retries;		  /* installs retried */
};

extern struct tp_route_stats tp_route_stats;
extern struct rte_lpm *tp_route_lpm;

/* max_routes: rte_lpm rules (every installed route is one); tbl8_groups: groups for
 * routes longer than /24 (each /24 holding one needs a group). 0 or negative errno. */
int tp_route_init2(struct rte_rcu_qsbr *qs, unsigned int max_routes, unsigned int tbl8_groups);
/* The next-hop groups (ECMP routes) the next tp_route_init2 makes room for (1..65536;
 * TP_NHG_DEFAULT unless set). */
void tp_route_set_groups(unsigned int groups);
/* tp_route_init2 with 4096 tbl8 groups. */
int tp_route_init(struct rte_rcu_qsbr *qs, unsigned int max_routes);
void tp_route_fini(void);

/* Add a kernel route path (p->table != 0; a multipath one has 1 to 65535 hops, copied).
 * replace: it replaces the kernel's first
 * route of the same table and metric (NLM_F_REPLACE); otherwise a path equal in
 * table, metric, type, gateway and port is refreshed (its gen), or it is added.
 * 0 when the prefix's installed path is in the data plane; a positive enum
 * tp_route_unfit when the route is known but does not fit (its traffic goes to the
 * kernel: tp_route_unfit_name()); or a negative errno (bad input, no memory). */
int tp_route_add_path(uint32_t ip, uint8_t depth, const struct tp_route_path *p, bool replace);
/* The kernel's nexthop object nhid (a group) now has hops[0..n): the kernel paths of
 * that object get them (n == 0: they are deleted), as the kernel's routes do without
 * announcing them again. Returns how many routes changed. */
unsigned int tp_route_nhid_update(uint32_t nhid, const struct tp_route_hop *hops, unsigned int n);
/* The main table's metric 0 route through hops[0..n) (replacing it), as tp_route_add. */
int tp_route_add_multipath(uint32_t ip, uint8_t depth, const struct tp_route_hop *hops,
			   unsigned int n, uint32_t gen);
/* Delete the kernel path equal to p in table, metric, type, gateway and port (and, for
 * a multipath one, hops: gateway, port and weight of each, in order).
 * 0 or -ENOENT. */
int tp_route_del_path(uint32_t ip, uint8_t depth, const struct tp_route_path *p);
/* Add or replace the main table's metric 0 route (what tests and tools want). gw is
 * used for TP_ROUTE_GATEWAY only; port is TP_ROUTE_NO_PORT for the types without
 * one. As tp_route_add_path. */
int tp_route_add(uint32_t ip, uint8_t depth, enum tp_route_type type, uint32_t gw, uint16_t port,
		 uint32_t gen);
/* Delete every kernel path of the prefix. 0 or -ENOENT. */
int tp_route_del(uint32_t ip, uint8_t depth);
/* A neighbour resolved (nh >= 0) or went away (nh < 0): keep its /32 host route in step. */
void tp_route_host_update(uint32_t ip, uint16_t port, int nh);
/* Delete kernel paths whose generation is not gen (after a full resync). Returns how many. */
unsigned int tp_route_sweep(uint32_t gen);
/* Delete every path through port (the port is going away). */
void tp_route_flush_port(uint16_t port);
/* The route of exactly ip/depth (installed or unfit), or NULL. */
const struct tp_route *tp_route_find(uint32_t ip, uint8_t depth);

/* Retry up to budget unfit routes (oldest attempt first). Returns how many now fit. */
unsigned int tp_route_retry(unsigned int budget);
/* True when unfit routes wait and space was freed since the last retry. */
bool tp_route_retry_wanted(void);
unsigned int tp_route_unfit_count(void);
/* Installed routes that punt because they cover unfit ones. */
unsigned int tp_route_unfit_covers(void);
const char *tp_route_unfit_name(enum tp_route_unfit u);
/* What the reason means, for an error message ("the LPM's rules are full"). */
const char *tp_route_unfit_text(enum tp_route_unfit u);
/* Capacity, for messages: max rules and tbl8 groups. */
unsigned int tp_route_max_routes(void);
unsigned int tp_route_tbl8_groups(void);

/* Iterate over installed routes, then unfit ones: *iter starts at 0; NULL at the end. */
const struct tp_route *tp_route_iterate(uint32_t *iter);
/* Installed routes (LPM rules). */
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
