/* SPDX-License-Identifier: BSD-3-Clause */
/* The exception path (replaces KNI): frames the workers punt go to the ingress
 * port's TAP; what the kernel sends on a TAP leaves by that port, through a
 * worker's inject ring (workers own every TX queue). Control plane only. */
#ifndef TP_CONTROL_EXCEPTION_H
#define TP_CONTROL_EXCEPTION_H

#include <stdint.h>

#include "../core/drop.h"
#include "port.h"

struct tp_exc_stats {
	uint64_t to_kernel;	/* frames written to a TAP */
	uint64_t from_kernel;	/* frames read from a TAP and handed to a worker */
	uint64_t tap_errors;	/* write/read failures on a TAP */
	uint64_t no_port;	/* punted for a port that is gone */
	uint64_t inject_full;	/* a worker's inject ring was full */
	uint64_t nombuf;	/* no mbuf for a frame from the kernel */
	uint64_t punt[TP_PUNT_MAX];
};

extern struct tp_exc_stats tp_exc_stats;

/* Create the workers' rings. 0 or negative errno. */
int tp_exc_init(unsigned int ring_size);
void tp_exc_fini(void);
/* Drain the workers' exception rings to the TAPs (a control-loop tick). */
void tp_exc_tick(void);
/* Start (stop) reading port p's TAP. */
int tp_exc_attach(struct tp_port *p);
void tp_exc_detach(struct tp_port *p);

#endif
