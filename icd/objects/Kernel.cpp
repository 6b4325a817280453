// Kernel objects: argument validation and storage, per-slot real kernels, queries.
#include "icd/objects/Kernel.h"

#include "device/Submission.h"

#include "icd/objects/Device.h"
#include "icd/objects/Environment.h"
#include "icd/objects/InfoQuery.h"

#include <atomic>
#include <cstring>

namespace clsplit::icd {

using device::call;

namespace {
std::atomic<uint64_t> argVersionCounter{0};

template <class T>
T kernelWorkGroupValue(cl_kernel k, cl_device_id d, cl_kernel_work_group_info param) {
  T v{};
  call(&cl_icd_dispatch::clGetKernelWorkGroupInfo, k, d, param, sizeof v, static_cast<void*>(&v),
       static_cast<size_t*>(nullptr));
  return v;
}
} // namespace

Kernel::Kernel(std::shared_ptr<Program> program, std::string name)
    : program_(std::move(program)), name_(std::move(name)), analysis_(program_->kernelAnalysis(name_)) {
  require(program_->built(), CL_INVALID_PROGRAM_EXECUTABLE, "the program is not built");
  identity_ = program_->programHash() + ":" + name_;
  const auto& context = program_->context();
  slots_.resize(context.slots().size());
  first_ = static_cast<unsigned>(slots_.size());
  for (unsigned s = 0; s < slots_.size(); ++s)
    if (program_->builtFor(s)) {
      slots_[s].kernel = device::RealKernel::adopt(createReal(s));
      first_ = std::min(first_, s);
    }
  require(first_ < slots_.size(), CL_INVALID_PROGRAM_EXECUTABLE, "the program is built for no device");
  reference_ = slots_[first_].kernel;

  cl_uint realArgs = 0;
  device::check(call(&cl_icd_dispatch::clGetKernelInfo, reference_.get(), cl_kernel_info(CL_KERNEL_NUM_ARGS),
                     sizeof realArgs, static_cast<void*>(&realArgs), static_cast<size_t*>(nullptr)),
                "clGetKernelInfo(CL_KERNEL_NUM_ARGS)");
  cl_uint shifts = 0;
  if (partitionReady())
    for (const auto& a : analysis_->args)
      shifts += a.kind == analysis::ArgKind::GlobalBuffer || a.kind == analysis::ArgKind::ConstantBuffer;
  require(!partitionReady() || realArgs >= analysis::kHiddenArgCount + shifts, CL_INVALID_KERNEL,
          "the partition-ready kernel has fewer arguments than its analysis lists");
  numArgs_ = partitionReady() ? realArgs - analysis::kHiddenArgCount - shifts : realArgs;
  shiftIndex_.assign(numArgs_, -1);
  if (partitionReady())
    for (cl_uint i = 0, k = 0; i < numArgs_ && i < analysis_->args.size(); ++i)
      if (analysis_->args[i].kind == analysis::ArgKind::GlobalBuffer ||
          analysis_->args[i].kind == analysis::ArgKind::ConstantBuffer)
        shiftIndex_[i] = static_cast<int>(numArgs_ + analysis::kHiddenArgCount + k++);
  args_.resize(numArgs_);
  argVersion_.assign(numArgs_, 0);
  acceptedSize_.assign(numArgs_, 0);
  declared_.assign(numArgs_, DeclaredKind::Unknown);
  readOnly_.assign(numArgs_, false);
  image_.assign(numArgs_, false);
  for (cl_uint i = 0; i < numArgs_; ++i) {
    if (analysis_ && i < analysis_->args.size()) {
      switch (analysis_->args[i].kind) {
      case analysis::ArgKind::GlobalBuffer:
        declared_[i] = DeclaredKind::Buffer;
        break;
      case analysis::ArgKind::ConstantBuffer:
        declared_[i] = DeclaredKind::Buffer;
        readOnly_[i] = true;
        break;
      case analysis::ArgKind::LocalBuffer:
        declared_[i] = DeclaredKind::Local;
        break;
      case analysis::ArgKind::Scalar:
        declared_[i] = DeclaredKind::Value;
        break;
      case analysis::ArgKind::Image:
        declared_[i] = DeclaredKind::Buffer;
        image_[i] = true;
        break;
      case analysis::ArgKind::Sampler:
        declared_[i] = DeclaredKind::Sampler;
        break;
      }
    }
    if (declared_[i] == DeclaredKind::Unknown) {
      // Without the analysis, the vendor's type names tell images and samplers (where it keeps
      // argument information).
      char type[64] = {};
      if (call(&cl_icd_dispatch::clGetKernelArgInfo, reference_.get(), i, cl_kernel_arg_info(CL_KERNEL_ARG_TYPE_NAME),
               sizeof type - 1, static_cast<void*>(type), static_cast<size_t*>(nullptr)) == CL_SUCCESS) {
        const std::string_view name(type);
        if (name == "sampler_t")
          declared_[i] = DeclaredKind::Sampler;
        else if (analysis::isImageTypeName(name)) {
          declared_[i] = DeclaredKind::Buffer;
          image_[i] = true;
        }
      }
    }
    // The vendor's argument info, when it keeps it, settles what the analysis did not.
    cl_kernel_arg_address_qualifier address = 0;
    if (call(&cl_icd_dispatch::clGetKernelArgInfo, reference_.get(), i,
             cl_kernel_arg_info(CL_KERNEL_ARG_ADDRESS_QUALIFIER), sizeof address, static_cast<void*>(&address),
             static_cast<size_t*>(nullptr)) == CL_SUCCESS) {
      if (declared_[i] == DeclaredKind::Unknown) {
        if (address == CL_KERNEL_ARG_ADDRESS_GLOBAL || address == CL_KERNEL_ARG_ADDRESS_CONSTANT)
          declared_[i] = DeclaredKind::Buffer;
        else if (address == CL_KERNEL_ARG_ADDRESS_LOCAL)
          declared_[i] = DeclaredKind::Local;
        else
          declared_[i] = DeclaredKind::Value;
      }
      cl_kernel_arg_type_qualifier qualifier = 0;
      if (address == CL_KERNEL_ARG_ADDRESS_CONSTANT) readOnly_[i] = true;
      if (call(&cl_icd_dispatch::clGetKernelArgInfo, reference_.get(), i,
               cl_kernel_arg_info(CL_KERNEL_ARG_TYPE_QUALIFIER), sizeof qualifier, static_cast<void*>(&qualifier),
               static_cast<size_t*>(nullptr)) == CL_SUCCESS &&
          (qualifier & CL_KERNEL_ARG_TYPE_CONST) && address != CL_KERNEL_ARG_ADDRESS_PRIVATE)
        readOnly_[i] = true;
    }
  }
  // An image declared read_only is never written (write_only ones are read too: a kernel may
  // write some pixels only, and the others must keep their values). The access qualifier comes
  // from the analysis's compile, else from the vendor (where it keeps argument information).
  for (cl_uint i = 0; i < numArgs_; ++i) {
    if (!image_[i]) continue;
    usesImages_ = true;
    cl_kernel_arg_access_qualifier access = 0;
    if (analysis_ && i < analysis_->args.size() && analysis_->args[i].kind == analysis::ArgKind::Image)
      readOnly_[i] = analysis_->args[i].readOnlyImage;
    else if (call(&cl_icd_dispatch::clGetKernelArgInfo, reference_.get(), i,
                  cl_kernel_arg_info(CL_KERNEL_ARG_ACCESS_QUALIFIER), sizeof access, static_cast<void*>(&access),
                  static_cast<size_t*>(nullptr)) == CL_SUCCESS)
      readOnly_[i] = access == CL_KERNEL_ARG_ACCESS_READ_ONLY;
    writesImages_ = writesImages_ || !readOnly_[i];
  }
  written_.resize(numArgs_);
  read_.resize(numArgs_);
  const bool complete = analysis_ && !analysis_->unsplittableReason && !writesImages_;
  for (cl_uint i = 0; i < numArgs_; ++i) {
    if (image_[i]) { // no statement names an image's pixels
      read_[i] = true;
      written_[i] = !readOnly_[i];
      continue;
    }
    if (!complete) {
      written_[i] = !readOnly_[i];
      read_[i] = true;
      continue;
    }
    for (const auto& st : analysis_->regions.statements)
      if (st.arg == i) (st.kind == analysis::AccessKind::Read ? read_ : written_)[i] = true;
  }
  program_->attachKernel();
}

Kernel::~Kernel() { program_->detachKernel(); }

cl_kernel Kernel::createReal(unsigned slot) {
  const auto& sc = program_->context().slot(slot);
  cl_program real = program_->realProgram(sc.platform);
  require(real != nullptr, CL_INVALID_PROGRAM_EXECUTABLE, "the program is not built for every device");
  cl_int err = CL_SUCCESS;
  cl_kernel k = call(&cl_icd_dispatch::clCreateKernel, real, name_.c_str(), &err);
  if (err != CL_SUCCESS) throw Error(err, "clCreateKernel(" + name_ + ") failed");
  return k;
}

Kernel::DeclaredKind Kernel::declaredKind(cl_uint index) const { return declared_[index]; }

bool Kernel::argReadOnly(cl_uint index) const { return index < readOnly_.size() && readOnly_[index]; }

std::shared_ptr<Kernel> Kernel::clone() const {
  auto copy = std::make_shared<Kernel>(program_, name_);
  std::vector<Arg> args;
  {
    std::lock_guard lock(mutex_);
    args = args_;
  }
  std::vector<void*> execPointers;
  {
    std::lock_guard lock(mutex_);
    execPointers = execSvmPointers_;
  }
  if (!execPointers.empty()) { // as set: the allocations may have been freed since (valid until a launch)
    const auto svmSlot = program_->context().device().svmSlot();
    device::check(call(&cl_icd_dispatch::clSetKernelExecInfo, copy->slots_.at(*svmSlot).kernel.get(),
                       cl_kernel_exec_info(CL_KERNEL_EXEC_INFO_SVM_PTRS), execPointers.size() * sizeof(void*),
                       static_cast<const void*>(execPointers.data())),
                  "clSetKernelExecInfo (clone)");
    std::lock_guard lock(copy->mutex_);
    copy->execSvmPointers_ = execPointers;
    copy->svmExec_.store(true, std::memory_order_relaxed);
  }
  for (cl_uint i = 0; i < args.size(); ++i) {
    const Arg& a = args[i];
    switch (a.kind) {
    case ArgKind::Unset:
      break;
    case ArgKind::Scalar:
      copy->setArg(i, a.bytes.size(), a.bytes.data());
      break;
    case ArgKind::Local:
      copy->setArg(i, a.localSize, nullptr);
      break;
    case ArgKind::Sampler: {
      std::lock_guard lock(copy->mutex_);
      copy->args_[i] = a;
      copy->samplerArgs_.store(true, std::memory_order_relaxed);
      break;
    }
    case ArgKind::Svm: { // as set (not checked again: its allocation may be freed until a launch)
      std::lock_guard lock(copy->mutex_);
      copy->args_[i] = a;
      copy->argVersion_[i] = ++argVersionCounter;
      copy->svmArgs_.fetch_add(1, std::memory_order_relaxed);
      copy->latestScalar_.store(copy->argVersion_[i], std::memory_order_release);
      break;
    }
    case ArgKind::Mem: {
      auto mem = a.memRef.lock();
      if (a.boundToBuffer && !mem) { // released since: launches of either kernel fail alike
        std::lock_guard lock(copy->mutex_);
        copy->args_[i] = a;
        break;
      }
      cl_mem handle = mem ? mem->handle() : nullptr;
      copy->setArg(i, sizeof handle, &handle);
      break;
    }
    }
  }
  return copy;
}

void Kernel::setArg(cl_uint index, size_t size, const void* value) {
  require(index < numArgs_, CL_INVALID_ARG_INDEX, "arg_index is not a kernel argument");
  DeclaredKind kind = declared_[index];
  if (kind == DeclaredKind::Unknown) {
    // Neither the analysis nor the vendor told what this argument is: infer it from the call.
    require(value || size > 0, CL_INVALID_ARG_SIZE, "arg_size is 0");
    if (!value && size > 0)
      kind = DeclaredKind::Local;
    else if (size == sizeof(cl_mem) && value &&
             (*static_cast<const cl_mem*>(value) == nullptr || Mem::tryFrom(*static_cast<const cl_mem*>(value))))
      kind = DeclaredKind::Buffer;
    else if (size == sizeof(cl_sampler) && value && Sampler::tryFrom(*static_cast<const cl_sampler*>(value)))
      kind = DeclaredKind::Sampler;
    else
      kind = DeclaredKind::Value;
  }
  Arg arg;
  bool validatedOnFirst = false; // the vendor call that checked the value also set it on slot 0
  switch (kind) {
  case DeclaredKind::Buffer: {
    require(size == sizeof(cl_mem), CL_INVALID_ARG_SIZE, "a buffer argument takes sizeof(cl_mem)");
    cl_mem handle = value ? *static_cast<const cl_mem*>(value) : nullptr;
    arg.kind = ArgKind::Mem;
    if (handle) {
      auto mem = Mem::tryFrom(handle);
      require(mem != nullptr, CL_INVALID_MEM_OBJECT, "arg_value is not a valid memory object");
      require(&mem->context() == &program_->context(), CL_INVALID_MEM_OBJECT,
              "the memory object belongs to another context");
      arg.memRef = mem; // a kernel argument does not keep the object alive (OpenCL 1.2 §5.4.1)
      arg.boundToBuffer = true;
    }
    break;
  }
  case DeclaredKind::Sampler: {
    require(size == sizeof(cl_sampler), CL_INVALID_ARG_SIZE, "a sampler argument takes sizeof(cl_sampler)");
    require(value != nullptr, CL_INVALID_SAMPLER, "arg_value is NULL for a sampler argument");
    auto sampler = Sampler::tryFrom(*static_cast<const cl_sampler*>(value));
    require(sampler != nullptr, CL_INVALID_SAMPLER, "arg_value is not a valid sampler");
    require(&sampler->context() == &program_->context(), CL_INVALID_SAMPLER, "the sampler belongs to another context");
    arg.kind = ArgKind::Sampler;
    arg.sampler = std::move(sampler);
    samplerArgs_.store(true, std::memory_order_relaxed);
    break;
  }
  case DeclaredKind::Local: {
    require(value == nullptr, CL_INVALID_ARG_VALUE, "a __local argument takes a NULL arg_value");
    require(size > 0, CL_INVALID_ARG_SIZE, "a __local argument needs a size");
    {
      std::lock_guard lock(mutex_);
      const Arg& current = args_[index];
      if (current.kind == ArgKind::Local && current.localSize == size) return;
    }
    // Checked on the first real kernel now (after the launches deferred on it: this sets its
    // value); the others get it before they run.
    device::submission::drain();
    device::check(call(&cl_icd_dispatch::clSetKernelArg, slots_[first_].kernel.get(), index, size,
                       static_cast<const void*>(nullptr)),
                  "clSetKernelArg (__local)");
    localArgsVersion_.fetch_add(1, std::memory_order_relaxed);
    validatedOnFirst = true;
    arg.kind = ArgKind::Local;
    arg.localSize = size;
    break;
  }
  default: {
    require(value != nullptr, CL_INVALID_ARG_VALUE, "arg_value is NULL for a by-value argument");
    // The vendor validates the size against the declared type, on the first real kernel, the
    // first time the argument gets this size; the real kernels get the value before they run a
    // launch (a program that changes a scalar before every launch would otherwise pay a vendor
    // call per selected device, and one racing the launches deferred on the first kernel).
    bool known;
    {
      // The value it already has (programs often set every argument before every launch): no
      // vendor call, and no new version for the other devices' kernels to apply.
      std::lock_guard lock(mutex_);
      const Arg& current = args_[index];
      if (current.kind == ArgKind::Scalar && current.bytes.size() == size &&
          std::memcmp(current.bytes.data(), value, size) == 0)
        return;
      known = acceptedSize_[index] == size;
    }
    if (!known) {
      device::submission::drain(); // this sets the first kernel's value
      cl_int err = call(&cl_icd_dispatch::clSetKernelArg, slots_[first_].kernel.get(), index, size, value);
      if (err != CL_SUCCESS) throw Error(err, "clSetKernelArg rejected by the device");
      validatedOnFirst = true;
    }
    arg.kind = ArgKind::Scalar;
    arg.bytes.assign(static_cast<const std::byte*>(value), static_cast<const std::byte*>(value) + size);
    break;
  }
  }
  std::lock_guard lock(mutex_);
  uint64_t version = ++argVersionCounter;
  if (args_[index].kind == ArgKind::Svm) svmArgs_.fetch_sub(1, std::memory_order_relaxed);
  args_[index] = std::move(arg);
  argVersion_[index] = version;
  if (kind == DeclaredKind::Value) acceptedSize_[index] = size;
  if (kind != DeclaredKind::Buffer && kind != DeclaredKind::Sampler) {
    auto& first = slots_[first_];
    if (first.scalarVersion.size() < numArgs_) first.scalarVersion.resize(numArgs_, 0);
    const uint64_t previous = latestScalar_.load(std::memory_order_relaxed);
    if (validatedOnFirst) {
      first.scalarVersion[index] = version; // set above
      // Caught up before, so still caught up (otherwise applyScalars sets what it lacks).
      if (first.appliedUpTo >= previous) first.appliedUpTo = version;
    }
    latestScalar_.store(version, std::memory_order_release);
  }
}

void Kernel::applyScalars(unsigned slot, ArgWrites* deferred) {
  auto& s = slots_[slot];
  const uint64_t latest = latestScalar_.load(std::memory_order_acquire);
  if (s.appliedUpTo >= latest) return;
  std::lock_guard lock(mutex_);
  if (s.scalarVersion.size() < numArgs_) s.scalarVersion.resize(numArgs_, 0);
  for (cl_uint i = 0; i < numArgs_; ++i) {
    const Arg& a = args_[i];
    if ((a.kind != ArgKind::Scalar && a.kind != ArgKind::Local && a.kind != ArgKind::Svm) ||
        s.scalarVersion[i] == argVersion_[i])
      continue;
    if (a.kind == ArgKind::Svm) {
      const void* pointer;
      std::memcpy(&pointer, a.bytes.data(), sizeof pointer);
      setRealSvm(slot, i, pointer, deferred);
      s.scalarVersion[i] = argVersion_[i];
      continue;
    }
    const size_t size = a.kind == ArgKind::Local ? a.localSize : a.bytes.size();
    const void* value = a.kind == ArgKind::Local ? nullptr : static_cast<const void*>(a.bytes.data());
    setReal(s.kernel.get(), i, size, value, deferred, "clSetKernelArg (value set earlier)");
    s.scalarVersion[i] = argVersion_[i];
  }
  s.appliedUpTo = latest;
}

void Kernel::setReal(cl_kernel real, cl_uint index, size_t size, const void* value, ArgWrites* deferred,
                     const char* what) {
  if (deferred)
    deferred->add(index, size, value);
  else
    device::check(call(&cl_icd_dispatch::clSetKernelArg, real, index, size, value), what);
}

void Kernel::setRealSvm(unsigned slot, cl_uint index, const void* pointer, ArgWrites* deferred) {
  auto& s = slots_[slot];
  if (deferred)
    deferred->addSvm(index, pointer);
  else
    device::check(call(&cl_icd_dispatch::clSetKernelArgSVMPointer, s.kernel.get(), index, pointer),
                  "clSetKernelArgSVMPointer");
  // The argument holds no buffer now: a buffer bound to it later is set again.
  if (s.boundMem.size() < numArgs_) s.boundMem.resize(numArgs_, reinterpret_cast<cl_mem>(~uintptr_t{0}));
  s.boundMem[index] = reinterpret_cast<cl_mem>(~uintptr_t{0});
  if (const int shiftAt = shiftIndex_[index]; shiftAt >= 0) {
    if (s.boundShift.size() < numArgs_) s.boundShift.resize(numArgs_, INT64_MIN);
    if (s.boundShift[index] != 0) {
      const cl_long zero = 0;
      setReal(s.kernel.get(), static_cast<cl_uint>(shiftAt), sizeof zero, &zero, deferred,
              "clSetKernelArg (window shift of an SVM argument)");
      s.boundShift[index] = 0;
    }
  }
}

void Kernel::setArgSvm(cl_uint index, const void* pointer) {
  require(index < numArgs_, CL_INVALID_ARG_INDEX, "arg_index is not a kernel argument");
  require(program_->context().device().svmSlot().has_value(), CL_INVALID_OPERATION,
          "no device of the context offers shared virtual memory");
  require((declared_[index] == DeclaredKind::Buffer || declared_[index] == DeclaredKind::Unknown) && !argIsImage(index),
          CL_INVALID_ARG_VALUE, "the argument is not a pointer to global or constant memory");
  require(!pointer || program_->context().svm().find(pointer), CL_INVALID_ARG_VALUE,
          "arg_value is not a pointer into an SVM allocation of the kernel's context");
  Arg arg;
  arg.kind = ArgKind::Svm;
  arg.bytes.resize(sizeof pointer);
  std::memcpy(arg.bytes.data(), &pointer, sizeof pointer);
  std::lock_guard lock(mutex_);
  const uint64_t version = ++argVersionCounter;
  if (args_[index].kind != ArgKind::Svm) svmArgs_.fetch_add(1, std::memory_order_relaxed);
  args_[index] = std::move(arg);
  argVersion_[index] = version;
  latestScalar_.store(version, std::memory_order_release);
}

std::vector<const void*> Kernel::svmPointers() const {
  std::lock_guard lock(mutex_);
  std::vector<const void*> pointers(execSvmPointers_.begin(), execSvmPointers_.end());
  for (const Arg& a : args_)
    if (a.kind == ArgKind::Svm) {
      const void* pointer;
      std::memcpy(&pointer, a.bytes.data(), sizeof pointer);
      if (pointer) pointers.push_back(pointer);
    }
  return pointers;
}

void Kernel::setExecInfo(cl_kernel_exec_info param, size_t size, const void* value) {
  const auto svmSlot = program_->context().device().svmSlot();
  require(svmSlot.has_value() && runsOn(*svmSlot), CL_INVALID_OPERATION,
          "no device of the context offers shared virtual memory");
  require(value != nullptr && size > 0, CL_INVALID_VALUE, "param_value is NULL or param_value_size is 0");
  switch (param) {
  case CL_KERNEL_EXEC_INFO_SVM_PTRS: {
    require(size % sizeof(void*) == 0, CL_INVALID_VALUE, "param_value_size is not a multiple of sizeof(void*)");
    const auto* first = static_cast<void* const*>(value);
    std::vector<void*> pointers(first, first + size / sizeof(void*));
    for (void* p : pointers)
      require(program_->context().svm().find(p).has_value(), CL_INVALID_VALUE,
              "a pointer is not in an SVM allocation of the kernel's context");
    // The SVM device's kernel is the one that runs such launches.
    device::check(call(&cl_icd_dispatch::clSetKernelExecInfo, slots_.at(*svmSlot).kernel.get(), param, size, value),
                  "clSetKernelExecInfo");
    std::lock_guard lock(mutex_);
    execSvmPointers_ = std::move(pointers);
    svmExec_.store(!execSvmPointers_.empty(), std::memory_order_relaxed);
    return;
  }
  case CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM: {
    require(size == sizeof(cl_bool), CL_INVALID_VALUE, "param_value_size is not sizeof(cl_bool)");
    require(*static_cast<const cl_bool*>(value) == CL_FALSE, CL_INVALID_OPERATION,
            "the clsplit device does not offer fine-grained system SVM");
    return;
  }
  default:
    throw Error(CL_INVALID_VALUE, "param_name is not a kernel execution setting");
  }
}

void Kernel::ArgWrites::addSvm(cl_uint index, const void* pointer) {
  const size_t at = bytes_.size();
  const auto* p = reinterpret_cast<const std::byte*>(&pointer);
  bytes_.insert(bytes_.end(), p, p + sizeof pointer);
  writes_.push_back({index, sizeof pointer, at, false, true});
}

void Kernel::ArgWrites::add(cl_uint index, size_t size, const void* value) {
  const size_t at = bytes_.size();
  if (value) {
    const auto* p = static_cast<const std::byte*>(value);
    bytes_.insert(bytes_.end(), p, p + size);
  }
  writes_.push_back({index, size, at, value == nullptr});
}

cl_int Kernel::ArgWrites::apply(cl_kernel kernel) const {
  for (const auto& w : writes_) {
    const void* value = w.null ? nullptr : static_cast<const void*>(bytes_.data() + w.at);
    if (w.svm) {
      const void* pointer;
      std::memcpy(&pointer, value, sizeof pointer);
      if (cl_int err = call(&cl_icd_dispatch::clSetKernelArgSVMPointer, kernel, w.index, pointer); err != CL_SUCCESS)
        return err;
      continue;
    }
    if (cl_int err = call(&cl_icd_dispatch::clSetKernelArg, kernel, w.index, w.size, value); err != CL_SUCCESS)
      return err;
  }
  return CL_SUCCESS;
}

bool Kernel::shapeAccepted(unsigned slot, const analysis::NDRange& range) const {
  const auto& a = slots_.at(slot).accepted;
  return a.dims == range.dims && a.local == range.local &&
         a.localArgs == localArgsVersion_.load(std::memory_order_relaxed);
}

void Kernel::noteShapeAccepted(unsigned slot, const analysis::NDRange& range) {
  auto& a = slots_.at(slot).accepted;
  a.dims = range.dims;
  a.local = range.local;
  a.localArgs = localArgsVersion_.load(std::memory_order_relaxed);
}

std::vector<Kernel::Arg> Kernel::snapshotArgs() const {
  std::lock_guard lock(mutex_);
  std::vector<Arg> args = args_;
  for (auto& a : args) {
    require(a.kind != ArgKind::Unset, CL_INVALID_KERNEL_ARGS, "a kernel argument has not been set");
    if (a.kind == ArgKind::Mem && a.boundToBuffer) {
      a.mem = a.memRef.lock();
      require(a.mem && a.mem->referenceCount() > 0, CL_INVALID_KERNEL_ARGS, "a buffer argument was released");
    }
  }
  return args;
}

void Kernel::bindBuffers(std::pmr::vector<std::shared_ptr<Mem>>& out) const {
  std::lock_guard lock(mutex_);
  out.resize(args_.size());
  for (size_t i = 0; i < args_.size(); ++i) {
    const Arg& a = args_[i];
    require(a.kind != ArgKind::Unset, CL_INVALID_KERNEL_ARGS, "a kernel argument has not been set");
    if (a.kind != ArgKind::Mem || !a.boundToBuffer) {
      out[i] = nullptr;
      continue;
    }
    out[i] = a.memRef.lock();
    require(out[i] && out[i]->referenceCount() > 0, CL_INVALID_KERNEL_ARGS, "a buffer argument was released");
  }
}

void Kernel::bindSamplers(unsigned slot, ArgWrites* deferred) {
  auto& s = slots_.at(slot);
  if (s.boundSampler.size() < numArgs_) s.boundSampler.resize(numArgs_, nullptr);
  for (cl_uint i = 0; i < numArgs_; ++i) {
    std::shared_ptr<Sampler> sampler;
    {
      std::lock_guard lock(mutex_);
      if (args_[i].kind != ArgKind::Sampler) continue; // (unset: the launch fails in bindBuffers)
      sampler = args_[i].sampler;
    }
    cl_sampler real = sampler->realFor(slot);
    if (s.boundSampler[i] == real) continue;
    setReal(s.kernel.get(), i, sizeof real, &real, deferred, "clSetKernelArg (sampler)");
    s.boundSampler[i] = real;
  }
}

cl_kernel Kernel::realKernel(unsigned slot, std::span<const std::shared_ptr<Mem>> buffers, ArgWrites* deferred) {
  auto& s = slots_.at(slot);
  require(static_cast<bool>(s.kernel), CL_INVALID_PROGRAM_EXECUTABLE, "the program is not built for this device");
  applyScalars(slot, deferred);
  if (samplerArgs_.load(std::memory_order_relaxed)) bindSamplers(slot, deferred);
  if (s.boundMem.size() < numArgs_) s.boundMem.resize(numArgs_, reinterpret_cast<cl_mem>(~uintptr_t{0}));
  s.memArg.resize(numArgs_);
  {
    std::lock_guard lock(mutex_); // only buffer arguments are bound here (binding takes other locks)
    for (cl_uint i = 0; i < numArgs_; ++i) s.memArg[i] = args_[i].kind == ArgKind::Mem;
  }
  for (cl_uint i = 0; i < numArgs_; ++i) {
    if (declared_[i] == DeclaredKind::Local || declared_[i] == DeclaredKind::Value ||
        declared_[i] == DeclaredKind::Sampler || !s.memArg[i])
      continue;
    bindBuffer(slot, i, buffers[i].get(), deferred);
  }
  return s.kernel.get();
}

void Kernel::bindBuffer(unsigned slot, cl_uint i, Mem* mem, ArgWrites* deferred) {
  auto& s = slots_[slot];
  if (s.boundShift.size() < numArgs_) s.boundShift.resize(numArgs_, INT64_MIN); // none set yet
  const int shiftAt = shiftIndex_[i];
  Mem::Bound bound;
  if (mem) bound = shiftAt >= 0 ? mem->boundFor(slot) : Mem::Bound{mem->realFor(slot), 0};
  if (s.boundMem[i] != bound.mem) {
    setReal(s.kernel.get(), i, sizeof(cl_mem), &bound.mem, deferred, "clSetKernelArg (buffer)");
    s.boundMem[i] = bound.mem;
  }
  // The shift is set once per slot (0 for whole copies) and again only when a window moves.
  if (shiftAt >= 0 && s.boundShift[i] != bound.shift) {
    const cl_long shift = bound.shift;
    setReal(s.kernel.get(), static_cast<cl_uint>(shiftAt), sizeof shift, &shift, deferred,
            "clSetKernelArg (window shift)");
    s.boundShift[i] = bound.shift;
  }
}

cl_kernel Kernel::realKernel(unsigned slot, const std::vector<Arg>& args) {
  auto& s = slots_.at(slot);
  require(static_cast<bool>(s.kernel), CL_INVALID_PROGRAM_EXECUTABLE, "the program is not built for this device");
  applyScalars(slot);
  if (samplerArgs_.load(std::memory_order_relaxed)) bindSamplers(slot, nullptr);
  if (s.boundMem.size() < numArgs_) s.boundMem.resize(numArgs_, reinterpret_cast<cl_mem>(~uintptr_t{0}));
  for (cl_uint i = 0; i < numArgs_; ++i) {
    if (args[i].kind != ArgKind::Mem) continue;
    bindBuffer(slot, i, args[i].mem.get(), nullptr);
  }
  return s.kernel.get();
}

void Kernel::setHiddenArgs(unsigned slot, const std::array<uint64_t, 4>& offset, const std::array<uint64_t, 4>& size,
                           ArgWrites* deferred) {
  auto& s = slots_.at(slot);
  std::array<uint64_t, 8> values{offset[0], offset[1], offset[2], offset[3], size[0], size[1], size[2], size[3]};
  if (s.hiddenSet && s.hidden == values) return;
  cl_ulong4 o, g;
  for (int i = 0; i < 4; ++i) {
    o.s[i] = offset[i];
    g.s[i] = size[i];
  }
  setReal(s.kernel.get(), numArgs_, sizeof o, &o, deferred, "clSetKernelArg (hidden offset)");
  setReal(s.kernel.get(), numArgs_ + 1, sizeof g, &g, deferred, "clSetKernelArg (hidden size)");
  s.hidden = values;
  s.hiddenSet = true;
}

size_t Kernel::maxWorkGroupSize() const {
  // Asked at every launch without a local size: queried once (a driver query costs microseconds).
  std::call_once(maxGroupOnce_, [this] {
    size_t smallest = SIZE_MAX, largest = 0;
    const auto& context = program_->context();
    bool oneDevice = true;
    for (unsigned i = 0; i < slots_.size(); ++i) {
      if (!slots_[i].kernel) continue;
      oneDevice &= context.slot(i).device == context.slot(first_).device;
      const size_t limit =
          kernelWorkGroupValue<size_t>(slots_[i].kernel.get(), context.slot(i).device, CL_KERNEL_WORK_GROUP_SIZE);
      smallest = std::min(smallest, limit);
      largest = std::max(largest, limit);
    }
    // One device runs every launch: its vendor judges a group up to the device's limit, as
    // directly (rusticl reports 32 for kernels it runs with groups of 256). Not where one device
    // selected twice splits: its slices would be rejected.
    if (oneDevice && environment().partitioner().onlyDevice()) {
      size_t deviceLimit = 0;
      if (call(&cl_icd_dispatch::clGetDeviceInfo, context.slot(first_).device,
               cl_device_info(CL_DEVICE_MAX_WORK_GROUP_SIZE), sizeof deviceLimit, static_cast<void*>(&deviceLimit),
               static_cast<size_t*>(nullptr)) == CL_SUCCESS)
        largest = std::max(largest, deviceLimit);
    }
    maxGroup_ = smallest;
    largestGroup_ = largest;
  });
  return maxGroup_;
}

size_t Kernel::largestWorkGroupSize() const {
  maxWorkGroupSize();
  return largestGroup_;
}

std::array<size_t, 3> Kernel::requiredWorkGroupSize() const {
  std::call_once(requiredOnce_, [this] {
    call(&cl_icd_dispatch::clGetKernelWorkGroupInfo, reference_.get(), program_->context().slot(first_).device,
         cl_kernel_work_group_info(CL_KERNEL_COMPILE_WORK_GROUP_SIZE), sizeof required_,
         static_cast<void*>(required_.data()), static_cast<size_t*>(nullptr));
  });
  return required_;
}

cl_int Kernel::info(cl_kernel_info param, size_t size, void* value, size_t* sizeRet) const {
  switch (param) {
  case CL_KERNEL_FUNCTION_NAME:
    return writeInfo(InfoValue::string(name_), size, value, sizeRet);
  case CL_KERNEL_NUM_ARGS:
    return writeInfo(InfoValue::of(numArgs_), size, value, sizeRet);
  case CL_KERNEL_REFERENCE_COUNT:
    return writeInfo(InfoValue::of(referenceCount()), size, value, sizeRet);
  case CL_KERNEL_CONTEXT:
    return writeInfo(InfoValue::of(program_->context().handle()), size, value, sizeRet);
  case CL_KERNEL_PROGRAM:
    return writeInfo(InfoValue::of(program_->handle()), size, value, sizeRet);
  case CL_KERNEL_ATTRIBUTES: {
    size_t n = 0;
    std::string attributes;
    if (call(&cl_icd_dispatch::clGetKernelInfo, reference_.get(), cl_kernel_info(CL_KERNEL_ATTRIBUTES), size_t(0),
             static_cast<void*>(nullptr), &n) == CL_SUCCESS &&
        n) {
      attributes.resize(n);
      call(&cl_icd_dispatch::clGetKernelInfo, reference_.get(), cl_kernel_info(CL_KERNEL_ATTRIBUTES), n,
           static_cast<void*>(attributes.data()), static_cast<size_t*>(nullptr));
      attributes.resize(std::strlen(attributes.c_str()));
    }
    return writeInfo(InfoValue::string(attributes), size, value, sizeRet);
  }
  default:
    throw Error(CL_INVALID_VALUE, "unknown kernel info");
  }
}

cl_int Kernel::workGroupInfo(cl_kernel_work_group_info param, size_t size, void* value, size_t* sizeRet) const {
  const auto& context = program_->context();
  switch (param) {
  case CL_KERNEL_WORK_GROUP_SIZE:
    return writeInfo(InfoValue::of(maxWorkGroupSize()), size, value, sizeRet);
  case CL_KERNEL_COMPILE_WORK_GROUP_SIZE: {
    auto required = requiredWorkGroupSize();
    return writeInfo(InfoValue::array(std::vector<size_t>(required.begin(), required.end())), size, value, sizeRet);
  }
  case CL_KERNEL_LOCAL_MEM_SIZE:
  case CL_KERNEL_PRIVATE_MEM_SIZE: {
    cl_ulong most = 0;
    for (unsigned i = 0; i < slots_.size(); ++i)
      if (slots_[i].kernel)
        most = std::max(most, kernelWorkGroupValue<cl_ulong>(slots_[i].kernel.get(), context.slot(i).device, param));
    return writeInfo(InfoValue::of(most), size, value, sizeRet);
  }
  case CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE: {
    size_t most = 1;
    for (unsigned i = 0; i < slots_.size(); ++i)
      if (slots_[i].kernel)
        most = std::max(most, kernelWorkGroupValue<size_t>(slots_[i].kernel.get(), context.slot(i).device, param));
    return writeInfo(InfoValue::of(most), size, value, sizeRet);
  }
  default:
    throw Error(CL_INVALID_VALUE, "unknown or inapplicable kernel work-group info");
  }
}

cl_int Kernel::argInfo(cl_uint index, cl_kernel_arg_info param, size_t size, void* value, size_t* sizeRet) const {
  require(index < numArgs_, CL_INVALID_ARG_INDEX, "arg_index is not a kernel argument");
  cl_int err = call(&cl_icd_dispatch::clGetKernelArgInfo, reference_.get(), index, param, size, value, sizeRet);
  if (err != CL_SUCCESS) throw Error(err, "argument information is not available from the device");
  return CL_SUCCESS;
}

} // namespace clsplit::icd
