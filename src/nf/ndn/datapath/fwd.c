/* SPDX-License-Identifier: BSD-3-Clause */
/* The forwarding stage (NFD's forwarding pipelines, NDN-DPDK's tables): Interests
 * through the CS, the PIT and the FIB's strategy; Data back along the PIT's
 * in-records and into the CS; Nacks to the strategy, then downstream. */
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_random.h>

#include "../../../core/tp.h"
#include "../ndn.h"

/* NFD's RetxSuppressionExponential (best-route's): a retransmission within the
 * interval since the entry's last Interest out is not forwarded; the interval starts
 * at 10 ms and doubles with each one forwarded, to 250 ms */
#define RETX_SUPPRESS_MS 10
#define RETX_SUPPRESS_MAX_MS 250
#define RETX_SHIFT_MAX 5 /* 10 << 5 > 250 */

static inline uint64_t retx_interval_ms(uint8_t shift)
{
	return RTE_MIN((uint64_t)RETX_SUPPRESS_MS << shift, (uint64_t)RETX_SUPPRESS_MAX_MS);
}

static const uint8_t localhost_comp[] = {
    TP_NDN_T_GENERIC, 9, 'l', 'o', 'c', 'a', 'l', 'h', 'o', 's', 't'};
static const uint8_t localhop_comp[] = {
    TP_NDN_T_GENERIC, 8, 'l', 'o', 'c', 'a', 'l', 'h', 'o', 'p'};

static inline uint64_t ms_to_tsc(uint64_t ms)
{
	return ms * (tp.tsc_hz / 1000);
}

static inline void make_token(const struct ndn_fwd *f, uint32_t idx, uint8_t tok[NDN_TOKEN_LEN])
{
	uint32_t gen = f->pit[idx].gen;

	tok[0] = (uint8_t)f->idx;
	tok[1] = (uint8_t)(gen >> 16);
	tok[2] = (uint8_t)(gen >> 8);
	tok[3] = (uint8_t)gen;
	memcpy(tok + 4, &idx, 4);
}

/* The PIT entry our token names, or 0. */
static inline uint32_t token_pit(const struct ndn_fwd *f, const struct ndn_meta *mt)
{
	uint32_t idx;

	if (mt->tok_len != NDN_TOKEN_LEN || mt->tok[0] != f->idx)
		return 0;
	memcpy(&idx, mt->tok + 4, 4);
	uint32_t gen = (uint32_t)mt->tok[1] << 16 | (uint32_t)mt->tok[2] << 8 | mt->tok[3];
	if (idx == 0 || idx > f->pit_cap || f->pit[idx].pcc == 0 || f->pit[idx].gen != gen)
		return 0;
	return idx;
}

/* Whether the name's first component is comp (len bytes, its TLV); false for "/". */
static inline bool first_comp_is(const struct tp_ndn_name *n, const uint8_t *comp, uint16_t len)
{
	uint16_t l;

	if (n->n_comps == 0)
		return false;
	const uint8_t *c = tp_ndn_name_comp(n, 0, &l);
	return l == len && tp_ndn_bytes_eq(c, comp, len);
}

static inline bool is_localhost(const struct tp_ndn_name *n)
{
	return first_comp_is(n, localhost_comp, sizeof(localhost_comp));
}

static inline bool is_localhop(const struct tp_ndn_name *n)
{
	return first_comp_is(n, localhop_comp, sizeof(localhop_comp));
}

/* The hash of the whole name (its PCCT key's): hashes[] as ndn_name_hashes gives
 * them. The forwarding stage drops names without a component before it asks. */
static inline uint32_t name_hash(const struct tp_ndn_name *n, const uint32_t *hashes)
{
	return n->n_comps ? hashes[n->n_comps - 1] : 0;
}

/* NFD's scope control (Strategy::wouldViolateScope): a /localhost Interest goes to
 * local faces only; a /localhop one from a non-local downstream (from_non_local)
 * goes to local faces only. 0 when out may have it, else the counter of the rule. */
static inline unsigned int scope_refuses(const struct tp_ndn_name *n, bool from_non_local,
					 uint16_t out)
{
	if (ndn_faces[out].local)
		return 0;
	if (is_localhost(n))
		return NDN_C_LOCALHOST_HOP;
	return from_non_local && is_localhop(n) ? NDN_C_LOCALHOP_HOP : 0;
}

/* Whether a live in-record of entry p is from a non-local face. */
static inline bool from_non_local(const struct ndn_pit *p, uint64_t now)
{
	for (unsigned int i = 0; i < p->n_in; i++)
		if (p->in[i].expiry > now && !ndn_faces[p->in[i].face].local)
			return true;
	return false;
}

/* A copy of m for one more recipient, or NULL (counted). */
static inline struct rte_mbuf *dup(struct tp_worker *w, struct rte_mbuf *m)
{
	struct rte_mbuf *c = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);

	if (c == NULL)
		tp_count(w, m->port, NDN_CTR(NDN_C_NOMBUF));
	else
		*ndn_meta(c) = *ndn_meta(m);
	return c;
}

