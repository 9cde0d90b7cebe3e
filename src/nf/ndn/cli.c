/* SPDX-License-Identifier: BSD-3-Clause */
/* The NDN forwarder's commands: enable, limits, localhop, faces, FIB and RIB,
 * strategies, telemetry, and what they show (the work is in control/ and datapath/). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>

#include "../../control/api_server.h"
#include "../../control/cmd.h"
#include "../../control/control.h"
#include "../../control/metrics.h"
#include "../../control/port.h"
#include "../../core/tp.h"
#include "../../proto/ip4.h"
#include "ndn.h"

static int need_enabled(struct tp_cmd_ctx *ctx)
{
	if (!ndn_conf.enabled)
		return tp_cmd_err(ctx, ENOTCONN,
				  "ndn: the forwarder is not enabled (ndn enable [options])");
	return 0;
}

static int enable(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct ndn_conf c = ndn_conf;
	char err[256] = "";
	uint64_t v;
	int ret;
	static const char *const usage =
	    "usage: ndn enable [ndt-comps N] [ndt-bits N] [pit-capacity N] [cs-capacity N] "
	    "[interest-queue N] [data-queue N] [nack-queue N] [output-queue N] "
	    "[queues separate|shared]";

	if (argc % 2)
		return tp_cmd_err(ctx, EINVAL, "ndn enable: %s", usage);
	for (int i = 0; i < argc; i += 2) {
		const char *k = argv[i], *val = argv[i + 1];
		if (strcmp(k, "queues") == 0) {
			if (strcmp(val, "shared") != 0 && strcmp(val, "separate") != 0)
				return tp_cmd_err(
				    ctx, EINVAL,
				    "ndn enable: bad queues '%s' (separate: a ring per "
				    "packet type; shared: one ring for all)",
				    val);
			c.shared_queue = strcmp(val, "shared") == 0;
			continue;
		}
		struct {
			const char *key;
			uint64_t min, max;
			unsigned int *dst;
			bool pow2;
		} opts[] = {
		    {"ndt-comps", 1, TP_NDN_NAME_MAX_COMPS, &c.ndt_comps, false},
		    {"ndt-bits", 4, 24, &c.ndt_bits, false},
		    {"pit-capacity", 64, 1u << 22, &c.pit_capacity, false},
		    {"cs-capacity", 0, 1u << 20, &c.cs_capacity, false},
		    {"interest-queue", 64, 1u << 16, &c.queue[0], true},
		    {"data-queue", 64, 1u << 16, &c.queue[1], true},
		    {"nack-queue", 64, 1u << 16, &c.queue[2], true},
		    {"output-queue", 64, 1u << 16, &c.out_queue, true},
		};
		unsigned int j;
		for (j = 0; j < RTE_DIM(opts) && strcmp(k, opts[j].key) != 0; j++)
			;
		if (j == RTE_DIM(opts))
			return tp_cmd_err(ctx, EINVAL, "ndn enable: unknown keyword '%s'; %s", k,
					  usage);
		if (tp_parse_u64(val, opts[j].min, opts[j].max, &v) < 0 ||
		    (opts[j].pow2 && (v & (v - 1))))
			return tp_cmd_err(
			    ctx, EINVAL, "ndn enable: bad %s '%s' (%" PRIu64 "-%" PRIu64 "%s)", k,
			    val, opts[j].min, opts[j].max, opts[j].pow2 ? ", a power of two" : "");
		*opts[j].dst = (unsigned int)v;
	}
	if ((ret = ndn_enable(&c, err, sizeof(err))) < 0)
		return tp_cmd_err(ctx, -ret, "ndn enable: %s", err);
	tp_out_u64(ctx->out, "forwarding_lcores", c.n_fwd);
	tp_out_u64(ctx->out, "output_lcores", c.n_out);
	return 0;
}

static const struct {
	const char *key, *what;
	uint64_t min, max;
	uint32_t *dst;
} limit_opts[] = {
    {"face-idle-timeout", "s", 1, 86400, &ndn_limits.face_idle_s},
    {"face-routes", "routes", 1, 4096, &ndn_limits.face_routes},
    {"mgmt-rate", "commands/s", 1, 1000000, &ndn_limits.mgmt_rate},
    {"mgmt-burst", "commands", 1, 1000000, &ndn_limits.mgmt_burst},
    {"expiration-max", "s", 1, 86400 * 365, &ndn_limits.expiration_max_s},
    {"pit-face-share", "%", 1, 100, &ndn_limits.pit_face_share},
    {"interest-lifetime-max", "ms", 1, 3600000, &ndn_limits.lifetime_max_ms},
    {"stream-conns", "connections", 1, 256, &ndn_limits.stream_conns},
    {"stream-send-queue", "bytes", TP_NDN_STREAM_MAX, 1u << 30, &ndn_limits.stream_sendq},
};

/* ndn limits [KEY VALUE]...: set (all or nothing), then show them all */
static int limits(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	uint32_t v32[RTE_DIM(limit_opts)];
	uint64_t v;

	if (argc % 2)
		return tp_cmd_err(ctx, EINVAL,
				  "ndn limits: usage: ndn limits [KEY VALUE]... (keys: "
				  "face-idle-timeout, face-routes, mgmt-rate, mgmt-burst, "
				  "expiration-max, pit-face-share, interest-lifetime-max, "
				  "stream-conns, stream-send-queue)");
	for (unsigned int j = 0; j < RTE_DIM(limit_opts); j++)
		v32[j] = *limit_opts[j].dst;
	for (int i = 0; i < argc; i += 2) {
		unsigned int j;
		for (j = 0; j < RTE_DIM(limit_opts) && strcmp(argv[i], limit_opts[j].key) != 0; j++)
			;
		if (j == RTE_DIM(limit_opts))
			return tp_cmd_err(ctx, EINVAL, "ndn limits: unknown keyword '%s'", argv[i]);
		if (tp_parse_u64(argv[i + 1], limit_opts[j].min, limit_opts[j].max, &v) < 0)
			return tp_cmd_err(ctx, EINVAL,
					  "ndn limits: bad %s '%s' (%" PRIu64 "-%" PRIu64 " %s)",
					  argv[i], argv[i + 1], limit_opts[j].min,
					  limit_opts[j].max, limit_opts[j].what);
		v32[j] = (uint32_t)v;
	}
	for (unsigned int j = 0; j < RTE_DIM(limit_opts); j++) {
		__atomic_store_n(limit_opts[j].dst, v32[j], __ATOMIC_RELAXED);
		tp_out_u64(ctx->out, limit_opts[j].key, v32[j]);
	}
	if (ndn_conf.enabled)
		ndn_limits_apply();
	return 0;
}

