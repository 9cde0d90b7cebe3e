/* SPDX-License-Identifier: BSD-3-Clause */
/* The NDN forwarder (seed 002, after NDN-DPDK's design): faces, the FIB, per
 * forwarding-lcore PIT-CS tables, the NDT, management.
 *
 * Threads. The control plane creates faces and writes the FIB (RCU: entries are
 * replaced whole and freed after a grace period); data-plane lcores read them.
 * Every lcore that receives from a port with NDN faces runs the input stage
 * (decode, dispatch); forwarding contexts (one per forwarding lcore: the lcores of
 * role "forwarding", else every "worker") each own a PIT-CS and three input rings
 * (Interests, Data, Nacks). The input stage hands an Interest to the context the
 * NDT names for its first N name components, a Data or Nack to the one named by
 * its PIT token's first byte; when that context is the lcore's own, it runs the
 * forwarding stage at once (run to completion), else it enqueues.
 *
 * Management Interests (/localhost/nfd, /localhop/nfd) go to the internal face 0:
 * a ring to the control plane, which answers with Data put on the context's Data
 * ring, as any face's Data. */
#ifndef TP_NF_NDN_H
#define TP_NF_NDN_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "../../core/mbuf.h"
#include "../../core/nf.h"
#include "../../core/ring.h"
#include "../../core/worker.h"
#include "../../proto/ndn.h"

#define NDN_FACES_MAX 1024
#define NDN_FACE_INTERNAL 0 /* management, on the control plane */
#define NDN_CTX_MAX 8	    /* forwarding contexts */
#define NDN_OUT_MAX 8	    /* output lcores */
#define NDN_NH_MAX 8	    /* next hops per FIB entry */
#define NDN_PIT_IN_MAX 4    /* in-records per PIT entry */
#define NDN_PIT_OUT_MAX 4   /* out-records per PIT entry */
#define NDN_TOKEN_LEN 8	    /* our PIT tokens: context, generation (3), PIT index (4) */
#define NDN_UDP_PORT 6363
#define NDN_ETHERTYPE 0x8624

/* --- NDNLPv2 fragmentation: lp.c reassembles what faces receive, face.c fragments
 * what they send to the face's MTU --- */
#define NDN_LP_TIMEOUT_MS 500 /* a partial packet's, after its last fragment (NFD's) */
#define NDN_LP_POOL_SIZE 2047 /* mbufs for reassembled packets, all lcores */
#define NDN_LP_DATA_ROOM 9216 /* the longest reassembled packet */

/* Module counters (in NDN_COUNTERS): each fragment lost is counted once, by why.
 * X(enum suffix, name, kind) */
#define NDN_LP_COUNTERS(X)                                                                         \
	X(LP_BAD_FRAGMENT, "lp_bad_fragment", DROP)                                                \
	X(LP_DUPLICATE, "lp_fragment_duplicate", DROP)                                             \
	X(LP_EVICTED, "lp_fragment_evicted", DROP)                                                 \
	X(LP_TIMEOUT, "lp_reassembly_timeout", DROP)                                               \
	X(LP_TOO_LONG, "lp_reassembled_too_long", DROP)                                            \
	X(LP_REASSEMBLED, "lp_reassembled", EVENT)
/* Per face (in NDN_FACE_COUNTERS): fragments received and sent. */
#define NDN_LP_FACE_COUNTERS(X)                                                                    \
	X(RX_FRAGMENTS, "rx_fragments")                                                            \
	X(TX_FRAGMENTS, "tx_fragments")

/* Per data-plane lcore (struct ndn_lcore's lp). */
struct ndn_lp_lcore {
	uint64_t next_expiry;		   /* TSC: the earliest partial packet's deadline */
	struct tp_ndn_reasm reasm;	   /* flows are faces; TSC deadlines */
	uint64_t seq_hi;		   /* the lcore's high byte of the Sequences it sends */
	uint64_t tx_seq[NDN_FACES_MAX];	   /* per face: the next Sequence's low 56 bits */
	uint8_t tok[TP_NDN_PIT_TOKEN_MAX]; /* the PIT token of the packet just reassembled */
};
/* Reassembled packets: one segment of up to NDN_LP_DATA_ROOM bytes each. */
extern struct rte_mempool *ndn_lp_pool;
/* NDNLPv2 fragments held by the lcores' reassemblers: copies (lp.c) */
extern struct rte_mempool *ndn_frag_pool;

/* Control plane, at 'ndn enable': the pool. 0 or negative errno. */
int ndn_lp_init(void);
/* Control plane, before the lcore starts: its reassembler and Sequence numbers. */
void ndn_lp_lcore_init(struct tp_worker *w, struct ndn_lp_lcore *lp);
/* Data plane: fragment m (decoded into lp, m->data_len bytes from the LpPacket) from
 * face. NULL when it is held or dropped (counted); else the packet it completes, in a
 * new mbuf of ndn_lp_pool holding that packet alone, lp rewritten as if it had come
 * whole (its first fragment's PIT token and Nack). Consumes m, and the fragments. */
struct rte_mbuf *ndn_lp_reassemble(struct tp_worker *w, struct rte_mbuf *m, uint16_t face,
				   struct tp_ndn_lp *lp);
/* Data plane, from the per-loop hook once w->now reaches lp->next_expiry: free the
 * fragments of partial packets past their deadline (counted); how many. */
unsigned int ndn_lp_expire(struct tp_worker *w, struct ndn_lp_lcore *lp);

