/* SPDX-License-Identifier: BSD-3-Clause */
/* Route table: rte_lpm for the data plane, an rte_hash of installed routes and a sorted
 * list of unfit ones for the control plane. */
#include <errno.h>
#include <stdlib.h>

#include <linux/rtnetlink.h>
#include <rte_errno.h>
#include <rte_hash.h>

#include "../../../core/log.h"
#include "../../../proto/ip4.h"
#include "../../../tables/keyed_hash.h"
#include "neigh.h"
#include "nexthop.h"
#include "nhg.h"
#include "route.h"

struct rte_lpm *tp_route_lpm;
struct tp_route_stats tp_route_stats;
static struct rte_hash *route_index; /* (ip, depth) -> installed struct tp_route * */
static unsigned int max_rules, n_tbl8;
static unsigned int nhg_max = TP_NHG_DEFAULT; /* next-hop groups at the next init */
/* per group id: the kernel nexthop object it stands for (0: one route's own group) and
 * the routes holding it */
static uint32_t *grp_nhid, *grp_refs;

/* Unfit routes sorted by (ip, depth): those a prefix covers are one run of it. */
static struct tp_route **unfit;
static unsigned int n_unfit, cap_unfit;
static unsigned int retry_cursor;
static unsigned int n_covers;	   /* installed routes with unfit_below > 0 */
static uint64_t freed, freed_seen; /* space freed (LPM rule, next hop) / at the last retry */

struct route_key {
	uint32_t ip;
	uint32_t depth;
};

static const char *const type_names[] = {
    [TP_ROUTE_CONNECTED] = "connected", [TP_ROUTE_GATEWAY] = "gateway",
    [TP_ROUTE_LOCAL] = "local",		[TP_ROUTE_HOST] = "host",
    [TP_ROUTE_BLACKHOLE] = "blackhole", [TP_ROUTE_UNREACHABLE] = "unreachable",
    [TP_ROUTE_PROHIBIT] = "prohibit",	[TP_ROUTE_THROW] = "throw",
    [TP_ROUTE_MULTIPATH] = "multipath",
};

static const char *const unfit_names[] = {
    [TP_UNFIT_NONE] = "",
    [TP_UNFIT_LPM_RULES] = "lpm_rules",
    [TP_UNFIT_LPM_TBL8] = "lpm_tbl8",
    [TP_UNFIT_INDEX] = "route_index",
    [TP_UNFIT_NEXTHOPS] = "nexthops",
    [TP_UNFIT_NEIGHBOURS] = "neighbours",
    [TP_UNFIT_NOMEM] = "nomem",
    [TP_UNFIT_GROUPS] = "nexthop_groups",
    [TP_UNFIT_GROUP_SIZE] = "group_size",
};

static const char *const unfit_texts[] = {
    [TP_UNFIT_NONE] = "fits",
    [TP_UNFIT_LPM_RULES] = "the route table (LPM rules, --max-routes) is full",
    [TP_UNFIT_LPM_TBL8] = ("the route table's tbl8 groups (for /25 to /32, --tbl8-groups) "
			   "are all in use"),
    [TP_UNFIT_INDEX] = "the route index (hash) is full",
    [TP_UNFIT_NEXTHOPS] = "the next-hop table is full",
    [TP_UNFIT_NEIGHBOURS] = "the neighbour table (hash) is full",
    [TP_UNFIT_NOMEM] = "out of memory",
    [TP_UNFIT_GROUPS] = "the next-hop group table is full",
    [TP_UNFIT_GROUP_SIZE] = "the route has more live next hops than a group holds (32)",
};

const char *tp_route_type_name(enum tp_route_type t)
{
	return t < RTE_DIM(type_names) ? type_names[t] : "?";
}

const char *tp_route_unfit_name(enum tp_route_unfit u)
{
	return u < RTE_DIM(unfit_names) ? unfit_names[u] : "?";
}

const char *tp_route_unfit_text(enum tp_route_unfit u)
{
	return u < RTE_DIM(unfit_texts) ? unfit_texts[u] : "?";
}

static uint32_t mask_of(uint8_t depth)
{
	return depth ? (uint32_t)(~0ull << (32 - depth)) : 0;
}

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

