/* SPDX-License-Identifier: BSD-3-Clause */
/* The L2 switch's fast path: the "l2" port mode (bridging) and the "chain" mode
 * (cross-connect). See l2.h for who writes what. */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_hash.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "../../../core/tp.h"
#include "../../../core/worker.h"
#include "../../../proto/bpdu.h"
#include "../../../tables/iface.h"
#include "../l2.h"

static inline bool key_eq(const struct l2_key *a, const struct l2_key *b)
{
	uint64_t x, y;
	uint16_t u, v;

	memcpy(&x, a, 8);
	memcpy(&y, b, 8);
	memcpy(&u, (const uint8_t *)a + 8, 2);
	memcpy(&v, (const uint8_t *)b + 8, 2);
	return x == y && u == v;
}

/* Index of k among the burst's distinct keys, adding it if it differs from the last
 * destination and the last source added (a burst mostly repeats a few stations: the
 * table is looked up once per distinct key, as VPP's l2fwd caches its last lookup). */
static inline uint8_t key_index(struct l2_key_buf *keys, unsigned int *nk, int *last,
				const struct l2_key *k)
{
	for (unsigned int j = 0; j < 2; j++)
		if (last[j] >= 0 && key_eq(&keys[last[j]].k, k))
			return (uint8_t)last[j];
	keys[*nk].k = *k;
	return (uint8_t)(*nk)++;
}

static inline uint32_t key_slot(const struct l2_key *k)
{
	uint64_t v = 0;

	memcpy(&v, k, 8);
	v ^= (uint64_t)k->bridge << 48;
	v *= 0x9e3779b97f4a7c15ull;
	return (uint32_t)(v >> 56);
}
_Static_assert(L2_LEARN_CACHE == 256 && L2_LOOKUP_CACHE == 256, "key_slot gives 0..255");

/* The burst's nk distinct keys looked up: hits (bit per key) and data (entry
 * indexes), from this lcore's cache of entries found while l2_gen stayed gen, the
 * others with one bulk lookup of the table (and cached when found). */
static inline void lookup_keys(struct l2_lcore *lc, const struct l2_key_buf *keys, unsigned int nk,
			       uint64_t gen, uint64_t *hits, void **data)
{
	const void *kp[2 * TP_BURST];
	void *md[2 * TP_BURST];
	uint8_t miss[2 * TP_BURST], slot[2 * TP_BURST];
	uint64_t mh = 0, h = 0;
	unsigned int nm = 0;

	for (unsigned int j = 0; j < nk; j++) {
		uint32_t s = key_slot(&keys[j].k);
		if (lc->found[s].gen == gen && key_eq(&lc->found[s].key, &keys[j].k)) {
			h |= 1ull << j;
			data[j] = (void *)(uintptr_t)lc->found[s].idx;
			continue;
		}
		slot[nm] = (uint8_t)s;
		miss[nm] = (uint8_t)j;
		kp[nm++] = &keys[j].k;
	}
	if (nm != 0) {
		rte_hash_lookup_bulk_data(l2_macs, kp, nm, &mh, md);
		for (unsigned int q = 0; q < nm; q++) {
			if (!(mh >> q & 1))
				continue;
			h |= 1ull << miss[q];
			data[miss[q]] = md[q];
			lc->found[slot[q]].key = keys[miss[q]].k;
			lc->found[slot[q]].idx = (uint32_t)(uintptr_t)md[q];
			lc->found[slot[q]].gen = gen;
		}
	}
	*hits = h;
}

/* Ask the control plane to learn key on port lp, once per 10 ms per lcore, within
 * the port's learn rate on this lcore (the excess counted as learn_ratelimited: the
 * source's next frame asks again). */
