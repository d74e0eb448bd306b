// nvidia-smi through a real subprocess (fake scripts written here), and the gpu-inspect
// and teardown commands against synthetic /proc trees. No test here signals anything:
// teardown runs only with --dry-run or against a synthetic tree, which it refuses.
#include "inferlint/run/gpu.hpp"
#include "inferlint/run/teardown.hpp"
#include "inferlint/util/subprocess.hpp"

#include "support.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sys/stat.h>

using namespace inferlint;
namespace fs = std::filesystem;

namespace {

const std::string kRtx4090 = "0, NVIDIA GeForce RTX 4090, 24564, 0, 24138, 616.56, 8.9\n";

using testsupport::TempDir;

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

// A stand-in nvidia-smi: the full query prints `gpus`; each memory.used query prints the
// next line of `used` (the last one once they run out). exit_code != 0: it fails.
fs::path fake_smi(const fs::path& dir, const std::string& gpus, const std::string& used, int exit_code = 0) {
    write(dir / "gpus.txt", gpus);
    write(dir / "used.txt", used);
    auto script = dir / "nvidia-smi";
    write(script,
          "#!/bin/sh\n"
          "cd '" +
              dir.string() +
              "' || exit 1\n"
              "if [ " +
              std::to_string(exit_code) + " -ne 0 ]; then echo 'NVIDIA-SMI has failed'; exit " +
              std::to_string(exit_code) +
              "; fi\n"
              "case \"$1\" in\n"
              "  --query-gpu=memory.used)\n"
              "    n=$(cat count 2>/dev/null || echo 0); echo $((n + 1)) > count\n"
              "    line=$(sed -n \"$((n + 1))p\" used.txt); [ -n \"$line\" ] || line=$(tail -n 1 used.txt)\n"
              "    echo \"$line\";;\n"
              "  *) cat gpus.txt;;\n"
              "esac\n");
    ::chmod(script.c_str(), 0755);
    return script;
}

void add_proc(const fs::path& root, int pid, int ppid, const std::vector<std::string>& argv, const std::string& comm) {
    auto d = root / std::to_string(pid);
    fs::create_directories(d);
    std::string cmdline;
    for (const auto& a : argv) cmdline += a + '\0';
    write(d / "cmdline", cmdline);
    write(d / "stat", std::to_string(pid) + " (" + comm + ") S " + std::to_string(ppid) + " 1 1 0 -1\n");
    write(d / "comm", comm + "\n");
}

// The Python tool's teardown table: two vLLM servers with renamed engines, a shell
// running pkill, a bystander tailing a log, and a third server.
fs::path vllm_tree(const fs::path& dir) {
    auto root = dir / "proc";
    add_proc(root, 1, 0, {"/sbin/init"}, "init");
    add_proc(root, 100, 1, {"bash", "run_campaign.sh"}, "bash");
    add_proc(root, 200, 100, {"/opt/venv/bin/python", "/opt/venv/bin/vllm", "serve", "/models/m"}, "vllm");
    add_proc(root, 201, 200, {"VLLM::EngineCore"}, "VLLM::EngineCor");
    add_proc(root, 300, 1, {"python", "-m", "vllm.entrypoints.openai.api_server", "--model", "m"}, "python");
    add_proc(root, 301, 300, {"VLLM::Worker_TP0  "}, "VLLM::Worker_TP");
    add_proc(root, 400, 1, {"bash", "-lc", "pkill -f 'vllm serve'; inferlint teardown"}, "bash");
    add_proc(root, 500, 1, {"tail", "-f", "logs/vllm serve.log"}, "tail");
    add_proc(root, 600, 1, {"vllm", "serve", "/models/other"}, "vllm");
    return root;
}

fs::path quiet_tree(const fs::path& dir) {
    auto root = dir / "proc";
    add_proc(root, 1, 0, {"/sbin/init"}, "init");
    add_proc(root, 2, 0, {}, "kthreadd");
    add_proc(root, 100, 1, {"bash", "run_campaign.sh"}, "bash");
    add_proc(root, 500, 1, {"tail", "-f", "logs/vllm serve.log"}, "tail");
    return root;
}

std::string env(const fs::path& smi, const fs::path& proc) {
    return "env -u INFERLINT_ENGINE INFERLINT_NVIDIA_SMI=" + testsupport::shell_quote(smi.string()) +
           " INFERLINT_PROC_ROOT=" + testsupport::shell_quote(proc.string()) + " ";
}

class FakeClock final : public run::Clock {
public:
    double t = 0;
    double now_s() override { return t; }
    void sleep_s(double s) override { t += s; }
};

}  // namespace

