// abench-timed-loop-identity OBJECT OUTPUT.cc
//
// Names a worker's timed loops by their compiled code, for the worker's hello and every result
// it measures (docs/results.md, `timed_loop`): FNV-1a over the object file's executable sections
// (name, size, bytes) and the relocations that patch them (offset, type, addend, and the name of
// the symbol or section they point to), in the file's order. An object's code and relocations do
// not depend on where it is later linked, on the source's path or on debug information, so the
// name changes when the code of cell_runner.cc as compiled (the loops, their setup, the calls
// they make) changes, and only then.
//
// Writes OUTPUT.cc defining abench::timed_loop_identity() (harness/timed_loop.h), rewritten
// only when the name changed. Reads ELF64 little-endian objects (x86-64, aarch64) with the C
// library's own <elf.h> definitions; anything else fails the build with the reason.
#include <elf.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "src/util/fnv1a.h"

namespace {

class ObjectFile {
 public:
  explicit ObjectFile(std::string bytes) : bytes_(std::move(bytes)) {
    const auto& h = at<Elf64_Ehdr>(0);
    if (std::memcmp(h.e_ident, ELFMAG, SELFMAG) != 0 || h.e_ident[EI_CLASS] != ELFCLASS64 ||
        h.e_ident[EI_DATA] != ELFDATA2LSB || h.e_type != ET_REL)
      throw std::runtime_error("not a 64-bit little-endian ELF object file");
    if (h.e_shentsize != sizeof(Elf64_Shdr) || h.e_shstrndx >= h.e_shnum)
      throw std::runtime_error("its section headers are malformed");
    header_ = h;
  }

  std::size_t sections() const { return header_.e_shnum; }
  Elf64_Shdr section(std::size_t i) const {
    if (i >= header_.e_shnum) throw std::runtime_error("a section index is out of range");
    return at<Elf64_Shdr>(header_.e_shoff + i * sizeof(Elf64_Shdr));
  }
  std::string_view contents(const Elf64_Shdr& s) const {
    if (s.sh_type == SHT_NOBITS) return {};
    if (s.sh_offset > bytes_.size() || s.sh_size > bytes_.size() - s.sh_offset)
      throw std::runtime_error("a section lies outside the file");
    return std::string_view(bytes_).substr(s.sh_offset, s.sh_size);
  }
  // A NUL-terminated name at `offset` in string table section `table`.
  std::string_view name_in(std::size_t table, std::size_t offset) const {
    const std::string_view strings = contents(section(table));
    if (offset >= strings.size()) throw std::runtime_error("a name lies outside its string table");
    const std::size_t end = strings.find('\0', offset);
    if (end == std::string_view::npos) throw std::runtime_error("a name is not terminated");
    return strings.substr(offset, end - offset);
  }
  std::string_view section_name(const Elf64_Shdr& s) const { return name_in(header_.e_shstrndx, s.sh_name); }

  // Copied out: a malformed file's offsets need not be aligned for T.
  template <typename T>
  T at(std::size_t offset) const {
    if (offset > bytes_.size() || sizeof(T) > bytes_.size() - offset)
      throw std::runtime_error("the file ends inside a header");
    T value;
    std::memcpy(&value, bytes_.data() + offset, sizeof(T));
    return value;
  }

 private:
  std::string bytes_;
  Elf64_Ehdr header_{};
};

// What a relocation points to, by name: a section symbol by its section's name.
std::string_view target_name(const ObjectFile& object, const Elf64_Shdr& relocations, std::size_t symbol_index) {
  const Elf64_Shdr& symbols = object.section(relocations.sh_link);
  const std::string_view table = object.contents(symbols);
  if (symbol_index >= table.size() / sizeof(Elf64_Sym)) throw std::runtime_error("a relocation's symbol is missing");
  const auto& symbol = object.at<Elf64_Sym>(symbols.sh_offset + symbol_index * sizeof(Elf64_Sym));
  if (ELF64_ST_TYPE(symbol.st_info) == STT_SECTION) return object.section_name(object.section(symbol.st_shndx));
  return object.name_in(symbols.sh_link, symbol.st_name);
}

template <typename T>
std::uint64_t mixed(std::uint64_t hash, const T& value) {
  return abench::fnv1a(std::string_view(reinterpret_cast<const char*>(&value), sizeof value), hash);
}

std::uint64_t code_identity(const ObjectFile& object) {
  std::uint64_t hash = abench::kFnv1aOffsetBasis;
  for (std::size_t i = 0; i < object.sections(); ++i) {
    const Elf64_Shdr& code = object.section(i);
    if ((code.sh_flags & SHF_EXECINSTR) == 0) continue;
    hash = abench::fnv1a(object.section_name(code), hash);
    hash = mixed(hash, code.sh_size);
    hash = abench::fnv1a(object.contents(code), hash);
    for (std::size_t r = 0; r < object.sections(); ++r) {
      const Elf64_Shdr& relocations = object.section(r);
      if (relocations.sh_type != SHT_RELA || relocations.sh_info != i) continue;
      const std::string_view entries = object.contents(relocations);
      for (std::size_t e = 0; e < entries.size() / sizeof(Elf64_Rela); ++e) {
        const auto& rela = object.at<Elf64_Rela>(relocations.sh_offset + e * sizeof(Elf64_Rela));
        hash = mixed(hash, rela.r_offset);
        hash = mixed(hash, static_cast<std::uint64_t>(ELF64_R_TYPE(rela.r_info)));
        hash = mixed(hash, rela.r_addend);
        hash = abench::fnv1a(target_name(object, relocations, ELF64_R_SYM(rela.r_info)), hash);
      }
    }
  }
  return hash;
}

std::string read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot be read");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: abench-timed-loop-identity OBJECT OUTPUT.cc\n");
    return 2;
  }
  std::uint64_t identity = 0;
  try {
    identity = code_identity(ObjectFile(read_file(argv[1])));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "abench-timed-loop-identity: %s: %s\n", argv[1], e.what());
    return 1;
  }
  char name[17];
  std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(identity));
  std::ostringstream source;
  source << "// Generated by abench-timed-loop-identity from " << std::filesystem::path(argv[1]).filename().string()
         << "\n#include \"harness/timed_loop.h\"\n\nconst char* abench::timed_loop_identity() { return \"" << name
         << "\"; }\n";
  const std::filesystem::path output = argv[2];
  std::error_code ignored;
  if (std::filesystem::exists(output, ignored)) {
    try {
      if (read_file(argv[2]) == source.str()) return 0;  // unchanged: nothing relinks
    } catch (const std::exception&) {
    }
  }
  std::filesystem::create_directories(output.parent_path(), ignored);
  const std::filesystem::path temporary = output.string() + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << source.str();
    if (!out.flush()) {
      std::fprintf(stderr, "abench-timed-loop-identity: %s: cannot be written\n", temporary.c_str());
      return 1;
    }
  }
  std::filesystem::rename(temporary, output);
  return 0;
}