static void learn(struct tp_worker *w, struct l2_lcore *lc, const struct l2_key *k,
		  const struct l2_port *lp)
{
	const uint16_t port = lp->port;
	uint32_t s = key_slot(k);
	struct l2_learn ev;

	if (lc->sent[s].port == port && memcmp(&lc->sent[s].key, k, sizeof(*k)) == 0 &&
	    w->now - lc->sent[s].tsc < tp.tsc_hz / 100)
		return;
	if (unlikely(!l2_bucket_take(&lc->tb[port][L2_TB_LEARN], &lp->rate[L2_TB_LEARN], w->now))) {
		tp_count(w, port, L2_CTR(LEARN_RATELIMITED));
		return;
	}
	ev.key = *k;
	ev.port = port;
	ev.pad = 0;
	if (rte_ring_sp_enqueue_elem(lc->learn, &ev, sizeof(ev)) != 0) {
		tp_count(w, port, L2_CTR(LEARN_RING_FULL));
		return;
	}
	lc->sent[s].key = *k;
	lc->sent[s].port = port;
	lc->sent[s].tsc = w->now;
	tp_count(w, port, L2_CTR(LEARN_EVENTS));
}

/* Make m's tag what out port wants for vid: none on an access port or for a trunk's
 * native VLAN, else 802.1Q with vid. tagged: m carries a tag now. 0, or -1 (no
 * headroom for a tag: the caller drops m). */
static inline int egress_tag(struct rte_mbuf *m, bool tagged, uint16_t vid,
			     const struct l2_port *op)
{
	bool want = op->trunk && vid != op->pvid;
	uint8_t *p;

	if (want == tagged) {
		if (want) { /* a priority tag (VID 0) gets its VLAN */
			uint16_t *tcip = (uint16_t *)(rte_pktmbuf_mtod(m, uint8_t *) + 14);
			uint16_t tci = rte_be_to_cpu_16(*tcip);
			if ((tci & 0xfff) != vid)
				*tcip = rte_cpu_to_be_16((uint16_t)((tci & 0xf000) | vid));
		}
		return 0;
	}
	if (want) {
		p = (uint8_t *)rte_pktmbuf_prepend(m, 4);
		if (p == NULL)
			return -1;
		memmove(p, p + 4, 12);
		*(uint16_t *)(p + 12) = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		*(uint16_t *)(p + 14) = rte_cpu_to_be_16(vid);
		return 0;
	}
	p = rte_pktmbuf_mtod(m, uint8_t *);
	memmove(p + 4, p, 12);
	rte_pktmbuf_adj(m, 4);
	return 0;
}

/* m (tagged: with one 802.1Q tag now) out on op, tagged as op wants for vid, or
 * dropped (counted on in): longer than op's MTU (exceeds_mtu), no room for a tag. */
static inline void send_one(struct tp_worker *w, struct rte_mbuf *m, bool tagged, uint16_t vid,
			    const struct l2_port *op, uint16_t in)
{
	/* the egress port's MTU, as the router's output: the frame's payload behind its
	 * Ethernet header and the 802.1Q tag of its VLAN (a tagged frame's limit is
	 * 4 bytes more, 802.3 3.5) must fit; an MTU of 0 is one nobody set (a bare
	 * test table): no limit */
	uint16_t mtu = tp_iface_table[op->port].mtu;
	if (unlikely(mtu != 0 &&
		     rte_pktmbuf_pkt_len(m) - RTE_ETHER_HDR_LEN - (tagged ? 4u : 0u) > mtu)) {
		w->ctr[in][L2_CTR(EXCEEDS_MTU)]++;
		TP_TRACE_DROP(w, m, L2_CTR(EXCEEDS_MTU));
		rte_pktmbuf_free(m);
		return;
	}
	if (unlikely(egress_tag(m, tagged, vid, op) < 0)) {
		w->ctr[in][L2_CTR(TAG_NO_ROOM)]++;
		TP_TRACE_DROP(w, m, L2_CTR(TAG_NO_ROOM));
		rte_pktmbuf_free(m);
		return;
	}
	tp_worker_tx_enqueue(w, m, op->port);
}

