use super::*;

#[test]
fn stations_are_left_to_right_and_lanes_stack_without_overlap() {
    let g = Geo::new(1000.0, 360.0, 3, 48);
    assert!(g.spawn_x < g.q0 && g.q0 < g.q1 && g.q1 < g.p0 && g.p0 < g.p1 && g.p1 < g.d0);
    assert!(g.d0 < g.d1 && g.d1 < g.o0 && g.o0 < g.o1 && g.o1 <= g.w);
    assert_eq!(g.lanes.len(), 3);
    for pair in g.lanes.windows(2) {
        assert!(pair[0].1 < pair[1].0, "lanes overlap: {pair:?}");
    }
    assert!((g.lanes[0].0 - g.top).abs() < 1e-9 && (g.lanes[2].1 - g.bottom).abs() < 1e-9);
    // a lane beyond the last is the last
    assert_eq!(g.lane_mid(9), g.lane_mid(2));
    // no lanes asked: one lane
    assert_eq!(Geo::new(800.0, 300.0, 0, 1).lanes.len(), 1);
}

#[test]
fn outcome_bins_keep_label_and_count_apart_down_to_the_min_height() {
    for (w, scale) in [(624.0, 1.0), (784.0, 1.0), (390.0, 1.0), (624.0, 1.25)] {
        let needs = TextNeeds { scale, bin_label_w: 60.0, tag_w: 16.0 };
        let min = Geo::with_text(w, 360.0, 1, 32, needs).min_height();
        // the same asked at any height: it depends on the width and the text only
        assert_eq!(Geo::with_text(w, 500.0, 1, 32, needs).min_height(), min, "w {w}, scale {scale}");
        for h in [min, min + 30.0, min + 60.0, 360.0] {
            let g = Geo::with_text(w, h, 1, 32, needs);
            for bin in Bin::ALL {
                let (x, y, bw, bh) = g.bin_rect(bin);
                assert!(bh + 1e-9 >= g.bin_min_h(), "{bin:?} w {w} h {h}: {bh} < {}", g.bin_min_h());
                if g.bin_inline {
                    // the label (icon, words) ends before the count's room begins
                    assert!(x + 21.0 + needs.bin_label_w + 8.0 <= x + bw - BIN_COUNT_W + 1e-9 || bw >= 0.3 * w - 1e-9);
                } else {
                    let label = y + 4.0 + g.fonts.small;
                    let count_top = y + bh - 6.0 - g.fonts.title;
                    assert!(label <= count_top + 1e-9, "{bin:?} w {w} h {h}: label {label}, count from {count_top}");
                }
            }
        }
        // tall stages have label above count; the shortest, both on a line
        assert!(!Geo::with_text(w, 460.0, 1, 32, needs).bin_inline || w < COMPACT_BELOW);
        assert!(Geo::with_text(w, min, 1, 32, needs).bin_inline);
    }
    // the compact layout (more text rows) needs more height
    let needs = TextNeeds::default();
    assert!(
        Geo::with_text(390.0, 360.0, 1, 32, needs).min_height()
            > Geo::with_text(624.0, 360.0, 1, 32, needs).min_height()
    );
}

#[test]
fn decode_cells_fill_their_station_and_are_capped() {
    let g = Geo::new(1000.0, 360.0, 1, 48);
    assert_eq!(g.cells, 48);
    let rows = g.cells.div_ceil(g.cell_cols);
    let (x, y, w, h) = g.cell_rect(0, g.cells - 1);
    assert!(x + w <= g.d1 + 1e-9 && y + h <= g.bottom + 1e-9);
    assert!(rows as f64 * g.cell_h <= g.bottom - g.top + 1e-9);
    assert_eq!(Geo::new(1000.0, 360.0, 1, 4096).cells, MAX_CELLS);
    // a glyph beyond the drawn slots sits in the last one
    assert_eq!(g.cell_glyph(0, 10_000), g.cell_glyph(0, g.cells - 1));
}

