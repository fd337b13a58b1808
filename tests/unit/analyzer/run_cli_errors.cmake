# Command-line misuse and bad inputs (cmake -P): each must fail with a non-zero status and a
# one-line "hpcprof-lite: ..." message naming the input. Inputs: HPCPROF, GOLDEN, WORK.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/empty ${WORK}/damaged)

set(failures "")
# expect(<status> <stderr regex> <lines or -1> <args...>)
function(expect want_rc want_err want_lines)
  execute_process(COMMAND ${HPCPROF} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REGEX MATCHALL "\n" newlines "${err}")
  list(LENGTH newlines lines)
  if(NOT rc EQUAL want_rc OR NOT err MATCHES "${want_err}" OR (want_lines GREATER -1 AND NOT lines EQUAL want_lines))
    set(failures "${failures}\n  hpcprof-lite ${ARGN}: status ${rc} (want ${want_rc}), ${lines} stderr lines:\n${err}" PARENT_SCOPE)
  endif()
endfunction()

expect(1 "^hpcprof-lite: ${WORK}/nope: no such directory\n$" 1 merge ${WORK}/nope -o ${WORK}/x.hpcdb)
expect(1 "^hpcprof-lite: no profiles \\(\\*\\.hpcl\\) in ${WORK}/empty\n$" 1 merge ${WORK}/empty -o ${WORK}/x.hpcdb)
file(WRITE ${WORK}/damaged/a.hpcl "not a profile")
expect(1 "skipping ${WORK}/damaged/a.hpcl: .*none of the 1 profiles in ${WORK}/damaged could be read" 2
       merge ${WORK}/damaged -o ${WORK}/x.hpcdb)
if(EXISTS ${WORK}/x.hpcdb)
  set(failures "${failures}\n  a failed merge wrote its output")
endif()

expect(1 "^hpcprof-lite: ${GOLDEN}/profiles/stencil-rank0.hpcl: a process profile, not a database" 1
       report ${GOLDEN}/profiles/stencil-rank0.hpcl)
expect(1 "^hpcprof-lite: ${WORK}/missing.hpcdb" 1 report ${WORK}/missing.hpcdb)
execute_process(COMMAND ${HPCPROF} merge ${GOLDEN}/profiles -o ${WORK}/good.hpcdb -j 1
  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
execute_process(COMMAND head -c 60 ${WORK}/good.hpcdb OUTPUT_FILE ${WORK}/cut.hpcdb)
expect(1 "^hpcprof-lite: ${WORK}/cut.hpcdb" 1 report ${WORK}/cut.hpcdb)

expect(2 "no command.*usage: hpcprof-lite merge" -1)
expect(2 "unknown command frobnicate.*usage:" -1 frobnicate)
expect(2 "--format is text, json or csv, not xml" -1 report ${WORK}/good.hpcdb --format xml)
expect(2 "--view is data or code" -1 report ${WORK}/good.hpcdb --view heap)
expect(2 "--top wants a number" -1 report ${WORK}/good.hpcdb --top many)
expect(2 "--alloc-wrapper: not a regular expression: \\(" -1 report ${WORK}/good.hpcdb --alloc-wrapper "(")
expect(2 "--alloc-wrapper needs a value" -1 report ${WORK}/good.hpcdb --alloc-wrapper)
# Repeatable and accepted in both spellings (its effect is tested in report_naming_test.cpp).
expect(0 "^$" 0 report ${WORK}/good.hpcdb --alloc-wrapper=^save_ --alloc-wrapper "Memory::")
expect(2 "no output database" -1 merge ${GOLDEN}/profiles)
expect(2 "-j wants a number of threads, not 0" -1 merge ${GOLDEN}/profiles -o ${WORK}/y.hpcdb -j 0)
expect(2 "unknown option --bogus" -1 report ${WORK}/good.hpcdb --bogus)
expect(2 "--width wants a number of columns \\(at least 40\\), not 10" -1 report ${WORK}/good.hpcdb --width 10)
# Piped, the text report follows $COLUMNS: no line of it is wider.
set(ENV{COLUMNS} 80)
execute_process(COMMAND ${HPCPROF} report ${WORK}/good.hpcdb --no-group --all
  RESULT_VARIABLE rc OUTPUT_VARIABLE out)
unset(ENV{COLUMNS})
string(REPLACE "\n" ";" lines "${out}")
foreach(line IN LISTS lines)
  # string(LENGTH) counts bytes: the report's two non-ASCII characters count one column each.
  string(REPLACE "±" "+" line "${line}")
  string(REPLACE "…" "." line "${line}")
  string(LENGTH "${line}" n)
  if(n GREATER 80)
    set(failures "${failures}\n  COLUMNS=80: a line of ${n} columns: ${line}")
  endif()
endforeach()
if(NOT rc EQUAL 0 OR NOT out MATCHES "hot: 0-22% of the block")
  set(failures "${failures}\n  COLUMNS=80 report: status ${rc}\n${out}")
endif()
execute_process(COMMAND ${HPCPROF} --help RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^usage: hpcprof-lite merge DIR -o DB" OR NOT err STREQUAL "")
  set(failures "${failures}\n  --help: status ${rc}, stdout ${out}")
endif()
execute_process(COMMAND ${HPCPROF} report ${WORK}/good.hpcdb --format=json --view=code --top=2
  RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  set(failures "${failures}\n  --opt=value forms rejected")
endif()

if(failures)
  message(FATAL_ERROR "${failures}")
endif()
