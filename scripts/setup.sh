#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set up a fresh Debian 12 machine (as root) for twinplane: packages, the Python
# venv, hugepages, and the build. Idempotent: run it as often as you like.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PKGS=(dpdk libdpdk-dev dpdk-dev dpdk-doc meson ninja-build pkg-config gcc libc6-dev
          libmnl-dev libcmocka-dev frr iproute2 ethtool libpcap-dev libelf-dev
          python3-venv python3-dev iputils-ping procps curl wget clang libclang-rt-14-dev tcpdump
          clang-format openvswitch-switch-dpdk iperf3 nginx nftables)
PIP_PKGS=(pytest pytest-timeout pytest-rerunfailures scapy pyroute2 numpy matplotlib acmecse aiocoap python-ndn scipy statsmodels stormpy ruff MLRsearch==1.2.1)

if [ "$(id -u)" -ne 0 ]; then
    echo "setup.sh: run as root (it installs packages and reserves hugepages)" >&2
    exit 1
fi

missing=()
for p in "${APT_PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup.sh: installing ${missing[*]}"
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
    echo "setup.sh: packages took ${SECONDS} s"
fi

if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
if ! .venv/bin/python -c "import pytest, pytest_timeout, pytest_rerunfailures, scapy, pyroute2, numpy, matplotlib, acmecse, aiocoap, ndn, scipy, statsmodels, stormpy, MLRsearch" 2>/dev/null ||
   [ ! -x .venv/bin/ruff ]; then
    # uv (from PyPI) downloads and installs in parallel: pip alone took 7 minutes of a
    # fresh CI run; pip stays the fallback
    .venv/bin/pip install -q --disable-pip-version-check uv &&
        .venv/bin/uv pip install -q --python .venv/bin/python "${PIP_PKGS[@]}" ||
        .venv/bin/pip install -q --disable-pip-version-check "${PIP_PKGS[@]}"
    echo "setup.sh: venv ready at ${SECONDS} s"
fi

# 2 MiB hugepages: 1 GiB, enough for the daemon, a generator and l3fwd side by side
want=${TP_HUGEPAGES:-512}
have=$(cat /proc/sys/vm/nr_hugepages)
if [ "$have" -lt "$want" ]; then
    echo "$want" > /proc/sys/vm/nr_hugepages || true
fi
if ! grep -q " /dev/hugepages hugetlbfs " /proc/mounts; then
    mkdir -p /dev/hugepages
    mount -t hugetlbfs nodev /dev/hugepages || echo "setup.sh: warning: cannot mount hugetlbfs; twinplane will run with --no-huge" >&2
fi
echo "setup.sh: hugepages: $(cat /proc/sys/vm/nr_hugepages) x 2 MiB"

# warnings are errors in CI (STYLE.md 7); a local build only shows them
if [ ! -f build/build.ninja ]; then
    meson setup build --buildtype=release ${CI:+-Dwerror=true}
elif [ -n "${CI:-}" ]; then
    meson configure build -Dwerror=true
fi
t0=$SECONDS
ninja -C build
echo "setup.sh: build took $((SECONDS - t0)) s"
