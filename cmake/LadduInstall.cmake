# cmake --install gives headers, the stage libraries and a package config, so a user's
# find_package(laddu_cpp) yields laddu::laddu (and laddu::<stage> targets).
include(CMakePackageConfigHelpers)
get_property(_laddu_deps GLOBAL PROPERTY LADDU_FIND_DEPENDENCIES)
set(LADDU_FIND_DEPENDENCY_LINES "")
foreach(_dep IN LISTS _laddu_deps)
    string(APPEND LADDU_FIND_DEPENDENCY_LINES "find_dependency(${_dep})\n")
endforeach()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/laddu DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT laddu_cppTargets NAMESPACE laddu:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/laddu_cpp)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/laddu_cppConfig.cmake.in
    ${PROJECT_BINARY_DIR}/laddu_cppConfig.cmake
    INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/laddu_cpp)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/laddu_cppConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
# The config, its version file and the find modules of dependencies without a CMake package.
install(FILES ${PROJECT_BINARY_DIR}/laddu_cppConfig.cmake ${PROJECT_BINARY_DIR}/laddu_cppConfigVersion.cmake
    ${PROJECT_SOURCE_DIR}/cmake/FindLZ4.cmake ${PROJECT_SOURCE_DIR}/cmake/FindBrotli.cmake
    ${PROJECT_SOURCE_DIR}/cmake/FindLibdeflate.cmake
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/laddu_cpp)
