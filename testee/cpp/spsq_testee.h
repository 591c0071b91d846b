// The C++ testee library of the driver protocol (testee/PROTOCOL.md): a queue
// in this process, certified by a harness in another. serve() sends the
// hello and answers requests by calling a user-supplied spsq_testee::Queue,
// whose queue reaches shared memory through View and time through now_ns()
// (spsq_testee_view.h), so a C++ L3 templated on a RegionView runs unmodified:
//
//   class MyQueue : public spsq_testee::Queue { ... acme::L3<spsq_testee::View> q_; };
//   int main() { MyQueue q; return spsq_testee::serve({"acme L3 2.0"}, q); }
//
// A queue that keeps nothing outside its object may serve one queue after
// another in one process (the hello declares "reuse"): pass a factory, and
// every "create" gets a new queue, every "end" destroys it.
//
//   return spsq_testee::serve({"acme L3 2.0"}, [] { return std::make_unique<MyQueue>(); });
//
// A malformed request ends the process with status 2 and the reason on
// stderr. Not thread safe: one request at a time, as the protocol has it.
#ifndef SPSQ_TESTEE_CPP_SPSQ_TESTEE_H_
#define SPSQ_TESTEE_CPP_SPSQ_TESTEE_H_

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "testee/cpp/spsq_testee_frame.h"
#include "testee/cpp/spsq_testee_json.h"
#include "testee/cpp/spsq_testee_view.h"

namespace spsq_testee {

enum class Outcome { kOk, kNoProgress, kTimedOut, kRejected, kFailed, kUnsupported };

inline const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::kOk: return "ok";
    case Outcome::kNoProgress: return "no_progress";
    case Outcome::kTimedOut: return "timed_out";
    case Outcome::kRejected: return "rejected";
    case Outcome::kFailed: return "failed";
    case Outcome::kUnsupported: return "unsupported";
  }
  return "failed";
}

// An output message as the protocol carries it; `token` is the queue's own.
struct Message {
  uint64_t seq = 0, opcode = 0, payload_offset = 0, payload_nbytes = 0;
  Json token;
};

// The terminal error; null fields: the queue cannot tell.
struct Error {
  Json kind, op, session_instance_id_bits, transaction_id;
  std::string text;
};

// What a testee implements: the spec's L3 operations (the adapter's view of
// them, conformance/l3/l3_adapter.h, in protocol terms).
class Queue {
 public:
  virtual ~Queue() = default;
  // Binds onto the region the ten scalars describe, through `view`.
  virtual Outcome create(const std::array<uint64_t, 10>& scalars, bool region, View view) = 0;
  virtual Outcome try_enqueue(const void* data, uint64_t nbytes) = 0;
  virtual Outcome enqueue(const void* data, uint64_t nbytes, uint64_t timeout_ns) = 0;
  virtual Outcome try_request_stop() = 0;
  virtual Outcome request_stop(uint64_t timeout_ns) = 0;
  virtual Outcome try_peek(Message* m) = 0;
  virtual Outcome peek(uint64_t timeout_ns, Message* m) = 0;
  virtual Outcome read_into(const Message& m, void* buffer, uint64_t capacity) = 0;
  virtual Outcome release(const Message& m) = 0;
  virtual Outcome try_dequeue_into(void* buffer, uint64_t capacity, Message* m) = 0;
  virtual Outcome dequeue_into(void* buffer, uint64_t capacity, uint64_t timeout_ns,
                               Message* m) = 0;
  virtual void free() = 0;
  virtual bool live() = 0;
  virtual Error error() = 0;
  virtual Json layout() = 0;  // the 15 SpscQueueLayout fields by name
  virtual std::array<uint64_t, 10> chip_task_arg_scalars() = 0;
  virtual Outcome region_released(bool* released) {
    (void)released;
    return Outcome::kUnsupported;
  }
};

struct Hello {
  std::string name;
  std::string language = "c++";
  std::string surface = "cpp";
};

