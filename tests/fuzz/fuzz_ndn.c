/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target for the NDN codec: what a face receives (an LpPacket or a bare
 * packet), its payload as an Interest or a Data, names to URIs and back, the
 * reassembler (fragments kept across inputs, from two senders). Properties: a decoded
 * name's URI parses back to the same bytes; a decoded Interest re-encodes (without
 * parameters) to one that decodes; the error is one of the codec's; every fragment
 * the reassembler takes comes back exactly once, and a reassembled packet is the
 * fragments' payloads in order. Built and run by scripts/fuzz.sh. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/ndn.h"

static void must(int cond)
{
	if (!cond)
		abort();
}

static void name_roundtrip(const struct tp_ndn_name *n)
{
	static char uri[TP_NDN_NAME_MAX_LEN * 3 + 16];
	static uint8_t back[TP_NDN_NAME_MAX_LEN + 64];
	int len = tp_ndn_name_to_uri(n, uri, sizeof(uri));

	if (len < 0)
		return;
	int k = tp_ndn_name_from_uri(uri, back, sizeof(back));
	must(k == n->len && memcmp(back, n->value, n->len) == 0);
}

static struct tp_ndn_reasm reasm;

/* The fragments the reassembler may hold, each a copy of its payload: a handle is an
 * entry, live from tp_ndn_reasm_add until it comes back (out, evicted, or refused). */
#define HELD_MAX (TP_NDN_REASM_SLOTS * TP_NDN_FRAG_MAX + 1)
#define FRAG_COPY 2048
static struct held {
	bool live;
	uint16_t len;
	uint32_t flow, index;
	uint64_t base;
	uint8_t b[FRAG_COPY];
} held[HELD_MAX];

static struct held *held_take(const struct tp_ndn_lp *lp, uint32_t flow)
{
	for (unsigned int i = 0; i < HELD_MAX; i++)
		if (!held[i].live) {
			held[i].live = true;
			held[i].flow = flow;
			held[i].index = lp->frag_index;
			held[i].base = lp->seq - lp->frag_index;
			held[i].len =
			    (uint16_t)(lp->payload_len < FRAG_COPY ? lp->payload_len : FRAG_COPY);
			memcpy(held[i].b, lp->payload, held[i].len);
			return &held[i];
		}
	abort(); /* more held than the reassembler can hold: it lost some */
}

static void held_back(void *h)
{
	struct held *e = h;

	must(e >= held && e < held + HELD_MAX && e->live);
	e->live = false;
}

static void reassemble(const struct tp_ndn_lp *lp, uint32_t flow)
{
	void *out[TP_NDN_FRAG_MAX], *ev[TP_NDN_REASM_EVICT_MAX];
	static uint8_t whole[TP_NDN_FRAG_MAX * FRAG_COPY];
	uint32_t n_out, n_ev;
	static uint64_t now;
	struct held *h = held_take(lp, flow);
	struct tp_ndn_lp w;
	size_t len = 0;

	enum tp_ndn_reasm_result rc =
	    tp_ndn_reasm_add(&reasm, lp, flow, h, now++, out, &n_out, ev, &n_ev);
	must(n_ev <= TP_NDN_REASM_EVICT_MAX && n_out <= TP_NDN_FRAG_MAX);
	for (uint32_t k = 0; k < n_ev; k++)
		held_back(ev[k]);
	if (rc == TP_NDN_REASM_BAD) {
		must(n_out == 0);
		held_back(h);
	} else if (rc == TP_NDN_REASM_COMPLETE) {
		must(n_out == lp->frag_count);
		for (uint32_t k = 0; k < n_out; k++) {
			struct held *e = out[k];
			must(e->index == k && e->flow == flow && e->base == h->base);
			memcpy(whole + len, e->b, e->len);
			len += e->len;
			held_back(e);
		}
		/* what a forwarder does next: decode it as a face's packet */
		int d = tp_ndn_lp_decode(whole, len, &w);
		must(d >= 0 && d < TP_NDN_E_MAX);
	}
	while (tp_ndn_reasm_expire(&reasm, now, ev, &n_ev)) {
		must(n_ev <= TP_NDN_FRAG_MAX);
		for (uint32_t k = 0; k < n_ev; k++)
			held_back(ev[k]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tp_ndn_lp lp;
	struct tp_ndn_interest i;
	struct tp_ndn_data d;
	static uint8_t buf[70000];
	int rc;

	if (reasm.timeout == 0)
		tp_ndn_reasm_init(&reasm, 8);
	rc = tp_ndn_lp_decode(data, size, &lp);
	must(rc >= 0 && rc < TP_NDN_E_MAX);
	if (rc != TP_NDN_E_OK)
		return 0;
	must(lp.payload >= data && lp.payload + lp.payload_len <= data + size);
	if (lp.frag_count > 1) {
		/* two senders: which one by the Sequence's top bit */
		reassemble(&lp, (uint32_t)(lp.seq >> 63));
		return 0;
	}
	rc = tp_ndn_interest_decode(lp.payload, lp.payload_len, &i, NULL);
	must(rc >= 0 && rc < TP_NDN_E_MAX);
	if (rc == TP_NDN_E_OK) {
		static const uint8_t key[32] = {1, 2, 3};
		int64_t t;
		name_roundtrip(&i.name);
		/* what management checks of a command: its signature, by type */
		int v = tp_ndn_interest_verify_hmac(&i, key, sizeof(key), &t);
		must(v == 0 || v == 1 || (v < 0 && i.sig_info == NULL) ||
		     v == -TP_NDN_E_BAD_SIGNATURE);
		must(v != 1 || t >= -1);
		struct tp_ndn_interest_spec s = {
		    .name_value = i.name.value,
		    .name_len =
			(uint16_t)(i.name.has_params_digest
				       ? tp_ndn_name_prefix_len(&i.name, i.name.params_digest_comp)
				       : i.name.len),
		    .can_be_prefix = i.can_be_prefix,
		    .must_be_fresh = i.must_be_fresh,
		    .nonce = i.nonce,
		    .lifetime_ms = i.lifetime_ms,
		    .hop_limit = i.has_hop_limit ? i.hop_limit : -1,
		};
		int len = tp_ndn_interest_encode(buf, sizeof(buf), &s);
		struct tp_ndn_interest j;
		/* a name of only a digest component re-encodes empty: not an Interest */
		if (len > 0 && s.name_len > 0) {
			must(tp_ndn_interest_decode(buf, (size_t)len, &j, NULL) == TP_NDN_E_OK);
			must(j.nonce == i.nonce && j.lifetime_ms == i.lifetime_ms);
		}
		return 0;
	}
	rc = tp_ndn_data_decode(lp.payload, lp.payload_len, &d, NULL);
	must(rc >= 0 && rc < TP_NDN_E_MAX);
	if (rc == TP_NDN_E_OK) {
		uint8_t md[32];
		name_roundtrip(&d.name);
		tp_ndn_data_verify_digest(&d);
		tp_ndn_data_implicit_digest(&d, md);
	}
	return 0;
}
