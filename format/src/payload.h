// Internal interface between the container (io.cpp: header, compression, files) and the payload:
// the sequence of sections that holds a Profile. Messages returned here do not carry the input's
// name; io.cpp prefixes it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "hpcl/profile.h"
#include "hpcl/scan.h"
#include "wire.h"

namespace hpcl::payload {

// Writes the payload section by section in spec order, from a whole Profile (all) or from pieces
// handed over one at a time (the runtime at exit: one site, one thread's tree), noting on the way
// the lowest minor version that describes what it wrote. Bytes go to a buffer; with a `drain`,
// whenever the buffer holds kDrainBytes at the end of a record it is handed to the drain (which
// compresses and writes it) and emptied, so the memory a writer needs is one tree or one record,
// not the profile a second time. Without one the buffer ends up holding the whole payload.
// META is drained on its own with `block_end`: the compressor ends a block there, so a reader
// that wants only META (read_profile_meta: merge's choice of run, over thousands of files)
// inflates one small block instead of the first 128 KiB of the payload.
// (The file writer, file_writer.cpp, is the one user: whole Profiles go through it too.)
// Misuse (sections out of order, fewer sites than announced) is an error of finish(), never a
// file that reads wrong.
class Encoder {
 public:
  // Takes `size` bytes, ending a compressed block after them when `block_end`; false when they
  // could not be written (finish() then fails).
  using Drain = bool (*)(void* ctx, const uint8_t* data, size_t size, bool block_end);
  // zstd's block: each drain hands the compressor about one block, and the buffer's pages are
  // the same few each time (at 1 MiB, a LAMMPS start-up's profile wrote 75 fresh pages of it).
  static constexpr size_t kDrainBytes = size_t{128} << 10;

  explicit Encoder(FileKind kind, Drain drain = nullptr, void* ctx = nullptr);
  Encoder(const Encoder&) = delete;
  Encoder& operator=(const Encoder&) = delete;

  void meta(const std::vector<std::pair<std::string, std::string>>& meta);
  void modules(std::span<const Module> modules);
  // SITES: how many sites and how many frames they have in all, then each site in order.
  void begin_sites(uint32_t count, uint64_t frames);
  void site(const AllocSite& site);
  void statics(std::span<const StaticVar> statics);
  void tree(const Tree& tree);  // one per call, in thread order
  void symbols(std::span<const Symbolized> symbols);  // SYMBOLS (a database's) and CALLEES
  void offsets(std::span<const OffsetHistogram> offsets);
  void balance(const Balance& balance);  // BALANCE and FIRST_TOUCH, each when present
  // SCRIPT_FRAMES: kept (a copy) until finish() writes them, so that a writer may hand them over
  // whenever it knows them all, before or after the sites and trees that point into them. At
  // most once; an empty list writes nothing.
  void script_frames(std::span<const ScriptFrame> frames);
  // RANK_VALUES (a database's): not copied, since a merge of many ranks may keep millions; they
  // must stay alive until finish() writes them last. At most once; empty writes nothing.
  void rank_values(std::span<const RankValue> values);
  // STACK_NAMES (database only); the spans must outlive finish().
  void stack_names(std::span<const StackVar> vars, std::span<const StackSlotName> slots);
  // STACK_THREADS (database only); like the rank values, not copied: alive until finish().
  void stack_threads(std::span<const StackThreadValue> values);
  // Every section of a Profile, from META to BALANCE, its script frames and its rank values.
  void all(const Profile& profile);
  // SITE_NAMES (from the sites' names), SCRIPT_FRAMES and RANK_VALUES end the payload. "" or
  // what went wrong.
  std::string finish();

  uint16_t minor() const { return minor_; }
  uint64_t size() const { return drained_ + buf_.size(); }  // payload bytes so far
  std::vector<uint8_t>& buffer() { return buf_; }            // the bytes not drained yet

 private:
  enum class Stage { Start, Meta, Modules, Sites, Statics, Trees, Symbols, Offsets, Balance, End };
  static uint32_t tag_of(Stage stage);
  bool enter(Stage stage);
  void need(uint16_t minor);
  void drain_if_full(bool block_end = false);

  FileKind kind_;
  Drain drain_;
  void* ctx_;
  std::vector<uint8_t> buf_;
  wire::Writer w_;
  uint64_t drained_ = 0;
  Stage stage_ = Stage::Start;
  uint16_t minor_ = 0;
  uint64_t sites_length_ = 0, sites_start_ = 0;
  uint32_t sites_left_ = 0, next_site_ = 0;
  std::vector<std::pair<uint32_t, std::string>> site_names_;
  std::vector<ScriptFrame> script_frames_;
  bool script_frames_given_ = false;
  std::span<const RankValue> rank_values_;
  bool rank_values_given_ = false;
  std::span<const StackVar> stack_vars_;
  std::span<const StackSlotName> stack_slots_;
  bool stack_names_given_ = false;
  std::span<const StackThreadValue> stack_threads_;
  bool stack_threads_given_ = false;
  std::string error_;
};

// Parses a payload into `out` (whose kind is already set from the header) and validates it.
// Returns "" on success, otherwise what is wrong.
std::string decode(const uint8_t* data, size_t size, Profile& out);

// What the reader of a TREE as columns saw of its nodes, so that validate() need not walk them
// again: whether every node rule but the index ranges held, and one past the largest module,
// site and static index the nodes use; and one past the largest offset of a Frame in
// `script_module`, the script pseudo-module of the MODULES read before the tree (validate()
// walks the tree when the file's turns out to be another).
struct FlatTreeCheck {
  bool nodes_ok = false;
  uint64_t modules = 0, sites = 0, statics = 0;
  uint32_t script_module = kNoModule;
  uint64_t script_frames = 0;
};

// decode() with every TREE left as columns in out.trees() (out.profile.trees stays empty), and
// checked as validate() checks it, except for children with the same key (hpcl/scan.h).
std::string decode_scanned(const uint8_t* data, size_t size, ScannedProfile& out);

// Checks what the section parser cannot see locally: tree invariants and every index into
// MODULES, SITES, STATICS and SCRIPT_FRAMES. Returns "" when the profile is valid. With `flat`,
// those are the trees (profile.trees is ignored) and children with the same key are left to the
// caller.
std::string validate(const Profile& profile);
std::string validate(const Profile& profile, std::span<const FlatTree> flat,
                     std::span<const FlatTreeCheck> checks);

const char* section_name(uint32_t tag);

// Parses a payload whose first (and only needed) section is META into out.meta; what follows
// META is not looked at. Returns "" or what is wrong.
std::string decode_meta(const uint8_t* data, size_t size, Profile& out);

// What of a payload cut after `size` bytes is whole: "META (rank 1, pid 4242), MODULES, SITES
// and 2 TREEs are whole before the cut, which falls in TREE; ..." and whether that is of use.
std::string describe_prefix(const uint8_t* data, size_t size, FileKind kind);

}  // namespace hpcl::payload
