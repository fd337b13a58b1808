// See dlopen_route.h.
#include "interpose/dlopen_route.h"

#include <cstring>

namespace hpcrun {

bool dlopen_name_allows_call(const char* file) {
  // dlopen(NULL) returns the executable: nothing is loaded, nothing worth pausing for.
  return file != nullptr && file[0] != '\0' && std::strchr(file, '$') == nullptr;
}

bool dlopen_search_needs_facts(const char* file) { return std::strchr(file, '/') == nullptr; }

bool dlopen_may_call_for_caller(const char* file, const DlopenFacts& facts) {
  if (facts.audit || !dlopen_name_allows_call(file)) return false;
  if (!dlopen_search_needs_facts(file)) return true;
  return facts.caller_found && !facts.caller_runpath && !facts.caller_nodeflib &&
         !facts.self_search && !facts.rpath_elsewhere;
}

}  // namespace hpcrun
