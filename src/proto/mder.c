/* SPDX-License-Identifier: BSD-3-Clause */
/* IEEE 11073-20601 MDER: APDUs, DataApdu messages, configuration and scan reports. */
#include <string.h>

#include "mder.h"
#include "mder_cursor.h"

/* ---- AttributeList ::= SEQUENCE OF AVA-Type (20601 Annex A) ---- */

int tp_mder_dec_avas(struct mder_rd *r, const char *fcount, const char *flength,
		     struct tp_phd_ava *ava, size_t room, uint16_t *count)
{
	struct mder_rd s;
	int rc = rd_list(r, fcount, flength, room, count, &s);
	if (rc < 0)
		return rc;
	for (uint16_t i = 0; i < *count; i++) {
		rc = rd_u16(&s, "attribute-id", &ava[i].id);
		if (rc < 0)
			return rc;
		rc = rd_octets(&s, "attribute-value.length", &ava[i].val);
		if (rc < 0)
			return rc;
	}
	return rd_done(&s, flength);
}

void tp_mder_enc_avas(struct mder_wr *w, const struct tp_phd_ava *ava, size_t n, size_t limit)
{
	if (n > limit) {
		wr_invalid(w);
		return;
	}
	wr_u16(w, (uint16_t)n);
	size_t len = wr_len_begin(w);
	for (size_t i = 0; i < n; i++) {
		wr_u16(w, ava[i].id);
		wr_octets(w, &ava[i].val);
	}
	wr_len_end(w, len);
}

static int dec_attr_list(struct mder_rd *r, struct tp_phd_attr_list *l)
{
	return tp_mder_dec_avas(r, "attribute-list.count", "attribute-list.length", l->ava,
				TP_PHD_MAX_ATTRS, &l->count);
}

static void enc_attr_list(struct mder_wr *w, const struct tp_phd_attr_list *l)
{
	tp_mder_enc_avas(w, l->ava, l->count, TP_PHD_MAX_ATTRS);
}

/* ---- PhdAssociationInformation (20601 Annex A) ---- */

static int dec_assoc_info(struct mder_rd *r, struct tp_phd_assoc_info *ai)
{
	int rc;

	if ((rc = rd_u32(r, "protocol-version", &ai->protocol_version)) < 0 ||
	    (rc = rd_u16(r, "encoding-rules", &ai->encoding_rules)) < 0 ||
	    (rc = rd_u32(r, "nomenclature-version", &ai->nomenclature_version)) < 0 ||
	    (rc = rd_u32(r, "functional-units", &ai->functional_units)) < 0 ||
	    (rc = rd_u32(r, "system-type", &ai->system_type)) < 0 ||
	    (rc = rd_octets(r, "system-id.length", &ai->system_id)) < 0 ||
	    (rc = rd_u16(r, "dev-config-id", &ai->dev_config_id)) < 0 ||
	    (rc = rd_u16(r, "data-req-mode-flags", &ai->data_req_mode_flags)) < 0 ||
	    (rc = rd_u8(r, "data-req-init-agent-count", &ai->data_req_init_agent_count)) < 0 ||
	    (rc = rd_u8(r, "data-req-init-manager-count", &ai->data_req_init_manager_count)) < 0)
		return rc;
	rc = tp_mder_dec_avas(r, "option-list.count", "option-list.length", ai->option_list.ava,
			      TP_PHD_MAX_ATTRS, &ai->option_list.count);
	if (rc < 0)
		return rc;
	return rd_done(r, "data-proto-info.length");
}

static void enc_assoc_info(struct mder_wr *w, const struct tp_phd_assoc_info *ai)
{
	wr_u32(w, ai->protocol_version);
	wr_u16(w, ai->encoding_rules);
	wr_u32(w, ai->nomenclature_version);
	wr_u32(w, ai->functional_units);
	wr_u32(w, ai->system_type);
	wr_octets(w, &ai->system_id);
	wr_u16(w, ai->dev_config_id);
	wr_u16(w, ai->data_req_mode_flags);
	wr_u8(w, ai->data_req_init_agent_count);
	wr_u8(w, ai->data_req_init_manager_count);
	enc_attr_list(w, &ai->option_list);
}

int tp_phd_decode_assoc_info(const uint8_t *buf, size_t len, struct tp_phd_assoc_info *out,
			     struct tp_phd_error *err)
{
	struct mder_rd r;
	rd_init(&r, buf, len, err);
	return dec_assoc_info(&r, out);
}

int tp_phd_encode_assoc_info(const struct tp_phd_assoc_info *ai, uint8_t *buf, size_t size)
{
	struct mder_wr w;
	wr_init(&w, buf, size);
	enc_assoc_info(&w, ai);
	return wr_result(&w);
}

/* ---- AarqApdu, AareApdu (20601 Annex A) ---- */

static int dec_aarq(struct mder_rd *r, struct tp_phd_aarq *a)
{
	struct mder_rd s;
	int rc;

	a->phd_index = -1;
	rc = rd_u32(r, "assoc-version", &a->assoc_version);
	if (rc < 0)
		return rc;
	rc = rd_list(r, "data-proto-list.count", "data-proto-list.length", TP_PHD_MAX_PROTOS,
		     &a->nprotos, &s);
	if (rc < 0)
		return rc;
	for (uint16_t i = 0; i < a->nprotos; i++) {
		struct tp_phd_data_proto *p = &a->proto[i];

		rc = rd_u16(&s, "data-proto-id", &p->id);
		if (rc < 0)
			return rc;
		rc = rd_octets(&s, "data-proto-info.length", &p->info);
		if (rc < 0)
			return rc;
		if (p->id == TP_PHD_DATA_PROTO_20601 && a->phd_index < 0) {
			size_t at = (size_t)(p->info.p - r->base);
			struct mder_rd in = {r->base, at, at + p->info.len, r->err};
			rc = dec_assoc_info(&in, &a->phd);
			if (rc < 0)
				return rc;
			a->phd_index = i;
		}
	}
	rc = rd_done(&s, "data-proto-list.length");
	if (rc < 0)
		return rc;
	return rd_done(r, "apdu.length");
}

