/* SPDX-License-Identifier: BSD-3-Clause */
/* The L2 switch's commands: bridges, static MACs, NFs and service chains, and
 * what they show (the work is in control/). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_hash.h>

#include "../../control/cmd.h"
#include "../../control/metrics.h"
#include "../../control/port.h"
#include "../../core/tp.h"
#include "control/control.h"

static int name_ok(struct tp_cmd_ctx *ctx, const char *what, const char *s)
{
	if (strlen(s) == 0 || strlen(s) >= L2_NAME_MAX)
		return tp_cmd_err(ctx, EINVAL, "%s: name '%s' must have 1 to %d characters", what,
				  s, L2_NAME_MAX - 1);
	return 0;
}

#define L2_BRIDGE_OPTS                                                                             \
	"[aging SECONDS] [mac-limit N|auto] [bpdu forward|drop] [stp on|off] [priority N] "        \
	"[hello S] [max-age S] [forward-delay S]"

/* Words argv[0..argc) into o. 0, or -EINVAL with ctx's error naming the bad word. */
static int bridge_opts(struct tp_cmd_ctx *ctx, const char *what, int argc, char **argv,
		       struct l2_bridge_opts *o)
{
	for (int i = 0; i < argc; i += 2) {
		const char *k = argv[i], *val;
		if (i + 1 >= argc)
			return tp_cmd_err(ctx, EINVAL, "%s: '%s' needs a value (%s)", what, k,
					  L2_BRIDGE_OPTS);
		val = argv[i + 1];
		if (strcmp(k, "aging") == 0) {
			if (tp_parse_u64(val, 1, 1000000, &o->aging) < 0)
				return tp_cmd_err(ctx, EINVAL,
						  "%s: bad aging '%s' (1-1000000 seconds)", what,
						  val);
			o->has_aging = true;
		} else if (strcmp(k, "mac-limit") == 0) {
			if (strcmp(val, "auto") == 0)
				o->mac_limit = 0;
			else if (tp_parse_u64(val, 1, l2_mac_cap, &o->mac_limit) < 0)
				return tp_cmd_err(
				    ctx, EINVAL,
				    "%s: bad mac-limit '%s' (1-%u, or auto: the table's "
				    "size over the number of bridges)",
				    what, val, l2_mac_cap);
			o->has_mac_limit = true;
		} else if (strcmp(k, "bpdu") == 0) {
			if (strcmp(val, "forward") != 0 && strcmp(val, "drop") != 0)
				return tp_cmd_err(ctx, EINVAL, "%s: bpdu '%s': forward or drop",
						  what, val);
			o->bpdu = strcmp(val, "drop") == 0 ? L2_BPDU_DROP : L2_BPDU_FORWARD;
			o->has_bpdu = true;
		} else if (strcmp(k, "stp") == 0) {
			if (strcmp(val, "on") != 0 && strcmp(val, "off") != 0)
				return tp_cmd_err(ctx, EINVAL,
						  "%s: stp '%s': on (RSTP, 802.1D-2004 clause 17) "
						  "or off (BPDUs as 'bpdu' says)",
						  what, val);
			o->stp = strcmp(val, "on") == 0;
			o->has_stp = true;
		} else if (strcmp(k, "priority") == 0 || strcmp(k, "hello") == 0 ||
			   strcmp(k, "max-age") == 0 || strcmp(k, "forward-delay") == 0) {
			bool *has = k[0] == 'p'	  ? &o->has_prio
				    : k[0] == 'h' ? &o->has_hello
				    : k[0] == 'm' ? &o->has_max_age
						  : &o->has_fwd_delay;
			uint64_t *v = k[0] == 'p'   ? &o->prio
				      : k[0] == 'h' ? &o->hello
				      : k[0] == 'm' ? &o->max_age
						    : &o->fwd_delay;
			if (tp_parse_u64(val, 0, 65535, v) < 0)
				return tp_cmd_err(ctx, EINVAL, "%s: bad %s '%s' (a number)", what,
						  k, val);
			*has = true;
		} else {
			return tp_cmd_err(ctx, EINVAL, "%s: unexpected '%s' (%s)", what, k,
					  L2_BRIDGE_OPTS);
		}
	}
	return 0;
}

