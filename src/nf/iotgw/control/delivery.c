/* SPDX-License-Identifier: BSD-3-Clause */
/* Confirmed delivery of measurements (delivery confirmed, the default of the dual
 * plane) and the IN-CSE's liveness, on the control thread.
 *
 * The workers hand every report of a ready agent to the control plane (report.c,
 * dp->defer), where it is converted again (report.c, dp->con: confirmable requests
 * that want the IN-CSE's answer) into a bounded queue of CoAP CON POSTs, sent on a
 * socket connected to the IN-CSE with RFC 7252 4.2's retransmission (ACK_TIMEOUT,
 * ACK_RANDOM_FACTOR, doubling, MAX_RETRANSMIT), at most WINDOW in flight. The
 * agent's confirmed report is answered once the IN-CSE has accepted every one of its
 * measurements (2.xx in the ACK); a retransmission of it meanwhile is not answered,
 * one after is answered again. An exchange that runs out of retransmissions marks
 * the IN-CSE down: what is in flight goes back to the head of the queue, nothing is
 * sent but a probe (a CON GET of the CSEBase, as Acme.coap_ping: ACME does not
 * answer an Empty CON) every PROBE_DOWN_MS, and the queue drains when a probe is
 * answered. The queue is bounded (tp_iotgw.max_pending), and so is each agent's share
 * of it (tp_iotgw.agent_pending, security review N8: one agent's flood of reports
 * must not refuse every other agent's): a report that does not fit is refused whole
 * and counted (the agent keeps it and sends it again).
 *
 * Each contentInstance is named (rn "m<boot>-<n>": a random number per start, a
 * count): a request the IN-CSE carried out but whose ACK was lost, sent again, is
 * answered 4.09 Conflict (rsc 4105, the name exists) and taken as stored, so a
 * retransmission never stores a measurement twice, whether or not the server
 * deduplicates message ids (RFC 7252 4.5; ACME does not while it starts). Transient
 * refusals (5.xx; 4.00, which ACME answers while it starts: iotgw.h) hold the queue
 * for a doubling wait from ACK_TIMEOUT and send the request again, up to
 * TP_IOTGW_SERVER_ERRORS times, then it counts refused.
 *
 * The probe runs in either mode, every PROBE_UP_MS while the IN-CSE answers: it keeps
 * the kernel's neighbour entry of the IN-CSE confirmed (MSG_CONFIRM after an answer,
 * so it never goes stale, and the data plane's copy stays resolved), and in
 * fire-and-forget mode it counts the NONs the workers sent while the IN-CSE was
 * down (forget_sent_while_down: sent, not stored). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../../control/control.h"
#include "../../../core/log.h"
#include "../../../proto/coap.h"
#include "../../../proto/onem2m.h"
#include "../iotgw.h"
#include "control.h"

#define WINDOW 64	      /* requests in flight (RFC 7252 4.7's NSTART, raised: decision) */
#define MAX_RETRANSMIT 4      /* RFC 7252 4.8 */
#define PROBE_UP_MS 5000      /* under any neighbour reachable time (15-45 s by default) */
#define PROBE_DOWN_MS 1000    /* how soon a returning IN-CSE is noticed */
#define PROBE_TIMEOUT_MS 2000 /* a probe unanswered this long: the IN-CSE is down */
#define PEND_BUF 512

enum { P_FREE, P_QUEUED, P_FLIGHT };

struct pend {	      /* one measurement: a CON POST creating a contentInstance */
	uint32_t rep; /* its report */
	uint16_t len, mid;
	uint8_t state, tries, errors;
	uint32_t timeout_ms;
	uint64_t due_ms;
	uint8_t buf[PEND_BUF];
};

struct rep { /* one report: answered when its last measurement is stored */
	uint32_t ip, tag;
	uint16_t port, outstanding;
	int idx;
	uint8_t answer_len, refused; /* answer_len 0: nothing to answer */
	uint8_t answer[64];
};

