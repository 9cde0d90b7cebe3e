/* SPDX-License-Identifier: BSD-3-Clause */
/* The L2 switch (seed 003): bridge domains over "l2" ports, 802.1Q access and
 * trunk ports, MAC learning with aging and station moves, flooding within the
 * bridge and VLAN; and service chains ("chain" ports cross-connected through NF
 * ports in order).
 *
 * Learning: workers never write the MAC table. A worker that sees an unknown
 * source, or a known one on another port, passes a learn event to the control
 * plane through its own ring (single producer, single consumer); the control plane,
 * the table's only writer, adds or moves the entry (rte_hash, lock-free readers,
 * RCU reclamation). The only thing a worker writes is an entry's last-seen time,
 * a single aligned 64-bit store that readers never act on (the control plane's
 * aging reads it), at most once a second per entry.
 *
 * Limits (what an outsider can fill): each port's MAC limit and each bridge's share
 * of the table are counted by the control plane, which sets the at_limit flags the
 * workers read (a new source then dropped); learn events and flooded frames go
 * through token buckets per port on each lcore (struct l2_rate, l2_bucket_take).
 *
 * Ownership: bridges, members lists and MAC entries belong to the control plane;
 * a bridge's members list (port -> its L2 configuration) is published with an
 * atomic pointer store and the old one freed after a grace period. */
#ifndef TP_NF_L2_H
#define TP_NF_L2_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_ether.h>
#include <rte_ring.h>

#include "../../core/counter.h"
#include "../../core/limits.h"
#include "../../core/nf.h"

#define L2_BRIDGES_MAX 64
#define L2_NAME_MAX 16
#define L2_MACS_DEFAULT 65536
#define L2_PORT_MACS_DEFAULT 1024  /* a port's MAC limit unless given ("protect") */
#define L2_LEARN_RATE_DEFAULT 1000 /* a port's learn events a second, per lcore */
#define L2_BUCKET_MIN 32	   /* the smallest burst of a port's token buckets */
#define L2_AGING_DEFAULT 300	   /* seconds, as 802.1D's default */
#define L2_LEARN_RING 4096
#define L2_LEARN_CACHE 256  /* per lcore: learn events recently sent */
#define L2_LOOKUP_CACHE 256 /* per lcore: MAC table lookups that found an entry */
#define L2_NO_PORT UINT16_MAX

/* X(enum suffix, name, kind) */
#define L2_COUNTERS(X)                                                                             \
	X(RX, "rx", EVENT)                                                                         \
	X(UNICAST, "unicast", EVENT)                                                               \
	X(FLOODED, "flooded", EVENT)                                                               \
	X(FLOOD_COPIES, "flood_copies", EVENT)                                                     \
	X(LEARN_EVENTS, "learn_events", EVENT)                                                     \
	X(LEARN_RING_FULL, "learn_ring_full", EVENT)                                               \
	X(LEARN_RATELIMITED, "learn_ratelimited", EVENT)                                           \
	X(BPDU_FORWARDED, "bpdu_forwarded", EVENT)                                                 \
	X(STATIC_CONFLICT, "static_conflict", EVENT)                                               \
	X(CHAIN_FWD, "chain_forwarded", EVENT)                                                     \
	X(RUNT, "runt", DROP)                                                                      \
	X(BAD_SRC_MAC, "bad_src_mac", DROP)                                                        \
	X(LINK_LOCAL, "link_local", DROP)                                                          \
	X(VLAN_NOT_MEMBER, "vlan_not_member", DROP)                                                \
	X(UNTAGGED_ON_TRUNK, "untagged_on_trunk", DROP)                                            \
	X(FILTERED, "filtered_same_port", DROP)                                                    \
	X(NO_DESTINATION, "no_destination", DROP)                                                  \
	X(MAC_LIMIT, "mac_limit", DROP)                                                            \
	X(BRIDGE_MAC_LIMIT, "bridge_mac_limit", DROP)                                              \
	X(DOUBLE_TAGGED, "double_tagged", DROP)                                                    \
	X(STORM_BROADCAST, "storm_broadcast", DROP)                                                \
	X(STORM_UNKNOWN, "storm_unknown", DROP)                                                    \
	X(FLOOD_COPY_FAILED, "flood_copy_failed", DROP)                                            \
	X(TAG_NO_ROOM, "tag_no_headroom", DROP)                                                    \
	X(CHAIN_NF_DOWN, "chain_nf_down", DROP)                                                    \
	X(TO_PORT_MAC, "to_port_mac", DROP)                                                        \
	X(EXCEEDS_MTU, "exceeds_mtu", DROP)                                                        \
	X(BPDU_MALFORMED, "bpdu_malformed", DROP)                                                  \
	X(STP_DISCARDING, "stp_discarding", DROP)                                                  \
	X(STP_LEARNING, "stp_learning", DROP)                                                      \
	X(BPDU_TO_CONTROL, "bpdu_to_control", PUNT)