// ---- reading nvidia-smi ----

TEST_CASE("gpu: an old driver that refuses compute_cap is asked again without it", "[gpu]") {
    std::vector<std::string> calls;
    auto runner = [&](const std::vector<std::string>& argv) {
        calls.push_back(argv.at(1));
        util::CommandOutput out;
        out.outcome = util::CommandOutput::Outcome::exited;
        if (argv.at(1).find("compute_cap") != std::string::npos) {
            out.exit_code = 2;
        } else {
            out.exit_code = 0;
            out.out = "0, NVIDIA GeForce RTX 4090, 24564, 0, 24138, 470.82\n";
        }
        return out;
    };
    auto q = run::read_gpus(runner, "nvidia-smi");
    REQUIRE(calls.size() == 2);
    CHECK(calls[0] == "--query-gpu=index,name,memory.total,memory.used,memory.free,driver_version,compute_cap");
    CHECK(calls[1] == "--query-gpu=index,name,memory.total,memory.used,memory.free,driver_version");
    REQUIRE(q.gpus.size() == 1);
    CHECK_FALSE(q.gpus[0].compute_cap);
    CHECK_FALSE(q.gpus[0].family());
    CHECK(q.gpus[0].driver == "470.82");
}

TEST_CASE("gpu: a fake nvidia-smi is run and read; missing, failing and babbling ones give none", "[gpu]") {
    TempDir t;
    auto runner = run::system_runner(10.0);
    auto smi = fake_smi(t.path, kRtx4090, "0\n");
    auto q = run::read_gpus(runner, smi.string());
    REQUIRE(q.gpus.size() == 1);
    CHECK(q.gpus[0].name == "NVIDIA GeForce RTX 4090");
    CHECK(run::gpu_json(q.gpus[0]).dump() ==
          R"({"index":0,"name":"NVIDIA GeForce RTX 4090","memory_total_mib":24564,"memory_used_mib":0,)"
          R"("memory_free_mib":24138,"driver":"616.56","compute_cap":"8.9","family":"Ada Lovelace"})");
    CHECK(run::read_gpu_used_mib(runner, smi.string()) == std::vector<long long>{0});

    auto missing = run::read_gpus(runner, (t.path / "no-such-nvidia-smi").string());
    CHECK(missing.gpus.empty());
    CHECK_FALSE(missing.why.empty());
    CHECK(run::read_gpu_used_mib(runner, (t.path / "no-such-nvidia-smi").string()).empty());

    TempDir f;
    auto failing = fake_smi(f.path, kRtx4090, "0\n", 9);
    auto fq = run::read_gpus(runner, failing.string());
    CHECK(fq.gpus.empty());
    CHECK(fq.why.find("exit status 9") != std::string::npos);
    CHECK(run::read_gpu_used_mib(runner, failing.string()).empty());

    TempDir j;
    auto junk = fake_smi(j.path, "No devices were found\n", "[N/A]\n");
    CHECK(run::read_gpus(runner, junk.string()).gpus.empty());
    CHECK(run::read_gpu_used_mib(runner, junk.string()).empty());
}

TEST_CASE("gpu: a command that hangs is cut off at its time limit", "[gpu]") {
    auto out = util::run_command({"sleep", "5"}, 0.3);
    CHECK(out.outcome == util::CommandOutput::Outcome::timed_out);
    CHECK_FALSE(out.ok());
    auto echo = util::run_command({"printf", "%s|", "a b", "$HOME"}, 5.0);
    CHECK(echo.ok());
    CHECK(echo.out == "a b|$HOME|");  // argv as given: no shell expands anything
    CHECK(util::run_command({"false"}, 5.0).exit_code == 1);
    CHECK(util::run_command({}, 1.0).outcome == util::CommandOutput::Outcome::not_started);
}

TEST_CASE("gpu: memory that falls only after a delay needs consecutive clear readings", "[gpu]") {
    TempDir t;
    auto smi = fake_smi(t.path, kRtx4090, "21768\n21768\n300\n250\n");
    auto runner = run::system_runner(10.0);
    FakeClock clock;
    auto r = run::wait_clear([&] { return run::read_gpu_used_mib(runner, smi.string()); }, [] { return 0; },
                             {.consecutive = 2, .interval_s = 2.0, .timeout_s = 30.0}, clock);
    CHECK(r.clear);
    REQUIRE(r.readings.size() == 4);
    CHECK(r.readings[1].max_used_mib == 21768);
    CHECK(r.readings[3].elapsed_s == 6.0);
}

