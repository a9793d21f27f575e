// The op catalogue against the reference registry, the vector families and the committed vectors.
//
// Every normative (op, convention) of spec/catalogue has a reference function, exactly one vector
// family and its committed vector file, whose header names the catalogue's clauses; every family
// produces every flag the catalogue requires of it and explains each flag it uses. (Some families
// share a notes table and explain flags they never use; that is harmless and left as it is.) Nothing is skipped: a
// family the catalogue does not list cannot be registered (the registry aborts), and a catalogue pair without a family
// fails here by name.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "qspec/core/catalogue.h"
#include "qspec/refops.h"
#include "qspec/vecgen.h"

namespace {

namespace fs = std::filesystem;
using qspec::catalogue::ConventionSpec;
using qspec::catalogue::OpSpec;

const fs::path kVectors = fs::path(QSPEC_SOURCE_DIR) / "vectors";

struct Pair {
  const OpSpec* op;
  const ConventionSpec* conv;
};

std::vector<Pair> normative_pairs() {
  std::vector<Pair> v;
  for (const auto& op : qspec::catalogue::get().ops) {
    if (op.name.rfind("test.", 0) == 0) continue;  // a test binary's private op (harness_test_ops.h)
    for (const auto& c : op.conventions)
      if (!c.diagnostic_only) v.push_back({&op, &c});
  }
  return v;
}

const qspec::vecgen::Family* family_of(const Pair& p) {
  const qspec::vecgen::Family* found = nullptr;
  for (const auto& f : qspec::vecgen::families())
    if (f.op == p.op->name && f.convention == p.conv->name) {
      EXPECT_EQ(found, nullptr) << "two families for " << p.op->name << " / " << p.conv->name;
      found = &f;
    }
  return found;
}

nlohmann::ordered_json read_json(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::ordered_json::parse(ss.str());
}

TEST(catalogue_families, EveryPairHasReferenceFamilyAndVectorFile) {
  const auto pairs = normative_pairs();
  ASSERT_GE(pairs.size(), 100u) << "the catalogue lost its conventions";
  for (const auto& p : pairs) {
    SCOPED_TRACE(p.op->name + " / " + p.conv->name);
    const auto* impl = qspec::refops::find_op(p.op->name, p.conv->name);
    EXPECT_NE(impl, nullptr) << "no reference function registered";
    const auto* fam = family_of(p);
    ASSERT_NE(fam, nullptr) << "no vector family registered (vectors/gen/src)";
    EXPECT_EQ(fam->file, p.conv->vectors);
    const fs::path file = kVectors / p.conv->vectors;
    ASSERT_TRUE(fs::is_regular_file(file)) << file << " is not committed (run qspec vectors regen)";
    const auto doc = read_json(file);
    EXPECT_EQ(doc["op"], p.op->name);
    EXPECT_EQ(doc["convention"], p.conv->name);
    EXPECT_EQ(doc["clauses"].get<std::vector<std::string>>(), p.conv->clauses)
        << "clauses not stamped from the catalogue";
  }
}

TEST(catalogue_families, EveryVectorFileIsACataloguePair) {
  std::set<std::string> listed;
  for (const auto& p : normative_pairs()) listed.insert(p.conv->vectors);
  std::size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(kVectors)) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    const std::string rel = fs::relative(e.path(), kVectors).generic_string();
    if (rel.rfind("schema/", 0) == 0) continue;
    ++files;
    EXPECT_TRUE(listed.count(rel)) << rel << " is not the vector file of any catalogue pair";
  }
  EXPECT_EQ(files, listed.size());
}

TEST(catalogue_families, RequiredFlagsPresentAndExplained) {
  for (const auto& p : normative_pairs()) {
    SCOPED_TRACE(p.op->name + " / " + p.conv->name);
    const auto* fam = family_of(p);
    ASSERT_NE(fam, nullptr);
    std::set<std::string> explained, used;
    for (const auto& [flag, text] : fam->notes) explained.insert(flag);
    qspec::vecgen::Rng rng(fam->seed);
    for (const auto& g : fam->generate(rng))
      for (const auto& t : g.tests) used.insert(t.flags.begin(), t.flags.end());
    for (const auto& f : p.conv->required_flags) EXPECT_TRUE(used.count(f)) << "required flag '" << f << "' missing";
    for (const auto& f : used) EXPECT_TRUE(explained.count(f)) << "flag '" << f << "' not explained in the notes";
  }
}

}  // namespace
