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
#include <type_traits>
#include <utility>

#include "conformance/harness/layout_fields.h"

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

template <class Endpoint>
struct DefaultEndpointAccess {
  using Types = EndpointTypes<Endpoint>;
  using Handle = typename Types::Handle;
  using Reservation = typename Types::Reservation;
  using Opcode = typename Types::Opcode;
  using Binding = spsc_queue::SpscQueueEndpointBinding;
  using Clock = spsc_queue::MonotonicClock;

  static constexpr size_t kScalarCount = spsc_queue::kSpscQueueEndpointBindingScalarCount;

  static bool decode(const uint64_t* scalars, size_t count, Binding* out) {
    return spsc_queue::decode_endpoint_binding(scalars, count, out);
  }
  static Clock clock(uint64_t (*now_ns)()) {
    Clock c{};
    c.now_ns = now_ns;
    return c;
  }

  static uint64_t seq(const Handle& h) { return h.seq; }
  static uint64_t opcode(const Handle& h) { return static_cast<uint64_t>(h.opcode); }
  static uint64_t nbytes(const Handle& h) { return h.payload_nbytes; }
  static const uint8_t* payload(const Handle& h) { return bytes_at(h.payload.local_addr); }
  static uint64_t nbytes(const Reservation& r) { return r.payload_nbytes; }
  static uint8_t* payload(const Reservation& r) {
    return const_cast<uint8_t*>(bytes_at(r.payload.local_addr));
  }
  static Opcode opcode_value(uint64_t v) { return static_cast<Opcode>(v); }

  static uint32_t kind(const Endpoint& e) { return static_cast<uint32_t>(e.error().kind); }
  static uint32_t op(const Endpoint& e) { return static_cast<uint32_t>(e.error().op); }
  static uint64_t session(const Endpoint& e) { return e.error().session_instance_id_bits; }
  static uint64_t transaction(const Endpoint& e) { return e.error().transaction_id; }
  static const char* message(const Endpoint& e) { return e.error().message; }
  static size_t message_capacity(const Endpoint& e) { return sizeof(e.error().message); }

  static LayoutFields layout(const Endpoint& e) {
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
};

// Specialize this (deriving from DefaultEndpointAccess) in an adapter header.
template <class Endpoint>
struct EndpointAccess : DefaultEndpointAccess<Endpoint> {};

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_L2_ENDPOINT_ACCESS_H_
