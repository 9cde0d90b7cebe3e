/* SPDX-License-Identifier: BSD-3-Clause */
/* Management on the control plane: the RIB (routes by origin, from commands and from
 * applications' prefix registrations) and the FIB it derives; NFD's management
 * protocol for applications (rib/register and rib/unregister under /localhost/nfd
 * and /localhop/nfd: a signed command Interest with ControlParameters, answered by a
 * Data with a ControlResponse); and the first packet of an on-demand UDP face.
 *
 * Command Interests reach us through the internal face 0 (a FIB entry for each
 * management prefix), on a ring; the answer goes back to the forwarding context
 * that holds the PIT entry, on its hand-back ring, as Data from face 0.
 *
 * Trust (NFD's): /localhost/nfd commands only from faces the operator made local
 * (and Unix and loopback TCP connections), which may do anything (name any face, any
 * origin), signed with any signature type (DigestSha256 checked, others taken as
 * NFD's default localhost_security takes them). /localhop/nfd commands are
 * refused unless the operator enabled them with a key ('ndn localhop enable key
 * HEX'); then only a signed Interest (NDN 0.3 InterestSignature) with
 * SignatureHmacWithSha256 under that key, a SignatureTime within 60 s of our clock
 * and after its signer's last one accepted (NFD's command Interest validation),
 * and it acts on its own face only: FaceId 0 or its own, Origin app (0) or client
 * (65), never "/" nor a /localhost or /localhop prefix, ExpirationPeriod at most
 * ndn_limits.expiration_max_s, at most ndn_limits.face_routes routes per face.
 * Commands beyond ndn_limits.mgmt_rate per second are dropped (token bucket). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "../../../control/control.h"
#include "../../../control/port.h"
#include "../../../control/timer.h"
#include "../../../core/log.h"
#include "../../../proto/ip4.h"
#include "../../../proto/parse.h"
#include "../ndn.h"

struct rte_ring *ndn_mgmt_ring;
struct rte_ring *ndn_newface_ring;
static struct rte_mempool *mgmt_pool;	  /* ControlResponses, first packets of new faces */
static struct rte_mempool *mgmt_big_pool; /* datasets' segments */
#define MGMT_SMALL_ROOM (RTE_MBUF_DEFAULT_BUF_SIZE - RTE_PKTMBUF_HEADROOM)
#define MGMT_BIG_ROOM (NDN_DATASET_SEG + TP_NDN_NAME_MAX_LEN + 512)

#define RIB_MAX NDN_FIB_MAX
#define RIB_BUCKETS 4096 /* a power of two */
_Static_assert(RIB_MAX < UINT16_MAX, "route indexes + 1 fit 16 bits");
struct route {
	bool used;
	uint16_t face;
	uint16_t name_len;
	uint16_t next; /* the bucket's next route (index + 1; 0: none), or the next free */
	uint32_t hash;
	uint64_t origin, cost, flags;
	uint64_t expires_ms; /* 0: never */
	uint8_t name[TP_NDN_NAME_MAX_LEN];
};
/* Routes are chained by the keyed SipHash of their name (one bucket holds every
 * route of a name): a command walks one short chain, not the 8.5 MB array. */
static struct route *rib;
static uint16_t rib_bucket[RIB_BUCKETS]; /* index + 1 of the first route, 0: none */
static uint16_t rib_free;		 /* index + 1 of the first free route */
static uint16_t face_routes[NDN_FACES_MAX];
uint64_t ndn_mgmt_ctr[NDN_M_MAX];
const char *const ndn_mgmt_ctr_names[NDN_M_MAX] = {
#define X(e, n) n,
    NDN_MGMT_COUNTERS(X)
#undef X
};

static inline uint32_t name_hash(const uint8_t *name, uint16_t len)
{
	return (uint32_t)ndn_siphash(ndn_conf.siphash_key, name, len);
}

static inline bool route_is(const struct route *r, uint32_t h, const uint8_t *name, uint16_t len)
{
	return r->hash == h && r->name_len == len && memcmp(r->name, name, len) == 0;
}

/* Route flags (NFD Management, RIB Management: Route Inheritance Flags) */
#define ROUTE_CHILD_INHERIT 1 /* its descendants' FIB entries use it too */
#define ROUTE_CAPTURE 2	      /* no route of an ancestor is used here or below */

/* Add to nh (*n next hops) the routes of name with a flag of need (0: every route),
 * a face already there keeping its next hop (own: the lower cost of the two);
 * whether one of the routes has CAPTURE. */
static bool routes_collect(const uint8_t *name, uint16_t len, uint64_t need, struct ndn_nexthop *nh,
			   unsigned int *n, bool own)
{
	uint32_t h = name_hash(name, len);
	bool capture = false;

	for (uint16_t i = rib_bucket[h & (RIB_BUCKETS - 1)]; i; i = rib[i - 1].next) {
		const struct route *r = &rib[i - 1];
		if (!route_is(r, h, name, len))
			continue;
		capture |= (r->flags & ROUTE_CAPTURE) != 0;
		if (need && !(r->flags & need))
			continue;
		unsigned int k;
		for (k = 0; k < *n && nh[k].face != r->face; k++)
			;
		if (k == *n) {
			if (*n == NDN_NH_MAX)
				continue;
			nh[k].face = r->face;
			nh[k].cost = (uint32_t)RTE_MIN(r->cost, UINT32_MAX);
			(*n)++;
		} else if (own && r->cost < nh[k].cost) {
			nh[k].cost = (uint32_t)r->cost;
		}
	}
	return capture;
}

