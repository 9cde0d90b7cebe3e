/* SPDX-License-Identifier: BSD-3-Clause */
/* An af_packet L2 bridge member's 802.1ad frames kept (core/afpacket.c): the kernel's
 * verifier accepts the XDP wrap, which BPF_PROG_TEST_RUN runs on crafted frames (the
 * bytes it makes), and the RX callback's unwrap gives back the frame as sent, drops
 * and counts a frame too short to have been wrapped, and leaves every other frame as
 * it is. The XDP tests skip without CAP_BPF. */
#include <errno.h>
#include <linux/bpf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "../../src/core/afpacket.h"
#include "../../src/core/counter.h"
#include "../../src/core/mbuf.h"
#include "../../src/core/worker.h"
#include "eal_fixture.h"

#define FRAME_MAX 128

static struct rte_mempool *pool;
static struct tp_worker *w;

struct frame {
	uint8_t b[FRAME_MAX];
	uint32_t len;
};

/* dst, src, then the bytes from the EtherType on (type_and_rest, n of them) */
static struct frame frame_make(const uint8_t *type_and_rest, uint32_t n)
{
	static const uint8_t addrs[12] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					  0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
	struct frame f = {.len = 12 + n};

	memcpy(f.b, addrs, 12);
	memcpy(f.b + 12, type_and_rest, n);
	return f;
}

/* f as the wrap makes it: 0x88b5, the mark, then f's EtherType on */
static struct frame wrapped(const struct frame *f)
{
	struct frame g = {.len = f->len + 4};

	memcpy(g.b, f->b, 12);
	memcpy(g.b + 12, "\x88\xb5tp", 4);
	memcpy(g.b + 16, f->b + 12, f->len - 12);
	return g;
}

/* Run the XDP program on f: its verdict, the frame out in *out. */
static int xdp_run(int prog, const struct frame *f, struct frame *out)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	memset(out, 0, sizeof(*out));
	a.test.prog_fd = (uint32_t)prog;
	a.test.data_in = (uint64_t)(uintptr_t)f->b;
	a.test.data_size_in = f->len;
	a.test.data_out = (uint64_t)(uintptr_t)out->b;
	a.test.data_size_out = sizeof(out->b);
	a.test.repeat = 1;
	assert_int_equal(syscall(__NR_bpf, BPF_PROG_TEST_RUN, &a, sizeof(a)), 0);
	out->len = a.test.data_size_out;
	return (int)a.test.retval;
}

static const uint8_t stag[] = {0x88, 0xa8, 0x00, 0x0a, 0x81, 0x00, 0x00,
			       0x14, 0x08, 0x00, 0x45, 0x00, 0x00, 0x14};
static const uint8_t native[] = {0x88, 0xb5, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06};
static const uint8_t ctag[] = {0x81, 0x00, 0x00, 0x0a, 0x08, 0x00, 0x45, 0x00};
static const uint8_t ip[] = {0x08, 0x00, 0x45, 0x00, 0x00, 0x14};

static int wrap_prog_or_skip(void)
{
	int prog = tp_afpacket_wrap_prog();

	if (prog < 0 && (errno == EPERM || errno == EACCES))
		skip();		/* no CAP_BPF: the daemon refuses S-tagged frames then */
	assert_true(prog >= 0); /* the verifier took it */
	return prog;
}

/* 802.1ad's and the wrap's own EtherType wrapped, nothing else touched */
static void test_wrap(void **state)
{
	const struct frame in[] = {frame_make(stag, sizeof(stag)),
				   frame_make(native, sizeof(native)),
				   frame_make(ctag, sizeof(ctag)), frame_make(ip, sizeof(ip))};
	int prog = wrap_prog_or_skip();
	struct frame out;

	(void)state;
	for (unsigned int i = 0; i < 4; i++) {
		struct frame want = i < 2 ? wrapped(&in[i]) : in[i];

		assert_int_equal(xdp_run(prog, &in[i], &out), XDP_PASS);
		assert_int_equal(out.len, want.len);
		assert_memory_equal(out.b, want.b, want.len);
	}
	close(prog);
}

