/* SPDX-License-Identifier: BSD-3-Clause */
/* The metrics page (Prometheus text format 0.0.4): the writer and the core's families. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_ring.h>
#include <rte_version.h>

#include "../core/counter.h"
#include "../core/lcore.h"
#include "../core/nf.h"
#include "../core/rcu.h"
#include "../core/ring.h"
#include "../core/tp.h"
#include "api_server.h"
#include "exception.h"
#include "metrics.h"
#include "metrics_server.h"
#include "port.h"

/* --- the writer ------------------------------------------------------------------ */

int tp_metrics_init(struct tp_metrics *m, size_t max)
{
	*m = (struct tp_metrics){.cap = 64 << 10, .max = max};
	if (m->cap > max)
		m->cap = max;
	m->buf = malloc(m->cap);
	if (m->buf == NULL)
		return -ENOMEM;
	m->buf[0] = '\0';
	return 0;
}

void tp_metrics_free(struct tp_metrics *m)
{
	free(m->buf);
	m->buf = NULL;
	m->len = m->cap = 0;
}

/* Room for n more bytes and the NUL, growing up to max. False once failed. */
static bool room(struct tp_metrics *m, size_t n)
{
	size_t want = m->len + n + 1, cap = m->cap;
	char *b;

	if (m->err)
		return false;
	if (want <= m->cap)
		return true;
	if (want > m->max) {
		m->err = -EFBIG;
		return false;
	}
	while (cap < want)
		cap *= 2;
	if (cap > m->max)
		cap = m->max;
	b = realloc(m->buf, cap);
	if (b == NULL) {
		m->err = -ENOMEM;
		return false;
	}
	m->buf = b;
	m->cap = cap;
	return true;
}

static void put(struct tp_metrics *m, const char *s, size_t n)
{
	if (!room(m, n))
		return;
	memcpy(m->buf + m->len, s, n);
	m->len += n;
	m->buf[m->len] = '\0';
}

static void puts_(struct tp_metrics *m, const char *s)
{
	put(m, s, strlen(s));
}

/* s escaped: backslash and line feed always, the double quote in label values
 * (exposition format 0.0.4: HELP text escapes only the first two). */
static void put_escaped(struct tp_metrics *m, const char *s, bool quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			put(m, "\\\\", 2);
		else if (*s == '\n')
			put(m, "\\n", 2);
		else if (*s == '"' && quote)
			put(m, "\\\"", 2);
		else
			put(m, s, 1);
	}
}

void tp_metrics_family(struct tp_metrics *m, const char *name, const char *type, const char *help)
{
	puts_(m, "# HELP ");
	puts_(m, name);
	puts_(m, " ");
	put_escaped(m, help, false);
	puts_(m, "\n# TYPE ");
	puts_(m, name);
	puts_(m, " ");
	puts_(m, type);
	puts_(m, "\n");
}

/* name{k="v",...} : the labels from ap, pairs ending with NULL */
static void sample_head(struct tp_metrics *m, const char *name, va_list ap)
{
	const char *k;
	bool first = true;

	puts_(m, name);
	while ((k = va_arg(ap, const char *)) != NULL) {
		const char *v = va_arg(ap, const char *);
		puts_(m, first ? "{" : ",");
		puts_(m, k);
		puts_(m, "=\"");
		put_escaped(m, v ? v : "", true);
		puts_(m, "\"");
		first = false;
	}
	if (!first)
		puts_(m, "}");
}

void tp_metrics_u64(struct tp_metrics *m, const char *name, uint64_t v, ...)
{
	char num[32];
	va_list ap;

	va_start(ap, v);
	sample_head(m, name, ap);
	va_end(ap);
	snprintf(num, sizeof(num), " %" PRIu64 "\n", v);
	puts_(m, num);
}

void tp_metrics_dbl(struct tp_metrics *m, const char *name, double v, ...)
{
	char num[40];
	va_list ap;

	va_start(ap, v);
	sample_head(m, name, ap);
	va_end(ap);
	snprintf(num, sizeof(num), " %.17g\n", v);
	puts_(m, num);
}

/* --- the core's families ------------------------------------------------------------ */

/* Counters are read raw, never minus the 'clear counters' baseline: a Prometheus
 * counter only goes down when the process restarts (docs/METRICS.md). */
static uint64_t ctr(unsigned int w, unsigned int port, unsigned int id)
{
	return __atomic_load_n(&tp.workers[w]->ctr[port][id], __ATOMIC_RELAXED);
}

