/* SPDX-License-Identifier: BSD-3-Clause */
/* Registration of a device on the IN-CSE: its AE (/cse-in/PHD-<sysid>, originator
 * C<sysid>), then one container per metric, each a confirmable CoAP CREATE, then (with
 * tp_iotgw.ae_retention_s) the AE's expirationTime, an UPDATE; the same UPDATE again
 * while the agent stays associated (the refresh, registrar.c).
 *
 * Why the expirationTime comes last (decision 0090): a child made
 * under a parent with an expirationTime gets the parent's (ACME caps a child's et at its
 * parent's when it is made), and a container's <latest>/<oldest> keep that et when the
 * container's own is moved on, so once it passes ACME answers 4.04 to every new
 * contentInstance. Containers made while the AE has the IN-CSE's default lifetime get
 * that one; the AE's shorter et then takes them with it (TS-0001 10.1.4: a deleted
 * resource's children go with it). An AE that existed is given its default lifetime
 * back (et null, the "lift") before its containers are made.
 * Transport-free: the request builder and the answer check serve the dual plane's
 * asynchronous registrar (registrar.c); tp_iotgw_register_sync() drives the same
 * steps over a link that waits (single plane, socket gateway). */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "../../../proto/phd_nomenclature.h"
#include "../iotgw.h"
#include "control.h"

/* Components of an object's compound value (its Attr-Val-Map has one): their number
 * (from the MetricIdList, else the compound's declared length), 0 for a simple value. */
static unsigned int compound_parts(const struct tp_phd_obj_map *om)
{
	for (unsigned int k = 0; k < om->n && k < TP_PHD_MAX_AVM; k++) {
		switch (tp_phd_attr_kind(om->e[k].attr_id)) {
		case TP_PHD_V_SFLOAT_CMP:
			return om->ncmp ? om->ncmp
					: (om->e[k].len > 4 ? (om->e[k].len - 4u) / 2 : 0);
		case TP_PHD_V_FLOAT_CMP:
			return om->ncmp ? om->ncmp
					: (om->e[k].len > 4 ? (om->e[k].len - 4u) / 4 : 0);
		case TP_PHD_V_NU_OBS_CMP:
			return om->ncmp ? om->ncmp
					: (om->e[k].len > 4 ? (om->e[k].len - 4u) / 10 : 0);
		default:
			break;
		}
	}
	return 0;
}

static void metric_add(struct tp_ae *e, const struct tp_phd_obj_map *om, uint8_t component,
		       uint16_t partition, uint16_t code)
{
	struct tp_ae_metric *mt = &e->metric[e->n_metrics];
	char label[sizeof(mt->label)];

	mt->handle = om->handle;
	mt->component = component;
	tp_phd_metric_label(partition, code, om->unit, label, sizeof(label));
	/* two objects of one type (or a compound without metric ids): keep the names apart */
	for (unsigned int i = 0; i < e->n_metrics; i++) {
		if (strcmp(e->metric[i].label, label) == 0) {
			char base[sizeof(label)];
			memcpy(base, label, sizeof(base));
			snprintf(label, sizeof(label), "%.13s-%u-%u", base, om->handle,
				 component == TP_AE_WHOLE ? 0u : component + 1u);
			break;
		}
	}
	memcpy(mt->label, label, sizeof(label));
	if (tp_phd_unit_symbol(om->unit, mt->unit, sizeof(mt->unit)) == NULL)
		mt->unit[0] = '\0';
	snprintf(mt->path, sizeof(mt->path), "/%s/%s/%s", tp_iotgw.cse_name, e->ae_name, label);
	e->n_metrics++;
}

/* The metrics of a configuration: one per object with a known type, and one per
 * component of a compound value (10407's systolic, diastolic and mean, named by the
 * object's MetricIdList), so every value is stored whole under its own name. */
