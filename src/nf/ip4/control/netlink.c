/* SPDX-License-Identifier: BSD-3-Clause */
/* rtnetlink with libmnl: dump, live updates, overrun resync, and kernel writes. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/if_addr.h>
#include <linux/neighbour.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>

#include "../../../core/log.h"
#include "../../../proto/ip4.h"
#include "../../../tables/iface.h"
#include "neigh.h"
#include "nexthop.h"
#include "route.h"
#include "../../../control/control.h"
#include "netlink.h"
#include "../ip4.h"
#include "../../../control/port.h"
#include "../../../control/timer.h"

/* The router's per-port addresses (ip4.h); this mirror is their only writer. */
struct tp_ip4_port tp_ip4_ports[TP_MAX_PORTS];

struct tp_nl_stats tp_nl_stats;

static struct mnl_socket *ev_sk;  /* multicast groups: live updates */
static struct mnl_socket *req_sk; /* dumps and writes */
static uint32_t req_seq;
static uint32_t gen = 1;	     /* resync generation */
static struct tp_timer resync_timer; /* a resync that failed, tried again */
static uint64_t resync_backoff_ms;   /* 0: the last resync worked */
static unsigned int pass_budget = TP_NL_PASS_BUDGET;

#define RESYNC_BACKOFF_MIN_MS 100
#define RESYNC_BACKOFF_MAX_MS 5000
#define RETRY_SOON_MS 10     /* after space freed */
#define RETRY_PERIOD_MS 1000 /* while routes wait (freed tbl8 groups wait for RCU) */
#define RETRY_BUDGET 256

/* A family's unfit routes, tried again on their own timer: ip4's, and IPv6's through
 * its ops while it is registered (NULL functions: none). */
struct retrier {
	bool (*wanted)(void);			    /* room freed since the last retry */
	unsigned int (*retry)(unsigned int budget); /* try up to budget of them again */
	unsigned int (*pending)(void);		    /* how many wait */
	struct tp_timer timer;
};
static struct retrier retry4 = {
    .wanted = tp_route_retry_wanted, .retry = tp_route_retry, .pending = tp_route_unfit_count};
static struct retrier retry6;

#define ATTR_MAX 64 /* the attribute tables' size: types 0..63 */

static int attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	uint16_t type = mnl_attr_get_type(a);

	/* mnl_attr_type_valid(a, max) takes max itself as valid: tb[64] was written past
	 * the table (found by fuzz_netlink) */
	if (type < ATTR_MAX)
		tb[type] = a;
	return MNL_CB_OK;
}

/* A 4-byte attribute's value in *v; false when a is absent or not 4 bytes long. */
static bool attr_u32(const struct nlattr *a, uint32_t *v)
{
	if (a == NULL || mnl_attr_validate(a, MNL_TYPE_U32) < 0)
		return false;
	*v = mnl_attr_get_u32(a);
	return true;
}

/* An IPv4 address attribute (network order on the wire) in host order. */
static bool attr_ip(const struct nlattr *a, uint32_t *ip)
{
	if (!attr_u32(a, ip))
		return false;
	*ip = ntohl(*ip);
	return true;
}

/* The message's family header, or NULL when the payload is shorter than one. */
static const void *msg_head(const struct nlmsghdr *nlh, size_t len)
{
	return mnl_nlmsg_get_payload_len(nlh) >= len ? mnl_nlmsg_get_payload(nlh) : NULL;
}

/* --- addresses: kept on the port for show, primary one in the interface table --- */
static void addr_msg(const struct nlmsghdr *nlh)
{
	const struct ifaddrmsg *ifa = msg_head(nlh, sizeof(*ifa));
	const struct nlattr *tb[ATTR_MAX] = {0};
	struct tp_port *p;
	uint32_t ip;

	if (ifa == NULL || ifa->ifa_family != AF_INET || ifa->ifa_prefixlen > 32 ||
	    (p = tp_port_by_ifindex((int)ifa->ifa_index)) == NULL)
		return;
	mnl_attr_parse(nlh, sizeof(*ifa), attr_cb, tb);
	if (!attr_ip(tb[IFA_LOCAL] ? tb[IFA_LOCAL] : tb[IFA_ADDRESS], &ip))
		return;
	unsigned int i = 0;
	while (i < p->n_addrs && !(p->addrs[i].ip == ip && p->addrs[i].depth == ifa->ifa_prefixlen))
		i++;
	if (nlh->nlmsg_type == RTM_NEWADDR && i == p->n_addrs && i < TP_PORT_MAX_ADDRS) {
		p->addrs[p->n_addrs++] = (struct tp_port_addr){ip, ifa->ifa_prefixlen};
	} else if (nlh->nlmsg_type == RTM_DELADDR && i < p->n_addrs) {
		p->addrs[i] = p->addrs[--p->n_addrs];
	}
	tp_ip4_port_addr_set(p->id, p->n_addrs ? p->addrs[0].ip : 0,
			     p->n_addrs ? p->addrs[0].depth : 0);
}

