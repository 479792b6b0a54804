//! The commands a user would type to serve a planned configuration: `vllm serve`,
//! `python -m sglang.launch_server` or `trtllm-serve`, with the flags that set what the lab
//! modelled (tensor parallelism, context limit, the scheduler's caps, the memory share, prefix
//! caching, precision), and for several replicas or a prefill/decode split the router or the
//! roles.

use sim_core::catalog::Dtype;
use sim_core::profile::Engine;
use sim_core::scenario::ModelRef;
use sim_core::scenario::Policy;
use sim_core::Scenario;

/// The Hugging Face repository of each catalogue model (the checkpoint the lab's figures
/// describe: the instruct or chat release where there is one).
pub const HF_REPOS: [(&str, &str); 22] = [
    ("llama-2-7b", "meta-llama/Llama-2-7b-chat-hf"),
    ("llama-2-13b", "meta-llama/Llama-2-13b-chat-hf"),
    ("llama-2-70b", "meta-llama/Llama-2-70b-chat-hf"),
    ("llama-3-8b", "meta-llama/Meta-Llama-3-8B-Instruct"),
    ("llama-3.1-8b", "meta-llama/Llama-3.1-8B-Instruct"),
    ("llama-3-70b", "meta-llama/Meta-Llama-3-70B-Instruct"),
    ("mistral-7b", "mistralai/Mistral-7B-Instruct-v0.1"),
    ("qwen2.5-7b", "Qwen/Qwen2.5-7B-Instruct"),
    ("qwen2.5-72b", "Qwen/Qwen2.5-72B-Instruct"),
    ("qwen3-32b", "Qwen/Qwen3-32B"),
    ("mixtral-8x7b", "mistralai/Mixtral-8x7B-Instruct-v0.1"),
    ("qwen3-8b", "Qwen/Qwen3-8B"),
    ("qwen3-30b-a3b", "Qwen/Qwen3-30B-A3B"),
    ("qwen3-235b-a22b", "Qwen/Qwen3-235B-A22B"),
    ("qwen3.5-397b-a17b", "Qwen/Qwen3.5-397B-A17B"),
    ("deepseek-v3", "deepseek-ai/DeepSeek-V3"),
    ("kimi-k2", "moonshotai/Kimi-K2-Instruct"),
    ("glm-5", "zai-org/GLM-5"),
    ("gpt-oss-20b", "openai/gpt-oss-20b"),
    ("gpt-oss-120b", "openai/gpt-oss-120b"),
    ("llama-3.1-70b", "meta-llama/Llama-3.1-70B-Instruct"),
    ("llama-3.1-405b", "meta-llama/Llama-3.1-405B-Instruct"),
];

/// The repository to serve for `m` (an inline model: its id).
pub fn repo(m: &ModelRef) -> String {
    let id = m.id();
    HF_REPOS.iter().find(|(k, _)| *k == id).map_or_else(|| id.to_string(), |(_, r)| r.to_string())
}

