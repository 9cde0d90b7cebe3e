/* SPDX-License-Identifier: BSD-3-Clause */
/* The L2 switch's spanning tree on the control plane: each bridge's RSTP machines
 * (control/rstp.c) fed the BPDUs its ports punt and a tick a second, sending BPDUs
 * through the ports' inject rings, publishing each port's state to the workers
 * (l2_port.stp, and the bridge's members list under RCU: frames go out of forwarding
 * ports only) and flushing the MAC table on topology changes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "../../../control/exception.h"
#include "../../../control/out.h"
#include "../../../control/port.h"
#include "../../../control/timer.h"
#include "../../../core/log.h"
#include "../../../core/tp.h"
#include "../../../tables/iface.h"
#include "control.h"
#include "rstp.h"

_Static_assert(RSTP_PORTS >= TP_MAX_PORTS, "a bridge's STP has room for every port");

struct l2_stp {
	struct rstp_bridge r;
	struct l2_bridge *br;
	uint16_t prio;	/* bridge priority (0-61440, steps of 4096) */
	uint8_t mac[6]; /* the bridge's address: its ports' lowest MAC (as Linux) */
	/* BPDUs: taken, for no bridge running STP, sent, not sent (no mbuf, ring) */
	uint64_t rx, rx_ignored, tx, tx_failed;
};

static struct tp_timer stp_timer;
static uint64_t bpdu_no_stp; /* punted BPDUs no bridge with STP on took */

/* --- what the machines do (struct rstp_ops) --- */

static void op_tx(void *ctx, uint16_t port, const struct tp_bpdu *b)
{
	struct l2_stp *s = ctx;
	struct tp_port *p = tp_port_by_id(port);
	struct rte_mbuf *m = NULL;
	uint8_t *d;

	/* a port being removed (or stopped) sends nothing: its mbufs' pool is retired
	 * once it is gone, and must not wait in an inject ring */
	if (p != NULL && __atomic_load_n(&tp_iface_table[port].up, __ATOMIC_ACQUIRE))
		m = rte_pktmbuf_alloc(p->kpool);
	if (m == NULL || (d = (uint8_t *)rte_pktmbuf_append(m, TP_BPDU_FRAME_MAX)) == NULL) {
		rte_pktmbuf_free(m);
		s->tx_failed++;
		return;
	}
	/* the one BPDU writer (proto/bpdu.c), from the port's own address */
	tp_bpdu_write(d, TP_BPDU_FRAME_MAX, tp_iface_table[port].mac.addr_bytes, b);
	m->port = port;
	if (tp_exc_inject(m) < 0) {
		s->tx_failed++;
		return;
	}
	s->tx++;
}

static void op_state(void *ctx, uint16_t port, uint8_t st)
{
	struct l2_stp *s = ctx;
	struct l2_port *lp = l2_cfg[port];
	static const uint8_t dp[] = {[RSTP_DISCARDING] = L2_STP_DISCARDING,
				     [RSTP_LEARNING] = L2_STP_LEARNING,
				     [RSTP_FORWARDING] = L2_STP_FORWARDING};

	if (lp == NULL || lp->br != s->br)
		return;
	/* the ingress test reads it per burst; the members list says where frames go */
	__atomic_store_n(&lp->stp, dp[st], __ATOMIC_RELEASE);
	if (l2_members_publish(s->br) < 0)
		TP_LOG(ERR, "l2: bridge %s: cannot publish port %s's STP state", s->br->name,
		       l2_port_name(port));
}

static void op_flush(void *ctx, uint16_t port)
{
	struct l2_stp *s = ctx;

	/* 17.19.7 fdbFlush: the dynamic entries learned on the port */
	l2_mac_flush(s->br->id, port, false);
}

static const struct rstp_ops stp_ops = {op_tx, op_state, op_flush};

/* --- BPDUs in --- */

