/* SPDX-License-Identifier: BSD-3-Clause */
/* The kernel's IPv6 routes and neighbours on the TAPs mirrored into ip6's tables,
 * through ip4's sync manager (its sockets, its dumps at start and after an overrun,
 * its budget per pass): the same rules as IPv4's, every kernel route of a prefix kept
 * as a path (table, metric, type, gateway, port), the one the kernel uses installed
 * (the local table before the main one, then the lowest metric), a delete removing
 * exactly the path the kernel deleted, a resync sweeping what it did not see. */
#include <errno.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <rte_hash.h>
#include <rte_jhash.h>

#include "../../../control/port.h"
#include "../../../core/log.h"
#include "../../ip4/control/netlink.h"
#include "../../../proto/ip6.h"
#include "../../ip4/control/nexthop.h"
#include "neigh6.h"
#include "netlink6.h"
#include "route6.h"

#define ATTR_MAX 64

struct path6 {
	uint32_t table, metric;
	uint8_t gw[16]; /* a gateway route's; else zero */
	uint16_t port;	/* TP_ROUTE6_NO_PORT for the types without one */
	uint8_t type;	/* enum tp_route6_type */
	uint32_t gen;
};

struct prefix6 {
	uint8_t ip[16];
	uint8_t depth;
	uint16_t n, cap;
	struct path6 *paths;
};

/* 20 bytes, all written (rte_jhash reads words) */
struct pkey {
	uint8_t ip[16];
	uint8_t depth, pad[3];
};

#define TP_ROUTE6_NO_PORT UINT16_MAX

struct tp_ip6_nl_stats tp_ip6_nl_stats;
static struct rte_hash *prefixes;

int tp_ip6_nl_init(unsigned int max_prefixes)
{
	struct rte_hash_parameters hp = {
	    .name = "tp_route6_paths",
	    .entries = max_prefixes < 64 ? 64 : max_prefixes,
	    .key_len = sizeof(struct pkey),
	    .hash_func = rte_jhash,
	    .socket_id = SOCKET_ID_ANY,
	};

	prefixes = rte_hash_create(&hp);
	memset(&tp_ip6_nl_stats, 0, sizeof(tp_ip6_nl_stats));
	return prefixes ? 0 : -ENOMEM;
}

void tp_ip6_nl_fini(void)
{
	const void *k;
	void *data;
	uint32_t iter = 0;

	if (prefixes == NULL)
		return;
	while (rte_hash_iterate(prefixes, &k, &data, &iter) >= 0) {
		struct prefix6 *pf = data;
		free(pf->paths);
		free(pf);
	}
	rte_hash_free(prefixes);
	prefixes = NULL;
}

static int attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	uint16_t type = mnl_attr_get_type(a);

	if (type < ATTR_MAX)
		tb[type] = a;
	return MNL_CB_OK;
}

/* A 16-byte address attribute into ip; false if absent or of another size. */
static bool attr_ip6(const struct nlattr *a, uint8_t ip[16])
{
	if (a == NULL || mnl_attr_get_payload_len(a) != 16)
		return false;
	memcpy(ip, mnl_attr_get_payload(a), 16);
	return true;
}

static bool attr_u32(const struct nlattr *a, uint32_t *v)
{
	if (a == NULL || mnl_attr_get_payload_len(a) != 4)
		return false;
	*v = mnl_attr_get_u32(a);
	return true;
}

static bool path_eq(const struct path6 *a, const struct path6 *b)
{
	return a->table == b->table && a->metric == b->metric && a->type == b->type &&
	       a->port == b->port && memcmp(a->gw, b->gw, 16) == 0;
}

/* The path the kernel uses: the local table is looked up first, then the lowest
 * metric (the first of equals). */
static const struct path6 *best(const struct prefix6 *pf)
{
	const struct path6 *b = &pf->paths[0];

	for (unsigned int i = 1; i < pf->n; i++) {
		const struct path6 *p = &pf->paths[i];
		bool pl = p->table == RT_TABLE_LOCAL, bl = b->table == RT_TABLE_LOCAL;
		if ((pl && !bl) || (pl == bl && p->metric < b->metric))
			b = p;
	}
	return b;
}

/* Install pf's best path, or delete the prefix when it has none (pf freed). */
static void install(struct prefix6 *pf, const struct pkey *k)
{
	if (pf->n == 0) {
		tp_ip6_route_del(pf->ip, pf->depth);
		rte_hash_del_key(prefixes, k);
		free(pf->paths);
		free(pf);
		return;
	}
	const struct path6 *b = best(pf);
	int ret = tp_ip6_route_add(pf->ip, pf->depth, (enum tp_route6_type)b->type,
				   b->type == TP_ROUTE6_GATEWAY ? b->gw : NULL, b->port);
	if (ret < 0) {
		tp_ip6_nl_stats.add_failed++;
		TP_LOG(WARNING, "ip6 route /%u: %s", pf->depth, strerror(-ret));
	}
}

