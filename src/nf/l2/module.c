/* SPDX-License-Identifier: BSD-3-Clause */
/* The L2 switch as a module: its counters, the "l2" and "chain" port modes, the
 * MAC table (the control plane its only writer: learn events, aging, static
 * entries), bridges, NFs and service chains, and their commands. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_hash.h>
#include <rte_malloc.h>

#include "../../control/cmd.h"
#include "../../control/port.h"
#include "../../control/timer.h"
#include "../../core/input.h"
#include "../../core/log.h"
#include "../../core/rcu.h"
#include "../../core/tp.h"
#include "../../tables/iface.h"
#include "../../tables/rcu_hash.h"
#include "l2.h"

#define L2_NF_MAX 32
#define L2_CHAINS_MAX 16
#define L2_CHAIN_LEN_MAX 8

struct rte_hash *l2_macs;
struct l2_mac *l2_mac_table;
uint64_t l2_gen = 1;
struct l2_bridge l2_bridges[L2_BRIDGES_MAX];

static uint32_t mac_cap = L2_MACS_DEFAULT;
static uint32_t *free_idx; /* stack of free entries */
static uint32_t n_free, hiwater;
static uint32_t n_dyn[TP_MAX_PORTS];	  /* dynamic entries per port */
static uint32_t n_br[L2_BRIDGES_MAX];	  /* dynamic entries per bridge */
static struct l2_port *cfg[TP_MAX_PORTS]; /* each l2 port's current configuration */
static unsigned int n_bridges;
static struct tp_timer learn_timer, aging_timer, chain_timer;

struct l2_nfdef {
	bool used;
	char name[L2_NAME_MAX];
	uint16_t in, out; /* toward the NF (forward direction), back from it */
	bool up;
	uint64_t downs;
};

struct l2_chain {
	bool used;
	char name[L2_NAME_MAX];
	uint16_t from, to;
	unsigned int n;
	unsigned int nf[L2_CHAIN_LEN_MAX];
	bool bypass;
	unsigned int pending; /* mode changes not yet done */
	struct tp_cmd_ctx *ctx;
	int err;
};

static struct l2_nfdef nfs[L2_NF_MAX];
static struct l2_chain chains[L2_CHAINS_MAX];
static struct l2_xc *xc_by_port[TP_MAX_PORTS];
static struct l2_chain *chain_of_port[TP_MAX_PORTS];

static const struct tp_ctr_desc l2_ctrs[] = {L2_COUNTERS(TP_CTR_DESC)};

static const char *port_name(uint16_t id)
{
	struct tp_port *p = tp_port_by_id(id);

	return p ? p->name : "?";
}

/* --- MAC table --- */
static bool port_full(const struct l2_port *lp)
{
	return lp && lp->mac_limit && n_dyn[lp->port] >= lp->mac_limit;
}

static void set_limit_flag(uint16_t port)
{
	struct l2_port *lp = cfg[port];

	if (lp)
		__atomic_store_n(&lp->at_limit, port_full(lp), __ATOMIC_RELAXED);
}

uint32_t tp_l2_bridge_limit(uint16_t b)
{
	const struct l2_bridge *br = &l2_bridges[b];

	if (br->mac_limit)
		return br->mac_limit;
	return n_bridges ? mac_cap / n_bridges : mac_cap;
}

static void set_bridge_flag(uint16_t b)
{
	__atomic_store_n(&l2_bridges[b].at_limit, n_br[b] >= tp_l2_bridge_limit(b),
			 __ATOMIC_RELAXED);
}

/* the fair share changed: every bridge's flag */
static void set_bridge_flags(void)
{
	for (uint16_t b = 0; b < L2_BRIDGES_MAX; b++)
		if (l2_bridges[b].used)
			set_bridge_flag(b);
}

/* A dynamic entry of bridge b on port came (+1) or went (-1). */
static void count_dyn(uint16_t b, uint16_t port, int d)
{
	if (port < TP_MAX_PORTS) {
		n_dyn[port] += (uint32_t)d;
		set_limit_flag(port);
	}
	n_br[b] += (uint32_t)d;
	set_bridge_flag(b);
}

uint32_t tp_l2_port_macs(uint16_t port)
{
	return port < TP_MAX_PORTS ? n_dyn[port] : 0;
}

uint32_t tp_l2_bridge_macs(uint16_t b)
{
	return b < L2_BRIDGES_MAX ? n_br[b] : 0;
}

const struct l2_port *tp_l2_port(uint16_t port)
{
	return port < TP_MAX_PORTS ? cfg[port] : NULL;
}

static struct l2_port *member(uint16_t bridge, uint16_t port)
{
	struct l2_members *mb;

	if (bridge >= L2_BRIDGES_MAX || !l2_bridges[bridge].used || port >= TP_MAX_PORTS)
		return NULL;
	mb = l2_bridges[bridge].members;
	return mb ? mb->by_port[port] : NULL;
}

static void release_idx(uint32_t idx)
{
	memset(&l2_mac_table[idx], 0, sizeof(l2_mac_table[idx]));
	free_idx[n_free++] = idx;
}

/* Remove entry idx (dying now, its slot reused after a grace period). */
static void mac_remove(uint32_t idx)
{
	struct l2_mac *e = &l2_mac_table[idx];

	if (e->used != 1)
		return;
	e->used = 2;
	if (!e->is_static)
		count_dyn(e->key.bridge, e->port, -1);
	if (tp_rcu_hash_del(l2_macs, &e->key, release_idx) < 0)
		TP_LOG(ERR, "l2: MAC entry %u not in the table", idx);
	/* Workers drop the indexes they kept (l2.h) before the slot can be reused: the
	 * bump comes after the key left the hash, so a worker that reads the new gen
	 * can no longer find the key and cache its index under that gen (bumped
	 * before, a lookup between the bump and the delete cached the dying index
	 * under the new gen, and it outlived the slot's reuse by another station);
	 * the slot is reused only after a grace period, later than this bump. */
	__atomic_fetch_add(&l2_gen, 1, __ATOMIC_RELEASE);
}

/* Add or move key to port at TSC now. 0, -EEXIST (a static entry stays: a learn
 * event does not move it), -EDQUOT (the port, or for a new key the bridge, at its
 * limit), -ENOSPC (table full). Static entries count in no limit. */
static int mac_set(const struct l2_key *k, uint16_t port, bool is_static, bool *moved, uint64_t now)
{
	struct l2_bridge *br = &l2_bridges[k->bridge];
	struct l2_port *lp = member(k->bridge, port);
	void *data;
	struct l2_mac *e;
	uint32_t idx;

	*moved = false;
	if (rte_hash_lookup_data(l2_macs, k, &data) >= 0) {
		e = &l2_mac_table[(uintptr_t)data];
		if (e->port == port && e->is_static == is_static)
			return 0;
		if (!is_static && e->is_static)
			return -EEXIST;
		if (!is_static && port_full(lp)) {
			br->limit_refused++;
			return -EDQUOT;
		}
		if (!e->is_static)
			count_dyn(k->bridge, e->port, -1);
		*moved = e->port != port;
		e->is_static = is_static;
		__atomic_store_n(&e->seen, now, __ATOMIC_RELAXED);
		__atomic_store_n(&e->port, port, __ATOMIC_RELEASE);
	} else {
		if (!is_static && port_full(lp)) {
			br->limit_refused++;
			set_limit_flag(port);
			return -EDQUOT;
		}
		if (!is_static && n_br[k->bridge] >= tp_l2_bridge_limit(k->bridge)) {
			br->bridge_limit_refused++;
			set_bridge_flag(k->bridge);
			return -EDQUOT;
		}
		if (n_free == 0) {
			br->table_full++;
			return -ENOSPC;
		}
		idx = free_idx[--n_free];
		e = &l2_mac_table[idx];
		e->key = *k;
		e->port = port;
		e->is_static = is_static;
		e->seen = now;
		e->used = 1;
		if (idx + 1 > hiwater)
			hiwater = idx + 1;
		if (rte_hash_add_key_data(l2_macs, k, (void *)(uintptr_t)idx) < 0) {
			e->used = 0;
			free_idx[n_free++] = idx;
			br->table_full++;
			return -ENOSPC;
		}
	}
	if (!is_static)
		count_dyn(k->bridge, port, 1);
	return 0;
}

