/* SPDX-License-Identifier: BSD-3-Clause */
/* The one BPDU codec (IEEE 802.1D-2004 clause 9): Configuration, Topology Change
 * Notification and RST BPDUs in an 802.3 frame with an LLC header (DSAP 0x42, SSAP
 * 0x42, UI 0x03) to the bridge group address 01:80:c2:00:00:00. Pure functions on
 * buffers, no DPDK: the L2 switch's STP, its unit tests and its fuzz target. */
#ifndef TP_PROTO_BPDU_H
#define TP_PROTO_BPDU_H

#include <stddef.h>
#include <stdint.h>

/* 802.1D-2004 9.3.1-9.3.3: BPDU types */
#define TP_BPDU_CONFIG 0x00
#define TP_BPDU_TCN 0x80
#define TP_BPDU_RST 0x02

/* 802.1D-2004 9.3.3 Figure 9-3: the flags octet */
#define TP_BPDU_F_TC 0x01
#define TP_BPDU_F_PROPOSAL 0x02
#define TP_BPDU_F_ROLE_SHIFT 2 /* 2 bits: the port role */
#define TP_BPDU_F_LEARNING 0x10
#define TP_BPDU_F_FORWARDING 0x20
#define TP_BPDU_F_AGREEMENT 0x40
#define TP_BPDU_F_TCA 0x80 /* Configuration BPDUs only (9.3.1) */

/* the port role in an RST BPDU's flags (9.2.9) */
enum tp_bpdu_role {
	TP_BPDU_ROLE_UNKNOWN = 0,
	TP_BPDU_ROLE_ALT_BACKUP = 1,
	TP_BPDU_ROLE_ROOT = 2,
	TP_BPDU_ROLE_DESIGNATED = 3,
};

/* lengths (9.3.1-9.3.3): the BPDU (after LLC), the LLC header, the frame's header */
#define TP_BPDU_CONFIG_LEN 35
#define TP_BPDU_TCN_LEN 4
#define TP_BPDU_RST_LEN 36
#define TP_BPDU_LLC_LEN 3
#define TP_BPDU_ETH_LEN 14
/* the longest frame tp_bpdu_write writes (an RST BPDU padded to 60 octets) */
#define TP_BPDU_FRAME_MAX 60

/* A BPDU, decoded. Identifiers as 64-bit numbers (priority in the top 16 bits, then
 * the MAC address), so that a smaller one is a better one (9.2.5); times in whole
 * seconds (the wire carries 1/256 s, 9.2.8; fractions are dropped). */
struct tp_bpdu {
	uint8_t type;	 /* TP_BPDU_CONFIG, TP_BPDU_TCN or TP_BPDU_RST */
	uint8_t version; /* protocol version identifier: 0 (STP), 2 (RSTP), 3+ */
	uint8_t flags;
	uint64_t root;
	uint32_t cost;
	uint64_t bridge;
	uint16_t port;
	uint16_t msg_age, max_age, hello, fwd_delay;
};

/* Why a frame is not a BPDU we take (each a named counter of the STP). */
enum tp_bpdu_err {
	TP_BPDU_OK = 0,
	TP_BPDU_ERR_SHORT = -1,	   /* shorter than its headers or its type's length */
	TP_BPDU_ERR_LLC = -2,	   /* not 802.3 with LLC 42 42 03 (an Ethernet II type) */
	TP_BPDU_ERR_PROTOCOL = -3, /* protocol identifier not 0 */
	TP_BPDU_ERR_TYPE = -4,	   /* unknown type, or an RST BPDU of version 0/1 */
	TP_BPDU_ERR_AGE = -5,	   /* a Configuration BPDU at its max age (9.3.4 a) */
};

/* Decode the frame f (len octets from its Ethernet header, the destination already
 * known to be the bridge group address) into b. 0 or a tp_bpdu_err; reads no octet
 * past f + len, and trusts neither the 802.3 length field (only a bound) nor any
 * length in the BPDU. 802.1D-2004 9.3.4: a BPDU longer than its type needs is taken
 * (later versions append fields); an unknown version of an RST BPDU is one. */
int tp_bpdu_parse(const uint8_t *f, size_t len, struct tp_bpdu *b);

/* Write b as a frame from src (6 octets) into buf (cap octets): the group address,
 * the 802.3 length, LLC, the BPDU of b->type (version 0 for Configuration and TCN, 2
 * for RST), padded with zeros to 60 octets. Returns the frame's length, or 0 when cap
 * is too small or the type unknown. */
size_t tp_bpdu_write(uint8_t *buf, size_t cap, const uint8_t *src, const struct tp_bpdu *b);

/* The name of a tp_bpdu_err, for counters and messages. */
const char *tp_bpdu_strerror(int err);

#endif
