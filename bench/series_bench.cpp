// `inferlint series` and `report` on a generated recording of a long run: 1,000,000
// samples (about 200 MB) by default, each beside its yardstick in the same run: series
// beside `wc -l` of the same file (target: within 3x, peak memory at most 32 MB) and beside
// two floors: a byte loop in this process that checks each line's JSON shape and converts
// no number (what any reader of the format costs before it reads a value), and simdjson
// On-Demand reading every value and doing nothing else, on one thread and on as many as
// inferlint reads a large file with (what the reader the issue asks for costs); report beside
// series (target: within 2x, peak memory at most 64 MB, page at most 3 MB). The
// Python tool too, where it is installed (inferlint-py on PATH, or INFERLINT_PY). Prints
// figures; never fails on them (timing is no test).
//
// usage: series_bench BUILD_DIR [SAMPLES] [FILE]
#include "inferlint/core/engines.hpp"
#include "inferlint/parse/series.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace inferlint;

namespace {

// A run on a pool of 52 blocks: requests grow, the cache fills, the running count falls
// back as it does when the ceiling drops, then the next wave comes in.
std::uintmax_t generate(const fs::path& path, long long samples) {
    std::FILE* out = std::fopen(path.c_str(), "wb");
    if (out == nullptr) throw std::runtime_error("cannot write " + path.string());
    std::string line = python_json_line(series_header(vllm(), "http://127.0.0.1:8000", 0.25)) + "\n";
    std::fwrite(line.data(), 1, line.size(), out);
    double generated = 0, prompt = 0, preempted = 0;
    for (long long i = 0; i < samples; ++i) {
        long long phase = i % 400;
        double running = phase < 20 ? 0.0 : static_cast<double>(std::min<long long>(10, 4 + phase / 60));
        double waiting = running > 0 ? 32.0 - running : 0.0;
        long long used = phase < 20 ? 0 : std::min<long long>(52, 20 + phase / 12);
        if (phase % 97 == 0) preempted += 1;
        generated += running;
        prompt += running > 0 ? 3.0 : 0.0;
        Json row = Json::object();
        row["t_wall"] = std::round((1790470252.238873 + 0.25 * static_cast<double>(i)) * 1e6) / 1e6;
        row["t_mono_ns"] = 208651898175LL + i * 250000000LL;
        row["running"] = running;
        row["waiting"] = waiting;
        row["kv_usage"] = static_cast<double>(used) / 52.0;
        row["preemptions"] = preempted;
        row["generation_tokens"] = generated;
        row["prompt_tokens"] = prompt;
        line = python_json_line(row);
        line += '\n';
        std::fwrite(line.data(), 1, line.size(), out);
    }
    std::fclose(out);
    return fs::file_size(path);
}

struct ChildRun {
    int status = -1;
    double wall_s = 0;
    double cpu_s = 0;  // user + system: the figure a loaded machine does not distort
    long peak_rss_kib = 0;
};

ChildRun run_child(const std::string& binary, const std::vector<std::string>& args);

// Best of three, to keep a busy machine's noise out of the figure.
ChildRun best_of_3(const std::string& binary, const std::vector<std::string>& args) {
    ChildRun best;
    for (int i = 0; i < 3; ++i) {
        ChildRun r = run_child(binary, args);
        if (i == 0 || r.wall_s < best.wall_s) best = r;
    }
    return best;
}

// The Python tool, when installed: inferlint-py on PATH or INFERLINT_PY.
std::string python_tool() {
    if (const char* env = std::getenv("INFERLINT_PY"); env != nullptr && *env != '\0') return env;
    if (const char* path = std::getenv("PATH")) {
        std::string_view rest(path);
        while (!rest.empty()) {
            auto colon = rest.find(':');
            fs::path candidate = fs::path(std::string(rest.substr(0, colon))) / "inferlint-py";
            if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
            if (colon == std::string_view::npos) break;
            rest.remove_prefix(colon + 1);
        }
    }
    return "";
}

double mib(long kib) { return static_cast<double>(kib) / 1024.0; }

// A JSON number's syntax at p (not its value): moves p past it, false if there is none.
bool skip_json_number(const char*& p, const char* end) {
    const char* q = p;
    auto digits = [&] {
        const char* d = q;
        while (q < end && *q >= '0' && *q <= '9') ++q;
        return q > d;
    };
    if (q < end && *q == '-') ++q;
    if (q < end && *q == '0')
        ++q;
    else if (!digits())
        return false;
    if (q < end && *q == '.' && (++q, !digits())) return false;
    if (q < end && (*q == 'e' || *q == 'E')) {
        ++q;
        if (q < end && (*q == '+' || *q == '-')) ++q;
        if (!digits()) return false;
    }
    p = q;
    return true;
}

// One sample line's shape: {"key": number-or-null, ...}, values converted to nothing.
bool line_shape(const char* p, const char* end) {
    auto spaces = [&] {
        while (p < end && *p == ' ') ++p;
    };
    if (p >= end || *p++ != '{') return false;
    for (;;) {
        spaces();
        if (p >= end || *p++ != '"') return false;
        while (p < end && *p != '"' && *p != '\\') ++p;
        if (p >= end || *p++ != '"') return false;
        spaces();
        if (p >= end || *p++ != ':') return false;
        spaces();
        if (end - p >= 4 && std::memcmp(p, "null", 4) == 0)
            p += 4;
        else if (!skip_json_number(p, end))
            return false;
        spaces();
        if (p < end && *p == ',') {
            ++p;
            continue;
        }
        return p < end && *p == '}';
    }
}

// Bytes [from, to) of fd (whole lines) in 1 MiB pieces: each piece's whole lines handed
// to `lines`, followed in memory by simdjson's padding; a line longer than a piece grows
// the buffer.
template <typename Lines>
void for_each_piece(int fd, std::uint64_t from, std::uint64_t to, Lines&& lines) {
    constexpr std::size_t piece = std::size_t{1} << 20;
    std::vector<char> buf(2 * piece + simdjson::SIMDJSON_PADDING);
    std::size_t have = 0;
    while (from < to) {
        if (buf.size() < have + piece + simdjson::SIMDJSON_PADDING) buf.resize(2 * buf.size());
        const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(piece, to - from));
        const ssize_t got = ::pread(fd, buf.data() + have, want, static_cast<off_t>(from));
        if (got <= 0) break;
        from += static_cast<std::uint64_t>(got);
        const std::size_t end = have + static_cast<std::size_t>(got);
        const char* last = static_cast<const char*>(::memrchr(buf.data(), '\n', end));
        const std::size_t whole = last != nullptr ? static_cast<std::size_t>(last + 1 - buf.data()) : 0;
        std::memset(buf.data() + end, 0, simdjson::SIMDJSON_PADDING);
        if (whole > 0) lines(buf.data(), whole);
        have = end - whole;
        std::memmove(buf.data(), buf.data() + whole, have);
    }
}

