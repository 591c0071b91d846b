// What one L3 queue call did. The L3 API mirrors the spec's Python surface:
// a try_* call that cannot progress is WOULD_BLOCK (Python: False / None), a
// blocking call whose deadline passed is TIMED_OUT (neither is poison), a
// usage error is REJECTED and leaves the queue live (Python: ValueError), and
// FAILED means the queue handle is terminally poisoned or remote-aborted.
#ifndef SPSQ_L3_WORKER_CHIP_QUEUE_STATUS_H_
#define SPSQ_L3_WORKER_CHIP_QUEUE_STATUS_H_

#include <cstdint>

namespace spsc_queue {

enum class WorkerChipQueueStatus : uint32_t {
  OK = 0,
  WOULD_BLOCK = 1,  // try_*: ring or arena full, or no output yet
  TIMED_OUT = 2,    // positive timeout expired, peer abort flag down
  REJECTED = 3,     // usage error (last_error() says which); no poison
  FAILED = 4,       // poisoned or remote abort (error() says which)
};

inline const char* worker_chip_queue_status_name(WorkerChipQueueStatus s) {
  switch (s) {
    case WorkerChipQueueStatus::OK: return "OK";
    case WorkerChipQueueStatus::WOULD_BLOCK: return "WOULD_BLOCK";
    case WorkerChipQueueStatus::TIMED_OUT: return "TIMED_OUT";
    case WorkerChipQueueStatus::REJECTED: return "REJECTED";
    case WorkerChipQueueStatus::FAILED: return "FAILED";
  }
  return "UNKNOWN";
}

}  // namespace spsc_queue

#endif  // SPSQ_L3_WORKER_CHIP_QUEUE_STATUS_H_