/* Recompute the FIB entry of name: its routes, and unless one of them has CAPTURE,
 * its ancestors' CHILD_INHERIT routes, nearest first, up to an ancestor with a
 * CAPTURE route (NFD's RIB: a FIB entry per RIB entry, inherited routes for faces it
 * has no route of its own to). A name without routes of its own has no entry. */
static int fib_sync(const uint8_t *name, uint16_t len)
{
	struct ndn_nexthop nh[NDN_NH_MAX];
	unsigned int n = 0;
	struct tp_ndn_name nm;

	bool capture = routes_collect(name, len, 0, nh, &n, true);
	if (n && !capture && len && tp_ndn_name_decode(name, len, &nm) == TP_NDN_E_OK)
		for (int k = (int)nm.n_comps - 1; k >= 0; k--)
			if (routes_collect(name, tp_ndn_name_prefix_len(&nm, (unsigned int)k),
					   ROUTE_CHILD_INHERIT, nh, &n, false))
				break;
	int ret = ndn_fib_set(name, len, nh, n);
	return ret == -ENOENT && n == 0 ? 0 : ret;
}

/* The routes of name changed: its FIB entry, and its descendants' (which may inherit
 * from it), recomputed. What fib_sync says of name's own. */
static int rib_changed(const uint8_t *name, uint16_t len)
{
	int ret = fib_sync(name, len);

	/* a descendant's name starts with name's components (whole TLVs) */
	for (unsigned int i = 0; i < RIB_MAX; i++) {
		const struct route *x = &rib[i];
		if (x->used && x->name_len > len && memcmp(x->name, name, len) == 0)
			fib_sync(x->name, x->name_len);
	}
	return ret;
}

/* The route (name, face, origin), or NULL. */
static struct route *rib_find(const uint8_t *name, uint16_t len, uint16_t face, uint64_t origin)
{
	uint32_t h = name_hash(name, len);

	for (uint16_t i = rib_bucket[h & (RIB_BUCKETS - 1)]; i; i = rib[i - 1].next) {
		struct route *r = &rib[i - 1];
		if (r->face == face && r->origin == origin && route_is(r, h, name, len))
			return r;
	}
	return NULL;
}

/* Take route r out of its bucket and give it back to the free list. */
static void rib_remove(struct route *r)
{
	uint16_t idx = (uint16_t)(r - rib + 1);
	uint16_t *link = &rib_bucket[r->hash & (RIB_BUCKETS - 1)];

	while (*link != idx)
		link = &rib[*link - 1].next;
	*link = r->next;
	r->used = false;
	r->next = rib_free;
	rib_free = idx;
	face_routes[r->face]--;
}

int ndn_rib_add(const uint8_t *name, uint16_t len, uint16_t face, uint64_t origin, uint64_t cost,
		uint64_t flags, int64_t expires_ms)
{
	struct route *r = rib_find(name, len, face, origin);

	if (r == NULL) {
		if (rib_free == 0)
			return -ENOSPC;
		r = &rib[rib_free - 1];
		rib_free = r->next;
		r->used = true;
		r->face = face;
		r->origin = origin;
		r->name_len = len;
		memcpy(r->name, name, len);
		r->hash = name_hash(name, len);
		r->next = rib_bucket[r->hash & (RIB_BUCKETS - 1)];
		rib_bucket[r->hash & (RIB_BUCKETS - 1)] = (uint16_t)(r - rib + 1);
		face_routes[face]++;
	}
	r->cost = cost;
	r->flags = flags;
	r->expires_ms = expires_ms >= 0 ? tp_ctl_now_ms() + (uint64_t)expires_ms : 0;
	int ret = rib_changed(name, len);
	if (ret < 0)
		rib_remove(r);
	return ret;
}

int ndn_rib_del(const uint8_t *name, uint16_t len, uint16_t face, uint64_t origin)
{
	uint32_t h = name_hash(name, len);
	bool found = false;

	for (uint16_t i = rib_bucket[h & (RIB_BUCKETS - 1)], next; i; i = next) {
		struct route *x = &rib[i - 1];
		next = x->next;
		if (route_is(x, h, name, len) && (face == UINT16_MAX || x->face == face) &&
		    (origin == UINT64_MAX || x->origin == origin)) {
			rib_remove(x);
			found = true;
		}
	}
	if (!found)
		return -ENOENT;
	return rib_changed(name, len);
}

void ndn_rib_face_gone(uint16_t face)
{
	/* most faces (on-demand ones above all) have no route: no scan */
	for (unsigned int i = 0; i < RIB_MAX && face_routes[face]; i++) {
		struct route *x = &rib[i];
		if (x->used && x->face == face) {
			rib_remove(x);
			rib_changed(x->name, x->name_len);
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
			rib_remove(x);
			rib_changed(x->name, x->name_len);
		}
	}
}
static struct tp_timer rib_timer = TP_TIMER_INIT("ndn_rib_expiry", rib_expire, NULL);

static void faces_expire(struct tp_timer *t)
{
	(void)t;
	ndn_mgmt_ctr[NDN_M_FACE_EXPIRED] += ndn_faces_expire(tp_ctl_now_ms());
}
static struct tp_timer face_timer = TP_TIMER_INIT("ndn_face_idle", faces_expire, NULL);

