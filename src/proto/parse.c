/* SPDX-License-Identifier: BSD-3-Clause */
/* Words to numbers (parse.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

int tp_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	char *end;
	unsigned long long x;

	/* digits only: strtoull would take a sign and leading spaces, and base 0 read a
	 * leading 0 as octal (review F15) */
	if (s == NULL || *s == '\0' || strspn(s, "0123456789") != strlen(s))
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end || x < min || x > max)
		return -EINVAL;
	*v = x;
	return 0;
}

static int is_sep(int c)
{
	return isspace(c) || c == ':' || c == ',';
}

long tp_hex_decode(const char *s, uint8_t *out, size_t cap, size_t *bad)
{
	size_t n = 0, i, dummy;
	int half = -1;

	if (bad == NULL)
		bad = &dummy;
	for (i = 0; s[i] != '\0'; i++) {
		int c = (unsigned char)s[i], d;

		if (is_sep(c)) {
			if (half >= 0)
				goto fail;
			continue;
		}
		if (c == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X') && half < 0 &&
		    (i == 0 || is_sep((unsigned char)s[i - 1]))) {
			i++;
			continue;
		}
		if (!isxdigit(c))
			goto fail;
		d = isdigit(c) ? c - '0' : tolower(c) - 'a' + 10;
		if (half < 0) {
			half = d;
			continue;
		}
		if (n == cap)
			goto fail;
		out[n++] = (uint8_t)(half << 4 | d);
		half = -1;
	}
	if (half < 0)
		return (long)n;
fail:
	*bad = i;
	return -1;
}
