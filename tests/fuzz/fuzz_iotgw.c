/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target for the IoT gateway's report path and session manager, stateful:
 * the input is a small program over eight agents and the IN-CSE, run on the dual
 * plane's code with confirmed delivery (the default), as one worker and the control
 * thread would run it; fuzz_iotgw_forget is the same file built with fire-and-forget
 * delivery (-DFUZZ_IOTGW_FORGET): the worker converts and answers reports of ready
 * agents itself (each request from a metric's template is checked against the general
 * encoder's bytes), early.c answers held reports and sends their NONs. Ops (one byte
 * each, some with arguments):
 *
 *   0x00-0x5f  a datagram from agent k = op & 7, sent from source l2 A, B or C
 *              (op >> 5: A and B are two MACs on one port, C the first MAC on another
 *              port); op bit 3: the agent's last datagram again (no bytes follow),
 *              bit 4: its invoke-id set to that of the gateway's last GET to it (as
 *              a real agent answers); else a length (one byte, 0xff: two more, big
 *              endian) and the APDU. First tp_iotgw_report() as the worker does
 *              (dp->early and dp->defer set as the dual plane sets them), then, for
 *              a SIGNALING verdict, fast.c's check of the session's source and its
 *              note of an AARQ's source, then the control side as control.c's
 *              sock_readable: tp_iotgw_early_input(), tp_iotgw_delivery_input(),
 *              tp_iotgw_session_input()
 *   0x60-0x7f  the clock advances (op & 0x1f: v < 20, v * 50 ms; else (v - 19) s),
 *              then control.c's tick runs (session, early, registrar, delivery,
 *              expiry): every 100 ms in the daemon, as late as the op says here (a
 *              busy control thread; each tick scans the AE table's TP_AE_MAX slots,
 *              and the fuzzer picks the schedule: small steps are ticks on time)
 *   0x80-0x9f  the IN-CSE answers agent k's (op & 7) registration request with the
 *              answer chosen by the next byte (below), to the request as received:
 *              its message id and token; op >> 3 & 3 spoils it: 1 an older message
 *              id, 2 another token, 3 a CON instead of the ACK
 *   0xa0-0xbf  the IN-CSE answers the oldest (op bit 0: newest) request of the
 *              delivery's socket (a contentInstance or a probe) with the next byte's
 *              answer; bit 1: loses it instead (no byte follows); bits 2-3 spoil it
 *   0xc0-0xdf  0: the worker loses the next AARQ's source (an AARQ flood overwrote
 *              it); 1: the IN-CSE loses every request it holds; 2: it answers each
 *              delivery request it holds with 2.01 (probes too); the crowd, 72 more
 *              agents (one address each) that no other op names, to fill the
 *              registrar's window of 64 registrations in flight: 3 N: the first
 *              1 + N % 72 of them without a session associate (a blood pressure
 *              monitor's AARQ, antidote's H211_ID_02BC, with a system id of their
 *              own: accepted, QUERYING, registered after the GET's timeout); 4 J
 *              SEL: the IN-CSE answers crowd agent J % 72's registration request
 *              with SEL's answer; 5 S: it answers every registration request it
 *              holds in an order, and with answers (2.01, 5.00, 4.03/4105, Reset,
 *              Empty ACK, or none), that S seeds; 6 S: it answers up to 16 requests
 *              of registrations that ended since (their entry freed or reused) with
 *              2.01, in an order S seeds; others: nothing
 *   0xe0-0xff  a datagram of any bytes from the IN-CSE to the registrar's (op bit 0)
 *              or the delivery's socket: a length byte and the bytes
 *
 * Answers (TS-0004 6.6.3 rsc, RFC 7252 codes): 0 2.01/2001, 1 4.03/4105 (the name
 * exists), 2 4.03/4117 (already registered), 3 4.00/4000 and 4 5.00/5000 (transient
 * refusals), 5 4.04/4004, 6 4.03/4103, 7 2.01 without rsc, 8 a Reset, 9 an Empty
 * ACK; any other byte is that code, without rsc. Built by the project's CoAP writer
 * (tp_coap_begin, tp_coap_put_uint), never a second encoder.
 *
 * Linked as the daemon links it: report.c, session.c, register.c, registrar.c,
 * early.c, delivery.c, ae.c with the socket gateway's index (ae_index_local.c: one
 * thread, no DPDK), the codecs, and the real control loop (src/control/control.c:
 * the registrar's and the delivery's sockets are watched by it and read when it
 * passes). The IN-CSE is a UDP socket on 127.0.0.1 this target owns: the
 * registrar's and the delivery's connected sockets send to it, and it answers
 * them. What is not the gateway's, stubbed here: the clock (tp_ctl_now_ms is
 * wrapped at link time, -Wl,--wrap: a virtual clock the ops advance, so timeouts run
 * without waiting and the same input does the same); the workers' per-lcore
 * counters and AARQ source table (fast.c, DPDK: one worker's here, and
 * tp_iotgw_counter() over it); the session socket's kernel filter (control.c's
 * came_via_workers); the agents' socket (the io's send records what the gateway
 * answers). early.c and delivery.c are compiled in iotgw_peek.c, which reads their
 * queues.
 *
 * The state carries across inputs: the AE table is never reset; it holds six
 * sessions at most (three per agent address), so eviction and refusal run.
 *
 * Properties, after every op: every APDU the gateway sends an agent decodes and
 * answers what was asked (an AARE the AARQ being handled, accepted only with the
 * session made and bound to its source; an RLRE the RLRQ; a configuration's answer
 * its invoke-id and config-report-id; a report's answer a confirmed scan report that
 * agent sent; a GET the MDS of a QUERYING session, with its invoke-id), and during an
 * agent's datagram only to that agent; every request to the IN-CSE decodes, and a
 * registering entry's last request carries its token and message id; the AE table's
 * count is its live entries, within max_sessions and max_per_source, each in a valid
 * state and found by its key, no two with one system id, and sessions made = ended
 * + live; an agent's datagram ends no other session but by eviction (one, not READY,
 * silent for evict_idle_ms), a tick none but by the timeout; a report or signaling of
 * a session from another source than its own never passes the worker (the spoofed
 * counter grows by exactly those); held reports and the delivery queue add up
 * (iotgw_peek.c); the registrar's window: never more than 64 requests in flight (an
 * entry REGISTERING with a request due), and after a tick every registration is
 * either in flight and not yet due (its request answered or timed out, and then
 * sent again) or waiting because the window is full; an answer to a registration
 * that ended changes no entry. Built and run by scripts/fuzz.sh.
 *
 * An input's outcome may depend on the inputs before it; the seeds
 * (make_iotgw_seeds.py) start by letting every session time out, and so do most of
 * their descendants, which then replay alone. TP_FUZZ_IOTGW_TRACE=1 prints the
 * sessions' states after each op and the counters after each input. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <rte_log.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "control/control.h"
