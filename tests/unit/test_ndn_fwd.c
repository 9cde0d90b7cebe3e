/* SPDX-License-Identifier: BSD-3-Clause */
/* The NDN forwarder's stages (src/nf/ndn) fed crafted frames through the Ethernet
 * faces' input, as a data-plane lcore runs them (stood up as tests/fuzz/fuzz_ndn_fwd.c
 * does, with the module's own init functions): the PIT entry an Interest makes and
 * the Interest forwarded upstream; a second consumer's Interest aggregated, a
 * repeated Nonce answered with a Nack Duplicate; the Data satisfying both and kept in
 * the CS; a CS hit; PIT expiry on the timer wheel; Nacks (NoRoute from us; an
 * upstream's, forwarded down once every upstream said no; one whose Interest is not
 * the one we sent refused); the NDT sending an Interest to another lcore's forwarding
 * context through its ring; the PCCT's chains in insertion order, the CS's LRU victim
 * unlinked at its chain's head. The packets are python-ndn's (ndn_vectors.h). Asserts
 * the bytes of the frames in the transmit buffers, the counters by name
 * ("ndn.<counter>"), the PIT-CS's contents, and every mbuf back in its pool. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "../../src/core/counter.h"
#include "../../src/core/nf.h"
#include "../../src/core/rcu.h"
#include "../../src/core/ring.h"
#include "../../src/core/tp.h"
#include "../../src/nf/ndn/ndn.h"
#include "../../src/proto/ndn.h"
#include "../../src/tables/iface.h"
#include "eal_fixture.h"
#include "ndn_vectors.h"

static struct rte_mempool *pool;
static struct tp_worker *w, *w1; /* w runs context 0; w1 context 1 (the NDT test) */
static struct ndn_lcore *lc, *lc1;
static struct ndn_fwd *f, *f1;

static const uint8_t mac_port[2][6] = {{2, 0, 0, 0, 0, 0x10}, {2, 0, 0, 0, 0, 0x11}};
/* faces 1 and 2: consumers behind port 0; faces 3 and 4: producers behind port 1 */
static const uint8_t mac_face[5][6] = {
    {0}, {2, 0, 0, 0, 1, 1}, {2, 0, 0, 0, 1, 2}, {2, 0, 0, 0, 3, 3}, {2, 0, 0, 0, 4, 4}};
static const uint16_t port_of[5] = {0, 0, 0, 1, 1};

/* A counter by its name, on every port, of lcore wk. */
static uint64_t ctr_of(struct tp_worker *wk, const char *name)
{
	int id = tp_ctr_lookup(name);
	uint64_t v = 0;

	assert_true(id >= 0);
	for (unsigned int p = 0; p < TP_MAX_PORTS; p++)
		v += wk->ctr[p][id];
	return v;
}

static uint64_t ctr(const char *name)
{
	return ctr_of(w, name);
}

/* bytes (an NDN packet or LpPacket) from face, in an Ethernet frame on its port,
 * through the NDN Ethernet input of lcore wk */
static void rx_on(struct tp_worker *wk, unsigned int face, const uint8_t *b, size_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *p;

	assert_non_null(m);
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(14 + len));
	if (p == NULL)
		abort();
	memcpy(p, mac_port[port_of[face]], 6);
	memcpy(p + 6, mac_face[face], 6);
	p[12] = 0x86;
	p[13] = 0x24;
	memcpy(p + 14, b, len);
	m->port = port_of[face];
	ndn_ether_input(wk, &m, 1);
}

static void rx(unsigned int face, const uint8_t *b, size_t len)
{
	rx_on(w, face, b, len);
}

/* Frame k waiting on port p of lcore wk: sent to face, its LpPacket decoded into lp. */
static void sent_on(struct tp_worker *wk, uint16_t p, unsigned int k, unsigned int face,
		    struct tp_ndn_lp *lp)
{
	const struct rte_mbuf *m;
	const uint8_t *e;

	assert_true(k < wk->txb[p].n);
	m = wk->txb[p].pkts[k];
	e = rte_pktmbuf_mtod(m, const uint8_t *);
	assert_int_equal(m->nb_segs, 1);
	assert_memory_equal(e, mac_face[face], 6);
	assert_memory_equal(e + 6, mac_port[p], 6);
	assert_int_equal(e[12], 0x86);
	assert_int_equal(e[13], 0x24);
	assert_int_equal(tp_ndn_lp_decode(e + 14, m->data_len - 14u, lp), TP_NDN_E_OK);
}

static void sent(uint16_t p, unsigned int k, unsigned int face, struct tp_ndn_lp *lp)
{
	sent_on(w, p, k, face, lp);
}

/* v_interest_flags (/a/b, CanBePrefix, MustBeFresh, Nonce 01020304, HopLimit 32)
 * with another Nonce, or HopLimit */
static void interest_flags(uint8_t *b, uint32_t nonce, uint8_t hop)
{
	memcpy(b, v_interest_flags, sizeof(v_interest_flags));
	/* Nonce TLV at 14: 0a 04 <4 bytes>; HopLimit at 24: 22 01 <1 byte> */
	assert_int_equal(b[14], 0x0a);
	b[16] = (uint8_t)(nonce >> 24), b[17] = (uint8_t)(nonce >> 16);
	b[18] = (uint8_t)(nonce >> 8), b[19] = (uint8_t)nonce;
	assert_int_equal(b[24], 0x22);
	b[26] = hop;
}

static void route(const char *uri, uint16_t face)
{
	uint8_t name[TP_NDN_NAME_MAX_LEN];
	int len = tp_ndn_name_from_uri(uri, name, sizeof(name));

	assert_true(len >= 0);
	assert_int_equal(ndn_rib_add(name, (uint16_t)len, face, 255, 10, 1, -1), 0);
}

static struct tp_worker *worker(unsigned int id, struct ndn_lcore **l)
{
	struct tp_worker *wk = rte_zmalloc("w", sizeof(*wk), RTE_CACHE_LINE_SIZE);

	assert_non_null(wk);
	wk->id = id;
	wk->ctr = rte_zmalloc("ctr", sizeof(uint64_t) * TP_MAX_PORTS * TP_CTR_MAX, 0);
	*l = rte_zmalloc("ndn_lcore", sizeof(**l), RTE_CACHE_LINE_SIZE);
	assert_true(wk->ctr != NULL && *l != NULL);
	wk->nf_state[tp_ndn_nf.id] = *l;
	ndn_lp_lcore_init(wk, &(*l)->lp);
	tp.workers[id] = wk;
	return wk;
}

/* What 'ndn enable' makes (a PIT of 64, a CS of 16, one context on lcore 0 and a
 * second, for the NDT, on lcore 1), four Ethernet faces and the routes /a and /ndn
 * to the producer on face 3. */
