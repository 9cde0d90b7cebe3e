/* SPDX-License-Identifier: BSD-3-Clause */
/* The gateway's session manager: association, configuration, release, abort and
 * timeouts of 11073 agents. Transport-free: datagrams come in through
 * tp_iotgw_session_input(), answers and registrations go out through a struct
 * tp_iotgw_io (the dual plane's control socket, a single-plane worker, or the
 * socket gateway). It is the AE table's writer. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../../../proto/phd_nomenclature.h"
#include "../../../tables/keyed_hash.h"
#include "../iotgw.h"
#include "control.h"

struct tp_iotgw_session_stats tp_iotgw_sess;
/* agents whose MDS attributes were asked for, oldest first (index | gen << 16): their
 * deadlines come in this order, so the tick looks at the head only */
static uint32_t queryq[TP_AE_MAX];
static unsigned int qq_head, qq_tail;
static const uint8_t manager_sysid[8] = {0x74, 0x70, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01};

/* The sessions this manager holds, indexed two more ways: by system id (one session
 * per device, wherever it comes from) and by agent address (a bound per source).
 * Both are the manager's own: it is the table's only writer. */
#define SYS_BUCKETS 4096				 /* a power of two */
static int16_t sys_head[SYS_BUCKETS];			 /* index + 1; 0: empty */
static int16_t sys_next[TP_AE_MAX], sys_prev[TP_AE_MAX]; /* index + 1 */
static bool linked[TP_AE_MAX];
#define SRC_SLOTS (2 * TP_AE_MAX) /* a power of two: open addressing, never emptied */
static struct {
	uint32_t ip, n;
} src_slot[SRC_SLOTS];
static unsigned int src_used;
static uint64_t evict_none_before; /* no session can be evicted before this (ms) */

/* Both indexes hash what the agents chose (their system id, their address) with the
 * process's key (README: "Keyed hashes"), drawn when the AE table was made
 * (tp_ae_init, before any session); the init_vals only tell the two apart. */
static unsigned int sys_hash(const uint8_t id[8])
{
	return tp_keyed_hash(id, 8, 1) & (SYS_BUCKETS - 1);
}

/* The live session of system id id, or -1. */
static int sys_find(const uint8_t id[8])
{
	for (int i = sys_head[sys_hash(id)] - 1; i >= 0; i = sys_next[i] - 1)
		if (memcmp(tp_ae_table[i].sysid, id, 8) == 0)
			return i;
	return -1;
}

/* The count of sessions of address ip (its slot, created if need be). */
static uint32_t *src_count(uint32_t ip)
{
	unsigned int h = tp_keyed_hash(&ip, sizeof(ip), 2) & (SRC_SLOTS - 1);

	while (src_slot[h].ip != 0 && src_slot[h].ip != ip)
		h = (h + 1) & (SRC_SLOTS - 1);
	if (src_slot[h].ip == 0) {
		src_slot[h].ip = ip;
		src_used++;
	}
	return &src_slot[h].n;
}

/* Addresses whose sessions are all gone keep their slot: rebuild the table from the
 * live sessions when it fills up (at most once per TP_AE_MAX new addresses). */
static void src_rebuild(void)
{
	memset(src_slot, 0, sizeof(src_slot));
	src_used = 0;
	for (int i = 0; i < TP_AE_MAX; i++)
		if (linked[i])
			(*src_count(tp_ae_table[i].ip))++;
}

static void session_link(int idx)
{
	struct tp_ae *e = &tp_ae_table[idx];
	unsigned int b = sys_hash(e->sysid);

	sys_prev[idx] = 0;
	sys_next[idx] = sys_head[b];
	if (sys_head[b])
		sys_prev[sys_head[b] - 1] = (int16_t)(idx + 1);
	sys_head[b] = (int16_t)(idx + 1);
	linked[idx] = true;
	if (src_used >= SRC_SLOTS / 2)
		src_rebuild(); /* counts idx too: it is linked */
	else
		(*src_count(e->ip))++;
}

/* Delete a session, and its entries in the indexes. */
static void session_delete(int idx)
{
	if (linked[idx]) {
		if (sys_prev[idx])
			sys_next[sys_prev[idx] - 1] = sys_next[idx];
		else
			sys_head[sys_hash(tp_ae_table[idx].sysid)] = sys_next[idx];
		if (sys_next[idx])
			sys_prev[sys_next[idx] - 1] = sys_prev[idx];
		uint32_t *n = src_count(tp_ae_table[idx].ip);
		if (*n)
			(*n)--;
		linked[idx] = false;
	}
	tp_ae_delete(idx);
}

