#include "certify/driver/driver_l3_adapter.h"

#include <cstdio>

#include <cstdlib>
#include <cstring>
#include <utility>

#include "model/wire_model.h"
#include "gtest/gtest.h"
#include "testee/cpp/spsq_testee_frame.h"

namespace spsq_conf {
namespace {

using spsq_testee::Json;

std::string current_test() {
  const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
  return t == nullptr ? "(no test)" : std::string(t->test_suite_name()) + "." + t->name();
}

// The out-parameters the harness view fills (the contract's member names).
struct ReadOut {
  uint64_t local_addr = 0;
  uint64_t nbytes = 0;
};
struct TestOut {
  bool matched = false;
  int32_t observed = 0;
};

bool u64_field(const Json& j, const char* key, uint64_t* out) {
  const Json* v = j.find(key);
  return v != nullptr && v->get_u64(out);
}
bool i32_field(const Json& j, const char* key, int32_t* out) {
  const Json* v = j.find(key);
  return v != nullptr && v->get_i32(out);
}
bool u32_field(const Json& j, const char* key, uint32_t* out) {
  uint64_t v = 0;
  if (!u64_field(j, key, &v) || v > 0xffffffffu) return false;
  *out = static_cast<uint32_t>(v);
  return true;
}

// A frame, shortened for an error message.
std::string excerpt(const std::string& s) {
  return s.size() <= 300 ? s : s.substr(0, 300) + "... (" + std::to_string(s.size()) + " bytes)";
}

// Half a frame carries a read's hex; anything bigger cannot be answered.
constexpr uint64_t kLargestRead = (spsq_testee::kMaxFrameBytes - 4096) / 2;

}  // namespace

// A testee that declared "reuse", between two queues of one test.
struct DriverL3Adapter::Parked {
  std::unique_ptr<TesteeProcess> process;
  std::vector<std::string> command;  // what started it: taken only for the same
  std::string name, surface;
  int frame_ms = 0;
  uint64_t next_id = 1;
  uint64_t (*now_ns)() = nullptr;
};

DriverL3Adapter::Parked& DriverL3Adapter::parked() {
  static Parked p;
  return p;
}

namespace {

bool in_a_test() { return ::testing::UnitTest::GetInstance()->current_test_info() != nullptr; }

// The parked testee never outlives its test: each test starts a new process,
// and a testee's quit is judged in the test that used it.
class QuitParkedWhenTheTestEnds : public ::testing::EmptyTestEventListener {
  void OnTestEnd(const ::testing::TestInfo&) override { DriverL3Adapter::QuitParked(); }
};

}  // namespace

DriverL3Adapter::~DriverL3Adapter() {
  if (!process_ || broken_ || !process_->running()) return;
  // The queue's region may be gone already: no callback reaches it from here.
  detached_ = true;
  if (reuse_ && park()) return;
  quit();
}

bool DriverL3Adapter::park() {
  Parked& p = parked();
  if (p.process || !in_a_test()) return false;
  const Answer a = call("end", Json::object());
  if (broken_) return true;
  if (a.outcome != "ok") {
    broke("\"end\" answered \"" + a.outcome +
          "\": a testee whose hello declares \"reuse\" ends a queue with \"ok\"");
    return true;
  }
  static const bool listening = [] {
    ::testing::UnitTest::GetInstance()->listeners().Append(new QuitParkedWhenTheTestEnds());
    return true;
  }();
  (void)listening;
  p.process = std::move(process_);
  p.command = command_;
  p.name = name_;
  p.surface = surface_;
  p.frame_ms = frame_ms_;
  p.next_id = next_id_;
  p.now_ns = now_ns_;
  return true;
}

void DriverL3Adapter::take_parked() {
  Parked& p = parked();
  process_ = std::move(p.process);
  command_ = p.command;
  name_ = p.name;
  surface_ = p.surface;
  frame_ms_ = p.frame_ms;
  next_id_ = p.next_id;
  reuse_ = true;
}

void DriverL3Adapter::QuitParked() {
  if (!parked().process) return;
  DriverL3Adapter a;
  a.now_ns_ = parked().now_ns;  // the last queue's clock, for a "now" during the quit
  a.take_parked();
  a.detached_ = true;
  a.quit();
}

void DriverL3Adapter::quit() {
  const Answer a = call("quit", Json::object());
  if (broken_) return;
  int status = -1;
  process_->finish(frame_ms_, &status);
  const std::unique_ptr<TesteeProcess> ended = std::move(process_);
  // A testee that answered "quit" but is slow to exit has had every call
  // judged already; on a loaded machine its interpreter's teardown can outlast
  // the bound. It is killed (finish), said on stderr, and no test fails for it.
  // An exit status other than 0 still fails: a crash at teardown is a defect.
  if (a.outcome == "ok" && status < 0) {
    std::fprintf(stderr, "testee after \"quit\" in %s: still running after the frame bound, killed\n",
                 current_test().c_str());
    return;
  }
  if (a.outcome != "ok" || status != 0) {
    ADD_FAILURE() << "testee protocol failure in " << current_test() << ": after \"quit\" (outcome "
                  << a.outcome << ") the testee "
                  << (status < 0 ? std::string("did not exit by itself within the frame bound")
                                 : "exited with status " + std::to_string(status))
                  << ", not 0\ntestee stderr (tail):\n" << ended->stderr_tail();
  }
}

void DriverL3Adapter::broke(const std::string& what) {
  if (broken_) return;
  broken_ = true;
  std::string tail;
  if (process_) {
    process_->kill_group();
    tail = process_->stderr_tail();
  }
  ADD_FAILURE() << "testee protocol failure in " << current_test() << ": " << what
                << "\nlast request: " << (last_request_.empty() ? "(none)" : excerpt(last_request_))
                << "\ntestee stderr (last 2 KiB):\n" << tail;
}

bool DriverL3Adapter::start() {
  std::string error;
  std::vector<std::string> argv;
  if (!testee_frame_timeout_ms(&frame_ms_, &error) || !testee_command(&argv, &error)) {
    broke(error);
    return false;
  }
  command_ = argv;
  if (parked().process && parked().command == argv) {  // the test's previous queue ended there
    take_parked();
    return true;
  }
  process_.reset(new TesteeProcess());
  if (!process_->start(argv, &error)) {
    broke("cannot start " + argv[0] + ": " + error);
    return false;
  }
  std::string body;
  if (!process_->read_frame(&body, frame_ms_, &error)) {
    broke("waiting for the hello: " + error);
    return false;
  }
  Json hello;
  if (!Json::parse(body, &hello, &error) || !hello.is_object()) {
    broke("the hello is not a JSON object (" + error + "): " + excerpt(body));
    return false;
  }
  const Json* tag = hello.find("hello");
  if (tag == nullptr || !tag->is_string() || tag->as_string() != "spsq-testee") {
    broke("the first frame is not a hello {\"hello\": \"spsq-testee\", ...}: " + excerpt(body));
    return false;
  }
  uint64_t version = 0;
  if (!u64_field(hello, "version", &version) ||
      version != static_cast<uint64_t>(spsq_testee::kProtocolVersion)) {
    const Json* v = hello.find("version");
    broke("the testee speaks protocol version " + (v ? v->dump() : std::string("(none)")) +
          "; this harness speaks version " + std::to_string(spsq_testee::kProtocolVersion) +
          " only");
    return false;
  }
  const Json* name = hello.find("name");
  const Json* surface = hello.find("surface");
  if (name == nullptr || !name->is_string() || surface == nullptr || !surface->is_string() ||
      (surface->as_string() != "cpp" && surface->as_string() != "python")) {
    broke("the hello needs a string \"name\" and \"surface\" \"cpp\" or \"python\": " +
          excerpt(body));
    return false;
  }
  const Json* reuse = hello.find("reuse");
  if (reuse != nullptr && !reuse->is_bool()) {
    broke("the hello's \"reuse\" must be true or false: " + excerpt(body));
    return false;
  }
  reuse_ = reuse != nullptr && reuse->as_bool();
  const Json* language = hello.find("language");
  name_ = name->as_string() + " (testee, " +
          (language && language->is_string() ? language->as_string() : "?") + ")";
  surface_ = surface->as_string();
  // The certification states the surface it was built for (its stages
  // depend on it): a testee that declares another is refused.
  const char* want = std::getenv("SPSQ_TESTEE_SURFACE");
  if (want != nullptr && *want != '\0' && surface_ != want) {
    broke("the testee's hello declares surface \"" + surface_ +
          "\" but its certification was built for \"" + want +
          "\" (spsq_l3_certification's testee_surface)");
    return false;
  }
  return true;
}

bool DriverL3Adapter::bind(const uint64_t* scalars, size_t count, HarnessView view,
                           uint64_t (*now_ns)(), bool with_region) {
  view_ = view;
  now_ns_ = now_ns;
  detached_ = false;
  input_arena_bytes_ = count > 8 ? scalars[8] : 0;
  if (broken_ || (!process_ && !start())) return false;
  Json s = Json::array();
  for (size_t i = 0; i < count; ++i) s.push(Json::u64(scalars[i]));
  Json req = Json::object();
  req.set("scalars", std::move(s)).set("region", Json::boolean(with_region));
  const Answer a = call("create", std::move(req));
  if (!a.ok) return false;
  if (with_region && a.outcome == "unsupported") return false;  // no projected region
  return a.outcome == "ok";
}

bool DriverL3Adapter::open(const uint64_t* scalars, size_t count, HarnessView view,
                           uint64_t (*now_ns)()) {
  return bind(scalars, count, view, now_ns, false);
}

bool DriverL3Adapter::open_with_region(const uint64_t* scalars, size_t count, HarnessView view,
                                       uint64_t (*now_ns)()) {
  return bind(scalars, count, view, now_ns, true);
}

DriverL3Adapter::Answer DriverL3Adapter::call(const std::string& op, Json request) {
  Answer a;
  if (broken_ || !process_) return a;
  const uint64_t id = next_id_++;
  Json req = Json::object();
  req.set("id", Json::u64(id)).set("op", Json::str(op));
  for (const auto& m : request.members()) req.set(m.first, m.second);
  last_request_ = req.dump();
  std::string error;
  if (!process_->write_frame(last_request_, frame_ms_, &error)) {
    broke(error);
    return a;
  }
  for (;;) {
    std::string body;
    if (!process_->read_frame(&body, frame_ms_, &error)) {
      broke(error);
      return a;
    }
    Json frame;
    if (!Json::parse(body, &frame, &error) || !frame.is_object()) {
      broke("not a JSON object (" + error + "): " + excerpt(body));
      return a;
    }
    if (frame.has("call")) {
      Json reply;
      if (!serve(frame, &reply)) return a;
      if (!process_->write_frame(reply.dump(), frame_ms_, &error)) {
        broke(error);
        return a;
      }
      continue;
    }
    uint64_t got = 0;
    if (!u64_field(frame, "id", &got)) {
      broke("neither a callback nor an answer (no \"call\", no integer \"id\"): " + excerpt(body));
      return a;
    }
    if (got != id) {
      broke("an answer out of order: id " + std::to_string(got) + " where " + std::to_string(id) +
            " was due: " + excerpt(body));
      return a;
    }
    const Json* outcome = frame.find("outcome");
    static const char* const kOutcomes[] = {"ok",     "no_progress", "timed_out",
                                            "rejected", "failed",    "unsupported"};
    bool known = false;
    for (const char* o : kOutcomes) known = known || (outcome && outcome->is_string() && outcome->as_string() == o);
    if (!known) {
      broke("an answer without a known \"outcome\": " + excerpt(body));
      return a;
    }
    a.ok = true;
    a.outcome = outcome->as_string();
    a.frame = std::move(frame);
    return a;
  }
}

bool DriverL3Adapter::serve(const Json& c, Json* reply) {
  const Json* call = c.find("call");
  const std::string name = call != nullptr && call->is_string() ? call->as_string() : "";
  Json r = Json::object();
  r.set("reply", Json::str(name));
  auto garbage = [&](const char* want) {
    broke("callback \"" + name + "\" needs " + want + ": " + excerpt(c.dump()));
    return false;
  };
  // A refusal of the view: the testee sees ok false and the view's reason.
  auto view_result = [&](bool ok) {
    r.set("ok", Json::boolean(ok));
    if (!ok) r.set("error", Json::str(view_.error().message));
    return ok;
  };
  if (detached_ &&
      (name == "payload_read" || name == "payload_write" || name == "counter_test" ||
       name == "counter_wait" || name == "counter_notify")) {
    // Between "end" or "quit" and the next "create" the region may be gone.
    r.set("ok", Json::boolean(false));
    r.set("error", Json::str("no queue is bound: the harness has ended it"));
  } else if (name == "now") {
    r.set("now_ns", Json::u64(now_ns_ != nullptr ? now_ns_() : 0));
  } else if (name == "payload_read") {
    uint64_t offset = 0, nbytes = 0;
    if (!u64_field(c, "offset", &offset) || !u64_field(c, "nbytes", &nbytes)) {
      return garbage("integer \"offset\" and \"nbytes\"");
    }
    if (nbytes > kLargestRead) {
      r.set("ok", Json::boolean(false));
      r.set("error", Json::str("a read of " + std::to_string(nbytes) +
                               " bytes does not fit one frame"));
    } else {
      ReadOut out;
      if (view_result(view_.payload().read(offset, nbytes, out))) {
        r.set("data", Json::str(spsq_testee::to_hex(
                          reinterpret_cast<const void*>(static_cast<uintptr_t>(out.local_addr)),
                          nbytes)));
      }
    }
  } else if (name == "payload_write") {
    uint64_t offset = 0;
    const Json* data = c.find("data");
    std::vector<uint8_t> bytes;
    if (!u64_field(c, "offset", &offset) || data == nullptr || !data->is_string() ||
        !spsq_testee::from_hex(data->as_string(), &bytes)) {
      return garbage("an integer \"offset\" and lowercase hex \"data\"");
    }
    static const uint8_t kNothing = 0;
    view_result(view_.payload().write(offset, bytes.empty() ? &kNothing : bytes.data(),
                                      bytes.size()));
  } else if (name == "counter_test" || name == "counter_wait") {
    uint64_t offset = 0, timeout = 0;
    int32_t value = 0;
    uint32_t cmp = 0;
    if (!u64_field(c, "offset", &offset) || !i32_field(c, "cmp_value", &value) ||
        !u32_field(c, "cmp", &cmp) ||
        (name == "counter_wait" && !u64_field(c, "timeout_ns", &timeout))) {
      return garbage(name == "counter_wait"
                         ? "integer \"offset\", int32 \"cmp_value\", \"cmp\" and \"timeout_ns\""
                         : "integer \"offset\", int32 \"cmp_value\" and \"cmp\"");
    }
    if (name == "counter_test") {
      TestOut out;
      if (view_result(view_.counter().test(offset, value, cmp, out))) {
        r.set("matched", Json::boolean(out.matched)).set("observed", Json::i64(out.observed));
      }
    } else {
      int32_t observed = 0;
      const bool held = view_.counter().wait(offset, value, cmp, timeout, observed);
      // A false wait is a timeout unless the view failed.
      r.set("ok", Json::boolean(held || !view_.failed()));
      if (!held && view_.failed()) r.set("error", Json::str(view_.error().message));
      r.set("held", Json::boolean(held)).set("observed", Json::i64(observed));
    }
  } else if (name == "counter_notify") {
    uint64_t offset = 0;
    int32_t value = 0;
    uint32_t op = 0;
    if (!u64_field(c, "offset", &offset) || !i32_field(c, "value", &value) ||
        !u32_field(c, "notify_op", &op)) {
      return garbage("integer \"offset\", int32 \"value\" and \"notify_op\"");
    }
    view_result(view_.counter().notify(offset, value, op));
  } else {
    broke("an unknown callback \"" + name + "\": " + excerpt(c.dump()));
    return false;
  }
  *reply = std::move(r);
  return true;
}

L3Status DriverL3Adapter::status_of(const Answer& a, const char* op) {
  if (!a.ok) return L3Status::kFailed;
  if (a.outcome == "ok") return L3Status::kOk;
  if (a.outcome == "no_progress") return L3Status::kNoProgress;
  if (a.outcome == "timed_out") return L3Status::kTimedOut;
  if (a.outcome == "rejected") return L3Status::kRejected;
  if (a.outcome == "unsupported") {
    // Never a FAIL on what the testee does not offer: the test is skipped
    // with the reason, so its clauses are UNTESTED.
    [op] { GTEST_SKIP() << "the testee does not offer \"" << op << "\""; }();
    return L3Status::kRejected;
  }
  return L3Status::kFailed;
}

Json DriverL3Adapter::message_json(const L3Message& m) {
  Json j = Json::object();
  j.set("seq", Json::u64(m.seq)).set("opcode", Json::u64(m.opcode));
  j.set("payload_offset", Json::u64(m.payload_offset));
  j.set("payload_nbytes", Json::u64(m.payload_nbytes));
  Json token;
  if (m.opaque[0] != 0 && m.opaque[0] <= tokens_.size()) {
    std::string unused;
    Json::parse(tokens_[m.opaque[0] - 1], &token, &unused);
  }
  j.set("token", std::move(token));
  return j;
}

bool DriverL3Adapter::message_of(const Json* j, L3Message* m) {
  L3Message out;
  if (j == nullptr || !j->is_object() || !u64_field(*j, "seq", &out.seq) ||
      !u64_field(*j, "opcode", &out.opcode) ||
      !u64_field(*j, "payload_offset", &out.payload_offset) ||
      !u64_field(*j, "payload_nbytes", &out.payload_nbytes)) {
    broke("an answer without a message {\"seq\", \"opcode\", \"payload_offset\", "
          "\"payload_nbytes\", \"token\"}: " + (j ? excerpt(j->dump()) : std::string("(none)")));
    return false;
  }
  const Json* token = j->find("token");
  if (token != nullptr && !token->is_null()) {
    const std::string t = token->dump();
    if (tokens_.empty() || tokens_.back() != t) tokens_.push_back(t);
    out.opaque[0] = tokens_.size();
  }
  *m = out;
  return true;
}

bool DriverL3Adapter::copy_data(const Answer& a, void* buffer, uint64_t capacity, const char* op) {
  const Json* data = a.frame.find("data");
  std::vector<uint8_t> bytes;
  if (data == nullptr || !data->is_string() || !spsq_testee::from_hex(data->as_string(), &bytes)) {
    broke(std::string("\"") + op + "\" answered ok without lowercase hex \"data\"");
    return false;
  }
  if (bytes.size() > capacity || (buffer == nullptr && !bytes.empty())) {
    broke(std::string("\"") + op + "\" returned " + std::to_string(bytes.size()) +
          " bytes for a buffer of " + std::to_string(capacity) +
          (buffer == nullptr ? " (null)" : ""));
    return false;
  }
  if (!bytes.empty()) std::memcpy(buffer, bytes.data(), bytes.size());
  return true;
}

bool DriverL3Adapter::live() {
  const Answer a = call("live", Json::object());
  const Json* v = a.ok ? a.frame.find("live") : nullptr;
  if (a.ok && (v == nullptr || !v->is_bool())) broke("\"live\" answered without a boolean \"live\"");
  return a.ok && v != nullptr && v->is_bool() && v->as_bool();
}

L3ErrorInfo DriverL3Adapter::error() {
  L3ErrorInfo e;
  e.kind_known = false;
  if (broken_) {
    e.message = "the testee failed the protocol (see the test's failure)";
    return e;
  }
  const Answer a = call("error", Json::object());
  const Json* err = a.ok ? a.frame.find("error") : nullptr;
  if (!a.ok) {
    e.message = "the testee failed the protocol (see the test's failure)";
    return e;
  }
  if (err == nullptr || !err->is_object()) {
    broke("\"error\" answered without an \"error\" object");
    return e;
  }
  const Json* kind = err->find("kind");
  uint64_t v = 0;
  e.kind_known = kind != nullptr && kind->get_u64(&v) && v <= 0xffffffffu;
  e.kind = static_cast<uint32_t>(v);
  if (u64_field(*err, "op", &v) && v <= 0xffffffffu) e.op = static_cast<uint32_t>(v);
  u64_field(*err, "session_instance_id_bits", &e.session_instance_id_bits);
  u64_field(*err, "transaction_id", &e.transaction_id);
  const Json* text = err->find("text");
  if (text == nullptr || !text->is_string()) text = a.frame.find("text");
  if (text != nullptr && text->is_string()) e.message = text->as_string();
  return e;
}

bool DriverL3Adapter::chip_task_arg_scalars(uint64_t* out, size_t count) {
  const Answer a = call("chip_task_arg_scalars", Json::object());
  if (status_of(a, "chip_task_arg_scalars") != L3Status::kOk) return false;
  const Json* s = a.frame.find("scalars");
  if (s == nullptr || !s->is_array()) {
    broke("\"chip_task_arg_scalars\" answered without a \"scalars\" array");
    return false;
  }
  if (s->items().size() != count) return false;
  for (size_t i = 0; i < count; ++i) {
    if (!s->items()[i].get_u64(&out[i])) {
      broke("\"chip_task_arg_scalars\": scalar " + std::to_string(i) + " is no uint64");
      return false;
    }
  }
  return true;
}

LayoutFields DriverL3Adapter::layout() {
  LayoutFields f{};
  const Answer a = call("layout", Json::object());
  if (status_of(a, "layout") != L3Status::kOk) return f;
  const Json* l = a.frame.find("layout");
  const struct {
    const char* name;
    uint64_t* field;
  } fields[] = {{"depth", &f.depth},
                {"input_desc_offset", &f.input_ring},
                {"output_desc_offset", &f.output_ring},
                {"input_arena_offset", &f.input_arena},
                {"input_arena_bytes", &f.input_arena_bytes},
                {"output_arena_offset", &f.output_arena},
                {"output_arena_bytes", &f.output_arena_bytes},
                {"payload_bytes", &f.payload_bytes},
                {"counter_bytes", &f.counter_bytes}};
  for (const auto& x : fields) {
    if (l == nullptr || !l->is_object() || !u64_field(*l, x.name, x.field)) {
      broke(std::string("\"layout\" answered without the integer field \"") + x.name + "\"");
      return LayoutFields{};
    }
  }
  return f;
}

L3Status DriverL3Adapter::blocking_or_try(const char* op, const void* data, uint64_t nbytes,
                                          const uint64_t* timeout_ns) {
  Json req = Json::object();
  // A null buffer travels as null. Bytes beyond the input arena are never
  // sent: such a message is refused by its size, and the suite's oversize
  // calls name sizes (up to 2^64 - 1) no buffer of theirs holds.
  const uint64_t sent = nbytes < input_arena_bytes_ ? nbytes : input_arena_bytes_;
  req.set("data", data == nullptr ? Json()
                                  : Json::str(spsq_testee::to_hex(data, static_cast<size_t>(sent))));
  req.set("nbytes", Json::u64(nbytes));
  if (timeout_ns != nullptr) req.set("timeout_ns", Json::u64(*timeout_ns));
  return status_of(call(op, std::move(req)), op);
}

L3Status DriverL3Adapter::try_enqueue(const void* data, uint64_t nbytes) {
  return blocking_or_try("try_enqueue", data, nbytes, nullptr);
}
L3Status DriverL3Adapter::enqueue(const void* data, uint64_t nbytes, uint64_t timeout_ns) {
  return blocking_or_try("enqueue", data, nbytes, &timeout_ns);
}
L3Status DriverL3Adapter::try_request_stop() {
  return status_of(call("try_request_stop", Json::object()), "try_request_stop");
}
L3Status DriverL3Adapter::request_stop(uint64_t timeout_ns) {
  Json req = Json::object();
  req.set("timeout_ns", Json::u64(timeout_ns));
  return status_of(call("request_stop", std::move(req)), "request_stop");
}

L3Status DriverL3Adapter::try_peek(L3Message* m) {
  const Answer a = call("try_peek", Json::object());
  const L3Status s = status_of(a, "try_peek");
  if (s == L3Status::kOk && !message_of(a.frame.find("message"), m)) return L3Status::kFailed;
  return s;
}
L3Status DriverL3Adapter::peek(uint64_t timeout_ns, L3Message* m) {
  Json req = Json::object();
  req.set("timeout_ns", Json::u64(timeout_ns));
  const Answer a = call("peek", std::move(req));
  const L3Status s = status_of(a, "peek");
  if (s == L3Status::kOk && !message_of(a.frame.find("message"), m)) return L3Status::kFailed;
  return s;
}
L3Status DriverL3Adapter::read_into(const L3Message& m, void* buffer, uint64_t capacity) {
  Json req = Json::object();
  req.set("message", message_json(m)).set("capacity", Json::u64(capacity));
  req.set("buffer", Json::boolean(buffer != nullptr));
  const Answer a = call("read_into", std::move(req));
  const L3Status s = status_of(a, "read_into");
  if (s == L3Status::kOk && !copy_data(a, buffer, capacity, "read_into")) return L3Status::kFailed;
  return s;
}
L3Status DriverL3Adapter::release(const L3Message& m) {
  Json req = Json::object();
  req.set("message", message_json(m));
  return status_of(call("release", std::move(req)), "release");
}
L3Status DriverL3Adapter::dequeue(const char* op, void* buffer, uint64_t capacity,
                                  const uint64_t* timeout_ns, L3Message* m) {
  Json req = Json::object();
  req.set("capacity", Json::u64(capacity)).set("buffer", Json::boolean(buffer != nullptr));
  if (timeout_ns != nullptr) req.set("timeout_ns", Json::u64(*timeout_ns));
  const Answer a = call(op, std::move(req));
  const L3Status s = status_of(a, op);
  if (s != L3Status::kOk) return s;
  if (!message_of(a.frame.find("message"), m) || !copy_data(a, buffer, capacity, op)) {
    return L3Status::kFailed;
  }
  return s;
}
L3Status DriverL3Adapter::try_dequeue_into(void* buffer, uint64_t capacity, L3Message* m) {
  return dequeue("try_dequeue_into", buffer, capacity, nullptr, m);
}
L3Status DriverL3Adapter::dequeue_into(void* buffer, uint64_t capacity, uint64_t timeout_ns,
                                       L3Message* m) {
  return dequeue("dequeue_into", buffer, capacity, &timeout_ns, m);
}

void DriverL3Adapter::free() { status_of(call("free", Json::object()), "free"); }

bool DriverL3Adapter::region_released() {
  const Answer a = call("region_released", Json::object());
  if (status_of(a, "region_released") != L3Status::kOk) return false;
  const Json* v = a.frame.find("released");
  if (v == nullptr || !v->is_bool()) {
    broke("\"region_released\" answered without a boolean \"released\"");
    return false;
  }
  return v->as_bool();
}

std::unique_ptr<L3Adapter> make_l3_adapter() {
  return std::unique_ptr<L3Adapter>(new DriverL3Adapter());
}

}  // namespace spsq_conf