static struct rte_mbuf *mbuf_of(const struct frame *f)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	assert_non_null(m);
	memcpy(rte_pktmbuf_append(m, (uint16_t)f->len), f->b, f->len);
	m->port = 1;
	return m;
}

static void assert_mbuf(const struct rte_mbuf *m, const struct frame *f)
{
	assert_int_equal(rte_pktmbuf_pkt_len(m), f->len);
	assert_int_equal(rte_pktmbuf_data_len(m), f->len);
	assert_memory_equal(rte_pktmbuf_mtod(m, const uint8_t *), f->b, f->len);
}

/* the wrap's frames unwrapped, in order; the short one dropped and counted; the
 * others (an 0x88b5 frame without the mark among them) as they came */
static void test_unwrap(void **state)
{
	const struct frame s = frame_make(stag, sizeof(stag));
	const struct frame n = frame_make(native, sizeof(native));
	const struct frame c = frame_make(ctag, sizeof(ctag));
	const struct frame shortf = frame_make((const uint8_t *)"\x88\xb5tp", 4);
	const struct frame bare = frame_make((const uint8_t *)"\x88\xb5", 2);
	struct frame ws = wrapped(&s), wn = wrapped(&n);
	struct rte_mbuf *pkts[8];
	uint16_t k;

	(void)state;
	pkts[0] = mbuf_of(&ws);
	pkts[1] = mbuf_of(&c);
	pkts[2] = mbuf_of(&shortf);
	pkts[3] = mbuf_of(&n); /* no mark: not wrapped, left so */
	pkts[4] = mbuf_of(&wn);
	pkts[5] = mbuf_of(&bare);
	k = tp_afpacket_unwrap(w, pkts, 6);
	assert_int_equal(k, 4);
	assert_mbuf(pkts[0], &s);
	assert_mbuf(pkts[1], &c);
	assert_mbuf(pkts[2], &n);
	assert_mbuf(pkts[3], &n);
	assert_int_equal(w->ctr[1][TP_DROP_AFPACKET_UNWRAP_SHORT], 2);
	rte_pktmbuf_free_bulk(pkts, k);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
	w->ctr[1][TP_DROP_AFPACKET_UNWRAP_SHORT] = 0;
}

/* the kernel's wrap and the callback's unwrap: the frame as sent */
static void test_round_trip(void **state)
{
	const struct frame in[] = {frame_make(stag, sizeof(stag)),
				   frame_make(native, sizeof(native)),
				   frame_make((const uint8_t *)"\x88\xa8", 2)};
	int prog = wrap_prog_or_skip();
	struct frame out;

	(void)state;
	for (unsigned int i = 0; i < 3; i++) {
		struct rte_mbuf *m;

		assert_int_equal(xdp_run(prog, &in[i], &out), XDP_PASS);
		m = mbuf_of(&out);
		assert_int_equal(tp_afpacket_unwrap(w, &m, 1), 1);
		assert_mbuf(m, &in[i]);
		rte_pktmbuf_free(m);
	}
	assert_int_equal(w->ctr[1][TP_DROP_AFPACKET_UNWRAP_SHORT], 0);
	close(prog);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_wrap),
	    cmocka_unit_test(test_unwrap),
	    cmocka_unit_test(test_round_trip),
	};

	if (tp_test_eal_init() < 0)
		return 1;
	pool = rte_pktmbuf_pool_create("afp", 63, 0, TP_MBUF_PRIV_SIZE, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	w = rte_zmalloc("w", sizeof(*w), RTE_CACHE_LINE_SIZE);
	if (pool == NULL || w == NULL || (w->ctr = calloc(TP_MAX_PORTS, sizeof(*w->ctr))) == NULL)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
