"""Serves a Python L3 queue to the conformance harness (testee/PROTOCOL.md).

The harness starts this process and speaks the testee protocol, version 1,
over stdin/stdout. The queue under test reaches shared memory only through
the Region proxy below (each method one callback the harness serves from its
own view) and reads time through time.monotonic_ns, which serve() replaces
with the harness's virtual clock. Stdlib only.

    import spsq_testee

    class MyQueue(spsq_testee.Adapter):
        def create(self, region, scalars, project_region):
            return my_l3.Queue(region, scalars)

    spsq_testee.serve(MyQueue(), name="my L3 1.0")

A queue that keeps nothing outside its object may serve one queue after
another in one process: serve(..., reuse=True) declares it in the hello, and
each "end" drops the queue and closes its region (a later access through that
region fails as a view failure would).

Adapter's other methods are the hooks where an implementation differs from
the spec's Python names (timeouts, handles, errors).
"""

import json
import os
import struct
import sys
import time

VERSION = 1
MAX_FRAME = 16 << 20
# One callback carries at most this many payload bytes (hex doubles them).
CHUNK = 4 << 20
INT32 = (-(1 << 31), (1 << 31) - 1)
UINT64 = (0, (1 << 64) - 1)
# Error kinds and the session fields a poison exception may carry.
_ERROR_FIELDS = ("kind", "op", "session_instance_id_bits", "transaction_id")


class RegionError(RuntimeError):
    """A view access the harness refused (the view failed)."""


class HarnessLost(BaseException):
    """The harness broke the protocol or went away. A BaseException, so a
    queue that catches Exception around its region calls cannot swallow it."""


def _int(value, what, lo, hi):
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise HarnessLost("%s: want an integer in [%d, %d], got %r" % (what, lo, hi, value))
    return value


def _unhex(text, what):
    if not isinstance(text, str) or len(text) % 2 or text.strip("0123456789abcdef"):
        raise HarnessLost("%s: want lowercase hex, got %.60r" % (what, text))
    return bytes.fromhex(text)


class Channel:
    """Length-prefixed JSON frames over two binary streams."""

    def __init__(self, rfile, wfile):
        self.rfile, self.wfile = rfile, wfile

    def _read_exact(self, n):
        data = b""
        while len(data) < n:
            chunk = self.rfile.read(n - len(data))
            if not chunk:
                return data
            data += chunk
        return data

    def read(self, eof_ok=False):
        """The next frame as a dict; None at a clean end of input if eof_ok."""
        head = self._read_exact(4)
        if not head and eof_ok:
            return None
        if len(head) < 4:
            raise HarnessLost("the harness closed the pipe" if not head else
                              "truncated frame: %d of 4 length bytes" % len(head))
        (n,) = struct.unpack("<I", head)
        if not 1 <= n <= MAX_FRAME:
            raise HarnessLost("frame length %d outside 1..%d" % (n, MAX_FRAME))
        body = self._read_exact(n)
        if len(body) < n:
            raise HarnessLost("truncated frame: %d of %d bytes" % (len(body), n))
        try:
            obj = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            raise HarnessLost("frame is not UTF-8 JSON: %s" % e) from None
        if not isinstance(obj, dict):
            raise HarnessLost("frame is a JSON %s, not an object" % type(obj).__name__)
        return obj

    def write(self, obj):
        body = json.dumps(obj, separators=(",", ":")).encode("utf-8")
        if len(body) > MAX_FRAME:
            raise HarnessLost("outgoing frame of %d bytes exceeds %d" % (len(body), MAX_FRAME))
        try:
            self.wfile.write(struct.pack("<I", len(body)) + body)
            self.wfile.flush()
        except OSError as e:
            raise HarnessLost("cannot write to the harness: %s" % e) from None

    def call(self, name, **fields):
        """One callback and its reply (checked: the reply names the call)."""
        self.write(dict(fields, call=name))
        reply = self.read()
        if reply.get("reply") != name:
            raise HarnessLost("callback %r answered by %.200s" % (name, json.dumps(reply)))
        if name != "now" and reply.get("ok") is not True:
            if reply.get("ok") is False:
                raise RegionError("%s: %s" % (name, reply.get("error", "view failed")))
            raise HarnessLost("reply to %r has no boolean ok" % name)
        return reply


