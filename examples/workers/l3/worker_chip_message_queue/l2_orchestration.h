// The persistent L2 AICPU orchestration task of the example: one call serves
// the whole queue lifetime and returns only after STOP has been drained.
#ifndef EXAMPLES_WORKER_CHIP_MESSAGE_QUEUE_L2_ORCHESTRATION_H_
#define EXAMPLES_WORKER_CHIP_MESSAGE_QUEUE_L2_ORCHESTRATION_H_

#include <cstdint>

#include "runtime/chip_worker.h"
#include "runtime/task_args.h"

namespace worker_chip_message_queue {

// TaskArgs: the ten binding scalars at offset 0, then scalar 10 = flags.
inline constexpr int32_t kFlagsScalar = 10;
inline constexpr uint64_t kFlagVerbose = 1;

// How long L2 waits for any single input or output slot before giving up.
inline constexpr uint64_t kL2WaitNs = 30ull * 1000 * 1000 * 1000;

void worker_chip_message_queue_l2(const spsq_runtime::TaskArgs& orch_args,
                                  const spsq_runtime::ChipCallConfig& cfg);

inline const spsq_runtime::L2OrchHandle kWorkerChipMessageQueueL2{
    "worker_chip_message_queue_l2", &worker_chip_message_queue_l2};

}  // namespace worker_chip_message_queue

#endif  // EXAMPLES_WORKER_CHIP_MESSAGE_QUEUE_L2_ORCHESTRATION_H_
