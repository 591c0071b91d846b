"""The certification runner on synthetic results: a failed test's clauses
taken from its source, the re-run command and region dump of a FAIL row, the
exit status of each mode (a failed test fails every certification but a
mutant's), a variant's expected verdicts, and --stage-not-run reasons,
through main() over a fake GoogleTest binary."""

import argparse
import json
import os
import stat
import sys
import tarfile
import tempfile
import time
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import certify_run as R  # noqa: E402
import verdicts as V  # noqa: E402
from synthetic import clause  # noqa: E402



INTERP = {"question": "q", "readings": {"A": "a", "B": "b"}, "preferred": "A", "grading": "g"}
CLAUSES = [clause("S3.A.1"), clause("S3.B.1"), clause("S3.L3.1", role="L3", surface="l3-api"),
           clause("AMB.X", level="INFO", interpretation=INTERP), clause("W.INTEROP.1")]


def test_case(name, clauses="", failures=(), skipped=None, suite="S", **props):
    t = V.TestCase("mi1:s3", suite, name)
    if clauses:
        t.properties["clauses"] = clauses
    t.properties.update(props)
    t.failures = list(failures)
    if skipped is not None:
        t.ran, t.skip_reason = False, skipped
    return t


def args_for(**kw):
    base = dict(expect_fail="", expected_verdicts=None, require_pass=False,
                require_pass_roles="", allow_untested="")
    base.update(kw)
    return argparse.Namespace(**base)


def status_of(cases, clauses=CLAUSES, **kw):
    verdicts = V.compute_verdicts(clauses, cases, "L2")
    return R.certification_status(args_for(**kw), verdicts, cases)


class AttributeTest(unittest.TestCase):
    def test_a_failed_test_with_no_clause_judges_what_its_source_declares(self):
        declared = {"S.SetUpFails": ["S3.A.1", "S3.B.1/x"]}
        cases = R.attribute([test_case("SetUpFails", failures=["SetUp: no region"]),
                             test_case("Passes")], declared)
        self.assertEqual(cases[0].properties["clauses"], "S3.A.1,S3.B.1/x")
        self.assertIn("clauses taken from the test's source", cases[0].failures[-1])
        self.assertNotIn("clauses", cases[1].properties)  # passed: nothing to attribute
        v = {x.clause["id"]: x for x in V.compute_verdicts(CLAUSES, cases, "L2")}
        self.assertEqual(v["S3.A.1"].verdict, V.FAIL)

    def test_recorded_clauses_win_and_parameterized_names_map_to_their_source(self):
        declared = {"S.Case": ["S3.A.1"], "S.Other": ["S3.B.1"]}
        recorded = test_case("Other", "S3.B.1", failures=["x"])
        param = test_case("Case/2", failures=["y"], suite="Windows/S")
        R.attribute([recorded, param], declared)
        self.assertEqual(recorded.properties["clauses"], "S3.B.1")
        self.assertEqual(param.clauses, ["S3.A.1"])

    def test_a_test_its_source_names_nothing_for_stays_unattributed(self):
        cases = R.attribute([test_case("Mystery", failures=["boom"])], {})
        self.assertEqual(V.unattributed_failures(cases), cases)