/* Send Interest m to hop face of entry idx: out-record, token, HopLimit. */
static void send_interest(struct tp_worker *w, struct ndn_fwd *f, uint32_t idx, struct rte_mbuf *m,
			  const struct tp_ndn_interest *in, uint16_t face)
{
	struct ndn_pit *p = &f->pit[idx];
	struct ndn_pit_out *o = NULL;
	uint8_t tok[TP_NDN_PIT_TOKEN_MAX]; /* whole: the output stage copies it so */

	for (unsigned int i = 0; i < p->n_out; i++)
		if (p->out[i].face == face)
			o = &p->out[i];
	if (o == NULL) {
		if (p->n_out < NDN_PIT_OUT_MAX) {
			o = &p->out[p->n_out++];
		} else { /* the oldest gives way */
			o = &p->out[0];
			for (unsigned int i = 1; i < p->n_out; i++)
				if (p->out[i].last_tx < o->last_tx)
					o = &p->out[i];
		}
	}
	o->face = face;
	o->nonce = in->nonce;
	o->hop = in->has_hop_limit ? (uint8_t)(in->hop_limit + 1) : 0;
	o->last_tx = w->now;
	o->nacked = 0;
	make_token(f, idx, tok);
	ndn_out(w, face, m, tok, NDN_TOKEN_LEN, 0, NDN_FC_TX_INTEREST);
}

/* Hop limit in place: m's bytes, where the decoder found it */
static inline void hop_decrement(struct rte_mbuf *m, struct tp_ndn_interest *in)
{
	if (in->has_hop_limit && in->hop_limit > 0) {
		in->hop_limit--;
		*(uint8_t *)(uintptr_t)in->hop_limit_pos = in->hop_limit;
	}
	(void)m;
}

/* 3 (Nonce): an Interest without a Nonce gets a random one before it is forwarded,
 * as NFD gives it one: the PIT's loop detection and the matching of Nacks need it
 * (N2). m grows by a few bytes in front; in is decoded again. false: m dropped
 * (counted). */
static bool add_nonce(struct tp_worker *w, struct rte_mbuf *m, struct tp_ndn_interest *in)
{
	size_t used;

	if (unlikely(rte_pktmbuf_headroom(m) < TP_NDN_NONCE_GROW || !RTE_MBUF_DIRECT(m) ||
		     rte_mbuf_refcnt_read(m) != 1)) {
		tp_drop(w, m, NDN_CTR(NDN_C_NOMBUF));
		return false;
	}
	int g = tp_ndn_interest_add_nonce(rte_pktmbuf_mtod(m, uint8_t *), m->data_len, in,
					  (uint32_t)rte_rand());
	if (unlikely(g < 0 || rte_pktmbuf_prepend(m, (uint16_t)g) == NULL ||
		     tp_ndn_interest_decode_fwd(rte_pktmbuf_mtod(m, const uint8_t *), m->data_len,
						in, &used) != TP_NDN_E_OK ||
		     !in->has_nonce)) {
		tp_drop(w, m, NDN_CTR(NDN_C_DECODE));
		return false;
	}
	tp_count(w, m->port, NDN_CTR(NDN_C_NONCE_ADDED));
	return true;
}

/* The FIB entry for Interest in from face: by its ForwardingHint when it has one (NDN
 * packet format v0.3 5.2.5; as NDN-DPDK's FwFwd_InterestLookupFib): each of its first
 * NDN_FWD_HINTS_MAX names in order, the first whose longest match has a next hop other
 * than face, and none is no route (the Interest's own name is not tried); else by
 * the Interest's name. NULL: no route. */
#define NDN_FWD_HINTS_MAX 4 /* NDN-DPDK's PInterestMaxFwHints */
static const struct ndn_fib_entry *lookup_fib(const struct tp_ndn_interest *in,
					      const uint32_t *hashes, uint16_t face)
{
	if (in->fwd_hint == NULL)
		return ndn_fib_lpm(&in->name, hashes);
	const uint8_t *p = in->fwd_hint, *end = in->fwd_hint + in->fwd_hint_len;
	for (unsigned int k = 0; k < NDN_FWD_HINTS_MAX && p < end; k++) {
		struct tp_ndn_tlv t;
		struct tp_ndn_name hint;
		uint32_t hh[TP_NDN_NAME_MAX_COMPS];
		if (tp_ndn_tlv_read(&p, end, &t) != TP_NDN_E_OK)
			return NULL;
		if (t.type != TP_NDN_T_NAME ||
		    tp_ndn_name_decode(t.value, t.len, &hint) != TP_NDN_E_OK)
			continue;
		ndn_name_hashes(&hint, hh);
		const struct ndn_fib_entry *e = ndn_fib_lpm(&hint, hh);
		for (unsigned int i = 0; e && i < e->n_nh; i++)
			if (e->nh[i].face != face)
				return e;
	}
	return NULL;
}

static void nack_down(struct tp_worker *w, struct rte_mbuf *m, uint16_t face, uint8_t reason)
{
	struct ndn_meta *mt = ndn_meta(m);

	ndn_out(w, face, m, mt->tok, mt->tok_len, reason, NDN_FC_TX_NACK);
}

