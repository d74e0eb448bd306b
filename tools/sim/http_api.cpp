#include "http_api.hpp"

#include "log.hpp"
#include "metrics.hpp"

#include <fmt/format.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <csignal>
#include <sys/socket.h>
#include <unistd.h>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace sim {
namespace {

using nlohmann::json;

const char* const kWords[] = {" It", " is", " sunny", " and", " warm", " today", "."};
constexpr int kWordCount = sizeof(kWords) / sizeof(kWords[0]);

std::string text_of(int from, int to) {
    std::string t;
    for (int i = from; i < to; ++i) t += kWords[i % kWordCount];
    return t;
}

json error_doc(int code, const std::string& type, const std::string& message) {
    return json{{"error", {{"message", message}, {"type", type}, {"param", nullptr}, {"code", code}}}};
}

void send_json(httplib::Response& res, int status, const json& doc) {
    res.status = status;
    res.set_content(doc.dump(), "application/json");
}

// A prompt's tokens: one per word of a text prompt, one per id of a token list (an empty
// text is one token, as a real tokenizer gives it at least a BOS). nullopt: no prompt.
std::optional<std::vector<std::uint64_t>> prompt_token_ids(const json& prompt) {
    std::vector<std::uint64_t> ids;
    if (prompt.is_string()) {
        const std::string& s = prompt.get_ref<const std::string&>();
        auto space = [](char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; };
        for (std::size_t i = 0; i < s.size();) {
            while (i < s.size() && space(s[i])) ++i;
            std::size_t start = i;
            while (i < s.size() && !space(s[i])) ++i;
            if (i > start) ids.push_back(word_token(s.data() + start, s.data() + i));
        }
        if (ids.empty()) ids.push_back(0);
        return ids;
    }
    if (prompt.is_array() && !prompt.empty()) {
        if (!prompt[0].is_number_integer()) return prompt_token_ids(prompt[0]);
        for (const auto& id : prompt) ids.push_back(id.is_number_integer() ? id.get<std::uint64_t>() : 0);
        return ids;
    }
    return std::nullopt;
}

const char* status_class(int status) {
    return status < 200 ? "1xx" : status < 300 ? "2xx" : status < 400 ? "3xx" : status < 500 ? "4xx" : "5xx";
}

const char* reason(int status) {
    switch (status) {
        case 200:
            return "OK";
        case 400:
            return "Bad Request";
        case 404:
            return "Not Found";
        case 500:
            return "Internal Server Error";
        case 503:
            return "Service Unavailable";
        default:
            return "";
    }
}

}  // namespace

struct HttpApi::Impl {
    const ServeConfig& cfg;
    Shared& sh;
    int pid;
    double start_wall;
    httplib::Server svr;
    std::mutex http_mu;
    HttpCounts http;
    std::atomic<int> scrapes{0};
    std::atomic<long long> streams{0};  // streamed completions seen, for --sim-abort-every
    int listen_fd = -1;

    Impl(const ServeConfig& c, Shared& s, int p, double w) : cfg(c), sh(s), pid(p), start_wall(w) {}

    json chunk(const std::string& id, long long created, const std::string& text, const char* finish) const {
        json choice{{"index", 0},
                    {"text", text},
                    {"logprobs", nullptr},
                    {"finish_reason", finish ? json(finish) : json(nullptr)},
                    {"stop_reason", nullptr}};
        return json{{"id", id},
                    {"object", "text_completion"},
                    {"created", created},
                    {"model", cfg.served_name},
                    {"choices", json::array({choice})},
                    {"usage", nullptr}};
    }

