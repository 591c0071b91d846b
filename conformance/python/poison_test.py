"""Poison and remote abort from Python (spec sections 3 and 4): a wrong
handle poisons with an exception that carries kind, operation, session bits
and transaction id; after it every normal operation raises; a peer abort is
a distinguishable RemoteAbortError; cleanup stays valid."""

import unittest

import spsq
from spsq_testing import counter, main, new_queue, spsq_clauses, start_l2

SESSION = 0x0123_4567_89AB_CDEF


def normal_operations(queue, message):
    """Every normal queue operation, by name."""
    return {
        "enqueue": lambda: queue.input.enqueue(b"x", timeout=1.0),
        "try_enqueue": lambda: queue.input.try_enqueue(b"x"),
        "request_stop": lambda: queue.input.request_stop(timeout=1.0),
        "try_request_stop": queue.input.try_request_stop,
        "peek": lambda: queue.output.peek(timeout=1.0),
        "try_peek": queue.output.try_peek,
        "read_into": lambda: queue.output.read_into(message, bytearray(64)),
        "release": lambda: queue.output.release(message),
        "dequeue_into": lambda: queue.output.dequeue_into(bytearray(64), timeout=1.0),
        "try_dequeue_into": lambda: queue.output.try_dequeue_into(bytearray(64)),
    }


def filled_queue(orch, depth=4):
    """A queue whose output ring the fill_output L2 has filled (L2 returned)."""
    queue = new_queue(orch, depth=depth)
    start_l2(orch, queue, "fill_output")
    report = orch.worker(0).run()
    assert report.ok, report.first_failure
    return queue


class WrongHandle(unittest.TestCase):
    @spsq_clauses("S4.L3OUT.3", "S4.POISON.9", "S4.POISON.10", "S4.POISON.11",
                  "S4.POISON.14", "S4.POISON.15")
    def test_releasing_a_stale_handle_poisons(self):
        orch = spsq.Orchestrator(clock="virtual", session_bits=[SESSION])
        queue = filled_queue(orch)
        first = queue.output.try_peek()
        queue.output.read_into(first, bytearray(8))
        queue.output.release(first)
        second = queue.output.try_peek()
        self.assertEqual(second.seq, 2)

        with self.assertRaises(spsq.PoisonedError) as cm:
            queue.output.release(first)  # released already: not the active handle
        e = cm.exception
        self.assertNotIsInstance(e, spsq.RemoteAbortError)
        self.assertNotIsInstance(e, (ValueError, TimeoutError))
        self.assertEqual(e.kind, spsq.ErrorKind.OWNERSHIP)
        self.assertEqual(e.operation, spsq.Operation.L3_OUTPUT_RELEASE)
        self.assertTrue(e.has_identity)
        self.assertEqual(e.session_instance_id_bits, SESSION)
        self.assertEqual(e.transaction_id, queue.chip_task_arg_scalars()[2])
        self.assertEqual(e.transaction_id, 1)
        self.assertIn("OWNERSHIP in L3_OUTPUT_RELEASE", str(e))
        self.assertIn("transaction 1", str(e))

        # Local poison raises the initiator flag (once) for the peer.
        self.assertEqual(counter(queue, "initiator_abort_flag"), 1)
        self.assertEqual(counter(queue, "peer_abort_flag"), 0)
        self.assertFalse(queue.live)
        head = counter(queue, "output_desc_head")
        self.assertEqual(head, 1)

        # Terminal: every normal operation raises the same poison again.
        for name, call in normal_operations(queue, second).items():
            with self.subTest(call=name):
                with self.assertRaises(spsq.PoisonedError) as again:
                    call()
                self.assertEqual(again.exception.kind, spsq.ErrorKind.OWNERSHIP)
                self.assertEqual(again.exception.transaction_id, 1)
        self.assertEqual(counter(queue, "output_desc_head"), head)
        self.assertEqual(counter(queue, "input_desc_tail"), 0)
        # Argument checks still come first, before the queue is consulted.
        with self.assertRaises(ValueError):
            queue.output.peek(timeout=0)
        # Cleanup remains valid, twice.
        queue.free()
        queue.free()
        self.assertTrue(queue.freed)
        self.assertEqual(orch.live_regions, 0)

    @spsq_clauses("S4.L3OUT.3", "S4.POISON.9")
    def test_a_handle_from_another_queue_poisons_only_this_queue(self):
        orch = spsq.Orchestrator(clock="virtual", session_bits=[SESSION])
        a = filled_queue(orch)
        b = filled_queue(orch)
        ma = a.output.try_peek()
        mb = b.output.try_peek()
        self.assertEqual((ma.seq, mb.seq), (1, 1))
        self.assertNotEqual(ma, mb)  # same seq and offsets, different queue
        with self.assertRaises(spsq.PoisonedError) as cm:
            a.output.read_into(mb, bytearray(8))
        self.assertEqual(cm.exception.kind, spsq.ErrorKind.OWNERSHIP)
        self.assertEqual(cm.exception.operation, spsq.Operation.L3_OUTPUT_READ)
        self.assertEqual(cm.exception.transaction_id, 1)
        self.assertFalse(a.live)
        # The other queue is unaffected.
        self.assertTrue(b.live)
        target = bytearray(8)
        self.assertEqual(b.output.read_into(mb, target), 8)
        b.output.release(mb)
        self.assertEqual(counter(b, "initiator_abort_flag"), 0)

    @spsq_clauses("S4.L3OUT.3")
    def test_releasing_when_nothing_is_active_poisons(self):
        orch = spsq.Orchestrator(clock="virtual")
        queue = filled_queue(orch, depth=2)
        m = queue.output.try_dequeue_into(bytearray(8))  # peeked and released
        with self.assertRaises(spsq.PoisonedError) as cm:
            queue.output.release(m)
        self.assertEqual(cm.exception.kind, spsq.ErrorKind.OWNERSHIP)
        self.assertEqual(counter(queue, "initiator_abort_flag"), 1)


