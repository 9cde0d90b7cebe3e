/* SPDX-License-Identifier: BSD-3-Clause */
/* Counter ids, names and kinds (control plane). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "counter.h"
#include "nf.h"

static const struct tp_nf *ctr_nf[TP_CTR_MAX];
static const struct tp_ctr_desc *ctr_desc[TP_CTR_MAX];
static unsigned int n_ctrs;

int tp_ctr_alloc(const void *module, const struct tp_ctr_desc *desc, unsigned int n)
{
	unsigned int base = n_ctrs;

	if (n > TP_CTR_MAX - n_ctrs)
		return -ENOSPC;
	for (unsigned int i = 0; i < n; i++) {
		ctr_nf[base + i] = module;
		ctr_desc[base + i] = &desc[i];
	}
	n_ctrs += n;
	return (int)base;
}

unsigned int tp_ctr_count(void)
{
	return n_ctrs;
}

const char *tp_ctr_name(unsigned int id, char *buf, size_t len)
{
	snprintf(buf, len, "%s.%s", tp_ctr_module(id), tp_ctr_short_name(id));
	return buf;
}

const char *tp_ctr_short_name(unsigned int id)
{
	return id < n_ctrs ? ctr_desc[id]->name : "?";
}

const char *tp_ctr_module(unsigned int id)
{
	return id < n_ctrs ? ctr_nf[id]->name : "?";
}

enum tp_ctr_kind tp_ctr_kind(unsigned int id)
{
	return id < n_ctrs ? (enum tp_ctr_kind)ctr_desc[id]->kind : TP_CTR_EVENT;
}

int tp_ctr_lookup(const char *name)
{
	const char *dot = strchr(name, '.');
	int found = -ENOENT;

	for (unsigned int i = 0; i < n_ctrs; i++) {
		if (dot != NULL) {
			size_t ml = (size_t)(dot - name);
			if (strlen(ctr_nf[i]->name) == ml &&
			    strncmp(ctr_nf[i]->name, name, ml) == 0 &&
			    strcmp(ctr_desc[i]->name, dot + 1) == 0)
				return (int)i;
		} else if (strcmp(ctr_desc[i]->name, name) == 0) {
			if (found >= 0)
				return -ENOENT; /* ambiguous */
			found = (int)i;
		}
	}
	return found;
}