/* Module counters (per port and lcore, core/counter.h). X(enum suffix, name, kind) */
#define NDN_COUNTERS(X)                                                                            \
	X(RX_INTEREST, "rx_interest", EVENT)                                                       \
	X(RX_DATA, "rx_data", EVENT)                                                               \
	X(RX_NACK, "rx_nack", EVENT)                                                               \
	X(NO_FACE, "no_face", DROP)                                                                \
	X(FACE_DOWN, "face_down", DROP)                                                            \
	X(DECODE, "malformed", DROP)                                                               \
	NDN_LP_COUNTERS(X)                                                                         \
	X(MULTISEG, "multi_segment", DROP)                                                         \
	X(HOP_LIMIT, "hop_limit_zero", DROP)                                                       \
	X(HOP_LIMIT_OUT, "hop_limit_zero_next_hop_refused", EVENT)                                 \
	X(LOOP_DROPPED, "interest_loop_dropped", DROP)                                             \
	X(LOCALHOST, "localhost_from_non_local_face", DROP)                                        \
	X(UNSOLICITED, "data_unsolicited", DROP)                                                   \
	X(NACK_UNSOLICITED, "nack_unsolicited", DROP)                                              \
	X(DATA_EMPTY_NAME, "data_empty_name", DROP)                                                \
	X(NACK_NO_NONCE, "nack_without_nonce", DROP)                                               \
	X(NACK_MISMATCH, "nack_interest_mismatch", DROP)                                           \
	X(LOCALHOST_DATA, "localhost_data_from_non_local_face", DROP)                              \
	X(LOCALHOST_HOP, "localhost_next_hop_refused", EVENT)                                      \
	X(LOCALHOP_HOP, "localhop_next_hop_refused", EVENT)                                        \
	X(NONCE_ADDED, "interest_nonce_added", EVENT)                                              \
	X(PIT_FULL, "pit_full", DROP)                                                              \
	X(PIT_FACE_QUOTA, "pit_face_quota_nacked", EVENT)                                          \
	X(IN_RECORDS_FULL, "pit_in_records_full", DROP)                                            \
	X(SUPPRESSED, "interest_suppressed", DROP)                                                 \
	X(AGGREGATED, "interest_aggregated", EVENT)                                                \
	X(NOMBUF, "no_mbuf", DROP)                                                                 \
	X(MTU, "mtu_exceeded", DROP)                                                               \
	X(MGMT_FULL, "management_ring_full", DROP)                                                 \
	X(NEW_FACE_FULL, "new_face_ring_full", DROP)                                               \
	X(STREAM_FULL, "stream_ring_full", DROP)                                                   \
	X(NOT_ENABLED, "not_enabled", DROP)

/* clang-format off */
enum ndn_ctr {
#define X(e, n, k) NDN_C_##e,
	NDN_COUNTERS(X)
#undef X
	NDN_C_MAX
};
/* clang-format on */

extern struct tp_nf tp_ndn_nf;
/* counter id of c */
#define NDN_CTR(c) (tp_ndn_nf.ctr_base + (c))

/* --- faces --- */
/* UNIX and TCP: stream faces, one per connection to a listener (control/stream.c);
 * the control plane reads and writes their sockets, the lcores see rings */
enum ndn_face_kind {
	NDN_FACE_FREE,
	NDN_FACE_INTERNAL_KIND,
	NDN_FACE_ETHER,
	NDN_FACE_UDP,
	NDN_FACE_UNIX,
	NDN_FACE_TCP
};
static inline bool ndn_face_is_stream(uint8_t kind)
{
	return kind >= NDN_FACE_UNIX;
}

struct ndn_face {
	uint8_t kind;			  /* enum ndn_face_kind; FREE: not in use */
	uint8_t up;			  /* published (release store) once complete */
	uint8_t local;			  /* may send and receive /localhost */
	uint8_t on_demand;		  /* created by a packet (UDP accept) */
	uint16_t port;			  /* the DPDK port it sends on (ether; UDP: last route) */
	uint16_t mtu;			  /* largest NDN packet (LpPacket) it sends */
	struct rte_ether_addr remote_mac; /* ether: the peer or the group */
	uint32_t remote_ip, local_ip;	  /* UDP, TCP: network order */
	uint16_t remote_port, local_port; /* UDP, TCP: network order */
	uint64_t created_ms;
	/* control plane only: the face's receive counters' sum when last seen, and when
	 * it last changed (on-demand faces' idle timeout) */
	uint64_t rx_seen;
	uint64_t last_rx_ms;
	/* control plane only: a FREE slot is not given to a new face before this, when
	 * every PIT in-record of the face it was has expired (face.c's face_free) */
	uint64_t reuse_ms;
};
extern struct ndn_face ndn_faces[NDN_FACES_MAX];

/* Per face and lcore. X(enum suffix, name) */
#define NDN_FACE_COUNTERS(X)                                                                       \
	X(RX_INTEREST, "rx_interests")                                                             \
	X(RX_DATA, "rx_data")                                                                      \
	X(RX_NACK, "rx_nacks")                                                                     \
	X(TX_INTEREST, "tx_interests")                                                             \
	X(TX_DATA, "tx_data")                                                                      \
	X(TX_NACK, "tx_nacks")                                                                     \
	X(RX_BYTES, "rx_bytes")                                                                    \
	X(TX_BYTES, "tx_bytes")                                                                    \
	X(RX_DROP, "rx_dropped")                                                                   \
	X(TX_DROP, "tx_dropped")                                                                   \
	NDN_LP_FACE_COUNTERS(X)
/* clang-format off */
enum ndn_face_ctr {
#define X(e, n) NDN_FC_##e,
	NDN_FACE_COUNTERS(X)
#undef X
	NDN_FC_MAX
};
/* clang-format on */

/* --- packet metadata between the stages --- */
enum ndn_pkt_type { NDN_PKT_INTEREST = 1, NDN_PKT_DATA, NDN_PKT_NACK };