    void completions(const httplib::Request& req, httplib::Response& res) {
        json body = json::parse(req.body, nullptr, false);
        if (!body.is_object())
            return send_json(res, 400, error_doc(400, "BadRequestError", "the request body is not a JSON object"));
        std::string model = body.value("model", std::string());
        if (!model.empty() && model != cfg.served_name && model != cfg.model)
            return send_json(res, 404,
                             error_doc(404, "NotFoundError", fmt::format("The model `{}` does not exist.", model)));
        auto ids = prompt_token_ids(body.value("prompt", json()));
        if (!ids) return send_json(res, 400, error_doc(400, "BadRequestError", "prompt must be given"));
        const PromptBlocks blocks = prompt_blocks(*ids, cfg.block_size);
        const int prompt = blocks.tokens;
        int max_tokens = body.value("max_tokens", 16);
        if (max_tokens < 1)
            return send_json(res, 400, error_doc(400, "BadRequestError", "max_tokens must be at least 1"));
        const bool stream = body.value("stream", false);
        bool include_usage = false;
        if (auto so = body.find("stream_options"); so != body.end() && so->is_object())
            include_usage = so->value("include_usage", false);

        int slot = -1;
        {
            Lock l(sh);
            if (sh.core_dead)
                return send_json(res, 500,
                                 error_doc(500, "InternalServerError",
                                           "EngineCore encountered an issue. See stack trace (above) for "
                                           "the root cause."));
            ++sh.completions_seen;
            if (sh.cfg.crash_on_request > 0 && sh.completions_seen == sh.cfg.crash_on_request) {
                sh.crash_now = true;
                pthread_cond_signal(&sh.work);
            }
            Admit a = submit(sh, blocks, max_tokens, mono_s(), &slot);
            if (a == Admit::too_long)
                return send_json(
                    res, 400,
                    error_doc(400, "BadRequestError",
                              fmt::format("This model's maximum context length is {} tokens. However, you requested "
                                          "{} tokens ({} in the messages, {} in the completion). Please reduce the "
                                          "length of the messages or completion.",
                                          cfg.max_model_len, prompt + max_tokens, prompt, max_tokens)));
            if (a == Admit::queue_full)
                return send_json(res, 503,
                                 error_doc(503, "ServiceUnavailableError",
                                           "The server is overloaded: too many requests are waiting."));
            // T20's trap: the engine aborts every K-th streamed completion as it arrives
            // (counted as finished_reason="abort", as vLLM counts an abort), and the client
            // gets an error. Streamed only, so xray's probe (plain requests) is untouched.
            if (stream && cfg.abort_every > 0 && ++streams % cfg.abort_every == 0) {
                release(sh, slot, mono_s());
                return send_json(res, 500,
                                 error_doc(500, "InternalServerError",
                                           "the request was aborted (the simulator's --sim-abort-every)"));
            }
        }
        const std::string id = fmt::format("cmpl-sim{:08x}", static_cast<unsigned>(slot * 7919 + pid));
        const auto created = static_cast<long long>(wall_s());
        if (stream) return stream_answer(res, slot, id, created, prompt, include_usage);
        plain_answer(res, slot, id, created, prompt);
    }

    // A completion without streaming: the whole text once the engine is done with it.
    void plain_answer(httplib::Response& res, int slot, const std::string& id, long long created, int prompt) {
        Lock l(sh);
        for (;;) {
            Slot& r = sh.slots[slot];
            if (r.state == SlotState::done) {
                json doc = chunk(id, created, text_of(0, r.generated), "length");
                doc["usage"] = {{"prompt_tokens", prompt},
                                {"total_tokens", prompt + r.generated},
                                {"completion_tokens", r.generated}};
                release(sh, slot, mono_s());
                return send_json(res, 200, doc);
            }
            if (sh.core_dead) {
                release(sh, slot, mono_s());
                return send_json(res, 500,
                                 error_doc(500, "InternalServerError",
                                           "EngineCore encountered an issue. See stack trace (above) for "
                                           "the root cause."));
            }
            wait_for(sh, sh.progress, 0.1);
        }
    }

    void stream_answer(httplib::Response& res, int slot, const std::string& id, long long created, int prompt,
                       bool include_usage) {
        // Tokens sent, and the engine steps whose tokens are in them: one chunk per step.
        auto sent = std::make_shared<std::pair<int, long long>>(0, 0);
        res.status = 200;
        res.set_chunked_content_provider(
            "text/event-stream",
            [this, slot, id, created, prompt, include_usage, sent](size_t, httplib::DataSink& sink) {
                int generated = 0;
                bool done = false, dead = false;
                std::vector<int> ends;  // the token count at the end of each step not sent yet
                {
                    Lock l(sh);
                    // A client gone for good stays unwritable; one that reads slowly on a
                    // loaded machine can read as unwritable for a moment. Only the first is
                    // an abort (vLLM's, when the client disconnects).
                    int unwritable = 0;
                    for (;;) {
                        const Slot& r = sh.slots[slot];
                        generated = r.generated;
                        done = r.state == SlotState::done;
                        dead = sh.core_dead;
                        if (generated > sent->first || done || dead) break;
                        wait_for(sh, sh.progress, 0.1);
                        unwritable = sink.is_writable() ? 0 : unwritable + 1;
                        if (unwritable >= 20) return false;
                    }
                    const Slot& r = sh.slots[slot];
                    // A stream more than kStepRing steps behind sends the older ones as one chunk.
                    for (long long j = std::max(sent->second, r.n_steps - kStepRing); j < r.n_steps; ++j)
                        ends.push_back(r.step_ends[j % kStepRing]);
                    sent->second = r.n_steps;
                }
                std::string out;
                for (int end : ends) {
                    if (end <= sent->first) continue;
                    out += "data: " + chunk(id, created, text_of(sent->first, end), nullptr).dump() + "\n\n";
                    sent->first = end;
                }
                if (done) {
                    out += "data: " + chunk(id, created, "", "length").dump() + "\n\n";
                    if (include_usage) {
                        json u = chunk(id, created, "", nullptr);
                        u["choices"] = json::array();
                        u["usage"] = {{"prompt_tokens", prompt},
                                      {"total_tokens", prompt + generated},
                                      {"completion_tokens", generated}};
                        out += "data: " + u.dump() + "\n\n";
                    }
                } else if (dead) {
                    out += "data: " + error_doc(500, "InternalServerError", "EngineCore encountered an issue.").dump() +
                           "\n\n";
                }
                if (!out.empty() && !sink.write(out.data(), out.size())) return false;
                if (done || dead) {
                    const std::string tail = "data: [DONE]\n\n";
                    sink.write(tail.data(), tail.size());
                    sink.done();
                }
                return true;
            },
            [this, slot](bool) {
                Lock l(sh);
                release(sh, slot, mono_s());
            });
    }

