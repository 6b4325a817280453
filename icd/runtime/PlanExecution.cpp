// executePlan(): moves, merge bases, sub-kernels, merges, directory updates - in that order, so
// that a transfer reading a device's old bytes is never overtaken by that device's kernel.
#include "icd/runtime/PlanExecution.h"

#include "buffer-manager/AtomicMerge.h"
#include "device/Enqueue.h"
#include "device/HostExecutor.h"
#include "icd/runtime/Runtime.h"
#include "icd/runtime/Trace.h"
#include "icd/runtime/Transfers.h"
#include "planner/Moves.h"
#include "support/Log.h"

#include <cstring>

namespace clsplit::icd::runtime {

using device::FenceRef;
using planner::LaunchPlan;
using planner::SubKernel;

namespace {

// The bytes a slice changes in one buffer: its writes, and its atomic updates if it has any
// (`scratch` holds their union then; most uses have none, and need no copy).
const RangeSet& changedBytes(const planner::BufferUse& use, RangeSet& scratch) {
  if (use.atomic.empty()) return use.write;
  scratch = use.write.united(use.atomic);
  return scratch;
}

// The base values of one atomic merge, read before any sub-kernel (the reads are noted, so no
// sub-kernel overwrites them first).
struct MergeBase {
  std::shared_ptr<buffer::HostBlock> block;
  FenceRef read;
};

// Room on `device` for the bytes sub-kernel `sk` uses there: whole copies while every buffer of
// the launch fits the device, else windows around those bytes (BufferStorage::reserve). A
// kernel without window shifts gets whole copies. Throws CL_MEM_OBJECT_ALLOCATION_FAILURE,
// changing nothing, when the device cannot hold even the bytes the slice uses.
void reserveOn(const LaunchContext& launch, const SubKernel& sk, unsigned device, buffer::TransferLog& log) {
  auto* memory = launch.queue.context().deviceMemory().get();
  const bool shifts = launch.kernel.partitionReady();
  const auto& storages = launch.storages;
  std::vector<ByteRange> need(storages.size(), ByteRange{0, 0});
  std::vector<bool> used(storages.size(), false);
  for (const auto& use : sk.uses) {
    ByteRange hull{UINT64_MAX, 0};
    for (const RangeSet* r : {&use.read, &use.write, &use.atomic, &use.fill, &use.need})
      if (!r->empty()) {
        const ByteRange h = r->hull();
        hull = ByteRange{std::min(hull.lo, h.lo), std::max(hull.hi, h.hi)};
      }
    if (hull.lo >= hull.hi) continue;
    ByteRange& n = need[use.buffer];
    n = used[use.buffer] ? ByteRange{std::min(n.lo, hull.lo), std::max(n.hi, hull.hi)} : hull;
    used[use.buffer] = true;
  }
  auto first = [&](size_t b) {
    return std::find(storages.begin(), storages.begin() + b, storages[b]) == storages.begin() + b;
  };
  // Whole copies while every buffer of the launch fits the device at once.
  bool fits = true;
  if (memory && shifts && memory->policy() != buffer::WindowPolicy::Off) {
    uint64_t total = 0;
    for (size_t b = 0; b < storages.size(); ++b)
      if (first(b)) total += storages[b]->size();
    fits = memory->policy() == buffer::WindowPolicy::Auto && total <= memory->cap(launch.queue.slot(device).device);
  }
  if (memory) {
    uint64_t least = 0;
    for (size_t b = 0; b < storages.size(); ++b)
      if (first(b)) least += !shifts || storages[b]->image() ? storages[b]->size() : need[b].size();
    const uint64_t cap = memory->cap(launch.queue.slot(device).device);
    if (least > cap)
      throw Error(CL_MEM_OBJECT_ALLOCATION_FAILURE, "kernel " + launch.kernel.name() + ": its slice on device slot " +
                                                        std::to_string(device) + " uses " + std::to_string(least) +
                                                        " bytes of its buffers, more than the " + std::to_string(cap) +
                                                        " bytes clsplit may use there (CLSPLIT_DEVICE_MEMORY)");
  }
  using Room = buffer::BufferStorage::Room;
  auto reserveAll = [&](Room room) {
    // Copies that already cover their bytes go first: under Tight they shrink, and the room they
    // give back is what the others grow into.
    for (int pass = 0; pass < 2; ++pass)
      for (size_t b = 0; b < storages.size(); ++b) {
        auto& s = *storages[b];
        const ByteRange w = s.window(device);
        const bool covered = s.allocatedOn(device) && w.lo <= need[b].lo && need[b].hi <= w.hi;
        if (covered != (pass == 0)) continue;
        if (!shifts || s.image())
          s.reserveWhole(device, launch.queue, &log);
        else
          s.reserve(device, need[b], room, launch.queue, &log);
      }
  };
  try {
    reserveAll(fits ? Room::Whole : Room::Grow);
  } catch (const Error& e) {
    if (e.code() != CL_MEM_OBJECT_ALLOCATION_FAILURE) throw;
    reserveAll(Room::Tight); // what each copy holds beyond the slice's bytes goes to the host
  }
}

class Executor {
public:
  Executor(const LaunchContext& launch, const LaunchPlan& plan) : launch_(launch), plan_(plan) {}

