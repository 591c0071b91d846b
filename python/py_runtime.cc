#include "python/py_runtime.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "python/l2_registry.h"
#include "python/py_args.h"
#include "python/py_errors.h"
#include "python/py_queue.h"
#include "python/py_region.h"
#include "python/virtual_clock.h"
#include "runtime/orchestrator.h"
#include "runtime/steady_clock.h"

namespace py = pybind11;

namespace spsq_python {
namespace {

using spsc_queue::SpscQueueError;
using spsq_runtime::ChipCallConfig;
using spsq_runtime::ChipWorkerMode;
using spsq_runtime::Orchestrator;
using spsq_runtime::TaskArgs;
using spsq_runtime::WorkerRunReport;

// Owns the orchestrator. Its destructor drains every worker, which may wait
// for L2 tasks, so it lets go of the GIL while doing that.
struct OrchBox {
  std::unique_ptr<Orchestrator> orch;
  spsc_queue::MonotonicClock clock;  // the one its queues measure timeouts with
  ~OrchBox() {
    if (orch && PyGILState_Check() && !_Py_IsFinalizing()) {
      py::gil_scoped_release nogil;
      orch.reset();
    }
  }
};

struct PyOrchestrator {
  std::shared_ptr<OrchBox> box;
};

struct PyWorker {
  std::shared_ptr<OrchBox> box;
  uint32_t id;
};

struct PyL2Function {
  const RegisteredL2* l2;
};

uint32_t worker_id_arg(const PyOrchestrator& o, py::handle value, const char* call,
                       const char* name) {
  const uint64_t id = uint64_arg(value, call, name);
  if (id >= o.box->orch->worker_count()) {
    throw py::value_error(std::string(call) + ": " + name + " " + std::to_string(id) +
                          " out of range: " + std::to_string(o.box->orch->worker_count()) +
                          " chip worker(s)");
  }
  return static_cast<uint32_t>(id);
}

PyOrchestrator make_orchestrator(py::handle worker_count, const std::string& mode,
                                 py::handle session_bits, const std::string& clock,
                                 py::handle max_region_bytes) {
  spsq_runtime::OrchestratorOptions o;
  const uint64_t workers = uint64_arg(worker_count, "Orchestrator", "worker_count");
  if (workers == 0 || workers > std::numeric_limits<uint32_t>::max()) {
    throw py::value_error("Orchestrator: worker_count must be in [1, 2^32), got " +
                          std::to_string(workers));
  }
  o.worker_count = static_cast<uint32_t>(workers);
  if (mode == "thread") {
    o.mode = ChipWorkerMode::kThread;
  } else if (mode == "process") {
    o.mode = ChipWorkerMode::kProcess;
  } else {
    throw py::value_error("Orchestrator: mode must be 'thread' or 'process', got '" + mode + "'");
  }
  if (!session_bits.is_none()) {
    for (py::handle v : py::iter(session_bits)) {
      o.session_bits.push_back(uint64_arg(v, "Orchestrator", "session_bits item"));
    }
  }
  if (clock == "steady") {
    o.clock = spsq_runtime::steady_monotonic_clock();
  } else if (clock == "virtual") {
    o.clock = virtual_monotonic_clock();
  } else {
    throw py::value_error("Orchestrator: clock must be 'steady' or 'virtual', got '" + clock + "'");
  }
  if (!max_region_bytes.is_none()) {
    o.max_region_bytes = uint64_arg(max_region_bytes, "Orchestrator", "max_region_bytes");
  }
  SpscQueueError e;
  auto box = std::make_shared<OrchBox>();
  box->clock = o.clock;
  box->orch = Orchestrator::create(o, &e);
  if (!box->orch) raise_call_error(e);
  return PyOrchestrator{std::move(box)};
}

void bind_task_args(py::module_& m) {
  py::class_<TaskArgs>(m, "TaskArgs", "Scalar arguments of a next-level (L2) task.")
      .def(py::init<>())
      .def(
          "add_scalar",
          [](TaskArgs& a, py::handle value) {
            a.add_scalar(uint64_arg(value, "add_scalar", "value"));
          },
          py::arg("value"), "Appends one uint64 scalar.")
      .def(
          "scalar",
          [](const TaskArgs& a, int64_t i) {
            if (i < 0 || static_cast<uint64_t>(i) >= a.scalar_count()) {
              throw py::index_error("scalar index " + std::to_string(i) + " out of range: " +
                                    std::to_string(a.scalar_count()) + " scalar(s)");
            }
            return a.scalar(static_cast<int32_t>(i));
          },
          py::arg("index"))
      .def_property_readonly("scalar_count", &TaskArgs::scalar_count)
      .def("__len__", &TaskArgs::scalar_count)
      .def("scalars", [](const TaskArgs& a) {
        py::list out;
        for (size_t i = 0; i < a.scalar_count(); ++i) {
          out.append(py::int_(a.scalar(static_cast<int32_t>(i))));
        }
        return out;
      });

  py::class_<ChipCallConfig>(m, "ChipCallConfig", "Launch parameters of one next-level call.")
      .def(py::init([](uint32_t block_dim) { return ChipCallConfig{block_dim}; }),
           py::kw_only(), py::arg("block_dim") = 1)
      .def_readwrite("block_dim", &ChipCallConfig::block_dim);
}

void bind_l2_functions(py::module_& m) {
  py::class_<PyL2Function>(m, "L2Function",
                           "A C++ L2 orchestration function compiled into the module.")
      .def_property_readonly("name", [](const PyL2Function& f) { return f.l2->handle.name; })
      .def_property_readonly("summary", [](const PyL2Function& f) { return f.l2->summary; })
      .def("__repr__", [](const PyL2Function& f) {
        return std::string("L2Function('") + f.l2->handle.name + "')";
      });
  m.def(
      "l2_function",
      [](const std::string& name) {
        const RegisteredL2* f = find_registered_l2(name);
        if (f == nullptr) {
          std::string known;
          for (const RegisteredL2* r = registered_l2_begin(); r != registered_l2_end(); ++r) {
            known += (known.empty() ? "" : ", ") + std::string(r->handle.name);
          }
          throw py::key_error("no L2 function named '" + name + "' (registered: " + known + ")");
        }
        return PyL2Function{f};
      },
      py::arg("name"), "The registered C++ L2 function `name` (KeyError if none).");
  m.def("l2_function_names", [] {
    py::list names;
    for (const RegisteredL2* r = registered_l2_begin(); r != registered_l2_end(); ++r) {
      names.append(r->handle.name);
    }
    return py::tuple(names);
  });
}

void bind_worker(py::module_& m) {
  py::class_<WorkerRunReport>(m, "WorkerRunReport", "What Worker.run() saw drain.")
      .def_readonly("tasks_completed", &WorkerRunReport::tasks_completed)
      .def_readonly("tasks_failed", &WorkerRunReport::tasks_failed)
      .def_readonly("first_failure", &WorkerRunReport::first_failure)
      .def_property_readonly("ok", &WorkerRunReport::ok)
      .def("__repr__", [](const WorkerRunReport& r) {
        return "WorkerRunReport(tasks_completed=" + std::to_string(r.tasks_completed) +
               ", tasks_failed=" + std::to_string(r.tasks_failed) + ")";
      });

  py::class_<PyWorker>(m, "Worker", "One simulated chip worker.")
      .def_property_readonly("id", [](const PyWorker& w) { return w.id; })
      .def(
          "run",
          [](const PyWorker& w) {
            py::gil_scoped_release nogil;
            return w.box->orch->worker(w.id).run();
          },
          "Blocks (without the GIL) until every L2 task submitted so far has returned; L2\n"
          "exit is observed here.")
      .def_property_readonly("pending",
                             [](const PyWorker& w) { return w.box->orch->worker(w.id).pending(); });
}

void bind_orchestrator(py::module_& m) {
  py::class_<PyOrchestrator>(m, "Orchestrator",
                             "The L3 host orchestrator of the runtime simulation.")
      .def(py::init(&make_orchestrator), py::kw_only(), py::arg("worker_count") = 1,
           py::arg("mode") = "thread", py::arg("session_bits") = py::none(),
           py::arg("clock") = "steady", py::arg("max_region_bytes") = py::none(),
           "mode: 'thread' (L2 on the worker's thread) or 'process' (L2 in a forked child).\n"
           "clock: 'steady', or 'virtual' (each reading advances 1 ms; for tests).")
      .def(
          "create_worker_chip_queue",
          [](const PyOrchestrator& o, py::handle worker_id, py::handle depth,
             py::handle input_arena_bytes, py::handle output_arena_bytes) {
            const char* call = "create_worker_chip_queue";
            const uint32_t w = worker_id_arg(o, worker_id, call, "worker_id");
            const uint64_t d = uint64_arg(depth, call, "depth");
            const uint64_t in = uint64_arg(input_arena_bytes, call, "input_arena_bytes");
            const uint64_t out = uint64_arg(output_arena_bytes, call, "output_arena_bytes");
            SpscQueueError e;
            auto queue = o.box->orch->create_worker_chip_queue(w, d, in, out, &e);
            if (!queue) raise_call_error(e);
            return wrap_queue(std::move(queue), o.box->clock.now_ns);
          },
          py::kw_only(), py::arg("worker_id"), py::arg("depth"), py::arg("input_arena_bytes"),
          py::arg("output_arena_bytes"),
          "Compatibility factory: one RegionInstance, the SPSC template bound onto it, and\n"
          "the WorkerChipQueue projected for L3.")
      .def(
          "create_worker_chip_region",
          [](const PyOrchestrator& o, py::handle worker_id, py::handle payload_bytes,
             py::handle counter_bytes) {
            const char* call = "create_worker_chip_region";
            const uint32_t w = worker_id_arg(o, worker_id, call, "worker_id");
            const uint64_t p = uint64_arg(payload_bytes, call, "payload_bytes");
            const uint64_t c = uint64_arg(counter_bytes, call, "counter_bytes");
            SpscQueueError e;
            auto box = std::make_shared<RegionBox>();
            box->region = o.box->orch->create_worker_chip_region(w, p, c, &e);
            if (!box->region) raise_call_error(e);
            spsq_runtime::WorkerChipOrchRegion* region = box->region.get();
            std::mutex* mu = &box->mu;
            return PyRegion(std::move(box), mu, region);
          },
          py::kw_only(), py::arg("worker_id"), py::arg("payload_bytes"), py::arg("counter_bytes"),
          "A primitive region for orchestrator communication that is not a queue.")
      .def(
          "submit_next_level",
          [](const PyOrchestrator& o, py::handle l2_handle, const TaskArgs& args,
             py::handle cfg, py::handle worker) {
            const char* call = "submit_next_level";
            if (!py::isinstance<PyL2Function>(l2_handle)) {
              throw py::type_error(std::string(call) + ": l2_handle must be a spsq.L2Function "
                                   "(see spsq.l2_function), not " +
                                   Py_TYPE(l2_handle.ptr())->tp_name);
            }
            ChipCallConfig config;
            if (!cfg.is_none()) {
              if (!py::isinstance<ChipCallConfig>(cfg)) {
                throw py::type_error(std::string(call) + ": cfg must be a spsq.ChipCallConfig");
              }
              config = cfg.cast<ChipCallConfig>();
            }
            const uint32_t w = worker_id_arg(o, worker, call, "worker");
            SpscQueueError e;
            if (!o.box->orch->submit_next_level(l2_handle.cast<PyL2Function>().l2->handle, args,
                                                config, w, &e)) {
              raise_call_error(e);
            }
          },
          py::arg("l2_handle"), py::arg("args"), py::arg("cfg") = py::none(), py::kw_only(),
          py::arg("worker") = 0, "Runs the L2 function on chip worker `worker`.")
      .def(
          "worker",
          [](const PyOrchestrator& o, int64_t worker_id) {
            if (worker_id < 0 || worker_id >= static_cast<int64_t>(o.box->orch->worker_count())) {
              throw py::index_error("worker " + std::to_string(worker_id) + " out of range: " +
                                    std::to_string(o.box->orch->worker_count()) +
                                    " chip worker(s)");
            }
            return PyWorker{o.box, static_cast<uint32_t>(worker_id)};
          },
          py::arg("worker_id"))
      .def_property_readonly("worker_count",
                             [](const PyOrchestrator& o) { return o.box->orch->worker_count(); })
      .def_property_readonly("mode",
                             [](const PyOrchestrator& o) {
                               return std::string(chip_worker_mode_name(o.box->orch->mode()));
                             })
      .def(
          "session_bits",
          [](const PyOrchestrator& o, py::handle worker_id) {
            return o.box->orch->session_bits(worker_id_arg(o, worker_id, "session_bits", "worker_id"));
          },
          py::arg("worker_id"))
      .def_property_readonly(
          "live_regions", [](const PyOrchestrator& o) { return o.box->orch->ledger().live(); },
          "RegionInstances whose memory is still mapped.");
}

}  // namespace

void bind_runtime(py::module_& m) {
  bind_task_args(m);
  bind_l2_functions(m);
  bind_worker(m);
  bind_orchestrator(m);
}

}  // namespace spsq_python
