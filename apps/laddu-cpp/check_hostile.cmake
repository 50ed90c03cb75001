# Hostile inputs (issue 21): no crash, no hang, no silent failure. Every numeric option rejects
# bad values with one line and exit code 2; event counts are checked against the memory before
# anything is allocated; a thread the system refuses is an error, not an abort or a hang; a data
# error in a fit exits 2, not 3; progress lines written to a pipe hold no carriage returns;
# outputs on a full disk (a file-size limit) fail with exit 2 and leave no partial file; an
# intensity that is zero everywhere fails at once. Variables: CLI, WORK_DIR, MODELS.
cmake_policy(SET CMP0007 NEW)  # list(GET) keeps the empty value of ";empty"
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(model ${MODELS}/breit_wigner_zlm.toml)

# expect_error(<regex> <args>...): exit code 2 and one stderr line matching <regex>.
function(expect_error regex)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
    string(REGEX MATCHALL "\n" lines "${err}")
    list(LENGTH lines n)
    if(NOT rc EQUAL 2 OR NOT n EQUAL 1 OR NOT err MATCHES "^laddu-cpp [a-z ]+: "
            OR NOT err MATCHES "${regex}")
        message(FATAL_ERROR "${ARGN}: expected exit 2 and one line matching '${regex}', "
            "got ${rc}: '${err}'")
    endif()
endfunction()

# 1. Numeric options, one parser: negative, trailing junk, empty, beyond 64 bits, absurd.
set(options_generate "--events;--seed;--threads")
set(options_fit "--starts;--seed;--threads")
set(options_inspect "--width;--events")
set(options_bench "--threads;--repeat")
set(options_demo "--events;--mc;--seed;--threads")
foreach(command generate fit inspect bench demo)
    set(prefix ${command})
    if(command STREQUAL "bench")
        set(prefix bench kmatrix --data ${WORK_DIR}/none.parquet)
    elseif(command STREQUAL "fit" OR command STREQUAL "inspect")
        set(prefix ${command} ${model})
    endif()
    foreach(option ${options_${command}})
        foreach(case "-1;negative" "3x;not a whole decimal number" ";empty"
                "99999999999999999999999;too large")
            list(GET case 0 value)
            list(GET case 1 why)
            set(expected "${option} needs an integer from [0-9]+ to [0-9]+, got '${value}' \\(${why}\\)")
            if(value STREQUAL "")
                # A list drops empty elements: the shell passes the empty argument.
                expect_error("${expected}" sh -c "exec \"$0\" \"$@\" ''" ${CLI} ${prefix} ${option})
            else()
                expect_error("${expected}" ${CLI} ${prefix} ${option} ${value})
            endif()
        endforeach()
    endforeach()
endforeach()
expect_error("--threads needs an integer from 1 to 1024, got '5000' \\(too large\\)"
    ${CLI} fit ${model} --threads 5000)
expect_error("--threads needs an integer from 1 to 1024, got '-1' \\(negative\\)"
    ${CLI} bench kmatrix --data ${WORK_DIR}/none.parquet --threads -1)
expect_error("--repeat needs an integer from 1 to 1000000, got '-1' \\(negative\\)"
    ${CLI} bench kmatrix --data ${WORK_DIR}/none.parquet --repeat -1)
expect_error("--events needs an integer from 1 to 10000000000, got '4611686018427387904'"
    ${CLI} generate --model ${model} --events 4611686018427387904 --output ${WORK_DIR}/x.parquet)
# 10^10 unit-weight events pass the parser but not the memory check (5 TB), before anything is
# allocated.
expect_error("--events 10000000000 needs about 4.7 TiB of memory \\(512 bytes per event\\) but [0-9.]+ [KMGT]iB is available; lower --events, pass --weighted"
    ${CLI} generate --model ${model} --events 10000000000 --output ${WORK_DIR}/x.parquet)