/* NFD's Interest loop pipeline: a Nack Duplicate back on a point-to-point face; on a
 * multi-access one (an Ethernet group) the Interest is dropped (interest_loop_dropped)
 * since its other members would hear the Nack. Consumes m. */
static void interest_loop(struct tp_worker *w, struct ndn_fwd *f, struct rte_mbuf *m, uint16_t face)
{
	const struct ndn_face *fc = &ndn_faces[face];

	if (fc->kind == NDN_FACE_ETHER && rte_is_multicast_ether_addr(&fc->remote_mac)) {
		tp_drop(w, m, NDN_CTR(NDN_C_LOOP_DROPPED));
		return;
	}
	f->st.nack_duplicate++;
	nack_down(w, m, face, TP_NDN_NACK_DUPLICATE);
}

/* ASF's measurements of entry e (reset when the id holds another prefix now) and of
 * one of its faces (a slot taken for it when it has none). */
static inline struct ndn_asf *asf_of(struct ndn_fwd *f, const struct ndn_fib_entry *e)
{
	struct ndn_asf *a = &f->asf[e->id];

	if (a->hash != e->hash || !a->valid) {
		memset(a, 0, sizeof(*a));
		a->hash = e->hash;
		a->valid = 1;
		for (unsigned int i = 0; i < e->n_nh; i++)
			a->m[i].face = e->nh[i].face;
	}
	return a;
}

static inline struct ndn_asf_face *asf_face(struct ndn_asf *a, uint16_t face, unsigned int i)
{
	for (unsigned int k = 0; k < NDN_NH_MAX; k++)
		if (a->m[k].face == face)
			return &a->m[k];
	/* a next hop the FIB entry gained: its index's slot, measured afresh */
	a->m[i] = (struct ndn_asf_face){.face = face};
	return &a->m[i];
}

/* NFD's asf ranking: faces answering (by smoothed RTT), then faces never measured (by
 * cost), then faces that timed out; a smaller rank is better. */
static inline uint64_t asf_rank(struct ndn_asf *a, uint16_t face, unsigned int i)
{
	const struct ndn_asf_face *m = asf_face(a, face, i);

	if (m->timeouts)
		return 2ull << 40 | (uint64_t)m->timeouts << 8 | i;
	if (m->srtt_us == 0)
		return 1ull << 40 | i;
	return (uint64_t)m->srtt_us << 8 | i;
}

static void ndn_fwd_interest_do(struct tp_worker *w, struct ndn_fwd *f, struct rte_mbuf *m,
				struct tp_ndn_interest *in, const uint32_t *given)
{
	struct ndn_meta *mt = ndn_meta(m);
	uint16_t face = mt->face;
	uint64_t now = w->now;
	uint32_t own[TP_NDN_NAME_MAX_COMPS];
	const uint32_t *hashes = given;

	f->st.interests++;
	if (unlikely(in->has_hop_limit && in->hop_limit == 0)) {
		tp_drop(w, m, NDN_CTR(NDN_C_HOP_LIMIT));
		return;
	}
	if (unlikely(in->name.n_comps == 0)) { /* the decoder refuses it (3) */
		tp_drop(w, m, NDN_CTR(NDN_C_DECODE));
		return;
	}
	if (unlikely(is_localhost(&in->name) && !ndn_faces[face].local)) {
		tp_drop(w, m, NDN_CTR(NDN_C_LOCALHOST));
		return;
	}
	if (unlikely(!in->has_nonce) && !add_nonce(w, m, in))
		return;
	const uint8_t *key = in->name.value;
	uint16_t len = in->name.len;
	if (hashes == NULL) {
		ndn_name_hashes(&in->name, own);
		hashes = own;
	}
	uint32_t h = name_hash(&in->name, hashes);
	/* NFD's incoming Interest pipeline: a Nonce the Dead Nonce List holds for this
	 * name is a loop, whatever the PIT holds now */
	if (unlikely(now < f->dnl.live_until) && ndn_dnl_has(f, h, in->nonce, now)) {
		f->st.dnl_loops++;
		interest_loop(w, f, m, face);
		return;
	}
	uint32_t pcc = ndn_pcc_find(f, key, len, h);

	/* the CS: a Data of this name, or, for CanBePrefix, one this name is a prefix of */
	if (f->cs_cap) {
		uint32_t cs = 0;
		if (pcc) {
			const struct ndn_pcc *e = &f->pcc[pcc];
			cs = e->cs ? e->cs : (in->can_be_prefix ? e->cs_ind : 0);
		}
		if (cs && (!in->must_be_fresh || f->cs[cs].fresh_until > now)) {
			struct rte_mbuf *d = rte_pktmbuf_copy(f->cs[cs].m, m->pool, 0, UINT32_MAX);
			f->st.cs_hits++;
			ndn_cs_touch(f, cs);
			if (d == NULL) {
				tp_drop(w, m, NDN_CTR(NDN_C_NOMBUF));
				return;
			}
			d->port = m->port;
			ndn_out(w, face, d, mt->tok, mt->tok_len, 0, NDN_FC_TX_DATA);
			rte_pktmbuf_free(m);
			return;
		}
		f->st.cs_misses++;
	}

