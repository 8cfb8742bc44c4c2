// expect: f(k) must return a gradc expression
#include <gradc/gradc.hpp>

int main() {
    // A body that returns a number, not an expression of the kernel's variables.
    const auto e = gradc::sum_over(3, [](auto) { return 1.0; });
    (void)e;
}
