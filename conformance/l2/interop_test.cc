// Interop, the L3 side: the L2 endpoint under test runs as a persistent L2
// task on the reference runtime and talks to the reference L3 queue. The
// endpoint never shares a translation unit or a binary with the reference:
// it lives in its own child binary (interop_child_main.cc, built per
// certification from "spsq_cert/config.h"), which the reference chip worker
// forks and execs in process mode (the exec ABI of runtime/l2_task.h). The
// child maps the queue's RegionInstance through its inherited memfd, at
// addresses of its own, and sees nothing else of this process. L2 echoes
// every input reversed; L3 checks every byte and stops the task. Real
// processes and clocks; timeouts only bound failures.
//
// This binary links only the reference runtime, gtest and the clause
// recorder; it includes nothing of the implementation under test. It learns
// the child and the certified MaxInflight from
//   --child=PATH --max-inflight=N        (bazel test: the macro's `args`)
// and otherwise from the defaults spsq_l2_certification generates per
// certification and window (kInteropChild, the child's runfiles path, and
// kInteropMaxInflight: a source of two constants, so this one is compiled once
// for every certification), so the report test can run it with no arguments. A relative child path is looked up from the working directory
// (a runfiles root under bazel test and under the report test), then under
// $RUNFILES_DIR and $TEST_SRCDIR, then next to this binary (both are outputs
// of the same package).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "testkit/clauses.h"
#include "gtest/gtest.h"
#include "runtime/orchestrator.h"

