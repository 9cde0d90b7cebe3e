/* SPDX-License-Identifier: BSD-3-Clause */
/* The data-plane lcore loops (one per role), punting, transmit buffers, quiescent states. */
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_jhash.h>
#include <rte_lcore.h>
#include <rte_rcu_qsbr.h>

#include "../tables/iface.h"
#include "nf.h"
#include "ring.h"
#include "tp.h"
#include "worker.h"

/* Refill a token bucket (tokens, last_tsc) to now, at most max, and take cost from it:
 * false when it holds less. */
static inline bool bucket_take(uint64_t *tokens, uint64_t *last_tsc, uint64_t now, uint64_t cost,
			       uint64_t max)
{
	*tokens += now - *last_tsc;
	*last_tsc = now;
	if (*tokens > max)
		*tokens = max;
	if (*tokens < cost)
		return false;
	*tokens -= cost;
	return true;
}

void tp_punt(struct tp_worker *w, struct rte_mbuf *m, unsigned int id, enum tp_punt_class cls)
{
	struct tp_tbucket *tb = &w->tb[m->port][cls];
	uint64_t now = rte_rdtsc();
	uint64_t cost = __atomic_load_n(&tb->cost, __ATOMIC_RELAXED);
	uint64_t max = __atomic_load_n(&tb->max_tokens, __ATOMIC_RELAXED);
	struct tp_mbuf_priv *pv;

	if (!bucket_take(&tb->tokens, &tb->last_tsc, now, cost, max)) {
		tp_drop(w, m, TP_DROP_EXC_RATELIMITED);
		return;
	}
	if (unlikely(w->obs & TP_OBS_TRACE))
		tp_trace_pkt(w, m, TP_TRACE_PUNT, NULL, id, cls);
	pv = tp_mbuf_priv(m);
	pv->punt_reason = (uint16_t)id;
	pv->punt_class = (uint8_t)cls;
	/* counted before the enqueue: the control plane owns m after it */
	w->ctr[m->port][id]++;
	w->st.port[m->port].exc++;
	if (rte_ring_sp_enqueue(w->exc_ring[tp_punt_ring(cls)], m) != 0) {
		w->ctr[m->port][id]--;
		w->st.port[m->port].exc--;
		tp_drop(w, m, TP_DROP_EXC_RING_FULL);
		return;
	}
	w->st.exc++;
}

void tp_punt_src(struct tp_worker *w, struct rte_mbuf *m, unsigned int id, enum tp_punt_class cls,
		 uint32_t src)
{
	const struct tp_tbucket *tb = &w->tb[m->port][cls];
	uint32_t h = rte_jhash_3words(src, m->port, (uint32_t)cls, w->src_seed);
	struct tp_src_bucket *s = &w->src_tb[h & (TP_PUNT_SRC_SLOTS - 1)];
	uint64_t now = rte_rdtsc();
	uint64_t cost = __atomic_load_n(&tb->cost, __ATOMIC_RELAXED);
	uint64_t max = __atomic_load_n(&tb->max_tokens, __ATOMIC_RELAXED);

	cost = cost > UINT64_MAX / 8 ? UINT64_MAX / 2 : cost * TP_PUNT_SRC_SHARE;
	if (max < cost)
		max = cost;
	if (!bucket_take(&s->tokens, &s->last_tsc, now, cost, max)) {
		tp_drop(w, m, TP_DROP_EXC_SRC_RATELIMITED);
		return;
	}
	tp_punt(w, m, id, cls);
}

void tp_worker_tx_flush_port(struct tp_worker *w, uint16_t p)
{
	struct tp_txbuf *b = &w->txb[p];
	uint16_t sent = 0;
	int up = __atomic_load_n(&tp_iface_table[p].up, __ATOMIC_ACQUIRE);

	w->tx_dirty &= ~(1ull << p);
	if (b->n == 0)
		return;
	if (likely(up)) {
		rte_spinlock_t *lock = w->txq_lock[p];
		if (unlikely(w->obs))
			tp_obs_tx(w, p, b->pkts, b->n);
		if (unlikely(lock != NULL))
			rte_spinlock_lock(lock);
		sent = rte_eth_tx_burst(p, w->txq[p], b->pkts, b->n);
		if (unlikely(lock != NULL))
			rte_spinlock_unlock(lock);
	}
	w->st.tx += sent;
	w->st.port[p].tx += sent;
	if (unlikely(sent < b->n)) {
		unsigned int id = up ? TP_DROP_TX_FULL : TP_DROP_PORT_DOWN;
		/* counted on the output port: these frames were for it */
		w->ctr[p][id] += b->n - sent;
		if (unlikely(w->obs & TP_OBS_TRACE))
			for (unsigned int i = sent; i < b->n; i++)
				tp_trace_pkt(w, b->pkts[i], TP_TRACE_DROP, NULL, id, 0);
		rte_pktmbuf_free_bulk(&b->pkts[sent], b->n - sent);
	}
	b->n = 0;
}

void tp_worker_tx_flush(struct tp_worker *w)
{
	uint64_t mask = w->tx_dirty;

	while (mask) {
		unsigned int p = (unsigned int)__builtin_ctzll(mask);
		mask &= mask - 1;
		tp_worker_tx_flush_port(w, (uint16_t)p);
	}
}

/* Frames the control plane wants sent (from the TAPs): mbuf->port is the output port. */
static unsigned int drain_inject(struct tp_worker *w)
{
	struct rte_mbuf *pkts[TP_BURST];
	unsigned int n = rte_ring_sc_dequeue_burst(w->inject_ring, (void **)pkts, TP_BURST, NULL);

	for (unsigned int i = 0; i < n; i++)
		tp_worker_tx_enqueue(w, pkts[i], pkts[i]->port);
	if (n)
		tp_worker_tx_flush(w);
	return n;
}

