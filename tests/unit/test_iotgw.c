/* SPDX-License-Identifier: BSD-3-Clause */
/* The IoT gateway's report path on a worker (src/nf/iotgw/datapath/fast.c, report.c) fed crafted
 * frames through the l3 input, as an lcore runs it (the router hands UDP to the PHD
 * port to the gateway's local function), with the session manager's own code as the
 * control plane (session.c, AE table): a report from an agent in each session state
 * (unknown; associating; configured, its AE being made; ready, with confirmed and
 * fire-and-forget delivery; failed), malformed and spoofed datagrams. For each: what
 * is answered (the bytes of the frame to the agent), what is sent to the IN-CSE (its
 * CoAP requests), what goes to the control plane (the signaling ring), what is dropped
 * into which named counter ("iotgw.<counter>"), and every mbuf back in its pool. */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "../../src/control/timer.h"
#include "../../src/core/counter.h"
#include "../../src/core/input.h"
#include "../../src/core/nf.h"
#include "../../src/core/rcu.h"
#include "../../src/core/tp.h"
#include "../../src/nf/iotgw/iotgw.h"
#include "../../src/nf/iotgw/control/control.h"
#include "../../src/proto/coap.h"
#include "../../src/proto/ip4.h"
#include "../../src/proto/onem2m.h"
#include "../../src/tables/iface.h"
#include "../../src/nf/ip4/control/neigh.h"
#include "../../src/nf/ip4/ip4.h"
#include "../../src/nf/ip4/l3mode.h"
#include "../../src/nf/ip4/control/nexthop.h"
#include "../../src/nf/ip4/control/route.h"
#include "eal_fixture.h"
#include "worker_fixture.h"

#define IP(a, b, c, d) (((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))

static struct rte_mempool *pool;
static struct tp_worker *w;
static struct tp_iotgw_dp *dp;
static const uint8_t mac_p0[6] = {2, 0, 0, 0, 0, 0x10};
static const uint8_t mac_p1[6] = {2, 0, 0, 0, 0, 0x11};
static const uint8_t mac_h1[6] = {2, 0, 0, 0, 1, 0x02}; /* the agents' */
static const uint8_t mac_h2[6] = {2, 0, 0, 0, 1, 0x03}; /* someone else's */
static const uint8_t mac_cse[6] = {2, 0, 0, 0, 2, 0x02};
static const uint32_t agent_ip = IP(10, 0, 1, 2);
static const uint16_t agent_port = 41000;

/* clang-format off */
/* IEEE 11073-20601 APDUs (tests/unit/test_mder.c has them byte by byte, with their
 * offsets) */
/* AARQ from a pulse oximeter offering standard configuration 0x0190 */
static const uint8_t aarq[] = {
	0xE2, 0x00, 0x00, 0x32, 0x80, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x2A,
	0x50, 0x79, 0x00, 0x26, 0x80, 0x00, 0x00, 0x00, 0xA0, 0x00, 0x80, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x08,
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, /* 36 system-id */
	0x01, 0x90,		/* 44 dev-config-id = 0x0190 (standard) */
	0x00, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
};
/* PRST: confirmed fixed scan report of the pulse oximeter: SpO2 98 %, pulse 72 */
static const uint8_t scan_fixed[] = {
	0xE7, 0x00, 0x00, 0x36, 0x00, 0x34,
	0x12, 0x36,		/* 6 invoke-id */
	0x01, 0x01,		/* 8 roiv-cmip-confirmed-event-report */
	0x00, 0x2E, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x0D, 0x1D,		/* 18 MDC_NOTI_SCAN_REPORT_FIXED */
	0x00, 0x24, 0xF0, 0x00, 0x00, 0x00,
	0x00, 0x02,		/* 26 obs-scan-fixed.count 2 */
	0x00, 0x1C,
	0x00, 0x01,		/* 30 obj-handle 1 (SpO2) */
	0x00, 0x0A, 0x00, 0x62, /* SFLOAT 98 */
	0x20, 0x07, 0x12, 0x06, 0x12, 0x10, 0x00, 0x00,
	0x00, 0x0A,		/* 44 obj-handle 10 (pulse rate) */
	0x00, 0x0A, 0x00, 0x48, /* SFLOAT 72 */
	0x20, 0x07, 0x12, 0x06, 0x12, 0x10, 0x00, 0x00,
};
/* What the gateway answers to it: rors-cmip-confirmed-event-report, empty reply */
static const uint8_t scan_rsp[] = {
	0xE7, 0x00, 0x00, 0x12, 0x00, 0x10, 0x12, 0x36, 0x02, 0x01, 0x00, 0x0A,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0D, 0x1D, 0x00, 0x00,
};
static const uint8_t rlrq[] = {0xE4, 0x00, 0x00, 0x02, 0x00, 0x00}; /* RLRQ normal */
/* clang-format on */

/* --- the control plane's side: the session manager over a recording transport --- */
static uint8_t io_sent[8][256];
static size_t io_len[8];
static unsigned int io_n;

static int io_send(struct tp_iotgw_io *io, const uint8_t *buf, size_t len, uint32_t ip,
		   uint16_t port)
{
	assert_true(io_n < 8 && len <= sizeof(io_sent[0]));
	memcpy(io_sent[io_n], buf, len);
	io_len[io_n++] = len;
	return 0;
}

static void io_registration(struct tp_iotgw_io *io, int idx)
{
	/* the registrar's exchange with the IN-CSE is not this test's: the test sets the
	 * states it leads to */
}

static struct tp_iotgw_io io = {
    .send = io_send,
    .registration = io_registration,
    .source_l2 = tp_iotgw_aarq_source,
    .now_ms = 1000000,
};

