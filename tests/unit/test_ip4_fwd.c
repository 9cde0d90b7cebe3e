/* SPDX-License-Identifier: BSD-3-Clause */
/* The l3 input and the IPv4 fast path fed crafted mbufs: forwarding bytes, every drop
 * and punt reason with its class, the punt buckets per port and class, the
 * transmit buffers' invariant with a local UDP function sending, and the output of
 * what the data plane originates (tp_ip4_output, tp_udp_send). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "../../src/core/input.h"
#include "../../src/nf/ip4/l3mode.h"
#include "../../src/core/nf.h"
#include "../../src/core/rcu.h"
#include "../../src/core/tp.h"
#include "../../src/core/trace.h"
#include "../../src/nf/ip4/ip4.h"
#include "../../src/nf/ip4/datapath/udp_local.h"
#include "../../src/nf/ip4/output.h"
#include "../../src/proto/ip4.h"
#include "../../src/tables/iface.h"
#include "../../src/nf/ip4/control/neigh.h"
#include "../../src/nf/ip4/control/nexthop.h"
#include "../../src/nf/ip4/control/route.h"
#include "eal_fixture.h"
#include "worker_fixture.h"

#define IP(a, b, c, d) (((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))

static struct rte_mempool *pool;
static struct tp_worker *w;
static const uint8_t mac_p0[6] = {2, 0, 0, 0, 0, 0x10};
static const uint8_t mac_p1[6] = {2, 0, 0, 0, 0, 0x11};
static const uint8_t mac_h1[6] = {2, 0, 0, 0, 1, 0x02};
static const uint8_t mac_h2[6] = {2, 0, 0, 0, 2, 0x02};
static unsigned int pool_base;

static int setup(void **state)
{
	w = tp_test_l3_worker("test", 1023, &pool);
	if (w == NULL)
		return -1;
	tp_test_l3_ports(mac_p0, mac_p1);
	/* primary addresses: the subnets single-hop routing protocols come from */
	tp_ip4_port_addr_set(0, IP(10, 0, 1, 1), 24);
	tp_ip4_port_addr_set(1, IP(10, 0, 2, 1), 24);
	/* p0: 10.0.1.1/24, p1: 10.0.2.1/24, h2 = 10.0.2.2 resolved, 10.9.0.0/16 via h2 */
	tp_route_add(IP(10, 0, 1, 0), 24, TP_ROUTE_CONNECTED, 0, 0, 1);
	tp_route_add(IP(10, 0, 1, 1), 32, TP_ROUTE_LOCAL, 0, 0, 1);
	tp_route_add(IP(10, 0, 2, 0), 24, TP_ROUTE_CONNECTED, 0, 1, 1);
	tp_route_add(IP(10, 0, 2, 1), 32, TP_ROUTE_LOCAL, 0, 1, 1);
	tp_route_add(IP(10, 9, 0, 0), 16, TP_ROUTE_GATEWAY, IP(10, 0, 2, 2), 1, 1);
	/* kernel routes without a next hop, two of them inside 10.9.0.0/16 */
	tp_route_add(IP(10, 9, 6, 0), 24, TP_ROUTE_BLACKHOLE, 0, TP_ROUTE_NO_PORT, 1);
	tp_route_add(IP(10, 9, 7, 0), 24, TP_ROUTE_UNREACHABLE, 0, TP_ROUTE_NO_PORT, 1);
	tp_route_add(IP(10, 68, 0, 0), 16, TP_ROUTE_PROHIBIT, 0, TP_ROUTE_NO_PORT, 1);
	tp_route_add(IP(10, 69, 0, 0), 16, TP_ROUTE_THROW, 0, TP_ROUTE_NO_PORT, 1);
	int nh = tp_neigh_learn(IP(10, 0, 2, 2), 1, mac_h2);
	tp_route_host_update(IP(10, 0, 2, 2), 1, nh);
	pool_base = rte_mempool_in_use_count(pool);
	return 0;
}

static int teardown(void **state)
{
	tp_test_tables_fini();
	return 0;
}

/* Counters, rings and buffers back to zero before each test. */
static int reset(void **state)
{
	tp_test_worker_reset(w);
	return 0;
}

/* A counter, all ports together. */
static uint64_t ctr(unsigned int id)
{
	return tp_test_ctr(w, id);
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

/* Through the port's input function, as an lcore does. */
static void run(struct rte_mbuf *m)
{
	tp_test_run(w, m);
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
	assert_int_equal(ctr(IP4_CTR(NO_ROUTE)), 0);
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
	assert_int_equal(ctr(IP4_CTR(BAD_CHECKSUM)), 1);
}

static void test_padding_trimmed(void **state)
{
	struct rte_mbuf *m = frame(IP(10, 0, 2, 2), 64, 0, NULL); /* 42 bytes */
	rte_pktmbuf_append(m, 18);				  /* Ethernet padding to 60 */
	run(m);
	assert_int_equal(w->txb[1].n, 1);
	assert_int_equal(w->txb[1].pkts[0]->pkt_len, 42);
}

/* The bytes of m (one segment) followed by pad bytes of padding, as a chain of
 * segments of the given lengths (their sum is the whole); m is freed. */
static struct rte_mbuf *chain(struct rte_mbuf *m, uint32_t pad, const uint16_t *lens,
			      unsigned int n)
{
	uint8_t bytes[512];
	uint32_t len = m->pkt_len, off = 0;
	struct rte_mbuf *head = NULL, *tail = NULL;

	memcpy(bytes, rte_pktmbuf_mtod(m, void *), len);
	memset(bytes + len, 0xee, pad);
	rte_pktmbuf_free(m);
	for (unsigned int k = 0; k < n; k++) {
		struct rte_mbuf *s = rte_pktmbuf_alloc(pool);
		memcpy(rte_pktmbuf_append(s, lens[k]), bytes + off, lens[k]);
		off += lens[k];
		if (head == NULL)
			head = s;
		else
			assert_int_equal(rte_pktmbuf_chain(head, s), 0), (void)tail;
		tail = s;
	}
	assert_int_equal(off, len + pad);
	head->port = 0;
	return head;
}

/* Found by fuzz_ip4: padding longer than a chain's last segment stayed on the packet
 * (rte_pktmbuf_trim cuts from the last segment only, or not at all), and so did a
 * chain's segments after a first one that held the whole packet (the fast test
 * compared the total length with the first segment's). Both leave with the packet
 * only, the segments cut off back in the pool. */
static void test_chained_padding_cut(void **state)
{
	/* 142 bytes of packet, 80 of padding: 42 | 100 + 50 | 30 */
	static const uint16_t lens[] = {42, 150, 30};
	struct rte_mbuf *m = chain(frame(IP(10, 0, 2, 2), 64, 100, NULL), 80, lens, 3);
	unsigned int used = rte_mempool_in_use_count(pool);
	const char *why;

	run(m);
	assert_int_equal(w->txb[1].n, 1);
	struct rte_mbuf *o = w->txb[1].pkts[0];
	assert_int_equal(o->pkt_len, 142);
	assert_int_equal(o->nb_segs, 2);
	assert_int_equal(o->next->data_len, 100);
	assert_int_equal(rte_mbuf_check(o, 1, &why), 0);
	assert_int_equal(rte_mempool_in_use_count(pool), used - 1);

	/* the whole packet in the first segment, 20 bytes more in a second */
	static const uint16_t lens2[] = {142, 20};
	reset(NULL);
	m = chain(frame(IP(10, 0, 2, 2), 64, 100, NULL), 20, lens2, 2);
	run(m);
	assert_int_equal(w->txb[1].n, 1);
	o = w->txb[1].pkts[0];
	assert_int_equal(o->pkt_len, 142);
	assert_int_equal(o->nb_segs, 1);
	assert_null(o->next);
	assert_int_equal(rte_pktmbuf_data_len(o), 142);
	assert_int_equal(rte_mbuf_check(o, 1, &why), 0);
	assert_int_equal(rte_ipv4_cksum((const struct rte_ipv4_hdr *)ip_of(o)), 0);
}

/* m is dropped for reason id and nothing else happens */
static void expect_drop(struct rte_mbuf *m, unsigned int id)
{
	tp_test_expect_drop(w, m, id);
}

static void test_every_drop_reason(void **state)
{
	struct rte_mbuf *m;

	m = frame(IP(10, 0, 2, 2), 64, 10, NULL);
	rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - 24)); /* 10 bytes of IP header */
	expect_drop(m, IP4_CTR(TOO_SHORT));

	m = frame(IP(10, 0, 2, 2), 64, 10, NULL);
	ip_of(m)[0] = 0x65;
	expect_drop(m, IP4_CTR(BAD_VERSION));

	m = frame(IP(10, 0, 2, 2), 64, 10, NULL);
	ip_of(m)[0] = 0x44;
	expect_drop(m, IP4_CTR(BAD_IHL));

	m = frame(IP(10, 0, 2, 2), 64, 10, NULL);
	ip_of(m)[2] = 0;
	ip_of(m)[3] = 12;
	refresh_cksum(m);
	expect_drop(m, IP4_CTR(BAD_TOTAL_LEN));

	m = frame(IP(10, 0, 2, 2), 64, 10, NULL);
	ip_of(m)[2] = 0x05; /* 1280+ bytes claimed in a 52-byte frame */
	refresh_cksum(m);
	expect_drop(m, IP4_CTR(LEN_EXCEEDS_FRAME));

	m = frame(IP(10, 0, 2, 2), 64, 10, NULL);
	ip_of(m)[10] ^= 0x40;
	expect_drop(m, IP4_CTR(BAD_CHECKSUM));

	m = frame(IP(10, 0, 2, 2), 64, 10, NULL);
	ip_of(m)[12] = 127;
	refresh_cksum(m);
	expect_drop(m, IP4_CTR(MARTIAN_SRC));

	/* a kernel blackhole route, inside a route that forwards */
	expect_drop(frame(IP(10, 9, 6, 1), 64, 10, NULL), IP4_CTR(BLACKHOLE));

	/* every dropped mbuf went back to its pool */
	assert_int_equal(rte_mempool_in_use_count(pool), pool_base);
}

