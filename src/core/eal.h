/* SPDX-License-Identifier: BSD-3-Clause */
/* EAL start-up shared by the daemon and the generator: one instance per name,
 * hugepages or a --no-huge fallback, no device probed at start. */
#ifndef TP_CORE_EAL_H
#define TP_CORE_EAL_H

#include <stdbool.h>
#include <stddef.h>

struct tp_eal_opts {
	const char *prog;    /* argv[0], and the name used in messages */
	const char *name;    /* instance name: the EAL file prefix */
	const char *lcores;  /* EAL --lcores (a list, or lcore@cpu mappings); NULL: all */
	bool no_huge;	     /* force ordinary memory */
	unsigned int mem_mb; /* memory without hugepages */
	const char *extra;   /* more EAL words, space separated */
	/* more EAL words used only on hugepages (dropped with --no-huge, forced or
	 * fallen back to, which they may not go with) */
	const char *extra_huge;
};

#define TP_INSTANCE_NAME_MAX 64

/* Is name a valid instance name: 1 to TP_INSTANCE_NAME_MAX letters, digits, '-' and
 * '_' (it becomes /run/twinplane/<name>.lock, the socket's name and the EAL file
 * prefix)? 0, or -EINVAL with the reason printed on stderr after "kind: ". */
int tp_instance_name_check(const char *kind, const char *name);
/* Take the lock of instance kind/name (in /run/twinplane), or print who holds it
 * and return -1 (also for a name tp_instance_name_check refuses, or a lock path that is
 * a symbolic link or not a regular file). Returns the lock's fd (keep it open) and its path in
 * path; records our pid and API socket in it, and gives the socket the last holder recorded in
 * prev_socket ("" if none). */
int tp_instance_lock(const char *kind, const char *name, const char *socket, char *path, size_t len,
		     char *prev_socket, size_t prev_len);
/* rte_eal_init() with those options; falls back to --no-huge, with a warning on
 * stderr, when fewer than 256 MiB of hugepages are free or hugetlbfs is not
 * mounted. Returns rte_eal_init()'s result. */
int tp_eal_start(const struct tp_eal_opts *o);

#endif