TEST_CASE("gpu: one low reading then high again resets the count", "[gpu]") {
    TempDir t;
    auto smi = fake_smi(t.path, kRtx4090, "300\n18500\n250\n[N/A]\n240\n230\n");
    auto runner = run::system_runner(10.0);
    FakeClock clock;
    auto r = run::wait_clear([&] { return run::read_gpu_used_mib(runner, smi.string()); }, [] { return 0; },
                             {.consecutive = 2, .interval_s = 2.0, .timeout_s = 30.0}, clock);
    CHECK(r.clear);
    REQUIRE(r.readings.size() == 6);  // 300 alone, 250 alone (then unreadable), 240 and 230 in a row
    CHECK_FALSE(r.readings[3].max_used_mib);

    TempDir u;
    auto flip = fake_smi(u.path, kRtx4090, "300\n18500\n");
    FakeClock c2;
    auto never = run::wait_clear([&] { return run::read_gpu_used_mib(runner, flip.string()); }, [] { return 0; },
                                 {.consecutive = 2, .interval_s = 2.0, .timeout_s = 4.0}, c2);
    CHECK_FALSE(never.clear);
    CHECK(never.reason == "not clear after 4s: last reading 18500 MiB used, 0 server processes alive");
}

// ---- gpu-inspect ----

TEST_CASE("gpu-inspect: prints the card and passes when it is free", "[gpu][cli]") {
    TempDir t;
    auto smi = fake_smi(t.path, kRtx4090, "0\n");
    auto r = testsupport::run_cli({"gpu-inspect", "--consecutive", "1"}, env(smi, quiet_tree(t.path)));
    INFO(r.out << r.err);
    CHECK(r.rc == 0);
    CHECK(r.out ==
          "GPU 0   NVIDIA GeForce RTX 4090\n"
          "        Ada Lovelace, compute capability 8.9, driver 616.56\n"
          "        memory: 24,564 MiB total, 0 MiB used, 24,138 MiB free\n"
          "[ T2] PASS  1 consecutive clear readings\n");
}

TEST_CASE("gpu-inspect: fails when memory is held, and when a server process is alive", "[gpu][cli]") {
    TempDir t;
    // 21,768 MiB is what the killed server's engine held in the reference's recorded run.
    auto smi = fake_smi(t.path, kRtx4090, "21768\n");
    auto held =
        testsupport::run_cli({"gpu-inspect", "--consecutive", "1", "--timeout", "0"}, env(smi, quiet_tree(t.path)));
    CHECK(held.rc == 1);
    CHECK(held.out.find("[ T2] TRIPWIRE-FAILED  card not clear; refusing to boot. not clear after 0s: last "
                        "reading 21768 MiB used, 0 server processes alive\n") != std::string::npos);

    TempDir u;
    auto idle = fake_smi(u.path, kRtx4090, "0\n");
    auto alive = testsupport::run_cli({"gpu-inspect", "--timeout", "0"}, env(idle, vllm_tree(u.path)));
    CHECK(alive.rc == 1);
    CHECK(alive.out.find("last reading 0 MiB used, 5 server processes alive") != std::string::npos);
}

TEST_CASE("gpu-inspect: --json carries the GPU facts and the readings", "[gpu][cli]") {
    TempDir t;
    auto smi = fake_smi(t.path, kRtx4090, "0\n");
    auto r = testsupport::run_cli({"gpu-inspect", "--json", "--consecutive", "1"}, env(smi, quiet_tree(t.path)));
    CHECK(r.rc == 0);
    auto doc = nlohmann::json::parse(r.out);
    REQUIRE(doc.size() == 1);
    CHECK(doc[0]["tripwire"] == "T2");
    CHECK(doc[0]["status"] == "pass");
    CHECK(doc[0]["evidence"]["gpus"][0]["family"] == "Ada Lovelace");
    CHECK(doc[0]["evidence"]["gpus"][0]["memory_total_mib"] == 24564);
    auto readings = doc[0]["evidence"]["readings"];
    REQUIRE(readings.size() == 1);  // [elapsed_s, MiB used, server processes alive]
    CHECK(readings[0][0].get<double>() < 5.0);
    CHECK(readings[0][1] == 0);
    CHECK(readings[0][2] == 0);
}

