/* SPDX-License-Identifier: BSD-3-Clause */
/* The FIB: a hash per name prefix (NDN-DPDK's design), chained buckets the lcores
 * read without locks, with a bitmap of the prefix lengths present so a lookup probes
 * only those. The control plane is the only writer: an entry is never changed in
 * place but replaced by a new one linked with a release store, the old one freed
 * after an RCU grace period (core/rcu.h). The strategy of an entry comes from the
 * strategy choice table (longest prefix match over it), resolved when the entry is
 * published. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

#include "../../../core/rcu.h"
#include "../ndn.h"

#define FIB_BUCKETS 4096

static struct ndn_fib_entry *buckets[FIB_BUCKETS];
static struct ndn_fib_entry *root; /* the prefix "/" */
static uint64_t depths;		   /* bit k-1: an entry of k components */
static unsigned int depth_count[TP_NDN_NAME_MAX_COMPS + 1];
static struct ndn_fib_entry *by_id[NDN_FIB_MAX];
static unsigned int n_entries;

const char *const ndn_strategy_names[] = {"best-route", "multicast", "asf"};

/* strategy choice: prefix -> strategy (control plane only) */
struct choice {
	uint16_t len;
	uint8_t strategy;
	uint32_t probe_ms; /* asf */
	uint8_t name[TP_NDN_NAME_MAX_LEN];
};
static struct choice *choices;
static unsigned int n_choices;

const struct ndn_fib_entry *ndn_fib_lpm(const struct tp_ndn_name *n, const uint32_t *hashes)
{
	uint64_t d = __atomic_load_n(&depths, __ATOMIC_ACQUIRE);
	unsigned int k = n->n_comps;

	if (k < 64)
		d &= (1ull << k) - 1;
	while (d) {
		k = 64 - (unsigned int)__builtin_clzll(d); /* the longest length left */
		d &= ~(1ull << (k - 1));
		uint32_t h = hashes[k - 1];
		uint16_t len = tp_ndn_name_prefix_len(n, k);
		const struct ndn_fib_entry *e =
		    __atomic_load_n(&buckets[h & (FIB_BUCKETS - 1)], __ATOMIC_ACQUIRE);
		for (; e; e = __atomic_load_n(&e->next, __ATOMIC_ACQUIRE))
			if (e->hash == h && e->n_comps == k && e->name_len == len &&
			    tp_ndn_bytes_eq(e->name, n->value, len))
				return e;
	}
	return __atomic_load_n(&root, __ATOMIC_ACQUIRE);
}

void ndn_fib_chains(struct ndn_chain_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->buckets = FIB_BUCKETS;
	for (unsigned int b = 0; b < FIB_BUCKETS; b++) {
		uint32_t len = 0;
		for (const struct ndn_fib_entry *e = buckets[b]; e; e = e->next)
			len++;
		ndn_chain_add(s, len);
	}
}

int ndn_fib_init(void)
{
	int ret = ndn_name_hash_init();

	if (ret < 0)
		return ret;
	choices = calloc(NDN_STRATEGY_CHOICES, sizeof(*choices));
	return choices ? 0 : -ENOMEM;
}

/* The choice whose prefix is name's longest (NULL: none, best-route). */
static const struct choice *strategy_for(const uint8_t *name, uint16_t len)
{
	struct tp_ndn_name n, c;
	int best = -1, best_comps = -1;

	if (len > 0 && tp_ndn_name_decode(name, len, &n) != TP_NDN_E_OK)
		return NULL;
	if (len == 0)
		n.n_comps = 0;
	for (unsigned int i = 0; i < n_choices; i++) {
		if (choices[i].len == 0)
			c.n_comps = 0;
		else if (tp_ndn_name_decode(choices[i].name, choices[i].len, &c) != TP_NDN_E_OK)
			continue;
		if ((c.n_comps == 0 || (len > 0 && tp_ndn_name_is_prefix(&c, &n))) &&
		    (int)c.n_comps > best_comps) {
			best = (int)i;
			best_comps = c.n_comps;
		}
	}
	return best < 0 ? NULL : &choices[best];
}

static void entry_strategy(struct ndn_fib_entry *e)
{
	const struct choice *c = strategy_for(e->name, e->name_len);

	e->strategy = c ? c->strategy : NDN_STRATEGY_BEST_ROUTE;
	e->probe_ms = c && c->probe_ms ? c->probe_ms : NDN_ASF_PROBE_MS;
}

