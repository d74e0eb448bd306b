// Every tripwire, watched failing: each row runs a whole command on real recorded evidence,
// then on a copy with one number or line changed, and requires the verdict to flip. This
// shows each check can fail as well as pass (and that an absent input is "can't tell",
// never a pass). The rows follow the Python tool's own mutation table.
#include "support.hpp"

#include "inferlint/util/files.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using Edit = std::function<std::string(const std::string&)>;

std::string ident(const std::string& s) { return s; }

using testsupport::each_line;

// Replaces every occurrence of `from` on lines that start with `prefix` ("" for any line).
Edit replace(std::string from, std::string to, std::string prefix = "") {
    return [=](const std::string& text) {
        int n = 0;
        std::string out = each_line(text, [&](std::string& line) {
            if (line.starts_with(prefix))
                for (auto at = line.find(from); at != std::string::npos; at = line.find(from, at + to.size())) {
                    line.replace(at, from.size(), to);
                    ++n;
                }
            return true;
        });
        INFO("replace " << from << " -> " << to);
        REQUIRE(n > 0);  // the fixture changed under the test
        return out;
    };
}

// Drops every line that contains one of `words` (or, with starts, begins with one).
Edit drop_lines(std::vector<std::string> words, bool starts = false) {
    return [=](const std::string& text) {
        int dropped = 0;
        std::string out = each_line(text, [&](std::string& line) {
            for (const auto& w : words)
                if (starts ? line.starts_with(w) : line.find(w) != std::string::npos) {
                    ++dropped;
                    return false;
                }
            return true;
        });
        INFO("drop lines with " << words.front());
        REQUIRE(dropped > 0);
        return out;
    };
}

fs::path scratch_dir() { return testsupport::scratch_dir("mutations"); }

// A copy of `src` edited: a plain file's text, or a snapshot file's "text" field.
fs::path edited(const fs::path& src, const Edit& edit, const fs::path& dir) {
    std::string text = inferlint::util::read_file(src);
    fs::path out = dir / src.filename();
    if (src.string().ends_with(".snapshot.json")) {
        json doc = json::parse(text);
        doc["text"] = edit(doc["text"].get<std::string>());
        text = doc.dump();
    } else {
        text = edit(text);
    }
    inferlint::util::write_file(out, text);
    return out;
}

// Runs the command with --json and returns the named tripwire's status ("" if absent).
std::string status_of(const std::vector<std::string>& args, const std::string& tripwire) {
    std::vector<std::string> a = args;
    a.push_back("--json");
    auto r = testsupport::run_cli(a);
    INFO(fmt::format("inferlint {} -> {}\n{}{}", fmt::join(a, " "), r.rc, r.out, r.err));
    json results;
    try {
        results = json::parse(r.out);
    } catch (const std::exception&) {
        FAIL("not JSON");
    }
    for (const auto& x : results)
        if (x["tripwire"] == tripwire) return x["status"];
    return "";
}

struct Mutant {
    std::string id;
    std::string tripwire;
    std::string baseline;
    std::string mutated;
    // Given the edit, builds the command line (files edited into the given folder).
    std::function<std::vector<std::string>(const Edit&, const fs::path&)> command;
    Edit edit;
    std::string mutated_tripwire = "";  // when the verdict after the edit is another tripwire's
};

}  // namespace

