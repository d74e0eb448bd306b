# libFuzzer targets, one per input format (tests/fuzz/fuzz_*.cpp), built with clang in a
# build folder of their own (`make fuzz`, or scripts/fuzz): the whole core is compiled
# with -fsanitize=fuzzer-no-link,address,undefined (set in CMakeLists.txt), so what is
# fuzzed is the code the program runs, instrumented (the CLI and the tests get ASan and
# UBSan only).
# The targets are one program (tests/fuzz/all_targets.cpp), compiled and linked once
# rather than once per target; each target is a link to it, fuzz_<format>, and the program
# fuzzes the target it is run as.
file(GLOB FUZZ_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_*.cpp)
add_executable(inferlint_fuzz ${CMAKE_SOURCE_DIR}/tests/fuzz/all_targets.cpp)
# src/ too: a target may reach a parser's internal knobs (fuzz_series_file: the block size).
target_include_directories(inferlint_fuzz PRIVATE ${CMAKE_SOURCE_DIR}/tests/fuzz ${CMAKE_SOURCE_DIR}/src)
target_link_libraries(inferlint_fuzz PRIVATE inferlint_core)
target_compile_options(inferlint_fuzz PRIVATE -fsanitize=fuzzer-no-link)
target_link_options(inferlint_fuzz PRIVATE -fsanitize=fuzzer)
set(FUZZ_LINKS "")
foreach(src ${FUZZ_SOURCES})
  get_filename_component(name ${src} NAME_WE)
  add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/${name}
                     COMMAND ${CMAKE_COMMAND} -E create_symlink inferlint_fuzz ${CMAKE_BINARY_DIR}/${name}
                     DEPENDS inferlint_fuzz VERBATIM)
  list(APPEND FUZZ_LINKS ${CMAKE_BINARY_DIR}/${name})
endforeach()
add_custom_target(fuzz_all DEPENDS ${FUZZ_LINKS})
