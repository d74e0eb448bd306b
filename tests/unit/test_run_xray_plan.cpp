// xray's plan: the load command as it will run, the server's address, the checks made
// before anything starts, the exit status and results.json. No process is started here
// but the small helpers util/process spawns.
#include "support.hpp"

#include "inferlint/run/xray.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"
#include "inferlint/util/process.hpp"

#include <fmt/format.h>

#include <arpa/inet.h>
#include <csignal>
#include <fstream>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace inferlint;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

fs::path plan_scratch(const std::string& name) { return testsupport::scratch_dir("xray-plan-" + name); }

// A listening socket on 127.0.0.1 at a port the kernel picks; closed when it goes.
struct Listener {
    int fd = -1;
    int port = 0;
    Listener() {
        fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
        ::listen(fd, 1);
        socklen_t len = sizeof a;
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
        port = ntohs(a.sin_port);
    }
    ~Listener() { ::close(fd); }
};

xray::Plan plan_in(const fs::path& dir) {
    xray::Plan p;
    p.out = dir / "run";
    p.load = {"true"};
    return p;
}

}  // namespace

TEST_CASE("xray: vllm bench serve is asked to save its result into the run folder", "[xray]") {
    const fs::path out = "/tmp/run";
    std::vector<std::string> bench = {"vllm", "bench", "serve", "--model", "M", "--max-concurrency", "32"};
    auto p = xray::prepare_load(bench, out);
    std::vector<std::string> want = bench;
    want.insert(want.end(),
                {"--save-detailed", "--save-result", "--result-dir", "/tmp/run", "--result-filename", "bench.json"});
    CHECK(p.argv == want);
    CHECK(p.result == fs::path("/tmp/run/bench.json"));
    CHECK(xray::load_concurrency(bench) == 32);
    CHECK(xray::load_concurrency({"x", "--max-concurrency=8"}) == 8);
    CHECK_FALSE(xray::load_concurrency({"x", "--max-concurrency", "many"}));
    CHECK_FALSE(xray::load_concurrency({"x", "--max-concurrency"}));

    // A command that already saves its result keeps its own file name.
    auto own = bench;
    own.insert(own.end(), {"--save-result", "--result-dir", "r", "--result-filename", "b.json"});
    auto kept = xray::prepare_load(own, out);
    auto own_detailed = own;
    own_detailed.push_back("--save-detailed");  // T21 reads each request's times
    CHECK(kept.argv == own_detailed);
    CHECK(kept.result == fs::path("r") / "b.json");
    // ... or leaves the name to the client, which is found after the run.
    auto unnamed = bench;
    unnamed.push_back("--save-result");
    auto unnamed_detailed = unnamed;
    unnamed_detailed.push_back("--save-detailed");
    CHECK(xray::prepare_load(unnamed, out).argv == unnamed_detailed);
    CHECK_FALSE(xray::prepare_load(unnamed, out).result);

    // Other load tools run as they are.
    std::vector<std::string> locust = {"locust", "-u", "32"};
    CHECK(xray::prepare_load(locust, out).argv == locust);
    CHECK_FALSE(xray::prepare_load(locust, out).result);
    CHECK_FALSE(xray::load_client(locust));
    // "-o run/" names the same folder as "-o run".
    CHECK(xray::prepare_load(bench, "run/").result == fs::path("run/bench.json"));
}

TEST_CASE("xray: SGLang's and TensorRT-LLM's benchmark clients save their results too", "[xray]") {
    const fs::path out = "/tmp/run";
    std::vector<std::string> trt = {"python", "-m", "tensorrt_llm.serve.scripts.benchmark_serving", "--max-concurrency",
                                    "32"};
    CHECK(xray::load_client(trt) == EngineId::trtllm);
    auto p = xray::prepare_load(trt, out);
    auto want = trt;
    want.insert(want.end(), {"--save-result", "--result-dir", "/tmp/run", "--result-filename", "bench.json"});
    CHECK(p.argv == want);
    CHECK(p.result == fs::path("/tmp/run/bench.json"));

    std::vector<std::string> sgl;
    for (const char* module : {"sglang.benchmark.serving", "sglang.bench_serving"}) {
        sgl = {"python", "-m", module, "--max-concurrency", "32"};
        CHECK(xray::load_client(sgl) == EngineId::sglang);
        CHECK(xray::load_concurrency(sgl) == 32);
        auto s = xray::prepare_load(sgl, out);
        auto with_file = sgl;
        with_file.insert(with_file.end(), {"--output-file", "/tmp/run/bench.jsonl"});
        CHECK(s.argv == with_file);
        CHECK(s.result == fs::path("/tmp/run/bench.jsonl"));
    }
    auto own = sgl;
    own.insert(own.end(), {"--output-file", "mine.jsonl"});
    CHECK(xray::prepare_load(own, out).argv == own);
    CHECK(xray::prepare_load(own, out).result == fs::path("mine.jsonl"));
    CHECK(xray::load_client({"vllm", "bench", "serve"}) == EngineId::vllm);
    CHECK_FALSE(xray::load_client({"vllm", "serve", "bench"}));
}