/* --- nexthop objects (RTM_NEWNEXTHOP): kept to follow their groups --- */
/* The kernel announces a route of a nexthop object with the object's next hops
 * expanded (RTA_MULTIPATH) while net.ipv4.nexthop_compat_mode is 1, but not again
 * when a member leaves the group (ip nexthop del): the group's routes follow its
 * RTM_NEWNEXTHOP / RTM_DELNEXTHOP here. Found by id, a linear search: at most NHO_MAX
 * objects (more are counted in nexthops_ignored). */
#define NHO_MAX 4096

struct nho {
	uint32_t id;
	uint32_t gw; /* one next hop: its gateway (host order), 0 for none */
	int ifindex;
	uint8_t dead;
	uint16_t n;		 /* a group: its members */
	struct nexthop_grp *grp; /* malloc'd, n entries */
};

static struct nho nhos[NHO_MAX];
static unsigned int n_nhos;

static struct nho *nho_find(uint32_t id)
{
	for (unsigned int i = 0; i < n_nhos; i++)
		if (nhos[i].id == id)
			return &nhos[i];
	return NULL;
}

static void nho_forget(struct nho *o)
{
	free(o->grp);
	*o = nhos[--n_nhos];
}

static void nho_clear(void)
{
	while (n_nhos > 0)
		nho_forget(&nhos[n_nhos - 1]);
}

/* A group's members as route hops: how many, or -1 when one is unknown, without a
 * gateway or not on one of our ports (the routes of the group are then not ours). */
static int nho_hops(const struct nho *g, struct tp_route_hop *hops)
{
	int n = 0;

	for (unsigned int i = 0; i < g->n && n < TP_NL_MAX_HOPS; i++) {
		const struct nho *m = nho_find(g->grp[i].id);
		struct tp_port *p;
		if (m == NULL || m->n > 0 || m->gw == 0 ||
		    (p = tp_port_by_ifindex(m->ifindex)) == NULL)
			return -1;
		/* the weight's low byte, and its high byte in what older headers call resvd1
		 * (Linux 6.12), minus one */
		uint32_t w = ((uint32_t)g->grp[i].resvd1 << 8 | g->grp[i].weight) + 1;
		hops[n++] = (struct tp_route_hop){.gw = m->gw,
						  .port = p->id,
						  .weight = (uint16_t)RTE_MIN(w, 256u),
						  .dead = m->dead};
	}
	return n;
}

/* Group g changed: its routes get its hops now (none: they go). */
static void nho_group_apply(const struct nho *g)
{
	struct tp_route_hop hops[TP_NL_MAX_HOPS];
	int n = nho_hops(g, hops);

	/* a member not known (yet: a dump may list a group before its members) or not
	 * ours: its routes stay as they are until the kernel announces them */
	if (n >= 0)
		tp_route_nhid_update(g->id, hops, (unsigned int)n);
}

static void nexthop_msg(const struct nlmsghdr *nlh)
{
	const struct nhmsg *nhm = msg_head(nlh, sizeof(*nhm));
	const struct nlattr *tb[ATTR_MAX] = {0};
	uint32_t id = 0, gw = 0, oif = 0;
	struct nho *o;

	if (nhm == NULL || (nhm->nh_family != AF_INET && nhm->nh_family != AF_UNSPEC))
		return;
	mnl_attr_parse(nlh, sizeof(*nhm), attr_cb, tb);
	if (!attr_u32(tb[NHA_ID], &id) || id == 0)
		return;
	o = nho_find(id);
	if (nlh->nlmsg_type == RTM_DELNEXTHOP) {
		if (o == NULL)
			return;
		nho_forget(o);
		/* as the kernel does: out of every group, whose routes follow */
		for (unsigned int i = 0; i < n_nhos; i++) {
			struct nho *g = &nhos[i];
			unsigned int k = 0;
			for (unsigned int j = 0; j < g->n; j++)
				if (g->grp[j].id != id)
					g->grp[k++] = g->grp[j];
			if (k != g->n) {
				g->n = (uint16_t)k;
				nho_group_apply(g);
			}
		}
		tp_route_nhid_update(id, NULL, 0);
		return;
	}
	if (o == NULL) {
		if (n_nhos == NHO_MAX) {
			tp_nl_stats.nexthops_ignored++;
			return;
		}
		o = &nhos[n_nhos++];
		*o = (struct nho){.id = id};
	}
	free(o->grp);
	o->grp = NULL;
	o->n = 0;
	attr_ip(tb[NHA_GATEWAY], &gw);
	attr_u32(tb[NHA_OIF], &oif);
	o->gw = gw;
	o->ifindex = (int)oif;
	o->dead = (nhm->nh_flags & RTNH_F_DEAD) != 0;
	if (tb[NHA_GROUP] != NULL) {
		size_t len = mnl_attr_get_payload_len(tb[NHA_GROUP]);
		unsigned int n = (unsigned int)(len / sizeof(struct nexthop_grp));
		if (n > TP_NL_MAX_HOPS)
			n = TP_NL_MAX_HOPS;
		if (n > 0 && (o->grp = malloc(n * sizeof(*o->grp))) != NULL) {
			memcpy(o->grp, mnl_attr_get_payload(tb[NHA_GROUP]), n * sizeof(*o->grp));
			o->n = (uint16_t)n;
		}
		nho_group_apply(o);
		return;
	}
	/* a member changed (replaced, dead or alive): the groups holding it follow */
	for (unsigned int i = 0; i < n_nhos; i++)
		for (unsigned int j = 0; j < nhos[i].n; j++)
			if (nhos[i].grp[j].id == id) {
				nho_group_apply(&nhos[i]);
				break;
			}
}

