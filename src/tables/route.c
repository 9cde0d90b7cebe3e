/* SPDX-License-Identifier: BSD-3-Clause */
/* Route table: rte_lpm for the data plane, an rte_hash of installed routes for the control plane.
 */
#include <errno.h>
#include <stdlib.h>

#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_jhash.h>

#include "neigh.h"
#include "nexthop.h"
#include "route.h"

struct rte_lpm *tp_route_lpm;
static struct rte_hash *route_index; /* (ip, depth) -> struct tp_route *, control plane only */

struct route_key {
	uint32_t ip;
	uint32_t depth;
};

static const char *const type_names[] = {
    [TP_ROUTE_CONNECTED] = "connected", [TP_ROUTE_GATEWAY] = "gateway",
    [TP_ROUTE_LOCAL] = "local",		[TP_ROUTE_HOST] = "host",
    [TP_ROUTE_BLACKHOLE] = "blackhole", [TP_ROUTE_UNREACHABLE] = "unreachable",
    [TP_ROUTE_PROHIBIT] = "prohibit",	[TP_ROUTE_THROW] = "throw",
};

/* The next hop of a route that needs no neighbour. */
static uint32_t route_special_nh(enum tp_route_type type)
{
	switch (type) {
	case TP_ROUTE_CONNECTED:
		return TP_NH_CONNECTED;
	case TP_ROUTE_BLACKHOLE:
		return TP_NH_BLACKHOLE;
	case TP_ROUTE_UNREACHABLE:
	case TP_ROUTE_THROW: /* the kernel's next table decides: hand it over */
		return TP_NH_UNREACHABLE;
	case TP_ROUTE_PROHIBIT:
		return TP_NH_PROHIBIT;
	default:
		return TP_NH_PUNT;
	}
}

const char *tp_route_type_name(enum tp_route_type t)
{
	return t < RTE_DIM(type_names) ? type_names[t] : "?";
}

int tp_route_init(struct rte_rcu_qsbr *qs, unsigned int max_routes)
{
	struct rte_lpm_config lc = {
	    .max_rules = max_routes,
	    .number_tbl8s = 1 << 12,
	};
	/* DQ mode: freed tbl8 groups wait in rte_lpm's own defer queue, reclaimed
	 * when it fills or a group is needed; a delete never waits for readers */
	struct rte_lpm_rcu_config rc = {.v = qs, .mode = RTE_LPM_QSBR_MODE_DQ};
	struct rte_hash_parameters hp = {
	    .name = "tp_route_idx",
	    .entries = max_routes,
	    .key_len = sizeof(struct route_key),
	    .hash_func = rte_jhash,
	    .socket_id = SOCKET_ID_ANY,
	};
	int err;

	tp_route_lpm = rte_lpm_create("tp_route", SOCKET_ID_ANY, &lc);
	if (tp_route_lpm == NULL)
		return -rte_errno;
	if (qs != NULL && rte_lpm_rcu_qsbr_add(tp_route_lpm, &rc) != 0) {
		err = -rte_errno;
		goto free_lpm;
	}
	route_index = rte_hash_create(&hp);
	if (route_index == NULL) {
		err = -rte_errno;
		goto free_lpm;
	}
	return 0;
free_lpm:
	rte_lpm_free(tp_route_lpm);
	tp_route_lpm = NULL;
	return err;
}

void tp_route_fini(void)
{
	uint32_t iter = 0;
	const void *key;
	void *data;

	while (route_index && rte_hash_iterate(route_index, &key, &data, &iter) >= 0)
		free(data);
	rte_hash_free(route_index);
	route_index = NULL;
	rte_lpm_free(tp_route_lpm);
	tp_route_lpm = NULL;
}

static struct tp_route *route_find(uint32_t ip, uint8_t depth)
{
	struct route_key k = {ip, depth};
	void *data;

	if (rte_hash_lookup_data(route_index, &k, &data) < 0)
		return NULL;
	return data;
}

static void route_release_nh(struct tp_route *r)
{
	if (!tp_nh_special(r->nh))
		tp_neigh_unref(r->nh);
}

/* Install r (already filled, nh referenced) into the LPM and the index. */
static int route_install(struct tp_route *r, int is_new)
{
	struct route_key k = {r->ip, r->depth};
	int ret = rte_lpm_add(tp_route_lpm, r->ip, r->depth, r->nh);

	if (ret < 0)
		return ret;
	if (is_new) {
		ret = rte_hash_add_key_data(route_index, &k, r);
		if (ret < 0) {
			rte_lpm_delete(tp_route_lpm, r->ip, r->depth);
			return ret;
		}
	}
	return 0;
}

static void route_remove(struct tp_route *r)
{
	struct route_key k = {r->ip, r->depth};

	rte_lpm_delete(tp_route_lpm, r->ip, r->depth);
	rte_hash_del_key(route_index, &k);
	route_release_nh(r);
	free(r);
}

