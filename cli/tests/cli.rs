//! The command line as a user drives it.

use std::process::Command;

fn llmsim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_llmsim")).args(args).output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// A scratch file under cargo's directory for integration tests' files (inside the target
/// directory, so no run leaves files in the system's temporary directory).
fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("llmsim-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

#[test]
fn run_preset_json_has_the_documented_keys() {
    let (code, out, err) = llmsim(&["run", "--preset", "sharegpt-replay"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for k in ["arrived", "completed", "rejected", "timed_out", "preempted", "oom_restarts"] {
        assert!(v["requests"][k].is_u64(), "requests.{k}");
    }
    for m in ["ttft_ms", "tpot_ms", "itl_ms", "e2e_ms", "queue_ms"] {
        for q in ["mean", "p50", "p90", "p95", "p99", "max"] {
            assert!(v[m][q].is_f64(), "{m}.{q}");
        }
    }
    for k in ["output_tokens_per_s", "total_tokens_per_s", "requests_per_s"] {
        assert!(v["throughput"][k].as_f64().unwrap() > 0.0, "throughput.{k}");
    }
    for k in ["requests_per_s", "output_tokens_per_s", "slo_attainment"] {
        assert!(v["goodput"][k].is_f64(), "goodput.{k}");
    }
    for k in ["hbm_bytes", "weights_bytes", "kv_capacity_bytes", "kv_peak_bytes", "kv_bytes_per_token"] {
        assert!(v["memory"][k].as_f64().unwrap() > 0.0, "memory.{k}");
    }
    for k in ["usd_per_hour", "usd_per_million_output_tokens", "usd_per_million_good_tokens"] {
        assert!(v["cost"][k].as_f64().unwrap() > 0.0, "cost.{k}");
    }
    assert!(v["duration_s"].as_f64().unwrap() > 29.0);
    assert_eq!(v["classes"]["sharegpt"]["requests"]["arrived"], 300);
    assert_eq!(v["requests"]["arrived"], 300);
}

#[test]
fn show_prints_a_scenario_that_runs_from_a_file_and_seed_overrides() {
    let (code, json, _) = llmsim(&["show", "chat-latency-first"]);
    assert_eq!(code, 0);
    let path = tmp("chat.json");
    std::fs::write(&path, &json).unwrap();
    let (c1, a, _) = llmsim(&["run", path.to_str().unwrap()]);
    let (_, b, _) = llmsim(&["run", "--preset", "chat-latency-first"]);
    let (_, c, _) = llmsim(&["run", path.to_str().unwrap(), "--seed", "99"]);
    assert_eq!(c1, 0);
    assert_eq!(a, b, "the printed preset and the built-in one are the same run");
    assert_ne!(a, c, "another seed, another run");
}

#[test]
fn requests_csv_has_one_row_per_request() {
    let path = tmp("req.csv");
    let (code, out, err) =
        llmsim(&["run", "--preset", "sharegpt-replay", "--requests", path.to_str().unwrap(), "--format", "table"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("TTFT") && out.contains("goodput"), "{out}");
    let csv = std::fs::read_to_string(&path).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "id,class,arrival_s,input_tokens,output_tokens,outcome,queue_ms,ttft_ms,tpot_ms,e2e_ms,preemptions,met_slo"
    );
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 300);
    assert!(rows.iter().all(|r| r.split(',').count() == 12));
}

#[test]
fn trace_paths_resolve_next_to_the_scenario_file() {
    let dir = tmp("");
    std::fs::write(dir.join("mini.csv"), "arrival_s,input_len,output_len\n0,100,5\n0.5,200,7\n").unwrap();
    let (_, json, _) = llmsim(&["show", "sharegpt-replay"]);
    std::fs::write(dir.join("mini.json"), json.replace("sharegpt300_llama3.csv", "mini.csv")).unwrap();
    let (code, out, err) = llmsim(&["run", dir.join("mini.json").to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["requests"]["completed"], 2);
}

#[test]
fn bad_input_exits_2_with_a_message_naming_the_field() {
    let path = tmp("bad.json");
    let (_, json, _) = llmsim(&["show", "chat-latency-first"]);
    std::fs::write(&path, json.replace(r#""max_num_seqs": 32"#, r#""max_num_seqs": 0"#)).unwrap();
    let (code, out, err) = llmsim(&["run", path.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(err.contains("scheduler.max_num_seqs must be 1..=4096, got 0"), "{err}");
    for args in [
        vec!["run"],
        vec!["run", "--preset", "nope"],
        vec!["run", "/nonexistent/file.json"],
        vec!["run", "--preset", "chat-latency-first", "--format", "xml"],
        vec!["run", "--preset", "chat-latency-first", "--seed", "-1"],
        vec!["frobnicate"],
        vec!["show"],
    ] {
        let (code, _, err) = llmsim(&args);
        assert_eq!(code, 2, "{args:?}");
        assert!(err.starts_with("llmsim: ") && err.len() > 12, "{args:?}: {err}");
    }
}

#[test]
fn listings_name_every_catalogue_entry() {
    let (_, models, _) = llmsim(&["models"]);
    for id in [
        "llama-2-7b",
        "llama-2-13b",
        "llama-2-70b",
        "llama-3-8b",
        "llama-3.1-8b",
        "llama-3-70b",
        "mistral-7b",
        "qwen2.5-7b",
        "qwen2.5-72b",
        "qwen3-32b",
        "mixtral-8x7b",
        "qwen3-8b",
        "qwen3-30b-a3b",
        "qwen3-235b-a22b",
        "qwen3.5-397b-a17b",
        "deepseek-v3",
        "kimi-k2",
        "glm-5",
        "gpt-oss-20b",
        "gpt-oss-120b",
        "llama-3.1-70b",
        "llama-3.1-405b",
    ] {
        assert!(models.lines().any(|l| l.starts_with(id)), "{id}");
    }
    let (_, gpus, _) = llmsim(&["gpus"]);
    for id in [
        "a100-40gb",
        "a100-80gb",
        "h100-sxm",
        "h200",
        "l4",
        "l40s",
        "mi300x",
        "rtx-4090",
        "rtx-pro-6000",
        "b200",
        "b300",
        "gb200",
        "h20",
        "mi325x",
    ] {
        assert!(gpus.lines().any(|l| l.starts_with(id)), "{id}");
    }
    let (_, presets, _) = llmsim(&["presets"]);
    assert!(presets.lines().count() >= 10);
}

#[test]
fn sweep_writes_one_csv_row_per_point() {
    let (code, out, err) = llmsim(&[
        "sweep",
        "--preset",
        "sharegpt-replay",
        "--param",
        "rate_per_s",
        "--from",
        "0.5",
        "--to",
        "2",
        "--steps",
        "4",
    ]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("rate_per_s,completed,"));
    assert_eq!(lines.len(), 5);
    let (code, _, err) =
        llmsim(&["sweep", "--preset", "sharegpt-replay", "--param", "colour", "--from", "1", "--to", "2"]);
    assert_eq!(code, 2);
    assert!(err.contains("--param must be one of") && err.contains("rate_per_s"), "{err}");
}

#[test]
fn check_exits_0_when_the_contract_holds_and_1_when_it_does_not() {
    let (_, example, _) = llmsim(&["contract"]);
    let good = tmp("contract.json");
    std::fs::write(&good, &example).unwrap();
    let (code, out, err) = llmsim(&["check", good.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("ACCEPTED"));
    let bad = tmp("contract-bad.json");
    std::fs::write(&bad, example.replace(r#""tpot_p99_ms": 50"#, r#""tpot_p99_ms": 1"#)).unwrap();
    let (code, out, _) = llmsim(&["check", bad.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.contains("FAIL  slo.tpot_p99_ms") && out.contains("REJECTED"), "{out}");
    let (code, _, err) = llmsim(&["check", "/nonexistent.json"]);
    assert_eq!(code, 2);
    assert!(err.starts_with("llmsim: cannot read"));
}

#[test]
fn requests_csv_write_errors_exit_non_zero_with_a_message() {
    let missing = tmp("no-such-dir").join("sub").join("req.csv");
    let (code, out, err) = llmsim(&["run", "--preset", "sharegpt-replay", "--requests", missing.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("cannot write") && err.contains("req.csv"), "{err}");
    if std::path::Path::new("/dev/full").exists() {
        // the file opens, every write fails: the disk is full
        let (code, out, err) = llmsim(&["run", "--preset", "sharegpt-replay", "--requests", "/dev/full"]);
        assert_eq!(code, 2, "{out}");
        assert!(err.contains("cannot write /dev/full"), "{err}");
        assert!(out.is_empty(), "no summary after a failed write: {out}");
    }
}

#[test]
fn usage_lists_the_sweepable_settings() {
    let (code, out, _) = llmsim(&["--help"]);
    assert_eq!(code, 0);
    let ids: Vec<&str> = sim_core::settings::sweepable().map(|r| r.id).collect();
    assert!(out.contains(&ids.join(" | ")), "{out}");
    let (code, _, err) =
        llmsim(&["sweep", "--preset", "sharegpt-replay", "--param", "seed", "--from", "1", "--to", "2"]);
    assert_eq!(code, 2);
    assert!(err.contains(&format!("--param must be one of {}", ids.join(", "))), "{err}");
}

#[test]
fn lessons_list_every_lesson_and_lesson_reports_agreement_per_seed() {
    let (code, out, _) = llmsim(&["lessons"]);
    assert_eq!(code, 0);
    for l in lab_content::lessons::LESSONS {
        assert!(out.lines().any(|line| line.split_whitespace().next() == Some(l.id)), "{} missing: {out}", l.id);
    }
    let (code, out, err) = llmsim(&["lesson", "kv-arithmetic", "--seeds", "3", "--from", "5", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let l = lab_content::lessons::find("kv-arithmetic").unwrap();
    assert_eq!(v["id"], "kv-arithmetic");
    assert_eq!(v["answer"], l.taught);
    let per: Vec<u64> = v["per_seed"].as_array().unwrap().iter().map(|s| s["seed"].as_u64().unwrap()).collect();
    assert_eq!(per, vec![5, 6, 7]);
    let agree = v["per_seed"].as_array().unwrap().iter().filter(|s| s["agrees"] == true).count();
    assert_eq!(v["agree_share"].as_f64().unwrap(), agree as f64 / 3.0);
    let (code, out, _) = llmsim(&["lesson", "kv-arithmetic", "--seeds", "2"]);
    assert_eq!(code, 0);
    assert!(out.contains("of 2 seeds agree"), "{out}");
    for bad in [
        &["lesson", "nope"][..],
        &["lesson", "kv-arithmetic", "--seeds", "0"],
        &["lesson"],
        &["lesson", "kv-arithmetic", "--format", "xml"],
    ] {
        let (code, _, err) = llmsim(bad);
        assert_eq!(code, 2, "{bad:?}");
        assert!(err.starts_with("llmsim: "), "{bad:?}: {err}");
    }
}

#[test]
fn lesson_set_changes_the_runs_named_and_bad_settings_are_named() {
    // ttft-vs-tpot: capping every run at 2 sequences makes TTFT break away everywhere (choice 0)
    let (code, out, err) = llmsim(&["lesson", "ttft-vs-tpot", "--seeds", "2", "--set", "scheduler.max_num_seqs=2"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("0 of 2 seeds agree"), "{out}");
    // the same cap only on run 2, which the lesson caps already: its answer stays
    let (code, out, err) = llmsim(&[
        "lesson",
        "ttft-vs-tpot",
        "--seeds",
        "2",
        "--set",
        "scheduler.max_num_seqs=16",
        "--runs",
        "2",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["agree_share"], 1.0, "{out}");
    for (args, says) in [
        (&["--set", "scheduler.max_num_seqs=0"][..], "scheduler.max_num_seqs must be 1..=4096, got 0"),
        (&["--set", "scheduler.max_num_seqs=lots"], "scheduler.max_num_seqs must be a number 1..=4096, got \"lots\""),
        (&["--set", "scheduler.nope=1"], "\"scheduler.nope\" is not a scenario setting's path"),
        (&["--set", "classes[5].arrival.rate_per_s=2"], "classes[5].arrival.rate_per_s"),
        (&["--set", "gpu_memory_utilization=1.5"], "gpu_memory_utilization must be 0.05..=1, got 1.5"),
        (&["--set", "scheduler.max_num_seqs"], "is not PATH=VALUE"),
        (&["--set", "scheduler.max_num_seqs=8", "--runs", "7"], "--runs: lesson ttft-vs-tpot has runs 0..=2, got 7"),
        (&["--set", "scheduler.max_num_seqs=8", "--runs", "a"], "--runs must be run positions"),
        (&["--runs", "1"], "give --set PATH=VALUE too"),
    ] {
        let mut all = vec!["lesson", "ttft-vs-tpot", "--seeds", "1"];
        all.extend_from_slice(args);
        let (code, out, err) = llmsim(&all);
        assert_eq!(code, 2, "{args:?}: {out}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn lesson_neighbours_report_each_neighbour_or_why_it_does_not_apply() {
    let (code, out, err) = llmsim(&["lesson", "kv-arithmetic", "--neighbours", "--seeds", "2", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rows = v["neighbours"].as_array().unwrap();
    let ids: Vec<&str> = rows.iter().map(|r| r["neighbour"].as_str().unwrap()).collect();
    let want: Vec<String> = lab_content::lessons::NEIGHBOURS.iter().map(|n| n.id()).collect();
    assert_eq!(ids, want);
    for r in rows {
        if r["skip"].is_null() {
            assert_eq!(r["seeds"], 2, "{r}");
            let share = r["agree"].as_f64().unwrap() / 2.0;
            assert_eq!(r["share"].as_f64().unwrap(), share);
            assert_eq!(r["holds"], share >= 0.8);
        } else {
            assert!(r["skip"]["reason"].is_string(), "{r}");
            assert_eq!(r["holds"], false);
        }
    }
    // kv-arithmetic compares models: the next model does not apply, and says why
    let model = rows.iter().find(|r| r["neighbour"] == "next-model").unwrap();
    assert_eq!(model["skip"]["reason"], "varied", "{model}");
    let (code, out, err) = llmsim(&["lesson", "kv-arithmetic", "--neighbours", "--seeds", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("n/a: the lesson varies the model between its runs itself"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("next-gpu") && l.contains("h200") && l.contains("/2")), "{out}");
    // --check: a named limit passes (ttft-vs-tpot names the next model), an unnamed failure fails
    let (code, out, err) = llmsim(&["lesson", "ttft-vs-tpot", "--neighbours", "--seeds", "1", "--check"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("no (the explanation says where and why)"), "{out}");
    let capped =
        ["lesson", "ttft-vs-tpot", "--neighbours", "--seeds", "1", "--check", "--set", "scheduler.max_num_seqs=2"];
    let (code, _, err) = llmsim(&capped);
    assert_eq!(code, 2);
    assert!(err.contains("does not hold on") && err.contains("load-0.7"), "{err}");
    let (code, _, err) = llmsim(&["lesson", "ttft-vs-tpot", "--check"]);
    assert_eq!(code, 2);
    assert!(err.contains("give --neighbours too"), "{err}");
}

#[test]
fn run_json_has_censored_views_beside_the_completed_only_latencies() {
    // static batching at 30 req/s with a 2 s queue timeout: most requests time out
    let (_, json, _) = llmsim(&["show", "static-batching"]);
    let mut s: serde_json::Value = serde_json::from_str(&json).unwrap();
    s["scheduler"]["queue_timeout_ms"] = 2000.0.into();
    s["classes"][0]["arrival"]["rate_per_s"] = 30.0.into();
    s["classes"][0]["num_requests"] = 300.into();
    let path = tmp("survivors.json");
    std::fs::write(&path, s.to_string()).unwrap();
    let (code, out, err) = llmsim(&["run", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let r = &v["requests"];
    let (arrived, completed, timed_out) =
        (r["arrived"].as_u64().unwrap(), r["completed"].as_u64().unwrap(), r["timed_out"].as_u64().unwrap());
    assert!(timed_out > completed, "most time out: {r}");
    assert_eq!(r["ended"].as_u64().unwrap(), arrived);
    // the vllm-bench-style names stay completed-only
    assert_eq!(v["ttft_ms"]["count"].as_u64().unwrap(), completed);
    for m in ["ttft_ms_censored", "e2e_ms_censored"] {
        for q in ["mean", "p50", "p90", "p95", "p99", "max"] {
            assert!(v[m][q].is_f64(), "{m}.{q}");
        }
        assert_eq!(v[m]["count"].as_u64().unwrap(), arrived, "{m}.count");
        // timed-out requests never had a first token: each is a lower bound
        assert_eq!(v[m]["censored"].as_u64().unwrap(), timed_out, "{m}.censored");
        assert_eq!(v["classes"]["chat"][m], v[m]);
    }
    // the timed-out ones count at their timeout, 2 s after the engine received them, plus the
    // front end's way in and out (a few ms)
    let p50 = v["ttft_ms_censored"]["p50"].as_f64().unwrap();
    assert!((2000.0..2012.0).contains(&p50), "{}", v["ttft_ms_censored"]);
    let (_, table, _) = llmsim(&["run", path.to_str().unwrap(), "--format", "table"]);
    assert!(table.contains(&format!("completed only: {completed} of {arrived} ended")), "{table}");
    assert!(table.contains(&format!("over all {arrived} arrived, {timed_out} at a lower bound")), "{table}");
}

#[test]
fn bench_prints_vllm_bench_serve_names_and_agrees_with_its_table() {
    let base = ["bench", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--input-len", "512", "--output-len", "64"];
    let args: Vec<&str> =
        base.iter().copied().chain(["--max-concurrency", "8", "--num-prompts", "64", "--format", "json"]).collect();
    let (code, out, err) = llmsim(&args);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["completed"], 64);
    assert_eq!(v["max_concurrency"], 8);
    assert_eq!(v["total_input_tokens"], 64 * 512);
    for k in [
        "duration",
        "request_throughput",
        "output_throughput",
        "total_token_throughput",
        "mean_ttft_ms",
        "median_ttft_ms",
        "p99_ttft_ms",
        "mean_tpot_ms",
        "p99_itl_ms",
        "mean_e2el_ms",
    ] {
        assert!(v[k].as_f64().unwrap() > 0.0, "{k}");
    }
    let args: Vec<&str> = base.iter().copied().chain(["--max-concurrency", "8", "--num-prompts", "64"]).collect();
    let (code, table, _) = llmsim(&args);
    assert_eq!(code, 0);
    let line = |label: &str| -> f64 {
        let l = table.lines().find(|l| l.starts_with(label)).unwrap_or_else(|| panic!("{label} in\n{table}"));
        l[label.len()..].trim().parse().unwrap()
    };
    assert_eq!(line("Successful requests:"), 64.0);
    assert!((line("Mean TTFT (ms):") - v["mean_ttft_ms"].as_f64().unwrap()).abs() < 0.006);
    assert!((line("P99 TPOT (ms):") - v["p99_tpot_ms"].as_f64().unwrap()).abs() < 0.006);
}

#[test]
fn bench_spreads_lengths_as_vllms_random_range_ratio_does() {
    let v = bench_json("vllm", 8, 40, &["--random-range-ratio", "0.2"]);
    let lens = |key: &str| -> Vec<u64> { v[key].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect() };
    let (inputs, outputs) = (lens("input_lens"), lens("output_lens"));
    assert_eq!(inputs.len(), 40);
    // floor(1024 × 0.8) ..= ceil(1024 × 1.2), and floor(64 × 0.8) ..= ceil(64 × 1.2)
    assert!(inputs.iter().all(|l| (819..=1229).contains(l)), "{inputs:?}");
    assert!(outputs.iter().all(|l| (51..=77).contains(l)), "{outputs:?}");
    assert!(inputs.iter().any(|&l| l != inputs[0]), "{inputs:?}");
}

#[test]
fn bench_names_the_flag_of_a_bad_value() {
    let base = ["bench", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--output-len", "64"];
    let cases: [(&[&str], &str); 21] = [
        (&["--input-len", "0"], "--input-len: must be 1..="),
        (
            &["--input-len", "8", "--random-range-ratio", "1"],
            "--random-range-ratio must be at least 0 and below 1, got 1",
        ),
        (&["--input-len", "8", "--random-range-ratio", "wide"], "--random-range-ratio must be"),
        (&["--input-len", "0", "--request-rate", "2"], "--input-len: must be 1..="),
        (&["--input-len", "abc"], "--input-len must be a whole number"),
        (&["--input-len", "8", "--dtype", "fp7"], "--dtype: unknown variant `fp7`"),
        (&["--input-len", "8", "--request-rate", "0"], "--request-rate: must be"),
        (&["--input-len", "8", "--request-rate", "-1", "--max-concurrency", "4"], "--request-rate: must be"),
        (&["--input-len", "8", "--request-rate", "2", "--num-prompts", "0"], "--num-prompts: must be 1..="),
        (&["--input-len", "8", "--max-concurrency", "0"], "--max-concurrency must be at least 1"),
        (&["--input-len", "8", "--burstiness", "0.5"], "--burstiness needs a finite --request-rate"),
        (&["--input-len", "8", "--request-rate", "2", "--burstiness", "0"], "--burstiness must be > 0"),
        (&["--input-len", "8", "--ramp-up-strategy", "linear"], "needs both --ramp-up-start-rps"),
        (&["--input-len", "8", "--ramp-up-strategy", "cubic"], "--ramp-up-strategy must be one of linear, exponential"),
        (&["--input-len", "8", "--ramp-up-start-rps", "1", "--ramp-up-end-rps", "4"], "need --ramp-up-strategy"),
        (
            &["--input-len", "8", "--ramp-up-strategy", "linear", "--ramp-up-start-rps", "0", "--ramp-up-end-rps", "4"],
            "--ramp-up-start-rps must be 1..=",
        ),
        (
            &["--input-len", "8", "--ramp-up-strategy", "linear", "--ramp-up-start-rps", "5", "--ramp-up-end-rps", "4"],
            "--ramp-up-end-rps must be --ramp-up-start-rps (5)..=",
        ),
        (
            &[
                "--input-len",
                "8",
                "--ramp-up-strategy",
                "exponential",
                "--ramp-up-start-rps",
                "1.5",
                "--ramp-up-end-rps",
                "4",
            ],
            "--ramp-up-start-rps must be a whole number",
        ),
        (
            &[
                "--input-len",
                "8",
                "--request-rate",
                "2",
                "--ramp-up-strategy",
                "linear",
                "--ramp-up-start-rps",
                "1",
                "--ramp-up-end-rps",
                "4",
            ],
            "leave --request-rate out",
        ),
        (&["--input-len", "8", "--num-warmups", "-1"], "--num-warmups must be a whole number"),
        (&["--input-len", "8", "--metric-percentiles", "99,100"], "--metric-percentiles must be"),
    ];
    for (extra, want) in cases {
        let args: Vec<&str> = base.iter().chain(extra.iter()).copied().collect();
        let (code, out, err) = llmsim(&args);
        assert_eq!(code, 2, "{extra:?}: {out}");
        assert!(err.contains(want), "{extra:?}: {err}");
        assert!(!err.contains(" at line "), "{extra:?}: the JSON the flags became is not the user's: {err}");
    }
    let (code, _, err) = llmsim(&["bench", "--gpu", "h100-sxm", "--input-len", "8", "--output-len", "8"]);
    assert_eq!(code, 2);
    assert!(err.contains("bench needs --model"), "{err}");
}

#[test]
fn bench_runs_a_rate_with_a_cap_and_a_ramp_up_as_vllm_bench_serve_does() {
    let base = ["bench", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--input-len", "256", "--output-len", "32"];
    let run = |extra: &[&str]| -> serde_json::Value {
        let args: Vec<&str> =
            base.iter().chain(extra).chain(&["--num-prompts", "40", "--format", "json"]).copied().collect();
        let (code, out, err) = llmsim(&args);
        assert_eq!(code, 0, "{extra:?}: {err}");
        serde_json::from_str(&out).unwrap()
    };
    let v = run(&["--request-rate", "50", "--burstiness", "0.5", "--max-concurrency", "2", "--num-warmups", "3"]);
    assert_eq!((v["request_rate"].as_f64(), v["burstiness"].as_f64()), (Some(50.0), Some(0.5)));
    assert_eq!((v["max_concurrency"].as_u64(), v["completed"].as_u64()), (Some(2), Some(40)));
    assert!(v["queue_times"].as_array().unwrap().iter().any(|q| q.as_f64().unwrap() > 0.0));
    // warm-ups change nothing: the same numbers without them
    assert_eq!(v, run(&["--request-rate", "50", "--burstiness", "0.5", "--max-concurrency", "2"]));
    let v = run(&["--ramp-up-strategy", "linear", "--ramp-up-start-rps", "1", "--ramp-up-end-rps", "20"]);
    assert_eq!(v["request_rate"], "inf");
    assert_eq!(
        (&v["ramp_up_strategy"], &v["ramp_up_start_rps"], &v["ramp_up_end_rps"]),
        (&serde_json::json!("linear"), &serde_json::json!(1), &serde_json::json!(20))
    );
    // even gaps from 1 to 20 rps: 39 gaps of 1/rate_i and the first; the run lasts at least that
    let sends: f64 = (0..40).map(|i| 1.0 / (1.0 + 19.0 * i as f64 / 39.0)).sum();
    let v = run(&[
        "--ramp-up-strategy",
        "linear",
        "--ramp-up-start-rps",
        "1",
        "--ramp-up-end-rps",
        "20",
        "--burstiness",
        "inf",
    ]);
    assert_eq!(v["burstiness"], "inf");
    let d = v["duration"].as_f64().unwrap();
    assert!(d > sends && d < sends + 1.0, "{d} vs the last send at {sends}");
}

#[test]
fn fit_reads_vllm_bench_serve_results_and_recovers_the_constant_that_made_them() {
    // results the lab produced with its default constants (iteration overhead 0.8 ms)
    let mut files = Vec::new();
    for (c, out) in [("1", "64"), ("8", "32"), ("32", "16")] {
        let (code, json, err) = llmsim(&[
            "bench",
            "--model",
            "llama-3-8b",
            "--gpu",
            "h100-sxm",
            "--input-len",
            "256",
            "--output-len",
            out,
            "--max-concurrency",
            c,
            "--num-prompts",
            "24",
            "--format",
            "json",
        ]);
        assert_eq!(code, 0, "{err}");
        let path = tmp(&format!("bench-{c}.json"));
        std::fs::write(&path, json).unwrap();
        files.push(path.to_str().unwrap().to_string());
    }
    let mut args = vec!["fit", "--gpu", "h100-sxm", "--params", "iteration_overhead_ms", "--format", "json"];
    args.extend(files.iter().map(String::as_str));
    let (code, out, err) = llmsim(&args);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let got = v["engine"]["iteration_overhead_ms"].as_f64().unwrap();
    assert!((got / 0.8 - 1.0).abs() < 0.05, "fitted {got} ms, produced with 0.8 ms");
    assert_eq!(v["after"]["replayed"], 3);
    assert!(v["after"]["tpot_median_abs_error"].as_f64().unwrap() < 0.01);
    // the table names the block to paste
    let mut args = vec!["fit", "--gpu", "h100-sxm", "--params", "iteration_overhead_ms"];
    args.extend(files.iter().map(String::as_str));
    let (code, table, _) = llmsim(&args);
    assert_eq!(code, 0);
    assert!(table.contains("\"engine\": {") && table.contains("\"iteration_overhead_ms\":"), "{table}");
    // what a result file does not say must be given, and bad names are named
    let (code, _, err) = llmsim(&["fit", files[0].as_str()]);
    assert_eq!(code, 2);
    assert!(err.contains("--gpu"), "{err}");
    let (code, _, err) = llmsim(&["fit", "--gpu", "h100-sxm", "--params", "speed", files[0].as_str()]);
    assert_eq!(code, 2);
    assert!(err.contains("\"speed\" is not an engine constant"), "{err}");
}

/// `llmsim bench` of Llama-3-8B on one H100, 1,024-token prompts and 64-token answers, on
/// `engine` with `users` closed-loop users and `prompts` prompts and the flags `extra`, read as
/// JSON.
fn bench_json(engine: &str, users: u32, prompts: u32, extra: &[&str]) -> serde_json::Value {
    let (users, prompts) = (users.to_string(), prompts.to_string());
    let mut args =
        vec!["bench", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--input-len", "1024", "--output-len", "64"];
    args.extend(["--max-concurrency", users.as_str(), "--num-prompts", prompts.as_str(), "--engine", engine]);
    args.extend(["--format", "json"]);
    args.extend_from_slice(extra);
    let (code, out, err) = llmsim(&args);
    assert_eq!(code, 0, "{engine} {extra:?}: {err}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn bench_runs_on_an_engines_scheduler_and_names_the_engines_it_knows() {
    let run = |engine: &str| {
        let v = bench_json(engine, 32, 96, &[]);
        (v["mean_ttft_ms"].as_f64().unwrap(), v["mean_tpot_ms"].as_f64().unwrap())
    };
    let (vllm, sglang) = (run("vllm"), run("sglang"));
    // SGLang prefills a whole wave first: slower first tokens, decode steps without prompt chunks
    assert!(sglang.0 > vllm.0 && sglang.1 < vllm.1, "vllm {vllm:?} sglang {sglang:?}");
    let (code, _, err) = llmsim(&["bench", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--engine", "tgi"]);
    assert_eq!(code, 2);
    assert!(err.contains("--engine must be one of vllm, sglang, trtllm, got \"tgi\""), "{err}");
}

#[test]
fn bench_limits_given_win_over_every_engines_defaults() {
    let run = |engine: &str, extra: &[&str]| bench_json(engine, 8, 32, extra);
    for engine in ["vllm", "sglang", "trtllm"] {
        // four sequences for eight users: half the prompts wait for a running one to finish, at
        // least its 63 decode steps
        let v = run(engine, &["--max-num-seqs", "4"]);
        let floor = 63.0 * v["median_tpot_ms"].as_f64().unwrap() / 1000.0;
        let waited = v["ttfts"].as_array().unwrap().iter().filter(|t| t.as_f64().unwrap() >= floor).count();
        assert!(waited >= 12, "{engine}: {waited} of 32 waited for a sequence slot");
        // a context below the prompt: every request fails
        let v = run(engine, &["--max-model-len", "512"]);
        assert_eq!((v["completed"].as_u64(), v["failed"].as_u64()), (Some(0), Some(32)), "{engine}");
    }
    // a 1,100-token budget holds one 1,024-token prompt a step: no two first tokens of a wave
    // come in the same step, where TensorRT-LLM's default 8,192 prefills a wave together
    let distinct = |v: &serde_json::Value| {
        let mut t: Vec<u64> =
            v["ttfts"].as_array().unwrap().iter().map(|t| (t.as_f64().unwrap() * 1e6) as u64).collect();
        t.sort_unstable();
        t.dedup();
        t.len()
    };
    let (default, narrow) = (run("trtllm", &[]), run("trtllm", &["--max-num-batched-tokens", "1100"]));
    assert!(distinct(&narrow) > distinct(&default), "{} vs {}", distinct(&narrow), distinct(&default));
    // a benchmark the server turns away whole says why, naming the flag that would let it in
    let base = ["bench", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--output-len", "16", "--num-prompts", "4"];
    let said = |extra: &[&str]| {
        let args: Vec<&str> = base.iter().chain(extra).copied().collect();
        let (code, out, err) = llmsim(&args);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("Failed requests:                         4"), "{out}");
        err
    };
    let err = said(&["--engine", "trtllm", "--input-len", "10000"]);
    assert!(
        err.contains(
            "10000-token prompts do not fit one 8192-token step without chunked prefill (--max-num-batched-tokens)"
        ),
        "{err}"
    );
    let err = said(&["--input-len", "1000", "--max-model-len", "512"]);
    assert!(err.contains("1000 + 16 tokens exceed the server's max_model_len 512 (--max-model-len)"), "{err}");
    let (_, _, err) = llmsim(&[
        "bench",
        "--model",
        "llama-3.1-8b",
        "--gpu",
        "h100-sxm",
        "--input-len",
        "10000",
        "--output-len",
        "16",
        "--num-prompts",
        "4",
    ]);
    assert!(!err.contains("every request failed"), "vLLM chunks the prompt: {err}");
}

#[test]
fn prefix_caching_figures_are_printed_and_bad_values_named() {
    let (code, json, _) = llmsim(&["show", "prefix-caching"]);
    assert_eq!(code, 0);
    assert!(json.contains(r#""prefix_caching": true"#) && json.contains(r#""shared_tokens": 2000"#), "{json}");
    let (code, out, err) = llmsim(&["run", "--preset", "prefix-caching"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let pc = &v["prefix_cache"];
    assert!(pc["hit_rate"].as_f64().unwrap() > 0.5, "{pc}");
    assert!(pc["cached_tokens"].as_u64().unwrap() > 0 && pc["evicted_blocks"].is_u64(), "{pc}");
    assert_eq!(v["classes"]["chat"]["prefix_cache"], *pc);
    let (_, table, _) = llmsim(&["run", "--preset", "prefix-caching", "--format", "table"]);
    assert!(table.contains("prefix cache  hit rate") && table.contains("evicted blocks"), "{table}");
    // a scenario without prefix caching prints no such figures
    let (_, plain, _) = llmsim(&["run", "--preset", "chat-latency-first"]);
    assert!(!plain.contains("prefix_cache"));

    let path = tmp("bad-prefix.json");
    let bad = json
        .replace(r#""kv_layout": "paged""#, r#""kv_layout": "contiguous""#)
        .replace(r#""groups": 4"#, r#""groups": 0"#);
    std::fs::write(&path, bad).unwrap();
    let (code, _, err) = llmsim(&["run", path.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("classes[0].prefix.groups must be 1..=100000, got 0"), "{err}");
    // prefix caching with contiguous KV is no error: it has no effect there
    assert!(!err.contains("scheduler.prefix_caching"), "{err}");
}

#[test]
fn speculative_figures_are_printed_and_bad_values_named() {
    let (code, json, _) = llmsim(&["show", "speculative"]);
    assert_eq!(code, 0);
    assert!(json.contains(r#""draft_tokens": 4"#) && json.contains(r#""acceptance_rate": 0.8"#), "{json}");
    let (code, out, err) = llmsim(&["run", "--preset", "speculative"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let sp = &v["speculative"];
    assert_eq!(sp["draft_tokens"], 4);
    assert!(sp["mean_accepted_tokens_per_step"].as_f64().unwrap() > 3.0, "{sp}");
    let (_, table, _) = llmsim(&["run", "--preset", "speculative", "--format", "table"]);
    assert!(table.contains("speculative decoding: 4 draft tokens from a draft head"), "{table}");
    let (_, plain, _) = llmsim(&["run", "--preset", "chat-latency-first", "--format", "table"]);
    assert!(!plain.contains("speculative"));

    let path = tmp("bad-speculative.json");
    let bad = json
        .replace(r#""acceptance_rate": 0.8"#, r#""acceptance_rate": 1.5"#)
        .replace(r#""draft_model": null"#, r#""draft_model": "tiny""#)
        .replace(r#""batching": "continuous""#, r#""batching": "static""#);
    std::fs::write(&path, bad).unwrap();
    let (code, _, err) = llmsim(&["run", path.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("speculative.acceptance_rate must be 0..=0.99, got 1.5"), "{err}");
    assert!(err.contains("speculative.draft_model must be one of") && err.contains("\"tiny\""), "{err}");
    assert!(err.contains("speculative needs continuous batching"), "{err}");
}

/// `llmsim plan --format json` has the shape the issue names, and its best contract is one
/// `llmsim check` accepts (exit 0); bad flags exit 2 naming the flag and what it takes.
#[test]
fn plan_answers_with_a_contract_check_accepts() {
    let (code, out, err) = llmsim(&[
        "plan",
        "--example",
        "chat",
        "--format",
        "json",
        "--gpus",
        "l4,h100-sxm",
        "--engines",
        "vllm",
        "--no-split",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for k in ["usd_per_hour", "usd_per_million_good_tokens"] {
        assert!(v["best"][k].as_f64().unwrap() > 0.0, "best.{k}");
    }
    assert!(v["best"]["launch"].as_array().unwrap().iter().any(|l| l.as_str().unwrap().starts_with("vllm serve ")));
    assert!(v["pareto"]["cost_ttft"].is_array() && v["pareto"]["gpu_user"].is_array());
    for k in ["searched", "simulated"] {
        assert!(v[k].as_u64().unwrap() > 0, "{k}");
    }
    assert!(v["seconds"].is_f64());
    let next = &v["next_cheaper"];
    assert!(next.is_null() || next["fails"].as_array().is_some_and(|f| !f.is_empty()));
    let best = tmp("plan-best.json");
    std::fs::write(&best, serde_json::to_string_pretty(&v["best"]["contract"]).unwrap()).unwrap();
    let (code, out, err) = llmsim(&["check", best.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    if !next.is_null() {
        let path = tmp("plan-next.json");
        std::fs::write(&path, serde_json::to_string_pretty(&next["contract"]).unwrap()).unwrap();
        assert_eq!(llmsim(&["check", path.to_str().unwrap()]).0, 1);
    }
    for (args, says) in [
        (vec!["plan", "--example", "nope"], "chat, chat-moe, rag, mixed"),
        (vec!["plan", "--example", "chat", "--gpus", "h1000"], "--gpus names `h1000`"),
        (vec!["plan", "--example", "chat", "--max-gpus", "0"], "--max-gpus is a whole number from 1 to 4096"),
        (vec!["plan", "--example", "chat", "--engines", "tgi"], "the engines are vllm, sglang, trtllm"),
        (vec!["plan"], "plan needs one contract file"),
    ] {
        let (code, _, err) = llmsim(&args);
        assert_eq!(code, 2, "{args:?}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}
