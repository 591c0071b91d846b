#!/usr/bin/env python3
"""Says hello in protocol version 2."""
import sys
import _frames

_frames.hello(version=2)
sys.stdin.buffer.read()
