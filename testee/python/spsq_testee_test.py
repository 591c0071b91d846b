"""spsq_testee's framing, callbacks and op mapping, against a scripted
harness: the frames it sends are prepared up front (a request, then the
replies to the callbacks the queue will make), and what the testee wrote is
read back and checked."""

import io
import json
import struct
import time
import unittest

import spsq_testee as T


def frame(obj):
    body = json.dumps(obj).encode()
    return struct.pack("<I", len(body)) + body


def frames_of(data):
    ch = T.Channel(io.BytesIO(data), None)
    out = []
    while True:
        f = ch.read(eof_ok=True)
        if f is None:
            return out
        out.append(f)


def channel(data):
    w = io.BytesIO()
    return T.Channel(io.BytesIO(data), w), w


class Framing(unittest.TestCase):
    def test_round_trip_keeps_uint64(self):
        ch, w = channel(b"")
        ch.write({"v": (1 << 64) - 1, "s": "\u00e9"})
        self.assertEqual(frames_of(w.getvalue()), [{"v": (1 << 64) - 1, "s": "\u00e9"}])

    def lost(self, data, text, **kw):
        ch, _ = channel(data)
        with self.assertRaises(T.HarnessLost) as c:
            ch.read(**kw)
        self.assertIn(text, str(c.exception))

    def test_truncated_length(self):
        self.lost(b"\x05\x00", "truncated frame: 2 of 4 length bytes")

    def test_truncated_body(self):
        self.lost(struct.pack("<I", 10) + b"{}", "truncated frame: 2 of 10 bytes")

    def test_length_zero_and_oversized(self):
        self.lost(struct.pack("<I", 0), "frame length 0 outside 1..16777216")
        self.lost(struct.pack("<I", T.MAX_FRAME + 1), "frame length 16777217 outside")

    def test_bad_json_and_non_object(self):
        self.lost(struct.pack("<I", 3) + b"{x}", "not UTF-8 JSON")
        self.lost(struct.pack("<I", 2) + b"\xff\xfe", "not UTF-8 JSON")
        self.lost(frame([1, 2]), "JSON list, not an object")

    def test_eof(self):
        self.assertIsNone(channel(b"")[0].read(eof_ok=True))
        self.lost(b"", "the harness closed the pipe")

    def test_oversized_outgoing_frame_is_refused(self):
        ch, w = channel(b"")
        with self.assertRaises(T.HarnessLost):
            ch.write({"data": "0" * T.MAX_FRAME})
        self.assertEqual(w.getvalue(), b"")