	/* the PIT. A new entry is charged to the face that asks, which may hold at most
	 * pit_face_max of the context's entries; beyond, the face gets a Nack
	 * Congestion (NDNLPv2 Nack, reason 50) so that its consumers back off instead
	 * of waiting out their lifetimes, and the other faces keep their share */
	uint8_t slot = (uint8_t)(in->can_be_prefix | in->must_be_fresh << 1);
	if ((pcc == 0 || f->pcc[pcc].pit[slot] == 0) &&
	    unlikely(f->pit_by_face[face] >= f->pit_face_max)) {
		tp_count(w, m->port, NDN_CTR(NDN_C_PIT_FACE_QUOTA));
		nack_down(w, m, face, TP_NDN_NACK_CONGESTION);
		return;
	}
	if (pcc == 0 && (pcc = ndn_pcc_insert(f, key, len, in->name.n_comps, h)) == 0) {
		tp_drop(w, m, NDN_CTR(NDN_C_PIT_FULL));
		return;
	}
	uint32_t idx = f->pcc[pcc].pit[slot];
	bool fresh = idx == 0;
	if (fresh && (idx = ndn_pit_alloc(f, pcc, slot)) == 0) {
		ndn_pcc_release(f, pcc);
		tp_drop(w, m, NDN_CTR(NDN_C_PIT_FULL));
		return;
	}
	struct ndn_pit *p = &f->pit[idx];
	if (fresh) {
		p->owner = face;
		f->pit_by_face[face]++;
	}
	struct ndn_pit_in *ir = NULL;
	for (unsigned int i = 0; i < p->n_in; i++) {
		if (p->in[i].face == face)
			ir = &p->in[i];
		else if (p->in[i].nonce == in->nonce && p->in[i].expiry > now)
			goto duplicate;
	}
	for (unsigned int i = 0; i < p->n_out; i++)
		if (p->out[i].nonce == in->nonce && p->out[i].face != face)
			goto duplicate;
	bool retx = ir != NULL;
	if (ir == NULL) {
		if (p->n_in < NDN_PIT_IN_MAX) {
			ir = &p->in[p->n_in++];
		} else {
			for (unsigned int i = 0; i < p->n_in; i++)
				if (p->in[i].expiry <= now)
					ir = &p->in[i];
			if (ir == NULL) {
				tp_drop(w, m, NDN_CTR(NDN_C_IN_RECORDS_FULL));
				return;
			}
		}
		ir->face = face;
	}
	ir->nonce = in->nonce;
	ir->expiry = now + ms_to_tsc(RTE_MIN(in->lifetime_ms, ndn_limits.lifetime_max_ms));
	ir->tok_len = mt->tok_len;
	memcpy(ir->tok, mt->tok, sizeof(ir->tok)); /* whole: a fixed-size copy */
	uint64_t expiry = 0;
	for (unsigned int i = 0; i < p->n_in; i++)
		expiry = RTE_MAX(expiry, p->in[i].expiry);
	ndn_pit_arm(f, idx, expiry);

	bool pending = false; /* an out-record not Nacked yet */
	if (!fresh) {
		if (!retx) { /* another downstream: wait for what the upstream sends */
			tp_count(w, m->port, NDN_CTR(NDN_C_AGGREGATED));
			rte_pktmbuf_free(m);
			return;
		}
		uint64_t last = 0;
		for (unsigned int i = 0; i < p->n_out; i++)
			if (p->out[i].nacked == 0) {
				pending = true;
				last = RTE_MAX(last, p->out[i].last_tx);
			}
		if (pending) { /* decidePerPitEntry: none pending is a new Interest */
			if (now < last + ms_to_tsc(retx_interval_ms(p->retx_shift))) {
				tp_drop(w, m, NDN_CTR(NDN_C_SUPPRESSED));
				return;
			}
			if (p->retx_shift < RETX_SHIFT_MAX)
				p->retx_shift++;
			f->st.retx_forwarded++;
		}
	}

