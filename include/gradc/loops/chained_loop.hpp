#pragma once
/// \file
/// The array operation of a loop whose steps chain, `gradc::loop(n, init, f)`
/// (loops/loop.hpp): the carry c₀ = init, c_{k+1} = f(c_k, k), the result c_n. Its
/// operands: the body's variables, the enclosing loops' counters its steps read, the
/// body's literals (loops/body_call.hpp), the init, the parts hoisted out of the body
/// (loops/body_part.hpp: the body's nodes that depend on neither the counter nor the
/// carry, computed once by the enclosing program), then the count's source. A step runs
/// the steps' program (loops/body.hpp), which reads the carry as a variable:
///  - value: per k the step's primal on the carry, its result the next carry (kept in
///    the loop's own result array);
///  - adjoint, by stored steps: a forward sweep keeps every step's incoming carry (n ×
///    the carry's entries, in the loop's buffer per thread, grown on first use) and,
///    where they fit in `stored_values_budget` (loops/stored_steps.hpp), every step's
///    values; then from k = n − 1 down to 0, the step's values (copied back, or run
///    again from its stored carry) and its adjoint seeded by c̄_{k+1}, which adds to the
///    variables' and the hoisted parts' adjoints and gives c̄_k; the init's adjoint gets
///    c̄₀;
///  - tangent: per k the step's primal and tangent, the carry's tangent handed on.
/// Every derivative step takes every operand at once (`derivatives_together`).
///
/// A `gradc::while_loop` (Count = count_kind::condition; its count operand is the most
/// steps it may take, `gradc::max_steps`, −1 for none) is the same loop whose body is
/// where(condition(c), f(c), c) (loops/while_loop.hpp): it steps while the condition
/// holds on some lane. A lane whose condition fails keeps its carry (the where's other
/// branch), so a batch runs until its last lane stops, each lane's result and
/// derivatives those of its own trip count. n is found by the forward sweep; the
/// adjoint's stored carries grow with it. With `gradc::checkpoints{s}` (Checkpointed)
/// the reverse mode keeps at most s carries (loops/checkpoints.hpp).

#include <array>
#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include <gradc/error.hpp>
#include <gradc/loops/body_call.hpp>
#include <gradc/loops/checkpoints.hpp>
#include <gradc/loops/loop_rule.hpp>
#include <gradc/loops/step_condition.hpp>
#include <gradc/loops/stored_steps.hpp>
#include <gradc/rules/arrays/signature.hpp>
#include <gradc/rules/piecewise.hpp>