#include "core/log.h"
#include "fuzz.h"
#include "nf/iotgw/iotgw.h"
#include "nf/iotgw/control/control.h"
#include "proto/coap.h"
#include "proto/onem2m.h"
#include "proto/phd_nomenclature.h"

#define N_AGENTS 8 /* the agents the datagram ops name (op & 7) */
#define N_CROWD 72 /* and the crowd's: more than the registrar's window of 64 */
#define N_ALL (N_AGENTS + N_CROWD)
#define REG_WINDOW 64 /* registrar.c's */
#define REQ_LOG 512
#define OPS_MAX 128
#define SENT_MAX 512
#define RING 32
#define CSE_Q 256

struct tp_iotgw_conf tp_iotgw = TP_IOTGW_CONF_DEFAULT;

void fuzz_iotgw_early_check(void);
void fuzz_iotgw_delivery_check(void);
uint64_t __wrap_tp_ctl_now_ms(void);

/* agents 0-3 share an address (max_per_source 3: the fourth is refused); the crowd's
 * (8 on) each have one of their own, 10.0.3.x port 6024 (LLVMFuzzerInitialize) */
static struct {
	uint32_t ip;
	uint16_t port;
} agents[N_ALL] = {
    {0x0a000102, 41000}, {0x0a000102, 41001}, {0x0a000102, 41002}, {0x0a000102, 41003},
    {0x0a000103, 41000}, {0x0a000104, 41000}, {0x0a000105, 6024},  {0x0a000106, 6024},
};
static uint64_t l2[3];

static bool trace;		  /* TP_FUZZ_IOTGW_TRACE set: what each input reached, on stderr */
static uint64_t vclock = 1000000; /* ms; never 0 (0 is "unset" in the gateway) */

uint64_t __wrap_tp_ctl_now_ms(void)
{
	return vclock;
}

/* --- the worker (fast.c's part, one lcore) --- */
static uint64_t wctr[TP_IOTGW_CTR_MAX];
#ifdef FUZZ_IOTGW_FORGET
#define DELIVERY TP_IOTGW_DELIVERY_FORGET
#else
#define DELIVERY TP_IOTGW_DELIVERY_CONFIRMED
#endif
static struct tp_iotgw_dp dp = {
    .ctr = wctr, .early = true, .defer = DELIVERY == TP_IOTGW_DELIVERY_CONFIRMED};
static uint64_t aarq_l2[N_ALL]; /* the worker's note of each agent's AARQ source */
static bool lose_next_source;

uint64_t tp_iotgw_counter(enum tp_iotgw_ctr c)
{
	return wctr[c];
}

static int agent_of(uint32_t ip, uint16_t port)
{
	for (int k = 0; k < N_ALL; k++)
		if (agents[k].ip == ip && agents[k].port == port)
			return k;
	return -1;
}

static uint32_t last_seen(int idx)
{
	return dp.agent[idx].seen;
}

static uint64_t source_l2(uint32_t ip, uint16_t port)
{
	int k = agent_of(ip, port);
	return k >= 0 ? aarq_l2[k] : 0;
}

/* The first Uri-Path segments of m, and its option num as a string ("" if none). */
static int path_of(const struct tp_coap_msg *m, char seg[3][64])
{
	int n = 0;
	for (const struct tp_coap_opt *o = tp_coap_find_opt(m, TP_COAP_OPT_URI_PATH, 0);
	     o != NULL && o->num == TP_COAP_OPT_URI_PATH && n < 3;
	     o = tp_coap_find_opt(m, TP_COAP_OPT_URI_PATH, tp_coap_opt_index(m, o) + 1))
		must(tp_coap_opt_str(o, seg[n++], 64) >= 0);
	return n;
}

/* A fire-and-forget contentInstance request (a worker's, or early.c's for a report
 * held before the AE was ready): a NON POST with rt=5 (no response) to a container. */
static void check_non_cin(const uint8_t *buf, size_t len)
{
	struct tp_coap_msg m;
	char seg[3][64], q[16];

	must(tp_coap_decode(buf, len, &m) == 0 && m.type == TP_COAP_NON && m.code == TP_COAP_POST &&
	     m.tkl == TP_IOTGW_CIN_TKL);
	must(path_of(&m, seg) == 3 && strcmp(seg[0], tp_iotgw.cse_name) == 0 &&
	     strncmp(seg[1], "PHD-", 4) == 0);
	const struct tp_coap_opt *o = tp_coap_find_opt(&m, TP_COAP_OPT_URI_QUERY, 0);
	must(o != NULL && tp_coap_opt_str(o, q, sizeof(q)) > 0 && strcmp(q, "rt=5") == 0);
	must(m.payload != NULL && m.payload_len > 12 &&
	     memcmp(m.payload, "{\"m2m:cin\":{", 12) == 0);
}

/* A measurement the worker converts (fire-and-forget; with confirmed delivery the
 * workers convert nothing: reports go to the control side). Built as fast.c builds
 * it, from the metric's template; the same request by the general encoder is the
 * same bytes (iotgw.h: one description for both). */
static void worker_emit(void *ctx, struct tp_iotgw_dp *d, const struct tp_ae *ae,
			const struct tp_ae_metric *mt, const struct tp_m2m_measure *meas)
{
	static uint8_t a[2048], b[2048];
	static struct tp_ae_metric plain;
	uint16_t mid = d->mid;
	uint32_t rqi = d->rqi;

	must(!d->defer && !d->con);
	int n = tp_iotgw_cin_request(d, a, sizeof(a), ae, mt, meas);
	must(n > 0);
	check_non_cin(a, (size_t)n);
	if (mt->cin.len != 0) {
		uint16_t mid_after = d->mid;
		uint32_t rqi_after = d->rqi;
		plain = *mt;
		plain.cin.len = 0;
		d->mid = mid;
		d->rqi = rqi;
		must(tp_iotgw_cin_request(d, b, sizeof(b), ae, &plain, meas) == n &&
		     memcmp(a, b, (size_t)n) == 0);
		must(d->mid == mid_after && d->rqi == rqi_after);
	}
	d->ctr[TP_IOTGW_CIN_SENT]++;
}

