# SPDX-License-Identifier: MIT
# MPI_LAUNCHER: mpirun with what CI needs: more ranks than cores (--oversubscribe), and, as
# root (containers), --allow-run-as-root. MPIEXEC is FindMPI's MPIEXEC_EXECUTABLE.
set(MPI_LAUNCHER "${MPIEXEC}" --oversubscribe)
execute_process(COMMAND id -u OUTPUT_VARIABLE uid OUTPUT_STRIP_TRAILING_WHITESPACE)
if(uid STREQUAL "0")
    list(APPEND MPI_LAUNCHER --allow-run-as-root)
endif()
