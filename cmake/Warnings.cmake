# Shared compile settings as interface targets, so each component opts in explicitly.
add_library(hpcl_warnings INTERFACE)
target_compile_options(hpcl_warnings INTERFACE -Wall -Wextra -Wshadow -Wno-unused-parameter
  $<$<BOOL:${HPCL_WERROR}>:-Werror>)

# Sanitizers for code that is not injected into the measured program (analyzer, format, their tests).
add_library(hpcl_sanitize INTERFACE)
if(HPCL_SANITIZE)
  target_compile_options(hpcl_sanitize INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(hpcl_sanitize INTERFACE -fsanitize=address,undefined)
endif()
