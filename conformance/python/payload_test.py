"""Admitted payloads (spec section 1): a registered HOST buffer, or
contiguous host bytes / bytearray / memoryview; None with nbytes=0 for
zero-byte messages. Everything else is refused with an error naming the
problem, and nothing is read beyond the buffer a caller passed."""

import array
import unittest

import spsq
from spsq_testing import (LIVE_TIMEOUT_S, counter, main, new_queue, spsq_clauses,
                          start_l2)


class EchoCase(unittest.TestCase):
    """A queue with the echo L2 running; stopped and drained after each test."""

    def setUp(self):
        self.orch = spsq.Orchestrator()
        self.queue = new_queue(self.orch, depth=4, input_arena_bytes=1 << 14,
                               output_arena_bytes=1 << 14)
        start_l2(self.orch, self.queue, "echo")

    def tearDown(self):
        if self.queue.live and not self.queue.input.stop_published:
            self.queue.input.request_stop(timeout=LIVE_TIMEOUT_S)
        while self.queue.live and self.queue.output.try_dequeue_into(bytearray(1 << 14)):
            pass
        report = self.orch.worker(0).run()
        self.assertTrue(report.ok, report.first_failure)

    def echo(self, payload, nbytes=None, target=None):
        """Sends `payload`, returns (message, received bytes)."""
        self.queue.input.enqueue(payload, nbytes=nbytes, timeout=LIVE_TIMEOUT_S)
        target = bytearray(1 << 14) if target is None else target
        message = self.queue.output.dequeue_into(target, timeout=LIVE_TIMEOUT_S)
        return message, bytes(memoryview(target).cast("B")[:message.payload_nbytes])


class Admitted(EchoCase):
    @spsq_clauses("S1.PAYLOAD.1")
    def test_admitted_sources_arrive_byte_exact(self):
        data = bytes((i * 37 + 11) % 256 for i in range(96))
        words = array.array("I", range(10))
        sources = [
            ("bytes", data, data),
            ("bytearray", bytearray(data), data),
            ("memoryview of bytes", memoryview(data), data),
            ("read-only memoryview", memoryview(bytearray(data)).toreadonly(), data),
            ("sliced memoryview", memoryview(b"xx" + data + b"yy")[2:-2], data),
            ("2-d C-contiguous memoryview", memoryview(data).cast("B", (12, 8)), data),
            ("memoryview of an int array", memoryview(words), words.tobytes()),
            ("HostBuffer", spsq.HostBuffer(data), data),
        ]
        for name, source, want in sources:
            with self.subTest(source=name):
                message, got = self.echo(source)
                self.assertEqual(message.payload_nbytes, len(want))
                self.assertEqual(got, want)

    @spsq_clauses("S1.PAYLOAD.1")
    def test_admitted_targets_receive_the_payload(self):
        data = b"target bytes " * 5
        targets = [
            ("bytearray", bytearray(100)),
            ("writable memoryview", memoryview(bytearray(100))),
            ("HostBuffer", spsq.HostBuffer(100)),
            ("2-d writable memoryview", memoryview(bytearray(100)).cast("B", (10, 10))),
        ]
        for name, target in targets:
            with self.subTest(target=name):
                message, got = self.echo(data, target=target)
                self.assertEqual(got, data)
                # Bytes past the message are left as they were.
                self.assertEqual(bytes(memoryview(target).cast("B")[len(data):]),
                                 bytes(100 - len(data)))

    def test_host_buffer(self):
        b = spsq.HostBuffer(100)
        self.assertEqual((b.nbytes, len(b), b.kind), (100, 100, "HOST"))
        self.assertEqual(bytes(b), bytes(100))
        view = memoryview(b)
        self.assertFalse(view.readonly)
        self.assertEqual(view.nbytes, 100)
        view[3] = 7
        self.assertEqual(bytes(spsq.HostBuffer(bytes(b)))[3], 7)
        self.assertEqual(spsq.HostBuffer(0).nbytes, 0)
        with self.assertRaises(ValueError):
            spsq.HostBuffer(-1)
        with self.assertRaises(TypeError):
            spsq.HostBuffer("text")

    @spsq_clauses("S1.PAYLOAD.1")
    def test_nbytes_sends_a_prefix(self):
        message, got = self.echo(b"abcdefgh", nbytes=3)
        self.assertEqual((message.payload_nbytes, got), (3, b"abc"))
        message, got = self.echo(spsq.HostBuffer(b"0123456789"), nbytes=10)
        self.assertEqual(got, b"0123456789")


