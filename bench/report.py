#!/usr/bin/env python3
"""Runs the SPSQ benchmarks with repetitions and prints one Markdown report.

The report has: the machine, one table of ratios (SPSQ against every anchor
and against the limits), the anchors' absolute numbers, the issue's targets
with a verdict each, single-thread instruction counts per message (callgrind,
when valgrind is installed), and the cost of the harness itself (exec/s of
every fuzzer, wall time of the conformance suite). Everything is measured,
nothing is asserted: the exit status only says whether the run worked.

Usage: tools/bench [--quick] [--repetitions N] [--min-time S] [--filter RE]
                   [--fuzz-seconds S] [--skip-fuzz] [--skip-conformance]
                   [--skip-callgrind] [--out FILE]
"""

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPT_FLAGS = ["-c", "opt", "--copt=-DNDEBUG"]
STREAM_SIZES = [8, 64, 4096, 65536]
ROUND_TRIP_SIZES = [64, 4096]
ANCHORS = ["boost", "moodycamel", "ring"]
INFLIGHT = [1, 4]


def log(msg):
    print("[bench] " + msg, file=sys.stderr, flush=True)


def bazel(output_base, args, capture=True, check=True):
    cmd = ["bazel", "--output_base=" + output_base] + args
    res = subprocess.run(cmd, cwd=ROOT, text=True, stdout=subprocess.PIPE if capture else None,
                         stderr=subprocess.STDOUT if capture else None)
    if check and res.returncode != 0:
        tail = (res.stdout or "")[-3000:]
        raise RuntimeError("%s failed (exit %d)\n%s" % (" ".join(cmd), res.returncode, tail))
    return res


def bazel_bin(output_base, flags):
    out = bazel(output_base, ["info"] + flags + ["bazel-bin"]).stdout.strip().splitlines()
    return out[-1].strip()