/* ndn localhop enable key HEX | disable */
static int localhop_cmd(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	uint8_t key[64];
	size_t n = 0;

	if (argc == 1 && strcmp(argv[0], "disable") == 0) {
		ndn_mgmt_localhop_set(NULL, 0);
		return 0;
	}
	if (argc != 3 || strcmp(argv[0], "enable") != 0 || strcmp(argv[1], "key") != 0)
		return tp_cmd_err(ctx, EINVAL,
				  "ndn localhop: usage: ndn localhop enable key HEX | "
				  "ndn localhop disable");
	const char *h = argv[2];
	size_t hl = strlen(h);
	if (hl % 2 || hl / 2 < 16 || hl / 2 > sizeof(key))
		return tp_cmd_err(ctx, EINVAL,
				  "ndn localhop: the key is 16 to 64 bytes in hexadecimal (32 to "
				  "128 digits), not %zu digits",
				  hl);
	size_t bad;
	long got = strspn(h, "0123456789abcdefABCDEF") == hl
		       ? tp_hex_decode(h, key, sizeof(key), &bad)
		       : -1;
	if (got != (long)(hl / 2))
		return tp_cmd_err(ctx, EINVAL, "ndn localhop: bad hexadecimal digit in key");
	n = (size_t)got;
	int ret = ndn_mgmt_localhop_set(key, n);
	memset(key, 0, sizeof(key));
	return ret < 0 ? tp_cmd_err(ctx, -ret, "ndn localhop: %s", strerror(-ret)) : 0;
}

/* "/a/b" into a Name TLV-VALUE (buf of TP_NDN_NAME_MAX_LEN): length or error */
static int parse_name(struct tp_cmd_ctx *ctx, const char *what, const char *uri, uint8_t *buf)
{
	int len = tp_ndn_name_from_uri(uri, buf, TP_NDN_NAME_MAX_LEN);

	if (len < 0)
		return tp_cmd_err(ctx, EINVAL, "%s: bad name '%s' (an NDN URI such as /a/b)", what,
				  uri);
	return len;
}

static int face_arg(struct tp_cmd_ctx *ctx, const char *what, const char *s, uint16_t *face)
{
	uint64_t v;

	if (tp_parse_u64(s, 0, NDN_FACES_MAX - 1, &v) < 0 || !ndn_faces[v].up)
		return tp_cmd_err(ctx, ENOENT, "%s: no face '%s'", what, s);
	*face = (uint16_t)v;
	return 0;
}

static int face_add(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	char err[160];
	bool local = false;
	int id;
	int ret = need_enabled(ctx);

	if (ret < 0)
		return ret;
	if (argc >= 1 && strcmp(argv[argc - 1], "local") == 0) {
		local = true;
		argc--;
	}
	if (argc == 2 && strcmp(argv[0], "udp") == 0) {
		char a[32], *colon;
		uint32_t ip;
		uint64_t port = NDN_UDP_PORT;
		snprintf(a, sizeof(a), "%s", argv[1]);
		if ((colon = strchr(a, ':')) != NULL) {
			*colon = '\0';
			if (tp_parse_u64(colon + 1, 1, 65535, &port) < 0)
				return tp_cmd_err(ctx, EINVAL, "ndn face add: bad UDP port in '%s'",
						  argv[1]);
		}
		if (tp_ip4_parse_addr(a, &ip) < 0 || ip == 0)
			return tp_cmd_err(ctx, EINVAL, "ndn face add: bad address '%s'", argv[1]);
		id = ndn_face_add_udp(rte_cpu_to_be_32(ip), rte_cpu_to_be_16((uint16_t)port), 0,
				      local, false, err, sizeof(err));
	} else if ((argc == 2 || argc == 4) && strcmp(argv[0], "ether") == 0) {
		struct tp_port *p = tp_port_by_name(argv[1]);
		struct rte_ether_addr mac, *remote = NULL;
		if (p == NULL)
			return tp_cmd_err(ctx, ENOENT, "ndn face add: no port '%s'", argv[1]);
		if (argc == 4) {
			if (strcmp(argv[2], "remote") != 0 ||
			    tp_mac_parse(argv[3], mac.addr_bytes) < 0)
				return tp_cmd_err(ctx, EINVAL,
						  "ndn face add: bad remote '%s %s' (remote MAC)",
						  argv[2], argv[3]);
			remote = &mac;
		}
		id = ndn_face_add_ether(p->id, remote, local, err, sizeof(err));
	} else {
		return tp_cmd_err(ctx, EINVAL,
				  "ndn face add: usage: ndn face add udp A.B.C.D[:PORT] [local] | "
				  "ndn face add ether PORT [remote MAC] [local]");
	}
	if (id < 0)
		return tp_cmd_err(ctx, -id, "ndn face add: %s", err);
	tp_out_u64(ctx->out, "face", (uint64_t)id);
	return 0;
}

