# FindBrotli: the Brotli decoder and encoder (Debian libbrotli-dev ships no CMake package).
# Defines Brotli::dec and Brotli::enc.
find_path(Brotli_INCLUDE_DIR brotli/decode.h)
find_library(Brotli_DEC_LIBRARY NAMES brotlidec)
find_library(Brotli_ENC_LIBRARY NAMES brotlienc)
find_library(Brotli_COMMON_LIBRARY NAMES brotlicommon)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Brotli
    REQUIRED_VARS Brotli_DEC_LIBRARY Brotli_ENC_LIBRARY Brotli_COMMON_LIBRARY Brotli_INCLUDE_DIR)
if(Brotli_FOUND AND NOT TARGET Brotli::dec)
    add_library(Brotli::common UNKNOWN IMPORTED)
    set_target_properties(Brotli::common PROPERTIES IMPORTED_LOCATION ${Brotli_COMMON_LIBRARY}
        INTERFACE_INCLUDE_DIRECTORIES ${Brotli_INCLUDE_DIR})
    foreach(part dec enc)
        string(TOUPPER ${part} upper)
        add_library(Brotli::${part} UNKNOWN IMPORTED)
        set_target_properties(Brotli::${part} PROPERTIES IMPORTED_LOCATION ${Brotli_${upper}_LIBRARY}
            INTERFACE_LINK_LIBRARIES Brotli::common)
    endforeach()
endif()
mark_as_advanced(Brotli_INCLUDE_DIR Brotli_DEC_LIBRARY Brotli_ENC_LIBRARY Brotli_COMMON_LIBRARY)