TEST_CASE("gpu-inspect: memory that falls after a delay passes once it reads clear", "[gpu][cli]") {
    TempDir t;
    auto smi = fake_smi(t.path, kRtx4090, "21768\n0\n");
    auto r = testsupport::run_cli({"gpu-inspect", "--json", "--consecutive", "1", "--timeout", "10"},
                                  env(smi, quiet_tree(t.path)));
    CHECK(r.rc == 0);
    auto readings = nlohmann::json::parse(r.out)[0]["evidence"]["readings"];
    REQUIRE(readings.size() == 2);
    CHECK(readings[0][1] == 21768);
    CHECK(readings[1][1] == 0);
    CHECK(readings[1][0].get<double>() >= 2.0);
}

TEST_CASE("gpu-inspect: no nvidia-smi, or a failing one, is said plainly and is not clear", "[gpu][cli]") {
    TempDir t;
    auto proc = quiet_tree(t.path);
    auto r = testsupport::run_cli({"gpu-inspect", "--timeout", "0"}, env(t.path / "nowhere" / "nvidia-smi", proc));
    CHECK(r.rc == 1);
    CHECK(r.out.rfind("no NVIDIA GPU found: nvidia-smi is missing or failed", 0) == 0);
    CHECK(r.out.find("[ T2] TRIPWIRE-FAILED  card not clear; refusing to boot. not clear after 0s: last reading "
                     "None MiB used, 0 server processes alive") != std::string::npos);
    auto j =
        testsupport::run_cli({"gpu-inspect", "--json", "--timeout", "0"}, env(t.path / "nowhere" / "nvidia-smi", proc));
    auto doc = nlohmann::json::parse(j.out);
    CHECK(doc[0]["evidence"]["gpus"] == nlohmann::json::array());
    REQUIRE(doc[0]["evidence"]["readings"].size() == 1);
    CHECK(doc[0]["evidence"]["readings"][0][1].is_null());  // unreadable, not 0
    CHECK(doc[0]["evidence"]["readings"][0][2] == 0);

    TempDir f;
    auto failing = fake_smi(f.path, kRtx4090, "0\n", 3);
    auto rf = testsupport::run_cli({"gpu-inspect", "--timeout", "0"}, env(failing, proc));
    CHECK(rf.rc == 1);
    CHECK(rf.out.find("no NVIDIA GPU found") != std::string::npos);
    CHECK(rf.out.find("None MiB used") != std::string::npos);

    TempDir g;
    auto babble = fake_smi(g.path, "\x01\xff garbage, , ,\n", "[Not Supported]\n");
    auto rb = testsupport::run_cli({"gpu-inspect", "--timeout", "0"}, env(babble, proc));
    CHECK(rb.rc == 1);
    CHECK(rb.out.find("no NVIDIA GPU found") != std::string::npos);
}

TEST_CASE("gpu-inspect: on this machine without nvidia-smi it says so and is not clear", "[gpu][cli]") {
    if (!util::find_program("nvidia-smi").empty() || fs::exists("/usr/lib/wsl/lib/nvidia-smi")) {
        WARN("skipped: this machine has an nvidia-smi");
        return;
    }
    auto r = testsupport::run_cli({"gpu-inspect", "--timeout", "0"},
                                  "env -u INFERLINT_ENGINE -u INFERLINT_NVIDIA_SMI -u INFERLINT_PROC_ROOT ");
    CHECK(r.rc == 1);
    CHECK(r.out.rfind("no NVIDIA GPU found", 0) == 0);
    CHECK(r.out.find("card not clear; refusing to boot. not clear after 0s: last reading None MiB used") !=
          std::string::npos);
}

TEST_CASE("gpu-inspect and teardown: without /proc they cannot tell", "[gpu][cli]") {
    TempDir t;
    auto smi = fake_smi(t.path, kRtx4090, "0\n");
    auto r = testsupport::run_cli({"gpu-inspect"}, env(smi, t.path / "no-proc-here"));
    CHECK(r.rc == 2);
    CHECK(r.out.find("NVIDIA GeForce RTX 4090") != std::string::npos);
    CHECK(r.out.find("[ T2] ????  Checking that the GPU is free needs Linux") != std::string::npos);
    auto td = testsupport::run_cli({"teardown"}, env(smi, t.path / "no-proc-here"));
    CHECK(td.rc == 2);
    CHECK(td.out.find("teardown needs Linux") != std::string::npos);
}

