/* SPDX-License-Identifier: BSD-3-Clause */
/* What the kernel does with punted frames: routed only through the TAPs.
 *
 * Each TAP joins interface group TP_TAP_IFGROUP and gets two policy rules:
 *
 *   1000: from all iif tp-X lookup main suppress_ifgroup 0
 *   1001: from all iif tp-X unreachable
 *
 * A frame the lcores hand to the kernel through tp-X is routed by the main
 * table as before, unless the route found leaves through a device of group 0
 * (every interface that is not one of our TAPs: a management port, a
 * container's veth): that answer is suppressed and the next rule sends the
 * ICMP Network Unreachable a router without the route would. Routes with no
 * device (blackhole, unreachable, prohibit) and the local table (rule 0) are
 * unaffected. The TAP's reverse-path filter is loose (2): the kernel drops a
 * punted frame whose source it could not route back anywhere. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fib_rules.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <libmnl/libmnl.h>

#include "../core/log.h"
#include "kpolicy.h"

#define RULE_PRIO_LOOKUP 1000u
#define RULE_PRIO_UNREACHABLE 1001u

static int nl_request(struct nlmsghdr *nlh)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct mnl_socket *sk = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	int ret;

	if (sk == NULL)
		return -errno;
	if (mnl_socket_bind(sk, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		goto out;
	}
	nlh->nlmsg_seq = 1;
	if (mnl_socket_sendto(sk, nlh, nlh->nlmsg_len) < 0) {
		ret = -errno;
		goto out;
	}
	ret = (int)mnl_socket_recvfrom(sk, buf, sizeof(buf));
	if (ret < 0) {
		ret = -errno;
		goto out;
	}
	ret = mnl_cb_run(buf, (size_t)ret, 1, mnl_socket_get_portid(sk), NULL, NULL);
	ret = ret < 0 ? -errno : 0;
out:
	mnl_socket_close(sk);
	return ret;
}

static int set_group(int ifindex, uint32_t group)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = RTM_NEWLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	mnl_attr_put_u32(nlh, IFLA_GROUP, group);
	return nl_request(nlh);
}

/* Add or delete one of a TAP's two rules. */
static int rule(bool add, const char *tap, uint32_t prio)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct fib_rule_hdr *frh;
	bool lookup = prio == RULE_PRIO_LOOKUP;

	nlh->nlmsg_type = add ? RTM_NEWRULE : RTM_DELRULE;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (add ? NLM_F_CREATE | NLM_F_EXCL : 0);
	frh = mnl_nlmsg_put_extra_header(nlh, sizeof(*frh));
	frh->family = AF_INET;
	frh->action = lookup ? FR_ACT_TO_TBL : FR_ACT_UNREACHABLE;
	frh->table = lookup ? RT_TABLE_MAIN : RT_TABLE_UNSPEC;
	mnl_attr_put_strz(nlh, FRA_IIFNAME, tap);
	mnl_attr_put_u32(nlh, FRA_PRIORITY, prio);
	if (lookup) {
		mnl_attr_put_u32(nlh, FRA_TABLE, RT_TABLE_MAIN);
		mnl_attr_put_u32(nlh, FRA_SUPPRESS_IFGROUP, 0);
	}
	return nl_request(nlh);
}

static void rules_del(const char *tap)
{
	/* a daemon that died left its rules behind: remove every copy */
	for (int i = 0; i < 16 && rule(false, tap, RULE_PRIO_LOOKUP) == 0; i++)
		;
	for (int i = 0; i < 16 && rule(false, tap, RULE_PRIO_UNREACHABLE) == 0; i++)
		;
}

static void rp_filter_loose(const char *tap)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/%s/rp_filter", tap);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "2", 1) != 1)
		TP_LOG(WARNING, "%s: cannot set a loose rp_filter: %s", tap, strerror(errno));
	if (fd >= 0)
		close(fd);
}

int tp_kpolicy_tap_add(const char *tap, int ifindex)
{
	int ret;

	rp_filter_loose(tap);
	rules_del(tap);
	if ((ret = set_group(ifindex, TP_TAP_IFGROUP)) < 0 ||
	    (ret = rule(true, tap, RULE_PRIO_LOOKUP)) < 0 ||
	    (ret = rule(true, tap, RULE_PRIO_UNREACHABLE)) < 0) {
		rules_del(tap);
		return ret;
	}
	return 0;
}

void tp_kpolicy_tap_del(const char *tap)
{
	rules_del(tap);
}
