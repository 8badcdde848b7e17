# scan_includes(<out> <root> <regex> <note> <files...>): appends to <out> one line per #include in
# <files> whose path matches <regex> ("  <file relative to root>: <the include line><note>").
# Shared by the guards that keep layers and references apart (tests/layering, tests/golden).
function(scan_includes out root regex note)
  set(found "${${out}}")
  foreach(f ${ARGN})
    file(STRINGS "${f}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]${regex}")
    foreach(line ${lines})
      file(RELATIVE_PATH rel "${root}" "${f}")
      string(STRIP "${line}" line)
      string(APPEND found "  ${rel}: ${line}${note}\n")
    endforeach()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()
