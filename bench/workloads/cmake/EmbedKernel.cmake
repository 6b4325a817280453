# Turns one OpenCL C file into a C++ header holding it as a raw string, so that each workload
# binary is self-contained (the harness carries only the build directory to other machines).
# Usage: cmake -DINPUT=k.cl -DOUTPUT=k.h -DSYMBOL=kSource -P EmbedKernel.cmake
file(READ "${INPUT}" source)
string(FIND "${source}" ")CLSRC\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter )CLSRC\"")
endif()
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT} by EmbedKernel.cmake; do not edit.\n#pragma once\n"
  "static const char ${SYMBOL}[] = R\"CLSRC(${source})CLSRC\";\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUTPUT}.tmp" "${OUTPUT}")
file(REMOVE "${OUTPUT}.tmp")
