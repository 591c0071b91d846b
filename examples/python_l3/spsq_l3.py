"""L3 (host / orchestrator) endpoint of the SPSQ L3-L2 single-producer single-consumer
message queue (wire ABI 1.0), written from ``l3-l2-message-queue.md`` and ``wire-contract.md``.

Standard library only.  The queue touches shared memory exclusively through a *region*
object of this duck type (it never maps memory itself)::

    region.payload_read(offset, nbytes) -> bytes      # offset within the payload part
    region.payload_write(offset, data) -> None
    c = region.counter(offset)                         # offset within the counter part
    c.test(cmp_value, cmp) -> (matched, observed)
    c.notify(value, op=0) -> None                      # op 0 = Set, 1 = Add
    c.wait(cmp_value, cmp, timeout_ns) -> (held, observed)

Time is read only through ``time.monotonic_ns()``, looked up at call time.

Public API (the spec's Python API)::

    q = Queue(region, scalars)                  # scalars: the ten binding scalars
    q = Queue.create(region, depth=4, input_arena_bytes=..., output_arena_bytes=...,
                     transaction_id=1)          # convenience: builds the scalars
    q.input.try_enqueue(buf, nbytes=None) -> bool
    q.input.enqueue(buf, nbytes=None, timeout=1.0) -> bool     (False on timeout)
    q.output.try_peek() -> OutputMessage | None
    q.output.peek(timeout) -> OutputMessage | None              (None on timeout)
    q.output.read_into(message, buffer) -> int                  (bytes copied)
    q.output.release(message) -> None
    q.output.try_dequeue_into(buffer) -> OutputMessage | None   (released message)
    q.output.dequeue_into(buffer, timeout) -> OutputMessage | None
    q.request_stop(timeout) -> bool / q.try_request_stop() -> bool
    q.free(); q.layout; q.chip_task_arg_scalars(); q.live; q.error

Errors:
  * ``ValueError`` -- usage error (bad timeout, bad buffer, message larger than the arena,
    input after STOP, a non-message passed as a handle, use after free()).  The queue stays
    live.
  * ``SpsqError`` -- carries ``kind`` (ErrorKind), ``op`` (Op), ``message``,
    ``session_instance_id_bits``, ``transaction_id`` and ``terminal``.
      - ``terminal=True``: the queue is poisoned (local infrastructure failure; the local
        initiator abort flag was Set to 1) or the peer aborted (``SpsqRemoteAbort``, kind
        REMOTE_ABORTED, op TIMEOUT; the local flag is *not* written).  Every later normal
        operation raises the same error; free() stays valid.
      - ``terminal=False``: a region access failed before any shared mutation began (for
        example reading a counter or a descriptor); nothing changed and the queue stays live.
  * ``SpsqBindingError(SpsqError, ValueError)`` -- construction refused the binding
    (kind BAD_BINDING, op INIT).

Ordinary no-progress (ring full, arena full, no output, timeout without a peer abort flag)
is never an exception: try_* return False / None, blocking calls return False / None once
their timeout expired.
"""

import enum
import math
import struct
import time

__all__ = [
    "MAGIC", "ABI_MAJOR", "ABI_MINOR", "MAGIC_VERSION", "BINDING_SCALAR_COUNT",
    "DESCRIPTOR_BYTES", "ARENA_ALIGNMENT", "DESCRIPTOR_RING_ALIGNMENT", "COUNTER_STRIDE",
    "COUNTER_BYTES", "MAX_DEPTH", "INPUT_DESC_TAIL_OFFSET", "INPUT_DESC_HEAD_OFFSET",
    "OUTPUT_DESC_TAIL_OFFSET", "OUTPUT_DESC_HEAD_OFFSET", "INITIATOR_ABORT_OFFSET",
    "PEER_ABORT_OFFSET", "Opcode", "ErrorKind", "Op", "Cmp", "NotifyOp", "Layout",
    "Binding", "QueueErrorInfo", "SpsqError", "SpsqRemoteAbort", "SpsqBindingError",
    "OutputMessage", "Queue", "compute_layout", "encode_binding", "decode_binding",
    "encode_descriptor", "decode_descriptor", "counter_low32", "reconstruct_counter",
]

# ---------------------------------------------------------------------------------------
# Constants (wire contract)
MAGIC = 0x53505351
ABI_MAJOR = 1
ABI_MINOR = 0
MAGIC_VERSION = (MAGIC << 32) | (ABI_MAJOR << 16) | ABI_MINOR  # 0x5350535100010000
BINDING_SCALAR_COUNT = 10
DESCRIPTOR_BYTES = 32
DESCRIPTOR_RING_ALIGNMENT = 8
ARENA_ALIGNMENT = 64
COUNTER_STRIDE = 64
COUNTER_BYTES = 384
MAX_DEPTH = 1 << 30