/* p0 10.0.1.1/24 towards the agents; p1 10.0.2.1/24 towards the IN-CSE, 10.0.2.2,
 * resolved. */
static int setup(void **state)
{
	w = tp_test_l3_worker("iotgw", 255, &pool);
	if (w == NULL)
		return -1;
	memcpy(&tp_iface_table[0].mac, mac_p0, 6);
	memcpy(&tp_iface_table[1].mac, mac_p1, 6);
	for (unsigned int p = 0; p < 2; p++) {
		tp_iface_table[p].up = 0; /* no device: frames stay in the buffers */
		tp_iface_table[p].mtu = 1500;
		tp_iface_table[p].input = tp_l3_input;
		tp_ip4_ports[p].depth = 24;
	}
	tp_ip4_ports[0].ip = IP(10, 0, 1, 1);
	tp_ip4_ports[1].ip = IP(10, 0, 2, 1);
	tp_route_add(IP(10, 0, 1, 0), 24, TP_ROUTE_CONNECTED, 0, 0, 1);
	tp_route_add(IP(10, 0, 1, 1), 32, TP_ROUTE_LOCAL, 0, 0, 1);
	tp_route_add(IP(10, 0, 2, 0), 24, TP_ROUTE_CONNECTED, 0, 1, 1);
	tp_route_add(IP(10, 0, 2, 1), 32, TP_ROUTE_LOCAL, 0, 1, 1);
	int nh = tp_neigh_learn(IP(10, 0, 2, 2), 1, mac_cse);
	tp_route_host_update(IP(10, 0, 2, 2), 1, nh);
	/* the gateway as 'iotgw enable' makes it on the dual plane */
	tp_iotgw.cse_ip = IP(10, 0, 2, 2);
	if (tp_ae_init() < 0 || tp_iotgw_fast_register() < 0)
		return -1;
	dp = rte_zmalloc("iotgw-lcore", tp_iotgw_nf.lcore_size, RTE_CACHE_LINE_SIZE);
	if (dp == NULL)
		return -1;
	w->nf_state[tp_iotgw_nf.id] = dp;
	if (tp_iotgw_nf.lcore_init(w, dp) < 0)
		return -1;
	tp_iotgw_now_s = 1000;
	return 0;
}

static int teardown(void **state)
{
	tp_rcu_reclaim();
	tp_route_fini();
	tp_neigh_fini();
	tp_nh_fini();
	return 0;
}

/* Nothing buffered, queued or counted; every session ended; the dual plane's flags. */
static int reset(void **state)
{
	void *m;

	memset(w->ctr, 0, sizeof(uint64_t) * TP_MAX_PORTS * TP_CTR_MAX);
	for (int k = 0; k < 2; k++)
		while (rte_ring_dequeue(w->exc_ring[k], &m) == 0)
			rte_pktmbuf_free(m);
	for (unsigned int p = 0; p < TP_MAX_PORTS; p++) {
		rte_pktmbuf_free_bulk(w->txb[p].pkts, w->txb[p].n);
		w->txb[p].n = 0;
	}
	w->tx_dirty = 0;
	/* the agent releases its session (session.c ends it, as for any agent) */
	tp_iotgw_session_input(&io, rlrq, sizeof(rlrq), agent_ip, agent_port);
	assert_int_equal(tp_ae_lookup(agent_ip, agent_port), -ENOENT);
	tp_rcu_reclaim();
	memset(dp->agent, 0, sizeof(dp->agent));
	dp->defer = true; /* confirmed delivery, the default */
	dp->early = true;
	io_n = 0;
	io.now_ms += 100000; /* past every timeout of the sessions before */
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
	return 0;
}

/* The big-endian 32 bits at p (a frame's bytes: no alignment). */
static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A counter by its name, all ports. */
static uint64_t ctr(const char *name)
{
	int id = tp_ctr_lookup(name);
	uint64_t v = 0;

	assert_true(id >= 0);
	for (unsigned int p = 0; p < TP_MAX_PORTS; p++)
		v += w->ctr[p][id];
	return v;
}

/* Every iotgw counter is zero but those named (with their values). */
static void only(const char *const *names, const uint64_t *vals, unsigned int n)
{
	for (unsigned int c = 0; c < TP_IOTGW_CTR_MAX; c++) {
		char full[64];
		uint64_t want = 0;
		snprintf(full, sizeof(full), "iotgw.%s", tp_iotgw_ctr_names[c]);
		for (unsigned int i = 0; i < n; i++)
			if (strcmp(names[i], full) == 0)
				want = vals[i];
		if (ctr(full) != want)
			fail_msg("%s: %lu, expected %lu", full, (unsigned long)ctr(full),
				 (unsigned long)want);
	}
}
#define ONLY(...)                                                                                  \
	do {                                                                                       \
		struct {                                                                           \
			const char *n;                                                             \
			uint64_t v;                                                                \
		} kv_[] = {__VA_ARGS__};                                                           \
		const char *n_[RTE_DIM(kv_)];                                                      \
		uint64_t v_[RTE_DIM(kv_)];                                                         \
		for (unsigned int i_ = 0; i_ < RTE_DIM(kv_); i_++)                                 \
			n_[i_] = kv_[i_].n, v_[i_] = kv_[i_].v;                                    \
		only(n_, v_, RTE_DIM(kv_));                                                        \
	} while (0)

/* A datagram of len APDU bytes from agent_ip:sport, Ethernet source mac, to the PHD
 * port on p0. */