struct ndn_meta {
	uint16_t face;
	uint8_t type;	     /* enum ndn_pkt_type */
	uint8_t nack_reason; /* NACK: reason (255 unspecified) */
	uint8_t tok_len;
	uint8_t sampled;  /* telemetry: this packet's stages are timed */
	uint8_t out_what; /* output stage: the face counter (enum ndn_face_ctr) */
	uint8_t pad;
	uint16_t out_face; /* output stage: the face it goes out on */
	uint64_t rx_tsc;   /* sampled: when the input stage handed it on */
	uint8_t tok[TP_NDN_PIT_TOKEN_MAX];
};
TP_MBUF_META(ndn_meta, struct ndn_meta)

/* --- FIB (fib.c): control plane writes, lcores read --- */
/* NFD's strategies (fw/best-route-strategy, multicast-strategy, asf-strategy) */
enum ndn_strategy { NDN_STRATEGY_BEST_ROUTE, NDN_STRATEGY_MULTICAST, NDN_STRATEGY_ASF };
#define NDN_STRATEGY_MAX 3
#define NDN_STRATEGY_CHOICES 64	  /* the strategy choice table's prefixes, at most */
#define NDN_ASF_PROBE_MS 60000	  /* NFD's asf probing-interval default */
#define NDN_ASF_PROBE_MIN_MS 1000 /* and its least */

struct ndn_nexthop {
	uint16_t face;
	uint32_t cost;
};

struct ndn_fib_entry {
	struct ndn_fib_entry *next; /* bucket chain (RCU) */
	uint32_t hash;
	uint32_t id; /* counter slot, stable across replacement */
	uint8_t n_comps;
	uint8_t strategy; /* enum ndn_strategy */
	uint8_t n_nh;
	uint32_t probe_ms; /* asf: its probing interval */
	uint16_t name_len;
	struct ndn_nexthop nh[NDN_NH_MAX]; /* sorted by cost */
	uint8_t name[];			   /* the prefix's Name TLV-VALUE */
};

#define NDN_FIB_MAX 4096
/* per lcore and FIB entry id */
struct ndn_fib_ctr {
	uint64_t interests, data, nacks;
};

/* Longest-prefix match for n's first k.. components (k = n->n_comps): NULL if none.
 * hashes[i] is the hash of the first i+1 components (ndn_name_hashes). Data plane,
 * inside an RCU read section (the lcore's loop). */
const struct ndn_fib_entry *ndn_fib_lpm(const struct tp_ndn_name *n, const uint32_t *hashes);
/* Hash of the first i+1 components for every i: the FIB's and PCCT's key
 * (name_hash.c). */
void ndn_name_hashes(const struct tp_ndn_name *n, uint32_t *hashes);
/* Control plane, once before any ndn_name_hashes (ndn_fib_init calls it): the keys,
 * from the kernel. 0 or negative errno. */
int ndn_name_hash_init(void);

/* Control plane. */
int ndn_fib_init(void);
/* Set prefix's next hops (n 0: remove the entry). 0 or negative errno. */
int ndn_fib_set(const uint8_t *name, uint16_t len, const struct ndn_nexthop *nh, unsigned int n);
/* The strategy choice table (longest prefix match; "/" is best-route unless set):
 * prefix's strategy (asf: probe_ms its probing interval, 0 the default), resolved
 * into every FIB entry under it, each republished (RCU). 0, -ENOSPC (64 prefixes
 * held), -EINVAL (probe_ms below NDN_ASF_PROBE_MIN_MS) or another negative errno. */
int ndn_fib_strategy_set(const uint8_t *name, uint16_t len, enum ndn_strategy s, uint32_t probe_ms);
/* Remove prefix's choice: its entries take their parent's. 0, -ENOENT (none), -EINVAL
 * ("/": set it instead, as NFD refuses to unset the root). */
int ndn_fib_strategy_unset(const uint8_t *name, uint16_t len);
/* The choices, the root's first (set or not: best-route), in no other order. */
void ndn_fib_strategy_walk(void (*fn)(const uint8_t *name, uint16_t len, enum ndn_strategy s,
				      uint32_t probe_ms, void *arg),
			   void *arg);
/* A strategy by its name: ours ("best-route") or NFD's
 * ("/localhost/nfd/strategy/best-route", "/localhost/nfd/strategy/asf/v=5"); asf's
 * parameter "probing-interval~MS" into *probe_ms. 0 or -ENOENT (unknown), -EINVAL. */
int ndn_strategy_parse(const char *s, enum ndn_strategy *st, uint32_t *probe_ms);
/* Iterate: the entries' current versions. */
typedef void (*ndn_fib_walk_fn)(const struct ndn_fib_entry *e, void *arg);
void ndn_fib_walk(ndn_fib_walk_fn fn, void *arg);
unsigned int ndn_fib_count(void);
struct tp_metrics;
/* The module's metrics (struct tp_nf's metrics callback, cli.c). */
void ndn_metrics(struct tp_metrics *m);
extern const char *const ndn_strategy_names[];

/* --- PIT-CS (pcct.c): per forwarding context --- */
struct ndn_pit_in {
	uint16_t face;
	uint8_t tok_len;
	uint8_t pad;
	uint32_t nonce;
	uint64_t expiry;
	uint8_t tok[TP_NDN_PIT_TOKEN_MAX];
};

struct ndn_pit_out {
	uint16_t face;
	uint8_t nacked; /* its reason, 0 while pending */
	uint8_t hop;	/* the HopLimit sent + 1; 0: none */
	uint32_t nonce;
	uint64_t last_tx;
};

struct ndn_pit {
	uint32_t pcc; /* 0: free (then next free in tw_next) */
	uint32_t gen;
	uint32_t tw_next, tw_prev; /* timer wheel */
	uint64_t expiry;
	uint32_t fib_id;
	uint8_t slot; /* bit 0 CanBePrefix, bit 1 MustBeFresh */
	uint8_t n_in, n_out;
	uint8_t tried;	    /* bit per FIB next-hop index tried */
	uint16_t owner;	    /* the face that created it: charged in ndn_fwd.pit_by_face */
	uint8_t retx_shift; /* retransmissions forwarded: suppression 10 ms << it */
	uint8_t strategy;   /* the one that forwarded it (enum ndn_strategy) */
	struct ndn_pit_in in[NDN_PIT_IN_MAX];
	struct ndn_pit_out out[NDN_PIT_OUT_MAX];
};