static int setup(void **state)
{
	char err[128];
	struct rte_ether_addr mac;

	if (tp_rcu_init(2) < 0)
		return -1;
	tp.tsc_hz = rte_get_tsc_hz();
	pool = rte_pktmbuf_pool_create("ndn", 511, 0, TP_MBUF_PRIV_SIZE,
				       RTE_PKTMBUF_HEADROOM + 9216, SOCKET_ID_ANY);
	if (pool == NULL)
		return -1;
	w = worker(0, &lc);
	w1 = worker(1, &lc1);
	tp.n_workers = 2;
	for (unsigned int p = 0; p < 2; p++) {
		memcpy(&tp_iface_table[p].mac, mac_port[p], 6);
		tp_iface_table[p].mtu = 1500;
		tp_iface_table[p].up = 0; /* no device: frames stay in the buffers */
	}
	ndn_conf.ndt_comps = 2;
	ndn_conf.ndt_bits = 4;
	ndn_conf.pit_capacity = 64;
	ndn_conf.cs_capacity = 16;
	ndn_conf.n_fwd = 1;
	ndn_conf.siphash_key[0] = 0x0123456789abcdefull;
	ndn_conf.siphash_key[1] = 0xfedcba9876543210ull;
	ndn_ndt = rte_zmalloc("ndn_ndt", 1u << ndn_conf.ndt_bits, 64);
	f = rte_zmalloc("ndn_fwd", sizeof(*f), 64);
	f1 = rte_zmalloc("ndn_fwd1", sizeof(*f1), 64);
	if (ndn_ndt == NULL || f == NULL || f1 == NULL)
		return -1;
	f1->idx = 1;
	f1->worker = 1;
	if (ndn_pcct_create(f, SOCKET_ID_ANY) < 0 || ndn_pcct_create(f1, SOCKET_ID_ANY) < 0)
		return -1;
	/* context 1's Interest and Data rings, consumed by lcore 1 */
	for (unsigned int t = 0; t < 2; t++) {
		struct tp_ring *r = rte_zmalloc("ring", sizeof(*r), RTE_CACHE_LINE_SIZE);
		if (r == NULL)
			return -1;
		r->r = rte_ring_create(t ? "ndn-d-1" : "ndn-i-1", 64, SOCKET_ID_ANY, RING_F_SC_DEQ);
		if (r->r == NULL)
			return -1;
		r->consumer = 1;
		r->fn = ndn_fwd_ring;
		r->ctx = f1;
		f1->ring[t] = r;
	}
	ndn_fwd[0] = f;
	ndn_fwd[1] = f1;
	lc->fwd = f;
	lc1->fwd = f1;
	if (ndn_faces_init() < 0 || ndn_fib_init() < 0 || ndn_mgmt_init() < 0 || ndn_lp_init() < 0)
		return -1;
	for (unsigned int i = 1; i <= 4; i++) {
		memcpy(&mac, mac_face[i], 6);
		if (ndn_face_add_ether(port_of[i], &mac, false, err, sizeof(err)) != (int)i)
			return -1;
	}
	route("/a", 3);
	route("/ndn", 3);
	tp_rcu_reclaim();
	__atomic_store_n(&ndn_conf.enabled, true, __ATOMIC_RELEASE);
	return 0;
}

static int teardown(void **state)
{
	tp_rcu_reclaim();
	return 0;
}

/* An empty PIT-CS, clock, counters and buffers; one context. */
static int reset(void **state)
{
	struct ndn_fwd *fs[2] = {f, f1};
	struct tp_worker *ws[2] = {w, w1};

	for (unsigned int i = 0; i < 2; i++) {
		struct tp_worker *wk = ws[i];
		for (unsigned int p = 0; p < TP_MAX_PORTS; p++) {
			rte_pktmbuf_free_bulk(wk->txb[p].pkts, wk->txb[p].n);
			wk->txb[p].n = 0;
		}
		wk->tx_dirty = 0;
		memset(wk->ctr, 0, sizeof(uint64_t) * TP_MAX_PORTS * TP_CTR_MAX);
		wk->now = rte_rdtsc();
		ndn_pcct_free(fs[i]);
		fs[i]->pcc_used = fs[i]->pit_used = fs[i]->cs_used = 0;
		fs[i]->lru_head = fs[i]->lru_tail = 0;
		fs[i]->gen = 0;
		memset(fs[i]->pit_by_face, 0, sizeof(fs[i]->pit_by_face));
		memset(&fs[i]->st, 0, sizeof(fs[i]->st));
		assert_int_equal(ndn_pcct_create(fs[i], SOCKET_ID_ANY), 0);
	}
	ndn_conf.n_fwd = 1;
	memset(ndn_ndt, 0, 1u << ndn_conf.ndt_bits);
	memset(lc->fctr, 0, sizeof(lc->fctr));
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
	return 0;
}

/* After a test: every mbuf of ours is in the transmit buffers or back in the pool. */
static int done(void **state)
{
	unsigned int held = 0;

	for (unsigned int p = 0; p < TP_MAX_PORTS; p++)
		held += w->txb[p].n + w1->txb[p].n;
	assert_int_equal(rte_mempool_in_use_count(pool), held);
	return reset(state);
}

/* The Interest goes upstream on the FIB's next hop with our PIT token and its
 * HopLimit decremented, and a PIT entry holds its in- and out-record. */
static void test_interest_inserts_pit(void **state)
{
	uint8_t want[sizeof(v_interest_flags)];
	struct tp_ndn_lp lp;

	rx(1, v_interest_flags, sizeof(v_interest_flags));
	assert_int_equal(ctr("ndn.rx_interest"), 1);
	assert_int_equal(f->pit_used, 1);
	assert_int_equal(f->st.cs_misses, 1);
	assert_int_equal(w->txb[0].n, 0);
	assert_int_equal(w->txb[1].n, 1);
	sent(1, 0, 3, &lp);
	assert_int_equal(lp.pit_token_len, NDN_TOKEN_LEN);
	assert_false(lp.is_nack);
	interest_flags(want, 0x01020304, 31); /* the same bytes, HopLimit 32 - 1 */
	assert_int_equal(lp.payload_len, sizeof(want));
	assert_memory_equal(lp.payload, want, sizeof(want));
	/* the token names the entry: context 0, its PIT index */
	uint32_t idx;
	memcpy(&idx, lp.pit_token + 4, 4);
	assert_int_equal(lp.pit_token[0], 0);
	assert_true(idx >= 1 && idx <= f->pit_cap);
	const struct ndn_pit *p = &f->pit[idx];
	assert_int_not_equal(p->pcc, 0);
	assert_int_equal(p->n_in, 1);
	assert_int_equal(p->in[0].face, 1);
	assert_int_equal(p->in[0].nonce, 0x01020304);
	assert_int_equal(p->n_out, 1);
	assert_int_equal(p->out[0].face, 3);
	assert_int_equal(p->slot, 3); /* CanBePrefix | MustBeFresh */
	assert_int_equal(lc->fctr[1][NDN_FC_RX_INTEREST], 1);
	assert_int_equal(lc->fctr[3][NDN_FC_TX_INTEREST], 1);
}

