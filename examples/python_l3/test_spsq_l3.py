"""unittest suite for spsq_l3 (L3 endpoint) with an in-memory region and a small L2 peer
written from the wire contract.  Run: python3 -m unittest  (in /work/pyl3)."""

import math
import random
import struct
import threading
import time
import unittest
from unittest import mock

import spsq_l3 as s

# ---------------------------------------------------------------------------------------
# In-memory region of the queue's duck type


def _cmp(a, b, cmp):
    return {0: a == b, 1: a != b, 2: a > b, 3: a >= b, 4: a < b, 5: a <= b}[cmp]


class MemCounter:
    def __init__(self, region, offset):
        self.region = region
        self.offset = offset

    def test(self, cmp_value, cmp):
        r = self.region
        with r.cond:
            r._maybe_fail("test", self.offset)
            r.counter_reads.add(self.offset)
            v = r.counters.get(self.offset, 0)
            return _cmp(v, cmp_value, cmp), v

    def notify(self, value, op=0):
        r = self.region
        if not isinstance(value, int) or not -(1 << 31) <= value < (1 << 31):
            raise ValueError("notify value must be int32")
        with r.cond:
            r._maybe_fail("notify", self.offset)
            r.counter_writes.append((self.offset, value, op))
            if op == 0:
                nv = value
            elif op == 1:
                nv = s._to_i32(r.counters.get(self.offset, 0) + value)
            else:
                raise ValueError("bad notify op")
            r.counters[self.offset] = nv
            r.cond.notify_all()

    def wait(self, cmp_value, cmp, timeout_ns):
        r = self.region
        if not isinstance(timeout_ns, int) or timeout_ns < 0:
            raise ValueError("bad timeout")
        with r.cond:
            r._maybe_fail("wait", self.offset)
            r.waits += 1
            if r.instant_waits:
                v = r.counters.get(self.offset, 0)
                return _cmp(v, cmp_value, cmp), v
            held = r.cond.wait_for(
                lambda: _cmp(r.counters.get(self.offset, 0), cmp_value, cmp),
                timeout=timeout_ns / 1e9)
            return bool(held), r.counters.get(self.offset, 0)


class MemRegion:
    """Payload part + counter part in memory; every access is bounds-checked and logged."""

    def __init__(self, payload_bytes, counter_bytes=s.COUNTER_BYTES):
        self.payload = bytearray(payload_bytes)
        self.counter_bytes = counter_bytes
        self.counters = {}
        self.cond = threading.Condition()
        self.reads = []
        self.writes = []
        self.counter_reads = set()
        self.counter_writes = []
        self.fail = {}            # op name -> set of counter offsets (or True for payload)
        self.instant_waits = False
        self.waits = 0

    def _maybe_fail(self, op, offset=None):
        f = self.fail.get(op)
        if f is True or (f and offset in f):
            raise OSError("injected %s failure" % op)

    def payload_read(self, offset, nbytes):
        if not (isinstance(offset, int) and isinstance(nbytes, int)) or offset < 0 or \
                nbytes < 0 or offset + nbytes > len(self.payload):
            raise IndexError("payload read out of bounds: %r+%r" % (offset, nbytes))
        with self.cond:
            self._maybe_fail("payload_read")
            self.reads.append((offset, nbytes))
            return bytes(self.payload[offset:offset + nbytes])

    def payload_write(self, offset, data):
        data = bytes(data)
        if not isinstance(offset, int) or offset < 0 or offset + len(data) > len(self.payload):
            raise IndexError("payload write out of bounds: %r+%r" % (offset, len(data)))
        with self.cond:
            self._maybe_fail("payload_write")
            self.writes.append((offset, len(data)))
            self.payload[offset:offset + len(data)] = data

    def counter(self, offset):
        if not isinstance(offset, int) or offset < 0 or offset + 4 > self.counter_bytes \
                or offset % 4:
            raise IndexError("bad counter offset %r" % (offset,))
        return MemCounter(self, offset)

    # peer-side raw helpers (not used by the L3 queue)
    def set_counter(self, offset, value):
        with self.cond:
            self.counters[offset] = s._to_i32(value)
            self.cond.notify_all()

    def get_counter(self, offset):
        with self.cond:
            return self.counters.get(offset, 0)


# ---------------------------------------------------------------------------------------
# A small L2 peer written from the wire contract (MaxInflight = 1)


class PeerPoison(Exception):
    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