class StatusTest(unittest.TestCase):
    def test_an_unattributed_failure_fails_every_mode(self):
        cases = [test_case("Passes", "S3.A.1,S3.B.1"), test_case("Orphan", failures=["boom"])]
        for kw in ({}, {"require_pass": True}, {"expect_fail": "S3.A.1"}):
            status, lines = status_of(cases, **kw)
            self.assertEqual(status, 1, kw)
            self.assertIn("failed tests that judge no clause", lines[0])
            self.assertIn("S.Orphan", lines[0])

    def test_any_failed_test_fails_the_certification(self):
        # Its only clause is an ambiguity: INTERPRETATION (a deviation), never
        # FAIL; the clause table is clean, the certification is not.
        cases = [test_case("Passes", "S3.A.1,S3.B.1"),
                 test_case("Deviates", "AMB.X", failures=["t.cc:3\nValue of: live()"])]
        verdicts = {v.clause["id"]: v for v in V.compute_verdicts(CLAUSES, cases, "L2")}
        self.assertEqual(verdicts["AMB.X"].verdict, V.INTERPRETATION)
        for kw in ({}, {"require_pass": True, "allow_untested": "W.INTEROP.1"}):
            status, lines = status_of(cases, **kw)
            self.assertEqual(status, 1, kw)
            self.assertIn("every test to pass; failed: mi1:s3 S.Deviates", lines[-1])

    def test_a_failed_test_of_a_clause_not_applicable_here_fails_it(self):
        cases = [test_case("Passes", "S3.A.1,S3.B.1"),
                 test_case("L3Only", "S3.L3.1", failures=["x"])]
        self.assertEqual(status_of(cases)[0], 1)

    def test_a_clean_run_passes(self):
        cases = [test_case("Passes", "S3.A.1,S3.B.1,W.INTEROP.1"),
                 test_case("Reads", "AMB.X", **{"reading.AMB.X": "A: a"})]
        self.assertEqual(status_of(cases, require_pass=True), (0, []))

    def test_require_pass_names_clauses_that_did_not_pass(self):
        status, lines = status_of([test_case("Passes", "S3.A.1")], require_pass=True)
        self.assertEqual(status, 1)
        self.assertIn("S3.B.1=UNTESTED", lines[0])
        self.assertEqual(status_of([test_case("Passes", "S3.A.1")], require_pass=True,
                                   allow_untested="S3.B.1,W.INTEROP.1")[0], 0)

    def test_a_mutant_passes_when_its_clauses_fail(self):
        cases = [test_case("Passes", "S3.A.1"), test_case("Fails", "S3.B.1", failures=["x"])]
        self.assertEqual(status_of(cases, expect_fail="S3.B.1"),
                         (0, ["all 1 expected clauses FAIL, as they must for this mutant",
                              "collateral: 0 more FAIL clauses"]))
        status, lines = status_of(cases, expect_fail="S3.A.1,S3.B.1")
        self.assertEqual(status, 1)
        self.assertEqual(lines[0], "EXPECTED FAIL but got: S3.A.1=PASS")

    def test_a_mutant_reports_its_collateral_fails(self):
        cases = [test_case("Fails", "S3.A.1,S3.B.1", failures=["x"])]
        status, lines = status_of(cases, expect_fail="S3.B.1")
        self.assertEqual(status, 0)
        self.assertEqual(lines[-1], "collateral: 1 more FAIL clause: S3.A.1")


