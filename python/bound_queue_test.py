"""spsq.bind_worker_chip_queue: the module's L3 queue over a Python region
object reaches shared memory and time only through that object and
time.monotonic_ns (how it is served as a testee), and reports the object's
failures as view failures."""

import struct
import time
import unittest

import spsq

DEPTH, IN_BYTES, OUT_BYTES = 4, 128, 128
IN_ARENA = 256  # align64(2 * 4 * 32)
PAYLOAD_BYTES = 512
SCALARS = [spsq.MAGIC_VERSION, 0, 7, 0x1000, PAYLOAD_BYTES, 0x9000, 384, DEPTH, IN_BYTES,
           OUT_BYTES]


class Signal:
    def __init__(self, region, offset):
        self.region, self.offset = region, offset

    def value(self):
        return struct.unpack_from("<i", self.region.counters, self.offset)[0]

    def test(self, cmp_value, cmp):
        v = self.value()
        return [v == cmp_value, v != cmp_value, v > cmp_value, v >= cmp_value, v < cmp_value,
                v <= cmp_value][cmp], v

    def notify(self, value, op=0):
        self.region.log.append(("notify", self.offset, value, op))
        if self.region.fail:
            raise RuntimeError("injected notify failure")
        struct.pack_into("<i", self.region.counters, self.offset,
                         value if op == 0 else self.value() + value)

    def wait(self, cmp_value, cmp, timeout_ns):
        self.region.log.append(("wait", self.offset, cmp_value, cmp, timeout_ns))
        self.region.now += timeout_ns
        return self.test(cmp_value, cmp)


class Region:
    """Memory in bytearrays, every access logged."""

    def __init__(self):
        self.payload, self.counters = bytearray(PAYLOAD_BYTES), bytearray(384)
        self.log, self.now, self.fail = [], 0, False

    def payload_read(self, offset, nbytes):
        self.log.append(("read", offset, nbytes))
        return bytes(self.payload[offset:offset + nbytes])

    def payload_write(self, offset, data):
        self.log.append(("write", offset, bytes(data)))
        self.payload[offset:offset + len(data)] = data

    def counter(self, offset):
        return Signal(self, offset)


class BoundQueue(unittest.TestCase):
    def setUp(self):
        self.region = Region()
        self.saved = time.monotonic_ns
        time.monotonic_ns = lambda: self.region.now

    def tearDown(self):
        time.monotonic_ns = self.saved

    def test_enqueue_goes_through_the_object_in_publish_order(self):
        q = spsq.bind_worker_chip_queue(self.region, SCALARS)
        self.assertTrue(q.live)
        self.assertEqual(q.chip_task_arg_scalars(), SCALARS)
        self.assertTrue(q.input.try_enqueue(b"hello", 5))
        writes = [e for e in self.region.log if e[0] in ("write", "notify")]
        self.assertEqual([e[:2] for e in writes],
                         [("write", IN_ARENA), ("write", 8), ("write", 0), ("notify", 0)])
        self.assertEqual(struct.unpack_from("<4Q", self.region.payload, 0), (1, 1, IN_ARENA, 5))

    def test_output_and_timeouts_on_the_objects_clock(self):
        q = spsq.bind_worker_chip_queue(self.region, SCALARS)
        self.assertIsNone(q.output.try_peek())
        with self.assertRaises(spsq.QueueTimeoutError):
            q.output.peek(timeout=0.25)
        self.assertEqual(self.region.now, 250000000)
        struct.pack_into("<4Q", self.region.payload, DEPTH * 32, 1, 1, 384, 3)
        self.region.payload[384:387] = b"abc"
        struct.pack_into("<i", self.region.counters, 128, 1)
        m = q.output.try_peek()
        buf = bytearray(8)
        self.assertEqual(q.output.read_into(m, buf), 3)
        self.assertEqual(bytes(buf[:3]), b"abc")
        with self.assertRaises(spsq.PoisonedError):  # a forged seq is not the active message
            q.output.release(m.__replace__(seq=2))

    def test_a_runtime_error_is_a_view_failure(self):
        q = spsq.bind_worker_chip_queue(self.region, SCALARS)
        self.region.fail = True
        with self.assertRaises(spsq.PoisonedError) as c:
            q.input.try_enqueue(b"x", 1)
        self.assertEqual(c.exception.kind, spsq.ErrorKind.ENDPOINT_ERROR)
        self.assertIn("injected notify failure", str(c.exception))
        self.assertFalse(q.live)

    def test_any_other_exception_reaches_the_caller(self):
        q = spsq.bind_worker_chip_queue(self.region, SCALARS)

        def lost(offset, nbytes):
            raise KeyboardInterrupt("peer gone")
        self.region.payload_read = lost
        struct.pack_into("<i", self.region.counters, 128, 1)
        with self.assertRaisesRegex(KeyboardInterrupt, "peer gone"):
            q.output.try_peek()

    def test_projected_region_reaches_counters_through_the_object(self):
        q = spsq.bind_worker_chip_queue(self.region, SCALARS, project_region=True)
        q.region.write_counter(320, 1)
        self.assertEqual(q.region.read_counter(320), 1)
        self.assertFalse(q.region.released)
        q.free()
        self.assertTrue(q.region.released)

    def test_a_refused_binding_raises_naming_it(self):
        with self.assertRaisesRegex(spsq.SpsqError, "transaction_id is zero"):
            spsq.bind_worker_chip_queue(self.region, SCALARS[:2] + [0] + SCALARS[3:])
        with self.assertRaisesRegex(ValueError, "ten binding scalars"):
            spsq.bind_worker_chip_queue(self.region, SCALARS[:9])
        self.assertEqual(self.region.log, [])


if __name__ == "__main__":
    unittest.main()
