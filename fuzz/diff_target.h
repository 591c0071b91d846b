// The L2 endpoint as the differential harness (harness 6) drives it: plain
// types only, so any endpoint written against the RegionView contract can sit
// behind it, including one from a third party. A target library defines one
// factory; Bazel picks the second target with the label flag
// //fuzz:second_endpoint (see fuzz/README.md), and a certification builds the
// endpoint under test as the second in a shared object of its own
// (fuzz/diff_cert.cc, fuzz/differential.bzl). Names nothing of any endpoint.
#ifndef SPSQ_FUZZ_DIFF_TARGET_H_
#define SPSQ_FUZZ_DIFF_TARGET_H_

#include <cstdint>
#include <memory>

#include "fuzz/fuzz_memory.h"
#include "fuzz/fuzz_view.h"

namespace spsq_fuzz {

// A received message; `id` names the implementation's own handle inside the target.
struct DiffHandle {
  uint64_t seq = 0, opcode = 0, offset = 0, nbytes = 0;
  const uint8_t* payload = nullptr;
  uint64_t id = 0;
};

struct DiffReservation {
  uint64_t offset = 0, nbytes = 0;
  uint8_t* payload = nullptr;
  uint64_t id = 0;
};

// One side of the comparison: its shared memory, its view state and the ten
// binding scalars L3 handed over. The target builds its view as
// FuzzView(region, view_state) and its clock from the harness's time line,
// `*now` (FuzzTime::now() of the harness: a target in a shared object has a
// FuzzTime of its own, and carries the time in and out of every call).
struct DiffWorld {
  FuzzMemory* region;
  FuzzViewState* view_state;
  uint64_t scalars[10];
  uint64_t* now;
};

class DiffTarget {
 public:
  virtual ~DiffTarget() = default;
  virtual const char* name() const = 0;
  virtual bool live() const = 0;
  virtual uint32_t error_kind() const = 0;  // SpscQueueErrorKind value
  virtual uint32_t error_op() const = 0;    // SpscQueueOp value
  virtual const char* error_message() const = 0;

  virtual bool try_peek(DiffHandle* h) = 0;
  virtual bool peek(uint64_t timeout_ns, DiffHandle* h) = 0;
  // Releases handle `id`; seq_delta != 0 releases a copy with seq moved (misuse).
  virtual bool release(uint64_t id, int64_t seq_delta) = 0;
  virtual bool drained() = 0;

  virtual bool try_reserve(uint64_t nbytes, DiffReservation* r) = 0;
  virtual bool reserve(uint64_t nbytes, uint64_t timeout_ns, DiffReservation* r) = 0;
  // Publishes reservation `id` (the active one, or an old one: misuse).
  virtual bool publish(uint64_t id, uint64_t opcode) = 0;
};

// The reference endpoint, as built with the harness.
std::unique_ptr<DiffTarget> make_first_target(const DiffWorld& world, uint64_t max_inflight);
// Whatever //fuzz:second_endpoint links in.
std::unique_ptr<DiffTarget> make_second_target(const DiffWorld& world, uint64_t max_inflight);

}  // namespace spsq_fuzz

#endif  // SPSQ_FUZZ_DIFF_TARGET_H_