class L2Peer:
    def __init__(self, region, scalars):
        self.r = region
        b = s.decode_binding(scalars)
        assert b is not None
        self.lay = s.compute_layout(b.depth, b.input_arena_bytes, b.output_arena_bytes)
        assert self.lay.payload_bytes == b.payload_bytes
        self.depth = b.depth
        # input consumer
        self.in_head = 0
        self.in_tail = 0
        self.in_cursor = 0
        self.pending = None        # (index, end_cursor) of the active input
        self.stopped = False
        # output producer
        self.out_tail = 0
        self.out_head = 0
        self.out_cursor = 0
        self.out_released = 0
        self.out_ends = []

    def poison(self, kind, message):
        self.r.counter(s.PEER_ABORT_OFFSET).notify(1, 0)
        raise PeerPoison(kind, message)

    def abort(self):
        self.r.counter(s.PEER_ABORT_OFFSET).notify(1, 0)

    def _observe(self, offset):
        return self.r.counter(offset).test(0, 0)[1]

    def try_peek(self):
        """-> (opcode, payload bytes) or None."""
        assert self.pending is None
        if self.in_tail == self.in_head:
            obs = self._observe(s.INPUT_DESC_TAIL_OFFSET)
            nt = s.reconstruct_counter(self.in_tail, obs, self.depth)
            if nt is None or nt - self.in_head > self.depth:
                self.poison(s.ErrorKind.INVALID_DESCRIPTOR, "impossible input tail")
            self.in_tail = nt
            if nt == self.in_head:
                return None
        idx = self.in_head
        raw = self.r.payload_read(self.lay.input_desc_offset + (idx % self.depth) * 32, 32)
        seq, opc, off, n = struct.unpack("<QQQQ", raw)
        if seq != idx + 1:
            self.poison(s.ErrorKind.INVALID_DESCRIPTOR, "seq mismatch")
        if self.stopped:
            self.poison(s.ErrorKind.INVALID_DESCRIPTOR, "descriptor after STOP")
        if opc not in (s.Opcode.DATA, s.Opcode.STOP):
            self.poison(s.ErrorKind.INVALID_DESCRIPTOR, "bad input opcode %d" % opc)
        if opc == s.Opcode.STOP and (n or off):
            self.poison(s.ErrorKind.INVALID_DESCRIPTOR, "STOP with payload")
        if n == 0:
            if off != 0:
                self.poison(s.ErrorKind.INVALID_DESCRIPTOR, "zero-byte offset")
            end = self.in_cursor
            data = b""
        else:
            a0, al = self.lay.input_arena_offset, self.lay.input_arena_bytes
            if n > al or off < a0 or off + n > a0 + al:
                self.poison(s.ErrorKind.INVALID_DESCRIPTOR, "payload outside arena")
            pos = self.in_cursor % al
            if pos + n > al:
                exp, end = a0, self.in_cursor + (al - pos) + n
            else:
                exp, end = a0 + pos, self.in_cursor + n
            if off != exp:
                self.poison(s.ErrorKind.INVALID_DESCRIPTOR, "payload replay")
            data = self.r.payload_read(off, n)
        if opc == s.Opcode.STOP:
            self.stopped = True
        self.pending = (idx, end)
        return s.Opcode(opc), data

    def release(self):
        idx, end = self.pending
        self.pending = None
        self.in_head = idx + 1
        self.in_cursor = end
        self.r.counter(s.INPUT_DESC_HEAD_OFFSET).notify(s.counter_low32(self.in_head), 0)

    def _refresh_out_head(self):
        obs = self._observe(s.OUTPUT_DESC_HEAD_OFFSET)
        nh = s.reconstruct_counter(self.out_head, obs, self.depth)
        if nh is None or nh > self.out_tail:
            self.poison(s.ErrorKind.INVALID_DESCRIPTOR, "impossible output head")
        adv = nh - self.out_head
        if adv:
            self.out_released = self.out_ends[adv - 1]
            del self.out_ends[:adv]
            self.out_head = nh

    def try_publish(self, data, opcode=s.Opcode.DATA):
        n = len(data)
        self._refresh_out_head()
        if self.out_tail - self.out_head >= self.depth:
            return False
        a0, al = self.lay.output_arena_offset, self.lay.output_arena_bytes
        if n:
            off, new, fits = s._place(self.out_cursor, self.out_released, n, a0, al)
            if not fits:
                return False
            self.r.payload_write(off, data)
        else:
            off, new = 0, self.out_cursor
        self.write_raw_output(self.out_tail, self.out_tail + 1, opcode, off, n)
        self.out_tail += 1
        self.out_cursor = new
        self.out_ends.append(new)
        self.r.counter(s.OUTPUT_DESC_TAIL_OFFSET).notify(s.counter_low32(self.out_tail), 0)
        return True

    def write_raw_output(self, index, seq, opcode, off, n):
        slot = self.lay.output_desc_offset + (index % self.depth) * 32
        self.r.payload_write(slot + 8, struct.pack("<QQQ", int(opcode), off, n))
        self.r.payload_write(slot, struct.pack("<Q", seq))

    def publish_raw(self, seq, opcode, off, n, tail=None):
        """Hostile: write descriptor fields as given and publish the tail."""
        self.write_raw_output(self.out_tail, seq, opcode, off, n)
        self.out_tail += 1
        t = self.out_tail if tail is None else tail
        self.r.counter(s.OUTPUT_DESC_TAIL_OFFSET).notify(s._to_i32(t), 0)


def echo_server(peer, transform=lambda b: b[::-1], deadline_s=60.0):
    """Persistent L2 loop: each DATA input -> one DATA output (transformed); exits on
    STOP after releasing it."""
    end = time.monotonic() + deadline_s
    out = []
    while time.monotonic() < end:
        got = peer.try_peek()
        if got is None:
            peer.r.counter(s.INPUT_DESC_TAIL_OFFSET).wait(
                s.counter_low32(peer.in_tail), 1, 10_000_000)
            continue
        opc, data = got
        if opc == s.Opcode.STOP:
            peer.release()
            return out
        reply = transform(data)
        while not peer.try_publish(reply):
            peer.r.counter(s.OUTPUT_DESC_HEAD_OFFSET).wait(
                s.counter_low32(peer.out_head), 1, 10_000_000)
            if time.monotonic() > end:
                raise TimeoutError("echo server stuck")
        peer.release()
        out.append(data)
    raise TimeoutError("echo server timed out")


