/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target for what the IN-CSE answers: a CoAP datagram decoded (RFC 7252 3),
 * re-encoded, and given to the registrar's oneM2M response check (TS-0008 6.2.2.4.10)
 * as the gateway does with the IN-CSE's answers. Properties: the decoder's error is one
 * of its own, what it decodes points into the input, options are in order and the
 * encoder gives back the same bytes (CoAP's option encoding is canonical); a response
 * moves a registration by at most one step, and only the one its token and message id
 * name (an ACK). Built and run by scripts/fuzz.sh. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "nf/iotgw/iotgw.h"
#include "nf/iotgw/control/control.h"
#include "proto/coap.h"
#include "proto/onem2m.h"

/* what the daemon's modules define: the gateway's configuration and session counters */
struct tp_iotgw_conf tp_iotgw = TP_IOTGW_CONF_DEFAULT;
struct tp_iotgw_session_stats tp_iotgw_sess;

static uint8_t again[70000];

static void coap_properties(const uint8_t *data, size_t size, const struct tp_coap_msg *m)
{
	must(m->tkl <= TP_COAP_TOKEN_MAX && m->n_opts <= TP_COAP_MAX_OPTS);
	for (unsigned int i = 0; i < m->n_opts; i++) {
		const struct tp_coap_opt *o = &m->opts[i];
		must(o->val >= data && o->val + o->len <= data + size);
		must(i == 0 || o->num >= m->opts[i - 1].num);
		/* the lookup finds the first option of its number */
		const struct tp_coap_opt *f = tp_coap_find_opt(m, o->num, 0);
		must(f != NULL && f->num == o->num && f <= o);
	}
	if (m->payload != NULL)
		must(m->payload_len > 0 && m->payload >= data &&
		     m->payload + m->payload_len == data + size);
	else
		must(m->payload_len == 0);
	int n = tp_coap_encode(again, sizeof(again), m);
	/* option 0 is reserved (RFC 7252 12.2): an elective option a receiver ignores
	 * (5.4.1), one our encoder refuses to write */
	if (m->n_opts > 0 && m->opts[0].num == 0)
		must(n == -TP_COAP_E_INVAL);
	else
		must(n == (int)size && memcmp(again, data, size) == 0);
}

/* Two devices registering: 0 at its first step (the AE), 1 at its last (the AE's et,
 * with the default retention). */
static int dev[2];

static void registrations_reset(void)
{
	for (int k = 0; k < 2; k++) {
		tp_iotgw_reg_begin(dev[k]);
		if (k == 1)
			tp_ae_table[dev[k]].reg_step =
			    (uint8_t)(tp_ae_table[dev[k]].n_metrics +
				      (tp_iotgw.ae_retention_s > 0 ? 1 : 0));
		/* the request in flight: fixed here, so the fuzzer can find its answer (the
		 * message ids of make_seeds.py's first request of each) */
		tp_ae_table[dev[k]].reg_mid = k == 0 ? 1 : 5;
		memcpy(tp_ae_table[dev[k]].reg_nonce, "\x5e\xed\x00\x01", 4);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const uint8_t sysid[2][8] = {{0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77},
					    {0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0, 1}};

	if (tp_ae_init() < 0)
		abort();
	for (int k = 0; k < 2; k++) {
		dev[k] = tp_ae_create(0x0a000100u + (uint32_t)k, 6024, sysid[k], 0);
		/* a pulse oximeter (IEEE 11073-10404 standard configuration 0x0190) */
		if (dev[k] < 0 || tp_phd_std_value_map(0x0190, &tp_ae_table[dev[k]].map) < 0)
			abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tp_coap_msg m;
	int rc = tp_coap_decode(data, size, &m);

	/* a decoding error, never an encoder's */
	must(rc <= 0 && -rc < TP_COAP_E_INVAL);
	if (rc == 0) {
		coap_properties(data, size, &m);
		int rsc = tp_m2m_rsc(&m);
		must(rsc >= -1);
	}

	/* the registrar's check, as the gateway runs it on every datagram it receives */
	registrations_reset();
	struct tp_ae before[2];
	for (int k = 0; k < 2; k++)
		before[k] = tp_ae_table[dev[k]];
	int idx = -1;
	enum tp_iotgw_reg r = tp_iotgw_reg_response(data, size, &idx);
	for (int k = 0; k < 2; k++) {
		const struct tp_ae *e = &tp_ae_table[dev[k]], *b = &before[k];
		if (r == TP_IOTGW_REG_IGNORE || idx != dev[k]) {
			must(e->state == b->state && e->reg_step == b->reg_step);
			continue;
		}
		/* only the ACK of the request in flight moves it: its message id, the
		 * entry's token (index, generation, the random part) */
		must(rc == 0 && m.type == TP_COAP_ACK && m.mid == b->reg_mid && m.tkl == 8 &&
		     memcmp(m.token, &idx, 2) == 0 && memcmp(m.token + 2, &e->gen, 2) == 0 &&
		     memcmp(m.token + 4, b->reg_nonce, 4) == 0);
		/* the steps: the AE, its containers, then (with a retention) its et */
		unsigned int last = b->n_metrics + (tp_iotgw.ae_retention_s > 0 ? 1u : 0u);
		switch (r) {
		case TP_IOTGW_REG_NEXT:
			/* the next step; or, the AE's creation answered "exists" (4.09), the
			 * same step again as a RETRIEVE of it (reg_verify, register.c), and once
			 * it is this registration's, as the UPDATE giving it its default
			 * lifetime back (reg_lift); or, a 4.04 after the AE's creation (it
			 * went), from the start */
			must(e->state == TP_AE_REGISTERING &&
			     ((e->reg_step == b->reg_step + 1 && e->reg_step <= last &&
			       !e->reg_verify && !e->reg_lift) ||
			      (b->reg_step == 0 && e->reg_step == 0 && !b->reg_verify &&
			       !b->reg_lift && e->reg_verify) ||
			      (b->reg_step == 0 && e->reg_step == 0 && b->reg_verify &&
			       e->reg_lift && !e->reg_verify) ||
			      (e->reg_step == 0 && !e->reg_verify && !e->reg_lift &&
			       (b->reg_step > 0 || b->reg_verify || b->reg_lift) &&
			       tp_m2m_rsc(&m) == TP_M2M_RSC_NOT_FOUND &&
			       e->reg_errors == b->reg_errors + 1)));
			break;
		case TP_IOTGW_REG_READY:
			must(e->state == TP_AE_READY && b->reg_step == last);
			break;
		case TP_IOTGW_REG_FAILED:
			must(e->state == TP_AE_FAILED && e->reg_step == b->reg_step);
			break;
		case TP_IOTGW_REG_AGAIN: /* a transient refusal: the same step, later */
			must(e->state == TP_AE_REGISTERING && e->reg_step == b->reg_step &&
			     e->reg_errors == b->reg_errors + 1);
			break;
		default:
			abort();
		}
	}
	must(r == TP_IOTGW_REG_IGNORE || idx == dev[0] || idx == dev[1]);
	return 0;
}
