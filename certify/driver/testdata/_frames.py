"""Frame helpers of the misbehaving testees below (testee/PROTOCOL.md)."""
import json
import struct
import sys


def send(obj):
    body = json.dumps(obj).encode()
    sys.stdout.buffer.write(struct.pack("<I", len(body)) + body)
    sys.stdout.buffer.flush()


def receive():
    head = sys.stdin.buffer.read(4)
    if len(head) < 4:
        sys.exit(0)
    return json.loads(sys.stdin.buffer.read(struct.unpack("<I", head)[0]))


def hello(version=1):
    send({"hello": "spsq-testee", "version": version, "name": "misbehaving",
          "language": "python", "surface": "cpp"})
