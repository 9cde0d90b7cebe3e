/* SPDX-License-Identifier: BSD-3-Clause */
/* twinctl: command-line client of the twinplane API (it parses nothing itself). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "../api/api.h"
#include "../api/io.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: twinctl [-n NAME | -s SOCKET] [-j|--json] COMMAND...\n"
		   "       twinctl [-n NAME | -s SOCKET] -f FILE   (one command a line)\n"
		   "       twinctl help                     (the daemon lists its commands)\n");
}

/* Send one command; print the answer. Returns 0 or 1 (error, printed). */
static int run(const char *path, int json, int argc, char **argv)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct tp_api_hdr h = {.version = TP_API_VERSION, .id = 1};
	size_t len = 0;
	char *buf, *p;
	int fd, ret;

	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	buf = malloc(len ? len : 1);
	if (buf == NULL)
		return 1;
	for (int i = 0, off = 0; i < argc; i++) {
		strcpy(buf + off, argv[i]);
		off += (int)strlen(argv[i]) + 1;
	}
	h.type = json ? TP_API_CMD_JSON : TP_API_CMD_TEXT;
	h.len = (uint32_t)len;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "twinctl: cannot connect to %s: %s (is twinplane running?)\n", path,
			strerror(errno));
		free(buf);
		return 1;
	}
	if (tp_api_full_io(fd, &h, sizeof(h), 0) < 0 || tp_api_full_io(fd, buf, len, 0) < 0) {
		fprintf(stderr, "twinctl: connection to %s lost\n", path);
		close(fd);
		free(buf);
		return 1;
	}
	free(buf);
	ret = tp_api_read_answer(fd, &h, &p);
	if (ret == -EFBIG) {
		/* review N15: it said "not an answer of API version 1" */
		fprintf(stderr,
			"twinctl: the answer from %s is %u bytes, over twinctl's limit of %u: "
			"ask for less (show routes offset N limit M)\n",
			path, h.len, TP_API_MAX_ANSWER);
		close(fd);
		return 1;
	}
	if (ret < 0) {
		fprintf(stderr, "twinctl: %s from %s\n",
			ret == -EPROTO ? "not an answer of API version 1" : "short answer", path);
		close(fd);
		return 1;
	}
	close(fd);
	if (h.status < 0) {
		fprintf(stderr, "error: %s\n", p);
		ret = 1;
	} else {
		fputs(p, stdout);
		ret = 0;
	}
	free(p);
	return ret;
}

/* twinctl -f: one command a line, '#' to the end of a line a comment, as the daemon's
 * start-up configuration. Lines of any length (getline: fgets into 1024 bytes ran the
 * rest of a longer line as a command of its own); a line with a NUL byte or more
 * than TP_API_MAX_WORDS words is refused whole, naming the line (the words past 64
 * were dropped silently: review F15), and the next lines still run. 0, or 1 if a
 * line failed. */
static int run_file(const char *path, int json, const char *file)
{
	char *line = NULL, *w[TP_API_MAX_WORDS];
	size_t cap = 0;
	unsigned int lineno = 0;
	ssize_t n;
	int status = 0;
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;

	if (f == NULL) {
		fprintf(stderr, "twinctl: %s: %s\n", file, strerror(errno));
		return 1;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		int k = 0, more = 0;
		lineno++;
		if (memchr(line, '\0', (size_t)n) != NULL) {
			fprintf(stderr, "twinctl: %s:%u: a NUL byte in the line: not run\n", file,
				lineno);
			status = 1;
			continue;
		}
		for (char *t = strtok(line, " \t\r\n"); t && *t != '#';
		     t = strtok(NULL, " \t\r\n")) {
			if (k < TP_API_MAX_WORDS)
				w[k++] = t;
			else
				more++;
		}
		if (more) {
			fprintf(stderr, "twinctl: %s:%u: %d words, at most %d: not run\n", file,
				lineno, k + more, TP_API_MAX_WORDS);
			status = 1;
			continue;
		}
		if (k)
			status |= run(path, json, k, w);
	}
	if (ferror(f)) {
		fprintf(stderr, "twinctl: %s: %s\n", file, strerror(errno));
		status = 1;
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return status;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
	    {"name", required_argument, NULL, 'n'}, {"socket", required_argument, NULL, 's'},
	    {"json", no_argument, NULL, 'j'},	    {"file", required_argument, NULL, 'f'},
	    {"help", no_argument, NULL, 'h'},	    {0},
	};
	char path[108] = "";
	const char *file = NULL;
	int c, json = 0;

	while ((c = getopt_long(argc, argv, "+n:s:jf:h", lo, NULL)) != -1) {
		switch (c) {
		case 'n':
			snprintf(path, sizeof(path), TP_API_DEFAULT_DIR "/%s.sock", optarg);
			break;
		case 's':
			snprintf(path, sizeof(path), "%s", optarg);
			break;
		case 'j':
			json = 1;
			break;
		case 'f':
			file = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (path[0] == '\0')
		snprintf(path, sizeof(path), "%s",
			 getenv("TWINPLANE_SOCKET") ? getenv("TWINPLANE_SOCKET")
						    : TP_API_DEFAULT_DIR "/twinplane.sock");
	/* '--json' may also come last, as in 'twinctl show routes --json' */
	int n = argc - optind;
	char **words = argv + optind;
	if (n > 0 && strcmp(words[n - 1], "--json") == 0) {
		json = 1;
		n--;
	}
	if (file)
		return run_file(path, json, file);
	if (n == 0) {
		usage(stderr);
		return 2;
	}
	return run(path, json, n, words);
}
