/* SPDX-License-Identifier: BSD-3-Clause */
/* Commands of the packet trace: trace start [count N] [port P], trace stop, show trace
 * (docs/TRACE.md). The lcores record into their own buffers (core/trace.h); a timer
 * collects the records here while a trace runs, and show trace groups them by
 * packet: where it came in, the stages it went through, what became of it. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_malloc.h>
#include <rte_mbuf_dyn.h>

#include "../core/counter.h"
#include "../core/tp.h"
#include "../core/trace.h"
#include "../proto/ndn.h"
#include "cmd.h"
#include "port.h"
#include "timer.h"

#define TRACE_COUNT_DEFAULT 50
#define TRACE_COUNT_MAX 1000
#define TRACE_ENTS_PER_PKT 32 /* records kept per traced packet (an L2 flood: one per port) */
#define TRACE_DONE_MS 1000    /* after the last packet was marked: its records arrive */
#define TRACE_POLL_MS 10
#define MAC_FMT "%02x:%02x:%02x:%02x:%02x:%02x" /* as show ports writes them */

/* The control plane's side: what the timer collected since the last start. */
static struct {
	bool on;
	uint32_t base;	/* trace ids of this trace are base + 1 .. base + count */
	uint32_t count; /* packets asked for */
	int32_t port;
	struct tp_trace_ent *ents;
	unsigned int n, cap;
	uint64_t store_full; /* records lost because ents was full */
	uint64_t done_at;    /* ms when every packet was marked (0: not yet) */
} tr;

static struct tp_timer trace_timer;

static uint64_t now_ms(void)
{
	return rte_get_tsc_cycles() / (rte_get_tsc_hz() / 1000);
}

/* Move every lcore's records of this trace into tr.ents. */
static void collect(void)
{
	struct tp_trace_ent buf[64];

	for (unsigned int w = 0; w < tp.n_workers; w++) {
		struct tp_trace_buf *b = tp.workers[w]->trace;
		unsigned int k;
		if (b == NULL)
			continue;
		while ((k = tp_trace_buf_get(b, buf, RTE_DIM(buf))) > 0)
			for (unsigned int i = 0; i < k; i++) {
				if (buf[i].id <= tr.base || buf[i].id > tr.base + tr.count)
					continue; /* an earlier trace's packet, still in flight */
				if (tr.n == tr.cap) {
					tr.store_full++;
					continue;
				}
				tr.ents[tr.n++] = buf[i];
			}
	}
}

static void obs_set(uint8_t bit, bool on)
{
	for (unsigned int w = 0; w < tp.n_workers; w++) {
		struct tp_worker *wk = tp.workers[w];
		uint8_t v = __atomic_load_n(&wk->obs, __ATOMIC_RELAXED);
		__atomic_store_n(&wk->obs, (uint8_t)(on ? v | bit : v & ~bit), __ATOMIC_RELEASE);
	}
}

static void trace_off(void)
{
	obs_set(TP_OBS_TRACE, false);
	tr.on = false;
}

/* Every TRACE_POLL_MS while a trace runs: collect; a second after the last packet was
 * marked, stop (its records have arrived by then). */
static void trace_tick(struct tp_timer *t)
{
	collect();
	if (!tr.on) {
		tp_timer_cancel(t);
		return;
	}
	if (tr.done_at == 0 &&
	    __atomic_load_n(&tp_trace_ctl.taken, __ATOMIC_RELAXED) >= tr.base + tr.count)
		tr.done_at = now_ms();
	if (tr.done_at && now_ms() - tr.done_at >= TRACE_DONE_MS) {
		trace_off();
		collect();
		tp_timer_cancel(t);
	}
}

/* The dynamic flag and field, registered once (the first trace). 0 or negative errno. */
static int dyn_register(void)
{
	static const struct rte_mbuf_dynflag flag = {.name = "twinplane_trace"};
	static const struct rte_mbuf_dynfield field = {
	    .name = "twinplane_trace_id",
	    .size = sizeof(uint32_t),
	    .align = __alignof__(uint32_t),
	};
	int bit, off;

	if (tp_trace_ctl.flag != 0)
		return 0;
	bit = rte_mbuf_dynflag_register(&flag);
	if (bit < 0)
		return -rte_errno;
	off = rte_mbuf_dynfield_register(&field);
	if (off < 0)
		return -rte_errno;
	tp_trace_ctl.id_off = off;
	tp_trace_ctl.flag = 1ull << bit;
	return 0;
}

