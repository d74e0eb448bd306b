// T19 and T2 from DCGM (dcgm-exporter through Prometheus): the readings made from a query's
// answer (tests/fixtures/dcgm/tenant.query_range.json, a range answer of DCGM_FI_DEV_FB_USED
// on two GPUs with a tenant pod arriving on one), the verdicts, and one-change mutations.
#include "inferlint/checks/dcgm_gpu.hpp"
#include "inferlint/core/catalog.hpp"
#include "inferlint/parse/dcgm.hpp"
#include "inferlint/parse/prom_api.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"

#include "../support.hpp"

using namespace inferlint;
using Catch::Matchers::Contains;

namespace {

const std::string kQuery = R"(DCGM_FI_DEV_FB_USED{UUID=~"GPU-..."})";

Json dcgm_fixture() {
    return Json::parse(util::read_file(testsupport::own_fixtures() / "dcgm" / "tenant.query_range.json"));
}

std::vector<parse::DcgmReading> dcgm_of(const Json& doc) {
    return parse::dcgm_readings(parse::parse_prom_answer(doc.dump(), "test"));
}

CheckResult dcgm_t19(const Json& doc) {
    return checks::check_gpu_shared_dcgm(dcgm_of(doc), {"vllm-0", "vllm-1"}, kQuery, 1024);
}

}  // namespace

TEST_CASE("T19 DCGM: a range answer read as readings, with the pod, namespace and GPU labels", "[T19]") {
    const auto rs = dcgm_of(dcgm_fixture());
    REQUIRE(rs.size() == 10);
    CHECK(rs.front().t == 1764900000.0);
    CHECK(rs.front().uuid == "GPU-5fd4ab2e-8b01-2c0d-8ce0-f9a3c27b1c40");
    CHECK(rs.front().gpu == "0");
    CHECK(rs.front().host == "gpu-node-7");
    CHECK(rs.front().pod == "vllm-0");
    CHECK(rs.front().space == "bench");
    CHECK(rs.front().mib == 33012);
    CHECK(parse::dcgm_pod_words(rs.front()) == "bench/vllm-0");
    CHECK(parse::dcgm_gpu_words(rs.front()) == "GPU 0 on gpu-node-7 (GPU-5fd4ab2e-8b01-2c0d-8ce0-f9a3c27b1c40)");

    // Scraped without honour_labels, the exporter's pod arrives as exported_pod.
    Json doc = dcgm_fixture();
    auto& m = doc["data"]["result"][0]["metric"];
    m["exported_pod"] = m["pod"];
    m["exported_namespace"] = m["namespace"];
    m["pod"] = "dcgm-exporter-x7k2p";
    m["namespace"] = "gpu-operator";
    CHECK(dcgm_of(doc).front().pod == "vllm-0");
    CHECK(dcgm_of(doc).front().space == "bench");

    // Not a reading: NaN, a negative, a series without a UUID (not dcgm-exporter's).
    doc = dcgm_fixture();
    doc["data"]["result"][2]["values"][0][1] = "NaN";
    doc["data"]["result"][2]["values"][1][1] = "-1";
    doc["data"]["result"][1]["metric"].erase("UUID");
    CHECK(dcgm_of(doc).size() == 6);
}

TEST_CASE("T19 DCGM: a pod of another namespace given the server's GPU mid-window fails, named", "[T19]") {
    const CheckResult r = dcgm_t19(dcgm_fixture());
    CHECK(r.tripwire == TripwireId::T19);
    CHECK(r.status == Status::fail);
    CHECK_THAT(r.message, Contains("pod ml-serving/watchdog-restored-0 was given GPU 0 on gpu-node-7"));
    CHECK_THAT(r.message, Contains("73974 MiB"));
    REQUIRE(r.evidence["other_pods"].size() == 1);
    CHECK(r.evidence["other_pods"][0]["pod"] == "watchdog-restored-0");
    CHECK(r.evidence["gpus"] == 2);
}

