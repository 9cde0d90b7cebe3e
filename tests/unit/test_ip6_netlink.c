/* SPDX-License-Identifier: BSD-3-Clause */
/* The IPv6 netlink mirror fed rtnetlink messages as the kernel writes them (built with
 * libmnl): connected, local, gateway and blackhole routes; paths of one prefix in two
 * tables and metrics with the kernel's choice installed and exact deletes; a replace;
 * neighbours and their host routes; a resync's sweep; what is not through a TAP left
 * out. The ports are the test's own (tp_port_by_ifindex wrapped: ifindex 12 and 13). */
#include <errno.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <cmocka.h>
#include <libmnl/libmnl.h>
#include <rte_lpm6.h>

#include "../../src/control/port.h"
#include "../../src/core/rcu.h"
#include "../../src/core/tp.h"
#include "../../src/nf/ip4/control/nexthop.h"
#include "../../src/nf/ip6/control/neigh6.h"
#include "../../src/nf/ip6/control/netlink6.h"
#include "../../src/nf/ip6/control/route6.h"
#include "eal_fixture.h"

struct tp_port *__wrap_tp_port_by_ifindex(int ifindex);
struct tp_port *__wrap_tp_port_by_ifindex(int ifindex)
{
	static struct tp_port ports[2];

	if (ifindex != 12 && ifindex != 13)
		return NULL;
	ports[ifindex - 12].id = (uint16_t)(ifindex - 12);
	return &ports[ifindex - 12];
}

static const uint8_t mac_h2[6] = {2, 0, 0, 0, 2, 2};

/* 2001:db8:<net>::<host> */
static const uint8_t *A(uint16_t net, uint16_t host)
{
	static uint8_t a[8][16];
	static unsigned int i;
	uint8_t *p = a[i++ % 8];

	memset(p, 0, 16);
	p[0] = 0x20, p[1] = 0x01, p[2] = 0x0d, p[3] = 0xb8;
	p[4] = (uint8_t)(net >> 8), p[5] = (uint8_t)net;
	p[14] = (uint8_t)(host >> 8), p[15] = (uint8_t)host;
	return p;
}

static char buf[4096];

/* An RTM_NEWROUTE/DELROUTE as the kernel sends it. */
static void route(uint16_t type, uint16_t flags, const uint8_t *dst, uint8_t len, uint8_t rtn,
		  uint32_t table, uint32_t metric, int oif, const uint8_t *gw, uint32_t gen)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	rtm->rtm_family = AF_INET6;
	rtm->rtm_dst_len = len;
	rtm->rtm_table = table < 256 ? (uint8_t)table : RT_TABLE_UNSPEC;
	rtm->rtm_type = rtn;
	mnl_attr_put_u32(nlh, RTA_TABLE, table);
	if (len)
		mnl_attr_put(nlh, RTA_DST, 16, dst);
	mnl_attr_put_u32(nlh, RTA_PRIORITY, metric);
	if (oif)
		mnl_attr_put_u32(nlh, RTA_OIF, (uint32_t)oif);
	if (gw)
		mnl_attr_put(nlh, RTA_GATEWAY, 16, gw);
	tp_ip6_nl_msg(nlh, gen);
}

static void neigh(uint16_t type, const uint8_t *ip, int ifindex, const uint8_t *mac, uint16_t state,
		  uint32_t gen)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ndmsg *nd = mnl_nlmsg_put_extra_header(nlh, sizeof(*nd));

	nlh->nlmsg_type = type;
	nd->ndm_family = AF_INET6;
	nd->ndm_ifindex = ifindex;
	nd->ndm_state = state;
	mnl_attr_put(nlh, NDA_DST, 16, ip);
	if (mac)
		mnl_attr_put(nlh, NDA_LLADDR, 6, mac);
	tp_ip6_nl_msg(nlh, gen);
}

static void settle(void)
{
	for (int i = 0; i < 10 && tp_route6_pending(); i++)
		tp_route6_poll();
	tp_rcu_reclaim();
}

/* the next hop the data plane gives ip, -1 for none */
static int64_t lookup(const uint8_t *ip)
{
	uint32_t nh;

	settle();
	return rte_lpm6_lookup(tp_route6_reader(), ip, &nh) == 0 ? (int64_t)nh : -1;
}

