/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target for the l3 input path: frames received on a port, single or chained
 * (multi-segment) mbufs, through the l3 mode's input function into the IPv4 router and
 * ARP (src/nf/ip4/datapath/l3mode.c, input.c, forward.c, local.c), as an lcore runs it.
 *
 * An EAL without hugepages or devices; the router's tables as the unit test builds
 * them (tests/unit/test_ip4_fwd.c). Each segment's bytes are a heap buffer of their
 * own attached to a pool mbuf as an external buffer, so AddressSanitizer sees a read
 * past a segment (a first segment gets at least 64 bytes: the fast path may read a
 * short frame's header bytes, which a port's mbufs always have room for).
 *
 * Properties, per burst: every frame is counted exactly once (a drop or punt reason)
 * or waits in a transmit buffer; what waits there is a valid mbuf chain holding an
 * IPv4 header that passes RFC 1812 5.2.2's checks, its TTL one less and its checksum
 * right, addressed from the output port to the next hop, the rest of the packet as it
 * came (Ethernet padding cut off); what was punted is a valid chain with its bytes as
 * they came; after the control plane's side is emptied every mbuf is back in its pool
 * and every external buffer freed (the leak check).
 *
 * Input: records of [flags][split][length, 2 bytes big-endian][frame bytes]; flags
 * bit 0: port 1 (else 0; the first record's port is the burst's), bits 1-2: the NIC's
 * checksum verdict (none, good, bad, unknown), bits 3-4: segments - 1, bit 5: the
 * punt buckets are empty, bit 6: this record starts a new burst; split: bytes in each
 * segment but the last (0: an even split). A length past the end takes what is left.
 * Built and run by scripts/fuzz.sh. */
#include <stdbool.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "core/input.h"
#include "nf/ip4/l3mode.h"
#include "core/nf.h"
#include "core/rcu.h"
#include "core/tp.h"
#include "fuzz_dpdk.h"
#include "nf/ip4/ip4.h"
#include "proto/ip4.h"
#include "tables/iface.h"
#include "nf/ip4/control/neigh.h"
#include "nf/ip4/control/nexthop.h"
#include "nf/ip4/control/nhg.h"
#include "nf/ip4/control/route.h"

#define IP(a, b, c, d) (((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))
#define EXC_RING 16	 /* small: a burst can fill it */
#define FIRST_SEG_MIN 64 /* the room a port's mbuf has, at least */
#define MAX_FRAME 16384

static struct rte_mempool *pool;
static struct tp_worker *w;
static const uint8_t mac_port[2][6] = {{2, 0, 0, 0, 0, 0x10}, {2, 0, 0, 0, 0, 0x11}};
static const uint8_t mac_h2[6] = {2, 0, 0, 0, 2, 0x02};
static const uint8_t mac_h4[6] = {2, 0, 0, 0, 2, 0x04};
static unsigned int pool_base;
static unsigned long ext_live; /* external buffers not yet freed */

/* One frame of the burst: its mbuf and the bytes it came with. */
struct sent {
	struct rte_mbuf *m;
	uint64_t ol; /* the NIC's checksum verdict */
	uint32_t len;
	uint8_t bytes[MAX_FRAME];
};
static struct sent sent[TP_BURST];

static void ext_free(void *addr, void *opaque)
{
	free(addr);
	free(opaque);
	ext_live--;
}

/* A segment of len bytes (room bytes of buffer) holding data. */
static struct rte_mbuf *segment(const uint8_t *data, uint32_t len, uint32_t room)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_mbuf_ext_shared_info *sh = malloc(sizeof(*sh));
	uint8_t *buf = malloc(room ? room : 1);

	must(m != NULL && sh != NULL && buf != NULL);
	memset(buf, 0xa5, room);
	memcpy(buf, data, len);
	sh->free_cb = ext_free;
	sh->fcb_opaque = sh;
	rte_mbuf_ext_refcnt_set(sh, 1);
	rte_pktmbuf_attach_extbuf(m, buf, (rte_iova_t)(uintptr_t)buf, (uint16_t)room, sh);
	m->data_off = 0;
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	ext_live++;
	return m;
}

