/* SPDX-License-Identifier: BSD-3-Clause */
/* The IPv6 route table: two rte_lpm6 copies, a log of changes, an index. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_jhash.h>

#include "../../ip4/control/nexthop.h"
#include "route6.h"

#define NH_NONE UINT32_MAX
#define LPM6_NH_MAX (1u << 21) /* rte_lpm6's next-hop field: 21 bits */

/* One change, as applied to each copy in turn. */
struct op {
	uint8_t ip[16];
	uint8_t depth;
	uint8_t del;
	uint8_t cover;	   /* a cover's rule to or from TP_NH_UNFIT: no bookkeeping */
	uint8_t retry;	   /* an unfit route's add again (tp_route6_retry) */
	uint32_t nh;	   /* an add's next hop in the copies */
	uint32_t route_nh; /* the route's own next hop then (nh unless it covers) */
	uint32_t release;  /* next hop to release once both copies have the change */
};

/* 20 bytes, all written: rte_jhash reads whole 32-bit words */
struct key {
	uint8_t ip[16];
	uint8_t depth;
	uint8_t pad[3];
};

struct rte_lpm6 *tp_route6_lpm;
struct tp_route6_stats tp_route6_stats;

static struct rte_lpm6 *copy[2];
static unsigned int act; /* the published copy */
/* the log: changes log_base .. log_base + log_n - 1 (sequence numbers); copy i has
 * every change before applied[i] */
static struct op *log_ops;
static unsigned int log_n, log_cap;
static uint64_t log_base, applied[2];
/* the spare copy was published until token: no change to it before the grace period */
static bool busy;
static uint64_t token;
static struct rte_rcu_qsbr *rqs;
static tp_route6_release_fn release_fn;
static struct rte_hash *index_hash;
/* the routes that did not fit (unordered: few, walked when a cover changes) */
static struct tp_route6 **unfit_list;
static unsigned int n_unfit, cap_unfit;
static unsigned int retry_cursor;
static uint64_t freed, freed_seen; /* rules deleted (logged) / at the last retry */

int tp_route6_init(struct rte_rcu_qsbr *qs, unsigned int max_routes, unsigned int tbl8_groups,
		   tp_route6_release_fn release)
{
	struct rte_lpm6_config cfg = {.max_rules = max_routes, .number_tbl8s = tbl8_groups};
	/* the index also holds the routes the copies have no room for */
	struct rte_hash_parameters hp = {
	    .name = "tp_route6_index",
	    .entries = max_routes * 2 < 64 ? 64 : max_routes * 2,
	    .key_len = sizeof(struct key),
	    .hash_func = rte_jhash,
	    .socket_id = SOCKET_ID_ANY,
	};
	int ret;

	if (max_routes == 0 || tbl8_groups == 0)
		return -EINVAL;
	copy[0] = rte_lpm6_create("tp_route6_0", SOCKET_ID_ANY, &cfg);
	copy[1] = copy[0] ? rte_lpm6_create("tp_route6_1", SOCKET_ID_ANY, &cfg) : NULL;
	index_hash = copy[1] ? rte_hash_create(&hp) : NULL;
	if (index_hash == NULL) {
		ret = -rte_errno;
		tp_route6_fini();
		return ret ? ret : -ENOMEM;
	}
	act = 0;
	busy = false;
	log_n = 0;
	log_base = applied[0] = applied[1] = 0;
	rqs = qs;
	release_fn = release;
	freed = freed_seen = 0;
	memset(&tp_route6_stats, 0, sizeof(tp_route6_stats));
	__atomic_store_n(&tp_route6_lpm, copy[act], __ATOMIC_RELEASE);
	return 0;
}

void tp_route6_fini(void)
{
	const void *k;
	void *data;
	uint32_t iter = 0;

	__atomic_store_n(&tp_route6_lpm, NULL, __ATOMIC_RELEASE);
	if (index_hash != NULL) {
		while (rte_hash_iterate(index_hash, &k, &data, &iter) >= 0)
			free(data);
		rte_hash_free(index_hash);
	}
	index_hash = NULL;
	rte_lpm6_free(copy[0]);
	rte_lpm6_free(copy[1]);
	copy[0] = copy[1] = NULL;
	free(log_ops);
	log_ops = NULL;
	log_n = log_cap = 0;
	free(unfit_list);
	unfit_list = NULL;
	n_unfit = cap_unfit = retry_cursor = 0;
}

