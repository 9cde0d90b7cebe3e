/* SPDX-License-Identifier: BSD-3-Clause */
/* pcap writer (the classic libpcap format, native byte order). */
#include <errno.h>

#include "pcap.h"

int tp_pcap_header(FILE *f)
{
	struct {
		uint32_t magic;
		uint16_t major, minor;
		int32_t thiszone;
		uint32_t sigfigs, snaplen, linktype;
	} h = {0xa1b2c3d4, 2, 4, 0, 0, 65535, 1 /* LINKTYPE_ETHERNET */};

	return fwrite(&h, sizeof(h), 1, f) == 1 ? 0 : -EIO;
}

int tp_pcap_record(FILE *f, const uint8_t *frame, uint32_t len, uint64_t usec)
{
	struct {
		uint32_t sec, usec, caplen, len;
	} r = {(uint32_t)(usec / 1000000), (uint32_t)(usec % 1000000), len, len};

	if (fwrite(&r, sizeof(r), 1, f) != 1 || fwrite(frame, 1, len, f) != len)
		return -EIO;
	return 0;
}
