// Up-front checks of report paths (output_paths.h).
#include "qspec/harness/output_paths.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace qspec::harness {
namespace fs = std::filesystem;

namespace {
// The path as the file system will resolve it: the directory canonical (symbolic links
// resolved), the name as given.
fs::path resolved(const fs::path& p) {
  std::error_code ec;
  const fs::path abs = fs::absolute(p, ec).lexically_normal();
  const fs::path dir = fs::weakly_canonical(abs.parent_path(), ec);
  return ec ? abs : dir / abs.filename();
}
}  // namespace

std::optional<std::string> check_output_files(const std::vector<OutputFile>& files) {
  for (std::size_t i = 0; i < files.size(); ++i) {
    const OutputFile& f = files[i];
    if (f.path.empty()) continue;
    for (std::size_t k = 0; k < i; ++k)
      if (!files[k].path.empty() && resolved(files[k].path) == resolved(f.path))
        return files[k].option + " and " + f.option + " name the same file " + f.path.string() +
               " (one report would overwrite the other)";
    const fs::path abs = fs::absolute(f.path).lexically_normal();
    const fs::path dir = abs.parent_path();
    std::error_code ec;
    if (abs.filename().empty() || fs::is_directory(abs, ec))
      return f.option + " " + f.path.string() + " is a directory, not a file name";
    if (!fs::is_directory(dir, ec))
      return f.option + " " + f.path.string() + ": the directory " + dir.string() +
             " does not exist (qspec does not create it; mkdir -p it first)";
    // The atomic write's own temporary name (write_file_atomically), created and removed.
    fs::path probe = abs;
    probe += ".tmp." + std::to_string(::getpid());
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
      const int err = errno;
      if (err != EEXIST)
        return f.option + " " + f.path.string() + ": cannot create a file in " + dir.string() + ": " +
               std::strerror(err);
    } else {
      ::close(fd);
      ::unlink(probe.c_str());
    }
  }
  return std::nullopt;
}

}  // namespace qspec::harness
