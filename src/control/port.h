/* SPDX-License-Identifier: BSD-3-Clause */
/* Ports: DPDK devices added from devargs at run time, each with a TAP mirror.
 *
 * The control plane owns struct tp_port; workers see a port only through the
 * interface table (tables/iface.h) and their receive-queue lists, which are
 * republished (RCU) whenever a port comes or goes. */
#ifndef TP_CONTROL_PORT_H
#define TP_CONTROL_PORT_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mempool.h>
#include <rte_spinlock.h>

#include "../core/input.h"
#include "../core/limits.h"

#define TP_PORT_NAME_MAX 12 /* "tp-" + name must fit IFNAMSIZ */
#define TP_PORT_MAX_ADDRS 16

struct tp_port_addr {
	uint32_t ip; /* host order */
	uint8_t depth;
};

struct tp_port {
	char name[TP_PORT_NAME_MAX];
	char devargs[256];
	char devname[64];
	uint16_t id;
	uint16_t nb_rxq, nb_txq, nb_rxd, nb_txd;
	uint16_t mtu;
	struct rte_mempool *pool;
	/* its TAP's reads (kernel to wire): the mbufs they may hold, taken and not yet
	 * transmitted or freed, is this pool's size (its share; no cache: the control
	 * thread always finds every free one) */
	struct rte_mempool *kpool;
	uint16_t kernel_mbufs;	   /* kpool's size */
	rte_spinlock_t *txq_locks; /* fewer TX queues than lcores: one lock per queue */
	int tap_fd;
	char tap_name[IFNAMSIZ];
	int tap_ifindex;
	unsigned int n_addrs;
	struct tp_port_addr addrs[TP_PORT_MAX_ADDRS];
	struct tp_port_mode *mode;
	char mode_args[128]; /* the words it was set with, for show */
	bool busy;	     /* a deletion or mode change waits for a grace period */
};

struct tp_port_opts {
	uint16_t nb_rxq, nb_rxd, nb_txd, mtu;
	uint16_t nb_txq; /* 0: one per data-plane lcore (fewer are shared under a lock) */
	/* mbufs its TAP's reads may hold (kpool's size); 0: TP_KPOOL_SHARE(nb_txd) */
	uint16_t kernel_mbufs;
};

/* A port's share of mbufs for frames from its TAP, by default: enough for its TX ring
 * (a NIC keeps sent mbufs there until it reuses the descriptors) and a full inject
 * ring, rounded to 2^k - 1 (2,047 with 1,024 TX descriptors). */
#define TP_KPOOL_SHARE(txd) (rte_align32pow2((uint32_t)(txd) + TP_EXC_RING_SIZE) - 1)
#define TP_KPOOL_SHARE_MIN 16 /* one 9 KB frame in 2 KB mbufs, and room to spare */

/* Probe devargs, configure and start it, create its TAP, hand its queues to the
 * workers. 0 or negative errno with err (size errlen) saying why. */
int tp_port_add(const char *name, const char *devargs, const struct tp_port_opts *o, char *err,
		size_t errlen);
/* Take the port away from the lcores and tell the modules now (struct tp_nf's
 * port_del: routes and neighbours through it go); stop and close it once no lcore can be using it
 * (an RCU grace period later, without blocking), then call done(ret, arg) (may be NULL). 0
 * (started), -ENOENT, -EBUSY (already going), or -ENOMEM (the lcores' queue lists could not be
 * rebuilt: the port stays as it was). */
int tp_port_del(const char *name, void (*done)(int ret, void *arg), void *arg);
/* At exit, with the lcores stopped: delete every port. */
void tp_port_del_all(void);
/* Put the port in mode m (words argv for its attach): attach, then switch once no
 * lcore runs the old mode's input, then done(ret, arg). 0 (started) or negative
 * errno with err (nothing changed). */
int tp_port_set_mode(struct tp_port *p, struct tp_port_mode *m, int argc, char **argv,
		     void (*done)(int ret, void *arg), void *arg, char *err, size_t errlen);

struct tp_port *tp_port_by_name(const char *name);
struct tp_port *tp_port_by_id(uint16_t id);
struct tp_port *tp_port_by_ifindex(int ifindex);
/* Iterate: *iter starts at 0; NULL at the end. */
struct tp_port *tp_port_next(unsigned int *iter);

/* Mbufs in use across every pool (ports' and their TAPs' shares, removed ports' not yet
 * freed, and the modules' tracked ones). */
void tp_pools_usage(uint64_t *size, uint64_t *in_use);
/* Count a module's own pool of packets in tp_pools_usage (one whose mbufs all come
 * home when traffic stops, so that a leak shows): 0 or -ENOSPC. */
int tp_pool_track(struct rte_mempool *mp);
/* A mempool for packets of the data plane, with the private area every lcore
 * expects (core/mbuf.h): NULL with rte_errno. */
struct rte_mempool *tp_pool_create(const char *name, unsigned int n, unsigned int cache);

#endif
