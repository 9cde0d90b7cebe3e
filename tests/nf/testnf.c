/* SPDX-License-Identifier: BSD-3-Clause */
/* A network function for the tests only, linked into the test daemon
 * (twinplane-testnf): it plugs into the core as every module does, and nothing in
 * src/core or src/control names it.
 *
 *   ethertype 0x88b5 on l3 ports: frames starting with the magic "TPNF" are echoed
 *       back out of their port (MACs swapped), or held (testnf hold on) until
 *       'testnf release'; others are dropped as testnf.bad_magic
 *   port mode 'testpipe to PORT': a pipeline, NDN-DPDK style: the input lcore
 *       dispatches each frame by a hash of its first bytes over rings to the
 *       forwarding lcores, which hand it to the output lcore's ring, which sends it
 *       out of PORT ('testnf pipeline forwarding L[,L...] output L' makes the rings)
 *   counters testnf.frames, echoed, held, bad_magic, pipe_in, pipe_fwd, pipe_out */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_jhash.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "../../src/control/cmd.h"
#include "../../src/control/port.h"
#include "../../src/core/input.h"
#include "../../src/nf/ip4/l3mode.h"
#include "../../src/core/lcore.h"
#include "../../src/core/nf.h"
#include "../../src/core/ring.h"
#include "../../src/core/tp.h"
#include "../../src/tables/iface.h"

#define TESTNF_ETHERTYPE 0x88b5 /* IEEE 802 local experimental ethertype 1 */
#define TESTNF_MAGIC "TPNF"
#define HOLD_MAX 4096
#define FWD_MAX 4

#define TESTNF_COUNTERS(X)                                                                         \
	X(FRAMES, "frames", EVENT)                                                                 \
	X(ECHOED, "echoed", EVENT)                                                                 \
	X(HELD, "held", EVENT)                                                                     \
	X(BAD_MAGIC, "bad_magic", DROP)                                                            \
	X(PIPE_IN, "pipe_in", EVENT)                                                               \
	X(PIPE_FWD, "pipe_fwd", EVENT)                                                             \
	X(PIPE_OUT, "pipe_out", EVENT)

enum {
#define X(e, n, k) TN_##e,
	TESTNF_COUNTERS(X)
#undef X
};

static const struct tp_ctr_desc testnf_ctrs[] = {TESTNF_COUNTERS(TP_CTR_DESC)};

static int testnf_init(void);
static void testnf_fini(void);

static struct tp_nf testnf = {
    .name = "testnf",
    .help = "a test-only network function (tests/nf/testnf.c)",
    .ctrs = testnf_ctrs,
    .n_ctrs = RTE_DIM(testnf_ctrs),
    .init = testnf_init,
    .fini = testnf_fini,
};
TP_NF_REGISTER(testnf)

#define CTR(e) (testnf.ctr_base + TN_##e)

/* per-packet metadata of the pipeline, in the mbuf's network-function area */
struct tn_meta {
	uint16_t out_port;
	uint32_t hash;
};
TP_MBUF_META(tn_meta, struct tn_meta)

static struct rte_ring *held; /* frames kept by 'testnf hold on' (MP/MC) */
static volatile int hold_on;
static struct tp_ring *fwd_rings[FWD_MAX];
static unsigned int n_fwd;
static struct tp_ring *out_ring;

static void testnf_input(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);

		if (rte_pktmbuf_data_len(m) < 14 + 4 || memcmp(eth + 14, TESTNF_MAGIC, 4) != 0) {
			tp_drop(w, m, CTR(BAD_MAGIC));
			continue;
		}
		tp_count(w, m->port, CTR(FRAMES));
		if (__atomic_load_n(&hold_on, __ATOMIC_RELAXED)) {
			if (rte_ring_mp_enqueue(held, m) == 0) {
				tp_count(w, m->port, CTR(HELD));
				continue;
			}
		}
		/* back to the sender, from us */
		memcpy(eth, eth + 6, 6);
		memcpy(eth + 6, &tp_iface_table[m->port].mac, 6);
		tp_count(w, m->port, CTR(ECHOED));
		tp_worker_tx_enqueue(w, m, m->port);
	}
}