	/* the FIB and the strategy */
	const struct ndn_fib_entry *e = lookup_fib(in, hashes, face);
	uint16_t hops[NDN_NH_MAX + 1];
	unsigned int n_hops = 0;
	if (e) {
		bool non_local = from_non_local(p, now);
		/* a HopLimit of 1 is 0 once decremented: local faces only (NFD's outgoing
		 * Interest pipeline, nOutHopLimitZero) */
		bool last_hop = in->has_hop_limit && in->hop_limit <= 1;
		uint8_t elig[NDN_NH_MAX]; /* eligible next hops' indexes, by cost */
		unsigned int n_elig = 0;
		p->fib_id = e->id;
		p->strategy = e->strategy;
		ndn_lcore(w)->fib[e->id].interests++;
		for (unsigned int i = 0; i < e->n_nh; i++) {
			uint16_t nh = e->nh[i].face;
			if (nh == face)
				continue;
			unsigned int refused = scope_refuses(&in->name, non_local, nh);
			if (unlikely(refused)) {
				tp_count(w, m->port, NDN_CTR(refused));
				continue;
			}
			if (unlikely(last_hop && !ndn_faces[nh].local)) {
				tp_count(w, m->port, NDN_CTR(NDN_C_HOP_LIMIT_OUT));
				continue;
			}
			elig[n_elig++] = (uint8_t)i;
			/* best-route's new Interest: the cheapest, and no more looked at */
			if (e->strategy == NDN_STRATEGY_BEST_ROUTE && !pending)
				break;
		}
		if (e->strategy == NDN_STRATEGY_MULTICAST) {
			for (unsigned int k = 0; k < n_elig; k++)
				hops[n_hops++] = e->nh[elig[k]].face;
		} else if (n_elig) {
			unsigned int best = 0;
			struct ndn_asf *a = NULL;
			if (e->strategy == NDN_STRATEGY_ASF) { /* the best ranked first */
				a = asf_of(f, e);
				uint64_t r = UINT64_MAX;
				for (unsigned int k = 0; k < n_elig; k++) {
					uint64_t rk = asf_rank(a, e->nh[elig[k]].face, elig[k]);
					if (rk < r) {
						r = rk;
						best = k;
					}
				}
			}
			if (pending) {
				/* a retransmission (NFD's best-route): the first eligible
				 * hop not used yet, else the one used longest ago */
				uint64_t oldest = UINT64_MAX;
				unsigned int pick = best;
				bool unused_found = false;
				for (unsigned int j = 0; j < n_elig && !unused_found; j++) {
					unsigned int k = (best + j) % n_elig;
					uint16_t nh = e->nh[elig[k]].face;
					const struct ndn_pit_out *o = NULL;
					for (unsigned int q = 0; q < p->n_out; q++)
						if (p->out[q].face == nh)
							o = &p->out[q];
					if (o == NULL) {
						pick = k;
						unused_found = true;
					} else if (o->last_tx < oldest) {
						oldest = o->last_tx;
						pick = k;
					}
				}
				best = pick;
			}
			hops[n_hops++] = e->nh[elig[best]].face;
			p->tried |= (uint8_t)(1u << elig[best]);
			/* asf probes another next hop once per probing interval, a new
			 * Interest's copy, round the FIB's order (NFD's asf probing) */
			if (a && fresh && n_elig > 1 && now >= a->next_probe) {
				unsigned int k = a->probe_next % n_elig;
				if (k == best)
					k = (k + 1) % n_elig;
				a->probe_next = (uint16_t)(k + 1);
				a->next_probe = now + ms_to_tsc(e->probe_ms);
				hops[n_hops++] = e->nh[elig[k]].face;
				p->tried |= (uint8_t)(1u << elig[k]);
				f->st.asf_probes++;
			}
		}
	}
	if (n_hops == 0) {
		f->st.nack_noroute++;
		if (fresh)
			ndn_pit_free(f, idx);
		nack_down(w, m, face, TP_NDN_NACK_NO_ROUTE);
		return;
	}
	hop_decrement(m, in);
	for (unsigned int i = 0; i + 1 < n_hops; i++) {
		struct rte_mbuf *c = dup(w, m);
		if (c)
			send_interest(w, f, idx, c, in, hops[i]);
	}
	send_interest(w, f, idx, m, in, hops[n_hops - 1]);
	return;

duplicate:
	if (fresh)
		ndn_pit_free(f, idx);
	interest_loop(w, f, m, face);
}

/* Whether the Data (name d) satisfies PIT entry idx, found by its token. */
static bool data_matches(const struct ndn_fwd *f, uint32_t idx, const struct tp_ndn_name *d)
{
	const struct ndn_pit *p = &f->pit[idx];
	const struct ndn_pcc *e = &f->pcc[p->pcc];
	const uint8_t *key = ndn_pcc_key(f, e);

	if (e->key_len == d->len)
		return tp_ndn_bytes_eq(key, d->value, d->len);
	if (e->key_len < d->len) /* a prefix, for CanBePrefix, on a component boundary */
		return (p->slot & 1) && e->n_comps <= d->n_comps &&
		       tp_ndn_name_prefix_len(d, e->n_comps) == e->key_len &&
		       tp_ndn_bytes_eq(key, d->value, e->key_len);
	/* one more component: the Data's implicit digest, checked by the caller */
	return e->n_comps == d->n_comps + 1 && tp_ndn_bytes_eq(key, d->value, d->len) &&
	       key[d->len] == TP_NDN_T_IMPLICIT_DIGEST;
}

#define CANDS_MAX 8

/* asf: the RTT of the Data that came from face for entry p (its out-record's last
 * Interest), into the face's smoothed RTT (RFC 6298 2.3's alpha, 1/8) */