TEST_CASE("mutations: one changed number or line flips each tripwire's verdict", "[mutations][shared]") {
    REQUIRE_REFERENCE(root);
    const fs::path v28 = root / "vllm-0.28", sgl = root / "sglang-0.5", trt = root / "trtllm-1.3";
    const fs::path live30 = root / "vllm-0.30" / "live";

    auto t1 = [&](std::string before, std::string after) {
        return [=](const Edit& e, const fs::path& d) {
            return std::vector<std::string>{"preemption", (v28 / "metrics" / before).string(),
                                            edited(v28 / "metrics" / after, e, d).string()};
        };
    };
    auto two_logs = [&](fs::path first, fs::path second) {  // the edit goes to the second
        return [=](const Edit& e, const fs::path& d) {
            return std::vector<std::string>{"check-log", first.string(), edited(second, e, d).string()};
        };
    };
    auto one_log = [&](fs::path log) {
        return [=](const Edit& e, const fs::path& d) {
            return std::vector<std::string>{"check-log", edited(log, e, d).string()};
        };
    };
    auto t15 = [&](fs::path run) {  // the load tool's result against the server's counters
        return [=](const Edit& e, const fs::path& d) {
            return std::vector<std::string>{"report",
                                            "-o",
                                            (d / "report.html").string(),
                                            "--before",
                                            (run / "before.snapshot.json").string(),
                                            "--after",
                                            (run / "after.snapshot.json").string(),
                                            "--bench-result",
                                            edited(run / "bench.json", e, d).string()};
        };
    };
    auto t14 = [&](const Edit& e, const fs::path& d) {
        return std::vector<std::string>{"series", (v28 / "series" / "blocks.series.jsonl").string(), "--snapshot",
                                        edited(v28 / "series" / "blocks_snapshot.prom", e, d).string()};
    };
    const std::string preempt = "vllm:num_preemptions_total";

    const std::vector<Mutant> mutants = {
        // T1: 60 preemptions; make the after-count equal the before-count
        {"T1-count", "T1", "fail", "pass", t1("preempted_before.prom", "preempted_after.prom"),
         replace("} 166.0", "} 106.0", preempt)},
        // T1: the counter gone is "can't tell", never a pass
        {"T1-absent", "T1", "fail", "unknown", t1("preempted_before.prom", "preempted_after.prom"),
         drop_lines({preempt}, true)},
        {"T4", "T4", "warn", "pass", two_logs(v28 / "boot_pool_level_hi.log", v28 / "boot_pool_level_lo.log"),
         replace("GPU KV cache size: 12,405", "GPU KV cache size: 13,575")},
        {"T5", "T5", "warn", "pass", one_log(v28 / "boot_eager.log"),
         replace("Setting attention block size to 784", "Setting attention block size to 16")},
        {"T6", "T6", "fail", "pass", one_log(v28 / "boot_spec_backend_override.log"),
         replace("Using FLASHINFER attention backend", "Using TRITON_ATTN attention backend")},
        {"T11", "T11", "warn", "pass", two_logs(v28 / "boot_pool_level_hi.log", v28 / "boot_pool_level_lo.log"),
         replace("Available KV cache memory: 1.44", "Available KV cache memory: 1.59")},
        {"T12", "T12", "fail", "pass", one_log(v28 / "boot_fail_accelerator.log"), drop_lines({"Error", "Traceback"})},
        // a failure while serving is T7; with its lines gone the log has no failure (T12 passes)
        {"T7", "T7", "fail", "pass", one_log(v28 / "boot_spec_backend_override.log"),
         drop_lines({" ERROR ", "Traceback"}), "T12"},
        {"T14", "T14", "pass", "fail", t14, replace("num_gpu_blocks=\"45\"", "num_gpu_blocks=\"44\"")},
        {"T14-absent", "T14", "pass", "unknown", t14, replace("num_gpu_blocks=\"45\",", "")},
        // T15: the client reports 2 fewer requests than the server finished: other traffic
        {"T15", "T15", "pass", "fail", t15(live30), replace("\"completed\": 32,", "\"completed\": 30,")},
        {"T15-over", "T15", "pass", "fail", t15(live30), replace("\"completed\": 32,", "\"completed\": 34,")},
        {"T15-absent", "T15", "pass", "unknown", t15(live30), replace("\"completed\": 32, ", "")},
        // SGLang exports its retraction counter only after the first retraction
        {"sglang-T1", "T1", "fail", "pass",
         [&](const Edit& e, const fs::path& d) {
             return std::vector<std::string>{"preemption", (sgl / "retraction" / "before.snapshot.json").string(),
                                             edited(sgl / "retraction" / "after.snapshot.json", e, d).string()};
         },
         drop_lines({"sglang:num_retracted_requests_total{"}, true)},
        {"sglang-T4", "T4", "pass", "warn",
         two_logs(sgl / "qwen3-8b" / "boot.log", sgl / "qwen3-8b-start2" / "boot.log"), replace("32096", "30016")},
        {"sglang-T11", "T11", "pass", "warn",
         two_logs(sgl / "qwen3-8b" / "boot.log", sgl / "qwen3-8b-start2" / "boot.log"),
         replace("K size: 2.20 GB, V size: 2.20 GB", "K size: 2.05 GB, V size: 2.05 GB")},
        {"sglang-T12", "T12", "fail", "pass", one_log(sgl / "boot_fail_mamba_state.log"),
         drop_lines({"Error", "Traceback"})},
        {"sglang-T15", "T15", "pass", "fail", t15(sgl / "qwen3-8b"),
         replace("\"completed\": 32,", "\"completed\": 30,")},
        // TensorRT-LLM counts no pauses; inferlint reads them from its log
        {"trtllm-T1", "T1", "fail", "pass",
         [&](const Edit& e, const fs::path& d) {
             const fs::path p = trt / "pauses";
             return std::vector<std::string>{"preemption",
                                             (p / "before.snapshot.json").string(),
                                             (p / "after.snapshot.json").string(),
                                             "--series",
                                             (p / "run.series.jsonl").string(),
                                             "--boot-log",
                                             edited(p / "boot.log", e, d).string()};
         },
         drop_lines({"-> pause"})},
        {"trtllm-T4", "T4", "pass", "warn",
         two_logs(trt / "qwen3-8b" / "boot.log", trt / "qwen3-8b-start2" / "boot.log"),
         replace("paged KV cache (37760)", "paged KV cache (35200)")},
        {"trtllm-T11", "T11", "pass", "warn",
         two_logs(trt / "qwen3-8b" / "boot.log", trt / "qwen3-8b-start2" / "boot.log"),
         replace("5.19 GiB", "4.81 GiB")},
        {"trtllm-T12", "T12", "fail", "pass", one_log(trt / "boot_fail_compressed_tensors_w4a16.log"),
         drop_lines({"Error", "Traceback"})},
        {"trtllm-T15", "T15", "pass", "fail", t15(trt / "qwen3-8b"),
         replace("\"completed\": 32,", "\"completed\": 34,")},
    };

    for (const auto& m : mutants) {
        SECTION(m.id) {
            const fs::path base_dir = scratch_dir(), mut_dir = scratch_dir();
            CHECK(status_of(m.command(ident, base_dir), m.tripwire) == m.baseline);
            const auto after = m.command(m.edit, mut_dir);
            CHECK(status_of(after, m.mutated_tripwire.empty() ? m.tripwire : m.mutated_tripwire) == m.mutated);
            if (!m.mutated_tripwire.empty()) CHECK(status_of(after, m.tripwire).empty());
            fs::remove_all(base_dir);
            fs::remove_all(mut_dir);
        }
    }
}