namespace gradc::loops {

/// \cond INTERNAL

template <class Body, class Tag, class Carry, class FallbackSet>
struct chained_step_nodes {
    using nodes = typename body_program<Body, Tag, Carry, FallbackSet>::nodes;
    static constexpr auto& counters = nodes::template counters_in<nodes::step_reads>;
};

/// Whether a body's shape b may be a carry of shape c: the same kind, and equal extents
/// where both are fixed.
constexpr bool carry_fits(const dims& b, const dims& c) {
    if (!b.valid() || !c.valid() || b.kind != c.kind) return false;
    const auto fit = [](std::size_t x, std::size_t y) { return x == y || x == dynamic_extent || y == dynamic_extent; };
    return fit(b.rows, c.rows) && fit(b.cols, c.cols);
}

/// What identifies a chained loop apart from its body (lower/node_structure.hpp's
/// `rule_identity`: the body is f's result, and Tag is f's type), and a loop that keeps
/// its states (loops/loop_states.hpp, KeepStates).
template <class Tag, class Carry, class FallbackSet, count_kind Count, bool Checkpointed, bool KeepStates>
struct chained_loop_identity;

template <class Body, class Tag, class Carry, class FallbackSet, count_kind Count, bool Checkpointed = false>
struct chained_loop
    : body_runner<Body, Tag, chained_step_nodes<Body, Tag, Carry, FallbackSet>::counters, Carry, FallbackSet> {
    using identity_type = chained_loop_identity<Tag, Carry, FallbackSet, Count, Checkpointed, false>;
    using runner = body_runner<Body, Tag, chained_step_nodes<Body, Tag, Carry, FallbackSet>::counters, Carry, FallbackSet>;
    using typename runner::nodes;
    using program = typename runner::step_program;
    static constexpr auto& BL = program::L;
    template <class T>
    using call = typename runner::template call<chained_loop, T, program>;
    static constexpr std::size_t init_operand = runner::common_operands;
    /// The outer carries the body reads (loops/body.hpp) follow the init.
    static constexpr std::size_t first_hoisted = init_operand + 1 + nodes::outer_carry_count;
    /// Whether the count says how many steps; a while loop's (a literal, −1 when none)
    /// is the most it may take (`gradc::max_steps`).
    static constexpr bool counted = Count != count_kind::condition;
    /// A checkpointed loop's checkpoints (a literal, loops/checkpoints.hpp) follow the
    /// parts; the count's source is last.
    static constexpr std::size_t checkpoints_operand = first_hoisted + nodes::hoisted_count;
    static constexpr std::size_t operand_count = checkpoints_operand + (Checkpointed ? 1 : 0) + 1;
    static constexpr std::size_t out = nodes::output;
    /// A while loop's condition (a test on the step's nodes).
    using condition = typename step_condition<typename last_node<typename runner::body::step_flat_type>::type>::type;
    static_assert(counted || !std::is_void_v<condition>,
                  "gradc internal: a while loop's body is not where(condition, next, carry)");
    /// The carry's position among the step program's wrt variables (after the body's).
    static constexpr std::size_t carry_wrt = runner::variable_count;

    static constexpr std::string_view name = counted ? "loop" : "while_loop";
    static constexpr bool run_time_extents = true;
    static constexpr bool derivatives_together = true;
    static constexpr std::array<std::string_view, 1> adjoint_text{
        "the steps' adjoints for k = n-1, …, 0, each from its stored carry"};

    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& s) {
        if constexpr (N != operand_count) {
            return invalid_dims;
        } else {
            return carry_fits(Body::shape, s[init_operand]) ? s[init_operand] : invalid_dims;
        }
    }
    /// When the kernel runs: the carry's shape, if the body's result has it.
    template <std::size_t N>
    static dims result_shape_at(const std::array<dims, N>& s, const std::array<double, N>& literal) {
        if constexpr (N != operand_count) {
            return invalid_dims;
        } else {
            return runner::shape_at(out, s, literal) == s[init_operand] ? s[init_operand] : invalid_dims;
        }
    }

    template <class S, class T, class... P>
    static void value(S ext, T* __restrict y, const P*... p) {
        const std::array<const T*, operand_count> ops{p...};
        const call<T> c(ext, ops);
        const std::size_t n = count(ext, ops), m = c.size_of(out);
        auto f = c.frame(runner::template buffer<chained_loop, T>(c.value_size));
        runner::copy(y, ops[init_operand], m);  // y holds the carry from step to step
        if (!runs(n)) return;
        program::template primal<nodes::once>(f);
        c.read_carry(y);
        for (std::size_t k = 0; k < trials(n); ++k) {
            c.at(k);
            program::template primal<nodes::varying>(f);
            if (!takes_step(f, k, n)) break;
            next(y, program::steps::template value_of<out>(f), m);
        }
    }

    /// Adds to every swept operand's adjoint (cb[i] non-null) at once.
    template <class S, class T, class... P>
    static void adjoint_all(S ext, const T* yb, const std::array<T*, operand_count>& cb, const T*, const P*... p) {
        const std::array<const T*, operand_count> ops{p...};
        reverse_steps<chained_loop>(
            ext, cb, ops, [&](std::size_t limit, std::size_t m, const auto& run_step, const auto& reverse_step,
                              const auto& add_to_carry_adjoint, const auto& f, const auto& keep) {
                add_to_carry_adjoint(yb);
                if (!runs(limit)) return;
                if constexpr (Checkpointed) {
                    const std::size_t checkpoints = rules::arrays::index_value(*ops[checkpoints_operand]);
                    if (!counted || checkpoints < limit) {
                        checkpointed_reverse<T>(ops[init_operand], limit, checkpoints, m, run_step, reverse_step, f);
                        return;
                    }
                }
                stored_steps_reverse<T>(ops[init_operand], limit, m, run_step, reverse_step, f, keep);
            });
    }

