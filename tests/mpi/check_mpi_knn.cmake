# SPDX-License-Identifier: MIT
# The distributed kNN graph against the one-process one: runs `clusterscope-cli knn` once
# without mpirun, then under `mpirun -np P` for every P, and requires the .npy outputs (indices
# and distances) to be identical byte for byte, the same trees and recalls, and one JSON
# summary saying "ranks": P, with its communication time within the run's.
# The one-process graph is the CPU backend's; the ranks run on BACKEND (default cpu; cuda: each
# rank's leaves on the GPU, ranks sharing it), which the summary must name.
# With -DWRITE=parallel the mpirun runs write with --write parallel (every rank its rows, MPI-IO)
# and must say so, with no gather; the files must still be the one-process ones. Without it they
# must say "write": "gather", the default.
#   cmake -DCLI=<exe> -DMPIEXEC=<mpirun> -DINPUT=<cloud> -DARGS="a|b" -DRANKS="1|2|3|4"
#         -DWORK=<dir> -DNAME=<name> [-DBACKEND=cuda] [-DWRITE=gather|parallel]
#         -P check_mpi_knn.cmake
string(REPLACE "|" ";" args "${ARGS}")
string(REPLACE "|" ";" ranks "${RANKS}")
include(${CMAKE_CURRENT_LIST_DIR}/mpi_launcher.cmake)
file(MAKE_DIRECTORY "${WORK}")

if(NOT BACKEND)
    set(BACKEND cpu)
endif()

function(run_knn out_file json_var backend)
    file(REMOVE "${out_file}")
    run_for_summary(out ${ARGN} knn "${INPUT}" ${args} ${knn_extra} --backend ${backend} --out "${out_file}"
        --json)
    string(JSON ran GET "${out}" backend)
    if(NOT ran STREQUAL backend)
        message(FATAL_ERROR "asked for the ${backend} backend, the summary says ${ran}")
    endif()
    set(${json_var} "${out}" PARENT_SCOPE)
endfunction()

set(ref "${WORK}/${NAME}_ref.npy")
run_knn("${ref}" ref_json cpu "${CLI}")
string(JSON ref_trees GET "${ref_json}" trees_built)
string(JSON ref_recalls GET "${ref_json}" recall_by_tree)
string(JSON ref_ranks ERROR_VARIABLE no_ranks GET "${ref_json}" ranks)
if(NOT no_ranks)
    message(FATAL_ERROR "a run without mpirun must not report ranks (got ${ref_ranks})")
endif()

# Without -DWRITE the runs leave --write out: gather is the default.
set(knn_extra)
if(DEFINED WRITE)
    set(knn_extra --write ${WRITE})
else()
    set(WRITE gather)
endif()
foreach(p IN LISTS ranks)
    set(got "${WORK}/${NAME}_np${p}.npy")
    run_knn("${got}" json ${BACKEND} ${MPI_LAUNCHER} -np ${p} "${CLI}")
    string(JSON got_write GET "${json}" write)
    string(JSON write_ms GET "${json}" write_ms)
    string(JSON gather_ms GET "${json}" gather_ms)
    if(NOT got_write STREQUAL WRITE OR write_ms LESS 0)
        message(FATAL_ERROR "-np ${p}: the summary says write ${got_write}, write_ms ${write_ms}")
    endif()
    if(WRITE STREQUAL "parallel")
        if(NOT gather_ms MATCHES "^0(\\.0*)?$")
            message(FATAL_ERROR "-np ${p}: a parallel write gathered (gather_ms ${gather_ms})")
        endif()
        # No rank writes the whole graph once there are several.
        string(JSON busiest GET "${json}" write_bytes_max_rank)
        string(REPLACE ".npy" "_distances.npy" ref_d "${ref}")
        file(SIZE "${ref}" size_i)
        file(SIZE "${ref_d}" size_d)
        math(EXPR both "${size_i} + ${size_d}")
        if(busiest GREATER both OR (p GREATER 1 AND NOT busiest LESS both))
            message(FATAL_ERROR "-np ${p}: the busiest rank wrote ${busiest} of ${both} bytes")
        endif()
    endif()
    string(JSON got_ranks GET "${json}" ranks)
    string(JSON trees GET "${json}" trees_built)
    string(JSON recalls GET "${json}" recall_by_tree)
    if(NOT got_ranks EQUAL p)
        message(FATAL_ERROR "-np ${p}: the summary says ranks ${got_ranks}")
    endif()
    # The communication figures of the scaling table: time in collectives, as a share of the run.
    string(JSON comm_ms GET "${json}" comm_ms_max_rank)
    string(JSON comm_share GET "${json}" comm_share)
    string(JSON total_ms GET "${json}" total_ms)
    if(comm_ms LESS 0 OR comm_ms GREATER total_ms OR comm_share LESS 0 OR comm_share GREATER 1)
        message(FATAL_ERROR "-np ${p}: comm_ms_max_rank ${comm_ms}, comm_share ${comm_share} "
                            "for total_ms ${total_ms}")
    endif()
    if(p GREATER 1 AND NOT comm_ms GREATER 0)
        message(FATAL_ERROR "-np ${p}: no time in collectives (comm_ms_max_rank ${comm_ms})")
    endif()
    if(NOT trees EQUAL ref_trees OR NOT recalls STREQUAL ref_recalls)
        message(FATAL_ERROR "-np ${p}: ${trees} trees, recalls ${recalls}; one process: "
                            "${ref_trees} trees, recalls ${ref_recalls}")
    endif()
    string(REPLACE ".npy" "_distances.npy" ref_d "${ref}")
    string(REPLACE ".npy" "_distances.npy" got_d "${got}")
    foreach(pair "${ref};${got}" "${ref_d};${got_d}")
        list(GET pair 0 a)
        list(GET pair 1 b)
        execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${a}" "${b}"
            RESULT_VARIABLE differ)
        if(differ)
            message(FATAL_ERROR "-np ${p}: ${b} differs from the one-process ${a}")
        endif()
    endforeach()
    message(STATUS "-np ${p}: identical to one process (${trees} trees)")
endforeach()
