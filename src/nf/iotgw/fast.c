/* SPDX-License-Identifier: BSD-3-Clause */
/* The gateway's data plane: scan reports to oneM2M contentInstances, on the worker. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "../../core/l4.h"
#include "../../core/tp.h"
#include "../../proto/ip4.h"
#include "../../proto/onem2m.h"
#include "../../proto/phd_nomenclature.h"
#include "../../tables/iface.h"
#include "../../tables/nexthop.h"
#include "../../tables/route.h"
#include "iotgw.h"

#define COAP_SPORT 5683

const char *const tp_iotgw_ctr_names[TP_IOTGW_CTR_MAX] = {
#define X(e, n) [TP_IOTGW_##e] = n,
	TP_IOTGW_COUNTERS(X)
#undef X
};

/* Worker-owned state: counters, and the last invoke-id answered per agent
 * (generation << 16 | invoke-id + 1), for duplicates of confirmed reports. */
struct iotgw_wstate {
	uint64_t ctr[TP_IOTGW_CTR_MAX];
	uint16_t mid;
	uint32_t rqi;
	uint32_t last_invoke[TP_AE_MAX];
	uint32_t last_seen[TP_AE_MAX]; /* tp_iotgw_now_s when a report was last seen */
} __rte_cache_aligned;

static struct iotgw_wstate *wstate[TP_MAX_WORKERS];

volatile uint32_t tp_iotgw_now_s;

uint32_t tp_iotgw_last_seen(int idx)
{
	uint32_t t = 0;
	for (unsigned int i = 0; i < TP_MAX_WORKERS; i++)
		if (wstate[i] && wstate[i]->last_seen[idx] > t)
			t = wstate[i]->last_seen[idx];
	return t;
}

uint64_t tp_iotgw_counter(enum tp_iotgw_ctr c)
{
	uint64_t sum = 0;
	for (unsigned int i = 0; i < TP_MAX_WORKERS; i++)
		if (wstate[i])
			sum += __atomic_load_n(&wstate[i]->ctr[c], __ATOMIC_RELAXED);
	return sum;
}

static inline void count_drop(struct tp_worker *w, struct iotgw_wstate *ws, struct rte_mbuf *m,
			      enum tp_iotgw_ctr c)
{
	ws->ctr[c]++;
	w->st.port[m->port].drop++;
	rte_pktmbuf_free(m);
}

/* One metric value: a JSON number (or NULL for NaN/NRes/INF), unit and time. */
struct reading {
	char value[40];
	const char *unit;
	char time[32];
	int has_value, has_time;
};

static void reading_add(struct reading *r, const struct tp_phd_value *v, char *unit_buf,
			size_t unit_len)
{
	const struct tp_phd_num *num = NULL;

	switch (v->kind) {
	case TP_PHD_V_SFLOAT:
	case TP_PHD_V_FLOAT:
		num = &v->u.num;
		break;
	case TP_PHD_V_NU_OBS:
		num = &v->u.nu.num;
		r->unit = tp_phd_unit_symbol(v->u.nu.unit, unit_buf, unit_len);
		break;
	case TP_PHD_V_SFLOAT_CMP:
	case TP_PHD_V_FLOAT_CMP:
		if (v->n)
			num = &v->u.cmp[0];
		break;
	case TP_PHD_V_ABS_TIME: {
		const struct tp_phd_abs_time *t = &v->u.abs;
		snprintf(r->time, sizeof(r->time), "%02u%02u%02u%02uT%02u%02u%02u", t->century,
			 t->year, t->month, t->day, t->hour, t->minute, t->second);
		r->has_time = 1;
		return;
	}
	default:
		return;
	}
	if (num == NULL)
		return;
	r->has_value = 1;
	if (num->special != TP_PHD_FINITE ||
	    tp_m2m_decimal(r->value, sizeof(r->value), num->mantissa, num->exponent) < 0)
		r->value[0] = '\0';
}

