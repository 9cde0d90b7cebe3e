/* SPDX-License-Identifier: BSD-3-Clause */
/* The router's stages on a worker, shared by the files of datapath/ (private to
 * them): what runs for every packet is here as static inline functions, so that
 * tp_ip4_input (input.c) keeps the whole fast path (classify, LPM, rewrite, TTL,
 * buffering) in one function as before the split, and only the cold stages are
 * calls into the other files:
 *   input.c    tp_ip4_input (the burst loop), validation in RFC order (the slow
 *              classifier), ARP to the kernel;
 *   forward.c  what does not forward: TTL expired, no route, a special or an
 *              unresolved next hop;
 *   local.c    delivery to our own addresses (local UDP functions), the punt to
 *              the kernel and its classes (routing protocols, control peers).
 * grout splits its modules/ip/datapath the same way (ip_input.c, ip_forward.c,
 * ip_local.c), as graph nodes; here the stages stay one function per packet. */
#ifndef TP_NF_IP4_DATAPATH_IP4_STAGES_H
#define TP_NF_IP4_DATAPATH_IP4_STAGES_H

#include <stdint.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_lpm.h>
#include <rte_mbuf.h>
#include <immintrin.h>

#include "../../../core/worker.h"
#include "../../../proto/ip4.h"
#include "../../../tables/iface.h"
#include "../control/nexthop.h"
#include "../control/nhg.h"
#include "../control/route.h"
#include "../ip4.h"

/* What the classifier returns besides an address: flags above bit 32. */
#define IP4_TTL_LOW (1ll << 32) /* TTL <= 1: expired unless it is for us */

/* --- the cold stages, one call each (input.c, forward.c, local.c) --- */

/* input.c: classify a frame the fast test refused; returns as ip4_classify. */
int64_t tp_ip4_classify_slow(struct tp_worker *w, struct rte_mbuf *m, struct rte_mbuf **others,
			     uint16_t *n_others);
/* local.c: punt m to the kernel for reason c (an IP4_C_* counter); consumes m. */
void tp_ip4_punt(struct tp_worker *w, struct rte_mbuf *m, unsigned int c);
/* local.c: a packet for one of our addresses; consumes m. */
void tp_ip4_local(struct tp_worker *w, struct rte_mbuf *m);
/* forward.c: TTL <= 1 to destination d (host order); consumes m. */
void tp_ip4_ttl_low(struct tp_worker *w, struct rte_mbuf *m, uint32_t d);
/* forward.c: next hop id (forwarding word v) does not forward; consumes m. */
void tp_ip4_no_forward(struct tp_worker *w, struct rte_mbuf *m, uint32_t id, uint64_t v);

/* --- validation and classification (input) --- */

/* Per-burst constants of the fast test. */
struct ip4_fast {
#ifdef __SSE4_1__
	__m128i l2; /* bytes 0-15 as they must be: port MAC, type 0x0800, IPv4 IHL 5 */
#else
	uint64_t mac; /* port MAC in the low 6 bytes */
#endif
};

#ifdef __SSE4_1__
/* which of bytes 0-15 ip4_fast.l2 fixes: 0-5 (destination MAC), 12-14 */
static const uint8_t fast_l2_mask[16] __rte_aligned(16) = {
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0,
};
#endif

static inline void ip4_fast_init(struct ip4_fast *f, uint64_t mac)
{
#ifdef __SSE4_1__
	f->l2 = _mm_set_epi64x(
	    (long long)(((uint64_t)0x45 << 48) | ((uint64_t)RTE_BE16(TP_ETHERTYPE_IP4) << 32)),
	    (long long)mac);
#else
	f->mac = mac;
#endif
}

/* Header checksum of a 20-byte header verifies (RFC 1071): its one's-complement
 * sum is 0xffff. The sum is taken 64 bits at a time (add with carry, the last
 * carry added back), and since 2^16 = 1 modulo 0xffff, folding it to 16 bits
 * keeps its value modulo 0xffff: the folded sum is 0xffff exactly when the
 * 64-bit one is a non-zero multiple of 0xffff (a header with a version field is
 * never all zero). The compiler tests divisibility with one multiplication. */
static inline int ip4_sum20_ok(const uint8_t *ip)
{
	uint64_t s, b;
	uint32_t c;

	memcpy(&s, ip, 8);
	memcpy(&b, ip + 8, 8);
	memcpy(&c, ip + 16, 4);
	/* s + b + c + carries; the last carry cannot carry out again */
#if defined(__x86_64__)
	__asm__("addq %[b], %[s]\n\tadcq %[c], %[s]\n\tadcq $0, %[s]"
		: [s] "+r"(s)
		: [b] "r"(b), [c] "r"((uint64_t)c)
		: "cc");
#else
	s += b;
	s += s < b; /* end-around carry (RFC 1071 2.(B)): s + carry <= 2^64 - 1 */
	s += c;
	s += s < c;
#endif
	return s % 0xffff == 0;
}