static struct rte_mbuf *frame(const uint8_t *mac, uint16_t sport, const uint8_t *apdu, size_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint16_t udp_len = (uint16_t)(8 + len);
	uint8_t *p;

	assert_non_null(m);
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(14 + 20 + udp_len));
	if (p == NULL)
		abort();
	memcpy(p, mac_p0, 6);
	memcpy(p + 6, mac, 6);
	p[12] = 0x08;
	p[13] = 0x00;
	tp_ip4_write(p + 14, rte_cpu_to_be_32(agent_ip), rte_cpu_to_be_32(IP(10, 0, 1, 1)), 17, 64,
		     udp_len, 7);
	uint8_t *u = p + 34;
	u[0] = (uint8_t)(sport >> 8), u[1] = (uint8_t)sport;
	u[2] = (uint8_t)(tp_iotgw.port >> 8), u[3] = (uint8_t)tp_iotgw.port;
	u[4] = (uint8_t)(udp_len >> 8), u[5] = (uint8_t)udp_len, u[6] = u[7] = 0;
	memcpy(u + 8, apdu, len);
	m->port = 0;
	return m;
}

static void run(struct rte_mbuf *m)
{
	tp_iface_table[m->port].input(w, &m, 1);
}

static void agent_says(const uint8_t *apdu, size_t len)
{
	run(frame(mac_h1, agent_port, apdu, len));
}

/* The one packet handed to the control plane: the signaling ring's (the other empty),
 * as sent. Its APDU into apdu (len bytes); the mbuf freed. */
static void punted(const uint8_t *apdu, size_t len)
{
	struct rte_ring *r = w->exc_ring[tp_punt_ring(TP_PUNT_SIGNALING)];
	struct rte_mbuf *m = NULL;

	assert_int_equal(rte_ring_count(w->exc_ring[0]) + rte_ring_count(w->exc_ring[1]), 1);
	assert_int_equal(rte_ring_dequeue(r, (void **)&m), 0);
	assert_int_equal(tp_mbuf_priv(m)->punt_class, TP_PUNT_SIGNALING);
	assert_int_equal(m->pkt_len, 42 + len);
	assert_memory_equal(rte_pktmbuf_mtod_offset(m, uint8_t *, 42), apdu, len);
	rte_pktmbuf_free(m);
}

/* Nothing went out, nothing to the control plane. */
static void nothing_out(void)
{
	assert_int_equal(w->txb[0].n + w->txb[1].n, 0);
	assert_int_equal(rte_ring_count(w->exc_ring[0]) + rte_ring_count(w->exc_ring[1]), 0);
}

/* The agent associated through the real path: its AARQ through the worker (which
 * notes its source) to the session manager. The entry's index (state QUERYING: the
 * gateway asked for the MDS attributes). */
static int associate(void)
{
	agent_says(aarq, sizeof(aarq));
	punted(aarq, sizeof(aarq));
	tp_iotgw_session_input(&io, aarq, sizeof(aarq), agent_ip, agent_port);
	int idx = tp_ae_lookup(agent_ip, agent_port);
	assert_true(idx >= 0);
	memset(w->ctr, 0, sizeof(uint64_t) * TP_MAX_PORTS * TP_CTR_MAX);
	return idx;
}

/* An agent nobody associated: its report is dropped, counted as unassociated. */
static void test_unknown_agent(void **state)
{
	agent_says(scan_fixed, sizeof(scan_fixed));
	nothing_out();
	ONLY({"iotgw.reports", 1}, {"iotgw.drop_unassociated", 1});
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
}

/* The AARQ goes to the control plane with its source noted; the session manager
 * accepts it (AARE), binds the session to that source and asks for the MDS
 * attributes: the agent's reports are then held for the control plane (early.c)
 * until its AE is ready. */
static void test_association_then_early_reports(void **state)
{
	agent_says(aarq, sizeof(aarq));
	ONLY({"iotgw.signaling_to_control", 1});
	assert_int_equal(tp_iotgw_aarq_source(agent_ip, agent_port), tp_iotgw_l2src(0, mac_h1));
	punted(aarq, sizeof(aarq));
	tp_iotgw_session_input(&io, aarq, sizeof(aarq), agent_ip, agent_port);
	assert_int_equal(io_n, 2); /* the AARE, then the GET */
	assert_int_equal(io_sent[0][0], 0xE3);
	assert_int_equal(io_sent[0][4] << 8 | io_sent[0][5], 0); /* accepted */
	assert_int_equal(io_sent[1][0], 0xE7);
	int idx = tp_ae_lookup(agent_ip, agent_port);
	assert_true(idx >= 0);
	assert_int_equal(tp_ae_table[idx].state, TP_AE_QUERYING);
	assert_int_equal(tp_ae_table[idx].l2src, tp_iotgw_l2src(0, mac_h1));

	/* a report now: to the control plane, counted as early */
	memset(w->ctr, 0, sizeof(uint64_t) * TP_MAX_PORTS * TP_CTR_MAX);
	agent_says(scan_fixed, sizeof(scan_fixed));
	punted(scan_fixed, sizeof(scan_fixed));
	ONLY({"iotgw.reports", 1}, {"iotgw.reports_before_ready", 1},
	     {"iotgw.signaling_to_control", 1});
	/* registering: the same */
	tp_iotgw_reg_begin(idx);
	assert_int_equal(tp_ae_table[idx].state, TP_AE_REGISTERING);
	agent_says(scan_fixed, sizeof(scan_fixed));
	punted(scan_fixed, sizeof(scan_fixed));
	assert_int_equal(ctr("iotgw.reports_before_ready"), 2);
	/* without early hand-over (the single plane): dropped, not ready */
	dp->early = false;
	agent_says(scan_fixed, sizeof(scan_fixed));
	nothing_out();
	assert_int_equal(ctr("iotgw.drop_not_ready"), 1);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
}

/* An agent whose configuration is not a standard one is associated but sends its
 * configuration first: a report before it is dropped, not ready. A session whose
 * registration failed drops its reports the same way. */
