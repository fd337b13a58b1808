# Golden test driver (cmake -P): merges golden/profiles with the real hpcprof-lite, renders every
# format of both views, and diffs each against golden/expected; then the same for the memory
# scenario in golden/memory. Inputs: HPCPROF, GOLDEN, WORK.
# The text table's width follows $COLUMNS when piped; the golden files are 120 columns wide.
unset(ENV{COLUMNS})
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

function(run_and_capture name)
  execute_process(COMMAND ${ARGN}
    OUTPUT_FILE ${WORK}/${name}.out ERROR_FILE ${WORK}/${name}.err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    file(READ ${WORK}/${name}.err err)
    message(FATAL_ERROR "${name}: exit status ${rc}\n${err}")
  endif()
endfunction()

set(failed "")
function(compare actual expected)
  execute_process(COMMAND diff -u ${expected} ${actual} OUTPUT_VARIABLE d RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message("${d}")
    set(failed "${failed} ${expected}" PARENT_SCOPE)
  endif()
endfunction()

# -j 2 on purpose: the output must not depend on the split.
run_and_capture(merge ${HPCPROF} merge ${GOLDEN}/profiles -o ${WORK}/stencil.hpcdb -j 2)
compare(${WORK}/merge.err ${GOLDEN}/expected/merge.stderr)

foreach(view data code)
  foreach(fmt text json csv)
    run_and_capture(${view}.${fmt} ${HPCPROF} report ${WORK}/stencil.hpcdb --format ${fmt} --view ${view} --top 0)
    compare(${WORK}/${view}.${fmt}.out ${GOLDEN}/expected/${view}.${fmt})
  endforeach()
endforeach()
# The exports (docs/EXPORTS.md): folded stacks and one CSV row per variable and access path.
run_and_capture(folded ${HPCPROF} report ${WORK}/stencil.hpcdb --format folded)
compare(${WORK}/folded.out ${GOLDEN}/expected/data.folded)
run_and_capture(accesses ${HPCPROF} report ${WORK}/stencil.hpcdb --format csv --view accesses)
compare(${WORK}/accesses.out ${GOLDEN}/expected/accesses.csv)
# The default report (text, data view, top 20) exactly as a user first sees it.
run_and_capture(default ${HPCPROF} report ${WORK}/stencil.hpcdb --top 3)
compare(${WORK}/default.out ${GOLDEN}/expected/top3.text)
# Runtime libraries one by one, zero-sample rows included, in 80 columns.
run_and_capture(nogroup ${HPCPROF} report ${WORK}/stencil.hpcdb --no-group --all --width 80)
compare(${WORK}/nogroup.out ${GOLDEN}/expected/nogroup-all-80.text)

# The memory scenario (golden/memory): hardware memory metrics in every format, and the text in
# 80 columns, the width the memory lines and table are made to fit.
run_and_capture(memory-merge ${HPCPROF} merge ${GOLDEN}/memory/profiles -o ${WORK}/chase.hpcdb -j 2)
compare(${WORK}/memory-merge.err ${GOLDEN}/memory/expected/merge.stderr)
foreach(fmt text json csv)
  run_and_capture(memory.${fmt} ${HPCPROF} report ${WORK}/chase.hpcdb --format ${fmt} --top 0)
  compare(${WORK}/memory.${fmt}.out ${GOLDEN}/memory/expected/data.${fmt})
endforeach()
run_and_capture(memory-80 ${HPCPROF} report ${WORK}/chase.hpcdb --width 80)
compare(${WORK}/memory-80.out ${GOLDEN}/memory/expected/data-80.text)

if(failed)
  message(FATAL_ERROR "golden outputs differ:${failed}\n(if the change is intended: tests/unit/analyzer/golden/update.sh)")
endif()