#[test]
fn queue_fills_from_the_middle_and_grows_denser() {
    let g = Geo::new(1000.0, 360.0, 1, 16);
    let few = LaneGrid::new(&g, 0, 5);
    let many = LaneGrid::new(&g, 0, 5000);
    assert!(many.pitch < few.pitch);
    assert!(few.cap >= 5);
    // head at the right of the middle row; the second row below, the third above
    let (x0, y0) = few.pos(0);
    assert!((y0 - few.y_mid).abs() < 1e-9);
    assert!(few.pos(1).0 < x0);
    let below = few.pos(few.cols).1;
    let above = few.pos(2 * few.cols).1;
    assert!(below > y0 && above < y0);
    // a place beyond the capacity is the last place
    assert_eq!(many.pos(many.cap + 10), many.pos(many.cap - 1));
}

#[test]
fn prefill_rows_leave_room_for_the_overflow_note() {
    let g = Geo::new(1000.0, 360.0, 1, 16);
    let few = PrefillRows::new(&g, 0, 3);
    assert_eq!((few.shown, few.row_h), (3, 20.0));
    let many = PrefillRows::new(&g, 0, 500);
    assert!(many.shown < 500 && many.row_h == 5.0);
    let (_, y, _, h) = many.bar(&g, many.shown - 1);
    assert!(y + h < g.bottom);
    assert!(few.glyph(&g, 99).1 == few.glyph(&g, 2).1);
}

#[test]
fn bins_and_flights() {
    let g = Geo::new(1000.0, 360.0, 1, 16);
    for pair in Bin::ALL.windows(2) {
        let (a, b) = (g.bin_rect(pair[0]), g.bin_rect(pair[1]));
        assert!(a.1 + a.3 < b.1, "bins overlap");
    }
    assert_eq!(Bin::of(Ending::Preempted), None);
    assert_eq!(Bin::of(Ending::Failed), Some(Bin::OomLost));
    let from = (100.0, 100.0);
    assert!(g.flight_via(from, Bin::Rejected).1 > g.bottom);
    assert!(g.flight_via(from, Bin::Completed).1 < g.bottom);
    assert_eq!(bezier((0.0, 0.0), (5.0, 5.0), (10.0, 0.0), 1.0), (10.0, 0.0));
    assert_eq!(bezier((0.0, 0.0), (5.0, 5.0), (10.0, 0.0), 0.0), (0.0, 0.0));
    assert_eq!(ease_out(2.0), 1.0);
    assert_eq!(ease_out(0.5), 0.75);
    for (i, b) in Bin::ALL.iter().enumerate() {
        assert_eq!(b.index(), i);
    }
}

/// A rough width of text in the fonts the stage uses (DejaVu-like: wide).
fn approx(text: &str, px: f64) -> f64 {
    text.chars().map(|c| if c.is_ascii() { 0.62 } else { 1.0 }).sum::<f64>() * px
}

