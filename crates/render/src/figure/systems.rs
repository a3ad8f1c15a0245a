//! Figure 1: the benchmark that keeps the least, system by system. One row per system that ran
//! the lowest-median benchmark beside at least one other (each once), one mark per benchmark it
//! ran; the lowest-median benchmark's mark is filled, each other benchmark has a shape of its
//! own, and a line joins the filled mark to the lowest of the others. Rows are ordered by the
//! filled mark. The wide drawing names each row; the narrow one, for phones, leaves the names to
//! the data page's table so that every row stays one line.

use askama::Template;

use super::{coord, fit_width, render, shape, ticks, Layout, Svg};
use ratios_base::error::Result;
use ratios_base::number::percent;
use ratios_model::analysis::Analysis;

/// One mark of figure 1.
pub(crate) struct SystemMark {
    pub d: String,
    /// The benchmark's place in the analysis's order: its colour (as in figure 2).
    pub k: usize,
}

/// One row of figure 1.
pub(crate) struct SystemRow {
    pub label: String,
    pub label_x: f64,
    pub label_y: f64,
    /// The system's name in full and its ratios, for the text description.
    pub words: String,
    /// The line from the filled mark to the lowest other mark, as path data.
    pub gap_d: String,
    /// The top of the shading of a highlighted row.
    pub band_y: f64,
    pub highlighted: bool,
}

/// One entry of the legend: the shape and its benchmark.
pub(crate) struct ShapeKey {
    pub d: String,
    pub k: usize,
    pub label: String,
    pub x: f64,
    pub y: f64,
}

#[derive(Template)]
#[template(path = "figure-systems.svg")]
pub(crate) struct SystemsFigure {
    pub frame: super::Frame,
    pub rows: Vec<SystemRow>,
    pub marks: Vec<SystemMark>,
    pub keys: Vec<ShapeKey>,
    /// The height of a highlighted row's shading.
    pub band_height: f64,
    pub note: Option<super::ClippedNote>,
}

super::framed!(SystemsFigure);

#[derive(Template)]
#[template(path = "text/title-systems.txt")]
struct TitleWords<'a> {
    benchmark: &'a str,
    lowest_on: usize,
    systems: usize,
}

/// The benchmarks of the analysis, in its order: lowest median first.
fn benchmarks(analysis: &Analysis) -> Vec<&str> {
    analysis
        .benchmarks
        .iter()
        .map(|b| b.benchmark.as_str())
        .collect()
}

/// The systems of figure 1: for each, its name, whether it is a highlighted system, and its
/// ratio on each benchmark it ran, in the analysis's order of benchmarks.
pub fn rows(analysis: &Analysis, highlighted: &[(String, String)]) -> Vec<SystemRatios> {
    let order = benchmarks(analysis);
    let mut by: std::collections::BTreeMap<(&str, &str), Vec<&ratios_model::analysis::Pair>> =
        Default::default();
    for p in &analysis.pairs {
        by.entry((&p.submission.organization, &p.submission.platform))
            .or_default()
            .push(p);
    }
    let mut out: Vec<SystemRatios> = by
        .into_iter()
        .filter_map(|((org, platform), ps)| {
            let mut ratios: Vec<(usize, f64)> = Vec::new();
            for (b, benchmark) in order.iter().enumerate() {
                let of: Vec<f64> = ps
                    .iter()
                    .filter(|p| p.submission.benchmark == *benchmark)
                    .map(|p| p.ratio.0)
                    .collect();
                match of.as_slice() {
                    [] => {}
                    [r] => ratios.push((b, *r)),
                    _ => return None,
                }
            }
            let ran_lowest = ratios.iter().any(|(b, _)| *b == 0);
            (ran_lowest && ratios.len() >= 2).then(|| SystemRatios {
                name: ps[0].submission.system_label(),
                label: format!("{org} · {}", ps[0].submission.system_name),
                highlighted: highlighted.iter().any(|(o, p)| o == org && p == platform),
                ratios,
            })
        })
        .collect();
    out.sort_by(|a, b| {
        a.ratios[0]
            .1
            .total_cmp(&b.ratios[0].1)
            .then_with(|| a.name.cmp(&b.name))
    });
    out
}

/// A system of figure 1 and its ratios by benchmark (index in the analysis's order, ratio).
pub struct SystemRatios {
    /// The system as the article names it: its name, and its organisation when the name does
    /// not carry it.
    pub name: String,
    /// The organisation first, then the system's name: what the drawing's row shows, cut to fit.
    pub label: String,
    /// Whether it is a system of the span group's highlights, which figure 1 shades.
    pub highlighted: bool,
    /// Its ratio (Server ÷ Offline, a fraction) on each benchmark it ran, by the benchmark's
    /// index in the analysis's order, lowest median first.
    pub ratios: Vec<(usize, f64)>,
}

