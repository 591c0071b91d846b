"""Certification stages beyond the suite: corpus replay and fuzzing of the
harnesses built over the endpoint under test, the TSan stress and the
interleaving explorer, at a depth.

A stage's verdict is its own row (PASS, FAIL or UNTESTED with the reason) in
the report's stage table. A finding is a FAIL of the clauses the broken
invariant names: harnesses print

    spsq-finding: clauses=S2.DESC.3,W.ARENA.2 at fuzz/l2_stream_fuzz.cc:120: <cond>

(fuzz/fuzz_check.h) before they abort, and the finding becomes a test case of
the certification that judges exactly those clauses, with its reproducer in
the package and the command that replays it. Where a harness accepts several
readings of an open point or ambiguity, it states the one the implementation
took instead,

    spsq-reading: AMB.WAITFALSE=B at fuzz/l2_stream_fuzz.cc:660: <detail>

and the stage records it as a passed test case of that clause carrying the
reading, as SPSQ_READING does in the suite and the gtest stages: one
mechanism, so the clause's verdict is INTERPRETATION with every reading any
stage saw (never FAIL). A clean fuzzing or replay run
judges nothing: it looked for a defect and found none, which the stage row
says, but it never makes a clause PASS (that is the suite's job). Gtest
stages (stress, explorer) are ordinary judging tests.

Depths (the budgets are seconds of wall time per harness):
  quick     the suite without the once-built runs (the 2^32 counter wrap)
            and the corpus replay
  standard  everything: plus the wrap, the explorer, the stress binaries
            (plain and under TSan), the suite again over non-coherent
            memory (SPSQ_COHERENCE: each policy of NONCOHERENT_POLICIES,
            testkit/coherence) and 60 s of libFuzzer per harness (the
            default)
  deep      standard with the user's budgets (--fuzz-seconds), for
            continuous fuzzing
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import bounded_run
import verdicts as V

DEPTHS = ("quick", "standard", "deep")
# Which stages run at each depth.
STAGES_AT = {
    "quick": ("suite", "corpus"),
    "standard": ("suite", "wrap", "noncoherent", "corpus", "fuzz", "explorer", "stress", "tsan"),
    "deep": ("suite", "wrap", "noncoherent", "corpus", "fuzz", "explorer", "stress", "tsan"),
}
# The noncoherent stage runs every suite binary again with SPSQ_COHERENCE set
# to each of these: the endpoint's payload then lives in a private copy that
# reaches the peer only through flush and invalidate.
NONCOHERENT_POLICIES = ("adversarial", "random:1")
FUZZ_SECONDS = {"quick": 0, "standard": 60, "deep": 600}
MINIMIZE_SECONDS = 30
MAX_FINDINGS = 5  # per harness and stage: more of the same helps nobody

FINDING = re.compile(r"spsq-finding: clauses=(\S+) at (\S+): (.*)")
# The differential harness's note where the endpoint under test answered
# otherwise than the reference on a point the spec leaves open: stated in the
# stage row, never a FAIL (fuzz/differential_fuzz.cc).
DIVERGENCE = re.compile(r"spsq-divergence: (\S+) at (.*)")
# A harness's statement of the reading an implementation took (fuzz_check.h).
READING = re.compile(r"spsq-reading: ([A-Z][A-Z0-9]*(?:\.[A-Z0-9]+)+)=([A-Z]) at (\S+): (.*)")
CRASHING_INPUT = re.compile(r"replay: crashing input: (.+)")
ARTIFACT = re.compile(r"Test unit written to (\S+)")
EXECS = re.compile(r"^#(\d+)\s")


class Progress(object):
    """One line per stage on the terminal: stage, elapsed against budget,
    executions, findings. On a terminal the line is redrawn in place; in a
    log it is printed every `every` seconds and at the end."""

    def __init__(self, stream=None, every=10.0):
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.every = every
        self._last = 0.0

    def show(self, stage, what, elapsed, budget, execs, findings, final=False):
        now = time.time()
        if not final and not self.tty and now - self._last < self.every:
            return
        self._last = now
        budget_text = "/%ds" % budget if budget else ""
        line = "[%s %s] %.0fs%s, %d execs, %d findings" % (
            stage, what, elapsed, budget_text, execs, findings)
        if self.tty:
            self.stream.write("\r\033[K" + line + ("\n" if final else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


class StageRun(object):
    """What one stage did for one harness or binary."""

    def __init__(self, stage, what, budget=0):
        self.stage = stage
        self.what = what
        self.status = "UNTESTED"
        self.reason = ""
        self.elapsed = 0.0
        self.budget = budget
        self.execs = 0
        self.findings = []  # dicts: clauses, where, message, reproducer, replay
        self.divergences = {}  # observable -> the first spsq-divergence line's detail
        self.readings = {}  # clause ID -> {letter: the first spsq-reading line's detail}
        self.measure = ""  # what the run measured, for its kind's row (the wrap's speed)
        self.numbers = {}  # the same as numbers, for report.json

    def note_divergences(self, text):
        """The divergences and the readings a harness's output states."""
        for m in DIVERGENCE.finditer(text):
            self.divergences.setdefault(m.group(1), m.group(2).strip())
        for m in READING.finditer(text):
            self.readings.setdefault(m.group(1), {}).setdefault(
                m.group(2), "%s at %s" % (m.group(4).strip(), m.group(3)))

    def reading_text(self):
        """The reason's clause on the readings the harness stated, or ""."""
        if not self.readings:
            return ""
        return "; readings stated: " + ", ".join(
            "%s %s" % (c, "/".join(sorted(self.readings[c]))) for c in sorted(self.readings))

    def divergence_text(self):
        """The reason's clause on open-point divergences, or ""."""
        if not self.divergences:
            return ""
        return ("; answered otherwise than the reference where the spec leaves a choice open "
                "(interpretations, judged by the suite; each ends that input's comparison): " +
                ", ".join(sorted(self.divergences)))

    def to_json(self):
        out = {"stage": self.stage, "what": self.what, "status": self.status,
               "reason": self.reason, "elapsed_s": round(self.elapsed, 1),
               "budget_s": self.budget, "execs": self.execs, "findings": self.findings,
               "divergences": self.divergences, "readings": self.readings}
        if self.measure:
            out["measure"] = self.measure
            out["numbers"] = self.numbers
        return out


