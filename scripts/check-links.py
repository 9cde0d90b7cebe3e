#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check that every relative link in the given Markdown files resolves to a file or
directory of the tree (anchors and http(s) links are not checked). Exit 1 and list
the broken ones otherwise. Usage: scripts/check-links.py README.md docs/*.md"""

import re
import sys
from pathlib import Path

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def broken(md: Path) -> list[str]:
    bad = []
    text = re.sub(r"```.*?```", "", md.read_text(), flags=re.S)  # not in code blocks
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = target.split("#", 1)[0]
        if not (md.parent / path).exists():
            bad.append(f"{md}: {target}")
    return bad


if __name__ == "__main__":
    problems = [b for f in sys.argv[1:] for b in broken(Path(f))]
    print("\n".join(problems) or f"{len(sys.argv) - 1} file(s): every link resolves")
    sys.exit(1 if problems else 0)