class Signal:
    """region.counter(offset): one int32 slot of the counter part."""

    def __init__(self, channel, offset):
        self._ch, self.offset = channel, offset

    def test(self, cmp_value, cmp):
        r = self._ch.call("counter_test", offset=self.offset, cmp_value=_arg32(cmp_value),
                          cmp=_cmp(cmp))
        return _bool(r, "matched"), _int(r.get("observed"), "counter_test observed", *INT32)

    def notify(self, value, op=0):
        if op not in (0, 1) or isinstance(op, bool):
            raise RegionError("counter notify: unknown op %r (0 Set, 1 Add)" % (op,))
        self._ch.call("counter_notify", offset=self.offset, value=_arg32(value), notify_op=op)

    def wait(self, cmp_value, cmp, timeout_ns):
        r = self._ch.call("counter_wait", offset=self.offset, cmp_value=_arg32(cmp_value),
                          cmp=_cmp(cmp), timeout_ns=_arg64(timeout_ns, "timeout_ns"))
        return _bool(r, "held"), _int(r.get("observed"), "counter_wait observed", *INT32)


def _bool(reply, key):
    if not isinstance(reply.get(key), bool):
        raise HarnessLost("reply to %r has no boolean %r" % (reply.get("reply"), key))
    return reply[key]


# Arguments the queue under test passes: refused as a view failure, as a
# RegionView refuses them, so the queue sees what a bad access costs.
def _arg64(v, what):
    if isinstance(v, bool) or not isinstance(v, int) or not UINT64[0] <= v <= UINT64[1]:
        raise RegionError("%s %r is not a uint64" % (what, v))
    return v


def _arg32(v):
    if isinstance(v, bool) or not isinstance(v, int) or not INT32[0] <= v <= INT32[1]:
        raise RegionError("counter value %r is not an int32" % (v,))
    return v


def _cmp(c):
    if isinstance(c, bool) or c not in range(6):
        raise RegionError("unknown comparison %r (EQ 0 .. LE 5)" % (c,))
    return int(c)


class _Lease:
    """The channel as one queue's region reaches it: closed when its queue ends."""

    def __init__(self, channel):
        self._ch, self.closed = channel, False

    def call(self, name, **fields):
        if self.closed:
            raise RegionError("%s: the harness ended this queue" % name)
        return self._ch.call(name, **fields)


class Region:
    """The region duck type a Python L3 reaches shared memory through."""

    def __init__(self, channel):
        self._ch = _Lease(channel)

    def close(self):
        """Every later access fails: the queue it served has ended."""
        self._ch.closed = True

    def payload_read(self, offset, nbytes):
        offset, nbytes = _arg64(offset, "offset"), _arg64(nbytes, "nbytes")
        out = bytearray()
        while True:  # one callback per CHUNK: a frame holds 16 MiB
            n = min(nbytes - len(out), CHUNK)
            r = self._ch.call("payload_read", offset=offset + len(out), nbytes=n)
            data = _unhex(r.get("data"), "payload_read data")
            if len(data) != n:
                raise HarnessLost("payload_read of %d bytes answered %d" % (n, len(data)))
            out += data
            if len(out) == nbytes:
                return bytes(out)

    def payload_write(self, offset, data):
        offset, data = _arg64(offset, "offset"), bytes(data)
        for at in range(0, max(len(data), 1), CHUNK):
            self._ch.call("payload_write", offset=offset + at, data=data[at:at + CHUNK].hex())

    def counter(self, offset):
        return Signal(self._ch, _arg64(offset, "counter offset"))


def install_clock(channel):
    """time.monotonic_ns / time.monotonic read the harness's virtual clock."""
    def monotonic_ns():
        return _int(channel.call("now").get("now_ns"), "now_ns", *UINT64)
    time.monotonic_ns = monotonic_ns
    time.monotonic = lambda: monotonic_ns() / 1e9


def _as_int(v):
    """An int, an IntEnum or an extension's enum as an int; else None."""
    if v is None or isinstance(v, (bool, str, bytes, float)):
        return None
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


class Unsupported(Exception):
    """An op the queue does not offer: answered `unsupported`, never guessed."""