/* The common case, tested with few instructions: unicast to our MAC, IPv4
 * with no options, total length equal to what the frame holds, checksum
 * right, ordinary source and destination, TTL > 1. Anything else takes the
 * slow path, which checks again in order and names the reason. Reading the
 * header of a frame shorter than one is safe: the bytes are inside the mbuf's
 * data room, and the length test sends such a frame to the slow path whatever
 * they hold. Returns the destination (host order) of a packet to route, or -1
 * when the packet has been consumed. */
static __rte_always_inline int64_t ip4_classify(struct tp_worker *w, struct rte_mbuf *m,
						struct rte_mbuf **others, uint16_t *n_others,
						const uint8_t *eth, const struct ip4_fast *f)
{
	const uint8_t *ip = eth + TP_ETH_HDR_LEN;
	uint32_t len = rte_pktmbuf_data_len(m);
	uint16_t tot_be;
	uint32_t d;

#ifdef __SSE4_1__
	__m128i v = _mm_loadu_si128((const __m128i *)eth);
	if (unlikely(!_mm_testz_si128(_mm_xor_si128(v, f->l2),
				      _mm_load_si128((const __m128i *)fast_l2_mask))))
		goto slow;
#else
	uint64_t dmac;
	uint32_t et_vihl;

	memcpy(&dmac, eth, 8);
	memcpy(&et_vihl, eth + 12, 4);
	if (unlikely(((dmac ^ f->mac) << 16) != 0 || (et_vihl & 0xffffff) != 0x450008))
		goto slow;
#endif
	/* TTL > 1; no source in 0/8, 127/8, 224/3 (RFC 1812 5.3.7); no multicast destination */
	if (unlikely(ip[8] <= 1 || (uint8_t)(ip[12] - 1) >= 223 || ip[12] == 127 || ip[16] >= 224))
		goto slow;
	memcpy(&tot_be, ip + 2, 2);
	/* one segment (a chain's other segments would be more than the packet) */
	if (unlikely(len < TP_ETH_HDR_LEN + TP_IP4_HDR_LEN || len != rte_pktmbuf_pkt_len(m) ||
		     tot_be != rte_cpu_to_be_16((uint16_t)(len - TP_ETH_HDR_LEN))))
		goto slow;
	/* a NIC that checked the header checksum saves the work (RFC 1812 5.2.2
	 * allows it); anything else (unknown, bad, none) is checked here */
	if ((m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) != RTE_MBUF_F_RX_IP_CKSUM_GOOD &&
	    unlikely(!ip4_sum20_ok(ip)))
		goto slow;
	memcpy(&d, ip + 16, 4);
	return rte_be_to_cpu_32(d);
slow:
	return tp_ip4_classify_slow(w, m, others, n_others);
}

/* --- forwarding: LPM, next hop, MTU, L2 rewrite, TTL, TX buffering --- */

/* A burst's packets that did not take the cached next hop. Returns 1 (and fills the
 * cache: forwarding word, source MAC, largest frame the output port takes) if m is
 * to be forwarded on the new next hop id; otherwise m has been consumed. */
static inline int ip4_nh_switch(struct tp_worker *w, struct rte_mbuf *m, uint32_t id, uint64_t *l2,
				uint64_t *smac, uint32_t *frame_max)
{
	uint64_t v = id == UINT32_MAX ? 0 : tp_nh_l2_load(id);

	if (unlikely(!(tp_nh_l2_flags(v) & TP_NH_F_RESOLVED))) {
		tp_ip4_no_forward(w, m, id, v);
		return 0;
	}
	*l2 = v;
	/* source MAC and type 0x0800 (checked on input), one 8-byte store at offset 6 */
	const struct tp_iface *out = &tp_iface_table[tp_nh_l2_port(v)];
	memcpy(smac, &out->mac, sizeof(*smac));
	*smac = (*smac & 0xffffffffffffull) | ((uint64_t)RTE_BE16(TP_ETHERTYPE_IP4) << 48);
	/* an MTU of 0 is one nobody set (a bare test table): no limit */
	*frame_max = out->mtu ? (uint32_t)out->mtu + TP_ETH_HDR_LEN : UINT32_MAX;
	return 1;
}

