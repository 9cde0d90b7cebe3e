/* SPDX-License-Identifier: BSD-3-Clause */
/* The IPv4 fast path fed crafted mbufs: forwarding bytes, every drop and punt reason. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "../../src/core/l4.h"
#include "../../src/core/tp.h"
#include "../../src/nf/ip4/ip4.h"
#include "../../src/proto/ip4.h"
#include "../../src/tables/iface.h"
#include "../../src/tables/neigh.h"
#include "../../src/tables/nexthop.h"
#include "../../src/tables/route.h"
#include "eal_fixture.h"

#define IP(a, b, c, d) (((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))

static struct rte_mempool *pool;
static struct tp_worker *w;
static struct rte_rcu_qsbr *qs;
static const uint8_t mac_p0[6] = {2, 0, 0, 0, 0, 0x10};
static const uint8_t mac_p1[6] = {2, 0, 0, 0, 0, 0x11};
static const uint8_t mac_h1[6] = {2, 0, 0, 0, 1, 0x02};
static const uint8_t mac_h2[6] = {2, 0, 0, 0, 2, 0x02};
static unsigned int pool_base;

static int setup(void **state)
{
	qs = rte_zmalloc("qs", rte_rcu_qsbr_get_memsize(1), RTE_CACHE_LINE_SIZE);
	rte_rcu_qsbr_init(qs, 1);
	if (tp_nh_init() < 0 || tp_neigh_init(qs, 1024) < 0 || tp_route_init(qs, 1024) < 0)
		return -1;
	pool = rte_pktmbuf_pool_create("test", 1023, 0, sizeof(struct tp_mbuf_priv),
				       RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	w = rte_zmalloc("w", sizeof(*w), RTE_CACHE_LINE_SIZE);
	w->exc_ring = rte_ring_create("exc", 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (pool == NULL || w == NULL || w->exc_ring == NULL)
		return -1;
	w->tb.cost = 1;
	w->tb.max_tokens = w->tb.tokens = UINT64_MAX / 2;
	memcpy(&tp_iface_table[0].mac, mac_p0, 6);
	memcpy(&tp_iface_table[1].mac, mac_p1, 6);
	tp_iface_table[0].up = tp_iface_table[1].up = 1;
	/* p0: 10.0.1.1/24, p1: 10.0.2.1/24, h2 = 10.0.2.2 resolved, 10.9.0.0/16 via h2 */
	tp_route_add(IP(10, 0, 1, 0), 24, TP_ROUTE_CONNECTED, 0, 0, 1);
	tp_route_add(IP(10, 0, 1, 1), 32, TP_ROUTE_LOCAL, 0, 0, 1);
	tp_route_add(IP(10, 0, 2, 0), 24, TP_ROUTE_CONNECTED, 0, 1, 1);
	tp_route_add(IP(10, 0, 2, 1), 32, TP_ROUTE_LOCAL, 0, 1, 1);
	tp_route_add(IP(10, 9, 0, 0), 16, TP_ROUTE_GATEWAY, IP(10, 0, 2, 2), 1, 1);
	int nh = tp_neigh_learn(IP(10, 0, 2, 2), 1, mac_h2);
	tp_route_host_update(IP(10, 0, 2, 2), 1, nh);
	pool_base = rte_mempool_in_use_count(pool);
	return 0;
}

static int teardown(void **state)
{
	tp_route_fini();
	tp_neigh_fini();
	tp_nh_fini();
	return 0;
}

/* Counters, rings and buffers back to zero before each test. */
static int reset(void **state)
{
	void *m;

	memset(&w->st, 0, sizeof(w->st));
	while (rte_ring_dequeue(w->exc_ring, &m) == 0)
		rte_pktmbuf_free(m);
	for (unsigned int p = 0; p < TP_MAX_PORTS; p++) {
		rte_pktmbuf_free_bulk(w->txb[p].pkts, w->txb[p].n);
		w->txb[p].n = 0;
	}
	w->tx_dirty = 0;
	return 0;
}

