/* SPDX-License-Identifier: BSD-3-Clause */
/* net_af_packet ports see IP fragments as they are: the daemon's setsockopt() drops
 * PACKET_FANOUT_FLAG_DEFRAG from the fanout the PMD asks for.
 *
 * DPDK 22.11's af_packet PMD (drivers/net/af_packet, open_packet_iface) joins every
 * queue's socket to a fanout group with PACKET_FANOUT_FLAG_DEFRAG, so the kernel
 * (packet_rcv_fanout -> ip_check_defrag) holds IPv4 fragments until it can hand the
 * socket a reassembled datagram: a router on such a port never forwards a lone
 * fragment, and forwards the others as one packet that was never sent. The flag
 * cannot be cleared once the socket has joined, and the PMD has no option for it, so
 * the daemon's executable defines setsockopt() (exported with
 * --export-dynamic-symbol, so the PMD, a plugin, binds to it) and removes that one
 * flag; every other call goes to libc's as it is. The fanout still hashes flows over
 * the queues (a fragment's hash is its addresses', so a datagram's fragments stay on
 * one queue).
 *
 * The same PMD loses an 802.1ad (0x88a8) outer tag's TPID: the kernel untags every
 * frame in software before a packet socket sees it (__netif_receive_skb_core, for
 * any device: turning off rxvlan / rx-vlan-stag-hw-parse changes nothing), puts the
 * tag in the ring header (tp_vlan_tci, tp_vlan_tpid), and the PMD's eth_af_packet_rx
 * reinserts it with rte_vlan_insert, always 0x8100, leaving in the mbuf only
 * vlan_tci and RTE_MBUF_F_RX_VLAN_STRIPPED: nothing tells the TPID. An S-tagged
 * frame would then be switched into its S-VLAN's number as a C-VLAN. So every queue
 * socket gets an eBPF socket filter (attached when the PMD sets its RX ring, before
 * it binds) that refuses a frame whose stripped tag is not 802.1Q's and counts it
 * per interface in a map the control plane reads (tp_afpacket_stag_drops).
 *
 * An L2 bridge member's port keeps them instead (decision 0112): an XDP program in
 * generic mode, which runs before that untag, wraps a frame whose EtherType is 0x88a8
 * or 0x88b5 in 4 bytes (0x88b5, IEEE 802 local experimental, and the mark "tp"; its
 * own EtherType follows at 16), which the kernel leaves alone and the filter lets
 * through, and an RX callback on the port's queues unwraps it before the port's mode
 * sees it (tp_afpacket_stag_keep, from the l2 mode's attach). The program goes with
 * its BPF link's fd: when the port leaves the bridge, is deleted, or the daemon dies.
 * Without it (no CAP_BPF, an old kernel) the filter refuses them as on any af_packet
 * port. af_xdp ports see frames as they came and are not concerned. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <endian.h>
#include <errno.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <net/if.h>

#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "afpacket.h"
#include "counter.h"
#include "lcore.h"
#include "log.h"
#include "rcu.h"
#include "worker.h"

unsigned int tp_afpacket_defrag_cleared;
unsigned int tp_afpacket_stag_filters;

#define STAG_MAP_SIZE 1024 /* interfaces counted at once */

static int stag_map = -1;	  /* ifindex (u32) -> frames refused (u64); -1: none yet */
static int stag_filtered_fd = -1; /* the last queue socket that got the filter */

static long bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static struct bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm)
{
	struct bpf_insn i = {.code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm};

	return i;
}

/* An eBPF socket filter: the whole frame (its length) unless the kernel stripped a
 * tag whose TPID is not 0x8100; that one refused (0) and counted in map[ifindex].
 * A program fd, or -1 with errno. */
