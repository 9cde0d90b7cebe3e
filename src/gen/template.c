/* SPDX-License-Identifier: BSD-3-Clause */
/* Template registry. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../proto/ip4.h"
#include "../proto/parse.h"

#include "template.h"

static struct tp_gen_template *templates;

void tp_gen_template_register(struct tp_gen_template *t)
{
	t->next = templates;
	templates = t;
}

const struct tp_gen_template *tp_gen_template_find(const char *name)
{
	for (const struct tp_gen_template *t = templates; t; t = t->next)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

const struct tp_gen_template *tp_gen_template_first(void)
{
	return templates;
}

int tp_gen_parse_range(const char *s, int is_addr, struct tp_gen_range *r)
{
	char buf[64], *dash;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	dash = strchr(buf, '-');
	if (dash)
		*dash = '\0';
	for (int k = 0; k < (dash ? 2 : 1); k++) {
		const char *t = k ? dash + 1 : buf;
		uint32_t v;
		if (is_addr) {
			if (tp_ip4_parse_addr(t, &v) < 0)
				return -EINVAL;
		} else {
			uint64_t x;
			if (tp_parse_u64(t, 0, 65535, &x) < 0)
				return -EINVAL;
			v = (uint32_t)x;
		}
		if (k == 0)
			r->lo = r->hi = v;
		else
			r->hi = v;
	}
	return r->hi >= r->lo ? 0 : -EINVAL;
}

int tp_gen_udp_opt(const struct tp_gen_udp_opts *o, const char *k, const char *v, int *bad)
{
	uint64_t x = 0;

	if (strcmp(k, "dmac") == 0)
		*bad = tp_mac_parse(v, o->dmac);
	else if (strcmp(k, "smac") == 0)
		*bad = tp_mac_parse(v, o->smac);
	else if (strcmp(k, "sport") == 0)
		*bad = tp_gen_parse_range(v, 0, o->sport);
	else if (strcmp(k, "dport") == 0)
		*bad = tp_gen_parse_range(v, 0, o->dport);
	else if (strcmp(k, "smacs") == 0) {
		*bad = tp_parse_u64(v, 1, 1 << 24, &x);
		*o->smacs = (uint32_t)x;
	} else if (strcmp(k, o->ttl_word) == 0) {
		*bad = tp_parse_u64(v, 1, 255, &x);
		*o->ttl = (uint8_t)x;
	} else
		return 0;
	return 1;
}
