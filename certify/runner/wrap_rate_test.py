"""wrap_rate: the wrap row's ns per message and its ratio to the wire floor,
from the wrap test's properties and a floor binary (fakes here)."""

import os
import stat
import tempfile
import unittest

import verdicts as V
import wrap_rate


def wrap_case(**props):
    case = V.TestCase("mi1:wrap", "Wrap", "CountersWrapAndTrafficContinuesInBothDirections")
    case.properties.update(props)
    return case


class WrapRateTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.log = os.path.join(self.dir, "logs", "wire_floor.log")

    def floor(self, body):
        path = os.path.join(self.dir, "floor.sh")
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body + "\n")
        os.chmod(path, stat.S_IRWXU)
        return path

    def test_ns_per_message_and_ratio_per_ring(self):
        floor = self.floor('echo \'{"input_ns_per_message": 4.0, "output_ns_per_message": 5.0}\'')
        case = wrap_case(**{"messages_per_direction": "1000", "cpu_ns.input": "8000",
                            "cpu_ns.output": "15000"})
        line, numbers = wrap_rate.describe([case], floor, self.log)
        self.assertIn("1000 messages each way", line)
        self.assertIn("input ring 8.0 ns/message (2.00x the wire floor's 4.0)", line)
        self.assertIn("output ring 15.0 ns/message (3.00x the wire floor's 5.0)", line)
        self.assertEqual(numbers["ratio_to_floor"], {"input": 2.0, "output": 3.0})

    def test_the_median_chunk_is_the_rate_compared_the_whole_run_beside_it(self):
        floor = self.floor('echo \'{"input_ns_per_message": 4.0, "output_ns_per_message": 5.0}\'')
        case = wrap_case(**{"messages_per_direction": "1000", "cpu_ns.input": "8000",
                            "cpu_ns.output": "15000", "chunk_messages": "100",
                            "chunk_median_ns.input": "6.000", "chunks.input": "10",
                            "chunk_median_ns.output": "7.500", "chunks.output": "10"})
        line, numbers = wrap_rate.describe([case], floor, self.log)
        self.assertIn("input ring 6.0 ns/message (1.50x the wire floor's 4.0)", line)
        self.assertIn("output ring 7.5 ns/message (1.50x the wire floor's 5.0)", line)
        self.assertIn("the median of 10 chunks of 100 messages (the whole run: input 8.0, "
                      "output 15.0)", line)
        self.assertEqual(numbers["ratio_to_floor"], {"input": 1.5, "output": 1.5})
        self.assertEqual(numbers["ns_per_message_whole_run"], {"input": 8.0, "output": 15.0})

    def test_chunks_missing_for_a_ring_or_malformed_leave_the_whole_run(self):
        floor = self.floor('echo \'{"input_ns_per_message": 4.0, "output_ns_per_message": 5.0}\'')
        base = {"messages_per_direction": "1000", "cpu_ns.input": "8000",
                "cpu_ns.output": "15000", "chunk_messages": "100"}
        for extra in ({"chunk_median_ns.input": "6.0", "chunks.input": "10"},
                      {"chunk_median_ns.input": "6.0", "chunks.input": "10",
                       "chunk_median_ns.output": "x", "chunks.output": "10"},
                      {"chunk_median_ns.input": "6.0", "chunks.input": "10",
                       "chunk_median_ns.output": "7.5", "chunks.output": "0"}):
            case = wrap_case(**dict(base, **extra))
            line, numbers = wrap_rate.describe([case], floor, self.log)
            self.assertIn("input ring 8.0 ns/message (2.00x the wire floor's 4.0)", line)
            self.assertNotIn("median", line)
            self.assertNotIn("ns_per_message_whole_run", numbers)

    def test_the_floor_sampled_in_each_rings_thread_is_the_yardstick_the_lone_run_beside(self):
        floor = self.floor('echo \'{"input_ns_per_message": 3.0, "output_ns_per_message": 3.0}\'')
        case = wrap_case(**{"messages_per_direction": "1000", "cpu_ns.input": "8000",
                            "cpu_ns.output": "15000", "chunk_messages": "100",
                            "chunk_median_ns.input": "6.000", "chunks.input": "10",
                            "chunk_median_ns.output": "9.000", "chunks.output": "10",
                            "floor_messages": "50", "floor_median_ns.input": "4.000",
                            "floor_samples.input": "10", "floor_median_ns.output": "6.000",
                            "floor_samples.output": "9"})
        line, numbers = wrap_rate.describe([case], floor, self.log)
        self.assertIn("input ring 6.0 ns/message (1.50x the wire floor's 4.0 in its thread)", line)
        self.assertIn("output ring 9.0 ns/message (1.50x the wire floor's 6.0 in its thread)", line)
        self.assertIn("the floor is the median of 9 samples of 50 messages beside the chunks, "
                      "run alone after the wrap: input 3.0, output 3.0", line)
        self.assertNotIn("last 50 messages", line)
        self.assertEqual(numbers["ratio_to_floor"], {"input": 1.5, "output": 1.5})
        self.assertEqual(numbers["floor_ns_per_message"], {"input": 4.0, "output": 6.0})
        self.assertEqual(numbers["floor_alone_ns_per_message"], {"input": 3.0, "output": 3.0})
        # The lone run failing costs only its own figures.
        broken = self.floor("exit 4")
        line, numbers = wrap_rate.describe([case], broken, self.log)
        self.assertIn("(1.50x the wire floor's 4.0 in its thread)", line)
        self.assertIn("not run alone: the wire floor exited with status 4", line)
        self.assertNotIn("floor_alone_ns_per_message", numbers)

    def test_the_ratio_is_the_median_of_each_chunk_against_the_floor_beside_it(self):
        floor = self.floor('echo \'{"input_ns_per_message": 3.0, "output_ns_per_message": 3.0}\'')
        base = {"messages_per_direction": "1000", "cpu_ns.input": "8000",
                "cpu_ns.output": "15000", "chunk_messages": "100",
                "chunk_median_ns.input": "6.000", "chunks.input": "10",
                "chunk_median_ns.output": "9.000", "chunks.output": "10",
                "floor_messages": "50", "floor_median_ns.input": "4.000",
                "floor_samples.input": "11", "floor_median_ns.output": "6.000",
                "floor_samples.output": "11"}
        case = wrap_case(**dict(base, **{"chunk_floor_ratio_median.input": "1.250",
                                         "chunk_floor_ratio_median.output": "1.750"}))
        line, numbers = wrap_rate.describe([case], floor, self.log)
        # Not the ratio of the medians (1.50x): each chunk's tail against its own floor.
        self.assertIn("input ring 6.0 ns/message (1.25x the wire floor's 4.0 in its thread)", line)
        self.assertIn("output ring 9.0 ns/message (1.75x the wire floor's 6.0 in its thread)", line)
        self.assertIn("the ratio the median of each chunk's last 50 messages against the sample "
                      "after them", line)
        self.assertEqual(numbers["ratio_to_floor"], {"input": 1.25, "output": 1.75})
        # Paired ratios missing for a ring, malformed or not positive: the medians' ratio.
        for extra in ({"chunk_floor_ratio_median.input": "1.25"},
                      {"chunk_floor_ratio_median.input": "1.25",
                       "chunk_floor_ratio_median.output": "x"},
                      {"chunk_floor_ratio_median.input": "1.25",
                       "chunk_floor_ratio_median.output": "0"}):
            line, numbers = wrap_rate.describe([wrap_case(**dict(base, **extra))], floor,
                                               self.log)
            self.assertEqual(numbers["ratio_to_floor"], {"input": 1.5, "output": 1.5})
            self.assertNotIn("last 50 messages", line)

    def test_floor_samples_failed_or_malformed_leave_the_lone_run_as_the_yardstick(self):
        floor = self.floor('echo \'{"input_ns_per_message": 4.0, "output_ns_per_message": 5.0}\'')
        base = {"messages_per_direction": "1000", "cpu_ns.input": "8000",
                "cpu_ns.output": "15000", "floor_messages": "50"}
        cases = (
            ({"floor_error.output": "the wire floor failed: wrong seq 7"},
             "no floor in the rings' threads (output ring: the wire floor failed: wrong seq 7)"),
            ({"floor_median_ns.input": "4.0", "floor_samples.input": "3"},
             "no floor in the rings' threads (the wrap recorded its floor samples malformed)"),
            ({"floor_median_ns.input": "4.0", "floor_samples.input": "3",
              "floor_median_ns.output": "0", "floor_samples.output": "3"},
             "malformed"),
        )
        for extra, want in cases:
            line, numbers = wrap_rate.describe([wrap_case(**dict(base, **extra))], floor, self.log)
            self.assertIn("input ring 8.0 ns/message (2.00x the wire floor's 4.0)", line)
            self.assertIn(want, line)
            self.assertNotIn("floor_alone_ns_per_message", numbers)

    def test_a_failed_floor_leaves_the_numbers_without_a_ratio(self):
        floor = self.floor("echo broken >&2; exit 3")
        case = wrap_case(**{"messages_per_direction": "10", "cpu_ns.input": "10",
                            "cpu_ns.output": "20"})
        line, numbers = wrap_rate.describe([case], floor, self.log)
        self.assertIn("input ring 1.0 ns/message", line)
        self.assertIn("no ratio: the wire floor exited with status 3", line)
        self.assertNotIn("ratio_to_floor", numbers)

    def test_a_wrap_that_recorded_nothing_is_not_measured(self):
        line, numbers = wrap_rate.describe([wrap_case()], None, self.log)
        self.assertTrue(line.startswith("speed not measured:"), line)
        self.assertEqual(numbers, {})
        line, _ = wrap_rate.describe([wrap_case(messages_per_direction="5")], None, self.log)
        self.assertIn("no CPU time per ring", line)


if __name__ == "__main__":
    unittest.main()
