// expect: gradc: W(i, j) needs a matrix W
// A scalar node has no entries: W(i, j) of one does not compile, with the message of
// the array nodes' element access (a scalar node's base is no_entry_access).
#include <gradc/gradc.hpp>

int main() {
    auto [x, y] = gradc::variables<2>();
    auto f = (sin(x) * y)(0, 1) + x;
    (void)f;
}
