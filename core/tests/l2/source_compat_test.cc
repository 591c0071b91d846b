// An L2 translation unit written only from wire-contract.md, "Source
// compatibility: the shipped runtime's public L2 names and types": the two
// contract headers and nothing else of the project. It pins every listed
// name and type at compile time, then plays one round trip over host memory
// as L2 code written for the runtime would (the L3 side is played directly on
// the wire), reading every handle, reservation, layout and error field by
// its name.
#include "aicpu/region_instance_view.h"
#include "common/region_template.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace {

using namespace spsc_queue;  // NOLINT: L2 code spells these names as the runtime does

template <class T, class U>
constexpr bool kSame = std::is_same_v<T, U>;
template <class E, class U>
constexpr bool kScopedEnumOf = std::is_enum_v<E> && !std::is_convertible_v<E, U> &&
                               kSame<std::underlying_type_t<E>, U>;

// ------------------------------------------------------------------ constants

static_assert(kSame<std::remove_cv_t<decltype(kSpscQueueMagic)>, uint32_t>);
static_assert(kSpscQueueMagic == 0x53505351u);
static_assert(kSame<std::remove_cv_t<decltype(kSpscQueueAbiMajor)>, uint16_t>);
static_assert(kSame<std::remove_cv_t<decltype(kSpscQueueAbiMinor)>, uint16_t>);
static_assert(kSpscQueueAbiMajor == 1 && kSpscQueueAbiMinor == 0);
static_assert(kSame<std::remove_cv_t<decltype(kSpscQueueMagicVersion)>, uint64_t>);
static_assert(kSpscQueueMagicVersion == 0x5350535100010000ull);
static_assert(kSpscQueueMagicVersion == ((uint64_t{kSpscQueueMagic} << 32) |
                                         (uint64_t{kSpscQueueAbiMajor} << 16) |
                                         uint64_t{kSpscQueueAbiMinor}));
static_assert(kSame<std::remove_cv_t<decltype(kSpscQueueEndpointBindingScalarCount)>, size_t>);
static_assert(kSpscQueueEndpointBindingScalarCount == 10);
static_assert(kSame<std::remove_cv_t<decltype(kDescriptorBytes)>, uint64_t>);
static_assert(kDescriptorBytes == 32);
static_assert(kSame<std::remove_cv_t<decltype(kArenaAlignment)>, uint64_t>);
static_assert(kArenaAlignment == 64);
static_assert(kSame<std::remove_cv_t<decltype(kDescriptorRingAlignment)>, uint64_t>);
static_assert(kDescriptorRingAlignment == 8);
static_assert(kSame<std::remove_cv_t<decltype(kCounterStride)>, uint64_t>);
static_assert(kCounterStride == 64);
static_assert(kSame<std::remove_cv_t<decltype(kCounterBytes)>, uint64_t>);
static_assert(kCounterBytes == 384);
static_assert(kSame<std::remove_cv_t<decltype(kMaxDepth)>, uint64_t>);
static_assert(kMaxDepth == uint64_t{1} << 30);
static_assert(kSame<std::remove_cv_t<decltype(kInputDescTailOffset)>, uint64_t>);
static_assert(kSame<std::remove_cv_t<decltype(kInputDescHeadOffset)>, uint64_t>);
static_assert(kSame<std::remove_cv_t<decltype(kOutputDescTailOffset)>, uint64_t>);
static_assert(kSame<std::remove_cv_t<decltype(kOutputDescHeadOffset)>, uint64_t>);
static_assert(kSame<std::remove_cv_t<decltype(kInitiatorAbortOffset)>, uint64_t>);
static_assert(kSame<std::remove_cv_t<decltype(kPeerAbortOffset)>, uint64_t>);
static_assert(kInputDescTailOffset == 0 && kInputDescHeadOffset == 64 &&
              kOutputDescTailOffset == 128 && kOutputDescHeadOffset == 192 &&
              kInitiatorAbortOffset == 256 && kPeerAbortOffset == 320);

// ------------------------------------------------------------------ enumerations

