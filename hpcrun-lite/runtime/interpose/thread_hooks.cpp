// The program's pthread_create: a measured thread starts through the runtime's trampoline
// (process/runtime.h).
#include <pthread.h>

#include "interpose/export.h"
#include "process/runtime.h"

using namespace hpcrun;

extern "C" {

HPCL_EXPORT int pthread_create(pthread_t* thread, const pthread_attr_t* attr,
                               void* (*fn)(void*), void* arg) {
  return create_thread(thread, attr, fn, arg);
}

}  // extern "C"
