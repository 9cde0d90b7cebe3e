/* SPDX-License-Identifier: BSD-3-Clause */
/* Words to numbers, no DPDK: the one parser of the daemon's commands, the
 * generator's templates and the tools' command-line options. */
#ifndef TP_PROTO_PARSE_H
#define TP_PROTO_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* A number in [min, max]: decimal digits only, the whole word ("010" is ten, not
 * octal eight; no sign, space or 0x: no command or option documents a hex value).
 * Returns 0 and sets *v, or -EINVAL (*v untouched; the caller's error names the
 * word). */
int tp_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v);

/* Hex digits into at most cap bytes of out. Whitespace, ':' and ',' may separate
 * bytes (not the two digits of one), and "0x" may start a group. Returns the byte
 * count, or -1 with *bad (when bad is not NULL) the offset of the offending
 * character: not hex, a separator inside a byte, a lone digit at the end
 * (strlen(s)), or the digit that completes a byte past cap. */
long tp_hex_decode(const char *s, uint8_t *out, size_t cap, size_t *bad);

#endif