INPUT_DESC_TAIL_OFFSET = 0      # writer L3
INPUT_DESC_HEAD_OFFSET = 64     # writer L2
OUTPUT_DESC_TAIL_OFFSET = 128   # writer L2
OUTPUT_DESC_HEAD_OFFSET = 192   # writer L3
INITIATOR_ABORT_OFFSET = 256    # writer L3
PEER_ABORT_OFFSET = 320         # writer L2

_U64 = (1 << 64) - 1
_U32 = (1 << 32) - 1
_MAX_ERROR_MESSAGE = 255  # 256-byte bounded message including the terminator
_MAX_WAIT_NS = (1 << 63) - 1


class Opcode(enum.IntEnum):
    INVALID = 0
    DATA = 1
    STOP = 2
    ERROR = 3


class ErrorKind(enum.IntEnum):
    NONE = 0
    BAD_ARGUMENT = 1
    BAD_BINDING = 2
    INVALID_DESCRIPTOR = 3
    OWNERSHIP = 4
    REMOTE_ABORTED = 5
    ENDPOINT_ERROR = 6


class Op(enum.IntEnum):
    NONE = 0
    INIT = 1
    TIMEOUT = 2
    INPUT_TRY_PEEK = 3
    INPUT_RELEASE = 4
    OUTPUT_TRY_RESERVE = 5
    OUTPUT_PUBLISH = 6


# How the L3 operations map onto the contract's (L2-named) op enum: by role.
# L3 consumes the output direction (peek / release roles) and produces the input
# direction (reserve / publish roles).  See NOTES.md.
OP_L3_OUTPUT_PEEK = Op.INPUT_TRY_PEEK       # output.try_peek / peek / read_into
OP_L3_OUTPUT_RELEASE = Op.INPUT_RELEASE     # output.release
OP_L3_INPUT_RESERVE = Op.OUTPUT_TRY_RESERVE  # room check of enqueue / request_stop
OP_L3_INPUT_PUBLISH = Op.OUTPUT_PUBLISH     # writes + tail publish of enqueue / STOP


class Cmp(enum.IntEnum):
    EQ = 0
    NE = 1
    GT = 2
    GE = 3
    LT = 4
    LE = 5


class NotifyOp(enum.IntEnum):
    SET = 0
    ADD = 1


# ---------------------------------------------------------------------------------------
# Pure helpers

def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _to_i32(value):
    """int32(uint32(value))"""
    v = value & _U32
    return v - (1 << 32) if v >= (1 << 31) else v


def counter_low32(value):
    """Signed low 32 bits of a 64-bit monotonic count, as stored in a counter slot."""
    return _to_i32(value)


def reconstruct_counter(local, observed, depth):
    """Reconstruct a 64-bit logical count from an observed int32 counter value.

    Returns the new local value, or None when the unobserved progress is impossible
    (``delta = int32(uint32(observed) - uint32(local))`` outside ``0..depth``).
    """
    delta = _to_i32((observed & _U32) - (local & _U32))
    if 0 <= delta <= depth:
        return local + delta
    return None


def _align_up(value, alignment):
    return (value + alignment - 1) // alignment * alignment


class Layout:
    """Mirrored offsets (SpscQueueLayout).  Offsets are relative to the payload base
    (rings, arenas, payload_bytes) or to the counter base (signal offsets)."""

    __slots__ = ("depth", "input_arena_bytes", "output_arena_bytes", "input_desc_offset",
                 "output_desc_offset", "input_arena_offset", "output_arena_offset",
                 "payload_bytes", "input_desc_tail_offset", "input_desc_head_offset",
                 "output_desc_tail_offset", "output_desc_head_offset",
                 "initiator_abort_offset", "peer_abort_offset", "counter_bytes")

    def __init__(self, **kw):
        for name in self.__slots__:
            object.__setattr__(self, name, kw[name])

    def __setattr__(self, name, value):
        raise AttributeError("Layout is immutable")

    def as_dict(self):
        return {name: getattr(self, name) for name in self.__slots__}

    def __eq__(self, other):
        return isinstance(other, Layout) and self.as_dict() == other.as_dict()

    def __hash__(self):
        return hash(tuple(self.as_dict().items()))

    def __repr__(self):
        return "Layout(%s)" % ", ".join("%s=%d" % kv for kv in self.as_dict().items())


