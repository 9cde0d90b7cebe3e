/* SPDX-License-Identifier: BSD-3-Clause */
/* Compile-time bounds shared by the data plane and the control plane. */
#ifndef TP_CORE_LIMITS_H
#define TP_CORE_LIMITS_H

#include <rte_config.h>

#define TP_BURST 32
#define TP_MAX_PORTS RTE_MAX_ETHPORTS /* the TX dirty mask is 64 bits */
#define TP_MAX_WORKERS 16	      /* data-plane lcores, whatever their role */
#define TP_NF_MAX 16		      /* registered modules, the core included */
#define TP_CTR_MAX 256		      /* counters of all modules together */
#define TP_EXC_RING_SIZE 1024	      /* each lcore's rings to and from the control plane */

_Static_assert(TP_MAX_PORTS <= 64, "one bit per port in tp_worker.tx_dirty");

#endif
