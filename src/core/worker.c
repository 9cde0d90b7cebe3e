/* SPDX-License-Identifier: BSD-3-Clause */
/* The worker lcore loop: rx burst, network function, tx burst, quiescent-state report. */
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_rcu_qsbr.h>

#include "../nf/ip4/ip4.h"
#include "../tables/iface.h"
#include "tp.h"
#include "worker.h"

struct tp_global tp;

void tp_exception_rate_set(uint64_t rate, uint64_t burst)
{
	unsigned int n = tp.n_workers ? tp.n_workers : 1;
	uint64_t per = rate / n ? rate / n : 1;
	uint64_t cost = tp.tsc_hz / per;

	for (unsigned int i = 0; i < tp.n_workers; i++) {
		struct tp_tbucket *tb = &tp.workers[i]->tb;
		tb->cost = cost ? cost : 1;
		tb->max_tokens = tb->cost * (burst ? burst : 1);
	}
}

void tp_worker_punt(struct tp_worker *w, struct rte_mbuf *m, enum tp_punt r)
{
	struct tp_tbucket *tb = &w->tb;
	uint64_t now = rte_rdtsc();

	tb->tokens += now - tb->last_tsc;
	tb->last_tsc = now;
	if (tb->tokens > tb->max_tokens)
		tb->tokens = tb->max_tokens;
	if (tb->tokens < tb->cost) {
		tp_worker_drop(w, m, TP_DROP_EXC_RATELIMITED);
		return;
	}
	tb->tokens -= tb->cost;
	tp_mbuf_priv(m)->punt = (uint8_t)r;
	w->st.port[m->port].exc++; /* before the enqueue: the control plane owns m after it */
	if (rte_ring_sp_enqueue(w->exc_ring, m) != 0) {
		w->st.port[m->port].exc--;
		tp_worker_drop(w, m, TP_DROP_EXC_RING_FULL);
		return;
	}
	w->st.exc++;
}

void tp_worker_tx_flush(struct tp_worker *w)
{
	uint64_t mask = w->tx_dirty;

	while (mask) {
		unsigned int p = (unsigned int)__builtin_ctzll(mask);
		struct tp_txbuf *b = &w->txb[p];
		uint16_t sent = 0;

		mask &= mask - 1;
		if (likely(tp_iface_table[p].up))
			sent = rte_eth_tx_burst((uint16_t)p, (uint16_t)w->id, b->pkts, b->n);
		w->st.tx += sent;
		w->st.port[p].tx += sent;
		if (unlikely(sent < b->n)) {
			enum tp_drop r = tp_iface_table[p].up ? TP_DROP_TX_FULL : TP_DROP_PORT_DOWN;
			w->st.drops[r] += b->n - sent;
			w->st.port[p].drop += b->n - sent;
			rte_pktmbuf_free_bulk(&b->pkts[sent], b->n - sent);
		}
		b->n = 0;
	}
	w->tx_dirty = 0;
}

/* Frames the control plane wants sent (from the TAPs): mbuf->port is the output port. */
static unsigned int worker_drain_inject(struct tp_worker *w)
{
	struct rte_mbuf *pkts[TP_BURST];
	unsigned int n = rte_ring_sc_dequeue_burst(w->inject_ring, (void **)pkts, TP_BURST, NULL);

	for (unsigned int i = 0; i < n; i++)
		tp_worker_tx_enqueue(w, pkts[i], pkts[i]->port);
	if (n)
		tp_worker_tx_flush(w);
	return n;
}

int tp_worker_main(void *arg)
{
	struct tp_worker *w = arg;
	uint32_t idle = 0, sleep_us = 1;
	struct rte_mbuf *pkts[TP_BURST];
	uint64_t t0;

	rte_rcu_qsbr_thread_register(tp.qs, w->id);
	rte_rcu_qsbr_thread_online(tp.qs, w->id);
	w->st.start_tsc = rte_rdtsc();
	w->tb.last_tsc = w->st.start_tsc;
	t0 = w->st.start_tsc;

	/* One TSC read per iteration, at its end: that is also where the next
	 * iteration starts, so a busy iteration's cycles are t1 - t0. */
	while (likely(tp.running)) {
		const struct tp_worker_conf *c = __atomic_load_n(&w->conf, __ATOMIC_ACQUIRE);
		unsigned int work = 0;
		uint64_t t1;

		for (unsigned int q = 0; c != NULL && q < c->n_rxq; q++) {
			uint16_t port = c->rxq[q].port;
			uint16_t n = rte_eth_rx_burst(port, c->rxq[q].queue, pkts, TP_BURST);
			if (n == 0)
				continue;
			work += n;
			w->st.rx += n;
			w->st.port[port].rx += n;
			tp_ip4_input(w, pkts, n);
			tp_worker_tx_flush(w);
		}
		work += worker_drain_inject(w);
		rte_rcu_qsbr_quiescent(tp.qs, w->id);
		w->st.polls++;
		t1 = rte_rdtsc();
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
			t0 = rte_rdtsc(); /* the sleep is not the next iteration's */
		}
	}
	rte_rcu_qsbr_thread_offline(tp.qs, w->id);
	rte_rcu_qsbr_thread_unregister(tp.qs, w->id);
	return 0;
}
