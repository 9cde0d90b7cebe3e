/* SPDX-License-Identifier: BSD-3-Clause */
/* The sync manager's netlink parser (tp_nl_input) on crafted datagrams: the messages
 * fuzz_netlink found that read or wrote past their bounds (each at the end of a page
 * followed by an inaccessible one, or, built with ASan, in an exact-size heap block),
 * and the tables they leave. Two ports behind TAPs of ifindex 3 and 2, as in the fuzz target. */
#include <arpa/inet.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>
#include <rte_lpm.h>

#include "../../src/nf/ip4/control/netlink.h"
#include "../../src/control/port.h"
#include "../../src/core/rcu.h"
#include "../../src/core/tp.h"
#include "../../src/tables/iface.h"
#include "../../src/nf/ip4/control/neigh.h"
#include "../../src/nf/ip4/control/nexthop.h"
#include "../../src/nf/ip4/control/nhg.h"
#include "../../src/nf/ip4/control/route.h"
#include "../../src/nf/ip4/ip4.h"
#include "eal_fixture.h"

/* src/core/lcore.c's global state and src/control/port.c's lookups (not linked: no
 * lcores, no devices) */
struct tp_global tp;
static struct tp_port ports[2] = {
    {.name = "p0", .id = 0, .tap_ifindex = 3},
    {.name = "p1", .id = 1, .tap_ifindex = 2},
};

struct tp_port *tp_port_by_ifindex(int ifindex)
{
	for (unsigned int i = 0; i < 2; i++)
		if (ports[i].tap_ifindex == ifindex)
			return &ports[i];
	return NULL;
}

struct tp_port *tp_port_next(unsigned int *iter)
{
	return *iter < 2 ? &ports[(*iter)++] : NULL;
}

static uint8_t *page;
static size_t page_len;

/* The datagram's bytes placed to end where the inaccessible page begins (at the
 * next 4-byte boundary: netlink's alignment), or, under AddressSanitizer, in a heap
 * block of their exact size. */
static void input(const void *msg, size_t len)
{
#ifdef __SANITIZE_ADDRESS__
	uint8_t *p = malloc(len);

	memcpy(p, msg, len);
	tp_nl_input(p, len);
	free(p);
#else
	uint8_t *p = page + page_len - ((len + 3) & ~(size_t)3);

	memcpy(p, msg, len);
	tp_nl_input(p, len);
#endif
}

static int setup(void **state)
{
	page_len = (size_t)sysconf(_SC_PAGESIZE);
	page = mmap(NULL, 2 * page_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED || mprotect(page + page_len, page_len, PROT_NONE) != 0)
		return -1;
	if (tp_test_eal_init() < 0 || tp_rcu_init(1) < 0 || tp_nh_init() < 0 ||
	    tp_neigh_init(1024) < 0 || tp_route_init(tp.qs, 1024) < 0)
		return -1;
	return 0;
}

/* A message: header, family header of hlen bytes, attributes appended with put(). */
struct msg {
	uint8_t b[512];
	size_t len;
};

static struct nlmsghdr *msg_start(struct msg *m, uint16_t type, const void *hdr, size_t hlen)
{
	struct nlmsghdr *h = (struct nlmsghdr *)m->b;

	memset(m, 0, sizeof(*m));
	h->nlmsg_type = type;
	memcpy(m->b + sizeof(*h), hdr, hlen);
	m->len = NLMSG_ALIGN(sizeof(*h) + hlen);
	h->nlmsg_len = (uint32_t)m->len;
	return h;
}

static void put(struct msg *m, uint16_t type, const void *val, uint16_t vlen)
{
	struct nlattr a = {.nla_len = (uint16_t)(sizeof(a) + vlen), .nla_type = type};

	memcpy(m->b + m->len, &a, sizeof(a));
	memcpy(m->b + m->len + sizeof(a), val, vlen);
	m->len += NLA_ALIGN(a.nla_len);
	((struct nlmsghdr *)m->b)->nlmsg_len = (uint32_t)m->len;
}

