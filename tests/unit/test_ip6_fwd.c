/* SPDX-License-Identifier: BSD-3-Clause */
/* The IPv6 fast path fed crafted mbufs through the l3 input: forwarding bytes (MACs,
 * hop limit, nothing else), every drop and punt reason with its class, fragments
 * forwarded untouched, chained mbufs, and every mbuf back in its pool. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "../../src/core/mbuf.h"
#include "../../src/nf/ip4/l3mode.h"
#include "../../src/nf/ip6/control/neigh6.h"
#include "../../src/nf/ip6/control/route6.h"
#include "../../src/nf/ip6/ip6.h"
#include "../../src/proto/ip6.h"
#include "../../src/tables/iface.h"
#include "eal_fixture.h"
#include "worker_fixture.h"

static struct rte_mempool *pool;
static struct tp_worker *w;
static const uint8_t mac_p0[6] = {2, 0, 0, 0, 0, 0x10};
static const uint8_t mac_p1[6] = {2, 0, 0, 0, 0, 0x11};
static const uint8_t mac_h1[6] = {2, 0, 0, 0, 1, 0x02};
static const uint8_t mac_h2[6] = {2, 0, 0, 0, 2, 0x02};
static const uint8_t mac_h3[6] = {2, 0, 0, 0, 2, 0x03};
/* 33:33:ff:00:00:02, the solicited-node group's MAC (RFC 2464 7) */
static const uint8_t mac_sn[6] = {0x33, 0x33, 0xff, 0, 0, 2};
static unsigned int pool_base;

/* 2001:db8:<net>::<host> (RFC 3849) */
static const uint8_t *A(uint16_t net, uint16_t host)
{
	static uint8_t a[8][16];
	static unsigned int i;
	uint8_t *p = a[i++ % 8];

	memset(p, 0, 16);
	p[0] = 0x20, p[1] = 0x01, p[2] = 0x0d, p[3] = 0xb8;
	p[4] = (uint8_t)(net >> 8), p[5] = (uint8_t)net;
	p[14] = (uint8_t)(host >> 8), p[15] = (uint8_t)host;
	return p;
}

/* fe80::<host>, ff02::1:ff00:<host> (RFC 4291 2.7.1), ::1, ::, ff02::1, ff02::5 */
static const uint8_t ll_h1[16] = {0xfe, 0x80, [15] = 0x02};
static const uint8_t sn_2[16] = {0xff, 0x02, [11] = 1, [12] = 0xff, [15] = 2};
static const uint8_t loopback[16] = {[15] = 1};
static const uint8_t unspecified[16];
static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 1};
static const uint8_t all_spf[16] = {0xff, 0x02, [15] = 5};

static int setup(void **state)
{
	w = tp_test_l3_worker("test6", 1023, &pool);
	if (w == NULL || tp_ip6_tables_init(1024, 1024, 256) < 0 || tp_ip6_datapath_register() < 0)
		return -1;
	tp_test_l3_ports(mac_p0, mac_p1);
	/* p0: 2001:db8:1::1/64, p1: 2001:db8:2::1/64, h2 = 2001:db8:2::2 resolved,
	 * 2001:db8:9::/48 via h2, 2001:db8:3::/64 via 2001:db8:2::3 (not resolved) */
	tp_ip6_route_add(A(1, 0), 64, TP_ROUTE6_CONNECTED, NULL, 0);
	tp_ip6_route_add(A(1, 1), 128, TP_ROUTE6_LOCAL, NULL, 0);
	tp_ip6_route_add(A(2, 0), 64, TP_ROUTE6_CONNECTED, NULL, 1);
	tp_ip6_route_add(A(2, 1), 128, TP_ROUTE6_LOCAL, NULL, 1);
	tp_ip6_route_add(A(9, 0), 48, TP_ROUTE6_GATEWAY, A(2, 2), 1);
	tp_ip6_route_add(A(3, 0), 64, TP_ROUTE6_GATEWAY, A(2, 3), 1);
	/* kernel routes without a next hop */
	tp_ip6_route_add(A(0x66, 0), 48, TP_ROUTE6_BLACKHOLE, NULL, 0);
	tp_ip6_route_add(A(0x67, 0), 48, TP_ROUTE6_UNREACHABLE, NULL, 0);
	tp_ip6_route_add(A(0x68, 0), 48, TP_ROUTE6_PROHIBIT, NULL, 0);
	if (tp_neigh6_learn(A(2, 2), 1, mac_h2) < 0)
		return -1;
	for (int i = 0; i < 100 && tp_route6_pending(); i++)
		tp_route6_poll(); /* no reader: every grace period is over at once */
	pool_base = rte_mempool_in_use_count(pool);
	return 0;
}