/* m is handed to the control plane for reason id, in class cls (its ring) */
static void expect_punt(struct rte_mbuf *m, unsigned int id, enum tp_punt_class cls)
{
	tp_test_expect_punt(w, m, id, cls);
}

/* IHL 6: one word of options (NOP x4) */
static struct rte_mbuf *with_options(struct rte_mbuf *m)
{
	uint8_t *ip = ip_of(m);

	memmove(ip + 24, ip + 20, m->pkt_len - 34);
	rte_pktmbuf_append(m, 4);
	memset(ip + 20, 1, 4);
	ip[0] = 0x46;
	ip[3] += 4;
	refresh_cksum(m);
	return m;
}

static struct rte_mbuf *proto(struct rte_mbuf *m, uint8_t p)
{
	ip_of(m)[9] = p;
	refresh_cksum(m);
	return m;
}

static void test_every_punt_reason(void **state)
{
	static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	static const uint8_t ospf_mc[6] = {0x01, 0x00, 0x5e, 0x00, 0x00, 0x05};
	struct rte_mbuf *m;

	m = frame(0, 64, 10, bcast);
	rte_pktmbuf_mtod(m, uint8_t *)[13] = 0x06; /* ARP */
	expect_punt(m, IP4_CTR(ARP), TP_PUNT_ARP);
	expect_punt(frame(IP(10, 0, 1, 1), 64, 10, NULL), IP4_CTR(LOCAL), TP_PUNT_OTHER);
	expect_punt(frame(IP(224, 0, 0, 5), 1, 10, ospf_mc), IP4_CTR(MULTICAST), TP_PUNT_OTHER);
	expect_punt(frame(IP(10, 0, 2, 2), 1, 10, NULL), IP4_CTR(TTL), TP_PUNT_ERROR);
	expect_punt(frame(IP(10, 0, 2, 77), 64, 10, NULL), IP4_CTR(UNRESOLVED), TP_PUNT_OTHER);
	/* the kernel answers these with Destination Unreachable (RFC 1812 5.2.7.1) */
	expect_punt(frame(IP(11, 0, 0, 1), 64, 10, NULL), IP4_CTR(NO_ROUTE), TP_PUNT_ERROR);
	expect_punt(frame(IP(10, 9, 7, 1), 64, 10, NULL), IP4_CTR(UNREACHABLE_ROUTE),
		    TP_PUNT_ERROR);
	expect_punt(frame(IP(10, 68, 0, 1), 64, 10, NULL), IP4_CTR(PROHIBITED_ROUTE),
		    TP_PUNT_ERROR);
	expect_punt(frame(IP(10, 69, 0, 1), 64, 10, NULL), IP4_CTR(UNREACHABLE_ROUTE),
		    TP_PUNT_ERROR);
	expect_punt(with_options(frame(IP(10, 0, 2, 2), 64, 10, NULL)), IP4_CTR(OPTIONS),
		    TP_PUNT_OTHER);
	assert_int_equal(rte_mempool_in_use_count(pool), pool_base);
}

/* ARP and routing protocols are the control class; TTL 1 to us is ours, not expired */
static void test_punt_classes(void **state)
{
	static const uint8_t ospf_mc[6] = {0x01, 0x00, 0x5e, 0x00, 0x00, 0x05};
	static const uint8_t vrrp_mc[6] = {0x01, 0x00, 0x5e, 0x00, 0x00, 0x12};
	struct rte_mbuf *m;

	/* OSPF hello to 224.0.0.5, TTL 1 */
	expect_punt(proto(frame(IP(224, 0, 0, 5), 1, 10, ospf_mc), 89), IP4_CTR(MULTICAST),
		    TP_PUNT_CONTROL);
	/* OSPF unicast to our address with TTL 1 (DBD, LSU): local, control */
	expect_punt(proto(frame(IP(10, 0, 1, 1), 1, 10, NULL), 89), IP4_CTR(LOCAL),
		    TP_PUNT_CONTROL);
	/* eBGP: TCP to port 179, TTL 1 */
	m = proto(frame(IP(10, 0, 1, 1), 1, 10, NULL), 6);
	ip_of(m)[22] = 0;
	ip_of(m)[23] = 179;
	expect_punt(m, IP4_CTR(LOCAL), TP_PUNT_CONTROL);
	/* BFD control (UDP 3784) */
	m = frame(IP(10, 0, 1, 1), 255, 10, NULL);
	ip_of(m)[22] = 3784 >> 8;
	ip_of(m)[23] = 3784 & 0xff;
	expect_punt(m, IP4_CTR(LOCAL), TP_PUNT_CONTROL);
	/* a transit OSPF packet whose TTL expires is still just expired */
	expect_punt(proto(frame(IP(10, 0, 2, 2), 1, 10, NULL), 89), IP4_CTR(TTL), TP_PUNT_ERROR);
	/* VRRP to 224.0.0.18 with TTL 255 (RFC 5798 5.1.1.3) */
	expect_punt(proto(frame(IP(224, 0, 0, 18), 255, 10, vrrp_mc), 112), IP4_CTR(MULTICAST),
		    TP_PUNT_CONTROL);
	assert_int_equal(ctr(IP4_CTR(CTL_DEMOTED_TTL)) + ctr(IP4_CTR(CTL_DEMOTED_SOURCE)) +
			     ctr(IP4_CTR(CTL_DEMOTED_DESTINATION)),
			 0);
	assert_int_equal(rte_mempool_in_use_count(pool), pool_base);
}

