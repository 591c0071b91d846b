"""Traceability gate: the clause catalogue, the spec and the tests agree.

Fails when
  - ../shared/spec is missing, or the vendored spec differs from it,
  - a spec sentence (or code/list/table line) is covered by no clause,
  - a clause's text is not verbatim in its source document,
  - a clause is malformed (fields, level, role, ID format, duplicates),
  - a clause has no test (SPSQ_CLAUSES / SPSQ_READING / @spsq_clauses outside
    comments, `#if 0` blocks, DISABLED_ tests and @unittest.skip tests;
    unless it is informative and says why it cannot be tested, or it waits
    for a target that does not exist yet),
  - a clause waits for a target that now exists but still has no test,
  - a case of a clause's `how` checklist ("cases") has no test naming
    "<ID>/<case>", or a test names a case the clause does not list,
  - a sentence held by several clauses (a split) is not declared in the
    catalogue's "splits" table with exactly those clauses (so dropping one
    part of a split sentence fails here),
  - a clause's role or surface (spec, wire contract or harness clause)
    differs from what its sentence states (sentence_roles.py) without an
    entry in the "narrowings" table, or an entry there no longer matches,
  - a test names a clause or case the certification that runs it does not
    judge (an L3 suite test naming an L2-only clause is judged nowhere),
  - a test names a clause ID the catalogue does not have,
  - a validation or timeout clause (its "boundaries", or a requirement
    stating such a rule) lacks the values a weaker check would let through
    (catalogue.BOUNDARY_VALUES) in the case it names,
  - an open point of the wire contract has no clause.

Arguments: --root-marker FILE (a runfile inside conformance/), --catalogue,
--spec, --wire, then the test sources to scan after --sources.
"""

import argparse
import filecmp
import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import catalogue  # noqa: E402
import sentence_roles  # noqa: E402
import spec_units  # noqa: E402

ARGS = None


def parse_args(argv):
    p = argparse.ArgumentParser()
    p.add_argument("--catalogue", required=True)
    p.add_argument("--spec", required=True)
    p.add_argument("--wire", required=True)
    p.add_argument("--sources", nargs="*", default=[])
    p.add_argument("--pending", help="clause IDs whose tests are being written (one per line)")
    return p.parse_known_args(argv)


def repo_root():
    """The source tree, found through the vendored spec's real path.

    Bazel runfiles are symlinks into the workspace, so resolving one leads
    back to conformance/spec/ in the checkout.
    """
    real = os.path.realpath(ARGS.spec)
    return os.path.dirname(os.path.dirname(os.path.dirname(real)))


