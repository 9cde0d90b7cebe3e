/* SPDX-License-Identifier: BSD-3-Clause */
/* Names of the drop and punt reasons. */
#include "drop.h"

const char *const tp_drop_names[TP_DROP_MAX] = {
#define X(e, n) [TP_DROP_##e] = n,
	TP_DROP_REASONS(X)
#undef X
};

const char *const tp_punt_names[TP_PUNT_MAX] = {
#define X(e, n) [TP_PUNT_##e] = n,
	TP_PUNT_REASONS(X)
#undef X
};
