/* SPDX-License-Identifier: BSD-3-Clause */
/* Management on the control plane: the RIB (routes by origin, from commands and from
 * applications' prefix registrations) and the FIB it derives; NFD's management
 * protocol for applications (rib/register and rib/unregister under /localhost/nfd
 * and /localhop/nfd: a signed command Interest with ControlParameters, answered by a
 * Data with a ControlResponse); and the first packet of an on-demand UDP face.
 *
 * Command Interests reach us through the internal face 0 (a FIB entry for each
 * management prefix), on a ring; the answer goes back to the forwarding context
 * that holds the PIT entry, on its hand-back ring, as Data from face 0. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "../../control/control.h"
#include "../../control/port.h"
#include "../../control/timer.h"
#include "../../core/log.h"
#include "ndn.h"

struct rte_ring *ndn_mgmt_ring;
struct rte_ring *ndn_newface_ring;
static struct rte_mempool *mgmt_pool;

#define RIB_MAX NDN_FIB_MAX
struct route {
	bool used;
	uint16_t face;
	uint16_t name_len;
	uint64_t origin, cost, flags;
	uint64_t expires_ms; /* 0: never */
	uint8_t name[TP_NDN_NAME_MAX_LEN];
};
static struct route *rib;
uint64_t ndn_mgmt_stats[4]; /* commands accepted, refused, bad, answers lost */

/* Recompute the FIB entry of name from the routes with that name. */
static int fib_sync(const uint8_t *name, uint16_t len)
{
	struct ndn_nexthop nh[NDN_NH_MAX];
	unsigned int n = 0;

	for (unsigned int i = 0; i < RIB_MAX; i++) {
		const struct route *r = &rib[i];
		if (!r->used || r->name_len != len || memcmp(r->name, name, len) != 0)
			continue;
		unsigned int k;
		for (k = 0; k < n && nh[k].face != r->face; k++)
			;
		if (k == n) {
			if (n == NDN_NH_MAX)
				continue;
			nh[n].face = r->face;
			nh[n++].cost = (uint32_t)RTE_MIN(r->cost, UINT32_MAX);
		} else if (r->cost < nh[k].cost) {
			nh[k].cost = (uint32_t)r->cost;
		}
	}
	int ret = ndn_fib_set(name, len, nh, n);
	return ret == -ENOENT && n == 0 ? 0 : ret;
}

int ndn_rib_add(const uint8_t *name, uint16_t len, uint16_t face, uint64_t origin, uint64_t cost,
		uint64_t flags, int64_t expires_ms)
{
	struct route *free_r = NULL, *r = NULL;

	for (unsigned int i = 0; i < RIB_MAX; i++) {
		struct route *x = &rib[i];
		if (!x->used) {
			if (free_r == NULL)
				free_r = x;
		} else if (x->face == face && x->origin == origin && x->name_len == len &&
			   memcmp(x->name, name, len) == 0) {
			r = x;
			break;
		}
	}
	if (r == NULL) {
		if ((r = free_r) == NULL)
			return -ENOSPC;
		r->used = true;
		r->face = face;
		r->origin = origin;
		r->name_len = len;
		memcpy(r->name, name, len);
	}
	r->cost = cost;
	r->flags = flags;
	r->expires_ms = expires_ms >= 0 ? tp_ctl_now_ms() + (uint64_t)expires_ms : 0;
	int ret = fib_sync(name, len);
	if (ret < 0)
		r->used = false;
	return ret;
}

int ndn_rib_del(const uint8_t *name, uint16_t len, uint16_t face, uint64_t origin)
{
	bool found = false;

	for (unsigned int i = 0; i < RIB_MAX; i++) {
		struct route *x = &rib[i];
		if (x->used && x->name_len == len && memcmp(x->name, name, len) == 0 &&
		    (face == UINT16_MAX || x->face == face) &&
		    (origin == UINT64_MAX || x->origin == origin)) {
			x->used = false;
			found = true;
		}
	}
	if (!found)
		return -ENOENT;
	return fib_sync(name, len);
}

void ndn_rib_face_gone(uint16_t face)
{
	for (unsigned int i = 0; i < RIB_MAX; i++) {
		struct route *x = &rib[i];
		if (x->used && x->face == face) {
			x->used = false;
			fib_sync(x->name, x->name_len);
		}
	}
}

void ndn_rib_walk(void (*fn)(const uint8_t *name, uint16_t len, uint16_t face, uint64_t origin,
			     uint64_t cost, uint64_t flags, uint64_t expires_ms, void *arg),
		  void *arg)
{
	for (unsigned int i = 0; i < RIB_MAX; i++) {
		const struct route *x = &rib[i];
		if (x->used)
			fn(x->name, x->name_len, x->face, x->origin, x->cost, x->flags,
			   x->expires_ms, arg);
	}
}

