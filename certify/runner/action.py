"""What a certifier must act on, from a report document (report.json's shape).

Both reports open with it: each FAIL clause with the first assertion its
first failing test printed, that test's reproducer and the command that runs
it again; then what else needs action: the runner's unexpected results (a
mutant's missing FAILs, a variant's verdicts other than its expected ones,
failed tests that judge no clause) and the UNTESTED clauses grouped by
reason. With no FAIL the opening says so in one line.

Works on plain dicts, so report_html.py can render any report.json, old
ones too (fields a report lacks are left out).
"""

# What verdicts.py appends to a row's detail for checklist cases this
# certification did not judge; the reason of an UNTESTED row is what comes
# before it (clauses of one reason group together).
CASES_NOTE = "; cases not judged here: "
# The opening quotes this much of an assertion; the drill-down and the
# Failures section have all of it.
MAX_ASSERTION_LINES = 12


def capped(text):
    lines = [l.rstrip() for l in text.strip().split("\n")]
    if len(lines) > MAX_ASSERTION_LINES:
        lines = lines[:MAX_ASSERTION_LINES] + ["..."]
    return "\n".join(lines)


def reproducer(failure):
    """[(what, value)] that reproduce one failing test: its binary and test
    name, the environment its stage set, the input a stage found, the region
    dump it wrote. Reports written before these fields say only the test."""
    out = []
    name = failure.get("test", "")
    if failure.get("binary"):
        out.append(("binary", failure["binary"]))
        out.append(("test", name.split(" ", 1)[-1]))
    else:
        out.append(("test", name))
    for key, what in (("env", "env"), ("reproducer", "input"), ("dump", "region dump")):
        if failure.get(key):
            out.append((what, failure[key]))
    return out


def fail_entries(rows):
    """Per FAIL row: the clause, how many tests failed, and the first failing
    test with its first assertion, reproducer and re-run command."""
    out = []
    for row in rows:
        if row.get("verdict") != "FAIL":
            continue
        failures = row.get("failures") or []
        first = failures[0] if failures else {}
        out.append({
            "id": row["id"], "level": row.get("level", ""),
            "requirement": row.get("requirement", ""), "detail": row.get("detail", ""),
            "test": first.get("test", ""),
            # Reports written before "assertion" have the test's whole text.
            "assertion": capped(first.get("assertion") or first.get("message", "")),
            "reproducer": reproducer(first) if first else [],
            "rerun": first.get("rerun", ""),
            # The other failing tests, each with the input a stage found.
            "more": [(f["test"], f.get("reproducer", "")) for f in failures[1:]],
        })
    return out


def untested_groups(rows):
    """[(reason, [clause IDs])] of the UNTESTED rows, the largest group first."""
    groups = {}
    for row in rows:
        if row.get("verdict") == "UNTESTED":
            reason = row.get("detail", "").split(CASES_NOTE, 1)[0] or "no reason given"
            groups.setdefault(reason, []).append(row["id"])
    return sorted(groups.items(), key=lambda g: (-len(g[1]), g[0]))


def unexpected(document):
    """The runner's lines when they fail the certification (a mutant that
    does not FAIL its clauses, a variant off its expected verdicts, failed
    tests), else []."""
    outcome = document.get("outcome") or {}
    if not outcome.get("status"):
        return []
    return [l.strip() for l in outcome.get("lines", []) if l.strip()]


def outcome_line(document):
    """One line: what this certification was checked against and whether it
    held, or "" for a report that does not say."""
    outcome = document.get("outcome")
    if not outcome:
        return ""
    held = "failed" if outcome.get("status") else "held"
    notes = "" if outcome.get("status") else "".join(
        "; " + l.strip() for l in outcome.get("lines", []) if l.strip())
    return "Certification check (%s): %s%s." % (outcome.get("mode", "?"), held, notes)


def no_fail_line(rows):
    judged = sum(1 for r in rows if r.get("verdict") not in ("NOT-APPLICABLE", "UNTESTED"))
    return "No FAIL: none of the %d clauses judged here failed." % judged


def _md(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_markdown(document):
    """The opening section of report.md."""
    rows = document.get("clauses", [])
    fails = fail_entries(rows)
    lines = ["## Needs action", ""]
    if not fails:
        lines += [no_fail_line(rows), ""]
    for e in fails:
        lines += ["### FAIL %s (%s)" % (e["id"], e["level"]), "", "> " + _md(e["requirement"]), "",
                  "- first failing test: `%s` (%s)" % (e["test"], _md(e["detail"].split("; ")[0])),
                  "- first assertion:", "", "  ```"]
        lines += ["  " + l for l in e["assertion"].split("\n")] + ["  ```", ""]
        lines.append("- reproducer: " + ", ".join("%s `%s`" % (k, v) for k, v in e["reproducer"]))
        if e["rerun"]:
            lines.append("- re-run: `%s`" % e["rerun"])
        if e["more"]:
            lines.append("- %d more failing test%s (all under Failures below): %s" % (
                len(e["more"]), "" if len(e["more"]) == 1 else "s",
                ", ".join("`%s`%s" % (t, " (input `%s`)" % i if i else "")
                          for t, i in e["more"])))
        lines.append("")
    line = outcome_line(document)
    if line:
        lines += [line, ""]
    bad = unexpected(document)
    groups = untested_groups(rows)
    if fails and (bad or groups):
        lines += ["### Also needs action", ""]
    if bad:
        lines += ["Unexpected results:", ""] + ["- " + _md(l) for l in bad] + [""]
    if groups:
        lines += ["UNTESTED clauses (%d), by reason:" % sum(len(ids) for _, ids in groups), "",
                  "| clauses | reason | IDs |", "|---|---|---|"]
        lines += ["| %d | %s | %s |" % (len(ids), _md(reason), ", ".join(ids))
                  for reason, ids in groups]
        lines.append("")
    if not fails and not bad and not groups:
        lines += ["Nothing else needs action: no unexpected result, no UNTESTED clause.", ""]
    return "\n".join(lines)
