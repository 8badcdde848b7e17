# Build step (cmake -P): writes a C++ source defining one char array that holds a text file, as a
# raw string literal. Used to compile configs/fornt16.yaml into flycol as the built-in default.
#   -DINPUT=<file> -DOUTPUT=<generated .cpp> -DSYMBOL=<qualified name> -DHEADER=<include>
file(READ "${INPUT}" content)
set(delimiter "flycol_embed")
string(FIND "${content}" ")${delimiter}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter ')${delimiter}\"'")
endif()
file(WRITE "${OUTPUT}"
  "// Generated from ${INPUT} by sim/config/embed_text.cmake at build time; do not edit.\n"
  "#include \"${HEADER}\"\n\n"
  "const char ${SYMBOL}[] = R\"${delimiter}(${content})${delimiter}\";\n")
