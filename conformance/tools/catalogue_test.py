"""The gate's rules on synthetic input: what a source declares (comments,
DISABLED_ tests, `#if 0` blocks and @unittest.skip tests name nothing), the
splits table, the narrowings table and where a test may name a clause."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import catalogue as C  # noqa: E402
import sentence_roles  # noqa: E402
from synthetic import clause  # noqa: E402



def declared(text, python=False):
    return C.declared_ids(C.live_declarations(text, python))


class DeclarationsTest(unittest.TestCase):
    def test_comments_name_nothing(self):
        src = ('TEST_F(S, A) {\n  // SPSQ_CLAUSES("S3.A.1");\n  /* SPSQ_CLAUSES("S3.B.1",\n'
               '  "S3.C.1"); */\n  SPSQ_CLAUSES("S3.D.1");  // and "S3.E.1"\n}\n')
        self.assertEqual(declared(src), ["S3.D.1"])
        py = '# @spsq_clauses("S3.A.1")\n@spsq_clauses("S3.B.1")  # "S3.C.1"\ndef test_x(): pass\n'
        self.assertEqual(declared(py, python=True), ["S3.B.1"])

    def test_a_judging_block_names_its_clauses(self):
        src = ('void ExpectFlag() {\n  SPSQ_JUDGING("W.FLAG.1", "S4.POISON.11/l2-first");\n}\n'
               'TEST_F(S, A) {\n  SPSQ_CLAUSES("S3.A.1");\n  { SPSQ_JUDGING("W.ERR.1"); }\n}\n')
        self.assertEqual(declared(src), ["W.FLAG.1", "S4.POISON.11/l2-first", "S3.A.1",
                                         "W.ERR.1"])
        self.assertEqual(C.declarations_by_test(src), {"S.A": ["S3.A.1", "W.ERR.1"]})

    def test_a_string_is_not_a_comment(self):
        src = 'TEST(S, A) {\n  SPSQ_CLAUSES("S3.A.1");\n  puts("// not a comment");\n}\n'
        self.assertEqual(declared(src), ["S3.A.1"])

    def test_disabled_tests_name_nothing(self):
        src = ('TEST_F(S, DISABLED_A) {\n  SPSQ_CLAUSES("S3.A.1");\n}\n'
               'TEST(DISABLED_S, B) {\n  SPSQ_CLAUSES("S3.B.1");\n}\n'
               'TEST_P(S, C) {\n  SPSQ_CLAUSES("S3.C.1");\n}\n')
        self.assertEqual(declared(src), ["S3.C.1"])

    def test_if0_blocks_name_nothing(self):
        src = ('TEST(S, A) {\n#if 0\n  SPSQ_CLAUSES("S3.A.1");\n#ifdef X\n'
               '  SPSQ_CLAUSES("S3.B.1");\n#endif\n  SPSQ_CLAUSES("S3.C.1");\n#endif\n'
               '  SPSQ_CLAUSES("S3.D.1");\n}\n'
               'TEST(S, B) {\n  #  if 0  // off\n  SPSQ_CLAUSES("S3.E.1");\n#else\n'
               '  SPSQ_CLAUSES("S3.F.1");\n#endif\n#if 1\n  SPSQ_CLAUSES("S3.G.1");\n#endif\n}\n')
        self.assertEqual(declared(src), ["S3.D.1", "S3.F.1", "S3.G.1"])
        # Line numbers stay: the blanked lines are kept as empty lines.
        self.assertEqual(C.drop_if0_blocks("a\n#if 0\nb\n#endif\nc").split("\n"),
                         ["a", "#if 0", "", "#endif", "c"])

    def test_skipped_python_tests_name_nothing(self):
        py = ('import unittest\n\n'
              'class T(unittest.TestCase):\n'
              '    @spsq_clauses("S3.A.1")\n    def test_a(self):\n        pass\n\n'
              '    @spsq_clauses("S3.B.1",\n                  "S3.C.1")\n'
              '    @unittest.skip("not yet")\n    def test_b(self):\n        pass\n\n'
              '    @unittest.skipIf(sys.platform == "win32", "posix")\n'
              '    @spsq_clauses("S3.D.1")\n    def test_d(self):\n        pass\n\n'
              '@unittest.skip("whole class")\n'
              'class U(unittest.TestCase):\n'
              '    @spsq_clauses("S3.E.1")\n    def test_e(self):\n        pass\n')
        self.assertEqual(declared(py, python=True), ["S3.A.1", "S3.D.1"])
        self.assertEqual(C.declarations_by_test(py, python=True),
                         {"T.test_a": ["S3.A.1"], "T.test_d": ["S3.D.1"]})

    def test_scan_tokens_reads_live_declarations(self):
        with tempfile.TemporaryDirectory() as d:
            cc = os.path.join(d, "x_test.cc")
            py = os.path.join(d, "y_test.py")
            with open(cc, "w") as f:
                f.write('TEST(S, A) {\n#if 0\n  SPSQ_CLAUSES("S3.A.1");\n#endif\n'
                        '  SPSQ_CLAUSES("S3.B.1/x");\n}\n')
            with open(py, "w") as f:
                f.write('@unittest.skip("no")\n@spsq_clauses("S3.C.1")\ndef test_c():\n'
                        '    pass\n')
            self.assertEqual(C.scan_tokens([cc, py]), {"S3.B.1/x": [cc]})


class BoundariesTest(unittest.TestCase):
    def test_values_are_read_from_the_case_text(self):
        self.assertEqual(C.values_in("depth 3, 6, 2^30 + 2^29 rejected; T = 1 ns, 2^64 - 1 ns"),
                         {3, 6, 3 << 29, 1, (1 << 64) - 1})
        # Digits inside names and IDs are no values.
        self.assertEqual(C.values_in("INT32_MAX, W.LAYOUT.2, sub-64"), {64})

    def test_a_rule_with_all_its_values(self):
        c = clause("S2.A.1", cases={"weak": "8, 32, 72 and 96 bytes", "zero": "0"},
                   boundaries={"multiple-of-64": "weak"})
        self.assertEqual(C.boundary_problems([c]), [])

    def test_a_case_lacking_a_value(self):
        c = clause("S2.A.1", cases={"weak": "8, 32, 72 bytes", "zero": "0"},
                   boundaries={"multiple-of-64": "weak"})
        self.assertEqual(C.boundary_problems([c]),
                         ["S2.A.1/weak: a multiple-of-64 rule's case lacks 96"])
        t = clause("S3.T.1", cases={"t": "T = 1, 2^32 - 1, 2^32, 2^64 - 1 ns", "u": "u"},
                   boundaries={"timeout": "t"})
        self.assertEqual(C.boundary_problems([t]), ["S3.T.1/t: a timeout rule's case lacks 2^63"])

    def test_a_stated_rule_must_be_declared(self):
        c = clause("S2.A.1", requirement="depth must be a power of two")
        self.assertEqual(len(C.boundary_problems([c])), 1)
        self.assertIn("power-of-two", C.boundary_problems([c])[0])
        t = clause("S3.T.1", requirement="A positive-timeout wait expires at its deadline.")
        self.assertIn("timeout", C.boundary_problems([t])[0])
        # Python's timeouts and informative clauses state no rule here.
        self.assertEqual(C.boundary_problems([clause(
            "S3.P.1", surface="python", requirement="a finite positive timeout")]), [])
        self.assertEqual(C.boundary_problems([clause(
            "AMB.X", level="INFO", requirement="after a positive-timeout wait")]), [])

    def test_unknown_rules_and_missing_cases(self):
        c = clause("S2.A.1", cases={"a": "8", "b": "9"}, boundaries={"odd": "a",
                                                                      "power-of-two": "c"})
        problems = C.boundary_problems([c])
        self.assertEqual(len(problems), 2)
        self.assertIn("unknown boundary rule 'odd'", problems[0])
        self.assertIn("names case 'c'", problems[1])


class SplitsTest(unittest.TestCase):
    SPLITS = [{"clauses": ["S3.A.1", "S3.A.2", "S3.A.3"], "why": "three requirements"}]

    def test_a_declared_split_that_holds(self):
        self.assertEqual(C.split_problems(self.SPLITS, [{"S3.A.1", "S3.A.2", "S3.A.3"}]), [])

    def test_a_split_that_lost_a_part(self):
        problems = C.split_problems(self.SPLITS, [{"S3.A.1", "S3.A.2"}])
        self.assertEqual(len(problems), 2, problems)
        self.assertIn("no longer share one sentence (a part was dropped or reworded): "
                      "S3.A.1, S3.A.2, S3.A.3", problems[0])
        self.assertIn("does not declare: S3.A.1, S3.A.2", problems[1])

    def test_an_undeclared_split(self):
        problems = C.split_problems([], [{"S3.B.1", "S3.B.2"}])
        self.assertEqual(problems, ['sentences held by several clauses that the "splits" table '
                                    'does not declare: S3.B.1, S3.B.2'])

    def test_a_split_needs_a_reason(self):
        problems = C.split_problems([{"clauses": ["S3.A.1", "S3.A.2"]}], [{"S3.A.1", "S3.A.2"}])
        self.assertEqual(problems, ["split ['S3.A.1', 'S3.A.2']: no reason"])

    def test_groups_come_from_shared_units_and_shared_text(self):
        class Unit(object):
            text = "u"
        a, b = clause("S3.A.1"), clause("S3.A.2")
        w1 = clause("W.X.1", text="same", source="wire-contract")
        w2 = clause("W.X.2", text="same ", source="wire-contract")
        groups = C.split_groups([a, b, w1, w2], [(Unit(), [a, b]), (Unit(), [a])])
        self.assertEqual(groups, {frozenset({"S3.A.1", "S3.A.2"}), frozenset({"W.X.1", "W.X.2"})})


class NarrowingsTest(unittest.TestCase):
    L3_SENTENCE = "On L3, try_peek() returns at once."

    def problems(self, clauses, narrowings=()):
        return C.role_problems(clauses, narrowings, sentence_roles.derive)

    def test_a_clause_that_matches_its_sentence(self):
        self.assertEqual(
            self.problems([clause("S1.A.1", "L3", "l3-api", text=self.L3_SENTENCE)]), [])

    def test_a_narrowing_without_an_entry(self):
        problems = self.problems([clause("S1.A.1", "L2", "cpp-l2", text=self.L3_SENTENCE)], [])
        self.assertEqual(len(problems), 1)
        self.assertIn("S1.A.1: the sentence binds L3/l3-api, the clause is L2/cpp-l2", problems[0])

    def test_contract_and_harness_clauses_are_checked_too(self):
        w = clause("W.X.1", "L2", "cpp-l2", text="A view failure poisons.",
                   source="wire-contract")
        h = clause("AMB.X", "L2", "cpp-l2", text="L3 or L2 may see it.", source="harness")
        problems = self.problems([w, h], [])
        self.assertEqual([p.split(":")[0] for p in problems], ["W.X.1", "AMB.X"])
        entry = {"clauses": ["W.X.1", "AMB.X"], "role": "L2", "surface": "cpp-l2", "why": "w"}
        self.assertEqual(self.problems([w, h], [entry]), [])

    def test_a_stale_narrowing_entry(self):
        # The clause now matches its sentence: the entry must go.
        c = clause("S1.A.1", "L3", "l3-api", text=self.L3_SENTENCE)
        entry = {"clauses": ["S1.A.1"], "role": "L3", "surface": "l3-api", "why": "w"}
        self.assertEqual(self.problems([c], [entry]),
                         ["S1.A.1: listed in narrowings but matches its sentence"])

    def test_an_entry_that_no_longer_matches_its_clause(self):
        c = clause("S1.A.1", "L2", "wire", text=self.L3_SENTENCE)
        entry = {"clauses": ["S1.A.1", "S9.GONE.1"], "role": "L2", "surface": "cpp-l2",
                 "why": "w"}
        problems = self.problems([c], [entry])
        self.assertIn("S1.A.1: narrowings says L2/cpp-l2, the clause is L2/wire", problems)
        self.assertIn("S9.GONE.1: in narrowings but not in the catalogue", problems)

    def test_an_entry_needs_a_reason_and_one_place(self):
        c = clause("S1.A.1", "L2", "cpp-l2", text=self.L3_SENTENCE)
        entries = [{"clauses": ["S1.A.1"], "role": "L2", "surface": "cpp-l2"},
                   {"clauses": ["S1.A.1"], "role": "L2", "surface": "cpp-l2", "why": "w"}]
        problems = self.problems([c], entries)
        self.assertIn("narrowing ['S1.A.1']: no reason", problems)
        self.assertIn("S1.A.1: listed twice in narrowings", problems)


class PlacementTest(unittest.TestCase):
    CLAUSES = [clause("W.V.2", "L2", "cpp-l2", cases={"l2": "a", "l3": "b"}),
               clause("S4.B.1", "both", "cpp-l2"), clause("S1.P.1", "L3", "python"),
               clause("S1.Q.1", "L3", "l3-api")]

    def test_an_l3_suite_test_naming_an_l2_only_case(self):
        tokens = {"W.V.2/l3": ["conformance/l3/s4_test.cc"],
                  "W.V.2/l2": ["conformance/l2/s4_test.cc"],
                  "S4.B.1": ["conformance/l2/a_test.cc", "conformance/l3/a_test.cc"]}
        self.assertEqual(C.misplaced_tokens(self.CLAUSES, tokens),
                         [("W.V.2/l3", "conformance/l3/s4_test.cc", "L3")])

    def test_a_clause_judged_by_its_role_is_placed(self):
        both = dict(self.CLAUSES[0], role="both")
        self.assertEqual(C.misplaced_tokens([both], {"W.V.2/l3": ["x/conformance/l3/a.cc"]}), [])

    def test_an_l2_suite_test_naming_an_l3_clause(self):
        tokens = {"S1.Q.1": ["conformance/l2/a_test.cc", "conformance/l3/a_test.cc"]}
        self.assertEqual(C.misplaced_tokens(self.CLAUSES, tokens),
                         [("S1.Q.1", "conformance/l2/a_test.cc", "L2")])

    def test_the_l3_suite_may_judge_an_l3_python_clause_for_a_testee(self):
        # A queue in a testee may speak the Python surface: the L3 suite
        # judges its Python L3 clauses then; never an L2 suite.
        self.assertEqual(C.misplaced_tokens(self.CLAUSES, {
            "S1.P.1": ["conformance/l3/s3_test.cc"]}), [])
        self.assertEqual(C.misplaced_tokens(self.CLAUSES, {
            "S1.P.1": ["conformance/l2/s3_test.cc"]}),
            [("S1.P.1", "conformance/l2/s3_test.cc", "L2")])

    def test_api_suites_may_walk_clauses_another_certification_judges(self):
        # A Python test naming an L3 clause the L3 suite judges is placed;
        # naming one that no certification judges is not.
        self.assertEqual(C.misplaced_tokens(self.CLAUSES, {
            "S1.Q.1": ["conformance/python/a_test.py", "conformance/l3/a_test.cc"],
            "S1.P.1": ["conformance/python/a_test.py"]}), [])
        self.assertEqual(C.misplaced_tokens(self.CLAUSES, {"S1.Q.1": ["conformance/python/a_test.py"]}),
                         [("S1.Q.1", "conformance/python/a_test.py", "python")])
        self.assertEqual(C.misplaced_tokens(self.CLAUSES, {
            "W.V.2/l3": ["conformance/runtime/a_test.cc"]}),
            [("W.V.2/l3", "conformance/runtime/a_test.cc", "runtime")])


if __name__ == "__main__":
    unittest.main()