namespace spsq_conf {

// Defined by the certification's generated defaults.
extern const char* const kInteropChild;
extern const uint64_t kInteropMaxInflight;

namespace {

constexpr std::chrono::nanoseconds kBound = std::chrono::seconds(20);
// Counter offsets of the two abort flags (wire contract).
constexpr uint64_t kInitiatorFlag = 256;  // L3
constexpr uint64_t kPeerFlag = 320;       // L2

std::string Arg(const char* prefix) {
  for (const std::string& a : ::testing::internal::GetArgvs()) {
    if (a.rfind(prefix, 0) == 0) return a.substr(std::strlen(prefix));
  }
  return "";
}

bool Executable(const std::string& p) { return !p.empty() && access(p.c_str(), X_OK) == 0; }

std::string SelfDir() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "";
  std::string self(buf, static_cast<size_t>(n));
  const size_t slash = self.rfind('/');
  return slash == std::string::npos ? "" : self.substr(0, slash);
}

// The child binary, or "" with *why saying where it was looked for.
std::string FindChild(std::string* why) {
  std::string path = Arg("--child=");
  const char* source = "--child";
  if (path.empty()) {
    path = kInteropChild;
    source = "the certification's default";
  }
  if (path.empty()) {
    *why = "no child binary: pass --child=PATH (spsq_l2_certification does)";
    return "";
  }
  std::vector<std::string> candidates{path};
  if (path[0] != '/') {
    // A runfiles path of the main repository is "<workspace>/<rootpath>";
    // one of an external repository "<repo>/..." (rootpath "../<repo>/...").
    const bool external = path.rfind("../", 0) == 0;
    const std::string in_tree = external ? path.substr(3) : path;
    const char* ws = std::getenv("TEST_WORKSPACE");
    for (const char* var : {"RUNFILES_DIR", "TEST_SRCDIR"}) {
      const char* root = std::getenv(var);
      if (root == nullptr || root[0] == '\0') continue;
      if (external) {
        candidates.push_back(std::string(root) + "/" + in_tree);
      } else if (ws != nullptr && ws[0] != '\0') {
        candidates.push_back(std::string(root) + "/" + ws + "/" + in_tree);
      }
    }
    const std::string dir = SelfDir();
    const size_t slash = path.rfind('/');
    if (!dir.empty()) {
      const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
      candidates.push_back(dir + "/" + base);
    }
  }
  for (const std::string& c : candidates) {
    if (Executable(c)) return c;
  }
  *why = "child binary '" + path + "' (from " + source + ") not found or not executable; tried";
  for (const std::string& c : candidates) *why += " '" + c + "'";
  return "";
}

uint64_t MaxInflight(std::string* why) {
  const std::string arg = Arg("--max-inflight=");
  if (arg.empty()) {
    if (kInteropMaxInflight == 0) *why = "no MaxInflight: pass --max-inflight=N";
    return kInteropMaxInflight;
  }
  char* end = nullptr;
  const unsigned long long n = std::strtoull(arg.c_str(), &end, 10);
  if (end == arg.c_str() || *end != '\0' || n == 0) {
    *why = "bad --max-inflight=" + arg;
    return 0;
  }
  return n;
}

std::vector<uint8_t> Payload(uint64_t i) {
  std::vector<uint8_t> v((i * 53) % 3000);
  for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<uint8_t>(i * 13 + k);
  return v;
}

// L3's half of the duplex exchange: N inputs, then N reversed answers newest
// first, 40 times; then STOP.
void Exchange(spsc_queue::WorkerChipQueue* q, uint64_t kN, uint64_t arena) {
  const uint64_t kMessages = 40 * kN;
  uint64_t received = 0;
  std::vector<uint8_t> buf(arena);
  for (uint64_t batch = 0; batch < kMessages / kN; ++batch) {
    for (uint64_t i = 0; i < kN; ++i) {
      const auto v = Payload(batch * kN + i);
      ASSERT_EQ(q->input().enqueue(v.data(), v.size(), kBound),
                spsc_queue::WorkerChipQueueStatus::OK) << q->last_error().message;
    }
    for (uint64_t i = kN; i-- > 0;) {  // L2 answers newest first
      spsc_queue::WorkerChipMessage m{};
      ASSERT_EQ(q->output().dequeue_into(buf.data(), buf.size(), kBound, &m),
                spsc_queue::WorkerChipQueueStatus::OK) << q->last_error().message;
      const auto want = Payload(batch * kN + i);
      ASSERT_EQ(m.payload_nbytes, want.size());
      ASSERT_TRUE(std::equal(want.rbegin(), want.rend(), buf.begin())) << "message " << received;
      EXPECT_EQ(m.seq, ++received);
    }
  }
  ASSERT_EQ(q->input().request_stop(kBound), spsc_queue::WorkerChipQueueStatus::OK);
}

TEST(Interop, DuplexWithTheReferenceL3OverTheRuntime) {
  SPSQ_CLAUSES("W.INTEROP.1/duplex", "W.INTEROP.1/out-of-order", "W.INTEROP.1/stop",
               "S0.PURPOSE.1", "S0.USE.1", "S1.L2DECODE.1", "S1.L2DECODE.5", "S4.L2IN.5",
               "S4.STOP.10");
  std::string why;
  const std::string child = FindChild(&why);
  ASSERT_FALSE(child.empty()) << why;
  const uint64_t kN = MaxInflight(&why);
  ASSERT_NE(kN, 0u) << why;

  spsq_runtime::OrchestratorOptions o;
  o.mode = spsq_runtime::ChipWorkerMode::kProcess;
  spsc_queue::SpscQueueError e;
  auto orch = spsq_runtime::Orchestrator::create(o, &e);
  ASSERT_NE(orch, nullptr) << e.message;
  const uint64_t depth = kN < 4 ? 4 : kN * 2;
  // N messages of up to 3000 bytes may be outstanding, plus a skipped arena tail.
  const uint64_t arena = 4096 * (kN + 2);
  auto q = orch->create_worker_chip_queue(0, depth, arena, arena, &e);
  ASSERT_NE(q, nullptr) << e.message;
  spsq_runtime::TaskArgs args;
  for (uint64_t v : q->chip_task_arg_scalars()) args.add_scalar(v);
  args.add_scalar(kN);  // after the binding: the child checks it was built for this N
  spsq_runtime::L2OrchHandle task;
  task.name = "interop_echo";
  task.binary = child.c_str();
  ASSERT_TRUE(orch->submit_next_level(task, args, spsq_runtime::ChipCallConfig{}, 0, &e))
      << "could not start the L2 child " << child << ": " << e.message;
  Exchange(q.get(), kN, arena);
  // Reaps the child (after a failed exchange too: its exit status then says
  // whether L2 gave up; its one-line reason is on stderr, in this log).
  const spsq_runtime::WorkerRunReport report = orch->worker(0).run();
  EXPECT_EQ(report.tasks_completed, 1u) << report.first_failure;
  EXPECT_TRUE(report.ok()) << "L2 child " << child << ": " << report.first_failure;
  if (HasFatalFailure()) return;
  EXPECT_TRUE(q->live()) << q->error().message;
  const RegionPartLocalSpan c = q->region().counter();
  const int32_t* flags = reinterpret_cast<const int32_t*>(c.base);
  EXPECT_EQ(flags[kPeerFlag / 4], 0);
  EXPECT_EQ(flags[kInitiatorFlag / 4], 0);
}

}  // namespace
}  // namespace spsq_conf
