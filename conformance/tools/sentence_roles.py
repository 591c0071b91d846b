"""Which role and API surface a catalogue sentence states, read from its words.

The gate compares a clause's `role` and `surface` with what its sentence says,
so a clause cannot be narrowed silently (judged on fewer endpoints than the
sentence binds). The rules are ordered; the first that matches decides. A
clause whose catalogue entry differs from the derived one must be listed in
the catalogue's "narrowings" table with the reason.
"""

import re

# (pattern, role, surface): the subject the sentence speaks of. None leaves
# that field to the catalogue (a Python sentence may bind the L3 queue or the
# runtime; the Python certification judges both).
RULES = (
    # The signal table names the writer; both ends obey it (one writes, one reads).
    (r"writer=", "both", "wire"),
    (r"\bPython\b|\bqueue = orch\.|l2_args = TaskArgs\(\)|buffer_or_none|bytearray",
     None, "python"),
    (r"^On L3\b", "L3", "l3-api"),
    (r"RegionInstanceView payload writes", "L2", "l2-view"),
    (r"TaskArgs|Worker\.run|create_worker_chip_(queue|region)|queue\.region\b|queue\.free\(\)"
     r"|RegionInstance lifetime|device memory|Region Template coordinator|chip worker",
     "runtime", "runtime"),
    (r"try_enqueue|try_dequeue|dequeue_into|request_stop\(timeout\)|\btry_peek\(\) and\b"
     r"|repeated try_peek\(\)|Releasing the wrong handle",
     "L3", "l3-api"),
    (r"SpscQueueEndpoint<|MaxInflight|\bpeek\(timeout_ns|reserve\(|release\(handle\)"
     r"|queue\.input\(\)|queue\.error\(\)|C\+\+ try_\*|\bdecoder\b|#include|scalars\["
     r"|RegionInstanceView|reservation|input window|STOP is acquired|STOP may be acquired",
     "L2", "cpp-l2"),
)


def derive(text):
    """(role, surface) the sentence states. surface is None when the sentence
    names no API (any surface of that role may carry it). A sentence that
    names one side only binds that side; one that names neither or both binds
    both endpoints."""
    for pattern, role, surface in RULES:
        if re.search(pattern, text, re.M):
            return role, surface
    l2 = re.search(r"\bL2\b", text) is not None
    l3 = re.search(r"\bL3\b", text) is not None
    if l2 != l3:
        return ("L2" if l2 else "L3"), None
    return "both", None