/* A second consumer's Interest for the same name joins the entry (aggregated: not
 * sent again); the first consumer's Nonce from another face is a loop: Nack
 * Duplicate back to it, the entry unchanged. */
static void test_aggregate_and_duplicate(void **state)
{
	uint8_t b[sizeof(v_interest_flags)];
	struct tp_ndn_lp lp;

	rx(1, v_interest_flags, sizeof(v_interest_flags));
	interest_flags(b, 0x0a0b0c0d, 32);
	rx(2, b, sizeof(b));
	assert_int_equal(ctr("ndn.interest_aggregated"), 1);
	assert_int_equal(f->pit_used, 1);
	assert_int_equal(w->txb[1].n, 1); /* the first one's only */
	uint32_t idx = 0;
	for (uint32_t i = 1; i <= f->pit_cap; i++)
		if (f->pit[i].pcc)
			idx = i;
	assert_int_equal(f->pit[idx].n_in, 2);
	assert_int_equal(f->pit[idx].in[1].face, 2);
	assert_int_equal(f->pit[idx].in[1].nonce, 0x0a0b0c0d);
	/* face 2 again with face 1's Nonce */
	rx(2, v_interest_flags, sizeof(v_interest_flags));
	assert_int_equal(f->st.nack_duplicate, 1);
	assert_int_equal(w->txb[0].n, 1);
	sent(0, 0, 2, &lp);
	assert_true(lp.is_nack);
	assert_int_equal(lp.nack_reason, TP_NDN_NACK_DUPLICATE);
	assert_int_equal(lp.payload_len, sizeof(v_interest_flags));
	assert_memory_equal(lp.payload, v_interest_flags, sizeof(v_interest_flags));
	assert_int_equal(f->pit_used, 1);
	assert_int_equal(f->pit[idx].n_in, 2);
}

/* The producer's Data (/a/b/c, no PIT token: found by the CanBePrefix entry of its
 * prefix /a/b) goes to both consumers, byte for byte; the entry is gone, the CS keeps
 * a copy; the same Interest again is answered from the CS, nothing sent upstream. */
static void test_data_satisfies_then_cs_hit(void **state)
{
	uint8_t b[sizeof(v_interest_flags)];
	struct tp_ndn_lp lp;

	rx(1, v_interest_flags, sizeof(v_interest_flags));
	interest_flags(b, 0x0a0b0c0d, 32);
	rx(2, b, sizeof(b));
	rx(3, v_data_plain, sizeof(v_data_plain));
	assert_int_equal(ctr("ndn.rx_data"), 1);
	assert_int_equal(f->st.pit_satisfied, 1);
	assert_int_equal(f->pit_used, 0);
	assert_int_equal(f->cs_used, 1);
	assert_int_equal(w->txb[0].n, 2);
	for (unsigned int k = 0; k < 2; k++) {
		sent(0, k, 1 + k, &lp);
		assert_false(lp.is_nack);
		assert_int_equal(lp.pit_token_len, 0); /* the consumers gave none */
		assert_int_equal(lp.payload_len, sizeof(v_data_plain));
		assert_memory_equal(lp.payload, v_data_plain, sizeof(v_data_plain));
	}
	assert_int_equal(lc->fctr[1][NDN_FC_TX_DATA] + lc->fctr[2][NDN_FC_TX_DATA], 2);
	/* the CS copy is not one of ours: our pool holds just what waits to go */
	assert_int_equal(rte_mempool_in_use_count(pool), 3);

	/* the same Interest, a new Nonce, within the Data's freshness (1 s) */
	interest_flags(b, 0x11111111, 32);
	rx(1, b, sizeof(b));
	assert_int_equal(f->st.cs_hits, 1);
	assert_int_equal(w->txb[1].n, 1); /* upstream: only the first Interest */
	assert_int_equal(w->txb[0].n, 3);
	sent(0, 2, 1, &lp);
	assert_int_equal(lp.payload_len, sizeof(v_data_plain));
	assert_memory_equal(lp.payload, v_data_plain, sizeof(v_data_plain));
	assert_int_equal(f->pit_used, 0);

	/* 1.1 s later the copy is stale: MustBeFresh misses and goes upstream */
	w->now += tp.tsc_hz * 11 / 10;
	interest_flags(b, 0x22222222, 32);
	rx(1, b, sizeof(b));
	assert_int_equal(f->st.cs_hits, 1);
	assert_int_equal(f->st.cs_misses, 3); /* both first Interests, and this one */
	assert_int_equal(w->txb[1].n, 2);
	assert_int_equal(f->pit_used, 1);

	/* a Data nobody asked for (the same again: its entry is gone) */
	rx(3, v_data_plain, sizeof(v_data_plain)); /* satisfies the new one */
	rx(3, v_data_plain, sizeof(v_data_plain));
	assert_int_equal(ctr("ndn.data_unsolicited"), 1);
}

/* An entry nobody answers goes when its lifetime (2 s) ends, on the timer wheel. */
static void test_pit_expiry(void **state)
{
	rx(1, v_interest_params, sizeof(v_interest_params)); /* /ndn/seg=3/v=7, 2000 ms */
	assert_int_equal(f->pit_used, 1);
	assert_int_equal(w->txb[1].n, 1);
	w->now += tp.tsc_hz * 19 / 10; /* 1.9 s: still there */
	tp_ndn_nf.poll(w, lc);
	assert_int_equal(f->pit_used, 1);
	w->now += tp.tsc_hz * 3 / 10; /* 2.2 s */
	tp_ndn_nf.poll(w, lc);
	assert_int_equal(f->pit_used, 0);
	assert_int_equal(f->st.pit_expired, 1);
	assert_int_equal(f->pcc_used, 0);
	/* nothing was sent on expiry */
	assert_int_equal(w->txb[0].n, 0);
	/* the Data after the entry went: unsolicited */
	rx(3, v_data_plain, sizeof(v_data_plain));
	assert_int_equal(ctr("ndn.data_unsolicited"), 1);
}

/* Nacks: no route (ours, at once); the producer's Nack NoRoute (python-ndn's, with
 * the HopLimit it got, 31) forwarded down with the consumer's Nonce once every
 * upstream said no; the same Nack with a HopLimit above what we sent (32, the
 * consumer's) refused; a Nack from a face we sent nothing to, unsolicited. */