def compute_layout(depth, input_arena_bytes, output_arena_bytes):
    """SpscQueueLayout::create.  Returns a Layout or None for an invalid combination
    (every addition / multiplication is checked against uint64 overflow)."""
    for v in (depth, input_arena_bytes, output_arena_bytes):
        if not _is_int(v) or v < 0 or v > _U64:
            return None
    if depth < 1 or depth > MAX_DEPTH or (depth & (depth - 1)) != 0:
        return None
    for a in (input_arena_bytes, output_arena_bytes):
        if a <= 0 or a % ARENA_ALIGNMENT != 0:
            return None
    ring = depth * DESCRIPTOR_BYTES
    output_desc = ring
    input_arena = _align_up(2 * ring, ARENA_ALIGNMENT)
    if input_arena + input_arena_bytes > _U64:
        return None
    output_arena = _align_up(input_arena + input_arena_bytes, ARENA_ALIGNMENT)
    if output_arena > _U64 or output_arena + output_arena_bytes > _U64:
        return None
    payload_bytes = output_arena + output_arena_bytes
    return Layout(
        depth=depth, input_arena_bytes=input_arena_bytes,
        output_arena_bytes=output_arena_bytes, input_desc_offset=0,
        output_desc_offset=output_desc, input_arena_offset=input_arena,
        output_arena_offset=output_arena, payload_bytes=payload_bytes,
        input_desc_tail_offset=INPUT_DESC_TAIL_OFFSET,
        input_desc_head_offset=INPUT_DESC_HEAD_OFFSET,
        output_desc_tail_offset=OUTPUT_DESC_TAIL_OFFSET,
        output_desc_head_offset=OUTPUT_DESC_HEAD_OFFSET,
        initiator_abort_offset=INITIATOR_ABORT_OFFSET,
        peer_abort_offset=PEER_ABORT_OFFSET, counter_bytes=COUNTER_BYTES)


_BINDING_FIELDS = ("magic_version", "session_instance_id_bits", "transaction_id",
                   "payload_base", "payload_bytes", "counter_base", "counter_bytes",
                   "depth", "input_arena_bytes", "output_arena_bytes")


class Binding:
    """SpscQueueEndpointBinding: the ten fields in binding order."""
    __slots__ = _BINDING_FIELDS

    def __init__(self, *values, **kw):
        if values:
            if len(values) != len(_BINDING_FIELDS) or kw:
                raise TypeError("Binding takes ten values in binding order")
            kw = dict(zip(_BINDING_FIELDS, values))
        for name in _BINDING_FIELDS:
            setattr(self, name, kw[name])

    def scalars(self):
        return [getattr(self, n) for n in _BINDING_FIELDS]

    def __repr__(self):
        return "Binding(%s)" % ", ".join("%s=%#x" % (n, getattr(self, n))
                                          for n in _BINDING_FIELDS)


def decode_binding(scalars):
    """Decode the ten scalars; returns a Binding or None (count != 10, magic_version not
    exactly the packed value, transaction_id zero, or a value that is not a uint64)."""
    try:
        values = list(scalars)
    except TypeError:
        return None
    if len(values) != BINDING_SCALAR_COUNT:
        return None
    for v in values:
        if not _is_int(v) or v < 0 or v > _U64:
            return None
    if values[0] != MAGIC_VERSION or values[2] == 0:
        return None
    return Binding(*values)


def encode_binding(binding):
    """Encode a Binding into ten uint64 scalars; refuses (ValueError) the same bad inputs
    decode_binding refuses."""
    values = binding.scalars() if isinstance(binding, Binding) else list(binding)
    if decode_binding(values) is None:
        raise ValueError("invalid SPSQ endpoint binding")
    return values


_DESC = struct.Struct("<QQQQ")
_DESC_TAIL = struct.Struct("<QQQ")
_SEQ = struct.Struct("<Q")


def encode_descriptor(seq, opcode, payload_offset, payload_nbytes):
    return _DESC.pack(seq, int(opcode), payload_offset, payload_nbytes)


def decode_descriptor(raw):
    """-> (seq, opcode, payload_offset, payload_nbytes) from 32 little-endian bytes."""
    return _DESC.unpack(bytes(raw))


def _place(cursor, released, nbytes, arena_offset, arena_bytes):
    """Arena placement rule shared by producer and consumer.

    Returns (payload_offset, new_cursor, fits) where ``fits`` is the producer's room test
    (literal bound, plus the liveness rule: on an idle arena any n <= arena_bytes fits)."""
    pos = cursor % arena_bytes
    if pos + nbytes > arena_bytes:
        offset = arena_offset
        new_cursor = cursor + (arena_bytes - pos) + nbytes
    else:
        offset = arena_offset + pos
        new_cursor = cursor + nbytes
    if released is None:
        fits = True
    else:
        fits = (new_cursor - released <= arena_bytes) or (
            released == cursor and nbytes <= arena_bytes)
    return offset, new_cursor, fits


