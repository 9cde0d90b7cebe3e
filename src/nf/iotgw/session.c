/* SPDX-License-Identifier: BSD-3-Clause */
/* The gateway's session manager: association, configuration, release, abort and
 * timeouts of 11073 agents. Transport-free: datagrams come in through
 * tp_iotgw_session_input(), answers and registrations go out through a struct
 * tp_iotgw_io (the dual plane's control socket, a single-plane worker, or the
 * socket gateway). It is the AE table's writer. */
#include <errno.h>
#include <string.h>

#include "iotgw.h"

struct tp_iotgw_session_stats tp_iotgw_sess;
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
		e->map = map;
		send_aare(io, ip, port, TP_PHD_ACCEPTED);
		io->registration(io, idx);
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
	io->registration(io, idx);
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
		release_entry(ip, port);
		r.u.reason = 0; /* release-response-reason normal (20601 A.9) */
		send_apdu(io, &r, ip, port);
		break;
	}
	case TP_PHD_ABRT:
		release_entry(ip, port);
		tp_iotgw_sess.aborted++;
		break;
	case TP_PHD_PRST:
		if (a.u.prst.choice == TP_PHD_ROIV_CONF_EVENT_REPORT &&
		    a.u.prst.u.evt.type == MDC_NOTI_CONFIG)
			on_config(io, &a.u.prst, ip, port);
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
