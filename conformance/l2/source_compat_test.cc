// Wire contract, "Source compatibility: the shipped runtime's public L2 names
// and types" (clauses W.SRC.*), judged on the endpoint under test: L2 code
// written for the runtime must build unchanged against the implementation's
// two contract headers.
//
// Nothing here fails to compile when the implementation lacks a name or gives
// it another shape:
//   - a name of namespace spsc_queue is looked up unqualified from a namespace
//     nested in spsc_queue, where a stand-in (spsq_src_missing::q) is visible
//     only as if declared in the global namespace: the implementation's own
//     declaration is found first, the stand-in only when there is none;
//   - a name of the global namespace is looked up qualified (::Name), which
//     finds a declaration of the global namespace itself before anything a
//     using-directive nominates (the stand-ins of spsq_src_missing::g);
//   - every member, enumerator, signature and call is detected (std::void_t,
//     expression SFINAE) into constexpr bools, and what is used at run time
//     sits behind `if constexpr` in templates.
// Each TEST names its clause and EXPECTs each fact with the contract line
// that is missing or mistyped.
//
// An endpoint certified through an adapter (SPSQ_CERT_HAS_ADAPTER 1) reaches
// the suite through its own names by design: every test here is skipped as
// not applicable.
#include "conformance/l2/l2_typed.h"

#ifndef SPSQ_CERT_HAS_ADAPTER
#define SPSQ_CERT_HAS_ADAPTER 0
#endif

// ------------------------------------------------------------ stand-ins

namespace spsq_src_missing {

template <class T>
struct ProbeTag {};

// What a runtime name resolves to when the implementation does not declare
// it. Callable with a ProbeTag, which no real function is: that tells a
// missing function name from a real one whatever the real one's overloads.
struct Missing {
  template <class T>
  constexpr int operator()(ProbeTag<T>) const {
    return 0;
  }
};

// Names of namespace spsc_queue (common/region_template.h).
namespace q {
using SpscQueueOpcode = Missing;
using SpscQueueErrorKind = Missing;
using SpscQueueOp = Missing;
using SpscQueueDescriptor = Missing;
using SpscQueueLayout = Missing;
using SpscQueueEndpointBinding = Missing;
using SpscQueuePayloadView = Missing;
using SpscQueueInputHandle = Missing;
using SpscQueueOutputReservation = Missing;
using SpscQueueError = Missing;
using MonotonicClock = Missing;
inline constexpr Missing kSpscQueueMagic{};
inline constexpr Missing kSpscQueueAbiMajor{};
inline constexpr Missing kSpscQueueAbiMinor{};
inline constexpr Missing kSpscQueueMagicVersion{};
inline constexpr Missing kSpscQueueEndpointBindingScalarCount{};
inline constexpr Missing kDescriptorBytes{};
inline constexpr Missing kArenaAlignment{};
inline constexpr Missing kDescriptorRingAlignment{};
inline constexpr Missing kCounterStride{};
inline constexpr Missing kCounterBytes{};
inline constexpr Missing kMaxDepth{};
inline constexpr Missing kInputDescTailOffset{};
inline constexpr Missing kInputDescHeadOffset{};
inline constexpr Missing kOutputDescTailOffset{};
inline constexpr Missing kOutputDescHeadOffset{};
inline constexpr Missing kInitiatorAbortOffset{};
inline constexpr Missing kPeerAbortOffset{};
inline constexpr Missing encode_endpoint_binding{};
inline constexpr Missing decode_endpoint_binding{};
inline constexpr Missing encode_descriptor{};
inline constexpr Missing decode_descriptor{};
inline constexpr Missing counter_low32{};
inline constexpr Missing reconstruct_counter{};
}  // namespace q

// Names of the global namespace (aicpu/region_instance_view.h).
namespace g {
using RegionPartLocalSpan = Missing;
using RegionNotifyOp = Missing;
using RegionWaitCmp = Missing;
using RegionPayloadView = Missing;
using RegionSignalTestResult = Missing;
using RegionViewError = Missing;
using RegionViewErrorKind = Missing;
using RegionViewOp = Missing;
using RegionInstanceView = Missing;
}  // namespace g

}  // namespace spsq_src_missing

// Only qualified lookups (::RegionPartLocalSpan) are made of these names
// below: they find the implementation's global declaration when there is one.
using namespace spsq_src_missing::g;  // NOLINT(google-build-using-namespace)

// ------------------------------------------------------------ generic detection

namespace spsq_conf {
namespace src {

using Missing = ::spsq_src_missing::Missing;

template <class T>
inline constexpr bool kPresent = !std::is_same_v<T, Missing>;

// A data member `f` of T and its declared type.
#define SPSQ_SRC_FIELD(f)                                                            \
  template <class T, class = void>                                                   \
  struct Field_##f {                                                                 \
    static constexpr bool present = false;                                           \
    using type = Missing;                                                            \
  };                                                                                 \
  template <class T>                                                                 \
  struct Field_##f<T, std::enable_if_t<std::is_member_object_pointer_v<decltype(&T::f)>>> { \
    static constexpr bool present = true;                                            \
    using type = decltype(T::f);                                                     \
  };                                                                                 \
  template <class T>                                                                 \
  using FieldType_##f = typename Field_##f<T>::type;                                 \
  template <class T>                                                                 \
  const FieldType_##f<T>* field_ptr_##f(const T& t) {                                \
    if constexpr (Field_##f<T>::present) {                                           \
      return &t.f;                                                                   \
    } else {                                                                         \
      return nullptr;                                                                \
    }                                                                                \
  }

SPSQ_SRC_FIELD(seq)
SPSQ_SRC_FIELD(opcode)
SPSQ_SRC_FIELD(payload_offset)
SPSQ_SRC_FIELD(payload_nbytes)
SPSQ_SRC_FIELD(payload)
SPSQ_SRC_FIELD(owner_cookie)
SPSQ_SRC_FIELD(valid)
SPSQ_SRC_FIELD(local_addr)
SPSQ_SRC_FIELD(nbytes)
SPSQ_SRC_FIELD(depth)
SPSQ_SRC_FIELD(input_arena_bytes)
SPSQ_SRC_FIELD(output_arena_bytes)
SPSQ_SRC_FIELD(input_desc_offset)
SPSQ_SRC_FIELD(output_desc_offset)
SPSQ_SRC_FIELD(input_arena_offset)
SPSQ_SRC_FIELD(output_arena_offset)
SPSQ_SRC_FIELD(payload_bytes)
SPSQ_SRC_FIELD(input_desc_tail_offset)
SPSQ_SRC_FIELD(input_desc_head_offset)
SPSQ_SRC_FIELD(output_desc_tail_offset)
SPSQ_SRC_FIELD(output_desc_head_offset)
SPSQ_SRC_FIELD(initiator_abort_offset)
SPSQ_SRC_FIELD(peer_abort_offset)
SPSQ_SRC_FIELD(counter_bytes)
SPSQ_SRC_FIELD(magic_version)
SPSQ_SRC_FIELD(session_instance_id_bits)
SPSQ_SRC_FIELD(transaction_id)
SPSQ_SRC_FIELD(payload_base)
SPSQ_SRC_FIELD(counter_base)
SPSQ_SRC_FIELD(kind)
SPSQ_SRC_FIELD(op)
SPSQ_SRC_FIELD(message)
SPSQ_SRC_FIELD(now_ns)
SPSQ_SRC_FIELD(base)
SPSQ_SRC_FIELD(logical_bytes)
SPSQ_SRC_FIELD(matched)
SPSQ_SRC_FIELD(observed)

// An enumerator E::n that belongs to enum E, and its value.
#define SPSQ_SRC_ENUMERATOR(n)                                                        \
  template <class E, class = void>                                                    \
  struct Enumerator_##n {                                                             \
    static constexpr bool present = false;                                            \
    static constexpr uint64_t value = 0;                                              \
  };                                                                                  \
  template <class E>                                                                  \
  struct Enumerator_##n<                                                              \
      E, std::enable_if_t<std::is_enum_v<E> &&                                        \
                          std::is_same_v<std::remove_cv_t<decltype(E::n)>, E>>> {      \
    static constexpr bool present = true;                                             \
    static constexpr uint64_t value = static_cast<uint64_t>(E::n);                    \
  };

SPSQ_SRC_ENUMERATOR(INVALID)
SPSQ_SRC_ENUMERATOR(DATA)
SPSQ_SRC_ENUMERATOR(STOP)
SPSQ_SRC_ENUMERATOR(ERROR)
SPSQ_SRC_ENUMERATOR(NONE)
SPSQ_SRC_ENUMERATOR(BAD_ARGUMENT)
SPSQ_SRC_ENUMERATOR(BAD_BINDING)
SPSQ_SRC_ENUMERATOR(INVALID_DESCRIPTOR)
SPSQ_SRC_ENUMERATOR(OWNERSHIP)
SPSQ_SRC_ENUMERATOR(REMOTE_ABORTED)
SPSQ_SRC_ENUMERATOR(ENDPOINT_ERROR)
SPSQ_SRC_ENUMERATOR(INIT)
SPSQ_SRC_ENUMERATOR(TIMEOUT)
SPSQ_SRC_ENUMERATOR(INPUT_TRY_PEEK)
SPSQ_SRC_ENUMERATOR(INPUT_RELEASE)
SPSQ_SRC_ENUMERATOR(OUTPUT_TRY_RESERVE)
SPSQ_SRC_ENUMERATOR(OUTPUT_PUBLISH)
SPSQ_SRC_ENUMERATOR(INVALID_VIEW)
SPSQ_SRC_ENUMERATOR(OUT_OF_BOUNDS)
SPSQ_SRC_ENUMERATOR(INVALID_ENUM)
SPSQ_SRC_ENUMERATOR(ISSUED_FAILURE)
SPSQ_SRC_ENUMERATOR(CONSTRUCT)
SPSQ_SRC_ENUMERATOR(PAYLOAD_READ)
SPSQ_SRC_ENUMERATOR(PAYLOAD_WRITE)
SPSQ_SRC_ENUMERATOR(NOTIFY)
SPSQ_SRC_ENUMERATOR(TEST)
SPSQ_SRC_ENUMERATOR(WAIT)
SPSQ_SRC_ENUMERATOR(COUNTER_ADDR)
SPSQ_SRC_ENUMERATOR(Set)
SPSQ_SRC_ENUMERATOR(Add)
SPSQ_SRC_ENUMERATOR(EQ)
SPSQ_SRC_ENUMERATOR(NE)
SPSQ_SRC_ENUMERATOR(GT)
SPSQ_SRC_ENUMERATOR(GE)
SPSQ_SRC_ENUMERATOR(LT)
SPSQ_SRC_ENUMERATOR(LE)

template <class E, bool = std::is_enum_v<E>>
struct EnumUnderlying {
  using type = Missing;
};
template <class E>
struct EnumUnderlying<E, true> {
  using type = std::underlying_type_t<E>;
};

// `enum class E : U`: an enumeration, scoped (no implicit conversion), of
// underlying type U.
template <class E, class U>
inline constexpr bool kScopedEnumOf =
    std::is_enum_v<E> && !std::is_convertible_v<E, typename EnumUnderlying<E>::type> &&
    std::is_same_v<typename EnumUnderlying<E>::type, U>;

// A value read as uint64_t: integers, enums and pointers (as their address).
template <class T>
uint64_t as_u64(const T& v) {
  if constexpr (std::is_integral_v<T> || std::is_enum_v<T>) {
    return static_cast<uint64_t>(v);
  } else if constexpr (std::is_pointer_v<T>) {
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(v));
  } else {
    return 0;
  }
}

// The value of a detected field (0 when absent or not a number).
#define SPSQ_SRC_GET(obj, f)                                                              \
  ([&]() -> uint64_t {                                                                    \
    const auto* p_ = ::spsq_conf::src::field_ptr_##f(obj);                                \
    if constexpr (std::is_same_v<std::remove_cv_t<std::remove_pointer_t<decltype(p_)>>,  \
                                 ::spsq_conf::src::Missing>) {                            \
      return 0;                                                                           \
    } else {                                                                              \
      return ::spsq_conf::src::as_u64(*p_);                                               \
    }                                                                                     \
  }())

