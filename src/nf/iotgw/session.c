/* SPDX-License-Identifier: BSD-3-Clause */
/* The gateway's session manager: association, configuration, release, abort and
 * timeouts of 11073 agents. Transport-free: datagrams come in through
 * tp_iotgw_session_input(), answers and registrations go out through a struct
 * tp_iotgw_io (the dual plane's control socket, a single-plane worker, or the
 * socket gateway). It is the AE table's writer. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../../proto/phd_nomenclature.h"
#include "iotgw.h"

struct tp_iotgw_session_stats tp_iotgw_sess;
/* agents whose MDS attributes were asked for, oldest first (index | gen << 16): their
 * deadlines come in this order, so the tick looks at the head only */
static uint32_t queryq[TP_AE_MAX];
static unsigned int qq_head, qq_tail;
static const uint8_t manager_sysid[8] = {0x74, 0x70, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01};

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
		tp_ae_delete(idx);
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
	idx = tp_ae_count() < tp_iotgw.max_sessions ? tp_ae_create(ip, port, ai->system_id.p)
						    : -ENOSPC;
	if (idx < 0) {
		/* the table is full: bounded, whatever the agents do */
		tp_iotgw_sess.rejected_full++;
		send_aare(io, ip, port, TP_PHD_REJECTED_TRANSIENT);
		return;
	}
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
			tp_iotgw_sess.ignored++; /* e.g. a report before the AE is ready */
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
			tp_ae_delete(i);
			tp_iotgw_sess.timed_out++;
		}
	}
}
