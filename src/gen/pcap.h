/* SPDX-License-Identifier: BSD-3-Clause */
/* A minimal pcap file writer (microsecond timestamps, Ethernet link type). */
#ifndef TP_GEN_PCAP_H
#define TP_GEN_PCAP_H

#include <stdint.h>
#include <stdio.h>

/* Write the file header. 0 or negative errno. */
int tp_pcap_header(FILE *f);
/* Write one frame of len bytes with timestamp usec. 0 or negative errno. */
int tp_pcap_record(FILE *f, const uint8_t *frame, uint32_t len, uint64_t usec);

#endif
