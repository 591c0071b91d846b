"""Clause verdicts from GoogleTest XML results and the clause catalogue.

A test names its clauses in the property "clauses" (SPSQ_CLAUSES) and, for
open points, the reading it observed in "reading.<ID>" (SPSQ_READING). A block
of a test that judges clauses of its own (SPSQ_JUDGING) adds them to
"scoped_clauses" and traces its failures with them: such a failure judges
those clauses alone, a failure outside every block judges what SPSQ_CLAUSES
named, and a clause whose test failed only on other clauses' checks is
UNTESTED (its own checks may not all have run).

Verdict per clause (for one certification):
  PASS            every test that covers it ran and passed
  FAIL            a covering test failed: the requirement is quoted with the
                  failure text (expected vs actual) and the decoded region
  INTERPRETATION  an open point or ambiguity: its tests passed and recorded
                  which reading the implementation follows
  NOT-APPLICABLE  the clause binds another role or API (reason given)
  UNTESTED        no covering test ran in this certification (reason given)
"""

import collections
import html
import json
import xml.etree.ElementTree as ET

import action
import catalogue

PASS = "PASS"
FAIL = "FAIL"
INTERPRETATION = "INTERPRETATION"
NOT_APPLICABLE = "NOT-APPLICABLE"
UNTESTED = "UNTESTED"
ORDER = (FAIL, UNTESTED, INTERPRETATION, PASS, NOT_APPLICABLE)
NORMATIVE = ("MUST", "MUST NOT", "MAY")


class TestCase(object):
    def __init__(self, binary, suite, name):
        self.binary = binary  # e.g. "mi2:s3_publication_timeouts"
        self.suite = suite
        self.name = name
        self.ran = True
        self.skip_reason = ""
        self.failures = []
        self.properties = {}

    @property
    def full_name(self):
        return "%s %s.%s" % (self.binary, self.suite, self.name)

    def _list(self, key):
        return [c for c in self.properties.get(key, "").split(",") if c]

    def _judged_tokens(self):
        """SPSQ_CLAUSES' tokens, then those only SPSQ_JUDGING blocks named."""
        top = self._list("clauses")
        return top + [t for t in self._list("scoped_clauses") if t not in top]

    @property
    def clauses(self):
        """Clause IDs judged; a named case ("ID/key") judges its clause."""
        out = []
        for token in self._judged_tokens():
            cid = catalogue.clause_of(token)
            if cid not in out:
                out.append(cid)
        return out

    @property
    def cases(self):
        """The "ID/key" case tokens the test judged."""
        return [t for t in self._judged_tokens() if catalogue.case_of(t)]

    @property
    def real_failures(self):
        """The failure texts, without the note a skip after a failure adds."""
        return [f for f in self.failures if not f.startswith(SKIP_NOTE)]

    def failures_judging(self, cid, token=None):
        """The failures that judge clause `cid` (or, with `token`, that case of
        it): those an SPSQ_JUDGING block traced to it, and those outside every
        block when SPSQ_CLAUSES named it."""
        def hits(tokens):
            if token is not None:
                return token in tokens or cid in tokens
            return any(catalogue.clause_of(t) == cid for t in tokens)
        top = self._list("clauses")
        return [f for f in self.real_failures
                if hits(traced_tokens(f) or top)]

    @property
    def attributed(self):
        """Whether some failure judges a clause (else only the source can say)."""
        return any(traced_tokens(f) or self._list("clauses") for f in self.real_failures)

    @property
    def exercises(self):
        """Clauses the test goes through without judging them."""
        return [catalogue.clause_of(t) for t in self._list("exercises")]

    @property
    def invariants(self):
        """Clauses the fixture checked after the test (pass unless violated)."""
        return self._list("invariants")

    @property
    def invariant_violations(self):
        return self._list("invariant_violations")

    def readings(self):
        return {k[len("reading."):]: v for k, v in self.properties.items()
                if k.startswith("reading.")}