static int teardown(void **state)
{
	tp_rcu_reclaim();
	tp_ip6_tables_fini();
	tp_test_tables_fini();
	return 0;
}

/* Counters, rings and buffers back to zero; every mbuf back in the pool. */
static int reset(void **state)
{
	tp_test_worker_reset(w);
	return 0;
}

static uint64_t ctr(unsigned int id)
{
	return tp_test_ctr(w, id);
}

/* An Ethernet/IPv6/UDP frame from h1 (2001:db8:1::2) on port 0, with the shared
 * header writer; next header nh (the UDP header stays in the payload). */
static struct rte_mbuf *frame_nh(const uint8_t *src, const uint8_t *dst, uint8_t hl,
				 uint16_t payload, const uint8_t *dmac, uint8_t nh)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint16_t plen = (uint16_t)(8 + payload);
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(14 + 40 + plen));

	memcpy(p, dmac ? dmac : mac_p0, 6);
	memcpy(p + 6, mac_h1, 6);
	p[12] = 0x86;
	p[13] = 0xdd;
	tp_ip6_write(p + 14, src ? src : A(1, 2), dst, nh, hl, plen);
	uint8_t *u = p + 54;
	u[0] = 0x30, u[1] = 0x39, u[2] = 0x00, u[3] = 0x35; /* 12345 -> 53 */
	u[4] = (uint8_t)(plen >> 8), u[5] = (uint8_t)plen, u[6] = u[7] = 0;
	for (uint16_t i = 0; i < payload; i++)
		u[8 + i] = (uint8_t)i;
	m->port = 0;
	return m;
}

static struct rte_mbuf *frame(const uint8_t *dst, uint8_t hl, uint16_t payload)
{
	return frame_nh(NULL, dst, hl, payload, NULL, TP_IP6_NH_UDP);
}

/* An ICMPv6 message of type (4 bytes of header, 20 of body) from src to dst. */
static struct rte_mbuf *icmp6(const uint8_t *src, const uint8_t *dst, uint8_t hl, uint8_t type,
			      const uint8_t *dmac)
{
	struct rte_mbuf *m = frame_nh(src, dst, hl, 16, dmac, TP_IP6_NH_ICMP6);
	uint8_t *ic = rte_pktmbuf_mtod_offset(m, uint8_t *, 54);

	ic[0] = type, ic[1] = 0;
	return m;
}

static uint8_t *ip_of(struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod_offset(m, uint8_t *, 14);
}

/* All of m's bytes into buf (rte_pktmbuf_read copies only a chain's). */
static uint32_t copy_out(const struct rte_mbuf *m, uint8_t *buf)
{
	uint32_t n = 0;

	for (; m != NULL; m = m->next) {
		memcpy(buf + n, rte_pktmbuf_mtod(m, const uint8_t *), m->data_len);
		n += m->data_len;
	}
	return n;
}

static void run(struct rte_mbuf *m)
{
	tp_test_run(w, m);
}

/* m leaves on port 1 to h2 with hop limit hl - 1 and every other byte after the MACs
 * as it came. */