/* Every other member port carrying vid gets a copy; the last one gets m. */
static void flood(struct tp_worker *w, struct rte_mbuf *m, bool tagged, uint16_t vid,
		  const struct l2_members *mb, uint16_t in)
{
	const struct l2_port *to[TP_MAX_PORTS];
	unsigned int t = 0;

	TP_TRACE_STAGE(w, m, "l2.flood");
	for (unsigned int i = 0; i < mb->n; i++) {
		const struct l2_port *op = mb->by_port[mb->list[i]];
		if (op != NULL && op->port != in && l2_vlan_allowed(op, vid))
			to[t++] = op;
	}
	if (t == 0) {
		tp_drop(w, m, L2_CTR(NO_DESTINATION));
		return;
	}
	tp_count(w, in, L2_CTR(FLOODED));
	for (unsigned int i = 0; i + 1 < t; i++) {
		struct rte_mbuf *c = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);
		if (c == NULL) {
			w->ctr[in][L2_CTR(FLOOD_COPY_FAILED)]++;
			continue;
		}
		c->port = in;
		tp_count(w, in, L2_CTR(FLOOD_COPIES));
		send_one(w, c, tagged, vid, to[i], in);
	}
	send_one(w, m, tagged, vid, to[t - 1], in);
}

/* Whether a is the MAC of one of the bridge's ports (mb, whatever their STP state):
 * an address of the bridge's own, as the Linux bridge's local FDB entries (br_fdb.c),
 * in any VLAN. */
static inline bool port_mac(const struct l2_members *mb, const struct rte_ether_addr *a)
{
	for (unsigned int i = 0; i < mb->n_all; i++)
		if (rte_is_same_ether_addr(&tp_iface_table[mb->all[i]].mac, a))
			return true;
	return false;
}

/* A BPDU for the bridge's STP: checked with the BPDU codec here (a malformed one
 * costs the control class nothing: bpdu_malformed), punted in the control class. */
static void bpdu_punt(struct tp_worker *w, struct rte_mbuf *m)
{
	struct tp_bpdu b;

	if (tp_bpdu_parse(rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m), &b) < 0) {
		tp_drop(w, m, L2_CTR(BPDU_MALFORMED));
		return;
	}
	tp_punt(w, m, L2_CTR(BPDU_TO_CONTROL), TP_PUNT_CONTROL);
}

/* 01:80:c2:00:00:00, the bridge group address (802.1Q 8.6.3 Table 8-1) */
static inline bool is_bpdu_dst(const struct rte_ether_hdr *eh)
{
	static const struct rte_ether_addr group = {{0x01, 0x80, 0xc2, 0, 0, 0}};

	return rte_is_same_ether_addr(&eh->dst_addr, &group);
}

/* A burst on a port the spanning tree has discarding (802.1D-2004 17.30, 8.4): its
 * BPDUs go to the STP (which runs: the state is never discarding otherwise); every
 * other frame is dropped (stp_discarding), nothing learned. */
static void discard_burst(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	w->ctr[pkts[0]->port][L2_CTR(RX)] += n;
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		if (unlikely(rte_pktmbuf_data_len(m) < sizeof(struct rte_ether_hdr)))
			tp_drop(w, m, L2_CTR(RUNT));
		else if (is_bpdu_dst(rte_pktmbuf_mtod(m, const struct rte_ether_hdr *)))
			bpdu_punt(w, m);
		else
			tp_drop(w, m, L2_CTR(STP_DISCARDING));
	}
}

/* The 12 bytes of destination and source MAC, as two words: what consecutive frames
 * of a flow share (they then share the checks on these bytes and their keys). */
struct l2_macs12 {
	uint64_t a;
	uint32_t b;
};

static inline void macs12_load(struct l2_macs12 *x, const void *eh)
{
	memcpy(&x->a, eh, 8);
	memcpy(&x->b, (const uint8_t *)eh + 8, 4);
}

static inline bool macs12_eq(const struct l2_macs12 *x, const struct l2_macs12 *y)
{
	return ((x->a ^ y->a) | (uint64_t)(x->b ^ y->b)) == 0;
}

#define L2_PREFETCH_AHEAD 4

/* A bridged burst in two passes: (1) the frame checks and each frame's destination
 * and source keys, deduplicated, (2) one bulk lookup of the burst's distinct keys,
 * then each frame's source (learn, refresh, move) and destination (unicast or
 * flood). Frames of one flow follow each other: a frame whose MACs and VLAN are
 * the previous one's reuses its checks and keys in pass 1, and in pass 2 its
 * verdict when that was "source known on this port, unicast to op" (nothing
 * per frame left then but the tag and the transmit buffer). Keys found in earlier
 * bursts come from the lcore's cache, not the table (l2.h). Counters are summed
 * over the burst where every frame counts. */
