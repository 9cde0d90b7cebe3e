/* SPDX-License-Identifier: BSD-3-Clause */
/* Frames of the gateway's data plane (fast.c), shared with single-plane mode (single.c).
 * Worker context only. */
#ifndef TP_NF_IOTGW_FAST_H
#define TP_NF_IOTGW_FAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../../core/worker.h"
#include "../../../proto/ip4.h"
#include "../iotgw.h"

#define TP_IOTGW_HDR_LEN (TP_ETH_HDR_LEN + TP_IP4_HDR_LEN + 8)
#define TP_IOTGW_COAP_SPORT 5683
/* Single plane's registration requests leave from their own port: a CoAP server
 * (aiocoap in ACME) deduplicates by (endpoint, message id), and the data plane's
 * NON requests number theirs independently. */
#define TP_IOTGW_REG_SPORT 5690

struct tp_iotgw_dp *tp_iotgw_wstate(const struct tp_worker *w);

/* A new mbuf from pool for a UDP payload: returns where the payload goes (room bytes
 * there; the headers go in the headroom in front of it), or NULL (no mbuf: counted in
 * dp). */
uint8_t *tp_iotgw_frame_to(struct tp_iotgw_dp *dp, struct rte_mempool *pool, struct rte_mbuf **m,
			   size_t *room);
/* Send it: len bytes of payload to dst:dport (host order) from the output port's
 * address, port sport, through the router's output (tp_udp_send, nf/ip4/output.h),
 * which counts what it cannot send (on in_port before a route is found). false: m was
 * dropped (counted there); true: sent, or handed to the kernel while the next hop
 * resolves. Consumes m. */
bool tp_iotgw_frame_send(struct tp_worker *w, struct rte_mbuf *m, uint16_t in_port, uint32_t dst,
			 uint16_t sport, uint16_t dport, size_t len, uint16_t ip_id);
/* Turn a received datagram m (l3, l4 inside it) into one carrying payload back
 * to its sender (addresses and ports swapped, out of the port it came in), and queue it. */
void tp_iotgw_reply(struct tp_worker *w, struct rte_mbuf *m, uint8_t *l3, uint8_t *l4,
		    const uint8_t *payload, size_t len);

#endif