static int stag_prog(int map)
{
	/* __sk_buff.vlan_proto is the TPID as on the wire (big endian) */
	const int32_t ctag = (int32_t)htobe16(0x8100);
	struct bpf_insn p[] = {
	    /* 0 */ insn(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0),
	    /* 1 */
	    insn(BPF_LDX | BPF_MEM | BPF_W, 2, 6, offsetof(struct __sk_buff, vlan_present), 0),
	    /* 2: no tag stripped: accept */
	    insn(BPF_JMP | BPF_JEQ | BPF_K, 2, 0, 14, 0),
	    /* 3 */
	    insn(BPF_LDX | BPF_MEM | BPF_W, 2, 6, offsetof(struct __sk_buff, vlan_proto), 0),
	    /* 4: 802.1Q's: accept */
	    insn(BPF_JMP | BPF_JEQ | BPF_K, 2, 0, 12, ctag),
	    /* 5 */ insn(BPF_LDX | BPF_MEM | BPF_W, 2, 6, offsetof(struct __sk_buff, ifindex), 0),
	    /* 6: the key on the stack */
	    insn(BPF_STX | BPF_MEM | BPF_W, 10, 2, -4, 0),
	    /* 7, 8: r1 = the map */
	    insn(BPF_LD | BPF_DW | BPF_IMM, 1, BPF_PSEUDO_MAP_FD, 0, map),
	    insn(0, 0, 0, 0, 0),
	    /* 9 */ insn(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0),
	    /* 10 */ insn(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -4),
	    /* 11 */ insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
	    /* 12: no entry (an interface no port set up): refused all the same */
	    insn(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2, 0),
	    /* 13 */ insn(BPF_ALU64 | BPF_MOV | BPF_K, 1, 0, 0, 1),
	    /* 14 */ insn(BPF_STX | BPF_ATOMIC | BPF_DW, 0, 1, 0, BPF_ADD),
	    /* 15: refuse */
	    insn(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0),
	    /* 16 */ insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	    /* 17: accept, whole */
	    insn(BPF_LDX | BPF_MEM | BPF_W, 0, 6, offsetof(struct __sk_buff, len), 0),
	    /* 18 */ insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	static const char license[] = "Dual BSD/GPL";
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	a.insns = (uint64_t)(uintptr_t)p;
	a.insn_cnt = sizeof(p) / sizeof(p[0]);
	a.license = (uint64_t)(uintptr_t)license;
	return (int)bpf(BPF_PROG_LOAD, &a);
}

/* Attach the S-tag filter to fd (a PMD's queue socket), making the map first. 0 or
 * -1 with errno; the socket works without it (as before), the port's log says so. */
static int stag_attach(int fd, int (*set)(int, int, int, const void *, socklen_t))
{
	union bpf_attr a;
	int prog, ret;

	if (stag_map < 0) {
		memset(&a, 0, sizeof(a));
		a.map_type = BPF_MAP_TYPE_HASH;
		a.key_size = sizeof(uint32_t);
		a.value_size = sizeof(uint64_t);
		a.max_entries = STAG_MAP_SIZE;
		if ((stag_map = (int)bpf(BPF_MAP_CREATE, &a)) < 0)
			return -1;
	}
	if ((prog = stag_prog(stag_map)) < 0)
		return -1;
	ret = set(fd, SOL_SOCKET, SO_ATTACH_BPF, &prog, sizeof(prog));
	close(prog); /* the socket holds it */
	if (ret == 0) {
		__atomic_fetch_add(&tp_afpacket_stag_filters, 1, __ATOMIC_RELAXED);
		stag_filtered_fd = fd; /* the PMD sets up its queues one at a time */
	}
	return ret;
}

/* Start counting for the interface fd is bound to (its entry, from 0). */
static void stag_count(int fd)
{
	struct sockaddr_ll sll;
	socklen_t len = sizeof(sll);
	union bpf_attr a;
	uint32_t key;
	uint64_t zero = 0;

	/* only an interface whose sockets refuse S-tagged frames is counted */
	if (stag_map < 0 || fd != stag_filtered_fd ||
	    getsockname(fd, (struct sockaddr *)&sll, &len) < 0 || sll.sll_ifindex <= 0)
		return;
	key = (uint32_t)sll.sll_ifindex;
	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)stag_map;
	a.key = (uint64_t)(uintptr_t)&key;
	a.value = (uint64_t)(uintptr_t)&zero;
	a.flags = BPF_NOEXIST; /* the port's other queues share it */
	bpf(BPF_MAP_UPDATE_ELEM, &a);
}

int tp_afpacket_stag_drops(int ifindex, uint64_t *n)
{
	union bpf_attr a;
	uint32_t key = (uint32_t)ifindex;

	if (stag_map < 0 || ifindex <= 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)stag_map;
	a.key = (uint64_t)(uintptr_t)&key;
	a.value = (uint64_t)(uintptr_t)n;
	return bpf(BPF_MAP_LOOKUP_ELEM, &a) == 0 ? 0 : -1;
}