static void key_make(struct pkey *k, const uint8_t ip[16], uint8_t depth)
{
	memset(k, 0, sizeof(*k));
	for (unsigned int i = 0; i < 16; i++) {
		unsigned int bits = depth > i * 8 ? depth - i * 8 : 0;
		k->ip[i] = bits >= 8 ? ip[i] : (uint8_t)(ip[i] & (0xff00u >> bits));
	}
	k->depth = depth;
}

/* Add, refresh or (NLM_F_REPLACE) replace one kernel path of ip/depth. */
static int path_add(const uint8_t ip[16], uint8_t depth, const struct path6 *p, bool replace)
{
	struct prefix6 *pf;
	struct pkey k;
	void *data;

	key_make(&k, ip, depth);
	if (rte_hash_lookup_data(prefixes, &k, &data) >= 0) {
		pf = data;
	} else {
		pf = calloc(1, sizeof(*pf));
		if (pf == NULL)
			return -ENOMEM;
		memcpy(pf->ip, k.ip, 16);
		pf->depth = depth;
		int ret = rte_hash_add_key_data(prefixes, &k, pf);
		if (ret < 0) {
			free(pf);
			tp_ip6_nl_stats.index_full++;
			return ret;
		}
	}
	unsigned int i = 0;
	while (i < pf->n && !path_eq(&pf->paths[i], p))
		i++;
	if (i == pf->n && replace) { /* the kernel's first route of that table and metric */
		i = 0;
		while (i < pf->n &&
		       !(pf->paths[i].table == p->table && pf->paths[i].metric == p->metric))
			i++;
	}
	if (i == pf->n) {
		if (pf->n == pf->cap) {
			uint16_t cap = pf->cap ? (uint16_t)(pf->cap * 2) : 2;
			struct path6 *np = realloc(pf->paths, sizeof(*np) * cap);
			if (np == NULL) {
				if (pf->n == 0)
					install(pf, &k);
				return -ENOMEM;
			}
			pf->paths = np;
			pf->cap = cap;
		}
		pf->n++;
	}
	pf->paths[i] = *p;
	install(pf, &k);
	return 0;
}

/* Delete exactly the kernel path p of ip/depth. 0 or -ENOENT. */
static int path_del(const uint8_t ip[16], uint8_t depth, const struct path6 *p)
{
	struct prefix6 *pf;
	struct pkey k;
	void *data;

	key_make(&k, ip, depth);
	if (rte_hash_lookup_data(prefixes, &k, &data) < 0)
		return -ENOENT;
	pf = data;
	unsigned int i = 0;
	while (i < pf->n && !path_eq(&pf->paths[i], p))
		i++;
	if (i == pf->n)
		return -ENOENT;
	pf->paths[i] = pf->paths[--pf->n];
	install(pf, &k);
	return 0;
}

