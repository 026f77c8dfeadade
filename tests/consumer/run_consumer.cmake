# Builds tests/consumer against ntpbench with find_package, then runs its suite once.
#   MODE=build_tree: ntpbench_DIR is the build folder (its export()).
#   MODE=installed:  ntpbench is installed into a prefix first.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
if(MODE STREQUAL "installed")
  execute_process(COMMAND ${CMAKE_COMMAND} --install ${NTPBENCH_BINARY_DIR} --prefix ${WORK_DIR}/prefix
                  RESULT_VARIABLE rc OUTPUT_QUIET)
  if(rc)
    message(FATAL_ERROR "install failed: ${rc}")
  endif()
  set(locate -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
else()
  set(locate -Dntpbench_DIR=${NTPBENCH_BINARY_DIR})
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${NTPBENCH_SOURCE_DIR}/tests/consumer -B ${WORK_DIR}/build
                        ${locate} -DCMAKE_BUILD_TYPE=Release
                        -DNTPBENCH_TOPOLOGY_DIR=${NTPBENCH_SOURCE_DIR}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "configure failed:\n${out}\n${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "build failed:\n${out}\n${err}")
endif()
# Installed to a prefix of its own, ntpbench's shipped topologies are found there, not under the
# prefix it was configured with (/usr/local): the package config passes the path to the suite.
if(MODE STREQUAL "installed")
  file(GLOB_RECURSE flags ${WORK_DIR}/build/CMakeFiles/consumer_suite.dir/flags.make)
  file(READ ${flags} text)
  if(NOT text MATCHES "NTPB_INSTALLED_DATADIR=[^ ]*${WORK_DIR}/prefix/share/ntpbench")
    message(FATAL_ERROR "the consumer suite is not told where the installed topologies are:\n${text}")
  endif()
endif()
# --ntpb_console_layers: every counter on the console, the marker's among them.
execute_process(COMMAND ${WORK_DIR}/build/consumer_suite --benchmark_min_time=0.01
                        --ntpb_topology_dir=${NTPBENCH_SOURCE_DIR} --ntpb_console_layers
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc OR NOT out MATCHES "consumer_mlp/eigen/f32/batch:2" OR NOT out MATCHES "head.time_share")
  message(FATAL_ERROR "consumer suite failed (${rc}):\n${out}\n${err}")
endif()
# No latency baseline for this machine class: a failure with the command that records one, not
# a silent "100% tests passed"; skipped only when the user opts in.
execute_process(COMMAND ${CMAKE_CTEST_COMMAND} -L perf -V
                WORKING_DIRECTORY ${WORK_DIR}/build
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc OR NOT out MATCHES "no baseline for this machine" OR NOT out MATCHES "create one with")
  message(FATAL_ERROR "ctest -L perf in the consumer should fail for lack of a baseline (${rc}):\n${out}\n${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env NTPB_ALLOW_NO_BASELINE=1
                        ${CMAKE_CTEST_COMMAND} -L perf -V
                WORKING_DIRECTORY ${WORK_DIR}/build
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc OR NOT out MATCHES "Skipped" OR NOT out MATCHES "allowed: --allow-no-baseline")
  message(FATAL_ERROR "ctest -L perf with NTPB_ALLOW_NO_BASELINE=1 should skip (${rc}):\n${out}\n${err}")
endif()
message(STATUS "consumer (${MODE}) built and ran:\n${out}")
