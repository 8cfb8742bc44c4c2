// gradc's GradBench tool: one process answers a whole eval, one JSON message a line.
//
// The messages (GradBench's protocol, python/gradbench/gradbench/eval.py):
//   start    -> {"id", "tool": "gradc"}
//   define   -> {"id", "success"} (success when this tool has the module)
//   evaluate -> {"id", "success", "output", "timings": [prepare, evaluate...]}
//   analysis -> {"id"}
// An exception while preparing or evaluating answers {"success": false, "error": what}
// and the tool goes on with the next message.
#include "eval_registry.hpp"

#include <gradc/autograd/dtype.hpp>
#include <gradc/parallel/threads.hpp>

#include <chrono>
#include <exception>
#include <iostream>
#include <string>

namespace {

using gradbench::json;
using clock_type = std::chrono::steady_clock;

long long nanoseconds_since(clock_type::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(clock_type::now() - start).count();
}

json timing(const char* name, long long nanoseconds) {
  return json{{"name", name}, {"nanoseconds", nanoseconds}};
}

json evaluate(const json& message) {
  const std::string module_name = message.at("module");
  const std::string function_name = message.at("function");
  const gradbench::Module* module = gradbench::find_module(module_name);
  if (module == nullptr) throw std::runtime_error("gradc has no eval named " + module_name);
  auto function = module->find(function_name);
  if (function == module->end())
    throw std::runtime_error("gradc's " + module_name + " has no function named " + function_name);

  const json& input = message.at("input");
  const int min_runs = input.contains("min_runs") ? input["min_runs"].get<int>() : 1;
  const double min_seconds = input.contains("min_seconds") ? input["min_seconds"].get<double>() : 0.0;

  json timings = json::array();
  auto prepare_start = clock_type::now();
  gradbench::Prepared prepared = function->second(input);
  timings.push_back(timing("prepare", nanoseconds_since(prepare_start)));

  double elapsed = 0;
  for (int run = 0; run < min_runs || elapsed < min_seconds; ++run) {
    auto start = clock_type::now();
    prepared.evaluate();
    const long long taken = nanoseconds_since(start);
    timings.push_back(timing("evaluate", taken));
    elapsed += double(taken) * 1e-9;
  }
  return json{{"success", true}, {"output", prepared.output()}, {"timings", timings}};
}

json answer(const json& message) {
  json response{{"id", message.at("id")}};
  const std::string kind = message.at("kind");
  try {
    if (kind == "start") {
      response["tool"] = "gradc";
    } else if (kind == "define") {
      const std::string name = message.at("module");
      const bool known = gradbench::find_module(name) != nullptr;
      response["success"] = known;
      if (!known) response["error"] = "gradc has no eval named " + name;
    } else if (kind == "evaluate") {
      response.update(evaluate(message));
    }
  } catch (const std::exception& error) {
    response["success"] = false;
    response["error"] = error.what();
  }
  return response;
}

}  // namespace

int main() {
  std::ios::sync_with_stdio(false);
  // GradBench compares tools on one thread unless it runs them with --multithreaded.
  gradc::set_num_threads(gradbench::multithreaded() ? gradc::available_cores() : 1);
  // Every input and output of GradBench is double (LibTorch's default dtype is float32).
  gradc::set_default_dtype(gradc::kFloat64);
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    std::cout << answer(json::parse(line)).dump() << std::endl;
  }
  return 0;
}