static __rte_always_inline void bridge_burst(struct tp_worker *w, struct rte_mbuf **pkts,
					     uint16_t n, const bool forward)
{
	const uint16_t in = pkts[0]->port;
	const struct l2_port *lp = tp_iface_table[in].mode_ctx;
	const struct l2_bridge *br = lp->br;
	const struct l2_members *mb = __atomic_load_n(&br->members, __ATOMIC_ACQUIRE);
	struct l2_lcore *lc = tp_nf_lcore(w, &tp_l2_nf);
	uint64_t *ctr = w->ctr[in];
	const uint64_t gen = __atomic_load_n(&l2_gen, __ATOMIC_ACQUIRE);
	struct l2_key_buf keys[2 * TP_BURST]; /* the burst's distinct keys */
	void *data[2 * TP_BURST];
	struct rte_mbuf *ok[TP_BURST];
	uint16_t vids[TP_BURST];
	uint8_t tagged[TP_BURST];
	uint8_t di[TP_BURST], si[TP_BURST]; /* each packet's destination and source key */
	int last[2] = {-1, -1};		    /* the last destination and source added */
	struct l2_macs12 prev = {0, 0};	    /* the last accepted frame's MACs... */
	uint16_t prev_vid = 0;		    /* ...and VLAN (0: none yet) */
	uint8_t prev_tag = 0;
	uint64_t hits = 0;
	unsigned int k = 0, nk = 0, i, bpdus = 0;
	bool prev_bpdu = false; /* the last accepted frame is a BPDU */

	TP_TRACE_BURST(w, pkts, n, "l2.input");

	ctr[L2_CTR(RX)] += n;
	for (i = 0; i < L2_PREFETCH_AHEAD && i < n; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		struct l2_macs12 cur;
		uint16_t vid = lp->pvid;
		bool tag = false, bpdu;

		if (i + L2_PREFETCH_AHEAD < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + L2_PREFETCH_AHEAD], void *));
		if (unlikely(rte_pktmbuf_data_len(m) < sizeof(*eh))) {
			tp_drop(w, m, L2_CTR(RUNT));
			continue;
		}
		macs12_load(&cur, eh);
		bool same = prev_vid != 0 && macs12_eq(&cur, &prev);
		bpdu = same && prev_bpdu;
		if (!same) {
			if (unlikely(rte_is_multicast_ether_addr(&eh->src_addr) ||
				     rte_is_zero_ether_addr(&eh->src_addr))) {
				tp_drop(w, m, L2_CTR(BAD_SRC_MAC));
				continue;
			}
			/* 01:80:c2:00:00:0x (STP, LACP, LLDP, 802.1X...): not forwarded
			 * (802.1Q 8.6.3, Table 8-1), but for the bridge group address
			 * 01:80:c2:00:00:00 (BPDUs), as the bridge's BPDU mode says
			 * (enum l2_bpdu): flooded like any group frame while it runs no STP
			 * (the Linux bridge with STP off), dropped with 'bpdu drop',
			 * consumed by the bridge's own STP */
			if (unlikely(eh->dst_addr.addr_bytes[0] == 0x01 &&
				     eh->dst_addr.addr_bytes[1] == 0x80 &&
				     eh->dst_addr.addr_bytes[2] == 0xc2 &&
				     eh->dst_addr.addr_bytes[3] == 0 &&
				     eh->dst_addr.addr_bytes[4] == 0 &&
				     (eh->dst_addr.addr_bytes[5] & 0xf0) == 0)) {
				uint8_t mode = __atomic_load_n(&br->bpdu, __ATOMIC_RELAXED);
				if (eh->dst_addr.addr_bytes[5] != 0 || mode == L2_BPDU_DROP) {
					tp_drop(w, m, L2_CTR(LINK_LOCAL));
					continue;
				}
				if (mode == L2_BPDU_STP) {
					bpdu_punt(w, m);
					continue;
				}
				bpdu = true;
			}
		}
		if (eh->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN)) {
			if (unlikely(rte_pktmbuf_data_len(m) < sizeof(*eh) + 4)) {
				tp_drop(w, m, L2_CTR(RUNT));
				continue;
			}
			uint16_t tv = rte_be_to_cpu_16(*(const uint16_t *)(eh + 1)) & 0xfff;
			uint16_t inner = *(const uint16_t *)((const uint8_t *)(eh + 1) + 2);
			tag = true;
			/* a tag that leaves untagged (a priority tag on any port, the native
			 * VLAN's on a trunk, the VLAN's on an access port that admits it)
			 * must not expose a second one (802.1Q C-tag 0x8100, 802.1ad S-tag
			 * 0x88a8): that frame would come out in the inner tag's VLAN, the
			 * double-tagging VLAN hop */
			if (unlikely(
				(inner == rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN) ||
				 inner == rte_cpu_to_be_16(RTE_ETHER_TYPE_QINQ)) &&
				(tv == 0 || ((lp->trunk || lp->admit_all) && tv == lp->pvid)))) {
				tp_drop(w, m, L2_CTR(DOUBLE_TAGGED));
				continue;
			}
			if (tv != 0) { /* VID 0: priority-tagged, the port's VLAN */
				/* an access port admits untagged and priority-tagged frames
				 * only, or with 'admit all' its own VLAN's tag too (802.1Q
				 * 6.9, the acceptable frame types) */
				if (unlikely((!lp->trunk && !lp->admit_all) ||
					     !l2_vlan_allowed(lp, tv))) {
					tp_drop(w, m, L2_CTR(VLAN_NOT_MEMBER));
					continue;
				}
				vid = tv;
			}
		}
		if (unlikely(vid == 0)) {
			tp_drop(w, m, L2_CTR(UNTAGGED_ON_TRUNK));
			continue;
		}
		if (same && vid == prev_vid) { /* the previous accepted frame's keys */
			di[k] = di[k - 1];
			si[k] = si[k - 1];
		} else {
			struct l2_key dk = {.mac = eh->dst_addr, .vlan = vid, .bridge = br->id};
			struct l2_key sk = {.mac = eh->src_addr, .vlan = vid, .bridge = br->id};
			di[k] = key_index(keys, &nk, last, &dk);
			last[0] = di[k];
			si[k] = key_index(keys, &nk, last, &sk);
			last[1] = si[k];
			prev = cur;
			prev_vid = vid;
			prev_bpdu = bpdu;
		}
		vids[k] = vid;
		tagged[k] = tag;
		bpdus += bpdu;
		ok[k++] = m;
	}
	ctr[L2_CTR(BPDU_FORWARDED)] += bpdus;
	if (k == 0)
		return;
	lookup_keys(lc, keys, nk, gen, &hits, data);

	const struct l2_port *fwd_op = NULL; /* the previous frame's verdict, if reusable */
	unsigned int unicast = 0;
	prev_vid = 0;
	for (i = 0; i < k; i++) {
		struct rte_mbuf *m = ok[i];

		if (fwd_op != NULL && di[i] == di[i - 1] && si[i] == si[i - 1] &&
		    vids[i] == prev_vid && tagged[i] == prev_tag) {
			unicast++;
			send_one(w, m, tagged[i], vids[i], fwd_op, in);
			continue;
		}
		fwd_op = NULL;
		prev_vid = vids[i];
		prev_tag = tagged[i];

		const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		bool src_home = false; /* the source is known on this port */

		/* source: learn, refresh, or notice a move */
		if (hits >> si[i] & 1) {
			struct l2_mac *e = &l2_mac_table[(uintptr_t)data[si[i]]];
			uint16_t at = __atomic_load_n(&e->port, __ATOMIC_RELAXED);
			if (likely(at == in)) {
				src_home = true;
				if (unlikely(w->now - e->seen > tp.tsc_hz))
					__atomic_store_n(&e->seen, w->now, __ATOMIC_RELAXED);
			} else if (e->is_static) {
				ctr[L2_CTR(STATIC_CONFLICT)]++;
			} else {
				learn(w, lc, &keys[si[i]].k, lp);
			}
		} else {
			/* a new source on a port or bridge at its limit: neither learned nor
			 * forwarded ("protect", see README's Decisions) */
			if (unlikely(__atomic_load_n(&lp->at_limit, __ATOMIC_RELAXED))) {
				tp_drop(w, m, L2_CTR(MAC_LIMIT));
				continue;
			}
			if (unlikely(__atomic_load_n(&br->at_limit, __ATOMIC_RELAXED))) {
				tp_drop(w, m, L2_CTR(BRIDGE_MAC_LIMIT));
				continue;
			}
			learn(w, lc, &keys[si[i]].k, lp);
		}

		/* a learning port learns, forwards nothing (802.1D-2004 17.30) */
		if (!forward) {
			tp_drop(w, m, L2_CTR(STP_LEARNING));
			continue;
		}
		/* destination */
		if (!rte_is_multicast_ether_addr(&eh->dst_addr) && (hits >> di[i] & 1)) {
			const struct l2_mac *e = &l2_mac_table[(uintptr_t)data[di[i]]];
			uint16_t out = __atomic_load_n(&e->port, __ATOMIC_RELAXED);
			const struct l2_port *op = out < TP_MAX_PORTS ? mb->by_port[out] : NULL;
			if (unlikely(out == in)) {
				tp_drop(w, m, L2_CTR(FILTERED));
				continue;
			}
			if (likely(op != NULL && l2_vlan_allowed(op, vids[i]))) {
				unicast++;
				if (src_home)
					fwd_op = op;
				send_one(w, m, tagged[i], vids[i], op, in);
				continue;
			}
			/* the port left the bridge or the VLAN: as unknown */
		}
		/* addressed to the bridge itself (one of its ports' MACs, which the MAC
		 * table never holds unless a loop taught it): not flooded; dropped, as the
		 * bridge has no interface of its own to take them (README) */
		if (!rte_is_multicast_ether_addr(&eh->dst_addr) &&
		    unlikely(port_mac(mb, &eh->dst_addr))) {
			tp_drop(w, m, L2_CTR(TO_PORT_MAC));
			continue;
		}
		/* storm control: group-addressed and unknown-unicast frames flooded from
		 * this port, each within its rate on this lcore */
		unsigned int tb =
		    rte_is_multicast_ether_addr(&eh->dst_addr) ? L2_TB_BROADCAST : L2_TB_UNKNOWN;
		if (unlikely(!l2_bucket_take(&lc->tb[in][tb], &lp->rate[tb], w->now))) {
			tp_drop(w, m,
				tb == L2_TB_BROADCAST ? L2_CTR(STORM_BROADCAST)
						      : L2_CTR(STORM_UNKNOWN));
			continue;
		}
		flood(w, m, tagged[i], vids[i], mb, in);
	}
	ctr[L2_CTR(UNICAST)] += unicast;
}

