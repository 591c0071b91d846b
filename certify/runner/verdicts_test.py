"""Verdicts from synthetic GoogleTest XML: every verdict kind, invariants,
interpretations, crash mapping, and the three renderings."""

import json
import os
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import verdicts as V  # noqa: E402
from synthetic import clause  # noqa: E402



XML = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="8" failures="1">
  <testsuite name="S" tests="8">
    <testcase name="Passes" status="run" result="completed" classname="S">
      <properties><property name="clauses" value="S3.A.1,S3.B.1"/>
        <property name="invariants" value="W.INV.1"/></properties>
    </testcase>
    <testcase name="Fails" status="run" result="completed" classname="S">
      <properties><property name="clauses" value="S3.B.1"/>
        <property name="region" value="decoded region"/></properties>
      <failure message="m">Expected equality of these values: kind() Which is: 0</failure>
    </testcase>
    <testcase name="Skipped" status="run" result="skipped" classname="S">
      <skipped message="needs MaxInflight &gt;= 2"/>
      <properties><property name="clauses" value="S3.C.1"/></properties>
    </testcase>
    <testcase name="Reads" status="run" result="completed" classname="S">
      <properties><property name="clauses" value="OPEN.X"/>
        <property name="reading.OPEN.X" value="B: poisons"/></properties>
    </testcase>
    <testcase name="NotForThisOne" status="run" result="skipped" classname="S">
      <skipped message="x_test.cc:12&#10;not applicable: the endpoint uses its own names"/>
      <properties><property name="clauses" value="S3.G.1"/></properties>
    </testcase>
    <testcase name="HalfNotApplicable" status="run" result="skipped" classname="S">
      <skipped message="not applicable: adapter"/>
      <properties><property name="clauses" value="S3.H.1"/></properties>
    </testcase>
    <testcase name="HalfSkipped" status="run" result="skipped" classname="S">
      <skipped message="needs a recording view"/>
      <properties><property name="clauses" value="S3.H.1"/></properties>
    </testcase>
    <testcase name="Breaks" status="run" result="completed" classname="S">
      <properties><property name="invariants" value="W.INV.2"/>
        <property name="invariant_violations" value="W.INV.2"/></properties>
      <failure message="m">W.INV.2: wrote an L3 signal</failure>
    </testcase>
  </testsuite>
