use sim_core::sim::{Ending, KvTransfer, RecentEnding};
use sim_core::{LiveRequest, Phase};

use super::*;
use crate::stage_layout::{Cluster, LaneGrid};

/// Every character 6 px wide at any font.
struct Fixed;
impl Measure for Fixed {
    fn width(&mut self, _: Font, _: f64, text: &str) -> f64 {
        text.chars().count() as f64 * 6.0
    }
}

/// The key, then the arguments' values: "stage.lane fast 1 3".
struct Keys;
impl Words for Keys {
    fn t(&self, key: &str) -> String {
        key.to_string()
    }
    fn tf(&self, key: &str, args: &[(&str, String)]) -> String {
        args.iter().fold(key.to_string(), |s, (_, v)| format!("{s} {v}"))
    }
}

fn config(replicas: usize, prefill_pool: usize, seqs: usize) -> StageConfig {
    StageConfig {
        isolation: false,
        max_num_seqs: seqs * replicas,
        class_names: vec!["chat".into(), "docs".into()],
        priorities: vec![0, 0],
        static_batching: false,
        cluster: Cluster { replicas, prefill_pool, seqs_per_replica: seqs },
    }
}

fn req(id: u64, phase: Phase, replica: u16) -> LiveRequest {
    LiveRequest {
        id,
        class: (id % 2) as u16,
        phase,
        arrival_s: id as f64 * 0.1,
        input_tokens: 100,
        output_tokens: 50,
        prefilled: 40,
        prefill_target: 100,
        generated: 10,
        preemptions: 0,
        kv_tokens: 0,
        kv_reserved_tokens: 0,
        cached_tokens: 0,
        replica,
        transfer: None,
    }
}

/// A stage and the run it shows, stepped frame by frame.
struct Run {
    stage: Stage,
    calm: StageCalm,
    endings: Vec<RecentEnding>,
    now_s: f64,
}

impl Run {
    fn new(cfg: StageConfig) -> Run {
        Run { stage: Stage::new(cfg), calm: StageCalm::default(), endings: Vec::new(), now_s: 1.0 }
    }
    fn frame(&mut self, live: &[LiveRequest], dt_ms: f64) -> &DisplayList {
        let rd = Readings { now_s: self.now_s, finished: false, live, endings: &self.endings, calm: &self.calm };
        self.stage.frame(1000.0, 360.0, TextNeeds::default(), &rd, dt_ms, &mut Fixed, &Keys);
        self.stage.list()
    }
    fn end(&mut self, id: u64, ending: Ending) {
        self.endings.push(RecentEnding { id, class: (id % 2) as u16, ending, at_s: self.now_s });
        self.now_s += 0.001;
    }
    fn at(&self, id: u64) -> (f64, f64) {
        let s = self.stage.sprite(id).expect("a glyph");
        (s.x, s.y)
    }
    fn geo(&self) -> &Geo {
        self.stage.geo().expect("laid out")
    }
}

fn dist(a: (f64, f64), b: (f64, f64)) -> f64 {
    (a.0 - b.0).hypot(a.1 - b.1)
}

#[test]
fn a_glyph_eases_towards_its_place_and_arrives() {
    let mut run = Run::new(config(1, 0, 8));
    let live = [req(1, Phase::Queued, 0)];
    run.frame(&live, 16.0);
    let target = LaneGrid::new(run.geo(), 0, 1).pos(0);
    let mut last = dist(run.at(1), target);
    assert!(last > 20.0, "it starts at the door, {last} px away");
    for _ in 0..10 {
        run.frame(&live, 16.0);
        let d = dist(run.at(1), target);
        assert!(d < last, "closer every frame: {d} after {last}");
        last = d;
    }
    for _ in 0..100 {
        run.frame(&live, 16.0);
    }
    assert!(dist(run.at(1), target) < 0.01);
}

#[test]
fn with_reduced_motion_a_glyph_is_in_place_at_once_and_nothing_flies() {
    let mut run = Run::new(config(1, 0, 8));
    run.stage.set_reduced_motion(true);
    run.frame(&[req(1, Phase::Queued, 0), req(2, Phase::Queued, 0)], 16.0);
    let grid = LaneGrid::new(run.geo(), 0, 2);
    assert_eq!(run.at(1), grid.pos(0));
    assert_eq!(run.at(2), grid.pos(1));
    run.end(1, Ending::Completed);
    run.frame(&[req(2, Phase::Queued, 0)], 16.0);
    assert!(run.stage.flights().is_empty(), "landed in the frame it left");
}

