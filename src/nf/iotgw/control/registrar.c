/* SPDX-License-Identifier: BSD-3-Clause */
/* The dual plane's registrar (control plane): the steps of register.c as
 * confirmable CoAP requests on a kernel socket connected to the IN-CSE (the kernel
 * drops datagrams from anyone else), answered asynchronously, retried on timeout
 * with a doubling wait and, once the IN-CSE has missed TP_IOTGW_REG_TRIES, on at the
 * longest wait until it answers (an IN-CSE that restarts finds the devices that
 * associated meanwhile); at most REG_WINDOW registrations in flight (the next one
 * starts as one finishes); the data plane never waits. With tp_iotgw.ae_retention_s
 * it also sets the expirationTime of READY AEs again (refresh_one) and registers an
 * agent again whose AE the IN-CSE lost (tp_iotgw_registrar_again). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../../control/control.h"
#include "../../../core/log.h"
#include "../iotgw.h"
#include "control.h"

#define REG_WINDOW 64 /* requests in flight, at most */

#define WAITQ (2 * TP_AE_MAX) /* a power of two */

static int sock = -1;
static uint16_t next_mid;
static unsigned int in_flight;
/* registrations waiting for a slot in the window, oldest first: index | gen << 16
 * (stale ones, released meanwhile, are skipped; overflow falls back to the tick) */
static uint32_t waitq[WAITQ];
static unsigned int wq_head, wq_tail;

/* Send the request of the entry's current step. */
static void reg_send(int idx)
{
	struct tp_ae *e = &tp_ae_table[idx];
	uint8_t buf[1024];
	int n = tp_iotgw_reg_request(idx, buf, sizeof(buf), next_mid++);
	unsigned int shift =
	    e->reg_tries < TP_IOTGW_REG_BACKOFF_MAX ? e->reg_tries : TP_IOTGW_REG_BACKOFF_MAX;

	if (n > 0 && send(sock, buf, (size_t)n, 0) > 0)
		tp_iotgw_sess.reg_requests++;
	e->reg_due_ms = tp_ctl_now_ms() + (uint64_t)tp_iotgw.reg_timeout_ms * (1u << shift);
}

/* Entry idx's registration, now at step 0: sent if the window has room, else queued. */
static void reg_enqueue(int idx)
{
	if (in_flight < REG_WINDOW) {
		in_flight++;
		reg_send(idx);
	} else if (wq_tail - wq_head < WAITQ) {
		waitq[wq_tail++ % WAITQ] = (uint32_t)idx | (uint32_t)tp_ae_table[idx].gen << 16;
	} /* else the tick finds it */
}

void tp_iotgw_registrar_start(int idx)
{
	tp_iotgw_reg_begin(idx);
	reg_enqueue(idx);
}

void tp_iotgw_registrar_again(int idx)
{
	if (tp_ae_table[idx].state != TP_AE_READY)
		return; /* registering already (or ending): once */
	tp_iotgw_sess.ae_expired++;
	tp_iotgw_sess.ae_reregistered++;
	TP_LOG(NOTICE, "iotgw: %s is gone on the IN-CSE (4.04): registering it again",
	       tp_ae_table[idx].ae_name);
	tp_iotgw_reg_again(idx);
	reg_enqueue(idx);
}

/* A registration left the window: start the oldest one waiting. */
static void slot_freed(void)
{
	if (in_flight)
		in_flight--;
	while (wq_head != wq_tail && in_flight < REG_WINDOW) {
		uint32_t v = waitq[wq_head++ % WAITQ];
		int idx = (int)(v & 0xffff);
		struct tp_ae *e = &tp_ae_table[idx];
		if (e->gen != (uint16_t)(v >> 16) || e->state != TP_AE_REGISTERING || e->reg_due_ms)
			continue;
		in_flight++;
		reg_send(idx);
	}
}

static void sock_readable(int fd, void *arg)
{
	uint8_t buf[2048];
	int idx;

	(void)arg;
	for (int budget = 256; budget > 0; budget--) {
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0 && errno == ECONNREFUSED)
			continue; /* the IN-CSE's port is closed (ICMP): the retries go on */
		if (n <= 0)
			return;
		switch (tp_iotgw_reg_response(buf, (size_t)n, &idx)) {
		case TP_IOTGW_REG_NEXT:
			reg_send(idx);
			break;
		case TP_IOTGW_REG_READY:
			slot_freed();
			/* its expirationTime was set by the last step: again halfway to it */
			if (tp_iotgw.ae_retention_s > 0)
				tp_ae_table[idx].refresh_ms =
				    tp_iotgw_refresh_at(tp_ctl_now_ms(), tp_iotgw.ae_retention_s);
			tp_iotgw_early_ready(idx); /* reports that came meanwhile go on */
			break;
		case TP_IOTGW_REG_REFRESHED:
			tp_ae_table[idx].refresh_ms =
			    tp_iotgw_refresh_at(tp_ctl_now_ms(), tp_iotgw.ae_retention_s);
			break;
		case TP_IOTGW_REG_REFRESH_FAILED:
			tp_ae_table[idx].refresh_ms = tp_iotgw_refresh_retry_at(
			    tp_ctl_now_ms(), tp_iotgw.ae_retention_s, tp_iotgw.reg_timeout_ms);
			break;
		case TP_IOTGW_REG_GONE: /* expired (or deleted): made again */
			tp_iotgw_registrar_again(idx);
			break;
		case TP_IOTGW_REG_FAILED:
			TP_LOG(WARNING, "iotgw: IN-CSE refused %s step %u",
			       tp_ae_table[idx].ae_name, tp_ae_table[idx].reg_step);
			slot_freed();
			break;
		default:
			break;
		}
	}
}

