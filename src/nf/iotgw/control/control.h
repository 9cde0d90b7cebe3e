/* SPDX-License-Identifier: BSD-3-Clause */
/* The IoT gateway's control side (iotgw.h has what the data plane shares with it:
 * the configuration, the AE table, the counters, the report path): the session
 * manager over a transport (session.c), the registration of a device on the IN-CSE
 * (register.c, registrar.c), confirmed delivery (delivery.c), reports before the AE
 * is ready (early.c) and the dual plane's control thread (control.c). Its users: the
 * module and its commands, single plane's worker (datapath/single.c, where the
 * session manager runs inline) and the socket gateway (src/tools/sockgw.c). Control
 * plane only, but for single plane. */
#ifndef TP_NF_IOTGW_CONTROL_CONTROL_H
#define TP_NF_IOTGW_CONTROL_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../iotgw.h"

/* --- the session manager (session.c), over a transport --- */
struct tp_iotgw_session_stats {
	uint64_t received, sent, send_errors, bad, ignored, unassociated;
	uint64_t associated, configured, rejected, rejected_full, released, aborted, timed_out;
	uint64_t mds_queried, mds_answered, mds_unanswered;
	uint64_t reg_requests, reg_retries, reg_ready, reg_failed, reg_ignored, reg_server_errors;
	uint64_t rejected_duplicate, rejected_source, evicted;
	/* datagrams the kernel delivered past the workers' checks (IP options, to a
	 * broadcast address): dropped */
	uint64_t unchecked;
	/* ... and those that came from another interface than a TAP, or to a local
	 * address that is not a port's (the management network): dropped (counted in unchecked too)
	 */
	uint64_t not_via_tap;
	/* AARQs whose source the workers could not tell (not bound): refused */
	uint64_t rejected_unbound;
	/* registrations whose AE existed on the IN-CSE bound to another source: failed */
	uint64_t reg_conflict;
	/* tp_iotgw.ae_retention_s: AE expirationTimes set again (UPDATE answered 2.xx), and
	 * the UPDATEs refused or unanswered (tried again later); AEs (or their containers)
	 * the IN-CSE answered 4.04 for while their agent was associated (expired, or
	 * deleted); registrations made again for them */
	uint64_t ae_refreshed, ae_refresh_failed, ae_expired, ae_reregistered;
};
extern struct tp_iotgw_session_stats tp_iotgw_sess;

struct tp_iotgw_io {
	/* send an APDU to agent ip:port (host order); 0 or -errno */
	int (*send)(struct tp_iotgw_io *io, const uint8_t *buf, size_t len, uint32_t ip,
		    uint16_t port);
	/* the agent's configuration is known: register it (start, or do it all) */
	void (*registration)(struct tp_iotgw_io *io, int idx);
	/* when the data plane last saw a report of agent idx (s), or NULL */
	uint32_t (*last_seen)(int idx);
	/* where agent ip:port's AARQ came from (tp_iotgw_l2src), 0 if not known; NULL:
	 * the transport cannot tell (kernel sockets) */
	uint64_t (*source_l2)(uint32_t ip, uint16_t port);
	uint64_t now_ms; /* the caller's clock, set before each call */
};

/* A datagram of agent ip:port for the session manager. */
void tp_iotgw_session_input(struct tp_iotgw_io *io, const uint8_t *apdu, size_t len, uint32_t ip,
			    uint16_t port);
/* Remove agents silent for longer than the session timeout; last_seen(idx) in s.
 * Agents that left the GET of their MDS attributes unanswered for
 * TP_IOTGW_GET_TIMEOUT_MS are registered without them (io: the registration). */
void tp_iotgw_session_expire(uint64_t now_ms, uint32_t (*last_seen)(int idx));
void tp_iotgw_session_tick(struct tp_iotgw_io *io);
#define TP_IOTGW_GET_TIMEOUT_MS 3000 /* 20601's TO_get, 3 s */

