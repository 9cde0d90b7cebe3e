/* SPDX-License-Identifier: BSD-3-Clause */
/* Control-plane timers: callbacks run by the control loop (control.h) when due, on
 * the control thread. A timer is owned by its module (usually static); arming an
 * armed timer moves it. Millisecond resolution, on the monotonic clock. */
#ifndef TP_CONTROL_TIMER_H
#define TP_CONTROL_TIMER_H

#include <stdbool.h>
#include <stdint.h>

struct tp_timer;
typedef void (*tp_timer_fn)(struct tp_timer *t);

struct tp_timer {
	const char *name;
	tp_timer_fn fn;
	void *arg;
	uint64_t due_ms;
	uint64_t period_ms; /* 0: one-shot */
	bool armed;
	struct tp_timer *next;
};

#define TP_TIMER_INIT(nm, f, a)                                                                    \
	{                                                                                          \
		.name = (nm), .fn = (f), .arg = (a)                                                \
	}

void tp_timer_init(struct tp_timer *t, const char *name, tp_timer_fn fn, void *arg);
/* Run once, delay_ms from now. */
void tp_timer_arm(struct tp_timer *t, uint64_t delay_ms);
/* Run every period_ms (> 0), the first time period_ms from now. A periodic timer
 * that falls behind skips the missed runs. */
void tp_timer_every(struct tp_timer *t, uint64_t period_ms);
void tp_timer_cancel(struct tp_timer *t);

/* For the control loop: ms until the next timer is due (0 if one is), or -1. */
int64_t tp_timer_next_in(uint64_t now_ms);
/* Run every timer due at now_ms. */
void tp_timer_run(uint64_t now_ms);
/* Armed timers, for show. */
unsigned int tp_timer_count(void);

#endif
