/* SPDX-License-Identifier: BSD-3-Clause */
/* The IPv6 route table: two rte_lpm6 copies, a log of changes, an index. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_jhash.h>

#include "route6.h"

#define NH_NONE UINT32_MAX
#define LPM6_NH_MAX (1u << 21) /* rte_lpm6's next-hop field: 21 bits */

/* One change, as applied to each copy in turn. */
struct op {
	uint8_t ip[16];
	uint8_t depth;
	uint8_t del;
	uint32_t nh;	  /* an add's next hop */
	uint32_t release; /* next hop to release once both copies have the change */
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

static int log_append(const struct key *k, int del, uint32_t nh, uint32_t release)
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
	o->nh = nh;
	o->release = release;
	if (log_n > tp_route6_stats.log_max)
		tp_route6_stats.log_max = log_n;
	return 0;
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
	if (!first || o->del)
		return;
	struct key k;
	key_make(&k, o->ip, o->depth);
	struct tp_route6 *r = index_find(&k);
	if (r != NULL && r->nh == o->nh) {
		r->fit = ret == 0;
		r->unfit = ret != 0;
	}
	if (ret != 0)
		tp_route6_stats.unfit++;
}

/* Bring copy c up to the end of the log. Returns how many changes it applied. */
static unsigned int catch_up(unsigned int c)
{
	uint64_t end = log_base + log_n, other = applied[c ^ 1];
	unsigned int n = 0;

	for (uint64_t s = applied[c]; s < end; s++, n++)
		apply(c, &log_ops[s - log_base], s >= other);
	applied[c] = end;
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
	ret = log_append(&k, 0, nh, r->nh);
	if (ret < 0) {
		if (r->nh == NH_NONE) {
			rte_hash_del_key(index_hash, &k);
			free(r);
		}
		return ret;
	}
	r->nh = nh;
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
	ret = log_append(&k, 1, 0, r->nh);
	if (ret < 0)
		return ret;
	rte_hash_del_key(index_hash, &k);
	free(r);
	tp_route6_poll();
	return 0;
}