#define NDN_KEY_INLINE 216 /* the entry is 256 bytes: four cache lines, the first the header */
struct ndn_pcc {
	uint32_t next; /* bucket chain, or free list */
	uint32_t hash;
	uint32_t pit[4]; /* by slot; 0: none */
	uint32_t cs;	 /* a Data of exactly this name */
	uint32_t cs_ind; /* a Data this name is a prefix of (CanBePrefix) */
	uint16_t key_len;
	uint8_t n_comps;
	uint8_t in_use;
	uint32_t ext; /* 0, or the extension chunk holding a longer key */
	uint8_t key[NDN_KEY_INLINE];
};
_Static_assert(sizeof(struct ndn_pcc) == 256, "PCC entry: four cache lines");

struct ndn_cs {
	uint32_t pcc;		     /* its direct entry; 0: free */
	uint32_t hash;		     /* that entry's (to prefetch its bucket) */
	uint32_t lru_prev, lru_next; /* 0: none */
	uint32_t ind[4];	     /* indirect entries pointing here */
	uint64_t fresh_until;	     /* TSC */
	struct rte_mbuf *m;	     /* the Data, starting at its TLV-TYPE */
};

/* X(name): the forwarding context's counters */
#define NDN_FWD_STATS(X)                                                                           \
	X(interests)                                                                               \
	X(data)                                                                                    \
	X(nacks)                                                                                   \
	X(cs_hits)                                                                                 \
	X(cs_misses)                                                                               \
	X(cs_inserts)                                                                              \
	X(cs_evictions)                                                                            \
	X(pit_inserts)                                                                             \
	X(pit_expired)                                                                             \
	X(pit_satisfied)                                                                           \
	X(pit_nacked)                                                                              \
	X(nack_noroute)                                                                            \
	X(nack_duplicate)                                                                          \
	X(unsolicited)                                                                             \
	X(dnl_inserts)                                                                             \
	X(dnl_evicted_live)                                                                        \
	X(dnl_loops)                                                                               \
	X(retx_forwarded)                                                                          \
	X(asf_probes)

struct ndn_fwd_stats {
#define X(n) uint64_t n;
	NDN_FWD_STATS(X)
#undef X
};

/* The Dead Nonce List (NFD's dead-nonce-list.hpp): the Nonces this context sent for
 * PIT entries that are gone, by name, for NDN_DNL_LIFETIME_MS, so that a looping
 * Interest that comes back after its entry left is still caught. Keys are the name's
 * keyed hash and the Nonce; buckets of NDN_DNL_WAYS, a full bucket gives up its
 * oldest (dnl_evicted_live when that was still live). */
#define NDN_DNL_LIFETIME_MS 6000 /* NFD's default */
#define NDN_DNL_WAYS 8
struct ndn_dnl_slot {
	uint64_t key;	 /* name hash << 32 | Nonce */
	uint64_t expiry; /* TSC; 0: empty */
};
struct ndn_dnl {
	struct ndn_dnl_slot *slot; /* (bucket_mask + 1) * NDN_DNL_WAYS */
	uint32_t bucket_mask;
	uint64_t lifetime_tsc;
	uint64_t live_until; /* TSC: no entry is live at or after it (lookups skip) */
};

/* ASF's measurements (NFD's asf-measurements), per context and FIB entry id: each
 * next hop's smoothed RTT and timeouts since its last Data. */
struct ndn_asf_face {
	uint16_t face;
	uint8_t timeouts; /* saturating; 0: answered last */
	uint8_t pad;
	uint32_t srtt_us; /* 0: never measured */
};
struct ndn_asf {
	uint32_t hash;	     /* the FIB entry's name hash: an id's new prefix starts afresh */
	uint16_t probe_next; /* the eligible next hop to probe next */
	uint16_t valid;	     /* 0: never used */
	uint64_t next_probe; /* TSC; 0: probe at the next Interest */
	struct ndn_asf_face m[NDN_NH_MAX];
};

/* One forwarding context: owned by one lcore, read by the control plane for show. */
struct ndn_fwd {
	unsigned int idx, worker;
	/* by enum ndn_pkt_type - 1 (NULL with one data-plane lcore: it runs every stage
	 * to completion, nothing is enqueued); [3]: packets the control plane hands back
	 * to the input stage (the first packet of an on-demand face, management's
	 * answers) */
	struct tp_ring *ring[4];
	/* PCCT */
	uint32_t bucket_mask;
	uint32_t *bucket;
	struct ndn_pcc *pcc;
	uint32_t pcc_cap, pcc_free, pcc_used;
	uint8_t (*ext)[TP_NDN_NAME_MAX_LEN];
	uint32_t *ext_free_list;
	uint32_t ext_cap, ext_n_free;
	struct ndn_pit *pit;
	uint32_t pit_cap, pit_free, pit_used;
	/* entries per face that created them, and the most one face may hold (the
	 * control plane writes pit_face_max: pit_cap * ndn_limits.pit_face_share / 100) */
	uint32_t pit_face_max;
	uint32_t pit_by_face[NDN_FACES_MAX];
	uint32_t gen;
	struct ndn_cs *cs;
	uint32_t cs_cap, cs_free, cs_used, lru_head, lru_tail;
	struct rte_mempool *cs_pool;	   /* copies of Data up to 9,344 bytes */
	struct rte_mempool *cs_pool_small; /* and of those up to NDN_CS_SMALL_ROOM */
	/* timer wheel: one slot per tick */
	uint32_t *wheel;
	uint32_t wheel_mask;
	unsigned int tick_shift; /* a tick is 1 << tick_shift TSC cycles (<= 1 ms) */
	uint64_t next_tick;	 /* the next tick to run */
	uint64_t next_tick_tsc;	 /* and its first TSC cycle */
	struct ndn_dnl dnl;
	struct ndn_asf *asf; /* NDN_FIB_MAX, by FIB entry id */
	struct ndn_fwd_stats st;
} __rte_cache_aligned;