static void enc_aarq(struct mder_wr *w, const struct tp_phd_aarq *a)
{
	if (a->nprotos > TP_PHD_MAX_PROTOS) {
		wr_invalid(w);
		return;
	}
	wr_u32(w, a->assoc_version);
	wr_u16(w, a->nprotos);
	size_t list = wr_len_begin(w);
	for (uint16_t i = 0; i < a->nprotos; i++) {
		wr_u16(w, a->proto[i].id);
		if (i == a->phd_index) {
			size_t info = wr_len_begin(w);
			enc_assoc_info(w, &a->phd);
			wr_len_end(w, info);
		} else {
			wr_octets(w, &a->proto[i].info);
		}
	}
	wr_len_end(w, list);
}

static int dec_aare(struct mder_rd *r, struct tp_phd_aare *a)
{
	int rc;

	a->has_phd = 0;
	if ((rc = rd_u16(r, "result", &a->result)) < 0 ||
	    (rc = rd_u16(r, "data-proto-id", &a->proto.id)) < 0)
		return rc;
	rc = rd_octets(r, "data-proto-info.length", &a->proto.info);
	if (rc < 0)
		return rc;
	/* a rejection may carry no protocol information at all */
	if (a->proto.id == TP_PHD_DATA_PROTO_20601 && a->proto.info.len > 0) {
		size_t at = (size_t)(a->proto.info.p - r->base);
		struct mder_rd in = {r->base, at, at + a->proto.info.len, r->err};
		rc = dec_assoc_info(&in, &a->phd);
		if (rc < 0)
			return rc;
		a->has_phd = 1;
	}
	return rd_done(r, "apdu.length");
}

static void enc_aare(struct mder_wr *w, const struct tp_phd_aare *a)
{
	wr_u16(w, a->result);
	wr_u16(w, a->proto.id);
	if (a->has_phd) {
		size_t info = wr_len_begin(w);
		enc_assoc_info(w, &a->phd);
		wr_len_end(w, info);
	} else {
		wr_octets(w, &a->proto.info);
	}
}

/* ---- DataApdu messages: the *ArgumentSimple and *ResultSimple types (20601 Annex A) ---- */

static int dec_event_report(struct mder_rd *r, struct tp_phd_event_report *e, int result)
{
	int rc;

	if ((rc = rd_u16(r, "obj-handle", &e->obj_handle)) < 0 ||
	    (rc = rd_u32(r, result ? "currentTime" : "event-time", &e->time)) < 0 ||
	    (rc = rd_u16(r, "event-type", &e->type)) < 0)
		return rc;
	return rd_octets(r, result ? "event-reply-info.length" : "event-info.length", &e->info);
}

static int dec_get(struct mder_rd *r, struct tp_phd_get *g)
{
	struct mder_rd s;
	int rc = rd_u16(r, "obj-handle", &g->obj_handle);
	if (rc < 0)
		return rc;
	rc = rd_list(r, "attribute-id-list.count", "attribute-id-list.length", TP_PHD_MAX_ATTRS,
		     &g->nids, &s);
	if (rc < 0)
		return rc;
	for (uint16_t i = 0; i < g->nids; i++) {
		rc = rd_u16(&s, "attribute-id", &g->id[i]);
		if (rc < 0)
			return rc;
	}
	return rd_done(&s, "attribute-id-list.length");
}

static int dec_set(struct mder_rd *r, struct tp_phd_set *st)
{
	struct mder_rd s;
	int rc = rd_u16(r, "obj-handle", &st->obj_handle);
	if (rc < 0)
		return rc;
	rc = rd_list(r, "modification-list.count", "modification-list.length", TP_PHD_MAX_ATTRS,
		     &st->nmods, &s);
	if (rc < 0)
		return rc;
	for (uint16_t i = 0; i < st->nmods; i++) {
		if ((rc = rd_u16(&s, "modify-operator", &st->mod[i].op)) < 0 ||
		    (rc = rd_u16(&s, "attribute-id", &st->mod[i].ava.id)) < 0 ||
		    (rc = rd_octets(&s, "attribute-value.length", &st->mod[i].ava.val)) < 0)
			return rc;
	}
	return rd_done(&s, "modification-list.length");
}

static int dec_action(struct mder_rd *r, struct tp_phd_action *a)
{
	int rc;

	if ((rc = rd_u16(r, "obj-handle", &a->obj_handle)) < 0 ||
	    (rc = rd_u16(r, "action-type", &a->type)) < 0)
		return rc;
	return rd_octets(r, "action-info-args.length", &a->args);
}

