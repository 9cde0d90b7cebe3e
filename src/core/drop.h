/* SPDX-License-Identifier: BSD-3-Clause */
/* Named drop and punt reasons of the data plane: every packet that does not go on has one. */
#ifndef TP_CORE_DROP_H
#define TP_CORE_DROP_H

/* X(enum suffix, name shown by twinctl) */
#define TP_DROP_REASONS(X)                                                                         \
	X(IP_TOO_SHORT, "ip_too_short")                                                           \
	X(IP_BAD_VERSION, "ip_bad_version")                                                       \
	X(IP_BAD_IHL, "ip_bad_ihl")                                                               \
	X(IP_BAD_TOTAL_LEN, "ip_bad_total_length")                                                \
	X(IP_LEN_EXCEEDS_FRAME, "ip_len_exceeds_frame")                                           \
	X(IP_BAD_CHECKSUM, "ip_bad_checksum")                                                     \
	X(IP_MARTIAN_SRC, "ip_martian_source")                                                    \
	X(NO_ROUTE, "no_route")                                                                   \
	X(L2_OTHER_HOST, "l2_other_host")                                                         \
	X(L2_TOO_SHORT, "l2_too_short")                                                           \
	X(L2_UNSUPPORTED, "l2_unsupported_ethertype")                                             \
	X(EXC_RATELIMITED, "exception_ratelimited")                                               \
	X(EXC_RING_FULL, "exception_ring_full")                                                   \
	X(TX_FULL, "tx_queue_full")                                                               \
	X(PORT_DOWN, "port_down")

enum tp_drop {
#define X(e, n) TP_DROP_##e,
	TP_DROP_REASONS(X)
#undef X
	TP_DROP_MAX
};

/* Why a packet was handed to the control plane (counted there, per reason). */
#define TP_PUNT_REASONS(X)                                                                         \
	X(ARP, "arp")                                                                             \
	X(LOCAL, "local_destination")                                                             \
	X(MULTICAST, "multicast_broadcast")                                                       \
	X(TTL, "ttl_expired")                                                                     \
	X(OPTIONS, "ip_options")                                                                  \
	X(UNRESOLVED, "unresolved_neighbour")                                                     \
	X(NF, "network_function")

enum tp_punt {
#define X(e, n) TP_PUNT_##e,
	TP_PUNT_REASONS(X)
#undef X
	TP_PUNT_MAX
};

extern const char *const tp_drop_names[TP_DROP_MAX];
extern const char *const tp_punt_names[TP_PUNT_MAX];

#endif
