/* SPDX-License-Identifier: BSD-3-Clause */
/* Exception I/O between the lcores' rings and the TAPs. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "../core/log.h"
#include "../core/tp.h"
#include "cmd.h"
#include "control.h"
#include "exception.h"
#include "kpolicy.h"

#define MAX_SEGS 64
#define DRAIN_BUDGET 256 /* frames per ring and pass: the loop has other work */
/* the largest frame a port's MTU admits: Ethernet header and one 802.1Q tag */
#define FRAME_MAX(mtu) ((uint32_t)(mtu) + RTE_ETHER_HDR_LEN + 4)
#define SPILL_MAX (65536)

struct tp_exc_stats tp_exc_stats;
static unsigned int rr; /* next lcore to inject through */

/* Kernel to wire: one token bucket over every TAP (frames per second; 0: no bound) */
static uint64_t kernel_rate = 100000, kernel_burst = 1024;
static double kernel_tokens = 1024;
static uint64_t kernel_last_tsc;

static bool kernel_take(void)
{
	uint64_t now = rte_get_tsc_cycles();

	if (kernel_rate == 0)
		return true;
	kernel_tokens +=
	    (double)(now - kernel_last_tsc) * (double)kernel_rate / (double)rte_get_tsc_hz();
	kernel_last_tsc = now;
	if (kernel_tokens > (double)kernel_burst)
		kernel_tokens = (double)kernel_burst;
	if (kernel_tokens < 1.0)
		return false;
	kernel_tokens -= 1.0;
	return true;
}

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
		if (!kernel_take()) {
			tp_exc_stats.from_kernel_ratelimited++;
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
	int ret = tp_kpolicy_tap_add(p->tap_name, p->tap_ifindex);

	if (ret < 0)
		TP_LOG(WARNING,
		       "%s: no policy rules (%s): the kernel may route punted frames "
		       "through interfaces that are not TAPs",
		       p->tap_name, strerror(-ret));
	return tp_ctl_add_fd(p->tap_fd, tap_readable, p);
}

void tp_exc_detach(struct tp_port *p)
{
	tp_ctl_del_fd(p->tap_fd);
	tp_kpolicy_tap_del(p->tap_name);
}

static int set_kernel_rate(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	uint64_t rate, burst = kernel_burst;

	if ((argc != 2 && argc != 4) || strcmp(argv[0], "rate") ||
	    (argc == 4 && strcmp(argv[2], "burst")))
		return tp_cmd_err(ctx, EINVAL,
				  "set kernel-tx: usage: set kernel-tx rate PPS [burst N] (rate 0: "
				  "no bound)");
	if (tp_parse_u64(argv[1], 0, 100000000, &rate) < 0)
		return tp_cmd_err(ctx, EINVAL, "set kernel-tx: bad rate '%s' (0-100000000 pps)",
				  argv[1]);
	if (argc == 4 && tp_parse_u64(argv[3], 1, 1000000, &burst) < 0)
		return tp_cmd_err(ctx, EINVAL, "set kernel-tx: bad burst '%s' (1-1000000)",
				  argv[3]);
	kernel_rate = rate;
	kernel_burst = burst;
	kernel_tokens = (double)burst;
	return 0;
}

static int show_kernel_rate(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	tp_out_u64(ctx->out, "rate_pps", kernel_rate);
	tp_out_u64(ctx->out, "burst", kernel_burst);
	tp_out_u64(ctx->out, "ratelimited", tp_exc_stats.from_kernel_ratelimited);
	return 0;
}

static struct tp_cmd c_set_ktx = {
    "set kernel-tx", "rate PPS [burst N]",
    "bound what the kernel sends to the wire through the TAPs (default 100000 pps, burst 1024)",
    set_kernel_rate, NULL};
static struct tp_cmd c_show_ktx = {"show kernel-tx", NULL,
				   "the bound on frames from the kernel to the wire",
				   show_kernel_rate, NULL};
TP_CMD_REGISTER(c_set_ktx)
TP_CMD_REGISTER(c_show_ktx)
