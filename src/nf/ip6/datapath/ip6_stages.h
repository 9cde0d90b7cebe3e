/* SPDX-License-Identifier: BSD-3-Clause */
/* The IPv6 router's cold stages, shared by the files of datapath/ (private to them):
 *   input.c  tp_ip6_input (the burst loop: check, look up, rewrite, hop limit,
 *            transmit buffer, all inline), the validation of what the fast test
 *            refuses, in RFC 8200 order (tp_ip6_classify_slow);
 *   local.c  what does not forward (hop limit expired, no route, a special or an
 *            unresolved next hop), delivery to our own addresses and the punt to
 *            the kernel with its class (Neighbor Discovery, OSPFv3). */
#ifndef TP_NF_IP6_DATAPATH_IP6_STAGES_H
#define TP_NF_IP6_DATAPATH_IP6_STAGES_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "../../../core/worker.h"

/* What the classifier returns: forward, forward unless it expires, or consumed. */
#define IP6_FORWARD 0
#define IP6_HOP_LOW 1 /* hop limit <= 1: expired unless it is for us */
#define IP6_CONSUMED -1

/* input.c: classify a frame the fast test refused; returns as above. */
int tp_ip6_classify_slow(struct tp_worker *w, struct rte_mbuf *m, struct rte_mbuf **others,
			 uint16_t *n_others);
/* local.c: punt m to the kernel for reason c (an IP6_C_* counter); consumes m. */
void tp_ip6_punt(struct tp_worker *w, struct rte_mbuf *m, unsigned int c);
/* local.c: hop limit <= 1; consumes m. */
void tp_ip6_hop_low(struct tp_worker *w, struct rte_mbuf *m);
/* local.c: next hop id (forwarding word v; UINT32_MAX: no route) does not forward;
 * consumes m. */
void tp_ip6_no_forward(struct tp_worker *w, struct rte_mbuf *m, uint32_t id, uint64_t v);

#endif