void tp_l2_learn_drain(uint64_t now)
{
	struct l2_learn ev[64];
	unsigned int n;

	for (unsigned int w = 0; w < tp.n_workers; w++) {
		struct l2_lcore *lc = tp_nf_lcore(tp.workers[w], &tp_l2_nf);
		/* bounded work per pass (every 10 ms): 16 bursts of 64 per lcore, up to
		 * ~100k new MACs a second per lcore; what a full ring lost is asked for
		 * again by the source's next frame */
		for (int b = 0; b < 16; b++) {
			n = rte_ring_sc_dequeue_burst_elem(lc->learn, ev, sizeof(ev[0]), 64, NULL);
			for (unsigned int i = 0; i < n; i++) {
				bool moved;
				if (member(ev[i].key.bridge, ev[i].port) == NULL)
					continue; /* the port left the bridge since */
				if (mac_set(&ev[i].key, ev[i].port, false, &moved, now) == 0) {
					if (moved)
						l2_bridges[ev[i].key.bridge].moves++;
					else
						l2_bridges[ev[i].key.bridge].learned++;
				}
			}
			if (n < 64)
				break;
		}
	}
}

static void learn_timer_fn(struct tp_timer *t)
{
	tp_l2_learn_drain(rte_rdtsc());
}

void tp_l2_age(uint64_t now)
{
	for (uint32_t i = 0; i < hiwater; i++) {
		struct l2_mac *e = &l2_mac_table[i];
		if (e->used != 1 || e->is_static)
			continue;
		struct l2_bridge *br = &l2_bridges[e->key.bridge];
		uint64_t seen = __atomic_load_n(&e->seen, __ATOMIC_RELAXED);
		if (now > seen && now - seen > (uint64_t)br->aging_s * tp.tsc_hz) {
			br->aged++;
			mac_remove(i);
		}
	}
}

static void aging_timer_fn(struct tp_timer *t)
{
	tp_l2_age(rte_rdtsc());
}

/* Every entry of bridge b (on port, or any port if L2_NO_PORT; dynamic only unless
 * all). Returns how many. */
static unsigned int mac_flush(uint16_t b, uint16_t port, bool all)
{
	unsigned int n = 0;

	for (uint32_t i = 0; i < hiwater; i++) {
		struct l2_mac *e = &l2_mac_table[i];
		if (e->used == 1 && e->key.bridge == b && (port == L2_NO_PORT || e->port == port) &&
		    (all || !e->is_static)) {
			mac_remove(i);
			n++;
		}
	}
	return n;
}

/* --- bridges and their members --- */
static void free_members(void *a, void *b)
{
	free(a);
	free(b);
}

/* Publish br's members with port set to lp (NULL: removed); the old list, and old
 * (a port configuration no lcore may see any more), freed after a grace period. */
static int members_set(struct l2_bridge *br, uint16_t port, struct l2_port *lp, void *old)
{
	struct l2_members *cur = br->members, *nm = calloc(1, sizeof(*nm));

	if (nm == NULL)
		return -ENOMEM;
	if (cur)
		for (unsigned int i = 0; i < cur->n; i++)
			if (cur->list[i] != port) {
				nm->list[nm->n++] = cur->list[i];
				nm->by_port[cur->list[i]] = cur->by_port[cur->list[i]];
			}
	if (lp) {
		nm->list[nm->n++] = port;
		nm->by_port[port] = lp;
	}
	__atomic_store_n(&br->members, nm, __ATOMIC_RELEASE);
	if (tp_rcu_defer(free_members, cur, old) < 0) {
		rte_rcu_qsbr_synchronize(tp.qs, RTE_QSBR_THRID_INVALID);
		free_members(cur, old);
	}
	return 0;
}

static struct l2_bridge *bridge_by_name(const char *name)
{
	for (unsigned int i = 0; i < L2_BRIDGES_MAX; i++)
		if (l2_bridges[i].used && strcmp(l2_bridges[i].name, name) == 0)
			return &l2_bridges[i];
	return NULL;
}

/* "10,20,30-40" into the bitmap; 0 or -1 */
static int vlan_list(const char *s, uint64_t *bm)
{
	char buf[256], *save = NULL;
	uint64_t a, b;

	if (strlen(s) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", s);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(t, '-');
		if (dash)
			*dash = '\0';
		if (tp_parse_u64(t, 1, 4094, &a) < 0 ||
		    (dash ? tp_parse_u64(dash + 1, a, 4094, &b) : (b = a, 0)) < 0)
			return -1;
		for (uint64_t v = a; v <= b; v++)
			bm[v >> 6] |= 1ull << (v & 63);
	}
	return 0;
}

/* A rate of pps frames a second into r: a bucket of one second's worth (at least
 * L2_BUCKET_MIN frames). 0: no limit. */
static void rate_set(struct l2_rate *r, uint32_t pps)
{
	r->pps = pps;
	r->cost = pps ? RTE_MAX(tp.tsc_hz / pps, (uint64_t)1) : 0;
	r->max = r->cost * RTE_MAX(pps, (uint32_t)L2_BUCKET_MIN);
}

#define L2_PORT_USAGE                                                                              \
	"bridge BR [vlan V | trunk V,V-V [native V]] [mac-limit N] [learn-rate PPS] "              \
	"[storm-broadcast PPS] [storm-unknown PPS]"