/* --- routes --- */
/* The next hops of an RTA_MULTIPATH attribute (struct rtnexthop each, its attributes
 * after it; rtnetlink(7)) into hops[0..TP_NL_MAX_HOPS): how many, or -1 when one is
 * malformed, has no gateway, is on a device that is not one of our ports, or there
 * are more than TP_NL_MAX_HOPS (the route is then not ours to mirror: the kernel
 * forwards its traffic when the data plane punts it, as for any route it ignores). */
static int multipath_parse(const struct nlattr *mp, struct tp_route_hop *hops)
{
	const uint8_t *at = mnl_attr_get_payload(mp);
	size_t room = mnl_attr_get_payload_len(mp);
	int n = 0;

	while (room >= sizeof(struct rtnexthop)) {
		const struct rtnexthop *nh = (const void *)at;
		const struct nlattr *ntb[ATTR_MAX] = {0};
		struct tp_port *p;
		uint32_t gw = 0;

		if (nh->rtnh_len < sizeof(*nh) || nh->rtnh_len > room || n == TP_NL_MAX_HOPS)
			return -1;
		if (mnl_attr_parse_payload(RTNH_DATA(nh), nh->rtnh_len - sizeof(*nh), attr_cb,
					   ntb) < 0 ||
		    !attr_ip(ntb[RTA_GATEWAY], &gw) || gw == 0 ||
		    (p = tp_port_by_ifindex(nh->rtnh_ifindex)) == NULL)
			return -1;
		hops[n++] = (struct tp_route_hop){
		    .gw = gw,
		    .port = p->id,
		    .weight = (uint16_t)(nh->rtnh_hops + 1), /* rtnh_hops: weight - 1 */
		    .dead = (nh->rtnh_flags & RTNH_F_DEAD) != 0,
		};
		size_t step = RTNH_ALIGN((size_t)nh->rtnh_len);
		at += step;
		room = room > step ? room - step : 0;
	}
	return n;
}