/* clang-format off */
enum l2_ctr {
#define X(e, n, k) L2_CTR_##e,
	L2_COUNTERS(X)
#undef X
	L2_CTR_MAX
};
/* clang-format on */

extern struct tp_nf tp_l2_nf;
#define L2_CTR(id) (tp_l2_nf.ctr_base + L2_CTR_##id)

/* MAC table key: 10 bytes, no padding */
struct l2_key {
	struct rte_ether_addr mac;
	uint16_t vlan;
	uint16_t bridge;
};
_Static_assert(sizeof(struct l2_key) == 10, "the MAC key has no padding");

/* A key to hash, on its own: the hash (rte_jhash) reads a 10-byte key as three
 * 32-bit words, 2 bytes past its end, so it gets room after it and a 4-byte
 * alignment (the keys in events and entries have both already). */
struct l2_key_buf {
	struct l2_key k;
	uint16_t pad;
} __rte_aligned(4);

struct l2_mac {
	uint64_t seen; /* TSC: written by workers (see above), read by aging */
	struct l2_key key;
	uint16_t port; /* atomic: a move rewrites it */
	uint8_t is_static;
	uint8_t used;
};

/* A token bucket's configuration: cost TSC cycles of credit a frame, at most max
 * (cost 0: no limit). Set by the control plane from a rate in frames a second. */
struct l2_rate {
	uint64_t cost;
	uint64_t max;
	uint32_t pps; /* as configured, for show; 0: off */
};

/* One lcore's bucket for one port: credit in TSC cycles, refilled up to max. */
struct l2_bucket {
	uint64_t tokens;
	uint64_t last;
};

enum { L2_TB_LEARN, L2_TB_BROADCAST, L2_TB_UNKNOWN, L2_TB_MAX };

/* A port's configuration in its bridge: the "l2" mode's context. */
struct l2_port {
	uint16_t port;
	uint16_t pvid;	    /* access VLAN, or a trunk's native VLAN (0: none) */
	uint8_t trunk;	    /* tagged VLANs allowed: the bitmap */
	uint8_t at_limit;   /* control plane: the port reached its MAC limit */
	uint8_t admit_all;  /* an access port admits frames tagged with its VLAN too */
	uint8_t stp;	    /* enum l2_stp_state; atomic (control plane: control/stp.c) */
	uint32_t mac_limit; /* 0: none */
	/* per lcore: learn events sent, group-addressed (broadcast, multicast) and
	 * unknown-unicast frames flooded (storm control) */
	struct l2_rate rate[L2_TB_MAX];
	struct l2_bridge *br;
	uint64_t allowed[4096 / 64];
	/* control plane: its spanning-tree settings (0: the default); after what the
	 * workers read, which keeps its layout */
	uint32_t stp_cost;
	uint8_t stp_prio_set, stp_prio, stp_edge; /* stp_edge: 0 auto, 1 yes, 2 no */
};

/* A port's spanning-tree state as the data plane sees it (802.1D-2004 17.30); with
 * the bridge's STP off, forwarding. 0 is forwarding: the fast path's only test is
 * for non-zero, once per burst. */
enum l2_stp_state {
	L2_STP_FORWARDING = 0,
	L2_STP_LEARNING,   /* learns sources, forwards nothing (stp_learning) */
	L2_STP_DISCARDING, /* neither (stp_discarding); its BPDUs still go to the STP */
};

/* A bridge's members, published whole under RCU. list/by_port: the ports frames go
 * out of (every member with STP off; the forwarding ones with STP on); all/cfg:
 * every member, whatever its state (its MACs are the bridge's own, the control
 * plane's view). */
struct l2_members {
	uint16_t n;
	uint16_t list[TP_MAX_PORTS];
	struct l2_port *by_port[TP_MAX_PORTS];
	uint16_t n_all;
	uint16_t all[TP_MAX_PORTS];
	struct l2_port *cfg[TP_MAX_PORTS];
};

