/* SPDX-License-Identifier: BSD-3-Clause */
/* The L2 switch's control plane, shared by its parts (not outside src/nf/l2):
 * control/mac.c the MAC table (its only writer: learn events, aging, static
 * entries, the per-port and per-bridge limits), control/bridge.c bridges and the
 * "l2" port mode, control/chain.c NFs, service chains and the "chain" port mode;
 * cli.c their commands, module.c the module. Every function here runs on the
 * control thread. */
#ifndef TP_NF_L2_CONTROL_H
#define TP_NF_L2_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../l2.h"

#define L2_NF_MAX 32
#define L2_CHAINS_MAX 16
#define L2_CHAIN_LEN_MAX 8

struct tp_cmd_ctx;
struct tp_node;
struct tp_port_mode;

/* --- the MAC table (control/mac.c) --- */
extern uint32_t l2_mac_cap;	/* entries (--l2-macs) */
extern uint32_t l2_mac_hiwater; /* entries below it may be in use */
extern unsigned int l2_n_bridges;
/* each l2 port's current configuration (control/bridge.c sets it) */
extern struct l2_port *l2_cfg[TP_MAX_PORTS];

/* The table of l2_mac_cap entries and its learn and aging timers: 0 or -ENOMEM
 * (nothing left allocated). l2_mac_fini frees what l2_mac_init made. */
int l2_mac_init(void);
void l2_mac_fini(void);
/* lp at its MAC limit */
bool l2_port_full(const struct l2_port *lp);
void l2_set_bridge_flag(uint16_t b);
void l2_set_bridge_flags(void); /* the fair share changed */
/* a new bridge b: no dynamic entry counted */
void l2_mac_bridge_new(uint16_t b);
/* port's configuration in bridge, or NULL */
struct l2_port *l2_member(uint16_t bridge, uint16_t port);
void l2_mac_remove(uint32_t idx);
/* Add or move k to port at TSC now: 0, -EEXIST, -EDQUOT, -ENOSPC (control/mac.c). */
int l2_mac_set(const struct l2_key *k, uint16_t port, bool is_static, bool *moved, uint64_t now);
/* Every entry of bridge b on port (L2_NO_PORT: any), dynamic only unless all:
 * returns how many were removed. */
unsigned int l2_mac_flush(uint16_t b, uint16_t port, bool all);

/* --- bridges (control/bridge.c) --- */
/* A bridge's settings, as "bridge add" and "bridge set" take them. */
struct l2_bridge_opts {
	uint64_t aging, mac_limit;
	uint8_t bpdu; /* enum l2_bpdu */
	bool has_aging, has_mac_limit, has_bpdu;
	/* the spanning tree: on/off, bridge priority, times (seconds) */
	bool stp, has_stp, has_prio, has_hello, has_max_age, has_fwd_delay;
	uint64_t prio, hello, max_age, fwd_delay;
};
const char *l2_port_name(uint16_t id);
struct l2_bridge *l2_bridge_by_name(const char *name);
/* A new bridge named name with o: 0, -EEXIST, -ENOSPC, -ENOMEM; *out set on 0. */
int l2_bridge_add(const char *name, const struct l2_bridge_opts *o, struct l2_bridge **out);
/* Remove br (no ports left in it): 0 or -EBUSY. */
int l2_bridge_del(struct l2_bridge *br);
void l2_bridge_apply(struct l2_bridge *br, const struct l2_bridge_opts *o);
/* (a, b) freed: a tp_rcu_defer callback */
void l2_free_members(void *a, void *b);
/* Publish br's members again (a port's STP state changed): 0 or -ENOMEM. */
int l2_members_publish(struct l2_bridge *br);

/* --- the spanning tree (control/stp.c, the protocol in control/rstp.c) --- */
/* Its timer and BPDU handler (l2_stp_init), stopped (l2_stp_fini). 0 or -errno. */
int l2_stp_init(void);
void l2_stp_fini(void);
/* br's spanning tree made (bridge add) or freed (bridge del): 0 or -ENOMEM. */
int l2_stp_new(struct l2_bridge *br);
void l2_stp_free(struct l2_bridge *br);
/* Check o's priority and times with br's (NULL: a new bridge's) as 17.14 bounds
 * them: 0, or -EINVAL with err saying why. */
int l2_stp_check(const struct l2_bridge *br, const struct l2_bridge_opts *o, char *err, size_t len);
/* Apply o's STP settings to br (checked before). */
void l2_stp_apply(struct l2_bridge *br, const struct l2_bridge_opts *o);
/* The data-plane state a port joining br starts in (enum l2_stp_state). */
uint8_t l2_stp_port_state(const struct l2_bridge *br, uint16_t port);
/* lp (l2_cfg[port], published) joined br, or took new settings; port left br. */
void l2_stp_port_join(struct l2_bridge *br, const struct l2_port *lp);
void l2_stp_port_leave(struct l2_bridge *br, uint16_t port);
/* 'show bridge': br's spanning tree, and port's in it */
void l2_stp_show(struct tp_node *o, const struct l2_bridge *br);
void l2_stp_show_port(struct tp_node *o, const struct l2_bridge *br, uint16_t port);

/* --- NFs and service chains (control/chain.c) --- */
struct l2_nfdef {
	bool used;
	char name[L2_NAME_MAX];
	uint16_t in, out; /* toward the NF (forward direction), back from it */
	bool up;
	uint64_t downs;
};

struct l2_chain {
	bool used;
	char name[L2_NAME_MAX];
	uint16_t from, to;
	unsigned int n;
	unsigned int nf[L2_CHAIN_LEN_MAX];
	bool bypass;
	unsigned int pending; /* mode changes not yet done */
	struct tp_cmd_ctx *ctx;
	int err;
};

extern struct l2_nfdef l2_nfs[L2_NF_MAX];
extern struct l2_chain l2_chains[L2_CHAINS_MAX];
extern struct l2_chain *l2_chain_of_port[TP_MAX_PORTS];

/* The NF watcher's timer: l2_chain_init starts it, l2_chain_fini stops it. */
void l2_chain_init(void);
void l2_chain_fini(void);
struct l2_nfdef *l2_nf_by_name(const char *name);
struct l2_chain *l2_chain_by_name(const char *name);
bool l2_link_up(uint16_t port);
bool l2_nf_in_chain(unsigned int nf);
/* c's ports in order (from, each NF's in and out, to) into ports: how many */
unsigned int l2_chain_ports(const struct l2_chain *c, uint16_t *ports);
/* Put c's np ports into the chain mode (c filled and used); ctx answered when
 * every port is done. l2_chain_stop puts them back in l3 and frees c when done. */
void l2_chain_start(struct l2_chain *c, const uint16_t *ports, unsigned int np,
		    struct tp_cmd_ctx *ctx);
void l2_chain_stop(struct l2_chain *c, struct tp_cmd_ctx *ctx);

#endif
