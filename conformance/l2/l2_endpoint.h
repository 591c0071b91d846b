// The endpoint under test as the L2 suite sees it: by the spec's operations
// and the wire contract's numbers, never by the implementation's own types.
//
// The suite's section sources are compiled once, against this header only;
// each certification compiles one adapter (l2_adapter.cc), which instantiates
// the implementation at every window it certifies and defines everything
// declared in namespace l2_adapter below. So a third-party endpoint costs one
// translation unit for the suite, besides the few compiled against its own
// types: the
// contract check, the MaxInflight-0 probe, the interop child and the tests
// that judge its names and types (the spec's L2 snippet, RegionInstanceView,
// source compatibility, the wrap's lean view), which use l2_typed.h.
//
// Handle, Reservation and Binding hold a value of the implementation's type
// in fixed storage, built, copied and destroyed by the adapter's functions:
// the suite copies and forges them as an L2 task would, and only the adapter
// knows their fields.
#ifndef SPSQ_CONFORMANCE_L2_L2_ENDPOINT_H_
#define SPSQ_CONFORMANCE_L2_L2_ENDPOINT_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "testkit/harness_view.h"
#include "testkit/layout_fields.h"
#include "model/wire_model.h"

namespace spsq_conf {

// Room for one value of the implementation's handle, reservation or binding
// type; the adapter refuses to compile a larger one, naming this constant.
inline constexpr size_t kErasedValueBytes = 256;

// How the adapter builds, copies and destroys one erased type's values.
struct ErasedOps {
  size_t size;
  void (*value_init)(void* dst);                  // T{} into raw storage
  void (*copy)(void* dst, const void* src);       // T(src) into raw storage
  void (*assign)(void* dst, const void* src);     // *dst = *src
  void (*destroy)(void* p);
};

enum class ErasedKind { kHandle, kReservation, kBinding };

// The certified MaxInflight of this binary, a constant the certification
// generates per window (certify/window.cc.tpl), so it is set before any test
// runs.
extern const uint64_t kN;

class Handle;
class Reservation;
class Binding;
class Endpoint;

// Defined by the certification's adapter (l2_adapter.cc), for its endpoint.
namespace l2_adapter {
const ErasedOps& ops(ErasedKind kind);
const char* certification_name();

size_t scalar_count();
bool decode(const uint64_t* scalars, size_t count, Binding* out);
wire::BindingFields fields(const Binding& b);
void set_fields(Binding* b, const wire::BindingFields& f);

// The endpoint with MaxInflight n over `view`, timed by the virtual clock;
// null when the adapter does not build that window (see windows()).
std::unique_ptr<Endpoint> make(uint64_t n, const Binding& b, HarnessView view);
// The windows make() builds: 1, 2, 3, 4, the certified one, and 0 when the
// endpoint compiles with MaxInflight 0 (S1.WIN.7).
bool builds_window(uint64_t n);
// Template<View>, the template with its default window argument; null when
// the template has none. `same_as_mi1`: Template<View> is Template<View, 1>.
std::unique_ptr<Endpoint> make_default_window(const Binding& b, HarnessView view);
bool has_default_window();
bool default_window_same_as_mi1();
// Whether MaxInflight 0 compiles, and if not the probe's compiler error line.
bool mi0_compiles();
const char* mi0_error();

uint64_t handle_seq(const Handle& h);
uint64_t handle_opcode(const Handle& h);
uint64_t handle_nbytes(const Handle& h);
const uint8_t* handle_payload(const Handle& h);
void forge_seq(Handle* h, uint64_t seq);
uint64_t reservation_nbytes(const Reservation& r);
uint8_t* reservation_payload(const Reservation& r);
void forge_nbytes(Reservation* r, uint64_t nbytes);
// Whether the implementation's opcode type carries the 64-bit value v (an
// adapter's own opcode type may be narrower).
bool opcode_carries(uint64_t v);
}  // namespace l2_adapter

// A value of the implementation's type K, in storage the suite owns. Value
// initialised as `T{}` is; copies are the type's own.
template <ErasedKind K>
class ErasedValue {
 public:
  ErasedValue() { l2_adapter::ops(K).value_init(bytes_); }
  ErasedValue(const ErasedValue& o) { l2_adapter::ops(K).copy(bytes_, o.bytes_); }
  ErasedValue& operator=(const ErasedValue& o) {
    if (this != &o) l2_adapter::ops(K).assign(bytes_, o.bytes_);
    return *this;
  }
  ~ErasedValue() { l2_adapter::ops(K).destroy(bytes_); }

  // The implementation's value, for the adapter; and its object
  // representation, for tests that check a call left it untouched.
  void* get() { return bytes_; }
  const void* get() const { return bytes_; }
  size_t size() const { return l2_adapter::ops(K).size; }

