//! Engine profiles: a scenario names the engine it models, the profile fills the scheduler fields
//! the file leaves out, fields the file gives win, and choosing a profile in the controls sets
//! those still at the old profile's defaults and keeps the limits the user set.

use sim_core::presets::PRESETS;
use sim_core::profile::{Engine, SGLANG_MAX_PREFILL_TOKENS};
use sim_core::scenario::{Batching, KvLayout};
use sim_core::settings::{self, Value};
use sim_core::{Scenario, Simulation};

/// A scenario with no scheduler at all, on `gpu`, naming `profile` when given.
fn minimal(gpu: &str, profile: Option<&str>, scheduler: &str) -> String {
    let profile = profile.map(|p| format!(r#""engine_profile": "{p}","#)).unwrap_or_default();
    format!(
        r#"{{ "version": 1, "seed": 3, "model": "llama-3.1-8b", "gpu": "{gpu}", "dtype": "bf16",
            "gpu_memory_utilization": 0.9, {profile} {scheduler}
            "classes": [ {{ "name": "chat", "arrival": {{ "kind": "poisson", "rate_per_s": 4 }},
              "num_requests": 200, "input_tokens": {{ "kind": "lognormal", "mean": 1500, "sigma": 0.6 }},
              "output_tokens": {{ "kind": "lognormal", "mean": 200, "sigma": 0.5 }} }} ] }}"#
    )
}

#[test]
fn a_scenario_without_a_scheduler_gets_vllms_defaults_for_its_gpu() {
    let s = Scenario::from_json(&minimal("h100-sxm", None, "")).unwrap();
    assert_eq!(s.engine_profile, Engine::Vllm);
    let sc = &s.scheduler;
    assert_eq!(sc.batching, Batching::Continuous);
    assert_eq!((sc.max_num_seqs, sc.max_num_batched_tokens), (1024, 8192));
    assert!(sc.chunked_prefill && sc.prefix_caching);
    assert_eq!((sc.kv_layout, sc.block_size), (KvLayout::Paged, 16));
    assert_eq!(sc.max_model_len, s.model_spec().unwrap().max_context);
    // the settings a profile does not govern keep their own defaults
    assert_eq!((sc.queue_timeout_ms, sc.max_queue_len, sc.isolation), (None, None, false));
    // a smaller GPU gets vllm serve's smaller defaults
    let l40s = Scenario::from_json(&minimal("l40s", None, "")).unwrap();
    assert_eq!((l40s.scheduler.max_num_seqs, l40s.scheduler.max_num_batched_tokens), (256, 2048));
    // and it runs
    let sum = Simulation::new(&s).unwrap().run_to_end();
    assert_eq!(sum.all.requests.completed, 200);
}