namespace detail {

[[noreturn]] inline void bad_request(const Json& r, const std::string& what) {
  Channel::die("bad request (" + what + "): " + r.dump());
}
inline uint64_t u64(const Json& r, const char* key) {
  uint64_t v = 0;
  const Json* j = r.find(key);
  if (j == nullptr || !j->get_u64(&v)) bad_request(r, std::string("no integer \"") + key + "\"");
  return v;
}
inline bool flag(const Json& r, const char* key) {
  const Json* j = r.find(key);
  if (j == nullptr || !j->is_bool()) bad_request(r, std::string("no boolean \"") + key + "\"");
  return j->as_bool();
}
inline Json message_json(const Message& m) {
  Json j = Json::object();
  j.set("seq", Json::u64(m.seq)).set("opcode", Json::u64(m.opcode));
  j.set("payload_offset", Json::u64(m.payload_offset));
  j.set("payload_nbytes", Json::u64(m.payload_nbytes)).set("token", m.token);
  return j;
}
inline Message message_of(const Json& r) {
  const Json* j = r.find("message");
  if (j == nullptr || !j->is_object()) bad_request(r, "no \"message\" object");
  Message m;
  m.seq = u64(*j, "seq");
  m.opcode = u64(*j, "opcode");
  m.payload_offset = u64(*j, "payload_offset");
  m.payload_nbytes = u64(*j, "payload_nbytes");
  if (const Json* t = j->find("token")) m.token = *t;
  return m;
}
// A buffer the size the harness's is (bounded by what one frame carries).
inline bool buffer_for(const Json& r, std::vector<uint8_t>* buf, uint64_t* capacity) {
  *capacity = u64(r, "capacity");
  if (*capacity > (kMaxFrameBytes - 4096) / 2) return false;
  buf->assign(static_cast<size_t>(*capacity) + 1, 0);  // never empty: a non-null pointer
  return true;
}

// One request: its answer (callbacks go out while the queue works).
inline Json handle(Queue& q, const Json& r, const std::string& op, bool* quit) {
  Json a = Json::object();
  Outcome o = Outcome::kOk;
  std::vector<uint8_t> buf;
  uint64_t capacity = 0;
  Message m;
  // The input's bytes. The harness sends none beyond the input arena (such a
  // message must be refused by its size): the rest reads as zeros, up to
  // what one frame could have carried.
  auto input = [&](std::vector<uint8_t>* data, uint64_t nbytes) -> const void* {
    const Json* d = r.find("data");
    if (d == nullptr || d->is_null()) return nullptr;
    if (!d->is_string() || !from_hex(d->as_string(), data)) bad_request(r, "\"data\" is no hex");
    const uint64_t want = nbytes < kMaxFrameBytes ? nbytes : kMaxFrameBytes;
    if (data->size() < want) data->resize(static_cast<size_t>(want));
    data->push_back(0);  // a zero-byte buffer is still a buffer
    return data->data();
  };
  auto with_message = [&](Outcome out) {
    if (out == Outcome::kOk) a.set("message", message_json(m));
    return out;
  };
  auto with_data = [&](Outcome out, uint64_t nbytes) {
    if (out == Outcome::kOk) {
      a.set("data", Json::str(to_hex(buf.data(), nbytes < capacity ? nbytes : capacity)));
    }
    return out;
  };
  if (op == "create") {
    const Json* s = r.find("scalars");
    std::array<uint64_t, 10> scalars{};
    if (s == nullptr || !s->is_array() || s->items().size() != 10) {
      bad_request(r, "\"scalars\" is not 10 integers");
    }
    for (size_t i = 0; i < 10; ++i) {
      if (!s->items()[i].get_u64(&scalars[i])) bad_request(r, "a scalar is no uint64");
    }
    View view(Span{scalars[3], scalars[4]}, Span{scalars[5], scalars[6]});
    o = q.create(scalars, flag(r, "region"), view);
  } else if (op == "try_enqueue" || op == "enqueue") {
    std::vector<uint8_t> data;
    const uint64_t n = u64(r, "nbytes");
    const void* p = input(&data, n);
    o = op == "enqueue" ? q.enqueue(p, n, u64(r, "timeout_ns")) : q.try_enqueue(p, n);
  } else if (op == "try_request_stop") {
    o = q.try_request_stop();
  } else if (op == "request_stop") {
    o = q.request_stop(u64(r, "timeout_ns"));
  } else if (op == "try_peek") {
    o = with_message(q.try_peek(&m));
  } else if (op == "peek") {
    o = with_message(q.peek(u64(r, "timeout_ns"), &m));
  } else if (op == "read_into" || op == "try_dequeue_into" || op == "dequeue_into") {
    if (!buffer_for(r, &buf, &capacity)) {
      o = Outcome::kUnsupported;
      a.set("text", Json::str("a capacity larger than one frame carries"));
    } else {
      void* p = flag(r, "buffer") ? buf.data() : nullptr;
      if (op == "read_into") {
        m = message_of(r);
        o = with_data(q.read_into(m, p, capacity), m.payload_nbytes);
      } else {
        o = op == "dequeue_into" ? q.dequeue_into(p, capacity, u64(r, "timeout_ns"), &m)
                                 : q.try_dequeue_into(p, capacity, &m);
        o = with_data(with_message(o), m.payload_nbytes);
      }
    }
  } else if (op == "release") {
    o = q.release(message_of(r));
  } else if (op == "free") {
    q.free();
  } else if (op == "live") {
    a.set("live", Json::boolean(q.live()));
  } else if (op == "error") {
    const Error e = q.error();
    Json j = Json::object();
    j.set("kind", e.kind).set("op", e.op);
    j.set("session_instance_id_bits", e.session_instance_id_bits);
    j.set("transaction_id", e.transaction_id).set("text", Json::str(e.text));
    a.set("error", std::move(j));
  } else if (op == "layout") {
    a.set("layout", q.layout());
  } else if (op == "chip_task_arg_scalars") {
    Json s = Json::array();
    for (uint64_t v : q.chip_task_arg_scalars()) s.push(Json::u64(v));
    a.set("scalars", std::move(s));
  } else if (op == "region_released") {
    bool released = false;
    o = q.region_released(&released);
    if (o == Outcome::kOk) a.set("released", Json::boolean(released));
  } else if (op == "quit") {
    *quit = true;
  } else {
    o = Outcome::kUnsupported;
    a.set("text", Json::str("unknown op \"" + op + "\""));
  }
  a.set("outcome", Json::str(outcome_name(o)));
  return a;
}

}  // namespace detail

