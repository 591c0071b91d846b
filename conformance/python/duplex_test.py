"""Traffic with live C++ L2 tasks: the duplex round trip in thread and
process mode, exact-depth capacity in both directions, STOP, ERROR delivery
and the output handle rules (spec sections 1, 2 and 4)."""

import random
import unittest

import spsq
from spsq_testing import (LIVE_TIMEOUT_S, counter, main, new_queue, spsq_clauses,
                          spsq_judging, start_l2)


def fill_pattern(k, nbytes):
    """Output k of the fill_output L2: byte i is (7 * k + i) mod 256."""
    return bytes((7 * k + i) % 256 for i in range(nbytes))


class Duplex(unittest.TestCase):
    @spsq_clauses("S1.PYIO.1", "S1.DEQ.1", "S4.OWN.1")
    def test_round_trip_in_thread_and_process_mode(self):
        for mode in ("thread", "process"):
            with self.subTest(mode=mode):
                self.round_trip(mode)

    def round_trip(self, mode):
        orch = spsq.Orchestrator(mode=mode)
        self.assertEqual(orch.mode, mode)
        queue = new_queue(orch, depth=4, input_arena_bytes=1 << 16, output_arena_bytes=1 << 16)
        start_l2(orch, queue, "echo")
        rng = random.Random(20240611)
        # At most four messages are in the system at once (three in flight
        # and one being sent), so 12000-byte payloads never fill a 64 KiB
        # arena even with a wrap skip: the echo cannot deadlock on space.
        sizes = [1, 7, 64, 0, 4096, 12000, 3, 0, 65, 11999] + [rng.randrange(0, 12001)
                                                              for _ in range(30)]
        payloads = [bytes(rng.randrange(256) for _ in range(n)) for n in sizes]
        received = []
        in_flight = 0

        def receive(long_form):
            target = bytearray(1 << 16)
            if long_form:
                m = queue.output.peek(timeout=LIVE_TIMEOUT_S)
                self.assertEqual(queue.output.read_into(m, target), m.payload_nbytes)
                queue.output.release(m)
            else:
                m = queue.output.dequeue_into(target, timeout=LIVE_TIMEOUT_S)
            received.append((m, bytes(target[:m.payload_nbytes])))

        for i, payload in enumerate(payloads):
            queue.input.enqueue(payload if payload else None, nbytes=len(payload),
                                timeout=LIVE_TIMEOUT_S)
            in_flight += 1
            if in_flight == 3:  # keep both directions busy
                receive(long_form=len(received) % 2 == 0)
                in_flight -= 1
        queue.input.request_stop(timeout=LIVE_TIMEOUT_S)
        while len(received) < len(payloads):
            receive(long_form=False)
        self.assertIsNone(queue.output.try_peek())

        for k, ((m, data), want) in enumerate(zip(received, payloads)):
            self.assertEqual(m.seq, k + 1)  # transport seq, in order
            self.assertEqual(m.opcode, spsq.Opcode.DATA)
            self.assertEqual(m.payload_nbytes, len(want))
            self.assertEqual(data, want, "message %d differs" % k)
        self.assertEqual(counter(queue, "input_desc_tail"), len(payloads) + 1)  # + STOP
        self.assertEqual(counter(queue, "output_desc_head"), len(payloads))

        # free() is logical: the memory stays while the L2 task may use it...
        with spsq_judging("S2.EXIT.1", "S1.FREE.3", "S1.FREE.4"):
            queue.free()
            report = orch.worker(0).run()
            self.assertEqual((report.tasks_completed, report.tasks_failed), (1, 0),
                             report.first_failure)
            # ...and goes with the drain.
            self.assertEqual(orch.live_regions, 0)