class Gate(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.clauses = catalogue.load(ARGS.catalogue)
        with open(ARGS.catalogue) as f:
            cls.tables = json.load(f)
        with open(ARGS.spec) as f:
            cls.spec = f.read()
        with open(ARGS.wire) as f:
            cls.wire = f.read()
        cls.tokens = catalogue.scan_tokens(ARGS.sources)
        cls.declared = catalogue.clauses_of_tokens(cls.tokens)
        cls.sections, units = spec_units.spec_units(cls.spec)
        spec_clauses = [c for c in cls.clauses if c["source"] == "spec"]
        # A unit belongs to a clause whose text holds it as a whole line or a
        # whole sentence (")" alone must not match every clause with a paren).
        pieces = {}
        for c in spec_clauses:
            lines = c["text"].split("\n")
            pieces[c["id"]] = set(lines) | {s for l in lines for s in spec_units.split_sentences(l)}
        cls.unit_owners = [(u, [c for c in spec_clauses if u.text in pieces[c["id"]]])
                           for u in units]
        cls.root = repo_root()

    def test_vendored_spec_matches_shared(self):
        shared = os.path.join(os.path.dirname(self.root), "shared", "spec")
        # Without the upstream copy the gate cannot tell drift from agreement,
        # so it fails rather than pass silently.
        self.assertTrue(os.path.isdir(shared),
                        "%s is missing: the gate compares conformance/spec/ with the shared "
                        "spec beside the checkout (clone it next to this repository)" % shared)
        for vendored in (ARGS.spec, ARGS.wire):
            name = os.path.basename(vendored)
            upstream = os.path.join(shared, name)
            self.assertTrue(os.path.exists(upstream), "missing upstream %s" % upstream)
            self.assertTrue(
                filecmp.cmp(os.path.realpath(vendored), upstream, shallow=False),
                "conformance/spec/%s differs from %s: re-vendor it and update "
                "clauses.json" % (name, upstream))

    def test_fields_and_ids(self):
        seen = set()
        for c in self.clauses:
            cid = c.get("id", "<no id>")
            for field in catalogue.REQUIRED:
                self.assertTrue(c.get(field), "%s: field %r missing or empty" % (cid, field))
            self.assertRegex(cid, catalogue.ID_PATTERN, "%s: malformed ID" % cid)
            self.assertNotIn(cid, seen, "%s: duplicate ID" % cid)
            seen.add(cid)
            self.assertIn(c["level"], catalogue.LEVELS, cid)
            self.assertIn(c["role"], catalogue.ROLES, cid)
            self.assertIn(c["surface"], catalogue.SURFACES, cid)
            self.assertIn(c["source"], catalogue.SOURCES, cid)
            if "untestable" in c:
                self.assertEqual(c["level"], "INFO",
                                 "%s: only informative clauses may be untestable" % cid)
            if "cases" in c:
                cases = c["cases"]
                self.assertIsInstance(cases, dict, "%s: cases must map key -> text" % cid)
                self.assertGreater(len(cases), 1,
                                   "%s: a single case is the clause itself; drop cases" % cid)
                for key, text in cases.items():
                    self.assertRegex(key, catalogue.CASE_KEY, "%s: malformed case key" % cid)
                    self.assertTrue(isinstance(text, str) and text.strip(),
                                    "%s/%s: case has no text" % (cid, key))
            if "interpretation" in c:
                i = c["interpretation"]
                for field in ("question", "readings", "preferred", "grading"):
                    self.assertIn(field, i, "%s: interpretation lacks %s" % (cid, field))
                self.assertIn(i["preferred"], i["readings"], cid)

    def test_clause_text_is_verbatim(self):
        wire = catalogue.normalize_ws(self.wire)
        for c in self.clauses:
            if c["source"] == "spec":
                self.assertIn(c["text"], self.spec,
                              "%s: text is not verbatim in the spec" % c["id"])
            elif c["source"] == "wire-contract":
                self.assertIn(catalogue.normalize_ws(c["text"]), wire,
                              "%s: text is not verbatim in the wire contract" % c["id"])

    def test_every_spec_unit_is_catalogued(self):
        self.assertEqual(sorted(k for k in self.sections if k != "title"),
                         ["0", "1", "2", "3", "4", "5"], "spec sections changed")
        missing = []
        for u, owners in self.unit_owners:
            if not owners:
                missing.append("line %d: %s" % (u.line, u.text))
                continue
            for c in owners:
                self.assertEqual(c["section"], u.section,
                                 "%s: spec line %d is in section %s" % (c["id"], u.line, u.section))
        self.assertFalse(missing, "spec text without a clause:\n  " + "\n  ".join(missing))

    def test_open_points_have_clauses(self):
        block = self.wire.split("## Open points", 1)[1]
        bullets = re.findall(r"^- (.+?)(?=^- |^[A-Z]|\Z)", block, re.S | re.M)
        self.assertEqual(len(bullets), 3, "wire contract open points changed")
        texts = [catalogue.normalize_ws(c["text"]) for c in self.clauses
                 if c["id"].startswith("OPEN.")]
        for b in bullets:
            want = catalogue.normalize_ws("- " + b)
            self.assertTrue(any(want == t for t in texts), "open point without a clause: " + want)

    def test_every_clause_has_a_test(self):
        pending = set()
        if ARGS.pending:
            with open(ARGS.pending) as f:
                pending = {l.split("#")[0].strip() for l in f} - {""}
        stale = sorted(p for p in pending if p in self.declared)
        self.assertFalse(stale, "pending clauses that now have tests; drop them from the "
                         "pending list: " + ", ".join(stale))
        if pending:
            print("gate: %d clauses pending (tests being written): %s" % (
                len(pending), ", ".join(sorted(pending))))
        untested, unblocked = [], []
        for c in self.clauses:
            cid = c["id"]
            if cid in self.declared or "untestable" in c or cid in pending:
                continue
            blocked = c.get("blocked_on")
            if blocked and not catalogue.label_exists(self.root, blocked):
                continue
            if blocked:
                unblocked.append("%s (%s now exists)" % (cid, blocked))
            else:
                untested.append(cid)
        self.assertFalse(untested, "clauses with no test: " + ", ".join(untested))
        self.assertFalse(unblocked, "blocked clauses whose target exists but still have no "
                         "test: " + ", ".join(unblocked))

    def test_every_case_has_a_test(self):
        skip = set()
        for c in self.clauses:
            blocked = c.get("blocked_on")
            if blocked and not catalogue.label_exists(self.root, blocked):
                skip.add(c["id"])
        missing = catalogue.cases_without_tests(self.clauses, self.tokens, skip)
        self.assertFalse(missing, "checklist cases with no test (python3 "
                         "conformance/tools/how_cases.py lists them):\n  " + "\n  ".join(
                             "%s/%s: %s" % m for m in missing))

    def test_tests_name_known_clauses(self):
        by_id = catalogue.by_id(self.clauses)
        unknown = {t: files for t, files in self.tokens.items()
                   if catalogue.clause_of(t) not in by_id}
        self.assertFalse(unknown, "tests name unknown clause IDs: %r" % unknown)
        bad_cases = {t: files for t, files in self.tokens.items()
                     if catalogue.case_of(t) and catalogue.clause_of(t) in by_id and
                     catalogue.case_of(t) not in by_id[catalogue.clause_of(t)].get("cases", {})}
        self.assertFalse(bad_cases, "tests name cases their clause does not list: %r" % bad_cases)

    def test_rules_are_tested_at_their_boundaries(self):
        problems = catalogue.boundary_problems(self.clauses)
        self.assertFalse(problems, "validation and timeout clauses without their boundary "
                         "values (CONTRIBUTING.md, the catalogue):\n  " +
                         "\n  ".join(problems))

    def test_split_sentences_keep_every_part(self):
        problems = catalogue.split_problems(
            self.tables.get("splits", []), catalogue.split_groups(self.clauses, self.unit_owners))
        self.assertFalse(problems, "\n  ".join([""] + problems))

    def test_roles_match_their_sentences(self):
        problems = catalogue.role_problems(self.clauses, self.tables.get("narrowings", []),
                                           sentence_roles.derive)
        self.assertFalse(problems, "\n  ".join([""] + problems))

    def test_tests_live_where_their_clauses_are_judged(self):
        misplaced = catalogue.misplaced_tokens(self.clauses, self.tokens)
        self.assertFalse(misplaced, "tests name clauses the certification that runs them does "
                         "not judge (fix the clause's role or move the name):\n  " + "\n  ".join(
                             "%s in %s (a %s suite)" % m for m in misplaced))

    def test_sources_were_scanned(self):
        # Guards against a BUILD change that silently passes no sources.
        self.assertGreater(len(ARGS.sources), 0)


if __name__ == "__main__":
    ARGS, rest = parse_args(sys.argv[1:])
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