static void metrics_from_map(struct tp_ae *e)
{
	e->n_metrics = 0;
	for (unsigned int i = 0; i < e->map.nobjs && e->n_metrics < TP_AE_MAX_METRICS; i++) {
		const struct tp_phd_obj_map *om = &e->map.obj[i];
		unsigned int parts = compound_parts(om);

		if (om->type_code == 0)
			continue;
		if (parts == 0) {
			metric_add(e, om, TP_AE_WHOLE, om->type_partition, om->type_code);
			continue;
		}
		for (unsigned int c = 0;
		     c < parts && c < TP_PHD_MAX_CMP && e->n_metrics < TP_AE_MAX_METRICS; c++) {
			if (c < om->ncmp)
				metric_add(e, om, (uint8_t)c, MDC_PART_SCADA, om->cmp_id[c]);
			else
				metric_add(e, om, (uint8_t)c, om->type_partition, om->type_code);
		}
	}
}

/* A registration from its first step: no try, error, check or refresh under way. */
static void reg_reset(struct tp_ae *e)
{
	e->reg_step = 0;
	e->reg_tries = 0;
	e->reg_errors = 0;
	e->reg_due_ms = 0;
	e->reg_verify = 0;
	e->reg_lift = 0;
	e->refreshing = 0;
	e->refresh_ms = 0;
}

void tp_iotgw_reg_begin(int idx)
{
	struct tp_ae *e = &tp_ae_table[idx];

	metrics_from_map(e);
	reg_reset(e);
	tp_ae_set_state(idx, TP_AE_REGISTERING);
}

void tp_iotgw_reg_again(int idx)
{
	/* not READY first: the workers stop converting (the metrics stay as they are) */
	tp_ae_set_state(idx, TP_AE_REGISTERING);
	reg_reset(&tp_ae_table[idx]);
}

void tp_iotgw_ae_et(uint64_t wall_s, uint32_t retention_s, char out[TP_M2M_TIME_SIZE])
{
	tp_m2m_time_from_epoch(wall_s + retention_s, out);
}

uint64_t tp_iotgw_refresh_at(uint64_t now_ms, uint32_t retention_s)
{
	uint64_t half = (uint64_t)retention_s * 500;

	return now_ms + (half < 1000 ? 1000 : half);
}

uint64_t tp_iotgw_refresh_retry_at(uint64_t now_ms, uint32_t retention_s, uint32_t reg_timeout_ms)
{
	uint64_t retry = now_ms + ((uint64_t)reg_timeout_ms << TP_IOTGW_REG_BACKOFF_MAX);
	uint64_t next = tp_iotgw_refresh_at(now_ms, retention_s);

	return retry < next ? retry : next;
}

bool tp_iotgw_refresh_due(const struct tp_ae *e, uint64_t now_ms)
{
	return e->state == TP_AE_READY && e->refresh_ms != 0 && !e->refreshing &&
	       now_ms >= e->refresh_ms;
}

/* The step after the containers: the AE's expirationTime (with a retention). */
static bool et_step(const struct tp_ae *e)
{
	return tp_iotgw.ae_retention_s > 0 && e->reg_step == e->n_metrics + 1u;
}

/* The last step of a registration. */
static unsigned int last_step(const struct tp_ae *e)
{
	return e->n_metrics + (tp_iotgw.ae_retention_s > 0 ? 1u : 0u);
}

/* The AE's label naming the source its session is bound to ("tp-source:" and the
 * binding, tp_iotgw_l2src, in hex; 0 for a gateway that cannot bind). */
static void source_label(const struct tp_ae *e, char out[40])
{
	snprintf(out, 40, "tp-source:%016llx", (unsigned long long)e->l2src);
}

