/* SPDX-License-Identifier: BSD-3-Clause */
/* RSTP's state machines for one bridge (802.1D-2004 clause 17), as rstp.h says.
 * Each machine is a function of the port's variables, run to a fixed point after
 * every event (a BPDU, a tick, a link change, a setting) in the order the standard's
 * machines feed each other: Port Information (17.27), Port Role Selection (17.28),
 * Port Role Transitions (17.29), Port State Transition (17.30), Topology Change
 * (17.31), then Port Transmit (17.26). */
#include <errno.h>
#include <string.h>

#include "rstp.h"

static uint16_t clamp16(uint16_t v, uint16_t lo, uint16_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

#define FOR_PORTS(b, pt)                                                                           \
	for (struct rstp_port *pt = (b)->port; pt < (b)->port + RSTP_PORTS; pt++)                  \
		if (pt->used)
#define FOR_PORTS_CONST(b, pt)                                                                     \
	for (const struct rstp_port *pt = (b)->port; pt < (b)->port + RSTP_PORTS; pt++)            \
		if (pt->used)

static uint16_t pidx(const struct rstp_bridge *b, const struct rstp_port *pt)
{
	return (uint16_t)(pt - b->port);
}

/* 17.6: a < b (-1), a == b (0), a > b (1); the receiving port's id only if rx */
static int vcmp(const struct rstp_vector *a, const struct rstp_vector *b, bool rx)
{
	if (a->root != b->root)
		return a->root < b->root ? -1 : 1;
	if (a->cost != b->cost)
		return a->cost < b->cost ? -1 : 1;
	if (a->bridge != b->bridge)
		return a->bridge < b->bridge ? -1 : 1;
	if (a->port != b->port)
		return a->port < b->port ? -1 : 1;
	if (rx && a->rx != b->rx)
		return a->rx < b->rx ? -1 : 1;
	return 0;
}

static bool times_eq(const struct rstp_times *a, const struct rstp_times *b)
{
	return a->msg_age == b->msg_age && a->max_age == b->max_age && a->hello == b->hello &&
	       a->fwd_delay == b->fwd_delay;
}

/* 17.20.5, 17.20.8, 17.20.10: FwdDelay, HelloTime, MaxAge of designatedTimes */
static uint16_t fwd_delay(const struct rstp_port *pt)
{
	return pt->desg_times.fwd_delay;
}

static uint16_t hello_time(const struct rstp_port *pt)
{
	return pt->desg_times.hello;
}

static bool rstp_version(const struct rstp_bridge *b)
{
	return b->force_version >= 2; /* 17.20.11 */
}

void rstp_init(struct rstp_bridge *b, const struct rstp_ops *ops, void *ctx)
{
	memset(b, 0, sizeof(*b));
	b->times = (struct rstp_times){0, RSTP_MAX_AGE_DEFAULT, RSTP_HELLO_DEFAULT,
				       RSTP_FWD_DELAY_DEFAULT};
	b->tx_hold = 6;
	b->force_version = 2;
	b->root_port = -1;
	b->ops = ops;
	b->ctx = ctx;
	rstp_set_bid(b, RSTP_PRIO_DEFAULT, (const uint8_t[6]){0});
}

void rstp_set_bid(struct rstp_bridge *b, uint16_t prio, const uint8_t *mac)
{
	uint64_t m = 0;

	for (int i = 0; i < 6; i++)
		m = m << 8 | mac[i];
	/* 9.2.5: 4 bits of priority, 12 of system ID extension (0: one tree), the MAC */
	b->bid = (uint64_t)(prio & 0xf000) << 48 | m;
}

int rstp_times_ok(uint16_t hello, uint16_t max_age, uint16_t fwd_delay)
{
	/* Table 17-1 ranges, and 17.14's 2 x (Forward Delay - 1) >= Max Age >= 2 x
	 * (Hello Time + 1) */
	if (hello < 1 || hello > 10 || max_age < 6 || max_age > 40 || fwd_delay < 4 ||
	    fwd_delay > 30)
		return -EINVAL;
	if (2 * (fwd_delay - 1) < max_age || max_age < 2 * (hello + 1))
		return -EINVAL;
	return 0;
}

const char *rstp_role_name(uint8_t role)
{
	static const char *const n[] = {"disabled", "root", "designated", "alternate", "backup"};
	return role < 5 ? n[role] : "?";
}

const char *rstp_state_name(uint8_t st)
{
	static const char *const n[] = {"discarding", "learning", "forwarding"};
	return st < 3 ? n[st] : "?";
}

/* the bridge's own vector as the root's (17.18.3) */
static struct rstp_vector own_vector(const struct rstp_bridge *b)
{
	return (struct rstp_vector){b->bid, 0, b->bid, 0, 0};
}

/* Port Role Selection (17.28, updtRolesTree 17.21.25, updtRoleDisabledTree) */
static void select_roles(struct rstp_bridge *b)
{
	struct rstp_vector best = own_vector(b);
	struct rstp_times rt = b->times;
	int root = -1;

	rt.msg_age = 0;
	FOR_PORTS(b, pt)
	{
		struct rstp_vector c;
		if (!pt->enabled || pt->info != RSTP_INFO_RECEIVED)
			continue;
		/* a vector from another port of this bridge is no way to the root */
		if ((pt->port_pri.bridge & 0xffffffffffffull) == (b->bid & 0xffffffffffffull))
			continue;
		c = pt->port_pri;
		c.cost = c.cost + pt->cost < c.cost ? UINT32_MAX : c.cost + pt->cost;
		c.rx = rstp_port_id(pt);
		if (vcmp(&c, &best, true) < 0) {
			best = c;
			root = pidx(b, pt);
			rt = pt->port_times;
			rt.msg_age = (uint16_t)(rt.msg_age + 1); /* 17.21.25: + 1 s */
		}
	}
	b->root = best;
	b->root_times = rt;
	b->root_port = root;
	FOR_PORTS(b, pt)
	{
		pt->desg_pri = (struct rstp_vector){best.root, best.cost, b->bid, rstp_port_id(pt),
						    rstp_port_id(pt)};
		pt->desg_times = rt;
		pt->desg_times.hello = b->times.hello;
		pt->reselect = false;
		switch (pt->info) {
		case RSTP_INFO_DISABLED:
			pt->selected_role = RSTP_ROLE_DISABLED;
			break;
		case RSTP_INFO_AGED:
			pt->selected_role = RSTP_ROLE_DESIGNATED;
			pt->updt_info = true;
			break;
		case RSTP_INFO_MINE:
			pt->selected_role = RSTP_ROLE_DESIGNATED;
			if (vcmp(&pt->port_pri, &pt->desg_pri, false) != 0 ||
			    !times_eq(&pt->port_times, &pt->desg_times))
				pt->updt_info = true;
			break;
		case RSTP_INFO_RECEIVED:
			if (pidx(b, pt) == root) {
				pt->selected_role = RSTP_ROLE_ROOT;
				pt->updt_info = false;
			} else if (vcmp(&pt->desg_pri, &pt->port_pri, false) < 0) {
				pt->selected_role = RSTP_ROLE_DESIGNATED;
				pt->updt_info = true;
			} else {
				/* 17.21.25 f: the designated bridge is this one: backup */
				bool ours = (pt->port_pri.bridge & 0xffffffffffffull) ==
					    (b->bid & 0xffffffffffffull);
				pt->selected_role = ours ? RSTP_ROLE_BACKUP : RSTP_ROLE_ALTERNATE;
				pt->updt_info = false;
			}
			break;
		}
	}
}

/* Port Information UPDATE (17.27): the port's information is now its designated one */
static void pim_update(struct rstp_port *pt)
{
	pt->proposing = pt->proposed = false;
	pt->agreed = pt->agreed && pt->info == RSTP_INFO_MINE &&
		     vcmp(&pt->desg_pri, &pt->port_pri, false) <= 0;
	pt->synced = pt->synced && pt->agreed;
	pt->port_pri = pt->desg_pri;
	pt->port_times = pt->desg_times;
	pt->updt_info = false;
	pt->info = RSTP_INFO_MINE;
	pt->new_info = true;
}

/* allSynced (17.20.3) and reRooted (17.20.10), for port pt */
static bool all_synced(const struct rstp_bridge *b, const struct rstp_port *me)
{
	FOR_PORTS_CONST(b, pt)
	if (pt != me && (pt->role != pt->selected_role || pt->updt_info ||
			 !(pt->synced || pt->role == RSTP_ROLE_ROOT)))
		return false;
	return true;
}

static bool re_rooted(const struct rstp_bridge *b, const struct rstp_port *me)
{
	FOR_PORTS_CONST(b, pt)
	if (pt != me && pt->rr_while != 0)
		return false;
	return true;
}

static void set_sync_tree(struct rstp_bridge *b)
{
	FOR_PORTS(b, pt)
	pt->sync = true;
}

static void set_reroot_tree(struct rstp_bridge *b)
{
	FOR_PORTS(b, pt)
	pt->re_root = true;
}

/* Port Role Transitions (17.29): true if anything changed */
static bool prt(struct rstp_bridge *b, struct rstp_port *pt)
{
	bool ch = false;

	if (pt->updt_info)
		return false;
	if (pt->role != pt->selected_role) {
		pt->role = pt->selected_role;
		pt->transitions++;
		ch = true;
		if (pt->role == RSTP_ROLE_ROOT)
			pt->rr_while = fwd_delay(pt); /* ROOT_PORT */
		if (pt->role != RSTP_ROLE_DESIGNATED)
			pt->proposing = false;
	}
	switch (pt->role) {
	case RSTP_ROLE_DISABLED: /* DISABLE_PORT, DISABLED_PORT */
		if (pt->learn || pt->forward || !pt->synced || pt->sync || pt->re_root)
			ch = true;
		pt->learn = pt->forward = false;
		pt->fd_while = pt->desg_times.max_age;
		pt->synced = true;
		pt->rr_while = 0;
		pt->sync = pt->re_root = false;
		break;
	case RSTP_ROLE_ALTERNATE:
	case RSTP_ROLE_BACKUP:
		if (pt->learn || pt->forward) /* BLOCK_PORT */
			ch = true;
		pt->learn = pt->forward = false;
		if (pt->proposed && !pt->agree) { /* ALTERNATE_PROPOSED */
			set_sync_tree(b);
			pt->proposed = false;
			ch = true;
		}
		if ((all_synced(b, pt) && !pt->agree) || (pt->proposed && pt->agree)) {
			pt->proposed = false; /* ALTERNATE_AGREED */
			pt->agree = true;
			pt->new_info = true;
			ch = true;
		}
		/* ALTERNATE_PORT */
		pt->fd_while = fwd_delay(pt);
		pt->synced = true;
		pt->rr_while = 0;
		pt->sync = pt->re_root = false;
		if (pt->role == RSTP_ROLE_BACKUP && pt->rb_while != 2 * hello_time(pt))
			pt->rb_while = (uint16_t)(2 * hello_time(pt)); /* BACKUP_PORT */
		break;
	case RSTP_ROLE_ROOT:
		pt->rr_while = fwd_delay(pt);
		if (pt->proposed && !pt->agree) { /* ROOT_PROPOSED */
			set_sync_tree(b);
			pt->proposed = false;
			ch = true;
		}
		if ((all_synced(b, pt) && !pt->agree) || (pt->proposed && pt->agree)) {
			pt->proposed = false; /* ROOT_AGREED */
			pt->sync = false;
			pt->agree = true;
			pt->new_info = true;
			ch = true;
		}
		if ((pt->agreed && !pt->synced) || (pt->sync && pt->synced)) {
			pt->synced = true; /* ROOT_SYNCED */
			pt->sync = false;
			ch = true;
		}
		if (!pt->forward && !pt->re_root) { /* REROOT */
			set_reroot_tree(b);
			ch = true;
		}
		if (pt->re_root && pt->forward) { /* REROOTED */
			pt->re_root = false;
			ch = true;
		}
		if (pt->fd_while == 0 ||
		    (re_rooted(b, pt) && pt->rb_while == 0 && rstp_version(b))) {
			if (!pt->learn) { /* ROOT_LEARN */
				pt->fd_while = fwd_delay(pt);
				pt->learn = true;
				ch = true;
			} else if (!pt->forward) { /* ROOT_FORWARD */
				pt->fd_while = 0;
				pt->forward = true;
				ch = true;
			}
		}
		break;
	case RSTP_ROLE_DESIGNATED:
		if (!pt->forward && !pt->agreed && !pt->proposing && !pt->oper_edge) {
			pt->proposing = true; /* DESIGNATED_PROPOSE */
			pt->edge_delay_while = RSTP_MIGRATE_TIME;
			pt->new_info = true;
			ch = true;
		}
		if ((!pt->learn && !pt->forward && !pt->synced) || (pt->agreed && !pt->synced) ||
		    (pt->oper_edge && !pt->synced) || (pt->sync && pt->synced)) {
			pt->rr_while = 0; /* DESIGNATED_SYNCED */
			pt->synced = true;
			pt->sync = false;
			ch = true;
		}
		if (pt->rr_while == 0 && pt->re_root) { /* DESIGNATED_RETIRED */
			pt->re_root = false;
			ch = true;
		}
		if (((pt->sync && !pt->synced) || (pt->re_root && pt->rr_while != 0) ||
		     pt->disputed) &&
		    !pt->oper_edge && (pt->learn || pt->forward)) {
			pt->learn = pt->forward = pt->disputed = false; /* DESIGNATED_DISCARD */
			pt->fd_while = fwd_delay(pt);
			ch = true;
		} else if ((pt->fd_while == 0 || pt->agreed || pt->oper_edge) &&
			   (pt->rr_while == 0 || !pt->re_root) && !pt->sync) {
			if (!pt->learn) { /* DESIGNATED_LEARN */
				pt->learn = true;
				pt->fd_while = fwd_delay(pt);
				ch = true;
			} else if (!pt->forward) { /* DESIGNATED_FORWARD */
				pt->forward = true;
				pt->fd_while = 0;
				pt->agreed = pt->send_rstp;
				ch = true;
			}
		}
		break;
	}
	return ch;
}

/* 17.21.7 newTcWhile */
static void new_tc_while(struct rstp_bridge *b, struct rstp_port *pt)
{
	if (pt->tc_while != 0)
		return;
	if (pt->send_rstp) {
		pt->tc_while = (uint16_t)(hello_time(pt) + 1);
		pt->new_info = true;
	} else {
		pt->tc_while = (uint16_t)(b->root_times.max_age + b->root_times.fwd_delay);
	}
}

static void set_tc_prop_tree(struct rstp_bridge *b, const struct rstp_port *me)
{
	FOR_PORTS(b, pt)
	if (pt != me)
		pt->tc_prop = true;
}

static void flush(struct rstp_bridge *b, struct rstp_port *pt)
{
	pt->flushes++;
	b->ops->flush(b->ctx, pidx(b, pt));
}

/* Port State Transition (17.30) and Topology Change (17.31): true if anything changed */
static bool pst_tcm(struct rstp_bridge *b, struct rstp_port *pt)
{
	uint8_t st = pt->forward ? RSTP_FORWARDING : pt->learn ? RSTP_LEARNING : RSTP_DISCARDING;
	bool active =
	    (pt->role == RSTP_ROLE_ROOT || pt->role == RSTP_ROLE_DESIGNATED) && !pt->oper_edge;
	bool ch = false;

	if (st != pt->state) {
		uint8_t was = pt->state;
		pt->state = st;
		b->ops->state(b->ctx, pidx(b, pt), st);
		ch = true;
		if (st == RSTP_DISCARDING && was != RSTP_DISCARDING) {
			/* INACTIVE: fdbFlush, no TC of its own */
			flush(b, pt);
			pt->tc_while = 0;
			if (pt->send_rstp)
				pt->tc_ack = false;
		}
		if (st == RSTP_FORWARDING && active) {
			/* DETECTED: a port (not an edge) starts forwarding */
			new_tc_while(b, pt);
			set_tc_prop_tree(b, pt);
			pt->new_info = true;
			b->tc_count++;
			b->tc_last = b->ticks;
		}
	}
	if (!(active && (pt->learn || pt->forward))) {
		/* LEARNING / INACTIVE: what arrives is not acted on */
		if (pt->rcvd_tc || pt->rcvd_tcn || pt->rcvd_tc_ack || pt->tc_prop)
			ch = true;
		pt->rcvd_tc = pt->rcvd_tcn = pt->rcvd_tc_ack = pt->tc_prop = false;
		return ch;
	}
	if (pt->rcvd_tcn) /* NOTIFIED_TCN */
		new_tc_while(b, pt);
	if (pt->rcvd_tc || pt->rcvd_tcn) { /* NOTIFIED_TC */
		pt->rcvd_tc = pt->rcvd_tcn = false;
		if (pt->role == RSTP_ROLE_DESIGNATED)
			pt->tc_ack = true;
		set_tc_prop_tree(b, pt);
		b->tc_count++;
		b->tc_last = b->ticks;
		ch = true;
	}
	if (pt->tc_prop) { /* PROPAGATING */
		new_tc_while(b, pt);
		flush(b, pt);
		pt->tc_prop = false;
		ch = true;
	}
	if (pt->rcvd_tc_ack) { /* ACKNOWLEDGED */
		pt->tc_while = 0;
		pt->rcvd_tc_ack = false;
		ch = true;
	}
	return ch;
}

/* Bridge Detection (17.25) and Port Protocol Migration (17.24), as far as the subset
 * goes: an auto-edge port that proposed for EdgeDelay without an answer is an edge */
static bool bdm(struct rstp_port *pt)
{
	if (pt->admin_edge == 2 && !pt->oper_edge && pt->edge_delay_while == 0 && pt->send_rstp &&
	    pt->proposing && pt->role == RSTP_ROLE_DESIGNATED) {
		pt->oper_edge = true;
		return true;
	}
	return false;
}

/* Port Transmit (17.26) */
static void ptx(struct rstp_bridge *b, struct rstp_port *pt)
{
	struct tp_bpdu m = {0};

	if (!pt->enabled || pt->role == RSTP_ROLE_DISABLED || pt->updt_info)
		return;
	if (pt->hello_when == 0) { /* TRANSMIT_PERIODIC */
		pt->hello_when = hello_time(pt);
		pt->new_info = pt->new_info || pt->role == RSTP_ROLE_DESIGNATED ||
			       (pt->role == RSTP_ROLE_ROOT && pt->tc_while != 0);
	}
	if (!pt->new_info || pt->tx_count >= b->tx_hold)
		return;
	if (pt->send_rstp) { /* TRANSMIT_RSTP, txRstp 17.21.20 */
		static const uint8_t role_bits[] = {[RSTP_ROLE_DISABLED] = TP_BPDU_ROLE_UNKNOWN,
						    [RSTP_ROLE_ROOT] = TP_BPDU_ROLE_ROOT,
						    [RSTP_ROLE_DESIGNATED] =
							TP_BPDU_ROLE_DESIGNATED,
						    [RSTP_ROLE_ALTERNATE] = TP_BPDU_ROLE_ALT_BACKUP,
						    [RSTP_ROLE_BACKUP] = TP_BPDU_ROLE_ALT_BACKUP};
		m.type = TP_BPDU_RST;
		m.flags = (uint8_t)(role_bits[pt->role] << TP_BPDU_F_ROLE_SHIFT);
		if (pt->tc_while != 0)
			m.flags |= TP_BPDU_F_TC;
		if (pt->proposing)
			m.flags |= TP_BPDU_F_PROPOSAL;
		if (pt->learn)
			m.flags |= TP_BPDU_F_LEARNING;
		if (pt->forward)
			m.flags |= TP_BPDU_F_FORWARDING;
		if (pt->agree)
			m.flags |= TP_BPDU_F_AGREEMENT;
	} else if (pt->role == RSTP_ROLE_DESIGNATED) { /* TRANSMIT_CONFIG, txConfig */
		m.type = TP_BPDU_CONFIG;
		if (pt->tc_while != 0)
			m.flags |= TP_BPDU_F_TC;
		if (pt->tc_ack)
			m.flags |= TP_BPDU_F_TCA;
	} else if (pt->role == RSTP_ROLE_ROOT && pt->tc_while != 0) { /* TRANSMIT_TCN */
		m.type = TP_BPDU_TCN;
	} else {
		pt->new_info = false;
		return;
	}
	m.root = pt->desg_pri.root;
	m.cost = pt->desg_pri.cost;
	m.bridge = pt->desg_pri.bridge;
	m.port = pt->desg_pri.port;
	m.msg_age = pt->desg_times.msg_age;
	m.max_age = pt->desg_times.max_age;
	m.hello = pt->desg_times.hello;
	m.fwd_delay = pt->desg_times.fwd_delay;
	pt->new_info = false;
	pt->tx_count++;
	pt->tx_bpdus++;
	if (m.type != TP_BPDU_TCN)
		pt->tc_ack = false;
	b->ops->tx(b->ctx, pidx(b, pt), &m);
}

/* every machine to a fixed point, then transmit */
static void run(struct rstp_bridge *b)
{
	if (!b->on)
		return;
	for (int pass = 0; pass < 32; pass++) {
		bool ch = false, sel = false;
		FOR_PORTS(b, pt)
		{
			/* PIM AGED: the received information timed out (17.27) */
			if (pt->info == RSTP_INFO_RECEIVED && pt->rcvd_info_while == 0 &&
			    !pt->updt_info) {
				pt->info = RSTP_INFO_AGED;
				pt->reselect = true;
			}
			sel |= pt->reselect;
		}
		if (sel) {
			select_roles(b);
			ch = true;
		}
		FOR_PORTS(b, pt)
		if (pt->updt_info && pt->info != RSTP_INFO_DISABLED) {
			pim_update(pt);
			ch = true;
		}
		FOR_PORTS(b, pt)
		{
			ch |= bdm(pt);
			ch |= prt(b, pt);
		}
		FOR_PORTS(b, pt)
		ch |= pst_tcm(b, pt);
		if (!ch)
			break;
	}
	FOR_PORTS(b, pt)
	ptx(b, pt);
}

/* the port's variables as a port coming up has them (17.24-17.27 BEGIN / enabled) */
static void port_begin(struct rstp_bridge *b, struct rstp_port *pt)
{
	pt->info = pt->enabled ? RSTP_INFO_AGED : RSTP_INFO_DISABLED;
	pt->reselect = true;
	pt->role = pt->selected_role = RSTP_ROLE_DISABLED;
	pt->send_rstp = rstp_version(b);
	pt->mdelay_while = RSTP_MIGRATE_TIME;
	pt->edge_delay_while = RSTP_MIGRATE_TIME;
	pt->oper_edge = pt->admin_edge == 1;
	pt->proposing = pt->proposed = pt->agree = pt->agreed = false;
	pt->synced = pt->sync = pt->re_root = pt->disputed = false;
	pt->new_info = pt->tc_ack = pt->rcvd_tc = pt->rcvd_tcn = pt->rcvd_tc_ack = false;
	pt->tc_prop = pt->updt_info = pt->learn = pt->forward = false;
	pt->fd_while = pt->rr_while = pt->rb_while = pt->tc_while = pt->hello_when = 0;
	pt->rcvd_info_while = 0;
	pt->tx_count = 0;
	pt->desg_times = b->times;
	pt->port_pri = own_vector(b);
	pt->port_times = b->times;
}

void rstp_start(struct rstp_bridge *b)
{
	b->on = true;
	b->root = own_vector(b);
	b->root_times = b->times;
	b->root_port = -1;
	FOR_PORTS(b, pt)
	{
		port_begin(b, pt);
		pt->state = RSTP_DISCARDING;
		b->ops->state(b->ctx, pidx(b, pt), RSTP_DISCARDING);
	}
	run(b);
}

void rstp_stop(struct rstp_bridge *b)
{
	b->on = false;
	FOR_PORTS(b, pt)
	{
		pt->role = pt->selected_role = RSTP_ROLE_DISABLED;
		pt->learn = pt->forward = true;
		pt->state = RSTP_FORWARDING;
		b->ops->state(b->ctx, pidx(b, pt), RSTP_FORWARDING);
	}
}

void rstp_port_add(struct rstp_bridge *b, uint16_t p, bool enabled, uint8_t prio, uint32_t cost,
		   uint8_t admin_edge)
{
	struct rstp_port *pt;
	bool member;

	if (p >= RSTP_PORTS)
		return;
	pt = &b->port[p];
	member = pt->used;
	if (!member) {
		memset(pt, 0, sizeof(*pt));
		pt->num = (uint16_t)(p + 1);
		pt->used = true;
		pt->enabled = enabled;
	}
	pt->prio = (uint8_t)(prio & 0xf0);
	pt->cost = cost ? cost : 1;
	pt->admin_edge = admin_edge;
	if (!b->on) {
		pt->learn = pt->forward = true;
		pt->state = RSTP_FORWARDING;
		return;
	}
	if (member) { /* new settings: the roles again (17.13 "reselect") */
		if (pt->admin_edge != 2)
			pt->oper_edge = pt->admin_edge == 1;
		rstp_bridge_changed(b);
		return;
	}
	port_begin(b, pt);
	pt->state = RSTP_DISCARDING;
	b->ops->state(b->ctx, p, RSTP_DISCARDING);
	run(b);
}

void rstp_port_del(struct rstp_bridge *b, uint16_t p)
{
	if (p >= RSTP_PORTS || !b->port[p].used)
		return;
	b->port[p].used = false;
	if (b->on) {
		FOR_PORTS(b, pt)
		pt->reselect = true;
		run(b);
	}
}

void rstp_port_enable(struct rstp_bridge *b, uint16_t p, bool enabled)
{
	struct rstp_port *pt;

	if (p >= RSTP_PORTS || !b->port[p].used || b->port[p].enabled == enabled)
		return;
	pt = &b->port[p];
	pt->enabled = enabled;
	if (!b->on)
		return;
	if (enabled) {
		port_begin(b, pt); /* PIM DISABLED -> AGED, PPM CHECKING_RSTP */
	} else {		   /* PIM DISABLED */
		pt->info = RSTP_INFO_DISABLED;
		pt->proposing = pt->proposed = pt->agree = pt->agreed = false;
		pt->rcvd_info_while = 0;
		pt->oper_edge = pt->admin_edge == 1;
		pt->reselect = true;
	}
	FOR_PORTS(b, q)
	q->reselect = true;
	run(b);
}

void rstp_bridge_changed(struct rstp_bridge *b)
{
	FOR_PORTS(b, pt)
	{
		pt->reselect = true;
		if (pt->info == RSTP_INFO_MINE)
			pt->updt_info = true;
	}
	run(b);
}

/* updtRcvdInfoWhile (17.21.23) */
static void updt_rcvd_info_while(struct rstp_port *pt)
{
	if (pt->port_times.msg_age + 1 <= pt->port_times.max_age)
		pt->rcvd_info_while = (uint16_t)(3 * pt->port_times.hello);
	else
		pt->rcvd_info_while = 0;
}

int rstp_rx(struct rstp_bridge *b, uint16_t p, const struct tp_bpdu *m)
{
	struct rstp_port *pt;
	struct rstp_vector v;
	struct rstp_times t;
	uint8_t role;
	bool rst = m->type == TP_BPDU_RST;

	if (!b->on || p >= RSTP_PORTS || !b->port[p].used || !b->port[p].enabled)
		return 0;
	pt = &b->port[p];
	pt->rx_bpdus++;
	/* 9.3.4: a BPDU carrying this port's own bridge and port identifiers is ours,
	 * looped back: not taken */
	if (m->type != TP_BPDU_TCN && m->bridge == b->bid && m->port == rstp_port_id(pt)) {
		pt->rx_own++;
		return 1;
	}
	/* PRX (17.23): operEdge off, EdgeDelay again */
	pt->oper_edge = false;
	pt->edge_delay_while = RSTP_MIGRATE_TIME;
	/* PPM (17.24): speak what the neighbour speaks, at most once per MigrateTime */
	if (rst) {
		if (!pt->send_rstp && rstp_version(b) && pt->mdelay_while == 0) {
			pt->send_rstp = true;
			pt->mdelay_while = RSTP_MIGRATE_TIME;
		}
	} else {
		pt->rx_stp++;
		if (pt->send_rstp && pt->mdelay_while == 0) {
			pt->send_rstp = false;
			pt->mdelay_while = RSTP_MIGRATE_TIME;
		}
	}
	if (m->type == TP_BPDU_TCN) { /* setTcFlags (17.21.17) */
		pt->rx_tcn++;
		pt->rcvd_tcn = true;
		run(b);
		return 0;
	}
	/* rcvInfo (17.21.8) */
	role = rst ? (uint8_t)((m->flags >> TP_BPDU_F_ROLE_SHIFT) & 3) : TP_BPDU_ROLE_DESIGNATED;
	v = (struct rstp_vector){m->root, m->cost, m->bridge, m->port, rstp_port_id(pt)};
	/* times outside Table 17-1's ranges are taken at the nearest bound: a max age
	 * of 255 s from a hostile or broken neighbour would keep a phantom root
	 * circling a loop (forwarding) for 255 hops; a zero hello would never age */
	t = (struct rstp_times){m->msg_age, clamp16(m->max_age, 6, 40), clamp16(m->hello, 1, 10),
				clamp16(m->fwd_delay, 4, 30)};
	if (m->flags & TP_BPDU_F_TC)
		pt->rcvd_tc = true;
	if (!rst && (m->flags & TP_BPDU_F_TCA))
		pt->rcvd_tc_ack = true;
	if (role == TP_BPDU_ROLE_DESIGNATED) {
		int c = vcmp(&v, &pt->port_pri, false);
		bool same_sender = v.bridge == pt->port_pri.bridge &&
				   (v.port & 0xfff) == (pt->port_pri.port & 0xfff);
		if (c < 0 || (same_sender && (c != 0 || !times_eq(&t, &pt->port_times)))) {
			/* SUPERIOR_DESIGNATED */
			pt->agreed = pt->proposing = false;
			if (rst && (m->flags & TP_BPDU_F_PROPOSAL))
				pt->proposed = true;
			pt->agree = pt->agree && pt->info == RSTP_INFO_RECEIVED && c <= 0;
			pt->port_pri = v;
			pt->port_times = t;
			updt_rcvd_info_while(pt);
			pt->info = RSTP_INFO_RECEIVED;
			pt->reselect = true;
		} else if (c == 0 && pt->info == RSTP_INFO_RECEIVED) {
			/* REPEATED_DESIGNATED */
			if (rst && (m->flags & TP_BPDU_F_PROPOSAL))
				pt->proposed = true;
			updt_rcvd_info_while(pt);
		} else if (rst && (m->flags & TP_BPDU_F_LEARNING)) {
			/* INFERIOR_DESIGNATED: recordDispute (17.21.10) */
			pt->disputed = true;
			pt->agreed = false;
		}
	} else if (role != TP_BPDU_ROLE_UNKNOWN && vcmp(&v, &pt->port_pri, false) >= 0) {
		/* NOT_DESIGNATED: recordAgreement (17.21.9), every port point-to-point */
		if (rstp_version(b) && rst && (m->flags & TP_BPDU_F_AGREEMENT)) {
			pt->agreed = true;
			pt->proposing = false;
		} else {
			pt->agreed = false;
		}
	}
	run(b);
	return 0;
}

void rstp_tick(struct rstp_bridge *b)
{
	b->ticks++;
	if (!b->on)
		return;
	FOR_PORTS(b, pt)
	{
		uint16_t *t[] = {&pt->fd_while,		&pt->rr_while,	  &pt->rb_while,
				 &pt->tc_while,		&pt->hello_when,  &pt->rcvd_info_while,
				 &pt->edge_delay_while, &pt->mdelay_while};
		for (unsigned int i = 0; i < sizeof(t) / sizeof(t[0]); i++)
			if (*t[i] != 0)
				(*t[i])--;
		if (pt->tx_count != 0)
			pt->tx_count--;
	}
	run(b);
}