static void route_msg(const struct nlmsghdr *nlh)
{
	const struct rtmsg *rtm = msg_head(nlh, sizeof(*rtm));
	const struct nlattr *tb[ATTR_MAX] = {0};
	uint32_t table, dst = 0, gw = 0, oif = 0, metric = 0;
	struct tp_port *p;
	enum tp_route_type type;

	if (rtm == NULL || rtm->rtm_family != AF_INET)
		return;
	if (rtm->rtm_dst_len > 32) { /* not an IPv4 prefix */
		tp_nl_stats.routes_ignored++;
		return;
	}
	mnl_attr_parse(nlh, sizeof(*rtm), attr_cb, tb);
	if (!attr_u32(tb[RTA_TABLE], &table))
		table = rtm->rtm_table;
	if (table != RT_TABLE_MAIN && table != RT_TABLE_LOCAL)
		return;
	if (rtm->rtm_tos != 0) { /* for packets of that TOS only: the kernel's to apply */
		tp_nl_stats.routes_ignored++;
		return;
	}
	attr_u32(tb[RTA_PRIORITY], &metric);
	attr_ip(tb[RTA_DST], &dst);
	attr_u32(tb[RTA_OIF], &oif);
	attr_ip(tb[RTA_GATEWAY], &gw);
	struct tp_route_hop hops[TP_NL_MAX_HOPS];
	int n_hops = 0;
	uint32_t nhid = 0;
	attr_u32(tb[RTA_NH_ID], &nhid);
	const struct nho *obj = nhid ? nho_find(nhid) : NULL;
	if (obj != NULL && !tb[RTA_MULTIPATH] && gw == 0 && oif == 0) {
		/* an object's route not expanded (nexthop_compat_mode 0): ours to expand */
		if (obj->n > 0 && (n_hops = nho_hops(obj, hops)) <= 0) {
			if (nlh->nlmsg_type == RTM_NEWROUTE)
				tp_nl_stats.routes_ignored++;
			return;
		}
		if (obj->n == 0) {
			gw = obj->gw;
			oif = (uint32_t)obj->ifindex;
		}
	}
	if (tb[RTA_MULTIPATH] && oif == 0 && rtm->rtm_type == RTN_UNICAST &&
	    (n_hops = multipath_parse(tb[RTA_MULTIPATH], hops)) <= 0) {
		if (nlh->nlmsg_type == RTM_NEWROUTE)
			tp_nl_stats.routes_ignored++;
		return;
	}
	switch (rtm->rtm_type) {
	case RTN_UNICAST:
		type = n_hops > 0 ? TP_ROUTE_MULTIPATH : gw ? TP_ROUTE_GATEWAY : TP_ROUTE_CONNECTED;
		break;
	case RTN_LOCAL:
	case RTN_BROADCAST:
		type = TP_ROUTE_LOCAL;
		break;
	/* routes without a port, honoured as the kernel does: were they left out,
	 * a less specific route would forward what the kernel refuses */
	case RTN_BLACKHOLE:
		type = TP_ROUTE_BLACKHOLE;
		break;
	case RTN_UNREACHABLE:
		type = TP_ROUTE_UNREACHABLE;
		break;
	case RTN_PROHIBIT:
		type = TP_ROUTE_PROHIBIT;
		break;
	case RTN_THROW:
		type = TP_ROUTE_THROW;
		break;
	default:
		if (nlh->nlmsg_type == RTM_NEWROUTE)
			tp_nl_stats.routes_ignored++;
		return;
	}
	uint16_t port = TP_ROUTE_NO_PORT;
	if (type <= TP_ROUTE_HOST) {
		p = tp_port_by_ifindex((int)oif);
		if (p == NULL) {
			if (nlh->nlmsg_type == RTM_NEWROUTE)
				tp_nl_stats.routes_ignored++;
			return; /* a delete of it: not one of ours, ours stay */
		}
		port = p->id;
	}
	/* the route as the kernel identifies it: a delete removes exactly that one, and
	 * another route of the prefix (another metric or table) takes its place */
	struct tp_route_path path = {
	    .table = table,
	    .metric = metric,
	    .gw = type == TP_ROUTE_GATEWAY ? gw : 0,
	    .port = port,
	    .type = (uint8_t)type,
	    .gen = gen,
	    .n_hops = (uint16_t)n_hops,
	    .hops = n_hops > 0 ? hops : NULL,
	    .nhid = nhid,
	};
	if (nlh->nlmsg_type == RTM_DELROUTE) {
		tp_route_del_path(dst, rtm->rtm_dst_len, &path);
		return;
	}
	int ret = tp_route_add_path(dst, rtm->rtm_dst_len, &path,
				    (nlh->nlmsg_flags & NLM_F_REPLACE) != 0);
	if (ret < 0) {
		char b[16];
		TP_LOG(WARNING, "route %s/%u: %s", tp_ip4_fmt(dst, b), rtm->rtm_dst_len,
		       strerror(-ret));
	}
}

/* --- neighbours --- */
static void neigh_msg(const struct nlmsghdr *nlh)
{
	const struct ndmsg *nd = msg_head(nlh, sizeof(*nd));
	const struct nlattr *tb[ATTR_MAX] = {0};
	const uint8_t *mac = NULL;
	struct tp_port *p;
	uint32_t ip;
	int nh;

	if (nd == NULL || nd->ndm_family != AF_INET ||
	    (p = tp_port_by_ifindex(nd->ndm_ifindex)) == NULL)
		return;
	mnl_attr_parse(nlh, sizeof(*nd), attr_cb, tb);
	if (!attr_ip(tb[NDA_DST], &ip))
		return;
	if (nlh->nlmsg_type == RTM_NEWNEIGH && tb[NDA_LLADDR] &&
	    mnl_attr_get_payload_len(tb[NDA_LLADDR]) == 6 &&
	    (nd->ndm_state &
	     (NUD_REACHABLE | NUD_STALE | NUD_DELAY | NUD_PROBE | NUD_PERMANENT | NUD_NOARP)))
		mac = mnl_attr_get_payload(tb[NDA_LLADDR]);
	nh = tp_neigh_learn(ip, p->id, mac);
	if (nh >= 0)
		tp_nh_table[nh].gen = gen;
	tp_route_host_update(ip, p->id, nh);
}

/* IPv6's mirror (nf/ip6), when registered. */
static const struct tp_nl_family_ops *v6_ops;

