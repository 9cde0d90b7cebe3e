/* SPDX-License-Identifier: BSD-3-Clause */
/* Ethernet, ARP, IPv4 and ICMP of twinplane-fetch's host stack. */
#include <string.h>

#include <rte_ethdev.h>

#include "../proto/ip4.h"
#include "../proto/tcp.h"
#include "net.h"
#include "tcp.h"

#define ICMP_ECHO_REPLY 0
#define ICMP_UNREACH 3
#define ICMP_ECHO 8
#define ICMP_TIME_EXCEEDED 11

uint32_t net_next_hop(const struct fetch_net *n, uint32_t dst)
{
	if ((dst & n->mask) == (n->ip & n->mask))
		return dst;
	return n->gw;
}

static struct fetch_arp_slot *arp_find(struct fetch_net *n, uint32_t ip)
{
	for (unsigned int i = 0; i < FETCH_ARP_SLOTS; i++)
		if (n->arp[i].ip == ip)
			return &n->arp[i];
	return NULL;
}

static void arp_send(struct fetch_net *n, uint16_t op, const uint8_t *dmac, uint32_t tpa,
		     const uint8_t *tha)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(n->pool);
	struct tp_arp a = {.op = op, .spa = n->ip, .tpa = tpa};

	if (m == NULL) {
		n->c.tx_no_mbuf++;
		return;
	}
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, TP_ETH_HDR_LEN + TP_ARP_LEN);
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)p;
	memcpy(&eh->dst_addr, dmac, 6);
	rte_ether_addr_copy(&n->mac, &eh->src_addr);
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	memcpy(a.sha, &n->mac, 6);
	memcpy(a.tha, tha, 6);
	tp_arp_write(p + TP_ETH_HDR_LEN, &a);
	net_send(n, m);
}

bool net_resolve(struct fetch_net *n, uint32_t nh, struct rte_ether_addr *mac)
{
	static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, zero[6];
	struct fetch_arp_slot *s = arp_find(n, nh);

	if (s && s->valid) {
		*mac = s->mac;
		return true;
	}
	if (s == NULL) {
		/* the oldest request's slot gives way: a downloader talks to one or two hops */
		s = &n->arp[0];
		for (unsigned int i = 0; i < FETCH_ARP_SLOTS; i++) {
			if (n->arp[i].ip == 0) {
				s = &n->arp[i];
				break;
			}
			if (!n->arp[i].valid && n->arp[i].asked_at < s->asked_at)
				s = &n->arp[i];
		}
		memset(s, 0, sizeof(*s));
		s->ip = nh;
	}
	if (s->asked_at == 0 || n->now - s->asked_at >= n->hz) {
		s->asked_at = n->now;
		arp_send(n, TP_ARP_REQUEST, bcast, nh, zero);
		n->c.arp_requests_sent++;
	}
	return false;
}

/* RFC 826 "Packet reception": merge the sender into the table if we have it (or the
 * packet is for us), answer requests for our address. */
static void arp_input(struct fetch_net *n, struct rte_mbuf *m, const uint8_t *p, size_t len)
{
	struct tp_arp a;

	if (tp_arp_parse(p, len, &a) < 0) {
		n->c.drop_arp_bad++;
		goto free;
	}
	struct fetch_arp_slot *s = arp_find(n, a.spa);
	if (s == NULL && a.tpa == n->ip && a.spa != 0) {
		for (unsigned int i = 0; i < FETCH_ARP_SLOTS && s == NULL; i++)
			if (n->arp[i].ip == 0)
				s = &n->arp[i];
		if (s)
			s->ip = a.spa;
	}
	if (s && a.spa != 0) {
		memcpy(&s->mac, a.sha, 6);
		s->valid = true;
		n->c.arp_learned++;
	}
	if (a.op == TP_ARP_REQUEST && a.tpa == n->ip) {
		arp_send(n, TP_ARP_REPLY, a.sha, a.spa, a.sha);
		n->c.arp_replies_sent++;
	}
free:
	rte_pktmbuf_free(m);
}

struct rte_mbuf *net_ip_alloc(struct fetch_net *n, uint32_t dst, uint8_t proto, uint16_t l4_len,
			      uint8_t **l4)
{
	struct rte_ether_addr dmac;
	struct rte_mbuf *m;

	if (!net_resolve(n, net_next_hop(n, dst), &dmac))
		return NULL;
	m = rte_pktmbuf_alloc(n->pool);
	if (m == NULL) {
		n->c.tx_no_mbuf++;
		return NULL;
	}
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, TP_ETH_HDR_LEN + TP_IP4_HDR_LEN + l4_len);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		n->c.tx_no_mbuf++;
		return NULL;
	}
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)p;
	rte_ether_addr_copy(&dmac, &eh->dst_addr);
	rte_ether_addr_copy(&n->mac, &eh->src_addr);
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	tp_ip4_write(p + TP_ETH_HDR_LEN, htonl(n->ip), htonl(dst), proto, 64, l4_len, n->ip_id++);
	*l4 = p + TP_ETH_HDR_LEN + TP_IP4_HDR_LEN;
	return m;
}

void net_flush(struct fetch_net *n)
{
	unsigned int sent = 0;

	while (sent < n->ntx) {
		uint16_t k = rte_eth_tx_burst(n->port, 0, n->tx + sent, (uint16_t)(n->ntx - sent));
		if (k == 0)
			break;
		sent += k;
	}
	n->c.tx_frames += sent;
	if (sent < n->ntx) {
		n->c.tx_full += n->ntx - sent;
		rte_pktmbuf_free_bulk(n->tx + sent, n->ntx - sent);
	}
	n->ntx = 0;
}

