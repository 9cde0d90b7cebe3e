/* SPDX-License-Identifier: BSD-3-Clause */
/* The IoT gateway (oneM2M MN-CSE of seed 000): ISO/IEEE 11073-20601 PHD traffic in,
 * oneM2M contentInstance creations over CoAP out to an IN-CSE.
 *
 * The logic is transport-free and shared by three gateways:
 *   report.c    a datagram -> verdict: scan reports of ready agents become one
 *               measurement per metric (emitted through a callback), duplicates
 *               and unassociated agents are told apart, the rest is signaling
 *   session.c   the session manager: AARQ/AARE, configuration, RLRQ/RLRE, ABRT,
 *               timeouts, over a struct tp_iotgw_io (send, registration, clock)
 *   register.c  the IN-CSE exchange that creates a device's AE and containers:
 *               request builder, response check, and a synchronous driver
 *   ae.c        the AE table, with an index behind ae_index.h (rte_hash + RCU in
 *               the daemon, a plain hash in the socket gateway)
 * Transports:
 *   dual plane (default): fast.c on the workers (report path, 0201 answers),
 *               control.c on the control plane (session manager on a kernel
 *               socket fed by the TAPs, registrar.c asynchronous with retries)
 *   single plane (--single-plane): fast.c handles signaling inline on the worker
 *               (single.c), waiting for the IN-CSE's answers as seed 000's old
 *               system did
 *   socket gateway (sockgw.c, twinplane-sockgw): no DPDK, kernel UDP sockets,
 *               one thread, the registration waited for inline
 * The AE table is the only state the planes share: written by one writer at a
 * time, read lock-free.
 *
 * This header has what the data plane needs (and the control side shares): the
 * configuration, the AE table, the counters, the report path, the module's entry.
 * The control side's own interfaces (session manager, registration, delivery, early
 * reports, the control thread) are in control/control.h. */
#ifndef TP_NF_IOTGW_H
#define TP_NF_IOTGW_H

#include <stdbool.h>
#include <stdint.h>

#include "../../proto/mder.h"
#include "../../proto/onem2m.h"

#define TP_AE_MAX 8192
#define TP_AE_MAX_METRICS 8
#define TP_AE_PATH_MAX 96

enum tp_ae_state {
	TP_AE_FREE = 0,
	TP_AE_CONFIGURING, /* associated, waiting for the agent's configuration report */
	TP_AE_QUERYING,	   /* configured; the MDS attributes asked for (GET), not answered */
	TP_AE_REGISTERING, /* the registrar is creating the AE and its containers */
	TP_AE_READY,	   /* the data plane converts its reports */
	TP_AE_FAILED,	   /* the IN-CSE refused or did not answer: reports are dropped */
};

#define TP_AE_WHOLE 0xFF /* tp_ae_metric.component of a metric that is not a compound's part */
#define TP_AE_LABELS 3	 /* manufacturer, model, system type (from the MDS attributes) */
#define TP_AE_LABEL_MAX 48

/* One metric of an agent. What a report reads comes first, in the order it reads it
 * (handle, the value's layout, unit, request template): a report's lines of one
 * metric are consecutive, and the cold names after them are not loaded. */
struct tp_ae_metric {
	uint16_t handle;		/* the 11073 object */
	uint8_t component;		/* index in the object's compound value, or TP_AE_WHOLE */
	uint8_t fixed;			/* lay is made (READY): fixed observations read at it */
	struct tp_phd_fixed_layout lay; /* where its number and time lie in obs-val-data */
	char unit[16];			/* unit symbol: "%" */
	struct tp_coap_tmpl cin;	/* its contentInstance requests' CoAP template (READY) */
	char label[24];			/* container name: "spo2", "systolic" */
	char path[TP_AE_PATH_MAX];	/* CoAP path of the container: "/cse-in/PHD-.../spo2" */
};

