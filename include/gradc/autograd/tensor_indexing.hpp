#pragma once
/// \file
/// LibTorch's tensor indexing API (`torch::indexing`): `t.index({Slice(1, None, 2), 0})`,
/// `t.index_put_({Ellipsis, 0}, 1.0)`. Python's `t[1::2, 0]` is
/// `t.index({Slice(1, None, 2), 0})`.

#include <cstdint>
#include <optional>

#include <gradc/autograd/tensor.hpp>

namespace gradc::indexing {

/// Python's `None` in an index: a new dimension of size 1.
struct NoneIndex {};
inline constexpr NoneIndex None{};  ///< `None`: a new dimension of size 1 (or an open end of a Slice).
/// Python's `...`: as many full slices as the dimensions not named.
struct EllipsisIndex {};
inline constexpr EllipsisIndex Ellipsis{};  ///< `Ellipsis`: the dimensions not named.

/// `start:stop:step`; `None` for an end that is left open.
class Slice {
public:
    /// `Slice(start, stop, step)`, each optional.
    Slice(std::optional<std::int64_t> start = std::nullopt, std::optional<std::int64_t> stop = std::nullopt,
          std::optional<std::int64_t> step = std::nullopt)
        : start_(start), stop_(stop), step_(step.value_or(1)) {}
    /// With an open start.
    Slice(NoneIndex, std::optional<std::int64_t> stop = std::nullopt, std::optional<std::int64_t> step = std::nullopt)
        : Slice(std::nullopt, stop, step) {}
    /// With an open stop.
    Slice(std::optional<std::int64_t> start, NoneIndex, std::optional<std::int64_t> step = std::nullopt)
        : Slice(start, std::nullopt, step) {}
    /// With both ends open.
    Slice(NoneIndex, NoneIndex, std::optional<std::int64_t> step = std::nullopt) : Slice(std::nullopt, std::nullopt, step) {}
    std::optional<std::int64_t> start() const { return start_; }  ///< The start, if given.
    std::optional<std::int64_t> stop() const { return stop_; }  ///< The stop, if given.
    std::int64_t step() const { return step_; }

private:
    std::optional<std::int64_t> start_, stop_;
    std::int64_t step_;
};

/// One entry of an index list: an integer, a bool, a Slice, None, Ellipsis or an int64
/// tensor.
class TensorIndex {
public:
    /// Which of the kinds it is.
    enum class Kind { Integer, Boolean, Slice, None, Ellipsis, Tensor };
    /// An integer: selects.
    TensorIndex(std::int64_t i) : kind_(Kind::Integer), integer_(i) {}  // NOLINT: implicit, as LibTorch
    /// An integer: selects.
    TensorIndex(int i) : TensorIndex(std::int64_t(i)) {}                  // NOLINT
    /// A bool.
    TensorIndex(bool b) : kind_(Kind::Boolean), integer_(b) {}            // NOLINT
    /// A slice: narrows.
    TensorIndex(Slice s) : kind_(Kind::Slice), slice_(s) {}               // NOLINT
    /// None: a new dimension.
    TensorIndex(NoneIndex) : kind_(Kind::None) {}                         // NOLINT
    /// Ellipsis.
    TensorIndex(EllipsisIndex) : kind_(Kind::Ellipsis) {}                 // NOLINT
    /// An int64 tensor: picks entries.
    TensorIndex(gradc::Tensor t) : kind_(Kind::Tensor), tensor_(std::move(t)) {}  // NOLINT
    Kind kind() const { return kind_; }  ///< Its kind.
    std::int64_t integer() const { return integer_; }  ///< The integer (Integer, Boolean).
    const Slice& slice() const { return slice_; }  ///< The slice (Slice).
    const gradc::Tensor& tensor() const { return tensor_; }  ///< The tensor (Tensor).

private:
    Kind kind_;
    std::int64_t integer_ = 0;
    Slice slice_;
    gradc::Tensor tensor_;
};

}  // namespace gradc::indexing