    /// Adds every swept operand's tangent's contribution (cd[i] non-null) to ẏ at once.
    template <class S, class T, class... P>
    static void tangent_all(S ext, T* __restrict yd, const std::array<const T*, operand_count>& cd, const T*,
                            const P*... p) {
        const T* last = nullptr;
        std::size_t m = 0;
        carry_tangents<chained_loop>(ext, cd, std::array<const T*, operand_count>{p...},
                                     [&](std::size_t, const T* tangent, std::size_t entries) {
                                         last = tangent;
                                         m = entries;
                                     });
        runner::add(yd, last, m);
    }

protected:
    /// The reverse sweep of the operation of type Owner: its frame and adjoint arrays, and
    /// `sweep(limit, m, run_step, reverse_step, add_to_carry_adjoint, f, keep)`, which
    /// seeds the carry's adjoint c̄ (`add_to_carry_adjoint`) and runs the steps' adjoints:
    /// `run_step(carry, k)` runs step k's values from its incoming carry, then
    /// `reverse_step()` its adjoint, c̄_k from c̄_{k+1}. The init's adjoint gets c̄₀.
    /// `keep` (a step_values) copies a step's values out of the frame and back, so that a
    /// sweep that kept them need not run the step again.
    template <class Owner, class S, class T, class Sweep>
    static void reverse_steps(S ext, const std::array<T*, operand_count>& cb,
                              const std::array<const T*, operand_count>& ops, const Sweep& sweep) {
        const typename runner::template call<Owner, T, program> c(ext, ops);
        const std::size_t limit = count(ext, ops), m = c.size_of(out);
        T* values = runner::template buffer<Owner, T>(c.value_size + c.derivative_size + c.variables_size + 2 * m);
        T* room = values + c.value_size + c.derivative_size;
        T* bar = room + c.variables_size;
        T* bar_before = bar + m;
        auto wrt = runner::adjoint_arrays(c, cb, room);
        auto f = c.frame(values);
        const lower::derivative_frame<T> d{wrt.data(), values + c.value_size, c.run};
        for (std::size_t e = 0; e < m; ++e) bar[e] = T(rules::scalar_t<T>(0));
        const auto run_step = [&](const T* carry, std::size_t k) {
            c.read_carry(carry);
            c.at(k);
            program::template primal<nodes::varying>(f);
        };
        const auto reverse_step = [&] {
            for (std::size_t e = 0; e < m; ++e) bar_before[e] = T(rules::scalar_t<T>(0));
            wrt[carry_wrt] = bar_before;
            const T* seeds[1] = {bar};
            program::template adjoint<nodes::varying, true, program::all_edges, step_forwards>(f, d, seeds);
            std::swap(bar, bar_before);
        };
        const auto add_to_carry_adjoint = [&](const T* v) { runner::add(bar, v, m); };
        const std::size_t value_size = c.value_size;
        const step_values keep{value_size, [=](T* to) { runner::copy(to, values, value_size); },
                               [&, values](const T* from, const T* carry, std::size_t k) {
                                   runner::copy(values, from, value_size);
                                   c.read_carry(carry);
                                   c.at(k);
                               }};
        if (runs(limit)) program::template primal<nodes::once>(f);
        sweep(limit, m, run_step, reverse_step, add_to_carry_adjoint, f, keep);
        if (cb[init_operand] != nullptr) runner::add(cb[init_operand], bar, m);
    }