static void asf_measure(struct ndn_fwd *f, const struct ndn_pit *p, uint16_t face, uint64_t now)
{
	struct ndn_asf *a;

	if (p->fib_id >= NDN_FIB_MAX || !(a = &f->asf[p->fib_id])->valid)
		return;
	for (unsigned int i = 0; i < p->n_out; i++) {
		if (p->out[i].face != face)
			continue;
		uint64_t us = (now - p->out[i].last_tx) * 1000000 / tp.tsc_hz;
		uint32_t rtt =
		    (uint32_t)RTE_MAX(RTE_MIN(us, (uint64_t)UINT32_MAX / 8), (uint64_t)1);
		struct ndn_asf_face *m = asf_face(a, face, i);
		m->srtt_us = m->srtt_us ? (7 * m->srtt_us + rtt) / 8 : rtt;
		m->timeouts = 0;
	}
}

static void ndn_fwd_data_do(struct tp_worker *w, struct ndn_fwd *f, struct rte_mbuf *m,
			    struct tp_ndn_data *d)
{
	struct ndn_meta *mt = ndn_meta(m);
	uint64_t now = w->now;
	uint32_t hashes[TP_NDN_NAME_MAX_COMPS];
	uint32_t cand[CANDS_MAX];
	unsigned int nc = 0;

	bool hashed = false;
	uint32_t dpcc = 0;

	f->st.data++;
	/* 4: a Data may have an empty name, but no Interest has one (3): none can match
	 * (N1) */
	if (unlikely(d->name.n_comps == 0)) {
		tp_drop(w, m, NDN_CTR(NDN_C_DATA_EMPTY_NAME));
		return;
	}
	/* NFD's scope control: /localhost Data only from local faces */
	if (unlikely(is_localhost(&d->name) && !ndn_faces[mt->face].local)) {
		tp_drop(w, m, NDN_CTR(NDN_C_LOCALHOST_DATA));
		return;
	}
	uint32_t idx = token_pit(f, mt);
	if (idx && data_matches(f, idx, &d->name)) {
		const struct ndn_pcc *e = &f->pcc[f->pit[idx].pcc];
		if (e->key_len > d->name.len) { /* the implicit digest */
			uint8_t dg[32];
			tp_ndn_data_implicit_digest(d, dg);
			if (memcmp(ndn_pcc_key(f, e) + e->key_len - 32, dg, 32) == 0)
				cand[nc++] = idx;
		} else {
			cand[nc++] = idx;
			if (e->key_len == d->name.len) /* the entry of exactly this name */
				dpcc = f->pit[idx].pcc;
		}
	}
	/* entries of exactly this name, whatever their flags: found by the token's
	 * entry, else by the name */
	if (dpcc == 0) {
		ndn_name_hashes(&d->name, hashes);
		hashed = true;
		dpcc = ndn_pcc_find(f, d->name.value, d->name.len, name_hash(&d->name, hashes));
	}
	if (dpcc)
		for (unsigned int s = 0; s < 4; s++) {
			uint32_t i = f->pcc[dpcc].pit[s];
			if (i && (nc == 0 || cand[0] != i))
				cand[nc++] = i;
		}
	/* without our token (a producer that does not echo it): CanBePrefix entries
	 * of the name's prefixes */
	if (mt->tok_len != NDN_TOKEN_LEN && !hashed) {
		ndn_name_hashes(&d->name, hashes);
		hashed = true;
	}
	if (mt->tok_len != NDN_TOKEN_LEN)
		for (unsigned int k = d->name.n_comps; k-- > 1 && nc < CANDS_MAX - 2;) {
			uint32_t pc = ndn_pcc_find(
			    f, d->name.value, tp_ndn_name_prefix_len(&d->name, k), hashes[k - 1]);
			if (pc == 0)
				continue;
			for (unsigned int s = 1; s < 4; s += 2)
				if (f->pcc[pc].pit[s] && nc < CANDS_MAX)
					cand[nc++] = f->pcc[pc].pit[s];
		}
	if (nc == 0) {
		f->st.unsolicited++;
		tp_drop(w, m, NDN_CTR(NDN_C_UNSOLICITED));
		return;
	}

	/* the CS keeps a copy, under the Data's name, and the CanBePrefix entries'
	 * names point to it */
	if (f->cs_cap) {
		if (dpcc == 0 && !hashed)
			ndn_name_hashes(&d->name, hashes);
		if (dpcc == 0)
			dpcc = ndn_pcc_insert(f, d->name.value, d->name.len, d->name.n_comps,
					      name_hash(&d->name, hashes));
		if (dpcc) {
			uint64_t fresh = d->has_freshness ? now + ms_to_tsc(d->freshness_ms) : 0;
			f->pcc[dpcc].in_use = 2; /* kept while the PIT entries go */
			uint32_t cs = ndn_cs_insert(f, dpcc, m, fresh);
			if (cs)
				for (unsigned int i = 0; i < nc; i++)
					if (f->pit[cand[i]].pcc != dpcc &&
					    (f->pit[cand[i]].slot & 1))
						ndn_cs_link_indirect(f, f->pit[cand[i]].pcc, cs);
		}
	}

