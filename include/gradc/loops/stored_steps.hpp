#pragma once
/// \file
/// What a chained loop's reverse sweep by stored steps keeps (loops/chained_loop.hpp):
/// every step's incoming carry, and, within a budget, every step's values, so that the
/// sweep copies them back instead of running each step again (as JAX's scan keeps every
/// step's residuals). Past the budget each step runs twice and memory holds the carries
/// alone; `gradc::checkpoints{s}` bounds it to s carries (loops/checkpoints.hpp).

#include <cstddef>

namespace gradc::loops {

/// \cond INTERNAL

/// The owner of a chained loop's stored carries (a thread buffer of their own, which a
/// while loop grows as it steps).
template <class Loop>
struct stored_carries_of {};
/// The tag of a loop's buffer of its steps' values (the frames of its stored steps).
template <class Loop>
struct stored_values_of {};

/// The most memory, in bytes per call and thread, that a loop's reverse sweep keeps of
/// its steps' values (loops/chained_loop.hpp, `stored_steps_reverse`): 256 MiB, which
/// an LSTM's thousands of steps or an ODE's hundreds of small ones take, while an ODE
/// of 10⁵ states over 100 steps (3 GB of values) keeps its carries alone.
inline constexpr std::size_t stored_values_budget = std::size_t(256) << 20;
/// The most memory, in bytes, of one step's values that the sweep keeps: a step whose
/// values pass it (an ODE's stages over 10⁴ states, 3 MB) is bound by memory in its own
/// primal, and copying its values back cost more than running it again (GradBench's ode
/// at n = 10⁴, s = 10: 4.8–5.8 ms kept, 2.9–3.2 ms run again); an LSTM's step, a few
/// hundred values and transcendental functions, is 16 % faster kept.
inline constexpr std::size_t stored_step_values_limit = std::size_t(64) << 10;

/// Copies a step's values (the frame's `size` values) out (`save(to)`) and back
/// (`restore(from, carry, k)`, which also points the frame at step k's carry and counter).
template <class Save, class Restore>
struct step_values {
    std::size_t size;
    Save save;
    Restore restore;
};
template <class Save, class Restore>
step_values(std::size_t, Save, Restore) -> step_values<Save, Restore>;
/// No step's values kept (a checkpointed sweep keeps carries alone).
struct no_step_values {
    static constexpr std::size_t size = std::size_t(-1) / 2;  // beyond every budget
    template <class T>
    void save(T*) const {}
    template <class T>
    void restore(const T*, const T*, std::size_t) const {}
};

/// \endcond

}  // namespace gradc::loops
