#pragma once
// The message of the gradc::Error a call throws, or "no error" when it throws none: for
// the tests that check what a bad argument or a bad extent is told.
#include <string>

#include <gradc/error.hpp>

namespace sample {

template <class Call>
std::string error_of(const Call& call) {
    try {
        call();
    } catch (const gradc::Error& e) {
        return e.what();
    }
    return "no error";
}

}  // namespace sample
