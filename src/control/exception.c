/* SPDX-License-Identifier: BSD-3-Clause */
/* Exception I/O between the workers' rings and the TAPs. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "../core/log.h"
#include "../core/tp.h"
#include "control.h"
#include "exception.h"

struct tp_exc_stats tp_exc_stats;
static unsigned int rr; /* next worker to inject through */

int tp_exc_init(unsigned int ring_size)
{
	char name[RTE_RING_NAMESIZE];

	for (unsigned int i = 0; i < tp.n_workers; i++) {
		struct tp_worker *w = tp.workers[i];
		snprintf(name, sizeof(name), "tp_exc_%u", i);
		w->exc_ring = rte_ring_create(name, ring_size, SOCKET_ID_ANY,
					      RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "tp_inj_%u", i);
		w->inject_ring = rte_ring_create(name, ring_size, SOCKET_ID_ANY,
						 RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (w->exc_ring == NULL || w->inject_ring == NULL)
			return -rte_errno;
	}
	return 0;
}

static void ring_drain_free(struct rte_ring *r)
{
	void *m;

	while (r && rte_ring_dequeue(r, &m) == 0)
		rte_pktmbuf_free(m);
}

void tp_exc_fini(void)
{
	for (unsigned int i = 0; i < tp.n_workers; i++) {
		ring_drain_free(tp.workers[i]->exc_ring);
		ring_drain_free(tp.workers[i]->inject_ring);
		rte_ring_free(tp.workers[i]->exc_ring);
		rte_ring_free(tp.workers[i]->inject_ring);
	}
}

void tp_exc_tick(void)
{
	struct rte_mbuf *pkts[64];
	static uint8_t buf[RTE_MBUF_DEFAULT_BUF_SIZE];

	for (unsigned int i = 0; i < tp.n_workers; i++) {
		unsigned int n = rte_ring_sc_dequeue_burst(tp.workers[i]->exc_ring, (void **)pkts,
							   RTE_DIM(pkts), NULL);
		for (unsigned int j = 0; j < n; j++) {
			struct rte_mbuf *m = pkts[j];
			struct tp_port *p = tp_port_by_id(m->port);
			uint8_t r = tp_mbuf_priv(m)->punt;

			if (r < TP_PUNT_MAX)
				tp_exc_stats.punt[r]++;
			if (p == NULL) {
				tp_exc_stats.no_port++;
			} else {
				const void *data = rte_pktmbuf_read(m, 0, m->pkt_len, buf);
				if (data == NULL || write(p->tap_fd, data, m->pkt_len) < 0)
					tp_exc_stats.tap_errors++;
				else
					tp_exc_stats.to_kernel++;
			}
			rte_pktmbuf_free(m);
		}
	}
}

static void tap_readable(int fd, void *arg)
{
	struct tp_port *p = arg;

	for (int budget = 64; budget > 0; budget--) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(tp_ctl_pool);
		ssize_t len;

		if (m == NULL) {
			uint8_t sink[RTE_MBUF_DEFAULT_BUF_SIZE];
			tp_exc_stats.nombuf++;
			if (read(fd, sink, sizeof(sink)) <= 0) /* drop it rather than spin */
				return;
			continue;
		}
		len = read(fd, rte_pktmbuf_mtod(m, void *), rte_pktmbuf_tailroom(m));
		if (len <= 0) {
			if (len < 0 && errno != EAGAIN)
				tp_exc_stats.tap_errors++;
			rte_pktmbuf_free(m);
			return;
		}
		m->data_len = m->pkt_len = (uint32_t)len;
		m->port = p->id;
		struct tp_worker *w = tp.workers[rr++ % tp.n_workers];
		if (rte_ring_sp_enqueue(w->inject_ring, m) != 0) {
			tp_exc_stats.inject_full++;
			rte_pktmbuf_free(m);
			continue;
		}
		tp_exc_stats.from_kernel++;
	}
}

int tp_exc_attach(struct tp_port *p)
{
	return tp_ctl_add_fd(p->tap_fd, tap_readable, p);
}

void tp_exc_detach(struct tp_port *p)
{
	tp_ctl_del_fd(p->tap_fd);
}