// The address a payload view's `local_addr` names, integer or pointer.
template <class View>
uint8_t* view_addr(const View& v) {
  if constexpr (Field_local_addr<View>::present) {
    return reinterpret_cast<uint8_t*>(static_cast<uintptr_t>(as_u64(v.local_addr)));
  } else {
    return nullptr;
  }
}
// The address of `x.payload.local_addr` (handle or reservation).
template <class T>
uint8_t* payload_addr(const T& x) {
  if constexpr (Field_payload<T>::present) {
    return view_addr(x.payload);
  } else {
    return nullptr;
  }
}
template <class T>
uint64_t payload_view_nbytes(const T& x) {
  if constexpr (Field_payload<T>::present) {
    return SPSQ_SRC_GET(x.payload, nbytes);
  } else {
    return 0;
  }
}

// Expectation helpers: `line` is the clause and the contract line at stake.
inline void Expect(bool ok, const char* line, const std::string& fact) {
  EXPECT_TRUE(ok) << line << "\n  not met: " << fact;
}
inline void ExpectField(bool present, bool typed, const char* line, const std::string& member,
                        const char* want) {
  EXPECT_TRUE(present) << line << "\n  missing: data member " << member << " (" << want << ")";
  if (present) {
    EXPECT_TRUE(typed) << line << "\n  mistyped: " << member << " is not " << want;
  }
}

