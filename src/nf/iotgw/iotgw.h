/* SPDX-License-Identifier: BSD-3-Clause */
/* The IoT gateway (oneM2M MN-CSE of seed 000): ISO/IEEE 11073-20601 PHD traffic in,
 * oneM2M contentInstance creations over CoAP out to an IN-CSE.
 *
 * Data plane (fast.c, on the workers): scan reports from associated agents become
 * one CoAP NON POST per metric; confirmed reports are answered (0201) there.
 * Control plane (session.c, registrar.c): association, configuration, release,
 * abort, timeouts; the AE and its containers are created on the IN-CSE before
 * the agent's AE-table entry is marked ready. The AE table (ae.c) is the only
 * state the planes share: written by the control plane, read lock-free. */
#ifndef TP_NF_IOTGW_H
#define TP_NF_IOTGW_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_rcu_qsbr.h>

#include "../../proto/mder.h"

#define TP_AE_MAX 8192
#define TP_AE_MAX_METRICS 8
#define TP_AE_PATH_MAX 96

enum tp_ae_state {
	TP_AE_FREE = 0,
	TP_AE_CONFIGURING,  /* associated, waiting for the agent's configuration report */
	TP_AE_REGISTERING,  /* the registrar is creating the AE and its containers */
	TP_AE_READY,	    /* the data plane converts its reports */
	TP_AE_FAILED,	    /* the IN-CSE refused or did not answer: reports are dropped */
};

struct tp_ae_metric {
	uint16_t handle;    /* the 11073 object */
	char label[24];	    /* container name: "spo2" */
	char unit[16];	    /* unit symbol: "%" */
	char path[TP_AE_PATH_MAX]; /* CoAP path of the container: "/cse-in/PHD-.../spo2" */
};

/* One associated agent. Written by the control plane only; workers read it
 * between two quiescent states after finding its index in the hash. */
struct tp_ae {
	uint32_t ip;	/* agent address and port, host order */
	uint16_t port;
	uint8_t state;	/* enum tp_ae_state, stored last (release) */
	uint8_t n_metrics;
	uint16_t gen;	/* bumped at every creation: tells a reused slot apart */
	uint8_t sysid[8];
	char ae_name[24];   /* "PHD-0011223344556677" */
	char origin[24];    /* "C0011223344556677" */
	uint16_t config_id;
	struct tp_ae_metric metric[TP_AE_MAX_METRICS];
	struct tp_phd_value_map map; /* decodes fixed scan observations */
	/* control plane only */
	uint64_t last_ms;
	uint16_t pending_invoke; /* invoke-id of the config report being answered */
	uint8_t reg_step, reg_tries;
	uint64_t reg_due_ms;
	uint16_t reg_mid;
};

struct tp_iotgw_conf {
	bool enabled;
	bool single_plane;
	uint16_t port;		 /* PHD UDP port, 6024 */
	uint32_t cse_ip;	 /* IN-CSE, host order */
	uint16_t cse_port;	 /* its CoAP port, 5683 */
	char cse_name[32];	 /* "cse-in" */
	uint32_t session_timeout_ms;
	uint32_t max_sessions;	 /* bound of the AE table, <= TP_AE_MAX */
};

extern struct tp_iotgw_conf tp_iotgw;
extern struct tp_ae *tp_ae_table;

/* Per-worker counters of the fast path (named like drop reasons). */
#define TP_IOTGW_COUNTERS(X)                                                                       \
	X(REPORTS, "reports")                                                                     \
	X(CIN_SENT, "cin_sent")                                                                   \
	X(RESPONSES, "responses_sent")                                                            \
	X(DUPLICATES, "duplicates")                                                               \
	X(TO_CONTROL, "signaling_to_control")                                                     \
	X(UNASSOCIATED, "drop_unassociated")                                                      \
	X(NOT_READY, "drop_not_ready")                                                            \
	X(DECODE_ERR, "drop_decode_error")                                                        \
	X(UNKNOWN_OBJ, "drop_unknown_object")                                                     \
	X(NO_ROUTE, "drop_cse_unreachable")                                                       \
	X(NOMBUF, "drop_no_mbuf")

enum tp_iotgw_ctr {
#define X(e, n) TP_IOTGW_##e,
	TP_IOTGW_COUNTERS(X)
#undef X
	TP_IOTGW_CTR_MAX
};
extern const char *const tp_iotgw_ctr_names[TP_IOTGW_CTR_MAX];

/* --- AE table (ae.c) --- */
int tp_ae_init(struct rte_rcu_qsbr *qs);
/* Index of the agent's entry, or -ENOENT. Lock-free; callable from workers. */
int tp_ae_lookup(uint32_t ip, uint16_t port);
/* A free entry for the agent, added to the hash (state CONFIGURING), or -ENOSPC. */
int tp_ae_create(uint32_t ip, uint16_t port, const uint8_t sysid[8]);
/* Remove an agent's entry; returns after no worker can read it any more. */
void tp_ae_delete(int idx);
unsigned int tp_ae_count(void);
/* Publish a state (release store). */
void tp_ae_set_state(int idx, enum tp_ae_state s);

/* --- fast path (fast.c) --- */
int tp_iotgw_fast_register(void);
/* Seconds clock the control plane keeps, and when the workers last saw a report
 * of agent idx on it (0: never). */
extern volatile uint32_t tp_iotgw_now_s;
uint32_t tp_iotgw_last_seen(int idx);
/* Sum of a counter over the workers. */
uint64_t tp_iotgw_counter(enum tp_iotgw_ctr c);

/* --- control plane (session.c, registrar.c) --- */
struct tp_iotgw_session_stats {
	uint64_t received, sent, send_errors, bad, ignored, unassociated;
	uint64_t associated, configured, rejected, rejected_full, released, aborted, timed_out;
	uint64_t reg_requests, reg_retries, reg_ready, reg_failed;
};
extern struct tp_iotgw_session_stats tp_iotgw_sess;

int tp_iotgw_session_start(void);
void tp_iotgw_session_tick(void);
/* Fill an entry's metrics from its value map and start registering it. */
void tp_iotgw_registrar_start(int idx);
void tp_iotgw_registrar_tick(void);
int tp_iotgw_registrar_init(void);
const char *tp_ae_state_name(uint8_t s);

#endif
