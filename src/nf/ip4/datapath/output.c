/* SPDX-License-Identifier: BSD-3-Clause */
/* The output of what the data plane originates: route, next hop, MTU, Ethernet header,
 * transmit buffer (output.h). The router's forwarding (input.c) keeps its own burst
 * loop with a next-hop cache; both read the same tables and count the same way. */
#include <rte_lpm.h>

#include "../../../proto/ip4.h"
#include "../../../proto/udp.h"
#include "../../../tables/iface.h"
#include "../control/nexthop.h"
#include "../control/nhg.h"
#include "../control/route.h"
#include "../ip4.h"
#include "../output.h"

/* The port a drop is charged to before a route names one. */
static inline uint16_t charge_port(const struct rte_mbuf *m)
{
	return m->port < TP_MAX_PORTS ? m->port : 0;
}

/* Next-hop id of dst (host order), UINT32_MAX for no route; its forwarding word in *v
 * (0 for no route). A next-hop group gives its member for the flow of m's IPv4 header
 * (IHL 5, total length set, at m's data) or, with m NULL, of a UDP datagram from src
 * (0: not chosen yet) port sport to dport; the hash only then (tp_udp_send's path). */
static inline uint32_t out_lookup(uint32_t dst, uint64_t *v, const struct rte_mbuf *m, uint32_t src,
				  uint16_t sport, uint16_t dport)
{
	uint32_t id;

	tp_route_lookup_bulk(&dst, &id, 1);
	if (unlikely(id != UINT32_MAX && (id & TP_NH_GROUP)))
		id = tp_nhg_pick(
		    id & TP_NHG_ID_MASK,
		    m != NULL
			? tp_nhg_hash_ip4(rte_pktmbuf_mtod(m, const uint8_t *),
					  rte_pktmbuf_data_len(m))
			: tp_nhg_hash(rte_cpu_to_be_32(src), rte_cpu_to_be_32(dst), TP_IPPROTO_UDP,
				      rte_cpu_to_be_16(sport) ^ rte_cpu_to_be_16(dport)));
	*v = id == UINT32_MAX ? 0 : tp_nh_l2_load(id);
	return id;
}

/* The port a packet to dst through next hop (id, v) leaves by, or is punted through:
 * the neighbour's; for a connected subnet without a host entry yet, the port whose
 * subnet holds dst; else m's (unfit, local, no route). */
static uint16_t out_port(const struct rte_mbuf *m, uint32_t dst, uint32_t id, uint64_t v)
{
	if (id != UINT32_MAX && !tp_nh_special(id))
		return tp_nh_l2_port(v);
	if (id == TP_NH_CONNECTED)
		for (uint16_t p = 0; p < TP_MAX_PORTS; p++) {
			uint8_t d;
			uint32_t ip = tp_ip4_port_addr(p, &d);
			if (ip != 0 && d != 0 && d <= 32 && ((dst ^ ip) >> (32 - d)) == 0)
				return p;
		}
	return charge_port(m);
}

/* To the kernel through port's TAP, as a frame to the port's MAC (the TAP's): the
 * kernel routes it (the neighbour resolved on the way) and sends it back out through
 * the TAP. Counted as c (a PUNT counter), within the port's "other" bucket. */
static enum tp_ip4_out out_punt(struct tp_worker *w, struct rte_mbuf *m, uint16_t port,
				unsigned int c)
{
	uint8_t *eth = (uint8_t *)rte_pktmbuf_prepend(m, TP_ETH_HDR_LEN);

	m->port = port;
	if (unlikely(eth == NULL)) {
		tp_drop(w, m, IP4_CTR(OUT_NO_HEADROOM));
		return TP_IP4_OUT_DROPPED;
	}
	memcpy(eth, &tp_iface_table[port].mac, 6);
	memcpy(eth + 6, &tp_iface_table[port].mac, 6);
	eth[12] = TP_ETHERTYPE_IP4 >> 8;
	eth[13] = TP_ETHERTYPE_IP4 & 0xff;
	tp_punt(w, m, tp_ip4_nf.ctr_base + c, TP_PUNT_OTHER);
	return TP_IP4_OUT_PUNTED;
}