def last_wins(specs, fields):
    """Stage arguments "A:B:rest" with one entry per key (the first `fields`
    parts): a later one (tools/certify's) replaces an earlier (the macro's)."""
    out = {}
    for spec in specs:
        parts = spec.split(":", fields)
        out[tuple(parts[:fields])] = spec
    return list(out.values())


def not_run(stage, what, reason):
    run = StageRun(stage, what)
    run.reason = reason
    return run


def parse_finding(text):
    """The first spsq-finding line of a harness's output, as a dict, or None."""
    for line in text.splitlines():
        m = FINDING.search(line)
        if m:
            rest = text[text.index(line) + len(line):].lstrip("\n").splitlines()
            detail = rest[0].strip() if rest else ""
            return {"clauses": [c for c in m.group(1).split(",") if c], "where": m.group(2),
                    "message": (m.group(3) + (": " + detail if detail else "")).strip()}
    return None


SANITIZER_REPORT = re.compile(r"(WARNING: ThreadSanitizer: .*|ERROR: AddressSanitizer: .*|"
                              r".*runtime error: .*)")
RUNNING = re.compile(r"^\[ RUN      \] (\S+)")


def sanitizer_reports(log_text):
    """{test: first sanitizer report line} from a GoogleTest binary's log: a
    report belongs to the test that was running when it was printed."""
    out, current = {}, None
    for line in log_text.splitlines():
        m = RUNNING.match(line)
        if m:
            current = m.group(1)
            continue
        m = SANITIZER_REPORT.search(line)
        if m and current and current not in out:
            out[current] = m.group(1).strip()
    return out


def crash_summary(text):
    """A line that says why a harness died without naming an invariant."""
    for pattern in ("ERROR: AddressSanitizer", "runtime error:", "ERROR: libFuzzer",
                    "WARNING: ThreadSanitizer", "Segmentation fault", "deadly signal"):
        for line in text.splitlines():
            if pattern in line:
                return line.strip()
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[-1].strip() if lines else "died with no output"


def finding_case(run, index, finding):
    """The test case a finding becomes: it judges the finding's clauses."""
    case = V.TestCase("mi0:%s_%s" % (run.stage, run.what), "Stage_" + run.stage,
                      "%s/finding%d" % (run.what, index))
    case.properties["clauses"] = ",".join(finding["clauses"])
    text = "%s at %s" % (finding["message"], finding["where"])
    if finding.get("reproducer"):
        text += "\nreproducer: %s" % finding["reproducer"]
        case.properties["reproducer"] = finding["reproducer"]
    case.failures.append(text)
    if finding.get("replay"):
        case.properties["rerun"] = finding["replay"]
    return case


