"""Spec section 3's Python rules: blocking calls need a finite positive
timeout, try_* calls report no-progress as False / None, a plain timeout is
a TimeoutError and not poison, and a blocked call lets go of the GIL.

Timeouts run on the module's virtual clock (each reading advances it 1 ms),
so nothing here waits on wall time."""

import math
import threading
import unittest

import spsq
from spsq_testing import (LIVE_TIMEOUT_S, counter, main, new_queue, spsq_clauses,
                          start_l2)

STEP = spsq.VIRTUAL_CLOCK_STEP_NS


def blocking_calls(queue):
    """Every blocking call, as a function of its timeout."""
    return {
        "enqueue": lambda t: queue.input.enqueue(b"x", timeout=t),
        "request_stop": lambda t: queue.request_stop(timeout=t),
        "input.request_stop": lambda t: queue.input.request_stop(timeout=t),
        "peek": lambda t: queue.output.peek(timeout=t),
        "dequeue_into": lambda t: queue.output.dequeue_into(bytearray(8), timeout=t),
    }


class TimeoutArgument(unittest.TestCase):
    def setUp(self):
        self.orch = spsq.Orchestrator(clock="virtual")
        self.queue = new_queue(self.orch)

    @spsq_clauses("S3.PYTO.1")
    def test_non_positive_or_non_finite_timeouts_raise_value_error(self):
        bad = [0, 0.0, -0.0, -1, -0.5, -(1 << 70), None, math.nan, math.inf, -math.inf]
        for name, call in blocking_calls(self.queue).items():
            for timeout in bad:
                with self.subTest(call=name, timeout=timeout):
                    before = spsq.virtual_clock_ns()
                    with self.assertRaises(ValueError) as cm:
                        call(timeout)
                    # An argument error, not a queue outcome...
                    self.assertNotIsInstance(cm.exception, spsq.SpsqError)
                    self.assertIn(name.split(".")[-1], str(cm.exception))
                    # ...raised before the queue was touched: no clock reading.
                    self.assertEqual(spsq.virtual_clock_ns(), before)
        with self.assertRaises(ValueError) as cm:
            self.queue.output.peek()  # omitted is None
        self.assertIn("got None", str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            self.queue.output.peek(timeout=math.nan)
        self.assertIn("NaN", str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            self.queue.output.peek(timeout=math.inf)
        self.assertIn("infinite", str(cm.exception))
        # Nothing was published and the queue is untouched.
        self.assertEqual(counter(self.queue, "input_desc_tail"), 0)
        self.assertFalse(self.queue.input.stop_published)
        self.assertTrue(self.queue.live)

    @spsq_clauses("S3.PYTO.1")
    def test_non_numeric_timeouts_raise_type_error(self):
        for timeout in ("1", b"1", True, [1], object()):
            with self.subTest(timeout=timeout):
                with self.assertRaises(TypeError) as cm:
                    self.queue.output.peek(timeout=timeout)
                self.assertIn("timeout must be a number of seconds", str(cm.exception))

    @spsq_clauses("S3.PYTO.1")
    def test_any_finite_positive_timeout_is_accepted(self):
        # A sub-nanosecond timeout still waits (rounded up), and expires.
        with self.assertRaises(spsq.QueueTimeoutError):
            self.queue.output.peek(timeout=1e-12)
        # Huge but finite timeouts are fine when there is room at once.
        self.queue.input.enqueue(b"a", timeout=1e300)
        self.queue.input.enqueue(b"b", timeout=1 << 80)
        self.queue.input.enqueue(b"c", timeout=3)
        self.assertEqual(counter(self.queue, "input_desc_tail"), 3)


class PlainTimeout(unittest.TestCase):
    def setUp(self):
        self.orch = spsq.Orchestrator(clock="virtual")

    @spsq_clauses("S4.NOPROG.3", "S4.NOPROG.4", "S3.TO.6")
    def test_peek_timeout_is_a_timeout_error_and_not_poison(self):
        queue = new_queue(self.orch)
        before = spsq.virtual_clock_ns()
        with self.assertRaises(spsq.QueueTimeoutError) as cm:
            queue.output.peek(timeout=0.25)
        waited = spsq.virtual_clock_ns() - before
        # The call waited out its own timeout, in seconds, and no longer.
        self.assertGreaterEqual(waited, 250_000_000)
        self.assertLess(waited, 250_000_000 + 20 * STEP)
        e = cm.exception
        self.assertIsInstance(e, TimeoutError)
        self.assertNotIsInstance(e, spsq.PoisonedError)
        self.assertEqual(e.kind, spsq.ErrorKind.NONE)
        self.assertEqual(e.operation, spsq.Operation.L3_OUTPUT_PEEK)
        self.assertIn("timed out", str(e))
        self.assertTrue(queue.live)
        self.assertEqual(counter(queue, "initiator_abort_flag"), 0)
        # Still fully usable.
        queue.input.enqueue(b"after", timeout=1.0)
        self.assertIsNone(queue.output.try_peek())
        self.assertEqual(counter(queue, "input_desc_tail"), 1)

    @spsq_clauses("S4.NOPROG.1", "S4.NOPROG.4", "S3.TO.6")
    def test_enqueue_and_stop_time_out_on_a_full_ring(self):
        queue = new_queue(self.orch, depth=2)
        self.assertTrue(queue.input.try_enqueue(b"1"))
        self.assertTrue(queue.input.try_enqueue(b"2"))
        for name, call, op in (
                ("enqueue", lambda: queue.input.enqueue(b"3", timeout=0.5),
                 spsq.Operation.L3_ENQUEUE),
                ("request_stop", lambda: queue.input.request_stop(timeout=0.5),
                 spsq.Operation.L3_REQUEST_STOP)):
            with self.subTest(call=name):
                before = spsq.virtual_clock_ns()
                with self.assertRaises(spsq.QueueTimeoutError) as cm:
                    call()
                self.assertGreaterEqual(spsq.virtual_clock_ns() - before, 500_000_000)
                self.assertEqual(cm.exception.operation, op)
                self.assertTrue(queue.live)
        self.assertFalse(queue.input.stop_published)
        self.assertEqual(counter(queue, "input_desc_tail"), 2)
        self.assertEqual(counter(queue, "initiator_abort_flag"), 0)

    @spsq_clauses("S4.NOPROG.3", "S4.NOPROG.4")
    def test_dequeue_into_times_out_without_output(self):
        queue = new_queue(self.orch)
        target = bytearray(b"\xaa" * 8)
        with self.assertRaises(spsq.QueueTimeoutError) as cm:
            queue.output.dequeue_into(target, timeout=0.1)
        self.assertEqual(cm.exception.operation, spsq.Operation.L3_OUTPUT_PEEK)
        self.assertEqual(target, bytearray(b"\xaa" * 8))
        self.assertTrue(queue.live)


class TryCalls(unittest.TestCase):
    def setUp(self):
        self.orch = spsq.Orchestrator(clock="virtual")

    @spsq_clauses("S3.PYTO.2", "S1.TRYPEEK.1", "S4.NOPROG.3")
    def test_try_peek_and_try_dequeue_into_return_none_without_output(self):
        queue = new_queue(self.orch)
        before = spsq.virtual_clock_ns()
        for _ in range(3):
            self.assertIsNone(queue.output.try_peek())
            target = bytearray(b"\x55" * 4)
            self.assertIsNone(queue.output.try_dequeue_into(target))
            self.assertEqual(target, bytearray(b"\x55" * 4))
        self.assertEqual(spsq.virtual_clock_ns(), before)  # never waited
        self.assertTrue(queue.live)
        self.assertEqual(counter(queue, "output_desc_head"), 0)

    @spsq_clauses("S3.PYTO.2", "S1.TRYENQ.1", "S1.TRYENQ.3", "S4.NOPROG.1")
    def test_try_enqueue_is_false_when_the_ring_is_full_at_exactly_depth(self):
        for depth in (1, 2, 4, 16):
            with self.subTest(depth=depth):
                queue = new_queue(self.orch, depth=depth)
                for i in range(depth):
                    self.assertIs(queue.input.try_enqueue(bytes([i]) * 8), True)
                self.assertIs(queue.input.try_enqueue(b"one more"), False)
                self.assertIs(queue.input.try_enqueue(None, 0), False)
                self.assertIs(queue.input.try_request_stop(), False)
                self.assertIs(queue.try_request_stop(), False)
                self.assertTrue(queue.live)
                self.assertFalse(queue.input.stop_published)
                self.assertEqual(counter(queue, "input_desc_tail"), depth)
                self.assertEqual(counter(queue, "initiator_abort_flag"), 0)
                queue.free()

    @spsq_clauses("S3.PYTO.2", "S1.TRYENQ.2", "S1.TRYENQ.3", "S4.NOPROG.2")
    def test_try_enqueue_is_false_when_the_arena_is_full(self):
        queue = new_queue(self.orch, depth=8, input_arena_bytes=128)
        self.assertIs(queue.input.try_enqueue(bytes(64)), True)
        self.assertIs(queue.input.try_enqueue(bytes(64)), True)
        # The ring has room; the arena does not.
        self.assertIs(queue.input.try_enqueue(b"x"), False)
        self.assertTrue(queue.live)
        # A zero-byte message needs no arena space.
        self.assertIs(queue.input.try_enqueue(None, 0), True)
        self.assertEqual(counter(queue, "input_desc_tail"), 3)
        # A message larger than the whole arena is a usage error, not backpressure.
        with self.assertRaises(spsq.RejectedError) as cm:
            queue.input.try_enqueue(bytes(129))
        self.assertIn("exceeds the 128-byte input arena", str(cm.exception))
        self.assertTrue(queue.live)


class Gil(unittest.TestCase):
    def test_a_blocked_call_releases_the_gil(self):
        orch = spsq.Orchestrator()
        queue = new_queue(orch)
        gate = orch.create_worker_chip_region(worker_id=0, payload_bytes=64, counter_bytes=64)
        base, nbytes = gate.counter
        start_l2(orch, queue, "echo", base, nbytes)  # waits for the gate
        queue.input.enqueue(b"ping", timeout=LIVE_TIMEOUT_S)
        result = {}

        def consumer():
            try:
                result["message"] = queue.output.peek(timeout=LIVE_TIMEOUT_S)
            except BaseException as e:  # reported by the main thread
                result["error"] = e

        thread = threading.Thread(target=consumer)
        thread.start()
        # This loop runs only while the consumer's blocked peek has let go of
        # the GIL; if peek held it, the consumer would finish (timed out)
        # before this thread ran again.
        while spsq._blocked_calls() == 0 and thread.is_alive():
            pass
        self.assertTrue(thread.is_alive(), "peek returned while L2 was gated: %r" % result)
        gate.write_counter(0, 1)  # Python code running during the blocked call
        thread.join(LIVE_TIMEOUT_S + 10)
        self.assertFalse(thread.is_alive())
        self.assertNotIn("error", result)
        message = result["message"]
        self.assertEqual((message.seq, message.payload_nbytes), (1, 4))
        self.assertEqual(spsq._blocked_calls(), 0)
        reply = bytearray(4)
        self.assertEqual(queue.output.read_into(message, reply), 4)
        self.assertEqual(reply, bytearray(b"ping"))
        queue.output.release(message)
        queue.input.request_stop(timeout=LIVE_TIMEOUT_S)
        self.assertTrue(orch.worker(0).run().ok)


if __name__ == "__main__":
    main()
