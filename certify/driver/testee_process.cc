#include "certify/driver/testee_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "testee/cpp/spsq_testee_frame.h"

namespace spsq_conf {
namespace {

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int remaining_ms(int64_t deadline_ms) {
  const int64_t left = deadline_ms - now_ms();
  return left < 0 ? 0 : static_cast<int>(left);
}

bool executable(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

TesteeProcess::~TesteeProcess() {
  kill_group();
  if (!stderr_path_.empty()) ::unlink(stderr_path_.c_str());
}

bool TesteeProcess::start(const std::vector<std::string>& argv, std::string* error) {
  // A testee that died leaves its stdin a broken pipe: the write must fail
  // with EPIPE, not end the suite binary.
  ::signal(SIGPIPE, SIG_IGN);
  if (argv.empty()) {
    *error = "empty testee command";
    return false;
  }
  char tmpl[] = "/tmp/spsq_testee_stderr_XXXXXX";
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string path = dir != nullptr ? std::string(dir) + "/spsq_testee_stderr_XXXXXX" : tmpl;
  std::vector<char> buf(path.begin(), path.end());
  buf.push_back('\0');
  const int err_fd = ::mkstemp(buf.data());
  if (err_fd < 0) {
    *error = "cannot create the testee's stderr file: " + std::string(std::strerror(errno));
    return false;
  }
  stderr_path_ = buf.data();
  int in_pipe[2], out_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0) {
    ::close(err_fd);
    *error = "pipe: " + std::string(std::strerror(errno));
    return false;
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    *error = "fork: " + std::string(std::strerror(errno));
    return false;
  }
  if (pid == 0) {
    // A group of its own, so a kill on expiry reaches whatever it started.
    ::setpgid(0, 0);
    // Its stderr is a file the harness reads: bounded like everything else.
    const rlimit fsize{kStderrBytes, kStderrBytes};
    ::setrlimit(RLIMIT_FSIZE, &fsize);
    ::dup2(in_pipe[0], 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_fd, 2);
    ::execv(args[0], args.data());
    std::fprintf(stderr, "cannot execute %s: %s\n", args[0], std::strerror(errno));
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here: no race with the child's own call
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  ::close(err_fd);
  pid_ = pid;
  to_ = in_pipe[1];
  from_ = out_pipe[0];
  ::fcntl(to_, F_SETFL, ::fcntl(to_, F_GETFL) | O_NONBLOCK);
  ::fcntl(from_, F_SETFL, ::fcntl(from_, F_GETFL) | O_NONBLOCK);
  return true;
}

// Reaps the testee if it ends within `ms` (it closed its stdout, so it is
// most likely exiting): the error then says how it ended.
void TesteeProcess::reap_within(int ms) {
  const int64_t deadline = now_ms() + ms;
  while (!reaped_ && pid_ > 0) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      reaped_ = true;
      reaped_status_ = status;
      return;
    }
    if (now_ms() >= deadline) return;
    pollfd none{-1, 0, 0};
    ::poll(&none, 0, 2);
  }
}

std::string TesteeProcess::exit_text() const {
  if (!reaped_) return "the testee closed its stdout";
  if (WIFEXITED(reaped_status_)) {
    return "the testee exited with status " + std::to_string(WEXITSTATUS(reaped_status_));
  }
  if (WIFSIGNALED(reaped_status_)) {
    return "the testee was killed by signal " + std::to_string(WTERMSIG(reaped_status_));
  }
  return "the testee ended";
}

bool TesteeProcess::read_exactly(void* buf, size_t n, int64_t deadline_ms, bool* eof_at_start,
                                 std::string* error) {
  auto* p = static_cast<unsigned char*>(buf);
  size_t got = 0;
  *eof_at_start = false;
  while (got < n) {
    pollfd pfd{from_, POLLIN, 0};
    const int r = ::poll(&pfd, 1, remaining_ms(deadline_ms));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) {
      *error = "no frame within the bound (" + std::to_string(got) + " of " + std::to_string(n) +
               " bytes read): the testee hangs";
      return false;
    }
    const ssize_t k = ::read(from_, p + got, n - got);
    if (k < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (k <= 0) {
      *eof_at_start = got == 0;
      reap_within(200);
      *error = exit_text() + (got == 0 ? "" : " inside a frame (" + std::to_string(got) + " of " +
                                                std::to_string(n) + " bytes: a truncated frame)");
      return false;
    }
    got += static_cast<size_t>(k);
  }
  return true;
}

bool TesteeProcess::read_frame(std::string* body, int timeout_ms, std::string* error) {
  if (pid_ <= 0) {
    *error = "the testee is not running";
    return false;
  }
  const int64_t deadline = now_ms() + timeout_ms;
  unsigned char head[4];
  bool eof = false;
  if (!read_exactly(head, 4, deadline, &eof, error)) return false;
  const uint32_t n = spsq_testee::decode_frame_header(head);
  const std::string bad = spsq_testee::frame_length_error(n);
  if (!bad.empty()) {
    char bytes[64];
    std::snprintf(bytes, sizeof(bytes), " (header bytes %02x %02x %02x %02x)", head[0], head[1],
                  head[2], head[3]);
    *error = "not a valid frame: " + bad + bytes;
    return false;
  }
  body->assign(n, '\0');
  return read_exactly(&(*body)[0], n, deadline, &eof, error);
}

bool TesteeProcess::write_frame(const std::string& body, int timeout_ms, std::string* error) {
  if (pid_ <= 0) {
    *error = "the testee is not running";
    return false;
  }
  std::string out(4, '\0');
  spsq_testee::encode_frame_header(static_cast<uint32_t>(body.size()),
                                   reinterpret_cast<unsigned char*>(&out[0]));
  out += body;
  const int64_t deadline = now_ms() + timeout_ms;
  size_t done = 0;
  while (done < out.size()) {
    pollfd pfd{to_, POLLOUT, 0};
    const int r = ::poll(&pfd, 1, remaining_ms(deadline));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) {
      *error = "the testee read no request within the bound: it hangs";
      return false;
    }
    const ssize_t w = ::write(to_, out.data() + done, out.size() - done);
    if (w < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (w <= 0) {
      reap_within(200);
      *error = exit_text() + " (a request could not be written)";
      return false;
    }
    done += static_cast<size_t>(w);
  }
  return true;
}

void TesteeProcess::finish(int timeout_ms, int* status) {
  *status = -1;
  if (pid_ <= 0) return;
  ::close(to_);
  to_ = -1;
  const int64_t deadline = now_ms() + timeout_ms;
  char sink[256];
  for (;;) {
    pollfd pfd{from_, POLLIN, 0};
    const int r = ::poll(&pfd, 1, remaining_ms(deadline));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    const ssize_t k = ::read(from_, sink, sizeof(sink));
    if (k < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (k <= 0) break;
  }
  reap_within(200);
  if (reaped_ && WIFEXITED(reaped_status_)) *status = WEXITSTATUS(reaped_status_);
  kill_group();
}

void TesteeProcess::kill_group() {
  if (pid_ > 0) {
    ::kill(-pid_, SIGKILL);
    if (!reaped_) {
      int st = 0;
      while (::waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
      }
      reaped_ = true;
      reaped_status_ = st;
    }
    pid_ = -1;
  }
  if (to_ >= 0) ::close(to_);
  if (from_ >= 0) ::close(from_);
  to_ = from_ = -1;
}

std::string TesteeProcess::stderr_tail(size_t bytes) const {
  if (stderr_path_.empty()) return "";
  std::ifstream f(stderr_path_, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string all = ss.str();
  return all.size() <= bytes ? all : all.substr(all.size() - bytes);
}

bool testee_frame_timeout_ms(int* out, std::string* error) {
  *out = 20000;
  const char* v = std::getenv("SPSQ_TESTEE_FRAME_TIMEOUT_S");
  if (v == nullptr || *v == '\0') return true;
  char* end = nullptr;
  errno = 0;
  const long s = std::strtol(v, &end, 10);
  if (errno != 0 || *end != '\0' || s <= 0 || s > 3600) {
    *error = std::string("SPSQ_TESTEE_FRAME_TIMEOUT_S=") + v +
             ": want a whole number of seconds from 1 to 3600";
    return false;
  }
  *out = static_cast<int>(s * 1000);
  return true;
}

bool testee_command(std::vector<std::string>* argv, std::string* error) {
  const char* v = std::getenv("SPSQ_TESTEE");
  if (v == nullptr || *v == '\0') {
    *error = "SPSQ_TESTEE is not set: it names the testee's command line (testee/PROTOCOL.md)";
    return false;
  }
  argv->clear();
  std::istringstream words(v);
  for (std::string w; words >> w;) argv->push_back(w);
  if (argv->empty()) {
    *error = "SPSQ_TESTEE is blank";
    return false;
  }
  const std::string first = (*argv)[0];
  if (first[0] == '/') {
    if (executable(first)) return true;
    *error = "SPSQ_TESTEE: " + first + " is not an executable file";
    return false;
  }
  std::vector<std::string> tried;
  for (const char* root : {"RUNFILES_DIR", "TEST_SRCDIR"}) {
    const char* r = std::getenv(root);
    if (r == nullptr) continue;
    const char* ws = std::getenv("TEST_WORKSPACE");
    for (const std::string& base :
         {std::string(r) + "/" + (ws != nullptr ? ws : "spsq_harness"), std::string(r)}) {
      tried.push_back(base + "/" + first);
    }
  }
  char cwd[4096];
  if (::getcwd(cwd, sizeof(cwd)) != nullptr) tried.push_back(std::string(cwd) + "/" + first);
  for (const std::string& t : tried) {
    if (executable(t)) {
      (*argv)[0] = t;
      return true;
    }
  }
  *error = "SPSQ_TESTEE: no executable " + first + " in the runfiles or the working directory "
           "(looked at";
  for (const std::string& t : tried) *error += " " + t;
  *error += ")";
  return false;
}

}  // namespace spsq_conf
