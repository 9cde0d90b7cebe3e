/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv6 neighbours on rte_hash with RCU reclamation, next hops in the shared table,
 * routes by type. */
#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_malloc.h>

#include "../../../core/tp.h"
#include "../../../proto/ip6.h"
#include "../../../tables/rcu_hash.h"
#include "../../ip4/control/nexthop.h"
#include "neigh6.h"
#include "route6.h"

static struct rte_hash *neigh6_hash;
/* A neighbour is an address on a port: link-local addresses (RFC 4291 2.5.6), the
 * usual gateways of IPv6 routes, repeat from link to link. 20 bytes, all written. */
struct neigh6_key {
	uint8_t ip[16];
	uint16_t port;
	uint16_t pad;
};
/* per next-hop id: the IPv6 neighbour that owns it (its key), whether the kernel
 * taught it and whether its /128 host route is in the table */
static struct neigh6_info {
	struct neigh6_key key;
	uint8_t learned, host_route;
} * info;

static struct neigh6_key key_of(const uint8_t ip[16], uint16_t port)
{
	struct neigh6_key k = {.port = port};

	memcpy(k.ip, ip, 16);
	return k;
}

/* Once no reader can hold the key any more. */
static void neigh6_release(uint32_t nh)
{
	tp_nh_free(nh);
}

static int neigh6_ref(const uint8_t ip[16], uint16_t port)
{
	struct neigh6_key k = key_of(ip, port);
	int nh = tp_neigh6_lookup(ip, port);
	int ret;

	if (nh < 0) {
		nh = tp_nh_alloc(0, port); /* the entry's IPv4 address stays 0 */
		if (nh < 0)
			return nh;
		ret = rte_hash_add_key_data(neigh6_hash, &k, (void *)(uintptr_t)nh);
		if (ret < 0) {
			tp_nh_free((uint32_t)nh);
			return ret;
		}
		info[nh].key = k;
		info[nh].learned = info[nh].host_route = 0;
	}
	tp_nh_table[nh].refcnt++;
	return nh;
}

/* Drop a reference (route6's release: also called with the special ids, which
 * nobody counts). */
static void neigh6_unref(uint32_t nh)
{
	struct tp_nexthop *e;

	if (tp_nh_special(nh) || nh >= TP_NH_MAX || neigh6_hash == NULL)
		return;
	e = &tp_nh_table[nh];
	if (!e->in_use || e->refcnt == 0 || --e->refcnt > 0)
		return;
	tp_rcu_hash_del(neigh6_hash, &info[nh].key, neigh6_release);
}

int tp_ip6_tables_init(unsigned int max_neigh, unsigned int max_routes, unsigned int tbl8_groups)
{
	int ret;

	info = rte_zmalloc("tp_neigh6_info", sizeof(*info) * TP_NH_MAX, 0);
	neigh6_hash =
	    info ? tp_rcu_hash_create("tp_neigh6", max_neigh, sizeof(struct neigh6_key)) : NULL;
	if (neigh6_hash == NULL) {
		ret = info ? -rte_errno : -ENOMEM;
		tp_ip6_tables_fini();
		return ret;
	}
	ret = tp_route6_init(tp.qs, max_routes, tbl8_groups, neigh6_unref);
	if (ret < 0)
		tp_ip6_tables_fini();
	return ret;
}

void tp_ip6_tables_fini(void)
{
	tp_route6_fini();
	rte_hash_free(neigh6_hash);
	neigh6_hash = NULL;
	rte_free(info);
	info = NULL;
}

int tp_neigh6_lookup(const uint8_t ip[16], uint16_t port)
{
	struct neigh6_key k = key_of(ip, port);
	void *data;

	if (rte_hash_lookup_data(neigh6_hash, &k, &data) < 0)
		return -ENOENT;
	return (int)(uintptr_t)data;
}

int tp_neigh6_learn(const uint8_t ip[16], uint16_t port, const uint8_t *mac)
{
	int nh = tp_neigh6_lookup(ip, port);

	if (mac == NULL) {
		if (nh < 0 || !info[nh].learned)
			return -ENOENT;
		info[nh].learned = 0;
		/* unresolved first: packets punt while routes still point here */
		tp_nh_set_l2((uint32_t)nh, (const uint8_t[6]){0}, port, 0);
		if (info[nh].host_route) {
			info[nh].host_route = 0;
			tp_route6_del(ip, 128); /* its reference goes once no copy has it */
		}
		neigh6_unref((uint32_t)nh);
		return -ENOENT;
	}
	if (nh < 0 || !info[nh].learned) {
		nh = neigh6_ref(ip, port);
		if (nh < 0)
			return nh;
		info[nh].learned = 1;
	}
	tp_nh_table[nh].port = port;
	tp_nh_set_l2((uint32_t)nh, mac, port, TP_NH_F_RESOLVED);
	/* the /128 host route (a neighbour on a connected subnet), unless a route of
	 * exactly that prefix is there already; none for a link-local address, which
	 * the fast path never looks up (and which another link may have too) */
	if (!info[nh].host_route && !tp_ip6_is_link_local(ip) && tp_route6_find(ip, 128) == NULL) {
		tp_nh_table[nh].refcnt++;
		if (tp_route6_add(ip, 128, (uint32_t)nh) == 0)
			info[nh].host_route = 1;
		else
			tp_nh_table[nh].refcnt--;
	}
	return nh;
}