/* src of m changed (the checksum with it) */
static struct rte_mbuf *from(struct rte_mbuf *m, uint32_t src)
{
	uint32_t be = htonl(src);

	memcpy(ip_of(m) + 12, &be, 4);
	refresh_cksum(m);
	return m;
}

/* TCP to port 179 of 10.0.1.1 with TTL ttl from src */
static struct rte_mbuf *bgp(uint32_t src, uint8_t ttl)
{
	struct rte_mbuf *m = from(proto(frame(IP(10, 0, 1, 1), ttl, 10, NULL), 6), src);

	ip_of(m)[22] = 0;
	ip_of(m)[23] = 179;
	return m;
}

/* m punted as other and counted as demoted for reason id (N10: the control class
 * is not anybody's for the asking) */
static void expect_demoted(struct rte_mbuf *m, unsigned int reason, unsigned int id)
{
	uint64_t before = ctr(id);

	run(m);
	assert_int_equal(rte_ring_count(w->exc_ring[0]), 0);
	assert_int_equal(rte_ring_count(w->exc_ring[1]), 1);
	assert_int_equal(tp_mbuf_priv(m)->punt_class, TP_PUNT_OTHER);
	assert_int_equal(tp_mbuf_priv(m)->punt_reason, reason);
	assert_int_equal(ctr(id), before + 1);
	reset(NULL);
}

/* What only looks like a routing protocol is the other class, counted: the wrong TTL
 * (RFC 2328 8.1, RFC 5881 5, RFC 5798 5.1.1.3, GTSM RFC 5082) or a source neither on
 * the port's subnet nor a control peer. */
static void test_control_class_validated(void **state)
{
	static const uint8_t ospf_mc[6] = {0x01, 0x00, 0x5e, 0x00, 0x00, 0x05};
	static const uint8_t pim_mc[6] = {0x01, 0x00, 0x5e, 0x00, 0x00, 0x0d};
	struct rte_mbuf *m;

	/* OSPF to 224.0.0.5 with TTL 64, and from off the subnet */
	expect_demoted(proto(frame(IP(224, 0, 0, 5), 64, 10, ospf_mc), 89), IP4_CTR(MULTICAST),
		       IP4_CTR(CTL_DEMOTED_TTL));
	expect_demoted(from(proto(frame(IP(224, 0, 0, 5), 1, 10, ospf_mc), 89), IP(10, 7, 7, 7)),
		       IP4_CTR(MULTICAST), IP4_CTR(CTL_DEMOTED_SOURCE));
	/* OSPF to a group that is not OSPF's */
	expect_demoted(proto(frame(IP(224, 0, 0, 13), 1, 10, pim_mc), 89), IP4_CTR(MULTICAST),
		       IP4_CTR(CTL_DEMOTED_DESTINATION));
	/* PIM hello with TTL 2; VRRP with TTL 254; IGMP with TTL 64 */
	expect_demoted(proto(frame(IP(224, 0, 0, 13), 2, 10, pim_mc), 103), IP4_CTR(MULTICAST),
		       IP4_CTR(CTL_DEMOTED_TTL));
	expect_demoted(proto(frame(IP(224, 0, 0, 18), 254, 10, pim_mc), 112), IP4_CTR(MULTICAST),
		       IP4_CTR(CTL_DEMOTED_TTL));
	expect_demoted(proto(frame(IP(224, 0, 0, 22), 64, 10, pim_mc), 2), IP4_CTR(MULTICAST),
		       IP4_CTR(CTL_DEMOTED_TTL));
	/* single-hop BFD with TTL 254 (one hop away: not a neighbour) */
	m = frame(IP(10, 0, 1, 1), 254, 10, NULL);
	ip_of(m)[22] = 3784 >> 8;
	ip_of(m)[23] = 3784 & 0xff;
	expect_demoted(m, IP4_CTR(LOCAL), IP4_CTR(CTL_DEMOTED_TTL));
	/* BGP from beyond the subnet: other, until that source is a control peer */
	expect_demoted(bgp(IP(10, 7, 7, 7), 64), IP4_CTR(LOCAL), IP4_CTR(CTL_DEMOTED_SOURCE));
	tp_ip4_ctl_peers[0] = TP_IP4_CTL_PEER_USED | 24ull << 32 | IP(10, 7, 7, 0);
	tp_ip4_ctl_peers_n = 1;
	expect_punt(bgp(IP(10, 7, 7, 7), 64), IP4_CTR(LOCAL), TP_PUNT_CONTROL);
	expect_demoted(bgp(IP(10, 7, 8, 7), 64), IP4_CTR(LOCAL), IP4_CTR(CTL_DEMOTED_SOURCE));
	/* the peer with GTSM (min-ttl 255): TTL 254 is other */
	tp_ip4_ctl_peers[0] |= 255ull << 40;
	expect_demoted(bgp(IP(10, 7, 7, 7), 254), IP4_CTR(LOCAL), IP4_CTR(CTL_DEMOTED_TTL));
	expect_punt(bgp(IP(10, 7, 7, 7), 255), IP4_CTR(LOCAL), TP_PUNT_CONTROL);
	tp_ip4_ctl_peers[0] = 0;
	tp_ip4_ctl_peers_n = 0;
	/* BGP from the subnet with GTSM on: only TTL 255 */
	tp_ip4_bgp_gtsm = 1;
	expect_demoted(bgp(IP(10, 0, 1, 2), 64), IP4_CTR(LOCAL), IP4_CTR(CTL_DEMOTED_TTL));
	expect_punt(bgp(IP(10, 0, 1, 2), 255), IP4_CTR(LOCAL), TP_PUNT_CONTROL);
	tp_ip4_bgp_gtsm = 0;
	/* link-local sources are on every link (RFC 3927) */
	expect_punt(from(proto(frame(IP(224, 0, 0, 5), 1, 10, ospf_mc), 89), IP(169, 254, 3, 4)),
		    IP4_CTR(MULTICAST), TP_PUNT_CONTROL);
	assert_int_equal(rte_mempool_in_use_count(pool), pool_base);
}

/* Inside the control class one source takes at most its share: a source out of credit
 * is dropped, counted, while another source still goes. */
