/* SPDX-License-Identifier: BSD-3-Clause */
/* Control-plane event loop. */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>

#include "control.h"

#define MAX_FDS 256

struct watch {
	int fd;
	tp_fd_cb cb;
	void *arg;
};

static int epfd = -1;
static struct watch watches[MAX_FDS];
static tp_tick_cb ticks[8];
static unsigned int n_ticks;

int tp_ctl_add_tick(tp_tick_cb cb)
{
	if (n_ticks == RTE_DIM(ticks))
		return -ENOSPC;
	ticks[n_ticks++] = cb;
	return 0;
}

uint64_t tp_ctl_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int tp_ctl_init(void)
{
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd < 0)
		return -errno;
	for (int i = 0; i < MAX_FDS; i++)
		watches[i].fd = -1;
	return 0;
}

void tp_ctl_fini(void)
{
	if (epfd >= 0)
		close(epfd);
	epfd = -1;
}

int tp_ctl_add_fd(int fd, tp_fd_cb cb, void *arg)
{
	struct epoll_event ev = {.events = EPOLLIN};

	for (int i = 0; i < MAX_FDS; i++) {
		if (watches[i].fd >= 0)
			continue;
		watches[i] = (struct watch){fd, cb, arg};
		ev.data.u32 = (uint32_t)i;
		if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			watches[i].fd = -1;
			return -errno;
		}
		return 0;
	}
	return -ENOSPC;
}

void tp_ctl_del_fd(int fd)
{
	for (int i = 0; i < MAX_FDS; i++) {
		if (watches[i].fd == fd) {
			epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);
			watches[i].fd = -1;
		}
	}
}

void tp_ctl_loop(volatile bool *running)
{
	struct epoll_event evs[32];

	while (*running) {
		/* 1 ms with ticks: bounds the latency of the exception path towards the
		 * kernel; without, sleep long (the generator's API shares its CPU) */
		int n = epoll_wait(epfd, evs, 32, n_ticks ? 1 : 100);
		for (int i = 0; i < n; i++) {
			struct watch *w = &watches[evs[i].data.u32];
			if (w->fd >= 0)
				w->cb(w->fd, w->arg);
		}
		for (unsigned int i = 0; i < n_ticks; i++)
			ticks[i]();
	}
}