/* One associated agent. Written by the control plane only; workers read it
 * between two quiescent states after finding its index in the hash. */
struct tp_ae {
	uint32_t ip; /* agent address and port, host order */
	uint16_t port;
	uint8_t state; /* enum tp_ae_state, stored last (release) */
	uint8_t n_metrics;
	uint16_t gen; /* bumped at every creation: tells a reused slot apart */
	/* where the agent's frames come from (its AARQ's ingress port and source MAC,
	 * tp_iotgw_l2src); 0: unknown (the socket gateway, or the AARQ's source was not
	 * found): a datagram of ip:port from any other source is dropped */
	uint64_t l2src;
	uint8_t sysid[8];
	char ae_name[24]; /* "PHD-0011223344556677" */
	char origin[24];  /* "C0011223344556677" */
	uint16_t config_id;
	struct tp_ae_metric metric[TP_AE_MAX_METRICS];
	struct tp_phd_value_map map; /* decodes fixed scan observations */
	/* control plane only */
	char label[TP_AE_LABELS][TP_AE_LABEL_MAX]; /* the AE's lbl: "manufacturer:ACME"; "" unset */
	uint16_t get_invoke;			   /* invoke-id of our GET of the MDS attributes */
	uint64_t query_due_ms;			   /* register without them after this */
	uint64_t last_ms;
	uint16_t pending_invoke;		 /* invoke-id of the config report being answered */
	uint8_t reg_step, reg_tries, reg_errors; /* reg_errors: transient refusals */
	uint64_t reg_due_ms;
	uint16_t reg_mid;
	uint8_t reg_nonce[4]; /* the random half of the current request's token */
	/* the AE existed (4.09): its step 0 is now a RETRIEVE, to tell whether it is this
	 * registration's (its tp-source label names the session's binding) */
	uint8_t reg_verify;
	/* ... and it is this registration's: step 0 is now an UPDATE giving it the IN-CSE's
	 * default lifetime back before containers are made under it (register.c) */
	uint8_t reg_lift;
	/* tp_iotgw.ae_retention_s: when the AE's expirationTime is set again (control
	 * plane ms, 0: not while it is not READY); refreshing: that UPDATE is in flight
	 * (reg_mid, reg_nonce its request, reg_due_ms its retry) */
	uint8_t refreshing;
	uint64_t refresh_ms;
};

struct tp_iotgw_conf {
	bool enabled;
	bool single_plane; /* signaling inline on the worker (the seed's old system) */
	bool profile;	   /* count cycles spent converting reports (seed 000 Fig. 3) */
	uint16_t port;	   /* PHD UDP port, 6024 */
	uint32_t cse_ip;   /* IN-CSE, host order */
	uint16_t cse_port; /* its CoAP port, 5683 */
	char cse_name[32]; /* "cse-in" */
	uint32_t session_timeout_ms;
	uint32_t reg_timeout_ms; /* a registration step's first wait (doubles per try) */
	uint32_t max_sessions;	 /* bound of the AE table, <= TP_AE_MAX */
	bool no_mds_get;	 /* register at once, without reading the MDS attributes */
	uint32_t max_per_source; /* sessions of one agent address, at most (0: no limit) */
	uint32_t evict_idle_ms;	 /* a full table evicts a session silent for this long */
	uint32_t mni;		 /* maxNrOfInstances of the containers created (0: unset) */
	uint8_t delivery;	 /* enum tp_iotgw_delivery */
	uint32_t max_pending;	 /* confirmed delivery: measurements waiting, at most */
	uint32_t agent_pending;	 /* ... of one agent, at most (its share of max_pending) */
	uint32_t ack_timeout_ms; /* confirmed delivery: RFC 7252 ACK_TIMEOUT */
	/* the AE's expirationTime is now + this (oneM2M et, TS-0001 9.6.1.3.2), set again
	 * while the agent is associated: the IN-CSE deletes the AEs of agents gone this
	 * long (0: never set, the IN-CSE's default; the dual plane only) */
	uint32_t ae_retention_s;
};