static void test_control_class_fair_per_source(void **state)
{
	/* a class bucket of four packets that never refills in the test's time; each
	 * source's slot holds a quarter of it, one packet */
	w->tb[0][TP_PUNT_CONTROL] = (struct tp_tbucket){.tokens = 4000000000000ull,
							.cost = 1000000000000ull,
							.max_tokens = 4000000000000ull,
							.last_tsc = rte_rdtsc()};
	/* and every source's slot full, one packet: a slot the worker never used has
	 * last_tsc 0 and takes the TSC's count since boot as credit, which a VM a few
	 * minutes up (4e12 cycles is 27 minutes at 2.5 GHz) has not reached */
	for (unsigned int i = 0; i < TP_PUNT_SRC_SLOTS; i++)
		w->src_tb[i] =
		    (struct tp_src_bucket){.tokens = 4000000000000ull, .last_tsc = rte_rdtsc()};
	run(bgp(IP(10, 0, 1, 2), 64));
	run(bgp(IP(10, 0, 1, 2), 64));
	run(bgp(IP(10, 0, 1, 2), 64));
	assert_int_equal(rte_ring_count(w->exc_ring[0]), 1);
	assert_int_equal(ctr(TP_DROP_EXC_SRC_RATELIMITED), 2);
	run(bgp(IP(10, 0, 1, 3), 64));
	assert_int_equal(rte_ring_count(w->exc_ring[0]), 2);
	assert_int_equal(ctr(TP_DROP_EXC_SRC_RATELIMITED), 2);
	assert_int_equal(ctr(TP_DROP_EXC_RATELIMITED), 0);
	/* ARP has its own class: a sender out of credit there leaves the control class be */
	w->tb[0][TP_PUNT_ARP] = w->tb[0][TP_PUNT_CONTROL];
	for (int i = 0; i < 3; i++) {
		struct rte_mbuf *m =
		    frame(0, 64, 10, (const uint8_t[6]){0xff, 0xff, 0xff, 0xff, 0xff, 0xff});
		rte_pktmbuf_mtod(m, uint8_t *)[13] = 0x06;
		run(m);
	}
	assert_int_equal(rte_ring_count(w->exc_ring[0]), 3);
	assert_int_equal(ctr(TP_DROP_EXC_SRC_RATELIMITED), 4);
	assert_int_equal(ctr(IP4_CTR(ARP)), 1);
	run(bgp(IP(10, 0, 1, 4), 64));
	assert_int_equal(rte_ring_count(w->exc_ring[0]), 4);
}

/* A flood of one class on one port does not starve another class, or another port. */
static void test_punt_buckets_per_port_and_class(void **state)
{
	struct rte_mbuf *m;

	/* port 0's "error" bucket is empty and stays so */
	w->tb[0][TP_PUNT_ERROR] = (struct tp_tbucket){
	    .cost = UINT64_MAX / 4, .max_tokens = UINT64_MAX / 4, .last_tsc = rte_rdtsc()};
	for (int i = 0; i < 5; i++)
		run(frame(IP(10, 0, 2, 2), 1, 10, NULL)); /* TTL expiry: error */
	assert_int_equal(ctr(TP_DROP_EXC_RATELIMITED), 5);
	assert_int_equal(ctr(IP4_CTR(TTL)), 0);
	/* ARP on port 0 still goes */
	m = frame(0, 64, 10, (const uint8_t[6]){0xff, 0xff, 0xff, 0xff, 0xff, 0xff});
	rte_pktmbuf_mtod(m, uint8_t *)[13] = 0x06;
	run(m);
	assert_int_equal(rte_ring_count(w->exc_ring[0]), 1);
	/* and so do port 0's unresolved neighbours (other) */
	run(frame(IP(10, 0, 2, 77), 64, 10, NULL));
	assert_int_equal(ctr(IP4_CTR(UNRESOLVED)), 1);
	/* and port 1's own TTL expiry */
	m = frame(IP(10, 0, 1, 2), 1, 10, mac_p1);
	m->port = 1;
	run(m);
	assert_int_equal(rte_ring_count(w->exc_ring[1]), 2);
	assert_int_equal(ctr(IP4_CTR(TTL)), 1);
	assert_int_equal(ctr(TP_DROP_EXC_RATELIMITED), 5);
}