# What GoogleTest prints before the SCOPED_TRACE lines of a failure, and the
# marker of an SPSQ_JUDGING block's line (testkit/clauses.h).
TRACE_HEADER = "Google Test trace:"
JUDGING_TRACE = "spsq-judging:"
# A test skips with this prefix when the implementation under test cannot
# report an outcome it checks (conformance/l3/l3_fixture.h, KindsReported): the
# clause is then an INTERPRETATION with the reason, never FAIL or PASS.
UNREPORTED = "not reported by the implementation: "

# Appended to the failures of a test that failed and then skipped.
SKIP_NOTE = "(then skipped: "


def traced_tokens(message):
    """The clause tokens an SPSQ_JUDGING block traced a failure to: the
    innermost block's (GoogleTest lists traces innermost first); [] for a
    failure outside every block."""
    at = message.find(TRACE_HEADER)
    if at < 0:
        return []
    for line in message[at:].split("\n"):
        i = line.find(JUDGING_TRACE)
        if i >= 0:
            return line[i + len(JUDGING_TRACE):].split()
    return []


def parse_gtest_xml(path, binary):
    """TestCases from one GoogleTest XML file (1.10+ or older attribute style)."""
    tree = ET.parse(path)
    cases = []
    for tc in tree.iter("testcase"):
        case = TestCase(binary, tc.get("classname", ""), tc.get("name", ""))
        status = tc.get("status", "run")
        result = tc.get("result", "completed")
        if status == "notrun" or result == "suppressed":
            case.ran = False
            case.skip_reason = "disabled"
        for sk in tc.findall("skipped"):
            case.ran = False
            case.skip_reason = sk.get("message", "") or (sk.text or "").strip() or "skipped"
        if result == "skipped":
            case.ran = False
            case.skip_reason = case.skip_reason or "skipped"
        for f in tc.findall("failure"):
            case.failures.append((f.text or f.get("message", "")).strip())
        if case.failures and not case.ran:
            # GoogleTest reports a test that failed and then skipped as
            # skipped; its failures still count.
            case.ran = True
            case.failures.append("%s%s)" % (SKIP_NOTE, case.skip_reason))
        for p in tc.iter("property"):
            case.properties[p.get("name")] = p.get("value", "")
        # Pre-1.10 GoogleTest wrote properties as extra attributes.
        for key, value in tc.attrib.items():
            if key not in ("name", "status", "result", "time", "timestamp", "classname",
                           "file", "line", "value_param", "type_param"):
                case.properties.setdefault(key, value)
        cases.append(case)
    return cases


# One failing test of a FAIL clause: its name, the failure texts that judge
# the clause, the decoded region, the command that runs it alone, its region
# dump in the package; then its first assertion and its reproducer: the
# binary's label, the environment its stage set, the input a stage found.
Failure = collections.namedtuple(
    "Failure", "test message region rerun dump assertion binary env reproducer")


def failure_of(test, clause_id):
    """The Failure record of `test` for clause `clause_id` (a test that only
    broke an invariant of it has no text of its own)."""
    own = test.failures_judging(clause_id)
    p = test.properties
    return Failure(test.full_name, "\n".join(own) or "invariant broken", p.get("region", ""),
                   p.get("rerun", ""), p.get("region_dump", ""),
                   first_assertion(own[0]) if own else "invariant broken",
                   p.get("binary_label", ""), p.get("env", ""), p.get("reproducer", ""))


class Verdict(object):
    def __init__(self, clause, verdict, detail, tests=None, readings=None, failures=None):
        self.clause = clause
        self.verdict = verdict
        self.detail = detail
        self.tests = tests or []
        self.readings = readings or {}
        self.failures = failures or []  # Failure records
        self.cases = {}  # checklist case key -> PASS / FAIL / skipped / not judged here

    def to_json(self):
        c = self.clause
        out = {
            "id": c["id"],
            "section": c["section"],
            "level": c["level"],
            "role": c["role"],
            "requirement": c["requirement"],
            "text": c["text"],
            "verdict": self.verdict,
            "detail": self.detail,
            "tests": self.tests,
        }
        if self.readings:
            out["readings"] = self.readings
            out["interpretation"] = c.get("interpretation")
        if self.failures:
            out["failures"] = [f._asdict() for f in self.failures]
        if self.cases:
            out["cases"] = self.cases
        return out