/* An Ethernet/IPv4/UDP frame from h1 on port 0, built with the shared codec. */
static struct rte_mbuf *frame(uint32_t dst, uint8_t ttl, uint16_t payload, const uint8_t *dmac)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint16_t udp_len = (uint16_t)(8 + payload);
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(14 + 20 + udp_len));

	memcpy(p, dmac ? dmac : mac_p0, 6);
	memcpy(p + 6, mac_h1, 6);
	p[12] = 0x08;
	p[13] = 0x00;
	tp_ip4_write(p + 14, htonl(IP(10, 0, 1, 2)), htonl(dst), 17, ttl, udp_len, 7);
	uint8_t *u = p + 34;
	u[0] = 0x30, u[1] = 0x39, u[2] = 0x00, u[3] = 0x35; /* 12345 -> 53 */
	u[4] = (uint8_t)(udp_len >> 8), u[5] = (uint8_t)udp_len, u[6] = u[7] = 0;
	for (uint16_t i = 0; i < payload; i++)
		u[8 + i] = (uint8_t)i;
	m->port = 0;
	return m;
}

static uint8_t *ip_of(struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod_offset(m, uint8_t *, 14);
}

static void refresh_cksum(struct rte_mbuf *m)
{
	uint8_t *ip = ip_of(m);
	uint16_t c = tp_ip4_cksum(ip, (size_t)(ip[0] & 0xf) * 4);
	memcpy(ip + 10, &c, 2);
}

static void run(struct rte_mbuf *m)
{
	tp_ip4_input(w, &m, 1);
}

static void test_forward_rewrites_l2_ttl_checksum(void **state)
{
	struct rte_mbuf *m = frame(IP(10, 0, 2, 2), 64, 100, NULL);
	uint8_t before[256];
	uint32_t len = m->pkt_len;

	memcpy(before, rte_pktmbuf_mtod(m, void *), len);
	run(m);
	assert_int_equal(w->txb[1].n, 1);
	struct rte_mbuf *o = w->txb[1].pkts[0];
	uint8_t *e = rte_pktmbuf_mtod(o, uint8_t *);
	assert_int_equal(o->pkt_len, len);
	assert_memory_equal(e, mac_h2, 6);
	assert_memory_equal(e + 6, mac_p1, 6);
	assert_int_equal(e[14 + 8], 63);
	/* the incrementally updated checksum equals DPDK's full computation */
	uint16_t got;
	memcpy(&got, e + 24, 2);
	e[24] = e[25] = 0;
	assert_int_equal(got, rte_ipv4_cksum((const struct rte_ipv4_hdr *)(e + 14)));
	memcpy(e + 24, &got, 2);
	/* nothing else changed */
	assert_memory_equal(e + 12, before + 12, 10);
	assert_memory_equal(e + 26, before + 26, len - 26);
	assert_int_equal(w->st.drops[TP_DROP_NO_ROUTE], 0);
}

static void test_forward_via_gateway(void **state)
{
	run(frame(IP(10, 9, 3, 4), 2, 10, NULL));
	assert_int_equal(w->txb[1].n, 1);
	uint8_t *e = rte_pktmbuf_mtod(w->txb[1].pkts[0], uint8_t *);
	assert_memory_equal(e, mac_h2, 6);
	assert_int_equal(e[22], 1);
}

static void test_nic_checked_checksum_trusted(void **state)
{
	struct rte_mbuf *m = frame(IP(10, 0, 2, 2), 64, 10, NULL);

	/* a wrong checksum the NIC says is good is not checked again */
	ip_of(m)[10] ^= 0x01;
	m->ol_flags |= RTE_MBUF_F_RX_IP_CKSUM_GOOD;
	run(m);
	assert_int_equal(w->txb[1].n, 1);
	/* without the flag, the same packet is dropped */
	m = frame(IP(10, 0, 2, 2), 64, 10, NULL);
	ip_of(m)[10] ^= 0x01;
	run(m);
	assert_int_equal(w->st.drops[TP_DROP_IP_BAD_CHECKSUM], 1);
}

static void test_padding_trimmed(void **state)
{
	struct rte_mbuf *m = frame(IP(10, 0, 2, 2), 64, 0, NULL); /* 42 bytes */
	rte_pktmbuf_append(m, 18);				    /* Ethernet padding to 60 */
	run(m);
	assert_int_equal(w->txb[1].n, 1);
	assert_int_equal(w->txb[1].pkts[0]->pkt_len, 42);
}

struct bad_case {
	const char *what;
	enum tp_drop reason;
};

