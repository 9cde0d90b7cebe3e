/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target for the L2 switch's spanning tree: the BPDU codec (proto/bpdu.c)
 * on hostile frames and RSTP's machines (src/nf/l2/control/rstp.c) of three bridges
 * wired in a triangle, each with one more port (a host, or whatever the input
 * injects), as control/stp.c drives them: BPDUs in, a tick a second, links going down
 * and up, settings changing, STP off and on.
 *
 * The bridges carry over from one input to the next, as in a daemon that runs on
 * (libFuzzer keeps only the last input; -runs=0 over the corpus replays them all).
 * What a bridge sends is written by the codec, parsed back (it must parse, and to the
 * same fields) and queued for the bridge at the other end of the wire, delivered
 * after the sender's event, as a wire would.
 *
 * Input: records, an opcode byte then its operands:
 *   0 frame    BRIDGE PORT LEN BYTES...  (a frame received: parsed; taken if a BPDU)
 *   1 bpdu     BRIDGE PORT TYPE FLAGS ROOT COST BRIDGE_ID PORT_ID AGE MAX HELLO FWD
 *              (a well-formed BPDU from fields; identifiers from one byte each)
 *   2 tick     COUNT                      (COUNT % 16 + 1 seconds, delivering)
 *   3 link     BRIDGE PORT UP
 *   4 wire     BRIDGE PORT CUT            (the wire of a port cut or mended)
 *   5 port     BRIDGE PORT PRIO COST EDGE (its settings)
 *   6 bridge   BRIDGE PRIO TIMES          (priority; one of three time sets)
 *   7 stp      BRIDGE ON
 *   8 deliver                             (what is queued)
 *
 * Properties, after every record: each bridge's root port is the one port with the
 * root role and has the best path to the root among the ports holding received
 * information; with no root port the bridge is the root; the root it knows is no
 * worse than itself; the designated vector of every port is {root, root path cost,
 * this bridge, the port}; a port that is disabled, alternate or backup neither
 * learns nor forwards; each port's state is what its learn and forward flags say
 * and what the last state callback published; with STP off every port forwards;
 * nothing is flushed or sent while STP is off; every BPDU sent parses back to what
 * was sent (but a Configuration BPDU at its max age, which its receiver refuses). After every
 * input, once the wires run quiet (every link up and mended, STP on everywhere, two minutes of
 * ticks: a phantom root circles a loop for at most max age (40 s at most) hops): the triangle has
 * exactly one blocked port (the loop is cut, and only once), and every bridge agrees on the root.
 * Built and run by scripts/fuzz.sh. */
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "nf/l2/control/rstp.h"
#include "proto/bpdu.h"

#define NB 3
#define NP 3 /* ports 0, 1: the triangle; 2: a host (or the input) */

static struct rstp_bridge br[NB];
static struct {
	int b, p; /* the other end; b < 0: none */
	bool cut;
} wire[NB][NP];
static uint8_t published[NB][NP]; /* what the state callback said last */
static bool ready;

static struct {
	int b, p;
	uint8_t f[TP_BPDU_FRAME_MAX];
} q[1024];
static unsigned int qh, qt;

static void op_tx(void *ctx, uint16_t port, const struct tp_bpdu *m)
{
	int b = (int)(intptr_t)ctx;
	uint8_t mac[6] = {2, 0, 0, 0, (uint8_t)b, (uint8_t)port}, f[TP_BPDU_FRAME_MAX];
	struct tp_bpdu back;

	must(br[b].on);
	must(port < NP && br[b].port[port].used && br[b].port[port].enabled);
	/* one codec: what is sent parses back to itself */
	must(tp_bpdu_write(f, sizeof(f), mac, m) == TP_BPDU_FRAME_MAX);
	/* information one hop from its max age goes out so (17.21.23 took it); a
	 * Configuration BPDU then is one its receiver does not take (9.3.4 a) */
	if (m->type == TP_BPDU_CONFIG && m->msg_age >= m->max_age) {
		must(tp_bpdu_parse(f, sizeof(f), &back) == TP_BPDU_ERR_AGE);
		return;
	}
	must(tp_bpdu_parse(f, sizeof(f), &back) == 0);
	must(back.type == m->type);
	if (m->type != TP_BPDU_TCN)
		must(back.root == m->root && back.cost == m->cost && back.bridge == m->bridge &&
		     back.port == m->port && back.msg_age == m->msg_age &&
		     back.max_age == m->max_age && back.hello == m->hello &&
		     back.fwd_delay == m->fwd_delay);
	if (wire[b][port].b < 0 || wire[b][port].cut || qt - qh >= 1024)
		return;
	q[qt % 1024].b = wire[b][port].b;
	q[qt % 1024].p = wire[b][port].p;
	memcpy(q[qt % 1024].f, f, sizeof(f));
	qt++;
}

static void op_state(void *ctx, uint16_t port, uint8_t st)
{
	must(st <= RSTP_FORWARDING && port < NP);
	published[(int)(intptr_t)ctx][port] = st;
}

