/* SPDX-License-Identifier: BSD-3-Clause */
/* Service chains: NFs attached by two ports, chains of them between two ports, the
 * "chain" port mode (a port cross-connected to the chain's next port) and the
 * watcher that steers around an NF whose link went down. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <rte_ethdev.h>

#include "../../../control/cmd.h"
#include "../../../control/port.h"
#include "../../../control/timer.h"
#include "../../../core/input.h"
#include "../../../core/log.h"
#include "control.h"

struct l2_nfdef l2_nfs[L2_NF_MAX];
struct l2_chain l2_chains[L2_CHAINS_MAX];
struct l2_chain *l2_chain_of_port[TP_MAX_PORTS];
static struct l2_xc *xc_by_port[TP_MAX_PORTS];
static struct tp_timer chain_timer;

struct l2_nfdef *l2_nf_by_name(const char *name)
{
	for (unsigned int i = 0; i < L2_NF_MAX; i++)
		if (l2_nfs[i].used && strcmp(l2_nfs[i].name, name) == 0)
			return &l2_nfs[i];
	return NULL;
}

struct l2_chain *l2_chain_by_name(const char *name)
{
	for (unsigned int i = 0; i < L2_CHAINS_MAX; i++)
		if (l2_chains[i].used && strcmp(l2_chains[i].name, name) == 0)
			return &l2_chains[i];
	return NULL;
}

/* Whether port's link is up: the PMD's link status and, for a port on a kernel
 * netdev (af_packet, af_xdp: dev_info's if_index), the netdev's carrier
 * (IFF_RUNNING, RFC 2863's operStatus up). DPDK 22.11's af_xdp PMD reports its
 * link up from start to stop (its link_update does nothing), and in the lab its
 * af_packet PMD did too: a veth whose peer went down was never seen down, so RSTP
 * (802.1D-2004 17.19.18 portEnabled) waited for the root's information to age.
 * Control path only: a socket and two ioctls. A netdev that cannot be read
 * leaves the PMD's word. */
bool l2_link_up(uint16_t port)
{
	struct rte_eth_dev_info info;
	struct rte_eth_link l;
	struct ifreq ifr;
	bool up = true;
	int sk;

	if (rte_eth_link_get_nowait(port, &l) != 0 || l.link_status != RTE_ETH_LINK_UP)
		return false;
	if (rte_eth_dev_info_get(port, &info) != 0 || info.if_index == 0)
		return true;
	sk = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sk < 0)
		return true;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_ifindex = (int)info.if_index;
	if (ioctl(sk, SIOCGIFNAME, &ifr) == 0 && ioctl(sk, SIOCGIFFLAGS, &ifr) == 0)
		up = (ifr.ifr_flags & IFF_RUNNING) != 0;
	close(sk);
	return up;
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
		uint16_t src = s == 0 ? c->from : l2_nfs[c->nf[s - 1]].out;
		uint16_t out = L2_NO_PORT;
		if (s > 0 && !l2_nfs[c->nf[s - 1]].up) {
			xc_set(src, L2_NO_PORT);
			continue;
		}
		unsigned int j = s + 1; /* next hop, 1-based NF index; n + 1: to */
		while (j <= n && !l2_nfs[c->nf[j - 1]].up && c->bypass)
			j++;
		if (j == n + 1)
			out = c->to;
		else if (l2_nfs[c->nf[j - 1]].up)
			out = l2_nfs[c->nf[j - 1]].in;
		xc_set(src, out);
	}
	for (unsigned int s = n + 1; s >= 1; s--) {
		uint16_t src = s == n + 1 ? c->to : l2_nfs[c->nf[s - 1]].in;
		uint16_t out = L2_NO_PORT;
		if (s <= n && !l2_nfs[c->nf[s - 1]].up) {
			xc_set(src, L2_NO_PORT);
			continue;
		}
		unsigned int j = s - 1; /* previous hop; 0: from */
		while (j >= 1 && !l2_nfs[c->nf[j - 1]].up && c->bypass)
			j--;
		if (j == 0)
			out = c->from;
		else if (l2_nfs[c->nf[j - 1]].up)
			out = l2_nfs[c->nf[j - 1]].out;
		xc_set(src, out);
	}
}