/* Last sign of life of a session (ms): signaling, or a report on the data plane. */
static uint64_t last_active(const struct tp_iotgw_io *io, int i)
{
	uint64_t seen = io->last_seen ? (uint64_t)io->last_seen(i) * 1000 : 0;
	return seen > tp_ae_table[i].last_ms ? seen : tp_ae_table[i].last_ms;
}

/* The table is full: evict the session silent for longest, if it has been silent for
 * evict_idle_ms (a flood's half-open associations, agents gone without a release), so
 * a real agent is not refused for them. A session in use (READY: registered, its
 * reports converted) is never evicted, however long its device sleeps between
 * reports (health devices report once a minute or less): it ends by release, abort
 * or the session timeout only (security review N8). 0 if one went. */
static int evict_idle(struct tp_iotgw_io *io)
{
	uint64_t oldest = UINT64_MAX;
	int victim = -1;

	if (io->now_ms < evict_none_before)
		return -ENOSPC; /* the last look found none, and none has aged enough since */
	for (int i = 0; i < TP_AE_MAX; i++) {
		if (!linked[i] || tp_ae_table[i].state == TP_AE_READY)
			continue;
		uint64_t t = last_active(io, i);
		if (t < oldest) {
			oldest = t;
			victim = i;
		}
	}
	if (victim < 0 || io->now_ms - oldest < tp_iotgw.evict_idle_ms) {
		evict_none_before = victim < 0 ? io->now_ms + 100 : oldest + tp_iotgw.evict_idle_ms;
		return -ENOSPC;
	}
	session_delete(victim);
	tp_iotgw_sess.evicted++;
	return 0;
}

static void send_apdu(struct tp_iotgw_io *io, const struct tp_phd_apdu *a, uint32_t ip,
		      uint16_t port)
{
	uint8_t buf[512];
	int len = tp_phd_encode_apdu(a, buf, sizeof(buf));

	if (len > 0 && io->send(io, buf, (size_t)len, ip, port) == 0)
		tp_iotgw_sess.sent++;
	else
		tp_iotgw_sess.send_errors++;
}

static void send_aare(struct tp_iotgw_io *io, uint32_t ip, uint16_t port, uint16_t result)
{
	struct tp_phd_apdu a = {.type = TP_PHD_AARE};
	struct tp_phd_aare *r = &a.u.aare;

	r->result = result;
	r->proto.id = TP_PHD_DATA_PROTO_20601;
	r->has_phd = 1;
	r->phd.protocol_version = TP_PHD_PROTOCOL_VERSION1;
	r->phd.encoding_rules = TP_PHD_ENC_MDER;
	r->phd.nomenclature_version = TP_PHD_NOM_VERSION1;
	r->phd.system_type = TP_PHD_SYS_TYPE_MANAGER;
	r->phd.system_id = (struct tp_phd_octets){manager_sysid, sizeof(manager_sysid)};
	r->phd.dev_config_id = 0; /* manager-config-response */
	send_apdu(io, &a, ip, port);
}

static void send_config_rsp(struct tp_iotgw_io *io, uint32_t ip, uint16_t port,
			    const struct tp_phd_data_apdu *d, uint16_t report_id, uint16_t result)
{
	struct tp_phd_config_rsp rsp = {report_id, result};
	struct tp_phd_apdu a = {.type = TP_PHD_PRST};
	uint8_t info[8];
	int n = tp_phd_encode_config_rsp(&rsp, info, sizeof(info));

	if (n < 0)
		return;
	a.u.prst.invoke_id = d->invoke_id;
	a.u.prst.choice = TP_PHD_RORS_CONF_EVENT_REPORT;
	a.u.prst.u.evt.obj_handle = d->u.evt.obj_handle;
	a.u.prst.u.evt.time = d->u.evt.time;
	a.u.prst.u.evt.type = d->u.evt.type;
	a.u.prst.u.evt.info = (struct tp_phd_octets){info, (uint16_t)n};
	send_apdu(io, &a, ip, port);
}

static void release_entry(uint32_t ip, uint16_t port)
{
	int idx = tp_ae_lookup(ip, port);
	if (idx >= 0) {
		session_delete(idx);
		tp_iotgw_sess.released++;
	}
}

