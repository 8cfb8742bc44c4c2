// SmallVector: the container behind shapes, node edges and gradient buffers. Checked
// against std::vector doing the same operations, inline and after moving to the heap,
// with a trivially copyable element (int64) and with one that owns memory (std::string).
#include <memory>
#include <string>
#include <vector>

#include <gradc/autograd/small_vector.hpp>

#include "support.hpp"

namespace {

template <class SV, class T>
void require_same(const SV& sv, const std::vector<T>& v) {
    REQUIRE(sv.size() == v.size());
    for (std::size_t i = 0; i < v.size(); ++i) CHECK(sv[i] == v[i]);
    CHECK(sv.to_vector() == v);
}

// The same edits on a SmallVector and a std::vector, from `make(i)` elements.
template <class T, std::size_t N, class Make>
void same_as_vector(Make make) {
    gradc::SmallVector<T, N> sv;
    std::vector<T> v;
    for (int i = 0; i < 7; ++i) {
        sv.push_back(make(i));
        v.push_back(make(i));
        require_same(sv, v);
    }
    CHECK(sv.capacity() >= 7);
    sv.insert(sv.begin() + 2, make(20));
    v.insert(v.begin() + 2, make(20));
    require_same(sv, v);
    sv.insert(sv.end(), {make(30), make(31)});
    v.insert(v.end(), {make(30), make(31)});
    require_same(sv, v);
    // A range from the vector itself.
    const std::vector<T> head(v.begin(), v.begin() + 3);
    sv.insert(sv.begin() + 1, sv.begin(), sv.begin() + 3);
    v.insert(v.begin() + 1, head.begin(), head.end());
    require_same(sv, v);
    sv.erase(sv.begin() + 4);
    v.erase(v.begin() + 4);
    require_same(sv, v);
    sv.erase(sv.begin(), sv.begin() + 3);
    v.erase(v.begin(), v.begin() + 3);
    require_same(sv, v);
    sv.resize(2);
    v.resize(2);
    require_same(sv, v);
    sv.resize(9, make(5));
    v.resize(9, make(5));
    require_same(sv, v);
    sv.pop_back();
    v.pop_back();
    require_same(sv, v);
    // An element of the vector itself appended when the capacity is full.
    while (sv.size() < sv.capacity()) {
        sv.push_back(make(1));
        v.push_back(make(1));
    }
    sv.push_back(sv[0]);
    v.push_back(v[0]);
    require_same(sv, v);

    auto copy = sv;
    require_same(copy, v);
    auto moved = std::move(copy);
    require_same(moved, v);
    gradc::SmallVector<T, N> small{make(1), make(2)};
    small.swap(moved);
    require_same(small, v);
    require_same(moved, std::vector<T>{make(1), make(2)});
    moved = small;
    CHECK(moved == small);
    small.clear();
    CHECK(small.empty());
    small = std::move(moved);
    require_same(small, v);
    CHECK_THROWS_AS(small.at(v.size()), std::out_of_range);
}

}  // namespace

TEST_CASE("SmallVector behaves like std::vector inline and on the heap", "[autograd][small_vector]") {
    same_as_vector<std::int64_t, 3>([](int i) { return std::int64_t{i} * 10; });
    same_as_vector<std::int64_t, 16>([](int i) { return std::int64_t{i} - 4; });
    // Long strings own heap memory: leaks or double frees show under AddressSanitizer.
    same_as_vector<std::string, 2>([](int i) { return std::string(40, static_cast<char>('a' + i)); });
    same_as_vector<std::string, 12>([](int i) { return std::string(30, static_cast<char>('k' + i)); });
}

TEST_CASE("shapes of up to five dimensions stay inline", "[autograd][small_vector]") {
    gradc::Shape s{2, 3, 4, 5, 6};
    const auto* inline_data = s.data();
    CHECK(s.capacity() == 5);
    auto t = gradc::zeros(s);
    CHECK(t.sizes() == s);
    CHECK(t.strides() == gradc::Shape{360, 120, 30, 6, 1});
    s.push_back(7);  // the sixth moves it to the heap
    CHECK(s.data() != inline_data);
    CHECK(gradc::zeros(s).strides() == gradc::Shape{2520, 840, 210, 42, 7, 1});
    CHECK(s < gradc::Shape{2, 3, 4, 5, 7});
    CHECK(s == std::vector<std::int64_t>{2, 3, 4, 5, 6, 7});
}
