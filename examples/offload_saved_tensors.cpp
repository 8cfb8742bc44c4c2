// Offloading large saved tensors to disk (docs/dynamic.md, "Saved tensors"): a
// SavedTensorsHooks guard packs every tensor saved for backward with at least
// kThreshold elements into a temporary file that deletes itself when the graph frees it,
// and unpacks it from there whenever backward needs it. Small tensors stay in memory.
// The gradients equal those computed without the hooks.
#include <any>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <gradc/autograd.hpp>

using gradc::Tensor;

namespace {

constexpr std::int64_t kThreshold = 1000;

// The notes' SelfDeletingTempFile: the file lives as long as this object.
class SelfDeletingTempFile {
public:
    explicit SelfDeletingTempFile(const Tensor& t) : sizes_(t.sizes()) {
        static std::atomic<int> counter{0};
        path_ = std::filesystem::temp_directory_path() /
                ("gradc_offload_" + std::to_string(reinterpret_cast<std::uintptr_t>(this)) + "_" +
                 std::to_string(counter++) + ".bin");
        const Tensor c = t.to(gradc::kFloat64).contiguous();
        std::ofstream out(path_, std::ios::binary);
        out.write(reinterpret_cast<const char*>(c.data_ptr<double>()),
                  static_cast<std::streamsize>(c.numel() * static_cast<std::int64_t>(sizeof(double))));
        if (!out) throw std::runtime_error("cannot write " + path_.string());
    }
    ~SelfDeletingTempFile() {
        std::error_code ec;
        std::filesystem::remove(path_, ec);
    }
    SelfDeletingTempFile(const SelfDeletingTempFile&) = delete;
    SelfDeletingTempFile& operator=(const SelfDeletingTempFile&) = delete;

    Tensor load() const {
        std::int64_t n = 1;
        for (auto d : sizes_) n *= d;
        std::vector<double> v(static_cast<std::size_t>(n));
        std::ifstream in(path_, std::ios::binary);
        in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(n * static_cast<std::int64_t>(sizeof(double))));
        if (!in) throw std::runtime_error("cannot read " + path_.string());
        return gradc::from_vector(v, sizes_);
    }
    const std::filesystem::path& path() const { return path_; }

private:
    gradc::Shape sizes_;
    std::filesystem::path path_;
};

int files_written = 0, files_read = 0, kept_in_memory = 0;
std::vector<std::filesystem::path> offloaded;

std::any pack_hook(const Tensor& t) {
    if (t.numel() < kThreshold) {
        ++kept_in_memory;
        return t;
    }
    ++files_written;
    auto file = std::make_shared<SelfDeletingTempFile>(t);
    offloaded.push_back(file->path());
    return file;
}

Tensor unpack_hook(const std::any& packed) {
    if (const auto* t = std::any_cast<Tensor>(&packed)) return *t;
    ++files_read;
    return std::any_cast<std::shared_ptr<SelfDeletingTempFile>>(packed)->load();
}

// A small two-layer computation on a large activation.
Tensor model(const Tensor& x, const Tensor& w) {
    Tensor h = gradc::tanh(x * w);        // saves the large x, w and the result
    Tensor g = gradc::sin(h) * gradc::exp(-h * h);
    return (g * g).sum();
}

}  // namespace

int main() {
    // Computes in double, as numerical code does; gradc's default (LibTorch's) is float32.
    gradc::set_default_dtype(gradc::kFloat64);
    gradc::manual_seed(7);
    const std::int64_t n = 20000;
    Tensor x = gradc::randn({n}, gradc::requires_grad());
    Tensor w = gradc::randn({1}, gradc::requires_grad());

    // Reference gradients without hooks.
    model(x, w).backward();
    const Tensor gx_ref = x.grad().clone(), gw_ref = w.grad().clone();
    x.mutable_grad() = Tensor();
    w.mutable_grad() = Tensor();

    Tensor loss;
    {
        gradc::autograd::SavedTensorsHooks guard(pack_hook, unpack_hook);
        loss = model(x, w);
    }
    std::cout << "forward: " << files_written << " saved tensors offloaded to disk, " << kept_in_memory
              << " kept in memory\n";
    loss.backward();
    std::cout << "backward: " << files_read << " reads from disk\n";

    const double dx = (x.grad() - gx_ref).abs().max().item<double>();
    const double dw = (w.grad() - gw_ref).abs().max().item<double>();
    std::cout << "max |grad difference|: x " << dx << ", w " << dw << "\n";

    // After backward the saved tensors (and so the temporary files) are gone.
    bool leftover = false;
    for (const auto& p : offloaded) leftover = leftover || std::filesystem::exists(p);
    std::cout << "temporary files left after backward: " << (leftover ? "some" : "none") << "\n";

    const bool ok = files_written > 0 && files_read == files_written && dx == 0.0 && dw == 0.0 && !leftover;
    std::cout << (ok ? "ok" : "FAILED") << "\n";
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
