/* SPDX-License-Identifier: BSD-3-Clause */
/* Data-plane lcores: creation, roles, receive-queue placement, configuration publishing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "lcore.h"
#include "log.h"
#include "rcu.h"
#include "ring.h"
#include "tp.h"

struct tp_global tp;

static const char *const role_names[TP_ROLE_MAX] = {
    [TP_ROLE_WORKER] = "worker",
    [TP_ROLE_INPUT] = "input",
    [TP_ROLE_FORWARDING] = "forwarding",
    [TP_ROLE_OUTPUT] = "output",
};
/* one a line */
/* clang-format off */
static const char *const class_names[TP_PUNT_CLASSES] = {
    [TP_PUNT_CONTROL] = "control",
    [TP_PUNT_ARP] = "arp",
    [TP_PUNT_SIGNALING] = "signaling",
    [TP_PUNT_OTHER] = "other",
    [TP_PUNT_ERROR] = "error",
};
/* clang-format on */

/* control plane's view: what is to be published */
static uint8_t roles[TP_MAX_WORKERS];
static uint16_t rxq_n[TP_MAX_PORTS];
static int8_t rxq_pin[TP_MAX_PORTS][TP_RXQ_MAX];
/* what was published last */
static int8_t rxq_owner[TP_MAX_PORTS][TP_RXQ_MAX];
static unsigned int port_receivers[TP_MAX_PORTS];

const char *tp_role_name(enum tp_role r)
{
	return r < TP_ROLE_MAX ? role_names[r] : "?";
}

int tp_role_parse(const char *s)
{
	for (int i = 0; i < TP_ROLE_MAX; i++)
		if (strcmp(s, role_names[i]) == 0)
			return i;
	return -EINVAL;
}

const char *tp_punt_class_name(enum tp_punt_class c)
{
	return c < TP_PUNT_CLASSES ? class_names[c] : "?";
}

int tp_punt_class_parse(const char *s)
{
	for (int i = 0; i < TP_PUNT_CLASSES; i++)
		if (strcmp(s, class_names[i]) == 0)
			return i;
	return -EINVAL;
}

static bool role_receives(enum tp_role r)
{
	return r == TP_ROLE_WORKER || r == TP_ROLE_INPUT;
}

/* Bucket parameters of every lcore for every port and class, from tp.exc_* and the
 * number of lcores that receive from each port. */
static void punt_rates_apply(void)
{
	for (unsigned int i = 0; i < tp.n_workers; i++)
		for (unsigned int p = 0; p < TP_MAX_PORTS; p++)
			for (unsigned int c = 0; c < TP_PUNT_CLASSES; c++) {
				struct tp_tbucket *tb = &tp.workers[i]->tb[p][c];
				uint64_t n = port_receivers[p] ? port_receivers[p] : 1;
				uint64_t per = tp.exc_rate[c] / n ? tp.exc_rate[c] / n : 1;
				uint64_t cost = tp.tsc_hz / per ? tp.tsc_hz / per : 1;
				__atomic_store_n(&tb->cost, cost, __ATOMIC_RELAXED);
				__atomic_store_n(&tb->max_tokens,
						 cost * (tp.exc_burst[c] ? tp.exc_burst[c] : 1),
						 __ATOMIC_RELAXED);
			}
}

void tp_punt_rate_set(enum tp_punt_class cls, uint64_t rate, uint64_t burst)
{
	for (unsigned int c = 0; c < TP_PUNT_CLASSES; c++)
		if (cls == TP_PUNT_CLASSES || c == cls) {
			tp.exc_rate[c] = rate;
			tp.exc_burst[c] = burst;
		}
	punt_rates_apply();
}

static void conf_free(void *a, void *b)
{
	free(a);
}