/* A punted BPDU (the workers checked it with the same codec): to its port's bridge. */
static void bpdu_in(struct rte_mbuf *m)
{
	uint8_t buf[TP_BPDU_FRAME_MAX + 64];
	const uint8_t *f;
	uint32_t len = RTE_MIN(rte_pktmbuf_pkt_len(m), (uint32_t)sizeof(buf));
	struct l2_port *lp = m->port < TP_MAX_PORTS ? l2_cfg[m->port] : NULL;
	struct tp_bpdu b;

	f = rte_pktmbuf_read(m, 0, len, buf);
	if (lp == NULL || lp->br->stp == NULL || !lp->br->stp->r.on) {
		bpdu_no_stp++; /* the port left, or STP went off, since */
	} else if (f == NULL || tp_bpdu_parse(f, len, &b) < 0) {
		lp->br->stp->rx_ignored++;
	} else {
		lp->br->stp->rx++;
		rstp_rx(&lp->br->stp->r, m->port, &b);
	}
	rte_pktmbuf_free(m);
}

/* --- the bridge's identity and ports --- */

static void update_bid(struct l2_stp *s)
{
	const struct l2_members *mb = s->br->members;
	uint8_t best[6];
	bool any = false;

	for (unsigned int i = 0; mb && i < mb->n_all; i++) {
		const uint8_t *a = tp_iface_table[mb->all[i]].mac.addr_bytes;
		if (!any || memcmp(a, best, 6) < 0)
			memcpy(best, a, 6);
		any = true;
	}
	if (!any || memcmp(best, s->mac, 6) == 0)
		return;
	memcpy(s->mac, best, 6);
	rstp_set_bid(&s->r, s->prio, s->mac);
	rstp_bridge_changed(&s->r);
}

static bool port_up(uint16_t port)
{
	return __atomic_load_n(&tp_iface_table[port].up, __ATOMIC_ACQUIRE) && l2_link_up(port);
}

static void tick(struct tp_timer *t)
{
	RTE_SET_USED(t);
	for (unsigned int b = 0; b < L2_BRIDGES_MAX; b++) {
		struct l2_stp *s = l2_bridges[b].used ? l2_bridges[b].stp : NULL;
		if (s == NULL || !s->r.on)
			continue;
		for (unsigned int p = 0; p < RSTP_PORTS; p++)
			if (s->r.port[p].used)
				rstp_port_enable(&s->r, (uint16_t)p, port_up((uint16_t)p));
		rstp_tick(&s->r);
	}
}

int l2_stp_init(void)
{
	int ret = tp_exc_set_handler(L2_CTR(BPDU_TO_CONTROL), bpdu_in);

	if (ret < 0)
		return ret;
	tp_timer_init(&stp_timer, "l2-stp", tick, NULL);
	tp_timer_every(&stp_timer, 1000); /* 17.22: the timers count seconds */
	return 0;
}

void l2_stp_fini(void)
{
	tp_timer_cancel(&stp_timer);
	tp_exc_set_handler(L2_CTR(BPDU_TO_CONTROL), NULL);
}

int l2_stp_new(struct l2_bridge *br)
{
	struct l2_stp *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return -ENOMEM;
	s->br = br;
	s->prio = RSTP_PRIO_DEFAULT;
	rstp_init(&s->r, &stp_ops, s);
	br->stp = s;
	return 0;
}

void l2_stp_free(struct l2_bridge *br)
{
	free(br->stp);
	br->stp = NULL;
}

