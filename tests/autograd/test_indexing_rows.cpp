// index_select, gather and their adjoints index_add and scatter_add walk a contiguous
// tensor as rows around the indexed dimension, and any other one element by element: both
// ways must give the same values and gradients, at every dimension, with negative indices,
// and reject an index out of range before writing anything.
#include "support.hpp"

using Catch::Matchers::Contains;

namespace {

// The same values, once contiguous and once as a strided (non-contiguous) view.
std::pair<gradc::Tensor, gradc::Tensor> both_layouts(const gradc::Shape& sizes) {
    const gradc::Tensor values = gradc::randn(sizes);
    const gradc::Tensor strided = values.transpose(0, 2).contiguous().transpose(0, 2);
    REQUIRE_FALSE(strided.is_contiguous());
    return {values.clone().requires_grad_(), strided.detach().requires_grad_()};
}

bool same(const gradc::Tensor& a, const gradc::Tensor& b) {
    return a.sizes() == b.sizes() && gradc::equal(a.contiguous(), b.contiguous());
}

// op on the contiguous values and on their strided view: the same result, and the same
// gradient of a random weighting of it.
template <class Op>
void check_both_walks(const gradc::Tensor& rows, const gradc::Tensor& strided, Op op) {
    const gradc::Tensor a = op(rows);
    const gradc::Tensor b = op(strided);
    CHECK(same(a, b));
    const gradc::Tensor weights = gradc::randn(a.sizes());
    const gradc::Tensor ga = gradc::autograd::grad({(a * weights).sum()}, {rows})[0];
    const gradc::Tensor gb = gradc::autograd::grad({(b * weights).sum()}, {strided})[0];
    CHECK(same(ga, gb));
}

}  // namespace

TEST_CASE("index_select by rows agrees with the general walk, values and gradients", "[autograd][indexing]") {
    gradc::manual_seed(7);
    for (std::int64_t dim = 0; dim < 3; ++dim) {
        auto [rows, strided] = both_layouts({3, 4, 5});
        const std::int64_t size = rows.size(dim);
        const gradc::Tensor index = gradc::tensor_i64({0, size - 1, -1, 1, 1});
        check_both_walks(rows, strided, [&](const gradc::Tensor& t) { return gradc::index_select(t, dim, index); });
    }
}

TEST_CASE("gather by rows agrees with the general walk, values and gradients", "[autograd][indexing]") {
    gradc::manual_seed(8);
    for (std::int64_t dim = 0; dim < 3; ++dim) {
        auto [rows, strided] = both_layouts({3, 4, 5});
        gradc::Shape index_sizes = rows.sizes();
        index_sizes[std::size_t(dim)] = 6;
        const gradc::Tensor index = gradc::randint(-rows.size(dim), rows.size(dim), index_sizes);
        check_both_walks(rows, strided, [&](const gradc::Tensor& t) { return gradc::gather(t, dim, index); });
    }
}

TEST_CASE("gathering along a one-dimensional tensor, repeated indices summed in backward", "[autograd][indexing]") {
    const gradc::Tensor source = gradc::tensor({1.0, 2.0, 3.0}).requires_grad_();
    const gradc::Tensor index = gradc::tensor_i64({2, 0, 2, -1});
    const gradc::Tensor picked = gradc::gather(source, 0, index);
    CHECK(same(picked, gradc::tensor({3.0, 1.0, 3.0, 3.0})));
    const gradc::Tensor g = gradc::autograd::grad({picked.sum()}, {source})[0];
    CHECK(same(g, gradc::tensor({1.0, 0.0, 3.0})));
    const gradc::Tensor rows = gradc::index_select(source, 0, index);
    CHECK(same(gradc::autograd::grad({rows.sum()}, {source})[0], gradc::tensor({1.0, 0.0, 3.0})));
}

TEST_CASE("an index out of range is rejected before anything is written", "[autograd][indexing]") {
    const gradc::Tensor source = gradc::arange(12).reshape({3, 4});
    const gradc::Tensor bad = gradc::tensor_i64({0, 3, 1});
    CHECK_THROWS_WITH(gradc::index_select(source, 0, bad), Contains("index_select") && Contains("index 3 is out of bounds"));
    CHECK_THROWS_WITH(gradc::gather(source, 0, gradc::tensor_i64({0, 1, 2, 0, 1, 2, 0, 1, 2, -4, 0, 0}, {3, 4})),
                      Contains("gather") && Contains("index -4 is out of bounds"));
    const gradc::Tensor target = gradc::zeros({3, 4});
    CHECK_THROWS_WITH(gradc::index_add(target, 0, bad, gradc::ones({3, 4})), Contains("index_add") && Contains("out of bounds"));
    CHECK_THROWS_WITH(gradc::scatter_add(target, 1, gradc::tensor_i64({0, 4}, {1, 2}), gradc::ones({1, 2})),
                      Contains("scatter_add") && Contains("out of bounds"));
    CHECK(gradc::equal(target, gradc::zeros({3, 4})));
}
