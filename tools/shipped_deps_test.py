"""The shipped `spsq` tool links the model and the core, never test code.

usage: shipped_deps_test.py LISTING   (genquery: every target //tools:spsq depends on)
"""

import sys
import unittest

# Test code: the suite's harness (also the core's test instruments) and
# mutants, the core's unit tests, gtest.
FORBIDDEN = ("//conformance/harness", "//conformance/mutants", "//conformance/l2",
             "//conformance/l3", "//core/tests", "@gtest")


def test_code(labels):
    return sorted(l for l in labels if l.startswith(FORBIDDEN))


class ShippedDepsTest(unittest.TestCase):
    labels = []

    def test_no_test_code(self):
        self.assertIn("//tools:spsq", self.labels)
        self.assertEqual(test_code(self.labels), [])

    def test_the_check_sees_harness_code(self):
        self.assertEqual(test_code(["//conformance/harness:region_decoder", "//tools:spsq"]),
                         ["//conformance/harness:region_decoder"])


if __name__ == "__main__":
    ShippedDepsTest.labels = open(sys.argv[1]).read().split()
    unittest.main(argv=sys.argv[:1])
