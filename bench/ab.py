#!/usr/bin/env python3
"""Before/after: two spsq_bench binaries measured in alternating rounds.

The host moves this VM's two vCPUs between placements whose cache-line round
trip differs several-fold, so two reports taken minutes apart cannot be
compared. This runs base and candidate back to back, round after round, and
prints per benchmark the median time of each and the median of the per-round
ratios candidate / base (below 1.00: the candidate is faster). Measures only.

Usage: bench/ab.py BASE_BINARY CANDIDATE_BINARY [--rounds N] [--filter RE]
                   [--min-time S]

Building a base binary from an older commit, for example:
    git worktree add /tmp/spsq-base <rev>
    (cd /tmp/spsq-base && bazel --output_base=/tmp/ob-base build -c opt \\
        --copt=-DNDEBUG //bench:spsq_bench)
"""

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402  (run_round and Rounds are the report's own)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("base")
    p.add_argument("candidate")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--filter", default="", help="benchmark regex (default: all)")
    p.add_argument("--min-time", type=float, default=0.1)
    args = p.parse_args()
    for path in (args.base, args.candidate):
        if not os.access(path, os.X_OK):
            p.error("%s is not an executable spsq_bench binary" % path)
    if args.rounds < 1:
        p.error("--rounds must be at least 1, got %d" % args.rounds)

    base, cand = report.Rounds(), report.Rounds()
    for i in range(args.rounds):
        report.log("round %d/%d" % (i + 1, args.rounds))
        base.add(*report.run_round(args.base, args.min_time, args.filter))
        cand.add(*report.run_round(args.candidate, args.min_time, args.filter))
    for label, r in (("base", base), ("candidate", cand)):
        for name, err in sorted(r.errors.items()):
            print("%s: %s failed: %s" % (label, name, err), file=sys.stderr)

    names = sorted(set(n for r in base.rounds for n in r) & set(n for r in cand.rounds for n in r))
    print("| benchmark | base ns/msg | candidate ns/msg | candidate / base |")
    print("|---|---|---|---|")
    for name in names:
        ratios = [c[name] / b[name] for b, c in zip(base.rounds, cand.rounds)
                  if name in b and name in c and b[name] > 0]
        print("| %s | %.1f | %.1f | %.2f |" % (name, base.ns(name), cand.ns(name),
                                               statistics.median(ratios)))
    return 1 if base.errors or cand.errors else 0


if __name__ == "__main__":
    sys.exit(main())