static void key_make(struct key *k, const uint8_t ip[16], uint8_t depth)
{
	memset(k, 0, sizeof(*k));
	for (unsigned int i = 0; i < 16; i++) {
		unsigned int bits = depth > i * 8 ? depth - i * 8 : 0;
		k->ip[i] = bits >= 8 ? ip[i] : (uint8_t)(ip[i] & (0xff00u >> bits));
	}
	k->depth = depth;
}

static struct tp_route6 *index_find(const struct key *k)
{
	void *data;

	return rte_hash_lookup_data(index_hash, k, &data) >= 0 ? data : NULL;
}

const struct tp_route6 *tp_route6_find(const uint8_t ip[16], uint8_t depth)
{
	struct key k;

	if (index_hash == NULL || depth > 128)
		return NULL;
	key_make(&k, ip, depth);
	return index_find(&k);
}

const struct tp_route6 *tp_route6_iterate(uint32_t *iter)
{
	const void *k;
	void *data;

	return rte_hash_iterate(index_hash, &k, &data, iter) >= 0 ? data : NULL;
}

unsigned int tp_route6_count(void)
{
	return index_hash ? (unsigned int)rte_hash_count(index_hash) : 0;
}

unsigned int tp_route6_pending(void)
{
	return log_n;
}

unsigned int tp_route6_unpublished(void)
{
	return (unsigned int)(log_base + log_n - applied[act]);
}

static int log_append(const struct key *k, int del, uint32_t nh, uint32_t route_nh,
		      uint32_t release)
{
	if (log_n == log_cap) {
		unsigned int cap = log_cap ? log_cap * 2 : 64;
		struct op *o = realloc(log_ops, sizeof(*o) * cap);
		if (o == NULL)
			return -ENOMEM;
		log_ops = o;
		log_cap = cap;
	}
	struct op *o = &log_ops[log_n++];
	memcpy(o->ip, k->ip, 16);
	o->depth = k->depth;
	o->del = (uint8_t)del;
	o->cover = 0;
	o->retry = 0;
	o->nh = nh;
	o->route_nh = route_nh;
	o->release = release;
	if (log_n > tp_route6_stats.log_max)
		tp_route6_stats.log_max = log_n;
	return 0;
}

/* What route r's rule holds in the copies: its next hop, or TP_NH_UNFIT while it
 * covers a route that does not fit. */
static uint32_t lpm_nh(const struct tp_route6 *r)
{
	return r->unfit_below ? TP_NH_UNFIT : r->nh;
}

/* Cover c's rule given its value now (lpm_nh): a change of an installed rule, which
 * needs no new rule nor tbl8 group, so it fits. Returns 0 or -ENOMEM. */
static int cover_log(const struct tp_route6 *c)
{
	struct key k;
	int ret;

	key_make(&k, c->ip, c->depth);
	ret = log_append(&k, 0, lpm_nh(c), c->nh, NH_NONE);
	if (ret == 0)
		log_ops[log_n - 1].cover = 1;
	return ret;
}

/* Whether c is less specific than r and covers it. */
static bool covers(const struct tp_route6 *c, const struct tp_route6 *r)
{
	struct key k;

	if (c->depth >= r->depth)
		return false;
	key_make(&k, r->ip, c->depth);
	return memcmp(k.ip, c->ip, 16) == 0;
}

/* The longest route less specific than r that fits, other than skip, or NULL. */
static struct tp_route6 *cover_find(const struct tp_route6 *r, const struct tp_route6 *skip)
{
	struct key k;

	for (unsigned int d = r->depth; d-- > 1;) {
		key_make(&k, r->ip, (uint8_t)d);
		struct tp_route6 *c = index_find(&k);
		if (c != NULL && c != skip && c->fit)
			return c;
	}
	return NULL;
}

/* Unfit route r counted at cover c (NULL: none, its packets find no route and go to
 * the kernel): c punts from now on. */
static void cover_take(struct tp_route6 *r, struct tp_route6 *c)
{
	r->cover = c;
	if (c != NULL && c->unfit_below++ == 0 && cover_log(c) < 0)
		tp_route6_stats.cover_lost++;
}

/* Unfit route r no longer counted at its cover: the cover forwards again when r was
 * its last. */