#define SPSQ_SRC_EXPECT_FIELD(T, tname, f, Want, wname)                                   \
  ::spsq_conf::src::ExpectField(                                                          \
      ::spsq_conf::src::Field_##f<T>::present,                                            \
      std::is_same_v<::spsq_conf::src::FieldType_##f<T>, Want>, kLine, tname "::" #f, wname)

#define SPSQ_SRC_EXPECT_ENUMERATOR(E, ename, n, want)                                     \
  do {                                                                                    \
    EXPECT_TRUE(::spsq_conf::src::Enumerator_##n<E>::present)                             \
        << kLine << "\n  missing: enumerator " ename "::" #n;                             \
    if (::spsq_conf::src::Enumerator_##n<E>::present) {                                   \
      EXPECT_EQ(::spsq_conf::src::Enumerator_##n<E>::value, uint64_t{want})               \
          << kLine << "\n  mistyped: " ename "::" #n " is not " #want;                    \
    }                                                                                     \
  } while (0)

#define SPSQ_SRC_EXPECT_SCOPED_ENUM(E, ename, U, uname)                                   \
  do {                                                                                    \
    EXPECT_TRUE(::spsq_conf::src::kPresent<E>) << kLine << "\n  missing: " ename;          \
    if (::spsq_conf::src::kPresent<E>) {                                                  \
      EXPECT_TRUE((::spsq_conf::src::kScopedEnumOf<E, U>))                                \
          << kLine << "\n  mistyped: " ename " is not `enum class " ename " : " uname "`"; \
    }                                                                                     \
  } while (0)

#define SPSQ_SRC_EXPECT_TYPE(T, tname)                                                    \
  EXPECT_TRUE(::spsq_conf::src::kPresent<T>) << kLine << "\n  missing: type " tname

}  // namespace src
}  // namespace spsq_conf

// ------------------------------------------------------------ names of spsc_queue

namespace spsc_queue {
namespace spsq_src_probe {

// The stand-ins appear as if declared in the global namespace: any
// declaration of spsc_queue itself is found first.
using namespace ::spsq_src_missing::q;  // NOLINT(google-build-using-namespace)

using Missing = ::spsq_src_missing::Missing;
template <class T>
using Tag = ::spsq_src_missing::ProbeTag<T>;

// What the runtime's type names resolve to: the implementation's, or Missing.
using Opcode = SpscQueueOpcode;
using ErrorKind = SpscQueueErrorKind;
using Op = SpscQueueOp;
using Descriptor = SpscQueueDescriptor;
using Layout = SpscQueueLayout;
using Binding = SpscQueueEndpointBinding;
using PayloadView = SpscQueuePayloadView;
using InputHandle = SpscQueueInputHandle;
using OutputReservation = SpscQueueOutputReservation;
using Error = SpscQueueError;
using Clock = MonotonicClock;

// ---- constants

struct ConstantFact {
  const char* name;
  const char* want_type;
  bool present;
  bool typed;
  uint64_t value;
  uint64_t want;
};

template <class Want, class T>
ConstantFact constant_fact(const char* name, const char* want_type, const T& v, uint64_t want) {
  ConstantFact f{name, want_type, !std::is_same_v<T, Missing>, std::is_same_v<T, Want>, 0, want};
  if constexpr (std::is_integral_v<T> || std::is_enum_v<T>) f.value = static_cast<uint64_t>(v);
  return f;
}

inline std::vector<ConstantFact> constant_facts() {
  return {
      constant_fact<uint32_t>("kSpscQueueMagic", "uint32_t", kSpscQueueMagic, 0x53505351u),
      constant_fact<uint16_t>("kSpscQueueAbiMajor", "uint16_t", kSpscQueueAbiMajor, 1),
      constant_fact<uint16_t>("kSpscQueueAbiMinor", "uint16_t", kSpscQueueAbiMinor, 0),
      constant_fact<uint64_t>("kSpscQueueMagicVersion", "uint64_t", kSpscQueueMagicVersion,
                              0x5350535100010000ull),
      constant_fact<size_t>("kSpscQueueEndpointBindingScalarCount", "size_t",
                            kSpscQueueEndpointBindingScalarCount, 10),
      constant_fact<uint64_t>("kDescriptorBytes", "uint64_t", kDescriptorBytes, 32),
      constant_fact<uint64_t>("kArenaAlignment", "uint64_t", kArenaAlignment, 64),
      constant_fact<uint64_t>("kDescriptorRingAlignment", "uint64_t", kDescriptorRingAlignment, 8),
      constant_fact<uint64_t>("kCounterStride", "uint64_t", kCounterStride, 64),
      constant_fact<uint64_t>("kCounterBytes", "uint64_t", kCounterBytes, 384),
      constant_fact<uint64_t>("kMaxDepth", "uint64_t", kMaxDepth, uint64_t{1} << 30),
      constant_fact<uint64_t>("kInputDescTailOffset", "uint64_t", kInputDescTailOffset, 0),
      constant_fact<uint64_t>("kInputDescHeadOffset", "uint64_t", kInputDescHeadOffset, 64),
      constant_fact<uint64_t>("kOutputDescTailOffset", "uint64_t", kOutputDescTailOffset, 128),
      constant_fact<uint64_t>("kOutputDescHeadOffset", "uint64_t", kOutputDescHeadOffset, 192),
      constant_fact<uint64_t>("kInitiatorAbortOffset", "uint64_t", kInitiatorAbortOffset, 256),
      constant_fact<uint64_t>("kPeerAbortOffset", "uint64_t", kPeerAbortOffset, 320),
  };
}

// ---- free functions

// Declared at all, whatever the signature (a missing name is a Missing
// object, the only thing callable with a Tag).
#define SPSQ_SRC_DECLARED(fn)                                                 \
  template <class T, class = void>                                           \
  struct Declared_##fn : std::true_type {};                                  \
  template <class T>                                                         \
  struct Declared_##fn<T, std::void_t<decltype((fn)(Tag<T>{}))>> : std::false_type {};

SPSQ_SRC_DECLARED(encode_endpoint_binding)
SPSQ_SRC_DECLARED(decode_endpoint_binding)
SPSQ_SRC_DECLARED(encode_descriptor)
SPSQ_SRC_DECLARED(decode_descriptor)
SPSQ_SRC_DECLARED(counter_low32)
SPSQ_SRC_DECLARED(reconstruct_counter)

// encode_endpoint_binding(const SpscQueueEndpointBinding&, uint64_t* out, size_t count)
template <class B, class = void>
struct EncodeBinding {
  static constexpr bool callable = false;
  using result = Missing;
};
template <class B>
struct EncodeBinding<B, std::void_t<decltype(encode_endpoint_binding(
                            std::declval<const B&>(), std::declval<uint64_t*>(),
                            std::declval<size_t>()))>> {
  static constexpr bool callable = true;
  using result = decltype(encode_endpoint_binding(std::declval<const B&>(),
                                                  std::declval<uint64_t*>(),
                                                  std::declval<size_t>()));
};
template <class B, class R, class = void>
struct EncodeBindingExact : std::false_type {};
template <class B, class R>
struct EncodeBindingExact<B, R,
                          std::void_t<decltype(static_cast<R (*)(const B&, uint64_t*, size_t)>(
                              &encode_endpoint_binding))>> : std::true_type {};

// decode_endpoint_binding(const uint64_t*, size_t, SpscQueueEndpointBinding*)
template <class B, class = void>
struct DecodeBinding {
  static constexpr bool callable = false;
  using result = Missing;
};
template <class B>
struct DecodeBinding<B, std::void_t<decltype(decode_endpoint_binding(
                            std::declval<const uint64_t*>(), std::declval<size_t>(),
                            std::declval<B*>()))>> {
  static constexpr bool callable = true;
  using result = decltype(decode_endpoint_binding(std::declval<const uint64_t*>(),
                                                  std::declval<size_t>(), std::declval<B*>()));
};
template <class B, class R, class = void>
struct DecodeBindingExact : std::false_type {};
template <class B, class R>
struct DecodeBindingExact<B, R,
                          std::void_t<decltype(static_cast<R (*)(const uint64_t*, size_t, B*)>(
                              &decode_endpoint_binding))>> : std::true_type {};

template <class B>
inline constexpr bool kEncodeOk =
    EncodeBinding<B>::callable &&
    std::is_convertible_v<typename EncodeBinding<B>::result, bool> &&
    EncodeBindingExact<B, typename EncodeBinding<B>::result>::value;
template <class B>
inline constexpr bool kDecodeOk =
    DecodeBinding<B>::callable &&
    std::is_convertible_v<typename DecodeBinding<B>::result, bool> &&
    DecodeBindingExact<B, typename DecodeBinding<B>::result>::value;

template <class B>
bool encode_binding(const B& b, uint64_t* out, size_t count) {
  if constexpr (kEncodeOk<B>) {
    return static_cast<bool>(encode_endpoint_binding(b, out, count));
  } else {
    return false;
  }
}
template <class B>
bool decode_binding(const uint64_t* s, size_t count, B* out) {
  if constexpr (kDecodeOk<B>) {
    return static_cast<bool>(decode_endpoint_binding(s, count, out));
  } else {
    return false;
  }
}

// encode_descriptor / decode_descriptor: the contract gives the names and the
// 32-byte little-endian form, not the signatures. When they take the natural
// (descriptor, bytes) / (bytes[, descriptor*]) shapes, the bytes are checked.
template <class D, class = void>
struct EncodeDescriptor : std::false_type {};
template <class D>
struct EncodeDescriptor<D, std::void_t<decltype(encode_descriptor(std::declval<const D&>(),
                                                                  std::declval<uint8_t*>()))>>
    : std::true_type {};
template <class D, class = void>
struct DecodeDescriptorOut : std::false_type {};
template <class D>
struct DecodeDescriptorOut<D, std::void_t<decltype(decode_descriptor(std::declval<const uint8_t*>(),
                                                                     std::declval<D*>()))>>
    : std::true_type {};
// A type spelled so that it depends on D (keeps a call's checking to substitution).
template <class D, class T>
using DependentOn = std::conditional_t<true, T, D>;
template <class D, class = void>
struct DecodeDescriptorRet : std::false_type {};
template <class D>
struct DecodeDescriptorRet<
    D, std::enable_if_t<std::is_same_v<
           std::decay_t<decltype(decode_descriptor(
               std::declval<DependentOn<D, const uint8_t*>>()))>,
           D>>> : std::true_type {};

template <class D>
bool encode_descriptor_bytes(const D& d, uint8_t* out) {
  if constexpr (EncodeDescriptor<D>::value) {
    encode_descriptor(d, out);
    return true;
  } else {
    return false;
  }
}
template <class D>
bool decode_descriptor_bytes(const uint8_t* in, D* out) {
  if constexpr (DecodeDescriptorOut<D>::value) {
    decode_descriptor(in, out);
    return true;
  } else if constexpr (DecodeDescriptorRet<D>::value) {
    *out = decode_descriptor(static_cast<DependentOn<D, const uint8_t*>>(in));
    return true;
  } else {
    return false;
  }
}

// counter_low32: int32(uint32(v)) of a 64-bit count, when it takes one.
template <class U, class = void>
struct CounterLow32 : std::false_type {};
template <class U>
struct CounterLow32<U, std::void_t<decltype(counter_low32(std::declval<U>()))>>
    : std::true_type {};
template <class U>
int64_t low32_of(U v) {
  if constexpr (CounterLow32<U>::value) {
    return static_cast<int64_t>(counter_low32(v));
  } else {
    return -1;
  }
}

}  // namespace spsq_src_probe
}  // namespace spsc_queue

// ------------------------------------------------------------ the tests

namespace spsq_conf {
namespace {

namespace P = ::spsc_queue::spsq_src_probe;
using src::kPresent;
using src::Missing;

// Global-namespace names: the implementation's, or Missing.
using RSpan = ::RegionPartLocalSpan;
using RNotifyOp = ::RegionNotifyOp;
using RWaitCmp = ::RegionWaitCmp;
using RPayloadView = ::RegionPayloadView;
using RTestResult = ::RegionSignalTestResult;
using RViewError = ::RegionViewError;
using RViewErrorKind = ::RegionViewErrorKind;
using RViewOp = ::RegionViewOp;
using RView = ::RegionInstanceView;

#define SPSQ_SRC_SKIP_IF_ADAPTER()                                                   \
  if (SPSQ_CERT_HAS_ADAPTER)                                                         \
  GTEST_SKIP() << "not applicable: the endpoint uses its own names through an adapter " \
                  "(certification " SPSQ_CERT_NAME "); W.SRC.* judge the runtime's names"

using Types = EndpointTypes<TypedEndpoint>;
using Input = typename Types::Input;
using Output = typename Types::Output;

// ---- member signatures of the directions (exact, bool results)
template <class In, class H, class = void>
struct PeekExact : std::false_type {};
template <class In, class H>
struct PeekExact<In, H, std::void_t<decltype(static_cast<bool (In::*)(uint64_t, H&)>(&In::peek))>>
    : std::true_type {};
template <class In, class H, class = void>
struct TryPeekExact : std::false_type {};
template <class In, class H>
struct TryPeekExact<In, H, std::void_t<decltype(static_cast<bool (In::*)(H&)>(&In::try_peek))>>
    : std::true_type {};
template <class In, class H, class = void>
struct ReleaseExact : std::false_type {};
template <class In, class H>
struct ReleaseExact<In, H,
                    std::void_t<decltype(static_cast<bool (In::*)(const H&)>(&In::release))>>
    : std::true_type {};
template <class In, class = void>
struct DrainedExact : std::false_type {};
template <class In>
struct DrainedExact<In, std::void_t<decltype(static_cast<bool (In::*)() const>(&In::drained))>>
    : std::true_type {};
template <class Out, class R, class = void>
struct ReserveExact : std::false_type {};
template <class Out, class R>
struct ReserveExact<
    Out, R,
    std::void_t<decltype(static_cast<bool (Out::*)(uint64_t, uint64_t, R&)>(&Out::reserve))>>
    : std::true_type {};
template <class Out, class R, class = void>
struct TryReserveExact : std::false_type {};
template <class Out, class R>
struct TryReserveExact<
    Out, R, std::void_t<decltype(static_cast<bool (Out::*)(uint64_t, R&)>(&Out::try_reserve))>>
    : std::true_type {};
template <class Out, class R, class O, class = void>
struct PublishExact : std::false_type {};
template <class Out, class R, class O>
struct PublishExact<
    Out, R, O, std::void_t<decltype(static_cast<bool (Out::*)(const R&, O)>(&Out::publish))>>
    : std::true_type {};

// ---- SpscQueueLayout::create(depth, in, out, SpscQueueLayout*) -> bool
template <class L, class = void>
struct CreateExact : std::false_type {};
template <class L>
struct CreateExact<
    L, std::void_t<decltype(static_cast<bool (*)(uint64_t, uint64_t, uint64_t, L*)>(&L::create))>>
    : std::true_type {};

template <class L>
bool layout_create(uint64_t depth, uint64_t in, uint64_t out, L* l) {
  if constexpr (CreateExact<L>::value) {
    return L::create(depth, in, out, l);
  } else {
    return false;
  }
}

// The fifteen layout fields, by name (0 when absent).
template <class L>
std::array<uint64_t, 15> layout_values(const L& l) {
  return {SPSQ_SRC_GET(l, depth),
          SPSQ_SRC_GET(l, input_arena_bytes),
          SPSQ_SRC_GET(l, output_arena_bytes),
          SPSQ_SRC_GET(l, input_desc_offset),
          SPSQ_SRC_GET(l, output_desc_offset),
          SPSQ_SRC_GET(l, input_arena_offset),
          SPSQ_SRC_GET(l, output_arena_offset),
          SPSQ_SRC_GET(l, payload_bytes),
          SPSQ_SRC_GET(l, input_desc_tail_offset),
          SPSQ_SRC_GET(l, input_desc_head_offset),
          SPSQ_SRC_GET(l, output_desc_tail_offset),
          SPSQ_SRC_GET(l, output_desc_head_offset),
          SPSQ_SRC_GET(l, initiator_abort_offset),
          SPSQ_SRC_GET(l, peer_abort_offset),
          SPSQ_SRC_GET(l, counter_bytes)};
}
const char* const kLayoutFieldNames[15] = {
    "depth",
    "input_arena_bytes",
    "output_arena_bytes",
    "input_desc_offset",
    "output_desc_offset",
    "input_arena_offset",
    "output_arena_offset",
    "payload_bytes",
    "input_desc_tail_offset",
    "input_desc_head_offset",
    "output_desc_tail_offset",
    "output_desc_head_offset",
    "initiator_abort_offset",
    "peer_abort_offset",
    "counter_bytes"};

// Every layout field set to a marker value (to see a refused create write).
template <class L>
void fill_layout(L* l) {
#define SPSQ_SRC_MARK(f, v) \
  if constexpr (src::Field_##f<L>::present) l->f = 0xA5A5000000000000ull + (v)
  SPSQ_SRC_MARK(depth, 1);
  SPSQ_SRC_MARK(input_arena_bytes, 2);
  SPSQ_SRC_MARK(output_arena_bytes, 3);
  SPSQ_SRC_MARK(input_desc_offset, 4);
  SPSQ_SRC_MARK(output_desc_offset, 5);
  SPSQ_SRC_MARK(input_arena_offset, 6);
  SPSQ_SRC_MARK(output_arena_offset, 7);
  SPSQ_SRC_MARK(payload_bytes, 8);
  SPSQ_SRC_MARK(input_desc_tail_offset, 9);
  SPSQ_SRC_MARK(input_desc_head_offset, 10);
  SPSQ_SRC_MARK(output_desc_tail_offset, 11);
  SPSQ_SRC_MARK(output_desc_head_offset, 12);
  SPSQ_SRC_MARK(initiator_abort_offset, 13);
  SPSQ_SRC_MARK(peer_abort_offset, 14);
  SPSQ_SRC_MARK(counter_bytes, 15);
#undef SPSQ_SRC_MARK
}

// The contract's layout for (depth, in, out), in layout_values order.
std::array<uint64_t, 15> contract_layout(uint64_t depth, uint64_t in, uint64_t out) {
  const uint64_t ring = depth * 32;
  const uint64_t in_arena = (2 * ring + 63) / 64 * 64;
  const uint64_t out_arena = (in_arena + in + 63) / 64 * 64;
  return {depth, in, out, 0, ring, in_arena, out_arena, out_arena + out,
          0,     64, 128, 192, 256, 320, 384};
}

// ---- binding fields in binding order
template <class B>
void set_binding(B* b, const uint64_t (&v)[10]) {
  if constexpr (src::Field_magic_version<B>::present) b->magic_version = v[0];
  if constexpr (src::Field_session_instance_id_bits<B>::present) b->session_instance_id_bits = v[1];
  if constexpr (src::Field_transaction_id<B>::present) b->transaction_id = v[2];
  if constexpr (src::Field_payload_base<B>::present) b->payload_base = v[3];
  if constexpr (src::Field_payload_bytes<B>::present) b->payload_bytes = v[4];
  if constexpr (src::Field_counter_base<B>::present) b->counter_base = v[5];
  if constexpr (src::Field_counter_bytes<B>::present) b->counter_bytes = v[6];
  if constexpr (src::Field_depth<B>::present) b->depth = v[7];
  if constexpr (src::Field_input_arena_bytes<B>::present) b->input_arena_bytes = v[8];
  if constexpr (src::Field_output_arena_bytes<B>::present) b->output_arena_bytes = v[9];
}
template <class B>
std::array<uint64_t, 10> binding_values(const B& b) {
  return {SPSQ_SRC_GET(b, magic_version),     SPSQ_SRC_GET(b, session_instance_id_bits),
          SPSQ_SRC_GET(b, transaction_id),    SPSQ_SRC_GET(b, payload_base),
          SPSQ_SRC_GET(b, payload_bytes),     SPSQ_SRC_GET(b, counter_base),
          SPSQ_SRC_GET(b, counter_bytes),     SPSQ_SRC_GET(b, depth),
          SPSQ_SRC_GET(b, input_arena_bytes), SPSQ_SRC_GET(b, output_arena_bytes)};
}
// Byte offsets of the ten fields in the struct (-1 when absent).
template <class B>
std::array<int64_t, 10> binding_offsets(const B& b) {
  auto at = [&](const void* p) -> int64_t {
    return p == nullptr ? -1
                        : static_cast<int64_t>(static_cast<const char*>(p) -
                                               reinterpret_cast<const char*>(&b));
  };
  return {at(src::field_ptr_magic_version(b)),     at(src::field_ptr_session_instance_id_bits(b)),
          at(src::field_ptr_transaction_id(b)),    at(src::field_ptr_payload_base(b)),
          at(src::field_ptr_payload_bytes(b)),     at(src::field_ptr_counter_base(b)),
          at(src::field_ptr_counter_bytes(b)),     at(src::field_ptr_depth(b)),
          at(src::field_ptr_input_arena_bytes(b)), at(src::field_ptr_output_arena_bytes(b))};
}
const char* const kBindingFieldNames[10] = {
    "magic_version", "session_instance_id_bits", "transaction_id", "payload_base",
    "payload_bytes", "counter_base",             "counter_bytes",  "depth",
    "input_arena_bytes", "output_arena_bytes"};

// ---- enum values by name, where the enum and the enumerator exist
template <class O>
O opcode_named_data() {
  if constexpr (src::Enumerator_DATA<O>::present) {
    return O::DATA;
  } else {
    return static_cast<O>(wire::kData);
  }
}

// ---- the implementation's RegionInstanceView over host memory

// Page-aligned payload and counter parts.
class HostParts {
 public:
  HostParts(uint64_t payload_bytes, uint64_t counter_bytes)
      : payload_bytes_(payload_bytes),
        counter_bytes_(counter_bytes),
        raw_(payload_bytes + counter_bytes + 3 * kPage, 0) {
    const uintptr_t p = reinterpret_cast<uintptr_t>(raw_.data());
    payload_ = reinterpret_cast<uint8_t*>((p + kPage - 1) / kPage * kPage);
    counter_ = payload_ + (payload_bytes + kPage - 1) / kPage * kPage + kPage;
  }
  uint8_t* payload() { return payload_; }
  uint8_t* counter() { return counter_; }
  uint64_t payload_bytes() const { return payload_bytes_; }
  uint64_t counter_bytes() const { return counter_bytes_; }

 private:
  static constexpr uintptr_t kPage = 4096;
  uint64_t payload_bytes_;
  uint64_t counter_bytes_;
  std::vector<uint8_t> raw_;
  uint8_t* payload_ = nullptr;
  uint8_t* counter_ = nullptr;
};

template <class S>
S make_span(const uint8_t* base, uint64_t bytes) {
  S s{};
  if constexpr (src::Field_base<S>::present && src::Field_logical_bytes<S>::present) {
    s.base = static_cast<decltype(s.base)>(reinterpret_cast<uintptr_t>(base));
    s.logical_bytes = bytes;
  }
  return s;
}

// The out structs an L2 endpoint may bring: its own, with an integer address
// (as the runtime's SpscQueuePayloadView) or a pointer.
struct UserIntSpan {
  uint64_t local_addr;
  uint64_t nbytes;
};
struct UserPtrSpan {
  const uint8_t* local_addr;
  uint64_t nbytes;
};
struct UserSample {
  bool matched;
  int32_t observed;
};

template <class V, class S>
inline constexpr bool kViewConstructible =
    kPresent<V> && kPresent<S> && std::is_constructible_v<V, S, S>;

template <class V, class Out, class = void>
struct ViewReads : std::false_type {};
template <class V, class Out>
struct ViewReads<V, Out,
                 std::void_t<decltype(static_cast<bool>(std::declval<V&>().payload().read(
                     uint64_t{}, uint64_t{}, std::declval<Out&>())))>> : std::true_type {};

template <class V, class Cmp, class Out, class = void>
struct ViewTests : std::false_type {};
template <class V, class Cmp, class Out>
struct ViewTests<V, Cmp, Out,
                 std::void_t<decltype(static_cast<bool>(std::declval<V&>().counter().test(
                     uint64_t{}, int32_t{}, std::declval<Cmp>(), std::declval<Out&>())))>>
    : std::true_type {};

template <class V, class = void>
struct ViewErrorType {
  using type = Missing;
};
template <class V>
struct ViewErrorType<V, std::void_t<decltype(std::declval<const V&>().error())>> {
  using type = std::decay_t<decltype(std::declval<const V&>().error())>;
};

// What the implementation's view did with user out structs and a bad read.
struct ViewRun {
  bool built = false;
  bool read_int_ok = false;    // read into UserIntSpan returned true, address right
  bool test_ok = false;        // test into UserSample: matched/observed right
  bool oob_refused = false;    // out-of-range read returned false
  uint64_t oob_kind = 0;
  uint64_t oob_op = 0;
  bool oob_message = false;
};

template <class V, class S, class Cmp>
ViewRun run_view() {
  ViewRun run;
  if constexpr (kViewConstructible<V, S>) {
    HostParts parts(4096, 384);
    V view(make_span<S>(parts.payload(), parts.payload_bytes()),
           make_span<S>(parts.counter(), parts.counter_bytes()));
    run.built = true;
    if constexpr (ViewReads<V, UserIntSpan>::value) {
      UserIntSpan out{0, 0};
      run.read_int_ok = view.payload().read(64, 128, out) &&
                        out.local_addr == reinterpret_cast<uintptr_t>(parts.payload() + 64) &&
                        out.nbytes == 128;
    }
    if constexpr (ViewTests<V, Cmp, UserSample>::value && src::Enumerator_EQ<Cmp>::present) {
      const int32_t seven = 7;  // as the peer's Set would leave it
      const uint8_t* le = reinterpret_cast<const uint8_t*>(&seven);
      for (int i = 0; i < 4; ++i) parts.counter()[128 + i] = le[i];
      UserSample hit{false, 0};
      UserSample miss{true, 0};
      run.test_ok = view.counter().test(128, 7, Cmp::EQ, hit) && hit.matched &&
                    hit.observed == 7 && view.counter().test(128, 8, Cmp::EQ, miss) &&
                    !miss.matched && miss.observed == 7;
    }
    if constexpr (ViewReads<V, UserIntSpan>::value) {
      UserIntSpan out{0, 0};
      run.oob_refused = !view.payload().read(parts.payload_bytes() - 8, 64, out);
      using E = typename ViewErrorType<V>::type;
      if constexpr (kPresent<E>) {
        const E& e = view.error();
        run.oob_kind = SPSQ_SRC_GET(e, kind);
        run.oob_op = SPSQ_SRC_GET(e, op);
        if constexpr (src::Field_message<E>::present) run.oob_message = e.message[0] != '\0';
      }
    }
  }
  return run;
}

// ---- a RegionView that forwards to the harness view and notes what the
// endpoint passes to read (W.SRC.16)
struct ProbeRecord {
  int reads = 0;
  int reads_into_spsc_payload_view = 0;    // spsc_queue::SpscQueuePayloadView
  int reads_into_region_payload_view = 0;  // ::RegionPayloadView
};

class ProbeView {
 public:
  ProbeView(HarnessView inner, ProbeRecord* record) : inner_(inner), record_(record) {}
  bool failed() const { return inner_.failed(); }
  const HarnessViewError& error() const { return inner_.error(); }

  class Payload {
   public:
    Payload(HarnessView::Payload p, ProbeRecord* r) : p_(p), r_(r) {}
    HarnessSpan span() const { return p_.span(); }
    template <class Out>
    bool read(uint64_t offset, uint64_t nbytes, Out& out) {
      ++r_->reads;
      if (std::is_same_v<Out, P::PayloadView> && kPresent<P::PayloadView>) {
        ++r_->reads_into_spsc_payload_view;
      }
      if (std::is_same_v<Out, RPayloadView> && kPresent<RPayloadView>) {
        ++r_->reads_into_region_payload_view;
      }
      return p_.read(offset, nbytes, out);
    }
    bool write(uint64_t offset, const void* src, uint64_t nbytes) {
      return p_.write(offset, src, nbytes);
    }

   private:
    HarnessView::Payload p_;
    ProbeRecord* r_;
  };

  class Counter {
   public:
    explicit Counter(HarnessView::Counter c) : c_(c) {}
    HarnessSpan span() const { return c_.span(); }
    template <class Op>
    bool notify(uint64_t offset, int32_t value, Op op) {
      return c_.notify(offset, value, op);
    }
    template <class Cmp, class Sample>
    bool test(uint64_t offset, int32_t cmp_value, Cmp cmp, Sample& sample) {
      return c_.test(offset, cmp_value, cmp, sample);
    }
    template <class Cmp>
    bool wait(uint64_t offset, int32_t cmp_value, Cmp cmp, uint64_t timeout_ns,
              int32_t& observed) {
      return c_.wait(offset, cmp_value, cmp, timeout_ns, observed);
    }

   private:
    HarnessView::Counter c_;
  };

  Payload payload() { return Payload(inner_.payload(), record_); }
  Counter counter() { return Counter(inner_.counter()); }

 private:
  HarnessView inner_;
  ProbeRecord* record_;
};

// ---- runtime reads by the contract's names (templates: a missing name only
// discards a branch)

// W.SRC.6: the handle's payload view, cast as L2 code does.
template <class H, class V>
void CheckIntegerPayloadAddress(const H& h, const uint8_t* want,
                                const std::vector<uint8_t>& bytes, const char* kLine) {
  if constexpr (kPresent<V> && std::is_same_v<src::FieldType_payload<H>, V> &&
                std::is_same_v<src::FieldType_local_addr<V>, uint64_t> &&
                src::Field_nbytes<V>::present) {
    const uint64_t addr = h.payload.local_addr;
    const uint8_t* p = reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(addr));
    EXPECT_EQ(p, want) << kLine << "\n  handle.payload.local_addr is not the input payload's "
                                    "address";
    EXPECT_EQ(src::as_u64(h.payload.nbytes), bytes.size()) << kLine << "\n  handle.payload.nbytes";
    if (p == want) {
      EXPECT_EQ(std::vector<uint8_t>(p, p + bytes.size()), bytes)
          << kLine << "\n  bytes at the cast local_addr";
    }
  } else {
    src::Expect(false, kLine,
                "SpscQueueInputHandle::payload is a SpscQueuePayloadView whose local_addr is a "
                "uint64_t");
  }
}

// W.SRC.7: handle.opcode == SpscQueueOpcode::DATA, when both names exist.
template <class H, class O>
bool opcode_is_data(const H& h) {
  if constexpr (src::Enumerator_DATA<O>::present &&
                std::is_same_v<src::FieldType_opcode<H>, O>) {
    return h.opcode == O::DATA;
  } else {
    return false;
  }
}

// W.SRC.9: a copy of a real handle that the endpoint never handed out.
template <class H>
H forge(const H& h) {
  H f = h;
  if constexpr (src::Field_seq<H>::present) f.seq = h.seq + 5;
  if constexpr (src::Field_owner_cookie<H>::present) f.owner_cookie = h.owner_cookie + 1;
  return f;
}

struct ErrorRead {
  bool kind_named = false;     // kind is a SpscQueueErrorKind with NONE
  bool kind_not_none = false;
  bool op_named = false;       // op is a SpscQueueOp with INPUT_RELEASE
  bool op_is_release = false;
  uint64_t op = 0;
  uint64_t session = 0;
  uint64_t transaction = 0;
  bool message_typed = false;  // char[256]
  bool message_nonempty = false;
  bool message_terminated = false;
};

template <class E, class K, class O>
ErrorRead read_error(const E& e) {
  ErrorRead r;
  if constexpr (src::Enumerator_NONE<K>::present && std::is_same_v<src::FieldType_kind<E>, K>) {
    r.kind_named = true;
    r.kind_not_none = e.kind != K::NONE;
  }
  if constexpr (src::Enumerator_INPUT_RELEASE<O>::present &&
                std::is_same_v<src::FieldType_op<E>, O>) {
    r.op_named = true;
    r.op_is_release = e.op == O::INPUT_RELEASE;
  }
  r.op = SPSQ_SRC_GET(e, op);
  r.session = SPSQ_SRC_GET(e, session_instance_id_bits);
  r.transaction = SPSQ_SRC_GET(e, transaction_id);
  if constexpr (std::is_same_v<src::FieldType_message<E>, char[256]>) {
    r.message_typed = true;
    r.message_nonempty = e.message[0] != '\0';
    for (char c : e.message) r.message_terminated = r.message_terminated || c == '\0';
  }
  return r;
}

// W.SRC.10: encode_descriptor / decode_descriptor against the harness's own
// little-endian codec, where they take the natural shapes.
template <class D>
void CheckDescriptorCodec(const char* kLine) {
  if constexpr (kPresent<D> && src::Field_seq<D>::present && src::Field_opcode<D>::present &&
                src::Field_payload_offset<D>::present && src::Field_payload_nbytes<D>::present &&
                std::is_default_constructible_v<D>) {
    D d{};
    d.seq = 0x0102030405060708ull;
    d.opcode = 1;
    d.payload_offset = 0x1122;
    d.payload_nbytes = 0x33;
    uint8_t bytes[40];
    for (uint8_t& b : bytes) b = 0xEE;
    const bool encoded = P::encode_descriptor_bytes(d, bytes);
    record_observation("src.encode_descriptor_shape",
                       encoded ? "encode_descriptor(const SpscQueueDescriptor&, uint8_t*)"
                               : "another shape (not exercised)");
    if (encoded) {
      const wire::Descriptor w = wire::decode_descriptor(bytes);
      EXPECT_EQ(w.seq, 0x0102030405060708ull) << kLine << "\n  encode_descriptor: seq LE at 0";
      EXPECT_EQ(w.opcode, 1u) << kLine << "\n  encode_descriptor: opcode LE at 8";
      EXPECT_EQ(w.offset, 0x1122u) << kLine << "\n  encode_descriptor: payload_offset LE at 16";
      EXPECT_EQ(w.nbytes, 0x33u) << kLine << "\n  encode_descriptor: payload_nbytes LE at 24";
      EXPECT_EQ(bytes[32], 0xEE) << kLine << "\n  encode_descriptor wrote past 32 bytes";
    }
    uint8_t raw[32];
    wire::encode_descriptor(wire::Descriptor{9, 3, 0x4400, 0x55}, raw);
    D back{};
    const bool decoded = P::decode_descriptor_bytes(raw, &back);
    record_observation("src.decode_descriptor_shape",
                       decoded ? "decode_descriptor(const uint8_t*[, SpscQueueDescriptor*])"
                               : "another shape (not exercised)");
    if (decoded) {
      EXPECT_EQ(src::as_u64(back.seq), 9u) << kLine << "\n  decode_descriptor: seq";
      EXPECT_EQ(src::as_u64(back.opcode), 3u) << kLine << "\n  decode_descriptor: opcode";
      EXPECT_EQ(src::as_u64(back.payload_offset), 0x4400u)
          << kLine << "\n  decode_descriptor: payload_offset";
      EXPECT_EQ(src::as_u64(back.payload_nbytes), 0x55u)
          << kLine << "\n  decode_descriptor: payload_nbytes";
    }
  }
}

class SourceCompat : public L2TypedTest {
 protected:
  // A DATA input published by the scripted L3 and acquired by the endpoint.
  bool AcquireInput(const std::vector<uint8_t>& bytes, Handle* h) {
    if (peer().enqueue_data(bytes) != ScriptedL3::Enqueue::kOk) {
      ADD_FAILURE() << "the scripted L3 could not publish an input";
      return false;
    }
    return try_peek(*h);
  }
};

// ================================================================ W.SRC.1

TEST_F(SourceCompat, Constants) {
  SPSQ_CLAUSES("W.SRC.1/magic", "W.SRC.1/abi-major", "W.SRC.1/abi-minor", "W.SRC.1/magic-version",
               "W.SRC.1/scalar-count", "W.SRC.1/descriptor-bytes", "W.SRC.1/arena-alignment",
               "W.SRC.1/ring-alignment", "W.SRC.1/counter-stride", "W.SRC.1/counter-bytes",
               "W.SRC.1/max-depth", "W.SRC.1/input-tail", "W.SRC.1/input-head",
               "W.SRC.1/output-tail", "W.SRC.1/output-head", "W.SRC.1/initiator-abort",
               "W.SRC.1/peer-abort");
  SPSQ_SRC_SKIP_IF_ADAPTER();
  const char* kLine =
      "W.SRC.1: namespace spsc_queue (common/region_template.h): constants kSpscQueueMagic "
      "(uint32), kSpscQueueAbiMajor, kSpscQueueAbiMinor (uint16), kSpscQueueMagicVersion, "
      "kSpscQueueEndpointBindingScalarCount (size_t, 10), kDescriptorBytes, kArenaAlignment, "
      "kDescriptorRingAlignment, kCounterStride, kCounterBytes, kMaxDepth, and the six signal "
      "offsets (every integer uint64_t unless said otherwise)";
  for (const P::ConstantFact& f : P::constant_facts()) {
    EXPECT_TRUE(f.present) << kLine << "\n  missing: spsc_queue::" << f.name;
    if (!f.present) continue;
    EXPECT_TRUE(f.typed) << kLine << "\n  mistyped: spsc_queue::" << f.name << " is not "
                         << f.want_type;
    EXPECT_EQ(f.value, f.want) << kLine << "\n  wrong value: spsc_queue::" << f.name
                               << " (the contract's Constants / Counters tables)";
  }
}

// ================================================================ W.SRC.2

TEST_F(SourceCompat, Enumerations) {
  SPSQ_CLAUSES("W.SRC.2/opcode", "W.SRC.2/error-kind", "W.SRC.2/op");
  SPSQ_SRC_SKIP_IF_ADAPTER();
  const char* kLine =
      "W.SRC.2: `enum class SpscQueueOpcode : uint64_t`; `enum class SpscQueueErrorKind : "
      "uint32_t`; `enum class SpscQueueOp : uint32_t` (values of the contract's Enumerations)";
  SPSQ_SRC_EXPECT_SCOPED_ENUM(P::Opcode, "SpscQueueOpcode", uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_ENUMERATOR(P::Opcode, "SpscQueueOpcode", INVALID, 0);
  SPSQ_SRC_EXPECT_ENUMERATOR(P::Opcode, "SpscQueueOpcode", DATA, 1);
  SPSQ_SRC_EXPECT_ENUMERATOR(P::Opcode, "SpscQueueOpcode", STOP, 2);
  SPSQ_SRC_EXPECT_ENUMERATOR(P::Opcode, "SpscQueueOpcode", ERROR, 3);
  SPSQ_SRC_EXPECT_SCOPED_ENUM(P::ErrorKind, "SpscQueueErrorKind", uint32_t, "uint32_t");
  SPSQ_SRC_EXPECT_ENUMERATOR(P::ErrorKind, "SpscQueueErrorKind", NONE, 0);
  SPSQ_SRC_EXPECT_ENUMERATOR(P::ErrorKind, "SpscQueueErrorKind", BAD_ARGUMENT, 1);
  SPSQ_SRC_EXPECT_ENUMERATOR(P::ErrorKind, "SpscQueueErrorKind", BAD_BINDING, 2);
  SPSQ_SRC_EXPECT_ENUMERATOR(P::ErrorKind, "SpscQueueErrorKind", INVALID_DESCRIPTOR, 3);
  SPSQ_SRC_EXPECT_ENUMERATOR(P::ErrorKind, "SpscQueueErrorKind", OWNERSHIP, 4);
  SPSQ_SRC_EXPECT_ENUMERATOR(P::ErrorKind, "SpscQueueErrorKind", REMOTE_ABORTED, 5);
  SPSQ_SRC_EXPECT_ENUMERATOR(P::ErrorKind, "SpscQueueErrorKind", ENDPOINT_ERROR, 6);
  SPSQ_SRC_EXPECT_SCOPED_ENUM(P::Op, "SpscQueueOp", uint32_t, "uint32_t");
  SPSQ_SRC_EXPECT_ENUMERATOR(P::Op, "SpscQueueOp", INIT, 1);
  SPSQ_SRC_EXPECT_ENUMERATOR(P::Op, "SpscQueueOp", TIMEOUT, 2);
  SPSQ_SRC_EXPECT_ENUMERATOR(P::Op, "SpscQueueOp", INPUT_TRY_PEEK, 3);
  SPSQ_SRC_EXPECT_ENUMERATOR(P::Op, "SpscQueueOp", INPUT_RELEASE, 4);
  SPSQ_SRC_EXPECT_ENUMERATOR(P::Op, "SpscQueueOp", OUTPUT_TRY_RESERVE, 5);
  SPSQ_SRC_EXPECT_ENUMERATOR(P::Op, "SpscQueueOp", OUTPUT_PUBLISH, 6);
}

// ================================================================ W.SRC.3

TEST_F(SourceCompat, Descriptor) {
  SPSQ_CLAUSES("W.SRC.3/seq", "W.SRC.3/opcode", "W.SRC.3/payload-offset", "W.SRC.3/payload-nbytes",
               "W.SRC.3/size");
  SPSQ_SRC_SKIP_IF_ADAPTER();
  const char* kLine =
      "W.SRC.3: `SpscQueueDescriptor { seq, opcode, payload_offset, payload_nbytes }` (all uint64)";
  SPSQ_SRC_EXPECT_TYPE(P::Descriptor, "spsc_queue::SpscQueueDescriptor");
  SPSQ_SRC_EXPECT_FIELD(P::Descriptor, "SpscQueueDescriptor", seq, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(P::Descriptor, "SpscQueueDescriptor", opcode, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(P::Descriptor, "SpscQueueDescriptor", payload_offset, uint64_t,
                        "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(P::Descriptor, "SpscQueueDescriptor", payload_nbytes, uint64_t,
                        "uint64_t");
  if constexpr (kPresent<P::Descriptor>) {
    src::Expect(sizeof(P::Descriptor) == 32, kLine,
                "sizeof(SpscQueueDescriptor) == 32 (the spec's struct of four uint64)");
  }
}

// ================================================================ W.SRC.4

TEST_F(SourceCompat, Layout) {
  SPSQ_CLAUSES("W.SRC.4/members", "W.SRC.4/create-signature", "W.SRC.4/golden", "W.SRC.4/refused",
               "W.SRC.4/endpoint-layout");
  SPSQ_SRC_SKIP_IF_ADAPTER();
  const char* kLine =
      "W.SRC.4: `SpscQueueLayout { depth, input_arena_bytes, output_arena_bytes, "
      "input_desc_offset, output_desc_offset, input_arena_offset, output_arena_offset, "
      "payload_bytes, input_desc_tail_offset, input_desc_head_offset, output_desc_tail_offset, "
      "output_desc_head_offset, initiator_abort_offset, peer_abort_offset, counter_bytes }` "
      "with `static bool create(depth, input_arena_bytes, output_arena_bytes, "
      "SpscQueueLayout* out)`";
  using L = P::Layout;
  SPSQ_SRC_EXPECT_TYPE(L, "spsc_queue::SpscQueueLayout");
  SPSQ_SRC_EXPECT_FIELD(L, "SpscQueueLayout", depth, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(L, "SpscQueueLayout", input_arena_bytes, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(L, "SpscQueueLayout", output_arena_bytes, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(L, "SpscQueueLayout", input_desc_offset, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(L, "SpscQueueLayout", output_desc_offset, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(L, "SpscQueueLayout", input_arena_offset, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(L, "SpscQueueLayout", output_arena_offset, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(L, "SpscQueueLayout", payload_bytes, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(L, "SpscQueueLayout", input_desc_tail_offset, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(L, "SpscQueueLayout", input_desc_head_offset, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(L, "SpscQueueLayout", output_desc_tail_offset, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(L, "SpscQueueLayout", output_desc_head_offset, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(L, "SpscQueueLayout", initiator_abort_offset, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(L, "SpscQueueLayout", peer_abort_offset, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(L, "SpscQueueLayout", counter_bytes, uint64_t, "uint64_t");
  src::Expect(CreateExact<L>::value, kLine,
              "`static bool SpscQueueLayout::create(uint64_t depth, uint64_t input_arena_bytes, "
              "uint64_t output_arena_bytes, SpscQueueLayout* out)`");
  using Returned = std::decay_t<decltype(std::declval<const Endpoint&>().layout())>;
  src::Expect(std::is_same_v<Returned, L> && kPresent<L>, kLine,
              "the endpoint's layout() returns a spsc_queue::SpscQueueLayout");
  if constexpr (CreateExact<L>::value) {
    // The golden vectors, every field by its name.
    const uint64_t golden[4][3] = {{1, 64, 64}, {4, 128, 192}, {8, 192, 64}, {2, 64, 128}};
    for (const auto& g : golden) {
      L l{};
      ASSERT_TRUE(layout_create(g[0], g[1], g[2], &l))
          << kLine << "\n  create(" << g[0] << ", " << g[1] << ", " << g[2] << ") refused";
      const auto got = layout_values(l);
      const auto want = contract_layout(g[0], g[1], g[2]);
      for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i], want[i]) << kLine << "\n  create(" << g[0] << ", " << g[1] << ", "
                                   << g[2] << ")." << kLayoutFieldNames[i];
      }
    }
    L untouched{};
    fill_layout(&untouched);
    const auto before = layout_values(untouched);
    EXPECT_FALSE(layout_create(3, 64, 64, &untouched)) << kLine << "\n  create(3, ...) accepted";
    EXPECT_EQ(layout_values(untouched), before) << kLine << "\n  a refused create wrote *out";
  }
  if constexpr (std::is_same_v<Returned, L> && kPresent<L>) {
    const auto got = layout_values(ep().layout());
    const auto want = contract_layout(layout().depth, layout().input_arena_bytes,
                                      layout().output_arena_bytes);
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i], want[i]) << kLine << "\n  endpoint layout()." << kLayoutFieldNames[i];
    }
  }
}

// The layout's own validation (the path an endpoint's construction and an L3
// queue's creation build on) refuses what the depth, arena and overflow rules
// refuse, including the values a weaker check accepts.
TEST_F(SourceCompat, LayoutCreateRefusesWhatTheRulesRefuse) {
  SPSQ_CLAUSES("S2.ARENA.3/weaker-multiple", "S2.DEPTH.2/non-pow2", "S2.DEPTH.2/over-max",
               "W.LAYOUT.1/overflow");
  SPSQ_SRC_SKIP_IF_ADAPTER();
  using L = P::Layout;
  if constexpr (!CreateExact<L>::value) {
    GTEST_SKIP() << "not applicable: no SpscQueueLayout::create (W.SRC.4 reports its absence)";
  } else {
    constexpr uint64_t kTop = ~uint64_t{0};
    const uint64_t bad[][3] = {
        // Arenas: multiples of 8 and of 32, under and over 64, either side.
        {4, 8, 64}, {4, 32, 64}, {4, 72, 64}, {4, 96, 64},
        {4, 64, 8}, {4, 64, 32}, {4, 64, 72}, {4, 64, 96},
        // Depths: not powers of two, and past 2^30.
        {3, 64, 64}, {6, 64, 64}, {(uint64_t{1} << 30) + (uint64_t{1} << 29), 64, 64},
        {uint64_t{1} << 31, 64, 64}, {uint64_t{1} << 32, 64, 64}, {uint64_t{1} << 63, 64, 64},
        {kTop, 64, 64},
        // Sums that wrap 2^64.
        {1, kTop - 63, 64}, {1, 64, kTop - 63}, {1, uint64_t{1} << 63, uint64_t{1} << 63}};
    for (const auto& b : bad) {
      L l{};
      EXPECT_FALSE(layout_create(b[0], b[1], b[2], &l))
          << "create(" << b[0] << ", " << b[1] << ", " << b[2] << ") accepted";
    }
  }
}

// ================================================================ W.SRC.5

TEST_F(SourceCompat, Binding) {
  SPSQ_CLAUSES("W.SRC.5/members", "W.SRC.5/order", "W.SRC.5/encode");
  SPSQ_SRC_SKIP_IF_ADAPTER();
  const char* kLine = "W.SRC.5: `SpscQueueEndpointBinding` with the ten fields in binding order";
  using B = P::Binding;
  SPSQ_SRC_EXPECT_TYPE(B, "spsc_queue::SpscQueueEndpointBinding");
  SPSQ_SRC_EXPECT_FIELD(B, "SpscQueueEndpointBinding", magic_version, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(B, "SpscQueueEndpointBinding", session_instance_id_bits, uint64_t,
                        "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(B, "SpscQueueEndpointBinding", transaction_id, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(B, "SpscQueueEndpointBinding", payload_base, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(B, "SpscQueueEndpointBinding", payload_bytes, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(B, "SpscQueueEndpointBinding", counter_base, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(B, "SpscQueueEndpointBinding", counter_bytes, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(B, "SpscQueueEndpointBinding", depth, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(B, "SpscQueueEndpointBinding", input_arena_bytes, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(B, "SpscQueueEndpointBinding", output_arena_bytes, uint64_t,
                        "uint64_t");
  if constexpr (kPresent<B> && std::is_default_constructible_v<B>) {
    // Declared in binding order: offsets strictly increase.
    const B b{};
    const auto off = binding_offsets(b);
    for (size_t i = 1; i < off.size(); ++i) {
      if (off[i - 1] < 0 || off[i] < 0) continue;  // reported as missing above
      EXPECT_LT(off[i - 1], off[i]) << kLine << "\n  " << kBindingFieldNames[i - 1]
                                    << " is not declared before " << kBindingFieldNames[i];
    }
    // encode_endpoint_binding writes scalar i from field i.
    if constexpr (P::kEncodeOk<B>) {
      const auto s = q().scalars();
      uint64_t v[10];
      for (size_t i = 0; i < 10; ++i) v[i] = s[i];
      B in{};
      set_binding(&in, v);
      uint64_t out[10] = {};
      ASSERT_TRUE(P::encode_binding(in, out, 10)) << kLine << "\n  encode refused a valid binding";
      for (size_t i = 0; i < 10; ++i) {
        EXPECT_EQ(out[i], s[i]) << kLine << "\n  scalar " << i << " is not field "
                                << kBindingFieldNames[i];
      }
    }
  }
}

// ================================================================ W.SRC.6

TEST_F(SourceCompat, PayloadViewHasAnIntegerAddress) {
  SPSQ_CLAUSES("W.SRC.6/local-addr", "W.SRC.6/nbytes", "W.SRC.6/runtime");
  SPSQ_SRC_SKIP_IF_ADAPTER();
  const char* kLine =
      "W.SRC.6: `SpscQueuePayloadView { uint64_t local_addr; uint64_t nbytes; }`: the address "
      "is an **integer**, not a pointer; L2 code casts it";
  using V = P::PayloadView;
  SPSQ_SRC_EXPECT_TYPE(V, "spsc_queue::SpscQueuePayloadView");
  SPSQ_SRC_EXPECT_FIELD(V, "SpscQueuePayloadView", local_addr, uint64_t,
                        "uint64_t (an integer, not a pointer)");
  SPSQ_SRC_EXPECT_FIELD(V, "SpscQueuePayloadView", nbytes, uint64_t, "uint64_t");
  // What L2 code does with it: cast the integer and read the input bytes.
  const auto bytes = Bytes(40, 6);
  Handle h{};
  ASSERT_TRUE(AcquireInput(bytes, &h)) << Api::message(ep());
  CheckIntegerPayloadAddress<Handle, V>(h, q().endpoint_payload() + layout().input_arena, bytes,
                                        kLine);
}

// ================================================================ W.SRC.7

TEST_F(SourceCompat, InputHandle) {
  SPSQ_CLAUSES("W.SRC.7/seq", "W.SRC.7/opcode", "W.SRC.7/payload-offset", "W.SRC.7/payload-nbytes",
               "W.SRC.7/payload", "W.SRC.7/owner-cookie", "W.SRC.7/runtime");
  SPSQ_SRC_SKIP_IF_ADAPTER();
  const char* kLine =
      "W.SRC.7: `SpscQueueInputHandle { seq; SpscQueueOpcode opcode; payload_offset; "
      "payload_nbytes; SpscQueuePayloadView payload; owner_cookie; }`";
  using H = P::InputHandle;
  SPSQ_SRC_EXPECT_TYPE(H, "spsc_queue::SpscQueueInputHandle");
  SPSQ_SRC_EXPECT_FIELD(H, "SpscQueueInputHandle", seq, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(H, "SpscQueueInputHandle", opcode, P::Opcode, "SpscQueueOpcode");
  SPSQ_SRC_EXPECT_FIELD(H, "SpscQueueInputHandle", payload_offset, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(H, "SpscQueueInputHandle", payload_nbytes, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(H, "SpscQueueInputHandle", payload, P::PayloadView,
                        "SpscQueuePayloadView");
  SPSQ_SRC_EXPECT_FIELD(H, "SpscQueueInputHandle", owner_cookie, uint64_t, "uint64_t");
  // The handle the endpoint hands out, read by those names.
  const auto bytes = Bytes(24, 7);
  Handle h{};
  ASSERT_TRUE(AcquireInput(bytes, &h)) << Api::message(ep());
  EXPECT_EQ(SPSQ_SRC_GET(h, seq), 1u) << kLine << "\n  handle.seq of the first input";
  EXPECT_EQ(SPSQ_SRC_GET(h, opcode), wire::kData) << kLine << "\n  handle.opcode";
  if (src::Enumerator_DATA<P::Opcode>::present &&
      std::is_same_v<src::FieldType_opcode<Handle>, P::Opcode>) {
    EXPECT_TRUE((opcode_is_data<Handle, P::Opcode>(h)))
        << kLine << "\n  handle.opcode == SpscQueueOpcode::DATA";
  }
  EXPECT_EQ(SPSQ_SRC_GET(h, payload_offset), layout().input_arena)
      << kLine << "\n  handle.payload_offset";
  EXPECT_EQ(SPSQ_SRC_GET(h, payload_nbytes), bytes.size()) << kLine << "\n  handle.payload_nbytes";
  EXPECT_EQ(src::payload_view_nbytes(h), bytes.size()) << kLine << "\n  handle.payload.nbytes";
  const uint8_t* p = src::payload_addr(h);
  ASSERT_EQ(p, q().endpoint_payload() + layout().input_arena)
      << kLine << "\n  handle.payload.local_addr";
  EXPECT_EQ(std::vector<uint8_t>(p, p + bytes.size()), bytes) << kLine << "\n  payload bytes";
  ASSERT_TRUE(release(h)) << Api::message(ep());
  ExpectHealthy("W.SRC.7");
}

// ================================================================ W.SRC.8

TEST_F(SourceCompat, OutputReservation) {
  SPSQ_CLAUSES("W.SRC.8/seq", "W.SRC.8/payload-offset", "W.SRC.8/payload-nbytes", "W.SRC.8/payload",
               "W.SRC.8/owner-cookie", "W.SRC.8/valid", "W.SRC.8/runtime");
  SPSQ_SRC_SKIP_IF_ADAPTER();
  const char* kLine =
      "W.SRC.8: `SpscQueueOutputReservation { seq; payload_offset; payload_nbytes; "
      "SpscQueuePayloadView payload; owner_cookie; bool valid; }`";
  using R = P::OutputReservation;
  SPSQ_SRC_EXPECT_TYPE(R, "spsc_queue::SpscQueueOutputReservation");
  SPSQ_SRC_EXPECT_FIELD(R, "SpscQueueOutputReservation", seq, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(R, "SpscQueueOutputReservation", payload_offset, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(R, "SpscQueueOutputReservation", payload_nbytes, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(R, "SpscQueueOutputReservation", payload, P::PayloadView,
                        "SpscQueuePayloadView");
  SPSQ_SRC_EXPECT_FIELD(R, "SpscQueueOutputReservation", owner_cookie, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(R, "SpscQueueOutputReservation", valid, bool, "bool");
  // A reservation filled through payload.local_addr, as L2 code does.
  const auto bytes = Bytes(36, 8);
  Reservation r{};
  ASSERT_TRUE(try_reserve(bytes.size(), r)) << Api::message(ep());
  if constexpr (src::Field_valid<Reservation>::present) {
    EXPECT_TRUE(SPSQ_SRC_GET(r, valid) != 0) << kLine << "\n  reservation.valid after reserve";
  }
  EXPECT_EQ(SPSQ_SRC_GET(r, seq), 1u) << kLine << "\n  reservation.seq of the first output";
  EXPECT_EQ(SPSQ_SRC_GET(r, payload_offset), layout().output_arena)
      << kLine << "\n  reservation.payload_offset";
  EXPECT_EQ(SPSQ_SRC_GET(r, payload_nbytes), bytes.size())
      << kLine << "\n  reservation.payload_nbytes";
  EXPECT_EQ(src::payload_view_nbytes(r), bytes.size()) << kLine << "\n  reservation.payload.nbytes";
  uint8_t* dst = src::payload_addr(r);
  ASSERT_EQ(dst, q().endpoint_payload() + layout().output_arena)
      << kLine << "\n  reservation.payload.local_addr";
  ASSERT_TRUE(q().l2_store(dst, bytes.data(), bytes.size()));
  ASSERT_TRUE(ep().output().publish(r, opcode_named_data<Api::Opcode>()))
      << Api::message(ep());
  ScriptedL3::Message m;
  ASSERT_TRUE(peer().poll_output(&m));
  EXPECT_EQ(m.payload, bytes) << kLine << "\n  the published bytes";
  ExpectHealthy("W.SRC.8");
}

// ================================================================ W.SRC.9

TEST_F(SourceCompat, ErrorAndClock) {
  SPSQ_CLAUSES("W.SRC.9/kind", "W.SRC.9/op", "W.SRC.9/identity", "W.SRC.9/message", "W.SRC.9/clock",
               "W.SRC.9/accessors", "W.SRC.9/runtime");
  SPSQ_SRC_SKIP_IF_ADAPTER();
  const char* kLine =
      "W.SRC.9: `SpscQueueError { SpscQueueErrorKind kind; SpscQueueOp op; "
      "session_instance_id_bits; transaction_id; char message[256]; }`; `MonotonicClock { "
      "uint64_t (*now_ns)(); }`";
  using E = P::Error;
  SPSQ_SRC_EXPECT_TYPE(E, "spsc_queue::SpscQueueError");
  SPSQ_SRC_EXPECT_FIELD(E, "SpscQueueError", kind, P::ErrorKind, "SpscQueueErrorKind");
  SPSQ_SRC_EXPECT_FIELD(E, "SpscQueueError", op, P::Op, "SpscQueueOp");
  SPSQ_SRC_EXPECT_FIELD(E, "SpscQueueError", session_instance_id_bits, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(E, "SpscQueueError", transaction_id, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(E, "SpscQueueError", message, char[256], "char[256]");
  SPSQ_SRC_EXPECT_TYPE(P::Clock, "spsc_queue::MonotonicClock");
  SPSQ_SRC_EXPECT_FIELD(P::Clock, "MonotonicClock", now_ns, uint64_t (*)(), "uint64_t (*)()");
  using Returned = std::decay_t<decltype(std::declval<const Endpoint&>().error())>;
  src::Expect(std::is_same_v<Returned, E> && kPresent<E>, kLine,
              "the endpoint's error() returns a spsc_queue::SpscQueueError");
  src::Expect(kPresent<P::Clock> && std::is_constructible_v<Endpoint, const Binding&, HarnessView,
                                                            P::Clock>,
              kLine, "the endpoint is constructed from (binding, view, MonotonicClock)");
  // A poison (a forged handle released), read by those names.
  Handle h{};
  ASSERT_TRUE(AcquireInput(Bytes(8, 9), &h)) << Api::message(ep());
  EXPECT_FALSE(release(forge(h))) << "a forged handle was released";
  ASSERT_FALSE(ep().live()) << "releasing a forged handle did not poison";
  if (std::is_same_v<Returned, E> && kPresent<E>) {
    const ErrorRead e = read_error<Returned, P::ErrorKind, P::Op>(ep().error());
    EXPECT_TRUE(e.kind_named) << kLine << "\n  error().kind is not a SpscQueueErrorKind";
    EXPECT_TRUE(e.kind_not_none) << kLine << "\n  error().kind is NONE after a poison";
    EXPECT_TRUE(e.op_named) << kLine << "\n  error().op is not a SpscQueueOp";
    EXPECT_TRUE(e.op_is_release) << kLine
                                 << "\n  error().op after a poisoning release is not "
                                    "SpscQueueOp::INPUT_RELEASE: "
                                 << e.op;
    EXPECT_EQ(e.session, q().params().session) << kLine << "\n  error().session_instance_id_bits";
    EXPECT_EQ(e.transaction, q().params().transaction) << kLine << "\n  error().transaction_id";
    EXPECT_TRUE(e.message_typed) << kLine << "\n  error().message is not char[256]";
    EXPECT_TRUE(e.message_nonempty) << kLine << "\n  error().message is empty";
    EXPECT_TRUE(e.message_terminated) << kLine << "\n  error().message is not NUL-terminated";
  }
}

// ================================================================ W.SRC.10

TEST_F(SourceCompat, FreeFunctions) {
  SPSQ_CLAUSES("W.SRC.10/encode-binding", "W.SRC.10/decode-binding", "W.SRC.10/round-trip",
               "W.SRC.10/counter-low32", "W.SRC.10/reconstruct-counter",
               "W.SRC.10/descriptor-codec");
  SPSQ_SRC_SKIP_IF_ADAPTER();
  const char* kLine =
      "W.SRC.10: free functions `encode_endpoint_binding(const SpscQueueEndpointBinding&, "
      "uint64_t* out, size_t count)`, `decode_endpoint_binding(const uint64_t*, size_t, "
      "SpscQueueEndpointBinding*)`, `encode_descriptor` / `decode_descriptor` (32-byte LE), "
      "`counter_low32`, `reconstruct_counter`";
  using B = P::Binding;
  src::Expect(P::Declared_encode_endpoint_binding<int>::value, kLine,
              "spsc_queue::encode_endpoint_binding is declared");
  src::Expect(P::kEncodeOk<B>, kLine,
              "encode_endpoint_binding(const SpscQueueEndpointBinding&, uint64_t*, size_t) "
              "with a result usable as bool");
  src::Expect(P::Declared_decode_endpoint_binding<int>::value, kLine,
              "spsc_queue::decode_endpoint_binding is declared");
  src::Expect(P::kDecodeOk<B>, kLine,
              "decode_endpoint_binding(const uint64_t*, size_t, SpscQueueEndpointBinding*) "
              "with a result usable as bool");
  src::Expect(P::Declared_encode_descriptor<int>::value, kLine,
              "spsc_queue::encode_descriptor is declared");
  src::Expect(P::Declared_decode_descriptor<int>::value, kLine,
              "spsc_queue::decode_descriptor is declared");
  src::Expect(P::Declared_counter_low32<int>::value, kLine,
              "spsc_queue::counter_low32 is declared");
  src::Expect(P::Declared_reconstruct_counter<int>::value, kLine,
              "spsc_queue::reconstruct_counter is declared");
  if constexpr (P::kEncodeOk<B> && P::kDecodeOk<B>) {
    // Round trip of the queue's own scalars; a bad count is refused.
    const auto s = q().scalars();
    B b{};
    ASSERT_TRUE(P::decode_binding(s.data(), s.size(), &b)) << kLine << "\n  decode refused";
    uint64_t out[10] = {};
    ASSERT_TRUE(P::encode_binding(b, out, 10)) << kLine << "\n  encode refused";
    for (size_t i = 0; i < 10; ++i) EXPECT_EQ(out[i], s[i]) << kLine << "\n  round trip " << i;
    EXPECT_FALSE(P::decode_binding(s.data(), 9, &b)) << kLine << "\n  decode of 9 scalars";
    EXPECT_FALSE(P::encode_binding(b, out, 9)) << kLine << "\n  encode into 9 scalars";
  }
  if constexpr (P::CounterLow32<uint64_t>::value) {
    EXPECT_EQ(P::low32_of(uint64_t{0x180000001ull}), int64_t{INT32_MIN} + 1)
        << kLine << "\n  counter_low32(0x180000001) is int32(uint32(v))";
    EXPECT_EQ(P::low32_of(uint64_t{0x2000000FFull}), 0xFF) << kLine << "\n  counter_low32";
  }
  // The descriptor codec, where its shape is the natural one (the contract
  // fixes only the names and the 32-byte little-endian form).
  CheckDescriptorCodec<P::Descriptor>(kLine);
}

// ================================================================ W.SRC.11

TEST_F(SourceCompat, Directions) {
  SPSQ_CLAUSES("W.SRC.11/directions", "W.SRC.11/types", "W.SRC.11/peek", "W.SRC.11/try-peek",
               "W.SRC.11/release", "W.SRC.11/drained", "W.SRC.11/reserve", "W.SRC.11/try-reserve",
               "W.SRC.11/publish", "W.SRC.11/runtime");
  SPSQ_SRC_SKIP_IF_ADAPTER();
  const char* kLine =
      "W.SRC.11: the endpoint's directions are nested classes reached through `input()` / "
      "`output()`; `peek(uint64_t timeout_ns, SpscQueueInputHandle&)`, "
      "`try_peek(SpscQueueInputHandle&)`, `release(const SpscQueueInputHandle&)`, `drained() "
      "const`; `reserve(uint64_t nbytes, uint64_t timeout_ns, SpscQueueOutputReservation&)`, "
      "`try_reserve(uint64_t nbytes, SpscQueueOutputReservation&)`, `publish(const "
      "SpscQueueOutputReservation&, SpscQueueOpcode)`";
  using H = P::InputHandle;
  using R = P::OutputReservation;
  src::Expect(std::is_class_v<Input> && std::is_class_v<Output>, kLine,
              "input() and output() return (references to) class objects");
  src::Expect(kPresent<H> && std::is_same_v<Handle, H>, kLine,
              "try_peek takes a spsc_queue::SpscQueueInputHandle&");
  src::Expect(kPresent<R> && std::is_same_v<Reservation, R>, kLine,
              "try_reserve takes a spsc_queue::SpscQueueOutputReservation&");
  src::Expect(kPresent<P::Opcode> && std::is_same_v<Api::Opcode, P::Opcode>, kLine,
              "publish takes a spsc_queue::SpscQueueOpcode");
  src::Expect(PeekExact<Input, H>::value, kLine,
              "bool peek(uint64_t timeout_ns, SpscQueueInputHandle&)");
  src::Expect(TryPeekExact<Input, H>::value, kLine, "bool try_peek(SpscQueueInputHandle&)");
  src::Expect(ReleaseExact<Input, H>::value, kLine,
              "bool release(const SpscQueueInputHandle&)");
  src::Expect(DrainedExact<Input>::value, kLine, "bool drained() const");
  src::Expect(ReserveExact<Output, R>::value, kLine,
              "bool reserve(uint64_t nbytes, uint64_t timeout_ns, SpscQueueOutputReservation&)");
  src::Expect(TryReserveExact<Output, R>::value, kLine,
              "bool try_reserve(uint64_t nbytes, SpscQueueOutputReservation&)");
  src::Expect(PublishExact<Output, R, P::Opcode>::value, kLine,
              "bool publish(const SpscQueueOutputReservation&, SpscQueueOpcode)");
  // The same calls, by those names, as L2 code makes them.
  const auto bytes = Bytes(16, 11);
  ASSERT_EQ(peer().enqueue_data(bytes), ScriptedL3::Enqueue::kOk);
  Handle h{};
  EXPECT_FALSE(ep().input().peek(0, h)) << kLine << "\n  peek(0, h) is a live no-attempt";
  ASSERT_TRUE(ep().input().peek(1000000, h)) << kLine << "\n  peek(timeout, h)";
  Reservation r{};
  ASSERT_TRUE(ep().output().reserve(bytes.size(), 1000000, r)) << kLine << "\n  reserve";
  ASSERT_TRUE(q().l2_store(src::payload_addr(r), bytes.data(), bytes.size()));
  ASSERT_TRUE(ep().output().publish(r, opcode_named_data<Api::Opcode>()))
      << kLine << "\n  publish";
  ASSERT_TRUE(ep().input().release(h)) << kLine << "\n  release";
  EXPECT_FALSE(ep().input().drained()) << kLine << "\n  drained() before STOP";
  ASSERT_EQ(peer().enqueue_stop(), ScriptedL3::Enqueue::kOk);
  ASSERT_TRUE(ep().input().try_peek(h)) << kLine << "\n  try_peek(STOP)";
  ASSERT_TRUE(ep().input().release(h));
  EXPECT_TRUE(ep().input().drained()) << kLine << "\n  drained() after STOP";
  ScriptedL3::Message m;
  ASSERT_TRUE(peer().poll_output(&m));
  EXPECT_EQ(m.payload, bytes);
  ExpectHealthy("W.SRC.11");
}

// ================================================================ W.SRC.12

TEST_F(SourceCompat, RegionTypes) {
  SPSQ_CLAUSES("W.SRC.12/span", "W.SRC.12/notify-op", "W.SRC.12/wait-cmp", "W.SRC.12/payload-view",
               "W.SRC.12/test-result");
  SPSQ_SRC_SKIP_IF_ADAPTER();
  const char* kLine =
      "W.SRC.12: global namespace (aicpu/region_instance_view.h): `RegionPartLocalSpan { "
      "uint64_t base; uint64_t logical_bytes; }`; `enum class RegionNotifyOp : uint32_t`; "
      "`enum class RegionWaitCmp : uint32_t`; `RegionPayloadView { uint64_t local_addr; "
      "uint64_t nbytes; }` (integer address again); `RegionSignalTestResult { bool matched; "
      "int32_t observed; }` (values: the RegionView contract's Set = 0, Add = 1 and EQ=0 .. LE=5)";
  SPSQ_SRC_EXPECT_TYPE(RSpan, "::RegionPartLocalSpan");
  SPSQ_SRC_EXPECT_FIELD(RSpan, "RegionPartLocalSpan", base, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_FIELD(RSpan, "RegionPartLocalSpan", logical_bytes, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_SCOPED_ENUM(RNotifyOp, "RegionNotifyOp", uint32_t, "uint32_t");
  SPSQ_SRC_EXPECT_ENUMERATOR(RNotifyOp, "RegionNotifyOp", Set, 0);
  SPSQ_SRC_EXPECT_ENUMERATOR(RNotifyOp, "RegionNotifyOp", Add, 1);
  SPSQ_SRC_EXPECT_SCOPED_ENUM(RWaitCmp, "RegionWaitCmp", uint32_t, "uint32_t");
  SPSQ_SRC_EXPECT_ENUMERATOR(RWaitCmp, "RegionWaitCmp", EQ, 0);
  SPSQ_SRC_EXPECT_ENUMERATOR(RWaitCmp, "RegionWaitCmp", NE, 1);
  SPSQ_SRC_EXPECT_ENUMERATOR(RWaitCmp, "RegionWaitCmp", GT, 2);
  SPSQ_SRC_EXPECT_ENUMERATOR(RWaitCmp, "RegionWaitCmp", GE, 3);
  SPSQ_SRC_EXPECT_ENUMERATOR(RWaitCmp, "RegionWaitCmp", LT, 4);
  SPSQ_SRC_EXPECT_ENUMERATOR(RWaitCmp, "RegionWaitCmp", LE, 5);
  SPSQ_SRC_EXPECT_TYPE(RPayloadView, "::RegionPayloadView");
  SPSQ_SRC_EXPECT_FIELD(RPayloadView, "RegionPayloadView", local_addr, uint64_t,
                        "uint64_t (an integer, not a pointer)");
  SPSQ_SRC_EXPECT_FIELD(RPayloadView, "RegionPayloadView", nbytes, uint64_t, "uint64_t");
  SPSQ_SRC_EXPECT_TYPE(RTestResult, "::RegionSignalTestResult");
  SPSQ_SRC_EXPECT_FIELD(RTestResult, "RegionSignalTestResult", matched, bool, "bool");
  SPSQ_SRC_EXPECT_FIELD(RTestResult, "RegionSignalTestResult", observed, int32_t, "int32_t");
}

// ================================================================ W.SRC.13

TEST_F(SourceCompat, RegionViewError) {
  SPSQ_CLAUSES("W.SRC.13/error", "W.SRC.13/error-kind", "W.SRC.13/view-op", "W.SRC.13/runtime");
  SPSQ_SRC_SKIP_IF_ADAPTER();
  const char* kLine =
      "W.SRC.13: `RegionViewError { RegionViewErrorKind kind; RegionViewOp op; int32_t "
      "observed; char message[256]; }` with `RegionViewErrorKind : uint32_t` NONE = 0, "
      "INVALID_VIEW = 1, OUT_OF_BOUNDS = 2, INVALID_ENUM = 3, TIMEOUT = 4, ISSUED_FAILURE = 5 "
      "and `RegionViewOp : uint32_t` CONSTRUCT = 1, PAYLOAD_READ = 2, PAYLOAD_WRITE = 3, "
      "NOTIFY = 4, TEST = 5, WAIT = 6, COUNTER_ADDR = 7";
  SPSQ_SRC_EXPECT_TYPE(RViewError, "::RegionViewError");
  SPSQ_SRC_EXPECT_FIELD(RViewError, "RegionViewError", kind, RViewErrorKind,
                        "RegionViewErrorKind");
  SPSQ_SRC_EXPECT_FIELD(RViewError, "RegionViewError", op, RViewOp, "RegionViewOp");
  SPSQ_SRC_EXPECT_FIELD(RViewError, "RegionViewError", observed, int32_t, "int32_t");
  SPSQ_SRC_EXPECT_FIELD(RViewError, "RegionViewError", message, char[256], "char[256]");
  SPSQ_SRC_EXPECT_TYPE(RViewErrorKind, "::RegionViewErrorKind");
  if constexpr (kPresent<RViewErrorKind>) {
    EXPECT_TRUE(std::is_enum_v<RViewErrorKind> &&
                (std::is_same_v<typename src::EnumUnderlying<RViewErrorKind>::type, uint32_t>))
        << kLine << "\n  mistyped: RegionViewErrorKind is not an enum : uint32_t";
  }
  SPSQ_SRC_EXPECT_ENUMERATOR(RViewErrorKind, "RegionViewErrorKind", NONE, 0);
  SPSQ_SRC_EXPECT_ENUMERATOR(RViewErrorKind, "RegionViewErrorKind", INVALID_VIEW, 1);
  SPSQ_SRC_EXPECT_ENUMERATOR(RViewErrorKind, "RegionViewErrorKind", OUT_OF_BOUNDS, 2);
  SPSQ_SRC_EXPECT_ENUMERATOR(RViewErrorKind, "RegionViewErrorKind", INVALID_ENUM, 3);
  SPSQ_SRC_EXPECT_ENUMERATOR(RViewErrorKind, "RegionViewErrorKind", TIMEOUT, 4);
  SPSQ_SRC_EXPECT_ENUMERATOR(RViewErrorKind, "RegionViewErrorKind", ISSUED_FAILURE, 5);
  SPSQ_SRC_EXPECT_TYPE(RViewOp, "::RegionViewOp");
  if constexpr (kPresent<RViewOp>) {
    EXPECT_TRUE(std::is_enum_v<RViewOp> &&
                (std::is_same_v<typename src::EnumUnderlying<RViewOp>::type, uint32_t>))
        << kLine << "\n  mistyped: RegionViewOp is not an enum : uint32_t";
  }
  SPSQ_SRC_EXPECT_ENUMERATOR(RViewOp, "RegionViewOp", CONSTRUCT, 1);
  SPSQ_SRC_EXPECT_ENUMERATOR(RViewOp, "RegionViewOp", PAYLOAD_READ, 2);
  SPSQ_SRC_EXPECT_ENUMERATOR(RViewOp, "RegionViewOp", PAYLOAD_WRITE, 3);
  SPSQ_SRC_EXPECT_ENUMERATOR(RViewOp, "RegionViewOp", NOTIFY, 4);
  SPSQ_SRC_EXPECT_ENUMERATOR(RViewOp, "RegionViewOp", TEST, 5);
  SPSQ_SRC_EXPECT_ENUMERATOR(RViewOp, "RegionViewOp", WAIT, 6);
  SPSQ_SRC_EXPECT_ENUMERATOR(RViewOp, "RegionViewOp", COUNTER_ADDR, 7);
  // The implementation's RegionInstanceView reports an out-of-range read in
  // those terms.
  using VE = typename ViewErrorType<RView>::type;
  src::Expect(kPresent<RViewError> && std::is_same_v<VE, RViewError>, kLine,
              "RegionInstanceView::error() returns a RegionViewError");
  const ViewRun run = run_view<RView, RSpan, RWaitCmp>();
  src::Expect(run.built, kLine,
              "RegionInstanceView is constructed from two RegionPartLocalSpan (the spec's L2 "
              "snippet)");
  if (run.built) {
    EXPECT_TRUE(run.oob_refused) << kLine << "\n  an out-of-range payload read succeeded";
    EXPECT_EQ(run.oob_kind, 2u) << kLine << "\n  error().kind of an out-of-range read is "
                                            "OUT_OF_BOUNDS";
    EXPECT_EQ(run.oob_op, 2u) << kLine << "\n  error().op of an out-of-range read is PAYLOAD_READ";
    EXPECT_TRUE(run.oob_message) << kLine << "\n  error().message is empty";
  }
}

// ================================================================ W.SRC.14

TEST_F(SourceCompat, ViewReadAndTestAreTemplatesOverTheOutType) {
  SPSQ_CLAUSES("W.SRC.14/read-own", "W.SRC.14/read-region", "W.SRC.14/read-spsc",
               "W.SRC.14/test-own", "W.SRC.14/test-region", "W.SRC.14/runtime");
  SPSQ_SRC_SKIP_IF_ADAPTER();
  const char* kLine =
      "W.SRC.14: the view's `payload().read(offset, nbytes, out)` and `counter().test(offset, "
      "cmp_value, cmp, out)` are **templates over the out type**: an endpoint may pass its own "
      "struct with `local_addr`/`nbytes` (resp. `matched`/`observed`)";
  src::Expect(ViewReads<RView, UserIntSpan>::value, kLine,
              "RegionInstanceView::payload().read accepts an endpoint's own "
              "{uint64_t local_addr; uint64_t nbytes;}");
  src::Expect(ViewReads<RView, RPayloadView>::value && kPresent<RPayloadView>, kLine,
              "RegionInstanceView::payload().read accepts a RegionPayloadView");
  src::Expect(ViewReads<RView, P::PayloadView>::value && kPresent<P::PayloadView>, kLine,
              "RegionInstanceView::payload().read accepts a spsc_queue::SpscQueuePayloadView");
  src::Expect(ViewTests<RView, RWaitCmp, UserSample>::value, kLine,
              "RegionInstanceView::counter().test accepts an endpoint's own "
              "{bool matched; int32_t observed;}");
  src::Expect(ViewTests<RView, RWaitCmp, RTestResult>::value && kPresent<RTestResult>, kLine,
              "RegionInstanceView::counter().test accepts a RegionSignalTestResult");
  const ViewRun run = run_view<RView, RSpan, RWaitCmp>();
  if (run.built) {
    EXPECT_TRUE(run.read_int_ok) << kLine
                                 << "\n  read(64, 128, own struct) did not set local_addr = "
                                    "base + 64, nbytes = 128";
    EXPECT_TRUE(run.test_ok) << kLine
                             << "\n  test(128, 7 / 8, EQ, own struct) did not set matched / "
                                "observed from the counter";
  }
}

// ================================================================ W.SRC.15

TEST_F(SourceCompat, HarnessViewAcceptsIntegerAndPointerAddresses) {
  SPSQ_CLAUSES("W.SRC.15/integer-addr", "W.SRC.15/pointer-addr", "W.SRC.15/own-sample");
  SPSQ_SRC_SKIP_IF_ADAPTER();
  const char* kLine =
      "W.SRC.15: a harness view must accept any such struct, with an integer or a pointer "
      "`local_addr`";
  HarnessView v = q().view();
  const uint8_t* want = q().endpoint_payload() + layout().input_arena;
  UserIntSpan as_int{0, 0};
  ASSERT_TRUE(v.payload().read(layout().input_arena, 32, as_int)) << kLine;
  EXPECT_EQ(as_int.local_addr, reinterpret_cast<uintptr_t>(want))
      << kLine << "\n  HarnessView read into an integer local_addr";
  EXPECT_EQ(as_int.nbytes, 32u) << kLine;
  UserPtrSpan as_ptr{nullptr, 0};
  ASSERT_TRUE(v.payload().read(layout().input_arena, 32, as_ptr)) << kLine;
  EXPECT_EQ(as_ptr.local_addr, want) << kLine << "\n  HarnessView read into a pointer local_addr";
  EXPECT_EQ(as_ptr.nbytes, 32u) << kLine;
  UserSample sample{true, -1};
  ASSERT_TRUE(v.counter().test(wire::kInputTail, 5, 0u /* EQ */, sample)) << kLine;
  EXPECT_FALSE(sample.matched) << kLine << "\n  HarnessView test into an own sample struct";
  EXPECT_EQ(sample.observed, 0) << kLine;
}

// ================================================================ W.SRC.16

TEST_F(SourceCompat, WhatTheRuntimeEndpointPassesAndFlushes) {
  SPSQ_CLAUSES("W.SRC.16/read", "W.SRC.16/flush");
  SPSQ_SRC_SKIP_IF_ADAPTER();
#if !SPSQ_CERT_HAS_ADAPTER
  // Informative: records what this endpoint passes to read and whether its
  // publish writes the payload (reading A) or leaves it to L2 code (reading
  // B, the runtime's).
  QueueParams p;
  p.depth = window_depth();
  Rebuild(p, /*with_endpoint=*/false);
  ProbeRecord record;
  using ProbeEndpoint = SPSQ_CERT_ENDPOINT<ProbeView, 1>;
  using ProbeHandle = typename EndpointTypes<ProbeEndpoint>::Handle;
  using ProbeReservation = typename EndpointTypes<ProbeEndpoint>::Reservation;
  using ProbeOpcode = typename EndpointTypes<ProbeEndpoint>::Opcode;
  {
    ProbeEndpoint e(TypedBinding(q()), ProbeView(q().view(), &record),
                    Api::clock(&VirtualClock::now_ns));
    ASSERT_TRUE(e.live());
    const auto in = Bytes(20, 12);
    ASSERT_EQ(peer().enqueue_data(in), ScriptedL3::Enqueue::kOk);
    ProbeHandle h{};
    const int reads_before = record.reads;
    ASSERT_TRUE(e.input().try_peek(h));
    EXPECT_GT(record.reads, reads_before)
        << "W.SRC.16: the input payload was lent without a view().payload().read";
    const auto out = Bytes(24, 13);
    ProbeReservation r{};
    ASSERT_TRUE(e.output().try_reserve(out.size(), r));
    uint8_t* dst = src::payload_addr(r);
    ASSERT_NE(dst, nullptr);
    ASSERT_TRUE(q().l2_store(dst, out.data(), out.size()));
    const size_t mark = log().mark();
    ASSERT_TRUE(e.output().publish(r, static_cast<ProbeOpcode>(wire::kData)));
    const uint64_t off = static_cast<uint64_t>(dst - q().endpoint_payload());
    const size_t flushes = log().count(
        [&](const Access& a) { return a.writes_payload(off, out.size()); }, mark);
    ASSERT_TRUE(e.input().release(h));
    record_observation("src.read_out_type",
                       record.reads_into_spsc_payload_view == record.reads
                           ? "spsc_queue::SpscQueuePayloadView (as the runtime's endpoint)"
                       : record.reads_into_region_payload_view == record.reads
                           ? "RegionPayloadView"
                           : "its own or mixed out types");
    record_observation("src.publish_flushes_payload",
                       flushes > 0 ? "yes (OPEN.FLUSH reading A)"
                                   : "no, L2 code flushes (OPEN.FLUSH reading B, the runtime's)");
    ScriptedL3::Message m;
    ASSERT_TRUE(peer().poll_output(&m));
    EXPECT_EQ(m.payload, out);
  }
#endif
}

}  // namespace
}  // namespace spsq_conf