static int msg_cb(const struct nlmsghdr *nlh, void *data)
{
	tp_nl_stats.events++;
	/* ifaddrmsg, rtmsg and ndmsg all start with the family */
	if (v6_ops != NULL && mnl_nlmsg_get_payload_len(nlh) >= 1 &&
	    *(const uint8_t *)mnl_nlmsg_get_payload(nlh) == AF_INET6) {
		switch (nlh->nlmsg_type) {
		case RTM_NEWADDR:
		case RTM_DELADDR:
		case RTM_NEWROUTE:
		case RTM_DELROUTE:
		case RTM_NEWNEIGH:
		case RTM_DELNEIGH:
			v6_ops->msg(nlh, gen);
			break;
		default:
			break;
		}
		return MNL_CB_OK;
	}
	switch (nlh->nlmsg_type) {
	case RTM_NEWADDR:
	case RTM_DELADDR:
		addr_msg(nlh);
		break;
	case RTM_NEWROUTE:
	case RTM_DELROUTE:
		route_msg(nlh);
		break;
	case RTM_NEWNEIGH:
	case RTM_DELNEIGH:
		neigh_msg(nlh);
		break;
	case RTM_NEWNEXTHOP:
	case RTM_DELNEXTHOP:
		nexthop_msg(nlh);
		break;
	default:
		break;
	}
	return MNL_CB_OK;
}

/* How many of len bytes hold whole messages: libmnl takes a length of 2^31 or more
 * for a negative one, so such a message passes its check and the walk jumps far past
 * the buffer (found by fuzz_netlink); a message that does not fit ends the walk. */
static size_t nl_whole(const void *buf, size_t len)
{
	size_t off = 0;

	while (len - off >= sizeof(struct nlmsghdr)) {
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)((const char *)buf + off);
		if (nlh->nlmsg_len < sizeof(*nlh) || nlh->nlmsg_len > len - off)
			break;
		off += RTE_MIN((size_t)MNL_ALIGN(nlh->nlmsg_len), len - off);
	}
	return off;
}

int tp_nl_input(const void *buf, size_t len)
{
	return mnl_cb_run(buf, nl_whole(buf, len), 0, 0, msg_cb, NULL);
}

/* Send one request on req_sk and run its answers through cb until done/ack. */
static int request(struct nlmsghdr *nlh, mnl_cb_t cb)
{
	char buf[MNL_SOCKET_BUFFER_SIZE * 4];
	uint32_t portid = mnl_socket_get_portid(req_sk);
	int ret;

	nlh->nlmsg_seq = ++req_seq;
	if (mnl_socket_sendto(req_sk, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		ret = (int)mnl_socket_recvfrom(req_sk, buf, sizeof(buf));
		if (ret < 0)
			return -errno;
		ret = mnl_cb_run(buf, nl_whole(buf, (size_t)ret), nlh->nlmsg_seq, portid, cb, NULL);
		if (ret <= MNL_CB_STOP)
			return ret < 0 ? -errno : 0;
	}
}

static int dump_family(uint16_t type, size_t hdrlen, uint8_t family)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtgenmsg *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	g = mnl_nlmsg_put_extra_header(nlh, hdrlen);
	g->rtgen_family = family;
	return request(nlh, msg_cb);
}

static int dump(uint16_t type, size_t hdrlen)
{
	return dump_family(type, hdrlen, AF_INET);
}

/* The nexthop objects afresh (before the routes that name them); a kernel without them
 * (before Linux 5.3) refuses the request, which is no failure. */
static int nexthop_dump(void)
{
	int ret;

	nho_clear();
	ret = dump_family(RTM_GETNEXTHOP, sizeof(struct nhmsg), AF_UNSPEC);
	return ret == -EOPNOTSUPP || ret == -EINVAL ? 0 : ret;
}

/* Neighbours the kernel no longer has after a dump: all of them, in batches (the
 * hash is not changed while it is iterated; a forgotten neighbour is no longer
 * learned, so each pass finds the next ones). */
static void neigh_sweep(void)
{
	uint32_t ip, nh, victims[512];
	uint16_t vport[512];
	unsigned int n;

	do {
		uint32_t iter = 0;
		n = 0;
		while (n < RTE_DIM(victims) && tp_neigh_iterate(&iter, &ip, &nh) == 0) {
			if (tp_nh_table[nh].learned && tp_nh_table[nh].gen != gen) {
				vport[n] = tp_nh_table[nh].port;
				victims[n++] = ip;
			}
		}
		for (unsigned int i = 0; i < n; i++) {
			tp_neigh_learn(victims[i], vport[i], NULL);
			tp_route_host_update(victims[i], vport[i], -ENOENT);
		}
		tp_nl_stats.neigh_swept += n;
	} while (n == RTE_DIM(victims));
}

