"""The Python surface of spec sections 1 and 2: the factory, the ten binding
scalars, TaskArgs / submit_next_level, the long-form I/O calls, messages,
queue.layout, queue.region and free()."""

import unittest

import spsq
from spsq_testing import (LIVE_TIMEOUT_S, counter, main, new_queue, spsq_clauses,
                          start_l2)

SESSION = 0x5E55_0000_0000_00A1


def wire_layout(depth, in_bytes, out_bytes):
    """The layout the wire contract defines, computed here independently."""
    def align64(x):
        return (x + 63) // 64 * 64
    ring = depth * 32
    in_off = align64(2 * ring)
    out_off = align64(in_off + in_bytes)
    return {
        "depth": depth,
        "input_desc_ring_offset": 0, "input_desc_ring_bytes": ring,
        "output_desc_ring_offset": ring, "output_desc_ring_bytes": ring,
        "input_arena_offset": in_off, "input_arena_bytes": in_bytes,
        "output_arena_offset": out_off, "output_arena_bytes": out_bytes,
        "payload_bytes": out_off + out_bytes, "counter_bytes": 384,
        "input_desc_tail_offset": 0, "input_desc_head_offset": 64,
        "output_desc_tail_offset": 128, "output_desc_head_offset": 192,
        "initiator_abort_flag_offset": 256, "peer_abort_flag_offset": 320,
    }


class Factory(unittest.TestCase):
    @spsq_clauses("S1.CREATE.2")
    def test_spec_call_creates_the_queue(self):
        orch = spsq.Orchestrator()
        queue = orch.create_worker_chip_queue(
            worker_id=0,
            depth=4,
            input_arena_bytes=1 << 20,
            output_arena_bytes=1 << 20,
        )
        self.assertIsInstance(queue, spsq.WorkerChipQueue)
        self.assertEqual(queue.layout.depth, 4)
        self.assertEqual(queue.layout.input_arena_bytes, 1 << 20)
        self.assertEqual(queue.layout.output_arena_bytes, 1 << 20)
        self.assertTrue(queue.live)
        self.assertEqual(queue.region.worker_id, 0)

    @spsq_clauses("S1.CREATE.2", "S1.WIN.4")
    def test_arguments_are_keyword_only_and_take_no_window(self):
        orch = spsq.Orchestrator()
        with self.assertRaises(TypeError):
            orch.create_worker_chip_queue(0, 4, 1 << 20, 1 << 20)
        with self.assertRaises(TypeError):
            orch.create_worker_chip_queue(worker_id=0, depth=4, input_arena_bytes=64)
        with self.assertRaises(TypeError):  # MaxInflight is L2's local choice
            orch.create_worker_chip_queue(worker_id=0, depth=4, input_arena_bytes=64,
                                          output_arena_bytes=64, max_inflight=4)
        self.assertEqual(orch.live_regions, 0)

    def test_bad_arguments_are_refused_by_name_before_allocating(self):
        orch = spsq.Orchestrator(worker_count=2)
        cases = [
            (dict(worker_id=2, depth=4, input_arena_bytes=64, output_arena_bytes=64),
             ValueError, "worker_id 2 out of range: 2 chip worker(s)"),
            (dict(worker_id=0, depth=3, input_arena_bytes=64, output_arena_bytes=64),
             spsq.RejectedError, "depth is not a power of two"),
            (dict(worker_id=0, depth=0, input_arena_bytes=64, output_arena_bytes=64),
             spsq.RejectedError, "depth is zero"),
            (dict(worker_id=0, depth=1 << 31, input_arena_bytes=64, output_arena_bytes=64),
             spsq.RejectedError, "depth exceeds 2^30"),
            (dict(worker_id=0, depth=4, input_arena_bytes=100, output_arena_bytes=64),
             spsq.RejectedError, "input arena is not a multiple of 64"),
            (dict(worker_id=0, depth=4, input_arena_bytes=64, output_arena_bytes=0),
             spsq.RejectedError, "output arena is zero bytes"),
            (dict(worker_id=0, depth=-4, input_arena_bytes=64, output_arena_bytes=64),
             ValueError, "depth must be non-negative"),
            (dict(worker_id=0, depth=1 << 64, input_arena_bytes=64, output_arena_bytes=64),
             ValueError, "depth does not fit in 64 bits"),
            (dict(worker_id=0, depth=4.0, input_arena_bytes=64, output_arena_bytes=64),
             TypeError, "depth must be an int, not float"),
        ]
        for kwargs, exc, text in cases:
            with self.subTest(kwargs=kwargs):
                with self.assertRaises(exc) as cm:
                    orch.create_worker_chip_queue(**kwargs)
                self.assertIn(text, str(cm.exception))
        self.assertIsInstance(spsq.RejectedError("x"), ValueError)
        self.assertEqual(orch.live_regions, 0)
        # No transaction id was spent on the refused calls.
        queue = new_queue(orch)
        self.assertEqual(queue.chip_task_arg_scalars()[2], 1)


