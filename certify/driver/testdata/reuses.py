#!/usr/bin/env python3
"""Serves one queue after another. Its "error" text names its pid and how
many queues it has created. On "end" it makes one payload_read callback: the
harness must refuse it (the queue's region may be gone), or "end" fails.

Modes (first argument): "reuse" declares reuse, "single" does not,
"refuse_end" declares it but answers "end" unsupported, "bad_hello" declares
it as a string."""
import os
import sys
import _frames

mode = sys.argv[1] if len(sys.argv) > 1 else "reuse"
hello = {"hello": "spsq-testee", "version": 1, "name": "reuses", "language": "python",
         "surface": "cpp"}
if mode != "single":
    hello["reuse"] = "yes" if mode == "bad_hello" else True
_frames.send(hello)
queues = 0
while True:
    r = _frames.receive()
    answer = {"id": r["id"], "outcome": "ok"}
    if r["op"] == "create":
        queues += 1
    elif r["op"] == "live":
        answer["live"] = True
    elif r["op"] == "error":
        answer["error"] = {"kind": None, "op": None, "session_instance_id_bits": None,
                           "transaction_id": None,
                           "text": "pid %d queue %d" % (os.getpid(), queues)}
    elif r["op"] == "end":
        if mode == "refuse_end":
            answer["outcome"] = "unsupported"
        else:
            _frames.send({"call": "payload_read", "offset": 0, "nbytes": 1})
            reply = _frames.receive()
            if reply.get("ok") is not False or "no queue is bound" not in reply.get("error", ""):
                sys.stderr.write("reuses.py: a callback after the queue ended was served\n")
                answer["outcome"] = "failed"
    _frames.send(answer)
    if r["op"] == "quit":
        sys.exit(0)
