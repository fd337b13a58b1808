// libFuzzer target: the process-profile reader, the merge's reader (hpcl/scan.h) and what `merge`
// does with a profile they accept. Any input must give an error or a profile that validates,
// merges and re-encodes to bytes that read back; the two readers must give the same verdict
// (the merge's leaves children with the same key to the merge, which must then refuse the file);
// a crash, a sanitizer report or an allocation beyond -rss_limit_mb is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <string>

#include "hpcl/io.h"
#include "hpcl/scan.h"
#include "merge/accumulator.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hpcl::ReadResult r = hpcl::read_profile_bytes(data, size, "fuzz.hpcl");
  static hpcl::ProfileScanner scanner;  // kept, as a merge worker keeps it
  static hpcl::ScannedProfile scanned;
  std::string scan_error = scanner.read_bytes(data, size, "fuzz.hpcl", scanned);
  if (!r.ok) {
    if (r.error.rfind("fuzz.hpcl: ", 0) != 0) std::abort();  // every error names its input
    if (r.error.find("with the same kind and payload") == std::string::npos) {
      if (scan_error != r.error) {
        std::fprintf(stderr, "the readers disagree: %s / %s\n", r.error.c_str(), scan_error.c_str());
        std::abort();
      }
      return 0;
    }
    // Children with the same key: the merge must refuse what its reader let through.
    if (!scan_error.empty() || scanned.profile.kind != hpcl::FileKind::Process) return 0;
    hpcl::analysis::Accumulator acc;
    if (acc.add_process(scanned).empty()) {
      std::fprintf(stderr, "the merge took a profile with duplicate children: %s\n", r.error.c_str());
      std::abort();
    }
    return 0;
  }
  if (!scan_error.empty()) {
    std::fprintf(stderr, "the merge's reader refused an accepted profile: %s\n", scan_error.c_str());
    std::abort();
  }
  // What the reader accepted must survive its own writer.
  std::vector<uint8_t> again = hpcl::encode_profile(r.profile, 0);
  hpcl::ReadResult same = hpcl::read_profile_bytes(again.data(), again.size(), "again");
  if (!same.ok) {
    std::fprintf(stderr, "an accepted profile does not re-encode: %s\n", same.error.c_str());
    std::abort();
  }
  if (r.profile.kind != hpcl::FileKind::Process) return 0;
  hpcl::analysis::Accumulator acc;
  if (!acc.add_process(scanned).empty() || !acc.add_process(r.profile).empty()) {
    std::fprintf(stderr, "the merge refused an accepted profile\n");
    std::abort();
  }
  hpcl::Profile db = acc.finish();
  std::vector<uint8_t> bytes = hpcl::encode_profile(db, 0);
  hpcl::ReadResult back = hpcl::read_profile_bytes(bytes.data(), bytes.size(), "merged");
  if (!back.ok) {
    std::fprintf(stderr, "the merge of an accepted profile does not read back: %s\n", back.error.c_str());
    std::abort();
  }
  return 0;
}