def make(depth=4, ia=128, oa=128, txn=0x77, session=0x1234):
    lay = s.compute_layout(depth, ia, oa)
    region = MemRegion(lay.payload_bytes)
    q = s.Queue.create(region, depth, ia, oa, transaction_id=txn,
                       session_instance_id_bits=session)
    peer = L2Peer(region, q.chip_task_arg_scalars())
    return q, peer, region


class Base(unittest.TestCase):
    def assertPoisoned(self, q, region, kind, op=None):
        self.assertFalse(q.live)
        self.assertEqual(q.error.kind, kind)
        if op is not None:
            self.assertEqual(q.error.op, op)
        self.assertEqual(region.get_counter(s.INITIATOR_ABORT_OFFSET), 1)
        # later operations keep raising the terminal error; cleanup stays valid
        with self.assertRaises(s.SpsqError) as cm:
            q.output.try_peek()
        self.assertEqual(cm.exception.kind, kind)
        with self.assertRaises(s.SpsqError):
            q.input.try_enqueue(b"x")
        with self.assertRaises(s.SpsqError):
            q.try_request_stop()
        q.free()
        q.free()

    def assertAccessesConfined(self, q, region):
        lay = q.layout
        ring = lay.depth * 32
        for off, n in region.writes_by_l3:
            ok = (off >= 0 and off + n <= ring) or (
                off >= lay.input_arena_offset and
                off + n <= lay.input_arena_offset + lay.input_arena_bytes)
            self.assertTrue(ok, "L3 wrote outside its parts: %d+%d" % (off, n))


# ---------------------------------------------------------------------------------------

class TestBindingAndLayout(Base):
    def test_golden_layouts(self):
        for (d, i, o), (ring, ia, oa, pb) in {
                (1, 64, 64): (32, 64, 128, 192), (4, 128, 192): (128, 256, 384, 576),
                (8, 192, 64): (256, 512, 704, 768), (2, 64, 128): (64, 128, 192, 320)}.items():
            lay = s.compute_layout(d, i, o)
            self.assertEqual((lay.output_desc_offset, lay.input_arena_offset,
                              lay.output_arena_offset, lay.payload_bytes), (ring, ia, oa, pb))
            self.assertEqual(lay.counter_bytes, 384)

    def test_invalid_layouts(self):
        for args in [(0, 64, 64), (3, 64, 64), (1 << 31, 64, 64), (4, 0, 64), (4, 64, 65),
                     (4, 64, -64), (4, 1 << 64, 64), (4, 64, (1 << 64) - 64), (True, 64, 64)]:
            self.assertIsNone(s.compute_layout(*args), args)
        self.assertIsNotNone(s.compute_layout(1 << 30, 64, 64))

    def test_scalars_and_accessors(self):
        q, _, _ = make(depth=4, ia=128, oa=192, txn=9, session=0)
        sc = q.chip_task_arg_scalars()
        self.assertEqual(sc, [0x5350535100010000, 0, 9, 0, 576, 0, 384, 4, 128, 192])
        sc[0] = 0  # returned list is a copy
        self.assertEqual(q.chip_task_arg_scalars()[0], s.MAGIC_VERSION)
        self.assertTrue(q.live)
        self.assertEqual(q.error.kind, s.ErrorKind.NONE)
        self.assertEqual(q.layout.output_arena_offset, 384)

    def test_constructor_from_scalars(self):
        lay = s.compute_layout(2, 64, 128)
        region = MemRegion(lay.payload_bytes)
        good = [s.MAGIC_VERSION, 5, 6, 0x1000, lay.payload_bytes, 0x2000, 384, 2, 64, 128]
        q = s.Queue(region, good)
        self.assertEqual(q.chip_task_arg_scalars(), good)
        bad = []
        for i, v in [(0, s.MAGIC_VERSION + 1), (2, 0), (4, lay.payload_bytes + 64), (6, 320),
                     (7, 3), (8, 65), (9, 0), (1, -1), (3, 1 << 64), (0, "x")]:
            b = list(good)
            b[i] = v
            bad.append(b)
        bad += [good[:9], good + [0], None, 5]
        for b in bad:
            with self.assertRaises(s.SpsqBindingError, msg=repr(b)) as cm:
                s.Queue(region, b)
            self.assertIsInstance(cm.exception, ValueError)
            self.assertEqual(cm.exception.kind, s.ErrorKind.BAD_BINDING)
            self.assertEqual(cm.exception.op, s.Op.INIT)
        self.assertEqual(region.writes, [])

    def test_decode_encode(self):
        sc = [s.MAGIC_VERSION, 0, 1, 0, 192, 0, 384, 1, 64, 64]
        b = s.decode_binding(sc)
        self.assertEqual(s.encode_binding(b), sc)
        self.assertIsNone(s.decode_binding(sc[:9]))
        with self.assertRaises(ValueError):
            s.encode_binding([s.MAGIC_VERSION, 0, 0, 0, 192, 0, 384, 1, 64, 64])

    def test_reconstruct_counter_wrap(self):
        depth = 8
        local = (1 << 32) - 3
        for adv in range(0, depth + 1):
            obs = s.counter_low32(local + adv)
            self.assertEqual(s.reconstruct_counter(local, obs, depth), local + adv)
        self.assertIsNone(s.reconstruct_counter(local, s.counter_low32(local + 9), depth))
        self.assertIsNone(s.reconstruct_counter(local, s.counter_low32(local - 1), depth))
        self.assertEqual(s.counter_low32((1 << 31)), -(1 << 31))
        self.assertEqual(s.counter_low32((5 << 32) + 7), 7)

    def test_descriptor_codec(self):
        raw = s.encode_descriptor(1, s.Opcode.DATA, 64, 3)
        self.assertEqual(len(raw), 32)
        self.assertEqual(raw[:8], (1).to_bytes(8, "little"))
        self.assertEqual(s.decode_descriptor(raw), (1, 1, 64, 3))