class Callbacks(unittest.TestCase):
    def region(self, *replies):
        ch, w = channel(b"".join(frame(r) for r in replies))
        return T.Region(ch), w

    def test_payload_read_and_write(self):
        r, w = self.region({"reply": "payload_read", "ok": True, "data": "0a0b"},
                           {"reply": "payload_write", "ok": True})
        self.assertEqual(r.payload_read(8, 2), b"\x0a\x0b")
        r.payload_write(16, bytearray(b"\x01"))
        self.assertEqual(frames_of(w.getvalue()), [
            {"call": "payload_read", "offset": 8, "nbytes": 2},
            {"call": "payload_write", "offset": 16, "data": "01"}])

    def test_counter_calls(self):
        r, w = self.region({"reply": "counter_test", "ok": True, "matched": True, "observed": -2},
                           {"reply": "counter_notify", "ok": True},
                           {"reply": "counter_wait", "ok": True, "held": False, "observed": 7})
        c = r.counter(64)
        self.assertEqual(c.test(-2, 0), (True, -2))
        c.notify(1, op=1)
        self.assertEqual(c.wait(7, 1, (1 << 64) - 1), (False, 7))
        self.assertEqual(frames_of(w.getvalue())[2],
                         {"call": "counter_wait", "offset": 64, "cmp_value": 7, "cmp": 1,
                          "timeout_ns": (1 << 64) - 1})

    def test_view_failure_is_a_region_error(self):
        r, _ = self.region({"reply": "payload_write", "ok": False, "error": "fault 3"})
        with self.assertRaisesRegex(T.RegionError, "payload_write: fault 3"):
            r.payload_write(0, b"x")

    def test_bad_arguments_fail_the_view_before_any_callback(self):
        r, w = self.region()
        for call in (lambda: r.payload_read(-1, 1), lambda: r.counter(0).notify(1 << 31),
                     lambda: r.counter(0).test(0, 6), lambda: r.counter(0).notify(0, op=2)):
            with self.assertRaises(T.RegionError):
                call()
        self.assertEqual(w.getvalue(), b"")

    def test_unexpected_or_malformed_replies(self):
        for reply, text in [({"reply": "now", "now_ns": 5}, "answered by"),
                            ({"id": 3, "op": "quit"}, "answered by"),
                            ({"reply": "payload_read", "ok": True, "data": "0A0B"}, "lowercase hex"),
                            ({"reply": "payload_read", "ok": True, "data": "0a"}, "answered 1"),
                            ({"reply": "payload_read", "ok": "yes"}, "no boolean ok")]:
            r, _ = self.region(reply)
            with self.assertRaisesRegex(T.HarnessLost, text):
                r.payload_read(0, 2)
        r, _ = self.region({"reply": "counter_test", "ok": True, "matched": 1, "observed": 0})
        with self.assertRaisesRegex(T.HarnessLost, "no boolean 'matched'"):
            r.counter(0).test(0, 0)
        r, _ = self.region({"reply": "counter_test", "ok": True, "matched": True,
                            "observed": 1 << 31})
        with self.assertRaisesRegex(T.HarnessLost, "observed"):
            r.counter(0).test(0, 0)

    def test_eof_inside_a_callback(self):
        r, _ = self.region()
        with self.assertRaisesRegex(T.HarnessLost, "closed the pipe"):
            r.payload_read(0, 1)

    def test_clock_reads_the_harness(self):
        ch, _ = channel(frame({"reply": "now", "now_ns": 1500000000}) +
                        frame({"reply": "now", "now_ns": -1}))
        saved = time.monotonic_ns, time.monotonic
        try:
            T.install_clock(ch)
            self.assertEqual(time.monotonic(), 1.5)
            with self.assertRaisesRegex(T.HarnessLost, "now_ns"):
                time.monotonic_ns()
        finally:
            time.monotonic_ns, time.monotonic = saved


class Poisoned(Exception):
    def __init__(self, text, kind, op):
        super().__init__(text)
        self.kind, self.operation = kind, op


class Message:
    def __init__(self, seq, opcode=1, payload_offset=0, payload_nbytes=0, owner=None):
        self.seq, self.opcode = seq, opcode
        self.payload_offset, self.payload_nbytes, self.owner = payload_offset, payload_nbytes, owner


class FakeQueue:
    """Answers from a script of return values or exceptions."""

    def __init__(self, region, results):
        self.region_proxy, self.results, self.calls = region, results, []
        self.input = self.output = self
        self.live = True
        self.layout = {"depth": 4}

    def _next(self, name, *args, **kw):
        self.calls.append((name, args, kw))
        r = self.results.pop(0)
        if isinstance(r, BaseException):
            raise r
        return r(*args) if callable(r) else r

    def __getattr__(self, name):
        if name in ("try_enqueue", "enqueue", "try_peek", "peek", "read_into", "release",
                    "try_dequeue_into", "request_stop"):
            return lambda *a, **kw: self._next(name, *a, **kw)
        raise AttributeError(name)


class FakeAdapter(T.Adapter):
    def __init__(self, results):
        self.results = results

    def create(self, region, scalars, project_region):
        self.queue = FakeQueue(region, self.results)
        return self.queue


SCALARS = list(range(1, 11))


