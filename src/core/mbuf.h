/* SPDX-License-Identifier: BSD-3-Clause */
/* The mbuf private area (one cache line per mbuf, in every pool the daemon makes):
 * a core part (why a packet was handed to the control plane) and a part each
 * network function types for itself (TP_MBUF_META), valid while that function
 * owns the packet (between its input and the ring, transmit or punt it hands it
 * to). A packet has one owner at a time, so the functions share the space. */
#ifndef TP_CORE_MBUF_H
#define TP_CORE_MBUF_H

#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#define TP_MBUF_NF_AREA 56 /* bytes a network function may use */

struct tp_mbuf_priv {
	uint16_t punt_reason; /* counter id of the punt reason (core/counter.h) */
	uint8_t punt_class;   /* enum tp_punt_class */
	uint8_t pad[5];
	uint8_t nf[TP_MBUF_NF_AREA] __rte_aligned(8);
};
_Static_assert(sizeof(struct tp_mbuf_priv) == RTE_CACHE_LINE_SIZE, "mbuf private area");

/* Private size to give rte_pktmbuf_pool_create(): a whole cache line, so packet
 * data starts cache-aligned (with 8 bytes, a 64-byte frame straddled two lines:
 * ~3 cycles/packet on net_pcap). */
#define TP_MBUF_PRIV_SIZE RTE_CACHE_LINE_SIZE

static inline struct tp_mbuf_priv *tp_mbuf_priv(struct rte_mbuf *m)
{
	return (struct tp_mbuf_priv *)rte_mbuf_to_priv(m);
}

/* Keep the first len bytes of packet m (len <= its length), across segments: the
 * segment holding the last byte kept ends there and those after it are freed (back to
 * their pool). rte_pktmbuf_trim() cuts from the last segment only, and does nothing
 * when there is more to cut than the last segment holds. */
static inline void tp_mbuf_cut(struct rte_mbuf *m, uint32_t len)
{
	struct rte_mbuf *s = m;
	uint32_t left = len;
	uint16_t segs = 1;

	while (s->next != NULL && left > s->data_len) {
		left -= s->data_len;
		s = s->next;
		segs++;
	}
	s->data_len = (uint16_t)RTE_MIN(left, (uint32_t)s->data_len);
	if (s->next != NULL) {
		rte_pktmbuf_free(s->next);
		s->next = NULL;
	}
	m->nb_segs = segs;
	m->pkt_len = len;
}

/* Declare name(m), returning m's network-function area as a type *; fails to
 * compile when type does not fit. */
#define TP_MBUF_META(name, type)                                                                   \
	_Static_assert(sizeof(type) <= TP_MBUF_NF_AREA, #type " must fit the mbuf private area");  \
	static inline type *name(struct rte_mbuf *m)                                               \
	{                                                                                          \
		return (type *)(void *)tp_mbuf_priv(m)->nf;                                        \
	}

#endif
