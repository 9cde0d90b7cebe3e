/* SPDX-License-Identifier: BSD-3-Clause */
/* Port life cycle: probe, configure, TAP, mode, queue placement, removal. */
#include <errno.h>
#include <fcntl.h>
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
#include "../core/lcore.h"
#include "../core/afpacket.h"
#include "../core/log.h"
#include "../core/nf.h"
#include "../core/rcu.h"
#include "../core/tp.h"
#include "../tables/iface.h"
#include "control.h"
#include "exception.h"
#include "port.h"
#include "tap.h"
#include "timer.h"

#define DEFAULT_RXD 1024
#define DEFAULT_TXD 1024
#define MBUF_CACHE 256

static struct tp_port *ports[TP_MAX_PORTS];
/* pools of removed ports whose mbufs may still be in flight (in other ports' TX
 * rings, a ring between lcores): freed by a timer as soon as all are home */
static struct rte_mempool *retired_pools[TP_MAX_PORTS * 4];
static unsigned int n_retired;
static struct tp_timer retired_timer;
/* the modules' pools counted with the ports' */
static struct rte_mempool *tracked_pools[8];
static unsigned int n_tracked;

struct rte_mempool *tp_pool_create(const char *name, unsigned int n, unsigned int cache)
{
	return rte_pktmbuf_pool_create(name, n, cache, TP_MBUF_PRIV_SIZE, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
}

static void retired_check(struct tp_timer *t)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < n_retired; i++) {
		if (rte_mempool_full(retired_pools[i])) {
			TP_LOG(INFO, "mempool %s: all mbufs home, freed", retired_pools[i]->name);
			rte_mempool_free(retired_pools[i]);
		} else {
			retired_pools[k++] = retired_pools[i];
		}
	}
	n_retired = k;
	if (n_retired == 0)
		tp_timer_cancel(t);
}

/* A removed port's pool: freed now if every mbuf is home, else once they are. */
static void pool_retire(struct rte_mempool *mp)
{
	if (rte_mempool_full(mp)) {
		rte_mempool_free(mp);
		return;
	}
	if (n_retired == RTE_DIM(retired_pools)) {
		TP_LOG(WARNING,
		       "mempool %s kept for good: %u mbufs still out and too many pools "
		       "waiting",
		       mp->name, rte_mempool_in_use_count(mp));
		return;
	}
	retired_pools[n_retired++] = mp;
	if (!retired_timer.armed) {
		tp_timer_init(&retired_timer, "retired-pools", retired_check, NULL);
		tp_timer_every(&retired_timer, 100);
	}
}

void tp_pools_usage(uint64_t *size, uint64_t *in_use)
{
	*size = *in_use = 0;
	for (unsigned int i = 0; i < TP_MAX_PORTS; i++) {
		if (ports[i] == NULL)
			continue;
		*size += ports[i]->pool->size + ports[i]->kpool->size;
		*in_use += rte_mempool_in_use_count(ports[i]->pool) +
			   rte_mempool_in_use_count(ports[i]->kpool);
	}
	for (unsigned int i = 0; i < n_retired; i++) {
		*size += retired_pools[i]->size;
		*in_use += rte_mempool_in_use_count(retired_pools[i]);
	}
	for (unsigned int i = 0; i < n_tracked; i++) {
		*size += tracked_pools[i]->size;
		*in_use += rte_mempool_in_use_count(tracked_pools[i]);
	}
}

