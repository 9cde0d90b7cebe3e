/* SPDX-License-Identifier: BSD-3-Clause */
/* Whole-buffer reads and writes on the API socket, for both ends. */
#ifndef TP_API_IO_H
#define TP_API_IO_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "api.h"

/* Read (rd != 0) or write len bytes; 0, -EPIPE at end of file, or negative errno. */
static inline int tp_api_full_io(int fd, void *buf, size_t len, int rd)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = rd ? read(fd, p, len) : write(fd, p, len);
		if (n <= 0)
			return n == 0 ? -EPIPE : -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Read one answer: its header into *h and its body, NUL-terminated, into *body (the
 * caller frees it). 0; -EPROTO for a header of another API version; -EFBIG for a
 * body longer than TP_API_MAX_ANSWER (h->len says how long; no more is read: h.len + 1
 * wrapped to 0 for a length of 2^32 - 1, and twinctl read the body into malloc(0):
 * fuzz_api); -ENOMEM; or what tp_api_full_io() returns. */
static inline int tp_api_read_answer(int fd, struct tp_api_hdr *h, char **body)
{
	int ret;

	*body = NULL;
	ret = tp_api_full_io(fd, h, sizeof(*h), 1);
	if (ret < 0)
		return ret;
	if (h->version != TP_API_VERSION)
		return -EPROTO;
	if (h->len > TP_API_MAX_ANSWER)
		return -EFBIG;
	*body = malloc((size_t)h->len + 1);
	if (*body == NULL)
		return -ENOMEM;
	ret = tp_api_full_io(fd, *body, h->len, 1);
	if (ret < 0) {
		free(*body);
		*body = NULL;
		return ret;
	}
	(*body)[h->len] = '\0';
	return 0;
}

#endif