/* Unfit routes tried again soon when space was freed. */
static void retry_check(void)
{
	struct retrier *const all[] = {&retry4, &retry6};

	for (unsigned int i = 0; i < RTE_DIM(all); i++) {
		struct retrier *r = all[i];
		if (r->wanted != NULL && r->wanted() &&
		    (!r->timer.armed || r->timer.due_ms > tp_ctl_now_ms() + RETRY_SOON_MS))
			tp_timer_arm(&r->timer, RETRY_SOON_MS);
	}
}

int tp_nl_resync(void)
{
	struct tp_port *p;
	unsigned int it = 0;
	int ret;

	gen++;
	while ((p = tp_port_next(&it)) != NULL)
		p->n_addrs = 0;
	if ((ret = dump(RTM_GETADDR, sizeof(struct ifaddrmsg))) < 0 ||
	    (ret = dump(RTM_GETNEIGH, sizeof(struct ndmsg))) < 0 || (ret = nexthop_dump()) < 0 ||
	    (ret = dump(RTM_GETROUTE, sizeof(struct rtmsg))) < 0 ||
	    (v6_ops != NULL &&
	     ((ret = dump_family(RTM_GETADDR, sizeof(struct ifaddrmsg), AF_INET6)) < 0 ||
	      (ret = dump_family(RTM_GETNEIGH, sizeof(struct ndmsg), AF_INET6)) < 0 ||
	      (ret = dump_family(RTM_GETROUTE, sizeof(struct rtmsg), AF_INET6)) < 0))) {
		/* the tables may be stale (a half dump sweeps nothing): again later, each
		 * time waiting twice as long, up to 5 s */
		resync_backoff_ms =
		    resync_backoff_ms ? resync_backoff_ms * 2 : RESYNC_BACKOFF_MIN_MS;
		if (resync_backoff_ms > RESYNC_BACKOFF_MAX_MS)
			resync_backoff_ms = RESYNC_BACKOFF_MAX_MS;
		tp_nl_stats.resync_failures++;
		TP_LOG(ERR, "netlink dump: %s; resync again in %" PRIu64 " ms", strerror(-ret),
		       resync_backoff_ms);
		tp_timer_arm(&resync_timer, resync_backoff_ms);
		return ret;
	}
	neigh_sweep();
	tp_route_sweep(gen);
	if (v6_ops != NULL)
		v6_ops->sweep(gen);
	tp_nl_stats.resyncs++;
	resync_backoff_ms = 0;
	tp_timer_cancel(&resync_timer);
	retry_check();
	return 0;
}

/* After an overrun: empty the event queue, at most DRAIN_BUDGET reads a pass (a
 * kernel that keeps sending must not hold the control thread), then resync. The
 * kernel reports the next loss only once the queue has been empty
 * (NETLINK_S_CONGESTED), so events lost after the dump but before that would go
 * unnoticed: the dump waits for the empty queue. true once it is empty. */
#define DRAIN_BUDGET 1024
static bool draining;

static bool drain(int fd, char *buf, size_t len)
{
	for (unsigned int k = 0; k < DRAIN_BUDGET; k++)
		if (recv(fd, buf, len, MSG_DONTWAIT) <= 0 && errno != ENOBUFS)
			return true;
	tp_nl_stats.drain_passes++;
	return false;
}

/* At most pass_budget messages a pass: the socket stays readable and the next pass
 * (after the other fds, pollers and timers) goes on. */
static void ev_readable(int fd, void *arg)
{
	char buf[MNL_SOCKET_BUFFER_SIZE * 8];
	uint64_t start = tp_nl_stats.events;

	if (draining) {
		if (!drain(fd, buf, sizeof(buf)))
			return; /* the next pass goes on */
		draining = false;
		tp_nl_resync();
		retry_check();
		return;
	}
	for (;;) {
		if (tp_nl_stats.events - start >= pass_budget) {
			tp_nl_stats.passes_capped++;
			break;
		}
		struct sockaddr_nl from;
		socklen_t flen = sizeof(from);
		ssize_t n =
		    recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &flen);
		if (n < 0) {
			if (errno == ENOBUFS) {
				/* we lost events: the tables may be stale, start over. First
				 * empty the queue: the kernel reports the next loss only once
				 * the queue has been empty (NETLINK_S_CONGESTED), so events
				 * lost after the dump but before that would go unnoticed. */
				tp_nl_stats.overruns++;
				TP_LOG(WARNING, "netlink overrun, full resync");
				if (!drain(fd, buf, sizeof(buf))) {
					draining = true; /* the next passes go on, then resync */
					break;
				}
				tp_nl_resync();
				break; /* a dump was this pass's work */
			}
			break;
		}
		/* the kernel's only (as FRR's netlink_parse_info): a privileged process may
		 * also send to our socket */
		if (flen < sizeof(from) || from.nl_family != AF_NETLINK || from.nl_pid != 0) {
			tp_nl_stats.foreign++;
			continue;
		}
		tp_nl_input(buf, (size_t)n);
	}
	retry_check();
}

