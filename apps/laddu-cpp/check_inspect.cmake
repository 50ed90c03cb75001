# `laddu-cpp inspect` on examples/models/breit_wigner_zlm.toml: every section, and per-event
# values for two events of generated data, where the separately compiled named amplitude
# "intensity" must agree with the compiled model's intensity. Variables: CLI, WORK_DIR, MODELS.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(model ${MODELS}/breit_wigner_zlm.toml)
execute_process(COMMAND ${CLI} generate --model ${model} --phase-space --events 10 --seed 5
    --output ${WORK_DIR}/events.parquet RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "generate failed (${rc}): ${err}")
endif()
execute_process(COMMAND ${CLI} inspect ${model} --data ${WORK_DIR}/events.parquet --events 0,5
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "inspect failed (${rc}): ${err}")
endif()
foreach(expected
        "== parameters: 4 free, 3 fixed"
        "\\[2\\] +f2 mass \\(initial 1.517, bounds \\[1.4, 1.65\\], unit GeV\\)"
        "fixed +f0 mass \\(fixed 1.704"
        "== amplitudes \\(21 named; tags: D, S\\)"
        "\n  f2_bw +breit_wigner +[0-9]+ nodes"
        "== intensity graph"
        "norm_sqr"
        "== cache plan: [0-9]+ columns"
        "== precompute program"
        "== evaluate program"
        "\n%0 = "
        "event 0:\n  amplitude f0_bw"
        "event 5:\n"
        "  amplitude z22 +[-0-9.e]+ [-+][0-9.e]+i\n"
        "  cache cache0 ")
    if(NOT out MATCHES "${expected}")
        message(FATAL_ERROR "inspect output lacks '${expected}':\n${out}")
    endif()
endforeach()
# The named amplitude "intensity" and the model's intensity, to 7 significant digits, per event.
string(REGEX MATCHALL "\n  amplitude intensity +[-0-9.]+" named "${out}")
string(REGEX MATCHALL "\n  intensity +[-0-9.]+" whole "${out}")
list(LENGTH named n)
if(NOT n EQUAL 2)
    message(FATAL_ERROR "expected two intensity values, got '${named}'")
endif()
foreach(i 0 1)
    list(GET named ${i} a)
    list(GET whole ${i} b)
    string(REGEX REPLACE ".* ([-0-9.]+)$" "\\1" a "${a}")
    string(REGEX REPLACE ".* ([-0-9.]+)$" "\\1" b "${b}")
    string(SUBSTRING "${a}" 0 8 a)
    string(SUBSTRING "${b}" 0 8 b)
    if(NOT a STREQUAL b)
        message(FATAL_ERROR "event ${i}: amplitude intensity ${a} != model intensity ${b}")
    endif()
endforeach()
# --show restricts the sections.
execute_process(COMMAND ${CLI} inspect ${model} --show parameters RESULT_VARIABLE rc
    OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR out MATCHES "== cache plan" OR NOT out MATCHES "== parameters")
    message(FATAL_ERROR "inspect --show parameters printed other sections: ${out}")
endif()
# The built-in K-matrix model and its model file inspect too.
foreach(m kmatrix_benchmark ${MODELS}/kmatrix.toml)
    execute_process(COMMAND ${CLI} inspect ${m} --show parameters,cache RESULT_VARIABLE rc
        OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0 OR NOT out MATCHES "inverse-row")
        message(FATAL_ERROR "inspect ${m} failed (${rc}): ${err}")
    endif()
endforeach()
# A reaction with its own column names: generate writes them, inspect reads them.
file(WRITE ${WORK_DIR}/renamed.toml "[model]\nintensity = \"i\"\n"
    "[reaction]\nbeam = \"gamma\"\nrecoil = \"p\"\ndaughters = [\"k1\", \"k2\"]\n"
    "polarization = { magnitude = \"pm\", angle = \"pa\" }\n"
    "[generator]\nbeam_energy = 8.5\nmass_max = 1.8\n"
    "[amplitudes]\nz = { type = \"zlm\", l = 1, m = 1, frame = \"gottfried_jackson\", particle = \"k2\" }\n"
    "i = { type = \"norm_sqr\", amplitude = \"z\" }\n")
execute_process(COMMAND ${CLI} generate --model ${WORK_DIR}/renamed.toml --events 20
    --output ${WORK_DIR}/renamed.parquet RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "generate renamed.toml failed (${rc}): ${err}")
endif()
execute_process(COMMAND ${CLI} data info ${WORK_DIR}/renamed.parquet OUTPUT_VARIABLE out)
foreach(column gamma_e p_px k1_py k2_pz pm pa)
    if(NOT out MATCHES "${column}")
        message(FATAL_ERROR "renamed.parquet lacks column ${column}: ${out}")
    endif()
endforeach()
execute_process(COMMAND ${CLI} inspect ${WORK_DIR}/renamed.toml --data ${WORK_DIR}/renamed.parquet
    --events 19 --show values RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "event 19:\n  amplitude z ")
    message(FATAL_ERROR "inspect renamed.toml failed (${rc}): ${err}\n${out}")
endif()
