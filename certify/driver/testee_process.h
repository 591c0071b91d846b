// One testee process as the harness sees it (testee/PROTOCOL.md): started
// from a command line in a process group of its own, frames over its stdin
// and stdout, stderr into a file whose tail goes into error messages. Every
// read and write waits at most the frame bound (wall time, poll(2)); on any
// failure the caller kills the group. Never blocks past the bound, never
// raises SIGPIPE in the harness.
#ifndef SPSQ_CONFORMANCE_DRIVER_TESTEE_PROCESS_H_
#define SPSQ_CONFORMANCE_DRIVER_TESTEE_PROCESS_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace spsq_conf {

class TesteeProcess {
 public:
  static constexpr uint64_t kStderrBytes = 64u << 20;

  TesteeProcess() = default;
  TesteeProcess(const TesteeProcess&) = delete;
  TesteeProcess& operator=(const TesteeProcess&) = delete;
  ~TesteeProcess();

  // Starts argv (argv[0] a path). False with *error when it cannot start.
  bool start(const std::vector<std::string>& argv, std::string* error);
  bool running() const { return pid_ > 0; }

  // One frame's body, within `timeout_ms`. False with *error naming what
  // went wrong (exit, silence past the bound, a bad length, a short frame).
  bool read_frame(std::string* body, int timeout_ms, std::string* error);
  bool write_frame(const std::string& body, int timeout_ms, std::string* error);

  // After the testee was asked to quit: waits up to `timeout_ms` for its
  // stdout to close, then kills the group and reaps it. *status: the exit
  // status when it exited on its own, -1 otherwise.
  void finish(int timeout_ms, int* status);
  // SIGKILL to the whole group, then reap. Idempotent.
  void kill_group();

  // The last `bytes` of what the testee wrote to stderr (a file of at most
  // kStderrBytes: a testee that writes more is killed by SIGXFSZ).
  std::string stderr_tail(size_t bytes = 2048) const;

 private:
  bool read_exactly(void* buf, size_t n, int64_t deadline_ms, bool* eof_at_start,
                    std::string* error);
  void reap_within(int ms);
  std::string exit_text() const;

  pid_t pid_ = -1;
  int to_ = -1;    // the testee's stdin
  int from_ = -1;  // the testee's stdout
  std::string stderr_path_;
  int reaped_status_ = -1;
  bool reaped_ = false;
};

// The frame bound: SPSQ_TESTEE_FRAME_TIMEOUT_S seconds (default 20).
// False with *error when the variable is set to anything but a positive
// integer of at most 3600.
bool testee_frame_timeout_ms(int* out, std::string* error);

// SPSQ_TESTEE split on spaces, its first word resolved against the
// runfiles, then the working directory. False with *error naming what is
// missing or where the program was looked for.
bool testee_command(std::vector<std::string>* argv, std::string* error);

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_DRIVER_TESTEE_PROCESS_H_
