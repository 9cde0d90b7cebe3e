/* SPDX-License-Identifier: BSD-3-Clause */
/* The data-plane lcores as a whole (control plane): creation from the EAL's worker
 * lcores, roles, where each port's receive queues are polled, which rings each lcore
 * consumes, and publishing all that to the lcores (core/worker.h) with RCU.
 *
 * Receive queues are placed round robin over the lcores whose role receives
 * (worker, input), unless pinned to one. Each change republishes every lcore's
 * configuration; old ones are freed after a grace period (core/rcu.h). */
#ifndef TP_CORE_LCORE_H
#define TP_CORE_LCORE_H

#include <stdint.h>

#include "worker.h"

#define TP_RXQ_MAX 64	 /* receive queues per port */
#define TP_RXQ_AUTO (-1) /* not pinned: placed round robin */

/* One struct tp_worker per EAL worker lcore (at most TP_MAX_WORKERS), the RCU
 * variable, the rings to and from the control plane. 0 or negative errno. */
int tp_lcores_create(unsigned int exc_ring_size);
void tp_lcores_destroy(void);
/* Free the mbufs left in the lcores' rings and transmit buffers, once the lcores have
 * stopped: before the ports and modules free the pools those mbufs belong to (a ring
 * drained after that would return an mbuf to a freed pool). */
void tp_lcores_drain(void);
/* Start every lcore's loop; wait for them to end (after tp.running is cleared). */
void tp_lcores_launch(void);
void tp_lcores_join(void);

const char *tp_role_name(enum tp_role r);
/* The role named s, or -EINVAL. */
int tp_role_parse(const char *s);
/* Give worker id a role. -EINVAL (no such lcore), -EBUSY (it has pinned queues
 * and the role does not receive), or what republishing returns. */
int tp_lcore_set_role(unsigned int id, enum tp_role role);
enum tp_role tp_lcore_role(unsigned int id);
/* Worker id of EAL lcore lcore, or -ENOENT. */
int tp_lcore_by_eal(unsigned int lcore);

/* Port's receive queues: n of them, queue q pinned to worker id pin[q] or TP_RXQ_AUTO
 * (pin NULL: all automatic). n == 0 removes the port. Republishes. */
int tp_lcore_port_rxqs(uint16_t port, uint16_t n, const int16_t *pin);
/* Pin one queue of a port already known (worker id, or TP_RXQ_AUTO). */
int tp_lcore_pin_rxq(uint16_t port, uint16_t queue, int id);
/* Where queue q of port is polled now: worker id or -1. */
int tp_lcore_rxq_owner(uint16_t port, uint16_t queue);

/* Rebuild and publish every lcore's configuration (ring list changed, ...).
 * 0 or -ENOMEM, in which case nothing changed. */
int tp_lcores_publish(void);

/* Exception token buckets: rate packets/s and burst for class (all classes when
 * cls is TP_PUNT_CLASSES), per port; applied to every lcore. */
void tp_punt_rate_set(enum tp_punt_class cls, uint64_t rate, uint64_t burst);
const char *tp_punt_class_name(enum tp_punt_class c);
int tp_punt_class_parse(const char *s);

#endif
