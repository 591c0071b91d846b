// The typed half of the L2 suite's endpoint interface (l2_endpoint.h): an
// implementation's endpoint type E behind spsq_conf::Endpoint, and its
// handle, reservation and binding behind the erased values. Included by the
// certification's adapter (l2_adapter.cc), by the MaxInflight-0 probe (which
// must compile exactly what the adapter compiles for window 0) and by typed
// tests (l2_typed.h), which reach the implementation's object from the
// erased one.
//
// Fields are read through EndpointAccess<E> (endpoint_access.h), so an
// adapter header given to the certification applies here as it did to every
// suite source. The certification's config comes first: it includes the
// implementation's headers, then endpoint_access.h and the adapter header.
#ifndef SPSQ_CONFORMANCE_L2_L2_ADAPTER_H_
#define SPSQ_CONFORMANCE_L2_L2_ADAPTER_H_

#include "spsq_cert/config.h"

#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "testkit/harness_view.h"
#include "testkit/virtual_clock.h"
#include "conformance/l2/endpoint_access.h"
#include "conformance/l2/l2_endpoint.h"

namespace spsq_conf {
namespace l2_typed {

// The erased operations of one implementation type T.
template <class T>
const ErasedOps& ops_of() {
  static_assert(sizeof(T) <= kErasedValueBytes,
                "an endpoint's handle, reservation or binding is larger than "
                "spsq_conf::kErasedValueBytes (conformance/l2/l2_endpoint.h): raise it");
  static_assert(alignof(T) <= alignof(std::max_align_t),
                "an endpoint's handle, reservation or binding is over-aligned");
  static const ErasedOps ops{
      sizeof(T),
      [](void* dst) { new (dst) T{}; },
      [](void* dst, const void* src) { new (dst) T(*static_cast<const T*>(src)); },
      [](void* dst, const void* src) { *static_cast<T*>(dst) = *static_cast<const T*>(src); },
      [](void* p) { static_cast<T*>(p)->~T(); },
  };
  return ops;
}

template <class T, ErasedKind K>
T& value(ErasedValue<K>& v) {
  return *std::launder(static_cast<T*>(v.get()));
}
template <class T, ErasedKind K>
const T& value(const ErasedValue<K>& v) {
  return *std::launder(static_cast<const T*>(v.get()));
}

// E behind the suite's Endpoint. Every window the adapter builds has the
// same Handle and Reservation types (the contract's window changes neither).
template <class E>
class ErasedEndpoint final : public Endpoint {
 public:
  using Access = EndpointAccess<E>;
  using H = typename Access::Handle;
  using R = typename Access::Reservation;

  ErasedEndpoint(const typename Access::Binding& b, HarnessView view)
      : e_(b, std::move(view), Access::clock(&VirtualClock::now_ns)) {}

  E& impl() { return e_; }
  const E& impl() const { return e_; }

  bool live() const override { return e_.live(); }
  uint32_t error_kind() const override { return Access::kind(e_); }
  uint32_t error_op() const override { return Access::op(e_); }
  uint64_t error_session() const override { return Access::session(e_); }
  uint64_t error_transaction() const override { return Access::transaction(e_); }
  const char* error_message() const override { return Access::message(e_); }
  size_t error_message_capacity() const override { return Access::message_capacity(e_); }
  LayoutFields layout_fields() const override { return Access::layout(e_); }

 protected:
  bool input_try_peek(Handle& h) override { return e_.input().try_peek(value<H>(h)); }
  bool input_peek(uint64_t timeout_ns, Handle& h) override {
    return e_.input().peek(timeout_ns, value<H>(h));
  }
  bool input_release(const Handle& h) override { return e_.input().release(value<H>(h)); }
  bool input_drained() override { return e_.input().drained(); }
  bool output_try_reserve(uint64_t nbytes, Reservation& r) override {
    return e_.output().try_reserve(nbytes, value<R>(r));
  }
  bool output_reserve(uint64_t nbytes, uint64_t timeout_ns, Reservation& r) override {
    return e_.output().reserve(nbytes, timeout_ns, value<R>(r));
  }
  bool output_publish(const Reservation& r, uint64_t opcode) override {
    return e_.output().publish(value<R>(r), Access::opcode_value(opcode));
  }

 private:
  E e_;
};

// An endpoint only constructed and asked for its error: what the suite does
// with MaxInflight 0 (S1.WIN.7), where an implementation may refuse the
// other calls at compile time. Its L2 operations make no progress.
template <class E>
class ConstructedOnly final : public Endpoint {
 public:
  using Access = EndpointAccess<E>;

  ConstructedOnly(const typename Access::Binding& b, HarnessView view)
      : e_(b, std::move(view), Access::clock(&VirtualClock::now_ns)) {}

  bool live() const override { return e_.live(); }
  uint32_t error_kind() const override { return Access::kind(e_); }
  uint32_t error_op() const override { return Access::op(e_); }
  uint64_t error_session() const override { return 0; }
  uint64_t error_transaction() const override { return 0; }
  const char* error_message() const override { return Access::message(e_); }
  size_t error_message_capacity() const override { return Access::message_capacity(e_); }
  LayoutFields layout_fields() const override { return LayoutFields{}; }

 protected:
  bool input_try_peek(Handle&) override { return false; }
  bool input_peek(uint64_t, Handle&) override { return false; }
  bool input_release(const Handle&) override { return false; }
  bool input_drained() override { return false; }
  bool output_try_reserve(uint64_t, Reservation&) override { return false; }
  bool output_reserve(uint64_t, uint64_t, Reservation&) override { return false; }
  bool output_publish(const Reservation&, uint64_t) override { return false; }

 private:
  E e_;
};

}  // namespace l2_typed
}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_L2_L2_ADAPTER_H_
