/* SPDX-License-Identifier: BSD-3-Clause */
/* twinplane-fetch's host stack on one DPDK port: Ethernet, ARP (resolve and answer),
 * IPv4, ICMP echo and errors, and the transmit buffer. One lcore owns all of it. */
#ifndef TP_FETCH_NET_H
#define TP_FETCH_NET_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#define FETCH_BURST 32
#define FETCH_TX_MAX 64
#define FETCH_ARP_SLOTS 8
#define FETCH_MAX_CONN 16

/* Every counter, in the order the JSON summary prints them: drops by reason first.
 * X(name, what) */
#define FETCH_COUNTERS(X)                                                                          \
	X(rx_frames, "frames received")                                                            \
	X(rx_bytes, "bytes received (frame lengths)")                                              \
	X(tx_frames, "frames sent")                                                                \
	X(tx_full, "frames the port did not take: freed")                                          \
	X(tx_no_mbuf, "frames not built: mempool empty")                                           \
	X(drop_runt, "frames shorter than an Ethernet header")                                     \
	X(drop_chained, "multi-segment frames (never asked for)")                                  \
	X(drop_not_for_us, "frames to another unicast MAC")                                        \
	X(drop_ethertype, "frames neither IPv4 nor ARP")                                           \
	X(drop_arp_bad, "ARP packets not Ethernet/IPv4 or truncated")                              \
	X(drop_ip_bad, "IPv4 headers failing RFC 1812 5.2.2 checks")                               \
	X(drop_ip_not_ours, "IPv4 packets to another address")                                     \
	X(drop_ip_fragment, "IPv4 fragments (TCP with MSS never needs them)")                      \
	X(drop_ip_proto, "IPv4 packets neither TCP nor ICMP")                                      \
	X(drop_icmp_bad, "ICMP messages truncated or failing their checksum")                      \
	X(drop_tcp_bad, "TCP headers truncated or with malformed options")                         \
	X(drop_tcp_cksum, "TCP segments failing their checksum")                                   \
	X(drop_tcp_no_conn, "TCP segments of no connection (answered with RST)")                   \
	X(drop_tcp_paws, "TCP segments with an old timestamp (PAWS, RFC 7323 5)")                  \
	X(drop_tcp_window, "TCP segments outside the receive window")                              \
	X(drop_tcp_ooo_full, "out-of-order segments with no room in the queue")                    \
	X(drop_tcp_ooo_budget, "out-of-order segments over the budget shared by all connections")  \
	X(drop_tcp_ack_old, "TCP segments acknowledging data before the peer's window (RFC 5961)") \
	X(arp_requests_sent, "ARP requests sent")                                                  \
	X(arp_replies_sent, "ARP requests for our address answered")                               \
	X(arp_learned, "ARP entries learned or refreshed")                                         \
	X(icmp_echo_replies, "ICMP echo requests answered")                                        \
	X(icmp_errors, "ICMP errors received about our connections")                               \
	X(icmp_other, "other ICMP messages (ignored)")                                             \
	X(tcp_segments_in, "TCP segments accepted")                                                \
	X(tcp_ooo, "segments received out of order (queued)")                                      \
	X(tcp_dup, "segments wholly received before (duplicates)")                                 \
	X(tcp_acks_sent, "pure ACKs sent")                                                         \
	X(tcp_dupacks_sent, "immediate ACKs for out-of-order segments")                            \
	X(tcp_retransmits, "segments we retransmitted (SYN, request, FIN)")                        \
	X(tcp_rto, "retransmission timeouts")                                                      \
	X(tcp_rst_sent, "RSTs sent")                                                               \
	X(tcp_rst_rcvd, "RSTs accepted")                                                           \
	X(tcp_challenge_acks, "challenge ACKs (RFC 5961)")

struct fetch_counters {
#define X(n, d) uint64_t n;
	FETCH_COUNTERS(X)
#undef X
};

struct fetch_arp_slot {
	uint32_t ip; /* host order, 0: free */
	bool valid;
	struct rte_ether_addr mac;
	uint64_t asked_at; /* TSC of the last request */
};

struct tcp_conn;

struct fetch_net {
	uint16_t port;
	struct rte_mempool *pool;
	struct rte_ether_addr mac;
	uint32_t ip, mask, gw; /* host order; gw 0: none */
	uint16_t mtu;
	uint16_t ip_id;
	uint64_t hz;  /* TSC ticks per second */
	uint64_t now; /* TSC, set by the loop once per pass */
	struct fetch_arp_slot arp[FETCH_ARP_SLOTS];
	struct tcp_conn *conns[FETCH_MAX_CONN];
	/* out-of-order segments queued over all connections, and their bound (0:
	 * TCP_OOO_BUDGET): what a server or an injector can hold of the pool */
	unsigned int ooo_held, ooo_budget;
	unsigned int ntx;
	struct rte_mbuf *tx[FETCH_TX_MAX];
	struct fetch_counters c;
};

/* The next hop of dst (host order): dst itself on our subnet, else the gateway; 0 when
 * dst is off-link and there is no gateway. */
uint32_t net_next_hop(const struct fetch_net *n, uint32_t dst);
/* The MAC of next hop nh if resolved (returns true); otherwise sends an ARP request
 * (at most one a second) and returns false. */
bool net_resolve(struct fetch_net *n, uint32_t nh, struct rte_ether_addr *mac);
/* Handle one received frame (consumes m). */
void net_input(struct fetch_net *n, struct rte_mbuf *m);
/* An mbuf with Ethernet and IPv4 headers written for an l4_len-byte payload of protocol
 * proto to dst (whose next hop must be resolved); *l4 points at the payload. NULL when
 * the next hop is not resolved or the pool is empty (counted). */
struct rte_mbuf *net_ip_alloc(struct fetch_net *n, uint32_t dst, uint8_t proto, uint16_t l4_len,
			      uint8_t **l4);
/* Queue m for transmission (sent at the next net_flush, or now when the buffer is full). */
void net_send(struct fetch_net *n, struct rte_mbuf *m);
/* Send what is queued. */
void net_flush(struct fetch_net *n);

#endif