// The floor under any reader of this format on this machine: each line's JSON shape
// checked byte by byte, with no number converted and nothing kept. Returns how many lines
// have that shape.
long long shape_lines(int fd, std::uint64_t from, std::uint64_t to) {
    long long shaped = 0;
    for_each_piece(fd, from, to, [&](const char* line, std::size_t size) {
        const char* end = line + size;
        while (const char* nl =
                   static_cast<const char*>(std::memchr(line, '\n', static_cast<std::size_t>(end - line)))) {
            shaped += line_shape(line, nl);
            line = nl + 1;
        }
    });
    return shaped;
}

// simdjson's own cost: each piece's lines one document stream, every value read as a
// double and added up; nothing checked, nothing kept. Returns how many documents it read.
long long simdjson_values(int fd, std::uint64_t from, std::uint64_t to) {
    namespace od = simdjson::ondemand;
    od::parser parser;
    long long docs = 0;
    double sum = 0;
    for_each_piece(fd, from, to, [&](const char* lines, std::size_t size) {
        od::document_stream stream;
        if (parser.iterate_many(lines, size, std::max<std::size_t>(size, std::size_t{1} << 20)).get(stream)) return;
        for (auto doc : stream) {
            od::document_reference ref;
            od::object object;
            if (std::move(doc).get(ref) || ref.get_object().get(object)) continue;
            for (auto field : object) {
                double v = 0;
                if (!field.value().get_double().get(v)) sum += v;
            }
            ++docs;
        }
    });
    return sum == -1 ? -1 : docs;  // the sum used, so that no read is optimised away
}

