"""The shipped example (spec section 5) driven from Python: the example's
persistent C++ L2 runs on the chip worker, L3 is this test. Outputs are
checked byte-exact against values computed here from the example's facts."""

import array
import struct
import unittest

import spsq
from spsq_testing import LIVE_TIMEOUT_S, main, spsq_clauses

HEADER_BYTES = 64
TILE = 128 * 128
MESSAGE_BYTES = HEADER_BYTES + 4 * TILE


def tile(base):
    return array.array("f", (base + (i % 128) for i in range(TILE)))


def request(request_id, mode, base):
    header = struct.pack("<QQ", request_id, mode).ljust(HEADER_BYTES, b"\0")
    return header + tile(base).tobytes()


def expected(request_id, kind, aux, values):
    header = struct.pack("<QQQ", request_id, kind, aux).ljust(HEADER_BYTES, b"\0")
    return header + array.array("f", values).tobytes()


class ShippedExample(unittest.TestCase):
    @spsq_clauses("S5.EX.3", "S5.EX.4", "S5.EX.5", "S5.EX.6", "S5.EX.7", "S5.EX.8", "S5.EX.9")
    def test_outputs_in_order_byte_exact_in_thread_and_process_mode(self):
        for mode in ("thread", "process"):
            with self.subTest(mode=mode):
                self.run_example(mode)

    def run_example(self, mode):
        orch = spsq.Orchestrator(mode=mode)
        queue = orch.create_worker_chip_queue(worker_id=0, depth=8,
                                              input_arena_bytes=512 * 1024,
                                              output_arena_bytes=512 * 1024)
        args = spsq.TaskArgs()
        for value in queue.chip_task_arg_scalars():
            args.add_scalar(value)
        args.add_scalar(0)  # scalar 10: flags (quiet)
        orch.submit_next_level(spsq.l2_function("worker_chip_message_queue_l2"), args,
                               spsq.ChipCallConfig(), worker=0)

        def read_one():
            out = bytearray(MESSAGE_BYTES)
            m = queue.output.dequeue_into(out, timeout=LIVE_TIMEOUT_S)
            self.assertEqual(m.opcode, spsq.Opcode.DATA)
            self.assertEqual(m.payload_nbytes, MESSAGE_BYTES)
            return bytes(out)

        t1, t100, t1000, t2000 = tile(1), tile(100), tile(1000), tile(2000)
        queue.input.enqueue(request(0, 1, 1), nbytes=MESSAGE_BYTES, timeout=LIVE_TIMEOUT_S)
        queue.input.enqueue(request(0, 2, 100), nbytes=MESSAGE_BYTES, timeout=LIVE_TIMEOUT_S)
        got = [read_one() for _ in range(3)]
        queue.input.enqueue(request(0, 3, 1000), nbytes=MESSAGE_BYTES, timeout=LIVE_TIMEOUT_S)
        queue.input.enqueue(request(7, 3, 2000), nbytes=MESSAGE_BYTES, timeout=LIVE_TIMEOUT_S)
        queue.input.request_stop(timeout=LIVE_TIMEOUT_S)
        got.append(read_one())

        want = [expected(0, 20, 0, (v + 20 for v in t100)),
                expected(0, 10, 0, (v + 10 for v in t1)),
                expected(0, 11, 0, (v + 11 for v in t1)),
                expected(0, 30, 7, (a + b for a, b in zip(t1000, t2000)))]
        for k, (g, w) in enumerate(zip(got, want)):
            self.assertEqual(g[:HEADER_BYTES], w[:HEADER_BYTES], "output %d header" % k)
            self.assertEqual(g, w, "output %d tile" % k)
        self.assertIsNone(queue.output.try_peek())
        queue.free()
        report = orch.worker(0).run()  # L2 returns only after input().drained()
        self.assertEqual((report.tasks_completed, report.tasks_failed), (1, 0),
                         report.first_failure)
        self.assertEqual(orch.live_regions, 0)


if __name__ == "__main__":
    main()
