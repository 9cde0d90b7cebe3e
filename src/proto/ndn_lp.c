/* SPDX-License-Identifier: BSD-3-Clause */
/* NDNLPv2: LpPacket decoding and encoding, and the reassembly of fragments. */
#include <string.h>

#include "ndn.h"

/* NDNLPv2 "Header fields": an unknown one may be ignored only when its type is in
 * 800-959 with its two least significant bits 0 */
static bool lp_ignorable(uint32_t type)
{
	return type >= 800 && type <= 959 && (type & 0x03) == 0;
}

static int nack_decode(const struct tp_ndn_tlv *n, uint32_t *reason)
{
	const uint8_t *p = n->value;
	struct tp_ndn_tlv t;
	uint64_t x;
	int rc;

	*reason = TP_NDN_NACK_UNSPECIFIED; /* a Nack without a reason */
	while (p < n->end) {
		if ((rc = tp_ndn_tlv_read(&p, n->end, &t)) != TP_NDN_E_OK)
			return rc;
		if (t.type == TP_NDN_T_LP_NACK_REASON) {
			if (tp_ndn_nni_read(t.value, t.len, &x) != TP_NDN_E_OK)
				return TP_NDN_E_BAD_LP;
			/* an unknown reason is read as Unspecified */
			*reason = x == TP_NDN_NACK_CONGESTION || x == TP_NDN_NACK_DUPLICATE ||
					  x == TP_NDN_NACK_NO_ROUTE
				      ? (uint32_t)x
				      : TP_NDN_NACK_UNSPECIFIED;
		} else if (!lp_ignorable(t.type)) {
			return TP_NDN_E_BAD_LP;
		}
	}
	return TP_NDN_E_OK;
}

int tp_ndn_lp_decode(const uint8_t *buf, size_t len, struct tp_ndn_lp *lp)
{
	const uint8_t *p = buf, *end = buf + len;
	struct tp_ndn_tlv outer, t;
	uint64_t x;
	int rc;

	memset(lp, 0, sizeof(*lp));
	lp->frag_count = 1;
	if ((rc = tp_ndn_tlv_read(&p, end, &outer)) != TP_NDN_E_OK)
		return rc;
	if (outer.type == TP_NDN_T_INTEREST || outer.type == TP_NDN_T_DATA) {
		/* a bare network-layer packet; what follows it (Ethernet padding) is not ours */
		lp->payload = outer.start;
		lp->payload_len = (uint32_t)(outer.end - outer.start);
		return TP_NDN_E_OK;
	}
	if (outer.type != TP_NDN_T_LP_PACKET)
		return TP_NDN_E_BAD_TYPE;
	p = outer.value;
	while (p < outer.end) {
		if ((rc = tp_ndn_tlv_read(&p, outer.end, &t)) != TP_NDN_E_OK)
			return rc;
		switch (t.type) {
		case TP_NDN_T_LP_FRAGMENT:
			/* the last field: what follows it is not looked at */
			if (t.len == 0)
				return TP_NDN_E_BAD_FRAGMENT;
			lp->payload = t.value;
			lp->payload_len = t.len;
			if (lp->frag_index >= lp->frag_count || lp->frag_count > TP_NDN_FRAG_MAX)
				return TP_NDN_E_BAD_FRAGMENT;
			if (lp->frag_count > 1 && !lp->has_seq)
				return TP_NDN_E_BAD_FRAGMENT; /* fragments need a Sequence */
			return TP_NDN_E_OK;
		case TP_NDN_T_LP_SEQUENCE:
			/* a fixed-width unsigned integer: 8 bytes */
			if (t.len != 8 || tp_ndn_nni_read(t.value, t.len, &x) != TP_NDN_E_OK)
				return TP_NDN_E_BAD_LP;
			lp->has_seq = true;
			lp->seq = x;
			break;
		case TP_NDN_T_LP_FRAG_INDEX:
		case TP_NDN_T_LP_FRAG_COUNT:
			if (tp_ndn_nni_read(t.value, t.len, &x) != TP_NDN_E_OK || x > UINT32_MAX)
				return TP_NDN_E_BAD_LP;
			*(t.type == TP_NDN_T_LP_FRAG_INDEX ? &lp->frag_index : &lp->frag_count) =
			    (uint32_t)x;
			break;
		case TP_NDN_T_LP_PIT_TOKEN:
			if (t.len == 0 || t.len > TP_NDN_PIT_TOKEN_MAX)
				return TP_NDN_E_BAD_LP;
			lp->pit_token_len = (uint8_t)t.len;
			lp->pit_token = t.value;
			break;
		case TP_NDN_T_LP_NACK:
			lp->is_nack = true;
			if ((rc = nack_decode(&t, &lp->nack_reason)) != TP_NDN_E_OK)
				return rc;
			break;
		case TP_NDN_T_LP_CONGESTION_MARK:
			if (tp_ndn_nni_read(t.value, t.len, &lp->congestion_mark) != TP_NDN_E_OK)
				return TP_NDN_E_BAD_LP;
			break;
		default:
			if (!lp_ignorable(t.type))
				return TP_NDN_E_BAD_LP;
			break;
		}
	}
	return TP_NDN_E_MISSING; /* IDLE: no Fragment */
}

