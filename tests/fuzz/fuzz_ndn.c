/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target for the NDN codec: what a face receives (an LpPacket or a bare
 * packet), its payload as an Interest or a Data, names to URIs and back, the
 * reassembler. Properties: a decoded name's URI parses back to the same bytes; a
 * decoded Interest re-encodes (without parameters) to one that decodes; the error is
 * one of the codec's. Built and run by scripts/fuzz.sh. */
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tp_ndn_lp lp;
	struct tp_ndn_interest i;
	struct tp_ndn_data d;
	static uint8_t buf[70000];
	int rc;

	if (reasm.timeout == 0)
		tp_ndn_reasm_init(&reasm, 1);
	rc = tp_ndn_lp_decode(data, size, &lp);
	must(rc >= 0 && rc < TP_NDN_E_MAX);
	if (rc != TP_NDN_E_OK)
		return 0;
	must(lp.payload >= data && lp.payload + lp.payload_len <= data + size);
	if (lp.frag_count > 1) {
		void *out[TP_NDN_FRAG_MAX], *ev[TP_NDN_REASM_EVICT_MAX];
		uint32_t n_out, n_ev;
		static uint64_t now;
		tp_ndn_reasm_add(&reasm, &lp, (void *)1, now++, out, &n_out, ev, &n_ev);
		must(n_ev <= TP_NDN_REASM_EVICT_MAX && n_out <= TP_NDN_FRAG_MAX);
		while (tp_ndn_reasm_expire(&reasm, now, ev, &n_ev))
			must(n_ev <= TP_NDN_FRAG_MAX);
		return 0;
	}
	rc = tp_ndn_interest_decode(lp.payload, lp.payload_len, &i, NULL);
	must(rc >= 0 && rc < TP_NDN_E_MAX);
	if (rc == TP_NDN_E_OK) {
		name_roundtrip(&i.name);
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