static int cmd_bridge_add(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct l2_bridge_opts o = {.aging = L2_AGING_DEFAULT, .has_aging = true};
	struct l2_bridge *br;
	char err[256];
	int ret;

	if (argc < 1)
		return tp_cmd_err(ctx, EINVAL, "bridge add: usage: bridge add NAME %s",
				  L2_BRIDGE_OPTS);
	if ((ret = name_ok(ctx, "bridge add", argv[0])) < 0)
		return ret;
	if ((ret = bridge_opts(ctx, "bridge add", argc - 1, argv + 1, &o)) < 0)
		return ret;
	if (o.has_stp && o.stp && o.has_bpdu)
		return tp_cmd_err(ctx, EINVAL, "bridge add: 'bpdu' is for a bridge without STP");
	if (l2_stp_check(NULL, &o, err, sizeof(err)) < 0)
		return tp_cmd_err(ctx, EINVAL, "bridge add: %s", err);
	ret = l2_bridge_add(argv[0], &o, &br);
	if (ret == -EEXIST)
		return tp_cmd_err(ctx, EEXIST, "bridge add: bridge %s exists", argv[0]);
	if (ret == -ENOSPC)
		return tp_cmd_err(ctx, ENOSPC, "bridge add: %d bridges already", L2_BRIDGES_MAX);
	if (ret < 0)
		return tp_cmd_err(ctx, -ret, "bridge add: out of memory");
	return 0;
}

static int cmd_bridge_del(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct l2_bridge *br;

	if (argc != 1)
		return tp_cmd_err(ctx, EINVAL, "bridge del: usage: bridge del NAME");
	if ((br = l2_bridge_by_name(argv[0])) == NULL)
		return tp_cmd_err(ctx, ENOENT, "bridge del: no bridge named '%s'", argv[0]);
	if (l2_bridge_del(br) < 0)
		return tp_cmd_err(ctx, EBUSY,
				  "bridge del: bridge %s has %u ports (port set P mode l3 first)",
				  br->name, br->members->n_all);
	return 0;
}

static int cmd_bridge_set(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct l2_bridge_opts o = {0};
	struct l2_bridge *br;
	char err[256];
	int ret;

	if (argc < 3)
		return tp_cmd_err(ctx, EINVAL, "bridge set: usage: bridge set NAME %s",
				  L2_BRIDGE_OPTS);
	if ((br = l2_bridge_by_name(argv[0])) == NULL)
		return tp_cmd_err(ctx, ENOENT, "bridge set: no bridge named '%s'", argv[0]);
	if ((ret = bridge_opts(ctx, "bridge set", argc - 1, argv + 1, &o)) < 0)
		return ret;
	if (l2_stp_check(br, &o, err, sizeof(err)) < 0)
		return tp_cmd_err(ctx, EINVAL, "bridge set: %s", err);
	bool stp_on = o.has_stp ? o.stp : br->bpdu == L2_BPDU_STP;
	if (o.has_bpdu && stp_on)
		return tp_cmd_err(ctx, EINVAL,
				  "bridge set: 'bpdu' is for a bridge without STP (stp off first)");
	l2_bridge_apply(br, &o);
	return 0;
}

