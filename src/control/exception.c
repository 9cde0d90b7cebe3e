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

#define MAX_SEGS 64
#define DRAIN_BUDGET 256 /* frames per ring and pass: the loop has other work */
/* the largest frame a port's MTU admits: Ethernet header and one 802.1Q tag */
#define FRAME_MAX(mtu) ((uint32_t)(mtu) + RTE_ETHER_HDR_LEN + 4)
#define SPILL_MAX (65536)

struct tp_exc_stats tp_exc_stats;

/* by punt reason: who takes those frames instead of the TAP */
static tp_exc_handler handlers[TP_CTR_MAX];

int tp_exc_set_handler(unsigned int reason, tp_exc_handler fn)
{
	if (reason >= TP_CTR_MAX)
		return -EINVAL;
	handlers[reason] = fn;
	return 0;
}

/* Kernel to wire: two token buckets per port, one for the control class (ARP and
 * routing protocols the host sends: its own budget, which a flood of anything else
 * through the TAP cannot take) and one for the rest; a flood through one TAP takes
 * only its own port's budget. Frames per second (0: no bound) and burst, per class. */
enum { KTX_CONTROL, KTX_OTHER, KTX_CLASSES };
static const char *const ktx_names[KTX_CLASSES] = {"control", "other"};
static uint64_t kernel_rate[KTX_CLASSES] = {20000, 100000};
static uint64_t kernel_burst[KTX_CLASSES] = {1024, 1024};
static struct {
	double tokens[KTX_CLASSES];
	uint64_t last_tsc[KTX_CLASSES];
	uint64_t sent[KTX_CLASSES];	   /* handed to an lcore */
	uint64_t ratelimited[KTX_CLASSES]; /* over the bucket */
	uint64_t pool_share;		   /* read over the port's share of mbufs, dropped */
} ktx[TP_MAX_PORTS];

/* A frame from the kernel (its first len bytes at f) is the control class: ARP, or
 * IPv4 IGMP, OSPF, PIM, VRRP, BGP (TCP port 179), BFD (UDP 3784, 3785, 4784), RIP
 * (UDP 520). */
static int ktx_class(const uint8_t *f, size_t len)
{
	uint16_t type, sport, dport;
	uint32_t ihl;
	const uint8_t *ip = f + RTE_ETHER_HDR_LEN;

	if (len < RTE_ETHER_HDR_LEN)
		return KTX_OTHER;
	type = (uint16_t)(f[12] << 8 | f[13]);
	if (type == RTE_ETHER_TYPE_ARP)
		return KTX_CONTROL;
	if (type != RTE_ETHER_TYPE_IPV4 || len < RTE_ETHER_HDR_LEN + 20 || (ip[0] >> 4) != 4)
		return KTX_OTHER;
	switch (ip[9]) {
	case 2:
	case 89:
	case 103:
	case 112:
		return KTX_CONTROL;
	case 6:
	case 17:
		ihl = (uint32_t)(ip[0] & 0x0f) * 4;
		if (len < RTE_ETHER_HDR_LEN + ihl + 4 || ((ip[6] & 0x1f) | ip[7]) != 0)
			return KTX_OTHER;
		sport = (uint16_t)(ip[ihl] << 8 | ip[ihl + 1]);
		dport = (uint16_t)(ip[ihl + 2] << 8 | ip[ihl + 3]);
		if (ip[9] == 6)
			return sport == 179 || dport == 179 ? KTX_CONTROL : KTX_OTHER;
		return dport == 3784 || dport == 3785 || dport == 4784 || dport == 520 ||
			       sport == 520
			   ? KTX_CONTROL
			   : KTX_OTHER;
	default:
		return KTX_OTHER;
	}
}

/* A token of port's bucket of class c; false (counted) when it has none. */
static bool kernel_take(uint16_t port, int c)
{
	uint64_t now = rte_get_tsc_cycles();
	double burst = (double)kernel_burst[c];

	if (kernel_rate[c] == 0)
		return true;
	ktx[port].tokens[c] += (double)(now - ktx[port].last_tsc[c]) * (double)kernel_rate[c] /
			       (double)rte_get_tsc_hz();
	ktx[port].last_tsc[c] = now;
	if (ktx[port].tokens[c] > burst)
		ktx[port].tokens[c] = burst;
	if (ktx[port].tokens[c] < 1.0) {
		ktx[port].ratelimited[c]++;
		tp_exc_stats.from_kernel_ratelimited++;
		return false;
	}
	ktx[port].tokens[c] -= 1.0;
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
			tp_exc_handler h = handlers[tp_mbuf_priv(pkts[j])->punt_reason];
			if (h != NULL) {
				h(pkts[j]); /* the module's now */
				continue;
			}
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

/* Control class first, from every lcore; then the rest. A frame of the control ring
 * (routing protocols, ARP) keeps the loop passing every millisecond for a second:
 * the next BFD or hello does not wait for a backed-off pass (decision 0114). */
static unsigned int exc_poll(void)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < tp.n_workers; i++)
		n += drain(tp.workers[i]->exc_ring[0], true);
	if (n)
		tp_ctl_poll_hold(TP_CTL_CONTROL_HOLD_MS);
	for (unsigned int i = 0; i < tp.n_workers; i++)
		n += drain(tp.workers[i]->exc_ring[1], false);
	return n;
}