/* --- NFD management protocol --- */
#define T_CONTROL_PARAMETERS 0x68
#define T_FACE_ID 0x69
#define T_COST 0x6a
#define T_FLAGS 0x6c
#define T_EXPIRATION 0x6d
#define T_ORIGIN 0x6f
#define T_STRATEGY 0x6b
#define T_URI 0x72
#define T_LOCAL_URI 0x81
#define T_FACE_PERSISTENCY 0x85
#define T_CONTROL_RESPONSE 0x65
#define T_STATUS_CODE 0x66
#define T_STATUS_TEXT 0x67

struct cparams {
	const uint8_t *name;
	uint16_t name_len;
	bool has_name, has_face, has_origin, has_cost, has_flags, has_expiration;
	bool has_persistency;
	uint64_t face, origin, cost, flags, expiration, persistency;
	char uri[128], local_uri[128]; /* "": absent */
	const uint8_t *strategy;       /* strategy-choice: its Strategy's Name TLV-VALUE */
	uint16_t strategy_len;
	/* what a 200 (or 409) answer's body holds: the route, the face's properties, or
	 * the FaceId alone */
	enum { BODY_ROUTE, BODY_FACE, BODY_FACE_ID } body;
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
		case T_STRATEGY: /* Strategy: a Name */
			if (t.len < 2 || t.value[0] != TP_NDN_T_NAME)
				return -EINVAL;
			cp->strategy = t.value;
			cp->strategy_len = (uint16_t)t.len;
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
		case T_FACE_PERSISTENCY:
			dst = &cp->persistency, has = &cp->has_persistency;
			break;
		case T_URI:
		case T_LOCAL_URI: {
			char *u = t.type == T_URI ? cp->uri : cp->local_uri;
			/* none of ours is longer; an empty one is no URI */
			if (t.len == 0 || t.len >= sizeof(cp->uri) || memchr(t.value, 0, t.len))
				return -EINVAL;
			memcpy(u, t.value, t.len);
			u[t.len] = '\0';
			continue;
		}
		default:
			continue; /* what our commands do not use */
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

