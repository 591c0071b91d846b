#!/usr/bin/env python3
"""Says hello, reads the first request, then never answers."""
import sys
import _frames

_frames.hello()
_frames.receive()
sys.stderr.write("hangs.py: not answering\n")
sys.stderr.flush()
sys.stdin.buffer.read()  # blocks until the harness kills it