#[test]
fn an_ended_request_flies_to_its_outcomes_bin_and_lights_it() {
    let mut run = Run::new(config(1, 0, 8));
    run.frame(&[req(1, Phase::Decode, 0), req(2, Phase::Queued, 0)], 16.0);
    run.end(1, Ending::Completed);
    run.end(2, Ending::TimedOut);
    // a request rejected at the door never had a glyph: it flies from the door
    run.end(3, Ending::Rejected);
    run.frame(&[], 16.0);
    let g = run.geo().clone();
    let bins: Vec<Bin> = run.stage.flights().iter().map(|f| f.bin).collect();
    assert_eq!(bins.len(), 3);
    for bin in [Bin::Completed, Bin::TimedOut, Bin::Rejected] {
        let f = run.stage.flights().iter().find(|f| f.bin == bin).expect("a flight per ending");
        assert_eq!(f.to, g.bin_target(bin));
    }
    // a queued request that vanished without an ending timed out; a running one completed
    for _ in 0..60 {
        run.frame(&[], 16.0);
    }
    assert!(run.stage.flights().is_empty());
    assert!(run.stage.bin_flash[Bin::Completed.index()] > 0.0 && run.stage.bin_flash[Bin::OomLost.index()] == 0.0);
}

#[test]
fn running_sequences_never_share_a_decode_cell_in_a_replica() {
    let mut run = Run::new(config(2, 0, 6));
    // requests enter and leave decoding over many frames on two replicas
    for step in 0..40u64 {
        let live: Vec<LiveRequest> = (0..24u64)
            .filter(|id| (id * 7 + step) % 5 != 0)
            .map(|id| {
                let phase = if (id + step) % 3 == 0 { Phase::Queued } else { Phase::Decode };
                req(id, phase, (id % 2) as u16)
            })
            .collect();
        run.frame(&live, 16.0);
        for replica in 0..2u16 {
            let mut cells: Vec<u32> = live
                .iter()
                .filter(|r| r.phase == Phase::Decode && r.replica == replica)
                .map(|r| run.stage.sprite(r.id).and_then(|s| s.cell).expect("a decoding glyph has a cell"))
                .collect();
            let n = cells.len();
            cells.sort_unstable();
            cells.dedup();
            assert_eq!(cells.len(), n, "step {step}, replica {replica}: a cell shared");
        }
    }
}

#[test]
fn a_preempted_request_flashes_then_returns_to_the_queue() {
    let mut run = Run::new(config(1, 0, 8));
    run.stage.set_reduced_motion(true);
    run.frame(&[req(1, Phase::Decode, 0)], 16.0);
    assert_eq!(run.stage.sprite(1).map(|s| s.flash), Some(0.0));
    run.end(1, Ending::Preempted);
    run.frame(&[req(1, Phase::Queued, 0)], 16.0);
    let list = run.stage.list();
    // a ring around it, one
    let rings: Vec<_> = list.items.iter().filter(|i| matches!(i, Item::Circles { role: Role::Preempt, .. })).collect();
    assert_eq!(rings.len(), 1);
    assert_eq!(list.points_of(rings[0]).len(), 1);
    assert!(run.stage.sprite(1).is_some_and(|s| s.flash > 0.0 && s.cell.is_none()));
    assert_eq!(run.at(1), LaneGrid::new(run.geo(), 0, 1).pos(0), "back in the queue");
    assert!(run.stage.flights().is_empty(), "no ending: nothing flies");
    for _ in 0..100 {
        run.frame(&[req(1, Phase::Queued, 0)], 16.0);
    }
    assert_eq!(run.stage.sprite(1).map(|s| s.flash), Some(0.0), "the flash fades");
}

/// How many glyphs the list draws.
fn glyph_count(list: &DisplayList) -> usize {
    list.items.iter().filter(|i| matches!(i, Item::Glyphs { .. })).map(|i| list.points_of(i).len()).sum()
}

#[test]
fn the_decode_station_draws_one_glyph_and_one_slot_per_running_sequence() {
    let mut run = Run::new(config(1, 0, 16));
    let live: Vec<LiveRequest> = (0..5).map(|id| req(id, Phase::Decode, 0)).collect();
    run.frame(&live, 16.0);
    let list = run.stage.list();
    assert_eq!(glyph_count(list), 5);
    let tinted = list.items.iter().filter(|i| matches!(i, Item::Rect { fill: Role::Tint(_), .. })).count();
    let empty = list.items.iter().filter(|i| matches!(i, Item::Frame { stroke: Role::CellLine, .. })).count();
    assert_eq!((tinted, empty), (5, 11));
    // the glyphs are batched per class: two classes, two paths
    assert_eq!(list.items.iter().filter(|i| matches!(i, Item::Glyphs { .. })).count(), 2);
}

