#include "python/py_region.h"

#include <cstdint>
#include <limits>
#include <string>

#include "aicpu/region_instance_view.h"
#include "python/py_args.h"

namespace py = pybind11;

namespace spsq_python {
namespace {

using spsq_runtime::WorkerChipOrchRegion;

py::tuple span_tuple(const RegionPartLocalSpan& s) {
  return py::make_tuple(py::int_(s.base), py::int_(s.logical_bytes));
}

// Outcome of one counter access, carried out of the GIL-free section.
struct CounterAccess {
  bool released = false;
  bool ok = false;
  int32_t value = 0;
  std::string error;
};

// Through the region object of a bound queue (GIL taken here: the caller
// holds the lock without it). A RuntimeError is a failed access.
CounterAccess access_through(const py::object& counters, uint64_t offset, const int32_t* set) {
  CounterAccess a;
  py::gil_scoped_acquire gil;
  try {
    py::object c = counters.attr("counter")(py::int_(offset));
    if (set != nullptr) {
      c.attr("notify")(py::int_(*set), py::int_(0));
    } else {
      a.value = py::tuple(c.attr("test")(py::int_(0), py::int_(0)))[1].cast<int32_t>();
    }
    a.ok = true;
  } catch (py::error_already_set& e) {
    if (!e.matches(PyExc_RuntimeError)) throw;
    a.error = py::str(e.value()).cast<std::string>();
  }
  return a;
}

CounterAccess access_counter(WorkerChipOrchRegion& r, uint64_t offset, const int32_t* set,
                             const py::object& counters) {
  CounterAccess a;
  if (r.released()) {
    a.released = true;
    return a;
  }
  if (counters && !counters.is_none()) return access_through(counters, offset, set);
  RegionInstanceView view(r.payload(), r.counter());
  if (set != nullptr) {
    a.ok = view.counter().notify(offset, *set, RegionNotifyOp::Set);
  } else {
    RegionSignalTestResult sample{};
    a.ok = view.counter().test(offset, 0, RegionWaitCmp::EQ, sample);
    a.value = sample.observed;
  }
  if (!a.ok) a.error = view.error().message;
  return a;
}

int32_t finish(const CounterAccess& a, const char* call) {
  if (a.released) {
    throw py::value_error(std::string(call) + ": the region handle was released");
  }
  if (!a.ok) throw py::value_error(std::string(call) + ": " + a.error);
  return a.value;
}

}  // namespace

void bind_region(py::module_& m) {
  py::class_<PyRegion>(m, "WorkerChipOrchRegion",
                       "PAYLOAD and COUNTER local views of one RegionInstance.")
      .def_property_readonly("released",
                             [](const PyRegion& p) {
                               return p.locked([](WorkerChipOrchRegion& r) { return r.released(); });
                             })
      .def_property_readonly(
          "worker_id",
          [](const PyRegion& p) {
            return p.locked([](WorkerChipOrchRegion& r) { return r.id().worker_id; });
          })
      .def_property_readonly("session_instance_id_bits",
                             [](const PyRegion& p) {
                               return p.locked([](WorkerChipOrchRegion& r) {
                                 return r.id().session_instance_id_bits;
                               });
                             })
      .def_property_readonly("transaction_id",
                             [](const PyRegion& p) {
                               return p.locked(
                                   [](WorkerChipOrchRegion& r) { return r.id().transaction_id; });
                             })
      .def_property_readonly(
          "payload",
          [](const PyRegion& p) {
            return span_tuple(p.locked([](WorkerChipOrchRegion& r) { return r.payload(); }));
          },
          "(local base address, bytes); (0, 0) once released")
      .def_property_readonly(
          "counter",
          [](const PyRegion& p) {
            return span_tuple(p.locked([](WorkerChipOrchRegion& r) { return r.counter(); }));
          },
          "(local base address, bytes); (0, 0) once released")
      .def(
          "chip_task_arg_scalars",
          [](const PyRegion& p) {
            const auto s = p.locked([](WorkerChipOrchRegion& r) { return r.chip_task_arg_scalars(); });
            py::list out;
            for (uint64_t v : s) out.append(py::int_(v));
            return out;
          },
          "[payload_base, payload_bytes, counter_base, counter_bytes]")
      .def(
          "read_counter",
          [](const PyRegion& p, py::handle offset) {
            const uint64_t off = uint64_arg(offset, "read_counter", "offset");
            return finish(p.locked([&p, off](WorkerChipOrchRegion& r) {
                            return access_counter(r, off, nullptr, p.counters());
                          }),
                          "read_counter");
          },
          py::arg("offset"), "The int32 counter slot at byte `offset` (acquire load).")
      .def(
          "write_counter",
          [](const PyRegion& p, py::handle offset, py::handle value) {
            const uint64_t off = uint64_arg(offset, "write_counter", "offset");
            if (PyBool_Check(value.ptr()) || !PyLong_Check(value.ptr())) {
              throw py::type_error("write_counter: value must be an int");
            }
            int overflow = 0;
            const long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
            if (overflow != 0 || v < std::numeric_limits<int32_t>::min() ||
                v > std::numeric_limits<int32_t>::max()) {
              throw py::value_error("write_counter: value " + py::str(value).cast<std::string>() +
                                    " does not fit an int32 counter slot");
            }
            const int32_t v32 = static_cast<int32_t>(v);
            finish(p.locked([&p, off, &v32](WorkerChipOrchRegion& r) {
                     return access_counter(r, off, &v32, p.counters());
                   }),
                   "write_counter");
          },
          py::arg("offset"), py::arg("value"),
          "Sets the int32 counter slot at byte `offset` (release store).")
      .def(
          "free",
          [](const PyRegion& p) { p.locked([](WorkerChipOrchRegion& r) { r.free(); }); },
          "Logical release of this handle; idempotent.");
}

}  // namespace spsq_python