TEST_CASE("mutations: T8's boundary is exact, and a gauge that moves only on completion never passes short",
          "[mutations][shared]") {
    REQUIRE_REFERENCE(root);
    auto t8 = [&](const fs::path& s, int requested) {
        return status_of({"series", s.string(), "--requested", std::to_string(requested)}, "T8");
    };
    const fs::path ladder = root / "vllm-0.28" / "series" / "ladder.series.jsonl";
    CHECK(t8(ladder, 4) == "pass");
    CHECK(t8(ladder, 5) == "fail");
    CHECK(t8(ladder, 32) == "fail");
    const fs::path sgl = root / "sglang-0.5" / "qwen3-8b" / "run.series.jsonl";
    CHECK(t8(sgl, 29) == "pass");
    CHECK(t8(sgl, 30) == "fail");
    const fs::path trt = root / "trtllm-1.3" / "qwen3-8b" / "run.series.jsonl";
    CHECK(t8(trt, 32) == "pass");
    CHECK(t8(trt, 33) == "unknown");
}

TEST_CASE("mutations: _created stamps made equal hide a restart, and the delta is read instead",
          "[mutations][shared]") {
    REQUIRE_REFERENCE(root);
    const fs::path metrics = root / "vllm-0.28" / "metrics";
    const std::string before = inferlint::util::read_file(metrics / "restart_before.prom");
    // the before snapshot's stamps, by series
    std::map<std::string, std::string> stamps;
    std::istringstream in(before);
    for (std::string line; std::getline(in, line);) {
        if (!line.starts_with("vllm:") || line.find("_created") == std::string::npos) continue;
        auto sp = line.rfind(' ');
        stamps[line.substr(0, sp)] = line.substr(sp + 1);
    }
    REQUIRE(stamps.size() > 10);
    Edit same_stamps = [&](const std::string& text) {
        std::string out;
        std::istringstream lines(text);
        for (std::string line; std::getline(lines, line);) {
            auto sp = line.rfind(' ');
            if (line.starts_with("vllm:") && line.find("_created") != std::string::npos && sp != std::string::npos) {
                auto it = stamps.find(line.substr(0, sp));
                line = line.substr(0, sp + 1) + (it == stamps.end() ? "0" : it->second);
            }
            out += line + "\n";
        }
        return out;
    };
    const fs::path dir = scratch_dir();
    auto run = [&](const Edit& e) {
        auto r = testsupport::run_cli({"preemption", (metrics / "restart_before.prom").string(),
                                       edited(metrics / "restart_after.prom", e, dir).string(), "--json"});
        return json::parse(r.out).at(0);
    };
    json real = run(ident);
    CHECK(real["status"] == "fail");
    CHECK(real["evidence"]["restarted"] == true);
    json hidden = run(same_stamps);
    CHECK(hidden["status"] == "fail");  // it did preempt
    CHECK_FALSE(hidden["evidence"].contains("restarted"));
    fs::remove_all(dir);
}