/* The agent is configured: read its MDS attributes, as managers do after association
 * (20601 8.5.2, GET of all MDS attributes: an empty attribute-id-list), before it is
 * registered; the answer, or TP_IOTGW_GET_TIMEOUT_MS without one, starts the
 * registration. */
static void query_mds(struct tp_iotgw_io *io, int idx)
{
	struct tp_ae *e = &tp_ae_table[idx];
	struct tp_phd_apdu a = {.type = TP_PHD_PRST};

	/* the operator's choice (iotgw enable ... mds-get no); the baselines of seed 000
	 * (single plane, socket gateway) register at once, as its old system did */
	if (tp_iotgw.no_mds_get || tp_iotgw.single_plane) {
		io->registration(io, idx);
		return;
	}
	e->get_invoke = (uint16_t)(0x8000 | e->gen); /* ours: apart from the agent's */
	a.u.prst.invoke_id = e->get_invoke;
	a.u.prst.choice = TP_PHD_ROIV_GET;
	a.u.prst.u.get.obj_handle = TP_PHD_HANDLE_MDS;
	a.u.prst.u.get.nids = 0;
	e->query_due_ms = io->now_ms + TP_IOTGW_GET_TIMEOUT_MS;
	tp_ae_set_state(idx, TP_AE_QUERYING);
	/* one entry per table slot at most is live; a full queue means stale entries */
	if (qq_tail - qq_head == TP_AE_MAX)
		qq_head++;
	queryq[qq_tail++ % TP_AE_MAX] = (uint32_t)idx | (uint32_t)e->gen << 16;
	tp_iotgw_sess.mds_queried++;
	send_apdu(io, &a, e->ip, e->port);
}

/* "key:value" into an AE label, value cut to fit and kept to printable ASCII. */
static void set_label(char *dst, const char *key, const uint8_t *v, size_t n)
{
	size_t k = (size_t)snprintf(dst, TP_AE_LABEL_MAX, "%s:", key);

	for (size_t i = 0; i < n && k + 1 < TP_AE_LABEL_MAX; i++)
		dst[k++] = v[i] >= 0x20 && v[i] < 0x7f ? (char)v[i] : '?';
	/* a fixed-width field padded with blanks or NULs reads as its text */
	while (k > strlen(key) + 1 && (dst[k - 1] == ' ' || dst[k - 1] == '?'))
		k--;
	dst[k] = '\0';
}

/* The MDS attributes the AE is labelled with: manufacturer and model (System-Model),
 * system type (System-Type-Spec-List, the specialization). */
static void on_mds_attrs(struct tp_ae *e, const struct tp_phd_attr_list *l)
{
	struct tp_phd_value v;
	char name[40];

	for (uint16_t i = 0; i < l->count; i++) {
		if (tp_phd_attr_value_decode(l->ava[i].id, l->ava[i].val.p, l->ava[i].val.len, &v,
					     NULL) < 0)
			continue; /* one bad attribute does not spoil the others */
		if (v.kind == TP_PHD_V_MODEL) {
			set_label(e->label[0], "manufacturer", v.u.model.manufacturer.p,
				  v.u.model.manufacturer.len);
			set_label(e->label[1], "model", v.u.model.model_number.p,
				  v.u.model.model_number.len);
		} else if (v.kind == TP_PHD_V_TYPEVER && v.n > 0) {
			const struct tp_phd_nom *n =
			    tp_phd_nom_find(MDC_PART_INFRA, v.u.tv[0].type);
			if (n == NULL || tp_phd_slug(n->descr, name, sizeof(name)) == NULL)
				snprintf(name, sizeof(name), "%u", v.u.tv[0].type);
			set_label(e->label[2], "system-type", (const uint8_t *)name, strlen(name));
		}
	}
}

/* Our GET's answer (rors-cmip-get), or its error or reject: register the agent. */
static void on_get_answer(struct tp_iotgw_io *io, const struct tp_phd_data_apdu *d, uint32_t ip,
			  uint16_t port)
{
	int idx = tp_ae_lookup(ip, port);

	if (idx < 0) {
		tp_iotgw_sess.unassociated++;
		return;
	}
	struct tp_ae *e = &tp_ae_table[idx];
	e->last_ms = io->now_ms;
	if (e->state != TP_AE_QUERYING || d->invoke_id != e->get_invoke) {
		tp_iotgw_sess.ignored++; /* late, or not ours */
		return;
	}
	if (d->choice == TP_PHD_RORS_GET && d->u.attrs.obj_handle == TP_PHD_HANDLE_MDS) {
		on_mds_attrs(e, &d->u.attrs.attrs);
		tp_iotgw_sess.mds_answered++;
	} else {
		tp_iotgw_sess.mds_unanswered++;
	}
	io->registration(io, idx);
}

