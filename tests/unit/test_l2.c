/* SPDX-License-Identifier: BSD-3-Clause */
/* The L2 switch as a stage (src/nf/l2) fed crafted frames through the "l2" port mode's
 * input function, as an lcore runs it, with the control plane's own code applying the
 * learn events (tp_l2_learn_drain, its 10 ms timer's work) and aging the table
 * (tp_l2_age), on a clock of the test's: learning, a station's move, flooding of
 * broadcast and unknown unicast within the bridge and VLAN, 802.1Q tags pushed and
 * popped between access and trunk ports, the per-port and per-bridge MAC limits with
 * their counters, aging. Asserts the bytes in the transmit buffers, the counters by
 * name ("l2.<counter>", as 'show counters' names them), the MAC table's contents, and
 * every mbuf back in its pool. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <rte_ether.h>
#include <rte_hash.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "../../src/control/cmd.h"
#include "../../src/control/out.h"
#include "../../src/core/counter.h"
#include "../../src/core/input.h"
#include "../../src/core/nf.h"
#include "../../src/core/rcu.h"
#include "../../src/core/tp.h"
#include "../../src/nf/l2/control/control.h"
#include "../../src/nf/l2/l2.h"
#include "../../src/tables/iface.h"
#include "eal_fixture.h"

#define HZ 1000000000ull /* the test's clock: TSC ticks a second */

static struct rte_mempool *pool;
static struct tp_worker *w;
static struct tp_port_mode *l2_mode;
static uint64_t now;

/* stations: 02:00:00:00:00:1x */
static const uint8_t st_a[6] = {2, 0, 0, 0, 0, 0x1a};
static const uint8_t st_b[6] = {2, 0, 0, 0, 0, 0x1b};
static const uint8_t st_c[6] = {2, 0, 0, 0, 0, 0x1c};
static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

/* A command through the registry, as twinctl sends it: 0 or the negative errno. */
static int cmd(const char *line)
{
	char buf[256], *argv[24];
	struct tp_cmd_ctx ctx = {0};
	int argc, ret;

	snprintf(buf, sizeof(buf), "%s", line);
	argc = tp_cmd_split(buf, argv, 24);
	ctx.out = tp_out_new();
	assert_non_null(ctx.out);
	ret = tp_cmd_exec(&ctx, argc, argv);
	if (ret != 0)
		assert_true(ctx.err[0] != '\0'); /* a refusal says why */
	tp_out_free(ctx.out);
	return ret;
}

/* "port set P mode l2 <args>": the mode's attach, then its input on the port. */
static void port_l2(uint16_t port, const char *args)
{
	char line[128], err[256] = "", *argv[24];
	void *ctx = NULL, *old = tp_iface_table[port].mode_ctx;
	int argc;

	snprintf(line, sizeof(line), "%s", args);
	argc = tp_cmd_split(line, argv, 24);
	assert_int_equal(l2_mode->attach(port, argc, argv, &ctx, err, sizeof(err)), 0);
	tp_iface_table[port].mode_ctx = ctx;
	tp_iface_table[port].input = l2_input;
	if (old)
		l2_mode->detach(port, old);
	tp_rcu_reclaim();
}

static void port_l3(uint16_t port)
{
	void *old = tp_iface_table[port].mode_ctx;

	tp_iface_table[port].input = NULL;
	tp_iface_table[port].mode_ctx = NULL;
	if (old)
		l2_mode->detach(port, old);
	tp_rcu_reclaim();
}

/* A counter by its name, on every port. */
static uint64_t ctr(const char *name)
{
	int id = tp_ctr_lookup(name);
	uint64_t v = 0;

	assert_true(id >= 0);
	for (unsigned int p = 0; p < TP_MAX_PORTS; p++)
		v += w->ctr[p][id];
	return v;
}

/* The port the MAC table has for mac in vlan of bridge b, or -1. */
static int mac_port(const uint8_t *mac, uint16_t vlan, uint16_t b)
{
	struct l2_key_buf k = {.k = {.vlan = vlan, .bridge = b}};
	void *data;

	memcpy(&k.k.mac, mac, 6);
	if (rte_hash_lookup_data(l2_macs, &k.k, &data) < 0)
		return -1;
	return l2_mac_table[(uintptr_t)data].port;
}

/* A frame dst <- src, with an 802.1Q tag of vid if vid != 0 (priority 0), IPv4
 * ethertype and 20 bytes of payload; received on port. */
static struct rte_mbuf *frame(uint16_t port, const uint8_t *dst, const uint8_t *src, uint16_t vid)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint16_t len = (uint16_t)(14 + (vid ? 4 : 0) + 20);
	uint8_t *p;

	assert_non_null(m);
	p = (uint8_t *)rte_pktmbuf_append(m, len);
	if (p == NULL)
		abort();
	memcpy(p, dst, 6);
	memcpy(p + 6, src, 6);
	p += 12;
	if (vid) {
		p[0] = 0x81, p[1] = 0x00, p[2] = (uint8_t)(vid >> 8), p[3] = (uint8_t)vid;
		p += 4;
	}
	p[0] = 0x08, p[1] = 0x00;
	for (int i = 0; i < 20; i++)
		p[2 + i] = (uint8_t)(0xa0 + i);
	m->port = port;
	return m;
}

