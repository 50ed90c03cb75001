#include <new>

#include <laddu/base/aligned.hpp>

#include <sys/mman.h>

namespace laddu {

static_assert(kMappedColumnBytes % kColumnAlignment == 0, "mapped blocks are column-aligned");

void* map_column(std::size_t bytes) {
    void* block =
        ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (block == MAP_FAILED) {
        throw std::bad_alloc();
    }
    return block;
}

void unmap_column(void* block, std::size_t bytes) noexcept {
    ::munmap(block, bytes);
}

}  // namespace laddu
