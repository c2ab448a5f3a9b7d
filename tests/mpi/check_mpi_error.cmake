# SPDX-License-Identifier: MIT
# A bad distributed run ends on every rank, soon (TIMEOUT catches a hang), with a non-zero exit
# and the error said once, by one rank.
#   cmake -DCLI=<exe> -DMPIEXEC=<mpirun> -DNP=<P> -DARGS="a|b" -DEXPECT_STDERR=<regex>
#         [-DWRITE_FILE=<path> -DWRITE_TEXT=<text>] -P check_mpi_error.cmake
if(DEFINED WRITE_FILE)
    file(WRITE "${WRITE_FILE}" "${WRITE_TEXT}")
endif()
string(REPLACE "|" ";" args "${ARGS}")
include(${CMAKE_CURRENT_LIST_DIR}/mpi_launcher.cmake)
execute_process(COMMAND ${MPI_LAUNCHER} -np ${NP} "${CLI}" ${args}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
message(STATUS "exit ${rc}\nstdout: ${out}\nstderr: ${err}")
if(rc MATCHES "timeout" OR rc EQUAL 0)
    message(FATAL_ERROR "expected a non-zero exit, got ${rc}")
endif()
if(NOT err MATCHES "${EXPECT_STDERR}")
    message(FATAL_ERROR "stderr does not match: ${EXPECT_STDERR}")
endif()
string(REGEX MATCHALL "clusterscope-cli:" said "${err}")
list(LENGTH said times)
if(NOT times EQUAL 1)
    message(FATAL_ERROR "expected the error once, from one rank; it was said ${times} times")
endif()