/* --- what the agents hear, and what was asked --- */
struct asked { /* a confirmed scan report an agent sent */
	uint16_t invoke, obj, type;
	uint32_t time;
};
static struct asked ring[N_ALL][RING];
static unsigned int ring_next[N_ALL];
static uint16_t get_invoke[N_ALL]; /* the gateway's last GET to the agent */
static bool got_get[N_ALL];
static uint8_t last_dgram[N_ALL][2048];
static size_t last_len[N_ALL];

/* the op being run: a datagram of agent cur_k (-1: none) */
static int cur_k = -1;
static bool cur_decoded, cur_reached_session, cur_cfg_ok;
static struct tp_phd_apdu cur_in;
static struct tp_phd_config_report cur_cfg;
static uint64_t cur_l2;
static struct {
	int k;
	uint16_t type, choice, invoke, result;
} sent[SENT_MAX];
static unsigned int n_sent;

static bool asked_for(int k, const struct tp_phd_event_report *e, uint16_t invoke)
{
	for (int i = 0; i < RING; i++) {
		const struct asked *a = &ring[k][i];
		if (a->invoke == invoke && a->obj == e->obj_handle && a->type == e->type &&
		    a->time == e->time)
			return true;
	}
	return false;
}

/* The gateway's io.send: check the APDU, note it for the checks after the op. */
static int agent_send(struct tp_iotgw_io *io, const uint8_t *buf, size_t len, uint32_t ip,
		      uint16_t port)
{
	struct tp_phd_apdu a;
	int k = agent_of(ip, port);

	must(k >= 0);
	must(cur_k < 0 || k == cur_k); /* an agent's datagram is answered to that agent only */
	must(tp_phd_decode_apdu(buf, len, &a, NULL) == 0);
	must(n_sent < SENT_MAX);
	sent[n_sent].k = k;
	sent[n_sent].type = a.type;
	switch (a.type) {
	case TP_PHD_AARE:
		must(cur_k == k && cur_decoded && cur_in.type == TP_PHD_AARQ);
		sent[n_sent].result = a.u.aare.result;
		break;
	case TP_PHD_RLRE:
		must(cur_k == k && cur_decoded && cur_in.type == TP_PHD_RLRQ);
		break;
	case TP_PHD_PRST: {
		const struct tp_phd_data_apdu *d = &a.u.prst;
		sent[n_sent].choice = d->choice;
		sent[n_sent].invoke = d->invoke_id;
		if (d->choice == TP_PHD_ROIV_GET) {
			/* 20601 8.5.2: all MDS attributes, our invoke-id apart from the agent's */
			must(d->u.get.obj_handle == TP_PHD_HANDLE_MDS && d->u.get.nids == 0 &&
			     (d->invoke_id & 0x8000));
			get_invoke[k] = d->invoke_id;
			got_get[k] = true;
			break;
		}
		must(d->choice == TP_PHD_RORS_CONF_EVENT_REPORT);
		if (d->u.evt.type == MDC_NOTI_CONFIG) {
			/* the configuration being handled: its invoke-id and report id */
			struct tp_phd_config_rsp r;
			const struct tp_phd_data_apdu *q = &cur_in.u.prst;
			must(cur_k == k && cur_decoded && cur_in.type == TP_PHD_PRST &&
			     q->choice == TP_PHD_ROIV_CONF_EVENT_REPORT &&
			     q->u.evt.type == MDC_NOTI_CONFIG && cur_cfg_ok);
			must(d->invoke_id == q->invoke_id &&
			     d->u.evt.obj_handle == q->u.evt.obj_handle &&
			     d->u.evt.time == q->u.evt.time);
			must(tp_phd_decode_config_rsp(d->u.evt.info.p, d->u.evt.info.len, &r,
						      NULL) == 0);
			must(r.config_report_id == cur_cfg.config_report_id &&
			     (r.result == TP_PHD_CONFIG_ACCEPTED ||
			      r.result == TP_PHD_CONFIG_UNSUPPORTED));
		} else {
			/* a confirmed scan report of this agent's, answered: nothing in reply */
			must(asked_for(k, &d->u.evt, d->invoke_id) && d->u.evt.info.len == 0);
		}
		break;
	}
	default:
		must(!"an APDU the gateway never sends");
	}
	n_sent++;
	return 0;
}

static void registration(struct tp_iotgw_io *io, int idx)
{
	tp_iotgw_registrar_start(idx);
}

static struct tp_iotgw_io io = {.send = agent_send,
				.registration = registration,
				.last_seen = last_seen,
				.source_l2 = source_l2};

/* --- the IN-CSE --- */
static int cse_fd = -1;
static struct sockaddr_in reg_addr, del_addr;
static bool have_reg, have_del;
struct creq {
	uint16_t mid;
	uint8_t tkl, token[8];
};
static struct creq reg_last[TP_AE_MAX];
static bool reg_seen[TP_AE_MAX];
static uint16_t reg_new[256]; /* the entries whose requests the last drain read */
static unsigned int n_reg_new;
static struct creq req_log[REQ_LOG]; /* the registrar's last requests, any entry's */
static unsigned int req_log_n;
static struct creq delq[CSE_Q];
static unsigned int delq_n;

static uint32_t opt_uint(const struct tp_coap_msg *m, uint16_t num)
{
	const struct tp_coap_opt *o = tp_coap_find_opt(m, num, 0);
	uint32_t v = UINT32_MAX;
	must(o != NULL && tp_coap_opt_uint(o, &v) == 0);
	return v;
}

/* Read what the gateway sent the IN-CSE: registration steps and contentInstances
 * (CON POSTs), probes (CON GETs); every one decodes and is addressed as it should. */
