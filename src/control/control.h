/* SPDX-License-Identifier: BSD-3-Clause */
/* The control-plane event loop: one thread, epoll over file descriptors (the API
 * socket and its clients, the TAPs, the modules' sockets), timers (timer.h),
 * and pollers that run on every pass (draining the lcores' exception rings,
 * reclaiming what RCU deferred). Nothing in it may block: every callback does a
 * bounded amount of work and returns. */
#ifndef TP_CONTROL_CONTROL_H
#define TP_CONTROL_CONTROL_H

#include <stdbool.h>
#include <stdint.h>

typedef void (*tp_fd_cb)(int fd, void *arg);
/* A poller returns how much it did (frames, objects): 0 when it found nothing. */
typedef unsigned int (*tp_poller_cb)(void);

int tp_ctl_init(void);
void tp_ctl_fini(void);
/* Watch fd for input; cb runs on the control thread. 0 or negative errno. */
int tp_ctl_add_fd(int fd, tp_fd_cb cb, void *arg);
/* Watch fd for input (readable) and/or output (writable); replaces what was set. */
int tp_ctl_mod_fd(int fd, bool readable, bool writable);
void tp_ctl_del_fd(int fd);
/* Run the loop until *running is cleared (by a signal handler). */
void tp_ctl_loop(volatile bool *running);
/* One pass of the loop: wait up to timeout_ms for the descriptors, run their callbacks,
 * the pollers and the due timers. Returns the pollers' work; *events (if not NULL) is
 * how many descriptors were ready. */
unsigned int tp_ctl_pass(int timeout_ms, unsigned int *events);
/* Time in milliseconds (monotonic), the clock of timer.h. */
uint64_t tp_ctl_now_ms(void);
/* Run cb on every pass of the loop. With pollers the loop passes every millisecond
 * while they find work, and backs off (doubling) to every TP_CTL_POLL_MAX_MS while
 * they find none: the control thread often shares a CPU with a worker, and each
 * wake-up takes that CPU from it. 0 or -ENOSPC. */
int tp_ctl_add_poller(tp_poller_cb cb);
#define TP_CTL_POLL_MAX_MS 8u
/* Keep passing every millisecond for the next ms milliseconds, work or not: a poller
 * that found a routing protocol's frame (BFD every 100-300 ms, whose detection time
 * each frame's wait in the exception ring adds to) keeps the next one from waiting
 * up to TP_CTL_POLL_MAX_MS (decision 0114). */
void tp_ctl_poll_hold(unsigned int ms);
#define TP_CTL_CONTROL_HOLD_MS 1000u
/* The loop's next wait for pollers, after a pass that waited poll_ms and in which
 * they found work (a count): 1 ms after work or within a hold, else twice the last,
 * at most TP_CTL_POLL_MAX_MS. */
unsigned int tp_ctl_next_poll_ms(unsigned int poll_ms, unsigned int work, uint64_t now_ms);

#endif