    /// The carries' tangents, step by step, for the operation of type Owner: calls
    /// `each(k, ċ_k, m)` for the init's tangent (k = 0) and after each step taken (k + 1);
    /// each pointer holds until the next call.
    template <class Owner, class S, class T, class Each>
    static void carry_tangents(S ext, const std::array<const T*, operand_count>& cd,
                               const std::array<const T*, operand_count>& ops, const Each& each) {
        const typename runner::template call<Owner, T, program> c(ext, ops);
        const std::size_t n = count(ext, ops), m = c.size_of(out);
        T* values = runner::template buffer<Owner, T>(c.value_size + c.derivative_size + 3 * m);
        T* carry = values + c.value_size + c.derivative_size;
        T* carry_tangent = carry + m;
        T* next_tangent = carry_tangent + m;
        auto wrt = runner::tangent_arrays(c, cd);
        auto f = c.frame(values);
        const lower::derivative_frame<T> d{wrt.data(), values + c.value_size, c.run};
        runner::copy(carry, ops[init_operand], m);
        for (std::size_t e = 0; e < m; ++e)
            carry_tangent[e] = cd[init_operand] != nullptr ? cd[init_operand][e] : T(rules::scalar_t<T>(0));
        each(0, carry_tangent, m);
        if (!runs(n)) return;
        program::template primal<nodes::once>(f);
        c.read_carry(carry);
        for (std::size_t k = 0; k < trials(n); ++k) {
            c.at(k);
            wrt[carry_wrt] = carry_tangent;
            program::template primal<nodes::varying>(f);
            if (!takes_step(f, k, n)) break;
            program::template tangent_part<nodes::varying>(f, d);
            if constexpr (BL.live[out]) {
                runner::copy(next_tangent, program::steps::template derivative_of<out>(d), m);
            } else {
                for (std::size_t e = 0; e < m; ++e) next_tangent[e] = T(rules::scalar_t<T>(0));
            }
            next(carry, program::steps::template value_of<out>(f), m);
            std::swap(carry_tangent, next_tangent);
            each(k + 1, carry_tangent, m);
        }
    }

    /// Reverse by stored steps: a forward sweep keeps every step's incoming carry (and
    /// finds a while loop's count), then the steps' adjoints run from the last back. A
    /// counted loop whose steps' values fit in `stored_values_budget` (and one step's in
    /// `stored_step_values_limit`) also keeps them all (`keep`), and its reverse sweep
    /// copies them back instead of running each step again, as JAX's scan keeps every
    /// step's residuals; otherwise each step runs twice, holding memory to the carries.
    template <class T, class Run, class Reverse, class Frame, class Keep>
    static void stored_steps_reverse(const T* init, std::size_t limit, std::size_t m, const Run& run_step,
                                     const Reverse& reverse_step, const Frame& f, const Keep& keep) {
        T* carries = stored_carries<T>(counted ? limit : 1, m);  // step k's incoming carry at k·m
        const bool keeps_values = counted && limit > 0 && keep.size <= stored_step_values_limit / sizeof(T) &&
                                  keep.size <= stored_values_budget / sizeof(T) / limit;
        T* values = keeps_values ? thread_buffer<stored_values_of<chained_loop>, T>(limit * keep.size) : nullptr;
        runner::copy(carries, init, m);
        std::size_t n = 0;  // the steps taken
        for (; n < trials(limit); ++n) {
            run_step(carries + n * m, n);
            if (!takes_step(f, n, limit)) break;
            if (keeps_values && n + 1 < limit) keep.save(values + n * keep.size);
            if (!counted || n + 1 < limit) {
                if constexpr (!counted) carries = stored_carries<T>(n + 2, m);  // grown geometrically, kept
                runner::copy(carries + (n + 1) * m, program::steps::template value_of<out>(f), m);
            }
        }
        for (std::size_t k = n; k-- > 0;) {
            // A counted loop's last step's values are still in place; a while loop's
            // frame holds the step whose condition failed.
            if (k + 1 < n || !counted) {
                if (keeps_values) {
                    keep.restore(values + k * keep.size, carries + k * m, k);
                } else {
                    run_step(carries + k * m, k);
                }
            }
            reverse_step();
        }
    }

