# opsparse_instantiations(<out-var> <unit> <header> <macro> <product>...): writes one compile unit,
# <build>/instantiations/<unit>.cu, holding <macro>(<product>) for each product (its macro
# arguments separated by '|', e.g. "plus_times<double>|double|double|no_mask"), and sets
# <out-var> to its path. The lists of products live in the CMakeLists.txt that call this, one
# list a unit, so that the units compile in parallel; a list's file is rewritten only when the
# list changes.
function(opsparse_instantiations out unit header macro)
  set(body "")
  foreach(product IN LISTS ARGN)
    string(REPLACE "|" ", " arguments "${product}")
    string(APPEND body "${macro}(${arguments})\n")
  endforeach()
  file(RELATIVE_PATH from ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_LIST_FILE})
  set(file ${CMAKE_CURRENT_BINARY_DIR}/instantiations/${unit}.cu)
  file(CONFIGURE OUTPUT ${file} @ONLY CONTENT
"// Generated from the list `${unit}` of ${from}: edit the list there.
#include \"${header}\"

namespace opsparse {
${body}}  // namespace opsparse
")
  set(${out} ${file} PARENT_SCOPE)
endfunction()
