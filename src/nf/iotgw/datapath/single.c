/* SPDX-License-Identifier: BSD-3-Clause */
/* Single-plane mode (--single-plane): the architecture seed 000 replaced, kept as
 * its baseline. Signaling is handled on the worker that received it, inline: the
 * session manager runs there, answers leave from the worker, and registering a
 * device on the IN-CSE waits, on the worker, for each answer (polling the
 * worker's receive queues for it). Whatever else arrives meanwhile waits in a
 * per-worker backlog (bounded: excess is dropped and counted), and is processed
 * after the signaling message, as in a single-plane system the queue behind a
 * slow message waits.
 *
 * The worker is the AE table's writer while it handles a signaling message; the
 * control thread (session timeouts) takes the same lock (trying, never waiting).
 * While it waits the worker stays an RCU reader: it reads the route and next-hop
 * tables and its queue list, and reports a quiescent state on every pass of the
 * wait (tp_worker_keepalive), between which it holds no pointer into them. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mempool.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include "../../../control/control.h"
#include "../../../control/port.h"
#include "../../../control/timer.h"
#include "../../../core/input.h"
#include "../../../core/log.h"
#include "../../../core/tp.h"
#include "../../ip4/control/nexthop.h"
#include "../../ip4/control/nhg.h"
#include "../../ip4/ip4.h"
#include "../../ip4/control/route.h"
#include "fast.h"
#include "../iotgw.h"
#include "../control/control.h"
#include "single.h"

#define BACKLOG 4096

#define POOL_SIZE 2047

static rte_spinlock_t lock = RTE_SPINLOCK_INITIALIZER;
/* what the worker itself sends while handling signaling: its own pool, so a
 * backlog that holds every buffer of the ports' pools cannot block the wait */
static struct rte_mempool *pool;
static struct rte_ring *backlog[TP_MAX_WORKERS];
static int draining[TP_MAX_WORKERS];
static int ping_sock = -1;
static struct tp_timer ping_timer;

int tp_iotgw_single_trylock(void)
{
	return rte_spinlock_trylock(&lock);
}

void tp_iotgw_single_unlock(void)
{
	rte_spinlock_unlock(&lock);
}

struct single_ctx {
	struct tp_iotgw_io io;
	struct tp_iotgw_reg_link link;
	struct tp_worker *w;
	struct tp_iotgw_dp *dp;
	struct rte_mbuf *req; /* the signaling message being handled */
};

static uint64_t tsc_ms(void)
{
	return rte_rdtsc() / (tp.tsc_hz / 1000);
}

/* An answer to the agent: a copy of the request's headers, turned around. */
static int agent_send(struct tp_iotgw_io *io, const uint8_t *buf, size_t len, uint32_t ip,
		      uint16_t port)
{
	struct single_ctx *c = (struct single_ctx *)io;
	struct rte_mbuf *req = c->req, *m = rte_pktmbuf_alloc(pool);
	uint8_t *src = rte_pktmbuf_mtod(req, uint8_t *);
	size_t ihl = (size_t)(src[TP_ETH_HDR_LEN] & 0x0f) * 4;

	(void)ip;
	(void)port; /* the request's own source: the session manager answers its sender */
	if (m == NULL) {
		c->dp->ctr[TP_IOTGW_NOMBUF]++;
		return -ENOMEM;
	}
	uint8_t *dst = rte_pktmbuf_mtod(m, uint8_t *);
	memcpy(dst, src, TP_ETH_HDR_LEN + TP_IP4_HDR_LEN);
	memcpy(dst + TP_ETH_HDR_LEN + TP_IP4_HDR_LEN, src + TP_ETH_HDR_LEN + ihl, 8);
	m->port = req->port;
	tp_iotgw_reply(c->w, m, dst + TP_ETH_HDR_LEN, dst + TP_ETH_HDR_LEN + TP_IP4_HDR_LEN, buf,
		       len);
	tp_worker_tx_flush(c->w);
	return 0;
}

static int cse_send(struct tp_iotgw_reg_link *l, const uint8_t *buf, size_t len)
{
	struct single_ctx *c = RTE_PTR_SUB(l, offsetof(struct single_ctx, link));
	struct rte_mbuf *m;
	size_t room;
	uint8_t *p = tp_iotgw_frame_to(c->dp, pool, &m, &room);

	if (p == NULL)
		return 0; /* counted; the wait times out and the request is sent again */
	if (len > room) {
		rte_pktmbuf_free(m);
		return -EMSGSIZE;
	}
	memcpy(p, buf, len);
	/* not sent (counted by the output): the wait times out and it is sent again */
	(void)tp_iotgw_frame_send(c->w, m, c->req->port, tp_iotgw.cse_ip, TP_IOTGW_REG_SPORT,
				  tp_iotgw.cse_port, len, 0);
	tp_worker_tx_flush(c->w);
	return 0;
}

