// T17, beyond the Python tool: the configuration the server ran, against the one asked.
#include "catalog_table.hpp"

namespace inferlint::catalog_table {

Tripwire realized_config() {
    using Ex = TripwireExample;
    return {
        .id = "T17",
        .key = TripwireId::T17,
        .slug = "realized-config",
        .name = "The server ran a configuration nobody asked for",
        .trap = "the checkpoint or the engine changed a setting the flags never named",
        .what =
            "The command line is not the whole configuration. A quantized checkpoint's config.json can "
            "carry a quantization_config with an 8-bit kv_cache_scheme, and vLLM then stores the KV "
            "cache in FP8 without --kv-cache-dtype; engines also pick attention backends, CUDA graph "
            "modes, block sizes and limits of their own.",
        .why =
            "Two quantized checkpoints served with identical flags held 940,736 and 529,856 KV tokens "
            "(1.775x), because one checkpoint switched FP8 KV on. More KV means more requests at once "
            "and higher throughput, and a diff of the command lines never shows why.",
        .check =
            "One start: compares the KV cache dtype the log says the engine used (vLLM's \"Using fp8 "
            "data type to store kv cache\" and its engine config line, SGLang's KV allocation line, "
            "TensorRT-LLM's KV quantization line) with the one the command line asked, and warns when "
            "they differ. With --model-config PATH, or a local model folder named in the log, it reads "
            "config.json's quantization_config and names the kv_cache_scheme as the cause. Several "
            "starts: lists engine version, KV dtype, KV capacity, block size, attention backends "
            "(target and draft), parallel sizes, max running requests, max model length, GPU memory "
            "utilization, prefix caching, chunked prefill, speculative decoding, quantization, CUDA "
            "graphs and compile mode as asked and as run, and warns naming every field that differs. A fleet "
            "with no boot logs: the replicas' KV pool, block size and KV dtype from /metrics, held against "
            "each other.",
        .command = "inferlint check-log boot.log [boot2.log ...] [--model-config PATH]",
        .shown_by = {"check-log", "report", "xray"},
        .needs = "need a boot log",
        .examples = {Ex{{"check-log", "vllm-0.28/boot_fp8_triton.log", "--tripwires", "T17"},
                        {"[T17] PASS  KV cache in fp8, as asked (--kv-cache-dtype fp8)"},
                        Ex::Output::excerpt}},
        .measured =
            "The recorded vLLM 0.28 start of a W4A16 checkpoint logs \"Using fp8 data type to store "
            "kv cache\" with --kv-cache-dtype fp8 asked (a pass); the same log without the flag "
            "warns. SGLang 0.5 logs its KV dtype (torch.bfloat16) and two starts with the same "
            "flags ran the same configuration.",
        .verified = "fixture 0.28 (FP8 KV, and the flag removed); SGLang, TensorRT-LLM (2 starts each)",
        .notes = {"",
                  "the KV dtype is read from \"KV Cache is allocated. dtype: ...\"; server_args is what "
                  "was asked.",
                  "the log says \"KV cache quantization set to \"auto\". Using checkpoint KV quantization.\" "
                  "without naming it; the setting asked is read from the loader's \"Validating KV Cache config "
                  "against kv_cache_dtype=\" line (or 1.1's PyTorchConfig), so auto passes as asked, and "
                  "--model-config names the checkpoint's dtype (a warning when it is FP8)."},
    };
}

}  // namespace inferlint::catalog_table