static int face_del(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	uint16_t face = 0;
	int ret = need_enabled(ctx);

	if (ret < 0)
		return ret;
	if (argc != 1)
		return tp_cmd_err(ctx, EINVAL, "ndn face del: usage: ndn face del ID");
	if ((ret = face_arg(ctx, "ndn face del", argv[0], &face)) < 0)
		return ret;
	if (face == NDN_FACE_INTERNAL)
		return tp_cmd_err(ctx, EPERM, "ndn face del: face 0 is management's own");
	return ndn_face_del(face) < 0 ? tp_cmd_err(ctx, ENOENT, "ndn face del: no face %u", face)
				      : 0;
}

static int face_accept(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	uint32_t ip;
	uint8_t len;
	int ret = need_enabled(ctx);

	if (ret < 0)
		return ret;
	if (argc != 2 || strcmp(argv[0], "udp") != 0 || tp_ip4_parse_prefix(argv[1], &ip, &len) < 0)
		return tp_cmd_err(ctx, EINVAL,
				  "ndn face accept: usage: ndn face accept udp A.B.C.D/LEN");
	if (ndn_udp_accept_add(rte_cpu_to_be_32(ip), len) < 0)
		return tp_cmd_err(ctx, ENOSPC, "ndn face accept: too many networks");
	return 0;
}

static uint64_t face_ctr(unsigned int face, unsigned int c)
{
	uint64_t s = 0;

	for (unsigned int i = 0; i < tp.n_workers; i++)
		s += ndn_lcore(tp.workers[i])->fctr[face][c];
	return s;
}

static int face_show(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	static const char *const ctr_names[] = {
#define X(e, n) n,
	    NDN_FACE_COUNTERS(X)
#undef X
	};
	static const char *const kinds[] = {"free", "internal", "ether", "udp", "unix", "tcp"};
	char uri[128];
	int ret = need_enabled(ctx);

	(void)argv;
	if (ret < 0)
		return ret;
	if (argc != 0)
		return tp_cmd_err(ctx, EINVAL, "ndn face show: no arguments");
	struct tp_node *l = tp_out_list(ctx->out, "faces");
	for (unsigned int i = 0; i < NDN_FACES_MAX; i++) {
		const struct ndn_face *f = &ndn_faces[i];
		if (!__atomic_load_n(&f->up, __ATOMIC_ACQUIRE))
			continue;
		struct tp_node *o = tp_out_obj(l, NULL);
		tp_out_u64(o, "id", i);
		tp_out_str(o, "kind", kinds[f->kind]);
		ndn_face_uri(i, uri, sizeof(uri));
		tp_out_str(o, "uri", uri);
		tp_out_bool(o, "local", f->local);
		tp_out_bool(o, "on_demand", f->on_demand);
		if (f->on_demand)
			tp_out_u64(o, "idle_ms", tp_ctl_now_ms() - f->last_rx_ms);
		tp_out_u64(o, "mtu", f->mtu);
		if (ndn_face_is_stream(f->kind)) {
			uint64_t q;
			int fd;
			ndn_stream_face_info(i, uri, sizeof(uri), &q, &fd);
			tp_out_str(o, "local_uri", uri);
			tp_out_u64(o, "send_queue_bytes", q);
		}
		uint64_t pit = 0; /* the PIT entries it created, which its share bounds */
		for (unsigned int k = 0; k < ndn_conf.n_fwd; k++)
			pit += __atomic_load_n(&ndn_fwd[k]->pit_by_face[i], __ATOMIC_RELAXED);
		tp_out_u64(o, "pit_entries", pit);
		struct tp_node *c = tp_out_obj(o, "counters");
		for (unsigned int k = 0; k < NDN_FC_MAX; k++)
			tp_out_u64(c, ctr_names[k], face_ctr(i, k));
	}
	return 0;
}

/* ndn face listen unix [PATH] [mode OCTAL] [group GID] | tcp A.B.C.D[:PORT] */
static int face_listen(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	static const char *const usage =
	    "usage: ndn face listen unix [PATH] [mode OCTAL] [group GID] | ndn face listen tcp "
	    "A.B.C.D[:PORT]";
	char err[192] = "";
	int ret = need_enabled(ctx);

	if (ret < 0)
		return ret;
	if (argc >= 1 && strcmp(argv[0], "unix") == 0) {
		const char *path = "/run/nfd/nfd.sock"; /* NFD's, python-ndn's and ndn-cxx's */
		unsigned int mode = 0660;		/* the API socket's */
		int gid = tp_api_socket_gid();
		int i = 1;
		if (i < argc && argv[i][0] == '/')
			path = argv[i++];
		for (; i + 1 < argc; i += 2) {
			char *end;
			unsigned long v =
			    strtoul(argv[i + 1], &end, strcmp(argv[i], "mode") ? 10 : 8);
			if (*end || end == argv[i + 1] ||
			    (strcmp(argv[i], "mode") == 0 ? v > 0777 : v > INT32_MAX))
				return tp_cmd_err(ctx, EINVAL, "ndn face listen: bad %s '%s'",
						  argv[i], argv[i + 1]);
			if (strcmp(argv[i], "mode") == 0)
				mode = (unsigned int)v;
			else if (strcmp(argv[i], "group") == 0)
				gid = (int)v;
			else
				return tp_cmd_err(ctx, EINVAL,
						  "ndn face listen: unknown keyword '%s'; %s",
						  argv[i], usage);
		}
		if (i != argc)
			return tp_cmd_err(ctx, EINVAL, "ndn face listen: %s", usage);
		ret = ndn_stream_listen_unix(path, mode, gid, err, sizeof(err));
	} else if (argc == 2 && strcmp(argv[0], "tcp") == 0) {
		char a[32], *colon;
		uint32_t ip;
		uint64_t port = NDN_UDP_PORT; /* 6363 for TCP too */
		snprintf(a, sizeof(a), "%s", argv[1]);
		if ((colon = strchr(a, ':')) != NULL) {
			*colon = '\0';
			if (tp_parse_u64(colon + 1, 1, 65535, &port) < 0)
				return tp_cmd_err(ctx, EINVAL,
						  "ndn face listen: bad TCP port in '%s'", argv[1]);
		}
		if (tp_ip4_parse_addr(a, &ip) < 0)
			return tp_cmd_err(ctx, EINVAL, "ndn face listen: bad address '%s'",
					  argv[1]);
		ret = ndn_stream_listen_tcp(rte_cpu_to_be_32(ip), rte_cpu_to_be_16((uint16_t)port),
					    err, sizeof(err));
	} else {
		return tp_cmd_err(ctx, EINVAL, "ndn face listen: %s", usage);
	}
	return ret < 0 ? tp_cmd_err(ctx, -ret, "ndn face listen: %s", err) : 0;
}

