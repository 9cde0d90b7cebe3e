/* SPDX-License-Identifier: BSD-3-Clause */
/* The local UDP port table. */
#include <errno.h>

#include <rte_byteorder.h>

#include "udp_local.h"

struct tp_udp_local tp_udp_local_table[TP_UDP_LOCAL_MAX];
unsigned int tp_udp_local_count;

int tp_udp_local_register(uint16_t port, tp_udp_local_fn fn, const char *owner)
{
	uint16_t be = rte_cpu_to_be_16(port);

	if (tp_udp_local_lookup(be) != NULL)
		return -EEXIST;
	if (tp_udp_local_count == TP_UDP_LOCAL_MAX)
		return -ENOSPC;
	tp_udp_local_table[tp_udp_local_count] = (struct tp_udp_local){be, fn, owner};
	__atomic_store_n(&tp_udp_local_count, tp_udp_local_count + 1, __ATOMIC_RELEASE);
	return 0;
}
