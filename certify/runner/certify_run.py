"""Runs a certification's test binaries and writes the verdicts and package.

Invoked by the test that spsq_l2_certification generates (bazel test, or
bazel run to print the table). For each binary it runs the whole GoogleTest
binary once; if the binary crashes or hangs, every test is re-run in its own
process so one crash costs one test, and the crashed test's clauses (read from
its source) are FAIL.

Outputs, in --out (default: the test's undeclared outputs, or
<workspace>/bazel-certification/<name> under bazel run):
  report.md, report.json, junit.xml       the verdict table three ways
  report.html                              the clause matrix and drill-downs,
                                           one self-contained page
  package/                                 report + identity + logs + XML +
                                           region dumps + MANIFEST.sha256
  <name>-package.tar.gz                    the package as one file
Under bazel test the test's outputs hold the tarball, not package/ (Bazel
lists every file of a test's outputs, about 20 ms a file, and a failing
certification has hundreds of region dumps); the copy in
<workspace>/bazel-certification/<name>/ has both.
JUnit also goes to $XML_OUTPUT_FILE, so Bazel's test.xml is per clause.
"""

import argparse
import datetime
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bounded_run  # noqa: E402
import catalogue  # noqa: E402
import coverage  # noqa: E402
import report_html  # noqa: E402
import stages as S  # noqa: E402
import verdicts as V  # noqa: E402
import wrap_rate  # noqa: E402

def _timeouts():
    """(whole binary, one test) in seconds, within Bazel's budget. One test's
    bound is generous (a correct test on a loaded machine, or under a
    sanitizer, must never reach it): it only names a test that hangs."""
    budget = float(os.environ.get("TEST_TIMEOUT", "3600"))
    return max(60, int(budget * 0.4)), max(60, int(budget * 0.2))


BINARY_TIMEOUT_S, TEST_TIMEOUT_S = _timeouts()


class _Deadline(object):
    """The whole certification's time: Bazel's budget less a reserve for the
    report, so a run of hanging tests ends in a report, not in a timeout."""

    def __init__(self):
        self.end = None
        self.budget_s = 0

    def start(self):
        budget = os.environ.get("TEST_TIMEOUT")
        self.end = (time.monotonic() + float(budget) * 0.85 - 10) if budget else None
        self.budget_s = int(float(budget) * 0.85 - 10) if budget else 0

    def left(self):
        return float("inf") if self.end is None else self.end - time.monotonic()


DEADLINE = _Deadline()


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--name", required=True)
    p.add_argument("--endpoint-template", required=True)
    p.add_argument("--implementation", required=True)
    p.add_argument("--catalogue", required=True)
    p.add_argument("--toolchain-file")
    p.add_argument("--suite-marker", help="a runfile inside conformance/, to find the checkout")
    p.add_argument("--binary", action="append", default=[], help="MI:SECTION:PATH")
    p.add_argument("--depth", choices=S.DEPTHS,
                   help="quick, standard or deep (default: $SPSQ_CERT_DEPTH, else "
                        "--default-depth); see stages.py")
    p.add_argument("--default-depth", choices=S.DEPTHS, default="standard")
    p.add_argument("--all-stages", action="store_true",
                   help="run every stage given at this depth's budgets (a quick look at what "
                        "each stage catches, e.g. for the mutants)")
    p.add_argument("--once-section", action="append", default=[],
                   help="a suite section that runs only at depth standard and deep (the wrap)")
    p.add_argument("--wire-floor", metavar="PATH",
                   help="the wire floor binary (bench:wire_floor), run alone after the wrap: the "
                        "wrap row's yardstick when the wrap sampled no floor in its threads, "
                        "given beside the one it sampled otherwise")
    p.add_argument("--stage-binary", action="append", default=[], metavar="STAGE:SECTION:PATH",
                   help="a GoogleTest binary of a stage other than the suite (explorer, tsan)")
    p.add_argument("--corpus", action="append", default=[], metavar="HARNESS:PATH:DIR[,DIR]",
                   help="a harness's replay build and its corpus (stage corpus)")
    p.add_argument("--libfuzzer", action="append", default=[], metavar="HARNESS:PATH",
                   help="a harness's libFuzzer build (stage fuzz; tools/certify builds it)")
    p.add_argument("--fuzz-seconds", type=int,
                   help="libFuzzer budget per harness (default: 60 at standard, 600 at deep)")
    p.add_argument("--coverage", action="store_true",
                   default=bool(os.environ.get("SPSQ_CERT_COVERAGE")),
                   help="report line and branch coverage of --impl-files under everything that "
                        "ran (binaries built with --config=coverage; tools/certify --coverage)")
    p.add_argument("--stage-untested", action="append", default=[], metavar="STAGE:WHAT=WHY",
                   help="a stage that cannot run in this build, and why")
    p.add_argument("--sources", nargs="*", default=[], help="test sources (crash mapping)")
    p.add_argument("--impl-files", nargs="*", action="extend", default=[])
    p.add_argument("--expect-fail", default="")
    p.add_argument("--stage-not-run", action="append", default=[], metavar="ID=REASON",
                   help="a clause whose stage was not built, and why (UNTESTED with the reason)")
    p.add_argument("--expected-verdicts",
                   help="JSON {fail: [IDs], readings: {ID: letter}, untested: {ID: why}}: the "
                        "verdicts a legal variant must get (those FAILs and no other, those "
                        "readings; UNTESTED only where listed)")
    p.add_argument("--role", default="L2", choices=("L2", "L3", "runtime", "python"))
    p.add_argument("--require-pass", action="store_true")
    p.add_argument("--require-pass-roles", default="",
                   help="with --require-pass: only clauses binding these roles must PASS "
                        "(others may be UNTESTED); FAIL always fails")
    p.add_argument("--allow-untested", default="",
                   help="clauses that may be UNTESTED under --require-pass (e.g. sanitizer runs)")
    p.add_argument("--out")
    p.add_argument("--quiet", action="store_true", help="print only the summary")
    return p.parse_args(argv)


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def under_bazel_test():
    """True under bazel test, not bazel run: outputs go to the test's
    undeclared outputs."""
    return bool(os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR")) and not os.environ.get(
        "BUILD_WORKSPACE_DIRECTORY")


