#include "inferlint/parse/loadlog.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"

#include "support.hpp"

#include <string>

using namespace inferlint;
namespace fs = std::filesystem;

TEST_CASE("loadlog: vllm bench serve's initial test request is one untimed request", "[loadlog]") {
    CHECK(untimed_requests("Starting initial single prompt test run...\n"
                           "Initial test run completed. Starting main benchmark run...\n") == 1);
    // said twice, counted once
    CHECK(untimed_requests("Initial test run completed.\nInitial test run completed.\n") == 1);
}

TEST_CASE("loadlog: warm-up requests are counted from the client's own line", "[loadlog]") {
    CHECK(untimed_requests("Warming up with 5 requests...\n") == 5);
    CHECK(untimed_requests("Warmup completed with 2 sequences. Starting main benchmark run...\n") == 2);
    CHECK(untimed_requests("Initial test run completed.\nWarming up with 3 requests...\n") == 4);
    // the first occurrence of each counts
    CHECK(untimed_requests("Warming up with 3 requests\nWarming up with 7 requests\n") == 3);
}

TEST_CASE("loadlog: a line that does not say a count is not one", "[loadlog]") {
    CHECK(untimed_requests("") == 0);
    CHECK(untimed_requests("Warming up with many requests\n") == 0);
    CHECK(untimed_requests("Warming up with 5 sequences\n") == 0);
    CHECK(untimed_requests("Initial test run failed.\n") == 0);
    // a later line that does say it is found past the one that does not
    CHECK(untimed_requests("Warming up with some requests\nWarming up with 6 requests\n") == 6);
}

TEST_CASE("loadlog: an absurd count is no count, and cannot overflow the sum", "[loadlog]") {
    CHECK(untimed_requests("Warming up with 99999999999999999999999 requests\n") == 0);
    CHECK(untimed_requests("Warming up with 1000000001 requests\n") == 0);
    CHECK(untimed_requests("Warming up with 1000000000 requests\n") == 1'000'000'000);
}

TEST_CASE("loadlog: progress bars and bytes that are not text around the lines are no error", "[loadlog]") {
    std::string log = "\r 10%|#         | 1/10 [00:01<00:09]\r 50%|#####     |";
    log += std::string("\0\xff\xfe", 3);
    log += "\nWarmup completed with 1 sequences\n\x1b[0m";
    CHECK(untimed_requests(log) == 1);
}

TEST_CASE("loadlog: the project's recorded load.log has the one initial test request", "[loadlog]") {
    CHECK(untimed_requests_in(testsupport::own_fixtures() / "vllm-sim" / "preempted" / "load.log") == 1);
    CHECK(untimed_requests_in(testsupport::own_fixtures() / "vllm-sim" / "healthy" / "load.log") == 1);
}

TEST_CASE("loadlog: an empty load.log says 0; a missing one or a folder is an InputError naming it",
          "[loadlog][badinput]") {
    testsupport::TempDir tmp("loadlog");
    util::write_file(tmp.path / "load.log", "");
    CHECK(untimed_requests_in(tmp.path / "load.log") == 0);
    CHECK_THROWS_MATCHES(untimed_requests_in(tmp.path / "missing.log"), InputError,
                         Catch::Matchers::Message((tmp.path / "missing.log").string() + ": no such file"));
    CHECK_THROWS_MATCHES(untimed_requests_in(tmp.path), InputError,
                         Catch::Matchers::Message(tmp.path.string() + ": is a folder, not a file"));
}

TEST_CASE("loadlog: a random dataset without a shared prefix in the client's Namespace line means unique prompts",
          "[loadlog][T16]") {
    // vllm bench serve prints its arguments first (the real one prints every argument).
    const std::string real =
        "INFO 10-01 01:30:02 [__init__.py:216] Automatically detected platform cuda.\n"
        "Namespace(subparser='bench', bench_type='serve', seed=0, num_prompts=32, dataset_name='random', "
        "no_stream=False, dataset_path=None, random_input_len=88, random_output_len=1000, random_range_ratio=0.0, "
        "random_prefix_len=0, random_batch_size=1, max_concurrency=32, model='qwen3-8b')\n"
        "Starting initial single prompt test run...\n";
    CHECK(unique_prompts_from_namespace(real) == "dataset_name='random' in load.log");
    // random_prefix_len absent (an older client) says the same.
    CHECK(unique_prompts_from_namespace("Namespace(dataset_name='random', num_prompts=8)\n") ==
          "dataset_name='random' in load.log");
    CHECK(unique_prompts_from_namespace("Namespace(dataset_name='random-mm', random_prefix_len=None)\n") ==
          "dataset_name='random-mm' in load.log");
    // A shared prefix is meant to hit the cache; another dataset repeats prompts by design.
    CHECK_FALSE(unique_prompts_from_namespace("Namespace(dataset_name='random', random_prefix_len=256)\n"));
    CHECK_FALSE(unique_prompts_from_namespace("Namespace(dataset_name='sharegpt', random_prefix_len=0)\n"));
    // A key that merely ends in dataset_name is not it; no Namespace line says nothing.
    CHECK_FALSE(unique_prompts_from_namespace("Namespace(hf_dataset_name='random', seed=0)\n"));
    CHECK_FALSE(unique_prompts_from_namespace("dataset_name='random'\n"));
    CHECK_FALSE(unique_prompts_from_namespace(""));
    CHECK_FALSE(unique_prompts_from_namespace("Namespace(dataset_name='random\n"));  // cut short
    testsupport::TempDir tmp("loadlog-ns");
    util::write_file(tmp.path / "load.log", real);
    CHECK(unique_prompts_in(tmp.path / "load.log") == "dataset_name='random' in load.log");
    CHECK_FALSE(unique_prompts_in(tmp.path / "missing.log"));
}