int tp_route_add(uint32_t ip, uint8_t depth, enum tp_route_type type, uint32_t gw, uint16_t port,
		 uint32_t gen)
{
	struct tp_route *r;
	uint32_t old_nh = UINT32_MAX;
	int nh = (int)route_special_nh(type);
	int is_new = 0, ret;

	if (depth > 32)
		return -EINVAL;
	ip = depth ? ip & (uint32_t)(~0ull << (32 - depth)) : 0;
	if (type == TP_ROUTE_GATEWAY) {
		nh = tp_neigh_ref(gw, port);
		if (nh < 0)
			return nh;
	}
	r = route_find(ip, depth);
	if (r == NULL) {
		r = calloc(1, sizeof(*r));
		if (r == NULL) {
			if (!tp_nh_special((uint32_t)nh))
				tp_neigh_unref((uint32_t)nh);
			return -ENOMEM;
		}
		is_new = 1;
	} else {
		old_nh = r->nh;
	}
	r->ip = ip;
	r->depth = depth;
	r->type = (uint8_t)type;
	r->kernel = 1;
	r->gw = type == TP_ROUTE_GATEWAY ? gw : 0;
	r->port = port;
	r->nh = (uint32_t)nh;
	r->gen = gen;
	ret = route_install(r, is_new);
	if (ret < 0) {
		if (!tp_nh_special((uint32_t)nh))
			tp_neigh_unref((uint32_t)nh);
		if (is_new)
			free(r);
		return ret;
	}
	/* the LPM now points to the new next hop: the old one may go */
	if (old_nh != UINT32_MAX && !tp_nh_special(old_nh))
		tp_neigh_unref(old_nh);
	return 0;
}

int tp_route_del(uint32_t ip, uint8_t depth)
{
	struct tp_route *r;
	int nh;

	if (depth > 32) /* no such route (and no shift by a negative count: fuzz_netlink) */
		return -ENOENT;
	ip = depth ? ip & (uint32_t)(~0ull << (32 - depth)) : 0;
	r = route_find(ip, depth);
	if (r == NULL || !r->kernel)
		return -ENOENT;
	if (depth == 32 && (nh = tp_neigh_lookup(ip)) >= 0 && tp_nh_table[nh].learned) {
		/* fall back to the neighbour's host route */
		uint32_t old = r->nh;
		tp_nh_table[nh].refcnt++;
		r->nh = (uint32_t)nh;
		r->type = TP_ROUTE_HOST;
		r->kernel = 0;
		r->gw = ip;
		r->port = tp_nh_table[nh].port;
		rte_lpm_add(tp_route_lpm, ip, 32, r->nh);
		if (!tp_nh_special(old))
			tp_neigh_unref(old);
		return 0;
	}
	route_remove(r);
	return 0;
}

void tp_route_host_update(uint32_t ip, uint16_t port, int nh)
{
	struct tp_route *r = route_find(ip, 32);

	if (nh < 0) {
		if (r != NULL && !r->kernel)
			route_remove(r);
		return;
	}
	if (r != NULL)
		return; /* a kernel /32 (or our host route already) */
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return;
	r->ip = ip;
	r->depth = 32;
	r->type = TP_ROUTE_HOST;
	r->gw = ip;
	r->port = port;
	r->nh = (uint32_t)nh;
	tp_nh_table[nh].refcnt++;
	if (route_install(r, 1) < 0) {
		tp_neigh_unref((uint32_t)nh);
		free(r);
	}
}

unsigned int tp_route_sweep(uint32_t gen)
{
	struct tp_route *stale[256];
	unsigned int n, total = 0;

	do {
		uint32_t iter = 0;
		const void *key;
		void *data;

		n = 0;
		while (n < RTE_DIM(stale) &&
		       rte_hash_iterate(route_index, &key, &data, &iter) >= 0) {
			struct tp_route *r = data;
			if (r->kernel && r->gen != gen)
				stale[n++] = r;
		}
		for (unsigned int i = 0; i < n; i++)
			tp_route_del(stale[i]->ip, stale[i]->depth);
		total += n;
	} while (n == RTE_DIM(stale));
	return total;
}

void tp_route_flush_port(uint16_t port)
{
	struct tp_route *victims[256];
	unsigned int n;

	do {
		uint32_t iter = 0;
		const void *key;
		void *data;

		n = 0;
		while (n < RTE_DIM(victims) &&
		       rte_hash_iterate(route_index, &key, &data, &iter) >= 0) {
			struct tp_route *r = data;
			if (r->port == port)
				victims[n++] = r;
		}
		for (unsigned int i = 0; i < n; i++)
			route_remove(victims[i]);
	} while (n == RTE_DIM(victims));
}

const struct tp_route *tp_route_iterate(uint32_t *iter)
{
	const void *key;
	void *data;

	if (rte_hash_iterate(route_index, &key, &data, iter) < 0)
		return NULL;
	return data;
}

unsigned int tp_route_count(void)
{
	return (unsigned int)rte_hash_count(route_index);
}
