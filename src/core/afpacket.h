/* SPDX-License-Identifier: BSD-3-Clause */
/* af_packet ports without kernel reassembly, and without 802.1ad frames the PMD
 * would mistake for 802.1Q ones, unless the port is an L2 bridge member: there the
 * frames are kept as they came (afpacket.c). */
#ifndef TP_CORE_AFPACKET_H
#define TP_CORE_AFPACKET_H

#include <stdint.h>

struct rte_mbuf;
struct tp_worker;

/* How many af_packet sockets joined their fanout group without
 * PACKET_FANOUT_FLAG_DEFRAG because the daemon removed it (shown by show ports). */
extern unsigned int tp_afpacket_defrag_cleared;
/* How many af_packet queue sockets got the S-tag filter (frames whose kernel-stripped
 * outer tag is not 802.1Q's refused and counted). */
extern unsigned int tp_afpacket_stag_filters;

/* Frames the S-tag filter refused on interface ifindex since its port was added, in
 * *n: 0, or -1 (no af_packet port on it has the filter). Control plane. */
int tp_afpacket_stag_drops(int ifindex, uint64_t *n);
/* Forget ifindex's count (its port is gone). */
void tp_afpacket_stag_forget(int ifindex);

/* Keep 802.1ad (S-tagged) frames as they came on port, if it is an af_packet port
 * (an L2 bridge member's, nf/l2): an XDP program in generic mode on its interface
 * wraps them past the kernel's VLAN untag, and an RX callback on each of its queues
 * unwraps them. Control plane. 0 (kept, now or already), -ENODEV (not an af_packet
 * port: nothing to do) or another negative errno: the port refuses them as before
 * (the socket filter) and its log says why. */
int tp_afpacket_stag_keep(uint16_t port);
/* Stop keeping them on port (it leaves its bridge, or goes): the XDP program
 * detached, the callbacks removed (freed a grace period later). Nothing if they were
 * not kept. Control plane. */
void tp_afpacket_stag_release(uint16_t port);
/* Port's 802.1ad frames: "kept", "refused" (the socket filter), "lost" (neither:
 * they come in as 802.1Q ones), or NULL (not an af_packet port). Control plane. */
const char *tp_afpacket_stag_state(uint16_t port);

/* The XDP program that wraps a frame whose EtherType is 0x88a8 or 0x88b5 in a 4-byte
 * 0x88b5 header (its own EtherType at 16): a program fd, or -1 with errno (the
 * verifier's refusal, or no CAP_BPF). */
int tp_afpacket_wrap_prog(void);
/* Fast path: unwrap pkts[0..n-1] as received from a port with the XDP program,
 * keeping their order; a frame too short to have been wrapped is dropped
 * (afpacket_unwrap_short, counted on w; with w NULL it stays as it is). Returns how
 * many are left in pkts. */
uint16_t tp_afpacket_unwrap(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n);

#endif
