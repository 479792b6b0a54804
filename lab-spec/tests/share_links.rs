//! Short share links (version 2): every preset with random setting changes reads back as the
//! same run, agrees with the whole-scenario form (version 1) on what is valid, and is shorter.

use lab_spec::settings::{Kind, Value, SETTINGS};
use lab_spec::share::{encode_v1, SharedRun};
use lab_spec::{presets, Scenario};
use proptest::prelude::*;

/// One change: a settings row (by index), a class, and a draw in [0, 1) that picks the value.
type Change = (usize, usize, f64, bool);

fn apply(s: &mut Scenario, (row, class, draw, off): Change) {
    let r = &SETTINGS[row % SETTINGS.len()];
    let class = class % s.classes.len().max(1);
    let value = match &r.kind {
        _ if off && r.optional() => Value::Off,
        Kind::Number(n) => {
            let (lo, hi) = n.range(s, class);
            let (lo, hi) = (lo.max(n.slider.0.min(lo.max(-1e9))), hi.min(n.slider.1.max(lo)));
            let mut x = if !n.choices.is_empty() {
                n.choices[(draw * n.choices.len() as f64) as usize % n.choices.len()]
            } else {
                lo + (hi - lo) * draw
            };
            // as the editor writes numbers (a float's last digit may not survive serde_json's
            // reader, in either link form)
            x = if n.integer { x.round().max(0.0) } else { (x * 1000.0).round() / 1000.0 };
            Value::Number(x)
        }
        Kind::Select { options, .. } => {
            let o = options();
            if o.is_empty() {
                return;
            }
            Value::Text(o[(draw * o.len() as f64) as usize % o.len()].clone())
        }
        Kind::Toggle => Value::Bool(draw < 0.5),
        Kind::Text => Value::Text(format!("c{}", (draw * 1000.0) as u32)),
    };
    // a change that does not apply to this scenario is skipped
    let _ = r.set(s, class, &value);
}

fn changes() -> impl Strategy<Value = Vec<Change>> {
    prop::collection::vec((0usize..1000, 0usize..4, 0.0f64..1.0, any::<bool>()), 0..6)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn every_preset_with_random_changes_round_trips(
        a in 0usize..100, b in proptest::option::of(0usize..100), ca in changes(), cb in changes()
    ) {
        let pick = |i: usize| presets::PRESETS[i % presets::PRESETS.len()].scenario();
        let mut scenario = pick(a);
        for c in ca {
            apply(&mut scenario, c);
        }
        let compare = b.map(|b| {
            let mut s = pick(b);
            for c in cb.clone() {
                apply(&mut s, c);
            }
            s
        });
        let run = SharedRun { scenario, compare };
        let short = run.encode();
        let whole = encode_v1(&run);
        prop_assert!(short.starts_with("2."));
        prop_assert!(short.len() <= whole.len(), "{} > {}", short.len(), whole.len());
        let read = SharedRun::decode(&short);
        prop_assert_eq!(&read, &SharedRun::decode(&whole), "both forms read the same");
        if run.check().is_ok() {
            prop_assert_eq!(read.unwrap(), run.clone());
        }
        prop_assert_eq!(short, run.encode(), "deterministic");
    }
}

#[test]
fn every_preset_unchanged_is_a_few_characters() {
    for p in presets::PRESETS {
        let run = SharedRun { scenario: p.scenario(), compare: None };
        let link = run.encode();
        assert!(link.len() < 100, "{}: {link}", p.id);
        assert_eq!(SharedRun::decode(&link).unwrap(), run);
    }
}