def default_out(name):
    if under_bazel_test():
        return os.path.join(os.environ["TEST_UNDECLARED_OUTPUTS_DIR"], name)
    if os.environ.get("BUILD_WORKSPACE_DIRECTORY"):
        return os.path.join(os.environ["BUILD_WORKSPACE_DIRECTORY"], "bazel-certification", name)
    return os.path.abspath("certification-" + name)


def package_apart(args):
    """True when package/ is built outside --out: the test's undeclared
    outputs under bazel test, which then get the tarball only."""
    return not args.out and under_bazel_test()


def test_workspace():
    """The source tree of the workspace a `bazel test` runs in, or None.

    Under bazel test no variable names it, but the execution root (the part
    of the runfiles path before bazel-out/) holds one symlink per top-level
    entry of the main workspace, each into the source tree.
    """
    srcdir = os.environ.get("TEST_SRCDIR", "")
    if "/bazel-out/" not in srcdir:
        return None
    execroot = srcdir.split("/bazel-out/")[0]
    for entry in sorted(os.listdir(execroot)):
        path = os.path.join(execroot, entry)
        if entry in ("bazel-out", "external", "_tmp") or not os.path.islink(path):
            continue
        return os.path.dirname(os.path.realpath(path))
    return None


def publish_copy(out, name, pkg):
    """Under bazel test, also lands the report and package (`pkg`, unpacked,
    and the tarball) in <workspace>/bazel-certification/<name>/, where bazel
    run puts them. Returns that path, or None when it could not be written (a
    sandboxed run)."""
    root = test_workspace()
    if not root:
        return None
    dest = os.path.join(root, "bazel-certification", name)
    try:
        if os.path.isdir(dest):
            shutil.rmtree(dest)
        shutil.copytree(out, dest)
        if not os.path.isdir(os.path.join(dest, "package")):
            shutil.copytree(pkg, os.path.join(dest, "package"))
    except OSError as e:
        print("note: could not copy the report to %s: %s" % (dest, e))
        return None
    return dest


def suite_revision(marker):
    """git revision of the checkout the suite came from (runfiles resolve into it)."""
    if not marker:
        return "unknown"
    root = os.path.dirname(os.path.dirname(os.path.realpath(marker)))
    try:
        rev = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=30).stdout.strip()
        # The suite, its instruments and wire model, the stages and the runner
        # that build a certification from it.
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--", "conformance",
                                "model", "testkit", "fuzz", "sanitizers", "certify"],
                               capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    if not rev:
        return "unknown"
    return rev + ("+local-changes" if dirty else "")