static size_t tl_size(uint32_t type, uint64_t len)
{
	return tp_ndn_varnum_size(type) + tp_ndn_varnum_size(len);
}

uint8_t *tp_ndn_nni_tlv_write(uint8_t *p, uint32_t type, uint64_t v)
{
	p = tp_ndn_tl_write(p, type, tp_ndn_nni_size(v));
	return p + tp_ndn_nni_write(p, v);
}

static size_t nni_field(uint32_t type, uint64_t v)
{
	return tl_size(type, tp_ndn_nni_size(v)) + tp_ndn_nni_size(v);
}

int tp_ndn_lp_encode(uint8_t *buf, size_t cap, const struct tp_ndn_lp_spec *s)
{
	size_t val = 0, nack = 0;
	uint8_t *p;

	if (s->pit_token_len > TP_NDN_PIT_TOKEN_MAX || s->payload_len == 0)
		return -TP_NDN_E_BAD_LP;
	if (s->frag)
		val += tl_size(TP_NDN_T_LP_SEQUENCE, 8) + 8 +
		       nni_field(TP_NDN_T_LP_FRAG_INDEX, s->frag_index) +
		       nni_field(TP_NDN_T_LP_FRAG_COUNT, s->frag_count);
	if (s->pit_token_len)
		val += tl_size(TP_NDN_T_LP_PIT_TOKEN, s->pit_token_len) + s->pit_token_len;
	if (s->nack) {
		nack = s->nack_reason ? nni_field(TP_NDN_T_LP_NACK_REASON, s->nack_reason) : 0;
		val += tl_size(TP_NDN_T_LP_NACK, nack) + nack;
	}
	if (s->congestion_mark)
		val += nni_field(TP_NDN_T_LP_CONGESTION_MARK, s->congestion_mark);
	val += tl_size(TP_NDN_T_LP_FRAGMENT, s->payload_len) + s->payload_len;
	if (tl_size(TP_NDN_T_LP_PACKET, val) + val - (s->payload ? 0 : s->payload_len) > cap)
		return -TP_NDN_E_NO_SPACE;
	/* header fields in increasing type order, the Fragment last */
	p = tp_ndn_tl_write(buf, TP_NDN_T_LP_PACKET, val);
	if (s->frag) {
		p = tp_ndn_tl_write(p, TP_NDN_T_LP_SEQUENCE, 8);
		for (int k = 7; k >= 0; k--)
			*p++ = (uint8_t)(s->seq >> (8 * k));
		p = tp_ndn_nni_tlv_write(p, TP_NDN_T_LP_FRAG_INDEX, s->frag_index);
		p = tp_ndn_nni_tlv_write(p, TP_NDN_T_LP_FRAG_COUNT, s->frag_count);
	}
	if (s->pit_token_len) {
		p = tp_ndn_tl_write(p, TP_NDN_T_LP_PIT_TOKEN, s->pit_token_len);
		memcpy(p, s->pit_token, s->pit_token_len);
		p += s->pit_token_len;
	}
	if (s->nack) {
		p = tp_ndn_tl_write(p, TP_NDN_T_LP_NACK, nack);
		if (s->nack_reason)
			p = tp_ndn_nni_tlv_write(p, TP_NDN_T_LP_NACK_REASON, s->nack_reason);
	}
	if (s->congestion_mark)
		p = tp_ndn_nni_tlv_write(p, TP_NDN_T_LP_CONGESTION_MARK, s->congestion_mark);
	p = tp_ndn_tl_write(p, TP_NDN_T_LP_FRAGMENT, s->payload_len);
	if (s->payload == NULL) /* the header alone: the payload follows it elsewhere */
		return (int)(p - buf);
	memcpy(p, s->payload, s->payload_len);
	p += s->payload_len;
	return (int)(p - buf);
}

size_t tp_ndn_lp_frag_overhead(uint8_t pit_token_len, bool nack)
{
	/* LpPacket and Fragment headers with 3-byte lengths, Sequence (8 bytes), FragIndex
	 * and FragCount of up to 2 bytes each, the PIT token, a Nack: TLV-TYPE 800 and 801
	 * take 3 bytes, the reason 1 */
	size_t h = 10 + 4 + 4 + (pit_token_len ? 2u + pit_token_len : 0) + (nack ? 9 : 0);
	return 4 + h + 4;
}

/* --- reassembly --- */

void tp_ndn_reasm_init(struct tp_ndn_reasm *r, uint64_t timeout)
{
	memset(r, 0, sizeof(*r));
	r->timeout = timeout;
}

static void slot_release(struct tp_ndn_reasm_slot *s, void **evicted, uint32_t *n_evicted)
{
	for (uint32_t i = 0; i < s->frag_count; i++)
		if (s->frag[i] != NULL)
			evicted[(*n_evicted)++] = s->frag[i];
	memset(s, 0, sizeof(*s));
}

