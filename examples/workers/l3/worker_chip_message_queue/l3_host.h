// The L3 host orchestration of the example: create the queue, start the
// persistent L2 task, exchange the section-5 messages, stop, free, and
// observe L2's exit through the worker drain.
#ifndef EXAMPLES_WORKER_CHIP_MESSAGE_QUEUE_L3_HOST_H_
#define EXAMPLES_WORKER_CHIP_MESSAGE_QUEUE_L3_HOST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/chip_worker.h"

namespace worker_chip_message_queue {

// The shipped example's queue: depth 8, 512 KiB arenas both ways.
inline constexpr uint64_t kDepth = 8;
inline constexpr uint64_t kArenaBytes = 512 * 1024;
inline constexpr uint32_t kAivBlocks = 4;

struct ReceivedOutput {
  uint64_t seq = 0;
  uint64_t opcode = 0;
  std::vector<uint8_t> payload;
};

struct ExampleRun {
  bool ok = false;
  std::string error;                     // first failure, empty when ok
  std::vector<ReceivedOutput> outputs;   // in the order L3 dequeued them
  spsq_runtime::WorkerRunReport worker;  // the L2 drain
  uint64_t live_regions_after_drain = 0;
};

// The input message i of the scenario (header + tile base + (j % 128)).
std::vector<uint8_t> example_input(uint64_t request_id, uint64_t mode, float base);

ExampleRun run_example(spsq_runtime::ChipWorkerMode mode, bool verbose);

}  // namespace worker_chip_message_queue

#endif  // EXAMPLES_WORKER_CHIP_MESSAGE_QUEUE_L3_HOST_H_