static void test_configuring_and_failed(void **state)
{
	uint8_t q[sizeof(aarq)];

	memcpy(q, aarq, sizeof(q));
	q[44] = 0x40, q[45] = 0x00; /* dev-config-id 0x4000: extended */
	agent_says(q, sizeof(q));
	punted(q, sizeof(q));
	tp_iotgw_session_input(&io, q, sizeof(q), agent_ip, agent_port);
	int idx = tp_ae_lookup(agent_ip, agent_port);
	assert_true(idx >= 0);
	assert_int_equal(tp_ae_table[idx].state, TP_AE_CONFIGURING);
	memset(w->ctr, 0, sizeof(uint64_t) * TP_MAX_PORTS * TP_CTR_MAX);
	agent_says(scan_fixed, sizeof(scan_fixed));
	nothing_out();
	ONLY({"iotgw.reports", 1}, {"iotgw.drop_not_ready", 1});

	tp_ae_set_state(idx, TP_AE_FAILED);
	agent_says(scan_fixed, sizeof(scan_fixed));
	nothing_out();
	assert_int_equal(ctr("iotgw.drop_not_ready"), 2);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
}

/* Ready, confirmed delivery (the default): the report is the control plane's
 * (delivery.c answers it once the IN-CSE stored it); nothing leaves the worker. */
static void test_ready_confirmed_to_control(void **state)
{
	int idx = associate();

	tp_iotgw_reg_begin(idx);
	tp_ae_set_state(idx, TP_AE_READY);
	agent_says(scan_fixed, sizeof(scan_fixed));
	punted(scan_fixed, sizeof(scan_fixed));
	assert_int_equal(w->txb[0].n + w->txb[1].n, 0);
	ONLY({"iotgw.reports", 1}, {"iotgw.signaling_to_control", 1});
	assert_int_equal(dp->agent[idx].seen, tp_iotgw_now_s);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
}

/* The CoAP request k waiting on p1: to the IN-CSE, a NON POST creating a
 * contentInstance in the container label of the agent's AE, its value val. */
static void assert_cin(unsigned int k, const char *label, const char *val)
{
	const struct rte_mbuf *m = w->txb[1].pkts[k];
	const uint8_t *e = rte_pktmbuf_mtod(m, const uint8_t *);
	struct tp_coap_msg c;
	char seg[64], want[64];

	assert_memory_equal(e, mac_cse, 6);
	assert_memory_equal(e + 6, mac_p1, 6);
	assert_int_equal(rte_ipv4_cksum((const struct rte_ipv4_hdr *)(e + 14)), 0);
	assert_int_equal(e[14 + 9], 17);
	assert_int_equal(be32(e + 30), IP(10, 0, 2, 2));
	assert_int_equal(e[36] << 8 | e[37], tp_iotgw.cse_port);
	assert_int_equal(e[38] << 8 | e[39], m->pkt_len - 34);
	assert_int_equal(tp_coap_decode(e + 42, m->pkt_len - 42, &c), 0);
	assert_int_equal(c.type, TP_COAP_NON);
	assert_int_equal(c.code, TP_COAP_POST);
	const struct tp_coap_opt *o = tp_coap_find_opt(&c, TP_COAP_OPT_URI_PATH, 0);
	const char *path[3] = {"cse-in", "PHD-1122334455667788", label};
	for (unsigned int i = 0; i < 3; i++) {
		assert_non_null(o);
		assert_true(tp_coap_opt_str(o, seg, sizeof(seg)) >= 0);
		assert_string_equal(seg, path[i]);
		o = tp_coap_find_opt(&c, TP_COAP_OPT_URI_PATH, tp_coap_opt_index(&c, o) + 1);
	}
	assert_non_null(c.payload);
	/* the measurement, JSON in the content (TS-0004), with the observation's time */
	char body[512];
	assert_true(c.payload_len < sizeof(body));
	memcpy(body, c.payload, c.payload_len);
	body[c.payload_len] = '\0';
	snprintf(want, sizeof(want), "\\\"value\\\":%s,", val);
	if (strncmp(body, "{\"m2m:cin\":{", 12) != 0 || strstr(body, want) == NULL ||
	    strstr(body, "\\\"time\\\":\\\"20071206T121000\\\"") == NULL)
		fail_msg("%s: not value %s at 2007-12-06 12:10:00", body, val);
}

/* Ready, fire-and-forget: the worker converts the report into one request per metric
 * to the IN-CSE and answers the agent itself (0201, the bytes 20601 gives); the
 * agent's retransmission is answered again and forwarded nothing twice. */
