// The testee's side of shared memory and time (testee/PROTOCOL.md, section
// 3): Channel, the process's stdin and stdout to the harness; now_ns(), the
// harness's virtual clock; View, a RegionView (the wire contract's) whose
// every call is one callback. A C++ L3 templated on a RegionView runs on View
// unmodified. A harness that breaks the protocol (a bad reply, end of input
// inside a request) ends the process with status 2 and the reason on stderr.
#ifndef SPSQ_TESTEE_CPP_SPSQ_TESTEE_VIEW_H_
#define SPSQ_TESTEE_CPP_SPSQ_TESTEE_VIEW_H_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "testee/cpp/spsq_testee_frame.h"
#include "testee/cpp/spsq_testee_json.h"

namespace spsq_testee {

// The process's channel to the harness: stdin and stdout, and the bytes the
// view lent out during the current request.
class Channel {
 public:
  static Channel& get() {
    static Channel c;
    return c;
  }
  void use_fds(int in, int out) { in_ = in, out_ = out; }
  int in() const { return in_; }

  void send(const Json& frame) {
    if (!write_frame(out_, frame.dump())) die("cannot write a frame to the harness");
  }
  // One callback and its reply (the reply's "reply" names the call).
  Json callback(const Json& call) {
    send(call);
    std::string body, error;
    if (read_frame(in_, &body, &error) != 0) die("no reply to a callback: " + error);
    Json reply;
    if (!Json::parse(body, &reply, &error) || !reply.is_object()) die("bad reply: " + error);
    const Json* name = reply.find("reply");
    if (name == nullptr || !name->is_string() ||
        name->as_string() != call.find("call")->as_string()) {
      die("a reply that does not answer \"" + call.find("call")->as_string() + "\": " + body);
    }
    return reply;
  }
  // Borrowed spans stay valid until the next request.
  std::vector<uint8_t>& lend() { return lent_.emplace_back(); }
  void end_request() { lent_.clear(); }

  [[noreturn]] static void die(const std::string& why) {
    std::fprintf(stderr, "spsq_testee: %s\n", why.c_str());
    std::exit(2);
  }

 private:
  int in_ = 0, out_ = 1;
  std::deque<std::vector<uint8_t>> lent_;
};

// The harness's virtual clock (MonotonicClock::now_ns).
inline uint64_t now_ns() {
  Json c = Json::object();
  c.set("call", Json::str("now"));
  uint64_t t = 0;
  const Json reply = Channel::get().callback(c);
  const Json* v = reply.find("now_ns");
  if (v == nullptr || !v->get_u64(&t)) Channel::die("a \"now\" reply without an integer now_ns");
  return t;
}

// What span() returns: converts to the implementation's {base, logical_bytes}.
// The same shape as the harness's ViewSpan (model/view_parts.h),
// written again on purpose: this library is imported by third parties and
// depends on nothing of the harness.
struct Span {
  uint64_t base = 0;
  uint64_t logical_bytes = 0;
  template <class T, class = decltype(std::declval<T&>().base = 0),
            class = decltype(std::declval<T&>().logical_bytes = 0)>
  operator T() const {  // NOLINT: implicit by design
    T t{};
    t.base = base;
    t.logical_bytes = logical_bytes;
    return t;
  }
};

struct ViewError {
  char message[256] = {};
};

// A RegionView over callbacks. The spans are the binding's (the harness's
// addresses, never dereferenced here). Every call is asked of the harness,
// whose view decides what a failure means and whether it stays (its fault
// plan may fail one call only): failed() and error() say how the latest
// call ended. Copies share that state.
class View {
 public:
  View() = default;
  View(Span payload, Span counter) : s_(std::make_shared<State>()) {
    s_->payload = payload;
    s_->counter = counter;
  }
  bool failed() const { return s_ == nullptr || s_->failed; }
  const ViewError& error() const { return s_->error; }

