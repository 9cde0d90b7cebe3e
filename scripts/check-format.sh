#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Check that the C files changed since the format base follow .clang-format.
#   scripts/check-format.sh [BASE]   (default: the commit in .ci/format-base)
# Files changed in commits since BASE and in the working tree are checked; exits
# non-zero, listing the offending lines, when one is not formatted.
set -euo pipefail
cd "$(dirname "$0")/.."

base=${1:-$(cat .ci/format-base)}
if ! command -v clang-format >/dev/null; then
    echo "check-format.sh: clang-format not found (apt-get install clang-format)" >&2
    exit 1
fi
if ! git rev-parse -q --verify "$base^{commit}" >/dev/null; then
    echo "check-format.sh: base $base is not a commit here; checking every file" >&2
    base=$(git hash-object -t tree /dev/null)
fi
mapfile -t files < <( { git diff --name-only --diff-filter=d "$base" -- 'src/*.[ch]' 'tests/*.[ch]';
                        git ls-files --others --exclude-standard -- 'src/*.[ch]' 'tests/*.[ch]'; } | sort -u)
if [ ${#files[@]} -eq 0 ]; then
    echo "check-format.sh: no C file changed since ${base:0:12}"
    exit 0
fi
if clang-format --dry-run --Werror "${files[@]}"; then
    echo "check-format.sh: ${#files[@]} changed file(s) formatted ($(clang-format --version | sed 's/.*version //'))"
else
    echo "check-format.sh: run clang-format -i on the files above" >&2
    exit 1
fi