class TestNormalFlow(Base):
    def test_enqueue_peek_read_release(self):
        q, peer, region = make()
        self.assertTrue(q.input.try_enqueue(b"hello"))
        self.assertTrue(q.input.enqueue(bytearray(b"world!!"), nbytes=5, timeout=1.0))
        self.assertEqual(region.get_counter(s.INPUT_DESC_TAIL_OFFSET), 2)
        # descriptor layout on the wire
        raw = region.payload[0:32]
        self.assertEqual(struct.unpack("<QQQQ", raw),
                         (1, s.Opcode.DATA, q.layout.input_arena_offset, 5))
        self.assertEqual(peer.try_peek(), (s.Opcode.DATA, b"hello"))
        peer.release()
        self.assertEqual(peer.try_peek(), (s.Opcode.DATA, b"world"))
        peer.release()
        self.assertIsNone(q.output.try_peek())
        self.assertTrue(peer.try_publish(b"out-1"))
        self.assertTrue(peer.try_publish(b"", s.Opcode.ERROR))
        m = q.output.peek(timeout=1.0)
        self.assertIs(q.output.try_peek(), m)       # same handle while active
        self.assertEqual((m.seq, m.opcode, m.nbytes), (1, s.Opcode.DATA, 5))
        buf = bytearray(8)
        self.assertEqual(q.output.read_into(m, buf), 5)
        self.assertEqual(bytes(buf[:5]), b"out-1")
        q.output.release(m)
        self.assertEqual(region.get_counter(s.OUTPUT_DESC_HEAD_OFFSET), 1)
        m2 = q.output.try_dequeue_into(None)
        self.assertEqual((m2.opcode, m2.nbytes, m2.seq), (s.Opcode.ERROR, 0, 2))
        self.assertTrue(m2.released)
        self.assertIsNone(q.output.try_dequeue_into(bytearray(8)))
        self.assertTrue(q.live)
        self.assertEqual(region.get_counter(s.INITIATOR_ABORT_OFFSET), 0)

    def test_zero_byte_and_buffer_kinds(self):
        q, peer, region = make()
        self.assertTrue(q.input.try_enqueue(None, 0))
        self.assertTrue(q.input.try_enqueue(memoryview(b"abcdef")[1:4]))
        import array
        self.assertTrue(q.input.try_enqueue(array.array("I", [1, 2])))
        self.assertEqual(peer.try_peek(), (s.Opcode.DATA, b""))
        self.assertEqual(struct.unpack("<QQQQ", region.payload[0:32]), (1, 1, 0, 0))
        peer.release()
        self.assertEqual(peer.try_peek(), (s.Opcode.DATA, b"bcd"))
        peer.release()
        self.assertEqual(peer.try_peek()[1], struct.pack("=II", 1, 2))
        peer.release()

    def test_usage_errors_leave_queue_live(self):
        q, peer, region = make(ia=128)
        for bad in [lambda: q.input.try_enqueue(b"x" * 129),
                    lambda: q.input.try_enqueue(b"abc", 4),
                    lambda: q.input.try_enqueue(b"abc", -1),
                    lambda: q.input.try_enqueue(None, 3),
                    lambda: q.input.try_enqueue(12345),
                    lambda: q.input.try_enqueue(memoryview(bytes(8))[::2]),
                    lambda: q.output.release(None),
                    lambda: q.output.read_into("nope", bytearray(1))]:
            with self.assertRaises(ValueError):
                bad()
        for t in [0, -1, 0.0, float("nan"), float("inf"), None, "1", True]:
            with self.assertRaises(ValueError, msg=repr(t)):
                q.input.enqueue(b"x", timeout=t)
            with self.assertRaises(ValueError):
                q.output.peek(timeout=t)
            with self.assertRaises(ValueError):
                q.output.dequeue_into(bytearray(4), timeout=t)
            with self.assertRaises(ValueError):
                q.request_stop(timeout=t)
        self.assertTrue(q.live)
        self.assertEqual(region.writes, [])
        # destination too small: ValueError, handle stays active
        peer.try_publish(b"12345678")
        with self.assertRaises(ValueError):
            q.output.try_dequeue_into(bytearray(4))
        m = q.output.try_peek()
        with self.assertRaises(ValueError):
            q.output.read_into(m, bytes(8))          # read-only destination
        self.assertEqual(q.output.try_dequeue_into(bytearray(8)).nbytes, 8)
        self.assertTrue(q.live)

    def test_free(self):
        q, peer, region = make()
        q.free()
        self.assertFalse(q.live)
        with self.assertRaises(ValueError):
            q.input.try_enqueue(b"x")
        with self.assertRaises(ValueError):
            q.output.try_peek()
        q.free()
        self.assertEqual(region.get_counter(s.INITIATOR_ABORT_OFFSET), 0)


