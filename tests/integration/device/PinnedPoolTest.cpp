// The pinned host pool (buffer-manager/storage/PinnedPool.h) on a real PoCL context: blocks
// carry data through real transfers, misses are pinned in the background and idle buffers
// reused, the capacity holds, and lent blocks outlive the pool.
#include "buffer-manager/storage/PinnedPool.h"
#include "buffer-manager/storage/StagingRing.h"
#include "device/RealCall.h"
#include "device/Vendors.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <thread>
#include <vector>

using namespace clsplit;
using buffer::PinnedPool;

namespace {

struct PoolSetup {
  device::Vendors vendors = device::Vendors::load(std::getenv("CLSPLIT_VENDORS") ? std::getenv("CLSPLIT_VENDORS") : "");
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
  std::shared_ptr<PinnedPool> pool(uint64_t capacity, uint64_t slabCapacity = 0) {
    return std::make_shared<PinnedPool>(context.get(), device, capacity, slabCapacity);
  }
};

// A pinned block of `size`: the first request misses and asks the background thread.
std::shared_ptr<clsplit::buffer::HostBlock> pinned(PinnedPool& pool, size_t size) {
  if (auto block = pool.lend(size)) return block;
  pool.settle();
  return pool.lend(size);
}

} // namespace

TEST_CASE("a pinned block carries bytes to a device and back") {
  PoolSetup setup;
  auto pool = setup.pool(8 << 20);
  const size_t bytes = 300000; // not a multiple of the granule
  auto out = pinned(*pool, bytes);
  auto in = pinned(*pool, bytes);
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
  auto mem =
      device::RealMem::adopt(device::call(&cl_icd_dispatch::clCreateBuffer, setup.context.get(),
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

TEST_CASE("a miss is served pageable and pinned in the background; idle buffers are reused") {
  PoolSetup setup;
  auto pool = setup.pool(64 << 20);
  REQUIRE_FALSE(pool->lend(1 << 20)); // never pins on the caller's path
  REQUIRE(pool->stats().misses == 1);
  pool->settle();
  REQUIRE(pool->stats().buffersMade == 1);
  std::byte* first = nullptr;
  {
    auto block = pool->lend(1 << 20);
    REQUIRE(block);
    first = block->data();
    REQUIRE(pool->stats().lentBytes == (1u << 20));
  }
  REQUIRE(pool->stats().lentBytes == 0);
  auto again = pool->lend((1 << 20) - 100);
  REQUIRE(again);
  REQUIRE(again->data() == first);
  REQUIRE(pool->stats().buffersMade == 1);
  again.reset();
  // A quarter of the size is the most a reused buffer may waste.
  REQUIRE_FALSE(pool->lend(4096));
  pool->settle();
  REQUIRE(pool->stats().buffersMade == 2);
}

TEST_CASE("staging takes an idle pinned buffer up to twice its size; other blocks a quarter larger at most") {
  // (Every miss asks the background thread for a buffer of its size: the checks below that
  // depend on which buffers are idle come before a miss or after settle().)
  PoolSetup setup;
  auto pool = setup.pool(64 << 20);
  pinned(*pool, 1 << 20).reset(); // one idle 1 MiB buffer
  const auto made = pool->stats().buffersMade;
  auto staged = buffer::allocateStagingBlock(pool.get(), 600 << 10);
  REQUIRE(staged);
  CHECK(staged->pinned()); // the idle 1 MiB buffer
  CHECK(staged->size() == (600u << 10));
  CHECK(pool->stats().buffersMade == made);
  staged.reset(); // idle again
  CHECK(buffer::allocateStagingBlock(pool.get(), 513 << 10)->pinned());
  CHECK_FALSE(buffer::allocateStagingBlock(pool.get(), 400 << 10)->pinned()); // over twice: pageable
  pool->settle();                     // idle now: the 1 MiB buffer and a 400 KiB one
  CHECK_FALSE(pool->lend(600 << 10)); // a host version of 600 KiB in 1 MiB would waste 40 %
}

TEST_CASE("the pool never holds more than its capacity: idle buffers are evicted, then nothing pinned") {
  PoolSetup setup;
  auto pool = setup.pool(2 << 20);
  pinned(*pool, 1 << 20).reset();  // one idle 1 MiB buffer
  auto b = pinned(*pool, 2 << 20); // needs the idle 1 MiB evicted
  REQUIRE(b);
  REQUIRE(pool->stats().pinnedBytes == (2u << 20));
  REQUIRE_FALSE(pinned(*pool, 4096)); // the lent 2 MiB cannot be evicted
  REQUIRE(pool->stats().pinnedBytes == (2u << 20));
  REQUIRE_FALSE(pool->lend(4 << 20)); // above the capacity: not even asked for
  pool->settle();
  REQUIRE(pool->stats().buffersMade == 2);
  // The callers' fallback: pageable memory; small blocks do not even ask the pool.
  const auto misses = pool->stats().misses;
  auto d = buffer::allocateHostBlock(pool.get(), buffer::kMinPinnedBytes);
  REQUIRE(d);
  REQUIRE(d->owned());
  REQUIRE(pool->stats().misses == misses + 1);
  REQUIRE(buffer::allocateHostBlock(pool.get(), 4096));
  REQUIRE(pool->stats().misses == misses + 1);
}

TEST_CASE("a lent block outlives its pool; the last block returned releases everything") {
  const long before = device::liveRealReferences.load();
  const size_t hostBefore = buffer::liveHostBytes.load();
  {
    PoolSetup setup;
    auto pool = setup.pool(4 << 20);
    auto block = pinned(*pool, 65536);
    REQUIRE(block);
    REQUIRE(buffer::liveHostBytes.load() == hostBefore + 65536);
    pool.reset();
    std::memset(block->data(), 1, block->size()); // still mapped
    block.reset();
  }
  REQUIRE(buffer::liveHostBytes.load() == hostBefore);
  // The pinning thread lets go of the pool's real objects once it sees the last block back.
  for (int i = 0; i < 200 && device::liveRealReferences.load() != before; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  REQUIRE(device::liveRealReferences.load() == before);
}

TEST_CASE("a pool with nothing lent has released its real objects when its destructor returns") {
  PoolSetup setup;
  const long before = device::liveRealReferences.load();
  auto pool = setup.pool(4 << 20);
  pinned(*pool, 1 << 20).reset(); // one idle pinned buffer: a real buffer, queue and context ref
  REQUIRE(device::liveRealReferences.load() > before);
  pool.reset();
  REQUIRE(device::liveRealReferences.load() == before);
}

TEST_CASE("small staging blocks come from pinned slabs, reused by size class, within the slab capacity") {
  PoolSetup setup;
  auto pool = setup.pool(64 << 20, 2 * buffer::kSlabBytes);
  REQUIRE_FALSE(pool->lendSmall(16 << 10)); // the first asks for a slab, never pinning on the caller's path
  pool->settle();
  REQUIRE(pool->stats().slabs == 1);
  REQUIRE(pool->stats().pinnedBytes == buffer::kSlabBytes);
  auto a = pool->lendSmall(16 << 10);
  auto b = pool->lendSmall(100); // the smallest class
  auto c = pool->lendSmall(16 << 10);
  REQUIRE(a);
  REQUIRE(b);
  REQUIRE(c);
  REQUIRE(a->size() == (16u << 10));
  REQUIRE(b->size() == 100);
  // Blocks do not overlap, and all are kSmallestPinnedBlock apart (DMA-friendly alignment).
  REQUIRE(c->data() >= b->data() + 256);
  REQUIRE(b->data() >= a->data() + (16 << 10));
  REQUIRE((c->data() - a->data()) % buffer::kSmallestPinnedBlock == 0);
  REQUIRE(pool->stats().lentBytes == (32u << 10) + 256);
  std::byte* reused = a->data();
  a.reset();
  auto d = pool->lendSmall(9000); // same class as 16 KiB: the returned block
  REQUIRE(d);
  REQUIRE(d->data() == reused);
  REQUIRE_FALSE(pool->lendSmall((64 << 10) + 1)); // not small
  // A full slab asks for the next one, up to the capacity; then small blocks stay pageable.
  std::vector<std::shared_ptr<buffer::HostBlock>> held;
  for (int i = 0; i < 64; ++i)
    if (auto x = pool->lendSmall(64 << 10)) held.push_back(x);
  pool->settle();
  REQUIRE(pool->stats().slabs == 2);
  for (int i = 0; i < 64; ++i)
    if (auto x = pool->lendSmall(64 << 10)) held.push_back(x);
  pool->settle();
  REQUIRE(pool->stats().slabs == 2);
  REQUIRE(pool->stats().pinnedBytes == 2 * buffer::kSlabBytes);
  REQUIRE(held.size() < 32);
  // The fallback of a caller: pageable memory when no block is free.
  auto e = buffer::allocateStagingBlock(pool.get(), 64 << 10);
  REQUIRE(e);
  REQUIRE(e->size() == (64u << 10));
}

TEST_CASE("a small pinned block carries bytes through a real transfer and outlives its pool") {
  PoolSetup setup;
  const long before = device::liveRealReferences.load();
  auto pool = setup.pool(8 << 20, buffer::kSlabBytes);
  pool->lendSmall(4);
  pool->settle();
  auto out = pool->lendSmall(1000), in = pool->lendSmall(1000);
  REQUIRE(out);
  REQUIRE(in);
  std::iota(reinterpret_cast<unsigned char*>(out->data()), reinterpret_cast<unsigned char*>(out->data()) + 1000,
            static_cast<unsigned char>(3));
  cl_int err = CL_SUCCESS;
  auto queue = device::RealQueue::adopt(device::call(&cl_icd_dispatch::clCreateCommandQueue, setup.context.get(),
                                                     setup.device, cl_command_queue_properties(0), &err));
  auto mem = device::RealMem::adopt(device::call(&cl_icd_dispatch::clCreateBuffer, setup.context.get(),
                                                 cl_mem_flags(CL_MEM_READ_WRITE), size_t(1000),
                                                 static_cast<void*>(nullptr), &err));
  REQUIRE(err == CL_SUCCESS);
  REQUIRE(device::call(&cl_icd_dispatch::clEnqueueWriteBuffer, queue.get(), mem.get(), cl_bool(CL_TRUE), size_t(0),
                       size_t(1000), static_cast<const void*>(out->data()), 0u, static_cast<const cl_event*>(nullptr),
                       static_cast<cl_event*>(nullptr)) == CL_SUCCESS);
  REQUIRE(device::call(&cl_icd_dispatch::clEnqueueReadBuffer, queue.get(), mem.get(), cl_bool(CL_TRUE), size_t(0),
                       size_t(1000), static_cast<void*>(in->data()), 0u, static_cast<const cl_event*>(nullptr),
                       static_cast<cl_event*>(nullptr)) == CL_SUCCESS);
  REQUIRE(std::memcmp(in->data(), out->data(), 1000) == 0);
  queue = {};
  mem = {};
  pool.reset(); // blocks still lent: the slab stays mapped until they are back
  std::memset(out->data(), 0, out->size());
  out.reset();
  in.reset();
  for (int i = 0; i < 200 && device::liveRealReferences.load() != before; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  REQUIRE(device::liveRealReferences.load() == before);
}

TEST_CASE("reserve pins as many buffers as asked, within the capacity") {
  PoolSetup setup;
  auto pool = setup.pool(3 * 65536);
  pool->reserve(65536, 5); // room for three
  pool->settle();
  CHECK(pool->stats().buffersMade == 3);
  std::vector<std::shared_ptr<clsplit::buffer::HostBlock>> blocks;
  for (int i = 0; i < 3; ++i) blocks.push_back(pool->lend(65536));
  for (const auto& b : blocks) CHECK(b);
  CHECK_FALSE(pool->lend(65536)); // all three lent
}

TEST_CASE("the staging ring has no blocks until they are pinned, then cycles through them") {
  using clsplit::buffer::StagingRing;
  PoolSetup setup;
  auto pool = setup.pool(64 << 20);
  CHECK_FALSE(pool->ring().hold()); // nothing pinned yet: moves stage as before
  pool->reserveRing();
  pool->settle();
  std::vector<std::byte*> seen;
  {
    auto hold = pool->ring().hold();
    REQUIRE(hold);
    for (unsigned i = 0; i < StagingRing::kBlocks + 1; ++i) {
      auto& block = hold.next();
      REQUIRE(block.memory);
      CHECK(block.memory->size() == StagingRing::kChunkBytes);
      CHECK(block.memory->pinned());
      seen.push_back(block.memory->data());
    }
  }
  for (unsigned i = 1; i < StagingRing::kBlocks; ++i)
    for (unsigned j = 0; j < i; ++j) CHECK(seen[i] != seen[j]);
  CHECK(seen[StagingRing::kBlocks] == seen[0]); // round the ring
  // The ring keeps its blocks: the pool lends them to nobody else while it lives.
  CHECK(pool->stats().lentBytes >= StagingRing::kBlocks * StagingRing::kChunkBytes);
}