/* The frame as a chain of nseg segments of split bytes each (the last takes the rest). */
static struct rte_mbuf *frame(const uint8_t *data, uint32_t len, unsigned int nseg, uint32_t split,
			      uint16_t port, uint64_t ol)
{
	struct rte_mbuf *head = NULL, *tail = NULL;
	uint32_t off = 0;

	if (split == 0)
		split = (len + nseg - 1) / nseg;
	for (unsigned int k = 0; k < nseg; k++) {
		uint32_t n = k + 1 == nseg ? len - off : RTE_MIN(split, len - off);
		if (n == 0 && head != NULL)
			break; /* no empty segment after the first */
		struct rte_mbuf *s = segment(data + off, n, head ? n : RTE_MAX(n, FIRST_SEG_MIN));
		if (head == NULL) {
			head = s;
		} else {
			tail->next = s;
			head->nb_segs++;
			head->pkt_len += n;
		}
		tail = s;
		off += n;
	}
	head->port = port;
	head->ol_flags |= ol; /* beside RTE_MBUF_F_EXTERNAL */
	return head;
}

static void buckets(bool empty)
{
	for (unsigned int p = 0; p < 2; p++)
		for (unsigned int c = 0; c < TP_PUNT_CLASSES; c++)
			w->tb[p][c] = (struct tp_tbucket){
			    .tokens = empty ? 0 : UINT64_MAX / 4,
			    .cost = empty ? UINT64_MAX / 8 : 1,
			    .max_tokens = empty ? 0 : UINT64_MAX / 4,
			    .last_tsc = rte_rdtsc(),
			};
}