/* The AE of associated agent i (READY): its expirationTime set again when due (halfway
 * to it), one UPDATE per AE at a time, at most TP_IOTGW_REFRESH_PER_TICK started per
 * tick (*started) and REG_WINDOW in flight (*flying); an unanswered one is sent again
 * as a registration step is, TP_IOTGW_REG_TRIES times, then it counts failed and waits
 * for its next turn. */
static void refresh_one(int i, uint64_t now, unsigned int *flying, unsigned int *started)
{
	struct tp_ae *e = &tp_ae_table[i];

	if (e->refreshing) {
		if (now < e->reg_due_ms)
			return;
		if (++e->reg_tries >= TP_IOTGW_REG_TRIES) {
			e->refreshing = 0;
			e->reg_due_ms = 0;
			tp_iotgw_sess.ae_refresh_failed++;
			e->refresh_ms = tp_iotgw_refresh_retry_at(now, tp_iotgw.ae_retention_s,
								  tp_iotgw.reg_timeout_ms);
			return;
		}
		tp_iotgw_sess.reg_retries++;
		reg_send(i);
	} else if (tp_iotgw_refresh_due(e, now) && *started < TP_IOTGW_REFRESH_PER_TICK &&
		   *flying < REG_WINDOW) {
		e->refreshing = 1;
		e->reg_tries = 0;
		e->reg_errors = 0;
		(*started)++;
		(*flying)++;
		reg_send(i);
	}
}

void tp_iotgw_registrar_tick(void)
{
	uint64_t now = tp_ctl_now_ms();
	unsigned int flying = 0, started = 0; /* refreshes in flight, started this tick */

	/* requests in flight, counted afresh (entries may have been released meanwhile) */
	in_flight = 0;
	for (int i = 0; i < TP_AE_MAX; i++) {
		if (tp_ae_table[i].state == TP_AE_REGISTERING && tp_ae_table[i].reg_due_ms != 0)
			in_flight++;
		else if (tp_ae_table[i].state == TP_AE_READY && tp_ae_table[i].refreshing)
			flying++;
	}

	in_flight++; /* slot_freed() takes one back: start what the queue holds */
	slot_freed();
	for (int i = 0; i < TP_AE_MAX; i++) {
		struct tp_ae *e = &tp_ae_table[i];
		if (e->state == TP_AE_READY && tp_iotgw.ae_retention_s > 0)
			refresh_one(i, now, &flying, &started);
		if (e->state != TP_AE_REGISTERING)
			continue;
		if (e->reg_due_ms == 0) { /* waiting, and not in the queue (it overflowed) */
			if (in_flight >= REG_WINDOW)
				continue;
			in_flight++;
			reg_send(i);
		} else if (now >= e->reg_due_ms) {
			/* no answer: again, waiting longer (the counter stops at 255) */
			if (e->reg_tries < UINT8_MAX)
				e->reg_tries++;
			tp_iotgw_sess.reg_retries++;
			reg_send(i);
		}
	}
}

int tp_iotgw_cse_socket(void)
{
	struct sockaddr_in to = {.sin_family = AF_INET,
				 .sin_port = htons(tp_iotgw.cse_port),
				 .sin_addr.s_addr = htonl(tp_iotgw.cse_ip)};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&to, sizeof(to)) < 0) {
		int ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

int tp_iotgw_registrar_init(void)
{
	int ret;

	sock = tp_iotgw_cse_socket();
	if (sock < 0) {
		ret = sock;
		sock = -1;
		return ret;
	}
	if ((ret = tp_ctl_add_fd(sock, sock_readable, NULL)) < 0)
		goto close_sock;
	return 0;
close_sock:
	close(sock);
	sock = -1;
	return ret;
}

void tp_iotgw_registrar_fini(void)
{
	if (sock < 0)
		return;
	tp_ctl_del_fd(sock);
	close(sock);
	sock = -1;
}