/* A Linux bridge's Configuration BPDU (kernel 6.18, stp_state 1; as tcpdump printed
 * it, 52 octets) from src, received on port; its first len octets only. */
static struct rte_mbuf *bpdu_frame(uint16_t port, const uint8_t *src, size_t len)
{
	static const uint8_t linux_config[52] = {
	    0x01, 0x80, 0xc2, 0x00, 0x00, 0x00, 0x7a, 0x88, 0x04, 0x77, 0xfc, 0x2c, 0x00,
	    0x26, 0x42, 0x42, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x7a, 0x88,
	    0x04, 0x77, 0xfc, 0x2c, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x7a, 0x88, 0x04,
	    0x77, 0xfc, 0x2c, 0x80, 0x01, 0x00, 0x00, 0x06, 0x00, 0x01, 0x00, 0x04, 0x00};
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *p;

	assert_non_null(m);
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	if (p == NULL)
		abort();
	memcpy(p, linux_config, len);
	memcpy(p + 6, src, 6);
	m->port = port;
	return m;
}

/* The bytes frame() builds, into buf: its length. */
static size_t expect_bytes(uint8_t *buf, const uint8_t *dst, const uint8_t *src, uint16_t vid)
{
	struct rte_mbuf *m = frame(0, dst, src, vid);
	size_t len = m->pkt_len;

	memcpy(buf, rte_pktmbuf_mtod(m, void *), len);
	rte_pktmbuf_free(m);
	return len;
}

/* One frame through its port's input function at the clock's time. */
static void rx(struct rte_mbuf *m)
{
	w->now = now;
	tp_iface_table[m->port].input(w, &m, 1);
	now += HZ / 50; /* 20 ms: past the lcore's 10 ms learn-event dedup */
}

/* The control plane applies the learn events. */
static void drain(void)
{
	tp_l2_learn_drain(now);
	tp_rcu_reclaim();
}

/* What waits on port p: exactly n frames. */
static void assert_tx(uint16_t p, unsigned int n)
{
	assert_int_equal(w->txb[p].n, n);
}

/* Frame k waiting on port p is dst <- src tagged vid (0: untagged). */
static void assert_out(uint16_t p, unsigned int k, const uint8_t *dst, const uint8_t *src,
		       uint16_t vid)
{
	uint8_t want[64];
	size_t len = expect_bytes(want, dst, src, vid);
	const struct rte_mbuf *m = w->txb[p].pkts[k];

	assert_int_equal(m->pkt_len, len);
	assert_memory_equal(rte_pktmbuf_mtod(m, const void *), want, len);
}

/* Every buffered (and punted) frame freed, counters to zero. */
static void clear(void)
{
	void *m;

	for (unsigned int k = 0; k < 2; k++)
		while (rte_ring_dequeue(w->exc_ring[k], &m) == 0)
			rte_pktmbuf_free(m);
	for (unsigned int p = 0; p < TP_MAX_PORTS; p++) {
		rte_pktmbuf_free_bulk(w->txb[p].pkts, w->txb[p].n);
		w->txb[p].n = 0;
	}
	w->tx_dirty = 0;
	memset(w->ctr, 0, sizeof(uint64_t) * TP_MAX_PORTS * TP_CTR_MAX);
}

/* Bridge b0: p0, p1 access VLAN 10, p2 trunk 10,20 (no native VLAN), p3 access VLAN
 * 20; aging 2 s. */