static_assert(kScopedEnumOf<SpscQueueOpcode, uint64_t>);
static_assert(static_cast<uint64_t>(SpscQueueOpcode::INVALID) == 0);
static_assert(static_cast<uint64_t>(SpscQueueOpcode::DATA) == 1);
static_assert(static_cast<uint64_t>(SpscQueueOpcode::STOP) == 2);
static_assert(static_cast<uint64_t>(SpscQueueOpcode::ERROR) == 3);
static_assert(kScopedEnumOf<SpscQueueErrorKind, uint32_t>);
static_assert(static_cast<uint32_t>(SpscQueueErrorKind::NONE) == 0);
static_assert(static_cast<uint32_t>(SpscQueueErrorKind::BAD_ARGUMENT) == 1);
static_assert(static_cast<uint32_t>(SpscQueueErrorKind::BAD_BINDING) == 2);
static_assert(static_cast<uint32_t>(SpscQueueErrorKind::INVALID_DESCRIPTOR) == 3);
static_assert(static_cast<uint32_t>(SpscQueueErrorKind::OWNERSHIP) == 4);
static_assert(static_cast<uint32_t>(SpscQueueErrorKind::REMOTE_ABORTED) == 5);
static_assert(static_cast<uint32_t>(SpscQueueErrorKind::ENDPOINT_ERROR) == 6);
static_assert(kScopedEnumOf<SpscQueueOp, uint32_t>);
static_assert(static_cast<uint32_t>(SpscQueueOp::INIT) == 1);
static_assert(static_cast<uint32_t>(SpscQueueOp::TIMEOUT) == 2);
static_assert(static_cast<uint32_t>(SpscQueueOp::INPUT_TRY_PEEK) == 3);
static_assert(static_cast<uint32_t>(SpscQueueOp::INPUT_RELEASE) == 4);
static_assert(static_cast<uint32_t>(SpscQueueOp::OUTPUT_TRY_RESERVE) == 5);
static_assert(static_cast<uint32_t>(SpscQueueOp::OUTPUT_PUBLISH) == 6);

// ------------------------------------------------------------------ structs

static_assert(kSame<decltype(SpscQueueDescriptor::seq), uint64_t>);
static_assert(kSame<decltype(SpscQueueDescriptor::opcode), uint64_t>);
static_assert(kSame<decltype(SpscQueueDescriptor::payload_offset), uint64_t>);
static_assert(kSame<decltype(SpscQueueDescriptor::payload_nbytes), uint64_t>);

static_assert(kSame<decltype(SpscQueueLayout::depth), uint64_t>);
static_assert(kSame<decltype(SpscQueueLayout::input_arena_bytes), uint64_t>);
static_assert(kSame<decltype(SpscQueueLayout::output_arena_bytes), uint64_t>);
static_assert(kSame<decltype(SpscQueueLayout::input_desc_offset), uint64_t>);
static_assert(kSame<decltype(SpscQueueLayout::output_desc_offset), uint64_t>);
static_assert(kSame<decltype(SpscQueueLayout::input_arena_offset), uint64_t>);
static_assert(kSame<decltype(SpscQueueLayout::output_arena_offset), uint64_t>);
static_assert(kSame<decltype(SpscQueueLayout::payload_bytes), uint64_t>);
static_assert(kSame<decltype(SpscQueueLayout::input_desc_tail_offset), uint64_t>);
static_assert(kSame<decltype(SpscQueueLayout::input_desc_head_offset), uint64_t>);
static_assert(kSame<decltype(SpscQueueLayout::output_desc_tail_offset), uint64_t>);
static_assert(kSame<decltype(SpscQueueLayout::output_desc_head_offset), uint64_t>);
static_assert(kSame<decltype(SpscQueueLayout::initiator_abort_offset), uint64_t>);
static_assert(kSame<decltype(SpscQueueLayout::peer_abort_offset), uint64_t>);
static_assert(kSame<decltype(SpscQueueLayout::counter_bytes), uint64_t>);
// static bool create(depth, input_arena_bytes, output_arena_bytes, SpscQueueLayout* out)
// (Each such initialization compiles only for exactly these parameter types.)
[[maybe_unused]] constexpr bool (*kLayoutCreate)(uint64_t, uint64_t, uint64_t,
                                                 SpscQueueLayout*) = &SpscQueueLayout::create;

// The ten binding fields, in binding order.
static_assert(kSame<decltype(SpscQueueEndpointBinding::magic_version), uint64_t>);
static_assert(kSame<decltype(SpscQueueEndpointBinding::session_instance_id_bits), uint64_t>);
static_assert(kSame<decltype(SpscQueueEndpointBinding::transaction_id), uint64_t>);
static_assert(kSame<decltype(SpscQueueEndpointBinding::payload_base), uint64_t>);
static_assert(kSame<decltype(SpscQueueEndpointBinding::payload_bytes), uint64_t>);
static_assert(kSame<decltype(SpscQueueEndpointBinding::counter_base), uint64_t>);
static_assert(kSame<decltype(SpscQueueEndpointBinding::counter_bytes), uint64_t>);
static_assert(kSame<decltype(SpscQueueEndpointBinding::depth), uint64_t>);
static_assert(kSame<decltype(SpscQueueEndpointBinding::input_arena_bytes), uint64_t>);
static_assert(kSame<decltype(SpscQueueEndpointBinding::output_arena_bytes), uint64_t>);
static_assert(std::is_standard_layout_v<SpscQueueEndpointBinding>);
static_assert(offsetof(SpscQueueEndpointBinding, magic_version) <
                  offsetof(SpscQueueEndpointBinding, session_instance_id_bits) &&
              offsetof(SpscQueueEndpointBinding, session_instance_id_bits) <
                  offsetof(SpscQueueEndpointBinding, transaction_id) &&
              offsetof(SpscQueueEndpointBinding, transaction_id) <
                  offsetof(SpscQueueEndpointBinding, payload_base) &&
              offsetof(SpscQueueEndpointBinding, payload_base) <
                  offsetof(SpscQueueEndpointBinding, payload_bytes) &&
              offsetof(SpscQueueEndpointBinding, payload_bytes) <
                  offsetof(SpscQueueEndpointBinding, counter_base) &&
              offsetof(SpscQueueEndpointBinding, counter_base) <
                  offsetof(SpscQueueEndpointBinding, counter_bytes) &&
              offsetof(SpscQueueEndpointBinding, counter_bytes) <
                  offsetof(SpscQueueEndpointBinding, depth) &&
              offsetof(SpscQueueEndpointBinding, depth) <
                  offsetof(SpscQueueEndpointBinding, input_arena_bytes) &&
              offsetof(SpscQueueEndpointBinding, input_arena_bytes) <
                  offsetof(SpscQueueEndpointBinding, output_arena_bytes),
              "SpscQueueEndpointBinding: the ten fields in binding order");

