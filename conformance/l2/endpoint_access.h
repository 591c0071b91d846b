// How the suite reaches into an endpoint under test. Types are deduced from
// member-function signatures the contract fixes (try_peek's handle,
// try_reserve's reservation, publish's opcode), and fields are read through
// EndpointAccess<Endpoint>. The defaults read the names the spec and the
// wire contract use; an implementation with other field names specializes
// EndpointAccess in an adapter header given to spsq_l2_certification:
//
//   template <class View, uint64_t N>
//   struct spsq_conf::EndpointAccess<acme::Queue<View, N>>
//       : spsq_conf::DefaultEndpointAccess<acme::Queue<View, N>> {
//     static uint64_t seq(const Handle& h) { return h.sequence; }
//   };
//
// Only names the spec itself uses are touched by default:
// spsc_queue::SpscQueueEndpointBinding, spsc_queue::decode_endpoint_binding,
// spsc_queue::kSpscQueueEndpointBindingScalarCount, spsc_queue::MonotonicClock.
#ifndef SPSQ_CONFORMANCE_L2_ENDPOINT_ACCESS_H_
#define SPSQ_CONFORMANCE_L2_ENDPOINT_ACCESS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

#include "testkit/layout_fields.h"

namespace spsq_conf {
namespace detail {

template <class C, class R, class A, class... Rest>
A first_arg(R (C::*)(A, Rest...));
template <class C, class R, class A, class B, class... Rest>
B second_arg(R (C::*)(A, B, Rest...));

}  // namespace detail

// The bytes at `addr`, an integer address or any pointer (the contract lets
// `local_addr` be either).
template <class Addr>
const uint8_t* bytes_at(const Addr& addr) {
  if constexpr (std::is_pointer_v<Addr>) {
    return reinterpret_cast<const uint8_t*>(addr);
  } else {
    return reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(addr));
  }
}

template <class Endpoint>
struct EndpointTypes {
  using Input = std::remove_reference_t<decltype(std::declval<Endpoint&>().input())>;
  using Output = std::remove_reference_t<decltype(std::declval<Endpoint&>().output())>;
  using Handle = std::remove_cv_t<
      std::remove_reference_t<decltype(detail::first_arg(&Input::try_peek))>>;
  using Reservation = std::remove_cv_t<
      std::remove_reference_t<decltype(detail::second_arg(&Output::try_reserve))>>;
  using Opcode = std::decay_t<decltype(detail::second_arg(&Output::publish))>;
};

// Whether the default accessors' field names exist. Each default accessor
// asserts its own with a message naming the contract line, so an endpoint
// that lacks one learns what to supply (in an adapter) before anything else
// of the suite compiles.
namespace detail {
#define SPSQ_CONF_HAS_FIELD(name, field)                                         \
  template <class T, class = void>                                               \
  struct name : std::false_type {};                                              \
  template <class T>                                                             \
  struct name<T, std::void_t<decltype(std::declval<const T&>().field)>> : std::true_type {}
SPSQ_CONF_HAS_FIELD(HasSeq, seq);
SPSQ_CONF_HAS_FIELD(HasOpcode, opcode);
SPSQ_CONF_HAS_FIELD(HasPayloadNbytes, payload_nbytes);
SPSQ_CONF_HAS_FIELD(HasPayloadLocalAddr, payload.local_addr);
SPSQ_CONF_HAS_FIELD(HasKind, kind);
SPSQ_CONF_HAS_FIELD(HasOp, op);
SPSQ_CONF_HAS_FIELD(HasSession, session_instance_id_bits);
SPSQ_CONF_HAS_FIELD(HasTransaction, transaction_id);
SPSQ_CONF_HAS_FIELD(HasMessage, message);
#undef SPSQ_CONF_HAS_FIELD
template <class T, class = void>
struct HasLayoutFields : std::false_type {};
template <class T>
struct HasLayoutFields<
    T, std::void_t<decltype(std::declval<const T&>().depth),
                   decltype(std::declval<const T&>().input_desc_offset),
                   decltype(std::declval<const T&>().output_desc_offset),
                   decltype(std::declval<const T&>().input_arena_offset),
                   decltype(std::declval<const T&>().input_arena_bytes),
                   decltype(std::declval<const T&>().output_arena_offset),
                   decltype(std::declval<const T&>().output_arena_bytes),
                   decltype(std::declval<const T&>().payload_bytes),
                   decltype(std::declval<const T&>().counter_bytes)>> : std::true_type {};

template <class Addr>
inline constexpr bool kIsAddress =
    std::is_pointer_v<Addr> || (std::is_integral_v<Addr> && sizeof(Addr) == sizeof(void*));
}  // namespace detail