static void expect_drop(struct rte_mbuf *m, enum tp_drop r)
{
	run(m);
	for (unsigned int i = 0; i < TP_DROP_MAX; i++)
		assert_int_equal(w->st.drops[i], i == r ? 1 : 0);
	assert_int_equal(w->tx_dirty, 0);
	assert_int_equal(rte_ring_count(w->exc_ring), 0);
	reset(NULL);
}

static void test_every_drop_reason(void **state)
{
	struct rte_mbuf *m;
	static const uint8_t other[6] = {2, 9, 9, 9, 9, 9};

	m = frame(IP(10, 0, 2, 2), 64, 10, NULL);
	rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - 24)); /* 10 bytes of IP header */
	expect_drop(m, TP_DROP_IP_TOO_SHORT);

	m = frame(IP(10, 0, 2, 2), 64, 10, NULL);
	ip_of(m)[0] = 0x65;
	expect_drop(m, TP_DROP_IP_BAD_VERSION);

	m = frame(IP(10, 0, 2, 2), 64, 10, NULL);
	ip_of(m)[0] = 0x44;
	expect_drop(m, TP_DROP_IP_BAD_IHL);

	m = frame(IP(10, 0, 2, 2), 64, 10, NULL);
	ip_of(m)[2] = 0;
	ip_of(m)[3] = 12;
	refresh_cksum(m);
	expect_drop(m, TP_DROP_IP_BAD_TOTAL_LEN);

	m = frame(IP(10, 0, 2, 2), 64, 10, NULL);
	ip_of(m)[2] = 0x05; /* 1280+ bytes claimed in a 52-byte frame */
	refresh_cksum(m);
	expect_drop(m, TP_DROP_IP_LEN_EXCEEDS_FRAME);

	m = frame(IP(10, 0, 2, 2), 64, 10, NULL);
	ip_of(m)[10] ^= 0x40;
	expect_drop(m, TP_DROP_IP_BAD_CHECKSUM);

	m = frame(IP(10, 0, 2, 2), 64, 10, NULL);
	ip_of(m)[12] = 127;
	refresh_cksum(m);
	expect_drop(m, TP_DROP_IP_MARTIAN_SRC);

	expect_drop(frame(IP(11, 0, 0, 1), 64, 10, NULL), TP_DROP_NO_ROUTE);
	expect_drop(frame(IP(10, 0, 2, 2), 64, 10, other), TP_DROP_L2_OTHER_HOST);

	m = frame(IP(10, 0, 2, 2), 64, 10, NULL);
	rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - 10));
	expect_drop(m, TP_DROP_L2_TOO_SHORT);

	m = frame(IP(10, 0, 2, 2), 64, 10, NULL);
	rte_pktmbuf_mtod(m, uint8_t *)[12] = 0x86;
	rte_pktmbuf_mtod(m, uint8_t *)[13] = 0xdd;
	expect_drop(m, TP_DROP_L2_UNSUPPORTED);

	/* every dropped mbuf went back to its pool */
	assert_int_equal(rte_mempool_in_use_count(pool), pool_base);
}

static void expect_punt(struct rte_mbuf *m, enum tp_punt r)
{
	void *out;

	run(m);
	assert_int_equal(rte_ring_count(w->exc_ring), 1);
	assert_int_equal(rte_ring_dequeue(w->exc_ring, &out), 0);
	assert_ptr_equal(out, m);
	assert_int_equal(tp_mbuf_priv(m)->punt, r);
	assert_int_equal(w->st.exc, 1);
	assert_int_equal(w->tx_dirty, 0);
	rte_pktmbuf_free(m);
	reset(NULL);
}

