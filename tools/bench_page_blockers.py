"""What blocker detection (runtime/execute/judges/page_blockers.py) costs per page: a page at the
read's cap of visible text (200,000 characters, 30 headings), a mid-size one (900 characters of
mixed English and Chinese) and a short English one (400 characters), none of them a blocker.

    uv run python tools/bench_page_blockers.py [--tree DIR] [--rounds 15]

`--tree` imports the runtime from another checkout (say a `git worktree` of main) to compare
before and after on the same machine in the same minutes. Each figure is the best of `--rounds`
rounds of 10 detections, in CPU milliseconds per page (the process's CPU time, steadier than
the wall clock on a loaded machine).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", type=Path, default=REPO, help="the checkout whose runtime is measured")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    sys.path.insert(0, str(args.tree.resolve()))
    from runtime.execute.judges.page_blockers import PageSignals, detect_blocker

    para = (
        "Gold futures AU2606 traded at 612.35 CNY/g, up 0.4% on the day, as investors weighed rate cuts. "
        "黄金期货主力合约今日小幅上涨，市场关注美联储议息会议。 Home Shop Help Contact Privacy Terms. "
    )
    text = (para * (200_000 // len(para) + 1))[:200_000]
    headings = tuple(f"Section {i}: gold market notes" for i in range(30))
    title = "AU2606 gold futures quote | Example Exchange"
    url = "https://quotes.example/au2606"
    pages = {
        "200,000 chars": PageSignals(url=url, status=200, title=title, text=text, headings=headings),
        "900 chars": PageSignals(url=url, status=200, title=title, text=text[:900], headings=headings),
        "400 chars": PageSignals(url=url, status=200, title=title, text=para[:97] * 4, headings=headings[:3]),
    }
    print(f"runtime from {args.tree}")
    for name, page in pages.items():
        best = float("inf")
        for _ in range(args.rounds):
            start = time.process_time()
            for _ in range(10):
                if detect_blocker(page) is not None:
                    raise SystemExit(f"the {name} page was taken for a blocker")
            best = min(best, (time.process_time() - start) / 10 * 1000)
        print(f"{name:>14}: {best:.2f} ms per page")


if __name__ == "__main__":
    main()