#[test]
fn the_display_list_is_cleared_not_grown_between_frames() {
    let mut run = Run::new(config(1, 0, 16));
    let live: Vec<LiveRequest> = (0..30).map(|id| req(id, Phase::Queued, 0)).collect();
    run.stage.set_reduced_motion(true);
    let (n, pts, text) = {
        let l = run.frame(&live, 16.0);
        (l.items.len(), l.points.len(), l.text.clone())
    };
    let cap = run.stage.list().items.capacity();
    let l = run.frame(&live, 16.0);
    assert_eq!((l.items.len(), l.points.len(), &l.text), (n, pts, &text));
    assert_eq!(l.items.capacity(), cap);
    assert!(text.contains("stage.queue_sub 0 30"), "{text}");
}

#[test]
fn labels_fit_their_boxes() {
    let mut cfg = config(1, 0, 8);
    cfg.isolation = true;
    cfg.class_names = vec!["interactive chat with a long name".into(), "docs".into()];
    let mut run = Run::new(cfg);
    run.frame(&[req(1, Phase::Queued, 0)], 16.0);
    let list = run.stage.list();
    let g = run.geo().clone();
    let lane_labels: Vec<&str> = list
        .items
        .iter()
        .filter(|i| matches!(i, Item::Text { x, font: Font::Tiny, .. } if (*x - (g.q0 + 6.0)).abs() < 1e-9))
        .map(|i| list.text_of(i))
        .collect();
    assert!(lane_labels.len() >= 2, "{lane_labels:?}");
    for l in &lane_labels {
        assert!(l.chars().count() as f64 * 6.0 <= g.q1 - g.q0 - 12.0 || !l.contains(' '), "{l:?} overflows its lane");
    }
    // the footer's lines end inside the stage
    for i in &list.items {
        if let Item::Text { x, font: Font::Small, align: Align::Left, .. } = *i {
            assert!(x + list.text_of(i).chars().count() as f64 * 6.0 <= g.w + 1e-9, "{:?}", list.text_of(i));
        }
    }
}

#[test]
fn with_disaggregation_a_transfer_lies_on_its_link() {
    // two prefill replicas, two decode replicas
    let mut run = Run::new(config(4, 2, 4));
    run.stage.set_reduced_motion(true);
    run.now_s = 2.0;
    let mut r = req(1, Phase::Prefill, 1);
    r.transfer = Some(KvTransfer { to: 3, sent_s: 1.0, start_s: 1.0, arrive_s: 3.0 });
    run.frame(&[r], 16.0);
    let list = run.stage.list();
    assert_eq!(glyph_count(list), 1);
    let g = run.geo().clone();
    assert!(g.link);
    let (from, to) = (g.prefill_band(1).unwrap(), g.decode_band(3).unwrap());
    // half way: the middle of the link from replica 1's band to replica 3's
    let ((x0, y0), (x1, y1)) = g.link_ends(from, to);
    let at = run.at(1);
    assert!(dist(at, ((x0 + x1) / 2.0, (y0 + y1) / 2.0)) < 1e-9, "{at:?}");
    let attrs = run.stage.attrs(&run.calm);
    assert_eq!(attrs[3], ("data-on-link", "1".to_string()));
    assert_eq!(attrs[4], ("data-transfers-seen", "1".to_string()));
    assert_eq!(attrs[0], ("data-layout", "bands".to_string()));
    // its link lit: drawn in the link colour
    let lit = list.items.iter().filter(|i| matches!(i, Item::Path { role: Role::Link, .. })).count();
    assert_eq!(lit, 1);
}

#[test]
fn requests_leaving_the_queue_are_counted_per_replica() {
    let mut run = Run::new(config(3, 0, 4));
    run.frame(&[req(1, Phase::Queued, 2), req(2, Phase::Queued, 0)], 16.0);
    run.frame(&[req(1, Phase::Prefill, 2), req(2, Phase::Queued, 0)], 16.0);
    assert_eq!(run.stage.attrs(&run.calm)[2], ("data-entered", "0,0,1".to_string()));
    assert_eq!(run.stage.attrs(&run.calm)[1], ("data-replicas", "3".to_string()));
}

#[test]
fn roles_without_a_value_index_a_table_in_order() {
    let plain = [
        Role::Bg,
        Role::Zone,
        Role::ZoneLine,
        Role::Text,
        Role::Muted,
        Role::Bracket,
        Role::Door,
        Role::CellLine,
        Role::DoneCell,
        Role::Hatch,
        Role::Preempt,
        Role::PreemptSoft,
        Role::Flash,
        Role::Cached,
        Role::CachedEdge,
        Role::Link,
        Role::Down,
    ];
    for (i, r) in plain.iter().enumerate() {
        assert_eq!(r.index(), i, "{r:?}");
    }
    assert_eq!(Role::Class(3).index(), plain.len());
    assert_eq!(Role::Bin(Bin::Rejected).index(), plain.len());
}
