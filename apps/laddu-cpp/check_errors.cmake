# Each error class of the model-file commands: exit code 2 (a bad command line included) and one
# stderr line "laddu-cpp COMMAND: ..." naming the problem. Variables: CLI, WORK_DIR, MODELS.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# expect_error(<exit code> <regex> <args>...): runs the CLI, checks code, one line, message.
function(expect_error code regex)
    execute_process(COMMAND ${CLI} ${ARGN} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
    string(REGEX MATCHALL "\n" lines "${err}")
    list(LENGTH lines n)
    if(NOT rc EQUAL ${code} OR NOT n EQUAL 1 OR NOT err MATCHES "^laddu-cpp [a-z]+: "
            OR NOT err MATCHES "${regex}")
        message(FATAL_ERROR "${ARGN}: expected exit ${code} and one line matching '${regex}', "
            "got ${rc}: '${err}'")
    endif()
endfunction()

# Missing files.
expect_error(2 "cannot open model file '${WORK_DIR}/missing.toml'"
    inspect ${WORK_DIR}/missing.toml)
expect_error(2 "cannot open model file" fit ${WORK_DIR}/missing.toml --data x --accepted y)
expect_error(2 "missing.parquet" fit ${MODELS}/breit_wigner_zlm.toml
    --data ${WORK_DIR}/missing.parquet --accepted ${WORK_DIR}/missing.parquet)

# Bad TOML, with the file and line.
file(WRITE ${WORK_DIR}/bad.toml "[model]\nintensity = \"i\"\n[parameters\nm = 1\n")
expect_error(2 "bad.toml:3:[0-9]+: invalid TOML" inspect ${WORK_DIR}/bad.toml)

# Schema errors with key and line: unknown parameter, unknown key, wrong type, unknown particle.
set(base "[model]\nintensity = \"i\"\n[parameters]\nm = 1.5\nw = 0.1\n[amplitudes]\n")
file(WRITE ${WORK_DIR}/unknown_parameter.toml "${base}"
    "bw = { type = \"breit_wigner\", mass = \"m0\", width = \"w\" }\n"
    "i = { type = \"norm_sqr\", amplitude = \"bw\" }\n")
expect_error(2 "unknown_parameter.toml:7:[0-9]+: amplitudes.bw.mass: unknown parameter 'm0'"
    inspect ${WORK_DIR}/unknown_parameter.toml)
file(WRITE ${WORK_DIR}/unknown_key.toml "${base}"
    "bw = { type = \"breit_wigner\", mass = \"m\", widht = \"w\" }\n"
    "i = { type = \"norm_sqr\", amplitude = \"bw\" }\n")
expect_error(2 "unknown_key.toml:7:[0-9]+: amplitudes.bw.widht: unknown key 'widht'"
    generate --model ${WORK_DIR}/unknown_key.toml --output ${WORK_DIR}/x.parquet)
file(WRITE ${WORK_DIR}/wrong_type.toml "${base}"
    "bw = { type = \"breit_wigner\", mass = \"m\", width = \"w\", shape = \"relativistic\", l = \"two\" }\n"
    "i = { type = \"norm_sqr\", amplitude = \"bw\" }\n")
expect_error(2 "wrong_type.toml:7:[0-9]+: amplitudes.bw.l: expected an integer, got a string"
    inspect ${WORK_DIR}/wrong_type.toml)
file(WRITE ${WORK_DIR}/unknown_particle.toml "${base}"
    "bw = { type = \"breit_wigner\", mass = \"m\", width = \"w\", of = [\"kshort1\", \"pion\"] }\n"
    "i = { type = \"norm_sqr\", amplitude = \"bw\" }\n")
expect_error(2 "unknown_particle.toml:7:[0-9]+: amplitudes.bw.of: unknown particle 'pion'"
    inspect ${WORK_DIR}/unknown_particle.toml)

# Unknown parameter on the command line, bad option values, unknown options.
expect_error(2 "unknown parameter 'nope' in --params" generate --model
    ${MODELS}/breit_wigner_zlm.toml --params nope=1 --output ${WORK_DIR}/x.parquet)
expect_error(2 "--events needs an integer from 1 to 10000000000, got 'many'" generate --model
    ${MODELS}/breit_wigner_zlm.toml --events many --output ${WORK_DIR}/x.parquet)
expect_error(2 "unknown option '--frobnicate'" fit ${MODELS}/breit_wigner_zlm.toml --frobnicate)
expect_error(2 "--data and --accepted are required" fit ${MODELS}/breit_wigner_zlm.toml)
expect_error(2 "--params: expected name=value" inspect ${MODELS}/breit_wigner_zlm.toml
    --params "f2 mass")

# Data errors: an event index out of range, and a column the model reads but the file lacks.
execute_process(COMMAND ${CLI} generate --model ${MODELS}/breit_wigner_zlm.toml --phase-space
    --events 10 --output ${WORK_DIR}/ten.parquet RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "generate --phase-space failed (${rc})")
endif()
expect_error(2 "event 10 is out of range" inspect ${MODELS}/breit_wigner_zlm.toml
    --data ${WORK_DIR}/ten.parquet --events 3,10)
file(WRITE ${WORK_DIR}/other_columns.toml "[model]\nintensity = \"i\"\n"
    "[reaction]\nbeam = \"gamma\"\n[amplitudes]\n"
    "z = { type = \"ylm\", l = 1, m = 0 }\ni = { type = \"norm_sqr\", amplitude = \"z\" }\n")
expect_error(2 "gamma" inspect ${WORK_DIR}/other_columns.toml --data ${WORK_DIR}/ten.parquet)
