/* SPDX-License-Identifier: BSD-3-Clause */
/* The IoT gateway as a module: its entry (counters, options, per-lcore state, what
 * it depends on, its fini). Where the rest is: datapath/ the workers' report path
 * (fast.c, report.c) and the single-plane baseline (single.c), control/ the session
 * manager, registrar, delivery, early reports and the AE table, cli.c the commands
 * ('iotgw enable' starts it: the module has no init of its own). */
#include <stdbool.h>

#include <rte_common.h>

#include "../../core/nf.h"
#include "../../core/tp.h"
#include "../../core/worker.h"
#include "iotgw.h"
#include "control/control.h"

/* Everything 'iotgw enable' started (the lcores stopped): the control side's
 * sockets and timers, the delivery queue, single plane's rings, pool, ping socket
 * and timer, the AE table and its index. With the gateway never enabled (or its
 * enable rolled back) there is nothing: tp_iotgw_single_fini accepts that too. */
static void iotgw_fini(void)
{
	tp_iotgw_single_fini();
	if (!tp_iotgw.enabled)
		return;
	tp_iotgw_control_stop();
	tp_ae_fini();
	tp_iotgw.enabled = false;
}

/* its datagrams come from ip4's local UDP table; it sends through ip4 */
static const char *const iotgw_deps[] = {"ip4", NULL};

/* the names and order 'show counters' and the tests read (iotgw.h) */
static const struct tp_ctr_desc iotgw_ctrs[] = {TP_IOTGW_COUNTERS(TP_CTR_DESC)};

static int opt_single_plane(const char *arg)
{
	tp_iotgw.single_plane = true;
	return 0;
}

static const struct tp_nf_opt iotgw_opts[] = {
    {"single-plane", false,
     "handle signaling inline on the worker, waiting for the IN-CSE (seed 000's old "
     "architecture, a baseline)",
     opt_single_plane},
};

/* A worker's report-path state (struct tp_iotgw_dp, zeroed by the registry): its id
 * and, until a packet says which port it came in on, port 0's counters. Returns 0. */
static int iotgw_lcore_init(struct tp_worker *w, void *state)
{
	struct tp_iotgw_dp *dp = state;

	dp->id = w->id;
	dp->ctr = &w->ctr[0][tp_iotgw_nf.ctr_base];
	return 0;
}

struct tp_nf tp_iotgw_nf = {
    .name = "iotgw",
    .help = "IoT gateway (seed 000): ISO/IEEE 11073 PHD to oneM2M over CoAP",
    .ctrs = iotgw_ctrs,
    .n_ctrs = RTE_DIM(iotgw_ctrs),
    .lcore_size = sizeof(struct tp_iotgw_dp),
    .lcore_init = iotgw_lcore_init,
    .opts = iotgw_opts,
    .n_opts = RTE_DIM(iotgw_opts),
    .depends_on = iotgw_deps,
    .fini = iotgw_fini,
    .metrics = iotgw_metrics,
};
TP_NF_REGISTER(tp_iotgw_nf)