</testsuites>
"""

CLAUSES = [
    clause("S3.A.1"),
    clause("S3.B.1"),
    clause("S3.C.1"),
    clause("S3.D.1"),
    clause("S3.E.1", role="L3", surface="l3-api"),
    clause("S3.F.1", surface="python", role="L3"),
    clause("S3.G.1"),
    clause("S3.H.1"),
    clause("W.INV.1", surface="wire", role="both"),
    clause("W.INV.2", surface="wire", role="both"),
    clause("OPEN.X", level="INFO", interpretation={
        "question": "q", "readings": {"A": "a", "B": "b"}, "preferred": "A", "grading": "g"}),
]


class VerdictsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        fd, cls.path = tempfile.mkstemp(suffix=".xml")
        with os.fdopen(fd, "w") as f:
            f.write(XML)
        cls.cases = V.parse_gtest_xml(cls.path, "mi1:s3")
        cls.verdicts = {v.clause["id"]: v for v in V.compute_verdicts(CLAUSES, cls.cases, "L2")}

    def test_parses_properties_failures_and_skips(self):
        by_name = {c.name: c for c in self.cases}
        self.assertEqual(by_name["Passes"].clauses, ["S3.A.1", "S3.B.1"])
        self.assertEqual(by_name["Fails"].failures[0][:20], "Expected equality of")
        self.assertFalse(by_name["Skipped"].ran)
        self.assertEqual(by_name["Skipped"].skip_reason, "needs MaxInflight >= 2")
        self.assertEqual(by_name["Reads"].readings(), {"OPEN.X": "B: poisons"})

    def test_each_verdict_kind(self):
        v = self.verdicts
        self.assertEqual(v["S3.A.1"].verdict, V.PASS)
        self.assertEqual(v["S3.B.1"].verdict, V.FAIL)  # one of two covering tests failed
        self.assertIn("Which is: 0", v["S3.B.1"].failures[0][1])
        self.assertEqual(v["S3.B.1"].failures[0][2], "decoded region")
        self.assertEqual(v["S3.C.1"].verdict, V.UNTESTED)
        self.assertIn("MaxInflight", v["S3.C.1"].detail)
        self.assertEqual(v["S3.D.1"].verdict, V.UNTESTED)
        self.assertEqual(v["S3.E.1"].verdict, V.NOT_APPLICABLE)
        self.assertIn("L3", v["S3.E.1"].detail)
        self.assertIn("Python", v["S3.F.1"].detail)
        self.assertEqual(v["OPEN.X"].verdict, V.INTERPRETATION)
        self.assertEqual(sorted(v["OPEN.X"].readings), ["B"])

    def test_declared_not_applicable_skips(self):
        # Every covering test declared "not applicable:": NOT-APPLICABLE, with
        # the declaration as the reason; one plain skip among them: UNTESTED.
        v = self.verdicts
        self.assertEqual(v["S3.G.1"].verdict, V.NOT_APPLICABLE)
        self.assertTrue(v["S3.G.1"].detail.startswith("not applicable: the endpoint uses"))
        self.assertEqual(v["S3.H.1"].verdict, V.UNTESTED)
        self.assertIn("recording view", v["S3.H.1"].detail)

    def test_invariants(self):
        # Checked after every test but judged by none: no PASS from that alone.
        self.assertEqual(self.verdicts["W.INV.1"].verdict, V.UNTESTED)
        self.assertIn("only checked as an invariant", self.verdicts["W.INV.1"].detail)
        self.assertEqual(self.verdicts["W.INV.2"].verdict, V.FAIL)

    def test_roles_change_applicability(self):
        l3 = {v.clause["id"]: v for v in V.compute_verdicts(CLAUSES, self.cases, "L3")}
        self.assertEqual(l3["S3.A.1"].verdict, V.NOT_APPLICABLE)
        self.assertEqual(l3["S3.E.1"].verdict, V.UNTESTED)
        self.assertEqual(l3["W.INV.1"].verdict, V.UNTESTED)

    def test_renderings(self):
        vs = V.compute_verdicts(CLAUSES, self.cases, "L2")
        identity = {"name": "n", "role": "L2"}
        md = V.render_markdown(vs, identity)
        self.assertIn("| S3.B.1 | MUST | FAIL | requirement of S3.B.1 |", md)
        self.assertIn("> requirement of S3.B.1", md)
        js = json.loads(V.render_json(vs, identity))
        self.assertEqual(js["summary"]["FAIL"], 2)
        root = ET.fromstring(V.render_junit(vs, identity))
        self.assertEqual(root.get("failures"), "2")
        self.assertEqual(len(root.findall(".//testcase")), len(CLAUSES))
        self.assertEqual(len(root.findall(".//failure")), 2)

    def test_crash_mapping_reads_clauses_per_test(self):
        src = ('TEST_F(S, One) {\n  SPSQ_CLAUSES("S3.A.1", "S3.B.1");\n}\n'
               'TEST(T, Two) {\n  SPSQ_READING("OPEN.X", "A", "x");\n}\n')
        self.assertEqual(V.clauses_by_test(src),
                         {"S.One": ["S3.A.1", "S3.B.1"], "T.Two": ["OPEN.X"]})

    def test_crash_mapping_reads_what_the_gate_reads(self):
        # A commented-out or compiled-out name is not what the test judges.
        src = ('TEST_F(S, One) {\n  // SPSQ_CLAUSES("S3.C.1");\n  SPSQ_CLAUSES("S3.A.1");\n'
               '#if 0\n  SPSQ_CLAUSES("S3.D.1");\n#endif\n}\n'
               'TEST(S, DISABLED_Two) {\n  SPSQ_CLAUSES("S3.B.1");\n}\n')
        self.assertEqual(V.clauses_by_test(src), {"S.One": ["S3.A.1"]})
        py = ('class T(unittest.TestCase):\n'
              '    @spsq_clauses("S3.A.1")\n    def test_a(self):\n        pass\n\n'
              '    @unittest.skip("later")\n    @spsq_clauses("S3.B.1")\n'
              '    def test_b(self):\n        pass\n')
        self.assertEqual(V.clauses_by_test(py, python=True), {"T.test_a": ["S3.A.1"]})

    def test_crash_map_reads_every_source_on_first_use(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        d = tmp.name
        cc, py = os.path.join(d, "a_test.cc"), os.path.join(d, "b_test.py")
        m = V.CrashMap([cc, py])
        # Nothing is read before a test asks: the files may come later.
        with open(cc, "w") as f:
            f.write('TEST_F(S, One) {\n  SPSQ_CLAUSES("S3.A.1");\n}\n')
        with open(py, "w") as f:
            f.write('class T(unittest.TestCase):\n'
                    '    @spsq_clauses("S3.B.1")\n    def test_b(self):\n        pass\n')
        self.assertEqual(m.get("S.One"), ["S3.A.1"])
        self.assertEqual(m.get("T.test_b"), ["S3.B.1"])
        self.assertEqual(m.get("S.Missing", []), [])
        self.assertIsNone(m.get("S.Missing"))


def verdicts_of(xml_body, clauses, role="L2"):
    """Verdicts of one synthetic GoogleTest XML document's testcases."""
    fd, path = tempfile.mkstemp(suffix=".xml")
    with os.fdopen(fd, "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites><testsuite name="S">%s'
                '</testsuite></testsuites>' % xml_body)
    cases = V.parse_gtest_xml(path, "mi1:s")
    os.unlink(path)
    return cases, {v.clause["id"]: v for v in V.compute_verdicts(clauses, cases, role)}