static void test_exception_rate_limited(void **state)
{
	w->tb[0][TP_PUNT_OTHER] = (struct tp_tbucket){.cost = UINT64_MAX / 4, /* no credit */
						      .max_tokens = UINT64_MAX / 4,
						      .last_tsc = rte_rdtsc()};
	run(frame(IP(10, 0, 1, 1), 64, 10, NULL));
	assert_int_equal(ctr(TP_DROP_EXC_RATELIMITED), 1);
	assert_int_equal(rte_ring_count(w->exc_ring[1]), 0);
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

/* A local function that answers on port 1 (as the IoT gateway sends its CoAP
 * requests out of the port towards the IN-CSE) */
static unsigned int answer_calls;
static void answer_on_p1(struct tp_worker *wk, struct rte_mbuf *m, uint8_t *l3, uint8_t *l4)
{
	answer_calls++;
	tp_worker_tx_enqueue(wk, m, 1);
}

static void test_local_udp_network_function(void **state)
{
	struct rte_mbuf *m;

	assert_int_equal(tp_udp_local_register(7777, hook, "test"), 0);
	assert_int_equal(tp_udp_local_register(7777, hook, "test"), -EEXIST);
	m = frame(IP(10, 0, 1, 1), 64, 10, NULL);
	ip_of(m)[22] = 0x1e; /* UDP destination port 7777 */
	ip_of(m)[23] = 0x61;
	run(m);
	assert_int_equal(hook_calls, 1);
	assert_int_equal(rte_ring_count(w->exc_ring[1]), 0);
	/* TTL 1 to us is for us too */
	m = frame(IP(10, 0, 1, 1), 1, 10, NULL);
	ip_of(m)[22] = 0x1e;
	ip_of(m)[23] = 0x61;
	run(m);
	assert_int_equal(hook_calls, 2);
	/* the first fragment of a datagram to it is the function's too (it drops what
	 * it cannot take whole, so the kernel never reassembles one past its checks) */
	m = frame(IP(10, 0, 1, 1), 64, 10, NULL);
	ip_of(m)[6] = 0x20; /* MF, offset 0 */
	refresh_cksum(m);
	ip_of(m)[22] = 0x1e;
	ip_of(m)[23] = 0x61;
	run(m);
	assert_int_equal(hook_calls, 3);
	/* a later fragment carries no port: the kernel's */
	m = frame(IP(10, 0, 1, 1), 64, 10, NULL);
	ip_of(m)[6] = 0x00; /* last fragment, offset 8 */
	ip_of(m)[7] = 0x01;
	refresh_cksum(m);
	expect_punt(m, IP4_CTR(LOCAL), TP_PUNT_OTHER);
	/* another port of ours still goes to the kernel */
	expect_punt(frame(IP(10, 0, 1, 1), 64, 10, NULL), IP4_CTR(LOCAL), TP_PUNT_OTHER);
	/* a transit packet to that port is forwarded, not taken */
	m = frame(IP(10, 0, 2, 2), 64, 10, NULL);
	ip_of(m)[22] = 0x1e;
	ip_of(m)[23] = 0x61;
	run(m);
	assert_int_equal(hook_calls, 3);
	assert_int_equal(w->txb[1].n, 1);
	assert_int_equal(rte_mempool_in_use_count(pool), pool_base + 1);
}

/* One burst fills port 1's transmit buffer (32 frames forwarded), then a local UDP
 * function sends on port 1: the buffer must have room (never full on entry). Under
 * AddressSanitizer and UBSan (test_ip4_fwd_asan), a write past the buffer fails. */
static void test_tx_buffer_full_then_local_sender(void **state)
{
	struct rte_mbuf *pkts[TP_BURST + 1];
	uint16_t p1_before = w->txb[1].n;

	assert_int_equal(tp_udp_local_register(7000, answer_on_p1, "test"), 0);
	for (unsigned int i = 0; i < TP_BURST; i++)
		pkts[i] = frame(IP(10, 9, 0, (uint8_t)i), 64, 20, NULL);
	pkts[TP_BURST] = frame(IP(10, 0, 1, 1), 64, 20, NULL);
	ip_of(pkts[TP_BURST])[22] = 7000 >> 8;
	ip_of(pkts[TP_BURST])[23] = 7000 & 0xff;
	assert_int_equal(p1_before, 0);
	/* the l3 input hands the router all 33 as one run of IPv4 */
	tp_l3_input(w, pkts, TP_BURST);
	tp_l3_input(w, &pkts[TP_BURST], 1);
	assert_int_equal(answer_calls, 1);
	assert_true(w->txb[1].n < TP_BURST);
	/* net_null-less test: the 32 frames went to rte_eth_tx_burst on a port that does
	 * not exist here, so they were dropped and counted as tx_queue_full... */
	assert_int_equal(ctr(TP_DROP_TX_FULL) + w->txb[1].n + w->st.tx, TP_BURST + 1);
	tp_worker_tx_flush(w);
	assert_int_equal(w->txb[1].n, 0);
	assert_int_equal(rte_mempool_in_use_count(pool), pool_base);
}

/* Longer than the output port's MTU: to the kernel (it fragments, or answers
 * Fragmentation Needed); as long as the MTU: forwarded. Per next hop, in one burst. */
static void test_exceeds_mtu(void **state)
{
	struct rte_mbuf *pkts[4];

	tp_iface_table[1].mtu = 128;
	pkts[0] = frame(IP(10, 9, 0, 1), 64, 100, NULL); /* 128 bytes of IP: fits */
	pkts[1] = frame(IP(10, 9, 0, 2), 64, 101, NULL); /* 129: does not */
	pkts[2] = frame(IP(10, 9, 0, 3), 64, 100, NULL);
	pkts[3] = frame(IP(10, 9, 0, 4), 64, 500, NULL);
	struct rte_mbuf *big = pkts[1];
	tp_l3_input(w, pkts, 4);
	tp_iface_table[1].mtu = 1500;
	assert_int_equal(w->txb[1].n, 2);
	assert_int_equal(ctr(IP4_CTR(EXCEEDS_MTU)), 2);
	void *out;
	assert_int_equal(rte_ring_dequeue(w->exc_ring[1], &out), 0);
	assert_ptr_equal(out, big);
	assert_int_equal(tp_mbuf_priv(big)->punt_class, TP_PUNT_OTHER);
	/* untouched: TTL as received */
	assert_int_equal(ip_of(big)[8], 64);
	rte_pktmbuf_free(big);
}

static void test_burst_mixed(void **state)
{
	struct rte_mbuf *pkts[TP_BURST];

	for (unsigned int i = 0; i < TP_BURST; i++)
		pkts[i] = frame(i % 3 == 0 ? IP(11, 0, 0, i) : IP(10, 9, 0, i), 64, 20, NULL);
	tp_l3_input(w, pkts, TP_BURST);
	assert_int_equal(ctr(IP4_CTR(NO_ROUTE)), 11);
	assert_int_equal(w->txb[1].n, TP_BURST - 11);
}

/* The l3 input's own checks: Ethernet destination and type, length. */
static void test_l2_drop_reasons(void **state)
{
	static const uint8_t other[6] = {2, 9, 9, 9, 9, 9};
	struct rte_mbuf *m;

	expect_drop(frame(IP(10, 0, 2, 2), 64, 10, other), TP_DROP_L2_OTHER_HOST);
	m = frame(IP(10, 0, 2, 2), 64, 10, NULL);
	rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - 10));
	expect_drop(m, TP_DROP_L2_TOO_SHORT);
	m = frame(IP(10, 0, 2, 2), 64, 10, NULL);
	rte_pktmbuf_mtod(m, uint8_t *)[12] = 0x86;
	rte_pktmbuf_mtod(m, uint8_t *)[13] = 0xdd;
	expect_drop(m, TP_DROP_L2_UNSUPPORTED);
	assert_int_equal(rte_mempool_in_use_count(pool), pool_base);
}

/* Runs: consecutive frames of one type go together, the others where they belong. */
static void test_l3_runs_keep_order(void **state)
{
	struct rte_mbuf *pkts[6];

	for (int i = 0; i < 6; i++)
		pkts[i] = frame(IP(10, 9, 0, (uint8_t)i), 64, 20, NULL);
	rte_pktmbuf_mtod(pkts[2], uint8_t *)[13] = 0x06; /* ARP in the middle */
	rte_pktmbuf_mtod(pkts[4], uint8_t *)[12] = 0x88; /* 0x88b5: nobody's */
	rte_pktmbuf_mtod(pkts[4], uint8_t *)[13] = 0xb5;
	struct rte_mbuf *p3 = pkts[3], *p5 = pkts[5];
	tp_l3_input(w, pkts, 6);
	assert_int_equal(w->txb[1].n, 4);
	assert_ptr_equal(w->txb[1].pkts[2], p3);
	assert_ptr_equal(w->txb[1].pkts[3], p5);
	assert_int_equal(rte_ring_count(w->exc_ring[0]), 1);
	assert_int_equal(ctr(TP_DROP_L2_UNSUPPORTED), 1);
}

/* A burst that does not start with IPv4 (an IPv6 or NDN burst, with IPv4 among it):
 * demultiplexed first, its IPv4 runs given to the first handler, nothing lost and the
 * order kept; a burst led by a frame too short for an Ethernet header the same. */
static void test_l3_burst_led_by_other(void **state)
{
	struct rte_mbuf *pkts[7];

	for (int i = 0; i < 7; i++)
		pkts[i] = frame(IP(10, 9, 0, (uint8_t)i), 64, 20, NULL);
	rte_pktmbuf_mtod(pkts[0], uint8_t *)[13] = 0x06; /* ARP first */
	rte_pktmbuf_mtod(pkts[4], uint8_t *)[12] = 0x88; /* 0x88b5: nobody's */
	rte_pktmbuf_mtod(pkts[4], uint8_t *)[13] = 0xb5;
	rte_pktmbuf_mtod(pkts[5], uint8_t *)[20] ^= 1; /* IPv4 with a bad checksum */
	struct rte_mbuf *p1 = pkts[1], *p3 = pkts[3], *p6 = pkts[6];
	tp_l3_input(w, pkts, 7);
	assert_int_equal(w->txb[1].n, 4);
	assert_ptr_equal(w->txb[1].pkts[0], p1);
	assert_ptr_equal(w->txb[1].pkts[2], p3);
	assert_ptr_equal(w->txb[1].pkts[3], p6);
	assert_int_equal(rte_ring_count(w->exc_ring[0]), 1);
	assert_int_equal(ctr(TP_DROP_L2_UNSUPPORTED), 1);
	assert_int_equal(ctr(IP4_CTR(BAD_CHECKSUM)), 1);

	for (int i = 0; i < 3; i++)
		pkts[i] = frame(IP(10, 9, 0, (uint8_t)(10 + i)), 64, 20, NULL);
	rte_pktmbuf_trim(pkts[0], (uint16_t)(pkts[0]->pkt_len - 10));
	tp_l3_input(w, pkts, 3);
	assert_int_equal(ctr(TP_DROP_L2_TOO_SHORT), 1);
	assert_int_equal(w->txb[1].n, 6);
	tp_l3_input(w, pkts, 0); /* an empty burst: nothing read */
	assert_int_equal(w->txb[1].n, 6);
}

