// Loading and checking a database (see database.h).
#include "database.h"

#include "hpcl/io.h"
#include "merge/validate.h"

namespace hpcl::analysis {
namespace {

bool accept_database(ReadResult r, const std::string& path, Profile* db, std::string* error) {
  if (!r.ok) {
    *error = r.error.starts_with(path) ? r.error : path + ": " + r.error;
    return false;
  }
  if (r.profile.kind != FileKind::Database) {
    *error = path + ": a process profile, not a database; run 'hpcprof-lite merge' on its directory first";
    return false;
  }
  if (r.profile.trees.size() != 1) {
    *error = path + ": damaged database: " + std::to_string(r.profile.trees.size()) +
             " trees instead of one";
    return false;
  }
  if (std::string why = validate_profile(r.profile); !why.empty()) {
    *error = path + ": damaged database: " + why;
    return false;
  }
  *db = std::move(r.profile);
  return true;
}

}  // namespace

bool load_database(const std::string& path, Profile* db, std::string* error) {
  return accept_database(read_profile_file(path), path, db, error);
}

bool load_database_bytes(const uint8_t* data, size_t size, const std::string& name, Profile* db,
                         std::string* error) {
  return accept_database(read_profile_bytes(data, size, name), name, db, error);
}

}  // namespace hpcl::analysis