	/* the downstreams: one copy per face, with the token it gave */
	struct {
		uint16_t face;
		uint8_t tok_len;
		const uint8_t *tok;
	} down[CANDS_MAX * NDN_PIT_IN_MAX];
	struct ndn_pit_in saved[CANDS_MAX * NDN_PIT_IN_MAX];
	unsigned int nd = 0;
	for (unsigned int c = 0; c < nc; c++) {
		struct ndn_pit *p = &f->pit[cand[c]];
		for (unsigned int i = 0; i < p->n_in; i++) {
			if (p->in[i].expiry <= now || p->in[i].face == mt->face)
				continue;
			bool seen = false;
			for (unsigned int j = 0; j < nd; j++)
				seen |= down[j].face == p->in[i].face;
			if (seen)
				continue;
			saved[nd] = p->in[i];
			down[nd].face = saved[nd].face;
			down[nd].tok_len = saved[nd].tok_len;
			down[nd].tok = saved[nd].tok;
			nd++;
		}
		if (p->fib_id != UINT32_MAX)
			ndn_lcore(w)->fib[p->fib_id].data++;
		if (unlikely(p->strategy == NDN_STRATEGY_ASF))
			asf_measure(f, p, mt->face, now);
		/* NFD's insertDeadNonceList, satisfied: only a MustBeFresh entry whose Data
		 * is fresh for less than the list's lifetime (the same Interest may come
		 * back and not be answered from the CS) */
		if ((p->slot & 2) && (!d->has_freshness || d->freshness_ms < NDN_DNL_LIFETIME_MS))
			ndn_dnl_add_pit(f, cand[c], now);
		ndn_pit_free(f, cand[c]);
		f->st.pit_satisfied++;
	}
	if (dpcc && f->cs_cap) {
		f->pcc[dpcc].in_use = 1;
		ndn_pcc_release(f, dpcc);
	}
	if (nd == 0) {
		rte_pktmbuf_free(m);
		return;
	}
	for (unsigned int j = 0; j + 1 < nd; j++) {
		struct rte_mbuf *c = dup(w, m);
		if (c)
			ndn_out(w, down[j].face, c, down[j].tok, down[j].tok_len, 0,
				NDN_FC_TX_DATA);
	}
	ndn_out(w, down[nd - 1].face, m, down[nd - 1].tok, down[nd - 1].tok_len, 0, NDN_FC_TX_DATA);
}

static inline unsigned int severity(uint8_t reason)
{
	/* NFD: the least severe of the upstreams' reasons goes downstream */
	return reason == TP_NDN_NACK_CONGESTION	 ? 1
	       : reason == TP_NDN_NACK_DUPLICATE ? 2
	       : reason == TP_NDN_NACK_NO_ROUTE	 ? 3
						 : 4;
}

static void ndn_fwd_nack_do(struct tp_worker *w, struct ndn_fwd *f, struct rte_mbuf *m,
			    struct tp_ndn_interest *in)
{
	struct ndn_meta *mt = ndn_meta(m);
	uint64_t now = w->now;
	uint32_t idx = token_pit(f, mt);

	f->st.nacks++;
	/* every Interest we forward has a Nonce, and a Nack names its Interest by it
	 * (NDNLPv2 Nack; NFD drops a Nack whose Nonce is not its out-record's) */
	if (unlikely(!in->has_nonce)) {
		tp_drop(w, m, NDN_CTR(NDN_C_NACK_NO_NONCE));
		return;
	}
	if (unlikely(in->name.n_comps == 0)) {
		tp_drop(w, m, NDN_CTR(NDN_C_DECODE));
		return;
	}
	uint32_t hashes[TP_NDN_NAME_MAX_COMPS];
	ndn_name_hashes(&in->name, hashes);
	if (idx == 0) {
		uint32_t pcc =
		    ndn_pcc_find(f, in->name.value, in->name.len, name_hash(&in->name, hashes));
		if (pcc)
			idx = f->pcc[pcc].pit[in->can_be_prefix | in->must_be_fresh << 1];
	}
	struct ndn_pit *p = idx ? &f->pit[idx] : NULL;
	/* the Interest in the Nack is the one the entry sent: its name, CanBePrefix and
	 * MustBeFresh (N11: its name chose the next hop, and went downstream) */
	if (p) {
		const struct ndn_pcc *pe = &f->pcc[p->pcc];
		if (unlikely(pe->key_len != in->name.len ||
			     !tp_ndn_bytes_eq(ndn_pcc_key(f, pe), in->name.value, in->name.len) ||
			     p->slot != (in->can_be_prefix | in->must_be_fresh << 1))) {
			tp_drop(w, m, NDN_CTR(NDN_C_NACK_MISMATCH));
			return;
		}
	}
	struct ndn_pit_out *o = NULL;
	for (unsigned int i = 0; p && i < p->n_out; i++)
		if (p->out[i].face == mt->face && p->out[i].nonce == in->nonce)
			o = &p->out[i];
	if (o == NULL) {
		tp_drop(w, m, NDN_CTR(NDN_C_NACK_UNSOLICITED));
		return;
	}
	/* and the HopLimit it had: the upstream's copy may not raise it */
	if (o->hop && (!in->has_hop_limit || in->hop_limit + 1 > o->hop)) {
		tp_drop(w, m, NDN_CTR(NDN_C_NACK_MISMATCH));
		return;
	}
	o->nacked = mt->nack_reason ? mt->nack_reason : TP_NDN_NACK_UNSPECIFIED;
	if (p->fib_id != UINT32_MAX)
		ndn_lcore(w)->fib[p->fib_id].nacks++;
	ndn_asf_timeout(f, p, mt->face); /* asf: a Nack counts as a timeout */