static int l2_attach(uint16_t port, int argc, char **argv, void **ctx, char *err, size_t len)
{
	static const char *usage = "usage: port set P mode l2 " L2_PORT_USAGE;
	static const char *const rate_words[L2_TB_MAX] = {"learn-rate", "storm-broadcast",
							  "storm-unknown"};
	uint32_t pps[L2_TB_MAX] = {L2_LEARN_RATE_DEFAULT, 0, 0};
	struct l2_port *lp;
	struct l2_bridge *br;
	uint64_t v;
	bool vlan_set = false, native_set = false;
	int ret;

	if (argc < 2 || strcmp(argv[0], "bridge") != 0) {
		snprintf(err, len, "%s", usage);
		return -EINVAL;
	}
	if ((br = bridge_by_name(argv[1])) == NULL) {
		snprintf(err, len, "no bridge named '%s' (bridge add %s)", argv[1], argv[1]);
		return -ENOENT;
	}
	if (chain_of_port[port]) {
		snprintf(err, len, "the port is in chain %s", chain_of_port[port]->name);
		return -EBUSY;
	}
	if ((lp = calloc(1, sizeof(*lp))) == NULL)
		return -ENOMEM;
	lp->port = port;
	lp->br = br;
	lp->pvid = 1; /* the default VLAN, as switches ship */
	lp->mac_limit = L2_PORT_MACS_DEFAULT < mac_cap ? L2_PORT_MACS_DEFAULT : mac_cap;
	for (int i = 2; i < argc; i += 2) {
		const char *k = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		int r;
		for (r = 0; r < L2_TB_MAX && strcmp(k, rate_words[r]) != 0; r++)
			;
		if (val == NULL) {
			snprintf(err, len, "'%s' needs a value; %s", k, usage);
			goto bad;
		}
		if (strcmp(k, "vlan") == 0 && !lp->trunk && !vlan_set) {
			if (tp_parse_u64(val, 1, 4094, &v) < 0) {
				snprintf(err, len, "bad VLAN '%s' (1-4094)", val);
				goto bad;
			}
			lp->pvid = (uint16_t)v;
			vlan_set = true;
		} else if (strcmp(k, "trunk") == 0 && !vlan_set && !lp->trunk) {
			if (vlan_list(val, lp->allowed) < 0) {
				snprintf(err, len, "bad VLAN list '%s' (e.g. 10,20,30-40; 1-4094)",
					 val);
				goto bad;
			}
			lp->trunk = 1;
			if (!native_set)
				lp->pvid = 0; /* no native VLAN unless asked */
		} else if (strcmp(k, "native") == 0 && lp->trunk && !native_set) {
			if (tp_parse_u64(val, 1, 4094, &v) < 0) {
				snprintf(err, len, "bad native VLAN '%s' (1-4094)", val);
				goto bad;
			}
			lp->pvid = (uint16_t)v;
			native_set = true;
		} else if (strcmp(k, "mac-limit") == 0) {
			if (tp_parse_u64(val, 0, mac_cap, &v) < 0) {
				snprintf(err, len, "bad mac-limit '%s' (0-%u, 0: none)", val,
					 mac_cap);
				goto bad;
			}
			lp->mac_limit = (uint32_t)v;
		} else if (r < L2_TB_MAX) {
			if (tp_parse_u64(val, 0, 100000000, &v) < 0) {
				snprintf(err, len, "bad %s '%s' (0-100000000 a second, 0: none)", k,
					 val);
				goto bad;
			}
			pps[r] = (uint32_t)v;
		} else {
			snprintf(err, len,
				 "unexpected '%s' (vlan and trunk exclude each other, native "
				 "follows trunk); %s",
				 k, usage);
			goto bad;
		}
	}
	for (int r = 0; r < L2_TB_MAX; r++)
		rate_set(&lp->rate[r], pps[r]);
	lp->at_limit = port_full(lp);
	/* a port moving from another bridge: its entries there go */
	for (unsigned int b = 0; b < L2_BRIDGES_MAX; b++)
		if (&l2_bridges[b] != br && member((uint16_t)b, port)) {
			snprintf(err, len,
				 "the port is in bridge %s: leave it first (port set %s "
				 "mode l3)",
				 l2_bridges[b].name, port_name(port));
			goto bad;
		}
	if ((ret = members_set(br, port, lp, NULL)) < 0) {
		free(lp);
		return ret;
	}
	cfg[port] = lp;
	/* every frame is ours, whatever its destination (a real NIC filters) */
	if (rte_eth_dev_is_valid_port(port))
		rte_eth_promiscuous_enable(port);
	*ctx = lp;
	return 0;
bad:
	free(lp);
	return -EINVAL;
}

static void l2_detach(uint16_t port, void *ctx)
{
	struct l2_port *lp = ctx;
	struct l2_bridge *br = lp->br;
	struct l2_members *mb = br->members;

	if (cfg[port] == lp)
		cfg[port] = NULL;
	if (mb && mb->by_port[port] == lp) {
		/* the port leaves the bridge: its MAC entries go too */
		mac_flush(br->id, port, true);
		if (members_set(br, port, NULL, lp) == 0)
			return;
		/* out of memory: it stays listed (flooded to) until the bridge goes */
		TP_LOG(ERR, "l2: port %s: cannot update bridge %s's members", port_name(port),
		       br->name);
		return;
	}
	/* replaced by a new configuration in the same bridge */
	if (tp_rcu_defer(free_members, NULL, lp) < 0) {
		rte_rcu_qsbr_synchronize(tp.qs, RTE_QSBR_THRID_INVALID);
		free(lp);
	}
}

static struct tp_port_mode l2_mode = {
    .name = "l2",
    .usage = L2_PORT_USAGE,
    .help = "a member of an L2 bridge: access port in one VLAN, or an 802.1Q trunk",
    .input = l2_input,
    .attach = l2_attach,
    .detach = l2_detach,
};
TP_PORT_MODE_REGISTER(l2_mode)

/* --- NFs and chains --- */
static struct l2_nfdef *nf_by_name(const char *name)
{
	for (unsigned int i = 0; i < L2_NF_MAX; i++)
		if (nfs[i].used && strcmp(nfs[i].name, name) == 0)
			return &nfs[i];
	return NULL;
}

static struct l2_chain *chain_by_name(const char *name)
{
	for (unsigned int i = 0; i < L2_CHAINS_MAX; i++)
		if (chains[i].used && strcmp(chains[i].name, name) == 0)
			return &chains[i];
	return NULL;
}

static bool link_up(uint16_t port)
{
	struct rte_eth_link l;

	return rte_eth_link_get_nowait(port, &l) == 0 && l.link_status == RTE_ETH_LINK_UP;
}

static void xc_set(uint16_t port, uint16_t out)
{
	if (xc_by_port[port])
		__atomic_store_n(&xc_by_port[port]->out, out, __ATOMIC_RELEASE);
}

/* Where each port of c sends what it receives, given which NFs are up. */
static void chain_apply(struct l2_chain *c)
{
	unsigned int n = c->n;

	/* forward: from, nf1.out .. nfN.out; reverse: to, nfN.in .. nf1.in */
	for (unsigned int s = 0; s <= n; s++) {
		uint16_t src = s == 0 ? c->from : nfs[c->nf[s - 1]].out;
		uint16_t out = L2_NO_PORT;
		if (s > 0 && !nfs[c->nf[s - 1]].up) {
			xc_set(src, L2_NO_PORT);
			continue;
		}
		unsigned int j = s + 1; /* next hop, 1-based NF index; n + 1: to */
		while (j <= n && !nfs[c->nf[j - 1]].up && c->bypass)
			j++;
		if (j == n + 1)
			out = c->to;
		else if (nfs[c->nf[j - 1]].up)
			out = nfs[c->nf[j - 1]].in;
		xc_set(src, out);
	}
	for (unsigned int s = n + 1; s >= 1; s--) {
		uint16_t src = s == n + 1 ? c->to : nfs[c->nf[s - 1]].in;
		uint16_t out = L2_NO_PORT;
		if (s <= n && !nfs[c->nf[s - 1]].up) {
			xc_set(src, L2_NO_PORT);
			continue;
		}
		unsigned int j = s - 1; /* previous hop; 0: from */
		while (j >= 1 && !nfs[c->nf[j - 1]].up && c->bypass)
			j--;
		if (j == 0)
			out = c->from;
		else if (nfs[c->nf[j - 1]].up)
			out = nfs[c->nf[j - 1]].out;
		xc_set(src, out);
	}
}

static void chain_watch(struct tp_timer *t)
{
	bool changed = false;

	for (unsigned int i = 0; i < L2_NF_MAX; i++) {
		if (!nfs[i].used)
			continue;
		bool up = link_up(nfs[i].in) && link_up(nfs[i].out);
		if (up != nfs[i].up) {
			TP_LOG(INFO, "l2: NF %s is %s", nfs[i].name, up ? "up" : "down");
			nfs[i].downs += !up;
			nfs[i].up = up;
			changed = true;
		}
	}
	if (changed)
		for (unsigned int i = 0; i < L2_CHAINS_MAX; i++)
			if (chains[i].used && chains[i].pending == 0)
				chain_apply(&chains[i]);
}