/* At exit, the tables give back what they hold (in DPDK memory that LeakSanitizer does
 * not scan, so it would take it for leaked). */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{

	fuzz_eal_init("fuzz-ip4", 256);
	fuzz_tables_init();
	pool = rte_pktmbuf_pool_create("fuzz", 4095, 0, TP_MBUF_PRIV_SIZE, 0, SOCKET_ID_ANY);
	w = rte_zmalloc("w", sizeof(*w), RTE_CACHE_LINE_SIZE);
	must(pool != NULL && w != NULL);
	w->ctr = rte_zmalloc("ctr", sizeof(uint64_t) * TP_MAX_PORTS * TP_CTR_MAX, 0);
	w->exc_ring[0] =
	    rte_ring_create("exc0", EXC_RING, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	w->exc_ring[1] =
	    rte_ring_create("exc1", EXC_RING, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	must(w->ctr != NULL && w->exc_ring[0] != NULL && w->exc_ring[1] != NULL);
	tp.n_workers = 1;
	tp.workers[0] = w;
	/* the router registers IPv4 and ARP in the l3 mode's ethertype table */
	must(tp_ip4_datapath_register() == 0);
	for (unsigned int p = 0; p < 2; p++) {
		memcpy(&tp_iface_table[p].mac, mac_port[p], 6);
		/* down: a full transmit buffer is flushed into port_down (no device here) */
		tp_iface_table[p].up = 0;
		tp_iface_table[p].input = tp_l3_input;
		/* the subnets the control class's single-hop protocols come from */
		tp_ip4_port_addr_set(p, IP(10, 0, p + 1, 1), 24);
	}
	/* a control peer beyond the subnets, with GTSM (ip4.h) */
	tp_ip4_ctl_peers[0] = TP_IP4_CTL_PEER_USED | 255ull << 40 | 16ull << 32 | IP(10, 9, 0, 0);
	tp_ip4_ctl_peers_n = 1;
	/* p0 10.0.1.1/24, p1 10.0.2.1/24, 10.0.2.2 resolved, 10.0.2.3 not; 10.9/16 via the
	 * first, 10.8/16 via the second, 10.0.1.255 a broadcast address */
	tp_route_add(IP(10, 0, 1, 0), 24, TP_ROUTE_CONNECTED, 0, 0, 1);
	tp_route_add(IP(10, 0, 1, 1), 32, TP_ROUTE_LOCAL, 0, 0, 1);
	tp_route_add(IP(10, 0, 1, 255), 32, TP_ROUTE_LOCAL, 0, 0, 1);
	tp_route_add(IP(10, 0, 2, 0), 24, TP_ROUTE_CONNECTED, 0, 1, 1);
	tp_route_add(IP(10, 0, 2, 1), 32, TP_ROUTE_LOCAL, 0, 1, 1);
	tp_route_add(IP(10, 9, 0, 0), 16, TP_ROUTE_GATEWAY, IP(10, 0, 2, 2), 1, 1);
	tp_route_add(IP(10, 8, 0, 0), 16, TP_ROUTE_GATEWAY, IP(10, 0, 2, 3), 1, 1);
	int nh = tp_neigh_learn(IP(10, 0, 2, 2), 1, mac_h2);
	must(nh >= 0);
	tp_route_host_update(IP(10, 0, 2, 2), 1, nh);
	/* ECMP: 10.7/16 through a group of 10.0.2.2, 10.0.2.4 (resolved, weight 2) and the
	 * unresolved 10.0.2.3 */
	const struct tp_route_hop hops[] = {
	    {IP(10, 0, 2, 2), 1, 1, 0, {0}},
	    {IP(10, 0, 2, 4), 1, 2, 0, {0}},
	    {IP(10, 0, 2, 3), 1, 1, 0, {0}},
	};
	must(tp_neigh_learn(IP(10, 0, 2, 4), 1, mac_h4) >= 0);
	must(tp_route_add_multipath(IP(10, 7, 0, 0), 16, hops, 3, 1) == 0);
	pool_base = rte_mempool_in_use_count(pool);
	return 0;
}

/* Every drop and punt reason (a packet's fate, counted once); events (the control
 * class's demotions) are not fates. */
static uint64_t ctr_total(void)
{
	uint64_t v = 0;

	for (unsigned int p = 0; p < 2; p++)
		for (unsigned int i = 0; i < TP_CTR_MAX; i++)
			if (tp_ctr_kind(i) != TP_CTR_EVENT)
				v += w->ctr[p][i];
	return v;
}

/* The control class's demotions (events), all ports and reasons. */
static uint64_t demoted_total(void)
{
	uint64_t v = 0;

	for (unsigned int p = 0; p < 2; p++)
		v += w->ctr[p][IP4_CTR(CTL_DEMOTED_TTL)] + w->ctr[p][IP4_CTR(CTL_DEMOTED_SOURCE)] +
		     w->ctr[p][IP4_CTR(CTL_DEMOTED_DESTINATION)];
	return v;
}

static int sent_index(const struct rte_mbuf *m, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (sent[i].m == m)
			return (int)i;
	return -1;
}

/* The packet's bytes, all segments, into buf (at most cap). */
static uint32_t flat(const struct rte_mbuf *m, uint8_t *buf, uint32_t cap)
{
	const void *p = rte_pktmbuf_read(m, 0, RTE_MIN(m->pkt_len, cap), buf);

	must(p != NULL);
	if (p != buf)
		memcpy(buf, p, RTE_MIN(m->pkt_len, cap));
	return m->pkt_len;
}

static void check_chain(const struct rte_mbuf *m)
{
	const char *why = NULL;

	must(rte_mbuf_check(m, 1, &why) == 0);
}

/* A frame waiting to go out on port p. */
static void check_forwarded(const struct rte_mbuf *m, uint16_t p, unsigned int n)
{
	static uint8_t out[MAX_FRAME];
	int i = sent_index(m, n);

	must(i >= 0);
	check_chain(m);
	const struct sent *s = &sent[i];
	uint32_t len = flat(m, out, sizeof(out));
	const uint8_t *ip = out + 14, *in = s->bytes + 14;
	must(len >= 14 + 20 && len <= s->len);
	/* RFC 1812 5.2.2: what leaves was a well-formed IPv4 packet */
	must(ip[0] == 0x45 && ((uint32_t)ip[2] << 8 | ip[3]) == len - 14);
	/* its checksum verifies (RFC 1071), unless a NIC said a bad one was good */
	must(tp_csum_fold_sum(ip, 20) == 0xffff || s->ol == RTE_MBUF_F_RX_IP_CKSUM_GOOD);
	/* to the next hop, from the output port, the TTL one less (RFC 1812 5.3.1); through
	 * a group, to the member its flow's hash picks (what it hashes is unchanged) */
	uint32_t d = (uint32_t)ip[16] << 24 | ip[17] << 16 | ip[18] << 8 | ip[19];
	uint32_t e = tp_route_entry(tp_route_lpm, d);
	must(e & RTE_LPM_LOOKUP_SUCCESS);
	uint64_t v = tp_nh_l2_load(
	    tp_nhg_resolve(e & 0x00ffffff, tp_nhg_hash_ip4(ip, rte_pktmbuf_data_len(m) - 14)));
	must(memcmp(out, &v, 6) == 0 && (memcmp(out, mac_h2, 6) == 0 || (d >> 16) == 0x0a07));
	must(p == tp_nh_l2_port(v) && p == 1 && memcmp(out + 6, mac_port[1], 6) == 0);
	must(out[12] == 0x08 && out[13] == 0x00);
	must(ip[8] == in[8] - 1 && in[8] > 1 && ip[9] == in[9]);
	must(memcmp(ip, in, 8) == 0 && memcmp(ip + 12, in + 12, len - 14 - 12) == 0);
}

/* A frame handed to the control plane: as it came, the padding perhaps cut off. */
static void check_punted(const struct rte_mbuf *m, unsigned int n)
{
	static uint8_t out[MAX_FRAME];
	int i = sent_index(m, n);

	must(i >= 0);
	check_chain(m);
	uint32_t len = flat(m, out, sizeof(out));
	must(len <= sent[i].len && memcmp(out, sent[i].bytes, len) == 0);
	if (len < sent[i].len) /* only an IPv4 packet loses its Ethernet padding */
		must(len >= 34 && ((uint32_t)out[16] << 8 | out[17]) == len - 14);
}

/* Run one burst of n frames, check, and empty every place a frame can be. */
static void burst(unsigned int n, uint16_t port)
{
	struct rte_mbuf *pkts[TP_BURST];
	uint64_t before = ctr_total(), demoted = demoted_total();
	unsigned int waiting = 0, punted = 0, punted_ctl = 0;
	void *m;

	for (unsigned int i = 0; i < n; i++)
		pkts[i] = sent[i].m;
	tp_iface_table[port].input(w, pkts, (uint16_t)n);

	for (uint16_t p = 0; p < TP_MAX_PORTS; p++) {
		struct tp_txbuf *b = &w->txb[p];
		must(b->n < TP_BURST);
		for (unsigned int k = 0; k < b->n; k++)
			check_forwarded(b->pkts[k], p, n);
		waiting += b->n;
	}
	for (int k = 0; k < 2; k++)
		while (rte_ring_dequeue(w->exc_ring[k], &m) == 0) {
			check_punted(m, n);
			/* the priority ring holds only the control and ARP classes */
			uint8_t cls = tp_mbuf_priv(m)->punt_class;
			must((k == 0) == (cls == TP_PUNT_CONTROL || cls == TP_PUNT_ARP));
			punted_ctl += cls == TP_PUNT_CONTROL;
			rte_pktmbuf_free(m);
			punted++;
		}
	/* every frame counted once, or waiting to go out */
	must(ctr_total() - before + waiting == n);
	must(punted <= n);
	/* a demoted packet was punted (other class) or dropped at its bucket, once */
	must(demoted_total() - demoted + punted_ctl <= n);
	for (unsigned int p = 0; p < TP_MAX_PORTS; p++) {
		rte_pktmbuf_free_bulk(w->txb[p].pkts, w->txb[p].n);
		w->txb[p].n = 0;
	}
	w->tx_dirty = 0;
	/* the leak check: every mbuf back in the pool, every segment's buffer freed */
	must(rte_mempool_in_use_count(pool) == pool_base);
	must(ext_live == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t cksum[4] = {RTE_MBUF_F_RX_IP_CKSUM_NONE, RTE_MBUF_F_RX_IP_CKSUM_GOOD,
					  RTE_MBUF_F_RX_IP_CKSUM_BAD,
					  RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN};
	unsigned int n = 0;
	uint16_t port = 0;
	size_t off = 0;

	while (size - off >= 4) {
		uint8_t flags = data[off], split = data[off + 1];
		uint32_t len = (uint32_t)data[off + 2] << 8 | data[off + 3];
		off += 4;
		len = (uint32_t)RTE_MIN((size_t)len, size - off);
		len = RTE_MIN(len, (uint32_t)MAX_FRAME);
		if (n > 0 && (n == TP_BURST || (flags & 0x40))) {
			burst(n, port);
			n = 0;
		}
		if (n == 0) {
			port = flags & 1;
			buckets(flags & 0x20);
		}
		sent[n].len = len;
		sent[n].ol = cksum[(flags >> 1) & 3];
		memcpy(sent[n].bytes, data + off, len);
		/* a frame received on a port carries that port's id, whatever the record says */
		sent[n].m = frame(data + off, len, 1 + ((flags >> 3) & 3), split, port, sent[n].ol);
		n++;
		off += len;
	}
	if (n > 0)
		burst(n, port);
	return 0;
}