struct tp_iotgw_delivery_stats tp_iotgw_deliv;
static struct tp_iotgw_io *agent_io;
static int sock = -1;
static bool active, cse_up = true;
static struct tp_iotgw_dp cdp; /* the control plane's report path: CON requests */
static uint64_t ctr[TP_IOTGW_CTR_MAX];
static struct pend *pend;
static struct rep *reps;
static uint32_t *pfree, *rfree, *queue; /* free lists; the queue, a ring of max_pending */
static uint32_t n_pfree, n_rfree, q_head, q_len, cap;
static uint32_t flight[WINDOW], n_flight;
/* per session, its last RECENT confirmed reports taken (gen << 16 | invoke-id + 1):
 * an agent's retransmission of one is answered again once delivered, not before */
#define RECENT 4
static struct {
	uint32_t tag;
	bool delivered;
} recent[TP_AE_MAX][RECENT];
static uint8_t recent_next[TP_AE_MAX];

static int recent_find(int idx, uint32_t tag)
{
	for (int k = 0; k < RECENT; k++)
		if (recent[idx][k].tag == tag)
			return k;
	return -1;
}
static uint16_t next_mid, probe_mid;
static uint64_t probe_sent_ms, probe_due_ms, now;
static uint64_t hold_until; /* after a transient refusal: nothing sent before */
static bool probe_out, confirm_next;
static uint32_t boot_id;     /* the random part of the contentInstances' names */
static uint64_t cin_count;   /* their count */
static uint64_t forget_base; /* workers' cin_sent when the IN-CSE went down */
/* the report being converted */
static uint32_t cur_rep, cur_n, cur_dropped;
static bool cur_overflow, cur_share;
static uint32_t agent_pend[TP_AE_MAX]; /* measurements queued or in flight, per table slot */

/* Fire-and-forget: NON requests sent so far, by the workers and for the reports that
 * came before their AE was ready (early.c). */
static uint64_t forget_sent(void)
{
	return tp_iotgw_counter(TP_IOTGW_CIN_SENT) + tp_iotgw_early.cin_sent;
}

static void queue_push_back(uint32_t p)
{
	queue[(q_head + q_len++) % cap] = p;
	pend[p].state = P_QUEUED;
}

static void queue_push_front(uint32_t p)
{
	q_head = (q_head + cap - 1) % cap;
	queue[q_head] = p;
	q_len++;
	pend[p].state = P_QUEUED;
}

static int xmit(const uint8_t *buf, size_t len)
{
	int flags = MSG_DONTWAIT;

	/* the IN-CSE answered since the last send: its neighbour entry is confirmed
	 * (RFC 4861 7.3.1's upper-layer confirmation; ip(7) MSG_CONFIRM) */
	if (confirm_next) {
		flags |= MSG_CONFIRM;
		confirm_next = false;
	}
	return send(sock, buf, len, flags) < 0 ? -errno : 0;
}

/* RFC 7252 4.8: the first wait is random between ACK_TIMEOUT and 1.5 times it. */
static uint32_t first_timeout(void)
{
	return tp_iotgw.ack_timeout_ms + (uint32_t)(random() % (tp_iotgw.ack_timeout_ms / 2 + 1));
}

/* Start sending what the queue holds, oldest first, while the window has room. */
static void pump(void)
{
	while (cse_up && now >= hold_until && n_flight < WINDOW && q_len) {
		uint32_t p = queue[q_head];
		struct pend *e = &pend[p];

		q_head = (q_head + 1) % cap;
		q_len--;
		/* a new exchange: a new message id (RFC 7252 4.4), the token stays */
		e->mid = next_mid++;
		e->buf[2] = (uint8_t)(e->mid >> 8);
		e->buf[3] = (uint8_t)e->mid;
		e->tries = 0;
		e->timeout_ms = first_timeout();
		e->due_ms = now + e->timeout_ms;
		e->state = P_FLIGHT;
		flight[n_flight++] = p;
		(void)xmit(e->buf, e->len);
	}
}

static void rep_free(uint32_t r)
{
	rfree[n_rfree++] = r;
}

/* The IN-CSE does not answer: park what is in flight at the head of the queue, in
 * order, and wait for a probe's answer. */
static void cse_went_down(void)
{
	if (!cse_up)
		return;
	cse_up = false;
	tp_iotgw_deliv.went_down++;
	forget_base = forget_sent();
	TP_LOG(WARNING, "iotgw: the IN-CSE does not answer; %u measurements wait",
	       q_len + n_flight);
	while (n_flight)
		queue_push_front(flight[--n_flight]);
	probe_due_ms = now; /* probe at once */
}

