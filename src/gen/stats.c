/* SPDX-License-Identifier: BSD-3-Clause */
/* Sequence and latency accounting. */
#include <string.h>

#include "stats.h"

void tp_rxstats_reset(struct tp_rxstats *s)
{
	memset(s, 0, sizeof(*s));
	s->lat_min = UINT64_MAX;
}

static inline int bit_test_set(uint64_t *w, uint32_t seq)
{
	uint32_t i = seq % TP_SEQ_WINDOW;
	uint64_t m = 1ull << (i % 64);
	int was = (w[i / 64] & m) != 0;
	w[i / 64] |= m;
	return was;
}

static inline void bit_clear(uint64_t *w, uint32_t seq)
{
	uint32_t i = seq % TP_SEQ_WINDOW;
	w[i / 64] &= ~(1ull << (i % 64));
}

enum tp_seq_verdict tp_rxstats_seq(struct tp_rxstats *s, uint32_t seq)
{
	s->rx++;
	if (seq >= s->next_seq) {
		/* forget what the window held for the sequence numbers we skip */
		uint32_t gap = seq - s->next_seq;
		if (gap >= TP_SEQ_WINDOW)
			memset(s->window, 0, sizeof(s->window));
		else
			for (uint32_t k = s->next_seq; k != seq; k++)
				bit_clear(s->window, k);
		bit_clear(s->window, seq);
		bit_test_set(s->window, seq);
		s->next_seq = seq + 1;
		return TP_SEQ_NEW;
	}
	if (s->next_seq - seq > TP_SEQ_WINDOW) {
		s->too_old++;
		s->reordered++;
		return TP_SEQ_REORDERED;
	}
	if (bit_test_set(s->window, seq)) {
		s->duplicates++;
		return TP_SEQ_DUPLICATE;
	}
	s->reordered++;
	return TP_SEQ_REORDERED;
}

unsigned int tp_lat_bucket(uint64_t ns)
{
	if (ns < TP_LAT_SUB)
		return (unsigned int)ns;
	unsigned int e = 63u - (unsigned int)__builtin_clzll(ns); /* >= 3 */
	unsigned int sub = (unsigned int)(ns >> (e - 3)) & (TP_LAT_SUB - 1);
	return (e - 2) * TP_LAT_SUB + sub;
}

uint64_t tp_lat_bucket_upper(unsigned int b)
{
	if (b < TP_LAT_SUB)
		return b;
	unsigned int e = b / TP_LAT_SUB + 2, sub = b % TP_LAT_SUB;
	if (e >= 63)
		return UINT64_MAX;
	return ((uint64_t)(TP_LAT_SUB + sub + 1) << (e - 3)) - 1;
}

void tp_rxstats_latency(struct tp_rxstats *s, uint64_t ns)
{
	if (ns < s->lat_min)
		s->lat_min = ns;
	if (ns > s->lat_max)
		s->lat_max = ns;
	s->lat_sum += ns;
	s->lat_n++;
	s->hist[tp_lat_bucket(ns)]++;
}

uint64_t tp_rxstats_quantile(const struct tp_rxstats *s, double q)
{
	uint64_t want, acc = 0;

	if (s->lat_n == 0)
		return 0;
	want = (uint64_t)(q * (double)s->lat_n);
	if (want >= s->lat_n)
		want = s->lat_n - 1;
	for (unsigned int b = 0; b < TP_LAT_BUCKETS; b++) {
		acc += s->hist[b];
		if (acc > want) {
			uint64_t u = tp_lat_bucket_upper(b);
			if (u > s->lat_max)
				u = s->lat_max;
			if (u < s->lat_min)
				u = s->lat_min;
			return u;
		}
	}
	return s->lat_max;
}
