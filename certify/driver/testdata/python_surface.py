#!/usr/bin/env python3
"""A well-behaved testee on the python surface that cannot tell error kinds
and offers no try_enqueue: answers create, error (kinds null), try_enqueue
(unsupported), live and quit."""
import sys
import _frames

_frames.send({"hello": "spsq-testee", "version": 1, "name": "python surface",
              "language": "python", "surface": "python"})
while True:
    r = _frames.receive()
    answer = {"id": r["id"], "outcome": "ok"}
    if r["op"] == "error":
        answer["error"] = {"kind": None, "op": None, "session_instance_id_bits": None,
                           "transaction_id": None, "text": "ValueError: timeout must be > 0"}
    elif r["op"] == "try_enqueue":
        answer = {"id": r["id"], "outcome": "unsupported", "text": "no try_enqueue"}
    elif r["op"] == "live":
        answer["live"] = True
    _frames.send(answer)
    if r["op"] == "quit":
        sys.exit(0)
