// T19, added by this project: another tenant on the server's GPUs during the run.
#include "catalog_table.hpp"

namespace inferlint::catalog_table {

Tripwire gpu_shared() {
    return {
        .id = "T19",
        .key = TripwireId::T19,
        .slug = "gpu-shared",
        .name = "Another tenant on the GPU",
        .trap = "another process took GPU memory while the server was measured",
        .what =
            "A GPU is shared by whatever runs on the host: a watchdog that restores a service when the "
            "queue is idle, a notebook, a second server. A tenant that arrives during the run takes "
            "memory and compute the server was sized and measured without. On one machine xray reads it from "
            "nvidia-smi; on a cluster report --prometheus reads it from NVIDIA's DCGM exporter "
            "(DCGM_FI_DEV_FB_USED and the pod each GPU is given to).",
        .why =
            "A watchdog revived a 50 GB service onto the GPU under test; the control server got about a "
            "tenth of its KV capacity (89,536 against 919,232 tokens), which would have read as "
            "speculative decoding being 10x faster.",
        .check =
            "xray reads, every 5 s during the load and once at its end, the memory used on each GPU "
            "(`nvidia-smi --query-gpu=index,uuid,memory.used`) and the compute processes "
            "(`--query-compute-apps=pid,process_name,used_memory,gpu_uuid`), with the server's process "
            "tree, into gpu.jsonl. Fails when a process outside the server's tree (its own pids and "
            "those the boot log names) holds memory on the server's GPUs, naming it (pid, name, MiB), "
            "or when the memory used outside the server grows by more than 1,024 MiB. Fewer than two "
            "readings (nvidia-smi missing, hanging or printing garbage) is Can't tell. The server's "
            "GPUs are those its processes hold memory on; when nvidia-smi shows none of them (a "
            "container), every GPU read. On a cluster, where the node's processes cannot be seen, `report "
            "--prometheus` reads NVIDIA's DCGM exporter instead (DCGM_FI_DEV_FB_USED, labelled with the pod "
            "each GPU is given to): the server's GPUs are those DCGM maps the replicas' pods to; it fails when "
            "another pod is mapped to one of them during the window (naming namespace/pod and the GPU) or a "
            "GPU's memory used grows by more than 1,024 MiB, and says Can't tell naming the query that found "
            "nothing. `gpu-inspect --prometheus URL --node NODE` gives T2 for a Kubernetes node from the same "
            "series.",
        .command = "inferlint xray -o RUN --serve 'vllm serve MODEL' -- vllm bench serve ...",
        .shown_by = {"gpu-inspect", "report", "xray"},
        .needs = "need xray's GPU recording",
        .examples = {},
        .measured =
            "The simulator's nvidia-smi with a tenant that appears mid-run (INFERLINT_SIM_GPU_TENANT): "
            "the tenant named with its pid and MiB; without it, a pass.",
        .verified =
            "the simulator end to end with the tenant on and off; recordings cut and garbled; a real "
            "Prometheus scraping a fake dcgm-exporter with a tenant pod mid-window",
        .notes = {"",
                  "the same readings: its scheduler processes (one per tensor-parallel rank) are children of "
                  "the command xray started, so they count as the server's.",
                  "the same readings: the MPI ranks trtllm-serve starts are its children, so they count as the "
                  "server's; a rank started by mpirun outside xray's command would look like a tenant."},
    };
}

}  // namespace inferlint::catalog_table