int tp_iotgw_reg_request(int idx, uint8_t *buf, size_t cap, uint16_t mid)
{
	struct tp_ae *e = &tp_ae_table[idx];
	uint8_t tok[8];
	char json[512], path[96], rqi[24];
	int jl;

	/* the entry, and 32 random bits a source that sees no request cannot guess
	 * (RFC 7252 5.3.1); a new token per request, retransmissions included */
	if (getrandom(e->reg_nonce, sizeof(e->reg_nonce), GRND_NONBLOCK) !=
	    (ssize_t)sizeof(e->reg_nonce)) {
		uint64_t t = (uint64_t)mid * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)e;
		memcpy(e->reg_nonce, &t, sizeof(e->reg_nonce)); /* no entropy yet: weaker */
	}
	memcpy(tok, &idx, 2);
	memcpy(tok + 2, &e->gen, 2);
	memcpy(tok + 4, e->reg_nonce, 4);
	bool refresh = e->state == TP_AE_READY && e->refreshing;
	if (refresh ||
	    (e->state == TP_AE_REGISTERING && (et_step(e) || (e->reg_step == 0 && e->reg_lift)))) {
		/* the AE's expirationTime (TS-0001 9.6.1.3.2: an UPDATE moves it): now +
		 * the retention; the lift: null, the IN-CSE's default */
		char et[TP_M2M_TIME_SIZE];
		bool lift = !refresh && !et_step(e);
		tp_iotgw_ae_et((uint64_t)time(NULL), tp_iotgw.ae_retention_s, et);
		jl = tp_m2m_et_json(json, sizeof(json), "m2m:ae", lift ? NULL : et);
		snprintf(path, sizeof(path), "/%s/%s", tp_iotgw.cse_name, e->ae_name);
		snprintf(rqi, sizeof(rqi), "reg-%d-%c", idx, lift ? 'l' : 'e');
		e->reg_mid = mid;
		struct tp_m2m_create upd = {.type = TP_COAP_CON,
					    .mid = mid,
					    .token = tok,
					    .tkl = sizeof(tok),
					    .path = path,
					    .from = e->origin,
					    .rqi = rqi,
					    .payload = json,
					    .payload_len = jl > 0 ? (size_t)jl : 0};
		return tp_m2m_update_req(buf, cap, &upd);
	}
	if (e->reg_step == 0 && e->reg_verify) {
		/* the AE exists: read it back (its labels) */
		snprintf(path, sizeof(path), "/%s/%s", tp_iotgw.cse_name, e->ae_name);
		snprintf(rqi, sizeof(rqi), "reg-%d-v", idx);
		e->reg_mid = mid;
		struct tp_m2m_create get = {.type = TP_COAP_CON,
					    .mid = mid,
					    .token = tok,
					    .tkl = sizeof(tok),
					    .path = path,
					    .from = e->origin,
					    .rqi = rqi};
		return tp_m2m_retrieve_req(buf, cap, &get);
	}
	if (e->reg_step == 0) {
		char src[40];
		snprintf(path, sizeof(path), "/%s", tp_iotgw.cse_name);
		const char *lbl[TP_AE_LABELS + 1];
		for (int i = 0; i < TP_AE_LABELS; i++)
			lbl[i] = e->label[i];
		source_label(e, src);
		lbl[TP_AE_LABELS] = src;
		jl = tp_m2m_ae_json_lbl(json, sizeof(json), e->ae_name, "Ntwinplane.phd", lbl,
					TP_AE_LABELS + 1);
	} else {
		snprintf(path, sizeof(path), "/%s/%s", tp_iotgw.cse_name, e->ae_name);
		/* bounded on the IN-CSE: it keeps the latest mni instances (TS-0004 7.4.6) */
		jl = tp_m2m_cnt_json(json, sizeof(json), e->metric[e->reg_step - 1].label,
				     tp_iotgw.mni);
	}
	snprintf(rqi, sizeof(rqi), "reg-%d-%u", idx, e->reg_step);
	e->reg_mid = mid;
	struct tp_m2m_create req = {
	    .type = TP_COAP_CON,
	    .mid = mid,
	    .token = tok,
	    .tkl = sizeof(tok),
	    .path = path,
	    .ty = e->reg_step == 0 ? TP_M2M_TY_AE : TP_M2M_TY_CNT,
	    .from = e->origin,
	    .rqi = rqi,
	    .payload = json,
	    .payload_len = jl > 0 ? (size_t)jl : 0,
	};
	return tp_m2m_create_req(buf, cap, &req);
}