/* bridge mac add|del BR MAC [vlan V] [port P] */
static int cmd_bridge_mac(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	static const char *usage = "usage: bridge mac add BR MAC port P [vlan V] | bridge mac "
				   "del BR MAC [vlan V] | bridge mac flush BR [port P]";
	struct l2_bridge *br;
	struct l2_key_buf kb = {0}; /* the hash reads whole words (l2.h) */
	struct l2_key *k = &kb.k;
	struct tp_port *p = NULL;
	uint64_t v = 0;
	bool moved;
	int ret;

	if (argc < 2)
		return tp_cmd_err(ctx, EINVAL, "bridge mac: %s", usage);
	if ((br = l2_bridge_by_name(argv[1])) == NULL)
		return tp_cmd_err(ctx, ENOENT, "bridge mac: no bridge named '%s'", argv[1]);
	if (strcmp(argv[0], "flush") == 0) {
		uint16_t port = L2_NO_PORT;
		if (argc == 4 && strcmp(argv[2], "port") == 0) {
			if ((p = tp_port_by_name(argv[3])) == NULL)
				return tp_cmd_err(ctx, ENODEV, "bridge mac flush: no port '%s'",
						  argv[3]);
			port = p->id;
		} else if (argc != 2)
			return tp_cmd_err(ctx, EINVAL, "bridge mac: %s", usage);
		tp_out_u64(ctx->out, "flushed", l2_mac_flush(br->id, port, false));
		return 0;
	}
	if (argc < 3 || (strcmp(argv[0], "add") != 0 && strcmp(argv[0], "del") != 0))
		return tp_cmd_err(ctx, EINVAL, "bridge mac: %s", usage);
	if (rte_ether_unformat_addr(argv[2], &k->mac) < 0 || rte_is_multicast_ether_addr(&k->mac) ||
	    rte_is_zero_ether_addr(&k->mac))
		return tp_cmd_err(ctx, EINVAL, "bridge mac: bad unicast MAC '%s'", argv[2]);
	k->bridge = br->id;
	k->vlan = 1;
	for (int i = 3; i < argc; i += 2) {
		if (i + 1 >= argc)
			return tp_cmd_err(ctx, EINVAL, "bridge mac: '%s' needs a value", argv[i]);
		if (strcmp(argv[i], "vlan") == 0) {
			if (tp_parse_u64(argv[i + 1], 1, 4094, &v) < 0)
				return tp_cmd_err(ctx, EINVAL, "bridge mac: bad VLAN '%s' (1-4094)",
						  argv[i + 1]);
			k->vlan = (uint16_t)v;
		} else if (strcmp(argv[i], "port") == 0 && strcmp(argv[0], "add") == 0) {
			if ((p = tp_port_by_name(argv[i + 1])) == NULL)
				return tp_cmd_err(ctx, ENODEV, "bridge mac: no port '%s'",
						  argv[i + 1]);
		} else
			return tp_cmd_err(ctx, EINVAL, "bridge mac: unexpected '%s'; %s", argv[i],
					  usage);
	}
	if (strcmp(argv[0], "del") == 0) {
		void *data;
		if (rte_hash_lookup_data(l2_macs, k, &data) < 0)
			return tp_cmd_err(ctx, ENOENT, "bridge mac del: %s vlan %u not in %s",
					  argv[2], k->vlan, br->name);
		l2_mac_remove((uint32_t)(uintptr_t)data);
		return 0;
	}
	if (p == NULL)
		return tp_cmd_err(ctx, EINVAL, "bridge mac add: which port? %s", usage);
	if (l2_member(br->id, p->id) == NULL)
		return tp_cmd_err(ctx, EINVAL, "bridge mac add: port %s is not in bridge %s",
				  p->name, br->name);
	if ((ret = l2_mac_set(k, p->id, true, &moved, rte_rdtsc())) < 0)
		return tp_cmd_err(ctx, -ret, "bridge mac add: the MAC table is full (%u entries)",
				  l2_mac_cap);
	return 0;
}

static uint64_t port_ctr(uint16_t port, unsigned int id)
{
	uint64_t s = 0;

	for (unsigned int w = 0; w < tp.n_workers; w++)
		s += __atomic_load_n(&tp.workers[w]->ctr[port][id], __ATOMIC_RELAXED);
	return s;
}

static uint64_t port_io(uint16_t port, bool tx)
{
	uint64_t s = 0;

	for (unsigned int w = 0; w < tp.n_workers; w++) {
		struct tp_port_ctr *c = &tp.workers[w]->st.port[port];
		s += __atomic_load_n(tx ? &c->tx : &c->rx, __ATOMIC_RELAXED);
	}
	return s;
}