static void cse_came_back(void)
{
	confirm_next = true;
	if (cse_up)
		return;
	cse_up = true;
	tp_iotgw_deliv.came_back++;
	if (tp_iotgw.delivery == TP_IOTGW_DELIVERY_FORGET)
		tp_iotgw_deliv.forget_sent_while_down += forget_sent() - forget_base;
	TP_LOG(NOTICE, "iotgw: the IN-CSE answers again; sending %u measurements", q_len);
	probe_due_ms = now + PROBE_UP_MS;
	pump();
}

/* Answer the agent of report r, if its session is the one that sent it. */
static void answer(struct rep *r)
{
	if (r->answer_len == 0)
		return;
	if (tp_ae_lookup(r->ip, r->port) != r->idx ||
	    (uint16_t)(r->tag >> 16) != tp_ae_table[r->idx].gen)
		return; /* released meanwhile: nobody to answer */
	int k = recent_find(r->idx, r->tag);
	if (k >= 0)
		recent[r->idx][k].delivered = true;
	if (agent_io->send(agent_io, r->answer, r->answer_len, r->ip, r->port) == 0)
		tp_iotgw_deliv.answered++;
}

/* Measurement p is done (stored, or refused): its report is answered when it was
 * the last one, and only if none was refused. */
static void pend_done(uint32_t p, bool stored)
{
	struct rep *r = &reps[pend[p].rep];

	pend[p].state = P_FREE;
	pfree[n_pfree++] = p;
	if (agent_pend[r->idx])
		agent_pend[r->idx]--;
	if (!stored)
		r->refused = 1;
	if (--r->outstanding == 0) {
		if (!r->refused)
			answer(r);
		rep_free(pend[p].rep);
	}
}

/* The probe: a CON GET of the CSEBase. */
static void probe(void)
{
	uint8_t buf[64];
	struct tp_coap_writer w;

	probe_mid = next_mid++;
	tp_coap_begin(&w, buf, sizeof(buf), TP_COAP_CON, TP_COAP_GET, probe_mid, NULL, 0);
	tp_coap_put_uri_path(&w, tp_iotgw.cse_name);
	int n = tp_coap_end(&w);
	if (n > 0 && xmit(buf, (size_t)n) == 0) {
		tp_iotgw_deliv.probes++;
		probe_out = true;
		probe_sent_ms = now;
	}
	probe_due_ms = now + (cse_up ? PROBE_UP_MS : PROBE_DOWN_MS);
}

