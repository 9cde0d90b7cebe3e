/* SPDX-License-Identifier: BSD-3-Clause */
/* The local UDP port table. */
#include <rte_byteorder.h>

#include "udp_local.h"

struct tp_dispatch tp_udp_local;

int tp_udp_local_register(uint16_t port, tp_udp_local_fn fn, const char *owner)
{
	return tp_dispatch_add(&tp_udp_local, rte_cpu_to_be_16(port), (tp_dispatch_fn)fn, owner);
}
