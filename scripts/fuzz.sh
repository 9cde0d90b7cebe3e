#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Build the codecs' libFuzzer targets with clang (AddressSanitizer and
# UndefinedBehaviorSanitizer) and run each for a bounded time.
#   scripts/fuzz.sh [SECONDS] [TARGET...]   (default 60 s each; targets: mder ndn fetch)
# Exits non-zero when a fuzzer finds a crash, a sanitizer report or a broken
# property; the input that did it is left in build/fuzz/<target>/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(mder ndn fetch)

if ! command -v clang >/dev/null; then
    echo "fuzz.sh: clang not found, installing it"
    apt-get install -y clang >/dev/null
fi

# each target: the codec alone (no DPDK state, so none is linked), its seeds, its dictionary
declare -A srcs=(
    [mder]="src/proto/mder.c src/proto/mder_names.c src/proto/mder_value.c src/proto/phd_nomenclature.c"
    [ndn]="src/proto/ndn.c src/proto/ndn_lp.c src/proto/sha256.c"
    [fetch]="src/proto/http.c src/proto/tcp.c src/proto/addr.c src/proto/sha256.c"
)
declare -A seeds=([mder]=tests/fuzz/seeds.txt [ndn]=tests/fuzz/ndn_seeds.txt
                  [fetch]=tests/fuzz/fetch_seeds.txt)
declare -A dicts=([mder]=tests/fuzz/mder.dict [ndn]=tests/fuzz/ndn.dict [fetch]=tests/fuzz/fetch.dict)

for t in "${targets[@]}"; do
    [ -n "${srcs[$t]:-}" ] || { echo "fuzz.sh: unknown target '$t' (mder, ndn, fetch)" >&2; exit 2; }
    out=build/fuzz/$t
    mkdir -p "$out/corpus" "$out/artifacts"
    # shellcheck disable=SC2086
    clang -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -g -O1 \
        -Wall -Wextra -I src "tests/fuzz/fuzz_$t.c" ${srcs[$t]} -o "$out/fuzz_$t"
    # seed the corpus with the unit tests' packets (hex to bytes, no tools needed)
    while read -r name hex; do
        case "$name" in '' | '#'*) continue ;; esac
        printf "$(printf '%s' "$hex" | sed 's/../\\x&/g')" > "$out/corpus/seed-$name"
    done < "${seeds[$t]}"
    echo "fuzz.sh: $t for ${secs}s, corpus $out/corpus"
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$out/fuzz_$t" -max_total_time="$secs" -timeout=10 -print_final_stats=1 \
        -dict="${dicts[$t]}" -artifact_prefix="$out/artifacts/" "$out/corpus"
done