static int dec_message(struct mder_rd *r, size_t choice_at, struct tp_phd_data_apdu *d)
{
	int rc;

	switch (d->choice) {
	case TP_PHD_ROIV_EVENT_REPORT:
	case TP_PHD_ROIV_CONF_EVENT_REPORT:
		return dec_event_report(r, &d->u.evt, 0);
	case TP_PHD_RORS_CONF_EVENT_REPORT:
		return dec_event_report(r, &d->u.evt, 1);
	case TP_PHD_ROIV_GET:
		return dec_get(r, &d->u.get);
	case TP_PHD_ROIV_SET:
	case TP_PHD_ROIV_CONF_SET:
		return dec_set(r, &d->u.set);
	case TP_PHD_ROIV_ACTION:
	case TP_PHD_ROIV_CONF_ACTION:
	case TP_PHD_RORS_CONF_ACTION:
		return dec_action(r, &d->u.action);
	case TP_PHD_RORS_GET:
	case TP_PHD_RORS_CONF_SET:
		rc = rd_u16(r, "obj-handle", &d->u.attrs.obj_handle);
		if (rc < 0)
			return rc;
		return dec_attr_list(r, &d->u.attrs.attrs);
	case TP_PHD_ROER:
		rc = rd_u16(r, "error-value", &d->u.roer.error_value);
		if (rc < 0)
			return rc;
		return rd_octets(r, "parameter.length", &d->u.roer.parameter);
	case TP_PHD_RORJ:
		return rd_u16(r, "problem", &d->u.rorj_problem);
	}
	return rd_fail_at(r, choice_at, TP_PHD_E_UNKNOWN_CHOICE, "message.choice", 0, d->choice);
}

/* PrstApdu ::= OCTET STRING holding a DataApdu (20601 Annex A) */
static int dec_prst(struct mder_rd *r, struct tp_phd_data_apdu *d)
{
	struct mder_rd os, msg;
	size_t choice_at;
	int rc;

	rc = rd_block(r, "prst.length", &os);
	if (rc < 0)
		return rc;
	rc = rd_done(r, "apdu.length");
	if (rc < 0)
		return rc;
	rc = rd_u16(&os, "invoke-id", &d->invoke_id);
	if (rc < 0)
		return rc;
	choice_at = os.off;
	rc = rd_u16(&os, "message.choice", &d->choice);
	if (rc < 0)
		return rc;
	rc = rd_block(&os, "message.length", &msg);
	if (rc < 0)
		return rc;
	rc = rd_done(&os, "prst.length");
	if (rc < 0)
		return rc;
	rc = dec_message(&msg, choice_at, d);
	if (rc < 0)
		return rc;
	return rd_done(&msg, "message.length");
}

static void enc_message(struct mder_wr *w, const struct tp_phd_data_apdu *d)
{
	switch (d->choice) {
	case TP_PHD_ROIV_EVENT_REPORT:
	case TP_PHD_ROIV_CONF_EVENT_REPORT:
	case TP_PHD_RORS_CONF_EVENT_REPORT:
		wr_u16(w, d->u.evt.obj_handle);
		wr_u32(w, d->u.evt.time);
		wr_u16(w, d->u.evt.type);
		wr_octets(w, &d->u.evt.info);
		return;
	case TP_PHD_ROIV_GET:
		if (d->u.get.nids > TP_PHD_MAX_ATTRS) {
			wr_invalid(w);
			return;
		}
		wr_u16(w, d->u.get.obj_handle);
		wr_u16(w, d->u.get.nids);
		wr_u16(w, (uint16_t)(2 * d->u.get.nids));
		for (uint16_t i = 0; i < d->u.get.nids; i++)
			wr_u16(w, d->u.get.id[i]);
		return;
	case TP_PHD_ROIV_SET:
	case TP_PHD_ROIV_CONF_SET: {
		if (d->u.set.nmods > TP_PHD_MAX_ATTRS) {
			wr_invalid(w);
			return;
		}
		wr_u16(w, d->u.set.obj_handle);
		wr_u16(w, d->u.set.nmods);
		size_t len = wr_len_begin(w);
		for (uint16_t i = 0; i < d->u.set.nmods; i++) {
			wr_u16(w, d->u.set.mod[i].op);
			wr_u16(w, d->u.set.mod[i].ava.id);
			wr_octets(w, &d->u.set.mod[i].ava.val);
		}
		wr_len_end(w, len);
		return;
	}
	case TP_PHD_ROIV_ACTION:
	case TP_PHD_ROIV_CONF_ACTION:
	case TP_PHD_RORS_CONF_ACTION:
		wr_u16(w, d->u.action.obj_handle);
		wr_u16(w, d->u.action.type);
		wr_octets(w, &d->u.action.args);
		return;
	case TP_PHD_RORS_GET:
	case TP_PHD_RORS_CONF_SET:
		wr_u16(w, d->u.attrs.obj_handle);
		enc_attr_list(w, &d->u.attrs.attrs);
		return;
	case TP_PHD_ROER:
		wr_u16(w, d->u.roer.error_value);
		wr_octets(w, &d->u.roer.parameter);
		return;
	case TP_PHD_RORJ:
		wr_u16(w, d->u.rorj_problem);
		return;
	}
	wr_invalid(w);
}

/* ---- APDU ::= CHOICE, in MDER a 16-bit tag and a 16-bit length (20601 MDER) ---- */

int tp_phd_decode_apdu(const uint8_t *buf, size_t len, struct tp_phd_apdu *out,
		       struct tp_phd_error *err)
{
	struct mder_rd r, body;
	int rc;

