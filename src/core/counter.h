/* SPDX-License-Identifier: BSD-3-Clause */
/* Named counters, one mechanism for every module: each declares its counters
 * (events, drop reasons, punt reasons) with its struct tp_nf (core/nf.h) and gets a
 * block of ids. Every data-plane lcore has one uint64_t per (port, id), written by
 * that lcore only, read without locks by the control plane (64-bit loads do not
 * tear on x86-64); 'show counters' shows them per port, per lcore and in total,
 * named "<module>.<counter>". A drop reason is counted by tp_drop(), which also
 * frees the packet; a punt reason by tp_punt() (core/worker.h). Counting is the
 * only way a packet leaves the data plane unsent. */
#ifndef TP_CORE_COUNTER_H
#define TP_CORE_COUNTER_H

#include <stddef.h>
#include <stdint.h>

#include "limits.h"

enum tp_ctr_kind {
	TP_CTR_EVENT, /* something happened (a report converted, a frame sent) */
	TP_CTR_DROP,  /* a packet was dropped for this reason: in the port's drop total */
	TP_CTR_PUNT,  /* a packet was handed to the control plane for this reason */
};

struct tp_ctr_desc {
	const char *name;
	uint8_t kind; /* enum tp_ctr_kind */
};

/* A module's descriptor array from its list macro X(enum suffix, name, kind):
 * static const struct tp_ctr_desc my_ctrs[] = {MY_COUNTERS(TP_CTR_DESC)}; */
#define TP_CTR_DESC(e, n, k) {n, TP_CTR_##k},

/* The core's own counters: the core module registers first, so their ids are
 * these constants. X(enum suffix, name, kind) */
#define TP_CORE_COUNTERS(X)                                                                        \
	X(L2_TOO_SHORT, "l2_too_short", DROP)                                                      \
	X(L2_OTHER_HOST, "l2_other_host", DROP)                                                    \
	X(L2_UNSUPPORTED, "l2_unsupported_ethertype", DROP)                                        \
	X(NO_INPUT, "port_mode_none", DROP)                                                        \
	X(EXC_RATELIMITED, "exception_ratelimited", DROP)                                          \
	X(EXC_RING_FULL, "exception_ring_full", DROP)                                              \
	X(TX_FULL, "tx_queue_full", DROP)                                                          \
	X(PORT_DOWN, "port_down", DROP)                                                            \
	X(RING_FULL, "ring_full", DROP)                                                            \
	X(EXC_SRC_RATELIMITED, "exception_source_ratelimited", DROP)                               \
	X(TRACE_FULL, "trace_buffer_full", EVENT)                                                  \
	X(CAPTURE_RING_FULL, "capture_ring_full", EVENT)                                           \
	X(CAPTURE_NOMBUF, "capture_nombuf", EVENT)                                                 \
	X(AFPACKET_UNWRAP_SHORT, "afpacket_unwrap_short", DROP)

/* the list macro ends each name with a comma, which clang-format cannot see */
/* clang-format off */
enum tp_core_ctr {
#define X(e, n, k) TP_DROP_##e,
	TP_CORE_COUNTERS(X)
#undef X
	TP_CORE_CTR_MAX
};
/* clang-format on */

/* Control plane: the ids in use (0..n-1), their names and kinds. */
unsigned int tp_ctr_count(void);
/* "<module>.<counter>" into buf; returns buf. */
const char *tp_ctr_name(unsigned int id, char *buf, size_t len);
/* The counter's own name (without the module) and its module's name. */
const char *tp_ctr_short_name(unsigned int id);
const char *tp_ctr_module(unsigned int id);
enum tp_ctr_kind tp_ctr_kind(unsigned int id);
/* Id of "<module>.<counter>" (or of a unique short name), or -ENOENT. */
int tp_ctr_lookup(const char *name);

/* Called by the module registry: give desc[0..n-1] ids. Returns the first, or
 * -ENOSPC (TP_CTR_MAX). */
int tp_ctr_alloc(const void *module, const struct tp_ctr_desc *desc, unsigned int n);

#endif