def clean_case(run):
    """A stage run that found nothing: a test that ran and judged nothing."""
    return V.TestCase("mi0:%s_%s" % (run.stage, run.what), "Stage_" + run.stage, run.what)


def _inputs(paths):
    out = []
    for p in paths:
        if os.path.isdir(p):
            for root, _, files in os.walk(p):
                for f in files:
                    if f == "BUILD" or f.startswith(("README", ".")) or f.endswith(
                            (".md", ".dict")):
                        continue
                    out.append(os.path.join(root, f))
        elif os.path.exists(p):
            out.append(p)
    return sorted(out)


def _keep_reproducer(src, pkg, run, index):
    dest_dir = os.path.join(pkg, "reproducers")
    os.makedirs(dest_dir, exist_ok=True)
    dest = os.path.join(dest_dir, "%s-%s-%d" % (run.stage, run.what, index))
    shutil.copyfile(src, dest)
    return os.path.relpath(dest, pkg)


REPLAY_SECONDS = 1800


def _replay(binary, files):
    """Runs the replay build over `files` within the bounds of any binary
    (bounded_run): (exit status or None, its output, the bound it ran out of)."""
    fd, path = tempfile.mkstemp(prefix="spsq-replay-", suffix=".log")
    os.close(fd)
    try:
        out = bounded_run.run([binary] + files, dict(os.environ), path, REPLAY_SECONDS,
                              what="the replay binary")
        with open(path, "rb") as f:
            text = f.read().decode(errors="replace")
    finally:
        os.unlink(path)
    return out.rc, text, out.reason


def run_corpus(what, binary, corpus, pkg, label, progress, log_path, minimizer=None):
    """Replays every input of `corpus` through `binary` (the harness's plain
    replay build). A crash is a finding; the replay goes on after the crashing
    input, up to MAX_FINDINGS."""
    run = StageRun("corpus", what)
    files = _inputs(corpus)
    if not files:
        run.reason = "no corpus inputs under %s" % ", ".join(corpus)
        return run
    start = time.time()
    remaining = files
    while remaining and len(run.findings) < MAX_FINDINGS:
        rc, text, bound = _replay(binary, remaining)
        with open(log_path, "a") as log:
            log.write(text)
        run.note_divergences(text)
        if rc == 0:
            run.execs += len(remaining)
            break
        m = CRASHING_INPUT.search(text)
        crashed = m.group(1).strip() if m else None
        if crashed not in remaining:
            run.status = "FAIL"
            # Killed at a bound, the driver could not name its input.
            run.reason = bound or "the replay failed outside any input: " + crash_summary(text)
            run.elapsed = time.time() - start
            return run
        at = remaining.index(crashed)
        run.execs += at + 1
        finding = parse_finding(text) or {"clauses": [], "where": os.path.basename(crashed),
                                          "message": crash_summary(text)}
        index = len(run.findings)
        finding["input"] = os.path.basename(crashed)
        finding["reproducer"] = _keep_reproducer(crashed, pkg, run, index)
        if minimizer:
            minimize(minimizer, crashed, os.path.join(pkg, finding["reproducer"] + ".min"),
                     log_path)
            if os.path.exists(os.path.join(pkg, finding["reproducer"] + ".min")):
                finding["reproducer"] += ".min"
        finding["replay"] = "bazel run %s -- <package>/%s" % (label, finding["reproducer"])
        run.findings.append(finding)
        progress.show(run.stage, what, time.time() - start, 0, run.execs, len(run.findings))
        remaining = remaining[at + 1:]
    run.elapsed = time.time() - start
    run.status = "FAIL" if run.findings else "PASS"
    run.reason = "%d inputs replayed" % run.execs + run.divergence_text() + run.reading_text()
    progress.show(run.stage, what, run.elapsed, 0, run.execs, len(run.findings), final=True)
    return run


