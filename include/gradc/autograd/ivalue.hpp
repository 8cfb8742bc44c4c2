#pragma once
/// \file
/// The value type of a custom function's `ctx->saved_data` (LibTorch's `IValue`, reduced
/// to what autograd code stores there): none, bool, integer, double, string, Tensor or
/// tensor_list, read back with LibTorch's accessors:
///
///     ctx->saved_data["mul"] = constant;                  // a double
///     double c = ctx->saved_data["mul"].toDouble();
///
/// Every C++ integer type is stored as an int64 (`toInt()`), every floating type as a
/// double, as IValue does (and, as there, toDouble() refuses an Int). Any other copyable value is kept as `std::any` and read with
/// `to<T>()`, which also reads the kinds above. Reading the wrong kind throws gradc::Error
/// naming what was stored.

#include <any>
#include <concepts>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include <gradc/autograd/tensor.hpp>
#include <gradc/error.hpp>

namespace gradc::autograd {

/// A value a custom function keeps in `ctx->saved_data` (LibTorch's c10::IValue): none, a
/// bool, an integer, a double, a string, a tensor, a tensor list, or any other type.
class IValue {
public:
    /// @{
    /// An IValue holding the argument (none for the default).
    IValue() = default;
    IValue(bool v) : value_(v) {}
    template <std::integral I>
        requires(!std::is_same_v<I, bool>)
    IValue(I v) : value_(static_cast<std::int64_t>(v)) {}
    template <std::floating_point F>
    IValue(F v) : value_(static_cast<double>(v)) {}
    IValue(std::string v) : value_(std::move(v)) {}
    IValue(const char* v) : value_(std::string(v)) {}
    IValue(Tensor v) : value_(std::move(v)) {}
    IValue(tensor_list v) : value_(std::move(v)) {}
    /// @}
    /// Anything else (a user's struct): kept as std::any, read with to<T>().
    template <class T>
        requires(!std::is_arithmetic_v<std::decay_t<T>> && !std::is_convertible_v<T, std::string> &&
                 !std::is_convertible_v<T, Tensor> && !std::is_convertible_v<T, tensor_list> &&
                 !std::is_same_v<std::decay_t<T>, IValue>)
    IValue(T&& v) : value_(std::any(std::forward<T>(v))) {}

    /// @{
    /// Whether it holds that kind of value.
    bool isNone() const { return std::holds_alternative<std::monostate>(value_); }
    bool isBool() const { return std::holds_alternative<bool>(value_); }
    bool isInt() const { return std::holds_alternative<std::int64_t>(value_); }
    bool isDouble() const { return std::holds_alternative<double>(value_); }
    bool isString() const { return std::holds_alternative<std::string>(value_); }
    bool isTensor() const { return std::holds_alternative<Tensor>(value_); }
    bool isTensorList() const { return std::holds_alternative<tensor_list>(value_); }

    /// @}
    /// @{
    /// The value of that kind; a gradc::Error naming both kinds if it holds another.
    bool toBool() const { return get<bool>("toBool"); }
    std::int64_t toInt() const { return get<std::int64_t>("toInt"); }
    double toDouble() const { return get<double>("toDouble"); }
    const std::string& toStringRef() const { return get<std::string>("toStringRef"); }
    Tensor toTensor() const { return get<Tensor>("toTensor"); }
    tensor_list toTensorList() const { return get<tensor_list>("toTensorList"); }

    /// @}
    /// The value as `T`: one of the kinds above (an Int read as any integer type, a Double
    /// as any floating type), or the type a std::any value was stored with.
    template <class T>
    T to() const {
        if constexpr (std::is_same_v<T, bool>) {
            return toBool();
        } else if constexpr (std::is_integral_v<T>) {
            return static_cast<T>(toInt());
        } else if constexpr (std::is_floating_point_v<T>) {
            return static_cast<T>(toDouble());
        } else if constexpr (std::is_same_v<T, std::string>) {
            return toStringRef();
        } else if constexpr (std::is_same_v<T, Tensor>) {
            return toTensor();
        } else if constexpr (std::is_same_v<T, tensor_list>) {
            return toTensorList();
        } else {
            const auto* any = std::get_if<std::any>(&value_);
            const T* v = any ? std::any_cast<T>(any) : nullptr;
            if (!v)
                throw Error(std::string("gradc: IValue::to<T>(): expected a value stored with that type, but the "
                                        "IValue holds ") + kind());
            return *v;
        }
    }

    /// What the value holds: "None", "Bool", "Int", "Double", "String", "Tensor",
    /// "TensorList" or "Other" (std::any), as in IValue::tagKind.
    const char* kind() const {
        static constexpr const char* names[] = {"None", "Bool", "Int", "Double", "String", "Tensor", "TensorList", "Other"};
        return names[value_.index()];
    }

private:
    template <class T>
    const T& get(const char* accessor) const {
        if (const T* v = std::get_if<T>(&value_)) return *v;
        throw Error(std::string("gradc: IValue::") + accessor + "(): the IValue holds " + kind() +
                    ", not the kind this accessor reads; read it with the accessor of what was stored");
    }

    std::variant<std::monostate, bool, std::int64_t, double, std::string, Tensor, tensor_list, std::any> value_;
};

}  // namespace gradc::autograd
