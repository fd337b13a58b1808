# Shared compile settings as interface targets, so each component opts in explicitly.
add_library(hpcl_warnings INTERFACE)
target_compile_options(hpcl_warnings INTERFACE -Wall -Wextra -Wshadow -Wno-unused-parameter
  $<$<BOOL:${HPCL_WERROR}>:-Werror>)
# GCC 12 at -O3 (the Release build scripts/demo.sh makes) warns inside libstdc++ about
# std::string concatenation (-Wrestrict, GCC bug 105329) and vector growth
# (-Wstringop-overflow) where nothing overlaps or overflows: 16 warnings scrolled past a new
# user's first build. Other compilers and levels keep both.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(hpcl_warnings INTERFACE
    $<$<CONFIG:Release>:-Wno-restrict -Wno-stringop-overflow>)
endif()

# Sanitizers for code that is not injected into the measured program (analyzer, format, their tests).
add_library(hpcl_sanitize INTERFACE)
if(HPCL_SANITIZE)
  target_compile_options(hpcl_sanitize INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(hpcl_sanitize INTERFACE -fsanitize=address,undefined)
endif()
