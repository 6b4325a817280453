// The objects' view of the runtime (Environment.h).
#include "icd/objects/Environment.h"

#include "device/Clock.h"

#include <cstdio>
#include <cstdlib>

namespace clsplit::icd {

namespace {
Environment& (*environmentSource)() = nullptr;
} // namespace

void setEnvironmentSource(Environment& (*source)()) { environmentSource = source; }

Environment& environment() {
  if (!environmentSource) { // a build that left icd/runtime/ out: a programming error
    std::fputs("clsplit: the objects were used without the runtime\n", stderr);
    std::abort();
  }
  return environmentSource();
}

EnvironmentSpan::EnvironmentSpan(const char* name) : name_(name) {
  if (environment().tracing()) start_ = device::hostNowNs();
}

EnvironmentSpan::~EnvironmentSpan() {
  if (start_ && environment().tracing()) environment().hostSpan(name_, start_, device::hostNowNs());
}

} // namespace clsplit::icd