void net_send(struct fetch_net *n, struct rte_mbuf *m)
{
	if (n->ntx == FETCH_TX_MAX)
		net_flush(n);
	n->tx[n->ntx++] = m;
}

/* ICMP (RFC 792): echo answered in place; errors about our TCP passed to tcp. */
static void icmp_input(struct fetch_net *n, struct rte_mbuf *m, uint8_t *ip, size_t hlen,
		       size_t tot)
{
	uint8_t *icmp = ip + hlen;
	size_t len = tot - hlen;

	if (len < 8 || tp_csum_fold_sum(icmp, len) != 0xffff) {
		n->c.drop_icmp_bad++;
		goto free;
	}
	if (icmp[0] == ICMP_ECHO && icmp[1] == 0) {
		struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		struct rte_ether_addr t;
		uint32_t src, dst;

		rte_ether_addr_copy(&eh->src_addr, &t);
		rte_ether_addr_copy(&eh->dst_addr, &eh->src_addr);
		rte_ether_addr_copy(&t, &eh->dst_addr);
		rte_ether_addr_copy(&n->mac, &eh->src_addr);
		memcpy(&src, ip + 12, 4);
		memcpy(&dst, ip + 16, 4);
		/* the reply: the request's data, a fresh header without options */
		if (hlen != TP_IP4_HDR_LEN) {
			memmove(ip + TP_IP4_HDR_LEN, icmp, len);
			icmp = ip + TP_IP4_HDR_LEN;
			rte_pktmbuf_trim(m, (uint16_t)(hlen - TP_IP4_HDR_LEN));
		}
		icmp[0] = ICMP_ECHO_REPLY;
		icmp[2] = icmp[3] = 0;
		uint16_t ck = (uint16_t)~tp_csum_fold_sum(icmp, len);
		memcpy(icmp + 2, &ck, 2);
		tp_ip4_write(ip, dst, src, TP_IPPROTO_ICMP, 64, (uint16_t)len, n->ip_id++);
		/* no trailing padding of the request */
		rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_data_len(m) -
					       (TP_ETH_HDR_LEN + TP_IP4_HDR_LEN + len)));
		n->c.icmp_echo_replies++;
		net_send(n, m);
		return;
	}
	if ((icmp[0] == ICMP_UNREACH || icmp[0] == ICMP_TIME_EXCEEDED) && len >= 8 + 20 + 8) {
		/* the offending datagram's header and its first 8 bytes (RFC 792) */
		const uint8_t *in = icmp + 8;
		size_t ihl = (size_t)(in[0] & 0x0f) * 4;
		if ((in[0] >> 4) == 4 && ihl >= 20 && len >= 8 + ihl + 8 &&
		    in[9] == TP_IPPROTO_TCP) {
			uint32_t idst;
			memcpy(&idst, in + 16, 4);
			if (tcp_icmp_error(n, ntohl(idst), in + ihl, icmp[0], icmp[1]))
				n->c.icmp_errors++;
			else
				n->c.icmp_other++;
			goto free;
		}
	}
	n->c.icmp_other++;
free:
	rte_pktmbuf_free(m);
}

static void ip_input(struct fetch_net *n, struct rte_mbuf *m, uint8_t *ip, size_t avail)
{
	uint32_t src, dst;

	if (tp_ip4_check(ip, avail) != TP_IP4_OK) {
		n->c.drop_ip_bad++;
		goto free;
	}
	size_t hlen = (size_t)(ip[0] & 0x0f) * 4;
	size_t tot = (size_t)ip[2] << 8 | ip[3];
	memcpy(&src, ip + 12, 4);
	memcpy(&dst, ip + 16, 4);
	if (ntohl(dst) != n->ip) {
		n->c.drop_ip_not_ours++;
		goto free;
	}
	/* MF set or a fragment offset (RFC 791 3.1) */
	if ((ip[6] & 0x20) || ((ip[6] & 0x1f) | ip[7])) {
		n->c.drop_ip_fragment++;
		goto free;
	}
	switch (ip[9]) {
	case TP_IPPROTO_TCP:
		tcp_input(n, m, ntohl(src), ip + hlen, tot - hlen);
		return;
	case TP_IPPROTO_ICMP:
		icmp_input(n, m, ip, hlen, tot);
		return;
	default:
		n->c.drop_ip_proto++;
	}
free:
	rte_pktmbuf_free(m);
}

void net_input(struct fetch_net *n, struct rte_mbuf *m)
{
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	size_t len = rte_pktmbuf_data_len(m);

	n->c.rx_frames++;
	n->c.rx_bytes += rte_pktmbuf_pkt_len(m);
	if (m->nb_segs > 1) {
		n->c.drop_chained++;
		goto free;
	}
	if (len < TP_ETH_HDR_LEN) {
		n->c.drop_runt++;
		goto free;
	}
	const struct rte_ether_hdr *eh = (const struct rte_ether_hdr *)p;
	if (!rte_is_same_ether_addr(&eh->dst_addr, &n->mac) &&
	    !rte_is_broadcast_ether_addr(&eh->dst_addr)) {
		n->c.drop_not_for_us++;
		goto free;
	}
	switch (rte_be_to_cpu_16(eh->ether_type)) {
	case RTE_ETHER_TYPE_IPV4:
		ip_input(n, m, p + TP_ETH_HDR_LEN, len - TP_ETH_HDR_LEN);
		return;
	case RTE_ETHER_TYPE_ARP:
		arp_input(n, m, p + TP_ETH_HDR_LEN, len - TP_ETH_HDR_LEN);
		return;
	default:
		n->c.drop_ethertype++;
	}
free:
	rte_pktmbuf_free(m);
}