int tp_route_init2(struct rte_rcu_qsbr *qs, unsigned int max_routes, unsigned int tbl8_groups)
{
	struct rte_lpm_config lc = {
	    .max_rules = max_routes,
	    .number_tbl8s = tbl8_groups,
	};
	/* DQ mode: freed tbl8 groups wait in rte_lpm's own defer queue, reclaimed
	 * when it fills or a group is needed; a delete never waits for readers */
	struct rte_lpm_rcu_config rc = {.v = qs, .mode = RTE_LPM_QSBR_MODE_DQ};
	/* twice the rules: an index as full as the LPM still takes every insert (a
	 * cuckoo hash may refuse one well before it is full) */
	struct rte_hash_parameters hp = {
	    .name = "tp_route_idx",
	    .entries = 2 * max_routes < 16 ? 16 : 2 * max_routes,
	    .key_len = sizeof(struct route_key),
	    .hash_func = tp_keyed_hash, /* prefixes a routing peer may choose */
	    .socket_id = SOCKET_ID_ANY,
	};
	int err;

	if ((err = tp_hash_key_init()) < 0)
		return err;
	hp.hash_func_init_val = tp_hash_seed();
	if (max_routes == 0 || max_routes > (1u << 24) || tbl8_groups == 0 ||
	    tbl8_groups > (1u << 24))
		return -EINVAL;
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
	if ((err = tp_nhg_init(nhg_max)) < 0)
		goto free_index;
	grp_nhid = calloc(nhg_max, sizeof(*grp_nhid));
	grp_refs = calloc(nhg_max, sizeof(*grp_refs));
	if (grp_nhid == NULL || grp_refs == NULL) {
		err = -ENOMEM;
		goto free_groups;
	}
	max_rules = max_routes;
	n_tbl8 = tbl8_groups;
	freed = freed_seen = 0;
	return 0;
free_groups:
	free(grp_nhid);
	free(grp_refs);
	grp_nhid = grp_refs = NULL;
	tp_nhg_fini();
free_index:
	rte_hash_free(route_index);
	route_index = NULL;
free_lpm:
	rte_lpm_free(tp_route_lpm);
	tp_route_lpm = NULL;
	return err;
}

void tp_route_set_groups(unsigned int groups)
{
	nhg_max = groups;
}

int tp_route_init(struct rte_rcu_qsbr *qs, unsigned int max_routes)
{
	return tp_route_init2(qs, max_routes, 1 << 12);
}

static void route_free(struct tp_route *r)
{
	for (unsigned int i = 0; i < r->n_paths; i++)
		free(r->paths[i].hops);
	free(r->paths);
	free(r);
}

void tp_route_fini(void)
{
	uint32_t iter = 0;
	const void *key;
	void *data;

	while (route_index && rte_hash_iterate(route_index, &key, &data, &iter) >= 0)
		route_free(data);
	rte_hash_free(route_index);
	route_index = NULL;
	for (unsigned int i = 0; i < n_unfit; i++)
		if (!unfit[i]->installed) /* the others were in the index */
			route_free(unfit[i]);
	free(unfit);
	unfit = NULL;
	n_unfit = cap_unfit = retry_cursor = n_covers = 0;
	rte_lpm_free(tp_route_lpm);
	tp_route_lpm = NULL;
	tp_nhg_fini();
	free(grp_nhid);
	free(grp_refs);
	grp_nhid = grp_refs = NULL;
}

unsigned int tp_route_max_routes(void)
{
	return max_rules;
}

unsigned int tp_route_tbl8_groups(void)
{
	return n_tbl8;
}

/* --- the installed routes --- */
static struct tp_route *installed_find(uint32_t ip, uint8_t depth)
{
	struct route_key k = {ip, depth};
	void *data;

	if (rte_hash_lookup_data(route_index, &k, &data) < 0)
		return NULL;
	return data;
}

/* What the LPM holds for r: a cover of unfit routes punts. */
static uint32_t lpm_value(const struct tp_route *r)
{
	return r->unfit_below ? TP_NH_UNFIT : r->nh;
}

/* Rewrite an installed route's LPM rule (an existing rule: no new rule, no tbl8). */
static void lpm_update(struct tp_route *r)
{
	int ret = rte_lpm_add(tp_route_lpm, r->ip, r->depth, lpm_value(r));

	if (ret < 0) { /* an existing rule only changes its next hop: never expected */
		char b[16];
		TP_LOG(ERR, "route %s/%u: LPM update: %s", tp_ip4_fmt(r->ip, b), r->depth,
		       strerror(-ret));
	}
}

/* The longest installed route covering ip/depth (shorter than depth), or NULL. */
static struct tp_route *cover_find(uint32_t ip, uint8_t depth)
{
	for (int d = (int)depth - 1; d >= 0; d--) {
		struct tp_route *c = installed_find(ip & mask_of((uint8_t)d), (uint8_t)d);
		if (c != NULL)
			return c;
	}
	return NULL;
}

/* u (unfit) is now punted for by c (NULL: no route covers it, a miss punts). The new
 * cover punts before the old one forwards again, so no packet of u's prefix takes a
 * less specific route in between. */
static void cover_set(struct tp_route *u, struct tp_route *c)
{
	struct tp_route *old = u->cover;

	if (old == c)
		return;
	u->cover = c;
	if (c != NULL && c->unfit_below++ == 0) {
		n_covers++;
		lpm_update(c);
	}
	if (old != NULL && --old->unfit_below == 0) {
		n_covers--;
		if (!old->dying) /* going anyway: never back to its own next hop */
			lpm_update(old);
	}
}

/* --- the unfit list --- */
static int key_cmp(uint32_t ip, uint8_t depth, const struct tp_route *r)
{
	if (ip != r->ip)
		return ip < r->ip ? -1 : 1;
	return depth == r->depth ? 0 : depth < r->depth ? -1 : 1;
}

