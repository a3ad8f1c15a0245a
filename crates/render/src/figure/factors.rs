//! Figure 2: the ratio follows the load. One mark per pair with both logs: across, the load its
//! Server run was scheduled at, as a share of its Offline run's samples per second; up, its
//! ratio. Each benchmark has its colour and shape (the colours of figure 1). A pair on the
//! diagonal kept exactly the share of the Offline rate it was scheduled at; below it, the drain
//! and answer length took a little more.

use askama::Template;

use super::{coord, render, shape, ticks, Layout, Svg};
use ratios_base::error::Result;
use ratios_base::number::percent;
use ratios_model::analysis::Analysis;
use ratios_model::evidence::pair_logs::PairLogs;

/// The marks of one benchmark of figure 2, with its legend entry.
pub(crate) struct LoadSeries {
    /// The benchmark's place in the analysis's order: its colour and shape.
    pub k: usize,
    pub label: String,
    pub pairs: usize,
    pub median_load: String,
    pub median_ratio: String,
    /// Every mark of the benchmark, as one path.
    pub d: String,
    /// The legend's mark, and where its words stand.
    pub key_d: String,
    pub key_x: f64,
    pub key_y: f64,
}

/// A horizontal grid line with its label, at the left of the plot.
pub(crate) struct YTick {
    pub y: f64,
    pub label: String,
}

#[derive(Template)]
#[template(path = "figure-factors.svg")]
pub(crate) struct FactorsFigure {
    pub frame: super::Frame,
    pub plot_top: f64,
    pub series: Vec<LoadSeries>,
    pub y_ticks: Vec<YTick>,
    /// The diagonal, where the ratio equals the load, and the line of a ratio of 100 %.
    pub diagonal_d: String,
    pub hundred_y: f64,
    /// Where the axis names stand.
    pub x_name_y: f64,
    pub note: Option<super::ClippedNote>,
}

super::framed!(FactorsFigure);

#[derive(Template)]
#[template(path = "text/title-factors.txt")]
struct TitleWords<'a> {
    /// The benchmark scheduled furthest below its Offline rate at the median.
    benchmark: &'a str,
    /// The load carries more than half of the summed gap, on a log scale.
    load_leads: bool,
}

/// The benchmark scheduled furthest below its Offline rate at the median.
fn named(logs: &PairLogs) -> Option<&str> {
    logs.benchmarks
        .iter()
        .min_by(|a, b| a.median_load.total_cmp(&b.median_load))
        .map(|b| b.benchmark.as_str())
}

/// Figure 2 in `layout`.
pub fn factors(analysis: &Analysis, logs: &PairLogs, layout: Layout) -> Result<Svg> {
    let narrow = layout == Layout::Narrow;
    // (left, right and top of the plot, its height, mark radius)
    let (plot_x, plot_right, top, side, r) = match layout {
        Layout::Wide => (64.0, 464.0, 62.0, 400.0, 4.2),
        Layout::Narrow => (44.0, 320.0, 66.0, 276.0, 3.6),
    };
    let axis_y = top + side;
    let points: Vec<(usize, f64, f64)> = logs
        .pairs
        .iter()
        .filter_map(|p| {
            let k = analysis
                .benchmarks
                .iter()
                .position(|b| b.benchmark == p.benchmark)?;
            p.factors
                .as_ref()
                .map(|f| (k, f.load * 100.0, p.ratio * 100.0))
        })
        .collect();
    let scale = super::Scale::around(
        plot_x,
        plot_right,
        points.iter().flat_map(|(_, x, y)| [*x, *y]),
    );
    let (lo, hi) = (scale.lo, scale.hi);
    let x_of = |pct: f64| scale.x_of(pct);
    let y_of = |pct: f64| axis_y - side * (pct.clamp(lo, hi) - lo) / (hi - lo);
    let mut series = Vec::new();
    // The legend: beside the plot when wide, under it on a phone, two to a line.
    for (k, b) in analysis.benchmarks.iter().enumerate() {
        let Some(f) = logs.benchmarks.iter().find(|f| f.benchmark == b.benchmark) else {
            continue;
        };
        let mut d = String::new();
        for (_, x, y) in points.iter().filter(|(j, _, _)| *j == k) {
            // Whole pixels: a mark is several pixels wide, and the page is smaller for it.
            d.push_str(&shape(
                k,
                x_of(*x).round(),
                y_of(*y).round(),
                if k == 0 { r + 0.6 } else { r },
            ));
        }
        let n = series.len();
        let (key_x, key_y) = if narrow {
            (10.0, axis_y + 58.0 + 20.0 * n as f64)
        } else {
            (plot_right + 36.0, top + 24.0 + 44.0 * n as f64)
        };
        series.push(LoadSeries {
            k,
            label: f.benchmark.clone(),
            pairs: f.pairs,
            median_load: percent(f.median_load),
            median_ratio: percent(f.median_ratio),
            d,
            key_d: shape(k, key_x + 6.0, key_y - 4.0, r + 0.6),
            key_x: coord(key_x + 16.0),
            key_y: coord(key_y),
        });
    }
    let last_key = series.last().map_or(axis_y, |s| s.key_y);
    let bottom = if narrow {
        last_key + 16.0
    } else {
        axis_y + 44.0
    };
    let clipped = points
        .iter()
        .filter(|(_, x, y)| *x > hi || *y > hi || *x < lo || *y < lo)
        .count();
    let note = super::clipped_note(clipped, bottom + 18.0);
    let step = if narrow { 20.0 } else { 10.0 };
    let x_ticks = ticks(lo, hi, 10.0, step, x_of);
    let y_ticks = ticks(lo, hi, 10.0, step, |v| v)
        .into_iter()
        .filter(|t| !t.label.is_empty())
        .map(|t| YTick {
            y: coord(y_of(t.x)),
            label: t.label,
        })
        .collect();
    let title_text = match named(logs) {
        Some(benchmark) => ratios_base::template::render(
            &TitleWords {
                benchmark,
                load_leads: logs.log_shares.is_some_and(|s| s[0] > 0.5),
            },
            "text/title-factors.txt",
        )?,
        None => String::from("No pair has both logs"),
    };
    render(
        &FactorsFigure {
            frame: super::Frame::new(
                2,
                layout,
                &title_text,
                coord(bottom + if note.is_some() { 38.0 } else { 12.0 }),
                scale.plot(coord(axis_y)),
                x_ticks,
                &[(top, axis_y)],
            ),
            plot_top: top,
            series,
            y_ticks,
            diagonal_d: format!(
                "M{} {}L{} {}",
                coord(x_of(lo)),
                coord(y_of(lo)),
                coord(x_of(hi)),
                coord(y_of(hi))
            ),
            hundred_y: coord(y_of(100.0)),
            x_name_y: coord(axis_y + 34.0),
            note,
        },
        "figure 2",
    )
}