def case_statuses(clause, covering):
    """Per checklist case of the clause: what the tests of this certification showed."""
    out = {}
    for key in sorted(clause.get("cases", {})):
        token = "%s/%s" % (clause["id"], key)
        naming = [t for t in covering if token in t.cases and not declared_not_applicable(t)]
        if any(t.failures_judging(clause["id"], token) for t in naming):
            out[key] = FAIL
        elif any(t.ran and not t.failures for t in naming):
            out[key] = PASS
        elif any(t.ran for t in naming):
            out[key] = "its test failed on other checks"
        elif naming:
            out[key] = "skipped"
        else:
            out[key] = "not judged here"
    return out


NEVER_FAIL_PREFIXES = ("AMB.", "OPEN.")


def never_fails(clause):
    """Open points, ambiguities and informative clauses record a reading or a
    deviation from the spec's words; they are never FAIL."""
    return clause["level"] == "INFO" or clause["id"].startswith(NEVER_FAIL_PREFIXES)


def declared_not_applicable(case):
    return not case.ran and "not applicable:" in (case.skip_reason or "")


def not_applicable_why(case):
    """A declared not-applicable skip's reason, from "not applicable:" on."""
    return case.skip_reason[case.skip_reason.index("not applicable:"):]


def not_applicable_note(covering):
    """What a row adds when some of its tests declared themselves not
    applicable: a PASS resting on fewer tests must say so."""
    na = [t for t in covering if declared_not_applicable(t)]
    if not na:
        return ""
    return "; %d not applicable: %s" % (len(na), "; ".join(
        sorted({not_applicable_why(t)[len("not applicable:"):].strip() for t in na})))


def first_assertion(message):
    """The assertion a failure text opens with: its lines before the
    SPSQ_JUDGING trace GoogleTest appends."""
    return message.split(TRACE_HEADER, 1)[0].strip()


def first_failure_line(message):
    """The first assertion of a GoogleTest failure text, for a row."""
    lines = [l.strip() for l in message.strip().split("\n") if l.strip()]
    if not lines:
        return ""
    # "file:line\nExpected equality..." -> keep the location and what failed.
    return " ".join(lines[:4])[:300]


