/* SPDX-License-Identifier: BSD-3-Clause */
/* Packet trace and capture, the data-plane side (docs/TRACE.md).
 *
 * Off (the default), the only cost is one test of the lcore's own obs byte per
 * received burst, per module input burst and per transmit flush (and per drop and
 * punt, which are off the forwarding path): nothing is tested per forwarded packet.
 *
 * Trace: while on, the receive loop marks the next packets (an mbuf dynamic flag and
 * a dynamic field holding the trace id, which rte_pktmbuf_copy() and clones carry
 * over, so an L2 flood's copies keep their packet's id) and records their port,
 * queue and first bytes. Each stage a module runs on a marked packet, its transmit
 * (with the rewritten header), its drop (the counter) or its punt (reason, class)
 * is a record in the lcore's own buffer (core/trace_buf.h): no lock, no system call,
 * bounded (a full buffer refuses and counts core.trace_buffer_full). The control
 * plane collects the buffers (control/cmds_trace.c).
 *
 * Capture: while on for a port, the lcores copy the frames received and/or sent on
 * it (rte_pcapng_copy, from the capture's own pool) into one ring; the control
 * plane writes them to the pcapng file. A copy that finds no mbuf or no room is not
 * made and counted (core.capture_nombuf, core.capture_ring_full). */
#ifndef TP_CORE_TRACE_H
#define TP_CORE_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "trace_buf.h"

struct tp_worker;

/* bits of struct tp_worker.obs, written by the control plane */
#define TP_OBS_TRACE 0x1
#define TP_OBS_CAPTURE 0x2

#define TP_CAPTURE_RX 0x1
#define TP_CAPTURE_TX 0x2

/* What the control plane set for a trace: the lcores read it once they see
 * TP_OBS_TRACE in their obs byte (which is stored after it, with release). */
struct tp_trace_ctl {
	uint32_t count;			    /* packets to trace */
	int32_t port;			    /* only packets received on this port; -1: any */
	uint64_t flag;			    /* the dynamic flag's mask */
	int id_off;			    /* the dynamic field's offset (uint32_t trace id) */
	uint32_t taken __rte_cache_aligned; /* ids handed out (atomic, by the lcores) */
};

struct tp_capture_ctl {
	uint16_t port;
	uint8_t dir;			    /* TP_CAPTURE_RX | TP_CAPTURE_TX */
	uint32_t snaplen;		    /* bytes of each frame kept */
	uint32_t count;			    /* frames to capture; 0: until stopped */
	struct rte_ring *ring;		    /* multi-producer, consumed by the control plane */
	struct rte_mempool *mp;		    /* the copies' pool */
	uint32_t taken __rte_cache_aligned; /* copies made (atomic, by the lcores) */
};

extern struct tp_trace_ctl tp_trace_ctl;
extern struct tp_capture_ctl tp_capture_ctl;

/* The trace id of m (1, 2, ...), or 0 when it is not traced. */
static inline uint32_t tp_trace_id(const struct rte_mbuf *m)
{
	if (!(m->ol_flags & tp_trace_ctl.flag))
		return 0;
	return *RTE_MBUF_DYNFIELD(m, tp_trace_ctl.id_off, const uint32_t *);
}

/* The data plane's entry points (core/trace.c); called through the macros below
 * only when the lcore's obs byte says so. */
void tp_obs_rx(struct tp_worker *w, uint16_t port, uint16_t queue, struct rte_mbuf **pkts,
	       uint16_t n);
void tp_obs_tx(struct tp_worker *w, uint16_t port, struct rte_mbuf **pkts, uint16_t n);
void tp_trace_stage_burst(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n,
			  const char *stage);
/* Record an entry of type for m if it is traced. */
void tp_trace_pkt(struct tp_worker *w, const struct rte_mbuf *m, enum tp_trace_type type,
		  const char *stage, unsigned int ctr, unsigned int cls);

/* A module's stage ran on a burst of packets (pkts[0..n-1]): one test per burst when
 * tracing is off. stage: a string literal, "<module>.<stage>" ("ip4.input"). */
#define TP_TRACE_BURST(w, pkts, n, stage)                                                          \
	do {                                                                                       \
		if (unlikely((w)->obs & TP_OBS_TRACE))                                             \
			tp_trace_stage_burst(w, pkts, n, stage);                                   \
	} while (0)

/* A module's stage ran on one packet m: for stages off the forwarding path (a slow
 * classifier, a local delivery, a flood), where one test per packet costs nothing
 * measurable. */
#define TP_TRACE_STAGE(w, m, stage)                                                                \
	do {                                                                                       \
		if (unlikely((w)->obs & TP_OBS_TRACE))                                             \
			tp_trace_pkt(w, m, TP_TRACE_STAGE, stage, 0, 0);                           \
	} while (0)

/* A module that counts a drop itself (not through tp_drop) names it for the trace:
 * m, dropped for counter id. */
#define TP_TRACE_DROP(w, m, id)                                                                    \
	do {                                                                                       \
		if (unlikely((w)->obs & TP_OBS_TRACE))                                             \
			tp_trace_pkt(w, m, TP_TRACE_DROP, NULL, id, 0);                            \
	} while (0)

#endif
