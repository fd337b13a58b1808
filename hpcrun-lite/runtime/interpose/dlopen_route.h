// Whether the runtime may call dlopen on its caller's behalf, and so regain control when it
// returns (to pause the thread's sampling timer for its duration, dlopen_hooks.cpp), or must
// leave the call to the real dlopen with the caller's return address in place.
//
// glibc uses the caller's identity (the object holding the return address) for three things,
// and for nothing else (glibc 2.36 dl-open.c, dl-load.c _dl_map_object):
//  - the namespace of the new object: the caller's. Code in another namespace (dlmopen) cannot
//    reach this runtime's dlopen, which is only in the base namespace, as is the runtime.
//  - dynamic string tokens ($ORIGIN) in the name, expanded from the caller's directory;
//  - the search of a name without a slash: the DT_RPATH of the caller and of the objects that
//    loaded it (when the caller has no DT_RUNPATH), the executable's DT_RPATH,
//    LD_LIBRARY_PATH, the caller's DT_RUNPATH, ld.so.cache and the default directories (both
//    skipped when the caller has DF_1_NODEFLIB); and the auditors' la_objsearch, given the
//    caller's cookie.
// The new object does not remember the caller (dlopen's __RTLD_CALLMAP drops it: its own
// dependencies are searched the same either way). So a call from the runtime finds the same
// file when the name has a slash and no '$', or when neither the caller nor the runtime has a
// DT_RUNPATH or DF_1_NODEFLIB and no loaded object but the executable has a DT_RPATH; never
// with an auditor (LD_AUDIT).
#pragma once

namespace hpcrun {

struct DlopenFacts {
  bool audit = false;             // LD_AUDIT names an auditor
  bool caller_found = false;      // the return address lies in a loaded object
  bool caller_runpath = false;    // that object has DT_RUNPATH
  bool caller_nodeflib = false;   // ... or DF_1_NODEFLIB
  bool self_search = false;       // the runtime itself has DT_RPATH, DT_RUNPATH or DF_1_NODEFLIB
  bool rpath_elsewhere = false;   // a loaded object other than the executable has DT_RPATH
};

// Whether the name alone (null, or with a '$') already settles it: false when it must go to the
// real dlopen; true when `dlopen_search_needs_facts` says whether the facts matter.
bool dlopen_name_allows_call(const char* file);
// A name without a slash is searched for, from the caller's point of view.
bool dlopen_search_needs_facts(const char* file);
// The whole rule: whether a call from the runtime loads what the caller's call would.
bool dlopen_may_call_for_caller(const char* file, const DlopenFacts& facts);

}  // namespace hpcrun