class TestBackpressureAndWrap(Base):
    def test_ring_full_is_not_poison(self):
        q, peer, region = make(depth=4, ia=1024)
        for i in range(4):
            self.assertTrue(q.input.try_enqueue(bytes([i])))
        self.assertFalse(q.input.try_enqueue(b"z"))        # capacity exactly depth
        self.assertFalse(q.try_request_stop())
        self.assertTrue(q.live)
        self.assertEqual(peer.try_peek()[1], b"\x00")
        peer.release()
        self.assertTrue(q.input.try_enqueue(b"z"))
        self.assertFalse(q.input.try_enqueue(b"y"))

    def test_arena_full_and_wrap_offsets(self):
        q, peer, region = make(depth=8, ia=128)
        a0 = q.layout.input_arena_offset
        self.assertTrue(q.input.try_enqueue(b"a" * 48))    # [0,48)
        self.assertTrue(q.input.try_enqueue(b"b" * 48))    # [48,96)
        self.assertFalse(q.input.try_enqueue(b"c" * 48))   # needs skip to 0: no room
        self.assertTrue(q.live)
        self.assertEqual(peer.try_peek()[1], b"a" * 48)
        peer.release()
        self.assertTrue(q.input.try_enqueue(b"c" * 48))    # placed at arena start
        self.assertEqual(struct.unpack("<QQQQ", region.payload[64:96]), (3, 1, a0, 48))
        # d would go to [48,80), still owned by b: refused (arena full, not poison)
        self.assertFalse(q.input.try_enqueue(b"d" * 32))
        self.assertEqual(peer.try_peek()[1], b"b" * 48)
        peer.release()
        self.assertTrue(q.input.try_enqueue(b"d" * 32))
        self.assertEqual(struct.unpack("<QQQQ", region.payload[96:128]), (4, 1, a0 + 48, 32))
        # e fits [80,128) physically, but the room bound counts the skipped tail of the
        # previous lap (cursor 256 - released 96 > 128): refused until c is released
        self.assertFalse(q.input.try_enqueue(b"e" * 48))
        self.assertEqual(peer.try_peek()[1], b"c" * 48)
        peer.release()
        self.assertTrue(q.input.try_enqueue(b"e" * 48))    # [80,128) exactly to the end
        self.assertEqual(struct.unpack("<QQQQ", region.payload[128:160]), (5, 1, a0 + 80, 48))
        self.assertTrue(q.input.try_enqueue(b"f" * 48))    # wraps to [0,48)
        self.assertEqual(struct.unpack("<QQQQ", region.payload[160:192]), (6, 1, a0, 48))
        self.assertFalse(q.input.try_enqueue(b"g"))        # d still owns [48,80)
        for expect in (b"d" * 32, b"e" * 48, b"f" * 48):
            self.assertEqual(peer.try_peek()[1], expect)
            peer.release()
        self.assertTrue(q.live)

    def test_idle_arena_liveness(self):
        q, peer, region = make(depth=4, ia=128)
        self.assertTrue(q.input.try_enqueue(b"x" * 100))
        peer.try_peek()
        peer.release()
        # idle arena, cursor at 100: a full-arena message must still be placeable
        self.assertTrue(q.input.try_enqueue(b"y" * 128))
        opc, data = peer.try_peek()
        self.assertEqual(data, b"y" * 128)
        peer.release()
        self.assertTrue(q.input.try_enqueue(b"z" * 10))
        self.assertEqual(peer.try_peek()[1], b"z" * 10)

    def test_threaded_stream_wraps_everything(self):
        q, peer, region = make(depth=4, ia=192, oa=128)
        rng = random.Random(7)
        msgs = [bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 17, 63, 64, 100])))
                for _ in range(400)]
        res = {}
        t = threading.Thread(target=lambda: res.setdefault("in", echo_server(peer)))
        t.start()
        got = []
        buf = bytearray(256)
        pending = list(msgs)
        try:
            while len(got) < len(msgs):
                if pending and q.input.try_enqueue(pending[0]):
                    pending.pop(0)
                    continue
                m = q.output.peek(timeout=2.0) if not pending else q.output.try_peek()
                if m is None:
                    if not pending:
                        self.fail("no output")
                    # short blocking enqueue: L2 may be waiting for output room
                    if q.input.enqueue(pending[0], timeout=0.005):
                        pending.pop(0)
                    continue
                n = q.output.read_into(m, buf)
                got.append(bytes(buf[:n]))
                q.output.release(m)
            self.assertTrue(q.request_stop(timeout=2.0))
        finally:
            t.join(10)
        self.assertEqual(got, [m[::-1] for m in msgs])
        self.assertEqual(res["in"], msgs)
        self.assertTrue(q.live)
        self.assertEqual(region.get_counter(s.INITIATOR_ABORT_OFFSET), 0)
        lay = q.layout
        self.assertGreater(q._in_cursor, 3 * lay.input_arena_bytes)
        self.assertGreater(q._out_cursor, 3 * lay.output_arena_bytes)

    def test_32bit_counter_wrap(self):
        q, peer, region = make(depth=4, ia=128, oa=128)
        start = (1 << 32) - 3
        # simulate a long-running session: both sides at logical count `start`
        q._in_tail = q._in_head = start
        q._out_tail = q._out_head = start
        peer.in_head = peer.in_tail = start
        peer.out_head = peer.out_tail = start
        for off in (0, 64, 128, 192):
            region.set_counter(off, start)

        def seqs_ok(peer_, idx):
            return idx + 1

        # the slot of index start is start % 4 == 1; the seq carried must be index+1
        for i in range(10):
            self.assertTrue(q.input.try_enqueue(bytes([i]) * 40))
            slot = ((start + i) % 4) * 32
            self.assertEqual(struct.unpack("<Q", region.payload[slot:slot + 8])[0],
                             start + i + 1)
            self.assertEqual(peer.try_peek()[1], bytes([i]) * 40)
            peer.release()
            self.assertTrue(peer.try_publish(bytes([i]) * 30))
            m = q.output.try_dequeue_into(bytearray(30))
            self.assertEqual(m.seq, start + i + 1)
        self.assertEqual(region.get_counter(0), s.counter_low32(start + 10))
        self.assertEqual(region.get_counter(192), s.counter_low32(start + 10))
        self.assertTrue(q.live)


