/* SPDX-License-Identifier: BSD-3-Clause */
/* The per-lcore trace buffer: a bounded single-producer single-consumer ring of
 * fixed-size entries. The lcore that owns it writes (tp_trace_buf_put: no lock, no
 * system call, a full buffer refuses the entry and counts it), the control plane
 * reads (tp_trace_buf_get). Plain C11 atomics, no DPDK: the unit test drives it with
 * two threads. */
#ifndef TP_CORE_TRACE_BUF_H
#define TP_CORE_TRACE_BUF_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define TP_TRACE_ENTRIES 2048u /* per lcore; a power of two */
#define TP_TRACE_SNAP 88u      /* bytes of a frame kept with its rx and tx entries */

enum tp_trace_type {
	TP_TRACE_RX,	/* received: port, queue, length, the frame's first bytes */
	TP_TRACE_STAGE, /* a stage of a module ran on the packet: stage */
	TP_TRACE_TX,	/* buffered for transmission on port: length, first bytes */
	TP_TRACE_DROP,	/* dropped: ctr is the drop reason's counter id */
	TP_TRACE_PUNT,	/* handed to the control plane: ctr (reason), cls (class) */
};

/* One record, 128 bytes (two cache lines). stage points at a string literal of the
 * module that wrote it (static storage, the same process). */
struct tp_trace_ent {
	uint32_t id; /* the packet's trace id (1, 2, ...), shared by its copies */
	uint8_t type;
	uint8_t cls;
	uint16_t lcore;
	uint16_t port;
	uint16_t queue;
	uint32_t len;
	uint16_t ctr;
	uint16_t snap_len;
	uint32_t pad;
	const char *stage;
	uint64_t tsc;
	uint8_t snap[TP_TRACE_SNAP];
};
_Static_assert(sizeof(struct tp_trace_ent) == 128, "trace entry size");

struct tp_trace_buf {
	uint32_t head; /* next slot the producer writes; written by the producer only */
	uint32_t full; /* entries refused because the buffer was full (producer) */
	uint8_t pad0[56];
	uint32_t tail; /* next slot the consumer reads; written by the consumer only */
	uint8_t pad1[60];
	struct tp_trace_ent e[TP_TRACE_ENTRIES];
};

/* Producer: the slot to fill, or NULL when the buffer is full (then counted in full).
 * Fill it, then tp_trace_buf_commit(). */
static inline struct tp_trace_ent *tp_trace_buf_slot(struct tp_trace_buf *b)
{
	uint32_t tail = __atomic_load_n(&b->tail, __ATOMIC_ACQUIRE);

	if (b->head - tail >= TP_TRACE_ENTRIES) {
		__atomic_store_n(&b->full, b->full + 1, __ATOMIC_RELAXED);
		return NULL;
	}
	return &b->e[b->head & (TP_TRACE_ENTRIES - 1)];
}

/* Producer: publish the slot tp_trace_buf_slot() returned. */
static inline void tp_trace_buf_commit(struct tp_trace_buf *b)
{
	__atomic_store_n(&b->head, b->head + 1, __ATOMIC_RELEASE);
}

/* Producer: copy *e in; false (counted) when full. */
static inline bool tp_trace_buf_put(struct tp_trace_buf *b, const struct tp_trace_ent *e)
{
	struct tp_trace_ent *s = tp_trace_buf_slot(b);

	if (s == NULL)
		return false;
	memcpy(s, e, sizeof(*e));
	tp_trace_buf_commit(b);
	return true;
}

/* Consumer: copy up to max entries out, oldest first; returns how many. */
static inline unsigned int tp_trace_buf_get(struct tp_trace_buf *b, struct tp_trace_ent *out,
					    unsigned int max)
{
	uint32_t head = __atomic_load_n(&b->head, __ATOMIC_ACQUIRE);
	uint32_t tail = b->tail;
	unsigned int n = 0;

	while (tail != head && n < max) {
		memcpy(&out[n++], &b->e[tail & (TP_TRACE_ENTRIES - 1)], sizeof(*out));
		tail++;
	}
	__atomic_store_n(&b->tail, tail, __ATOMIC_RELEASE);
	return n;
}

#endif