static int trace_start(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	uint64_t count = TRACE_COUNT_DEFAULT;
	int32_t port = -1;
	int ret;

	for (int i = 0; i < argc; i += 2) {
		if (i + 1 >= argc)
			return tp_cmd_err(ctx, EINVAL, "trace start: '%s' needs a value", argv[i]);
		if (strcmp(argv[i], "count") == 0) {
			if (tp_parse_u64(argv[i + 1], 1, TRACE_COUNT_MAX, &count) != 0)
				return tp_cmd_err(ctx, EINVAL,
						  "trace start: count '%s' is not a number from 1 "
						  "to %d",
						  argv[i + 1], TRACE_COUNT_MAX);
		} else if (strcmp(argv[i], "port") == 0) {
			struct tp_port *p = tp_port_by_name(argv[i + 1]);
			if (p == NULL)
				return tp_cmd_err(ctx, ENODEV, "trace start: no port named '%s'",
						  argv[i + 1]);
			port = p->id;
		} else {
			return tp_cmd_err(ctx, EINVAL,
					  "trace start: unknown word '%s' (count N, port P)",
					  argv[i]);
		}
	}
	ret = dyn_register();
	if (ret < 0)
		return tp_cmd_err(ctx, -ret, "trace start: mbuf dynamic flag: %s", strerror(-ret));
	for (unsigned int w = 0; w < tp.n_workers; w++) {
		struct tp_worker *wk = tp.workers[w];
		if (wk->trace != NULL)
			continue;
		wk->trace = rte_zmalloc_socket("tp_trace", sizeof(*wk->trace), RTE_CACHE_LINE_SIZE,
					       (int)rte_lcore_to_socket_id(wk->lcore));
		if (wk->trace == NULL)
			return tp_cmd_err(ctx, ENOMEM, "trace start: out of memory");
	}
	struct tp_trace_ent *ents = malloc(count * TRACE_ENTS_PER_PKT * sizeof(*ents));
	if (ents == NULL)
		return tp_cmd_err(ctx, ENOMEM, "trace start: out of memory");
	trace_off();
	collect(); /* the previous trace's last records: kept until replaced below */
	free(tr.ents);
	tr.ents = ents;
	tr.n = 0;
	tr.cap = (unsigned int)count * TRACE_ENTS_PER_PKT;
	tr.store_full = 0;
	tr.done_at = 0;
	/* ids go on from where the last trace stopped: a packet of an earlier trace still
	 * in flight keeps an id this one does not collect */
	tr.base = __atomic_load_n(&tp_trace_ctl.taken, __ATOMIC_RELAXED);
	tr.count = (uint32_t)count;
	tr.port = port;
	tp_trace_ctl.port = port;
	__atomic_store_n(&tp_trace_ctl.count, tr.base + tr.count, __ATOMIC_RELEASE);
	tr.on = true;
	obs_set(TP_OBS_TRACE, true);
	tp_timer_init(&trace_timer, "trace", trace_tick, NULL);
	tp_timer_every(&trace_timer, TRACE_POLL_MS);
	tp_out_u64(ctx->out, "count", count);
	return 0;
}

static int trace_stop(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	if (argc > 0)
		return tp_cmd_err(ctx, EINVAL, "trace stop: unexpected word '%s'", argv[0]);
	trace_off();
	collect();
	return 0;
}

static const char *port_name(uint16_t id, char *buf, size_t len)
{
	struct tp_port *p = tp_port_by_id(id);

	if (p != NULL)
		return p->name;
	snprintf(buf, len, "%u", id);
	return buf;
}

/* An NDN packet's kind and name, from its first bytes (NDN packet format 0.3, 2.1:
 * the Name is the first element of an Interest and of a Data). */
static void ndn_out(struct tp_node *o, const uint8_t *p, size_t len)
{
	const uint8_t *end = p + len;
	uint64_t type, vlen;
	struct tp_ndn_tlv nm;
	struct tp_ndn_name n;
	char uri[256];
	size_t k, k2;

	/* the TL only: a snapshot ends before the value does */
	k = tp_ndn_varnum_read(p, len, &type);
	k2 = k ? tp_ndn_varnum_read(p + k, len - k, &vlen) : 0;
	if (k2 == 0) {
		tp_out_str(o, "ndn", "?");
		return;
	}
	tp_out_str(o, "ndn",
		   type == 0x05	  ? "interest"
		   : type == 0x06 ? "data"
		   : type == 0x64 ? "lp"
				  : "?");
	if (type != 0x05 && type != 0x06)
		return;
	const uint8_t *q = p + k + k2;
	if (tp_ndn_tlv_read(&q, end, &nm) == TP_NDN_E_OK && nm.type == 0x07 &&
	    tp_ndn_name_decode(nm.value, nm.len, &n) == TP_NDN_E_OK &&
	    tp_ndn_name_to_uri(&n, uri, sizeof(uri)) >= 0)
		tp_out_str(o, "name", uri);
}