def _member(obj, *names):
    for name in names:
        parts, target = name.split("."), obj
        for p in parts:
            target = getattr(target, p, None)
        if target is not None:
            return target
    raise Unsupported("the queue has no %s" % " or ".join(names))


# SpscQueueLayout's contract names, each with the other names a Python
# layout may give it (the spsq module's predate the contract's).
LAYOUT_FIELDS = [
    ("depth",), ("input_arena_bytes",), ("output_arena_bytes",),
    ("input_desc_offset", "input_desc_ring_offset"),
    ("output_desc_offset", "output_desc_ring_offset"),
    ("input_arena_offset",), ("output_arena_offset",), ("payload_bytes",),
    ("input_desc_tail_offset",), ("input_desc_head_offset",),
    ("output_desc_tail_offset",), ("output_desc_head_offset",),
    ("initiator_abort_offset", "initiator_abort_flag_offset"),
    ("peer_abort_offset", "peer_abort_flag_offset"),
    ("counter_bytes",),
]


class Adapter:
    """Maps the protocol's ops onto a queue with the spec's Python names.
    Override what your queue does differently."""

    def create(self, region, scalars, project_region):
        """Binds a queue over `region` from the ten scalars; returns it."""
        raise NotImplementedError("Adapter.create: bind your queue over region and scalars")

    def timeout(self, timeout_ns):
        """The Python timeout for a protocol timeout: seconds."""
        return timeout_ns / 1e9

    def buffer(self, capacity):
        return bytearray(capacity)

    def payload(self, data):
        return data

    def outcome(self, exc):
        """The outcome an exception of a queue call reports: ValueError a
        usage error (rejected), a TimeoutError an expired blocking call,
        anything else a terminal failure."""
        if isinstance(exc, ValueError):
            return "rejected"
        if isinstance(exc, TimeoutError):
            return "timed_out"
        return "failed"

    def timed_out_return(self, op, value):
        """Whether a blocking call's return value reports its timeout
        (default: False from enqueue / request_stop, None from peek /
        dequeue_into)."""
        return value is (None if op in ("peek", "dequeue_into") else False)

    def error_fields(self, exc):
        """(kind, op) and the session fields a poison exception carries."""
        out = {}
        for key in _ERROR_FIELDS:
            v = getattr(exc, key, None)
            if v is None and key == "op":
                v = getattr(exc, "operation", None)
            out[key] = _as_int(v)
        return out

    def forge(self, real, fields):
        """A message like `real` whose public fields are `fields`."""
        # Imported here: a testee starts once per queue (per test, with
        # reuse), and these cost.
        import copy
        import dataclasses
        if dataclasses.is_dataclass(real):
            return dataclasses.replace(real, **fields)
        if hasattr(real, "_replace"):
            return real._replace(**fields)
        if hasattr(real, "__replace__"):
            return real.__replace__(**fields)
        m = copy.copy(real)
        for k, v in fields.items():
            object.__setattr__(m, k, v)
        return m

    def new_message(self, fields):
        """A handle with these public fields when the queue handed out none
        (a release with nothing peeked): the queue's message type, built by
        hand."""
        raise Unsupported("no message of this queue to build a handle from")

    def live(self, queue):
        v = _member(queue, "live")
        return bool(v() if callable(v) else v)

    def error(self, queue):
        """The queue's terminal error as protocol fields, or None to use the
        last `failed` exception."""
        e = getattr(queue, "error", None)
        e = e() if callable(e) else e
        if e is None:
            return None
        fields = self.error_fields(e)
        fields["text"] = str(getattr(e, "message", "") or e)
        return fields


MESSAGE_FIELDS = ("seq", "opcode", "payload_offset", "payload_nbytes")


