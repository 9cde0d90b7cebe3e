/* SPDX-License-Identifier: BSD-3-Clause */
/* The NDN forwarder as a module: its configuration, counters, per-lcore state and
 * poll. Where the rest is: datapath/ the stages (input, fwd, output, lp, face) and
 * their tables (pcct, fib), control/enable.c 'ndn enable' and the "ndn" port mode,
 * control/mgmt.c NFD management and the RIB, cli.c the commands. */
#include "../../core/tp.h"
#include "ndn.h"

struct ndn_conf ndn_conf = {
    .ndt_comps = 2,
    .ndt_bits = 16,
    .pit_capacity = 65536,
    .cs_capacity = 16384,
    .queue = {4096, 4096, 1024},
    .out_queue = 4096,
};
struct ndn_limits ndn_limits = {
    .face_idle_s = 600,	       /* NFD's face_system.udp.idle_timeout */
    .face_routes = 64,	       /* the review's figure: an application registers a few */
    .mgmt_rate = 200,	       /* commands a second */
    .mgmt_burst = 64,	       /* two control passes' worth */
    .expiration_max_s = 3600,  /* a remote registration lives an hour unless renewed */
    .pit_face_share = 25,      /* a quarter of a context's PIT for one face */
    .lifetime_max_ms = 120000, /* NFD honours any; a bound, as before */
    .stream_conns = 128,       /* per listener; NFD has no bound */
    .stream_sendq = 1 << 20,   /* a MiB: 119 Data of NFD's largest, 8,800 bytes */
};
struct ndn_fwd *ndn_fwd[NDN_CTX_MAX];
uint32_t ndn_tel_every;
const char *const ndn_stage_names[NDN_ST_MAX] = {"input", "queue", "interest", "data", "nack"};
uint8_t *ndn_ndt;

static const struct tp_ctr_desc ndn_ctrs[] = {NDN_COUNTERS(TP_CTR_DESC)};

static unsigned int ndn_poll(struct tp_worker *w, void *state)
{
	struct ndn_lcore *lc = state;
	struct ndn_fwd *f = __atomic_load_n(&lc->fwd, __ATOMIC_ACQUIRE);
	unsigned int n = f ? ndn_fwd_poll(w, f) : 0;

	/* partial packets of fragments past their timeout */
	if (w->now >= lc->lp.next_expiry)
		n += ndn_lp_expire(w, &lc->lp);
	return n;
}

/* at exit: the stream faces' sockets (the rest is the process's memory) */
static void ndn_fini(void)
{
	ndn_stream_fini();
}

static int ndn_lcore_init(struct tp_worker *w, void *state)
{
	ndn_lp_lcore_init(w, &((struct ndn_lcore *)state)->lp);
	return 0;
}

/* its UDP faces are on ip4's local UDP table, its Ethernet faces on an ethertype of
 * ip4's l3 mode; they send through ip4's output */
static const char *const ndn_deps[] = {"ip4", NULL};

struct tp_nf tp_ndn_nf = {
    .name = "ndn",
    .help = "NDN forwarder: faces, FIB, PIT-CS per forwarding lcore, NDT, NFD management",
    .ctrs = ndn_ctrs,
    .n_ctrs = RTE_DIM(ndn_ctrs),
    .lcore_size = sizeof(struct ndn_lcore),
    .depends_on = ndn_deps,
    .lcore_init = ndn_lcore_init,
    .fini = ndn_fini,
    .poll = ndn_poll,
    .metrics = ndn_metrics,
};
TP_NF_REGISTER(tp_ndn_nf)
