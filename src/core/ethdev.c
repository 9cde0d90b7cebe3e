/* SPDX-License-Identifier: BSD-3-Clause */
/* Ethernet device probe, configuration and removal. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_ethdev.h>

#include "ethdev.h"

int tp_ethdev_probe(const char *devargs, uint16_t *id, char *err, size_t errlen)
{
	char devname[64];
	int ret;

	snprintf(devname, sizeof(devname), "%.*s", (int)strcspn(devargs, ","), devargs);
	if (rte_eth_dev_get_port_by_name(devname, id) == 0) {
		snprintf(err, errlen, "device '%s' is already in use", devname);
		return -EEXIST;
	}
	ret = rte_dev_probe(devargs);
	if (ret < 0) {
		snprintf(err, errlen, "cannot probe '%s': %s", devargs, strerror(-ret));
		return ret;
	}
	if (rte_eth_dev_get_port_by_name(devname, id) != 0) {
		snprintf(err, errlen, "'%s' probed but no ethdev named '%s' appeared", devargs,
			 devname);
		return -ENODEV;
	}
	return 0;
}

int tp_ethdev_configure(uint16_t id, uint16_t nb_rxq, uint16_t *nb_txq, uint16_t *nb_rxd,
			uint16_t *nb_txd, uint16_t *mtu, char *err, size_t errlen)
{
	struct rte_eth_conf conf = {0};
	struct rte_eth_dev_info info;
	int ret;

	ret = rte_eth_dev_info_get(id, &info);
	if (ret < 0) {
		snprintf(err, errlen, "cannot get device info: %s", strerror(-ret));
		return ret;
	}
	if (nb_rxq > info.max_rx_queues) {
		snprintf(err, errlen, "device has %u rx queues, %u asked", info.max_rx_queues,
			 nb_rxq);
		return -EINVAL;
	}
	if (info.max_tx_queues == 0) {
		snprintf(err, errlen, "device has no tx queue");
		return -EINVAL;
	}
	if (*nb_txq > info.max_tx_queues)
		*nb_txq = info.max_tx_queues; /* the caller shares them */
	if (nb_rxq > 1) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf = RTE_ETH_RSS_IP & info.flow_type_rss_offloads;
	}
	/* header checksums verified by the NIC where it can (the fast path trusts GOOD) */
	conf.rxmode.offloads = info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM;
	ret = rte_eth_dev_configure(id, nb_rxq, *nb_txq, &conf);
	if (ret < 0) {
		snprintf(err, errlen, "rte_eth_dev_configure: %s", strerror(-ret));
		return ret;
	}
	ret = rte_eth_dev_adjust_nb_rx_tx_desc(id, nb_rxd, nb_txd);
	if (ret < 0) {
		snprintf(err, errlen, "descriptor counts: %s", strerror(-ret));
		return ret;
	}
	if (*mtu && (ret = rte_eth_dev_set_mtu(id, *mtu)) < 0) {
		if (ret != -ENOTSUP) {
			snprintf(err, errlen, "mtu %u: %s", *mtu, strerror(-ret));
			return ret;
		}
		/* a PMD with no MTU of its own (net_pcap, net_ring): what was asked */
		return 0;
	}
	if (rte_eth_dev_get_mtu(id, mtu) < 0 || *mtu == 0)
		*mtu = 1500;
	return 0;
}

int tp_ethdev_setup(uint16_t id, uint16_t nb_rxq, uint16_t nb_txq, uint16_t nb_rxd, uint16_t nb_txd,
		    struct rte_mempool *pool, char *err, size_t errlen)
{
	int ret;

	for (uint16_t q = 0; q < nb_rxq; q++) {
		ret = rte_eth_rx_queue_setup(id, q, nb_rxd, SOCKET_ID_ANY, NULL, pool);
		if (ret < 0) {
			snprintf(err, errlen, "rx queue %u: %s", q, strerror(-ret));
			return ret;
		}
	}
	for (uint16_t q = 0; q < nb_txq; q++) {
		ret = rte_eth_tx_queue_setup(id, q, nb_txd, SOCKET_ID_ANY, NULL);
		if (ret < 0) {
			snprintf(err, errlen, "tx queue %u: %s", q, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

int tp_ethdev_start(uint16_t id, uint16_t nb_rxq, uint16_t nb_txq, uint16_t nb_rxd, uint16_t nb_txd,
		    struct rte_mempool *pool, char *err, size_t errlen)
{
	int ret;

	ret = tp_ethdev_setup(id, nb_rxq, nb_txq, nb_rxd, nb_txd, pool, err, errlen);
	if (ret < 0)
		return ret;
	rte_eth_allmulticast_enable(id); /* OSPF and friends: not all PMDs can */
	ret = rte_eth_dev_start(id);
	if (ret < 0) {
		snprintf(err, errlen, "start: %s", strerror(-ret));
		return ret;
	}
	return 0;
}

void tp_ethdev_close(uint16_t id)
{
	struct rte_eth_dev_info info;
	struct rte_device *dev = NULL;

	rte_eth_dev_stop(id);
	if (rte_eth_dev_info_get(id, &info) == 0)
		dev = info.device;
	rte_eth_dev_close(id);
	if (dev != NULL)
		rte_dev_remove(dev);
}