/* --- configuration and state (module.c) --- */
struct ndn_conf {
	bool enabled;
	unsigned int ndt_comps; /* N */
	unsigned int ndt_bits;
	unsigned int pit_capacity, cs_capacity;
	unsigned int queue[3]; /* ring sizes: Interest, Data, Nack */
	bool shared_queue;     /* one ring per context for all three (NDN-DPDK's old way,
				* seed 002's finding), of the Interest ring's size */
	unsigned int n_fwd;
	unsigned int fwd_worker[NDN_CTX_MAX];
	unsigned int n_out; /* output lcores (role output); 0: the forwarding lcores send */
	unsigned int out_worker[NDN_OUT_MAX];
	unsigned int out_queue; /* their rings' size */
	uint64_t siphash_key[2];
};
extern struct ndn_conf ndn_conf;

/* What outsiders may hold ('ndn limits'; start-up and run time). The control plane
 * writes them; the data plane reads lifetime_max_ms. */
struct ndn_limits {
	uint32_t face_idle_s;	   /* an on-demand face idle this long goes (NFD: 600) */
	uint32_t face_routes;	   /* routes a non-local requester may hold on its face */
	uint32_t mgmt_rate;	   /* management commands per second (token bucket) */
	uint32_t mgmt_burst;	   /* and the bucket's depth */
	uint32_t expiration_max_s; /* ExpirationPeriod of a non-local registration, at most */
	uint32_t pit_face_share;   /* percent of a context's PIT one face may hold */
	uint32_t lifetime_max_ms;  /* InterestLifetime honoured, at most */
	uint32_t stream_conns;	   /* connections per stream listener (unix, tcp) */
	uint32_t stream_sendq;	   /* bytes a stream face's send queue holds, at most */
};
extern struct ndn_limits ndn_limits;
/* Control plane: the contexts' pit_face_max from ndn_limits.pit_face_share. */
void ndn_limits_apply(void);
/* Start the forwarder with c (control/enable.c; its lcores filled in): 0, or a
 * negative errno with err (len bytes) saying why. */
int ndn_enable(struct ndn_conf *c, char *err, size_t len);
extern struct ndn_fwd *ndn_fwd[NDN_CTX_MAX];
extern uint8_t *ndn_ndt; /* 1 << ndt_bits context indexes */
extern struct rte_ring *ndn_mgmt_ring;
extern struct rte_ring *ndn_newface_ring;
/* what the lcores send on stream faces, to the control plane (control/stream.c) */
extern struct rte_ring *ndn_stream_ring;

/* --- per-stage latency telemetry (sampled packets, TSC cycles) --- */
enum ndn_stage {
	NDN_ST_INPUT,	 /* decode and dispatch, from the face to the context */
	NDN_ST_QUEUE,	 /* waiting between the input stage and the forwarding stage */
	NDN_ST_INTEREST, /* the forwarding stage of an Interest */
	NDN_ST_DATA,	 /* the forwarding stage of a Data */
	NDN_ST_NACK,	 /* the forwarding stage of a Nack */
	NDN_ST_MAX
};
extern const char *const ndn_stage_names[NDN_ST_MAX];
#define NDN_TEL_BUCKETS 40 /* log2 of cycles */
#define NDN_TEL_RAW 1024   /* most recent samples kept per stage and lcore */
struct ndn_tel {
	uint32_t countdown;
	uint64_t hist[NDN_ST_MAX][NDN_TEL_BUCKETS];
	uint64_t n[NDN_ST_MAX], sum[NDN_ST_MAX];
	uint32_t raw[NDN_ST_MAX][NDN_TEL_RAW];
};
/* 1 in ndn_tel_every packets is sampled; 0: off */
extern uint32_t ndn_tel_every;

/* Bumped (release) by the control plane whenever a face is added or removed: an
 * lcore's cached lookups are valid while it reads the value they were made under. */
extern uint32_t ndn_face_gen;

/* Per data-plane lcore. */
struct ndn_lcore {
	struct ndn_fwd *fwd; /* the context this lcore runs, or NULL */
	/* the last sender's face per port (Ethernet: source MAC; UDP: address, port) */
	struct {
		uint32_t gen; /* ndn_face_gen it was found under; 0: empty */
		uint16_t face;
		uint8_t key[6];
	} face_cache[TP_MAX_PORTS][2];
	struct ndn_tel tel;
	uint64_t fctr[NDN_FACES_MAX][NDN_FC_MAX];
	struct ndn_fib_ctr fib[NDN_FIB_MAX];
	struct ndn_lp_lcore lp;
};
static inline struct ndn_lcore *ndn_lcore(struct tp_worker *w)
{
	return tp_nf_lcore(w, &tp_ndn_nf);
}

/* --- data plane entry points --- */
void ndn_ether_input(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n);
void ndn_udp_input(struct tp_worker *w, struct rte_mbuf *m, uint8_t *l3, uint8_t *l4);
/* The input stage's common part: m starts at what the face carried (an LpPacket or
 * a bare packet), from face. Consumes m. */
void ndn_face_rx(struct tp_worker *w, struct rte_mbuf *m, uint16_t face);
/* The same for n packets, pkts[i] from faces[i]. */
void ndn_face_rx_burst(struct tp_worker *w, struct rte_mbuf **pkts, const uint16_t *faces,
		       uint16_t n);