/* --- registration on the IN-CSE (register.c) --- */
enum tp_iotgw_reg {
	TP_IOTGW_REG_IGNORE,
	TP_IOTGW_REG_NEXT,
	TP_IOTGW_REG_READY,
	TP_IOTGW_REG_FAILED,
	TP_IOTGW_REG_AGAIN, /* a transient refusal: the same step again after the wait */
	/* a READY entry's expirationTime UPDATE (tp_iotgw_refresh_request) answered: */
	TP_IOTGW_REG_REFRESHED,	     /* set (2.xx) */
	TP_IOTGW_REG_REFRESH_FAILED, /* refused: try again later */
	TP_IOTGW_REG_GONE,	     /* the AE is not there (4.04): register it again */
};
#define TP_IOTGW_REG_TIMEOUT_MS 1000 /* the default of tp_iotgw.reg_timeout_ms */
#define TP_IOTGW_REG_TRIES 5
/* the dual plane's registrar never gives up on an IN-CSE that does not answer: after
 * TP_IOTGW_REG_TRIES it goes on at the longest wait, reg_timeout << REG_BACKOFF_MAX */
#define TP_IOTGW_REG_BACKOFF_MAX 4
/* Transient refusals of one request before it counts as refused (registration and
 * contentInstances alike): 5.xx, and 4.00 Bad Request, which ACME answers to valid
 * requests for about a second after it starts (its attribute policies are not loaded
 * yet: measured, README Decisions); other 4.xx are final. */
#define TP_IOTGW_SERVER_ERRORS 8
bool tp_iotgw_transient_refusal(const struct tp_coap_msg *m);

/* Fill an entry's metrics from its value map; state REGISTERING, step 0 (the AE). */
void tp_iotgw_reg_begin(int idx);
/* The confirmable CoAP request of the entry's current step; of a READY entry with
 * refreshing set, the UPDATE of its AE's expirationTime. */
int tp_iotgw_reg_request(int idx, uint8_t *buf, size_t cap, uint16_t mid);
/* Register a READY entry again (its AE is gone on the IN-CSE): state REGISTERING, step
 * 0, its metrics kept (workers may still be reading them). */
void tp_iotgw_reg_again(int idx);

/* AE lifetime (tp_iotgw.ae_retention_s; pure, no clock of their own) */
/* The expirationTime of an AE set at wall_s (UTC s): wall_s + retention_s as oneM2M's
 * basic ISO 8601 time (TS-0004 6.3.5.38 timestamp, "20260101T120000", UTC). */
void tp_iotgw_ae_et(uint64_t wall_s, uint32_t retention_s, char out[TP_M2M_TIME_SIZE]);
/* When an expirationTime set at now_ms is set again: halfway to it (at least 1 s on). */
uint64_t tp_iotgw_refresh_at(uint64_t now_ms, uint32_t retention_s);
/* When a refresh that failed at now_ms is tried again: the registration's longest wait
 * (reg_timeout_ms << TP_IOTGW_REG_BACKOFF_MAX), but never later than refresh_at()
 * would be. */
uint64_t tp_iotgw_refresh_retry_at(uint64_t now_ms, uint32_t retention_s, uint32_t reg_timeout_ms);
/* Whether entry e's expirationTime is to be set now: READY, scheduled, due, and not in
 * flight already (one refresh per AE at a time). */
bool tp_iotgw_refresh_due(const struct tp_ae *e, uint64_t now_ms);
#define TP_IOTGW_REFRESH_PER_TICK 32 /* refreshes started per control tick, at most */
/* An IN-CSE answer: which entry (*idx) and what it means; advances the step. */
enum tp_iotgw_reg tp_iotgw_reg_response(const uint8_t *buf, size_t len, int *idx);

/* Synchronous registration: send, then wait for the answer (retry on timeout). */
struct tp_iotgw_reg_link {
	int (*send)(struct tp_iotgw_reg_link *l, const uint8_t *buf, size_t len);
	/* one datagram from the IN-CSE, or -ETIMEDOUT once now_ms() passes deadline */
	int (*recv)(struct tp_iotgw_reg_link *l, uint8_t *buf, size_t cap, uint64_t deadline_ms);
	uint64_t (*now_ms)(struct tp_iotgw_reg_link *l);
};
/* 0 when the entry is ready, -errno when the IN-CSE refused or never answered. */
int tp_iotgw_register_sync(int idx, struct tp_iotgw_reg_link *l);

/* --- confirmed delivery (delivery.c): the dual plane's control side --- */
struct tp_iotgw_delivery_stats {
	uint64_t reports, cin_queued, cin_stored, cin_refused, cin_lost, retransmissions;
	uint64_t answered, answered_again, duplicates_pending, reports_refused_full;
	uint64_t reports_refused_share; /* refused whole: over the agent's agent_pending */
	uint64_t went_down, came_back, probes, probes_answered, ignored, server_errors;
	uint64_t forget_sent_while_down; /* fire-and-forget: NONs sent into an IN-CSE known down */
};
extern struct tp_iotgw_delivery_stats tp_iotgw_deliv;
/* Start it (its socket connected to the IN-CSE, its probe); answers go through io. */
int tp_iotgw_delivery_init(struct tp_iotgw_io *io);
/* Stop it: its socket closed, its queue freed (what it held is lost). */
void tp_iotgw_delivery_fini(void);
/* A datagram of agent ip:port on the control plane: true if it was a report (taken,
 * queued for the IN-CSE), false if it is the session manager's. */
