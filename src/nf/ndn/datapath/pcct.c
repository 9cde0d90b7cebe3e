/* SPDX-License-Identifier: BSD-3-Clause */
/* The PIT-CS composite table of one forwarding context (NDN-DPDK's PCCT): one hash
 * table keyed by name, whose entry holds up to four PIT entries (one per
 * CanBePrefix x MustBeFresh), a CS entry of a Data of exactly that name, and an
 * indirect CS entry (a Data the name is a prefix of, found by a CanBePrefix
 * Interest). Everything is in arrays allocated at start-up and indexed from 1 (0 is
 * "none"); only the owning lcore touches them. PIT entries expire on a timer wheel
 * of 1 ms ticks; the CS evicts the least recently used entry.
 *
 * Keys up to NDN_KEY_INLINE bytes live in the entry, longer ones (to the codec's
 * 2,048) in an extension chunk. */
#include <errno.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>
#include <rte_prefetch.h>

#include "../../../core/tp.h"
#include "../ndn.h"

#define CS_POOL_CACHE 32
/* A CS copy needs no headroom (a hit is copied again, into a packet of the
 * port's pool), so a small Data's copy is its bytes alone, in an element of 640
 * bytes instead of 9,472: the CS's cold lines are fewer pages apart */
#define NDN_CS_SMALL_ROOM 512
#define WHEEL_BITS 13 /* 8.192 s of 1 ms ticks; longer lifetimes go round again */