def compute_verdicts(clauses, cases, role="L2", not_run=None):
    """One Verdict per catalogue clause, for a certification of `role`.

    A clause is PASS only when every test that judges it ran and passed; a
    covering test skipped without declaring itself "not applicable:" makes it
    UNTESTED. Invariants checked after every test can FAIL a clause, never
    PASS one on their own. `not_run` maps clause IDs to why the stage that
    judges them did not run (e.g. interop without the reference runtime)."""
    not_run = not_run or {}
    by_clause = {}
    broken = {}
    checked_count = {}
    for case in cases:
        for cid in case.clauses:
            by_clause.setdefault(cid, []).append(case)
        if case.ran:
            for cid in case.invariants:
                checked_count[cid] = checked_count.get(cid, 0) + 1
        for cid in case.invariant_violations:
            broken.setdefault(cid, []).append(case)
    verdicts = []
    for c in clauses:
        reason = catalogue.not_applicable_reason(c, role)
        if reason and catalogue.judged_through_testee(c, role) and any(
                not declared_not_applicable(t) for t in by_clause.get(c["id"], [])):
            reason = None  # a testee on the Python surface: its test ran
        if reason:
            verdicts.append(Verdict(c, NOT_APPLICABLE, reason))
            continue
        covering = by_clause.get(c["id"], [])
        names = sorted(t.full_name for t in covering)
        judged = [t for t in covering if not declared_not_applicable(t)]
        ran = [t for t in judged if t.ran]
        skipped = [t for t in judged if not t.ran]
        failed = [t for t in judged if t.failures_judging(c["id"])] + [
            t for t in broken.get(c["id"], []) if t not in judged]
        # Failed, but on checks judged apart: this clause's own checks may
        # not all have run (a fatal assertion ends the test).
        cut_short = [t for t in judged if t.failures and t not in failed]

        def first_line(t):
            own = t.failures_judging(c["id"])
            return first_failure_line(own[0]) if own else "invariant broken"
        readings = {}
        for t in ran:
            value = t.readings().get(c["id"])
            if value:
                letter = value.split(":", 1)[0].strip()
                readings.setdefault(letter, []).append("%s (%s)" % (value, t.binary))
        if failed and never_fails(c):
            first = failed[0]
            verdicts.append(Verdict(
                c, INTERPRETATION, "deviation from the spec's words: %s failed: %s" % (
                    first.full_name, first_line(first)), names, readings=readings))
            continue
        if failed:
            failures = [failure_of(t, c["id"]) for t in failed]
            first = failed[0]
            where = "".join("; %s: %s" % (k, first.properties[p]) for k, p in (
                ("re-run", "rerun"), ("region", "region_dump")) if first.properties.get(p))
            # Tests that broke an invariant of the clause judge it too.
            judging = len(judged) + len([t for t in failed if t not in judged])
            verdicts.append(Verdict(c, FAIL, "%d of %d judging tests failed; first: %s: %s%s" % (
                len(failed), judging, first.full_name, first_line(first),
                where), names, failures=failures))
            continue
        if cut_short:
            first = cut_short[0]
            others = sorted({tok for f in first.real_failures
                             for tok in (traced_tokens(f) or ["an unnamed check"])})
            verdicts.append(Verdict(c, UNTESTED, (
                "%s failed on checks judged apart (%s), so not all of this clause's checks are "
                "known to have run: %s") % (first.full_name, ", ".join(others),
                                            first_failure_line(first.real_failures[0])),
                names, readings=readings))
            continue
        if covering and not judged:
            why = sorted({not_applicable_why(t) for t in covering})[0]
            verdicts.append(Verdict(c, NOT_APPLICABLE, why, names))
            continue
        if skipped and all(t.skip_reason.startswith(UNREPORTED) for t in skipped):
            # The implementation cannot report an outcome a check needs (a
            # testee's error kind behind a plain exception): no verdict on a
            # guess, and no FAIL; the reason is stated.
            verdicts.append(Verdict(c, INTERPRETATION, "%d of %d judging tests saw no outcome "
                                    "to check: %s" % (
                                        len(skipped), len(judged),
                                        "; ".join(sorted({t.skip_reason[len(UNREPORTED):]
                                                          for t in skipped}))),
                                    names, readings=readings))
            continue
        if skipped or not ran:
            if skipped:
                why = "%d of %d judging tests skipped: %s%s" % (
                    len(skipped), len(judged), "; ".join(sorted({t.skip_reason for t in skipped})),
                    not_applicable_note(covering))
            elif c["id"] in not_run:
                why = not_run[c["id"]]
            elif "blocked_on" in c:
                why = "waits for %s" % c["blocked_on"]
            elif "untestable" in c:
                why = c["untestable"]
            elif checked_count.get(c["id"]):
                why = ("only checked as an invariant after %d tests; no test judges it" %
                       checked_count[c["id"]])
            else:
                why = "no test in this certification covers it"
            verdicts.append(Verdict(c, UNTESTED, why, names))
            continue
        if "interpretation" in c:
            listed = c["interpretation"].get("readings", {})
            unlisted = sorted(k for k in readings if k not in listed)
            if unlisted:
                verdicts.append(Verdict(c, UNTESTED, "recorded reading %s is not one of %s's" % (
                    ", ".join(unlisted), c["id"]), names, readings=readings))
            elif readings:
                summary = ", ".join("reading %s" % k for k in sorted(readings)) + (
                    not_applicable_note(covering))
                verdicts.append(Verdict(c, INTERPRETATION, summary, names, readings=readings))
            else:
                verdicts.append(Verdict(c, UNTESTED, "tests passed but recorded no reading",
                                        names))
            continue
        extra = (" and checked after each of %d tests" % checked_count[c["id"]]
                 if checked_count.get(c["id"]) else "")
        na = not_applicable_note(covering)
        if na:
            detail = "%d of %d judging tests ran and passed%s%s" % (
                len(ran), len(covering), na, extra)
        else:
            detail = "%d covering tests passed%s" % (len(ran), extra)
        verdicts.append(Verdict(c, PASS, detail, names))
    for v in verdicts:
        if v.verdict == NOT_APPLICABLE or not v.clause.get("cases"):
            continue
        v.cases = case_statuses(v.clause, by_clause.get(v.clause["id"], []))
        open_cases = sorted(k for k, st in v.cases.items() if st not in (PASS, FAIL))
        if open_cases:
            v.detail += action.CASES_NOTE + ", ".join(
                "%s (%s)" % (k, v.cases[k]) for k in open_cases)
    return verdicts