static void cover_drop(struct tp_route6 *r)
{
	struct tp_route6 *c = r->cover;

	r->cover = NULL;
	if (c != NULL && --c->unfit_below == 0 && cover_log(c) < 0)
		tp_route6_stats.cover_lost++;
}

/* r did not fit: listed, and counted at its cover. */
static void unfit_attach(struct tp_route6 *r)
{
	if (n_unfit == cap_unfit) {
		unsigned int cap = cap_unfit ? cap_unfit * 2 : 16;
		struct tp_route6 **l = realloc(unfit_list, sizeof(*l) * cap);
		if (l == NULL) {
			tp_route6_stats.cover_lost++;
			return;
		}
		unfit_list = l;
		cap_unfit = cap;
	}
	unfit_list[n_unfit++] = r;
	cover_take(r, cover_find(r, NULL));
}

/* r (replaced or deleted) is no longer an unfit route. */
static void unfit_detach(struct tp_route6 *r)
{
	for (unsigned int i = 0; i < n_unfit; i++)
		if (unfit_list[i] == r) {
			unfit_list[i] = unfit_list[--n_unfit];
			cover_drop(r);
			return;
		}
}

/* Route c now fits: it takes over the unfit routes it covers more closely than their
 * cover did (by longest match their packets would take c now). */
static void cover_takeover(struct tp_route6 *c)
{
	for (unsigned int i = 0; i < n_unfit; i++) {
		struct tp_route6 *u = unfit_list[i];
		if (u->cover != c && covers(c, u) &&
		    (u->cover == NULL || u->cover->depth < c->depth)) {
			cover_drop(u);
			cover_take(u, c);
		}
	}
}

/* Cover c goes: its unfit routes to their next cover, logged before c's delete (so
 * that no copy has their packets take a less specific route meanwhile). */
static void cover_handover(struct tp_route6 *c)
{
	for (unsigned int i = 0; i < n_unfit && c->unfit_below > 0; i++) {
		struct tp_route6 *u = unfit_list[i];
		if (u->cover == c) {
			c->unfit_below--; /* c's rule goes: it is not set back */
			cover_take(u, cover_find(u, c));
		}
	}
}

/* Apply change o to copy c; the first copy to get it decides whether it fits (both
 * copies get the same changes in the same order, so the second fares the same). */
static void apply(unsigned int c, const struct op *o, bool first)
{
	int ret;

	if (o->del)
		ret = rte_lpm6_delete(copy[c], o->ip, o->depth);
	else
		ret = rte_lpm6_add(copy[c], o->ip, o->depth, o->nh);
	tp_route6_stats.applied++;
	if (!first || o->del || o->cover)
		return;
	struct key k;
	key_make(&k, o->ip, o->depth);
	struct tp_route6 *r = index_find(&k);
	if (o->retry) {
		/* still unfit with that next hop (else a later change decides), and in now:
		 * its cover forwards again once it covers no other */
		if (ret != 0 || r == NULL || !r->unfit || r->nh != o->route_nh)
			return;
		unfit_detach(r);
		r->unfit = 0;
		r->fit = 1;
		tp_route6_stats.refit++;
		if (n_unfit > 0)
			cover_takeover(r);
		return;
	}
	if (ret != 0)
		tp_route6_stats.unfit++;
	if (r == NULL || r->nh != o->route_nh || r->fit || r->unfit)
		return; /* replaced or deleted since, or decided */
	if (ret == 0) {
		r->fit = 1;
		if (n_unfit > 0)
			cover_takeover(r);
	} else {
		r->unfit = 1;
		unfit_attach(r);
	}
}

/* Bring copy c up to the end of the log. Returns how many changes it applied. */
static unsigned int catch_up(unsigned int c)
{
	uint64_t end = log_base + log_n, other = applied[c ^ 1];
	unsigned int n = 0;

	/* the first copy to get a change may log more (a cover's rule): they are
	 * applied in the same pass, before the copy is published */
	for (uint64_t s = applied[c]; s < end || s < log_base + log_n; s++, n++)
		apply(c, &log_ops[s - log_base], s >= other);
	applied[c] = log_base + log_n;
	return n;
}

/* Drop the changes both copies have, releasing their old next hops: the copy that
 * got a change second was unread for a grace period before, and the first one was
 * published with it, so no reader can hold those next hops from the table. */
