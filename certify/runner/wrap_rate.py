"""The counter wrap's speed for its report row: nanoseconds per message on
each ring and the ratio to the wire floor (testkit/wire_floor.h).

The wrap test records, per ring, the CPU time of the thread that ran it
(cpu_ns.input, cpu_ns.output) and the messages it sent each way
(messages_per_direction); the ns per message of its median chunk of
chunk_messages messages (chunk_median_ns.<ring>, over chunks.<ring> chunks);
and the median of the wire floor samples the same thread ran between its
chunks (floor_median_ns.<ring>, over floor_samples.<ring> samples of
floor_messages messages, or floor_error.<ring>), and the median ratio of
each chunk's last floor_messages messages to the floor sample right after
them (chunk_floor_ratio_median.<ring>). The rate reported is the median
chunk's when there is one, the whole run's average beside it: on this shared
machine a burst of another tenant's work lands in a few chunks, not in the
median. The ratio is the median of the paired ratios when there are some: a
CPU slowed by other tenants slows two short spans next to each other alike,
where a whole chunk averages bursts that a short sample may miss. The
floor binary, run alone right after the wrap (the fastest of several short
runs), is given beside it, and is the yardstick when the wrap sampled none.
All in thread CPU time: a ratio within one run is what this shared machine
can measure, its absolute numbers are not. Measured, never judged: no verdict
depends on it.
"""

import json
import os

import bounded_run

RINGS = ("input", "output")
FLOOR_TIME_S = 60
FLOOR_MEMORY_MIB = 256


def run_floor(path, log_path):
    """({ring: ns per message}, "") or (None, why it was not measured)."""
    os.makedirs(os.path.dirname(log_path), exist_ok=True)
    offset = os.path.getsize(log_path) if os.path.exists(log_path) else 0
    out = bounded_run.run([path], dict(os.environ), log_path, FLOOR_TIME_S,
                          memory_mib=FLOOR_MEMORY_MIB, what="the wire floor")
    with open(log_path, errors="replace") as f:
        f.seek(offset)
        text = f.read()
    if out.bounded or out.rc != 0:
        return None, "the wire floor %s" % (out.reason or "exited with status %s" % out.rc)
    for line in reversed(text.splitlines()):
        try:
            data = json.loads(line)
            return {r: float(data["%s_ns_per_message" % r]) for r in RINGS}, ""
        except (ValueError, KeyError, TypeError):
            continue
    return None, "the wire floor printed no result"


def per_message(cases):
    """({ring: ns per message, whole run}, messages) from the wrap test's
    properties, or (None, why not)."""
    for case in cases:
        p = case.properties
        if "messages_per_direction" not in p:
            continue
        try:
            messages = int(p["messages_per_direction"])
            ns = {r: int(p["cpu_ns." + r]) / float(messages) for r in RINGS}
        except (KeyError, ValueError, ZeroDivisionError):
            return None, "the wrap test recorded no CPU time per ring"
        return ns, messages
    return None, "the wrap test recorded no message count (it did not run to its end)"


def ring_medians(p, median_key, count_key, size_key):
    """({ring: p[median_key.ring]}, the fewest p[count_key.ring],
    p[size_key]) from one test case's properties, or None when one is missing,
    malformed, or not positive."""
    try:
        medians = {r: float(p[median_key + "." + r]) for r in RINGS}
        count = min(int(p[count_key + "." + r]) for r in RINGS)
        size = int(p[size_key])
    except (KeyError, ValueError):
        return None
    if count < 1 or size < 1 or any(v <= 0 for v in medians.values()):
        return None
    return medians, count, size


def chunk_medians(cases):
    """({ring: ns per message of the median chunk}, chunks, chunk_messages),
    or None when the test recorded no chunk for some ring (a short run) or
    recorded them malformed."""
    for case in cases:
        if "chunk_messages" in case.properties:
            return ring_medians(case.properties, "chunk_median_ns", "chunks", "chunk_messages")
    return None