class ExpectedVerdictsTest(unittest.TestCase):
    def check(self, cases, want, allow_untested="W.INTEROP.1"):
        fd, path = tempfile.mkstemp(suffix=".expected.json")
        with os.fdopen(fd, "w") as f:
            json.dump(want, f)
        try:
            status, lines = status_of(cases, expected_verdicts=path,
                                      allow_untested=allow_untested)
        finally:
            os.unlink(path)
        return status, "\n".join(lines)

    def test_the_expected_verdicts(self):
        cases = [test_case("Passes", "S3.A.1,S3.B.1"),
                 test_case("Reads", "AMB.X", **{"reading.AMB.X": "B: b"})]
        status, printed = self.check(cases, {"fail": [], "readings": {"AMB.X": "B"}})
        self.assertEqual(status, 0, printed)
        status, printed = self.check(cases, {"fail": [], "readings": {"AMB.X": "A"}})
        self.assertEqual(status, 1)
        self.assertIn("AMB.X=INTERPRETATION with readings B, expected INTERPRETATION reading A",
                      printed)

    def test_an_unlisted_fail_and_a_missing_one(self):
        cases = [test_case("Passes", "S3.A.1"), test_case("Fails", "S3.B.1", failures=["x"])]
        status, printed = self.check(cases, {"fail": ["S3.A.1"]})
        self.assertEqual(status, 1)
        self.assertIn("S3.B.1=FAIL, which the variant's expected verdicts do not allow", printed)
        self.assertIn("S3.A.1=PASS, expected FAIL", printed)

    def test_an_expected_fail_accounts_for_its_failed_test(self):
        cases = [test_case("Passes", "S3.A.1"),
                 test_case("Livelocks", "S3.B.1,AMB.X", failures=["refused"],
                           **{"reading.AMB.X": "B: b"})]
        status, printed = self.check(cases, {"fail": ["S3.B.1"]})
        self.assertEqual(status, 0, printed)

    def test_a_failed_test_hidden_behind_an_interpretation_fails_the_variant(self):
        cases = [test_case("Passes", "S3.A.1,S3.B.1"),
                 test_case("Deviates", "AMB.X", failures=["t.cc:3\nValue of: live()"],
                           **{"reading.AMB.X": "B: b"})]
        status, printed = self.check(cases, {"fail": [], "readings": {}})
        self.assertEqual(status, 1)
        self.assertIn("mi1:s3 S.Deviates failed, and no FAIL it judges is an expected one",
                      printed)

    def test_a_failed_test_of_a_clause_not_applicable_here_fails_the_variant(self):
        cases = [test_case("Passes", "S3.A.1,S3.B.1"),
                 test_case("L3Only", "S3.L3.1", failures=["x"])]
        status, printed = self.check(cases, {"fail": []})
        self.assertEqual(status, 1)
        self.assertIn("S.L3Only failed", printed)

    def test_an_unexpected_untested_clause(self):
        status, printed = self.check([test_case("Passes", "S3.A.1,S3.B.1")], {"fail": []},
                                     allow_untested="")
        self.assertEqual(status, 1)
        self.assertIn("W.INTEROP.1=UNTESTED", printed)
        status, printed = self.check([test_case("Passes", "S3.A.1,S3.B.1")], {
            "fail": [], "untested": {"W.INTEROP.1": "not built"}}, allow_untested="")
        self.assertEqual(status, 0, printed)


class AnnotateTest(unittest.TestCase):
    def test_a_failed_test_gets_its_rerun_command_and_the_dump_it_wrote(self):
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "dumps", "mi2_s3"))
            with open(os.path.join(root, "dumps", "mi2_s3", "Pub.SeqLast.region"), "wb") as f:
                f.write(b"\0" * 8)
            cases = [test_case("SeqLast", "S3.A.1", failures=["x"], suite="Pub"),
                     test_case("NoDump", "S3.A.1", failures=["x"], suite="Pub"),
                     test_case("Passes", "S3.A.1", suite="Pub")]
            R.annotate(cases, "conformance/cert_mi2_s3_publication", "mi2_s3", root)
        self.assertEqual(cases[0].properties["rerun"],
                         "bazel run //conformance:cert_mi2_s3_publication -- "
                         "--gtest_filter=Pub.SeqLast")
        self.assertEqual(cases[0].properties["region_dump"], "dumps/mi2_s3/Pub.SeqLast.region")
        self.assertIn("rerun", cases[1].properties)
        self.assertNotIn("region_dump", cases[1].properties)  # none was written
        self.assertNotIn("rerun", cases[2].properties)

    def test_a_python_row_names_its_runnable_wrapper_and_no_dump(self):
        with tempfile.TemporaryDirectory() as root:
            cases = [test_case("test_poisoned", "S3.A.1", failures=["x"], suite="PoisonTest")]
            R.annotate(cases, "python/reference_python_certification_poison_test",
                       "mi0_poison_test", root)
        self.assertEqual(cases[0].properties["rerun"],
                         "bazel run //python:reference_python_certification_poison_test -- "
                         "--gtest_filter=PoisonTest.test_poisoned")
        self.assertNotIn("region_dump", cases[0].properties)

    def test_the_fail_row_names_what_annotate_found(self):
        with tempfile.TemporaryDirectory() as root:
            cases = [test_case("A", "S3.A.1", failures=["x.cc:1\nExpected: 1"])]
            R.annotate(cases, "pkg/bin", "mi1_s3", root)
        v = {x.clause["id"]: x for x in V.compute_verdicts(CLAUSES, cases, "L2")}
        self.assertIn("; re-run: bazel run //pkg:bin -- --gtest_filter=S.A", v["S3.A.1"].detail)
        self.assertNotIn("region:", v["S3.A.1"].detail)