static int chain_attach(uint16_t port, int argc, char **argv, void **ctx, char *err, size_t len)
{
	struct l2_chain *c = argc == 1 ? chain_by_name(argv[0]) : NULL;
	struct l2_xc *xc;

	if (c == NULL || chain_of_port[port] != c) {
		snprintf(err, len,
			 "chain ports are set by 'chain add' (chain add C from P to P "
			 "via NF...)");
		return -EINVAL;
	}
	if (xc_by_port[port]) {
		snprintf(err, len, "the port is in a chain already");
		return -EBUSY;
	}
	if ((xc = calloc(1, sizeof(*xc))) == NULL)
		return -ENOMEM;
	xc->port = port;
	xc->out = L2_NO_PORT; /* until the chain is complete */
	xc_by_port[port] = xc;
	*ctx = xc;
	return 0;
}

static void chain_detach(uint16_t port, void *ctx)
{
	if (xc_by_port[port] == ctx)
		xc_by_port[port] = NULL;
	free(ctx); /* a grace period after the port stopped using it */
}

static struct tp_port_mode chain_mode = {
    .name = "chain",
    .usage = "CHAIN (set by 'chain add')",
    .help = "a port of a service chain: what it receives goes to the chain's next port",
    .input = l2_chain_input,
    .attach = chain_attach,
    .detach = chain_detach,
};
TP_PORT_MODE_REGISTER(chain_mode)

/* --- the module --- */
static int l2_init(void)
{
	char name[RTE_HASH_NAMESIZE];

	snprintf(name, sizeof(name), "l2-macs");
	l2_macs = tp_rcu_hash_create(name, mac_cap, sizeof(struct l2_key));
	l2_mac_table = rte_zmalloc("l2-mac-table", sizeof(*l2_mac_table) * mac_cap, 64);
	free_idx = malloc(sizeof(*free_idx) * mac_cap);
	if (l2_macs == NULL || l2_mac_table == NULL || free_idx == NULL) {
		TP_LOG(ERR, "l2: cannot allocate a MAC table of %u entries", mac_cap);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < mac_cap; i++)
		free_idx[i] = mac_cap - 1 - i;
	n_free = mac_cap;
	tp_timer_init(&learn_timer, "l2-learn", learn_timer_fn, NULL);
	tp_timer_every(&learn_timer, 10);
	tp_timer_init(&aging_timer, "l2-aging", aging_timer_fn, NULL);
	tp_timer_every(&aging_timer, 1000);
	tp_timer_init(&chain_timer, "l2-chain-watch", chain_watch, NULL);
	tp_timer_every(&chain_timer, 100);
	return 0;
}

static void l2_fini(void)
{
	tp_timer_cancel(&learn_timer);
	tp_timer_cancel(&aging_timer);
	tp_timer_cancel(&chain_timer);
	for (unsigned int w = 0; w < tp.n_workers; w++) {
		struct l2_lcore *lc = tp_nf_lcore(tp.workers[w], &tp_l2_nf);
		rte_ring_free(lc->learn);
		lc->learn = NULL;
	}
	for (unsigned int b = 0; b < L2_BRIDGES_MAX; b++) {
		free(l2_bridges[b].members);
		l2_bridges[b].members = NULL;
	}
	rte_hash_free(l2_macs);
	rte_free(l2_mac_table);
	free(free_idx);
	l2_macs = NULL;
}