static void expect_forward(struct rte_mbuf *m, uint8_t port, const uint8_t *dmac)
{
	uint8_t before[2048];
	uint32_t len = rte_pktmbuf_pkt_len(m);

	assert_true(len <= sizeof(before));
	copy_out(m, before);
	run(m);
	assert_int_equal(w->txb[port].n, 1);
	struct rte_mbuf *o = w->txb[port].pkts[0];
	uint8_t e[2048];
	copy_out(o, e);
	assert_int_equal(rte_pktmbuf_pkt_len(o), len);
	assert_memory_equal(e, dmac, 6);
	assert_memory_equal(e + 6, port ? mac_p1 : mac_p0, 6);
	assert_memory_equal(e + 12, before + 12, 9); /* type, version .. next header */
	assert_int_equal(e[21], before[21] - 1);
	assert_memory_equal(e + 22, before + 22, len - 22);
	assert_int_equal(w->tx_dirty, 1ull << port);
	assert_int_equal(w->st.exc, 0);
	reset(NULL);
}

static void test_forward(void **state)
{
	expect_forward(frame(A(2, 2), 64, 100), 1, mac_h2);
	expect_forward(frame(A(9, 0x1234), 2, 10), 1, mac_h2); /* via the gateway */
	/* a fragment (RFC 8200 4.5): forwarded as it is, not reassembled */
	expect_forward(frame_nh(NULL, A(2, 2), 64, 100, NULL, TP_IP6_NH_FRAGMENT), 1, mac_h2);
	/* ULA (fc00::/7) is ordinary unicast to the fast test */
	uint8_t ula[16] = {0xfd, 0, [15] = 9};
	tp_ip6_route_add(ula, 8, TP_ROUTE6_GATEWAY, A(2, 2), 1);
	tp_route6_poll();
	tp_route6_poll();
	expect_forward(frame(ula, 64, 10), 1, mac_h2);
	assert_int_equal(tp_ip6_route_del(ula, 8), 0);
	tp_route6_poll();
	tp_route6_poll();
	assert_int_equal(rte_mempool_in_use_count(pool), pool_base);
}

/* Ethernet padding is cut; a packet in two segments forwards whole. */
static void test_padding_and_chains(void **state)
{
	struct rte_mbuf *m = frame(A(2, 2), 64, 0);
	uint8_t *pad = (uint8_t *)rte_pktmbuf_append(m, 6); /* 62 -> the 64-byte minimum */
	memset(pad, 0xee, 6);
	run(m);
	assert_int_equal(w->txb[1].n, 1);
	assert_int_equal(rte_pktmbuf_pkt_len(w->txb[1].pkts[0]), 14 + 40 + 8);
	reset(NULL);

	m = frame(A(2, 2), 64, 200);
	struct rte_mbuf *tail = rte_pktmbuf_alloc(pool);
	uint16_t cut = 100;
	memcpy(rte_pktmbuf_append(tail, cut),
	       rte_pktmbuf_mtod_offset(m, uint8_t *, m->data_len - cut), cut);
	rte_pktmbuf_trim(m, cut);
	assert_int_equal(rte_pktmbuf_chain(m, tail), 0);
	expect_forward(m, 1, mac_h2);
	assert_int_equal(rte_mempool_in_use_count(pool), pool_base);
}

/* m is dropped into counter id and nothing else happens */
static void expect_drop(struct rte_mbuf *m, unsigned int id)
{
	tp_test_expect_drop(w, m, id);
}

static void test_every_drop_reason(void **state)
{
	struct rte_mbuf *m;

	m = frame(A(2, 2), 64, 10);
	rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - 14 - 30)); /* 30 bytes of header */
	expect_drop(m, IP6_CTR(TOO_SHORT));

	m = frame(A(2, 2), 64, 10);
	ip_of(m)[0] = 0x40; /* RFC 8200 3: version 4 under 0x86DD */
	expect_drop(m, IP6_CTR(BAD_VERSION));

	m = frame(A(2, 2), 64, 10);
	ip_of(m)[5] += 1; /* one byte more than the frame holds */
	expect_drop(m, IP6_CTR(LEN_EXCEEDS_FRAME));

	/* RFC 4291 2.7: a multicast source; 2.5.3: loopback as source or destination */
	expect_drop(frame_nh(all_spf, A(2, 2), 64, 10, NULL, TP_IP6_NH_UDP), IP6_CTR(MARTIAN));
	expect_drop(frame_nh(loopback, A(2, 2), 64, 10, NULL, TP_IP6_NH_UDP), IP6_CTR(MARTIAN));
	expect_drop(frame(loopback, 64, 10), IP6_CTR(MARTIAN));
	/* 2.5.2: the unspecified source, to be forwarded or to us (only DAD sends it, to
	 * a group: test_every_punt_reason) */
	expect_drop(frame_nh(unspecified, A(2, 2), 64, 10, NULL, TP_IP6_NH_UDP), IP6_CTR(MARTIAN));
	expect_drop(frame_nh(unspecified, A(1, 1), 64, 10, NULL, TP_IP6_NH_UDP), IP6_CTR(MARTIAN));

	expect_drop(frame(A(0x66, 1), 64, 10), IP6_CTR(BLACKHOLE));
	assert_int_equal(rte_mempool_in_use_count(pool), pool_base);
}

