#pragma once
/// `SmallVector<T, N>`: a std::vector-like sequence whose first N elements live inside the
/// object. Tensor shapes and strides, a node's edges and the engine's gradient buffers
/// almost always fit, so creating a tensor or recording an operation on small tensors
/// needs no separate heap block for them; past N it moves to the heap like a vector.
/// Iterators are pointers; the interface is the subset of std::vector the library uses.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace gradc {

template <class T, std::size_t N>
class SmallVector {
    static_assert(N > 0, "SmallVector: the inline capacity must be at least 1");

public:
    using value_type = T;
    using size_type = std::size_t;
    using difference_type = std::ptrdiff_t;
    using reference = T&;
    using const_reference = const T&;
    using pointer = T*;
    using const_pointer = const T*;
    using iterator = T*;
    using const_iterator = const T*;
    using reverse_iterator = std::reverse_iterator<iterator>;
    using const_reverse_iterator = std::reverse_iterator<const_iterator>;

    SmallVector() noexcept : data_(inline_data()) {}
    explicit SmallVector(size_type n) : SmallVector() { resize(n); }
    SmallVector(size_type n, const T& value) : SmallVector() { assign(n, value); }
    SmallVector(std::initializer_list<T> init) : SmallVector() { assign(init.begin(), init.end()); }
    template <class It, class = typename std::iterator_traits<It>::iterator_category>
    SmallVector(It first, It last) : SmallVector() {
        assign(first, last);
    }
    SmallVector(const SmallVector& other) : SmallVector() { assign(other.begin(), other.end()); }
    SmallVector(SmallVector&& other) noexcept(std::is_nothrow_move_constructible_v<T>) : SmallVector() {
        take(std::move(other));
    }
    SmallVector& operator=(const SmallVector& other) {
        if (this != &other) assign(other.begin(), other.end());
        return *this;
    }
    SmallVector& operator=(SmallVector&& other) noexcept(std::is_nothrow_move_constructible_v<T>) {
        if (this != &other) {
            clear();
            release_heap();
            take(std::move(other));
        }
        return *this;
    }
    SmallVector& operator=(std::initializer_list<T> init) {
        assign(init.begin(), init.end());
        return *this;
    }
    ~SmallVector() {
        clear();
        release_heap();
    }

    /// A std::vector with the same elements.
    std::vector<T> to_vector() const { return std::vector<T>(begin(), end()); }

    // ---- access ---------------------------------------------------------------------
    size_type size() const noexcept { return size_; }
    size_type capacity() const noexcept { return capacity_; }
    bool empty() const noexcept { return size_ == 0; }
    T* data() noexcept { return data_; }
    const T* data() const noexcept { return data_; }
    T& operator[](size_type i) noexcept { return data_[i]; }
    const T& operator[](size_type i) const noexcept { return data_[i]; }
    T& at(size_type i) {
        check_index(i);
        return data_[i];
    }
    const T& at(size_type i) const {
        check_index(i);
        return data_[i];
    }
    T& front() noexcept { return data_[0]; }
    const T& front() const noexcept { return data_[0]; }
    T& back() noexcept { return data_[size_ - 1]; }
    const T& back() const noexcept { return data_[size_ - 1]; }
    iterator begin() noexcept { return data_; }
    iterator end() noexcept { return data_ + size_; }
    const_iterator begin() const noexcept { return data_; }
    const_iterator end() const noexcept { return data_ + size_; }
    const_iterator cbegin() const noexcept { return data_; }
    const_iterator cend() const noexcept { return data_ + size_; }
    reverse_iterator rbegin() noexcept { return reverse_iterator(end()); }
    reverse_iterator rend() noexcept { return reverse_iterator(begin()); }
    const_reverse_iterator rbegin() const noexcept { return const_reverse_iterator(end()); }
    const_reverse_iterator rend() const noexcept { return const_reverse_iterator(begin()); }