# A GoogleTest binary: lists its tests, writes the XML GoogleTest would, and
# the region dump the L2 fixture writes for a failed test.
FAKE_GTEST = r"""#!/bin/sh
if [ "$1" = "--gtest_list_tests" ]; then printf 'S.\n  Passes\n  Fails\n'; exit 0; fi
cat > "${GTEST_OUTPUT#xml:}" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<testsuites><testsuite name="S">
<testcase name="Passes" status="run" result="completed" classname="S">
<properties><property name="clauses" value="S3.A.1"/></properties></testcase>
<testcase name="Fails" status="run" result="completed" classname="S">
<failure message="m">x.cc:9&#10;Expected: 2</failure></testcase>
</testsuite></testsuites>
EOF
printf 'region' > "$TEST_UNDECLARED_OUTPUTS_DIR/S.Fails.region"
exit 1
"""

SOURCE = """TEST_F(S, Passes) {
  SPSQ_CLAUSES("S3.A.1");
}
TEST_F(S, Fails) {
  // SPSQ_CLAUSES("S3.A.1");
#if 0
  SPSQ_CLAUSES("W.INTEROP.1");
#endif
  SPSQ_CLAUSES("S3.B.1");
}
"""


# A suite binary whose one test passes on coherent memory and fails when
# SPSQ_COHERENCE puts the payload behind private caches.
FAKE_VISIBILITY = r"""#!/bin/sh
if [ "$1" = "--gtest_list_tests" ]; then printf 'S.\n  Passes\n'; exit 0; fi
if [ -n "$SPSQ_COHERENCE" ]; then
  failure='<failure message="m">x.cc:3&#10;stale payload</failure>'; rc=1
else
  failure=''; rc=0
fi
cat > "${GTEST_OUTPUT#xml:}" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<testsuites><testsuite name="S">
<testcase name="Passes" status="run" result="completed" classname="S">
<properties><property name="clauses" value="S3.A.1"/></properties>$failure</testcase>
</testsuite></testsuites>
EOF
exit $rc
"""


# A suite binary whose test S.Fails (S3.B.1, in SOURCE) misbehaves as the
# template's hole says, after S.Passes passed; run alone, S.Passes writes its
# XML and passes.
FAKE_MISBEHAVING = r"""#!/bin/sh
if [ "$1" = "--gtest_list_tests" ]; then printf 'S.\n  Passes\n  Fails\n'; exit 0; fi
if [ "$1" = "--gtest_filter=S.Passes" ]; then
  cat > "${GTEST_OUTPUT#xml:}" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<testsuites><testsuite name="S">
<testcase name="Passes" status="run" result="completed" classname="S">
<properties><property name="clauses" value="S3.A.1"/></properties></testcase>
</testsuite></testsuites>
EOF
  exit 0
fi
if [ -z "$1" ]; then printf '[ RUN      ] S.Passes\n[       OK ] S.Passes (0 ms)\n'; fi
printf '[ RUN      ] S.Fails\n'
%s
"""

# Allocates and touches 4 MiB at a time, without end.
ALLOCATE = "a = []\nwhile True:\n    a.append(bytearray(b'x' * (4 << 20)))\n"