/* The headers of a frame's first bytes, as fields of o. */
static void headers_out(struct tp_node *o, const uint8_t *p, unsigned int len)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	const struct rte_ether_hdr *eth = (const void *)p;
	unsigned int off = sizeof(*eth);
	uint16_t type;

	if (len < sizeof(*eth))
		return;
	tp_out_strf(o, "dst", MAC_FMT, RTE_ETHER_ADDR_BYTES(&eth->dst_addr));
	tp_out_strf(o, "src", MAC_FMT, RTE_ETHER_ADDR_BYTES(&eth->src_addr));
	type = rte_be_to_cpu_16(eth->ether_type);
	if (type == RTE_ETHER_TYPE_VLAN && len >= off + 4) {
		tp_out_u64(o, "vlan", rte_be_to_cpu_16(*(const uint16_t *)(p + off)) & 0xfff);
		type = rte_be_to_cpu_16(*(const uint16_t *)(p + off + 2));
		off += 4;
	}
	tp_out_strf(o, "type", "0x%04x", type);
	p += off;
	len -= off;
	if (type == RTE_ETHER_TYPE_IPV4 && len >= 20) {
		unsigned int ihl = (p[0] & 0xf) * 4u;
		tp_out_str(o, "ip4_src", inet_ntop(AF_INET, p + 12, a, sizeof(a)));
		tp_out_str(o, "ip4_dst", inet_ntop(AF_INET, p + 16, b, sizeof(b)));
		tp_out_u64(o, "ttl", p[8]);
		tp_out_u64(o, "proto", p[9]);
		tp_out_u64(o, "ip4_len", ((unsigned int)p[2] << 8) | p[3]);
		if ((p[9] == 17 || p[9] == 6) && ihl >= 20 && len >= ihl + 4) {
			unsigned int sport = ((unsigned int)p[ihl] << 8) | p[ihl + 1];
			unsigned int dport = ((unsigned int)p[ihl + 2] << 8) | p[ihl + 3];
			tp_out_u64(o, "sport", sport);
			tp_out_u64(o, "dport", dport);
			/* NDN over UDP (NFD's port 6363) */
			if (p[9] == 17 && (sport == 6363 || dport == 6363) && len > ihl + 8)
				ndn_out(o, p + ihl + 8, len - ihl - 8);
		}
	} else if (type == RTE_ETHER_TYPE_IPV6 && len >= 40) {
		tp_out_str(o, "ip6_src", inet_ntop(AF_INET6, p + 8, a, sizeof(a)));
		tp_out_str(o, "ip6_dst", inet_ntop(AF_INET6, p + 24, b, sizeof(b)));
		tp_out_u64(o, "hlim", p[7]);
		tp_out_u64(o, "next", p[6]);
	} else if (type == RTE_ETHER_TYPE_ARP && len >= 28) {
		tp_out_u64(o, "arp_op", ((unsigned int)p[6] << 8) | p[7]);
		tp_out_str(o, "arp_spa", inet_ntop(AF_INET, p + 14, a, sizeof(a)));
		tp_out_str(o, "arp_tpa", inet_ntop(AF_INET, p + 24, b, sizeof(b)));
	} else if (type == 0x8624) { /* NDN over Ethernet (NDNLPv2's ethertype) */
		ndn_out(o, p, len);
	}
}

static const struct tp_trace_ent *sort_base;

/* By packet, then time, then the order collected. */
static int ent_cmp(const void *x, const void *y)
{
	const struct tp_trace_ent *a = &sort_base[*(const unsigned int *)x];
	const struct tp_trace_ent *b = &sort_base[*(const unsigned int *)y];

	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	if (a->tsc != b->tsc)
		return a->tsc < b->tsc ? -1 : 1;
	return *(const unsigned int *)x < *(const unsigned int *)y ? -1 : 1;
}

static const char *class_name(unsigned int c)
{
	static const char *const names[TP_PUNT_CLASSES] = {[TP_PUNT_CONTROL] = "control",
							   [TP_PUNT_ARP] = "arp",
							   [TP_PUNT_SIGNALING] = "signaling",
							   [TP_PUNT_OTHER] = "other",
							   [TP_PUNT_ERROR] = "error"};
	return c < TP_PUNT_CLASSES ? names[c] : "?";
}

