// `qspec spec generate [--check]`: writes (or compares) every file derived from the op catalogue.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "qspec/core/catalogue.h"
#include "qspec/spec/catalogue_codegen.h"

namespace qspec::cli {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return {};
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Writes next to the target and renames, so an interrupted run never leaves half a file.
void write_atomically(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  const fs::path tmp = p.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + tmp.string());
  }
  fs::rename(tmp, p);
}

int run_generate(const Context& ctx, bool check) {
  std::map<std::string, std::string> files;
  try {
    files = spec::generate_from_catalogue(spec::read_catalogue_files(ctx.root));
  } catch (const catalogue::CatalogueError& e) {
    std::cerr << "qspec spec generate: " << e.what() << "\n";
    return kUsage;
  }
  const auto stale = spec::stale_generated_files(ctx.root, files);
  int differing = 0;
  for (const auto& [rel, text] : files) {
    const fs::path p = fs::path(ctx.root) / rel;
    if (read_text(p) == text) continue;
    ++differing;
    if (check)
      std::cerr << "out of date: " << rel << "\n";
    else
      write_atomically(p, text);
  }
  for (const auto& rel : stale) {
    if (check)
      std::cerr << "stale (no catalogue entry): " << rel << "\n";
    else
      fs::remove(fs::path(ctx.root) / rel);
  }
  if (check) {
    const bool ok = differing == 0 && stale.empty();
    std::cout << "qspec spec generate --check: " << files.size() << " generated files, " << differing
              << " out of date, " << stale.size() << " stale"
              << (ok ? "" : " (run `qspec spec generate` and commit the result)") << "\n";
    return ok ? kOk : kFail;
  }
  std::cout << "qspec spec generate: " << files.size() << " files, " << differing << " rewritten, " << stale.size()
            << " removed\n";
  return kOk;
}

}  // namespace

void add_spec_generate_command(CLI::App& spec, Context& ctx) {
  auto* gen =
      spec.add_subcommand("generate", "Write the files derived from spec/catalogue (keys.h, schemas, spec/ops.md)");
  static bool check = false;
  gen->add_flag("--check", check, "Compare instead of writing; exit 1 if any generated file is out of date");
  gen->callback([&ctx] { ctx.exit_code = run_generate(ctx, check); });
}

}  // namespace qspec::cli