#[test]
fn fields_the_file_gives_win_over_the_profile() {
    let json = minimal("h100-sxm", Some("sglang"), r#""scheduler": { "max_num_seqs": 64, "chunked_prefill": true },"#);
    let s = Scenario::from_json(&json).unwrap();
    assert_eq!(s.engine_profile, Engine::Sglang);
    assert_eq!(s.scheduler.max_num_seqs, 64);
    assert!(s.scheduler.chunked_prefill);
    // the rest is SGLang's
    assert_eq!(s.scheduler.max_num_batched_tokens, SGLANG_MAX_PREFILL_TOKENS);
    assert_eq!(s.scheduler.max_model_len, SGLANG_MAX_PREFILL_TOKENS);
    let t = Scenario::from_json(&minimal("h100-sxm", Some("trtllm"), "")).unwrap();
    assert_eq!((t.scheduler.block_size, t.scheduler.max_num_batched_tokens), (32, 8192));
    // the engine constants too: TensorRT-LLM's own where the file gives none, the file's where
    // it does; vLLM's and SGLang's are the calibrated defaults
    assert_eq!(t.engine, Engine::Trtllm.constants());
    assert_ne!(t.engine, Engine::Vllm.constants());
    assert_eq!(s.engine, Engine::Vllm.constants());
    let json = minimal("h100-sxm", Some("trtllm"), r#""engine": { "mbu": 0.7, "step_jitter": 0 },"#);
    let t = Scenario::from_json(&json).unwrap();
    assert_eq!((t.engine.mbu, t.engine.step_jitter), (0.7, 0.0));
    let trt = Engine::Trtllm.constants();
    assert_eq!(
        (t.engine.layer_launch_us, t.engine.allreduce_latency_us),
        (trt.layer_launch_us, trt.allreduce_latency_us)
    );
    // and the field is named when it is not one
    let bad = minimal("h100-sxm", Some("trtllm"), r#""engine": { "mbu": "fast" },"#);
    let err = Scenario::from_json(&bad).unwrap_err().to_string();
    assert!(err.contains("engine.mbu"), "{err}");
}

#[test]
fn every_profile_round_trips_and_an_explicit_off_stays_off() {
    for e in Engine::ALL {
        let mut s = Scenario::from_json(&minimal("h100-sxm", Some(e.name()), "")).unwrap();
        assert_eq!(Scenario::from_json(&s.to_json_pretty()).unwrap(), s, "{e:?}");
        s.scheduler.prefix_caching = false;
        s.scheduler.max_num_seqs = 7;
        let back = Scenario::from_json(&s.to_json_pretty()).unwrap();
        assert_eq!(back, s, "{e:?}: a written scenario reads back as it was");
        assert!(!back.scheduler.prefix_caching);
    }
}

#[test]
fn an_unknown_engine_is_named_with_the_ones_there_are() {
    let e = Scenario::from_json(&minimal("h100-sxm", Some("tgi"), "")).unwrap_err().to_string();
    assert!(e.contains("engine_profile") && e.contains("tgi"), "{e}");
    for name in ["vllm", "sglang", "trtllm"] {
        assert!(e.contains(name), "{e}");
    }
    let mut s = Scenario::from_json(&minimal("h100-sxm", None, "")).unwrap();
    let bad = settings::set(&mut s, "engine_profile", 0, &Value::Text("tgi".into())).unwrap_err().to_string();
    assert!(bad.contains("engine_profile") && bad.contains("sglang"), "{bad}");
    assert_eq!(s.engine_profile, Engine::Vllm, "the last good state stays");
}

#[test]
fn choosing_a_profile_sets_what_it_governs_and_keeps_the_rest() {
    let mut s = Scenario::from_json(&minimal("h100-sxm", None, r#""scheduler": { "max_queue_len": 50 },"#)).unwrap();
    settings::set(&mut s, "engine_profile", 0, &Value::Text("sglang".into())).unwrap();
    let want = Engine::Sglang.defaults(s.gpu_spec().ok().as_ref(), s.model_spec().unwrap().max_context);
    assert_eq!(s.engine_profile, Engine::Sglang);
    assert_eq!(s.scheduler.max_num_seqs, want.max_num_seqs);
    assert_eq!(s.scheduler.max_num_batched_tokens, want.max_num_batched_tokens);
    assert_eq!(s.scheduler.chunked_prefill, want.chunked_prefill);
    assert_eq!(s.scheduler.max_model_len, want.max_model_len);
    assert_eq!(s.scheduler.max_queue_len, Some(50));
    assert_eq!(settings::get(&s, "engine_profile", 0), Some(Value::Text("sglang".into())));
    // choosing the profile in use again changes nothing
    let before = s.clone();
    settings::set(&mut s, "engine_profile", 0, &Value::Text("sglang".into())).unwrap();
    assert_eq!(s, before);
}

/// Issue 29: "Choosing an engine must not overwrite limits the user set." A limit that differs
/// from the old profile's default is the user's and survives the change; one still at the old
/// default takes the new engine's.
#[test]
fn choosing_an_engine_keeps_the_limits_the_user_set() {
    // the preset's own limits: 32 sequences and a 2,048-token budget (vLLM's on H100: 1,024 and
    // 8,192); its block size is vLLM's 16
    let mut s = sim_core::presets::find("chat-latency-first").unwrap().scenario();
    assert_eq!((s.scheduler.max_num_seqs, s.scheduler.max_num_batched_tokens, s.scheduler.block_size), (32, 2048, 16));
    settings::set(&mut s, "gpu_memory_utilization", 0, &Value::Number(0.8)).unwrap();
    settings::set(&mut s, "engine_profile", 0, &Value::Text("trtllm".into())).unwrap();
    let trt = Engine::Trtllm.defaults(s.gpu_spec().ok().as_ref(), s.model_spec().unwrap().max_context);
    assert_eq!((s.scheduler.max_num_seqs, s.scheduler.max_num_batched_tokens), (32, 2048), "the user's limits");
    assert_eq!(s.gpu_memory_utilization, 0.8);
    assert_eq!(s.scheduler.block_size, trt.block_size, "left at vLLM's: TRT-LLM's");
    assert_eq!(trt.block_size, 32);
    // and back: still the user's, the block size vLLM's again
    settings::set(&mut s, "engine_profile", 0, &Value::Text("vllm".into())).unwrap();
    assert_eq!((s.scheduler.max_num_seqs, s.scheduler.max_num_batched_tokens, s.scheduler.block_size), (32, 2048, 16));
}

/// Without chunked prefill a whole prompt must fit the budget: a user's context longer than
/// SGLang's default budget raises the budget (a defaulted one), and a user's budget shorter than
/// SGLang's default context lowers the context, so the scenario stays valid.
#[test]
fn choosing_a_prompts_first_engine_fits_the_budget_to_the_users_context() {
    let long = r#""scheduler": { "max_model_len": 32768 },"#;
    let mut s = Scenario::from_json(&minimal("h100-sxm", None, long)).unwrap();
    s.set_engine_profile(Engine::Sglang);
    assert_eq!((s.scheduler.max_model_len, s.scheduler.max_num_batched_tokens), (32768, 32768));
    assert!(!s.scheduler.chunked_prefill);
    s.validate().unwrap();
    let small = r#""scheduler": { "max_num_batched_tokens": 4096 },"#;
    let mut s = Scenario::from_json(&minimal("h100-sxm", None, small)).unwrap();
    s.set_engine_profile(Engine::Sglang);
    assert_eq!((s.scheduler.max_model_len, s.scheduler.max_num_batched_tokens), (4096, 4096));
    s.validate().unwrap();
}

#[test]
fn every_preset_runs_under_every_profile() {
    for p in PRESETS {
        let base = p.scenario();
        assert_eq!(base.engine_profile, Engine::Vllm, "{}: presets model vLLM", p.id);
        for e in Engine::ALL {
            let mut s = base.clone();
            s.set_engine_profile(e);
            for c in &mut s.classes {
                c.num_requests = c.num_requests.map(|n| n.min(60));
            }
            s.validate().unwrap_or_else(|err| panic!("{} as {e:?}: {err}", p.id));
            let mut sim = Simulation::new(&s).unwrap_or_else(|err| panic!("{} as {e:?}: {err}", p.id));
            let sum = sim.run_to_end();
            let r = sum.all.requests;
            assert_eq!(r.arrived, r.ended(), "{} as {e:?}", p.id);
        }
    }
}

/// The difference the profiles teach: SGLang runs a waiting prompt first in a prefill-only step
/// and the decodes wait, vLLM mixes prompt chunks into decode steps. On the same traffic the
/// worst gap between two tokens of a request is therefore longer under SGLang's scheduler, and
/// its first tokens come no later.
#[test]
fn sglangs_prefill_first_steps_stall_decodes_that_vllms_mixed_steps_do_not() {
    let base = Scenario::from_json(&minimal("h100-sxm", None, "")).unwrap();
    let run = |e: Engine| {
        let mut s = base.clone();
        s.set_engine_profile(e);
        s.scheduler.max_num_batched_tokens = 8192;
        s.scheduler.max_model_len = 8192;
        s.scheduler.prefix_caching = false;
        // the schedulers' difference alone: SGLang's overlap scheduler (a request reaching a
        // busy engine waits a step longer) is the same for both
        s.scheduler.overlap = false;
        Simulation::new(&s).unwrap().run_to_end()
    };
    let (v, g) = (run(Engine::Vllm), run(Engine::Sglang));
    assert_eq!(v.all.requests.completed, 200);
    assert_eq!(g.all.requests.completed, 200);
    assert!(g.all.itl_ms.max > v.all.itl_ms.max, "max ITL sglang {} vs vllm {}", g.all.itl_ms.max, v.all.itl_ms.max);
    assert!(
        g.all.ttft_ms.p50 <= v.all.ttft_ms.p50 * 1.05,
        "TTFT p50 sglang {} vs vllm {}",
        g.all.ttft_ms.p50,
        v.all.ttft_ms.p50
    );
}
