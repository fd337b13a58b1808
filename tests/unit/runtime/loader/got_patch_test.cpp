// got_patch_object: the calls of one loaded object to a function defined elsewhere go to the
// address the lookup gives, whether the object was bound at load (-z now: its GOT read-only
// after relocation, RELRO) or lazily (the slot still holds the PLT's resolver stub), and a
// function pointer kept in its data follows; other objects and other names are left alone.
#include "loader/got_patch.h"

#include <dlfcn.h>
#include <link.h>

#include <cstring>
#include <string>

#include <gtest/gtest.h>

namespace {

int replacement() { return 42; }

void* lookup(const char* name) {
  return strcmp(name, "hpcl_got_victim") == 0 ? reinterpret_cast<void*>(&replacement) : nullptr;
}

struct Found {
  const char* want;
  int patched = -1;
};

int patch_one(dl_phdr_info* info, size_t, void* arg) {
  auto* f = static_cast<Found*>(arg);
  if (info->dlpi_name && strstr(info->dlpi_name, f->want)) f->patched = hpcrun::got_patch_object(info, lookup);
  return 0;
}

void check(const char* library, bool call_first) {
  void* h = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(h, nullptr) << dlerror();
  auto call = reinterpret_cast<int (*)()>(dlsym(h, "hpcl_got_call"));
  auto call_ptr = reinterpret_cast<int (*)()>(dlsym(h, "hpcl_got_call_ptr"));
  ASSERT_TRUE(call && call_ptr);
  if (call_first) {
    EXPECT_EQ(call(), 1);  // a lazy slot resolved before the patch
  }
  Found f{strrchr(library, '/') + 1};
  dl_iterate_phdr(patch_one, &f);
  EXPECT_GE(f.patched, 2) << library << ": the call and the pointer";
  EXPECT_EQ(call(), 42);
  EXPECT_EQ(call_ptr(), 42);
  // The definition itself is untouched: a caller elsewhere still reaches it.
  auto victim = reinterpret_cast<int (*)()>(dlsym(h, "hpcl_got_victim"));
  ASSERT_NE(victim, nullptr);
  EXPECT_EQ(victim(), 1);
  dlclose(h);
}

TEST(GotPatch, BoundAtLoadInRelro) { check(HPCL_GOT_CALLER_NOW, false); }
TEST(GotPatch, LazyBeforeTheFirstCall) { check(HPCL_GOT_CALLER_LAZY, false); }
TEST(GotPatch, LazyAfterTheFirstCall) { check(HPCL_GOT_CALLER_LAZY, true); }

TEST(GotPatch, OtherNamesAreLeftAlone) {
  void* h = dlopen(HPCL_GOT_CALLER_NOW, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(h, nullptr) << dlerror();
  auto call = reinterpret_cast<int (*)()>(dlsym(h, "hpcl_got_call"));
  Found f{"libhpcl_got_caller_now"};
  struct Nothing {
    static void* lookup(const char*) { return nullptr; }
  };
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* arg) {
        auto* g = static_cast<Found*>(arg);
        if (info->dlpi_name && strstr(info->dlpi_name, g->want))
          g->patched = hpcrun::got_patch_object(info, Nothing::lookup);
        return 0;
      },
      &f);
  EXPECT_EQ(f.patched, 0);
  EXPECT_EQ(call(), 1);
  dlclose(h);
}

}  // namespace