/* One decoded packet between the input and forwarding stages (on the stack). */
struct ndn_rx {
	struct rte_mbuf *m;
	unsigned int ctx;
	bool hashed; /* hashes[] of the Interest's name prefixes computed */
	union {
		struct tp_ndn_interest i;
		struct tp_ndn_data d;
	} u;
	uint32_t hashes[TP_NDN_NAME_MAX_COMPS];
};
/* Ring handlers: the forwarding stage for packets of one type; the input stage for
 * what the control plane hands back (meta face set, m at the face's payload). */
void ndn_fwd_ring(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n, void *ctx);
void ndn_rx_ring(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n, void *ctx);
/* The forwarding stage for one decoded packet (m starts at its TLV-TYPE). */
/* hashes: of the name's prefixes (ndn_name_hashes), or NULL to compute them */
void ndn_fwd_interest(struct tp_worker *w, struct ndn_fwd *f, struct rte_mbuf *m,
		      struct tp_ndn_interest *in, const uint32_t *hashes);
void ndn_fwd_data(struct tp_worker *w, struct ndn_fwd *f, struct rte_mbuf *m,
		  struct tp_ndn_data *d);
void ndn_fwd_nack(struct tp_worker *w, struct ndn_fwd *f, struct rte_mbuf *m,
		  struct tp_ndn_interest *in);

/* The forwarding stage's send: to the face's output lcore when there are output
 * lcores, else ndn_face_tx at once. Same arguments. */
void ndn_out(struct tp_worker *w, uint16_t face, struct rte_mbuf *m, const uint8_t *tok,
	     uint8_t tok_len, uint8_t nack_reason, enum ndn_face_ctr what);
/* Output lcores' ring handler. */
void ndn_out_ring_fn(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n, void *ctx);
extern struct tp_ring *ndn_out_ring[NDN_OUT_MAX];

/* Send m (an Interest or Data starting at its TLV-TYPE) on face, with a PIT token
 * (tok_len 0: none) and for a Nack its reason (0: not a Nack). Consumes m. */
void ndn_face_tx(struct tp_worker *w, uint16_t face, struct rte_mbuf *m, const uint8_t *tok,
		 uint8_t tok_len, uint8_t nack_reason, enum ndn_face_ctr what);

static inline void ndn_tel_record(struct tp_worker *w, enum ndn_stage st, uint64_t cycles)
{
	struct ndn_tel *t = &ndn_lcore(w)->tel;
	uint32_t c = (uint32_t)RTE_MIN(cycles, (uint64_t)UINT32_MAX);
	unsigned int b = c ? 32u - (unsigned int)__builtin_clz(c) : 0;

	t->hist[st][b]++;
	t->raw[st][t->n[st] & (NDN_TEL_RAW - 1)] = c;
	t->n[st]++;
	t->sum[st] += c;
}

static inline void ndn_fcount(struct tp_worker *w, uint16_t face, enum ndn_face_ctr c)
{
	ndn_lcore(w)->fctr[face][c]++;
}

/* PCCT (pcct.c) */
int ndn_pcct_create(struct ndn_fwd *f, unsigned int socket);
void ndn_pcct_free(struct ndn_fwd *f);
static inline const uint8_t *ndn_pcc_key(const struct ndn_fwd *f, const struct ndn_pcc *e)
{
	return e->ext ? f->ext[e->ext] : e->key;
}
/* Find the entry for the name's first k components (hash h), or 0. */
static inline uint32_t ndn_pcc_find(const struct ndn_fwd *f, const uint8_t *key, uint16_t len,
				    uint32_t h)
{
	for (uint32_t i = f->bucket[h & f->bucket_mask]; i; i = f->pcc[i].next) {
		const struct ndn_pcc *e = &f->pcc[i];
		if (e->hash == h && e->key_len == len &&
		    tp_ndn_bytes_eq(ndn_pcc_key(f, e), key, len))
			return i;
	}
	return 0;
}
/* Insert an entry the caller knows is absent (it has just walked the chain with
 * ndn_pcc_find), at the tail of its chain; 0 when full. */
uint32_t ndn_pcc_insert(struct ndn_fwd *f, const uint8_t *key, uint16_t len, uint8_t n_comps,
			uint32_t h);
/* Remove it if nothing refers to it any more. */
void ndn_pcc_release(struct ndn_fwd *f, uint32_t idx);
uint32_t ndn_pit_alloc(struct ndn_fwd *f, uint32_t pcc, uint8_t slot);
void ndn_pit_free(struct ndn_fwd *f, uint32_t idx);
void ndn_pit_arm(struct ndn_fwd *f, uint32_t idx, uint64_t expiry);
/* CS: insert a copy of the Data m (starting at its TLV) under entry pcc; returns
 * the CS index or 0. */
uint32_t ndn_cs_insert(struct ndn_fwd *f, uint32_t pcc, struct rte_mbuf *m, uint64_t fresh_until);
void ndn_cs_touch(struct ndn_fwd *f, uint32_t cs);
void ndn_cs_link_indirect(struct ndn_fwd *f, uint32_t pcc, uint32_t cs);
/* The Dead Nonce List: add the Nonces entry idx sent (NFD's insertDeadNonceList, its
 * every out-record's). Whether Nonce was sent for a name of hash h within the list's
 * lifetime. Data plane, the context's lcore. */
void ndn_dnl_add_pit(struct ndn_fwd *f, uint32_t idx, uint64_t now);
bool ndn_dnl_has(const struct ndn_fwd *f, uint32_t h, uint32_t nonce, uint64_t now);
/* ASF: entry idx's upstream face timed out or Nacked (its measurements). */
void ndn_asf_timeout(struct ndn_fwd *f, const struct ndn_pit *p, uint16_t face);
/* run due timers up to now: expired PIT entries */
unsigned int ndn_pcct_expire(struct ndn_fwd *f, uint64_t now);

/* The shape of a hash table's chains ('show ndn chains', review N4): how many buckets
 * hold a chain of each length, computed by the control plane on demand. */