  Execution run() {
    const auto& subKernels = plan_.subKernels();
    if (!moveBytes()) return std::move(out_);
    readMergeBases();
    ranOn_.assign(subKernels.size(), 0);
    fences_.assign(subKernels.size(), nullptr);
    pieces_.assign(subKernels.size(), {});
    std::vector<size_t> rejected;
    for (size_t i = 0; i < subKernels.size(); ++i) {
      partlyRan_ = false;
      if (cl_int err = enqueue(subKernels[i], i, subKernels[i].device); err != CL_SUCCESS) {
        out_.error = err;
        if (!partlyRan_) rejected.push_back(i);
      }
    }
    if (!rejected.empty() && rejected.size() == subKernels.size()) {
      for (size_t i : rejected) out_.failedDevices.push_back(subKernels[i].device);
      return std::move(out_);
    }
    // No device accepted its whole sub-kernel (one ran part of its pieces): nowhere to rerun the
    // rejected slices; the launch has partly run.
    if (std::none_of(fences_.begin(), fences_.end(), [](const FenceRef& f) { return f != nullptr; })) rejected.clear();
    for (size_t i : rejected) runElsewhere(i);
    publish();
    return std::move(out_);
  }

private:
  buffer::BufferStorage& storage(unsigned buffer) const { return *launch_.storages[buffer]; }

  // The plan's transfers (runMoves); a failure blames the device it happened on.
  bool moveBytes() {
    const auto lane = plan_.overlap ? buffer::Lane::Transfer : buffer::Lane::Compute;
    auto failure = runMoves([this](unsigned b) -> buffer::BufferStorage& { return storage(b); }, plan_.staging,
                            plan_.moves, launch_.queue, &out_.transfers, lane);
    if (!failure) return true;
    out_.failedDevices.push_back(failure->device);
    out_.error = failure->error;
    return false;
  }

  void readMergeBases() {
    for (const auto& m : plan_.merges()) {
      ByteRange hull = m.region.hull();
      auto& s = storage(m.buffer);
      auto block = s.allocateHost(hull.size());
      std::vector<FenceRef> reads;
      for (const auto& r : m.region)
        reads.push_back(readToHost(s, r, block->data() + (r.lo - hull.lo), {}, launch_.queue, &out_.transfers));
      bases_.push_back({block, device::allOf(std::move(reads))});
    }
  }