TEST_CASE("xray: a random dataset without a shared prefix means unique prompts (T16)", "[xray][T16]") {
    std::vector<std::string> bench = {"vllm", "bench", "serve", "--model", "M", "--dataset-name", "random"};
    CHECK(xray::load_unique_prompts(bench) == "--dataset-name random");
    CHECK(xray::load_unique_prompts({"python", "-m", "sglang.bench_serving", "--dataset-name=random-ids"}) ==
          "--dataset-name random-ids");
    auto no_prefix = bench;
    no_prefix.insert(no_prefix.end(), {"--random-prefix-len", "0"});
    CHECK(xray::load_unique_prompts(no_prefix) == "--dataset-name random");
    // A prefix every prompt shares is cached by design.
    auto prefixed = bench;
    prefixed.insert(prefixed.end(), {"--random-prefix-len", "256"});
    CHECK_FALSE(xray::load_unique_prompts(prefixed));
    CHECK_FALSE(xray::load_unique_prompts({"vllm", "bench", "serve", "--dataset-name", "sharegpt"}));
    CHECK_FALSE(xray::load_unique_prompts(
        {"python", "-m", "sglang.bench_serving", "--dataset-name", "generated-shared-prefix"}));
    // No dataset named: the clients' defaults differ by release, so nothing is assumed.
    CHECK_FALSE(xray::load_unique_prompts({"vllm", "bench", "serve", "--model", "M"}));
    CHECK_FALSE(xray::load_unique_prompts({"vllm", "bench", "serve", "--dataset-name"}));
}

TEST_CASE("xray: the server's address comes from the --serve command", "[xray]") {
    CHECK(xray::server_url("vllm serve M") == "http://127.0.0.1:8000");
    CHECK(xray::server_url("vllm serve M --port 8100") == "http://127.0.0.1:8100");
    CHECK(xray::server_url("vllm serve M --host 0.0.0.0 --port=9000") == "http://127.0.0.1:9000");
    // SGLang listens on 30000 unless told otherwise; TensorRT-LLM on 8000.
    CHECK(xray::server_url("python -m sglang.launch_server --model-path M") == "http://127.0.0.1:30000");
    CHECK(xray::server_url("sglang serve --model-path M --port 8000") == "http://127.0.0.1:8000");
    CHECK(xray::server_url("trtllm-serve serve M --host 10.0.0.5") == "http://10.0.0.5:8000");
    CHECK(xray::server_url("vllm serve M --host ::1 --port 8001") == "http://[::1]:8001");
    CHECK(xray::server_url("vllm serve M --port x") == "http://127.0.0.1:8000");
    // Attached to a running server: the named engine's port.
    CHECK(xray::server_url(std::nullopt, &sglang()) == "http://127.0.0.1:30000");
    CHECK(xray::server_url(std::nullopt) == "http://127.0.0.1:8000");
}

