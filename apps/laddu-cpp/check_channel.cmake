# generate from a model file's [channel] table (examples/models/ksks_channel.toml): unit-weight
# events accept-rejected against the intensity with the channel's columns, the same file for any
# thread count, weighted phase-space events streamed to the file, and channel errors that name
# the key and its line. Variables: CLI, WORK_DIR, MODELS.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(model ${MODELS}/ksks_channel.toml)
include(${CMAKE_CURRENT_LIST_DIR}/cli_run.cmake)

run(generate --model ${model} --events 2000 --seed 4 --threads 1 --output ${WORK_DIR}/one.parquet)
if(NOT out MATCHES "^wrote 2000 events \\(accept-reject against [^:]+ksks_channel.toml: [0-9]+ proposals, acceptance 0\\.[0-9]+\\)")
    message(FATAL_ERROR "generate: unexpected summary '${out}'")
endif()
run(generate --model ${model} --events 2000 --seed 4 --threads 2 --output ${WORK_DIR}/two.parquet)
file(SHA256 ${WORK_DIR}/one.parquet one)
file(SHA256 ${WORK_DIR}/two.parquet two)
if(NOT one STREQUAL two)
    message(FATAL_ERROR "generate with 1 and 2 threads wrote different files")
endif()
run(data info ${WORK_DIR}/one.parquet)
if(NOT out MATCHES "events: 2000\n" OR NOT out MATCHES "p4s \\[beam, kshort1, kshort2, proton\\]"
        OR NOT out MATCHES "scalars \\[pol_angle, pol_magnitude\\]")
    message(FATAL_ERROR "data info of the channel events: ${out}")
endif()

run(generate --model ${model} --weighted --phase-space --events 300000 --seed 5
    --output ${WORK_DIR}/weighted.parquet)
if(NOT out MATCHES "^wrote 300000 weighted events \\(phase space; sum of weights [0-9.e+-]+\\)")
    message(FATAL_ERROR "generate --weighted: unexpected summary '${out}'")
endif()
run(data info ${WORK_DIR}/weighted.parquet)
if(NOT out MATCHES "events: 300000\n")
    message(FATAL_ERROR "data info of the weighted events: ${out}")
endif()

# A channel error names the key and its line.
file(READ ${model} text)
# expect_channel_error(<name> <from> <to> <regex>): the model with <from> replaced by <to> is
# exit 2 with stderr matching <regex>.
function(expect_channel_error name from to regex)
    string(REPLACE "${from}" "${to}" bad "${text}")
    file(WRITE ${WORK_DIR}/${name}.toml "${bad}")
    execute_process(COMMAND ${CLI} generate --model ${WORK_DIR}/${name}.toml --events 10
            --output ${WORK_DIR}/x.parquet
        RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
    if(NOT rc EQUAL 2 OR NOT err MATCHES "${regex}")
        message(FATAL_ERROR "${name}: expected exit 2 matching '${regex}', got ${rc}: '${err}'")
    endif()
endfunction()
expect_channel_error(bad_particle "particle = \"K_SHORT\"" "particle = \"K_LONGISH\""
    "bad_particle.toml:[0-9]+:[0-9]+: channel.edges\\[4\\].particle: [^\n]*K_LONGISH")
expect_channel_error(bad_slope "slope = 4.0" "slope = \"steep\""
    "channel.vertices\\[0\\].generation: VertexProposal JSON has a field of the wrong type")
expect_channel_error(bad_edge "outgoing = [\"X\", \"proton\"]" "outgoing = [\"X\", \"recoil\"]"
    "channel: [^\n]*recoil")
if(EXISTS ${WORK_DIR}/x.parquet)
    message(FATAL_ERROR "a failed generate left an output file")
endif()
