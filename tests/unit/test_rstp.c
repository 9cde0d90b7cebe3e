/* SPDX-License-Identifier: BSD-3-Clause */
/* RSTP (src/nf/l2/control/rstp.c) and the BPDU codec (src/proto/bpdu.c) alone, no
 * DPDK: the Linux bridge's own BPDUs (captured from kernel 6.18, stp_state 1)
 * decoded; bridges wired to each other through the codec (what one sends is written
 * to bytes, parsed, given to its peer), their port roles checked against the
 * priority vectors of 802.1D-2004 17.6 and 17.21.25, their states after the
 * proposal/agreement handshake, after STP (802.1D) compatibility's timers, and after
 * a link failure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/nf/l2/control/rstp.h"
#include "../../src/proto/bpdu.h"

/* --- the codec --- */

/* a Linux bridge's Configuration BPDU (priority 4096, hello 1 s, max age 6 s,
 * forward delay 4 s), as tcpdump -xx printed it: 52 octets, no padding */
static const uint8_t linux_config[] = {
    0x01, 0x80, 0xc2, 0x00, 0x00, 0x00, 0x7a, 0x88, 0x04, 0x77, 0xfc, 0x2c, 0x00,
    0x26, 0x42, 0x42, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x7a, 0x88,
    0x04, 0x77, 0xfc, 0x2c, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x7a, 0x88, 0x04,
    0x77, 0xfc, 0x2c, 0x80, 0x01, 0x00, 0x00, 0x06, 0x00, 0x01, 0x00, 0x04, 0x00};
/* a Linux bridge's Topology Change Notification: 21 octets */
static const uint8_t linux_tcn[] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x00, 0x8a,
				    0xb8, 0x8f, 0xea, 0x76, 0xc1, 0x00, 0x07,
				    0x42, 0x42, 0x03, 0x00, 0x00, 0x00, 0x80};

static void test_codec_linux(void **state)
{
	struct tp_bpdu b;
	uint8_t buf[TP_BPDU_FRAME_MAX], src[6] = {0x7a, 0x88, 0x04, 0x77, 0xfc, 0x2c};

	(void)state;
	assert_int_equal(tp_bpdu_parse(linux_config, sizeof(linux_config), &b), 0);
	assert_int_equal(b.type, TP_BPDU_CONFIG);
	assert_int_equal(b.version, 0);
	assert_int_equal(b.flags, 0);
	assert_true(b.root == 0x10007a880477fc2cull && b.bridge == b.root);
	assert_int_equal(b.cost, 0);
	assert_int_equal(b.port, 0x8001);
	assert_int_equal(b.msg_age, 0);
	assert_int_equal(b.max_age, 6);
	assert_int_equal(b.hello, 1);
	assert_int_equal(b.fwd_delay, 4);
	/* written again: the same 52 octets, then zeros to 60 */
	assert_int_equal(tp_bpdu_write(buf, sizeof(buf), src, &b), 60);
	assert_memory_equal(buf, linux_config, sizeof(linux_config));
	for (size_t i = sizeof(linux_config); i < 60; i++)
		assert_int_equal(buf[i], 0);
	assert_int_equal(tp_bpdu_parse(linux_tcn, sizeof(linux_tcn), &b), 0);
	assert_int_equal(b.type, TP_BPDU_TCN);
	b.type = TP_BPDU_TCN;
	assert_int_equal(tp_bpdu_write(buf, sizeof(buf), linux_tcn + 6, &b), 60);
	assert_memory_equal(buf, linux_tcn, sizeof(linux_tcn));
}

