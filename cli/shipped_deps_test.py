"""The shipped `spsq` tool links the model and the core, never test code.

usage: shipped_deps_test.py LISTING   (genquery: every target //cli:spsq depends on)
"""

import sys
import unittest

# Test code: the instruments (also the core's test instruments), the suites,
# the runner, the self-test, the core's unit tests, gtest.
FORBIDDEN = ("//testkit", "//conformance", "//certify", "//selftest", "//fuzz",
             "//sanitizers", "//core/tests", "@gtest")


def test_code(labels):
    return sorted(l for l in labels if l.startswith(FORBIDDEN))


class ShippedDepsTest(unittest.TestCase):
    labels = []

    def test_no_test_code(self):
        self.assertIn("//cli:spsq", self.labels)
        self.assertEqual(test_code(self.labels), [])

    def test_the_check_sees_harness_code(self):
        self.assertEqual(test_code(["//testkit:region_decoder", "//cli:spsq"]),
                         ["//testkit:region_decoder"])


if __name__ == "__main__":
    ShippedDepsTest.labels = open(sys.argv[1]).read().split()
    unittest.main(argv=sys.argv[:1])
