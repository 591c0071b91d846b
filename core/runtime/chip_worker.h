// One simulated chip worker: runs submitted L2 orchestration tasks either on
// its own thread or in a child process, and reports their drain.
//
// An L2 task (runtime/l2_task.h) is a plain function pointer (the stand-in for
// an AICPU binary's entry point) called with the TaskArgs scalars and the call
// config, or, in process mode, an external executable the worker forks and
// execs (the exec ABI, including how the child rebases region addresses, is
// documented in runtime/l2_task.h). It gets no pointer into L3 state: in
// process mode the child shares only RegionInstance memory with L3, so the ten
// binding scalars and the region bytes are all that cross.
#ifndef SPSQ_RUNTIME_CHIP_WORKER_H_
#define SPSQ_RUNTIME_CHIP_WORKER_H_

#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/l2_task.h"
#include "region/region_instance.h"
#include "runtime/task_args.h"

namespace spsq_runtime {

enum class ChipWorkerMode : uint32_t {
  kThread = 0,   // L2 runs on the worker's own thread
  kProcess = 1,  // L2 runs in a forked (and, for a binary, exec'd) child
                 // sharing only region memory
};

const char* chip_worker_mode_name(ChipWorkerMode mode);

// What Worker::run() saw drain since the previous run().
struct WorkerRunReport {
  uint64_t tasks_completed = 0;  // returned normally (process mode: exit status 0)
  uint64_t tasks_failed = 0;     // process mode: nonzero exit or killed
  std::string first_failure;     // empty when tasks_failed == 0

  bool ok() const { return tasks_failed == 0; }
};

class ChipWorker {
 public:
  ChipWorker(uint32_t worker_id, ChipWorkerMode mode);
  ChipWorker(const ChipWorker&) = delete;
  ChipWorker& operator=(const ChipWorker&) = delete;
  ~ChipWorker();  // drains, then stops the thread

  uint32_t id() const { return id_; }
  ChipWorkerMode mode() const { return mode_; }

  // Starts `handle` with `args`. `pins` keep the RegionInstances the task may
  // touch alive until it has returned; an external binary also receives their
  // memfds (runtime/l2_task.h). Returns false with *error set when the task
  // could not be started (then nothing is pinned): no function and no binary,
  // both, a binary in thread mode, or fork/exec failed (the exec error is
  // reported here, not by run()).
  bool submit(const L2OrchHandle& handle, const TaskArgs& args, const ChipCallConfig& cfg,
              std::vector<std::shared_ptr<RegionInstance>> pins, std::string* error);

  // Blocks until every task submitted so far has returned, then reports them.
  WorkerRunReport run();

  // Tasks submitted and not yet returned (thread mode) or not yet reaped
  // (process mode).
  uint64_t pending() const;

 private:
  struct Task {
    L2OrchHandle handle;
    TaskArgs args;
    ChipCallConfig cfg;
    std::vector<std::shared_ptr<RegionInstance>> pins;
    pid_t child = -1;  // process mode
  };

  bool spawn_binary(const Task& task, pid_t* child, std::string* error);
  void thread_main();
  void record_failure(const std::string& what);

  const uint32_t id_;
  const ChipWorkerMode mode_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Task> queued_;  // thread mode: waiting to run; process mode: running children
  uint64_t running_ = 0;
  bool stopping_ = false;
  WorkerRunReport report_;
  std::thread thread_;
};

}  // namespace spsq_runtime

#endif  // SPSQ_RUNTIME_CHIP_WORKER_H_