static void entry_free(void *a, void *b)
{
	(void)b;
	rte_free(a);
}

static int nh_cmp(const void *a, const void *b)
{
	const struct ndn_nexthop *x = a, *y = b;
	return x->cost < y->cost ? -1 : x->cost > y->cost ? 1 : (int)x->face - (int)y->face;
}

/* the slot where e's pointer lives (root or a chain link), or NULL */
static struct ndn_fib_entry **slot_of(const struct ndn_fib_entry *e)
{
	if (e->n_comps == 0)
		return &root;
	struct ndn_fib_entry **p = &buckets[e->hash & (FIB_BUCKETS - 1)];
	for (; *p; p = &(*p)->next)
		if (*p == e)
			return p;
	return NULL;
}

static struct ndn_fib_entry *find(const uint8_t *name, uint16_t len, uint8_t n_comps, uint32_t h)
{
	if (n_comps == 0)
		return root;
	for (struct ndn_fib_entry *e = buckets[h & (FIB_BUCKETS - 1)]; e; e = e->next)
		if (e->hash == h && e->name_len == len && memcmp(e->name, name, len) == 0)
			return e;
	return NULL;
}

int ndn_fib_set(const uint8_t *name, uint16_t len, const struct ndn_nexthop *nh, unsigned int n)
{
	struct tp_ndn_name nm;
	uint32_t hashes[TP_NDN_NAME_MAX_COMPS];

	if (len > 0 && tp_ndn_name_decode(name, len, &nm) != TP_NDN_E_OK)
		return -EINVAL;
	if (len == 0)
		nm.n_comps = 0;
	if (n > NDN_NH_MAX)
		return -E2BIG;
	uint32_t h = 0;
	if (nm.n_comps) {
		ndn_name_hashes(&nm, hashes);
		h = hashes[nm.n_comps - 1];
	}
	struct ndn_fib_entry *old = find(name, len, nm.n_comps, h);
	if (n == 0) {
		if (old == NULL)
			return -ENOENT;
		struct ndn_fib_entry **p = slot_of(old);
		__atomic_store_n(p, old->next, __ATOMIC_RELEASE);
		if (old->n_comps && --depth_count[old->n_comps] == 0)
			__atomic_store_n(&depths, depths & ~(1ull << (old->n_comps - 1)),
					 __ATOMIC_RELEASE);
		by_id[old->id] = NULL;
		n_entries--;
		tp_rcu_defer(entry_free, old, NULL);
		return 0;
	}
	unsigned int id = 0;
	if (old)
		id = old->id;
	else {
		if (n_entries >= NDN_FIB_MAX)
			return -ENOSPC;
		while (by_id[id])
			id++;
	}
	struct ndn_fib_entry *e = rte_zmalloc("ndn_fib", sizeof(*e) + len, 0);
	if (e == NULL)
		return -ENOMEM;
	e->hash = h;
	e->id = id;
	e->n_comps = nm.n_comps;
	e->name_len = len;
	memcpy(e->name, name, len);
	e->n_nh = (uint8_t)n;
	memcpy(e->nh, nh, n * sizeof(*nh));
	qsort(e->nh, n, sizeof(*nh), nh_cmp);
	entry_strategy(e);
	by_id[id] = e;
	if (old) {
		e->next = old->next;
		__atomic_store_n(slot_of(old), e, __ATOMIC_RELEASE);
		tp_rcu_defer(entry_free, old, NULL);
		return 0;
	}
	n_entries++;
	if (e->n_comps == 0) {
		__atomic_store_n(&root, e, __ATOMIC_RELEASE);
		return 0;
	}
	struct ndn_fib_entry **b = &buckets[h & (FIB_BUCKETS - 1)];
	e->next = *b;
	__atomic_store_n(b, e, __ATOMIC_RELEASE);
	if (depth_count[e->n_comps]++ == 0)
		__atomic_store_n(&depths, depths | (1ull << (e->n_comps - 1)), __ATOMIC_RELEASE);
	return 0;
}

/* Republish the entries whose strategy the table now gives otherwise (each replaced
 * whole, RCU, as a route change does). */
