/* SPDX-License-Identifier: BSD-3-Clause */
/* Port life cycle: probe, configure, TAP, queue assignment to workers, removal. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "../core/ethdev.h"
#include "../core/log.h"
#include "../core/tp.h"
#include "../tables/iface.h"
#include "../tables/neigh.h"
#include "../tables/nexthop.h"
#include "../tables/route.h"
#include "control.h"
#include "exception.h"
#include "port.h"
#include "tap.h"

#define DEFAULT_RXD 1024
#define DEFAULT_TXD 1024
#define MBUF_CACHE 256
#define EXC_RING_SIZE 1024

static struct tp_port *ports[TP_MAX_PORTS];
struct rte_mempool *tp_ctl_pool;
/* pools of removed ports whose mbufs may still be in flight; freed at exit */
static struct rte_mempool *retired_pools[TP_MAX_PORTS * 4];
static unsigned int n_retired;

/* A whole cache line: packet data then starts cache-aligned (with a priv size of
 * 8, a 64-byte frame straddled two lines; measured ~3 cycles/packet on net_pcap). */
static unsigned int mbuf_priv_size(void)
{
	return RTE_ALIGN(sizeof(struct tp_mbuf_priv), RTE_CACHE_LINE_SIZE);
}

int tp_ctl_pool_init(void)
{
	tp_ctl_pool = rte_pktmbuf_pool_create("tp_ctl_pool", 4095, MBUF_CACHE, mbuf_priv_size(),
					      RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	return tp_ctl_pool ? 0 : -rte_errno;
}

void tp_pools_usage(uint64_t *size, uint64_t *in_use)
{
	*size = tp_ctl_pool ? tp_ctl_pool->size : 0;
	*in_use = tp_ctl_pool ? rte_mempool_in_use_count(tp_ctl_pool) : 0;
	for (unsigned int i = 0; i < TP_MAX_PORTS; i++) {
		if (ports[i] == NULL)
			continue;
		*size += ports[i]->pool->size;
		*in_use += rte_mempool_in_use_count(ports[i]->pool);
	}
}

struct tp_port *tp_port_by_name(const char *name)
{
	for (unsigned int i = 0; i < TP_MAX_PORTS; i++)
		if (ports[i] && strcmp(ports[i]->name, name) == 0)
			return ports[i];
	return NULL;
}

struct tp_port *tp_port_by_id(uint16_t id)
{
	return id < TP_MAX_PORTS ? ports[id] : NULL;
}

struct tp_port *tp_port_by_ifindex(int ifindex)
{
	for (unsigned int i = 0; i < TP_MAX_PORTS; i++)
		if (ports[i] && ports[i]->tap_ifindex == ifindex)
			return ports[i];
	return NULL;
}

struct tp_port *tp_port_next(unsigned int *iter)
{
	while (*iter < TP_MAX_PORTS) {
		struct tp_port *p = ports[(*iter)++];
		if (p)
			return p;
	}
	return NULL;
}

/* Rebuild every worker's receive-queue list from the ports (round robin) and
 * publish it; the old lists are freed once no worker can be reading them. */
static int workers_republish(void)
{
	struct tp_worker_conf *fresh[TP_MAX_WORKERS] = {0}, *old[TP_MAX_WORKERS];
	unsigned int total = 0, next = 0;

	for (unsigned int i = 0; i < TP_MAX_PORTS; i++)
		if (ports[i])
			total += ports[i]->nb_rxq;
	for (unsigned int w = 0; w < tp.n_workers; w++) {
		fresh[w] = calloc(1, sizeof(*fresh[w]) + total * sizeof(struct tp_rxq));
		if (fresh[w] == NULL) {
			for (unsigned int j = 0; j < w; j++)
				free(fresh[j]);
			return -ENOMEM;
		}
	}
	for (unsigned int i = 0; i < TP_MAX_PORTS; i++) {
		if (ports[i] == NULL)
			continue;
		for (uint16_t q = 0; q < ports[i]->nb_rxq; q++) {
			struct tp_worker_conf *c = fresh[next++ % tp.n_workers];
			c->rxq[c->n_rxq++] = (struct tp_rxq){ports[i]->id, q};
		}
	}
	for (unsigned int w = 0; w < tp.n_workers; w++)
		old[w] = __atomic_exchange_n(&tp.workers[w]->conf, fresh[w], __ATOMIC_ACQ_REL);
	rte_rcu_qsbr_synchronize(tp.qs, RTE_QSBR_THRID_INVALID);
	for (unsigned int w = 0; w < tp.n_workers; w++)
		free(old[w]);
	return 0;
}

static int valid_name(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n >= TP_PORT_NAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
		      (name[i] >= '0' && name[i] <= '9') || name[i] == '_' || name[i] == '-'))
			return 0;
	return 1;
}