/* 30 days: above any regular use interval of a personal health device (decision
 * 0090) */
#define TP_IOTGW_AE_RETENTION_S (30u * 86400u)

enum tp_iotgw_delivery {
	/* the agent's report answered once the IN-CSE accepted its measurements (CON) */
	TP_IOTGW_DELIVERY_CONFIRMED = 0,
	/* NON from the workers, answered at once; losses the gateway sees are counted */
	TP_IOTGW_DELIVERY_FORGET,
};

/* The defaults: PHD on UDP 6024, the IN-CSE's CoAP on 5683, 60 s sessions. */
#define TP_IOTGW_CONF_DEFAULT                                                                      \
	{                                                                                          \
		.port = 6024, .cse_port = 5683, .cse_name = "cse-in", .session_timeout_ms = 60000, \
		.reg_timeout_ms = TP_IOTGW_REG_TIMEOUT_MS, .max_sessions = TP_AE_MAX,              \
		.max_per_source = 256, .evict_idle_ms = 10000, .mni = 1000,                        \
		.delivery = TP_IOTGW_DELIVERY_CONFIRMED, .max_pending = 4096, .agent_pending = 64, \
		.ack_timeout_ms = 2000, .ae_retention_s = TP_IOTGW_AE_RETENTION_S,                 \
	}

extern struct tp_iotgw_conf tp_iotgw;
extern struct tp_ae *tp_ae_table;

/* Counters of the report path: in the daemon, the module's counters (core/counter.h:
 * "iotgw.<name>", per port and lcore); in the socket gateway, an array of its own.
 * X(enum suffix, name, kind) */
#define TP_IOTGW_COUNTERS(X)                                                                       \
	X(REPORTS, "reports", EVENT)                                                               \
	X(CIN_SENT, "cin_sent", EVENT)                                                             \
	X(RESPONSES, "responses_sent", EVENT)                                                      \
	X(DUPLICATES, "duplicates", EVENT)                                                         \
	X(REPEATED_OBS, "repeated_observations", EVENT)                                            \
	X(TO_CONTROL, "signaling_to_control", PUNT)                                                \
	X(UNASSOCIATED, "drop_unassociated", DROP)                                                 \
	X(NOT_READY, "drop_not_ready", DROP)                                                       \
	X(DECODE_ERR, "drop_decode_error", DROP)                                                   \
	X(UNKNOWN_OBJ, "drop_unknown_object", DROP)                                                \
	X(NOMBUF, "drop_no_mbuf", DROP)                                                            \
	X(SIGNALING_INLINE, "signaling_inline", EVENT)                                             \
	X(BACKLOG_DROP, "drop_single_plane_backlog", DROP)                                         \
	X(SPOOFED, "drop_spoofed_source", DROP)                                                    \
	X(FRAGMENT, "drop_fragment", DROP)                                                         \
	X(EARLY, "reports_before_ready", EVENT)

/* the list macro ends each name with a comma, which clang-format cannot see */
/* clang-format off */
enum tp_iotgw_ctr {
#define X(e, n, k) TP_IOTGW_##e,
	TP_IOTGW_COUNTERS(X)
#undef X
	TP_IOTGW_CTR_MAX
};
/* clang-format on */
extern const char *const tp_iotgw_ctr_names[TP_IOTGW_CTR_MAX];

#define TP_IOTGW_CIN_TKL 2 /* token of a contentInstance request: its message id */

/* --- AE table (ae.c) --- */
/* The table and its index: 0 or -ENOMEM (nothing allocated); tp_ae_fini frees them
 * (no reader left: the lcores stopped, or never given a datagram). */