/* Build and queue one CoAP NON POST creating a contentInstance under metric's container. */
static void emit_cin(struct tp_worker *w, struct iotgw_wstate *ws, struct rte_mempool *pool,
		     const struct tp_ae *ae, const struct tp_ae_metric *mt,
		     const struct reading *r)
{
	uint32_t dst = tp_iotgw.cse_ip, nh;
	uint64_t l2;
	char json[256], rqi[16];
	uint8_t tok[2];

	tp_route_lookup_bulk(&dst, &nh, 1);
	if (nh == UINT32_MAX || !(tp_nh_l2_flags(l2 = tp_nh_l2_load(nh)) & TP_NH_F_RESOLVED)) {
		/* the registrar's exchange with the IN-CSE resolves it before any agent is ready */
		ws->ctr[TP_IOTGW_NO_ROUTE]++;
		return;
	}
	uint16_t out = tp_nh_l2_port(l2);
	struct tp_m2m_measure meas = {
		.value = r->value[0] ? r->value : NULL,
		.unit = r->unit ? r->unit : (mt->unit[0] ? mt->unit : NULL),
		.time = r->has_time ? r->time : NULL,
	};
	int jl = tp_m2m_cin_measure_json(json, sizeof(json), &meas);
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	if (jl < 0 || m == NULL) {
		rte_pktmbuf_free(m);
		ws->ctr[TP_IOTGW_NOMBUF]++;
		return;
	}
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t *ip = eth + TP_ETH_HDR_LEN, *udp = ip + TP_IP4_HDR_LEN, *coap = udp + 8;
	size_t room = rte_pktmbuf_tailroom(m) - (size_t)(coap - eth);
	uint16_t mid = ws->mid++;
	memcpy(tok, &mid, 2);
	snprintf(rqi, sizeof(rqi), "w%u-%u", w->id, ws->rqi++);
	struct tp_m2m_create req = {
		/* rt=5: noResponse (TS-0004 response type): ACME otherwise answers every NON
		 * create, a datagram per reading the gateway has no use for */
		.type = TP_COAP_NON, .mid = mid, .token = tok, .tkl = 2, .path = mt->path, .query = "rt=5",
		.ty = TP_M2M_TY_CIN, .from = ae->origin, .rqi = rqi, .payload = json,
		.payload_len = (size_t)jl,
	};
	int cl = tp_m2m_create_req(coap, room, &req);
	if (cl < 0) {
		rte_pktmbuf_free(m);
		ws->ctr[TP_IOTGW_NOMBUF]++;
		return;
	}
	uint16_t udp_len = (uint16_t)(8 + cl);
	memcpy(eth, &l2, 6);
	memcpy(eth + 6, &tp_iface_table[out].mac, 6);
	eth[12] = 0x08;
	eth[13] = 0x00;
	tp_ip4_write(ip, rte_cpu_to_be_32(tp_iface_table[out].ip), rte_cpu_to_be_32(dst), 17, 64,
		     udp_len, mid);
	udp[0] = COAP_SPORT >> 8;
	udp[1] = COAP_SPORT & 0xff;
	udp[2] = (uint8_t)(tp_iotgw.cse_port >> 8);
	udp[3] = (uint8_t)tp_iotgw.cse_port;
	udp[4] = (uint8_t)(udp_len >> 8);
	udp[5] = (uint8_t)udp_len;
	udp[6] = udp[7] = 0; /* no UDP checksum (RFC 768) */
	m->data_len = m->pkt_len = (uint32_t)(TP_ETH_HDR_LEN + TP_IP4_HDR_LEN + udp_len);
	m->port = out;
	ws->ctr[TP_IOTGW_CIN_SENT]++;
	tp_worker_tx_enqueue(w, m, out);
}