def serve(results, *requests):
    """Runs a server over the scripted frames; returns (answers, adapter)."""
    data = frame({"id": 0, "op": "create", "scalars": SCALARS, "region": False})
    data += b"".join(frame(r) for r in requests)
    ch, w = channel(data)
    adapter = FakeAdapter(results)
    T.Server(adapter, ch).run()
    return frames_of(w.getvalue()), adapter


def req(i, op, **args):
    return dict(args, id=i, op=op)


class Ops(unittest.TestCase):
    def test_outcomes_of_returns_and_exceptions(self):
        answers, a = serve(
            [True, False, ValueError("nbytes too big"), TimeoutError("expired"),
             Poisoned("torn", 3, 6), RuntimeError("oops")],
            req(1, "try_enqueue", data="ab", nbytes=1), req(2, "try_enqueue", data=None, nbytes=0),
            req(3, "try_enqueue", data="", nbytes=9), req(4, "enqueue", data="", nbytes=0,
                                                          timeout_ns=2500000000),
            req(5, "try_peek"), req(6, "try_peek"), req(7, "error"), req(8, "request_stop",
                                                                         timeout_ns=1),
            req(9, "try_request_stop"), req(10, "frobnicate"), req(11, "quit"))
        outcomes = [x["outcome"] for x in answers]
        self.assertEqual(outcomes, ["ok", "ok", "no_progress", "rejected", "timed_out", "failed",
                                    "failed", "ok", "failed", "unsupported", "unsupported", "ok"])
        self.assertEqual(answers[5]["poison"], {"kind": 3, "op": 6})
        self.assertIsNone(answers[6]["poison"]["kind"])
        # error() reports the last failure, the one without a kind.
        self.assertEqual(answers[7]["error"]["kind"], None)
        self.assertIn("RuntimeError: oops", answers[7]["text"])
        self.assertEqual([x["id"] for x in answers], list(range(12)))
        self.assertEqual(a.queue.calls[0], ("try_enqueue", (b"\xab", 1), {}))
        self.assertEqual(a.queue.calls[1][1], (None, 0))
        self.assertEqual(a.queue.calls[3][2], {"nbytes": 0, "timeout": 2.5})
        self.assertIn("no try_request_stop", answers[9]["text"])

    def test_messages_and_forged_handles(self):
        real = Message(5, 3, 128, 4, owner="q1")
        answers, a = serve(
            [real, lambda m, buf: (buf.__setitem__(slice(0, 4), b"wxyz"), 4)[1], None, None],
            req(1, "try_peek"),
            req(2, "read_into", message={"seq": 5, "opcode": 3, "payload_offset": 128,
                                         "payload_nbytes": 4, "token": 0},
                capacity=6, buffer=True),
            req(3, "release", message={"seq": 6, "opcode": 3, "payload_offset": 128,
                                       "payload_nbytes": 4, "token": 0}),
            req(4, "try_peek"))
        self.assertEqual(answers[1]["message"], {"seq": 5, "opcode": 3, "payload_offset": 128,
                                                 "payload_nbytes": 4, "token": 0})
        self.assertEqual(answers[2]["data"], "7778797a")
        self.assertIs(a.queue.calls[1][1][0], real)  # unchanged: the object itself
        forged = a.queue.calls[2][1][0]
        self.assertEqual((forged.seq, forged.owner), (6, "q1"))
        self.assertEqual(real.seq, 5)
        self.assertEqual(answers[4]["outcome"], "no_progress")

    def test_a_handle_nothing_was_peeked_for_is_built_by_the_hook(self):
        m = {"seq": 1, "opcode": 1, "payload_offset": 0, "payload_nbytes": 0, "token": None}
        answers, _ = serve([], req(1, "release", message=m))
        self.assertEqual(answers[1]["outcome"], "unsupported")

        class Built(FakeAdapter):
            def new_message(self, fields):
                return Message(owner=None, **fields)
        data = frame({"id": 0, "op": "create", "scalars": SCALARS, "region": False})
        data += frame(req(1, "release", message=m))
        ch, w = channel(data)
        adapter = Built([Poisoned("not ours", 4, 11)])
        T.Server(adapter, ch).run()
        answers = frames_of(w.getvalue())
        self.assertEqual(answers[1]["poison"], {"kind": 4, "op": 11})
        self.assertIsNone(adapter.queue.calls[0][1][0].owner)

    def test_outcome_hook_decides(self):
        class Live(FakeAdapter):
            def outcome(self, exc):
                return "rejected" if isinstance(exc, Poisoned) else super().outcome(exc)
        data = frame({"id": 0, "op": "create", "scalars": SCALARS, "region": False})
        data += frame(req(1, "try_peek"))
        ch, w = channel(data)
        T.Server(Live([Poisoned("read failed before any mutation", 6, 3)]), ch).run()
        self.assertEqual(frames_of(w.getvalue())[1]["outcome"], "rejected")

    def test_blocking_calls_report_a_documented_timeout_return(self):
        answers, _ = serve([None, False], req(1, "peek", timeout_ns=5),
                           req(2, "enqueue", data=None, nbytes=0, timeout_ns=5))
        self.assertEqual([x["outcome"] for x in answers[1:]], ["timed_out", "timed_out"])

    def test_layout_by_contract_names(self):
        answers, _ = serve([], req(1, "layout"))
        self.assertEqual(answers[1]["outcome"], "unsupported")
        self.assertIn("input_arena_bytes", answers[1]["text"])

    def test_live_and_error_before_any_failure(self):
        answers, _ = serve([], req(1, "live"), req(2, "error"))
        self.assertEqual(answers[1]["live"], True)
        self.assertEqual(answers[2]["error"]["kind"], 0)

    def test_out_of_order_ids_and_stray_replies_end_the_session(self):
        with self.assertRaisesRegex(T.HarnessLost, "request id 0 after 0"):
            serve([], req(0, "live"))
        with self.assertRaisesRegex(T.HarnessLost, "expected a request"):
            serve([], {"reply": "now", "now_ns": 1})

    def test_create_checks_its_scalars(self):
        ch, _ = channel(frame(req(0, "create", scalars=[1, 2], region=False)))
        with self.assertRaisesRegex(T.HarnessLost, "want 10 scalars"):
            T.Server(FakeAdapter([]), ch).run()