	rd_init(&r, buf, len, err);
	rc = rd_u16(&r, "apdu.choice", &out->type);
	if (rc < 0)
		return rc;
	switch (out->type) {
	case TP_PHD_AARQ:
	case TP_PHD_AARE:
	case TP_PHD_RLRQ:
	case TP_PHD_RLRE:
	case TP_PHD_ABRT:
	case TP_PHD_PRST:
		break;
	default:
		return rd_fail_at(&r, 0, TP_PHD_E_UNKNOWN_APDU, "apdu.choice", 0, out->type);
	}
	rc = rd_block(&r, "apdu.length", &body);
	if (rc < 0)
		return rc;
	rc = rd_done(&r, "datagram (bytes after the APDU)");
	if (rc < 0)
		return rc;
	switch (out->type) {
	case TP_PHD_AARQ:
		return dec_aarq(&body, &out->u.aarq);
	case TP_PHD_AARE:
		return dec_aare(&body, &out->u.aare);
	case TP_PHD_PRST:
		return dec_prst(&body, &out->u.prst);
	case TP_PHD_RLRQ:
	case TP_PHD_RLRE:
	case TP_PHD_ABRT:
		rc = rd_u16(&body, out->type == TP_PHD_ABRT ? "abort-reason" : "release-reason",
			    &out->u.reason);
		if (rc < 0)
			return rc;
		return rd_done(&body, "apdu.length");
	}
	return -TP_PHD_E_UNKNOWN_APDU;
}

int tp_phd_encode_apdu(const struct tp_phd_apdu *a, uint8_t *buf, size_t size)
{
	struct mder_wr w;
	size_t len;

	wr_init(&w, buf, size);
	wr_u16(&w, a->type);
	len = wr_len_begin(&w);
	switch (a->type) {
	case TP_PHD_AARQ:
		enc_aarq(&w, &a->u.aarq);
		break;
	case TP_PHD_AARE:
		enc_aare(&w, &a->u.aare);
		break;
	case TP_PHD_RLRQ:
	case TP_PHD_RLRE:
	case TP_PHD_ABRT:
		wr_u16(&w, a->u.reason);
		break;
	case TP_PHD_PRST: {
		size_t os = wr_len_begin(&w);
		wr_u16(&w, a->u.prst.invoke_id);
		wr_u16(&w, a->u.prst.choice);
		size_t msg = wr_len_begin(&w);
		enc_message(&w, &a->u.prst);
		wr_len_end(&w, msg);
		wr_len_end(&w, os);
		break;
	}
	default:
		wr_invalid(&w);
	}
	wr_len_end(&w, len);
	return wr_result(&w);
}

int tp_phd_encode_event_report_rsp(uint8_t *buf, size_t size, uint16_t invoke_id,
				   uint16_t obj_handle, uint32_t current_time, uint16_t event_type)
{
	struct mder_wr w;

	wr_init(&w, buf, size);
	wr_u16(&w, TP_PHD_PRST);
	wr_u16(&w, 18); /* APDU length */
	wr_u16(&w, 16); /* octet string length: the DataApdu */
	wr_u16(&w, invoke_id);
	wr_u16(&w, TP_PHD_RORS_CONF_EVENT_REPORT);
	wr_u16(&w, 10); /* EventReportResultSimple */
	wr_u16(&w, obj_handle);
	wr_u32(&w, current_time);
	wr_u16(&w, event_type);
	wr_u16(&w, 0); /* event-reply-info: empty */
	return wr_result(&w);
}

/* ---- ConfigReport, ConfigReportRsp (20601 Annex A) ---- */

static int dec_config_report(struct mder_rd *r, struct tp_phd_config_report *c)
{
	struct mder_rd s;
	int rc = rd_u16(r, "config-report-id", &c->config_report_id);
	if (rc < 0)
		return rc;
	rc = rd_list(r, "config-obj-list.count", "config-obj-list.length", TP_PHD_MAX_CFG_OBJS,
		     &c->nobjs, &s);
	if (rc < 0)
		return rc;
	for (uint16_t i = 0; i < c->nobjs; i++) {
		struct tp_phd_config_object *o = &c->obj[i];
		if ((rc = rd_u16(&s, "obj-class", &o->obj_class)) < 0 ||
		    (rc = rd_u16(&s, "obj-handle", &o->handle)) < 0 ||
		    (rc = dec_attr_list(&s, &o->attrs)) < 0)
			return rc;
	}
	rc = rd_done(&s, "config-obj-list.length");
	if (rc < 0)
		return rc;
	return rd_done(r, "event-info.length");
}

int tp_phd_decode_config_report(const uint8_t *buf, size_t len, struct tp_phd_config_report *out,
				struct tp_phd_error *err)
{
	struct mder_rd r;
	rd_init(&r, buf, len, err);
	return dec_config_report(&r, out);
}

int tp_phd_encode_config_report(const struct tp_phd_config_report *c, uint8_t *buf, size_t size)
{
	struct mder_wr w;

	wr_init(&w, buf, size);
	if (c->nobjs > TP_PHD_MAX_CFG_OBJS)
		return -TP_PHD_E_INVALID;
	wr_u16(&w, c->config_report_id);
	wr_u16(&w, c->nobjs);
	size_t len = wr_len_begin(&w);
	for (uint16_t i = 0; i < c->nobjs; i++) {
		wr_u16(&w, c->obj[i].obj_class);
		wr_u16(&w, c->obj[i].handle);
		enc_attr_list(&w, &c->obj[i].attrs);
	}
	wr_len_end(&w, len);
	return wr_result(&w);
}

int tp_phd_decode_config_rsp(const uint8_t *buf, size_t len, struct tp_phd_config_rsp *out,
			     struct tp_phd_error *err)
{
	struct mder_rd r;
	int rc;

	rd_init(&r, buf, len, err);
	if ((rc = rd_u16(&r, "config-report-id", &out->config_report_id)) < 0 ||
	    (rc = rd_u16(&r, "config-result", &out->result)) < 0)
		return rc;
	return rd_done(&r, "event-reply-info.length");
}

