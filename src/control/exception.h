/* SPDX-License-Identifier: BSD-3-Clause */
/* The exception path (replaces KNI): frames the lcores punt go to the ingress port's
 * TAP, control and ARP frames first; what the kernel sends on a TAP leaves by that
 * port, within the port's two buckets (control: ARP and routing protocols; other),
 * through the inject ring of one lcore per port (lcores own every TX queue; one lcore
 * keeps a flow in order), in mbufs of the port's own share (tp_port.kpool: a flood
 * through one TAP cannot empty another port's). Frames longer than the port's MTU
 * allows are dropped and counted, in both directions; chained mbufs are written as
 * they are (iovecs). Control plane only. The lcores' rings are made by core/lcore.c. */
#ifndef TP_CONTROL_EXCEPTION_H
#define TP_CONTROL_EXCEPTION_H

#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "port.h"

struct tp_exc_stats {
	uint64_t to_kernel;		 /* frames written to a TAP */
	uint64_t to_kernel_control;	 /* ... of them of the control class */
	uint64_t from_kernel;		 /* frames read from a TAP and handed to an lcore */
	uint64_t tap_errors;		 /* write/read failures on a TAP */
	uint64_t no_port;		 /* punted for a port that is gone */
	uint64_t inject_full;		 /* an lcore's inject ring was full */
	uint64_t from_kernel_pool_share; /* read from a TAP over its port's share of mbufs */
	uint64_t oversize_to_kernel;   /* longer than the port's MTU allows, or too many segments */
	uint64_t oversize_from_kernel; /* the kernel sent more than the port's MTU allows */
	uint64_t from_kernel_ratelimited; /* over a port's kernel-to-wire bound (set kernel-tx) */
};

extern struct tp_exc_stats tp_exc_stats;

/* The exception path's poller (drain the lcores' rings to the TAPs). 0 or negative errno. */
int tp_exc_init(void);
/* What tp_exc_read_frame did. */
enum tp_exc_read {
	TP_EXC_READ_OK,	      /* a frame */
	TP_EXC_READ_NONE,     /* nothing to read */
	TP_EXC_READ_SHARE,    /* a frame read and dropped: mp had no mbuf (the port's share) */
	TP_EXC_READ_OVERSIZE, /* a frame read and dropped: longer than frame_max */
	TP_EXC_READ_ERROR,    /* the read failed */
};
/* One frame from fd (a TAP: one read, one frame) in mbufs of mp, the port's share of
 * mbufs for frames from its kernel side: the first mbuf's room, then chained mbufs for
 * the rest. Returns the chain (the caller owns it; pkt_len the frame's length) or NULL
 * with *why saying what happened; a frame that did not fit the share or frame_max is
 * read all the same and dropped (every mbuf of it back in mp). Control thread only. */
struct rte_mbuf *tp_exc_read_frame(int fd, struct rte_mempool *mp, uint32_t frame_max,
				   enum tp_exc_read *why);
/* Frames read from port's TAP and dropped over its share of mbufs. */
uint64_t tp_exc_pool_share_drops(uint16_t port);
/* Zero them (clear counters). */
void tp_exc_pool_share_clear(void);
/* What the control plane does with the frames punted for reason (a TP_CTR_PUNT
 * counter id) instead of writing them to the TAP: fn takes m and owns it (frees it).
 * A module sets it in its init (the L2 switch's STP: its BPDUs); NULL: the TAP again.
 * 0 or -EINVAL (reason out of range). */
typedef void (*tp_exc_handler)(struct rte_mbuf *m);
int tp_exc_set_handler(unsigned int reason, tp_exc_handler fn);
/* Send m (m->port its port) to the wire as the frames from the TAPs go: through the
 * inject ring of the port's lcore. Takes m: 0, or -ENOBUFS (the ring was full, m
 * freed, counted as inject_full). Control thread only. */
int tp_exc_inject(struct rte_mbuf *m);
/* Start (stop) reading port p's TAP. */
int tp_exc_attach(struct tp_port *p);
void tp_exc_detach(struct tp_port *p);

#endif
