/* SPDX-License-Identifier: BSD-3-Clause */
/* Process-wide state shared by the control plane and the workers. */
#ifndef TP_CORE_TP_H
#define TP_CORE_TP_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_rcu_qsbr.h>

#include "worker.h"

struct tp_global {
	struct rte_rcu_qsbr *qs;	/* one reader slot per worker */
	unsigned int n_workers;
	struct tp_worker *workers[TP_MAX_WORKERS];
	volatile bool running;		/* cleared on SIGINT/SIGTERM */
	volatile bool backoff;		/* workers sleep after idle polls */
	uint32_t backoff_max_us;
	uint64_t tsc_hz;
};

extern struct tp_global tp;

/* Set the exception token bucket of every worker: rate packets/s in total, burst packets. */
void tp_exception_rate_set(uint64_t rate, uint64_t burst);

#endif