void tp_iotgw_session_register_now(struct tp_iotgw_io *io, int idx)
{
	if (tp_ae_table[idx].state != TP_AE_QUERYING)
		return;
	tp_iotgw_sess.mds_unanswered++; /* its queue entry is skipped: no longer QUERYING */
	io->registration(io, idx);
}

void tp_iotgw_session_tick(struct tp_iotgw_io *io)
{
	while (qq_head != qq_tail) {
		uint32_t v = queryq[qq_head % TP_AE_MAX];
		int idx = (int)(v & 0xffff);
		struct tp_ae *e = &tp_ae_table[idx];

		if (e->gen == (uint16_t)(v >> 16) && e->state == TP_AE_QUERYING) {
			if (io->now_ms < e->query_due_ms)
				return; /* the oldest is not due: none is */
			tp_iotgw_sess.mds_unanswered++;
			io->registration(io, idx);
		}
		qq_head++;
	}
}

static void on_aarq(struct tp_iotgw_io *io, const struct tp_phd_aarq *q, uint32_t ip, uint16_t port)
{
	const struct tp_phd_assoc_info *ai = &q->phd;
	struct tp_phd_value_map map;
	int idx;

	/* 20601 8.1: MDER, an agent, an EUI-64 system id */
	if (q->phd_index < 0) {
		tp_iotgw_sess.rejected++;
		send_aare(io, ip, port, TP_PHD_REJECTED_NO_COMMON_PROTOCOL);
		return;
	}
	if (!(ai->encoding_rules & TP_PHD_ENC_MDER) || !(ai->system_type & TP_PHD_SYS_TYPE_AGENT) ||
	    ai->system_id.len != 8) {
		tp_iotgw_sess.rejected++;
		send_aare(io, ip, port, TP_PHD_REJECTED_NO_COMMON_PARAMETER);
		return;
	}
	release_entry(ip, port); /* a new association replaces the old one */
	if (sys_find(ai->system_id.p) >= 0) {
		/* the device is associated from another address or port: one of the two is
		 * not the device; the session it has is kept (it ends by release, abort or
		 * timeout, then the device may associate again: transient) */
		tp_iotgw_sess.rejected_duplicate++;
		send_aare(io, ip, port, TP_PHD_REJECTED_TRANSIENT);
		return;
	}
	if (tp_iotgw.max_per_source && *src_count(ip) >= tp_iotgw.max_per_source) {
		/* a flood from one address fills its own share, not the table */
		tp_iotgw_sess.rejected_source++;
		send_aare(io, ip, port, TP_PHD_REJECTED_TRANSIENT);
		return;
	}
	/* bound to where its AARQ came from: a datagram of ip:port from another port or
	 * MAC is then dropped by the workers (fast.c, report.c) */
	uint64_t l2src = io->source_l2 ? io->source_l2(ip, port) : 0;
	if (io->source_l2 && l2src == 0) {
		/* the workers lost its source (an AARQ flood overwrote it) or two of them
		 * saw two: an unbound session would take anyone's datagrams (security
		 * review N7). Refused as transient: the agent's next AARQ is remembered */
		tp_iotgw_sess.rejected_unbound++;
		send_aare(io, ip, port, TP_PHD_REJECTED_TRANSIENT);
		return;
	}
	idx = -ENOSPC;
	if (tp_ae_count() < tp_iotgw.max_sessions || evict_idle(io) == 0)
		idx = tp_ae_create(ip, port, ai->system_id.p, l2src);
	if (idx < 0) {
		/* the table is full: bounded, whatever the agents do */
		tp_iotgw_sess.rejected_full++;
		send_aare(io, ip, port, TP_PHD_REJECTED_TRANSIENT);
		return;
	}
	session_link(idx);
	struct tp_ae *e = &tp_ae_table[idx];
	e->config_id = ai->dev_config_id;
	e->last_ms = io->now_ms;
	tp_iotgw_sess.associated++;
	if (tp_phd_std_value_map(ai->dev_config_id, &map) == 0) {
		/* a standard configuration we know (20601 8.4): the agent sends none */
		e->map = map;
		send_aare(io, ip, port, TP_PHD_ACCEPTED);
		query_mds(io, idx);
	} else {
		/* extended configuration: the agent sends it next (20601 8.4) */
		send_aare(io, ip, port, TP_PHD_ACCEPTED_UNKNOWN_CONFIG);
	}
}

