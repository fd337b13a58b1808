// Finds the Python interpreter of the process, if any: the module (the python3.x executable, or
// libpython3.x.so in an embedding program) that defines _PyRuntime, with its Py_Version and
// PyCode_Type. Looked for in every module as it is registered (at start-up and after each
// dlopen), so an interpreter loaded late (a C program that embeds Python) is found too. An
// interpreter whose version has no layout (py_layout.h) is reported once on stderr (-v) and
// its arrays keep their native names.
#pragma once

#include <cstdint>

#include "python/py_stack.h"

namespace hpcrun {

// Looks at module `index`, the one just registered, for the interpreter. Called from the module
// registry's new-module hook (modules_set_on_new), inside the loader's iteration: a module that
// another thread closes stays mapped while its memory (its dynamic symbols, Py_Version) is read.
// Callers hold the module scan's lock.
void python_probe_module(uint32_t index);

// The interpreter once found with a known layout, else null. Signal-safe.
const PyTarget* python_target();

// Whether `pc` is code of the interpreter's module. Signal-safe.
bool python_interpreter_code(uint64_t pc);

// "3.11" or "" (the META key python_version).
const char* python_version_text();

}  // namespace hpcrun
