// The performance model of one iteration of a kernel sequence (thesis Figure 4.6 plus fixed
// costs): what the linear program optimises and what every candidate split is judged by.
// All times in ns. An iteration is modelled as, for each kernel in order, the dependency
// transfers into every device in parallel, then the sub-kernels in parallel, plus the host's
// serial cost of issuing each sub-launch.
#pragma once

#include <cstdint>
#include <vector>

namespace clsplit::partition {

using Ratios = std::vector<std::vector<double>>; // [position][device], each row sums to 1

struct CostModel {
  struct Position {
    uint32_t kernel = 0;
    double groups = 1;                    // work-groups of the split dimension
    std::vector<double> nsPerGroup;       // f_d
    std::vector<double> launchNs;         // L_d, paid by every device that runs a share
    std::vector<double> concurrentGroups; // per device: a share takes at least as long as this
                                          // many groups (see shareTimeNs; empty: none)
    std::vector<bool> allowed;            // devices that may run it
    double hostBytes = 0;                 // bytes from the host per unit ratio, every iteration
    double bytes = 0;                     // of the buffers it uses: a share y needs about y * bytes
    double largest = 0;                   // of its largest buffer (y * largest in one allocation)
    double floorGroups(unsigned d) const { return d < concurrentGroups.size() ? concurrentGroups[d] : 0; }
  };
  struct Edge {
    unsigned producer = 0, consumer = 0; // positions; producer == consumer: previous iteration
    double bytesPerMismatch = 0;         // A
    double haloBytes = 0;                // c
  };
  struct Link {
    double perByteNs = 0, latencyNs = 0;
  };

  unsigned devices = 0;
  double hostOverheadNs = 0; // per sub-launch, serial
  std::vector<Position> positions;
  std::vector<Edge> edges;
  std::vector<std::vector<Link>> deviceLinks; // [from][to]
  std::vector<Link> hostLinks;                // host -> device
  // Per device, the bytes clsplit's copies may take there (absent or 0: no limit), and its
  // largest one allocation (absent or 0: no limit; it bounds a share's window of the position's
  // largest buffer). Where the allowed devices hold a launch together, a share beyond what its
  // device holds is constrained out of the LP and predicted to cost kUnfitNs; where their memory
  // cannot (left to evictions) the allocation bounds alone still are, where those hold it
  // together (partitioner/MemoryFit.h, boundsThatHold).
  std::vector<double> memoryBytes;
  std::vector<double> maxAllocBytes;

  // The largest share of position k that device d holds, by memory and largest allocation (1:
  // no limit), and all of them.
  double maxRatio(unsigned k, unsigned d) const;
  std::vector<double> maxShares(unsigned k) const;
  // The same by its largest allocation alone.
  double allocRatio(unsigned k, unsigned d) const;
  // The bounds the shares of position k are held to on the devices of `active` (boundsThatHold:
  // empty where no split fits, and evictions will decide).
  std::vector<double> shareBounds(unsigned k, const std::vector<bool>& active) const;
  // Whether both bounds of position k leave room for the whole launch on the devices of `active`.
  bool fitsOn(unsigned k, const std::vector<bool>& active) const;
  // Whether shares `y` of position k fit their bounds (to a work-group), or no split could.
  bool holds(unsigned k, const std::vector<double>& y) const;

  // Cost of receiving dependency bytes on `to` when the sending devices are those of `active`
  // other than `to` (their mean; sources are the neighbouring slices).
  Link inbound(const std::vector<bool>& active, unsigned to) const;

  struct Breakdown {
    double computeNs = 0, transferNs = 0, hostNs = 0;
    double memoryNs = 0; // kUnfitNs (MemoryFit.h) per position whose shares do not fit
    double total() const { return computeNs + transferNs + hostNs + memoryNs; }
  };
  Breakdown predict(const Ratios& ratios) const;
  // What the first iteration after changing the plan from `from` to `to` moves on top of what
  // `to` moves every iteration, as time: each edge's consumer at its new split against its
  // producer's last run at the old one (rows that change device), the devices receiving in
  // parallel. A plan change is worth it only when its gain repays this (adoptIfBetter).
  double transitionNs(const Ratios& from, const Ratios& to) const;
  // Compute time of one position alone with the given ratios (no transfers).
  double computeNs(unsigned position, const std::vector<double>& ratios) const;

  // Structure and coefficients equal within `relativeTolerance`.
  bool sameStructure(const CostModel& other) const;
  bool closeTo(const CostModel& other, double relativeTolerance) const;
};

} // namespace clsplit::partition
