/* SPDX-License-Identifier: BSD-3-Clause */
/* Kernel TAP interfaces that mirror the data-plane ports (the exception path). */
#ifndef TP_CONTROL_TAP_H
#define TP_CONTROL_TAP_H

#include <stdint.h>

/* Create TAP name with mac and mtu, bring it up. Returns a non-blocking fd
 * (closing it removes the TAP) and sets *ifindex; or negative errno. */
int tp_tap_create(const char *name, const uint8_t mac[6], uint16_t mtu, int *ifindex);

#endif