int tp_pool_track(struct rte_mempool *mp)
{
	if (n_tracked == RTE_DIM(tracked_pools))
		return -ENOSPC;
	tracked_pools[n_tracked++] = mp;
	return 0;
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
	int ret = tp_ethdev_configure(p->id, p->nb_rxq, &p->nb_txq, &p->nb_rxd, &p->nb_txd, &p->mtu,
				      err, errlen);
	if (ret < 0)
		return ret;
	/* mempool sized from this port's configuration: its rx rings, its share of
	 * every lcore's tx ring, per-lcore caches, and the exception rings */
	unsigned int n = p->nb_rxq * p->nb_rxd + p->nb_txq * p->nb_txd +
			 (tp.n_workers + 1) * (MBUF_CACHE + 2 * TP_BURST) +
			 tp.n_workers * 2 * TP_EXC_RING_SIZE;
	n = rte_align32pow2(n) - 1;
	/* a name of its own: a removed port's pool may still wait for its mbufs */
	static unsigned int seq;
	char pname[RTE_MEMPOOL_NAMESIZE];
	snprintf(pname, sizeof(pname), "tpp%u_%s", seq, p->name);
	p->pool = tp_pool_create(pname, n, MBUF_CACHE);
	if (p->pool == NULL) {
		snprintf(err, errlen, "mempool of %u mbufs: %s", n, rte_strerror(rte_errno));
		return -rte_errno;
	}
	/* its TAP's share (review F12): a pool of its own, so that a flood through one TAP
	 * empties only that; no per-lcore cache, or the workers' caches would keep part of
	 * the share from the control thread. Exact on every path by construction: a mbuf
	 * the workers transmit, drop or a driver frees goes back to this pool. */
	snprintf(pname, sizeof(pname), "tpk%u_%s", seq++, p->name);
	p->kpool = tp_pool_create(pname, p->kernel_mbufs, 0);
	if (p->kpool == NULL) {
		snprintf(err, errlen, "mempool of %u mbufs for the TAP: %s", p->kernel_mbufs,
			 rte_strerror(rte_errno));
		return -rte_errno;
	}
	/* lcore i transmits on queue i; with fewer queues than lcores, they share them
	 * round robin, each shared queue under a lock */
	if (p->nb_txq < tp.n_workers) {
		p->txq_locks = rte_zmalloc("tp_txq_locks", sizeof(rte_spinlock_t) * p->nb_txq, 0);
		if (p->txq_locks == NULL) {
			snprintf(err, errlen, "TX queue locks: out of memory");
			return -ENOMEM;
		}
		for (uint16_t q = 0; q < p->nb_txq; q++)
			rte_spinlock_init(&p->txq_locks[q]);
		TP_LOG(INFO, "port %s: %u TX queues for %u lcores: shared under locks", p->name,
		       p->nb_txq, tp.n_workers);
	}
	for (unsigned int i = 0; i < tp.n_workers; i++) {
		tp.workers[i]->txq[p->id] = (uint16_t)(i % p->nb_txq);
		tp.workers[i]->txq_lock[p->id] = p->txq_locks ? &p->txq_locks[i % p->nb_txq] : NULL;
	}
	return tp_ethdev_start(p->id, p->nb_rxq, p->nb_txq, p->nb_rxd, p->nb_txd, p->pool, err,
			       errlen);
}

/* --- the kernel side of an interface a port only copies from ----------------------- */

/* The sysctls quiet_kernel_side() sets, and what it sets them to. */
static const struct {
	const char *fmt, *val;
} quiet_sysctls[] = {
    /* strict reverse-path check: nothing is routed via it, so all IPv4 is dropped;
     * except what has no route (the check comes after the lookup), which the kernel
     * would answer with an ICMP error of its own unless the device does not forward
     * (ip_error) */
    {"/proc/sys/net/ipv4/conf/%s/rp_filter", "1"},
    {"/proc/sys/net/ipv4/conf/%s/forwarding", "0"},
    {"/proc/sys/net/ipv4/conf/%s/arp_ignore", "8"}, /* never answer ARP */
    {"/proc/sys/net/ipv6/conf/%s/disable_ipv6", "1"},
};
#define QUIET_N RTE_DIM(quiet_sysctls)
#define QUIET_IFACES 4 /* receive interfaces of one port (net_pcap: one per queue) */

/* An interface made inert, the values it had before, and how many ports hold it. */
struct quieted {
	char ifname[IFNAMSIZ];
	unsigned int refs;
	bool saved[QUIET_N];
	char old[QUIET_N][16];
};
static struct quieted quieted[TP_MAX_PORTS * QUIET_IFACES]; /* indices + 1 fit a uint8_t */
/* per port id: indices + 1 into quieted[] of the interfaces it holds */
static uint8_t port_quieted[TP_MAX_PORTS][QUIET_IFACES];
/* the same for the port being added, until it has an id */
static uint8_t new_quieted[QUIET_IFACES];

