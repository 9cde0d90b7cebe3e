# SPDX-License-Identifier: BSD-3-Clause
"""The shape every bench script shares: its command line, its start and its report.

A bench script declares what it measures and nothing else::

    def build(ap):                      # its own options, after the common ones
        ap.add_argument("--size", type=int, default=64)

    def measure(ctx: Context) -> Report:
        ...                             # runs the trials, returns the report

    sys.exit(report.main("fwd_cost", __doc__, build, measure))

``main`` checks root, pins this process to the generator's CPU, takes the lab
lock, keeps other tasks off the DUT's CPU for the run (``--no-isolate`` to
keep them), and writes ``docs/results/<name>.{json,md}`` (the PNG is the
script's, through ``Report.figure``).

Every report's JSON has the same top level: ``tree`` (the commit measured,
``-dirty`` when the tree had changes), ``date``, ``argv``, ``machine``,
``tsc_hz``, ``rules`` (every rule of the run, fixed by its command line before
it started: goal, repetitions, what counts as loss), ``headline`` (a
comparison's name to ``paired.Headline.to_json()``, or ``{"value", "unit",
...}`` for a figure that is not a ratio), ``bars`` (the goal each headline is
held to and whether it is met) and ``trials`` (every trial, none left out).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import operator
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from twinplane.bench import duts as D
from twinplane.bench import paired, stale

ROOT = Path(__file__).resolve().parents[3]
RESULTS = ROOT / "docs" / "results"

_OPS = {">=": operator.ge, "<=": operator.le}


@dataclass(frozen=True)
class Bar:
    """The goal a headline is held to, from the issue that set it: ``op`` and
    ``value``; ``ci_edge`` when the 95 % interval must also lie on that side of
    a value (the router's ``>= 1.05`` with its interval above 1.0);
    ``every_placement`` when each placement's paired median must meet it too
    (L2's ``>= 1.2`` in every placement), not only the pooled one."""

    op: str
    value: float
    ci_edge: float | None = None
    every_placement: bool = False

    def met(
        self,
        figure: float | None,
        ci95: list[float] | None = None,
        by_placement: dict[str, dict[str, Any]] | None = None,
    ) -> bool | None:
        """True or False; None when there is no figure (a tie at the ceiling).
        With ``every_placement``: False when the pooled figure or any placement's
        ratio misses the bar, else None when a placement has no ratio (a tie at
        the ceiling there), else True."""
        if figure is None:
            return None
        ok = _OPS[self.op](figure, self.value)
        if self.ci_edge is not None:
            edge = (ci95[0] if self.op == ">=" else ci95[1]) if ci95 else None
            ok = ok and edge is not None and _OPS[self.op](edge, self.ci_edge)
        if not self.every_placement or not ok:
            return ok
        ratios = [p.get("ratio") for p in (by_placement or {}).values()]
        if any(r is not None and not _OPS[self.op](r, self.value) for r in ratios):
            return False
        return None if None in ratios else True

    def text(self) -> str:
        side = "above" if self.op == ">=" else "below"
        ci = f", 95 % interval {side} {self.ci_edge:g}" if self.ci_edge is not None else ""
        every = " in every placement" if self.every_placement else ""
        return f"{self.op} {self.value:g}{every}{ci}"


@dataclass
class Context:
    """What ``measure`` gets: the parsed options, the TSC rate, the work
    directory, the CPU isolation (``None`` with ``--no-isolate``) and the number
    of pairs the run makes."""

    args: argparse.Namespace
    tsc_hz: float
    workdir: Path
    iso: D.CpuIsolation | None
    pairs: int


@dataclass
class Report:
    """One benchmark's results. ``markdown`` is the generated part of the report
    (tables and the headline); the methodology is ``docs/bench/<name>.md``."""

    name: str
    rules: dict[str, Any]
    headline: dict[str, dict[str, Any]] = field(default_factory=dict)
    bars: dict[str, Bar] = field(default_factory=dict)
    trials: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    markdown: str = ""
    figure: Callable[[Path], None] | None = None
    script: str | None = None  # bench/<script>.py when it is not bench/<name>.py
    # a report merged from parts (merge_parts): the tree and date they measured,
    # not those of the merge
    tree: str | None = None
    date: str | None = None

    def add(self, name: str, h: paired.Headline | dict[str, Any], bar: Bar | None = None) -> None:
        self.headline[name] = h.to_json() if isinstance(h, paired.Headline) else dict(h)
        if bar is not None:
            self.bars[name] = bar

    def bar_results(self) -> dict[str, dict[str, Any]]:
        out = {}
        for name, bar in self.bars.items():
            h = self.headline.get(name, {})
            fig = h.get("ratio", h.get("value"))
            met = bar.met(fig, h.get("ci95"), h.get("by_placement"))
            out[name] = {"goal": bar.text(), "met": met}
        return out

    def to_json(self, ctx: Context | None, argv: list[str]) -> dict[str, Any]:
        return {
            "tree": self.tree or D.git_rev(),
            "date": self.date or datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "argv": argv,
            "machine": D.machine_info(),
            "tsc_hz": ctx.tsc_hz if ctx else None,
            "isolation": ctx.iso.describe() if ctx and ctx.iso else None,
            "rules": self.rules,
            "headline": self.headline,
            "bars": self.bar_results(),
            "trials": self.trials,
            **self.extra,
        }

    def head_markdown(self, doc: dict[str, Any]) -> str:
        """The report's top: where it came from, its rules, its headline."""
        script = self.script or self.name
        method = ROOT / "docs" / "bench" / f"{script}.md"
        how = f" How it is measured: [docs/bench/{script}.md](../bench/{script}.md)."
        lines = [
            f"# {self.name}: results",
            "",
            f"Generated by `bench/{script}.py {' '.join(doc['argv'])}` on {doc['date']}"
            f" (tree {doc['tree']}); every trial is in [{self.name}.json]({self.name}.json)."
            + (how if method.exists() else ""),
            "",
            "## Rules (fixed before the run)",
            "",
            "| rule | value |",
            "|---|---|",
        ]
        lines += [f"| {k} | {v} |" for k, v in self.rules.items()]
        lines += ["", "## Headline", "", "| figure | value | goal | met |", "|---|---|---|---|"]
        bars = doc["bars"]
        for name, h in self.headline.items():
            b = bars.get(name, {})
            met = {True: "yes", False: "**no**", None: "-"}[b.get("met")]
            lines.append(f"| `{name}` | {headline_text(h)} | {b.get('goal', '-')} | {met} |")
        return "\n".join(lines) + "\n"

    def write(self, out: Path, ctx: Context | None, argv: list[str]) -> Path:
        out.mkdir(parents=True, exist_ok=True)
        doc = self.to_json(ctx, argv)
        (out / f"{self.name}.json").write_text(json.dumps(doc, indent=1) + "\n")
        md = self.head_markdown(doc)
        if self.figure is not None:
            self.figure(out / f"{self.name}.png")
            md += f"\n![{self.name}]({self.name}.png)\n"
        if self.markdown:
            md += "\n" + self.markdown.rstrip() + "\n"
        (out / f"{self.name}.md").write_text(md)
        return out / f"{self.name}.json"


def pyplot() -> Any:
    """matplotlib.pyplot on the Agg backend (no display), imported on first use."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _summary(h: dict[str, Any]) -> paired.Summary:
    ci = tuple(h["ci95"]) if h.get("ci95") else None
    return paired.Summary(h.get("ratio"), ci, h.get("pairs", 0), h.get("at_ceiling", False))


def headline_text(h: dict[str, Any], fmt: str = "{:.3g}") -> str:
    """A headline's JSON as one line of a report."""
    if "value" in h:
        v, unit = h["value"], h.get("unit", "")
        if v is None:
            return "none"
        text = f"{v:,.0f}" if abs(v) >= 100 else fmt.format(v)
        ci = h.get("ci95")
        if ci and abs(v) >= 100:
            text += f" ({ci[0]:,.0f}-{ci[1]:,.0f})"
        elif ci:
            text += f" ({fmt.format(ci[0])}-{fmt.format(ci[1])})"
        return f"{text} {unit}".strip()
    c = h.get("ceiling")
    by = h.get("by_placement", {})
    parts = [f"{k}: {paired.describe(_summary(v), fmt, c)}" for k, v in by.items()]
    return paired.describe(_summary(h), fmt, c) + (f" ({'; '.join(parts)})" if parts else "")


def add_common_arguments(ap: argparse.ArgumentParser) -> None:
    q, full = paired.MIN_PAIRS_QUICK, paired.MIN_PAIRS
    ap.add_argument("--quick", action="store_true",
                    help=f"{q} pairs and short trials (a check, not a figure)")  # fmt: skip
    ap.add_argument("--pairs", type=int, default=None,
                    help=f"pairs per comparison (default {full}; --quick {q})")  # fmt: skip
    ap.add_argument("--out", type=Path, default=RESULTS, help="report directory")
    ap.add_argument("--workdir", type=Path, default=None, help="logs and sockets (default: new)")
    ap.add_argument("--lock", default="/tmp/tp-lab.lock", help="flock file for the run ('' none)")
    ap.add_argument("--no-isolate", action="store_true",
                    help="leave other tasks on the DUT's CPU")  # fmt: skip


def pairs_for(args: argparse.Namespace) -> int:
    """The pairs a comparison makes: the issue's floor (10, 5 with --quick) at least."""
    floor = paired.MIN_PAIRS_QUICK if args.quick else paired.MIN_PAIRS
    n = args.pairs if args.pairs is not None else floor
    if n < floor:
        raise SystemExit(
            f"--pairs {n}: at least {floor} pairs{' with --quick' if args.quick else ''}"
        )
    return n


class PartsError(ValueError):
    """Parts that do not make one report."""


def parts_tree(name: str, paths: list[Path], trees: list[str], repo: Path = ROOT) -> str:
    """The tree a merge of parts measured: theirs when they share it; else the
    newest of them, if the others are its ancestors and none of the report's
    measured files changed between them (a report committed between two parts
    moves HEAD, not the code). PartsError otherwise, naming what changed."""
    for p, t in zip(paths, trees, strict=True):
        if not t or t.endswith("-dirty"):
            raise PartsError(f"{p}: tree {t}: the parts must measure a clean tree")
    if len(set(trees)) == 1:
        return trees[0]

    def ancestor(a: str, b: str) -> bool:
        cmd = ["git", "-C", str(repo), "merge-base", "--is-ancestor", a, b]
        return subprocess.run(cmd, capture_output=True).returncode == 0

    newest = next((t for t in trees if all(ancestor(u, t) for u in trees)), None)
    if newest is None:
        raise PartsError(f"trees {', '.join(sorted(set(trees)))}: not on one line of history")
    for p, t in zip(paths, trees, strict=True):
        changed = stale.measured_changes(repo, name, t, newest)
        if changed is None:
            raise PartsError(f"{name}: no measured paths known, so the parts need one tree")
        if changed:
            raise PartsError(f"{p}: {len(changed)} measured files changed between its tree "
                             f"{t} and {newest}: {', '.join(changed[:5])}")  # fmt: skip
    return newest


def load_parts(
    name: str, paths: list[Path], varying: set[str], repo: Path = ROOT
) -> list[dict[str, Any]]:
    """The JSON of each part of one report: runs of the same script, each over a
    subset of what it measures (``--wires``, ``--sizes``...), to be merged into one
    report when the whole does not fit one sitting. They must have measured the
    same code (parts_tree) with the same rules (but the ``varying`` ones, which say
    what each part covered) on the same host's TSC; else PartsError, naming what
    differs."""
    docs = [json.loads(Path(p).read_text()) for p in paths]
    if len(docs) < 2:
        raise PartsError("--merge: at least two parts")
    parts_tree(name, paths, [str(d.get("tree") or "") for d in docs], repo)
    for p, d in zip(paths, docs, strict=True):
        r0 = {k: v for k, v in docs[0]["rules"].items() if k not in varying}
        r = {k: v for k, v in d["rules"].items() if k not in varying}
        if r != r0:
            diff = sorted(k for k in r.keys() | r0.keys() if r.get(k) != r0.get(k))
            raise PartsError(f"{p}: rules differ from {paths[0]}'s: {', '.join(diff)}")
        t0, t = docs[0].get("tsc_hz") or 0.0, d.get("tsc_hz") or 0.0
        if abs(t - t0) > 0.001 * t0:
            raise PartsError(f"{p}: TSC {t:.0f} Hz, not {t0:.0f} Hz: another host")
    return docs


def merged_report(
    name: str, paths: list[Path], docs: list[dict[str, Any]], varying: set[str], repo: Path = ROOT
) -> Report:
    """A report over the parts: their rules (each varying rule listing every
    part's value), every part's trials, their tree (parts_tree), the last part's
    date, and ``parts`` (each part's file, tree, argv and date) in its JSON."""
    rules = dict(docs[0]["rules"])
    for k in varying:
        rules[k] = "; ".join(str(d["rules"].get(k, "-")) for d in docs)
    tree = parts_tree(name, paths, [d["tree"] for d in docs], repo)
    rep = Report(name, rules, tree=tree, date=max(d["date"] for d in docs))
    rep.trials = [t for d in docs for t in d["trials"]]
    rep.extra = {k: docs[0].get(k) for k in ("machine", "tsc_hz", "isolation")}
    rep.extra["parts"] = [
        {
            "file": str(p),
            "tree": d["tree"],
            "argv": d["argv"],
            "date": d["date"],
            "machine": d.get("machine"),
        }  # fmt: skip
        for p, d in zip(paths, docs, strict=True)
    ]
    return rep


def main(
    name: str,
    doc: str | None,
    build: Callable[[argparse.ArgumentParser], None],
    measure: Callable[[Context], Report],
    argv: list[str] | None = None,
    merge: Callable[[list[Path]], Report] | None = None,
) -> int:
    """Parse, start, measure under the lab lock and CPU isolation, write the report.
    With ``merge`` (a script whose whole run does not fit one sitting), ``--merge
    PART.json...`` writes the report from parts instead of measuring."""
    ap = argparse.ArgumentParser(prog=f"bench/{name}.py", description=doc,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    add_common_arguments(ap)
    if merge is not None:
        ap.add_argument("--merge", type=Path, nargs="+", metavar="PART",
                        help="write the report from these parts' JSON (runs over subsets, "
                        "one clean tree, the same rules) instead of measuring")  # fmt: skip
    build(ap)
    args = ap.parse_args(argv)
    argv_used = sys.argv[1:] if argv is None else argv
    if merge is not None and args.merge:
        try:
            rep = merge(args.merge)
        except PartsError as e:
            print(f"bench/{name}.py: {e}", file=sys.stderr)
            return 2
        path = rep.write(args.out, None, argv_used)
        print(f"bench/{name}.py: merged {len(args.merge)} parts into {path}", flush=True)
        return 0
    n = pairs_for(args)
    started = D.bench_start(name, args.workdir)
    if started is None:
        return 2
    tsc, workdir = started
    with contextlib.ExitStack() as stack:
        waited = stack.enter_context(D.lab_lock(args.lock))
        if waited > 1:
            print(f"bench/{name}.py: waited {waited:.0f} s for {args.lock}", flush=True)
        iso = None if args.no_isolate else stack.enter_context(D.CpuIsolation(D.DUT_CPU))
        ctx = Context(args, tsc, workdir, iso, n)
        rep = measure(ctx)
    path = rep.write(args.out, ctx, argv_used)
    print(f"bench/{name}.py: wrote {path} and {path.with_suffix('.md')}", flush=True)
    for k, h in rep.headline.items():
        print(f"  {k}: {headline_text(h)}", flush=True)
    return 0
