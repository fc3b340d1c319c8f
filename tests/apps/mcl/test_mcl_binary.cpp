// mcl's binary native matrix (mcxload --write-binary): read as mcxload writes it, written with
// mcxload's bytes (by the library and by opsparse-mcx load --write-binary), clustered by
// opsparse-mcl exactly as the same matrix in text, and damaged files refused with the byte and
// the reason. The comparisons run Debian's mcxload and mcl here and skip without them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "mcl_test_util.hpp"
#include "opsparse/error.hpp"
#include "opsparse/io.hpp"
#include "opsparse/io_mcl_native.hpp"

namespace {

using namespace opsparse;
using namespace opsparse::mcl::test;

struct binary_tag {
  static constexpr const char* name = "binary";
};
using McxBinary = files_suite<binary_tag>;

std::string binary_bytes(const host_csr<double>& columns,
                         const std::vector<std::int64_t>* row_ids = nullptr,
                         const std::vector<std::int64_t>* col_ids = nullptr) {
  std::ostringstream os;
  io::write_mcl_native_binary(os, columns, row_ids, col_ids);
  return os.str();
}

/// A small matrix: 4 columns over 5 rows, one column empty.
host_csr<double> small() {
  host_csr<double> m(4, 5);
  m.rpt = {0, 2, 2, 5, 6};
  m.col = {1, 3, 0, 2, 4, 4};
  m.val = {0.5, 2, 1, 0.25, 3, 7};
  return m;
}

/// What read_mcl_native_binary says of `bytes` (written to a file), or "" when it reads them.
std::string refusal(const fs::path& p, const std::string& bytes) {
  write_text(p, bytes);
  try {
    (void)io::read_mcl_native(p.string(), io::read_options{});
  } catch (const parse_error& e) {
    EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
    return e.what();
  }
  return "";
}

template <class V>
void poke(std::string& bytes, std::size_t at, V v) {
  std::memcpy(bytes.data() + at, &v, sizeof v);
}

TEST_F(McxBinary, RoundTripsCanonicalAndOtherDomains) {
  const host_csr<double> m = small();
  const fs::path p = file("small.mcx", binary_bytes(m));
  EXPECT_TRUE(io::is_mcl_native_binary(p.string()));
  EXPECT_TRUE(io::looks_like_mcl_native(p.string()));
  io::mcl_native_matrix r = io::read_mcl_native(p.string(), io::read_options{});
  EXPECT_EQ(r.columns.rpt, m.rpt);
  EXPECT_EQ(r.columns.col, m.col);
  EXPECT_EQ(r.columns.val, m.val);
  EXPECT_EQ(r.columns.cols, 5);
  EXPECT_EQ(r.row_ids, (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
  const std::vector<std::int64_t> rows = {3, 8, 9, 20, 100}, cols = {1, 5, 6, 7};
  const fs::path d = file("doms.mcx", binary_bytes(m, &rows, &cols));
  r = io::read_mcl_native(d.string(), io::read_options{});
  EXPECT_EQ(r.row_ids, rows);
  EXPECT_EQ(r.col_ids, cols);
  EXPECT_EQ(r.columns.col, m.col);  // positions in the domains
  // The text writer writes the same matrix from what was read.
  std::ostringstream a, b;
  io::write_mcl_native(a, m, &rows, &cols);
  io::write_mcl_native(b, r.columns, &r.row_ids, &r.col_ids);
  EXPECT_EQ(a.str(), b.str());
}

TEST_F(McxBinary, RefusesDamagedFilesNamingTheByte) {
  const std::string good = binary_bytes(small());
  // cookie 4, dimensions and flags 24, offsets 5 x 8: the first vector at byte 68.
  const std::size_t body = 4 + 24 + 5 * 8;
  EXPECT_EQ(refusal(dir_ / "good.mcx", good), "");
  EXPECT_NE(refusal(dir_ / "cut.mcx", good.substr(0, good.size() - 3)).find("offsets"),
            std::string::npos);
  EXPECT_NE(refusal(dir_ / "short.mcx", good.substr(0, 20)).find("truncated"), std::string::npos);
  EXPECT_NE(refusal(dir_ / "tail.mcx", good + "xyz").find("bytes after the last column"),
            std::string::npos);
  std::string bad = good;
  poke<std::int64_t>(bad, 4, -1);  // a negative column count
  EXPECT_NE(refusal(dir_ / "dims.mcx", bad).find("out of range"), std::string::npos);
  bad = good;
  poke<std::int64_t>(bad, 20, 7);  // unknown flags
  EXPECT_NE(refusal(dir_ / "flags.mcx", bad).find("flags"), std::string::npos);
  bad = good;
  poke<std::int32_t>(bad, body + 24, 5);  // column 0's first row: 5 of 5 rows
  EXPECT_NE(refusal(dir_ / "row.mcx", bad).find("not in the row domain"), std::string::npos);
  bad = good;
  poke<std::int32_t>(bad, body + 24 + 8, 0);  // column 0's rows 1 then 0
  EXPECT_NE(refusal(dir_ / "order.mcx", bad).find("rows must increase"), std::string::npos);
  bad = good;
  poke<std::int64_t>(bad, body + 8, 9);  // column 0's id
  EXPECT_NE(refusal(dir_ / "id.mcx", bad).find("has id 9"), std::string::npos);
  bad = good;
  poke<std::int64_t>(bad, body, 3);  // column 0 says 3 entries, framed 2
  EXPECT_NE(refusal(dir_ / "count.mcx", bad).find("says 3 entries"), std::string::npos);
  bad = good;
  poke<float>(bad, body + 24 + 4, -1.0f);
  write_text(dir_ / "neg.mcx", bad);
  io::read_options nonneg;
  nonneg.nonnegative = true;
  EXPECT_THROW(io::read_mcl_native((dir_ / "neg.mcx").string(), nonneg), parse_error);
  EXPECT_NO_THROW(io::read_mcl_native((dir_ / "neg.mcx").string(), io::read_options{}));
  bad = good;
  poke<std::int64_t>(bad, 4 + 24 + 8, 1000);  // column 0 ends past the body
  EXPECT_NE(refusal(dir_ / "offset.mcx", bad).find("do not frame a vector"), std::string::npos);
}

TEST_F(McxBinary, ReadsAndWritesWhatMcxloadWrites) {
  REQUIRE_MCL_TOOLS();
  const fs::path abc = file("w.abc", planted_abc(8, 25, 0.35, 0.02, true, 61));
  ASSERT_EQ(sh("cd " + q(dir_) +
               " && mcxload -abc w.abc --stream-mirror --write-binary -o w.bin "
               "> /dev/null 2>&1 && mcxload -abc w.abc --stream-mirror -o w.mci "
               "> /dev/null 2>&1"),
            0);
  const io::mcl_native_matrix b =
      io::read_mcl_native((dir_ / "w.bin").string(), io::read_options{});
  const io::mcl_native_matrix t =
      io::read_mcl_native((dir_ / "w.mci").string(), io::read_options{});
  EXPECT_EQ(b.columns.rpt, t.columns.rpt);
  EXPECT_EQ(b.columns.col, t.columns.col);
  ASSERT_EQ(b.columns.val.size(), t.columns.val.size());
  for (std::size_t k = 0; k < b.columns.val.size(); ++k)  // the text has %.7g of the float
    ASSERT_EQ(static_cast<float>(b.columns.val[k]), static_cast<float>(t.columns.val[k])) << k;
  EXPECT_TRUE(binary_bytes(b.columns) == read_text(dir_ / "w.bin"));
}

#if defined(OPSPARSE_MCL_EXE) && defined(OPSPARSE_MCX_EXE)
TEST_F(McxBinary, ProgramsWriteMcxloadsBytesAndClusterItAsText) {
  REQUIRE_MCL_TOOLS();
  const std::string mcx = q(opsparse::test::program_path("opsparse-mcx", OPSPARSE_MCX_EXE));
  const std::string mcl = q(opsparse::test::program_path("opsparse-mcl", OPSPARSE_MCL_EXE));
  file("p.abc", planted_abc(10, 30, 0.3, 0.01, true, 62));
  const std::string cd = "cd " + q(dir_) + " && ";
  ASSERT_EQ(
      sh(cd + "mcxload -abc p.abc --stream-mirror --write-binary -o want.bin > /dev/null 2>&1"), 0);
  ASSERT_EQ(
      sh(cd + mcx + " load -abc p.abc --stream-mirror --write-binary -write-tab p.tab -o got.bin"),
      0);
  EXPECT_TRUE(read_text(dir_ / "got.bin") == read_text(dir_ / "want.bin"));
  ASSERT_EQ(sh(cd + mcx + " load -abc p.abc --stream-mirror -o p.mci"), 0);
  // The binary matrix clusters as its text and as mcl clusters the binary.
  ASSERT_EQ(sh(cd + mcl + " got.bin --backend cpu -o ours.bin.out 2> /dev/null"), 0);
  ASSERT_EQ(sh(cd + mcl + " p.mci --backend cpu -o ours.mci.out 2> /dev/null"), 0);
  ASSERT_EQ(sh(cd + "mcl got.bin -o mcl.bin.out > /dev/null 2>&1"), 0);
  // A native clustering (the input had no labels) after its "# cline:" line, which differs.
  const auto body = [](const fs::path& p) {
    const std::string t = read_text(p);
    return t.substr(std::min(t.size(), t.find('\n') + 1));
  };
  const std::string got = body(dir_ / "ours.bin.out");
  EXPECT_NE(got.find("(mclmatrix"), std::string::npos) << got;
  EXPECT_EQ(got, body(dir_ / "ours.mci.out"));
  EXPECT_EQ(got, body(dir_ / "mcl.bin.out"));
}
#endif

}  // namespace
