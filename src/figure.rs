//! Stage 5 of the pipeline: the article's two figures as SVG, laid out here from the analysis and
//! drawn by the templates `templates/figure-highlights.svg` and `templates/figure-pairs.svg`.
//!
//! Figure 1 draws one bar per highlighted pair (Server as % of Offline of that same pair), grouped by
//! system. Figure 2 draws every matched pair as one mark, one band per benchmark. Every string that
//! comes from the data is escaped by the templates.

use askama::Template;

use crate::analysis::{Analysis, Pair};
use crate::error::{Error, Result};
use crate::format::{coord, percent, tokens};
use crate::highlight::Highlights;

/// A rendered SVG document (well-formed XML, usable inline in HTML or as a file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Svg(pub String);

fn render<T: Template>(t: &T, name: &str) -> Result<Svg> {
    t.render()
        .map(Svg)
        .map_err(|e| Error::invalid(name, format!("template failed: {e}")))
}

/// The widest x axis a figure draws, in percent: a ratio beyond it (a typo in a Result, say) is
/// drawn at the edge with a note, so no data value can size the drawing.
pub const AXIS_MAX_PERCENT: f64 = 200.0;

/// A sentence under a figure when some values lie beyond its axis.
fn clipped_note(n: usize) -> Option<String> {
    (n > 0).then(|| {
        format!(
            "{n} value{} beyond {AXIS_MAX_PERCENT:.0} % drawn at the edge (see the table)",
            if n == 1 { "" } else { "s" }
        )
    })
}

/// One tick of an x axis.
pub struct Tick {
    pub x: f64,
    pub label: String,
}

fn ticks(lo: f64, hi: f64, step: f64, x_of: impl Fn(f64) -> f64) -> Vec<Tick> {
    let mut out = Vec::new();
    let mut v = lo;
    while v <= hi + 1e-9 {
        out.push(Tick {
            x: coord(x_of(v)),
            label: format!("{v:.0} %"),
        });
        v += step;
    }
    out
}

/// One bar of figure 1.
pub struct Bar {
    pub y: f64,
    pub width: f64,
    pub label: String,
    pub organization: String,
    pub value: String,
    pub value_x: f64,
    pub value_inside: bool,
    pub tooltip: String,
    pub over_100: bool,
}

/// A group heading of figure 1.
pub struct GroupHeading {
    pub y: f64,
    pub label: String,
}

#[derive(Template)]
#[template(path = "figure-highlights.svg")]
pub struct HighlightsFigure {
    pub width: f64,
    pub height: f64,
    pub plot_x: f64,
    pub plot_right: f64,
    pub axis_y: f64,
    pub bar_height: f64,
    pub reference_x: f64,
    pub ticks: Vec<Tick>,
    pub bars: Vec<Bar>,
    pub groups: Vec<GroupHeading>,
    pub legend_y: f64,
    pub note: Option<String>,
}

/// Figure 1: one bar per highlighted pair, grouped by organisation and platform.
pub fn highlights(analysis: &Analysis, highlights: &Highlights) -> Result<Svg> {
    let (width, plot_x, plot_right) = (760.0, 250.0, 690.0);
    let top = 56.0;
    let (bar_height, bar_gap, group_gap) = (26.0, 10.0, 30.0);
    let max_pct = highlights
        .highlights
        .iter()
        .map(|h| h.ratio.percent())
        .fold(100.0, f64::max);
    let domain = ((max_pct / 10.0).ceil() * 10.0).clamp(110.0, AXIS_MAX_PERCENT);
    let x_of = |pct: f64| plot_x + (plot_right - plot_x) * pct.clamp(0.0, domain) / domain;
    let clipped = highlights
        .highlights
        .iter()
        .filter(|h| h.ratio.percent() > domain)
        .count();

    let mut y = top;
    let mut bars = Vec::new();
    let mut groups: Vec<GroupHeading> = Vec::new();
    let mut current: Option<(String, String)> = None;
    for h in &highlights.highlights {
        let pair = analysis.pair(h.offline_id).ok_or_else(|| {
            Error::invalid("figure 1", format!("highlight {} has no pair", h.label))
        })?;
        let key = (pair.organization.clone(), pair.platform.clone());
        if current.as_ref() != Some(&key) {
            if current.is_some() {
                y += group_gap - bar_gap;
            }
            groups.push(GroupHeading {
                y: coord(y + 12.0),
                label: format!("{} · {}", pair.organization, pair.platform),
            });
            y += 22.0;
            current = Some(key);
        }
        let end = x_of(h.ratio.percent());
        // The value sits inside the bar's end when the bar is long enough, so it never collides
        // with the 100 % line; short bars carry it outside.
        let inside = end - plot_x > 80.0;
        bars.push(Bar {
            y: coord(y),
            width: coord(end - plot_x),
            label: pair.model.clone(),
            organization: pair.organization.clone(),
            value: percent(h.ratio),
            value_x: coord(if inside { end - 6.0 } else { end + 6.0 }),
            value_inside: inside,
            tooltip: tooltip(pair),
            over_100: h.ratio.0 > 1.0,
        });
        y += bar_height + bar_gap;
    }
    let axis_y = coord(y + 4.0);
    render(
        &HighlightsFigure {
            width,
            height: coord(axis_y + if clipped > 0 { 88.0 } else { 70.0 }),
            plot_x,
            plot_right,
            axis_y,
            bar_height,
            reference_x: coord(x_of(100.0)),
            ticks: ticks(0.0, domain, 20.0, x_of),
            bars,
            groups,
            legend_y: coord(axis_y + 48.0),
            note: clipped_note(clipped),
        },
        "figure 1",
    )
}