int tp_phd_encode_config_rsp(const struct tp_phd_config_rsp *rsp, uint8_t *buf, size_t size)
{
	struct mder_wr w;

	wr_init(&w, buf, size);
	wr_u16(&w, rsp->config_report_id);
	wr_u16(&w, rsp->result);
	return wr_result(&w);
}

/* ---- ScanReportInfo* (20601 Annex A) ---- */

int tp_phd_scan_kind(uint16_t event_type, enum tp_phd_scan_form *form, int *multi_person)
{
	enum tp_phd_scan_form f;
	int mp;

	switch (event_type) {
	case MDC_NOTI_SCAN_REPORT_FIXED:
	case MDC_NOTI_UNBUF_SCAN_REPORT_FIXED:
	case MDC_NOTI_BUF_SCAN_REPORT_FIXED:
		f = TP_PHD_SCAN_FIXED, mp = 0;
		break;
	case MDC_NOTI_SCAN_REPORT_VAR:
	case MDC_NOTI_UNBUF_SCAN_REPORT_VAR:
	case MDC_NOTI_BUF_SCAN_REPORT_VAR:
		f = TP_PHD_SCAN_VAR, mp = 0;
		break;
	case MDC_NOTI_UNBUF_SCAN_REPORT_GROUPED:
	case MDC_NOTI_BUF_SCAN_REPORT_GROUPED:
		f = TP_PHD_SCAN_GROUPED, mp = 0;
		break;
	case MDC_NOTI_SCAN_REPORT_MP_FIXED:
	case MDC_NOTI_UNBUF_SCAN_REPORT_MP_FIXED:
	case MDC_NOTI_BUF_SCAN_REPORT_MP_FIXED:
		f = TP_PHD_SCAN_FIXED, mp = 1;
		break;
	case MDC_NOTI_SCAN_REPORT_MP_VAR:
	case MDC_NOTI_UNBUF_SCAN_REPORT_MP_VAR:
	case MDC_NOTI_BUF_SCAN_REPORT_MP_VAR:
		f = TP_PHD_SCAN_VAR, mp = 1;
		break;
	case MDC_NOTI_UNBUF_SCAN_REPORT_MP_GROUPED:
	case MDC_NOTI_BUF_SCAN_REPORT_MP_GROUPED:
		f = TP_PHD_SCAN_GROUPED, mp = 1;
		break;
	default:
		return -TP_PHD_E_UNKNOWN_EVENT;
	}
	if (form)
		*form = f;
	if (multi_person)
		*multi_person = mp;
	return 0;
}

/* One ObservationScanFixed, ObservationScan or ObservationScanGrouped. */
static int dec_observation(struct mder_rd *r, struct tp_phd_scan_report *s)
{
	struct tp_phd_observation *o = &s->obs[s->nobs];
	int rc;

	memset(o, 0, sizeof(*o));
	if (s->form == TP_PHD_SCAN_GROUPED)
		return rd_octets(r, "obs-scan-grouped.length", &o->data);
	rc = rd_u16(r, "obj-handle", &o->handle);
	if (rc < 0)
		return rc;
	if (s->form == TP_PHD_SCAN_FIXED)
		return rd_octets(r, "obs-val-data.length", &o->data);
	o->attr_first = s->nattrs;
	rc = tp_mder_dec_avas(r, "attribute-list.count", "attribute-list.length",
			      &s->attr[s->nattrs], TP_PHD_MAX_SCAN_ATTRS - s->nattrs, &o->nattrs);
	if (rc < 0)
		return rc;
	s->nattrs += o->nattrs;
	return 0;
}

/* A SEQUENCE OF observations, appended to s->obs. */
static int dec_obs_list(struct mder_rd *r, const char *fcount, const char *flength,
			struct tp_phd_scan_report *s)
{
	struct mder_rd l;
	uint16_t count;
	int rc = rd_list(r, fcount, flength, TP_PHD_MAX_OBS - s->nobs, &count, &l);
	if (rc < 0)
		return rc;
	for (uint16_t i = 0; i < count; i++) {
		rc = dec_observation(&l, s);
		if (rc < 0)
			return rc;
		s->nobs++;
	}
	return rd_done(&l, flength);
}

static const char *const obs_list_name[3][2] = {
    [TP_PHD_SCAN_FIXED] = {"obs-scan-fixed.count", "obs-scan-fixed.length"},
    [TP_PHD_SCAN_VAR] = {"obs-scan-var.count", "obs-scan-var.length"},
    [TP_PHD_SCAN_GROUPED] = {"obs-scan-grouped.count", "obs-scan-grouped.length"},
};
static const char *const per_list_name[3][2] = {
    [TP_PHD_SCAN_FIXED] = {"scan-per-fixed.count", "scan-per-fixed.length"},
    [TP_PHD_SCAN_VAR] = {"scan-per-var.count", "scan-per-var.length"},
    [TP_PHD_SCAN_GROUPED] = {"scan-per-grouped.count", "scan-per-grouped.length"},
};