static void test_nacks(void **state)
{
	uint8_t nack[sizeof(v_nack_no_route)];
	struct tp_ndn_lp lp;

	/* python-ndn's /cmd/x: no FIB entry matches */
	rx(1, v_interest_signed, sizeof(v_interest_signed));
	assert_int_equal(f->st.nack_noroute, 1);
	assert_int_equal(f->pit_used, 0);
	assert_int_equal(w->txb[0].n, 1);
	sent(0, 0, 1, &lp);
	assert_true(lp.is_nack);
	assert_int_equal(lp.nack_reason, TP_NDN_NACK_NO_ROUTE);
	assert_int_equal(lp.payload_len, sizeof(v_interest_signed));
	assert_memory_equal(lp.payload, v_interest_signed, sizeof(v_interest_signed));

	rx(1, v_interest_flags, sizeof(v_interest_flags));
	assert_int_equal(f->pit_used, 1);
	/* python-ndn's Nack of interest_flags: HopLimit 32 is more than we sent */
	rx(3, v_nack_no_route, sizeof(v_nack_no_route));
	assert_int_equal(ctr("ndn.rx_nack"), 1);
	assert_int_equal(ctr("ndn.nack_interest_mismatch"), 1);
	assert_int_equal(f->pit_used, 1);
	/* from the other consumer's face: we sent it nothing */
	memcpy(nack, v_nack_no_route, sizeof(nack));
	assert_int_equal(nack[37], 0x22); /* HopLimit TLV, its value last */
	nack[39] = 31;
	rx(2, nack, sizeof(nack));
	assert_int_equal(ctr("ndn.nack_unsolicited"), 1);
	assert_int_equal(f->pit_used, 1);
	/* from the producer, as we sent it: the entry goes, the consumer gets it */
	rx(3, nack, sizeof(nack));
	assert_int_equal(f->st.pit_nacked, 1);
	assert_int_equal(f->pit_used, 0);
	assert_int_equal(w->txb[0].n, 2);
	sent(0, 1, 1, &lp);
	assert_true(lp.is_nack);
	assert_int_equal(lp.nack_reason, TP_NDN_NACK_NO_ROUTE);
	uint8_t want[sizeof(v_interest_flags)];
	interest_flags(want, 0x01020304, 31);
	assert_int_equal(lp.payload_len, sizeof(want));
	assert_memory_equal(lp.payload, want, sizeof(want));
	assert_int_equal(lc->fctr[1][NDN_FC_TX_NACK], 2);
}

/* Two forwarding contexts: the NDT names context 1 (lcore 1) for every name, so the
 * Interest the input stage on lcore 0 decodes goes onto context 1's Interest ring,
 * not into lcore 0's PIT; lcore 1's ring handler forwards it from its own PIT; the
 * producer's Data, carrying context 1's token, is dispatched to its Data ring. */
static void test_ndt_dispatch(void **state)
{
	struct rte_mbuf *pkts[8];
	struct tp_ndn_lp lp;
	unsigned int n;

	ndn_conf.n_fwd = 2;
	memset(ndn_ndt, 1, 1u << ndn_conf.ndt_bits);
	rx(1, v_interest_flags, sizeof(v_interest_flags));
	assert_int_equal(ctr("ndn.rx_interest"), 1);
	assert_int_equal(f->pit_used, 0);
	assert_int_equal(f->st.interests, 0);
	assert_int_equal(w->txb[1].n, 0);
	assert_int_equal(rte_ring_count(f1->ring[0]->r), 1);
	assert_int_equal(f1->ring[0]->prod[0].enqueued, 1);
	/* lcore 1 polls its ring */
	w1->now = w->now;
	n = rte_ring_dequeue_burst(f1->ring[0]->r, (void **)pkts, 8, NULL);
	assert_int_equal(n, 1);
	f1->ring[0]->fn(w1, pkts, (uint16_t)n, f1->ring[0]->ctx);
	assert_int_equal(f1->pit_used, 1);
	assert_int_equal(f1->st.interests, 1);
	assert_int_equal(w1->txb[1].n, 1);
	sent_on(w1, 1, 0, 3, &lp);
	assert_int_equal(lp.pit_token_len, NDN_TOKEN_LEN);
	assert_int_equal(lp.pit_token[0], 1); /* context 1's token */

	/* the Data with that token, received by lcore 0: to context 1's Data ring */
	uint8_t tok[NDN_TOKEN_LEN], buf[128];
	memcpy(tok, lp.pit_token, NDN_TOKEN_LEN);
	/* LpPacket { PitToken tok, Fragment v_data_plain } (NDNLPv2 TLV-TYPEs 0x64, 0x62,
	 * 0x50) */
	size_t k = 0;
	buf[k++] = 0x64;
	buf[k++] = (uint8_t)(2 + NDN_TOKEN_LEN + 2 + sizeof(v_data_plain));
	buf[k++] = 0x62;
	buf[k++] = NDN_TOKEN_LEN;
	memcpy(buf + k, tok, NDN_TOKEN_LEN);
	k += NDN_TOKEN_LEN;
	buf[k++] = 0x50;
	buf[k++] = sizeof(v_data_plain);
	memcpy(buf + k, v_data_plain, sizeof(v_data_plain));
	k += sizeof(v_data_plain);
	rx(3, buf, k);
	assert_int_equal(f->st.data, 0);
	assert_int_equal(rte_ring_count(f1->ring[1]->r), 1);
	n = rte_ring_dequeue_burst(f1->ring[1]->r, (void **)pkts, 8, NULL);
	f1->ring[1]->fn(w1, pkts, (uint16_t)n, f1->ring[1]->ctx);
	assert_int_equal(f1->st.pit_satisfied, 1);
	assert_int_equal(f1->pit_used, 0);
	/* the Data leaves from lcore 1, to the consumer */
	assert_int_equal(w1->txb[0].n, 1);
	sent_on(w1, 0, 0, 1, &lp);
	assert_memory_equal(lp.payload, v_data_plain, sizeof(v_data_plain));
}

/* A stream face (control/stream.c's, Unix or TCP): what the forwarding stage sends on
 * it goes whole to ndn_stream_ring for the control plane (an LpPacket with our PIT
 * token, no link header, no fragmentation), counted on the face; what the control
 * plane hands back from it (the hand-back ring's handler, as stream.c's deliver does)
 * is the face's packet: its Data satisfies the Interest. A full ring drops, counted. */
