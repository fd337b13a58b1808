// The rule by which the runtime makes a dlopen call on its caller's behalf (dlopen_route.h): each
// way in which glibc would load something else from the runtime than from the caller keeps the
// call with the caller.
#include "interpose/dlopen_route.h"

#include <gtest/gtest.h>

namespace hpcrun {
namespace {

DlopenFacts plain() {
  DlopenFacts f;
  f.caller_found = true;
  return f;
}

TEST(DlopenRoute, PathsAreCalledForTheCallerWhateverItsSearchPath) {
  DlopenFacts f = plain();
  f.caller_runpath = f.caller_nodeflib = f.rpath_elsewhere = f.self_search = true;
  f.caller_found = false;
  EXPECT_TRUE(dlopen_may_call_for_caller("/usr/lib/openmpi/mca_btl_vader.so", f));
  EXPECT_TRUE(dlopen_may_call_for_caller("./plugin.so", f));
}

TEST(DlopenRoute, TokensAndTheProgramItselfStayWithTheCaller) {
  const DlopenFacts f = plain();
  EXPECT_FALSE(dlopen_may_call_for_caller("$ORIGIN/plugin.so", f));  // expanded from the caller
  EXPECT_FALSE(dlopen_may_call_for_caller("${LIB}/x.so", f));
  EXPECT_FALSE(dlopen_may_call_for_caller("libx$PLATFORM.so", f));
  EXPECT_FALSE(dlopen_may_call_for_caller(nullptr, f));  // the executable: nothing loaded
  EXPECT_FALSE(dlopen_may_call_for_caller("", f));
}

TEST(DlopenRoute, AnAuditorSeesTheCallerSoItsCallsStay) {
  DlopenFacts f = plain();
  f.audit = true;
  EXPECT_FALSE(dlopen_may_call_for_caller("/usr/lib/x.so", f));
  EXPECT_FALSE(dlopen_may_call_for_caller("libx.so", f));
}

TEST(DlopenRoute, BareNamesNeedASearchThatDoesNotDependOnTheCaller) {
  EXPECT_TRUE(dlopen_may_call_for_caller("libpsm2.so.2", plain()));
  DlopenFacts f = plain();
  f.caller_runpath = true;  // its DT_RUNPATH is searched after LD_LIBRARY_PATH
  EXPECT_FALSE(dlopen_may_call_for_caller("libpsm2.so.2", f));
  f = plain();
  f.caller_nodeflib = true;  // no ld.so.cache, no default directories
  EXPECT_FALSE(dlopen_may_call_for_caller("libpsm2.so.2", f));
  f = plain();
  f.rpath_elsewhere = true;  // maybe on the caller's chain of loaders
  EXPECT_FALSE(dlopen_may_call_for_caller("libpsm2.so.2", f));
  f = plain();
  f.self_search = true;  // the runtime's own search path would be used
  EXPECT_FALSE(dlopen_may_call_for_caller("libpsm2.so.2", f));
  f = plain();
  f.caller_found = false;  // code outside every object: its facts are unknown
  EXPECT_FALSE(dlopen_may_call_for_caller("libpsm2.so.2", f));
}

TEST(DlopenRoute, NameChecksAloneSayWhenFactsMatter) {
  EXPECT_TRUE(dlopen_name_allows_call("libm.so.6"));
  EXPECT_TRUE(dlopen_search_needs_facts("libm.so.6"));
  EXPECT_FALSE(dlopen_search_needs_facts("/lib/libm.so.6"));
  EXPECT_FALSE(dlopen_name_allows_call("$ORIGIN/libm.so.6"));
}

}  // namespace
}  // namespace hpcrun
