/* SPDX-License-Identifier: BSD-3-Clause */
/* Packet trace and capture on the data-plane lcores (core/trace.h): marking at
 * receive, records into the lcore's buffer, copies into the capture ring. */
#include <rte_cycles.h>
#include <rte_pcapng.h>

#include "trace.h"
#include "worker.h"

struct tp_trace_ctl tp_trace_ctl = {.port = -1};
struct tp_capture_ctl tp_capture_ctl;

/* Fill and publish a record of m; counts core.trace_buffer_full when there is no
 * room. snap: keep the frame's first bytes (rx and tx records). */
static void record(struct tp_worker *w, const struct rte_mbuf *m, uint32_t id,
		   enum tp_trace_type type, const char *stage, unsigned int ctr, unsigned int cls,
		   uint16_t port, uint16_t queue, bool snap)
{
	struct tp_trace_ent *e;

	if (w->trace == NULL)
		return;
	e = tp_trace_buf_slot(w->trace);
	if (e == NULL) {
		tp_count(w, m->port, TP_DROP_TRACE_FULL);
		return;
	}
	e->id = id;
	e->type = (uint8_t)type;
	e->cls = (uint8_t)cls;
	e->lcore = (uint16_t)w->lcore;
	e->port = port;
	e->queue = queue;
	e->len = rte_pktmbuf_pkt_len(m);
	e->ctr = (uint16_t)ctr;
	e->stage = stage;
	e->tsc = rte_rdtsc();
	e->snap_len = 0;
	if (snap) {
		uint32_t k = RTE_MIN(e->len, TP_TRACE_SNAP);
		const void *d = rte_pktmbuf_read(m, 0, k, e->snap);
		if (d != NULL) {
			if (d != e->snap)
				memcpy(e->snap, d, k);
			e->snap_len = (uint16_t)k;
		}
	}
	tp_trace_buf_commit(w->trace);
}

void tp_trace_pkt(struct tp_worker *w, const struct rte_mbuf *m, enum tp_trace_type type,
		  const char *stage, unsigned int ctr, unsigned int cls)
{
	uint32_t id = tp_trace_id(m);

	if (id != 0)
		record(w, m, id, type, stage, ctr, cls, m->port, 0, false);
}

void tp_trace_stage_burst(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n,
			  const char *stage)
{
	for (uint16_t i = 0; i < n; i++)
		tp_trace_pkt(w, pkts[i], TP_TRACE_STAGE, stage, 0, 0);
}

/* Mark the packets of a received burst that the trace still wants. */
static void trace_rx(struct tp_worker *w, uint16_t port, uint16_t queue, struct rte_mbuf **pkts,
		     uint16_t n)
{
	const struct tp_trace_ctl *c = &tp_trace_ctl;

	if (c->port >= 0 && c->port != port)
		return;
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		if (__atomic_load_n(&tp_trace_ctl.taken, __ATOMIC_RELAXED) >= c->count)
			return;
		uint32_t id = __atomic_fetch_add(&tp_trace_ctl.taken, 1, __ATOMIC_RELAXED);
		if (id >= c->count)
			return;
		m->ol_flags |= c->flag;
		*RTE_MBUF_DYNFIELD(m, c->id_off, uint32_t *) = id + 1;
		record(w, m, id + 1, TP_TRACE_RX, NULL, 0, 0, port, queue, true);
	}
}

/* Copy frames of a burst into the capture ring (dir: TP_CAPTURE_RX or _TX). */
static void capture(struct tp_worker *w, uint16_t port, uint16_t queue, struct rte_mbuf **pkts,
		    uint16_t n, unsigned int dir)
{
	const struct tp_capture_ctl *c = &tp_capture_ctl;
	enum rte_pcapng_direction d =
	    dir == TP_CAPTURE_RX ? RTE_PCAPNG_DIRECTION_IN : RTE_PCAPNG_DIRECTION_OUT;

	if (c->port != port || !(c->dir & dir))
		return;
	for (uint16_t i = 0; i < n; i++) {
		if (c->count) {
			if (__atomic_load_n(&tp_capture_ctl.taken, __ATOMIC_RELAXED) >= c->count)
				return;
			if (__atomic_fetch_add(&tp_capture_ctl.taken, 1, __ATOMIC_RELAXED) >=
			    c->count)
				return;
		}
		struct rte_mbuf *cp =
		    rte_pcapng_copy(port, queue, pkts[i], c->mp, c->snaplen, rte_rdtsc(), d);
		if (cp == NULL) {
			tp_count(w, port, TP_DROP_CAPTURE_NOMBUF);
			continue;
		}
		if (rte_ring_mp_enqueue(c->ring, cp) != 0) {
			rte_pktmbuf_free(cp);
			tp_count(w, port, TP_DROP_CAPTURE_RING_FULL);
		}
	}
}

void tp_obs_rx(struct tp_worker *w, uint16_t port, uint16_t queue, struct rte_mbuf **pkts,
	       uint16_t n)
{
	uint8_t obs = __atomic_load_n(&w->obs, __ATOMIC_ACQUIRE);

	/* capture first: the frame as it came, before the trace marks it */
	if (obs & TP_OBS_CAPTURE)
		capture(w, port, queue, pkts, n, TP_CAPTURE_RX);
	if (obs & TP_OBS_TRACE)
		trace_rx(w, port, queue, pkts, n);
}

void tp_obs_tx(struct tp_worker *w, uint16_t port, struct rte_mbuf **pkts, uint16_t n)
{
	uint8_t obs = __atomic_load_n(&w->obs, __ATOMIC_ACQUIRE);

	if (obs & TP_OBS_TRACE)
		for (uint16_t i = 0; i < n; i++) {
			uint32_t id = tp_trace_id(pkts[i]);
			if (id != 0)
				record(w, pkts[i], id, TP_TRACE_TX, NULL, 0, 0, port, w->txq[port],
				       true);
		}
	if (obs & TP_OBS_CAPTURE)
		capture(w, port, w->txq[port], pkts, n, TP_CAPTURE_TX);
}