int ndn_pcct_create(struct ndn_fwd *f, unsigned int socket)
{
	uint32_t buckets = 1;
	char name[RTE_MEMPOOL_NAMESIZE];

	f->pit_cap = ndn_conf.pit_capacity;
	f->cs_cap = ndn_conf.cs_capacity;
	f->pcc_cap = f->pit_cap + 2 * f->cs_cap + 1;
	/* at least twice the entries: the keyed name hash's chains are those of random
	 * keys (load <= 1/2: 0.5 entries walked by a miss, at most), where the seeded
	 * CRC32C it replaced spread names differing only in their last bytes (a
	 * generator's sequence numbers) over distinct buckets */
	while (buckets < 2 * f->pcc_cap)
		buckets <<= 1;
	f->bucket_mask = buckets - 1;
	f->bucket = rte_zmalloc_socket("ndn_pcct", buckets * sizeof(uint32_t), 64, socket);
	f->pcc = rte_zmalloc_socket("ndn_pcc", (f->pcc_cap + 1) * sizeof(*f->pcc), 64, socket);
	f->pit = rte_zmalloc_socket("ndn_pit", (f->pit_cap + 1) * sizeof(*f->pit), 64, socket);
	f->cs = rte_zmalloc_socket("ndn_cs", (f->cs_cap + 1) * sizeof(*f->cs), 64, socket);
	f->ext_cap = f->pcc_cap / 64 + 16;
	f->ext = rte_zmalloc_socket("ndn_ext", (f->ext_cap + 1) * sizeof(*f->ext), 64, socket);
	f->ext_free_list = rte_zmalloc_socket("ndn_ext", f->ext_cap * sizeof(uint32_t), 64, socket);
	f->wheel_mask = (1u << WHEEL_BITS) - 1;
	f->wheel =
	    rte_zmalloc_socket("ndn_wheel", (1u << WHEEL_BITS) * sizeof(uint32_t), 64, socket);
	/* the Dead Nonce List: twice the PIT's entries (at least 1,024), in buckets of
	 * NDN_DNL_WAYS; 16 bytes each */
	uint32_t dnl_buckets = 128;
	while (dnl_buckets * NDN_DNL_WAYS < 2 * f->pit_cap)
		dnl_buckets <<= 1;
	f->dnl.bucket_mask = dnl_buckets - 1;
	f->dnl.lifetime_tsc = NDN_DNL_LIFETIME_MS * (tp.tsc_hz / 1000);
	f->dnl.live_until = 0;
	f->dnl.slot = rte_zmalloc_socket(
	    "ndn_dnl", (size_t)dnl_buckets * NDN_DNL_WAYS * sizeof(*f->dnl.slot), 64, socket);
	f->asf = rte_zmalloc_socket("ndn_asf", NDN_FIB_MAX * sizeof(*f->asf), 64, socket);
	if (!f->bucket || !f->pcc || !f->pit || !f->cs || !f->ext || !f->ext_free_list ||
	    !f->wheel || !f->dnl.slot || !f->asf) {
		ndn_pcct_free(f);
		return -ENOMEM;
	}
	if (f->cs_cap) {
		snprintf(name, sizeof(name), "ndn_cs%u", f->idx);
		/* Data up to 9,000 bytes in one segment; a per-lcore cache (only the
		 * owning lcore takes and gives back), so the pool holds the capacity,
		 * what the cache may keep and a margin */
		f->cs_pool = rte_pktmbuf_pool_create(name, f->cs_cap + 64 + 3 * CS_POOL_CACHE / 2,
						     CS_POOL_CACHE, 0, 9216 + 128, (int)socket);
		snprintf(name, sizeof(name), "ndn_css%u", f->idx);
		f->cs_pool_small =
		    rte_pktmbuf_pool_create(name, f->cs_cap + 64 + 3 * CS_POOL_CACHE / 2,
					    CS_POOL_CACHE, 0, NDN_CS_SMALL_ROOM, (int)socket);
		if (f->cs_pool == NULL || f->cs_pool_small == NULL) {
			ndn_pcct_free(f);
			return -ENOMEM;
		}
	}
	/* free lists: through next (pcc), pcc field unused so through tw_next (pit),
	 * lru_next (cs) */
	for (uint32_t i = 1; i <= f->pcc_cap; i++)
		f->pcc[i].next = i < f->pcc_cap ? i + 1 : 0;
	f->pcc_free = 1;
	for (uint32_t i = 1; i <= f->pit_cap; i++)
		f->pit[i].tw_next = i < f->pit_cap ? i + 1 : 0;
	f->pit_free = f->pit_cap ? 1 : 0;
	f->pit_face_max = f->pit_cap; /* no share until ndn_limits_apply() sets one */
	for (uint32_t i = 1; i <= f->cs_cap; i++)
		f->cs[i].lru_next = i < f->cs_cap ? i + 1 : 0;
	f->cs_free = f->cs_cap ? 1 : 0;
	for (uint32_t i = 0; i < f->ext_cap; i++)
		f->ext_free_list[i] = i + 1;
	f->ext_n_free = f->ext_cap;
	/* ticks of a power of two TSC cycles, at most 1 ms: shifts, not divisions */
	f->tick_shift = 0;
	while ((2ull << f->tick_shift) <= tp.tsc_hz / 1000)
		f->tick_shift++;
	f->next_tick = rte_rdtsc() >> f->tick_shift;
	f->next_tick_tsc = f->next_tick << f->tick_shift;
	return 0;
}

void ndn_pcct_free(struct ndn_fwd *f)
{
	for (uint32_t i = 1; f->cs && i <= f->cs_cap; i++)
		if (f->cs[i].pcc)
			rte_pktmbuf_free(f->cs[i].m);
	rte_mempool_free(f->cs_pool);
	rte_mempool_free(f->cs_pool_small);
	rte_free(f->bucket);
	rte_free(f->pcc);
	rte_free(f->pit);
	rte_free(f->cs);
	rte_free(f->ext);
	rte_free(f->ext_free_list);
	rte_free(f->wheel);
	rte_free(f->dnl.slot);
	rte_free(f->asf);
	f->dnl.slot = NULL;
	f->asf = NULL;
	f->bucket = NULL;
	f->pcc = NULL;
	f->pit = NULL;
	f->cs = NULL;
	f->ext = NULL;
	f->ext_free_list = NULL;
	f->wheel = NULL;
	f->cs_pool = NULL;
	f->cs_pool_small = NULL;
}

