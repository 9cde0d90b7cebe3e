/* SPDX-License-Identifier: BSD-3-Clause */
/* Whole-buffer reads and writes on the API socket, for both ends. */
#ifndef TP_API_IO_H
#define TP_API_IO_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

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

#endif
