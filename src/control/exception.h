/* SPDX-License-Identifier: BSD-3-Clause */
/* The exception path (replaces KNI): frames the lcores punt go to the ingress port's
 * TAP, control and ARP frames first; what the kernel sends on a TAP leaves by that
 * port, within the port's two buckets (control: ARP and routing protocols; other),
 * through the inject ring of one lcore per port (lcores own every TX queue; one lcore
 * keeps a flow in order). Frames longer than the port's MTU allows are dropped and counted, in
 * both directions; chained mbufs are written as they are (iovecs). Control plane
 * only. The lcores' rings are made by core/lcore.c. */
#ifndef TP_CONTROL_EXCEPTION_H
#define TP_CONTROL_EXCEPTION_H

#include <stdint.h>

#include "port.h"

struct tp_exc_stats {
	uint64_t to_kernel;	       /* frames written to a TAP */
	uint64_t to_kernel_control;    /* ... of them of the control class */
	uint64_t from_kernel;	       /* frames read from a TAP and handed to an lcore */
	uint64_t tap_errors;	       /* write/read failures on a TAP */
	uint64_t no_port;	       /* punted for a port that is gone */
	uint64_t inject_full;	       /* an lcore's inject ring was full */
	uint64_t nombuf;	       /* no mbuf for a frame from the kernel */
	uint64_t oversize_to_kernel;   /* longer than the port's MTU allows, or too many segments */
	uint64_t oversize_from_kernel; /* the kernel sent more than the port's MTU allows */
	uint64_t from_kernel_ratelimited; /* over a port's kernel-to-wire bound (set kernel-tx) */
};

extern struct tp_exc_stats tp_exc_stats;

/* The exception path's poller (drain the lcores' rings to the TAPs). 0 or negative errno. */
int tp_exc_init(void);
/* Start (stop) reading port p's TAP. */
int tp_exc_attach(struct tp_port *p);
void tp_exc_detach(struct tp_port *p);

#endif
