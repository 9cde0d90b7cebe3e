#!/usr/bin/env bash
# Build DPDK's own l3fwd example (the baseline of bench/fwd_cost.py).
#
#   scripts/build-l3fwd.sh [OUTDIR]        (default OUTDIR: build/l3fwd)
#
# The source comes from Debian's dpdk-doc package
# (/usr/share/dpdk/examples/l3fwd, plus ../common which l3fwd includes). It
# is copied to build/l3fwd-src/ and patched. First patch: stock l3fwd
# asks for RTE_ETH_RX_OFFLOAD_CHECKSUM (and may ask for tx offloads) and
# rte_eth_dev_configure() refuses offloads the port lacks, which is every
# offload on net_pcap/net_null. The patch masks the requested rx/tx offloads
# with dev_info.rx_offload_capa/tx_offload_capa and prints what it dropped.
# Nothing else in the forwarding path changes.
#
# A second patch (for bench/rfc2544_ip4.py) adds busy-cycle accounting to the
# LPM main loop, with the definition of twinplane's `show workers`: the TSC
# cycles of loop iterations that received packets (top of the iteration to
# its end), plus polls, busy polls and packets received, per lcore. Read it
# through DPDK telemetry, `/l3fwd/busy` (lcores summed) or `/l3fwd/busy,LCORE`;
# each lcore also prints its totals when its loop ends (SIGINT). Cost: a few
# additions per loop iteration next to l3fwd's own rdtsc.
#
# Third: the instruction set. Debian's libdpdk.pc says -march=corei7; the Makefile
# gets twinplane's instead, so that both are built for the same CPU: meson's
# cpu_instruction_set option, read from $TP_BUILD_DIR (default build/) if it is set
# up, else meson_options.txt's default (x86-64-v2); $TP_CPU_INSTRUCTION_SET overrides.
#
# Output: OUTDIR/dpdk-l3fwd. Idempotent: the copy is refreshed only when the
# patched source differs, and make rebuilds only what changed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
EXAMPLES="${DPDK_EXAMPLES:-/usr/share/dpdk/examples}"
SRC_ROOT="$ROOT/build/l3fwd-src"
OUTDIR="${1:-$ROOT/build/l3fwd}"
case "$OUTDIR" in /*) ;; *) OUTDIR="$PWD/$OUTDIR" ;; esac

if [ ! -f "$EXAMPLES/l3fwd/main.c" ]; then
    echo "build-l3fwd: $EXAMPLES/l3fwd/main.c not found (apt-get install dpdk-doc)" >&2
    exit 1
fi
if ! pkg-config --exists libdpdk; then
    echo "build-l3fwd: pkg-config finds no libdpdk (apt-get install libdpdk-dev)" >&2
    exit 1
fi

isa_of_build() {
    python3 - "${TP_BUILD_DIR:-$ROOT/build}" "$ROOT/meson_options.txt" <<'EOF'
import json, re, sys
try:
    with open(sys.argv[1] + "/meson-info/intro-buildoptions.json") as f:
        print(next(o["value"] for o in json.load(f) if o["name"] == "cpu_instruction_set"))
except (OSError, StopIteration):
    text = open(sys.argv[2]).read()
    print(re.search(r"option\('cpu_instruction_set'[^)]*value: '([^']*)'", text).group(1))
EOF
}
isa="${TP_CPU_INSTRUCTION_SET-$(isa_of_build)}"
march=""
[ -z "$isa" ] || march="-march=$isa"

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
# l3fwd's Makefile adds -I../common: keep that layout.
cp -r "$EXAMPLES/l3fwd" "$stage/l3fwd"
cp -r "$EXAMPLES/common" "$stage/common"
chmod -R u+w "$stage"

main="$stage/l3fwd/main.c"
anchor_port='		if (dev_info.max_rx_queues == 1)'
anchor_rxq='			rxq_conf.offloads = port_conf.rxmode.offloads;'
if [ "$(grep -cxF "$anchor_port" "$main")" != 1 ] ||
   [ "$(grep -cxF "$anchor_rxq" "$main")" != 1 ]; then
    echo "build-l3fwd: main.c does not look like DPDK 22.11's l3fwd; patch anchors not found" >&2
    exit 1
fi

python3 - "$main" "$anchor_port" "$anchor_rxq" <<'EOF'
import sys
path, anchor_port, anchor_rxq = sys.argv[1:4]
src = open(path).read()
mask = '''\t\t/* twinplane bench: mask requested offloads to the port's capabilities */
\t\t{
\t\t\tuint64_t req_rx = local_port_conf.rxmode.offloads;
\t\t\tuint64_t req_tx = local_port_conf.txmode.offloads;

\t\t\tlocal_port_conf.rxmode.offloads &= dev_info.rx_offload_capa;
\t\t\tlocal_port_conf.txmode.offloads &= dev_info.tx_offload_capa;
\t\t\tif (req_rx != local_port_conf.rxmode.offloads)
\t\t\t\tprintf("Port %u: masked rx offloads %#"PRIx64
\t\t\t\t       " (requested %#"PRIx64", capa %#"PRIx64")\\n",
\t\t\t\t       portid, req_rx & ~dev_info.rx_offload_capa,
\t\t\t\t       req_rx, dev_info.rx_offload_capa);
\t\t\tif (req_tx != local_port_conf.txmode.offloads)
\t\t\t\tprintf("Port %u: masked tx offloads %#"PRIx64
\t\t\t\t       " (requested %#"PRIx64", capa %#"PRIx64")\\n",
\t\t\t\t       portid, req_tx & ~dev_info.tx_offload_capa,
\t\t\t\t       req_tx, dev_info.tx_offload_capa);
\t\t}

