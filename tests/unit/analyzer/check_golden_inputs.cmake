# Checks (cmake -P) that golden/profiles and golden/memory/profiles are what golden_gen.cpp writes
# today, so the golden scenarios and their checked-in bytes cannot drift apart. Inputs: GEN,
# GOLDEN, WORK.
file(REMOVE_RECURSE ${WORK})

# scenario: "" (the stencil, in golden/profiles) or "memory" (golden/memory/profiles).
function(check_scenario scenario)
  if(scenario STREQUAL "")
    set(out ${WORK}/stencil)
    set(flags "")
    set(checked_dir ${GOLDEN}/profiles)
  else()
    set(out ${WORK}/${scenario})
    set(flags --${scenario})
    set(checked_dir ${GOLDEN}/${scenario}/profiles)
  endif()
  file(MAKE_DIRECTORY ${out})
  execute_process(COMMAND ${GEN} ${flags} ${out} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "golden generator ${flags} failed: ${rc}")
  endif()
  file(GLOB generated RELATIVE ${out} ${out}/*.hpcl)
  file(GLOB checked_in RELATIVE ${checked_dir} ${checked_dir}/*.hpcl)
  if(NOT generated STREQUAL checked_in)
    message(FATAL_ERROR "golden profiles differ in names: ${generated} vs ${checked_in}")
  endif()
  foreach(f ${generated})
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${out}/${f} ${checked_dir}/${f}
      RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${f} differs from what golden_gen writes; run tests/unit/analyzer/golden/update.sh")
    endif()
  endforeach()
endfunction()

check_scenario("")
check_scenario(memory)