static void test_codec_malformed(void **state)
{
	uint8_t f[64];
	struct tp_bpdu b;

	(void)state;
	/* every truncation of the Configuration BPDU: short, never a read past it (the
	 * ASan build reads exact-size copies) */
	for (size_t n = 0; n < sizeof(linux_config); n++) {
		uint8_t *c = test_malloc(n ? n : 1);
		memcpy(c, linux_config, n);
		assert_int_equal(tp_bpdu_parse(c, n, &b), TP_BPDU_ERR_SHORT);
		test_free(c);
	}
	memcpy(f, linux_config, sizeof(linux_config));
	f[12] = 0x08; /* an Ethernet II type, not an 802.3 length */
	f[13] = 0x00;
	assert_int_equal(tp_bpdu_parse(f, sizeof(linux_config), &b), TP_BPDU_ERR_LLC);
	memcpy(f, linux_config, sizeof(linux_config));
	f[16] = 0x13; /* not UI */
	assert_int_equal(tp_bpdu_parse(f, sizeof(linux_config), &b), TP_BPDU_ERR_LLC);
	memcpy(f, linux_config, sizeof(linux_config));
	f[18] = 0x01; /* protocol identifier */
	assert_int_equal(tp_bpdu_parse(f, sizeof(linux_config), &b), TP_BPDU_ERR_PROTOCOL);
	memcpy(f, linux_config, sizeof(linux_config));
	f[20] = 0x02; /* an RST BPDU of version 0 (9.3.4 c) */
	assert_int_equal(tp_bpdu_parse(f, sizeof(linux_config), &b), TP_BPDU_ERR_TYPE);
	f[20] = 0x55;
	assert_int_equal(tp_bpdu_parse(f, sizeof(linux_config), &b), TP_BPDU_ERR_TYPE);
	memcpy(f, linux_config, sizeof(linux_config));
	f[44] = 0x06; /* message age 6 s = max age (9.3.4 a) */
	assert_int_equal(tp_bpdu_parse(f, sizeof(linux_config), &b), TP_BPDU_ERR_AGE);
	memcpy(f, linux_config, sizeof(linux_config));
	f[13] = 0x10; /* the 802.3 length says less than a Configuration BPDU */
	assert_int_equal(tp_bpdu_parse(f, sizeof(linux_config), &b), TP_BPDU_ERR_SHORT);
}

/* --- bridges wired through the codec --- */

#define NB 4
#define NP 4

static struct rstp_bridge br[NB];
/* wire[b][p]: the bridge and port at the other end (bridge -1: none, or cut) */
static struct {
	int b, p;
	bool cut;
} wire[NB][NP];
static int flushes[NB][NP];
static int sent[NB][NP][3]; /* per BPDU type: config, RST, TCN */

/* queued BPDUs: delivered after the sender's machines ran (as a wire would) */
static struct {
	int b, p;
	uint8_t f[TP_BPDU_FRAME_MAX];
	size_t len;
} q[4096];
static unsigned int qh, qt;

static void op_tx(void *ctx, uint16_t port, const struct tp_bpdu *m)
{
	int b = (int)(intptr_t)ctx;
	uint8_t mac[6] = {2, 0, 0, 0, (uint8_t)b, (uint8_t)port};

	sent[b][port][m->type == TP_BPDU_CONFIG ? 0 : m->type == TP_BPDU_RST ? 1 : 2]++;
	if (wire[b][port].b < 0 || wire[b][port].cut)
		return;
	assert_true(qt - qh < 4096);
	q[qt % 4096].b = wire[b][port].b;
	q[qt % 4096].p = wire[b][port].p;
	q[qt % 4096].len = tp_bpdu_write(q[qt % 4096].f, TP_BPDU_FRAME_MAX, mac, m);
	assert_int_equal(q[qt % 4096].len, TP_BPDU_FRAME_MAX);
	qt++;
}

static void op_state(void *ctx, uint16_t port, uint8_t st)
{
	(void)ctx;
	(void)port;
	assert_true(st <= RSTP_FORWARDING);
}

static void op_flush(void *ctx, uint16_t port)
{
	flushes[(int)(intptr_t)ctx][port]++;
}

static const struct rstp_ops ops = {op_tx, op_state, op_flush};

/* deliver what is queued (and what that makes them send), through the codec */
static void deliver(void)
{
	while (qh != qt) {
		struct tp_bpdu m;
		unsigned int i = qh++ % 4096;
		if (wire[q[i].b][q[i].p].cut)
			continue;
		assert_int_equal(tp_bpdu_parse(q[i].f, q[i].len, &m), 0);
		rstp_rx(&br[q[i].b], (uint16_t)q[i].p, &m);
	}
}

static void ticks(int n)
{
	for (int i = 0; i < n; i++) {
		for (int b = 0; b < NB; b++)
			rstp_tick(&br[b]);
		deliver();
	}
}

static void link(int b1, int p1, int b2, int p2)
{
	wire[b1][p1].b = b2;
	wire[b1][p1].p = p2;
	wire[b2][p2].b = b1;
	wire[b2][p2].p = p1;
}