	if (cp && cp->body == BODY_FACE) {
		/* faces/create, 409 too: the face's properties (NFD's FaceManager's
		 * collectFaceProperties) in ControlParameters' order (NFD Management,
		 * ControlParameters): FaceId, Uri, LocalUri, Flags, FacePersistency */
		uint8_t inner[320], *q = inner;
		q = tp_ndn_nni_tlv_write(q, T_FACE_ID, cp->face);
		for (unsigned int k = 0; k < 2; k++) {
			const char *u = k ? cp->local_uri : cp->uri;
			q = tp_ndn_tl_write(q, k ? T_LOCAL_URI : T_URI, strlen(u));
			memcpy(q, u, strlen(u));
			q += strlen(u);
		}
		q = tp_ndn_nni_tlv_write(q, T_FLAGS, 0);
		q = tp_ndn_nni_tlv_write(q, T_FACE_PERSISTENCY, cp->persistency);
		b = tp_ndn_tl_write(b, T_CONTROL_PARAMETERS, (size_t)(q - inner));
		memcpy(b, inner, (size_t)(q - inner));
		b += q - inner;
	} else if (cp && cp->body == BODY_FACE_ID) { /* faces/destroy */
		uint8_t inner[16], *q = tp_ndn_nni_tlv_write(inner, T_FACE_ID, cp->face);
		b = tp_ndn_tl_write(b, T_CONTROL_PARAMETERS, (size_t)(q - inner));
		memcpy(b, inner, (size_t)(q - inner));
		b += q - inner;
	} else if (cp) {
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
	uint8_t head[32 + 256], *h = head;
	size_t tl = RTE_MIN(strlen(text), (size_t)256); /* ours; a face's error text */
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

/* /localhop/nfd: off until the operator gives a key */
static struct {
	bool enabled;
	uint8_t key[64];
	size_t key_len;
	/* per signer (the KeyLocator's name, by its keyed hash): the SignatureTime of
	 * its last command accepted, as ndn-cxx's command Interest validator keeps
	 * one per key. Only correctly signed commands add one; the least recent
	 * gives way. */
	struct {
		uint64_t signer;
		int64_t time_ms; /* 0: free */
	} last[64];
} localhop;
#define SIG_TIME_GRACE_MS 60000 /* a command's SignatureTime, at most this far from ours */

int ndn_mgmt_localhop_set(const uint8_t *key, size_t key_len)
{
	if (key == NULL) {
		memset(&localhop, 0, sizeof(localhop));
		return 0;
	}
	if (key_len < 16 || key_len > sizeof(localhop.key))
		return -EINVAL;
	memcpy(localhop.key, key, key_len);
	localhop.key_len = key_len;
	memset(localhop.last, 0, sizeof(localhop.last));
	localhop.enabled = true;
	return 0;
}

bool ndn_mgmt_localhop_enabled(void)
{
	return localhop.enabled;
}

/* The last SignatureTime accepted from the signer of in (its KeyLocator's Name; no
 * KeyLocator: one signer), a new slot (0) when it has none. */
static int64_t *signer_last(const struct tp_ndn_interest *in)
{
	const uint8_t *p = in->sig_info, *end = in->sig_info + in->sig_info_len;
	struct tp_ndn_tlv t;
	uint64_t h = 0;

	while (p < end && tp_ndn_tlv_read(&p, end, &t) == TP_NDN_E_OK)
		if (t.type == TP_NDN_T_KEY_LOCATOR)
			h = ndn_siphash(ndn_conf.siphash_key, t.value, t.len);
	unsigned int k, old = 0;
	for (k = 0; k < RTE_DIM(localhop.last); k++) {
		if (localhop.last[k].time_ms && localhop.last[k].signer == h)
			return &localhop.last[k].time_ms;
		if (localhop.last[k].time_ms < localhop.last[old].time_ms)
			old = k;
	}
	localhop.last[old].signer = h;
	localhop.last[old].time_ms = 0;
	return &localhop.last[old].time_ms;
}

static int64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A refusal: counted (in total and by reason), answered with code and text. */
static size_t refuse(uint8_t *resp, enum ndn_mgmt_ctr why, unsigned int code, const char *text)
{
	ndn_mgmt_ctr[NDN_M_REFUSED]++;
	ndn_mgmt_ctr[why]++;
	return response(resp, code, text, NULL);
}

/* Whether a requester from a non-local face may name this prefix: not "/", not the
 * scopes' own prefixes. */
static bool prefix_allowed(const uint8_t *name, uint16_t len)
{
	struct tp_ndn_name n;

	if (len == 0 || tp_ndn_name_decode(name, len, &n) != TP_NDN_E_OK || n.n_comps == 0)
		return false;
	return !comp_is(&n, 0, "localhost") && !comp_is(&n, 0, "localhop");
}

/* NFD's strategy-choice/set and unset (NFD management protocol, StrategyChoice
 * management): cp's Name and, for set, its Strategy (NFD's strategy names,
 * ndn_strategy_parse). 404 an unknown strategy, 400 unsetting "/" or a malformed
 * Strategy, 409 the table full; the response names the strategy as NFD does
 * (ndn_strategy_tlv_write: its version, asf's probing-interval when set). */
static size_t strategy_choice(bool set, const struct cparams *cp, uint8_t *resp)
{
	enum ndn_strategy st = NDN_STRATEGY_BEST_ROUTE;
	uint32_t probe = 0;
	int ret;

	if (set) {
		struct tp_ndn_name sn;
		const uint8_t *p = cp->strategy;
		struct tp_ndn_tlv t;
		char uri[512];
		if (cp->strategy == NULL ||
		    tp_ndn_tlv_read(&p, cp->strategy + cp->strategy_len, &t) != TP_NDN_E_OK ||
		    tp_ndn_name_decode(t.value, t.len, &sn) != TP_NDN_E_OK ||
		    tp_ndn_name_to_uri(&sn, uri, sizeof(uri)) < 0)
			return refuse(resp, NDN_M_MALFORMED, 400, "malformed ControlParameters");
		ret = ndn_strategy_parse(uri, &st, &probe);
		if (ret == -ENOENT)
			return refuse(resp, NDN_M_R_UNSUPPORTED, 404, "strategy not found");
		if (ret < 0)
			return refuse(resp, NDN_M_MALFORMED, 400, "bad strategy parameters");
		ret = ndn_fib_strategy_set(cp->name, cp->name_len, st, probe);
		if (ret == -ENOSPC)
			return refuse(resp, NDN_M_R_RIB_FULL, 409,
				      "the strategy choice table is full");
	} else {
		ret = ndn_fib_strategy_unset(cp->name, cp->name_len);
		if (ret == -EINVAL)
			return refuse(resp, NDN_M_MALFORMED, 400, "cannot unset root prefix");
		if (ret == -ENOENT) /* NFD: unsetting what is not set succeeds */
			ret = 0;
	}
	if (ret < 0)
		return refuse(resp, NDN_M_R_RIB_FULL, 500, "strategy choice failed");
	/* ControlResponse: ControlParameters with Name (and Strategy) */
	uint8_t inner[TP_NDN_NAME_MAX_LEN + 160], *q = inner;
	q = tp_ndn_tl_write(q, TP_NDN_T_NAME, cp->name_len);
	memcpy(q, cp->name, cp->name_len);
	q += cp->name_len;
	if (set) /* the choice's Strategy, as the strategy-choice dataset gives it */
		q += ndn_strategy_tlv_write(q, sizeof(inner) - (size_t)(q - inner), st, probe);
	uint8_t head[16], *h = head, *r;
	h = tp_ndn_nni_tlv_write(h, T_STATUS_CODE, 200);
	h = tp_ndn_tl_write(h, T_STATUS_TEXT, 2);
	*h++ = 'O';
	*h++ = 'K';
	size_t cl = (size_t)(q - inner);
	uint8_t cph[8], *c = tp_ndn_tl_write(cph, T_CONTROL_PARAMETERS, cl);
	size_t body = (size_t)(h - head) + (size_t)(c - cph) + cl;
	r = tp_ndn_tl_write(resp, T_CONTROL_RESPONSE, body);
	memcpy(r, head, (size_t)(h - head));
	r += h - head;
	memcpy(r, cph, (size_t)(c - cph));
	r += c - cph;
	memcpy(r, inner, cl);
	r += cl;
	ndn_mgmt_ctr[NDN_M_ACCEPTED]++;
	return (size_t)(r - resp);
}

/* faces/create (NFD Management, Face Management): a udp4://A.B.C.D:PORT face, or an
 * ether://[MAC] face on the port LocalUri dev://PORT names; status codes and texts as
 * NFD's FaceManager and protocol factories give them. */
static size_t face_create(struct cparams *cp, uint8_t *resp)
{
	char err[160] = "", a[24];
	int id = -1, exists = -1;

	if (cp->uri[0] == '\0')
		return refuse(resp, NDN_M_R_INVALID, 400, "failed in validating parameters");
	if (cp->has_persistency && cp->persistency == 0) /* on-demand: only a peer makes one */
		return refuse(resp, NDN_M_R_URI, 406,
			      "Outgoing faces do not support on-demand persistency");
	if (strncmp(cp->uri, "udp4://", 7) == 0) {
		const char *colon = strchr(cp->uri + 7, ':');
		uint32_t ip;
		uint64_t port;
		size_t al = colon ? (size_t)(colon - cp->uri - 7) : 0;
		if (colon == NULL) /* FaceUri's canonical form names the port */
			return refuse(resp, NDN_M_R_URI, 400, "Non-canonical remote URI");
		memcpy(a, cp->uri + 7, RTE_MIN(al, sizeof(a) - 1));
		a[RTE_MIN(al, sizeof(a) - 1)] = '\0';
		if (al >= sizeof(a) || tp_ip4_parse_addr(a, &ip) < 0 || ip == 0 ||
		    tp_parse_u64(colon + 1, 1, 65535, &port) < 0)
			return refuse(resp, NDN_M_R_URI, 400, "Malformed command");
		if (cp->local_uri[0])
			return refuse(resp, NDN_M_R_URI, 406,
				      "Unicast UDP faces cannot be created with a LocalUri");
		exists = ndn_face_find_udp(rte_cpu_to_be_32(ip), rte_cpu_to_be_16((uint16_t)port));
		if (exists < 0)
			id =
			    ndn_face_add_udp(rte_cpu_to_be_32(ip), rte_cpu_to_be_16((uint16_t)port),
					     0, false, false, err, sizeof(err));
	} else if (strncmp(cp->uri, "ether://[", 9) == 0) {
		struct rte_ether_addr mac;
		size_t ul = strlen(cp->uri);
		if (ul != 9 + 17 + 1 || cp->uri[ul - 1] != ']')
			return refuse(resp, NDN_M_R_URI, 400, "Malformed command");
		memcpy(a, cp->uri + 9, 17);
		a[17] = '\0';
		if (tp_mac_parse(a, mac.addr_bytes) < 0)
			return refuse(resp, NDN_M_R_URI, 400, "Malformed command");
		if (strncmp(cp->local_uri, "dev://", 6) != 0)
			return refuse(resp, NDN_M_R_URI, 406,
				      "Creation of unicast Ethernet faces requires a LocalUri with "
				      "dev:// scheme");
		struct tp_port *p = tp_port_by_name(cp->local_uri + 6);
		if (p == NULL)
			return refuse(resp, NDN_M_R_URI, 406, "No such port for this LocalUri");
		for (unsigned int i = 1; i < NDN_FACES_MAX && exists < 0; i++)
			if (ndn_faces[i].up && ndn_faces[i].kind == NDN_FACE_ETHER &&
			    ndn_faces[i].port == p->id &&
			    rte_is_same_ether_addr(&ndn_faces[i].remote_mac, &mac))
				exists = (int)i;
		if (exists < 0)
			id = ndn_face_add_ether(p->id, &mac, false, err, sizeof(err));
	} else {
		return refuse(resp, NDN_M_R_URI, strstr(cp->uri, "://") ? 406 : 400,
			      strstr(cp->uri, "://") ? "Unsupported protocol"
						     : "Malformed command");
	}
	if (exists < 0 && id < 0)
		return refuse(resp, NDN_M_R_FACE_FAILED, 500,
			      err[0] ? err : "face creation failed");
	cp->face = (uint64_t)(exists >= 0 ? exists : id);
	cp->body = BODY_FACE;
	cp->persistency = 1; /* persistent: as the operator's faces */
	ndn_face_uri((unsigned int)cp->face, cp->uri, sizeof(cp->uri));
	ndn_face_local_uri((unsigned int)cp->face, cp->local_uri, sizeof(cp->local_uri));
	if (exists >= 0) { /* NFD: 409 with the existing face's properties */
		ndn_mgmt_ctr[NDN_M_REFUSED]++;
		ndn_mgmt_ctr[NDN_M_R_FACE_EXISTS]++;
		return response(resp, 409, "Face with remote URI already exists", cp);
	}
	ndn_mgmt_ctr[NDN_M_ACCEPTED]++;
	return response(resp, 200, "OK", cp);
}

/* faces/destroy: as NFD's, 200 whether or not the face existed (management's own,
 * face 0, stays) */
static size_t face_destroy(struct cparams *cp, uint8_t *resp)
{
	if (!cp->has_face)
		return refuse(resp, NDN_M_R_INVALID, 400, "failed in validating parameters");
	if (cp->face != NDN_FACE_INTERNAL && cp->face < NDN_FACES_MAX)
		ndn_face_del((unsigned int)cp->face); /* and its routes */
	cp->body = BODY_FACE_ID;
	ndn_mgmt_ctr[NDN_M_ACCEPTED]++;
	return response(resp, 200, "OK", cp);
}

/* The commands, by module and verb */
enum verb { V_REGISTER, V_UNREGISTER, V_CREATE, V_DESTROY, V_SET_STRATEGY, V_UNSET_STRATEGY };
static const struct {
	const char *module, *verb;
} verbs[] = {
    [V_REGISTER] = {"rib", "register"},
    [V_UNREGISTER] = {"rib", "unregister"},
    [V_CREATE] = {"faces", "create"},
    [V_DESTROY] = {"faces", "destroy"},
    [V_SET_STRATEGY] = {"strategy-choice", "set"},
    [V_UNSET_STRATEGY] = {"strategy-choice", "unset"},
};

/* The command in Interest in (from face), answered in resp (a ControlResponse).
 * Status codes as NFD's: 200 OK, 400 malformed ControlParameters or missing what the
 * command needs, 403 not authorized (scope, signature, what a remote requester may
 * not do), 406 a face URI we cannot make, 409 the face exists, 410 no such face, 500
 * the RIB is full or the face table, 501 not a command we have. */
static size_t command(const struct tp_ndn_interest *in, uint16_t face, uint8_t *resp)
{
	const struct tp_ndn_name *n = &in->name;
	struct cparams cp;
	unsigned int v;
	int sig;

	for (v = 0; n->n_comps >= 5 && v < RTE_DIM(verbs); v++)
		if (comp_is(n, 2, verbs[v].module) && comp_is(n, 3, verbs[v].verb))
			break;
	if (n->n_comps < 5 || v == RTE_DIM(verbs))
		return refuse(resp, NDN_M_R_UNSUPPORTED, 501, "unsupported command");
	bool reg = v == V_REGISTER;
	/* /localhop/nfd is the RIB's only, as NFD's (faces, strategy-choice: /localhost) */
	if (v >= V_CREATE && !comp_is(n, 0, "localhost"))
		return refuse(resp, NDN_M_R_UNSUPPORTED, 501, "unsupported command");
	/* the FIB sends face 0 only /localhost/nfd and /localhop/nfd */
	bool trusted = comp_is(n, 0, "localhost");
	if (trusted) {
		/* NFD: /localhost is for local faces only (scope control) */
		if (!ndn_faces[face].local)
			return refuse(resp, NDN_M_R_NOT_LOCAL, 403,
				      "/localhost/nfd: not a local face");
		/* signed: an Interest v0.3 InterestSignature, or the older name
		 * components. DigestSha256 is checked; another type (an application's
		 * ECDSA, RSA, Ed25519 key) is taken unverified, as NFD's default
		 * nfd.conf does from local faces (authorize { certfile any } for faces,
		 * fib, strategy-choice; rib localhost_security trust-anchor { type any }):
		 * a local face is the operator's trust, the signature only a command's
		 * form (decision 0105) */
		sig = in->sig_info ? tp_ndn_interest_verify_digest(in)
				   : tp_ndn_command_verify_digest(n);
		if (sig == -TP_NDN_E_BAD_SIGNATURE) {
			ndn_mgmt_ctr[NDN_M_LOCAL_UNVERIFIED]++;
			sig = 1;
		}
		if (sig != 1)
			return refuse(resp, NDN_M_R_SIGNATURE, 403,
				      sig == 0 ? "bad signature" : "unsupported signature");
	} else {
		if (!localhop.enabled)
			return refuse(resp, NDN_M_R_LOCALHOP_OFF, 403,
				      "/localhop/nfd: management from remote faces is disabled");
		int64_t t, *last = NULL;
		sig = tp_ndn_interest_verify_hmac(in, localhop.key, localhop.key_len, &t);
		if (sig != 1)
			return refuse(resp, NDN_M_R_SIGNATURE, 403,
				      sig == 0 ? "bad signature"
				      : sig == -TP_NDN_E_MISSING
					  ? "not a signed Interest"
					  : "signature type: SignatureHmacWithSha256 only");
		/* NFD's command Interest validation: a SignatureTime near ours, each
		 * command's after the last one's of its signer (no replay) */
		int64_t now = wall_ms();
		if (t < 0 || t > now + SIG_TIME_GRACE_MS || t < now - SIG_TIME_GRACE_MS)
			return refuse(resp, NDN_M_R_REPLAY, 403,
				      t < 0 ? "no SignatureTime" : "SignatureTime not near ours");
		last = signer_last(in);
		if (t <= *last)
			return refuse(resp, NDN_M_R_REPLAY, 403,
				      "SignatureTime not after the signer's last");
		*last = t;
	}
	uint16_t cl;
	const uint8_t *c = tp_ndn_name_comp(n, 4, &cl);
	const uint8_t *p = c;
	struct tp_ndn_tlv comp, tl;
	if (tp_ndn_tlv_read(&p, c + cl, &comp) != TP_NDN_E_OK ||
	    (p = comp.value, tp_ndn_tlv_read(&p, comp.value + comp.len, &tl)) != TP_NDN_E_OK ||
	    tl.type != T_CONTROL_PARAMETERS || cparams_decode(tl.value, tl.len, &cp) < 0) {
		/* NFD drops a command whose ControlParameters do not decode; we say why */
		return refuse(resp, NDN_M_MALFORMED, 400, "malformed ControlParameters");
	}
	if (v == V_CREATE)
		return face_create(&cp, resp);
	if (v == V_DESTROY)
		return face_destroy(&cp, resp);
	if (!cp.has_name) /* ndn-cxx's Dispatcher, a command's parameters not valid */
		return refuse(resp, NDN_M_R_INVALID, 400, "failed in validating parameters");
	if (v == V_SET_STRATEGY || v == V_UNSET_STRATEGY)
		return strategy_choice(v == V_SET_STRATEGY, &cp, resp);
	if (!trusted) {
		/* a remote requester acts on its own face, as an application */
		if (cp.has_face && cp.face != 0 && cp.face != face)
			return refuse(resp, NDN_M_R_FACE_ID, 403,
				      "FaceId: only the requester's own");
		cp.face = face;
		if (cp.has_origin && cp.origin != 0 && cp.origin != 65)
			return refuse(resp, NDN_M_R_ORIGIN, 403,
				      "Origin: app (0) or client (65) only");
		if (!prefix_allowed(cp.name, cp.name_len))
			return refuse(resp, NDN_M_R_PREFIX, 403,
				      "Name: not /, /localhost or /localhop from a remote face");
		uint64_t max = (uint64_t)ndn_limits.expiration_max_s * 1000;
		if (reg && (!cp.has_expiration || cp.expiration > max)) {
			cp.expiration = max;
			cp.has_expiration = true;
		}
	}
	if (!cp.has_face || cp.face == 0)
		cp.face = face;
	if (cp.face >= NDN_FACES_MAX || !ndn_faces[cp.face].up)
		return refuse(resp, NDN_M_R_NO_FACE, 410, "face not found");
	if (!cp.has_origin)
		cp.origin = 0; /* app */
	if (reg) {
		if (!cp.has_cost)
			cp.cost = 0;
		if (!cp.has_flags)
			cp.flags = ROUTE_CHILD_INHERIT; /* NFD's default */
		if (!trusted && face_routes[cp.face] >= ndn_limits.face_routes &&
		    rib_find(cp.name, cp.name_len, (uint16_t)cp.face, cp.origin) == NULL)
			return refuse(resp, NDN_M_R_FACE_ROUTES, 403,
				      "too many routes on this face");
		/* a bounded period: a huge one would wrap to "never" */
		int64_t exp = cp.has_expiration
				  ? (int64_t)RTE_MIN(cp.expiration, (uint64_t)INT64_MAX / 4)
				  : (int64_t)-1;
		if (ndn_rib_add(cp.name, cp.name_len, (uint16_t)cp.face, cp.origin, cp.cost,
				cp.flags, exp) < 0)
			return refuse(resp, NDN_M_R_RIB_FULL, 500, "the RIB is full");
	} else {
		ndn_rib_del(cp.name, cp.name_len, (uint16_t)cp.face, cp.origin);
		cp.cost = 0;
		cp.flags = 0;
		cp.has_expiration = false;
	}
	ndn_mgmt_ctr[NDN_M_ACCEPTED]++;
	return response(resp, 200, "OK", &cp);
}

/* Hand m (an LpPacket or a bare packet from face) back to the input stage of the
 * forwarding context ctx. */
static void hand_back(struct rte_mbuf *m, uint16_t face, unsigned int ctx)
{
	ndn_meta(m)->face = face;
	if (ctx >= ndn_conf.n_fwd || rte_ring_mp_enqueue(ndn_fwd[ctx]->ring[3]->r, m) != 0) {
		ndn_mgmt_ctr[NDN_M_ANSWERS_LOST]++;
		rte_pktmbuf_free(m);
	}
}

/* Answer the management Interest in im (a status dataset's segment, or a command's
 * ControlResponse) with a Data from face 0, handed back to the context holding its
 * PIT entry. im stays the caller's. */
static void answer(struct rte_mbuf *im)
{
	struct tp_ndn_interest in;
	size_t used;
	const struct ndn_meta *mt = ndn_meta(im);
	static uint8_t resp[TP_NDN_NAME_MAX_LEN + 512];
	static uint8_t data[2 * TP_NDN_NAME_MAX_LEN + NDN_DATASET_SEG + 1024];

	if (tp_ndn_interest_decode(rte_pktmbuf_mtod(im, const uint8_t *), im->data_len, &in,
				   &used) != TP_NDN_E_OK ||
	    mt->tok_len != NDN_TOKEN_LEN) {
		ndn_mgmt_ctr[NDN_M_MALFORMED]++;
		return;
	}
	int dl = ndn_dataset_answer(&in, data, sizeof(data));
	if (dl < 0)
		return; /* counted */
	if (dl == 0) {
		size_t rl = command(&in, mt->face, resp);
		struct tp_ndn_data_spec ds = {
		    .name_value = in.name.value,
		    .name_len = in.name.len,
		    .content_type = -1,
		    .freshness_ms = -1,
		    .content = resp,
		    .content_len = (uint32_t)rl,
		};
		dl = tp_ndn_data_encode(data, sizeof(data), &ds);
	}
	/* a dataset's segment needs a large buffer; a ControlResponse fits a small one */
	struct rte_mempool *mp = (size_t)dl + 64 > MGMT_SMALL_ROOM ? mgmt_big_pool : mgmt_pool;
	struct rte_mbuf *m = dl > 0 ? rte_pktmbuf_alloc(mp) : NULL;
	if (m == NULL) {
		ndn_mgmt_ctr[NDN_M_ANSWERS_LOST]++;
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
		ndn_mgmt_ctr[NDN_M_ANSWERS_LOST]++;
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
	if (id < 0) {
		id = ndn_face_add_udp(src, sport, dst, false, true, err, sizeof(err));
		if (id >= 0)
			ndn_mgmt_ctr[NDN_M_FACE_CREATED]++;
	}
	if (id == -ENOSPC) {
		/* the table is full: the on-demand face idle longest goes, if it has been
		 * idle a tenth of the idle timeout (60 s by default), so that a sweep of
		 * new sources cannot push out faces in use. Its slot is free after the
		 * grace period; this packet is dropped, the peer's next one makes its face */
		uint64_t now = tp_ctl_now_ms();
		int victim = ndn_face_evictable(now, (uint64_t)ndn_limits.face_idle_s * 100);
		if (victim > 0 && ndn_face_del((unsigned int)victim) == 0)
			ndn_mgmt_ctr[NDN_M_FACE_EVICTED]++;
		else
			ndn_mgmt_ctr[NDN_M_FACE_REFUSED]++;
		/* counted; logged at most once a second */
		static uint64_t last_log_ms;
		if (last_log_ms == 0 || now - last_log_ms >= 1000) {
			last_log_ms = now;
			TP_LOG(WARNING,
			       "ndn: on-demand face: %s (%" PRIu64 " evicted, %" PRIu64
			       " refused so far)",
			       err, ndn_mgmt_ctr[NDN_M_FACE_EVICTED],
			       ndn_mgmt_ctr[NDN_M_FACE_REFUSED]);
		}
	}
	if (id < 0) {
		rte_pktmbuf_free(m);
		return;
	}
	rte_pktmbuf_adj(m, (uint16_t)(l4 + 8 - eth));
	rte_pktmbuf_trim(m, (uint16_t)(m->data_len - (udp_len - 8)));
	hand_back(m, (uint16_t)id, 0);
}

static uint64_t bucket_mtok, bucket_ms; /* thousandths of a command; when last filled */

unsigned int ndn_mgmt_poll(void)
{
	struct rte_mbuf *pkts[32];
	unsigned int n, m;

	if (!ndn_conf.enabled)
		return 0;
	unsigned int s = ndn_stream_poll();
	n = rte_ring_sc_dequeue_burst(ndn_newface_ring, (void **)pkts, RTE_DIM(pkts), NULL);
	for (unsigned int i = 0; i < n; i++)
		new_face(pkts[i]);
	m = rte_ring_sc_dequeue_burst(ndn_mgmt_ring, (void **)pkts, RTE_DIM(pkts), NULL);
	if (m == 0)
		return n + s;
	/* the token bucket: ndn_limits.mgmt_rate commands a second, mgmt_burst at once;
	 * the ones beyond are dropped (their requesters time out) */
	uint64_t now = tp_ctl_now_ms();
	uint64_t cap = (uint64_t)ndn_limits.mgmt_burst * 1000;
	bucket_mtok = RTE_MIN(cap, bucket_mtok + (now - bucket_ms) * ndn_limits.mgmt_rate);
	bucket_ms = now;
	for (unsigned int i = 0; i < m; i++) {
		if (bucket_mtok >= 1000) {
			bucket_mtok -= 1000;
			answer(pkts[i]);
		} else {
			ndn_mgmt_ctr[NDN_M_RATELIMITED]++;
		}
		rte_pktmbuf_free(pkts[i]);
	}
	return n + m + s;
}

int ndn_mgmt_init(void)
{
	static const uint8_t *const prefixes[] = {comp_localhost, comp_localhop};
	uint8_t name[32];

	rib = rte_zmalloc("ndn_rib", RIB_MAX * sizeof(*rib), 0);
	if (rib)
		for (unsigned int i = 0; i < RIB_MAX; i++)
			rib[i].next = i + 1 < RIB_MAX ? (uint16_t)(i + 2) : 0;
	rib_free = 1;
	memset(rib_bucket, 0, sizeof(rib_bucket));
	memset(face_routes, 0, sizeof(face_routes));
	bucket_ms = tp_ctl_now_ms();
	bucket_mtok = (uint64_t)ndn_limits.mgmt_burst * 1000;
	ndn_mgmt_ring = rte_ring_create("ndn_mgmt", 1024, SOCKET_ID_ANY, RING_F_SC_DEQ);
	ndn_newface_ring = rte_ring_create("ndn_newface", 1024, SOCKET_ID_ANY, RING_F_SC_DEQ);
	mgmt_pool = tp_pool_create("ndn_mgmt", 1023, 0);
	/* a whole pass's answers (32) in flight, and the CS's copies of a few */
	mgmt_big_pool =
	    rte_pktmbuf_pool_create("ndn_mgmt_big", 127, 0, TP_MBUF_PRIV_SIZE,
				    RTE_PKTMBUF_HEADROOM + MGMT_BIG_ROOM, SOCKET_ID_ANY);
	if (!rib || !ndn_mgmt_ring || !ndn_newface_ring || !mgmt_pool || !mgmt_big_pool)
		return -ENOMEM;
	ndn_dataset_reset();
	/* the management prefixes go to the internal face */
	for (unsigned int i = 0; i < RTE_DIM(prefixes); i++) {
		size_t l = prefixes[i][1] + 2u;
		memcpy(name, prefixes[i], l);
		memcpy(name + l, comp_nfd, sizeof(comp_nfd));
		/* CAPTURE: management's own, never another face's inherited from "/" */
		int ret = ndn_rib_add(name, (uint16_t)(l + sizeof(comp_nfd)), NDN_FACE_INTERNAL, 0,
				      0, ROUTE_CAPTURE, -1);
		if (ret < 0)
			return ret;
	}
	tp_timer_every(&rib_timer, 1000);
	tp_timer_every(&face_timer, 250);
	return 0;
}