/* --- the pipeline --- */
static void pipe_input(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf *to[FWD_MAX][TP_BURST];
	unsigned int k[FWD_MAX] = {0}, nf = __atomic_load_n(&n_fwd, __ATOMIC_ACQUIRE);
	uint16_t out = (uint16_t)(uintptr_t)tp_iface_table[pkts[0]->port].mode_ctx - 1;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct tn_meta *meta = tn_meta(m);
		uint32_t len = RTE_MIN(rte_pktmbuf_data_len(m), 64u);
		/* NDN-DPDK's NDT dispatches by a hash of the name; here, the first bytes */
		meta->hash = rte_jhash(rte_pktmbuf_mtod(m, void *), len, 0);
		meta->out_port = out;
		tp_count(w, m->port, CTR(PIPE_IN));
		unsigned int f = meta->hash % nf;
		to[f][k[f]++] = m;
	}
	for (unsigned int f = 0; f < nf; f++)
		if (k[f])
			tp_ring_enqueue(w, fwd_rings[f], to[f], k[f]);
}

static void pipe_forward(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n, void *ctx)
{
	for (uint16_t i = 0; i < n; i++) {
		tp_count(w, pkts[i]->port, CTR(PIPE_FWD));
		pkts[i]->port = tn_meta(pkts[i])->out_port;
	}
	tp_ring_enqueue(w, out_ring, pkts, n);
}

static void pipe_output(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n, void *ctx)
{
	for (uint16_t i = 0; i < n; i++)
		tp_count(w, pkts[i]->port, CTR(PIPE_OUT));
	tp_ring_tx(w, pkts, n, ctx);
}

static int pipe_attach(uint16_t port, int argc, char **argv, void **ctx, char *err, size_t len)
{
	struct tp_port *p;

	if (argc != 2 || strcmp(argv[0], "to")) {
		snprintf(err, len, "usage: port set P mode testpipe to PORT");
		return -EINVAL;
	}
	if ((p = tp_port_by_name(argv[1])) == NULL) {
		snprintf(err, len, "no port named '%s'", argv[1]);
		return -ENODEV;
	}
	if (n_fwd == 0) {
		snprintf(err, len, "no pipeline: run 'testnf pipeline ...' first");
		return -ENOENT;
	}
	*ctx = (void *)(uintptr_t)(p->id + 1u);
	return 0;
}

static struct tp_port_mode testpipe = {
    .name = "testpipe",
    .usage = "to PORT",
    .help = "test pipeline: input, forwarding and output lcores (tests/nf/testnf.c)",
    .input = pipe_input,
    .attach = pipe_attach,
};
TP_PORT_MODE_REGISTER(testpipe)

/* "1,2" -> worker ids */
static int lcore_list(const char *s, unsigned int *ids, unsigned int cap)
{
	char buf[64], *save = NULL;
	unsigned int n = 0;
	uint64_t v;
	int id;

	snprintf(buf, sizeof(buf), "%s", s);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (n == cap || tp_parse_u64(t, 0, RTE_MAX_LCORE - 1, &v) < 0 ||
		    (id = tp_lcore_by_eal((unsigned int)v)) < 0)
			return -EINVAL;
		ids[n++] = (unsigned int)id;
	}
	return (int)n;
}

