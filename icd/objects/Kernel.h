// A virtual kernel: the application's argument values, and one real kernel per device slot
// (arguments differ per device: each has its own copy of every buffer), set lazily and cached.
#pragma once

#include "icd/objects/Mem.h"
#include "icd/objects/Program.h"
#include "icd/objects/Sampler.h"
#include "planner/LaunchPlanner.h"

#include <array>
#include <atomic>
#include <functional>
#include <memory_resource>
#include <mutex>
#include <span>
#include <vector>

namespace clsplit::icd {

class Kernel final : public TypedObject<Kernel, _cl_kernel, ObjectKind::Kernel, CL_INVALID_KERNEL> {
public:
  Kernel(std::shared_ptr<Program> program, std::string name);
  ~Kernel() override;

  Program& program() const { return *program_; }
  const std::string& name() const { return name_; }
  cl_uint numArgs() const { return numArgs_; }
  const analysis::KernelAnalysis* analysis() const { return analysis_; }
  // Identity for the partitioner: program hash + name (stable across handles and runs).
  const std::string& identity() const { return identity_; }

  enum class ArgKind : uint8_t { Unset, Scalar, Mem, Local, Sampler, Svm };
  struct Arg {
    ArgKind kind = ArgKind::Unset;
    std::vector<std::byte> bytes;          // scalar value; for Svm, the pointer's
    std::weak_ptr<Mem> memRef;             // as set (kernel arguments do not retain memory objects)
    bool boundToBuffer = false;            // false: a NULL buffer
    std::shared_ptr<Mem> mem;              // in a launch's snapshot: the object, alive for the launch
    std::shared_ptr<icd::Sampler> sampler; // a sampler argument (each device gets its own real one)
    size_t localSize = 0;
  };
  void setArg(cl_uint index, size_t size, const void* value);
  // clSetKernelArgSVMPointer: a pointer into the context's SVM allocations (or NULL).
  void setArgSvm(cl_uint index, const void* pointer);
  // clSetKernelExecInfo: the SVM pointers the kernel may reach other than through its arguments.
  void setExecInfo(cl_kernel_exec_info param, size_t size, const void* value);
  // Whether launches use shared virtual memory (an SVM argument, or pointers given by
  // setExecInfo): they run whole on the device that holds it (Device::svmSlot).
  bool usesSvm() const {
    return svmArgs_.load(std::memory_order_relaxed) > 0 || svmExec_.load(std::memory_order_relaxed);
  }
  // The SVM pointers launches reach now: the SVM arguments' and setExecInfo's.
  std::vector<const void*> svmPointers() const;
  // clCloneKernel: a new kernel of the same function with the same argument values.
  std::shared_ptr<Kernel> clone() const;
  // A copy of the arguments for one launch (CL_INVALID_KERNEL_ARGS if one is unset).
  std::vector<Arg> snapshotArgs() const;
  // Whether argument `index` is declared read-only for the device (const or __constant).
  bool argReadOnly(cl_uint index) const;
  // Whether the kernel may write the buffer behind argument `index` (from the analysed
  // statements when the analysis is complete, else unless the argument is read-only).
  bool argWritten(cl_uint index) const { return index < written_.size() && written_[index]; }
  // Whether the kernel may read it (the same sources).
  bool argRead(cl_uint index) const { return index < read_.size() && read_[index]; }
  // Whether an argument is an image, and whether the kernel may write one: such a kernel runs
  // whole on one device (the analysis does not bound the pixels it writes). One that only reads
  // images may be split, each device holding the images whole.
  bool usesImages() const { return usesImages_; }
  bool writesImages() const { return writesImages_; }
  bool argIsImage(cl_uint index) const { return index < image_.size() && image_[index]; }

  // The memory objects bound to the arguments, alive for one launch (null where an argument is
  // not a buffer, or a NULL buffer), into `out` (resized to numArgs()). No argument value is
  // copied: the real kernels already hold the scalars. CL_INVALID_KERNEL_ARGS if an argument is
  // unset or its buffer was released.
  void bindBuffers(std::pmr::vector<std::shared_ptr<Mem>>& out) const;

