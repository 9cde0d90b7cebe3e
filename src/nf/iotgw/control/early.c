/* SPDX-License-Identifier: BSD-3-Clause */
/* Reports that come before the agent's AE is ready (the dual plane's control side).
 *
 * An agent sends its first confirmed scan report as soon as its configuration is
 * accepted (IEEE 11073-20601 8.4.3; an agent with an extended configuration often
 * does), while the gateway still asks for the MDS attributes (QUERYING) or creates
 * the AE and its containers on the IN-CSE (REGISTERING). 20601 assumes a reliable
 * transport: an agent left unanswered for its confirmed-event timeout (3 s) aborts,
 * and the reading is lost. So the workers hand such reports over (report.c, dp->early)
 * and they are held here, in arrival order, bounded per agent (EARLY_PER_AGENT) and in
 * all (EARLY_MAX), and handed on once the AE is ready: with confirmed delivery to
 * delivery.c, which answers the agent once the IN-CSE stored them; with
 * fire-and-forget, answered at once and sent as NON requests when the AE is ready.
 *
 * A report during the GET of the MDS attributes means the agent may never answer it
 * (some do not): the GET is given EARLY_GET_GRACE_MS more from the first held report,
 * then the agent is registered with what its configuration says (session.c), so the
 * answer still comes within the agent's timeout. A report that does not fit is not
 * answered (the agent sends it again) and is counted; held reports of a session that
 * ended or whose registration failed are dropped and counted. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../../control/control.h"
#include "../../../proto/phd_nomenclature.h"
#include "../iotgw.h"
#include "control.h"

#define EARLY_MAX 256		/* reports held, at most */
#define EARLY_PER_AGENT 4	/* reports of one agent held, at most */
#define EARLY_APDU_MAX 2048	/* the session socket's datagram buffer */
#define EARLY_GET_GRACE_MS 1000 /* a GET still unanswered this long after a report */

struct held {
	bool used, confirmed, answered;
	int idx;
	uint16_t gen, port, len, invoke;
	uint32_t ip;
	uint64_t seq, t_ms; /* arrival order; arrival time */
	uint8_t apdu[EARLY_APDU_MAX];
};

struct tp_iotgw_early_stats tp_iotgw_early;
static struct held held[EARLY_MAX];
static unsigned int n_held;
static uint64_t next_seq;
static struct tp_iotgw_io *agent_io;
/* fire-and-forget: the reports converted here, as the workers do (NON, templates) */
static struct tp_iotgw_dp fdp;
static uint64_t fctr[TP_IOTGW_CTR_MAX];
static int fsock = -1; /* connected to the IN-CSE */

static void held_free(struct held *h)
{
	h->used = false;
	n_held--;
}

/* Whether entry h's session is still the one that sent it. */
static bool same_session(const struct held *h)
{
	return tp_ae_lookup(h->ip, h->port) == h->idx && tp_ae_table[h->idx].gen == h->gen;
}

/* Fire-and-forget: one measurement as a NON request to the IN-CSE. */
static void emit_non(void *arg, struct tp_iotgw_dp *dp, const struct tp_ae *ae,
		     const struct tp_ae_metric *mt, const struct tp_m2m_measure *meas)
{
	uint8_t buf[512];
	int n = tp_iotgw_cin_request(dp, buf, sizeof(buf), ae, mt, meas);

	(void)arg;
	if (n < 0 || send(fsock, buf, (size_t)n, MSG_DONTWAIT) < 0) {
		tp_iotgw_early.cin_send_errors++;
		return;
	}
	dp->ctr[TP_IOTGW_CIN_SENT]++;
	tp_iotgw_early.cin_sent++;
}

/* Hand a held report on, its AE ready. */
static void release(struct held *h)
{
	struct tp_phd_apdu a;
	enum tp_iotgw_ctr drop;

	tp_iotgw_early.released++;
	if (tp_iotgw.delivery == TP_IOTGW_DELIVERY_CONFIRMED) {
		/* queued for the IN-CSE; the agent answered once it stored them */
		if (!tp_iotgw_delivery_input(agent_io, h->apdu, h->len, h->ip, h->port))
			tp_iotgw_early.dropped++; /* cannot happen: its AE is ready */
		return;
	}
	fdp.l2src = 0;
	if (tp_iotgw_report(&fdp, h->apdu, h->len, h->ip, h->port, &a, emit_non, NULL, &drop) ==
	    TP_IOTGW_V_DROP)
		fctr[drop]++;
}

/* Release agent idx's held reports in the order they came (its AE is ready). */
static void release_agent(int idx)
{
	for (;;) {
		struct held *first = NULL;
		for (unsigned int i = 0; i < EARLY_MAX; i++)
			if (held[i].used && held[i].idx == idx &&
			    (first == NULL || held[i].seq < first->seq))
				first = &held[i];
		if (first == NULL)
			return;
		if (same_session(first))
			release(first);
		else
			tp_iotgw_early.dropped++;
		held_free(first);
	}
}

void tp_iotgw_early_ready(int idx)
{
	if (n_held == 0)
		return;
	agent_io->now_ms = tp_ctl_now_ms();
	release_agent(idx);
}