static void test_stream_face(void **state)
{
	char err[128];
	uint8_t want[sizeof(v_interest_flags)];
	struct tp_ndn_lp lp;
	struct rte_mbuf *m;
	int id = ndn_face_add_stream(NDN_FACE_UNIX, true, 0, 0, err, sizeof(err));

	assert_true(id > 3);
	ndn_stream_ring = rte_ring_create("ndn_stream_test", 2, SOCKET_ID_ANY, RING_F_SC_DEQ);
	assert_non_null(ndn_stream_ring); /* room for one */
	/* CAPTURE (2): /a's route (CHILD_INHERIT, the same cost, a lower face id) is not
	 * inherited by /a/b's entry, which has the stream face alone */
	uint8_t ab[16];
	int abl = tp_ndn_name_from_uri("/a/b", ab, sizeof(ab));
	assert_int_equal(ndn_rib_add(ab, (uint16_t)abl, (uint16_t)id, 255, 10, 2, -1), 0);
	rx(1, v_interest_flags, sizeof(v_interest_flags));
	assert_int_equal(w->txb[1].n, 0); /* not to /a's face */
	assert_int_equal(rte_ring_dequeue(ndn_stream_ring, (void **)&m), 0);
	assert_int_equal(ndn_meta(m)->out_face, id);
	assert_int_equal(m->nb_segs, 1);
	assert_int_equal(tp_ndn_lp_decode(rte_pktmbuf_mtod(m, const uint8_t *), m->data_len, &lp),
			 TP_NDN_E_OK);
	assert_int_equal(lp.pit_token_len, NDN_TOKEN_LEN);
	interest_flags(want, 0x01020304, 31);
	assert_int_equal(lp.payload_len, sizeof(want));
	assert_memory_equal(lp.payload, want, sizeof(want));
	assert_int_equal(lc->fctr[id][NDN_FC_TX_INTEREST], 1);
	assert_int_equal(lc->fctr[id][NDN_FC_TX_BYTES], m->pkt_len);
	assert_int_equal(lc->fctr[id][NDN_FC_TX_FRAGMENTS], 0);
	rte_pktmbuf_free(m);

	/* the application's Data, as the control plane hands it back */
	m = rte_pktmbuf_alloc(pool);
	assert_non_null(m);
	memcpy(rte_pktmbuf_append(m, sizeof(v_data_plain)), v_data_plain, sizeof(v_data_plain));
	m->port = 0;
	ndn_meta(m)->face = (uint16_t)id;
	ndn_rx_ring(w, &m, 1, NULL);
	assert_int_equal(lc->fctr[id][NDN_FC_RX_DATA], 1);
	assert_int_equal(f->st.pit_satisfied, 1);
	assert_int_equal(w->txb[0].n, 1);
	sent(0, 0, 1, &lp);
	assert_int_equal(lp.payload_len, sizeof(v_data_plain));
	assert_memory_equal(lp.payload, v_data_plain, sizeof(v_data_plain));

	/* the ring full (a packet the control plane has not taken): the next Interest
	 * (the cached Data stale 1.1 s later) is dropped, counted */
	struct rte_mbuf *waiting = rte_pktmbuf_alloc(pool);
	assert_int_equal(rte_ring_enqueue(ndn_stream_ring, waiting), 0);
	w->now += tp.tsc_hz * 11 / 10;
	interest_flags(want, 0x22222222, 32);
	rx(1, want, sizeof(want));
	assert_int_equal(ctr("ndn.stream_ring_full"), 1);
	assert_int_equal(lc->fctr[id][NDN_FC_TX_DROP], 1);
	assert_int_equal(lc->fctr[id][NDN_FC_TX_INTEREST], 1);

	assert_int_equal(rte_ring_dequeue(ndn_stream_ring, (void **)&m), 0);
	rte_pktmbuf_free(m);
	rte_ring_free(ndn_stream_ring);
	ndn_stream_ring = NULL;
	assert_int_equal(ndn_face_del((unsigned int)id), 0); /* and its route */
	tp_rcu_reclaim();
}

/* A PCCT chain is in insertion order, so the entry leaving first unlinks at its
 * head: 17 names in one bucket (one hash, as if they collided), each with a CS copy
 * in the CS of 16; the 17th copy evicts the first (the LRU tail), whose entry was
 * the chain's head. Then, on a chain without CS copies, unlinks in the middle, at
 * the tail and at the head. */
static void test_pcct_chain_order(void **state)
{
	uint8_t key[17][4];
	uint32_t idx[17], h = 0x12345, h2 = 0x777;
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *d;

	assert_non_null(m);
	d = (uint8_t *)rte_pktmbuf_append(m, sizeof(v_data_plain));
	assert_non_null(d);
	memcpy(d, v_data_plain, sizeof(v_data_plain));
	for (unsigned int i = 0; i < 17; i++) {
		memcpy(key[i], (uint8_t[]){TP_NDN_T_GENERIC, 2, 'k', (uint8_t)i}, 4);
		assert_int_equal(ndn_pcc_find(f, key[i], 4, h), 0);
		idx[i] = ndn_pcc_insert(f, key[i], 4, 1, h);
		assert_int_not_equal(idx[i], 0);
		assert_int_equal(f->bucket[h & f->bucket_mask], idx[0]);
		assert_int_equal(f->pcc[idx[i]].next, 0);
		if (i)
			assert_int_equal(f->pcc[idx[i - 1]].next, idx[i]);
		assert_int_not_equal(ndn_cs_insert(f, idx[i], m, 0), 0);
	}
	rte_pktmbuf_free(m);
	assert_int_equal(f->st.cs_evictions, 1);
	assert_int_equal(f->cs_used, 16);
	assert_int_equal(f->pcc_used, 16);
	assert_int_equal(f->bucket[h & f->bucket_mask], idx[1]);
	assert_int_equal(ndn_pcc_find(f, key[0], 4, h), 0);
	for (unsigned int i = 1; i < 17; i++)
		assert_int_equal(ndn_pcc_find(f, key[i], 4, h), idx[i]);

	/* a, b, c in one bucket, no PIT or CS entry: b, then c, then a */
	for (unsigned int i = 0; i < 3; i++)
		idx[i] = ndn_pcc_insert(f, key[i], 4, 1, h2);
	assert_int_equal(f->bucket[h2 & f->bucket_mask], idx[0]);
	ndn_pcc_release(f, idx[1]);
	assert_int_equal(f->pcc[idx[0]].next, idx[2]);
	ndn_pcc_release(f, idx[2]);
	assert_int_equal(f->pcc[idx[0]].next, 0);
	assert_int_equal(ndn_pcc_find(f, key[0], 4, h2), idx[0]);
	assert_int_equal(ndn_pcc_find(f, key[1], 4, h2), 0);
	ndn_pcc_release(f, idx[0]);
	assert_int_equal(f->bucket[h2 & f->bucket_mask], 0);
	assert_int_equal(f->pcc_used, 16);
}

/* --- forwarding semantics: Dead Nonce List, HopLimit, ForwardingHint, strategies --- */

static uint64_t ms(uint64_t n)
{
	return n * (tp.tsc_hz / 1000);
}

static int name_of(const char *uri, uint8_t *name)
{
	int len = tp_ndn_name_from_uri(uri, name, TP_NDN_NAME_MAX_LEN);

	assert_true(len >= 0);
	return len;
}