def unattributed_failures(cases):
    """Failed tests none of whose failures judges a clause: they fail a
    certification outright."""
    return [t for t in cases
            if t.failures and not t.attributed and not t.invariant_violations]


def counts(verdicts):
    out = {v: 0 for v in ORDER}
    for v in verdicts:
        out[v.verdict] += 1
    return out


def counts_by_level(verdicts):
    table = {}
    for v in verdicts:
        row = table.setdefault(v.clause["level"], {k: 0 for k in ORDER})
        row[v.verdict] += 1
    return table


def _md_cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(verdicts, identity, outcome=None):
    """report.md up to the stage table: the identity, what needs action (the
    FAIL clauses first), the counts, the clause matrix, the failures in full
    and the interpretations."""
    lines = ["# SPSQ %s certification: %s" % (identity.get("role", "L2"), identity.get("name", "?")),
             ""]
    for key in ("implementation", "endpoint_template", "suite_revision", "build_hash",
                "toolchain", "max_inflight"):
        if key in identity:
            lines.append("- %s: `%s`" % (key.replace("_", " "), identity[key]))
    lines += ["", action.render_markdown(report_document(verdicts, identity, outcome)).rstrip()]
    c = counts(verdicts)
    lines += ["", "## Clauses", "", "| verdict | clauses |", "|---|---|"]
    lines += ["| %s | %d |" % (k, c[k]) for k in ORDER]
    lines += ["", "By level:", "", "| level | " + " | ".join(ORDER) + " |",
              "|---|" + "---|" * len(ORDER)]
    for level, row in sorted(counts_by_level(verdicts).items()):
        lines.append("| %s | %s |" % (level, " | ".join(str(row[k]) for k in ORDER)))
    lines += ["", "| clause | level | verdict | requirement | detail |", "|---|---|---|---|---|"]
    for v in verdicts:
        lines.append("| %s | %s | %s | %s | %s |" % (
            v.clause["id"], v.clause["level"], v.verdict, _md_cell(v.clause["requirement"]),
            _md_cell(v.detail)))
    failing = [v for v in verdicts if v.verdict == FAIL]
    if failing:
        lines += ["", "## Failures", ""]
        for v in failing:
            lines += ["### %s (%s)" % (v.clause["id"], v.clause["level"]), "",
                      "> " + v.clause["requirement"], "",
                      "Spec text: \"%s\"" % v.clause["text"].replace("\n", " "), ""]
            for f in v.failures:
                lines += ["- `%s`" % f.test, "", "```", f.message.strip(), "```", ""]
                if f.region:
                    lines += ["  Region at failure (`spsq inspect`):", "", "```",
                              f.region.strip(), "```", ""]
    interp = [v for v in verdicts if v.verdict == INTERPRETATION]
    if interp:
        lines += ["", "## Interpretations", ""]
        for v in interp:
            i = v.clause.get("interpretation", {})
            lines.append("- **%s** %s %s" % (v.clause["id"], i.get("question", ""), v.detail))
            for letter, seen in sorted(v.readings.items()):
                lines.append("  - %s: %s; seen: %s" % (
                    letter, i.get("readings", {}).get(letter, "?"), "; ".join(sorted(set(seen)))))
    return "\n".join(lines) + "\n"


