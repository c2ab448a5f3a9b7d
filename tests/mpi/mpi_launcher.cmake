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
