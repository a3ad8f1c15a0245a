//! Figure 5: the earlier round beside the article's. One row per benchmark both rounds hold (its
//! median ratio in each), then one row per system found in both rounds on each benchmark it ran
//! in both (its ratio in each): an open mark for the earlier round, a filled one for the
//! article's, and a line between. The wide drawing names each row beside it; the narrow one, for
//! phones, above its marks.

use askama::Template;

use super::{coord, fit_width, render, ticks, Layout, Svg};
use crate::across::AcrossRounds;
use crate::base::error::Result;
use crate::base::number::percent;

/// One row of figure 5.
pub struct RoundRow {
    pub label: String,
    pub label_x: f64,
    pub label_y: f64,
    /// The row's two values in words, for the text description.
    pub words: String,
    /// The line between the two marks, and each mark, as path data.
    pub line_d: String,
    pub previous_d: String,
    pub current_d: String,
    /// A row of the benchmarks' medians (the others are systems).
    pub median: bool,
}

/// A heading over a group of rows.
pub struct GroupHeading {
    pub text: String,
    pub y: f64,
}

#[derive(Template)]
#[template(path = "figure-rounds.svg")]
pub struct RoundsFigure {
    pub frame: super::Frame,
    pub previous: String,
    pub current: String,
    pub rows: Vec<RoundRow>,
    pub headings: Vec<GroupHeading>,
    /// Where the legend's marks and words stand.
    pub key_y: f64,
    pub key_previous_d: String,
    pub key_current_d: String,
    pub key_current_x: f64,
    pub note: Option<super::ClippedNote>,
}

super::framed!(RoundsFigure);

#[derive(Template)]
#[template(path = "text/title-rounds.txt")]
struct TitleWords<'a> {
    a: &'a AcrossRounds,
    benchmark: &'a str,
    /// The systems of the earlier round that ran the benchmark beside another.
    systems: usize,
}

/// A circle of radius `r` at (x, y), as path data.
fn circle(x: f64, y: f64, r: f64) -> String {
    let (x, y) = (coord(x), coord(y));
    format!(
        "M{} {y}a{r} {r} 0 1 0 {} 0a{r} {r} 0 1 0 {} 0z",
        coord(x - r),
        2.0 * r,
        -2.0 * r
    )
}

/// A row of the figure: its label, its second line, and its value in each round.
type Row = (String, String, f64, f64);

/// The rows: each shared benchmark's medians, then each system's ratios, by benchmark.
fn values(a: &AcrossRounds) -> (Vec<Row>, Vec<Row>) {
    let medians = a
        .medians
        .iter()
        .map(|m| {
            (
                format!("{}, median", m.benchmark),
                format!("{} pairs, then {}", m.pairs[0], m.pairs[1]),
                m.median[0],
                m.median[1],
            )
        })
        .collect();
    let mut systems: Vec<Row> = a
        .systems
        .iter()
        .flat_map(|s| {
            s.benchmarks.iter().map(move |b| {
                (
                    format!("{} · {}", s.organization, b.benchmark),
                    s.system_name.trim().to_string(),
                    b.previous,
                    b.current,
                )
            })
        })
        .collect();
    systems.sort_by(|x, y| x.0.cmp(&y.0).then_with(|| x.1.cmp(&y.1)));
    (medians, systems)
}

