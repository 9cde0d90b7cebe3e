/* SPDX-License-Identifier: BSD-3-Clause */
/* The TCP client of twinplane-fetch (RFC 9293, 7323, 2018, 5681, 6298, 5961). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_random.h>

#include "../proto/ip4.h"
#include "tcp.h"

static inline uint32_t now_ms(const struct fetch_net *n)
{
	return (uint32_t)(n->now / (n->hz / 1000));
}

static inline uint32_t ts_now(const struct tcp_conn *c)
{
	return now_ms(c->net) + c->ts_offset;
}

static inline uint64_t ms_to_tsc(const struct fetch_net *n, uint32_t ms)
{
	return n->hz / 1000 * ms;
}

const char *tcp_state_name(enum tcp_state s)
{
	static const char *const names[] = {
	    [TCP_CLOSED] = "CLOSED",	       [TCP_SYN_SENT] = "SYN-SENT",
	    [TCP_ESTABLISHED] = "ESTABLISHED", [TCP_FIN_WAIT_1] = "FIN-WAIT-1",
	    [TCP_FIN_WAIT_2] = "FIN-WAIT-2",   [TCP_CLOSING] = "CLOSING",
	    [TCP_TIME_WAIT] = "TIME-WAIT",     [TCP_CLOSE_WAIT] = "CLOSE-WAIT",
	    [TCP_LAST_ACK] = "LAST-ACK",
	};
	return (unsigned int)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

static uint16_t our_mss(const struct fetch_net *n)
{
	return (uint16_t)(n->mtu - TP_IP4_HDR_LEN - TP_TCP_HDR_LEN);
}

/* The SACK blocks to send (RFC 2018 4): the block holding the newest queued segment
 * first, then the blocks sent before that still exist, then the highest others. */
static unsigned int sack_blocks(struct tcp_conn *c, uint32_t (*out)[2], unsigned int max);

/* Build and queue one segment. False when it could not be built (next hop unresolved,
 * pool empty: counted by net). */
static bool send_seg(struct tcp_conn *c, uint8_t flags, uint32_t seq, const uint8_t *data,
		     uint32_t len)
{
	struct fetch_net *n = c->net;
	uint8_t opts[40], *l4;
	size_t ol;
	uint16_t win;

	if (flags & TP_TCP_SYN) {
		ol = tp_tcp_opts_syn(opts, our_mss(n), c->rcv_ws, true, true, ts_now(c), 0);
		/* RFC 7323 2.2: the window of a SYN is never scaled */
		win = (uint16_t)(c->rcv_wnd > 65535 ? 65535 : c->rcv_wnd);
	} else {
		uint32_t blocks[3][2];
		unsigned int nb = 0;
		if (c->sack_ok && c->nooo)
			nb = sack_blocks(c, blocks, c->ts_ok ? 3 : 3);
		ol = tp_tcp_opts_data(opts, c->ts_ok, ts_now(c), c->ts_recent,
				      (const uint32_t(*)[2])blocks, nb);
		uint32_t w = c->rcv_wnd >> c->rcv_ws;
		win = (uint16_t)(w > 65535 ? 65535 : w);
	}
	uint16_t hlen = (uint16_t)(TP_TCP_HDR_LEN + ol);
	struct rte_mbuf *m = net_ip_alloc(n, c->rip, TP_IPPROTO_TCP, (uint16_t)(hlen + len), &l4);
	if (m == NULL)
		return false;
	memcpy(l4 + TP_TCP_HDR_LEN, opts, ol);
	if (len)
		memcpy(l4 + hlen, data, len);
	struct tp_tcp_hdr h = {
	    .sport = c->lport,
	    .dport = c->rport,
	    .seq = seq,
	    .ack = (flags & TP_TCP_ACK) ? c->rcv_nxt : 0,
	    .hlen = (uint8_t)hlen,
	    .flags = flags,
	    .win = win,
	};
	tp_tcp_write(l4, hlen + len, htonl(n->ip), htonl(c->rip), &h);
	net_send(n, m);
	if (flags & TP_TCP_ACK) {
		c->last_ack_sent = c->rcv_nxt;
		c->segs_unacked = 0;
		c->delack_at = 0;
		c->ack_now = false;
	}
	return true;
}

static void send_ack(struct tcp_conn *c)
{
	if (send_seg(c, TP_TCP_ACK, c->snd_nxt, NULL, 0))
		c->net->c.tcp_acks_sent++;
}

