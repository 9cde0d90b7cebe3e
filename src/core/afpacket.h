/* SPDX-License-Identifier: BSD-3-Clause */
/* af_packet ports without kernel reassembly (afpacket.c). */
#ifndef TP_CORE_AFPACKET_H
#define TP_CORE_AFPACKET_H

/* How many af_packet sockets joined their fanout group without
 * PACKET_FANOUT_FLAG_DEFRAG because the daemon removed it (shown by show ports). */
extern unsigned int tp_afpacket_defrag_cleared;

#endif
