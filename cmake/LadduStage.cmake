# laddu_add_stage(NAME <stage> SOURCES <...> [DEPS <stage>...] [OPTIONAL_DEPS <stage>...]
#                 [PUBLIC_LIBS <target>...] [PRIVATE_LIBS <target>...] [TESTS <file_test.cpp>...]
#                 [TEST_LIBS <target>...])
#
# Declares the library target laddu_<stage> (alias laddu::<stage>) for one pipeline stage.
# DEPS names lower stages only: the list is the stage's edge set in docs/architecture.md, and
# tools/check_layering.py checks the #include lines against it. TESTS are the *_test.cpp files
# beside the code; they build into one GoogleTest executable laddu_<stage>_test. OPTIONAL_DEPS are
# stages that may not be built (jit without LLVM): each one that exists is linked privately and
# LADDU_HAVE_<STAGE>=1 is defined for this stage's sources and tests (0 otherwise), so exactly one
# place can choose at compile time.
set(LADDU_STAGES "" CACHE INTERNAL "All stage targets, bottom-up")

function(laddu_add_stage)
    cmake_parse_arguments(ARG "" "NAME" "SOURCES;DEPS;OPTIONAL_DEPS;PUBLIC_LIBS;PRIVATE_LIBS;TESTS;TEST_LIBS" ${ARGN})
    set(target laddu_${ARG_NAME})
    add_library(${target} ${ARG_SOURCES})
    add_library(laddu::${ARG_NAME} ALIAS ${target})
    set_target_properties(${target} PROPERTIES EXPORT_NAME ${ARG_NAME} OUTPUT_NAME laddu_${ARG_NAME})
    target_include_directories(${target}
        PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
        PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
    set(dep_targets "")
    foreach(dep IN LISTS ARG_DEPS)
        list(APPEND dep_targets laddu_${dep})
    endforeach()
    target_link_libraries(${target} PUBLIC ${dep_targets} ${ARG_PUBLIC_LIBS} PRIVATE ${ARG_PRIVATE_LIBS})
    set(have_definitions "")
    foreach(dep IN LISTS ARG_OPTIONAL_DEPS)
        string(TOUPPER ${dep} upper)
        if(TARGET laddu_${dep})
            # PUBLIC for static libraries: consumers must link the optional stage too.
            target_link_libraries(${target} PUBLIC laddu_${dep})
            list(APPEND have_definitions LADDU_HAVE_${upper}=1)
        else()
            list(APPEND have_definitions LADDU_HAVE_${upper}=0)
        endif()
    endforeach()
    target_compile_definitions(${target} PRIVATE ${have_definitions})
    laddu_apply_warnings(${target})
    laddu_apply_sanitizers(${target})
    set(LADDU_STAGE_DEPS_${ARG_NAME} "${ARG_DEPS}" CACHE INTERNAL "")
    set(LADDU_STAGES "${LADDU_STAGES};${target}" CACHE INTERNAL "All stage targets, bottom-up")
    install(TARGETS ${target} EXPORT laddu_cppTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

    if(LADDU_BUILD_TESTS AND ARG_TESTS)
        set(test_target laddu_${ARG_NAME}_test)
        add_executable(${test_target} ${ARG_TESTS})
        # The stage's private headers and the header-only helpers all unit tests share.
        target_include_directories(${test_target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
                                                          ${PROJECT_SOURCE_DIR}/tests/support)
        target_link_libraries(${test_target} PRIVATE ${target} ${ARG_PRIVATE_LIBS} ${ARG_TEST_LIBS}
            GTest::gtest GTest::gtest_main)
        # The stage's own tests see the same LADDU_HAVE_<STAGE> as its sources.
        target_compile_definitions(${test_target} PRIVATE ${have_definitions})
        laddu_apply_warnings(${test_target})
        laddu_apply_sanitizers(${test_target})
        gtest_discover_tests(${test_target} DISCOVERY_MODE PRE_TEST
            PROPERTIES LABELS "unit;${ARG_NAME}")
    endif()
endfunction()

# laddu_find_package(<args of find_package>): find_package(... REQUIRED) and record it, so the
# installed laddu_cppConfig.cmake finds the same dependency for users of the static libraries.
function(laddu_find_package)
    find_package(${ARGN} REQUIRED)
    string(REPLACE ";" " " line "${ARGN}")
    get_property(recorded GLOBAL PROPERTY LADDU_FIND_DEPENDENCIES)
    if(NOT line IN_LIST recorded)
        set_property(GLOBAL APPEND PROPERTY LADDU_FIND_DEPENDENCIES "${line}")
    endif()
endfunction()