void tp_afpacket_stag_forget(int ifindex)
{
	union bpf_attr a;
	uint32_t key = (uint32_t)ifindex;

	if (stag_map < 0 || ifindex <= 0)
		return;
	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)stag_map;
	a.key = (uint64_t)(uintptr_t)&key;
	bpf(BPF_MAP_DELETE_ELEM, &a);
}

/* Keeping the TPID on an L2 bridge member: the XDP wrap in the kernel, the unwrap in
 * the RX callback. */

#define WRAP_ETHERTYPE 0x88b5 /* IEEE 802 local experimental EtherType 1 */
#define WRAP_MARK_0 't'	      /* the two bytes after it: ours */
#define WRAP_MARK_1 'p'
#define WRAP_LEN 4

static struct stag_keep {
	bool kept;
	int link;    /* the XDP link's fd (it holds the program) */
	int ifindex; /* the interface it is attached to */
	uint16_t nb_rxq;
	const struct rte_eth_rxtx_callback *cb[TP_RXQ_MAX];
} stag_keep[TP_MAX_PORTS];

int tp_afpacket_wrap_prog(void)
{
	/* 16-bit loads and stores read the packet's bytes in host order */
	const int32_t stag = (int32_t)htobe16(0x88a8), wrap = (int32_t)htobe16(WRAP_ETHERTYPE);
	const int32_t mark = (int32_t)htobe16(WRAP_MARK_0 << 8 | WRAP_MARK_1);
	const int16_t data = offsetof(struct xdp_md, data);
	const int16_t end = offsetof(struct xdp_md, data_end);
	struct bpf_insn p[] = {
	    /* 0 */ insn(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0),
	    /* 1 */ insn(BPF_LDX | BPF_MEM | BPF_W, 2, 6, data, 0),
	    /* 2 */ insn(BPF_LDX | BPF_MEM | BPF_W, 3, 6, end, 0),
	    /* 3 */ insn(BPF_ALU64 | BPF_MOV | BPF_X, 4, 2, 0, 0),
	    /* 4 */ insn(BPF_ALU64 | BPF_ADD | BPF_K, 4, 0, 0, RTE_ETHER_HDR_LEN),
	    /* 5: no EtherType: pass (to 32) */
	    insn(BPF_JMP | BPF_JGT | BPF_X, 4, 3, 26, 0),
	    /* 6 */ insn(BPF_LDX | BPF_MEM | BPF_H, 5, 2, 12, 0),
	    /* 7: 802.1ad's S-tag (IEEE 802.1Q 9.5, table 9-1): wrap (to 9) */
	    insn(BPF_JMP | BPF_JEQ | BPF_K, 5, 0, 1, stag),
	    /* 8: neither it nor the wrap's EtherType: pass */
	    insn(BPF_JMP | BPF_JNE | BPF_K, 5, 0, 23, wrap),
	    /* 9 */ insn(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0),
	    /* 10 */ insn(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, -WRAP_LEN),
	    /* 11 */ insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_xdp_adjust_head),
	    /* 12: no headroom: pass as it is (the socket filter refuses an S-tag) */
	    insn(BPF_JMP | BPF_JNE | BPF_K, 0, 0, 19, 0),
	    /* 13-16: the packet pointers again, checked (the frame is 4 bytes longer) */
	    insn(BPF_LDX | BPF_MEM | BPF_W, 2, 6, data, 0),
	    insn(BPF_LDX | BPF_MEM | BPF_W, 3, 6, end, 0),
	    insn(BPF_ALU64 | BPF_MOV | BPF_X, 4, 2, 0, 0),
	    insn(BPF_ALU64 | BPF_ADD | BPF_K, 4, 0, 0, RTE_ETHER_HDR_LEN + WRAP_LEN),
	    /* 17 */ insn(BPF_JMP | BPF_JGT | BPF_X, 4, 3, 14, 0),
	    /* 18-29: the 12 address bytes to the new front, 2 at a time, forwards (the
	     * copy overlaps behind the reads) */
	    insn(BPF_LDX | BPF_MEM | BPF_H, 5, 2, WRAP_LEN + 0, 0),
	    insn(BPF_STX | BPF_MEM | BPF_H, 2, 5, 0, 0),
	    insn(BPF_LDX | BPF_MEM | BPF_H, 5, 2, WRAP_LEN + 2, 0),
	    insn(BPF_STX | BPF_MEM | BPF_H, 2, 5, 2, 0),
	    insn(BPF_LDX | BPF_MEM | BPF_H, 5, 2, WRAP_LEN + 4, 0),
	    insn(BPF_STX | BPF_MEM | BPF_H, 2, 5, 4, 0),
	    insn(BPF_LDX | BPF_MEM | BPF_H, 5, 2, WRAP_LEN + 6, 0),
	    insn(BPF_STX | BPF_MEM | BPF_H, 2, 5, 6, 0),
	    insn(BPF_LDX | BPF_MEM | BPF_H, 5, 2, WRAP_LEN + 8, 0),
	    insn(BPF_STX | BPF_MEM | BPF_H, 2, 5, 8, 0),
	    insn(BPF_LDX | BPF_MEM | BPF_H, 5, 2, WRAP_LEN + 10, 0),
	    insn(BPF_STX | BPF_MEM | BPF_H, 2, 5, 10, 0),
	    /* 30, 31: the wrap's EtherType and mark; the frame's own follows at 16 */
	    insn(BPF_ST | BPF_MEM | BPF_H, 2, 0, 12, wrap),
	    insn(BPF_ST | BPF_MEM | BPF_H, 2, 0, 14, mark),
	    /* 32: pass */
	    insn(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, XDP_PASS),
	    /* 33 */ insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	static const char license[] = "Dual BSD/GPL";
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_XDP;
	a.expected_attach_type = BPF_XDP;
	a.insns = (uint64_t)(uintptr_t)p;
	a.insn_cnt = sizeof(p) / sizeof(p[0]);
	a.license = (uint64_t)(uintptr_t)license;
	return (int)bpf(BPF_PROG_LOAD, &a);
}

