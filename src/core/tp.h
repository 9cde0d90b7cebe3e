/* SPDX-License-Identifier: BSD-3-Clause */
/* Process-wide state shared by the control plane and the data-plane lcores. */
#ifndef TP_CORE_TP_H
#define TP_CORE_TP_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_rcu_qsbr.h>

#include "worker.h"

struct tp_global {
	struct rte_rcu_qsbr *qs; /* one reader slot per data-plane lcore */
	unsigned int n_workers;	 /* data-plane lcores */
	struct tp_worker *workers[TP_MAX_WORKERS];
	volatile bool running;	      /* cleared on SIGINT/SIGTERM */
	volatile bool lcores_running; /* launched and not yet joined */
	volatile bool backoff;	      /* lcores sleep after idle polls */
	uint32_t backoff_max_us;
	uint64_t tsc_hz;
	/* exception path: packets/s and burst per port and class (core/lcore.c splits
	 * them over the lcores that receive from the port) */
	uint64_t exc_rate[TP_PUNT_CLASSES];
	uint64_t exc_burst[TP_PUNT_CLASSES];
};

extern struct tp_global tp;

#endif