def _check_timeout(timeout):
    if not (_is_int(timeout) or isinstance(timeout, float)):
        raise ValueError("timeout must be a finite positive number of seconds")
    if isinstance(timeout, float) and not math.isfinite(timeout):
        raise ValueError("timeout must be finite")
    if timeout <= 0:
        raise ValueError("timeout must be > 0 seconds (use the try_* API to poll)")
    ns = int(math.ceil(timeout * 1_000_000_000)) if isinstance(timeout, float) \
        else timeout * 1_000_000_000
    return max(1, ns)


# ---------------------------------------------------------------------------------------
# Errors

class QueueErrorInfo:
    """Snapshot of queue.error: kind, op, message, session_instance_id_bits,
    transaction_id.  kind == ErrorKind.NONE while the queue has no terminal error."""
    __slots__ = ("kind", "op", "message", "session_instance_id_bits", "transaction_id")

    def __init__(self, kind=ErrorKind.NONE, op=Op.NONE, message="",
                 session_instance_id_bits=0, transaction_id=0):
        self.kind = ErrorKind(kind)
        self.op = Op(op)
        self.message = message
        self.session_instance_id_bits = session_instance_id_bits
        self.transaction_id = transaction_id

    def __bool__(self):
        return self.kind != ErrorKind.NONE

    def __repr__(self):
        return ("QueueErrorInfo(kind=%s, op=%s, message=%r, session=%#x, txn=%#x)"
                % (self.kind.name, self.op.name, self.message,
                   self.session_instance_id_bits, self.transaction_id))


def _bounded(message):
    raw = str(message).encode("utf-8", "replace")[:_MAX_ERROR_MESSAGE]
    return raw.decode("utf-8", "ignore")


class SpsqError(RuntimeError):
    """Queue failure carrying the contract's error kind and op.

    Attributes: kind (ErrorKind), op (Op), message (str, <= 255 bytes),
    session_instance_id_bits, transaction_id (0 until the binding was accepted),
    terminal (True when the queue is poisoned / remotely aborted)."""

    def __init__(self, kind, op, message, session_instance_id_bits=0, transaction_id=0,
                 terminal=True):
        self.kind = ErrorKind(kind)
        self.op = Op(op)
        self.message = _bounded(message)
        self.session_instance_id_bits = session_instance_id_bits
        self.transaction_id = transaction_id
        self.terminal = terminal
        super().__init__("SPSQ %s during %s: %s (session=%#x, transaction=%#x)" % (
            self.kind.name, self.op.name, self.message, session_instance_id_bits,
            transaction_id))

    @property
    def info(self):
        return QueueErrorInfo(self.kind, self.op, self.message,
                              self.session_instance_id_bits, self.transaction_id)


class SpsqRemoteAbort(SpsqError):
    """The peer (L2) abort flag was observed set after a blocking wait expired."""


class SpsqBindingError(SpsqError, ValueError):
    """Queue construction refused the binding (kind BAD_BINDING, op INIT)."""


# ---------------------------------------------------------------------------------------
# Handles

class OutputMessage:
    """Handle of one active output message (returned by output.peek / try_peek).

    Attributes: seq (transport sequence, 1-based), opcode (Opcode.DATA or Opcode.ERROR),
    nbytes, payload_offset (relative to the payload base), released (bool)."""
    __slots__ = ("seq", "opcode", "nbytes", "payload_offset", "_owner", "_end_cursor",
                 "released")

    def __init__(self, owner, seq, opcode, payload_offset, nbytes, end_cursor):
        self._owner = owner
        self.seq = seq
        self.opcode = Opcode(opcode)
        self.payload_offset = payload_offset
        self.nbytes = nbytes
        self._end_cursor = end_cursor
        self.released = False

    @property
    def payload_nbytes(self):
        return self.nbytes

    @property
    def is_error(self):
        return self.opcode == Opcode.ERROR

    def __repr__(self):
        return "OutputMessage(seq=%d, opcode=%s, nbytes=%d, offset=%d%s)" % (
            self.seq, self.opcode.name, self.nbytes, self.payload_offset,
            ", released" if self.released else "")


# ---------------------------------------------------------------------------------------
# Queue