/* Read (old, when not NULL) and write one sysctl of ifname. 0 or a negative errno. */
static int sysctl_if(const char *fmt, const char *ifname, const char *val, char *old, size_t oldlen)
{
	char path[256];
	int fd, ret = 0;

	snprintf(path, sizeof(path), fmt, ifname);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		TP_LOG(WARNING, "cannot set %s: %s", path, strerror(errno));
		return -errno;
	}
	if (old) {
		ssize_t n = read(fd, old, oldlen - 1);
		old[n > 0 ? n : 0] = '\0';
		old[strcspn(old, "\n")] = '\0';
		if (n <= 0)
			ret = -EIO;
	}
	if (pwrite(fd, val, strlen(val), 0) < 0) {
		TP_LOG(WARNING, "cannot set %s: %s", path, strerror(errno));
		ret = -errno;
	}
	close(fd);
	return ret;
}

/* Does ifname carry the IPv4 default route of this namespace (/proc/net/route)? Such
 * an interface is the host's way out, its management NIC: made inert, the host would
 * stop answering ARP on it. */
static bool holds_default_route(const char *ifname)
{
	char line[256], dev[IFNAMSIZ + 1];
	unsigned int dst, mask;
	bool yes = false;
	FILE *f = fopen("/proc/net/route", "re");

	if (f == NULL)
		return false;
	while (!yes && fgets(line, sizeof(line), f))
		if (sscanf(line, "%16s %x %*x %*x %*d %*d %*d %x", dev, &dst, &mask) == 3)
			yes = dst == 0 && mask == 0 && strcmp(dev, ifname) == 0;
	fclose(f);
	return yes;
}

/* Undo quiet_kernel_side() for the interfaces a port held: each interface's values as they were,
 * once no other port holds it. */
static void quiet_release(uint8_t held[QUIET_IFACES])
{
	for (unsigned int i = 0; i < QUIET_IFACES; i++) {
		unsigned int k = held[i];
		held[i] = 0;
		if (k == 0 || --quieted[k - 1].refs)
			continue;
		struct quieted *q = &quieted[k - 1];
		for (unsigned int j = 0; j < QUIET_N; j++)
			if (q->saved[j] && if_nametoindex(q->ifname))
				sysctl_if(quiet_sysctls[j].fmt, q->ifname, q->old[j], NULL, 0);
		TP_LOG(INFO, "%s: kernel settings restored (no port copies from it now)",
		       q->ifname);
		memset(q, 0, sizeof(*q));
	}
}

/* An af_packet port, or a net_pcap port on a live interface (iface=, rx_iface=,
 * rx_iface_in=), only copies frames: the kernel still receives them on the interface,
 * would answer ARP and ICMP for the TAPs' addresses and forward them a second time.
 * Make the kernel side of each such receive interface inert, remembering its values
 * for quiet_release (port del); tx_iface= is only written to and left alone. The
 * devargs' keys are parsed whole (review N17: the first "iface=" substring also
 * matched tx_iface=). The interfaces' holds go to new_quieted until the port has an
 * id (quiet_assign). 0, or -EINVAL with err naming a bad interface (nothing set). */
