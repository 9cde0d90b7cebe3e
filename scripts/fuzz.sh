#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Build the IEEE 11073-20601 codec's libFuzzer target with clang (AddressSanitizer
# and UndefinedBehaviorSanitizer) and run it for a bounded time.
#   scripts/fuzz.sh [SECONDS]   (default 60)
# Exits non-zero when the fuzzer finds a crash, a sanitizer report or a broken
# property; the input that did it is left in build/fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-60}
out=build/fuzz

if ! command -v clang >/dev/null; then
    echo "fuzz.sh: clang not found, installing it"
    apt-get install -y clang >/dev/null
fi

mkdir -p "$out/corpus" "$out/artifacts"
# the codec alone: it has no DPDK state, so none is linked
clang -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -g -O1 \
    -Wall -Wextra -I src \
    tests/fuzz/fuzz_mder.c \
    src/proto/mder.c src/proto/mder_names.c src/proto/mder_value.c src/proto/phd_nomenclature.c \
    -o "$out/fuzz_mder"

# seed the corpus with the unit tests' APDUs (hex to bytes, no tools needed)
while read -r name hex; do
    case "$name" in '' | '#'*) continue ;; esac
    printf "$(printf '%s' "$hex" | sed 's/../\\x&/g')" > "$out/corpus/seed-$name"
done < tests/fuzz/seeds.txt

echo "fuzz.sh: fuzzing for ${secs}s, corpus $out/corpus"
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
"$out/fuzz_mder" -max_total_time="$secs" -timeout=10 -print_final_stats=1 \
    -dict=tests/fuzz/mder.dict -artifact_prefix="$out/artifacts/" "$out/corpus"