def thread_floors(cases):
    """(({ring: ns per message of the median floor sample in the ring's
    thread}, samples, floor_messages, {ring: median paired ratio} or None), ""),
    or (None, why not): "" when the test recorded none at all (a short run,
    or a wrap from before the samples)."""
    for case in cases:
        p = case.properties
        errors = ["%s ring: %s" % (r, p["floor_error." + r]) for r in RINGS
                  if "floor_error." + r in p]
        if errors:
            return None, "; ".join(errors)
        if "floor_messages" not in p or not any("floor_median_ns." + r in p for r in RINGS):
            continue
        floors = ring_medians(p, "floor_median_ns", "floor_samples", "floor_messages")
        if floors is None:
            return None, "the wrap recorded its floor samples malformed"
        try:
            ratios = {r: float(p["chunk_floor_ratio_median." + r]) for r in RINGS}
        except (KeyError, ValueError):
            ratios = None
        if ratios and any(v <= 0 for v in ratios.values()):
            ratios = None
        return floors + (ratios,), ""
    return None, ""


def describe(cases, floor_path, log_path):
    """(one line for the report, {numbers} for report.json)."""
    ns, messages = per_message(cases)
    if ns is None:
        return "speed not measured: " + messages, {}
    alone, why = run_floor(floor_path, log_path) if floor_path else (None, "no wire floor given")
    in_thread, why_not_in_thread = thread_floors(cases)
    floor = in_thread[0] if in_thread else alone
    whole = ns
    chunked = chunk_medians(cases)
    if chunked:
        ns = chunked[0]
    numbers = {"messages_per_direction": messages,
               "ns_per_message": {r: round(ns[r], 2) for r in RINGS}}
    where = " in its thread" if in_thread else ""
    paired = in_thread[3] if in_thread else None
    ratios = paired
    if not ratios and floor:
        ratios = {r: ns[r] / floor[r] if floor[r] > 0 else None for r in RINGS}
    parts = []
    for r in RINGS:
        text = "%s ring %.1f ns/message" % (r, ns[r])
        if floor:
            shown = "%.2fx" % ratios[r] if ratios[r] is not None else "no ratio to"
            text += " (%s the wire floor's %.1f%s)" % (shown, floor[r], where)
        parts.append(text)
    if floor:
        numbers["floor_ns_per_message"] = {r: round(floor[r], 2) for r in RINGS}
        numbers["ratio_to_floor"] = {r: round(ratios[r], 2) if ratios[r] is not None else None
                                     for r in RINGS}
    line = "%d messages each way: %s; thread CPU time" % (messages, ", ".join(parts))
    if chunked:
        numbers["ns_per_message_whole_run"] = {r: round(whole[r], 2) for r in RINGS}
        numbers["chunks"] = chunked[1]
        numbers["chunk_messages"] = chunked[2]
        line += ", the median of %d chunks of %d messages (the whole run: %s)" % (
            chunked[1], chunked[2],
            ", ".join("%s %.1f" % (r, whole[r]) for r in RINGS))
    if in_thread:
        numbers["floor_samples"] = in_thread[1]
        numbers["floor_messages"] = in_thread[2]
        line += "; the floor is the median of %d samples of %d messages beside the chunks" % (
            in_thread[1], in_thread[2])
        if paired:
            line += (", the ratio the median of each chunk's last %d messages against the "
                     "sample after them" % in_thread[2])
        if alone:
            numbers["floor_alone_ns_per_message"] = {r: round(alone[r], 2) for r in RINGS}
            line += ", run alone after the wrap: %s" % ", ".join(
                "%s %.1f" % (r, alone[r]) for r in RINGS)
        else:
            line += "; not run alone: " + why
    elif why_not_in_thread:
        line += "; no floor in the rings' threads (%s)" % why_not_in_thread
    if not floor:
        line += "; no ratio: " + why
    return line, numbers