// The file in `threads` ranges of whole lines, each read by `read(fd, from, to)` on a
// thread of its own, the best of three runs. Returns the wall seconds; `count` is the sum
// of what read returned.
template <typename Read>
double floor_run(const fs::path& file, int threads, Read read, long long& count) {
    const int fd = ::open(file.c_str(), O_RDONLY);
    if (fd < 0) throw std::runtime_error(file.string() + ": cannot open");
    const std::uint64_t size = fs::file_size(file);
    std::vector<std::uint64_t> cuts{0};
    for (int t = 1; t < threads; ++t) {  // each cut just after a newline
        std::uint64_t at = size * static_cast<std::uint64_t>(t) / static_cast<std::uint64_t>(threads);
        char c = 0;
        while (at < size && ::pread(fd, &c, 1, static_cast<off_t>(at)) == 1 && c != '\n') ++at;
        cuts.push_back(std::min(at + 1, size));
    }
    cuts.push_back(size);
    double best_s = 0;
    for (int run = 0; run < 3; ++run) {
        auto t0 = std::chrono::steady_clock::now();
        std::vector<long long> counts(static_cast<std::size_t>(threads));
        std::vector<std::thread> pool;
        for (std::size_t i = 0; i < counts.size(); ++i)
            pool.emplace_back([&, i] { counts[i] = read(fd, cuts[i], cuts[i + 1]); });
        for (auto& th : pool) th.join();
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        best_s = run == 0 ? s : std::min(best_s, s);
        count = 0;
        for (long long c : counts) count += c;
    }
    ::close(fd);
    return best_s;
}