TEST_CASE("gpu-inspect and teardown: --consecutive below 1 is refused", "[gpu][cli]") {
    TempDir t;
    auto smi = fake_smi(t.path, kRtx4090, "0\n");
    CHECK(testsupport::run_cli({"gpu-inspect", "--consecutive", "0"}, env(smi, quiet_tree(t.path))).rc == 2);
    CHECK(testsupport::run_cli({"teardown", "--dry-run", "--consecutive", "0"}, env(smi, t.path / "proc")).rc == 2);
}

// ---- teardown, read-only ----

TEST_CASE("teardown --dry-run: lists the targets and what pkill would get wrong", "[gpu][cli]") {
    TempDir t;
    auto smi = fake_smi(t.path, kRtx4090, "0\n");
    auto r = testsupport::run_cli({"teardown", "--dry-run"}, env(smi, vllm_tree(t.path)));
    INFO(r.err);
    CHECK(r.rc == 0);
    CHECK(r.out ==
          "target  pid=200      /opt/venv/bin/python /opt/venv/bin/vllm serve /models/m\n"
          "target  pid=201      VLLM::EngineCore\n"
          "target  pid=300      python -m vllm.entrypoints.openai.api_server --model m\n"
          "target  pid=301      VLLM::Worker_TP0\n"
          "target  pid=600      vllm serve /models/other\n"
          "(pkill -f 'vllm serve' would miss 3 and wrongly hit 2)\n");
}

TEST_CASE("teardown --dry-run --engine: says what it leaves alone", "[gpu][cli]") {
    TempDir t;
    auto smi = fake_smi(t.path, kRtx4090, "0\n");
    auto proc = vllm_tree(t.path);
    add_proc(proc, 700, 1, {"sglang", "serve", "--model-path", "m"}, "sglang");
    add_proc(proc, 701, 700, {"sglang::scheduler"}, "sglang::schedul");
    auto r = testsupport::run_cli({"teardown", "--dry-run", "--engine", "sglang"}, env(smi, proc));
    CHECK(r.rc == 0);
    CHECK(r.out ==
          "target  pid=700      sglang serve --model-path m\n"
          "target  pid=701      sglang::scheduler\n"
          "left alone (--engine sglang): 5 processes of vLLM servers\n"
          "(pkill -f 'sglang serve' would miss 1 and wrongly hit 0)\n");

    auto by_env = testsupport::run_cli({"teardown", "--dry-run"}, env(smi, proc) + "INFERLINT_ENGINE=trtllm ");
    CHECK(by_env.out.find("no server processes found (TensorRT-LLM)\n") != std::string::npos);
    CHECK(by_env.out.find("left alone (INFERLINT_ENGINE=trtllm): 7 processes of SGLang and vLLM servers\n") !=
          std::string::npos);
}

TEST_CASE("teardown: nothing to stop is said, and --json keeps stdout for JSON", "[gpu][cli]") {
    TempDir t;
    auto smi = fake_smi(t.path, kRtx4090, "0\n");
    auto quiet = testsupport::run_cli({"teardown", "--dry-run"}, env(smi, quiet_tree(t.path)));
    CHECK(quiet.rc == 0);
    CHECK(quiet.out ==
          "no server processes found (vLLM, SGLang or TensorRT-LLM)\n"
          "(pkill -f 'vllm serve' would miss 0 and wrongly hit 1)\n");

    TempDir u;
    auto js = testsupport::run_cli({"teardown", "--dry-run", "--json"}, env(smi, vllm_tree(u.path)));
    CHECK(js.rc == 0);
    CHECK(js.out.empty());
    CHECK(js.err.find("target  pid=201      VLLM::EngineCore") != std::string::npos);
}

TEST_CASE("teardown: a synthetic /proc is never used to signal", "[gpu][cli]") {
    TempDir t;
    auto smi = fake_smi(t.path, kRtx4090, "0\n");
    auto r = testsupport::run_cli({"teardown", "--timeout", "0"}, env(smi, vllm_tree(t.path)));
    CHECK(r.rc == 2);
    CHECK(r.err.find("for reading only") != std::string::npos);
    CHECK(r.out.find("[ T2]") == std::string::npos);
}
