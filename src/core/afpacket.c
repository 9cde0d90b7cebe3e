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
 * per interface in a map the control plane reads (tp_afpacket_stag_drops). af_xdp
 * ports see frames as they came and are not concerned. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <endian.h>
#include <errno.h>
#include <linux/bpf.h>
#include <linux/if_packet.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "afpacket.h"

unsigned int tp_afpacket_defrag_cleared;
unsigned int tp_afpacket_stag_filters;

#define STAG_MAP_SIZE 1024 /* interfaces counted at once */

static int stag_map = -1; /* ifindex (u32) -> frames refused (u64); -1: none yet */

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
	if (ret == 0)
		__atomic_fetch_add(&tp_afpacket_stag_filters, 1, __ATOMIC_RELAXED);
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

	if (stag_map < 0 || getsockname(fd, (struct sockaddr *)&sll, &len) < 0 ||
	    sll.sll_ifindex <= 0)
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
