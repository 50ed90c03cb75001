# Error paths of `laddu-cpp data info`: a malformed file gives exit code 2 and one stderr line
# naming the file; no files gives one line and exit code 2. (Good files are checked against
# DuckDB's own min/max/sum in tests/parquet_interop.) Variables: CLI, WORK_DIR.
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
