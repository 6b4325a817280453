// A small simulated multi-device machine for partitioner tests: per-device speed and launch
// latency, per-group work profiles (possibly changing with the iteration), noise, host overhead,
// and transfers derived from the kernels' read/write regions through a real buffer directory
// (halo exchanges, mismatched splits, host input). It plays the runtime: plan(), then reports
// kernel times, transfers and dependency volumes, optionally delayed by some launches.
#pragma once

#include "buffer-manager/TransferPlanner.h"
#include "partitioner/Partitioner.h"

#include <cmath>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace clsplit::sim {

using partition::Direction;

struct SimDevice {
  std::string name;
  bool gpu = true;
  unsigned platform = 0;
  double nsPerWork = 1;        // time of one unit of work
  double launchNs = 0;         // fixed cost of every launch
  uint64_t parallelGroups = 0; // groups it runs at once, in waves (0: time linear in the work)
  double h2dPerByte = 0.1, h2dLatency = 10'000;
  double d2hPerByte = 0.1, d2hLatency = 10'000;
  double d2dPerByte = 0.05, d2dLatency = 10'000;
};

struct Access {
  unsigned buffer = 0;
  uint64_t haloGroups = 0; // reads: extra groups on each side (a stencil)
  bool whole = false;      // reads: the whole buffer
};

struct SimKernel {
  std::string name;
  uint64_t groups = 64;
  uint64_t groupSize = 64;
  uint64_t otherGroups = 1; // work-groups per row: the other dimensions of a 2-D launch
  // Work units of group g at iteration it.
  std::function<double(uint64_t g, uint64_t it)> work = [](uint64_t, uint64_t) { return 1.0; };
  std::vector<Access> reads, writes;
  bool splittable = true;
  std::vector<double> deviceFactor; // per device multiplier of nsPerWork (default 1)
};

struct SimBuffer {
  uint64_t bytesPerGroup = 1024;
  uint64_t groups = 64;
  uint64_t bytes() const { return bytesPerGroup * groups; }
};

struct LaunchResult {
  std::vector<uint64_t> groups;
  std::vector<double> kernelNs;   // per device (0 when idle), noise included
  std::vector<double> transferNs; // per device, before the kernel
  double timeNs = 0;              // transfers (parallel) + kernel (parallel) + host overhead
};

class Simulator {
public:
  Simulator(std::vector<SimDevice> devices, std::vector<SimBuffer> buffers, double noise = 0, uint64_t seed = 1,
            double hostOverheadNs = 5000)
      : devices_(std::move(devices)), buffers_(std::move(buffers)), noise_(noise), rng_(seed),
        hostOverheadNs_(hostOverheadNs) {
    for (const auto& b : buffers_)
      directories_.emplace_back(b.bytes(), buffer::kHost, uint64_t(partition::kHostProducer));
  }

  std::vector<partition::DeviceInfo> deviceInfos(bool tellLatency = true) const {
    std::vector<partition::DeviceInfo> out;
    for (const auto& d : devices_) {
      partition::DeviceInfo info;
      info.name = d.name;
      info.isGpu = d.gpu;
      info.computeUnits = d.gpu ? 100 : 16;
      info.platform = d.platform;
      info.concurrentGroups = d.parallelGroups;
      if (tellLatency) info.launchLatencyNs = uint64_t(d.launchNs);
      out.push_back(info);
    }
    return out;
  }

  std::vector<SimDevice>& devices() { return devices_; }
  // Reports are delivered this many launches after their plan() (0: at once).
  void setReportDelay(unsigned launches) { delay_ = launches; }

  LaunchResult launch(partition::Partitioner& p, const SimKernel& k, uint64_t iteration) {
    partition::LaunchRequest req;
    req.kernel = k.name;
    req.groups = k.groups;
    req.groupSize = k.groupSize;
    req.otherGroups = k.otherGroups;
    req.splittable = k.splittable;
    for (const auto& a : k.reads) req.buffers.push_back({a.buffer, true, false, buffers_[a.buffer].bytes()});
    for (const auto& a : k.writes) req.buffers.push_back({a.buffer, false, true, buffers_[a.buffer].bytes()});
    auto plan = p.plan(req);
    LaunchResult r = execute(plan, k, iteration);
    flush(p, false);
    return r;
  }

  // Runs one pass of `sequence`; returns the iteration time and each launch's result.
  double iterate(partition::Partitioner& p, const std::vector<SimKernel>& sequence, uint64_t iteration,
                 std::vector<LaunchResult>* results = nullptr) {
    double t = 0;
    for (const auto& k : sequence) {
      auto r = launch(p, k, iteration);
      t += r.timeNs;
      if (results) results->push_back(std::move(r));
    }
    return t;
  }

