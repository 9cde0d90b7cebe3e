/* SPDX-License-Identifier: BSD-3-Clause */
/* RCU for the shared tables: the QSBR variable every data-plane lcore reports to,
 * and a defer queue so that no writer ever waits for a grace period.
 *
 * tp_rcu_defer(fn, a, b) records the current grace-period token; fn(a, b) runs on
 * the control thread, from tp_rcu_reclaim() (a control-plane poller), once every
 * data-plane lcore has reported a quiescent state (or gone offline) since. Callable
 * from any thread (multi-producer); fn always runs on the control thread. */
#ifndef TP_CORE_RCU_H
#define TP_CORE_RCU_H

#include <rte_rcu_qsbr.h>

typedef void (*tp_rcu_fn)(void *a, void *b);

/* Create tp.qs for n readers and the defer queue. 0 or negative errno. */
int tp_rcu_init(unsigned int n_readers);
/* Run what is still deferred (no reader is left by then), free everything. */
void tp_rcu_fini(void);
/* Run fn(a, b) after a grace period. Never blocks; 0, or -ENOSPC when the queue is
 * full even after reclaiming (fn then has not run and will not). */
int tp_rcu_defer(tp_rcu_fn fn, void *a, void *b);
/* Run the callbacks whose grace period is over. Returns how many ran. */
unsigned int tp_rcu_reclaim(void);
/* Callbacks waiting. */
unsigned int tp_rcu_pending(void);

#endif
