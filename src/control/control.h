/* SPDX-License-Identifier: BSD-3-Clause */
/* The control-plane event loop: one thread, epoll over the API socket, netlink and
 * the TAPs, plus a periodic tick that drains the workers' exception rings. */
#ifndef TP_CONTROL_CONTROL_H
#define TP_CONTROL_CONTROL_H

#include <stdbool.h>
#include <stdint.h>

typedef void (*tp_fd_cb)(int fd, void *arg);
typedef void (*tp_tick_cb)(void);

int tp_ctl_init(void);
void tp_ctl_fini(void);
/* Watch fd for input; cb runs on the control thread. 0 or negative errno. */
int tp_ctl_add_fd(int fd, tp_fd_cb cb, void *arg);
void tp_ctl_del_fd(int fd);
/* Run the loop until *running is cleared (by a signal handler). */
void tp_ctl_loop(volatile bool *running);
/* Time in milliseconds (monotonic), for timers of control-plane modules. */
uint64_t tp_ctl_now_ms(void);
/* Run cb on every pass of the loop (at least every millisecond). 0 or -ENOSPC. */
int tp_ctl_add_tick(tp_tick_cb cb);

#endif