  class Payload {
   public:
    explicit Payload(View* v) : v_(v) {}
    Span span() const { return v_->s_->payload; }
    // Reads through the harness into a buffer lent until the next request.
    template <class Out>
    bool read(uint64_t offset, uint64_t nbytes, Out& out) {
      Json c = call("payload_read", offset);
      c.set("nbytes", Json::u64(nbytes));
      Json r;
      if (!v_->exchange(c, &r)) return false;
      const Json* data = r.find("data");
      std::vector<uint8_t>& bytes = Channel::get().lend();
      if (data == nullptr || !data->is_string() || !from_hex(data->as_string(), &bytes) ||
          bytes.size() != nbytes) {
        Channel::die("a payload_read reply without " + std::to_string(nbytes) + " bytes of hex");
      }
      bytes.push_back(0);  // never an empty vector: the address is never null
      using Addr = std::remove_reference_t<decltype(out.local_addr)>;
      out.local_addr = reinterpret_cast<Addr>(bytes.data());  // an integer or a pointer
      out.nbytes = nbytes;
      return true;
    }
    bool write(uint64_t offset, const void* src, uint64_t nbytes) {
      if (src == nullptr && nbytes != 0) return v_->fail("payload write from a null source");
      Json c = call("payload_write", offset);
      c.set("data", Json::str(to_hex(src, static_cast<size_t>(nbytes))));
      Json r;
      return v_->exchange(c, &r);
    }

   private:
    static Json call(const char* name, uint64_t offset) {
      Json c = Json::object();
      c.set("call", Json::str(name)).set("offset", Json::u64(offset));
      return c;
    }
    View* v_;
  };

  class Counter {
   public:
    explicit Counter(View* v) : v_(v) {}
    Span span() const { return v_->s_->counter; }
    template <class Op>
    bool notify(uint64_t offset, int32_t value, Op op) {
      Json c = call("counter_notify", offset);
      c.set("value", Json::i64(value)).set("notify_op", Json::u64(static_cast<uint32_t>(op)));
      Json r;
      return v_->exchange(c, &r);
    }
    template <class Cmp, class Sample>
    bool test(uint64_t offset, int32_t cmp_value, Cmp cmp, Sample& sample) {
      Json c = compare("counter_test", offset, cmp_value, static_cast<uint32_t>(cmp));
      Json r;
      if (!v_->exchange(c, &r)) return false;
      sample.matched = flag(r, "matched");
      sample.observed = observed(r);
      return true;
    }
    template <class Cmp>
    bool wait(uint64_t offset, int32_t cmp_value, Cmp cmp, uint64_t timeout_ns,
              int32_t& out) {
      Json c = compare("counter_wait", offset, cmp_value, static_cast<uint32_t>(cmp));
      c.set("timeout_ns", Json::u64(timeout_ns));
      Json r;
      if (!v_->exchange(c, &r)) return false;
      out = observed(r);
      return flag(r, "held");
    }

   private:
    static Json call(const char* name, uint64_t offset) {
      Json c = Json::object();
      c.set("call", Json::str(name)).set("offset", Json::u64(offset));
      return c;
    }
    static Json compare(const char* name, uint64_t offset, int32_t value, uint32_t cmp) {
      Json c = call(name, offset);
      c.set("cmp_value", Json::i64(value)).set("cmp", Json::u64(cmp));
      return c;
    }
    static bool flag(const Json& r, const char* key) {
      const Json* v = r.find(key);
      if (v == nullptr || !v->is_bool()) Channel::die(std::string("a reply without \"") + key + "\"");
      return v->as_bool();
    }
    static int32_t observed(const Json& r) {
      int32_t v = 0;
      const Json* o = r.find("observed");
      if (o == nullptr || !o->get_i32(&v)) Channel::die("a reply without an int32 \"observed\"");
      return v;
    }
    View* v_;
  };

  Payload payload() { return Payload(this); }
  Counter counter() { return Counter(this); }

 private:
  struct State {
    Span payload, counter;
    bool failed = false;
    ViewError error;
  };
  bool fail(const std::string& why) {
    std::snprintf(s_->error.message, sizeof(s_->error.message), "%s", why.c_str());
    s_->failed = true;
    return false;
  }
  bool exchange(const Json& call, Json* reply) {
    *reply = Channel::get().callback(call);
    const Json* ok = reply->find("ok");
    if (ok == nullptr || !ok->is_bool()) Channel::die("a reply without a boolean \"ok\"");
    s_->failed = false;
    if (ok->as_bool()) return true;
    const Json* e = reply->find("error");
    return fail(e != nullptr && e->is_string() ? e->as_string() : "the harness view failed");
  }
  std::shared_ptr<State> s_;
};

}  // namespace spsq_testee

#endif  // SPSQ_TESTEE_CPP_SPSQ_TESTEE_VIEW_H_