MISBEHAVIOURS = {
    # Burns a core and never returns.
    "spins": "while :; do :; done",
    # Blocks for ever (in a child process of its own, as a peer would).
    "blocks": "sleep 1000",
    "allocates": "exec python3 -c \"%s\"" % ALLOCATE,
    # A failing check inside an endless loop: a log without end.
    "floods": "yes 'x.cc:1: Failure'",
    # Dies of a signal.
    "crashes": "kill -SEGV $$",
}


class BoundsTest(unittest.TestCase):
    """Each misbehaving binary ends in a FAIL of the clauses its test judges,
    with the bound it ran out of in the row, within that bound (seconds):
    never a hang or a machine out of memory."""

    def certify(self, how, env=None, test_timeout=1):
        runner = MainTest("run_main")
        runner.addCleanup = self.addCleanup
        start = time.monotonic()
        with mock.patch.object(R, "TEST_TIMEOUT_S", test_timeout):
            got = runner.run_main("--depth=quick", fake=FAKE_MISBEHAVING % MISBEHAVIOURS[how],
                                  env_extra=dict(
                {"SPSQ_CERT_MEMORY_MIB": "100", "SPSQ_CERT_OUTPUT_MIB": "4"}, **(env or {})))
        return got + (time.monotonic() - start,)

    def check_fail(self, how, reason):
        status, rows, report, _, elapsed = self.certify(how)
        self.assertEqual(status, 1)
        self.assertEqual(rows["S3.A.1"]["verdict"], V.PASS, how)
        self.assertEqual(rows["S3.B.1"]["verdict"], V.FAIL, how)
        text = rows["S3.B.1"]["failures"][0]["message"]
        self.assertIn("S.Fails: " + reason, text)
        self.assertLess(elapsed, 30, "%s: a bound must end the run in seconds" % how)
        return report

    def test_a_test_that_spins_fails_at_its_time_bound(self):
        self.check_fail("spins", "the test exceeded its time bound of 1 s")

    def test_a_test_that_never_returns_fails_at_its_time_bound(self):
        self.check_fail("blocks", "the test exceeded its time bound of 1 s")

    def test_a_test_that_allocates_without_end_fails_at_the_memory_bound(self):
        self.check_fail("allocates", "the suite binary exceeded its memory bound of 100 MiB")

    def test_a_test_that_floods_its_log_fails_at_the_output_bound(self):
        self.check_fail("floods", "the suite binary exceeded its output bound of 4 MiB of log")

    def test_a_test_that_crashes_fails_alone_in_its_rerun(self):
        self.check_fail("crashes", "crashed (exit status -11)")

    def test_when_the_certification_runs_out_of_time_it_still_reports(self):
        # Bazel's budget of 13 s leaves the runs 1 s: the hanging test
        # outlasts it (its own bound is longer) and FAILs with the binary's
        # bound; no time is left to re-run the test that passed, whose clause
        # is UNTESTED with the reason, not a certification timed out with
        # nothing said.
        status, rows, _, _, elapsed = self.certify("blocks", env={"TEST_TIMEOUT": "13"},
                                                   test_timeout=20)
        self.assertEqual(status, 1)
        self.assertEqual(rows["S3.B.1"]["verdict"], V.FAIL)
        self.assertIn("S.Fails: the suite binary exceeded its time bound of 1 s",
                      rows["S3.B.1"]["failures"][0]["message"])
        self.assertEqual(rows["S3.A.1"]["verdict"], V.UNTESTED)
        self.assertIn("the certification's time budget of 1 s ran out", rows["S3.A.1"]["detail"])
        self.assertLess(elapsed, 30)


