#include "runtime/chip_worker.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

namespace spsq_runtime {

const char* chip_worker_mode_name(ChipWorkerMode mode) {
  switch (mode) {
    case ChipWorkerMode::kThread: return "thread";
    case ChipWorkerMode::kProcess: return "process";
  }
  return "unknown";
}

ChipWorker::ChipWorker(uint32_t worker_id, ChipWorkerMode mode) : id_(worker_id), mode_(mode) {
  if (mode_ == ChipWorkerMode::kThread) thread_ = std::thread([this] { thread_main(); });
}

ChipWorker::~ChipWorker() {
  run();
  if (thread_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
}

bool ChipWorker::submit(const L2OrchHandle& handle, const TaskArgs& args,
                        const ChipCallConfig& cfg,
                        std::vector<std::shared_ptr<RegionInstance>> pins, std::string* error) {
  char buf[200];
  if (handle.fn == nullptr) {
    std::snprintf(buf, sizeof(buf), "L2 handle '%s' has no orchestration function",
                  handle.name != nullptr ? handle.name : "");
    *error = buf;
    return false;
  }
  Task task{handle, args, cfg, std::move(pins), -1};
  if (mode_ == ChipWorkerMode::kThread) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queued_.push_back(std::move(task));
    }
    cv_.notify_all();
    return true;
  }

  // Unflushed stdio would otherwise be written twice, once by each process.
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    std::snprintf(buf, sizeof(buf), "fork() for L2 task '%s' failed: %s", handle.name,
                  std::strerror(errno));
    *error = buf;
    return false;
  }
  if (pid == 0) {
    // The child sees a private copy of L3's memory and the shared mapping of
    // each RegionInstance; it leaves without running the parent's atexit
    // handlers or destructors.
    handle.fn(task.args, task.cfg);
    std::fflush(nullptr);
    _exit(0);
  }
  task.child = pid;
  std::lock_guard<std::mutex> lock(mu_);
  queued_.push_back(std::move(task));
  return true;
}

void ChipWorker::record_failure(const std::string& what) {
  ++report_.tasks_failed;
  if (report_.first_failure.empty()) report_.first_failure = what;
}

void ChipWorker::thread_main() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return stopping_ || !queued_.empty(); });
    if (queued_.empty()) return;  // stopping with nothing left
    Task task = std::move(queued_.front());
    queued_.pop_front();
    ++running_;
    lock.unlock();
    task.handle.fn(task.args, task.cfg);
    // The task has returned: its RegionInstances may now be reclaimed.
    task.pins.clear();
    lock.lock();
    --running_;
    ++report_.tasks_completed;
    cv_.notify_all();
  }
}

WorkerRunReport ChipWorker::run() {
  if (mode_ == ChipWorkerMode::kThread) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return queued_.empty() && running_ == 0; });
    return std::exchange(report_, WorkerRunReport{});
  }

  std::deque<Task> children;
  {
    std::lock_guard<std::mutex> lock(mu_);
    children.swap(queued_);
  }
  for (Task& task : children) {
    int status = 0;
    pid_t r;
    do {
      r = waitpid(task.child, &status, 0);
    } while (r < 0 && errno == EINTR);
    task.pins.clear();
    char buf[200];
    std::lock_guard<std::mutex> lock(mu_);
    if (r < 0) {
      std::snprintf(buf, sizeof(buf), "waitpid(%d) for L2 task '%s' failed: %s",
                    static_cast<int>(task.child), task.handle.name, std::strerror(errno));
      record_failure(buf);
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      ++report_.tasks_completed;
    } else if (WIFEXITED(status)) {
      std::snprintf(buf, sizeof(buf), "L2 task '%s' (child %d) exited with status %d",
                    task.handle.name, static_cast<int>(task.child), WEXITSTATUS(status));
      record_failure(buf);
    } else {
      std::snprintf(buf, sizeof(buf), "L2 task '%s' (child %d) was killed by signal %d",
                    task.handle.name, static_cast<int>(task.child),
                    WIFSIGNALED(status) ? WTERMSIG(status) : -1);
      record_failure(buf);
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  return std::exchange(report_, WorkerRunReport{});
}

uint64_t ChipWorker::pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queued_.size() + running_;
}

}  // namespace spsq_runtime
