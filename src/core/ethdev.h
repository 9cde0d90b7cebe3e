/* SPDX-License-Identifier: BSD-3-Clause */
/* Ethernet devices from devargs: probe, configure, start, close. Shared by the
 * daemon's ports and the generator's. Control path only; each call returns 0 or a
 * negative errno and, on failure, writes why into err (errlen bytes). */
#ifndef TP_CORE_ETHDEV_H
#define TP_CORE_ETHDEV_H

#include <stddef.h>
#include <stdint.h>

#include <rte_mempool.h>

/* Probe devargs ("net_memif0,role=server", "0000:01:00.0,...") and return its port id. */
int tp_ethdev_probe(const char *devargs, uint16_t *id, char *err, size_t errlen);
/* Configure queues (RSS when nb_rxq > 1, IPv4 checksum offload where offered); lowers
 * *nb_txq to what the device has, adjusts the descriptor counts to the device's limits,
 * sets the MTU when non-zero, then reads it back. */
int tp_ethdev_configure(uint16_t id, uint16_t nb_rxq, uint16_t *nb_txq, uint16_t *nb_rxd,
			uint16_t *nb_txd, uint16_t *mtu, char *err, size_t errlen);
/* Set up the queues (rx from pool), the port not started. */
int tp_ethdev_setup(uint16_t id, uint16_t nb_rxq, uint16_t nb_txq, uint16_t nb_rxd, uint16_t nb_txd,
		    struct rte_mempool *pool, char *err, size_t errlen);
/* Set up the queues (rx from pool) and start the port. */
int tp_ethdev_start(uint16_t id, uint16_t nb_rxq, uint16_t nb_txq, uint16_t nb_rxd, uint16_t nb_txd,
		    struct rte_mempool *pool, char *err, size_t errlen);
/* Stop, close and remove the device. */
void tp_ethdev_close(uint16_t id);

#endif
