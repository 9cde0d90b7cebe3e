/* SPDX-License-Identifier: BSD-3-Clause */
/* twinplane-fetch's TCP client (RFC 9293): active open with MSS, window scaling,
 * SACK-permitted and timestamps; an out-of-order queue of mbufs with SACK blocks
 * (RFC 2018); PAWS (RFC 7323); delayed and immediate ACKs (RFC 5681 4.2); RTO with
 * backoff (RFC 6298) for SYN, request and FIN; FIN and RST both ways. In-order payload
 * goes to the application as a span of the received mbuf, not copied. */
#ifndef TP_FETCH_TCP_H
#define TP_FETCH_TCP_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "../proto/tcp.h"
#include "net.h"

#define TCP_SBUF 8192	 /* the request, unacknowledged or unsent */
#define TCP_OOO_MAX 4096 /* segments in the out-of-order queue */
/* Out-of-order segments over all connections (fetch_net.ooo_budget's default): with the
 * rx ring (2048), the tx ring (1024) and the writers' batches (FETCH_MAX_CONN x DL_IOV =
 * 4096), 8192 stays below the pool (main.c's POOL_MBUFS, 16383): a server or an in-window
 * injector cannot dry it, where 15 queues of TCP_OOO_MAX could (review N16). */
#define TCP_OOO_BUDGET 8192
#define TCP_RTO_INIT_MS 1000 /* RFC 6298 2.1 */
#define TCP_RTO_MIN_MS 200   /* Linux's TCP_RTO_MIN (RFC 6298 2.4 says 1 s; see README) */
#define TCP_RTO_MAX_MS 60000 /* RFC 6298 2.5 */
#define TCP_DELACK_MS 40     /* Linux's minimum delayed-ACK timeout (RFC 5681: < 500) */
#define TCP_QUICKACK_SEGS 16 /* every segment ACKed at first, as Linux's quick-ack mode */
#define TCP_ACK_STRETCH 44   /* segments an ACK may cover: 64 KB, Linux's GRO batch */
#define TCP_ACK_IDLE_US 50   /* or once no segment came for this long (see README) */
#define TCP_RETRIES_MAX 12   /* retransmissions of one segment before giving up */

enum tcp_state {
	TCP_CLOSED = 0,
	TCP_SYN_SENT,
	TCP_ESTABLISHED,
	TCP_FIN_WAIT_1,
	TCP_FIN_WAIT_2,
	TCP_CLOSING,
	TCP_TIME_WAIT,
	TCP_CLOSE_WAIT,
	TCP_LAST_ACK,
};

/* What happened to a connection, told to its application. */
enum tcp_event {
	TCP_EV_ESTABLISHED, /* the handshake completed: send the request */
	TCP_EV_PEER_FIN,    /* the peer sent FIN: no more data */
	TCP_EV_CLOSED,	    /* both FINs exchanged and acknowledged (or TIME_WAIT) */
	TCP_EV_REFUSED,	    /* RST to our SYN */
	TCP_EV_RESET,	    /* RST on the connection */
	TCP_EV_TIMEOUT,	    /* retransmissions exhausted */
	TCP_EV_UNREACHABLE, /* an ICMP error that ends the connection */
};

struct tcp_conn;

struct tcp_ops {
	/* len in-order payload bytes at data, inside m. The callee may keep m past the
	 * call with rte_mbuf_refcnt_update(m, 1) and free it later. */
	void (*recv)(void *app, struct tcp_conn *c, struct rte_mbuf *m, const uint8_t *data,
		     uint32_t len);
	void (*event)(void *app, struct tcp_conn *c, enum tcp_event ev);
};

struct tcp_ooo_seg {
	uint32_t seq, len; /* payload [seq, seq + len) */
	const uint8_t *data;
	struct rte_mbuf *m;
	bool fin; /* FIN follows the payload */
};

struct tcp_conn {
	struct fetch_net *net;
	const struct tcp_ops *ops;
	void *app;
	enum tcp_state state;
	uint32_t rip; /* host order */
	uint16_t rport, lport;

