/* SPDX-License-Identifier: BSD-3-Clause */
/* twinplane-fetch's TCP client fed crafted frames (built with DPDK's header structs and
 * checksums, not our encoder): the SYN's options, the handshake, in-order delivery,
 * the out-of-order queue and its SACK blocks (RFC 2018), duplicates, PAWS (RFC 7323),
 * RST and SYN challenges (RFC 5961), FIN, bad checksums, and every mbuf back home. The
 * segments we send are read from the transmit buffer, never sent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "../../src/fetch/net.h"
#include "../../src/fetch/tcp.h"
#include "eal_fixture.h"

#define US 0x0a000102u	 /* 10.0.1.2 */
#define PEER 0x0a000101u /* 10.0.1.1, on-link */
#define IRS 1000000u
#define TS_PEER 5000u

static struct rte_mempool *pool;
static struct fetch_net n;
static struct tcp_conn c, c2;
/* the connection frame() addresses, and its server port */
static struct tcp_conn *cur = &c;
static uint16_t cur_sport = 80;
static const struct rte_ether_addr peer_mac = {{0x02, 0, 0, 0, 0, 0x01}};

/* what the application saw */
static uint8_t got[1 << 16];
static size_t got_len;
static int events[8];

static void app_recv(void *app, struct tcp_conn *k, struct rte_mbuf *m, const uint8_t *d,
		     uint32_t len)
{
	assert_true(got_len + len <= sizeof(got));
	memcpy(got + got_len, d, len);
	got_len += len;
}

static void app_event(void *app, struct tcp_conn *k, enum tcp_event e)
{
	events[e]++;
	if (e == TCP_EV_ESTABLISHED)
		assert_int_equal(tcp_send(k, "GET / HTTP/1.1\r\n\r\n", 18), 0);
}

static const struct tcp_ops ops = {.recv = app_recv, .event = app_event};

/* A frame from the peer: flags, seq, ack, options (raw bytes), payload of len bytes
 * whose byte i is (seq + i) & 0xff. */
static struct rte_mbuf *frame(uint8_t flags, uint32_t seq, uint32_t ack, const uint8_t *opts,
			      size_t olen, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	size_t thl = sizeof(struct rte_tcp_hdr) + olen;
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(
	    m, (uint16_t)(sizeof(struct rte_ether_hdr) + sizeof(struct rte_ipv4_hdr) + thl + len));
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)p;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eh + 1);
	struct rte_tcp_hdr *th = (struct rte_tcp_hdr *)(ip + 1);

	assert_non_null(p);
	eh->dst_addr = n.mac;
	eh->src_addr = peer_mac;
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(sizeof(*ip) + thl + len));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_TCP;
	ip->src_addr = rte_cpu_to_be_32(PEER);
	ip->dst_addr = rte_cpu_to_be_32(US);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	memset(th, 0, sizeof(*th));
	th->src_port = rte_cpu_to_be_16(cur_sport);
	th->dst_port = rte_cpu_to_be_16(cur->lport);
	th->sent_seq = rte_cpu_to_be_32(seq);
	th->recv_ack = rte_cpu_to_be_32(ack);
	th->data_off = (uint8_t)((thl / 4) << 4);
	th->tcp_flags = flags;
	th->rx_win = rte_cpu_to_be_16(1000); /* x 2^7: 128000 */
	if (olen) /* opts may be NULL then: memcpy's arguments may not (C11 7.24.1) */
		memcpy(th + 1, opts, olen);
	for (uint32_t i = 0; i < len; i++)
		((uint8_t *)(th + 1))[olen + i] = (uint8_t)(seq + i);
	th->cksum = rte_ipv4_udptcp_cksum(ip, th);
	return m;
}

/* NOP NOP TS(tsval, tsecr) */
static size_t ts_opt(uint8_t *o, uint32_t tsval, uint32_t tsecr)
{
	o[0] = o[1] = 1;
	o[2] = 8;
	o[3] = 10;
	uint32_t a = rte_cpu_to_be_32(tsval), b = rte_cpu_to_be_32(tsecr);
	memcpy(o + 4, &a, 4);
	memcpy(o + 8, &b, 4);
	return 12;
}

