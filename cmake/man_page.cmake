# A manual page from a program's --help (the only documentation of its options, so the page
# says what --help says): cmake -DPROGRAM=<exe> -DNAME=<name> -DSUMMARY=<one line>
# -DVERSION=<version> -DOUT=<page.1> -P man_page.cmake. The help text goes in unfilled, as it is
# laid out; roff's control characters at the start of a line and backslashes are escaped.
execute_process(COMMAND ${PROGRAM} --help OUTPUT_VARIABLE help ERROR_VARIABLE err
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR help STREQUAL "")
  message(FATAL_ERROR "${PROGRAM} --help failed (${rc}): ${err}")
endif()
string(REPLACE "\\" "\\e" help "${help}")
string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" help "${help}")
string(TOUPPER "${NAME}" upper)
file(WRITE "${OUT}"
     ".TH ${upper} 1 \"\" \"OpSparse ${VERSION}\" \"User Commands\"\n"
     ".SH NAME\n${NAME} \\- ${SUMMARY}\n"
     ".SH DESCRIPTION\n.nf\n${help}.fi\n"
     ".SH SEE ALSO\nThe project's README.md and apps/ READMEs; for the mcl companions, mcl(1),\n"
     "mcxio(5), mcxload(1), mcxdump(1) and clm(1).\n")