static void put_ip(struct msg *m, uint16_t type, uint32_t ip_host)
{
	uint32_t v = htonl(ip_host);
	put(m, type, &v, 4);
}

#define IP(a, b, c, d) (((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))

static int route_present(uint32_t ip, uint8_t depth)
{
	uint32_t it = 0;
	const struct tp_route *r;

	while ((r = tp_route_iterate(&it)) != NULL)
		if (r->ip == ip && r->depth == depth)
			return 1;
	return 0;
}

/* RTM_NEWROUTE 10.7.0.0/16 dev p0 in the main table */
static void route_msg(struct msg *m, uint16_t type, uint8_t depth)
{
	struct rtmsg rtm = {.rtm_family = AF_INET,
			    .rtm_dst_len = depth,
			    .rtm_table = RT_TABLE_MAIN,
			    .rtm_type = RTN_UNICAST};
	uint32_t oif = 3;

	msg_start(m, type, &rtm, sizeof(rtm));
	put_ip(m, RTA_DST, IP(10, 7, 0, 0));
	put(m, RTA_OIF, &oif, 4);
}

/* Found by fuzz_netlink: an attribute of type 64 was stored in tb[64], one past the
 * 64-entry table on the stack (mnl_attr_type_valid(a, 64) takes 64 as valid). It is
 * skipped; the rest of the message counts. (The write is AddressSanitizer's report in
 * test_netlink_asan.) */
static void test_attr_type_64(void **state)
{
	struct msg m;
	uint32_t x = 0x01020304;

	route_msg(&m, RTM_NEWROUTE, 16);
	put(&m, 64, &x, 4);
	put(&m, 63, &x, 4);
	input(m.b, m.len);
	assert_true(route_present(IP(10, 7, 0, 0), 16));
	route_msg(&m, RTM_DELROUTE, 16);
	input(m.b, m.len);
	assert_false(route_present(IP(10, 7, 0, 0), 16));
}

/* Found by fuzz_netlink: libmnl reads a message length of 2^31 or more as negative,
 * so such a message passed its check and the walk jumped gigabytes past the datagram.
 * What comes before it is applied; it and what follows are not. */
static void test_huge_length(void **state)
{
	struct msg m;
	uint8_t dgram[600];
	struct nlmsghdr bad = {.nlmsg_len = 0xfffffff0u, .nlmsg_type = RTM_NEWROUTE};

	route_msg(&m, RTM_NEWROUTE, 16);
	memcpy(dgram, m.b, m.len);
	memcpy(dgram + m.len, &bad, sizeof(bad));
	memset(dgram + m.len + sizeof(bad), 0, 32);
	input(dgram, m.len + sizeof(bad) + 32);
	assert_true(route_present(IP(10, 7, 0, 0), 16));
	route_msg(&m, RTM_DELROUTE, 16);
	input(m.b, m.len);
}

/* A message shorter than its family header, and an address attribute shorter than an
 * address, were read past their end; ignored now. */
static void test_short_header_and_attribute(void **state)
{
	struct msg m;
	struct ifaddrmsg ifa = {.ifa_family = AF_INET, .ifa_prefixlen = 24, .ifa_index = 3};
	uint16_t two = 0x0a00;

	/* 2 bytes of an ifaddrmsg */
	msg_start(&m, RTM_NEWADDR, &ifa, 2);
	((struct nlmsghdr *)m.b)->nlmsg_len = sizeof(struct nlmsghdr) + 2;
	input(m.b, sizeof(struct nlmsghdr) + 2);
	assert_int_equal(ports[0].n_addrs, 0);
	/* IFA_LOCAL of 2 bytes, at the very end of the datagram */
	msg_start(&m, RTM_NEWADDR, &ifa, sizeof(ifa));
	put(&m, IFA_LOCAL, &two, 2);
	input(m.b, m.len - 2); /* the attribute's padding is not sent */
	assert_int_equal(ports[0].n_addrs, 0);
	assert_int_equal(tp_ip4_port_addr(0, NULL), 0);
	/* the same with 4 bytes: the address is taken */
	msg_start(&m, RTM_NEWADDR, &ifa, sizeof(ifa));
	put_ip(&m, IFA_LOCAL, IP(10, 0, 1, 1));
	input(m.b, m.len);
	assert_int_equal(ports[0].n_addrs, 1);
	assert_int_equal(tp_ip4_port_addr(0, NULL), IP(10, 0, 1, 1));
	((struct nlmsghdr *)m.b)->nlmsg_type = RTM_DELADDR;
	input(m.b, m.len);
	assert_int_equal(ports[0].n_addrs, 0);
}