class Capacity(unittest.TestCase):
    @spsq_clauses("S1.TRYENQ.1", "S4.NOPROG.1")
    def test_input_holds_exactly_depth_messages(self):
        orch = spsq.Orchestrator()
        queue = new_queue(orch, depth=8, input_arena_bytes=1 << 12)
        gate = orch.create_worker_chip_region(worker_id=0, payload_bytes=64, counter_bytes=64)
        start_l2(orch, queue, "echo", *gate.counter)
        for i in range(8):
            self.assertTrue(queue.input.try_enqueue(bytes([i]) * 16))
        self.assertFalse(queue.input.try_enqueue(b"ninth"))
        gate.write_counter(0, 1)  # L2 starts consuming
        for i in range(8):
            m = queue.output.dequeue_into(bytearray(16), timeout=LIVE_TIMEOUT_S)
            self.assertEqual(m.seq, i + 1)
        # Room again, for exactly as many as were consumed.
        queue.input.enqueue(b"ninth", timeout=LIVE_TIMEOUT_S)
        target = bytearray(16)
        m = queue.output.dequeue_into(target, timeout=LIVE_TIMEOUT_S)
        self.assertEqual((m.seq, bytes(target[:m.payload_nbytes])), (9, b"ninth"))
        queue.input.request_stop(timeout=LIVE_TIMEOUT_S)
        self.assertTrue(orch.worker(0).run().ok)

    @spsq_clauses("S4.L3OUT.1", "S4.L3OUT.2", "S1.DEQ.1", "S1.TRYPEEK.1")
    def test_output_holds_exactly_depth_messages(self):
        for depth in (1, 4, 8):
            with self.subTest(depth=depth):
                orch = spsq.Orchestrator()
                queue = new_queue(orch, depth=depth, output_arena_bytes=1 << 12)
                start_l2(orch, queue, "fill_output")
                report = orch.worker(0).run()  # fill_output returns once the ring is full
                self.assertTrue(report.ok, report.first_failure)
                self.assertEqual(counter(queue, "output_desc_tail"), depth)
                for k in range(depth):
                    m = queue.output.try_peek()
                    # Active until released: peeked again, head unmoved.
                    self.assertEqual(queue.output.try_peek(), m)
                    self.assertEqual(queue.output.peek(timeout=LIVE_TIMEOUT_S), m)
                    self.assertEqual(counter(queue, "output_desc_head"), k)
                    self.assertEqual((m.seq, m.payload_nbytes), (k + 1, 8))
                    target = bytearray(8)
                    if k % 2 == 0:
                        self.assertEqual(queue.output.read_into(m, target), 8)
                        queue.output.release(m)
                    else:
                        self.assertEqual(queue.output.try_dequeue_into(target), m)
                    self.assertEqual(bytes(target), fill_pattern(k, 8))
                    self.assertEqual(counter(queue, "output_desc_head"), k + 1)
                self.assertIsNone(queue.output.try_peek())
                self.assertTrue(queue.live)