class ZeroByte(EchoCase):
    @spsq_clauses("S1.PAYLOAD.2")
    def test_zero_byte_messages_use_none_and_nbytes_zero(self):
        sends = [
            lambda: self.queue.input.enqueue(None, nbytes=0, timeout=LIVE_TIMEOUT_S),
            lambda: self.queue.input.enqueue(None, timeout=LIVE_TIMEOUT_S),
            lambda: self.queue.input.try_enqueue(None, 0),
            lambda: self.queue.input.enqueue(b"", timeout=LIVE_TIMEOUT_S),
            lambda: self.queue.input.enqueue(b"not sent", nbytes=0, timeout=LIVE_TIMEOUT_S),
        ]
        for i, send in enumerate(sends):
            with self.subTest(send=i):
                self.assertIn(send(), (None, True))
                message = self.queue.output.peek(timeout=LIVE_TIMEOUT_S)
                self.assertEqual(message.seq, i + 1)
                self.assertEqual((message.payload_nbytes, message.payload_offset), (0, 0))
                self.assertEqual(self.queue.output.read_into(message, None), 0)
                self.queue.output.release(message)
        # dequeue_into takes None for a zero-byte message too.
        self.queue.input.enqueue(None, nbytes=0, timeout=LIVE_TIMEOUT_S)
        message = self.queue.output.dequeue_into(None, timeout=LIVE_TIMEOUT_S)
        self.assertEqual((message.seq, message.payload_nbytes), (6, 0))
        # They took no arena space: the next payload starts each arena.
        message, got = self.echo(b"first bytes")
        self.assertEqual(message.payload_offset, self.queue.layout.output_arena_offset)
        self.assertEqual(got, b"first bytes")

    @spsq_clauses("S1.PAYLOAD.2")
    def test_none_carries_only_zero_bytes(self):
        with self.assertRaises(ValueError) as cm:
            self.queue.input.enqueue(None, nbytes=1, timeout=LIVE_TIMEOUT_S)
        self.assertIn("nbytes=1 with buffer None", str(cm.exception))
        self.queue.input.enqueue(b"four", timeout=LIVE_TIMEOUT_S)
        message = self.queue.output.peek(timeout=LIVE_TIMEOUT_S)
        # None cannot receive a 4-byte message: refused, the message stays.
        with self.assertRaises(spsq.RejectedError) as cm:
            self.queue.output.read_into(message, None)
        self.assertIn("cannot hold the 4-byte message", str(cm.exception))
        self.assertEqual(self.queue.output.try_peek(), message)
        self.assertTrue(self.queue.live)
        self.queue.output.release(message)


class Refused(unittest.TestCase):
    def setUp(self):
        self.orch = spsq.Orchestrator(clock="virtual")
        self.queue = new_queue(self.orch)

    @spsq_clauses("S1.PAYLOAD.1")
    def test_other_objects_are_refused_by_name(self):
        cases = [
            ("text", TypeError, "a str is not a payload; encode it to bytes first"),
            ([1, 2, 3], TypeError, "not list"),
            (42, TypeError, "not int"),
            (3.5, TypeError, "not float"),
            (array.array("B", b"ab"), TypeError, "not array.array"),
            (object(), TypeError, "not object"),
            (memoryview(b"abcdefgh")[::2], ValueError, "memoryview is not C-contiguous"),
            (memoryview(bytearray(16))[1::3], ValueError, "memoryview is not C-contiguous"),
        ]
        for obj, exc, text in cases:
            for name, call in (("enqueue", lambda o: self.queue.input.enqueue(o, timeout=1.0)),
                               ("try_enqueue", lambda o: self.queue.input.try_enqueue(o))):
                with self.subTest(payload=repr(obj)[:40], call=name):
                    with self.assertRaises(exc) as cm:
                        call(obj)
                    self.assertIn(text, str(cm.exception))
                    self.assertIn(name, str(cm.exception))
        self.assertEqual(counter(self.queue, "input_desc_tail"), 0)
        self.assertTrue(self.queue.live)

    @spsq_clauses("S1.PAYLOAD.1")
    def test_nbytes_beyond_the_buffer_is_refused(self):
        for source in (b"abcd", bytearray(4), memoryview(b"abcdefgh")[:4], spsq.HostBuffer(4)):
            with self.subTest(source=type(source).__name__):
                with self.assertRaises(ValueError) as cm:
                    self.queue.input.enqueue(source, nbytes=5, timeout=1.0)
                self.assertIn("nbytes=5 exceeds the 4-byte buffer", str(cm.exception))
                with self.assertRaises(ValueError):
                    self.queue.input.try_enqueue(source, 5)
        with self.assertRaises(ValueError) as cm:
            self.queue.input.try_enqueue(b"abcd", -1)
        self.assertIn("nbytes must be non-negative", str(cm.exception))
        with self.assertRaises(TypeError):
            self.queue.input.try_enqueue(b"abcd", "2")
        self.assertEqual(counter(self.queue, "input_desc_tail"), 0)
        self.assertTrue(self.queue.live)