int tp_ae_init(void);
void tp_ae_fini(void);
/* Index of the agent's entry, or -ENOENT. Lock-free; callable from workers. */
int tp_ae_lookup(uint32_t ip, uint16_t port);
/* A free entry for the agent, bound to its frames' source l2src (0: none), added to
 * the hash (state CONFIGURING), or -ENOSPC. */
int tp_ae_create(uint32_t ip, uint16_t port, const uint8_t sysid[8], uint64_t l2src);

/* A frame's source as an AE entry binds it: ingress port + 1 above the source MAC
 * (never 0). */
static inline uint64_t tp_iotgw_l2src(uint16_t port, const uint8_t mac[6])
{
	uint64_t v = (uint64_t)(port + 1u) << 48;

	for (unsigned int i = 0; i < 6; i++)
		v |= (uint64_t)mac[i] << (8 * (5 - i));
	return v;
}
/* Remove an agent's entry; its slot is reused once no lcore can read it any more
 * (an RCU grace period later, without waiting). */
void tp_ae_delete(int idx);
unsigned int tp_ae_count(void);
/* Publish a state (release store). READY makes the metrics' request templates first. */
void tp_ae_set_state(int idx, enum tp_ae_state s);

/* --- the report path (report.c): per worker, or per gateway thread --- */
#define TP_IOTGW_SRC_SLOTS 4096 /* AARQ sources a worker remembers (a power of 2) */
#define TP_IOTGW_SRC_WAYS 4	/* ... in sets of this many (an agent's in one set) */
struct tp_iotgw_dp {
	uint64_t *ctr;	      /* [TP_IOTGW_CTR_MAX]: the counters of the packet's port */
	uint64_t proc_cycles; /* TSC cycles in tp_iotgw_report(), with tp_iotgw.profile */
	uint16_t mid;
	uint32_t rqi;
	unsigned int id; /* worker id, in request ids */
	bool defer;	 /* hand reports to the control plane: confirmed delivery (delivery.c) */
	bool con;	 /* build confirmable requests that want an answer (delivery.c's) */
	/* hand reports of configured agents whose AE is not ready yet (QUERYING,
	 * REGISTERING) to the control plane (early.c) instead of dropping them */
	bool early;
	uint64_t l2src; /* the datagram's source (tp_iotgw_l2src), set by the caller; 0: unknown */
	/* per agent, side by side (one line per report, not two) */
	struct {
		uint32_t invoke; /* gen << 16 | invoke-id + 1 of its last confirmed report */
		uint32_t seen;	 /* tp_iotgw_now_s when a report was last seen */
	} agent[TP_AE_MAX];
	/* the sources of the AARQs this worker handed to the control plane, by agent
	 * (4-way set-associative, the set's oldest replaced: a flood of AARQs from other
	 * addresses must hit the agent's set 4 times between its AARQ and the session
	 * manager's read to unbind it): the session manager binds a new session to its
	 * AARQ's source (tp_iotgw_aarq_source). Written by the worker under seq (odd while
	 * written). */
	struct tp_iotgw_src {
		uint32_t seq;
		uint32_t ip;
		uint64_t l2src;
		uint16_t port;
	} src[TP_IOTGW_SRC_SLOTS];
	uint8_t src_next[TP_IOTGW_SRC_SLOTS / TP_IOTGW_SRC_WAYS]; /* per set: way to replace */
};

/* One measurement to send: the caller builds the CoAP request (tp_iotgw_cin_request)
 * into its own buffer. meas points into the caller's stack: use it before returning. */
typedef void (*tp_iotgw_emit_fn)(void *ctx, struct tp_iotgw_dp *dp, const struct tp_ae *ae,
				 const struct tp_ae_metric *mt, const struct tp_m2m_measure *meas);

enum tp_iotgw_verdict {
	TP_IOTGW_V_SIGNALING, /* not a scan report: for the session manager */
	TP_IOTGW_V_DONE,      /* converted (unconfirmed): nothing to answer */
	TP_IOTGW_V_ANSWER,    /* converted or duplicate (confirmed): answer with 0201 */
	TP_IOTGW_V_DROP,      /* counted in dp->ctr[*drop] */
};

