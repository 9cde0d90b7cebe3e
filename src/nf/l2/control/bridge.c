/* SPDX-License-Identifier: BSD-3-Clause */
/* The L2 switch's bridges and the "l2" port mode: a port's configuration in its
 * bridge (access VLAN or 802.1Q trunk, MAC limit, learn and storm rates), and each
 * bridge's members list, published to the workers under RCU (l2.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>

#include "../../../control/cmd.h"
#include "../../../control/port.h"
#include "../../../core/afpacket.h"
#include "../../../core/input.h"
#include "../../../core/log.h"
#include "../../../core/rcu.h"
#include "../../../core/tp.h"
#include "control.h"

const char *l2_port_name(uint16_t id)
{
	struct tp_port *p = tp_port_by_id(id);

	return p ? p->name : "?";
}

void l2_free_members(void *a, void *b)
{
	free(a);
	free(b);
}

/* Publish br's members with port set to lp (NULL: removed; port L2_NO_PORT: none
 * changed, the states did); the old list, and old (a port configuration no lcore may
 * see any more), freed after a grace period. Frames go out of the members whose STP
 * state is forwarding (all of them with STP off). */
static int members_set(struct l2_bridge *br, uint16_t port, struct l2_port *lp, void *old)
{
	struct l2_members *cur = br->members, *nm = calloc(1, sizeof(*nm));

	if (nm == NULL)
		return -ENOMEM;
	if (cur)
		for (unsigned int i = 0; i < cur->n_all; i++)
			if (cur->all[i] != port) {
				nm->all[nm->n_all++] = cur->all[i];
				nm->cfg[cur->all[i]] = cur->cfg[cur->all[i]];
			}
	if (lp) {
		nm->all[nm->n_all++] = port;
		nm->cfg[port] = lp;
	}
	for (unsigned int i = 0; i < nm->n_all; i++) {
		struct l2_port *p = nm->cfg[nm->all[i]];
		if (__atomic_load_n(&p->stp, __ATOMIC_RELAXED) == L2_STP_FORWARDING) {
			nm->list[nm->n++] = nm->all[i];
			nm->by_port[nm->all[i]] = p;
		}
	}
	__atomic_store_n(&br->members, nm, __ATOMIC_RELEASE);
	if (tp_rcu_defer(l2_free_members, cur, old) < 0) {
		rte_rcu_qsbr_synchronize(tp.qs, RTE_QSBR_THRID_INVALID);
		l2_free_members(cur, old);
	}
	return 0;
}

int l2_members_publish(struct l2_bridge *br)
{
	return members_set(br, L2_NO_PORT, NULL, NULL);
}

struct l2_bridge *l2_bridge_by_name(const char *name)
{
	for (unsigned int i = 0; i < L2_BRIDGES_MAX; i++)
		if (l2_bridges[i].used && strcmp(l2_bridges[i].name, name) == 0)
			return &l2_bridges[i];
	return NULL;
}

/* "10,20,30-40" into the bitmap; 0 or -1 */
static int vlan_list(const char *s, uint64_t *bm)
{
	char buf[256], *save = NULL;
	uint64_t a, b;

	if (strlen(s) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", s);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(t, '-');
		if (dash)
			*dash = '\0';
		if (tp_parse_u64(t, 1, 4094, &a) < 0 ||
		    (dash ? tp_parse_u64(dash + 1, a, 4094, &b) : (b = a, 0)) < 0)
			return -1;
		for (uint64_t v = a; v <= b; v++)
			bm[v >> 6] |= 1ull << (v & 63);
	}
	return 0;
}

/* A rate of pps frames a second into r: a bucket of one second's worth (at least
 * L2_BUCKET_MIN frames). 0: no limit. */
static void rate_set(struct l2_rate *r, uint32_t pps)
{
	r->pps = pps;
	r->cost = pps ? RTE_MAX(tp.tsc_hz / pps, (uint64_t)1) : 0;
	r->max = r->cost * RTE_MAX(pps, (uint32_t)L2_BUCKET_MIN);
}

#define L2_PORT_USAGE                                                                              \
	"bridge BR [vlan V [admit untagged|all] | trunk V,V-V [native V]] [mac-limit N] "          \
	"[learn-rate PPS] [storm-broadcast PPS] [storm-unknown PPS] [stp-cost N] "                 \
	"[stp-priority N] [stp-edge auto|yes|no]"

