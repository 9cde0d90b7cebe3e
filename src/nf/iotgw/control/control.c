/* SPDX-License-Identifier: BSD-3-Clause */
/* The dual plane's control side: the session manager on an ordinary UDP socket
 * that the kernel feeds from the TAPs (the exception path), confirmed delivery of
 * the reports that come the same way (delivery.c), the asynchronous registrar, and
 * the timeouts, all on the control thread. In single-plane mode
 * only the timeouts run here, under the lock the worker takes for signaling. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rte_rcu_qsbr.h>

#include "../../../control/control.h"
#include "../../../control/port.h"
#include "../../../control/timer.h"
#include "../../../core/tp.h"
#include "../datapath/fast.h"
#include "../iotgw.h"
#include "control.h"
#include "../datapath/single.h"

static int sock = -1;
static struct tp_timer tick;

static int sock_send(struct tp_iotgw_io *io, const uint8_t *buf, size_t len, uint32_t ip,
		     uint16_t port)
{
	struct sockaddr_in to = {
	    .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(ip)};
	(void)io;
	return sendto(sock, buf, len, 0, (struct sockaddr *)&to, sizeof(to)) < 0 ? -errno : 0;
}

static void async_registration(struct tp_iotgw_io *io, int idx)
{
	(void)io;
	tp_iotgw_registrar_start(idx);
}

static struct tp_iotgw_io io = {.send = sock_send,
				.registration = async_registration,
				.last_seen = tp_iotgw_last_seen,
				.source_l2 = tp_iotgw_aarq_source};

/* Whether ip (host order) is an address of a data-plane port (of its TAP). */
static bool port_address(uint32_t ip)
{
	unsigned int it = 0;

	for (struct tp_port *p; (p = tp_port_next(&it)) != NULL;)
		for (unsigned int i = 0; i < p->n_addrs; i++)
			if (p->addrs[i].ip == ip)
				return true;
	return false;
}

/* Whether the kernel delivered a datagram the workers handed it: through a port's
 * TAP, to a port's unicast address, without IP options. The workers check a
 * session's source (its port and MAC, fast.c) before they punt its signaling; what
 * comes with options (punted as such by the router) or to a broadcast address
 * reaches this socket past that check, and real agents send neither; nor does
 * anything from another interface (the management network) or to a local address
 * that is not a port's (delivered by the kernel's local table), which would skip
 * the binding altogether (security review N7). */
static bool came_via_workers(struct msghdr *mh)
{
	bool unicast = false;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c != NULL; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level != IPPROTO_IP)
			continue;
		/* Linux labels the options IP_RECVOPTS (ip(7) says IP_OPTIONS) */
		if ((c->cmsg_type == IP_RECVOPTS || c->cmsg_type == IP_OPTIONS) &&
		    c->cmsg_len > CMSG_LEN(0))
			return false;
		if (c->cmsg_type == IP_PKTINFO) {
			struct in_pktinfo pi;
			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			unicast = pi.ipi_addr.s_addr == pi.ipi_spec_dst.s_addr;
			if (unicast && (tp_port_by_ifindex(pi.ipi_ifindex) == NULL ||
					!port_address(ntohl(pi.ipi_spec_dst.s_addr)))) {
				tp_iotgw_sess.not_via_tap++;
				return false;
			}
		}
	}
	return unicast;
}

static void sock_readable(int fd, void *arg)
{
	uint8_t buf[2048];
	union {
		struct cmsghdr align;
		uint8_t b[CMSG_SPACE(sizeof(struct in_pktinfo)) + CMSG_SPACE(40)];
	} cbuf;
	struct sockaddr_in from;

	(void)arg;
	for (int budget = 256; budget > 0; budget--) {
		struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
		struct msghdr mh = {.msg_name = &from,
				    .msg_namelen = sizeof(from),
				    .msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = cbuf.b,
				    .msg_controllen = sizeof(cbuf.b)};
		ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);
		if (n <= 0)
			return;
		if (!came_via_workers(&mh)) {
			tp_iotgw_sess.unchecked++;
			continue;
		}
		io.now_ms = tp_ctl_now_ms();
		if (tp_iotgw_early_input(&io, buf, (size_t)n, ntohl(from.sin_addr.s_addr),
					 ntohs(from.sin_port)))
			continue;
		if (tp_iotgw_delivery_input(&io, buf, (size_t)n, ntohl(from.sin_addr.s_addr),
					    ntohs(from.sin_port)))
			continue;
		tp_iotgw_session_input(&io, buf, (size_t)n, ntohl(from.sin_addr.s_addr),
				       ntohs(from.sin_port));
	}
}

