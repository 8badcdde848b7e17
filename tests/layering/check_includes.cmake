# Fails when a file includes a layer above its own: base/ may include neither hw/ nor sim/, hw/
# may not include sim/ (docs/dev/architecture.md, "Layers"). Run by the CTest `layering_includes`:
#   cmake -DROOT=<repository> -P check_includes.cmake
if(NOT ROOT)
  message(FATAL_ERROR "check_includes.cmake: set -DROOT=<repository root>")
endif()

include(${CMAKE_CURRENT_LIST_DIR}/../common/scan_includes.cmake)
set(violations "")
foreach(rule "base;hw|sim" "hw;sim")
  list(GET rule 0 layer)
  list(GET rule 1 above)
  file(GLOB_RECURSE files LIST_DIRECTORIES false "${ROOT}/${layer}/*.h" "${ROOT}/${layer}/*.cpp"
       "${ROOT}/${layer}/*.hpp" "${ROOT}/${layer}/*.cc" "${ROOT}/${layer}/*.in")
  scan_includes(violations "${ROOT}" "(${above})/" "" ${files})
endforeach()

if(violations)
  message(FATAL_ERROR "layering: these files include a layer above their own (base/ < hw/ < sim/):\n"
                      "${violations}Move what both need below both (base/), or the file into the layer it needs.")
endif()
message(STATUS "layering: no upward include in base/ or hw/")
