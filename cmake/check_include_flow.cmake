# The data flow of the design holds in the include graph: a file may include its own module
# and the modules before it, never one after it (a back-edge) or a sibling.
#
#   common → machine → topology (readers, IR, ops) → analysis → backends → results
#          → instrument → bench → { baseline | report | predict } → cli
#
# results is the typed results model and its codec: the one vocabulary between the code that
# measures (instrument, bench: they write it) and the code that reads a run (baseline, report).
# Data flows bench → results → baseline/report, so both sides include it, and it sits before
# the writers in the include order. It may include only what NTPB_ONLY_results lists, so the
# model stays free of everything that measures; likewise the comparator and the baseline store
# (NTPB_ONLY_baseline) reach nothing but the results model, the machine class and common.
# baseline, report and predict are siblings: each reads results, none another.
#
# Run by the default tests (include_flow):  cmake -DSOURCE_DIR=<repo> -P check_include_flow.cmake
# A file under src/<module>/ belongs to <module> (src/ops to topology); a public header
# include/ntpbench/<name>.h to the module in the table below. A new public header must be added
# to the table: an unknown one fails the check. A header with a same-named .cc under src/ must be
# placed in that file's module (the table cannot put a header where its code is not); one with
# none (results.h, backend.h, ntpbench.h, ...) is placed by the table alone, and checked alike.

cmake_minimum_required(VERSION 3.25)

set(NTPB_MODULES common machine topology analysis backends results instrument bench baseline
                 report predict cli)
# Each module's place in the flow; siblings share one.
set(NTPB_RANK_common 0)
set(NTPB_RANK_machine 1)
set(NTPB_RANK_topology 2)
set(NTPB_RANK_analysis 3)
set(NTPB_RANK_backends 4)
set(NTPB_RANK_results 5)
set(NTPB_RANK_instrument 6)
set(NTPB_RANK_bench 7)
set(NTPB_RANK_baseline 8)
set(NTPB_RANK_report 8)
set(NTPB_RANK_predict 8)
set(NTPB_RANK_cli 9)

set(NTPB_HEADER_common error precision scenario)
set(NTPB_HEADER_machine machine machine_class machine_peaks)
set(NTPB_HEADER_topology topology json_format xml_format onnx_format topology_file tensor_file
                         attrs shape expression resolve sweep)
set(NTPB_HEADER_analysis analysis roofline)
set(NTPB_HEADER_backends backend)
set(NTPB_HEADER_instrument counters memory_manager)
set(NTPB_HEADER_bench ntpbench reporting)
set(NTPB_HEADER_results results run_file sweep_results reliability prediction_check)
# Modules that may include only these others (besides their own).
set(NTPB_ONLY_results common machine)
# Counter sources and the interference probe measure; they do not know the results model (bench
# puts what they read into it), nor ops or backends.
set(NTPB_ONLY_instrument common machine)
set(NTPB_ONLY_baseline common machine results)
set(NTPB_HEADER_baseline baseline comparator)
set(NTPB_HEADER_report report run_comparison html_report topology_diff chrome_trace
                       sweep_analysis sweep_report scenario_report
                       precision_report prediction_report)
# The latency predictor and its calibrations: they read topologies, analysis, the backends' step
# plans and (calibrating) the results of probe sweeps.
set(NTPB_HEADER_predict latency_calibration latency_prediction)

if(NOT SOURCE_DIR)
  message(FATAL_ERROR "check_include_flow: pass -DSOURCE_DIR=<repository root>")
endif()

# The module of a repository path (src/... or include/ntpbench/... or ntpbench/...), or "".
function(ntpb_module_of path out)
  set(module "")
  if(path MATCHES "^(include/)?ntpbench/([A-Za-z0-9_]+)\\.h$")
    set(name ${CMAKE_MATCH_2})
    foreach(m IN LISTS NTPB_MODULES)
      if(name IN_LIST NTPB_HEADER_${m})
        set(module ${m})
      endif()
    endforeach()
    if(module STREQUAL "")
      set(module "?")
    endif()
  elseif(path MATCHES "^src/([A-Za-z0-9_]+)/")
    set(module ${CMAKE_MATCH_1})
    if(module STREQUAL "ops")
      set(module topology)
    endif()
  endif()
  set(${out} ${module} PARENT_SCOPE)
endfunction()

file(GLOB_RECURSE files RELATIVE ${SOURCE_DIR}
     ${SOURCE_DIR}/src/*.cc ${SOURCE_DIR}/src/*.h ${SOURCE_DIR}/include/ntpbench/*.h)
set(problems "")
set(edges 0)
foreach(file IN LISTS files)
  ntpb_module_of(${file} from)
  if(from STREQUAL "?")
    string(APPEND problems "${file}: a public header the module table does not place\n")
    continue()
  endif()
  set(from_rank ${NTPB_RANK_${from}})
  if(NOT DEFINED NTPB_RANK_${from})
    string(APPEND problems "${file}: src/${from} is not a module of the data flow\n")
    continue()
  endif()
  file(STRINGS ${SOURCE_DIR}/${file} lines REGEX "^#include \"")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" included "${line}")
    ntpb_module_of(${included} to)
    if(to STREQUAL "" OR to STREQUAL from)
      continue()
    endif()
    math(EXPR edges "${edges} + 1")
    if(to STREQUAL "?")
      string(APPEND problems "${file}: includes ${included}, which the module table does not place\n")
      continue()
    endif()
    set(to_rank ${NTPB_RANK_${to}})
    if(DEFINED NTPB_ONLY_${from} AND NOT to IN_LIST NTPB_ONLY_${from})
      string(REPLACE ";" ", " allowed "${NTPB_ONLY_${from}}")
      string(APPEND problems
             "${file}: includes ${included}: ${from} may include only ${allowed}\n")
    elseif(to_rank GREATER from_rank)
      string(APPEND problems
             "${file}: includes ${included}: ${from} may not depend on ${to} (it comes later in the flow)\n")
    elseif(to_rank EQUAL from_rank)
      string(APPEND problems
             "${file}: includes ${included}: ${from} and ${to} are siblings in the flow\n")
    endif()
  endforeach()
endforeach()

# The table against the code: a public header and its same-named .cc belong to one module.
file(GLOB_RECURSE implementations RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/src/*.cc)
set(unpaired 0)
foreach(file IN LISTS files)
  if(NOT file MATCHES "^include/ntpbench/([A-Za-z0-9_]+)\\.h$")
    continue()
  endif()
  set(name ${CMAKE_MATCH_1})
  ntpb_module_of(${file} placed)
  set(found "")
  foreach(impl IN LISTS implementations)
    if(impl MATCHES "/${name}\\.cc$")
      ntpb_module_of(${impl} impl_module)
      list(APPEND found ${impl_module})
      if(NOT impl_module STREQUAL placed)
        string(APPEND problems
               "${file}: the table places it in ${placed}, its code ${impl} is in ${impl_module}\n")
      endif()
    endif()
  endforeach()
  if(found STREQUAL "")
    math(EXPR unpaired "${unpaired} + 1")
  endif()
endforeach()

list(LENGTH files count)
if(problems)
  message(FATAL_ERROR "include flow: back-edges or unplaced headers\n${problems}")
endif()
message(STATUS "include flow: ${count} files, ${edges} includes across modules, no back-edge; "
               "${unpaired} public headers without a same-named .cc, placed by the table")
