# Helpers shared by every folder: optional dependencies and one way to declare a library or test.

# nimble_resolve_option(<VAR> <what> <finder>): runs <finder>, which sets NIMBLE_FOUND_<x>, and turns
# NIMBLE_HAVE_<x> on or off. ON with the dependency missing is a configure error naming the fix.
function(nimble_resolve_option var what finder)
  string(REPLACE "NIMBLE_WITH_" "" part "${var}")
  set(NIMBLE_HAVE_${part} OFF PARENT_SCOPE)
  if("${${var}}" STREQUAL "OFF")
    message(STATUS "Nimble: ${part} parts disabled (${var}=OFF)")
    return()
  endif()
  cmake_language(CALL ${finder})
  if(NIMBLE_FOUND_${part})
    set(NIMBLE_HAVE_${part} ON PARENT_SCOPE)
  elseif("${${var}}" STREQUAL "ON")
    message(FATAL_ERROR "Nimble: ${var}=ON but ${what} was not found. Install it, or configure with -D${var}=OFF.")
  else()
    message(WARNING "Nimble: ${what} not found; building WITHOUT the ${part} parts. Install it, or pass -D${var}=ON to make this an error.")
  endif()
endfunction()

macro(nimble_find_cuda)
  find_package(CUDAToolkit QUIET)
  set(NIMBLE_FOUND_CUDA OFF)
  if(CUDAToolkit_FOUND AND TARGET CUDA::cupti)
    set(NIMBLE_FOUND_CUDA ON)
  endif()
endmacro()

macro(nimble_find_torch)
  set(NIMBLE_FOUND_TORCH OFF)
  # Without a list, Torch's CMake tries to run a GPU probe at configure time, which fails on
  # machines with no GPU. Nimble targets Hopper (H100/H200).
  if(NOT DEFINED TORCH_CUDA_ARCH_LIST AND NOT DEFINED ENV{TORCH_CUDA_ARCH_LIST})
    set(TORCH_CUDA_ARCH_LIST "9.0")
  endif()
  find_package(Torch 2.11 QUIET)
  if(Torch_FOUND)
    set(NIMBLE_FOUND_TORCH ON)
  endif()
endmacro()

# The Python module binds libtorch tensors through PyTorch's own pybind11 (torch/include/pybind11) and
# links libtorch_python, both from the PyTorch whose libtorch the rest of the build uses.
macro(nimble_find_python)
  set(NIMBLE_FOUND_PYTHON OFF)
  find_package(Python 3.9 QUIET COMPONENTS Interpreter Development.Module)
  get_target_property(_nimble_torch_lib torch IMPORTED_LOCATION)
  if(NOT _nimble_torch_lib)
    get_target_property(_nimble_torch_lib torch IMPORTED_LOCATION_RELEASE)
  endif()
  if(_nimble_torch_lib)
    get_filename_component(_nimble_torch_lib_dir "${_nimble_torch_lib}" DIRECTORY)
    find_library(NIMBLE_TORCH_PYTHON_LIBRARY torch_python HINTS "${_nimble_torch_lib_dir}" NO_DEFAULT_PATH)
  endif()
  if(Python_FOUND AND Python_Development.Module_FOUND AND NIMBLE_TORCH_PYTHON_LIBRARY)
    set(NIMBLE_FOUND_PYTHON ON)
  endif()
endmacro()

macro(nimble_find_qt)
  set(NIMBLE_FOUND_QT OFF)
  find_package(Qt6 6.2 QUIET COMPONENTS Widgets Concurrent Test)
  if(Qt6_FOUND)
    set(NIMBLE_FOUND_QT ON)
  endif()
endmacro()

# nimble_add_library(<module> SOURCES ... DEPS ...): library nimble_<module>, alias nimble::<module>,
# public headers under <module>/include.
function(nimble_add_library module)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(nimble_${module} ${ARG_SOURCES})
  add_library(nimble::${module} ALIAS nimble_${module})
  target_include_directories(nimble_${module} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
  target_link_libraries(nimble_${module} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  set_target_properties(nimble_${module} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()

# nimble_add_test(<name> SOURCES ... LIBS ... LABELS ...): one GoogleTest binary; its tests are
# registered with ctest at test time (so building never runs GPU code) and carry the labels.
function(nimble_add_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE NIMBLE_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
                                            NIMBLE_BINARY_DIR="${PROJECT_BINARY_DIR}")
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT 60
                       PROPERTIES LABELS "${ARG_LABELS}")
endfunction()