static void data(uint32_t off, uint32_t len, uint32_t tsval)
{
	uint8_t o[12];
	size_t ol = ts_opt(o, tsval, 1);
	net_input(&n, frame(RTE_TCP_ACK_FLAG, IRS + 1 + off, c.snd_nxt, o, ol, len));
}

/* The segments we queued since the last call, decoded; the mbufs freed. */
struct sent {
	struct tp_tcp_hdr h;
	struct tp_tcp_opts o;
	size_t len;
};

static unsigned int take_sent(struct sent *out, unsigned int max)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < n.ntx; i++) {
		struct rte_mbuf *m = n.tx[i];
		uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
		size_t l4 = rte_pktmbuf_data_len(m) - 34;
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(p + 14);
		if (ip->next_proto_id == IPPROTO_TCP && k < max) {
			/* DPDK's checksum check agrees with ours */
			assert_int_equal(rte_ipv4_udptcp_cksum_verify(ip, p + 34), 0);
			assert_int_equal(tp_tcp_parse(p + 34, l4, &out[k].h, &out[k].o), TP_TCP_OK);
			out[k].len = l4 - out[k].h.hlen;
			k++;
		}
		rte_pktmbuf_free(m);
	}
	n.ntx = 0;
	return k;
}

static int setup(void **state)
{
	if (tp_test_eal_init() < 0)
		return -1;
	pool = rte_pktmbuf_pool_create("tcp_test", 8191, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	return pool ? 0 : -1;
}

/* A fresh stack and a connection established by a SYN-ACK with every option. */
static void establish(void)
{
	struct sent s[4];

	memset(&n, 0, sizeof(n));
	memset(events, 0, sizeof(events));
	got_len = 0;
	n.pool = pool;
	n.mac = (struct rte_ether_addr){{0x02, 0, 0, 0, 0, 0x02}};
	n.ip = US;
	n.mask = 0xffffff00;
	n.mtu = 1500;
	n.hz = rte_get_tsc_hz();
	n.now = n.hz * 100;
	n.arp[0] = (struct fetch_arp_slot){.ip = PEER, .valid = true, .mac = peer_mac};
	assert_int_equal(tcp_connect(&n, &c, PEER, 80, 1 << 20, &ops, NULL), 0);
	tcp_poll(&n);
	assert_int_equal(take_sent(s, 4), 1);
	/* the SYN: MSS 1460, SACK-permitted, timestamps, window scale 5 for 1 MiB */
	assert_int_equal(s[0].h.flags, TP_TCP_SYN);
	assert_true(s[0].o.has_mss && s[0].o.mss == 1460 && s[0].o.sack_perm && s[0].o.has_ts);
	assert_true(s[0].o.has_ws && s[0].o.ws == 5);
	assert_int_equal(s[0].h.win, 65535); /* never scaled in a SYN */
	uint32_t tsecr = s[0].o.tsval;

	/* Linux's SYN-ACK options: MSS 1460, SACK-permitted, TS, NOP, WS 7 */
	uint8_t o[20] = {2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0x13, 0x88, 0, 0, 0, 0, 1, 3, 3, 7};
	uint32_t e = rte_cpu_to_be_32(tsecr);
	memcpy(o + 12, &e, 4);
	net_input(&n, frame(RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG, IRS, c.iss + 1, o, 20, 0));
	assert_int_equal(c.state, TCP_ESTABLISHED);
	assert_int_equal(events[TCP_EV_ESTABLISHED], 1);
	assert_true(c.ts_ok && c.sack_ok);
	assert_int_equal(c.snd_ws, 7);
	assert_int_equal(c.snd_wnd, 1000); /* a SYN's window is not scaled */
	tcp_poll(&n);
	/* the request, with the ACK of the SYN-ACK */
	assert_int_equal(take_sent(s, 4), 1);
	assert_int_equal(s[0].h.flags, TP_TCP_ACK | TP_TCP_PSH);
	assert_int_equal(s[0].h.ack, IRS + 1);
	assert_int_equal(s[0].len, 18);
	assert_int_equal(s[0].o.tsecr, TS_PEER);
	assert_int_equal(s[0].h.win, (1 << 20) >> 5);
	c.quickack = 0; /* the delayed-ACK rules from here on */
}

static void finish(void)
{
	tcp_free(&c);
	take_sent(NULL, 0);
	/* every mbuf back: the queue's, the delivered ones, ours */
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
}

static void check_payload(uint32_t from, size_t len)
{
	assert_int_equal(got_len, len);
	for (size_t i = 0; i < len; i++)
		assert_int_equal(got[i], (uint8_t)(IRS + 1 + from + i));
}

static void test_in_order_and_delayed_acks(void **state)
{
	struct sent s[4];

	establish();
	data(0, 1000, TS_PEER + 1);
	/* RFC 5681 4.2: one segment waits for a second or the delayed-ACK timer */
	tcp_poll(&n);
	assert_int_equal(take_sent(s, 4), 0);
	/* the second, in the next burst: ACKed by the first pass TCP_ACK_IDLE_US after it
	 * (tcp_poll), not while segments keep coming */
	data(1000, 1000, TS_PEER + 1);
	assert_int_equal(take_sent(s, 4), 0);
	tcp_poll(&n);
	assert_int_equal(take_sent(s, 4), 0);
	n.now += n.hz / 1000000 * TCP_ACK_IDLE_US;
	tcp_poll(&n);
	assert_int_equal(take_sent(s, 4), 1);
	assert_int_equal(s[0].h.ack, IRS + 1 + 2000);
	assert_int_equal(s[0].o.tsecr, TS_PEER + 1);
	data(2000, 500, TS_PEER + 2);
	tcp_poll(&n);
	assert_int_equal(take_sent(s, 4), 0);
	n.now += n.hz / 1000 * (TCP_DELACK_MS + 1);
	tcp_poll(&n);
	assert_int_equal(take_sent(s, 4), 1);
	assert_int_equal(s[0].h.ack, IRS + 1 + 2500);
	check_payload(0, 2500);
	finish();
}

/* In-order segments get one ACK covering all of them once the flow pauses (a stretch
 * ACK, as Linux's for a GRO batch), echoing the timestamp of the first segment after
 * the last ACK (RFC 7323 4.3), or at the end of the burst that makes TCP_ACK_STRETCH
 * wait; a hole is ACKed at once with SACK (RFC 5681 4.2), and the segment filling it
 * too. */
static void test_one_ack_per_burst(void **state)
{
	struct sent s[8];

	establish();
	/* TCP_ACK_STRETCH - 1 segments over two passes: no ACK while they come */
	for (uint32_t i = 0; i + 1 < TCP_ACK_STRETCH; i++) {
		data(i * 1000, 1000, TS_PEER + 1);
		if (i == TCP_ACK_STRETCH / 2) {
			tcp_poll(&n);
			n.now += n.hz / 1000000 * (TCP_ACK_IDLE_US / 2);
		}
	}
	tcp_poll(&n);
	assert_int_equal(take_sent(s, 8), 0);
	/* one more makes the stretch: ACKed when this burst ends */
	data((TCP_ACK_STRETCH - 1) * 1000, 1000, TS_PEER + 2);
	assert_int_equal(take_sent(s, 8), 0);
	tcp_poll(&n);
	assert_int_equal(take_sent(s, 8), 1);
	assert_int_equal(s[0].h.ack, IRS + 1 + TCP_ACK_STRETCH * 1000);
	assert_int_equal(s[0].o.tsecr, TS_PEER + 1);
	assert_int_equal(n.c.tcp_acks_sent, 1); /* the SYN-ACK's rode on the request */
	/* a burst of 10, then the flow pauses: one ACK for the 10 */
	for (uint32_t i = 0; i < 10; i++)
		data(TCP_ACK_STRETCH * 1000 + i * 1000, 1000, TS_PEER + 3 + i);
	assert_int_equal(take_sent(s, 8), 0);
	tcp_poll(&n);
	assert_int_equal(take_sent(s, 8), 0);
	n.now += n.hz / 1000000 * TCP_ACK_IDLE_US;
	tcp_poll(&n);
	assert_int_equal(take_sent(s, 8), 1);
	/* the rest of the test in sequence numbers from here */
	uint32_t base = TCP_ACK_STRETCH * 1000;
	assert_int_equal(s[0].h.ack, IRS + 1 + base + 10000);
	assert_int_equal(s[0].o.tsecr, TS_PEER + 3);
	assert_int_equal(s[0].o.nsack, 0);
	assert_int_equal(n.c.tcp_acks_sent, 2);
	/* the next burst: two in order, then one past a hole */
	data(base + 10000, 1000, TS_PEER + 20);
	data(base + 11000, 1000, TS_PEER + 21);
	data(base + 13000, 1000, TS_PEER + 22);
	assert_int_equal(take_sent(s, 8), 1); /* the duplicate ACK, at once */
	assert_int_equal(s[0].h.ack, IRS + 1 + base + 12000);
	assert_int_equal(s[0].o.nsack, 1);
	assert_int_equal(s[0].o.sack[0][0], IRS + 1 + base + 13000);
	n.now += n.hz / 1000000 * TCP_ACK_IDLE_US;
	tcp_poll(&n);
	assert_int_equal(take_sent(s, 8), 0);	/* nothing left to acknowledge */
	data(base + 12000, 1000, TS_PEER + 23); /* fills the hole: ACKed at once */
	assert_int_equal(take_sent(s, 8), 1);
	assert_int_equal(s[0].h.ack, IRS + 1 + base + 14000);
	assert_int_equal(s[0].o.nsack, 0);
	n.now += n.hz / 1000000 * TCP_ACK_IDLE_US;
	tcp_poll(&n);
	assert_int_equal(take_sent(s, 8), 0);
	check_payload(0, base + 14000);
	finish();
}

static void test_out_of_order_and_sack(void **state)
{
	struct sent s[4];

	establish();
	data(2000, 1000, TS_PEER + 1); /* hole [0, 2000) */
	assert_int_equal(take_sent(s, 4), 1);
	assert_int_equal(s[0].h.ack, IRS + 1); /* an immediate duplicate ACK */
	assert_int_equal(s[0].o.nsack, 1);
	assert_int_equal(s[0].o.sack[0][0], IRS + 1 + 2000);
	assert_int_equal(s[0].o.sack[0][1], IRS + 1 + 3000);
	data(4000, 1000, TS_PEER + 1); /* a second island: reported first (RFC 2018 4) */
	assert_int_equal(take_sent(s, 4), 1);
	assert_int_equal(s[0].o.nsack, 2);
	assert_int_equal(s[0].o.sack[0][0], IRS + 1 + 4000);
	assert_int_equal(s[0].o.sack[1][0], IRS + 1 + 2000);
	data(3000, 1000, TS_PEER + 1); /* joins both islands into one block */
	assert_int_equal(take_sent(s, 4), 1);
	assert_int_equal(s[0].o.nsack, 1);
	assert_int_equal(s[0].o.sack[0][0], IRS + 1 + 2000);
	assert_int_equal(s[0].o.sack[0][1], IRS + 1 + 5000);
	data(2500, 1000, TS_PEER + 1); /* wholly queued already: a duplicate */
	assert_int_equal(c.dup_segs, 1);
	take_sent(s, 4);
	assert_int_equal(got_len, 0);
	data(0, 1500, TS_PEER + 2); /* fills part of the hole: ACK at once, same SACK */
	assert_int_equal(take_sent(s, 4), 1);
	assert_int_equal(s[0].h.ack, IRS + 1 + 1500);
	assert_int_equal(s[0].o.nsack, 1);
	data(1000, 1000, TS_PEER + 2); /* overlaps both sides: the queue drains */
	assert_int_equal(take_sent(s, 4), 1);
	assert_int_equal(s[0].h.ack, IRS + 1 + 5000);
	assert_int_equal(s[0].o.nsack, 0);
	check_payload(0, 5000);
	assert_int_equal(c.ooo_segs, 4);
	assert_int_equal(c.nooo, 0);
	finish();
}

static void test_duplicates_paws_and_window(void **state)
{
	struct sent s[4];

	establish();
	data(0, 1000, TS_PEER + 10);
	data(1000, 1000, TS_PEER + 10);
	take_sent(s, 4);
	data(0, 1000, TS_PEER + 10); /* old: counted, ACKed at once */
	assert_int_equal(c.dup_segs, 1);
	assert_int_equal(take_sent(s, 4), 1);
	assert_int_equal(s[0].h.ack, IRS + 1 + 2000);
	data(2000, 1000, TS_PEER + 5); /* an older timestamp: PAWS drops it */
	assert_int_equal(n.c.drop_tcp_paws, 1);
	assert_int_equal(got_len, 2000);
	take_sent(s, 4);
	data(2000 + (1 << 20) + 10, 100, TS_PEER + 11); /* past the window */
	assert_int_equal(n.c.drop_tcp_window, 1);
	assert_int_equal(got_len, 2000);
	/* a corrupted checksum */
	struct rte_mbuf *m = frame(RTE_TCP_ACK_FLAG, IRS + 1 + 2000, c.snd_nxt, NULL, 0, 100);
	rte_pktmbuf_mtod(m, uint8_t *)[rte_pktmbuf_data_len(m) - 1] ^= 0xff;
	net_input(&n, m);
	assert_int_equal(n.c.drop_tcp_cksum, 1);
	check_payload(0, 2000);
	finish();
}

static void test_rst_syn_and_fin(void **state)
{
	struct sent s[4];
	uint8_t o[12];
	size_t ol = ts_opt(o, TS_PEER + 1, 1);

	establish();
	data(0, 1000, TS_PEER + 1);
	/* RST in the window but not at rcv_nxt, and a SYN: challenge ACKs (RFC 5961) */
	net_input(&n, frame(RTE_TCP_RST_FLAG, IRS + 1 + 5000, 0, NULL, 0, 0));
	net_input(&n, frame(RTE_TCP_SYN_FLAG, IRS + 77, 0, NULL, 0, 0));
	assert_int_equal(n.c.tcp_challenge_acks, 2);
	assert_int_equal(c.state, TCP_ESTABLISHED);
	assert_int_equal(take_sent(s, 4), 2);
	assert_int_equal(s[1].h.ack, IRS + 1 + 1000);
	/* the FIN after 500 more bytes: both delivered, the FIN ACKed at once */
	net_input(
	    &n, frame(RTE_TCP_ACK_FLAG | RTE_TCP_FIN_FLAG, IRS + 1 + 1000, c.snd_nxt, o, ol, 500));
	assert_int_equal(events[TCP_EV_PEER_FIN], 1);
	assert_int_equal(c.state, TCP_CLOSE_WAIT);
	assert_int_equal(take_sent(s, 4), 1);
	assert_int_equal(s[0].h.ack, IRS + 1 + 1500 + 1);
	check_payload(0, 1500);
	/* our FIN, then the peer's ACK of it: closed */
	tcp_close(&c);
	tcp_poll(&n);
	assert_int_equal(take_sent(s, 4), 1);
	assert_true(s[0].h.flags & TP_TCP_FIN);
	assert_int_equal(c.state, TCP_LAST_ACK);
	net_input(&n, frame(RTE_TCP_ACK_FLAG, IRS + 1 + 1501, s[0].h.seq + 1, o, ol, 0));
	assert_int_equal(c.state, TCP_CLOSED);
	assert_int_equal(events[TCP_EV_CLOSED], 1);
	/* a segment for no connection: answered with RST */
	net_input(&n, frame(RTE_TCP_ACK_FLAG, 1, 12345, NULL, 0, 10));
	assert_int_equal(take_sent(s, 4), 1);
	assert_int_equal(s[0].h.flags, TP_TCP_RST);
	assert_int_equal(s[0].h.seq, 12345);
	finish();
}

static void test_out_of_order_fin_and_rst(void **state)
{
	struct sent s[4];
	uint8_t o[12];
	size_t ol = ts_opt(o, TS_PEER + 1, 1);

	establish();
	/* the FIN's segment before the one in front of it */
	net_input(
	    &n, frame(RTE_TCP_ACK_FLAG | RTE_TCP_FIN_FLAG, IRS + 1 + 1000, c.snd_nxt, o, ol, 1000));
	assert_int_equal(events[TCP_EV_PEER_FIN], 0);
	data(0, 1000, TS_PEER + 1);
	assert_int_equal(events[TCP_EV_PEER_FIN], 1);
	assert_int_equal(c.rcv_nxt, IRS + 1 + 2000 + 1);
	check_payload(0, 2000);
	take_sent(s, 4);
	finish();

	establish();
	net_input(&n, frame(RTE_TCP_RST_FLAG, IRS + 1, 0, NULL, 0, 0)); /* exactly rcv_nxt */
	assert_int_equal(events[TCP_EV_RESET], 1);
	assert_int_equal(c.state, TCP_CLOSED);
	finish();
}

static void test_syn_retransmission_and_refusal(void **state)
{
	struct sent s[4];

	establish();
	finish();
	memset(&n.c, 0, sizeof(n.c));
	assert_int_equal(tcp_connect(&n, &c, PEER, 80, 65535, &ops, NULL), 0);
	tcp_poll(&n);
	assert_int_equal(take_sent(s, 4), 1);
	assert_false(s[0].o.has_ws && s[0].o.ws != 0); /* 64 KiB needs no scaling */
	/* RFC 6298 2.1: the SYN again after 1 s, then 2 s later */
	n.now += n.hz * 999 / 1000;
	tcp_poll(&n);
	assert_int_equal(take_sent(s, 4), 0);
	n.now += n.hz / 500;
	tcp_poll(&n);
	assert_int_equal(take_sent(s, 4), 1);
	assert_int_equal(s[0].h.flags, TP_TCP_SYN);
	n.now += n.hz * 19 / 10;
	tcp_poll(&n);
	assert_int_equal(take_sent(s, 4), 0);
	n.now += n.hz / 5;
	tcp_poll(&n);
	assert_int_equal(take_sent(s, 4), 1);
	assert_int_equal(c.retransmits, 2);
	/* an RST acknowledging our SYN: refused */
	net_input(&n, frame(RTE_TCP_RST_FLAG | RTE_TCP_ACK_FLAG, 0, c.iss + 1, NULL, 0, 0));
	assert_int_equal(events[TCP_EV_REFUSED], 1);
	finish();
}

/* A second connection (to port 81) beside c, established with the same SYN-ACK; frame()
 * addresses it until use_c(). */
static void establish_c2(void)
{
	struct sent s[4];
	uint8_t o[20] = {2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0x13, 0x88, 0, 0, 0, 0, 1, 3, 3, 7};

	take_sent(NULL, 0);
	assert_int_equal(tcp_connect(&n, &c2, PEER, 81, 1 << 20, &ops, NULL), 0);
	tcp_poll(&n);
	assert_int_equal(take_sent(s, 4), 1);
	uint32_t e = rte_cpu_to_be_32(s[0].o.tsval);
	memcpy(o + 12, &e, 4);
	cur = &c2;
	cur_sport = 81;
	net_input(&n, frame(RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG, IRS, c2.iss + 1, o, 20, 0));
	assert_int_equal(c2.state, TCP_ESTABLISHED);
	tcp_poll(&n);
	take_sent(s, 4);
}

static void use_c(void)
{
	cur = &c;
	cur_sport = 80;
}

/* Review N16: the out-of-order queues share one budget (fetch_net.ooo_budget, by
 * default TCP_OOO_BUDGET, below the pool): a segment over it is dropped and counted even
 * when its own connection's queue has room; the budget comes back as queues drain and
 * connections go. */
static void test_ooo_budget_shared(void **state)
{
	uint8_t o[12];
	size_t ol = ts_opt(o, TS_PEER + 1, 1);

	establish();
	n.ooo_budget = 4;
	data(2000, 100, TS_PEER + 1);
	data(4000, 100, TS_PEER + 1);
	data(6000, 100, TS_PEER + 1);
	assert_int_equal(c.nooo, 3);
	establish_c2();
	net_input(&n, frame(RTE_TCP_ACK_FLAG, IRS + 1 + 3000, c2.snd_nxt, o, ol, 100));
	assert_int_equal(c2.nooo, 1);
	assert_int_equal(n.ooo_held, 4);
	/* c2's own queue is nearly empty, the shared budget is spent */
	net_input(&n, frame(RTE_TCP_ACK_FLAG, IRS + 1 + 5000, c2.snd_nxt, o, ol, 100));
	assert_int_equal(c2.nooo, 1);
	assert_int_equal(n.c.drop_tcp_ooo_budget, 1);
	assert_int_equal(n.c.drop_tcp_ooo_full, 0);
	take_sent(NULL, 0);
	/* c's hole filled: its first island drains, one segment of budget comes back */
	use_c();
	data(0, 1000, TS_PEER + 1);
	assert_int_equal(n.ooo_held, 4);
	data(1000, 1000, TS_PEER + 1);
	assert_int_equal(c.nooo, 2);
	assert_int_equal(n.ooo_held, 3);
	data(8000, 100, TS_PEER + 1);
	assert_int_equal(n.ooo_held, 4);
	assert_int_equal(n.c.drop_tcp_ooo_budget, 1);
	/* c2 goes: its queued segment's share with it */
	tcp_free(&c2);
	assert_int_equal(n.ooo_held, 3);
	take_sent(NULL, 0);
	check_payload(0, 2100);
	finish();
	assert_int_equal(n.ooo_held, 0);
}

/* RFC 5961 5.2: an ACK below SND.UNA - MAX.SND.WND (here: below our ISS + 1, where
 * nothing was ever sent) is dropped, counted and answered with a challenge ACK; its
 * payload is not taken. An old ACK inside the bound is still an ACK. */
static void test_ack_lower_bound(void **state)
{
	struct sent s[4];

	establish();
	net_input(&n, frame(RTE_TCP_ACK_FLAG, IRS + 1, c.iss, NULL, 0, 500));
	net_input(&n, frame(RTE_TCP_ACK_FLAG, IRS + 1, c.iss - 100000, NULL, 0, 500));
	net_input(&n, frame(RTE_TCP_ACK_FLAG, IRS + 1, c.iss + 0x80000000u, NULL, 0, 500));
	assert_int_equal(n.c.drop_tcp_ack_old, 2);
	assert_int_equal(got_len, 0);
	assert_int_equal(c.rcv_nxt, IRS + 1);
	/* two challenge ACKs (the third, beyond snd_max, is ACKed as before) */
	assert_int_equal(n.c.tcp_challenge_acks, 2);
	assert_int_equal(take_sent(s, 4), 3);
	assert_int_equal(s[0].h.ack, IRS + 1);
	assert_int_equal(s[0].h.flags, TP_TCP_ACK);
	/* ISS + 1, the SYN's ACK: acceptable, the data with it delivered */
	net_input(&n, frame(RTE_TCP_ACK_FLAG, IRS + 1, c.iss + 1, NULL, 0, 500));
	assert_int_equal(n.c.drop_tcp_ack_old, 2);
	check_payload(0, 500);
	take_sent(NULL, 0);
	finish();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_in_order_and_delayed_acks),
	    cmocka_unit_test(test_one_ack_per_burst),
	    cmocka_unit_test(test_out_of_order_and_sack),
	    cmocka_unit_test(test_duplicates_paws_and_window),
	    cmocka_unit_test(test_rst_syn_and_fin),
	    cmocka_unit_test(test_out_of_order_fin_and_rst),
	    cmocka_unit_test(test_syn_retransmission_and_refusal),
	    cmocka_unit_test(test_ooo_budget_shared),
	    cmocka_unit_test(test_ack_lower_bound),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
