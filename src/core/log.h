/* SPDX-License-Identifier: BSD-3-Clause */
/* The daemon's log type; control plane only (the fast path never logs). */
#ifndef TP_CORE_LOG_H
#define TP_CORE_LOG_H

#include <rte_log.h>

extern int tp_logtype;
#define TP_LOG(level, fmt, ...)                                                                    \
	rte_log(RTE_LOG_##level, tp_logtype, "twinplane: " fmt "\n", ##__VA_ARGS__)

#endif
