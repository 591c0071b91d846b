"""spsq_testing's own rules, without the extension (a stub stands in for the
spsq module): what the XML says of a judging block's failure, and how
--gtest_filter selects tests, as the certification relies on both."""

import io
import os
import sys
import tempfile
import types
import unittest
import xml.etree.ElementTree as ET

sys.modules.setdefault("spsq", types.ModuleType("spsq"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import spsq_testing as T  # noqa: E402


def _subject():
    """Tests that fail on purpose, kept out of this module's namespace so the
    loader does not run them as this file's own."""
    class Subject(unittest.TestCase):
        @T.spsq_clauses("S4.P.5")
        def test_nested(self):
            with T.spsq_judging("W.FLAG.1"):
                with T.spsq_judging("W.ERR.1"):
                    self.assertEqual(1, 2)

        @T.spsq_clauses("S4.P.5")
        def test_outside(self):
            with T.spsq_judging("W.FLAG.1"):
                pass
            self.fail("main check")
    return Subject


def run_to_xml(*names):
    result = T._Result(io.StringIO(), True, 0)
    for name in names:
        _subject()(name).run(result)
    fd, path = tempfile.mkstemp(suffix=".xml")
    os.close(fd)
    T._write_junit(path, "subject", result.records)
    root = ET.parse(path).getroot()
    os.unlink(path)
    return {tc.get("name"): tc for tc in root.iter("testcase")}


def prop(testcase, key):
    for p in testcase.iter("property"):
        if p.get("name") == key:
            return p.get("value")
    return None


class JudgingTest(unittest.TestCase):
    def test_a_failure_in_a_block_is_traced_innermost_first(self):
        tc = run_to_xml("test_nested")["test_nested"]
        self.assertEqual(prop(tc, "clauses"), "S4.P.5")
        self.assertEqual(prop(tc, "scoped_clauses"), "W.FLAG.1,W.ERR.1")
        text = tc.find("failure").text
        trace = text[text.index("Google Test trace:"):].split("\n")
        self.assertIn("spsq-judging: W.ERR.1", trace[1])
        self.assertIn("spsq-judging: W.FLAG.1", trace[2])

    def test_a_failure_after_the_block_carries_no_trace(self):
        tc = run_to_xml("test_outside")["test_outside"]
        self.assertEqual(prop(tc, "scoped_clauses"), "W.FLAG.1")
        self.assertNotIn("spsq-judging:", tc.find("failure").text)


class FilterTest(unittest.TestCase):
    def test_gtest_filter_patterns(self):
        self.assertTrue(T._matches("Stop.test_a", ""))
        self.assertTrue(T._matches("Stop.test_a", "Stop.*"))
        self.assertTrue(T._matches("Stop.test_a", "Other.*:Stop.test_a"))
        self.assertFalse(T._matches("Stop.test_a", "Stop.*-Stop.test_a"))
        self.assertTrue(T._matches("Stop.test_b", "-Stop.test_a"))

    def test_unknown_arguments_are_refused_by_name(self):
        with self.assertRaises(SystemExit) as e:
            T._parse_argv(["--verbose"])
        self.assertIn("'--verbose'", str(e.exception))
        self.assertEqual(T._parse_argv(["--gtest_filter=A.b", "--gtest_list_tests"]),
                         ("A.b", True))


if __name__ == "__main__":
    unittest.main()