 private:
  alignas(alignof(std::max_align_t)) unsigned char bytes_[kErasedValueBytes];
};

// try_peek's handle, try_reserve's reservation, decode's binding struct.
class Handle : public ErasedValue<ErasedKind::kHandle> {};
class Reservation : public ErasedValue<ErasedKind::kReservation> {};
class Binding : public ErasedValue<ErasedKind::kBinding> {};

// An endpoint with its window fixed, by the spec's L2 operations. input() and
// output() keep the contract's call shapes (ep.input().try_peek(h)).
class Endpoint {
 public:
  class Input {
   public:
    bool try_peek(Handle& h) { return e_->input_try_peek(h); }
    bool peek(uint64_t timeout_ns, Handle& h) { return e_->input_peek(timeout_ns, h); }
    bool release(const Handle& h) { return e_->input_release(h); }
    bool drained() { return e_->input_drained(); }

   private:
    friend class Endpoint;
    explicit Input(Endpoint* e) : e_(e) {}
    Endpoint* e_;
  };
  class Output {
   public:
    bool try_reserve(uint64_t nbytes, Reservation& r) {
      return e_->output_try_reserve(nbytes, r);
    }
    bool reserve(uint64_t nbytes, uint64_t timeout_ns, Reservation& r) {
      return e_->output_reserve(nbytes, timeout_ns, r);
    }
    // `opcode` is the wire number (W.ENUM.1), converted to the
    // implementation's opcode type by the adapter.
    bool publish(const Reservation& r, uint64_t opcode) { return e_->output_publish(r, opcode); }

   private:
    friend class Endpoint;
    explicit Output(Endpoint* e) : e_(e) {}
    Endpoint* e_;
  };

  Endpoint() : input_(this), output_(this) {}
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;
  virtual ~Endpoint() = default;

  virtual bool live() const = 0;
  Input& input() { return input_; }
  Output& output() { return output_; }

  // error() as wire-contract numbers, and layout().
  virtual uint32_t error_kind() const = 0;
  virtual uint32_t error_op() const = 0;
  virtual uint64_t error_session() const = 0;
  virtual uint64_t error_transaction() const = 0;
  virtual const char* error_message() const = 0;
  virtual size_t error_message_capacity() const = 0;
  virtual LayoutFields layout_fields() const = 0;

 protected:
  virtual bool input_try_peek(Handle& h) = 0;
  virtual bool input_peek(uint64_t timeout_ns, Handle& h) = 0;
  virtual bool input_release(const Handle& h) = 0;
  virtual bool input_drained() = 0;
  virtual bool output_try_reserve(uint64_t nbytes, Reservation& r) = 0;
  virtual bool output_reserve(uint64_t nbytes, uint64_t timeout_ns, Reservation& r) = 0;
  virtual bool output_publish(const Reservation& r, uint64_t opcode) = 0;

 private:
  Input input_;
  Output output_;
};

// The accessors the tests read fields through, by the contract's meaning.
struct Api {
  static size_t scalar_count() { return l2_adapter::scalar_count(); }
  static bool decode(const uint64_t* scalars, size_t count, Binding* out) {
    return l2_adapter::decode(scalars, count, out);
  }
  static wire::BindingFields fields(const Binding& b) { return l2_adapter::fields(b); }

  static uint64_t seq(const Handle& h) { return l2_adapter::handle_seq(h); }
  static uint64_t opcode(const Handle& h) { return l2_adapter::handle_opcode(h); }
  static uint64_t nbytes(const Handle& h) { return l2_adapter::handle_nbytes(h); }
  static const uint8_t* payload(const Handle& h) { return l2_adapter::handle_payload(h); }
  static uint64_t nbytes(const Reservation& r) { return l2_adapter::reservation_nbytes(r); }
  static uint8_t* payload(const Reservation& r) { return l2_adapter::reservation_payload(r); }
  static void forge_seq(Handle& h, uint64_t seq) { l2_adapter::forge_seq(&h, seq); }
  static void forge_nbytes(Reservation& r, uint64_t n) { l2_adapter::forge_nbytes(&r, n); }
  static bool opcode_carries(uint64_t v) { return l2_adapter::opcode_carries(v); }

  static uint32_t kind(const Endpoint& e) { return e.error_kind(); }
  static uint32_t op(const Endpoint& e) { return e.error_op(); }
  static uint64_t session(const Endpoint& e) { return e.error_session(); }
  static uint64_t transaction(const Endpoint& e) { return e.error_transaction(); }
  static const char* message(const Endpoint& e) { return e.error_message(); }
  static size_t message_capacity(const Endpoint& e) { return e.error_message_capacity(); }
  static LayoutFields layout(const Endpoint& e) { return e.layout_fields(); }
};

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_L2_L2_ENDPOINT_H_