class TestTimeoutsAndStop(Base):
    def test_blocking_timeouts_are_not_poison(self):
        q, peer, region = make(depth=1, ia=64, oa=64)
        self.assertTrue(q.input.try_enqueue(b"a"))
        t0 = time.monotonic()
        self.assertFalse(q.input.enqueue(b"b", timeout=0.05))
        self.assertGreaterEqual(time.monotonic() - t0, 0.045)
        self.assertIsNone(q.output.peek(timeout=0.05))
        self.assertIsNone(q.output.dequeue_into(bytearray(4), timeout=0.02))
        self.assertFalse(q.request_stop(timeout=0.02))
        self.assertTrue(q.live)
        self.assertEqual(region.get_counter(s.INITIATOR_ABORT_OFFSET), 0)

    def test_blocking_wakes_on_progress(self):
        q, peer, region = make(depth=1, ia=64, oa=64)
        self.assertTrue(q.input.try_enqueue(b"a"))

        def l2():
            time.sleep(0.05)
            peer.try_peek()
            peer.release()
            time.sleep(0.05)
            peer.try_publish(b"reply")
        t = threading.Thread(target=l2)
        t.start()
        self.assertTrue(q.input.enqueue(b"b", timeout=5.0))
        buf = bytearray(5)
        m = q.output.dequeue_into(buf, timeout=5.0)
        t.join()
        self.assertEqual((bytes(buf), m.opcode), (b"reply", s.Opcode.DATA))

    def test_clock_read_at_call_time(self):
        q, peer, region = make()
        region.instant_waits = True
        ticks = iter(range(0, 10 ** 15, 10 ** 9))
        with mock.patch("time.monotonic_ns", side_effect=lambda: next(ticks)) as clk:
            t0 = time.perf_counter()
            self.assertIsNone(q.output.peek(timeout=3600.0))
            self.assertLess(time.perf_counter() - t0, 1.0)
            self.assertGreater(clk.call_count, 0)
        self.assertTrue(q.live)

    def test_stop(self):
        q, peer, region = make(depth=4)
        self.assertTrue(q.input.try_enqueue(b"last"))
        self.assertTrue(q.request_stop(timeout=1.0))
        self.assertTrue(q.input.stopped)
        self.assertTrue(q.try_request_stop())       # idempotent
        with self.assertRaises(ValueError):
            q.input.try_enqueue(b"more")
        with self.assertRaises(ValueError):
            q.input.enqueue(None, 0, timeout=1.0)
        self.assertTrue(q.live)
        self.assertEqual(struct.unpack("<QQQQ", region.payload[32:64]), (2, 2, 0, 0))
        self.assertEqual(peer.try_peek(), (s.Opcode.DATA, b"last"))
        peer.release()
        self.assertTrue(peer.try_publish(b"answer"))
        self.assertEqual(peer.try_peek(), (s.Opcode.STOP, b""))
        peer.release()
        # outputs published before L2 returns are still dequeued after STOP
        buf = bytearray(6)
        self.assertEqual(q.output.dequeue_into(buf, timeout=1.0).nbytes, 6)
        self.assertEqual(bytes(buf), b"answer")

    def test_stop_waits_for_ring_room(self):
        q, peer, region = make(depth=2)
        q.input.try_enqueue(b"1")
        q.input.try_enqueue(b"2")
        self.assertFalse(q.try_request_stop())
        self.assertFalse(q.input.stopped)
        threading.Timer(0.05, lambda: (peer.try_peek(), peer.release())).start()
        self.assertTrue(q.request_stop(timeout=5.0))
        self.assertTrue(q.input.stopped)