int tp_lcores_publish(void)
{
	struct tp_lcore_conf *fresh[TP_MAX_WORKERS] = {0};
	static int8_t owner[TP_MAX_PORTS][TP_RXQ_MAX];
	unsigned int n_rxq[TP_MAX_WORKERS] = {0}, receivers[TP_MAX_PORTS] = {0};
	unsigned int recv_ids[TP_MAX_WORKERS], n_recv = 0, next = 0;
	struct tp_ring *rings[TP_RINGS_MAX];

	for (unsigned int i = 0; i < tp.n_workers; i++)
		if (role_receives(roles[i]))
			recv_ids[n_recv++] = i;
	/* placement: pinned queues where pinned, the others round robin (continuing
	 * from port to port, as the queues of several ports share the lcores) */
	for (unsigned int p = 0; p < TP_MAX_PORTS; p++) {
		for (unsigned int q = 0; q < rxq_n[p]; q++) {
			int o = rxq_pin[p][q];
			if (o == TP_RXQ_AUTO)
				o = n_recv ? (int)recv_ids[next++ % n_recv] : -1;
			owner[p][q] = (int8_t)o;
			if (o >= 0)
				n_rxq[o]++;
		}
	}
	for (unsigned int i = 0; i < tp.n_workers; i++) {
		unsigned int nr = tp_ring_list(i, rings, RTE_DIM(rings));
		struct tp_lcore_conf *c = calloc(1, sizeof(*c) + n_rxq[i] * sizeof(struct tp_rxq) +
							nr * sizeof(struct tp_ring *));
		if (c == NULL) {
			for (unsigned int j = 0; j < i; j++)
				free(fresh[j]);
			return -ENOMEM;
		}
		c->role = roles[i];
		c->rxq = (struct tp_rxq *)(c + 1);
		c->rings = (struct tp_ring **)(c->rxq + n_rxq[i]);
		for (unsigned int p = 0; p < TP_MAX_PORTS; p++) {
			bool polls = false;
			for (unsigned int q = 0; q < rxq_n[p]; q++)
				if (owner[p][q] == (int)i) {
					c->rxq[c->n_rxq++] =
					    (struct tp_rxq){(uint16_t)p, (uint16_t)q};
					polls = true;
				}
			receivers[p] += polls;
		}
		memcpy(c->rings, rings, nr * sizeof(*rings));
		c->n_rings = nr;
		fresh[i] = c;
	}
	for (unsigned int i = 0; i < tp.n_workers; i++) {
		struct tp_lcore_conf *old =
		    __atomic_exchange_n(&tp.workers[i]->conf, fresh[i], __ATOMIC_ACQ_REL);
		if (old != NULL && tp_rcu_defer(conf_free, old, NULL) < 0)
			TP_LOG(WARNING, "lcore %u: defer queue full, old configuration leaked",
			       tp.workers[i]->lcore);
	}
	memcpy(rxq_owner, owner, sizeof(owner));
	memcpy(port_receivers, receivers, sizeof(receivers));
	punt_rates_apply();
	return 0;
}

