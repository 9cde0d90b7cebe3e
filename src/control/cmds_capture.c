/* SPDX-License-Identifier: BSD-3-Clause */
/* Commands of the capture: capture start PORT rx|tx|both FILE [count N] [snaplen S],
 * capture stop, show capture (docs/TRACE.md). The lcores copy the port's frames
 * into a ring (core/trace.h); a timer here writes them to the pcapng file
 * (librte_pcapng), so no lcore ever makes a system call. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_pcapng.h>

#include "../core/counter.h"
#include "../core/rcu.h"
#include "../core/tp.h"
#include "../core/trace.h"
#include "cmd.h"
#include "cmds.h"
#include "port.h"
#include "timer.h"

#define CAPTURE_RING 1024u  /* copies in flight to the writer */
#define CAPTURE_MBUFS 2047u /* the copies' pool */
#define CAPTURE_SNAP_DEFAULT 2048u
#define CAPTURE_SNAP_MIN 64u
#define CAPTURE_SNAP_MAX 9600u /* a jumbo frame (and the pool stays under 20 MB) */
#define CAPTURE_POLL_MS 10

struct capture {
	rte_pcapng_t *pc;
	struct rte_ring *ring;
	struct rte_mempool *mp;
	char file[256];
	uint16_t port;
	uint8_t dir;
	uint32_t snaplen, count;
	uint64_t written, write_errors;
	struct tp_cmd_ctx *stop_ctx; /* a capture stop waiting for the file to close */
};

static struct capture *cur;  /* the running capture, or NULL */
static struct capture *last; /* the one before, for show capture (closed) */
/* stopped, closed after a grace period: until then no capture starts (the lcores may
 * still be copying into its ring, from its pool) */
static struct capture *closing;
static struct tp_timer cap_timer;
static unsigned int cap_gen; /* names of the pool and ring: the last may still be freed */

/* Write what the lcores copied; returns how many. */
static unsigned int drain(struct capture *c)
{
	struct rte_mbuf *pkts[64];
	unsigned int n, total = 0;

	while ((n = rte_ring_sc_dequeue_burst(c->ring, (void **)pkts, RTE_DIM(pkts), NULL)) > 0) {
		if (rte_pcapng_write_packets(c->pc, pkts, (uint16_t)n) < 0)
			c->write_errors += n; /* the copies are freed either way */
		else
			c->written += n;
		total += n;
	}
	return total;
}

static void cap_free(struct capture *c)
{
	rte_ring_free(c->ring);
	rte_mempool_free(c->mp);
	c->ring = NULL;
	c->mp = NULL;
}

/* After the grace period that followed clearing the lcores' capture bit: no copy is
 * being made any more; write the rest, close the file, free the ring and the pool. */
static void cap_close(void *a, void *b)
{
	struct capture *c = a;

	drain(c);
	rte_pcapng_close(c->pc); /* closes the descriptor too */
	c->pc = NULL;
	cap_free(c);
	if (c->stop_ctx != NULL) {
		struct tp_node *o = c->stop_ctx->out;
		tp_out_str(o, "file", c->file);
		tp_out_u64(o, "written", c->written);
		tp_cmd_done(c->stop_ctx, 0);
		c->stop_ctx = NULL;
	}
	free(last);
	last = c;
	closing = NULL;
}

/* Clear the lcores' capture bit, close once they cannot see the ring. 0 or -errno. */
static int cap_stop(struct tp_cmd_ctx *ctx)
{
	struct capture *c = cur;

	for (unsigned int w = 0; w < tp.n_workers; w++) {
		struct tp_worker *wk = tp.workers[w];
		uint8_t v = __atomic_load_n(&wk->obs, __ATOMIC_RELAXED);
		__atomic_store_n(&wk->obs, (uint8_t)(v & ~TP_OBS_CAPTURE), __ATOMIC_RELEASE);
	}
	cur = NULL;
	closing = c;
	c->stop_ctx = ctx;
	return tp_rcu_defer(cap_close, c, NULL);
}

/* Every CAPTURE_POLL_MS while a capture runs: write; stop once count frames are in. */
static void cap_tick(struct tp_timer *t)
{
	struct capture *c = cur;

	if (c == NULL) {
		if (closing == NULL)
			tp_timer_cancel(t);
		return;
	}
	drain(c);
	if (c->count && __atomic_load_n(&tp_capture_ctl.taken, __ATOMIC_RELAXED) >= c->count)
		cap_stop(NULL);
}

