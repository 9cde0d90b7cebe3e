/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target for NDN management on the control plane (src/nf/ndn/control/mgmt.c,
 * dataset.c): command Interests (rib/register, rib/unregister, faces/create,
 * faces/destroy, and names it does not serve) signed as NFD's command Interests
 * (DigestSha256 name components) or not, from a local or a non-local face, under
 * /localhost or /localhop; status dataset requests (status/general, faces/list,
 * faces/channels, fib/list, rib/list, strategy-choice/list; without a version, with
 * the held one or any, any segment); raw Interests; the control plane's clock (route expiry, idle
 * faces) and management's limits. The RIB, FIB, faces and snapshots persist across inputs.
 *
 * An EAL without hugepages or devices; one forwarding context (its hand-back ring is
 * where management's answers go, drained by the target); faces 1 UDP 10.0.1.7 (local)
 * and 2 UDP 10.0.2.2 (not local); ports p0 and p1 for ether:// faces (tp_port_by_name
 * and tp_port_by_id wrapped); /localhop enabled with a key at start. The control
 * plane's clock is the target's (tp_ctl_now_ms wrapped).
 *
 * Input: records [op][arg][length, 2 bytes big-endian][bytes]; a length past the end
 * takes what is left. op & 7:
 *   0 CMD      /<scope>/nfd/<module>/<verb>/<ControlParameters>: the command verbs[arg
 *              % 6], scope /localhop with op & 8, signed (DigestSha256 over the name,
 *              NFD's older command Interest) with op & 16, from face 2 (not local)
 *              with op & 32, the bytes as ControlParameters' TLV-VALUE (op & 64: as
 *              the whole component)
 *   1 RAW      the bytes as an Interest from face 1 + (arg & 1); PIT token of arg >> 1
 *              bytes (8: ours) and context tok[0] = arg >> 5 & 1 (1: no such context)
 *   2 DATASET  /localhost/nfd/<datasets[arg % 6]>, plus with (arg >> 3) & 3: 1 the
 *              held version and segment bytes[0], 2 the version of bytes[0..7] and
 *              segment bytes[8], 3 the held version alone
 *   3 CLOCK    advance the control plane's clock by arg ms (times 100 with op & 8),
 *              run its timers due (route expiry, idle faces), reclaim (RCU)
 *   4 POLL     management's poll (what the records queued), then the answers checked
 *   5 LIMITS   mgmt-rate and mgmt-burst arg + 1 (op & 8: back to 10^6), localhop
 *              disabled (op & 16) or enabled
 * Interests queue in management's ring (1,023) until a POLL; each record's end polls
 * too when op & 128.
 *
 * Properties, after every record: every answer is an LpPacket from face 0 with the
 * PIT token of the Interest it answers (each answered at most once), holding a Data
 * with a valid DigestSha256; a command's Data has the Interest's name and a
 * ControlResponse with one of NFD's status codes and a text; a dataset's Data is
 * /<dataset>/<version>/<segment> (typed components), its FinalBlockId a segment not
 * before its own, full segments but the last (strategy-choice/list's first entry the
 * root's); the Interests management consumed are
 * exactly the ones answered plus the ones not decodable (or without our token), rate
 * limited, of a dataset version gone or whose answer was lost, by its counters; the
 * answers are the commands accepted and refused plus the segments sent; every mbuf
 * is back in its pool (ours: but those queued; management's two: all); every route
 * and FIB next hop names a face that is up. */
#include <stdbool.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "control/port.h"
#include "control/timer.h"
#include "core/tp.h"
#include "fuzz_dpdk.h"
#include "nf/ndn/ndn.h"
#include "proto/ndn.h"
#include "proto/sha256.h"
#include "tables/iface.h"

#define IP(a, b, c, d) (((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))
#define MAX_PKT 8800
#define N_REQ 4096 /* requests remembered, by the PIT token's id */

enum { OP_CMD, OP_RAW, OP_DATASET, OP_CLOCK, OP_POLL, OP_LIMITS };

static struct rte_mempool *pool, *mgmt_pool, *big_pool;
static struct tp_worker *w;
static struct ndn_fwd *fwd;
static uint64_t vms = 1000000; /* the control plane's clock, ms */
static struct tp_port ports[2];

uint64_t __wrap_tp_ctl_now_ms(void);
uint64_t __wrap_tp_ctl_now_ms(void)
{
	return vms;
}

struct tp_port *__wrap_tp_port_by_name(const char *name);
struct tp_port *__wrap_tp_port_by_name(const char *name)
{
	for (unsigned int i = 0; i < RTE_DIM(ports); i++)
		if (strcmp(name, ports[i].name) == 0)
			return &ports[i];
	return NULL;
}

struct tp_port *__wrap_tp_port_by_id(uint16_t id);
struct tp_port *__wrap_tp_port_by_id(uint16_t id)
{
	return id < RTE_DIM(ports) ? &ports[id] : NULL;
}

static const char *const verbs[][2] = {
    {"rib", "register"},  {"rib", "unregister"},      {"faces", "create"},
    {"faces", "destroy"}, {"strategy-choice", "set"}, {"rib", "list"},
};
static const char *const datasets[][2] = {
    {"status", "general"}, {"faces", "list"}, {"faces", "channels"},
    {"fib", "list"},	   {"rib", "list"},   {"strategy-choice", "list"},
};

/* what the target sent, by the id in its PIT token (bytes 1-7) */
static struct req {
	bool pending;
	bool dataset;
	uint16_t name_len;
	uint8_t name[TP_NDN_NAME_MAX_LEN];
} reqs[N_REQ];
static uint64_t next_id = 1;
/* tallies since the start, and management's counters at the start */
static uint64_t consumed_ref, answers, unanswerable;
/* whether each Interest in management's ring (in its order) cannot be answered */
static bool fifo[2048];
static unsigned int fifo_head, fifo_n;
static uint64_t ctr0[NDN_M_MAX];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[128];

	(void)argc, (void)argv;
	fuzz_eal_init("fuzz-ndn-mgmt", 256);
	fuzz_tables_init();
	tp.tsc_hz = rte_get_tsc_hz();
	pool = rte_pktmbuf_pool_create("fuzz", 2047, 0, TP_MBUF_PRIV_SIZE,
				       RTE_PKTMBUF_HEADROOM + MAX_PKT + 64, SOCKET_ID_ANY);
	must(pool != NULL);
	w = fuzz_worker();
	struct ndn_lcore *lc = rte_zmalloc("ndn_lcore", sizeof(*lc), RTE_CACHE_LINE_SIZE);
	must(lc != NULL);
	w->nf_state[tp_ndn_nf.id] = lc;
	for (unsigned int i = 0; i < RTE_DIM(ports); i++) {
		snprintf(ports[i].name, sizeof(ports[i].name), "p%u", i);
		ports[i].id = (uint16_t)i;
		tp_iface_table[i].mtu = 1500;
	}
	tp_route_add(IP(10, 0, 0, 0), 8, TP_ROUTE_CONNECTED, 0, 0, 1);

	ndn_conf.pit_capacity = 64;
	ndn_conf.cs_capacity = 16;
	ndn_conf.n_fwd = 1;
	ndn_conf.siphash_key[0] = 0x0123456789abcdefull;
	ndn_conf.siphash_key[1] = 0xfedcba9876543210ull;
	fwd = rte_zmalloc("ndn_fwd", sizeof(*fwd), 64);
	must(fwd != NULL);
	struct tp_ring *r = rte_zmalloc("ring", sizeof(*r), RTE_CACHE_LINE_SIZE);
	must(r != NULL);
	r->r = rte_ring_create("ndn-fuzz-handback", 1024, SOCKET_ID_ANY, RING_F_SC_DEQ);
	must(r->r != NULL);
	r->size = 1024;
	fwd->ring[3] = r;
	ndn_fwd[0] = fwd;
	lc->fwd = fwd;
	ndn_limits.mgmt_rate = 1000000;
	ndn_limits.mgmt_burst = 1000000;
	ndn_limits.face_idle_s = 2;
	ndn_limits_apply();
	must(ndn_faces_init() == 0 && ndn_fib_init() == 0 && ndn_mgmt_init() == 0);
	mgmt_pool = rte_mempool_lookup("ndn_mgmt");
	big_pool = rte_mempool_lookup("ndn_mgmt_big");
	must(mgmt_pool != NULL && big_pool != NULL);
	must(ndn_face_add_udp(rte_cpu_to_be_32(IP(10, 0, 1, 7)), rte_cpu_to_be_16(NDN_UDP_PORT), 0,
			      true, false, err, sizeof(err)) == 1);
	must(ndn_face_add_udp(rte_cpu_to_be_32(IP(10, 0, 2, 2)), rte_cpu_to_be_16(NDN_UDP_PORT), 0,
			      false, false, err, sizeof(err)) == 2);
	static const uint8_t key[32] = {1, 2, 3};
	must(ndn_mgmt_localhop_set(key, sizeof(key)) == 0);
	__atomic_store_n(&ndn_conf.enabled, true, __ATOMIC_RELEASE);
	memcpy(ctr0, ndn_mgmt_ctr, sizeof(ctr0));
	return 0;
}

/* --- Interests in --- */

/* A generic name component of s. */
static uint8_t *comp_str(uint8_t *p, const char *s)
{
	size_t l = strlen(s);

	p = tp_ndn_tl_write(p, TP_NDN_T_GENERIC, l);
	memcpy(p, s, l);
	return p + l;
}

/* Queue the Interest (name, and with raw the whole wire) for management, from face,
 * with a PIT token of tok_len bytes (ours: 8, context ctx, a new id). */
static void queue(const uint8_t *name, size_t name_len, const uint8_t *raw, size_t raw_len,
		  uint16_t face, uint8_t tok_len, uint8_t ctx, bool dataset)
{
	static uint8_t wire[MAX_PKT + 64];
	int len;

	if (raw) {
		len = (int)RTE_MIN(raw_len, (size_t)MAX_PKT);
		memcpy(wire, raw, (size_t)len);
	} else {
		struct tp_ndn_interest_spec s = {
		    .name_value = name,
		    .name_len = (uint16_t)name_len,
		    .nonce = (uint32_t)next_id,
		    .lifetime_ms = 1000,
		    .hop_limit = -1,
		    .can_be_prefix = dataset,
		};
		len = tp_ndn_interest_encode(wire, sizeof(wire), &s);
		if (len <= 0)
			return;
	}
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	must(m != NULL);
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	must(p != NULL);
	memcpy(p, wire, (size_t)len);
	struct ndn_meta *mt = ndn_meta(m);
	uint64_t id = next_id++;
	mt->face = face;
	mt->tok_len = RTE_MIN(tok_len, (uint8_t)TP_NDN_PIT_TOKEN_MAX);
	memset(mt->tok, 0, sizeof(mt->tok));
	mt->tok[0] = ctx;
	memcpy(mt->tok + 1, &id, 7);
	/* what management will see of it (the same decoder): no answer can come */
	struct tp_ndn_interest in;
	size_t used;
	bool answerable = tp_ndn_interest_decode(p, (size_t)len, &in, &used) == TP_NDN_E_OK &&
			  mt->tok_len == NDN_TOKEN_LEN;
	struct req *q = &reqs[id % N_REQ];
	q->pending = answerable;
	if (answerable) {
		q->dataset = dataset;
		q->name_len = in.name.len;
		memcpy(q->name, in.name.value, in.name.len);
	}
	if (rte_ring_enqueue(ndn_mgmt_ring, m) != 0) { /* full: the datapath drops it */
		rte_pktmbuf_free(m);
		q->pending = false;
		return;
	}
	fifo[(fifo_head + fifo_n++) % RTE_DIM(fifo)] = !answerable;
	consumed_ref++; /* (once management has taken it: compared after each poll) */
}

static void op_cmd(uint8_t op, uint8_t arg, const uint8_t *b, size_t len)
{
	static uint8_t name[TP_NDN_NAME_MAX_LEN + 256];
	uint8_t *p = name;
	const char *const *v = verbs[arg % RTE_DIM(verbs)];

	len = RTE_MIN(len, (size_t)TP_NDN_NAME_MAX_LEN - 200);
	p = comp_str(p, (op & 8) ? "localhop" : "localhost");
	p = comp_str(p, "nfd");
	p = comp_str(p, v[0]);
	p = comp_str(p, v[1]);
	if (op & 64) { /* the bytes as the component's value */
		p = tp_ndn_tl_write(p, TP_NDN_T_GENERIC, len);
	} else {
		p = tp_ndn_tl_write(p, TP_NDN_T_GENERIC,
				    len + tp_ndn_varnum_size(0x68) + tp_ndn_varnum_size(len));
		p = tp_ndn_tl_write(p, 0x68, len);
	}
	memcpy(p, b, len);
	p += len;
	if (op & 16) { /* NFD's command Interest: timestamp, nonce, SignatureInfo, Value */
		uint64_t ts = vms, nonce = next_id;
		p = tp_ndn_tl_write(p, TP_NDN_T_GENERIC, 8);
		memcpy(p, &ts, 8);
		p += 8;
		p = tp_ndn_tl_write(p, TP_NDN_T_GENERIC, 8);
		memcpy(p, &nonce, 8);
		p += 8;
		static const uint8_t si[] = {TP_NDN_T_GENERIC, 5, 0x16, 3, 0x1b, 1, 0};
		memcpy(p, si, sizeof(si));
		p += sizeof(si);
		uint8_t md[32];
		tp_sha256(name, (size_t)(p - name), md);
		p = tp_ndn_tl_write(p, TP_NDN_T_GENERIC, 34);
		p = tp_ndn_tl_write(p, 0x17, 32);
		memcpy(p, md, 32);
		p += 32;
	}
	queue(name, (size_t)(p - name), NULL, 0, (op & 32) ? 2 : 1, NDN_TOKEN_LEN, 0, false);
}

/* each dataset's latest version, from the answers seen */
static uint64_t versions[RTE_DIM(datasets)];

static void op_dataset(uint8_t arg, const uint8_t *b, size_t len)
{
	uint8_t name[128], *p = name;
	unsigned int d = arg % RTE_DIM(datasets);
	unsigned int how = (arg >> 3) & 3;
	uint64_t ver = versions[d], seg = len > 0 ? b[0] : 0;

	p = comp_str(p, "localhost");
	p = comp_str(p, "nfd");
	p = comp_str(p, datasets[d][0]);
	p = comp_str(p, datasets[d][1]);
	if (how == 2) {
		ver = 0;
		memcpy(&ver, b, RTE_MIN(len, (size_t)8));
		seg = len > 8 ? b[8] : 0;
	}
	if (how)
		p = tp_ndn_nni_tlv_write(p, 0x36, ver);
	if (how == 1 || how == 2)
		p = tp_ndn_nni_tlv_write(p, 0x32, seg);
	queue(name, (size_t)(p - name), NULL, 0, 1, NDN_TOKEN_LEN, 0, true);
}

/* --- answers out --- */

static bool name_comp_is(const struct tp_ndn_name *n, unsigned int i, uint8_t type)
{
	uint16_t l;

	return tp_ndn_name_comp(n, i, &l)[0] == type;
}

/* One answer: checked against its request, freed. */
static void check_answer(struct rte_mbuf *m)
{
	struct tp_ndn_lp lp;
	struct tp_ndn_data d;
	size_t used;

	must(ndn_meta(m)->face == NDN_FACE_INTERNAL);
	must(m->nb_segs == 1 && (m->pool == mgmt_pool || m->pool == big_pool));
	must(tp_ndn_lp_decode(rte_pktmbuf_mtod(m, uint8_t *), m->data_len, &lp) == TP_NDN_E_OK);
	must(lp.pit_token_len == NDN_TOKEN_LEN && lp.pit_token[0] == 0 && !lp.is_nack);
	uint64_t id = 0;
	memcpy(&id, lp.pit_token + 1, 7);
	struct req *q = &reqs[id % N_REQ];
	must(id < next_id && q->pending); /* ours, answered once */
	q->pending = false;
	must(tp_ndn_data_decode(lp.payload, lp.payload_len, &d, &used) == TP_NDN_E_OK);
	must(used == lp.payload_len && tp_ndn_data_verify_digest(&d) == 1);
	struct tp_ndn_name in;
	must(tp_ndn_name_decode(q->name, q->name_len, &in) == TP_NDN_E_OK);
	if (d.final_block == NULL) { /* a command's ControlResponse */
		must(d.name.len == q->name_len && memcmp(d.name.value, q->name, q->name_len) == 0);
		const uint8_t *p = d.content;
		struct tp_ndn_tlv cr, code, text;
		uint64_t c;
		must(tp_ndn_tlv_read(&p, d.content + d.content_len, &cr) == TP_NDN_E_OK &&
		     cr.type == 0x65 && p == d.content + d.content_len);
		p = cr.value;
		must(tp_ndn_tlv_read(&p, cr.value + cr.len, &code) == TP_NDN_E_OK &&
		     code.type == 0x66 && tp_ndn_nni_read(code.value, code.len, &c) == TP_NDN_E_OK);
		must(c == 200 || c == 400 || c == 403 || c == 406 || c == 409 || c == 410 ||
		     c == 500 || c == 501);
		must(tp_ndn_tlv_read(&p, cr.value + cr.len, &text) == TP_NDN_E_OK &&
		     text.type == 0x67 && text.len > 0);
	} else { /* a dataset's segment: /localhost/nfd/<module>/<dataset>/<v>/<seg> */
		uint64_t ver, seg, last;
		uint16_t l4 = tp_ndn_name_prefix_len(&in, 4);
		must(q->dataset && in.n_comps >= 4 && d.name.n_comps == 6);
		must(memcmp(d.name.value, q->name, l4) == 0);
		must(name_comp_is(&d.name, 4, 0x36) && name_comp_is(&d.name, 5, 0x32));
		uint16_t cl;
		const uint8_t *c = tp_ndn_name_comp(&d.name, 4, &cl);
		must(tp_ndn_comp_number(c, cl, &ver) == TP_NDN_E_OK);
		c = tp_ndn_name_comp(&d.name, 5, &cl);
		must(tp_ndn_comp_number(c, cl, &seg) == TP_NDN_E_OK);
		must(d.final_block[0] == 0x32 &&
		     tp_ndn_comp_number(d.final_block, d.final_block_len, &last) == TP_NDN_E_OK);
		must(seg <= last && d.content_len <= NDN_DATASET_SEG);
		must(seg == last || d.content_len == NDN_DATASET_SEG);
		must(d.has_freshness);
		/* the version named, when the Interest named one */
		if (in.n_comps >= 5) {
			uint64_t asked;
			c = tp_ndn_name_comp(&in, 4, &cl);
			must(tp_ndn_comp_number(c, cl, &asked) == TP_NDN_E_OK && asked == ver);
		}
		for (unsigned int k = 0; k < RTE_DIM(datasets); k++) {
			uint8_t buf[64], *p = buf;
			p = comp_str(p, "localhost");
			p = comp_str(p, "nfd");
			p = comp_str(p, datasets[k][0]);
			p = comp_str(p, datasets[k][1]);
			if ((size_t)(p - buf) != l4 || memcmp(buf, d.name.value, l4) != 0)
				continue;
			versions[k] = ver;
			if (strcmp(datasets[k][0], "strategy-choice") == 0 && seg == 0) {
				/* the root's StrategyChoice first: Name "/" and a Strategy */
				const uint8_t *q = d.content, *end = d.content + d.content_len;
				struct tp_ndn_tlv sc, nm, st;
				must(tp_ndn_tlv_read(&q, end, &sc) == TP_NDN_E_OK &&
				     sc.type == 0x80);
				q = sc.value;
				end = sc.value + sc.len;
				must(tp_ndn_tlv_read(&q, end, &nm) == TP_NDN_E_OK &&
				     nm.type == 0x07 && nm.len == 0);
				must(tp_ndn_tlv_read(&q, end, &st) == TP_NDN_E_OK &&
				     st.type == 0x6b && q == end);
			}
		}
	}
	answers++;
	rte_pktmbuf_free(m);
}

static void poll_and_check(void)
{
	struct rte_mbuf *m[64];
	unsigned int n;

	unsigned int before = rte_ring_count(ndn_mgmt_ring);
	ndn_mgmt_poll();
	for (unsigned int k = before - rte_ring_count(ndn_mgmt_ring); k > 0; k--, fifo_n--) {
		unanswerable += fifo[fifo_head];
		fifo_head = (fifo_head + 1) % RTE_DIM(fifo);
	}
	must(fifo_n == rte_ring_count(ndn_mgmt_ring));
	while ((n = rte_ring_dequeue_burst(fwd->ring[3]->r, (void **)m, RTE_DIM(m), NULL)) > 0)
		for (unsigned int i = 0; i < n; i++)
			check_answer(m[i]);
	tp_rcu_reclaim();
}

/* --- properties --- */

static void route_face_up(const uint8_t *name, uint16_t len, uint16_t face, uint64_t origin,
			  uint64_t cost, uint64_t flags, uint64_t expires_ms, void *arg)
{
	(void)name, (void)len, (void)origin, (void)cost, (void)flags, (void)arg;
	must(face < NDN_FACES_MAX && ndn_faces[face].up);
	must(expires_ms == 0 || expires_ms > vms - 1000 * 2); /* the timer runs each second */
}

static void fib_faces_up(const struct ndn_fib_entry *e, void *arg)
{
	(void)arg;
	for (unsigned int i = 0; i < e->n_nh; i++)
		must(e->nh[i].face < NDN_FACES_MAX && ndn_faces[e->nh[i].face].up);
}

static uint64_t delta(enum ndn_mgmt_ctr c)
{
	return ndn_mgmt_ctr[c] - ctr0[c];
}

static void check_all(void)
{
	unsigned int queued = rte_ring_count(ndn_mgmt_ring);

	must(rte_mempool_in_use_count(pool) == queued);
	must(rte_mempool_in_use_count(mgmt_pool) == 0 && rte_mempool_in_use_count(big_pool) == 0);
	must(rte_ring_count(fwd->ring[3]->r) == 0);
	/* every Interest management took: answered, or not, each counted once (one it
	 * cannot decode is counted as rate limited when the bucket was empty) */
	uint64_t lo =
	    answers + delta(NDN_M_RATELIMITED) + delta(NDN_M_DS_GONE) + delta(NDN_M_ANSWERS_LOST);
	uint64_t took = consumed_ref - queued;
	must(took >= lo && took <= lo + unanswerable);
	must(delta(NDN_M_RATELIMITED) > 0 || took == lo + unanswerable);
	/* each command decided and segment made is an answer, or one lost */
	uint64_t made = delta(NDN_M_ACCEPTED) + delta(NDN_M_REFUSED) + delta(NDN_M_DS_SEGMENTS);
	must(answers <= made && made <= answers + delta(NDN_M_ANSWERS_LOST));
	ndn_rib_walk(route_face_up, NULL);
	ndn_fib_walk(fib_faces_up, NULL);
}

static void run(uint8_t op, uint8_t arg, const uint8_t *b, size_t len)
{
	switch (op & 7) {
	case OP_CMD:
		op_cmd(op, arg, b, len);
		break;
	case OP_RAW:
		queue(NULL, 0, b, len, (uint16_t)(1 + (arg & 1)), (uint8_t)((arg >> 1) & 15),
		      (uint8_t)((arg >> 5) & 1), false);
		break;
	case OP_DATASET:
		op_dataset(arg, b, len);
		break;
	case OP_CLOCK: {
		uint64_t end = vms + (uint64_t)arg * ((op & 8) ? 100 : 1);
		for (;;) {
			tp_timer_run(vms);
			int64_t next = tp_timer_next_in(vms);
			if (next < 0 || vms + (uint64_t)next > end)
				break;
			vms += (uint64_t)next;
		}
		vms = end;
		tp_timer_run(vms);
		tp_rcu_reclaim();
		break;
	}
	case OP_POLL:
		poll_and_check();
		break;
	case OP_LIMITS:
		ndn_limits.mgmt_rate = (op & 8) ? 1000000 : arg + 1u;
		ndn_limits.mgmt_burst = (op & 8) ? 1000000 : arg + 1u;
		if (op & 16) {
			ndn_mgmt_localhop_set(NULL, 0);
		} else {
			static const uint8_t key[32] = {1, 2, 3};
			ndn_mgmt_localhop_set(key, sizeof(key));
		}
		break;
	default:
		break;
	}
	if (op & 128)
		poll_and_check();
	check_all();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t i = 0;

	while (i + 4 <= size) {
		uint8_t op = data[i], arg = data[i + 1];
		size_t len = (size_t)data[i + 2] << 8 | data[i + 3];
		i += 4;
		len = RTE_MIN(len, size - i);
		run(op, arg, data + i, len);
		i += len;
	}
	/* what this input queued is answered before the next one */
	poll_and_check();
	check_all();
	return 0;
}
