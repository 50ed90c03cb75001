# `laddu-cpp bench kmatrix --mpi` under mpirun -np 2: for every partitioning, rank 0 alone prints
# one JSON object whose NLL and gradient equal the single-process run's bit for bit (compared
# as float.hex), with "ranks": 2 and the partitioning named.
file(MAKE_DIRECTORY ${WORK_DIR})
set(data ${WORK_DIR}/ksks.parquet)
execute_process(COMMAND ${TOOL} write ${data} 10000 17 RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "writing the events failed")
endif()
execute_process(COMMAND ${CLI} bench kmatrix --data ${data} --repeat 1 --threads 1
    OUTPUT_VARIABLE single RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "single-process bench kmatrix failed (${rc})")
endif()
set(compare [=[
import json, sys
one, many, partitioning = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
lines = [l for l in many.splitlines() if l.strip()]
if len(lines) != 1:
    sys.exit(f"expected one JSON line (rank 0 only), got {len(lines)}")
many = json.loads(lines[0])
problems = []
if many["nll"].hex() != one["nll"].hex():
    problems.append(f"nll {many['nll'].hex()} != {one['nll'].hex()}")
for name, value in one["gradient"].items():
    if many["gradient"][name].hex() != value.hex():
        problems.append(f"gradient {name}: {many['gradient'][name].hex()} != {value.hex()}")
if many["ranks"] != 2 or many["partitioning"] != partitioning or many["events"] != one["events"]:
    problems.append(f"ranks/partitioning/events: {many['ranks']} {many['partitioning']} {many['events']}")
print("\n".join(problems) if problems else "same")
]=])
foreach(partitioning contiguous rows file_groups)
    execute_process(COMMAND ${MPIEXEC} -np 2 --allow-run-as-root --oversubscribe --mca btl self,vader
            --mca oob_tcp_if_include lo
            ${CLI} bench kmatrix --data ${data} --repeat 1 --threads 1 --mpi
            --partitioning ${partitioning}
        OUTPUT_VARIABLE many RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "bench kmatrix --mpi --partitioning ${partitioning} failed (${rc}): ${err}")
    endif()
    execute_process(COMMAND /usr/bin/python3 -c "${compare}" "${single}" "${many}" ${partitioning}
        OUTPUT_VARIABLE verdict OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
    message(STATUS "${partitioning}: ${verdict}")
    if(NOT rc EQUAL 0 OR NOT verdict STREQUAL "same")
        message(FATAL_ERROR "bench kmatrix --mpi (${partitioning}) differs from one process: ${verdict}")
    endif()
endforeach()
# A missing file fails on every rank: the job ends with a non-zero exit and the error named
# (by the first rank to report it, which then stops the others; a second may print too).
execute_process(COMMAND ${MPIEXEC} -np 2 --allow-run-as-root --oversubscribe --mca btl self,vader
        --mca oob_tcp_if_include lo
        ${CLI} bench kmatrix --data ${WORK_DIR}/absent.parquet --repeat 1 --mpi
    RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out TIMEOUT 60)
string(REGEX MATCHALL "laddu-cpp bench kmatrix:" lines "${err}")
list(LENGTH lines n_lines)
if(rc EQUAL 0 OR n_lines LESS 1 OR NOT err MATCHES "absent.parquet")
    message(FATAL_ERROR "a missing file under --mpi: rc=${rc}, ${n_lines} messages: ${err}")
endif()
