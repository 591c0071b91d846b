// wire_floor: the wire floor (testkit/wire_floor.h) run alone, timed per direction.
//
//   wire_floor [--messages N] [--repetitions R]
//
// Prints one JSON object: nanoseconds of thread CPU time per message for
// each direction, the fastest of R runs of N messages (CPU time, and the
// fastest run, because this machine is shared: time spent descheduled or
// behind another session's work is not the wire's). The defaults take well
// under a second; the certification's report runs it beside the wrap.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "testkit/wire_floor.h"

namespace {

namespace wf = spsq_conf::wire_floor;

bool ParseCount(const char* flag, const char* text, uint64_t* out) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 0);
  if (text[0] == '\0' || text[0] == '-' || *end != '\0' || v == 0) {
    std::fprintf(stderr, "wire_floor: %s wants a positive number, got '%s'\n", flag, text);
    return false;
  }
  *out = v;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  // Many short runs rather than a few long ones: the fastest is the one
  // least disturbed by the machine's other work.
  uint64_t messages = uint64_t{1} << 21;
  uint64_t repetitions = 11;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (std::strcmp(argv[i], "--messages") == 0 && has_value) {
      if (!ParseCount("--messages", argv[++i], &messages)) return 2;
    } else if (std::strcmp(argv[i], "--repetitions") == 0 && has_value) {
      if (!ParseCount("--repetitions", argv[++i], &repetitions)) return 2;
    } else {
      std::fprintf(stderr, "wire_floor: unknown or incomplete argument '%s'\n"
                   "usage: wire_floor [--messages N] [--repetitions R]\n", argv[i]);
      return 2;
    }
  }
  spsq_conf::wire::Layout layout;
  if (!spsq_conf::wire::compute_layout(wf::kDepth, wf::kArenaBytes, wf::kArenaBytes, &layout)) {
    std::fprintf(stderr, "wire_floor: no layout for depth %llu\n",
                 static_cast<unsigned long long>(wf::kDepth));
    return 1;
  }
  wf::Region region(layout, wf::kStart);
  if (!region.ok()) {
    std::fprintf(stderr, "wire_floor: out of memory\n");
    return 1;
  }
  const wf::Direction directions[] = {wf::InputOf(layout), wf::OutputOf(layout)};
  double best[2] = {0, 0};
  // Alternating directions, so a slow spell of the machine hits both.
  for (uint64_t r = 0; r < repetitions; ++r) {
    for (int d = 0; d < 2; ++d) {
      double ns = 0;
      const std::string error = wf::TimedStream(region, directions[d], messages, &ns);
      if (!error.empty()) {
        std::fprintf(stderr, "wire_floor: %s\n", error.c_str());
        return 1;
      }
      if (r == 0 || ns < best[d]) best[d] = ns;
    }
  }
  std::printf("{\"input_ns_per_message\": %.3f, \"output_ns_per_message\": %.3f, "
              "\"messages\": %llu, \"repetitions\": %llu, "
              "\"clock\": \"thread CPU time, fastest repetition\"}\n",
              best[0], best[1], static_cast<unsigned long long>(messages),
              static_cast<unsigned long long>(repetitions));
  return 0;
}