uint32_t ndn_pcc_insert(struct ndn_fwd *f, const uint8_t *key, uint16_t len, uint8_t n_comps,
			uint32_t h)
{
	uint32_t i;

	if (f->pcc_free == 0)
		return 0;
	uint32_t ext = 0;
	if (len > NDN_KEY_INLINE) {
		if (f->ext_n_free == 0)
			return 0;
		ext = f->ext_free_list[--f->ext_n_free];
	}
	i = f->pcc_free;
	struct ndn_pcc *e = &f->pcc[i];
	f->pcc_free = e->next;
	memset(e, 0, offsetof(struct ndn_pcc, key));
	e->hash = h;
	e->key_len = len;
	e->n_comps = n_comps;
	e->in_use = 1;
	e->ext = ext;
	memcpy(ext ? f->ext[ext] : e->key, key, len);
	/* at the chain's tail: a chain is in insertion order, and entries mostly leave
	 * in that order (the CS's LRU victim, expired PIT entries), so the one leaving
	 * is at the head and its unlink (ndn_pcc_release) reads no other entry, a cache
	 * miss each under a keyed hash's chains (decision 0099). The walk
	 * reads the lines the caller's ndn_pcc_find just read. */
	uint32_t *p = &f->bucket[h & f->bucket_mask];
	while (*p)
		p = &f->pcc[*p].next;
	e->next = 0;
	*p = i;
	f->pcc_used++;
	return i;
}

void ndn_pcc_release(struct ndn_fwd *f, uint32_t idx)
{
	struct ndn_pcc *e = &f->pcc[idx];

	if (e->pit[0] | e->pit[1] | e->pit[2] | e->pit[3] | e->cs | e->cs_ind || e->in_use > 1)
		return;
	uint32_t *p = &f->bucket[e->hash & f->bucket_mask];
	while (*p != idx)
		p = &f->pcc[*p].next;
	*p = e->next;
	if (e->ext)
		f->ext_free_list[f->ext_n_free++] = e->ext;
	e->in_use = 0;
	e->next = f->pcc_free;
	f->pcc_free = idx;
	f->pcc_used--;
}

void ndn_pcct_chains(const struct ndn_fwd *f, struct ndn_chain_stats *s)
{
	uint32_t budget = f->pcc_cap; /* no more entries than that on all chains */

	memset(s, 0, sizeof(*s));
	s->buckets = f->bucket_mask + 1;
	/* the lcore writes these words as it runs: each read once, whole (relaxed), and
	 * every index checked before use, so a walk racing it ends, on a chain or not */
	for (uint32_t b = 0; b <= f->bucket_mask; b++) {
		uint32_t len = 0;
		for (uint32_t i = __atomic_load_n(&f->bucket[b], __ATOMIC_RELAXED); i;
		     i = __atomic_load_n(&f->pcc[i].next, __ATOMIC_RELAXED)) {
			if (i > f->pcc_cap || budget == 0 ||
			    !__atomic_load_n(&f->pcc[i].in_use, __ATOMIC_RELAXED)) {
				s->torn = true;
				break;
			}
			budget--;
			len++;
		}
		ndn_chain_add(s, len);
	}
}

/* --- PIT entries and the timer wheel --- */
static void wheel_unlink(struct ndn_fwd *f, uint32_t idx)
{
	struct ndn_pit *p = &f->pit[idx];

	if (p->tw_prev)
		f->pit[p->tw_prev].tw_next = p->tw_next;
	else
		f->wheel[(p->expiry >> f->tick_shift) & f->wheel_mask] = p->tw_next;
	if (p->tw_next)
		f->pit[p->tw_next].tw_prev = p->tw_prev;
	p->tw_next = p->tw_prev = 0;
}

uint32_t ndn_pit_alloc(struct ndn_fwd *f, uint32_t pcc, uint8_t slot)
{
	uint32_t i = f->pit_free;

	if (i == 0)
		return 0;
	struct ndn_pit *p = &f->pit[i];
	f->pit_free = p->tw_next;
	p->pcc = pcc;
	p->gen = (++f->gen) & 0xffffff;
	p->tw_next = p->tw_prev = 0;
	p->expiry = 0;
	p->slot = slot;
	p->n_in = p->n_out = 0;
	p->tried = 0;
	p->owner = 0; /* the caller charges the face that asked (pit_by_face) */
	p->retx_shift = 0;
	p->strategy = NDN_STRATEGY_BEST_ROUTE;
	p->fib_id = UINT32_MAX;
	f->pcc[pcc].pit[slot] = i;
	f->pit_used++;
	f->st.pit_inserts++;
	return i;
}

