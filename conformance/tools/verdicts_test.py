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


def clause(cid, role="L2", surface="cpp-l2", level="MUST", **extra):
    c = {"id": cid, "section": "3", "source": "spec", "text": "text of " + cid,
         "requirement": "requirement of " + cid, "level": level, "role": role,
         "surface": surface, "how": "how"}
    c.update(extra)
    return c


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
        self.assertEqual(self.verdicts["W.INV.1"].verdict, V.PASS)
        self.assertEqual(self.verdicts["W.INV.2"].verdict, V.FAIL)

    def test_roles_change_applicability(self):
        l3 = {v.clause["id"]: v for v in V.compute_verdicts(CLAUSES, self.cases, "L3")}
        self.assertEqual(l3["S3.A.1"].verdict, V.NOT_APPLICABLE)
        self.assertEqual(l3["S3.E.1"].verdict, V.UNTESTED)
        self.assertEqual(l3["W.INV.1"].verdict, V.PASS)

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


if __name__ == "__main__":
    unittest.main()