static int dec_scan_report(struct mder_rd *r, struct tp_phd_scan_report *s)
{
	struct mder_rd l;
	uint16_t count;
	int rc;

	if ((rc = rd_u16(r, "data-req-id", &s->data_req_id)) < 0 ||
	    (rc = rd_u16(r, "scan-report-no", &s->scan_report_no)) < 0)
		return rc;
	if (!s->multi_person) {
		rc = dec_obs_list(r, obs_list_name[s->form][0], obs_list_name[s->form][1], s);
		if (rc < 0)
			return rc;
		return rd_done(r, "event-info.length");
	}
	rc = rd_list(r, per_list_name[s->form][0], per_list_name[s->form][1], TP_PHD_MAX_PERSONS,
		     &count, &l);
	if (rc < 0)
		return rc;
	for (uint16_t i = 0; i < count; i++) {
		rc = rd_u16(&l, "person-id", &s->person[i].person_id);
		if (rc < 0)
			return rc;
		s->person[i].obs_first = s->nobs;
		if (s->form == TP_PHD_SCAN_GROUPED) {
			/* ScanReportPerGrouped: one ObservationScanGrouped per person */
			if (s->nobs >= TP_PHD_MAX_OBS)
				return rd_fail(&l, TP_PHD_E_TOO_MANY, "obs-scan-grouped",
					       s->nobs + 1u, TP_PHD_MAX_OBS);
			rc = dec_observation(&l, s);
			if (rc < 0)
				return rc;
			s->nobs++;
		} else {
			rc = dec_obs_list(&l,
					  s->form == TP_PHD_SCAN_FIXED ? "obs-scan-fix.count"
								       : "obs-scan-var.count",
					  s->form == TP_PHD_SCAN_FIXED ? "obs-scan-fix.length"
								       : "obs-scan-var.length",
					  s);
			if (rc < 0)
				return rc;
		}
		s->person[i].nobs = (uint16_t)(s->nobs - s->person[i].obs_first);
		s->npersons++;
	}
	rc = rd_done(&l, per_list_name[s->form][1]);
	if (rc < 0)
		return rc;
	return rd_done(r, "event-info.length");
}

int tp_phd_decode_scan_report(uint16_t event_type, const uint8_t *buf, size_t len,
			      struct tp_phd_scan_report *out, struct tp_phd_error *err)
{
	struct mder_rd r;
	enum tp_phd_scan_form form;
	int mp;

	rd_init(&r, buf, len, err);
	if (tp_phd_scan_kind(event_type, &form, &mp) < 0)
		return rd_fail(&r, TP_PHD_E_UNKNOWN_EVENT, "event-type", 0, event_type);
	out->event_type = event_type;
	out->form = (uint8_t)form;
	out->multi_person = (uint8_t)mp;
	out->npersons = 0;
	out->nobs = 0;
	out->nattrs = 0;
	return dec_scan_report(&r, out);
}

static void enc_observation(struct mder_wr *w, const struct tp_phd_scan_report *s,
			    const struct tp_phd_observation *o)
{
	if (s->form == TP_PHD_SCAN_GROUPED) {
		wr_octets(w, &o->data);
		return;
	}
	wr_u16(w, o->handle);
	if (s->form == TP_PHD_SCAN_FIXED) {
		wr_octets(w, &o->data);
		return;
	}
	if ((size_t)o->attr_first + o->nattrs > s->nattrs || s->nattrs > TP_PHD_MAX_SCAN_ATTRS) {
		wr_invalid(w);
		return;
	}
	tp_mder_enc_avas(w, &s->attr[o->attr_first], o->nattrs, TP_PHD_MAX_SCAN_ATTRS);
}

static void enc_obs_list(struct mder_wr *w, const struct tp_phd_scan_report *s, size_t first,
			 size_t n)
{
	if (first + n > s->nobs) {
		wr_invalid(w);
		return;
	}
	wr_u16(w, (uint16_t)n);
	size_t len = wr_len_begin(w);
	for (size_t i = first; i < first + n; i++)
		enc_observation(w, s, &s->obs[i]);
	wr_len_end(w, len);
}

int tp_phd_encode_scan_report(const struct tp_phd_scan_report *s, uint8_t *buf, size_t size)
{
	struct mder_wr w;
	enum tp_phd_scan_form form;
	int mp;

	wr_init(&w, buf, size);
	if (tp_phd_scan_kind(s->event_type, &form, &mp) < 0 || form != s->form ||
	    mp != s->multi_person || s->nobs > TP_PHD_MAX_OBS || s->npersons > TP_PHD_MAX_PERSONS)
		return -TP_PHD_E_INVALID;
	wr_u16(&w, s->data_req_id);
	wr_u16(&w, s->scan_report_no);
	if (!mp) {
		enc_obs_list(&w, s, 0, s->nobs);
		return wr_result(&w);
	}
	wr_u16(&w, s->npersons);
	size_t len = wr_len_begin(&w);
	for (uint16_t i = 0; i < s->npersons; i++) {
		wr_u16(&w, s->person[i].person_id);
		if (form == TP_PHD_SCAN_GROUPED) {
			if (s->person[i].nobs != 1 || s->person[i].obs_first >= s->nobs) {
				wr_invalid(&w);
				break;
			}
			enc_observation(&w, s, &s->obs[s->person[i].obs_first]);
		} else {
			enc_obs_list(&w, s, s->person[i].obs_first, s->person[i].nobs);
		}
	}
	wr_len_end(&w, len);
	return wr_result(&w);
}

/* ---- action arguments and results (20601 Annex A: DataRequest, DataResponse,
 * SetTimeInvoke) ---- */

int tp_phd_decode_data_request(const uint8_t *buf, size_t len, struct tp_phd_data_request *out,
			       struct tp_phd_error *err)
{
	struct mder_rd r, l;
	int rc;