    // ---- modification ---------------------------------------------------------------
    void reserve(size_type n) {
        if (n > capacity_) grow_to(n);
    }
    void clear() noexcept {
        std::destroy(begin(), end());
        size_ = 0;
    }
    template <class It>
    void assign(It first, It last) {
        clear();
        if constexpr (std::is_base_of_v<std::forward_iterator_tag, typename std::iterator_traits<It>::iterator_category>)
            reserve(static_cast<size_type>(std::distance(first, last)));
        for (; first != last; ++first) emplace_back(*first);
    }
    void assign(size_type n, const T& value) {
        clear();
        reserve(n);
        std::uninitialized_fill_n(data_, n, value);
        size_ = static_cast<std::uint32_t>(n);
    }
    void assign(std::initializer_list<T> init) { assign(init.begin(), init.end()); }
    void push_back(const T& value) { emplace_back(value); }
    void push_back(T&& value) { emplace_back(std::move(value)); }
    template <class... Args>
    T& emplace_back(Args&&... args) {
        if (size_ == capacity_) {
            // The argument may refer to an element of this vector: build it first.
            T tmp(std::forward<Args>(args)...);
            grow_to(grown_capacity(size_ + 1));
            ::new (static_cast<void*>(data_ + size_)) T(std::move(tmp));
        } else {
            ::new (static_cast<void*>(data_ + size_)) T(std::forward<Args>(args)...);
        }
        return data_[size_++];
    }
    void pop_back() noexcept {
        --size_;
        std::destroy_at(data_ + size_);
    }
    void resize(size_type n) {
        if (n < size_) {
            std::destroy(data_ + n, end());
        } else if (n > size_) {
            reserve(n);
            std::uninitialized_value_construct(data_ + size_, data_ + n);
        }
        size_ = static_cast<std::uint32_t>(n);
    }
    void resize(size_type n, const T& value) {
        if (n < size_) {
            std::destroy(data_ + n, end());
        } else if (n > size_) {
            const T copy = value;
            reserve(n);
            std::uninitialized_fill(data_ + size_, data_ + n, copy);
        }
        size_ = static_cast<std::uint32_t>(n);
    }
    iterator insert(const_iterator pos, const T& value) { return insert(pos, &value, &value + 1); }
    iterator insert(const_iterator pos, size_type n, const T& value) {
        const std::vector<T> copies(n, value);
        return insert(pos, copies.begin(), copies.end());
    }
    iterator insert(const_iterator pos, std::initializer_list<T> init) { return insert(pos, init.begin(), init.end()); }
    /// Inserts [first, last) before pos (the range may come from this vector).
    template <class It, class = typename std::iterator_traits<It>::iterator_category>
    iterator insert(const_iterator pos, It first, It last) {
        const size_type at = static_cast<size_type>(pos - begin());
        SmallVector tail;
        tail.assign(first, last);
        const size_type n = tail.size();
        reserve(size_ + n);
        // Open a gap of n elements at `at`, moving the suffix from the back.
        const size_type old = size_;
        for (size_type i = old; i-- > at;) {
            if (i + n >= old) ::new (static_cast<void*>(data_ + i + n)) T(std::move(data_[i]));
            else data_[i + n] = std::move(data_[i]);
        }
        for (size_type k = 0; k < n; ++k) {
            if (at + k >= old) ::new (static_cast<void*>(data_ + at + k)) T(std::move(tail[k]));
            else data_[at + k] = std::move(tail[k]);
        }
        size_ = static_cast<std::uint32_t>(old + n);
        return data_ + at;
    }
    iterator erase(const_iterator pos) { return erase(pos, pos + 1); }
    iterator erase(const_iterator first, const_iterator last) {
        T* f = data_ + (first - begin());
        T* l = data_ + (last - begin());
        T* new_end = std::move(l, end(), f);
        std::destroy(new_end, end());
        size_ = static_cast<std::uint32_t>(new_end - data_);
        return f;
    }
    void swap(SmallVector& other) noexcept(std::is_nothrow_move_constructible_v<T>) {
        SmallVector tmp(std::move(other));
        other = std::move(*this);
        *this = std::move(tmp);
    }

    friend bool operator==(const SmallVector& a, const SmallVector& b) {
        return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
    }
    friend bool operator==(const SmallVector& a, const std::vector<T>& b) {
        return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
    }
    friend bool operator<(const SmallVector& a, const SmallVector& b) {
        return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
    }

private:
    T* inline_data() noexcept { return std::launder(reinterpret_cast<T*>(inline_)); }
    bool on_heap() const noexcept { return capacity_ > N; }
    void check_index(size_type i) const {
        if (i >= size_)
            throw std::out_of_range("SmallVector::at: index " + std::to_string(i) + " out of range for size " +
                                    std::to_string(size_));
    }
    size_type grown_capacity(size_type needed) const { return std::max<size_type>(needed, size_type{capacity_} * 2); }
    void grow_to(size_type n) {
        T* fresh = std::allocator<T>().allocate(n);
        std::uninitialized_move(begin(), end(), fresh);
        std::destroy(begin(), end());
        release_heap();
        data_ = fresh;
        capacity_ = static_cast<std::uint32_t>(n);
    }
    void release_heap() noexcept {
        if (on_heap()) std::allocator<T>().deallocate(data_, capacity_);
        data_ = inline_data();
        capacity_ = static_cast<std::uint32_t>(N);
    }
    // Takes other's elements (other must be empty of heap or of elements beforehand: this is).
    void take(SmallVector&& other) {
        if (other.on_heap()) {
            data_ = other.data_;
            size_ = other.size_;
            capacity_ = other.capacity_;
            other.data_ = other.inline_data();
            other.size_ = 0;
            other.capacity_ = static_cast<std::uint32_t>(N);
        } else {
            std::uninitialized_move(other.begin(), other.end(), data_);
            size_ = other.size_;
            other.clear();
        }
    }

    T* data_;
    std::uint32_t size_ = 0;
    std::uint32_t capacity_ = static_cast<std::uint32_t>(N);
    alignas(T) unsigned char inline_[N * sizeof(T)];
};

}  // namespace gradc