/* bridge b, priority prio, MAC 02:00:00:00:00:0b, force version v, ports 0..np-1 */
static void bridge(int b, uint16_t prio, int np, uint8_t v)
{
	uint8_t mac[6] = {2, 0, 0, 0, 0, (uint8_t)b};

	rstp_init(&br[b], &ops, (void *)(intptr_t)b);
	rstp_set_bid(&br[b], prio, mac);
	br[b].force_version = v;
	br[b].times = (struct rstp_times){0, 6, 1, 4};
	for (int p = 0; p < np; p++)
		rstp_port_add(&br[b], (uint16_t)p, true, 128, 20000, 2);
}

static int setup(void **state)
{
	(void)state;
	memset(wire, 0xff, sizeof(wire));
	for (int b = 0; b < NB; b++)
		for (int p = 0; p < NP; p++)
			wire[b][p].cut = false;
	memset(flushes, 0, sizeof(flushes));
	memset(sent, 0, sizeof(sent));
	qh = qt = 0;
	return 0;
}

static uint8_t role(int b, int p)
{
	return br[b].port[p].role;
}

static uint8_t st(int b, int p)
{
	return br[b].port[p].state;
}

/* A triangle A (4096) - B (8192) - C (32768): A is the root, its ports designated;
 * B's and C's ports toward A root ports; on B-C, B's vector {A, 20000, B} beats C's
 * {A, 20000, C} (17.6: the designated bridge decides): B designated, C alternate.
 * RSTP everywhere: forwarding through proposal/agreement, before any timer ran. */
static void triangle(uint8_t v)
{
	enum { A, B, C };

	bridge(A, 4096, 2, v);
	bridge(B, 8192, 2, v);
	bridge(C, 32768, 2, v);
	link(A, 0, B, 0);
	link(A, 1, C, 0);
	link(B, 1, C, 1);
	for (int b = 0; b < 3; b++)
		rstp_start(&br[b]);
	deliver();
}

static void test_triangle_rstp(void **state)
{
	enum { A, B, C };

	(void)state;
	triangle(2);
	/* roles from the priority vectors alone */
	assert_int_equal(role(A, 0), RSTP_ROLE_DESIGNATED);
	assert_int_equal(role(A, 1), RSTP_ROLE_DESIGNATED);
	assert_int_equal(role(B, 0), RSTP_ROLE_ROOT);
	assert_int_equal(role(B, 1), RSTP_ROLE_DESIGNATED);
	assert_int_equal(role(C, 0), RSTP_ROLE_ROOT);
	assert_int_equal(role(C, 1), RSTP_ROLE_ALTERNATE);
	assert_int_equal(br[C].root_port, 0);
	assert_true(br[C].root.root == br[A].bid && br[C].root.cost == 20000);
	assert_int_equal(br[A].root_port, -1);
	/* proposal/agreement: every port but the alternate forwards with no tick */
	for (int b = 0; b < 3; b++)
		for (int p = 0; p < 2; p++)
			assert_int_equal(st(b, p),
					 b == C && p == 1 ? RSTP_DISCARDING : RSTP_FORWARDING);
	assert_true(sent[A][0][1] > 0 && sent[A][0][0] == 0); /* RST BPDUs only */
	/* steady: a minute of hellos changes nothing */
	ticks(60);
	for (int b = 0; b < 3; b++)
		for (int p = 0; p < 2; p++)
			assert_int_equal(st(b, p),
					 b == C && p == 1 ? RSTP_DISCARDING : RSTP_FORWARDING);
	/* the root link of C fails: its alternate port is the root port, forwarding at
	 * once (17.29 ROOT_FORWARD: reRooted, no recent root elsewhere) */
	wire[A][1].cut = wire[C][0].cut = true;
	rstp_port_enable(&br[A], 1, false);
	rstp_port_enable(&br[C], 0, false);
	deliver();
	assert_int_equal(role(C, 1), RSTP_ROLE_ROOT);
	assert_int_equal(st(C, 1), RSTP_FORWARDING);
	assert_int_equal(role(C, 0), RSTP_ROLE_DISABLED);
	assert_true(br[C].root.root == br[A].bid && br[C].root.cost == 40000);
	/* a topology change: C's new root port forwards, the TC flushes B's other port */
	assert_true(br[C].tc_count > 0);
	assert_true(flushes[B][0] > 0);
}

