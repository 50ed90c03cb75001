# cross-section end to end: events of examples/models/breit_wigner_zlm.toml fitted, then their
# cross sections with the accepted MC equal to the generated MC (acceptance 1), so that the
# observed total is N / L exactly and each wave's is its fit fraction · N / L (the fit's own
# fractions); bootstrap draws, the differential cross section integrating to the total, the
# JSON output and the usage errors. Variables: CLI, WORK_DIR, MODELS.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(model ${MODELS}/breit_wigner_zlm.toml)
include(${CMAKE_CURRENT_LIST_DIR}/cli_run.cmake)

run(generate --model ${model} --events 2000 --seed 11 --output ${WORK_DIR}/data.parquet)
run(generate --model ${model} --phase-space --events 6000 --seed 12 --output ${WORK_DIR}/mc.parquet)
run(fit ${model} --data ${WORK_DIR}/data.parquet --accepted ${WORK_DIR}/mc.parquet --quiet
    --json ${WORK_DIR}/fit.json)
run(cross-section ${model} --data ${WORK_DIR}/data.parquet --accepted ${WORK_DIR}/mc.parquet
    --generated ${WORK_DIR}/mc.parquet --luminosity 4 --params ${WORK_DIR}/fit.json
    --bootstrap 4 --seed 3 --axis mass:0.9:2.1:12 --json ${WORK_DIR}/xs.json --quiet)
if(NOT out MATCHES "total +observed +500 ± [0-9.e+-]+  \\[" OR NOT out MATCHES "dσ/dmass per bin")
    message(FATAL_ERROR "cross-section: unexpected table\n${out}")
endif()
if(NOT err STREQUAL "")
    message(FATAL_ERROR "cross-section --quiet wrote to stderr: ${err}")
endif()

file(READ ${WORK_DIR}/xs.json xs)
file(READ ${WORK_DIR}/fit.json fit)
# expect_near(<what> <value> <expected> <tolerance>): |value − expected| <= tolerance · |expected|
# (CMake has no floating-point arithmetic; python3 compares).
function(expect_near what value expected tolerance)
    execute_process(COMMAND python3 -c
        "import sys; v, e, t = map(float, sys.argv[1:]); sys.exit(0 if abs(v - e) <= t * abs(e) else 1)"
        ${value} ${expected} ${tolerance} RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "${what}: ${value}, expected ${expected} within ${tolerance}")
    endif()
endfunction()
string(JSON observed GET "${xs}" totals total observed value)
expect_near("observed total (N / L)" ${observed} 500 1e-12)
string(JSON acceptance GET "${xs}" totals total acceptance value)
expect_near("acceptance" ${acceptance} 1 1e-12)
foreach(wave S D)
    string(JSON fraction GET "${fit}" fit_fractions ${wave} value)
    string(JSON wave_observed GET "${xs}" totals ${wave} observed value)
    execute_process(COMMAND python3 -c "print(${fraction} * 500)" OUTPUT_VARIABLE expected
        OUTPUT_STRIP_TRAILING_WHITESPACE)
    expect_near("${wave} observed (fit fraction · N / L)" ${wave_observed} ${expected} 1e-9)
endforeach()
string(JSON draws LENGTH "${xs}" totals total observed draws)
string(JSON spread GET "${xs}" totals total observed std)
if(NOT draws EQUAL 4 OR spread STREQUAL "0" OR spread STREQUAL "0.0")
    message(FATAL_ERROR "bootstrap: ${draws} draws, std ${spread}")
endif()
# the model's differential cross section integrates (bin width 0.1; the axis holds every event)
# to the observed total
set(sum "0")
foreach(bin RANGE 11)
    string(JSON value GET "${xs}" differential model ${bin} value)
    set(sum "${sum} + 0.1 * ${value}")
endforeach()
execute_process(COMMAND python3 -c "print(${sum})" OUTPUT_VARIABLE integral
    OUTPUT_STRIP_TRAILING_WHITESPACE)
expect_near("the differential model's integral" ${integral} 500 1e-6)

# usage errors: one line, exit 2
function(expect_usage_error regex)
    execute_process(COMMAND ${CLI} cross-section ${ARGN} RESULT_VARIABLE rc OUTPUT_QUIET
        ERROR_VARIABLE err)
    if(NOT rc EQUAL 2 OR NOT err MATCHES "${regex}")
        message(FATAL_ERROR "${ARGN}: expected exit 2 matching '${regex}', got ${rc}: '${err}'")
    endif()
endfunction()
set(files --data ${WORK_DIR}/data.parquet --accepted ${WORK_DIR}/mc.parquet
    --generated ${WORK_DIR}/mc.parquet)
expect_usage_error("--luminosity are required" ${model} ${files})
expect_usage_error("--luminosity must be positive" ${model} ${files} --luminosity -1)
expect_usage_error("--luminosity needs a finite number, got 'lots'" ${model} ${files}
    --luminosity lots)
expect_usage_error("--axis needs VAR:LOW:HIGH:BINS" ${model} ${files} --luminosity 1 --axis mass)
expect_usage_error("--axis needs LOW < HIGH" ${model} ${files} --luminosity 1 --axis mass:2:1:4)
run(cross-section --help)
if(NOT out MATCHES "^usage: laddu-cpp cross-section MODEL")
    message(FATAL_ERROR "cross-section --help: ${out}")
endif()
