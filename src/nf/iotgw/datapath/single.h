/* SPDX-License-Identifier: BSD-3-Clause */
/* Single-plane mode (single.c): the lock that makes the worker and the control
 * thread take turns as the AE table's writer, and the control side's upkeep. */
#ifndef TP_NF_IOTGW_SINGLE_H
#define TP_NF_IOTGW_SINGLE_H

/* 1 when taken */
int tp_iotgw_single_trylock(void);
void tp_iotgw_single_unlock(void);

#endif