	/* send side */
	uint32_t iss, snd_una, snd_nxt, snd_max, snd_wnd, snd_wl1, snd_wl2;
	uint32_t max_snd_wnd; /* the largest window the peer offered (RFC 5961 5.2) */
	uint8_t snd_ws, rcv_ws;
	uint16_t mss;	   /* the peer's, capped by our MTU */
	uint32_t sbuf_len; /* bytes in sbuf, the first at snd_una (after the SYN) */
	bool fin_queued, fin_sent;
	uint32_t fin_seq;

	/* receive side */
	uint32_t irs, rcv_nxt, rcv_wnd, last_ack_sent;
	bool ts_ok, sack_ok;
	uint32_t ts_recent, ts_offset;
	uint64_t ts_recent_at;	   /* TSC when ts_recent was set */
	unsigned int segs_unacked; /* data segments since the last ACK */
	unsigned int quickack;
	uint64_t delack_at;   /* 0: no ACK pending */
	uint64_t last_seg_at; /* TSC of the pass the last in-order segment came in */
	bool ack_now;	      /* send an ACK at the end of this burst */

	/* out-of-order queue, by sequence, no overlaps */
	unsigned int nooo;
	uint32_t ooo_last_seq; /* the newest segment queued: SACK block 1 (RFC 2018 4) */
	uint32_t sack_prev[3][2];
	unsigned int nsack_prev;
	struct tcp_ooo_seg *ooo; /* TCP_OOO_MAX entries */

	/* retransmission (RFC 6298), times in ms */
	uint64_t rto_at;		       /* TSC; 0: timer off */
	uint32_t rto_ms, srtt_ms8, rttvar_ms4; /* srtt x8, rttvar x4, as Linux keeps them */
	bool rtt_valid;
	unsigned int retries;
	uint32_t rtt_seq; /* Karn: timing this sequence, when no timestamps */
	uint64_t rtt_at;
	bool rtt_timing;

	int soft_err; /* an ICMP unreachable seen while connecting: its code + 1 */
	int icmp_type, icmp_code;

	/* statistics */
	uint64_t bytes_in; /* in-order payload delivered */
	uint64_t ooo_segs; /* segments that arrived out of order */
	uint64_t dup_segs; /* segments wholly received before */
	uint64_t retransmits;

	/* last: tcp_connect() clears everything before it */
	uint8_t sbuf[TCP_SBUF];
};

/* Open c to rip:rport from a random local port; SYN sent now or once the next hop is
 * resolved (tcp_timers retries). rcv_wnd is our window in bytes (up to 2^30). 0 or a
 * negative errno (-ENOSPC: no connection slot, -ENOMEM). */
int tcp_connect(struct fetch_net *n, struct tcp_conn *c, uint32_t rip, uint16_t rport,
		uint32_t rcv_wnd, const struct tcp_ops *ops, void *app);
/* Queue len bytes for sending (copied). 0, or -ENOSPC when the send buffer is full. */
int tcp_send(struct tcp_conn *c, const void *data, uint32_t len);
/* Send FIN after what is queued (active close, or the answer to the peer's FIN). */
void tcp_close(struct tcp_conn *c);
/* Send RST and forget the connection (no event). */
void tcp_abort(struct tcp_conn *c);
/* Release the connection's memory and its queued mbufs (after CLOSED or abort). */
void tcp_free(struct tcp_conn *c);
/* A segment from src (host order), seg[0, len) inside m; consumes m. */
void tcp_input(struct fetch_net *n, struct rte_mbuf *m, uint32_t src, uint8_t *seg, size_t len);
/* An ICMP error (type, code) about a datagram we sent to dst whose TCP header starts at
 * th (8 bytes). True if it was about one of our connections. */
bool tcp_icmp_error(struct fetch_net *n, uint32_t dst, const uint8_t *th, uint8_t type,
		    uint8_t code);
/* Timers of every connection (retransmission, delayed ACK); the ACKs a burst made
 * due. Call once per loop pass, after the received burst. */
void tcp_poll(struct fetch_net *n);
const char *tcp_state_name(enum tcp_state s);

#endif