/* An RST for a segment of no connection (RFC 9293 3.10.7.1). */
static void send_rst_for(struct fetch_net *n, uint32_t dst, const struct tp_tcp_hdr *h,
			 uint32_t seglen)
{
	struct tp_tcp_hdr r = {.sport = h->dport, .dport = h->sport, .hlen = TP_TCP_HDR_LEN};
	uint8_t *l4;

	if (h->flags & TP_TCP_ACK) {
		r.seq = h->ack;
		r.flags = TP_TCP_RST;
	} else {
		r.ack = h->seq + seglen;
		r.flags = TP_TCP_RST | TP_TCP_ACK;
	}
	struct rte_mbuf *m = net_ip_alloc(n, dst, TP_IPPROTO_TCP, TP_TCP_HDR_LEN, &l4);
	if (m == NULL)
		return;
	tp_tcp_write(l4, TP_TCP_HDR_LEN, htonl(n->ip), htonl(dst), &r);
	net_send(n, m);
	n->c.tcp_rst_sent++;
}

static void arm_rto(struct tcp_conn *c)
{
	c->rto_at = c->net->now + ms_to_tsc(c->net, c->rto_ms);
}

/* RFC 6298 2.2, 2.3 with a clock granularity G of 1 ms; 2.4 minimum (see
 * TCP_RTO_MIN_MS), 2.5 maximum. r in ms. A sample beyond the maximum RTO (a TSecr
 * from the wire that we never sent, RFC 7323 4.3) counts as the maximum, so the
 * sums below stay within 32 bits. */
static void rtt_sample(struct tcp_conn *c, uint32_t r)
{
	if (r > TCP_RTO_MAX_MS)
		r = TCP_RTO_MAX_MS;
	if (!c->rtt_valid) {
		c->srtt_ms8 = r * 8;
		c->rttvar_ms4 = r * 2;
		c->rtt_valid = true;
	} else {
		int32_t err = (int32_t)r - (int32_t)(c->srtt_ms8 / 8);
		uint32_t aerr = (uint32_t)(err < 0 ? -err : err);
		/* rttvar = 3/4 rttvar + 1/4 |srtt - r|; srtt = 7/8 srtt + 1/8 r */
		c->rttvar_ms4 = c->rttvar_ms4 - c->rttvar_ms4 / 4 + aerr;
		c->srtt_ms8 = (uint32_t)((int32_t)c->srtt_ms8 + err);
	}
	uint32_t var = c->rttvar_ms4 > 1 ? c->rttvar_ms4 : 1; /* max(G, 4 rttvar) */
	uint32_t rto = c->srtt_ms8 / 8 + var;
	c->rto_ms = rto < TCP_RTO_MIN_MS   ? TCP_RTO_MIN_MS
		    : rto > TCP_RTO_MAX_MS ? TCP_RTO_MAX_MS
					   : rto;
}

static void set_state(struct tcp_conn *c, enum tcp_state s)
{
	c->state = s;
	if (s == TCP_CLOSED || s == TCP_TIME_WAIT) {
		c->rto_at = 0;
		c->delack_at = 0;
	}
}

static void ev(struct tcp_conn *c, enum tcp_event e)
{
	c->ops->event(c->app, c, e);
}

/* --- connection set-up and teardown ---------------------------------------- */

int tcp_connect(struct fetch_net *n, struct tcp_conn *c, uint32_t rip, uint16_t rport,
		uint32_t rcv_wnd, const struct tcp_ops *ops, void *app)
{
	int slot = -1;

	for (int i = 0; i < FETCH_MAX_CONN; i++)
		if (n->conns[i] == NULL) {
			slot = i;
			break;
		}
	if (slot < 0)
		return -ENOSPC;
	memset(c, 0, offsetof(struct tcp_conn, sbuf));
	c->ooo = calloc(TCP_OOO_MAX, sizeof(*c->ooo));
	if (c->ooo == NULL)
		return -ENOMEM;
	c->net = n;
	c->ops = ops;
	c->app = app;
	c->rip = rip;
	c->rport = rport;
	/* an ephemeral port (RFC 6056 3.2, the IANA range) not in use by another conn */
	for (bool clash = true; clash;) {
		c->lport = (uint16_t)(49152 + rte_rand_max(16384));
		clash = false;
		for (int i = 0; i < FETCH_MAX_CONN; i++)
			clash |= n->conns[i] && n->conns[i]->lport == c->lport;
	}
	c->rcv_wnd = rcv_wnd;
	while (c->rcv_ws < TP_TCP_WS_MAX && (rcv_wnd >> c->rcv_ws) > 65535)
		c->rcv_ws++;
	c->iss = (uint32_t)rte_rand();
	c->ts_offset = (uint32_t)rte_rand(); /* RFC 7323 7.1: a random offset per connection */
	c->snd_una = c->snd_nxt = c->snd_max = c->iss;
	c->mss = 536; /* RFC 9293 3.7.1, until the SYN-ACK says */
	c->rto_ms = TCP_RTO_INIT_MS;
	c->quickack = TCP_QUICKACK_SEGS;
	c->state = TCP_SYN_SENT;
	n->conns[slot] = c;
	return 0;
}