static int quiet_kernel_side(const char *devargs, char *err, size_t errlen)
{
	char names[QUIET_IFACES][IFNAMSIZ];
	unsigned int n = 0;

	if (strncmp(devargs, "net_af_packet", 13) != 0 && strncmp(devargs, "net_pcap", 8) != 0)
		return 0;
	for (const char *kv = strchr(devargs, ','); kv; kv = strchr(kv, ',')) {
		kv++;
		size_t kl = strcspn(kv, "=,"), vl;
		if (kv[kl] != '=')
			continue;
		if (!((kl == 5 && strncmp(kv, "iface", 5) == 0) ||
		      (kl == 8 && strncmp(kv, "rx_iface", 8) == 0) ||
		      (kl == 11 && strncmp(kv, "rx_iface_in", 11) == 0)))
			continue;
		const char *v = kv + kl + 1;
		vl = strcspn(v, ",");
		if (n == QUIET_IFACES) {
			snprintf(err, errlen, "more than %d receive interfaces in '%s'",
				 QUIET_IFACES, devargs);
			return -EINVAL;
		}
		if (vl == 0 || vl >= IFNAMSIZ) {
			snprintf(err, errlen, "bad interface name '%.*s' in %.*s=", (int)vl, v,
				 (int)kl, kv);
			return -EINVAL;
		}
		memcpy(names[n], v, vl);
		names[n][vl] = '\0';
		const char *nm = names[n];
		/* all/default would write every interface's (or new ones') settings */
		if (strcmp(nm, "all") == 0 || strcmp(nm, "default") == 0 || strcmp(nm, "lo") == 0 ||
		    strchr(nm, '/') || strcmp(nm, ".") == 0 || strcmp(nm, "..") == 0) {
			snprintf(err, errlen, "%.*s=%s: not an interface a port can copy from",
				 (int)kl, kv, nm);
			return -EINVAL;
		}
		if (if_nametoindex(nm) == 0) {
			snprintf(err, errlen, "%.*s=%s: no such interface in this namespace",
				 (int)kl, kv, nm);
			return -EINVAL;
		}
		if (holds_default_route(nm)) {
			snprintf(err, errlen,
				 "%.*s=%s: it holds the default route (the management NIC?): "
				 "refused, a copying port makes the kernel side of it inert",
				 (int)kl, kv, nm);
			return -EINVAL;
		}
		n++;
	}
	for (unsigned int i = 0; i < n; i++) {
		unsigned int k, free_k = RTE_DIM(quieted);
		for (k = 0; k < RTE_DIM(quieted); k++) {
			if (quieted[k].refs && strcmp(quieted[k].ifname, names[i]) == 0)
				break;
			if (!quieted[k].refs && free_k == RTE_DIM(quieted))
				free_k = k;
		}
		if (k == RTE_DIM(quieted)) {
			if (free_k == RTE_DIM(quieted)) {
				/* every port with QUIET_IFACES: cannot happen */
				snprintf(err, errlen, "no room to remember %s's settings",
					 names[i]);
				quiet_release(new_quieted);
				return -ENOSPC;
			}
			k = free_k;
			struct quieted *q = &quieted[k];
			memcpy(q->ifname, names[i], sizeof(q->ifname));
			for (unsigned int j = 0; j < QUIET_N; j++)
				q->saved[j] =
				    sysctl_if(quiet_sysctls[j].fmt, q->ifname, quiet_sysctls[j].val,
					      q->old[j], sizeof(q->old[j])) == 0;
			TP_LOG(INFO,
			       "%s: kernel IPv4 input and forwarding, ARP replies and IPv6 off (a "
			       "port that copies; restored at port del)",
			       q->ifname);
		}
		quieted[k].refs++;
		new_quieted[i] = (uint8_t)(k + 1);
	}
	return 0;
}