static int cmd_pipeline(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	unsigned int fwd[FWD_MAX], out, nf;
	uint64_t size = 1024;
	char name[TP_RING_NAME_MAX];
	int ret;

	if ((argc != 4 && argc != 6) || strcmp(argv[0], "forwarding") ||
	    strcmp(argv[2], "output") || (argc == 6 && strcmp(argv[4], "ring-size")))
		return tp_cmd_err(ctx, EINVAL,
				  "usage: testnf pipeline forwarding L[,L...] output L "
				  "[ring-size N]");
	if (n_fwd)
		return tp_cmd_err(ctx, EEXIST, "testnf pipeline: made already");
	if ((ret = lcore_list(argv[1], fwd, FWD_MAX)) <= 0)
		return tp_cmd_err(ctx, EINVAL, "testnf pipeline: bad forwarding lcores '%s'",
				  argv[1]);
	nf = (unsigned int)ret;
	if (lcore_list(argv[3], &out, 1) != 1)
		return tp_cmd_err(ctx, EINVAL, "testnf pipeline: bad output lcore '%s'", argv[3]);
	if (argc == 6 && tp_parse_u64(argv[5], 2, 1 << 20, &size) < 0)
		return tp_cmd_err(ctx, EINVAL, "testnf pipeline: bad ring-size '%s'", argv[5]);
	out_ring =
	    tp_ring_create("tn_out", "testnf", (unsigned int)size, out, 0, pipe_output, NULL);
	if (out_ring == NULL)
		return tp_cmd_err(ctx, rte_errno, "testnf pipeline: ring tn_out: %s",
				  rte_strerror(rte_errno));
	for (unsigned int i = 0; i < nf; i++) {
		snprintf(name, sizeof(name), "tn_fwd%u", i);
		fwd_rings[i] = tp_ring_create(name, "testnf", (unsigned int)size, fwd[i], 0,
					      pipe_forward, NULL);
		if (fwd_rings[i] == NULL)
			return tp_cmd_err(ctx, rte_errno, "testnf pipeline: ring %s: %s", name,
					  rte_strerror(rte_errno));
	}
	__atomic_store_n(&n_fwd, nf, __ATOMIC_RELEASE);
	return 0;
}

static int cmd_hold(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	if (argc != 1 || (strcmp(argv[0], "on") && strcmp(argv[0], "off")))
		return tp_cmd_err(ctx, EINVAL, "usage: testnf hold on|off");
	__atomic_store_n(&hold_on, strcmp(argv[0], "on") == 0, __ATOMIC_RELAXED);
	return 0;
}

static int cmd_release(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	void *m;
	uint64_t n = 0;

	while (rte_ring_mc_dequeue(held, &m) == 0) {
		rte_pktmbuf_free(m);
		n++;
	}
	tp_out_u64(ctx->out, "released", n);
	return 0;
}

static int cmd_show(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	tp_out_bool(ctx->out, "hold", hold_on);
	tp_out_u64(ctx->out, "held", rte_ring_count(held));
	tp_out_u64(ctx->out, "forwarding_rings", n_fwd);
	return 0;
}

static struct tp_cmd c_pipeline = {"testnf pipeline", "forwarding L[,L...] output L [ring-size N]",
				   "make the test pipeline's rings", cmd_pipeline, NULL};
static struct tp_cmd c_hold = {"testnf hold", "on|off", "keep echo frames instead of echoing",
			       cmd_hold, NULL};
static struct tp_cmd c_release = {"testnf release", NULL, "free the frames kept", cmd_release,
				  NULL};
static struct tp_cmd c_show = {"show testnf", NULL, "the test network function", cmd_show, NULL};
TP_CMD_REGISTER(c_pipeline)
TP_CMD_REGISTER(c_hold)
TP_CMD_REGISTER(c_release)
TP_CMD_REGISTER(c_show)

static int testnf_init(void)
{
	held = rte_ring_create("testnf_held", HOLD_MAX, SOCKET_ID_ANY, 0);
	if (held == NULL)
		return -rte_errno;
	return tp_ethertype_register(TESTNF_ETHERTYPE, testnf_input, "testnf");
}

static void testnf_fini(void)
{
	void *m;

	while (held && rte_ring_mc_dequeue(held, &m) == 0)
		rte_pktmbuf_free(m);
	rte_ring_free(held);
	held = NULL;
}