/// Figure 1 in `layout`.
pub fn systems(
    analysis: &Analysis,
    highlighted: &[(String, String)],
    layout: Layout,
) -> Result<Svg> {
    let width = layout.width();
    let narrow = layout == Layout::Narrow;
    let systems = rows(analysis, highlighted);
    let order = benchmarks(analysis);
    let lowest = order.first().copied().unwrap_or_default();
    // (left and right of the plot, first row, row height, mark radius)
    let (plot_x, plot_right, top, row_height, r) = match layout {
        Layout::Wide => (270.0, 730.0, 58.0, 21.0, 5.0),
        Layout::Narrow => (22.0, 320.0, 60.0, 28.0, 4.2),
    };
    // The legend above the rows, so that a phone shows it before them: one key per benchmark,
    // two to a line on a phone.
    let mut keys = Vec::new();
    for (b, name) in order.iter().enumerate() {
        let (kx, ky) = if narrow {
            (
                10.0 + 160.0 * (b % 2) as f64,
                top + 8.0 + 18.0 * (b / 2) as f64,
            )
        } else {
            (
                10.0 + order[..b]
                    .iter()
                    .map(|n| 40.0 + 8.0 * n.chars().count() as f64)
                    .sum::<f64>(),
                top + 8.0,
            )
        };
        keys.push(ShapeKey {
            d: shape(b, kx + 12.0, ky - 4.0, if b == 0 { r + 1.0 } else { r }),
            k: b,
            label: name.to_string(),
            x: coord(kx + 24.0),
            y: coord(ky),
        });
    }
    let top = top
        + if narrow {
            18.0 * order.len().div_ceil(2) as f64 + 6.0
        } else {
            24.0
        };
    let scale = super::Scale::around(
        plot_x,
        plot_right,
        systems
            .iter()
            .flat_map(|s| s.ratios.iter().map(|(_, v)| v * 100.0)),
    );
    let (lo, hi) = (scale.lo, scale.hi);
    let x_of = |pct: f64| scale.x_of(pct);
    let mut rows = Vec::new();
    let mut marks = Vec::new();
    let mut spans = Vec::new();
    let mut lowest_on = 0;
    for (i, s) in systems.iter().enumerate() {
        // On a phone the name stands above the marks, on a halo that hides the grid behind it.
        let y = top + row_height * (i as f64 + 0.5) + if narrow { 6.0 } else { 0.0 };
        spans.push((
            y - row_height / 2.0 - if narrow { 6.0 } else { 0.0 },
            y + row_height / 2.0 - if narrow { 6.0 } else { 0.0 },
        ));
        let own = s
            .ratios
            .iter()
            .find(|(b, _)| *b == 0)
            .map_or(0.0, |(_, v)| *v);
        let next = s
            .ratios
            .iter()
            .filter(|(b, _)| *b != 0)
            .map(|(_, v)| *v)
            .fold(f64::INFINITY, f64::min);
        if own < next {
            lowest_on += 1;
        }
        let words = s
            .ratios
            .iter()
            .map(|(b, v)| format!("{} {}", order[*b], percent(*v)))
            .collect::<Vec<_>>()
            .join(", ");
        rows.push(SystemRow {
            // Right-aligned 8 px left of the plot, 13 px type, 4 px clear of the drawing's edge.
            label: if narrow {
                fit_width(&s.label, width - 20.0, 12.0, s.highlighted)
            } else {
                fit_width(&s.label, plot_x - 12.0, 13.0, s.highlighted)
            },
            label_x: if narrow { 10.0 } else { coord(plot_x - 8.0) },
            label_y: coord(if narrow { y - 9.0 } else { y + 4.5 }),
            words: format!("{}: {words}", s.name),
            gap_d: format!(
                "M{} {}H{}",
                coord(x_of(own * 100.0)),
                coord(y),
                coord(x_of(next * 100.0))
            ),
            band_y: coord(if narrow { y - 20.0 } else { y - 8.0 }),
            highlighted: s.highlighted,
        });
        // The others first, the filled mark over them.
        let mut row: Vec<&(usize, f64)> = s.ratios.iter().collect();
        row.sort_by_key(|(b, _)| *b == 0);
        for (b, v) in row {
            marks.push(SystemMark {
                d: shape(
                    *b,
                    x_of(v * 100.0).round(),
                    y.round(),
                    if *b == 0 { r + 1.0 } else { r },
                ),
                k: *b,
            });
        }
    }
    let bottom_rows = top + row_height * systems.len() as f64;
    let axis_y = coord(bottom_rows + 2.0);
    let step = if narrow { 20.0 } else { 10.0 };
    let ticks = ticks(lo, hi, 10.0, step, x_of);
    let bottom = axis_y + 22.0;
    let clipped = systems
        .iter()
        .flat_map(|s| &s.ratios)
        .filter(|(_, v)| v * 100.0 > hi)
        .count();
    let note = super::clipped_note(clipped, bottom + 20.0);
    let title_text = ratios_base::template::render(
        &TitleWords {
            benchmark: lowest,
            lowest_on,
            systems: systems.len(),
        },
        "text/title-systems.txt",
    )?;
    let spans = super::merged(spans);
    render(
        &SystemsFigure {
            frame: super::Frame::new(
                1,
                layout,
                &title_text,
                coord(bottom + if note.is_some() { 40.0 } else { 22.0 }),
                scale.plot(axis_y),
                ticks,
                &spans,
            ),
            rows,
            marks,
            keys,
            band_height: if narrow { row_height } else { 16.0 },
            note,
        },
        "figure 1",
    )
}