static void chain_watch(struct tp_timer *t)
{
	bool changed = false;

	for (unsigned int i = 0; i < L2_NF_MAX; i++) {
		if (!l2_nfs[i].used)
			continue;
		bool up = l2_link_up(l2_nfs[i].in) && l2_link_up(l2_nfs[i].out);
		if (up != l2_nfs[i].up) {
			TP_LOG(INFO, "l2: NF %s is %s", l2_nfs[i].name, up ? "up" : "down");
			l2_nfs[i].downs += !up;
			l2_nfs[i].up = up;
			changed = true;
		}
	}
	if (changed)
		for (unsigned int i = 0; i < L2_CHAINS_MAX; i++)
			if (l2_chains[i].used && l2_chains[i].pending == 0)
				chain_apply(&l2_chains[i]);
}

static int chain_attach(uint16_t port, int argc, char **argv, void **ctx, char *err, size_t len)
{
	struct l2_chain *c = argc == 1 ? l2_chain_by_name(argv[0]) : NULL;
	struct l2_xc *xc;

	if (c == NULL || l2_chain_of_port[port] != c) {
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
bool l2_nf_in_chain(unsigned int nf)
{
	for (unsigned int i = 0; i < L2_CHAINS_MAX; i++)
		for (unsigned int j = 0; l2_chains[i].used && j < l2_chains[i].n; j++)
			if (l2_chains[i].nf[j] == nf)
				return true;
	return false;
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

unsigned int l2_chain_ports(const struct l2_chain *c, uint16_t *ports)
{
	unsigned int n = 0;

	ports[n++] = c->from;
	for (unsigned int i = 0; i < c->n; i++) {
		ports[n++] = l2_nfs[c->nf[i]].in;
		ports[n++] = l2_nfs[c->nf[i]].out;
	}
	ports[n++] = c->to;
	return n;
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

void l2_chain_start(struct l2_chain *c, const uint16_t *ports, unsigned int np,
		    struct tp_cmd_ctx *ctx)
{
	int ret;

	c->used = true;
	c->ctx = ctx;
	c->pending = 1; /* held until every mode change is started */
	for (unsigned int j = 0; j < np; j++)
		l2_chain_of_port[ports[j]] = c;
	for (unsigned int j = 0; j < np; j++) {
		char *words[1] = {c->name};
		char err[256] = "";
		c->pending++;
		ret = tp_port_set_mode(tp_port_by_id(ports[j]), &chain_mode, 1, words,
				       chain_mode_done, c, err, sizeof(err));
		if (ret < 0) {
			c->pending--;
			TP_LOG(ERR, "chain %s: port %s: %s", c->name, l2_port_name(ports[j]), err);
			if (c->err == 0)
				c->err = ret;
		}
	}
	chain_mode_done(0, c);
}

void l2_chain_stop(struct l2_chain *c, struct tp_cmd_ctx *ctx)
{
	uint16_t ports[2 * L2_CHAIN_LEN_MAX + 2];
	unsigned int np = l2_chain_ports(c, ports);

	c->ctx = ctx;
	c->pending = 1;
	for (unsigned int j = 0; j < np; j++) {
		char err[256];
		struct tp_port *p = tp_port_by_id(ports[j]);
		l2_chain_of_port[ports[j]] = NULL;
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
}

void l2_chain_init(void)
{
	tp_timer_init(&chain_timer, "l2-chain-watch", chain_watch, NULL);
	tp_timer_every(&chain_timer, 100);
}

void l2_chain_fini(void)
{
	tp_timer_cancel(&chain_timer);
}