static void op_flush(void *ctx, uint16_t port)
{
	must(br[(int)(intptr_t)ctx].on && port < NP);
}

static const struct rstp_ops ops = {op_tx, op_state, op_flush};

static void deliver(void)
{
	/* bounded: a storm of BPDUs between the bridges is itself a bug */
	for (unsigned int n = 0; qh != qt; n++) {
		struct tp_bpdu m;
		unsigned int i = qh++ % 1024;
		must(n < 100000);
		if (wire[q[i].b][q[i].p].cut)
			continue;
		must(tp_bpdu_parse(q[i].f, TP_BPDU_FRAME_MAX, &m) == 0);
		rstp_rx(&br[q[i].b], (uint16_t)q[i].p, &m);
	}
}

static void link_ports(int b1, int p1, int b2, int p2)
{
	wire[b1][p1].b = b2;
	wire[b1][p1].p = p2;
	wire[b2][p2].b = b1;
	wire[b2][p2].p = p1;
}

static void reset(void)
{
	memset(wire, 0xff, sizeof(wire));
	for (int b = 0; b < NB; b++)
		for (int p = 0; p < NP; p++)
			wire[b][p].cut = false;
	link_ports(0, 0, 1, 0);
	link_ports(0, 1, 2, 0);
	link_ports(1, 1, 2, 1);
	qh = qt = 0;
	for (int b = 0; b < NB; b++) {
		uint8_t mac[6] = {2, 0, 0, 0, 0, (uint8_t)(b + 1)};
		rstp_init(&br[b], &ops, (void *)(intptr_t)b);
		rstp_set_bid(&br[b], (uint16_t)(4096 * (b + 1)), mac);
		br[b].times = (struct rstp_times){0, 6, 1, 4};
		for (int p = 0; p < NP; p++) {
			rstp_port_add(&br[b], (uint16_t)p, true, 128, 20000, 2);
			published[b][p] = RSTP_FORWARDING;
		}
		rstp_start(&br[b]);
	}
	deliver();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	reset();
	ready = true;
	return 0;
}

static int vcmp(const struct rstp_vector *a, const struct rstp_vector *b)
{
	if (a->root != b->root)
		return a->root < b->root ? -1 : 1;
	if (a->cost != b->cost)
		return a->cost < b->cost ? -1 : 1;
	if (a->bridge != b->bridge)
		return a->bridge < b->bridge ? -1 : 1;
	if (a->port != b->port)
		return a->port < b->port ? -1 : 1;
	if (a->rx != b->rx)
		return a->rx < b->rx ? -1 : 1;
	return 0;
}

static void check(void)
{
	for (int b = 0; b < NB; b++) {
		const struct rstp_bridge *r = &br[b];
		int roots = 0;
		for (int p = 0; p < NP; p++) {
			const struct rstp_port *pt = &r->port[p];
			if (!pt->used)
				continue;
			uint8_t st = pt->forward ? RSTP_FORWARDING
				     : pt->learn ? RSTP_LEARNING
						 : RSTP_DISCARDING;
			must(pt->state == st);
			must(published[b][p] == pt->state);
			if (!r->on) {
				must(pt->state == RSTP_FORWARDING);
				continue;
			}
			if (pt->role == RSTP_ROLE_DISABLED || pt->role == RSTP_ROLE_ALTERNATE ||
			    pt->role == RSTP_ROLE_BACKUP)
				must(!pt->learn && !pt->forward);
			if (!pt->enabled)
				must(pt->role == RSTP_ROLE_DISABLED);
			if (pt->role == RSTP_ROLE_ROOT) {
				roots++;
				must(r->root_port == p);
			}
			must(pt->desg_pri.root == r->root.root &&
			     pt->desg_pri.cost == r->root.cost && pt->desg_pri.bridge == r->bid &&
			     pt->desg_pri.port == rstp_port_id(pt));
		}
		if (!r->on)
			continue;
		must(r->root.root <= r->bid);
		must(roots == (r->root_port >= 0));
		if (r->root_port < 0) {
			must(r->root.root == r->bid && r->root.cost == 0);
			continue;
		}
		/* the root port's path is the best of the received ones (17.21.25) */
		for (int p = 0; p < NP; p++) {
			const struct rstp_port *pt = &r->port[p];
			struct rstp_vector c;
			if (!pt->used || !pt->enabled || pt->info != RSTP_INFO_RECEIVED ||
			    (pt->port_pri.bridge & 0xffffffffffffull) ==
				(r->bid & 0xffffffffffffull))
				continue;
			c = pt->port_pri;
			c.cost = c.cost + pt->cost < c.cost ? UINT32_MAX : c.cost + pt->cost;
			c.rx = rstp_port_id(pt);
			must(vcmp(&r->root, &c) <= 0);
		}
	}
}

/* every wire mended, every link up, STP on everywhere, settings as reset() made
 * them but for what the input did to priorities and costs: two minutes of quiet */