class Server:
    """The request loop: one queue (or, with reuse, one after another),
    served until quit or end of input."""

    def __init__(self, adapter, channel, reuse=False):
        self.adapter, self.ch, self.reuse = adapter, channel, reuse
        self.queue, self.region, self.last_failure, self.last_id = None, None, None, None
        self.messages = {}  # token -> the queue's own message object
        self.next_token = 0

    def run(self):
        while True:
            req = self.ch.read(eof_ok=True)
            if req is None or self.handle(req):
                return

    def handle(self, req):
        rid, op = req.get("id"), req.get("op")
        if "reply" in req or not isinstance(op, str):
            raise HarnessLost("expected a request, got %.200s" % json.dumps(req))
        _int(rid, "request id", *UINT64)
        if self.last_id is not None and rid <= self.last_id:
            raise HarnessLost("request id %d after %d" % (rid, self.last_id))
        self.last_id = rid
        answer = self.answer(op, req)
        answer["id"] = rid
        self.ch.write(answer)
        return op == "quit"

    def answer(self, op, req):
        a = self.adapter
        try:
            if op == "quit":
                return {"outcome": "ok"}
            if op == "end" and self.reuse:
                self.end()
                return {"outcome": "ok"}
            if op == "create":
                scalars = [_int(s, "scalar", *UINT64) for s in req.get("scalars", [])]
                if len(scalars) != 10:
                    raise HarnessLost("create: want 10 scalars, got %d" % len(scalars))
                self.end()
                self.region = Region(self.ch)
                self.queue = a.create(self.region, scalars, bool(req.get("region")))
                return {"outcome": "ok"}
            if self.queue is None:
                if op == "live":
                    return {"outcome": "ok", "live": False}
                return {"outcome": "failed", "text": "no queue: create failed or never ran"}
            result = getattr(self, "op_" + op, None)
            if result is None:
                return {"outcome": "unsupported", "text": "unknown op %r" % op}
            return result(req)
        except Unsupported as e:
            return {"outcome": "unsupported", "text": str(e)}
        except (HarnessLost, KeyboardInterrupt, SystemExit):
            raise
        except Exception as e:
            text = "%s: %s" % (type(e).__name__, e)
            outcome = a.outcome(e)
            if outcome != "failed":
                return {"outcome": outcome, "text": text}
            fields = a.error_fields(e)
            self.last_failure = dict(fields, text=text)
            return {"outcome": "failed", "text": text,
                    "poison": {"kind": fields["kind"], "op": fields["op"]}}

    def end(self):
        """Forgets the queue and all it handed out; its region is closed."""
        if self.region is not None:
            self.region.close()
        self.queue, self.region, self.last_failure = None, None, None
        self.messages = {}

    # --- ops -----------------------------------------------------------
    def _data(self, req):
        if req.get("data") is None:
            return None
        return self.adapter.payload(_unhex(req["data"], "data"))

    def _nbytes(self, req, key="nbytes"):
        return _int(req.get(key), key, *UINT64)

    def _timeout(self, req):
        return self.adapter.timeout(_int(req.get("timeout_ns"), "timeout_ns", *UINT64))

    def _progress(self, value):
        return {"outcome": "no_progress" if value is False or value is None else "ok"}

    def _blocking(self, op, value, extra=None):
        if self.adapter.timed_out_return(op, value):
            return {"outcome": "timed_out", "text": "%s returned %r" % (op, value)}
        return dict(extra(value) if extra else {}, outcome="ok")

    def op_try_enqueue(self, req):
        f = _member(self.queue, "input.try_enqueue")
        return self._progress(f(self._data(req), self._nbytes(req)))

    def op_enqueue(self, req):
        f = _member(self.queue, "input.enqueue")
        return self._blocking("enqueue", f(self._data(req), nbytes=self._nbytes(req),
                                           timeout=self._timeout(req)))

    def op_try_request_stop(self, req):
        return self._progress(_member(self.queue, "try_request_stop",
                                      "input.try_request_stop")())

    def op_request_stop(self, req):
        f = _member(self.queue, "request_stop", "input.request_stop")
        return self._blocking("request_stop", f(timeout=self._timeout(req)))

    def _message_out(self, m):
        token = self.next_token
        self.next_token += 1
        self.messages[token] = m
        while len(self.messages) > 4096:  # forged handles name recent tokens
            del self.messages[next(iter(self.messages))]
        out = {k: int(getattr(m, k)) for k in MESSAGE_FIELDS}
        out["token"] = token
        return out

    def _message_in(self, req):
        m = req.get("message")
        if not isinstance(m, dict):
            raise HarnessLost("request has no message object")
        fields = {k: _int(m.get(k), "message " + k, *UINT64) for k in MESSAGE_FIELDS}
        real = self.messages.get(m.get("token"))
        if real is None:
            if not self.messages:
                return self.adapter.new_message(fields)
            real = next(reversed(self.messages.values()))
        if all(int(getattr(real, k)) == v for k, v in fields.items()):
            return real
        return self.adapter.forge(real, fields)

    def _read(self, m, buf, n):
        if buf is None:
            return ""
        if not isinstance(n, int) or isinstance(n, bool):
            n = int(m.payload_nbytes)
        return bytes(buf[:n]).hex()

    def _buffer(self, req):
        cap = _int(req.get("capacity"), "capacity", *UINT64)
        return self.adapter.buffer(cap) if req.get("buffer") else None

    def op_try_peek(self, req):
        m = _member(self.queue, "output.try_peek")()
        return {"outcome": "no_progress"} if m is None else {"outcome": "ok",
                                                             "message": self._message_out(m)}

    def op_peek(self, req):
        m = _member(self.queue, "output.peek")(timeout=self._timeout(req))
        return self._blocking("peek", m, lambda m: {"message": self._message_out(m)})

    def op_read_into(self, req):
        m, buf = self._message_in(req), self._buffer(req)
        n = _member(self.queue, "output.read_into")(m, buf)
        return {"outcome": "ok", "data": self._read(m, buf, n)}

    def op_release(self, req):
        _member(self.queue, "output.release")(self._message_in(req))
        return {"outcome": "ok"}

    def _dequeued(self, m, buf):
        return {"message": self._message_out(m), "data": self._read(m, buf, None)}

    def op_try_dequeue_into(self, req):
        buf = self._buffer(req)
        m = _member(self.queue, "output.try_dequeue_into")(buf)
        return {"outcome": "no_progress"} if m is None else dict(self._dequeued(m, buf),
                                                                 outcome="ok")

    def op_dequeue_into(self, req):
        buf = self._buffer(req)
        m = _member(self.queue, "output.dequeue_into")(buf, timeout=self._timeout(req))
        return self._blocking("dequeue_into", m, lambda m: self._dequeued(m, buf))

    def op_free(self, req):
        _member(self.queue, "free")()
        return {"outcome": "ok"}

    def op_live(self, req):
        return {"outcome": "ok", "live": self.adapter.live(self.queue)}

    def op_error(self, req):
        e = self.adapter.error(self.queue) or self.last_failure
        if e is None:  # nothing failed: NONE while live, else unknown
            kind = 0 if self.adapter.live(self.queue) else None
            e = {"kind": kind, "op": None, "session_instance_id_bits": None,
                 "transaction_id": None, "text": ""}
        return {"outcome": "ok", "error": {k: e[k] for k in _ERROR_FIELDS},
                "text": e.get("text", "")}

    def op_layout(self, req):
        layout, out = _member(self.queue, "layout"), {}
        for names in LAYOUT_FIELDS:
            for n in names:
                v = layout.get(n) if isinstance(layout, dict) else getattr(layout, n, None)
                if v is not None:
                    out[names[0]] = int(v)
                    break
            else:
                raise Unsupported("queue.layout has no %s" % " or ".join(names))
        return {"outcome": "ok", "layout": out}

    def op_chip_task_arg_scalars(self, req):
        return {"outcome": "ok",
                "scalars": [int(v) for v in _member(self.queue, "chip_task_arg_scalars")()]}

    def op_region_released(self, req):
        r = _member(self.queue, "region.released")
        return {"outcome": "ok", "released": bool(r() if callable(r) else r)}


def serve(adapter, name, language="python", surface="python", argv=None, reuse=False):
    """Speaks the protocol on stdin/stdout until quit; never returns on error.
    Stray prints of the queue go to stderr: stdout carries frames only.
    reuse=True: one queue after another (the hello declares "reuse")."""
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    ch = Channel(sys.stdin.buffer, out)
    try:
        hello = {"hello": "spsq-testee", "version": VERSION, "name": name,
                 "language": language, "surface": surface}
        if reuse:
            hello["reuse"] = True
        ch.write(hello)
        install_clock(ch)
        Server(adapter, ch, reuse).run()
    except HarnessLost as e:
        print("spsq_testee: %s" % e, file=sys.stderr)
        sys.stderr.flush()
        os._exit(2)
    sys.exit(0)
