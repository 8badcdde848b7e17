# One ONNX backend conformance case through flycol (tests/conformance/CMakeLists.txt):
#   cmake -DFLYCOL=<flycol> -DCASE=<case dir> -DWORK=<scratch dir> -DMODE=<mode> [-DLAYER=<spec>]
#         [-DMODEL=golden|sc|both] [-DWEIGHTS_INPUT=<name>] -P run_case.cmake
# MODE run:    ONNX's input_0.pb (ifmap) and input_1.pb (weights) converted to .npy with
#              `flycol tensor convert`, then `flycol run --ifmap --weights --layer LAYER --expect
#              output_0.npy --check`: bit-exact with the golden model and within the derived FP16
#              accumulation bound of ONNX's expected output. With -DWEIGHTS_FROM_IMPORT=ON the
#              weights (and bias) are the model's initializers, written by `flycol import --weights-dir`.
# MODE pool:   ONNX's input_0.pb converted to .npy, then `flycol run --op OP --model MODEL --ifmap
#              --layer LAYER --expect output_0.npy --check` (pooling, issue 18: the golden model, or
#              the pooling unit, whose output must also equal the golden pooling's bit for bit).
# MODE import: `flycol import` of model.onnx (a weight that is a graph input, as in ONNX's node
#              tests, bound to input_1.pb with --constant) must give the layer LAYER (when given), and
#              `flycol net --onnx` on ONNX's input must match ONNX's expected output.
# The case fails with the command's output when any step fails.
foreach(v FLYCOL CASE WORK MODE)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run_case.cmake: -D${v}=... is required")
  endif()
endforeach()
if(NOT DEFINED MODEL)
  set(MODEL sc)
endif()
set(data ${CASE}/test_data_set_0)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("$ ${ARGN}\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "run_case.cmake: the step above exited with ${rc}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

step(${FLYCOL} tensor convert ${data}/input_0.pb ${WORK}/x.npy)
step(${FLYCOL} tensor convert ${data}/output_0.pb ${WORK}/expected.npy)
if(MODE STREQUAL "run")
  set(bias)
  if(WEIGHTS_FROM_IMPORT)
    # Weights that are initializers of the model (PyTorch's converted cases): the ones
    # `flycol import --weights-dir` writes, with the bias when the model has one.
    step(${FLYCOL} import --onnx ${CASE}/model.onnx --out ${WORK}/net.yaml --weights-dir ${WORK}/weights)
    file(COPY_FILE ${WORK}/weights/Conv_0.weights.npy ${WORK}/w.npy)
    if(EXISTS ${WORK}/weights/Conv_0.bias.npy)
      set(bias --bias ${WORK}/weights/Conv_0.bias.npy)
    endif()
  else()
    step(${FLYCOL} tensor convert ${data}/input_1.pb ${WORK}/w.npy)
  endif()
  step(${FLYCOL} run --model ${MODEL} --ifmap ${WORK}/x.npy --weights ${WORK}/w.npy ${bias} --layer ${LAYER}
       --expect ${WORK}/expected.npy --ofmap ${WORK}/y.npy --report ${WORK}/run.json --check)
  if(NOT EXISTS ${WORK}/y.npy)
    message(FATAL_ERROR "run_case.cmake: flycol run wrote no --ofmap")
  endif()
elseif(MODE STREQUAL "pool")
  if(NOT DEFINED OP)
    message(FATAL_ERROR "run_case.cmake: MODE pool needs -DOP=maxpool|avgpool|globalmaxpool|globalavgpool")
  endif()
  set(layer_arg)
  if(DEFINED LAYER AND NOT LAYER STREQUAL "")
    set(layer_arg --layer ${LAYER})
  endif()
  step(${FLYCOL} run --op ${OP} --model ${MODEL} --ifmap ${WORK}/x.npy ${layer_arg}
       --expect ${WORK}/expected.npy --ofmap ${WORK}/y.npy --report ${WORK}/run.json --check)
  if(NOT EXISTS ${WORK}/y.npy)
    message(FATAL_ERROR "run_case.cmake: flycol run wrote no --ofmap")
  endif()
elseif(MODE STREQUAL "import")
  set(bind)
  if(DEFINED WEIGHTS_INPUT)
    step(${FLYCOL} tensor convert ${data}/input_1.pb ${WORK}/w.npy)
    set(bind --constant ${WEIGHTS_INPUT}=${WORK}/w.npy)
  endif()
  step(${FLYCOL} import --onnx ${CASE}/model.onnx ${bind} --out ${WORK}/net.yaml)
  if(DEFINED LAYER)
    # The imported array layer (the network file's one layer line) must be the one the case's
    # attributes describe (derived by hand from ONNX's Conv definition in CMakeLists.txt). The
    # file leaves out keys at their default (no padding, stride 1), so such a key may be absent.
    file(STRINGS ${WORK}/net.yaml lines REGEX "^ *- {name:")
    list(LENGTH lines count)
    if(NOT count EQUAL 1)
      message(FATAL_ERROR "run_case.cmake: the imported network file has ${count} layers, want 1:\n${lines}")
    endif()
    string(REPLACE "," ";" keys "${LAYER}")
    foreach(kv ${keys})
      string(REPLACE "=" ";" pair "${kv}")
      list(GET pair 0 key)
      list(GET pair 1 value)
      if(lines MATCHES "[{ ]${key}: ${value}[,}]")
        continue()
      endif()
      set(default_value -1)
      if(key MATCHES "^p[tblr]?$")
        set(default_value 0)
      elseif(key MATCHES "^[sd][yx]?$")
        set(default_value 1)
      endif()
      if(value EQUAL default_value AND NOT lines MATCHES "[{ ]${key}[tblryx]?: ")
        continue()
      endif()
      message(FATAL_ERROR "run_case.cmake: the imported layer is not ${LAYER} (no ${key}: ${value}):\n${lines}")
    endforeach()
  endif()
  step(${FLYCOL} net --onnx ${CASE}/model.onnx ${bind} --input ${WORK}/x.npy --output ${WORK}/y.npy
       --expect ${WORK}/expected.npy --model ${MODEL} --check --report ${WORK}/report)
else()
  message(FATAL_ERROR "run_case.cmake: MODE=${MODE}: must be run or import")
endif()
