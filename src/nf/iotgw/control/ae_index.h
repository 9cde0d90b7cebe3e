/* SPDX-License-Identifier: BSD-3-Clause */
/* The AE table's index: agent key (address << 16 | port) -> entry index.
 *
 * Two implementations: ae_index_rte.c (rte_hash, lock-free reads, slots
 * reclaimed after an RCU grace period: the daemon) and ae_index_local.c (a
 * plain open-addressing hash, one thread: the socket gateway). One writer at a
 * time; lookups may run concurrently only with the rte_hash one. tp_ae_slot_free
 * may run on another thread than the writer (the daemon's control thread while a
 * single-plane lcore writes): ae.c's free list takes a lock. */
#ifndef TP_NF_IOTGW_AE_INDEX_H
#define TP_NF_IOTGW_AE_INDEX_H

#include <stddef.h>
#include <stdint.h>

/* Allocate the table (*table, zeroed, bytes long) and the index: 0, or a negative
 * errno with nothing left allocated (*table NULL). */
int tp_ae_index_init(size_t bytes, void **table);
/* Free the table and the index (no reader left). */
void tp_ae_index_fini(void *table);
int tp_ae_index_add(uint64_t key, uint32_t idx);
/* The index stored for key, or -ENOENT. */
int tp_ae_index_lookup(uint64_t key);
/* Remove key; tp_ae_slot_free(idx) runs once no reader can hold idx any more. */
void tp_ae_index_del(uint64_t key, uint32_t idx);
unsigned int tp_ae_index_count(void);

/* ae.c: give the slot back to the free list. */
void tp_ae_slot_free(uint32_t idx);

#endif