static void route_cost(const char *uri, uint16_t face, uint64_t cost)
{
	uint8_t name[TP_NDN_NAME_MAX_LEN];
	int len = name_of(uri, name);

	assert_int_equal(ndn_rib_add(name, (uint16_t)len, face, 255, cost, 1, -1), 0);
}

static void unroute(const char *uri, uint16_t face)
{
	uint8_t name[TP_NDN_NAME_MAX_LEN];
	int len = name_of(uri, name);

	assert_int_equal(ndn_rib_del(name, (uint16_t)len, face, 255), 0);
}

static int strategy(const char *uri, int s)
{
	uint8_t name[TP_NDN_NAME_MAX_LEN];
	int len = name_of(uri, name);

	return s < 0 ? ndn_fib_strategy_unset(name, (uint16_t)len)
		     : ndn_fib_strategy_set(name, (uint16_t)len, (enum ndn_strategy)s, 0);
}

/* v_interest_flags renamed /<first>/<second>, with nonce */
static void interest_named(uint8_t *b, uint8_t first, uint8_t second, uint32_t nonce)
{
	interest_flags(b, nonce, 32);
	assert_true(b[6] == 'a' && b[9] == 'b');
	b[6] = first;
	b[9] = second;
}

/* v_data_plain renamed /<first>/<second>/c */
static void data_named(uint8_t *b, uint8_t first, uint8_t second)
{
	memcpy(b, v_data_plain, sizeof(v_data_plain));
	assert_true(b[6] == 'a' && b[9] == 'b');
	b[6] = first;
	b[9] = second;
}

struct entry_find {
	const uint8_t *name;
	uint16_t len;
	const struct ndn_fib_entry *e;
};

static void entry_find_one(const struct ndn_fib_entry *e, void *arg)
{
	struct entry_find *q = arg;

	if (e->name_len == q->len && memcmp(e->name, q->name, q->len) == 0)
		q->e = e;
}

static const struct ndn_fib_entry *fib_entry(const char *uri)
{
	uint8_t name[TP_NDN_NAME_MAX_LEN];
	struct entry_find q = {.name = name, .len = (uint16_t)name_of(uri, name)};

	ndn_fib_walk(entry_find_one, &q);
	assert_non_null(q.e);
	return q.e;
}

/* NFD's Dead Nonce List: an Interest nobody answered leaves its PIT entry when its
 * lifetime ends, and its Nonce in the list; the same Interest coming back (a loop),
 * from another face, is caught (Nack Duplicate), not forwarded again; another Nonce
 * goes on; 6 s later the list has forgotten it. A MustBeFresh entry satisfied by a
 * Data fresh for less than 6 s leaves its Nonce too, so its loop is caught even where
 * the CS holds the Data. */
static void test_dead_nonce_list(void **state)
{
	uint8_t b[sizeof(v_interest_params)];
	struct tp_ndn_lp lp;

	rx(1, v_interest_params, sizeof(v_interest_params)); /* /ndn/seg=3/v=7, 2000 ms */
	assert_int_equal(w->txb[1].n, 1);
	w->now += ms(2200);
	tp_ndn_nf.poll(w, lc);
	assert_int_equal(f->pit_used, 0);
	assert_int_equal(f->st.dnl_inserts, 1);
	rx(2, v_interest_params, sizeof(v_interest_params));
	assert_int_equal(f->st.dnl_loops, 1);
	assert_int_equal(f->st.nack_duplicate, 1);
	assert_int_equal(w->txb[1].n, 1); /* not forwarded again */
	assert_int_equal(f->pit_used, 0);
	assert_int_equal(w->txb[0].n, 1);
	sent(0, 0, 2, &lp);
	assert_true(lp.is_nack);
	assert_int_equal(lp.nack_reason, TP_NDN_NACK_DUPLICATE);
	assert_int_equal(lp.payload_len, sizeof(v_interest_params));
	assert_memory_equal(lp.payload, v_interest_params, sizeof(v_interest_params));
	/* another Nonce: no loop */
	memcpy(b, v_interest_params, sizeof(b));
	assert_int_equal(b[49], 0x0a); /* Nonce TLV */
	b[54] ^= 0xff;
	rx(2, b, sizeof(b));
	assert_int_equal(w->txb[1].n, 2);
	assert_int_equal(f->st.dnl_loops, 1);
	/* 6 s after it went in the list, the first Nonce goes on again */
	w->now += ms(6100);
	tp_ndn_nf.poll(w, lc); /* the second entry expires */
	rx(1, v_interest_params, sizeof(v_interest_params));
	assert_int_equal(w->txb[1].n, 3);
	assert_int_equal(f->st.dnl_loops, 1);
	assert_int_equal(f->pit_used, 1);

	/* satisfied MustBeFresh: /a/b answered by /a/b/c (FreshnessPeriod 1000 ms) */
	rx(1, v_interest_flags, sizeof(v_interest_flags));
	rx(3, v_data_plain, sizeof(v_data_plain));
	assert_int_equal(f->st.pit_satisfied, 1);
	uint64_t ins = f->st.dnl_inserts;
	assert_int_equal(ins, 3);
	rx(2, v_interest_flags, sizeof(v_interest_flags));
	assert_int_equal(f->st.dnl_loops, 2);
	assert_int_equal(f->st.cs_hits, 0);
	assert_int_equal(ctr("ndn.interest_loop_dropped"), 0); /* Nacked: not multi-access */
}

/* The list's bound: twice its slots of Nonces for one name; each one over its capacity
 * gives up a live one (dnl_evicted_live), the list never holds more than its slots,
 * the newest is there, another name's same Nonce is not, and after 6 s nothing is. */
static void test_dead_nonce_list_bound(void **state)
{
	uint32_t slots = (f->dnl.bucket_mask + 1) * NDN_DNL_WAYS;
	uint8_t key[4] = {TP_NDN_T_GENERIC, 2, 'k', 0};
	uint32_t pcc = ndn_pcc_insert(f, key, 4, 1, 0x4242);
	uint32_t idx = ndn_pit_alloc(f, pcc, 0);
	struct ndn_pit *p = &f->pit[idx];
	unsigned int held = 0;

	assert_true(slots >= 1024);
	p->n_out = 1;
	p->out[0].face = 3;
	for (uint32_t i = 0; i < 2 * slots; i++) {
		p->out[0].nonce = i;
		ndn_dnl_add_pit(f, idx, w->now);
	}
	assert_int_equal(f->st.dnl_inserts, 2 * slots);
	assert_true(f->st.dnl_evicted_live >= slots);
	for (uint32_t i = 0; i < 2 * slots; i++)
		held += ndn_dnl_has(f, 0x4242, i, w->now);
	assert_int_equal(held, 2 * slots - f->st.dnl_evicted_live);
	assert_true(held <= slots);
	assert_true(ndn_dnl_has(f, 0x4242, 2 * slots - 1, w->now));
	assert_false(ndn_dnl_has(f, 0x4243, 2 * slots - 1, w->now));
	assert_false(ndn_dnl_has(f, 0x4242, 2 * slots - 1, w->now + ms(6001)));
	ndn_pit_free(f, idx);
}

