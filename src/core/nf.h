/* SPDX-License-Identifier: BSD-3-Clause */
/* Network functions are modules: each registers itself at start-up (TP_NF_REGISTER,
 * a constructor, as grout does) and the core calls it back; nothing in core/ or
 * control/ names a network function.
 *
 * What a module registers here: its name, init/fini (control plane), per-lcore
 * state (allocated by the core for every data-plane lcore before it starts), its
 * named counters and drop and punt reasons (core/counter.h: one mechanism for
 * every module, shown by 'show counters'), and its command-line options. Its
 * commands register with TP_CMD_REGISTER (control/cmd.h), its packet entry points
 * with the port-mode and ring registries (core/input.h, core/ring.h) or with
 * another module's (the ethertypes of ip4's l3 mode, nf/ip4/l3mode.h),
 * its control-plane timers with control/timer.h.
 *
 * Registration happens before main() and is single-threaded; after start-up the
 * list is read-only. */
#ifndef TP_CORE_NF_H
#define TP_CORE_NF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_common.h>

#include "counter.h"

#include "limits.h"

struct tp_metrics;
struct tp_node;
struct tp_worker;

/* A command-line option of a module (--NAME [ARG]); fn returns 0 or a negative
 * errno, having printed why on stderr. Parsed before the EAL starts. */
struct tp_nf_opt {
	const char *name;
	bool has_arg;
	const char *help; /* one line for --help */
	int (*fn)(const char *arg);
};

struct tp_nf {
	const char *name; /* "ip4": also the prefix of its counters */
	const char *help; /* one line for 'show modules' */
	const struct tp_ctr_desc *ctrs;
	unsigned int n_ctrs;
	size_t lcore_size; /* per data-plane lcore state, zeroed, cache aligned */
	const struct tp_nf_opt *opts;
	unsigned int n_opts;
	/* Names of the modules whose init must run before this one's (and whose fini
	 * after), NULL-terminated; NULL: none. A name not registered, or a cycle,
	 * stops the daemon with an error naming it (grout's gr_module depends_on). */
	const char *const *depends_on;
	/* Control plane, after the shared tables and lcores exist and the modules it
	 * depends on started, before the start-up configuration runs: 0 or a negative
	 * errno (the daemon then stops). */
	int (*init)(void);
	/* Control plane, optional: once the lcores run, before the start-up configuration
	 * (what needs running lcores, e.g. a first dump of the kernel's tables). */
	void (*start)(void);
	/* Control plane, after the lcores stopped, in the reverse of init's order. Also
	 * called when this module's own init or lcore_init failed: it frees whatever
	 * init got as far as making, and must accept a partial (or no) init. */
	void (*fini)(void);
	/* Control plane, optional: port was added (its TAP exists) and is about to be
	 * handed to the lcores. Failures are the module's to log: the port stays. */
	void (*port_add)(uint16_t port);
	/* Control plane, optional: port is being removed; no lcore receives from it any
	 * more, its TAP still exists. Forget what refers to it (routes, neighbours). */
	void (*port_del)(uint16_t port);
	/* Control plane, optional: port entered mode `mode` (its old mode detached; a
	 * port added is in the default mode, with no call). */
	void (*port_mode)(uint16_t port, const char *mode);
	/* Control plane, optional: the module's registries in 'show modules', written
	 * into its top-level object out (e.g. a table other modules register into). */
	void (*show)(struct tp_node *out);
	/* Control plane, optional: the module's gauges and counters beyond its named
	 * counters (table sizes, sessions, queues) on the metrics page, each family
	 * named twinplane_<module>_... (control/metrics.h). Reads what the lcores
	 * publish; never waits for them. */
	void (*metrics)(struct tp_metrics *m);
	/* Control plane, once per data-plane lcore before it starts: fill state. */
	int (*lcore_init)(struct tp_worker *w, void *state);
	/* Data plane, optional: once per pass of every data-plane lcore's loop, after
	 * its receive queues and rings (expiry timers, held packets). Bounded work;
	 * returns how much it did (packets or entries), so the pass counts as busy. */
	unsigned int (*poll)(struct tp_worker *w, void *state);
	/* set by the registry */
	unsigned int id;
	unsigned int ctr_base; /* its first counter id */
	struct tp_nf *next;
};

void tp_nf_register(struct tp_nf *nf);
#define TP_NF_REGISTER(nf)                                                                         \
	RTE_INIT(tp_nf_register_##nf)                                                              \
	{                                                                                          \
		tp_nf_register(&nf);                                                               \
	}

/* Modules with a poll callback, for the lcore loops (set by tp_nf_init_all). */
extern unsigned int tp_nf_n_polls;
extern struct tp_nf *tp_nf_polls[TP_NF_MAX];

/* Registered modules, in registration order (the core first). */
struct tp_nf *tp_nf_first(void);
unsigned int tp_nf_count(void);
struct tp_nf *tp_nf_by_name(const char *name);

/* Lines of --help for the modules' options. */
void tp_nf_options_usage(FILE *f);
/* Append getopt_long entries for the modules' options to lo, which holds n entries
 * (and room for cap), keeping it terminated; each entry's val is base + its index.
 * Returns the new count, or -ENOSPC. */
struct option;
int tp_nf_options_getopt(struct option *lo, unsigned int n, unsigned int cap, int base);
/* Run the option getopt_long returned as base + index: 0 or the option's error. */
int tp_nf_option_run(int index, const char *arg);

/* Order the modules by depends_on (each after those it names; otherwise registration
 * order), then run every module's init, then its lcore_init on every lcore. On
 * failure the failed module's fini runs, then the started modules' in reverse.
 * 0, -ENOENT (a dependency not registered), -ELOOP (a dependency cycle) or the
 * module's error. */
int tp_nf_init_all(void);
/* Only the ordering step of tp_nf_init_all (for tests): 0, -ENOENT or -ELOOP; then
 * tp_nf_ordered(i) is the i-th module to start (NULL past the last). */
int tp_nf_order(void);
struct tp_nf *tp_nf_ordered(unsigned int i);
void tp_nf_fini_all(void);
/* Every module's start, port_add, port_del, port_mode, show, metrics (those that
 * have one), in registration order. */
void tp_nf_start_all(void);
void tp_nf_port_add(uint16_t port);
void tp_nf_port_del(uint16_t port);
void tp_nf_port_mode(uint16_t port, const char *mode);
void tp_nf_show_all(struct tp_node *out);
void tp_nf_metrics_all(struct tp_metrics *m);

#include "worker.h"

/* The module's state on a data-plane lcore. */
static inline void *tp_nf_lcore(const struct tp_worker *w, const struct tp_nf *nf)
{
	return w->nf_state[nf->id];
}

#endif