/* What a burst keeps between its packets. */
struct ip4_burst {
	struct tp_worker *w;
	const struct rte_lpm *lpm;
	struct ip4_fast f;
	uint32_t cur;		  /* LPM entry l2/smac/b belong to, or TP_ROUTE_ENTRY_NONE */
	uint64_t l2, smac;	  /* next hop's forwarding word, source MAC + type */
	uint32_t frame_max;	  /* largest frame its port takes: MTU + Ethernet header */
	struct tp_txbuf *b;	  /* output buffer of the cached next hop */
	unsigned int bn;	  /* its fill, written back to b->n when the buffer changes */
	struct rte_mbuf **others; /* frames that are not IPv4, for the l3 input function */
	uint16_t n_others;
};

static inline void ip4_burst_sync(struct ip4_burst *s)
{
	if (s->b != NULL) {
		s->b->n = (uint16_t)s->bn;
		s->w->tx_dirty |= s->bn ? 1ull << tp_nh_l2_port(s->l2) : 0;
		s->b = NULL;
	}
	s->cur = TP_ROUTE_ENTRY_NONE;
}

/* One packet, start to end: check, look up, rewrite, buffer. Bursts mostly go to
 * one next hop: the LPM entry of the destination is compared with the last one
 * resolved, and only a different entry loads the next hop's forwarding word and
 * source MAC and writes back the output buffer's fill (before anything that may
 * touch the buffers: punts, local functions). */
static __rte_always_inline void ip4_one(struct ip4_burst *s, struct rte_mbuf *m, const bool trace)
{
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
	/* trace: the copy of the burst loop that runs only while a trace does (input.c) */
	if (trace && eth[12] == 0x08 && eth[13] == 0x00)
		tp_trace_pkt(s->w, m, TP_TRACE_STAGE, "ip4.input", 0, 0);
	int64_t d = ip4_classify(s->w, m, s->others, &s->n_others, eth, &s->f);
	uint32_t e;

	/* one test for both: consumed (-1) or TTL <= 1 (IP4_TTL_LOW) */
	if (unlikely((uint64_t)d >> 32)) {
		if (d < 0)
			return;
		ip4_burst_sync(s); /* a local function may send */
		tp_ip4_ttl_low(s->w, m, (uint32_t)d);
		return;
	}
	e = tp_route_entry(s->lpm, (uint32_t)d);
	/* a next-hop group (ECMP): the entry of its member for this flow, so that the
	 * cache below holds members. A bit of what is in a register already: a route
	 * that is not multipath pays no memory access for it */
	if (unlikely(e & TP_NH_GROUP))
		e = (e & ~0x00ffffffu) |
		    tp_nhg_pick(e & TP_NHG_ID_MASK,
				tp_nhg_hash_ip4(eth + TP_ETH_HDR_LEN,
						rte_pktmbuf_data_len(m) - TP_ETH_HDR_LEN));
	if (unlikely(e != s->cur)) {
		ip4_burst_sync(s);
		if (!ip4_nh_switch(s->w, m,
				   (e & RTE_LPM_LOOKUP_SUCCESS) ? e & 0x00ffffff : UINT32_MAX,
				   &s->l2, &s->smac, &s->frame_max))
			return;
		s->cur = e;
		s->b = &s->w->txb[tp_nh_l2_port(s->l2)];
		s->bn = s->b->n;
	}
	if (trace)
		tp_trace_pkt(s->w, m, TP_TRACE_STAGE, "ip4.forward", 0, 0);
	/* longer than the output port's MTU: the kernel fragments it, or answers
	 * Fragmentation Needed with the MTU when DF is set (RFC 1812 5.2.6, 4.3.2.3) */
	if (unlikely(rte_pktmbuf_pkt_len(m) > s->frame_max)) {
		tp_ip4_punt(s->w, m, IP4_C_EXCEEDS_MTU);
		return;
	}
	/* bytes 0-5: destination MAC (6-7 of the word are overwritten next) */
	memcpy(eth, &s->l2, sizeof(s->l2));
	memcpy(eth + 6, &s->smac, sizeof(s->smac));
	tp_ip4_ttl_dec(eth + TP_ETH_HDR_LEN);
	if (trace)
		tp_trace_pkt(s->w, m, TP_TRACE_STAGE, "ip4.output", 0, 0);
	s->b->pkts[s->bn++] = m;
	if (unlikely(s->bn == TP_BURST)) { /* full: sent now, never left full (worker.h) */
		s->b->n = TP_BURST;
		tp_worker_tx_flush_port(s->w, tp_nh_l2_port(s->l2));
		s->bn = 0;
	}
}

#endif