static uint64_t ld(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* The named counters of one kind: a sample per counter, lcore and port. */
static void named_counters(struct tp_metrics *m, enum tp_ctr_kind kind, const char *name,
			   const char *label, const char *help)
{
	unsigned int nc = tp_ctr_count(), it;
	struct tp_port *p;
	char lc[16];

	tp_metrics_family(m, name, "counter", help);
	for (unsigned int id = 0; id < nc; id++) {
		if (tp_ctr_kind(id) != kind)
			continue;
		for (unsigned int w = 0; w < tp.n_workers; w++) {
			snprintf(lc, sizeof(lc), "%u", tp.workers[w]->lcore);
			it = 0;
			while ((p = tp_port_next(&it)) != NULL)
				tp_metrics_u64(m, name, ctr(w, p->id, id), "module",
					       tp_ctr_module(id), label, tp_ctr_short_name(id),
					       "port", p->name, "lcore", lc, NULL);
		}
	}
}

/* One counter or gauge per port from rte_eth_stats. */
static void port_stats(struct tp_metrics *m)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} f[] = {
	    {"twinplane_port_rx_packets_total", "Packets the port's device received (ipackets)",
	     offsetof(struct rte_eth_stats, ipackets)},
	    {"twinplane_port_tx_packets_total", "Packets the port's device sent (opackets)",
	     offsetof(struct rte_eth_stats, opackets)},
	    {"twinplane_port_rx_bytes_total", "Bytes the port's device received (ibytes)",
	     offsetof(struct rte_eth_stats, ibytes)},
	    {"twinplane_port_tx_bytes_total", "Bytes the port's device sent (obytes)",
	     offsetof(struct rte_eth_stats, obytes)},
	    {"twinplane_port_rx_errors_total", "Receive errors of the port's device (ierrors)",
	     offsetof(struct rte_eth_stats, ierrors)},
	    {"twinplane_port_tx_errors_total", "Transmit errors of the port's device (oerrors)",
	     offsetof(struct rte_eth_stats, oerrors)},
	    {"twinplane_port_rx_missed_total",
	     "Packets the device dropped: no free receive descriptor (imissed)",
	     offsetof(struct rte_eth_stats, imissed)},
	    {"twinplane_port_rx_nombuf_total",
	     "Receive mbuf allocation failures of the device (rx_nombuf)",
	     offsetof(struct rte_eth_stats, rx_nombuf)},
	};
	struct rte_eth_stats st[TP_MAX_PORTS];
	bool ok[TP_MAX_PORTS] = {false};
	unsigned int it = 0;
	struct tp_port *p;

	while ((p = tp_port_next(&it)) != NULL)
		ok[p->id] = rte_eth_stats_get(p->id, &st[p->id]) == 0;
	for (size_t i = 0; i < RTE_DIM(f); i++) {
		tp_metrics_family(m, f[i].name, "counter", f[i].help);
		it = 0;
		while ((p = tp_port_next(&it)) != NULL)
			if (ok[p->id])
				tp_metrics_u64(
				    m, f[i].name,
				    *(const uint64_t *)((const char *)&st[p->id] + f[i].off),
				    "port", p->name, NULL);
	}
	tp_metrics_family(m, "twinplane_port_kernel_mbufs", "gauge",
			  "Mbufs of the port's share for frames from its TAP");
	it = 0;
	while ((p = tp_port_next(&it)) != NULL)
		tp_metrics_u64(m, "twinplane_port_kernel_mbufs", p->kernel_mbufs, "port", p->name,
			       NULL);
	tp_metrics_family(m, "twinplane_port_kernel_mbufs_in_use", "gauge",
			  "Mbufs of that share in use now");
	it = 0;
	while ((p = tp_port_next(&it)) != NULL)
		tp_metrics_u64(m, "twinplane_port_kernel_mbufs_in_use",
			       rte_mempool_in_use_count(p->kpool), "port", p->name, NULL);
	tp_metrics_family(m, "twinplane_port_from_kernel_pool_share_drops_total", "counter",
			  "Frames from the port's TAP dropped: over its share of mbufs (zeroed "
			  "by 'clear counters')");
	it = 0;
	while ((p = tp_port_next(&it)) != NULL)
		tp_metrics_u64(m, "twinplane_port_from_kernel_pool_share_drops_total",
			       tp_exc_pool_share_drops(p->id), "port", p->name, NULL);
}

