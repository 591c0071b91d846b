"""doc_facts: the counts the docs quote are the data's, an unknown count fails,
and every entry script the docs name is executable in git."""

import os
import unittest

import doc_facts as D
import reference_edits as R


def checkout():
    """The checkout this test file came from: the runfile symlink resolves into
    the source tree, where every README is (the test is tagged `external`, so
    it never runs stale)."""
    here = os.path.dirname(os.path.realpath(__file__))
    return os.path.dirname(os.path.dirname(here))


ROOT = checkout()
DATA = D.facts(ROOT)


class Counts(unittest.TestCase):
    def problems(self, text):
        return D.check_counts("doc.md", text, DATA)

    def test_the_docs_quote_the_data(self):
        self.assertEqual(D.check(ROOT), [])

    def test_a_wrong_count_names_file_line_and_phrase(self):
        wrong = DATA["clauses"] + 1
        problems = self.problems("intro\nThe catalogue has %d clauses today." % wrong)
        self.assertEqual(len(problems), 1)
        self.assertIn("doc.md:2:", problems[0])
        self.assertIn("'%d clauses'" % wrong, problems[0])
        self.assertIn("the data has %d" % DATA["clauses"], problems[0])

    def test_every_known_phrase_is_checked(self):
        phrases = {
            "%d clauses": "clauses",
            "%d ambiguities": "AMB clauses",
            "%d AMB clauses": "AMB clauses",
            "%d open points": "OPEN clauses",
            "%d checklist cases": "checklist cases",
            "%d mutants": "mutants",
            "%d L2 mutants": "L2 mutants",
            "%d L3 mutants": "L3 mutants",
            "%d runtime mutants": "runtime mutants",
            "%d Python L3 mutants": "python-L3 mutants",
            "%d legal variants": "variants",
            "%d L2 variants": "L2 variants",
            "%d L3 variants": "L3 variants",
            "%d stages": "stage kinds",
            "%d conformance tests": "conformance tests",
            "%d spec sections": "spec sections",
        }
        for phrase, fact in phrases.items():
            self.assertEqual(self.problems(phrase % DATA[fact]), [], phrase)
            self.assertEqual(len(self.problems(phrase % (DATA[fact] + 1))), 1, phrase)

    def test_the_generated_mutant_count_is_checked_whole(self):
        here = os.getcwd()
        os.chdir(ROOT)  # reference_edits reads the data from the checkout's root
        try:
            line = R.generated_blocks()["mutant-count"][0]
        finally:
            os.chdir(here)
        self.assertEqual(self.problems(line), [])
        l2 = "%d L2," % DATA["L2 mutants"]
        wrong = line.replace(l2, "%d L2," % (DATA["L2 mutants"] - 1))
        self.assertNotEqual(wrong, line)
        self.assertIn("L2 mutants", self.problems(wrong)[0])
        coherent = wrong.replace("%d of them" % DATA["coherence mutants"], "99 of them")
        self.assertEqual(len(self.problems(coherent)), 2)

    def test_the_catalogue_line_is_checked_whole(self):
        line = "%d clauses: %d MUST, %d MUST NOT, %d MAY, %d INFO" % tuple(
            DATA[k] for k in ("clauses", "MUST clauses", "MUST NOT clauses", "MAY clauses",
                              "INFO clauses"))
        self.assertEqual(self.problems(line), [])
        wrong = line.replace(" MAY", "0 MAY")
        self.assertIn("MAY clauses", self.problems(wrong)[0])

    def test_number_words_count(self):
        self.assertEqual(self.problems("three open points" if DATA["OPEN clauses"] == 3
                                       else "%d open points" % DATA["OPEN clauses"]), [])
        self.assertEqual(len(self.problems("ninety ambiguities is not a number word here, "
                                           "but twenty ambiguities is")), 1)

    def test_an_unknown_counted_phrase_fails(self):
        for text in ("the 7 fancy tests", "two fresh clauses", "12 cases",
                     "five sections", "1,000 variants", "three noisy stages here"):
            problems = self.problems(text)
            self.assertEqual(len(problems), 1, text)
            self.assertIn("unknown counted phrase", problems[0])
            self.assertIn("doc.md:1:", problems[0])

    def test_ids_powers_and_plain_numbers_are_not_counts(self):
        for text in ("S3.TO.1 tests", "2^32 tests", "MaxInflight 1, 2, 4", "one clause",
                     "depth-2 tests", "5000 inputs per case", "the 384 counter bytes"):
            self.assertEqual(self.problems(text), [], text)


class Scripts(unittest.TestCase):
    def test_a_named_script_that_is_not_executable_fails(self):
        modes = {"tools/main.sh": "100644", "bench/ab.py": "100644",
                 "conformance/tools/how_cases.py": "100644", "tools/BUILD": "100644",
                 "tools/DUPLICATES.md": "100644", ".ci/run": "100755"}
        text = ("Run `bash tools/main.sh`; see tools/DUPLICATES.md and tools/BUILD.\n\n"
                "    bench/ab.py BASE CANDIDATE\n"
                "    python3 conformance/tools/how_cases.py\n"
                "CI is `.ci/run`.\n")
        self.assertEqual(D.named_scripts(text, modes), {"tools/main.sh", "bench/ab.py", ".ci/run"})
        problems = D.check_scripts("doc.md", text, modes)
        self.assertEqual(len(problems), 2)
        self.assertIn("doc.md: names bench/ab.py, whose git mode is 100644", problems[0])
        self.assertIn("tools/main.sh", problems[1])

    def test_the_entry_scripts_the_docs_name_are_executable(self):
        modes = D.git_modes(ROOT)
        self.assertIsNotNone(modes, "%s is not a git checkout" % ROOT)
        named = set()
        for doc in D.docs(ROOT):
            with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
                text = f.read()
            self.assertEqual(D.check_scripts(doc, text, modes), [])
            named |= D.named_scripts(text, modes)
        for script in ("tools/main.sh", "tools/test.sh", "tools/setup.sh", "tools/certify",
                       "tools/fuzz", "tools/bench", ".ci/run", "fuzz/smoke.sh",
                       "examples/third_party_endpoint/readme_test.sh"):
            self.assertIn(script, named)


if __name__ == "__main__":
    unittest.main()