/* m is handed to the control plane for reason id, in class cls (its ring) */
static void expect_punt(struct rte_mbuf *m, unsigned int id, enum tp_punt_class cls)
{
	tp_test_expect_punt(w, m, id, cls);
}

static void test_every_punt_reason(void **state)
{
	/* hop limit: expired in transit (RFC 4443 3.3, the error class); for us, ours */
	expect_punt(frame(A(2, 2), 1, 10), IP6_CTR(HOP_LIMIT), TP_PUNT_ERROR);
	expect_punt(frame(A(2, 2), 0, 10), IP6_CTR(HOP_LIMIT), TP_PUNT_ERROR);
	expect_punt(frame(A(1, 1), 1, 10), IP6_CTR(LOCAL), TP_PUNT_OTHER);
	/* echo request to the router's address: the kernel answers */
	expect_punt(icmp6(NULL, A(2, 1), 64, 128, NULL), IP6_CTR(LOCAL), TP_PUNT_OTHER);
	/* routes */
	expect_punt(frame(A(0x99, 1), 64, 10), IP6_CTR(NO_ROUTE), TP_PUNT_ERROR);
	expect_punt(frame(A(0x67, 1), 64, 10), IP6_CTR(UNREACHABLE_ROUTE), TP_PUNT_ERROR);
	expect_punt(frame(A(0x68, 1), 64, 10), IP6_CTR(PROHIBITED_ROUTE), TP_PUNT_ERROR);
	expect_punt(frame(A(3, 7), 64, 10), IP6_CTR(UNRESOLVED), TP_PUNT_OTHER);
	expect_punt(frame(A(2, 9), 64, 10), IP6_CTR(UNRESOLVED), TP_PUNT_OTHER); /* connected */
	/* extension headers the fast path does not handle (RFC 8200 4.3, 4.4) */
	expect_punt(frame_nh(NULL, A(2, 2), 64, 10, NULL, TP_IP6_NH_HOP_BY_HOP),
		    IP6_CTR(EXT_HEADER), TP_PUNT_OTHER);
	expect_punt(frame_nh(NULL, A(2, 2), 64, 10, NULL, TP_IP6_NH_ROUTING), IP6_CTR(EXT_HEADER),
		    TP_PUNT_OTHER);
	/* :: as the destination (RFC 4291 2.5.2): Linux answers no route, so does the
	 * kernel behind the TAP; :: as the source of DAD's NS to a group (RFC 4862 5.4.2) */
	expect_punt(frame(unspecified, 64, 10), IP6_CTR(NO_ROUTE), TP_PUNT_ERROR);
	expect_punt(icmp6(unspecified, sn_2, 255, 135, mac_sn), IP6_CTR(ND), TP_PUNT_CONTROL);
	/* link-local destination, or source with a global destination (RFC 4291 2.5.6) */
	expect_punt(frame(ll_h1, 64, 10), IP6_CTR(LINK_LOCAL), TP_PUNT_OTHER);
	expect_punt(frame_nh(ll_h1, A(2, 2), 64, 10, NULL, TP_IP6_NH_UDP), IP6_CTR(LINK_LOCAL),
		    TP_PUNT_OTHER);
	/* a group destination that is not ND */
	expect_punt(frame_nh(NULL, sn_2, 64, 10, mac_sn, TP_IP6_NH_UDP), IP6_CTR(MULTICAST),
		    TP_PUNT_OTHER);
	/* too big for port 1 (RFC 8200 5: never fragmented; the kernel sends PTB) */
	tp_iface_table[1].mtu = 1280;
	expect_punt(frame(A(2, 2), 64, 1300), IP6_CTR(EXCEEDS_MTU), TP_PUNT_ERROR);
	tp_iface_table[1].mtu = 1500;
	assert_int_equal(rte_mempool_in_use_count(pool), pool_base);
}