def run_gtest(binary, xml_path, dumps, log_path, extra=(), timeout=None, env_extra=None,
              test_timeout=None, what="the suite binary"):
    """Runs a GoogleTest binary within its bounds (bounded_run): `timeout`
    for the whole run (cut to what the certification has left),
    `test_timeout` for any one test, and the memory and output bounds.
    Returns the bounded_run.Outcome."""
    timeout = max(1, int(min(timeout or BINARY_TIMEOUT_S, DEADLINE.left())))
    env = dict(os.environ)
    env.update(env_extra or {})
    env["GTEST_OUTPUT"] = "xml:" + xml_path
    env.pop("XML_OUTPUT_FILE", None)  # our own test.xml, not the binary's
    env["TEST_UNDECLARED_OUTPUTS_DIR"] = dumps
    for d in (dumps, os.path.dirname(xml_path), os.path.dirname(log_path)):
        os.makedirs(d, exist_ok=True)
    return bounded_run.run([binary] + list(extra), env, log_path, timeout,
                           test_time_s=test_timeout, what=what)


def list_tests(binary):
    out = subprocess.run([binary, "--gtest_list_tests"], capture_output=True, text=True,
                         timeout=120).stdout
    names, suite = [], None
    for line in out.splitlines():
        if not line.strip():
            continue
        if not line.startswith(" "):
            suite = line.split("#")[0].strip()
        else:
            names.append(suite + line.split("#")[0].strip())
    return names


def source_key(suite, name):
    """A test's name in its source: "Suite.Test" of "Prefix/Suite.Test/3"."""
    return "%s.%s" % (suite.split("/")[-1], name.split("/")[0])


def attribute(cases, declared):
    """A test that failed before it recorded its clauses (a fixture's SetUp,
    an ASSERT before SPSQ_CLAUSES) judges what its source declares."""
    for case in cases:
        if case.failures and not case.attributed:
            ids = declared.get(source_key(case.suite, case.name), [])
            if ids:
                case.properties["clauses"] = ",".join(ids)
                case.failures.append("(clauses taken from the test's source: it failed before "
                                     "recording them)")
    return cases


def label_of(path):
    """The Bazel label of a binary given by its runfiles path, or by its path
    under a bazel-bin symlink (tools/certify's builds)."""
    if os.path.isabs(path) and "-bin/" in path:
        path = path.split("-bin/", 1)[1]
    if path.startswith("external/"):
        parts = path.split("/")
        return "@%s//%s:%s" % (parts[1], "/".join(parts[2:-1]), parts[-1])
    return "//%s:%s" % (os.path.dirname(path), os.path.basename(path))


def annotate(cases, path, tag, root, env=None):
    """Where to look and what to run again, for each failed test: the
    command that runs it alone (with the environment its stage set), and its
    region dump when the test wrote one (the L2 and L3 fixtures do, as
    dumps/<tag>/<Suite>.<Test>.region under `root`; runtime and Python tests
    write none)."""
    env_text = " ".join("%s=%s" % (k, v) for k, v in sorted((env or {}).items()))
    for case in cases:
        if case.failures:
            test = "%s.%s" % (case.suite, case.name)
            case.properties["rerun"] = "%sbazel run %s -- --gtest_filter=%s" % (
                env_text + " " if env_text else "", label_of(path), test)
            # The reproducer, field by field, for the report's opening.
            case.properties["binary_label"] = label_of(path)
            if env_text:
                case.properties["env"] = env_text
            dump = "dumps/%s/%s.region" % (tag, test)
            if os.path.isfile(os.path.join(root, dump)):
                case.properties["region_dump"] = dump
            else:
                case.properties.pop("region_dump", None)
    return cases