void tp_iotgw_early_tick(struct tp_iotgw_io *io)
{
	if (n_held == 0)
		return;
	for (unsigned int i = 0; i < EARLY_MAX; i++) {
		struct held *h = &held[i];
		if (!h->used)
			continue;
		if (!same_session(h)) { /* released, aborted, timed out, replaced */
			tp_iotgw_early.dropped++;
			held_free(h);
			continue;
		}
		switch (tp_ae_table[h->idx].state) {
		case TP_AE_READY:
			release_agent(h->idx);
			break;
		case TP_AE_QUERYING:
			/* the agent reports instead of answering the GET: register it */
			if (io->now_ms - h->t_ms >= EARLY_GET_GRACE_MS) {
				tp_iotgw_early.get_skipped++;
				tp_iotgw_session_register_now(io, h->idx);
			}
			break;
		case TP_AE_REGISTERING:
			break;
		default: /* the IN-CSE refused the registration */
			tp_iotgw_early.dropped++;
			held_free(h);
			break;
		}
	}
}

bool tp_iotgw_early_input(struct tp_iotgw_io *io, const uint8_t *apdu, size_t len, uint32_t ip,
			  uint16_t port)
{
	struct tp_phd_apdu a;
	int idx = tp_ae_lookup(ip, port);

	if (idx < 0)
		return false;
	uint8_t state = tp_ae_table[idx].state;
	if (state == TP_AE_READY) {
		/* what came before it goes first */
		if (n_held)
			release_agent(idx);
		return false;
	}
	if (state != TP_AE_QUERYING && state != TP_AE_REGISTERING)
		return false;
	/* a scan report (20601 8.4.3: event reports once the configuration is accepted) */
	if (tp_phd_decode_apdu(apdu, len, &a, NULL) < 0 || a.type != TP_PHD_PRST ||
	    (a.u.prst.choice != TP_PHD_ROIV_EVENT_REPORT &&
	     a.u.prst.choice != TP_PHD_ROIV_CONF_EVENT_REPORT) ||
	    tp_phd_scan_kind(a.u.prst.u.evt.type, NULL, NULL) < 0)
		return false;
	bool confirmed = a.u.prst.choice == TP_PHD_ROIV_CONF_EVENT_REPORT;
	tp_ae_table[idx].last_ms = io->now_ms; /* alive: the session's timeout */
	uint16_t gen = tp_ae_table[idx].gen;
	unsigned int mine = 0;
	struct held *h = NULL;
	for (unsigned int i = 0; i < EARLY_MAX; i++) {
		struct held *x = &held[i];
		if (!x->used) {
			if (h == NULL)
				h = x;
			continue;
		}
		if (x->idx != idx || x->gen != gen)
			continue;
		if (confirmed && x->confirmed && x->invoke == a.u.prst.invoke_id) {
			/* the agent's retransmission of a held report: answered again if it
			 * was answered (fire-and-forget), else it waits for the first */
			tp_iotgw_early.duplicates++;
			uint8_t rsp[64];
			int n = x->answered ? tp_iotgw_answer(&a.u.prst, rsp, sizeof(rsp)) : 0;
			if (n > 0 && io->send(io, rsp, (size_t)n, ip, port) == 0)
				tp_iotgw_early.answered++;
			return true;
		}
		mine++;
	}
	if (h == NULL || mine >= EARLY_PER_AGENT || len > EARLY_APDU_MAX) {
		/* bounded: not answered, so the agent keeps it and sends it again */
		tp_iotgw_early.refused_full++;
		return true;
	}
	*h = (struct held){.used = true,
			   .confirmed = confirmed,
			   .idx = idx,
			   .gen = gen,
			   .port = port,
			   .len = (uint16_t)len,
			   .invoke = a.u.prst.invoke_id,
			   .ip = ip,
			   .seq = next_seq++,
			   .t_ms = io->now_ms};
	memcpy(h->apdu, apdu, len);
	n_held++;
	tp_iotgw_early.held++;
	if (confirmed && tp_iotgw.delivery == TP_IOTGW_DELIVERY_FORGET) {
		/* fire-and-forget answers at once, as the workers do for a ready agent */
		uint8_t rsp[64];
		int n = tp_iotgw_answer(&a.u.prst, rsp, sizeof(rsp));
		if (n > 0 && io->send(io, rsp, (size_t)n, ip, port) == 0) {
			h->answered = true;
			tp_iotgw_early.answered++;
		}
	}
	return true;
}

unsigned int tp_iotgw_early_held(void)
{
	return n_held;
}

int tp_iotgw_early_init(struct tp_iotgw_io *io)
{
	agent_io = io;
	if (tp_iotgw.delivery != TP_IOTGW_DELIVERY_FORGET)
		return 0;
	fsock = tp_iotgw_cse_socket();
	if (fsock < 0) {
		int ret = fsock;
		fsock = -1;
		return ret;
	}
	fdp.ctr = fctr;
	fdp.id = 998; /* request ids "w998-<n>": the control plane's early reports */
	return 0;
}

void tp_iotgw_early_fini(void)
{
	if (fsock >= 0)
		close(fsock);
	fsock = -1;
}
