# `laddu-cpp data info`. Error paths: a malformed file gives exit code 2 and one stderr line
# naming the file; no files gives one line and exit code 2. (Good files are checked against
# DuckDB's own min/max/sum in tests/parquet_interop.) Variables: CLI, WORK_DIR, ROOT_FILE.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
file(WRITE ${WORK_DIR}/bad.parquet "PAR1 this is not a parquet file")
execute_process(COMMAND ${CLI} data info ${WORK_DIR}/bad.parquet
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2)
    message(FATAL_ERROR "malformed file: expected exit code 2, got ${rc}")
endif()
string(REGEX MATCHALL "\n" lines "${err}")
list(LENGTH lines n)
if(NOT n EQUAL 1 OR NOT err MATCHES "bad.parquet" OR NOT err MATCHES "bad magic")
    message(FATAL_ERROR "malformed file: expected one line naming the file, got '${err}'")
endif()
execute_process(COMMAND ${CLI} data info RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "^laddu-cpp data info: no FILE given[^\n]*\n$")
    message(FATAL_ERROR "no files: expected exit code 2 and one line, got ${rc}: '${err}'")
endif()

# A ROOT file uproot wrote (the fuzz seed tests/fuzz/corpus/root_reader/baskets.root: three
# baskets of double, float, int and bool branches): min, max and sum as uproot and math.fsum
# give them, and bool reported as not numeric. Variable: ROOT_FILE.
execute_process(COMMAND ${CLI} data info ${ROOT_FILE} --json
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ROOT file: exit code ${rc}: ${err}")
endif()
foreach(expected
        [["events": 12]]
        [[{"name": "beam_e", "type": "float64", "min": -2.608908472609203, "max": 1.7259053255339913, "sum": -6.112727748613853, "nulls": 0}]]
        [[{"name": "pol_angle", "type": "float32", "min": -1.0536868572235107, "max": 0.8838022947311401, "sum": -0.6793453507125378, "nulls": 0}]]
        [[{"name": "count", "type": "int32", "min": 0, "max": 3, "sum": 18, "nulls": 0}]]
        [[{"name": "flag", "type": "other", "min": null, "max": null, "sum": null, "nulls": 0}]])
    string(FIND "${out}" "${expected}" at)
    if(at EQUAL -1)
        message(FATAL_ERROR "ROOT file: expected ${expected} in ${out}")
    endif()
endforeach()
file(WRITE ${WORK_DIR}/mixed.root "not a ROOT file")
execute_process(COMMAND ${CLI} data info ${ROOT_FILE} ${WORK_DIR}/bad.parquet
    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "1 of the 2 files are ROOT files")
    message(FATAL_ERROR "ROOT and Parquet mixed: expected exit code 2, got ${rc}: '${err}'")
endif()
execute_process(COMMAND ${CLI} data info ${WORK_DIR}/mixed.root
    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "mixed.root")
    message(FATAL_ERROR "malformed ROOT file: expected exit code 2 naming it, got ${rc}: '${err}'")
endif()