/* A multipath attribute whose first next hop claims fewer bytes than its own header
 * gave the attribute parser a length near 2^64; and a route deletion of depth 40
 * shifted by a negative count (UndefinedBehaviorSanitizer's report). */
static void test_multipath_and_depth(void **state)
{
	struct msg m;
	struct rtmsg rtm = {.rtm_family = AF_INET,
			    .rtm_dst_len = 16,
			    .rtm_table = RT_TABLE_MAIN,
			    .rtm_type = RTN_UNICAST};
	struct rtnexthop nh = {.rtnh_len = 4, .rtnh_ifindex = 2};
	unsigned int ignored = (unsigned int)tp_nl_stats.routes_ignored;

	msg_start(&m, RTM_NEWROUTE, &rtm, sizeof(rtm));
	put_ip(&m, RTA_DST, IP(10, 6, 0, 0));
	put(&m, RTA_MULTIPATH, &nh, sizeof(nh));
	input(m.b, m.len);
	assert_false(route_present(IP(10, 6, 0, 0), 16)); /* no usable next hop: no port */

	route_msg(&m, RTM_DELROUTE, 40);
	input(m.b, m.len);
	route_msg(&m, RTM_NEWROUTE, 40);
	input(m.b, m.len);
	assert_int_equal(tp_route_count(), 0);
	assert_int_equal(tp_nl_stats.routes_ignored, ignored + 3);
}

/* RTM_NEWROUTE/RTM_DELROUTE 10.5.0.0/16 with an RTA_MULTIPATH of n next hops (gateway,
 * ifindex, weight, flags), as the kernel announces `ip route add ... nexthop via A
 * weight 1 nexthop via B weight 3`. */
struct hop {
	uint32_t gw;
	int ifindex;
	uint8_t weight, flags;
};

static void multipath_msg(struct msg *m, uint16_t type, uint16_t flags, const struct hop *h,
			  unsigned int n)
{
	struct rtmsg rtm = {.rtm_family = AF_INET,
			    .rtm_dst_len = 16,
			    .rtm_table = RT_TABLE_MAIN,
			    .rtm_type = RTN_UNICAST};
	uint8_t mp[256];
	size_t len = 0;

	for (unsigned int i = 0; i < n; i++) {
		struct rtnexthop nh = {.rtnh_len = sizeof(nh) + 8,
				       .rtnh_flags = h[i].flags,
				       .rtnh_hops = (uint8_t)(h[i].weight - 1),
				       .rtnh_ifindex = h[i].ifindex};
		struct nlattr a = {.nla_len = 8, .nla_type = RTA_GATEWAY};
		uint32_t gw = htonl(h[i].gw);
		memcpy(mp + len, &nh, sizeof(nh));
		memcpy(mp + len + sizeof(nh), &a, sizeof(a));
		memcpy(mp + len + sizeof(nh) + sizeof(a), &gw, 4);
		len += RTNH_ALIGN(nh.rtnh_len);
	}
	msg_start(m, type, &rtm, sizeof(rtm));
	((struct nlmsghdr *)m->b)->nlmsg_flags = flags;
	put_ip(m, RTA_DST, IP(10, 5, 0, 0));
	put(m, RTA_MULTIPATH, mp, (uint16_t)len);
}

