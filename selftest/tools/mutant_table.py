"""The table mutant x stage -> caught or not, from certification reports.

Every in-tree mutant is certified like any endpoint, and its report.json
records what each stage did (identity.stages). A stage catches a mutant when
one of its runs is FAIL; a stage that did not run for it (UNTESTED: not at
this depth, not built) is shown as such, never as a miss. The last lines give
each stage's kill rate over the mutants it ran on and the certification's
overall kill rate: mutants caught by at least one stage over all mutants.

    python3 selftest/tools/mutant_table.py [bazel-certification ...]

Arguments are report.json files or directories searched for them (default:
bazel-certification, where `bazel test` leaves every certification's
package). Only reports of mutants are read (their implementation line says
"mutant", "L3 mutant", "runtime mutant" or "Python L3 mutant"); exit status 1 when some mutant
is caught by no stage, 2 when no report of a mutant was found.
"""

import json
import os
import re
import sys

_MUTANT = re.compile(r"^(?:(L3|runtime|Python L3) )?mutant (\S+?):")
# Column order; a stage not listed here comes after them, alphabetically.
_ORDER = ("suite", "corpus", "wrap", "noncoherent", "explorer", "stress", "tsan", "fuzz")

CAUGHT, MISSED, NOT_RUN = "caught", "missed", "not run"


def mutant_of(report):
    """(name, role) of a mutant's report, or None for any other endpoint."""
    m = _MUTANT.match(report.get("identity", {}).get("implementation", ""))
    if m is None:
        return None
    return m.group(2), {"L3": "L3", "runtime": "runtime", "Python L3": "python-L3"}.get(
        m.group(1), "L2")


def stage_results(report):
    """{stage: CAUGHT | MISSED | NOT_RUN} over a report's stage runs: caught
    when any run is FAIL, missed when some run finished without one, not run
    when every run is UNTESTED."""
    out = {}
    for run in report.get("identity", {}).get("stages", []):
        stage, status = run.get("stage", "?"), run.get("status", "UNTESTED")
        if status == "FAIL":
            out[stage] = CAUGHT
        elif status == "PASS" and out.get(stage) != CAUGHT:
            out[stage] = MISSED
        else:
            out.setdefault(stage, NOT_RUN)
    return out


def find_reports(paths):
    found = []
    for path in paths:
        if os.path.isfile(path):
            found.append(path)
            continue
        if not os.path.isdir(path):
            raise SystemExit("mutant_table: %s: no such file or directory" % path)
        for root, _, files in sorted(os.walk(path, followlinks=True)):
            if "report.json" in files:
                found.append(os.path.join(root, "report.json"))
    return found


def load(paths):
    """[(name, role, {stage: result})], sorted by role and name; a report
    that cannot be read is an error naming the file."""
    rows = {}
    for path in find_reports(paths):
        try:
            with open(path) as f:
                report = json.load(f)
        except (OSError, ValueError) as e:
            raise SystemExit("mutant_table: %s: not a readable report: %s" % (path, e))
        who = mutant_of(report)
        if who is not None:
            rows[who] = stage_results(report)
    return [(name, role, res) for (name, role), res in
            sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][0]))]


def stage_columns(rows):
    seen = set(s for _, _, res in rows for s in res)
    return [s for s in _ORDER if s in seen] + sorted(seen - set(_ORDER))


def render(rows):
    stages = stage_columns(rows)
    cell = {CAUGHT: "FAIL (caught)", MISSED: "pass (missed)", NOT_RUN: "-"}
    lines = ["| mutant | role | " + " | ".join(stages) + " | caught by |",
             "|---|---|" + "---|" * len(stages) + "---|"]
    for name, role, res in rows:
        by = [s for s in stages if res.get(s) == CAUGHT]
        lines.append("| %s | %s | %s | %s |" % (
            name, role, " | ".join(cell[res.get(s, NOT_RUN)] for s in stages),
            ", ".join(by) if by else "**nothing**"))
    lines.append("")
    for s in stages:
        ran = [r for _, _, r in rows if r.get(s, NOT_RUN) != NOT_RUN]
        caught = [r for r in ran if r[s] == CAUGHT]
        if not ran:
            lines.append("- %s: ran on no mutant" % s)
        else:
            lines.append("- %s: caught %d of the %d mutants it ran on" % (s, len(caught),
                                                                         len(ran)))
    total = len(rows)
    killed = sum(1 for _, _, r in rows if CAUGHT in r.values())
    lines.append("- overall kill rate: %d of %d mutants caught by at least one stage (%.1f %%)" % (
        killed, total, 100.0 * killed / total if total else 0.0))
    return "\n".join(lines), killed == total


def main(argv):
    rows = load(argv[1:] or ["bazel-certification"])
    if not rows:
        print("mutant_table: no report of a mutant found in %s" % (" ".join(argv[1:]) or
                                                                  "bazel-certification"),
              file=sys.stderr)
        return 2
    text, all_caught = render(rows)
    print(text)
    return 0 if all_caught else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
