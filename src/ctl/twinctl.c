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

int main(int argc, char **argv)
{
	static const struct option lo[] = {
	    {"name", required_argument, NULL, 'n'}, {"socket", required_argument, NULL, 's'},
	    {"json", no_argument, NULL, 'j'},	    {"file", required_argument, NULL, 'f'},
	    {"help", no_argument, NULL, 'h'},	    {0},
	};
	char path[108] = "";
	const char *file = NULL;
	int c, json = 0, status = 0;

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
	if (file) {
		char line[1024], *w[64];
		FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
		if (f == NULL) {
			fprintf(stderr, "twinctl: %s: %s\n", file, strerror(errno));
			return 1;
		}
		while (fgets(line, sizeof(line), f)) {
			int k = 0;
			for (char *t = strtok(line, " \t\r\n"); t && *t != '#' && k < 64;
			     t = strtok(NULL, " \t\r\n"))
				w[k++] = t;
			if (k)
				status |= run(path, json, k, w);
		}
		if (f != stdin)
			fclose(f);
		return status;
	}
	if (n == 0) {
		usage(stderr);
		return 2;
	}
	return run(path, json, n, words);
}