bool tp_iotgw_transient_refusal(const struct tp_coap_msg *m)
{
	return m->type == TP_COAP_ACK &&
	       (TP_COAP_CODE_CLASS(m->code) == 5 ||
		(TP_COAP_CODE_CLASS(m->code) == 4 && tp_m2m_rsc(m) == TP_M2M_RSC_BAD_REQUEST));
}

enum tp_iotgw_reg tp_iotgw_reg_response(const uint8_t *buf, size_t len, int *idx_out)
{
	struct tp_coap_msg m;
	uint16_t idx, gen;

	if (tp_coap_decode(buf, len, &m) < 0 || m.tkl != 8) {
		tp_iotgw_sess.reg_ignored++;
		return TP_IOTGW_REG_IGNORE;
	}
	memcpy(&idx, m.token, 2);
	memcpy(&gen, m.token + 2, 2);
	if (idx >= TP_AE_MAX) {
		tp_iotgw_sess.reg_ignored++;
		return TP_IOTGW_REG_IGNORE;
	}
	struct tp_ae *e = &tp_ae_table[idx];
	bool refresh = e->state == TP_AE_READY && e->refreshing;
	/* the piggybacked answer to the request in flight (RFC 7252 5.2.1): an ACK with
	 * its message id and token; a late answer (to an earlier try, a gone or finished
	 * registration or refresh), a reset or anything else is not it */
	if (e->gen != gen || (e->state != TP_AE_REGISTERING && !refresh) || m.type != TP_COAP_ACK ||
	    m.mid != e->reg_mid || memcmp(m.token + 4, e->reg_nonce, 4) != 0 ||
	    TP_COAP_CODE_CLASS(m.code) == 0) {
		tp_iotgw_sess.reg_ignored++;
		return TP_IOTGW_REG_IGNORE;
	}
	*idx_out = idx;
	if (tp_iotgw_transient_refusal(&m) && ++e->reg_errors < TP_IOTGW_SERVER_ERRORS) {
		tp_iotgw_sess.reg_server_errors++;
		return TP_IOTGW_REG_AGAIN; /* the caller's timeout sends the same step again */
	}
	int rsc = tp_m2m_rsc(&m);
	if (refresh) {
		/* TS-0004 6.6.3: 2004 updated; 4004 the AE is gone (expired, deleted) */
		e->refreshing = 0;
		e->reg_due_ms = 0;
		e->reg_errors = 0;
		if (TP_COAP_CODE_CLASS(m.code) == 2) {
			tp_iotgw_sess.ae_refreshed++;
			return TP_IOTGW_REG_REFRESHED;
		}
		if (rsc == TP_M2M_RSC_NOT_FOUND)
			return TP_IOTGW_REG_GONE;
		tp_iotgw_sess.ae_refresh_failed++;
		return TP_IOTGW_REG_REFRESH_FAILED;
	}
	if (rsc == TP_M2M_RSC_NOT_FOUND && (e->reg_step > 0 || e->reg_verify || e->reg_lift) &&
	    ++e->reg_errors < TP_IOTGW_SERVER_ERRORS) {
		/* the AE went away in the middle (it expired between two steps): from the
		 * start, a CREATE */
		tp_iotgw_sess.ae_expired++;
		e->reg_step = 0;
		e->reg_verify = 0;
		e->reg_lift = 0;
		e->reg_tries = 0;
		return TP_IOTGW_REG_NEXT;
	}
	if (e->reg_step == 0 && e->reg_lift) {
		/* the lift done, or refused (the AE keeps its et: new containers may expire
		 * with it, the rest works) */
		if (TP_COAP_CODE_CLASS(m.code) != 2)
			tp_iotgw_sess.ae_refresh_failed++;
		e->reg_lift = 0;
	} else if (et_step(e)) {
		/* refused: the AE keeps the IN-CSE's default lifetime; registered anyway */
		if (TP_COAP_CODE_CLASS(m.code) != 2)
			tp_iotgw_sess.ae_refresh_failed++;
	} else if (e->reg_step == 0 && e->reg_verify) {
		/* the existing AE is this registration's if it is bound to this session's
		 * source (a device that associates again, or the gateway restarted); one
		 * made for another source is not written into (security review F3): a
		 * claimed system id is not an identity */
		char src[40], want[44];
		source_label(e, src);
		int wl = snprintf(want, sizeof(want), "\"%s\"", src);
		if (TP_COAP_CODE_CLASS(m.code) != 2 || m.payload == NULL ||
		    memmem(m.payload, m.payload_len, want, (size_t)wl) == NULL) {
			e->reg_due_ms = 0;
			tp_iotgw_sess.reg_conflict++;
			tp_iotgw_sess.reg_failed++;
			tp_ae_set_state(idx, TP_AE_FAILED);
			return TP_IOTGW_REG_FAILED;
		}
		e->reg_verify = 0;
		if (tp_iotgw.ae_retention_s > 0) {
			/* this registration's: its default lifetime back first (the lift) */
			e->reg_lift = 1;
			e->reg_tries = 0;
			e->reg_errors = 0;
			return TP_IOTGW_REG_NEXT;
		}
	} else if (e->reg_step == 0 && TP_COAP_CODE_CLASS(m.code) != 2 &&
		   (rsc == TP_M2M_RSC_CONFLICT || rsc == TP_M2M_RSC_ALREADY_REGISTERED)) {
		/* there already: whose? (the same step, as a RETRIEVE) */
		e->reg_verify = 1;
		e->reg_tries = 0;
		e->reg_errors = 0;
		return TP_IOTGW_REG_NEXT;
	} else if (TP_COAP_CODE_CLASS(m.code) != 2 && rsc != TP_M2M_RSC_CONFLICT &&
		   rsc != TP_M2M_RSC_ALREADY_REGISTERED) {
		/* neither created nor a container there already (under this
		 * registration's AE): refused */
		e->reg_due_ms = 0;
		tp_iotgw_sess.reg_failed++;
		tp_ae_set_state(idx, TP_AE_FAILED);
		return TP_IOTGW_REG_FAILED;
	}
	e->reg_tries = 0;
	e->reg_errors = 0;
	if (++e->reg_step > last_step(e)) {
		e->reg_due_ms = 0;
		tp_iotgw_sess.reg_ready++;
		/* everything the data plane needs is written: publish */
		tp_ae_set_state(idx, TP_AE_READY);
		return TP_IOTGW_REG_READY;
	}
	return TP_IOTGW_REG_NEXT;
}

