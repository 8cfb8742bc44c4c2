// gradc's GradBench tool: how an eval's functions are registered and timed.
//
// GradBench's protocol (python/gradbench/gradbench/eval.py in GradBench) times two things
// per input: "prepare" (work done once per input: parsing, building tensors or kernels) and
// "evaluate" (the function itself, repeated for min_runs and min_seconds). Each function
// of an eval is therefore split in two: `prepare` reads the input and returns a `Prepared`,
// whose `evaluate` runs the function once and whose `output` turns the last result into
// the JSON the eval expects (not timed).
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <string>

namespace gradbench {

using json = nlohmann::json;

struct Prepared {
  std::function<void()> evaluate;
  std::function<json()> output;
};

using PrepareFunction = std::function<Prepared(const json& input)>;

/// The functions of one eval (GradBench calls it a module), by their protocol names.
using Module = std::map<std::string, PrepareFunction>;

/// Which of gradc's modes answers an eval.
enum class AnsweredBy { static_mode, dynamic_mode };

/// Adds an eval's functions as answered by `mode`; each eval's file calls it from a
/// namespace-scope initialiser. An eval answered both ways registers both, and names the
/// one the tool answers with by default (`default_answer`): the faster as measured
/// (docs/benchmarks.md, "GradBench").
bool register_module(const std::string& name, Module functions, AnsweredBy mode = AnsweredBy::dynamic_mode,
                     bool default_answer = true);

/// The eval named `name`, or nullptr: the variant of the mode GRADC_GRADBENCH_MODE names
/// ("static" or "dynamic") where the eval has one, else its default.
const Module* find_module(const std::string& name);

/// True when the tool runs with GradBench's --multithreaded (the environment variable
/// GRADC_GRADBENCH_THREADS is above 1); evals that can use oneTBB then do.
bool multithreaded();

}  // namespace gradbench
