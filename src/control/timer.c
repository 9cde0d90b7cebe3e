/* SPDX-License-Identifier: BSD-3-Clause */
/* Timers: a list sorted by due time (a control plane has tens of them). */
#include <stddef.h>

#include "control.h"
#include "timer.h"

static struct tp_timer *head;
static unsigned int n_armed;

static void unlink_timer(struct tp_timer *t)
{
	for (struct tp_timer **pp = &head; *pp; pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			t->armed = false;
			n_armed--;
			return;
		}
}

static void insert(struct tp_timer *t, uint64_t due)
{
	struct tp_timer **pp = &head;

	if (t->armed)
		unlink_timer(t);
	t->due_ms = due;
	while (*pp && (*pp)->due_ms <= due)
		pp = &(*pp)->next;
	t->next = *pp;
	*pp = t;
	t->armed = true;
	n_armed++;
}

void tp_timer_init(struct tp_timer *t, const char *name, tp_timer_fn fn, void *arg)
{
	if (t->armed)
		unlink_timer(t);
	*t = (struct tp_timer)TP_TIMER_INIT(name, fn, arg);
}

void tp_timer_arm(struct tp_timer *t, uint64_t delay_ms)
{
	t->period_ms = 0;
	insert(t, tp_ctl_now_ms() + delay_ms);
}

void tp_timer_every(struct tp_timer *t, uint64_t period_ms)
{
	t->period_ms = period_ms ? period_ms : 1;
	insert(t, tp_ctl_now_ms() + t->period_ms);
}

void tp_timer_cancel(struct tp_timer *t)
{
	if (t->armed)
		unlink_timer(t);
}

int64_t tp_timer_next_in(uint64_t now_ms)
{
	if (head == NULL)
		return -1;
	return head->due_ms > now_ms ? (int64_t)(head->due_ms - now_ms) : 0;
}

void tp_timer_run(uint64_t now_ms)
{
	/* a callback may arm, re-arm or cancel any timer, itself included: take the
	 * first due one each time */
	while (head && head->due_ms <= now_ms) {
		struct tp_timer *t = head;
		head = t->next;
		t->armed = false;
		n_armed--;
		if (t->period_ms) {
			uint64_t due = t->due_ms + t->period_ms;
			insert(t, due > now_ms ? due : now_ms + t->period_ms);
		}
		t->fn(t);
	}
}

unsigned int tp_timer_count(void)
{
	return n_armed;
}
