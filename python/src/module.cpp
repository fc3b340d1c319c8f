// opsparse._opsparse: the library and the apps for Python. The public API (argument checks,
// conversions from SciPy, CuPy and NetworkX, the result types) is python/opsparse/__init__.py;
// this module takes canonical CSR arrays and hands back NumPy arrays (device pointers for CuPy).
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "common.hpp"
#include "opsparse/error.hpp"
#include "opsparse/io.hpp"

namespace opsparse::python {
namespace {

nb::object spgemm_host(const std::string& semiring, nb::tuple a, nb::tuple b, nb::object mask,
                       bool complement, int threads, bool sorted) {
  const host_operand ha = operand_from(a), hb = operand_from(b);
  std::optional<host_operand> hm;
  if (!mask.is_none()) hm = operand_from(mask);
  host_product p{semiring, &ha, &hb, hm ? &*hm : nullptr, complement, threads, sorted};
  for (auto family : {host_spgemm_float, host_spgemm_integer, host_spgemm_graph}) {
    nb::object r = family(p);
    if (r.is_valid()) return r;
  }
  throw std::invalid_argument("semiring '" + semiring + "' is not offered for values of this type");
}

nb::tuple read_graph(const std::string& path, bool nonnegative) {
  io::read_options opt;
  opt.nonnegative = nonnegative;
  io::labelled_graph g;
  {
    nb::gil_scoped_release nogil;
    g = io::read_graph(path, io::file_format::automatic, opt);
  }
  nb::list labels;
  for (const std::string& s : g.labels) labels.append(nb::str(s.c_str(), s.size()));
  return nb::make_tuple(from_host(std::move(g.adj)), labels);
}

}  // namespace
}  // namespace opsparse::python

NB_MODULE(_opsparse, m) {
  namespace nb = nanobind;
  using namespace opsparse::python;
  m.doc() = "OpSparse's C++ core; use the functions of the opsparse package.";
  m.attr("__version__") = OPSPARSE_VERSION;
#if OPSPARSE_HAS_GPU_ENGINE
  m.attr("has_gpu_engine") = true;
#else
  m.attr("has_gpu_engine") = false;
#endif
  // parse_error names the file and the line: a ValueError (bad input), as Python readers raise.
  nb::exception<opsparse::parse_error>(m, "ParseError", PyExc_ValueError);
  nb::exception<opsparse::cuda_error>(m, "CudaError", PyExc_RuntimeError);

  m.def("spgemm_host", &spgemm_host, nb::arg("semiring"), nb::arg("a"), nb::arg("b"),
        nb::arg("mask").none(), nb::arg("complement"), nb::arg("threads"), nb::arg("sorted") = true,
        "C = A·B on the CPU engine over canonical CSR tuples; returns such a tuple.");
  m.def(
      "read_graph", &read_graph, nb::arg("path"), nb::arg("nonnegative") = false,
      "Reads a Matrix Market, ABC or edge-list file: ((n, n, indptr, indices, weights), labels).");
  bind_apps(m);
  bind_graph_algorithms(m);
  bind_device(m);
}