class TestPoison(Base):
    def _hostile(self, write, op=s.Op.INPUT_TRY_PEEK, kind=s.ErrorKind.INVALID_DESCRIPTOR,
                 **kw):
        q, peer, region = make(**kw)
        write(q, peer, region)
        nreads = len(region.reads)
        with self.assertRaises(s.SpsqError) as cm:
            q.output.try_peek()
        e = cm.exception
        self.assertEqual((e.kind, e.op, e.terminal), (kind, op, True))
        self.assertEqual((e.transaction_id, e.session_instance_id_bits), (0x77, 0x1234))
        self.assertLessEqual(len(e.message.encode()), 255)
        self.assertPoisoned(q, region, kind, op)
        lay = q.layout
        for off, n in region.reads[nreads:]:   # only the output ring/arena was read
            self.assertTrue(lay.output_desc_offset <= off and
                            off + n <= lay.payload_bytes)
        return q, peer, region

    def test_seq_mismatch(self):
        self._hostile(lambda q, p, r: p.publish_raw(2, s.Opcode.DATA, 0, 0))
        self._hostile(lambda q, p, r: p.publish_raw(0, s.Opcode.DATA, 0, 0))

    def test_bad_opcodes(self):
        for opc in (s.Opcode.STOP, s.Opcode.INVALID, 4, 1 << 63):
            self._hostile(lambda q, p, r: p.publish_raw(1, opc, 0, 0))

    def test_payload_outside_arena(self):
        def w(off, n):
            return lambda q, p, r: p.publish_raw(1, s.Opcode.DATA, off, n)
        lay = s.compute_layout(4, 128, 128)
        for off, n in [(lay.input_arena_offset, 8), (0, 8), (lay.output_arena_offset, 129),
                       (lay.output_arena_offset + 120, 16), ((1 << 64) - 8, 8),
                       (lay.output_arena_offset, (1 << 64) - 1),
                       (lay.payload_bytes, 1)]:
            self._hostile(w(off, n))

    def test_payload_replay(self):
        lay = s.compute_layout(4, 128, 128)
        self._hostile(lambda q, p, r: p.publish_raw(1, s.Opcode.DATA,
                                                    lay.output_arena_offset + 64, 8))

        def second_wrong(q, p, r):
            p.try_publish(b"x" * 8)
            q.output.try_dequeue_into(bytearray(8))
            p.publish_raw(2, s.Opcode.DATA, lay.output_arena_offset, 8)  # must be +8
        self._hostile(second_wrong)

        def zero_byte_offset(q, p, r):
            p.publish_raw(1, s.Opcode.ERROR, lay.output_arena_offset, 0)
        self._hostile(zero_byte_offset)

    def test_impossible_tail(self):
        self._hostile(lambda q, p, r: r.set_counter(s.OUTPUT_DESC_TAIL_OFFSET, 5))   # > depth
        self._hostile(lambda q, p, r: r.set_counter(s.OUTPUT_DESC_TAIL_OFFSET, -1))  # backwards
        self._hostile(lambda q, p, r: r.set_counter(s.OUTPUT_DESC_TAIL_OFFSET, 1 << 31))

    def test_impossible_input_head(self):
        q, peer, region = make(depth=2)
        q.input.try_enqueue(b"a")
        q.input.try_enqueue(b"b")
        region.set_counter(s.INPUT_DESC_HEAD_OFFSET, 3)   # head beyond tail
        with self.assertRaises(s.SpsqError) as cm:
            q.input.try_enqueue(b"c")
        self.assertEqual(cm.exception.op, s.Op.OUTPUT_TRY_RESERVE)
        self.assertPoisoned(q, region, s.ErrorKind.INVALID_DESCRIPTOR)

    def test_ownership(self):
        q, peer, region = make()
        peer.try_publish(b"one")
        peer.try_publish(b"two")
        m1 = q.output.try_peek()
        q.output.release(m1)
        m2 = q.output.try_peek()
        with self.assertRaises(s.SpsqError) as cm:
            q.output.release(m1)                         # stale handle
        self.assertEqual(cm.exception.kind, s.ErrorKind.OWNERSHIP)
        self.assertEqual(cm.exception.op, s.Op.INPUT_RELEASE)
        self.assertPoisoned(q, region, s.ErrorKind.OWNERSHIP)
        self.assertFalse(m2.released)

    def test_foreign_handle(self):
        q, peer, region = make()
        q2, peer2, region2 = make()
        peer.try_publish(b"a")
        peer2.try_publish(b"b")
        q.output.try_peek()
        foreign = q2.output.try_peek()
        with self.assertRaises(s.SpsqError) as cm:
            q.output.read_into(foreign, bytearray(4))
        self.assertEqual(cm.exception.kind, s.ErrorKind.OWNERSHIP)
        self.assertFalse(q.live)
        self.assertTrue(q2.live)

    def test_region_failures(self):
        # a failed read before any shared mutation: non-terminal
        q, peer, region = make()
        region.fail["test"] = {s.OUTPUT_DESC_TAIL_OFFSET}
        with self.assertRaises(s.SpsqError) as cm:
            q.output.try_peek()
        self.assertFalse(cm.exception.terminal)
        self.assertEqual(cm.exception.kind, s.ErrorKind.ENDPOINT_ERROR)
        self.assertTrue(q.live)
        region.fail.clear()
        self.assertIsNone(q.output.try_peek())
        # payload write failure after mutation begins: poison
        region.fail["payload_write"] = True
        with self.assertRaises(s.SpsqError) as cm:
            q.input.try_enqueue(b"x")
        self.assertEqual((cm.exception.kind, cm.exception.op),
                         (s.ErrorKind.ENDPOINT_ERROR, s.Op.OUTPUT_PUBLISH))
        region.fail.clear()
        self.assertPoisoned(q, region, s.ErrorKind.ENDPOINT_ERROR)
        # counter notify failure on release: poison
        q, peer, region = make()
        peer.try_publish(b"x")
        m = q.output.try_peek()
        region.fail["notify"] = {s.OUTPUT_DESC_HEAD_OFFSET}
        with self.assertRaises(s.SpsqError) as cm:
            q.output.release(m)
        self.assertEqual((cm.exception.kind, cm.exception.op),
                         (s.ErrorKind.ENDPOINT_ERROR, s.Op.INPUT_RELEASE))
        region.fail.clear()
        self.assertPoisoned(q, region, s.ErrorKind.ENDPOINT_ERROR)

    def test_peer_sees_local_abort(self):
        q, peer, region = self._hostile(lambda q, p, r: p.publish_raw(9, s.Opcode.DATA, 0, 0))
        self.assertEqual(region.get_counter(s.PEER_ABORT_OFFSET), 0)  # never written by L3
        self.assertNotIn(s.PEER_ABORT_OFFSET, [w[0] for w in region.counter_writes])
        self.assertIn((s.INITIATOR_ABORT_OFFSET, 1, 0), region.counter_writes)


