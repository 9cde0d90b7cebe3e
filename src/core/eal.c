/* SPDX-License-Identifier: BSD-3-Clause */
/* EAL start-up and the single-instance lock. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_eal.h>

#include "../api/api.h"
#include "eal.h"

int tp_instance_name_check(const char *kind, const char *name)
{
	size_t len = strlen(name);

	if (len == 0 || len > TP_INSTANCE_NAME_MAX ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") !=
		len) {
		fprintf(stderr, "%s: bad --name '%s' (1 to %d letters, digits, - and _)\n", kind,
			name, TP_INSTANCE_NAME_MAX);
		return -EINVAL;
	}
	return 0;
}

int tp_instance_lock(const char *kind, const char *name, const char *socket, char *path, size_t len,
		     char *prev_socket, size_t prev_len)
{
	char buf[512];
	struct stat st;
	ssize_t n;
	int fd;

	path[0] = '\0';
	if (tp_instance_name_check(kind, name) < 0)
		return -1;
	mkdir(TP_API_DEFAULT_DIR, 0755);
	snprintf(path, len, TP_API_DEFAULT_DIR "/%s.lock", name);
	/* never through a symbolic link, never a FIFO or device (we run as root) */
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
	if (fd < 0) {
		fprintf(stderr, "%s: cannot open %s: %s\n", kind, path,
			errno == ELOOP ? "it is a symbolic link" : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "%s: cannot use %s: not a regular file\n", kind, path);
		close(fd);
		return -1;
	}
	/* "PID SOCKET\n" of the last holder */
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		buf[strcspn(buf, " ")] = '\0';
		fprintf(stderr,
			"%s: an instance named '%s' is already running (pid %s); "
			"stop it or start this one with another --name\n",
			kind, name, buf[0] ? buf : "?");
		close(fd);
		return -1;
	}
	if (prev_socket && prev_len) {
		const char *sp = strchr(buf, ' ');
		snprintf(prev_socket, prev_len, "%s", sp ? sp + 1 : "");
	}
	if (ftruncate(fd, 0) == 0 && lseek(fd, 0, SEEK_SET) == 0) {
		int k = snprintf(buf, sizeof(buf), "%d %s\n", getpid(), socket ? socket : "");
		if (write(fd, buf, (size_t)k) < 0)
			fprintf(stderr, "%s: cannot write pid to %s\n", kind, path);
	}
	return fd;
}

/* Enough free 2 MiB pages and a hugetlbfs mount? */
static int hugepages_usable(unsigned int need_mb)
{
	char line[256];
	unsigned long free_pages = 0, size_kb = 0;
	int mounted = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "HugePages_Free: %lu", &free_pages);
		sscanf(line, "Hugepagesize: %lu kB", &size_kb);
	}
	fclose(f);
	f = fopen("/proc/mounts", "r");
	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, " hugetlbfs "))
			mounted = 1;
	fclose(f);
	return mounted && free_pages * size_kb / 1024 >= need_mb;
}

int tp_eal_start(const struct tp_eal_opts *o)
{
	char *eargv[64], mem[16];
	int eargc = 0;

	eargv[eargc++] = (char *)(uintptr_t)o->prog;
	eargv[eargc++] = "--file-prefix";
	eargv[eargc++] = (char *)(uintptr_t)o->name;
	eargv[eargc++] = "--proc-type=primary";
	/* probe no device at start (as grout does): ports come from 'port add', a PCI
	 * address included, so the machine's own NICs are left alone */
	eargv[eargc++] = "-a";
	eargv[eargc++] = "0000:00:00.0";
	if (o->lcores) {
		eargv[eargc++] = "--lcores";
		eargv[eargc++] = (char *)(uintptr_t)o->lcores;
	}
	bool huge = !o->no_huge && hugepages_usable(256);

	if (!huge) {
		if (!o->no_huge)
			fprintf(stderr,
				"%s: WARNING: fewer than 256 MiB of free hugepages or no "
				"hugetlbfs mount: running with --no-huge (slower; "
				"scripts/setup.sh reserves hugepages)\n",
				o->prog);
		snprintf(mem, sizeof(mem), "%u", o->mem_mb ? o->mem_mb : 512);
		eargv[eargc++] = "--no-huge";
		eargv[eargc++] = "-m";
		eargv[eargc++] = mem;
	} else {
		/* no hugepage file outlives the process, even after a crash */
		eargv[eargc++] = "--huge-unlink";
	}
	for (int k = 0; k < 2; k++) {
		const char *words = k == 0 ? o->extra : huge ? o->extra_huge : NULL;
		if (words == NULL)
			continue;
		/* stays allocated: EAL may keep pointers into argv */
		char *extra = strdup(words);
		for (char *t = strtok(extra, " "); t && eargc < 62; t = strtok(NULL, " "))
			eargv[eargc++] = t;
	}
	eargv[eargc] = NULL;
	return rte_eal_init(eargc, eargv);
}