static int l2_lcore_init(struct tp_worker *w, void *state)
{
	struct l2_lcore *lc = state;
	char name[RTE_RING_NAMESIZE];

	snprintf(name, sizeof(name), "l2-learn-%u", w->id);
	lc->learn = rte_ring_create_elem(name, sizeof(struct l2_learn), L2_LEARN_RING,
					 SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	return lc->learn ? 0 : -ENOMEM;
}

static int opt_macs(const char *arg)
{
	uint64_t v;

	if (tp_parse_u64(arg, 64, 1u << 24, &v) < 0) {
		fprintf(stderr, "--l2-macs: bad size '%s' (64-16777216)\n", arg);
		return -EINVAL;
	}
	mac_cap = (uint32_t)v;
	return 0;
}

static const struct tp_nf_opt l2_opts[] = {
    {"l2-macs", true, "N: MAC table entries of the L2 switch (65536)", opt_macs},
};

struct tp_nf tp_l2_nf = {
    .name = "l2",
    .help = "L2 switch: bridges, 802.1Q access and trunk ports, MAC learning; service chains",
    .ctrs = l2_ctrs,
    .n_ctrs = RTE_DIM(l2_ctrs),
    .lcore_size = sizeof(struct l2_lcore),
    .opts = l2_opts,
    .n_opts = RTE_DIM(l2_opts),
    .init = l2_init,
    .fini = l2_fini,
    .lcore_init = l2_lcore_init,
};
TP_NF_REGISTER(tp_l2_nf)

/* --- commands --- */
static int name_ok(struct tp_cmd_ctx *ctx, const char *what, const char *s)
{
	if (strlen(s) == 0 || strlen(s) >= L2_NAME_MAX)
		return tp_cmd_err(ctx, EINVAL, "%s: name '%s' must have 1 to %d characters", what,
				  s, L2_NAME_MAX - 1);
	return 0;
}

#define L2_BRIDGE_OPTS "[aging SECONDS] [mac-limit N|auto] [bpdu forward|drop]"

/* A bridge's settings, as "bridge add" and "bridge set" take them. */
struct l2_bridge_opts {
	uint64_t aging, mac_limit, bpdu_drop;
	bool has_aging, has_mac_limit, has_bpdu;
};

/* Words argv[0..argc) into o. 0, or -EINVAL with ctx's error naming the bad word. */
static int bridge_opts(struct tp_cmd_ctx *ctx, const char *what, int argc, char **argv,
		       struct l2_bridge_opts *o)
{
	for (int i = 0; i < argc; i += 2) {
		const char *k = argv[i], *val;
		if (i + 1 >= argc)
			return tp_cmd_err(ctx, EINVAL, "%s: '%s' needs a value (%s)", what, k,
					  L2_BRIDGE_OPTS);
		val = argv[i + 1];
		if (strcmp(k, "aging") == 0) {
			if (tp_parse_u64(val, 1, 1000000, &o->aging) < 0)
				return tp_cmd_err(ctx, EINVAL,
						  "%s: bad aging '%s' (1-1000000 seconds)", what,
						  val);
			o->has_aging = true;
		} else if (strcmp(k, "mac-limit") == 0) {
			if (strcmp(val, "auto") == 0)
				o->mac_limit = 0;
			else if (tp_parse_u64(val, 1, mac_cap, &o->mac_limit) < 0)
				return tp_cmd_err(
				    ctx, EINVAL,
				    "%s: bad mac-limit '%s' (1-%u, or auto: the table's "
				    "size over the number of bridges)",
				    what, val, mac_cap);
			o->has_mac_limit = true;
		} else if (strcmp(k, "bpdu") == 0) {
			if (strcmp(val, "forward") != 0 && strcmp(val, "drop") != 0)
				return tp_cmd_err(ctx, EINVAL, "%s: bpdu '%s': forward or drop",
						  what, val);
			o->bpdu_drop = strcmp(val, "drop") == 0;
			o->has_bpdu = true;
		} else {
			return tp_cmd_err(ctx, EINVAL, "%s: unexpected '%s' (%s)", what, k,
					  L2_BRIDGE_OPTS);
		}
	}
	return 0;
}

static void bridge_apply(struct l2_bridge *br, const struct l2_bridge_opts *o)
{
	if (o->has_aging)
		br->aging_s = (uint32_t)o->aging;
	if (o->has_mac_limit) {
		br->mac_limit = (uint32_t)o->mac_limit;
		set_bridge_flag(br->id);
	}
	if (o->has_bpdu)
		__atomic_store_n(&br->bpdu_drop, (uint8_t)o->bpdu_drop, __ATOMIC_RELAXED);
}

static int cmd_bridge_add(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct l2_bridge_opts o = {.aging = L2_AGING_DEFAULT, .has_aging = true};
	unsigned int i;
	int ret;

	if (argc < 1)
		return tp_cmd_err(ctx, EINVAL, "bridge add: usage: bridge add NAME %s",
				  L2_BRIDGE_OPTS);
	if ((ret = name_ok(ctx, "bridge add", argv[0])) < 0)
		return ret;
	if ((ret = bridge_opts(ctx, "bridge add", argc - 1, argv + 1, &o)) < 0)
		return ret;
	if (bridge_by_name(argv[0]))
		return tp_cmd_err(ctx, EEXIST, "bridge add: bridge %s exists", argv[0]);
	for (i = 0; i < L2_BRIDGES_MAX && l2_bridges[i].used; i++)
		;
	if (i == L2_BRIDGES_MAX)
		return tp_cmd_err(ctx, ENOSPC, "bridge add: %d bridges already", L2_BRIDGES_MAX);
	memset(&l2_bridges[i], 0, sizeof(l2_bridges[i]));
	l2_bridges[i].id = (uint16_t)i;
	snprintf(l2_bridges[i].name, sizeof(l2_bridges[i].name), "%s", argv[0]);
	if ((l2_bridges[i].members = calloc(1, sizeof(struct l2_members))) == NULL)
		return tp_cmd_err(ctx, ENOMEM, "bridge add: out of memory");
	n_br[i] = 0;
	l2_bridges[i].used = true;
	n_bridges++;
	bridge_apply(&l2_bridges[i], &o);
	set_bridge_flags(); /* the fair share is smaller */
	return 0;
}

static int cmd_bridge_del(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct l2_bridge *br;

	if (argc != 1)
		return tp_cmd_err(ctx, EINVAL, "bridge del: usage: bridge del NAME");
	if ((br = bridge_by_name(argv[0])) == NULL)
		return tp_cmd_err(ctx, ENOENT, "bridge del: no bridge named '%s'", argv[0]);
	if (br->members && br->members->n)
		return tp_cmd_err(ctx, EBUSY,
				  "bridge del: bridge %s has %u ports (port set P mode l3 first)",
				  br->name, br->members->n);
	mac_flush(br->id, L2_NO_PORT, true);
	br->used = false;
	n_bridges--;
	set_bridge_flags(); /* the fair share is larger */
	if (tp_rcu_defer(free_members, br->members, NULL) < 0)
		free(br->members);
	br->members = NULL;
	return 0;
}

static int cmd_bridge_set(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct l2_bridge_opts o = {0};
	struct l2_bridge *br;
	int ret;

	if (argc < 3)
		return tp_cmd_err(ctx, EINVAL, "bridge set: usage: bridge set NAME %s",
				  L2_BRIDGE_OPTS);
	if ((br = bridge_by_name(argv[0])) == NULL)
		return tp_cmd_err(ctx, ENOENT, "bridge set: no bridge named '%s'", argv[0]);
	if ((ret = bridge_opts(ctx, "bridge set", argc - 1, argv + 1, &o)) < 0)
		return ret;
	bridge_apply(br, &o);
	return 0;
}

/* bridge mac add|del BR MAC [vlan V] [port P] */
static int cmd_bridge_mac(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	static const char *usage = "usage: bridge mac add BR MAC port P [vlan V] | bridge mac "
				   "del BR MAC [vlan V] | bridge mac flush BR [port P]";
	struct l2_bridge *br;
	struct l2_key_buf kb = {0}; /* the hash reads whole words (l2.h) */
	struct l2_key *k = &kb.k;
	struct tp_port *p = NULL;
	uint64_t v = 0;
	bool moved;
	int ret;

	if (argc < 2)
		return tp_cmd_err(ctx, EINVAL, "bridge mac: %s", usage);
	if ((br = bridge_by_name(argv[1])) == NULL)
		return tp_cmd_err(ctx, ENOENT, "bridge mac: no bridge named '%s'", argv[1]);
	if (strcmp(argv[0], "flush") == 0) {
		uint16_t port = L2_NO_PORT;
		if (argc == 4 && strcmp(argv[2], "port") == 0) {
			if ((p = tp_port_by_name(argv[3])) == NULL)
				return tp_cmd_err(ctx, ENODEV, "bridge mac flush: no port '%s'",
						  argv[3]);
			port = p->id;
		} else if (argc != 2)
			return tp_cmd_err(ctx, EINVAL, "bridge mac: %s", usage);
		tp_out_u64(ctx->out, "flushed", mac_flush(br->id, port, false));
		return 0;
	}
	if (argc < 3 || (strcmp(argv[0], "add") != 0 && strcmp(argv[0], "del") != 0))
		return tp_cmd_err(ctx, EINVAL, "bridge mac: %s", usage);
	if (rte_ether_unformat_addr(argv[2], &k->mac) < 0 || rte_is_multicast_ether_addr(&k->mac) ||
	    rte_is_zero_ether_addr(&k->mac))
		return tp_cmd_err(ctx, EINVAL, "bridge mac: bad unicast MAC '%s'", argv[2]);
	k->bridge = br->id;
	k->vlan = 1;
	for (int i = 3; i < argc; i += 2) {
		if (i + 1 >= argc)
			return tp_cmd_err(ctx, EINVAL, "bridge mac: '%s' needs a value", argv[i]);
		if (strcmp(argv[i], "vlan") == 0) {
			if (tp_parse_u64(argv[i + 1], 1, 4094, &v) < 0)
				return tp_cmd_err(ctx, EINVAL, "bridge mac: bad VLAN '%s' (1-4094)",
						  argv[i + 1]);
			k->vlan = (uint16_t)v;
		} else if (strcmp(argv[i], "port") == 0 && strcmp(argv[0], "add") == 0) {
			if ((p = tp_port_by_name(argv[i + 1])) == NULL)
				return tp_cmd_err(ctx, ENODEV, "bridge mac: no port '%s'",
						  argv[i + 1]);
		} else
			return tp_cmd_err(ctx, EINVAL, "bridge mac: unexpected '%s'; %s", argv[i],
					  usage);
	}
	if (strcmp(argv[0], "del") == 0) {
		void *data;
		if (rte_hash_lookup_data(l2_macs, k, &data) < 0)
			return tp_cmd_err(ctx, ENOENT, "bridge mac del: %s vlan %u not in %s",
					  argv[2], k->vlan, br->name);
		mac_remove((uint32_t)(uintptr_t)data);
		return 0;
	}
	if (p == NULL)
		return tp_cmd_err(ctx, EINVAL, "bridge mac add: which port? %s", usage);
	if (member(br->id, p->id) == NULL)
		return tp_cmd_err(ctx, EINVAL, "bridge mac add: port %s is not in bridge %s",
				  p->name, br->name);
	if ((ret = mac_set(k, p->id, true, &moved, rte_rdtsc())) < 0)
		return tp_cmd_err(ctx, -ret, "bridge mac add: the MAC table is full (%u entries)",
				  mac_cap);
	return 0;
}

static uint64_t port_ctr(uint16_t port, unsigned int id)
{
	uint64_t s = 0;

	for (unsigned int w = 0; w < tp.n_workers; w++)
		s += __atomic_load_n(&tp.workers[w]->ctr[port][id], __ATOMIC_RELAXED);
	return s;
}

static uint64_t port_io(uint16_t port, bool tx)
{
	uint64_t s = 0;

	for (unsigned int w = 0; w < tp.n_workers; w++) {
		struct tp_port_ctr *c = &tp.workers[w]->st.port[port];
		s += __atomic_load_n(tx ? &c->tx : &c->rx, __ATOMIC_RELAXED);
	}
	return s;
}

static void out_port_l2(struct tp_node *o, const struct l2_port *lp)
{
	char buf[512] = "";
	unsigned int n = 0;

	tp_out_str(o, "port", port_name(lp->port));
	tp_out_str(o, "mode", lp->trunk ? "trunk" : "access");
	if (lp->trunk) {
		for (unsigned int v = 1; v < 4095 && n < sizeof(buf) - 8; v++)
			if ((lp->allowed[v >> 6] >> (v & 63)) & 1) {
				unsigned int e = v;
				while (e + 1 < 4095 &&
				       ((lp->allowed[(e + 1) >> 6] >> ((e + 1) & 63)) & 1))
					e++;
				n += (unsigned int)snprintf(buf + n, sizeof(buf) - n,
							    e > v ? "%s%u-%u" : "%s%u",
							    n ? "," : "", v, e);
				v = e;
			}
		tp_out_str(o, "vlans", buf);
		if (lp->pvid)
			tp_out_u64(o, "native", lp->pvid);
	} else {
		tp_out_u64(o, "vlan", lp->pvid);
	}
	tp_out_u64(o, "mac_limit", lp->mac_limit);
	tp_out_u64(o, "macs", n_dyn[lp->port]);
	tp_out_u64(o, "learn_rate", lp->rate[L2_TB_LEARN].pps);
	tp_out_u64(o, "storm_broadcast", lp->rate[L2_TB_BROADCAST].pps);
	tp_out_u64(o, "storm_unknown", lp->rate[L2_TB_UNKNOWN].pps);
	tp_out_u64(o, "rx", port_io(lp->port, false));
	tp_out_u64(o, "tx", port_io(lp->port, true));
	struct tp_node *c = tp_out_obj(o, "counters");
	uint64_t drops = 0;
	for (unsigned int i = 0; i < L2_CTR_MAX; i++) {
		uint64_t v = port_ctr(lp->port, tp_l2_nf.ctr_base + i);
		if (l2_ctrs[i].kind == TP_CTR_DROP)
			drops += v;
		if (v)
			tp_out_u64(c, l2_ctrs[i].name, v);
	}
	tp_out_u64(o, "drops", drops);
}

static void out_macs(struct tp_node *l, const struct l2_bridge *br)
{
	uint64_t now = rte_rdtsc();
	char mac[RTE_ETHER_ADDR_FMT_SIZE];

	for (uint32_t i = 0; i < hiwater; i++) {
		const struct l2_mac *e = &l2_mac_table[i];
		if (e->used != 1 || e->key.bridge != br->id)
			continue;
		struct tp_node *o = tp_out_obj(l, NULL);
		rte_ether_format_addr(mac, sizeof(mac), &e->key.mac);
		tp_out_str(o, "mac", mac);
		tp_out_u64(o, "vlan", e->key.vlan);
		tp_out_str(o, "port", port_name(e->port));
		tp_out_str(o, "type", e->is_static ? "static" : "dynamic");
		uint64_t seen = __atomic_load_n(&e->seen, __ATOMIC_RELAXED);
		tp_out_u64(o, "age_s", now > seen ? (now - seen) / tp.tsc_hz : 0);
	}
}

static void out_bridge(struct tp_node *o, const struct l2_bridge *br)
{
	const struct l2_members *mb = br->members;
	unsigned int macs = 0;

	for (uint32_t i = 0; i < hiwater; i++)
		macs += l2_mac_table[i].used == 1 && l2_mac_table[i].key.bridge == br->id;
	tp_out_str(o, "name", br->name);
	tp_out_u64(o, "aging_s", br->aging_s);
	tp_out_u64(o, "macs", macs);
	tp_out_u64(o, "dynamic_macs", n_br[br->id]);
	tp_out_u64(o, "mac_limit", tp_l2_bridge_limit(br->id));
	tp_out_str(o, "mac_limit_set", br->mac_limit ? "given" : "auto");
	tp_out_str(o, "bpdu", br->bpdu_drop ? "drop" : "forward");
	tp_out_u64(o, "learned", br->learned);
	tp_out_u64(o, "moves", br->moves);
	tp_out_u64(o, "aged", br->aged);
	tp_out_u64(o, "limit_refused", br->limit_refused);
	tp_out_u64(o, "bridge_limit_refused", br->bridge_limit_refused);
	tp_out_u64(o, "table_full", br->table_full);
	struct tp_node *l = tp_out_list(o, "ports");
	for (unsigned int i = 0; mb && i < mb->n; i++)
		out_port_l2(tp_out_obj(l, NULL), mb->by_port[mb->list[i]]);
}

static int cmd_show_bridge(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct l2_bridge *br = NULL;

	if (argc > 2 || (argc == 2 && strcmp(argv[1], "macs") != 0))
		return tp_cmd_err(ctx, EINVAL, "show bridge: usage: show bridge [NAME [macs]]");
	if (argc >= 1 && (br = bridge_by_name(argv[0])) == NULL)
		return tp_cmd_err(ctx, ENOENT, "show bridge: no bridge named '%s'", argv[0]);
	if (argc == 2) {
		tp_out_str(ctx->out, "bridge", br->name);
		out_macs(tp_out_list(ctx->out, "macs"), br);
		return 0;
	}
	if (br) {
		out_bridge(ctx->out, br);
		return 0;
	}
	struct tp_node *l = tp_out_list(ctx->out, "bridges");
	for (unsigned int i = 0; i < L2_BRIDGES_MAX; i++)
		if (l2_bridges[i].used)
			out_bridge(tp_out_obj(l, NULL), &l2_bridges[i]);
	return 0;
}

static int cmd_nf_add(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_port *a, *b;
	unsigned int i;
	int ret;

	if (argc != 3)
		return tp_cmd_err(ctx, EINVAL,
				  "nf add: usage: nf add NAME PORT_TO_NF PORT_FROM_NF (the NF's "
				  "two ports, as seen in the forward direction of a chain)");
	if ((ret = name_ok(ctx, "nf add", argv[0])) < 0)
		return ret;
	if (nf_by_name(argv[0]))
		return tp_cmd_err(ctx, EEXIST, "nf add: NF %s exists", argv[0]);
	if ((a = tp_port_by_name(argv[1])) == NULL || (b = tp_port_by_name(argv[2])) == NULL)
		return tp_cmd_err(ctx, ENODEV, "nf add: no port named '%s'", a ? argv[2] : argv[1]);
	if (a == b)
		return tp_cmd_err(ctx, EINVAL, "nf add: an NF needs two different ports");
	for (i = 0; i < L2_NF_MAX; i++)
		if (nfs[i].used && (nfs[i].in == a->id || nfs[i].out == a->id ||
				    nfs[i].in == b->id || nfs[i].out == b->id))
			return tp_cmd_err(ctx, EBUSY, "nf add: a port of NF %s already",
					  nfs[i].name);
	for (i = 0; i < L2_NF_MAX && nfs[i].used; i++)
		;
	if (i == L2_NF_MAX)
		return tp_cmd_err(ctx, ENOSPC, "nf add: %d NFs already", L2_NF_MAX);
	memset(&nfs[i], 0, sizeof(nfs[i]));
	snprintf(nfs[i].name, sizeof(nfs[i].name), "%s", argv[0]);
	nfs[i].in = a->id;
	nfs[i].out = b->id;
	nfs[i].up = link_up(a->id) && link_up(b->id);
	nfs[i].used = true;
	return 0;
}

static bool nf_in_chain(unsigned int nf)
{
	for (unsigned int i = 0; i < L2_CHAINS_MAX; i++)
		for (unsigned int j = 0; chains[i].used && j < chains[i].n; j++)
			if (chains[i].nf[j] == nf)
				return true;
	return false;
}

static int cmd_nf_del(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct l2_nfdef *nf;

	if (argc != 1)
		return tp_cmd_err(ctx, EINVAL, "nf del: usage: nf del NAME");
	if ((nf = nf_by_name(argv[0])) == NULL)
		return tp_cmd_err(ctx, ENOENT, "nf del: no NF named '%s'", argv[0]);
	if (nf_in_chain((unsigned int)(nf - nfs)))
		return tp_cmd_err(ctx, EBUSY, "nf del: NF %s is in a chain", argv[0]);
	nf->used = false;
	return 0;
}

static void chain_mode_done(int ret, void *arg)
{
	struct l2_chain *c = arg;

	if (ret < 0 && c->err == 0)
		c->err = ret;
	if (--c->pending > 0)
		return;
	chain_apply(c);
	if (c->ctx) {
		struct tp_cmd_ctx *ctx = c->ctx;
		c->ctx = NULL;
		tp_cmd_done(ctx, c->err);
	}
}

static unsigned int chain_ports(const struct l2_chain *c, uint16_t *ports)
{
	unsigned int n = 0;

	ports[n++] = c->from;
	for (unsigned int i = 0; i < c->n; i++) {
		ports[n++] = nfs[c->nf[i]].in;
		ports[n++] = nfs[c->nf[i]].out;
	}
	ports[n++] = c->to;
	return n;
}

static int cmd_chain_add(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	static const char *usage =
	    "usage: chain add NAME from PORT to PORT via NF [NF...] [on-nf-down drop|bypass]";
	struct tp_port *from, *to;
	struct l2_chain *c;
	uint16_t ports[2 * L2_CHAIN_LEN_MAX + 2];
	unsigned int i, n, np;
	int ret, end = argc;
	bool bypass = false;

	if (argc >= 2 && strcmp(argv[argc - 2], "on-nf-down") == 0) {
		if (strcmp(argv[argc - 1], "bypass") != 0 && strcmp(argv[argc - 1], "drop") != 0)
			return tp_cmd_err(ctx, EINVAL,
					  "chain add: on-nf-down '%s': drop (counted as "
					  "l2.chain_nf_down) or bypass (skip the NF)",
					  argv[argc - 1]);
		bypass = strcmp(argv[argc - 1], "bypass") == 0;
		end -= 2;
	}
	if (end < 7 || strcmp(argv[1], "from") || strcmp(argv[3], "to") || strcmp(argv[5], "via"))
		return tp_cmd_err(ctx, EINVAL, "chain add: %s", usage);
	if ((ret = name_ok(ctx, "chain add", argv[0])) < 0)
		return ret;
	if (chain_by_name(argv[0]))
		return tp_cmd_err(ctx, EEXIST, "chain add: chain %s exists", argv[0]);
	if ((from = tp_port_by_name(argv[2])) == NULL || (to = tp_port_by_name(argv[4])) == NULL)
		return tp_cmd_err(ctx, ENODEV, "chain add: no port named '%s'",
				  from ? argv[4] : argv[2]);
	n = (unsigned int)(end - 6);
	if (n > L2_CHAIN_LEN_MAX)
		return tp_cmd_err(ctx, E2BIG, "chain add: at most %d NFs", L2_CHAIN_LEN_MAX);
	for (i = 0; i < L2_CHAINS_MAX && chains[i].used; i++)
		;
	if (i == L2_CHAINS_MAX)
		return tp_cmd_err(ctx, ENOSPC, "chain add: %d chains already", L2_CHAINS_MAX);
	c = &chains[i];
	memset(c, 0, sizeof(*c));
	c->from = from->id;
	c->to = to->id;
	c->n = n;
	c->bypass = bypass;
	for (unsigned int j = 0; j < n; j++) {
		struct l2_nfdef *nf = nf_by_name(argv[6 + j]);
		if (nf == NULL)
			return tp_cmd_err(ctx, ENOENT, "chain add: no NF named '%s' (nf add ...)",
					  argv[6 + j]);
		if (nf_in_chain((unsigned int)(nf - nfs)))
			return tp_cmd_err(ctx, EBUSY, "chain add: NF %s is in a chain already",
					  nf->name);
		for (unsigned int k = 0; k < j; k++)
			if (c->nf[k] == (unsigned int)(nf - nfs))
				return tp_cmd_err(ctx, EINVAL, "chain add: NF %s appears twice",
						  nf->name);
		c->nf[j] = (unsigned int)(nf - nfs);
	}
	np = chain_ports(c, ports);
	for (unsigned int j = 0; j < np; j++) {
		struct tp_port *p = tp_port_by_id(ports[j]);
		for (unsigned int k = 0; k < j; k++)
			if (ports[k] == ports[j])
				return tp_cmd_err(ctx, EINVAL, "chain add: port %s used twice",
						  p->name);
		if (chain_of_port[ports[j]])
			return tp_cmd_err(ctx, EBUSY, "chain add: port %s is in chain %s", p->name,
					  chain_of_port[ports[j]]->name);
		if (p->busy)
			return tp_cmd_err(ctx, EBUSY, "chain add: port %s is being changed",
					  p->name);
	}
	snprintf(c->name, sizeof(c->name), "%s", argv[0]);
	c->used = true;
	c->ctx = ctx;
	c->pending = 1; /* held until every mode change is started */
	for (unsigned int j = 0; j < np; j++)
		chain_of_port[ports[j]] = c;
	for (unsigned int j = 0; j < np; j++) {
		char *words[1] = {c->name};
		char err[256] = "";
		c->pending++;
		ret = tp_port_set_mode(tp_port_by_id(ports[j]), &chain_mode, 1, words,
				       chain_mode_done, c, err, sizeof(err));
		if (ret < 0) {
			c->pending--;
			TP_LOG(ERR, "chain %s: port %s: %s", c->name, port_name(ports[j]), err);
			if (c->err == 0)
				c->err = ret;
		}
	}
	chain_mode_done(0, c);
	return TP_CMD_PENDING;
}

static void chain_del_done(int ret, void *arg)
{
	struct l2_chain *c = arg;

	if (--c->pending > 0)
		return;
	c->used = false;
	if (c->ctx) {
		struct tp_cmd_ctx *ctx = c->ctx;
		c->ctx = NULL;
		tp_cmd_done(ctx, 0);
	}
}

static int cmd_chain_del(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct l2_chain *c;
	uint16_t ports[2 * L2_CHAIN_LEN_MAX + 2];
	unsigned int np;

	if (argc != 1)
		return tp_cmd_err(ctx, EINVAL, "chain del: usage: chain del NAME");
	if ((c = chain_by_name(argv[0])) == NULL || c->pending)
		return tp_cmd_err(ctx, ENOENT, "chain del: no chain named '%s'", argv[0]);
	np = chain_ports(c, ports);
	c->ctx = ctx;
	c->pending = 1;
	for (unsigned int j = 0; j < np; j++) {
		char err[256];
		struct tp_port *p = tp_port_by_id(ports[j]);
		chain_of_port[ports[j]] = NULL;
		if (p == NULL || strcmp(p->mode->name, "chain") != 0)
			continue;
		c->pending++;
		if (tp_port_set_mode(p, tp_port_mode_default(), 0, NULL, chain_del_done, c, err,
				     sizeof(err)) < 0) {
			c->pending--;
			TP_LOG(ERR, "chain del %s: port %s: %s", c->name, p->name, err);
		}
	}
	chain_del_done(0, c);
	return TP_CMD_PENDING;
}

static void out_chain(struct tp_node *o, const struct l2_chain *c)
{
	tp_out_str(o, "name", c->name);
	tp_out_str(o, "from", port_name(c->from));
	tp_out_str(o, "to", port_name(c->to));
	tp_out_str(o, "on_nf_down", c->bypass ? "bypass" : "drop");
	tp_out_u64(o, "from_rx", port_io(c->from, false));
	tp_out_u64(o, "from_tx", port_io(c->from, true));
	tp_out_u64(o, "to_rx", port_io(c->to, false));
	tp_out_u64(o, "to_tx", port_io(c->to, true));
	uint64_t drops =
	    port_ctr(c->from, L2_CTR(CHAIN_NF_DOWN)) + port_ctr(c->to, L2_CTR(CHAIN_NF_DOWN));
	struct tp_node *l = tp_out_list(o, "hops");
	for (unsigned int i = 0; i < c->n; i++) {
		const struct l2_nfdef *nf = &nfs[c->nf[i]];
		struct tp_node *h = tp_out_obj(l, NULL);
		tp_out_str(h, "nf", nf->name);
		tp_out_str(h, "port_to_nf", port_name(nf->in));
		tp_out_str(h, "port_from_nf", port_name(nf->out));
		tp_out_str(h, "state", nf->up ? "up" : "down");
		tp_out_u64(h, "downs", nf->downs);
		/* forward: sent on in, back on out; reverse: the other way */
		tp_out_u64(h, "fwd_to_nf", port_io(nf->in, true));
		tp_out_u64(h, "fwd_from_nf", port_io(nf->out, false));
		tp_out_u64(h, "rev_to_nf", port_io(nf->out, true));
		tp_out_u64(h, "rev_from_nf", port_io(nf->in, false));
		uint64_t d = port_ctr(nf->in, L2_CTR(CHAIN_NF_DOWN)) +
			     port_ctr(nf->out, L2_CTR(CHAIN_NF_DOWN)) +
			     port_ctr(nf->in, TP_DROP_TX_FULL) + port_ctr(nf->out, TP_DROP_TX_FULL);
		tp_out_u64(h, "drops", d);
		drops += port_ctr(nf->in, L2_CTR(CHAIN_NF_DOWN)) +
			 port_ctr(nf->out, L2_CTR(CHAIN_NF_DOWN));
	}
	tp_out_u64(o, "nf_down_drops", drops);
}

static int cmd_show_chain(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct l2_chain *c;

	if (argc > 1)
		return tp_cmd_err(ctx, EINVAL, "show chain: usage: show chain [NAME]");
	if (argc == 1) {
		if ((c = chain_by_name(argv[0])) == NULL)
			return tp_cmd_err(ctx, ENOENT, "show chain: no chain named '%s'", argv[0]);
		out_chain(ctx->out, c);
		return 0;
	}
	struct tp_node *l = tp_out_list(ctx->out, "chains");
	for (unsigned int i = 0; i < L2_CHAINS_MAX; i++)
		if (chains[i].used)
			out_chain(tp_out_obj(l, NULL), &chains[i]);
	return 0;
}

static int cmd_show_nf(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_node *l = tp_out_list(ctx->out, "nfs");

	for (unsigned int i = 0; i < L2_NF_MAX; i++) {
		if (!nfs[i].used)
			continue;
		struct tp_node *o = tp_out_obj(l, NULL);
		tp_out_str(o, "name", nfs[i].name);
		tp_out_str(o, "port_to_nf", port_name(nfs[i].in));
		tp_out_str(o, "port_from_nf", port_name(nfs[i].out));
		tp_out_str(o, "state", nfs[i].up ? "up" : "down");
		tp_out_u64(o, "downs", nfs[i].downs);
	}
	return 0;
}

static struct tp_cmd c_bridge_add = {
    "bridge add", "NAME " L2_BRIDGE_OPTS,
    "a bridge domain (MAC aging 300 s, the fair share of the MAC table, BPDUs forwarded, "
    "unless given)",
    cmd_bridge_add, NULL};
static struct tp_cmd c_bridge_del = {"bridge del", "NAME", "remove a bridge with no ports",
				     cmd_bridge_del, NULL};
static struct tp_cmd c_bridge_set = {"bridge set", "NAME " L2_BRIDGE_OPTS,
				     "a bridge's MAC aging, share of the MAC table, BPDUs",
				     cmd_bridge_set, NULL};
static struct tp_cmd c_bridge_mac = {
    "bridge mac", "add BR MAC port P [vlan V] | del BR MAC [vlan V] | flush BR [port P]",
    "static MAC entries; flush learned ones", cmd_bridge_mac, NULL};
static struct tp_cmd c_show_bridge = {"show bridge", "[NAME [macs]]",
				      "bridges, their ports and counters; a MAC table",
				      cmd_show_bridge, NULL};
static struct tp_cmd c_nf_add = {"nf add", "NAME PORT_TO_NF PORT_FROM_NF",
				 "an NF attached by two ports (memif, vhost-user), for chains",
				 cmd_nf_add, NULL};
static struct tp_cmd c_nf_del = {"nf del", "NAME", "forget an NF in no chain", cmd_nf_del, NULL};
static struct tp_cmd c_show_nf = {"show nf", NULL, "NFs and their link state", cmd_show_nf, NULL};
static struct tp_cmd c_chain_add = {
    "chain add", "NAME from PORT to PORT via NF [NF...] [on-nf-down drop|bypass]",
    "steer what enters PORT through the NFs in order and out the other PORT (and back)",
    cmd_chain_add, NULL};
static struct tp_cmd c_chain_del = {"chain del", "NAME", "remove a chain (its ports go to l3)",
				    cmd_chain_del, NULL};
static struct tp_cmd c_show_chain = {"show chain", "[NAME]", "chains and per-hop counters",
				     cmd_show_chain, NULL};
TP_CMD_REGISTER(c_bridge_add)
TP_CMD_REGISTER(c_bridge_del)
TP_CMD_REGISTER(c_bridge_set)
TP_CMD_REGISTER(c_bridge_mac)
TP_CMD_REGISTER(c_show_bridge)
TP_CMD_REGISTER(c_nf_add)
TP_CMD_REGISTER(c_nf_del)
TP_CMD_REGISTER(c_show_nf)
TP_CMD_REGISTER(c_chain_add)
TP_CMD_REGISTER(c_chain_del)
TP_CMD_REGISTER(c_show_chain)