class TestRemoteAbort(Base):
    def test_remote_abort_after_wait_expires(self):
        q, peer, region = make(depth=1, ia=64)
        peer.abort()
        # try_* do not sample the peer flag
        self.assertIsNone(q.output.try_peek())
        self.assertTrue(q.input.try_enqueue(b"a"))
        self.assertFalse(q.input.try_enqueue(b"b"))
        self.assertTrue(q.live)
        with self.assertRaises(s.SpsqRemoteAbort) as cm:
            q.output.peek(timeout=0.02)
        e = cm.exception
        self.assertEqual((e.kind, e.op, e.terminal), (s.ErrorKind.REMOTE_ABORTED, s.Op.TIMEOUT,
                                                      True))
        self.assertFalse(q.live)
        self.assertEqual(q.error.kind, s.ErrorKind.REMOTE_ABORTED)
        self.assertEqual(region.get_counter(s.INITIATOR_ABORT_OFFSET), 0)  # not set locally
        with self.assertRaises(s.SpsqError):
            q.input.try_enqueue(b"x")
        q.free()

    def test_remote_abort_on_enqueue_and_stop(self):
        for call in (lambda q: q.input.enqueue(b"b", timeout=0.02),
                     lambda q: q.request_stop(0.02)):
            q, peer, region = make(depth=1, ia=64)
            q.input.try_enqueue(b"a")
            region.set_counter(s.PEER_ABORT_OFFSET, 7)       # any value >= 1
            with self.assertRaises(s.SpsqRemoteAbort):
                call(q)
            self.assertEqual(region.get_counter(s.INITIATOR_ABORT_OFFSET), 0)

    def test_negative_flag_is_not_abort(self):
        q, peer, region = make()
        region.set_counter(s.PEER_ABORT_OFFSET, -1)
        self.assertIsNone(q.output.peek(timeout=0.02))
        self.assertTrue(q.live)

    def test_available_output_wins_over_abort(self):
        q, peer, region = make()
        peer.try_publish(b"x")
        peer.abort()
        self.assertIsNotNone(q.output.peek(timeout=0.02))


class TestHostileFuzz(Base):
    def test_random_peer_garbage(self):
        rng = random.Random(1234)
        for trial in range(300):
            q, peer, region = make(depth=rng.choice([1, 2, 4]), ia=64 * rng.randint(1, 3),
                                   oa=64 * rng.randint(1, 3))
            lay = q.layout
            # a few honest outputs first, sometimes
            for _ in range(rng.randint(0, 2)):
                if peer.try_publish(bytes(rng.randint(0, 64))):
                    m = q.output.try_peek()
                    q.output.try_dequeue_into(bytearray(256))
            # then garbage in the peer-owned parts
            for _ in range(rng.randint(1, 4)):
                off = rng.randrange(lay.output_desc_offset, lay.input_arena_offset - 7, 8)
                region.payload[off:off + 8] = rng.getrandbits(64).to_bytes(8, "little")
            region.set_counter(rng.choice([s.OUTPUT_DESC_TAIL_OFFSET, s.INPUT_DESC_HEAD_OFFSET]),
                               rng.getrandbits(32))
            start = len(region.reads)
            try:
                for _ in range(6):
                    q.input.try_enqueue(bytes(rng.randint(0, 64)))
                    m = q.output.try_peek()
                    if m is not None:
                        q.output.read_into(m, bytearray(m.nbytes))
                        q.output.release(m)
            except s.SpsqError as e:
                self.assertTrue(e.terminal)
                self.assertIn(e.kind, (s.ErrorKind.INVALID_DESCRIPTOR,))
                self.assertFalse(q.live)
                self.assertEqual(region.get_counter(s.INITIATOR_ABORT_OFFSET), 1)
            for off, n in region.reads[start:]:
                self.assertTrue(lay.output_desc_offset <= off and
                                off + n <= lay.input_arena_offset or
                                lay.output_arena_offset <= off and
                                off + n <= lay.payload_bytes, (off, n))


class TestConfinement(Base):
    def test_l3_writes_only_its_own_parts(self):
        q, peer, region = make(depth=4, ia=128, oa=128)
        l3_writes = []
        orig = region.payload_write

        def spy(off, data):
            if threading.current_thread() is main:
                l3_writes.append((off, len(bytes(data))))
            return orig(off, data)
        main = threading.current_thread()
        region.payload_write = spy
        t = threading.Thread(target=echo_server, args=(peer,))
        t.start()
        for i in range(50):
            self.assertTrue(q.input.enqueue(bytes([i]) * (i % 70), timeout=2.0))
            q.output.dequeue_into(bytearray(128), timeout=2.0)
        q.request_stop(2.0)
        t.join(5)
        region.writes_by_l3 = l3_writes
        self.assertAccessesConfined(q, region)
        l3_counters = {w[0] for w in region.counter_writes}
        # peer writes 64 and 128; L3 only 0 and 192 (and 256 on poison)
        self.assertTrue({0, 192} <= l3_counters)


if __name__ == "__main__":
    unittest.main()