#define NDN_CHAIN_HIST 32 /* lengths 0..30 one by one; the last: 31 or longer */
struct ndn_chain_stats {
	uint32_t buckets;		 /* in the table */
	uint32_t entries;		 /* found on its chains */
	uint32_t longest;		 /* the longest chain */
	uint64_t hit_walk;		 /* entries compared to find each entry, summed */
	uint64_t by_len[NDN_CHAIN_HIST]; /* buckets by chain length */
	bool torn; /* the walk met an entry its lcore freed meanwhile: approximate */
};
static inline void ndn_chain_add(struct ndn_chain_stats *s, uint32_t len)
{
	s->entries += len;
	s->longest = RTE_MAX(s->longest, len);
	s->hit_walk += (uint64_t)len * (len + 1) / 2; /* the k-th entry: k compared */
	s->by_len[RTE_MIN(len, (uint32_t)NDN_CHAIN_HIST - 1)]++;
}
/* Control plane: context f's PCCT chains into s, read while its lcore may change
 * them (exact when it is idle; torn when an entry moved under the walk, which never
 * visits more than pcc_cap entries). */
void ndn_pcct_chains(const struct ndn_fwd *f, struct ndn_chain_stats *s);
/* Control plane: the FIB's chains (its writer: exact). */
void ndn_fib_chains(struct ndn_chain_stats *s);

/* The forwarding context's per-loop work: the timer wheel's due ticks. */
static inline unsigned int ndn_fwd_poll(struct tp_worker *w, struct ndn_fwd *f)
{
	if (likely(w->now < f->next_tick_tsc))
		return 0;
	return ndn_pcct_expire(f, w->now);
}

/* siphash.c */
uint64_t ndn_siphash(const uint64_t key[2], const uint8_t *p, size_t len);

/* management (mgmt.c), control plane */
int ndn_mgmt_init(void);
unsigned int ndn_mgmt_poll(void);
/* faces (face.c), control plane */
int ndn_face_add_udp(uint32_t remote_ip_be, uint16_t remote_port_be, uint32_t local_ip_be,
		     bool local, bool on_demand, char *err, size_t errlen);
int ndn_face_add_ether(uint16_t port, const struct rte_ether_addr *remote, bool local, char *err,
		       size_t errlen);
int ndn_face_del(unsigned int id);
int ndn_face_find_udp(uint32_t remote_ip_be, uint16_t remote_port_be);
int ndn_faces_init(void);
/* whether on-demand UDP faces may be made for this remote */
bool ndn_udp_accepts(uint32_t remote_ip_be);
int ndn_udp_accept_add(uint32_t net_be, uint8_t len);
void ndn_face_uri(unsigned int id, char *buf, size_t len);
/* A stream face (kind NDN_FACE_UNIX or NDN_FACE_TCP; TCP: its peer, network order):
 * its id, or negative errno with err saying why. Control plane. */
int ndn_face_add_stream(uint8_t kind, bool local, uint32_t remote_ip_be, uint16_t remote_port_be,
			char *err, size_t errlen);

/* --- stream faces (control/stream.c), control plane --- */
/* Listen for NDN applications: kind NDN_FACE_UNIX on path (mode, gid: -1 none), or
 * NDN_FACE_TCP on addr:port (network order). 0 or negative errno with err. */
int ndn_stream_listen_unix(const char *path, unsigned int mode, int gid, char *err, size_t errlen);
int ndn_stream_listen_tcp(uint32_t addr_be, uint16_t port_be, char *err, size_t errlen);
/* Read what the lcores sent on stream faces and write it: how many packets. */
unsigned int ndn_stream_poll(void);
/* At exit: connections and listeners closed, Unix socket files removed (the faces
 * are left as they are). */
void ndn_stream_fini(void);
/* Face id (a stream face) was removed: its connection is closed (ndn_face_del). */
void ndn_stream_face_gone(unsigned int id);
/* For 'ndn face show' and URIs: a stream face's listener (its URI), the bytes its
 * send queue holds and its socket (-1: no connection). */
void ndn_stream_face_info(unsigned int id, char *local_uri, size_t len, uint64_t *sendq, int *fd);
/* Listeners, for show: calls fn for each. */
void ndn_stream_listeners(void (*fn)(const char *uri, unsigned int conns, uint64_t accepted,
				     uint64_t refused, void *arg),
			  void *arg);
/* Counters of the stream faces' control-plane side ('show ndn' streams). */
#define NDN_STREAM_COUNTERS(X)                                                                     \
	X(ACCEPTED, "connections_accepted")                                                        \
	X(REFUSED_FULL, "connections_refused_listener_full")                                       \
	X(REFUSED_NO_FACE, "connections_refused_no_face")                                          \
	X(CLOSED_PEER, "closed_by_peer")                                                           \
	X(CLOSED_MALFORMED, "closed_malformed_tlv")                                                \
	X(CLOSED_TOO_LONG, "closed_tlv_too_long")                                                  \
	X(CLOSED_SLOW, "closed_slow_reader")                                                       \
	X(CLOSED_OPERATOR, "closed_face_removed")                                                  \
	X(RX_PACKETS, "rx_packets")                                                                \
	X(RX_RING_FULL, "rx_handback_ring_full")                                                   \
	X(RX_NO_MBUF, "rx_no_mbuf")                                                                \
	X(TX_PACKETS, "tx_packets")                                                                \
	X(TX_QUEUED, "tx_packets_queued")                                                          \
	X(TX_FACE_GONE, "tx_face_gone")
/* clang-format off */
enum ndn_stream_ctr {
#define X(e, n) NDN_S_##e,
	NDN_STREAM_COUNTERS(X)
#undef X
	NDN_S_MAX
};
/* clang-format on */
extern uint64_t ndn_stream_ctr[NDN_S_MAX];
extern const char *const ndn_stream_ctr_names[NDN_S_MAX];