  // Enqueues sub-kernel `i` on `device` (its pieces in order, boundaries first); on success
  // records it.
  cl_int enqueue(const SubKernel& sk, size_t i, unsigned device) {
    auto& queue = launch_.queue;
    auto& kernel = launch_.kernel;
    const auto& range = launch_.input.range;
    cl_command_queue real = queue.realQueue(device);
    cl_kernel k = kernel.realKernel(device, launch_.args);
    // A slice's start on its split dimension goes to the kernel as its id base, and its real
    // launches start at 0 there (the prelude's __clsplit_id_base): NVIDIA's OpenCL fails (or,
    // between 2^31 and 2^32, silently miscomputes) launches at a global offset of 2^31 or more,
    // which the later slices of a large 1-D NDRange would have.
    const unsigned baseDim = sk.slice.dim;
    uint64_t idBase = 0;
    if (kernel.partitionReady()) {
      if (!plan_.split() && sk.groups() == range.groups(sk.slice.dim)) {
        kernel.setHiddenWhole(device);
      } else {
        std::array<uint64_t, 4> hiddenOffset{0, 0, 0, 0}, hiddenSize{1, 1, 1, 0};
        for (unsigned d = 0; d < range.dims; ++d) {
          hiddenOffset[d] = range.offset[d];
          hiddenSize[d] = range.global[d];
        }
        if (baseDim < 3) {
          uint64_t start = sk.offset[baseDim];
          for (const auto& piece : sk.pieces) start = std::min(start, piece.offset[baseDim]);
          if (start < (uint64_t(1) << 62)) {
            idBase = start;
            hiddenOffset[3] = idBase * 4 + baseDim;
          }
        }
        kernel.setHiddenArgs(device, hiddenOffset, hiddenSize);
      }
    }
    const bool passLocal = launch_.input.localGiven || plan_.split();
    // One real launch of `offset`/`global`, after the application's wait list and the queue's
    // barrier, the writers of the bytes it reads (the moves into them included) and the earlier
    // readers and writers of the bytes it writes, per range: a halo move on the transfer queue
    // waits only for the pieces that wrote the halo.
    auto launch = [&](const std::array<uint64_t, 3>& at, const std::array<uint64_t, 3>& size, bool evented,
                      auto&& addHazards, FenceRef& f) {
      device::WaitList wl(queue.slot(device).context, real);
      wl.add(launch_.waits);
      addHazards(wl);
      size_t offset[3], global[3], local[3];
      for (unsigned d = 0; d < 3; ++d) {
        offset[d] = d == baseDim ? at[d] - idBase : at[d];
        global[d] = size[d];
        local[d] = range.local[d];
      }
      return device::enqueueCommand(
          real, queue.slot(device).context, wl, queue.timesCommands() || evented,
          [&](cl_uint n, const cl_event* list, cl_event* event) {
            return device::call(&cl_icd_dispatch::clEnqueueNDRangeKernel, real, k, cl_uint(range.dims),
                                static_cast<const size_t*>(offset), static_cast<const size_t*>(global),
                                passLocal ? static_cast<const size_t*>(local) : nullptr, n, list, event);
          },
          f);
    };
    FenceRef f;
    cl_int err = CL_SUCCESS;
    std::vector<FenceRef> pieceFences;
    if (sk.pieces.empty()) {
      // A sub-kernel of a split launch gets an event of its own: the neighbours' halo moves
      // wait for it from other queues, and without one each wait would enqueue a marker
      // behind it (on NVIDIA a marker on a profiling queue costs ~8 us of host time; the
      // gpu1-twice traces had 2.3 per split launch).
      err = launch(
          sk.offset, sk.global, plan_.split(),
          [&](device::WaitList& wl) {
            for (const auto& use : sk.uses) {
              storage(use.buffer).addValidAfter(device, use.need, wl);
              RangeSet scratch;
              if (use.writes()) storage(use.buffer).addWriteHazards(device, changedBytes(use, scratch), wl);
            }
          },
          f);
    } else {
      for (const auto& piece : sk.pieces) {
        FenceRef pf;
        // A boundary piece gets an event of its own: the halo's move waits for it, not for a
        // marker behind the interior.
        err = launch(
            piece.offset, piece.global, piece.boundary,
            [&](device::WaitList& wl) {
              for (const auto& use : piece.uses) {
                storage(use.buffer).addValidAfter(device, use.read, wl);
                if (!use.write.empty()) storage(use.buffer).addWriteHazards(device, use.write, wl);
              }
            },
            pf);
        if (err != CL_SUCCESS) break;
        for (const auto& use : piece.uses) {
          storage(use.buffer).noteRead(device, use.read, pf);
          storage(use.buffer).noteWrite(device, use.write, pf);
        }
        pieceFences.push_back(pf);
      }
      if (err == CL_SUCCESS) f = device::allOf(pieceFences);
    }
    if (err != CL_SUCCESS) {
      log().warn("clEnqueueNDRangeKernel({}) failed on {}: {}", kernel.name(),
                 Runtime::get().slots()[device].device->name, errorName(err));
      if (!pieceFences.empty()) {
        // Pieces already enqueued ran part of the slice: the launch has partly run, and what
        // they wrote is on this device alone (no other device may run the slice again).
        for (size_t p = 0; p < pieceFences.size(); ++p)
          for (const auto& use : sk.pieces[p].uses)
            storage(use.buffer).publishWrite(use.write, device, pieceFences[p], launch_.launchId);
        out_.partial = true;
        partlyRan_ = true;
      }
      return err;
    }
    if (sk.pieces.empty())
      for (const auto& use : sk.uses) {
        storage(use.buffer).noteRead(device, use.need, f);
        RangeSet scratch;
        if (use.writes()) storage(use.buffer).noteWrite(device, changedBytes(use, scratch), f);
      }
    ranOn_[i] = device;
    fences_[i] = f;
    pieces_[i] = std::move(pieceFences);
    return CL_SUCCESS;
  }

