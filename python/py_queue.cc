#include "python/py_queue.h"

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include "common/spsq_constants.h"
#include "python/py_args.h"
#include "python/py_buffers.h"
#include "python/py_errors.h"
#include "python/py_object_view.h"
#include "python/py_region.h"
#include "region/region_instance.h"

namespace py = pybind11;

namespace spsq_python {
namespace {

using spsc_queue::SpscQueueError;
using spsc_queue::SpscQueueLayout;
using spsc_queue::SpscQueueOpcode;
using spsc_queue::WorkerChipMessage;
using Status = spsc_queue::WorkerChipQueueStatus;

std::atomic<int> g_blocked_calls{0};

struct PyQueue {
  std::shared_ptr<QueueBox> box;
};
struct PyInput {
  std::shared_ptr<QueueBox> box;
};
struct PyOutput {
  std::shared_ptr<QueueBox> box;
};

// An output message: an immutable value. The borrowed payload pointer of the
// C++ handle is dropped; payload bytes are only reachable through read_into.
struct PyMessage {
  WorkerChipMessage m;
};

// What a queue call returned, carried out of the GIL-free section.
struct Outcome {
  Status status = Status::OK;
  SpscQueueError error;
};

class BlockedMark {
 public:
  explicit BlockedMark(bool blocking) : blocking_(blocking) {
    if (blocking_) g_blocked_calls.fetch_add(1);
  }
  ~BlockedMark() {
    if (blocking_) g_blocked_calls.fetch_sub(1);
  }