/* One of our own addresses as the source of a packet that would go to the kernel is a
 * spoof: dropped (martian_source), whatever the reason it would have been punted
 * for, except Neighbor Discovery (a duplicate of our address defends it from it, RFC
 * 4862 5.4.4). Forwarded, it goes on, as Linux forwards it (test_conformance6.py). */
static void test_own_source(void **state)
{
	expect_drop(frame_nh(A(1, 1), A(0x99, 1), 64, 10, NULL, TP_IP6_NH_UDP),
		    IP6_CTR(MARTIAN_SRC)); /* no route */
	expect_drop(frame_nh(A(2, 1), A(2, 2), 1, 10, NULL, TP_IP6_NH_UDP),
		    IP6_CTR(MARTIAN_SRC));					   /* hop limit */
	expect_drop(icmp6(A(1, 1), A(1, 1), 64, 128, NULL), IP6_CTR(MARTIAN_SRC)); /* ours */
	expect_drop(frame_nh(A(1, 1), A(0x67, 1), 64, 10, NULL, TP_IP6_NH_HOP_BY_HOP),
		    IP6_CTR(MARTIAN_SRC)); /* an extension header */
	expect_punt(icmp6(A(1, 1), all_nodes, 255, 136, (const uint8_t[6]){0x33, 0x33, 0, 0, 0, 1}),
		    IP6_CTR(ND), TP_PUNT_CONTROL);
	struct rte_mbuf *m = frame_nh(A(1, 1), A(2, 2), 64, 10, NULL, TP_IP6_NH_UDP);
	expect_forward(m, 1, mac_h2);
	assert_int_equal(ctr(IP6_CTR(MARTIAN_SRC)), 0);
	assert_int_equal(rte_mempool_in_use_count(pool), pool_base);
}

/* Neighbor Discovery with hop limit 255 is the control class, from a link-local or a
 * global source, to a group or to us; with any other hop limit it came from off the
 * link (RFC 4861 7.1.1): the other class, counted as demoted. OSPFv3 from a
 * link-local source with hop limit 1 is the control class. */
static void test_control_class(void **state)
{
	/* NS to the solicited-node group, RS to us, NA to our link-local address */
	expect_punt(icmp6(ll_h1, sn_2, 255, 135, mac_sn), IP6_CTR(ND), TP_PUNT_CONTROL);
	expect_punt(icmp6(NULL, A(1, 1), 255, 133, NULL), IP6_CTR(ND), TP_PUNT_CONTROL);
	expect_punt(icmp6(ll_h1, ll_h1, 255, 136, NULL), IP6_CTR(ND), TP_PUNT_CONTROL);
	/* from off the link */
	struct rte_mbuf *m = icmp6(ll_h1, sn_2, 254, 135, mac_sn);
	run(m);
	assert_int_equal(ctr(IP6_CTR(ND)), 1);
	assert_int_equal(ctr(IP6_CTR(CTL_DEMOTED_HOP_LIMIT)), 1);
	assert_int_equal(tp_mbuf_priv(m)->punt_class, TP_PUNT_OTHER);
	assert_int_equal(rte_ring_count(w->exc_ring[1]), 1);
	reset(NULL);
	/* OSPFv3 Hello to AllSPFRouters */
	expect_punt(frame_nh(ll_h1, all_spf, 1, 10, (const uint8_t[6]){0x33, 0x33, 0, 0, 0, 5},
			     TP_IP6_NH_OSPF),
		    IP6_CTR(MULTICAST), TP_PUNT_CONTROL);
	m = frame_nh(A(1, 2), all_spf, 1, 10, (const uint8_t[6]){0x33, 0x33, 0, 0, 0, 5},
		     TP_IP6_NH_OSPF);
	run(m);
	assert_int_equal(ctr(IP6_CTR(CTL_DEMOTED_SOURCE)), 1);
	assert_int_equal(tp_mbuf_priv(m)->punt_class, TP_PUNT_OTHER);
	reset(NULL);
	assert_int_equal(rte_mempool_in_use_count(pool), pool_base);
}