  // A device rejected sub-kernel `i` after others accepted theirs: its slice runs on an
  // accepting device when it reads nothing the accepted sub-kernels write (their devices' copies
  // are being overwritten) and no atomics are merged; otherwise the launch has partly run.
  void runElsewhere(size_t i) {
    const auto& subKernels = plan_.subKernels();
    size_t host = 0;
    while (!fences_[host]) ++host; // a sub-kernel whose device accepted it
    const unsigned device = ranOn_[host];
    bool safe = plan_.merges().empty();
    for (const auto& use : subKernels[i].uses)
      for (size_t j = 0; j < subKernels.size() && safe; ++j)
        if (fences_[j])
          for (const auto& other : subKernels[j].uses)
            if (other.buffer == use.buffer && use.need.intersects(other.write.united(other.published))) safe = false;
    if (safe) {
      try {
        reserveOn(launch_, subKernels[i], device, out_.transfers);
        for (const auto& use : subKernels[i].uses)
          acquire(storage(use.buffer), use.need, device, launch_.queue, &out_.transfers);
        safe = enqueue(subKernels[i], i, device) == CL_SUCCESS;
      } catch (const Error&) {
        safe = false;
      }
    }
    if (safe)
      log().warn("kernel {}: the slice of slot {} ran on slot {}", launch_.kernel.name(), subKernels[i].device, device);
    else
      out_.partial = true;
  }

