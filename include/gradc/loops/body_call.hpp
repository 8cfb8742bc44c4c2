#pragma once
/// \file
/// One run of a loop body's program (loops/body.hpp) by an operation of the enclosing
/// program: a loop (loops/loop_rule.hpp) or a part hoisted out of it
/// (loops/body_part.hpp). Both take their operands in the same order — the variables
/// the body uses, the enclosing loops' counters the operation reads, the body's
/// literals, then their own — and both need the same things from them: the body's
/// frame (the arguments, the literals, the counters), its layout for these extents, and
/// room for its arrays.
///
/// The arrays are in a buffer per thread and per operation type, grown on first use and
/// then reused: no allocation after the first call with given extents, and calls on
/// several threads at once never share one.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <gradc/loops/body.hpp>
#include <gradc/lower/run_time_layout.hpp>
#include <gradc/rules/arrays/indexed_access.hpp>

namespace gradc::loops {

/// \cond INTERNAL

using rules::arrays::dims;

/// The number a literal operand holds: the same in every lane of a batch, and the value
/// part of a dual number.
template <class T>
double literal_of(const T& v) {
    if constexpr (std::is_arithmetic_v<T>) {
        return double(v);
    } else if constexpr (rules::simd_batch<T>) {
        return double(v.get(0));
    } else {
        return literal_of(v.value);
    }
}

/// A buffer of at least n values of T for Owner on this thread, grown as needed and
/// kept (a free function: a body's parts have runner types of their own, and share one).
template <class Owner, class T>
T* thread_buffer(std::size_t n) {
    static thread_local std::vector<T> storage;
    if (storage.size() < n) storage.resize(n);
    return storage.data();
}

/// The body program of Body (counter tag Tag; a chained loop's carry type Carry, and the
/// variable set FallbackSet for a body that uses no kernel variable) as run by an
/// operation that reads the enclosing loops' counters at the nodes `Counters`.
template <class Body, class Tag, const auto& Counters, class Carry = void, class FallbackSet = void>
struct body_runner {
    using body = body_program<Body, Tag, Carry, FallbackSet>;
    using program = typename body::program;
    using nodes = typename body::nodes;
    using set = typename body::set;
    static constexpr auto& BL = program::L;
    static constexpr std::size_t variable_count = nodes::variable_count;
    static constexpr std::size_t counter_count = Counters.size();
    static constexpr std::size_t literal_count = body::literal_count;
    /// The operands every such operation begins with.
    static constexpr std::size_t common_operands = variable_count + counter_count + literal_count;
    static constexpr std::size_t first_literal = variable_count + counter_count;
    /// The operand of a run's i-th variable: the body's variables first, then the
    /// programs' extra ones (a chained loop's carry, whose operand is its init; a steps'
    /// program's hoisted parts), the operands after the common ones.
    static constexpr std::size_t operand_of(std::size_t i) {
        return i < variable_count ? i : common_operands + i - variable_count;
    }

    /// The steps' program (loops/body.hpp): the hoisted parts read as variables.
    using step_program = typename body::step_program;
    /// Of program P: its variables beyond the kernel's (the steps' program's hoisted parts).
    template <class P>
    static constexpr std::size_t extra_count = P::set::size - set::size;

    /// P's layout for the variables' shapes (`s`, the first operands', then P's extra
    /// variables': the operands after the common ones) and its literals.
    template <class P = program>
    static auto layout_for(const dims* s, const double* literals) {
        std::array<dims, P::set::size> a = P::set::shapes;  // the unused ones are never read
        for (std::size_t i = 0; i < variable_count; ++i) a[nodes::variables[i]] = s[i];
        for (std::size_t e = 0; e < extra_count<P>; ++e) a[set::size + e] = s[variable_count + e];
        return []<class... Nodes>(lower::flat<Nodes...>, const std::array<dims, P::set::size>& v, const double* l) {
            return lower::layout_at<typename P::analysis, Nodes...>("a loop's body", v, l);
        }(typename P::flat_type{}, a, literals);
    }
    /// Node n's shape: fixed, or from the layout for the operands' shapes and literals
    /// (when the enclosing kernel's layout is computed).
    template <std::size_t N>
    static dims shape_at(std::size_t n, const std::array<dims, N>& s, const std::array<double, N>& literal) {
        if constexpr (!BL.has_dynamic) {
            return BL.shape[n];
        } else {
            std::array<double, literal_count == 0 ? 1 : literal_count> l{};
            for (std::size_t i = 0; i < literal_count; ++i) l[i] = literal[first_literal + i];
            // The variables' shapes, then the program's extra variables' (operands after the common ones).
            constexpr std::size_t count = variable_count + extra_count<program>;
            std::array<dims, count == 0 ? 1 : count> v{};
            for (std::size_t i = 0; i < count; ++i) v[i] = s[operand_of(i)];
            return layout_for(v.data(), l.data()).shape[n];
        }
    }