int l2_stp_check(const struct l2_bridge *br, const struct l2_bridge_opts *o, char *err, size_t len)
{
	static const struct rstp_times def = {0, RSTP_MAX_AGE_DEFAULT, RSTP_HELLO_DEFAULT,
					      RSTP_FWD_DELAY_DEFAULT};
	const struct rstp_times *t = br ? &br->stp->r.times : &def;
	uint64_t hello = o->has_hello ? o->hello : t->hello;
	uint64_t max_age = o->has_max_age ? o->max_age : t->max_age;
	uint64_t fd = o->has_fwd_delay ? o->fwd_delay : t->fwd_delay;

	if (o->has_prio && (o->prio > 61440 || o->prio % 4096 != 0)) {
		snprintf(err, len,
			 "priority %lu: 0-61440, a multiple of 4096 (802.1D-2004 17.13.7)",
			 (unsigned long)o->prio);
		return -EINVAL;
	}
	if (hello > 10 || max_age > 40 || fd > 30 ||
	    rstp_times_ok((uint16_t)hello, (uint16_t)max_age, (uint16_t)fd) < 0) {
		snprintf(err, len,
			 "times hello %lu max-age %lu forward-delay %lu: hello 1-10, max-age "
			 "6-40, forward-delay 4-30 s, and 2 x (forward-delay - 1) >= max-age "
			 ">= 2 x (hello + 1) (802.1D-2004 17.14)",
			 (unsigned long)hello, (unsigned long)max_age, (unsigned long)fd);
		return -EINVAL;
	}
	return 0;
}

void l2_stp_apply(struct l2_bridge *br, const struct l2_bridge_opts *o)
{
	struct l2_stp *s = br->stp;
	bool changed = false;

	if (o->has_prio) {
		s->prio = (uint16_t)o->prio;
		rstp_set_bid(&s->r, s->prio, s->mac);
		changed = true;
	}
	if (o->has_hello || o->has_max_age || o->has_fwd_delay) {
		if (o->has_hello)
			s->r.times.hello = (uint16_t)o->hello;
		if (o->has_max_age)
			s->r.times.max_age = (uint16_t)o->max_age;
		if (o->has_fwd_delay)
			s->r.times.fwd_delay = (uint16_t)o->fwd_delay;
		changed = true;
	}
	if (o->has_stp && o->stp != s->r.on) {
		if (o->stp) {
			update_bid(s);
			/* BPDUs to the control plane before the ports start discarding */
			__atomic_store_n(&br->bpdu, L2_BPDU_STP, __ATOMIC_RELAXED);
			rstp_start(&s->r);
		} else {
			rstp_stop(&s->r); /* every port forwarding */
			__atomic_store_n(&br->bpdu, L2_BPDU_FORWARD, __ATOMIC_RELAXED);
		}
		return;
	}
	if (changed && s->r.on)
		rstp_bridge_changed(&s->r);
}

uint8_t l2_stp_port_state(const struct l2_bridge *br, uint16_t port)
{
	const struct rstp_bridge *r = &br->stp->r;

	if (!r->on)
		return L2_STP_FORWARDING;
	if (port >= RSTP_PORTS || !r->port[port].used)
		return L2_STP_DISCARDING; /* a new port starts discarding (17.30) */
	return r->port[port].state == RSTP_FORWARDING ? L2_STP_FORWARDING
	       : r->port[port].state == RSTP_LEARNING ? L2_STP_LEARNING
						      : L2_STP_DISCARDING;
}

void l2_stp_port_join(struct l2_bridge *br, const struct l2_port *lp)
{
	struct l2_stp *s = br->stp;

	if (lp->port >= RSTP_PORTS)
		return;
	rstp_port_add(&s->r, lp->port, port_up(lp->port),
		      lp->stp_prio_set ? lp->stp_prio : RSTP_PORT_PRIO_DEFAULT,
		      lp->stp_cost ? lp->stp_cost : RSTP_COST_DEFAULT,
		      lp->stp_edge == 1	  ? 1
		      : lp->stp_edge == 2 ? 0
					  : 2);
	update_bid(s);
}

void l2_stp_port_leave(struct l2_bridge *br, uint16_t port)
{
	rstp_port_del(&br->stp->r, port);
	update_bid(br->stp);
}

