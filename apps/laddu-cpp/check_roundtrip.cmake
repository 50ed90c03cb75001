# generate -> fit round trip on examples/models/breit_wigner_zlm.toml: data accept-rejected at
# the model file's values, flat accepted MC, a fit from a perturbed start; the fit converges,
# every pull against the generating values is within 3, the JSON output parses and has the fit
# fractions of both tags, and feeds back into generate --params. Variables: CLI, WORK_DIR,
# MODELS.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(model ${MODELS}/breit_wigner_zlm.toml)
include(${CMAKE_CURRENT_LIST_DIR}/cli_run.cmake)
run(generate --model ${model} --events 3000 --seed 2 --threads 2
    --output ${WORK_DIR}/data.parquet)
run(generate --model ${model} --phase-space --events 100000 --seed 3
    --output ${WORK_DIR}/mc.parquet)
run(data info ${WORK_DIR}/data.parquet)
if(NOT out MATCHES "3000 events" AND NOT out MATCHES "events: 3000")
    message(FATAL_ERROR "data info of the generated data: ${out}")
endif()
set(truth "f2 mass=1.517,f2 width=0.086,f2 mag=0.8,f2 phase=0.6")
run(fit ${model} --data ${WORK_DIR}/data.parquet --accepted ${WORK_DIR}/mc.parquet --threads 2
    --params "f2 mass=1.55,f2 width=0.12,f2 mag=0.6,f2 phase=0.2" --truth "${truth}"
    --json ${WORK_DIR}/fit.json)
message("${out}")
if(NOT out MATCHES "^model bw_zlm" OR NOT out MATCHES "\nconverged after"
        OR NOT out MATCHES "\nf2 mass +1.51[0-9]+ +0.00[0-9]+ +1.517 +-?[0-9.]+\n"
        OR NOT out MATCHES "\nf0 mass +1.704 +fixed\n" OR NOT out MATCHES "\nD +0.[0-9]+ +0.0[0-9]+\n")
    message(FATAL_ERROR "unexpected fit table:\n${out}")
endif()
if(NOT err MATCHES "fit: start 1/1  iteration +[0-9]+  NLL")
    message(FATAL_ERROR "no progress line on stderr: '${err}'")
endif()
file(READ ${WORK_DIR}/fit.json json)
string(JSON converged GET "${json}" converged)
if(NOT converged)
    message(FATAL_ERROR "fit.json: not converged")
endif()
foreach(name "f2 mass" "f2 width" "f2 mag" "f2 phase")
    string(JSON pull GET "${json}" pulls "${name}")
    string(JSON value GET "${json}" parameters "${name}" value)
    string(JSON sigma GET "${json}" parameters "${name}" uncertainty)
    if(NOT pull GREATER -3 OR NOT pull LESS 3 OR NOT sigma GREATER 0)
        message(FATAL_ERROR "${name}: ${value} +- ${sigma}, pull ${pull} (limit 3)")
    endif()
endforeach()
foreach(tag S D)
    string(JSON fraction GET "${json}" fit_fractions ${tag} value)
    if(NOT fraction GREATER 0.2 OR NOT fraction LESS 0.8)
        message(FATAL_ERROR "fit fraction ${tag} = ${fraction}")
    endif()
endforeach()
string(JSON fixed GET "${json}" fixed "f0 re")
string(JSON rows LENGTH "${json}" covariance)
if(NOT fixed EQUAL 1 OR NOT rows EQUAL 4)
    message(FATAL_ERROR "fit.json: fixed 'f0 re' = ${fixed}, ${rows} covariance rows")
endif()
# The fit result is a parameter file for generate.
run(generate --model ${model} --params ${WORK_DIR}/fit.json --events 100 --seed 9
    --output ${WORK_DIR}/refit.parquet)
if(NOT EXISTS ${WORK_DIR}/refit.parquet)
    message(FATAL_ERROR "generate --params fit.json wrote nothing")
endif()