/* The buckets of group gid that hold neighbour gw's next hop. */
static unsigned int buckets_of(uint32_t gid, uint32_t gw)
{
	const struct tp_nhg *g = tp_nhg_get(gid & TP_NHG_ID_MASK);
	int nh = tp_neigh_lookup(gw);
	unsigned int n = 0;

	for (unsigned int b = 0; g != NULL && nh >= 0 && b < TP_NHG_BUCKETS; b++)
		n += g->bucket[b] == (uint32_t)nh;
	return n;
}

/* RTA_MULTIPATH: a next-hop group with the kernel's weights (rtnh_hops + 1); a replace
 * keeps the group (its id) and gives a removed hop's buckets to the others; a dead hop
 * (RTNH_F_DEAD) has none; a delete takes exactly the route of those hops. */
static void test_multipath_group(void **state)
{
	const uint32_t a = IP(10, 0, 1, 2), b = IP(10, 0, 2, 2), c = IP(10, 0, 2, 3);
	struct hop two[] = {{a, 3, 1, 0}, {b, 2, 3, 0}},
		   three[] = {{a, 3, 1, 0}, {b, 2, 3, 0}, {c, 2, 4, 0}};
	const struct tp_route *r;
	struct msg m;

	multipath_msg(&m, RTM_NEWROUTE, 0, two, 2);
	input(m.b, m.len);
	r = tp_route_find(IP(10, 5, 0, 0), 16);
	assert_non_null(r);
	assert_int_equal(r->type, TP_ROUTE_MULTIPATH);
	assert_int_equal(r->n_paths, 1);
	assert_int_equal(r->paths[0].n_hops, 2);
	assert_int_equal(r->paths[0].hops[1].gw, b);
	assert_int_equal(r->paths[0].hops[1].port, 1);
	assert_int_equal(r->paths[0].hops[1].weight, 3);
	assert_true(r->nh & TP_NH_GROUP);
	uint32_t gid = r->nh;
	assert_int_equal(buckets_of(gid, a), TP_NHG_BUCKETS / 4);
	assert_int_equal(buckets_of(gid, b), TP_NHG_BUCKETS * 3 / 4);
	/* a third hop (NLM_F_REPLACE): the same group, weights 1:3:4 */
	multipath_msg(&m, RTM_NEWROUTE, NLM_F_REPLACE, three, 3);
	input(m.b, m.len);
	r = tp_route_find(IP(10, 5, 0, 0), 16);
	assert_int_equal(r->n_paths, 1);
	assert_int_equal(r->nh, gid);
	assert_int_equal(buckets_of(gid, a), TP_NHG_BUCKETS / 8);
	assert_int_equal(buckets_of(gid, c), TP_NHG_BUCKETS / 2);
	/* the kernel marks c dead: its buckets go to the others */
	three[2].flags = RTNH_F_DEAD;
	multipath_msg(&m, RTM_NEWROUTE, NLM_F_REPLACE, three, 3);
	input(m.b, m.len);
	assert_int_equal(buckets_of(gid, c), 0);
	assert_int_equal(buckets_of(gid, a) + buckets_of(gid, b), TP_NHG_BUCKETS);
	/* a delete of another hop set is not this route's; of this one (dead or not) is */
	multipath_msg(&m, RTM_DELROUTE, 0, two, 2);
	input(m.b, m.len);
	assert_true(route_present(IP(10, 5, 0, 0), 16));
	three[2].flags = 0;
	multipath_msg(&m, RTM_DELROUTE, 0, three, 3);
	input(m.b, m.len);
	assert_false(route_present(IP(10, 5, 0, 0), 16));
	tp_rcu_reclaim();
	assert_int_equal(tp_nhg_count(), 0);
}

/* RTM_NEWNEXTHOP / RTM_DELNEXTHOP: one next hop (gateway, ifindex), or a group of
 * (id, weight) members. */