static int port_configure(struct tp_port *p, char *err, size_t errlen)
{
	int ret = tp_ethdev_configure(p->id, p->nb_rxq, p->nb_txq, &p->nb_rxd, &p->nb_txd, &p->mtu,
				      err, errlen);
	if (ret < 0)
		return ret;
	/* mempool sized from this port's configuration: its rx rings, its share of
	 * every worker's tx ring, per-lcore caches, and the exception ring */
	unsigned int n = p->nb_rxq * p->nb_rxd + p->nb_txq * p->nb_txd +
			 (tp.n_workers + 1) * (MBUF_CACHE + 2 * TP_BURST) +
			 tp.n_workers * EXC_RING_SIZE;
	n = rte_align32pow2(n) - 1;
	char pname[RTE_MEMPOOL_NAMESIZE];
	snprintf(pname, sizeof(pname), "tp_pool_%s", p->name);
	p->pool = rte_pktmbuf_pool_create(pname, n, MBUF_CACHE, mbuf_priv_size(),
					  RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (p->pool == NULL) {
		snprintf(err, errlen, "mempool of %u mbufs: %s", n, rte_strerror(rte_errno));
		return -rte_errno;
	}
	return tp_ethdev_start(p->id, p->nb_rxq, p->nb_txq, p->nb_rxd, p->nb_txd, p->pool, err,
			       errlen);
}

static void sysctl_if(const char *fmt, const char *ifname, const char *val)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), fmt, ifname);
	f = fopen(path, "w");
	if (f == NULL || fputs(val, f) < 0)
		TP_LOG(WARNING, "cannot set %s", path);
	if (f)
		fclose(f);
}

/* An af_packet port only copies frames: the kernel still receives them on the
 * interface, would answer ARP and ICMP for the TAPs' addresses and forward
 * them a second time. Make the kernel side of such an interface inert. */
static void af_packet_quiet_kernel(const char *devargs)
{
	const char *k = strstr(devargs, "iface=");
	char ifname[IFNAMSIZ];

	if (strncmp(devargs, "net_af_packet", 13) != 0 || k == NULL)
		return;
	snprintf(ifname, sizeof(ifname), "%.*s", (int)strcspn(k + 6, ","), k + 6);
	/* strict reverse-path check: nothing is routed via it, so all IPv4 is dropped */
	sysctl_if("/proc/sys/net/ipv4/conf/%s/rp_filter", ifname, "1");
	sysctl_if("/proc/sys/net/ipv4/conf/%s/arp_ignore", ifname, "8"); /* never answer ARP */
	sysctl_if("/proc/sys/net/ipv6/conf/%s/disable_ipv6", ifname, "1");
	TP_LOG(INFO, "%s: kernel IPv4 input, ARP replies and IPv6 off (af_packet port)", ifname);
}