/* The UDP payload of m if it comes from the IN-CSE's CoAP port, else NULL. */
static const uint8_t *from_cse(struct rte_mbuf *m, size_t *len)
{
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *ip = eth + TP_ETH_HDR_LEN;
	size_t dl = rte_pktmbuf_data_len(m);

	if (dl < TP_IOTGW_HDR_LEN || eth[12] != 0x08 || eth[13] != 0x00 || ip[9] != 17)
		return NULL;
	size_t ihl = (size_t)(ip[0] & 0x0f) * 4;
	uint32_t sip;
	memcpy(&sip, ip + 12, 4);
	const uint8_t *udp = ip + ihl;
	if (ihl < TP_IP4_HDR_LEN || TP_ETH_HDR_LEN + ihl + 8 > dl ||
	    rte_be_to_cpu_32(sip) != tp_iotgw.cse_ip ||
	    (uint16_t)(udp[0] << 8 | udp[1]) != tp_iotgw.cse_port)
		return NULL;
	size_t ulen = (size_t)(udp[4] << 8 | udp[5]);
	if (ulen < 8 || TP_ETH_HDR_LEN + ihl + ulen > dl)
		return NULL;
	*len = ulen - 8;
	return udp + 8;
}

/* While the worker waits, ARP still goes to the kernel (the IN-CSE's answer may
 * need the kernel to resolve a neighbour). 1 if m was ARP (and is gone). */
static int arp_to_kernel(struct tp_worker *w, struct rte_mbuf *m)
{
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);

	if (rte_pktmbuf_data_len(m) >= TP_ETH_HDR_LEN && eth[12] == 0x08 && eth[13] == 0x06) {
		tp_ip4_arp_input(w, &m, 1);
		return 1;
	}
	return 0;
}

/* Wait on the worker's receive queues for one datagram of the IN-CSE. */
static int cse_recv(struct tp_iotgw_reg_link *l, uint8_t *buf, size_t cap, uint64_t deadline)
{
	struct single_ctx *c = RTE_PTR_SUB(l, offsetof(struct single_ctx, link));
	struct tp_worker *w = c->w;
	struct rte_mbuf *pkts[TP_BURST];

	while (tsc_ms() < deadline && tp.running) {
		const struct tp_lcore_conf *conf = __atomic_load_n(&w->conf, __ATOMIC_ACQUIRE);
		for (unsigned int q = 0; conf != NULL && q < conf->n_rxq; q++) {
			uint16_t port = conf->rxq[q].port;
			uint16_t n = rte_eth_rx_burst(port, conf->rxq[q].queue, pkts, TP_BURST);
			int got = -1;
			w->st.rx += n;
			w->st.port[port].rx += n;
			for (uint16_t i = 0; i < n; i++) {
				size_t len;
				const uint8_t *p = got < 0 ? from_cse(pkts[i], &len) : NULL;
				if (p == NULL && arp_to_kernel(w, pkts[i]))
					continue;
				if (p != NULL && len <= cap) {
					memcpy(buf, p, len);
					got = (int)len;
					rte_pktmbuf_free(pkts[i]);
				} else if (rte_ring_sp_enqueue(backlog[w->id], pkts[i]) != 0) {
					tp_drop(w, pkts[i],
						tp_iotgw_nf.ctr_base + TP_IOTGW_BACKLOG_DROP);
				}
			}
			if (got >= 0)
				return got;
		}
		/* what the kernel sends still leaves (its ARP answers among it), and the
		 * tables may change meanwhile: conf is not used past this */
		tp_worker_keepalive(w);
	}
	return -ETIMEDOUT;
}

static uint64_t link_now(struct tp_iotgw_reg_link *l)
{
	(void)l;
	return tsc_ms();
}

static void sync_registration(struct tp_iotgw_io *io, int idx)
{
	struct single_ctx *c = (struct single_ctx *)io;

	(void)tp_iotgw_register_sync(idx, &c->link);
}

/* What arrived while the worker waited: processed now, in order. */
static void drain_backlog(struct tp_worker *w)
{
	struct rte_mbuf *pkts[TP_BURST];
	unsigned int n;

	draining[w->id] = 1;
	while ((n = rte_ring_sc_dequeue_burst(backlog[w->id], (void **)pkts, TP_BURST, NULL)) > 0) {
		tp_input(w, pkts, (uint16_t)n);
		tp_worker_tx_flush(w);
	}
	draining[w->id] = 0;
}