class Stop(unittest.TestCase):
    @spsq_clauses("S1.STOPAPI.1", "S4.STOP.2", "S4.STOP.3", "S4.STOP.4", "S4.STOP.5")
    def test_request_stop_publishes_stop_and_closes_input(self):
        orch = spsq.Orchestrator()
        queue = new_queue(orch)
        gate = orch.create_worker_chip_region(worker_id=0, payload_bytes=64, counter_bytes=64)
        start_l2(orch, queue, "echo", *gate.counter)
        for i in range(3):
            queue.input.enqueue(b"in%d" % i, timeout=LIVE_TIMEOUT_S)
        # L2 is held at its gate: queue.request_stop (the spec's spelling)
        # returns once STOP is published, without waiting for L2 to run, let
        # alone exit.
        self.assertIsNone(queue.request_stop(timeout=LIVE_TIMEOUT_S))
        self.assertTrue(queue.input.stop_published)
        self.assertEqual(counter(queue, "input_desc_tail"), 4)
        self.assertEqual(orch.worker(0).pending, 1)
        self.assertEqual(counter(queue, "input_desc_head"), 0)
        # Further input is rejected locally, without poison or a descriptor.
        for name, call in (("enqueue", lambda: queue.input.enqueue(b"late", timeout=1.0)),
                           ("try_enqueue", lambda: queue.input.try_enqueue(b"late")),
                           ("request_stop", lambda: queue.request_stop(timeout=1.0)),
                           ("try_request_stop", queue.try_request_stop),
                           ("input.request_stop", lambda: queue.input.request_stop(timeout=1.0)),
                           ("input.try_request_stop", queue.input.try_request_stop)):
            with self.subTest(call=name):
                with self.assertRaises(spsq.RejectedError) as cm:
                    call()
                self.assertIn("STOP was already published", str(cm.exception))
        self.assertTrue(queue.live)
        self.assertEqual(counter(queue, "input_desc_tail"), 4)
        self.assertEqual(counter(queue, "initiator_abort_flag"), 0)
        # Outputs L2 publishes for earlier inputs can still be dequeued.
        gate.write_counter(0, 1)
        for i in range(3):
            target = bytearray(8)
            m = queue.output.dequeue_into(target, timeout=LIVE_TIMEOUT_S)
            self.assertEqual(bytes(target[:m.payload_nbytes]), b"in%d" % i)
        report = orch.worker(0).run()
        self.assertEqual((report.tasks_completed, report.tasks_failed), (1, 0))

    @spsq_clauses("S1.STOPAPI.1", "S4.STOP.2")
    def test_try_request_stop_publishes_one_stop(self):
        orch = spsq.Orchestrator()
        queue = new_queue(orch)
        start_l2(orch, queue, "echo")
        queue.input.enqueue(b"last", timeout=LIVE_TIMEOUT_S)
        self.assertIs(queue.try_request_stop(), True)
        self.assertEqual(counter(queue, "input_desc_tail"), 2)
        self.assertTrue(queue.input.stop_published)
        # One STOP per queue, whichever spelling asks again.
        for again in (queue.try_request_stop, queue.input.try_request_stop):
            with self.assertRaises(spsq.RejectedError):
                again()
        self.assertEqual(counter(queue, "input_desc_tail"), 2)
        target = bytearray(4)
        queue.output.dequeue_into(target, timeout=LIVE_TIMEOUT_S)
        self.assertEqual(target, bytearray(b"last"))
        # L2 exits after draining STOP; its exit is seen through Worker.run.
        self.assertTrue(orch.worker(0).run().ok)
        self.assertEqual(counter(queue, "input_desc_head"), 2)


class ErrorMessages(unittest.TestCase):
    @spsq_clauses("S2.ERROR.2", "S4.NOPROG.5")
    def test_error_messages_are_delivered_and_do_not_poison(self):
        for mode in ("thread", "process"):
            with self.subTest(mode=mode):
                orch = spsq.Orchestrator(mode=mode)
                queue = new_queue(orch)
                start_l2(orch, queue, "error_emitter")
                for i, text in enumerate((b"bad request", b"", b"worse request")):
                    queue.input.enqueue(text, timeout=LIVE_TIMEOUT_S)
                    m = queue.output.peek(timeout=LIVE_TIMEOUT_S)
                    self.assertEqual(m.opcode, spsq.Opcode.ERROR)
                    self.assertEqual(int(m.opcode), 3)
                    self.assertEqual(m.seq, i + 1)
                    target = bytearray(32)
                    self.assertEqual(queue.output.read_into(m, target), len(text))
                    self.assertEqual(bytes(target[:len(text)]), text)
                    queue.output.release(m)
                    self.assertTrue(queue.live)
                    self.assertEqual(counter(queue, "initiator_abort_flag"), 0)
                    self.assertEqual(counter(queue, "peer_abort_flag"), 0)
                queue.input.request_stop(timeout=LIVE_TIMEOUT_S)
                report = orch.worker(0).run()
                self.assertEqual((report.tasks_completed, report.tasks_failed), (1, 0))


if __name__ == "__main__":
    main()
