//! Figure 5: the earlier round beside the article's. One row per benchmark both rounds hold (its
//! median ratio in each), then one row per system found in both rounds on each benchmark it ran
//! in both (its ratio in each): an open mark for the earlier round, a filled one for the
//! article's, and a line between. The wide drawing names each row beside it; the narrow one, for
//! phones, above its marks.

use askama::Template;

use super::{coord, fit_width, render, ticks, Layout, Svg};
use ratios_base::error::Result;
use ratios_base::number::percent;
use ratios_model::across::AcrossRounds;

/// One row of figure 4 or 5.
pub(crate) struct RoundRow {
    pub label: String,
    pub label_x: f64,
    pub label_y: f64,
    /// The row's two values in words, for the text description.
    pub words: String,
    /// The line between the two marks, and each mark, as path data.
    pub line_d: String,
    pub previous_d: String,
    pub current_d: String,
}

/// A heading over a group of rows.
pub(crate) struct GroupHeading {
    pub text: String,
    pub y: f64,
}

#[derive(Template)]
#[template(path = "figure-rounds.svg")]
pub(crate) struct RoundsFigure {
    pub frame: super::Frame,
    /// The legend's names of the open and the filled mark.
    pub previous: String,
    pub current: String,
    /// What the text description says first, and the line under the title.
    pub desc_intro: String,
    pub subtitle: String,
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
            // The benchmark first, then the system, named with its organisation where its
            // name lacks it: a name cut to fit the row keeps the benchmark.
            let name = s.system_name.trim();
            let system = if name.starts_with(s.organization.as_str()) {
                name.to_string()
            } else {
                format!("{} {name}", s.organization)
            };
            s.benchmarks.iter().map(move |b| {
                (
                    format!("{} · {system}", b.benchmark),
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

/// Figure 4 of `a` in `layout`; `None` when the two rounds share no benchmark.
pub fn rounds(a: &AcrossRounds, benchmark: &str, layout: Layout) -> Result<Option<Svg>> {
    let (medians, systems) = values(a);
    if medians.is_empty() {
        return Ok(None);
    }
    let title_text = ratios_base::template::render(
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
    let narrow = layout == Layout::Narrow;
    let dumbbell = Dumbbell {
        number: 4,
        title: &title_text,
        labels: (a.previous.clone(), a.round.clone()),
        groups: vec![
            ("Benchmarks in both rounds, at the median".into(), medians),
            ("Systems found in both rounds".into(), systems),
        ],
        desc_intro: format!("Dot plot, one row per benchmark both rounds hold and per system found in both rounds; an open mark for {}, a filled one for {}.", a.previous, a.round),
        subtitle: if narrow {
            "Server ÷ Offline, %, in each round".into()
        } else {
            format!("Server ÷ Offline tokens/s, in %: {} (open) and {} (filled)", a.previous, a.round)
        },
    };
    dumbbell.draw(layout).map(Some)
}

/// A drawing of two values per row, an open and a filled mark joined by a line, in groups of
/// rows under headings: figure 4 (two rounds) and figure 5 (two scenarios).
pub(crate) struct Dumbbell<'a> {
    pub number: u8,
    pub title: &'a str,
    /// The names of the open and the filled mark.
    pub labels: (String, String),
    /// Each group's heading and rows: label, second line (for the description), open value,
    /// filled value, as ratios.
    pub groups: Vec<(String, Vec<Row>)>,
    pub desc_intro: String,
    pub subtitle: String,
}

impl Dumbbell<'_> {
    /// The drawing in `layout`.
    pub(crate) fn draw(self, layout: Layout) -> Result<Svg> {
        let (previous_name, current_name) = self.labels.clone();
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
            self.groups
                .iter()
                .flat_map(|(_, g)| g)
                .flat_map(|v| [v.2 * 100.0, v.3 * 100.0]),
        );
        let (lo, hi) = (scale.lo, scale.hi);
        let x_of = |pct: f64| scale.x_of(pct);
        let mut rows = Vec::new();
        let mut headings = Vec::new();
        let mut spans = Vec::new();
        let mut y = top;
        for (heading, group) in &self.groups {
            if group.is_empty() {
                continue;
            }
            headings.push(GroupHeading {
                text: heading.clone(),
                y: coord(y),
            });
            y += 10.0;
            for (label, detail, previous, current) in group {
                let row_y = y + row_height / 2.0 + if narrow { 8.0 } else { 0.0 };
                // On a phone the label sits above the marks, on a halo that hides the grid.
                spans.push((y, y + row_height));
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
                        previous_name,
                        percent(*current),
                        current_name
                    ),
                    line_d: format!("M{} {}H{}", coord(px), coord(row_y), coord(cx)),
                    previous_d: circle(px, row_y, r),
                    current_d: circle(cx, row_y, r + 0.5),
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
        let clipped = self
            .groups
            .iter()
            .flat_map(|(_, g)| g)
            .flat_map(|v| [v.2, v.3])
            .filter(|v| v * 100.0 > hi)
            .count();
        let note = super::clipped_note(clipped, bottom + 20.0);
        let spans = super::merged(spans);
        render(
            &RoundsFigure {
                frame: super::Frame::new(
                    self.number,
                    layout,
                    self.title,
                    coord(bottom + if note.is_some() { 40.0 } else { 22.0 }),
                    scale.plot(axis_y),
                    ticks,
                    &spans,
                ),
                previous: previous_name,
                current: current_name,
                desc_intro: self.desc_intro,
                subtitle: self.subtitle,
                rows,
                headings,
                key_y,
                key_previous_d: circle(16.0, key_y - 4.0, r),
                key_current_d: circle(key_current_x + 6.0, key_current_y - 4.0, r + 0.5),
                key_current_x,
                note,
            },
            &format!("figure {}", self.number),
        )
    }
}

#[derive(Template)]
#[template(path = "text/title-interactive.txt")]
struct InteractiveTitle {
    /// Every benchmark keeps less under Interactive limits than under Server ones, at the
    /// median.
    all_lower: bool,
    /// On most systems that ran two benchmarks or more under both, the benchmarks lie further
    /// apart under Interactive limits (the medians mix hardware: the fair comparison).
    wider: bool,
}

/// Figure 5 in `layout`: each benchmark's median under Server limits (open) and under
/// Interactive limits (filled), on the systems that ran both; `None` when no benchmark has both.
pub fn interactive(
    ia: &ratios_model::analysis::interactive::InteractiveAnalysis,
    layout: Layout,
) -> Result<Option<Svg>> {
    let rows: Vec<Row> = ia
        .server_alongside
        .both()
        .map(|(s, i)| {
            (
                s.benchmark.clone(),
                format!("{} pairs", i.pairs),
                s.median.0,
                i.median.0,
            )
        })
        .collect();
    if rows.is_empty() {
        return Ok(None);
    }
    let title = ratios_base::template::render(
        &InteractiveTitle {
            all_lower: rows.iter().all(|r| r.3 < r.2),
            wider: ia.within_systems.interactive_wider * 2 > ia.within_systems.systems,
        },
        "text/title-interactive.txt",
    )?;
    let narrow = layout == Layout::Narrow;
    Dumbbell {
        number: 5,
        title: &title,
        labels: ("Server".into(), "Interactive".into()),
        groups: vec![(
            "Each benchmark, at the median".into(),
            rows,
        )],
        desc_intro: "Dot plot, one row per benchmark: its median ratio under Server limits (open) and under Interactive limits (filled), on the systems that ran both.".into(),
        subtitle: if narrow {
            "Server or Interactive ÷ Offline, %".into()
        } else {
            "Server (open) or Interactive (filled) ÷ Offline tokens/s, in %".into()
        },
    }
    .draw(layout)
    .map(Some)
}
