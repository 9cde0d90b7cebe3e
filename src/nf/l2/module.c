/* SPDX-License-Identifier: BSD-3-Clause */
/* The L2 switch as a module: its counters, options, init/fini and per-lcore state.
 * Where the rest is: datapath/input.c the "l2" and "chain" modes' input,
 * control/mac.c the MAC table, control/bridge.c bridges and the "l2" port mode,
 * control/chain.c NFs and service chains, cli.c the commands. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_malloc.h>

#include "../../control/cmd.h"
#include "../../core/tp.h"
#include "control/control.h"

static const struct tp_ctr_desc l2_ctrs[] = {L2_COUNTERS(TP_CTR_DESC)};

/* 0 or -ENOMEM, with nothing left allocated */
static int l2_init(void)
{
	int ret;

	if ((ret = l2_mac_init()) < 0)
		return ret;
	if ((ret = l2_stp_init()) < 0) {
		l2_mac_fini();
		return ret;
	}
	l2_chain_init();
	return 0;
}

static void l2_fini(void)
{
	l2_chain_fini();
	l2_stp_fini();
	for (unsigned int w = 0; w < tp.n_workers; w++) {
		struct l2_lcore *lc = tp_nf_lcore(tp.workers[w], &tp_l2_nf);
		if (lc == NULL)
			continue;
		rte_ring_free(lc->learn);
		lc->learn = NULL;
	}
	for (unsigned int b = 0; b < L2_BRIDGES_MAX; b++) {
		free(l2_bridges[b].members);
		l2_bridges[b].members = NULL;
		l2_stp_free(&l2_bridges[b]);
	}
	l2_mac_fini();
}

static int l2_lcore_init(struct tp_worker *w, void *state)
{
	struct l2_lcore *lc = state;
	char name[RTE_RING_NAMESIZE];

	snprintf(name, sizeof(name), "l2-learn-%u", w->id);
	lc->learn = rte_ring_create_elem(name, sizeof(struct l2_learn), L2_LEARN_RING,
					 SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	return lc->learn ? 0 : -ENOMEM;
}

static int opt_macs(const char *arg)
{
	uint64_t v;

	if (tp_parse_u64(arg, 64, 1u << 24, &v) < 0) {
		fprintf(stderr, "--l2-macs: bad size '%s' (64-16777216)\n", arg);
		return -EINVAL;
	}
	l2_mac_cap = (uint32_t)v;
	return 0;
}

static const struct tp_nf_opt l2_opts[] = {
    {"l2-macs", true, "N: MAC table entries of the L2 switch (65536)", opt_macs},
};

/* a port leaving a bridge or a chain goes back to the l3 mode, the router's */
static const char *const l2_deps[] = {"ip4", NULL};

struct tp_nf tp_l2_nf = {
    .name = "l2",
    .help = "L2 switch: bridges, 802.1Q access and trunk ports, MAC learning; service chains",
    .ctrs = l2_ctrs,
    .n_ctrs = RTE_DIM(l2_ctrs),
    .lcore_size = sizeof(struct l2_lcore),
    .depends_on = l2_deps,
    .opts = l2_opts,
    .n_opts = RTE_DIM(l2_opts),
    .init = l2_init,
    .fini = l2_fini,
    .lcore_init = l2_lcore_init,
    .metrics = l2_metrics,
};
TP_NF_REGISTER(tp_l2_nf)
