// The certification's preflight: compiles only the suite's use of the
// endpoint under test, and names each missing or mistyped piece with a
// static_assert that quotes the wire-contract line it comes from. Every source
// compiled against the endpoint (the adapter, the typed tests) waits for this
// translation unit (they include a header generated once it compiled), so a
// user reads these messages instead of an error from deep inside the suite.
//
// Each check is a detection trait, so one missing piece does not hide the
// others; the uses that need a piece are compiled only when it is there.
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "testkit/harness_view.h"
#include "spsq_cert/config.h"

namespace spsq_conf {
namespace contract {

using View = HarnessView;
using E = SPSQ_CERT_ENDPOINT<View, SPSQ_CERT_MAX_INFLIGHT>;

template <class T>
T& lv();  // an lvalue of T in unevaluated contexts

#define SPSQ_CONTRACT_TRAIT(name, T, expr)           \
  template <class T, class = void>                   \
  struct name : std::false_type {};                  \
  template <class T>                                 \
  struct name<T, std::void_t<decltype(expr)>> : std::true_type {}

SPSQ_CONTRACT_TRAIT(HasLive, X, static_cast<bool>(lv<const X>().live()));
SPSQ_CONTRACT_TRAIT(HasError, X, lv<const X>().error());
SPSQ_CONTRACT_TRAIT(HasLayout, X, lv<const X>().layout());
SPSQ_CONTRACT_TRAIT(HasInput, X, lv<X>().input());
SPSQ_CONTRACT_TRAIT(HasOutput, X, lv<X>().output());
SPSQ_CONTRACT_TRAIT(HasTryPeek, X, &X::try_peek);
SPSQ_CONTRACT_TRAIT(HasTryReserve, X, &X::try_reserve);
SPSQ_CONTRACT_TRAIT(HasPublish, X, &X::publish);
#undef SPSQ_CONTRACT_TRAIT

template <class X>
using InputOf = std::remove_reference_t<decltype(lv<X>().input())>;
template <class X>
using OutputOf = std::remove_reference_t<decltype(lv<X>().output())>;

constexpr bool kHasDirections = HasInput<E>::value && HasOutput<E>::value;
static_assert(HasLive<E>::value,
              "wire-contract.md, The RegionView contract: Endpoint API `live()`: missing or not "
              "convertible to bool");
static_assert(HasError<E>::value,
              "wire-contract.md, The RegionView contract: Endpoint API `error()`: missing");
static_assert(HasLayout<E>::value,
              "wire-contract.md, The RegionView contract: Endpoint API `layout()`: missing");
static_assert(HasInput<E>::value,
              "wire-contract.md, Source compatibility: \"The endpoint's directions are nested "
              "classes reached through `input()` / `output()`\": `input()` is missing");
static_assert(HasOutput<E>::value,
              "wire-contract.md, Source compatibility: \"The endpoint's directions are nested "
              "classes reached through `input()` / `output()`\": `output()` is missing");

// The direction members, with the exact signatures the contract gives.
template <class In, class = void>
struct InputMembers {
  static constexpr bool try_peek = false, peek = false, release = false, drained = false;
};
template <class In>
struct InputMembers<In, std::enable_if_t<HasTryPeek<In>::value>> {
  using Handle = std::remove_cv_t<std::remove_reference_t<decltype(detail::first_arg(&In::try_peek))>>;
  template <class I, class = void>
  struct P : std::false_type {};
  template <class I>
  struct P<I, std::void_t<decltype(static_cast<bool>(lv<I>().peek(uint64_t{0}, lv<Handle>())))>>
      : std::true_type {};
  template <class I, class = void>
  struct R : std::false_type {};
  template <class I>
  struct R<I, std::void_t<decltype(static_cast<bool>(lv<I>().release(lv<const Handle>())))>>
      : std::true_type {};
  template <class I, class = void>
  struct D : std::false_type {};
  template <class I>
  struct D<I, std::void_t<decltype(static_cast<bool>(lv<const I>().drained()))>>
      : std::true_type {};
  static constexpr bool try_peek =
      std::is_same_v<decltype(static_cast<bool>(lv<In>().try_peek(lv<Handle>()))), bool>;
  static constexpr bool peek = P<In>::value;
  static constexpr bool release = R<In>::value;
  static constexpr bool drained = D<In>::value;
};

template <class Out, class = void>
struct OutputMembers {
  static constexpr bool try_reserve = false, reserve = false, publish = false;
};
template <class Out>
struct OutputMembers<Out,
                     std::enable_if_t<HasTryReserve<Out>::value && HasPublish<Out>::value>> {
  using Reservation =
      std::remove_cv_t<std::remove_reference_t<decltype(detail::second_arg(&Out::try_reserve))>>;
  using Opcode = std::decay_t<decltype(detail::second_arg(&Out::publish))>;
  template <class O, class = void>
  struct Rs : std::false_type {};
  template <class O>
  struct Rs<O, std::void_t<decltype(static_cast<bool>(
                   lv<O>().reserve(uint64_t{0}, uint64_t{0}, lv<Reservation>())))>>
      : std::true_type {};
  template <class O, class = void>
  struct Pb : std::false_type {};
  template <class O>
  struct Pb<O, std::void_t<decltype(static_cast<bool>(
                   lv<O>().publish(lv<const Reservation>(), std::declval<Opcode>())))>>
      : std::true_type {};
  static constexpr bool try_reserve = true;
  static constexpr bool reserve = Rs<Out>::value;
  static constexpr bool publish =
      Pb<Out>::value && (std::is_enum_v<Opcode> || std::is_integral_v<Opcode>);
};

template <class X, bool = kHasDirections>
struct Directions {
  using In = InputMembers<void>;
  using Out = OutputMembers<void>;
};
template <class X>
struct Directions<X, true> {
  using In = InputMembers<InputOf<X>>;
  using Out = OutputMembers<OutputOf<X>>;
};
using Dirs = Directions<E>;

static_assert(!kHasDirections || Dirs::In::try_peek,
              "wire-contract.md, Source compatibility: `try_peek(SpscQueueInputHandle&)` on "
              "input(): missing, overloaded, or not returning bool");
static_assert(!kHasDirections || Dirs::In::peek,
              "wire-contract.md, Source compatibility: `peek(uint64_t timeout_ns, "
              "SpscQueueInputHandle&)` on input(): missing or mistyped");
static_assert(!kHasDirections || Dirs::In::release,
              "wire-contract.md, Source compatibility: `release(const SpscQueueInputHandle&)` on "
              "input(): missing or mistyped");
static_assert(!kHasDirections || Dirs::In::drained,
              "wire-contract.md, Source compatibility: `drained() const` on input(): missing or "
              "not const");
static_assert(!kHasDirections || Dirs::Out::try_reserve,
              "wire-contract.md, Source compatibility: `try_reserve(uint64_t nbytes, "
              "SpscQueueOutputReservation&)` and `publish(const SpscQueueOutputReservation&, "
              "SpscQueueOpcode)` on output(): missing or overloaded");
static_assert(!kHasDirections || Dirs::Out::reserve,
              "wire-contract.md, Source compatibility: `reserve(uint64_t nbytes, uint64_t "
              "timeout_ns, SpscQueueOutputReservation&)` on output(): missing or mistyped");
static_assert(!kHasDirections || Dirs::Out::publish,
              "wire-contract.md, Source compatibility: `publish(const SpscQueueOutputReservation&, "
              "SpscQueueOpcode)` on output(): missing, mistyped, or the opcode is not an enum or "
              "integer");

constexpr bool kApiUsable = kHasDirections && Dirs::In::try_peek && Dirs::Out::try_reserve;

// The binding and clock the suite builds (through EndpointAccess, which an
// adapter may specialize).
template <class A, class = void>
struct BindingFields : std::false_type {};
template <class A>
struct BindingFields<
    A, std::void_t<decltype(lv<typename A::Binding>().magic_version = 0),
                   decltype(lv<typename A::Binding>().session_instance_id_bits = 0),
                   decltype(lv<typename A::Binding>().transaction_id = 0),
                   decltype(lv<typename A::Binding>().payload_base = 0),
                   decltype(lv<typename A::Binding>().payload_bytes = 0),
                   decltype(lv<typename A::Binding>().counter_base = 0),
                   decltype(lv<typename A::Binding>().counter_bytes = 0),
                   decltype(lv<typename A::Binding>().depth = 0),
                   decltype(lv<typename A::Binding>().input_arena_bytes = 0),
                   decltype(lv<typename A::Binding>().output_arena_bytes = 0)>>
    : std::true_type {};

template <bool kUsable>
struct Uses {
  static constexpr bool kBinding = true, kConstructible = true;
};
template <>
struct Uses<true> {
  using A = EndpointAccess<E>;
  static constexpr bool kBinding = BindingFields<A>::value;
  static constexpr bool kConstructible =
      std::is_constructible_v<E, const typename A::Binding&, View, typename A::Clock>;
};
static_assert(Uses<kApiUsable>::kBinding,
              "wire-contract.md, Source compatibility: `SpscQueueEndpointBinding` with the ten "
              "fields in binding order (magic_version ... output_arena_bytes)");
static_assert(Uses<kApiUsable>::kConstructible,
              "wire-contract.md, The RegionView contract: the endpoint is \"constructed from "
              "`(binding, RegionView view, MonotonicClock clock)`\"; it cannot be constructed "
              "from (Binding, a harness RegionView, MonotonicClock)");

// The contract headers also give L2 code the view it builds in the spec
// snippet (the suite's interop child and the RegionInstanceView test use it).
static_assert(std::is_constructible_v<RegionInstanceView, RegionPartLocalSpan,
                                      RegionPartLocalSpan>,
              "l3-l2-message-queue.md section 1 snippet: `RegionInstanceView view("
              "RegionPartLocalSpan{...}, RegionPartLocalSpan{...})`");

// Instantiates every accessor the suite calls, so their own static_asserts
// (endpoint_access.h) report a missing field here and not in a test.
template <bool kUsable = kApiUsable>
void use_every_accessor() {
  if constexpr (kUsable) {
    using A = EndpointAccess<E>;
    uint64_t scalars[A::kScalarCount] = {};
    typename A::Binding b{};
    (void)A::decode(scalars, A::kScalarCount, &b);
    (void)A::clock(nullptr);
    E* e = nullptr;
    typename A::Handle h{};
    typename A::Reservation r{};
    (void)A::seq(h);
    (void)A::opcode(h);
    (void)A::nbytes(h);
    (void)A::payload(h);
    (void)A::nbytes(r);
    (void)A::payload(r);
    (void)A::opcode_value(1);
    A::forge_seq(h, 1);
    A::forge_nbytes(r, 1);
    (void)A::kind(*e);
    (void)A::op(*e);
    (void)A::session(*e);
    (void)A::transaction(*e);
    (void)A::message(*e);
    (void)A::message_capacity(*e);
    (void)A::layout(*e);
  }
}

}  // namespace contract
}  // namespace spsq_conf

// Compiled (explicitly instantiated) so the accessors' checks run; never called.
template void spsq_conf::contract::use_every_accessor<>();