static int fib_add(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	uint8_t name[TP_NDN_NAME_MAX_LEN];
	uint16_t face = 0;
	uint64_t cost = 0;
	int len, ret = need_enabled(ctx);

	if (ret < 0)
		return ret;
	if ((argc != 3 && argc != 5) || strcmp(argv[1], "face") != 0 ||
	    (argc == 5 && strcmp(argv[3], "cost") != 0))
		return tp_cmd_err(ctx, EINVAL,
				  "ndn fib add: usage: ndn fib add PREFIX face ID [cost N]");
	if ((len = parse_name(ctx, "ndn fib add", argv[0], name)) < 0)
		return len;
	if ((ret = face_arg(ctx, "ndn fib add", argv[2], &face)) < 0)
		return ret;
	if (argc == 5 && tp_parse_u64(argv[4], 0, UINT32_MAX, &cost) < 0)
		return tp_cmd_err(ctx, EINVAL, "ndn fib add: bad cost '%s'", argv[4]);
	/* origin 255: static */
	if ((ret = ndn_rib_add(name, (uint16_t)len, face, 255, cost, 1, -1)) < 0)
		return tp_cmd_err(ctx, -ret, "ndn fib add: %s", strerror(-ret));
	return 0;
}

static int fib_del(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	uint8_t name[TP_NDN_NAME_MAX_LEN];
	uint16_t face = UINT16_MAX;
	int len, ret = need_enabled(ctx);

	if (ret < 0)
		return ret;
	if ((argc != 1 && argc != 3) || (argc == 3 && strcmp(argv[1], "face") != 0))
		return tp_cmd_err(ctx, EINVAL, "ndn fib del: usage: ndn fib del PREFIX [face ID]");
	if ((len = parse_name(ctx, "ndn fib del", argv[0], name)) < 0)
		return len;
	if (argc == 3 && (ret = face_arg(ctx, "ndn fib del", argv[2], &face)) < 0)
		return ret;
	if (ndn_rib_del(name, (uint16_t)len, face, UINT64_MAX) < 0)
		return tp_cmd_err(ctx, ENOENT, "ndn fib del: no route for %s", argv[0]);
	return 0;
}

static void fib_show_one(const struct ndn_fib_entry *e, void *arg)
{
	struct tp_node *o = tp_out_obj(arg, NULL), *l;
	struct tp_ndn_name n;
	char uri[512];
	uint64_t c[3] = {0, 0, 0};

	if (e->name_len == 0 || tp_ndn_name_decode(e->name, e->name_len, &n) != TP_NDN_E_OK ||
	    tp_ndn_name_to_uri(&n, uri, sizeof(uri)) < 0)
		snprintf(uri, sizeof(uri), "/");
	tp_out_str(o, "prefix", uri);
	tp_out_str(o, "strategy", ndn_strategy_names[e->strategy]);
	l = tp_out_list(o, "nexthops");
	for (unsigned int i = 0; i < e->n_nh; i++) {
		struct tp_node *h = tp_out_obj(l, NULL);
		tp_out_u64(h, "face", e->nh[i].face);
		tp_out_u64(h, "cost", e->nh[i].cost);
	}
	for (unsigned int i = 0; i < tp.n_workers; i++) {
		const struct ndn_fib_ctr *fc = &ndn_lcore(tp.workers[i])->fib[e->id];
		c[0] += fc->interests;
		c[1] += fc->data;
		c[2] += fc->nacks;
	}
	tp_out_u64(o, "interests", c[0]);
	tp_out_u64(o, "data", c[1]);
	tp_out_u64(o, "nacks", c[2]);
}

static int fib_show(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	int ret = need_enabled(ctx);

	(void)argc;
	(void)argv;
	if (ret < 0)
		return ret;
	ndn_fib_walk(fib_show_one, tp_out_list(ctx->out, "fib"));
	return 0;
}

static void rib_show_one(const uint8_t *name, uint16_t len, uint16_t face, uint64_t origin,
			 uint64_t cost, uint64_t flags, uint64_t expires_ms, void *arg)
{
	struct tp_node *o = tp_out_obj(arg, NULL);
	struct tp_ndn_name n;
	char uri[512];

	if (len == 0 || tp_ndn_name_decode(name, len, &n) != TP_NDN_E_OK ||
	    tp_ndn_name_to_uri(&n, uri, sizeof(uri)) < 0)
		snprintf(uri, sizeof(uri), "/");
	tp_out_str(o, "prefix", uri);
	tp_out_u64(o, "face", face);
	tp_out_u64(o, "origin", origin);
	tp_out_u64(o, "cost", cost);
	tp_out_u64(o, "flags", flags);
	uint64_t now = tp_ctl_now_ms();
	if (expires_ms)
		tp_out_u64(o, "expires_in_ms", expires_ms > now ? expires_ms - now : 0);
}

