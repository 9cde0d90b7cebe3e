/* SPDX-License-Identifier: BSD-3-Clause */
/* af_packet ports without kernel reassembly, and without 802.1ad frames the PMD
 * would mistake for 802.1Q ones (afpacket.c). */
#ifndef TP_CORE_AFPACKET_H
#define TP_CORE_AFPACKET_H

#include <stdint.h>

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

#endif