/* --- the output of what the data plane originates (nf/ip4/output.h) --- */

/* An mbuf holding len payload bytes 0xa0, 0xa1, ... (the headers go in its headroom) */
static struct rte_mbuf *payload(uint16_t len, uint16_t port)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, len);

	for (uint16_t i = 0; i < len; i++)
		p[i] = (uint8_t)(0xa0 + i);
	m->port = port;
	return m;
}

/* Nothing but counter id moved (by one), nothing buffered or punted, m back in the pool */
static void expect_out_drop(enum tp_ip4_out r, unsigned int id)
{
	assert_int_equal(r, TP_IP4_OUT_DROPPED);
	for (unsigned int i = 0; i < TP_CTR_MAX; i++)
		if (ctr(i) != (i == id ? 1 : 0))
			fail_msg("counter %u (%s) is %lu", i, tp_ctr_short_name(i),
				 (unsigned long)ctr(i));
	assert_int_equal(w->tx_dirty, 0);
	assert_int_equal(rte_ring_count(w->exc_ring[0]) + rte_ring_count(w->exc_ring[1]), 0);
	assert_int_equal(rte_mempool_in_use_count(pool), pool_base);
	reset(NULL);
}

/* Route and resolved neighbour: the exact frame on port 1's transmit buffer. The
 * expected bytes are written out here (checksum computed by hand, RFC 1071, and
 * checked again with DPDK's rte_ipv4_cksum), not with the codec under test. */
static void test_output_udp_exact_bytes(void **state)
{
	static const uint8_t want[] = {
	    2,	  0,	0,    0,    2,	  0x02, /* h2 */
	    2,	  0,	0,    0,    0,	  0x11, /* p1 */
	    0x08, 0x00,				/* IPv4 */
	    0x45, 0x00, 0x00, 0x21,		/* IHL 5, total 20 + 8 + 5 */
	    0x12, 0x34, 0x00, 0x00,		/* id 0x1234, DF clear, offset 0 */
	    0x40, 0x11, 0x50, 0x96,		/* TTL 64, UDP, checksum */
	    10,	  0,	2,    1,		/* source: port 1's address */
	    10,	  0,	2,    2,		/* destination */
	    0x16, 0x33, 0x16, 0x34,		/* 5683 -> 5684 */
	    0x00, 0x0d, 0x00, 0x00,		/* length 8 + 5, no checksum (RFC 768) */
	    0xa0, 0xa1, 0xa2, 0xa3, 0xa4,
	};
	struct rte_mbuf *m = payload(5, 0);

	assert_int_equal(tp_udp_send(w, m, 0, IP(10, 0, 2, 2), 5683, 5684, 0x1234),
			 TP_IP4_OUT_SENT);
	assert_int_equal(w->txb[1].n, 1);
	assert_true(w->tx_dirty & (1ull << 1));
	struct rte_mbuf *o = w->txb[1].pkts[0];
	assert_ptr_equal(o, m);
	assert_int_equal(o->port, 1);
	assert_int_equal(o->pkt_len, sizeof(want));
	assert_int_equal(o->data_len, sizeof(want));
	assert_memory_equal(rte_pktmbuf_mtod(o, uint8_t *), want, sizeof(want));
	assert_int_equal(rte_ipv4_cksum((const struct rte_ipv4_hdr *)ip_of(o)), 0);
	for (unsigned int i = 0; i < TP_CTR_MAX; i++)
		assert_int_equal(ctr(i), 0);

	/* through the gateway: h2's MAC, the given source address kept */
	m = payload(5, 0);
	assert_int_equal(tp_udp_send(w, m, IP(192, 0, 2, 7), IP(10, 9, 3, 4), 1, 2, 0),
			 TP_IP4_OUT_SENT);
	assert_int_equal(w->txb[1].n, 2);
	uint8_t *e = rte_pktmbuf_mtod(w->txb[1].pkts[1], uint8_t *);
	assert_memory_equal(e, mac_h2, 6);
	static const uint8_t addrs[] = {192, 0, 2, 7, 10, 9, 3, 4};
	assert_memory_equal(e + 26, addrs, 8);
	assert_int_equal(rte_ipv4_cksum((const struct rte_ipv4_hdr *)(e + 14)), 0);
}

/* tp_ip4_output leaves the IPv4 header as written and adds the Ethernet header */
static void test_output_ip4_header_kept(void **state)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *ip = (uint8_t *)rte_pktmbuf_append(m, 28);
	uint8_t copy[28];

	tp_ip4_write(ip, htonl(IP(10, 0, 2, 1)), htonl(IP(10, 9, 0, 1)), 1, 3, 8, 99);
	memset(ip + 20, 0x5a, 8);
	memcpy(copy, ip, sizeof(copy));
	m->port = 0;
	assert_int_equal(tp_ip4_output(w, m, IP(10, 9, 0, 1)), TP_IP4_OUT_SENT);
	assert_int_equal(w->txb[1].n, 1);
	uint8_t *e = rte_pktmbuf_mtod(w->txb[1].pkts[0], uint8_t *);
	assert_int_equal(w->txb[1].pkts[0]->pkt_len, 14 + 28);
	assert_memory_equal(e, mac_h2, 6);
	assert_memory_equal(e + 6, mac_p1, 6);
	assert_int_equal(e[12], 0x08);
	assert_int_equal(e[13], 0x00);
	assert_memory_equal(e + 14, copy, sizeof(copy)); /* TTL 3 stays: not forwarded */
}

/* No route, or a route that only drops or only earns an ICMP error: dropped and
 * counted (output_no_route, on m->port), the mbuf back in the pool */
static void test_output_no_route(void **state)
{
	expect_out_drop(tp_udp_send(w, payload(10, 0), 0, IP(11, 0, 0, 1), 1, 2, 0),
			IP4_CTR(OUT_NO_ROUTE));
	expect_out_drop(tp_udp_send(w, payload(10, 0), 0, IP(10, 9, 6, 1), 1, 2, 0),
			IP4_CTR(OUT_NO_ROUTE)); /* blackhole */
	expect_out_drop(tp_udp_send(w, payload(10, 0), 0, IP(10, 9, 7, 1), 1, 2, 0),
			IP4_CTR(OUT_NO_ROUTE)); /* unreachable */
	expect_out_drop(tp_udp_send(w, payload(10, 0), 0, IP(10, 68, 0, 1), 1, 2, 0),
			IP4_CTR(OUT_NO_ROUTE)); /* prohibit */
	/* an mbuf fresh from a pool names no port: charged to port 0 */
	struct rte_mbuf *m = payload(10, 0);
	m->port = RTE_MBUF_PORT_INVALID;
	assert_int_equal(tp_udp_send(w, m, 0, IP(11, 0, 0, 1), 1, 2, 0), TP_IP4_OUT_DROPPED);
	assert_int_equal(w->ctr[0][IP4_CTR(OUT_NO_ROUTE)], 1);
	assert_int_equal(rte_mempool_in_use_count(pool), pool_base);
}

