// The library's graph algorithms on the CPU engine (opsparse/cpu/graph_algorithms.hpp) over
// canonical CSR tuples: the undirected simple graph of an adjacency, its k-truss and the
// Jaccard coefficients of pairs of vertices.
#include "opsparse/cpu/graph.hpp"
#include "opsparse/cpu/graph_algorithms.hpp"
#include "common.hpp"

namespace opsparse::python {
namespace {

nb::tuple undirected_simple(nb::tuple adjacency) {
  const host_csr<pattern> a = to_host<pattern>(operand_from(adjacency), "graph");
  host_csr<pattern> s;
  {
    nb::gil_scoped_release nogil;
    s = cpu::undirected_simple(a);
  }
  return from_host(std::move(s));
}

nb::tuple k_truss(nb::tuple simple, long long k, int threads) {
  const host_csr<pattern> a = to_host<pattern>(operand_from(simple), "graph");
  cpu::options opt;
  opt.threads = threads;
  host_csr<pattern> t;
  {
    nb::gil_scoped_release nogil;
    t = cpu::k_truss(a, k, opt);
  }
  return from_host(std::move(t));
}

nb::tuple jaccard(nb::tuple simple, nb::tuple pairs, int threads) {
  const host_csr<pattern> a = to_host<pattern>(operand_from(simple), "graph");
  const host_csr<pattern> p = to_host<pattern>(operand_from(pairs), "pairs");
  cpu::options opt;
  opt.threads = threads;
  host_csr<double> j;
  {
    nb::gil_scoped_release nogil;
    j = cpu::jaccard(a, p, opt);
  }
  return from_host(std::move(j));
}

}  // namespace

void bind_graph_algorithms(nb::module_& m) {
  m.def("undirected_simple", &undirected_simple, nb::arg("adjacency"),
        "The undirected simple graph on a square matrix's structure, as a pattern tuple.");
  m.def("k_truss", &k_truss, nb::arg("simple"), nb::arg("k"), nb::arg("threads"),
        "The k-truss of an undirected simple graph (pattern tuple in and out).");
  m.def("jaccard", &jaccard, nb::arg("simple"), nb::arg("pairs"), nb::arg("threads"),
        "Jaccard coefficients of the pairs (a pattern tuple): a tuple of the pairs' structure.");
}

}  // namespace opsparse::python