static void out_port_l2(struct tp_node *o, const struct l2_port *lp)
{
	char buf[512] = "";
	unsigned int n = 0;

	tp_out_str(o, "port", l2_port_name(lp->port));
	tp_out_str(o, "mode", lp->trunk ? "trunk" : "access");
	if (lp->trunk) {
		for (unsigned int v = 1; v < 4095 && n < sizeof(buf) - 8; v++)
			if ((lp->allowed[v >> 6] >> (v & 63)) & 1) {
				unsigned int e = v;
				while (e + 1 < 4095 &&
				       ((lp->allowed[(e + 1) >> 6] >> ((e + 1) & 63)) & 1))
					e++;
				n += (unsigned int)snprintf(buf + n, sizeof(buf) - n,
							    e > v ? "%s%u-%u" : "%s%u",
							    n ? "," : "", v, e);
				v = e;
			}
		tp_out_str(o, "vlans", buf);
		if (lp->pvid)
			tp_out_u64(o, "native", lp->pvid);
	} else {
		tp_out_u64(o, "vlan", lp->pvid);
		tp_out_str(o, "admit", lp->admit_all ? "all" : "untagged");
	}
	tp_out_u64(o, "mac_limit", lp->mac_limit);
	tp_out_u64(o, "macs", tp_l2_port_macs(lp->port));
	tp_out_u64(o, "learn_rate", lp->rate[L2_TB_LEARN].pps);
	tp_out_u64(o, "storm_broadcast", lp->rate[L2_TB_BROADCAST].pps);
	tp_out_u64(o, "storm_unknown", lp->rate[L2_TB_UNKNOWN].pps);
	tp_out_u64(o, "rx", port_io(lp->port, false));
	tp_out_u64(o, "tx", port_io(lp->port, true));
	struct tp_node *c = tp_out_obj(o, "counters");
	uint64_t drops = 0;
	for (unsigned int i = 0; i < L2_CTR_MAX; i++) {
		uint64_t v = port_ctr(lp->port, tp_l2_nf.ctr_base + i);
		if (tp_l2_nf.ctrs[i].kind == TP_CTR_DROP)
			drops += v;
		if (v)
			tp_out_u64(c, tp_l2_nf.ctrs[i].name, v);
	}
	tp_out_u64(o, "drops", drops);
	l2_stp_show_port(o, lp->br, lp->port);
}

static void out_macs(struct tp_node *l, const struct l2_bridge *br)
{
	uint64_t now = rte_rdtsc();
	char mac[RTE_ETHER_ADDR_FMT_SIZE];

	for (uint32_t i = 0; i < l2_mac_hiwater; i++) {
		const struct l2_mac *e = &l2_mac_table[i];
		if (e->used != 1 || e->key.bridge != br->id)
			continue;
		struct tp_node *o = tp_out_obj(l, NULL);
		rte_ether_format_addr(mac, sizeof(mac), &e->key.mac);
		tp_out_str(o, "mac", mac);
		tp_out_u64(o, "vlan", e->key.vlan);
		tp_out_str(o, "port", l2_port_name(e->port));
		tp_out_str(o, "type", e->is_static ? "static" : "dynamic");
		uint64_t seen = __atomic_load_n(&e->seen, __ATOMIC_RELAXED);
		tp_out_u64(o, "age_s", now > seen ? (now - seen) / tp.tsc_hz : 0);
	}
}

/* enum l2_bpdu's names, for show */
static const char *const l2_bpdu_modes[] = {"forward", "drop", "stp"};

static void out_bridge(struct tp_node *o, const struct l2_bridge *br)
{
	const struct l2_members *mb = br->members;
	unsigned int macs = 0;

	for (uint32_t i = 0; i < l2_mac_hiwater; i++)
		macs += l2_mac_table[i].used == 1 && l2_mac_table[i].key.bridge == br->id;
	tp_out_str(o, "name", br->name);
	tp_out_u64(o, "aging_s", br->aging_s);
	tp_out_u64(o, "macs", macs);
	tp_out_u64(o, "dynamic_macs", tp_l2_bridge_macs(br->id));
	tp_out_u64(o, "mac_limit", tp_l2_bridge_limit(br->id));
	tp_out_str(o, "mac_limit_set", br->mac_limit ? "given" : "auto");
	tp_out_str(o, "bpdu", l2_bpdu_modes[br->bpdu]);
	tp_out_u64(o, "learned", br->learned);
	tp_out_u64(o, "moves", br->moves);
	tp_out_u64(o, "aged", br->aged);
	tp_out_u64(o, "limit_refused", br->limit_refused);
	tp_out_u64(o, "bridge_limit_refused", br->bridge_limit_refused);
	tp_out_u64(o, "table_full", br->table_full);
	l2_stp_show(o, br);
	struct tp_node *l = tp_out_list(o, "ports");
	for (unsigned int i = 0; mb && i < mb->n_all; i++)
		out_port_l2(tp_out_obj(l, NULL), mb->cfg[mb->all[i]]);
}