/* HopLimit (NDN packet format v0.3 5.2.4, NFD's pipelines): 0 on arrival is dropped
 * (hop_limit_zero); 1 becomes 0 and goes to local faces only: the non-local producer
 * refused (hop_limit_zero_next_hop_refused), Nack NoRoute; a local one gets it with
 * HopLimit 0. */
static void test_hop_limit(void **state)
{
	uint8_t b[sizeof(v_interest_flags)], want[sizeof(v_interest_flags)];
	struct tp_ndn_lp lp;

	interest_flags(b, 0x31, 0);
	rx(1, b, sizeof(b));
	assert_int_equal(ctr("ndn.hop_limit_zero"), 1);
	assert_int_equal(w->txb[0].n + w->txb[1].n, 0);
	assert_int_equal(f->pit_used, 0);

	interest_flags(b, 0x32, 1);
	rx(1, b, sizeof(b));
	assert_int_equal(ctr("ndn.hop_limit_zero_next_hop_refused"), 1);
	assert_int_equal(w->txb[1].n, 0);
	assert_int_equal(w->txb[0].n, 1);
	sent(0, 0, 1, &lp);
	assert_true(lp.is_nack);
	assert_int_equal(lp.nack_reason, TP_NDN_NACK_NO_ROUTE);
	assert_int_equal(f->pit_used, 0);

	ndn_faces[3].local = 1;
	interest_flags(b, 0x33, 1);
	rx(1, b, sizeof(b));
	ndn_faces[3].local = 0;
	assert_int_equal(w->txb[1].n, 1);
	sent(1, 0, 3, &lp);
	interest_flags(want, 0x33, 0);
	assert_int_equal(lp.payload_len, sizeof(want));
	assert_memory_equal(lp.payload, want, sizeof(want));
}

/* ForwardingHint (v0.3 5.2.5), as NDN-DPDK: python-ndn's /x/y with hints /m, /a goes
 * by the first hint with a next hop other than its downstream: from face 4 (/m's only
 * hop) by /a to face 3, from face 1 by /m to face 4; with only a hint the FIB does not
 * know, no route, though the Interest's name has one. */
static void test_forwarding_hint(void **state)
{
	uint8_t b[sizeof(v_interest_hint)];
	struct tp_ndn_lp lp;

	route_cost("/m", 4, 10);
	route_cost("/x", 3, 10);
	tp_rcu_reclaim();
	rx(4, v_interest_hint, sizeof(v_interest_hint));
	assert_int_equal(w->txb[1].n, 1);
	sent(1, 0, 3, &lp);
	assert_int_equal(lp.payload_len, sizeof(v_interest_hint));
	w->now += ms(4100);
	tp_ndn_nf.poll(w, lc);
	memcpy(b, v_interest_hint, sizeof(b));
	assert_int_equal(b[22], 0x0a); /* Nonce TLV */
	b[27] ^= 0x10;
	rx(1, b, sizeof(b));
	assert_int_equal(w->txb[1].n, 2);
	sent(1, 1, 4, &lp);

	w->now += ms(4100);
	tp_ndn_nf.poll(w, lc);
	rx(1, v_interest_hint_none, sizeof(v_interest_hint_none));
	assert_int_equal(w->txb[1].n, 2);
	assert_int_equal(f->st.nack_noroute, 1);
	sent(0, 0, 1, &lp);
	assert_true(lp.is_nack);
	assert_int_equal(lp.nack_reason, TP_NDN_NACK_NO_ROUTE);
	unroute("/m", 4);
	unroute("/x", 3);
}

/* best-route (NFD's): a new Interest to the cheapest hop (face 3); its retransmission
 * suppressed within 10 ms, then forwarded to the hop not used yet (face 4); the
 * interval doubles (20 ms): suppressed 15 ms later, forwarded 25 ms later, to the hop
 * used longest ago (face 3). */
static void test_best_route_retx(void **state)
{
	uint8_t b[sizeof(v_interest_flags)];
	struct tp_ndn_lp lp;

	route_cost("/m", 3, 10);
	route_cost("/m", 4, 20);
	assert_int_equal(fib_entry("/m")->strategy, NDN_STRATEGY_BEST_ROUTE);
	interest_named(b, 'm', 'b', 0x41);
	rx(1, b, sizeof(b));
	assert_int_equal(w->txb[1].n, 1);
	sent(1, 0, 3, &lp);
	w->now += ms(5);
	interest_named(b, 'm', 'b', 0x42);
	rx(1, b, sizeof(b));
	assert_int_equal(ctr("ndn.interest_suppressed"), 1);
	assert_int_equal(w->txb[1].n, 1);
	w->now += ms(6);
	interest_named(b, 'm', 'b', 0x43);
	rx(1, b, sizeof(b));
	assert_int_equal(w->txb[1].n, 2);
	sent(1, 1, 4, &lp);
	assert_int_equal(f->st.retx_forwarded, 1);
	w->now += ms(15);
	interest_named(b, 'm', 'b', 0x44);
	rx(1, b, sizeof(b));
	assert_int_equal(ctr("ndn.interest_suppressed"), 2);
	w->now += ms(10);
	interest_named(b, 'm', 'b', 0x45);
	rx(1, b, sizeof(b));
	assert_int_equal(w->txb[1].n, 3);
	sent(1, 2, 3, &lp);
	assert_int_equal(f->st.retx_forwarded, 2);
	unroute("/m", 3);
	unroute("/m", 4);
}

/* multicast: every next hop but the downstream gets the Interest. */
static void test_multicast(void **state)
{
	uint8_t b[sizeof(v_interest_flags)];
	struct tp_ndn_lp lp;

	route_cost("/m", 3, 10);
	route_cost("/m", 4, 20);
	assert_int_equal(strategy("/m", NDN_STRATEGY_MULTICAST), 0);
	assert_int_equal(fib_entry("/m")->strategy, NDN_STRATEGY_MULTICAST);
	interest_named(b, 'm', 'b', 0x61);
	rx(1, b, sizeof(b));
	assert_int_equal(w->txb[1].n, 2);
	sent(1, 0, 3, &lp);
	sent(1, 1, 4, &lp);
	assert_memory_equal(lp.payload + lp.payload_len - 1, (uint8_t[]){31}, 1);
	assert_int_equal(strategy("/m", -1), 0);
	assert_int_equal(fib_entry("/m")->strategy, NDN_STRATEGY_BEST_ROUTE);
	unroute("/m", 3);
	unroute("/m", 4);
}

