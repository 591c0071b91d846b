#!/usr/bin/env python3
"""Says hello, reads the first request, then exits with status 3."""
import sys
import _frames

_frames.hello()
_frames.receive()
sys.stderr.write("exits.py: giving up on purpose\n")
sys.exit(3)
