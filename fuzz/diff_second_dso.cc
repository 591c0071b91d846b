// make_second_target over a shared object built by spsq_differential_harness
// (fuzz/differential.bzl): the endpoint under test, compiled with its own
// headers in fuzz/diff_cert.cc, reached through the object's one exported name.
#include <cstdint>
#include <memory>

#include "fuzz/diff_target.h"

extern "C" spsq_fuzz::DiffTarget* spsq_diff_make_second_target(const spsq_fuzz::DiffWorld* w,
                                                                uint64_t max_inflight);

namespace spsq_fuzz {

std::unique_ptr<DiffTarget> make_second_target(const DiffWorld& world, uint64_t max_inflight) {
  return std::unique_ptr<DiffTarget>(spsq_diff_make_second_target(&world, max_inflight));
}

}  // namespace spsq_fuzz