static void rib_expire(struct tp_timer *t)
{
	uint64_t now = tp_ctl_now_ms();

	(void)t;
	for (unsigned int i = 0; i < RIB_MAX; i++) {
		struct route *x = &rib[i];
		if (x->used && x->expires_ms && x->expires_ms <= now) {
			x->used = false;
			fib_sync(x->name, x->name_len);
		}
	}
}
static struct tp_timer rib_timer = TP_TIMER_INIT("ndn_rib_expiry", rib_expire, NULL);

/* --- NFD management protocol --- */
#define T_CONTROL_PARAMETERS 0x68
#define T_FACE_ID 0x69
#define T_COST 0x6a
#define T_FLAGS 0x6c
#define T_EXPIRATION 0x6d
#define T_ORIGIN 0x6f
#define T_CONTROL_RESPONSE 0x65
#define T_STATUS_CODE 0x66
#define T_STATUS_TEXT 0x67

struct cparams {
	const uint8_t *name;
	uint16_t name_len;
	bool has_name, has_face, has_origin, has_cost, has_flags, has_expiration;
	uint64_t face, origin, cost, flags, expiration;
};

static int cparams_decode(const uint8_t *v, size_t len, struct cparams *cp)
{
	const uint8_t *p = v, *end = v + len;
	struct tp_ndn_tlv t;
	struct tp_ndn_name n;

	memset(cp, 0, sizeof(*cp));
	while (p < end) {
		if (tp_ndn_tlv_read(&p, end, &t) != TP_NDN_E_OK)
			return -EINVAL;
		uint64_t *dst = NULL;
		bool *has = NULL;
		switch (t.type) {
		case TP_NDN_T_NAME:
			if (t.len && tp_ndn_name_decode(t.value, t.len, &n) != TP_NDN_E_OK)
				return -EINVAL;
			cp->name = t.value;
			cp->name_len = (uint16_t)t.len;
			cp->has_name = true;
			continue;
		case T_FACE_ID:
			dst = &cp->face, has = &cp->has_face;
			break;
		case T_ORIGIN:
			dst = &cp->origin, has = &cp->has_origin;
			break;
		case T_COST:
			dst = &cp->cost, has = &cp->has_cost;
			break;
		case T_FLAGS:
			dst = &cp->flags, has = &cp->has_flags;
			break;
		case T_EXPIRATION:
			dst = &cp->expiration, has = &cp->has_expiration;
			break;
		default:
			continue; /* what rib commands do not use */
		}
		if (tp_ndn_nni_read(t.value, t.len, dst) != TP_NDN_E_OK)
			return -EINVAL;
		*has = true;
	}
	return 0;
}

/* ControlResponse: status, text, and (on success) the parameters as applied */
static size_t response(uint8_t *buf, unsigned int code, const char *text, const struct cparams *cp)
{
	uint8_t body[TP_NDN_NAME_MAX_LEN + 128], *b = body;

	if (cp) {
		uint8_t inner[TP_NDN_NAME_MAX_LEN + 96], *q = inner;
		q = tp_ndn_tl_write(q, TP_NDN_T_NAME, cp->name_len);
		memcpy(q, cp->name, cp->name_len);
		q += cp->name_len;
		q = tp_ndn_nni_tlv_write(q, T_FACE_ID, cp->face);
		q = tp_ndn_nni_tlv_write(q, T_ORIGIN, cp->origin);
		q = tp_ndn_nni_tlv_write(q, T_COST, cp->cost);
		q = tp_ndn_nni_tlv_write(q, T_FLAGS, cp->flags);
		if (cp->has_expiration)
			q = tp_ndn_nni_tlv_write(q, T_EXPIRATION, cp->expiration);
		b = tp_ndn_tl_write(b, T_CONTROL_PARAMETERS, (size_t)(q - inner));
		memcpy(b, inner, (size_t)(q - inner));
		b += q - inner;
	}
	uint8_t head[64], *h = head;
	size_t tl = strlen(text);
	h = tp_ndn_nni_tlv_write(h, T_STATUS_CODE, code);
	h = tp_ndn_tl_write(h, T_STATUS_TEXT, tl);
	memcpy(h, text, tl);
	h += tl;
	size_t inner_len = (size_t)(h - head) + (size_t)(b - body);
	uint8_t *p = tp_ndn_tl_write(buf, T_CONTROL_RESPONSE, inner_len);
	memcpy(p, head, (size_t)(h - head));
	p += h - head;
	memcpy(p, body, (size_t)(b - body));
	p += b - body;
	return (size_t)(p - buf);
}