 private:
  bool blocking_;
};

// Runs f(queue) under the queue lock with the GIL released. The lock is
// dropped before the GIL is taken back, so a thread waiting for the lock
// while holding the GIL cannot deadlock with this one.
// An exception the region object of a bound queue raised that was no view
// failure (an interrupt, a lost peer) is raised here, after the call.
template <class F>
Outcome run(QueueBox& box, bool blocking, F&& f) {
  Outcome out;
  {
    py::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(box.mu);
    BlockedMark mark(blocking);
    out.status = f(*box.queue);
    if (out.status != Status::OK) out.error = box.queue->last_error();
  }
  raise_pending_python_error();
  return out;
}

// OK -> true, WOULD_BLOCK -> false, everything else raises.
bool progressed(const Outcome& o) {
  if (o.status == Status::OK) return true;
  if (o.status == Status::WOULD_BLOCK) return false;
  raise_status(o.status, o.error);
}

// Bytes to send from `span`: `nbytes` (None = all of it), never more than
// the buffer holds.
uint64_t send_bytes(const PayloadSpan& span, py::handle nbytes, const char* call) {
  if (nbytes.is_none()) return span.nbytes();
  const uint64_t n = uint64_arg(nbytes, call, "nbytes");
  if (n > span.nbytes()) {
    char text[200];
    if (span.none()) {
      std::snprintf(text, sizeof(text),
                    "%s: nbytes=%" PRIu64 " with buffer None; None carries only zero-byte "
                    "messages (nbytes=0)", call, n);
    } else {
      std::snprintf(text, sizeof(text),
                    "%s: nbytes=%" PRIu64 " exceeds the %" PRIu64 "-byte buffer", call, n,
                    span.nbytes());
    }
    throw py::value_error(text);
  }
  return n;
}

const PyMessage& message_arg(py::handle message, const char* call) {
  if (!py::isinstance<PyMessage>(message)) {
    throw py::type_error(std::string(call) + ": expected a spsq.Message from this queue's "
                         "output, not " + Py_TYPE(message.ptr())->tp_name);
  }
  return message.cast<const PyMessage&>();
}

py::object opcode_value(uint64_t opcode) {
  if (opcode <= static_cast<uint64_t>(SpscQueueOpcode::ERROR)) {
    return py::cast(static_cast<SpscQueueOpcode>(opcode));
  }
  return py::int_(opcode);
}

py::object message_or_none(bool got, const WorkerChipMessage& m) {
  if (!got) return py::none();
  PyMessage out{m};
  out.m.payload = spsc_queue::SpscQueuePayloadView{};
  return py::cast(out);
}

void bind_message(py::module_& m) {
  py::class_<PyMessage>(m, "Message",
                        "One output message: an immutable value. seq is the transport\n"
                        "sequence number (1-based), not an application request id.")
      .def_property_readonly("seq", [](const PyMessage& p) { return p.m.seq; })
      .def_property_readonly("opcode", [](const PyMessage& p) { return opcode_value(static_cast<uint64_t>(p.m.opcode)); })
      .def_property_readonly("payload_offset",
                             [](const PyMessage& p) { return p.m.payload_offset; })
      .def_property_readonly("payload_nbytes",
                             [](const PyMessage& p) { return p.m.payload_nbytes; })
      .def("__eq__",
           [](const PyMessage& a, py::handle other) {
             if (!py::isinstance<PyMessage>(other)) return false;
             const WorkerChipMessage& b = other.cast<const PyMessage&>().m;
             return a.m.seq == b.seq && a.m.opcode == b.opcode &&
                    a.m.payload_offset == b.payload_offset &&
                    a.m.payload_nbytes == b.payload_nbytes && a.m.owner_cookie == b.owner_cookie;
           })
      .def("__hash__",
           [](const PyMessage& p) {
             return py::hash(py::make_tuple(p.m.seq, static_cast<uint64_t>(p.m.opcode), p.m.payload_offset,
                                            p.m.payload_nbytes, p.m.owner_cookie));
           })
      // A message built by hand belongs to no queue (no owner): every queue
      // refuses it, as it refuses a stale or foreign one.
      .def(py::init([](py::handle seq, py::handle opcode, py::handle offset, py::handle nbytes) {
             PyMessage out{};
             out.m.seq = uint64_arg(seq, "Message", "seq");
             out.m.opcode = static_cast<SpscQueueOpcode>(uint64_arg(opcode, "Message", "opcode"));
             out.m.payload_offset = uint64_arg(offset, "Message", "payload_offset");
             out.m.payload_nbytes = uint64_arg(nbytes, "Message", "payload_nbytes");
             return out;
           }),
           py::kw_only(), py::arg("seq"), py::arg("opcode"), py::arg("payload_offset"),
           py::arg("payload_nbytes"))
      // copy.replace(): the same message with other public fields, as a
      // wrong handle is made (a stale seq, a changed size); the owner stays.
      .def("__replace__",
           [](const PyMessage& p, py::kwargs changes) {
             PyMessage out = p;
             for (auto item : changes) {
               const std::string key = py::str(item.first);
               const uint64_t v = uint64_arg(item.second, "Message.__replace__", key.c_str());
               if (key == "seq") {
                 out.m.seq = v;
               } else if (key == "opcode") {
                 out.m.opcode = static_cast<SpscQueueOpcode>(v);
               } else if (key == "payload_offset") {
                 out.m.payload_offset = v;
               } else if (key == "payload_nbytes") {
                 out.m.payload_nbytes = v;
               } else {
                 throw py::type_error("Message.__replace__: no field " + key);
               }
             }
             return out;
           })
      .def("__repr__", [](const PyMessage& p) {
        char text[200];
        std::snprintf(text, sizeof(text),
                      "Message(seq=%" PRIu64 ", opcode=%s, payload_offset=%" PRIu64
                      ", payload_nbytes=%" PRIu64 ")",
                      p.m.seq, spsc_queue::opcode_name(static_cast<uint64_t>(p.m.opcode)), p.m.payload_offset,
                      p.m.payload_nbytes);
        return std::string(text);
      });
}

void bind_layout(py::module_& m) {
  py::class_<SpscQueueLayout> c(m, "Layout",
                                "The queue's shared layout, field for field the C++ layout():\n"
                                "ring and arena offsets relative to the payload base, signal\n"
                                "offsets relative to the counter base.");
#define SPSQ_LAYOUT_FIELD(f) c.def_readonly(#f, &SpscQueueLayout::f)
  SPSQ_LAYOUT_FIELD(depth);
  // The Python names predate the runtime's C++ names and stay.
  c.def_readonly("input_desc_ring_offset", &SpscQueueLayout::input_desc_offset);
  c.def_property_readonly("input_desc_ring_bytes",
                          [](const SpscQueueLayout& l) { return l.depth * spsc_queue::kDescriptorBytes; });
  c.def_readonly("output_desc_ring_offset", &SpscQueueLayout::output_desc_offset);
  c.def_property_readonly("output_desc_ring_bytes",
                          [](const SpscQueueLayout& l) { return l.depth * spsc_queue::kDescriptorBytes; });
  SPSQ_LAYOUT_FIELD(input_arena_offset);
  SPSQ_LAYOUT_FIELD(input_arena_bytes);
  SPSQ_LAYOUT_FIELD(output_arena_offset);
  SPSQ_LAYOUT_FIELD(output_arena_bytes);
  SPSQ_LAYOUT_FIELD(payload_bytes);
  SPSQ_LAYOUT_FIELD(counter_bytes);
  SPSQ_LAYOUT_FIELD(input_desc_tail_offset);
  SPSQ_LAYOUT_FIELD(input_desc_head_offset);
  SPSQ_LAYOUT_FIELD(output_desc_tail_offset);
  SPSQ_LAYOUT_FIELD(output_desc_head_offset);
  c.def_readonly("initiator_abort_flag_offset", &SpscQueueLayout::initiator_abort_offset);
  c.def_readonly("peer_abort_flag_offset", &SpscQueueLayout::peer_abort_offset);
#undef SPSQ_LAYOUT_FIELD
  c.def("__eq__",
        [](const SpscQueueLayout& a, py::handle b) {
          return py::isinstance<SpscQueueLayout>(b) && a == b.cast<const SpscQueueLayout&>();
        })
      .def("__hash__", [](const SpscQueueLayout& l) {
        return py::hash(py::make_tuple(l.depth, l.input_arena_bytes, l.output_arena_bytes));
      })
      .def("__repr__", [](const SpscQueueLayout& l) {
        char text[300];
        std::snprintf(text, sizeof(text),
                      "Layout(depth=%" PRIu64 ", output_desc_ring_offset=%" PRIu64
                      ", input_arena_offset=%" PRIu64 ", output_arena_offset=%" PRIu64
                      ", payload_bytes=%" PRIu64 ", counter_bytes=%" PRIu64 ")",
                      l.depth, l.output_desc_offset, l.input_arena_offset,
                      l.output_arena_offset, l.payload_bytes, l.counter_bytes);
        return std::string(text);
      });
}

void bind_input(py::module_& m) {
  py::class_<PyInput>(m, "WorkerChipQueueInput",
                      "queue.input: L3 produces DATA messages, then STOP.")
      .def(
          "enqueue",
          [](const PyInput& in, py::handle buffer, py::handle nbytes, py::handle timeout) {
            const auto ns = timeout_arg(timeout, "enqueue");
            PayloadSpan span(buffer, PayloadSpan::Use::kSource, "enqueue");
            const uint64_t n = send_bytes(span, nbytes, "enqueue");
            progressed(run(*in.box, true, [&](QueueBackend& q) {
              return q.enqueue(span.data(), n, ns);
            }));
          },
          py::arg("buffer"), py::arg("nbytes") = py::none(), py::arg("timeout") = py::none(),
          "Publishes one DATA message of `nbytes` bytes (default: the whole buffer), waiting up\n"
          "to `timeout` seconds for ring and arena room. None with nbytes=0 sends a zero-byte\n"
          "message. Raises QueueTimeoutError on expiry (the queue stays live).")
      .def(
          "try_enqueue",
          [](const PyInput& in, py::handle buffer, py::handle nbytes) {
            PayloadSpan span(buffer, PayloadSpan::Use::kSource, "try_enqueue");
            const uint64_t n = send_bytes(span, nbytes, "try_enqueue");
            return progressed(run(*in.box, false, [&](QueueBackend& q) {
              return q.try_enqueue(span.data(), n);
            }));
          },
          py::arg("buffer"), py::arg("nbytes") = py::none(),
          "Like enqueue without waiting: False on ring or arena backpressure (not poison).")
      .def(
          "request_stop",
          [](const PyInput& in, py::handle timeout) {
            const auto ns = timeout_arg(timeout, "request_stop");
            progressed(run(*in.box, true,
                           [&](QueueBackend& q) { return q.request_stop(ns); }));
          },
          py::arg("timeout") = py::none(),
          "Publishes STOP, waiting only until it is published (not for L2 exit or outputs).")
      .def(
          "try_request_stop",
          [](const PyInput& in) {
            return progressed(
                run(*in.box, false, [](QueueBackend& q) { return q.try_request_stop(); }));
          },
          "Publishes STOP if the ring has room now; False otherwise.")
      .def_property_readonly("stop_published", [](const PyInput& in) {
        bool published = false;
        run(*in.box, false, [&](QueueBackend& q) {
          published = q.stop_published();
          return Status::OK;
        });
        return published;
      });
}

void bind_output(py::module_& m) {
  py::class_<PyOutput>(m, "WorkerChipQueueOutput",
                       "queue.output: L3 consumes DATA and ERROR messages, one at a time.")
      .def(
          "peek",
          [](const PyOutput& out, py::handle timeout) {
            const auto ns = timeout_arg(timeout, "peek");
            WorkerChipMessage msg{};
            progressed(run(*out.box, true,
                           [&](QueueBackend& q) { return q.peek(ns, &msg); }));
            return message_or_none(true, msg);
          },
          py::arg("timeout") = py::none(),
          "Waits up to `timeout` seconds for the next message and returns it; it stays active\n"
          "(every peek returns it again) until release(message).")
      .def(
          "try_peek",
          [](const PyOutput& out) {
            WorkerChipMessage msg{};
            const bool got = progressed(
                run(*out.box, false, [&](QueueBackend& q) { return q.try_peek(&msg); }));
            return message_or_none(got, msg);
          },
          "The active or next message, or None when no output is available.")
      .def(
          "read_into",
          [](const PyOutput& out, py::handle message, py::handle buffer) {
            const PyMessage& msg = message_arg(message, "read_into");
            PayloadSpan span(buffer, PayloadSpan::Use::kTarget, "read_into");
            progressed(run(*out.box, false, [&](QueueBackend& q) {
              return q.read_into(msg.m, span.data(), span.nbytes());
            }));
            return msg.m.payload_nbytes;
          },
          py::arg("message"), py::arg("buffer"),
          "Copies the active message's payload to the start of `buffer` and returns its size.\n"
          "A buffer too small is a RejectedError (the message stays active); a message that is\n"
          "not the active one poisons the queue.")
      .def(
          "release",
          [](const PyOutput& out, py::handle message) {
            const PyMessage& msg = message_arg(message, "release");
            progressed(
                run(*out.box, false, [&](QueueBackend& q) { return q.release(msg.m); }));
          },
          py::arg("message"), "Releases the active message; any other message poisons the queue.")
      .def(
          "dequeue_into",
          [](const PyOutput& out, py::handle buffer, py::handle timeout) {
            const auto ns = timeout_arg(timeout, "dequeue_into");
            PayloadSpan span(buffer, PayloadSpan::Use::kTarget, "dequeue_into");
            WorkerChipMessage msg{};
            progressed(run(*out.box, true, [&](QueueBackend& q) {
              return q.dequeue_into(span.data(), span.nbytes(), ns, &msg);
            }));
            return message_or_none(true, msg);
          },
          py::arg("buffer"), py::arg("timeout") = py::none(),
          "peek + read_into + release in one call; returns the message (its metadata).")
      .def(
          "try_dequeue_into",
          [](const PyOutput& out, py::handle buffer) {
            PayloadSpan span(buffer, PayloadSpan::Use::kTarget, "try_dequeue_into");
            WorkerChipMessage msg{};
            const bool got = progressed(run(*out.box, false, [&](QueueBackend& q) {
              return q.try_dequeue_into(span.data(), span.nbytes(), &msg);
            }));
            return message_or_none(got, msg);
          },
          py::arg("buffer"), "Like dequeue_into without waiting: None when no output is available.");
}

void bind_worker_chip_queue(py::module_& m) {
  py::class_<PyQueue>(m, "WorkerChipQueue",
                      "L3's handle of one SPSQ queue (create it with\n"
                      "Orchestrator.create_worker_chip_queue).")
      .def_property_readonly("input", [](const PyQueue& q) { return PyInput{q.box}; })
      .def_property_readonly("output", [](const PyQueue& q) { return PyOutput{q.box}; })
      // The stop calls as the spec spells them; queue.input has the same two.
      .def(
          "request_stop",
          [](const PyQueue& q, py::handle timeout) {
            const auto ns = timeout_arg(timeout, "request_stop");
            progressed(
                run(*q.box, true, [&](QueueBackend& w) { return w.request_stop(ns); }));
          },
          py::arg("timeout") = py::none(),
          "Publishes STOP, waiting only until it is published (not for L2 exit or outputs).")
      .def(
          "try_request_stop",
          [](const PyQueue& q) {
            return progressed(
                run(*q.box, false, [](QueueBackend& w) { return w.try_request_stop(); }));
          },
          "Publishes STOP if the ring has room now; False otherwise.")
      // The binding and layout are fixed at construction: no lock needed.
      .def_property_readonly("layout", [](const PyQueue& q) { return q.box->queue->layout(); })
      .def(
          "chip_task_arg_scalars",
          [](const PyQueue& q) {
            py::list out;
            for (uint64_t v : q.box->queue->chip_task_arg_scalars()) out.append(py::int_(v));
            return out;
          },
          "The ten SpscQueueEndpointBinding scalars, in spec order, for TaskArgs offset 0.")
      .def_property_readonly(
          "region",
          [](const PyQueue& q) {
            return PyRegion(q.box, &q.box->mu, &q.box->queue->region(), q.box->region_object);
          },
          "Compatibility escape hatch: the WorkerChipOrchRegion over this queue's instance.")
      .def_property_readonly("live",
                             [](const PyQueue& q) {
                               bool live = false;
                               run(*q.box, false, [&](QueueBackend& w) {
                                 live = w.live();
                                 return Status::OK;
                               });
                               return live;
                             })
      .def_property_readonly("freed",
                             [](const PyQueue& q) {
                               bool freed = false;
                               run(*q.box, false, [&](QueueBackend& w) {
                                 freed = w.freed();
                                 return Status::OK;
                               });
                               return freed;
                             })
      .def(
          "free",
          [](const PyQueue& q) {
            run(*q.box, false, [](QueueBackend& w) {
              w.free();
              return Status::OK;
            });
          },
          "Logical release of the handle and its projected region; idempotent. Memory stays\n"
          "until submitted L2 work has drained.")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](const PyQueue& q, py::args) {
        run(*q.box, false, [](QueueBackend& w) {
          w.free();
          return Status::OK;
        });
        return false;
      });
}