static void sock_readable(int fd, void *arg)
{
	uint8_t buf[2048];
	struct tp_coap_msg m;

	(void)arg;
	now = tp_ctl_now_ms();
	for (int budget = 256; budget > 0; budget--) {
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0 && errno == ECONNREFUSED) {
			cse_went_down(); /* ICMP port unreachable: nobody listens there */
			continue;
		}
		if (n <= 0)
			break;
		if (tp_coap_decode(buf, (size_t)n, &m) < 0 ||
		    (m.type != TP_COAP_ACK && m.type != TP_COAP_RST)) {
			tp_iotgw_deliv.ignored++;
			continue;
		}
		if (probe_out && m.mid == probe_mid) { /* any answer: it is up */
			probe_out = false;
			tp_iotgw_deliv.probes_answered++;
			cse_came_back();
			continue;
		}
		/* the ACK of a request in flight: its message id and token (RFC 7252 5.3.2) */
		unsigned int i = 0;
		for (; i < n_flight; i++) {
			const struct pend *e = &pend[flight[i]];
			if (e->mid == m.mid && (e->buf[0] & 0x0f) == m.tkl &&
			    memcmp(e->buf + 4, m.token, m.tkl) == 0)
				break;
		}
		if (i == n_flight) {
			tp_iotgw_deliv.ignored++; /* late (a retransmission's), or not ours */
			continue;
		}
		uint32_t p = flight[i];
		flight[i] = flight[--n_flight];
		cse_came_back();
		if (tp_iotgw_transient_refusal(&m) && ++pend[p].errors < TP_IOTGW_SERVER_ERRORS) {
			unsigned int k = pend[p].errors < 5 ? pend[p].errors - 1u : 4u;
			tp_iotgw_deliv.server_errors++;
			hold_until = now + ((uint64_t)tp_iotgw.ack_timeout_ms << k);
			queue_push_front(
			    p); /* again, as a new exchange, first once the wait ends */
			continue;
		}
		/* created; or the name exists: an earlier try of this request was */
		bool stored = m.type == TP_COAP_ACK && (TP_COAP_CODE_CLASS(m.code) == 2 ||
							tp_m2m_rsc(&m) == TP_M2M_RSC_CONFLICT);
		if (stored)
			tp_iotgw_deliv.cin_stored++;
		else
			tp_iotgw_deliv.cin_refused++;
		if (!stored && m.type == TP_COAP_ACK && tp_m2m_rsc(&m) == TP_M2M_RSC_NOT_FOUND) {
			/* TS-0004 6.6.3 4004: the container (its AE) is gone, expired or
			 * deleted: the session's registration is made again (once: READY
			 * only); this report is not answered, and the agent's retransmission
			 * of it is a new report (stored once the AE is back) */
			const struct rep *r = &reps[pend[p].rep];
			if (tp_ae_lookup(r->ip, r->port) == r->idx &&
			    (uint16_t)(r->tag >> 16) == tp_ae_table[r->idx].gen) {
				int k = recent_find(r->idx, r->tag);
				if (k >= 0)
					recent[r->idx][k].tag = 0;
				cdp.agent[r->idx].invoke = 0;
				tp_iotgw_registrar_again(r->idx);
			}
		}
		pend_done(p, stored);
	}
	pump();
}

/* Name the contentInstance that request p creates: "rn" first in its m2m:cin object
 * (the builder's JSON is the payload, after the options). Unnamed if it does not
 * fit or the payload is not what we expect (then delivered at least once). */
static void name_cin(struct pend *e)
{
	static const char obj[] = "{\"m2m:cin\":{";
	struct tp_coap_msg m;
	char rn[48];
	int n = snprintf(rn, sizeof(rn), "\"rn\":\"m%08x-%llu\",", boot_id,
			 (unsigned long long)cin_count++);

	if (tp_coap_decode(e->buf, e->len, &m) < 0 || m.payload == NULL ||
	    m.payload_len < sizeof(obj) - 1 || memcmp(m.payload, obj, sizeof(obj) - 1) != 0 ||
	    e->len + (size_t)n > sizeof(e->buf))
		return;
	uint8_t *at = e->buf + (m.payload - e->buf) + sizeof(obj) - 1;
	memmove(at + n, at, (size_t)(e->buf + e->len - at));
	memcpy(at, rn, (size_t)n);
	e->len = (uint16_t)(e->len + n);
}

/* One measurement of the report being converted: queued, or the report overflows. */
static void emit(void *arg, struct tp_iotgw_dp *dp, const struct tp_ae *ae,
		 const struct tp_ae_metric *mt, const struct tp_m2m_measure *meas)
{
	(void)arg;
	/* no measurement, or no report record, left (as many reports as measurements) */
	if (n_pfree == 0 || n_rfree == 0) {
		cur_overflow = true;
		cur_dropped++;
		return;
	}
	/* the agent's share taken (what it has waiting, and this report's so far) */
	if (agent_pend[ae - tp_ae_table] + cur_n >= tp_iotgw.agent_pending) {
		cur_overflow = cur_share = true;
		cur_dropped++;
		return;
	}
	uint32_t p = pfree[n_pfree - 1];
	int n = tp_iotgw_cin_request(dp, pend[p].buf, sizeof(pend[p].buf), ae, mt, meas);
	if (n < 0) {
		ctr[TP_IOTGW_NOMBUF]++; /* does not fit: never happens with PEND_BUF */
		return;
	}
	n_pfree--;
	pend[p].len = (uint16_t)n;
	pend[p].rep = cur_rep;
	pend[p].errors = 0;
	name_cin(&pend[p]);
	queue_push_back(p);
	cur_n++;
	ctr[TP_IOTGW_CIN_SENT]++; /* queued for the IN-CSE */
}

