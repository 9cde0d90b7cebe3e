/* SPDX-License-Identifier: BSD-3-Clause */
/* Control-plane event loop. */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>

#include "control.h"
#include "timer.h"

#define MAX_FDS 512

struct watch {
	int fd;
	tp_fd_cb cb;
	void *arg;
};

static int epfd = -1;
static struct watch watches[MAX_FDS];
static tp_poller_cb pollers[8];
static unsigned int n_pollers;

int tp_ctl_add_poller(tp_poller_cb cb)
{
	if (n_pollers == RTE_DIM(pollers))
		return -ENOSPC;
	pollers[n_pollers++] = cb;
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

static int find(int fd)
{
	for (int i = 0; i < MAX_FDS; i++)
		if (watches[i].fd == fd)
			return i;
	return -1;
}

int tp_ctl_add_fd(int fd, tp_fd_cb cb, void *arg)
{
	struct epoll_event ev = {.events = EPOLLIN};
	int i = find(-1);

	if (i < 0)
		return -ENOSPC;
	watches[i] = (struct watch){fd, cb, arg};
	ev.data.u32 = (uint32_t)i;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		watches[i].fd = -1;
		return -errno;
	}
	return 0;
}

int tp_ctl_mod_fd(int fd, bool readable, bool writable)
{
	int i = find(fd);
	struct epoll_event ev = {
	    .events = (readable ? EPOLLIN : 0u) | (writable ? EPOLLOUT : 0u),
	};

	if (i < 0 || fd < 0)
		return -ENOENT;
	ev.data.u32 = (uint32_t)i;
	return epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev) < 0 ? -errno : 0;
}

void tp_ctl_del_fd(int fd)
{
	int i;

	if (fd < 0)
		return;
	while ((i = find(fd)) >= 0) {
		epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);
		watches[i].fd = -1;
	}
}

unsigned int tp_ctl_pass(int timeout_ms, unsigned int *events)
{
	struct epoll_event evs[32];
	unsigned int work = 0;
	int n = epoll_wait(epfd, evs, RTE_DIM(evs), timeout_ms);

	for (int i = 0; i < n; i++) {
		struct watch *w = &watches[evs[i].data.u32];
		/* a callback may have closed this fd, or another one of this batch */
		if (w->fd >= 0)
			w->cb(w->fd, w->arg);
	}
	for (unsigned int i = 0; i < n_pollers; i++)
		work += pollers[i]();
	tp_timer_run(tp_ctl_now_ms());
	if (events != NULL)
		*events = n > 0 ? (unsigned int)n : 0;
	return work;
}

static uint64_t hold_until_ms;

void tp_ctl_poll_hold(unsigned int ms)
{
	uint64_t until = tp_ctl_now_ms() + ms;

	if (until > hold_until_ms)
		hold_until_ms = until;
}

unsigned int tp_ctl_next_poll_ms(unsigned int poll_ms, unsigned int work, uint64_t now_ms)
{
	if (work || now_ms < hold_until_ms)
		return 1;
	return RTE_MIN(poll_ms * 2, TP_CTL_POLL_MAX_MS);
}

void tp_ctl_loop(volatile bool *running)
{
	unsigned int poll_ms = 1;

	while (*running) {
		uint64_t now = tp_ctl_now_ms();
		int64_t next = tp_timer_next_in(now);
		/* pollers bound the latency of the exception path towards the kernel: 1 ms
		 * while frames flow, at most TP_CTL_POLL_MAX_MS for the first after a quiet
		 * spell; without them sleep until a timer or 100 ms (the generator's API
		 * shares its CPU) */
		int timeout = n_pollers ? (int)poll_ms : 100;
		if (next >= 0 && next < timeout)
			timeout = (int)next;
		unsigned int work = tp_ctl_pass(timeout, NULL);
		poll_ms = tp_ctl_next_poll_ms(poll_ms, work, tp_ctl_now_ms());
	}
}