// The ten scalars, field by field in binding order, unchecked: the queue's
// own validation names what is wrong with them (BAD_BINDING).
spsc_queue::SpscQueueEndpointBinding binding_arg(py::handle scalars, const char* call) {
  const py::sequence seq = py::reinterpret_borrow<py::sequence>(scalars);
  if (!PySequence_Check(scalars.ptr()) || py::len(seq) != spsc_queue::kSpscQueueEndpointBindingScalarCount) {
    throw py::value_error(std::string(call) + ": scalars must be a sequence of the ten binding "
                          "scalars");
  }
  uint64_t v[spsc_queue::kSpscQueueEndpointBindingScalarCount];
  for (size_t i = 0; i < spsc_queue::kSpscQueueEndpointBindingScalarCount; ++i) {
    v[i] = uint64_arg(seq[i], call, "scalar");
  }
  return spsc_queue::SpscQueueEndpointBinding{v[0], v[1], v[2], v[3], v[4],
                                              v[5], v[6], v[7], v[8], v[9]};
}

py::object bind_over_region(py::object region, py::handle scalars, bool project_region) {
  const char* call = "bind_worker_chip_queue";
  const spsc_queue::SpscQueueEndpointBinding b = binding_arg(scalars, call);
  const RegionPartLocalSpan payload{b.payload_base, b.payload_bytes};
  const RegionPartLocalSpan counter{b.counter_base, b.counter_bytes};
  // The projected region adopts the binding's spans as an instance's: it
  // records them, maps nothing.
  std::shared_ptr<spsq_runtime::RegionInstance> instance;
  if (project_region) {
    instance = spsq_runtime::RegionInstance::adopt(
        spsq_runtime::RegionInstanceId{0, b.session_instance_id_bits, b.transaction_id}, payload,
        counter);
  }
  using Queue = spsc_queue::BasicWorkerChipQueue<PyObjectView>;
  std::unique_ptr<Queue> q(new Queue(b, PyObjectView(region, payload, counter),
                                     spsc_queue::MonotonicClock{&python_monotonic_ns},
                                     std::move(instance)));
  raise_pending_python_error();
  if (!q->live()) raise_call_error(q->error());
  auto box = std::make_shared<QueueBox>();
  box->queue.reset(new QueueBackendOf<PyObjectView>(std::move(q), &python_monotonic_ns));
  box->region_object = std::move(region);
  return py::cast(PyQueue{std::move(box)});
}

}  // namespace

void bind_queue(py::module_& m) {
  bind_message(m);
  bind_layout(m);
  bind_input(m);
  bind_output(m);
  bind_worker_chip_queue(m);
  m.def("bind_worker_chip_queue", &bind_over_region, py::arg("region"), py::arg("scalars"),
        py::kw_only(), py::arg("project_region") = false,
        "Binds an L3 queue over `region`, any object with payload_read(offset, nbytes),\n"
        "payload_write(offset, data) and counter(offset) -> .test/.notify/.wait, from the\n"
        "ten binding scalars. Every shared access is a call into that object (a RuntimeError\n"
        "from it is a view failure) and every clock reading is time.monotonic_ns(). With\n"
        "project_region, queue.region projects the same instance. Raises as the factory\n"
        "does when the binding is refused.");
}

py::object wrap_queue(std::unique_ptr<spsc_queue::WorkerChipQueue> queue, uint64_t (*now_ns)()) {
  auto box = std::make_shared<QueueBox>();
  box->queue.reset(new QueueBackendOf<RegionInstanceView>(std::move(queue), now_ns));
  return py::cast(PyQueue{std::move(box)});
}

int blocked_calls() { return g_blocked_calls.load(); }

}  // namespace spsq_python