void tp_iotgw_single_input(struct tp_worker *w, struct rte_mbuf *m, const uint8_t *apdu, size_t len,
			   uint32_t ip, uint16_t port)
{
	struct single_ctx c = {
	    /* the control thread's clock: it runs the timeouts (vDSO, no system call) */
	    .io = {.send = agent_send,
		   .registration = sync_registration,
		   .last_seen = tp_iotgw_last_seen,
		   .source_l2 = tp_iotgw_aarq_source,
		   .now_ms = tp_ctl_now_ms()},
	    .link = {.send = cse_send, .recv = cse_recv, .now_ms = link_now},
	    .w = w,
	    .dp = tp_iotgw_wstate(w),
	    .req = m,
	};

	/* frames already processed leave before the wait */
	tp_worker_tx_flush(w);
	/* the control thread only ever tries this lock: held, it skips its turn */
	rte_spinlock_lock(&lock);
	tp_iotgw_session_tick(&c.io); /* GETs left unanswered: register those agents */
	tp_iotgw_session_input(&c.io, apdu, len, ip, port);
	rte_spinlock_unlock(&lock);
	rte_pktmbuf_free(m);
	if (!draining[w->id]) /* the outermost signaling message drains */
		drain_backlog(w);
}

/* Once a second while the IN-CSE's neighbour is unresolved: have the kernel resolve it. */
static void ping_cse(struct tp_timer *t)
{
	uint32_t dst = tp_iotgw.cse_ip, nh;

	tp_route_lookup_bulk(&dst, &nh, 1);
	nh = tp_nhg_resolve(nh, 0); /* ECMP: one member resolved will do */
	if (nh != UINT32_MAX && (tp_nh_l2_flags(tp_nh_l2_load(nh)) & TP_NH_F_RESOLVED))
		return;
	/* a CoAP ping (RFC 7252 4.3: an empty CON; the CSE answers RST) through the
	 * kernel, which resolves the neighbour on the way */
	struct sockaddr_in to = {.sin_family = AF_INET,
				 .sin_port = htons(tp_iotgw.cse_port),
				 .sin_addr.s_addr = htonl(tp_iotgw.cse_ip)};
	const uint8_t ping[4] = {0x40, 0x00, 0x00, 0x01};
	(void)sendto(ping_sock, ping, sizeof(ping), 0, (struct sockaddr *)&to, sizeof(to));
}

/* The backlog rings (the packets still in them freed), the pool and the ping socket
 * and timer: what tp_iotgw_single_init made, all of it, part of it or none (each is
 * reset, so a second call does nothing). The lcores no longer touch them: they
 * stopped, or were never handed a datagram of the gateway. The pool goes once every
 * mbuf is home; one still out (on a port that was not removed) leaves it allocated,
 * logged, rather than freed under it. */
void tp_iotgw_single_fini(void)
{
	struct rte_mbuf *m;

	tp_timer_cancel(&ping_timer);
	if (ping_sock >= 0) {
		close(ping_sock);
		ping_sock = -1;
	}
	for (unsigned int i = 0; i < TP_MAX_WORKERS; i++) {
		if (backlog[i] == NULL)
			continue;
		while (rte_ring_sc_dequeue(backlog[i], (void **)&m) == 0)
			rte_pktmbuf_free(m);
		rte_ring_free(backlog[i]);
		backlog[i] = NULL;
	}
	if (pool != NULL) {
		if (rte_mempool_full(pool))
			rte_mempool_free(pool);
		else
			TP_LOG(WARNING, "iotgw: mempool %s: %u mbufs not home, left allocated",
			       pool->name, rte_mempool_in_use_count(pool));
		pool = NULL;
	}
}

/* The backlog ring of every worker, the pool and the ping socket, and the timer
 * that pings the IN-CSE: 0, or a negative errno with none of them left. */
int tp_iotgw_single_init(void)
{
	char name[32];
	int ret;

	for (unsigned int i = 0; i < tp.n_workers; i++) {
		snprintf(name, sizeof(name), "iotgw_bl%u", i);
		backlog[i] =
		    rte_ring_create(name, BACKLOG, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (backlog[i] == NULL) {
			ret = -rte_errno;
			goto free_rings;
		}
	}
	pool = tp_pool_create("iotgw_sp", POOL_SIZE, 64);
	if (pool == NULL) {
		ret = -rte_errno;
		goto free_rings;
	}
	ping_sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (ping_sock < 0) {
		ret = -errno;
		goto free_pool;
	}
	tp_timer_init(&ping_timer, "iotgw-ping", ping_cse, NULL);
	tp_timer_every(&ping_timer, 1000);
	return 0;
free_pool:
	rte_mempool_free(pool);
	pool = NULL;
free_rings:
	for (unsigned int i = 0; i < tp.n_workers; i++) {
		rte_ring_free(backlog[i]); /* NULL: nothing */
		backlog[i] = NULL;
	}
	return ret < 0 ? ret : -ENOMEM;
}
