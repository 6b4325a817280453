// The pinned host pool (buffer-manager/storage/PinnedPool.h) on a real PoCL context: blocks
// carry data through real transfers, idle buffers are reused, the capacity holds, and lent
// blocks keep the pool (and its real objects) alive after its owner lets go.
#include "buffer-manager/storage/PinnedPool.h"
#include "device/RealCall.h"
#include "device/Vendors.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <numeric>
#include <vector>

using namespace clsplit;
using buffer::PinnedPool;

namespace {

struct PoolSetup {
  device::Vendors vendors =
      device::Vendors::load(std::getenv("CLSPLIT_VENDORS") ? std::getenv("CLSPLIT_VENDORS") : "");
  cl_device_id device = nullptr;
  device::RealContext context;

  PoolSetup() {
    REQUIRE(!vendors.devices().empty());
    device = vendors.devices().front().handle;
    cl_int err = CL_SUCCESS;
    context = device::RealContext::adopt(
        device::invoke(device, &cl_icd_dispatch::clCreateContext, static_cast<const cl_context_properties*>(nullptr),
                       1u, &device, static_cast<void(CL_CALLBACK*)(const char*, const void*, size_t, void*)>(nullptr),
                       static_cast<void*>(nullptr), &err));
    REQUIRE(err == CL_SUCCESS);
  }
  std::shared_ptr<PinnedPool> pool(uint64_t capacity) {
    return std::make_shared<PinnedPool>(context.get(), device, capacity);
  }
};

} // namespace

TEST_CASE("a pinned block carries bytes to a device and back") {
  PoolSetup setup;
  auto pool = setup.pool(8 << 20);
  const size_t bytes = 300000; // not a multiple of the granule
  auto out = pool->lend(bytes);
  auto in = pool->lend(bytes);
  REQUIRE(out);
  REQUIRE(in);
  REQUIRE(out->size() == bytes);
  REQUIRE(out->data() != in->data());
  std::iota(reinterpret_cast<unsigned char*>(out->data()), reinterpret_cast<unsigned char*>(out->data()) + bytes,
            static_cast<unsigned char>(7));

  cl_int err = CL_SUCCESS;
  auto queue = device::RealQueue::adopt(device::call(&cl_icd_dispatch::clCreateCommandQueue, setup.context.get(),
                                                     setup.device, cl_command_queue_properties(0), &err));
  REQUIRE(err == CL_SUCCESS);
  auto mem = device::RealMem::adopt(device::call(&cl_icd_dispatch::clCreateBuffer, setup.context.get(),
                                                 cl_mem_flags(CL_MEM_READ_WRITE), bytes, static_cast<void*>(nullptr), &err));
  REQUIRE(err == CL_SUCCESS);
  REQUIRE(device::call(&cl_icd_dispatch::clEnqueueWriteBuffer, queue.get(), mem.get(), cl_bool(CL_TRUE), size_t(0),
                       bytes, static_cast<const void*>(out->data()), 0u, static_cast<const cl_event*>(nullptr),
                       static_cast<cl_event*>(nullptr)) == CL_SUCCESS);
  REQUIRE(device::call(&cl_icd_dispatch::clEnqueueReadBuffer, queue.get(), mem.get(), cl_bool(CL_TRUE), size_t(0),
                       bytes, static_cast<void*>(in->data()), 0u, static_cast<const cl_event*>(nullptr),
                       static_cast<cl_event*>(nullptr)) == CL_SUCCESS);
  REQUIRE(std::memcmp(in->data(), out->data(), bytes) == 0);
}

TEST_CASE("idle pinned buffers are reused for requests they fit, not for much smaller ones") {
  PoolSetup setup;
  auto pool = setup.pool(64 << 20);
  std::byte* first = nullptr;
  {
    auto block = pool->lend(1 << 20);
    REQUIRE(block);
    first = block->data();
    REQUIRE(pool->stats().lentBytes == (1u << 20));
  }
  REQUIRE(pool->stats().lentBytes == 0);
  auto again = pool->lend((1 << 20) - 100);
  REQUIRE(again->data() == first);
  auto stats = pool->stats();
  REQUIRE(stats.buffersMade == 1);
  REQUIRE(stats.reuses == 1);
  again.reset();
  // A quarter of the size is the most a reused buffer may waste.
  auto small = pool->lend(4096);
  REQUIRE(small->data() != first);
  REQUIRE(pool->stats().buffersMade == 2);
}

TEST_CASE("the pool never holds more than its capacity: idle buffers are evicted, then requests refused") {
  PoolSetup setup;
  auto pool = setup.pool(2 << 20);
  {
    auto a = pool->lend(1 << 20);
    REQUIRE(a);
  }
  auto b = pool->lend(2 << 20); // needs the idle 1 MiB evicted
  REQUIRE(b);
  REQUIRE(pool->stats().pinnedBytes == (2u << 20));
  auto c = pool->lend(4096); // the lent 2 MiB cannot be evicted
  REQUIRE_FALSE(c);
  REQUIRE(pool->stats().refusals == 1);
  // The caller's fallback: pageable memory.
  auto d = buffer::allocateHostBlock(pool.get(), buffer::kMinPinnedBytes);
  REQUIRE(d);
  REQUIRE(d->owned());
  REQUIRE(pool->stats().refusals == 2);
  // Small blocks do not even ask the pool.
  auto e = buffer::allocateHostBlock(pool.get(), 4096);
  REQUIRE(e);
  REQUIRE(pool->stats().refusals == 2);
}

TEST_CASE("a lent block keeps its pool alive; the last block returned releases it") {
  const long before = device::liveRealReferences.load();
  const size_t hostBefore = buffer::liveHostBytes.load();
  {
    PoolSetup setup;
    auto pool = setup.pool(4 << 20);
    auto block = pool->lend(65536);
    REQUIRE(block);
    REQUIRE(buffer::liveHostBytes.load() == hostBefore + 65536);
    std::weak_ptr<PinnedPool> watch = pool;
    pool.reset();
    REQUIRE_FALSE(watch.expired());
    std::memset(block->data(), 1, block->size()); // still mapped
    block.reset();
    REQUIRE(watch.expired());
  }
  REQUIRE(buffer::liveHostBytes.load() == hostBefore);
  REQUIRE(device::liveRealReferences.load() == before);
}