/* A neighbour not resolved: the router's way, to the kernel through the TAP of the
 * port the neighbour is on, "other" class, as a frame to that port's MAC with the
 * whole datagram (the kernel resolves the neighbour and sends it on) */
static void test_output_unresolved_to_kernel(void **state)
{
	struct rte_mbuf *m = payload(5, 0), *got = NULL;

	/* 10.0.2.77: on port 1's connected subnet, no host entry */
	assert_int_equal(tp_udp_send(w, m, 0, IP(10, 0, 2, 77), 5683, 5684, 0x1234),
			 TP_IP4_OUT_PUNTED);
	assert_int_equal(w->txb[1].n + w->txb[0].n, 0);
	assert_int_equal(w->ctr[1][IP4_CTR(OUT_UNRESOLVED)], 1);
	assert_int_equal(rte_ring_dequeue(w->exc_ring[1], (void **)&got), 0);
	assert_ptr_equal(got, m);
	assert_int_equal(got->port, 1);
	assert_int_equal(tp_mbuf_priv(got)->punt_class, TP_PUNT_OTHER);
	assert_int_equal(tp_mbuf_priv(got)->punt_reason, IP4_CTR(OUT_UNRESOLVED));
	uint8_t *e = rte_pktmbuf_mtod(got, uint8_t *);
	assert_int_equal(got->pkt_len, 14 + 20 + 8 + 5);
	assert_memory_equal(e, mac_p1, 6);
	assert_int_equal(e[12], 0x08);
	static const uint8_t addrs[] = {10, 0, 2, 1, 10, 0, 2, 77};
	assert_memory_equal(e + 26, addrs, 8);
	assert_int_equal(rte_ipv4_cksum((const struct rte_ipv4_hdr *)(e + 14)), 0);
	rte_pktmbuf_free(got);

	/* a gateway whose neighbour (on port 0) is not resolved */
	assert_int_equal(
	    tp_route_add(IP(10, 10, 0, 0), 16, TP_ROUTE_GATEWAY, IP(10, 0, 1, 9), 0, 1), 0);
	assert_int_equal(tp_udp_send(w, payload(5, 1), 0, IP(10, 10, 0, 1), 1, 2, 0),
			 TP_IP4_OUT_PUNTED);
	assert_int_equal(w->ctr[0][IP4_CTR(OUT_UNRESOLVED)], 1);
	assert_int_equal(rte_ring_dequeue(w->exc_ring[1], (void **)&got), 0);
	assert_int_equal(got->port, 0);
	static const uint8_t p0_addr[] = {10, 0, 1, 1}; /* port 0's address */
	assert_memory_equal(rte_pktmbuf_mtod_offset(got, uint8_t *, 26), p0_addr, 4);
	rte_pktmbuf_free(got);
	assert_int_equal(tp_route_del(IP(10, 10, 0, 0), 16), 0);

	/* one of our own addresses: to the kernel too, counted apart */
	assert_int_equal(tp_udp_send(w, payload(5, 0), 0, IP(10, 0, 1, 1), 1, 2, 0),
			 TP_IP4_OUT_PUNTED);
	assert_int_equal(ctr(IP4_CTR(OUT_LOCAL)), 1);
	/* no credit left in the bucket: dropped by the punt, counted, m freed */
	w->tb[1][TP_PUNT_OTHER] = (struct tp_tbucket){
	    .cost = UINT64_MAX / 4, .max_tokens = UINT64_MAX / 4, .last_tsc = rte_rdtsc()};
	assert_int_equal(tp_udp_send(w, payload(5, 0), 0, IP(10, 0, 2, 78), 1, 2, 0),
			 TP_IP4_OUT_PUNTED);
	assert_int_equal(ctr(TP_DROP_EXC_RATELIMITED), 1);
	reset(NULL);
	assert_int_equal(rte_mempool_in_use_count(pool), pool_base);
}

/* Longer than the output port's MTU: dropped (the data plane does not fragment) */
static void test_output_mtu(void **state)
{
	/* 1472 bytes of payload: exactly 1500 of IPv4 */
	assert_int_equal(tp_udp_send(w, payload(1472, 0), 0, IP(10, 0, 2, 2), 1, 2, 0),
			 TP_IP4_OUT_SENT);
	assert_int_equal(w->txb[1].pkts[0]->pkt_len, 1514);
	reset(NULL);
	expect_out_drop(tp_udp_send(w, payload(1473, 0), 0, IP(10, 0, 2, 2), 1, 2, 0),
			IP4_CTR(OUT_EXCEEDS_MTU));
	/* counted on the output port */
	tp_udp_send(w, payload(1473, 0), 0, IP(10, 0, 2, 2), 1, 2, 0);
	assert_int_equal(w->ctr[1][IP4_CTR(OUT_EXCEEDS_MTU)], 1);
	reset(NULL);
	/* no headroom for the headers */
	struct rte_mbuf *m = payload(10, 0);
	m->data_off = 20;
	expect_out_drop(tp_udp_send(w, m, 0, IP(10, 0, 2, 2), 1, 2, 0), IP4_CTR(OUT_NO_HEADROOM));
}

/* The TAP takes our own source address (for what the output punts): one from the wire
 * is a spoof, dropped before any punt */
static void test_own_source_from_wire_dropped(void **state)
{
	struct rte_mbuf *m = frame(IP(10, 0, 1, 1), 64, 10, NULL);

	memcpy(ip_of(m) + 12, (const uint8_t[]){10, 0, 2, 1}, 4);
	refresh_cksum(m);
	expect_drop(m, IP4_CTR(MARTIAN_SRC));
	/* to be forwarded, the neighbour unresolved: the same */
	m = frame(IP(10, 0, 2, 99), 64, 10, NULL);
	memcpy(ip_of(m) + 12, (const uint8_t[]){10, 0, 1, 1}, 4);
	refresh_cksum(m);
	expect_drop(m, IP4_CTR(MARTIAN_SRC));
}

/* Trace on for n packets (core/trace.h): the flag and field the control plane
 * registers (control/cmds_trace.c; same names, same bit and offset), the lcore's
 * buffer, its obs byte. */
static void trace_on(uint32_t n)
{
	static const struct rte_mbuf_dynflag flag = {.name = "twinplane_trace"};
	static const struct rte_mbuf_dynfield field = {
	    .name = "twinplane_trace_id", .size = sizeof(uint32_t), .align = 4};
	int bit = rte_mbuf_dynflag_register(&flag);
	int off = rte_mbuf_dynfield_register(&field);

	assert_true(bit >= 0 && off >= 0);
	tp_trace_ctl.flag = 1ull << bit;
	tp_trace_ctl.id_off = off;
	if (w->trace == NULL)
		w->trace = rte_zmalloc("trace", sizeof(*w->trace), RTE_CACHE_LINE_SIZE);
	assert_non_null(w->trace);
	tp_trace_ctl.port = -1;
	tp_trace_ctl.count = tp_trace_ctl.taken + n;
	w->obs = TP_OBS_TRACE;
}

/* The records of trace id (in the order written) as "type:stage" words, and the
 * counter and class of the last one. */