expect_error("--mc 10000000000 needs about 2.8 TiB of memory" ${CLI} demo --mc 10000000000)
# An unknown command is a usage error too.
execute_process(COMMAND ${CLI} frobnicate RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(NOT rc EQUAL 2)
    message(FATAL_ERROR "unknown command: expected exit 2, got ${rc}")
endif()

# Inputs for the runs below: a little data and flat MC.
include(${CMAKE_CURRENT_LIST_DIR}/cli_run.cmake)

# 4. Progress into a pipe: no carriage return, one plain line per stage.
run(generate --model ${model} --events 500 --seed 2 --threads 2 --output ${WORK_DIR}/data.parquet)
if(err MATCHES "\r" OR NOT err MATCHES "^generate: 500 unit-weight events of [^\n]+\n$")
    message(FATAL_ERROR "generate into a pipe: expected one plain progress line, got '${err}'")
endif()
run(generate --model ${model} --phase-space --events 5000 --seed 3 --output ${WORK_DIR}/mc.parquet)
run(fit ${model} --data ${WORK_DIR}/data.parquet --accepted ${WORK_DIR}/mc.parquet --threads 2)
if(err MATCHES "\r" OR out MATCHES "\r"
        OR NOT err MATCHES "^fit: start 1/1  iteration +[0-9]+  NLL [-0-9.]+  \\([0-9.]+ s\\)\n$")
    message(FATAL_ERROR "fit into a pipe: expected one plain progress line, got '${err}'")
endif()

# 2. A thread the system refuses: an address-space limit leaves room for a few thread stacks
# (8 MiB each), not for 1000. Exit 2 naming the count, no abort, no hang. Not under ASan or
# TSan (SANITIZERS, from LADDU_SANITIZE), whose shadow memory reserves terabytes of address
# space that the limit forbids before main() runs (thread_pool_test skips its RLIMIT_AS case so).
if(SANITIZERS MATCHES "address|thread")
    message(STATUS "skipped under ${SANITIZERS}: 1000 threads under ulimit -v")
else()
    execute_process(COMMAND sh -c "ulimit -v 1500000 && exec \"$0\" \"$@\"" ${CLI} fit ${model}
            --data ${WORK_DIR}/data.parquet --accepted ${WORK_DIR}/mc.parquet --threads 1000
            --quiet
        RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err TIMEOUT 120)
    if(NOT rc EQUAL 2 OR NOT err MATCHES "^laddu-cpp fit: cannot start thread [0-9]+ of the 1000 requested: [^\n]*; request fewer threads[^\n]*\n$")
        message(FATAL_ERROR "1000 threads under ulimit -v: expected exit 2 and one line, got ${rc}: '${err}'")
    endif()
endif()

# 3. A likelihood that cannot be evaluated at the start values is an error (2), not a fit that
# did not converge (3).
file(WRITE ${WORK_DIR}/negative.toml "[model]\nintensity = \"i\"\n"
    "[parameters]\na = { value = -1.5, bounds = [-2.0, -1.0] }\n[amplitudes]\n"
    "c = { type = \"coupling\", re = \"a\", im = 0.0 }\nz = { type = \"ylm\", l = 0, m = 0 }\n"
    "p = { type = \"product\", factors = [\"c\", \"z\"] }\n"
    "i = { type = \"real\", amplitude = \"p\" }\n")
expect_error("normalisation integral over the accepted Monte Carlo is -[0-9.]+, but it must be positive"
    ${CLI} fit ${WORK_DIR}/negative.toml --data ${WORK_DIR}/data.parquet
    --accepted ${WORK_DIR}/mc.parquet --quiet)

# 5. Outputs on a full disk: a file-size limit of 512 bytes (SIGXFSZ ignored, so write() fails
# with EFBIG as a full disk fails with ENOSPC). Exit 2, and neither the target nor a temporary
# is left; standard output on a full device is an error too.
set(limited sh -c "trap '' XFSZ && ulimit -f 1 && exec \"$0\" \"$@\"" ${CLI})
expect_error("cannot write '${WORK_DIR}/fit.json': File too large"
    ${limited} fit ${model} --data ${WORK_DIR}/data.parquet --accepted ${WORK_DIR}/mc.parquet
    --quiet --json ${WORK_DIR}/fit.json)
expect_error("cannot write Parquet file '${WORK_DIR}/big.parquet': File too large|cannot write '${WORK_DIR}/big.parquet': File too large"
    ${limited} generate --model ${model} --phase-space --events 5000 --output ${WORK_DIR}/big.parquet)
file(GLOB left ${WORK_DIR}/fit.json* ${WORK_DIR}/big.parquet*)
if(left)
    message(FATAL_ERROR "a failed write left files behind: ${left}")
endif()
expect_error("cannot write standard output: No space left on device"
    sh -c "exec \"$0\" \"$@\" > /dev/full" ${CLI} inspect ${model} --show parameters)

# 6. An intensity that is zero everywhere fails at the first event of the pilot: generation needs
# a positive intensity (as laddu's).
file(WRITE ${WORK_DIR}/zero.toml "[model]\nintensity = \"i\"\n[amplitudes]\n"
    "c = { type = \"coupling\", re = 0.0, im = 0.0 }\nz = { type = \"ylm\", l = 0, m = 0 }\n"
    "p = { type = \"product\", factors = [\"c\", \"z\"] }\n"
    "i = { type = \"norm_sqr\", amplitude = \"p\" }\n")
expect_error("proposal 0: the model value 0 is not finite and positive \\(generation weights events by a positive-real model\\)"
    ${CLI} generate --model ${WORK_DIR}/zero.toml --events 1000 --output ${WORK_DIR}/zero.parquet)