class Reuse(unittest.TestCase):
    def run_server(self, reuse, *requests):
        data = b"".join(frame(r) for r in requests)
        ch, w = channel(data)
        adapter = FakeAdapter([True, True])
        made = []
        create = adapter.create
        adapter.create = lambda *a: made.append(create(*a)) or made[-1]
        T.Server(adapter, ch, reuse).run()
        return frames_of(w.getvalue()), made

    def test_end_drops_the_queue_and_closes_its_region(self):
        create = dict(scalars=SCALARS, region=False)
        answers, made = self.run_server(
            True, req(0, "create", **create), req(1, "end"), req(2, "try_enqueue", data="",
                                                                 nbytes=0),
            req(3, "create", **create), req(4, "try_enqueue", data="", nbytes=0), req(5, "quit"))
        self.assertEqual([x["outcome"] for x in answers],
                         ["ok", "ok", "failed", "ok", "ok", "ok"])
        self.assertIn("no queue", answers[2]["text"])
        self.assertEqual(len(made), 2)
        self.assertIsNot(made[0].region_proxy, made[1].region_proxy)
        # The first queue's region is closed: an access fails as a view failure
        # would, and nothing reaches the harness.
        with self.assertRaisesRegex(T.RegionError, "the harness ended this queue"):
            made[0].region_proxy.payload_read(0, 1)
        with self.assertRaisesRegex(T.RegionError, "the harness ended this queue"):
            made[0].region_proxy.counter(0).test(0, 0)

    def test_without_reuse_end_is_not_an_op(self):
        answers, _ = self.run_server(False, req(0, "create", scalars=SCALARS, region=False),
                                     req(1, "end"))
        self.assertEqual(answers[1]["outcome"], "unsupported")


if __name__ == "__main__":
    unittest.main()