static unsigned int records(const struct tp_trace_ent *all, unsigned int n, uint32_t id,
			    char *words, size_t cap, const struct tp_trace_ent **last)
{
	unsigned int k = 0;

	words[0] = 0;
	for (unsigned int i = 0; i < n; i++) {
		if (all[i].id != id)
			continue;
		static const char *const type[] = {"rx", "stage", "tx", "drop", "punt"};
		snprintf(words + strlen(words), cap - strlen(words), "%s%s%s%s", k ? " " : "",
			 type[all[i].type], all[i].stage ? ":" : "",
			 all[i].stage ? all[i].stage : "");
		*last = &all[i];
		k++;
	}
	return k;
}

/* A burst of a packet to forward, one with a bad checksum and one whose TTL expires,
 * with the trace on for two: the same bytes leave as without a trace (the recording
 * copy of the burst loop), the first two have their path recorded, the third none. */
static void test_trace_records_path_and_verdict(void **state)
{
	struct rte_mbuf *pkts[3] = {
	    frame(IP(10, 0, 2, 2), 64, 100, NULL),
	    frame(IP(10, 0, 2, 2), 64, 10, NULL),
	    frame(IP(10, 0, 2, 2), 1, 10, NULL),
	};
	struct tp_trace_ent got[64];
	const struct tp_trace_ent *last = NULL;
	char words[512];
	uint32_t id0;

	ip_of(pkts[1])[10] ^= 0x01;
	trace_on(2);
	id0 = tp_trace_ctl.taken + 1;
	tp_obs_rx(w, 0, 3, pkts, 3);
	assert_int_equal(tp_trace_id(pkts[0]), id0);
	assert_int_equal(tp_trace_id(pkts[1]), id0 + 1);
	assert_int_equal(tp_trace_id(pkts[2]), 0); /* the count is reached */
	tp_iface_table[0].input(w, pkts, 3);

	/* what leaves: as test_forward_rewrites_l2_ttl_checksum checks without a trace */
	assert_int_equal(w->txb[1].n, 1);
	uint8_t *e = rte_pktmbuf_mtod(w->txb[1].pkts[0], uint8_t *);
	assert_memory_equal(e, mac_h2, 6);
	assert_memory_equal(e + 6, mac_p1, 6);
	assert_int_equal(e[14 + 8], 63);
	assert_int_equal(ctr(IP4_CTR(BAD_CHECKSUM)), 1);
	assert_int_equal(ctr(IP4_CTR(TTL)), 1);

	unsigned int n = tp_trace_buf_get(w->trace, got, 64);
	assert_int_equal(records(got, n, id0, words, sizeof(words), &last), 5);
	assert_string_equal(words,
			    "rx stage:l3.input stage:ip4.input stage:ip4.forward stage:ip4.output");
	assert_int_equal(got[0].port, 0);
	assert_int_equal(got[0].queue, 3);
	assert_int_equal(got[0].snap_len, TP_TRACE_SNAP);
	assert_int_equal(got[0].snap[14 + 8], 64); /* as received: before the rewrite */
	assert_int_equal(records(got, n, id0 + 1, words, sizeof(words), &last), 4);
	assert_string_equal(words, "rx stage:l3.input stage:ip4.input drop");
	assert_int_equal(last->ctr, IP4_CTR(BAD_CHECKSUM));
	assert_int_equal(n, 9); /* the third packet: nothing */
	assert_int_equal(w->trace->full, 0);

	/* trace off: nothing more is recorded, whatever the packets carry */
	w->obs = 0;
	struct rte_mbuf *m = frame(IP(10, 0, 2, 2), 64, 10, NULL);
	trace_on(1);
	w->obs = 0;
	tp_obs_rx(w, 0, 0, &m, 1);
	run(m);
	assert_int_equal(tp_trace_buf_get(w->trace, got, 64), 0);
	assert_int_equal(w->txb[1].n, 2);
}

/* A punt's record: the reason's counter and the class. */
static void test_trace_punt_record(void **state)
{
	struct rte_mbuf *m = frame(IP(10, 0, 2, 2), 1, 10, NULL);
	struct tp_trace_ent got[16];
	const struct tp_trace_ent *last = NULL;
	char words[256];

	trace_on(1);
	tp_obs_rx(w, 0, 0, &m, 1);
	uint32_t id = tp_trace_id(m);
	assert_true(id != 0);
	run(m);
	w->obs = 0;
	unsigned int n = tp_trace_buf_get(w->trace, got, 16);
	assert_int_equal(records(got, n, id, words, sizeof(words), &last), 6);
	assert_string_equal(
	    words, "rx stage:l3.input stage:ip4.input stage:ip4.ttl_low stage:ip4.punt punt");
	assert_int_equal(last->ctr, IP4_CTR(TTL));
	assert_int_equal(last->cls, TP_PUNT_ERROR);
	/* the packet itself is on the error class's ring: reset() frees it */
	assert_int_equal(rte_ring_count(w->exc_ring[tp_punt_ring(TP_PUNT_ERROR)]), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_forward_rewrites_l2_ttl_checksum, reset),
	    cmocka_unit_test_setup(test_forward_via_gateway, reset),
	    cmocka_unit_test_setup(test_padding_trimmed, reset),
	    cmocka_unit_test_setup_teardown(test_chained_padding_cut, reset, reset),
	    cmocka_unit_test_setup(test_nic_checked_checksum_trusted, reset),
	    cmocka_unit_test_setup(test_every_drop_reason, reset),
	    cmocka_unit_test_setup(test_every_punt_reason, reset),
	    cmocka_unit_test_setup(test_punt_classes, reset),
	    cmocka_unit_test_setup_teardown(test_control_class_validated, reset, reset),
	    cmocka_unit_test_setup_teardown(test_control_class_fair_per_source, reset, reset),
	    cmocka_unit_test_setup_teardown(test_punt_buckets_per_port_and_class, reset, reset),
	    cmocka_unit_test_setup(test_l2_drop_reasons, reset),
	    cmocka_unit_test_setup_teardown(test_l3_runs_keep_order, reset, reset),
	    cmocka_unit_test_setup_teardown(test_l3_burst_led_by_other, reset, reset),
	    cmocka_unit_test_setup_teardown(test_tx_buffer_full_then_local_sender, reset, reset),
	    cmocka_unit_test_setup(test_exception_rate_limited, reset),
	    cmocka_unit_test_setup_teardown(test_local_udp_network_function, reset, reset),
	    cmocka_unit_test_setup_teardown(test_exceeds_mtu, reset, reset),
	    cmocka_unit_test_setup_teardown(test_burst_mixed, reset, reset),
	    cmocka_unit_test_setup_teardown(test_output_udp_exact_bytes, reset, reset),
	    cmocka_unit_test_setup_teardown(test_output_ip4_header_kept, reset, reset),
	    cmocka_unit_test_setup_teardown(test_output_no_route, reset, reset),
	    cmocka_unit_test_setup_teardown(test_output_unresolved_to_kernel, reset, reset),
	    cmocka_unit_test_setup_teardown(test_output_mtu, reset, reset),
	    cmocka_unit_test_setup_teardown(test_own_source_from_wire_dropped, reset, reset),
	    cmocka_unit_test_setup_teardown(test_trace_records_path_and_verdict, reset, reset),
	    cmocka_unit_test_setup_teardown(test_trace_punt_record, reset, reset),
	};
	if (tp_test_eal_init() < 0)
		return 1;
	return cmocka_run_group_tests_name("ip4_fwd", tests, setup, teardown);
}
