# `laddu-cpp demo` at a tiny size: exit code 0, the fit table and fit fractions printed, the
# projection files written, and (where matplotlib is installed) the PNG plotted; progress into a
# pipe has no carriage returns; outputs on a full disk fail with exit 2; a bad option gives exit
# code 2 and one stderr line. Variables: CLI, WORK_DIR, PYTHON, PLOT_SCRIPT.
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CLI} demo --events 3000 --mc 40000 --threads 2 --output ${WORK_DIR}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "demo: expected exit code 0, got ${rc}: ${err}")
endif()
foreach(expected "Fit table \\(3000 data events" "parameter +fitted +uncertainty +true +pull"
        "f2\\(1525\\) re" "all pulls within 3 sigma: yes" "Fit fractions" "\nS\\+ +[0-9.]+ +[0-9.]+")
    if(NOT out MATCHES "${expected}")
        message(FATAL_ERROR "demo output lacks '${expected}'")
    endif()
endforeach()
# Progress into a pipe: plain lines, no carriage returns (issue 21).
if(out MATCHES "\r" OR err MATCHES "\r" OR NOT out MATCHES "\n      round [0-9]+: [0-9]+ flat events so far\n"
        OR NOT out MATCHES "\n      start 6/6  iteration +[0-9]+  NLL [-0-9.]+  \\([0-9.]+ s\\)\n")
    message(FATAL_ERROR "demo into a pipe: expected plain progress lines")
endif()
foreach(file projections.parquet data.parquet histograms.json fit.txt)
    if(NOT EXISTS ${WORK_DIR}/${file})
        message(FATAL_ERROR "demo did not write ${WORK_DIR}/${file}")
    endif()
endforeach()
if(PYTHON)
    execute_process(COMMAND ${PYTHON} -c "import matplotlib" RESULT_VARIABLE has_mpl
        OUTPUT_QUIET ERROR_QUIET)
    if(has_mpl EQUAL 0)
        execute_process(COMMAND ${PYTHON} ${PLOT_SCRIPT} ${WORK_DIR} RESULT_VARIABLE rc)
        if(NOT rc EQUAL 0 OR NOT EXISTS ${WORK_DIR}/projections.png)
            message(FATAL_ERROR "plot_demo.py failed (exit ${rc})")
        endif()
    endif()
endif()
# Outputs on a full disk (a 512-byte file-size limit, SIGXFSZ ignored): exit 2 naming the
# file, and no partial output (issue 21: they were empty or cut short, with exit 0).
execute_process(COMMAND sh -c "trap '' XFSZ && ulimit -f 1 && exec \"$0\" \"$@\"" ${CLI} demo
        --events 3000 --mc 40000 --threads 2 --output ${WORK_DIR}/full
    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
file(GLOB left ${WORK_DIR}/full/*)
if(NOT rc EQUAL 2 OR NOT err MATCHES "^laddu-cpp demo: cannot write '[^\n]*/full/fit.txt': File too large[^\n]*\n$"
        OR left)
    message(FATAL_ERROR "demo on a full disk: expected exit 2, one line and no files, got ${rc}: "
        "'${err}', files: ${left}")
endif()
execute_process(COMMAND ${CLI} demo --events many RESULT_VARIABLE rc OUTPUT_QUIET
    ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "^laddu-cpp demo: [^\n]*\n$")
    message(FATAL_ERROR "bad option: expected exit 2 and one line, got ${rc}: '${err}'")
endif()