class _InputSide:
    """queue.input: L3 is the producer of the input direction."""

    def __init__(self, queue):
        self._q = queue

    def try_enqueue(self, buffer, nbytes=None):
        """Publish one DATA message without blocking.  Returns True when published,
        False for ordinary descriptor-ring or arena backpressure."""
        q = self._q
        q._check_usable()
        if q._stop_published:
            raise ValueError("input rejected: STOP was already published")
        data = _payload_bytes(buffer, nbytes, q.layout.input_arena_bytes)
        return q._try_put(Opcode.DATA, data)

    def enqueue(self, buffer, nbytes=None, timeout=None):
        """Blocking enqueue with a finite positive timeout (seconds).  Returns True when
        published, False when the timeout expired under ordinary backpressure; raises
        SpsqRemoteAbort if the peer abort flag is set when the wait expires."""
        q = self._q
        ns = _check_timeout(timeout)
        q._check_usable()
        if q._stop_published:
            raise ValueError("input rejected: STOP was already published")
        data = _payload_bytes(buffer, nbytes, q.layout.input_arena_bytes)
        return q._blocking(lambda: q._try_put(Opcode.DATA, data), q._c_in_head,
                           lambda: q._in_head, ns, False)

    @property
    def stopped(self):
        """True once STOP has been published on the input direction."""
        return self._q._stop_published


class _OutputSide:
    """queue.output: L3 is the consumer of the output direction."""

    def __init__(self, queue):
        self._q = queue

    def try_peek(self):
        """Return the active output handle, or acquire the next one; None if empty."""
        q = self._q
        q._check_usable()
        return q._try_peek()

    def peek(self, timeout=None):
        """Blocking peek; returns None when the timeout expired with no output."""
        q = self._q
        ns = _check_timeout(timeout)
        q._check_usable()
        return q._blocking(q._try_peek, q._c_out_tail, lambda: q._out_tail, ns, None)

    def read_into(self, message, buffer):
        """Copy the payload of the active message into ``buffer`` (writable, contiguous,
        at least message.nbytes long; may be None for a zero-byte message).
        Returns the number of bytes copied."""
        q = self._q
        q._check_usable()
        q._check_handle(message, OP_L3_OUTPUT_PEEK)
        n = message.nbytes
        if n == 0:
            if buffer is not None:
                _writable_view(buffer, 0)
            return 0
        view = _writable_view(buffer, n)
        data = q._payload_read(message.payload_offset, n, OP_L3_OUTPUT_PEEK)
        view[:n] = data
        return n

    def release(self, message):
        """Release the active message (publishes the output head).  Releasing any other
        handle (stale, already released, or from another queue) poisons (OWNERSHIP)."""
        q = self._q
        q._check_usable()
        q._check_handle(message, OP_L3_OUTPUT_RELEASE)
        q._release(message)

    def try_dequeue_into(self, buffer):
        """try_peek + read_into + release.  Returns the released OutputMessage (check
        .opcode / .nbytes), or None when no output is available.  If ``buffer`` is too
        small, ValueError is raised and the message stays active."""
        msg = self.try_peek()
        if msg is None:
            return None
        self.read_into(msg, buffer)
        self.release(msg)
        return msg

    def dequeue_into(self, buffer, timeout=None):
        """Blocking try_dequeue_into; returns None when the timeout expired."""
        msg = self.peek(timeout)
        if msg is None:
            return None
        self.read_into(msg, buffer)
        self.release(msg)
        return msg


def _payload_bytes(buffer, nbytes, arena_bytes):
    """Validate a producer payload and return an immutable copy of its first nbytes."""
    if nbytes is not None and (not _is_int(nbytes) or nbytes < 0):
        raise ValueError("nbytes must be a non-negative int")
    if buffer is None:
        if nbytes not in (None, 0):
            raise ValueError("buffer is None but nbytes > 0")
        return b""
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("payload must be a contiguous bytes-like host buffer") from None
    if not view.c_contiguous:
        raise ValueError("payload buffer must be contiguous")
    total = view.nbytes
    n = total if nbytes is None else nbytes
    if n > total:
        raise ValueError("nbytes (%d) exceeds the buffer size (%d)" % (n, total))
    if n > arena_bytes:
        raise ValueError("message of %d bytes can never fit the %d-byte input arena"
                         % (n, arena_bytes))
    return view.tobytes()[:n] if n else b""


def _writable_view(buffer, n):
    if buffer is None:
        raise ValueError("a destination buffer is required for a non-empty message")
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("destination must be a writable contiguous buffer") from None
    if view.readonly or not view.c_contiguous:
        raise ValueError("destination must be a writable contiguous buffer")
    view = view.cast("B")
    if view.nbytes < n:
        raise ValueError("destination buffer has %d bytes, message needs %d"
                         % (view.nbytes, n))
    return view


