/* SPDX-License-Identifier: BSD-3-Clause */
/* Template registry. */
#include <string.h>

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
