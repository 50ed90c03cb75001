# Warnings are errors only under LADDU_WERROR (CI=true), so local experiments still build.
# -Wnull-dereference is left out: with g++ 12 at -O2 it fires inside libstdc++ (vector, hashtable).
function(laddu_apply_warnings target)
    target_compile_options(${target} PRIVATE
        -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wnon-virtual-dtor
        -Wold-style-cast -Woverloaded-virtual -Wimplicit-fallthrough
        -Wdouble-promotion -Wformat=2)
    if(LADDU_WERROR)
        target_compile_options(${target} PRIVATE -Werror)
    endif()
    if(LADDU_NATIVE_ARCH)
        target_compile_options(${target} PRIVATE -march=x86-64-v3)
    endif()
    if(LADDU_DEVELOPMENT_CHECKS)
        target_compile_definitions(${target} PRIVATE LADDU_DEVELOPMENT_CHECKS=1)
    endif()
endfunction()