static int strategy_republish(void)
{
	for (unsigned int id = 0; id < NDN_FIB_MAX; id++) {
		struct ndn_fib_entry *e = by_id[id];
		if (e == NULL)
			continue;
		const struct choice *c = strategy_for(e->name, e->name_len);
		uint8_t s = c ? c->strategy : NDN_STRATEGY_BEST_ROUTE;
		uint32_t probe = c && c->probe_ms ? c->probe_ms : NDN_ASF_PROBE_MS;
		if (s != e->strategy || probe != e->probe_ms) {
			int ret = ndn_fib_set(e->name, e->name_len, e->nh, e->n_nh);
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

int ndn_fib_strategy_set(const uint8_t *name, uint16_t len, enum ndn_strategy s, uint32_t probe_ms)
{
	unsigned int i;

	if ((unsigned int)s >= NDN_STRATEGY_MAX || len > TP_NDN_NAME_MAX_LEN ||
	    (probe_ms && probe_ms < NDN_ASF_PROBE_MIN_MS))
		return -EINVAL;
	for (i = 0; i < n_choices; i++)
		if (choices[i].len == len && memcmp(choices[i].name, name, len) == 0)
			break;
	if (i == n_choices) {
		if (n_choices == NDN_STRATEGY_CHOICES)
			return -ENOSPC;
		n_choices++;
	}
	choices[i].len = len;
	memcpy(choices[i].name, name, len);
	choices[i].strategy = (uint8_t)s;
	choices[i].probe_ms = s == NDN_STRATEGY_ASF ? probe_ms : 0;
	return strategy_republish();
}

int ndn_fib_strategy_unset(const uint8_t *name, uint16_t len)
{
	if (len == 0)
		return -EINVAL;
	for (unsigned int i = 0; i < n_choices; i++)
		if (choices[i].len == len && memcmp(choices[i].name, name, len) == 0) {
			choices[i] = choices[--n_choices];
			return strategy_republish();
		}
	return -ENOENT;
}

void ndn_fib_strategy_walk(void (*fn)(const uint8_t *name, uint16_t len, enum ndn_strategy s,
				      uint32_t probe_ms, void *arg),
			   void *arg)
{
	const struct choice *root_c = NULL;

	for (unsigned int i = 0; i < n_choices; i++)
		if (choices[i].len == 0)
			root_c = &choices[i];
	if (root_c)
		fn(NULL, 0, (enum ndn_strategy)root_c->strategy, root_c->probe_ms, arg);
	else
		fn(NULL, 0, NDN_STRATEGY_BEST_ROUTE, 0, arg);
	for (unsigned int i = 0; i < n_choices; i++)
		if (choices[i].len)
			fn(choices[i].name, choices[i].len, (enum ndn_strategy)choices[i].strategy,
			   choices[i].probe_ms, arg);
}

int ndn_strategy_parse(const char *s, enum ndn_strategy *st, uint32_t *probe_ms)
{
	static const char nfd[] = "/localhost/nfd/strategy/";
	size_t n;

	*probe_ms = 0;
	if (strncmp(s, nfd, sizeof(nfd) - 1) == 0)
		s += sizeof(nfd) - 1;
	for (n = 0; n < NDN_STRATEGY_MAX; n++) {
		size_t l = strlen(ndn_strategy_names[n]);
		if (strncmp(s, ndn_strategy_names[n], l) == 0 && (s[l] == '\0' || s[l] == '/')) {
			s += l;
			break;
		}
	}
	if (n == NDN_STRATEGY_MAX)
		return -ENOENT;
	*st = (enum ndn_strategy)n;
	/* then NFD's optional version (v=N, any) and, for asf, its parameters
	 * (probing-interval~MS; the others, of its retransmission and timeouts, are
	 * refused) */
	while (*s == '/') {
		const char *c = ++s;
		size_t l = strcspn(c, "/");
		if (l > 2 && strncmp(c, "v=", 2) == 0) {
			/* any version: ours are NFD's behaviours, not its versions' */
		} else if (n == NDN_STRATEGY_ASF && strncmp(c, "probing-interval~", 17) == 0) {
			char *end;
			unsigned long v = strtoul(c + 17, &end, 10);
			if (end != c + l || end == c + 17 || v < NDN_ASF_PROBE_MIN_MS ||
			    v > UINT32_MAX)
				return -EINVAL;
			*probe_ms = (uint32_t)v;
		} else if (l > 0) {
			return -EINVAL;
		}
		s = c + l;
	}
	return *s == '\0' ? 0 : -EINVAL;
}

void ndn_fib_walk(ndn_fib_walk_fn fn, void *arg)
{
	for (unsigned int id = 0; id < NDN_FIB_MAX; id++)
		if (by_id[id])
			fn(by_id[id], arg);
}

unsigned int ndn_fib_count(void)
{
	return n_entries;
}