static void settle_and_check_tree(void)
{
	for (int b = 0; b < NB; b++) {
		for (int p = 0; p < NP; p++) {
			wire[b][p].cut = false;
			rstp_port_enable(&br[b], (uint16_t)p, true);
		}
		if (!br[b].on)
			rstp_start(&br[b]);
	}
	deliver();
	for (int t = 0; t < 120; t++) {
		for (int b = 0; b < NB; b++)
			rstp_tick(&br[b]);
		deliver();
		check();
	}
	int blocked = 0;
	for (int b = 0; b < NB; b++) {
		must(br[b].root.root == br[0].root.root); /* one root */
		for (int p = 0; p < 2; p++)
			blocked += br[b].port[p].state != RSTP_FORWARDING;
	}
	must(blocked == 1); /* the loop cut, once */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0;

	if (!ready)
		LLVMFuzzerInitialize(NULL, NULL);
#define NEED(n)                                                                                    \
	if (off + (n) > size)                                                                      \
		goto end;
	while (off < size) {
		uint8_t op = data[off++] % 9;
		switch (op) {
		case 0: { /* a raw frame: whatever the codec takes goes to the machines */
			NEED(3);
			int b = data[off] % NB, p = data[off + 1] % NP;
			size_t len = data[off + 2];
			off += 3;
			if (len > size - off)
				len = size - off;
			/* an exact-size copy: ASan sees a read past it */
			uint8_t *f = malloc(len ? len : 1);
			struct tp_bpdu m;
			memcpy(f, data + off, len);
			off += len;
			if (tp_bpdu_parse(f, len, &m) == 0)
				rstp_rx(&br[b], (uint16_t)p, &m);
			free(f);
			deliver();
			break;
		}
		case 1: { /* a well-formed BPDU from fields */
			NEED(12);
			const uint8_t *d = data + off;
			struct tp_bpdu m = {0};
			int b = d[0] % NB, p = d[1] % NP;
			static const uint8_t types[] = {TP_BPDU_CONFIG, TP_BPDU_RST, TP_BPDU_TCN};
			m.type = types[d[2] % 3];
			m.version = m.type == TP_BPDU_RST ? 2 : 0;
			m.flags = d[3];
			m.root = (uint64_t)(d[4] & 0xf0) << 56 | 0x020000000000ull | (d[4] & 0x0f);
			m.cost = d[5];
			m.bridge =
			    (uint64_t)(d[6] & 0xf0) << 56 | 0x020000000000ull | (d[6] & 0x0f);
			m.port = (uint16_t)((d[7] & 0xf0) << 8 | (d[7] & 0x0f));
			m.max_age = (uint16_t)(6 + d[9] % 35);
			m.msg_age = (uint16_t)(d[8] % m.max_age);
			m.hello = (uint16_t)(d[10] % 11);
			m.fwd_delay = (uint16_t)(4 + d[11] % 27);
			off += 12;
			rstp_rx(&br[b], (uint16_t)p, &m);
			deliver();
			break;
		}
		case 2:
			NEED(1);
			for (int t = 0; t <= data[off] % 16; t++) {
				for (int b = 0; b < NB; b++)
					rstp_tick(&br[b]);
				deliver();
			}
			off++;
			break;
		case 3:
			NEED(3);
			rstp_port_enable(&br[data[off] % NB], data[off + 1] % NP,
					 data[off + 2] & 1);
			off += 3;
			deliver();
			break;
		case 4:
			NEED(3);
			wire[data[off] % NB][data[off + 1] % NP].cut = data[off + 2] & 1;
			off += 3;
			break;
		case 5: {
			NEED(5);
			int b = data[off] % NB, p = data[off + 1] % NP;
			rstp_port_add(&br[b], (uint16_t)p, br[b].port[p].enabled,
				      (uint8_t)(data[off + 2] & 0xf0), 1u + data[off + 3] * 1000u,
				      data[off + 4] % 3);
			off += 5;
			deliver();
			break;
		}
		case 6: {
			NEED(3);
			static const struct rstp_times ts[] = {
			    {0, 6, 1, 4}, {0, 20, 2, 15}, {0, 10, 2, 6}};
			struct rstp_bridge *r = &br[data[off] % NB];
			uint8_t mac[6] = {2, 0, 0, 0, 0, (uint8_t)(data[off] % NB + 1)};
			rstp_set_bid(r, (uint16_t)((data[off + 1] & 0x0f) << 12), mac);
			r->times = ts[data[off + 2] % 3];
			rstp_bridge_changed(r);
			off += 3;
			deliver();
			break;
		}
		case 7:
			NEED(2);
			if (data[off + 1] & 1)
				rstp_start(&br[data[off] % NB]);
			else
				rstp_stop(&br[data[off] % NB]);
			off += 2;
			deliver();
			break;
		default:
			deliver();
		}
		check();
	}
end:
	settle_and_check_tree();
	return 0;
}