static int cmd_show_bridge(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct l2_bridge *br = NULL;

	if (argc > 2 || (argc == 2 && strcmp(argv[1], "macs") != 0))
		return tp_cmd_err(ctx, EINVAL, "show bridge: usage: show bridge [NAME [macs]]");
	if (argc >= 1 && (br = l2_bridge_by_name(argv[0])) == NULL)
		return tp_cmd_err(ctx, ENOENT, "show bridge: no bridge named '%s'", argv[0]);
	if (argc == 2) {
		tp_out_str(ctx->out, "bridge", br->name);
		out_macs(tp_out_list(ctx->out, "macs"), br);
		return 0;
	}
	if (br) {
		out_bridge(ctx->out, br);
		return 0;
	}
	struct tp_node *l = tp_out_list(ctx->out, "bridges");
	for (unsigned int i = 0; i < L2_BRIDGES_MAX; i++)
		if (l2_bridges[i].used)
			out_bridge(tp_out_obj(l, NULL), &l2_bridges[i]);
	return 0;
}

static int cmd_nf_add(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_port *a, *b;
	unsigned int i;
	int ret;

	if (argc != 3)
		return tp_cmd_err(ctx, EINVAL,
				  "nf add: usage: nf add NAME PORT_TO_NF PORT_FROM_NF (the NF's "
				  "two ports, as seen in the forward direction of a chain)");
	if ((ret = name_ok(ctx, "nf add", argv[0])) < 0)
		return ret;
	if (l2_nf_by_name(argv[0]))
		return tp_cmd_err(ctx, EEXIST, "nf add: NF %s exists", argv[0]);
	if ((a = tp_port_by_name(argv[1])) == NULL || (b = tp_port_by_name(argv[2])) == NULL)
		return tp_cmd_err(ctx, ENODEV, "nf add: no port named '%s'", a ? argv[2] : argv[1]);
	if (a == b)
		return tp_cmd_err(ctx, EINVAL, "nf add: an NF needs two different ports");
	for (i = 0; i < L2_NF_MAX; i++)
		if (l2_nfs[i].used && (l2_nfs[i].in == a->id || l2_nfs[i].out == a->id ||
				       l2_nfs[i].in == b->id || l2_nfs[i].out == b->id))
			return tp_cmd_err(ctx, EBUSY, "nf add: a port of NF %s already",
					  l2_nfs[i].name);
	for (i = 0; i < L2_NF_MAX && l2_nfs[i].used; i++)
		;
	if (i == L2_NF_MAX)
		return tp_cmd_err(ctx, ENOSPC, "nf add: %d NFs already", L2_NF_MAX);
	memset(&l2_nfs[i], 0, sizeof(l2_nfs[i]));
	snprintf(l2_nfs[i].name, sizeof(l2_nfs[i].name), "%s", argv[0]);
	l2_nfs[i].in = a->id;
	l2_nfs[i].out = b->id;
	l2_nfs[i].up = l2_link_up(a->id) && l2_link_up(b->id);
	l2_nfs[i].used = true;
	return 0;
}

static int cmd_nf_del(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct l2_nfdef *nf;

	if (argc != 1)
		return tp_cmd_err(ctx, EINVAL, "nf del: usage: nf del NAME");
	if ((nf = l2_nf_by_name(argv[0])) == NULL)
		return tp_cmd_err(ctx, ENOENT, "nf del: no NF named '%s'", argv[0]);
	if (l2_nf_in_chain((unsigned int)(nf - l2_nfs)))
		return tp_cmd_err(ctx, EBUSY, "nf del: NF %s is in a chain", argv[0]);
	nf->used = false;
	return 0;
}