    void routes() {
        svr.new_task_queue = [] { return new httplib::ThreadPool(512); };
        // SO_REUSEADDR only (httplib's default adds SO_REUSEPORT, which would let two
        // simulators share a port), and the listening socket kept so bind() can widen
        // its backlog.
        svr.set_socket_options([this](socket_t sock) {
            int yes = 1;
            setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
            listen_fd = sock;
        });
        // vLLM 0.30's AuthenticationMiddleware: only paths under /v1, and the exact header.
        svr.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
            if (cfg.api_key.empty() || !req.path.starts_with("/v1") ||
                req.get_header_value("Authorization") == "Bearer " + cfg.api_key)
                return httplib::Server::HandlerResponse::Unhandled;
            send_json(res, 401, json{{"error", "Unauthorized"}});
            return httplib::Server::HandlerResponse::Handled;
        });
        svr.Get("/health", [this](const httplib::Request&, httplib::Response& res) {
            Lock l(sh);
            res.status = sh.core_dead ? 503 : 200;
        });
        svr.Get("/version", [this](const httplib::Request&, httplib::Response& res) {
            send_json(res, 200, json{{"version", cfg.version}});
        });
        svr.Get("/v1/models", [this](const httplib::Request&, httplib::Response& res) {
            json m{{"id", cfg.served_name},
                   {"object", "model"},
                   {"created", static_cast<long long>(start_wall)},
                   {"owned_by", "vllm"},
                   {"root", cfg.model},
                   {"parent", nullptr},
                   {"max_model_len", cfg.max_model_len}};
            send_json(res, 200, json{{"object", "list"}, {"data", json::array({m})}});
        });
        svr.Post("/v1/completions",
                 [this](const httplib::Request& req, httplib::Response& res) { completions(req, res); });
        svr.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
            if (cfg.metrics_delay_s > 0)
                std::this_thread::sleep_for(std::chrono::duration<double>(cfg.metrics_delay_s));
            HttpCounts counts;
            {
                std::lock_guard g(http_mu);
                counts = http;
            }
            MetricsContext ctx{cfg.served_name, cfg.gpu_memory_utilization, start_wall, &counts};
            std::string text;
            {
                Lock l(sh);
                text = metrics_text(sh, ctx);
            }
            res.set_content(text, "text/plain; version=0.0.4; charset=utf-8");
            if (cfg.die_after_scrapes > 0 && ++scrapes == cfg.die_after_scrapes) {
                // Killed outright once this answer has had time to go out: a death at a
                // known point of a recording, however slow the machine running the test.
                std::thread([core = sh.core_pid] {
                    std::this_thread::sleep_for(std::chrono::milliseconds(200));
                    if (core > 0) kill(core, SIGKILL);
                    kill(getpid(), SIGKILL);
                }).detach();
            }
        });
        svr.Get("/sim/state", [this](const httplib::Request&, httplib::Response& res) {
            Lock l(sh);
            res.set_content(state_json(sh), "application/json");
        });
        svr.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
            log_plain("APIServer", pid,
                      fmt::format("INFO:     {}:{} - \"{} {} HTTP/1.1\" {} {}", req.remote_addr, req.remote_port,
                                  req.method, req.path, res.status, reason(res.status)));
            if (req.path == "/metrics" || req.path == "/sim/state") return;  // as vLLM, which excludes /metrics
            std::lock_guard g(http_mu);
            HttpCounts::Key k{req.path, req.method, status_class(res.status)};
            if (!http.requests.count(k)) http.created[k] = wall_s();
            ++http.requests[k];
        });
    }
};

HttpApi::HttpApi(const ServeConfig& cfg, Shared& shared, int pid, double start_wall)
    : impl_(std::make_unique<Impl>(cfg, shared, pid, start_wall)) {
    impl_->routes();
}

HttpApi::~HttpApi() = default;

int HttpApi::bind() {
    // Only ever the loopback interface: the simulator is for tests on this machine.
    const int port = impl_->cfg.port == 0                                    ? impl_->svr.bind_to_any_port("127.0.0.1")
                     : impl_->svr.bind_to_port("127.0.0.1", impl_->cfg.port) ? impl_->cfg.port
                                                                             : -1;
    // httplib listens with a backlog of 5. A burst of connections (a benchmark's clients
    // plus a recorder's scrapes) while the accept thread waits for a busy CPU overflows
    // it, and a client whose connection the kernel dropped reads a reset: one request
    // "failed" that the engine never saw. vLLM's server (uvicorn) listens with 2048;
    // listening again on the bound socket widens the queue.
    if (port > 0 && impl_->listen_fd >= 0) ::listen(impl_->listen_fd, 4096);
    return port;
}

void HttpApi::listen() { impl_->svr.listen_after_bind(); }

void HttpApi::stop() { impl_->svr.stop(); }

}  // namespace sim