def run_binary(mi, section, path, workdir, crash_map, env_extra=None, test_timeout=None,
               subject="the suite binary"):
    """TestCases of one binary, isolating tests if the binary dies or runs
    out of a bound. A test that ran out of one (memory, output, its time)
    FAILs its clauses with the reason and is not run again; the others run
    one per process under the same bounds while the certification has time,
    and are not run (their clauses UNTESTED, with the reason) once it has
    none."""
    tag = "mi%s_%s" % (mi, section)
    binary_name = "mi%s:%s" % (mi, section)
    xml = os.path.join(workdir, "xml", tag + ".xml")
    log = os.path.join(workdir, "logs", tag + ".log")
    dumps = os.path.join(workdir, "dumps", tag)
    logged = os.path.getsize(log) if os.path.exists(log) else 0
    if os.path.exists(xml):
        os.unlink(xml)  # a stale one would pass for this run's
    test_timeout = test_timeout or TEST_TIMEOUT_S
    whole = run_gtest(path, xml, dumps, log, env_extra=env_extra, test_timeout=test_timeout,
                      what=subject)
    rc = whole.reason or whole.rc
    if not whole.bounded and whole.rc in (0, 1) and os.path.exists(xml):
        return attribute(V.parse_gtest_xml(xml, binary_name), crash_map), rc
    if not whole.bounded and os.path.exists(xml):
        # The binary finished (gtest wrote its XML) but a sanitizer that does
        # not halt changed its exit status: each report fails the test that
        # was running, which judged its clauses.
        with open(log, errors="replace") as f:
            f.seek(logged)
            reports = S.sanitizer_reports(f.read())
        cases = V.parse_gtest_xml(xml, binary_name)
        for case in cases:
            what = reports.get("%s.%s" % (case.suite, case.name))
            if what:
                case.failures.append("%s; see logs/%s.log" % (what, tag))
        if reports:
            return attribute(cases, crash_map), rc
    # Crash, hang or a bound: one process per test.
    cases = []
    for full in list_tests(path):
        suite, name = full.split(".", 1)
        case = V.TestCase(binary_name, suite, name)
        case.properties["clauses"] = ",".join(crash_map.get(source_key(suite, name), []))
        if full == whole.culprit:
            case.failures.append("%s: %s; see logs/%s.log" % (full, whole.reason, tag))
            cases.append(case)
            continue
        if DEADLINE.left() < 1:
            case.ran = False
            case.skip_reason = ("not run: the certification's time budget of %d s ran out "
                                "(%s; see logs/%s.log)" % (DEADLINE.budget_s, whole.reason or
                                                           "the binary died", tag))
            cases.append(case)
            continue
        one_xml = os.path.join(workdir, "xml", "%s.%s.xml" % (tag, full))
        if os.path.exists(one_xml):
            os.unlink(one_xml)
        one = run_gtest(path, one_xml, dumps, log, ["--gtest_filter=" + full],
                        timeout=test_timeout, env_extra=env_extra, test_timeout=test_timeout,
                        what=subject)
        if not one.bounded and one.rc in (0, 1) and os.path.exists(one_xml):
            cases.extend(attribute(V.parse_gtest_xml(one_xml, binary_name), crash_map))
            continue
        how = one.reason if one.bounded else "crashed (exit status %s)" % one.rc
        case.failures.append("%s: %s; see logs/%s.log" % (full, how, tag))
        cases.append(case)
    return cases, rc


def stage_arg_problems(args):
    """What is wrong with the stage arguments and the sources, each naming the
    argument."""
    out = []
    for flag, specs, parts, form in (
            ("--stage-binary", args.stage_binary, 3, "STAGE:SECTION:PATH"),
            ("--corpus", args.corpus, 3, "HARNESS:PATH:DIR[,DIR]"),
            ("--libfuzzer", args.libfuzzer, 2, "HARNESS:PATH")):
        for spec in specs:
            fields = spec.split(":", parts - 1)
            if len(fields) != parts or not all(fields):
                out.append("%s=%s: want %s" % (flag, spec, form))
            elif not os.path.exists(fields[parts - 1 if flag != "--corpus" else 1]):
                out.append("%s=%s: no such file: %s" % (
                    flag, spec, fields[parts - 1 if flag != "--corpus" else 1]))
    for spec in args.stage_untested:
        key, _, why = spec.partition("=")
        if ":" not in key or not why:
            out.append("--stage-untested=%s: want STAGE:WHAT=WHY" % spec)
    if args.fuzz_seconds is not None and args.fuzz_seconds < 0:
        out.append("--fuzz-seconds=%d: a budget is 0 s or more" % args.fuzz_seconds)
    # Read only when a test needs them (verdicts.CrashMap), so checked here.
    out += ["--sources: no such file: %s" % src for src in args.sources
            if not os.path.isfile(src)]
    return out


def impl_sources(files):
    """The implementation's files as the compiler saw them (runfiles paths of
    the main repository are execroot paths; external ones keep external/)."""
    return sorted({f[len("../"):] if f.startswith("../") else f for f in files})