	rd_init(&r, buf, len, err);
	if ((rc = rd_u16(&r, "data-req-id", &out->data_req_id)) < 0 ||
	    (rc = rd_u16(&r, "data-req-mode", &out->mode)) < 0 ||
	    (rc = rd_u32(&r, "data-req-time", &out->time)) < 0 ||
	    (rc = rd_u16(&r, "data-req-person-id", &out->person_id)) < 0 ||
	    (rc = rd_u16(&r, "data-req-class", &out->class_id)) < 0)
		return rc;
	rc = rd_list(&r, "data-req-obj-handle-list.count", "data-req-obj-handle-list.length",
		     TP_PHD_MAX_LIST, &out->nhandles, &l);
	if (rc < 0)
		return rc;
	for (uint16_t i = 0; i < out->nhandles; i++)
		if ((rc = rd_u16(&l, "handle", &out->handle[i])) < 0)
			return rc;
	if ((rc = rd_done(&l, "data-req-obj-handle-list.length")) < 0)
		return rc;
	return rd_done(&r, "action-info-args.length");
}

int tp_phd_encode_data_request(const struct tp_phd_data_request *q, uint8_t *buf, size_t size)
{
	struct mder_wr w;

	wr_init(&w, buf, size);
	if (q->nhandles > TP_PHD_MAX_LIST)
		return -TP_PHD_E_INVALID;
	wr_u16(&w, q->data_req_id);
	wr_u16(&w, q->mode);
	wr_u32(&w, q->time);
	wr_u16(&w, q->person_id);
	wr_u16(&w, q->class_id);
	wr_u16(&w, q->nhandles);
	wr_u16(&w, (uint16_t)(2 * q->nhandles));
	for (uint16_t i = 0; i < q->nhandles; i++)
		wr_u16(&w, q->handle[i]);
	return wr_result(&w);
}

int tp_phd_decode_data_response(const uint8_t *buf, size_t len, struct tp_phd_data_response *out,
				struct tp_phd_error *err)
{
	struct mder_rd r;
	int rc;

	rd_init(&r, buf, len, err);
	if ((rc = rd_u32(&r, "rel-time-stamp", &out->rel_time_stamp)) < 0 ||
	    (rc = rd_u16(&r, "data-req-result", &out->result)) < 0 ||
	    (rc = rd_u16(&r, "event-type", &out->event_type)) < 0 ||
	    (rc = rd_octets(&r, "event-info.length", &out->event_info)) < 0)
		return rc;
	return rd_done(&r, "action-info-args.length");
}

int tp_phd_encode_data_response(const struct tp_phd_data_response *d, uint8_t *buf, size_t size)
{
	struct mder_wr w;

	wr_init(&w, buf, size);
	wr_u32(&w, d->rel_time_stamp);
	wr_u16(&w, d->result);
	wr_u16(&w, d->event_type);
	wr_octets(&w, &d->event_info);
	return wr_result(&w);
}

int tp_phd_decode_set_time(const uint8_t *buf, size_t len, struct tp_phd_set_time *out,
			   struct tp_phd_error *err)
{
	struct mder_rd r;
	uint32_t acc;
	int rc;

	rd_init(&r, buf, len, err);
	if ((rc = rd_need(&r, 8, "date-time")) < 0)
		return rc;
	if (tp_phd_abs_time_decode(buf, &out->time) < 0)
		return rd_fail(&r, TP_PHD_E_BAD_TIME, "date-time", 0, 0);
	r.off += 8;
	if ((rc = rd_u32(&r, "accuracy", &acc)) < 0)
		return rc;
	tp_phd_float_decode(acc, &out->accuracy);
	return rd_done(&r, "action-info-args.length");
}

int tp_phd_encode_set_time(const struct tp_phd_set_time *t, uint8_t *buf, size_t size)
{
	struct tp_phd_value v = {.attr_id = MDC_ATTR_NU_ACCUR_MSMT, .kind = TP_PHD_V_FLOAT};
	uint8_t b[8];
	int n;

	if (size < 12)
		return -TP_PHD_E_NO_SPACE;
	if (tp_phd_abs_time_encode(&t->time, b) < 0)
		return -TP_PHD_E_BAD_TIME;
	v.u.num = t->accuracy;
	n = tp_phd_attr_value_encode(&v, buf + 8, size - 8);
	if (n < 0)
		return n;
	memcpy(buf, b, 8);
	return 12;
}

/* ---- deep check ---- */

