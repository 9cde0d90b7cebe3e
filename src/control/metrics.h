/* SPDX-License-Identifier: BSD-3-Clause */
/* The metrics page: the Prometheus text exposition format 0.0.4, written into a buffer
 * of bounded size on the control thread from the counters (never on an lcore), and
 * served over HTTP by control/metrics_server.c. The core writes its own families
 * (counters, ports, lcores, mempool, rings, RCU, exception path, API, build info);
 * each module adds its gauges from struct tp_nf's metrics callback (core/nf.h).
 *
 * A family is started once with tp_metrics_family (HELP and TYPE lines) and its
 * samples follow it at once: the format wants a family's lines together. Names follow
 * Prometheus' conventions: twinplane_ prefix, base units, _total on counters. */
#ifndef TP_CONTROL_METRICS_H
#define TP_CONTROL_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The page's bound: past it the page is not served (an HTTP 500, counted). */
#define TP_METRICS_PAGE_MAX (8u << 20)

struct tp_metrics {
	char *buf; /* malloc'd, NUL-terminated while not failed */
	size_t len, cap, max;
	int err; /* 0, or -EFBIG (over max) or -ENOMEM: the page is incomplete */
};

/* An empty page of at most max bytes. 0 or -ENOMEM. */
int tp_metrics_init(struct tp_metrics *m, size_t max);
void tp_metrics_free(struct tp_metrics *m);

/* Start the family name of type ("counter", "gauge") with its HELP line. */
void tp_metrics_family(struct tp_metrics *m, const char *name, const char *type, const char *help);
/* A sample of the family name: labels are name, value pairs ending with NULL:
 * tp_metrics_u64(m, "twinplane_port_rx_packets_total", v, "port", "p0", NULL).
 * Values are escaped (backslash, double quote, line feed). */
void tp_metrics_u64(struct tp_metrics *m, const char *name, uint64_t v, ...)
    __attribute__((sentinel));
void tp_metrics_dbl(struct tp_metrics *m, const char *name, double v, ...)
    __attribute__((sentinel));

/* The whole page: the core's families, then every module's. The caller frees m
 * (tp_metrics_free) whether it fails or not. 0, -ENOMEM or -EFBIG (over max). */
int tp_metrics_page(struct tp_metrics *m);

#endif