TEST_CASE("xray: bad input is refused before anything starts", "[xray]") {
    auto dir = plan_scratch("bad");
    auto refused = [](xray::Plan p) -> std::string {
        try {
            xray::checked(std::move(p));
        } catch (const InputError& e) {
            return e.what();
        }
        return "";
    };
    SECTION("no load command") {
        auto p = plan_in(dir);
        p.load.clear();
        CHECK_THAT(refused(p), Contains("xray needs the load command after --"));
    }
    SECTION("a load program that is not there") {
        auto p = plan_in(dir);
        p.load = {"no-such-load-tool-xyz", "--n", "3"};
        CHECK(refused(p) == "the load command no-such-load-tool-xyz: not found");
    }
    SECTION("a --serve command that starts no inference server") {
        auto p = plan_in(dir);
        p.serve = "python3 -m http.server 8123";
        CHECK_THAT(refused(p), Contains("not an inference server command"));
        p.serve = "vllm serve 'M";
        CHECK_THAT(refused(p), Contains("unbalanced quotes"));
        p.serve = "  ";
        CHECK_THAT(refused(p), Contains("empty"));
    }
    SECTION("a --serve command of another engine than the one named") {
        auto p = plan_in(dir);
        p.serve = "sglang serve --model-path M";
        p.engine = &vllm();
        CHECK(refused(p) == "the engine named is vLLM, but the --serve command starts SGLang's server");
    }
    SECTION("a server program that is not there") {
        auto p = plan_in(dir);
        p.serve = "/no/such/dir/vllm serve M";
        CHECK(refused(p) == "--serve: /no/such/dir/vllm: not found");
    }
    SECTION("a port another process already listens on") {
        Listener taken;
        auto p = plan_in(dir);
        // The port is checked once the program is found: one that exists.
        auto fake = dir / "vllm";
        util::write_file(fake, "#!/bin/sh\nexit 0\n");
        fs::permissions(fake, fs::perms::owner_all);
        p.serve = fmt::format("{} serve M --port {}", fake.string(), taken.port);
        CHECK(refused(p) ==
              fmt::format("port {} is already in use by another process; stop it, or give the server another --port",
                          taken.port));
        CHECK_FALSE(fs::exists(p.out));  // nothing made
    }
    SECTION("an output folder that cannot be created") {
        util::write_file(dir / "afile", "x");
        auto p = plan_in(dir);
        p.out = dir / "afile" / "run";
        CHECK_THAT(refused(p), Contains("cannot create the output folder"));
        CHECK_THAT(refused(p), Contains((dir / "afile" / "run").string()));
    }
    SECTION("a boot log that is not there") {
        auto p = plan_in(dir);
        p.url = "127.0.0.1:9";
        p.boot_log = dir / "missing.log";
        CHECK(refused(p) == (dir / "missing.log").string() + ": no such boot log");
    }
    SECTION("a URL of another scheme") {
        auto p = plan_in(dir);
        p.url = "ftp://example.com";
        CHECK_FALSE(refused(p).empty());
    }
    fs::remove_all(dir);
}

TEST_CASE("xray: a good plan gets its address and its folder", "[xray]") {
    auto dir = plan_scratch("good");
    auto p = plan_in(dir);
    p.url = "127.0.0.1:8123/";
    auto c = xray::checked(p);
    CHECK(c.url == "http://127.0.0.1:8123");
    CHECK(fs::is_directory(dir / "run"));
    fs::remove_all(dir);
}

TEST_CASE("xray: the exit status", "[xray]") {
    xray::Outcome o;
    o.completed = true;
    o.load_exit = 0;
    o.results = {{TripwireId::T1, Status::pass, "no preemptions", Json::object()}};
    CHECK(xray::exit_code(o, Strict::no) == 0);
    o.results.push_back({TripwireId::T9, Status::warn, "ceiling moved", Json::object()});
    CHECK(xray::exit_code(o, Strict::no) == 0);
    CHECK(xray::exit_code(o, Strict::yes) == 1);
    o.results.push_back({TripwireId::T8, Status::unknown, "gauges lag", Json::object()});
    CHECK(xray::exit_code(o, Strict::no) == 2);
    o.results.push_back({TripwireId::T1, Status::fail, "22 preemptions", Json::object()});
    CHECK(xray::exit_code(o, Strict::no) == 1);

    xray::Outcome load_failed;
    load_failed.load_exit = 3;
    CHECK(xray::exit_code(load_failed, Strict::no) == 1);
    xray::Outcome stopped;
    stopped.problem = "no server answers at http://127.0.0.1:9/health";
    CHECK(xray::exit_code(stopped, Strict::no) == 1);
    xray::Outcome cut;
    cut.interrupted_by = SIGINT;
    cut.results = {{TripwireId::T8, Status::unknown, "?", Json::object()}};
    CHECK(xray::exit_code(cut, Strict::no) == 1);
    xray::Outcome other;
    other.wrong_engine = true;
    other.problem = "the engine named is vLLM, but the server at http://x:1 is SGLang's";
    CHECK(xray::exit_code(other, Strict::no) == 2);
    // Nothing failed, but the run never got to the end: not a pass.
    xray::Outcome empty;
    CHECK(xray::exit_code(empty, Strict::no) == 1);
}

