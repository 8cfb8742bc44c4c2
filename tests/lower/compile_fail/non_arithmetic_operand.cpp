// expect: gradc: an operand of '*' is neither a gradc expression nor a number
#include <string>
#include <gradc/gradc.hpp>
int main() {
    auto [x] = gradc::variables<1>();
    auto e = x * std::string("two");
    (void)e;
}