int tp_exc_init(void)
{
	return tp_ctl_add_poller(exc_poll);
}

/* The rest of a frame (len bytes, the first mbuf's room of them already in m, the
 * others in spill) chained in mbufs of mp. m, or NULL with m freed (mp ran dry). */
static struct rte_mbuf *frame_from(struct rte_mempool *mp, struct rte_mbuf *m, const uint8_t *spill,
				   size_t len)
{
	size_t first = RTE_MIN(len, (size_t)rte_pktmbuf_tailroom(m));
	struct rte_mbuf *last = m;

	m->data_len = (uint16_t)first;
	m->pkt_len = (uint32_t)len;
	for (size_t off = first; off < len;) {
		struct rte_mbuf *s = rte_pktmbuf_alloc(mp);
		size_t k;
		if (s == NULL) {
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

struct rte_mbuf *tp_exc_read_frame(int fd, struct rte_mempool *mp, uint32_t frame_max,
				   enum tp_exc_read *why)
{
	static uint8_t spill[SPILL_MAX]; /* the control thread's */
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct iovec iov[2];
	ssize_t len;

	if (m == NULL) {
		/* over the port's share: read and dropped, not left in the kernel (the fd
		 * would stay readable and the loop spin; the frames behind it, the port's
		 * ARP among them, would wait behind the flood all the same) */
		len = read(fd, spill, sizeof(spill));
		*why = len > 0			    ? TP_EXC_READ_SHARE
		       : len < 0 && errno != EAGAIN ? TP_EXC_READ_ERROR
						    : TP_EXC_READ_NONE;
		return NULL;
	}
	iov[0] = (struct iovec){rte_pktmbuf_mtod(m, void *), rte_pktmbuf_tailroom(m)};
	iov[1] = (struct iovec){spill, sizeof(spill)};
	len = readv(fd, iov, 2);
	if (len <= 0) {
		*why = len < 0 && errno != EAGAIN ? TP_EXC_READ_ERROR : TP_EXC_READ_NONE;
		rte_pktmbuf_free(m);
		return NULL;
	}
	if ((size_t)len > frame_max) {
		*why = TP_EXC_READ_OVERSIZE;
		rte_pktmbuf_free(m);
		return NULL;
	}
	m = frame_from(mp, m, spill, (size_t)len);
	*why = m ? TP_EXC_READ_OK : TP_EXC_READ_SHARE;
	return m;
}

static void tap_readable(int fd, void *arg)
{
	struct tp_port *p = arg;

	for (int budget = 64; budget > 0; budget--) {
		enum tp_exc_read why;
		struct rte_mbuf *m = tp_exc_read_frame(fd, p->kpool, FRAME_MAX(p->mtu), &why);

		if (m == NULL) {
			switch (why) {
			case TP_EXC_READ_SHARE:
				ktx[p->id].pool_share++;
				tp_exc_stats.from_kernel_pool_share++;
				continue;
			case TP_EXC_READ_OVERSIZE:
				tp_exc_stats.oversize_from_kernel++;
				continue;
			case TP_EXC_READ_ERROR:
				tp_exc_stats.tap_errors++;
				return;
			default:
				return;
			}
		}
		int c = ktx_class(rte_pktmbuf_mtod(m, const uint8_t *), m->data_len);
		if (!kernel_take(p->id, c)) {
			rte_pktmbuf_free(m);
			continue;
		}
		m->port = p->id;
		if (tp_exc_inject(m) < 0)
			continue;
		ktx[p->id].sent[c]++;
		tp_exc_stats.from_kernel++;
	}
}

int tp_exc_inject(struct rte_mbuf *m)
{
	/* one lcore per port: a flow from the kernel leaves in the order it came */
	struct tp_worker *w = tp.workers[m->port % tp.n_workers];

	if (rte_ring_sp_enqueue(w->inject_ring, m) != 0) {
		tp_exc_stats.inject_full++;
		rte_pktmbuf_free(m);
		return -ENOBUFS;
	}
	return 0;
}

uint64_t tp_exc_pool_share_drops(uint16_t port)
{
	return port < TP_MAX_PORTS ? ktx[port].pool_share : 0;
}

void tp_exc_pool_share_clear(void)
{
	for (unsigned int p = 0; p < TP_MAX_PORTS; p++)
		ktx[p].pool_share = 0;
}

int tp_exc_attach(struct tp_port *p)
{
	memset(&ktx[p->id], 0, sizeof(ktx[p->id]));
	for (int c = 0; c < KTX_CLASSES; c++) {
		ktx[p->id].tokens[c] = (double)kernel_burst[c];
		ktx[p->id].last_tsc[c] = rte_get_tsc_cycles();
	}
	return tp_ctl_add_fd(p->tap_fd, tap_readable, p);
}

void tp_exc_detach(struct tp_port *p)
{
	tp_ctl_del_fd(p->tap_fd);
}

static int set_kernel_rate(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	uint64_t rate = 0, burst = 0;
	bool have_rate = false, have_burst = false;
	int c = KTX_OTHER;

	if (argc < 2 || argc % 2)
		goto usage;
	for (int i = 0; i < argc; i += 2) {
		if (strcmp(argv[i], "rate") == 0) {
			if (tp_parse_u64(argv[i + 1], 0, 100000000, &rate) < 0)
				return tp_cmd_err(ctx, EINVAL,
						  "set kernel-tx: bad rate '%s' (0-100000000 pps)",
						  argv[i + 1]);
			have_rate = true;
		} else if (strcmp(argv[i], "burst") == 0) {
			if (tp_parse_u64(argv[i + 1], 1, 1000000, &burst) < 0)
				return tp_cmd_err(ctx, EINVAL,
						  "set kernel-tx: bad burst '%s' (1-1000000)",
						  argv[i + 1]);
			have_burst = true;
		} else if (strcmp(argv[i], "class") == 0) {
			for (c = 0; c < KTX_CLASSES && strcmp(argv[i + 1], ktx_names[c]); c++)
				;
			if (c == KTX_CLASSES)
				return tp_cmd_err(
				    ctx, EINVAL,
				    "set kernel-tx: unknown class '%s' (control, other)",
				    argv[i + 1]);
		} else {
			goto usage;
		}
	}
	if (!have_rate)
		goto usage;
	kernel_rate[c] = rate;
	if (have_burst)
		kernel_burst[c] = burst;
	for (unsigned int p = 0; p < TP_MAX_PORTS; p++)
		ktx[p].tokens[c] = (double)kernel_burst[c];
	return 0;
usage:
	return tp_cmd_err(ctx, EINVAL,
			  "set kernel-tx: usage: set kernel-tx rate PPS [burst N] [class "
			  "control|other] (per port; rate 0: no bound)");
}

static int show_kernel_rate(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_node *cl = tp_out_obj(ctx->out, "classes"), *ports;

	/* the other class's bound at the top, as before classes */
	tp_out_u64(ctx->out, "rate_pps", kernel_rate[KTX_OTHER]);
	tp_out_u64(ctx->out, "burst", kernel_burst[KTX_OTHER]);
	tp_out_u64(ctx->out, "ratelimited", tp_exc_stats.from_kernel_ratelimited);
	tp_out_str(ctx->out, "per", "port");
	for (int c = 0; c < KTX_CLASSES; c++) {
		struct tp_node *o = tp_out_obj(cl, ktx_names[c]);
		uint64_t limited = 0;
		for (unsigned int p = 0; p < TP_MAX_PORTS; p++)
			limited += ktx[p].ratelimited[c];
		tp_out_u64(o, "rate_pps", kernel_rate[c]);
		tp_out_u64(o, "burst", kernel_burst[c]);
		tp_out_u64(o, "ratelimited", limited);
	}
	ports = tp_out_obj(ctx->out, "ports");
	for (unsigned int p = 0; p < TP_MAX_PORTS; p++) {
		struct tp_port *port = tp_port_by_id((uint16_t)p);
		if (port == NULL)
			continue;
		struct tp_node *o = tp_out_obj(ports, port->name);
		for (int c = 0; c < KTX_CLASSES; c++) {
			struct tp_node *k = tp_out_obj(o, ktx_names[c]);
			tp_out_u64(k, "sent", ktx[p].sent[c]);
			tp_out_u64(k, "ratelimited", ktx[p].ratelimited[c]);
		}
		tp_out_u64(o, "mbufs", port->kernel_mbufs);
		tp_out_u64(o, "mbufs_in_use", rte_mempool_in_use_count(port->kpool));
		tp_out_u64(o, "from_kernel_pool_share", ktx[p].pool_share);
	}
	return 0;
}

static struct tp_cmd c_set_ktx = {
    "set kernel-tx", "rate PPS [burst N] [class control|other]",
    "bound what the kernel sends to the wire through each port's TAP (per port; control: "
    "ARP and routing protocols, default 20000 pps burst 1024; other: default 100000 pps "
    "burst 1024)",
    set_kernel_rate, NULL};
static struct tp_cmd c_show_ktx = {"show kernel-tx", NULL,
				   "the bounds on frames from the kernel to the wire, per port",
				   show_kernel_rate, NULL};
TP_CMD_REGISTER(c_set_ktx)
TP_CMD_REGISTER(c_show_ktx)