template <class Endpoint>
struct DefaultEndpointAccess {
  using Types = EndpointTypes<Endpoint>;
  using Handle = typename Types::Handle;
  using Reservation = typename Types::Reservation;
  using Opcode = typename Types::Opcode;
  using Binding = spsc_queue::SpscQueueEndpointBinding;
  using Clock = spsc_queue::MonotonicClock;
  using Error = std::decay_t<decltype(std::declval<const Endpoint&>().error())>;

  static constexpr size_t kScalarCount = spsc_queue::kSpscQueueEndpointBindingScalarCount;

  static bool decode(const uint64_t* scalars, size_t count, Binding* out) {
    return spsc_queue::decode_endpoint_binding(scalars, count, out);
  }
  static Clock clock(uint64_t (*now_ns)()) {
    Clock c{};
    c.now_ns = now_ns;
    return c;
  }

  static uint64_t seq(const Handle& h) {
    static_assert(detail::HasSeq<Handle>::value,
                  "wire-contract.md, Source compatibility: `SpscQueueInputHandle { seq; ... }`: "
                  "the handle has no `seq`; define EndpointAccess::seq in an adapter");
    if constexpr (detail::HasSeq<Handle>::value) return static_cast<uint64_t>(h.seq);
    return 0;
  }
  static uint64_t opcode(const Handle& h) {
    static_assert(detail::HasOpcode<Handle>::value,
                  "wire-contract.md, Source compatibility: `SpscQueueInputHandle { ...; "
                  "SpscQueueOpcode opcode; ... }`: the handle has no `opcode`; define "
                  "EndpointAccess::opcode in an adapter");
    if constexpr (detail::HasOpcode<Handle>::value) return static_cast<uint64_t>(h.opcode);
    return 0;
  }
  static uint64_t nbytes(const Handle& h) {
    static_assert(detail::HasPayloadNbytes<Handle>::value,
                  "wire-contract.md, Source compatibility: `SpscQueueInputHandle { ...; "
                  "payload_nbytes; ... }`: the handle has no `payload_nbytes`");
    if constexpr (detail::HasPayloadNbytes<Handle>::value) return h.payload_nbytes;
    return 0;
  }
  static const uint8_t* payload(const Handle& h) {
    static_assert(detail::HasPayloadLocalAddr<Handle>::value,
                  "wire-contract.md, Source compatibility: `SpscQueueInputHandle { ...; "
                  "SpscQueuePayloadView payload; ... }` with `local_addr`: the handle has no "
                  "`payload.local_addr`; define EndpointAccess::payload(Handle) in an adapter");
    if constexpr (detail::HasPayloadLocalAddr<Handle>::value) {
      using Addr = std::decay_t<decltype(h.payload.local_addr)>;
      static_assert(detail::kIsAddress<Addr>,
                    "wire-contract.md, Source compatibility: `SpscQueuePayloadView { uint64_t "
                    "local_addr; ... }`: `local_addr` must be an integer address or a pointer");
      return bytes_at(h.payload.local_addr);
    }
    return nullptr;
  }
  static uint64_t nbytes(const Reservation& r) {
    static_assert(detail::HasPayloadNbytes<Reservation>::value,
                  "wire-contract.md, Source compatibility: `SpscQueueOutputReservation { ...; "
                  "payload_nbytes; ... }`: the reservation has no `payload_nbytes`");
    if constexpr (detail::HasPayloadNbytes<Reservation>::value) return r.payload_nbytes;
    return 0;
  }
  static uint8_t* payload(const Reservation& r) {
    static_assert(detail::HasPayloadLocalAddr<Reservation>::value,
                  "wire-contract.md, Source compatibility: `SpscQueueOutputReservation { ...; "
                  "SpscQueuePayloadView payload; ... }` with `local_addr`: the reservation has "
                  "no `payload.local_addr`; define EndpointAccess::payload(Reservation)");
    if constexpr (detail::HasPayloadLocalAddr<Reservation>::value) {
      return const_cast<uint8_t*>(bytes_at(r.payload.local_addr));
    }
    return nullptr;
  }
  static Opcode opcode_value(uint64_t v) { return static_cast<Opcode>(v); }

  // Forgeries for the ownership tests: the same handle with another seq, the
  // same reservation with another size.
  static void forge_seq(Handle& h, uint64_t seq) {
    static_assert(detail::HasSeq<Handle>::value,
                  "the handle has no `seq`: define EndpointAccess::forge_seq in an adapter");
    if constexpr (detail::HasSeq<Handle>::value) h.seq = seq;
  }
  static void forge_nbytes(Reservation& r, uint64_t nbytes) {
    static_assert(detail::HasPayloadNbytes<Reservation>::value,
                  "the reservation has no `payload_nbytes`: define EndpointAccess::forge_nbytes "
                  "in an adapter");
    if constexpr (detail::HasPayloadNbytes<Reservation>::value) r.payload_nbytes = nbytes;
  }