/* Turn the report's mbuf into the 0201 answer and send it back where it came from. */
static void answer(struct tp_worker *w, struct iotgw_wstate *ws, struct rte_mbuf *m, uint8_t *l3,
		   uint8_t *l4, const struct tp_phd_data_apdu *d)
{
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *), tmp[6];
	uint8_t *payload = l3 + TP_IP4_HDR_LEN + 8;
	uint32_t src, dst;
	int len = tp_phd_encode_event_report_rsp(payload, 64, d->invoke_id, d->u.evt.obj_handle,
						 d->u.evt.time, d->u.evt.type);

	if (len < 0) {
		count_drop(w, ws, m, TP_IOTGW_DECODE_ERR);
		return;
	}
	if (l4 != l3 + TP_IP4_HDR_LEN) /* IP options: the answer has none */
		memmove(l3 + TP_IP4_HDR_LEN, l4, 8);
	l4 = l3 + TP_IP4_HDR_LEN;
	memcpy(tmp, eth, 6);
	memcpy(eth, eth + 6, 6); /* back to the agent, or the router it came through */
	memcpy(eth + 6, tmp, 6);
	memcpy(&src, l3 + 12, 4);
	memcpy(&dst, l3 + 16, 4);
	uint16_t udp_len = (uint16_t)(8 + len);
	tp_ip4_write(l3, dst, src, 17, 64, udp_len, 0);
	uint8_t port[2];
	memcpy(port, l4, 2);
	memcpy(l4, l4 + 2, 2);
	memcpy(l4 + 2, port, 2);
	l4[4] = (uint8_t)(udp_len >> 8);
	l4[5] = (uint8_t)udp_len;
	l4[6] = l4[7] = 0;
	m->data_len = m->pkt_len = (uint32_t)(TP_ETH_HDR_LEN + TP_IP4_HDR_LEN + udp_len);
	ws->ctr[TP_IOTGW_RESPONSES]++;
	tp_worker_tx_enqueue(w, m, m->port);
}

static const struct tp_ae_metric *metric_of(const struct tp_ae *ae, uint16_t handle)
{
	for (unsigned int i = 0; i < ae->n_metrics; i++)
		if (ae->metric[i].handle == handle)
			return &ae->metric[i];
	return NULL;
}

/* Convert every observation of a scan report; returns how many became requests. */
static void convert(struct tp_worker *w, struct iotgw_wstate *ws, struct rte_mempool *pool,
		    const struct tp_ae *ae, const struct tp_phd_scan_report *sr)
{
	struct tp_phd_value vals[TP_PHD_MAX_AVM];
	struct tp_phd_error err;
	char unit_buf[16];

	for (unsigned int i = 0; i < sr->nobs; i++) {
		const struct tp_phd_observation *o = &sr->obs[i];
		const struct tp_ae_metric *mt = metric_of(ae, o->handle);
		struct reading r = {0};
		int n = 0;

		if (mt == NULL) {
			ws->ctr[TP_IOTGW_UNKNOWN_OBJ]++;
			continue;
		}
		if (sr->form == TP_PHD_SCAN_FIXED) {
			const struct tp_phd_obj_map *om = tp_phd_value_map_find(&ae->map, o->handle);
			n = om ? tp_phd_fixed_values(om, o->data.p, o->data.len, vals, &err) : -1;
		} else if (sr->form == TP_PHD_SCAN_VAR) {
			for (unsigned int a = 0; a < o->nattrs && n < TP_PHD_MAX_AVM; a++) {
				const struct tp_phd_ava *ava = &sr->attr[o->attr_first + a];
				if (tp_phd_attr_value_decode(ava->id, ava->val.p, ava->val.len,
							     &vals[n], &err) == 0)
					n++;
			}
		}
		if (n <= 0) {
			ws->ctr[TP_IOTGW_DECODE_ERR]++;
			continue;
		}
		for (int k = 0; k < n; k++)
			reading_add(&r, &vals[k], unit_buf, sizeof(unit_buf));
		if (r.has_value)
			emit_cin(w, ws, pool, ae, mt, &r);
	}
}