static int rib_show(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	int ret = need_enabled(ctx);

	(void)argc;
	(void)argv;
	if (ret < 0)
		return ret;
	ndn_rib_walk(rib_show_one, tp_out_list(ctx->out, "routes"));
	return 0;
}

/* ndn strategy set PREFIX NAME [probing-interval MS]: NAME ours or NFD's */
static int strategy_set(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	uint8_t name[TP_NDN_NAME_MAX_LEN];
	int len, ret = need_enabled(ctx);
	enum ndn_strategy s;
	uint32_t probe = 0;

	if (ret < 0)
		return ret;
	if (argc != 2 && !(argc == 4 && strcmp(argv[2], "probing-interval") == 0))
		return tp_cmd_err(ctx, EINVAL,
				  "ndn strategy set: usage: ndn strategy set PREFIX "
				  "best-route|multicast|asf [probing-interval MS]");
	if ((len = parse_name(ctx, "ndn strategy set", argv[0], name)) < 0)
		return len;
	if ((ret = ndn_strategy_parse(argv[1], &s, &probe)) < 0)
		return tp_cmd_err(ctx, EINVAL,
				  ret == -ENOENT
				      ? "ndn strategy set: unknown strategy '%s' (best-route, "
					"multicast, asf)"
				      : "ndn strategy set: bad strategy parameters in '%s'",
				  argv[1]);
	if (argc == 4) {
		char *end;
		unsigned long v = strtoul(argv[3], &end, 10);
		if (s != NDN_STRATEGY_ASF)
			return tp_cmd_err(ctx, EINVAL,
					  "ndn strategy set: probing-interval is asf's parameter");
		if (*end || end == argv[3] || v < NDN_ASF_PROBE_MIN_MS || v > UINT32_MAX)
			return tp_cmd_err(ctx, EINVAL,
					  "ndn strategy set: probing-interval: '%s' is not a "
					  "number of milliseconds, %u or more",
					  argv[3], NDN_ASF_PROBE_MIN_MS);
		probe = (uint32_t)v;
	}
	if ((ret = ndn_fib_strategy_set(name, (uint16_t)len, s, probe)) < 0)
		return tp_cmd_err(ctx, -ret, "ndn strategy set: %s",
				  ret == -ENOSPC ? "the strategy choice table is full (64 prefixes)"
						 : strerror(-ret));
	return 0;
}

static int strategy_unset(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	uint8_t name[TP_NDN_NAME_MAX_LEN];
	int len, ret = need_enabled(ctx);

	if (ret < 0)
		return ret;
	if (argc != 1)
		return tp_cmd_err(ctx, EINVAL,
				  "ndn strategy unset: usage: ndn strategy unset PREFIX");
	if ((len = parse_name(ctx, "ndn strategy unset", argv[0], name)) < 0)
		return len;
	ret = ndn_fib_strategy_unset(name, (uint16_t)len);
	if (ret == -EINVAL)
		return tp_cmd_err(ctx, EINVAL,
				  "ndn strategy unset: '/' has a strategy always (set it instead)");
	if (ret == -ENOENT)
		return tp_cmd_err(ctx, ENOENT, "ndn strategy unset: no strategy chosen for %s",
				  argv[0]);
	if (ret < 0)
		return tp_cmd_err(ctx, -ret, "ndn strategy unset: %s", strerror(-ret));
	return 0;
}

static void strategy_show_one(const uint8_t *name, uint16_t len, enum ndn_strategy s,
			      uint32_t probe_ms, void *arg)
{
	struct tp_node *o = tp_out_obj(arg, NULL);
	struct tp_ndn_name n;
	char uri[512];

	if (len == 0 || tp_ndn_name_decode(name, len, &n) != TP_NDN_E_OK ||
	    tp_ndn_name_to_uri(&n, uri, sizeof(uri)) < 0)
		snprintf(uri, sizeof(uri), "/");
	tp_out_str(o, "prefix", uri);
	tp_out_str(o, "strategy", ndn_strategy_names[s]);
	if (s == NDN_STRATEGY_ASF)
		tp_out_u64(o, "probing_interval_ms", probe_ms ? probe_ms : NDN_ASF_PROBE_MS);
}

static int strategy_show(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	int ret = need_enabled(ctx);

	(void)argc;
	(void)argv;
	if (ret < 0)
		return ret;
	ndn_fib_strategy_walk(strategy_show_one, tp_out_list(ctx->out, "strategies"));
	return 0;
}

static void listener_out(const char *uri, unsigned int conns, uint64_t accepted, uint64_t refused,
			 void *arg)
{
	struct tp_node *o = tp_out_obj(arg, NULL);

	tp_out_str(o, "uri", uri);
	tp_out_u64(o, "connections", conns);
	tp_out_u64(o, "accepted", accepted);
	tp_out_u64(o, "refused", refused);
}

