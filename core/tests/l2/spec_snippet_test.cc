// The L2 code of spec section 1, compiled exactly as written (the two
// includes first, so they must be enough on their own) and run against host
// memory, in both the default and the <RegionInstanceView, 4> form.
#include "aicpu/region_instance_view.h"
#include "common/region_template.h"

#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "testing/host_region.h"
#include "testing/scripted_l3_peer.h"
#include "testing/virtual_clock.h"

namespace spsq_testing {
namespace {

// What L2 orchestration code is handed: TaskArgs scalars by int32 index.
class OrchArgs {
 public:
  explicit OrchArgs(std::vector<uint64_t> scalars) : scalars_(std::move(scalars)) {}
  uint64_t scalar(int32_t i) const {
    return i >= 0 && static_cast<size_t>(i) < scalars_.size() ? scalars_[static_cast<size_t>(i)] : 0;
  }

 private:
  std::vector<uint64_t> scalars_;
};

// Spec section 1, verbatim between the markers; `serve` stands for the rest
// of the L2 task.
template <class Serve>
void l2_task_default(const OrchArgs& orch_args, spsc_queue::MonotonicClock clock, Serve&& serve) {
  // --- spec snippet ---
uint64_t scalars[spsc_queue::kSpscQueueEndpointBindingScalarCount];
for (size_t i = 0; i < spsc_queue::kSpscQueueEndpointBindingScalarCount; ++i) {
    scalars[i] = orch_args.scalar(static_cast<int32_t>(i));
}

spsc_queue::SpscQueueEndpointBinding binding{};
if (!spsc_queue::decode_endpoint_binding(
        scalars, spsc_queue::kSpscQueueEndpointBindingScalarCount, &binding)) {
    return;
}

RegionInstanceView view(
    RegionPartLocalSpan{binding.payload_base, binding.payload_bytes},
    RegionPartLocalSpan{binding.counter_base, binding.counter_bytes}
);
spsc_queue::SpscQueueEndpoint<RegionInstanceView> queue(binding, std::move(view), clock);
if (!queue.live()) {
    return;
}
  // --- end of snippet ---
  serve(queue);
}

template <class Serve>
void l2_task_window4(const OrchArgs& orch_args, spsc_queue::MonotonicClock clock, Serve&& serve) {
  // --- spec snippet, with the MaxInflight form ---
uint64_t scalars[spsc_queue::kSpscQueueEndpointBindingScalarCount];
for (size_t i = 0; i < spsc_queue::kSpscQueueEndpointBindingScalarCount; ++i) {
    scalars[i] = orch_args.scalar(static_cast<int32_t>(i));
}

spsc_queue::SpscQueueEndpointBinding binding{};
if (!spsc_queue::decode_endpoint_binding(
        scalars, spsc_queue::kSpscQueueEndpointBindingScalarCount, &binding)) {
    return;
}

RegionInstanceView view(
    RegionPartLocalSpan{binding.payload_base, binding.payload_bytes},
    RegionPartLocalSpan{binding.counter_base, binding.counter_bytes}
);
spsc_queue::SpscQueueEndpoint<RegionInstanceView, 4> queue(binding, std::move(view), clock);
if (!queue.live()) {
    return;
}
  // --- end of snippet ---
  serve(queue);
}

// The ten scalars in spec order, as chip_task_arg_scalars() returns them.
std::vector<uint64_t> chip_task_arg_scalars(const HostRegion& r) {
  const spsc_queue::SpscQueueEndpointBinding b = r.binding();
  return {b.magic_version, b.session_instance_id_bits, b.transaction_id, b.payload_base,
          b.payload_bytes, b.counter_base,             b.counter_bytes,  b.depth,
          b.input_arena_bytes, b.output_arena_bytes};
}

// Answers each DATA input with its bytes reversed, until STOP is drained.
template <class Queue>
int echo_until_drained(Queue& queue, bool* drained) {
  int answered = 0;
  spsc_queue::SpscQueueInputHandle h{};
  while (queue.input().try_peek(h)) {
    if (h.opcode == spsc_queue::SpscQueueOpcode::DATA) {
      spsc_queue::SpscQueueOutputReservation r{};
      if (!queue.output().try_reserve(h.payload_nbytes, r)) break;
      for (uint64_t i = 0; i < h.payload_nbytes; ++i) spsc_queue::payload_data(r)[i] = spsc_queue::payload_data(h)[h.payload_nbytes - 1 - i];
      if (!queue.output().publish(r, spsc_queue::SpscQueueOpcode::DATA)) break;
      ++answered;
    }
    if (!queue.input().release(h)) break;
  }
  *drained = queue.input().drained();
  EXPECT_TRUE(queue.live()) << queue.error().message;
  return answered;
}

class SpecSnippetTest : public ::testing::Test {
 protected:
  void SetUp() override { VirtualClock::reset(); }
  HostRegion region_{4, 256, 256};
  ScriptedL3Peer peer_{&region_};
};

TEST_F(SpecSnippetTest, DefaultEndpointServesOverHostMemory) {
  peer_.stage(spsc_queue::SpscQueueOpcode::DATA, {1, 2, 3});
  peer_.stage(spsc_queue::SpscQueueOpcode::DATA, {4, 5});
  peer_.stage(spsc_queue::SpscQueueOpcode::STOP);
  peer_.publish();
  int answered = -1;
  bool drained = false;
  l2_task_default(OrchArgs(chip_task_arg_scalars(region_)), VirtualClock::clock(),
                  [&](auto& queue) { answered = echo_until_drained(queue, &drained); });
  EXPECT_EQ(answered, 2);
  EXPECT_TRUE(drained);
  EXPECT_EQ(peer_.input_head(), 3);
  EXPECT_EQ(peer_.output_tail(), 2);
  EXPECT_EQ(peer_.output_payload(0), (std::vector<uint8_t>{3, 2, 1}));
  EXPECT_EQ(peer_.output_payload(1), (std::vector<uint8_t>{5, 4}));
  EXPECT_EQ(peer_.output_slot(1), (RawDescriptor{2, 1, 512 + 3, 2}));
}

TEST_F(SpecSnippetTest, WindowOfFourHoldsThreeInputsAndStop) {
  for (uint8_t i = 0; i < 3; ++i) peer_.stage(spsc_queue::SpscQueueOpcode::DATA, {i, 9});
  peer_.stage(spsc_queue::SpscQueueOpcode::STOP);
  peer_.publish();
  bool served = false;
  l2_task_window4(OrchArgs(chip_task_arg_scalars(region_)), VirtualClock::clock(),
                  [&](auto& queue) {
    served = true;
    spsc_queue::SpscQueueInputHandle h[4] = {};
    for (auto& x : h) ASSERT_TRUE(queue.input().try_peek(x)) << queue.error().message;
    EXPECT_EQ(static_cast<uint64_t>(h[3].opcode), static_cast<uint64_t>(spsc_queue::SpscQueueOpcode::STOP));
    for (int i = 3; i >= 0; --i) ASSERT_TRUE(queue.input().release(h[i]));
    EXPECT_TRUE(queue.input().drained());
  });
  EXPECT_TRUE(served);
  EXPECT_EQ(peer_.input_head(), 4);
}

TEST_F(SpecSnippetTest, BadScalarsReturnBeforeBuildingAQueue) {
  std::vector<uint64_t> s = chip_task_arg_scalars(region_);
  s[2] = 0;  // transaction id
  bool served = false;
  l2_task_default(OrchArgs(s), VirtualClock::clock(), [&](auto&) { served = true; });
  EXPECT_FALSE(served);
  s = chip_task_arg_scalars(region_);
  s.resize(9);  // the tenth scalar reads as 0: an impossible layout
  l2_task_default(OrchArgs(s), VirtualClock::clock(), [&](auto&) { served = true; });
  EXPECT_FALSE(served);
  EXPECT_EQ(peer_.peer_abort_flag(), 0);
}

TEST_F(SpecSnippetTest, WindowLargerThanDepthIsRefusedWithoutTheFlag) {
  HostRegion small(2, 64, 64);
  bool served = false;
  l2_task_window4(OrchArgs(chip_task_arg_scalars(small)), VirtualClock::clock(),
                  [&](auto&) { served = true; });
  EXPECT_FALSE(served);
  EXPECT_EQ(small.counter(kPeerAbortFlag), 0);
}

}  // namespace
}  // namespace spsq_testing