static void nexthop_msg(struct msg *m, uint16_t type, uint32_t id, uint32_t gw, uint32_t oif,
			const struct nexthop_grp *grp, unsigned int n)
{
	struct nhmsg nhm = {.nh_family = grp ? AF_UNSPEC : AF_INET};

	msg_start(m, type, &nhm, sizeof(nhm));
	put(m, NHA_ID, &id, 4);
	if (grp != NULL) {
		put(m, NHA_GROUP, grp, (uint16_t)(n * sizeof(*grp)));
		return;
	}
	if (gw)
		put_ip(m, NHA_GATEWAY, gw);
	if (oif)
		put(m, NHA_OIF, &oif, 4);
}

/* Nexthop objects as FRR installs them: a route naming group 9 only (RTA_NH_ID, as the
 * kernel sends it with nexthop_compat_mode 0) is expanded from the objects; a member
 * deleted, then the group's weights changed, change the route's hops in the same group
 * (no route message: the kernel sends none); the group deleted takes the route. */
static void test_nexthop_objects(void **state)
{
	const uint32_t a = IP(10, 0, 1, 2), b = IP(10, 0, 2, 2), c = IP(10, 0, 2, 3);
	struct nexthop_grp g3[] = {{.id = 1}, {.id = 2}, {.id = 3}};
	struct nexthop_grp g2[] = {{.id = 1}, {.id = 2, .weight = 1}};
	struct rtmsg rtm = {.rtm_family = AF_INET,
			    .rtm_dst_len = 16,
			    .rtm_table = RT_TABLE_MAIN,
			    .rtm_type = RTN_UNICAST};
	uint32_t nhid = 9;
	const struct tp_route *r;
	struct msg m;

	nexthop_msg(&m, RTM_NEWNEXTHOP, 1, a, 3, NULL, 0);
	input(m.b, m.len);
	nexthop_msg(&m, RTM_NEWNEXTHOP, 2, b, 2, NULL, 0);
	input(m.b, m.len);
	nexthop_msg(&m, RTM_NEWNEXTHOP, 3, c, 2, NULL, 0);
	input(m.b, m.len);
	nexthop_msg(&m, RTM_NEWNEXTHOP, 9, 0, 0, g3, 3);
	input(m.b, m.len);
	msg_start(&m, RTM_NEWROUTE, &rtm, sizeof(rtm));
	put_ip(&m, RTA_DST, IP(10, 4, 0, 0));
	put(&m, RTA_NH_ID, &nhid, 4);
	input(m.b, m.len);
	r = tp_route_find(IP(10, 4, 0, 0), 16);
	assert_non_null(r);
	assert_int_equal(r->type, TP_ROUTE_MULTIPATH);
	assert_int_equal(r->paths[0].n_hops, 3);
	assert_int_equal(r->paths[0].nhid, 9);
	uint32_t gid = r->nh;
	assert_true(gid & TP_NH_GROUP);
	unsigned int on_a = buckets_of(gid, a), on_b = buckets_of(gid, b);
	assert_int_equal(on_a + on_b + buckets_of(gid, c), TP_NHG_BUCKETS);
	/* ip nexthop del id 3: out of group 9, and of the route's group; a and b keep theirs */
	nexthop_msg(&m, RTM_DELNEXTHOP, 3, 0, 0, NULL, 0);
	input(m.b, m.len);
	r = tp_route_find(IP(10, 4, 0, 0), 16);
	assert_int_equal(r->paths[0].n_hops, 2);
	assert_int_equal(r->nh, gid);
	assert_int_equal(buckets_of(gid, c), 0);
	assert_true(buckets_of(gid, a) >= on_a && buckets_of(gid, b) >= on_b);
	/* ip nexthop replace id 9 group 1/2,2: weights 1 and 2 */
	nexthop_msg(&m, RTM_NEWNEXTHOP, 9, 0, 0, g2, 2);
	input(m.b, m.len);
	assert_int_equal(tp_route_find(IP(10, 4, 0, 0), 16)->paths[0].hops[1].weight, 2);
	assert_int_equal(buckets_of(gid, b), 170); /* 256 * 2 / 3, the rest to a */
	/* the group deleted: its route goes */
	nexthop_msg(&m, RTM_DELNEXTHOP, 9, 0, 0, NULL, 0);
	input(m.b, m.len);
	assert_false(route_present(IP(10, 4, 0, 0), 16));
	/* a route of one next-hop object: through its gateway; the object deleted, it goes */
	nhid = 1;
	msg_start(&m, RTM_NEWROUTE, &rtm, sizeof(rtm));
	put_ip(&m, RTA_DST, IP(10, 4, 0, 0));
	put(&m, RTA_NH_ID, &nhid, 4);
	input(m.b, m.len);
	r = tp_route_find(IP(10, 4, 0, 0), 16);
	assert_non_null(r);
	assert_int_equal(r->type, TP_ROUTE_GATEWAY);
	assert_int_equal(r->gw, a);
	nexthop_msg(&m, RTM_DELNEXTHOP, 1, 0, 0, NULL, 0);
	input(m.b, m.len);
	assert_false(route_present(IP(10, 4, 0, 0), 16));
	tp_rcu_reclaim();
	assert_int_equal(tp_nhg_count(), 0);
}