  static uint32_t kind(const Endpoint& e) {
    static_assert(detail::HasKind<Error>::value,
                  "wire-contract.md, Source compatibility: `SpscQueueError { "
                  "SpscQueueErrorKind kind; ... }`: error() has no `kind`");
    if constexpr (detail::HasKind<Error>::value) return static_cast<uint32_t>(e.error().kind);
    return 0;
  }
  static uint32_t op(const Endpoint& e) {
    static_assert(detail::HasOp<Error>::value,
                  "wire-contract.md, Source compatibility: `SpscQueueError { ...; SpscQueueOp "
                  "op; ... }`: error() has no `op`");
    if constexpr (detail::HasOp<Error>::value) return static_cast<uint32_t>(e.error().op);
    return 0;
  }
  static uint64_t session(const Endpoint& e) {
    static_assert(detail::HasSession<Error>::value,
                  "wire-contract.md, Source compatibility: `SpscQueueError { ...; "
                  "session_instance_id_bits; ... }`: error() has no `session_instance_id_bits`");
    if constexpr (detail::HasSession<Error>::value) return e.error().session_instance_id_bits;
    return 0;
  }
  static uint64_t transaction(const Endpoint& e) {
    static_assert(detail::HasTransaction<Error>::value,
                  "wire-contract.md, Source compatibility: `SpscQueueError { ...; "
                  "transaction_id; ... }`: error() has no `transaction_id`");
    if constexpr (detail::HasTransaction<Error>::value) return e.error().transaction_id;
    return 0;
  }
  static const char* message(const Endpoint& e) {
    static_assert(detail::HasMessage<Error>::value,
                  "wire-contract.md, Source compatibility: `SpscQueueError { ...; char "
                  "message[256]; }`: error() has no `message`");
    if constexpr (detail::HasMessage<Error>::value) return e.error().message;
    return "";
  }
  static size_t message_capacity(const Endpoint& e) {
    if constexpr (detail::HasMessage<Error>::value) return sizeof(e.error().message);
    return 0;
  }

  static LayoutFields layout(const Endpoint& e) {
    using L = std::decay_t<decltype(e.layout())>;
    static_assert(detail::HasLayoutFields<L>::value,
                  "wire-contract.md, Source compatibility: `SpscQueueLayout { depth, "
                  "input_arena_bytes, output_arena_bytes, input_desc_offset, output_desc_offset, "
                  "input_arena_offset, output_arena_offset, payload_bytes, ..., counter_bytes }`: "
                  "layout() lacks one of these; define EndpointAccess::layout in an adapter");
    if constexpr (detail::HasLayoutFields<L>::value) {
      const auto& l = e.layout();
      return LayoutFields{l.depth,
                          l.input_desc_offset,
                          l.output_desc_offset,
                          l.input_arena_offset,
                          l.input_arena_bytes,
                          l.output_arena_offset,
                          l.output_arena_bytes,
                          l.payload_bytes,
                          l.counter_bytes};
    }
    return LayoutFields{};
  }
};

// Specialize this (deriving from DefaultEndpointAccess) in an adapter header.
template <class Endpoint>
struct EndpointAccess : DefaultEndpointAccess<Endpoint> {};

// Spec section 1's L2 steps once the ten scalars are read: decode them, wrap
// the binding's payload and counter spans in a View, construct the endpoint.
// Null when decode rejects the scalars (where the spec's snippet returns); the
// caller checks live(). The suite's L2 tasks share this; the section-1 test
// and the shipped example spell the snippet out on purpose.
template <class Endpoint, class View>
std::unique_ptr<Endpoint> BindEndpoint(const uint64_t* scalars, uint64_t (*now_ns)()) {
  using A = EndpointAccess<Endpoint>;
  // RegionPartLocalSpan, named through the view so no global name is assumed.
  using Span = std::decay_t<decltype(std::declval<View&>().payload().span())>;
  typename A::Binding binding{};
  if (!A::decode(scalars, A::kScalarCount, &binding)) return nullptr;
  View view(Span{binding.payload_base, binding.payload_bytes},
            Span{binding.counter_base, binding.counter_bytes});
  return std::make_unique<Endpoint>(binding, std::move(view), A::clock(now_ns));
}

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_L2_ENDPOINT_ACCESS_H_