/* Take back the measurements of the report being converted (the last cur_n queued). */
static void unqueue_current(void)
{
	ctr[TP_IOTGW_CIN_SENT] -= cur_n;
	while (cur_n--) {
		uint32_t p = queue[(q_head + --q_len) % cap];
		pend[p].state = P_FREE;
		pfree[n_pfree++] = p;
	}
}

bool tp_iotgw_delivery_input(struct tp_iotgw_io *io, const uint8_t *apdu, size_t len, uint32_t ip,
			     uint16_t port)
{
	struct tp_phd_apdu a;
	enum tp_iotgw_ctr drop;

	if (!active)
		return false;
	now = io->now_ms;
	/* a retransmission of a confirmed report taken already (not only the last one:
	 * report.c's check): answered again if delivered, else it waits for that. A scan
	 * report, as report.c takes: another confirmed event report with a taken one's
	 * invoke-id (a configuration) is not its retransmission, it is the session's */
	if (tp_phd_decode_apdu(apdu, len, &a, NULL) == 0 && a.type == TP_PHD_PRST &&
	    a.u.prst.choice == TP_PHD_ROIV_CONF_EVENT_REPORT &&
	    tp_phd_scan_kind(a.u.prst.u.evt.type, NULL, NULL) >= 0) {
		int i = tp_ae_lookup(ip, port), k;
		if (i >= 0 && tp_ae_table[i].state == TP_AE_READY &&
		    (k = recent_find(i, (uint32_t)tp_ae_table[i].gen << 16 |
					    (uint16_t)(a.u.prst.invoke_id + 1))) >= 0) {
			if (recent[i][k].delivered) {
				uint8_t rsp[64];
				int n = tp_iotgw_answer(&a.u.prst, rsp, sizeof(rsp));
				if (n > 0 && io->send(io, rsp, (size_t)n, ip, port) == 0)
					tp_iotgw_deliv.answered_again++;
			} else {
				tp_iotgw_deliv.duplicates_pending++;
			}
			return true;
		}
	}
	cur_rep = n_rfree ? rfree[n_rfree - 1] : 0; /* taken below, if the report fits */
	cur_n = cur_dropped = 0;
	cur_overflow = cur_share = false;
	switch (tp_iotgw_report(&cdp, apdu, len, ip, port, &a, emit, NULL, &drop)) {
	case TP_IOTGW_V_SIGNALING:
		return false;
	case TP_IOTGW_V_DROP:
		ctr[drop]++;
		return true;
	case TP_IOTGW_V_DONE:
	case TP_IOTGW_V_ANSWER:
		break;
	}
	tp_iotgw_deliv.reports++;
	int idx = tp_ae_lookup(ip, port);
	int confirmed = a.u.prst.choice == TP_PHD_ROIV_CONF_EVENT_REPORT;
	if (idx < 0)
		return true; /* cannot happen: report() found it */
	uint32_t tag = (uint32_t)tp_ae_table[idx].gen << 16 | (uint16_t)(a.u.prst.invoke_id + 1);
	struct rep *r = &reps[cur_rep];
	if (cur_overflow) {
		/* bounded: the whole report is refused, none of it half-stored */
		uint32_t lost = cur_n + cur_dropped;
		unqueue_current();
		if (cur_share)
			tp_iotgw_deliv.reports_refused_share++;
		else
			tp_iotgw_deliv.reports_refused_full++;
		if (confirmed)
			cdp.agent[idx].invoke = 0; /* its retransmission is a new report */
		else
			tp_iotgw_deliv.cin_lost += lost; /* an unconfirmed one is not sent again */
		return true;
	}
	if (cur_n == 0) { /* nothing to store (objects unknown): answered at once */
		uint8_t rsp[64];
		int n = confirmed ? tp_iotgw_answer(&a.u.prst, rsp, sizeof(rsp)) : 0;
		if (n > 0 && io->send(io, rsp, (size_t)n, ip, port) == 0)
			tp_iotgw_deliv.answered++;
		return true;
	}
	n_rfree--;
	memset(r, 0, sizeof(*r));
	r->ip = ip;
	r->port = port;
	r->idx = idx;
	r->tag = tag;
	if (confirmed) {
		int n = tp_iotgw_answer(&a.u.prst, r->answer, sizeof(r->answer));
		r->answer_len = n > 0 ? (uint8_t)n : 0;
		uint8_t k = recent_next[idx]++ % RECENT;
		recent[idx][k].tag = tag;
		recent[idx][k].delivered = false;
	}
	tp_iotgw_deliv.cin_queued += cur_n;
	agent_pend[idx] += cur_n;
	r->outstanding = (uint16_t)cur_n;
	pump();
	return true;
}