class Binding(unittest.TestCase):
    def test_chip_task_arg_scalars_are_the_ten_field_binding(self):
        orch = spsq.Orchestrator(session_bits=[SESSION])
        first = new_queue(orch, depth=8, input_arena_bytes=192, output_arena_bytes=64)
        queue = new_queue(orch, depth=8, input_arena_bytes=192, output_arena_bytes=64)
        s = queue.chip_task_arg_scalars()
        self.assertEqual(len(s), 10)
        self.assertEqual(spsq.BINDING_SCALAR_COUNT, 10)
        self.assertEqual(s[0], 0x5350535100010000)  # magic_version, ABI 1.0
        self.assertEqual(s[1], SESSION)
        self.assertEqual(first.chip_task_arg_scalars()[2], 1)
        self.assertEqual(s[2], 2)  # transaction ids count from 1 per worker
        self.assertEqual((s[3], s[4]), queue.region.payload)
        self.assertEqual(s[4], 768)  # golden vector (8, 192, 64) -> payload_bytes 768
        self.assertEqual((s[5], s[6]), queue.region.counter)
        self.assertEqual(s[6], 384)
        self.assertEqual(s[7:], [8, 192, 64])
        self.assertTrue(all(isinstance(v, int) for v in s))

    @spsq_clauses("S1.ARGS.2", "S2.EXIT.1")
    def test_spec_task_args_and_submit_run_as_written(self):
        orch = spsq.Orchestrator()
        queue = new_queue(orch)
        l2_handle = spsq.l2_function("echo")
        cfg = spsq.ChipCallConfig()

        l2_args = spsq.TaskArgs()
        for value in queue.chip_task_arg_scalars():
            l2_args.add_scalar(value)

        orch.submit_next_level(l2_handle, l2_args, cfg, worker=0)

        self.assertEqual(l2_args.scalars(), queue.chip_task_arg_scalars())
        self.assertEqual(len(l2_args), 10)
        # The L2 task decoded those scalars: it answers, then drains on STOP.
        queue.input.enqueue(b"scalars", timeout=LIVE_TIMEOUT_S)
        reply = bytearray(16)
        message = queue.output.dequeue_into(reply, timeout=LIVE_TIMEOUT_S)
        self.assertEqual(bytes(reply[:message.payload_nbytes]), b"scalars")
        queue.input.request_stop(timeout=LIVE_TIMEOUT_S)
        report = orch.worker(0).run()
        self.assertEqual((report.tasks_completed, report.tasks_failed), (1, 0))
        self.assertTrue(report.ok)
        self.assertEqual(orch.worker(0).pending, 0)

    def test_task_args_and_submit_refuse_bad_arguments(self):
        args = spsq.TaskArgs()
        with self.assertRaises(ValueError):
            args.add_scalar(-1)
        with self.assertRaises(ValueError):
            args.add_scalar(1 << 64)
        with self.assertRaises(TypeError):
            args.add_scalar("7")
        args.add_scalar((1 << 64) - 1)
        self.assertEqual(args.scalar(0), (1 << 64) - 1)
        with self.assertRaises(IndexError):
            args.scalar(1)
        orch = spsq.Orchestrator()
        with self.assertRaises(TypeError) as cm:
            orch.submit_next_level("echo", args, spsq.ChipCallConfig(), worker=0)
        self.assertIn("spsq.L2Function", str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            orch.submit_next_level(spsq.l2_function("echo"), args, worker=1)
        self.assertIn("worker 1 out of range", str(cm.exception))
        with self.assertRaises(spsq.RejectedError) as cm:
            orch.submit_next_level(spsq.l2_function("echo"), args,
                                   spsq.ChipCallConfig(block_dim=0), worker=0)
        self.assertIn("block_dim must be at least 1", str(cm.exception))
        with self.assertRaises(KeyError) as cm:
            spsq.l2_function("no_such_l2")
        self.assertIn("echo", str(cm.exception))
        self.assertEqual(orch.worker(0).pending, 0)  # nothing was started

    def test_registered_l2_functions(self):
        names = spsq.l2_function_names()
        for name in ("echo", "error_emitter", "abort_raiser", "fill_output"):
            self.assertIn(name, names)
            self.assertEqual(spsq.l2_function(name).name, name)


class Layout(unittest.TestCase):
    @spsq_clauses("S2.LAYOUT.4", "S2.LAYOUT.3")
    def test_layout_mirrors_the_cpp_layout_field_for_field(self):
        orch = spsq.Orchestrator()
        # The wire contract's golden vectors, then a large queue.
        golden = {(1, 64, 64): (32, 64, 128, 192), (4, 128, 192): (128, 256, 384, 576),
                  (8, 192, 64): (256, 512, 704, 768), (2, 64, 128): (64, 128, 192, 320)}
        triples = list(golden) + [(1024, 1 << 20, 3 << 16)]
        for depth, in_bytes, out_bytes in triples:
            with self.subTest(depth=depth, in_bytes=in_bytes, out_bytes=out_bytes):
                queue = new_queue(orch, depth, in_bytes, out_bytes)
                layout = queue.layout
                for field, value in wire_layout(depth, in_bytes, out_bytes).items():
                    self.assertEqual(getattr(layout, field), value, field)
                if (depth, in_bytes, out_bytes) in golden:
                    self.assertEqual((layout.output_desc_ring_offset, layout.input_arena_offset,
                                      layout.output_arena_offset, layout.payload_bytes),
                                     golden[(depth, in_bytes, out_bytes)])
                # The binding the L2 side decodes carries the same sizes.
                self.assertEqual(queue.chip_task_arg_scalars()[4], layout.payload_bytes)
                self.assertEqual(queue.region.payload[1], layout.payload_bytes)
                self.assertEqual(layout, queue.layout)
                with self.assertRaises(AttributeError):
                    layout.depth = 2
                queue.free()


class Messages(unittest.TestCase):
    @spsq_clauses("S1.PYIO.1")
    def test_spec_io_calls_run_as_written(self):
        orch = spsq.Orchestrator()
        queue = new_queue(orch, input_arena_bytes=1 << 16, output_arena_bytes=1 << 16)
        start_l2(orch, queue, "echo")
        host_input = bytes(range(256)) * 3
        nbytes = 700
        timeout_s = LIVE_TIMEOUT_S
        host_output = bytearray(1024)

        queue.input.enqueue(host_input, nbytes=nbytes, timeout=timeout_s)
        message = queue.output.peek(timeout=timeout_s)
        queue.output.read_into(message, host_output)
        queue.output.release(message)

        self.assertEqual((message.seq, message.opcode, message.payload_nbytes),
                         (1, spsq.Opcode.DATA, nbytes))
        self.assertEqual(message.payload_offset, queue.layout.output_arena_offset)
        self.assertEqual(bytes(host_output[:nbytes]), host_input[:nbytes])
        self.assertEqual(bytes(host_output[nbytes:]), bytes(1024 - nbytes))
        self.assertEqual(counter(queue, "output_desc_head"), 1)
        queue.input.request_stop(timeout=timeout_s)
        self.assertTrue(orch.worker(0).run().ok)

    def test_messages_are_immutable_values(self):
        orch = spsq.Orchestrator()
        queue = new_queue(orch)
        start_l2(orch, queue, "echo")
        queue.input.enqueue(b"abc", timeout=LIVE_TIMEOUT_S)
        m = queue.output.peek(timeout=LIVE_TIMEOUT_S)
        for field in ("seq", "opcode", "payload_offset", "payload_nbytes"):
            with self.assertRaises(AttributeError):
                setattr(m, field, 9)
        with self.assertRaises(AttributeError):
            m.note = "x"
        with self.assertRaises(TypeError):
            spsq.Message()
        again = queue.output.try_peek()
        self.assertIsNot(again, m)
        self.assertEqual(again, m)
        self.assertEqual(hash(again), hash(m))
        self.assertEqual(repr(m), "Message(seq=1, opcode=DATA, payload_offset=%d, "
                         "payload_nbytes=3)" % queue.layout.output_arena_offset)
        self.assertEqual(int(m.opcode), 1)
        queue.output.release(m)
        queue.input.request_stop(timeout=LIVE_TIMEOUT_S)
        self.assertTrue(orch.worker(0).run().ok)


class RegionAndFree(unittest.TestCase):
    @spsq_clauses("S1.REGION.1", "S1.REGION.2")
    def test_region_projects_the_queue_memory(self):
        orch = spsq.Orchestrator(clock="virtual")
        queue = new_queue(orch)
        region = queue.region
        self.assertFalse(region.released)
        self.assertEqual(region.transaction_id, queue.chip_task_arg_scalars()[2])
        layout = queue.layout
        queue.input.enqueue(b"seen", timeout=1.0)
        queue.input.enqueue(None, nbytes=0, timeout=1.0)
        # The queue's publications are visible through the region's counters.
        self.assertEqual(region.read_counter(layout.input_desc_tail_offset), 2)
        self.assertEqual(region.read_counter(layout.input_desc_head_offset), 0)
        self.assertEqual(region.chip_task_arg_scalars(),
                         list(region.payload) + list(region.counter))
        # Reading through the hatch leaves the queue's own state alone.
        self.assertEqual(queue.layout, layout)
        self.assertTrue(queue.live)
        with self.assertRaises(ValueError) as cm:
            region.read_counter(384)
        self.assertIn("outside the 384-byte part", str(cm.exception))

    @spsq_clauses("S1.FREE.1", "S1.FREE.2", "S4.POISON.15")
    def test_free_is_logical_and_idempotent(self):
        orch = spsq.Orchestrator(clock="virtual")
        queue = new_queue(orch)
        region = queue.region
        self.assertEqual(orch.live_regions, 1)
        queue.free()
        self.assertTrue(queue.freed)
        self.assertFalse(queue.live)
        self.assertTrue(region.released)
        self.assertEqual(region.payload, (0, 0))
        queue.free()  # harmless
        self.assertEqual(orch.live_regions, 0)  # no L2 task pinned it
        calls = {
            "try_enqueue": lambda: queue.input.try_enqueue(b"x"),
            "enqueue": lambda: queue.input.enqueue(b"x", timeout=1.0),
            "request_stop": lambda: queue.input.request_stop(timeout=1.0),
            "try_request_stop": queue.input.try_request_stop,
            "peek": lambda: queue.output.peek(timeout=1.0),
            "try_peek": queue.output.try_peek,
            "dequeue_into": lambda: queue.output.dequeue_into(bytearray(4), timeout=1.0),
            "try_dequeue_into": lambda: queue.output.try_dequeue_into(bytearray(4)),
        }
        for name, call in calls.items():
            with self.subTest(call=name):
                with self.assertRaises(spsq.RejectedError) as cm:
                    call()
                self.assertIn("freed", str(cm.exception))
        with self.assertRaises(ValueError):
            region.read_counter(0)
        with queue:  # the context manager frees too, harmlessly again
            pass
        self.assertTrue(queue.freed)


if __name__ == "__main__":
    main()