/* The "l2" mode's input. The spanning tree's port state (l2_port.stp: forwarding
 * whenever the bridge runs no STP) is read once per burst: forwarding runs
 * bridge_burst as it always ran (the constant folds away every test of it: always
 * inline for that, not for speed), learning runs it without forwarding, discarding
 * drops all but BPDUs. */
void l2_input(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	const struct l2_port *lp = tp_iface_table[pkts[0]->port].mode_ctx;
	uint8_t st = __atomic_load_n(&lp->stp, __ATOMIC_ACQUIRE);

	if (likely(st == L2_STP_FORWARDING))
		bridge_burst(w, pkts, n, true);
	else if (st == L2_STP_LEARNING)
		bridge_burst(w, pkts, n, false);
	else
		discard_burst(w, pkts, n);
}

void l2_chain_input(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	const uint16_t in = pkts[0]->port;
	const struct l2_xc *xc = tp_iface_table[in].mode_ctx;
	uint16_t out = __atomic_load_n(&xc->out, __ATOMIC_ACQUIRE);

	TP_TRACE_BURST(w, pkts, n, "l2.chain");

	if (unlikely(out == L2_NO_PORT)) {
		w->ctr[in][L2_CTR(CHAIN_NF_DOWN)] += n;
		for (uint16_t i = 0; i < n; i++)
			TP_TRACE_DROP(w, pkts[i], L2_CTR(CHAIN_NF_DOWN));
		rte_pktmbuf_free_bulk(pkts, n);
		return;
	}
	w->ctr[in][L2_CTR(CHAIN_FWD)] += n;
	for (uint16_t i = 0; i < n; i++)
		tp_worker_tx_enqueue(w, pkts[i], out);
}
