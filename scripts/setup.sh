#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set up a fresh Debian 12 machine (as root) for twinplane: packages, the Python
# venv, hugepages, and the build. Idempotent: run it as often as you like.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PKGS=(dpdk libdpdk-dev dpdk-dev dpdk-doc meson ninja-build pkg-config gcc libc6-dev
          libmnl-dev libcmocka-dev frr iproute2 ethtool libpcap-dev libelf-dev
          python3-venv python3-dev iputils-ping procps curl wget clang libclang-rt-14-dev tcpdump
          clang-format openvswitch-switch-dpdk iperf3 nginx nftables prometheus)
# The Python dependencies are pyproject.toml's, the one list: the package is installed
# from it (editable, with [dev]) below.

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
# Up to date when every requirement of pyproject.toml ([dev] included) is installed at
# its pinned version and the twinplane package is installed editable from this tree.
venv_current() {
    .venv/bin/python - <<'PY'
import json, pathlib, re, sys, tomllib
from importlib import metadata

project = tomllib.loads(pathlib.Path("pyproject.toml").read_text())["project"]
for req in project["dependencies"] + project["optional-dependencies"]["dev"]:
    name, pin = re.match(r"\s*([A-Za-z0-9._-]+)\s*(?:==\s*(\S+))?", req).groups()
    try:
        have = metadata.version(name)
    except metadata.PackageNotFoundError:
        sys.exit(f"{name} missing")
    if pin and have != pin:
        sys.exit(f"{name} {have}, want {pin}")
try:
    url = json.loads(metadata.distribution("twinplane").read_text("direct_url.json") or "{}")
except metadata.PackageNotFoundError:
    sys.exit("twinplane missing")
if url.get("url") != pathlib.Path.cwd().as_uri() or not url.get("dir_info", {}).get("editable"):
    sys.exit("twinplane not installed editable from here")
PY
}
if ! venv_current 2>/dev/null; then
    # uv (from PyPI) downloads and installs in parallel: pip alone took 7 minutes of a
    # fresh CI run; pip stays the fallback
    .venv/bin/pip install -q --disable-pip-version-check uv &&
        .venv/bin/uv pip install -q --python .venv/bin/python -e '.[dev]' ||
        .venv/bin/pip install -q --disable-pip-version-check -e '.[dev]'
    venv_current || { echo "setup.sh: the venv does not match pyproject.toml" >&2; exit 1; }
    echo "setup.sh: venv ready at ${SECONDS} s"
fi

# NDNts, the second NDN stack of the integration tests (tests/ndnts: its @ndn packages
# pinned in package.json and package-lock.json): installed with npm ci into
# tests/ndnts/node_modules when Node is here (the image's Node 20; never Debian's
# nodejs 18, which NDNts does not support). Up to date when the lock installed is this
# one (its hash, kept beside the packages). Without Node, test_ndn_ndnts.py skips.
ndnts=tests/ndnts
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "setup.sh: WARNING: node or npm not found: the NDNts peers are NOT installed and" \
        "tests/integration/test_ndn_ndnts.py will skip (install Node 20 or later)" >&2
elif [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 20 ]; then
    echo "setup.sh: WARNING: node $(node --version) is older than 20: the NDNts peers are" \
        "NOT installed and tests/integration/test_ndn_ndnts.py will skip" >&2
else
    lock=$(sha256sum "$ndnts/package-lock.json" | cut -d' ' -f1)
    if [ "$(cat "$ndnts/node_modules/.tp-lock-sha256" 2>/dev/null)" != "$lock" ]; then
        # no package's install scripts run (none needs one): root runs this
        npm ci --prefix "$ndnts" --ignore-scripts --no-audit --no-fund --loglevel=error
        echo "$lock" > "$ndnts/node_modules/.tp-lock-sha256"
        echo "setup.sh: NDNts peers installed (node $(node --version)) at ${SECONDS} s"
    fi
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

# warnings are errors in every build (STYLE.md 7; meson.build's werror=true), a tree set
# up before that became the default is switched over
if [ ! -f build/build.ninja ]; then
    meson setup build --buildtype=release --werror
elif ! grep -q -- '-Werror' build/build.ninja; then
    meson configure build -Dwerror=true
fi
t0=$SECONDS
ninja -C build
echo "setup.sh: build took $((SECONDS - t0)) s"