bool tp_iotgw_delivery_input(struct tp_iotgw_io *io, const uint8_t *apdu, size_t len, uint32_t ip,
			     uint16_t port);
/* Every control tick: retransmissions, the IN-CSE's probe. */
void tp_iotgw_delivery_tick(uint64_t now_ms);
/* Measurements waiting (queued or in flight); whether the IN-CSE answers. */
unsigned int tp_iotgw_delivery_pending(void);
bool tp_iotgw_delivery_cse_up(void);
/* A counter of the control plane's report path (the reports it converts). */
uint64_t tp_iotgw_delivery_counter(enum tp_iotgw_ctr c);
/* Fire-and-forget: NONs the workers sent while the IN-CSE was known down (so far). */
uint64_t tp_iotgw_delivery_forget_lost(void);
struct tp_metrics;
/* The module's metrics (struct tp_nf's metrics callback, cli.c). */
void iotgw_metrics(struct tp_metrics *m);

/* --- reports before the AE is ready (early.c): the dual plane's control side --- */
struct tp_iotgw_early_stats {
	uint64_t held;		  /* reports of agents whose AE was not ready, taken */
	uint64_t released;	  /* handed on once the AE was ready */
	uint64_t answered;	  /* answered while held (fire-and-forget), or again */
	uint64_t duplicates;	  /* the agent's retransmissions of a held report */
	uint64_t refused_full;	  /* not held (bounds): not answered either */
	uint64_t dropped;	  /* held by a session that ended or failed to register */
	uint64_t get_skipped;	  /* agents registered without their GET's answer */
	uint64_t cin_sent;	  /* fire-and-forget: NON requests of released reports */
	uint64_t cin_send_errors; /* ... that could not be sent */
};
extern struct tp_iotgw_early_stats tp_iotgw_early;
/* io answers the agents (kept); fire-and-forget opens its IN-CSE socket. 0 or -errno. */
int tp_iotgw_early_init(struct tp_iotgw_io *io);
void tp_iotgw_early_fini(void); /* its IN-CSE socket closed */
/* A datagram of agent ip:port on the control plane: true if it was a scan report of an
 * agent whose AE is not ready yet (held, answered or refused here); false for the
 * others, after any reports held for the agent were handed on. */
bool tp_iotgw_early_input(struct tp_iotgw_io *io, const uint8_t *apdu, size_t len, uint32_t ip,
			  uint16_t port);
/* Agent idx's AE is ready: its held reports go on, in the order they came. */
void tp_iotgw_early_ready(int idx);
/* Every control tick: ready AEs' reports go on, ended sessions' are dropped, agents
 * that report instead of answering the GET are registered. */
void tp_iotgw_early_tick(struct tp_iotgw_io *io);
unsigned int tp_iotgw_early_held(void);
/* Register agent idx now if it still waits for its GET's answer (session.c). */
void tp_iotgw_session_register_now(struct tp_iotgw_io *io, int idx);

/* --- the dual plane's control side (control.c, registrar.c) --- */
/* Start the control side (sockets, timers; the workers' hand-over flags): 0, or a
 * negative errno with nothing of it left started. tp_iotgw_control_stop undoes it. */
int tp_iotgw_control_start(void);
void tp_iotgw_control_stop(void);
void tp_iotgw_registrar_start(int idx);
/* Register READY entry idx again (its AE or a container is gone on the IN-CSE: 4.04):
 * counted in ae_expired and ae_reregistered; nothing done for an entry not READY. */
void tp_iotgw_registrar_again(int idx);
void tp_iotgw_registrar_tick(void);
/* A UDP socket connected to the IN-CSE (non-blocking): its fd, or -errno. The
 * registrar's and delivery's own; a connected socket takes datagrams from the
 * IN-CSE's address and port only. */
int tp_iotgw_cse_socket(void);
int tp_iotgw_registrar_init(void);
void tp_iotgw_registrar_fini(void);

#endif