fn fmt_share(x: f64) -> String {
    let s = format!("{x:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The server command of one replica of `s` (every replica runs the same).
fn server(s: &Scenario, role: Option<&str>) -> String {
    let r = repo(&s.model);
    let k = &s.scheduler;
    let mut a: Vec<String> = Vec::new();
    let quantized = matches!(s.dtype, Dtype::Fp8);
    let kv_fp8 = s.kv_dtype() == Dtype::Fp8 && s.dtype != Dtype::Fp8;
    match s.engine_profile {
        Engine::Vllm => {
            a.push(format!("vllm serve {r}"));
            a.push(format!("--tensor-parallel-size {}", s.num_gpus));
            a.push(format!("--max-model-len {}", k.max_model_len));
            a.push(format!("--max-num-seqs {}", k.max_num_seqs));
            a.push(format!("--max-num-batched-tokens {}", k.max_num_batched_tokens));
            a.push(format!("--gpu-memory-utilization {}", fmt_share(s.gpu_memory_utilization)));
            a.push(if k.prefix_caching { "--enable-prefix-caching" } else { "--no-enable-prefix-caching" }.into());
            if !k.chunked_prefill {
                a.push("--no-enable-chunked-prefill".into());
            }
            if quantized {
                a.push("--quantization fp8".into());
            }
            if kv_fp8 || (quantized && s.kv_dtype() == Dtype::Fp8) {
                a.push("--kv-cache-dtype fp8".into());
            }
            if role.is_some() {
                a.push(r#"--kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'"#.into());
            }
        }
        Engine::Sglang => {
            a.push(format!("python -m sglang.launch_server --model-path {r}"));
            a.push(format!("--tp {}", s.num_gpus));
            a.push(format!("--context-length {}", k.max_model_len));
            a.push(format!("--max-running-requests {}", k.max_num_seqs));
            a.push(format!("--chunked-prefill-size {}", k.max_num_batched_tokens));
            a.push(format!("--mem-fraction-static {}", fmt_share(s.gpu_memory_utilization)));
            if !k.prefix_caching {
                a.push("--disable-radix-cache".into());
            }
            if quantized {
                a.push("--quantization fp8".into());
            }
            if s.kv_dtype() == Dtype::Fp8 {
                a.push("--kv-cache-dtype fp8_e4m3".into());
            }
            if let Some(role) = role {
                a.push(format!("--disaggregation-mode {role}"));
            }
        }
        Engine::Trtllm => {
            a.push(format!("trtllm-serve {r}"));
            a.push(format!("--tp_size {}", s.num_gpus));
            a.push(format!("--max_seq_len {}", k.max_model_len));
            a.push(format!("--max_batch_size {}", k.max_num_seqs));
            a.push(format!("--max_num_tokens {}", k.max_num_batched_tokens));
            a.push(format!("--kv_cache_free_gpu_memory_fraction {}", fmt_share(s.gpu_memory_utilization)));
        }
    }
    a.join(" ")
}

/// The commands that serve scenario `s`: a comment line saying how many of each, then each
/// kind of server, then the router when there is more than one.
pub fn commands(s: &Scenario) -> Vec<String> {
    let mut out = Vec::new();
    let affinity = s.router.policy == Policy::PrefixAffinity;
    match &s.disaggregation {
        Some(d) => {
            // each pool's servers on its own tensor parallelism
            let (ps, ds) = (s.replica_scenario(0), s.replica_scenario(d.replicas() as usize - 1));
            let same = ps.num_gpus == ds.num_gpus;
            out.push(if same {
                format!(
                    "# {} prefill and {} decode servers of {} × {} GPU each, the prompts' KV sent from one to the other",
                    d.prefill_replicas,
                    d.decode_replicas,
                    s.num_gpus,
                    s.gpu.id()
                )
            } else {
                format!(
                    "# {} prefill servers of {} × {} GPU and {} decode servers of {} × {} GPU each, the prompts' KV sent from one to the other",
                    d.prefill_replicas,
                    ps.num_gpus,
                    s.gpu.id(),
                    d.decode_replicas,
                    ds.num_gpus,
                    s.gpu.id()
                )
            });
            match s.engine_profile {
                Engine::Trtllm => {
                    out.push(format!(
                        "# trtllm-serve disaggregated -c disagg.yaml  (context_servers: {} × tp {}, generation_servers: {} × tp {})",
                        d.prefill_replicas, ps.num_gpus, d.decode_replicas, ds.num_gpus
                    ));
                    out.push(server(&ps, None));
                    if !same {
                        out.push(server(&ds, None));
                    }
                }
                Engine::Sglang => {
                    out.push(server(&ps, Some("prefill")));
                    out.push(server(&ds, Some("decode")));
                    out.push("python -m sglang_router.launch_router --pd-disaggregation --prefill http://PREFILL_HOST:30000 --decode http://DECODE_HOST:30000".into());
                }
                Engine::Vllm => {
                    out.push(server(&ps, Some("prefill")));
                    if !same {
                        out.push(server(&ds, Some("decode")));
                    }
                    out.push(
                        "# a proxy sends each request to a prefill server with max_tokens 1, then to a decode server"
                            .into(),
                    );
                }
            }
        }
        None => {
            let n = s.replicas.max(1);
            out.push(format!(
                "# {n} replica{} of {} × {} GPU each",
                if n == 1 { "" } else { "s" },
                s.num_gpus,
                s.gpu.id()
            ));
            out.push(server(s, None));
            if n > 1 {
                out.push(match s.engine_profile {
                    Engine::Sglang => format!(
                        "python -m sglang_router.launch_router --worker-urls http://HOST_1:30000 … http://HOST_{n}:30000 --policy {}",
                        if affinity { "cache_aware" } else { "round_robin" }
                    ),
                    _ => format!(
                        "# a router in front of the {n} servers: {}",
                        if affinity { "prefix-aware (the same prompt prefix to the same server)" } else { "least outstanding requests" }
                    ),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_catalogue_model_has_a_repository() {
        for m in sim_core::catalog::models() {
            assert!(HF_REPOS.iter().any(|(id, _)| *id == m.id), "{} has no repository", m.id);
        }
        assert_eq!(HF_REPOS.len(), sim_core::catalog::models().len());
    }

    /// The flags say what the scenario sets, one flag per setting.
    #[test]
    fn the_flags_carry_the_caps() {
        let mut s = sim_core::presets::find("chat-latency-first").unwrap().scenario();
        s.scheduler.max_num_seqs = 37;
        s.scheduler.max_num_batched_tokens = 3000;
        for e in Engine::ALL {
            s.engine_profile = e;
            let c = commands(&s).join("\n");
            assert!(c.contains("37") && c.contains("3000"), "{e:?}: {c}");
            assert!(c.contains("meta-llama/"), "{c}");
        }
    }

    /// A split with its own TP per pool: each role's server says its own.
    #[test]
    fn each_role_says_its_own_tensor_parallelism() {
        let mut s = sim_core::presets::find("disaggregated").unwrap().scenario();
        s.disaggregation.as_mut().unwrap().prefill_num_gpus = Some(2);
        s.disaggregation.as_mut().unwrap().decode_num_gpus = Some(4);
        for (e, flag) in
            [(Engine::Vllm, "--tensor-parallel-size"), (Engine::Sglang, "--tp"), (Engine::Trtllm, "--tp_size")]
        {
            s.engine_profile = e;
            let c = commands(&s);
            let with = |n: u32| c.iter().filter(|l| l.contains(&format!("{flag} {n} "))).count();
            assert_eq!((with(2), with(4), with(1)), (1, 1, 0), "{e:?}: {c:#?}");
            assert!(
                c[0].contains("2 prefill servers of 2 × h100-sxm") && c[0].contains("2 decode servers of 4 ×"),
                "{}",
                c[0]
            );
        }
    }
}
