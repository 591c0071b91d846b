#!/usr/bin/env python3
"""Answers the first request with the wrong id."""
import sys
import _frames

_frames.hello()
request = _frames.receive()
sys.stderr.write("out_of_order.py: answering id %d\n" % (request["id"] + 1))
_frames.send({"id": request["id"] + 1, "outcome": "ok"})
sys.stdin.buffer.read()
