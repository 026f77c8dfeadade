# ntpbench_add_suite(<target>
#     SOURCES <file>...                 suite sources written with NTPB_TOPOLOGY_BENCHMARK
#     [SUITE <name>]                    baseline name (default: <target>)
#     [BASELINE_DIR <dir>]              default: ${CMAKE_CURRENT_SOURCE_DIR}/baselines
#     [BACKENDS <backend>...]           one CTest test per backend (default: eigen)
#     [LABELS <label>...]               extra CTest labels
#     [REPETITIONS <n>]                 default: 6
#     [MIN_TIME <seconds>]              per repetition, default: 0.2
#     [SESSIONS <n>]                    update-baselines: runs whose spread sets each
#                                       benchmark's latency threshold, default: 4
#     [ARGS <arg>...])                  more `ntpbench gate` / suite flags
#
# Builds the suite and adds CTest tests labelled `perf` (`ctest -L perf` runs them):
#  - perf.<target>.signature: one quick run, whose machine-independent signature (analytic FLOPs,
#    bytes, parameters; the memory a backend plans alike everywhere; the configuration) must equal
#    <BASELINE_DIR>/any-machine/<suite>.json exactly, on every machine;
#  - perf.<target>.<backend>, also labelled `backend:<backend>`: the suite with repetitions and
#    random interleaving, its latency and the memory that depends on the machine against
#    <BASELINE_DIR>/<machine class>/<suite>.json.
# A test passes; fails on a regression, a changed signature, or no latency baseline for this
# machine class (the output says how to record one; NTPB_ALLOW_NO_BASELINE=1 in the environment
# makes that a skip instead); or is skipped (exit 77) when there is no signature file or the
# verdict is inconclusive. The machine class is the hardware: after a library upgrade the class's
# baseline still judges, and the verdict names the environment change. `cmake --build . --target update-baselines`
# rewrites the machine class's baseline and the signature, printing what changed.
#
# With -DNTPBENCH_PERF_CONTROL_REF=<git ref> (e.g. HEAD, origin/main, a merge base), the tests
# judge the suite A/B against the same suite built at that commit (perf.control.<target> builds
# it once per commit into <build>/perf-control): on a shared machine whose speed drifts between
# days, only a control measured in the same minutes can see a 15% change.
set(NTPBENCH_PERF_CONTROL_REF "" CACHE STRING
    "git ref whose build is the perf gate's A/B control (empty: stored baselines only)")
set(_NTPBENCH_CMAKE_DIR ${CMAKE_CURRENT_LIST_DIR})

function(ntpbench_add_suite target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "SUITE;BASELINE_DIR;REPETITIONS;MIN_TIME;SESSIONS"
                        "SOURCES;BACKENDS;LABELS;ARGS")
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "ntpbench_add_suite(${target}): SOURCES is required")
  endif()
  if(NOT ARG_SUITE)
    set(ARG_SUITE ${target})
  endif()
  if(NOT ARG_BASELINE_DIR)
    set(ARG_BASELINE_DIR ${CMAKE_CURRENT_SOURCE_DIR}/baselines)
  endif()
  if(NOT ARG_BACKENDS)
    set(ARG_BACKENDS eigen)
  endif()
  if(NOT ARG_REPETITIONS)
    set(ARG_REPETITIONS 6)
  endif()
  if(NOT ARG_SESSIONS)
    set(ARG_SESSIONS 4)
  endif()
  if(NOT ARG_MIN_TIME)
    set(ARG_MIN_TIME 0.2)
  endif()
  add_executable(${target} ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE ntpbench::ntpbench_main)
  set(gate $<TARGET_FILE:ntpbench::ntpbench_cli> gate --suite-binary $<TARGET_FILE:${target}>
           --suite ${ARG_SUITE} --baseline-dir ${ARG_BASELINE_DIR}
           --repetitions ${ARG_REPETITIONS} --min-time ${ARG_MIN_TIME} ${ARG_ARGS})
  set(control_args "")
  if(NTPBENCH_PERF_CONTROL_REF)
    set(control_dir ${CMAKE_BINARY_DIR}/perf-control)
    set(control_args --control-dir ${control_dir})
    add_test(NAME perf.control.${target}
             COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR}
                     -DREF=${NTPBENCH_PERF_CONTROL_REF} -DCONTROL_DIR=${control_dir}
                     -DTARGETS=${target} -DBUILD_TYPE=${CMAKE_BUILD_TYPE}
                     -DCXX_COMPILER=${CMAKE_CXX_COMPILER}
                     -P ${_NTPBENCH_CMAKE_DIR}/NtpbenchControlBuild.cmake)
    set_tests_properties(perf.control.${target} PROPERTIES
      LABELS "perf;${ARG_LABELS}" FIXTURES_SETUP ntpbench_control_${target} RUN_SERIAL TRUE
      TIMEOUT 3600)
  endif()
  add_test(NAME perf.${target}.signature
           COMMAND ${gate} --judge signature --repetitions 1 --min-time 0.01
                   --report ${CMAKE_CURRENT_BINARY_DIR}/${target}.signature.comparison.json)
  set_tests_properties(perf.${target}.signature PROPERTIES
    LABELS "perf;${ARG_LABELS}" SKIP_RETURN_CODE 77 RUN_SERIAL TRUE TIMEOUT 1800)
  foreach(backend IN LISTS ARG_BACKENDS)
    add_test(NAME perf.${target}.${backend}
             COMMAND ${gate} --judge latency --filter /${backend}/ --confirm ${control_args}
                     --report ${CMAKE_CURRENT_BINARY_DIR}/${target}.${backend}.comparison.json)
    set_tests_properties(perf.${target}.${backend} PROPERTIES
      LABELS "perf;backend:${backend};${ARG_LABELS}" SKIP_RETURN_CODE 77 RUN_SERIAL TRUE
      TIMEOUT 1800)
    if(NTPBENCH_PERF_CONTROL_REF)
      set_tests_properties(perf.${target}.${backend} PROPERTIES
        FIXTURES_REQUIRED ntpbench_control_${target})
    endif()
  endforeach()
  add_custom_target(update-baselines-${target} COMMAND ${gate} --update --sessions ${ARG_SESSIONS}
                    DEPENDS ${target} USES_TERMINAL
                    COMMENT "Rewriting ${ARG_BASELINE_DIR}/<machine class>/${ARG_SUITE}.json")
  if(NOT TARGET update-baselines)
    add_custom_target(update-baselines)
  endif()
  add_dependencies(update-baselines update-baselines-${target})
endfunction()
