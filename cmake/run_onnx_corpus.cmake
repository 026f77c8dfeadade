# The generated ONNX corpus: exports the large models with PyTorch (tools/onnx_corpus.py --set
# all) once per build folder (again when the script changes), then checks them. Exit 77
# (skipped) when Debian's python3-torch, python3-torchvision or python3-onnx is missing.
execute_process(COMMAND /usr/bin/python3 -c "import torch, torchvision, onnx"
                RESULT_VARIABLE have_torch OUTPUT_QUIET ERROR_QUIET)
if(NOT have_torch EQUAL 0)
  message("skipped: /usr/bin/python3 cannot import torch, torchvision and onnx "
          "(setup.sh --with-torch installs them)")
  cmake_language(EXIT 77)
endif()
# Regenerated when the script changed since (its models or weights may differ).
if(NOT EXISTS ${CORPUS}/corpus.json OR ${SCRIPT} IS_NEWER_THAN ${CORPUS}/corpus.json)
  file(REMOVE_RECURSE ${CORPUS})
  execute_process(COMMAND /usr/bin/python3 ${SCRIPT} ${CORPUS} --set all RESULT_VARIABLE made)
  if(NOT made EQUAL 0)
    message(FATAL_ERROR "tools/onnx_corpus.py failed (${made})")
  endif()
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env NTPB_ONNX_CORPUS=${CORPUS} ${TEST_BINARY}
                        --gtest_filter=OnnxCorpus.Generated* RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "onnx_corpus_tests failed")
endif()
