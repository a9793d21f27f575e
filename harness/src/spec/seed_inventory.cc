// Reads and checks spec/seed_inventory.md: every formula of the seed documents, with the clauses or
// the erratum that account for it.
#include <filesystem>
#include <fstream>
#include <regex>

#include "qspec/spec/catalog.h"
#include "text_trim.h"

namespace fs = std::filesystem;

namespace qspec::spec {
namespace {

constexpr const char* kInventoryFile = "spec/seed_inventory.md";
const std::regex kRowId(R"(^(S[0-9]{3})-[0-9]+$)");
const std::regex kClauseId(R"(^[a-z0-9_]+(?:\.[a-z0-9_]+)+$)");
const std::regex kErratumId(R"(^E-[A-Z0-9]+(?:-[A-Z0-9]+)*-[0-9]+$)");
const std::regex kErratumHeading(R"(^##\s+(E-[A-Z0-9]+(?:-[A-Z0-9]+)*-[0-9]+)\s*:)");
const std::regex kBackquoted(R"(`([^`]*)`)");
const std::regex kTotalsEntry(R"((S[0-9]{3}|all):\s*Y\s+([0-9]+),\s*E\s+([0-9]+),\s*N\s+([0-9]+))");
const std::string kTotalsPrefix = "**Totals.**";

// The cells of a Markdown table row "| a | b \| c |": split on '|' not escaped by a backslash
// (a formula's absolute value is written `\|x\|`), the empty text before the first and after the
// last bar dropped.
std::vector<std::string> table_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cur;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cur += "\\|";
      ++i;
    } else if (line[i] == '|') {
      cells.push_back(trim(cur));
      cur.clear();
    } else {
      cur += line[i];
    }
  }
  cells.push_back(trim(cur));
  if (!cells.empty() && cells.front().empty()) cells.erase(cells.begin());
  if (!cells.empty() && cells.back().empty()) cells.pop_back();
  return cells;
}

std::string counts_text(const InventoryCounts& c) {
  return "Y " + std::to_string(c.y) + ", E " + std::to_string(c.e) + ", N " + std::to_string(c.n);
}

}  // namespace

SeedInventory read_seed_inventory(const std::string& root_str) {
  const fs::path root(root_str);
  SeedInventory inv;
  {
    std::ifstream errata(root / "spec" / "errata.md");
    for (std::string l; std::getline(errata, l);) {
      std::smatch m;
      if (std::regex_search(l, m, kErratumHeading)) inv.errata.insert(m[1]);
    }
  }
  std::ifstream in(root / kInventoryFile);
  if (!in) return inv;
  inv.present = true;
  int n = 0;
  for (std::string l; std::getline(in, l);) {
    ++n;
    const std::string where = std::string(kInventoryFile) + ":" + std::to_string(n);
    if (l.rfind(kTotalsPrefix, 0) == 0) {
      if (inv.totals_line != 0) {
        inv.errors.push_back(where + ": a second totals line (the first is at line " + std::to_string(inv.totals_line) +
                             ")");
        continue;
      }
      inv.totals_line = n;
      for (std::sregex_iterator it(l.begin(), l.end(), kTotalsEntry), end; it != end; ++it) {
        const std::string key = (*it)[1];
        if (inv.totals.count(key)) inv.errors.push_back(where + ": the totals line names " + key + " twice");
        inv.totals[key] = {std::stol((*it)[2]), std::stol((*it)[3]), std::stol((*it)[4])};
      }
      if (!inv.totals.count("all"))
        inv.errors.push_back(where + ": the totals line has no 'all: Y <n>, E <n>, N <n>' entry");
      continue;
    }
    if (trim(l).rfind('|', 0) != 0) continue;
    const auto cells = table_cells(trim(l));
    std::smatch id;
    if (cells.empty() || !std::regex_match(cells[0], id, kRowId)) continue;  // a header, separator or other table
    if (cells.size() != 5) {
      inv.errors.push_back(where + ": row " + cells[0] + " has " + std::to_string(cells.size()) +
                           " cells; expected 5 (ID | section | formula or rule | status | clauses / erratum)");
      continue;
    }
    InventoryRow row{kInventoryFile, n, cells[0], id[1], cells[3], {}, {}};
    if (row.status != "Y" && row.status != "E" && row.status != "N")
      inv.errors.push_back(where + ": row " + row.id + " has status '" + row.status + "' (one of Y, E, N)");
    for (std::sregex_iterator it(cells[4].begin(), cells[4].end(), kBackquoted), end; it != end; ++it) {
      const std::string token = (*it)[1];
      if (std::regex_match(token, kClauseId))
        row.clause_ids.push_back(token);
      else if (std::regex_match(token, kErratumId))
        row.errata_ids.push_back(token);
      else
        inv.errors.push_back(where + ": row " + row.id + ": `" + token +
                             "` in the last column is neither a clause ID nor an erratum ID");
    }
    inv.rows.push_back(std::move(row));
  }
  return inv;
}

std::vector<std::string> check_seed_inventory(const SeedInventory& inv, const std::set<std::string>& clause_ids) {
  std::vector<std::string> errors = inv.errors;
  if (!inv.present) {
    errors.push_back(std::string(kInventoryFile) +
                     ": missing (the inventory of every seed formula and the clauses that formalize it)");
    return errors;
  }
  if (inv.rows.empty()) errors.push_back(std::string(kInventoryFile) + ": no inventory rows (| S000-01 | ... |)");
  std::map<std::string, int> first_line;
  std::map<std::string, InventoryCounts> counted;
  for (const auto& r : inv.rows) {
    const std::string where = r.file + ":" + std::to_string(r.line) + ": row " + r.id;
    if (auto [it, fresh] = first_line.emplace(r.id, r.line); !fresh)
      errors.push_back(where + " repeats a row ID (first at line " + std::to_string(it->second) + ")");
    for (const auto& c : r.clause_ids)
      if (!clause_ids.count(c))
        errors.push_back(where + ": dangling clause ID `" + c + "` (no `### ` clause in spec/)");
    for (const auto& e : r.errata_ids)
      if (!inv.errata.count(e))
        errors.push_back(where + ": dangling erratum ID `" + e + "` (no '## " + e + ":' heading in spec/errata.md)");
    if (r.status == "Y" && r.clause_ids.empty()) errors.push_back(where + " has status Y but names no clause");
    if (r.status == "E" && r.errata_ids.empty()) errors.push_back(where + " has status E but names no erratum");
    for (auto* c : {&counted[r.seed], &counted["all"]}) {
      c->y += r.status == "Y";
      c->e += r.status == "E";
      c->n += r.status == "N";
    }
  }
  if (inv.totals_line == 0) {
    errors.push_back(std::string(kInventoryFile) +
                     ": no totals line ('**Totals.** S000: Y <n>, E <n>, N <n>; ...; all: Y <n>, E <n>, N <n>')");
    return errors;
  }
  const std::string where = std::string(kInventoryFile) + ":" + std::to_string(inv.totals_line);
  for (const auto& [key, rows] : counted) {
    auto it = inv.totals.find(key);
    if (it == inv.totals.end())
      errors.push_back(where + ": the totals line has no entry for " + key + " (the rows give " + counts_text(rows) +
                       ")");
    else if (!(it->second == rows))
      errors.push_back(where + ": the totals line says " + key + ": " + counts_text(it->second) +
                       " but the rows give " + counts_text(rows));
  }
  for (const auto& [key, stated] : inv.totals)
    if (!counted.count(key))
      errors.push_back(where + ": the totals line names " + key + " (" + counts_text(stated) + "), which has no rows");
  return errors;
}

}  // namespace qspec::spec
