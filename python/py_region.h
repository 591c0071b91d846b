// WorkerChipOrchRegion for Python: the handle of one RegionInstance's PAYLOAD
// and COUNTER parts. It is either a queue's projected region (queue.region,
// the spec's compatibility escape hatch) or a primitive region from
// Orchestrator.create_worker_chip_region(). Counter slots are read and set
// through a RegionInstanceView, so every offset is bounds- and
// alignment-checked against the part.
#ifndef SPSQ_PYTHON_PY_REGION_H_
#define SPSQ_PYTHON_PY_REGION_H_

#include <pybind11/pybind11.h>

#include <memory>
#include <mutex>
#include <utility>

#include "region/worker_chip_region.h"

namespace spsq_python {

class PyRegion {
 public:
  // `owner` keeps `region` and `mu` alive; `mu` serializes access with the
  // owner's other calls (a queue's region shares the queue's lock).
  // `counters`, when not None, is the Python region object a queue was bound
  // over: the instance's spans are not mapped here, so counter slots are
  // read and set through it.
  PyRegion(std::shared_ptr<void> owner, std::mutex* mu, spsq_runtime::WorkerChipOrchRegion* region,
           pybind11::object counters = pybind11::none())
      : owner_(std::move(owner)), mu_(mu), region_(region), counters_(std::move(counters)) {}

  const pybind11::object& counters() const { return counters_; }

  // Runs f(region) with the lock held and the GIL released.
  template <class F>
  auto locked(F&& f) const {
    pybind11::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(*mu_);
    return f(*region_);
  }

 private:
  std::shared_ptr<void> owner_;
  std::mutex* mu_;
  spsq_runtime::WorkerChipOrchRegion* region_;
  pybind11::object counters_;
};

// A primitive region owned by Python.
struct RegionBox {
  std::mutex mu;
  std::unique_ptr<spsq_runtime::WorkerChipOrchRegion> region;
};

void bind_region(pybind11::module_& m);

}  // namespace spsq_python

#endif  // SPSQ_PYTHON_PY_REGION_H_
