/* SPDX-License-Identifier: BSD-3-Clause */
/* What the l3 input fuzz targets (fuzz_ip4.c, fuzz_ip6.c) share: the input's records
 * turned into bursts of frames received on a port, each frame a chain of segments
 * whose bytes are heap buffers of their own attached as external buffers (so
 * AddressSanitizer sees a read past a segment), and the checks every burst ends
 * with: each frame counted once (a drop or punt reason) or waiting in a transmit
 * buffer, never a full one; each punted frame a valid chain with its bytes as they
 * came, the priority ring holding only the control and ARP classes; then every mbuf
 * back in its pool and every external buffer freed.
 *
 * Records: flags (1 byte), split (1), length (2, big-endian), the frame. flags bit 0:
 * port 1 (else 0; the first record's port is the burst's), bits 3-4: segments - 1,
 * bit 5: the punt buckets are empty, bit 6: this record starts a new burst; bits 1-2
 * are the target's (fuzz_l3_ops). split: bytes in each segment but the last (0: an
 * even split). A length past the end takes what is left. */
#ifndef TP_TESTS_FUZZ_L3_H
#define TP_TESTS_FUZZ_L3_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "core/mbuf.h"
#include "core/tp.h"
#include "core/worker.h"
#include "nf/ip4/l3mode.h"
#include "tables/iface.h"

#include "fuzz.h"

#define FUZZ_L3_FIRST_SEG_MIN 64 /* the room a port's mbuf has, at least */
#define FUZZ_L3_MAX_FRAME 16384

/* One frame of the burst: its mbuf and the bytes it came with. */
struct fuzz_l3_sent {
	struct rte_mbuf *m;
	uint64_t ol; /* the NIC's offload flags (a checksum verdict) */
	uint32_t len;
	uint8_t bytes[FUZZ_L3_MAX_FRAME];
};

/* A target's own parts. */
struct fuzz_l3_ops {
	/* before a burst's first frame is made: the target's flags bits 1-2 (may be NULL) */
	void (*burst_start)(uint8_t flags);
	/* the offload flags of a frame, from its record's flags (may be NULL: none) */
	uint64_t (*offload)(uint8_t flags);
	/* a frame waiting to go out on port p, sent[i] as it came: checks it */
	void (*check_forwarded)(const struct rte_mbuf *m, uint16_t p, const struct fuzz_l3_sent *s);
	/* a punted frame of len bytes (out) shorter than it came: whether the packet it
	 * holds is exactly that long (Ethernet padding cut) */
	bool (*padding_cut)(const uint8_t *out, uint32_t len);
	/* after a burst's checks: n frames, punted_ctl of them punted in the control class
	 * (may be NULL) */
	void (*burst_end)(unsigned int n, unsigned int punted_ctl);
};

/* The target's state (one per target: a target is one file). */
static struct {
	struct rte_mempool *pool;
	struct tp_worker *w;
	unsigned int pool_base; /* in-use mbufs between bursts */
	unsigned long ext_live; /* external buffers not yet freed */
	struct fuzz_l3_sent sent[TP_BURST];
} fl3;

/* The target's pool (4,095 mbufs), worker 0 with its counters and two exception rings
 * of exc_ring slots (small: a burst can fill them), ports 0 and 1 with MACs mac[p],
 * down (a full transmit buffer is flushed into port_down: no device here), in the l3
 * mode. The target registers its ethertypes and fills its tables, then sets
 * fl3.pool_base. */