void tp_iotgw_delivery_tick(uint64_t now_ms)
{
	if (sock < 0)
		return;
	now = now_ms;
	if (probe_out && now - probe_sent_ms >= PROBE_TIMEOUT_MS) {
		probe_out = false;
		cse_went_down();
	}
	if (now >= probe_due_ms && !probe_out)
		probe();
	for (unsigned int i = 0; i < n_flight; i++) {
		struct pend *e = &pend[flight[i]];
		if (now < e->due_ms)
			continue;
		if (e->tries >= MAX_RETRANSMIT) {
			cse_went_down(); /* parks everything in flight */
			break;
		}
		/* RFC 7252 4.2: the same message again, the wait doubled */
		e->tries++;
		e->timeout_ms *= 2;
		e->due_ms = now + e->timeout_ms;
		tp_iotgw_deliv.retransmissions++;
		(void)xmit(e->buf, e->len);
	}
	pump();
}

unsigned int tp_iotgw_delivery_pending(void)
{
	return q_len + n_flight;
}

bool tp_iotgw_delivery_cse_up(void)
{
	return cse_up;
}

uint64_t tp_iotgw_delivery_counter(enum tp_iotgw_ctr c)
{
	return ctr[c];
}

uint64_t tp_iotgw_delivery_forget_lost(void)
{
	uint64_t n = tp_iotgw_deliv.forget_sent_while_down;

	if (!cse_up && tp_iotgw.delivery == TP_IOTGW_DELIVERY_FORGET)
		n += forget_sent() - forget_base;
	return n;
}

/* the confirmed delivery's queue and free lists */
static void queue_free(void)
{
	free(pend);
	free(reps);
	free(pfree);
	free(rfree);
	free(queue);
	pend = NULL;
	reps = NULL;
	pfree = rfree = queue = NULL;
	active = false;
}

int tp_iotgw_delivery_init(struct tp_iotgw_io *io)
{
	unsigned int seed;
	int ret;

	agent_io = io;
	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != sizeof(seed))
		seed = (unsigned int)tp_ctl_now_ms();
	srandom(seed);
	next_mid = (uint16_t)random();
	boot_id = (uint32_t)random();
	sock = tp_iotgw_cse_socket();
	if (sock < 0) {
		ret = sock;
		sock = -1;
		return ret;
	}
	if (tp_iotgw.delivery == TP_IOTGW_DELIVERY_CONFIRMED) {
		cap = tp_iotgw.max_pending;
		pend = calloc(cap, sizeof(*pend));
		reps = calloc(cap, sizeof(*reps));
		pfree = calloc(cap, sizeof(*pfree));
		rfree = calloc(cap, sizeof(*rfree));
		queue = calloc(cap, sizeof(*queue));
		if (!pend || !reps || !pfree || !rfree || !queue) {
			ret = -ENOMEM;
			goto free_queue;
		}
		for (uint32_t i = 0; i < cap; i++) {
			pfree[i] = cap - 1 - i;
			rfree[i] = cap - 1 - i;
		}
		n_pfree = n_rfree = cap;
		cdp.ctr = ctr;
		cdp.con = true;
		cdp.id = 999; /* request ids "w999-<n>": the control plane's */
		cdp.mid = (uint16_t)random();
		active = true;
	}
	if ((ret = tp_ctl_add_fd(sock, sock_readable, NULL)) < 0)
		goto free_queue;
	probe_due_ms = tp_ctl_now_ms();
	hold_until = 0;
	return 0;
free_queue:
	queue_free();
	close(sock);
	sock = -1;
	return ret;
}

void tp_iotgw_delivery_fini(void)
{
	queue_free();
	if (sock < 0)
		return;
	tp_ctl_del_fd(sock);
	close(sock);
	sock = -1;
}
