# SPDX-License-Identifier: MIT
# MPI_LAUNCHER: mpirun with what CI needs from Open MPI: more ranks than cores
# (--oversubscribe); as root (containers) --allow-run-as-root; and no cross-memory-attach copies
# between ranks, which containers without ptrace rights refuse (Open MPI 4's shared-memory
# transport then fails). MPIEXEC is FindMPI's MPIEXEC_EXECUTABLE; other MPIs run it plain.
set(MPI_LAUNCHER "${MPIEXEC}")
execute_process(COMMAND "${MPIEXEC}" --version OUTPUT_VARIABLE version ERROR_QUIET)
if(version MATCHES "Open MPI|OpenRTE|open-mpi")
    list(APPEND MPI_LAUNCHER --oversubscribe)
    if(version MATCHES "(Open MPI|OpenRTE)\\) 4\\.")
        list(APPEND MPI_LAUNCHER --mca btl_vader_single_copy_mechanism none)
    endif()
    execute_process(COMMAND id -u OUTPUT_VARIABLE uid OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(uid STREQUAL "0")
        list(APPEND MPI_LAUNCHER --allow-run-as-root)
    endif()
endif()

# run_for_summary(<json_var> <command...>): runs the command (a one-process or an mpirun run of
# the CLI with --json), fails on a non-zero exit, and requires one JSON summary, from one rank.
function(run_for_summary json_var)
    execute_process(COMMAND ${ARGN}
        RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
    message(STATUS "${ARGN}\nexit ${rc}\nstdout: ${out}\nstderr: ${err}")
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "the run failed (exit ${rc})")
    endif()
    string(STRIP "${out}" out)
    if(out MATCHES "\n")
        message(FATAL_ERROR "expected one JSON summary (from one rank), got several lines")
    endif()
    set(${json_var} "${out}" PARENT_SCOPE)
endfunction()
