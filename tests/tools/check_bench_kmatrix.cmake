# `laddu-cpp bench kmatrix` on a generated file prints valid JSON whose NLL equals the C++ API's
# bit for bit (both printed with 17 significant digits), with one gradient entry per parameter,
# and rejects unknown parameter names with exit code 2.
file(MAKE_DIRECTORY ${WORK_DIR})
set(data ${WORK_DIR}/ksks.parquet)
execute_process(COMMAND ${TOOL} write ${data} 3000 7 RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "writing the events failed")
endif()
execute_process(COMMAND ${CLI} bench kmatrix --data ${data} --repeat 1 --threads 2 --json
    OUTPUT_VARIABLE json RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "bench kmatrix failed (${rc})")
endif()
execute_process(COMMAND ${TOOL} nll ${data} OUTPUT_VARIABLE api OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE rc)
string(JSON nll GET "${json}" nll)
string(JSON n_gradient LENGTH "${json}" gradient)
string(JSON events GET "${json}" events)
execute_process(COMMAND /usr/bin/python3 -c "import json,sys; print(repr(json.loads(sys.argv[1])['nll']) == repr(float(sys.argv[2])))" "${json}" "${api}"
    OUTPUT_VARIABLE same OUTPUT_STRIP_TRAILING_WHITESPACE)
message(STATUS "bench kmatrix nll=${nll} api=${api} gradient entries=${n_gradient} events=${events}")
if(NOT same STREQUAL "True")
    message(FATAL_ERROR "CLI NLL ${nll} differs from the C++ API's ${api}")
endif()
if(NOT n_gradient EQUAL 34 OR NOT events EQUAL 3000)
    message(FATAL_ERROR "unexpected JSON: ${json}")
endif()
file(WRITE ${WORK_DIR}/bad.json "{\"no such parameter\": 1.0}")
execute_process(COMMAND ${CLI} bench kmatrix --data ${data} --params ${WORK_DIR}/bad.json
    RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "not a free parameter")
    message(FATAL_ERROR "unknown parameter not rejected: rc=${rc} ${err}")
endif()