static int cmd_chain_add(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	static const char *usage =
	    "usage: chain add NAME from PORT to PORT via NF [NF...] [on-nf-down drop|bypass]";
	struct tp_port *from, *to;
	struct l2_chain *c;
	uint16_t ports[2 * L2_CHAIN_LEN_MAX + 2];
	unsigned int i, n, np;
	int ret, end = argc;
	bool bypass = false;

	if (argc >= 2 && strcmp(argv[argc - 2], "on-nf-down") == 0) {
		if (strcmp(argv[argc - 1], "bypass") != 0 && strcmp(argv[argc - 1], "drop") != 0)
			return tp_cmd_err(ctx, EINVAL,
					  "chain add: on-nf-down '%s': drop (counted as "
					  "l2.chain_nf_down) or bypass (skip the NF)",
					  argv[argc - 1]);
		bypass = strcmp(argv[argc - 1], "bypass") == 0;
		end -= 2;
	}
	if (end < 7 || strcmp(argv[1], "from") || strcmp(argv[3], "to") || strcmp(argv[5], "via"))
		return tp_cmd_err(ctx, EINVAL, "chain add: %s", usage);
	if ((ret = name_ok(ctx, "chain add", argv[0])) < 0)
		return ret;
	if (l2_chain_by_name(argv[0]))
		return tp_cmd_err(ctx, EEXIST, "chain add: chain %s exists", argv[0]);
	if ((from = tp_port_by_name(argv[2])) == NULL || (to = tp_port_by_name(argv[4])) == NULL)
		return tp_cmd_err(ctx, ENODEV, "chain add: no port named '%s'",
				  from ? argv[4] : argv[2]);
	n = (unsigned int)(end - 6);
	if (n > L2_CHAIN_LEN_MAX)
		return tp_cmd_err(ctx, E2BIG, "chain add: at most %d NFs", L2_CHAIN_LEN_MAX);
	for (i = 0; i < L2_CHAINS_MAX && l2_chains[i].used; i++)
		;
	if (i == L2_CHAINS_MAX)
		return tp_cmd_err(ctx, ENOSPC, "chain add: %d chains already", L2_CHAINS_MAX);
	c = &l2_chains[i];
	memset(c, 0, sizeof(*c));
	c->from = from->id;
	c->to = to->id;
	c->n = n;
	c->bypass = bypass;
	for (unsigned int j = 0; j < n; j++) {
		struct l2_nfdef *nf = l2_nf_by_name(argv[6 + j]);
		if (nf == NULL)
			return tp_cmd_err(ctx, ENOENT, "chain add: no NF named '%s' (nf add ...)",
					  argv[6 + j]);
		if (l2_nf_in_chain((unsigned int)(nf - l2_nfs)))
			return tp_cmd_err(ctx, EBUSY, "chain add: NF %s is in a chain already",
					  nf->name);
		for (unsigned int k = 0; k < j; k++)
			if (c->nf[k] == (unsigned int)(nf - l2_nfs))
				return tp_cmd_err(ctx, EINVAL, "chain add: NF %s appears twice",
						  nf->name);
		c->nf[j] = (unsigned int)(nf - l2_nfs);
	}
	np = l2_chain_ports(c, ports);
	for (unsigned int j = 0; j < np; j++) {
		struct tp_port *p = tp_port_by_id(ports[j]);
		for (unsigned int k = 0; k < j; k++)
			if (ports[k] == ports[j])
				return tp_cmd_err(ctx, EINVAL, "chain add: port %s used twice",
						  p->name);
		if (l2_chain_of_port[ports[j]])
			return tp_cmd_err(ctx, EBUSY, "chain add: port %s is in chain %s", p->name,
					  l2_chain_of_port[ports[j]]->name);
		if (p->busy)
			return tp_cmd_err(ctx, EBUSY, "chain add: port %s is being changed",
					  p->name);
	}
	snprintf(c->name, sizeof(c->name), "%s", argv[0]);
	l2_chain_start(c, ports, np, ctx);
	return TP_CMD_PENDING;
}

static int cmd_chain_del(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct l2_chain *c;

	if (argc != 1)
		return tp_cmd_err(ctx, EINVAL, "chain del: usage: chain del NAME");
	if ((c = l2_chain_by_name(argv[0])) == NULL || c->pending)
		return tp_cmd_err(ctx, ENOENT, "chain del: no chain named '%s'", argv[0]);
	l2_chain_stop(c, ctx);
	return TP_CMD_PENDING;
}