/* Per lcore and port: what its loop received, sent, punted (show counters' ports) */
static void lcore_stats(struct tp_metrics *m)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} pf[] = {
	    {"twinplane_lcore_rx_packets_total", "Packets the lcore received from the port",
	     offsetof(struct tp_port_ctr, rx)},
	    {"twinplane_lcore_tx_packets_total", "Packets the lcore sent on the port",
	     offsetof(struct tp_port_ctr, tx)},
	    {"twinplane_lcore_exception_packets_total",
	     "Packets of the port the lcore handed to the control plane",
	     offsetof(struct tp_port_ctr, exc)},
	};
	static const struct {
		const char *name, *help;
		size_t off;
	} wf[] = {
	    {"twinplane_lcore_polls_total", "Passes of the lcore's loop",
	     offsetof(struct tp_wstats, polls)},
	    {"twinplane_lcore_idle_polls_total", "Passes of the lcore's loop that found no work",
	     offsetof(struct tp_wstats, idle_polls)},
	    {"twinplane_lcore_long_passes_total",
	     "Passes of the lcore's loop that took over the long-pass threshold",
	     offsetof(struct tp_wstats, long_passes)},
	};
	char lc[16];
	unsigned int it;
	struct tp_port *p;

	for (size_t i = 0; i < RTE_DIM(pf); i++) {
		tp_metrics_family(m, pf[i].name, "counter", pf[i].help);
		for (unsigned int w = 0; w < tp.n_workers; w++) {
			snprintf(lc, sizeof(lc), "%u", tp.workers[w]->lcore);
			it = 0;
			while ((p = tp_port_next(&it)) != NULL)
				tp_metrics_u64(m, pf[i].name,
					       ld((const uint64_t *)((const char *)&tp.workers[w]
									 ->st.port[p->id] +
								     pf[i].off)),
					       "lcore", lc, "port", p->name, NULL);
		}
	}
	for (size_t i = 0; i < RTE_DIM(wf); i++) {
		tp_metrics_family(m, wf[i].name, "counter", wf[i].help);
		for (unsigned int w = 0; w < tp.n_workers; w++) {
			snprintf(lc, sizeof(lc), "%u", tp.workers[w]->lcore);
			tp_metrics_u64(
			    m, wf[i].name,
			    ld((const uint64_t *)((const char *)&tp.workers[w]->st + wf[i].off)),
			    "lcore", lc, NULL);
		}
	}
	tp_metrics_family(m, "twinplane_lcore_busy_seconds_total", "counter",
			  "Time the lcore's loop spent on passes that found work");
	for (unsigned int w = 0; w < tp.n_workers; w++) {
		const struct tp_lcore_conf *c =
		    __atomic_load_n(&tp.workers[w]->conf, __ATOMIC_ACQUIRE);
		snprintf(lc, sizeof(lc), "%u", tp.workers[w]->lcore);
		tp_metrics_dbl(m, "twinplane_lcore_busy_seconds_total",
			       (double)ld(&tp.workers[w]->st.busy_cycles) / (double)tp.tsc_hz,
			       "lcore", lc, "role", tp_role_name((enum tp_role)c->role), NULL);
	}
}

static void ring_gauge(struct tp_metrics *m, const char *name, struct rte_ring *r, const char *lc,
		       const char *ring, bool capacity)
{
	if (r != NULL)
		tp_metrics_u64(m, name, capacity ? rte_ring_get_capacity(r) : rte_ring_count(r),
			       "lcore", lc, "ring", ring, NULL);
}

/* Rings between lcores, and each lcore's rings to and from the control plane. */
static void rings(struct tp_metrics *m)
{
	static const char *const exc_names[2] = {"exception_control", "exception_other"};
	unsigned int it;
	struct tp_ring *r;
	char lc[16];

	for (int cap = 0; cap < 2; cap++) {
		const char *n = cap ? "twinplane_ring_capacity" : "twinplane_ring_used";
		tp_metrics_family(m, n, "gauge",
				  cap ? "Packets a ring can hold"
				      : "Packets in a ring now (its consumer is the lcore)");
		it = 0;
		while ((r = tp_ring_next(&it)) != NULL) {
			snprintf(lc, sizeof(lc), "%u", tp.workers[r->consumer]->lcore);
			tp_metrics_u64(m, n,
				       cap ? rte_ring_get_capacity(r->r) : rte_ring_count(r->r),
				       "lcore", lc, "ring", r->name, NULL);
		}
		/* the control plane's rings: lcore is the lcore at their other end */
		for (unsigned int w = 0; w < tp.n_workers; w++) {
			snprintf(lc, sizeof(lc), "%u", tp.workers[w]->lcore);
			for (int k = 0; k < 2; k++)
				ring_gauge(m, n, tp.workers[w]->exc_ring[k], lc, exc_names[k], cap);
			ring_gauge(m, n, tp.workers[w]->inject_ring, lc, "inject", cap);
		}
	}
	tp_metrics_family(m, "twinplane_ring_enqueued_total", "counter",
			  "Packets put on a ring between lcores");
	it = 0;
	while ((r = tp_ring_next(&it)) != NULL) {
		uint64_t v = 0;
		for (unsigned int w = 0; w < tp.n_workers; w++)
			v += ld(&r->prod[w].enqueued);
		snprintf(lc, sizeof(lc), "%u", tp.workers[r->consumer]->lcore);
		tp_metrics_u64(m, "twinplane_ring_enqueued_total", v, "lcore", lc, "ring", r->name,
			       NULL);
	}
	tp_metrics_family(m, "twinplane_ring_full_drops_total", "counter",
			  "Packets dropped: a ring between lcores was full (in core.ring_full)");
	it = 0;
	while ((r = tp_ring_next(&it)) != NULL) {
		uint64_t v = 0;
		for (unsigned int w = 0; w < tp.n_workers; w++)
			v += ld(&r->prod[w].dropped_full);
		snprintf(lc, sizeof(lc), "%u", tp.workers[r->consumer]->lcore);
		tp_metrics_u64(m, "twinplane_ring_full_drops_total", v, "lcore", lc, "ring",
			       r->name, NULL);
	}
}

