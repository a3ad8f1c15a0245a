//! Figure 4: why the ratio differs. For each benchmark, two strips of one mark per pair with
//! both logs: the load its Server run was scheduled at, as a share of its Offline run's samples
//! per second, and its p99 time per output token as a share of the limit its log states. A
//! thick tick marks each strip's median; the line at 100 % is the Offline rate on the first
//! strip and the limit on the second.

use askama::Template;

use super::{coord, fit, render, ticks, Layout, Svg};
use crate::analysis::Analysis;
use crate::base::error::{Error, Result};
use crate::base::number::percent;
use crate::evidence::pair_logs::PairLogs;

/// One strip of figure 4.
pub struct Strip {
    pub y: f64,
    pub label: &'static str,
    pub label_y: f64,
    pub median: String,
    /// The median's tick as path data.
    pub median_d: String,
}

/// One benchmark of figure 4.
pub struct FactorBand {
    pub label: String,
    pub label_y: f64,
    pub pairs: usize,
    pub strips: [Strip; 2],
    /// Whether this benchmark's marks are drawn filled (the benchmark the title names).
    pub named: bool,
}

/// The note under figure 4 when some shares lie beyond its axis.
pub struct FactorsNote {
    pub y: f64,
    pub count: usize,
}

/// One mark of figure 4: its circle as path data.
pub struct FactorMark {
    pub d: String,
    pub named: bool,
}

#[derive(Template)]
#[template(path = "figure-factors.svg")]
pub struct FactorsFigure {
    pub frame: super::Frame,
    pub strip_height: f64,
    /// The width of a dot's stroke: its diameter.
    pub dot_width: f64,
    pub bands: Vec<FactorBand>,
    pub marks: Vec<FactorMark>,
    pub note: Option<FactorsNote>,
}

super::framed!(FactorsFigure);

#[derive(Template)]
#[template(path = "text/title-factors.txt")]
struct TitleWords<'a> {
    /// The benchmark scheduled furthest below its Offline rate at the median, and whether it
    /// is also the one whose p99 TPOT sits nearest its limit.
    benchmark: &'a str,
    also_nearest: bool,
}

/// The benchmark named by figure 4's title: the lowest median load, and whether it also has the
/// highest median TPOT share.
pub fn named(logs: &PairLogs) -> Option<(&str, bool)> {
    let low = logs
        .benchmarks
        .iter()
        .min_by(|a, b| a.median_load.total_cmp(&b.median_load))?;
    let nearest = logs
        .benchmarks
        .iter()
        .max_by(|a, b| a.median_tpot_share.total_cmp(&b.median_tpot_share))?;
    Some((&low.benchmark, low.benchmark == nearest.benchmark))
}

/// Figure 4 in `layout`.
pub fn factors(analysis: &Analysis, logs: &PairLogs, layout: Layout) -> Result<Svg> {
    let width = layout.width();
    let narrow = layout == Layout::Narrow;
    // (left and right of the plot, top, strip height, gap between strips, gap between bands,
    // room for a label above a strip, room for the benchmark's label above its band)
    let (plot_x, plot_right, top, strip_height, strip_gap, band_gap, strip_label, band_label) =
        match layout {
            Layout::Wide => (340.0, 730.0, 58.0, 24.0, 4.0, 16.0, 0.0, 0.0),
            Layout::Narrow => (16.0, 320.0, 60.0, 22.0, 2.0, 12.0, 16.0, 18.0),
        };
    let scale = super::Scale {
        x: plot_x,
        right: plot_right,
        lo: 0.0,
        hi: 110.0,
    };
    let (lo, hi) = (scale.lo, scale.hi);
    let dot = if narrow { 3.2 } else { 3.6 };
    let x_of = |pct: f64| scale.x_of(pct);
    let name = named(logs);
    let mut y = top;
    let mut bands = Vec::new();
    let mut marks = Vec::new();
    let mut spans = Vec::new();
    // The benchmarks in the analysis's order (lowest median ratio first).
    for b in &analysis.benchmarks {
        let Some(f) = logs.benchmarks.iter().find(|f| f.benchmark == b.benchmark) else {
            continue;
        };
        let is_named = name.is_some_and(|(n, _)| n == f.benchmark);
        y += band_label;
        let band_top = y;
        let mut strips = Vec::new();
        for (k, (label, median)) in [
            ("scheduled ÷ Offline rate", f.median_load),
            ("p99 TPOT ÷ its limit", f.median_tpot_share),
        ]
        .into_iter()
        .enumerate()
        {
            y += strip_label;
            let centre = y + strip_height / 2.0;
            spans.push((y, y + strip_height));
            strips.push(Strip {
                y: coord(centre),
                label,
                // On a phone the label stands above its strip, its descenders clear of the grid.
                label_y: coord(if narrow { y - 5.0 } else { centre + 4.5 }),
                median: percent(median),
                median_d: super::stroke(
                    x_of(median * 100.0),
                    centre - strip_height / 2.0 + 2.0,
                    centre + strip_height / 2.0 - 2.0,
                ),
            });
            let members = logs
                .pairs
                .iter()
                .filter(|p| p.benchmark == f.benchmark)
                .filter_map(|p| p.factors.as_ref());
            let spread = strip_height / 2.0 - 4.0;
            for (i, x) in members.enumerate() {
                let v = if k == 0 { x.load } else { x.tpot_share };
                let offset = [0.0, -spread / 2.0, spread / 2.0, -spread, spread][i % 5];
                marks.push(FactorMark {
                    d: super::dot(x_of(v * 100.0), centre + offset),
                    named: is_named,
                });
            }
            y += strip_height + strip_gap;
        }
        let [first, second]: [Strip; 2] = strips.try_into().map_err(|_| Error::Template {
            template: "figure 4".into(),
            message: "two strips per benchmark".into(),
        })?;
        bands.push(FactorBand {
            label: fit(&f.benchmark, if narrow { 30 } else { 22 }),
            label_y: coord(if narrow {
                band_top - 4.0
            } else {
                first.label_y
            }),
            pairs: f.pairs,
            strips: [first, second],
            named: is_named,
        });
        y += band_gap;
    }
    let axis_y = coord(y - band_gap + 2.0);
    let clipped = logs
        .pairs
        .iter()
        .filter_map(|p| p.factors.as_ref())
        .flat_map(|f| [f.load, f.tpot_share])
        .filter(|v| v * 100.0 > hi)
        .count();
    let note = (clipped > 0).then(|| FactorsNote {
        y: coord(axis_y + 40.0),
        count: clipped,
    });
    let ticks = ticks(lo, hi, 10.0, 20.0, x_of);
    let title_text = match name {
        Some((benchmark, also_nearest)) => crate::base::template::render(
            &TitleWords {
                benchmark,
                also_nearest,
            },
            "text/title-factors.txt",
        )?,
        None => String::from("No pair has both logs"),
    };
    let spans = super::merged(spans);
    render(
        &FactorsFigure {
            frame: super::Frame::new(
                4,
                layout,
                &title_text,
                (
                    width,
                    coord(axis_y + if note.is_some() { 50.0 } else { 30.0 }),
                ),
                scale.plot(axis_y),
                ticks,
                &spans,
            ),
            strip_height,
            dot_width: 2.0 * dot,
            bands,
            marks,
            note,
        },
        "figure 4",
    )
}