class Targets(EchoCase):
    @spsq_clauses("S1.PAYLOAD.1")
    def test_read_only_and_foreign_targets_are_refused(self):
        self.queue.input.enqueue(b"payload", timeout=LIVE_TIMEOUT_S)
        message = self.queue.output.peek(timeout=LIVE_TIMEOUT_S)
        cases = [
            (bytes(8), TypeError, "bytes, which is read-only"),
            (memoryview(bytearray(8)).toreadonly(), TypeError, "is read-only"),
            (memoryview(b"12345678"), TypeError, "is read-only"),
            ("12345678", TypeError, "a str is not a payload"),
            (array.array("B", bytes(8)), TypeError, "not array.array"),
            (memoryview(bytearray(16))[::2], ValueError, "not C-contiguous"),
        ]
        for target, exc, text in cases:
            with self.subTest(target=repr(target)[:40]):
                with self.assertRaises(exc) as cm:
                    self.queue.output.read_into(message, target)
                self.assertIn(text, str(cm.exception))
                with self.assertRaises(exc):
                    self.queue.output.dequeue_into(target, timeout=LIVE_TIMEOUT_S)
                with self.assertRaises(exc):
                    self.queue.output.try_dequeue_into(target)
        with self.assertRaises(TypeError) as cm:
            self.queue.output.read_into("not a message", bytearray(8))
        self.assertIn("expected a spsq.Message", str(cm.exception))
        # The message is still the active one, intact.
        self.assertEqual(self.queue.output.try_peek(), message)
        target = bytearray(8)
        self.assertEqual(self.queue.output.read_into(message, target), 7)
        self.assertEqual(target, bytearray(b"payload\x00"))
        self.queue.output.release(message)
        self.assertTrue(self.queue.live)

    @spsq_clauses("S1.PAYLOAD.1")
    def test_a_target_too_small_is_refused_without_a_partial_copy(self):
        self.queue.input.enqueue(bytes(range(16)), timeout=LIVE_TIMEOUT_S)
        message = self.queue.output.peek(timeout=LIVE_TIMEOUT_S)
        small = bytearray(b"\xee" * 15)
        with self.assertRaises(spsq.RejectedError) as cm:
            self.queue.output.read_into(message, small)
        self.assertEqual(cm.exception.operation, spsq.Operation.L3_OUTPUT_READ)
        self.assertIn("buffer of 15 bytes cannot hold the 16-byte message", str(cm.exception))
        self.assertEqual(small, bytearray(b"\xee" * 15))
        with self.assertRaises(spsq.RejectedError):
            self.queue.output.dequeue_into(spsq.HostBuffer(8), timeout=LIVE_TIMEOUT_S)
        self.assertTrue(self.queue.live)
        self.assertEqual(counter(self.queue, "output_desc_head"), 0)
        big = bytearray(16)
        self.assertEqual(self.queue.output.read_into(message, big), 16)
        self.assertEqual(bytes(big), bytes(range(16)))
        self.queue.output.release(message)


if __name__ == "__main__":
    main()