static void test_ready_forget_converted_and_answered(void **state)
{
	int idx = associate();

	tp_iotgw_reg_begin(idx);
	tp_ae_set_state(idx, TP_AE_READY);
	dp->defer = false;
	agent_says(scan_fixed, sizeof(scan_fixed));
	assert_int_equal(rte_ring_count(w->exc_ring[0]) + rte_ring_count(w->exc_ring[1]), 0);
	ONLY({"iotgw.reports", 1}, {"iotgw.cin_sent", 2}, {"iotgw.responses_sent", 1});
	assert_int_equal(w->txb[1].n, 2);
	assert_cin(0, tp_ae_table[idx].metric[0].label, "98");
	assert_cin(1, tp_ae_table[idx].metric[1].label, "72");
	/* the answer: back to the agent, addresses and ports swapped */
	assert_int_equal(w->txb[0].n, 1);
	const struct rte_mbuf *m = w->txb[0].pkts[0];
	const uint8_t *e = rte_pktmbuf_mtod(m, const uint8_t *);
	assert_int_equal(m->pkt_len, 42 + sizeof(scan_rsp));
	assert_memory_equal(e, mac_h1, 6);
	assert_memory_equal(e + 6, mac_p0, 6);
	assert_int_equal(rte_ipv4_cksum((const struct rte_ipv4_hdr *)(e + 14)), 0);
	assert_int_equal(be32(e + 26), IP(10, 0, 1, 1));
	assert_int_equal(be32(e + 30), agent_ip);
	assert_int_equal(e[34] << 8 | e[35], tp_iotgw.port);
	assert_int_equal(e[36] << 8 | e[37], agent_port);
	assert_memory_equal(e + 42, scan_rsp, sizeof(scan_rsp));

	/* the agent did not get it and sends the report again: answered, not converted */
	agent_says(scan_fixed, sizeof(scan_fixed));
	ONLY({"iotgw.reports", 2}, {"iotgw.cin_sent", 2}, {"iotgw.responses_sent", 2},
	     {"iotgw.duplicates", 1});
	assert_int_equal(w->txb[0].n, 2);
	assert_memory_equal(rte_pktmbuf_mtod_offset(w->txb[0].pkts[1], uint8_t *, 42), scan_rsp,
			    sizeof(scan_rsp));
	assert_int_equal(w->txb[1].n, 2);
	/* 4 frames wait to go; nothing else is held */
	assert_int_equal(rte_mempool_in_use_count(pool), 4);
}

/* Ready, but the IN-CSE's next hop is not resolved: no request (counted per
 * measurement), the agent still answered; a report whose observations do not decode
 * is dropped, counted; an object the configuration does not have is counted. */
static void test_ready_forget_errors(void **state)
{
	uint8_t r[sizeof(scan_fixed)];
	int idx = associate();

	tp_iotgw_reg_begin(idx);
	tp_ae_set_state(idx, TP_AE_READY);
	dp->defer = false;
	tp_iotgw.cse_ip = IP(10, 0, 2, 99); /* on the link, never resolved */
	agent_says(scan_fixed, sizeof(scan_fixed));
	tp_iotgw.cse_ip = IP(10, 0, 2, 2);
	/* the router's way with an unresolved neighbour: both CINs go to the kernel (the
	 * output stage's punt), which resolves it and sends them */
	ONLY({"iotgw.reports", 1}, {"iotgw.cin_sent", 2}, {"ip4.output_unresolved", 2},
	     {"iotgw.responses_sent", 1});
	assert_int_equal(w->txb[1].n, 0);
	assert_int_equal(w->txb[0].n, 1);
	reset(NULL);

	idx = associate();
	tp_iotgw_reg_begin(idx);
	tp_ae_set_state(idx, TP_AE_READY);
	dp->defer = false;
	/* the second observation's handle 10 -> 11: not an object of 0x0190 */
	memcpy(r, scan_fixed, sizeof(r));
	r[45] = 11;
	r[7] = 0x37; /* another invoke-id: not a retransmission */
	agent_says(r, sizeof(r));
	ONLY({"iotgw.reports", 1}, {"iotgw.cin_sent", 1}, {"iotgw.responses_sent", 1},
	     {"iotgw.drop_unknown_object", 1});
	assert_int_equal(w->txb[1].n, 1);
	assert_cin(0, tp_ae_table[idx].metric[0].label, "98");
	/* obs-scan-fixed.length 28 -> 40: past the event's bytes */
	memcpy(r, scan_fixed, sizeof(r));
	r[29] = 40;
	r[7] = 0x38;
	agent_says(r, sizeof(r));
	assert_int_equal(ctr("iotgw.drop_decode_error"), 1);
	assert_int_equal(w->txb[0].n, 1);
	assert_int_equal(rte_mempool_in_use_count(pool), 2);
}

/* The agent's address and port from another MAC: neither its report nor its release
 * passes the worker; from its own, the release goes to the control plane. */
static void test_spoofed_source(void **state)
{
	int idx = associate();

	tp_iotgw_reg_begin(idx);
	tp_ae_set_state(idx, TP_AE_READY);
	dp->defer = false;
	run(frame(mac_h2, agent_port, scan_fixed, sizeof(scan_fixed)));
	run(frame(mac_h2, agent_port, rlrq, sizeof(rlrq)));
	nothing_out();
	ONLY({"iotgw.reports", 1}, {"iotgw.drop_spoofed_source", 2});
	agent_says(rlrq, sizeof(rlrq));
	punted(rlrq, sizeof(rlrq));
	assert_int_equal(ctr("iotgw.signaling_to_control"), 1);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
}

/* What cannot be an APDU is dropped on the worker, named. */
static void test_malformed(void **state)
{
	struct rte_mbuf *m;

	/* a UDP length of 10: under the 4 bytes of an APDU's header */
	m = frame(mac_h1, agent_port, scan_fixed, 2);
	run(m);
	assert_int_equal(ctr("iotgw.drop_decode_error"), 1);
	/* a UDP length past the frame */
	m = frame(mac_h1, agent_port, scan_fixed, sizeof(scan_fixed));
	uint8_t *u = rte_pktmbuf_mtod_offset(m, uint8_t *, 34);
	u[5] = (uint8_t)(u[5] + 8);
	run(m);
	assert_int_equal(ctr("iotgw.drop_decode_error"), 2);
	/* the first fragment of a datagram (MF) */
	m = frame(mac_h1, agent_port, scan_fixed, sizeof(scan_fixed));
	uint8_t *ip = rte_pktmbuf_mtod_offset(m, uint8_t *, 14);
	ip[6] = 0x20;
	ip[10] = ip[11] = 0;
	uint16_t c = tp_ip4_cksum(ip, 20);
	memcpy(ip + 10, &c, 2);
	run(m);
	assert_int_equal(ctr("iotgw.drop_fragment"), 1);
	/* an APDU the codec refuses is the session manager's to count */
	agent_says((const uint8_t[]){0xE7, 0x00, 0x00, 0x40, 0x00}, 5);
	punted((const uint8_t[]){0xE7, 0x00, 0x00, 0x40, 0x00}, 5);
	ONLY({"iotgw.drop_decode_error", 2}, {"iotgw.drop_fragment", 1},
	     {"iotgw.signaling_to_control", 1});
	assert_int_equal(w->txb[0].n + w->txb[1].n, 0);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
}

