// FunctionRef: calls the referenced callable (captures by reference stay live), forwards
// arguments and results, and can be rebound like any value.
#include "support/FunctionRef.h"

#include <catch2/catch.hpp>

#include <memory>
#include <string>

using clsplit::FunctionRef;

namespace {
int twice(FunctionRef<int(int)> f, int x) { return f(f(x)); }
int plusOne(int x) { return x + 1; }
} // namespace

TEST_CASE("FunctionRef calls lambdas, functions and mutable state by reference") {
  int calls = 0;
  auto counting = [&calls](int x) {
    ++calls;
    return x * 3;
  };
  CHECK(twice(counting, 2) == 18);
  CHECK(calls == 2);
  CHECK(twice(plusOne, 5) == 7);

  FunctionRef<std::string(const std::string&, size_t)> cut = [](const std::string& s, size_t n) {
    return s.substr(0, n);
  };
  CHECK(cut("clsplit", 2) == "cl");
}

TEST_CASE("FunctionRef forwards move-only arguments and can be rebound") {
  FunctionRef<int(std::unique_ptr<int>)> take = [](std::unique_ptr<int> p) { return *p; };
  CHECK(take(std::make_unique<int>(41)) == 41);
  auto a = [] { return 1; };
  auto b = [] { return 2; };
  FunctionRef<int()> f = a;
  CHECK(f() == 1);
  f = b;
  CHECK(f() == 2);
}