static void route_msg(const struct nlmsghdr *nlh, uint32_t gen)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[ATTR_MAX] = {0};
	struct path6 p = {.gen = gen, .port = TP_ROUTE6_NO_PORT};
	uint8_t dst[16] = {0};
	uint32_t oif = 0;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*rtm) || rtm->rtm_dst_len > 128)
		return;
	mnl_attr_parse(nlh, sizeof(*rtm), attr_cb, tb);
	if (!attr_u32(tb[RTA_TABLE], &p.table))
		p.table = rtm->rtm_table;
	if (p.table != RT_TABLE_MAIN && p.table != RT_TABLE_LOCAL)
		return;
	attr_u32(tb[RTA_PRIORITY], &p.metric);
	attr_ip6(tb[RTA_DST], dst);
	attr_u32(tb[RTA_OIF], &oif);
	attr_ip6(tb[RTA_GATEWAY], p.gw);
	if (tb[RTA_MULTIPATH] && oif == 0) {
		/* ECMP: mirrored through its first next hop, as IPv4's */
		const struct rtnexthop *nh = mnl_attr_get_payload(tb[RTA_MULTIPATH]);
		uint16_t room = mnl_attr_get_payload_len(tb[RTA_MULTIPATH]);
		const struct nlattr *ntb[ATTR_MAX] = {0};
		if (room >= sizeof(*nh) && nh->rtnh_len >= sizeof(*nh) && nh->rtnh_len <= room) {
			oif = (uint32_t)nh->rtnh_ifindex;
			mnl_attr_parse_payload(RTNH_DATA(nh), nh->rtnh_len - sizeof(*nh), attr_cb,
					       ntb);
			attr_ip6(ntb[RTA_GATEWAY], p.gw);
		}
	}
	static const uint8_t zero[16];
	switch (rtm->rtm_type) {
	case RTN_UNICAST:
		p.type = memcmp(p.gw, zero, 16) ? TP_ROUTE6_GATEWAY : TP_ROUTE6_CONNECTED;
		break;
	case RTN_LOCAL:
	case RTN_ANYCAST: /* RFC 4291 2.6.1: the subnet-router anycast address is ours */
		p.type = TP_ROUTE6_LOCAL;
		break;
	case RTN_BLACKHOLE:
		p.type = TP_ROUTE6_BLACKHOLE;
		break;
	case RTN_UNREACHABLE:
	case RTN_THROW: /* the kernel looks further: to the kernel */
		p.type = TP_ROUTE6_UNREACHABLE;
		break;
	case RTN_PROHIBIT:
		p.type = TP_ROUTE6_PROHIBIT;
		break;
	default: /* multicast (ff00::/8 in the local table): the fast path never looks up */
		if (nlh->nlmsg_type == RTM_NEWROUTE)
			tp_ip6_nl_stats.routes_ignored++;
		return;
	}
	if (p.type == TP_ROUTE6_CONNECTED || p.type == TP_ROUTE6_GATEWAY ||
	    p.type == TP_ROUTE6_LOCAL) {
		struct tp_port *port = tp_port_by_ifindex((int)oif);
		if (port == NULL) {
			if (nlh->nlmsg_type == RTM_NEWROUTE)
				tp_ip6_nl_stats.routes_ignored++;
			return; /* not through a TAP (lo's ::1, a management port) */
		}
		p.port = port->id;
	} else {
		memset(p.gw, 0, 16);
	}
	if (p.type != TP_ROUTE6_GATEWAY)
		memset(p.gw, 0, 16);
	if (nlh->nlmsg_type == RTM_DELROUTE)
		path_del(dst, rtm->rtm_dst_len, &p);
	else
		path_add(dst, rtm->rtm_dst_len, &p, (nlh->nlmsg_flags & NLM_F_REPLACE) != 0);
}

static void neigh_msg(const struct nlmsghdr *nlh, uint32_t gen)
{
	const struct ndmsg *nd = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[ATTR_MAX] = {0};
	const uint8_t *mac = NULL;
	struct tp_port *p;
	uint8_t ip[16];
	int nh;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*nd) ||
	    (p = tp_port_by_ifindex(nd->ndm_ifindex)) == NULL)
		return;
	mnl_attr_parse(nlh, sizeof(*nd), attr_cb, tb);
	if (!attr_ip6(tb[NDA_DST], ip))
		return;
	/* a group's entry (NUD_NOARP) is the kernel's map to its MAC (RFC 2464 7), not a
	 * next hop: the fast path hands groups to the kernel before any lookup */
	if (tp_ip6_is_multicast(ip)) {
		tp_ip6_nl_stats.neigh_ignored++;
		return;
	}
	if (nlh->nlmsg_type == RTM_NEWNEIGH && tb[NDA_LLADDR] &&
	    mnl_attr_get_payload_len(tb[NDA_LLADDR]) == 6 &&
	    (nd->ndm_state &
	     (NUD_REACHABLE | NUD_STALE | NUD_DELAY | NUD_PROBE | NUD_PERMANENT | NUD_NOARP)))
		mac = mnl_attr_get_payload(tb[NDA_LLADDR]);
	nh = tp_neigh6_learn(ip, p->id, mac);
	if (nh >= 0)
		tp_nh_table[nh].gen = gen;
}

void tp_ip6_nl_msg(const struct nlmsghdr *nlh, uint32_t gen)
{
	if (prefixes == NULL)
		return;
	switch (nlh->nlmsg_type) {
	case RTM_NEWROUTE:
	case RTM_DELROUTE:
		route_msg(nlh, gen);
		break;
	case RTM_NEWNEIGH:
	case RTM_DELNEIGH:
		neigh_msg(nlh, gen);
		break;
	default: /* addresses: each comes as a local route too */
		break;
	}
}