/* The holds of the port being added become port id's. */
static void quiet_assign(uint16_t id)
{
	memcpy(port_quieted[id], new_quieted, sizeof(new_quieted));
	memset(new_quieted, 0, sizeof(new_quieted));
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
	if (o->nb_rxq > TP_RXQ_MAX) {
		snprintf(err, errlen, "rxq %u: at most %d", o->nb_rxq, TP_RXQ_MAX);
		return -EINVAL;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	p->tap_fd = -1;
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(p->devargs, sizeof(p->devargs), "%s", devargs);
	snprintf(p->devname, sizeof(p->devname), "%.*s", (int)strcspn(devargs, ","), devargs);
	p->nb_rxq = o->nb_rxq ? o->nb_rxq : 1;
	/* one per lcore if the device has them, unless fewer are asked for (a memif peer
	 * with one queue refuses a second ring) */
	p->nb_txq = o->nb_txq && o->nb_txq < tp.n_workers ? o->nb_txq : (uint16_t)tp.n_workers;
	p->nb_rxd = o->nb_rxd ? o->nb_rxd : DEFAULT_RXD;
	p->nb_txd = o->nb_txd ? o->nb_txd : DEFAULT_TXD;
	p->mtu = o->mtu;
	p->kernel_mbufs = o->kernel_mbufs ? o->kernel_mbufs : (uint16_t)TP_KPOOL_SHARE(p->nb_txd);
	p->mode = tp_port_mode_default();

	ret = quiet_kernel_side(devargs, err, errlen);
	if (ret < 0)
		goto free_port;
	unsigned int defrag_cleared = tp_afpacket_defrag_cleared;
	unsigned int stag_filters = tp_afpacket_stag_filters;
	ret = tp_ethdev_probe(devargs, &id, err, errlen);
	if (ret < 0)
		goto free_port;
	if (tp_afpacket_defrag_cleared != defrag_cleared)
		TP_LOG(INFO, "port %s: %u af_packet sockets without kernel reassembly", name,
		       tp_afpacket_defrag_cleared - defrag_cleared);
	/* af_packet sockets: each should refuse 802.1ad frames (core/afpacket.c) */
	if (tp_afpacket_stag_filters - stag_filters < tp_afpacket_defrag_cleared - defrag_cleared)
		TP_LOG(WARNING,
		       "port %s: no S-tag filter on %u af_packet sockets (no CAP_BPF?): 802.1ad "
		       "frames come in as 802.1Q ones",
		       name,
		       (tp_afpacket_defrag_cleared - defrag_cleared) -
			   (tp_afpacket_stag_filters - stag_filters));
	else if (tp_afpacket_stag_filters != stag_filters)
		TP_LOG(INFO,
		       "port %s: its af_packet sockets refuse 802.1ad (S-tagged) frames, whose "
		       "TPID the PMD loses (afpacket_stag_dropped in show ports)",
		       name);
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
	ifc->mode_ctx = NULL;
	__atomic_store_n(&ifc->input, p->mode->input, __ATOMIC_RELEASE);
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
	tp_nf_port_add(id);
	ret = tp_lcore_port_rxqs(id, p->nb_rxq, NULL);
	if (ret < 0) {
		snprintf(err, errlen, "publishing queues: %s", strerror(-ret));
		goto detach;
	}
	TP_LOG(INFO, "port %s: id %u, %s, %u rxq, %u txq, tap %s", name, id, devargs, p->nb_rxq,
	       p->nb_txq, p->tap_name);
	quiet_assign(id);
	return 0;
detach:
	tp_nf_port_del(id);
	tp_exc_detach(p);
unpublish:
	ports[id] = NULL;
	ifc->up = 0;
	close(p->tap_fd);
stop_dev:
	rte_eth_dev_stop(id);
close_dev:
	tp_ethdev_close(id);
	rte_mempool_free(p->pool); /* no lcore ever saw them (NULL: nothing) */
	rte_mempool_free(p->kpool);
	rte_free(p->txq_locks);
free_port:
	quiet_release(new_quieted);
	free(p);
	return ret;
}

struct port_done {
	void (*fn)(int ret, void *arg);
	void *arg;
};

static struct port_done *port_done_new(void (*fn)(int ret, void *arg), void *arg)
{
	struct port_done *d = malloc(sizeof(*d));

	if (d != NULL)
		*d = (struct port_done){fn, arg};
	return d;
}

static void port_done_call(struct port_done *d, int ret)
{
	if (d->fn)
		d->fn(ret, d->arg);
	free(d);
}

/* A grace period after the port was taken from the lcores: nothing receives from
 * it, transmits to it or runs its mode's input any more. */
static void port_del_finish(void *a, void *b)
{
	struct tp_port *p = a;
	struct tp_iface *ifc = &tp_iface_table[p->id];

	struct rte_eth_dev_info info;

	tp_exc_detach(p);
	tp_afpacket_stag_release(p->id); /* an L2 bridge member's XDP wrap, if any */
	if (rte_eth_dev_info_get(p->id, &info) == 0)
		tp_afpacket_stag_forget((int)info.if_index); /* its S-tag count, if any */
	tp_ethdev_close(p->id);
	quiet_release(port_quieted[p->id]); /* the kernel side as it was */
	close(p->tap_fd);
	if (p->mode->detach)
		p->mode->detach(p->id, ifc->mode_ctx);
	memset(ifc, 0, sizeof(*ifc));
	pool_retire(p->pool);
	pool_retire(p->kpool); /* its frames may wait in an inject ring or a TX ring */
	for (unsigned int i = 0; i < tp.n_workers; i++)
		tp.workers[i]->txq_lock[p->id] = NULL;
	rte_free(p->txq_locks);
	ports[p->id] = NULL;
	TP_LOG(INFO, "port %s removed", p->name);
	free(p);
	port_done_call(b, 0);
}

int tp_port_del(const char *name, void (*done)(int ret, void *arg), void *arg)
{
	struct tp_port *p = tp_port_by_name(name);
	struct port_done *d;
	int ret;

	if (p == NULL)
		return -ENOENT;
	if (p->busy)
		return -EBUSY;
	d = port_done_new(done, arg);
	if (d == NULL)
		return -ENOMEM;
	ret = tp_lcore_port_rxqs(p->id, 0, NULL); /* no lcore polls it after a grace period */
	if (ret < 0) {
		free(d);
		return ret;
	}
	p->busy = true;
	__atomic_store_n(&tp_iface_table[p->id].up, 0, __ATOMIC_RELEASE);
	tp_nf_port_del(p->id); /* the modules forget what refers to it (routes...) */
	if (tp_rcu_defer(port_del_finish, p, d) < 0) {
		TP_LOG(WARNING, "port %s: defer queue full, waiting for the grace period here",
		       name);
		rte_rcu_qsbr_synchronize(tp.qs, RTE_QSBR_THRID_INVALID);
		port_del_finish(p, d);
	}
	return 0;
}

void tp_port_del_all(void)
{
	for (unsigned int i = 0; i < TP_MAX_PORTS; i++)
		if (ports[i] && !ports[i]->busy)
			tp_port_del(ports[i]->name, NULL, NULL);
	tp_rcu_reclaim(); /* the lcores are stopped: every grace period is over */
	for (unsigned int i = 0; i < n_retired; i++)
		rte_mempool_free(retired_pools[i]);
	n_retired = 0;
	tp_timer_cancel(&retired_timer);
}

struct mode_change {
	struct tp_port *p;
	struct tp_port_mode *m;
	void *ctx;
	struct port_done *d;
};

/* A grace period after the port's input became 'drop': the old mode is unused. */
static void mode_switch(void *a, void *b)
{
	struct mode_change *mc = a;
	struct tp_port *p = mc->p;
	struct tp_iface *ifc = &tp_iface_table[p->id];

	if (p->mode->detach)
		p->mode->detach(p->id, ifc->mode_ctx);
	ifc->mode_ctx = mc->ctx;
	__atomic_store_n(&ifc->input, mc->m->input, __ATOMIC_RELEASE);
	p->mode = mc->m;
	p->busy = false;
	TP_LOG(INFO, "port %s: mode %s %s", p->name, p->mode->name, p->mode_args);
	tp_nf_port_mode(p->id, p->mode->name);
	port_done_call(mc->d, 0);
	free(mc);
}

int tp_port_set_mode(struct tp_port *p, struct tp_port_mode *m, int argc, char **argv,
		     void (*done)(int ret, void *arg), void *arg, char *err, size_t errlen)
{
	struct tp_port_mode *none = tp_port_mode_find("none");
	struct mode_change *mc;
	int ret;

	if (p->busy) {
		snprintf(err, errlen, "port %s is being changed or removed", p->name);
		return -EBUSY;
	}
	if (m->attach == NULL && argc > 0) {
		snprintf(err, errlen, "mode %s takes no words after its name", m->name);
		return -EINVAL;
	}
	mc = calloc(1, sizeof(*mc));
	if (mc == NULL || (mc->d = port_done_new(done, arg)) == NULL) {
		free(mc);
		return -ENOMEM;
	}
	mc->p = p;
	mc->m = m;
	if (m->attach && (ret = m->attach(p->id, argc, argv, &mc->ctx, err, errlen)) < 0) {
		free(mc->d);
		free(mc);
		return ret;
	}
	p->mode_args[0] = '\0';
	for (int i = 0; i < argc; i++)
		snprintf(p->mode_args + strlen(p->mode_args),
			 sizeof(p->mode_args) - strlen(p->mode_args), "%s%s", i ? " " : "",
			 argv[i]);
	p->busy = true;
	/* no lcore may run the old input with the new context: nothing in between */
	__atomic_store_n(&tp_iface_table[p->id].input, none->input, __ATOMIC_RELEASE);
	if (tp_rcu_defer(mode_switch, mc, NULL) < 0) {
		rte_rcu_qsbr_synchronize(tp.qs, RTE_QSBR_THRID_INVALID);
		mode_switch(mc, NULL);
	}
	return 0;
}
