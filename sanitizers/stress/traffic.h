// The traffic of a stress run, a function of the message index alone so both
// parties know what to expect: sizes 0, 1, 63, 64, 65 and up to the arena;
// one or two outputs per input; every fifth output an ERROR.
#ifndef SPSQ_SANITIZERS_STRESS_TRAFFIC_H_
#define SPSQ_SANITIZERS_STRESS_TRAFFIC_H_

#include <cstdint>

namespace spsq_stress {

// The payload pattern streams (payload_check.h) of the two directions.
inline constexpr uint64_t kInputStream = 1, kOutputStream = 2;

// Sizes 0, 1, 63, 64, 65 and up to the arena; large ones only now and then
// so a 1 MiB arena does not turn the run into a memcpy benchmark.
inline uint64_t message_size(uint64_t index, uint64_t arena) {
  static const uint64_t kSmall[] = {0, 1, 63, 64, 65, 8, 0, 100, 64, 17};
  if (index % 251 == 250) return arena;                // exactly the arena
  if (index % 61 == 60) return arena / 2 + 8 <= arena ? arena / 2 + 8 : arena;
  const uint64_t s = kSmall[index % 10];
  return s <= arena ? s : arena;
}

inline uint64_t outputs_for(uint64_t input_index) { return input_index % 4 == 3 ? 2 : 1; }
inline bool output_is_error(uint64_t output_index) { return output_index % 5 == 4; }

inline uint64_t total_outputs(uint64_t inputs) {
  uint64_t n = 0;
  for (uint64_t i = 0; i < inputs; ++i) n += outputs_for(i);
  return n;
}

}  // namespace spsq_stress

#endif  // SPSQ_SANITIZERS_STRESS_TRAFFIC_H_
