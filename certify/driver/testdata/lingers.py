#!/usr/bin/env python3
"""Answers create and quit, then does not exit (a slow teardown)."""
import signal
import sys
import _frames

_frames.hello()
while True:
    r = _frames.receive()
    _frames.send({"id": r["id"], "outcome": "ok"})
    if r["op"] == "quit":
        sys.stderr.write("lingers.py: still tearing down\n")
        sys.stderr.flush()
        signal.pause()  # stdin closed or not: only the harness's kill ends it