/// Figure 5 of `a` in `layout`; `None` when the two rounds share no benchmark.
pub fn rounds(a: &AcrossRounds, benchmark: &str, layout: Layout) -> Result<Option<Svg>> {
    let (medians, systems) = values(a);
    if medians.is_empty() {
        return Ok(None);
    }
    let narrow = layout == Layout::Narrow;
    let width = layout.width();
    // (left and right of the plot, first row, row height, mark radius)
    let (plot_x, plot_right, top, row_height, r) = match layout {
        Layout::Wide => (300.0, 730.0, 74.0, 24.0, 5.5),
        Layout::Narrow => (22.0, 320.0, 78.0, 36.0, 5.0),
    };
    let scale = super::Scale::around(
        plot_x,
        plot_right,
        medians
            .iter()
            .chain(&systems)
            .flat_map(|v| [v.2 * 100.0, v.3 * 100.0]),
    );
    let (lo, hi) = (scale.lo, scale.hi);
    let x_of = |pct: f64| scale.x_of(pct);
    let mut rows = Vec::new();
    let mut headings = Vec::new();
    let mut spans = Vec::new();
    let mut y = top;
    let groups = [
        (
            format!("Benchmarks both rounds hold, {} median", a.previous),
            &medians,
            true,
        ),
        ("Systems found in both rounds".to_string(), &systems, false),
    ];
    for (heading, group, median) in groups {
        if group.is_empty() {
            continue;
        }
        headings.push(GroupHeading {
            text: if median {
                "Benchmarks in both rounds, at the median".into()
            } else {
                heading
            },
            y: coord(y),
        });
        y += 10.0;
        for (label, detail, previous, current) in group {
            let row_y = y + row_height / 2.0 + if narrow { 8.0 } else { 0.0 };
            // On a phone the label sits above the marks: the grid runs below it.
            spans.push((y + if narrow { 20.0 } else { 0.0 }, y + row_height));
            let (px, cx) = (x_of(previous * 100.0), x_of(current * 100.0));
            rows.push(RoundRow {
                label: if narrow {
                    fit_width(label, width - 30.0, 12.0, false)
                } else {
                    fit_width(label, plot_x - 16.0, 13.0, false)
                },
                label_x: if narrow { 10.0 } else { coord(plot_x - 8.0) },
                label_y: coord(if narrow { row_y - 10.0 } else { row_y + 4.5 }),
                words: format!(
                    "{label} ({detail}): {} in {}, {} in {}",
                    percent(*previous),
                    a.previous,
                    percent(*current),
                    a.round
                ),
                line_d: format!("M{} {}H{}", coord(px), coord(row_y), coord(cx)),
                previous_d: circle(px, row_y, r),
                current_d: circle(cx, row_y, r + 0.5),
                median,
            });
            y += row_height;
        }
        y += 18.0;
    }
    let axis_y = coord(y - 12.0);
    let step = if narrow { 20.0 } else { 10.0 };
    let ticks = ticks(lo, hi, 10.0, step, x_of);
    let key_y = coord(axis_y + 40.0);
    let key_current_x = coord(if narrow { 10.0 } else { 150.0 });
    let key_current_y = if narrow { key_y + 18.0 } else { key_y };
    let bottom = key_current_y;
    let clipped = medians
        .iter()
        .chain(&systems)
        .flat_map(|v| [v.2, v.3])
        .filter(|v| v * 100.0 > hi)
        .count();
    let note = super::clipped_note(clipped, bottom + 20.0);
    let title_text = crate::base::template::render(
        &TitleWords {
            a,
            benchmark,
            systems: a
                .lowest
                .iter()
                .find(|l| l.round == a.previous)
                .map_or(0, |l| l.systems),
        },
        "text/title-rounds.txt",
    )?;
    let spans = super::merged(spans);
    let svg = render(
        &RoundsFigure {
            frame: super::Frame::new(
                5,
                layout,
                &title_text,
                (
                    width,
                    coord(bottom + if note.is_some() { 40.0 } else { 22.0 }),
                ),
                scale.plot(axis_y),
                ticks,
                &spans,
            ),
            previous: a.previous.clone(),
            current: a.round.clone(),
            rows,
            headings,
            key_y,
            key_previous_d: circle(16.0, key_y - 4.0, r),
            key_current_d: circle(key_current_x + 6.0, key_current_y - 4.0, r + 0.5),
            key_current_x,
            note,
        },
        "figure 5",
    )?;
    Ok(Some(svg))
}