void ndn_pit_free(struct ndn_fwd *f, uint32_t idx)
{
	struct ndn_pit *p = &f->pit[idx];
	uint32_t pcc = p->pcc;

	if (p->expiry)
		wheel_unlink(f, idx);
	if (f->pit_by_face[p->owner]) /* saturating: a reused id inherits old entries */
		f->pit_by_face[p->owner]--;
	f->pcc[pcc].pit[p->slot] = 0;
	p->pcc = 0;
	p->gen = 0;
	p->expiry = 0;
	p->tw_next = f->pit_free;
	f->pit_free = idx;
	f->pit_used--;
	ndn_pcc_release(f, pcc);
}

void ndn_pit_arm(struct ndn_fwd *f, uint32_t idx, uint64_t expiry)
{
	struct ndn_pit *p = &f->pit[idx];

	if (p->expiry)
		wheel_unlink(f, idx);
	/* never in a tick already run */
	if (expiry < f->next_tick_tsc)
		expiry = f->next_tick_tsc;
	p->expiry = expiry;
	uint32_t *head = &f->wheel[(expiry >> f->tick_shift) & f->wheel_mask];
	p->tw_prev = 0;
	p->tw_next = *head;
	if (*head)
		f->pit[*head].tw_prev = idx;
	*head = idx;
}

static inline struct ndn_dnl_slot *dnl_bucket(const struct ndn_dnl *d, uint64_t key)
{
	/* the name hash is keyed (SipHash): an outsider cannot aim at a bucket */
	uint32_t b = (uint32_t)(key >> 32) ^ ((uint32_t)key * 0x9e3779b1u);

	return &d->slot[(size_t)(b & d->bucket_mask) * NDN_DNL_WAYS];
}

/* Insert (or refresh) key: an empty or dead slot of its bucket, else its oldest,
 * counted in dnl_evicted_live (the bound: NFD's list also drops its oldest when over
 * its capacity). */
static void dnl_add(struct ndn_fwd *f, uint64_t key, uint64_t now)
{
	struct ndn_dnl_slot *b = dnl_bucket(&f->dnl, key), *v = NULL;
	uint64_t expiry = now + f->dnl.lifetime_tsc;

	for (unsigned int i = 0; i < NDN_DNL_WAYS; i++) {
		if (b[i].expiry > now && b[i].key == key) {
			b[i].expiry = expiry;
			return;
		}
		if (v == NULL || b[i].expiry < v->expiry)
			v = &b[i];
	}
	if (v->expiry > now)
		f->st.dnl_evicted_live++;
	v->key = key;
	v->expiry = expiry;
	f->st.dnl_inserts++;
	if (expiry > f->dnl.live_until)
		f->dnl.live_until = expiry;
}

void ndn_dnl_add_pit(struct ndn_fwd *f, uint32_t idx, uint64_t now)
{
	const struct ndn_pit *p = &f->pit[idx];
	uint64_t h = (uint64_t)f->pcc[p->pcc].hash << 32;

	for (unsigned int i = 0; i < p->n_out; i++)
		dnl_add(f, h | p->out[i].nonce, now);
}

bool ndn_dnl_has(const struct ndn_fwd *f, uint32_t h, uint32_t nonce, uint64_t now)
{
	uint64_t key = (uint64_t)h << 32 | nonce;
	const struct ndn_dnl_slot *b;

	if (now >= f->dnl.live_until) /* nothing inserted within its lifetime */
		return false;
	b = dnl_bucket(&f->dnl, key);
	for (unsigned int i = 0; i < NDN_DNL_WAYS; i++)
		if (b[i].key == key && b[i].expiry > now)
			return true;
	return false;
}

void ndn_asf_timeout(struct ndn_fwd *f, const struct ndn_pit *p, uint16_t face)
{
	struct ndn_asf *a;

	if (p->strategy != NDN_STRATEGY_ASF || p->fib_id >= NDN_FIB_MAX)
		return;
	a = &f->asf[p->fib_id];
	for (unsigned int i = 0; i < NDN_NH_MAX; i++)
		if (a->m[i].face == face && a->m[i].timeouts < UINT8_MAX)
			a->m[i].timeouts++;
}