def case(name, clauses="", body="", result="completed", extra=""):
    props = '<property name="clauses" value="%s"/>' % clauses if clauses else ""
    return ('<testcase name="%s" status="run" result="%s" classname="S">%s'
            '<properties>%s%s</properties></testcase>' % (name, result, body, props, extra))


class VerdictHolesTest(unittest.TestCase):
    """Each way a verdict could promise more than the tests showed."""

    def test_pass_needs_every_judging_test_to_run(self):
        _, v = verdicts_of(case("Ran", "S3.A.1") + case(
            "Skipped", "S3.A.1", '<skipped message="no recording view"/>', "skipped"),
            [clause("S3.A.1")])
        self.assertEqual(v["S3.A.1"].verdict, V.UNTESTED)
        self.assertIn("1 of 2 judging tests skipped: no recording view", v["S3.A.1"].detail)

    def test_declared_not_applicable_skips_do_not_count(self):
        _, v = verdicts_of(case("Ran", "S3.A.1") + case(
            "Mi1", "S3.A.1", '<skipped message="not applicable: needs MaxInflight &gt;= 2"/>',
            "skipped"), [clause("S3.A.1")])
        self.assertEqual(v["S3.A.1"].verdict, V.PASS)

    def test_a_pass_row_names_its_not_applicable_skips(self):
        _, v = verdicts_of(case("Ran", "S3.A.1") + case("AlsoRan", "S3.A.1") + case(
            "Mi1", "S3.A.1", '<skipped message="x.cc:3&#10;not applicable: needs MaxInflight '
            '&gt;= 2"/>', "skipped"), [clause("S3.A.1")])
        self.assertEqual(v["S3.A.1"].verdict, V.PASS)
        self.assertEqual(v["S3.A.1"].detail, "2 of 3 judging tests ran and passed; "
                         "1 not applicable: needs MaxInflight >= 2")

    def test_an_untested_row_also_names_its_not_applicable_skips(self):
        _, v = verdicts_of(case("Ran", "S3.A.1") + case(
            "Plain", "S3.A.1", '<skipped message="no recording view"/>', "skipped") + case(
            "Na", "S3.A.1", '<skipped message="not applicable: adapter"/>', "skipped"),
            [clause("S3.A.1")])
        self.assertEqual(v["S3.A.1"].verdict, V.UNTESTED)
        self.assertIn("1 not applicable: adapter", v["S3.A.1"].detail)

    def test_a_python_surface_clause_is_judged_where_a_testee_ran_its_test(self):
        py = [clause("S3.PY.1", role="L3", surface="python")]
        _, ran = verdicts_of(case("Ran", "S3.PY.1"), py, role="L3")
        self.assertEqual(ran["S3.PY.1"].verdict, V.PASS)
        _, failed = verdicts_of(case("Fails", "S3.PY.1", '<failure message="m">x</failure>'),
                                py, role="L3")
        self.assertEqual(failed["S3.PY.1"].verdict, V.FAIL)
        _, cpp = verdicts_of(case("Cpp", "S3.PY.1", '<skipped message="not applicable: the '
                                  'C++ L3 API"/>', "skipped"), py, role="L3")
        self.assertEqual(cpp["S3.PY.1"].verdict, V.NOT_APPLICABLE)
        self.assertIn("judged by the Python certification", cpp["S3.PY.1"].detail)
        _, l2 = verdicts_of(case("Ran", "S3.PY.1"), py, role="L2")
        self.assertEqual(l2["S3.PY.1"].verdict, V.NOT_APPLICABLE)

    def test_a_kind_the_testee_cannot_report_is_an_interpretation_not_fail(self):
        # The suite skips a test on a kind check the testee answered null.
        _, v = verdicts_of(case("Kind", "S3.A.1", '<skipped message="not reported by the '
                                'implementation: the testee does not report error kinds"/>',
                                "skipped"), [clause("S3.A.1")])
        self.assertEqual(v["S3.A.1"].verdict, V.INTERPRETATION)
        self.assertIn("the testee does not report error kinds", v["S3.A.1"].detail)
        # Any other skip among the judging tests leaves the clause UNTESTED.
        _, v = verdicts_of(case("Kind", "S3.A.1", '<skipped message="not reported by the '
                                'implementation: the testee does not report error kinds"/>',
                                "skipped") +
                           case("Other", "S3.A.1", '<skipped message="shortened run"/>',
                                "skipped"), [clause("S3.A.1")])
        self.assertEqual(v["S3.A.1"].verdict, V.UNTESTED)

    def test_failures_before_a_skip_count(self):
        cases, v = verdicts_of(case(
            "FailsThenSkips", "S3.A.1",
            '<failure message="m">wrap.cc:10\nExpected: 5\nActual: 4</failure>'
            '<skipped message="shortened run"/>', "skipped"), [clause("S3.A.1")])
        self.assertTrue(cases[0].ran)
        self.assertEqual(v["S3.A.1"].verdict, V.FAIL)
        self.assertIn("Expected: 5", v["S3.A.1"].detail)

    def test_invariant_fallback_needs_a_dedicated_test(self):
        _, v = verdicts_of(
            case("Other", "S3.B.1", extra='<property name="invariants" value="W.INV.1"/>') +
            case("Dedicated", "W.INV.2", '<skipped message="x"/>', "skipped",
                 extra='<property name="invariants" value="W.INV.2"/>') +
            case("Judges", "S3.B.1,W.INV.3", extra='<property name="invariants" value="W.INV.3"/>'),
            [clause("S3.B.1"), clause("W.INV.1"), clause("W.INV.2"), clause("W.INV.3")])
        self.assertEqual(v["W.INV.1"].verdict, V.UNTESTED)  # no dedicated test at all
        self.assertEqual(v["W.INV.2"].verdict, V.UNTESTED)  # its dedicated test skipped
        self.assertEqual(v["W.INV.3"].verdict, V.PASS)
        self.assertIn("checked after each of 1 tests", v["W.INV.3"].detail)

    def test_fail_row_counts_every_judging_test(self):
        # One covering test, two more that broke the clause as an invariant:
        # 3 of 3, never "3 of 1".
        broke = '<property name="invariants" value="W.INV.2"/>' \
                '<property name="invariant_violations" value="W.INV.2"/>'
        _, v = verdicts_of(
            case("Covers", "W.INV.2", '<failure message="m">W.INV.2: a</failure>') +
            case("BreaksA", "S3.B.1", '<failure message="m">W.INV.2: b</failure>', extra=broke) +
            case("BreaksB", "S3.B.1", '<failure message="m">W.INV.2: c</failure>', extra=broke),
            [clause("S3.B.1"), clause("W.INV.2")])
        self.assertEqual(v["W.INV.2"].verdict, V.FAIL)
        self.assertIn("3 of 3 judging tests failed", v["W.INV.2"].detail)

    def test_unattributed_failure_is_reported(self):
        cases, _ = verdicts_of(case("SetUpFailed", "", '<failure message="m">SetUp</failure>'),
                               [clause("S3.A.1")])
        self.assertEqual([t.name for t in V.unattributed_failures(cases)], ["SetUpFailed"])

    def test_interpretation_needs_a_listed_reading(self):
        interp = {"question": "q", "readings": {"A": "a", "B": "b"}, "preferred": "A",
                  "grading": "g"}
        _, v = verdicts_of(
            case("None", "OPEN.X") +
            case("Unlisted", "OPEN.Y", extra='<property name="reading.OPEN.Y" value="C: c"/>') +
            case("Listed", "OPEN.Z", extra='<property name="reading.OPEN.Z" value="B: b"/>'),
            [clause(i, level="INFO", interpretation=interp) for i in ("OPEN.X", "OPEN.Y", "OPEN.Z")])
        self.assertEqual(v["OPEN.X"].verdict, V.UNTESTED)
        self.assertIn("no reading", v["OPEN.X"].detail)
        self.assertEqual(v["OPEN.Y"].verdict, V.UNTESTED)
        self.assertIn("not one of", v["OPEN.Y"].detail)
        self.assertEqual(v["OPEN.Z"].verdict, V.INTERPRETATION)

    def test_ambiguities_and_info_never_fail(self):
        interp = {"question": "q", "readings": {"A": "a"}, "preferred": "A", "grading": "g"}
        _, v = verdicts_of(case("Fails", "AMB.X,S0.INFO.1,S3.A.1",
                                '<failure message="m">t.cc:3\nValue of: live()</failure>'),
                           [clause("AMB.X", level="INFO", interpretation=interp),
                            clause("S0.INFO.1", level="INFO"), clause("S3.A.1")])
        self.assertEqual(v["S3.A.1"].verdict, V.FAIL)
        for cid in ("AMB.X", "S0.INFO.1"):
            self.assertEqual(v[cid].verdict, V.INTERPRETATION)
            self.assertIn("deviation from the spec's words", v[cid].detail)

    def test_exercised_clauses_are_not_judged(self):
        _, v = verdicts_of(
            case("Livelocks", "LIVE.1", '<failure message="m">refused</failure>',
                 extra='<property name="exercises" value="S2.FIT.1"/>') +
            case("Places", "S2.FIT.1"),
            [clause("LIVE.1"), clause("S2.FIT.1")])
        self.assertEqual(v["LIVE.1"].verdict, V.FAIL)
        self.assertEqual(v["S2.FIT.1"].verdict, V.PASS)

    def test_fail_row_quotes_the_first_failing_assertion(self):
        _, v = verdicts_of(case("A", "S3.A.1", '<failure message="m">x.cc:7\nExpected equality'
                                ' of these values:\n  kind()\n    Which is: 0</failure>'),
                           [clause("S3.A.1")])
        self.assertIn("mi1:s S.A: x.cc:7 Expected equality of these values: kind() Which is: 0",
                      v["S3.A.1"].detail)

    def test_a_named_case_judges_its_clause(self):
        cases, v = verdicts_of(
            case("EdgeFails", "S4.P.1/first", '<failure message="m">poisoned late</failure>') +
            case("OtherCase", "S4.P.1/wrap,S3.A.1"),
            [clause("S4.P.1", cases={"first": "f", "wrap": "w"}), clause("S3.A.1")])
        self.assertEqual(cases[0].clauses, ["S4.P.1"])
        self.assertEqual(cases[0].cases, ["S4.P.1/first"])
        self.assertEqual(v["S4.P.1"].verdict, V.FAIL)
        self.assertEqual(v["S4.P.1"].cases, {"first": V.FAIL, "wrap": V.PASS})
        self.assertEqual(v["S3.A.1"].verdict, V.PASS)

    def test_a_row_names_the_cases_it_did_not_judge(self):
        _, v = verdicts_of(case("First", "S4.P.1/first"),
                           [clause("S4.P.1", cases={"first": "f", "wrap": "w"})])
        self.assertEqual(v["S4.P.1"].verdict, V.PASS)
        self.assertIn("cases not judged here: wrap (not judged here)", v["S4.P.1"].detail)


