// The atomic-merge reduction against a sequential model: applying every device's updates to
// one copy in any order must give the merged result.
#include "buffer-manager/AtomicMerge.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <random>

using clsplit::analysis::AtomicOp;
using clsplit::analysis::ScalarType;
using clsplit::buffer::mergeAtomic;

namespace {

template <class T>
T apply(AtomicOp op, T current, T operand) {
  using U = std::make_unsigned_t<T>;
  switch (op) {
  case AtomicOp::Add:
    return static_cast<T>(static_cast<U>(current) + static_cast<U>(operand));
  case AtomicOp::Sub:
    return static_cast<T>(static_cast<U>(current) - static_cast<U>(operand));
  case AtomicOp::Inc:
    return static_cast<T>(static_cast<U>(current) + 1);
  case AtomicOp::Dec:
    return static_cast<T>(static_cast<U>(current) - 1);
  case AtomicOp::Min:
    return std::min(current, operand);
  case AtomicOp::Max:
    return std::max(current, operand);
  case AtomicOp::And:
    return current & operand;
  case AtomicOp::Or:
    return current | operand;
  case AtomicOp::Xor:
    return current ^ operand;
  default:
    return current;
  }
}

template <class T>
void check(AtomicOp op, ScalarType type, unsigned seed) {
  std::mt19937_64 rng(seed);
  const size_t n = 64, devices = 3;
  std::vector<T> base(n);
  for (auto& b : base) b = static_cast<T>(rng());
  // Each device applies its own random updates to its copy; the model applies all of them.
  std::vector<std::vector<T>> partial(devices, base);
  std::vector<T> model = base;
  for (size_t d = 0; d < devices; ++d)
    for (int u = 0; u < 200; ++u) {
      size_t i = rng() % n;
      T operand = static_cast<T>(rng());
      partial[d][i] = apply(op, partial[d][i], operand);
      model[i] = apply(op, model[i], operand);
    }
  std::vector<T> merged = base;
  std::vector<const std::byte*> views;
  for (auto& p : partial) views.push_back(reinterpret_cast<const std::byte*>(p.data()));
  mergeAtomic(op, type, reinterpret_cast<std::byte*>(merged.data()), views, n * sizeof(T));
  REQUIRE(merged == model);
}

} // namespace

TEST_CASE("merged atomics equal the sequential result, for every op and integer type") {
  for (AtomicOp op : {AtomicOp::Add, AtomicOp::Sub, AtomicOp::Inc, AtomicOp::Dec, AtomicOp::Min, AtomicOp::Max,
                      AtomicOp::And, AtomicOp::Or, AtomicOp::Xor}) {
    check<int32_t>(op, ScalarType::I32, 1);
    check<uint32_t>(op, ScalarType::U32, 2);
    check<int64_t>(op, ScalarType::I64, 3);
    check<uint64_t>(op, ScalarType::U64, 4);
  }
}

TEST_CASE("only integer types are mergeable") {
  CHECK(clsplit::buffer::atomicMergeable(AtomicOp::Add, ScalarType::U32));
  CHECK_FALSE(clsplit::buffer::atomicMergeable(AtomicOp::Add, ScalarType::F32));
  CHECK_FALSE(clsplit::buffer::atomicMergeable(AtomicOp::None, ScalarType::I32));
}