    /// The body's layout for the call of an operation of type Owner: computed again only
    /// when the extents or the literals differ from the last call's on this thread (a
    /// loop nested in another runs once per step of the outer one, with the same ones).
    template <class Owner, class P, std::size_t V>
    static const lower::run_time_layout<nodes::size>& cached_layout(const std::array<dims, V>& s, const double* literals) {
        struct last_call {
            bool filled = false;
            std::array<dims, V> extents{};
            std::array<double, literal_count == 0 ? 1 : literal_count> literals{};
            lower::run_time_layout<nodes::size> layout{};
        };
        static thread_local last_call last;
        bool same = last.filled && last.extents == s;
        for (std::size_t i = 0; same && i < literal_count; ++i) same = last.literals[i] == literals[i];
        if (!same) {
            last.filled = false;
            last.layout = layout_for<P>(s.data(), literals);  // throws gradc::Error when the extents do not fit
            last.extents = s;
            for (std::size_t i = 0; i < literal_count; ++i) last.literals[i] = literals[i];
            last.filled = true;
        }
        return last.layout;
    }

    /// Program P's forward table for these literals (lower/equal_copies.hpp: per copy of
    /// an equal subexpression, the node computing the same), found again only when the
    /// literals differ from the last call's of an operation of type Owner on this thread.
    template <class Owner, class P>
    static const std::size_t* cached_forwards(const double* literals) {
        struct last_call {
            bool filled = false;
            std::array<double, literal_count == 0 ? 1 : literal_count> literals{};
            std::array<std::size_t, P::analysis::copies.count> forward{};
        };
        static thread_local last_call last;
        bool same = last.filled;
        for (std::size_t i = 0; same && i < literal_count; ++i)
            same = std::bit_cast<std::uint64_t>(last.literals[i]) == std::bit_cast<std::uint64_t>(literals[i]);
        if (!same) {
            for (std::size_t i = 0; i < literal_count; ++i) last.literals[i] = literals[i];
            last.forward = P::forward_offsets(last.literals);
            last.filled = true;
        }
        return last.forward.data();
    }

    /// The arrays of the operation type Owner, on this thread.
    template <class Owner, class T>
    static T* buffer(std::size_t n) {
        return thread_buffer<Owner, T>(n);
    }

    /// One run of program P by an operation of type Owner: the frame's parts, the
    /// layout, the sizes. P's extra variables (the steps' program's hoisted parts) are
    /// the operands after the common ones.
    template <class Owner, class T, class P = program>
    struct call {
        static constexpr std::size_t extra = extra_count<P>;
        static constexpr auto& PL = P::L;
        mutable std::array<const T*, P::set::size> arguments{};
        std::array<double, literal_count == 0 ? 1 : literal_count> literals{};
        mutable std::array<std::size_t, nodes::size> counters{};
        const lower::run_time_layout<nodes::size>* layout = nullptr;
        const std::size_t* forward = nullptr;  ///< P's forward table, where P has copies.
        lower::run_time_view view{};
        const lower::run_time_view* run = nullptr;
        std::size_t value_size = 0, derivative_size = 0, variables_size = 0;
        /// Entries of each variable, then of each extra one.
        std::array<std::size_t, variable_count + extra == 0 ? 1 : variable_count + extra> variable_size{};

        template <class S, std::size_t N>
        call(const S& ext, const std::array<const T*, N>& ops) {
            const std::array<dims, variable_count + extra == 0 ? 1 : variable_count + extra> s = operand_dims(ext);
            for (std::size_t i = 0; i < variable_count + extra; ++i) {
                arguments[i < variable_count ? nodes::variables[i] : set::size + i - variable_count] = ops[operand_of(i)];
                variable_size[i] = s[i].size();
                variables_size += variable_size[i];
            }
            for (std::size_t i = 0; i < counter_count; ++i)
                counters[Counters[i]] = rules::arrays::index_value(*ops[variable_count + i]);
            for (std::size_t i = 0; i < literal_count; ++i) literals[i] = literal_of(*ops[first_literal + i]);
            if constexpr (P::analysis::copies.count > 0) forward = cached_forwards<Owner, P>(literals.data());
            if constexpr (PL.has_dynamic) {
                layout = &cached_layout<Owner, P>(s, literals.data());
                view = layout->view();
                run = &view;
                value_size = view.value_size;
                derivative_size = view.derivative_size;
            } else {
                value_size = PL.value_size;
                derivative_size = PL.derivative_size;
            }
        }
        call(const call&) = delete;