// The payload view's address is an integer, not a pointer.
static_assert(kSame<decltype(SpscQueuePayloadView::local_addr), uint64_t>);
static_assert(!std::is_pointer_v<decltype(SpscQueuePayloadView::local_addr)>);
static_assert(kSame<decltype(SpscQueuePayloadView::nbytes), uint64_t>);

static_assert(kSame<decltype(SpscQueueInputHandle::seq), uint64_t>);
static_assert(kSame<decltype(SpscQueueInputHandle::opcode), SpscQueueOpcode>);
static_assert(kSame<decltype(SpscQueueInputHandle::payload_offset), uint64_t>);
static_assert(kSame<decltype(SpscQueueInputHandle::payload_nbytes), uint64_t>);
static_assert(kSame<decltype(SpscQueueInputHandle::payload), SpscQueuePayloadView>);
static_assert(kSame<decltype(SpscQueueInputHandle::owner_cookie), uint64_t>);

static_assert(kSame<decltype(SpscQueueOutputReservation::seq), uint64_t>);
static_assert(kSame<decltype(SpscQueueOutputReservation::payload_offset), uint64_t>);
static_assert(kSame<decltype(SpscQueueOutputReservation::payload_nbytes), uint64_t>);
static_assert(kSame<decltype(SpscQueueOutputReservation::payload), SpscQueuePayloadView>);
static_assert(kSame<decltype(SpscQueueOutputReservation::owner_cookie), uint64_t>);
static_assert(kSame<decltype(SpscQueueOutputReservation::valid), bool>);

static_assert(kSame<decltype(SpscQueueError::kind), SpscQueueErrorKind>);
static_assert(kSame<decltype(SpscQueueError::op), SpscQueueOp>);
static_assert(kSame<decltype(SpscQueueError::session_instance_id_bits), uint64_t>);
static_assert(kSame<decltype(SpscQueueError::transaction_id), uint64_t>);
static_assert(kSame<decltype(SpscQueueError::message), char[256]>);
static_assert(kSame<decltype(MonotonicClock::now_ns), uint64_t (*)()>);

// ------------------------------------------------------------------ free functions

using EncodeBindingResult = decltype(encode_endpoint_binding(
    std::declval<const SpscQueueEndpointBinding&>(), std::declval<uint64_t*>(), size_t{}));
using DecodeBindingResult = decltype(decode_endpoint_binding(
    std::declval<const uint64_t*>(), size_t{}, std::declval<SpscQueueEndpointBinding*>()));
static_assert(std::is_convertible_v<EncodeBindingResult, bool>);
static_assert(std::is_convertible_v<DecodeBindingResult, bool>);
// Exactly these parameter types (the conversion fails for any other).
[[maybe_unused]] constexpr EncodeBindingResult (*kEncodeBinding)(const SpscQueueEndpointBinding&, uint64_t*,
                                                size_t) = &encode_endpoint_binding;
[[maybe_unused]] constexpr DecodeBindingResult (*kDecodeBinding)(const uint64_t*, size_t,
                                                SpscQueueEndpointBinding*) =
    &decode_endpoint_binding;

// encode_descriptor / decode_descriptor, counter_low32, reconstruct_counter:
// the contract names them (the descriptor form is 32 bytes, little-endian)
// without their signatures. The shapes L2 code would try first:
// encode_descriptor(descriptor, bytes); decode_descriptor(bytes) returning
// the descriptor or decode_descriptor(bytes, &descriptor).
template <class D, class = void>
struct EncodesIntoBytes : std::false_type {};
template <class D>
struct EncodesIntoBytes<D, std::void_t<decltype(encode_descriptor(std::declval<const D&>(),
                                                                  std::declval<uint8_t*>()))>>
    : std::true_type {};
template <class D, class = void>
struct DecodesIntoOut : std::false_type {};
template <class D>
struct DecodesIntoOut<D, std::void_t<decltype(decode_descriptor(std::declval<const uint8_t*>(),
                                                                std::declval<D*>()))>>
    : std::true_type {};
