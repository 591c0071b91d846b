// Writes sample region dumps for the inspect test: a consistent queue and a
// corrupted one, built with the conformance harness's scripted peers.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "testkit/region_memory.h"
#include "testkit/scripted_l2.h"
#include "testkit/scripted_l3.h"
#include "model/wire_model.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: make_dump GOOD BAD\n");
    return 2;
  }
  using namespace spsq_conf;
  wire::Layout l;
  wire::compute_layout(4, 128, 128, &l);
  for (int bad = 0; bad < 2; ++bad) {
    RegionMemory m(l.payload_bytes, wire::kCounterBytes);
    ScriptedL3 l3(&m, l);
    ScriptedL2 l2(&m, l);
    l3.enqueue_data(std::vector<uint8_t>(10, 1));
    l3.enqueue_stop();
    Message msg;
    l2.poll_input(&msg);
    l2.release_inputs(1);
    l2.publish_data(std::vector<uint8_t>(20, 2));
    if (bad) {
      l2.publish_raw(wire::Descriptor{7, wire::kStop, 5, 3});  // wrong seq, STOP, payload
      m.store_counter(wire::kPeerFlag, 1);
    }
    std::ofstream(argv[1 + bad], std::ios::binary) << m.dump();
  }
  return 0;
}
