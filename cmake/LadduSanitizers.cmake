# LADDU_SANITIZE="address;undefined" (preset dev) or "thread" (preset tsan).
function(laddu_apply_sanitizers target)
    if(NOT LADDU_SANITIZE)
        return()
    endif()
    string(REPLACE ";" "," san "${LADDU_SANITIZE}")
    target_compile_options(${target} PRIVATE -fsanitize=${san} -fno-omit-frame-pointer -fno-sanitize-recover=all)
    target_link_options(${target} PUBLIC -fsanitize=${san})
endfunction()
