# libFuzzer targets, one per input format (tests/fuzz/fuzz_*.cpp), built with clang in a
# build folder of their own (`make fuzz`, or scripts/fuzz): the whole core is compiled
# with -fsanitize=fuzzer-no-link,address,undefined (set in CMakeLists.txt), so what is
# fuzzed is the code the program runs, instrumented.
file(GLOB FUZZ_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_*.cpp)
set(FUZZ_TARGETS "")
foreach(src ${FUZZ_SOURCES})
  get_filename_component(name ${src} NAME_WE)
  add_executable(${name} ${src})
  # src/ too: a target may reach a parser's internal knobs (fuzz_series_file: the block size).
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tests/fuzz ${CMAKE_SOURCE_DIR}/src)
  target_link_libraries(${name} PRIVATE inferlint_core)
  target_link_options(${name} PRIVATE -fsanitize=fuzzer)
  list(APPEND FUZZ_TARGETS ${name})
endforeach()
add_custom_target(fuzz_all DEPENDS ${FUZZ_TARGETS})