/* A neighbour forgotten: its host route goes, the packets punt as unresolved; learnt
 * again, they forward. A burst of mixed packets keeps its order per output. */
static void test_neighbour_and_burst(void **state)
{
	assert_int_equal(tp_neigh6_learn(A(2, 2), 1, NULL), -ENOENT);
	for (int i = 0; i < 10 && tp_route6_pending(); i++)
		tp_route6_poll();
	expect_punt(frame(A(2, 2), 64, 10), IP6_CTR(UNRESOLVED), TP_PUNT_OTHER);
	assert_true(tp_neigh6_learn(A(2, 2), 1, mac_h2) >= 0);
	for (int i = 0; i < 10 && tp_route6_pending(); i++)
		tp_route6_poll();

	struct rte_mbuf *b[8];
	for (unsigned int i = 0; i < 8; i++)
		b[i] = i % 3 == 1 ? frame(A(0x99, 1), 64, (uint16_t)i)
				  : frame(A(2, 2), 64, (uint16_t)i);
	tp_iface_table[0].input(w, b, 8);
	assert_int_equal(w->txb[1].n, 5);
	for (unsigned int i = 0, k = 0; i < 8; i++)
		if (i % 3 != 1)
			assert_ptr_equal(w->txb[1].pkts[k++], b[i]);
	assert_int_equal(ctr(IP6_CTR(NO_ROUTE)), 3);
	reset(NULL);
	assert_int_equal(rte_mempool_in_use_count(pool), pool_base);
}

/* The output pass of a burst (input.c's third): next hops alternating on one port
 * (each change writes the buffer's fill back and reloads it), one packet too big and
 * one without a route among them, into a buffer that already holds 20 frames: it
 * fills at the 12th forwarded frame, is sent then, and the rest stay in it in order,
 * each with its next hop's MAC and the hop limit less one. */
static void test_output_pass(void **state)
{
	struct rte_mbuf *pre[20], *b[TP_BURST], *fwd[TP_BURST];
	unsigned int nf = 0;

	assert_true(tp_neigh6_learn(A(2, 3), 1, mac_h3) >= 0);
	for (int i = 0; i < 10 && tp_route6_pending(); i++)
		tp_route6_poll();
	for (unsigned int i = 0; i < 20; i++)
		pre[i] = frame(A(2, 2), 64, 10);
	tp_iface_table[0].input(w, pre, 20);
	assert_int_equal(w->txb[1].n, 20);
	tp_iface_table[1].mtu = 1280;
	for (unsigned int i = 0; i < TP_BURST; i++) {
		if (i == 5)
			b[i] = frame(A(2, 2), 64, 1300); /* 1354 bytes of IPv6: too big */
		else if (i == 9)
			b[i] = frame(A(0x99, 1), 64, 10);
		else
			b[i] = frame(i % 2 ? A(3, (uint16_t)i) : A(2, 2), (uint8_t)(64 + i), 10);
		if (i != 5 && i != 9)
			fwd[nf++] = b[i];
	}
	tp_iface_table[0].input(w, b, TP_BURST);
	tp_iface_table[1].mtu = 1500;
	/* 20 + 30 forwarded: 32 sent (to a port that does not exist here: tx_queue_full) */
	assert_int_equal(w->txb[1].n, 20 + nf - TP_BURST);
	assert_int_equal(ctr(TP_DROP_TX_FULL) + w->st.tx, TP_BURST);
	for (unsigned int k = 0; k < w->txb[1].n; k++) {
		struct rte_mbuf *m = w->txb[1].pkts[k];
		unsigned int i = TP_BURST - 20 + k; /* its place among the forwarded */
		assert_ptr_equal(m, fwd[i]);
		const uint8_t *e = rte_pktmbuf_mtod(m, const uint8_t *);
		bool via_h3 = e[14 + 24 + 5] == 3; /* 2001:db8:3:: */
		assert_memory_equal(e, via_h3 ? mac_h3 : mac_h2, 6);
		assert_memory_equal(e + 6, mac_p1, 6);
		assert_int_equal(e[12], 0x86);
		assert_int_equal(e[13], 0xdd);
	}
	/* the hop limits: 64 + i - 1 for the ones still here */
	for (unsigned int i = 0, k = 0; i < TP_BURST; i++)
		if (i != 5 && i != 9 && k++ >= TP_BURST - 20)
			assert_int_equal(ip_of(b[i])[7], 64 + i - 1);
	assert_int_equal(ctr(IP6_CTR(EXCEEDS_MTU)), 1);
	assert_int_equal(ctr(IP6_CTR(NO_ROUTE)), 1);
	assert_int_equal(tp_neigh6_learn(A(2, 3), 1, NULL), -ENOENT);
	for (int i = 0; i < 10 && tp_route6_pending(); i++)
		tp_route6_poll();
	reset(NULL);
	assert_int_equal(rte_mempool_in_use_count(pool), pool_base);
}