static void test_every_punt_reason(void **state)
{
	static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	struct rte_mbuf *m;

	m = frame(0, 64, 10, bcast);
	rte_pktmbuf_mtod(m, uint8_t *)[13] = 0x06; /* ARP */
	expect_punt(m, TP_PUNT_ARP);
	expect_punt(frame(IP(10, 0, 1, 1), 64, 10, NULL), TP_PUNT_LOCAL);
	expect_punt(frame(IP(224, 0, 0, 5), 1, 10, NULL), TP_PUNT_MULTICAST);
	expect_punt(frame(IP(10, 0, 2, 2), 1, 10, NULL), TP_PUNT_TTL);
	expect_punt(frame(IP(10, 0, 2, 77), 64, 10, NULL), TP_PUNT_UNRESOLVED);

	/* IHL 6: one word of options (NOP x4) */
	m = frame(IP(10, 0, 2, 2), 64, 10, NULL);
	uint8_t *ip = ip_of(m);
	memmove(ip + 24, ip + 20, 18);
	rte_pktmbuf_append(m, 4);
	memset(ip + 20, 1, 4);
	ip[0] = 0x46;
	ip[3] += 4;
	refresh_cksum(m);
	expect_punt(m, TP_PUNT_OPTIONS);
	assert_int_equal(rte_mempool_in_use_count(pool), pool_base);
}

static void test_exception_rate_limited(void **state)
{
	w->tb.tokens = 0;
	w->tb.cost = UINT64_MAX / 4; /* no credit for a long while */
	w->tb.last_tsc = rte_rdtsc();
	run(frame(IP(10, 0, 1, 1), 64, 10, NULL));
	assert_int_equal(w->st.drops[TP_DROP_EXC_RATELIMITED], 1);
	assert_int_equal(rte_ring_count(w->exc_ring), 0);
	w->tb.cost = 1;
	w->tb.tokens = UINT64_MAX / 2;
	assert_int_equal(rte_mempool_in_use_count(pool), pool_base);
}

static unsigned int hook_calls;
static void hook(struct tp_worker *wk, struct rte_mbuf *m, uint8_t *l3, uint8_t *l4)
{
	hook_calls++;
	assert_int_equal(l3[9], 17);
	assert_int_equal(l4[2], 0x1e); /* 7777 = 0x1e61 */
	rte_pktmbuf_free(m);
}

static void test_local_udp_network_function(void **state)
{
	struct rte_mbuf *m;

	assert_int_equal(tp_udp_local_register(7777, hook), 0);
	assert_int_equal(tp_udp_local_register(7777, hook), -EEXIST);
	m = frame(IP(10, 0, 1, 1), 64, 10, NULL);
	ip_of(m)[22] = 0x1e; /* UDP destination port 7777 */
	ip_of(m)[23] = 0x61;
	run(m);
	assert_int_equal(hook_calls, 1);
	assert_int_equal(rte_ring_count(w->exc_ring), 0);
	/* another port of ours still goes to the kernel */
	expect_punt(frame(IP(10, 0, 1, 1), 64, 10, NULL), TP_PUNT_LOCAL);
	/* a transit packet to that port is forwarded, not taken */
	m = frame(IP(10, 0, 2, 2), 64, 10, NULL);
	ip_of(m)[22] = 0x1e;
	ip_of(m)[23] = 0x61;
	run(m);
	assert_int_equal(hook_calls, 1);
	assert_int_equal(w->txb[1].n, 1);
	assert_int_equal(rte_mempool_in_use_count(pool), pool_base + 1);
}

static void test_burst_mixed(void **state)
{
	struct rte_mbuf *pkts[TP_BURST];

	for (unsigned int i = 0; i < TP_BURST; i++)
		pkts[i] = frame(i % 3 == 0 ? IP(11, 0, 0, i) : IP(10, 9, 0, i), 64, 20, NULL);
	tp_ip4_input(w, pkts, TP_BURST);
	assert_int_equal(w->st.drops[TP_DROP_NO_ROUTE], 11);
	assert_int_equal(w->txb[1].n, TP_BURST - 11);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_forward_rewrites_l2_ttl_checksum, reset),
		cmocka_unit_test_setup(test_forward_via_gateway, reset),
		cmocka_unit_test_setup(test_padding_trimmed, reset),
		cmocka_unit_test_setup(test_nic_checked_checksum_trusted, reset),
		cmocka_unit_test_setup(test_every_drop_reason, reset),
		cmocka_unit_test_setup(test_every_punt_reason, reset),
		cmocka_unit_test_setup(test_exception_rate_limited, reset),
		cmocka_unit_test_setup_teardown(test_local_udp_network_function, reset, reset),
		cmocka_unit_test_setup_teardown(test_burst_mixed, reset, reset),
	};
	if (tp_test_eal_init() < 0)
		return 1;
	return cmocka_run_group_tests_name("ip4_fwd", tests, setup, teardown);
}
