#include <exception>

#include <laddu/runtime/collective.hpp>

namespace laddu::runtime {

void collectively(const Collective* collective, const std::function<void()>& fn,
                  std::uint64_t fingerprint) {
    if (collective == nullptr) {
        fn();
        return;
    }
    // check_all(false, ...) throws the lowest failing rank's error on every rank, so the
    // rethrows below only run if a Collective breaks that contract.
    try {
        fn();
    } catch (const Error& error) {
        collective->check_all(false, error.kind(), error.what());
        throw;
    } catch (const std::exception& error) {
        collective->check_all(false, ErrorKind::kInternal, error.what());
        throw;
    } catch (...) {
        collective->check_all(false, ErrorKind::kInternal,
                              "an exception not derived from std::exception");
        throw;
    }
    collective->check_all(true, ErrorKind::kInternal, {}, fingerprint);
}

}  // namespace laddu::runtime
