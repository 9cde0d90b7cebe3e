#!/usr/bin/env bash
# Build DPDK's own l3fwd example (the baseline of bench/fwd_cost.py).
#
#   scripts/build-l3fwd.sh [OUTDIR]        (default OUTDIR: build/l3fwd)
#
# The source comes from Debian's dpdk-doc package
# (/usr/share/dpdk/examples/l3fwd, plus ../common which l3fwd includes). It
# is copied to build/l3fwd-src/ and patched in one respect only: stock l3fwd
# asks for RTE_ETH_RX_OFFLOAD_CHECKSUM (and may ask for tx offloads) and
# rte_eth_dev_configure() refuses offloads the port lacks, which is every
# offload on net_pcap/net_null. The patch masks the requested rx/tx offloads
# with dev_info.rx_offload_capa/tx_offload_capa and prints what it dropped.
# Nothing else in the forwarding path changes.
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
echo "build-l3fwd: $OUTDIR/dpdk-l3fwd (DPDK $(pkg-config --modversion libdpdk), CFLAGS: -O3 $(pkg-config --cflags-only-other libdpdk | tr -s ' '))"