def size_name(n):
    if n >= 1024 and n % 1024 == 0:
        return "%d KiB" % (n // 1024)
    return "%d B" % n


# --- benchmark run ---------------------------------------------------------

def run_benchmarks(binary, reps, min_time, bench_filter):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    cmd = [binary, "--benchmark_repetitions=%d" % reps, "--benchmark_min_time=%g" % min_time,
           "--benchmark_out=" + out, "--benchmark_out_format=json",
           "--benchmark_enable_random_interleaving=true"]
    if bench_filter:
        cmd.append("--benchmark_filter=" + bench_filter)
    log("running " + " ".join(cmd[1:]))
    res = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if res.returncode != 0:
        raise RuntimeError("spsq_bench failed (exit %d): %s" % (res.returncode, res.stderr[-2000:]))
    with open(out) as f:
        data = json.load(f)
    os.unlink(out)
    return data


def medians(data):
    """name -> {p50_ns, p10_ns, mean_items_per_second}: medians over repetitions of
    each repetition's median (p10) batch time per message and of its plain mean
    rate; plus name -> error message for benchmarks that reported one."""
    runs, errors = {}, {}
    for b in data["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        name = b.get("run_name", b["name"]).replace("/real_time", "")
        if b.get("error_occurred"):
            errors[name] = b.get("error_message", "error")
            continue
        runs.setdefault(name, []).append({
            "p50_ns": b.get("ns_per_msg_p50", 0.0),
            "p10_ns": b.get("ns_per_msg_p10", 0.0),
            "mean_items_per_second": b.get("items_per_second", 0.0),
        })
    med = {}
    for name, rs in runs.items():
        med[name] = {k: statistics.median(r[k] for r in rs) for k in rs[0]}
        med[name]["reps"] = len(rs)
    return med, errors


# --- callgrind instructions per message -----------------------------------

def instructions_per_message(hotpath, channel, nbytes):
    def ir(messages):
        res = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                              hotpath, channel, str(nbytes), str(messages)],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        m = re.search(r"refs:\s+([\d,]+)", res.stdout)
        if res.returncode != 0 or not m:
            raise RuntimeError("callgrind %s %d: %s" % (channel, nbytes, res.stdout[-500:]))
        return int(m.group(1).replace(",", ""))
    # The difference cancels start-up and one-time setup.
    return (ir(3000) - ir(1000)) / 2000.0


# --- harness cost ----------------------------------------------------------

def fuzz_targets(output_base):
    res = bazel(output_base, ["query", "attr(tags, fuzz_regression, tests(//fuzz/...))"],
                check=False)
    names = []
    for line in (res.stdout or "").splitlines():
        m = re.match(r"^//fuzz:(\S+)_regression$", line.strip())
        if m:
            names.append(m.group(1))
    return sorted(names)


def fuzzer_options(name):
    """[libfuzzer] keys of fuzz/<name>.options and corpora/<name>/<name>.dict, as flags:
    the settings the fuzzer runs with elsewhere, so its exec/s is comparable."""
    flags, section = [], None
    path = os.path.join(ROOT, "fuzz", name + ".options")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.split("#")[0].strip()
                if line.startswith("["):
                    section = line.strip("[]").strip()
                elif "=" in line and section == "libfuzzer":
                    k, v = (x.strip() for x in line.split("=", 1))
                    flags.append("-%s=%s" % (k, v))
    d = os.path.join(ROOT, "corpora", name, name + ".dict")
    if os.path.exists(d):
        flags.append("-dict=" + d)
    return flags


def repo_corpora(name):
    out = []
    for sub in ("seeds", "corpus", "regressions"):
        d = os.path.join(ROOT, "corpora", name, sub)
        if os.path.isdir(d) and os.listdir(d):
            out.append(d)
    return out


def run_fuzzers(output_base, seconds):
    rows = []
    targets = fuzz_targets(output_base)
    if not targets:
        return [("(none)", None, "no spsq_fuzz_target found under //fuzz")]
    bin_dir = None
    for name in targets:
        log("fuzzer %s: build" % name)
        res = bazel(output_base, ["build", "--config=libfuzzer", "//fuzz:" + name], check=False)
        if res.returncode != 0:
            err = [l for l in res.stdout.splitlines() if "error" in l.lower()]
            rows.append((name, None, "does not build yet: " + (err[0][:120] if err else "see bazel")))
            continue
        if bin_dir is None:
            bin_dir = bazel_bin(output_base, ["--config=libfuzzer"])
        # New inputs go to a scratch dir; the repo corpora are read-only inputs.
        scratch = tempfile.mkdtemp(prefix="spsq_fuzz_%s_" % name)
        log("fuzzer %s: %ds" % (name, seconds))
        cmd = [os.path.join(bin_dir, "fuzz", name), "-max_total_time=%d" % seconds,
               "-print_final_stats=1", "-artifact_prefix=" + scratch + "/"]
        cmd += fuzzer_options(name) + [scratch] + repo_corpora(name)
        res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        shutil.rmtree(scratch, ignore_errors=True)
        m = re.search(r"stat::average_exec_per_sec:\s*(\d+)", res.stdout)
        runs = re.search(r"stat::number_of_executed_units:\s*(\d+)", res.stdout)
        note = "%s runs in %ds" % (runs.group(1) if runs else "?", seconds)
        if res.returncode != 0:
            note += "; exited %d (a finding: see the fuzzer)" % res.returncode
        rows.append((name, int(m.group(1)) if m else None, note))
    return rows


def time_conformance(output_base):
    log("conformance: build")
    build = bazel(output_base, ["build", "//conformance/..."], check=False)
    if build.returncode != 0:
        return None, "does not build yet"
    log("conformance: test")
    start = time.monotonic()
    res = bazel(output_base, ["test", "--nocache_test_results", "//conformance/..."], check=False)
    wall = time.monotonic() - start
    m = re.search(r"Executed (\d+) out of (\d+) tests?: (.*)", res.stdout)
    if res.returncode == 4 or "No test targets were found" in res.stdout:
        return None, "no test targets yet"
    note = m.group(0) if m else "exit %d" % res.returncode
    if res.returncode != 0:
        note += " (suite not green)"
    return wall, note


# --- report ----------------------------------------------------------------

def machine_facts(reps, min_time):
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    gcc = subprocess.run(["gcc", "-dumpfullversion"], stdout=subprocess.PIPE, text=True).stdout.strip()
    return [
        "date: %s" % datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu: %s, %d online CPUs; kernel %s" % (cpu, os.cpu_count() or 0, platform.release()),
        "load average at start: %.2f %.2f %.2f" % os.getloadavg(),
        "build: g++ %s, bazel -c opt --copt=-DNDEBUG" % gcc,
        "runs: %d repetitions, min time %gs each, random interleaving; every number is the "
        "median over repetitions of the median batch (streams: 64..4096 messages per batch, "
        "round trips: 32), so preemption stalls of this shared VM do not count" % (reps, min_time),
        "queues: depth 64, 1 MiB arena per direction; anchors hold min(64, 1 MiB / size) messages",
    ]


def fmt_rate(r):
    if r is None:
        return "n/a"
    if r >= 1e6:
        return "%.2f M/s" % (r / 1e6)
    return "%.0f k/s" % (r / 1e3)


def fmt_gbs(b):
    return "n/a" if b is None else "%.2f GB/s" % (b / 1e9)


def fmt_ns(t):
    return "n/a" if t is None else ("%.0f ns" % t if t >= 100 else "%.1f ns" % t)


def fmt_ratio(x):
    return "n/a" if x is None else "%.2f" % x


def get(med, name, key):
    """key: "rate" (messages/s), "bytes" (bytes/s, name ends in the size) or "ns"
    (per message or round trip), all from the median batch; or a raw field."""
    m = med.get(name)
    if m is None or m.get("p50_ns", 0) <= 0:
        return None
    if key == "ns":
        return m["p50_ns"]
    if key == "rate":
        return 1e9 / m["p50_ns"]
    if key == "bytes":
        return 1e9 / m["p50_ns"] * int(name.rsplit("/", 1)[1])
    return m[key]


def div(a, b):
    return None if a is None or b in (None, 0) else a / b


def build_report(med, errors, facts, ir_rows, fuzz_rows, conformance):
    out = ["# SPSQ benchmark report", ""]
    out += ["- " + f for f in facts]
    out += ["", "## Ratios", "",
            "Streaming rows: throughput ratio SPSQ / anchor (higher is better; 1.00 = as fast). "
            "Round-trip rows: time ratio SPSQ / anchor (lower is better). The limit is one "
            "`memcpy` per message for streams and one bounced cache line for round trips.", "",
            "| workload | MaxInflight | SPSQ | vs boost | vs moodycamel | vs ring | vs limit |",
            "|---|---|---|---|---|---|---|"]
    for direction, label in (("l3_to_l2", "stream L3->L2"), ("l2_to_l3", "stream L2->L3")):
        for n in STREAM_SIZES:
            for m in INFLIGHT:
                name = "stream/%s/spsq_m%d/%d" % (direction, m, n)
                rate = get(med, name, "rate")
                cells = [fmt_ratio(div(rate, get(med, "stream/oneway/%s/%d" % (a, n),
                                                  "rate"))) for a in ANCHORS]
                limit = div(rate, get(med, "limit/memcpy/%d" % n, "rate"))
                shown = fmt_rate(rate) if n < 4096 else "%s (%s)" % (
                    fmt_rate(rate), fmt_gbs(get(med, name, "bytes")))
                if name in errors:
                    shown = "failed: " + errors[name]
                out.append("| %s %s | %d | %s | %s | %s |" % (
                    label, size_name(n), m, shown, " | ".join(cells), fmt_ratio(limit)))
    for n in ROUND_TRIP_SIZES:
        for m in INFLIGHT:
            name = "roundtrip/spsq_m%d/%d" % (m, n)
            t = get(med, name, "ns")
            cells = [fmt_ratio(div(t, get(med, "roundtrip/%s/%d" % (a, n), "ns")))
                     for a in ANCHORS]
            limit = div(t, get(med, "limit/cacheline", "ns"))
            shown = "failed: " + errors[name] if name in errors else fmt_ns(t)
            out.append("| round trip L3->L2->L3 %s | %d | %s | %s | %s |" % (
                size_name(n), m, shown, " | ".join(cells), fmt_ratio(limit)))

    out += ["", "## Anchors (absolute medians)", "",
            "| anchor | " + " | ".join(size_name(n) for n in STREAM_SIZES) + " |",
            "|---|" + "---|" * len(STREAM_SIZES)]
    for a in ANCHORS:
        out.append("| %s stream | %s |" % (a, " | ".join(
            fmt_rate(get(med, "stream/oneway/%s/%d" % (a, n), "rate"))
            for n in STREAM_SIZES)))
    out.append("| memcpy (limit) | %s |" % " | ".join(
        "%s (%s)" % (fmt_rate(get(med, "limit/memcpy/%d" % n, "rate")),
                     fmt_gbs(get(med, "limit/memcpy/%d" % n, "bytes")))
        for n in STREAM_SIZES))
    for a in ANCHORS:
        out.append("| %s round trip | %s |" % (a, " | ".join(
            fmt_ns(get(med, "roundtrip/%s/%d" % (a, n), "ns")) if n in ROUND_TRIP_SIZES
            else "-" for n in STREAM_SIZES)))
    out.append("| cache-line ping-pong (limit) | %s |" % fmt_ns(get(med, "limit/cacheline", "ns")))
    if errors:
        out += ["", "Benchmarks that reported an error (not timed):", ""]
        out += ["- `%s`: %s" % (k, v) for k, v in sorted(errors.items())]

    out += ["", "## Targets (issue 8)", "", "| target | variant | measured | verdict |",
            "|---|---|---|---|"]
    cl = get(med, "limit/cacheline", "ns")
    for m in INFLIGHT:
        r = div(get(med, "roundtrip/spsq_m%d/64" % m, "ns"), cl)
        out.append("| 64 B round trip <= 2.0x cache-line ping-pong | M=%d | %s | %s |" % (
            m, fmt_ratio(r), verdict(r, lambda x: x <= 2.0)))
    boost64 = get(med, "stream/oneway/boost/64", "rate")
    mem64k = get(med, "limit/memcpy/65536", "bytes")
    for direction, label in (("l3_to_l2", "L3->L2"), ("l2_to_l3", "L2->L3")):
        for m in INFLIGHT:
            r = div(get(med, "stream/%s/spsq_m%d/64" % (direction, m), "rate"), boost64)
            out.append("| 64 B streaming >= 0.5x boost spsc_queue | %s M=%d | %s | %s |" % (
                label, m, fmt_ratio(r), verdict(r, lambda x: x >= 0.5)))
    for direction, label in (("l3_to_l2", "L3->L2"), ("l2_to_l3", "L2->L3")):
        for m in INFLIGHT:
            r = div(get(med, "stream/%s/spsq_m%d/65536" % (direction, m), "bytes"), mem64k)
            out.append("| 64 KiB streaming >= 0.8x memcpy bandwidth | %s M=%d | %s | %s |" % (
                label, m, fmt_ratio(r), verdict(r, lambda x: x >= 0.8)))

    if ir_rows:
        out += ["", "## Instructions per message (callgrind, one thread sends then receives, 64 B)",
                "", "Stable across runs and machine load; counts both ends' work per message.", "",
                "| channel | Ir / message |", "|---|---|"]
        out += ["| %s | %s |" % (c, "n/a" if v is None else "%.0f" % v) for c, v in ir_rows]

    out += ["", "## Cost of the harness", "", "| item | measured | note |", "|---|---|---|"]
    for name, execs, note in fuzz_rows:
        out.append("| fuzzer `%s` (libFuzzer, ASan+UBSan) | %s | %s |" % (
            name, "n/a" if execs is None else "%d exec/s" % execs, note))
    wall, note = conformance
    out.append("| `bazel test //conformance/...` wall time | %s | %s |" % (
        "n/a" if wall is None else "%.1f s" % wall, note))
    out.append("")
    out.append("- load average at end: %.2f %.2f %.2f" % os.getloadavg())
    return "\n".join(out) + "\n"


def verdict(x, ok):
    if x is None:
        return "not measured"
    return "met" if ok(x) else "MISSED"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true",
                   help="1 repetition, short runs, 2 s fuzzers: for trying the script")
    p.add_argument("--repetitions", type=int, default=5)
    p.add_argument("--min-time", type=float, default=0.5)
    p.add_argument("--filter", default="", help="benchmark regex (default: all)")
    p.add_argument("--fuzz-seconds", type=int, default=5)
    p.add_argument("--skip-fuzz", action="store_true")
    p.add_argument("--skip-conformance", action="store_true")
    p.add_argument("--skip-callgrind", action="store_true")
    p.add_argument("--out", default="", help="also write the report to this file")
    args = p.parse_args()
    if args.quick:
        args.repetitions, args.min_time, args.fuzz_seconds = 1, 0.05, 2
    if args.repetitions < 1 or args.min_time <= 0 or args.fuzz_seconds < 1:
        p.error("--repetitions, --min-time and --fuzz-seconds must be positive")

    cache = os.path.expanduser("~/.cache")
    ob = os.environ.get("SPSQ_BENCH_OUTPUT_BASE", os.path.join(cache, "bazel_ob_bench"))
    fuzz_ob = os.environ.get("SPSQ_BENCH_FUZZ_OUTPUT_BASE", os.path.join(cache, "bazel_ob_bench_fuzz"))

    facts = machine_facts(args.repetitions, args.min_time)
    log("build (opt)")
    bazel(ob, ["build"] + OPT_FLAGS + ["//bench:spsq_bench", "//bench:hotpath"])
    bin_dir = bazel_bin(ob, OPT_FLAGS)
    med, errors = medians(run_benchmarks(os.path.join(bin_dir, "bench", "spsq_bench"),
                                         args.repetitions, args.min_time, args.filter))

    ir_rows = []
    if not args.skip_callgrind:
        if shutil.which("valgrind"):
            for ch in ("spsq_in", "spsq_in_m4", "spsq_out", "ring", "boost", "moodycamel"):
                log("callgrind " + ch)
                ir_rows.append((ch, instructions_per_message(
                    os.path.join(bin_dir, "bench", "hotpath"), ch, 64)))
        else:
            ir_rows.append(("(valgrind not installed)", None))

    fuzz_rows = [("(skipped)", None, "--skip-fuzz")] if args.skip_fuzz else run_fuzzers(
        fuzz_ob, args.fuzz_seconds)
    conformance = (None, "skipped") if args.skip_conformance else time_conformance(ob)

    report = build_report(med, errors, facts, ir_rows, fuzz_rows, conformance)
    sys.stdout.write(report)
    if args.out:
        with open(args.out, "w") as f:
            f.write(report)
    return 1 if errors else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except RuntimeError as e:
        print("bench: " + str(e), file=sys.stderr)
        sys.exit(2)
