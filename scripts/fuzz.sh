#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Build the libFuzzer targets with clang (AddressSanitizer and UndefinedBehaviorSanitizer,
# meson in build/fuzz/meson with -Dfuzz=true) and run each for a bounded time.
#   scripts/fuzz.sh [SECONDS] [TARGET...]   (default 60 s each; every target)
# SECONDS is each target's time; mder and ndn, the oldest, get twice theirs. Targets
# run TP_FUZZ_JOBS at a time (default: the CPUs, at most 4), one CPU each, so every
# target gets the same fuzzing time as alone; each one's output is printed whole, in
# order, when it is done. Exits
# non-zero when a fuzzer finds a crash, a sanitizer report, a leak or a broken
# property; the input that did it is left in build/fuzz/<target>/artifacts/.
# The DPDK targets (ip4, ip6, ndn_fwd, ndn_mgmt, l2, netlink, gen) start an EAL without
# hugepages or devices.
set -euo pipefail
cd "$(dirname "$0")/.."

all=(mder ndn ndn_stream coap ip4 ip6 ndn_fwd ndn_mgmt l2 stp fetch netlink api config gen)
all+=(iotgw iotgw_forget)
secs=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

if ! command -v clang >/dev/null; then
    echo "fuzz.sh: clang not found, installing it"
    apt-get install -y clang >/dev/null
fi

# each target: its seeds (a file of "name hex" lines, or a directory of files), its
# dictionary (or none), its own libFuzzer options
declare -A seeds=(
    [mder]=tests/fuzz/seeds.txt [ndn]=tests/fuzz/ndn_seeds.txt [coap]=tests/fuzz/coap_seeds.txt
    [ndn_stream]=tests/fuzz/ndn_stream_seeds.txt
    [ip4]=tests/fuzz/ip4_seeds.txt [ndn_fwd]=tests/fuzz/ndn_fwd_seeds.txt
    [l2]=tests/fuzz/l2_seeds.txt [fetch]=tests/fuzz/fetch_seeds.txt
    [netlink]=tests/fuzz/netlink_seeds.txt [api]=tests/fuzz/api_seeds.txt
    [config]=tests/fuzz/config_seeds [gen]=tests/fuzz/gen_seeds
)
seeds[iotgw]=tests/fuzz/iotgw_seeds
seeds[ip6]=tests/fuzz/ip6_seeds.txt
seeds[stp]=tests/fuzz/stp_seeds.txt
seeds[ndn_mgmt]=tests/fuzz/ndn_mgmt_seeds.txt
seeds[iotgw_forget]=tests/fuzz/iotgw_seeds
declare -A dicts=(
    [mder]=tests/fuzz/mder.dict [ndn]=tests/fuzz/ndn.dict [coap]=tests/fuzz/coap.dict
    [ndn_stream]=tests/fuzz/ndn.dict
    [ip4]=tests/fuzz/ip4.dict [ndn_fwd]=tests/fuzz/ndn.dict [l2]=tests/fuzz/l2.dict
    [fetch]=tests/fuzz/fetch.dict
    [netlink]=tests/fuzz/netlink.dict
    [api]=tests/fuzz/api.dict [config]=tests/fuzz/config.dict [gen]=tests/fuzz/gen.dict
)
dicts[iotgw]=tests/fuzz/iotgw.dict
dicts[ip6]=tests/fuzz/ip6.dict
dicts[stp]=tests/fuzz/stp.dict
dicts[ndn_mgmt]=tests/fuzz/ndn_mgmt.dict
dicts[iotgw_forget]=tests/fuzz/iotgw.dict
declare -A opts=([ip4]="-max_len=9018" [ip6]="-max_len=9018" [ndn_fwd]="-max_len=8192"
    [ndn_mgmt]="-max_len=8192"
    [ndn_stream]="-max_len=20000")
declare -A share=([mder]=2 [ndn]=2)

# -O1: ASan's usual level; at -O2 the instrumented build took 6 of a fresh CI run's minutes
meson_dir=build/fuzz/meson
# Warnings are errors here too (meson.build's werror=true; a directory set up before
# that became the default is switched over).
if [ ! -f $meson_dir/build.ninja ]; then
    CC=clang meson setup $meson_dir -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
        -Dtests=disabled -Doptimization=1 -Ddebug=true --werror >/dev/null
elif ! grep -q -- '-Werror' $meson_dir/build.ninja; then
    meson configure $meson_dir -Dwerror=true >/dev/null
fi
bins=()
for t in "${targets[@]}"; do
    [ -n "${seeds[$t]:-}" ] || { echo "fuzz.sh: unknown target '$t' (${all[*]})" >&2; exit 2; }
    bins+=("tests/fuzz/fuzz_$t")
done
nice -n 10 ninja -C $meson_dir "${bins[@]}" >/dev/null

# one target: seed its corpus, fuzz it; its output and exit status in $out/{log,rc}
run() {
    local t=$1 out=build/fuzz/$1 s dict=()
    mkdir -p "$out/corpus" "$out/artifacts"
    # seed the corpus (hex to bytes, no tools needed)
    if [ -d "${seeds[$t]}" ]; then
        cp "${seeds[$t]}"/* "$out/corpus/"
    else
        while read -r name hex; do
            case "$name" in '' | '#'*) continue ;; esac
            printf "$(printf '%s' "$hex" | sed 's/../\\x&/g')" > "$out/corpus/seed-$name"
        done < "${seeds[$t]}"
    fi
    s=$((secs * ${share[$t]:-1}))
    [ -z "${dicts[$t]:-}" ] || dict=(-dict="${dicts[$t]}")
    echo "fuzz.sh: $t for ${s}s, corpus $out/corpus"
    # shellcheck disable=SC2086
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$meson_dir/tests/fuzz/fuzz_$t" -max_total_time="$s" -timeout=10 -print_final_stats=1 \
        "${dict[@]}" ${opts[$t]:-} -artifact_prefix="$out/artifacts/" "$out/corpus"
}

cpus=$(nproc)
jobs_max=${TP_FUZZ_JOBS:-$((cpus < 4 ? cpus : 4))}
[ "$jobs_max" -ge 1 ] || jobs_max=1
for t in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
    mkdir -p "build/fuzz/$t"
    rm -f "build/fuzz/$t/rc"
    (
        set +e
        run "$t" > "build/fuzz/$t/log" 2>&1
        echo $? > "build/fuzz/$t/rc"
    ) &
done
wait
failed=()
for t in "${targets[@]}"; do
    cat "build/fuzz/$t/log"
    [ "$(cat "build/fuzz/$t/rc" 2>/dev/null)" = 0 ] || failed+=("$t")
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz.sh: failed: ${failed[*]} (inputs in build/fuzz/<target>/artifacts/)" >&2
    exit 1
fi