/* asf: the first Interest to the cheapest never-measured hop (face 3) and a probe to
 * the other (face 4); face 4's Data in 2 ms measures it: the next Interest goes to
 * face 4, no probe within the interval; face 4 times out: the next goes to face 3
 * (never measured ranks above timed out). */
static void test_asf(void **state)
{
	uint8_t b[sizeof(v_interest_flags)], d[sizeof(v_data_plain)];
	struct tp_ndn_lp lp;

	route_cost("/m", 3, 10);
	route_cost("/m", 4, 20);
	assert_int_equal(strategy("/m", NDN_STRATEGY_ASF), 0);
	assert_int_equal(fib_entry("/m")->strategy, NDN_STRATEGY_ASF);
	assert_int_equal(fib_entry("/m")->probe_ms, NDN_ASF_PROBE_MS);
	interest_named(b, 'm', 'b', 0x51);
	rx(1, b, sizeof(b));
	assert_int_equal(w->txb[1].n, 2);
	sent(1, 0, 3, &lp);
	sent(1, 1, 4, &lp);
	assert_int_equal(f->st.asf_probes, 1);
	w->now += ms(2);
	data_named(d, 'm', 'b');
	rx(4, d, sizeof(d));
	assert_int_equal(f->st.pit_satisfied, 1);
	assert_int_equal(w->txb[0].n, 1); /* to the consumer */
	const struct ndn_asf *a = &f->asf[fib_entry("/m")->id];
	assert_int_equal(a->m[1].face, 4);
	assert_true(a->m[1].srtt_us >= 1900 && a->m[1].srtt_us <= 2100);
	assert_int_equal(a->m[0].srtt_us, 0);

	interest_named(b, 'm', 'c', 0x52);
	rx(1, b, sizeof(b));
	assert_int_equal(w->txb[1].n, 3);
	sent(1, 2, 4, &lp);
	assert_int_equal(f->st.asf_probes, 1);
	w->now += ms(4100);
	tp_ndn_nf.poll(w, lc);
	assert_int_equal(a->m[1].timeouts, 1);
	interest_named(b, 'm', 'd', 0x53);
	rx(1, b, sizeof(b));
	assert_int_equal(w->txb[1].n, 4);
	sent(1, 3, 3, &lp);
	assert_int_equal(strategy("/m", -1), 0);
	unroute("/m", 3);
	unroute("/m", 4);
}

/* The strategy choice table: the longest prefix wins, unset gives the parent's, "/"
 * cannot be unset, 64 prefixes at most; NFD's strategy names parsed. */
static void test_strategy_table(void **state)
{
	enum ndn_strategy s;
	uint32_t probe;
	char uri[32];

	route_cost("/m/x/y", 3, 10);
	assert_int_equal(strategy("/m", NDN_STRATEGY_MULTICAST), 0);
	assert_int_equal(strategy("/m/x", NDN_STRATEGY_ASF), 0);
	assert_int_equal(fib_entry("/m/x/y")->strategy, NDN_STRATEGY_ASF);
	assert_int_equal(strategy("/m/x", -1), 0);
	assert_int_equal(fib_entry("/m/x/y")->strategy, NDN_STRATEGY_MULTICAST);
	assert_int_equal(strategy("/m/x", -1), -ENOENT);
	assert_int_equal(strategy("/", -1), -EINVAL);
	assert_int_equal(strategy("/m", -1), 0);
	assert_int_equal(fib_entry("/m/x/y")->strategy, NDN_STRATEGY_BEST_ROUTE);
	for (unsigned int i = 0; i < NDN_STRATEGY_CHOICES; i++) {
		snprintf(uri, sizeof(uri), "/s/%u", i);
		assert_int_equal(strategy(uri, NDN_STRATEGY_MULTICAST), 0);
	}
	assert_int_equal(strategy("/s/more", NDN_STRATEGY_MULTICAST), -ENOSPC);
	for (unsigned int i = 0; i < NDN_STRATEGY_CHOICES; i++) {
		snprintf(uri, sizeof(uri), "/s/%u", i);
		assert_int_equal(strategy(uri, -1), 0);
	}
	unroute("/m/x/y", 3);

	assert_int_equal(ndn_strategy_parse(
			     "/localhost/nfd/strategy/asf/v=5/probing-interval~30000", &s, &probe),
			 0);
	assert_int_equal(s, NDN_STRATEGY_ASF);
	assert_int_equal(probe, 30000);
	assert_int_equal(ndn_strategy_parse("/localhost/nfd/strategy/multicast/v=4", &s, &probe),
			 0);
	assert_int_equal(s, NDN_STRATEGY_MULTICAST);
	assert_int_equal(ndn_strategy_parse("best-route", &s, &probe), 0);
	assert_int_equal(s, NDN_STRATEGY_BEST_ROUTE);
	assert_int_equal(ndn_strategy_parse("/localhost/nfd/strategy/self-learning", &s, &probe),
			 -ENOENT);
	assert_int_equal(ndn_strategy_parse("best-routex", &s, &probe), -ENOENT);
	assert_int_equal(ndn_strategy_parse("asf/probing-interval~10", &s, &probe), -EINVAL);
	assert_int_equal(ndn_strategy_parse("best-route/probing-interval~5000", &s, &probe),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_interest_inserts_pit, reset, done),
	    cmocka_unit_test_setup_teardown(test_aggregate_and_duplicate, reset, done),
	    cmocka_unit_test_setup_teardown(test_data_satisfies_then_cs_hit, reset, done),
	    cmocka_unit_test_setup_teardown(test_pit_expiry, reset, done),
	    cmocka_unit_test_setup_teardown(test_nacks, reset, done),
	    cmocka_unit_test_setup_teardown(test_ndt_dispatch, reset, done),
	    cmocka_unit_test_setup_teardown(test_stream_face, reset, done),
	    cmocka_unit_test_setup_teardown(test_pcct_chain_order, reset, done),
	    cmocka_unit_test_setup_teardown(test_dead_nonce_list, reset, done),
	    cmocka_unit_test_setup_teardown(test_dead_nonce_list_bound, reset, done),
	    cmocka_unit_test_setup_teardown(test_hop_limit, reset, done),
	    cmocka_unit_test_setup_teardown(test_forwarding_hint, reset, done),
	    cmocka_unit_test_setup_teardown(test_best_route_retx, reset, done),
	    cmocka_unit_test_setup_teardown(test_multicast, reset, done),
	    cmocka_unit_test_setup_teardown(test_asf, reset, done),
	    cmocka_unit_test_setup_teardown(test_strategy_table, reset, done),
	};
	if (tp_test_eal_init() < 0)
		return 1;
	return cmocka_run_group_tests_name("ndn_fwd", tests, setup, teardown);
}