/* rib (mgmt.c) */
int ndn_rib_add(const uint8_t *name, uint16_t len, uint16_t face, uint64_t origin, uint64_t cost,
		uint64_t flags, int64_t expires_ms);
int ndn_rib_del(const uint8_t *name, uint16_t len, uint16_t face, uint64_t origin);
void ndn_rib_face_gone(uint16_t face);
void ndn_rib_walk(void (*fn)(const uint8_t *name, uint16_t len, uint16_t face, uint64_t origin,
			     uint64_t cost, uint64_t flags, uint64_t expires_ms, void *arg),
		  void *arg);
/* Management and on-demand face counters (control plane; 'show ndn'). Every
 * refusal counts in commands_refused and in one refused_* reason. X(enum, name) */
#define NDN_MGMT_COUNTERS(X)                                                                       \
	X(ACCEPTED, "commands_accepted")                                                           \
	X(REFUSED, "commands_refused")                                                             \
	X(MALFORMED, "commands_malformed")                                                         \
	X(ANSWERS_LOST, "answers_lost")                                                            \
	X(RATELIMITED, "commands_ratelimited")                                                     \
	X(R_UNSUPPORTED, "refused_unsupported")                                                    \
	X(R_NOT_LOCAL, "refused_not_local")                                                        \
	X(R_LOCALHOP_OFF, "refused_localhop_disabled")                                             \
	X(R_SIGNATURE, "refused_bad_signature")                                                    \
	X(R_REPLAY, "refused_stale_or_replayed")                                                   \
	X(R_FACE_ID, "refused_other_face")                                                         \
	X(R_ORIGIN, "refused_origin")                                                              \
	X(R_PREFIX, "refused_prefix")                                                              \
	X(R_FACE_ROUTES, "refused_face_routes_full")                                               \
	X(R_RIB_FULL, "refused_rib_full")                                                          \
	X(R_NO_FACE, "refused_face_not_found")                                                     \
	X(R_INVALID, "refused_invalid_parameters")                                                 \
	X(R_URI, "refused_face_uri")                                                               \
	X(R_FACE_EXISTS, "refused_face_exists")                                                    \
	X(R_FACE_FAILED, "refused_face_not_created")                                               \
	X(LOCAL_UNVERIFIED, "localhost_signature_not_verified")                                    \
	X(FACE_CREATED, "on_demand_faces_created")                                                 \
	X(FACE_EXPIRED, "on_demand_faces_expired")                                                 \
	X(FACE_EVICTED, "on_demand_faces_evicted")                                                 \
	X(FACE_REFUSED, "on_demand_faces_refused_full")                                            \
	X(DS_BUILT, "datasets_built")                                                              \
	X(DS_REUSED, "datasets_reused")                                                            \
	X(DS_TRUNCATED, "datasets_truncated")                                                      \
	X(DS_SEGMENTS, "dataset_segments_sent")                                                    \
	X(DS_GONE, "dataset_segments_gone")
/* clang-format off */
enum ndn_mgmt_ctr {
#define X(e, n) NDN_M_##e,
	NDN_MGMT_COUNTERS(X)
#undef X
	NDN_M_MAX
};
/* clang-format on */
extern uint64_t ndn_mgmt_ctr[NDN_M_MAX];
extern const char *const ndn_mgmt_ctr_names[NDN_M_MAX];
/* status datasets (control/dataset.c): NFD's status/general, faces/list,
 * faces/channels, fib/list, rib/list, strategy-choice/list under /localhost/nfd */
#define NDN_DATASET_MAX (1u << 20) /* bytes of one dataset's snapshot */
#define NDN_DATASET_SEG 8000	   /* content bytes per segment (ndn-cxx's) */
/* The Data (one segment, DigestSha256) answering Interest in into buf: its length; 0
 * when in does not ask for a dataset (a command's name); negative errno when it does
 * but gets no answer (a version no longer held, a segment past the last: counted).
 * Builds the dataset's snapshot when in names no version. Control plane. */
int ndn_dataset_answer(const struct tp_ndn_interest *in, uint8_t *buf, size_t cap);
/* At 'ndn enable': snapshots dropped, the start time taken. */
void ndn_dataset_reset(void);
/* NFD's Strategy TLV (0x6b) { Name } naming strategy s as NFD does, its version and,
 * for asf with probe_ms set, its parameter (/localhost/nfd/strategy/asf/v=5/
 * probing-interval~MS): written at buf, the bytes written; 0 if it does not fit in
 * cap. The one writer of the strategy-choice dataset's and commands' Strategy. */
size_t ndn_strategy_tlv_write(uint8_t *buf, size_t cap, enum ndn_strategy s, uint32_t probe_ms);
/* A face's LocalUri as NFD gives it (dev://PORT, udp4://A.B.C.D:6363, a stream
 * face's listener). Control plane. */
void ndn_face_local_uri(unsigned int id, char *buf, size_t len);
/* A face counter (enum ndn_face_ctr) summed over the lcores. Control plane. */
uint64_t ndn_face_counter(unsigned int face, unsigned int c);
/* /localhop/nfd commands: refused unless enabled with a key (HMAC-SHA256, NDN
 * SignatureHmacWithSha256). key NULL: disable. 0 or negative errno. */
int ndn_mgmt_localhop_set(const uint8_t *key, size_t key_len);
bool ndn_mgmt_localhop_enabled(void);
/* Control plane timer work: on-demand faces idle for ndn_limits.face_idle_s go, with
 * their routes. How many went. */
unsigned int ndn_faces_expire(uint64_t now_ms);
/* When the table is full: the on-demand face received from longest ago, if it has
 * been idle at least min_idle_ms; else -ENOENT, or -EBUSY when a removed face's slot
 * is about to be free (after the RCU grace period) and none need go. */
int ndn_face_evictable(uint64_t now_ms, uint64_t min_idle_ms);
#endif
