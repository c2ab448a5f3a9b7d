# SPDX-License-Identifier: MIT
# Runs clusterscope-cli once and checks its exit code, stdout and stderr (Qt-free, so it also
# runs in builds without the GUI).
#   cmake -DCLI=<exe> -DARGS="a|b|c" [-DWRITE_FILE=<path> -DWRITE_TEXT=<text>]
#         -DEXPECT_RC=<n> [-DEXPECT_STDOUT=<regex>] [-DEXPECT_STDERR=<regex>] -P check_cli.cmake
if(DEFINED WRITE_FILE)
    file(WRITE "${WRITE_FILE}" "${WRITE_TEXT}")
endif()
string(REPLACE "|" ";" arg_list "${ARGS}")
execute_process(COMMAND "${CLI}" ${arg_list} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "exit ${rc}\nstdout: ${out}\nstderr: ${err}")
if(NOT rc EQUAL EXPECT_RC)
    message(FATAL_ERROR "expected exit code ${EXPECT_RC}, got ${rc}")
endif()
if(DEFINED EXPECT_STDOUT AND NOT out MATCHES "${EXPECT_STDOUT}")
    message(FATAL_ERROR "stdout does not match: ${EXPECT_STDOUT}")
endif()
if(DEFINED EXPECT_STDERR AND NOT err MATCHES "${EXPECT_STDERR}")
    message(FATAL_ERROR "stderr does not match: ${EXPECT_STDERR}")
endif()