/* Every 100 ms: session timeouts, the registrar's and the delivery's retries. */
static void control_tick(struct tp_timer *t)
{
	uint64_t now = tp_ctl_now_ms();

	tp_iotgw_wall_s = (uint64_t)time(NULL);
	if (tp_iotgw.single_plane) {
		/* the worker may hold it for a whole registration: never wait for it here
		 * (the API shares this thread) */
		if (tp_iotgw_single_trylock()) {
			tp_iotgw_session_expire(now, tp_iotgw_last_seen);
			tp_iotgw_single_unlock();
		}
		return;
	}
	io.now_ms = now;
	tp_iotgw_session_tick(&io); /* unanswered GETs: register without the attributes */
	tp_iotgw_early_tick(&io);
	tp_iotgw_registrar_tick();
	tp_iotgw_delivery_tick(now);
	tp_iotgw_session_expire(now, tp_iotgw_last_seen);
}

/* what each worker's report path hands to the control plane */
static void workers_set(bool defer, bool early)
{
	for (unsigned int i = 0; i < tp.n_workers; i++) {
		struct tp_iotgw_dp *dp = tp_iotgw_wstate(tp.workers[i]);
		if (dp == NULL)
			continue;
		dp->defer = defer;
		dp->early = early;
	}
}

int tp_iotgw_control_start(void)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(tp_iotgw.port)};
	int one = 1, ret;

	if (tp_iotgw.single_plane) {
		/* seed 000's old system: NON from the worker that converts */
		tp_iotgw.delivery = TP_IOTGW_DELIVERY_FORGET;
		if ((ret = tp_iotgw_single_init()) < 0)
			return ret;
		tp_timer_init(&tick, "iotgw", control_tick, NULL);
		tp_timer_every(&tick, 100);
		return 0;
	}
	if ((ret = tp_iotgw_registrar_init()) < 0)
		return ret;
	if ((ret = tp_iotgw_delivery_init(&io)) < 0)
		goto registrar_fini;
	if ((ret = tp_iotgw_early_init(&io)) < 0)
		goto delivery_fini;
	/* confirmed delivery: the workers hand reports over (before they get any); in
	 * either mode, reports that come before the AE is ready (early.c) */
	workers_set(tp_iotgw.delivery == TP_IOTGW_DELIVERY_CONFIRMED, true);
	sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (sock < 0) {
		ret = -errno;
		goto workers_reset;
	}
	setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (setsockopt(sock, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one)) < 0 ||
	    setsockopt(sock, IPPROTO_IP, IP_RECVOPTS, &one, sizeof(one)) < 0 ||
	    bind(sock, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ret = -errno;
		goto close_sock;
	}
	if ((ret = tp_ctl_add_fd(sock, sock_readable, NULL)) < 0)
		goto close_sock;
	tp_timer_init(&tick, "iotgw", control_tick, NULL);
	tp_timer_every(&tick, 100);
	return 0;
close_sock:
	close(sock);
	sock = -1;
workers_reset:
	workers_set(false, false);
	tp_iotgw_early_fini();
delivery_fini:
	tp_iotgw_delivery_fini();
registrar_fini:
	tp_iotgw_registrar_fini();
	return ret;
}

void tp_iotgw_control_stop(void)
{
	tp_timer_cancel(&tick);
	if (tp_iotgw.single_plane) {
		tp_iotgw_single_fini(); /* what control_start's single_init made */
		return;
	}
	if (sock >= 0) {
		tp_ctl_del_fd(sock);
		close(sock);
		sock = -1;
	}
	workers_set(false, false);
	tp_iotgw_early_fini();
	tp_iotgw_delivery_fini();
	tp_iotgw_registrar_fini();
}