/* UDP to the gateway's PHD port: PRST scan reports here, everything else to the
 * control plane (through the TAP to the session manager's socket). */
static void iotgw_input(struct tp_worker *w, struct rte_mbuf *m, uint8_t *l3, uint8_t *l4)
{
	struct iotgw_wstate *ws = wstate[w->id];
	uint8_t *end = rte_pktmbuf_mtod(m, uint8_t *) + rte_pktmbuf_data_len(m);
	uint16_t ulen = (uint16_t)(l4[4] << 8 | l4[5]);
	const uint8_t *apdu = l4 + 8;
	struct tp_phd_apdu a;
	struct tp_phd_scan_report sr;
	struct tp_phd_error err;
	enum tp_phd_scan_form form;
	int multi;

	if (ulen < 8 + 4 || l4 + ulen > end) {
		count_drop(w, ws, m, TP_IOTGW_DECODE_ERR);
		return;
	}
	/* signaling (AARQ, RLRQ, ABRT, configuration...) belongs to the control plane */
	if (apdu[0] != (TP_PHD_PRST >> 8) ||
	    tp_phd_decode_apdu(apdu, ulen - 8u, &a, &err) < 0 ||
	    (a.u.prst.choice != TP_PHD_ROIV_EVENT_REPORT &&
	     a.u.prst.choice != TP_PHD_ROIV_CONF_EVENT_REPORT) ||
	    tp_phd_scan_kind(a.u.prst.u.evt.type, &form, &multi) < 0) {
		ws->ctr[TP_IOTGW_TO_CONTROL]++;
		tp_worker_punt(w, m, TP_PUNT_NF);
		return;
	}
	ws->ctr[TP_IOTGW_REPORTS]++;
	uint32_t sip;
	memcpy(&sip, l3 + 12, 4);
	int idx = tp_ae_lookup(rte_be_to_cpu_32(sip), (uint16_t)(l4[0] << 8 | l4[1]));
	if (idx < 0) {
		count_drop(w, ws, m, TP_IOTGW_UNASSOCIATED);
		return;
	}
	const struct tp_ae *ae = &tp_ae_table[idx];
	if (__atomic_load_n(&ae->state, __ATOMIC_ACQUIRE) != TP_AE_READY) {
		count_drop(w, ws, m, TP_IOTGW_NOT_READY);
		return;
	}
	ws->last_seen[idx] = tp_iotgw_now_s;
	int confirmed = a.u.prst.choice == TP_PHD_ROIV_CONF_EVENT_REPORT;
	uint32_t tag = (uint32_t)ae->gen << 16 | (uint16_t)(a.u.prst.invoke_id + 1);
	if (confirmed && ws->last_invoke[idx] == tag) {
		/* a retransmission: answer again, forward nothing twice */
		ws->ctr[TP_IOTGW_DUPLICATES]++;
		answer(w, ws, m, l3, l4, &a.u.prst);
		return;
	}
	if (tp_phd_decode_scan_report(a.u.prst.u.evt.type, a.u.prst.u.evt.info.p,
				      a.u.prst.u.evt.info.len, &sr, &err) < 0) {
		count_drop(w, ws, m, TP_IOTGW_DECODE_ERR);
		return;
	}
	convert(w, ws, m->pool, ae, &sr);
	if (confirmed) {
		ws->last_invoke[idx] = tag;
		answer(w, ws, m, l3, l4, &a.u.prst);
	} else {
		rte_pktmbuf_free(m);
	}
}

int tp_iotgw_fast_register(void)
{
	for (unsigned int i = 0; i < tp.n_workers; i++) {
		if (wstate[i] == NULL)
			wstate[i] = rte_zmalloc("iotgw_ws", sizeof(*wstate[i]), RTE_CACHE_LINE_SIZE);
		if (wstate[i] == NULL)
			return -ENOMEM;
	}
	return tp_udp_local_register(tp_iotgw.port, iotgw_input);
}