int tp_lcores_create(unsigned int exc_ring_size)
{
	char name[RTE_RING_NAMESIZE];
	unsigned int lcore, n = 0;
	int ret;

	RTE_LCORE_FOREACH_WORKER(lcore)
	{
		if (n == TP_MAX_WORKERS) {
			TP_LOG(WARNING,
			       "more than %d data-plane lcores: lcore %u and the following "
			       "ones stay idle",
			       TP_MAX_WORKERS, lcore);
			break;
		}
		struct tp_worker *w =
		    rte_zmalloc_socket("tp_worker", sizeof(*w), RTE_CACHE_LINE_SIZE,
				       (int)rte_lcore_to_socket_id(lcore));
		if (w == NULL)
			return -ENOMEM;
		w->id = n;
		w->lcore = lcore;
		w->src_seed = (uint32_t)rte_rand(); /* sources cannot aim at a slot */
		w->ctr =
		    rte_zmalloc_socket("tp_ctr", sizeof(uint64_t) * TP_MAX_PORTS * TP_CTR_MAX,
				       RTE_CACHE_LINE_SIZE, (int)rte_lcore_to_socket_id(lcore));
		if (w->ctr == NULL)
			return -ENOMEM;
		tp.workers[n++] = w;
	}
	tp.n_workers = n;
	if (n == 0) {
		TP_LOG(ERR, "no data-plane lcore: give at least two lcores (-l 0,1), the first "
			    "one runs the control plane");
		return -EINVAL;
	}
	if ((ret = tp_rcu_init(n)) < 0)
		return ret;
	for (unsigned int i = 0; i < n; i++) {
		struct tp_worker *w = tp.workers[i];
		for (int k = 0; k < 2; k++) {
			snprintf(name, sizeof(name), "tp_exc%d_%u", k, i);
			w->exc_ring[k] = rte_ring_create(name, exc_ring_size, SOCKET_ID_ANY,
							 RING_F_SP_ENQ | RING_F_SC_DEQ);
			if (w->exc_ring[k] == NULL)
				return -rte_errno;
		}
		snprintf(name, sizeof(name), "tp_inj_%u", i);
		w->inject_ring = rte_ring_create(name, exc_ring_size, SOCKET_ID_ANY,
						 RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (w->inject_ring == NULL)
			return -rte_errno;
	}
	return tp_lcores_publish();
}

static void ring_drain_free(struct rte_ring *r)
{
	void *m;

	while (r && rte_ring_dequeue(r, &m) == 0)
		rte_pktmbuf_free(m);
}

void tp_lcores_drain(void)
{
	for (unsigned int i = 0; i < tp.n_workers; i++) {
		struct tp_worker *w = tp.workers[i];
		for (int k = 0; k < 2; k++)
			ring_drain_free(w->exc_ring[k]);
		ring_drain_free(w->inject_ring);
		for (unsigned int p = 0; p < TP_MAX_PORTS; p++) {
			rte_pktmbuf_free_bulk(w->txb[p].pkts, w->txb[p].n);
			w->txb[p].n = 0;
		}
	}
}

void tp_lcores_destroy(void)
{
	tp_lcores_drain(); /* nothing left, unless a start-up failed before the join */
	for (unsigned int i = 0; i < tp.n_workers; i++) {
		struct tp_worker *w = tp.workers[i];
		for (int k = 0; k < 2; k++)
			rte_ring_free(w->exc_ring[k]);
		rte_ring_free(w->inject_ring);
	}
	tp_rcu_fini(); /* runs what is deferred: the lcores are gone */
	for (unsigned int i = 0; i < tp.n_workers; i++) {
		free(tp.workers[i]->conf);
		rte_free(tp.workers[i]->ctr);
		rte_free(tp.workers[i]);
		tp.workers[i] = NULL;
	}
	tp.n_workers = 0;
}

void tp_lcores_launch(void)
{
	tp.lcores_running = true;
	for (unsigned int i = 0; i < tp.n_workers; i++)
		rte_eal_remote_launch(tp_worker_main, tp.workers[i], tp.workers[i]->lcore);
}

void tp_lcores_join(void)
{
	rte_eal_mp_wait_lcore();
	tp.lcores_running = false;
}

int tp_lcore_by_eal(unsigned int lcore)
{
	for (unsigned int i = 0; i < tp.n_workers; i++)
		if (tp.workers[i]->lcore == lcore)
			return (int)i;
	return -ENOENT;
}

enum tp_role tp_lcore_role(unsigned int id)
{
	return id < tp.n_workers ? (enum tp_role)roles[id] : TP_ROLE_MAX;
}

int tp_lcore_set_role(unsigned int id, enum tp_role role)
{
	uint8_t old;
	int ret;

	if (id >= tp.n_workers || role >= TP_ROLE_MAX)
		return -EINVAL;
	if (!role_receives(role))
		for (unsigned int p = 0; p < TP_MAX_PORTS; p++)
			for (unsigned int q = 0; q < rxq_n[p]; q++)
				if (rxq_pin[p][q] == (int)id)
					return -EBUSY;
	old = roles[id];
	roles[id] = (uint8_t)role;
	ret = tp_lcores_publish();
	if (ret < 0)
		roles[id] = old;
	return ret;
}

int tp_lcore_port_rxqs(uint16_t port, uint16_t n, const int16_t *pin)
{
	int8_t old_pin[TP_RXQ_MAX];
	uint16_t old_n;
	int ret;

	if (port >= TP_MAX_PORTS || n > TP_RXQ_MAX)
		return -EINVAL;
	for (unsigned int q = 0; pin && q < n; q++)
		if (pin[q] != TP_RXQ_AUTO && (pin[q] < 0 || (unsigned int)pin[q] >= tp.n_workers ||
					      !role_receives(roles[pin[q]])))
			return -EINVAL;
	memcpy(old_pin, rxq_pin[port], sizeof(old_pin));
	old_n = rxq_n[port];
	for (unsigned int q = 0; q < TP_RXQ_MAX; q++)
		rxq_pin[port][q] = (int8_t)(pin && q < n ? pin[q] : TP_RXQ_AUTO);
	rxq_n[port] = n;
	ret = tp_lcores_publish();
	if (ret < 0) {
		memcpy(rxq_pin[port], old_pin, sizeof(old_pin));
		rxq_n[port] = old_n;
	}
	return ret;
}

int tp_lcore_pin_rxq(uint16_t port, uint16_t queue, int id)
{
	int8_t old;
	int ret;

	if (port >= TP_MAX_PORTS || queue >= rxq_n[port])
		return -ENOENT;
	if (id != TP_RXQ_AUTO && (id < 0 || (unsigned int)id >= tp.n_workers))
		return -EINVAL;
	if (id != TP_RXQ_AUTO && !role_receives(roles[id]))
		return -EBUSY;
	old = rxq_pin[port][queue];
	rxq_pin[port][queue] = (int8_t)id;
	ret = tp_lcores_publish();
	if (ret < 0)
		rxq_pin[port][queue] = old;
	return ret;
}

int tp_lcore_rxq_owner(uint16_t port, uint16_t queue)
{
	if (port >= TP_MAX_PORTS || queue >= rxq_n[port])
		return -1;
	return rxq_owner[port][queue];
}