int tcp_send(struct tcp_conn *c, const void *data, uint32_t len)
{
	if (c->fin_queued || len > TCP_SBUF - c->sbuf_len)
		return -ENOSPC;
	memcpy(c->sbuf + c->sbuf_len, data, len);
	c->sbuf_len += len;
	return 0;
}

void tcp_close(struct tcp_conn *c)
{
	c->fin_queued = true;
}

void tcp_abort(struct tcp_conn *c)
{
	if (c->state != TCP_CLOSED && c->state != TCP_SYN_SENT && c->state != TCP_TIME_WAIT) {
		if (send_seg(c, TP_TCP_RST | TP_TCP_ACK, c->snd_nxt, NULL, 0))
			c->net->c.tcp_rst_sent++;
	}
	set_state(c, TCP_CLOSED);
}

void tcp_free(struct tcp_conn *c)
{
	struct fetch_net *n = c->net;

	if (n == NULL)
		return;
	for (unsigned int i = 0; i < c->nooo; i++)
		rte_pktmbuf_free(c->ooo[i].m);
	n->ooo_held -= c->nooo;
	c->nooo = 0;
	free(c->ooo);
	c->ooo = NULL;
	for (int i = 0; i < FETCH_MAX_CONN; i++)
		if (n->conns[i] == c)
			n->conns[i] = NULL;
	c->net = NULL;
}

/* --- output ------------------------------------------------------------------- */

static uint32_t seg_room(const struct tcp_conn *c)
{
	return (uint32_t)(c->mss - (c->ts_ok ? 12 : 0));
}

/* Send queued data and FIN as far as the peer's window allows. */
static void output(struct tcp_conn *c)
{
	switch (c->state) {
	case TCP_SYN_SENT:
		if (c->snd_nxt == c->iss && send_seg(c, TP_TCP_SYN, c->iss, NULL, 0)) {
			c->snd_nxt = c->snd_max = c->iss + 1;
			c->rtt_timing = true;
			c->rtt_seq = c->iss;
			c->rtt_at = c->net->now;
			arm_rto(c);
		}
		return;
	case TCP_ESTABLISHED:
	case TCP_CLOSE_WAIT:
		break;
	default:
		return;
	}
	uint32_t data_end = c->snd_una + c->sbuf_len;
	while (tp_seq_lt(c->snd_nxt, data_end)) {
		uint32_t wnd_end = c->snd_una + c->snd_wnd;
		if (!tp_seq_lt(c->snd_nxt, wnd_end))
			break; /* the peer's window is full: its next ACK opens it */
		uint32_t len = data_end - c->snd_nxt;
		if (len > seg_room(c))
			len = seg_room(c);
		if (len > wnd_end - c->snd_nxt)
			len = wnd_end - c->snd_nxt;
		if (!send_seg(c, TP_TCP_ACK | TP_TCP_PSH, c->snd_nxt,
			      c->sbuf + (c->snd_nxt - c->snd_una), len))
			return;
		if (!c->rtt_timing && !c->ts_ok) {
			c->rtt_timing = true;
			c->rtt_seq = c->snd_nxt;
			c->rtt_at = c->net->now;
		}
		c->snd_nxt += len;
		if (c->rto_at == 0)
			arm_rto(c);
	}
	if (c->fin_queued && !c->fin_sent && c->snd_nxt == data_end &&
	    send_seg(c, TP_TCP_FIN | TP_TCP_ACK, c->snd_nxt, NULL, 0)) {
		c->fin_seq = c->snd_nxt++;
		c->fin_sent = true;
		set_state(c, c->state == TCP_ESTABLISHED ? TCP_FIN_WAIT_1 : TCP_LAST_ACK);
		if (c->rto_at == 0)
			arm_rto(c);
	}
	if (tp_seq_gt(c->snd_nxt, c->snd_max))
		c->snd_max = c->snd_nxt;
}

/* The retransmission timer expired (RFC 6298 5.4-5.6): everything unacknowledged goes
 * again, the timer backs off. */
static void on_rto(struct tcp_conn *c)
{
	struct fetch_net *n = c->net;

	n->c.tcp_rto++;
	if (++c->retries > TCP_RETRIES_MAX) {
		set_state(c, TCP_CLOSED);
		ev(c, TCP_EV_TIMEOUT);
		return;
	}
	c->rto_ms = c->rto_ms * 2 > TCP_RTO_MAX_MS ? TCP_RTO_MAX_MS : c->rto_ms * 2;
	c->rtt_timing = false; /* Karn: no sample from a retransmitted segment */
	if (c->state == TCP_SYN_SENT) {
		if (send_seg(c, TP_TCP_SYN, c->iss, NULL, 0)) {
			c->retransmits++;
			n->c.tcp_retransmits++;
		}
		arm_rto(c);
		return;
	}
	uint32_t seq = c->snd_una, data_end = c->snd_una + c->sbuf_len;
	while (tp_seq_lt(seq, data_end) && tp_seq_lt(seq, c->snd_max)) {
		uint32_t len = data_end - seq < seg_room(c) ? data_end - seq : seg_room(c);
		if (!send_seg(c, TP_TCP_ACK | TP_TCP_PSH, seq, c->sbuf + (seq - c->snd_una), len))
			break;
		c->retransmits++;
		n->c.tcp_retransmits++;
		seq += len;
	}
	if (c->fin_sent && tp_seq_ge(c->fin_seq, c->snd_una) &&
	    send_seg(c, TP_TCP_FIN | TP_TCP_ACK, c->fin_seq, NULL, 0)) {
		c->retransmits++;
		n->c.tcp_retransmits++;
	}
	arm_rto(c);
}

