# FindLibdeflate: libdeflate (Debian libdeflate-dev ships no CMake package). Defines
# Libdeflate::libdeflate.
find_path(Libdeflate_INCLUDE_DIR libdeflate.h)
find_library(Libdeflate_LIBRARY NAMES deflate)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Libdeflate REQUIRED_VARS Libdeflate_LIBRARY Libdeflate_INCLUDE_DIR)
if(Libdeflate_FOUND AND NOT TARGET Libdeflate::libdeflate)
    add_library(Libdeflate::libdeflate UNKNOWN IMPORTED)
    set_target_properties(Libdeflate::libdeflate PROPERTIES IMPORTED_LOCATION ${Libdeflate_LIBRARY}
        INTERFACE_INCLUDE_DIRECTORIES ${Libdeflate_INCLUDE_DIR})
endif()
mark_as_advanced(Libdeflate_INCLUDE_DIR Libdeflate_LIBRARY)