static void out_chain(struct tp_node *o, const struct l2_chain *c)
{
	tp_out_str(o, "name", c->name);
	tp_out_str(o, "from", l2_port_name(c->from));
	tp_out_str(o, "to", l2_port_name(c->to));
	tp_out_str(o, "on_nf_down", c->bypass ? "bypass" : "drop");
	tp_out_u64(o, "from_rx", port_io(c->from, false));
	tp_out_u64(o, "from_tx", port_io(c->from, true));
	tp_out_u64(o, "to_rx", port_io(c->to, false));
	tp_out_u64(o, "to_tx", port_io(c->to, true));
	uint64_t drops =
	    port_ctr(c->from, L2_CTR(CHAIN_NF_DOWN)) + port_ctr(c->to, L2_CTR(CHAIN_NF_DOWN));
	struct tp_node *l = tp_out_list(o, "hops");
	for (unsigned int i = 0; i < c->n; i++) {
		const struct l2_nfdef *nf = &l2_nfs[c->nf[i]];
		struct tp_node *h = tp_out_obj(l, NULL);
		tp_out_str(h, "nf", nf->name);
		tp_out_str(h, "port_to_nf", l2_port_name(nf->in));
		tp_out_str(h, "port_from_nf", l2_port_name(nf->out));
		tp_out_str(h, "state", nf->up ? "up" : "down");
		tp_out_u64(h, "downs", nf->downs);
		/* forward: sent on in, back on out; reverse: the other way */
		tp_out_u64(h, "fwd_to_nf", port_io(nf->in, true));
		tp_out_u64(h, "fwd_from_nf", port_io(nf->out, false));
		tp_out_u64(h, "rev_to_nf", port_io(nf->out, true));
		tp_out_u64(h, "rev_from_nf", port_io(nf->in, false));
		uint64_t d = port_ctr(nf->in, L2_CTR(CHAIN_NF_DOWN)) +
			     port_ctr(nf->out, L2_CTR(CHAIN_NF_DOWN)) +
			     port_ctr(nf->in, TP_DROP_TX_FULL) + port_ctr(nf->out, TP_DROP_TX_FULL);
		tp_out_u64(h, "drops", d);
		drops += port_ctr(nf->in, L2_CTR(CHAIN_NF_DOWN)) +
			 port_ctr(nf->out, L2_CTR(CHAIN_NF_DOWN));
	}
	tp_out_u64(o, "nf_down_drops", drops);
}

static int cmd_show_chain(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct l2_chain *c;

	if (argc > 1)
		return tp_cmd_err(ctx, EINVAL, "show chain: usage: show chain [NAME]");
	if (argc == 1) {
		if ((c = l2_chain_by_name(argv[0])) == NULL)
			return tp_cmd_err(ctx, ENOENT, "show chain: no chain named '%s'", argv[0]);
		out_chain(ctx->out, c);
		return 0;
	}
	struct tp_node *l = tp_out_list(ctx->out, "chains");
	for (unsigned int i = 0; i < L2_CHAINS_MAX; i++)
		if (l2_chains[i].used)
			out_chain(tp_out_obj(l, NULL), &l2_chains[i]);
	return 0;
}

static int cmd_show_nf(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_node *l = tp_out_list(ctx->out, "nfs");

	for (unsigned int i = 0; i < L2_NF_MAX; i++) {
		if (!l2_nfs[i].used)
			continue;
		struct tp_node *o = tp_out_obj(l, NULL);
		tp_out_str(o, "name", l2_nfs[i].name);
		tp_out_str(o, "port_to_nf", l2_port_name(l2_nfs[i].in));
		tp_out_str(o, "port_from_nf", l2_port_name(l2_nfs[i].out));
		tp_out_str(o, "state", l2_nfs[i].up ? "up" : "down");
		tp_out_u64(o, "downs", l2_nfs[i].downs);
	}
	return 0;
}

static struct tp_cmd c_bridge_add = {
    "bridge add", "NAME " L2_BRIDGE_OPTS,
    "a bridge domain (MAC aging 300 s, the fair share of the MAC table, BPDUs forwarded, "
    "no spanning tree, unless given)",
    cmd_bridge_add, NULL};
static struct tp_cmd c_bridge_del = {"bridge del", "NAME", "remove a bridge with no ports",
				     cmd_bridge_del, NULL};
static struct tp_cmd c_bridge_set = {
    "bridge set", "NAME " L2_BRIDGE_OPTS,
    "a bridge's MAC aging, share of the MAC table, BPDUs, spanning tree (RSTP, 802.1D-2004)",
    cmd_bridge_set, NULL};
static struct tp_cmd c_bridge_mac = {
    "bridge mac", "add BR MAC port P [vlan V] | del BR MAC [vlan V] | flush BR [port P]",
    "static MAC entries; flush learned ones", cmd_bridge_mac, NULL};