enum tp_ndn_reasm_result tp_ndn_reasm_add(struct tp_ndn_reasm *r, const struct tp_ndn_lp *lp,
					  uint32_t flow, void *h, uint64_t now, void **out,
					  uint32_t *n_out, void **evicted, uint32_t *n_evicted)
{
	struct tp_ndn_reasm_slot *s = NULL, *free_slot = NULL, *mine_oldest = NULL;
	unsigned int mine = 0, held[TP_NDN_REASM_SLOTS] = {0};
	uint64_t base;

	*n_out = 0;
	*n_evicted = 0;
	if (!lp->has_seq || lp->frag_count < 2 || lp->frag_count > TP_NDN_FRAG_MAX ||
	    lp->frag_index >= lp->frag_count || lp->seq < lp->frag_index) {
		r->n_bad++;
		return TP_NDN_REASM_BAD;
	}
	/* NDNLPv2 indexed fragmentation: the fragments of a packet have consecutive
	 * Sequence numbers, so Sequence - FragIndex names the packet */
	base = lp->seq - lp->frag_index;
	for (unsigned int i = 0; i < TP_NDN_REASM_SLOTS; i++) {
		struct tp_ndn_reasm_slot *c = &r->slot[i];
		if (!c->used) {
			if (free_slot == NULL)
				free_slot = c;
			continue;
		}
		if (c->flow == flow) {
			if (c->seq_base == base) {
				s = c;
				break;
			}
			mine++;
			if (mine_oldest == NULL || c->deadline < mine_oldest->deadline)
				mine_oldest = c;
		}
		/* how many slots this slot's flow holds (counted at its first slot) */
		for (unsigned int j = 0; j <= i; j++)
			if (r->slot[j].used && r->slot[j].flow == c->flow) {
				held[j]++;
				break;
			}
	}
	if (s == NULL) {
		struct tp_ndn_reasm_slot *victim = NULL;
		if (mine >= TP_NDN_REASM_PER_FLOW) {
			/* the flow has its share: its own partial packet idle longest goes */
			victim = mine_oldest;
			r->n_flow_full++;
		} else if (free_slot == NULL) {
			/* every slot taken: of the flows holding the most, the partial packet
			 * idle longest gives way */
			unsigned int most = 0;
			for (unsigned int j = 0; j < TP_NDN_REASM_SLOTS; j++)
				most = held[j] > most ? held[j] : most;
			for (unsigned int i = 0; i < TP_NDN_REASM_SLOTS; i++) {
				struct tp_ndn_reasm_slot *c = &r->slot[i];
				unsigned int j = 0;
				while (r->slot[j].flow != c->flow)
					j++; /* its flow's first slot (all are used) */
				if (held[j] == most &&
				    (victim == NULL || c->deadline < victim->deadline))
					victim = c;
			}
		}
		if (victim != NULL) {
			r->n_dropped_frags += victim->n_got;
			slot_release(victim, evicted, n_evicted);
			s = victim;
		} else {
			s = free_slot;
		}
	}
	if (!s->used) {
		s->used = true;
		s->flow = flow;
		s->seq_base = base;
		s->frag_count = lp->frag_count;
	}
	if (s->frag_count != lp->frag_count) {
		r->n_bad++;
		return TP_NDN_REASM_BAD;
	}
	if (s->frag[lp->frag_index] != NULL) { /* a duplicate: the one held is kept */
		r->n_dropped_frags++;
		evicted[(*n_evicted)++] = h;
		return TP_NDN_REASM_HELD;
	}
	s->frag[lp->frag_index] = h;
	if (++s->n_got < s->frag_count) {
		s->deadline = now + r->timeout;
		return TP_NDN_REASM_HELD;
	}
	memcpy(out, s->frag, s->frag_count * sizeof(void *));
	*n_out = s->frag_count;
	memset(s, 0, sizeof(*s));
	r->n_complete++;
	return TP_NDN_REASM_COMPLETE;
}

int tp_ndn_reasm_expire(struct tp_ndn_reasm *r, uint64_t now, void **evicted, uint32_t *n_evicted)
{
	*n_evicted = 0;
	for (unsigned int i = 0; i < TP_NDN_REASM_SLOTS; i++) {
		struct tp_ndn_reasm_slot *s = &r->slot[i];
		if (s->used && now >= s->deadline) {
			r->n_timeouts++;
			r->n_dropped_frags += s->n_got;
			slot_release(s, evicted, n_evicted);
			return 1;
		}
	}
	return 0;
}

uint64_t tp_ndn_reasm_next_deadline(const struct tp_ndn_reasm *r)
{
	uint64_t d = UINT64_MAX;

	for (unsigned int i = 0; i < TP_NDN_REASM_SLOTS; i++)
		if (r->slot[i].used && r->slot[i].deadline < d)
			d = r->slot[i].deadline;
	return d;
}