int tp_iotgw_register_sync(int idx, struct tp_iotgw_reg_link *l)
{
	static uint16_t mid;
	uint8_t req[1024], rsp[2048];
	struct tp_ae *e = &tp_ae_table[idx];

	tp_iotgw_reg_begin(idx);
	while (e->state == TP_AE_REGISTERING) {
		uint8_t step = e->reg_step, verify = e->reg_verify, lift = e->reg_lift;
		int n = tp_iotgw_reg_request(idx, req, sizeof(req), mid++);
		if (n < 0 || l->send(l, req, (size_t)n) < 0) {
			tp_iotgw_sess.reg_failed++;
			tp_ae_set_state(idx, TP_AE_FAILED);
			return -EIO;
		}
		tp_iotgw_sess.reg_requests++;
		uint64_t deadline =
		    l->now_ms(l) + (uint64_t)tp_iotgw.reg_timeout_ms * (1u << e->reg_tries);
		/* wait for this step's answer; others (late, other entries) are ignored */
		while (e->state == TP_AE_REGISTERING && e->reg_step == step &&
		       e->reg_verify == verify && e->reg_lift == lift) {
			int got, r = l->recv(l, rsp, sizeof(rsp), deadline);
			if (r == -ETIMEDOUT) {
				if (++e->reg_tries >= TP_IOTGW_REG_TRIES) {
					tp_iotgw_sess.reg_failed++;
					tp_ae_set_state(idx, TP_AE_FAILED);
					return -ETIMEDOUT;
				}
				tp_iotgw_sess.reg_retries++;
				break; /* send again */
			}
			if (r > 0)
				(void)tp_iotgw_reg_response(rsp, (size_t)r, &got);
		}
	}
	return e->state == TP_AE_READY ? 0 : -ECONNREFUSED;
}
