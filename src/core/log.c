/* SPDX-License-Identifier: BSD-3-Clause */
/* The daemon's log type. */
#include "log.h"

RTE_LOG_REGISTER_DEFAULT(tp_logtype, INFO);