  // Delivers every pending report.
  void drain(partition::Partitioner& p) { flush(p, true); }

  // Simulated cost of a launch with a fixed split, without noise and without touching the
  // partitioner or the directories (for reference optima).
  LaunchResult costOf(const std::vector<uint64_t>& groups, const SimKernel& k, uint64_t iteration) {
    auto saved = directories_;
    auto savedClock = clock_;
    double savedNoise = noise_;
    noise_ = 0;
    partition::LaunchPlan plan{0, groups};
    auto pendingBefore = pending_.size();
    LaunchResult r = execute(plan, k, iteration);
    pending_.resize(pendingBefore);
    noise_ = savedNoise;
    directories_ = saved;
    clock_ = savedClock;
    return r;
  }

  void resetData() {
    for (size_t b = 0; b < buffers_.size(); ++b)
      directories_[b] = buffer::Directory<uint64_t>(buffers_[b].bytes(), buffer::kHost, partition::kHostProducer);
  }
  // Applies a launch's effect on data placement without reporting (to set up reference runs).
  LaunchResult applyFixed(const std::vector<uint64_t>& groups, const SimKernel& k, uint64_t it) {
    double savedNoise = noise_;
    noise_ = 0;
    auto before = pending_.size();
    auto savedClock = clock_;
    LaunchResult r = execute(partition::LaunchPlan{0, groups}, k, it);
    pending_.resize(before);
    clock_ = savedClock;
    noise_ = savedNoise;
    return r;
  }

private:
  struct Report {
    enum Kind { Kernel, Transfer, Volume } kind;
    uint64_t launch;
    unsigned device;
    uint64_t a, b; // groups/ns, direction/bytes..., producer/bytes
    Direction direction = Direction::HostToDevice;
    uint64_t due = 0;
  };

  double linkCost(buffer::Holder from, unsigned to, uint64_t bytes) const {
    const auto& dst = devices_[to];
    if (from == buffer::kHost) return dst.h2dLatency + dst.h2dPerByte * double(bytes);
    const auto& src = devices_[buffer::deviceOf(from)];
    if (src.platform == dst.platform) return dst.d2dLatency + dst.d2dPerByte * double(bytes);
    return src.d2hLatency + src.d2hPerByte * double(bytes) + dst.h2dLatency + dst.h2dPerByte * double(bytes);
  }

