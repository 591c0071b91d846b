// DriverL3Adapter: an L3Adapter whose queue runs in another process, in any
// language, and speaks the testee driver protocol (testee/PROTOCOL.md).
//
// open() starts the testee named by SPSQ_TESTEE, checks its hello and sends
// "create"; every L3 call is one request. The testee's shared-memory and
// clock accesses come back as callbacks, served here from the HarnessView
// open() received and from its now_ns, so the access log, fault plan,
// guards, virtual clock and scripted peers apply as in-process.
//
// A protocol failure (the testee exits, hangs past the frame bound, answers
// out of order, writes garbage, speaks another version) is one GoogleTest
// failure naming the test, the last request and the tail of the testee's
// stderr; the process group is killed and every later call answers FAILED.
// Never a hang, never a crash of the suite binary.
//
// A testee whose hello declares "reuse" serves the queues of one test one
// after another: when an adapter is destroyed inside a test, its testee is
// sent "end" and parked, and the test's next adapter takes it with its next
// "create". At most one testee is parked; it is quit when the test ends, and
// its quit is judged as any testee's. Every test starts a new process.
#ifndef SPSQ_CONFORMANCE_DRIVER_DRIVER_L3_ADAPTER_H_
#define SPSQ_CONFORMANCE_DRIVER_DRIVER_L3_ADAPTER_H_

#include <memory>
#include <string>
#include <vector>

#include "certify/driver/testee_process.h"
#include "conformance/l3/l3_adapter.h"
#include "testee/cpp/spsq_testee_json.h"

namespace spsq_conf {

class DriverL3Adapter : public L3Adapter {
 public:
  DriverL3Adapter() = default;
  ~DriverL3Adapter() override;

  const char* name() const override { return name_.c_str(); }
  const char* surface() const override { return surface_.c_str(); }
  bool open(const uint64_t* scalars, size_t count, HarnessView view,
            uint64_t (*now_ns)()) override;
  bool open_with_region(const uint64_t* scalars, size_t count, HarnessView view,
                        uint64_t (*now_ns)()) override;
  bool uses_view() const override { return true; }

  bool live() override;
  L3ErrorInfo error() override;
  bool chip_task_arg_scalars(uint64_t* out, size_t count) override;
  LayoutFields layout() override;

  L3Status try_enqueue(const void* data, uint64_t nbytes) override;
  L3Status enqueue(const void* data, uint64_t nbytes, uint64_t timeout_ns) override;
  L3Status try_request_stop() override;
  L3Status request_stop(uint64_t timeout_ns) override;
  L3Status try_peek(L3Message* m) override;
  L3Status peek(uint64_t timeout_ns, L3Message* m) override;
  L3Status read_into(const L3Message& m, void* buffer, uint64_t capacity) override;
  L3Status release(const L3Message& m) override;
  L3Status try_dequeue_into(void* buffer, uint64_t capacity, L3Message* m) override;
  L3Status dequeue_into(void* buffer, uint64_t capacity, uint64_t timeout_ns,
                        L3Message* m) override;
  void free() override;
  bool region_released() override;

  // Whether a protocol failure ended this testee (for the driver's own tests).
  bool broken() const { return broken_; }

  // Quits the parked testee, if any, judging its quit in the current test.
  // Runs when each test ends; the driver's own tests call it directly.
  static void QuitParked();

 private:
  using Json = spsq_testee::Json;
  struct Answer {
    bool ok = false;  // a well-formed answer arrived
    std::string outcome;
    Json frame;
  };

  struct Parked;
  static Parked& parked();
  // Ends the queue and parks the testee; false when it cannot be parked.
  bool park();
  // Takes the parked testee, and what its hello said, for this adapter.
  void take_parked();
  // Asks the testee to quit and judges how it ends.
  void quit();
  bool bind(const uint64_t* scalars, size_t count, HarnessView view, uint64_t (*now_ns)(),
            bool with_region);
  bool start();
  // Sends `request` (the id is added) and serves callbacks until its answer.
  Answer call(const std::string& op, Json request);
  L3Status status_of(const Answer& a, const char* op);
  // A protocol failure: one test failure, the group killed, FAILED from now on.
  void broke(const std::string& what);
  bool serve(const Json& callback, Json* reply);
  Json message_json(const L3Message& m);
  bool message_of(const Json* j, L3Message* m);
  L3Status dequeue(const char* op, void* buffer, uint64_t capacity, const uint64_t* timeout_ns,
                   L3Message* m);
  L3Status blocking_or_try(const char* op, const void* data, uint64_t nbytes,
                           const uint64_t* timeout_ns);
  bool copy_data(const Answer& a, void* buffer, uint64_t capacity, const char* op);

  std::unique_ptr<TesteeProcess> process_;
  HarnessView view_;
  uint64_t (*now_ns_)() = nullptr;
  int frame_ms_ = 20000;
  uint64_t input_arena_bytes_ = 0;  // the binding's: what an input can carry
  uint64_t next_id_ = 1;
  std::string last_request_;
  std::vector<std::string> command_;  // the testee's command line
  std::string name_ = "testee (not started)";
  std::string surface_ = "cpp";
  bool broken_ = false;
  bool reuse_ = false;     // the hello declared "reuse"
  bool detached_ = false;  // no queue bound: callbacks are refused
  // Message tokens, as the testee sent them: L3Message::opaque[0] is 1 + index.
  std::vector<std::string> tokens_;
};

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_DRIVER_DRIVER_L3_ADAPTER_H_
