"""mutant_table: which stage catches which mutant, from report.json files."""

import contextlib
import io
import json
import os
import tempfile
import unittest

import mutant_table as T


def report(implementation, *runs):
    return {"identity": {"implementation": implementation,
                         "stages": [{"stage": s, "status": st} for s, st in runs]}}


class MutantTableTest(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def write(self, name, rep):
        os.makedirs(os.path.join(self.dir, name))
        with open(os.path.join(self.dir, name, "report.json"), "w") as f:
            json.dump(rep, f)

    def run_main(self, *args):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = T.main(["mutant_table"] + list(args))
        return status, out.getvalue(), err.getvalue()

    def test_roles_from_the_implementation_line(self):
        self.assertEqual(T.mutant_of(report("mutant a_b: what")), ("a_b", "L2"))
        self.assertEqual(T.mutant_of(report("L3 mutant l3_x: what")), ("l3_x", "L3"))
        self.assertEqual(T.mutant_of(report("runtime mutant r: what")), ("r", "runtime"))
        self.assertEqual(T.mutant_of(report("Python L3 mutant py_x: what")),
                         ("py_x", "python-L3"))
        self.assertIsNone(T.mutant_of(report("variant v: a legal choice")))
        self.assertIsNone(T.mutant_of(report("spsq-harness reference L2 endpoint")))

    def test_one_failing_run_catches_and_untested_is_not_a_miss(self):
        res = T.stage_results(report(
            "mutant m: d", ("suite", "PASS"), ("corpus", "PASS"), ("corpus", "FAIL"),
            ("noncoherent", "UNTESTED"), ("noncoherent", "UNTESTED")))
        self.assertEqual(res, {"suite": T.MISSED, "corpus": T.CAUGHT,
                               "noncoherent": T.NOT_RUN})
        # A FAIL before a PASS of the same stage still counts.
        res = T.stage_results(report("mutant m: d", ("corpus", "FAIL"), ("corpus", "PASS")))
        self.assertEqual(res["corpus"], T.CAUGHT)

    def test_table_rates_and_exit_status(self):
        self.write("a", report("mutant a: d", ("suite", "FAIL"), ("corpus", "PASS")))
        self.write("b", report("L3 mutant b: d", ("suite", "PASS"), ("corpus", "FAIL")))
        self.write("v", report("variant v: d", ("suite", "PASS")))
        status, out, _ = self.run_main(self.dir)
        self.assertEqual(status, 0, out)
        self.assertIn("| a | L2 | FAIL (caught) | pass (missed) | suite |", out)
        self.assertIn("| b | L3 | pass (missed) | FAIL (caught) | corpus |", out)
        self.assertNotIn("| v |", out)
        self.assertIn("- suite: caught 1 of the 2 mutants it ran on", out)
        self.assertIn("- overall kill rate: 2 of 2 mutants caught by at least one stage (100.0 %)",
                      out)
        self.write("d", report("mutant d: d", ("suite", "FAIL"), ("fuzz", "UNTESTED")))
        status, out, _ = self.run_main(self.dir)
        self.assertEqual(status, 0, out)
        self.assertIn("- fuzz: ran on no mutant", out)
        # A survivor fails the run and is named.
        self.write("c", report("mutant c: d", ("suite", "PASS"), ("corpus", "UNTESTED")))
        status, out, _ = self.run_main(self.dir)
        self.assertEqual(status, 1)
        self.assertIn("| c | L2 | pass (missed) | - | - | **nothing** |", out)
        self.assertIn("3 of 4 mutants", out)

    def test_bad_input_is_named(self):
        status, _, err = self.run_main(self.dir)
        self.assertEqual(status, 2)
        self.assertIn("no report of a mutant", err)
        with open(os.path.join(self.dir, "report.json"), "w") as f:
            f.write("{not json")
        with self.assertRaises(SystemExit) as e:
            self.run_main(self.dir)
        self.assertIn("report.json: not a readable report", str(e.exception))
        with self.assertRaises(SystemExit) as e:
            self.run_main(os.path.join(self.dir, "missing"))
        self.assertIn("missing: no such file or directory", str(e.exception))


if __name__ == "__main__":
    unittest.main()