void tcp_poll(struct fetch_net *n)
{
	for (int i = 0; i < FETCH_MAX_CONN; i++) {
		struct tcp_conn *c = n->conns[i];
		if (c == NULL || c->state == TCP_CLOSED)
			continue;
		output(c);
		if (c->rto_at && n->now >= c->rto_at) {
			on_rto(c);
			if (c->state == TCP_CLOSED)
				continue;
		}
		if (c->delack_at && n->now >= c->delack_at)
			c->ack_now = true;
		/* the flow paused: what waits is acknowledged (see input_sync) */
		if (c->segs_unacked >= 2 &&
		    n->now - c->last_seg_at >= n->hz / 1000000 * TCP_ACK_IDLE_US)
			c->ack_now = true;
		if (c->ack_now && c->state != TCP_SYN_SENT)
			send_ack(c);
	}
}

/* --- the out-of-order queue ----------------------------------------------------- */

/* Index of the first queued segment whose end is after seq (binary search). */
static unsigned int ooo_find(const struct tcp_conn *c, uint32_t seq)
{
	unsigned int lo = 0, hi = c->nooo;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;
		if (tp_seq_le(c->ooo[mid].seq + c->ooo[mid].len, seq))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The contiguous run of queued data around index i: [*l, *r). */
static void ooo_run(const struct tcp_conn *c, unsigned int i, uint32_t *l, uint32_t *r)
{
	unsigned int a = i, b = i;

	while (a > 0 && c->ooo[a - 1].seq + c->ooo[a - 1].len == c->ooo[a].seq)
		a--;
	while (b + 1 < c->nooo && c->ooo[b].seq + c->ooo[b].len == c->ooo[b + 1].seq)
		b++;
	*l = c->ooo[a].seq;
	*r = c->ooo[b].seq + c->ooo[b].len;
}

static bool block_has(uint32_t (*out)[2], unsigned int n, uint32_t l)
{
	for (unsigned int i = 0; i < n; i++)
		if (out[i][0] == l)
			return true;
	return false;
}

static unsigned int sack_blocks(struct tcp_conn *c, uint32_t (*out)[2], unsigned int max)
{
	unsigned int n = 0, i;
	uint32_t l, r;

	if (c->nooo == 0)
		return 0;
	i = ooo_find(c, c->ooo_last_seq);
	if (i < c->nooo && tp_seq_le(c->ooo[i].seq, c->ooo_last_seq)) {
		ooo_run(c, i, &l, &r);
		if (r != l) {
			out[n][0] = l;
			out[n++][1] = r;
		}
	}
	for (unsigned int k = 0; k < c->nsack_prev && n < max; k++) {
		i = ooo_find(c, c->sack_prev[k][0]);
		if (i >= c->nooo || tp_seq_gt(c->ooo[i].seq, c->sack_prev[k][0]))
			continue;
		ooo_run(c, i, &l, &r);
		if (r != l && !block_has(out, n, l)) {
			out[n][0] = l;
			out[n++][1] = r;
		}
	}
	for (i = c->nooo; i > 0 && n < max;) {
		ooo_run(c, i - 1, &l, &r);
		if (r != l && !block_has(out, n, l)) {
			out[n][0] = l;
			out[n++][1] = r;
		}
		/* step before this run */
		while (i > 0 && tp_seq_ge(c->ooo[i - 1].seq, l))
			i--;
	}
	c->nsack_prev = n < 3 ? n : 3;
	memcpy(c->sack_prev, out, sizeof(uint32_t[2]) * c->nsack_prev);
	return n;
}

/* Queue a segment beyond rcv_nxt; takes m. */
static void ooo_insert(struct tcp_conn *c, struct rte_mbuf *m, uint32_t seq, const uint8_t *data,
		       uint32_t len, bool fin)
{
	struct fetch_net *n = c->net;
	unsigned int i = ooo_find(c, seq);

	/* the part already queued in the entry before or at i */
	if (i < c->nooo && tp_seq_le(c->ooo[i].seq, seq)) {
		uint32_t end = c->ooo[i].seq + c->ooo[i].len;
		if (tp_seq_le(seq + len, end) && !(fin && !c->ooo[i].fin && seq + len == end)) {
			c->dup_segs++;
			n->c.tcp_dup++;
			rte_pktmbuf_free(m);
			return;
		}
		uint32_t d = end - seq;
		data += d;
		len -= d;
		seq = end;
		i++;
	}
	/* entries wholly covered by the new one go */
	unsigned int k = i;
	while (k < c->nooo && tp_seq_le(c->ooo[k].seq + c->ooo[k].len, seq + len) &&
	       !(c->ooo[k].fin && c->ooo[k].seq + c->ooo[k].len == seq + len && !fin)) {
		rte_pktmbuf_free(c->ooo[k].m);
		k++;
	}
	if (k > i) {
		memmove(&c->ooo[i], &c->ooo[k], (c->nooo - k) * sizeof(c->ooo[0]));
		c->nooo -= k - i;
		n->ooo_held -= k - i;
	}
	/* the tail already queued after it */
	if (i < c->nooo && tp_seq_lt(c->ooo[i].seq, seq + len)) {
		len = c->ooo[i].seq - seq;
		fin = false;
	}
	if (len == 0 && !fin) {
		c->dup_segs++;
		n->c.tcp_dup++;
		rte_pktmbuf_free(m);
		return;
	}
	if (c->nooo == TCP_OOO_MAX) {
		n->c.drop_tcp_ooo_full++;
		rte_pktmbuf_free(m);
		return;
	}
	if (n->ooo_held >= (n->ooo_budget ? n->ooo_budget : TCP_OOO_BUDGET)) {
		/* the pool is shared: no connection's queue may take what the rx ring and
		 * the other connections need (dropped like a full queue: SACK recovers) */
		n->c.drop_tcp_ooo_budget++;
		rte_pktmbuf_free(m);
		return;
	}
	memmove(&c->ooo[i + 1], &c->ooo[i], (c->nooo - i) * sizeof(c->ooo[0]));
	c->ooo[i] = (struct tcp_ooo_seg){.seq = seq, .len = len, .data = data, .m = m, .fin = fin};
	c->nooo++;
	n->ooo_held++;
	c->ooo_last_seq = seq;
}

static void fin_rcvd(struct tcp_conn *c);

/* Deliver what the queue holds from rcv_nxt on. */
static void ooo_drain(struct tcp_conn *c)
{
	unsigned int k = 0;
	bool fin = false;

	while (k < c->nooo && tp_seq_le(c->ooo[k].seq, c->rcv_nxt)) {
		struct tcp_ooo_seg *s = &c->ooo[k++];
		uint32_t end = s->seq + s->len;
		if (tp_seq_gt(end, c->rcv_nxt)) {
			uint32_t d = c->rcv_nxt - s->seq;
			c->ops->recv(c->app, c, s->m, s->data + d, s->len - d);
			c->bytes_in += s->len - d;
			c->rcv_nxt = end;
		}
		rte_pktmbuf_free(s->m);
		if (s->fin && end == c->rcv_nxt) {
			fin = true;
			break;
		}
	}
	if (fin) {
		/* nothing can follow a FIN */
		for (unsigned int j = k; j < c->nooo; j++)
			rte_pktmbuf_free(c->ooo[j].m);
		k = c->nooo;
	}
	memmove(&c->ooo[0], &c->ooo[k], (c->nooo - k) * sizeof(c->ooo[0]));
	c->nooo -= k;
	c->net->ooo_held -= k;
	if (fin)
		fin_rcvd(c);
}

/* --- input ---------------------------------------------------------------------- */

static void fin_rcvd(struct tcp_conn *c)
{
	bool our_fin_acked = c->fin_sent && tp_seq_gt(c->snd_una, c->fin_seq);

	c->rcv_nxt++;
	c->ack_now = true;
	switch (c->state) {
	case TCP_ESTABLISHED:
		set_state(c, TCP_CLOSE_WAIT);
		ev(c, TCP_EV_PEER_FIN);
		break;
	case TCP_FIN_WAIT_1:
		set_state(c, our_fin_acked ? TCP_TIME_WAIT : TCP_CLOSING);
		ev(c, TCP_EV_PEER_FIN);
		if (our_fin_acked)
			ev(c, TCP_EV_CLOSED);
		break;
	case TCP_FIN_WAIT_2:
		set_state(c, TCP_TIME_WAIT);
		ev(c, TCP_EV_PEER_FIN);
		ev(c, TCP_EV_CLOSED);
		break;
	default:
		break;
	}
	/* TIME-WAIT stops the timers; the ACK of the FIN still goes out now */
	send_ack(c);
}

/* SYN-SENT (RFC 9293 3.10.7.3). */
static void input_syn_sent(struct tcp_conn *c, const struct tp_tcp_hdr *h,
			   const struct tp_tcp_opts *o)
{
	struct fetch_net *n = c->net;
	bool ack_ok =
	    (h->flags & TP_TCP_ACK) && tp_seq_gt(h->ack, c->iss) && tp_seq_le(h->ack, c->snd_nxt);

	if ((h->flags & TP_TCP_ACK) && !ack_ok) {
		if (!(h->flags & TP_TCP_RST))
			send_rst_for(n, c->rip, h, 0);
		n->c.drop_tcp_window++;
		return;
	}
	if (h->flags & TP_TCP_RST) {
		if (ack_ok) {
			n->c.tcp_rst_rcvd++;
			set_state(c, TCP_CLOSED);
			ev(c, TCP_EV_REFUSED);
		}
		return;
	}
	if (!(h->flags & TP_TCP_SYN) || !ack_ok) {
		n->c.drop_tcp_window++; /* a simultaneous open is not ours to accept */
		return;
	}
	n->c.tcp_segments_in++;
	c->irs = h->seq;
	c->rcv_nxt = h->seq + 1;
	c->snd_una = h->ack;
	c->snd_wl1 = h->seq;
	c->snd_wl2 = h->ack;
	if (o->has_mss)
		c->mss = o->mss < our_mss(n) ? o->mss : our_mss(n);
	if (c->mss < 64)
		c->mss = 64; /* a sender's floor against tiny MSS values */
	if (o->has_ws) {
		c->snd_ws = o->ws; /* RFC 7323 2.2: both sent it */
	} else {
		c->snd_ws = 0;
		c->rcv_ws = 0;
		if (c->rcv_wnd > 65535)
			c->rcv_wnd = 65535;
	}
	c->snd_wnd = c->max_snd_wnd = h->win; /* unscaled in a SYN */
	c->sack_ok = o->sack_perm;
	c->ts_ok = o->has_ts;
	if (c->ts_ok) {
		c->ts_recent = o->tsval;
		c->ts_recent_at = n->now;
		if (o->tsecr)
			rtt_sample(c, ts_now(c) - o->tsecr);
	} else if (c->rtt_timing && c->retries == 0) {
		rtt_sample(c, (uint32_t)((n->now - c->rtt_at) / (n->hz / 1000)));
	}
	c->rtt_timing = false;
	c->retries = 0;
	c->rto_at = 0;
	set_state(c, TCP_ESTABLISHED);
	c->ack_now = true;
	ev(c, TCP_EV_ESTABLISHED);
}

/* A segment for c in a synchronized state (RFC 9293 3.10.7.4). Takes m. */
static void input_sync(struct tcp_conn *c, struct rte_mbuf *m, const struct tp_tcp_hdr *h,
		       const struct tp_tcp_opts *o, const uint8_t *data, uint32_t len)
{
	struct fetch_net *n = c->net;
	uint32_t seq = h->seq;
	bool fin = h->flags & TP_TCP_FIN;
	uint32_t seglen = len + ((h->flags & TP_TCP_SYN) ? 1 : 0) + (fin ? 1 : 0);
	uint32_t wnd = c->rcv_wnd;

	/* PAWS (RFC 7323 5.3): an older timestamp than ts_recent is a wrapped old
	 * duplicate; RSTs are exempt (5.3 R1) */
	if (c->ts_ok && o->has_ts && !(h->flags & TP_TCP_RST) &&
	    (int32_t)(o->tsval - c->ts_recent) < 0) {
		n->c.drop_tcp_paws++;
		send_ack(c);
		goto free;
	}
	/* SYN in a synchronized state, whatever its sequence number (RFC 5961 4.2): a
	 * challenge ACK */
	if (h->flags & TP_TCP_SYN) {
		n->c.tcp_challenge_acks++;
		send_ack(c);
		goto free;
	}
	/* acceptability (3.10.7.4, first check) */
	bool ok;
	if (seglen == 0)
		ok = tp_seq_ge(seq, c->rcv_nxt) && tp_seq_lt(seq, c->rcv_nxt + wnd);
	else
		ok = (tp_seq_ge(seq, c->rcv_nxt) && tp_seq_lt(seq, c->rcv_nxt + wnd)) ||
		     (tp_seq_ge(seq + seglen - 1, c->rcv_nxt) &&
		      tp_seq_lt(seq + seglen - 1, c->rcv_nxt + wnd));
	if (!ok) {
		if (seglen && tp_seq_le(seq + seglen, c->rcv_nxt)) {
			c->dup_segs++;
			n->c.tcp_dup++;
		} else {
			n->c.drop_tcp_window++;
		}
		if (!(h->flags & TP_TCP_RST))
			send_ack(c); /* RFC 5681 4.2: an immediate ACK for a duplicate */
		goto free;
	}
	/* RST (RFC 5961 3.2): exactly rcv_nxt resets, elsewhere in the window is
	 * challenged */
	if (h->flags & TP_TCP_RST) {
		if (seq == c->rcv_nxt) {
			n->c.tcp_rst_rcvd++;
			bool closing = c->state == TCP_TIME_WAIT || c->state == TCP_LAST_ACK ||
				       c->state == TCP_CLOSING;
			set_state(c, TCP_CLOSED);
			ev(c, closing ? TCP_EV_CLOSED : TCP_EV_RESET);
		} else {
			n->c.tcp_challenge_acks++;
			send_ack(c);
		}
		goto free;
	}
	if (!(h->flags & TP_TCP_ACK))
		goto free;
	n->c.tcp_segments_in++;
	/* RFC 7323 4.3: ts_recent from a segment that covers Last.ACK.sent */
	if (c->ts_ok && o->has_ts && tp_seq_le(seq, c->last_ack_sent) &&
	    (int32_t)(o->tsval - c->ts_recent) >= 0) {
		c->ts_recent = o->tsval;
		c->ts_recent_at = n->now;
	}

	/* ACK (3.10.7.4, fifth check) */
	if (tp_seq_gt(h->ack, c->snd_max)) {
		send_ack(c);
		goto free;
	}
	/* RFC 5961 5.2: an ACK below SND.UNA - MAX.SND.WND is dropped and answered with an
	 * ACK; tighter still, nothing before our ISS + 1 was ever sent: a blind injector
	 * must guess the request's few hundred sequence numbers, not a window's */
	uint32_t ack_min =
	    c->snd_una - c->iss - 1 < c->max_snd_wnd ? c->iss + 1 : c->snd_una - c->max_snd_wnd;
	if (tp_seq_lt(h->ack, ack_min)) {
		n->c.drop_tcp_ack_old++;
		n->c.tcp_challenge_acks++;
		send_ack(c);
		goto free;
	}
	if (tp_seq_gt(h->ack, c->snd_una)) {
		uint32_t acked = h->ack - c->snd_una;
		uint32_t data_acked = acked < c->sbuf_len ? acked : c->sbuf_len;
		memmove(c->sbuf, c->sbuf + data_acked, c->sbuf_len - data_acked);
		c->sbuf_len -= data_acked;
		c->snd_una = h->ack;
		if (tp_seq_lt(c->snd_nxt, c->snd_una))
			c->snd_nxt = c->snd_una;
		if (c->ts_ok && o->has_ts && o->tsecr && c->retries == 0)
			rtt_sample(c, ts_now(c) - o->tsecr);
		else if (c->rtt_timing && tp_seq_gt(h->ack, c->rtt_seq))
			rtt_sample(c, (uint32_t)((n->now - c->rtt_at) / (n->hz / 1000)));
		if (c->rtt_timing && tp_seq_gt(h->ack, c->rtt_seq))
			c->rtt_timing = false;
		c->retries = 0;
		if (c->snd_una == c->snd_max)
			c->rto_at = 0; /* RFC 6298 5.2 */
		else
			arm_rto(c); /* 5.3 */
		bool fin_acked = c->fin_sent && tp_seq_gt(c->snd_una, c->fin_seq);
		if (fin_acked) {
			if (c->state == TCP_FIN_WAIT_1) {
				set_state(c, TCP_FIN_WAIT_2);
			} else if (c->state == TCP_CLOSING) {
				set_state(c, TCP_TIME_WAIT);
				ev(c, TCP_EV_CLOSED);
			} else if (c->state == TCP_LAST_ACK) {
				set_state(c, TCP_CLOSED);
				ev(c, TCP_EV_CLOSED);
				goto free;
			}
		}
	}
	if (tp_seq_lt(c->snd_wl1, seq) || (c->snd_wl1 == seq && tp_seq_le(c->snd_wl2, h->ack))) {
		c->snd_wnd = (uint32_t)h->win << c->snd_ws;
		if (c->snd_wnd > c->max_snd_wnd)
			c->max_snd_wnd = c->snd_wnd;
		c->snd_wl1 = seq;
		c->snd_wl2 = h->ack;
	}

	/* payload and FIN (seventh and eighth checks) */
	if (c->state != TCP_ESTABLISHED && c->state != TCP_FIN_WAIT_1 && c->state != TCP_FIN_WAIT_2)
		goto free; /* after the peer's FIN nothing more is taken */
	if (tp_seq_lt(seq, c->rcv_nxt)) {
		uint32_t d = c->rcv_nxt - seq;
		if (d > len) {
			d = len; /* only the FIN is new */
		}
		data += d;
		len -= d;
		seq += d;
	}
	if (tp_seq_gt(seq + len, c->rcv_nxt + wnd)) {
		len = c->rcv_nxt + wnd - seq;
		fin = false;
	}
	if (len == 0 && !fin)
		goto free;
	if (seq != c->rcv_nxt) {
		/* out of order: queued, and an immediate duplicate ACK carrying SACK
		 * (RFC 5681 4.2, RFC 2018 4) */
		c->ooo_segs++;
		n->c.tcp_ooo++;
		ooo_insert(c, m, seq, data, len, fin);
		n->c.tcp_dupacks_sent++;
		send_ack(c);
		return;
	}
	bool gap = c->nooo > 0;
	if (len) {
		c->ops->recv(c->app, c, m, data, len);
		c->rcv_nxt += len;
		c->bytes_in += len;
	}
	if (fin && c->nooo == 0) {
		fin_rcvd(c);
		goto free;
	}
	if (gap) {
		/* it fills (part of) a gap: ACK at once (RFC 5681 4.2) */
		ooo_drain(c);
		if (c->state != TCP_TIME_WAIT && c->state != TCP_CLOSED)
			send_ack(c);
		goto free;
	}
	/* delayed ACK (RFC 5681 4.2): every segment while quick-acking the connection's
	 * start; then a stretch ACK, as Linux's for a GRO batch (see README): sent by
	 * tcp_poll after the burst in which TCP_ACK_STRETCH segments are waiting, or in
	 * the first pass TCP_ACK_IDLE_US after the last segment once two wait; a lone
	 * segment within TCP_DELACK_MS */
	c->segs_unacked++;
	c->last_seg_at = n->now;
	if (c->quickack) {
		c->quickack--;
		send_ack(c);
	} else if (c->segs_unacked >= TCP_ACK_STRETCH) {
		c->ack_now = true;
	} else if (c->delack_at == 0) {
		c->delack_at = n->now + ms_to_tsc(n, TCP_DELACK_MS);
	}
free:
	rte_pktmbuf_free(m);
}

void tcp_input(struct fetch_net *n, struct rte_mbuf *m, uint32_t src, uint8_t *seg, size_t len)
{
	struct tp_tcp_hdr h;
	struct tp_tcp_opts o;
	struct tcp_conn *c = NULL;

	if (tp_tcp_parse(seg, len, &h, &o) != TP_TCP_OK) {
		n->c.drop_tcp_bad++;
		goto free;
	}
	if (!tp_tcp_cksum_ok(seg, len, htonl(src), htonl(n->ip))) {
		n->c.drop_tcp_cksum++;
		goto free;
	}
	for (int i = 0; i < FETCH_MAX_CONN; i++) {
		struct tcp_conn *k = n->conns[i];
		if (k && k->lport == h.dport && k->rport == h.sport && k->rip == src &&
		    k->state != TCP_CLOSED) {
			c = k;
			break;
		}
	}
	if (c == NULL) {
		n->c.drop_tcp_no_conn++;
		if (!(h.flags & TP_TCP_RST))
			send_rst_for(n, src, &h,
				     (uint32_t)(len - h.hlen) + ((h.flags & TP_TCP_SYN) ? 1 : 0) +
					 ((h.flags & TP_TCP_FIN) ? 1 : 0));
		goto free;
	}
	if (c->state == TCP_SYN_SENT) {
		input_syn_sent(c, &h, &o);
		goto free;
	}
	input_sync(c, m, &h, &o, seg + h.hlen, (uint32_t)(len - h.hlen));
	return;
free:
	rte_pktmbuf_free(m);
}

bool tcp_icmp_error(struct fetch_net *n, uint32_t dst, const uint8_t *th, uint8_t type,
		    uint8_t code)
{
	uint16_t sport = (uint16_t)(th[0] << 8 | th[1]), dport = (uint16_t)(th[2] << 8 | th[3]);
	uint32_t seq = (uint32_t)th[4] << 24 | (uint32_t)th[5] << 16 | (uint32_t)th[6] << 8 | th[7];

	for (int i = 0; i < FETCH_MAX_CONN; i++) {
		struct tcp_conn *c = n->conns[i];
		if (c == NULL || c->rip != dst || c->lport != sport || c->rport != dport ||
		    c->state == TCP_CLOSED)
			continue;
		/* RFC 5927 4.1: only for a sequence number in flight */
		if (tp_seq_lt(seq, c->snd_una) || tp_seq_gt(seq, c->snd_max))
			return false;
		c->icmp_type = type;
		c->icmp_code = code;
		/* RFC 1122 4.2.3.9: protocol and port unreachable are hard errors; the
		 * rest (net, host unreachable, time exceeded) soft ones, reported if the
		 * connection then times out. Fragmentation needed: our MSS keeps us
		 * under the path's MTU, and DF is never set. */
		if (type == 3 && (code == 2 || code == 3) && c->state == TCP_SYN_SENT) {
			set_state(c, TCP_CLOSED);
			ev(c, TCP_EV_UNREACHABLE);
		} else if (type == 3 && code != 4) {
			c->soft_err = code + 1;
		} else if (type == 11) {
			c->soft_err = 100;
		}
		return true;
	}
	return false;
}
