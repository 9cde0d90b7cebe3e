/* SPDX-License-Identifier: BSD-3-Clause */
/* Interface table storage. */
#include "iface.h"

struct tp_iface tp_iface_table[TP_MAX_PORTS];