unsigned int ndn_pcct_expire(struct ndn_fwd *f, uint64_t now)
{
	uint64_t tick = now >> f->tick_shift;
	unsigned int n = 0;

	/* a bounded catch-up: at most one wheel turn per call */
	if (tick > f->next_tick + f->wheel_mask)
		f->next_tick = tick - f->wheel_mask;
	for (; f->next_tick <= tick; f->next_tick++) {
		uint32_t i = f->wheel[f->next_tick & f->wheel_mask];
		while (i) {
			uint32_t next = f->pit[i].tw_next;
			if ((f->pit[i].expiry >> f->tick_shift) <= f->next_tick) {
				const struct ndn_pit *p = &f->pit[i];
				/* NFD's onInterestFinalize, unsatisfied: every Nonce sent
				 * goes to the Dead Nonce List; ASF's upstreams timed out */
				ndn_dnl_add_pit(f, i, now);
				for (unsigned int o = 0; o < p->n_out; o++)
					if (p->out[o].nacked == 0)
						ndn_asf_timeout(f, p, p->out[o].face);
				ndn_pit_free(f, i);
				f->st.pit_expired++;
				n++;
			}
			i = next;
		}
	}
	f->next_tick_tsc = f->next_tick << f->tick_shift;
	return n;
}

/* --- CS --- */
static void lru_unlink(struct ndn_fwd *f, uint32_t i)
{
	struct ndn_cs *c = &f->cs[i];

	if (c->lru_prev)
		f->cs[c->lru_prev].lru_next = c->lru_next;
	else
		f->lru_head = c->lru_next;
	if (c->lru_next)
		f->cs[c->lru_next].lru_prev = c->lru_prev;
	else
		f->lru_tail = c->lru_prev;
	c->lru_prev = c->lru_next = 0;
}

static void lru_push(struct ndn_fwd *f, uint32_t i)
{
	struct ndn_cs *c = &f->cs[i];

	c->lru_prev = 0;
	c->lru_next = f->lru_head;
	if (f->lru_head)
		f->cs[f->lru_head].lru_prev = i;
	f->lru_head = i;
	if (f->lru_tail == 0)
		f->lru_tail = i;
}

void ndn_cs_touch(struct ndn_fwd *f, uint32_t cs)
{
	if (f->lru_head != cs) {
		lru_unlink(f, cs);
		lru_push(f, cs);
	}
}

static void cs_erase(struct ndn_fwd *f, uint32_t i)
{
	struct ndn_cs *c = &f->cs[i];
	uint32_t pcc = c->pcc;

	lru_unlink(f, i);
	for (unsigned int k = 0; k < RTE_DIM(c->ind); k++)
		if (c->ind[k]) {
			uint32_t ip = c->ind[k];
			f->pcc[ip].cs_ind = 0;
			c->ind[k] = 0;
			ndn_pcc_release(f, ip);
		}
	rte_pktmbuf_free(c->m);
	c->m = NULL;
	c->pcc = 0;
	f->pcc[pcc].cs = 0;
	c->lru_next = f->cs_free;
	f->cs_free = i;
	f->cs_used--;
	ndn_pcc_release(f, pcc);
}

/* With the CS full, the next insert evicts the LRU tail: what that touches (its
 * entry, PCC entry, bucket, mbuf and the bytes the copy overwrites) is brought into
 * the cache a Data ahead, for the tail and for the entry after it (whose CS entry
 * the previous call prefetched). Every insert of new names evicts one: these would
 * be cache misses on each Data. */
static inline void prefetch_evict(const struct ndn_fwd *f, const struct ndn_cs *c)
{
	rte_prefetch0(&f->pcc[c->pcc]);
	rte_prefetch0(&f->bucket[c->hash & f->bucket_mask]);
	rte_prefetch0(c->m);
	rte_prefetch0((const uint8_t *)c->m + RTE_CACHE_LINE_SIZE);
	rte_prefetch0_write((const uint8_t *)c->m + sizeof(struct rte_mbuf));
}

