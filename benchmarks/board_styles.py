"""The board as an embed against the board as a Components V2 layout: press → new board latency
of the same load on both, in one run.

The embed board lives in the project's history (the commit before boards became layouts,
``--embed-rev``). This script checks that commit out in a temporary git worktree and runs the
latency benchmark (``benchmarks/bot_latency.py``) of each tree — its own bot, emulator and
players — with the same arguments, alternating the two trees for ``--rounds`` rounds so that a
change in the machine's load hits both. It prints each run's p50/p95 of "last step press → new
board" and the ratio of the medians of the p95s (target: ≤ 1.1).

    .venv/bin/python -m benchmarks.board_styles                       # 3 rounds, 20 games
    .venv/bin/python -m benchmarks.board_styles --rounds 1 -- --games 5 --turns 10
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
EMBED_REV = "c9413c3"
"""The last commit whose boards are embeds."""
DEFAULT_LOAD = ["--games", "20", "--turns", "30", "--large-db", "0"]
"""20 concurrent games (the latency target's load), phase 1 only."""
TARGET_RATIO = 1.1
ROW = re.compile(r"last step press → new board\s+(\d+)\s+(\d+)\s+(\d+)")


def run(tree: Path, load: list[str]) -> tuple[int, int, int]:
    """One latency benchmark of the bot in ``tree``: (n, p50, p95) of press → new board."""
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.bot_latency", *load],
        cwd=tree,
        capture_output=True,
        text=True,
        check=False,
    )
    found = ROW.search(done.stdout)
    if found is None:
        sys.stderr.write(done.stdout[-3000:] + done.stderr[-3000:])
        raise SystemExit(f"the benchmark in {tree} printed no press → new board row")
    n, p50, p95 = (int(value) for value in found.groups())
    return n, p50, p95


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.board_styles", description=__doc__)
    parser.add_argument("--embed-rev", default=EMBED_REV, help=f"the embed board ({EMBED_REV})")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each style (3)")
    parser.add_argument("load", nargs="*", help="arguments for bot_latency, after --")
    args = parser.parse_args(argv)
    load = args.load or DEFAULT_LOAD
    p95s: dict[str, list[int]] = {"embed": [], "layout": []}
    with tempfile.TemporaryDirectory(prefix="tholos-embed-") as tmp:
        embed_tree = Path(tmp) / "tree"
        subprocess.run(
            ["git", "worktree", "add", "--detach", "-q", str(embed_tree), args.embed_rev],
            cwd=REPO_ROOT,
            check=True,
        )
        try:
            trees = {"embed": embed_tree, "layout": REPO_ROOT}
            for number in range(args.rounds):
                order = ["embed", "layout"] if number % 2 == 0 else ["layout", "embed"]
                for style in order:
                    n, p50, p95 = run(trees[style], load)
                    p95s[style].append(p95)
                    print(
                        f"round {number + 1} {style:>6}: n {n}, p50 {p50} ms, p95 {p95} ms",
                        flush=True,
                    )
        finally:
            subprocess.run(
                ["git", "worktree", "remove", "--force", str(embed_tree)],
                cwd=REPO_ROOT,
                check=False,
            )
    embed, layout = (statistics.median(p95s[style]) for style in ("embed", "layout"))
    ratio = layout / embed
    verdict = "PASS" if ratio <= TARGET_RATIO else "FAIL"
    print(
        f"median p95: embed {embed:.0f} ms, layout {layout:.0f} ms: {ratio:.2f}× "
        f"[{verdict}: ≤ {TARGET_RATIO}×]"
    )
    return 0 if ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
