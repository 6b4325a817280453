# `cmake --install <build> --prefix <dir> [--component C] [--strip]`: the layout the launcher
# expects (bin/clsplit, lib/libclsplit.so, vendors/clsplit.icd naming it), with $ORIGIN rpaths so
# the tree can be moved (the launcher then names the library where it is: icd/launcher/Main.cpp).
#   runtime       the ICD (and the analyzer module it loads), the launcher and its tools (clsplit-regions, clsplit-plan), the vendors
#                 file and `clsplit report`'s script (installed when no component is named)
#   bundled-libs  the shared libraries of GLPK, spdlog and fmt (and what they need) that a machine
#                 without Debian bookworm's packages lacks (the GPU machine: scripts/gpu-bundle.sh)
#   experiments   the benchmark workloads, the integration programs and the bench harness with its
#                 named experiments (share/clsplit/harness/experiment.py; the run-report reader
#                 comes with runtime), to run them on a machine without a build

set(CMAKE_INSTALL_DEFAULT_COMPONENT_NAME runtime)

install(TARGETS clsplit clsplit_analyzer_module LIBRARY DESTINATION lib COMPONENT runtime)
install(TARGETS clsplit_launcher clsplit_regions_cli clsplit_plan_cli RUNTIME DESTINATION bin COMPONENT runtime)
set_target_properties(clsplit_launcher clsplit_regions_cli clsplit_plan_cli PROPERTIES INSTALL_RPATH "\$ORIGIN/../lib")
install(FILES ${CMAKE_SOURCE_DIR}/scripts/report.py ${CMAKE_SOURCE_DIR}/scripts/clsplit_report.py
        DESTINATION share/clsplit COMPONENT runtime)
# The vendors file names the library where it is installed (ocl-icd reads absolute paths).
install(CODE "
  set(prefix \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}\")
  file(MAKE_DIRECTORY \"\${prefix}/vendors\")
  file(WRITE \"\${prefix}/vendors/clsplit.icd\" \"\${CMAKE_INSTALL_PREFIX}/lib/libclsplit.so\\n\")
  message(STATUS \"Installing: \${prefix}/vendors/clsplit.icd\")
" COMPONENT runtime)

# What the GPU machine lacks: the libraries of Debian's GLPK, spdlog and fmt packages (and theirs),
# found among the ICD's and the launcher's dependencies; the C/C++ runtime, LLVM, Clang and the
# OpenCL loader stay the target's own.
install(CODE "
  file(GET_RUNTIME_DEPENDENCIES
       LIBRARIES \"$<TARGET_FILE:clsplit>\" EXECUTABLES \"$<TARGET_FILE:clsplit_launcher>\"
       RESOLVED_DEPENDENCIES_VAR deps UNRESOLVED_DEPENDENCIES_VAR missing
       PRE_INCLUDE_REGEXES glpk spdlog fmt colamd amd suitesparseconfig ltdl
       PRE_EXCLUDE_REGEXES .)
  file(INSTALL \${deps} DESTINATION \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/lib\" FOLLOW_SYMLINK_CHAIN)
" COMPONENT bundled-libs EXCLUDE_FROM_ALL)

# The experiments: the workloads and the integration programs (plain OpenCL programs) and the
# bench harness (run.py, experiment.py and experiments/, machine.py).
get_property(workloads GLOBAL PROPERTY BENCH_WORKLOAD_TARGETS)
get_property(programs GLOBAL PROPERTY CLSPLIT_ITEST_TARGETS)
foreach(t IN LISTS workloads ITEMS bench_list_devices call-costs transfer-costs busy-device split-read)
  if(TARGET ${t})
    install(TARGETS ${t} RUNTIME DESTINATION bench COMPONENT experiments EXCLUDE_FROM_ALL)
  endif()
endforeach()
foreach(t IN LISTS programs)
  install(TARGETS ${t} RUNTIME DESTINATION itest COMPONENT experiments EXCLUDE_FROM_ALL)
endforeach()
install(DIRECTORY ${CMAKE_SOURCE_DIR}/bench/harness DESTINATION share/clsplit COMPONENT experiments EXCLUDE_FROM_ALL
        PATTERN "__pycache__" EXCLUDE)