/* an identifier as 802.1D-2004 writes it: priority (hex) . MAC */
static void out_id(struct tp_node *o, const char *key, uint64_t id)
{
	tp_out_strf(o, key, "%04x.%02x%02x%02x%02x%02x%02x", (unsigned int)(id >> 48),
		    (unsigned int)(id >> 40) & 0xff, (unsigned int)(id >> 32) & 0xff,
		    (unsigned int)(id >> 24) & 0xff, (unsigned int)(id >> 16) & 0xff,
		    (unsigned int)(id >> 8) & 0xff, (unsigned int)id & 0xff);
}

void l2_stp_show(struct tp_node *o, const struct l2_bridge *br)
{
	const struct l2_stp *s = br->stp;
	struct tp_node *t = tp_out_obj(o, "stp");

	tp_out_bool(t, "on", s->r.on);
	tp_out_str(t, "protocol", "rstp");
	tp_out_u64(t, "priority", s->prio);
	out_id(t, "bridge_id", s->r.bid);
	tp_out_u64(t, "hello", s->r.times.hello);
	tp_out_u64(t, "max_age", s->r.times.max_age);
	tp_out_u64(t, "forward_delay", s->r.times.fwd_delay);
	if (s->r.on) {
		out_id(t, "root_id", s->r.root.root);
		tp_out_u64(t, "root_path_cost", s->r.root.cost);
		tp_out_str(t, "root_port",
			   s->r.root_port < 0 ? "" : l2_port_name((uint16_t)s->r.root_port));
		tp_out_bool(t, "is_root", s->r.root_port < 0);
	}
	tp_out_u64(t, "topology_changes", s->r.tc_count);
	tp_out_u64(t, "since_topology_change_s", s->r.ticks - s->r.tc_last);
	tp_out_u64(t, "bpdus_rx", s->rx);
	tp_out_u64(t, "bpdus_tx", s->tx);
	tp_out_u64(t, "bpdus_tx_failed", s->tx_failed);
	tp_out_u64(t, "bpdus_unparsed", s->rx_ignored);
	tp_out_u64(t, "bpdus_without_stp", bpdu_no_stp); /* every bridge's */
}

void l2_stp_show_port(struct tp_node *o, const struct l2_bridge *br, uint16_t port)
{
	const struct rstp_port *pt = port < RSTP_PORTS ? &br->stp->r.port[port] : NULL;
	struct tp_node *t;

	if (pt == NULL || !pt->used)
		return;
	t = tp_out_obj(o, "stp");
	tp_out_str(t, "role", br->stp->r.on ? rstp_role_name(pt->role) : "disabled");
	tp_out_str(t, "state", rstp_state_name(pt->state));
	tp_out_u64(t, "cost", pt->cost);
	tp_out_u64(t, "priority", pt->prio);
	tp_out_strf(t, "port_id", "%04x", rstp_port_id(pt));
	if (br->stp->r.on) {
		out_id(t, "designated_root", pt->port_pri.root);
		out_id(t, "designated_bridge", pt->port_pri.bridge);
		tp_out_strf(t, "designated_port", "%04x", pt->port_pri.port);
		tp_out_u64(t, "designated_cost", pt->port_pri.cost);
	}
	tp_out_str(t, "edge", pt->admin_edge == 2 ? "auto" : pt->admin_edge ? "yes" : "no");
	tp_out_bool(t, "oper_edge", pt->oper_edge);
	tp_out_str(t, "version", pt->send_rstp ? "rstp" : "stp");
	tp_out_bool(t, "link", pt->enabled);
	tp_out_u64(t, "bpdus_rx", pt->rx_bpdus);
	tp_out_u64(t, "bpdus_tx", pt->tx_bpdus);
	tp_out_u64(t, "stp_bpdus_rx", pt->rx_stp);
	tp_out_u64(t, "tcn_rx", pt->rx_tcn);
	tp_out_u64(t, "own_bpdus_rx", pt->rx_own);
	tp_out_u64(t, "transitions", pt->transitions);
	tp_out_u64(t, "flushes", pt->flushes);
}