/* Receive on every queue the lcore polls and give each burst to its port's input
 * function. The configuration is read again for each queue: an input function may
 * report a quiescent state (tp_worker_keepalive), after which the one read before
 * may be gone. */
static unsigned int poll_rxqs(struct tp_worker *w)
{
	struct rte_mbuf *pkts[TP_BURST];
	unsigned int work = 0;

	for (unsigned int q = 0;; q++) {
		const struct tp_lcore_conf *c = __atomic_load_n(&w->conf, __ATOMIC_ACQUIRE);
		if (q >= c->n_rxq)
			break;
		uint16_t port = c->rxq[q].port;
		uint16_t n = rte_eth_rx_burst(port, c->rxq[q].queue, pkts, TP_BURST);
		if (n == 0)
			continue;
		work += n;
		w->st.rx += n;
		w->st.port[port].rx += n;
		if (unlikely(w->obs))
			tp_obs_rx(w, port, c->rxq[q].queue, pkts, n);
		tp_iface_table[port].input(w, pkts, n);
		tp_worker_tx_flush(w);
	}
	return work;
}

static unsigned int poll_rings(struct tp_worker *w)
{
	struct rte_mbuf *pkts[TP_BURST];
	unsigned int work = 0;

	for (unsigned int i = 0;; i++) {
		const struct tp_lcore_conf *c = __atomic_load_n(&w->conf, __ATOMIC_ACQUIRE);
		if (i >= c->n_rings)
			break;
		struct tp_ring *r = c->rings[i];
		unsigned int n = rte_ring_sc_dequeue_burst(r->r, (void **)pkts, TP_BURST, NULL);
		if (n == 0)
			continue;
		work += n;
		r->dequeued += n;
		r->fn(w, pkts, (uint16_t)n, r->ctx);
	}
	if (work)
		tp_worker_tx_flush(w);
	return work;
}

/* The role's own loop body: what one pass does. */
static unsigned int loop_worker(struct tp_worker *w)
{
	return poll_rxqs(w) + poll_rings(w);
}

static unsigned int loop_input(struct tp_worker *w)
{
	return poll_rxqs(w);
}

static unsigned int loop_rings(struct tp_worker *w)
{
	return poll_rings(w);
}

static unsigned int (*const role_loop[TP_ROLE_MAX])(struct tp_worker *w) = {
    [TP_ROLE_WORKER] = loop_worker,
    [TP_ROLE_INPUT] = loop_input,
    [TP_ROLE_FORWARDING] = loop_rings,
    [TP_ROLE_OUTPUT] = loop_rings,
};

void tp_worker_keepalive(struct tp_worker *w)
{
	drain_inject(w);
	tp_worker_tx_flush(w);
	rte_rcu_qsbr_quiescent(tp.qs, w->id);
}

RTE_DEFINE_PER_LCORE(struct tp_worker *, tp_worker_self);

int tp_worker_main(void *arg)
{
	struct tp_worker *w = arg;
	uint32_t idle = 0, sleep_us = 1;
	uint64_t t0;
	const uint64_t long_pass = tp.tsc_hz / 1000000 * TP_LONG_PASS_US;

	RTE_PER_LCORE(tp_worker_self) = w;
	rte_rcu_qsbr_thread_register(tp.qs, w->id);
	rte_rcu_qsbr_thread_online(tp.qs, w->id);
	w->st.start_tsc = rte_rdtsc();
	for (unsigned int p = 0; p < TP_MAX_PORTS; p++)
		for (unsigned int c = 0; c < TP_PUNT_CLASSES; c++)
			w->tb[p][c].last_tsc = w->st.start_tsc;
	t0 = w->now = w->st.start_tsc;

	/* One TSC read per iteration, at its end: that is also where the next
	 * iteration starts, so a busy iteration's cycles are t1 - t0. */
	while (likely(tp.running)) {
		const struct tp_lcore_conf *c = __atomic_load_n(&w->conf, __ATOMIC_ACQUIRE);
		unsigned int work = role_loop[c->role](w);
		uint64_t t1;

		for (unsigned int i = 0; i < tp_nf_n_polls; i++)
			work += tp_nf_polls[i]->poll(w, w->nf_state[tp_nf_polls[i]->id]);
		work += drain_inject(w);
		rte_rcu_qsbr_quiescent(tp.qs, w->id);
		w->st.polls++;
		t1 = rte_rdtsc();
		if (unlikely(t1 - w->now > long_pass)) {
			w->st.long_passes++;
			w->st.long_pass_cycles += t1 - w->now;
		}
		w->now = t1;
		if (work) {
			w->st.busy_cycles += t1 - t0;
			t0 = t1;
			idle = 0;
			sleep_us = 1;
			continue;
		}
		t0 = t1;
		w->st.idle_polls++;
		/* as grout does: after many empty polls, sleep a little (off for benchmarks) */
		if (tp.backoff && ++idle > 256) {
			rte_rcu_qsbr_thread_offline(tp.qs, w->id);
			rte_delay_us_sleep(sleep_us);
			rte_rcu_qsbr_thread_online(tp.qs, w->id);
			if (sleep_us < tp.backoff_max_us)
				sleep_us *= 2;
			t0 = w->now = rte_rdtsc(); /* the sleep is not the next iteration's */
		}
	}
	tp_worker_tx_flush(w);
	rte_rcu_qsbr_thread_offline(tp.qs, w->id);
	rte_rcu_qsbr_thread_unregister(tp.qs, w->id);
	return 0;
}