TEST_CASE("T19 DCGM: mutations flip the verdict one change at a time", "[T19]") {
    // The tenant's series gone (not a pod: a process on the host): the growth fails.
    Json doc = dcgm_fixture();
    doc["data"]["result"].erase(1);
    CheckResult r = dcgm_t19(doc);
    CHECK(r.status == Status::fail);
    CHECK_THAT(r.message, Contains("memory used on GPU 0 on gpu-node-7"));
    CHECK_THAT(r.message, Contains("grew by 40962 MiB (33012 to 73974 MiB)"));

    // ... and no growth either: a pass.
    doc["data"]["result"][0]["values"][2][1] = "33012";
    doc["data"]["result"][0]["values"][3][1] = "33500";  // under the 1,024 MiB threshold
    r = dcgm_t19(doc);
    CHECK(r.status == Status::pass);
    CHECK_THAT(r.message, Contains("no other pod on the server's 2 GPUs"));

    // The tenant on a GPU none of the server's pods has: not the server's business.
    doc = dcgm_fixture();
    doc["data"]["result"][1]["metric"]["UUID"] = "GPU-ffffffff-0000-0000-0000-000000000000";
    doc["data"]["result"][0]["values"][2][1] = "33012";
    doc["data"]["result"][0]["values"][3][1] = "33012";
    CHECK(dcgm_t19(doc).status == Status::pass);

    // The tenant counted as the server's own pod: a pass too.
    doc = dcgm_fixture();
    CHECK(checks::check_gpu_shared_dcgm(dcgm_of(doc), {"vllm-0", "vllm-1", "watchdog-restored-0"}, kQuery, 50000)
              .status == Status::pass);
}

TEST_CASE("T19 DCGM: no reading of the server's pods, or one, is Can't tell naming the query", "[T19]") {
    CheckResult r = checks::check_gpu_shared_dcgm({}, {"vllm-0"}, kQuery, 1024);
    CHECK(r.status == Status::unknown);
    CHECK_THAT(r.message, Contains("Can't tell"));
    CHECK_THAT(r.message, Contains(kQuery + " found nothing"));

    r = checks::check_gpu_shared_dcgm(dcgm_of(dcgm_fixture()), {"vllm-9"}, kQuery, 1024);
    CHECK(r.status == Status::unknown);

    Json doc = dcgm_fixture();
    for (auto& s : doc["data"]["result"]) s["values"] = Json::array({s["values"][0]});
    doc["data"]["result"].erase(1);
    r = dcgm_t19(doc);
    CHECK(r.status == Status::unknown);
    CHECK_THAT(r.message, Contains("1 reading"));
}

TEST_CASE("T19 DCGM: garbage from Prometheus is a one-line InputError, never readings", "[T19]") {
    CHECK_THROWS_AS(parse::parse_prom_answer("<html>502 Bad Gateway</html>", "http://prom"), InputError);
    CHECK_THROWS_AS(parse::parse_prom_answer(R"({"status":"success","data":{"resultType":"matrix","result":[)"
                                             R"({"metric":{"UUID":"GPU-1"},"values":[[1,"x"]]}]}})",
                                             "http://prom"),
                    InputError);
}

TEST_CASE("T2 DCGM: a node's GPUs held by pods fail, named; none read is Can't tell", "[T19][T2]") {
    Json doc = dcgm_fixture();
    for (auto& s : doc["data"]["result"]) s["values"] = Json::array({s["values"].back()});
    const auto used = dcgm_of(doc);
    CheckResult r = checks::check_gpu_clear_dcgm(used, {}, 800, "");
    CHECK(r.tripwire == TripwireId::T2);
    CHECK(r.status == Status::fail);
    CHECK_THAT(r.message, Contains("given to bench/vllm-0, ml-serving/watchdog-restored-0"));
    CHECK(r.evidence["gpus"].size() == 2);

    for (auto& s : doc["data"]["result"]) {
        s["metric"]["pod"] = "";
        s["metric"]["namespace"] = "";
        s["values"][0][1] = "0";
    }
    r = checks::check_gpu_clear_dcgm(dcgm_of(doc), {}, 800, "");
    CHECK(r.status == Status::pass);

    r = checks::check_gpu_clear_dcgm({}, {}, 800, "DCGM_FI_DEV_FB_USED{Hostname=\"x\"} found no GPU");
    CHECK(r.status == Status::unknown);
    CHECK_THAT(r.message, Contains("found no GPU"));
}

TEST_CASE("T19: explain says it is read from DCGM on a cluster, and how", "[T19][catalog]") {
    const std::string text = explain_text(*lookup_tripwire("T19"), nullptr, 1000);
    CHECK_THAT(text, Contains("NVIDIA's DCGM exporter (DCGM_FI_DEV_FB_USED and the pod each GPU is given to)"));
    CHECK_THAT(text, Contains("on a cluster report --prometheus reads it"));
}