	/* best-route and asf: the next hop not tried yet, of the FIB entry the Interest
	 * went by (a ForwardingHint the upstream added or changed finds another entry: no
	 * retry) */
	const struct ndn_fib_entry *e = lookup_fib(in, hashes, NDN_FACES_MAX);
	if (e && e->id == p->fib_id && e->strategy != NDN_STRATEGY_MULTICAST) {
		bool non_local = from_non_local(p, now);
		for (unsigned int i = 0; i < e->n_nh && i < 8; i++) {
			uint16_t hop = e->nh[i].face;
			bool used = (p->tried >> i) & 1;
			for (unsigned int k = 0; k < p->n_in; k++)
				used |= p->in[k].face == hop;
			for (unsigned int k = 0; k < p->n_out; k++)
				used |= p->out[k].face == hop;
			if (used || scope_refuses(&in->name, non_local, hop) ||
			    (in->has_hop_limit && in->hop_limit == 0 && !ndn_faces[hop].local))
				continue;
			p->tried |= (uint8_t)(1u << i);
			send_interest(w, f, idx, m, in, hop);
			return;
		}
	}
	uint8_t reason = 0;
	for (unsigned int i = 0; i < p->n_out; i++) {
		if (p->out[i].nacked == 0) { /* another upstream may still answer */
			rte_pktmbuf_free(m);
			return;
		}
		if (reason == 0 || severity(p->out[i].nacked) < severity(reason))
			reason = p->out[i].nacked;
	}
	/* every upstream said no: tell each downstream, with the nonce it sent */
	struct ndn_pit_in down[NDN_PIT_IN_MAX];
	unsigned int nd = 0;
	for (unsigned int i = 0; i < p->n_in; i++)
		if (p->in[i].expiry > now)
			down[nd++] = p->in[i];
	ndn_dnl_add_pit(f, idx, now); /* NFD's onInterestFinalize, unsatisfied */
	ndn_pit_free(f, idx);
	f->st.pit_nacked++;
	/* in has a Nonce (checked above): each downstream gets its own in it */
	size_t nonce_off = (size_t)(in->nonce_pos - rte_pktmbuf_mtod(m, const uint8_t *));
	for (unsigned int j = 0; j < nd; j++) {
		struct rte_mbuf *c = j + 1 < nd ? dup(w, m) : m;
		if (c == NULL)
			continue;
		uint8_t *np = rte_pktmbuf_mtod_offset(c, uint8_t *, nonce_off);
		np[0] = (uint8_t)(down[j].nonce >> 24);
		np[1] = (uint8_t)(down[j].nonce >> 16);
		np[2] = (uint8_t)(down[j].nonce >> 8);
		np[3] = (uint8_t)down[j].nonce;
		ndn_out(w, down[j].face, c, down[j].tok, down[j].tok_len, reason, NDN_FC_TX_NACK);
	}
	if (nd == 0)
		rte_pktmbuf_free(m);
}

/* The forwarding stage, timed for sampled packets: the wait since the input stage
 * handed it on, then the stage itself. */
#define TIMED(call, stage)                                                                         \
	do {                                                                                       \
		struct ndn_meta *mt_ = ndn_meta(m);                                                \
		if (likely(!mt_->sampled)) {                                                       \
			call;                                                                      \
			return;                                                                    \
		}                                                                                  \
		uint64_t t1 = rte_rdtsc();                                                         \
		ndn_tel_record(w, NDN_ST_QUEUE, t1 - mt_->rx_tsc);                                 \
		call;                                                                              \
		ndn_tel_record(w, stage, rte_rdtsc() - t1);                                        \
	} while (0)

void ndn_fwd_interest(struct tp_worker *w, struct ndn_fwd *f, struct rte_mbuf *m,
		      struct tp_ndn_interest *in, const uint32_t *hashes)
{
	TP_TRACE_STAGE(w, m, "ndn.interest");
	TIMED(ndn_fwd_interest_do(w, f, m, in, hashes), NDN_ST_INTEREST);
}

void ndn_fwd_data(struct tp_worker *w, struct ndn_fwd *f, struct rte_mbuf *m, struct tp_ndn_data *d)
{
	TP_TRACE_STAGE(w, m, "ndn.data");
	TIMED(ndn_fwd_data_do(w, f, m, d), NDN_ST_DATA);
}

void ndn_fwd_nack(struct tp_worker *w, struct ndn_fwd *f, struct rte_mbuf *m,
		  struct tp_ndn_interest *in)
{
	TP_TRACE_STAGE(w, m, "ndn.nack");
	TIMED(ndn_fwd_nack_do(w, f, m, in), NDN_ST_NACK);
}