void tp_nl_drain(void)
{
	if (ev_sk == NULL)
		return;
	unsigned int b = pass_budget;
	uint64_t before;
	pass_budget = UINT32_MAX;
	do {
		before = tp_nl_stats.events + tp_nl_stats.overruns;
		ev_readable(mnl_socket_get_fd(ev_sk), NULL);
	} while (tp_nl_stats.events + tp_nl_stats.overruns != before);
	pass_budget = b;
}

void tp_nl_set_pass_budget(unsigned int messages)
{
	pass_budget = messages ? messages : 1;
}

static void resync_due(struct tp_timer *t)
{
	tp_nl_resync();
}

static void retry_due(struct tp_timer *t)
{
	struct retrier *r = t->arg;

	if (r->retry == NULL)
		return;
	r->retry(RETRY_BUDGET);
	if (r->pending() > 0)
		tp_timer_arm(t, r->wanted() ? RETRY_SOON_MS : RETRY_PERIOD_MS);
}

int tp_nl_set_rcvbuf(int bytes)
{
	if (ev_sk == NULL)
		return -ENOTCONN;
	if (setsockopt(mnl_socket_get_fd(ev_sk), SOL_SOCKET, SO_RCVBUFFORCE, &bytes,
		       sizeof(bytes)) < 0)
		return -errno;
	return 0;
}

int tp_nl_init(void)
{
	int rcvbuf = 8 << 20;

	tp_timer_init(&resync_timer, "netlink-resync", resync_due, NULL);
	tp_timer_init(&retry4.timer, "route-retry", retry_due, &retry4);
	tp_timer_init(&retry6.timer, "route6-retry", retry_due, &retry6);

	ev_sk = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC | SOCK_NONBLOCK);
	req_sk = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	if (ev_sk == NULL || req_sk == NULL)
		goto fail;
	/* a dump's datagrams come at once; a kernel that stops answering fails the dump
	 * (a resync again later, with backoff) instead of holding the control thread */
	struct timeval tv = {.tv_sec = TP_NL_REQUEST_TIMEOUT_MS / 1000,
			     .tv_usec = TP_NL_REQUEST_TIMEOUT_MS % 1000 * 1000};
	if (setsockopt(mnl_socket_get_fd(req_sk), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		goto fail;
	if (mnl_socket_bind(ev_sk,
			    RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_NEIGH,
			    MNL_SOCKET_AUTOPID) < 0 ||
	    mnl_socket_bind(req_sk, 0, MNL_SOCKET_AUTOPID) < 0)
		goto fail;
	/* nexthop objects and their groups (a group beyond the 32 of the bind mask) */
	int grp = RTNLGRP_NEXTHOP;
	if (mnl_socket_setsockopt(ev_sk, NETLINK_ADD_MEMBERSHIP, &grp, sizeof(grp)) < 0)
		TP_LOG(WARNING,
		       "netlink: no nexthop object events (%s): groups changed by 'ip "
		       "nexthop' are followed at the next resync only",
		       strerror(errno));
	tp_nl_set_rcvbuf(rcvbuf);
	if (tp_ctl_add_fd(mnl_socket_get_fd(ev_sk), ev_readable, NULL) < 0)
		goto fail;
	return 0;
fail:
	TP_LOG(ERR, "netlink: %s", strerror(errno));
	tp_nl_fini();
	return -errno;
}

int tp_nl_family_register(uint8_t family, const struct tp_nl_family_ops *ops,
			  const unsigned int *groups, unsigned int n_groups)
{
	if (family != AF_INET6 || ops == NULL || ops->msg == NULL || ops->sweep == NULL)
		return -EINVAL;
	if (v6_ops != NULL)
		return -EEXIST;
	if (ev_sk == NULL)
		return -ENOTCONN;
	for (unsigned int i = 0; i < n_groups; i++) {
		unsigned int g = groups[i];
		if (mnl_socket_setsockopt(ev_sk, NETLINK_ADD_MEMBERSHIP, &g, sizeof(g)) < 0)
			return -errno;
	}
	v6_ops = ops;
	if (ops->retry_wanted != NULL && ops->retry != NULL && ops->unfit_count != NULL) {
		retry6.wanted = ops->retry_wanted;
		retry6.retry = ops->retry;
		retry6.pending = ops->unfit_count;
	}
	return 0;
}

void tp_nl_family_unregister(uint8_t family)
{
	if (family != AF_INET6)
		return;
	v6_ops = NULL;
	tp_timer_cancel(&retry6.timer);
	retry6.wanted = NULL;
	retry6.retry = NULL;
	retry6.pending = NULL;
}

void tp_nl_fini(void)
{
	tp_timer_cancel(&resync_timer);
	tp_timer_cancel(&retry4.timer);
	tp_timer_cancel(&retry6.timer);
	if (ev_sk) {
		tp_ctl_del_fd(mnl_socket_get_fd(ev_sk));
		mnl_socket_close(ev_sk);
	}
	if (req_sk)
		mnl_socket_close(req_sk);
	ev_sk = req_sk = NULL;
	nho_clear();
}

/* --- writes --- */
int tp_nl_write(struct nlmsghdr *nlh)
{
	return request(nlh, NULL);
}

/* The one writer of rtnetlink address, route and neighbour requests, for both
 * families: addresses are 4 (AF_INET) or 16 (AF_INET6) bytes in network order. */
static size_t af_len(uint8_t af)
{
	return af == AF_INET6 ? 16 : 4;
}

int tp_nl_addr_af(uint8_t af, bool add, int ifindex, const void *ip, uint8_t depth, const void *brd,
		  uint8_t ifa_flags)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifaddrmsg *ifa;

	nlh->nlmsg_type = add ? RTM_NEWADDR : RTM_DELADDR;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (add ? NLM_F_CREATE | NLM_F_EXCL : 0);
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = af;
	ifa->ifa_prefixlen = depth;
	ifa->ifa_flags = ifa_flags;
	ifa->ifa_scope = RT_SCOPE_UNIVERSE;
	ifa->ifa_index = (uint32_t)ifindex;
	mnl_attr_put(nlh, IFA_LOCAL, af_len(af), ip);
	mnl_attr_put(nlh, IFA_ADDRESS, af_len(af), ip);
	if (brd)
		mnl_attr_put(nlh, IFA_BROADCAST, af_len(af), brd);
	return request(nlh, NULL);
}