/* What a bridge does with BPDUs (frames to the bridge group address
 * 01:80:c2:00:00:00, 802.1Q 8.6.3 Table 8-1). */
enum l2_bpdu {
	L2_BPDU_FORWARD, /* no STP of its own (the default): flooded in the ingress port's
			  * VLAN like any group frame, as the Linux bridge with stp_state 0
			  * (br_input.c), so that the neighbours' STP sees a loop through it */
	L2_BPDU_DROP,	 /* filtered, counted as link_local (OVS's default) */
	L2_BPDU_STP,	 /* the bridge runs STP ('stp on'): consumed, checked with the BPDU
			  * codec (bpdu_malformed) and punted in the control class to the
			  * control plane (bpdu_to_control) */
};

struct l2_stp;

struct l2_bridge {
	uint16_t id;
	bool used;
	uint8_t at_limit; /* control plane: the bridge holds its share of the table */
	uint8_t bpdu;	  /* enum l2_bpdu; atomic */
	char name[L2_NAME_MAX];
	uint32_t aging_s;
	uint32_t mac_limit;	    /* its share of the MAC table; 0: the fair share */
	struct l2_members *members; /* RCU */
	/* control plane */
	struct l2_stp *stp; /* its spanning tree (control/stp.c) */
	uint64_t learned, moves, aged, limit_refused, bridge_limit_refused, table_full;
};

/* A learn event, worker -> control plane: 16 bytes */
struct l2_learn {
	struct l2_key key;
	uint16_t port;
	uint32_t pad;
};

struct l2_lcore {
	struct rte_ring *learn;
	struct {
		struct l2_key key;
		uint16_t port;
		uint64_t tsc;
	} sent[L2_LEARN_CACHE];
	struct {
		struct l2_key key;
		uint32_t idx;
		uint64_t gen; /* l2_gen when found; 0: empty */
	} found[L2_LOOKUP_CACHE];
	struct l2_bucket tb[TP_MAX_PORTS][L2_TB_MAX]; /* the ports' rates (struct l2_port) */
};

/* chain ports: where what the port receives goes */
struct l2_xc {
	uint16_t out; /* atomic; L2_NO_PORT: drop (chain_nf_down) */
	uint16_t port;
};

extern struct rte_hash *l2_macs;
extern struct l2_mac *l2_mac_table;
extern uint64_t l2_gen; /* bumped once a removed entry left the hash (starts at 1) */
extern struct l2_bridge l2_bridges[L2_BRIDGES_MAX];

void l2_input(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n);
void l2_chain_input(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n);

/* Control plane: the learn events every lcore queued, applied to the MAC table at
 * TSC now (the module's timer calls it every 10 ms with rte_rdtsc(); the fuzzer
 * with its own clock). */
void tp_l2_learn_drain(uint64_t now);
/* Control plane: remove the dynamic entries not seen for their bridge's aging time. */
void tp_l2_age(uint64_t now);
/* Control plane: dynamic MAC entries learned on port, and in bridge b. */
uint32_t tp_l2_port_macs(uint16_t port);
uint32_t tp_l2_bridge_macs(uint16_t b);
/* Control plane: bridge b's share of the MAC table (its mac-limit, or the fair
 * share: the table's size over the number of bridges). */
uint32_t tp_l2_bridge_limit(uint16_t b);
struct tp_metrics;
/* The module's metrics (struct tp_nf's metrics callback, cli.c). */
void l2_metrics(struct tp_metrics *m);
/* Control plane: the configuration of port, if it is in a bridge, else NULL. */
const struct l2_port *tp_l2_port(uint16_t port);

/* Take one frame's credit from b for rate r at TSC now: true if there was some (or
 * r has no limit). The lcore's own bucket: no atomics. */
static inline bool l2_bucket_take(struct l2_bucket *b, const struct l2_rate *r, uint64_t now)
{
	uint64_t t;

	if (r->cost == 0)
		return true;
	t = b->tokens + (now - b->last); /* a fresh bucket (last 0) starts full */
	b->last = now;
	if (t > r->max || t < b->tokens) /* full, or the sum wrapped */
		t = r->max;
	if (t < r->cost) {
		b->tokens = t;
		return false;
	}
	b->tokens = t - r->cost;
	return true;
}

static inline bool l2_vlan_allowed(const struct l2_port *p, uint16_t vid)
{
	if (vid == p->pvid && vid != 0)
		return true;
	return p->trunk && (p->allowed[vid >> 6] >> (vid & 63)) & 1;
}

#endif