/* Index of the first unfit route not below (ip, depth) in the list's order. */
static unsigned int unfit_lower_bound(uint32_t ip, uint8_t depth)
{
	unsigned int lo = 0, hi = n_unfit;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;
		if (key_cmp(ip, depth, unfit[mid]) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct tp_route *unfit_find(uint32_t ip, uint8_t depth)
{
	unsigned int i = unfit_lower_bound(ip, depth);

	return i < n_unfit && key_cmp(ip, depth, unfit[i]) == 0 ? unfit[i] : NULL;
}

/* r joins the list; a route without an LPM rule gets a cover. */
static int unfit_insert(struct tp_route *r)
{
	unsigned int i;

	if (n_unfit == cap_unfit) {
		unsigned int cap = cap_unfit ? 2 * cap_unfit : 64;
		struct tp_route **n = realloc(unfit, cap * sizeof(*n));
		if (n == NULL)
			return -ENOMEM;
		unfit = n;
		cap_unfit = cap;
	}
	i = unfit_lower_bound(r->ip, r->depth);
	memmove(&unfit[i + 1], &unfit[i], (n_unfit - i) * sizeof(*unfit));
	unfit[i] = r;
	n_unfit++;
	r->listed = 1;
	if (!r->installed)
		cover_set(r, cover_find(r->ip, r->depth));
	return 0;
}

static void unfit_remove(struct tp_route *r)
{
	unsigned int i = unfit_lower_bound(r->ip, r->depth);

	if (i == n_unfit || unfit[i] != r)
		return;
	memmove(&unfit[i], &unfit[i + 1], (n_unfit - i - 1) * sizeof(*unfit));
	n_unfit--;
	r->listed = 0;
	cover_set(r, NULL);
}

/* The run of unfit routes strictly inside r: [*first, *end). */
static void unfit_range(const struct tp_route *r, unsigned int *first, unsigned int *end)
{
	uint32_t last = r->ip | ~mask_of(r->depth);
	unsigned int i =
	    r->depth < 32 ? unfit_lower_bound(r->ip, (uint8_t)(r->depth + 1)) : n_unfit;

	*first = i;
	while (i < n_unfit && unfit[i]->ip <= last)
		i++;
	*end = i;
}

/* r was just installed: the unfit routes it covers more closely than their cover
 * are now punted for by r. */
static void covers_adopt(struct tp_route *r)
{
	unsigned int i, end;

	unfit_range(r, &i, &end);
	for (; i < end; i++)
		if (!unfit[i]->installed &&
		    (unfit[i]->cover == NULL || unfit[i]->cover->depth < r->depth))
			cover_set(unfit[i], r);
}

/* r is no longer in the index (and still in the LPM): what it punted for goes to
 * the next cover. */
static void covers_release(struct tp_route *r)
{
	unsigned int i, end;

	if (r->unfit_below == 0)
		return;
	unfit_range(r, &i, &end);
	for (; i < end && r->unfit_below > 0; i++)
		if (unfit[i]->cover == r)
			cover_set(unfit[i], cover_find(unfit[i]->ip, unfit[i]->depth));
}

/* --- paths --- */
/* The same next hops, in the same order (the kernel keeps its order); dead or not. */
static bool hops_same(const struct tp_route_path *a, const struct tp_route_path *b)
{
	if (a->n_hops != b->n_hops)
		return false;
	for (unsigned int i = 0; i < a->n_hops; i++)
		if (a->hops[i].gw != b->hops[i].gw || a->hops[i].port != b->hops[i].port ||
		    a->hops[i].weight != b->hops[i].weight)
			return false;
	return true;
}

static bool path_same(const struct tp_route_path *a, const struct tp_route_path *b)
{
	return a->table == b->table && a->metric == b->metric && a->type == b->type &&
	       a->gw == b->gw && a->port == b->port &&
	       (a->type != TP_ROUTE_MULTIPATH || hops_same(a, b));
}

/* Path order, the kernel's: the local table before main (its rule comes first), a
 * lower metric first; the neighbour's host route (table 0) last. */
static int path_rank_cmp(const struct tp_route_path *a, const struct tp_route_path *b)
{
	int ra = a->table == RT_TABLE_LOCAL ? 0 : a->table ? 1 : 2;
	int rb = b->table == RT_TABLE_LOCAL ? 0 : b->table ? 1 : 2;

	if (ra != rb)
		return ra - rb;
	if (a->table != b->table)
		return a->table < b->table ? -1 : 1;
	return a->metric == b->metric ? 0 : a->metric < b->metric ? -1 : 1;
}

/* Insert p after the paths that rank before or with it. */
static int path_insert(struct tp_route *r, const struct tp_route_path *p)
{
	unsigned int i = 0;

	if (r->n_paths == r->cap_paths) {
		uint16_t cap = r->cap_paths ? (uint16_t)(2 * r->cap_paths) : 1;
		struct tp_route_path *n;
		if (r->cap_paths >= 1024)
			return -ENOSPC;
		n = realloc(r->paths, cap * sizeof(*n));
		if (n == NULL)
			return -ENOMEM;
		r->paths = n;
		r->cap_paths = cap;
	}
	struct tp_route_hop *hops = NULL;
	if (p->type == TP_ROUTE_MULTIPATH) { /* the route's own copy */
		hops = malloc(p->n_hops * sizeof(*hops));
		if (hops == NULL)
			return -ENOMEM;
		memcpy(hops, p->hops, p->n_hops * sizeof(*hops));
	}
	while (i < r->n_paths && path_rank_cmp(&r->paths[i], p) <= 0)
		i++;
	memmove(&r->paths[i + 1], &r->paths[i], (r->n_paths - i) * sizeof(*p));
	r->paths[i] = *p;
	r->paths[i].hops = hops;
	r->paths[i].n_hops = hops ? p->n_hops : 0;
	r->n_paths++;
	return 0;
}

static void path_remove(struct tp_route *r, unsigned int i)
{
	free(r->paths[i].hops);
	memmove(&r->paths[i], &r->paths[i + 1], (r->n_paths - i - 1) * sizeof(*r->paths));
	r->n_paths--;
}

/* --- next hops --- */
/* Drop the references nh holds: a neighbour's, or a group's members' and the group
 * (freed after a grace period). */
static void nh_put(uint32_t nh)
{
	if (nh & TP_NH_GROUP) {
		uint32_t gid = nh & TP_NHG_ID_MASK;
		const struct tp_nhg *g = tp_nhg_get(gid);
		if (grp_refs[gid] > 1) { /* other routes of the object hold it */
			grp_refs[gid]--;
			return;
		}
		grp_refs[gid] = 0;
		grp_nhid[gid] = 0;
		for (unsigned int i = 0; g != NULL && i < g->n; i++)
			tp_neigh_unref(g->m[i].nh);
		tp_nhg_free(gid);
	} else if (!tp_nh_special(nh)) {
		tp_neigh_unref(nh);
	}
}

/* Members m[0..n): the references they hold dropped. */
static void members_put(const struct tp_nhg_member *m, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		tp_neigh_unref(m[i].nh);
}

/* The group of kernel nexthop object nhid, or -1. */
static int group_of_object(uint32_t nhid)
{
	for (unsigned int g = 0; g < nhg_max; g++)
		if (grp_refs[g] > 0 && grp_nhid[g] == nhid)
			return (int)g;
	return -1;
}

/* Group gid's members are m[0..n) (in order, weights too). */
static bool group_is(uint32_t gid, const struct tp_nhg_member *m, unsigned int n)
{
	const struct tp_nhg *g = tp_nhg_get(gid);

	return g != NULL && g->n == n && memcmp(g->m, m, n * sizeof(*m)) == 0;
}

/* Give group gid the members m[0..n) (their references taken): nothing when it has them
 * (the references dropped), else a new bucket table (built from its own, or from from's
 * for a group without one) and the old members' references dropped. 0 or negative
 * errno (the references of m dropped). */
static int group_update(uint32_t gid, const struct tp_nhg_member *m, unsigned int n,
			const struct tp_nhg *from)
{
	struct tp_nhg_member old[TP_NHG_MEMBERS];
	const struct tp_nhg *g = tp_nhg_get(gid);
	unsigned int n_old = g ? g->n : 0;
	int ret;

	if (group_is(gid, m, n)) {
		members_put(m, n);
		return 0;
	}
	memcpy(old, g ? g->m : old, n_old * sizeof(*old));
	if ((ret = tp_nhg_set_from(gid, m, n, from)) < 0) {
		members_put(m, n);
		return ret;
	}
	/* the old table's members stay allocated for its readers: a neighbour's next hop
	 * is freed a grace period after its last reference, the old table too */
	members_put(old, n_old);
	return 0;
}

/* The group a multipath path needs, its members' neighbours referenced: TP_NH_GROUP |
 * id, a special next hop when none of its hops is alive (the kernel decides), or a
 * negative enum tp_route_unfit. The routes of one kernel nexthop object (p->nhid) share
 * its group; a route's own group (no object) keeps its id when the route changes. A
 * group made anew for a route that had one starts from that one's buckets: the flows of
 * the next hops both have stay where they were (zebra replaces a route's object by
 * another when a next hop goes). */
static int path_group(const struct tp_route *r, const struct tp_route_path *p)
{
	struct tp_nhg_member m[TP_NHG_MEMBERS];
	unsigned int n = 0;
	int cur = r->installed && (r->nh & TP_NH_GROUP) ? (int)(r->nh & TP_NHG_ID_MASK) : -1;
	int gid, ret;

	for (unsigned int i = 0; i < p->n_hops; i++) {
		const struct tp_route_hop *h = &p->hops[i];
		unsigned int j;
		int nh;
		if (h->dead)
			continue;
		if (n == TP_NHG_MEMBERS) {
			members_put(m, n);
			return -TP_UNFIT_GROUP_SIZE;
		}
		if ((nh = tp_neigh_ref(h->gw, h->port)) < 0) {
			members_put(m, n);
			return tp_nh_full() ? -TP_UNFIT_NEXTHOPS : -TP_UNFIT_NEIGHBOURS;
		}
		for (j = 0; j < n && m[j].nh != (uint32_t)nh; j++)
			;
		if (j < n) { /* the same gateway twice: one member, the weights added */
			m[j].weight = RTE_MIN(m[j].weight + h->weight, 256u);
			tp_neigh_unref((uint32_t)nh);
			continue;
		}
		m[n++] = (struct tp_nhg_member){(uint32_t)nh, h->weight ? h->weight : 1};
	}
	if (n == 0)
		return TP_NH_UNREACHABLE;
	/* the group to use: the object's (shared), or the route's own, kept */
	gid = p->nhid ? group_of_object(p->nhid) : -1;
	bool fresh = false;
	if (gid < 0 && cur >= 0 && grp_refs[cur] == 1 && (p->nhid || grp_nhid[cur] == 0)) {
		gid = cur; /* the route alone holds its group: it becomes the object's, or stays */
		grp_nhid[gid] = p->nhid;
	}
	if (gid < 0) {
		if ((gid = tp_nhg_alloc()) < 0) {
			members_put(m, n);
			return -TP_UNFIT_GROUPS;
		}
		fresh = true;
	}
	ret = group_update((uint32_t)gid, m, n, cur >= 0 ? tp_nhg_get((uint32_t)cur) : NULL);
	if (ret < 0) {
		if (fresh)
			tp_nhg_free((uint32_t)gid);
		return ret == -ENOMEM ? -TP_UNFIT_NOMEM : -TP_UNFIT_GROUPS;
	}
	if (fresh) {
		grp_nhid[gid] = p->nhid;
		grp_refs[gid] = 1;
	} else if (gid != cur) {
		grp_refs[gid]++; /* the object's group, one route more */
	}
	return (int)(TP_NH_GROUP | (uint32_t)gid);
}

/* The next hop p needs, a neighbour's referenced (or a group, path_group): >= 0, or a
 * negative enum tp_route_unfit when it cannot have one. */
static int path_nh(const struct tp_route *r, const struct tp_route_path *p)
{
	int nh;

	if (p->type == TP_ROUTE_MULTIPATH)
		return path_group(r, p);
	if (p->type != TP_ROUTE_GATEWAY && p->type != TP_ROUTE_HOST)
		return (int)route_special_nh((enum tp_route_type)p->type);
	nh = tp_neigh_ref(p->gw, p->port);
	if (nh >= 0)
		return nh;
	return tp_nh_full() ? -TP_UNFIT_NEXTHOPS : -TP_UNFIT_NEIGHBOURS;
}

static void nh_release(uint32_t nh)
{
	if (!tp_nh_special(nh)) {
		nh_put(nh);
		freed++;
	}
}

/* --- state changes --- */
static void unfit_note(struct tp_route *r, enum tp_route_unfit why)
{
	char b[16];

	if (r->unfit == why)
		return;
	tp_route_stats.unfit[why]++;
	/* once per route and reason, not at each retry */
	TP_LOG(WARNING, "route %s/%u does not fit: %s; its traffic goes to the kernel",
	       tp_ip4_fmt(r->ip, b), r->depth, tp_route_unfit_text(why));
	r->unfit = (uint8_t)why;
}

/* Why rte_lpm_add refused r (ret): the rules or, for a /25../32, the tbl8 groups. */
static enum tp_route_unfit lpm_reason(const struct tp_route *r, int ret)
{
	if (ret == -ENOSPC && r->depth > 24 && rte_hash_count(route_index) < (int32_t)max_rules)
		return TP_UNFIT_LPM_TBL8;
	return TP_UNFIT_LPM_RULES;
}

/* Bring r in step with its best path: installed with its next hop, installed
 * punting (no next hop to be had), or without a rule (punted for by its cover).
 * r has paths. On the unfit list while it is not fully in the data plane. */
static void route_settle(struct tp_route *r)
{
	const struct tp_route_path *p = &r->paths[0];
	enum tp_route_unfit why = TP_UNFIT_NONE;
	int nh = path_nh(r, p);

	if (nh < 0) {
		why = (enum tp_route_unfit) - nh;
		nh = TP_NH_UNFIT;
	}
	r->type = p->type;
	r->kernel = p->table != 0;
	r->gw = p->type == TP_ROUTE_GATEWAY || p->type == TP_ROUTE_HOST ? p->gw : 0;
	/* a multipath route's port is TP_ROUTE_NO_PORT: its hops have theirs */
	r->port = p->port;
	r->gen = p->gen;
	r->metric = p->metric;
	r->table = p->table;
	if (!r->installed) {
		struct route_key k = {r->ip, r->depth};
		int ret;

		r->nh = (uint32_t)nh;
		if (rte_hash_count(route_index) >= (int32_t)max_rules)
			ret = -ENOSPC; /* no rule left: no need to ask (rte_lpm scans its rules) */
		else
			ret = rte_lpm_add(tp_route_lpm, r->ip, r->depth, lpm_value(r));
		if (ret == 0 && rte_hash_add_key_data(route_index, &k, r) < 0) {
			rte_lpm_delete(tp_route_lpm, r->ip, r->depth);
			ret = 1;
		}
		if (ret != 0) {
			/* without a rule it holds no next hop (this one was not freed space) */
			nh_put((uint32_t)nh);
			r->nh = TP_NH_UNFIT;
			why = ret > 0 ? TP_UNFIT_INDEX : lpm_reason(r, ret);
			if (!r->listed && unfit_insert(r) < 0) {
				char b[16];
				tp_route_stats.unfit[TP_UNFIT_NOMEM]++;
				TP_LOG(ERR, "route %s/%u: no memory to keep it as unfit",
				       tp_ip4_fmt(r->ip, b), r->depth);
			}
			unfit_note(r, why);
			return;
		}
		r->installed = 1;
		cover_set(r, NULL); /* its rule is in: the cover may forward again */
		covers_adopt(r);
	} else {
		/* the same rule, another next hop (the old one goes after) */
		uint32_t old_nh = r->nh, before = lpm_value(r);
		r->nh = (uint32_t)nh;
		if (lpm_value(r) != before)
			lpm_update(r);
		if (old_nh != r->nh || !(old_nh & TP_NH_GROUP)) /* a group kept: already done */
			nh_release(old_nh);
	}
	if (why == TP_UNFIT_NONE) {
		if (r->listed) {
			unfit_remove(r);
			tp_route_stats.refit++;
		}
		r->unfit = TP_UNFIT_NONE;
	} else {
		if (!r->listed && unfit_insert(r) < 0)
			tp_route_stats.unfit[TP_UNFIT_NOMEM]++;
		unfit_note(r, why);
	}
}

/* r has no path left: out of the data plane and freed. */
static void route_drop(struct tp_route *r)
{
	if (r->installed) {
		struct route_key k = {r->ip, r->depth};
		r->dying = 1;
		rte_hash_del_key(route_index, &k);
		covers_release(r); /* the next covers punt before this rule goes */
		rte_lpm_delete(tp_route_lpm, r->ip, r->depth);
		freed++;
		nh_release(r->nh);
	}
	if (r->listed)
		unfit_remove(r);
	route_free(r);
}

/* After r's paths changed. */
static void route_update(struct tp_route *r)
{
	if (r->n_paths == 0)
		route_drop(r);
	else
		route_settle(r);
}

const struct tp_route *tp_route_find(uint32_t ip, uint8_t depth)
{
	struct tp_route *r;

	if (depth > 32)
		return NULL;
	ip &= mask_of(depth);
	r = installed_find(ip, depth);
	return r ? r : unfit_find(ip, depth);
}

static struct tp_route *route_get(uint32_t ip, uint8_t depth)
{
	return (struct tp_route *)(uintptr_t)tp_route_find(ip, depth);
}

/* A route of no path yet, for ip/depth (masked). */
static struct tp_route *route_new(uint32_t ip, uint8_t depth)
{
	struct tp_route *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	r->ip = ip;
	r->depth = depth;
	r->nh = TP_NH_UNFIT;
	return r;
}

/* Copy p's hops' dead flags into have's (the same hops); true when one changed. */
static bool hops_dead_update(struct tp_route_path *have, const struct tp_route_path *p)
{
	bool changed = false;

	for (unsigned int i = 0; i < have->n_hops && p->hops != NULL; i++)
		if (have->hops[i].dead != p->hops[i].dead) {
			have->hops[i].dead = p->hops[i].dead;
			changed = true;
		}
	return changed;
}

static int route_result(const struct tp_route *r)
{
	return r->unfit;
}

int tp_route_add_path(uint32_t ip, uint8_t depth, const struct tp_route_path *p, bool replace)
{
	struct tp_route *r;
	unsigned int i;
	int ret;

	if (depth > 32 || p->table == 0 || p->type > TP_ROUTE_MULTIPATH ||
	    (p->type == TP_ROUTE_MULTIPATH && (p->n_hops == 0 || p->hops == NULL)))
		return -EINVAL;
	ip &= mask_of(depth);
	r = route_get(ip, depth);
	if (r == NULL) {
		if ((r = route_new(ip, depth)) == NULL || path_insert(r, p) < 0) {
			if (r != NULL)
				route_free(r);
			return -ENOMEM;
		}
		route_settle(r);
		return route_result(r);
	}
	for (i = 0; i < r->n_paths; i++)
		if (replace ? r->paths[i].table == p->table && r->paths[i].metric == p->metric
			    : path_same(&r->paths[i], p))
			break;
	if (i < r->n_paths && path_same(&r->paths[i], p)) {
		r->paths[i].gen = p->gen; /* the same route again (a dump) */
		if (i == 0)
			r->gen = p->gen;
		if (hops_dead_update(&r->paths[i], p) && i == 0)
			route_settle(r); /* a hop died or came back: the group without it */
		return route_result(r);
	}
	bool removed = i < r->n_paths;
	if (removed) /* NLM_F_REPLACE: the kernel's route of that table and metric */
		path_remove(r, i);
	if ((ret = path_insert(r, p)) < 0) {
		if (removed)
			route_update(r);
		return ret;
	}
	route_settle(r);
	return route_result(r);
}

int tp_route_add_multipath(uint32_t ip, uint8_t depth, const struct tp_route_hop *hops,
			   unsigned int n, uint32_t gen)
{
	struct tp_route_path p = {
	    .table = RT_TABLE_MAIN,
	    .port = TP_ROUTE_NO_PORT,
	    .type = TP_ROUTE_MULTIPATH,
	    .gen = gen,
	    .n_hops = (uint16_t)n,
	    .hops = (struct tp_route_hop *)(uintptr_t)hops,
	};

	if (n == 0 || n > UINT16_MAX)
		return -EINVAL;
	return tp_route_add_path(ip, depth, &p, true);
}

int tp_route_add(uint32_t ip, uint8_t depth, enum tp_route_type type, uint32_t gw, uint16_t port,
		 uint32_t gen)
{
	struct tp_route_path p = {
	    .table = RT_TABLE_MAIN,
	    .gw = type == TP_ROUTE_GATEWAY ? gw : 0,
	    .port = port,
	    .type = (uint8_t)type,
	    .gen = gen,
	};

	return tp_route_add_path(ip, depth, &p, true);
}

int tp_route_del_path(uint32_t ip, uint8_t depth, const struct tp_route_path *p)
{
	struct tp_route *r;

	if (depth > 32) /* no such route (and no shift by a negative count: fuzz_netlink) */
		return -ENOENT;
	r = route_get(ip & mask_of(depth), depth);
	if (r == NULL)
		return -ENOENT;
	for (unsigned int i = 0; i < r->n_paths; i++)
		if (r->paths[i].table != 0 && path_same(&r->paths[i], p)) {
			path_remove(r, i);
			if (i == 0 || r->n_paths == 0)
				route_update(r);
			return 0;
		}
	return -ENOENT;
}

/* Remove r's paths for which drop() is true; 1 if any went. */
static int route_prune(struct tp_route *r, bool (*drop)(const struct tp_route_path *, uint32_t),
		       uint32_t arg)
{
	unsigned int i = 0;
	bool first = false, any = false;

	while (i < r->n_paths) {
		if (drop(&r->paths[i], arg)) {
			first |= i == 0;
			any = true;
			path_remove(r, i);
		} else {
			i++;
		}
	}
	if (first || (any && r->n_paths == 0))
		route_update(r);
	return any;
}

static bool path_kernel(const struct tp_route_path *p, uint32_t arg)
{
	return p->table != 0;
}

int tp_route_del(uint32_t ip, uint8_t depth)
{
	struct tp_route *r;

	if (depth > 32)
		return -ENOENT;
	r = route_get(ip & mask_of(depth), depth);
	return r != NULL && route_prune(r, path_kernel, 0) ? 0 : -ENOENT;
}

static bool path_host(const struct tp_route_path *p, uint32_t arg)
{
	return p->table == 0;
}

void tp_route_host_update(uint32_t ip, uint16_t port, int nh)
{
	struct tp_route *r = route_get(ip, 32);
	struct tp_route_path hp = {.gw = ip, .port = port, .type = TP_ROUTE_HOST};

	if (nh < 0) {
		if (r != NULL)
			route_prune(r, path_host, 0);
		return;
	}
	if (r != NULL) {
		for (unsigned int i = 0; i < r->n_paths; i++)
			if (r->paths[i].table == 0) {
				if (r->paths[i].port == port)
					return;
				r->paths[i].port = port; /* the neighbour moved */
				if (i == 0)
					route_settle(r);
				return;
			}
	} else if ((r = route_new(ip, 32)) == NULL) {
		return;
	}
	if (path_insert(r, &hp) < 0) {
		if (r->n_paths == 0)
			route_free(r);
		return;
	}
	if (r->n_paths == 1 || r->paths[0].table == 0)
		route_settle(r);
}

/* Up to n routes (installed, then unfit) for which want() is true, from the start. */
static unsigned int routes_collect(struct tp_route **out, unsigned int n,
				   bool (*want)(const struct tp_route *, uint32_t), uint32_t arg)
{
	uint32_t iter = 0;
	const struct tp_route *r;
	unsigned int k = 0;

	while (k < n && (r = tp_route_iterate(&iter)) != NULL)
		if (want(r, arg))
			out[k++] = (struct tp_route *)(uintptr_t)r;
	return k;
}

static bool path_stale(const struct tp_route_path *p, uint32_t gen)
{
	return p->table != 0 && p->gen != gen;
}

static bool route_stale(const struct tp_route *r, uint32_t gen)
{
	for (unsigned int i = 0; i < r->n_paths; i++)
		if (path_stale(&r->paths[i], gen))
			return true;
	return false;
}

unsigned int tp_route_sweep(uint32_t gen)
{
	struct tp_route *stale[256];
	unsigned int n, total = 0;

	do {
		n = routes_collect(stale, RTE_DIM(stale), route_stale, gen);
		for (unsigned int i = 0; i < n; i++)
			route_prune(stale[i], path_stale, gen);
		total += n;
	} while (n == RTE_DIM(stale));
	return total;
}

/* A path through port: its own, or one of its hops' (the kernel drops a multipath
 * route when one of its devices goes). */
static bool path_on_port(const struct tp_route_path *p, uint32_t port)
{
	for (unsigned int i = 0; i < p->n_hops; i++)
		if (p->hops[i].port == port)
			return true;
	return p->port == port;
}

static bool route_on_port(const struct tp_route *r, uint32_t port)
{
	for (unsigned int i = 0; i < r->n_paths; i++)
		if (path_on_port(&r->paths[i], port))
			return true;
	return false;
}

void tp_route_flush_port(uint16_t port)
{
	struct tp_route *victims[256];
	unsigned int n;

	do {
		n = routes_collect(victims, RTE_DIM(victims), route_on_port, port);
		for (unsigned int i = 0; i < n; i++)
			route_prune(victims[i], path_on_port, port);
	} while (n == RTE_DIM(victims));
}

/* --- nexthop objects --- */
static const struct tp_route_hop *nhid_hops;
static unsigned int nhid_n;

/* A kernel path of object nhid whose hops are not nhid_hops (dead flags included), or
 * any of its paths when there are none. */
static bool path_nhid_stale(const struct tp_route_path *p, uint32_t nhid)
{
	if (p->table == 0 || p->nhid != nhid)
		return false;
	if (nhid_n == 0 || p->n_hops != nhid_n) /* none: every path of the object goes */
		return true;
	for (unsigned int i = 0; i < nhid_n; i++)
		if (p->hops[i].gw != nhid_hops[i].gw || p->hops[i].port != nhid_hops[i].port ||
		    p->hops[i].weight != nhid_hops[i].weight ||
		    p->hops[i].dead != nhid_hops[i].dead)
			return true;
	return false;
}

static bool route_nhid_stale(const struct tp_route *r, uint32_t nhid)
{
	for (unsigned int i = 0; i < r->n_paths; i++)
		if (path_nhid_stale(&r->paths[i], nhid))
			return true;
	return false;
}

unsigned int tp_route_nhid_update(uint32_t nhid, const struct tp_route_hop *hops, unsigned int n)
{
	struct tp_route *batch[256];
	unsigned int k, total = 0;

	if (nhid == 0 || n > UINT16_MAX)
		return 0;
	nhid_hops = hops;
	nhid_n = n;
	do {
		k = routes_collect(batch, RTE_DIM(batch), route_nhid_stale, nhid);
		for (unsigned int j = 0; j < k; j++) {
			struct tp_route *r = batch[j];
			bool first = false;
			if (n == 0) {
				route_prune(r, path_nhid_stale, nhid);
				continue;
			}
			for (unsigned int i = 0; i < r->n_paths; i++) {
				struct tp_route_path *p = &r->paths[i];
				struct tp_route_hop *h;
				if (!path_nhid_stale(p, nhid) ||
				    (h = malloc(n * sizeof(*h))) == NULL)
					continue;
				memcpy(h, hops, n * sizeof(*h));
				free(p->hops);
				p->hops = h;
				p->n_hops = (uint16_t)n;
				p->type = TP_ROUTE_MULTIPATH;
				p->gw = 0;
				p->port = TP_ROUTE_NO_PORT;
				first |= i == 0;
			}
			if (first)
				route_settle(r);
		}
		total += k;
	} while (k == RTE_DIM(batch));
	return total;
}

/* --- retries --- */
bool tp_route_retry_wanted(void)
{
	return n_unfit > 0 && freed != freed_seen;
}

unsigned int tp_route_retry(unsigned int budget)
{
	struct tp_route *batch[256];
	unsigned int n = 0, fit = 0;

	freed_seen = freed;
	if (budget > RTE_DIM(batch))
		budget = RTE_DIM(batch);
	/* oldest attempt first: from where the last retry stopped, round the list */
	for (unsigned int i = 0; i < n_unfit && n < budget; i++)
		batch[n++] = unfit[(retry_cursor + i) % n_unfit];
	retry_cursor = n_unfit ? (retry_cursor + n) % n_unfit : 0;
	for (unsigned int i = 0; i < n; i++) {
		struct tp_route *r = batch[i];
		if (!r->installed && rte_hash_count(route_index) >= (int32_t)max_rules)
			continue; /* no rule left for it */
		tp_route_stats.retries++;
		route_settle(r);
		fit += r->unfit == TP_UNFIT_NONE;
	}
	return fit;
}

unsigned int tp_route_unfit_count(void)
{
	return n_unfit;
}

unsigned int tp_route_unfit_covers(void)
{
	return n_covers;
}

#define ITER_UNFIT 0x80000000u

const struct tp_route *tp_route_iterate(uint32_t *iter)
{
	const void *key;
	void *data;

	if (!(*iter & ITER_UNFIT)) {
		if (rte_hash_iterate(route_index, &key, &data, iter) >= 0)
			return data;
		*iter = ITER_UNFIT;
	}
	/* the unfit routes without a rule (those with one were in the index) */
	while ((*iter & ~ITER_UNFIT) < n_unfit) {
		struct tp_route *r = unfit[(*iter)++ & ~ITER_UNFIT];
		if (!r->installed)
			return r;
	}
	return NULL;
}

unsigned int tp_route_count(void)
{
	return (unsigned int)rte_hash_count(route_index);
}
