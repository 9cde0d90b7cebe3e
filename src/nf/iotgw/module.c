/* SPDX-License-Identifier: BSD-3-Clause */
/* The IoT gateway as a module: what it depends on and its fini. Where the rest is:
 * datapath/ the workers' report path (fast.c, report.c) and the single-plane
 * baseline (single.c), control/ the session manager, registrar, delivery, early
 * reports and the AE table, cli.c the commands ('iotgw enable' starts it).
 *
 * The module's entry (tp_iotgw_nf: counters, options, lcore state) is still
 * defined in datapath/fast.c, whose content another change of issue 33 rewrites
 * (its output through ip4): this file fills in the rest before the registry reads
 * it (tp_nf_init_all, after every constructor); the entry moves here afterwards. */
#include "../../core/nf.h"
#include "../../core/tp.h"
#include "iotgw.h"

/* Everything 'iotgw enable' started (the lcores stopped): the control side's
 * sockets and timers, the delivery queue, the AE table and its index.
 * TODO(issue 33): single.c's rings, pool and ping socket need a
 * tp_iotgw_single_fini, once single.c is free to edit. */
static void iotgw_fini(void)
{
	if (!tp_iotgw.enabled)
		return;
	tp_iotgw_control_stop();
	tp_ae_fini();
	tp_iotgw.enabled = false;
}

/* its datagrams come from ip4's local UDP table; it sends through ip4 */
static const char *const iotgw_deps[] = {"ip4", NULL};

RTE_INIT(tp_iotgw_module)
{
	tp_iotgw_nf.depends_on = iotgw_deps;
	tp_iotgw_nf.fini = iotgw_fini;
}
