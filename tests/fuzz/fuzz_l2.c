/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target for the L2 switch as a stage (src/nf/l2): bridges with access and
 * trunk ports, frames from several ports through the "l2" mode's input function as
 * an lcore runs it, the learn events applied by the control plane's own code
 * (tp_l2_learn_drain, as its 10 ms timer does), aging by a clock the input moves,
 * ports and bridges configured through the module's own parsers (the port mode's
 * attach, the "bridge ..." commands through the command registry), MAC limits,
 * learn rates and storm control.
 *
 * The state (bridges, ports, the MAC table, the lcore's caches and buckets, the
 * clock) carries over from one input to the next, as in a daemon that runs on: an
 * input that broke a property may need the inputs run before it to break it again
 * (libFuzzer keeps only the last; -runs=0 over the corpus replays them all).
 *
 * Input: a small program of records, each an opcode byte then its operands:
 *   0 raw frame     PORT LEN_HI LEN_LO BYTES...   (a frame received on PORT)
 *   1 station frame PORT SRC DST TAG LEN           (built: see station_frame)
 *   2 repeat        COUNT                          (the last frame again, COUNT times)
 *   3 run the burst (frames queue up per port until then, 31 at most)
 *   4 drain         (the control plane applies the learn events)
 *   5 clock         STEP                           (advance, drain, age)
 *   6 port set      PORT CFG EXTRA                 (port set P mode l2 bridge ...
 *                                                    [admit all])
 *   7 port l3       PORT                           (the port leaves its bridge)
 *   8 bridge        OP ARG                         (bridge add / del / set, stp on / off)
 *   9 static MAC    OP ARG PORT                    (bridge mac add / del / flush
 *                                                    [port], the CLI's own command)
 *
 * The ports are p0..p5 to the commands: tp_port_by_name is wrapped (-Wl,--wrap; the
 * real one needs a probed device and a TAP) so that "bridge mac add b0 MAC port p3"
 * runs the CLI's handler to the end (its checks, l2_mac_set with is_static) and
 * static entries meet learning, moves, aging, limits and flushes.
 *
 * Properties, after every burst: every frame received is counted once (l2.rx =
 * unicast + flooded + the punts + the drops other than those a sent copy counts:
 * tag_no_headroom, exceeds_mtu and flood_copy_failed), what waits to go out is what
 * was forwarded (unicast + flooded + flood copies - tag_no_headroom - exceeds_mtu),
 * within the egress port's MTU, never to a member port's own MAC unless the table
 * learned it from a frame sent from it, each on a member
 * port of the ingress port's bridge other than the ingress port, tagged as that
 * port wants (a tag only on a trunk, for a VLAN it carries that is not its native
 * one; nothing from an access port leaves with a second tag exposed), and every
 * mbuf, flood copies included, is back in its pool once the buffers are emptied.
 * After every input: the MAC table agrees with itself (each entry in a live bridge
 * on a port of that bridge, the per-port and per-bridge counts what the table
 * holds, within their limits or falling toward a lowered one, the fast path's
 * limit flags set exactly when full, the hash holding every entry and no other),
 * and the static entries exactly those the commands made and did not remove (a
 * static entry is never aged, moved by learning, flushed as a learned one or
 * evicted by a limit; it goes with "bridge mac del", its port leaving the bridge
 * or the bridge).
 *
 * Every port is an af_packet bridge member's: a burst goes through the RX callback's
 * unwrap first (core/afpacket.c, tp_afpacket_unwrap), as in the daemon; a frame with
 * the wrap's EtherType (0x88b5) at 12 comes out as the kernel's XDP program took it
 * in (its 4 bytes at 12..15 gone) if it has the wrap's mark, as it was if not, and is
 * dropped and counted (core.afpacket_unwrap_short) if too short to have been wrapped;
 * the rest of the burst as it was, in order.
 * Built and run by scripts/fuzz.sh. */
#include <stdbool.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ether.h>
#include <rte_hash.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "control/cmd.h"
#include "control/out.h"
#include "control/port.h"
#include "core/afpacket.h"
#include "core/input.h"
#include "core/nf.h"
#include "core/rcu.h"
#include "core/tp.h"
#include "fuzz_dpdk.h"
#include "nf/l2/control/control.h"
#include "nf/l2/l2.h"
#include "tables/iface.h"

#define N_PORTS 6
#define N_BRIDGES 3
#define N_STATIONS 24
#define BURST_MAX 31 /* < TP_BURST: a transmit buffer never fills, so all are checked */
#define MAX_FRAME 2000
#define POOL_SIZE 127 /* small: a flood of a full burst runs it dry (flood_copy_failed) */
#define TABLE "256"   /* --l2-macs: small enough to fill */
#define TABLE_N 256u
#define HZ 1000000000ull /* the clock's ticks a second */

static struct rte_mempool *pool;
static struct tp_worker *w;
static struct tp_port_mode *l2_mode;
static uint64_t now;   /* the clock: the lcore's and the control plane's */
static uint32_t fresh; /* the next never-seen source MAC */

/* what the fuzzer knows of each port: its mode context (NULL: not bridged) */
static void *ctx_of[N_PORTS];
/* how many MACs each port and bridge may hold now: its limit, or more while a
 * lowered limit waits for entries to go (0: none) */
static uint32_t port_allowed[N_PORTS], bridge_allowed[L2_BRIDGES_MAX];

/* the pending burst */
static struct rte_mbuf *pend[BURST_MAX];
static unsigned int n_pend;
static uint16_t pend_port;
static uint8_t last[MAX_FRAME];
static uint32_t last_len;
static uint8_t last_noroom;

/* the static entries the commands made: their port for (bridge id, VLAN 10 or 20,
 * station), -1 for none */
static int16_t static_at[L2_BRIDGES_MAX][2][N_STATIONS];

/* The ports' MTUs (0: none), within the frames' lengths (a station frame's payload
 * is 2 to 265 bytes behind its tags, a raw one up to MAX_FRAME) */
static const uint16_t port_mtu[N_PORTS] = {0, 1500, 64, 128, 200, 46};

/* Port p's own MAC: 02:00:00:00:ee:0p (no station's) */
static void port_own_mac(uint8_t *mac, unsigned int p)
{
	static const uint8_t base[6] = {0x02, 0x00, 0x00, 0x00, 0xee, 0x00};

	memcpy(mac, base, 6);
	mac[5] = (uint8_t)p;
}

/* The ports' names for the commands: p0..p5 (no device behind them). */
struct tp_port *__real_tp_port_by_name(const char *name);
struct tp_port *__wrap_tp_port_by_name(const char *name);
struct tp_port *__wrap_tp_port_by_name(const char *name)
{
	static struct tp_port ports[N_PORTS];

	if (name[0] == 'p' && name[1] >= '0' && name[1] < '0' + N_PORTS && name[2] == '\0') {
		struct tp_port *p = &ports[name[1] - '0'];
		snprintf(p->name, sizeof(p->name), "%s", name);
		p->id = (uint16_t)(name[1] - '0');
		return p;
	}
	return __real_tp_port_by_name(name);
}

/* Forget the static entries of bridge b (on port, or all with L2_NO_PORT). */
static void statics_gone(uint16_t b, uint16_t port)
{
	for (unsigned int v = 0; v < 2; v++)
		for (unsigned int s = 0; s < N_STATIONS; s++)
			if (port == L2_NO_PORT || static_at[b][v][s] == (int16_t)port)
				static_at[b][v][s] = -1;
}

static int run(const char *line)
{
	char buf[256], *argv[24];
	struct tp_cmd_ctx ctx = {0};
	int argc, ret;

	snprintf(buf, sizeof(buf), "%s", line);
	argc = tp_cmd_split(buf, argv, 24);
	must(argc > 0);
	ctx.out = tp_out_new();
	must(ctx.out != NULL);
	ret = tp_cmd_exec(&ctx, argc, argv);
	/* every refusal says why */
	must(ret != TP_CMD_PENDING && (ret == 0 || ctx.err[0] != '\0'));
	tp_out_free(ctx.out);
	return ret;
}

static uint64_t l2c(uint16_t port, unsigned int id)
{
	return w->ctr[port][tp_l2_nf.ctr_base + id];
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	void *state;

	fuzz_eal_init("fuzz-l2", 256);
	must(tp_rcu_init(1) == 0);
	atexit(tp_rcu_fini);
	tp.tsc_hz = HZ;
	now = 1000 * HZ;
	pool = rte_pktmbuf_pool_create("fuzz-l2", POOL_SIZE, 0, TP_MBUF_PRIV_SIZE,
				       RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	must(pool != NULL);
	w = fuzz_worker();
	/* the exception rings: BPDUs a bridge running STP punts (drained every burst) */
	w->exc_ring[0] =
	    rte_ring_create("fuzz-exc0", 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	w->exc_ring[1] =
	    rte_ring_create("fuzz-exc1", 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	must(w->exc_ring[0] != NULL && w->exc_ring[1] != NULL);
	/* the module as the daemon starts it, with a small table */
	must(tp_l2_nf.n_opts >= 1 && strcmp(tp_l2_nf.opts[0].name, "l2-macs") == 0);
	must(tp_l2_nf.opts[0].fn(TABLE) == 0);
	must(tp_l2_nf.init() == 0);
	state = rte_zmalloc("l2-lcore", tp_l2_nf.lcore_size, RTE_CACHE_LINE_SIZE);
	must(state != NULL);
	w->nf_state[tp_l2_nf.id] = state;
	must(tp_l2_nf.lcore_init(w, state) == 0);
	l2_mode = tp_port_mode_find("l2");
	must(l2_mode != NULL);
	for (unsigned int p = 0; p < N_PORTS; p++) {
		tp_iface_table[p].up = 0; /* no device: nothing is transmitted */
		tp_iface_table[p].mtu = port_mtu[p];
		port_own_mac(tp_iface_table[p].mac.addr_bytes, p);
	}
	memset(static_at, 0xff, sizeof(static_at));
	must(run("bridge add b0 aging 2") == 0);
	bridge_allowed[0] = 256;
	return 0;
}

/* --- the checks --- */

static bool is_member(uint16_t port, uint16_t b)
{
	const struct l2_port *lp = port < TP_MAX_PORTS ? tp_l2_port(port) : NULL;

	return lp != NULL && lp->br->id == b;
}

/* The MAC table against itself and the limits. */
static void check_table(void)
{
	uint32_t per_port[TP_MAX_PORTS] = {0}, per_br[L2_BRIDGES_MAX] = {0}, used = 0;
	unsigned int statics = 0, made = 0;

	tp_rcu_reclaim(); /* removed entries' slots come back after the grace period */
	for (uint32_t i = 0; i < TABLE_N; i++) {
		const struct l2_mac *e = &l2_mac_table[i];
		void *data;
		if (e->used == 0)
			continue;
		must(e->used == 1); /* nothing left dying after reclaim */
		used++;
		/* in a live bridge, on a port of that bridge (its key's bridge) */
		must(e->key.bridge < L2_BRIDGES_MAX && l2_bridges[e->key.bridge].used);
		must(is_member(e->port, e->key.bridge));
		must(!rte_is_multicast_ether_addr(&e->key.mac) &&
		     !rte_is_zero_ether_addr(&e->key.mac));
		must(e->key.vlan >= 1 && e->key.vlan <= 4094);
		/* the hash finds it, at this index */
		must(rte_hash_lookup_data(l2_macs, &e->key, &data) >= 0 && (uintptr_t)data == i);
		if (!e->is_static) {
			per_port[e->port]++;
			per_br[e->key.bridge]++;
			continue;
		}
		/* a static entry: one the commands made, on the port they named */
		const uint8_t *a = e->key.mac.addr_bytes;
		must(a[0] == 0x02 && a[1] == 0 && a[2] == 0 && a[3] == 0 && a[4] == 0 &&
		     a[5] >= 0x10 && a[5] < 0x10 + N_STATIONS);
		must(e->key.vlan == 10 || e->key.vlan == 20);
		must(static_at[e->key.bridge][e->key.vlan == 20][a[5] - 0x10] == (int16_t)e->port);
		statics++;
	}
	must(rte_hash_count(l2_macs) == (int32_t)used);
	/* ... and every one they made is there (none aged, moved, flushed or evicted) */
	for (uint16_t b = 0; b < L2_BRIDGES_MAX; b++)
		for (unsigned int v = 0; v < 2; v++)
			for (unsigned int st = 0; st < N_STATIONS; st++)
				made += static_at[b][v][st] >= 0;
	must(statics == made);
	for (uint16_t p = 0; p < N_PORTS; p++) {
		const struct l2_port *lp = tp_l2_port(p);
		must(tp_l2_port_macs(p) == per_port[p]);
		must((lp != NULL) == (ctx_of[p] != NULL));
		if (lp == NULL) {
			must(per_port[p] == 0);
			continue;
		}
		must(lp == ctx_of[p]);
		must(lp->at_limit == (lp->mac_limit && per_port[p] >= lp->mac_limit));
		/* within the limit, or coming down to it (never up past what it held) */
		if (port_allowed[p])
			must(per_port[p] <= port_allowed[p]);
		port_allowed[p] = lp->mac_limit ? RTE_MAX(lp->mac_limit, per_port[p]) : 0;
	}
	for (uint16_t b = 0; b < L2_BRIDGES_MAX; b++) {
		const struct l2_bridge *br = &l2_bridges[b];
		must(tp_l2_bridge_macs(b) == per_br[b]);
		if (!br->used) {
			must(per_br[b] == 0);
			continue;
		}
		uint32_t lim = tp_l2_bridge_limit(b);
		must(br->at_limit == (per_br[b] >= lim));
		if (bridge_allowed[b])
			must(per_br[b] <= bridge_allowed[b]);
		bridge_allowed[b] = RTE_MAX(lim, per_br[b]);
	}
}

/* A frame that waits to go out on port op, from a burst received on port in. */
static void check_out(const struct rte_mbuf *m, uint16_t op, uint16_t in)
{
	const struct l2_port *ip = tp_l2_port(in), *lp = tp_l2_port(op);
	const char *why = NULL;
	const uint8_t *d;

	must(rte_mbuf_check(m, 1, &why) == 0);
	must(rte_mbuf_refcnt_read(m) == 1 && m->nb_segs == 1 && m->pool == pool);
	/* to another port of the same bridge */
	must(op != in && lp != NULL && ip != NULL && lp->br == ip->br);
	must(m->data_len >= RTE_ETHER_HDR_LEN);
	d = rte_pktmbuf_mtod(m, const uint8_t *);
	bool tagged = d[12] == 0x81 && d[13] == 0x00;
	uint16_t vid = 0;
	if (tagged) {
		must(m->data_len >= RTE_ETHER_HDR_LEN + 4);
		vid = (uint16_t)((d[14] & 0x0f) << 8 | d[15]);
	}
	if (!ip->trunk) {
		/* from an access port: at most one tag, ours, for the port's VLAN on a trunk
		 * that carries it tagged, and no 802.1Q tag of the sender's behind it (an
		 * untagged 802.1ad frame is a frame like any other to this switch) */
		if (tagged) {
			must(lp->trunk && vid == ip->pvid && vid != lp->pvid &&
			     l2_vlan_allowed(lp, vid));
			must(!(d[16] == 0x81 && d[17] == 0x00));
		}
	} else if (tagged && lp->trunk && vid != 0 && vid != lp->pvid && l2_vlan_allowed(lp, vid)) {
		/* from a trunk, tagged: a VLAN both ports carry */
		must(l2_vlan_allowed(ip, vid));
	}
	/* else a trunk's frame in a non-native VLAN that carried a second tag, out
	 * untagged: the sender's inner tag shows (README's Decisions) */
	if (!tagged)
		must(!lp->trunk || lp->pvid != 0);
	/* within the port's MTU: the payload behind the header and our tag */
	if (port_mtu[op] != 0)
		must(m->pkt_len - RTE_ETHER_HDR_LEN - (tagged ? 4u : 0u) <= port_mtu[op]);
	/* to a port's own MAC: only where a frame from that MAC taught the table (a
	 * raw frame can send from it); the bridge never floods it */
	for (unsigned int p = 0; p < N_PORTS; p++) {
		uint8_t own[6];
		bool known = false;
		port_own_mac(own, p);
		if (!is_member((uint16_t)p, lp->br->id) || memcmp(d, own, 6) != 0)
			continue;
		for (uint32_t i = 0; i < TABLE_N; i++)
			known |= l2_mac_table[i].used == 1 &&
				 l2_mac_table[i].key.bridge == lp->br->id &&
				 memcmp(&l2_mac_table[i].key.mac, own, 6) == 0;
		must(known);
	}
	/* never a link-local frame but the bridge group address, never a bad source */
	must(!(d[0] == 0x01 && d[1] == 0x80 && d[2] == 0xc2 && d[3] == 0 && d[4] == 0 &&
	       d[5] != 0 && d[5] < 0x10));
	must(!(d[6] & 1));
}

/* The sum of port's l2 counters of that kind. */
static uint64_t sum_l2(uint16_t port, enum tp_ctr_kind kind)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < L2_CTR_MAX; i++)
		if (tp_ctr_kind(tp_l2_nf.ctr_base + i) == kind)
			v += l2c(port, i);
	return v;
}

/* The af_packet RX callback's unwrap on the pending burst of n from port in, checked
 * against the frames as they were: how many are left. */
static unsigned int unwrap(uint16_t in, unsigned int n)
{
	static uint8_t was[BURST_MAX][MAX_FRAME];
	static struct rte_mbuf *sent[BURST_MAX];
	uint32_t was_len[BURST_MAX];
	uint64_t short0 = w->ctr[in][TP_DROP_AFPACKET_UNWRAP_SHORT];
	unsigned int left, k = 0;

	for (unsigned int i = 0; i < n; i++) {
		sent[i] = pend[i];
		was_len[i] = rte_pktmbuf_data_len(pend[i]);
		memcpy(was[i], rte_pktmbuf_mtod(pend[i], const uint8_t *), was_len[i]);
	}
	left = tp_afpacket_unwrap(w, pend, (uint16_t)n);
	must(left <= n);
	must(w->ctr[in][TP_DROP_AFPACKET_UNWRAP_SHORT] - short0 == n - left);
	for (unsigned int i = 0; i < n; i++) {
		const uint8_t *d = was[i];
		uint32_t len = was_len[i];
		bool wrap = len >= RTE_ETHER_HDR_LEN && d[12] == 0x88 && d[13] == 0xb5;
		if (wrap && len < RTE_ETHER_HDR_LEN + 4)
			continue; /* dropped: its mbuf is back in the pool (the leak check) */
		must(k < left && pend[k] == sent[i]);
		struct rte_mbuf *m = pend[k++];
		const uint8_t *o = rte_pktmbuf_mtod(m, const uint8_t *);
		if (wrap && d[14] == 't' && d[15] == 'p') {
			must(m->data_len == len - 4 && m->pkt_len == len - 4);
			must(memcmp(o, d, 12) == 0 && memcmp(o + 12, d + 16, len - 16) == 0);
		} else {
			must(m->data_len == len && memcmp(o, d, len) == 0);
		}
	}
	must(k == left);
	return left;
}

/* Run the pending burst through the port's input function and check. */
static void burst(void)
{
	uint16_t in = pend_port;
	uint64_t rx0 = l2c(in, L2_CTR_RX), uni0 = l2c(in, L2_CTR_UNICAST),
		 fl0 = l2c(in, L2_CTR_FLOODED), cp0 = l2c(in, L2_CTR_FLOOD_COPIES),
		 cf0 = l2c(in, L2_CTR_FLOOD_COPY_FAILED), nr0 = l2c(in, L2_CTR_TAG_NO_ROOM),
		 em0 = l2c(in, L2_CTR_EXCEEDS_MTU), dr0 = sum_l2(in, TP_CTR_DROP),
		 pu0 = sum_l2(in, TP_CTR_PUNT), down0 = 0, down1 = 0;
	unsigned int waiting = 0, n = n_pend;

	if (n == 0)
		return;
	for (uint16_t p = 0; p < TP_MAX_PORTS; p++) {
		must(w->txb[p].n == 0);
		down0 += w->ctr[p][TP_DROP_PORT_DOWN];
		/* no other port's counter moves */
	}
	n_pend = 0;
	w->now = now;
	n = unwrap(in, n);
	if (n == 0)
		return;
	must(tp_iface_table[in].input == l2_input && tp_iface_table[in].mode_ctx == ctx_of[in]);
	tp_iface_table[in].input(w, pend, (uint16_t)n);

	for (uint16_t p = 0; p < TP_MAX_PORTS; p++) {
		struct tp_txbuf *b = &w->txb[p];
		for (unsigned int k = 0; k < b->n; k++)
			check_out(b->pkts[k], p, in);
		waiting += b->n;
		down1 += w->ctr[p][TP_DROP_PORT_DOWN];
	}
	uint64_t rx = l2c(in, L2_CTR_RX) - rx0, uni = l2c(in, L2_CTR_UNICAST) - uni0,
		 fl = l2c(in, L2_CTR_FLOODED) - fl0, cp = l2c(in, L2_CTR_FLOOD_COPIES) - cp0,
		 cf = l2c(in, L2_CTR_FLOOD_COPY_FAILED) - cf0,
		 nr = l2c(in, L2_CTR_TAG_NO_ROOM) - nr0, em = l2c(in, L2_CTR_EXCEEDS_MTU) - em0,
		 dr = sum_l2(in, TP_CTR_DROP) - dr0, pu = sum_l2(in, TP_CTR_PUNT) - pu0;
	/* what was punted is in the exception rings (BPDUs of a bridge running STP) */
	unsigned int punted = 0;
	for (unsigned int k = 0; k < 2; k++) {
		void *m;
		while (rte_ring_dequeue(w->exc_ring[k], &m) == 0) {
			must(((struct rte_mbuf *)m)->port == in);
			rte_pktmbuf_free(m);
			punted++;
		}
	}
	must(punted == pu);
	/* every frame counted once: forwarded, flooded, punted, or dropped for one
	 * reason */
	must(rx == n);
	must(uni + fl + dr + pu - nr - cf - em == n);
	/* what waits to go out is what was forwarded (nothing was flushed) */
	must(down1 == down0);
	must(waiting + nr + em == uni + fl + cp);
	for (uint16_t p = 0; p < TP_MAX_PORTS; p++) {
		rte_pktmbuf_free_bulk(w->txb[p].pkts, w->txb[p].n);
		w->txb[p].n = 0;
	}
	w->tx_dirty = 0;
	/* the leak check: every mbuf, flood copies included, back in the pool */
	must(rte_mempool_in_use_count(pool) == 0);
	now += HZ / 100000; /* 10 us a burst */
}

/* Queue a frame of len bytes received on port (in bridged mode, else skipped). */
static void receive(uint16_t port, const uint8_t *bytes, uint32_t len, bool noroom)
{
	struct rte_mbuf *m;

	if (port >= N_PORTS || ctx_of[port] == NULL)
		return;
	if (n_pend > 0 && (pend_port != port || n_pend == BURST_MAX))
		burst();
	len = RTE_MIN(len, (uint32_t)MAX_FRAME);
	memcpy(last, bytes, len);
	last_len = len;
	last_noroom = noroom;
	m = rte_pktmbuf_alloc(pool);
	must(m != NULL);
	if (noroom) /* no headroom: a tag cannot be pushed (tag_no_headroom) */
		m->data_off = 0;
	must(rte_pktmbuf_append(m, (uint16_t)len) != NULL || len == 0);
	if (len)
		memcpy(rte_pktmbuf_mtod(m, uint8_t *), bytes, len);
	m->port = port;
	pend_port = port;
	pend[n_pend++] = m;
}

static void station_mac(uint8_t *mac, unsigned int i)
{
	static const uint8_t base[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x00};

	memcpy(mac, base, 6);
	mac[5] = (uint8_t)(0x10 + i);
}

/* A frame from src to dst with the tags tag asks for and len bytes of payload:
 * SRC < 0xe0: station SRC % 24; 0xee: zero; 0xef: multicast; else a fresh MAC.
 * DST % 32 < 24: a station; 24 broadcast, 25 IPv4 multicast, 26 the bridge group
 * address (BPDU), 27 LLDP's, 28 an unknown unicast, 29 IPv6 multicast, 30 the
 * port-local 01:80:c2:00:00:01, 31 the first station.
 * TAG % 8: none, priority tag, VLAN 10, VLAN 20, VLAN 30, priority + 802.1Q 20,
 * VLAN 10 + 802.1Q 20, priority + 802.1ad; bit 3: PCP bits; bit 6: to the own MAC of
 * port DST % 6 instead; bit 7: no headroom. */
static void station_frame(uint16_t port, uint8_t src, uint8_t dst, uint8_t tag, uint8_t len)
{
	static const uint8_t groups[][6] = {
	    {0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, {0x01, 0x00, 0x5e, 0x00, 0x00, 0x01},
	    {0x01, 0x80, 0xc2, 0x00, 0x00, 0x00}, {0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e},
	    {0x02, 0xff, 0xff, 0x00, 0x00, 0x01}, {0x33, 0x33, 0x00, 0x00, 0x00, 0x01},
	    {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01}};
	uint8_t f[14 + 8 + 255] = {0};
	unsigned int off = 12, d = dst % 32;
	uint8_t pcp = (tag & 8) ? 0xa0 : 0;

	if (tag & 0x40)
		port_own_mac(f, d % N_PORTS);
	else if (d < N_STATIONS)
		station_mac(f, d);
	else if (d == 31)
		station_mac(f, 0);
	else
		memcpy(f, groups[d - N_STATIONS], 6);
	if (src < 0xe0) {
		station_mac(f + 6, src % N_STATIONS);
	} else if (src == 0xee) {
		memset(f + 6, 0, 6);
	} else if (src == 0xef) {
		f[6] = 0x01, f[7] = 0x00, f[8] = 0x5e, f[11] = 0x07;
	} else {
		uint32_t x = fresh++;
		f[6] = 0x06, f[7] = 0xaa, f[8] = (uint8_t)(x >> 24), f[9] = (uint8_t)(x >> 16);
		f[10] = (uint8_t)(x >> 8), f[11] = (uint8_t)x;
	}
	static const uint16_t outer[8] = {0, 0, 10, 20, 30, 0, 10, 0};
	switch (tag % 8) {
	case 0:
		break;
	default:
		f[off] = 0x81, f[off + 1] = 0x00;
		f[off + 2] = (uint8_t)(pcp | outer[tag % 8] >> 8);
		f[off + 3] = (uint8_t)outer[tag % 8];
		off += 4;
		if (tag % 8 >= 5) { /* a second tag behind the first */
			f[off] = tag % 8 == 7 ? 0x88 : 0x81;
			f[off + 1] = tag % 8 == 7 ? 0xa8 : 0x00;
			f[off + 2] = 0, f[off + 3] = 20;
			off += 4;
		}
	}
	f[off] = 0x08, f[off + 1] = 0x00; /* IPv4 */
	off += 2;
	for (unsigned int i = 0; i < len; i++)
		f[off + i] = (uint8_t)i;
	receive(port, f, off + len, tag & 0x80);
}

/* --- the control plane's side --- */

static void drain(void)
{
	const struct l2_lcore *lc = tp_nf_lcore(w, &tp_l2_nf);

	/* as the 10 ms timer does, until nothing is left (a pass takes 1,024) */
	do
		tp_l2_learn_drain(now);
	while (rte_ring_count(lc->learn) > 0);
	tp_rcu_reclaim();
}

/* "port set P mode l2 bridge ..." (as tp_port_set_mode: attach, switch, then the old
 * mode's detach once no lcore can see it). */
static void port_set(uint16_t port, uint8_t cfg, uint8_t extra)
{
	static const char *const kinds[4] = {"vlan 10", "vlan 20", "trunk 10,20",
					     "trunk 10,20 native 10"};
	static const char *const limits[4] = {"", " mac-limit 0", " mac-limit 2", " mac-limit 5"};
	static const char *const lrates[4] = {"", " learn-rate 0", " learn-rate 3",
					      " learn-rate 100"};
	static const char *const storms[4] = {"", "0", "2", "40"};
	char line[256], err[256] = "", *argv[24];
	void *ctx = NULL;
	int argc, n;

	if (port >= N_PORTS)
		return;
	n = snprintf(line, sizeof(line), "bridge b%u %s%s%s", cfg % N_BRIDGES,
		     kinds[(cfg >> 2) % 4], limits[extra % 4], lrates[(extra >> 2) % 4]);
	if ((extra >> 4) % 4)
		n += snprintf(line + n, sizeof(line) - (size_t)n, " storm-broadcast %s",
			      storms[(extra >> 4) % 4]);
	if ((extra >> 6) % 4)
		snprintf(line + n, sizeof(line) - (size_t)n, " storm-unknown %s",
			 storms[(extra >> 6) % 4]);
	if (cfg & 0x20) /* an access port's VLAN tag admitted (a trunk refuses it) */
		strcat(line, " admit all");
	if (cfg & 0x80) /* a word the parser must refuse, with its reason */
		strcat(line, cfg & 0x40 ? " mac-limit x" : " storm-unknown");
	argc = tp_cmd_split(line, argv, 24);
	must(argc > 0);
	if (n_pend)
		burst();
	if (l2_mode->attach(port, argc, argv, &ctx, err, sizeof(err)) < 0) {
		must(err[0] != '\0' && ctx == NULL);
		return;
	}
	void *old = ctx_of[port];
	uint16_t old_br = old ? ((const struct l2_port *)old)->br->id : L2_NO_PORT;
	tp_iface_table[port].mode_ctx = ctx;
	tp_iface_table[port].input = l2_input;
	ctx_of[port] = ctx;
	if (old)
		l2_mode->detach(port, old);
	/* to another bridge: its MAC entries, static ones too, left with it */
	if (old && old_br != ((const struct l2_port *)ctx)->br->id)
		statics_gone(old_br, port);
	tp_rcu_reclaim();
	port_allowed[port] = 0; /* a new limit: checked from the next input on */
}

static void port_l3(uint16_t port)
{
	void *old;

	if (port >= N_PORTS || ctx_of[port] == NULL)
		return;
	if (n_pend)
		burst();
	old = ctx_of[port];
	tp_iface_table[port].input = NULL;
	tp_iface_table[port].mode_ctx = NULL;
	ctx_of[port] = NULL;
	statics_gone(((const struct l2_port *)old)->br->id, port);
	l2_mode->detach(port, old);
	tp_rcu_reclaim();
}

static void bridge_op(uint8_t op, uint8_t arg)
{
	char line[128];
	unsigned int b = op % N_BRIDGES;

	switch ((op >> 2) % 4) {
	case 0: { /* mac-limit 4..28, or auto */
		char lim[16] = "auto";
		if ((arg >> 2) % 8)
			snprintf(lim, sizeof(lim), "%u", 4 * ((arg >> 2) % 8));
		snprintf(line, sizeof(line), "bridge add b%u aging %u mac-limit %s%s", b,
			 1 + arg % 4, lim, (arg & 0x80) ? " bpdu drop" : "");
		break;
	}
	case 1:
		snprintf(line, sizeof(line), "bridge del b%u", b);
		break;
	case 2:
		if (arg % 41)
			snprintf(line, sizeof(line), "bridge set b%u mac-limit %u", b, arg % 41);
		else
			snprintf(line, sizeof(line), "bridge set b%u mac-limit auto", b);
		break;
	default:
		if (arg & 0x80) /* its spanning tree: with no link up, every port discards */
			snprintf(line, sizeof(line), "bridge set b%u stp %s", b,
				 (arg & 0x40) ? "on" : "off");
		else
			snprintf(line, sizeof(line), "bridge set b%u bpdu %s aging %u", b,
				 (arg & 1) ? "drop" : "forward", 1 + (arg >> 1) % 4);
	}
	if (n_pend)
		burst();
	char name[8];
	snprintf(name, sizeof(name), "b%u", b);
	const struct l2_bridge *br = l2_bridge_by_name(name);
	uint16_t id = br ? br->id : L2_NO_PORT;
	if (run(line) == 0) {
		if ((op >> 2) % 4 == 1)
			statics_gone(id, L2_NO_PORT);
		tp_rcu_reclaim();
	}
	for (uint16_t i = 0; i < L2_BRIDGES_MAX; i++)
		bridge_allowed[i] = 0; /* the fair shares changed */
}

/* "bridge mac add|del|flush" through the command registry: ARG's low bits pick
 * the station, its top bit VLAN 20 (else 10); PORT the port named (an add or a
 * flush; a port outside the bridge is refused, with its reason). */
static void static_op(uint8_t op, uint8_t arg, uint8_t port)
{
	char line[128], name[8];
	unsigned int b = op % N_BRIDGES, st = arg % N_STATIONS, vlan = (arg & 0x80) ? 20 : 10;
	unsigned int kind = (op >> 2) % 4;
	const struct l2_bridge *br;

	switch (kind) {
	case 0:
		snprintf(line, sizeof(line),
			 "bridge mac add b%u 02:00:00:00:00:%02x port p%u vlan %u", b, 0x10 + st,
			 port % N_PORTS, vlan);
		break;
	case 1:
		snprintf(line, sizeof(line), "bridge mac del b%u 02:00:00:00:00:%02x vlan %u", b,
			 0x10 + st, vlan);
		break;
	case 2:
		snprintf(line, sizeof(line), "bridge mac flush b%u", b);
		break;
	default:
		snprintf(line, sizeof(line), "bridge mac flush b%u port p%u", b, port % N_PORTS);
	}
	if (n_pend)
		burst();
	snprintf(name, sizeof(name), "b%u", b);
	br = l2_bridge_by_name(name);
	if (run(line) == 0) {
		must(br != NULL);
		if (kind == 0)
			static_at[br->id][vlan == 20][st] = (int16_t)(port % N_PORTS);
		else if (kind == 1)
			static_at[br->id][vlan == 20][st] = -1;
	}
	tp_rcu_reclaim();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0;

#define NEED(k)                                                                                    \
	do {                                                                                       \
		if (size - off < (k))                                                              \
			goto end;                                                                  \
	} while (0)
	while (off < size) {
		uint8_t op = data[off++];
		switch (op % 10) {
		case 0: {
			NEED(3);
			uint16_t port = data[off] % N_PORTS;
			uint32_t len = (uint32_t)data[off + 1] << 8 | data[off + 2];
			off += 3;
			len = (uint32_t)RTE_MIN((size_t)len, size - off);
			receive(port, data + off, len, false);
			off += len;
			break;
		}
		case 1:
			NEED(5);
			station_frame(data[off] % N_PORTS, data[off + 1], data[off + 2],
				      data[off + 3], data[off + 4]);
			off += 5;
			break;
		case 2:
			NEED(1);
			for (unsigned int i = 0; i < data[off] % 64 && last_len; i++)
				receive(pend_port, last, last_len, last_noroom);
			off++;
			break;
		case 3:
			burst();
			break;
		case 4:
			burst();
			drain();
			break;
		case 5:
			NEED(1);
			burst();
			drain();
			now += (uint64_t)(data[off++] + 1) * (HZ / 8);
			tp_l2_age(now);
			tp_rcu_reclaim();
			break;
		case 6:
			NEED(3);
			port_set(data[off] % N_PORTS, data[off + 1], data[off + 2]);
			off += 3;
			break;
		case 7:
			NEED(1);
			port_l3(data[off++] % N_PORTS);
			break;
		case 8:
			NEED(2);
			bridge_op(data[off], data[off + 1]);
			off += 2;
			break;
		default:
			NEED(3);
			static_op(data[off], data[off + 1], data[off + 2]);
			off += 3;
		}
	}
end:
	burst();
	drain();
	check_table();
	return 0;
}