/* Single plane's rings, pool, ping socket and timer (datapath/single.c): a failed
 * init leaves none of them (a second enable could not make them again), fini frees
 * them, with the packets still in a backlog ring back in their pool, after a full,
 * failed or no init, and twice. */
static void test_single_init_fini(void **state)
{
	unsigned int timers = tp_timer_count(), workers = tp.n_workers;

	tp_iotgw_single_fini(); /* nothing made */
	assert_int_equal(tp_timer_count(), timers);

	/* the second worker's ring cannot be made: the first one's is freed */
	tp.n_workers = 2;
	struct rte_ring *block =
	    rte_ring_create("iotgw_bl1", 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	assert_non_null(block);
	assert_int_equal(tp_iotgw_single_init(), -EEXIST);
	assert_null(rte_ring_lookup("iotgw_bl0"));
	assert_null(rte_mempool_lookup("iotgw_sp"));
	assert_int_equal(tp_timer_count(), timers);
	rte_ring_free(block);
	tp.n_workers = workers;

	/* the pool cannot be made: the rings are freed */
	struct rte_mempool *other = rte_pktmbuf_pool_create(
	    "iotgw_sp", 63, 0, TP_MBUF_PRIV_SIZE, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	assert_non_null(other);
	assert_int_equal(tp_iotgw_single_init(), -EEXIST);
	assert_null(rte_ring_lookup("iotgw_bl0"));
	assert_int_equal(tp_timer_count(), timers);
	rte_mempool_free(other);

	/* made, then freed: a packet left in the backlog goes back to its pool */
	assert_int_equal(tp_iotgw_single_init(), 0);
	struct rte_ring *bl = rte_ring_lookup("iotgw_bl0");
	assert_non_null(bl);
	assert_non_null(rte_mempool_lookup("iotgw_sp"));
	assert_int_equal(tp_timer_count(), timers + 1);
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	assert_non_null(m);
	assert_int_equal(rte_ring_sp_enqueue(bl, m), 0);
	tp_iotgw_single_fini();
	assert_null(rte_ring_lookup("iotgw_bl0"));
	assert_null(rte_mempool_lookup("iotgw_sp"));
	assert_int_equal(tp_timer_count(), timers);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
	tp_iotgw_single_fini(); /* twice: nothing left */

	/* and made again, as a second 'iotgw enable' would */
	assert_int_equal(tp_iotgw_single_init(), 0);
	tp_iotgw_single_fini();
	assert_int_equal(tp_timer_count(), timers);
}

/* The AE's expirationTime (tp_iotgw.ae_retention_s): oneM2M basic format, UTC (the
 * expected strings are Python's datetime.fromtimestamp(s, timezone.utc).strftime(
 * "%Y%m%dT%H%M%S")), and when it is set again: halfway to it, one at a time, READY
 * entries only; a failed one again after the registration's longest wait at the most. */
static void test_ae_et_schedule(void **state)
{
	char et[TP_M2M_TIME_SIZE];

	tp_iotgw_ae_et(1767225599, 0, et);
	assert_string_equal(et, "20251231T235959");
	tp_iotgw_ae_et(1767225599, 30u * 86400u, et); /* the default: 30 days on */
	assert_string_equal(et, "20260130T235959");
	tp_iotgw_ae_et(1709164800, 86399, et); /* to the end of a leap day */
	assert_string_equal(et, "20240229T235959");
	tp_iotgw_ae_et(4102444799, 1, et); /* 2100 is no leap year */
	assert_string_equal(et, "21000101T000000");

	assert_int_equal(tp_iotgw_refresh_at(5000, 4), 7000);
	assert_int_equal(tp_iotgw_refresh_at(5000, 30u * 86400u), 5000 + 15ull * 86400 * 1000);
	assert_int_equal(tp_iotgw_refresh_at(5000, 1), 6000); /* at least 1 s on */
	/* reg_timeout 1000 << 4: 16 s, unless the next turn comes sooner */
	assert_int_equal(tp_iotgw_refresh_retry_at(5000, 86400, 1000), 21000);
	assert_int_equal(tp_iotgw_refresh_retry_at(5000, 4, 1000), 7000);

	struct tp_ae e = {.state = TP_AE_READY, .refresh_ms = 7000};
	assert_false(tp_iotgw_refresh_due(&e, 6999));
	assert_true(tp_iotgw_refresh_due(&e, 7000));
	e.refreshing = 1; /* one in flight: not two */
	assert_false(tp_iotgw_refresh_due(&e, 8000));
	e.refreshing = 0;
	e.state = TP_AE_REGISTERING; /* only associated, registered agents */
	assert_false(tp_iotgw_refresh_due(&e, 8000));
	e.state = TP_AE_READY;
	e.refresh_ms = 0; /* never scheduled (no retention) */
	assert_false(tp_iotgw_refresh_due(&e, 8000));
}

/* The request of entry idx's current step, decoded into m (from buf). */
static void reg_req(int idx, uint8_t *buf, size_t cap, struct tp_coap_msg *m, uint16_t mid)
{
	int n = tp_iotgw_reg_request(idx, buf, cap, mid);
	assert_true(n > 0);
	assert_int_equal(tp_coap_decode(buf, (size_t)n, m), 0);
	assert_int_equal(m->type, TP_COAP_CON);
	assert_int_equal(m->mid, mid);
}

/* The IN-CSE's piggybacked answer to q: code, rsc, payload (NULL: none); what
 * tp_iotgw_reg_response makes of it. */
static enum tp_iotgw_reg reg_ans(const struct tp_coap_msg *q, uint8_t code, uint16_t rsc,
				 const char *payload, int idx)
{
	uint8_t buf[512];
	struct tp_coap_writer wr;
	int got = -1;

	tp_coap_begin(&wr, buf, sizeof(buf), TP_COAP_ACK, code, q->mid, q->token, q->tkl);
	tp_coap_put_uint(&wr, TP_M2M_OPT_RSC, rsc);
	if (payload != NULL)
		tp_coap_put_payload(&wr, payload, strlen(payload));
	int n = tp_coap_end(&wr);
	assert_true(n > 0);
	enum tp_iotgw_reg r = tp_iotgw_reg_response(buf, (size_t)n, &got);
	if (r != TP_IOTGW_REG_IGNORE)
		assert_int_equal(got, idx);
	return r;
}

/* The request m is an UPDATE (PUT) of the AE setting its et to now + the retention
 * (between lo and hi s), or null when lo is 0. */
static void is_et_update(const struct tp_coap_msg *m, const struct tp_ae *e, uint64_t lo,
			 uint64_t hi)
{
	char want[96], et0[TP_M2M_TIME_SIZE], et1[TP_M2M_TIME_SIZE];

	assert_int_equal(m->code, TP_COAP_PUT);
	assert_null(tp_coap_find_opt(m, TP_M2M_OPT_TY, 0));
	if (lo == 0) {
		assert_int_equal(m->payload_len, strlen("{\"m2m:ae\":{\"et\":null}}"));
		assert_memory_equal(m->payload, "{\"m2m:ae\":{\"et\":null}}", m->payload_len);
		return;
	}
	tp_iotgw_ae_et(lo, tp_iotgw.ae_retention_s, et0);
	tp_iotgw_ae_et(hi, tp_iotgw.ae_retention_s, et1);
	snprintf(want, sizeof(want), "{\"m2m:ae\":{\"et\":\"%s\"}}", et0);
	if (m->payload_len != strlen(want) || memcmp(m->payload, want, m->payload_len) != 0)
		snprintf(want, sizeof(want), "{\"m2m:ae\":{\"et\":\"%s\"}}", et1);
	assert_int_equal(m->payload_len, strlen(want));
	assert_memory_equal(m->payload, want, m->payload_len);
	(void)e;
}

/* With a retention, a registration is: the AE (CREATE; or, when it exists, its
 * RETRIEVE and an UPDATE giving it the IN-CSE's default lifetime back), its
 * containers, then an UPDATE of its et; a refresh is that UPDATE again, and a 4.04
 * to it says the AE is gone: registered again, its metrics kept. */
static void test_registration_et_steps(void **state)
{
	static const uint8_t sysid[8] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x99};
	uint8_t buf[1024];
	struct tp_coap_msg m;
	struct tp_iotgw_session_stats s0 = tp_iotgw_sess;
	uint32_t keep = tp_iotgw.ae_retention_s;
	int idx = tp_ae_create(IP(10, 0, 1, 9), 42000, sysid, 0x1234);

	assert_true(idx >= 0);
	struct tp_ae *e = &tp_ae_table[idx];
	tp_iotgw.ae_retention_s = 4;
	tp_iotgw_reg_begin(idx);
	e->n_metrics = 1; /* one container, as a configuration with one metric makes */
	snprintf(e->metric[0].label, sizeof(e->metric[0].label), "spo2");
	snprintf(e->metric[0].path, sizeof(e->metric[0].path), "/cse-in/%s/spo2", e->ae_name);

	/* a new AE: CREATE (no et: the IN-CSE's default), container, et */
	reg_req(idx, buf, sizeof(buf), &m, 1);
	assert_int_equal(m.code, TP_COAP_POST);
	assert_null(memmem(m.payload, m.payload_len, "\"et\"", 4));
	assert_int_equal(reg_ans(&m, TP_COAP_CREATED, 2001, NULL, idx), TP_IOTGW_REG_NEXT);
	reg_req(idx, buf, sizeof(buf), &m, 2);
	assert_int_equal(m.code, TP_COAP_POST);
	assert_int_equal(reg_ans(&m, TP_COAP_CREATED, 2001, NULL, idx), TP_IOTGW_REG_NEXT);
	uint64_t t0 = (uint64_t)time(NULL);
	reg_req(idx, buf, sizeof(buf), &m, 3);
	is_et_update(&m, e, t0, (uint64_t)time(NULL));
	/* a late answer (another message id) is not it */
	struct tp_coap_msg late = m;
	late.mid = 2;
	assert_int_equal(reg_ans(&late, TP_COAP_CHANGED, 2004, NULL, idx), TP_IOTGW_REG_IGNORE);
	assert_int_equal(reg_ans(&m, TP_COAP_CHANGED, 2004, NULL, idx), TP_IOTGW_REG_READY);
	assert_int_equal(e->state, TP_AE_READY);

	/* the refresh: the same UPDATE; 2.04 */
	e->refreshing = 1;
	t0 = (uint64_t)time(NULL);
	reg_req(idx, buf, sizeof(buf), &m, 4);
	is_et_update(&m, e, t0, (uint64_t)time(NULL));
	assert_int_equal(reg_ans(&m, TP_COAP_CHANGED, 2004, NULL, idx), TP_IOTGW_REG_REFRESHED);
	assert_int_equal(e->refreshing, 0);
	assert_int_equal(tp_iotgw_sess.ae_refreshed, s0.ae_refreshed + 1);
	/* ... refused (4.03 no privilege): tried again later */
	e->refreshing = 1;
	reg_req(idx, buf, sizeof(buf), &m, 5);
	assert_int_equal(reg_ans(&m, TP_COAP_FORBIDDEN, 4103, NULL, idx),
			 TP_IOTGW_REG_REFRESH_FAILED);
	assert_int_equal(tp_iotgw_sess.ae_refresh_failed, s0.ae_refresh_failed + 1);
	/* ... 4.04: the AE expired */
	e->refreshing = 1;
	reg_req(idx, buf, sizeof(buf), &m, 6);
	assert_int_equal(reg_ans(&m, TP_COAP_NOT_FOUND, 4004, NULL, idx), TP_IOTGW_REG_GONE);
	assert_int_equal(e->state, TP_AE_READY); /* the registrar's to act on */

	/* registered again: the metrics as they were, the AE created again */
	tp_iotgw_reg_again(idx);
	assert_int_equal(e->state, TP_AE_REGISTERING);
	assert_int_equal(e->n_metrics, 1);
	assert_string_equal(e->metric[0].label, "spo2");
	reg_req(idx, buf, sizeof(buf), &m, 7);
	assert_int_equal(m.code, TP_COAP_POST);
	/* it exists (ACME had not deleted it yet): RETRIEVE, bound to this source */
	assert_int_equal(reg_ans(&m, TP_COAP_FORBIDDEN, 4105, NULL, idx), TP_IOTGW_REG_NEXT);
	reg_req(idx, buf, sizeof(buf), &m, 8);
	assert_int_equal(m.code, TP_COAP_GET);
	assert_int_equal(reg_ans(&m, TP_COAP_CONTENT, 2000,
				 "{\"m2m:ae\":{\"lbl\":[\"tp-source:0000000000001234\"]}}", idx),
			 TP_IOTGW_REG_NEXT);
	/* the lift: et null, before any container is made under it */
	reg_req(idx, buf, sizeof(buf), &m, 9);
	is_et_update(&m, e, 0, 0);
	assert_int_equal(reg_ans(&m, TP_COAP_CHANGED, 2004, NULL, idx), TP_IOTGW_REG_NEXT);
	/* the container: 4.04, the AE went (expired between two steps): from the start */
	reg_req(idx, buf, sizeof(buf), &m, 10);
	assert_int_equal(m.code, TP_COAP_POST);
	assert_int_equal(reg_ans(&m, TP_COAP_NOT_FOUND, 4004, NULL, idx), TP_IOTGW_REG_NEXT);
	assert_int_equal(tp_iotgw_sess.ae_expired, s0.ae_expired + 1);
	reg_req(idx, buf, sizeof(buf), &m, 11);
	assert_int_equal(m.code, TP_COAP_POST);
	assert_non_null(tp_coap_find_opt(&m, TP_M2M_OPT_TY, 0));
	assert_int_equal(reg_ans(&m, TP_COAP_CREATED, 2001, NULL, idx), TP_IOTGW_REG_NEXT);
	reg_req(idx, buf, sizeof(buf), &m, 12);
	assert_int_equal(reg_ans(&m, TP_COAP_CREATED, 2001, NULL, idx), TP_IOTGW_REG_NEXT);
	reg_req(idx, buf, sizeof(buf), &m, 13);
	assert_int_equal(m.code, TP_COAP_PUT);
	/* an IN-CSE that refuses et updates: registered anyway, counted */
	assert_int_equal(reg_ans(&m, TP_COAP_FORBIDDEN, 4103, NULL, idx), TP_IOTGW_REG_READY);
	assert_int_equal(tp_iotgw_sess.ae_refresh_failed, s0.ae_refresh_failed + 2);

	/* without a retention: no et step (as before it) */
	tp_iotgw.ae_retention_s = 0;
	tp_iotgw_reg_begin(idx);
	e->n_metrics = 1;
	reg_req(idx, buf, sizeof(buf), &m, 14);
	assert_int_equal(reg_ans(&m, TP_COAP_CREATED, 2001, NULL, idx), TP_IOTGW_REG_NEXT);
	reg_req(idx, buf, sizeof(buf), &m, 15);
	assert_int_equal(reg_ans(&m, TP_COAP_CREATED, 2001, NULL, idx), TP_IOTGW_REG_READY);

	tp_iotgw.ae_retention_s = keep;
	tp_ae_delete(idx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_unknown_agent, reset, reset),
	    cmocka_unit_test_setup_teardown(test_association_then_early_reports, reset, reset),
	    cmocka_unit_test_setup_teardown(test_configuring_and_failed, reset, reset),
	    cmocka_unit_test_setup_teardown(test_ready_confirmed_to_control, reset, reset),
	    cmocka_unit_test_setup_teardown(test_ready_forget_converted_and_answered, reset, reset),
	    cmocka_unit_test_setup_teardown(test_ready_forget_errors, reset, reset),
	    cmocka_unit_test_setup_teardown(test_spoofed_source, reset, reset),
	    cmocka_unit_test_setup_teardown(test_malformed, reset, reset),
	    cmocka_unit_test_setup_teardown(test_single_init_fini, reset, reset),
	    cmocka_unit_test_setup_teardown(test_ae_et_schedule, reset, reset),
	    cmocka_unit_test_setup_teardown(test_registration_et_steps, reset, reset),
	};
	if (tp_test_eal_init() < 0)
		return 1;
	return cmocka_run_group_tests_name("iotgw", tests, setup, teardown);
}
