/* SPDX-License-Identifier: BSD-3-Clause */
/* Receive statistics of one stream: loss, reordering and duplicates by sequence
 * number, latency in log buckets. Pure functions on a struct; the generator's
 * worker owns the struct during a trial, the control thread reads it after. */
#ifndef TP_GEN_STATS_H
#define TP_GEN_STATS_H

#include <stdint.h>

#define TP_SEQ_WINDOW (1u << 16) /* sequence numbers remembered for duplicate detection */
#define TP_LAT_SUB 8		 /* sub-buckets per power of two */
#define TP_LAT_BUCKETS (64 * TP_LAT_SUB)

struct tp_rxstats {
	uint64_t rx;	     /* every frame received, duplicates included */
	uint64_t duplicates; /* sequence already seen */
	uint64_t reordered;  /* arrived after a higher sequence number */
	uint64_t too_old;    /* behind the window: counted as reordered, not checked for dups */
	uint32_t next_seq;   /* highest sequence seen + 1 */
	uint64_t lat_min, lat_max, lat_sum, lat_n;
	uint64_t hist[TP_LAT_BUCKETS];
	uint64_t window[TP_SEQ_WINDOW / 64];
};

enum tp_seq_verdict { TP_SEQ_NEW, TP_SEQ_REORDERED, TP_SEQ_DUPLICATE };

void tp_rxstats_reset(struct tp_rxstats *s);
/* Account one frame with sequence seq. */
enum tp_seq_verdict tp_rxstats_seq(struct tp_rxstats *s, uint32_t seq);
/* Account one latency sample, in nanoseconds. */
void tp_rxstats_latency(struct tp_rxstats *s, uint64_t ns);
/* Frames received once at least. */
static inline uint64_t tp_rxstats_unique(const struct tp_rxstats *s)
{
	return s->rx - s->duplicates;
}
/* Bucket of ns, and the largest ns a bucket holds. */
unsigned int tp_lat_bucket(uint64_t ns);
uint64_t tp_lat_bucket_upper(unsigned int b);
/* Latency at quantile q (0..1): the upper bound of the bucket it falls in, capped by
 * the exact maximum. 0 when there is no sample. */
uint64_t tp_rxstats_quantile(const struct tp_rxstats *s, double q);

#endif