int tp_neigh6_iterate(uint32_t *iter, uint8_t ip[16], uint16_t *port, uint32_t *nh)
{
	const void *key;
	void *data;

	if (neigh6_hash == NULL || rte_hash_iterate(neigh6_hash, &key, &data, iter) < 0)
		return -ENOENT;
	const struct neigh6_key *k = key;
	memcpy(ip, k->ip, 16);
	*port = k->port;
	*nh = (uint32_t)(uintptr_t)data;
	return 0;
}

unsigned int tp_neigh6_count(void)
{
	return neigh6_hash ? (unsigned int)rte_hash_count(neigh6_hash) : 0;
}

unsigned int tp_neigh6_sweep(uint32_t gen)
{
	struct neigh6_key victims[256];
	unsigned int n, total = 0;

	do {
		const void *key;
		void *data;
		uint32_t iter = 0;

		n = 0;
		while (n < RTE_DIM(victims) &&
		       rte_hash_iterate(neigh6_hash, &key, &data, &iter) >= 0) {
			uint32_t nh = (uint32_t)(uintptr_t)data;
			if (info[nh].learned && tp_nh_table[nh].gen != gen)
				victims[n++] = info[nh].key;
		}
		for (unsigned int i = 0; i < n; i++)
			tp_neigh6_learn(victims[i].ip, victims[i].port, NULL);
		total += n;
	} while (n == RTE_DIM(victims));
	return total;
}

void tp_neigh6_flush_port(uint16_t port)
{
	struct neigh6_key victims[256];
	unsigned int n;

	do {
		const void *key;
		void *data;
		uint32_t iter = 0;

		n = 0;
		while (n < RTE_DIM(victims) &&
		       rte_hash_iterate(neigh6_hash, &key, &data, &iter) >= 0) {
			uint32_t nh = (uint32_t)(uintptr_t)data;
			if (info[nh].key.port == port && info[nh].learned)
				victims[n++] = info[nh].key;
		}
		for (unsigned int i = 0; i < n; i++)
			tp_neigh6_learn(victims[i].ip, port, NULL);
	} while (n == RTE_DIM(victims));
}

int tp_ip6_route_add(const uint8_t ip[16], uint8_t depth, enum tp_route6_type type,
		     const uint8_t *gw, uint16_t port)
{
	const struct tp_route6 *old;
	int nh, ret;

	switch (type) {
	case TP_ROUTE6_CONNECTED:
		nh = TP_NH_CONNECTED;
		break;
	case TP_ROUTE6_LOCAL:
		nh = TP_NH_PUNT;
		break;
	case TP_ROUTE6_BLACKHOLE:
		nh = TP_NH_BLACKHOLE;
		break;
	case TP_ROUTE6_UNREACHABLE:
		nh = TP_NH_UNREACHABLE;
		break;
	case TP_ROUTE6_PROHIBIT:
		nh = TP_NH_PROHIBIT;
		break;
	case TP_ROUTE6_GATEWAY:
		if (gw == NULL)
			return -EINVAL;
		nh = neigh6_ref(gw, port);
		if (nh < 0)
			return nh;
		break;
	default:
		return -EINVAL;
	}
	old = tp_route6_find(ip, depth);
	if (old != NULL && old->nh == (uint32_t)nh) {
		neigh6_unref((uint32_t)nh); /* the route holds one already */
		return 0;
	}
	/* a neighbour's own /128 gives way to a kernel route of that prefix */
	if (old != NULL && depth == 128 && !tp_nh_special(old->nh) && info[old->nh].host_route &&
	    memcmp(info[old->nh].key.ip, ip, 16) == 0)
		info[old->nh].host_route = 0;
	ret = tp_route6_add(ip, depth, (uint32_t)nh);
	if (ret < 0)
		neigh6_unref((uint32_t)nh);
	return ret;
}

int tp_ip6_route_del(const uint8_t ip[16], uint8_t depth)
{
	const struct tp_route6 *old = tp_route6_find(ip, depth);

	if (old == NULL)
		return -ENOENT;
	if (depth == 128 && !tp_nh_special(old->nh) && info[old->nh].host_route &&
	    memcmp(info[old->nh].key.ip, ip, 16) == 0)
		info[old->nh].host_route = 0;
	return tp_route6_del(ip, depth);
}
