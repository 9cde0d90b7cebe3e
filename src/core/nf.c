/* SPDX-License-Identifier: BSD-3-Clause */
/* The module registry, and the core's own entry in it. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <rte_malloc.h>

#include "log.h"
#include "nf.h"
#include "tp.h"

static struct tp_nf *head, **tail = &head;
static unsigned int n_nfs;
static struct tp_nf *opt_nf[64];
static unsigned int opt_idx[64];
static unsigned int n_opts;

void tp_nf_register(struct tp_nf *nf)
{
	int base;

	if (n_nfs == TP_NF_MAX)
		rte_panic("twinplane: more than %d modules (TP_NF_MAX)\n", TP_NF_MAX);
	base = tp_ctr_alloc(nf, nf->ctrs, nf->n_ctrs);
	if (base < 0)
		rte_panic("twinplane: module %s: more than %d counters in all (TP_CTR_MAX)\n",
			  nf->name, TP_CTR_MAX);
	nf->ctr_base = (unsigned int)base;
	nf->id = n_nfs++;
	nf->next = NULL;
	*tail = nf;
	tail = &nf->next;
	for (unsigned int i = 0; i < nf->n_opts && n_opts < RTE_DIM(opt_nf); i++) {
		opt_nf[n_opts] = nf;
		opt_idx[n_opts++] = i;
	}
}

struct tp_nf *tp_nf_first(void)
{
	return head;
}

unsigned int tp_nf_count(void)
{
	return n_nfs;
}

struct tp_nf *tp_nf_by_name(const char *name)
{
	for (struct tp_nf *nf = head; nf; nf = nf->next)
		if (strcmp(nf->name, name) == 0)
			return nf;
	return NULL;
}

void tp_nf_options_usage(FILE *f)
{
	for (unsigned int i = 0; i < n_opts; i++) {
		const struct tp_nf_opt *o = &opt_nf[i]->opts[opt_idx[i]];
		char left[64];
		snprintf(left, sizeof(left), "--%s%s", o->name, o->has_arg ? " ARG" : "");
		fprintf(f, "      %-20s%s: %s\n", left, opt_nf[i]->name, o->help);
	}
}

int tp_nf_options_getopt(struct option *lo, unsigned int n, unsigned int cap, int base)
{
	if (n + n_opts + 1 > cap)
		return -ENOSPC;
	for (unsigned int i = 0; i < n_opts; i++) {
		const struct tp_nf_opt *o = &opt_nf[i]->opts[opt_idx[i]];
		lo[n++] = (struct option){o->name, o->has_arg ? required_argument : no_argument,
					  NULL, base + (int)i};
	}
	lo[n] = (struct option){0};
	return (int)n;
}

int tp_nf_option_run(int index, const char *arg)
{
	if (index < 0 || (unsigned int)index >= n_opts)
		return -EINVAL;
	return opt_nf[index]->opts[opt_idx[index]].fn(arg);
}

static void fini_until(struct tp_nf *stop)
{
	/* reverse order: the list is short, walk it for each */
	for (;;) {
		struct tp_nf *last = NULL;
		for (struct tp_nf *nf = head; nf != stop; nf = nf->next)
			last = nf;
		if (last == NULL)
			return;
		if (last->fini)
			last->fini();
		stop = last;
	}
}

unsigned int tp_nf_n_polls;
struct tp_nf *tp_nf_polls[TP_NF_MAX];

int tp_nf_init_all(void)
{
	struct tp_nf *nf;
	int ret = 0;

	tp_nf_n_polls = 0;
	for (nf = head; nf; nf = nf->next)
		if (nf->poll)
			tp_nf_polls[tp_nf_n_polls++] = nf;
	for (nf = head; nf; nf = nf->next) {
		for (unsigned int i = 0; nf->lcore_size && i < tp.n_workers; i++) {
			struct tp_worker *w = tp.workers[i];
			w->nf_state[nf->id] =
			    rte_zmalloc(nf->name, nf->lcore_size, RTE_CACHE_LINE_SIZE);
			if (w->nf_state[nf->id] == NULL) {
				ret = -ENOMEM;
				goto fail;
			}
		}
		if (nf->init && (ret = nf->init()) < 0) {
			TP_LOG(ERR, "module %s: %s", nf->name, strerror(-ret));
			goto fail;
		}
		for (unsigned int i = 0; nf->lcore_init && i < tp.n_workers; i++) {
			struct tp_worker *w = tp.workers[i];
			if ((ret = nf->lcore_init(w, w->nf_state[nf->id])) < 0) {
				TP_LOG(ERR, "module %s on lcore %u: %s", nf->name, w->lcore,
				       strerror(-ret));
				if (nf->fini)
					nf->fini();
				goto fail;
			}
		}
	}
	return 0;
fail:
	fini_until(nf);
	return ret;
}

void tp_nf_fini_all(void)
{
	fini_until(NULL);
	for (struct tp_nf *nf = head; nf; nf = nf->next)
		for (unsigned int i = 0; i < tp.n_workers; i++) {
			rte_free(tp.workers[i]->nf_state[nf->id]);
			tp.workers[i]->nf_state[nf->id] = NULL;
		}
}

void tp_nf_start_all(void)
{
	for (struct tp_nf *nf = head; nf; nf = nf->next)
		if (nf->start)
			nf->start();
}

void tp_nf_port_add(uint16_t port)
{
	for (struct tp_nf *nf = head; nf; nf = nf->next)
		if (nf->port_add)
			nf->port_add(port);
}

void tp_nf_port_del(uint16_t port)
{
	for (struct tp_nf *nf = head; nf; nf = nf->next)
		if (nf->port_del)
			nf->port_del(port);
}

void tp_nf_show_all(struct tp_node *out)
{
	for (struct tp_nf *nf = head; nf; nf = nf->next)
		if (nf->show)
			nf->show(out);
}

/* --- the core's own entry: its counters come first, so their ids are constants --- */
static const struct tp_ctr_desc core_ctrs[] = {TP_CORE_COUNTERS(TP_CTR_DESC)};

static struct tp_nf core_nf = {
    .name = "core",
    .help = "ports, lcores, rings, the exception path",
    .ctrs = core_ctrs,
    .n_ctrs = RTE_DIM(core_ctrs),
};

RTE_INIT_PRIO(tp_core_nf_register, CLASS)
{
	tp_nf_register(&core_nf);
	if (core_nf.ctr_base != 0)
		rte_panic("twinplane: the core module must register first\n");
}
