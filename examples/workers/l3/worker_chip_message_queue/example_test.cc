// The shipped example end to end, in thread and process mode: four outputs,
// byte-exact and in order, and the L2 task's exit seen through the drain.
#include <cstring>
#include <string>
#include <vector>

#include "examples/workers/l3/worker_chip_message_queue/l3_host.h"
#include "gtest/gtest.h"

namespace worker_chip_message_queue {
namespace {

// Built from spec section 5's numbers alone, without the example's own helpers.
std::vector<uint8_t> expected_output(uint64_t request_id, uint64_t kind, uint64_t aux,
                                     float base, float per_column) {
  std::vector<uint8_t> v(64 + 128 * 128 * 4, 0);
  for (int b = 0; b < 8; ++b) {
    v[b] = static_cast<uint8_t>(request_id >> (8 * b));
    v[8 + b] = static_cast<uint8_t>(kind >> (8 * b));
    v[16 + b] = static_cast<uint8_t>(aux >> (8 * b));
  }
  for (int i = 0; i < 128 * 128; ++i) {
    const float x = base + per_column * static_cast<float>(i % 128);
    std::memcpy(v.data() + 64 + 4 * i, &x, 4);
  }
  return v;
}

class WorkerChipMessageQueueExample
    : public ::testing::TestWithParam<spsq_runtime::ChipWorkerMode> {};

TEST_P(WorkerChipMessageQueueExample, OutputsAreByteExactAndInOrder) {
  const ExampleRun r = run_example(GetParam(), /*verbose=*/false);
  ASSERT_TRUE(r.ok) << r.error;
  // Inputs: (0,1) base 1, (0,2) base 100, (0,3) base 1000, (7,3) base 2000.
  const std::vector<std::vector<uint8_t>> want = {
      expected_output(0, 20, 0, 100 + 20, 1),   // mode-2 tile + 20
      expected_output(0, 10, 0, 1 + 10, 1),     // held mode-1 tile + 10
      expected_output(0, 11, 0, 1 + 11, 1),     // held mode-1 tile + 11
      expected_output(0, 30, 7, 1000 + 2000, 2),  // sum of the two mode-3 tiles
  };
  ASSERT_EQ(r.outputs.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(r.outputs[i].seq, i + 1);  // transport seq, not the request id
    EXPECT_EQ(r.outputs[i].opcode, 1u);  // DATA
    ASSERT_EQ(r.outputs[i].payload.size(), want[i].size());
    EXPECT_TRUE(r.outputs[i].payload == want[i]) << "first differing byte at "
        << (std::mismatch(want[i].begin(), want[i].end(), r.outputs[i].payload.begin()).first -
            want[i].begin());
  }
  // The persistent L2 task returned (after input().drained()) and the
  // freed queue's memory went with the drain.
  EXPECT_EQ(r.worker.tasks_completed, 1u);
  EXPECT_EQ(r.worker.tasks_failed, 0u);
  EXPECT_EQ(r.live_regions_after_drain, 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Modes, WorkerChipMessageQueueExample,
    ::testing::Values(spsq_runtime::ChipWorkerMode::kThread,
                      spsq_runtime::ChipWorkerMode::kProcess),
    [](const ::testing::TestParamInfo<spsq_runtime::ChipWorkerMode>& info) {
      return std::string(spsq_runtime::chip_worker_mode_name(info.param));
    });

}  // namespace
}  // namespace worker_chip_message_queue
