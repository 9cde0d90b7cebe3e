/* SPDX-License-Identifier: BSD-3-Clause */
/* The API server: a unix stream socket speaking api/api.h, dispatching to cmd.h. */
#ifndef TP_CONTROL_API_SERVER_H
#define TP_CONTROL_API_SERVER_H

/* Listen on path (its directory is created). 0 or negative errno. */
int tp_api_init(const char *path);
void tp_api_fini(void);

#endif
