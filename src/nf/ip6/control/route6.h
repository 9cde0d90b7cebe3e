/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv6 route table: prefix -> next-hop id, two rte_lpm6 copies behind RCU.
 *
 * DPDK 22.11's rte_lpm6 has no RCU integration: a change made in place rewrites
 * entries a reader may be walking and hands freed tbl8 groups to the next add at
 * once. So there are two copies and a log of changes (decision
 * docs/decisions/0098.md). Readers use the published copy
 * (tp_route6_reader) between two quiescent-state reports; the control plane, the
 * only writer, changes the other copy only when a grace period has passed since it
 * was last published, publishes it, and applies the same changes to the first copy
 * once that one is unread in its turn. The writer never waits: a change made while
 * the spare copy is still in its grace period waits in the log for the next
 * tp_route6_poll (a control-plane poller) and is visible then.
 *
 * Beside the copies the writer keeps an index of the routes (rte_lpm6 cannot be
 * iterated) for show, exact deletes and the next hops' references, and the list of
 * the routes that did not fit: each one's cover (its longest fitting less specific
 * route) holds TP_NH_UNFIT in the copies while it covers one, so the kernel forwards
 * what the data plane cannot. */
#ifndef TP_NF_IP6_ROUTE6_H
#define TP_NF_IP6_ROUTE6_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_lpm6.h>
#include <rte_rcu_qsbr.h>

/* The published copy: readers load it once per burst (tp_route6_reader). */
extern struct rte_lpm6 *tp_route6_lpm;

/* Datapath: the copy to look up in until the next quiescent-state report. */
static inline const struct rte_lpm6 *tp_route6_reader(void)
{
	return __atomic_load_n(&tp_route6_lpm, __ATOMIC_ACQUIRE);
}

/* One route as the index holds it. */
struct tp_route6 {
	uint8_t ip[16]; /* masked to depth */
	uint8_t depth;
	uint8_t fit;   /* 1 once an LPM copy took it; 0 waiting or did not fit */
	uint8_t unfit; /* the LPM had no room for it (rules or tbl8 groups) */
	uint8_t pad;
	uint32_t nh; /* next-hop id (nexthop.h) */
	/* unfit routes this one covers (the longest fitting route over them): while
	 * above 0 its LPM rule holds TP_NH_UNFIT, so their packets and its own go to the
	 * kernel, which has them all (as ip4's covers, nf/ip4/control/README.md) */
	uint32_t unfit_below;
	struct tp_route6 *cover; /* an unfit route's cover, or NULL (none: no route) */
};

/* Called with a next-hop id no copy refers to any more (a route deleted or given
 * another next hop), once no reader can hold it: the owner drops its reference. */
typedef void (*tp_route6_release_fn)(uint32_t nh);

/* Two copies of max_routes rules and tbl8_groups groups each, readers reporting to
 * qs (NULL: no readers, as in tools). release may be NULL. 0 or a negative errno. */
int tp_route6_init(struct rte_rcu_qsbr *qs, unsigned int max_routes, unsigned int tbl8_groups,
		   tp_route6_release_fn release);
/* Frees both copies and the log (no reader is left); what the log held is released. */
void tp_route6_fini(void);

/* Add ip/depth -> nh, or give the route next hop nh (the old one is released once
 * no copy has it). nh < 2^21 (rte_lpm6's next-hop width). Visible to readers now or
 * after the next tp_route6_poll. 0, -EINVAL, -ENOMEM or -ENOSPC (the index is full). */
int tp_route6_add(const uint8_t ip[16], uint8_t depth, uint32_t nh);
/* Delete ip/depth exactly (its next hop is released once no copy has it).
 * 0 or -ENOENT. */
int tp_route6_del(const uint8_t ip[16], uint8_t depth);
/* The route of exactly ip/depth, or NULL. */
const struct tp_route6 *tp_route6_find(const uint8_t ip[16], uint8_t depth);
/* Iterate: *iter starts at 0; NULL at the end. */
const struct tp_route6 *tp_route6_iterate(uint32_t *iter);
unsigned int tp_route6_count(void);

/* Control-plane poller: apply what waits in the log to a copy no reader holds,
 * publish it. Never blocks. Returns how many changes it applied. */
unsigned int tp_route6_poll(void);
/* Whether room was freed (a route with a rule deleted) since the last retry while
 * routes are unfit. */
bool tp_route6_retry_wanted(void);
/* Try up to budget unfit routes again, oldest attempt first (round the list from
 * where the last retry stopped): each an add logged after the deletes that freed the
 * room, applied at once or after the next tp_route6_poll. A route that fits then
 * leaves the unfit list (refit) and its cover forwards again when it covers no other.
 * Returns how many it logged. Control plane, as ip4's tp_route_retry. */
unsigned int tp_route6_retry(unsigned int budget);
/* Routes waiting for room (their packets go to the kernel through their cover). */
unsigned int tp_route6_unfit_count(void);

/* Changes not yet in both copies (0: the copies are equal). */
unsigned int tp_route6_pending(void);
/* Changes made but not yet visible to readers. */
unsigned int tp_route6_unpublished(void);

struct tp_route6_stats {
	uint64_t publishes;  /* copies published */
	uint64_t applied;    /* changes applied to a copy (each counts twice) */
	uint64_t unfit;	     /* adds the LPM had no room for */
	uint64_t deferred;   /* polls that found the spare copy still in its grace period */
	uint64_t log_max;    /* most changes the log held at once */
	uint64_t cover_lost; /* an unfit route left without its cover's punt (no memory) */
	uint64_t refit;	     /* unfit routes that fitted on a retry */
	uint64_t retries;    /* retries logged (tp_route6_retry) */
};
extern struct tp_route6_stats tp_route6_stats;

#endif