static int l2_attach(uint16_t port, int argc, char **argv, void **ctx, char *err, size_t len)
{
	static const char *usage = "usage: port set P mode l2 " L2_PORT_USAGE;
	static const char *const rate_words[L2_TB_MAX] = {"learn-rate", "storm-broadcast",
							  "storm-unknown"};
	uint32_t pps[L2_TB_MAX] = {L2_LEARN_RATE_DEFAULT, 0, 0};
	struct l2_port *lp;
	struct l2_bridge *br;
	uint64_t v;
	bool vlan_set = false, native_set = false, admit_set = false;
	int ret;

	if (argc < 2 || strcmp(argv[0], "bridge") != 0) {
		snprintf(err, len, "%s", usage);
		return -EINVAL;
	}
	if ((br = l2_bridge_by_name(argv[1])) == NULL) {
		snprintf(err, len, "no bridge named '%s' (bridge add %s)", argv[1], argv[1]);
		return -ENOENT;
	}
	if (l2_chain_of_port[port]) {
		snprintf(err, len, "the port is in chain %s", l2_chain_of_port[port]->name);
		return -EBUSY;
	}
	if ((lp = calloc(1, sizeof(*lp))) == NULL)
		return -ENOMEM;
	lp->port = port;
	lp->br = br;
	lp->pvid = 1; /* the default VLAN, as switches ship */
	lp->mac_limit = L2_PORT_MACS_DEFAULT < l2_mac_cap ? L2_PORT_MACS_DEFAULT : l2_mac_cap;
	for (int i = 2; i < argc; i += 2) {
		const char *k = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		int r;
		for (r = 0; r < L2_TB_MAX && strcmp(k, rate_words[r]) != 0; r++)
			;
		if (val == NULL) {
			snprintf(err, len, "'%s' needs a value; %s", k, usage);
			goto bad;
		}
		if (strcmp(k, "vlan") == 0 && !lp->trunk && !vlan_set) {
			if (tp_parse_u64(val, 1, 4094, &v) < 0) {
				snprintf(err, len, "bad VLAN '%s' (1-4094)", val);
				goto bad;
			}
			lp->pvid = (uint16_t)v;
			vlan_set = true;
		} else if (strcmp(k, "trunk") == 0 && !vlan_set && !admit_set && !lp->trunk) {
			if (vlan_list(val, lp->allowed) < 0) {
				snprintf(err, len, "bad VLAN list '%s' (e.g. 10,20,30-40; 1-4094)",
					 val);
				goto bad;
			}
			lp->trunk = 1;
			if (!native_set)
				lp->pvid = 0; /* no native VLAN unless asked */
		} else if (strcmp(k, "native") == 0 && lp->trunk && !native_set) {
			if (tp_parse_u64(val, 1, 4094, &v) < 0) {
				snprintf(err, len, "bad native VLAN '%s' (1-4094)", val);
				goto bad;
			}
			lp->pvid = (uint16_t)v;
			native_set = true;
		} else if (strcmp(k, "admit") == 0 && !lp->trunk) {
			/* 802.1Q 6.9: an access port's acceptable frame types */
			if (strcmp(val, "untagged") != 0 && strcmp(val, "all") != 0) {
				snprintf(err, len,
					 "admit '%s': untagged (untagged and priority-tagged "
					 "frames, the default) or all (its VLAN's tag too)",
					 val);
				goto bad;
			}
			lp->admit_all = strcmp(val, "all") == 0;
			admit_set = true;
		} else if (strcmp(k, "mac-limit") == 0) {
			if (tp_parse_u64(val, 0, l2_mac_cap, &v) < 0) {
				snprintf(err, len, "bad mac-limit '%s' (0-%u, 0: none)", val,
					 l2_mac_cap);
				goto bad;
			}
			lp->mac_limit = (uint32_t)v;
		} else if (r < L2_TB_MAX) {
			if (tp_parse_u64(val, 0, 100000000, &v) < 0) {
				snprintf(err, len, "bad %s '%s' (0-100000000 a second, 0: none)", k,
					 val);
				goto bad;
			}
			pps[r] = (uint32_t)v;
		} else if (strcmp(k, "stp-cost") == 0) {
			/* 802.1D-2004 17.14, Table 17-3: 1-200000000 */
			if (tp_parse_u64(val, 1, 200000000, &v) < 0) {
				snprintf(err, len, "bad stp-cost '%s' (1-200000000)", val);
				goto bad;
			}
			lp->stp_cost = (uint32_t)v;
		} else if (strcmp(k, "stp-priority") == 0) {
			/* 17.14, Table 17-2: 0-240 in steps of 16 */
			if (tp_parse_u64(val, 0, 240, &v) < 0 || v % 16 != 0) {
				snprintf(err, len,
					 "bad stp-priority '%s' (0-240, a multiple of 16)", val);
				goto bad;
			}
			lp->stp_prio = (uint8_t)v;
			lp->stp_prio_set = 1;
		} else if (strcmp(k, "stp-edge") == 0) {
			if (strcmp(val, "auto") == 0)
				lp->stp_edge = 0;
			else if (strcmp(val, "yes") == 0)
				lp->stp_edge = 1;
			else if (strcmp(val, "no") == 0)
				lp->stp_edge = 2;
			else {
				snprintf(err, len,
					 "stp-edge '%s': auto (an edge once no BPDU answers its "
					 "proposal), yes or no",
					 val);
				goto bad;
			}
		} else {
			snprintf(err, len,
				 "unexpected '%s' (vlan and trunk exclude each other, native "
				 "follows trunk, admit is an access port's); %s",
				 k, usage);
			goto bad;
		}
	}
	for (int r = 0; r < L2_TB_MAX; r++)
		rate_set(&lp->rate[r], pps[r]);
	lp->at_limit = l2_port_full(lp);
	/* a port moving from another bridge: its entries there go */
	for (unsigned int b = 0; b < L2_BRIDGES_MAX; b++)
		if (&l2_bridges[b] != br && l2_member((uint16_t)b, port)) {
			snprintf(err, len,
				 "the port is in bridge %s: leave it first (port set %s "
				 "mode l3)",
				 l2_bridges[b].name, l2_port_name(port));
			goto bad;
		}
	lp->stp = l2_stp_port_state(br, port);
	if ((ret = members_set(br, port, lp, NULL)) < 0) {
		free(lp);
		return ret;
	}
	l2_cfg[port] = lp;
	l2_stp_port_join(br, lp);
	/* every frame is ours, whatever its destination (a real NIC filters) */
	if (rte_eth_dev_is_valid_port(port))
		rte_eth_promiscuous_enable(port);
	/* an af_packet port's 802.1ad frames as they came, not refused (decision
	 * 0112); failing that, refused as on any af_packet port (logged) */
	tp_afpacket_stag_keep(port);
	*ctx = lp;
	return 0;
bad:
	free(lp);
	return -EINVAL;
}

