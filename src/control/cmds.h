/* SPDX-License-Identifier: BSD-3-Clause */
/* What the core's command files (control/cmds_*.c) share: the 'clear counters'
 * baseline, read through these. Control plane only. */
#ifndef TP_CONTROL_CMDS_H
#define TP_CONTROL_CMDS_H

#include <stdint.h>

#include "../core/worker.h"
#include "out.h"

/* Worker w's statistics minus the 'clear counters' baseline, in *s. */
void tp_cmds_wstats_get(unsigned int w, struct tp_wstats *s);
/* Counter id on port of worker w, minus the baseline. */
uint64_t tp_cmds_ctr_get(unsigned int w, unsigned int port, unsigned int id);
/* The exception path's statistics minus the baseline, into o. */
void tp_cmds_exc_out(struct tp_node *o);

#endif