static void trim(void)
{
	uint64_t done = applied[0] < applied[1] ? applied[0] : applied[1];
	unsigned int n = (unsigned int)(done - log_base);

	for (unsigned int i = 0; i < n; i++)
		if (log_ops[i].release != NH_NONE && release_fn != NULL)
			release_fn(log_ops[i].release);
	memmove(log_ops, log_ops + n, sizeof(*log_ops) * (log_n - n));
	log_n -= n;
	log_base = done;
}

unsigned int tp_route6_poll(void)
{
	unsigned int spare = act ^ 1, n;

	if (copy[0] == NULL || log_n == 0)
		return 0;
	/* the spare was the published copy until token: a reader may still walk it */
	if (busy) {
		if (rqs != NULL && rte_rcu_qsbr_check(rqs, token, false) != 1) {
			tp_route6_stats.deferred++;
			return 0;
		}
		busy = false;
	}
	n = catch_up(spare);
	if (applied[spare] > applied[act]) {
		/* it has changes the readers' copy lacks: theirs from now on */
		__atomic_store_n(&tp_route6_lpm, copy[spare], __ATOMIC_RELEASE);
		act = spare;
		tp_route6_stats.publishes++;
		if (rqs != NULL) {
			token = rte_rcu_qsbr_start(rqs);
			busy = true;
		}
	}
	trim();
	return n;
}

int tp_route6_add(const uint8_t ip[16], uint8_t depth, uint32_t nh)
{
	struct tp_route6 *r;
	struct key k;
	int ret;

	if (index_hash == NULL || depth == 0 || depth > 128 || nh >= LPM6_NH_MAX)
		return -EINVAL;
	key_make(&k, ip, depth);
	r = index_find(&k);
	if (r != NULL && r->nh == nh)
		return 0;
	if (r == NULL) {
		r = calloc(1, sizeof(*r));
		if (r == NULL)
			return -ENOMEM;
		memcpy(r->ip, k.ip, 16);
		r->depth = depth;
		r->nh = NH_NONE;
		ret = rte_hash_add_key_data(index_hash, &k, r);
		if (ret < 0) {
			free(r);
			return ret == -ENOSPC ? -ENOSPC : ret;
		}
	}
	uint32_t old = r->nh;
	r->nh = nh;
	ret = log_append(&k, 0, lpm_nh(r), nh, old);
	if (ret < 0) {
		r->nh = old;
		if (old == NH_NONE) {
			rte_hash_del_key(index_hash, &k);
			free(r);
		}
		return ret;
	}
	if (r->unfit)
		unfit_detach(r); /* decided again when a copy takes the change */
	r->fit = r->unfit = 0;
	tp_route6_poll();
	return 0;
}

int tp_route6_del(const uint8_t ip[16], uint8_t depth)
{
	struct tp_route6 *r;
	struct key k;
	int ret;

	if (index_hash == NULL || depth > 128)
		return -ENOENT;
	key_make(&k, ip, depth);
	r = index_find(&k);
	if (r == NULL)
		return -ENOENT;
	ret = log_append(&k, 1, 0, 0, r->nh);
	if (ret < 0)
		return ret;
	if (r->unfit)
		unfit_detach(r);
	else
		freed++; /* its rule (and tbl8 groups) free once a copy takes the delete */
	cover_handover(r);
	rte_hash_del_key(index_hash, &k);
	free(r);
	tp_route6_poll();
	return 0;
}

/* --- retries --- */
bool tp_route6_retry_wanted(void)
{
	return n_unfit > 0 && freed != freed_seen;
}

unsigned int tp_route6_retry(unsigned int budget)
{
	unsigned int n = 0;
	struct key k;

	freed_seen = freed;
	/* oldest attempt first: from where the last retry stopped, round the list. Each
	 * retry is an add logged after the deletes that freed room: the copies try it
	 * in that order, and apply() decides as for a first add */
	for (; n < budget && n < n_unfit; n++) {
		const struct tp_route6 *r = unfit_list[(retry_cursor + n) % n_unfit];
		key_make(&k, r->ip, r->depth);
		if (log_append(&k, 0, r->nh, r->nh, NH_NONE) < 0)
			break;
		log_ops[log_n - 1].retry = 1;
		tp_route6_stats.retries++;
	}
	retry_cursor = n_unfit ? (retry_cursor + n) % n_unfit : 0;
	tp_route6_poll();
	return n;
}

unsigned int tp_route6_unfit_count(void)
{
	return n_unfit;
}