static void cse_drain(void)
{
	uint8_t buf[2048];
	struct sockaddr_in from;
	socklen_t fl;
	struct tp_coap_msg m;
	char seg[3][64], fr[64];
	ssize_t n;

	for (;;) {
		fl = sizeof(from);
		n = recvfrom(cse_fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
		if (n < 0)
			break;
		if (DELIVERY == TP_IOTGW_DELIVERY_FORGET && n > 0 && (buf[0] & 0x30) == 0x10) {
			check_non_cin(buf, (size_t)n); /* early.c's, of a held report */
			continue;
		}
		must(tp_coap_decode(buf, (size_t)n, &m) == 0 && m.type == TP_COAP_CON);
		int np = path_of(&m, seg);
		must(np >= 1 && strcmp(seg[0], tp_iotgw.cse_name) == 0);
		if (m.code == TP_COAP_GET && m.tkl == 0) { /* delivery's probe of the CSEBase */
			must(np == 1);
		} else {
			/* a CREATE, or the registrar's RETRIEVE of an AE that existed (4.09),
			 * or its UPDATE of an AE's expirationTime (et, or null: the lift) */
			bool get = m.code == TP_COAP_GET, put = m.code == TP_COAP_PUT;
			must(m.code == TP_COAP_POST || ((get || put) && m.tkl == 8));
			const struct tp_coap_opt *o = tp_coap_find_opt(&m, TP_M2M_OPT_FR, 0);
			must(o != NULL && tp_coap_opt_str(o, fr, sizeof(fr)) == 17 && fr[0] == 'C');
			must(!(get || put) || tp_coap_find_opt(&m, TP_M2M_OPT_TY, 0) == NULL);
			must(!put || (m.payload != NULL && m.payload_len > 16 &&
				      memcmp(m.payload, "{\"m2m:ae\":{\"et\":", 16) == 0));
			uint32_t ty = get || put ? 0 : opt_uint(&m, TP_M2M_OPT_TY);
			if (m.tkl == 8) { /* the registrar's: the AE, then its containers */
				must(((get || put) && np == 2 && strncmp(seg[1], "PHD-", 4) == 0) ||
				     (ty == TP_M2M_TY_AE && np == 1) ||
				     (ty == TP_M2M_TY_CNT && np == 2 &&
				      strncmp(seg[1], "PHD-", 4) == 0));
				uint16_t idx;
				memcpy(&idx, m.token, 2);
				must(idx < TP_AE_MAX);
				if (have_reg)
					must(from.sin_port == reg_addr.sin_port);
				reg_addr = from;
				have_reg = true;
				reg_last[idx] = (struct creq){.mid = m.mid, .tkl = m.tkl};
				memcpy(reg_last[idx].token, m.token, 8);
				reg_seen[idx] = true;
				if (n_reg_new < 256)
					reg_new[n_reg_new++] = idx;
				req_log[req_log_n++ % REQ_LOG] = reg_last[idx];
				continue;
			}
			/* confirmed delivery: a CON create of a contentInstance, named */
			must(m.tkl == TP_IOTGW_CIN_TKL && ty == TP_M2M_TY_CIN && np == 3 &&
			     strncmp(seg[1], "PHD-", 4) == 0 && m.payload != NULL &&
			     m.payload_len > 19 &&
			     memcmp(m.payload, "{\"m2m:cin\":{\"rn\":\"m", 19) == 0);
		}
		if (have_del)
			must(from.sin_port == del_addr.sin_port);
		del_addr = from;
		have_del = true;
		if (delq_n == CSE_Q) { /* the oldest is lost */
			memmove(delq, delq + 1, sizeof(delq[0]) * (CSE_Q - 1));
			delq_n--;
		}
		delq[delq_n] = (struct creq){.mid = m.mid, .tkl = m.tkl};
		memcpy(delq[delq_n].token, m.token, m.tkl);
		delq_n++;
	}
	must(errno == EAGAIN || errno == EWOULDBLOCK);
	/* a registering entry's last request is the one in flight: its token and id */
	while (n_reg_new > 0) {
		int i = reg_new[--n_reg_new];
		const struct tp_ae *e = &tp_ae_table[i];
		uint16_t gen;
		memcpy(&gen, reg_last[i].token + 2, 2);
		if ((e->state == TP_AE_REGISTERING || (e->state == TP_AE_READY && e->refreshing)) &&
		    e->gen == gen)
			must(reg_last[i].mid == e->reg_mid &&
			     memcmp(reg_last[i].token + 4, e->reg_nonce, 4) == 0);
	}
}

/* The control loop's passes until no socket has anything to read. */
static void settle(void)
{
	unsigned int ev;

	for (int i = 0; i < 16; i++) {
		cse_drain();
		tp_ctl_pass(0, &ev);
		if (ev == 0)
			break;
	}
	cse_drain();
}

static const struct {
	uint8_t type, code;
	uint16_t rsc;
} answers[] = {
    {TP_COAP_ACK, TP_COAP_CREATED, TP_M2M_RSC_CREATED},
    {TP_COAP_ACK, TP_COAP_FORBIDDEN, TP_M2M_RSC_CONFLICT},
    {TP_COAP_ACK, TP_COAP_FORBIDDEN, TP_M2M_RSC_ALREADY_REGISTERED},
    {TP_COAP_ACK, TP_COAP_BAD_REQUEST, TP_M2M_RSC_BAD_REQUEST},
    {TP_COAP_ACK, TP_COAP_INTERNAL_ERROR, 5000},
    {TP_COAP_ACK, TP_COAP_NOT_FOUND, TP_M2M_RSC_NOT_FOUND},
    {TP_COAP_ACK, TP_COAP_FORBIDDEN, TP_M2M_RSC_NO_PRIVILEGE},
    {TP_COAP_ACK, TP_COAP_CREATED, 0},
    {TP_COAP_RST, TP_COAP_EMPTY, 0},
    {TP_COAP_ACK, TP_COAP_EMPTY, 0},
};

/* The IN-CSE's answer to request q, chosen by sel and spoiled by how, to addr. */
static void cse_answer(const struct creq *q, uint8_t sel, unsigned int how,
		       const struct sockaddr_in *addr)
{
	uint8_t buf[64], tok[8];
	struct tp_coap_writer w;
	uint8_t type = TP_COAP_ACK, code = sel;
	uint16_t rsc = 0, mid = q->mid;
	size_t tkl = q->tkl;

	if (sel < sizeof(answers) / sizeof(answers[0])) {
		type = answers[sel].type;
		code = answers[sel].code;
		rsc = answers[sel].rsc;
	}
	memcpy(tok, q->token, sizeof(tok));
	if (how == 1)
		mid--;
	else if (how == 2 && tkl > 0)
		tok[tkl - 1] ^= 0x5a;
	else if (how == 3)
		type = TP_COAP_CON;
	if (type == TP_COAP_RST || code == TP_COAP_EMPTY)
		tkl = 0; /* Empty (RFC 7252 4.1): no token */
	tp_coap_begin(&w, buf, sizeof(buf), type, code, mid, tok, tkl);
	if (rsc && code != TP_COAP_EMPTY)
		tp_coap_put_uint(&w, TP_M2M_OPT_RSC, rsc);
	int n = tp_coap_end(&w);
	must(n > 0);
	must(sendto(cse_fd, buf, (size_t)n, 0, (const struct sockaddr *)addr, sizeof(*addr)) == n);
	settle();
}

static unsigned int window_peak, waiting_peak;

/* Registrations in flight (a request out, due) and waiting for a slot. */
static void window(unsigned int *in_flight, unsigned int *waiting)
{
	*in_flight = *waiting = 0;
	for (int i = 0; i < TP_AE_MAX; i++) {
		const struct tp_ae *e = &tp_ae_table[i];
		if (e->state != TP_AE_REGISTERING)
			continue;
		if (e->reg_due_ms)
			++*in_flight;
		else
			++*waiting;
	}
}

/* --- the control thread's tick (control.c's control_tick) --- */
static void control_tick(void)
{
	tp_iotgw_wall_s = 1764000000 + vclock / 1000;
	io.now_ms = vclock;
	tp_iotgw_session_tick(&io);
	tp_iotgw_early_tick(&io);
	tp_iotgw_registrar_tick();
	/* every registration answered or timed out (and sent again), or waiting for a
	 * full window (one that ends later in the tick, a session timing out or an
	 * answer, makes room that the next tick fills: the registrar's queue holds
	 * only what waited for a slot) */
	unsigned int fl, wt;
	window(&fl, &wt);
	must(wt == 0 || fl == REG_WINDOW);
	for (int i = 0; i < TP_AE_MAX; i++)
		if (tp_ae_table[i].state == TP_AE_REGISTERING && tp_ae_table[i].reg_due_ms)
			must(tp_ae_table[i].reg_due_ms > vclock);
	tp_iotgw_delivery_tick(vclock);
	tp_iotgw_session_expire(vclock, last_seen);
	settle();
}

/* The agents' sessions before an op: which entry, its state, its last sign of life
 * (session.c's last_active: signaling, or a report the worker saw). */
static struct {
	int idx;
	uint16_t gen;
	uint8_t state;
	uint64_t last_ms;
} before[N_ALL];

static void sessions_before(void)
{
	for (int j = 0; j < N_ALL; j++) {
		int idx = tp_ae_lookup(agents[j].ip, agents[j].port);
		before[j].idx = idx;
		if (idx < 0)
			continue;
		const struct tp_ae *e = &tp_ae_table[idx];
		uint64_t seen = (uint64_t)dp.agent[idx].seen * 1000;
		before[j].gen = e->gen;
		before[j].state = e->state;
		before[j].last_ms = seen > e->last_ms ? seen : e->last_ms;
	}
}

/* Whether the op ended agent j's session of before[]. */
static bool session_ended(int j)
{
	int idx = tp_ae_lookup(agents[j].ip, agents[j].port);
	return before[j].idx >= 0 &&
	       (idx != before[j].idx || tp_ae_table[idx].gen != before[j].gen);
}

/* --- an agent's datagram, through the worker to the control side --- */
static uint64_t spoofed_expected;

static void datagram(int k, uint64_t src, const uint8_t *apdu, size_t len)
{
	uint32_t ip = agents[k].ip;
	uint16_t port = agents[k].port;
	enum tp_iotgw_ctr drop;
	struct tp_phd_apdu a;
	struct tp_phd_error err;

	cur_k = k;
	cur_l2 = src;
	cur_reached_session = false;
	cur_decoded = tp_phd_decode_apdu(apdu, len, &cur_in, &err) == 0;
	cur_cfg_ok = cur_decoded && cur_in.type == TP_PHD_PRST &&
		     cur_in.u.prst.choice == TP_PHD_ROIV_CONF_EVENT_REPORT &&
		     cur_in.u.prst.u.evt.type == MDC_NOTI_CONFIG &&
		     tp_phd_decode_config_report(cur_in.u.prst.u.evt.info.p,
						 cur_in.u.prst.u.evt.info.len, &cur_cfg, &err) == 0;
	if (cur_decoded && cur_in.type == TP_PHD_PRST &&
	    cur_in.u.prst.choice == TP_PHD_ROIV_CONF_EVENT_REPORT &&
	    tp_phd_scan_kind(cur_in.u.prst.u.evt.type, NULL, NULL) >= 0) {
		ring[k][ring_next[k]++ % RING] =
		    (struct asked){cur_in.u.prst.invoke_id, cur_in.u.prst.u.evt.obj_handle,
				   cur_in.u.prst.u.evt.type, cur_in.u.prst.u.evt.time};
	}
	if (len < 4) { /* fast.c: a UDP payload too short for an APDU header */
		wctr[TP_IOTGW_DECODE_ERR]++;
		return;
	}
	int idx = tp_ae_lookup(ip, port);
	bool foreign = idx >= 0 && tp_ae_table[idx].l2src != 0 && tp_ae_table[idx].l2src != src;
	uint64_t spoofed = wctr[TP_IOTGW_SPOOFED];
	if (foreign)
		spoofed_expected++;
	dp.l2src = src;
	enum tp_iotgw_verdict v =
	    tp_iotgw_report(&dp, apdu, len, ip, port, &a, worker_emit, NULL, &drop);
	must(DELIVERY == TP_IOTGW_DELIVERY_FORGET || v == TP_IOTGW_V_SIGNALING ||
	     v == TP_IOTGW_V_DROP);
	if (v == TP_IOTGW_V_ANSWER) {
		/* fast.c: the 0201 answer, from the worker */
		uint8_t rsp[64];
		int n = tp_iotgw_answer(&a.u.prst, rsp, sizeof(rsp));
		must(!foreign && n > 0 && agent_send(&io, rsp, (size_t)n, ip, port) == 0);
		wctr[TP_IOTGW_RESPONSES]++;
	} else if (v == TP_IOTGW_V_DROP) {
		must(drop < TP_IOTGW_CTR_MAX);
		wctr[drop]++;
	} else if (v == TP_IOTGW_V_DONE) {
		must(!foreign); /* converted: nothing to answer */
	} else if (foreign) {
		/* fast.c: a session's signaling from another port or MAC than its AARQ's */
		wctr[TP_IOTGW_SPOOFED]++;
	} else {
		if (apdu[0] == (TP_PHD_AARQ >> 8))
			aarq_l2[k] = lose_next_source ? 0 : src;
		if (apdu[0] == (TP_PHD_AARQ >> 8))
			lose_next_source = false;
		wctr[TP_IOTGW_TO_CONTROL]++;
		io.now_ms = vclock;
		if (!tp_iotgw_early_input(&io, apdu, len, ip, port) &&
		    !tp_iotgw_delivery_input(&io, apdu, len, ip, port)) {
			cur_reached_session = true;
			tp_iotgw_session_input(&io, apdu, len, ip, port);
		}
	}
	/* a session's datagram from elsewhere went no further than the worker */
	must(wctr[TP_IOTGW_SPOOFED] == spoofed + (foreign ? 1 : 0));
	settle();
}

/* What the sends of the datagram op say about the table afterwards. */
static void check_datagram_op(int k, bool existed)
{
	int idx = tp_ae_lookup(agents[k].ip, agents[k].port);
	unsigned int aare = 0, rlre = 0;

	for (unsigned int i = 0; i < n_sent; i++) {
		if (sent[i].type == TP_PHD_AARE) {
			aare++;
			if (sent[i].result == TP_PHD_ACCEPTED ||
			    sent[i].result == TP_PHD_ACCEPTED_UNKNOWN_CONFIG) {
				/* the session is made, of the AARQ's device, bound to its source */
				must(idx >= 0);
				const struct tp_ae *e = &tp_ae_table[idx];
				must(memcmp(e->sysid, cur_in.u.aarq.phd.system_id.p, 8) == 0);
				must(e->l2src == cur_l2 && e->l2src != 0);
				must(e->state == (sent[i].result == TP_PHD_ACCEPTED
						      ? TP_AE_QUERYING
						      : TP_AE_CONFIGURING));
			} else if (sent[i].result == TP_PHD_REJECTED_TRANSIENT) {
				must(idx < 0);
			}
		} else if (sent[i].type == TP_PHD_RLRE) {
			rlre++;
			must(idx < 0);
		} else if (sent[i].type == TP_PHD_PRST && sent[i].choice == TP_PHD_ROIV_GET) {
			must(idx >= 0 && tp_ae_table[idx].state == TP_AE_QUERYING &&
			     tp_ae_table[idx].get_invoke == sent[i].invoke);
		}
	}
	must(aare <= 1 && rlre <= 1);
	if (cur_reached_session && cur_decoded && cur_in.type == TP_PHD_AARQ)
		must(aare == 1);
	if (cur_reached_session && cur_decoded && cur_in.type == TP_PHD_RLRQ)
		must(rlre == (existed ? 1u : 0u));
}

/* The AE table and the counters, after every op. */
static void check_state(void)
{
	unsigned int live = 0, per_ip[N_ALL] = {0};
	int by_agent[N_ALL];

	for (int k = 0; k < N_ALL; k++)
		by_agent[k] = -1;
	for (int i = 0; i < TP_AE_MAX; i++) {
		const struct tp_ae *e = &tp_ae_table[i];
		must(e->state <= TP_AE_FAILED);
		if (e->state == TP_AE_FREE)
			continue;
		live++;
		int k = agent_of(e->ip, e->port);
		must(k >= 0 && by_agent[k] < 0 && tp_ae_lookup(e->ip, e->port) == i);
		by_agent[k] = i;
		must(e->l2src != 0 && e->n_metrics <= TP_AE_MAX_METRICS);
		/* the steps: the AE, its containers, then (with a retention) its et */
		unsigned int last = e->n_metrics + (tp_iotgw.ae_retention_s > 0 ? 1u : 0u);
		if (e->state == TP_AE_REGISTERING)
			must(e->reg_step <= last && !e->refreshing);
		if (e->state == TP_AE_READY)
			must(e->reg_step == last + 1 &&
			     (tp_iotgw.ae_retention_s == 0 || e->refresh_ms != 0));
		if (e->refreshing) /* a refresh only of a READY AE (or one being deleted) */
			must(e->state == TP_AE_READY || e->state == TP_AE_FAILED);
		for (int j = 0; j < N_ALL; j++)
			if (agents[j].ip == e->ip) {
				per_ip[j]++;
				break;
			}
	}
	/* one session per device, wherever it comes from */
	for (int a = 0; a < N_ALL; a++)
		for (int b = a + 1; b < N_ALL; b++)
			if (by_agent[a] >= 0 && by_agent[b] >= 0)
				must(memcmp(tp_ae_table[by_agent[a]].sysid,
					    tp_ae_table[by_agent[b]].sysid, 8) != 0);
	for (int j = 0; j < N_ALL; j++)
		must(per_ip[j] <= tp_iotgw.max_per_source);
	must(tp_ae_count() == live && live <= tp_iotgw.max_sessions);
	const struct tp_iotgw_session_stats *s = &tp_iotgw_sess;
	must(s->associated == s->released + s->timed_out + s->evicted + live);
	must(s->send_errors == 0);
	must(s->ae_reregistered <= s->ae_expired);
	must(wctr[TP_IOTGW_SPOOFED] == spoofed_expected);
	/* the registrar's window */
	unsigned int fl, wt;
	window(&fl, &wt);
	must(fl <= REG_WINDOW);
	if (fl > window_peak || (fl == REG_WINDOW && wt > waiting_peak)) {
		window_peak = fl;
		waiting_peak = wt > waiting_peak ? wt : waiting_peak;
		if (trace || fl == REG_WINDOW)
			fprintf(stderr, "fuzz_iotgw: %u registrations in flight, %u waiting\n", fl,
				wt);
	}
	fuzz_iotgw_early_check();
	fuzz_iotgw_delivery_check();
}

/* Datagram apdu from agent k (from src), then its checks: what it did to k's session,
 * and another agent's session ends by eviction only: one at most, never a READY one,
 * and only silent for evict_idle_ms (security review N8). */
static void datagram_checked(int k, uint64_t src, const uint8_t *apdu, size_t len, bool existed)
{
	uint64_t evicted = tp_iotgw_sess.evicted;
	unsigned int gone = 0;

	sessions_before();
	datagram(k, src, apdu, len);
	check_datagram_op(k, existed);
	for (int j = 0; j < N_ALL; j++) {
		if (j == k || !session_ended(j))
			continue;
		gone++;
		must(before[j].state != TP_AE_READY &&
		     vclock - before[j].last_ms >= tp_iotgw.evict_idle_ms);
	}
	must(gone <= 1 && tp_iotgw_sess.evicted - evicted >= gone);
}

/* --- the crowd: enough agents to fill the registrar's window --- */

/* antidote's H211_ID_02BC (tests/integration/test_iotgw_devices.py, bp_aarq): an
 * AARQ of a blood pressure monitor, standard configuration 0x02BC; the system id is
 * the 8 bytes at CROWD_SYSID */
static const uint8_t bp_aarq[] = {0xe2, 0x00, 0x00, 0x32, 0x80, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00,
				  0x2a, 0x50, 0x79, 0x00, 0x26, 0x80, 0x00, 0x00, 0x00, 0xa0, 0x00,
				  0x80, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x80, 0x00,
				  0x00, 0x00, 0x08, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x07,
				  0x02, 0xbc, 0x84, 0x80, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00};
#define CROWD_SYSID 36

/* A small generator the ops seed (the order and the answers of a batch). */
static uint32_t rnd(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

static void crowd_associate(unsigned int n)
{
	uint8_t buf[sizeof(bp_aarq)];

	for (unsigned int c = 0; c < n; c++) {
		int k = N_AGENTS + (int)c;
		if (tp_ae_lookup(agents[k].ip, agents[k].port) >= 0)
			continue;
		memcpy(buf, bp_aarq, sizeof(buf));
		static const uint8_t id[8] = {0x02, 0xc0, 0x0d, 0x00, 0x00, 0x00, 0x00, 0x00};
		memcpy(buf + CROWD_SYSID, id, 8);
		buf[CROWD_SYSID + 7] = (uint8_t)c;
		memcpy(last_dgram[k], buf, sizeof(buf));
		last_len[k] = sizeof(buf);
		n_sent = 0;
		bool existed = false;
		datagram_checked(k, l2[0], buf, sizeof(buf), existed);
		cur_k = -1;
	}
}

/* The IN-CSE answers every registration request it holds, in an order and with
 * answers seed picks (some it loses). */
static void crowd_answer_all(uint32_t seed)
{
	static const uint8_t pick[] = {0, 0, 0, 4, 1, 8, 9, 0xff};
	uint16_t idx[TP_AE_MAX > 1024 ? 1024 : TP_AE_MAX];
	unsigned int n = 0;
	uint32_t x = seed * 2654435761u | 1;

	if (!have_reg)
		return;
	for (int i = 0; i < TP_AE_MAX && n < RTE_DIM(idx); i++)
		if (reg_seen[i] && tp_ae_table[i].state == TP_AE_REGISTERING)
			idx[n++] = (uint16_t)i;
	for (unsigned int i = n; i > 1; i--) { /* Fisher-Yates */
		unsigned int j = rnd(&x) % i;
		uint16_t t = idx[i - 1];
		idx[i - 1] = idx[j];
		idx[j] = t;
	}
	for (unsigned int i = 0; i < n; i++) {
		uint8_t sel = pick[rnd(&x) % RTE_DIM(pick)];
		if (sel == 0xff || !reg_seen[idx[i]])
			continue; /* lost: the timeout sends it again */
		cse_answer(&reg_last[idx[i]], sel, 0, &reg_addr);
	}
}

/* The IN-CSE answers requests of registrations that ended (the entry freed, or
 * reused by another agent): nothing changes. */
static void crowd_answer_stale(uint32_t seed)
{
	static struct entry_snap {
		uint16_t gen;
		uint8_t state, step;
		uint64_t due;
	} snap[TP_AE_MAX];
	uint32_t x = seed * 2654435761u | 1;
	unsigned int n = req_log_n < REQ_LOG ? req_log_n : REQ_LOG, done = 0;

	if (!have_reg || n == 0)
		return;
	for (unsigned int t = 0; t < 4 * 16 && done < 16; t++) {
		const struct creq *q = &req_log[rnd(&x) % n];
		uint16_t i, gen;
		memcpy(&i, q->token, 2);
		memcpy(&gen, q->token + 2, 2);
		const struct tp_ae *e = &tp_ae_table[i];
		if (e->state != TP_AE_FREE && e->gen == gen)
			continue; /* still this registration's */
		for (int k = 0; k < TP_AE_MAX; k++)
			snap[k] =
			    (struct entry_snap){tp_ae_table[k].gen, tp_ae_table[k].state,
						tp_ae_table[k].reg_step, tp_ae_table[k].reg_due_ms};
		cse_answer(q, 0, 0, &reg_addr);
		for (int k = 0; k < TP_AE_MAX; k++)
			must(snap[k].gen == tp_ae_table[k].gen &&
			     snap[k].state == tp_ae_table[k].state &&
			     snap[k].step == tp_ae_table[k].reg_step &&
			     snap[k].due == tp_ae_table[k].reg_due_ms);
		done++;
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const uint8_t mac[2][6] = {{0x02, 0, 0, 0, 0, 0x0a}, {0x02, 0, 0, 0, 0, 0x0b}};
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001)};
	socklen_t sl = sizeof(sa);

	rte_log_set_level(tp_logtype, RTE_LOG_ERR); /* the registrar's warnings: not news here */
	l2[0] = tp_iotgw_l2src(0, mac[0]);
	l2[1] = tp_iotgw_l2src(0, mac[1]);
	l2[2] = tp_iotgw_l2src(1, mac[0]);
	cse_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	must(cse_fd >= 0 && bind(cse_fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	     getsockname(cse_fd, (struct sockaddr *)&sa, &sl) == 0);
	/* the dual plane's defaults but for the bounds, small so they are reached */
	tp_iotgw.enabled = true;
	tp_iotgw.cse_ip = 0x7f000001;
	tp_iotgw.cse_port = ntohs(sa.sin_port);
	for (int c = 0; c < N_CROWD; c++)
		agents[N_AGENTS + c].ip = 0x0a000300 + (uint32_t)c,
				  agents[N_AGENTS + c].port = 6024;
	/* six sessions of the eight agents', and the crowd's */
	tp_iotgw.max_sessions = 6 + N_CROWD;
	tp_iotgw.max_per_source = 3;
	tp_iotgw.session_timeout_ms = 10000;
	tp_iotgw.evict_idle_ms = 4000;
	tp_iotgw.ae_retention_s = 6; /* READY AEs' et set again every 3 s: within reach */
	tp_iotgw.max_pending = 12;
	tp_iotgw.agent_pending = 6;
	tp_iotgw.delivery = DELIVERY;
	must(tp_ae_init() == 0 && tp_ctl_init() == 0);
	must(tp_iotgw_registrar_init() == 0 && tp_iotgw_delivery_init(&io) == 0 &&
	     tp_iotgw_early_init(&io) == 0);
	srandom(1); /* delivery's first timeouts: the same every run */
	trace = getenv("TP_FUZZ_IOTGW_TRACE") != NULL;
	settle();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t i = 0;

	for (int ops = 0; i < size && ops < OPS_MAX; ops++) {
		uint8_t op = data[i++];
		unsigned int kind = op >> 5;

		n_sent = 0;
		cur_k = -1;
		if (kind <= 2) {
			int k = op & 7;
			uint8_t buf[2048];
			size_t len;
			if (op & 0x08) {
				len = last_len[k];
				memcpy(buf, last_dgram[k], len);
			} else {
				if (i >= size)
					break;
				len = data[i++];
				if (len == 0xff) {
					if (size - i < 2)
						break;
					len = (size_t)data[i] << 8 | data[i + 1];
					i += 2;
				}
				if (len > size - i)
					len = size - i;
				if (len > sizeof(buf))
					len = sizeof(buf);
				memcpy(buf, data + i, len);
				i += len;
			}
			if ((op & 0x10) && got_get[k] && len >= 8) {
				buf[6] = (uint8_t)(get_invoke[k] >> 8);
				buf[7] = (uint8_t)get_invoke[k];
			}
			memcpy(last_dgram[k], buf, len);
			last_len[k] = len;
			bool existed = tp_ae_lookup(agents[k].ip, agents[k].port) >= 0;
			datagram_checked(k, l2[kind], buf, len, existed);
		} else if (kind == 3) {
			unsigned int v = op & 0x1f;
			vclock += v < 20 ? v * 50u : (v - 19u) * 1000u;
			sessions_before();
			control_tick();
			/* a tick ends sessions by the timeout only: silent for longer */
			for (int j = 0; j < N_ALL; j++)
				if (session_ended(j))
					must(vclock - before[j].last_ms >
					     tp_iotgw.session_timeout_ms);
		} else if (kind == 4) {
			int k = op & 7;
			if (i >= size)
				break;
			uint8_t sel = data[i++];
			int idx = tp_ae_lookup(agents[k].ip, agents[k].port);
			if (idx >= 0 && reg_seen[idx] && have_reg)
				cse_answer(&reg_last[idx], sel, (op >> 3) & 3, &reg_addr);
		} else if (kind == 5) {
			bool newest = op & 1, lose = op & 2;
			uint8_t sel = 0;
			if (!lose) {
				if (i >= size)
					break;
				sel = data[i++];
			}
			if (delq_n > 0) {
				unsigned int at = newest ? delq_n - 1 : 0;
				struct creq q = delq[at];
				memmove(delq + at, delq + at + 1,
					sizeof(delq[0]) * (delq_n - at - 1));
				delq_n--;
				if (!lose)
					cse_answer(&q, sel, (op >> 2) & 3, &del_addr);
			}
		} else if (kind == 6) {
			switch (op & 0x1f) {
			case 0:
				lose_next_source = true;
				break;
			case 1:
				delq_n = 0;
				memset(reg_seen, 0, sizeof(reg_seen));
				break;
			case 2:
				while (delq_n > 0) {
					struct creq q = delq[0];
					memmove(delq, delq + 1, sizeof(delq[0]) * --delq_n);
					cse_answer(&q, 0, 0, &del_addr);
				}
				break;
			case 3:
				if (i >= size)
					goto out;
				crowd_associate(1 + data[i++] % N_CROWD);
				break;
			case 4: {
				if (size - i < 2)
					goto out;
				int k = N_AGENTS + data[i] % N_CROWD;
				int idx = tp_ae_lookup(agents[k].ip, agents[k].port);
				if (idx >= 0 && reg_seen[idx] && have_reg)
					cse_answer(&reg_last[idx], data[i + 1], 0, &reg_addr);
				i += 2;
				break;
			}
			case 5:
				if (i >= size)
					goto out;
				crowd_answer_all(data[i++]);
				break;
			case 6:
				if (i >= size)
					goto out;
				crowd_answer_stale(data[i++]);
				break;
			default:
				break;
			}
		} else {
			bool to_reg = op & 1;
			if (i >= size)
				break;
			size_t len = data[i++];
			if (len > size - i)
				len = size - i;
			const struct sockaddr_in *to = to_reg ? &reg_addr : &del_addr;
			if (len > 0 && (to_reg ? have_reg : have_del)) {
				must(sendto(cse_fd, data + i, len, 0, (const struct sockaddr *)to,
					    sizeof(*to)) == (ssize_t)len);
				settle();
			}
			i += len;
		}
		cur_k = -1;
		check_state();
		if (trace) {
			char st[N_AGENTS + 1];
			for (int k = 0; k < N_AGENTS; k++) {
				int idx = tp_ae_lookup(agents[k].ip, agents[k].port);
				st[k] = idx < 0 ? '.' : "FCQRYX"[tp_ae_table[idx].state];
			}
			st[N_AGENTS] = '\0';
			fprintf(stderr, "op %02x sessions %s sent %u\n", op, st, n_sent);
		}
	}
out:
	if (trace) {
		const struct tp_iotgw_session_stats *s = &tp_iotgw_sess;
		fprintf(
		    stderr,
		    "assoc %lu cfg %lu rej %lu full %lu src %lu dup %lu unbound %lu rel %lu "
		    "abrt %lu timeout %lu evicted %lu mds %lu/%lu/%lu reg ready %lu failed %lu "
		    "srverr %lu | early held %lu released %lu dropped %lu skip %lu | deliv "
		    "reports %lu queued %lu stored %lu refused %lu retx %lu answered %lu again %lu "
		    "duppend %lu full %lu share %lu down %lu back %lu | spoofed %lu notready %lu "
		    "worker cin %lu answers %lu early cin %lu answered %lu\n",
		    s->associated, s->configured, s->rejected, s->rejected_full, s->rejected_source,
		    s->rejected_duplicate, s->rejected_unbound, s->released, s->aborted,
		    s->timed_out, s->evicted, s->mds_queried, s->mds_answered, s->mds_unanswered,
		    s->reg_ready, s->reg_failed, s->reg_server_errors, tp_iotgw_early.held,
		    tp_iotgw_early.released, tp_iotgw_early.dropped, tp_iotgw_early.get_skipped,
		    tp_iotgw_deliv.reports, tp_iotgw_deliv.cin_queued, tp_iotgw_deliv.cin_stored,
		    tp_iotgw_deliv.cin_refused, tp_iotgw_deliv.retransmissions,
		    tp_iotgw_deliv.answered, tp_iotgw_deliv.answered_again,
		    tp_iotgw_deliv.duplicates_pending, tp_iotgw_deliv.reports_refused_full,
		    tp_iotgw_deliv.reports_refused_share, tp_iotgw_deliv.went_down,
		    tp_iotgw_deliv.came_back, wctr[TP_IOTGW_SPOOFED], wctr[TP_IOTGW_NOT_READY],
		    wctr[TP_IOTGW_CIN_SENT], wctr[TP_IOTGW_RESPONSES], tp_iotgw_early.cin_sent,
		    tp_iotgw_early.answered);
	}
	return 0;
}
