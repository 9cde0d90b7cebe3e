/* SPDX-License-Identifier: BSD-3-Clause */
/* The module registry, and the core's own entry in it. */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_malloc.h>

#include "log.h"
#include "nf.h"
#include "rcu.h"
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

unsigned int tp_nf_n_polls;
struct tp_nf *tp_nf_polls[TP_NF_MAX];

/* the modules in init order (set by tp_nf_init_all), and how many of them started */
static struct tp_nf *order[TP_NF_MAX];
static unsigned int n_order, n_started;

enum { UNSEEN, VISITING, DONE };

/* Depth-first: nf after what it depends on. 0, -ENOENT or -ELOOP (logged, naming
 * the modules). path holds the modules being visited, for the cycle's message. */
static int order_visit(struct tp_nf *nf, uint8_t *state, struct tp_nf **path, unsigned int depth)
{
	if (state[nf->id] == DONE)
		return 0;
	path[depth] = nf;
	if (state[nf->id] == VISITING) {
		char buf[256];
		size_t n = 0;
		unsigned int i = 0;
		while (path[i] != nf)
			i++;
		for (; i <= depth && n < sizeof(buf); i++)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s",
					      i > 0 && n ? " -> " : "", path[i]->name);
		TP_LOG(ERR, "modules: dependency cycle: %s", buf);
		return -ELOOP;
	}
	state[nf->id] = VISITING;
	for (const char *const *d = nf->depends_on; d && *d; d++) {
		struct tp_nf *dep = tp_nf_by_name(*d);
		int ret;
		if (dep == NULL) {
			TP_LOG(ERR, "module %s depends on module %s, which is not in the daemon",
			       nf->name, *d);
			return -ENOENT;
		}
		if ((ret = order_visit(dep, state, path, depth + 1)) < 0)
			return ret;
	}
	state[nf->id] = DONE;
	order[n_order++] = nf;
	return 0;
}

int tp_nf_order(void)
{
	uint8_t state[TP_NF_MAX] = {0};
	struct tp_nf *path[TP_NF_MAX + 1];
	int ret;

	n_order = 0;
	for (struct tp_nf *nf = head; nf; nf = nf->next)
		if ((ret = order_visit(nf, state, path, 0)) < 0)
			return ret;
	return 0;
}

struct tp_nf *tp_nf_ordered(unsigned int i)
{
	return i < n_order ? order[i] : NULL;
}

/* the started modules' fini, the last started first */
static void fini_started(void)
{
	while (n_started > 0) {
		struct tp_nf *nf = order[--n_started];
		if (nf->fini)
			nf->fini();
	}
}

static void free_lcore_state(void);

int tp_nf_init_all(void)
{
	struct tp_nf *nf;
	int ret;

	n_started = 0;
	if ((ret = tp_nf_order()) < 0)
		return ret;
	tp_nf_n_polls = 0;
	for (unsigned int k = 0; k < n_order; k++)
		if (order[k]->poll)
			tp_nf_polls[tp_nf_n_polls++] = order[k];
	for (unsigned int k = 0; k < n_order; k++) {
		nf = order[k];
		for (unsigned int i = 0; nf->lcore_size && i < tp.n_workers; i++) {
			struct tp_worker *w = tp.workers[i];
			w->nf_state[nf->id] =
			    rte_zmalloc(nf->name, nf->lcore_size, RTE_CACHE_LINE_SIZE);
			if (w->nf_state[nf->id] == NULL) {
				TP_LOG(ERR, "module %s: no memory for its lcore state", nf->name);
				ret = -ENOMEM;
				goto fail;
			}
		}
		if (nf->init && (ret = nf->init()) < 0) {
			TP_LOG(ERR, "module %s: %s", nf->name, strerror(-ret));
			goto fini_failed;
		}
		for (unsigned int i = 0; nf->lcore_init && i < tp.n_workers; i++) {
			struct tp_worker *w = tp.workers[i];
			if ((ret = nf->lcore_init(w, w->nf_state[nf->id])) < 0) {
				TP_LOG(ERR, "module %s on lcore %u: %s", nf->name, w->lcore,
				       strerror(-ret));
				goto fini_failed;
			}
		}
		n_started = k + 1;
	}
	return 0;
fini_failed:
	/* the failed module frees what its init got as far as making */
	if (nf->fini)
		nf->fini();
fail:
	fini_started();
	free_lcore_state();
	return ret;
}

/* every module's lcore state */
static void free_lcore_state(void)
{
	for (struct tp_nf *nf = head; nf; nf = nf->next)
		for (unsigned int i = 0; i < tp.n_workers; i++) {
			rte_free(tp.workers[i]->nf_state[nf->id]);
			tp.workers[i]->nf_state[nf->id] = NULL;
		}
}

/* The hooks below run in init's order (port_del in the reverse one), over the modules
 * started. */
void tp_nf_start_all(void)
{
	for (unsigned int k = 0; k < n_started; k++)
		if (order[k]->start)
			order[k]->start();
}

void tp_nf_port_add(uint16_t port)
{
	for (unsigned int k = 0; k < n_started; k++)
		if (order[k]->port_add)
			order[k]->port_add(port);
}

void tp_nf_port_del(uint16_t port)
{
	for (unsigned int k = n_started; k-- > 0;)
		if (order[k]->port_del)
			order[k]->port_del(port);
}

void tp_nf_port_mode(uint16_t port, const char *mode)
{
	for (unsigned int k = 0; k < n_started; k++)
		if (order[k]->port_mode)
			order[k]->port_mode(port, mode);
}

void tp_nf_show_all(struct tp_node *out)
{
	for (unsigned int k = 0; k < n_started; k++)
		if (order[k]->show)
			order[k]->show(out);
}

void tp_nf_metrics_all(struct tp_metrics *m)
{
	for (unsigned int k = 0; k < n_started; k++)
		if (order[k]->metrics)
			order[k]->metrics(m);
}

void tp_nf_fini_all(void)
{
	/* what the modules deferred (a hash's deleted keys, their slots) runs while
	 * their tables exist: the lcores stopped, so every grace period is over */
	tp_rcu_reclaim();
	fini_started();
	free_lcore_state();
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
