#pragma once
/// \file
/// The rule table: one definition per primitive, with its local partial derivatives.

#include <gradc/rules/compare.hpp>
#include <gradc/rules/dual.hpp>
#include <gradc/rules/list.hpp>
#include <gradc/rules/partial.hpp>
#include <gradc/rules/rule.hpp>
#include <gradc/rules/table.hpp>
#include <gradc/rules/value_traits.hpp>