template <class D, class T>
using DependentOn = std::conditional_t<true, T, D>;
template <class D, class = void>
struct DecodesToValue : std::false_type {};
template <class D>
struct DecodesToValue<
    D, std::enable_if_t<kSame<std::decay_t<decltype(decode_descriptor(
                                  std::declval<DependentOn<D, const uint8_t*>>()))>,
                              D>>> : std::true_type {};
static_assert(EncodesIntoBytes<SpscQueueDescriptor>::value,
              "encode_descriptor(const SpscQueueDescriptor&, uint8_t*) (the contract gives "
              "only the name and the 32-byte LE form)");
static_assert(DecodesIntoOut<SpscQueueDescriptor>::value ||
                  DecodesToValue<SpscQueueDescriptor>::value,
              "decode_descriptor(const uint8_t*[, SpscQueueDescriptor*]) (the contract gives "
              "only the name and the 32-byte LE form)");

template <class D>
void encode_desc(const D& d, uint8_t* out) {
  encode_descriptor(d, out);
}
template <class D>
D decode_desc(const uint8_t* in) {
  D d{};
  if constexpr (DecodesIntoOut<D>::value) {
    decode_descriptor(in, &d);
  } else {
    d = decode_descriptor(static_cast<DependentOn<D, const uint8_t*>>(in));
  }
  return d;
}

// counter_low32 takes the 64-bit count and gives int32(uint32(v)).
using Low32Result = decltype(counter_low32(uint64_t{}));
static_assert(std::is_integral_v<Low32Result>);
// reconstruct_counter: declared (its signature is not in the contract).
static_assert(!std::is_void_v<decltype(&reconstruct_counter)>);

// ------------------------------------------------------------------ the endpoint

using Endpoint = SpscQueueEndpoint<RegionInstanceView, 2>;
using Input = std::remove_reference_t<decltype(std::declval<Endpoint&>().input())>;
using Output = std::remove_reference_t<decltype(std::declval<Endpoint&>().output())>;
static_assert(std::is_class_v<Input> && std::is_class_v<Output>);
[[maybe_unused]] constexpr bool (Input::*kPeek)(uint64_t, SpscQueueInputHandle&) = &Input::peek;
[[maybe_unused]] constexpr bool (Input::*kTryPeek)(SpscQueueInputHandle&) = &Input::try_peek;
[[maybe_unused]] constexpr bool (Input::*kRelease)(const SpscQueueInputHandle&) = &Input::release;
[[maybe_unused]] constexpr bool (Input::*kDrained)() const = &Input::drained;
[[maybe_unused]] constexpr bool (Output::*kReserve)(uint64_t, uint64_t, SpscQueueOutputReservation&) =
    &Output::reserve;
[[maybe_unused]] constexpr bool (Output::*kTryReserve)(uint64_t, SpscQueueOutputReservation&) =
    &Output::try_reserve;
// publish(const SpscQueueOutputReservation&, SpscQueueOpcode): detected
// rather than asserted, and judged at run time (PublishHasTheContractSignature)
// so that a reference whose publish differs still builds this unit and runs
// the rest of it.
template <class Out, class = void>
struct PublishHasContractSignature : std::false_type {};
template <class Out>
struct PublishHasContractSignature<
    Out, std::void_t<decltype(static_cast<bool (Out::*)(const SpscQueueOutputReservation&,
                                                        SpscQueueOpcode)>(&Out::publish))>>
    : std::true_type {};
static_assert(kSame<std::decay_t<decltype(std::declval<const Endpoint&>().error())>,
                    SpscQueueError>);
static_assert(kSame<std::decay_t<decltype(std::declval<const Endpoint&>().layout())>,
                    SpscQueueLayout>);
static_assert(std::is_constructible_v<Endpoint, const SpscQueueEndpointBinding&,
                                      RegionInstanceView, MonotonicClock>);

// ------------------------------------------------------------------ global names

static_assert(kSame<decltype(RegionPartLocalSpan::base), uint64_t>);
static_assert(kSame<decltype(RegionPartLocalSpan::logical_bytes), uint64_t>);
static_assert(kScopedEnumOf<RegionNotifyOp, uint32_t>);
static_assert(static_cast<uint32_t>(RegionNotifyOp::Set) == 0 &&
              static_cast<uint32_t>(RegionNotifyOp::Add) == 1);
static_assert(kScopedEnumOf<RegionWaitCmp, uint32_t>);
static_assert(static_cast<uint32_t>(RegionWaitCmp::EQ) == 0 &&
              static_cast<uint32_t>(RegionWaitCmp::NE) == 1 &&
              static_cast<uint32_t>(RegionWaitCmp::GT) == 2 &&
              static_cast<uint32_t>(RegionWaitCmp::GE) == 3 &&
              static_cast<uint32_t>(RegionWaitCmp::LT) == 4 &&
              static_cast<uint32_t>(RegionWaitCmp::LE) == 5);