static int show_trace(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	uint64_t full = 0;
	unsigned int *idx;
	char name[64], pb[8];

	if (argc > 0)
		return tp_cmd_err(ctx, EINVAL, "show trace: unexpected word '%s'", argv[0]);
	collect();
	idx = malloc((tr.n ? tr.n : 1) * sizeof(*idx));
	if (idx == NULL)
		return tp_cmd_err(ctx, ENOMEM, "show trace: out of memory");
	for (unsigned int w = 0; w < tp.n_workers; w++)
		if (tp.workers[w]->trace != NULL)
			full += __atomic_load_n(&tp.workers[w]->trace->full, __ATOMIC_RELAXED);
	uint32_t taken = __atomic_load_n(&tp_trace_ctl.taken, __ATOMIC_RELAXED);
	tp_out_str(ctx->out, "state", tr.on ? "on" : "off");
	tp_out_u64(ctx->out, "count", tr.count);
	tp_out_u64(ctx->out, "traced", taken - tr.base > tr.count ? tr.count : taken - tr.base);
	tp_out_u64(ctx->out, "buffer_full", full);
	tp_out_u64(ctx->out, "store_full", tr.store_full);
	for (unsigned int i = 0; i < tr.n; i++)
		idx[i] = i;
	sort_base = tr.ents;
	qsort(idx, tr.n, sizeof(*idx), ent_cmp);

	struct tp_node *pkts = tp_out_list(ctx->out, "packets");
	struct tp_node *pk = NULL, *in = NULL, *stages = NULL, *verdict = NULL;
	uint32_t cur = 0;
	uint64_t t0 = 0;
	for (unsigned int k = 0; k < tr.n; k++) {
		const struct tp_trace_ent *e = &tr.ents[idx[k]];
		if (pk == NULL || e->id != cur) {
			cur = e->id;
			t0 = e->tsc;
			pk = tp_out_obj(pkts, NULL);
			tp_out_u64(pk, "id", e->id - tr.base);
			in = tp_out_obj(pk, "in"); /* the columns' order in text: id, in, ... */
			stages = tp_out_list(pk, "stages");
			verdict = tp_out_list(pk, "verdict");
		}
		switch (e->type) {
		case TP_TRACE_RX: {
			tp_out_str(in, "port", port_name(e->port, pb, sizeof(pb)));
			tp_out_u64(in, "queue", e->queue);
			tp_out_u64(in, "lcore", e->lcore);
			tp_out_u64(in, "len", e->len);
			headers_out(in, e->snap, e->snap_len);
			break;
		}
		case TP_TRACE_STAGE:
			tp_out_str(stages, NULL, e->stage ? e->stage : "?");
			break;
		case TP_TRACE_TX: {
			struct tp_node *v = tp_out_obj(verdict, NULL);
			tp_out_str(v, "action", "forward");
			tp_out_str(v, "port", port_name(e->port, pb, sizeof(pb)));
			tp_out_u64(v, "queue", e->queue);
			tp_out_u64(v, "lcore", e->lcore);
			tp_out_u64(v, "len", e->len);
			tp_out_u64(v, "ns", (e->tsc - t0) * 1000000000ull / tp.tsc_hz);
			headers_out(v, e->snap, e->snap_len);
			break;
		}
		case TP_TRACE_DROP: {
			struct tp_node *v = tp_out_obj(verdict, NULL);
			tp_out_str(v, "action", "drop");
			tp_out_str(v, "counter", tp_ctr_name(e->ctr, name, sizeof(name)));
			tp_out_u64(v, "lcore", e->lcore);
			break;
		}
		case TP_TRACE_PUNT: {
			struct tp_node *v = tp_out_obj(verdict, NULL);
			tp_out_str(v, "action", "punt");
			tp_out_str(v, "reason", tp_ctr_name(e->ctr, name, sizeof(name)));
			tp_out_str(v, "class", class_name(e->cls));
			tp_out_u64(v, "lcore", e->lcore);
			break;
		}
		}
	}
	free(idx);
	return 0;
}

static struct tp_cmd c_trace_start = {
    "trace start", "[count N] [port P]",
    "record the path of the next N packets (default 50, at most 1000), optionally only "
    "those received on port P, through the stages: show trace",
    trace_start, NULL};
static struct tp_cmd c_trace_stop = {"trace stop", NULL,
				     "stop recording (what was recorded stays for show trace)",
				     trace_stop, NULL};
static struct tp_cmd c_show_trace = {
    "show trace", NULL,
    "the traced packets: port and queue in, headers, stages, verdict (forwarded where, "
    "dropped by which counter, punted for which reason)",
    show_trace, NULL};
TP_CMD_REGISTER(c_trace_start)
TP_CMD_REGISTER(c_trace_stop)
TP_CMD_REGISTER(c_show_trace)
