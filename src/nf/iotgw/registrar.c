/* SPDX-License-Identifier: BSD-3-Clause */
/* The gateway's registrar (control plane): creates each associated device's AE
 * and one container per metric on the IN-CSE with confirmable CoAP requests,
 * retried on timeout, then marks the AE-table entry ready for the data plane. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../control/control.h"
#include "../../core/log.h"
#include "../../proto/onem2m.h"
#include "../../proto/phd_nomenclature.h"
#include "iotgw.h"

#define REG_TIMEOUT_MS 1000
#define REG_TRIES 5
#define REG_WINDOW 64 /* requests in flight, at most */

static int sock = -1;
static uint16_t next_mid;
static unsigned int in_flight;

/* The metrics of a configuration: one per object with a known type. */
static void metrics_from_map(struct tp_ae *e)
{
	e->n_metrics = 0;
	for (unsigned int i = 0; i < e->map.nobjs && e->n_metrics < TP_AE_MAX_METRICS; i++) {
		const struct tp_phd_obj_map *om = &e->map.obj[i];
		struct tp_ae_metric *mt = &e->metric[e->n_metrics];
		const struct tp_phd_metric *known;

		if (om->type_code == 0)
			continue;
		known = tp_phd_metric_find(om->type_partition, om->type_code, om->unit);
		mt->handle = om->handle;
		if (known)
			snprintf(mt->label, sizeof(mt->label), "%s", known->label);
		else
			snprintf(mt->label, sizeof(mt->label), "m%u-%u", om->type_partition,
				 om->type_code);
		if (tp_phd_unit_symbol(om->unit, mt->unit, sizeof(mt->unit)) == NULL)
			mt->unit[0] = '\0';
		char label[sizeof(mt->label)];
		memcpy(label, mt->label, sizeof(label));
		snprintf(mt->path, sizeof(mt->path), "/%s/%s/%s", tp_iotgw.cse_name, e->ae_name,
			 label);
		e->n_metrics++;
	}
}

/* Send the request of step e->reg_step (0: the AE, 1..n: a container). */
static void reg_send(int idx)
{
	struct tp_ae *e = &tp_ae_table[idx];
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(tp_iotgw.cse_port),
				 .sin_addr.s_addr = htonl(tp_iotgw.cse_ip)};
	uint8_t buf[1024], tok[4];
	char json[256], path[96], rqi[24];
	int jl;

	memcpy(tok, &idx, 2);
	memcpy(tok + 2, &e->gen, 2);
	if (e->reg_step == 0) {
		snprintf(path, sizeof(path), "/%s", tp_iotgw.cse_name);
		jl = tp_m2m_ae_json(json, sizeof(json), e->ae_name, "Ntwinplane.phd");
	} else {
		snprintf(path, sizeof(path), "/%s/%s", tp_iotgw.cse_name, e->ae_name);
		jl = tp_m2m_cnt_json(json, sizeof(json), e->metric[e->reg_step - 1].label, 0);
	}
	snprintf(rqi, sizeof(rqi), "reg-%d-%u", idx, e->reg_step);
	e->reg_mid = next_mid++;
	struct tp_m2m_create req = {
		.type = TP_COAP_CON, .mid = e->reg_mid, .token = tok, .tkl = 4, .path = path,
		.ty = e->reg_step == 0 ? TP_M2M_TY_AE : TP_M2M_TY_CNT, .from = e->origin, .rqi = rqi,
		.payload = json, .payload_len = jl > 0 ? (size_t)jl : 0,
	};
	int n = tp_m2m_create_req(buf, sizeof(buf), &req);
	if (n > 0 && sendto(sock, buf, (size_t)n, 0, (struct sockaddr *)&to, sizeof(to)) > 0)
		tp_iotgw_sess.reg_requests++;
	e->reg_due_ms = tp_ctl_now_ms() + REG_TIMEOUT_MS * (1u << e->reg_tries);
}

void tp_iotgw_registrar_start(int idx)
{
	struct tp_ae *e = &tp_ae_table[idx];

	metrics_from_map(e);
	e->reg_step = 0;
	e->reg_tries = 0;
	e->reg_due_ms = 0; /* sent by the tick, within the window */
	tp_ae_set_state(idx, TP_AE_REGISTERING);
}

static void reg_done_step(int idx)
{
	struct tp_ae *e = &tp_ae_table[idx];

	e->reg_tries = 0;
	if (++e->reg_step > e->n_metrics) {
		e->reg_due_ms = 0;
		tp_iotgw_sess.reg_ready++;
		/* everything the data plane needs is written: publish */
		tp_ae_set_state(idx, TP_AE_READY);
		return;
	}
	reg_send(idx);
}

static void sock_readable(int fd, void *arg)
{
	uint8_t buf[2048];
	struct tp_coap_msg m;

	for (int budget = 256; budget > 0; budget--) {
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		uint16_t idx, gen;
		if (n <= 0)
			return;
		if (tp_coap_decode(buf, (size_t)n, &m) < 0 || m.tkl != 4)
			continue;
		memcpy(&idx, m.token, 2);
		memcpy(&gen, m.token + 2, 2);
		if (idx >= TP_AE_MAX)
			continue;
		struct tp_ae *e = &tp_ae_table[idx];
		if (e->gen != gen || e->state != TP_AE_REGISTERING || e->reg_due_ms == 0)
			continue; /* late answer for a gone or finished registration */
		int rsc = tp_m2m_rsc(&m);
		/* created, or there already (a device that associates again) */
		if (TP_COAP_CODE_CLASS(m.code) == 2 || rsc == TP_M2M_RSC_CONFLICT ||
		    rsc == TP_M2M_RSC_ALREADY_REGISTERED) {
			reg_done_step(idx);
		} else {
			TP_LOG(WARNING, "iotgw: IN-CSE refused %s step %u: CoAP %u.%02u rsc %d",
			       e->ae_name, e->reg_step, TP_COAP_CODE_CLASS(m.code),
			       TP_COAP_CODE_DETAIL(m.code), rsc);
			e->reg_due_ms = 0;
			tp_iotgw_sess.reg_failed++;
			tp_ae_set_state(idx, TP_AE_FAILED);
		}
	}
}

void tp_iotgw_registrar_tick(void)
{
	uint64_t now = tp_ctl_now_ms();

	/* requests in flight, counted afresh (entries may have been released meanwhile) */
	in_flight = 0;
	for (int i = 0; i < TP_AE_MAX; i++)
		if (tp_ae_table[i].state == TP_AE_REGISTERING && tp_ae_table[i].reg_due_ms != 0)
			in_flight++;

	for (int i = 0; i < TP_AE_MAX; i++) {
		struct tp_ae *e = &tp_ae_table[i];
		if (e->state != TP_AE_REGISTERING)
			continue;
		if (e->reg_due_ms == 0) { /* waiting for a slot in the window */
			if (in_flight >= REG_WINDOW)
				continue;
			in_flight++;
			reg_send(i);
		} else if (now >= e->reg_due_ms) {
			if (++e->reg_tries >= REG_TRIES) {
				e->reg_due_ms = 0;
				tp_iotgw_sess.reg_failed++;
				tp_ae_set_state(i, TP_AE_FAILED);
				continue;
			}
			tp_iotgw_sess.reg_retries++;
			reg_send(i);
		}
	}
}

int tp_iotgw_registrar_init(void)
{
	sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (sock < 0)
		return -errno;
	return tp_ctl_add_fd(sock, sock_readable, NULL);
}