  // Argument values for one real kernel, recorded to be set by the thread that enqueues the
  // launch (device/Submission.h): in order with that launch, whatever the application sets next.
  class ArgWrites {
  public:
    void add(cl_uint index, size_t size, const void* value); // value null: a __local size
    void addSvm(cl_uint index, const void* pointer);         // clSetKernelArgSVMPointer
    cl_int apply(cl_kernel kernel) const;

  private:
    struct Write {
      cl_uint index;
      size_t size;
      size_t at; // into bytes_
      bool null;
      bool svm = false; // bytes_ at `at` hold the pointer
    };
    std::vector<Write> writes_;
    std::vector<std::byte> bytes_;
  };

  // Whether `slot` has a real kernel (its device was built for: Program::builtFor).
  bool runsOn(unsigned slot) const { return slot < slots_.size() && slots_[slot].kernel; }
  // The real kernel of `slot` with the given arguments set (cached per slot).
  cl_kernel realKernel(unsigned slot, const std::vector<Arg>& args);
  // The same from bindBuffers()'s list. With `deferred`, the values the real kernel lacks are
  // recorded there instead of set now (the cache counts them as set).
  cl_kernel realKernel(unsigned slot, std::span<const std::shared_ptr<Mem>> buffers, ArgWrites* deferred = nullptr);
  // Sets the hidden arguments of the partition-ready kernel on `slot` for a slice of the launch
  // with this original global offset and size.
  void setHiddenArgs(unsigned slot, const std::array<uint64_t, 4>& offset, const std::array<uint64_t, 4>& size,
                     ArgWrites* deferred = nullptr);
  // The same for a launch that runs whole: the kernel's own built-ins are then right (the
  // prelude's whole-launch flag), so a range that changes every launch costs no vendor call.
  void setHiddenWhole(unsigned slot, ArgWrites* deferred = nullptr) {
    setHiddenArgs(slot, {0, 0, 0, 0}, {0, 0, 0, 1}, deferred);
  }
  // Whether the vendor of `slot` accepted a launch of this shape (dimensions, work-group size,
  // __local sizes) before: a launch that may be enqueued after the application's call returned
  // (device/Submission.h) must be one the vendor will not reject for its shape.
  bool shapeAccepted(unsigned slot, const analysis::NDRange& range) const;
  void noteShapeAccepted(unsigned slot, const analysis::NDRange& range);
  bool partitionReady() const { return analysis_ && analysis_->partitionReady && program_->partitionReadyBuild(); }

  cl_int info(cl_kernel_info param, size_t size, void* value, size_t* sizeRet) const;
  cl_int workGroupInfo(cl_kernel_work_group_info param, size_t size, void* value, size_t* sizeRet) const;
  cl_int argInfo(cl_uint index, cl_kernel_arg_info param, size_t size, void* value, size_t* sizeRet) const;
  // Plans this kernel's launches (remembering the slices of the last few).
  planner::LaunchPlanner& planner() { return planner_; }

  // Minimum of CL_KERNEL_WORK_GROUP_SIZE over the devices.
  size_t maxWorkGroupSize() const;
  // The largest CL_KERNEL_WORK_GROUP_SIZE of one device. Launches are checked against it, not
  // the smallest: some vendors report less than they run (Mesa 22.3's rusticl on llvmpipe: 32
  // for kernels it runs with 256 items per group), and a device that really cannot run a group
  // rejects its part, which then runs whole on another (icd/runtime/Launch.cpp).
  size_t largestWorkGroupSize() const;
  std::array<size_t, 3> requiredWorkGroupSize() const;

private:
  enum class DeclaredKind : uint8_t { Unknown, Buffer, Local, Value, Sampler };
  DeclaredKind declaredKind(cl_uint index) const;
  cl_kernel createReal(unsigned slot);