def scoped(ids):
    return '<property name="scoped_clauses" value="%s"/>' % ids


def failure(text, *traces):
    """A failure as GoogleTest writes it, with SCOPED_TRACE lines (innermost first)."""
    if traces:
        text += "&#10;Google Test trace:" + "".join(
            "&#10;t.cc:%d: %s" % (9 - i, t) for i, t in enumerate(traces))
    return '<failure message="m">%s</failure>' % text


class JudgingTest(unittest.TestCase):
    """SPSQ_JUDGING: a failure inside a block judges the block's clauses only."""

    CLAUSES = [clause("S4.P.5"), clause("W.FLAG.1"), clause("W.ERR.1"),
               clause("S4.P.11", cases={"l2-first": "f", "l3": "t"})]

    def test_a_traced_failure_fails_only_its_block(self):
        _, v = verdicts_of(case("Poisons", "S4.P.5", failure(
            "t.cc:8&#10;Expected: 1&#10;flag", "spsq-judging: W.FLAG.1"),
            extra=scoped("W.FLAG.1,W.ERR.1")), self.CLAUSES)
        self.assertEqual(v["W.FLAG.1"].verdict, V.FAIL)
        self.assertIn("t.cc:8 Expected: 1 flag", v["W.FLAG.1"].detail)
        # The test's own clause and the other block's: judged by a test that
        # stopped somewhere, so neither is a PASS.
        for cid in ("S4.P.5", "W.ERR.1"):
            self.assertEqual(v[cid].verdict, V.UNTESTED, cid)
            self.assertIn("failed on checks judged apart (W.FLAG.1)", v[cid].detail)

    def test_an_untraced_failure_fails_what_spsq_clauses_named(self):
        _, v = verdicts_of(case("Poisons", "S4.P.5", failure("t.cc:3&#10;main check"),
                                extra=scoped("W.FLAG.1")), self.CLAUSES)
        self.assertEqual(v["S4.P.5"].verdict, V.FAIL)
        self.assertEqual(v["W.FLAG.1"].verdict, V.UNTESTED)

    def test_the_innermost_block_is_the_one_judged(self):
        _, v = verdicts_of(case("Nested", "S4.P.5", failure(
            "t.cc:4&#10;inner", "spsq-judging: W.ERR.1", "spsq-judging: W.FLAG.1"),
            extra=scoped("W.FLAG.1,W.ERR.1")), self.CLAUSES)
        self.assertEqual(v["W.ERR.1"].verdict, V.FAIL)
        self.assertEqual(v["W.FLAG.1"].verdict, V.UNTESTED)

    def test_other_traces_do_not_attribute(self):
        _, v = verdicts_of(case("Traced", "S4.P.5", failure(
            "t.cc:4&#10;lap 3", "lap 3 of 9"), extra=scoped("W.FLAG.1")), self.CLAUSES)
        self.assertEqual(v["S4.P.5"].verdict, V.FAIL)

    def test_a_block_judges_a_case(self):
        _, v = verdicts_of(
            case("First", "S4.P.5", failure("t.cc:4&#10;flag twice",
                                            "spsq-judging: S4.P.11/l2-first"),
                 extra=scoped("S4.P.11/l2-first")) +
            case("L3", "S4.P.11/l3"), self.CLAUSES)
        self.assertEqual(v["S4.P.11"].verdict, V.FAIL)
        self.assertEqual(v["S4.P.11"].cases, {"l2-first": V.FAIL, "l3": V.PASS})

    def test_blocks_that_passed_make_their_clauses_pass(self):
        _, v = verdicts_of(case("Clean", "S4.P.5", extra=scoped("W.FLAG.1,W.ERR.1")),
                           self.CLAUSES)
        for cid in ("S4.P.5", "W.FLAG.1", "W.ERR.1"):
            self.assertEqual(v[cid].verdict, V.PASS, cid)

    def test_a_failure_outside_blocks_of_a_test_without_spsq_clauses_is_unattributed(self):
        cases, v = verdicts_of(case("OnlyBlocks", "", failure("t.cc:2&#10;setup"),
                                    extra=scoped("W.FLAG.1")), self.CLAUSES)
        self.assertEqual([t.name for t in V.unattributed_failures(cases)], ["OnlyBlocks"])
        self.assertEqual(v["W.FLAG.1"].verdict, V.UNTESTED)


