// Seed inputs for every harness, generated from queue traffic rather than
// random bytes: real bindings and layouts, counter sequences a producer
// really publishes, and the op streams an honest peer performs. The seeds
// checked in under corpora/<harness>/seeds are exactly what this produces
// (//fuzz:seeds_current_test keeps them in step).
#ifndef SPSQ_FUZZ_SEEDGEN_H_
#define SPSQ_FUZZ_SEEDGEN_H_

#include <cstdint>
#include <string>
#include <vector>

namespace spsq_fuzz {

struct Seed {
  std::string name;  // file name under corpora/<harness>/seeds
  std::vector<uint8_t> bytes;
};

// Harnesses that have a generator, in a stable order.
std::vector<std::string> seeded_harnesses();

// Fills *out with the seeds of `harness`; false for an unknown harness.
bool generate_seeds(const std::string& harness, std::vector<Seed>* out);

}  // namespace spsq_fuzz

#endif  // SPSQ_FUZZ_SEEDGEN_H_