static int capture_start(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	uint64_t count = 0, snaplen = CAPTURE_SNAP_DEFAULT;
	struct capture *c;
	struct tp_port *p;
	char name[RTE_MEMPOOL_NAMESIZE];
	uint8_t dir;
	int fd, err;

	if (argc < 3)
		return tp_cmd_err(ctx, EINVAL,
				  "capture start: usage: capture start PORT rx|tx|both FILE "
				  "[count N] [snaplen S]");
	if (cur != NULL)
		return tp_cmd_err(
		    ctx, EBUSY, "capture start: a capture of %s to %s runs (capture stop first)",
		    tp_port_by_id(cur->port) ? tp_port_by_id(cur->port)->name : "?", cur->file);
	if (closing != NULL)
		return tp_cmd_err(ctx, EBUSY, "capture start: the last capture (%s) is closing",
				  closing->file);
	p = tp_port_by_name(argv[0]);
	if (p == NULL)
		return tp_cmd_err(ctx, ENODEV, "capture start: no port named '%s'", argv[0]);
	if (strcmp(argv[1], "rx") == 0)
		dir = TP_CAPTURE_RX;
	else if (strcmp(argv[1], "tx") == 0)
		dir = TP_CAPTURE_TX;
	else if (strcmp(argv[1], "both") == 0)
		dir = TP_CAPTURE_RX | TP_CAPTURE_TX;
	else
		return tp_cmd_err(ctx, EINVAL,
				  "capture start: direction '%s' is not rx, tx or both", argv[1]);
	if (strlen(argv[2]) >= sizeof(c->file))
		return tp_cmd_err(ctx, ENAMETOOLONG, "capture start: file name too long");
	for (int i = 3; i < argc; i += 2) {
		if (i + 1 >= argc)
			return tp_cmd_err(ctx, EINVAL, "capture start: '%s' needs a value",
					  argv[i]);
		if (strcmp(argv[i], "count") == 0) {
			if (tp_parse_u64(argv[i + 1], 1, UINT32_MAX, &count) != 0)
				return tp_cmd_err(ctx, EINVAL,
						  "capture start: count '%s' is not a number from "
						  "1 to %u",
						  argv[i + 1], UINT32_MAX);
		} else if (strcmp(argv[i], "snaplen") == 0) {
			if (tp_parse_u64(argv[i + 1], CAPTURE_SNAP_MIN, CAPTURE_SNAP_MAX,
					 &snaplen) != 0)
				return tp_cmd_err(ctx, EINVAL,
						  "capture start: snaplen '%s' is not a number "
						  "from %u to %u",
						  argv[i + 1], CAPTURE_SNAP_MIN, CAPTURE_SNAP_MAX);
		} else {
			return tp_cmd_err(ctx, EINVAL,
					  "capture start: unknown word '%s' (count N, snaplen S)",
					  argv[i]);
		}
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return tp_cmd_err(ctx, ENOMEM, "capture start: out of memory");
	snprintf(c->file, sizeof(c->file), "%s", argv[2]);
	c->port = p->id;
	c->dir = dir;
	c->snaplen = (uint32_t)snaplen;
	c->count = (uint32_t)count;
	cap_gen++;
	snprintf(name, sizeof(name), "tp_cap%u", cap_gen);
	c->mp = rte_pktmbuf_pool_create(name, CAPTURE_MBUFS, 0, 0,
					(uint16_t)rte_pcapng_mbuf_size(c->snaplen),
					(int)rte_socket_id());
	if (c->mp == NULL) {
		err = rte_errno;
		tp_cmd_err(ctx, err, "capture start: pool: %s", rte_strerror(err));
		goto free_c;
	}
	c->ring = rte_ring_create(name, CAPTURE_RING, (int)rte_socket_id(), RING_F_SC_DEQ);
	if (c->ring == NULL) {
		err = rte_errno;
		tp_cmd_err(ctx, err, "capture start: ring: %s", rte_strerror(err));
		goto free_res;
	}
	fd = open(c->file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = errno;
		tp_cmd_err(ctx, err, "capture start: %s: %s", c->file, strerror(err));
		goto free_res;
	}
	c->pc = rte_pcapng_fdopen(fd, NULL, NULL, "twinplane " TP_VERSION, NULL);
	if (c->pc == NULL) {
		err = rte_errno;
		close(fd);
		tp_cmd_err(ctx, err, "capture start: %s: pcapng: %s", c->file, rte_strerror(err));
		goto free_res;
	}
	tp_capture_ctl.port = c->port;
	tp_capture_ctl.dir = c->dir;
	tp_capture_ctl.snaplen = c->snaplen;
	tp_capture_ctl.count = c->count;
	tp_capture_ctl.ring = c->ring;
	tp_capture_ctl.mp = c->mp;
	__atomic_store_n(&tp_capture_ctl.taken, 0, __ATOMIC_RELAXED);
	cur = c;
	for (unsigned int w = 0; w < tp.n_workers; w++) {
		struct tp_worker *wk = tp.workers[w];
		uint8_t v = __atomic_load_n(&wk->obs, __ATOMIC_RELAXED);
		__atomic_store_n(&wk->obs, (uint8_t)(v | TP_OBS_CAPTURE), __ATOMIC_RELEASE);
	}
	tp_timer_init(&cap_timer, "capture", cap_tick, NULL);
	tp_timer_every(&cap_timer, CAPTURE_POLL_MS);
	tp_out_str(ctx->out, "file", c->file);
	return 0;
free_res:
	cap_free(c);
free_c:
	free(c);
	return -err;
}

static int capture_stop(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	int ret;

	if (argc > 0)
		return tp_cmd_err(ctx, EINVAL, "capture stop: unexpected word '%s'", argv[0]);
	if (cur == NULL)
		return tp_cmd_err(ctx, ENOENT, "capture stop: no capture runs");
	ret = cap_stop(ctx);
	if (ret < 0)
		return tp_cmd_err(ctx, -ret, "capture stop: %s", strerror(-ret));
	return TP_CMD_PENDING; /* answered once the file is closed (cap_close) */
}

static int show_capture(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	const struct capture *c = cur ? cur : last;
	uint64_t full = 0, nombuf = 0;

	if (argc > 0)
		return tp_cmd_err(ctx, EINVAL, "show capture: unexpected word '%s'", argv[0]);
	tp_out_str(ctx->out, "state", cur ? "on" : "off");
	if (c == NULL)
		return 0;
	for (unsigned int w = 0; w < tp.n_workers; w++) {
		full += tp_cmds_ctr_get(w, c->port, TP_DROP_CAPTURE_RING_FULL);
		nombuf += tp_cmds_ctr_get(w, c->port, TP_DROP_CAPTURE_NOMBUF);
	}
	tp_out_str(ctx->out, "port", tp_port_by_id(c->port) ? tp_port_by_id(c->port)->name : "?");
	tp_out_str(ctx->out, "direction",
		   c->dir == TP_CAPTURE_RX   ? "rx"
		   : c->dir == TP_CAPTURE_TX ? "tx"
					     : "both");
	tp_out_str(ctx->out, "file", c->file);
	tp_out_u64(ctx->out, "snaplen", c->snaplen);
	tp_out_u64(ctx->out, "count", c->count);
	tp_out_u64(ctx->out, "written", c->written);
	tp_out_u64(ctx->out, "write_errors", c->write_errors);
	tp_out_u64(ctx->out, "ring_full", full);
	tp_out_u64(ctx->out, "nombuf", nombuf);
	return 0;
}

static struct tp_cmd c_capture_start = {
    "capture start", "PORT rx|tx|both FILE [count N] [snaplen S]",
    "copy the frames received and/or sent on PORT into the pcapng FILE (the daemon's path), "
    "the first S bytes of each (default 2048), until N frames or capture stop",
    capture_start, NULL};
static struct tp_cmd c_capture_stop = {"capture stop", NULL,
				       "stop the capture; answered once the file is complete",
				       capture_stop, NULL};
static struct tp_cmd c_show_capture = {
    "show capture", NULL,
    "the capture: port, direction, file, frames written, copies lost (ring full, no mbuf)",
    show_capture, NULL};
TP_CMD_REGISTER(c_capture_start)
TP_CMD_REGISTER(c_capture_stop)
TP_CMD_REGISTER(c_show_capture)