static const uint8_t comp_localhost[] = {8, 9, 'l', 'o', 'c', 'a', 'l', 'h', 'o', 's', 't'};
static const uint8_t comp_localhop[] = {8, 8, 'l', 'o', 'c', 'a', 'l', 'h', 'o', 'p'};
static const uint8_t comp_nfd[] = {8, 3, 'n', 'f', 'd'};

static bool comp_is(const struct tp_ndn_name *n, unsigned int i, const char *s)
{
	uint16_t len;
	const uint8_t *c = tp_ndn_name_comp(n, i, &len);
	size_t sl = strlen(s);

	return len == sl + 2 && c[0] == TP_NDN_T_GENERIC && c[1] == sl && memcmp(c + 2, s, sl) == 0;
}

/* The command in Interest in (from face), answered in resp (a ControlResponse). */
static size_t command(const struct tp_ndn_interest *in, uint16_t face, uint8_t *resp)
{
	const struct tp_ndn_name *n = &in->name;
	struct cparams cp;
	int sig;

	if (n->n_comps < 5 || !comp_is(n, 2, "rib"))
		return response(resp, 501, "unsupported command", NULL);
	bool reg = comp_is(n, 3, "register");
	if (!reg && !comp_is(n, 3, "unregister"))
		return response(resp, 501, "unsupported command", NULL);
	/* signed: an Interest v0.3 InterestSignature, or the older name components */
	sig = in->sig_info ? tp_ndn_interest_verify_digest(in) : tp_ndn_command_verify_digest(n);
	if (sig != 1) {
		ndn_mgmt_stats[1]++;
		return response(resp, 403, sig == 0 ? "bad signature" : "unsupported signature",
				NULL);
	}
	uint16_t cl;
	const uint8_t *c = tp_ndn_name_comp(n, 4, &cl);
	const uint8_t *p = c;
	struct tp_ndn_tlv comp, t;
	if (tp_ndn_tlv_read(&p, c + cl, &comp) != TP_NDN_E_OK ||
	    (p = comp.value, tp_ndn_tlv_read(&p, comp.value + comp.len, &t)) != TP_NDN_E_OK ||
	    t.type != T_CONTROL_PARAMETERS || cparams_decode(t.value, t.len, &cp) < 0 ||
	    !cp.has_name) {
		ndn_mgmt_stats[2]++;
		return response(resp, 400, "malformed ControlParameters", NULL);
	}
	if (!cp.has_face || cp.face == 0)
		cp.face = face;
	if (cp.face >= NDN_FACES_MAX || !ndn_faces[cp.face].up) {
		ndn_mgmt_stats[1]++;
		return response(resp, 410, "face not found", NULL);
	}
	if (!cp.has_origin)
		cp.origin = 0; /* app */
	if (reg) {
		if (!cp.has_cost)
			cp.cost = 0;
		if (!cp.has_flags)
			cp.flags = 1; /* CHILD_INHERIT */
		int ret =
		    ndn_rib_add(cp.name, cp.name_len, (uint16_t)cp.face, cp.origin, cp.cost,
				cp.flags, cp.has_expiration ? (int64_t)cp.expiration : (int64_t)-1);
		if (ret < 0) {
			ndn_mgmt_stats[1]++;
			return response(resp, 500, "the RIB is full", NULL);
		}
	} else {
		ndn_rib_del(cp.name, cp.name_len, (uint16_t)cp.face, cp.origin);
		cp.cost = 0;
		cp.flags = 0;
		cp.has_expiration = false;
	}
	ndn_mgmt_stats[0]++;
	return response(resp, 200, "OK", &cp);
}

/* Hand m (an LpPacket or a bare packet from face) back to the input stage of the
 * forwarding context ctx. */
static void hand_back(struct rte_mbuf *m, uint16_t face, unsigned int ctx)
{
	ndn_meta(m)->face = face;
	if (ctx >= ndn_conf.n_fwd || rte_ring_mp_enqueue(ndn_fwd[ctx]->ring[3]->r, m) != 0) {
		ndn_mgmt_stats[3]++;
		rte_pktmbuf_free(m);
	}
}