    /// Reverse by binomial checkpoints (loops/checkpoints.hpp), at most `checkpoints`
    /// carries kept, the init's among them; a while loop first runs forward once to
    /// count its steps.
    template <class T, class Run, class Reverse, class Frame>
    static void checkpointed_reverse(const T* init, std::size_t limit, std::size_t checkpoints, std::size_t m,
                                     const Run& run_step, const Reverse& reverse_step, const Frame& f) {
        std::size_t n = limit;
        if constexpr (!counted) {
            T* work = stored_carries<T>(1, m);
            runner::copy(work, init, m);
            for (n = 0; n < trials(limit); ++n) {
                run_step(work, n);
                if (!takes_step(f, n, limit)) break;
                next(work, program::steps::template value_of<out>(f), m);
            }
        }
        if (checkpoints >= n) return stored_steps_reverse<T>(init, n, m, run_step, reverse_step, f, no_step_values{});
        T* work = stored_carries<T>(checkpoints, m);  // a carry being advanced, then the snapshots
        T* snapshots = work + m;
        const auto slot = [&](std::size_t i) { return i == 0 ? init : snapshots + (i - 1) * m; };
        // The carry after steps [a, k) from the carry at a in slot `from`, into `into`.
        const auto advance = [&](std::size_t from, std::size_t a, std::size_t k, T* into) {
            runner::copy(into, slot(from), m);
            for (std::size_t j = a; j < k; ++j) {
                run_step(into, j);
                next(into, program::steps::template value_of<out>(f), m);
            }
        };
        binomial_reverse(
            n, checkpoints, thread_buffer<chained_loop, pending_range>(checkpoints),
            [&](std::size_t from, std::size_t a, std::size_t k, std::size_t into) {
                advance(from, a, k, snapshots + (into - 1) * m);
            },
            [&](std::size_t from, std::size_t a, std::size_t k) {
                advance(from, a, k, work);
                run_step(work, k);
                reverse_step();
            });
    }

    /// The copies of equal subexpressions that pass their adjoints on in a step's sweep.
    static constexpr auto& step_forwards = runner::template forwards_in<program, nodes::varying>;

    /// The next carry into `carry` (nothing to copy when the body returns its carry).
    template <class T>
    static void next(T* carry, const T* result, std::size_t m) {
        if (carry != result) runner::copy(carry, result, m);
    }

    /// The steps' count; a while loop's most steps (dynamic_extent: no bound).
    template <class S, class T>
    static std::size_t count(const S& ext, const std::array<const T*, operand_count>& ops) {
        return count_at<counted ? Count : count_kind::literal, operand_count>(ext, ops);
    }
    /// Whether a loop of count n runs any step's primal (a while loop's tests its init).
    static constexpr bool runs(std::size_t n) { return !counted || n > 0; }
    /// The steps whose primal may run: a bounded while loop's also the one after its
    /// last, whose condition must fail.
    static constexpr std::size_t trials(std::size_t n) { return counted || n == dynamic_extent ? n : n + 1; }

    /// Whether step k, just run (its primal in f), takes effect: always for a counted
    /// loop; for a while loop, when its condition holds on some lane, and k within its
    /// most steps n (else gradc::Error).
    template <class Frame>
    static bool takes_step(const Frame& f, std::size_t k, std::size_t n) {
        if constexpr (counted) {
            return true;
        } else {
            if (!holds_somewhere(program::steps::template entry<condition>::at(f, 0))) return false;
            if (k == n)
                throw Error("gradc::while_loop: the condition still holds after gradc::max_steps{" + std::to_string(n) +
                            "} steps; expected it to fail within them");
            return true;
        }
    }

    /// Room for `steps` stored carries of m entries on this thread, those stored kept.
    template <class T>
    static T* stored_carries(std::size_t steps, std::size_t m) {
        return thread_buffer<stored_carries_of<chained_loop>, T>(steps * m);
    }
};

/// \endcond

}  // namespace gradc::loops