void tp_ip6_nl_sweep(uint32_t gen)
{
	struct pkey victims[256];
	unsigned int n;

	/* paths the dump did not show, in batches (the hash is not changed while it is
	 * iterated) */
	do {
		const void *k;
		void *data;
		uint32_t iter = 0;

		n = 0;
		while (n < RTE_DIM(victims) && rte_hash_iterate(prefixes, &k, &data, &iter) >= 0) {
			const struct prefix6 *pf = data;
			for (unsigned int i = 0; i < pf->n; i++)
				if (pf->paths[i].gen != gen) {
					memcpy(&victims[n++], k, sizeof(victims[0]));
					break;
				}
		}
		for (unsigned int v = 0; v < n; v++) {
			void *d;
			if (rte_hash_lookup_data(prefixes, &victims[v], &d) < 0)
				continue;
			struct prefix6 *pf = d;
			unsigned int before = pf->n;
			for (unsigned int i = pf->n; i-- > 0;)
				if (pf->paths[i].gen != gen)
					pf->paths[i] = pf->paths[--pf->n];
			tp_ip6_nl_stats.paths_swept += before - pf->n;
			install(pf, &victims[v]);
		}
	} while (n == RTE_DIM(victims));
	tp_ip6_nl_stats.neigh_swept += tp_neigh6_sweep(gen);
}

void tp_ip6_nl_flush_port(uint16_t port)
{
	struct pkey victims[256];
	unsigned int n;

	do {
		const void *k;
		void *data;
		uint32_t iter = 0;

		n = 0;
		while (n < RTE_DIM(victims) && rte_hash_iterate(prefixes, &k, &data, &iter) >= 0) {
			const struct prefix6 *pf = data;
			for (unsigned int i = 0; i < pf->n; i++)
				if (pf->paths[i].port == port) {
					memcpy(&victims[n++], k, sizeof(victims[0]));
					break;
				}
		}
		for (unsigned int v = 0; v < n; v++) {
			void *d;
			if (rte_hash_lookup_data(prefixes, &victims[v], &d) < 0)
				continue;
			struct prefix6 *pf = d;
			for (unsigned int i = pf->n; i-- > 0;)
				if (pf->paths[i].port == port)
					pf->paths[i] = pf->paths[--pf->n];
			install(pf, &victims[v]);
		}
	} while (n == RTE_DIM(victims));
}

unsigned int tp_ip6_nl_paths(const uint8_t ip[16], uint8_t depth)
{
	struct pkey k;
	void *data;

	key_make(&k, ip, depth);
	return rte_hash_lookup_data(prefixes, &k, &data) >= 0 ? ((struct prefix6 *)data)->n : 0;
}

static const struct tp_nl_family_ops ops = {
    .msg = tp_ip6_nl_msg,
    .sweep = tp_ip6_nl_sweep,
    .retry_wanted = tp_route6_retry_wanted,
    .retry = tp_route6_retry,
    .unfit_count = tp_route6_unfit_count,
};

int tp_ip6_nl_register(void)
{
	static const unsigned int groups[] = {RTNLGRP_IPV6_IFADDR, RTNLGRP_IPV6_ROUTE};

	return tp_nl_family_register(AF_INET6, &ops, groups, RTE_DIM(groups));
}

int tp_ip6_nl_best(const uint8_t ip[16], uint8_t depth, struct tp_ip6_nl_path *out)
{
	struct pkey k;
	void *data;

	key_make(&k, ip, depth);
	if (prefixes == NULL || rte_hash_lookup_data(prefixes, &k, &data) < 0 ||
	    ((struct prefix6 *)data)->n == 0)
		return -ENOENT;
	const struct path6 *b = best(data);
	out->table = b->table;
	out->metric = b->metric;
	memcpy(out->gw, b->gw, 16);
	out->port = b->port;
	out->type = b->type;
	return 0;
}

/* --- writes, through the sync manager's request socket (tp_nl_write) --- */

int tp_ip6_nl_addr(bool add, int ifindex, const uint8_t ip[16], uint8_t depth)
{
	/* no Duplicate Address Detection (RFC 4862 5.4): an address the operator gives
	 * the router is usable, and its local route there, when the command returns */
	return tp_nl_addr_af(AF_INET6, add, ifindex, ip, depth, NULL, IFA_F_NODAD);
}

int tp_ip6_nl_route(bool add, const uint8_t ip[16], uint8_t depth, const uint8_t *gw, int ifindex,
		    uint8_t rtn_type)
{
	return tp_nl_route_af(AF_INET6, add, ip, depth, gw, ifindex, rtn_type, RT_SCOPE_UNIVERSE);
}

int tp_ip6_nl_neigh(bool add, int ifindex, const uint8_t ip[16], const uint8_t *mac)
{
	return tp_nl_neigh_af(AF_INET6, add, ifindex, ip, mac);
}
