/* SPDX-License-Identifier: BSD-3-Clause */
/* Commands of the core on ports: add, delete, set (mode, queue placement), show. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>

#include "../core/afpacket.h"
#include "../core/lcore.h"
#include "../core/tp.h"
#include "../proto/ip4.h"
#include "../tables/iface.h"
#include "cmd.h"
#include "exception.h"
#include "port.h"

static int port_add(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_port_opts o = {0};
	uint64_t v;
	int ret;

	if (argc < 2 || argc % 2)
		return tp_cmd_err(ctx, EINVAL,
				  "port add: usage: port add NAME DEVARGS [rxq N] [txq N] [rxd N] "
				  "[txd N] [mtu N] [kernel-mbufs N]");
	for (int i = 2; i < argc; i += 2) {
		if (strcmp(argv[i], "kernel-mbufs") == 0) {
			/* the mbufs its TAP's reads may hold (review F12) */
			if (tp_parse_u64(argv[i + 1], TP_KPOOL_SHARE_MIN, 65535, &v) < 0)
				return tp_cmd_err(
				    ctx, EINVAL,
				    "port add: kernel-mbufs: bad number '%s' (%d-65535)",
				    argv[i + 1], TP_KPOOL_SHARE_MIN);
			o.kernel_mbufs = (uint16_t)v;
			continue;
		}
		uint16_t *dst = strcmp(argv[i], "rxq") == 0   ? &o.nb_rxq
				: strcmp(argv[i], "txq") == 0 ? &o.nb_txq
				: strcmp(argv[i], "rxd") == 0 ? &o.nb_rxd
				: strcmp(argv[i], "txd") == 0 ? &o.nb_txd
				: strcmp(argv[i], "mtu") == 0 ? &o.mtu
							      : NULL;
		if (dst == NULL)
			return tp_cmd_err(ctx, EINVAL,
					  "port add: unknown option '%s' (rxq, txq, rxd, txd, mtu, "
					  "kernel-mbufs)",
					  argv[i]);
		if (tp_parse_u64(argv[i + 1], 1, 16384, &v) < 0)
			return tp_cmd_err(ctx, EINVAL, "port add: %s: bad number '%s' (1-16384)",
					  argv[i], argv[i + 1]);
		*dst = (uint16_t)v;
	}
	ret = tp_port_add(argv[0], argv[1], &o, ctx->err, sizeof(ctx->err));
	if (ret < 0) {
		char tmp[sizeof(ctx->err)];
		snprintf(tmp, sizeof(tmp), "%s", ctx->err);
		return tp_cmd_err(ctx, -ret, "port add %s: %s", argv[0], tmp);
	}
	return 0;
}

/* A pending port command is over. */
static void port_cmd_done(int ret, void *arg)
{
	tp_cmd_done(arg, ret);
}

static int port_del(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	int ret;

	if (argc != 1)
		return tp_cmd_err(ctx, EINVAL, "port del: usage: port del NAME");
	ret = tp_port_del(argv[0], port_cmd_done, ctx);
	if (ret == -ENOENT)
		return tp_cmd_err(ctx, ENODEV, "port del: no port named '%s'", argv[0]);
	if (ret == -EBUSY)
		return tp_cmd_err(ctx, EBUSY, "port del: port '%s' is being changed or removed",
				  argv[0]);
	if (ret < 0)
		return tp_cmd_err(ctx, -ret, "port del %s: %s (the port is unchanged)", argv[0],
				  strerror(-ret));
	return TP_CMD_PENDING; /* answered once the device is closed */
}

static int port_set(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_port *p;
	int ret;

	if (argc < 3)
		return tp_cmd_err(ctx, EINVAL,
				  "port set: usage: port set NAME mode MODE [WORDS] | "
				  "port set NAME rxq Q lcore LCORE|auto");
	p = tp_port_by_name(argv[0]);
	if (p == NULL)
		return tp_cmd_err(ctx, ENODEV, "port set: no port named '%s'", argv[0]);
	if (strcmp(argv[1], "mode") == 0) {
		struct tp_port_mode *m = tp_port_mode_find(argv[2]);
		if (m == NULL) {
			char names[256] = "";
			for (m = tp_port_mode_next(NULL); m; m = tp_port_mode_next(m))
				snprintf(names + strlen(names), sizeof(names) - strlen(names),
					 "%s%s", names[0] ? ", " : "", m->name);
			return tp_cmd_err(ctx, EINVAL, "port set %s mode: unknown mode '%s' (%s)",
					  argv[0], argv[2], names);
		}
		ret = tp_port_set_mode(p, m, argc - 3, argv + 3, port_cmd_done, ctx, ctx->err,
				       sizeof(ctx->err));
		if (ret < 0) {
			char tmp[sizeof(ctx->err)];
			snprintf(tmp, sizeof(tmp), "%s", ctx->err[0] ? ctx->err : strerror(-ret));
			return tp_cmd_err(ctx, -ret, "port set %s mode %s: %s", argv[0], m->name,
					  tmp);
		}
		return TP_CMD_PENDING;
	}
	if (strcmp(argv[1], "rxq") == 0) {
		uint64_t q, lc;
		int id = TP_RXQ_AUTO;
		if (argc != 5 || strcmp(argv[3], "lcore"))
			return tp_cmd_err(ctx, EINVAL,
					  "port set: usage: port set NAME rxq Q lcore LCORE|auto");
		if (tp_parse_u64(argv[2], 0, p->nb_rxq - 1u, &q) < 0)
			return tp_cmd_err(ctx, EINVAL, "port set %s rxq: bad queue '%s' (0-%u)",
					  argv[0], argv[2], p->nb_rxq - 1u);
		if (strcmp(argv[4], "auto") != 0) {
			if (tp_parse_u64(argv[4], 0, RTE_MAX_LCORE - 1, &lc) < 0 ||
			    (id = tp_lcore_by_eal((unsigned int)lc)) < 0)
				return tp_cmd_err(
				    ctx, EINVAL,
				    "port set %s rxq %s: '%s' is not a data-plane lcore "
				    "(see show lcores)",
				    argv[0], argv[2], argv[4]);
		}
		ret = tp_lcore_pin_rxq(p->id, (uint16_t)q, id);
		if (ret == -EBUSY)
			return tp_cmd_err(ctx, EBUSY,
					  "port set %s rxq %s: lcore %s does not receive (its role "
					  "is not worker or input)",
					  argv[0], argv[2], argv[4]);
		if (ret < 0)
			return tp_cmd_err(ctx, -ret, "port set %s rxq %s: %s", argv[0], argv[2],
					  strerror(-ret));
		return 0;
	}
	return tp_cmd_err(ctx, EINVAL, "port set: unknown setting '%s' (mode, rxq)", argv[1]);
}

