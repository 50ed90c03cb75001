#include <cstdint>
#include <cstring>
#include <exception>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/distributed/distributed_fit.hpp>
#include <laddu/distributed/mpi_collective.hpp>

namespace laddu::distributed {

namespace {

// The first entry of every broadcast command vector; the parameters follow.
enum class Command : std::uint8_t { kStop = 0, kValue = 1, kValueAndGradient = 2 };

class Writer {
public:
    void u64(std::uint64_t v) { bytes(&v, sizeof v); }

    void f64(double v) { bytes(&v, sizeof v); }

    void text(const std::string& s) {
        u64(s.size());
        out_ += s;
    }

    void doubles(const std::vector<double>& v) {
        u64(v.size());
        bytes(v.data(), v.size() * sizeof(double));
    }

    [[nodiscard]] std::string take() { return std::move(out_); }

private:
    void bytes(const void* p, std::size_t n) { out_.append(static_cast<const char*>(p), n); }

    std::string out_;
};

class Reader {
public:
    explicit Reader(const std::string& in) : in_(in) {}

    std::uint64_t u64() {
        std::uint64_t v = 0;
        bytes(&v, sizeof v);
        return v;
    }

    double f64() {
        double v = 0.0;
        bytes(&v, sizeof v);
        return v;
    }

    std::string text() {
        const auto n = static_cast<std::size_t>(u64());
        need(n);
        std::string s = in_.substr(at_, n);
        at_ += n;
        return s;
    }

    std::vector<double> doubles() {
        const auto n = static_cast<std::size_t>(u64());
        need(n * sizeof(double));
        std::vector<double> v(n);
        bytes(v.data(), n * sizeof(double));
        return v;
    }

    [[nodiscard]] bool done() const noexcept { return at_ == in_.size(); }

private:
    void need(std::size_t n) const {
        if (n > in_.size() - at_) {
            throw InternalError("a broadcast FitResult is truncated");
        }
    }

    void bytes(void* p, std::size_t n) {
        need(n);
        std::memcpy(p, in_.data() + at_, n);
        at_ += n;
    }

    const std::string& in_;
    std::size_t at_ = 0;
};

// What rank 0 broadcasts when the fit ends: a status byte, then the result or the error.
constexpr char kSucceeded = 'R';
constexpr char kFailed = 'E';

double evaluate(const fit::Objective& objective, Command command, std::span<const double> x) {
    if (command == Command::kValue && objective.value) {
        return objective.value(x);
    }
    return objective.value_and_gradient(x).value;
}

}  // namespace

std::string serialize(const fit::FitResult& result) {
    Writer w;
    w.u64(result.names.size());
    for (const std::string& name : result.names) {
        w.text(name);
    }
    w.doubles(result.start);
    w.doubles(result.values);
    w.doubles(result.uncertainties);
    w.doubles(result.covariance);
    w.doubles(result.correlation);
    w.f64(result.value);
    w.u64(result.converged ? 1 : 0);
    w.u64(static_cast<std::uint64_t>(result.termination));
    w.text(result.message);
    w.u64(result.iterations);
    w.u64(result.value_evaluations);
    w.u64(result.gradient_evaluations);
    w.f64(result.wall_seconds);
    return w.take();
}

fit::FitResult deserialize_fit_result(const std::string& bytes) {
    Reader r(bytes);
    fit::FitResult result;
    const std::uint64_t names = r.u64();
    if (names > bytes.size()) {
        throw InternalError("a broadcast FitResult is malformed");
    }
    for (std::uint64_t i = 0; i < names; ++i) {
        result.names.push_back(r.text());
    }
    result.start = r.doubles();
    result.values = r.doubles();
    result.uncertainties = r.doubles();
    result.covariance = r.doubles();
    result.correlation = r.doubles();
    result.value = r.f64();
    result.converged = r.u64() != 0;
    result.termination = static_cast<fit::Termination>(r.u64());
    result.message = r.text();
    result.iterations = static_cast<std::size_t>(r.u64());
    result.value_evaluations = static_cast<std::size_t>(r.u64());
    result.gradient_evaluations = static_cast<std::size_t>(r.u64());
    result.wall_seconds = r.f64();
    if (!r.done()) {
        throw InternalError("a broadcast FitResult has trailing bytes");
    }
    return result;
}

fit::FitResult fit(const fit::Objective& objective, std::vector<std::string> names,
                   std::span<const double> start, const fit::FitOptions& options,
                   const MpiContext& context) {
    const MpiCollective collective(context);
    // Every rank must broadcast command vectors of the same length.
    std::vector<double> dimension{static_cast<double>(objective.dimension)};
    context.broadcast(dimension);
    const bool same = dimension[0] == static_cast<double>(objective.dimension);
    collective.check_all(same, ErrorKind::kFit,
                         fmt::format("this rank's objective has {} parameters, rank 0's has {}; "
                                     "every rank must build the same likelihood",
                                     objective.dimension, dimension[0]));
    const std::size_t n = objective.dimension;
    std::vector<double> command(n + 1);

    if (context.is_root()) {
        const auto send = [&](Command c, std::span<const double> x) {
            command[0] = static_cast<double>(c);
            std::copy(x.begin(), x.end(), command.begin() + 1);
            context.broadcast(command);
        };
        fit::Objective driver = objective;
        driver.value_and_gradient = [&](std::span<const double> x) {
            send(Command::kValueAndGradient, x);
            return objective.value_and_gradient(x);
        };
        if (objective.value) {
            driver.value = [&](std::span<const double> x) {
                send(Command::kValue, x);
                return objective.value(x);
            };
        }
        std::string outcome;
        try {
            outcome = kSucceeded + serialize(fit::fit(driver, std::move(names), start, options));
        } catch (const Error& error) {
            outcome = std::string(1, kFailed) + static_cast<char>(error.kind()) + error.what();
        } catch (const std::exception& error) {
            outcome =
                std::string(1, kFailed) + static_cast<char>(ErrorKind::kInternal) + error.what();
        }
        std::fill(command.begin(), command.end(), 0.0);
        context.broadcast(command);  // kStop
        (void)context.broadcast(outcome, 0);
        if (outcome[0] == kFailed) {
            throw_error(static_cast<ErrorKind>(static_cast<unsigned char>(outcome[1])),
                        outcome.substr(2));
        }
        return deserialize_fit_result(outcome.substr(1));
    }

    for (;;) {
        context.broadcast(command);
        const auto c = static_cast<Command>(static_cast<int>(command[0]));
        if (c == Command::kStop) {
            break;
        }
        // The evaluation is a collective: rank 0 raises the same error and decides.
        try {
            (void)evaluate(objective, c, std::span<const double>(command).subspan(1));
            // NOLINTNEXTLINE(bugprone-empty-catch): see above
        } catch (const std::exception&) {
        }
    }
    const std::string outcome = context.broadcast(std::string(), 0);
    if (outcome.empty() || (outcome[0] == kFailed && outcome.size() < 2)) {
        throw InternalError("rank 0 broadcast an empty fit outcome");
    }
    if (outcome[0] == kFailed) {
        throw_error(static_cast<ErrorKind>(static_cast<unsigned char>(outcome[1])),
                    outcome.substr(2));
    }
    return deserialize_fit_result(outcome.substr(1));
}

fit::FitResult fit(const likelihood::Likelihood& likelihood, std::span<const double> start,
                   const fit::FitOptions& options, const MpiContext& context) {
    return fit(fit::objective_of(likelihood), likelihood.parameter_names(), start, options,
               context);
}

}  // namespace laddu::distributed
