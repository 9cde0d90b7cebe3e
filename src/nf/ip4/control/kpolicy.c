/* SPDX-License-Identifier: BSD-3-Clause */
/* What the kernel does with punted frames: delivered only to the TAPs' addresses, routed
 * only through the TAPs.
 *
 * Each TAP joins interface group TP_TAP_IFGROUP and gets three policy rules, ahead of
 * the local table, whose rule moves from priority 0 to 4 once (the kernel's own rule
 * cannot be preceded, priority 0 being the first):
 *
 *   1: from all iif tp-X lookup local suppress_ifgroup 0
 *   2: from all iif tp-X lookup main suppress_ifgroup 0
 *   3: from all iif tp-X unreachable
 *   4: from all lookup local                 (moved from 0, protocol boot)
 *
 * A frame the lcores hand to the kernel through tp-X is delivered locally only when its
 * destination is an address (or a broadcast address) of a TAP: the local table's
 * answer for an address of a group-0 device (every interface that is not one of our
 * TAPs: the management port, lo, a container's bridge) is suppressed, and rule 3 sends
 * the ICMP Network Unreachable a router without the address would. To reach such an
 * address from the data plane on purpose, put its device in group TP_TAP_IFGROUP (e.g.
 * a dummy interface holding a router-id). Rule 2 routes the frame by the main table as
 * before, unless the route found leaves through a device of group 0. Routes with no
 * device (blackhole, unreachable, prohibit) are unaffected. Multicast and limited
 * broadcast are delivered before any rule. The TAP's reverse-path filter is loose
 * (2): the kernel drops a punted frame whose source it could not route back anywhere.
 * The TAP forwards (conf/tp-X/forwarding 1, which the kernel checks on the receiving
 * device): the namespace's ip_forward is left as it was, so other interfaces (a
 * management port) do not route into the data plane unless the operator wants it.
 * The TAP accepts our own source address (conf/tp-X/accept_local 1): see tap_add. */
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

#include "../../../core/log.h"
#include "kpolicy.h"

#define RULE_PRIO_LOCAL 1u
#define RULE_PRIO_LOOKUP 2u
#define RULE_PRIO_UNREACHABLE 3u
#define RULE_PRIO_LOCAL_MOVED 4u   /* the kernel's "0: from all lookup local" */
#define RULE_PRIO_OLD_LOOKUP 1000u /* earlier daemons' rules, removed when found */
#define RULE_PRIO_OLD_UNREACHABLE 1001u

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

/* Add or delete one policy rule: tap's (iif tap; NULL: every interface), of priority
 * prio, looking up table (RT_TABLE_UNSPEC: unreachable), suppressing answers through
 * group 0 when suppress, with protocol proto (0: none). 0 or negative errno. */
static int rule(bool add, const char *tap, uint32_t prio, uint32_t table, bool suppress,
		uint8_t proto)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct fib_rule_hdr *frh;

	nlh->nlmsg_type = add ? RTM_NEWRULE : RTM_DELRULE;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (add ? NLM_F_CREATE | NLM_F_EXCL : 0);
	frh = mnl_nlmsg_put_extra_header(nlh, sizeof(*frh));
	frh->family = AF_INET;
	frh->action = table != RT_TABLE_UNSPEC ? FR_ACT_TO_TBL : FR_ACT_UNREACHABLE;
	frh->table = (uint8_t)table;
	if (tap != NULL)
		mnl_attr_put_strz(nlh, FRA_IIFNAME, tap);
	if (prio != 0)
		mnl_attr_put_u32(nlh, FRA_PRIORITY, prio);
	if (proto != 0)
		mnl_attr_put_u8(nlh, FRA_PROTOCOL, proto);
	if (table != RT_TABLE_UNSPEC)
		mnl_attr_put_u32(nlh, FRA_TABLE, table);
	if (suppress)
		mnl_attr_put_u32(nlh, FRA_SUPPRESS_IFGROUP, 0);
	return nl_request(nlh);
}

/* The TAP's rules, added or deleted in order. */
static const struct {
	uint32_t prio, table;
	bool suppress;
} tap_rules[] = {
    {RULE_PRIO_LOCAL, RT_TABLE_LOCAL, true},
    {RULE_PRIO_LOOKUP, RT_TABLE_MAIN, true},
    {RULE_PRIO_UNREACHABLE, RT_TABLE_UNSPEC, false},
    {RULE_PRIO_OLD_LOOKUP, RT_TABLE_MAIN, true},
    {RULE_PRIO_OLD_UNREACHABLE, RT_TABLE_UNSPEC, false},
};
#define TAP_RULES_NOW 3 /* the first three; the others are earlier daemons' */

static void rules_del(const char *tap)
{
	/* a daemon that died left its rules behind: remove every copy */
	for (unsigned int r = 0; r < sizeof(tap_rules) / sizeof(tap_rules[0]); r++)
		for (int i = 0; i < 16 && rule(false, tap, tap_rules[r].prio, tap_rules[r].table,
					       tap_rules[r].suppress, 0) == 0;
		     i++)
			;
}

/* Move the kernel's "0: from all lookup local" to RULE_PRIO_LOCAL_MOVED, once: add the
 * copy first (EEXIST: done before), then delete the original (matched by its protocol,
 * kernel, which the copy does not have). Local delivery never lapses. */
static int local_rule_move(void)
{
	int ret = rule(true, NULL, RULE_PRIO_LOCAL_MOVED, RT_TABLE_LOCAL, false, RTPROT_BOOT);

	if (ret < 0 && ret != -EEXIST)
		return ret;
	ret = rule(false, NULL, 0, RT_TABLE_LOCAL, false, RTPROT_KERNEL);
	return ret == -ENOENT ? 0 : ret;
}

static void sysctl_tap(const char *tap, const char *what, const char *val)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/%s/%s", tap, what);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		TP_LOG(WARNING, "%s: cannot set %s to %s: %s", tap, what, val, strerror(errno));
	if (fd >= 0)
		close(fd);
}

int tp_kpolicy_tap_add(const char *tap, int ifindex)
{
	int ret;

	sysctl_tap(tap, "rp_filter", "2");
	sysctl_tap(tap, "forwarding", "1");
	/* what the data plane originates (nf/ip4/output.h) and punts while its neighbour is
	 * unresolved carries our own source: the kernel takes it (and forwards it) only
	 * with accept_local; the lcores drop our own source from the wire before a punt */
	sysctl_tap(tap, "accept_local", "1");
	rules_del(tap);
	if ((ret = local_rule_move()) < 0 || (ret = set_group(ifindex, TP_TAP_IFGROUP)) < 0)
		return ret;
	for (unsigned int r = 0; r < TAP_RULES_NOW; r++)
		if ((ret = rule(true, tap, tap_rules[r].prio, tap_rules[r].table,
				tap_rules[r].suppress, 0)) < 0) {
			rules_del(tap);
			return ret;
		}
	return 0;
}

void tp_kpolicy_tap_del(const char *tap)
{
	rules_del(tap);
}