'''
src = src.replace(anchor_port + '\n', mask + anchor_port + '\n', 1)
src = src.replace(anchor_rxq,
    '\t\t\t/* twinplane bench: per-queue offloads masked like the port\'s */\n'
    '\t\t\trxq_conf.offloads = port_conf.rxmode.offloads &\n'
    '\t\t\t\tdev_info.rx_offload_capa;', 1)
open(path, 'w').write(src)
EOF

echo "build-l3fwd: patched main.c (rx/tx offloads masked with dev_info capabilities):"
diff -u "$EXAMPLES/l3fwd/main.c" "$main" | sed -n 's/^\([+-]\)\([^+-]\)/  \1\2/p' || true

# Second patch: busy-cycle accounting in lpm_main_loop, read via telemetry.
lpm="$stage/l3fwd/l3fwd_lpm.c"
python3 - "$lpm" <<'EOF'
import sys
path = sys.argv[1]
src = open(path).read()
decl_anchor = '/* main processing loop */\nint\nlpm_main_loop(__rte_unused void *dummy)\n{'
loop_head = '\twhile (!force_quit) {\n'
rx_skip = ('\t\t\tnb_rx = rte_eth_rx_burst(portid, queueid, pkts_burst,\n'
           '\t\t\t\tMAX_PKT_BURST);\n'
           '\t\t\tif (nb_rx == 0)\n'
           '\t\t\t\tcontinue;\n')
loop_tail = '\t\tcur_tsc = rte_rdtsc();\n\t}\n\n\treturn 0;\n}\n'
fn = src.find(decl_anchor)
if fn < 0 or src.count(decl_anchor) != 1:
    sys.exit("build-l3fwd: l3fwd_lpm.c does not look like DPDK 22.11's; busy-cycle patch anchors not found")
head = src.find(loop_head, fn)
rx = src.find(rx_skip, fn)
tail = src.find(loop_tail, fn)
if not (fn < head < rx < tail):
    sys.exit("build-l3fwd: lpm_main_loop anchors not found in order; busy-cycle patch not applied")

decl = r"""/* twinplane bench: busy-cycle accounting (scripts/build-l3fwd.sh).
 * Per lcore: TSC cycles of loop iterations that received packets, counted as
 * twinplane's workers count them; telemetry command /l3fwd/busy[,LCORE]. */
#include <rte_telemetry.h>

struct tp_busy {
	uint64_t busy_cycles;
	uint64_t polls;
	uint64_t busy_polls;
	uint64_t rx;
	uint64_t start_tsc;
} __rte_cache_aligned;

static struct tp_busy tp_busy[RTE_MAX_LCORE];

static int
tp_busy_telemetry(const char *cmd __rte_unused, const char *params,
		struct rte_tel_data *d)
{
	uint64_t busy = 0, polls = 0, busy_polls = 0, rx = 0, total = 0;
	unsigned int lc, n = 0;
	int only = -1;
	const uint64_t now = rte_rdtsc();

	if (params != NULL && *params != '\0') {
		char *end;
		unsigned long v = strtoul(params, &end, 0);

		if (*end != '\0' || v >= RTE_MAX_LCORE)
			return -EINVAL;
		only = (int)v;
	}
	for (lc = 0; lc < RTE_MAX_LCORE; lc++) {
		const volatile struct tp_busy *b = &tp_busy[lc];

		if (b->start_tsc == 0 || (only >= 0 && (int)lc != only))
			continue;
		busy += b->busy_cycles;
		polls += b->polls;
		busy_polls += b->busy_polls;
		rx += b->rx;
		total += now - b->start_tsc;
		n++;
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "lcores", n);
	rte_tel_data_add_dict_u64(d, "busy_cycles", busy);
	rte_tel_data_add_dict_u64(d, "total_cycles", total);
	rte_tel_data_add_dict_u64(d, "polls", polls);
	rte_tel_data_add_dict_u64(d, "busy_polls", busy_polls);
	rte_tel_data_add_dict_u64(d, "rx", rx);
	rte_tel_data_add_dict_u64(d, "tsc_hz", rte_get_tsc_hz());
	return 0;
}

RTE_INIT(tp_busy_register)
{
	rte_telemetry_register_cmd("/l3fwd/busy", tp_busy_telemetry,
		"l3fwd busy-cycle accounting (twinplane bench). Parameters: int lcore_id (optional)");
}

"""
loop_head_new = ('\ttp_busy[lcore_id].start_tsc = cur_tsc;\n'
                 '\twhile (!force_quit) {\n'
                 '\t\tconst uint64_t tp_t0 = cur_tsc; /* twinplane bench */\n'
                 '\t\tunsigned int tp_nrx = 0;\n')
rx_skip_new = rx_skip + '\t\t\ttp_nrx += nb_rx; /* twinplane bench */\n'
loop_tail_new = ('\t\tcur_tsc = rte_rdtsc();\n'
                 '\t\t/* twinplane bench: busy-cycle accounting */\n'
                 '\t\ttp_busy[lcore_id].polls++;\n'
                 '\t\tif (tp_nrx) {\n'
                 '\t\t\ttp_busy[lcore_id].busy_cycles += cur_tsc - tp_t0;\n'
                 '\t\t\ttp_busy[lcore_id].busy_polls++;\n'
                 '\t\t\ttp_busy[lcore_id].rx += tp_nrx;\n'
                 '\t\t}\n'
                 '\t}\n\n'
                 '\tprintf("l3fwd busy: lcore %u polls %" PRIu64 " busy_polls %" PRIu64\n'
                 '\t       " rx %" PRIu64 " busy_cycles %" PRIu64 " total_cycles %" PRIu64\n'
                 '\t       " tsc_hz %" PRIu64 "\\n", lcore_id, tp_busy[lcore_id].polls,\n'
                 '\t       tp_busy[lcore_id].busy_polls, tp_busy[lcore_id].rx,\n'
                 '\t       tp_busy[lcore_id].busy_cycles,\n'
                 '\t       rte_rdtsc() - tp_busy[lcore_id].start_tsc, rte_get_tsc_hz());\n'
                 '\tfflush(stdout);\n'
                 '\treturn 0;\n}\n')
# back to front, so the offsets found above stay valid
src = src[:tail] + loop_tail_new + src[tail + len(loop_tail):]
src = src[:rx] + rx_skip_new + src[rx + len(rx_skip):]
src = src[:head] + loop_head_new + src[head + len(loop_head):]
src = src[:fn] + decl + src[fn:]
open(path, 'w').write(src)
EOF
echo "build-l3fwd: patched l3fwd_lpm.c (busy-cycle accounting in lpm_main_loop, telemetry /l3fwd/busy)"

# Third patch: pkg-config's -march/-mtune out, twinplane's instruction set in (a change of
# it changes the Makefile, which the binary depends on, so make rebuilds)
mk="$stage/l3fwd/Makefile"
grep -qxF 'CFLAGS += -I../common' "$mk" ||
    { echo "build-l3fwd: Makefile does not look like DPDK 22.11's l3fwd's" >&2; exit 1; }
{
    echo
    echo "# twinplane bench: the instruction set of twinplane's build (cpu_instruction_set)"
    echo "CFLAGS := \$(filter-out -march=% -mtune=%,\$(CFLAGS)) $march"
} >> "$mk"
echo "build-l3fwd: patched Makefile: ${march:-no -march} instead of libdpdk.pc's"

mkdir -p "$SRC_ROOT"
if diff -rq -x build "$stage/l3fwd" "$SRC_ROOT/l3fwd" >/dev/null 2>&1 &&
   diff -rq "$stage/common" "$SRC_ROOT/common" >/dev/null 2>&1; then
    echo "build-l3fwd: $SRC_ROOT up to date"
else
    echo "build-l3fwd: refreshing $SRC_ROOT"
    rm -rf "$SRC_ROOT/l3fwd" "$SRC_ROOT/common"
    cp -r "$stage/l3fwd" "$SRC_ROOT/l3fwd"
    cp -r "$stage/common" "$SRC_ROOT/common"
fi

make -C "$SRC_ROOT/l3fwd" -j"$(nproc)" shared
mkdir -p "$OUTDIR"
bin="$SRC_ROOT/l3fwd/build/l3fwd-shared"
if ! cmp -s "$bin" "$OUTDIR/dpdk-l3fwd"; then
    cp "$bin" "$OUTDIR/dpdk-l3fwd.tmp"
    mv "$OUTDIR/dpdk-l3fwd.tmp" "$OUTDIR/dpdk-l3fwd"
fi
cflags=$(make -s -C "$SRC_ROOT/l3fwd" --eval 'tp-cflags: ; @echo $(CFLAGS)' tp-cflags)
echo "build-l3fwd: $OUTDIR/dpdk-l3fwd (DPDK $(pkg-config --modversion libdpdk), CFLAGS: $cflags)"
