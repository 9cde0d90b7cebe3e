/* SPDX-License-Identifier: BSD-3-Clause */
/* The L2 switch's MAC table: the control plane its only writer (l2.h). Learn
 * events drained from the lcores' rings, aging, static entries, and the per-port
 * and per-bridge limits whose flags the workers read. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_hash.h>
#include <rte_malloc.h>

#include "../../../control/timer.h"
#include "../../../core/log.h"
#include "../../../core/tp.h"
#include "../../../tables/rcu_hash.h"
#include "control.h"

struct rte_hash *l2_macs;
struct l2_mac *l2_mac_table;
uint64_t l2_gen = 1;
struct l2_bridge l2_bridges[L2_BRIDGES_MAX];

uint32_t l2_mac_cap = L2_MACS_DEFAULT;
uint32_t l2_mac_hiwater;
unsigned int l2_n_bridges;
struct l2_port *l2_cfg[TP_MAX_PORTS];
static uint32_t *free_idx; /* stack of free entries */
static uint32_t n_free;
static uint32_t n_dyn[TP_MAX_PORTS];  /* dynamic entries per port */
static uint32_t n_br[L2_BRIDGES_MAX]; /* dynamic entries per bridge */
static struct tp_timer learn_timer, aging_timer;

bool l2_port_full(const struct l2_port *lp)
{
	return lp && lp->mac_limit && tp_l2_port_macs(lp->port) >= lp->mac_limit;
}

static void set_limit_flag(uint16_t port)
{
	struct l2_port *lp = l2_cfg[port];

	if (lp)
		__atomic_store_n(&lp->at_limit, l2_port_full(lp), __ATOMIC_RELAXED);
}

uint32_t tp_l2_bridge_limit(uint16_t b)
{
	const struct l2_bridge *br = &l2_bridges[b];

	if (br->mac_limit)
		return br->mac_limit;
	return l2_n_bridges ? l2_mac_cap / l2_n_bridges : l2_mac_cap;
}

void l2_set_bridge_flag(uint16_t b)
{
	__atomic_store_n(&l2_bridges[b].at_limit, n_br[b] >= tp_l2_bridge_limit(b),
			 __ATOMIC_RELAXED);
}

/* the fair share changed: every bridge's flag */
void l2_set_bridge_flags(void)
{
	for (uint16_t b = 0; b < L2_BRIDGES_MAX; b++)
		if (l2_bridges[b].used)
			l2_set_bridge_flag(b);
}

/* A dynamic entry of bridge b on port came (+1) or went (-1). */
static void count_dyn(uint16_t b, uint16_t port, int d)
{
	if (port < TP_MAX_PORTS) {
		n_dyn[port] += (uint32_t)d;
		set_limit_flag(port);
	}
	n_br[b] += (uint32_t)d;
	l2_set_bridge_flag(b);
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
	return port < TP_MAX_PORTS ? l2_cfg[port] : NULL;
}

struct l2_port *l2_member(uint16_t bridge, uint16_t port)
{
	struct l2_members *mb;

	if (bridge >= L2_BRIDGES_MAX || !l2_bridges[bridge].used || port >= TP_MAX_PORTS)
		return NULL;
	mb = l2_bridges[bridge].members;
	return mb ? mb->cfg[port] : NULL;
}

static void release_idx(uint32_t idx)
{
	memset(&l2_mac_table[idx], 0, sizeof(l2_mac_table[idx]));
	free_idx[n_free++] = idx;
}

/* Remove entry idx (dying now, its slot reused after a grace period). */
void l2_mac_remove(uint32_t idx)
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
int l2_mac_set(const struct l2_key *k, uint16_t port, bool is_static, bool *moved, uint64_t now)
{
	struct l2_bridge *br = &l2_bridges[k->bridge];
	struct l2_port *lp = l2_member(k->bridge, port);
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
		if (!is_static && l2_port_full(lp)) {
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
		if (!is_static && l2_port_full(lp)) {
			br->limit_refused++;
			set_limit_flag(port);
			return -EDQUOT;
		}
		if (!is_static && n_br[k->bridge] >= tp_l2_bridge_limit(k->bridge)) {
			br->bridge_limit_refused++;
			l2_set_bridge_flag(k->bridge);
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
		if (idx + 1 > l2_mac_hiwater)
			l2_mac_hiwater = idx + 1;
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
				if (l2_member(ev[i].key.bridge, ev[i].port) == NULL)
					continue; /* the port left the bridge since */
				if (l2_mac_set(&ev[i].key, ev[i].port, false, &moved, now) == 0) {
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
	for (uint32_t i = 0; i < l2_mac_hiwater; i++) {
		struct l2_mac *e = &l2_mac_table[i];
		if (e->used != 1 || e->is_static)
			continue;
		struct l2_bridge *br = &l2_bridges[e->key.bridge];
		uint64_t seen = __atomic_load_n(&e->seen, __ATOMIC_RELAXED);
		if (now > seen && now - seen > (uint64_t)br->aging_s * tp.tsc_hz) {
			br->aged++;
			l2_mac_remove(i);
		}
	}
}

static void aging_timer_fn(struct tp_timer *t)
{
	tp_l2_age(rte_rdtsc());
}

/* Every entry of bridge b (on port, or any port if L2_NO_PORT; dynamic only unless
 * all). Returns how many. */
unsigned int l2_mac_flush(uint16_t b, uint16_t port, bool all)
{
	unsigned int n = 0;

	for (uint32_t i = 0; i < l2_mac_hiwater; i++) {
		struct l2_mac *e = &l2_mac_table[i];
		if (e->used == 1 && e->key.bridge == b && (port == L2_NO_PORT || e->port == port) &&
		    (all || !e->is_static)) {
			l2_mac_remove(i);
			n++;
		}
	}
	return n;
}

void l2_mac_bridge_new(uint16_t b)
{
	n_br[b] = 0;
}

int l2_mac_init(void)
{
	l2_macs = tp_rcu_hash_create("l2-macs", l2_mac_cap, sizeof(struct l2_key));
	if (l2_macs == NULL)
		goto fail;
	l2_mac_table = rte_zmalloc("l2-mac-table", sizeof(*l2_mac_table) * l2_mac_cap, 64);
	if (l2_mac_table == NULL)
		goto free_hash;
	free_idx = malloc(sizeof(*free_idx) * l2_mac_cap);
	if (free_idx == NULL)
		goto free_table;
	for (uint32_t i = 0; i < l2_mac_cap; i++)
		free_idx[i] = l2_mac_cap - 1 - i;
	n_free = l2_mac_cap;
	l2_mac_hiwater = 0;
	tp_timer_init(&learn_timer, "l2-learn", learn_timer_fn, NULL);
	tp_timer_every(&learn_timer, 10);
	tp_timer_init(&aging_timer, "l2-aging", aging_timer_fn, NULL);
	tp_timer_every(&aging_timer, 1000);
	return 0;
free_table:
	rte_free(l2_mac_table);
	l2_mac_table = NULL;
free_hash:
	rte_hash_free(l2_macs);
	l2_macs = NULL;
fail:
	TP_LOG(ERR, "l2: cannot allocate a MAC table of %u entries", l2_mac_cap);
	return -ENOMEM;
}

void l2_mac_fini(void)
{
	tp_timer_cancel(&learn_timer);
	tp_timer_cancel(&aging_timer);
	rte_hash_free(l2_macs);
	rte_free(l2_mac_table);
	free(free_idx);
	l2_macs = NULL;
	l2_mac_table = NULL;
	free_idx = NULL;
	n_free = 0;
}
