/* SPDX-License-Identifier: BSD-3-Clause */
/* Exception I/O between the lcores' rings and the TAPs. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "../core/log.h"
#include "../core/tp.h"
#include "control.h"
#include "exception.h"

#define MAX_SEGS 64
#define DRAIN_BUDGET 256 /* frames per ring and pass: the loop has other work */
/* the largest frame a port's MTU admits: Ethernet header and one 802.1Q tag */
#define FRAME_MAX(mtu) ((uint32_t)(mtu) + RTE_ETHER_HDR_LEN + 4)
#define SPILL_MAX (65536)

struct tp_exc_stats tp_exc_stats;
static unsigned int rr; /* next lcore to inject through */

/* Write m to p's TAP as it is (one iovec per segment). 1 if written. */
static int to_tap(struct tp_port *p, struct rte_mbuf *m)
{
	struct iovec iov[MAX_SEGS];
	unsigned int n = 0;

	if (m->pkt_len > FRAME_MAX(p->mtu) || m->nb_segs > MAX_SEGS) {
		tp_exc_stats.oversize_to_kernel++;
		return 0;
	}
	for (struct rte_mbuf *s = m; s != NULL; s = s->next)
		iov[n++] = (struct iovec){rte_pktmbuf_mtod(s, void *), s->data_len};
	if (writev(p->tap_fd, iov, (int)n) < 0) {
		tp_exc_stats.tap_errors++;
		return 0;
	}
	tp_exc_stats.to_kernel++;
	return 1;
}

static unsigned int drain(struct rte_ring *r, bool control)
{
	struct rte_mbuf *pkts[64];
	unsigned int total = 0, n;

	do {
		n = rte_ring_sc_dequeue_burst(r, (void **)pkts, RTE_DIM(pkts), NULL);
		for (unsigned int j = 0; j < n; j++) {
			struct tp_port *p = tp_port_by_id(pkts[j]->port);
			if (p == NULL)
				tp_exc_stats.no_port++;
			else if (to_tap(p, pkts[j]) && control)
				tp_exc_stats.to_kernel_control++;
			rte_pktmbuf_free(pkts[j]);
		}
		total += n;
	} while (n == RTE_DIM(pkts) && total < DRAIN_BUDGET);
	return total;
}

/* Control class first, from every lcore; then the rest. */
static unsigned int exc_poll(void)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < tp.n_workers; i++)
		n += drain(tp.workers[i]->exc_ring[0], true);
	for (unsigned int i = 0; i < tp.n_workers; i++)
		n += drain(tp.workers[i]->exc_ring[1], false);
	return n;
}

int tp_exc_init(void)
{
	return tp_ctl_add_poller(exc_poll);
}

/* One frame from the kernel into a chain of control-pool mbufs (the first one's
 * room, then spill for the rest). NULL: no mbuf (counted). */
static struct rte_mbuf *frame_from(struct rte_mbuf *m, const uint8_t *spill, size_t len)
{
	size_t first = RTE_MIN(len, (size_t)rte_pktmbuf_tailroom(m));
	struct rte_mbuf *last = m;

	m->data_len = (uint16_t)first;
	m->pkt_len = (uint32_t)len;
	for (size_t off = first; off < len;) {
		struct rte_mbuf *s = rte_pktmbuf_alloc(tp_ctl_pool);
		size_t k;
		if (s == NULL) {
			tp_exc_stats.nombuf++;
			rte_pktmbuf_free(m);
			return NULL;
		}
		k = RTE_MIN(len - off, (size_t)rte_pktmbuf_tailroom(s));
		memcpy(rte_pktmbuf_mtod(s, void *), spill + (off - first), k);
		s->data_len = (uint16_t)k;
		last->next = s;
		last = s;
		m->nb_segs++;
		off += k;
	}
	return m;
}

static void tap_readable(int fd, void *arg)
{
	static uint8_t spill[SPILL_MAX];
	struct tp_port *p = arg;

	for (int budget = 64; budget > 0; budget--) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(tp_ctl_pool);
		struct iovec iov[2];
		ssize_t len;

		if (m == NULL) {
			tp_exc_stats.nombuf++;
			if (read(fd, spill, sizeof(spill)) <= 0) /* drop it rather than spin */
				return;
			continue;
		}
		iov[0] = (struct iovec){rte_pktmbuf_mtod(m, void *), rte_pktmbuf_tailroom(m)};
		iov[1] = (struct iovec){spill, sizeof(spill)};
		len = readv(fd, iov, 2);
		if (len <= 0) {
			if (len < 0 && errno != EAGAIN)
				tp_exc_stats.tap_errors++;
			rte_pktmbuf_free(m);
			return;
		}
		if ((size_t)len > FRAME_MAX(p->mtu)) {
			tp_exc_stats.oversize_from_kernel++;
			rte_pktmbuf_free(m);
			continue;
		}
		m = frame_from(m, spill, (size_t)len);
		if (m == NULL)
			continue;
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