int tp_port_add(const char *name, const char *devargs, const struct tp_port_opts *o, char *err,
		size_t errlen)
{
	struct tp_port *p;
	uint16_t id;
	int ret;

	if (!valid_name(name)) {
		snprintf(err, errlen, "bad port name '%s' (1-%d of [A-Za-z0-9_-])", name,
			 TP_PORT_NAME_MAX - 1);
		return -EINVAL;
	}
	if (tp_port_by_name(name)) {
		snprintf(err, errlen, "port '%s' exists", name);
		return -EEXIST;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	p->tap_fd = -1;
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(p->devargs, sizeof(p->devargs), "%s", devargs);
	snprintf(p->devname, sizeof(p->devname), "%.*s", (int)strcspn(devargs, ","), devargs);
	p->nb_rxq = o->nb_rxq ? o->nb_rxq : 1;
	p->nb_txq = (uint16_t)tp.n_workers;
	p->nb_rxd = o->nb_rxd ? o->nb_rxd : DEFAULT_RXD;
	p->nb_txd = o->nb_txd ? o->nb_txd : DEFAULT_TXD;
	p->mtu = o->mtu;

	af_packet_quiet_kernel(devargs);
	ret = tp_ethdev_probe(devargs, &id, err, errlen);
	if (ret < 0)
		goto free_port;
	if (id >= TP_MAX_PORTS) {
		snprintf(err, errlen, "port id %u beyond %u", id, TP_MAX_PORTS);
		ret = -ENOSPC;
		goto close_dev;
	}
	p->id = id;
	ret = port_configure(p, err, errlen);
	if (ret < 0)
		goto close_dev;

	struct tp_iface *ifc = &tp_iface_table[id];
	rte_eth_macaddr_get(id, &ifc->mac);
	ifc->mtu = p->mtu;
	snprintf(p->tap_name, sizeof(p->tap_name), "tp-%s", name);
	p->tap_fd = tp_tap_create(p->tap_name, ifc->mac.addr_bytes, p->mtu, &p->tap_ifindex);
	if (p->tap_fd < 0) {
		ret = p->tap_fd;
		snprintf(err, errlen, "TAP %s: %s", p->tap_name, strerror(-ret));
		goto stop_dev;
	}
	ifc->tap_ifindex = (uint32_t)p->tap_ifindex;
	__atomic_store_n(&ifc->up, 1, __ATOMIC_RELEASE);
	ports[id] = p;
	ret = tp_exc_attach(p);
	if (ret < 0) {
		snprintf(err, errlen, "exception path: %s", strerror(-ret));
		goto unpublish;
	}
	ret = workers_republish();
	if (ret < 0) {
		snprintf(err, errlen, "publishing queues: %s", strerror(-ret));
		goto detach;
	}
	TP_LOG(INFO, "port %s: id %u, %s, %u rxq, %u txq, tap %s", name, id, devargs, p->nb_rxq,
	       p->nb_txq, p->tap_name);
	return 0;
detach:
	tp_exc_detach(p);
unpublish:
	ports[id] = NULL;
	ifc->up = 0;
	close(p->tap_fd);
stop_dev:
	rte_eth_dev_stop(id);
close_dev:
	tp_ethdev_close(id);
	if (p->pool)
		rte_mempool_free(p->pool);
free_port:
	free(p);
	return ret;
}

/* Forget the kernel's neighbours on port id (their routes are flushed separately). */
static void neigh_flush_port(uint16_t id)
{
	uint32_t iter = 0, ip, nh, victims[256];
	unsigned int n = 0;

	while (n < RTE_DIM(victims) && tp_neigh_iterate(&iter, &ip, &nh) == 0)
		if (tp_nh_table[nh].port == id && tp_nh_table[nh].learned)
			victims[n++] = ip;
	for (unsigned int i = 0; i < n; i++)
		tp_neigh_learn(victims[i], id, NULL);
}

int tp_port_del(const char *name)
{
	struct tp_port *p = tp_port_by_name(name);

	if (p == NULL)
		return -ENOENT;
	ports[p->id] = NULL;
	workers_republish(); /* no worker polls it after this returns */
	__atomic_store_n(&tp_iface_table[p->id].up, 0, __ATOMIC_RELEASE);
	tp_route_flush_port(p->id);
	neigh_flush_port(p->id);
	rte_rcu_qsbr_synchronize(tp.qs, RTE_QSBR_THRID_INVALID); /* nothing transmits to it now */
	tp_exc_detach(p);
	tp_ethdev_close(p->id);
	close(p->tap_fd);
	memset(&tp_iface_table[p->id], 0, sizeof(tp_iface_table[p->id]));
	/* its mbufs may sit in other ports' tx rings: free the pool only when all are home */
	if (rte_mempool_full(p->pool) || n_retired == RTE_DIM(retired_pools))
		rte_mempool_free(p->pool);
	else
		retired_pools[n_retired++] = p->pool;
	TP_LOG(INFO, "port %s removed", name);
	free(p);
	return 0;
}

void tp_port_del_all(void)
{
	for (unsigned int i = 0; i < TP_MAX_PORTS; i++)
		if (ports[i])
			tp_port_del(ports[i]->name);
	for (unsigned int i = 0; i < n_retired; i++)
		rte_mempool_free(retired_pools[i]);
	n_retired = 0;
}
