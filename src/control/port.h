/* SPDX-License-Identifier: BSD-3-Clause */
/* Ports: DPDK devices added from devargs at run time, each with a TAP mirror.
 *
 * The control plane owns struct tp_port; workers see a port only through the
 * interface table (tables/iface.h) and their receive-queue lists, which are
 * republished (RCU) whenever a port comes or goes. */
#ifndef TP_CONTROL_PORT_H
#define TP_CONTROL_PORT_H

#include <net/if.h>
#include <stdint.h>

#include <rte_mempool.h>

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
	int tap_fd;
	char tap_name[IFNAMSIZ];
	int tap_ifindex;
	unsigned int n_addrs;
	struct tp_port_addr addrs[TP_PORT_MAX_ADDRS];
};

struct tp_port_opts {
	uint16_t nb_rxq, nb_rxd, nb_txd, mtu;
};

/* Probe devargs, configure and start it, create its TAP, hand its queues to the
 * workers. 0 or negative errno with err (size errlen) saying why. */
int tp_port_add(const char *name, const char *devargs, const struct tp_port_opts *o, char *err,
		size_t errlen);
/* Take the port away from the workers, flush its routes and neighbours, stop and close it. */
int tp_port_del(const char *name);
void tp_port_del_all(void);

struct tp_port *tp_port_by_name(const char *name);
struct tp_port *tp_port_by_id(uint16_t id);
struct tp_port *tp_port_by_ifindex(int ifindex);
/* Iterate: *iter starts at 0; NULL at the end. */
struct tp_port *tp_port_next(unsigned int *iter);

/* Mbufs for frames the control plane builds (from the TAPs). */
extern struct rte_mempool *tp_ctl_pool;
int tp_ctl_pool_init(void);
/* Mbufs in use across every pool (ports' and the control plane's). */
void tp_pools_usage(uint64_t *size, uint64_t *in_use);

#endif