static int setup(void **state)
{
	if (tp_rcu_init(1) < 0 || tp_nh_init() < 0 || tp_ip6_tables_init(1024, 1024, 512) < 0 ||
	    tp_ip6_nl_init(1024) < 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	tp_ip6_nl_fini();
	tp_rcu_reclaim();
	tp_ip6_tables_fini();
	tp_nh_fini();
	tp_rcu_fini();
	return 0;
}

/* What `ip -6 addr add 2001:db8:1::1/64 dev tp-p0` makes the kernel send (a
 * connected /64 in main, a local /128 in local), a neighbour, a route via it. */
static void test_routes_and_neighbours(void **state)
{
	route(RTM_NEWROUTE, 0, A(1, 0), 64, RTN_UNICAST, RT_TABLE_MAIN, 256, 12, NULL, 1);
	route(RTM_NEWROUTE, 0, A(1, 1), 128, RTN_LOCAL, RT_TABLE_LOCAL, 0, 12, NULL, 1);
	route(RTM_NEWROUTE, 0, A(2, 0), 64, RTN_UNICAST, RT_TABLE_MAIN, 256, 13, NULL, 1);
	/* the multicast route and lo's ::1 are not mirrored */
	uint8_t ff00[16] = {0xff}, lo[16] = {[15] = 1};
	route(RTM_NEWROUTE, 0, ff00, 8, RTN_MULTICAST, RT_TABLE_LOCAL, 256, 12, NULL, 1);
	route(RTM_NEWROUTE, 0, lo, 128, RTN_LOCAL, RT_TABLE_LOCAL, 0, 1, NULL, 1);
	assert_int_equal(tp_ip6_nl_stats.routes_ignored, 2);
	assert_int_equal(lookup(A(1, 7)), TP_NH_CONNECTED);
	assert_int_equal(lookup(A(1, 1)), TP_NH_PUNT);
	assert_int_equal(tp_route6_count(), 3);

	/* a group's entry (the kernel's map to its MAC) is no neighbour: no host route */
	uint8_t mld[16] = {0xff, 0x02, [15] = 0x16};
	uint8_t mld_mac[6] = {0x33, 0x33, 0, 0, 0, 0x16};
	neigh(RTM_NEWNEIGH, mld, 12, mld_mac, NUD_NOARP, 1);
	assert_int_equal(tp_neigh6_lookup(mld, 0), -ENOENT);
	assert_null(tp_route6_find(mld, 128));
	assert_int_equal(tp_ip6_nl_stats.neigh_ignored, 1);
	assert_int_equal(tp_route6_count(), 3);

	/* h2 resolved: its next hop forwards, a /128 points to it */
	neigh(RTM_NEWNEIGH, A(2, 2), 13, mac_h2, NUD_REACHABLE, 1);
	int nh = tp_neigh6_lookup(A(2, 2), 1);
	assert_true(nh >= (int)TP_NH_FIRST);
	assert_int_equal(lookup(A(2, 2)), nh);
	assert_true(tp_nh_l2_flags(tp_nh_l2_load((uint32_t)nh)) & TP_NH_F_RESOLVED);
	/* a route via h2, and a blackhole (through lo: no port needed) */
	route(RTM_NEWROUTE, 0, A(9, 0), 48, RTN_UNICAST, RT_TABLE_MAIN, 1024, 13, A(2, 2), 1);
	route(RTM_NEWROUTE, 0, A(0x66, 0), 48, RTN_BLACKHOLE, RT_TABLE_MAIN, 1024, 1, NULL, 1);
	assert_int_equal(lookup(A(9, 5)), nh);
	assert_int_equal(lookup(A(0x66, 5)), TP_NH_BLACKHOLE);
	/* h2 fails: unresolved (the kernel has it again); the route stays, punting */
	neigh(RTM_NEWNEIGH, A(2, 2), 13, NULL, NUD_FAILED, 1);
	assert_int_equal(lookup(A(2, 2)), TP_NH_CONNECTED); /* its /128 went */
	assert_int_equal(lookup(A(9, 5)), nh);
	assert_false(tp_nh_l2_flags(tp_nh_l2_load((uint32_t)nh)) & TP_NH_F_RESOLVED);
	/* the route goes: the neighbour with it, its next hop freed after a grace period */
	route(RTM_DELROUTE, 0, A(9, 0), 48, RTN_UNICAST, RT_TABLE_MAIN, 1024, 13, A(2, 2), 1);
	assert_int_equal(lookup(A(9, 5)), -1);
	assert_int_equal(tp_neigh6_lookup(A(2, 2), 1), -ENOENT);
	assert_false(tp_nh_table[nh].in_use);
}

/* A prefix with a main-table route of metric 1024 via h2 and one of metric 100 via h3:
 * the lower metric is installed; a local-table route of it wins over both; deletes
 * remove exactly the path named, and one that names none changes nothing; a replace
 * takes the place of the route of its table and metric. */
static void test_paths_exact_deletes(void **state)
{
	const uint8_t *p = A(0x50, 0);
	neigh(RTM_NEWNEIGH, A(2, 2), 13, mac_h2, NUD_REACHABLE, 1);
	neigh(RTM_NEWNEIGH, A(2, 3), 13, mac_h2, NUD_REACHABLE, 1);
	int h2 = tp_neigh6_lookup(A(2, 2), 1), h3 = tp_neigh6_lookup(A(2, 3), 1);

	route(RTM_NEWROUTE, 0, p, 48, RTN_UNICAST, RT_TABLE_MAIN, 1024, 13, A(2, 2), 1);
	route(RTM_NEWROUTE, 0, p, 48, RTN_UNICAST, RT_TABLE_MAIN, 100, 13, A(2, 3), 1);
	assert_int_equal(tp_ip6_nl_paths(p, 48), 2);
	assert_int_equal(lookup(A(0x50, 1)), h3);
	route(RTM_NEWROUTE, 0, p, 48, RTN_UNREACHABLE, RT_TABLE_LOCAL, 2000, 1, NULL, 1);
	assert_int_equal(lookup(A(0x50, 1)), TP_NH_UNREACHABLE);
	/* a delete that names no path: nothing */
	route(RTM_DELROUTE, 0, p, 48, RTN_UNICAST, RT_TABLE_MAIN, 100, 13, A(2, 2), 1);
	assert_int_equal(tp_ip6_nl_paths(p, 48), 3);
	route(RTM_DELROUTE, 0, p, 48, RTN_UNREACHABLE, RT_TABLE_LOCAL, 2000, 1, NULL, 1);
	assert_int_equal(lookup(A(0x50, 1)), h3);
	route(RTM_DELROUTE, 0, p, 48, RTN_UNICAST, RT_TABLE_MAIN, 100, 13, A(2, 3), 1);
	assert_int_equal(lookup(A(0x50, 1)), h2);
	/* NLM_F_REPLACE of the metric 1024 route by one via h3 */
	route(RTM_NEWROUTE, NLM_F_REPLACE, p, 48, RTN_UNICAST, RT_TABLE_MAIN, 1024, 13, A(2, 3), 1);
	assert_int_equal(tp_ip6_nl_paths(p, 48), 1);
	assert_int_equal(lookup(A(0x50, 1)), h3);
	route(RTM_DELROUTE, 0, p, 48, RTN_UNICAST, RT_TABLE_MAIN, 1024, 13, A(2, 3), 1);
	assert_int_equal(lookup(A(0x50, 1)), -1);
	assert_int_equal(tp_ip6_nl_paths(p, 48), 0);
}

/* A resync (generation 2) that sees only some of what generation 1 had: the rest goes,
 * routes and neighbours. */
static void test_sweep(void **state)
{
	route(RTM_NEWROUTE, 0, A(0x70, 0), 48, RTN_UNICAST, RT_TABLE_MAIN, 1024, 13, A(2, 2), 1);
	route(RTM_NEWROUTE, 0, A(0x71, 0), 48, RTN_UNICAST, RT_TABLE_MAIN, 1024, 13, A(2, 2), 1);
	neigh(RTM_NEWNEIGH, A(2, 2), 13, mac_h2, NUD_REACHABLE, 1);
	neigh(RTM_NEWNEIGH, A(2, 4), 13, mac_h2, NUD_STALE, 1);
	assert_true(lookup(A(2, 4)) >= TP_NH_FIRST);

	route(RTM_NEWROUTE, 0, A(0x70, 0), 48, RTN_UNICAST, RT_TABLE_MAIN, 1024, 13, A(2, 2), 2);
	neigh(RTM_NEWNEIGH, A(2, 2), 13, mac_h2, NUD_REACHABLE, 2);
	/* the generation-1 routes of the earlier tests and this one's 0x71 go */
	tp_ip6_nl_sweep(2);
	assert_true(lookup(A(0x70, 1)) >= TP_NH_FIRST);
	assert_int_equal(lookup(A(0x71, 1)), -1);
	assert_int_equal(lookup(A(1, 1)), -1);
	assert_int_equal(tp_neigh6_lookup(A(2, 4), 1), -ENOENT);
	assert_true(tp_ip6_nl_stats.neigh_swept >= 1);
	assert_int_equal(tp_route6_count(), 2); /* 0x70::/48 and h2's /128 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_routes_and_neighbours),
	    cmocka_unit_test(test_paths_exact_deletes),
	    cmocka_unit_test(test_sweep),
	};
	if (tp_test_eal_init() < 0)
		return 1;
	return cmocka_run_group_tests_name("ip6_netlink", tests, setup, teardown);
}
