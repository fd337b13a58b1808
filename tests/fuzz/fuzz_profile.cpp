// libFuzzer target: the process-profile reader and what `merge` does with a profile it accepted.
// Any input must give an error or a profile that validates, merges and re-encodes to bytes that
// read back; a crash, a sanitizer report or an allocation beyond -rss_limit_mb is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "merge/accumulator.h"
#include "hpcl/io.h"
#include "merge/validate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hpcl::ReadResult r = hpcl::read_profile_bytes(data, size, "fuzz.hpcl");
  if (!r.ok) {
    if (r.error.rfind("fuzz.hpcl: ", 0) != 0) std::abort();  // every error names its input
    return 0;
  }
  // What the reader accepted must survive its own writer.
  std::vector<uint8_t> again = hpcl::encode_profile(r.profile, 0);
  hpcl::ReadResult same = hpcl::read_profile_bytes(again.data(), again.size(), "again");
  if (!same.ok) {
    std::fprintf(stderr, "an accepted profile does not re-encode: %s\n", same.error.c_str());
    std::abort();
  }
  if (r.profile.kind != hpcl::FileKind::Process) return 0;
  if (!hpcl::analysis::validate_profile(r.profile).empty()) return 0;  // merge skips it
  hpcl::analysis::Accumulator acc;
  acc.add_process(r.profile);
  acc.add_process(r.profile);
  hpcl::Profile db = acc.finish();
  std::vector<uint8_t> bytes = hpcl::encode_profile(db, 0);
  hpcl::ReadResult back = hpcl::read_profile_bytes(bytes.data(), bytes.size(), "merged");
  if (!back.ok) {
    std::fprintf(stderr, "the merge of an accepted profile does not read back: %s\n", back.error.c_str());
    std::abort();
  }
  return 0;
}