static_assert(kSame<decltype(RegionPayloadView::local_addr), uint64_t>);
static_assert(kSame<decltype(RegionPayloadView::nbytes), uint64_t>);
static_assert(kSame<decltype(RegionSignalTestResult::matched), bool>);
static_assert(kSame<decltype(RegionSignalTestResult::observed), int32_t>);

static_assert(kSame<decltype(RegionViewError::kind), RegionViewErrorKind>);
static_assert(kSame<decltype(RegionViewError::op), RegionViewOp>);
static_assert(kSame<decltype(RegionViewError::observed), int32_t>);
static_assert(kSame<decltype(RegionViewError::message), char[256]>);
static_assert(kSame<std::underlying_type_t<RegionViewErrorKind>, uint32_t>);
static_assert(static_cast<uint32_t>(RegionViewErrorKind::NONE) == 0 &&
              static_cast<uint32_t>(RegionViewErrorKind::INVALID_VIEW) == 1 &&
              static_cast<uint32_t>(RegionViewErrorKind::OUT_OF_BOUNDS) == 2 &&
              static_cast<uint32_t>(RegionViewErrorKind::INVALID_ENUM) == 3 &&
              static_cast<uint32_t>(RegionViewErrorKind::TIMEOUT) == 4 &&
              static_cast<uint32_t>(RegionViewErrorKind::ISSUED_FAILURE) == 5);
static_assert(kSame<std::underlying_type_t<RegionViewOp>, uint32_t>);
static_assert(static_cast<uint32_t>(RegionViewOp::CONSTRUCT) == 1 &&
              static_cast<uint32_t>(RegionViewOp::PAYLOAD_READ) == 2 &&
              static_cast<uint32_t>(RegionViewOp::PAYLOAD_WRITE) == 3 &&
              static_cast<uint32_t>(RegionViewOp::NOTIFY) == 4 &&
              static_cast<uint32_t>(RegionViewOp::TEST) == 5 &&
              static_cast<uint32_t>(RegionViewOp::WAIT) == 6 &&
              static_cast<uint32_t>(RegionViewOp::COUNTER_ADDR) == 7);
static_assert(kSame<std::decay_t<decltype(std::declval<const RegionInstanceView&>().error())>,
                    RegionViewError>);

// read / test are templates over the out type: an endpoint's own structs.
struct OwnSpan {
  uint64_t local_addr;
  uint64_t nbytes;
};
struct OwnSample {
  bool matched;
  int32_t observed;
};
template <class V, class Out, class = void>
struct Reads : std::false_type {};
template <class V, class Out>
struct Reads<V, Out, std::void_t<decltype(std::declval<V&>().payload().read(
                         uint64_t{}, uint64_t{}, std::declval<Out&>()))>> : std::true_type {};
template <class V, class Out, class = void>
struct Tests : std::false_type {};
template <class V, class Out>
struct Tests<V, Out, std::void_t<decltype(std::declval<V&>().counter().test(
                         uint64_t{}, int32_t{}, RegionWaitCmp::EQ, std::declval<Out&>()))>>
    : std::true_type {};
static_assert(Reads<RegionInstanceView, OwnSpan>::value);
static_assert(Reads<RegionInstanceView, RegionPayloadView>::value);
static_assert(Reads<RegionInstanceView, SpscQueuePayloadView>::value);
static_assert(Tests<RegionInstanceView, OwnSample>::value);
static_assert(Tests<RegionInstanceView, RegionSignalTestResult>::value);

// ------------------------------------------------------------------ host memory

constexpr uint64_t kPage = 4096;

// One page-aligned allocation (freed on scope exit), zero-filled.
class PageBuffer {
 public:
  explicit PageBuffer(uint64_t bytes) : bytes_((bytes + kPage - 1) / kPage * kPage) {
    data_ = static_cast<uint8_t*>(std::aligned_alloc(kPage, bytes_));
    if (data_ != nullptr) std::memset(data_, 0, bytes_);
  }
  ~PageBuffer() { std::free(data_); }
  PageBuffer(const PageBuffer&) = delete;
  PageBuffer& operator=(const PageBuffer&) = delete;
  uint8_t* data() const { return data_; }
  uint64_t addr() const { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(data_)); }

 private:
  uint64_t bytes_;
  uint8_t* data_ = nullptr;
};

uint64_t g_now_ns = 0;
uint64_t now_ns() { return g_now_ns += 1000; }

// A plain signal Set as the L3 side makes it: the low 32 bits of the count.
void set_signal(uint8_t* counter, uint64_t offset, uint64_t count) {
  const int32_t raw = static_cast<int32_t>(static_cast<uint32_t>(count));
  __atomic_store_n(reinterpret_cast<int32_t*>(counter + offset), raw, __ATOMIC_RELEASE);
}
int32_t load_signal(const uint8_t* counter, uint64_t offset) {
  return __atomic_load_n(reinterpret_cast<const int32_t*>(counter + offset), __ATOMIC_ACQUIRE);
}

std::vector<uint8_t> pattern(uint64_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (uint64_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + 13 * i);
  return v;
}

// ------------------------------------------------------------------ tests