class Queue:
    """L3 endpoint of one SPSQ queue.  ``Queue(region, scalars)``; see the module doc."""

    def __init__(self, region, scalars):
        binding = decode_binding(scalars)
        if binding is None:
            raise SpsqBindingError(ErrorKind.BAD_BINDING, Op.INIT,
                                   "binding rejected: need ten uint64 scalars, the packed "
                                   "magic_version and a nonzero transaction_id")
        layout = compute_layout(binding.depth, binding.input_arena_bytes,
                                binding.output_arena_bytes)
        if layout is None:
            raise SpsqBindingError(ErrorKind.BAD_BINDING, Op.INIT,
                                   "invalid layout (depth / arena sizes)")
        if binding.payload_bytes != layout.payload_bytes:
            raise SpsqBindingError(ErrorKind.BAD_BINDING, Op.INIT,
                                   "payload_bytes %d != layout %d" % (
                                       binding.payload_bytes, layout.payload_bytes))
        if binding.counter_bytes != COUNTER_BYTES:
            raise SpsqBindingError(ErrorKind.BAD_BINDING, Op.INIT,
                                   "counter_bytes %d != %d" % (binding.counter_bytes,
                                                               COUNTER_BYTES))
        if binding.payload_base + binding.payload_bytes > _U64 + 1 or \
                binding.counter_base + binding.counter_bytes > _U64 + 1:
            raise SpsqBindingError(ErrorKind.BAD_BINDING, Op.INIT,
                                   "span base + bytes overflows")
        for name in ("payload_read", "payload_write", "counter"):
            if not callable(getattr(region, name, None)):
                raise SpsqBindingError(ErrorKind.BAD_BINDING, Op.INIT,
                                       "region lacks %s()" % name)
        try:
            counters = [region.counter(off) for off in (
                INPUT_DESC_TAIL_OFFSET, INPUT_DESC_HEAD_OFFSET, OUTPUT_DESC_TAIL_OFFSET,
                OUTPUT_DESC_HEAD_OFFSET, INITIATOR_ABORT_OFFSET, PEER_ABORT_OFFSET)]
        except Exception as exc:
            raise SpsqBindingError(ErrorKind.BAD_BINDING, Op.INIT,
                                   "region.counter() failed: %r" % (exc,)) from exc

        self._region = region
        self._binding = binding
        self._scalars = binding.scalars()
        self._layout = layout
        (self._c_in_tail, self._c_in_head, self._c_out_tail, self._c_out_head,
         self._c_init_abort, self._c_peer_abort) = counters
        self._error = None          # SpsqError once terminal
        self._freed = False
        self._stop_published = False
        # input direction (producer): 64-bit logical counts and arena cursors
        self._in_tail = 0           # messages published
        self._in_head = 0           # messages the consumer released (reconstructed)
        self._in_cursor = 0         # arena byte cursor (producer tail)
        self._in_released = 0       # arena byte cursor released by the consumer
        self._in_ends = []          # arena end cursor of each in-flight message (FIFO)
        self._in_ends_start = 0
        # output direction (consumer)
        self._out_head = 0          # messages released
        self._out_tail = 0          # messages published by L2 (reconstructed)
        self._out_cursor = 0        # expected arena cursor (consumer head)
        self._active = None         # active OutputMessage
        self.input = _InputSide(self)
        self.output = _OutputSide(self)

    @classmethod
    def create(cls, region, depth, input_arena_bytes, output_arena_bytes, transaction_id,
               session_instance_id_bits=0, payload_base=0, counter_base=0):
        """Build the ten binding scalars from sizes and identity, then construct."""
        layout = compute_layout(depth, input_arena_bytes, output_arena_bytes)
        if layout is None:
            raise SpsqBindingError(ErrorKind.BAD_BINDING, Op.INIT,
                                   "invalid layout (depth / arena sizes)")
        scalars = [MAGIC_VERSION, session_instance_id_bits, transaction_id, payload_base,
                   layout.payload_bytes, counter_base, COUNTER_BYTES, depth,
                   input_arena_bytes, output_arena_bytes]
        return cls(region, scalars)

    # ---- public properties -------------------------------------------------------------
    @property
    def layout(self):
        return self._layout

    @property
    def binding(self):
        return self._binding

    def chip_task_arg_scalars(self):
        """The ten binding scalars in binding order (a fresh list of ints)."""
        return list(self._scalars)

    @property
    def live(self):
        return self._error is None and not self._freed

    @property
    def error(self):
        if self._error is None:
            return QueueErrorInfo()
        return self._error.info

    @property
    def freed(self):
        return self._freed

    def free(self):
        """Logical release of the L3 handle (idempotent).  Valid after poison."""
        self._freed = True
        self._active = None

    def request_stop(self, timeout=None):
        """Publish STOP, waiting up to ``timeout`` seconds for ring room.  Returns True once
        STOP is published (immediately if it already was), False on timeout.  Does not
        wait for L2 exit and does not drain outputs."""
        ns = _check_timeout(timeout)
        self._check_usable()
        if self._stop_published:
            return True
        return self._blocking(self._try_stop, self._c_in_head, lambda: self._in_head, ns,
                              False)

    def try_request_stop(self):
        """Publish STOP without blocking; False when the descriptor ring is full."""
        self._check_usable()
        if self._stop_published:
            return True
        return self._try_stop()

    # ---- internals ---------------------------------------------------------------------
    def _check_usable(self):
        if self._freed:
            raise ValueError("queue was freed")
        if self._error is not None:
            raise self._error

    def _fail(self, kind, op, message, cls=SpsqError, terminal=True):
        b = self._binding
        return cls(kind, op, message, b.session_instance_id_bits, b.transaction_id,
                   terminal=terminal)

    def _poison(self, kind, op, message):
        """Enter the terminal state, Set the local (initiator) abort flag, raise."""
        if self._error is None:
            self._error = self._fail(kind, op, message)
            self._active = None
            try:
                self._c_init_abort.notify(1, NotifyOp.SET)
            except Exception:
                pass
        raise self._error

    def _remote_abort(self, observed):
        err = self._fail(ErrorKind.REMOTE_ABORTED, Op.TIMEOUT,
                         "peer abort flag observed (%d) after wait expired" % observed,
                         cls=SpsqRemoteAbort)
        self._error = err
        self._active = None
        raise err

    def _read_counter(self, counter, op):
        """Sample a counter; a failure (nothing mutated) is a non-terminal error."""
        try:
            result = counter.test(0, Cmp.EQ)
            matched, observed = result
        except Exception as exc:
            raise self._fail(ErrorKind.ENDPOINT_ERROR, op,
                             "counter test failed: %r" % (exc,), terminal=False) from exc
        if not _is_int(observed) or not -(1 << 31) <= observed < (1 << 31):
            raise self._fail(ErrorKind.ENDPOINT_ERROR, op,
                             "counter returned a non-int32 value %r" % (observed,),
                             terminal=False)
        return observed

    def _payload_read(self, offset, nbytes, op):
        try:
            data = self._region.payload_read(offset, nbytes)
            data = bytes(data)
        except Exception as exc:
            raise self._fail(ErrorKind.ENDPOINT_ERROR, op,
                             "payload read failed: %r" % (exc,), terminal=False) from exc
        if len(data) != nbytes:
            raise self._fail(ErrorKind.ENDPOINT_ERROR, op,
                             "payload read returned %d bytes, wanted %d" % (len(data),
                                                                           nbytes),
                             terminal=False)
        return data

    def _peer_abort_raised(self):
        observed = self._read_counter(self._c_peer_abort, Op.TIMEOUT)
        return observed >= 1, observed

    def _blocking(self, attempt, counter, cached_count, timeout_ns, nothing):
        """Retry ``attempt`` until it makes progress or the timeout expires.  Between
        attempts, wait for the peer's counter to move away from its cached value.  After
        the wait expires, sample the peer abort flag (remote abort) else return
        ``nothing``."""
        deadline = time.monotonic_ns() + timeout_ns
        while True:
            result = attempt()
            if result is not nothing:
                return result
            now = time.monotonic_ns()
            remaining = deadline - now
            if remaining <= 0:
                break
            try:
                held, _observed = counter.wait(counter_low32(cached_count()), Cmp.NE,
                                               min(remaining, _MAX_WAIT_NS))
                held = bool(held)
            except Exception as exc:
                raise self._fail(ErrorKind.ENDPOINT_ERROR, Op.TIMEOUT,
                                 "counter wait failed: %r" % (exc,),
                                 terminal=False) from exc
            if not held:
                break
        raised, observed = self._peer_abort_raised()
        if raised:
            self._remote_abort(observed)
        return nothing

    # input direction ---------------------------------------------------------------------
    def _refresh_in_head(self):
        observed = self._read_counter(self._c_in_head, OP_L3_INPUT_RESERVE)
        new_head = reconstruct_counter(self._in_head, observed, self._layout.depth)
        if new_head is None or new_head > self._in_tail:
            self._poison(ErrorKind.INVALID_DESCRIPTOR, OP_L3_INPUT_RESERVE,
                         "impossible input head counter %d (head %d, tail %d)"
                         % (observed, self._in_head, self._in_tail))
        advanced = new_head - self._in_head
        if advanced:
            idx = self._in_ends_start + advanced - 1
            self._in_released = self._in_ends[idx]
            self._in_ends_start += advanced
            if self._in_ends_start > 64 and self._in_ends_start * 2 > len(self._in_ends):
                del self._in_ends[:self._in_ends_start]
                self._in_ends_start = 0
            self._in_head = new_head

    def _try_stop(self):
        if self._try_put(Opcode.STOP, b""):
            self._stop_published = True
            return True
        return False

    def _try_put(self, opcode, data):
        lay = self._layout
        n = len(data)
        refreshed = False
        if self._in_tail - self._in_head >= lay.depth:
            self._refresh_in_head()
            refreshed = True
            if self._in_tail - self._in_head >= lay.depth:
                return False
        if n:
            offset, new_cursor, fits = _place(self._in_cursor, self._in_released, n,
                                              lay.input_arena_offset,
                                              lay.input_arena_bytes)
            if not fits and not refreshed:
                self._refresh_in_head()
                offset, new_cursor, fits = _place(self._in_cursor, self._in_released, n,
                                                  lay.input_arena_offset,
                                                  lay.input_arena_bytes)
            if not fits:
                return False
        else:
            offset, new_cursor = 0, self._in_cursor
        index = self._in_tail
        slot = lay.input_desc_offset + (index % lay.depth) * DESCRIPTOR_BYTES
        region = self._region
        try:
            if n:
                region.payload_write(offset, data)
            region.payload_write(slot + 8, _DESC_TAIL.pack(int(opcode), offset, n))
            region.payload_write(slot, _SEQ.pack(index + 1))
            self._c_in_tail.notify(counter_low32(index + 1), NotifyOp.SET)
        except Exception as exc:
            self._poison(ErrorKind.ENDPOINT_ERROR, OP_L3_INPUT_PUBLISH,
                         "publishing input %d failed: %r" % (index + 1, exc))
        self._in_tail = index + 1
        self._in_cursor = new_cursor
        self._in_ends.append(new_cursor)
        return True

    # output direction --------------------------------------------------------------------
    def _try_peek(self):
        if self._active is not None:
            return self._active
        lay = self._layout
        op = OP_L3_OUTPUT_PEEK
        if self._out_tail == self._out_head:
            observed = self._read_counter(self._c_out_tail, op)
            new_tail = reconstruct_counter(self._out_tail, observed, lay.depth)
            if new_tail is None or new_tail - self._out_head > lay.depth:
                self._poison(ErrorKind.INVALID_DESCRIPTOR, op,
                             "impossible output tail counter %d (head %d)"
                             % (observed, self._out_head))
            self._out_tail = new_tail
            if new_tail == self._out_head:
                return None
        index = self._out_head
        slot = lay.output_desc_offset + (index % lay.depth) * DESCRIPTOR_BYTES
        raw = self._payload_read(slot, DESCRIPTOR_BYTES, op)
        seq, opcode, offset, nbytes = _DESC.unpack(raw)
        if seq != index + 1:
            self._poison(ErrorKind.INVALID_DESCRIPTOR, op,
                         "descriptor sequence mismatch: seq %d, expected %d"
                         % (seq, index + 1))
        if opcode == Opcode.STOP:
            self._poison(ErrorKind.INVALID_DESCRIPTOR, op, "STOP on the output queue")
        if opcode not in (Opcode.DATA, Opcode.ERROR):
            self._poison(ErrorKind.INVALID_DESCRIPTOR, op, "invalid opcode %d" % opcode)
        if nbytes == 0:
            if offset != 0:
                self._poison(ErrorKind.INVALID_DESCRIPTOR, op,
                             "zero-byte message with payload_offset %d" % offset)
            end_cursor = self._out_cursor
        else:
            a_off, a_len = lay.output_arena_offset, lay.output_arena_bytes
            if nbytes > a_len or offset < a_off or offset - a_off > a_len - nbytes:
                self._poison(ErrorKind.INVALID_DESCRIPTOR, op,
                             "payload [%d, +%d) outside the output arena" % (offset,
                                                                            nbytes))
            expected, end_cursor, _ = _place(self._out_cursor, None, nbytes, a_off, a_len)
            if offset != expected:
                self._poison(ErrorKind.INVALID_DESCRIPTOR, op,
                             "payload replay: offset %d, expected %d" % (offset, expected))
        msg = OutputMessage(self, seq, opcode, offset, nbytes, end_cursor)
        self._active = msg
        return msg

    def _check_handle(self, message, op):
        if not isinstance(message, OutputMessage):
            raise ValueError("expected an OutputMessage handle from this queue's output")
        if message is not self._active:
            self._poison(ErrorKind.OWNERSHIP, op,
                         "wrong, stale or foreign output handle (seq %d)" % message.seq)

    def _release(self, message):
        new_head = self._out_head + 1
        try:
            self._c_out_head.notify(counter_low32(new_head), NotifyOp.SET)
        except Exception as exc:
            self._poison(ErrorKind.ENDPOINT_ERROR, OP_L3_OUTPUT_RELEASE,
                         "publishing output head failed: %r" % (exc,))
        self._out_head = new_head
        self._out_cursor = message._end_cursor
        message.released = True
        self._active = None