def report_document(verdicts, identity, outcome=None):
    """The report as data: what report.json holds and report.html renders.
    `outcome` is the runner's check of the certification: {"status": its
    exit status, "mode": what it was checked against, "lines": what it said}."""
    out = {"identity": identity, "summary": counts(verdicts),
           "by_level": counts_by_level(verdicts), "clauses": [v.to_json() for v in verdicts]}
    if outcome is not None:
        out["outcome"] = outcome
    return out


def render_json(verdicts, identity, outcome=None):
    return json.dumps(report_document(verdicts, identity, outcome), indent=1) + "\n"


def render_junit(verdicts, identity):
    """One JUnit testcase per clause: FAIL is a failure, UNTESTED and
    NOT-APPLICABLE are skipped, PASS and INTERPRETATION pass."""
    c = counts(verdicts)
    name = identity.get("name", "certification")
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<testsuites name="%s" tests="%d" failures="%d" skipped="%d">' % (
               html.escape(name), len(verdicts), c[FAIL], c[UNTESTED] + c[NOT_APPLICABLE]),
           '  <testsuite name="%s" tests="%d" failures="%d" skipped="%d">' % (
               html.escape(name), len(verdicts), c[FAIL], c[UNTESTED] + c[NOT_APPLICABLE])]
    for v in verdicts:
        cid = html.escape(v.clause["id"], quote=True)
        out.append('    <testcase classname="clause.%s" name="%s">' % (
            html.escape(v.clause["section"], quote=True), cid))
        out.append('      <properties><property name="verdict" value="%s"/>'
                   '<property name="level" value="%s"/></properties>' % (
                       v.verdict, html.escape(v.clause["level"], quote=True)))
        if v.verdict == FAIL:
            body = "Requirement: %s\n\n" % v.clause["requirement"]
            for f in v.failures:
                body += "%s\n%s\n%s\n" % (f.test, f.message, f.region)
            out.append('      <failure message="%s">%s</failure>' % (
                html.escape(v.clause["requirement"], quote=True), html.escape(body)))
        elif v.verdict in (UNTESTED, NOT_APPLICABLE):
            out.append('      <skipped message="%s: %s"/>' % (
                v.verdict, html.escape(v.detail, quote=True)))
        out.append("    </testcase>")
    out += ["  </testsuite>", "</testsuites>"]
    return "\n".join(out) + "\n"


def clauses_by_test(source_text, python=False):
    """Maps 'Suite.Name' -> clause IDs its live source declares, for tests
    that crashed or failed before they could record their properties."""
    return catalogue.declarations_by_test(source_text, python)


class CrashMap:
    """clauses_by_test over the files `sources`, read on the first get(): only
    a test that failed before it recorded its clauses, or a section its depth
    leaves out, asks, and a certification whose every test recorded them
    never parses the suite's sources."""

    def __init__(self, sources):
        self._sources = list(sources)
        self._map = None

    def get(self, key, default=None):
        if self._map is None:
            self._map = {}
            for src in self._sources:
                with open(src, errors="replace") as f:
                    # The gate's reading: comments, `#if 0`, disabled and
                    # skipped tests name nothing.
                    self._map.update(clauses_by_test(f.read(), python=src.endswith(".py")))
        return self._map.get(key, default)