static inline void prefetch_victim(const struct ndn_fwd *f)
{
	const struct ndn_cs *c = &f->cs[f->lru_tail];

	if (f->lru_tail == 0 || f->cs_free)
		return;
	prefetch_evict(f, c);
	if (c->lru_prev == 0)
		return;
	const struct ndn_cs *c2 = &f->cs[c->lru_prev];
	prefetch_evict(f, c2);
	if (c2->lru_prev)
		rte_prefetch0(&f->cs[c2->lru_prev]);
}

/* A copy of the Data m, one segment, the bytes alone (no headroom), into old (the
 * copy it replaces, or the evicted entry's) when that is of the same size class,
 * else into a new mbuf of that class's pool; old is freed then. */
static inline struct rte_mbuf *cs_copy(struct ndn_fwd *f, const struct rte_mbuf *m,
				       struct rte_mbuf *old)
{
	struct rte_mempool *mp = m->pkt_len <= NDN_CS_SMALL_ROOM ? f->cs_pool_small : f->cs_pool;
	struct rte_mbuf *c;

	if (unlikely(m->nb_segs > 1 || m->data_len > rte_pktmbuf_data_room_size(mp))) {
		rte_pktmbuf_free(old);
		return rte_pktmbuf_copy(m, mp, 0, UINT32_MAX);
	}
	if (old != NULL && old->pool == mp && old->nb_segs == 1 && rte_mbuf_refcnt_read(old) == 1) {
		c = old;
	} else {
		rte_pktmbuf_free(old);
		if (unlikely((c = rte_pktmbuf_alloc(mp)) == NULL))
			return NULL;
	}
	c->data_off = 0;
	rte_memcpy(rte_pktmbuf_mtod(c, void *), rte_pktmbuf_mtod(m, const void *), m->data_len);
	c->data_len = m->data_len;
	c->pkt_len = m->data_len;
	return c;
}

uint32_t ndn_cs_insert(struct ndn_fwd *f, uint32_t pcc, struct rte_mbuf *m, uint64_t fresh_until)
{
	struct ndn_pcc *e = &f->pcc[pcc];
	uint32_t i = e->cs;
	struct rte_mbuf *old;

	if (f->cs_cap == 0)
		return 0;
	if (i) { /* a newer Data of the same name replaces the old one */
		old = f->cs[i].m;
		f->cs[i].m = NULL;
		ndn_cs_touch(f, i);
	} else {
		old = NULL;
		if (f->cs_free == 0) {
			/* the victim's copy is the new one's buffer; the victim may hold
			 * the entry we insert under (an indirect link): keep that alive */
			struct ndn_cs *v = &f->cs[f->lru_tail];
			old = v->m;
			v->m = NULL;
			e->in_use = 2;
			cs_erase(f, f->lru_tail);
			e->in_use = 1;
			f->st.cs_evictions++;
		}
		i = f->cs_free;
		f->cs_free = f->cs[i].lru_next;
		memset(f->cs[i].ind, 0, sizeof(f->cs[i].ind));
		f->cs[i].pcc = pcc;
		f->cs[i].hash = e->hash;
		e->cs = i;
		f->cs_used++;
		lru_push(f, i);
	}
	struct rte_mbuf *copy = cs_copy(f, m, old);
	if (unlikely(copy == NULL)) { /* sized for the capacity: not reached */
		cs_erase(f, i);
		return 0;
	}
	f->cs[i].m = copy;
	f->cs[i].fresh_until = fresh_until;
	f->st.cs_inserts++;
	prefetch_victim(f);
	return i;
}

void ndn_cs_link_indirect(struct ndn_fwd *f, uint32_t pcc, uint32_t cs)
{
	struct ndn_cs *c = &f->cs[cs];
	struct ndn_pcc *e = &f->pcc[pcc];

	if (e->cs_ind == cs || pcc == c->pcc)
		return;
	for (unsigned int k = 0; k < RTE_DIM(c->ind); k++)
		if (c->ind[k] == 0) {
			if (e->cs_ind) { /* it pointed at another Data: unlink from that one */
				struct ndn_cs *o = &f->cs[e->cs_ind];
				for (unsigned int j = 0; j < RTE_DIM(o->ind); j++)
					if (o->ind[j] == pcc)
						o->ind[j] = 0;
			}
			c->ind[k] = pcc;
			e->cs_ind = cs;
			return;
		}
}