/* The control plane's side of the exception path (show counters' exception). */
static void exception_stats(struct tp_metrics *m)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} f[] = {
#define F(field, help)                                                                             \
	{"twinplane_exception_" #field "_total", help, offsetof(struct tp_exc_stats, field)}
	    F(to_kernel, "Frames written to a TAP"),
	    F(to_kernel_control, "Frames of the control class written to a TAP"),
	    F(from_kernel, "Frames read from a TAP and handed to an lcore"),
	    F(tap_errors, "Failed reads and writes on a TAP"),
	    F(no_port, "Frames punted for a port that is gone"),
	    F(inject_full, "Frames from a TAP dropped: an lcore's inject ring was full"),
	    F(oversize_to_kernel, "Frames not written to a TAP: over its port's MTU"),
	    F(oversize_from_kernel, "Frames from a TAP dropped: over its port's MTU"),
	    F(from_kernel_ratelimited, "Frames from a TAP dropped: over the port's kernel-tx rate"),
#undef F
	};

	for (size_t i = 0; i < RTE_DIM(f); i++) {
		tp_metrics_family(m, f[i].name, "counter", f[i].help);
		tp_metrics_u64(m, f[i].name,
			       *(const uint64_t *)((const char *)&tp_exc_stats + f[i].off), NULL);
	}
}

static void control_stats(struct tp_metrics *m)
{
	uint64_t size, in_use;

	tp_pools_usage(&size, &in_use);
	tp_metrics_family(m, "twinplane_mbufs", "gauge",
			  "Mbufs of every packet pool (ports, their TAPs' shares, modules')");
	tp_metrics_u64(m, "twinplane_mbufs", size, NULL);
	tp_metrics_family(m, "twinplane_mbufs_in_use", "gauge", "Mbufs of those pools in use now");
	tp_metrics_u64(m, "twinplane_mbufs_in_use", in_use, NULL);
	tp_metrics_family(m, "twinplane_rcu_deferred", "gauge",
			  "Objects freed once the lcores pass a quiescent state, waiting now");
	tp_metrics_u64(m, "twinplane_rcu_deferred", tp_rcu_pending(), NULL);

	tp_metrics_family(m, "twinplane_api_clients", "gauge", "Clients of the API socket now");
	tp_metrics_u64(m, "twinplane_api_clients", tp_api_conns(), NULL);
	tp_metrics_family(m, "twinplane_api_requests_total", "counter", "Requests to the API");
	tp_metrics_u64(m, "twinplane_api_requests_total", tp_api_stats.requests, NULL);
	tp_metrics_family(m, "twinplane_api_closed_total", "counter",
			  "API clients refused or closed, by reason");
	tp_metrics_u64(m, "twinplane_api_closed_total", tp_api_stats.refused_peer, "reason",
		       "refused_peer", NULL);
	tp_metrics_u64(m, "twinplane_api_closed_total", tp_api_stats.conn.refused_full, "reason",
		       "refused_full", NULL);
	tp_metrics_u64(m, "twinplane_api_closed_total", tp_api_stats.conn.closed_deadline, "reason",
		       "deadline", NULL);
	tp_metrics_u64(m, "twinplane_api_closed_total", tp_api_stats.conn.closed_idle, "reason",
		       "idle", NULL);
	tp_metrics_server_page(m);
}

int tp_metrics_page(struct tp_metrics *m)
{
	tp_metrics_family(m, "twinplane_build_info", "gauge",
			  "The daemon's version and the DPDK it was built with (always 1)");
	tp_metrics_u64(m, "twinplane_build_info", 1, "version", TP_VERSION, "dpdk", rte_version(),
		       NULL);
	named_counters(m, TP_CTR_DROP, "twinplane_drops_total", "reason",
		       "Packets dropped, by module and reason (show counters' drops)");
	named_counters(m, TP_CTR_PUNT, "twinplane_punts_total", "reason",
		       "Packets handed to the control plane, by module and reason");
	named_counters(m, TP_CTR_EVENT, "twinplane_events_total", "event",
		       "Events counted by the modules (show counters' counters)");
	port_stats(m);
	lcore_stats(m);
	rings(m);
	exception_stats(m);
	control_stats(m);
	tp_nf_metrics_all(m);
	return m->err;
}