uint16_t tp_afpacket_unwrap(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t kept = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
		uint16_t len = rte_pktmbuf_data_len(m);

		if (len < RTE_ETHER_HDR_LEN || d[12] != WRAP_ETHERTYPE >> 8 ||
		    d[13] != (WRAP_ETHERTYPE & 0xff)) {
			pkts[kept++] = m;
			continue;
		}
		if (len < RTE_ETHER_HDR_LEN + WRAP_LEN) {
			/* the kernel's wrap always leaves the frame's EtherType behind it */
			if (w != NULL) {
				tp_drop(w, m, TP_DROP_AFPACKET_UNWRAP_SHORT);
				continue;
			}
			pkts[kept++] = m;
			continue;
		}
		/* without the mark: a native frame received before the wrap was attached,
		 * left as it came */
		if (d[14] == WRAP_MARK_0 && d[15] == WRAP_MARK_1) {
			memmove(d + WRAP_LEN, d, 2 * RTE_ETHER_ADDR_LEN);
			rte_pktmbuf_adj(m, WRAP_LEN);
		}
		pkts[kept++] = m;
	}
	return kept;
}

static uint16_t stag_unwrap_cb(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n,
			       uint16_t max, void *arg)
{
	(void)port;
	(void)queue;
	(void)max;
	(void)arg;
	return tp_afpacket_unwrap(RTE_PER_LCORE(tp_worker_self), pkts, n);
}

/* An RX callback removed a grace period ago: no lcore is in it. */
static void stag_cb_free(void *cb, void *unused)
{
	(void)unused;
	rte_free(cb);
}

/* Remove port's RX callbacks (the queues that have one). */
static void stag_unhook(uint16_t port, struct stag_keep *k)
{
	for (uint16_t q = 0; q < k->nb_rxq; q++) {
		const struct rte_eth_rxtx_callback *cb = k->cb[q];

		k->cb[q] = NULL;
		if (cb == NULL || rte_eth_remove_rx_callback(port, q, cb) != 0)
			continue;
		/* DPDK leaves it to us: an lcore may be running it until a grace period */
		tp_rcu_defer(stag_cb_free, (void *)(uintptr_t)cb, NULL);
	}
	k->nb_rxq = 0;
}

/* 0 with port's info in *info if it is an af_packet port (on a netdev), else
 * -ENODEV. */
static int afpacket_port(uint16_t port, struct rte_eth_dev_info *info)
{
	if (!rte_eth_dev_is_valid_port(port) || rte_eth_dev_info_get(port, info) != 0 ||
	    info->driver_name == NULL || strcmp(info->driver_name, "net_af_packet") != 0 ||
	    info->if_index == 0)
		return -ENODEV;
	return 0;
}