static int show(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	tp_out_bool(ctx->out, "enabled", ndn_conf.enabled);
	if (!ndn_conf.enabled)
		return 0;
	struct tp_node *c = tp_out_obj(ctx->out, "config");
	tp_out_u64(c, "ndt_comps", ndn_conf.ndt_comps);
	tp_out_u64(c, "ndt_entries", 1u << ndn_conf.ndt_bits);
	tp_out_u64(c, "pit_capacity", ndn_conf.pit_capacity);
	tp_out_u64(c, "cs_capacity", ndn_conf.cs_capacity);
	tp_out_u64(c, "interest_queue", ndn_conf.queue[0]);
	tp_out_u64(c, "data_queue", ndn_conf.queue[1]);
	tp_out_u64(c, "nack_queue", ndn_conf.queue[2]);
	tp_out_str(c, "queues", ndn_conf.shared_queue ? "shared" : "separate");
	tp_out_u64(c, "output_queue", ndn_conf.out_queue);
	tp_out_u64(c, "output_lcores", ndn_conf.n_out);
	unsigned int faces = 0;
	for (unsigned int i = 0; i < NDN_FACES_MAX; i++)
		faces += ndn_faces[i].up;
	tp_out_u64(ctx->out, "faces", faces);
	tp_out_u64(ctx->out, "fib_entries", ndn_fib_count());
	struct ndn_fwd_stats tot = {0};
	uint64_t pit = 0, cs = 0, pcc = 0;
	struct tp_node *l = tp_out_list(ctx->out, "forwarding");
	for (unsigned int i = 0; i < ndn_conf.n_fwd; i++) {
		const struct ndn_fwd *f = ndn_fwd[i];
		struct tp_node *o = tp_out_obj(l, NULL);
		tp_out_u64(o, "index", i);
		tp_out_u64(o, "lcore", tp.workers[f->worker]->lcore);
		tp_out_u64(o, "pit_entries", f->pit_used);
		tp_out_u64(o, "cs_entries", f->cs_used);
		tp_out_u64(o, "pcct_entries", f->pcc_used);
		pit += f->pit_used;
		cs += f->cs_used;
		pcc += f->pcc_used;
#define X(x)                                                                                       \
	tp_out_u64(o, #x, f->st.x);                                                                \
	tot.x += f->st.x;
		NDN_FWD_STATS(X)
#undef X
	}
	tp_out_u64(ctx->out, "pit_entries", pit);
	tp_out_u64(ctx->out, "cs_entries", cs);
	tp_out_u64(ctx->out, "pcct_entries", pcc);
	struct tp_node *t = tp_out_obj(ctx->out, "totals");
#define X(x) tp_out_u64(t, #x, tot.x);
	NDN_FWD_STATS(X)
#undef X
	struct tp_node *m = tp_out_obj(ctx->out, "management");
	tp_out_bool(m, "localhop_enabled", ndn_mgmt_localhop_enabled());
	for (unsigned int i = 0; i < NDN_M_MAX; i++)
		tp_out_u64(m, ndn_mgmt_ctr_names[i], ndn_mgmt_ctr[i]);
	struct tp_node *st = tp_out_obj(ctx->out, "streams");
	for (unsigned int i = 0; i < NDN_S_MAX; i++)
		tp_out_u64(st, ndn_stream_ctr_names[i], ndn_stream_ctr[i]);
	ndn_stream_listeners(listener_out, tp_out_list(st, "listeners"));
	struct tp_node *lim = tp_out_obj(ctx->out, "limits");
	for (unsigned int j = 0; j < RTE_DIM(limit_opts); j++)
		tp_out_u64(lim, limit_opts[j].key, *limit_opts[j].dst);
	return 0;
}

/* s's figures into o: the object 'show ndn chains' gives per table */
static void chains_out(struct tp_node *o, const struct ndn_chain_stats *s)
{
	tp_out_u64(o, "buckets", s->buckets);
	tp_out_u64(o, "entries", s->entries);
	tp_out_u64(o, "used_buckets", s->buckets - s->by_len[0]);
	tp_out_u64(o, "longest_chain", s->longest);
	tp_out_dbl(o, "mean_hit_walk", s->entries ? (double)s->hit_walk / s->entries : 0.0);
	struct tp_node *h = tp_out_list(o, "chains");
	for (unsigned int k = 0; k < NDN_CHAIN_HIST; k++) {
		if (s->by_len[k] == 0)
			continue;
		struct tp_node *e = tp_out_obj(h, NULL);
		tp_out_u64(e, k + 1 < NDN_CHAIN_HIST ? "length" : "length_at_least", k);
		tp_out_u64(e, "buckets", s->by_len[k]);
	}
}

/* show ndn chains: the hash chains of each context's PCCT and of the FIB, walked
 * here, on the control plane (review N4: how long a lookup walks, as names land) */
static int chains_show(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct ndn_chain_stats s;
	int ret = need_enabled(ctx);

	(void)argv;
	if (ret < 0)
		return ret;
	if (argc != 0)
		return tp_cmd_err(ctx, EINVAL, "show ndn chains: no arguments");
	struct tp_node *l = tp_out_list(ctx->out, "pcct");
	for (unsigned int i = 0; i < ndn_conf.n_fwd; i++) {
		const struct ndn_fwd *f = ndn_fwd[i];
		struct tp_node *o = tp_out_obj(l, NULL);
		tp_out_u64(o, "index", i);
		tp_out_u64(o, "lcore", tp.workers[f->worker]->lcore);
		tp_out_u64(o, "pcct_entries", __atomic_load_n(&f->pcc_used, __ATOMIC_RELAXED));
		ndn_pcct_chains(f, &s);
		tp_out_bool(o, "torn", s.torn);
		chains_out(o, &s);
	}
	ndn_fib_chains(&s);
	chains_out(tp_out_obj(ctx->out, "fib"), &s);
	return 0;
}

static int telemetry_set(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	uint64_t v;

	if (argc != 2 || strcmp(argv[0], "sample") != 0 ||
	    tp_parse_u64(argv[1], 0, 1u << 20, &v) < 0)
		return tp_cmd_err(
		    ctx, EINVAL,
		    "ndn telemetry: usage: ndn telemetry sample N (1 packet in N at random "
		    "timed, 0-1048576, 0: off)");
	for (unsigned int i = 0; i < tp.n_workers; i++)
		ndn_lcore(tp.workers[i])->tel.countdown = (uint32_t)(v ? v : 1);
	__atomic_store_n(&ndn_tel_every, (uint32_t)v, __ATOMIC_RELEASE);
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static int telemetry_show(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	static uint32_t raw[TP_MAX_WORKERS * NDN_TEL_RAW];
	bool with_raw = argc == 1 && strcmp(argv[0], "raw") == 0;

	if (argc > 1 || (argc == 1 && !with_raw))
		return tp_cmd_err(ctx, EINVAL,
				  "show ndn telemetry: usage: show ndn telemetry [raw]");
	tp_out_u64(ctx->out, "sample_every", ndn_tel_every);
	tp_out_u64(ctx->out, "tsc_hz", tp.tsc_hz);
	struct tp_node *stages = tp_out_obj(ctx->out, "stages");
	for (unsigned int st = 0; st < NDN_ST_MAX; st++) {
		uint64_t n = 0, sum = 0, hist[NDN_TEL_BUCKETS] = {0};
		unsigned int nr = 0;
		for (unsigned int i = 0; i < tp.n_workers; i++) {
			const struct ndn_tel *t = &ndn_lcore(tp.workers[i])->tel;
			uint64_t tn = __atomic_load_n(&t->n[st], __ATOMIC_RELAXED);
			n += tn;
			sum += t->sum[st];
			for (unsigned int b = 0; b < NDN_TEL_BUCKETS; b++)
				hist[b] += t->hist[st][b];
			for (uint64_t k = 0; k < RTE_MIN(tn, (uint64_t)NDN_TEL_RAW); k++)
				raw[nr++] = t->raw[st][k];
		}
		struct tp_node *o = tp_out_obj(stages, ndn_stage_names[st]);
		tp_out_u64(o, "samples", n);
		if (n == 0)
			continue;
		qsort(raw, nr, sizeof(raw[0]), cmp_u32);
		tp_out_dbl(o, "mean_cycles", (double)sum / (double)n);
		tp_out_u64(o, "p50_cycles", raw[nr / 2]);
		tp_out_u64(o, "p90_cycles", raw[nr * 9 / 10]);
		tp_out_u64(o, "p99_cycles", raw[nr * 99 / 100]);
		tp_out_u64(o, "max_recent_cycles", raw[nr - 1]);
		struct tp_node *h = tp_out_list(o, "histogram");
		for (unsigned int b = 0; b < NDN_TEL_BUCKETS; b++)
			if (hist[b]) {
				struct tp_node *e = tp_out_obj(h, NULL);
				tp_out_u64(e, "le_cycles", b ? (1ull << b) - 1 : 0);
				tp_out_u64(e, "count", hist[b]);
			}
		if (with_raw) {
			struct tp_node *r = tp_out_list(o, "raw_cycles");
			for (unsigned int k = 0; k < nr; k++)
				tp_out_u64(r, NULL, raw[k]);
		}
	}
	return 0;
}

static struct tp_cmd c_enable = {
    "ndn enable",
    "[ndt-comps N] [ndt-bits N] [pit-capacity N] [cs-capacity N] "
    "[interest-queue N] [data-queue N] [nack-queue N] [output-queue N] "
    "[queues separate|shared]",
    "start the NDN forwarder", enable, NULL};
static struct tp_cmd c_face_add = {"ndn face add",
				   "udp A.B.C.D[:PORT] [local] | ether PORT [remote MAC] [local]",
				   "add a face", face_add, NULL};
static struct tp_cmd c_face_del = {"ndn face del", "ID", "remove a face and its routes", face_del,
				   NULL};
static struct tp_cmd c_face_accept = {"ndn face accept", "udp A.B.C.D/LEN",
				      "make a UDP face for the first packet from this network",
				      face_accept, NULL};
static struct tp_cmd c_face_listen = {
    "ndn face listen", "unix [PATH] [mode OCTAL] [group GID] | tcp A.B.C.D[:PORT]",
    "accept NDN applications: a face per connection (PATH: /run/nfd/nfd.sock, PORT: 6363)",
    face_listen, NULL};
static struct tp_cmd c_face_show = {"ndn face show", NULL, "faces and their counters", face_show,
				    NULL};
static struct tp_cmd c_faces = {"show ndn faces", NULL, "faces and their counters", face_show,
				NULL};
static struct tp_cmd c_fib_add = {"ndn fib add", "PREFIX face ID [cost N]",
				  "a static route (origin 255)", fib_add, NULL};
static struct tp_cmd c_fib_del = {"ndn fib del", "PREFIX [face ID]",
				  "remove the routes of a prefix (any origin)", fib_del, NULL};
static struct tp_cmd c_fib_show = {"ndn fib show", NULL, "FIB entries with their counters",
				   fib_show, NULL};
static struct tp_cmd c_rib_show = {"ndn rib show", NULL, "routes by origin", rib_show, NULL};
static struct tp_cmd c_strategy = {
    "ndn strategy set", "PREFIX best-route|multicast|asf [probing-interval MS]",
    "the strategy of a namespace (NFD's names too: /localhost/nfd/strategy/best-route)",
    strategy_set, NULL};
static struct tp_cmd c_strategy_unset = {"ndn strategy unset", "PREFIX",
					 "the namespace takes its parent's strategy",
					 strategy_unset, NULL};
static struct tp_cmd c_strategy_show = {"show ndn strategy", NULL,
					"the strategy choice table (longest prefix wins)",
					strategy_show, NULL};
static struct tp_cmd c_show = {"show ndn", NULL, "PIT and CS occupancy, forwarding counters", show,
			       NULL};
static struct tp_cmd c_chains = {
    "show ndn chains", NULL,
    "hash chains of each context's PIT-CS table and of the FIB: buckets by chain length",
    chains_show, NULL};
static struct tp_cmd c_tel = {"ndn telemetry", "sample N",
			      "time 1 packet in N (at random) through each stage (0: off)",
			      telemetry_set, NULL};
static struct tp_cmd c_tel_show = {"show ndn telemetry", "[raw]",
				   "per-stage latency: percentiles, histogram, recent samples",
				   telemetry_show, NULL};
static struct tp_cmd c_limits = {
    "ndn limits",
    "[face-idle-timeout S] [face-routes N] [mgmt-rate N] [mgmt-burst N] [expiration-max S] "
    "[pit-face-share PERCENT] [interest-lifetime-max MS] [stream-conns N] "
    "[stream-send-queue BYTES]",
    "what outsiders may hold: on-demand face idle timeout, routes per remote face, "
    "management commands per second, PIT share per face, InterestLifetime cap, "
    "connections per stream listener, a stream face's send queue",
    limits, NULL};
static struct tp_cmd c_localhop = {
    "ndn localhop", "enable key HEX | disable",
    "accept /localhop/nfd commands signed with this HMAC-SHA256 key (off by default)", localhop_cmd,
    NULL};
TP_CMD_REGISTER(c_limits)
TP_CMD_REGISTER(c_localhop)
TP_CMD_REGISTER(c_tel)
TP_CMD_REGISTER(c_tel_show)
TP_CMD_REGISTER(c_enable)
TP_CMD_REGISTER(c_face_add)
TP_CMD_REGISTER(c_face_del)
TP_CMD_REGISTER(c_face_accept)
TP_CMD_REGISTER(c_face_show)
TP_CMD_REGISTER(c_face_listen)
TP_CMD_REGISTER(c_faces)
TP_CMD_REGISTER(c_fib_add)
TP_CMD_REGISTER(c_fib_del)
TP_CMD_REGISTER(c_fib_show)
TP_CMD_REGISTER(c_rib_show)
TP_CMD_REGISTER(c_strategy)
TP_CMD_REGISTER(c_strategy_unset)
TP_CMD_REGISTER(c_strategy_show)
TP_CMD_REGISTER(c_show)
TP_CMD_REGISTER(c_chains)

/* The metrics page: the forwarding contexts' tables (read as 'show ndn' does), the FIB,
 * the faces, what each forwarding lcore counted. */
void ndn_metrics(struct tp_metrics *m)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} tables[] = {
	    {"twinplane_ndn_pit_entries", "PIT entries of a forwarding lcore",
	     offsetof(struct ndn_fwd, pit_used)},
	    {"twinplane_ndn_cs_entries", "CS entries of a forwarding lcore",
	     offsetof(struct ndn_fwd, cs_used)},
	    {"twinplane_ndn_pcct_entries", "PCCT entries (PIT and CS) of a forwarding lcore",
	     offsetof(struct ndn_fwd, pcc_used)},
	};
	unsigned int faces = 0;
	char lc[16];

	for (size_t k = 0; k < RTE_DIM(tables); k++) {
		tp_metrics_family(m, tables[k].name, "gauge", tables[k].help);
		for (unsigned int i = 0; i < ndn_conf.n_fwd; i++) {
			const struct ndn_fwd *f = ndn_fwd[i];
			const uint32_t *v = (const uint32_t *)((const char *)f + tables[k].off);
			snprintf(lc, sizeof(lc), "%u", tp.workers[f->worker]->lcore);
			tp_metrics_u64(m, tables[k].name, __atomic_load_n(v, __ATOMIC_RELAXED),
				       "lcore", lc, NULL);
		}
	}
	tp_metrics_family(m, "twinplane_ndn_pit_capacity", "gauge",
			  "PIT entries a forwarding lcore may hold");
	tp_metrics_u64(m, "twinplane_ndn_pit_capacity", ndn_conf.pit_capacity, NULL);
	tp_metrics_family(m, "twinplane_ndn_cs_capacity", "gauge",
			  "CS entries a forwarding lcore may hold");
	tp_metrics_u64(m, "twinplane_ndn_cs_capacity", ndn_conf.cs_capacity, NULL);
	tp_metrics_family(m, "twinplane_ndn_fib_entries", "gauge", "Entries of the NDN FIB");
	tp_metrics_u64(m, "twinplane_ndn_fib_entries", ndn_fib_count(), NULL);
	for (unsigned int i = 0; i < NDN_FACES_MAX; i++)
		faces += ndn_faces[i].up;
	tp_metrics_family(m, "twinplane_ndn_faces", "gauge", "NDN faces up");
	tp_metrics_u64(m, "twinplane_ndn_faces", faces, NULL);
	tp_metrics_family(m, "twinplane_ndn_forwarding_total", "counter",
			  "What a forwarding lcore did, by event ('show ndn' totals)");
	for (unsigned int i = 0; i < ndn_conf.n_fwd; i++) {
		const struct ndn_fwd *f = ndn_fwd[i];
		snprintf(lc, sizeof(lc), "%u", tp.workers[f->worker]->lcore);
#define X(x)                                                                                       \
	tp_metrics_u64(m, "twinplane_ndn_forwarding_total",                                        \
		       __atomic_load_n(&f->st.x, __ATOMIC_RELAXED), "lcore", lc, "event", #x,      \
		       NULL);
		NDN_FWD_STATS(X)
#undef X
	}
}