static int show_ports(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_node *l = tp_out_list(ctx->out, "ports");
	unsigned int it = 0;
	struct tp_port *p;
	char m[18], a[16];

	while ((p = tp_port_next(&it)) != NULL) {
		struct tp_node *o = tp_out_obj(l, NULL), *al, *ql, *s;
		struct rte_eth_stats st = {0};

		tp_out_str(o, "name", p->name);
		tp_out_u64(o, "id", p->id);
		tp_out_str(o, "devargs", p->devargs);
		tp_out_str(o, "mac", tp_mac_fmt(tp_iface_table[p->id].mac.addr_bytes, m));
		tp_out_strf(o, "mode", "%s%s%s", p->mode->name, p->mode_args[0] ? " " : "",
			    p->mode_args);
		tp_out_str(o, "tap", p->tap_name);
		tp_out_u64(o, "tap_ifindex", (uint64_t)p->tap_ifindex);
		tp_out_u64(o, "mtu", p->mtu);
		/* af_packet: 802.1ad frames kept (an L2 bridge member's) or refused, and
		 * those refused for a stripped tag not 802.1Q's */
		struct rte_eth_dev_info info;
		const char *stag_state = tp_afpacket_stag_state(p->id);
		uint64_t stag;
		if (stag_state != NULL)
			tp_out_str(o, "afpacket_stag", stag_state);
		if (rte_eth_dev_info_get(p->id, &info) == 0 &&
		    tp_afpacket_stag_drops((int)info.if_index, &stag) == 0)
			tp_out_u64(o, "afpacket_stag_dropped", stag);
		tp_out_bool(o, "up", tp_iface_table[p->id].up);
		al = tp_out_list(o, "addrs");
		for (unsigned int i = 0; i < p->n_addrs; i++)
			tp_out_strf(al, NULL, "%s/%u", tp_ip4_fmt(p->addrs[i].ip, a),
				    p->addrs[i].depth);
		tp_out_u64(o, "rx_queues", p->nb_rxq);
		tp_out_u64(o, "tx_queues", p->nb_txq);
		tp_out_bool(o, "tx_queues_shared", p->txq_locks != NULL);
		/* its TAP's share of mbufs, what its frames from the kernel hold now, and
		 * what was read over it (dropped) */
		s = tp_out_obj(o, "kernel_mbufs");
		tp_out_u64(s, "share", p->kernel_mbufs);
		tp_out_u64(s, "in_use", rte_mempool_in_use_count(p->kpool));
		tp_out_u64(s, "from_kernel_pool_share", tp_exc_pool_share_drops(p->id));
		ql = tp_out_list(o, "rxq_lcores");
		for (uint16_t q = 0; q < p->nb_rxq; q++) {
			int w = tp_lcore_rxq_owner(p->id, q);
			if (w >= 0)
				tp_out_u64(ql, NULL, tp.workers[w]->lcore);
			else
				tp_out_i64(ql, NULL, -1);
		}
		rte_eth_stats_get(p->id, &st);
		s = tp_out_obj(o, "stats");
		tp_out_u64(s, "ipackets", st.ipackets);
		tp_out_u64(s, "opackets", st.opackets);
		tp_out_u64(s, "ibytes", st.ibytes);
		tp_out_u64(s, "obytes", st.obytes);
		tp_out_u64(s, "imissed", st.imissed);
		tp_out_u64(s, "ierrors", st.ierrors);
		tp_out_u64(s, "oerrors", st.oerrors);
		tp_out_u64(s, "rx_nombuf", st.rx_nombuf);
	}
	return 0;
}

static struct tp_cmd c_port_add = {"port add",
				   "NAME DEVARGS [rxq N] [txq N] [rxd N] [txd N] [mtu N] "
				   "[kernel-mbufs N]",
				   "probe a device and start forwarding on it", port_add, NULL};
static struct tp_cmd c_port_del = {"port del", "NAME", "stop and remove a port", port_del, NULL};
static struct tp_cmd c_port_set = {
    "port set", "NAME mode MODE [WORDS] | NAME rxq Q lcore LCORE|auto",
    "a port's mode (show modules), or where a receive queue is polled", port_set, NULL};
static struct tp_cmd c_show_ports = {"show ports", NULL, "ports and their device counters",
				     show_ports, NULL};
TP_CMD_REGISTER(c_port_add)
TP_CMD_REGISTER(c_port_del)
TP_CMD_REGISTER(c_port_set)
TP_CMD_REGISTER(c_show_ports)