/* IPv6 is a first handler of the l3 mode (l3mode.h): a burst that starts with an
 * IPv6 frame goes to it whole. It forwards its own, drops IPv6 to another host's MAC
 * (core.l2_other_host) and hands the rest back in order: a frame cut short and one of
 * an ethertype nobody registered are dropped by the l3 mode. A burst that starts with
 * another frame is demultiplexed first, and IPv6 gets its run. */
static void test_first_handler_of_the_l3_mode(void **state)
{
	static const uint8_t other[6] = {0x02, 0, 0, 0, 0, 0x77};
	struct rte_mbuf *b[6];

	for (unsigned int start = 0; start < 2; start++) {
		b[0] = frame(A(2, 2), 64, 1);
		b[1] = frame(A(2, 2), 64, 2);
		rte_pktmbuf_mtod(b[1], uint8_t *)[13] = 0xb5; /* 0x86b5: nobody's */
		b[2] = frame_nh(NULL, A(2, 2), 64, 3, other, TP_IP6_NH_UDP);
		b[3] = frame(A(2, 2), 64, 4);
		rte_pktmbuf_trim(b[3], rte_pktmbuf_pkt_len(b[3]) - 10); /* 10 bytes */
		b[4] = frame(A(9, 1), 64, 5);
		b[5] = frame(A(2, 2), 64, 6);
		if (start == 1) { /* the unknown frame first */
			struct rte_mbuf *t = b[0];
			b[0] = b[1], b[1] = t;
		}
		struct rte_mbuf *fwd[3] = {start ? b[1] : b[0], b[4], b[5]};
		tp_iface_table[0].input(w, b, 6);
		assert_int_equal(w->txb[1].n, 3);
		for (unsigned int i = 0; i < 3; i++)
			assert_ptr_equal(w->txb[1].pkts[i], fwd[i]);
		assert_int_equal(ctr(TP_DROP_L2_UNSUPPORTED), 1);
		assert_int_equal(ctr(TP_DROP_L2_OTHER_HOST), 1);
		assert_int_equal(ctr(TP_DROP_L2_TOO_SHORT), 1);
		reset(NULL);
		assert_int_equal(rte_mempool_in_use_count(pool), pool_base);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_forward, reset),
	    cmocka_unit_test_setup(test_padding_and_chains, reset),
	    cmocka_unit_test_setup(test_every_drop_reason, reset),
	    cmocka_unit_test_setup(test_own_source, reset),
	    cmocka_unit_test_setup(test_every_punt_reason, reset),
	    cmocka_unit_test_setup(test_control_class, reset),
	    cmocka_unit_test_setup(test_neighbour_and_burst, reset),
	    cmocka_unit_test_setup(test_first_handler_of_the_l3_mode, reset),
	    cmocka_unit_test_setup(test_output_pass, reset),
	};
	if (tp_test_eal_init() < 0)
		return 1;
	return cmocka_run_group_tests_name("ip6_fwd", tests, setup, teardown);
}