def replay_quietly(binary, corpus):
    """Runs the replay build over a corpus for its side effects (coverage
    profiles); findings there were already reported by the fuzz stage."""
    files = _inputs([corpus])
    while files:
        rc, text, _ = _replay(binary, files)
        if rc == 0:
            return
        m = CRASHING_INPUT.search(text)
        crashed = m.group(1).strip() if m else None
        if crashed not in files:
            return
        files = files[files.index(crashed) + 1:]


def minimize(binary, crash, out, log_path, seconds=MINIMIZE_SECONDS):
    """libFuzzer's crash minimiser; leaves `out` only when it produced one."""
    try:
        proc = subprocess.run([binary, "-minimize_crash=1", "-max_total_time=%d" % seconds,
                               "-exact_artifact_path=" + out, crash], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=seconds * 3)
        with open(log_path, "a") as log:
            log.write(proc.stdout.decode(errors="replace"))
    except (OSError, subprocess.SubprocessError):
        pass


def run_fuzz(what, binary, seeds, pkg, workdir, label, seconds, progress, log_path):
    """libFuzzer for `seconds` from the corpus; each crash is a finding, and
    fuzzing resumes after it while budget is left."""
    run = StageRun("fuzz", what, seconds)
    corpus = os.path.join(workdir, "fuzz-corpus", what)
    artifacts = os.path.join(workdir, "fuzz-artifacts", what)
    os.makedirs(corpus, exist_ok=True)
    os.makedirs(artifacts, exist_ok=True)
    start = time.time()
    while len(run.findings) < MAX_FINDINGS:
        left = int(seconds - (time.time() - start))
        if left <= 0:
            break
        cmd = [binary, "-max_total_time=%d" % left, "-print_final_stats=1", "-timeout=20",
               "-rss_limit_mb=4096", "-artifact_prefix=" + artifacts + "/", corpus] + [
                   s for s in seeds if os.path.isdir(s)]
        text = []
        base = run.execs
        with open(log_path, "a") as log, subprocess.Popen(
                cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT) as proc:
            for raw in proc.stdout:
                line = raw.decode(errors="replace")
                log.write(line)
                text.append(line)
                m = EXECS.match(line)
                if m:
                    run.execs = base + int(m.group(1))
                    progress.show("fuzz", what, time.time() - start, seconds, run.execs,
                                  len(run.findings))
            proc.wait()
        out = "".join(text)
        run.note_divergences(out)
        if proc.returncode == 0:
            break
        m = ARTIFACT.search(out)
        if not m or not os.path.exists(m.group(1)):
            run.status = "FAIL"
            run.reason = "libFuzzer stopped without an artifact: " + crash_summary(out)
            break
        finding = parse_finding(out) or {"clauses": [], "where": "libFuzzer",
                                         "message": crash_summary(out)}
        index = len(run.findings)
        crash = m.group(1)
        minimize(binary, crash, crash + ".min", log_path)
        finding["reproducer"] = _keep_reproducer(
            crash + ".min" if os.path.exists(crash + ".min") else crash, pkg, run, index)
        finding["replay"] = "bazel run %s -- <package>/%s" % (label, finding["reproducer"])
        run.findings.append(finding)
        os.remove(crash)
    run.elapsed = time.time() - start
    if run.status != "FAIL":
        run.status = "FAIL" if run.findings else "PASS"
        run.reason = ("%d execs in %.0f s" % (run.execs, run.elapsed) + run.divergence_text() +
                      run.reading_text())
    progress.show("fuzz", what, run.elapsed, seconds, run.execs, len(run.findings), final=True)
    return run


def reading_cases(run):
    """One passed test case per reading the harness stated: it judges that
    clause and carries the reading (verdicts.py reads "reading.<ID>")."""
    cases = []
    for cid in sorted(run.readings):
        for letter, detail in sorted(run.readings[cid].items()):
            case = V.TestCase("mi0:%s_%s" % (run.stage, run.what), "Stage_" + run.stage,
                              "%s/reading_%s_%s" % (run.what, cid, letter))
            case.properties["clauses"] = cid
            case.properties["reading." + cid] = "%s: %s" % (letter, detail)
            cases.append(case)
    return cases


def cases_of(run):
    """The test cases a non-gtest stage run contributes to the verdicts."""
    if run.status == "UNTESTED":
        return []
    cases = [finding_case(run, i, f) for i, f in enumerate(run.findings)]
    if run.status == "FAIL" and not run.findings:
        case = V.TestCase("mi0:%s_%s" % (run.stage, run.what), "Stage_" + run.stage, run.what)
        case.failures.append(run.reason)
        cases.append(case)
    return (cases or [clean_case(run)]) + reading_cases(run)