static void answer(struct rte_mbuf *im)
{
	struct tp_ndn_interest in;
	size_t used;
	const struct ndn_meta *mt = ndn_meta(im);
	static uint8_t resp[TP_NDN_NAME_MAX_LEN + 512];
	static uint8_t data[2 * TP_NDN_NAME_MAX_LEN + 1024];

	if (tp_ndn_interest_decode(rte_pktmbuf_mtod(im, const uint8_t *), im->data_len, &in,
				   &used) != TP_NDN_E_OK ||
	    mt->tok_len != NDN_TOKEN_LEN) {
		ndn_mgmt_stats[2]++;
		return;
	}
	size_t rl = command(&in, mt->face, resp);
	struct tp_ndn_data_spec ds = {
	    .name_value = in.name.value,
	    .name_len = in.name.len,
	    .content_type = -1,
	    .freshness_ms = -1,
	    .content = resp,
	    .content_len = (uint32_t)rl,
	};
	int dl = tp_ndn_data_encode(data, sizeof(data), &ds);
	struct rte_mbuf *m = dl > 0 ? rte_pktmbuf_alloc(mgmt_pool) : NULL;
	if (m == NULL) {
		ndn_mgmt_stats[3]++;
		return;
	}
	struct tp_ndn_lp_spec ls = {
	    .payload = data,
	    .payload_len = (uint32_t)dl,
	    .pit_token_len = NDN_TOKEN_LEN,
	    .pit_token = mt->tok,
	};
	int ll = tp_ndn_lp_encode(rte_pktmbuf_mtod(m, uint8_t *), rte_pktmbuf_tailroom(m), &ls);
	if (ll < 0) {
		ndn_mgmt_stats[3]++;
		rte_pktmbuf_free(m);
		return;
	}
	m->data_len = m->pkt_len = (uint32_t)ll;
	m->port = 0;
	hand_back(m, NDN_FACE_INTERNAL, mt->tok[0]);
}

/* The first packet from a remote an on-demand face accepts: make the face. */
static void new_face(struct rte_mbuf *m)
{
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *), *l3 = eth + 14;
	uint8_t *l4 = l3 + (l3[0] & 0x0f) * 4;
	uint32_t src, dst;
	uint16_t sport;
	char err[128];

	memcpy(&src, l3 + 12, 4);
	memcpy(&dst, l3 + 16, 4);
	memcpy(&sport, l4, 2);
	uint16_t udp_len = (uint16_t)(l4[4] << 8 | l4[5]);
	int id = ndn_face_find_udp(src, sport);
	if (id < 0)
		id = ndn_face_add_udp(src, sport, dst, false, true, err, sizeof(err));
	if (id < 0) {
		TP_LOG(WARNING, "ndn: on-demand face: %s", err);
		rte_pktmbuf_free(m);
		return;
	}
	rte_pktmbuf_adj(m, (uint16_t)(l4 + 8 - eth));
	rte_pktmbuf_trim(m, (uint16_t)(m->data_len - (udp_len - 8)));
	hand_back(m, (uint16_t)id, 0);
}

unsigned int ndn_mgmt_poll(void)
{
	struct rte_mbuf *pkts[32];
	unsigned int n, m;

	if (!ndn_conf.enabled)
		return 0;
	n = rte_ring_sc_dequeue_burst(ndn_newface_ring, (void **)pkts, RTE_DIM(pkts), NULL);
	for (unsigned int i = 0; i < n; i++)
		new_face(pkts[i]);
	m = rte_ring_sc_dequeue_burst(ndn_mgmt_ring, (void **)pkts, RTE_DIM(pkts), NULL);
	for (unsigned int i = 0; i < m; i++) {
		answer(pkts[i]);
		rte_pktmbuf_free(pkts[i]);
	}
	return n + m;
}

int ndn_mgmt_init(void)
{
	static const uint8_t *const prefixes[] = {comp_localhost, comp_localhop};
	uint8_t name[32];

	rib = rte_zmalloc("ndn_rib", RIB_MAX * sizeof(*rib), 0);
	ndn_mgmt_ring = rte_ring_create("ndn_mgmt", 1024, SOCKET_ID_ANY, RING_F_SC_DEQ);
	ndn_newface_ring = rte_ring_create("ndn_newface", 1024, SOCKET_ID_ANY, RING_F_SC_DEQ);
	mgmt_pool = tp_pool_create("ndn_mgmt", 1023, 0);
	if (!rib || !ndn_mgmt_ring || !ndn_newface_ring || !mgmt_pool)
		return -ENOMEM;
	/* the management prefixes go to the internal face */
	for (unsigned int i = 0; i < RTE_DIM(prefixes); i++) {
		size_t l = prefixes[i][1] + 2u;
		memcpy(name, prefixes[i], l);
		memcpy(name + l, comp_nfd, sizeof(comp_nfd));
		int ret = ndn_rib_add(name, (uint16_t)(l + sizeof(comp_nfd)), NDN_FACE_INTERNAL, 0,
				      0, 0, -1);
		if (ret < 0)
			return ret;
	}
	tp_timer_every(&rib_timer, 1000);
	return 0;
}