int tp_nl_route_af(uint8_t af, bool add, const void *dst, uint8_t depth, const void *gw,
		   int ifindex, uint8_t rtn_type, uint8_t scope)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtmsg *rtm;

	nlh->nlmsg_type = add ? RTM_NEWROUTE : RTM_DELROUTE;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (add ? NLM_F_CREATE | NLM_F_EXCL : 0);
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = af;
	rtm->rtm_dst_len = depth;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = RTPROT_STATIC;
	rtm->rtm_scope = add ? scope : RT_SCOPE_NOWHERE;
	rtm->rtm_type = add ? rtn_type : 0;
	mnl_attr_put(nlh, RTA_DST, af_len(af), dst);
	if (gw)
		mnl_attr_put(nlh, RTA_GATEWAY, af_len(af), gw);
	if (ifindex)
		mnl_attr_put_u32(nlh, RTA_OIF, (uint32_t)ifindex);
	return request(nlh, NULL);
}

int tp_nl_neigh_af(uint8_t af, bool add, int ifindex, const void *ip, const uint8_t *mac)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ndmsg *nd;

	nlh->nlmsg_type = add ? RTM_NEWNEIGH : RTM_DELNEIGH;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (add ? NLM_F_CREATE | NLM_F_REPLACE : 0);
	nd = mnl_nlmsg_put_extra_header(nlh, sizeof(*nd));
	nd->ndm_family = af;
	nd->ndm_ifindex = ifindex;
	nd->ndm_state = NUD_PERMANENT;
	mnl_attr_put(nlh, NDA_DST, af_len(af), ip);
	if (add && mac)
		mnl_attr_put(nlh, NDA_LLADDR, 6, mac);
	return request(nlh, NULL);
}

int tp_nl_addr(bool add, int ifindex, uint32_t ip, uint8_t depth)
{
	uint32_t be = htonl(ip), brd = htonl(ip | (uint32_t)(0xffffffffull >> depth));

	return tp_nl_addr_af(AF_INET, add, ifindex, &be, depth, add && depth < 31 ? &brd : NULL, 0);
}

int tp_nl_route(bool add, uint32_t ip, uint8_t depth, uint32_t gw, int ifindex, uint8_t rtn_type)
{
	uint32_t dst_be = htonl(ip), gw_be = htonl(gw);

	return tp_nl_route_af(AF_INET, add, &dst_be, depth, gw ? &gw_be : NULL, ifindex, rtn_type,
			      gw || rtn_type != RTN_UNICAST ? RT_SCOPE_UNIVERSE : RT_SCOPE_LINK);
}

int tp_nl_neigh(bool add, int ifindex, uint32_t ip, const uint8_t *mac)
{
	uint32_t be = htonl(ip);

	return tp_nl_neigh_af(AF_INET, add, ifindex, &be, mac);
}