def check_expected(path, verdicts, by_id, allow_untested, cases=()):
    """(0, [what held]) when the verdicts are the expected ones (a legal
    variant), else (1, lines naming each difference). A FAIL not listed is a
    suite defect (the variant is correct by construction), so it is named as
    such; so is a failed test that is not one of the expected FAILs'
    (whatever its clauses' verdicts: an ambiguity's deviation or a clause not
    applicable here hides nothing)."""
    with open(path) as f:
        want = json.load(f)
    unknown = [c for c in list(want.get("fail", [])) + list(want.get("readings", {}))
               if c not in by_id]
    problems = ["%s: not a clause of this certification" % c for c in unknown]
    want_fail = set(want.get("fail", [])) - set(unknown)
    got_fail = {v.clause["id"] for v in verdicts if v.verdict == V.FAIL}
    for c in sorted(got_fail - want_fail):
        problems.append("%s=FAIL, which the variant's expected verdicts do not allow: a suite "
                        "defect (the variant is correct)" % c)
    for c in sorted(want_fail - got_fail):
        problems.append("%s=%s, expected FAIL" % (c, by_id[c].verdict))
    for c, letter in sorted(want.get("readings", {}).items()):
        if c in unknown:
            continue
        v = by_id[c]
        seen = sorted(v.readings) if v.verdict == V.INTERPRETATION else []
        if seen != [letter]:
            problems.append("%s=%s with readings %s, expected INTERPRETATION reading %s" % (
                c, v.verdict, ",".join(seen) or "none", letter))
    for t in cases:
        if not t.failures:
            continue
        judged = set(t.clauses) | set(t.invariant_violations)
        if not judged & want_fail & got_fail:
            problems.append("%s failed, and no FAIL it judges is an expected one: a suite "
                            "defect (the variant is correct): %s" % (
                                t.full_name, V.first_failure_line(t.failures[0])))
    allowed = set(c for c in allow_untested.split(",") if c) | set(want.get("untested", {}))
    for v in verdicts:
        if (v.verdict == V.UNTESTED and v.clause["level"] in V.NORMATIVE and
                v.clause["id"] not in allowed):
            problems.append("%s=UNTESTED (%s)" % (v.clause["id"], v.detail))
    if problems:
        return 1, ["verdicts differ from %s:" % os.path.basename(path)] + [
            "  " + p for p in problems]
    return 0, ["verdicts are the expected ones (%s)" % os.path.basename(path)]


def certification_status(args, verdicts, cases):
    """(exit status, lines to print). A failed test that judges no clause
    fails every certification. Mutants (--expect-fail) must FAIL their
    clauses, so their failed tests are the point; in every other mode any
    failed test fails the certification (a variant's only where it is not
    one of its expected FAILs), whatever the clause table says."""
    status, lines = 0, []
    by_id = {v.clause["id"]: v for v in verdicts}
    orphans = V.unattributed_failures(cases)
    if orphans:
        lines.append("failed tests that judge no clause (the certification cannot pass): " +
                     ", ".join(t.full_name for t in orphans))
        status = 1
    failed_tests = [t for t in cases if t.failures]
    if args.expect_fail:
        wanted = [c for c in args.expect_fail.split(",") if c]
        missing = [c for c in wanted if c not in by_id or by_id[c].verdict != V.FAIL]
        if missing:
            lines.append("EXPECTED FAIL but got: " + ", ".join(
                "%s=%s" % (c, by_id[c].verdict if c in by_id else "unknown") for c in missing))
            status = 1
        else:
            lines.append("all %d expected clauses FAIL, as they must for this mutant" %
                         len(wanted))
        # Collateral: FAILs beyond the defect's own clauses, the measure of
        # how narrowly the suite attributes one behaviour.
        extra = sorted(v.clause["id"] for v in verdicts
                       if v.verdict == V.FAIL and v.clause["id"] not in wanted)
        lines.append("collateral: %d more FAIL clause%s%s" % (
            len(extra), "" if len(extra) == 1 else "s", (": " + ", ".join(extra)) if extra else ""))
        return status, lines
    if args.expected_verdicts:
        got, said = check_expected(args.expected_verdicts, verdicts, by_id, args.allow_untested,
                                   cases)
        return got or status, lines + said
    if args.require_pass:
        allowed = set(c for c in args.allow_untested.split(",") if c)
        roles = set(r for r in args.require_pass_roles.split(",") if r)
        bad = [v for v in verdicts if v.verdict == V.FAIL or (
            v.verdict == V.UNTESTED and v.clause["level"] in V.NORMATIVE and
            v.clause["id"] not in allowed and (not roles or v.clause["role"] in roles))]
        if bad:
            lines.append("certification requires every judged clause to PASS; not passing: " +
                         ", ".join("%s=%s" % (v.clause["id"], v.verdict) for v in bad))
            status = 1
    if failed_tests:
        lines.append("certification requires every test to pass; failed: " +
                     ", ".join(t.full_name for t in failed_tests))
        status = 1
    return status, lines