namespace detail {

// The request loop. `make_queue` null: `fixed` serves every request.
// Otherwise every "create" goes to a new queue from it, and "end" destroys it.
inline int serve_loop(const Hello& hello, Queue* fixed,
                      const std::function<std::unique_ptr<Queue>()>* make_queue, int in,
                      int out) {
  Channel& ch = Channel::get();
  ch.use_fds(in, out);
  Json h = Json::object();
  h.set("hello", Json::str("spsq-testee")).set("version", Json::u64(kProtocolVersion));
  h.set("name", Json::str(hello.name)).set("language", Json::str(hello.language));
  h.set("surface", Json::str(hello.surface));
  if (make_queue != nullptr) h.set("reuse", Json::boolean(true));
  ch.send(h);
  std::unique_ptr<Queue> owned;
  for (bool quit = false; !quit;) {
    std::string body, error;
    const int got = read_frame(ch.in(), &body, &error);
    if (got == 1) return 0;
    if (got < 0) Channel::die("reading a request: " + error);
    Json r;
    if (!Json::parse(body, &r, &error) || !r.is_object()) Channel::die("bad JSON: " + error);
    const Json* op = r.find("op");
    if (op == nullptr || !op->is_string()) bad_request(r, "no string \"op\"");
    const uint64_t id = u64(r, "id");
    Json answer = Json::object();
    answer.set("id", Json::u64(id));
    Json result = Json::object();
    Queue* q = fixed;
    if (make_queue != nullptr) {
      if (op->as_string() == "create") owned = (*make_queue)();
      if (op->as_string() == "end") owned.reset();
      q = owned.get();
    }
    if (make_queue != nullptr && op->as_string() == "end") {
      result.set("outcome", Json::str("ok"));
    } else if (q == nullptr && op->as_string() == "quit") {
      result.set("outcome", Json::str("ok"));
      quit = true;
    } else if (q == nullptr) {
      result.set("outcome", Json::str("failed"));
      result.set("text", Json::str("no queue: \"create\" did not run since the last \"end\""));
    } else {
      result = handle(*q, r, op->as_string(), &quit);
    }
    for (const auto& m : result.members()) answer.set(m.first, m.second);
    ch.end_request();
    ch.send(answer);
  }
  return 0;
}

}  // namespace detail

// Sends the hello, then answers requests until "quit" or the end of input
// (both: 0), all to one queue. A malformed request ends the process with
// status 2.
inline int serve(const Hello& hello, Queue& queue, int in = 0, int out = 1) {
  return detail::serve_loop(hello, &queue, nullptr, in, out);
}

// The same, one queue after another: the hello declares "reuse", each
// "create" binds a new queue from make_queue(), each "end" destroys it.
inline int serve(const Hello& hello, std::function<std::unique_ptr<Queue>()> make_queue,
                 int in = 0, int out = 1) {
  return detail::serve_loop(hello, nullptr, &make_queue, in, out);
}

}  // namespace spsq_testee

#endif  // SPSQ_TESTEE_CPP_SPSQ_TESTEE_H_