/* Decide what the APDU of agent ip:port is and, for a scan report of a ready
 * agent, emit one measurement per metric. a receives the decoded APDU (the 0201
 * answer needs it). */
enum tp_iotgw_verdict tp_iotgw_report(struct tp_iotgw_dp *dp, const uint8_t *apdu, size_t len,
				      uint32_t ip, uint16_t port, struct tp_phd_apdu *a,
				      tp_iotgw_emit_fn emit, void *ctx, enum tp_iotgw_ctr *drop);
/* The contentInstance CREATE of metric mt of agent ae, but for its message id,
 * token, request id and payload: a CoAP NON POST to the container with rt=5 (no
 * response). tp_ae_set_state() makes mt->cin of it, tp_iotgw_cin_request() the
 * requests: one description for both. */
static inline struct tp_m2m_create tp_iotgw_cin_create(const struct tp_ae *ae,
						       const struct tp_ae_metric *mt)
{
	return (struct tp_m2m_create){
	    /* rt=5: noResponse (TS-0004 response type): ACME otherwise answers every NON
	     * create, a datagram per reading the gateway has no use for */
	    .type = TP_COAP_NON, .tkl = TP_IOTGW_CIN_TKL, .path = mt->path,
	    .query = "rt=5",	 .ty = TP_M2M_TY_CIN,	  .from = ae->origin,
	};
}
/* The CoAP NON POST creating meas under mt's container (rt=5: no response): from
 * the template mt->cin when it is made, else by the general encoder (the same bytes);
 * with dp->con (confirmed delivery, delivery.c) a CON POST without rt=5, whose
 * answer comes piggybacked on the ACK, by the general encoder. */
int tp_iotgw_cin_request(struct tp_iotgw_dp *dp, uint8_t *buf, size_t cap, const struct tp_ae *ae,
			 const struct tp_ae_metric *mt, const struct tp_m2m_measure *meas);
/* The 0201 answer to the confirmed report d. */
int tp_iotgw_answer(const struct tp_phd_data_apdu *d, uint8_t *buf, size_t cap);
/* Seconds clock the control side keeps (for last_seen). */
extern volatile uint32_t tp_iotgw_now_s;
/* UTC seconds since 1970 the control side keeps (time() every tick): the receive time
 * of measurements whose time stamp is unset (all zero). */
extern volatile uint64_t tp_iotgw_wall_s;

/* --- the module (module.c; the report path's entry and sums: fast.c) --- */
struct tp_nf;
extern struct tp_nf tp_iotgw_nf;
int tp_iotgw_fast_register(void);
/* When the workers last saw a report of agent idx on tp_iotgw_now_s (0: never). */
uint32_t tp_iotgw_last_seen(int idx);
/* Where the AARQ of agent ip:port that a worker handed over came from
 * (tp_iotgw_l2src), or 0: not remembered, or two workers saw different sources. */
uint64_t tp_iotgw_aarq_source(uint32_t ip, uint16_t port);
/* Sum of a counter over the workers; TSC cycles in the report path. */
uint64_t tp_iotgw_counter(enum tp_iotgw_ctr c);
uint64_t tp_iotgw_proc_cycles(void);

/* --- single plane (single.c): signaling inline on the worker --- */
struct tp_worker;
struct rte_mbuf;
/* Its backlog rings, pool, ping socket and timer: 0 or a negative errno (nothing
 * left made); tp_iotgw_single_fini frees them, after a partial, failed or no init. */
int tp_iotgw_single_init(void);
void tp_iotgw_single_fini(void);
void tp_iotgw_single_input(struct tp_worker *w, struct rte_mbuf *m, const uint8_t *apdu, size_t len,
			   uint32_t ip, uint16_t port);

const char *tp_ae_state_name(uint8_t s);

#endif