#[test]
fn phone_stage_is_drawn_at_css_size_with_readable_text_and_labels_apart() {
    for (locale, subs, bins) in [
        (
            "en",
            ["15 arrived · 0 waiting", "12 prompts", "running batch 12 / 32"],
            ["completed", "rejected", "timed out", "OOM lost"],
        ),
        ("zh", ["已到达 15 · 等待 0", "12 个提示", "运行批次 12 / 32"], ["完成", "拒绝", "超时", "OOM丢失"]),
    ] {
        for w in [330.0, 358.0, 390.0] {
            let f = Fonts::new(1.0, true);
            let label_w = bins.iter().map(|b| approx(b, f.small)).fold(0.0, f64::max);
            let g = Geo::with_text(w, 460.0, 1, 32, TextNeeds { scale: 1.0, bin_label_w: label_w, tag_w: 16.0 });
            assert!(g.compact, "{w}");
            assert!(g.fonts.tiny >= MIN_TEXT_PX && g.fonts.small >= MIN_TEXT_PX && g.fonts.title > MIN_TEXT_PX);
            // stations in order and inside the canvas
            assert!(g.q1 < g.p0 && g.p1 < g.d0 && g.d0 < g.d1 && g.d1 < g.o0 && g.o1 <= w, "{locale} {w}: {g:?}");
            // each outcome label fits its bin beside the icon
            let (_, _, bw, bh) = g.bin_rect(Bin::Completed);
            assert!(label_w + 21.0 + 4.0 <= bw, "{locale} {w}: label {label_w} in bin {bw}");
            assert!(bh >= g.fonts.title * 2.0 + 8.0, "room for label and count: {bh}");
            // the station counts do not overlap: each row's labels are apart
            let xs = g.station_x();
            let widths: Vec<f64> = subs.iter().map(|s| approx(s, g.fonts.small)).collect();
            let rows = place_rows(&xs[..3], &widths, 6.0, w - 4.0, g.sub_rows);
            for i in 0..3 {
                for j in i + 1..3 {
                    if rows[i] == rows[j] {
                        assert!(xs[i] + widths[i] + 6.0 <= xs[j], "{locale} {w}: {i} and {j} overlap");
                    }
                }
                assert!(xs[i] + widths[i] <= w - 4.0, "{locale} {w}: count {i} runs off the canvas");
            }
            // titles fit before the next station
            let titles = if locale == "en" {
                ["Queue", "Prefill", "Decode", "Outcome"]
            } else {
                ["队列", "预填充", "解码", "结果"]
            };
            for i in 0..4 {
                let end = if i < 3 { xs[i + 1] } else { w };
                assert!(xs[i] + approx(titles[i], g.fonts.title) <= end, "{locale} {w}: title {i}");
            }
            // the counts sit below the titles and above the stations
            assert!(g.sub_y(0) > g.title_y && g.sub_y(g.sub_rows - 1) + 4.0 < g.top);
            // the footer lines are below the stations and inside the canvas
            assert!(g.foot_line_y(0) > g.bottom && g.foot_line_y(g.foot_rows - 1) < g.h);
        }
    }
}

#[test]
fn projector_text_is_larger_and_the_desktop_layout_keeps_its_shape() {
    let normal = Geo::new(600.0, 360.0, 1, 32);
    let big = Geo::with_text(600.0, 360.0, 1, 32, TextNeeds { scale: 1.25, bin_label_w: 75.0, tag_w: 16.0 });
    assert!(!normal.compact && !big.compact);
    assert!(big.fonts.tiny > normal.fonts.tiny && big.fonts.title > normal.fonts.title);
    assert_eq!(normal.fonts, Fonts { title: 12.0, small: 11.0, tiny: 10.0 });
    assert!(big.sub_rows > normal.sub_rows && big.top > normal.top);
    // the bins widen for a wider label, the decode slots give way
    assert!(big.o1 - big.o0 > normal.o1 - normal.o0 && big.d1 < normal.d1);
}

#[test]
fn rows_and_wrapping() {
    // the second label reaches the third's place: it moves down a row
    assert_eq!(place_rows(&[0.0, 100.0, 150.0], &[90.0, 80.0, 40.0], 6.0, 400.0, 3), vec![0, 0, 1]);
    assert_eq!(place_rows(&[0.0, 10.0], &[50.0, 50.0], 6.0, 400.0, 1), vec![0, 0]);
    let mut m = |s: &str| s.chars().count() as f64;
    assert_eq!(wrap("one two three", 7.0, &mut m), vec!["one two", "three"]);
    assert_eq!(wrap("静态批处理整批结束", 4.0, &mut m), vec!["静态批处", "理整批结", "束"]);
    assert_eq!(wrap("", 4.0, &mut m), Vec::<String>::new());
    for line in wrap("a very long sentence that has to wrap somewhere", 12.0, &mut m) {
        assert!(m(&line) <= 12.0, "{line}");
    }
}
