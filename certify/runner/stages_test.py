"""Self-tests of the stage runner: fake harness binaries (shell scripts that
behave as the replay driver and libFuzzer do) and the verdicts their
findings must produce."""

import os
import stat
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import coverage as C  # noqa: E402
import stages as S  # noqa: E402
import verdicts as V  # noqa: E402

# The replay driver: inputs named on the command line, in order; an input whose
# content starts with "bad" crashes the way a SPSQ_FUZZ_CLAUSE_CHECK does, one
# starting with "segv" dies with no finding line, one starting with "open"
# prints the differential's note on an open point and goes on, and one
# starting with "readA" / "readB" states a reading of an ambiguity.
REPLAY = r"""#!/bin/sh
for f in "$@"; do
  case "$(cat "$f")" in
    bad*) echo "replay: crashing input: $f" >&2
          echo "spsq-finding: clauses=S2.DESC.3,W.ARENA.2 at fuzz/x.cc:7: seq == want" >&2
          echo "  seq 3, want 2" >&2; exit 134;;
    segv*) echo "replay: crashing input: $f" >&2; echo "Segmentation fault" >&2; exit 139;;
    open*) echo "spsq-divergence: kind at step: reference 4 ('x') / endpoint under test 3 ('y')" >&2;;
    readA*) echo "spsq-reading: AMB.WAITFALSE=A at fuzz/x.cc:9: waited again" >&2;;
    readB*) echo "spsq-reading: AMB.WAITFALSE=B at fuzz/x.cc:8: returned early" >&2;;
  esac
done
echo "replayed $# inputs"
"""

# libFuzzer: with FAKE_CRASH set, the first run writes a crash artifact and
# stops; -minimize_crash writes the minimised input.
LIBFUZZER = r"""#!/bin/sh
prefix=""; exact=""; minimize=0
for a in "$@"; do
  case "$a" in
    -artifact_prefix=*) prefix="${a#-artifact_prefix=}";;
    -exact_artifact_path=*) exact="${a#-exact_artifact_path=}";;
    -minimize_crash=1) minimize=1;;
  esac
done
if [ $minimize = 1 ]; then echo min > "$exact"; exit 0; fi
echo "#1024	pulse  cov: 10 ft: 10 corp: 3/9b exec/s: 512" >&2
if [ -n "$FAKE_CRASH" ] && [ ! -e "$FAKE_CRASH" ]; then
  touch "$FAKE_CRASH"
  echo "spsq-finding: clauses=S3.PUB.1 at fuzz/y.cc:3: published" >&2
  echo "  tail moved before seq" >&2
  printf 'crash' > "${prefix}crash-1"
  echo "Test unit written to ${prefix}crash-1" >&2
  exit 1
fi
echo "#2048	DONE   cov: 10 ft: 10 corp: 3/9b exec/s: 512" >&2
exit 0
"""


