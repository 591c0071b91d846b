#include "runtime/chip_worker.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <utility>

extern char** environ;

namespace spsq_runtime {
namespace {

// The scalars as L2 code in this process must see them: an address inside a
// cached queue payload (region/payload_caches.h) moves from L3's copy to
// L2's, attached here, in the process that runs the task. Without caches the
// scalars come back unchanged.
TaskArgs l2_local_args(const TaskArgs& args,
                       const std::vector<std::shared_ptr<RegionInstance>>& pins) {
  bool any = false;
  for (const auto& pin : pins) any = any || (pin && pin->payload_cached());
  if (!any) return args;
  TaskArgs local;
  for (size_t i = 0; i < args.scalar_count(); ++i) {
    uint64_t v = args.scalar(static_cast<int32_t>(i));
    for (const auto& pin : pins) {
      if (!pin || !pin->payload_cached()) continue;
      const RegionPartLocalSpan p = pin->payload();
      if (v >= p.base && v - p.base < p.logical_bytes) {
        v = pin->l2_payload_base() + (v - p.base);
        break;
      }
    }
    local.add_scalar(v);
  }
  return local;
}

// Serializes the fork()s of every chip worker in the process, so a plain
// process-mode fork never inherits the write end of another submit's exec
// status pipe (which would hold that submit until the forked task exits).
std::mutex g_fork_mu;

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
  return buf;
}

bool starts_with(const char* s, const char* prefix) {
  return std::strncmp(s, prefix, std::strlen(prefix)) == 0;
}

}  // namespace

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
  char buf[400];
  const char* name = handle.name != nullptr ? handle.name : "";
  const bool is_binary = handle.binary != nullptr && handle.binary[0] != '\0';
  if (handle.fn == nullptr && !is_binary) {
    std::snprintf(buf, sizeof(buf), "L2 handle '%s' has no orchestration function", name);
    *error = buf;
    return false;
  }
  if (handle.fn != nullptr && is_binary) {
    std::snprintf(buf, sizeof(buf),
                  "L2 handle '%s' has both an orchestration function and a binary (%s)", name,
                  handle.binary);
    *error = buf;
    return false;
  }
  if (is_binary && mode_ != ChipWorkerMode::kProcess) {
    std::snprintf(buf, sizeof(buf),
                  "L2 handle '%s' is an external binary (%s); it needs process mode, worker %u "
                  "runs in %s mode",
                  name, handle.binary, id_, chip_worker_mode_name(mode_));
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

  if (is_binary) {
    if (!spawn_binary(task, &task.child, error)) return false;
    std::lock_guard<std::mutex> lock(mu_);
    queued_.push_back(std::move(task));
    return true;
  }

  pid_t pid;
  {
    std::lock_guard<std::mutex> fork_lock(g_fork_mu);
    // Unflushed stdio would otherwise be written twice, once by each process.
    std::fflush(nullptr);
    pid = fork();
  }
  if (pid < 0) {
    std::snprintf(buf, sizeof(buf), "fork() for L2 task '%s' failed: %s", name,
                  std::strerror(errno));
    *error = buf;
    return false;
  }
  if (pid == 0) {
    // The child sees a private copy of L3's memory and the shared mapping of
    // each RegionInstance; it leaves without running the parent's atexit
    // handlers or destructors.
    handle.fn(l2_local_args(task.args, task.pins), task.cfg);
    std::fflush(nullptr);
    _exit(0);
  }
  task.child = pid;
  std::lock_guard<std::mutex> lock(mu_);
  queued_.push_back(std::move(task));
  return true;
}

bool ChipWorker::spawn_binary(const Task& task, pid_t* child, std::string* error) {
  char buf[400];
  const char* name = task.handle.name != nullptr ? task.handle.name : "";
  const std::string binary = task.handle.binary;

  // Everything the child needs is built before fork(): between fork() and
  // execve() it only calls async-signal-safe functions.
  std::string scalars;
  for (size_t i = 0; i < task.args.scalar_count(); ++i) {
    if (i != 0) scalars += ',';
    scalars += hex(task.args.scalar(static_cast<int32_t>(i)));
  }
  std::string regions;
  std::vector<int> fds;
  for (const auto& pin : task.pins) {
    if (!pin) continue;
    const RegionInstanceShare sh = pin->share();
    if (sh.fd < 0) continue;
    if (!regions.empty()) regions += ';';
    regions += std::to_string(sh.fd) + ',' + hex(sh.payload_offset) + ',' +
               hex(sh.payload_bytes) + ',' + hex(sh.counter_offset) + ',' +
               hex(sh.counter_bytes) + ',' + hex(pin->payload().base) + ',' +
               hex(pin->counter().base);
    fds.push_back(sh.fd);
  }
  std::vector<std::string> env_strings;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (!starts_with(*e, kL2TaskEnvPrefix)) env_strings.emplace_back(*e);
  }
  env_strings.push_back(std::string(kL2TaskAbiEnv) + "=" + kL2TaskAbiVersion);
  env_strings.push_back(std::string(kL2TaskNameEnv) + "=" + name);
  env_strings.push_back(std::string(kL2TaskScalarsEnv) + "=" + scalars);
  env_strings.push_back(std::string(kL2TaskBlockDimEnv) + "=" + std::to_string(task.cfg.block_dim));
  env_strings.push_back(std::string(kL2TaskRegionsEnv) + "=" + regions);
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(&e[0]);
  envp.push_back(nullptr);
  std::string argv0 = binary;
  char* argv[] = {&argv0[0], nullptr};

  pid_t pid;
  int status_pipe[2];
  {
    std::lock_guard<std::mutex> fork_lock(g_fork_mu);
    // The child reports a failed execve() through this pipe; a successful one
    // closes it (close-on-exec), so the parent reads EOF.
    if (pipe2(status_pipe, O_CLOEXEC) != 0) {
      std::snprintf(buf, sizeof(buf), "pipe2() for L2 task '%s' failed: %s", name,
                    std::strerror(errno));
      *error = buf;
      return false;
    }
    std::fflush(nullptr);
    pid = fork();
    if (pid == 0) {
      close(status_pipe[0]);
      int err = 0;
      for (int fd : fds) {
        if (fcntl(fd, F_SETFD, 0) != 0) err = errno;
      }
      if (err == 0) {
        execve(argv[0], argv, envp.data());
        err = errno;
      }
      ssize_t ignored = write(status_pipe[1], &err, sizeof(err));
      (void)ignored;
      _exit(127);
    }
    close(status_pipe[1]);
  }
  if (pid < 0) {
    const int err = errno;
    close(status_pipe[0]);
    std::snprintf(buf, sizeof(buf), "fork() for L2 task '%s' (%s) failed: %s", name,
                  binary.c_str(), std::strerror(err));
    *error = buf;
    return false;
  }
  int child_errno = 0;
  ssize_t n;
  do {
    n = read(status_pipe[0], &child_errno, sizeof(child_errno));
  } while (n < 0 && errno == EINTR);
  close(status_pipe[0]);
  if (n == 0) {  // EOF: execve() succeeded
    *child = pid;
    return true;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::snprintf(buf, sizeof(buf), "exec of L2 task '%s' binary '%s' failed: %s", name,
                binary.c_str(),
                n == static_cast<ssize_t>(sizeof(child_errno)) ? std::strerror(child_errno)
                                                               : "no status from the child");
  *error = buf;
  return false;
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
    task.handle.fn(l2_local_args(task.args, task.pins), task.cfg);
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