static int setup(void **state)
{
	void *lc;

	if (tp_rcu_init(1) < 0)
		return -1;
	tp.tsc_hz = HZ;
	now = 1000 * HZ;
	pool = rte_pktmbuf_pool_create("l2", 511, 0, TP_MBUF_PRIV_SIZE, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	w = rte_zmalloc("w", sizeof(*w), RTE_CACHE_LINE_SIZE);
	if (pool == NULL || w == NULL)
		return -1;
	w->ctr = rte_zmalloc("ctr", sizeof(uint64_t) * TP_MAX_PORTS * TP_CTR_MAX, 0);
	/* the exception rings: what the bridge punts to the control plane */
	w->exc_ring[0] = rte_ring_create("exc0", 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	w->exc_ring[1] = rte_ring_create("exc1", 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (w->ctr == NULL || w->exc_ring[0] == NULL || w->exc_ring[1] == NULL)
		return -1;
	tp.n_workers = 1;
	tp.workers[0] = w;
	/* the module as the daemon starts it (--l2-macs 1024) */
	if (tp_l2_nf.opts[0].fn("1024") < 0 || tp_l2_nf.init() < 0)
		return -1;
	lc = rte_zmalloc("l2-lcore", tp_l2_nf.lcore_size, RTE_CACHE_LINE_SIZE);
	if (lc == NULL)
		return -1;
	w->nf_state[tp_l2_nf.id] = lc;
	if (tp_l2_nf.lcore_init(w, lc) < 0)
		return -1;
	l2_mode = tp_port_mode_find("l2");
	if (l2_mode == NULL)
		return -1;
	for (unsigned int p = 0; p < 8; p++)
		tp_iface_table[p].up = 0; /* no device: frames stay in the buffers */
	return 0;
}

static int teardown(void **state)
{
	tp_l2_nf.fini();
	tp_rcu_reclaim();
	return 0;
}

/* A fresh bridge b0 with the four ports, and nothing buffered or counted. */
static int bridge_up(void **state)
{
	clear();
	assert_int_equal(cmd("bridge add b0 aging 2"), 0);
	port_l2(0, "bridge b0 vlan 10");
	port_l2(1, "bridge b0 vlan 10");
	port_l2(2, "bridge b0 trunk 10,20");
	port_l2(3, "bridge b0 vlan 20");
	return 0;
}

/* The bridge torn down; every mbuf back in the pool. */
static int bridge_down(void **state)
{
	clear();
	drain();
	for (uint16_t p = 0; p < 6; p++)
		port_l3(p);
	assert_int_equal(cmd("bridge del b0"), 0);
	cmd("bridge del b1");
	tp_rcu_reclaim();
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
	return 0;
}

/* An unknown destination is flooded to every other port of the VLAN (a tag pushed
 * on the trunk); the source is learned; the answer is unicast back untagged. */
static void test_learn_then_unicast(void **state)
{
	assert_int_equal(mac_port(st_a, 10, 0), -1);
	rx(frame(0, st_b, st_a, 0));
	/* flooded: p1 untagged, p2 with VLAN 10's tag, not p3 (VLAN 20) nor p0 */
	assert_tx(0, 0);
	assert_tx(1, 1);
	assert_tx(2, 1);
	assert_tx(3, 0);
	assert_out(1, 0, st_b, st_a, 0);
	assert_out(2, 0, st_b, st_a, 10);
	assert_int_equal(ctr("l2.rx"), 1);
	assert_int_equal(ctr("l2.flooded"), 1);
	assert_int_equal(ctr("l2.flood_copies"), 1);
	assert_int_equal(ctr("l2.learn_events"), 1);
	assert_int_equal(ctr("l2.unicast"), 0);
	/* the worker only asked; the control plane writes the table */
	assert_int_equal(mac_port(st_a, 10, 0), -1);
	drain();
	assert_int_equal(mac_port(st_a, 10, 0), 0);
	assert_int_equal(tp_l2_port_macs(0), 1);
	assert_int_equal(tp_l2_bridge_macs(0), 1);
	assert_int_equal(l2_bridges[0].learned, 1);
	/* the same MAC in VLAN 20 is another station */
	assert_int_equal(mac_port(st_a, 20, 0), -1);

	/* B answers from p1: to p0 alone, untagged */
	clear();
	rx(frame(1, st_a, st_b, 0));
	assert_tx(0, 1);
	assert_tx(2, 0);
	assert_tx(3, 0);
	assert_out(0, 0, st_a, st_b, 0);
	assert_int_equal(ctr("l2.unicast"), 1);
	assert_int_equal(ctr("l2.flooded"), 0);
	drain();
	assert_int_equal(mac_port(st_b, 10, 0), 1);
	/* a frame to a station on its own port is filtered */
	clear();
	rx(frame(1, st_b, st_c, 0));
	drain();
	clear();
	rx(frame(1, st_b, st_c, 0));
	assert_int_equal(ctr("l2.filtered_same_port"), 1);
	assert_tx(0, 0);
	assert_tx(2, 0);
}

/* A station seen on another port moves there (counted as a move, not a learn), and
 * frames to it follow. */
static void test_station_move(void **state)
{
	rx(frame(0, bcast, st_a, 0));
	drain();
	assert_int_equal(mac_port(st_a, 10, 0), 0);
	clear();
	rx(frame(1, bcast, st_a, 0)); /* A now behind p1 */
	assert_int_equal(ctr("l2.learn_events"), 1);
	drain();
	assert_int_equal(mac_port(st_a, 10, 0), 1);
	assert_int_equal(l2_bridges[0].moves, 1);
	assert_int_equal(l2_bridges[0].learned, 1);
	assert_int_equal(tp_l2_port_macs(0), 0);
	assert_int_equal(tp_l2_port_macs(1), 1);
	clear();
	rx(frame(0, st_a, st_b, 0));
	assert_tx(1, 1);
	assert_tx(2, 0);
	assert_out(1, 0, st_a, st_b, 0);
	assert_int_equal(ctr("l2.unicast"), 1);
}

/* Broadcast and unknown unicast stay in their VLAN; tags are popped towards access
 * ports and pushed towards the trunk. */
static void test_flood_vlan_push_pop(void **state)
{
	/* broadcast from the trunk in VLAN 20: p3 untagged only */
	rx(frame(2, bcast, st_c, 20));
	assert_tx(0, 0);
	assert_tx(1, 0);
	assert_tx(3, 1);
	assert_out(3, 0, bcast, st_c, 0);
	assert_int_equal(ctr("l2.flooded"), 1);
	assert_int_equal(ctr("l2.flood_copies"), 0);
	clear();
	/* unknown unicast from the trunk in VLAN 10: p0 and p1, untagged (popped) */
	rx(frame(2, st_b, st_c, 10));
	assert_tx(0, 1);
	assert_tx(1, 1);
	assert_tx(3, 0);
	assert_out(0, 0, st_b, st_c, 0);
	assert_out(1, 0, st_b, st_c, 0);
	assert_int_equal(ctr("l2.flood_copies"), 1);
	clear();
	/* broadcast from the VLAN 20 access port: the trunk, tagged 20 (pushed) */
	rx(frame(3, bcast, st_a, 0));
	assert_tx(2, 1);
	assert_tx(0, 0);
	assert_tx(1, 0);
	assert_out(2, 0, bcast, st_a, 20);
	clear();
	/* A learned on p0, C on the trunk */
	rx(frame(0, bcast, st_a, 0));
	clear();
	drain();
	/* learned on the trunk: unicast to C goes to p2 tagged */
	rx(frame(2, bcast, st_c, 10));
	drain();
	clear();
	rx(frame(0, st_c, st_a, 0));
	assert_tx(2, 1);
	assert_out(2, 0, st_c, st_a, 10);
	assert_int_equal(ctr("l2.unicast"), 1);
	/* and the trunk's tagged answer reaches p0 untagged */
	clear();
	rx(frame(2, st_a, st_c, 10));
	assert_tx(0, 1);
	assert_out(0, 0, st_a, st_c, 0);
}

/* What a port may not send is dropped, each into its counter. */
static void test_vlan_drops(void **state)
{
	rx(frame(0, bcast, st_a, 30)); /* a tag on an access port */
	assert_int_equal(ctr("l2.vlan_not_member"), 1);
	rx(frame(2, bcast, st_a, 30)); /* VLAN 30 on a trunk of 10,20 */
	assert_int_equal(ctr("l2.vlan_not_member"), 2);
	rx(frame(2, bcast, st_a, 0)); /* untagged on a trunk without a native VLAN */
	assert_int_equal(ctr("l2.untagged_on_trunk"), 1);
	rx(frame(0, bcast, bcast, 0)); /* a group source */
	assert_int_equal(ctr("l2.bad_src_mac"), 1);
	/* a link-local destination (LLDP) is never forwarded (802.1Q 8.6.3) */
	rx(frame(0, (const uint8_t[6]){0x01, 0x80, 0xc2, 0, 0, 0x0e}, st_a, 0));
	assert_int_equal(ctr("l2.link_local"), 1);
	assert_int_equal(ctr("l2.rx"), 5);
	for (uint16_t p = 0; p < 4; p++)
		assert_tx(p, 0);
	assert_int_equal(ctr("l2.learn_events"), 0);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
}

/* BPDUs (the bridge group address) with no STP of the bridge's own: flooded in the
 * ingress port's VLAN like any group frame, as the Linux bridge with stp_state 0
 * (br_input.c: "If STP is turned off, then must forward to keep loop detection"),
 * learning the source; the other link-local groups (LACP's, LLDP's, the pause
 * address) dropped as the kernel's default group_fwd_mask (0) does. 'bpdu drop'
 * filters them; a bridge running STP (L2_BPDU_STP) consumes them: punted in the
 * control class, never flooded. */
static void test_bpdu(void **state)
{
	static const uint8_t stp[6] = {0x01, 0x80, 0xc2, 0, 0, 0};
	uint8_t ll[6] = {0x01, 0x80, 0xc2, 0, 0, 0};
	void *m = NULL;

	assert_int_equal(l2_bridges[0].bpdu, L2_BPDU_FORWARD); /* the default */
	rx(frame(0, stp, st_a, 0));
	/* VLAN 10's ports: p1 as sent, the trunk tagged 10; not p3 (VLAN 20) */
	assert_tx(1, 1);
	assert_tx(2, 1);
	assert_tx(3, 0);
	assert_out(1, 0, stp, st_a, 0);
	assert_out(2, 0, stp, st_a, 10);
	assert_int_equal(ctr("l2.bpdu_forwarded"), 1);
	assert_int_equal(ctr("l2.flooded"), 1);
	drain();
	assert_int_equal(mac_port(st_a, 10, 0), 0); /* learned, as the kernel does */
	/* from the trunk in VLAN 20: to p3 only, untagged */
	clear();
	rx(frame(2, stp, st_c, 20));
	assert_tx(3, 1);
	assert_tx(0, 0);
	assert_tx(1, 0);
	assert_out(3, 0, stp, st_c, 0);
	/* 01:80:c2:00:00:01 to 0f: never bridged */
	clear();
	for (uint8_t last = 1; last < 0x10; last++) {
		ll[5] = last;
		rx(frame(0, ll, st_a, 0));
	}
	assert_int_equal(ctr("l2.link_local"), 15);
	assert_int_equal(ctr("l2.bpdu_forwarded"), 0);
	for (uint16_t p = 0; p < 4; p++)
		assert_tx(p, 0);
	/* bpdu drop */
	assert_int_equal(cmd("bridge set b0 bpdu drop"), 0);
	assert_int_equal(l2_bridges[0].bpdu, L2_BPDU_DROP);
	rx(frame(0, stp, st_a, 0));
	assert_int_equal(ctr("l2.link_local"), 16);
	for (uint16_t p = 0; p < 4; p++)
		assert_tx(p, 0);
	assert_int_equal(cmd("bridge set b0 bpdu sometimes"), -EINVAL);
	/* a bridge running STP: the BPDU goes to the control plane, in the control class;
	 * a frame to the group address that is no BPDU (the IPv4 one frame() builds, a
	 * truncated BPDU) is dropped as malformed */
	__atomic_store_n(&l2_bridges[0].bpdu, L2_BPDU_STP, __ATOMIC_RELAXED);
	rx(bpdu_frame(0, st_a, 52));
	rx(frame(0, stp, st_a, 0));
	rx(bpdu_frame(0, st_a, 40));
	for (uint16_t p = 0; p < 4; p++)
		assert_tx(p, 0);
	assert_int_equal(ctr("l2.bpdu_to_control"), 1);
	assert_int_equal(ctr("l2.bpdu_malformed"), 2);
	assert_int_equal(rte_ring_count(w->exc_ring[tp_punt_ring(TP_PUNT_CONTROL)]), 1);
	assert_int_equal(rte_ring_dequeue(w->exc_ring[tp_punt_ring(TP_PUNT_CONTROL)], &m), 0);
	assert_memory_equal(rte_pktmbuf_mtod((struct rte_mbuf *)m, void *), stp, 6);
	rte_pktmbuf_free(m);
	__atomic_store_n(&l2_bridges[0].bpdu, L2_BPDU_FORWARD, __ATOMIC_RELAXED);
	assert_int_equal(cmd("bridge set b0 bpdu forward"), 0);
	assert_int_equal(l2_bridges[0].bpdu, L2_BPDU_FORWARD);
	assert_int_equal(ctr("l2.rx"), 19); /* since the last clear() */
}

/* Port state on the data plane (the spanning tree's, control/stp.c publishes it): a
 * discarding port forwards and learns nothing (stp_discarding) but hands its BPDUs to
 * the STP; a learning port learns and forwards nothing (stp_learning); no frame goes
 * out of a port that is not forwarding, flooded or unicast. 'stp on' starts every
 * port discarding (here no port has a link: all stay so); 'stp off' forwards again. */
static void test_stp_port_states(void **state)
{
	struct l2_bridge *br = &l2_bridges[0];
	void *m = NULL;

	assert_int_equal(cmd("bridge set b0 stp maybe"), -EINVAL);
	assert_int_equal(cmd("bridge set b0 forward-delay 3"), -EINVAL); /* 17.14 */
	assert_int_equal(cmd("bridge set b0 priority 4097"), -EINVAL);
	assert_int_equal(cmd("bridge set b0 stp on hello 1 max-age 6 forward-delay 4"), 0);
	assert_int_equal(br->bpdu, L2_BPDU_STP);
	assert_int_equal(cmd("bridge set b0 bpdu forward"), -EINVAL); /* STP owns them */
	for (uint16_t p = 0; p < 4; p++)
		assert_int_equal(tp_l2_port(p)->stp, L2_STP_DISCARDING);
	assert_int_equal(br->members->n, 0);
	assert_int_equal(br->members->n_all, 4);
	rx(frame(0, bcast, st_a, 0));
	rx(bpdu_frame(0, st_a, 52));
	for (uint16_t p = 0; p < 4; p++)
		assert_tx(p, 0);
	assert_int_equal(ctr("l2.stp_discarding"), 1);
	assert_int_equal(ctr("l2.bpdu_to_control"), 1);
	assert_int_equal(rte_ring_dequeue(w->exc_ring[tp_punt_ring(TP_PUNT_CONTROL)], &m), 0);
	rte_pktmbuf_free(m);
	drain();
	assert_int_equal(mac_port(st_a, 10, 0), -1); /* not learned */
	/* p0, p1 forwarding, p2 learning, p3 discarding (as the STP would publish) */
	__atomic_store_n(&l2_cfg[0]->stp, L2_STP_FORWARDING, __ATOMIC_RELEASE);
	__atomic_store_n(&l2_cfg[1]->stp, L2_STP_FORWARDING, __ATOMIC_RELEASE);
	__atomic_store_n(&l2_cfg[2]->stp, L2_STP_LEARNING, __ATOMIC_RELEASE);
	assert_int_equal(l2_members_publish(br), 0);
	tp_rcu_reclaim();
	assert_int_equal(br->members->n, 2);
	/* flooded in VLAN 10: p1 only (p2, the trunk, is learning) */
	rx(frame(0, bcast, st_a, 0));
	assert_tx(1, 1);
	assert_tx(2, 0);
	/* from the learning port: learned, not forwarded */
	rx(frame(2, bcast, st_c, 10));
	assert_tx(0, 0);
	assert_tx(1, 1);
	assert_int_equal(ctr("l2.stp_learning"), 1);
	drain();
	assert_int_equal(mac_port(st_c, 10, 0), 2);
	assert_int_equal(mac_port(st_a, 10, 0), 0);
	/* unicast to a station learned on the learning port: not sent there (flooded
	 * to the forwarding ports as unknown) */
	rx(frame(0, st_c, st_a, 0));
	assert_tx(2, 0);
	assert_tx(1, 2);
	/* stp off: every port forwards, BPDUs flooded again */
	assert_int_equal(cmd("bridge set b0 stp off"), 0);
	tp_rcu_reclaim();
	assert_int_equal(br->bpdu, L2_BPDU_FORWARD);
	for (uint16_t p = 0; p < 4; p++)
		assert_int_equal(tp_l2_port(p)->stp, L2_STP_FORWARDING);
	assert_int_equal(br->members->n, 4);
	rx(frame(0, st_c, st_a, 0));
	assert_tx(2, 1);
	/* every frame counted once: rx = unicast + flooded + punts + drops */
	assert_int_equal(ctr("l2.rx"), ctr("l2.unicast") + ctr("l2.flooded") +
					   ctr("l2.bpdu_to_control") + ctr("l2.stp_discarding") +
					   ctr("l2.stp_learning"));
}

/* A frame to one of the bridge's own port MACs (in any VLAN, the ingress port's
 * too) is the bridge's: never flooded, dropped into to_port_mac; a port outside the
 * bridge is a station like any other. */
static void test_to_port_mac(void **state)
{
	const uint8_t mac1[6] = {2, 0, 0, 0, 0xee, 1}, mac3[6] = {2, 0, 0, 0, 0xee, 3},
		      mac5[6] = {2, 0, 0, 0, 0xee, 5}, mac0[6] = {2, 0, 0, 0, 0xee, 0};

	memcpy(&tp_iface_table[0].mac, mac0, 6);
	memcpy(&tp_iface_table[1].mac, mac1, 6);
	memcpy(&tp_iface_table[3].mac, mac3, 6);
	memcpy(&tp_iface_table[5].mac, mac5, 6); /* p5 is in no bridge */
	rx(frame(0, mac1, st_a, 0));		 /* p1's, in the ingress VLAN */
	rx(frame(0, mac3, st_a, 0));		 /* p3's, in another VLAN */
	rx(frame(0, mac0, st_a, 0));		 /* the ingress port's own */
	rx(frame(2, mac1, st_c, 20));		 /* tagged, from the trunk */
	assert_int_equal(ctr("l2.to_port_mac"), 4);
	assert_int_equal(ctr("l2.flooded"), 0);
	for (uint16_t p = 0; p < 4; p++)
		assert_tx(p, 0);
	/* a MAC outside the bridge: unknown unicast, flooded */
	rx(frame(0, mac5, st_a, 0));
	assert_int_equal(ctr("l2.flooded"), 1);
	assert_tx(1, 1);
	assert_tx(2, 1);
	assert_int_equal(ctr("l2.rx"), 5);
	for (uint16_t p = 0; p < 6; p++)
		memset(&tp_iface_table[p].mac, 0, 6);
}

/* The egress port's MTU bounds what goes out of it: the payload behind the Ethernet
 * header and the VLAN's tag (frame() carries 20 bytes), checked per egress port in a
 * flood, on unicast too; the excess dropped into exceeds_mtu. */
static void test_exceeds_mtu(void **state)
{
	tp_iface_table[1].mtu = 20; /* fits exactly */
	tp_iface_table[2].mtu = 19; /* one byte short, on the trunk (its tag not counted) */
	rx(frame(0, bcast, st_a, 0));
	assert_tx(1, 1);
	assert_tx(2, 0);
	assert_out(1, 0, bcast, st_a, 0);
	assert_int_equal(ctr("l2.flooded"), 1);
	assert_int_equal(ctr("l2.flood_copies"), 1);
	assert_int_equal(ctr("l2.exceeds_mtu"), 1);
	/* from the trunk, tagged: its payload is what counts towards p1's 20 */
	clear();
	rx(frame(2, bcast, st_c, 10));
	assert_tx(0, 1);
	assert_tx(1, 1);
	assert_out(1, 0, bcast, st_c, 0);
	assert_int_equal(ctr("l2.exceeds_mtu"), 0);
	drain();
	/* unicast to C, learned on the trunk: too long for it */
	clear();
	rx(frame(0, st_c, st_a, 0));
	assert_int_equal(ctr("l2.unicast"), 1);
	assert_int_equal(ctr("l2.exceeds_mtu"), 1);
	assert_tx(2, 0);
	/* 20 fits the trunk again */
	tp_iface_table[2].mtu = 20;
	rx(frame(0, st_c, st_a, 0));
	assert_tx(2, 1);
	assert_out(2, 0, st_c, st_a, 10);
	assert_int_equal(ctr("l2.exceeds_mtu"), 1);
	assert_int_equal(rte_mempool_in_use_count(pool), 1);
	for (uint16_t p = 0; p < 6; p++)
		tp_iface_table[p].mtu = 0;
}

/* The attach of "port set P mode l2 <args>" refused: its error. */
static const char *port_l2_refused(uint16_t port, const char *args)
{
	static char err[256];
	char line[128], *argv[24];
	void *ctx = NULL;
	int argc;

	snprintf(line, sizeof(line), "%s", args);
	argc = tp_cmd_split(line, argv, 24);
	err[0] = '\0';
	assert_int_equal(l2_mode->attach(port, argc, argv, &ctx, err, sizeof(err)), -EINVAL);
	assert_null(ctx);
	assert_true(err[0] != '\0');
	return err;
}

/* An access port admits untagged and priority-tagged frames only (802.1Q 6.9), unless
 * it has 'admit all': then its own VLAN's tag too (popped towards access ports, kept
 * towards the trunk), never another VLAN's, never a second tag behind its own. */
static void test_access_admit(void **state)
{
	struct rte_mbuf *m;

	rx(frame(1, bcast, st_b, 10)); /* by default: refused */
	assert_int_equal(ctr("l2.vlan_not_member"), 1);
	port_l2(1, "bridge b0 vlan 10 admit all");
	assert_true(tp_l2_port(1)->admit_all);
	rx(frame(1, bcast, st_b, 10));
	assert_tx(0, 1);
	assert_tx(2, 1);
	assert_tx(3, 0);
	assert_out(0, 0, bcast, st_b, 0);
	assert_out(2, 0, bcast, st_b, 10);
	rx(frame(1, bcast, st_b, 20)); /* another VLAN's tag */
	rx(frame(0, bcast, st_a, 10)); /* p0 admits untagged only */
	assert_int_equal(ctr("l2.vlan_not_member"), 3);
	rx(frame(1, bcast, st_b, 0)); /* untagged still */
	assert_tx(0, 2);
	/* VLAN 10's tag with a C-tag behind it: the inner one would show */
	m = frame(1, bcast, st_b, 10);
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	p[16] = 0x81, p[17] = 0x00;
	rx(m);
	assert_int_equal(ctr("l2.double_tagged"), 1);
	assert_tx(0, 2);
	/* back to the default, and the words the parser refuses */
	port_l2(1, "bridge b0 vlan 10 admit untagged");
	assert_false(tp_l2_port(1)->admit_all);
	rx(frame(1, bcast, st_b, 10));
	assert_int_equal(ctr("l2.vlan_not_member"), 4);
	assert_non_null(
	    strstr(port_l2_refused(4, "bridge b0 vlan 10 admit maybe"), "admit 'maybe'"));
	assert_non_null(strstr(port_l2_refused(4, "bridge b0 trunk 10 admit all"), "access port"));
	assert_non_null(strstr(port_l2_refused(4, "bridge b0 admit all trunk 10"), "access port"));
}

/* A port's mac-limit: past it, new sources are neither learned nor forwarded
 * (mac_limit); known ones still go. */
static void test_port_mac_limit(void **state)
{
	port_l2(1, "bridge b0 vlan 10 mac-limit 2");
	rx(frame(1, bcast, st_a, 0));
	rx(frame(1, bcast, st_b, 0));
	drain();
	assert_int_equal(tp_l2_port_macs(1), 2);
	assert_true(tp_l2_port(1)->at_limit);
	clear();
	rx(frame(1, bcast, st_c, 0)); /* a third station */
	assert_int_equal(ctr("l2.mac_limit"), 1);
	assert_int_equal(ctr("l2.learn_events"), 0);
	for (uint16_t p = 0; p < 4; p++)
		assert_tx(p, 0);
	drain();
	assert_int_equal(mac_port(st_c, 10, 0), -1);
	/* a known one is forwarded */
	rx(frame(1, bcast, st_a, 0));
	assert_tx(0, 1);
	assert_int_equal(ctr("l2.mac_limit"), 1);
	/* both age out: room for C */
	now += 3 * HZ;
	tp_l2_age(now);
	tp_rcu_reclaim();
	assert_int_equal(tp_l2_port_macs(1), 0);
	assert_false(tp_l2_port(1)->at_limit);
	clear();
	rx(frame(1, bcast, st_c, 0));
	drain();
	assert_int_equal(mac_port(st_c, 10, 0), 1);
}

/* A bridge's share of the table (mac-limit N): past it, a new source on any of its
 * ports is dropped (bridge_mac_limit), and another bridge still learns. */
static void test_bridge_mac_limit(void **state)
{
	uint8_t mac[6] = {2, 0, 0, 0, 0x77, 0};

	assert_int_equal(cmd("bridge add b1 mac-limit 3"), 0);
	/* a malformed limit is refused, naming what is wrong */
	assert_int_equal(cmd("bridge set b1 mac-limit x"), -EINVAL);
	port_l2(4, "bridge b1 vlan 10 mac-limit 0"); /* no port limit */
	port_l2(5, "bridge b1 vlan 10 mac-limit 0");
	for (uint8_t i = 0; i < 3; i++) {
		mac[5] = i;
		rx(frame(4, bcast, mac, 0));
	}
	drain();
	assert_int_equal(tp_l2_bridge_macs(1), 3);
	assert_int_equal(tp_l2_bridge_limit(1), 3);
	assert_true(l2_bridges[1].at_limit);
	clear();
	mac[5] = 3;
	rx(frame(5, bcast, mac, 0));
	assert_int_equal(ctr("l2.bridge_mac_limit"), 1);
	assert_int_equal(ctr("l2.mac_limit"), 0);
	assert_tx(4, 0);
	drain();
	assert_int_equal(mac_port(mac, 10, 1), -1);
	assert_int_equal(tp_l2_bridge_macs(1), 3);
	/* b0 is not b1: it learns */
	rx(frame(0, bcast, mac, 0));
	drain();
	assert_int_equal(mac_port(mac, 10, 0), 0);
	assert_int_equal(ctr("l2.bridge_mac_limit"), 1);
	/* raised: the same station is learned */
	assert_int_equal(cmd("bridge set b1 mac-limit 4"), 0);
	assert_false(l2_bridges[1].at_limit);
	clear();
	rx(frame(5, bcast, mac, 0));
	drain();
	assert_int_equal(mac_port(mac, 10, 1), 5);
	assert_int_equal(tp_l2_bridge_macs(1), 4);
}

/* Entries not seen for the bridge's aging time (2 s) go; one seen again stays. */
static void test_aging(void **state)
{
	rx(frame(0, bcast, st_a, 0));
	rx(frame(1, bcast, st_b, 0));
	drain();
	assert_int_equal(tp_l2_bridge_macs(0), 2);
	/* 1.5 s later B speaks again (its last-seen refreshed: more than 1 s old) */
	now += HZ * 3 / 2;
	rx(frame(1, bcast, st_b, 0));
	now += HZ; /* A 2.5 s silent, B 1 s */
	tp_l2_age(now);
	tp_rcu_reclaim();
	assert_int_equal(mac_port(st_a, 10, 0), -1);
	assert_int_equal(mac_port(st_b, 10, 0), 1);
	assert_int_equal(l2_bridges[0].aged, 1);
	assert_int_equal(tp_l2_bridge_macs(0), 1);
	/* a frame to A is unknown again: flooded */
	clear();
	rx(frame(1, st_a, st_b, 0));
	assert_int_equal(ctr("l2.flooded"), 1);
	assert_tx(0, 1);
	assert_tx(2, 1);
	now += 3 * HZ;
	tp_l2_age(now);
	tp_rcu_reclaim();
	assert_int_equal(tp_l2_bridge_macs(0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_learn_then_unicast, bridge_up, bridge_down),
	    cmocka_unit_test_setup_teardown(test_station_move, bridge_up, bridge_down),
	    cmocka_unit_test_setup_teardown(test_flood_vlan_push_pop, bridge_up, bridge_down),
	    cmocka_unit_test_setup_teardown(test_vlan_drops, bridge_up, bridge_down),
	    cmocka_unit_test_setup_teardown(test_bpdu, bridge_up, bridge_down),
	    cmocka_unit_test_setup_teardown(test_stp_port_states, bridge_up, bridge_down),
	    cmocka_unit_test_setup_teardown(test_to_port_mac, bridge_up, bridge_down),
	    cmocka_unit_test_setup_teardown(test_exceeds_mtu, bridge_up, bridge_down),
	    cmocka_unit_test_setup_teardown(test_access_admit, bridge_up, bridge_down),
	    cmocka_unit_test_setup_teardown(test_port_mac_limit, bridge_up, bridge_down),
	    cmocka_unit_test_setup_teardown(test_bridge_mac_limit, bridge_up, bridge_down),
	    cmocka_unit_test_setup_teardown(test_aging, bridge_up, bridge_down),
	};
	if (tp_test_eal_init() < 0)
		return 1;
	return cmocka_run_group_tests_name("l2", tests, setup, teardown);
}