TEST(SourceCompat, PublishHasTheContractSignature) {
  EXPECT_TRUE(PublishHasContractSignature<Output>::value)
      << "wire-contract.md, Source compatibility: the output direction's member is "
         "`publish(const SpscQueueOutputReservation&, SpscQueueOpcode)`; "
         "&Output::publish does not convert to "
         "bool (Output::*)(const SpscQueueOutputReservation&, SpscQueueOpcode)";
}

TEST(SourceCompat, LayoutCreateGivesTheGoldenVectorsByName) {
  struct Golden {
    uint64_t depth, in, out, output_ring, input_arena, output_arena, payload_bytes;
  };
  const Golden golden[] = {{1, 64, 64, 32, 64, 128, 192},
                           {4, 128, 192, 128, 256, 384, 576},
                           {8, 192, 64, 256, 512, 704, 768},
                           {2, 64, 128, 64, 128, 192, 320}};
  for (const Golden& g : golden) {
    SpscQueueLayout l{};
    ASSERT_TRUE(SpscQueueLayout::create(g.depth, g.in, g.out, &l)) << g.depth;
    EXPECT_EQ(l.depth, g.depth);
    EXPECT_EQ(l.input_arena_bytes, g.in);
    EXPECT_EQ(l.output_arena_bytes, g.out);
    EXPECT_EQ(l.input_desc_offset, 0u);
    EXPECT_EQ(l.output_desc_offset, g.output_ring) << g.depth;
    EXPECT_EQ(l.input_arena_offset, g.input_arena) << g.depth;
    EXPECT_EQ(l.output_arena_offset, g.output_arena) << g.depth;
    EXPECT_EQ(l.payload_bytes, g.payload_bytes) << g.depth;
    EXPECT_EQ(l.input_desc_tail_offset, kInputDescTailOffset);
    EXPECT_EQ(l.input_desc_head_offset, kInputDescHeadOffset);
    EXPECT_EQ(l.output_desc_tail_offset, kOutputDescTailOffset);
    EXPECT_EQ(l.output_desc_head_offset, kOutputDescHeadOffset);
    EXPECT_EQ(l.initiator_abort_offset, kInitiatorAbortOffset);
    EXPECT_EQ(l.peer_abort_offset, kPeerAbortOffset);
    EXPECT_EQ(l.counter_bytes, kCounterBytes);
  }
  SpscQueueLayout l{};
  l.depth = 77;
  EXPECT_FALSE(SpscQueueLayout::create(3, 64, 64, &l));  // not a power of two
  EXPECT_EQ(l.depth, 77u) << "a refused create wrote its output";
}