static int check_avas(const struct tp_phd_ava *ava, size_t n, struct tp_phd_value *v,
		      struct tp_phd_error *err)
{
	for (size_t i = 0; i < n; i++) {
		int rc = tp_phd_attr_value_decode(ava[i].id, ava[i].val.p, ava[i].val.len, v, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int check_scan(uint16_t type, struct tp_phd_octets info, const struct tp_phd_value_map *map,
		      unsigned int flags, struct tp_phd_error *err);

static int check_event_info(const struct tp_phd_data_apdu *d, const struct tp_phd_value_map *map,
			    unsigned int flags, struct tp_phd_error *err)
{
	struct {
		struct tp_phd_config_report cfg;
	} w;
	struct tp_phd_value_map cmap;
	struct tp_phd_value vals[TP_PHD_MAX_AVM];
	const struct tp_phd_event_report *e = &d->u.evt;
	int rc;

	if (e->type == MDC_NOTI_CONFIG) {
		if (d->choice == TP_PHD_RORS_CONF_EVENT_REPORT) {
			struct tp_phd_config_rsp rsp;
			return tp_phd_decode_config_rsp(e->info.p, e->info.len, &rsp, err);
		}
		rc = tp_phd_decode_config_report(e->info.p, e->info.len, &w.cfg, err);
		if (rc < 0)
			return rc;
		for (uint16_t i = 0; i < w.cfg.nobjs; i++) {
			rc =
			    check_avas(w.cfg.obj[i].attrs.ava, w.cfg.obj[i].attrs.count, vals, err);
			if (rc < 0)
				return rc;
		}
		return tp_phd_value_map_build(&w.cfg, &cmap, err);
	}
	if (tp_phd_scan_kind(e->type, NULL, NULL) < 0 || d->choice == TP_PHD_RORS_CONF_EVENT_REPORT)
		return 0; /* other events' information is not this codec's */
	return check_scan(e->type, e->info, map, flags, err);
}

/* A scan report (of an event report, or inside a DataResponse), its values, and
 * its fixed observations against map (those of handles map lacks skipped with
 * TP_PHD_CHECK_UNDECLARED_OK). */
static int check_scan(uint16_t type, struct tp_phd_octets info, const struct tp_phd_value_map *map,
		      unsigned int flags, struct tp_phd_error *err)
{
	struct tp_phd_scan_report scan;
	struct tp_phd_value vals[TP_PHD_MAX_AVM];
	int rc;

	rc = tp_phd_decode_scan_report(type, info.p, info.len, &scan, err);
	if (rc < 0)
		return rc;
	rc = check_avas(scan.attr, scan.nattrs, vals, err);
	if (rc < 0)
		return rc;
	if (scan.form != TP_PHD_SCAN_FIXED || map == NULL)
		return 0;
	for (uint16_t i = 0; i < scan.nobs; i++) {
		const struct tp_phd_observation *o = &scan.obs[i];
		const struct tp_phd_obj_map *om = tp_phd_value_map_find(map, o->handle);
		if (om == NULL && (flags & TP_PHD_CHECK_UNDECLARED_OK))
			continue; /* its bytes cannot be read without a layout: the caller's */
		if (om == NULL) {
			if (err) {
				memset(err, 0, sizeof(*err));
				err->code = TP_PHD_E_NO_CONFIG;
				err->where = o->data.p - 4; /* the observation's obj-handle */
				err->field = "obj-handle";
				err->have = o->handle;
			}
			return -TP_PHD_E_NO_CONFIG;
		}
		rc = tp_phd_fixed_values(om, o->data.p, o->data.len, vals, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The arguments of the actions whose types 20601 defines (data request, set time)
 * and the data request's result; other actions' arguments stay octets. */
static int check_action(const struct tp_phd_data_apdu *d, const struct tp_phd_value_map *map,
			unsigned int flags, struct tp_phd_error *err)
{
	const struct tp_phd_action *a = &d->u.action;
	union {
		struct tp_phd_data_request q;
		struct tp_phd_data_response r;
		struct tp_phd_set_time t;
	} w;
	int rc;

	switch (a->type) {
	case MDC_ACT_DATA_REQUEST:
		if (d->choice != TP_PHD_RORS_CONF_ACTION)
			return tp_phd_decode_data_request(a->args.p, a->args.len, &w.q, err);
		rc = tp_phd_decode_data_response(a->args.p, a->args.len, &w.r, err);
		if (rc < 0 || tp_phd_scan_kind(w.r.event_type, NULL, NULL) < 0)
			return rc;
		return check_scan(w.r.event_type, w.r.event_info, map, flags, err);
	case MDC_ACT_SET_TIME:
		if (d->choice == TP_PHD_RORS_CONF_ACTION)
			return 0; /* its result carries no arguments */
		return tp_phd_decode_set_time(a->args.p, a->args.len, &w.t, err);
	}
	return 0;
}

int tp_phd_check(const uint8_t *buf, size_t len, const struct tp_phd_value_map *map,
		 struct tp_phd_error *err)
{
	return tp_phd_check_flags(buf, len, map, 0, err);
}

int tp_phd_check_flags(const uint8_t *buf, size_t len, const struct tp_phd_value_map *map,
		       unsigned int flags, struct tp_phd_error *err)
{
	struct tp_phd_apdu a;
	struct tp_phd_value v;
	int rc;

	rc = tp_phd_decode_apdu(buf, len, &a, err);
	if (rc < 0)
		return rc;
	switch (a.type) {
	case TP_PHD_AARQ:
		if (a.u.aarq.phd_index >= 0)
			rc = check_avas(a.u.aarq.phd.option_list.ava,
					a.u.aarq.phd.option_list.count, &v, err);
		break;
	case TP_PHD_AARE:
		if (a.u.aare.has_phd)
			rc = check_avas(a.u.aare.phd.option_list.ava,
					a.u.aare.phd.option_list.count, &v, err);
		break;
	case TP_PHD_PRST:
		switch (a.u.prst.choice) {
		case TP_PHD_ROIV_EVENT_REPORT:
		case TP_PHD_ROIV_CONF_EVENT_REPORT:
		case TP_PHD_RORS_CONF_EVENT_REPORT:
			rc = check_event_info(&a.u.prst, map, flags, err);
			break;
		case TP_PHD_RORS_GET:
		case TP_PHD_RORS_CONF_SET:
			rc = check_avas(a.u.prst.u.attrs.attrs.ava, a.u.prst.u.attrs.attrs.count,
					&v, err);
			break;
		case TP_PHD_ROIV_SET:
		case TP_PHD_ROIV_CONF_SET:
			for (uint16_t i = 0; i < a.u.prst.u.set.nmods && rc == 0; i++)
				rc = check_avas(&a.u.prst.u.set.mod[i].ava, 1, &v, err);
			break;
		case TP_PHD_ROIV_ACTION:
		case TP_PHD_ROIV_CONF_ACTION:
		case TP_PHD_RORS_CONF_ACTION:
			rc = check_action(&a.u.prst, map, flags, err);
			break;
		}
		break;
	}
	if (rc < 0 && err != NULL && err->where != NULL)
		err->offset = (uint32_t)(err->where - buf);
	return rc;
}
