/* SPDX-License-Identifier: BSD-3-Clause */
/* The control API wire format, version 1 (docs/API.md): shared by the daemon,
 * twinctl and, in Python, twinplane.api. */
#ifndef TP_API_H
#define TP_API_H

#include <stdint.h>

#define TP_API_VERSION 1
#define TP_API_MAX_PAYLOAD (1u << 20)
/* The longest answer a client reads (twinctl, tp_api_read_answer): a separate, larger
 * cap than a request's, for the tables' listings (show neigh: 65,536 entries of about
 * 150 bytes). show routes pages beyond 65,536 routes (src/nf/ip4/cli.c; review N15). */
#define TP_API_MAX_ANSWER (16u << 20)
#define TP_API_MAX_WORDS 64 /* words of one command (the server refuses more: E2BIG) */
#define TP_API_DEFAULT_DIR "/run/twinplane"

enum tp_api_type {
	TP_API_CMD_TEXT = 1,
	TP_API_CMD_JSON = 2,
};

struct tp_api_hdr {
	uint16_t version;
	uint16_t type;
	uint32_t id;
	int32_t status;
	uint32_t len;
} __attribute__((packed));

_Static_assert(sizeof(struct tp_api_hdr) == 16, "API header is 16 bytes on the wire");

#endif
