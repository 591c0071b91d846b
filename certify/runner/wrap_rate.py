"""The counter wrap's speed for its report row: nanoseconds per message on
each ring and the ratio to the wire floor (bench/wire_floor.h).

The wrap test records, per ring, the CPU time of the thread that ran it
(cpu_ns.input, cpu_ns.output) and the messages it sent each way
(messages_per_direction); and the ns per message of its median chunk of
chunk_messages messages (chunk_median_ns.<ring>, over chunks.<ring> chunks).
The rate reported, and compared, is the median chunk's when there is one, the
whole run's average beside it: on this shared machine a burst of another
tenant's work lands in a few chunks, not in the median, as the floor takes
the fastest of several runs for the same reason. The floor is the same wire
work with no endpoint, no view and no harness, run right after the wrap on
the same machine, also in thread CPU time: a ratio within one run is what this
shared machine can measure, its absolute numbers are not. Measured, never
judged: no verdict depends on it.
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


def chunk_medians(cases):
    """({ring: ns per message of the median chunk}, chunks, chunk_messages),
    or None when the test recorded no chunk for some ring (a short run) or
    recorded them malformed."""
    for case in cases:
        p = case.properties
        if "chunk_messages" not in p:
            continue
        try:
            medians = {r: float(p["chunk_median_ns." + r]) for r in RINGS}
            chunks = min(int(p["chunks." + r]) for r in RINGS)
            size = int(p["chunk_messages"])
        except (KeyError, ValueError):
            return None
        if chunks < 1 or size < 1 or any(v <= 0 for v in medians.values()):
            return None
        return medians, chunks, size
    return None


def describe(cases, floor_path, log_path):
    """(one line for the report, {numbers} for report.json)."""
    ns, messages = per_message(cases)
    if ns is None:
        return "speed not measured: " + messages, {}
    floor, why = run_floor(floor_path, log_path) if floor_path else (None, "no wire floor given")
    whole = ns
    chunked = chunk_medians(cases)
    if chunked:
        ns = chunked[0]
    numbers = {"messages_per_direction": messages,
               "ns_per_message": {r: round(ns[r], 2) for r in RINGS}}
    parts = []
    for r in RINGS:
        text = "%s ring %.1f ns/message" % (r, ns[r])
        if floor:
            ratio = ns[r] / floor[r] if floor[r] > 0 else float("inf")
            text += " (%.2fx the wire floor's %.1f)" % (ratio, floor[r])
        parts.append(text)
    if floor:
        numbers["floor_ns_per_message"] = {r: round(floor[r], 2) for r in RINGS}
        numbers["ratio_to_floor"] = {r: round(ns[r] / floor[r], 2) if floor[r] > 0 else None
                                     for r in RINGS}
    line = "%d messages each way: %s; thread CPU time" % (messages, ", ".join(parts))
    if chunked:
        numbers["ns_per_message_whole_run"] = {r: round(whole[r], 2) for r in RINGS}
        numbers["chunks"] = chunked[1]
        numbers["chunk_messages"] = chunked[2]
        line += ", the median of %d chunks of %d messages (the whole run: %s)" % (
            chunked[1], chunked[2],
            ", ".join("%s %.1f" % (r, whole[r]) for r in RINGS))
    if not floor:
        line += "; no ratio: " + why
    return line, numbers