  // What each device wrote becomes its alone; merged atomics end on the host.
  void publish() {
    const auto& subKernels = plan_.subKernels();
    for (size_t m = 0; m < plan_.merges().size(); ++m) {
      const auto& merge = plan_.merges()[m];
      const auto& base = bases_[m];
      auto& s = storage(merge.buffer);
      const ByteRange hull = merge.region.hull();
      std::vector<FenceRef> inputs{base.read};
      std::vector<std::pair<std::shared_ptr<buffer::HostBlock>, RangeSet>> partials;
      for (size_t i = 0; i < subKernels.size(); ++i) {
        if (!fences_[i]) continue;
        for (const auto& use : subKernels[i].uses) {
          if (use.buffer != merge.buffer) continue;
          RangeSet mine = merge.region.intersected(use.atomic);
          if (mine.empty()) continue;
          auto block = s.allocateHost(hull.size());
          inputs.push_back(
              s.readFromSlot(mine, ranOn_[i], block->data(), hull.lo, {fences_[i]}, launch_.queue, &out_.transfers));
          partials.emplace_back(block, mine);
        }
      }
      auto result = s.allocateHost(hull.size());
      FenceRef done = device::runAfter(std::move(inputs), [merge, base, partials, result, hull] {
        // Each device's partial: its own values where it updated, the base elsewhere.
        std::vector<std::vector<std::byte>> full;
        std::vector<const std::byte*> views;
        for (const auto& [block, mine] : partials) {
          full.emplace_back(base.block->data(), base.block->data() + hull.size());
          for (const auto& r : mine)
            std::memcpy(full.back().data() + (r.lo - hull.lo), block->data() + (r.lo - hull.lo), r.size());
          views.push_back(full.back().data());
        }
        std::memcpy(result->data(), base.block->data(), hull.size());
        buffer::mergeAtomic(merge.op, merge.type, result->data(), views, hull.size());
      });
      out_.merged.push_back(done);
      merged_.push_back(result);
    }
    out_.groupsPerDevice.assign(launch_.input.devices.size(), 0);
    for (size_t i = 0; i < subKernels.size(); ++i) {
      if (!fences_[i]) continue;
      out_.subKernels.emplace_back(ranOn_[i], fences_[i]);
      out_.groupsPerDevice[ranOn_[i]] += subKernels[i].groups();
      for (const auto& use : subKernels[i].uses)
        storage(use.buffer).publishWrite(use.published, ranOn_[i], fences_[i], launch_.launchId);
    }
    for (size_t m = 0; m < plan_.merges().size(); ++m) { // the merged bytes' only valid copy is on the host
      const auto& merge = plan_.merges()[m];
      storage(merge.buffer).publishHostBlock(merge.region, merged_[m], merge.region.hull().lo, out_.merged[m]);
    }
    if (auto* trace = Trace::active()) {
      for (size_t i = 0; i < subKernels.size(); ++i) {
        if (!fences_[i]) continue;
        if (pieces_[i].empty()) {
          trace->subKernel(ranOn_[i], launch_.kernel.name(), subKernels[i].slice.groupBegin,
                           subKernels[i].slice.groupEnd, fences_[i]);
          continue;
        }
        for (size_t p = 0; p < pieces_[i].size(); ++p) {
          const auto& piece = subKernels[i].pieces[p];
          trace->subKernel(ranOn_[i], launch_.kernel.name() + (piece.boundary ? " (boundary)" : " (interior)"),
                           piece.slice.groupBegin, piece.slice.groupEnd, pieces_[i][p]);
        }
      }
      trace->transfers(out_.transfers);
    }
  }

  const LaunchContext& launch_;
  const LaunchPlan& plan_;
  Execution out_;
  std::vector<MergeBase> bases_;
  std::vector<std::shared_ptr<buffer::HostBlock>> merged_;
  std::vector<unsigned> ranOn_;
  std::vector<FenceRef> fences_;
  std::vector<std::vector<FenceRef>> pieces_; // per sub-kernel, its pieces' fences (if cut)
  bool partlyRan_ = false;                    // the sub-kernel being enqueued failed after some of its pieces
};

} // namespace

bool reserveRoom(const LaunchContext& launch, const LaunchPlan& plan, buffer::TransferLog& log) {
  auto* memory = launch.queue.context().deviceMemory().get();
  if (!memory) return false;
  memory->beginEpoch();
  for (auto* s : launch.storages) s->markInUse();
  std::vector<uint64_t> before;
  for (auto* s : launch.storages) before.push_back(s->directoryGeneration());
  for (const SubKernel& sk : plan.subKernels()) {
    // The common case: every buffer is whole on the device already (nothing to decide).
    const bool whole = std::all_of(launch.storages.begin(), launch.storages.end(), [&](const buffer::BufferStorage* s) {
      return s->allocatedOn(sk.device) && s->wholeOn(sk.device);
    });
    if (!whole) reserveOn(launch, sk, sk.device, log);
  }
  for (size_t b = 0; b < launch.storages.size(); ++b)
    if (launch.storages[b]->directoryGeneration() != before[b]) return true;
  return false;
}

Execution executePlan(const LaunchContext& launch, const LaunchPlan& plan) { return Executor(launch, plan).run(); }

} // namespace clsplit::icd::runtime
