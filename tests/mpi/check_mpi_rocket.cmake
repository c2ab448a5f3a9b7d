# SPDX-License-Identifier: MIT
# ROCKET under mpirun against one process: `clusterscope-cli rocket` once without mpirun, then
# under `mpirun -np P` for every P; the features (.npy) and predictions (.csv) must be identical
# byte for byte, and the one JSON summary must say "ranks": P and the same accuracies.
# BACKEND (default cpu) runs both, one process and ranks (cuda: the ranks share the GPU).
#   cmake -DCLI=<exe> -DMPIEXEC=<mpirun> -DINPUT=<series> -DARGS="a|b" -DRANKS="2|3"
#         -DWORK=<dir> -DNAME=<name> [-DBACKEND=cuda] -P check_mpi_rocket.cmake
string(REPLACE "|" ";" args "${ARGS}")
string(REPLACE "|" ";" ranks "${RANKS}")
include(${CMAKE_CURRENT_LIST_DIR}/mpi_launcher.cmake)
file(MAKE_DIRECTORY "${WORK}")

if(NOT BACKEND)
    set(BACKEND cpu)
endif()

function(run_rocket tag json_var)
    file(REMOVE "${WORK}/${NAME}_${tag}.npy" "${WORK}/${NAME}_${tag}.csv")
    run_for_summary(out ${ARGN} rocket "${INPUT}" ${args} --backend ${BACKEND}
        --features "${WORK}/${NAME}_${tag}.npy" --predictions "${WORK}/${NAME}_${tag}.csv" --json)
    string(JSON ran GET "${out}" backend)
    if(NOT ran STREQUAL BACKEND)
        message(FATAL_ERROR "asked for the ${BACKEND} backend, the summary says ${ran}")
    endif()
    set(${json_var} "${out}" PARENT_SCOPE)
endfunction()

run_rocket(ref ref_json "${CLI}")
string(JSON ref_accuracy GET "${ref_json}" test_accuracy)
foreach(p IN LISTS ranks)
    run_rocket(np${p} json ${MPI_LAUNCHER} -np ${p} "${CLI}")
    string(JSON got_ranks GET "${json}" ranks)
    string(JSON accuracy GET "${json}" test_accuracy)
    if(NOT got_ranks EQUAL p OR NOT accuracy STREQUAL ref_accuracy)
        message(FATAL_ERROR "-np ${p}: ranks ${got_ranks}, test accuracy ${accuracy} "
                            "(one process: ${ref_accuracy})")
    endif()
    foreach(ext npy csv)
        execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${WORK}/${NAME}_ref.${ext}"
            "${WORK}/${NAME}_np${p}.${ext}" RESULT_VARIABLE differ)
        if(differ)
            message(FATAL_ERROR "-np ${p}: the .${ext} output differs from one process's")
        endif()
    endforeach()
    message(STATUS "-np ${p}: identical to one process")
endforeach()
