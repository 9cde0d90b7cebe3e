/* SPDX-License-Identifier: BSD-3-Clause */
/* RSTP (IEEE 802.1D-2004 clause 17) for one bridge, as a pure state machine: BPDUs
 * in (decoded, proto/bpdu.h), a tick a second, link changes; BPDUs out, port states
 * and MAC-table flushes through callbacks. No DPDK, no clock of its own: the L2
 * switch's control plane drives it (control/stp.c), and so do its unit tests and
 * fuzz target. A faithful subset (README "Spanning tree"): the port roles root,
 * designated, alternate, backup and disabled; the states discarding, learning,
 * forwarding; proposal/agreement on point-to-point links (every port is one); edge
 * ports (admin, or detected); STP (802.1D-1998) compatibility per port (Configuration
 * and TCN BPDUs); topology change detection, notification and propagation with
 * flushes. Not done: dispute handling beyond the learning flag, the ageing-time
 * change of STP compatibility (ports are flushed instead), MSTP. */
#ifndef TP_NF_L2_RSTP_H
#define TP_NF_L2_RSTP_H

#include <stdbool.h>
#include <stdint.h>

#include "../../../proto/bpdu.h"

#define RSTP_PORTS 64 /* at least TP_MAX_PORTS (control/stp.c checks it) */

enum rstp_role {
	RSTP_ROLE_DISABLED,
	RSTP_ROLE_ROOT,
	RSTP_ROLE_DESIGNATED,
	RSTP_ROLE_ALTERNATE,
	RSTP_ROLE_BACKUP,
};

enum rstp_state { RSTP_DISCARDING, RSTP_LEARNING, RSTP_FORWARDING };

enum rstp_info { RSTP_INFO_DISABLED, RSTP_INFO_AGED, RSTP_INFO_MINE, RSTP_INFO_RECEIVED };

/* 802.1D-2004 17.6: a priority vector; smaller is better, field by field */
struct rstp_vector {
	uint64_t root;
	uint32_t cost;
	uint64_t bridge; /* designated bridge */
	uint16_t port;	 /* designated port */
	uint16_t rx;	 /* the receiving port's identifier (root selection only) */
};

/* 17.19.21 etc.: times in seconds */
struct rstp_times {
	uint16_t msg_age, max_age, hello, fwd_delay;
};

struct rstp_port {
	bool used, enabled; /* a member; its link is up */
	uint8_t prio;	    /* 0-240, steps of 16 (17.14) */
	uint16_t num;	    /* port number 1-4095 */
	uint32_t cost;	    /* port path cost (17.14, 1-200000000) */
	uint8_t admin_edge; /* 0 no, 1 yes, 2 auto (detected, 17.25) */
	bool oper_edge;
	uint8_t role, selected_role, state, info;
	struct rstp_vector port_pri, desg_pri;
	struct rstp_times port_times, desg_times;
	/* 17.19: the per-port variables the subset keeps */
	bool send_rstp, proposing, proposed, agree, agreed, synced, sync, re_root;
	bool new_info, tc_ack, rcvd_tc, rcvd_tcn, rcvd_tc_ack, tc_prop, updt_info;
	bool learn, forward, disputed, reselect;
	/* 17.17: timers, in seconds */
	uint16_t fd_while, rr_while, rb_while, tc_while, hello_when, rcvd_info_while;
	uint16_t edge_delay_while, mdelay_while;
	uint8_t tx_count;
	/* what happened, for show */
	uint64_t rx_bpdus, tx_bpdus, rx_stp, rx_tcn, transitions, flushes, rx_own;
};

struct rstp_bridge;

/* What the state machines do to the outside: each called on the caller's thread. */
struct rstp_ops {
	/* send b on port (the caller writes the frame: proto/bpdu.h) */
	void (*tx)(void *ctx, uint16_t port, const struct tp_bpdu *b);
	/* port's state is now st (enum rstp_state) */
	void (*state)(void *ctx, uint16_t port, uint8_t st);
	/* remove the MAC entries learned on port (17.19.7 fdbFlush) */
	void (*flush)(void *ctx, uint16_t port);
};

struct rstp_bridge {
	bool on;
	uint64_t bid;		 /* priority << 48 | MAC */
	struct rstp_times times; /* BridgeTimes: max age, hello, forward delay */
	uint8_t tx_hold;	 /* TxHoldCount (17.13.12), 6 */
	uint8_t force_version;	 /* 2: RSTP; 0: STP only */
	struct rstp_vector root; /* rootPriority */
	struct rstp_times root_times;
	int root_port;		    /* -1: this bridge is the root */
	uint64_t tc_count, tc_last; /* topology changes, and the tick of the last */
	uint64_t ticks;
	const struct rstp_ops *ops;
	void *ctx;
	struct rstp_port port[RSTP_PORTS];
};

/* Defaults (802.1D-2004 Table 17-1): priority 32768, hello 2 s, max age 20 s, forward
 * delay 15 s, TxHoldCount 6; port priority 128, path cost 20000 (1 Gb/s, Table 17-3). */
#define RSTP_PRIO_DEFAULT 32768
#define RSTP_HELLO_DEFAULT 2
#define RSTP_MAX_AGE_DEFAULT 20
#define RSTP_FWD_DELAY_DEFAULT 15
#define RSTP_PORT_PRIO_DEFAULT 128
#define RSTP_COST_DEFAULT 20000
#define RSTP_MIGRATE_TIME 3 /* 17.13.9 */

/* b reset: off, no ports, the defaults, with ops and ctx. */
void rstp_init(struct rstp_bridge *b, const struct rstp_ops *ops, void *ctx);
/* The bridge's identifier from prio (0-61440, steps of 4096) and mac (6 octets). */
void rstp_set_bid(struct rstp_bridge *b, uint16_t prio, const uint8_t *mac);
/* Check times as 17.14 and Table 17-1 bound them: 0 or -EINVAL. */
int rstp_times_ok(uint16_t hello, uint16_t max_age, uint16_t fwd_delay);
/* Start (stop) the protocol: every member port restarts from discarding (on); all
 * forwarding with no BPDU sent (off). */
void rstp_start(struct rstp_bridge *b);
void rstp_stop(struct rstp_bridge *b);
/* Port p joins the bridge with priority prio (0-240), path cost, admin_edge (0 no, 1
 * yes, 2 auto); enabled: its link is up. A member already: its settings change. */
void rstp_port_add(struct rstp_bridge *b, uint16_t p, bool enabled, uint8_t prio, uint32_t cost,
		   uint8_t admin_edge);
/* Port p leaves the bridge. */
void rstp_port_del(struct rstp_bridge *b, uint16_t p);
/* Port p's link went up or down. */
void rstp_port_enable(struct rstp_bridge *b, uint16_t p, bool enabled);
/* The bridge's identifier or times changed: roles computed again. */
void rstp_bridge_changed(struct rstp_bridge *b);
/* A BPDU received on p (decoded by tp_bpdu_parse). Returns 0, or 1 when it was our
 * own (a loop back to this bridge: the sender is this bridge and port). */
int rstp_rx(struct rstp_bridge *b, uint16_t p, const struct tp_bpdu *m);
/* One second passed: the timers (17.22), then the machines. */
void rstp_tick(struct rstp_bridge *b);

/* The port identifier of p (17.19.21): priority in the top 4 bits, the number. */
static inline uint16_t rstp_port_id(const struct rstp_port *pt)
{
	return (uint16_t)((pt->prio >> 4) << 12 | (pt->num & 0xfff));
}

const char *rstp_role_name(uint8_t role);
const char *rstp_state_name(uint8_t st);

#endif
