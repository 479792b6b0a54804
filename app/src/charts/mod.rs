//! The lab's charts on canvas: `app_model::charts` computes each chart from the runs as a figure
//! (its axes and marks, `figure`) and in words; this module paints the figures
//! (`lab_canvas::chart`, the one painter, also of a sweep's charts) and writes each chart's words
//! and data table into its figure element (`text`).

mod text;

pub use app_model::charts::{ChartInput, CHARTS};
pub use lab_canvas::chart::paint;
pub use lab_canvas::{canvas_by_id, fit_canvas};
pub use text::figures;

use app_model::charts::cdf::{self, Cdf};
use app_model::charts::series::{self, SeriesChart};

use crate::theme::{Look, PageWords};

const CHART_H: f64 = 180.0;
const CHART_MIN_W: f64 = 300.0;

/// Redraws the chart canvases found in the page in `look`: all of them, or (to spread the work
/// over calm ticks) only those whose index has the parity `half`.
pub fn draw(input: &ChartInput<'_>, look: Look, half: Option<usize>) {
    let (pal, words) = (look.palette(), PageWords(look));
    for (i, (id, key)) in CHARTS.iter().enumerate() {
        if half.is_some_and(|h| i % 2 != h % 2) || canvas_by_id(id).is_none() {
            continue;
        }
        let h = CHART_H * pal.chart_scale;
        if i < 2 {
            let chart = Cdf::new(input, if i == 0 { cdf::Of::Ttft } else { cdf::Of::Tpot });
            let title = look.t(key);
            paint(id, &chart.figure(title.clone(), &words), pal, CHART_MIN_W, h);
            text::publish(i, |table| chart.text(input, &title, &words, table));
        } else {
            let of = [series::Of::Queue, series::Of::Batch, series::Of::Kv, series::Of::Goodput][i - 2];
            let chart = SeriesChart::new(input, of);
            let title = look.t(of.title_key().unwrap_or(key));
            paint(id, &chart.figure(title.clone(), &words), pal, CHART_MIN_W, h);
            text::publish(i, |table| chart.text(input, &title, &words, table));
        }
    }
}
