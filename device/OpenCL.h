// The OpenCL headers as clsplit compiles against them: the full dispatch-table types
// (CL_TARGET_OPENCL_VERSION=300, so every slot has its function type) although the platform
// clsplit presents is OpenCL 1.2.
#pragma once

// The build defines 120 for application-side code (bench/, tests): override it here, before
// any OpenCL header is seen.
#undef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#ifndef CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#endif
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <CL/cl_icd.h>