class CatalogueRulesTest(unittest.TestCase):
    """The gate's helpers: case tokens, case checklists, sentence roles."""

    def test_case_tokens(self):
        import catalogue
        self.assertEqual(catalogue.declared_ids('SPSQ_CLAUSES("S4.POISON.1/seq0", "W.CTR.2")'),
                         ["S4.POISON.1/seq0", "W.CTR.2"])
        self.assertEqual(catalogue.clause_of("S4.POISON.1/seq0"), "S4.POISON.1")
        self.assertIsNone(catalogue.case_of("S4.POISON.1"))
        missing = catalogue.cases_without_tests(
            [clause("S4.P.1", cases={"a": "case a", "b": "case b"})], {"S4.P.1/a": ["x.cc"]})
        self.assertEqual(missing, [("S4.P.1", "b", "case b")])

    def test_sentence_roles(self):
        import sentence_roles as R
        self.assertEqual(R.derive("ERROR is a normal message: the queue does not interpret "
                                  "its payload."), ("both", None))
        self.assertEqual(R.derive("L2 must not call peek() again before releasing it."),
                         ("L2", None))
        self.assertEqual(R.derive("try_enqueue(buffer, nbytes) returns False"), ("L3", "l3-api"))
        self.assertEqual(R.derive("offset 64:  input_desc_head        writer=L2"),
                         ("both", "wire"))
        self.assertEqual(R.derive("Python try_* APIs are the non-blocking path"),
                         (None, "python"))


if __name__ == "__main__":
    unittest.main()
