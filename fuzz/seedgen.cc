#include "fuzz/seedgen.h"

namespace spsq_fuzz {

void wire_seeds(const std::string& harness, std::vector<Seed>* out);
void l2_stream_seeds(std::vector<Seed>* out);
void l2_stream_extended_seeds(std::vector<Seed>* out);
void l3_stream_seeds(std::vector<Seed>* out);

std::vector<std::string> seeded_harnesses() {
  return {"binding_decode", "layout", "counter_stream", "l2_stream", "l3_stream", "differential"};
}

bool generate_seeds(const std::string& harness, std::vector<Seed>* out) {
  out->clear();
  for (const std::string& h : seeded_harnesses()) {
    if (h != harness) continue;
    if (harness == "l2_stream") {
      l2_stream_seeds(out);
      l2_stream_extended_seeds(out);
    } else if (harness == "l3_stream") {
      l3_stream_seeds(out);
    } else if (harness == "differential") {
      // The l2_stream sessions, in both modes: same window, and 1 against 4.
      std::vector<Seed> l2;
      l2_stream_seeds(&l2);
      for (uint8_t mode = 0; mode < 2; ++mode) {
        for (const Seed& s : l2) {
          Seed d{(mode ? "window_" : "same_") + s.name, {mode}};
          d.bytes.insert(d.bytes.end(), s.bytes.begin(), s.bytes.end());
          out->push_back(d);
        }
      }
    } else {
      wire_seeds(harness, out);
    }
    return true;
  }
  return false;
}

}  // namespace spsq_fuzz