  LaunchResult execute(const partition::LaunchPlan& plan, const SimKernel& k, uint64_t it) {
    const unsigned n = unsigned(devices_.size());
    LaunchResult r;
    r.groups = plan.groups;
    r.kernelNs.assign(n, 0);
    r.transferNs.assign(n, 0);
    std::uniform_real_distribution<double> jitter(1 - noise_, 1 + noise_);
    uint64_t offset = 0;
    std::vector<uint64_t> offsets(n);
    for (unsigned d = 0; d < n; ++d) {
      offsets[d] = offset;
      offset += plan.groups[d];
    }
    // Transfers: every device's read region must be valid on it.
    for (unsigned d = 0; d < n; ++d) {
      if (plan.groups[d] == 0) continue;
      std::map<uint64_t, uint64_t> byProducer;
      for (const auto& a : k.reads) {
        const auto& buf = buffers_[a.buffer];
        auto& dir = directories_[a.buffer];
        RangeSet need;
        if (a.whole) {
          need = RangeSet::of(0, buf.bytes());
        } else {
          uint64_t lo = offsets[d] > a.haloGroups ? offsets[d] - a.haloGroups : 0;
          uint64_t hi = std::min(buf.groups, offsets[d] + plan.groups[d] + a.haloGroups);
          need = RangeSet::of(lo * buf.bytesPerGroup, hi * buf.bytesPerGroup);
        }
        auto cost = [&](buffer::Holder from, buffer::Holder, uint64_t bytes) { return linkCost(from, d, bytes); };
        for (const auto& t : buffer::planTransfers(dir, need, buffer::deviceHolder(d), cost)) {
          r.transferNs[d] += linkCost(t.from, d, t.range.size());
          // The copy keeps the producer's token, so later transfers are attributed to it.
          std::vector<std::pair<ByteRange, uint64_t>> pieces;
          dir.visit(t.range, [&](ByteRange piece, const buffer::Cell<uint64_t>& cell) {
            uint64_t producer = *cell.tokenOf(t.from);
            byProducer[producer] += piece.size();
            pieces.push_back({piece, producer});
          });
          for (const auto& [piece, producer] : pieces) dir.addCopy(RangeSet{piece}, buffer::deviceHolder(d), producer);
          if (t.from == buffer::kHost) {
            queue({Report::Transfer, plan.launchId, d, 0, t.range.size(), Direction::HostToDevice});
          } else {
            unsigned src = buffer::deviceOf(t.from);
            if (devices_[src].platform == devices_[d].platform) {
              queue({Report::Transfer, plan.launchId, d, 0, t.range.size(), Direction::DeviceToDevice});
            } else {
              queue({Report::Transfer, plan.launchId, src, 0, t.range.size(), Direction::DeviceToHost});
              queue({Report::Transfer, plan.launchId, d, 0, t.range.size(), Direction::HostToDevice});
            }
          }
        }
      }
      for (const auto& [producer, bytes] : byProducer) queue({Report::Volume, plan.launchId, d, producer, bytes});
    }
    // Kernels.
    double kernelMax = 0, transferMax = 0;
    unsigned used = 0;
    for (unsigned d = 0; d < n; ++d) {
      if (plan.groups[d] == 0) continue;
      ++used;
      double work = 0;
      // Rows of the split dimension, each of otherGroups work-groups of the row's work. A wave
      // holds parallelGroups work-groups: several rows, or a part of one row.
      const uint64_t end = offsets[d] + plan.groups[d], parallel = devices_[d].parallelGroups;
      const uint64_t wave = parallel ? std::max<uint64_t>(1, parallel / k.otherGroups) : 0;
      const double wavesPerRow =
          parallel && k.otherGroups > parallel ? std::ceil(double(k.otherGroups) / double(parallel)) : 1.0;
      if (wave == 0) {
        for (uint64_t g = offsets[d]; g < end; ++g) work += k.work(g, it) * double(k.otherGroups);
      } else if (wavesPerRow > 1) {
        for (uint64_t g = offsets[d]; g < end; ++g) work += k.work(g, it) * wavesPerRow;
      } else { // each wave of rows takes as long as its longest group
        for (uint64_t w = offsets[d]; w < end; w += wave) {
          double longest = 0;
          for (uint64_t g = w; g < std::min(end, w + wave); ++g) longest = std::max(longest, k.work(g, it));
          work += longest;
        }
      }
      double factor = d < k.deviceFactor.size() ? k.deviceFactor[d] : 1.0;
      double t = (devices_[d].launchNs + work * devices_[d].nsPerWork * factor) * jitter(rng_);
      r.kernelNs[d] = t;
      kernelMax = std::max(kernelMax, t);
      transferMax = std::max(transferMax, r.transferNs[d]);
      queue({Report::Kernel, plan.launchId, d, plan.groups[d], uint64_t(t)});
    }
    // Writes: each device becomes the only holder of its slice.
    for (unsigned d = 0; d < n; ++d) {
      if (plan.groups[d] == 0) continue;
      for (const auto& a : k.writes) {
        const auto& buf = buffers_[a.buffer];
        uint64_t lo = offsets[d], hi = std::min(buf.groups, offsets[d] + plan.groups[d]);
        if (lo < hi)
          directories_[a.buffer].setOnly(RangeSet::of(lo * buf.bytesPerGroup, hi * buf.bytesPerGroup),
                                         buffer::deviceHolder(d), plan.launchId);
      }
    }
    r.timeNs = transferMax + kernelMax + hostOverheadNs_ * used;
    ++clock_;
    return r;
  }

  void queue(Report rep) {
    rep.due = clock_ + delay_;
    pending_.push_back(rep);
  }

  void flush(partition::Partitioner& p, bool all) {
    while (!pending_.empty() && (all || pending_.front().due <= clock_)) {
      const Report& r = pending_.front();
      switch (r.kind) {
      case Report::Kernel:
        p.reportKernelTime(r.launch, r.device, r.a, r.b);
        break;
      case Report::Transfer:
        p.reportTransfer(r.device, r.direction, r.b, uint64_t(linkTime(r)));
        break;
      case Report::Volume:
        p.reportDependencyVolume(r.launch, r.device, r.a, r.b);
        break;
      }
      pending_.pop_front();
    }
  }

  double linkTime(const Report& r) const {
    const auto& d = devices_[r.device];
    switch (r.direction) {
    case Direction::HostToDevice:
      return d.h2dLatency + d.h2dPerByte * double(r.b);
    case Direction::DeviceToHost:
      return d.d2hLatency + d.d2hPerByte * double(r.b);
    case Direction::DeviceToDevice:
      return d.d2dLatency + d.d2dPerByte * double(r.b);
    }
    return 0;
  }

  std::vector<SimDevice> devices_;
  std::vector<SimBuffer> buffers_;
  std::vector<buffer::Directory<uint64_t>> directories_;
  double noise_;
  std::mt19937_64 rng_;
  double hostOverheadNs_;
  unsigned delay_ = 0;
  uint64_t clock_ = 0;
  std::deque<Report> pending_;
};

} // namespace clsplit::sim
