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
 * one queue). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <stddef.h>
#include <sys/socket.h>

#include "afpacket.h"

unsigned int tp_afpacket_defrag_cleared;

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
	if (level == SOL_PACKET && name == PACKET_FANOUT && val != NULL && len == sizeof(int)) {
		int arg;
		__builtin_memcpy(&arg, val, sizeof(arg));
		if (arg & (PACKET_FANOUT_FLAG_DEFRAG << 16)) {
			arg &= ~(PACKET_FANOUT_FLAG_DEFRAG << 16);
			__atomic_fetch_add(&tp_afpacket_defrag_cleared, 1, __ATOMIC_RELAXED);
		}
		return libc_setsockopt(fd, level, name, &arg, len);
	}
	return libc_setsockopt(fd, level, name, val, len);
}
