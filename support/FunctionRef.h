// A non-owning reference to a callable (as llvm::function_ref): for callbacks invoked before
// the call taking them returns, where std::function would heap-allocate a capturing lambda.
#pragma once

#include <type_traits>
#include <utility>

namespace clsplit {

template <class Signature>
class FunctionRef;

template <class R, class... Args>
class FunctionRef<R(Args...)> {
public:
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, FunctionRef> &&
                                              std::is_invocable_r_v<R, F&, Args...>>>
  FunctionRef(F&& f) // NOLINT(google-explicit-constructor): converts like std::function
      : object_(erase(f)), call_([](void* object, Args... args) -> R {
          return (*restore<std::remove_reference_t<F>>(object))(std::forward<Args>(args)...);
        }) {}

  R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

private:
  // A function is referenced through its address; any other callable through the object's.
  template <class T>
  static void* erase(T& f) {
    if constexpr (std::is_function_v<T>)
      return reinterpret_cast<void*>(&f);
    else
      return const_cast<void*>(static_cast<const void*>(std::addressof(f)));
  }
  template <class T>
  static T* restore(void* object) {
    if constexpr (std::is_function_v<T>)
      return reinterpret_cast<T*>(object);
    else
      return static_cast<T*>(object);
  }

  void* object_;
  R (*call_)(void*, Args...);
};

} // namespace clsplit
