#pragma once
/// \file
/// Expression templates: variables, literals, nodes and the operators that build them.

#include <gradc/expr/array_functions.hpp>
#include <gradc/expr/functions.hpp>
#include <gradc/expr/nodes.hpp>
#include <gradc/expr/operators.hpp>
#include <gradc/expr/variables.hpp>