/* The same triangle with the root speaking only STP (802.1D, the Linux bridge's
 * kernel STP): its ports send Configuration BPDUs; B and C speak STP on the ports
 * toward it, RSTP between them. The designated ports toward STP wait the forward
 * delay twice (discarding, learning), the rest agrees at once. */
static void test_triangle_stp_root(void **state)
{
	enum { A, B, C };

	(void)state;
	bridge(A, 4096, 2, 0);
	bridge(B, 8192, 2, 2);
	bridge(C, 32768, 2, 2);
	link(A, 0, B, 0);
	link(A, 1, C, 0);
	link(B, 1, C, 1);
	for (int b = 0; b < 3; b++)
		rstp_start(&br[b]);
	deliver();
	ticks(4); /* MigrateTime (3 s): B and C fall back to STP toward A */
	assert_false(br[B].port[0].send_rstp);
	assert_false(br[C].port[0].send_rstp);
	assert_true(br[B].port[1].send_rstp);
	assert_true(sent[A][0][0] > 0 && sent[A][0][1] == 0); /* Configuration BPDUs */
	/* A's designated ports get no agreement from an STP neighbour: forward delay
	 * (4 s) discarding, then learning, then forwarding */
	assert_int_not_equal(st(A, 0), RSTP_FORWARDING);
	ticks(10);
	assert_int_equal(st(A, 0), RSTP_FORWARDING);
	assert_int_equal(role(C, 1), RSTP_ROLE_ALTERNATE);
	assert_int_equal(st(C, 1), RSTP_DISCARDING);
	for (int b = 0; b < 3; b++)
		for (int p = 0; p < 2; p++)
			if (!(b == C && p == 1))
				assert_int_equal(st(b, p), RSTP_FORWARDING);
	/* A silent (cut without link down): C's information ages out after 3 x hello,
	 * then the alternate port takes over */
	wire[A][1].cut = wire[C][0].cut = true;
	int t = 0;
	while (st(C, 1) != RSTP_FORWARDING && t < 20) {
		ticks(1);
		t++;
	}
	assert_int_equal(role(C, 1), RSTP_ROLE_ROOT);
	assert_true(t <= 4); /* rcvdInfoWhile = 3 x hello (17.21.23), then at once */
	/* C's root port is STP-speaking toward B? no: B speaks RSTP to C; C's change
	 * reaches B as an RST BPDU with TC */
	assert_true(br[B].tc_count > 0);
}

/* Two ports of one bridge on one link (a loop through a hub or a cable): the
 * worse one is a backup port (17.21.25 f), discarding. */
static void test_backup_port(void **state)
{
	(void)state;
	bridge(0, 32768, 3, 2);
	link(0, 1, 0, 2);
	rstp_start(&br[0]);
	deliver();
	ticks(10);
	assert_int_equal(role(0, 1), RSTP_ROLE_DESIGNATED);
	assert_int_equal(role(0, 2), RSTP_ROLE_BACKUP);
	assert_int_equal(st(0, 2), RSTP_DISCARDING);
	assert_int_equal(br[0].root_port, -1); /* its own vectors are no way to a root */
	/* port 0 has no neighbour: an edge after EdgeDelay, forwarding */
	assert_true(br[0].port[0].oper_edge);
	assert_int_equal(st(0, 0), RSTP_FORWARDING);
}

/* A superior BPDU takes the root away; an inferior one on a designated port does
 * not; one of our own (a loop to the same port) is not taken. */