fn tooltip(p: &Pair) -> String {
    format!(
        "{} {} {}: Server {} / Offline {} tokens/s = {} (rows {} and {})",
        p.organization,
        p.system_name,
        p.model,
        tokens(p.server),
        tokens(p.offline),
        percent(p.ratio),
        p.server_id,
        p.offline_id
    )
}

/// One mark of figure 2.
pub struct Mark {
    pub x: f64,
    pub y: f64,
    pub highlighted: bool,
    pub tooltip: String,
}

/// One benchmark band of figure 2.
pub struct Band {
    pub y: f64,
    pub label: String,
    pub pairs: usize,
    pub min: String,
    pub median: String,
    pub max: String,
    pub median_x: f64,
}

#[derive(Template)]
#[template(path = "figure-pairs.svg")]
pub struct PairsFigure {
    pub width: f64,
    pub height: f64,
    pub plot_x: f64,
    pub plot_right: f64,
    pub top: f64,
    pub axis_y: f64,
    pub band_height: f64,
    pub reference_x: f64,
    pub ticks: Vec<Tick>,
    pub bands: Vec<Band>,
    pub marks: Vec<Mark>,
    pub legend_y: f64,
    pub note: Option<String>,
}

/// Figure 2: every matched pair as one mark, one band per benchmark, highlights emphasised.
pub fn all_pairs(analysis: &Analysis, highlights: &Highlights) -> Result<Svg> {
    let (width, plot_x, plot_right) = (760.0, 170.0, 730.0);
    let (top, band_height) = (56.0, 64.0);
    let stats = &analysis.benchmarks;
    let lo_pct = analysis
        .pairs
        .iter()
        .map(|p| p.ratio.percent())
        .fold(100.0, f64::min);
    let hi_pct = analysis
        .pairs
        .iter()
        .map(|p| p.ratio.percent())
        .fold(100.0, f64::max);
    let lo = ((lo_pct / 10.0).floor() * 10.0).clamp(0.0, 90.0);
    let hi = ((hi_pct / 10.0).ceil() * 10.0).clamp(110.0, AXIS_MAX_PERCENT);
    let x_of = |pct: f64| plot_x + (plot_right - plot_x) * (pct.clamp(lo, hi) - lo) / (hi - lo);
    let clipped = analysis
        .pairs
        .iter()
        .filter(|p| p.ratio.percent() > hi)
        .count();
    let highlighted: Vec<_> = highlights.highlights.iter().map(|h| h.offline_id).collect();

    let mut bands = Vec::new();
    let mut marks = Vec::new();
    for (i, s) in stats.iter().enumerate() {
        let center = top + band_height * (i as f64 + 0.5);
        let mut members: Vec<&Pair> = analysis
            .pairs
            .iter()
            .filter(|p| p.benchmark == s.benchmark)
            .collect();
        members.sort_by(|a, b| {
            a.ratio
                .0
                .total_cmp(&b.ratio.0)
                .then(a.offline_id.cmp(&b.offline_id))
        });
        // Deterministic vertical spread so that close values stay visible.
        const OFFSETS: [f64; 5] = [0.0, -9.0, 9.0, -18.0, 18.0];
        for (k, p) in members.iter().enumerate() {
            marks.push(Mark {
                x: coord(x_of(p.ratio.percent())),
                y: coord(center + OFFSETS[k % OFFSETS.len()]),
                highlighted: highlighted.contains(&p.offline_id),
                tooltip: tooltip(p),
            });
        }
        bands.push(Band {
            y: coord(center),
            label: s.benchmark.clone(),
            pairs: s.pairs,
            min: percent(s.min),
            median: percent(s.median),
            max: percent(s.max),
            median_x: coord(x_of(s.median.percent())),
        });
    }
    // Highlighted marks are drawn last, on top.
    marks.sort_by_key(|m| m.highlighted);
    let axis_y = coord(top + band_height * stats.len() as f64 + 4.0);
    let step = if hi - lo > 60.0 { 10.0 } else { 5.0 };
    render(
        &PairsFigure {
            width,
            height: coord(axis_y + if clipped > 0 { 88.0 } else { 70.0 }),
            plot_x,
            plot_right,
            top,
            axis_y,
            band_height,
            reference_x: coord(x_of(100.0)),
            ticks: ticks(lo, hi, step, x_of),
            bands,
            marks,
            legend_y: coord(axis_y + 48.0),
            note: clipped_note(clipped),
        },
        "figure 2",
    )
}
