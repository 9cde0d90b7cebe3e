/* SPDX-License-Identifier: BSD-3-Clause */
/* The exception path's reads from a TAP (review F12): each port's frames from the
 * kernel come from that port's share of mbufs (its own pool, as port.c makes it), so
 * one port reading without bound leaves every other port its whole share; a frame over
 * the share is read and dropped (the fd drained, nothing held), and every mbuf comes
 * home. A SOCK_SEQPACKET pair stands for the TAP: one read, one frame. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "../../src/control/exception.h"
#include "../../src/control/port.h"
#include "eal_fixture.h"

#define SHARE 63
#define FRAME_MAX 9018 /* MTU 9000, Ethernet header and one tag */

struct side {
	int fd[2]; /* [0] the daemon's end (nonblocking), [1] the kernel's */
	struct rte_mempool *mp;
	struct rte_mbuf *held[4 * SHARE];
	unsigned int n_held;
};

static void side_open(struct side *s, const char *name)
{
	memset(s, 0, sizeof(*s));
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, s->fd), 0);
	/* as port.c makes a port's share: the daemon's mbufs, no cache */
	s->mp = tp_pool_create(name, SHARE, 0);
	assert_non_null(s->mp);
}

static void side_close(struct side *s)
{
	close(s->fd[0]);
	close(s->fd[1]);
	rte_mempool_free(s->mp);
}

/* The kernel sends one frame of len bytes, byte i being (seq + i) & 0xff. */
static void kernel_sends(struct side *s, size_t len, uint8_t seq)
{
	static uint8_t f[FRAME_MAX + 100];

	for (size_t i = 0; i < len; i++)
		f[i] = (uint8_t)(seq + i);
	assert_int_equal(send(s->fd[1], f, len, 0), (ssize_t)len);
}

/* Read until the fd is empty, keeping every frame; counts of what was read into
 * mbufs and what was dropped over the share. */
static void daemon_reads(struct side *s, unsigned int *ok, unsigned int *share)
{
	enum tp_exc_read why;
	struct rte_mbuf *m;

	*ok = *share = 0;
	for (;;) {
		m = tp_exc_read_frame(s->fd[0], s->mp, FRAME_MAX, &why);
		if (m != NULL) {
			assert_int_equal(why, TP_EXC_READ_OK);
			assert_true(s->n_held < RTE_DIM(s->held));
			s->held[s->n_held++] = m;
			(*ok)++;
			continue;
		}
		if (why == TP_EXC_READ_NONE)
			return;
		assert_int_equal(why, TP_EXC_READ_SHARE);
		(*share)++;
	}
}

static void release_all(struct side *s)
{
	for (unsigned int i = 0; i < s->n_held; i++)
		rte_pktmbuf_free(s->held[i]);
	s->n_held = 0;
}

static void test_one_port_cannot_take_anothers_share(void **state)
{
	struct side a, b;
	unsigned int ok, share, total_share = 0;

	(void)state;
	side_open(&a, "t_kpool_a");
	side_open(&b, "t_kpool_b");
	/* port a's kernel floods: 40 frames at a time (the socket's queue), never freed */
	for (unsigned int round = 0; round < 5; round++) {
		for (unsigned int i = 0; i < 40; i++)
			kernel_sends(&a, 60, (uint8_t)i);
		daemon_reads(&a, &ok, &share);
		assert_int_equal(ok + share, 40);
		total_share += share;
		/* drained: nothing stays in the kernel's queue */
		uint8_t x;
		assert_int_equal(recv(a.fd[0], &x, 1, MSG_DONTWAIT), -1);
		assert_int_equal(errno, EAGAIN);
	}
	assert_int_equal(a.n_held, SHARE);
	assert_int_equal(total_share, 5 * 40 - SHARE);
	assert_int_equal(rte_mempool_in_use_count(a.mp), SHARE);
	/* port b still finds its whole share, 1-mbuf and chained frames alike */
	for (unsigned int i = 0; i < SHARE - 5 * 3; i++)
		kernel_sends(&b, 60, (uint8_t)i);
	daemon_reads(&b, &ok, &share);
	assert_int_equal(ok, SHARE - 15);
	assert_int_equal(share, 0);
	for (unsigned int i = 0; i < 5; i++)
		kernel_sends(&b, 5000, (uint8_t)(7 * i)); /* 3 mbufs each */
	daemon_reads(&b, &ok, &share);
	assert_int_equal(ok, 5);
	assert_int_equal(share, 0);
	assert_int_equal(rte_mempool_in_use_count(b.mp), SHARE);
	/* a chained frame's bytes, in order across its mbufs */
	struct rte_mbuf *m = b.held[b.n_held - 1];
	uint8_t buf[5000];
	const uint8_t *p = rte_pktmbuf_read(m, 0, 5000, buf);
	assert_int_equal(m->pkt_len, 5000);
	assert_int_equal(m->nb_segs, 3);
	for (size_t i = 0; i < 5000; i++)
		assert_int_equal(p[i], (uint8_t)(28 + i));
	release_all(&a);
	release_all(&b);
	assert_int_equal(rte_mempool_in_use_count(a.mp), 0);
	assert_int_equal(rte_mempool_in_use_count(b.mp), 0);
	side_close(&a);
	side_close(&b);
}

static void test_every_drop_returns_its_mbufs(void **state)
{
	struct side a;
	unsigned int ok, share;
	enum tp_exc_read why;

	(void)state;
	side_open(&a, "t_kpool_c");
	/* the share all but one mbuf: a chained frame gets its first mbuf, not the
	 * rest; it is dropped whole, its first mbuf back in the pool */
	for (unsigned int i = 0; i < SHARE - 1; i++)
		kernel_sends(&a, 60, 0);
	daemon_reads(&a, &ok, &share);
	assert_int_equal(ok, SHARE - 1);
	kernel_sends(&a, 5000, 0);
	daemon_reads(&a, &ok, &share);
	assert_int_equal(ok, 0);
	assert_int_equal(share, 1);
	assert_int_equal(rte_mempool_in_use_count(a.mp), SHARE - 1);
	/* the last mbuf still takes a frame that fits it */
	kernel_sends(&a, 60, 0);
	daemon_reads(&a, &ok, &share);
	assert_int_equal(ok, 1);
	release_all(&a);
	/* longer than the port allows: read, dropped, its mbufs home */
	kernel_sends(&a, FRAME_MAX + 1, 0);
	assert_null(tp_exc_read_frame(a.fd[0], a.mp, FRAME_MAX, &why));
	assert_int_equal(why, TP_EXC_READ_OVERSIZE);
	assert_null(tp_exc_read_frame(a.fd[0], a.mp, FRAME_MAX, &why));
	assert_int_equal(why, TP_EXC_READ_NONE);
	/* a failed read (no such fd) holds nothing */
	assert_null(tp_exc_read_frame(-1, a.mp, FRAME_MAX, &why));
	assert_int_equal(why, TP_EXC_READ_ERROR);
	assert_int_equal(rte_mempool_in_use_count(a.mp), 0);
	side_close(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_one_port_cannot_take_anothers_share),
	    cmocka_unit_test(test_every_drop_returns_its_mbufs),
	};

	if (tp_test_eal_init() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