        lower::array_frame<T, P::set::size> frame(T* values) const {
            return {arguments.data(), values, literals.data(), forward, run, counters.data()};
        }
        /// Node n's number of entries.
        std::size_t size_of(std::size_t n) const {
            return PL.shape[n].is_dynamic() ? layout->shape[n].size() : PL.shape[n].size();
        }
        /// Step k: the loop's own counter holds k.
        void at(std::size_t k) const {
            if constexpr (nodes::own_node != lower::no_node) counters[nodes::own_node] = k;
        }
        /// A chained loop's step reads its carry at `carry` (the program's first extra variable).
        void read_carry(const T* carry) const {
            static_assert(body::carry_count == 1, "gradc internal: read_carry on a loop without a carry");
            arguments[set::size] = carry;
        }

    private:
        /// The variables' extents, then the extra variables' (operand k's are ext's k + 1).
        template <class S>
        static auto operand_dims(const S& ext) {
            return [&]<std::size_t... i, std::size_t... e>(std::index_sequence<i...>, std::index_sequence<e...>) {
                return std::array<dims, variable_count + extra == 0 ? 1 : variable_count + extra>{
                    dims_of<nodes::variables[i]>(std::get<i + 1>(ext.all))...,
                    dims_of<set::size + e>(std::get<common_operands + e + 1>(ext.all))...};
            }(std::make_index_sequence<variable_count>{}, std::make_index_sequence<extra>{});
        }
        template <std::size_t J, class E>
        static dims dims_of(const E& e) {
            return {std::size_t(e.rows), std::size_t(e.cols), P::set::shapes[J].kind};
        }
    };

    /// The body's wrt arrays for its adjoint: the operands' adjoint arrays (`given`, the
    /// first ones), or, for a variable whose adjoint is not asked for, room that the
    /// sweep adds to and nothing reads: not cleared (a loop over points reads a data
    /// matrix of n rows, and clearing its n·d entries per run of an inner loop took most
    /// of a GMM gradient's time).
    /// The extra variables' (the hoisted parts') adjoint arrays are the operands after
    /// the common ones (`given[common_operands + e]`).
    template <class C, class T, std::size_t N>
    static auto adjoint_arrays(const C& c, const std::array<T*, N>& given, T* room) {
        constexpr std::size_t count = variable_count + C::extra;
        std::array<T*, count == 0 ? 1 : count> wrt{};
        for (std::size_t i = 0; i < count; ++i) {
            T* g = given[operand_of(i)];
            wrt[i] = g != nullptr ? g : room;
            if (g == nullptr) room += c.variable_size[i];
        }
        return wrt;
    }
    /// The body's wrt tangents: the operands' tangents, or zeros for those not swept (one
    /// array of zeros per thread, grown as needed: the tangent sweep only reads it).
    template <class C, class T, std::size_t N>
    static auto tangent_arrays(const C& c, const std::array<const T*, N>& given) {
        constexpr std::size_t count = variable_count + C::extra;
        std::size_t most = 0;
        for (std::size_t i = 0; i < count; ++i) most = c.variable_size[i] > most ? c.variable_size[i] : most;
        static thread_local std::vector<T> zeros;
        if (zeros.size() < most) zeros.resize(most, T(rules::scalar_t<T>(0)));
        std::array<T*, count == 0 ? 1 : count> wrt{};
        for (std::size_t i = 0; i < count; ++i) {
            const T* g = given[operand_of(i)];
            wrt[i] = const_cast<T*>(g != nullptr ? g : zeros.data());  // read, never written
        }
        return wrt;
    }

    /// The copies of equal subexpressions of program P that pass their adjoints on in a
    /// sweep of the nodes of Mask (a step's varying nodes, a hoisted part's subtree).
    template <class P, const auto& Mask>
    static constexpr auto forwards_in = [] {
        auto f = P::analysis::copies.member;
        for (std::size_t i = 0; i < f.size(); ++i) f[i] = f[i] && Mask[i];
        return f;
    }();

    /// Copies n values.
    template <class T>
    static void copy(T* __restrict to, const T* from, std::size_t n) {
        for (std::size_t e = 0; e < n; ++e) to[e] = from[e];
    }
    /// Adds n values.
    template <class T>
    static void add(T* __restrict to, const T* from, std::size_t n) {
        for (std::size_t e = 0; e < n; ++e) to[e] += from[e];
    }
};

/// \endcond

}  // namespace gradc::loops
