#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Run every test: set-up (idempotent), the cmocka unit tests (meson test), then the pytest
# integration tests over network namespaces. Ends with one summary line.
set -uo pipefail
cd "$(dirname "$0")/.."

# each phase's wall time, so a slow CI machine shows where its minutes went
phase_t=$SECONDS
phase() { echo "test.sh: $1 took $((SECONDS - phase_t)) s (${SECONDS} s in all)"; phase_t=$SECONDS; }

./scripts/setup.sh || { echo "test.sh: set-up failed"; echo "0 passed, 1 failed"; exit 1; }
phase "set-up"

# the unit tests (tests/unit/meson.build: every program plain and under ASan/UBSan), run
# by meson with their timeouts; each program counts once, its result read from meson's
# log (one JSON object a line), not from the tests' own output
unit_log=build/meson-logs/testlog.json
rm -f "$unit_log"
meson test -C build --suite unit --print-errorlogs
unit_rc=$?
read -r unit_pass unit_fail unit_skip < <(.venv/bin/python - "$unit_log" <<'PY'
import json, sys
n = {"OK": 0, "FAIL": 0, "SKIP": 0}
try:
    for line in open(sys.argv[1]):
        r = json.loads(line).get("result")
        n["OK" if r in ("OK", "EXPECTEDFAIL") else "SKIP" if r == "SKIP" else "FAIL"] += 1
except (OSError, ValueError):
    pass
print(n["OK"], n["FAIL"], n["SKIP"])
PY
)
# a build that failed, or a meson that stopped before its log: a failure
if [ "$unit_rc" -ne 0 ] && [ "$unit_fail" -eq 0 ]; then unit_fail=1; fi
echo "unit: ${unit_pass} passed, ${unit_fail} failed, ${unit_skip} skipped (meson test --suite unit)"
phase "unit tests"

# every parser of untrusted bytes under libFuzzer (ASan+UBSan), each bounded (mder and
# ndn twice as long): one more test. 20 s a target: 220 s in all, after the build
if ./scripts/fuzz.sh "${TP_FUZZ_SECONDS:-20}" > build/fuzz.log 2>&1; then
    unit_pass=$((unit_pass + 1))
    echo "fuzz: passed ($(grep -c '^fuzz.sh: .* for ' build/fuzz.log) targets, ${TP_FUZZ_SECONDS:-20} s each, mder and ndn twice that; build/fuzz.log)"
else
    unit_fail=$((unit_fail + 1)); echo "fuzz: FAILED"; tail -40 build/fuzz.log
fi

phase "fuzz (build and runs)"

# style: C files changed since the format base follow .clang-format; Python is ruff clean
if ./scripts/check-format.sh > build/format.log 2>&1; then
    unit_pass=$((unit_pass + 1)); echo "format: passed ($(tail -1 build/format.log))"
else
    unit_fail=$((unit_fail + 1)); echo "format: FAILED"; cat build/format.log
fi
if .venv/bin/ruff check -q python bench tests > build/ruff.log 2>&1 &&
   .venv/bin/ruff format -q --check python bench tests >> build/ruff.log 2>&1; then
    unit_pass=$((unit_pass + 1)); echo "ruff: passed"
else
    unit_fail=$((unit_fail + 1)); echo "ruff: FAILED"; cat build/ruff.log
fi

# documentation: every relative link in the tracked Markdown files resolves
if python3 scripts/check-links.py $(git ls-files '*.md') > build/links.log 2>&1; then
    unit_pass=$((unit_pass + 1)); echo "links: passed ($(tail -1 build/links.log))"
else
    unit_fail=$((unit_fail + 1)); echo "links: FAILED"; cat build/links.log
fi
# benchmark reports: each names the commit it measured, an ancestor of HEAD; those whose
# measured paths changed since are listed as stale (python/twinplane/bench/stale.py)
if PYTHONPATH=python .venv/bin/python -m twinplane.bench.stale > build/stale.log 2>&1; then
    unit_pass=$((unit_pass + 1)); echo "reports: passed ($(tail -1 build/stale.log))"
else
    unit_fail=$((unit_fail + 1)); echo "reports: FAILED"; cat build/stale.log
fi

phase "style"

# unbuffered: what a killed run printed is kept; the slowest tests are listed at the end;
# a test that hangs fails after pytest.ini's timeout instead of eating the CI's time.
# CI gives the whole run 90 minutes: pytest gets what is left of TP_TEST_BUDGET (85 min
# from this script's start) and is then interrupted (SIGINT: it tears its labs down and
# reports what ran; the run counts as failed), so a slow host ends with a summary
# instead of being killed without one
report=$(mktemp)
budget=$((${TP_TEST_BUDGET:-5100} - SECONDS))
[ "$budget" -gt 120 ] || budget=120
PYTHONUNBUFFERED=1 timeout --signal=INT --kill-after=90 "$budget" \
    .venv/bin/python -m pytest -ra -p no:cacheprovider --durations=40 --junitxml="$report" "$@"
rc=$?
[ "$rc" -ne 124 ] || echo "test.sh: pytest stopped after ${budget} s, the time left of TP_TEST_BUDGET"
phase "pytest"
read -r int_pass int_fail int_skip < <(.venv/bin/python - "$report" <<'PY'
import sys, xml.etree.ElementTree as ET
try:
    r = ET.parse(sys.argv[1]).getroot()
    s = r if r.tag == "testsuite" else r.find("testsuite")
    t, f, e, k = (int(s.get(x, 0)) for x in ("tests", "failures", "errors", "skipped"))
    print(t - f - e - k, f + e, k)
except Exception:
    print(0, 1, 0)
PY
)
rm -f "$report"
if [ "$rc" -ne 0 ] && [ "$int_fail" -eq 0 ]; then int_fail=1; fi
total_pass=$((unit_pass + int_pass))
total_fail=$((unit_fail + int_fail))
echo "total: ${total_pass} passed, ${total_fail} failed, $((int_skip + unit_skip)) skipped"
[ "$total_fail" -eq 0 ]