static struct tp_cmd c_show_bridge = {"show bridge", "[NAME [macs]]",
				      "bridges, their ports and counters; a MAC table",
				      cmd_show_bridge, NULL};
static struct tp_cmd c_nf_add = {"nf add", "NAME PORT_TO_NF PORT_FROM_NF",
				 "an NF attached by two ports (memif, vhost-user), for chains",
				 cmd_nf_add, NULL};
static struct tp_cmd c_nf_del = {"nf del", "NAME", "forget an NF in no chain", cmd_nf_del, NULL};
static struct tp_cmd c_show_nf = {"show nf", NULL, "NFs and their link state", cmd_show_nf, NULL};
static struct tp_cmd c_chain_add = {
    "chain add", "NAME from PORT to PORT via NF [NF...] [on-nf-down drop|bypass]",
    "steer what enters PORT through the NFs in order and out the other PORT (and back)",
    cmd_chain_add, NULL};
static struct tp_cmd c_chain_del = {"chain del", "NAME", "remove a chain (its ports go to l3)",
				    cmd_chain_del, NULL};
static struct tp_cmd c_show_chain = {"show chain", "[NAME]", "chains and per-hop counters",
				     cmd_show_chain, NULL};
TP_CMD_REGISTER(c_bridge_add)
TP_CMD_REGISTER(c_bridge_del)
TP_CMD_REGISTER(c_bridge_set)
TP_CMD_REGISTER(c_bridge_mac)
TP_CMD_REGISTER(c_show_bridge)
TP_CMD_REGISTER(c_nf_add)
TP_CMD_REGISTER(c_nf_del)
TP_CMD_REGISTER(c_show_nf)
TP_CMD_REGISTER(c_chain_add)
TP_CMD_REGISTER(c_chain_del)
TP_CMD_REGISTER(c_show_chain)

/* The metrics page: each bridge's MAC table (read as 'show bridge' does). */
void l2_metrics(struct tp_metrics *m)
{
	static const struct {
		const char *event;
		size_t off;
	} ev[] = {
	    {"learned", offsetof(struct l2_bridge, learned)},
	    {"moves", offsetof(struct l2_bridge, moves)},
	    {"aged", offsetof(struct l2_bridge, aged)},
	    {"limit_refused", offsetof(struct l2_bridge, limit_refused)},
	    {"bridge_limit_refused", offsetof(struct l2_bridge, bridge_limit_refused)},
	    {"table_full", offsetof(struct l2_bridge, table_full)},
	};

	tp_metrics_family(m, "twinplane_l2_mac_entries", "gauge",
			  "MAC entries of a bridge (static and learned)");
	for (unsigned int b = 0; b < L2_BRIDGES_MAX; b++) {
		unsigned int macs = 0;
		if (!l2_bridges[b].used)
			continue;
		for (uint32_t i = 0; i < l2_mac_hiwater; i++)
			macs += l2_mac_table[i].used == 1 && l2_mac_table[i].key.bridge == b;
		tp_metrics_u64(m, "twinplane_l2_mac_entries", macs, "bridge", l2_bridges[b].name,
			       NULL);
	}
	tp_metrics_family(m, "twinplane_l2_mac_limit", "gauge",
			  "Learned MAC entries a bridge may hold");
	for (unsigned int b = 0; b < L2_BRIDGES_MAX; b++)
		if (l2_bridges[b].used)
			tp_metrics_u64(m, "twinplane_l2_mac_limit", tp_l2_bridge_limit((uint16_t)b),
				       "bridge", l2_bridges[b].name, NULL);
	tp_metrics_family(m, "twinplane_l2_mac_events_total", "counter",
			  "What became of a bridge's MAC entries, by event");
	for (unsigned int b = 0; b < L2_BRIDGES_MAX; b++) {
		if (!l2_bridges[b].used)
			continue;
		for (size_t k = 0; k < RTE_DIM(ev); k++)
			tp_metrics_u64(
			    m, "twinplane_l2_mac_events_total",
			    *(const uint64_t *)((const char *)&l2_bridges[b] + ev[k].off), "bridge",
			    l2_bridges[b].name, "event", ev[k].event, NULL);
	}
}