static void test_priority_vectors(void **state)
{
	struct tp_bpdu m = {.type = TP_BPDU_RST, .version = 2};

	(void)state;
	bridge(0, 32768, 2, 2);
	rstp_start(&br[0]);
	assert_int_equal(br[0].root_port, -1);
	/* inferior: root 0x9000.. (priority 36864) > ours */
	m.flags = TP_BPDU_ROLE_DESIGNATED << TP_BPDU_F_ROLE_SHIFT;
	m.root = m.bridge = 0x9000020000000009ull;
	m.port = 0x8001;
	m.max_age = 6;
	m.hello = 1;
	m.fwd_delay = 4;
	assert_int_equal(rstp_rx(&br[0], 0, &m), 0);
	assert_int_equal(br[0].root_port, -1);
	assert_int_equal(role(0, 0), RSTP_ROLE_DESIGNATED);
	/* superior: priority 4096 */
	m.root = m.bridge = 0x1000020000000009ull;
	m.cost = 100;
	rstp_rx(&br[0], 0, &m);
	assert_int_equal(br[0].root_port, 0);
	assert_true(br[0].root.root == m.root && br[0].root.cost == 100 + 20000);
	assert_int_equal(role(0, 0), RSTP_ROLE_ROOT);
	assert_int_equal(role(0, 1), RSTP_ROLE_DESIGNATED);
	/* the same root through port 1 at a lower cost: port 1 the root port, port 0
	 * then alternate */
	m.cost = 10;
	m.bridge = 0x100002000000000aull;
	rstp_rx(&br[0], 1, &m);
	assert_int_equal(br[0].root_port, 1);
	assert_int_equal(role(0, 0), RSTP_ROLE_ALTERNATE);
	/* worse information from another bridge on port 1: inferior, not taken */
	m.cost = 1000;
	m.bridge = 0x100002000000000bull;
	rstp_rx(&br[0], 1, &m);
	assert_int_equal(br[0].root_port, 1);
	/* worse information from the same sender (bridge and port): taken (17.21.8),
	 * port 0 the root port again */
	m.bridge = 0x100002000000000aull;
	rstp_rx(&br[0], 1, &m);
	assert_int_equal(br[0].root_port, 0);
	assert_int_equal(role(0, 1), RSTP_ROLE_ALTERNATE);
	/* both ports hear the same designated port (a shared segment): the receiving
	 * port's identifier decides (17.6), port 0 (0x8001) before port 1 (0x8002);
	 * port 0's priority made worse (0xf0): port 1 */
	m.cost = 100;
	m.bridge = 0x1000020000000009ull;
	m.port = 0x8001;
	rstp_rx(&br[0], 1, &m);
	assert_int_equal(br[0].root_port, 0);
	rstp_port_add(&br[0], 0, true, 240, 20000, 2);
	assert_int_equal(br[0].root_port, 1);
	assert_int_equal(role(0, 0), RSTP_ROLE_ALTERNATE);
	/* times out of Table 17-1's ranges are taken at the nearest bound (a max age of
	 * 255 s would let a phantom root circle a loop for 255 hops) */
	m.max_age = 255;
	m.hello = 0;
	m.fwd_delay = 200;
	m.cost = 99;
	rstp_rx(&br[0], 1, &m);
	assert_int_equal(br[0].port[1].port_times.max_age, 40);
	assert_int_equal(br[0].port[1].port_times.hello, 1);
	assert_int_equal(br[0].port[1].port_times.fwd_delay, 30);
	/* our own BPDU back on the port that sent it */
	m.bridge = br[0].bid;
	m.port = rstp_port_id(&br[0].port[1]);
	assert_int_equal(rstp_rx(&br[0], 1, &m), 1);
	assert_int_equal(br[0].port[1].rx_own, 1);
	/* STP off: every port forwarding, nothing sent */
	rstp_stop(&br[0]);
	assert_int_equal(st(0, 0), RSTP_FORWARDING);
	assert_int_equal(st(0, 1), RSTP_FORWARDING);
}

static void test_times(void **state)
{
	(void)state;
	assert_int_equal(rstp_times_ok(2, 20, 15), 0); /* the defaults */
	assert_int_equal(rstp_times_ok(1, 6, 4), 0);
	assert_int_not_equal(rstp_times_ok(1, 6, 3), 0);   /* forward delay < 4 */
	assert_int_not_equal(rstp_times_ok(2, 20, 10), 0); /* 2 x (10 - 1) < 20 */
	assert_int_not_equal(rstp_times_ok(4, 8, 15), 0);  /* 8 < 2 x (4 + 1) */
	assert_int_not_equal(rstp_times_ok(0, 6, 4), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_codec_linux),
	    cmocka_unit_test(test_codec_malformed),
	    cmocka_unit_test_setup(test_triangle_rstp, setup),
	    cmocka_unit_test_setup(test_triangle_stp_root, setup),
	    cmocka_unit_test_setup(test_backup_port, setup),
	    cmocka_unit_test_setup(test_priority_vectors, setup),
	    cmocka_unit_test(test_times),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