class MainTest(unittest.TestCase):
    """main() end to end over the fake binary."""

    def run_main(self, *extra, fake=FAKE_GTEST, section="s3", env_extra=None, out=None):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        d = tmp.name
        binary = os.path.join(d, "pkg", "cert_mi1_s3")
        os.makedirs(os.path.dirname(binary))
        with open(binary, "w") as f:
            f.write(fake)
        os.chmod(binary, os.stat(binary).st_mode | stat.S_IXUSR)
        src = os.path.join(d, "s3_test.cc")
        with open(src, "w") as f:
            f.write(SOURCE)
        cat = os.path.join(d, "clauses.json")
        with open(cat, "w") as f:
            json.dump({"clauses": CLAUSES}, f)
        given = out is None
        out = self.out = out or os.path.join(d, "out")
        argv = ["--name=cert", "--endpoint-template=E", "--implementation=I",
                "--catalogue=" + cat, "--binary=1:%s:%s" % (section, binary), "--quiet",
                "--sources", src] + (["--out=" + out] if given else []) + list(extra)
        env = {k: v for k, v in os.environ.items() if k not in (
            "XML_OUTPUT_FILE", "TEST_UNDECLARED_OUTPUTS_DIR", "TEST_TARGET",
            "BUILD_WORKSPACE_DIRECTORY", "SPSQ_CERT_DEPTH", "TEST_TIMEOUT")}
        env.update(env_extra or {})
        with mock.patch.dict(os.environ, env, clear=True), mock.patch("sys.stdout") as stdout:
            status = R.main(argv)
        printed = "".join(c.args[0] for c in stdout.write.call_args_list)
        with open(os.path.join(out, "report.json")) as f:
            report = json.load(f)
        return status, {c["id"]: c for c in report["clauses"]}, report, printed

    def test_a_missing_source_is_named_and_the_last_report_stays(self):
        # The sources are read only when a test needs them, so a wrong path is
        # refused before anything is written, not in the middle of a run.
        self.run_main()
        report = os.path.join(self.out, "report.json")
        with open(report) as f:
            before = f.read()
        missing = os.path.join(os.path.dirname(self.out), "gone_test.cc")
        argv = ["--name=cert", "--endpoint-template=E", "--implementation=I",
                "--catalogue=" + os.path.join(os.path.dirname(self.out), "clauses.json"),
                "--quiet", "--out=" + self.out, "--sources", missing]
        with mock.patch("sys.stderr") as stderr:
            self.assertEqual(R.main(argv), 2)
        printed = "".join(c.args[0] for c in stderr.write.call_args_list)
        self.assertIn("--sources: no such file: " + missing, printed)
        with open(report) as f:
            self.assertEqual(f.read(), before)

    def test_stage_not_run_reasons_and_a_failed_test_from_its_source(self):
        status, rows, report, printed = self.run_main(
            "--stage-not-run=W.INTEROP.1=interop stage not built: no runtime=given")
        # The failed test recorded nothing; its live source names S3.B.1 only.
        self.assertEqual(rows["S3.B.1"]["verdict"], V.FAIL)
        self.assertEqual(rows["W.INTEROP.1"]["verdict"], V.UNTESTED)
        self.assertEqual(rows["W.INTEROP.1"]["detail"],
                         "interop stage not built: no runtime=given")
        self.assertEqual(report["identity"]["stages_not_run"],
                         {"W.INTEROP.1": "interop stage not built: no runtime=given"})
        failure = rows["S3.B.1"]["failures"][0]
        self.assertEqual(failure["dump"], "dumps/mi1_s3/S.Fails.region")
        self.assertTrue(failure["rerun"].endswith(" -- --gtest_filter=S.Fails"), failure)
        self.assertEqual(status, 1)  # no mode asked for, yet a test failed

    def test_the_noncoherent_stage_reruns_the_suite_under_each_policy(self):
        status, rows, report, _ = self.run_main("--role=L2", "--depth=standard",
                                                fake=FAKE_VISIBILITY)
        self.assertEqual(rows["S3.A.1"]["verdict"], V.FAIL)
        self.assertEqual(status, 1)
        reruns = sorted(f["rerun"] for f in rows["S3.A.1"]["failures"])
        self.assertEqual([r.split(" bazel run")[0] for r in reruns],
                         ["SPSQ_COHERENCE=adversarial", "SPSQ_COHERENCE=random:1"])
        stages = [(r["stage"], r["status"]) for r in report["identity"]["stages"]
                  if r["stage"] in ("suite", "noncoherent")]
        self.assertEqual(stages, [("suite", "PASS"), ("noncoherent", "FAIL"),
                                  ("noncoherent", "FAIL")])
        # At depth quick the stage does not run, and says so.
        status, rows, report, _ = self.run_main("--role=L2", "--depth=quick",
                                                fake=FAKE_VISIBILITY)
        self.assertEqual(rows["S3.A.1"]["verdict"], V.PASS)
        skipped = [r for r in report["identity"]["stages"] if r["stage"] == "noncoherent"]
        self.assertEqual(len(skipped), 2)
        self.assertTrue(all(r["status"] == "UNTESTED" and "depth quick" in r["reason"]
                            for r in skipped), skipped)

    def test_the_noncoherent_stage_reaches_the_runtime_and_the_l2_interop(self):
        # The runtime suite and the L2 interop section run over the runtime's
        # caches; the L3 suite's interop (a raw-address L2 thread) does not.
        for role, section, runs in (("runtime", "runtime_s1", 2), ("L2", "interop", 2),
                                    ("L3", "l3_interop", 0), ("L3", "s1", 2)):
            _, rows, report, _ = self.run_main("--role=" + role, "--depth=standard",
                                               fake=FAKE_VISIBILITY, section=section)
            noncoherent = [r for r in report["identity"]["stages"]
                           if r["stage"] == "noncoherent"]
            self.assertEqual(len(noncoherent), runs, (role, section, noncoherent))
            self.assertTrue(all(r["status"] == "FAIL" for r in noncoherent), noncoherent)
            if role == "L2":  # the fake's clause is an L2 clause
                self.assertEqual(rows["S3.A.1"]["verdict"], V.FAIL if runs else V.PASS,
                                 (role, section))

    def test_the_stage_line_counts_runs_per_stage(self):
        def run(stage, what, status):
            r = R.S.StageRun(stage, what)
            r.status = status
            return r
        runs = [run("suite", "3 binaries", "PASS"),
                run("noncoherent", "a", "PASS"), run("noncoherent", "b", "FAIL"),
                run("noncoherent", "c", "PASS"), run("corpus", "x", "UNTESTED"),
                run("corpus", "y", "UNTESTED")]
        self.assertEqual(R.stage_summary(runs),
                         "suite 3 binaries PASS; noncoherent 3 runs: 1 FAIL, 2 PASS "
                         "(not PASS: b); corpus 2 runs: 2 UNTESTED")

    def read(self, report, name):
        with open(os.path.join(report, name)) as f:
            return f.read()

    def test_report_md_opens_with_the_fails_then_the_matrix_then_one_row_per_stage_kind(self):
        status, rows, report, _ = self.run_main("--role=L2", "--depth=standard",
                                                fake=FAKE_VISIBILITY)
        md = self.read(self.out, "report.md")
        order = [md.index(h) for h in (
            "## Needs action", "### FAIL S3.A.1", "| clause | level | verdict |", "## Stages",
            "### noncoherent: 2 runs")]
        self.assertEqual(order, sorted(order), md)
        opening = md[order[1]:order[2]]
        # The first failing test is the suite run under the first policy.
        label = R.label_of(os.path.join(os.path.dirname(self.out), "pkg", "cert_mi1_s3"))
        for want in ("first failing test: `mi1:noncoherent_adversarial_s3 S.Passes` "
                     "(2 of 3 judging tests failed)", "  x.cc:3\n  stale payload\n",
                     "reproducer: binary `%s`, test `S.Passes`, "
                     "env `SPSQ_COHERENCE=adversarial`" % label,
                     "re-run: `SPSQ_COHERENCE=adversarial bazel run %s -- "
                     "--gtest_filter=S.Passes`" % label,
                     "1 more failing test (all under Failures below): "
                     "`mi1:noncoherent_random1_s3 S.Passes`",
                     "Certification check (every test must pass): failed.",
                     "certification requires every test to pass; failed: "):
            self.assertIn(want, opening)
        stages = md[order[3]:]
        kind_rows = [l for l in stages.splitlines() if l.startswith("| noncoherent |")]
        self.assertEqual(kind_rows, ["| noncoherent | 2 | 2 FAIL | 0 s | 2 | 0 |  |"])
        runs = stages[stages.index("### noncoherent: 2 runs"):]
        for what in ("mi1:noncoherent_adversarial_s3", "mi1:noncoherent_random1_s3"):
            self.assertIn("| %s | FAIL |" % what, runs)
        # report.json: every field a failure had, and the new ones.
        failure = rows["S3.A.1"]["failures"][0]
        self.assertLessEqual({"test", "message", "region", "rerun", "dump"}, set(failure))
        self.assertEqual((failure["binary"], failure["env"], failure["assertion"]),
                         (label, "SPSQ_COHERENCE=adversarial",
                          "x.cc:3\nstale payload"))
        self.assertEqual(report["outcome"]["status"], 1)

    def test_a_clean_report_says_so_in_one_line_and_lists_what_else_needs_action(self):
        expected = os.path.join(tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR")),
                                "variant.expected.json")
        with open(expected, "w") as f:
            json.dump({"fail": ["S3.B.1"]}, f)
        status, rows, report, _ = self.run_main(
            "--expected-verdicts=" + expected, "--stage-not-run=W.INTEROP.1=no runtime",
            "--depth=quick", fake=FAKE_VISIBILITY)
        self.assertEqual((status, rows["S3.A.1"]["verdict"]), (1, V.PASS))
        md = self.read(self.out, "report.md")
        opening = md[md.index("## Needs action"):md.index("## Clauses")].splitlines()
        self.assertEqual(opening[2], "No FAIL: none of the 1 clauses judged here failed.")
        self.assertNotIn("### FAIL", md)
        # What else needs action: the verdict the variant's list wants and did
        # not get, and the UNTESTED clauses by reason.
        self.assertIn("Certification check (a legal variant: the verdicts in "
                      "variant.expected.json): failed.", opening)
        self.assertIn("- S3.B.1=UNTESTED, expected FAIL", opening)
        self.assertIn("| 2 | no test in this certification covers it | S3.B.1, AMB.X |",
                      opening)
        self.assertIn("| 1 | no runtime | W.INTEROP.1 |", opening)

    def test_under_bazel_test_the_outputs_hold_the_package_as_its_tarball_only(self):
        # Bazel lists each file of a test's outputs; the package's dumps stay
        # in the tarball there, built in a temporary directory then removed.
        d = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        undeclared, tmp = os.path.join(d, "undeclared"), os.path.join(d, "tmp")
        os.makedirs(undeclared)
        os.makedirs(tmp)
        self.run_main(out=os.path.join(undeclared, "cert"),
                      env_extra={"TEST_UNDECLARED_OUTPUTS_DIR": undeclared, "TMPDIR": tmp})
        self.assertEqual(sorted(os.listdir(self.out)),
                         ["cert-package.tar.gz", "junit.xml", "report.html", "report.json",
                          "report.md"])
        with tarfile.open(os.path.join(self.out, "cert-package.tar.gz")) as tar:
            names = tar.getnames()
        for want in ("MANIFEST.sha256", "identity.json", "report.json",
                     "dumps/mi1_s3/S.Fails.region"):
            self.assertIn("cert-package/" + want, names)
        self.assertEqual(os.listdir(tmp), [])

    def test_the_failed_test_fails_the_certification(self):
        status, _, _, printed = self.run_main("--require-pass", "--allow-untested=S3.B.1")
        self.assertEqual(status, 1)
        self.assertIn("certification requires every test to pass; failed: mi1:s3 S.Fails",
                      printed)


if __name__ == "__main__":
    unittest.main()