class RemoteAbort(unittest.TestCase):
    @spsq_clauses("S3.TO.7", "S4.POISON.12", "S4.POISON.13", "S4.POISON.14", "S4.POISON.15")
    def test_peer_abort_is_a_distinguishable_remote_abort(self):
        for mode in ("thread", "process"):
            with self.subTest(mode=mode):
                self.peer_abort(mode)

    def peer_abort(self, mode):
        orch = spsq.Orchestrator(mode=mode, clock="virtual", session_bits=[SESSION])
        queue = new_queue(orch)
        start_l2(orch, queue, "abort_raiser")
        self.assertTrue(queue.input.try_enqueue(b"trigger"))
        report = orch.worker(0).run()  # the L2 task poisoned itself and returned
        self.assertTrue(report.ok, report.first_failure)
        self.assertEqual(counter(queue, "peer_abort_flag"), 1)

        with self.assertRaises(spsq.RemoteAbortError) as cm:
            queue.output.peek(timeout=0.05)
        e = cm.exception
        self.assertIsInstance(e, spsq.PoisonedError)
        self.assertNotIsInstance(e, TimeoutError)
        self.assertEqual(e.kind, spsq.ErrorKind.REMOTE_ABORTED)
        self.assertEqual(e.operation, spsq.Operation.TIMEOUT)
        self.assertEqual((e.session_instance_id_bits, e.transaction_id), (SESSION, 1))
        self.assertIn("peer abort flag", str(e))
        # Observing the peer's flag does not raise ours.
        self.assertEqual(counter(queue, "initiator_abort_flag"), 0)
        self.assertFalse(queue.live)
        for name, call in normal_operations(queue, None).items():
            if name in ("read_into", "release"):
                continue  # no message was ever handed out
            with self.subTest(mode=mode, call=name):
                with self.assertRaises(spsq.RemoteAbortError):
                    call()
        queue.free()
        queue.free()
        self.assertEqual(orch.live_regions, 0)


if __name__ == "__main__":
    main()