static void on_config(struct tp_iotgw_io *io, const struct tp_phd_data_apdu *d, uint32_t ip,
		      uint16_t port)
{
	struct tp_phd_config_report cfg;
	struct tp_phd_error err;
	int idx = tp_ae_lookup(ip, port);

	if (tp_phd_decode_config_report(d->u.evt.info.p, d->u.evt.info.len, &cfg, &err) < 0) {
		tp_iotgw_sess.bad++;
		return;
	}
	if (idx < 0) {
		tp_iotgw_sess.unassociated++;
		return;
	}
	struct tp_ae *e = &tp_ae_table[idx];
	e->last_ms = io->now_ms;
	if (e->state != TP_AE_CONFIGURING) { /* a retransmission: answer again */
		send_config_rsp(io, ip, port, d, cfg.config_report_id, TP_PHD_CONFIG_ACCEPTED);
		return;
	}
	if (tp_phd_value_map_build(&cfg, &e->map, &err) < 0) {
		send_config_rsp(io, ip, port, d, cfg.config_report_id, TP_PHD_CONFIG_UNSUPPORTED);
		tp_iotgw_sess.bad++;
		return;
	}
	send_config_rsp(io, ip, port, d, cfg.config_report_id, TP_PHD_CONFIG_ACCEPTED);
	tp_iotgw_sess.configured++;
	query_mds(io, idx);
}

void tp_iotgw_session_input(struct tp_iotgw_io *io, const uint8_t *apdu, size_t len, uint32_t ip,
			    uint16_t port)
{
	struct tp_phd_apdu a;
	struct tp_phd_error err;

	tp_iotgw_sess.received++;
	if (tp_phd_decode_apdu(apdu, len, &a, &err) < 0) {
		tp_iotgw_sess.bad++;
		return;
	}
	switch (a.type) {
	case TP_PHD_AARQ:
		on_aarq(io, &a.u.aarq, ip, port);
		break;
	case TP_PHD_RLRQ: {
		struct tp_phd_apdu r = {.type = TP_PHD_RLRE};
		/* a session is the agent's address and port: a release from anywhere else
		 * (another port, a spoofed source) ends no one's session */
		if (tp_ae_lookup(ip, port) < 0) {
			tp_iotgw_sess.unassociated++;
			break;
		}
		release_entry(ip, port);
		r.u.reason = 0; /* release-response-reason normal (20601 A.9) */
		send_apdu(io, &r, ip, port);
		break;
	}
	case TP_PHD_ABRT:
		if (tp_ae_lookup(ip, port) < 0) {
			tp_iotgw_sess.unassociated++;
			break;
		}
		release_entry(ip, port);
		tp_iotgw_sess.aborted++;
		break;
	case TP_PHD_PRST:
		if (a.u.prst.choice == TP_PHD_ROIV_CONF_EVENT_REPORT &&
		    a.u.prst.u.evt.type == MDC_NOTI_CONFIG)
			on_config(io, &a.u.prst, ip, port);
		else if (a.u.prst.choice == TP_PHD_RORS_GET || a.u.prst.choice == TP_PHD_ROER ||
			 a.u.prst.choice == TP_PHD_RORJ)
			on_get_answer(io, &a.u.prst, ip, port);
		else
			tp_iotgw_sess.ignored++; /* e.g. a report before the configuration */
		break;
	default:
		tp_iotgw_sess.ignored++;
		break;
	}
}

void tp_iotgw_session_expire(uint64_t now, uint32_t (*last_seen)(int idx))
{
	tp_iotgw_now_s = (uint32_t)(now / 1000);
	/* silent agents go, stuck associations too */
	for (int i = 0; i < TP_AE_MAX; i++) {
		struct tp_ae *e = &tp_ae_table[i];
		if (e->state == TP_AE_FREE || (e->state == TP_AE_FAILED && e->ip == 0))
			continue;
		uint64_t seen = (uint64_t)last_seen(i) * 1000;
		uint64_t last = seen > e->last_ms ? seen : e->last_ms;
		if (now - last > tp_iotgw.session_timeout_ms) {
			session_delete(i);
			tp_iotgw_sess.timed_out++;
		}
	}
}