TEST(SourceCompat, DescriptorCodecIs32BytesLittleEndian) {
  SpscQueueDescriptor d{};
  d.seq = 0x0102030405060708ull;
  d.opcode = static_cast<uint64_t>(SpscQueueOpcode::ERROR);
  d.payload_offset = 0x1122;
  d.payload_nbytes = 0x33;
  uint8_t bytes[40];
  std::memset(bytes, 0xEE, sizeof(bytes));
  encode_desc(d, bytes);
  const uint8_t want[32] = {8, 7, 6, 5, 4, 3, 2, 1, 3,    0, 0, 0, 0, 0, 0, 0,
                            0x22, 0x11, 0, 0, 0, 0, 0, 0, 0x33, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(std::memcmp(bytes, want, 32), 0);
  EXPECT_EQ(bytes[32], 0xEE) << "encode_descriptor wrote past 32 bytes";
  const SpscQueueDescriptor back = decode_desc<SpscQueueDescriptor>(want);
  EXPECT_EQ(back.seq, d.seq);
  EXPECT_EQ(back.opcode, d.opcode);
  EXPECT_EQ(back.payload_offset, d.payload_offset);
  EXPECT_EQ(back.payload_nbytes, d.payload_nbytes);
  EXPECT_EQ(static_cast<int64_t>(counter_low32(uint64_t{0x180000001ull})),
            int64_t{INT32_MIN} + 1);
  EXPECT_EQ(static_cast<int64_t>(counter_low32(uint64_t{0x2000000FFull})), 0xFF);
}

// The L2 side as runtime L2 code writes it, the L3 side played on the wire.
TEST(SourceCompat, RoundTripReadsEveryFieldByItsName) {
  constexpr uint64_t kDepth = 4, kIn = 128, kOut = 192;  // a golden vector
  SpscQueueLayout layout{};
  ASSERT_TRUE(SpscQueueLayout::create(kDepth, kIn, kOut, &layout));
  PageBuffer payload(layout.payload_bytes);
  PageBuffer counter(kCounterBytes);
  ASSERT_NE(payload.data(), nullptr);
  ASSERT_NE(counter.data(), nullptr);

  // The binding L3 hands over, through its ten scalars.
  SpscQueueEndpointBinding handed{};
  handed.magic_version = kSpscQueueMagicVersion;
  handed.session_instance_id_bits = 0x5E55000000000042ull;
  handed.transaction_id = 0x7A11000000000009ull;
  handed.payload_base = payload.addr();
  handed.payload_bytes = layout.payload_bytes;
  handed.counter_base = counter.addr();
  handed.counter_bytes = kCounterBytes;
  handed.depth = kDepth;
  handed.input_arena_bytes = kIn;
  handed.output_arena_bytes = kOut;
  uint64_t scalars[kSpscQueueEndpointBindingScalarCount] = {};
  ASSERT_TRUE(encode_endpoint_binding(handed, scalars, kSpscQueueEndpointBindingScalarCount));
  const uint64_t in_order[10] = {handed.magic_version, handed.session_instance_id_bits,
                                 handed.transaction_id, handed.payload_base,
                                 handed.payload_bytes, handed.counter_base,
                                 handed.counter_bytes, handed.depth,
                                 handed.input_arena_bytes, handed.output_arena_bytes};
  for (size_t i = 0; i < 10; ++i) EXPECT_EQ(scalars[i], in_order[i]) << "scalar " << i;

  SpscQueueEndpointBinding binding{};
  ASSERT_TRUE(decode_endpoint_binding(scalars, kSpscQueueEndpointBindingScalarCount, &binding));
  EXPECT_EQ(std::memcmp(&binding, &handed, sizeof(binding)), 0);

  RegionInstanceView view(RegionPartLocalSpan{binding.payload_base, binding.payload_bytes},
                          RegionPartLocalSpan{binding.counter_base, binding.counter_bytes});
  MonotonicClock clock{};
  clock.now_ns = &now_ns;
  Endpoint queue(binding, std::move(view), clock);
  ASSERT_TRUE(queue.live()) << queue.error().message;

  // Every layout field, against the golden vector (4, 128, 192).
  const SpscQueueLayout& l = queue.layout();
  EXPECT_EQ(l.depth, kDepth);
  EXPECT_EQ(l.input_arena_bytes, kIn);
  EXPECT_EQ(l.output_arena_bytes, kOut);
  EXPECT_EQ(l.input_desc_offset, 0u);
  EXPECT_EQ(l.output_desc_offset, 128u);
  EXPECT_EQ(l.input_arena_offset, 256u);
  EXPECT_EQ(l.output_arena_offset, 384u);
  EXPECT_EQ(l.payload_bytes, 576u);
  EXPECT_EQ(l.input_desc_tail_offset, 0u);
  EXPECT_EQ(l.input_desc_head_offset, 64u);
  EXPECT_EQ(l.output_desc_tail_offset, 128u);
  EXPECT_EQ(l.output_desc_head_offset, 192u);
  EXPECT_EQ(l.initiator_abort_offset, 256u);
  EXPECT_EQ(l.peer_abort_offset, 320u);
  EXPECT_EQ(l.counter_bytes, 384u);

  // L3 publishes one DATA input: payload, descriptor (encode_descriptor into
  // slot 0 of the input ring), then the input tail Set to 1.
  const std::vector<uint8_t> in_bytes = pattern(40, 3);
  std::memcpy(payload.data() + layout.input_arena_offset, in_bytes.data(), in_bytes.size());
  SpscQueueDescriptor in_desc{};
  in_desc.seq = 1;
  in_desc.opcode = static_cast<uint64_t>(SpscQueueOpcode::DATA);
  in_desc.payload_offset = layout.input_arena_offset;
  in_desc.payload_nbytes = in_bytes.size();
  encode_desc(in_desc, payload.data() + layout.input_desc_offset);
  set_signal(counter.data(), layout.input_desc_tail_offset, 1);

  SpscQueueInputHandle h{};
  ASSERT_TRUE(queue.input().try_peek(h)) << queue.error().message;
  EXPECT_EQ(h.seq, 1u);
  EXPECT_EQ(h.opcode, SpscQueueOpcode::DATA);
  EXPECT_EQ(h.payload_offset, layout.input_arena_offset);
  EXPECT_EQ(h.payload_nbytes, in_bytes.size());
  EXPECT_EQ(h.payload.nbytes, in_bytes.size());
  const uint8_t* in_ptr = reinterpret_cast<const uint8_t*>(h.payload.local_addr);
  EXPECT_EQ(in_ptr, payload.data() + layout.input_arena_offset);
  ASSERT_NE(in_ptr, nullptr);
  EXPECT_EQ(std::vector<uint8_t>(in_ptr, in_ptr + h.payload.nbytes), in_bytes);
  const uint64_t cookie = h.owner_cookie;  // opaque to L2 code; kept by copies

  // L2 answers: a reservation filled through payload.local_addr, published.
  const std::vector<uint8_t> out_bytes = pattern(24, 101);
  SpscQueueOutputReservation r{};
  ASSERT_TRUE(queue.output().try_reserve(out_bytes.size(), r)) << queue.error().message;
  EXPECT_TRUE(r.valid);
  EXPECT_EQ(r.seq, 1u);
  EXPECT_EQ(r.payload_offset, layout.output_arena_offset);
  EXPECT_EQ(r.payload_nbytes, out_bytes.size());
  EXPECT_EQ(r.payload.nbytes, out_bytes.size());
  uint8_t* out_ptr = reinterpret_cast<uint8_t*>(r.payload.local_addr);
  ASSERT_EQ(out_ptr, payload.data() + layout.output_arena_offset);
  std::memcpy(out_ptr, out_bytes.data(), out_bytes.size());
  ASSERT_TRUE(queue.output().publish(r, SpscQueueOpcode::DATA)) << queue.error().message;

  // L3 reads the output on the wire.
  EXPECT_EQ(load_signal(counter.data(), layout.output_desc_tail_offset), 1);
  const SpscQueueDescriptor out_desc =
      decode_desc<SpscQueueDescriptor>(payload.data() + layout.output_desc_offset);
  EXPECT_EQ(out_desc.seq, 1u);
  EXPECT_EQ(out_desc.opcode, static_cast<uint64_t>(SpscQueueOpcode::DATA));
  EXPECT_EQ(out_desc.payload_offset, layout.output_arena_offset);
  EXPECT_EQ(out_desc.payload_nbytes, out_bytes.size());
  const uint8_t* wire_out = payload.data() + out_desc.payload_offset;
  EXPECT_EQ(std::vector<uint8_t>(wire_out, wire_out + out_desc.payload_nbytes), out_bytes);

  ASSERT_TRUE(queue.input().release(h)) << queue.error().message;
  EXPECT_EQ(load_signal(counter.data(), layout.input_desc_head_offset), 1);
  EXPECT_FALSE(queue.input().drained());
  EXPECT_EQ(queue.error().kind, SpscQueueErrorKind::NONE);

  // A forged handle (never handed out) poisons; the error, by its names.
  SpscQueueInputHandle forged = h;
  forged.seq = h.seq + 7;
  EXPECT_EQ(forged.owner_cookie, cookie);
  EXPECT_FALSE(queue.input().release(forged));
  EXPECT_FALSE(queue.live());
  const SpscQueueError& e = queue.error();
  EXPECT_NE(e.kind, SpscQueueErrorKind::NONE);
  EXPECT_EQ(e.op, SpscQueueOp::INPUT_RELEASE);
  EXPECT_EQ(e.session_instance_id_bits, binding.session_instance_id_bits);
  EXPECT_EQ(e.transaction_id, binding.transaction_id);
  EXPECT_NE(e.message[0], '\0');
  EXPECT_NE(std::memchr(e.message, '\0', sizeof(e.message)), nullptr);
  EXPECT_EQ(load_signal(counter.data(), layout.peer_abort_offset), 1)
      << "a local poison sets the L2 abort flag";
}

TEST(SourceCompat, RegionInstanceViewTakesOwnOutStructsAndReportsRegionViewError) {
  PageBuffer payload(kPage);
  PageBuffer counter(kCounterBytes);
  RegionInstanceView view(RegionPartLocalSpan{payload.addr(), kPage},
                          RegionPartLocalSpan{counter.addr(), kCounterBytes});
  ASSERT_FALSE(view.failed()) << view.error().message;

  OwnSpan span{0, 0};
  ASSERT_TRUE(view.payload().read(64, 128, span)) << view.error().message;
  EXPECT_EQ(span.local_addr, payload.addr() + 64);
  EXPECT_EQ(span.nbytes, 128u);
  RegionPayloadView region_span{};
  ASSERT_TRUE(view.payload().read(0, 32, region_span));
  EXPECT_EQ(region_span.local_addr, payload.addr());
  SpscQueuePayloadView queue_span{};
  ASSERT_TRUE(view.payload().read(32, 16, queue_span));
  EXPECT_EQ(queue_span.local_addr, payload.addr() + 32);
  EXPECT_EQ(queue_span.nbytes, 16u);

  set_signal(counter.data(), kOutputDescTailOffset, 7);
  OwnSample hit{false, 0};
  ASSERT_TRUE(view.counter().test(kOutputDescTailOffset, 7, RegionWaitCmp::EQ, hit));
  EXPECT_TRUE(hit.matched);
  EXPECT_EQ(hit.observed, 7);
  RegionSignalTestResult miss{true, 0};
  ASSERT_TRUE(view.counter().test(kOutputDescTailOffset, 9, RegionWaitCmp::GE, miss));
  EXPECT_FALSE(miss.matched);
  EXPECT_EQ(miss.observed, 7);

  // Out of range: refused, reported as OUT_OF_BOUNDS on PAYLOAD_READ.
  RegionPayloadView beyond{};
  EXPECT_FALSE(view.payload().read(kPage - 8, 64, beyond));
  const RegionViewError& e = view.error();
  EXPECT_EQ(e.kind, RegionViewErrorKind::OUT_OF_BOUNDS);
  EXPECT_EQ(e.op, RegionViewOp::PAYLOAD_READ);
  EXPECT_NE(e.message[0], '\0');
}

}  // namespace