/* m (data at its IPv4 header) to next hop (id, v): see output.h for where each kind of
 * next hop sends it. */
static enum tp_ip4_out out_nh(struct tp_worker *w, struct rte_mbuf *m, uint32_t dst, uint32_t id,
			      uint64_t v)
{
	uint16_t port;

	if (unlikely(!(tp_nh_l2_flags(v) & TP_NH_F_RESOLVED))) {
		switch (id) {
		case UINT32_MAX:
		case TP_NH_BLACKHOLE:
		case TP_NH_UNREACHABLE:
		case TP_NH_PROHIBIT:
			m->port = charge_port(m);
			tp_drop(w, m, IP4_CTR(OUT_NO_ROUTE));
			return TP_IP4_OUT_DROPPED;
		case TP_NH_UNFIT:
			return out_punt(w, m, charge_port(m), IP4_C_OUT_ROUTE_UNFIT);
		default:
			return out_punt(w, m, out_port(m, dst, id, v),
					tp_nh_l2_flags(v) & TP_NH_F_PUNT ? IP4_C_OUT_LOCAL
									 : IP4_C_OUT_UNRESOLVED);
		}
	}
	port = tp_nh_l2_port(v);
	m->port = port;
	const struct tp_iface *out = &tp_iface_table[port];
	/* an MTU of 0 is one nobody set (a bare test table): no limit */
	if (unlikely(out->mtu != 0 && rte_pktmbuf_pkt_len(m) > out->mtu)) {
		tp_drop(w, m, IP4_CTR(OUT_EXCEEDS_MTU));
		return TP_IP4_OUT_DROPPED;
	}
	uint8_t *eth = (uint8_t *)rte_pktmbuf_prepend(m, TP_ETH_HDR_LEN);
	if (unlikely(eth == NULL)) {
		tp_drop(w, m, IP4_CTR(OUT_NO_HEADROOM));
		return TP_IP4_OUT_DROPPED;
	}
	memcpy(eth, &v, 6); /* the neighbour's MAC: bytes 0-5 of the word (nexthop.h) */
	memcpy(eth + 6, &out->mac, 6);
	eth[12] = TP_ETHERTYPE_IP4 >> 8;
	eth[13] = TP_ETHERTYPE_IP4 & 0xff;
	tp_worker_tx_enqueue(w, m, port);
	return TP_IP4_OUT_SENT;
}

enum tp_ip4_out tp_ip4_output(struct tp_worker *w, struct rte_mbuf *m, uint32_t dst)
{
	uint64_t v;
	uint32_t id = out_lookup(dst, &v, m, 0, 0, 0);

	return out_nh(w, m, dst, id, v);
}

enum tp_ip4_out tp_udp_send(struct tp_worker *w, struct rte_mbuf *m, uint32_t src, uint32_t dst,
			    uint16_t sport, uint16_t dport, uint16_t ip_id)
{
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint8_t *ip = (uint8_t *)rte_pktmbuf_prepend(m, TP_IP4_HDR_LEN + TP_UDP_HDR_LEN);
	uint64_t v;
	uint32_t id;

	if (unlikely(ip == NULL || len > UINT16_MAX - TP_IP4_HDR_LEN - TP_UDP_HDR_LEN)) {
		m->port = charge_port(m);
		tp_drop(w, m, IP4_CTR(OUT_NO_HEADROOM));
		return TP_IP4_OUT_DROPPED;
	}
	id = out_lookup(dst, &v, NULL, src, sport, dport);
	if (src == 0) /* the address of the port it leaves by (output.h) */
		src = tp_ip4_port_addr(out_port(m, dst, id, v), NULL);
	tp_udp_write(ip + TP_IP4_HDR_LEN, sport, dport, (uint16_t)len);
	tp_ip4_write(ip, rte_cpu_to_be_32(src), rte_cpu_to_be_32(dst), TP_IPPROTO_UDP, 64,
		     (uint16_t)(TP_UDP_HDR_LEN + len), ip_id);
	return out_nh(w, m, dst, id, v);
}
