# run(<args>...): runs ${CLI} with <args>, fails the script with the command, exit code and
# output unless it exits 0, and leaves its standard output and error in `out` and `err`.
# Included by the check_*.cmake scripts that drive several commands.
function(run)
    execute_process(COMMAND ${CLI} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
        ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "${ARGN}: exit ${rc}: ${err}\n${out}")
    endif()
    set(out "${out}" PARENT_SCOPE)
    set(err "${err}" PARENT_SCOPE)
endfunction()