static void l2_detach(uint16_t port, void *ctx)
{
	struct l2_port *lp = ctx;
	struct l2_bridge *br = lp->br;
	struct l2_members *mb = br->members;

	if (l2_cfg[port] == lp)
		l2_cfg[port] = NULL;
	if (mb && mb->cfg[port] == lp) {
		/* the port leaves the bridge: its MAC entries go too, its af_packet
		 * interface's XDP wrap too */
		tp_afpacket_stag_release(port);
		l2_mac_flush(br->id, port, true);
		if (members_set(br, port, NULL, lp) == 0) {
			l2_stp_port_leave(br, port);
			return;
		}
		/* out of memory: it stays listed (flooded to) until the bridge goes */
		TP_LOG(ERR, "l2: port %s: cannot update bridge %s's members", l2_port_name(port),
		       br->name);
		return;
	}
	/* replaced by a new configuration in the same bridge */
	if (tp_rcu_defer(l2_free_members, NULL, lp) < 0) {
		rte_rcu_qsbr_synchronize(tp.qs, RTE_QSBR_THRID_INVALID);
		free(lp);
	}
}

static struct tp_port_mode l2_mode = {
    .name = "l2",
    .usage = L2_PORT_USAGE,
    .help = "a member of an L2 bridge: access port in one VLAN, or an 802.1Q trunk",
    .input = l2_input,
    .attach = l2_attach,
    .detach = l2_detach,
};
TP_PORT_MODE_REGISTER(l2_mode)
void l2_bridge_apply(struct l2_bridge *br, const struct l2_bridge_opts *o)
{
	if (o->has_aging)
		br->aging_s = (uint32_t)o->aging;
	if (o->has_mac_limit) {
		br->mac_limit = (uint32_t)o->mac_limit;
		l2_set_bridge_flag(br->id);
	}
	if (o->has_bpdu)
		__atomic_store_n(&br->bpdu, o->bpdu, __ATOMIC_RELAXED);
	l2_stp_apply(br, o);
}

int l2_bridge_add(const char *name, const struct l2_bridge_opts *o, struct l2_bridge **out)
{
	struct l2_bridge *br;
	unsigned int i;

	if (l2_bridge_by_name(name))
		return -EEXIST;
	for (i = 0; i < L2_BRIDGES_MAX && l2_bridges[i].used; i++)
		;
	if (i == L2_BRIDGES_MAX)
		return -ENOSPC;
	br = &l2_bridges[i];
	memset(br, 0, sizeof(*br));
	br->id = (uint16_t)i;
	snprintf(br->name, sizeof(br->name), "%s", name);
	if ((br->members = calloc(1, sizeof(struct l2_members))) == NULL)
		return -ENOMEM;
	if (l2_stp_new(br) < 0) {
		free(br->members);
		br->members = NULL;
		return -ENOMEM;
	}
	l2_mac_bridge_new(br->id);
	br->used = true;
	l2_n_bridges++;
	l2_bridge_apply(br, o);
	l2_set_bridge_flags(); /* the fair share is smaller */
	*out = br;
	return 0;
}

int l2_bridge_del(struct l2_bridge *br)
{
	if (br->members && br->members->n_all)
		return -EBUSY;
	l2_mac_flush(br->id, L2_NO_PORT, true);
	l2_stp_free(br);
	br->used = false;
	l2_n_bridges--;
	l2_set_bridge_flags(); /* the fair share is larger */
	if (tp_rcu_defer(l2_free_members, br->members, NULL) < 0)
		free(br->members);
	br->members = NULL;
	return 0;
}
