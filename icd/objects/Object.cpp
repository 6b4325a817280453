// The handle registry: which handles the application may use right now.
#include "icd/objects/Object.h"

#include <array>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

namespace clsplit::icd {

namespace {
struct Registry {
  std::shared_mutex mutex;
  std::unordered_map<const void*, std::shared_ptr<Object>> live;
};
Registry& registry() {
  static Registry* r = new Registry; // never destroyed: handles may be used during exit
  return *r;
}
} // namespace

void Object::publish(void* handle) {
  appRefs_.store(1);
  auto& r = registry();
  std::unique_lock lock(r.mutex);
  r.live[handle] = shared_from_this();
}

void Object::release(void* handle) {
  if (appRefs_.fetch_sub(1) != 1) return;
  std::shared_ptr<Object> last;
  auto& r = registry();
  {
    std::unique_lock lock(r.mutex);
    auto it = r.live.find(handle);
    if (it == r.live.end()) return;
    last = std::move(it->second);
    r.live.erase(it);
  }
  // `last` may destroy the object here, outside the registry lock.
}

std::shared_ptr<Object> findObject(const void* handle, ObjectKind kind) {
  if (!handle) return nullptr;
  // Every call of a program names a few handles again and again (its queue, its kernels): each
  // thread remembers its last ones, without the registry's lock. A remembered object answers
  // only while the application still holds it; one that died fails to lock, so a new object
  // at its address is looked up in the registry.
  struct Remembered {
    const void* handle = nullptr;
    std::weak_ptr<Object> object;
  };
  thread_local std::array<Remembered, 8> recent;
  auto& slot = recent[(reinterpret_cast<uintptr_t>(handle) >> 4) % recent.size()];
  if (slot.handle == handle)
    if (auto object = slot.object.lock(); object && object->referenceCount() > 0)
      return object->kind() == kind ? object : nullptr;
  std::shared_ptr<Object> found;
  {
    auto& r = registry();
    std::shared_lock lock(r.mutex);
    auto it = r.live.find(handle);
    if (it == r.live.end()) return nullptr;
    found = it->second;
  }
  slot = {handle, found};
  return found->kind() == kind ? found : nullptr;
}

size_t liveHandleCount() {
  auto& r = registry();
  std::shared_lock lock(r.mutex);
  return r.live.size();
}

} // namespace clsplit::icd