TEST_CASE("xray: results.json says whether the run completed, and holds every result", "[xray]") {
    auto dir = plan_scratch("results");
    xray::Plan p = plan_in(dir);
    p.url = "http://127.0.0.1:9";
    xray::Outcome o;
    o.problem = "no server answers at http://127.0.0.1:9/health";
    o.results = {{TripwireId::T2, Status::pass, "2 consecutive clear readings", Json{{"readings", Json::array()}}}};
    xray::write_results(p, o);
    Json doc = Json::parse(util::read_file(p.out / "results.json"));
    CHECK(doc["schema"] == "inferlint.xray/1");
    CHECK(doc["completed"] == false);
    CHECK(doc["exit_status"] == 1);
    CHECK(doc["interrupted"] == false);
    CHECK(doc["problem"] == o.problem);
    CHECK(doc["load_exit"].is_null());
    CHECK(doc["versions"]["inferlint"] == INFERLINT_VERSION);
    CHECK(doc["plan"]["url"] == "http://127.0.0.1:9");
    CHECK(doc["plan"]["load"] == Json::array({"true"}));
    CHECK(doc["plan"]["serve"].is_null());
    CHECK(doc["counts"] == "1 checks (1 pass)");
    REQUIRE(doc["results"].size() == 1);
    CHECK(doc["results"][0]["tripwire"] == "T2");
    CHECK(doc["results"][0]["status"] == "pass");
    fs::remove_all(dir);
}

TEST_CASE("shell_join quotes as a shell reads it back", "[xray]") {
    CHECK(util::shell_join({"vllm", "bench", "serve", "--model", "Qwen/Qwen3-8B"}) ==
          "vllm bench serve --model Qwen/Qwen3-8B");
    CHECK(util::shell_join({"a b", "", "it's", "$HOME"}) == "'a b' '' 'it'\"'\"'s' '$HOME'");
    auto round = shell_split(util::shell_join({"a b", "", "it's", "$HOME", "x"}));
    REQUIRE(round);
    CHECK(*round == std::vector<std::string>{"a b", "", "it's", "$HOME", "x"});
}

TEST_CASE("spawn_process: a missing program is an error, not a child exiting 127", "[xray]") {
    auto r = util::spawn_process({"no-such-program-xyz"}, {});
    CHECK_FALSE(r.started());
    CHECK(r.error == "no-such-program-xyz: not found on PATH");
    auto dir = plan_scratch("spawn");
    util::write_file(dir / "not-exec", "#!/bin/sh\n");
    fs::permissions(dir / "not-exec", fs::perms::owner_read | fs::perms::owner_write);
    auto denied = util::spawn_process({(dir / "not-exec").string()}, {});
    CHECK_FALSE(denied.started());
    CHECK_THAT(denied.error, Contains("cannot run it"));
    fs::remove_all(dir);
}

TEST_CASE("spawn_process: a session of its own, output to a file", "[xray]") {
    auto dir = plan_scratch("session");
    auto log = dir / "out.log";
    auto r = util::spawn_process(
        {"/bin/sh", "-c", "echo out; echo err >&2; read -r a b c d e f rest < /proc/$$/stat; echo sid=$f"},
        {.group = util::ProcessGroup::new_session, .output = util::OutputTo::file, .output_file = log});
    REQUIRE(r.started());
    CHECK(util::wait_exit(r.pid, 10) == 0);
    std::string text = util::read_file(log, util::AllowEmpty::yes);
    CHECK_THAT(text, Contains("out\nerr\n"));
    CHECK_THAT(text, Contains("sid=" + std::to_string(r.pid)));  // its session is its own
    auto killed = util::spawn_process({"/bin/sleep", "30"}, {.group = util::ProcessGroup::own_group});
    REQUIRE(killed.started());
    CHECK_FALSE(util::poll_exit(killed.pid));
    ::killpg(killed.pid, SIGTERM);
    CHECK(util::wait_exit(killed.pid, 10) == 128 + SIGTERM);
    fs::remove_all(dir);
}

TEST_CASE("port_in_use sees a listener, not a free port", "[xray]") {
    int free_port = 0;
    {
        Listener l;
        CHECK(util::port_in_use(l.port));
        free_port = l.port;
    }
    CHECK_FALSE(util::port_in_use(free_port));
}