def kinds(runs):
    """[(stage, [runs])] in the order each stage first ran; runs are
    StageRun.to_json() dicts."""
    order, by_stage = [], {}
    for r in runs:
        if r["stage"] not in by_stage:
            order.append(r["stage"])
            by_stage[r["stage"]] = []
        by_stage[r["stage"]].append(r)
    return [(stage, by_stage[stage]) for stage in order]


def kind_status(group):
    """FAIL if a run failed, else UNTESTED if one did not run, else PASS."""
    statuses = {r["status"] for r in group}
    for status in ("FAIL", "UNTESTED"):
        if status in statuses:
            return status
    return "PASS"


def kind_counts(group):
    """"46 PASS, 2 FAIL"-style counts of a kind's run statuses."""
    counts = {}
    for r in group:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    return ", ".join("%d %s" % (counts[k], k) for k in sorted(counts))


def kind_detail(group):
    """What a kind's folded row says past its counts: the runs that did not
    pass when some did, the reason when none ran and all for one reason, else
    what its runs measured (the wrap's speed) or "" (each run's own detail is
    in its row)."""
    bad = [r["what"] for r in group if r["status"] != "PASS"]
    if bad and len(bad) < len(group):
        return "not PASS: " + ", ".join(bad)
    reasons = {r["reason"] for r in group}
    if len(reasons) == 1 and all(r["status"] == "UNTESTED" for r in group):
        return reasons.pop()
    measured = [r["measure"] for r in group if r.get("measure")]
    return "; ".join(measured)


def kind_line(stage, group):
    """One stage kind in a line: "suite 27 binaries PASS" for one run,
    "noncoherent 48 runs: 46 PASS, 2 FAIL (not PASS: a, b)" for more, naming
    the runs that did not pass."""
    if len(group) == 1:
        return "%s %s %s" % (stage, group[0]["what"], group[0]["status"])
    text = "%s %d runs: %s" % (stage, len(group), kind_counts(group))
    bad = [r["what"] for r in group if r["status"] != "PASS"]
    if bad and len(bad) < len(group):
        text += " (not PASS: %s)" % ", ".join(bad)
    return text


def kind_totals(group):
    """(elapsed s, budget s, execs, findings) over a kind's runs."""
    return (sum(r["elapsed_s"] for r in group), sum(r.get("budget_s") or 0 for r in group),
            sum(r["execs"] for r in group), sum(len(r["findings"]) for r in group))


def render_markdown(runs):
    """The stage table of report.md: one row per stage kind, then each
    kind's runs, then the findings."""
    if not runs:
        return ""
    grouped = kinds([r.to_json() for r in runs])
    lines = ["", "## Stages", "", "One row per stage kind; its runs are listed below.", "",
             "| stage | runs | status | elapsed | execs | findings | detail |",
             "|---|---|---|---|---|---|---|"]
    for stage, group in grouped:
        elapsed, budget, execs, found = kind_totals(group)
        lines.append("| %s | %d | %s | %.0f s%s | %d | %d | %s |" % (
            stage, len(group), kind_counts(group), elapsed,
            " / %d s" % budget if budget else "", execs, found,
            kind_detail(group).replace("|", "\\|")))
    for stage, group in grouped:
        lines += ["", "### %s: %d run%s" % (stage, len(group), "" if len(group) == 1 else "s"),
                  "", "| what | status | elapsed | execs | findings | detail |",
                  "|---|---|---|---|---|---|"]
        for r in group:
            budget = " / %d s" % r["budget_s"] if r.get("budget_s") else ""
            lines.append("| %s | %s | %.0f s%s | %d | %d | %s |" % (
                r["what"], r["status"], r["elapsed_s"], budget, r["execs"], len(r["findings"]),
                r["reason"].replace("|", "\\|")))
    if any(r.findings for r in runs):
        lines.append("")
    for r in runs:
        for i, f in enumerate(r.findings):
            lines.append("- **%s %s finding %d** (%s): %s at `%s`; reproducer `%s`; replay: "
                         "`%s`" % (r.stage, r.what, i, ",".join(f["clauses"]) or "no clause",
                                   f["message"], f["where"], f.get("reproducer", ""),
                                   f.get("replay", "")))
    return "\n".join(lines) + "\n"