/* RTM_NEWROUTE/RTM_DELROUTE for 10.8.0.0/16 dev p0 with a metric and an outgoing
 * interface (ifindex 3: p0, 9: not a TAP). */
static void route_msg_metric(struct msg *m, uint16_t type, uint32_t metric, uint32_t oif)
{
	struct rtmsg rtm = {.rtm_family = AF_INET,
			    .rtm_dst_len = 16,
			    .rtm_table = RT_TABLE_MAIN,
			    .rtm_type = RTN_UNICAST};

	msg_start(m, type, &rtm, sizeof(rtm));
	put_ip(m, RTA_DST, IP(10, 8, 0, 0));
	put(m, RTA_OIF, &oif, 4);
	put(m, RTA_PRIORITY, &metric, 4);
}

/* The kernel deletes one of two routes of a prefix (metrics 100 and 200): the other
 * stays (it was removed whatever the kernel deleted, and came back only at the next
 * resync); a delete of a route through an interface that is not ours leaves ours. */
static void test_delete_exactly_the_kernels_route(void **state)
{
	struct msg m;
	const struct tp_route *r;

	route_msg_metric(&m, RTM_NEWROUTE, 200, 3);
	input(m.b, m.len);
	route_msg_metric(&m, RTM_NEWROUTE, 100, 3);
	input(m.b, m.len);
	r = tp_route_find(IP(10, 8, 0, 0), 16);
	assert_non_null(r);
	assert_int_equal(r->n_paths, 2);
	assert_int_equal(r->metric, 100);
	route_msg_metric(&m, RTM_DELROUTE, 100, 3);
	input(m.b, m.len);
	r = tp_route_find(IP(10, 8, 0, 0), 16);
	assert_non_null(r);
	assert_int_equal(r->metric, 200);
	assert_int_equal(r->n_paths, 1);
	route_msg_metric(&m, RTM_DELROUTE, 200, 9); /* same metric, not through a TAP */
	input(m.b, m.len);
	assert_true(route_present(IP(10, 8, 0, 0), 16));
	route_msg_metric(&m, RTM_DELROUTE, 200, 3);
	input(m.b, m.len);
	assert_false(route_present(IP(10, 8, 0, 0), 16));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_attr_type_64),
	    cmocka_unit_test(test_huge_length),
	    cmocka_unit_test(test_short_header_and_attribute),
	    cmocka_unit_test(test_multipath_and_depth),
	    cmocka_unit_test(test_multipath_group),
	    cmocka_unit_test(test_nexthop_objects),
	    cmocka_unit_test(test_delete_exactly_the_kernels_route),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
