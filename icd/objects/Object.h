// The base of every virtual OpenCL object: its handle (dispatch pointer first, as the ICD
// loader requires), the application's reference count, and validation of handles through a
// registry, so a stale or foreign handle is an error code, not a crash.
#pragma once

#include "device/Error.h"
#include "icd/objects/Handles.h"

#include <atomic>
#include <memory>

namespace clsplit::icd {

enum class ObjectKind : uint8_t { Platform, Device, Context, Queue, Mem, Program, Kernel, Event, Sampler };

// Internal ownership is by std::shared_ptr; the application's retain/release count is kept
// apart: when it reaches zero the handle stops being valid for the application, while objects
// that still need it (a kernel its program, a pending command its buffers) keep it alive.
class Object : public std::enable_shared_from_this<Object> {
public:
  explicit Object(ObjectKind kind) : kind_(kind) {}
  virtual ~Object() = default;
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;

  ObjectKind kind() const { return kind_; }
  cl_uint referenceCount() const { return appRefs_.load(); }

  // Registers the handle so the application can use it (with one application reference).
  void publish(void* handle);
  void retain() { appRefs_.fetch_add(1); }
  // Drops one application reference; at zero the handle is withdrawn from the registry.
  void release(void* handle);

private:
  ObjectKind kind_;
  std::atomic<cl_uint> appRefs_{0};
};

// Registry lookups: the live object of `kind` behind `handle`, or nullptr.
std::shared_ptr<Object> findObject(const void* handle, ObjectKind kind);
// Number of handles currently valid for the application (resource tests).
size_t liveHandleCount();

// A typed object: owns its handle struct `H` (e.g. _cl_mem) and converts both ways.
template <class Derived, class H, ObjectKind K, cl_int InvalidCode>
class TypedObject : public Object {
public:
  using Handle = H*;
  static constexpr ObjectKind kKind = K;

  TypedObject() : Object(K), handle_{dispatchTable(), this} {}

  Handle handle() { return &handle_; }
  const H* handle() const { return &handle_; }

  // The object behind an application handle, or Error(InvalidCode).
  static std::shared_ptr<Derived> from(const H* h) {
    auto object = findObject(h, K);
    if (!object) throw Error(InvalidCode, "invalid handle");
    return std::static_pointer_cast<Derived>(object);
  }
  // Like from(), but returns nullptr for NULL or invalid handles.
  static std::shared_ptr<Derived> tryFrom(const H* h) { return std::static_pointer_cast<Derived>(findObject(h, K)); }
  // Publishes a new object and returns its handle with one application reference.
  Handle publishHandle() {
    publish(&handle_);
    return &handle_;
  }
  void releaseHandle() { release(&handle_); }

private:
  H handle_;
};

} // namespace clsplit::icd