def mode_of(args):
    """What certification_status checks the verdicts against, in words."""
    if args.expect_fail:
        return "a mutant: its clauses %s must FAIL" % args.expect_fail
    if args.expected_verdicts:
        return "a legal variant: the verdicts in %s" % os.path.basename(args.expected_verdicts)
    if args.require_pass:
        return "every judged clause must PASS and every test pass"
    return "every test must pass"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def stage_summary(runs):
    """One clause per stage, in run order: "suite 27 binaries PASS" for a
    stage of one run, "noncoherent 48 runs: 46 PASS, 2 FAIL (a, b)" for more,
    naming the runs that did not pass."""
    return "; ".join(S.kind_line(stage, group)
                     for stage, group in S.kinds([r.to_json() for r in runs]))


def main(argv):
    args = parse_args(argv)
    # Checked before anything is written: a bad argument leaves the last report.
    problems = stage_arg_problems(args)
    if problems:
        print("certify: " + "\n  ".join(problems), file=sys.stderr)
        return 2
    DEADLINE.start()
    out = os.path.abspath(args.out or default_out(args.name))
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)
    apart = tempfile.mkdtemp(prefix="spsq-package-") if package_apart(args) else None
    pkg = os.path.join(apart or out, "package")
    os.makedirs(pkg)

    clauses = catalogue.load(args.catalogue)
    crash_map = V.CrashMap(args.sources)

    depth = args.depth or os.environ.get("SPSQ_CERT_DEPTH") or args.default_depth
    if depth not in S.DEPTHS:
        print("certify: SPSQ_CERT_DEPTH=%s is not a depth; use one of %s" % (
            depth, ", ".join(S.DEPTHS)), file=sys.stderr)
        return 2
    wanted = S.STAGES_AT["deep"] if args.all_stages else S.STAGES_AT[depth]
    progress = S.Progress()
    raw_profiles = tempfile.mkdtemp(prefix="spsq-cert-profiles-") if args.coverage else None
    if raw_profiles:
        coverage.enable(raw_profiles)
    ran_binaries = []  # instrumented binaries whose profiles coverage reads
    runs, cases, binaries = [], [], []
    depth_not_run = {}  # clause -> why: judged only by a section this depth leaves out

    def gtest_stage(stage, mi, section, path, env=None):
        start = time.time()
        progress.show(stage, section, 0, 0, 0, 0)
        # Under TSan every report is kept and laid at its test's door (a halt
        # would end the binary at the first, before the test named its clauses).
        if stage == "tsan":
            env = {"TSAN_OPTIONS": "halt_on_error=0"}
        # A suite test has its own time bound; the wrap's one test and a
        # stage binary's long tests have the whole binary's.
        suite_like = stage in ("suite", "noncoherent")
        got, rc = run_binary(mi, section, path, pkg, crash_map, env,
                             test_timeout=TEST_TIMEOUT_S if suite_like else BINARY_TIMEOUT_S,
                             subject="the %s binary" % ("suite" if suite_like else stage))
        annotate(got, path, "mi%s_%s" % (mi, section), pkg, env)
        cases.extend(got)
        ran_binaries.append(path)
        binaries.append({"max_inflight": int(mi), "section": section, "stage": stage,
                         "sha256": sha256_file(path), "exit": str(rc), "tests": len(got)})
        run = S.StageRun(stage, "mi%s:%s" % (mi, section) if int(mi) else section)
        run.elapsed = time.time() - start
        run.execs = sum(1 for c in got if c.ran)
        failed = sum(1 for c in got if c.failures)
        run.status = "FAIL" if failed else "PASS"
        run.reason = "%d tests ran, %d failed" % (run.execs, failed)
        if stage == "wrap":
            # Measured beside the verdicts, never part of them.
            run.measure, run.numbers = wrap_rate.describe(
                got, args.wire_floor, os.path.join(pkg, "logs", "wire_floor.log"))
            run.reason += "; " + run.measure
        progress.show(stage, run.what, run.elapsed, 0, run.execs, failed, final=True)
        return run

    suite_runs = []
    for spec in args.binary:
        mi, section, path = spec.split(":", 2)
        stage = "wrap" if section in args.once_section else "suite"
        if stage in wanted:
            (suite_runs if stage == "suite" else runs).append(gtest_stage(stage, mi, section, path))
            continue
        run = S.not_run(stage, section, "not run at depth %s (it runs at standard and deep)" %
                        depth)
        runs.append(run)
        for test in list_tests(path):
            suite_name, _, name = test.partition(".")
            key = "%s.%s" % (suite_name.split("/")[-1], name.split("/")[0])
            for token in crash_map.get(key, []):
                depth_not_run.setdefault(catalogue.clause_of(token), run.reason)
    # The suite again over non-coherent payload memory, per policy: the L2
    # and L3 suites on the harness's model, the runtime suite and the L2
    # interop section on the runtime's (its L3 side; the exec'd L2 maps the
    # DRAM). The L3 suite's interop runs a reference L2 thread through raw
    # addresses and stays coherent.
    for spec in args.binary if args.role in ("L2", "L3", "runtime") else ():
        mi, section, path = spec.split(":", 2)
        if section in args.once_section or (args.role == "L3" and "interop" in section):
            continue
        for policy in S.NONCOHERENT_POLICIES:
            tag = "noncoherent_%s_%s" % (policy.replace(":", ""), section)
            if "noncoherent" in wanted:
                runs.append(gtest_stage("noncoherent", mi, tag, path,
                                        env={"SPSQ_COHERENCE": policy}))
            else:
                # Named as a run would be: one section is built per MaxInflight.
                runs.append(S.not_run("noncoherent", "mi%s:%s" % (mi, tag) if int(mi) else tag,
                                      "not run at depth %s (it runs at standard and deep)" %
                                      depth))
    if suite_runs:
        suite = S.StageRun("suite", "%d binaries" % len(suite_runs))
        suite.elapsed = sum(r.elapsed for r in suite_runs)
        suite.execs = sum(r.execs for r in suite_runs)
        bad = [r.what for r in suite_runs if r.status == "FAIL"]
        suite.status = "FAIL" if bad else "PASS"
        suite.reason = "%d tests ran%s" % (suite.execs, "; failing: " + ", ".join(bad) if bad
                                           else "")
        runs.insert(0, suite)

    for spec in S.last_wins(args.stage_binary, 2):
        stage, section, path = spec.split(":", 2)
        if stage in wanted:
            # One binary in several stages (stress plain and under TSan) keeps
            # its results apart: the section names the stage.
            if not section.startswith(stage):
                section = "%s_%s" % (stage, section)
            runs.append(gtest_stage(stage, 0, section, path))
        else:
            runs.append(S.not_run(stage, section, "not run at depth %s" % depth))

    libfuzzer = dict(item.split(":", 1) for item in S.last_wins(args.libfuzzer, 1))
    fuzz_seconds = args.fuzz_seconds if args.fuzz_seconds is not None else S.FUZZ_SECONDS[depth]
    fuzz_work = tempfile.mkdtemp(prefix="spsq-cert-fuzz-")
    for spec in S.last_wins(args.corpus, 1):
        harness, path, dirs = spec.split(":", 2)
        label = label_of(path)
        log = os.path.join(pkg, "logs", "stage_%s.log" % harness)
        os.makedirs(os.path.dirname(log), exist_ok=True)
        # The differential's executable holds the reference under the same
        # function names as the endpoint under test (in its shared object):
        # profiles merge by name, so its runs would count as the endpoint's.
        # It runs, but its profiles stay out of the coverage.
        separate = raw_profiles and harness == "differential"
        if separate:
            coverage.enable(os.path.join(fuzz_work, "differential-profiles"))
        run = S.run_corpus(harness, path, dirs.split(","), pkg, label, progress, log,
                           minimizer=libfuzzer.get(harness))
        if separate:
            coverage.enable(raw_profiles)
        else:
            ran_binaries.append(path)
        runs.append(run)
        cases.extend(S.cases_of(run))
        if "fuzz" not in wanted:
            runs.append(S.not_run("fuzz", harness, "not run at depth %s" % depth))
        elif harness not in libfuzzer:
            runs.append(S.not_run("fuzz", harness, "no libFuzzer build of it was given: "
                                  "`tools/certify --depth %s %s` builds and runs one" % (
                                      depth, os.environ.get("TEST_TARGET", args.name))))
        elif fuzz_seconds <= 0:
            runs.append(S.not_run("fuzz", harness, "a fuzzing budget of 0 s"))
        else:
            run = S.run_fuzz(harness, libfuzzer[harness], dirs.split(","), pkg, fuzz_work,
                             label, fuzz_seconds, progress, log)
            runs.append(run)
            cases.extend(S.cases_of(run))
            if raw_profiles and not separate:  # what fuzzing found, through the replay build
                S.replay_quietly(path, os.path.join(fuzz_work, "fuzz-corpus", harness))
    shutil.rmtree(fuzz_work, ignore_errors=True)
    for item in args.stage_untested:
        key, why = item.split("=", 1)
        stage, what = key.split(":", 1)
        if stage in wanted:
            runs.append(S.not_run(stage, what, why))

    build = hashlib.sha256()
    for b in sorted(binaries, key=lambda b: (b["max_inflight"], b["section"])):
        build.update(b["sha256"].encode())
    impl = {}
    for f in sorted(args.impl_files):
        impl[f] = sha256_file(f)
        build.update(impl[f].encode())
    toolchain = "unknown"
    if args.toolchain_file and os.path.exists(args.toolchain_file):
        with open(args.toolchain_file) as f:
            toolchain = " ".join(f.read().split())
    identity = {
        "name": args.name,
        "role": args.role,
        "implementation": args.implementation,
        "endpoint_template": args.endpoint_template,
        "max_inflight": sorted({b["max_inflight"] for b in binaries}),
        "suite_revision": suite_revision(args.suite_marker),
        "build_hash": build.hexdigest(),
        "toolchain": toolchain,
        "implementation_files": impl,
        "binaries": binaries,
        "depth": depth,
        "stages": [r.to_json() for r in runs],
        "tests_run": sum(1 for c in cases if c.ran),
        "tests_failed": sum(1 for c in cases if c.failures),
        "generated_utc": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"),
    }

    if raw_profiles:
        identity["coverage"] = coverage.report(
            raw_profiles, sorted(set(ran_binaries)), impl_sources(args.impl_files),
            os.path.join(pkg, "coverage"))
        shutil.rmtree(raw_profiles, ignore_errors=True)
    # A clause only the left-out sections judge may stay UNTESTED at this depth.
    args.allow_untested = ",".join([a for a in [args.allow_untested] if a] + sorted(depth_not_run))
    not_run = dict(depth_not_run)
    not_run.update(item.split("=", 1) for item in args.stage_not_run)
    identity["stages_not_run"] = not_run
    verdicts = V.compute_verdicts(clauses, cases, args.role, not_run)
    # Decided before the reports are written: they open with what it found.
    status, lines = certification_status(args, verdicts, cases)
    outcome = {"status": status, "mode": mode_of(args), "lines": lines}
    md = (V.render_markdown(verdicts, identity, outcome) + S.render_markdown(runs) +
          coverage.render_markdown(identity.get("coverage")))
    js = V.render_json(verdicts, identity, outcome)
    junit = V.render_junit(verdicts, identity)
    page = report_html.render(V.report_document(verdicts, identity, outcome))
    for name, text in (("report.md", md), ("report.json", js), ("junit.xml", junit),
                       ("report.html", page)):
        write(os.path.join(out, name), text)
        write(os.path.join(pkg, name), text)
    write(os.path.join(pkg, "identity.json"), json.dumps(identity, indent=1) + "\n")
    shutil.copy(args.catalogue, os.path.join(pkg, "clauses.json"))
    manifest = []
    for root, _, files in os.walk(pkg):
        for f in sorted(files):
            full = os.path.join(root, f)
            manifest.append("%s  %s" % (sha256_file(full), os.path.relpath(full, pkg)))
    write(os.path.join(pkg, "MANIFEST.sha256"), "\n".join(sorted(manifest, key=lambda l: l[66:])) + "\n")
    with tarfile.open(os.path.join(out, args.name + "-package.tar.gz"), "w:gz") as tar:
        tar.add(pkg, arcname=args.name + "-package")
    if os.environ.get("XML_OUTPUT_FILE"):
        write(os.environ["XML_OUTPUT_FILE"], junit)

    summary = V.counts(verdicts)
    if args.quiet:
        print(md.split("\n| clause |")[0])
    else:
        sys.stdout.write(md)
    shown = out
    if (os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR") and os.environ.get("TEST_TARGET") and
            not os.environ.get("BUILD_WORKSPACE_DIRECTORY")):
        # Under bazel test the sandbox path is gone afterwards; name the kept copies.
        print("\nalso in bazel-testlogs/%s/test.outputs/ (outputs.zip)/%s" % (
            os.environ["TEST_TARGET"].lstrip("/").replace(":", "/"), args.name))
        shown = publish_copy(out, args.name, pkg) or out
    if apart:
        shutil.rmtree(apart, ignore_errors=True)
    print("\nreport: %s (and report.html)\npackage: %s" % (
        os.path.join(shown, "report.md"), os.path.join(shown, args.name + "-package.tar.gz")))
    print("summary: " + ", ".join("%s %d" % (k, summary[k]) for k in V.ORDER))
    print("stages (depth %s): %s" % (depth, stage_summary(runs)))
    if lines:
        print("\n".join(lines))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