ChildRun run_child(const std::string& binary, const std::vector<std::string>& args) {
    std::fflush(stdout);  // or the child would print what is still buffered here
    auto t0 = std::chrono::steady_clock::now();
    pid_t pid = ::fork();
    if (pid == 0) {
        std::FILE* null = std::freopen("/dev/null", "w", stdout);
        (void)null;
        std::vector<char*> argv;
        argv.push_back(const_cast<char*>(binary.c_str()));
        for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        ::execv(binary.c_str(), argv.data());
        std::_Exit(127);
    }
    ChildRun r;
    struct rusage usage {};
    ::wait4(pid, &r.status, 0, &usage);
    r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.peak_rss_kib = usage.ru_maxrss;
    auto secs = [](const timeval& tv) {
        return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
    };
    r.cpu_s = secs(usage.ru_utime) + secs(usage.ru_stime);
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: series_bench BUILD_DIR [SAMPLES] [FILE]\n");
        return 2;
    }
    const std::string binary = (fs::path(argv[1]) / "inferlint").string();
    const long long samples = argc > 2 ? std::stoll(argv[2]) : 1000000;
    const fs::path file = argc > 3
                              ? fs::path(argv[3])
                              : fs::temp_directory_path() / fmt::format("inferlint-bench-{}.series.jsonl", ::getpid());
    try {
        auto t0 = std::chrono::steady_clock::now();
        auto bytes = generate(file, samples);
        double gen_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double mb = static_cast<double>(bytes) / 1e6;
        fmt::print("series: generated {} samples, {:.1f} MB in {:.2f} s -> {}\n", samples, mb, gen_s, file.string());
        const std::vector<std::string> series_args{"series", file.string(), "--requested", "32", "--json"};
        ChildRun best = best_of_3(binary, series_args);
        if (!WIFEXITED(best.status) || WEXITSTATUS(best.status) > 2) {
            fmt::print(stderr, "series: inferlint failed (status {})\n", best.status);
            fs::remove(file);
            return 1;
        }
        ChildRun wc = best_of_3("/usr/bin/wc", {"-l", file.string()});
        fmt::print(
            "series: inferlint series on {:.1f} MB: {:.3f} s wall ({:.0f} MB/s), {:.3f} s CPU, peak RSS {:.1f} MB "
            "(target <= 32)\n",
            mb, best.wall_s, mb / best.wall_s, best.cpu_s, mib(best.peak_rss_kib));
        fmt::print("series: yardstick wc -l on the same file: {:.3f} s wall; ratio {:.1f}x (target <= 3)\n", wc.wall_s,
                   best.wall_s / wc.wall_s);
        long long shaped = 0;
        const double floor_s = floor_run(file, 1, shape_lines, shaped);
        fmt::print(
            "series: floor, each line's JSON shape checked byte by byte with no number converted ({} lines): "
            "{:.3f} s wall, {:.1f}x wc -l; series is {:.1f}x that\n",
            shaped, floor_s, floor_s / wc.wall_s, best.wall_s / floor_s);
        // simdjson itself, on one thread and on as many as inferlint reads with.
        const int cpus = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, 4);
        for (int threads : {1, cpus}) {
            long long docs = 0;
            const double simd_s = floor_run(file, threads, simdjson_values, docs);
            fmt::print(
                "series: simdjson floor, every value read as a number by simdjson On-Demand and nothing else, "
                "{} thread{} ({} documents): {:.3f} s wall, {:.1f}x wc -l; series is {:.1f}x that\n",
                threads, threads == 1 ? "" : "s", docs, simd_s, simd_s / wc.wall_s, best.wall_s / simd_s);
            if (cpus == 1) break;
        }
        // The report on the same recording: a page for a long run must stay small.
        const fs::path page = fs::path(file).replace_extension(".html");
        ChildRun rep =
            best_of_3(binary, {"report", "-o", page.string(), "--series", file.string(), "--requested", "32"});
        if (!WIFEXITED(rep.status) || WEXITSTATUS(rep.status) > 2) {
            fmt::print(stderr, "report: inferlint failed (status {})\n", rep.status);
        } else {
            fmt::print(
                "report: {} samples: {:.3f} s wall, {:.3f} s CPU, peak RSS {:.1f} MB (target <= 64), page {:.2f} MB "
                "(target <= 3)\n",
                samples, rep.wall_s, rep.cpu_s, mib(rep.peak_rss_kib), static_cast<double>(fs::file_size(page)) / 1e6);
            fmt::print("report: yardstick inferlint series on the same file: {:.3f} s; ratio {:.1f}x (target <= 2)\n",
                       best.wall_s, rep.wall_s / best.wall_s);
        }
        fs::remove(page);
        if (std::string py = python_tool(); py.empty()) {
            fmt::print("series: Python inferlint not found (inferlint-py or INFERLINT_PY): skipped\n");
        } else {
            ChildRun p = run_child(py, series_args);
            fmt::print(
                "series: Python inferlint series on the same file: {:.3f} s, peak RSS {:.1f} MB; ratio {:.1f}x\n",
                p.wall_s, mib(p.peak_rss_kib), p.wall_s / best.wall_s);
        }
        // And on the recorded vLLM 0.28 run, when the reference's evidence is beside the clone.
        const fs::path live =
            fs::path(INFERLINT_BENCH_SOURCE_DIR) / ".." / "shared" / "reference" / "fixtures" / "vllm-0.28" / "live";
        if (fs::is_directory(live)) {
            const fs::path out = fs::temp_directory_path() / fmt::format("inferlint-bench-{}-live.html", ::getpid());
            ChildRun lr = run_child(binary, {"report", live.string(), "-o", out.string(), "--requested", "32"});
            if (WIFEXITED(lr.status) && WEXITSTATUS(lr.status) <= 2 && fs::exists(out))
                fmt::print("report: vllm-0.28/live: {:.3f} s wall, {:.3f} s CPU, peak RSS {:.1f} MB, page {:.0f} kB\n",
                           lr.wall_s, lr.cpu_s, static_cast<double>(lr.peak_rss_kib) / 1024.0,
                           static_cast<double>(fs::file_size(out)) / 1e3);
            fs::remove(out);
        }
    } catch (const std::exception& e) {
        fmt::print(stderr, "series: {}\n", e.what());
        if (argc <= 3) fs::remove(file);
        return 1;
    }
    if (argc <= 3) fs::remove(file);
    return 0;
}
