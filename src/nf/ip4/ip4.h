/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv4 router fast path. */
#ifndef TP_NF_IP4_H
#define TP_NF_IP4_H

#include <rte_mbuf.h>

#include "../../core/worker.h"

/* Process n received frames: each is forwarded (buffered in w->txb), handed to
 * the control plane, or dropped into a named counter. Consumes every mbuf. */
void tp_ip4_input(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n);

#endif