def script(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
    return path


class Quiet(S.Progress):
    def show(self, *args, **kwargs):
        pass


class StagesTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        self.pkg = os.path.join(self.tmp, "pkg")
        os.makedirs(self.pkg)
        self.corpus = os.path.join(self.tmp, "corpus")
        os.makedirs(self.corpus)
        self.log = os.path.join(self.tmp, "log")
        self.replay = script(os.path.join(self.tmp, "replay"), REPLAY)

    def inputs(self, **files):
        for name, text in files.items():
            with open(os.path.join(self.corpus, name), "w") as f:
                f.write(text)

    def corpus_run(self):
        return S.run_corpus("l2_stream", self.replay, [self.corpus], self.pkg, "//x:h",
                            Quiet(), self.log)

    def test_clean_replay_passes_and_judges_nothing(self):
        self.inputs(a="ok", b="ok")
        run = self.corpus_run()
        self.assertEqual((run.status, run.execs, run.findings), ("PASS", 2, []))
        cases = S.cases_of(run)
        self.assertEqual(len(cases), 1)
        self.assertEqual((cases[0].clauses, cases[0].failures), ([], []))

    def test_finding_fails_exactly_its_clauses_and_replay_goes_on(self):
        self.inputs(a="ok", b="bad one", c="ok", d="bad two", e="ok")
        run = self.corpus_run()
        self.assertEqual(run.status, "FAIL")
        self.assertEqual(run.execs, 5, "every input replayed, past both crashes")
        self.assertEqual(len(run.findings), 2)
        f = run.findings[0]
        self.assertEqual(f["clauses"], ["S2.DESC.3", "W.ARENA.2"])
        self.assertEqual(f["where"], "fuzz/x.cc:7")
        self.assertIn("seq 3, want 2", f["message"])
        with open(os.path.join(self.pkg, f["reproducer"])) as kept:
            self.assertEqual(kept.read(), "bad one")
        self.assertEqual(f["replay"], "bazel run //x:h -- <package>/" + f["reproducer"])
        clauses = [{"id": c, "section": "2", "text": c, "requirement": c, "level": "MUST",
                    "role": "both", "surface": "wire", "how": "h"}
                   for c in ("S2.DESC.3", "W.ARENA.2", "S2.DESC.1")]
        got = {v.clause["id"]: v.verdict for v in V.compute_verdicts(
            clauses, S.cases_of(run), "L2")}
        self.assertEqual(got, {"S2.DESC.3": V.FAIL, "W.ARENA.2": V.FAIL,
                               "S2.DESC.1": V.UNTESTED})

    def test_divergence_on_an_open_point_is_stated_and_never_fails(self):
        self.inputs(a="open", b="open", c="ok")
        run = self.corpus_run()
        self.assertEqual((run.status, run.execs, run.findings), ("PASS", 3, []))
        self.assertEqual(list(run.divergences), ["kind"])
        self.assertIn("reference 4", run.divergences["kind"])
        self.assertIn("where the spec leaves a choice open", run.reason)
        self.assertIn(": kind", run.reason)
        self.assertEqual(run.to_json()["divergences"], run.divergences)
        cases = S.cases_of(run)
        self.assertEqual([(c.clauses, c.failures) for c in cases], [([], [])])

    def test_stated_readings_grade_the_ambiguity_and_never_fail(self):
        self.inputs(a="readB", b="readB", c="bad one", d="readA")
        run = self.corpus_run()
        self.assertEqual(sorted(run.readings["AMB.WAITFALSE"]), ["A", "B"])
        self.assertIn("returned early at fuzz/x.cc:8", run.readings["AMB.WAITFALSE"]["B"])
        self.assertIn("readings stated: AMB.WAITFALSE A/B", run.reason)
        self.assertEqual(run.to_json()["readings"], run.readings)
        clauses = [{"id": "AMB.WAITFALSE", "section": "ambiguity", "text": "t",
                    "requirement": "t", "level": "INFO", "role": "both", "surface": "cpp-l2",
                    "how": "h", "interpretation": {"question": "q", "readings": {
                        "A": "a", "B": "b"}, "preferred": "A", "grading": "g"}}]
        cases = S.cases_of(run)
        reading = [c for c in cases if c.readings()]
        self.assertEqual([(c.clauses, c.failures) for c in reading],
                         [(["AMB.WAITFALSE"], []), (["AMB.WAITFALSE"], [])])
        v = V.compute_verdicts(clauses, cases, "L2")[0]
        self.assertEqual(v.verdict, V.INTERPRETATION)
        self.assertEqual(sorted(v.readings), ["A", "B"])
        # The finding of the crashing input is there too, apart.
        self.assertEqual(len(run.findings), 1)

    def test_crash_without_a_finding_line_is_unattributed(self):
        self.inputs(a="segv")
        run = self.corpus_run()
        self.assertEqual(run.findings[0]["clauses"], [])
        self.assertIn("Segmentation fault", run.findings[0]["message"])
        orphans = V.unattributed_failures(S.cases_of(run))
        self.assertEqual(len(orphans), 1, "a crash naming no clause fails the certification")

    def test_empty_corpus_is_untested_with_the_reason(self):
        run = self.corpus_run()
        self.assertEqual(run.status, "UNTESTED")
        self.assertIn("no corpus inputs", run.reason)
        self.assertEqual(S.cases_of(run), [])

    def test_fuzz_finding_is_minimised_and_fuzzing_resumes(self):
        fuzzer = script(os.path.join(self.tmp, "fuzzer"), LIBFUZZER)
        os.environ["FAKE_CRASH"] = os.path.join(self.tmp, "crashed-once")
        try:
            run = S.run_fuzz("l2_stream", fuzzer, [self.corpus], self.pkg, self.tmp, "//x:h",
                             5, Quiet(), self.log)
        finally:
            del os.environ["FAKE_CRASH"]
        self.assertEqual(run.status, "FAIL")
        self.assertEqual(len(run.findings), 1)
        self.assertEqual(run.findings[0]["clauses"], ["S3.PUB.1"])
        with open(os.path.join(self.pkg, run.findings[0]["reproducer"])) as kept:
            self.assertEqual(kept.read().strip(), "min", "the minimised input is kept")
        self.assertEqual(run.execs, 1024 + 2048, "executions of both runs add up")

    def test_sanitizer_report_belongs_to_the_running_test(self):
        log = ("[ RUN      ] Matrix/Stress.Plain/0\n[       OK ] Matrix/Stress.Plain/0\n"
               "[ RUN      ] Matrix/Stress.Own/1\n==1==WARNING: ThreadSanitizer: data race "
               "(pid=1)\n  Write of size 4\nWARNING: ThreadSanitizer: data race (pid=1)\n")
        self.assertEqual(S.sanitizer_reports(log), {
            "Matrix/Stress.Own/1": "WARNING: ThreadSanitizer: data race (pid=1)"})
        self.assertEqual(S.sanitizer_reports("[ RUN      ] A.B\n[       OK ] A.B\n"), {})

    def test_parse_finding_reads_the_first_line_and_its_detail(self):
        text = "noise\nspsq-finding: clauses=A.B.1 at f.cc:1: x == y\n  x 1, y 2\nmore\n"
        self.assertEqual(S.parse_finding(text), {"clauses": ["A.B.1"], "where": "f.cc:1",
                                                 "message": "x == y: x 1, y 2"})
        self.assertIsNone(S.parse_finding("spsq fuzz invariant failed at f.cc:1: x\n"))



class CoverageTest(unittest.TestCase):
    LCOV = ("SF:/execroot/core/a.h\nDA:1,3\nDA:2,0\nDA:3,0\nDA:5,0\nBRDA:1,0,0,1\n"
            "BRDA:1,0,1,0\nBRDA:1,0,2,-\nend_of_record\nSF:other/b.h\nDA:1,0\nend_of_record\n")

    def test_only_the_implementation_files_count(self):
        got = C.parse_lcov(self.LCOV, ["core/a.h"])
        self.assertEqual(got, {"core/a.h": {"lines": 4, "lines_hit": 1, "branches": 3,
                                            "branches_hit": 1, "uncovered": "2-3,5"}})

    def test_headers_behind_an_include_prefix_are_the_implementation_files(self):
        lcov = ("SF:/proc/self/cwd/bazel-out/k8-fastbuild/bin/core/_virtual_includes/endpoint/"
                "common/q.h\nDA:3,0\nend_of_record\n")
        got = C.parse_lcov(lcov, ["core/common/q.h", "other/common/q.h"])
        self.assertEqual(list(got), ["core/common/q.h"])
        self.assertEqual(got["core/common/q.h"]["uncovered"], "3")

    def test_a_header_seen_twice_is_counted_once(self):
        lcov = ("SF:a/core/q.h\nDA:1,0\nDA:2,4\nBRDA:1,0,0,0\nend_of_record\n"
                "SF:b/core/q.h\nDA:1,2\nDA:2,0\nBRDA:1,0,0,1\nend_of_record\n")
        self.assertEqual(C.parse_lcov(lcov, ["core/q.h"])["core/q.h"], {
            "lines": 2, "lines_hit": 2, "branches": 1, "branches_hit": 1, "uncovered": ""})

    def test_uncovered_lines_read_as_ranges(self):
        self.assertEqual(C.ranges([1, 2, 3, 7, 9, 10]), "1-3,7,9-10")
        self.assertEqual(C.ranges([]), "")

    def test_no_profiles_is_a_stated_error(self):
        tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        got = C.report(tmp, ["/bin/true"], ["core/a.h"], os.path.join(tmp, "out"))
        self.assertIn("error", got)


if __name__ == "__main__":
    unittest.main()
