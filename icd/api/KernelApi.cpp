// Entry points about kernels.
#include "icd/api/Api.h"
#include "icd/objects/Device.h"
#include "icd/objects/Kernel.h"

namespace clsplit::icd::api {

cl_kernel clCreateKernel(cl_program program, const char* kernel_name, cl_int*) {
  auto p = Program::from(program);
  require(kernel_name != nullptr, CL_INVALID_VALUE, "kernel_name is NULL");
  require(p->built(), CL_INVALID_PROGRAM_EXECUTABLE, "the program is not built");
  return std::make_shared<Kernel>(p, kernel_name)->publishHandle();
}

cl_int clCreateKernelsInProgram(cl_program program, cl_uint num_kernels, cl_kernel* kernels, cl_uint* num_kernels_ret) {
  auto p = Program::from(program);
  require(p->built(), CL_INVALID_PROGRAM_EXECUTABLE, "the program is not built");
  auto names = p->kernelNames();
  require(!kernels || num_kernels >= names.size(), CL_INVALID_VALUE, "num_kernels is too small");
  if (kernels) {
    std::vector<std::shared_ptr<Kernel>> created;
    for (const auto& name : names) created.push_back(std::make_shared<Kernel>(p, name));
    for (size_t i = 0; i < created.size(); ++i) kernels[i] = created[i]->publishHandle();
  }
  if (num_kernels_ret) *num_kernels_ret = static_cast<cl_uint>(names.size());
  return CL_SUCCESS;
}

cl_kernel clCloneKernel(cl_kernel source_kernel, cl_int*) {
  return Kernel::from(source_kernel)->clone()->publishHandle();
}

cl_int clRetainKernel(cl_kernel kernel) {
  Kernel::from(kernel)->retain();
  return CL_SUCCESS;
}

cl_int clReleaseKernel(cl_kernel kernel) {
  Kernel::from(kernel)->releaseHandle();
  return CL_SUCCESS;
}

cl_int clSetKernelArg(cl_kernel kernel, cl_uint index, size_t size, const void* value) {
  Kernel::from(kernel)->setArg(index, size, value);
  return CL_SUCCESS;
}

cl_int clSetKernelArgSVMPointer(cl_kernel kernel, cl_uint index, const void* value) {
  Kernel::from(kernel)->setArgSvm(index, value);
  return CL_SUCCESS;
}

cl_int clSetKernelExecInfo(cl_kernel kernel, cl_kernel_exec_info param, size_t size, const void* value) {
  Kernel::from(kernel)->setExecInfo(param, size, value);
  return CL_SUCCESS;
}

cl_int clGetKernelInfo(cl_kernel kernel, cl_kernel_info param, size_t size, void* value, size_t* size_ret) {
  return Kernel::from(kernel)->info(param, size, value, size_ret);
}

cl_int clGetKernelWorkGroupInfo(cl_kernel kernel, cl_device_id device, cl_kernel_work_group_info param, size_t size,
                                void* value, size_t* size_ret) {
  auto k = Kernel::from(kernel);
  require(!device || Device::tryFrom(device).get() == &k->program().context().device(), CL_INVALID_DEVICE,
          "the device is not the kernel's device");
  return k->workGroupInfo(param, size, value, size_ret);
}

cl_int clGetKernelArgInfo(cl_kernel kernel, cl_uint index, cl_kernel_arg_info param, size_t size, void* value,
                          size_t* size_ret) {
  return Kernel::from(kernel)->argInfo(index, param, size, value, size_ret);
}

} // namespace clsplit::icd::api
