// One stress configuration and its readable test-name suffix.
#ifndef SPSQ_SANITIZERS_STRESS_STRESS_CASE_H_
#define SPSQ_SANITIZERS_STRESS_STRESS_CASE_H_

#include <cstdint>
#include <string>

#include "gtest/gtest.h"

namespace spsq_stress {

struct Case {
  uint64_t depth, input_arena, output_arena, window, messages;
};

inline std::string PrintCase(const testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  return "depth" + std::to_string(c.depth) + "_in" + std::to_string(c.input_arena) + "_out" +
         std::to_string(c.output_arena) + "_w" + std::to_string(c.window);
}

inline constexpr uint64_t kMiB = 1 << 20;

}  // namespace spsq_stress

#endif  // SPSQ_SANITIZERS_STRESS_STRESS_CASE_H_