int tp_afpacket_stag_keep(uint16_t port)
{
	struct stag_keep *k;
	struct rte_eth_dev_info info;
	union bpf_attr a;
	char ifname[IF_NAMESIZE] = "?";
	const char *why;
	int prog, ret;

	if (port >= TP_MAX_PORTS || afpacket_port(port, &info) < 0)
		return -ENODEV;
	k = &stag_keep[port];
	if (k->kept)
		return 0;
	if_indextoname(info.if_index, ifname);
	if ((prog = tp_afpacket_wrap_prog()) < 0) {
		ret = -errno;
		why = "loading its XDP program";
		goto fail;
	}
	/* the unwrap first: no wrapped frame reaches the port's mode */
	k->nb_rxq = RTE_MIN(info.nb_rx_queues, (uint16_t)TP_RXQ_MAX);
	for (uint16_t q = 0; q < k->nb_rxq; q++)
		if ((k->cb[q] = rte_eth_add_rx_callback(port, q, stag_unwrap_cb, NULL)) == NULL) {
			ret = -rte_errno;
			why = "adding the RX callback";
			goto unhook;
		}
	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = (uint32_t)prog;
	a.link_create.target_ifindex = info.if_index;
	a.link_create.attach_type = BPF_XDP;
	/* generic XDP runs before the kernel's VLAN untag (__netif_receive_skb_core);
	 * the link goes with its fd: when the port leaves the bridge or the daemon ends */
	a.link_create.flags = XDP_FLAGS_SKB_MODE;
	if ((k->link = (int)bpf(BPF_LINK_CREATE, &a)) < 0) {
		ret = -errno;
		why = "attaching its XDP program (generic mode)";
		goto unhook;
	}
	close(prog); /* the link holds it */
	k->kept = true;
	k->ifindex = (int)info.if_index;
	TP_LOG(INFO, "port %u (%s): 802.1ad (S-tagged) frames kept as they came (XDP wrap)", port,
	       ifname);
	return 0;
unhook:
	stag_unhook(port, k);
	close(prog);
fail:
	TP_LOG(WARNING,
	       "port %u (%s): %s: %s; 802.1ad (S-tagged) frames are refused (the socket "
	       "filter) as on any af_packet port",
	       port, ifname, why, strerror(-ret));
	return ret;
}

void tp_afpacket_stag_release(uint16_t port)
{
	struct stag_keep *k;

	if (port >= TP_MAX_PORTS || !(k = &stag_keep[port])->kept)
		return;
	close(k->link); /* the wrap first: the unwrap sees the frames wrapped until then */
	stag_unhook(port, k);
	k->kept = false;
	TP_LOG(INFO, "port %u: 802.1ad frames refused again (XDP wrap detached)", port);
}

const char *tp_afpacket_stag_state(uint16_t port)
{
	struct rte_eth_dev_info info;
	uint64_t n;

	if (port >= TP_MAX_PORTS || afpacket_port(port, &info) < 0)
		return NULL;
	if (stag_keep[port].kept)
		return "kept";
	return tp_afpacket_stag_drops((int)info.if_index, &n) == 0 ? "refused" : "lost";
}

int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	static int (*libc_setsockopt)(int, int, int, const void *, socklen_t);

	if (libc_setsockopt == NULL) {
		libc_setsockopt =
		    (int (*)(int, int, int, const void *, socklen_t))dlsym(RTLD_NEXT, "setsockopt");
		if (libc_setsockopt == NULL) {
			errno = ENOSYS;
			return -1;
		}
	}
	/* the PMD's queue socket, before it binds: the S-tag filter */
	if (level == SOL_PACKET && name == PACKET_RX_RING)
		stag_attach(fd, libc_setsockopt);
	if (level == SOL_PACKET && name == PACKET_FANOUT && val != NULL && len == sizeof(int)) {
		int arg;
		stag_count(fd); /* bound now */
		__builtin_memcpy(&arg, val, sizeof(arg));
		if (arg & (PACKET_FANOUT_FLAG_DEFRAG << 16)) {
			arg &= ~(PACKET_FANOUT_FLAG_DEFRAG << 16);
			__atomic_fetch_add(&tp_afpacket_defrag_cleared, 1, __ATOMIC_RELAXED);
		}
		return libc_setsockopt(fd, level, name, &arg, len);
	}
	return libc_setsockopt(fd, level, name, val, len);
}
