/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target for the IPv6 input path: frames received on a port, single or
 * chained (multi-segment) mbufs, through the l3 mode's input function into the IPv6
 * router (src/nf/ip6/datapath/input.c, local.c), as an lcore runs it, while the
 * control plane changes the tables between bursts (a neighbour forgotten and learnt
 * again, a route switched between a gateway and an unreachable route: both route
 * copies, the log and the next hops' references in play).
 *
 * An EAL without hugepages or devices; the tables as the unit test builds them
 * (tests/unit/test_ip6_fwd.c). Each segment's bytes are a heap buffer of their own
 * attached to a pool mbuf as an external buffer, so AddressSanitizer sees a read past
 * a segment (a first segment gets at least 64 bytes, as a port's mbufs have).
 *
 * Properties, per burst: every frame is counted exactly once (a drop or punt reason)
 * or waits in a transmit buffer; what waits there is a valid chain holding an IPv6
 * header that passes RFC 8200 3's checks and whose payload length is the frame's, its
 * hop limit one less (and was more than 1), no Hop-by-Hop or Routing header,
 * addressed from port 1 to the resolved neighbour, the rest as it came; what was
 * punted is a valid chain with its bytes as they came (Ethernet padding perhaps cut)
 * and the priority ring holds only the control class; after the control plane's side
 * is emptied every mbuf is back in its pool and every external buffer freed. After
 * every table change the log empties (no reader here: grace periods end at once).
 *
 * Input: records of [flags][split][length, 2 bytes big-endian][frame bytes]; flags
 * bit 0: port 1 (else 0; the first record's port is the burst's), bit 1: forget the
 * neighbour 2001:db8:2::2 (or learn it again) before the burst, bit 2: switch
 * 2001:db8:9::/48 between via that neighbour and unreachable, bits 3-4: segments - 1,
 * bit 5: the punt buckets are empty, bit 6: this record starts a new burst; split:
 * bytes in each segment but the last (0: an even split). Built and run by
 * scripts/fuzz.sh. */
#include <stdbool.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "core/input.h"
#include "core/mbuf.h"
#include "core/nf.h"
#include "core/tp.h"
#include "fuzz_dpdk.h"
#include "nf/ip4/ip4.h"
#include "nf/ip4/l3mode.h"
#include "nf/ip6/control/neigh6.h"
#include "nf/ip6/control/route6.h"
#include "nf/ip6/ip6.h"
#include "proto/ip6.h"
#include "tables/iface.h"

#define EXC_RING 16	 /* small: a burst can fill it */
#define FIRST_SEG_MIN 64 /* the room a port's mbuf has, at least */
#define MAX_FRAME 16384

static struct rte_mempool *pool;
static struct tp_worker *w;
static const uint8_t mac_port[2][6] = {{2, 0, 0, 0, 0, 0x10}, {2, 0, 0, 0, 0, 0x11}};
static const uint8_t mac_h2[6] = {2, 0, 0, 0, 2, 0x02};
static unsigned int pool_base;
static unsigned long ext_live; /* external buffers not yet freed */
static bool h2_learned = true, via_unreachable;

struct sent {
	struct rte_mbuf *m;
	uint32_t len;
	uint8_t bytes[MAX_FRAME];
};
static struct sent sent[TP_BURST];

/* 2001:db8:<net>::<host> */
static const uint8_t *A(uint16_t net, uint16_t host)
{
	static uint8_t a[4][16];
	static unsigned int i;
	uint8_t *p = a[i++ % 4];

	memset(p, 0, 16);
	p[0] = 0x20, p[1] = 0x01, p[2] = 0x0d, p[3] = 0xb8;
	p[4] = (uint8_t)(net >> 8), p[5] = (uint8_t)net;
	p[14] = (uint8_t)(host >> 8), p[15] = (uint8_t)host;
	return p;
}

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
			      uint16_t port)
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

/* Publish what the control plane changed: with no reader, every grace period is
 * over at once, so two polls bring both copies up to date. */
static void settle(void)
{
	tp_route6_poll();
	tp_route6_poll();
	must(tp_route6_pending() == 0);
}

static void tables_fini(void)
{
	tp_rcu_reclaim();
	tp_ip6_tables_fini();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_eal_init("fuzz-ip6", 384);
	fuzz_tables_init();
	must(tp_ip6_tables_init(1024, 1024, 256) == 0);
	atexit(tables_fini); /* before fuzz_tables_fini: the next hops are ip4's */
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
	/* IPv4 first, then IPv6 in the l3 mode's ethertype table, as the daemon does */
	must(tp_ip4_datapath_register() == 0);
	must(tp_ip6_datapath_register() == 0);
	for (unsigned int p = 0; p < 2; p++) {
		memcpy(&tp_iface_table[p].mac, mac_port[p], 6);
		/* down: a full transmit buffer is flushed into port_down (no device here) */
		tp_iface_table[p].up = 0;
		tp_iface_table[p].mtu = 1500;
		tp_iface_table[p].input = tp_l3_input;
	}
	/* p0 2001:db8:1::1/64, p1 2001:db8:2::1/64, 2001:db8:2::2 resolved, 2001:db8:9::/48
	 * via it, 2001:db8:8::/48 via 2001:db8:2::3 (not resolved), kernel routes without
	 * a next hop */
	must(tp_ip6_route_add(A(1, 0), 64, TP_ROUTE6_CONNECTED, NULL, 0) == 0);
	must(tp_ip6_route_add(A(1, 1), 128, TP_ROUTE6_LOCAL, NULL, 0) == 0);
	must(tp_ip6_route_add(A(2, 0), 64, TP_ROUTE6_CONNECTED, NULL, 1) == 0);
	must(tp_ip6_route_add(A(2, 1), 128, TP_ROUTE6_LOCAL, NULL, 1) == 0);
	must(tp_ip6_route_add(A(9, 0), 48, TP_ROUTE6_GATEWAY, A(2, 2), 1) == 0);
	must(tp_ip6_route_add(A(8, 0), 48, TP_ROUTE6_GATEWAY, A(2, 3), 1) == 0);
	must(tp_ip6_route_add(A(0x66, 0), 48, TP_ROUTE6_BLACKHOLE, NULL, 0) == 0);
	must(tp_ip6_route_add(A(0x67, 0), 48, TP_ROUTE6_UNREACHABLE, NULL, 0) == 0);
	must(tp_ip6_route_add(A(0x68, 0), 48, TP_ROUTE6_PROHIBIT, NULL, 0) == 0);
	must(tp_neigh6_learn(A(2, 2), 1, mac_h2) >= 0);
	settle();
	pool_base = rte_mempool_in_use_count(pool);
	return 0;
}

/* Every drop and punt reason (a packet's fate, counted once); not the events. */
static uint64_t ctr_total(void)
{
	uint64_t v = 0;

	for (unsigned int p = 0; p < 2; p++)
		for (unsigned int i = 0; i < TP_CTR_MAX; i++)
			if (tp_ctr_kind(i) != TP_CTR_EVENT)
				v += w->ctr[p][i];
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
	must(len >= 14 + TP_IP6_HDR_LEN && len <= s->len);
	/* RFC 8200 3: a well-formed header, the payload length the packet's */
	must(tp_ip6_check(ip, len - 14) == TP_IP6_OK && tp_ip6_plen(ip) + 40u == len - 14);
	must(ip[6] != TP_IP6_NH_HOP_BY_HOP && ip[6] != TP_IP6_NH_ROUTING);
	/* never a group, link-local, loopback or unspecified address forwarded */
	must(!tp_ip6_is_multicast(ip + 24) && !tp_ip6_is_link_local(ip + 24) &&
	     !tp_ip6_is_link_local(ip + 8) && !tp_ip6_is_multicast(ip + 8) &&
	     !tp_ip6_is_unspec_or_loopback(ip + 24));
	/* to the resolved neighbour, from port 1, the hop limit one less */
	must(h2_learned && p == 1 && memcmp(out, mac_h2, 6) == 0 &&
	     memcmp(out + 6, mac_port[1], 6) == 0);
	must(out[12] == 0x86 && out[13] == 0xdd);
	must(in[7] > 1 && ip[7] == in[7] - 1);
	must(memcmp(ip, in, 7) == 0 && memcmp(ip + 8, in + 8, len - 14 - 8) == 0);
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
	if (len < sent[i].len) /* only an IPv6 packet loses its Ethernet padding */
		must(len >= 54 && tp_ip6_plen(out + 14) + 40u == len - 14);
}

/* The control plane's changes before a burst (flags bits 1 and 2). */
static void tables_change(uint8_t flags)
{
	if (flags & 0x02) {
		if (h2_learned)
			must(tp_neigh6_learn(A(2, 2), 1, NULL) == -ENOENT);
		else
			must(tp_neigh6_learn(A(2, 2), 1, mac_h2) >= 0);
		h2_learned = !h2_learned;
	}
	if (flags & 0x04) {
		if (via_unreachable)
			must(tp_ip6_route_add(A(9, 0), 48, TP_ROUTE6_GATEWAY, A(2, 2), 1) == 0);
		else
			must(tp_ip6_route_add(A(9, 0), 48, TP_ROUTE6_UNREACHABLE, NULL, 0) == 0);
		via_unreachable = !via_unreachable;
	}
	settle();
	tp_rcu_reclaim();
	/* a neighbour stays while a route holds it or the kernel has it (2001:db8:2::3:
	 * the route via it); learnt, it has a host route too */
	must(tp_neigh6_count() == 1u + (h2_learned || !via_unreachable));
	must((tp_route6_find(A(2, 2), 128) != NULL) == h2_learned);
}

/* Run one burst of n frames, check, and empty every place a frame can be. */
static void burst(unsigned int n, uint16_t port)
{
	struct rte_mbuf *pkts[TP_BURST];
	uint64_t before = ctr_total();
	unsigned int waiting = 0, punted = 0;
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
			uint8_t cls = tp_mbuf_priv(m)->punt_class;
			must((k == 0) == (cls == TP_PUNT_CONTROL || cls == TP_PUNT_ARP));
			rte_pktmbuf_free(m);
			punted++;
		}
	/* every frame counted once, or waiting to go out */
	must(ctr_total() - before + waiting == n);
	must(punted <= n);
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
			if (flags & 0x06)
				tables_change(flags);
		}
		sent[n].len = len;
		memcpy(sent[n].bytes, data + off, len);
		/* a frame received on a port carries that port's id, whatever the record says */
		sent[n].m = frame(data + off, len, 1 + ((flags >> 3) & 3), split, port);
		n++;
		off += len;
	}
	if (n > 0)
		burst(n, port);
	return 0;
}