  std::shared_ptr<Program> program_;
  std::string name_;
  std::string identity_; // built once: asked for on every launch
  const analysis::KernelAnalysis* analysis_;
  cl_uint numArgs_ = 0;
  // Per argument, the real index of its window shift (partition-ready kernels' buffers), or -1.
  std::vector<int> shiftIndex_;
  unsigned first_ = 0;           // the first slot with a real kernel (Program::builtFor)
  device::RealKernel reference_; // its real kernel, for queries and argument validation
  mutable std::mutex mutex_;
  mutable std::once_flag requiredOnce_;
  mutable std::array<size_t, 3> required_{0, 0, 0}; // reqd_work_group_size, asked once
  mutable std::once_flag maxGroupOnce_;
  mutable size_t maxGroup_ = 0;     // CL_KERNEL_WORK_GROUP_SIZE, the smallest over the devices
  mutable size_t largestGroup_ = 0; // the largest over the devices
  std::vector<Arg> args_;
  planner::LaunchPlanner planner_;
  struct SlotKernel {
    device::RealKernel kernel;
    std::vector<cl_mem> boundMem;         // cached real buffers per argument
    std::vector<uint8_t> memArg;          // scratch of realKernel: whether argument i is a memory object
    std::vector<int64_t> boundShift;      // cached window shifts per argument
    std::vector<cl_sampler> boundSampler; // cached real samplers per argument
    std::vector<uint64_t> scalarVersion;  // argument versions already set
    uint64_t appliedUpTo = 0;             // every scalar of version <= this is set
    std::array<uint64_t, 8> hidden{};     // cached hidden-argument values
    bool hiddenSet = false;
    struct Shape {
      cl_uint dims = 0;                // 0: none accepted yet
      std::array<uint64_t, 3> local{}; // zeros: NULL (the vendor chose)
      uint64_t localArgs = 0;          // localArgsVersion_ then
    } accepted;
  };
  std::vector<SlotKernel> slots_;
  std::vector<uint64_t> argVersion_;
  // The newest version of a scalar or __local argument (applyScalars catches a slot up to it).
  std::atomic<uint64_t> latestScalar_{0};
  // Sets on `slot`'s real kernel the scalar and __local values it has not had yet (or records
  // them in `deferred`).
  void applyScalars(unsigned slot, ArgWrites* deferred = nullptr);
  // Binds argument `i`'s buffer on `slot` (and its window shift), unless already bound.
  void bindBuffer(unsigned slot, cl_uint i, Mem* mem, ArgWrites* deferred);
  // One value on a real kernel: set now, or recorded in `deferred`.
  static void setReal(cl_kernel real, cl_uint index, size_t size, const void* value, ArgWrites* deferred,
                      const char* what);
  // An SVM pointer on `slot`'s real kernel (its window shift 0: it is no copy of a buffer).
  void setRealSvm(unsigned slot, cl_uint index, const void* pointer, ArgWrites* deferred);
  // The size each by-value argument was last accepted with by the vendor (0: never): setting it
  // again with that size needs no vendor call to validate it.
  std::vector<size_t> acceptedSize_;
  // Bumped when a __local argument's size changes (launch shapes accepted before no longer hold).
  std::atomic<uint64_t> localArgsVersion_{0};
  std::vector<DeclaredKind> declared_;
  std::vector<bool> readOnly_;
  std::vector<bool> written_, read_;
  bool usesImages_ = false, writesImages_ = false;
  std::vector<bool> image_;
  std::atomic<bool> samplerArgs_{false}; // a sampler argument was set (bindSamplers has work)
  std::atomic<int> svmArgs_{0};          // arguments that are SVM pointers now
  std::atomic<bool> svmExec_{false};     // setExecInfo gave SVM pointers
  std::vector<void*> execSvmPointers_;   // as given (under mutex_), for clone()
  // Sets on `slot`'s real kernel the real samplers of sampler arguments it lacks.
  void bindSamplers(unsigned slot, ArgWrites* deferred);
};

} // namespace clsplit::icd