static inline void fuzz_l3_init(const uint8_t mac[2][6], unsigned int exc_ring)
{
	struct tp_worker *w;

	fl3.pool = rte_pktmbuf_pool_create("fuzz", 4095, 0, TP_MBUF_PRIV_SIZE, 0, SOCKET_ID_ANY);
	fl3.w = w = rte_zmalloc("w", sizeof(*w), RTE_CACHE_LINE_SIZE);
	must(fl3.pool != NULL && w != NULL);
	w->ctr = rte_zmalloc("ctr", sizeof(uint64_t) * TP_MAX_PORTS * TP_CTR_MAX, 0);
	w->exc_ring[0] =
	    rte_ring_create("exc0", exc_ring, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	w->exc_ring[1] =
	    rte_ring_create("exc1", exc_ring, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	must(w->ctr != NULL && w->exc_ring[0] != NULL && w->exc_ring[1] != NULL);
	tp.n_workers = 1;
	tp.workers[0] = w;
	for (unsigned int p = 0; p < 2; p++) {
		memcpy(&tp_iface_table[p].mac, mac[p], 6);
		tp_iface_table[p].up = 0;
		tp_iface_table[p].input = tp_l3_input;
	}
}

static inline void fuzz_l3_ext_free(void *addr, void *opaque)
{
	free(addr);
	free(opaque);
	fl3.ext_live--;
}

/* A segment of len bytes (room bytes of buffer) holding data. */
static inline struct rte_mbuf *fuzz_l3_segment(const uint8_t *data, uint32_t len, uint32_t room)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(fl3.pool);
	struct rte_mbuf_ext_shared_info *sh = malloc(sizeof(*sh));
	uint8_t *buf = malloc(room ? room : 1);

	must(m != NULL && sh != NULL && buf != NULL);
	memset(buf, 0xa5, room);
	memcpy(buf, data, len);
	sh->free_cb = fuzz_l3_ext_free;
	sh->fcb_opaque = sh;
	rte_mbuf_ext_refcnt_set(sh, 1);
	rte_pktmbuf_attach_extbuf(m, buf, (rte_iova_t)(uintptr_t)buf, (uint16_t)room, sh);
	m->data_off = 0;
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	fl3.ext_live++;
	return m;
}

/* The frame as a chain of nseg segments of split bytes each (the last takes the rest),
 * received on port with offload flags ol. */
static inline struct rte_mbuf *fuzz_l3_frame(const uint8_t *data, uint32_t len, unsigned int nseg,
					     uint32_t split, uint16_t port, uint64_t ol)
{
	struct rte_mbuf *head = NULL, *tail = NULL;
	uint32_t off = 0;

	if (split == 0)
		split = (len + nseg - 1) / nseg;
	for (unsigned int k = 0; k < nseg; k++) {
		uint32_t n = k + 1 == nseg ? len - off : RTE_MIN(split, len - off);
		if (n == 0 && head != NULL)
			break; /* no empty segment after the first */
		struct rte_mbuf *s =
		    fuzz_l3_segment(data + off, n, head ? n : RTE_MAX(n, FUZZ_L3_FIRST_SEG_MIN));
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

/* Ports 0 and 1's punt buckets full and never running dry, or empty. */
static inline void fuzz_l3_buckets(bool empty)
{
	for (unsigned int p = 0; p < 2; p++)
		for (unsigned int c = 0; c < TP_PUNT_CLASSES; c++)
			fl3.w->tb[p][c] = (struct tp_tbucket){
			    .tokens = empty ? 0 : UINT64_MAX / 4,
			    .cost = empty ? UINT64_MAX / 8 : 1,
			    .max_tokens = empty ? 0 : UINT64_MAX / 4,
			    .last_tsc = rte_rdtsc(),
			};
}

/* Every drop and punt reason (a packet's fate, counted once); events (the control
 * class's demotions) are not fates. */
static inline uint64_t fuzz_l3_ctr_total(void)
{
	uint64_t v = 0;

	for (unsigned int p = 0; p < 2; p++)
		for (unsigned int i = 0; i < TP_CTR_MAX; i++)
			if (tp_ctr_kind(i) != TP_CTR_EVENT)
				v += fl3.w->ctr[p][i];
	return v;
}

/* The burst's frame m was made as (n frames), or NULL. */
static inline const struct fuzz_l3_sent *fuzz_l3_sent_of(const struct rte_mbuf *m, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (fl3.sent[i].m == m)
			return &fl3.sent[i];
	return NULL;
}

/* The packet's bytes, all segments, into buf (at most cap); its length. */
static inline uint32_t fuzz_l3_flat(const struct rte_mbuf *m, uint8_t *buf, uint32_t cap)
{
	const void *p = rte_pktmbuf_read(m, 0, RTE_MIN(m->pkt_len, cap), buf);

	must(p != NULL);
	if (p != buf)
		memcpy(buf, p, RTE_MIN(m->pkt_len, cap));
	return m->pkt_len;
}

static inline void fuzz_l3_check_chain(const struct rte_mbuf *m)
{
	const char *why = NULL;

	must(rte_mbuf_check(m, 1, &why) == 0);
}

/* A frame handed to the control plane: as it came, the padding perhaps cut off. */
static inline void fuzz_l3_check_punted(const struct rte_mbuf *m, unsigned int n,
					const struct fuzz_l3_ops *ops)
{
	static uint8_t out[FUZZ_L3_MAX_FRAME];
	const struct fuzz_l3_sent *s = fuzz_l3_sent_of(m, n);

	must(s != NULL);
	fuzz_l3_check_chain(m);
	uint32_t len = fuzz_l3_flat(m, out, sizeof(out));
	must(len <= s->len && memcmp(out, s->bytes, len) == 0);
	if (len < s->len) /* only the packet loses its Ethernet padding */
		must(ops->padding_cut(out, len));
}

/* Run one burst of n frames received on port, check, and empty every place a frame
 * can be. */
static inline void fuzz_l3_burst(unsigned int n, uint16_t port, const struct fuzz_l3_ops *ops)
{
	struct tp_worker *w = fl3.w;
	struct rte_mbuf *pkts[TP_BURST];
	uint64_t before = fuzz_l3_ctr_total();
	unsigned int waiting = 0, punted = 0, punted_ctl = 0;
	void *m;

	for (unsigned int i = 0; i < n; i++)
		pkts[i] = fl3.sent[i].m;
	tp_iface_table[port].input(w, pkts, (uint16_t)n);

	for (uint16_t p = 0; p < TP_MAX_PORTS; p++) {
		struct tp_txbuf *b = &w->txb[p];
		must(b->n < TP_BURST);
		for (unsigned int k = 0; k < b->n; k++) {
			const struct fuzz_l3_sent *s = fuzz_l3_sent_of(b->pkts[k], n);
			must(s != NULL);
			fuzz_l3_check_chain(b->pkts[k]);
			ops->check_forwarded(b->pkts[k], p, s);
		}
		waiting += b->n;
	}
	for (int k = 0; k < 2; k++)
		while (rte_ring_dequeue(w->exc_ring[k], &m) == 0) {
			fuzz_l3_check_punted(m, n, ops);
			/* the priority ring holds only the control and ARP classes */
			uint8_t cls = tp_mbuf_priv(m)->punt_class;
			must((k == 0) == (cls == TP_PUNT_CONTROL || cls == TP_PUNT_ARP));
			punted_ctl += cls == TP_PUNT_CONTROL;
			rte_pktmbuf_free(m);
			punted++;
		}
	/* every frame counted once, or waiting to go out */
	must(fuzz_l3_ctr_total() - before + waiting == n);
	must(punted <= n);
	if (ops->burst_end != NULL)
		ops->burst_end(n, punted_ctl);
	for (unsigned int p = 0; p < TP_MAX_PORTS; p++) {
		rte_pktmbuf_free_bulk(w->txb[p].pkts, w->txb[p].n);
		w->txb[p].n = 0;
	}
	w->tx_dirty = 0;
	/* the leak check: every mbuf back in the pool, every segment's buffer freed */
	must(rte_mempool_in_use_count(fl3.pool) == fl3.pool_base);
	must(fl3.ext_live == 0);
}

/* The input's records as bursts, each run and checked. */
static inline void fuzz_l3_input(const uint8_t *data, size_t size, const struct fuzz_l3_ops *ops)
{
	unsigned int n = 0;
	uint16_t port = 0;
	size_t off = 0;

	while (size - off >= 4) {
		uint8_t flags = data[off], split = data[off + 1];
		uint32_t len = (uint32_t)data[off + 2] << 8 | data[off + 3];
		off += 4;
		len = (uint32_t)RTE_MIN((size_t)len, size - off);
		len = RTE_MIN(len, (uint32_t)FUZZ_L3_MAX_FRAME);
		if (n > 0 && (n == TP_BURST || (flags & 0x40))) {
			fuzz_l3_burst(n, port, ops);
			n = 0;
		}
		if (n == 0) {
			port = flags & 1;
			fuzz_l3_buckets(flags & 0x20);
			if (ops->burst_start != NULL)
				ops->burst_start(flags);
		}
		struct fuzz_l3_sent *s = &fl3.sent[n++];
		s->len = len;
		s->ol = ops->offload != NULL ? ops->offload(flags) : 0;
		memcpy(s->bytes, data + off, len);
		/* a frame received on a port carries that port's id, whatever the record says */
		s->m = fuzz_l3_frame(data + off, len, 1 + ((flags >> 3) & 3), split, port, s->ol);
		off += len;
	}
	if (n > 0)
		fuzz_l3_burst(n, port, ops);
}

#endif
