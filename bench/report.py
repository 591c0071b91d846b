#!/usr/bin/env python3
"""Runs the SPSQ benchmarks in rounds and prints one Markdown report.

The report has: the machine, one table of ratios (SPSQ against every anchor
and against the limits), the anchors' absolute numbers, the wire floor (the
yardstick of the certification's counter-wrap row), the performance targets
with a verdict each, and single-thread instruction counts per message
(callgrind, when valgrind is installed). Everything is measured, nothing is
asserted: the exit status only says whether the run worked. The harness's own
cost has its tools: `tools/fuzz bench` (exec/s per fuzzer) and
`tools/suite_time` (wall time of the conformance suite).

Usage: tools/bench [--quick] [--rounds N] [--min-time S] [--filter RE]
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
FLOOR_DIRECTIONS = ["input", "output"]


def log(msg):
    print("[bench %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def bazel(output_base, args, capture=True, check=True, timeout=None):
    cmd = ["bazel", "--output_base=" + output_base] + args
    res = subprocess.run(cmd, cwd=ROOT, text=True, stdout=subprocess.PIPE if capture else None,
                         stderr=subprocess.STDOUT if capture else None, timeout=timeout)
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

def run_round(binary, min_time, bench_filter):
    """One pass over every benchmark, in random order: {name: ns per message (median
    batch)} and {name: error}."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    cmd = [binary, "--benchmark_min_time=%g" % min_time, "--benchmark_out=" + out,
           "--benchmark_out_format=json", "--benchmark_enable_random_interleaving=true"]
    if bench_filter:
        cmd.append("--benchmark_filter=" + bench_filter)
    res = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if res.returncode != 0:
        raise RuntimeError("spsq_bench failed (exit %d): %s" % (res.returncode, res.stderr[-2000:]))
    with open(out) as f:
        data = json.load(f)
    os.unlink(out)
    ns, errors = {}, {}
    for b in data["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        name = b.get("run_name", b["name"]).replace("/real_time", "")
        if b.get("error_occurred"):
            errors[name] = b.get("error_message", "error")
        elif b.get("ns_per_msg_p50", 0) > 0:
            ns[name] = b["ns_per_msg_p50"]
    return ns, errors


class Rounds:
    """Per-round results. The two vCPUs of this VM move between host placements
    whose cache-line round trip differs several-fold, so a ratio is only
    meaningful between numbers taken close together: every ratio is the median
    over rounds of the ratio within one round."""

    def __init__(self):
        self.rounds = []
        self.errors = {}

    def add(self, ns, errors):
        self.rounds.append(ns)
        self.errors.update(errors)

    def ns(self, name):
        vals = [r[name] for r in self.rounds if name in r]
        return statistics.median(vals) if vals else None

    def time_ratio(self, a, b):
        """Median over rounds of time(a) / time(b)."""
        vals = [r[a] / r[b] for r in self.rounds if a in r and b in r and r[b] > 0]
        return statistics.median(vals) if vals else None

    def rate_ratio(self, a, b):
        """Median over rounds of throughput(a) / throughput(b)."""
        t = self.time_ratio(a, b)
        return None if not t else 1.0 / t

    def split(self, name, factor=2.0, at_least=3):
        """Splits the rounds in two by `name`'s time when its slowest round is more than
        `factor` times its fastest and each side has `at_least` rounds: (near, far)
        Rounds, or None for one regime (a lone stalled round is just an outlier)."""
        lo_hi = self.spread(name)
        if not lo_hi or lo_hi[1] <= factor * lo_hi[0]:
            return None
        cut = (lo_hi[0] * lo_hi[1]) ** 0.5
        near, far = Rounds(), Rounds()
        for r in self.rounds:
            if name in r:
                (near if r[name] <= cut else far).add(r, {})
        if len(near.rounds) < at_least or len(far.rounds) < at_least:
            return None
        return near, far

    def spread(self, name):
        vals = [r[name] for r in self.rounds if name in r]
        return (min(vals), max(vals)) if vals else None


def run_floor(binary):
    """The wire floor (testkit/wire_floor.h) of one round: {name: ns per message} per
    direction, thread CPU time of its fastest repetition."""
    res = subprocess.run([binary], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         timeout=60)
    if res.returncode != 0:
        raise RuntimeError("wire_floor failed (exit %d): %s" % (res.returncode, res.stderr[-2000:]))
    data = json.loads(res.stdout)
    return {"floor/wire/%s" % d: data["%s_ns_per_message" % d] for d in FLOOR_DIRECTIONS}


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


# --- report ----------------------------------------------------------------

def machine_facts(rounds, min_time):
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
        "runs: %d rounds, each every benchmark once for >= %gs in random order; a benchmark's "
        "number in a round is its median batch (streams: 64..4096 messages per batch, round "
        "trips: 32), so preemption stalls of this shared VM do not count" % (rounds, min_time),
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


def rate_of(res, name):
    t = res.ns(name)
    return None if not t else 1e9 / t


def bytes_of(res, name):
    r = rate_of(res, name)
    return None if r is None else r * int(name.rsplit("/", 1)[1])


def build_report(res, facts, ir_rows):
    out = ["# SPSQ benchmark report", ""]
    out += ["- " + f for f in facts]
    out += ["", "## Ratios", "",
            "Streaming rows: throughput ratio SPSQ / anchor (higher is better; 1.00 = as fast). "
            "Round-trip rows: time ratio SPSQ / anchor (lower is better). The limit is one "
            "`memcpy` per message for streams and one bounced cache line for round trips. "
            "Each ratio is the median over rounds of the ratio within a round; the SPSQ "
            "column is the median over rounds.", "",
            "| workload | MaxInflight | SPSQ | vs boost | vs moodycamel | vs ring | vs limit |",
            "|---|---|---|---|---|---|---|"]
    for direction, label in (("l3_to_l2", "stream L3->L2"), ("l2_to_l3", "stream L2->L3")):
        for n in STREAM_SIZES:
            for m in INFLIGHT:
                name = "stream/%s/spsq_m%d/%d" % (direction, m, n)
                cells = [fmt_ratio(res.rate_ratio(name, "stream/oneway/%s/%d" % (a, n)))
                         for a in ANCHORS]
                limit = res.rate_ratio(name, "limit/memcpy/%d" % n)
                shown = fmt_rate(rate_of(res, name)) if n < 4096 else "%s (%s)" % (
                    fmt_rate(rate_of(res, name)), fmt_gbs(bytes_of(res, name)))
                if name in res.errors:
                    shown = "failed: " + res.errors[name]
                out.append("| %s %s | %d | %s | %s | %s |" % (
                    label, size_name(n), m, shown, " | ".join(cells), fmt_ratio(limit)))
    for n in ROUND_TRIP_SIZES:
        for m in INFLIGHT:
            name = "roundtrip/spsq_m%d/%d" % (m, n)
            cells = [fmt_ratio(res.time_ratio(name, "roundtrip/%s/%d" % (a, n))) for a in ANCHORS]
            limit = res.time_ratio(name, "limit/cacheline")
            shown = "failed: " + res.errors[name] if name in res.errors else fmt_ns(res.ns(name))
            out.append("| round trip L3->L2->L3 %s | %d | %s | %s | %s |" % (
                size_name(n), m, shown, " | ".join(cells), fmt_ratio(limit)))

    out += ["", "## Anchors (medians over rounds)", "",
            "| anchor | " + " | ".join(size_name(n) for n in STREAM_SIZES) + " |",
            "|---|" + "---|" * len(STREAM_SIZES)]
    for a in ANCHORS:
        out.append("| %s stream | %s |" % (a, " | ".join(
            fmt_rate(rate_of(res, "stream/oneway/%s/%d" % (a, n))) for n in STREAM_SIZES)))
    out.append("| memcpy (limit) | %s |" % " | ".join(
        "%s (%s)" % (fmt_rate(rate_of(res, "limit/memcpy/%d" % n)),
                     fmt_gbs(bytes_of(res, "limit/memcpy/%d" % n)))
        for n in STREAM_SIZES))
    for a in ANCHORS:
        out.append("| %s round trip | %s |" % (a, " | ".join(
            fmt_ns(res.ns("roundtrip/%s/%d" % (a, n))) if n in ROUND_TRIP_SIZES else "-"
            for n in STREAM_SIZES)))
    out.append("| cache-line ping-pong (limit) | %s |" % fmt_ns(res.ns("limit/cacheline")))
    out += ["", "Wire floor (`wire_floor`): one zero-byte message's descriptor, seq, tail, "
            "validation and head on plain memory, both ends in one thread, no view; thread CPU "
            "time of its fastest repetition (the yardstick of the certification's counter-wrap "
            "row).", "", "| direction | ns per message (median over rounds) | spread |",
            "|---|---|---|"]
    for d in FLOOR_DIRECTIONS:
        lo_hi = res.spread("floor/wire/" + d)
        out.append("| %s | %s | %s |" % (d, fmt_ns(res.ns("floor/wire/" + d)),
                                         "%s..%s" % (fmt_ns(lo_hi[0]), fmt_ns(lo_hi[1]))
                                         if lo_hi else "n/a"))
    if res.errors:
        out += ["", "Benchmarks that reported an error (not timed):", ""]
        out += ["- `%s`: %s" % (k, v) for k, v in sorted(res.errors.items())]

    out += ["", "## Targets", ""]
    regimes = [("all rounds", res)]
    halves = res.split("limit/cacheline")
    if halves:
        for label, h in zip(("near", "far"), halves):
            regimes.append(("%s rounds (%d, cache line %s)" % (
                label, len(h.rounds), fmt_ns(h.ns("limit/cacheline"))), h))
        out += ["The cache-line round trip fell into two groups across rounds (the host moved "
                "the vCPUs); the targets are shown for all rounds and for each group.", ""]
    out += ["| target | variant | " + " | ".join(r[0] for r in regimes) + " |",
            "|---|---|" + "---|" * len(regimes)]

    def row(target, variant, ratio_fn, ok):
        cells = []
        for _, r in regimes:
            x = ratio_fn(r)
            cells.append("%s %s" % (fmt_ratio(x), verdict(x, ok)))
        out.append("| %s | %s | %s |" % (target, variant, " | ".join(cells)))

    for m in INFLIGHT:
        row("64 B round trip <= 2.0x cache-line ping-pong", "M=%d" % m,
            lambda r, m=m: r.time_ratio("roundtrip/spsq_m%d/64" % m, "limit/cacheline"),
            lambda x: x <= 2.0)
    for direction, label in (("l3_to_l2", "L3->L2"), ("l2_to_l3", "L2->L3")):
        for m in INFLIGHT:
            row("64 B streaming >= 0.5x boost spsc_queue", "%s M=%d" % (label, m),
                lambda r, d=direction, m=m: r.rate_ratio("stream/%s/spsq_m%d/64" % (d, m),
                                                         "stream/oneway/boost/64"),
                lambda x: x >= 0.5)
    for direction, label in (("l3_to_l2", "L3->L2"), ("l2_to_l3", "L2->L3")):
        for m in INFLIGHT:
            row("64 KiB streaming >= 0.8x memcpy bandwidth", "%s M=%d" % (label, m),
                lambda r, d=direction, m=m: r.rate_ratio("stream/%s/spsq_m%d/65536" % (d, m),
                                                         "limit/memcpy/65536"),
                lambda x: x >= 0.8)
    for a in ANCHORS:
        row("(context, not a target) %s at 64 KiB vs memcpy" % a, "-",
            lambda r, a=a: r.rate_ratio("stream/oneway/%s/65536" % a, "limit/memcpy/65536"),
            lambda x: x >= 0.8)

    if ir_rows:
        out += ["", "## Instructions per message (callgrind, one thread sends then receives, 64 B)",
                "", "Stable across runs and machine load; counts both ends' work per message. "
                "`:poll` rows: one poll of an empty receiver.", "",
                "| channel | Ir / message |", "|---|---|"]
        out += ["| %s | %s |" % (c, "n/a" if v is None else "%.0f" % v) for c, v in ir_rows]

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
                   help="2 short rounds: for trying the script")
    p.add_argument("--rounds", type=int, default=15,
                   help="passes over all benchmarks (default 15)")
    p.add_argument("--min-time", type=float, default=0.1,
                   help="seconds per benchmark per round (default 0.1)")
    p.add_argument("--filter", default="", help="benchmark regex (default: all)")
    p.add_argument("--skip-callgrind", action="store_true")
    p.add_argument("--out", default="", help="also write the report to this file")
    args = p.parse_args()
    if args.quick:
        args.rounds, args.min_time = 2, 0.03
    if args.rounds < 1 or args.min_time <= 0:
        p.error("--rounds and --min-time must be positive")

    cache = os.path.expanduser("~/.cache")
    ob = os.environ.get("SPSQ_BENCH_OUTPUT_BASE", os.path.join(cache, "bazel_ob_bench"))

    facts = machine_facts(args.rounds, args.min_time)
    log("build (opt)")
    bazel(ob, ["build"] + OPT_FLAGS + ["//bench:spsq_bench", "//bench:hotpath",
                                        "//bench:wire_floor"])
    bin_dir = bazel_bin(ob, OPT_FLAGS)
    res = Rounds()
    for i in range(args.rounds):
        log("round %d/%d" % (i + 1, args.rounds))
        ns, errors = run_round(os.path.join(bin_dir, "bench", "spsq_bench"), args.min_time,
                               args.filter)
        ns.update(run_floor(os.path.join(bin_dir, "bench", "wire_floor")))
        res.add(ns, errors)
    spread = res.spread("limit/cacheline")
    if spread:
        facts.append("cache-line round trip across rounds: %.0f..%.0f ns, median %.0f ns (the "
                     "host moves the two vCPUs and stalls them; hence per-round ratios)"
                     % (spread[0], spread[1], res.ns("limit/cacheline")))

    # The report is rewritten after every phase, so a late failure loses nothing.
    ir_rows = []

    def emit(final=False):
        report = build_report(res, facts, ir_rows)
        if args.out:
            with open(args.out, "w") as f:
                f.write(report)
        if final:
            sys.stdout.write(report)

    emit()
    if not args.skip_callgrind:
        if shutil.which("valgrind"):
            for ch in ("spsq_in", "spsq_in_m4", "spsq_out", "ring", "boost", "moodycamel",
                       "spsq_in:poll", "spsq_out:poll", "ring:poll"):
                log("callgrind " + ch)
                ir_rows.append((ch, instructions_per_message(
                    os.path.join(bin_dir, "bench", "hotpath"), ch, 64)))
        else:
            ir_rows.append(("(valgrind not installed)", None))
    emit(final=True)
    return 1 if res.errors else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except RuntimeError as e:
        print("bench: " + str(e), file=sys.stderr)
        sys.exit(2)
