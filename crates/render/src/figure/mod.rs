//! The article's figures as SVG, laid out here from the results and drawn by the templates
//! `templates/figure-*.svg`: figure 1, every system (`systems`); figure 2, the load against the
//! ratio (`factors`); figure 3, the highlighted pairs, and figure 6, every pair (here); figures 4
//! and 5, two values per row (`rounds`); and the social card (`card`). Within each, one colour
//! and shape means one benchmark.
//!
//! Figure 3 draws one bar per highlighted pair (Server as % of Offline of that same pair), grouped
//! by system. Figure 6 draws every matched pair as one mark, one band per benchmark. Each figure
//! has two layouts: a wide one (the standalone file, desktops, print) and a narrow one for phones,
//! where labels sit above the bars and bands instead of beside them, so every label stays legible
//! at the width of the screen. Axes are bounded whatever the data hold. Every string that comes
//! from the data is escaped by the templates.

pub mod card;
pub mod factors;
pub mod rounds;
pub mod systems;

use askama::Template;

use ratios_base::error::{Error, Result};
use ratios_base::number::{coord, percent, points, tokens};
use ratios_base::template;
use ratios_model::analysis::{Analysis, Pair, Ratio};
use ratios_model::evidence::pair_logs::PairLogs;
use ratios_model::highlight::Highlights;

/// The figures' style rules, light and dark (`templates/svg-rules.css`): in each standalone file,
/// and once in the page's style sheet.
pub(crate) const SVG_RULES: &str = include_str!("../../../../templates/svg-rules.css");

/// A rendered SVG document (well-formed XML, usable inline in HTML or as a file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Svg(pub String);

impl Svg {
    /// The figure as a standalone SVG file: the XML declaration, then the figure with its
    /// style sheet (in the page, the page's style sheet holds the same rules once for every
    /// figure).
    pub fn file_bytes(&self) -> Vec<u8> {
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
        match self.0.rsplit_once("</svg>") {
            Some((body, tail)) => format!("{xml}{body}<style>\n{SVG_RULES}</style>\n</svg>{tail}"),
            None => format!("{xml}{}", self.0),
        }
        .into_bytes()
    }
}

fn render<T: Template>(t: &T, name: &str) -> Result<Svg> {
    template::render(t, name).map(Svg)
}

/// The widest x axis a figure draws, in percent: a ratio beyond it (a typo in a Result, say) is
/// drawn at the edge with a note, so no data value can size the drawing.
pub(crate) const AXIS_MAX_PERCENT: f64 = 200.0;

/// Which drawing of a figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// 760 user units wide: labels beside the plot.
    Wide,
    /// 340 user units wide, for phones: labels above the plot, 12-unit text.
    Narrow,
}

impl Layout {
    fn width(self) -> f64 {
        match self {
            Layout::Wide => 760.0,
            Layout::Narrow => 340.0,
        }
    }

    fn suffix(self) -> &'static str {
        match self {
            Layout::Wide => "",
            Layout::Narrow => "n",
        }
    }
}

/// The six figures in both layouts.
#[derive(Debug, Clone)]
pub struct Figures {
    /// Figure 4, the earlier round beside the article's, in both layouts: `None` without an
    /// earlier round that shares a benchmark.
    pub rounds: Option<(Svg, Svg)>,
    /// Figure 5, the benchmarks' medians under Server and Interactive limits on the same
    /// systems, when a benchmark has both.
    pub interactive: Option<(Svg, Svg)>,
    /// Figure 3, the highlighted pairs' bars, wide: inline on desktops and in print, and the
    /// standalone `scenario-ratios.svg`.
    pub highlights: Svg,
    /// Figure 3 laid out for phones, labels above the bars.
    pub highlights_narrow: Svg,
    /// Figure 6, every pair as one mark, wide: inline, and the standalone `ratios-by-model.svg`.
    pub pairs: Svg,
    /// Figure 6 laid out for phones.
    pub pairs_narrow: Svg,
    /// Figure 1, every system's ratio on each benchmark it ran, wide.
    pub systems: Svg,
    /// Figure 1 laid out for phones.
    pub systems_narrow: Svg,
    /// Figure 2, the load against the ratio, from the pairs' LoadGen logs, wide.
    pub factors: Svg,
    /// Figure 2 laid out for phones.
    pub factors_narrow: Svg,
}

/// Draws the six figures in both layouts.
pub fn figures(
    analysis: &Analysis,
    h: &Highlights,
    logs: &PairLogs,
    across: &[ratios_model::across::AcrossRounds],
) -> Result<Figures> {
    // The highlighted systems (organisation, platform), which figure 3 shades.
    let highlighted: Vec<(String, String)> = h
        .highlights
        .iter()
        .filter(|h| h.in_span)
        .filter_map(|h| analysis.pair(h.offline_id))
        .map(|p| {
            (
                p.submission.organization.clone(),
                p.submission.platform.clone(),
            )
        })
        .collect();
    let lowest = analysis
        .benchmarks
        .first()
        .map_or("", |b| b.benchmark.as_str());
    let rounds = match across.first() {
        Some(a) => {
            rounds::rounds(a, lowest, Layout::Wide)?.zip(rounds::rounds(a, lowest, Layout::Narrow)?)
        }
        None => None,
    };
    let interactive = rounds::interactive(&analysis.interactive, Layout::Wide)?
        .zip(rounds::interactive(&analysis.interactive, Layout::Narrow)?);
    Ok(Figures {
        rounds,
        interactive,
        highlights: highlights(analysis, h, Layout::Wide)?,
        highlights_narrow: highlights(analysis, h, Layout::Narrow)?,
        pairs: all_pairs(analysis, h, Layout::Wide)?,
        pairs_narrow: all_pairs(analysis, h, Layout::Narrow)?,
        systems: systems::systems(analysis, &highlighted, Layout::Wide)?,
        systems_narrow: systems::systems(analysis, &highlighted, Layout::Narrow)?,
        factors: factors::factors(analysis, logs, Layout::Wide)?,
        factors_narrow: factors::factors(analysis, logs, Layout::Narrow)?,
    })
}

/// The note under a figure when some values lie beyond its axis (`templates/clipped-note.svg`
/// words it): where it goes and how many values it counts.
pub(crate) struct ClippedNote {
    pub y: f64,
    pub count: usize,
    pub axis_max: String,
}

fn clipped_note(count: usize, y: f64) -> Option<ClippedNote> {
    (count > 0).then(|| ClippedNote {
        y: coord(y),
        count,
        axis_max: format!("{AXIS_MAX_PERCENT:.0}"),
    })
}

/// The hover text of a bar or mark, worded by `templates/text/pair-tooltip.txt`.
#[derive(Template)]
#[template(path = "text/pair-tooltip.txt")]
struct Tooltip<'a> {
    p: &'a Pair,
    server: String,
    offline: String,
    ratio: String,
}

fn tooltip(p: &Pair) -> Result<String> {
    template::render(
        &Tooltip {
            p,
            server: tokens(p.server),
            offline: tokens(p.offline),
            ratio: percent(p.ratio),
        },
        "text/pair-tooltip.txt",
    )
    .map(|t| ratios_base::text::join_units(&t, false))
}

/// One tick of an x axis.
pub(crate) struct Tick {
    pub x: f64,
    pub label: String,
}

/// Ticks from `lo` to `hi` (bounded by [`AXIS_MAX_PERCENT`], so at most a few dozen); only the
/// multiples of `labelled` carry a label, so labels never touch on a narrow axis.
fn ticks(lo: f64, hi: f64, step: f64, labelled: f64, x_of: impl Fn(f64) -> f64) -> Vec<Tick> {
    let n = ((hi - lo) / step + 1e-9).floor().clamp(0.0, 40.0) as usize;
    (0..=n)
        .map(|i| {
            let v = lo + step * i as f64;
            Tick {
                x: coord(x_of(v)),
                label: if (v / labelled).fract().abs() < 1e-9 {
                    format!("{v:.0}{}%", ratios_base::text::NBSP)
                } else {
                    String::new()
                },
            }
        })
        .collect()
}

/// One entry of a legend: a key (line, bar or dot) at (x, y) and its text after it.
pub(crate) struct LegendItem {
    pub kind: LegendKind,
    pub x: f64,
    pub y: f64,
}

/// What a legend entry stands for: `templates/legend.svg` draws its swatch and words its label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LegendKind {
    /// The 100 % line of figures 3 and 6.
    Reference,
    /// A dot of figure 6, labelled "matched pair".
    Mark,
    /// An open diamond, labelled "CPU-only system": a system without accelerators.
    MarkCpuOnly,
}

/// Legend entries laid out in one row (wide) or one per line (narrow), starting at `y`. Each
/// entry is its kind and, for the wide row, the room it takes: swatch and the label that
/// `templates/legend.svg` gives that kind.
fn legend(layout: Layout, y: f64, entries: &[(LegendKind, f64)]) -> (Vec<LegendItem>, f64) {
    let mut items = Vec::new();
    let (mut x, mut y) = (10.0, y);
    for &(kind, wide_width) in entries {
        items.push(LegendItem {
            kind,
            x: coord(x),
            y: coord(y),
        });
        match layout {
            Layout::Wide => x += wide_width,
            Layout::Narrow => y += 18.0,
        }
    }
    let bottom = match layout {
        Layout::Wide => y,
        Layout::Narrow => y - 18.0,
    };
    (items, bottom)
}

/// One bar of figure 3, with its label and value already placed.
pub struct Bar {
    /// The top of the bar, in the figure's SVG units.
    pub y: f64,
    /// Its length from the plot's left edge to the pair's ratio on the axis, in SVG units.
    pub width: f64,
    /// The model's name, cut to fit the room beside (wide) or above (narrow) the bar.
    pub label: String,
    /// Where the label stands: its anchor's x, in SVG units.
    pub label_x: f64,
    /// The label's baseline, in SVG units.
    pub label_y: f64,
    /// Whether the label ends at `label_x` (wide, left of the bar) rather than starting there.
    pub label_end: bool,
    /// The pair's system and model in full, for the text description.
    pub system: String,
    /// The pair's model in full, as the summary names it.
    pub model: String,
    /// The value, in the column right of the plot, where no line crosses it.
    pub value: String,
    /// The x where the value starts, past the plot's right edge, in SVG units.
    pub value_x: f64,
    /// The value's baseline, level with the bar's middle, in SVG units.
    pub value_y: f64,
    /// The bar's hover text: the pair's system, model, both throughputs, ratio and row IDs.
    pub tooltip: String,
    /// Whether the Server run passed its Offline throughput (a ratio above 100 %).
    pub over_100: bool,
    /// The benchmark's place in the analysis's order: its colour, as in figures 1 and 2.
    pub k: usize,
}

/// The bracket under figure 3's span group, and its words.
pub(crate) struct SpanMark {
    pub d: String,
    pub text: String,
    pub x: f64,
    pub y: f64,
}

/// A group heading of figure 3: the system's name (the summary's `SystemName`, the one name the
/// article gives a system), on one line or, when narrow, on up to two, on a row of its own that
/// no line crosses.
pub(crate) struct GroupHeading {
    pub y: f64,
    pub name: String,
    /// The rest of the name and its baseline, when it takes a second line.
    pub rest: Option<(String, f64)>,
}

/// A vertical line of a figure drawn as pieces, one per row of marks or bars, so it never runs
/// through a row of labels.
pub(crate) struct Segment {
    pub x: f64,
    pub y1: f64,
    pub y2: f64,
}

/// The pieces of each vertical line at `xs`, one per row span of `rows` (top, bottom).
fn segments(xs: &[f64], rows: &[(f64, f64)]) -> Vec<Segment> {
    xs.iter()
        .flat_map(|&x| {
            rows.iter().map(move |&(y1, y2)| Segment {
                x,
                y1: coord(y1),
                y2: coord(y2),
            })
        })
        .collect()
}

/// Rows that touch (the bottom of one at the top of the next) as one span.
fn merged(rows: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    let mut out: Vec<(f64, f64)> = Vec::new();
    for (top, bottom) in rows {
        match out.last_mut() {
            Some(last) if (last.1 - top).abs() < 1e-9 => last.1 = bottom,
            _ => out.push((top, bottom)),
        }
    }
    out
}

/// `name` in at most two lines of `max` characters, broken at a space; what does not fit is cut
/// with an ellipsis (the tables give it whole).
fn two_lines(name: &str, max: usize) -> (String, Option<String>) {
    if name.chars().count() <= max {
        return (name.to_string(), None);
    }
    let cut = name
        .char_indices()
        .take_while(|(i, _)| name[..*i].chars().count() <= max)
        .filter(|(_, c)| *c == ' ')
        .map(|(i, _)| i)
        .last();
    match cut {
        Some(i) if i > 0 => (name[..i].to_string(), Some(fit(name[i + 1..].trim(), max))),
        _ => (fit(name, max), None),
    }
}

/// At most `max` characters of a label, cut with an ellipsis (the tables give it whole).
fn fit(label: &str, max: usize) -> String {
    if label.chars().count() <= max {
        label.to_string()
    } else {
        let cut: String = label.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}

/// The width of `text` in em, set in a sans-serif font as wide as DejaVu Sans (the widest of
/// the fonts `system-ui` falls back to), heavier for a bold label: an upper bound for the fonts
/// a reader's system picks, so a label fitted to it stays inside its drawing.
fn text_em(text: &str, bold: bool) -> f64 {
    let em: f64 = text
        .chars()
        .map(|c| match c {
            ' ' | '.' | ',' | ':' | ';' | '·' | 'i' | 'j' | 'l' | '|' | '!' | '\'' => 0.32,
            'f' | 't' | 'r' | 'I' | '(' | ')' | '[' | ']' | '/' | '-' => 0.42,
            'm' | 'w' | 'M' | 'W' | '%' => 0.98,
            '0'..='9' | '_' | 'a'..='z' => 0.64,
            'A'..='Z' => 0.76,
            _ => 0.8,
        })
        .sum();
    if bold {
        em * 1.1
    } else {
        em
    }
}

/// As much of `label` as fits in `width` px at `font_px`, cut with an ellipsis (the tables give
/// it whole).
fn fit_width(label: &str, width: f64, font_px: f64, bold: bool) -> String {
    if text_em(label, bold) * font_px <= width {
        return label.to_string();
    }
    let mut cut: String = label.to_string();
    while !cut.is_empty() && text_em(&format!("{cut}…"), bold) * font_px > width {
        cut.pop();
    }
    format!("{}…", cut.trim_end())
}

/// What the figures' drawings share: the `<svg>`'s id and class, its title and the layout
/// it was drawn for, its size, where the subtitle sits, the plot's left and right edges and its
/// axis, and the grid, the 100 % line and the ticks. Each figure holds one and derefs to it, so
/// that its template reads these as its own (as Askama's template inheritance does).
pub(crate) struct Frame {
    pub id: String,
    /// The text description's id: the wide drawing's, which the narrow one shares (one of the
    /// two is shown, and the description is the same).
    pub desc_id: String,
    pub class: &'static str,
    pub title: Title,
    pub narrow: bool,
    pub width: f64,
    pub height: f64,
    pub subtitle_y: f64,
    pub plot_x: f64,
    pub plot_right: f64,
    pub axis_y: f64,
    pub grid: Vec<Segment>,
    pub reference: Vec<Segment>,
    pub ticks: Vec<Tick>,
}

/// Where a figure's plot lies: its left and right edges, its axis, and the x of the 100 % line.
struct Plot {
    x: f64,
    right: f64,
    axis_y: f64,
    hundred: f64,
}

/// The top of a percent axis that shows `max_pct`: rounded up to a ten, at least 110 % and at
/// most [`AXIS_MAX_PERCENT`] (a ratio beyond it is drawn at the edge and said in a note).
fn axis_top(max_pct: f64) -> f64 {
    ((max_pct / 10.0).ceil() * 10.0).clamp(110.0, AXIS_MAX_PERCENT)
}

/// A figure's horizontal scale: percent from `lo` to `hi` across the plot, from `x` to `right`;
/// a value outside is drawn at the nearer edge.
#[derive(Clone, Copy)]
struct Scale {
    x: f64,
    right: f64,
    lo: f64,
    hi: f64,
}

impl Scale {
    /// The scale from 0 % to the [`axis_top`] of `percents` (and of 100 %).
    fn from_zero(x: f64, right: f64, percents: impl Iterator<Item = f64>) -> Scale {
        let hi = axis_top(percents.fold(100.0, f64::max));
        Scale {
            x,
            right,
            lo: 0.0,
            hi,
        }
    }

    /// The scale around `percents` and 100 %: from their least rounded down to a ten (at most
    /// 90 %, at least 0) to their [`axis_top`].
    fn around(x: f64, right: f64, percents: impl Iterator<Item = f64> + Clone) -> Scale {
        let lo = ((percents.clone().fold(100.0, f64::min) / 10.0).floor() * 10.0).clamp(0.0, 90.0);
        let hi = axis_top(percents.fold(100.0, f64::max));
        Scale { x, right, lo, hi }
    }

    /// The x of `pct`.
    fn x_of(&self, pct: f64) -> f64 {
        self.x
            + (self.right - self.x) * (pct.clamp(self.lo, self.hi) - self.lo) / (self.hi - self.lo)
    }

    /// The plot this scale spans, its axis at `axis_y`.
    fn plot(&self, axis_y: f64) -> Plot {
        Plot {
            x: self.x,
            right: self.right,
            axis_y,
            hundred: self.x_of(100.0),
        }
    }
}

impl Frame {
    /// The frame of figure `number`, drawn for `layout` (its width) and `height` tall, titled
    /// `title_text`:
    /// the grid at each tick and the 100 % line, both drawn only along `rows` (the rows of marks,
    /// top and bottom), so that no line crosses a label.
    fn new(
        number: u8,
        layout: Layout,
        title_text: &str,
        height: f64,
        plot: Plot,
        ticks: Vec<Tick>,
        rows: &[(f64, f64)],
    ) -> Frame {
        let narrow = layout == Layout::Narrow;
        Frame {
            id: format!("fig{number}{}", layout.suffix()),
            desc_id: format!("fig{number}-desc"),
            class: if narrow { "sr-fig sr-narrow" } else { "sr-fig" },
            title: title(title_text, layout, 44),
            narrow,
            width: layout.width(),
            height,
            subtitle_y: if narrow { 48.0 } else { 40.0 },
            plot_x: plot.x,
            plot_right: plot.right,
            axis_y: plot.axis_y,
            grid: segments(&ticks.iter().map(|t| t.x).collect::<Vec<_>>(), rows),
            reference: segments(&[coord(plot.hundred)], rows),
            ticks,
        }
    }
}

/// A figure reads its frame's fields as its own.
macro_rules! framed {
    ($figure:ty) => {
        impl std::ops::Deref for $figure {
            type Target = $crate::figure::Frame;
            fn deref(&self) -> &Self::Target {
                &self.frame
            }
        }
    };
}
use framed;

/// A figure's title, on one line (wide) or two (narrow), each with its baseline.
pub struct Title {
    /// Each line of the title with its baseline in SVG units: one line wide, up to two narrow.
    pub lines: Vec<(String, f64)>,
}

fn title(text: &str, layout: Layout, max: usize) -> Title {
    match layout {
        Layout::Wide => Title {
            lines: vec![(text.to_string(), 22.0)],
        },
        Layout::Narrow => {
            let (first, rest) = two_lines(text, max);
            let mut lines = vec![(first, 16.0)];
            lines.extend(rest.map(|r| (r, 31.0)));
            Title { lines }
        }
    }
}

/// One bar of figure 3 before layout: a highlighted pair's model and ratio.
pub(crate) struct BarData<'a> {
    pub pair: &'a Pair,
    pub model: &'a str,
    pub ratio: Ratio,
    /// The benchmark's place in the analysis's order: its colour.
    pub k: usize,
}

/// Figure 3's bars before layout, one group per system in the highlights' order: what the
/// figure and the social card both draw.
pub(crate) struct BarGroup<'a> {
    pub system: &'a str,
    pub bars: Vec<BarData<'a>>,
}

/// Groups the highlighted pairs by system (organisation and platform), in the highlights' order.
pub(crate) fn bar_groups<'a>(
    analysis: &'a Analysis,
    highlights: &'a Highlights,
) -> Result<Vec<BarGroup<'a>>> {
    let mut groups: Vec<BarGroup<'a>> = Vec::new();
    let mut current: Option<(&str, &str)> = None;
    for h in &highlights.highlights {
        let pair = analysis.pair(h.offline_id).ok_or_else(|| Error::NoPair {
            context: "figure 3",
            highlight: h.label.clone(),
        })?;
        let key = (
            pair.submission.organization.as_str(),
            pair.submission.platform.as_str(),
        );
        let bar = BarData {
            pair,
            model: &pair.submission.model,
            ratio: h.ratio,
            k: analysis
                .benchmarks
                .iter()
                .position(|b| b.benchmark == pair.submission.benchmark)
                .unwrap_or(0),
        };
        match groups.last_mut() {
            Some(group) if current == Some(key) => group.bars.push(bar),
            _ => groups.push(BarGroup {
                system: &pair.submission.system_name,
                bars: vec![bar],
            }),
        }
        current = Some(key);
    }
    Ok(groups)
}

#[derive(Template)]
#[template(path = "text/title-highlights.txt")]
struct HighlightsTitle {
    span: String,
}

#[derive(Template)]
#[template(path = "figure-highlights.svg")]
pub(crate) struct HighlightsFigure {
    pub frame: Frame,
    pub bar_height: f64,
    pub bars: Vec<Bar>,
    pub groups: Vec<GroupHeading>,
    pub spans: Vec<SpanMark>,
    pub legend: Vec<LegendItem>,
    pub note: Option<ClippedNote>,
}

framed!(HighlightsFigure);

/// Figure 3: one bar per highlighted pair, grouped by system. Labels sit left of the plot (wide)
/// or on a row of their own above each bar (narrow), values in a column right of it, and the
/// grid and the 100 % line are drawn only along the rows of bars: no line crosses a label.
pub fn highlights(analysis: &Analysis, highlights: &Highlights, layout: Layout) -> Result<Svg> {
    let narrow = layout == Layout::Narrow;
    // (plot left and right, first row, bar height, gap between bars, label row above a bar)
    let (plot_x, plot_right, top, bar_height, bar_gap, label_room) = match layout {
        Layout::Wide => (230.0, 650.0, 56.0, 26.0, 10.0, 0.0),
        Layout::Narrow => (18.0, 262.0, 62.0, 20.0, 8.0, 17.0),
    };
    // Characters a label may take (the full text is in the tables).
    let max_label = if narrow { 40 } else { 30 };
    let scale = Scale::from_zero(
        plot_x,
        plot_right,
        highlights.highlights.iter().map(|h| h.ratio.percent()),
    );
    let domain = scale.hi;
    let x_of = |pct: f64| scale.x_of(pct);
    let clipped = highlights
        .highlights
        .iter()
        .filter(|h| h.ratio.percent() > domain)
        .count();

    let mut y = top;
    let mut bars = Vec::new();
    let mut rows = Vec::new();
    let mut groups: Vec<GroupHeading> = Vec::new();
    let mut spans = Vec::new();
    let span_words = format!("{}-point span", points(highlights.span_pp));
    for (g, group) in bar_groups(analysis, highlights)?.iter().enumerate() {
        if g > 0 {
            y += 14.0;
        }
        let (name, rest) = two_lines(group.system, if narrow { 36 } else { 80 });
        let second = rest.is_some();
        groups.push(GroupHeading {
            y: coord(y + 12.0),
            name,
            rest: rest.map(|r| (r, coord(y + 27.0))),
        });
        y += if second { 38.0 } else { 23.0 };
        for bar in &group.bars {
            y += label_room;
            let end = x_of(bar.ratio.percent());
            let middle = y + bar_height / 2.0 + 4.5;
            let (label_x, label_y, label_end) = match layout {
                Layout::Wide => (plot_x - 8.0, middle, true),
                Layout::Narrow => (plot_x, y - 6.0, false),
            };
            // The lines run along the bar; when narrow they stop short of its label above.
            rows.push(match layout {
                Layout::Wide => (y - bar_gap / 2.0, y + bar_height + bar_gap / 2.0),
                Layout::Narrow => (y - 1.0, y + bar_height + 1.0),
            });
            bars.push(Bar {
                y: coord(y),
                width: coord(end - plot_x),
                label: fit(bar.model, max_label),
                label_x: coord(label_x),
                label_y: coord(label_y),
                label_end,
                system: group.system.to_string(),
                model: bar.model.to_string(),
                value: percent(bar.ratio),
                value_x: coord(plot_right + 8.0),
                value_y: coord(middle),
                tooltip: tooltip(bar.pair)?,
                over_100: bar.ratio.0 > 1.0,
                k: bar.k,
            });
            y += bar_height + bar_gap;
        }
        // Under the span group's bars, a bracket from its lowest ratio to its highest, named
        // with the span.
        let span: Vec<f64> = group
            .bars
            .iter()
            .filter(|b| {
                highlights
                    .highlights
                    .iter()
                    .any(|h| h.in_span && h.offline_id == b.pair.offline_id)
            })
            .map(|b| b.ratio.percent())
            .collect();
        if span.len() > 1 {
            let (lo, hi) = (
                span.iter().copied().fold(f64::INFINITY, f64::min),
                span.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            );
            let (x1, x2, yy) = (coord(x_of(lo)), coord(x_of(hi)), coord(y + 4.0));
            spans.push(SpanMark {
                d: format!(
                    "M{x1} {}V{}M{x1} {yy}H{x2}M{x2} {}V{}",
                    yy - 5.0,
                    yy + 5.0,
                    yy - 5.0,
                    yy + 5.0
                ),
                text: span_words.clone(),
                x: coord(if narrow { x1 } else { x2 + 8.0 }),
                y: coord(if narrow { yy + 17.0 } else { yy + 4.5 }),
            });
            y += if narrow { 26.0 } else { 14.0 };
        }
    }
    let axis_y = coord(y - bar_gap / 2.0 + 2.0);
    let ticks = ticks(0.0, domain, 20.0, 20.0, x_of);
    let rows = merged(rows);
    let (legend, bottom) = legend(layout, axis_y + 46.0, &[(LegendKind::Reference, 320.0)]);
    let note = clipped_note(clipped, bottom + 20.0);
    let title_text = template::render(
        &HighlightsTitle {
            // In whole points, as the story gives it; the bracket's label keeps the digits.
            span: format!("{:.0}", highlights.span_pp),
        },
        "text/title-highlights.txt",
    )?;
    render(
        &HighlightsFigure {
            frame: Frame::new(
                3,
                layout,
                &title_text,
                coord(bottom + if note.is_some() { 40.0 } else { 22.0 }),
                scale.plot(axis_y),
                ticks,
                &rows,
            ),
            bar_height,
            bars,
            groups,
            spans,
            legend,
            note,
        },
        "figure 3",
    )
}

/// One mark of figure 6.
pub struct Mark {
    /// Its outline as path data: a circle, or for a CPU-only system a diamond. The marks of one
    /// kind are drawn as one path, so the page holds a few elements, not one per pair.
    pub d: String,
    /// Whether the pair is one of the highlights, drawn larger (the span's system as a circle,
    /// any other as a square).
    pub highlighted: bool,
    /// A system without accelerators, drawn as an open diamond.
    pub cpu_only: bool,
    /// The hover text of a highlighted mark in the wide drawing; empty for every other mark.
    pub tooltip: String,
}

/// A circle of radius `r` at (x, y) as path data.
pub fn circle(x: f64, y: f64, r: f64) -> String {
    format!(
        "M{} {}a{r} {r} 0 1 0 {} 0a{r} {r} 0 1 0 {} 0z",
        coord(x - r),
        coord(y),
        coord(2.0 * r),
        coord(-2.0 * r)
    )
}

/// A mark's shape, by the benchmark's place among the others.
pub(crate) const SHAPES: usize = 4;

/// The path of shape `k` (0 circle, 1 square, 2 triangle, 3 diamond) of radius `r` at (x, y).
pub(crate) fn shape(k: usize, x: f64, y: f64, r: f64) -> String {
    let (x, y) = (coord(x), coord(y));
    match k % SHAPES {
        0 => format!(
            "M{} {y}a{r} {r} 0 1 0 {} 0a{r} {r} 0 1 0{} 0z",
            coord(x - r),
            2.0 * r,
            -2.0 * r
        ),
        1 => format!(
            "M{} {}h{}v{}h{}z",
            coord(x - r * 0.9),
            coord(y - r * 0.9),
            coord(1.8 * r),
            coord(1.8 * r),
            coord(-1.8 * r)
        ),
        2 => format!(
            "M{x} {}l{} {}h{}z",
            coord(y - r * 1.1),
            coord(r * 1.1),
            coord(r * 1.9),
            coord(-2.2 * r)
        ),
        _ => format!("M{x} {}l{r} {r}-{r} {r}-{r}-{r}z", coord(y - r)),
    }
}

/// A dot at (x, y) as path data: a stroke of no length, which a path drawn with round caps and
/// a stroke as wide as the dot (`.sr-dots`) shows as a disc. A few characters a mark, where a
/// circle takes forty.
pub fn dot(x: f64, y: f64) -> String {
    format!("M{} {}h0", coord(x), coord(y))
}

/// A diamond of half-diagonal `r` at (x, y) as path data.
pub fn diamond(x: f64, y: f64, r: f64) -> String {
    format!("M{} {}l{r} {r}-{r} {r}-{r}-{r}z", coord(x), coord(y - r))
}

/// A vertical stroke from `y1` to `y2` at `x` as path data.
pub fn stroke(x: f64, y1: f64, y2: f64) -> String {
    format!("M{} {}V{}", coord(x), coord(y1), coord(y2))
}

/// One benchmark band of figure 6.
pub(crate) struct Band {
    /// Centre of the strip of marks.
    pub y: f64,
    /// Baseline of the label (beside the strip when wide, above it when narrow).
    pub label_y: f64,
    pub label: String,
    pub pairs: usize,
    pub min: String,
    pub median: String,
    pub max: String,
    /// The median's tick as path data.
    pub median_d: String,
}

#[derive(Template)]
#[template(path = "figure-pairs.svg")]
pub(crate) struct PairsFigure {
    pub frame: Frame,
    pub strip_height: f64,
    /// The width of a dot's stroke: its diameter.
    pub dot_width: f64,
    pub bands: Vec<Band>,
    pub marks: Vec<Mark>,
    /// Marks of CPU-only systems.
    pub cpu_marks: usize,
    pub legend: Vec<LegendItem>,
    /// The highlighted systems, each with the shape of its marks.
    pub named: Vec<NamedKey>,
    pub note: Option<ClippedNote>,
}

framed!(PairsFigure);

/// A legend entry naming a highlighted system by the shape of its marks.
pub(crate) struct NamedKey {
    pub d: String,
    pub x: f64,
    pub y: f64,
    pub label: String,
}

#[derive(Template)]
#[template(path = "text/title-pairs.txt")]
struct PairsTitle<'a> {
    low: &'a str,
}

/// A square of half-side `r` at (x, y) as path data.
pub fn square(x: f64, y: f64, r: f64) -> String {
    format!(
        "M{} {}h{}v{}h{}z",
        coord(x - r),
        coord(y - r),
        coord(2.0 * r),
        coord(2.0 * r),
        coord(-2.0 * r)
    )
}

/// Figure 6: every matched pair as one mark, one band per benchmark, highlights emphasised.
/// Band labels sit left of the plot (wide) or on a row above each strip (narrow); the grid and
/// the 100 % line run along the strips only, and each median tick is drawn over the marks but
/// under the highlighted ones, which stay whole where they sit on a median.
pub(crate) fn all_pairs(
    analysis: &Analysis,
    highlights: &Highlights,
    layout: Layout,
) -> Result<Svg> {
    let narrow = layout == Layout::Narrow;
    // (left and right of the plot, top, band height, strip height, label room above the strip)
    let (plot_x, plot_right, top, band_height, strip_height, label_room) = match layout {
        Layout::Wide => (170.0, 730.0, 56.0, 64.0, 58.0, 0.0),
        Layout::Narrow => (12.0, 326.0, 58.0, 74.0, 46.0, 24.0),
    };
    let stats = &analysis.benchmarks;
    let scale = Scale::around(
        plot_x,
        plot_right,
        analysis.pairs.iter().map(|p| p.ratio.percent()),
    );
    let (lo, hi) = (scale.lo, scale.hi);
    let x_of = |pct: f64| scale.x_of(pct);
    let clipped = analysis
        .pairs
        .iter()
        .filter(|p| p.ratio.percent() > hi)
        .count();
    let highlighted: Vec<_> = highlights.highlights.iter().map(|h| h.offline_id).collect();
    let (dot, dot_hl) = if narrow { (4.0, 5.5) } else { (4.5, 6.0) };
    // The systems of the highlights, the span's first: their names and each highlight's system.
    let mut systems: Vec<String> = Vec::new();
    let mut system_of: Vec<(ratios_model::summary::RowId, usize)> = Vec::new();
    let mut ordered: Vec<&ratios_model::highlight::Highlight> =
        highlights.highlights.iter().collect();
    ordered.sort_by_key(|h| !h.in_span);
    for h in ordered {
        // The system's short name, as the highlight's label gives it before its model.
        let name = h.label.split(" · ").next().unwrap_or(&h.label).to_string();
        let k = match systems.iter().position(|s| *s == name) {
            Some(k) => k,
            None => {
                systems.push(name);
                systems.len() - 1
            }
        };
        system_of.push((h.offline_id, k));
    }
    // Deterministic vertical spread so that close values stay visible, every mark inside its
    // strip.
    let spread = strip_height / 2.0 - dot_hl - 1.0;
    let offsets = [0.0, -spread / 2.0, spread / 2.0, -spread, spread];

    let mut bands = Vec::new();
    let mut marks = Vec::new();
    let mut rows = Vec::new();
    for (i, s) in stats.iter().enumerate() {
        let band_top = top + band_height * i as f64;
        let center = band_top + label_room + (band_height - label_room) / 2.0;
        rows.push((center - strip_height / 2.0, center + strip_height / 2.0));
        let mut members: Vec<&Pair> = analysis
            .pairs
            .iter()
            .filter(|p| p.submission.benchmark == s.benchmark)
            .collect();
        members.sort_by(|a, b| {
            a.ratio
                .0
                .total_cmp(&b.ratio.0)
                .then(a.offline_id.cmp(&b.offline_id))
        });
        for (k, p) in members.iter().enumerate() {
            let (x, y) = (x_of(p.ratio.percent()), center + offsets[k % offsets.len()]);
            let is_highlighted = highlighted.contains(&p.offline_id);
            marks.push(Mark {
                d: if is_highlighted {
                    let k = system_of
                        .iter()
                        .find(|(id, _)| *id == p.offline_id)
                        .map_or(0, |(_, k)| *k);
                    if k == 0 {
                        circle(x, y, dot_hl)
                    } else {
                        square(x, y, dot_hl * 0.9)
                    }
                } else if p.submission.cpu_only {
                    diamond(x, y, dot + 1.0)
                } else {
                    self::dot(x, y)
                },
                highlighted: is_highlighted,
                cpu_only: p.submission.cpu_only,
                // A highlighted mark names its pair on hover; a phone shows no hover text, so the
                // narrow drawing leaves it out. The other marks are one path, listed in the
                // table of all pairs.
                tooltip: if narrow || !is_highlighted {
                    String::new()
                } else {
                    tooltip(p)?
                },
            });
        }
        bands.push(Band {
            y: coord(center),
            label_y: coord(match layout {
                Layout::Wide => center,
                Layout::Narrow => band_top + 17.0,
            }),
            label: fit(&s.benchmark, if narrow { 24 } else { 22 }),
            pairs: s.pairs,
            min: percent(s.min),
            median: percent(s.median),
            max: percent(s.max),
            median_d: stroke(
                x_of(s.median.percent()),
                center - strip_height / 2.0 + 3.0,
                center + strip_height / 2.0 - 3.0,
            ),
        });
    }
    let axis_y = coord(top + band_height * stats.len() as f64 + 2.0);
    let step = if hi - lo > 60.0 || narrow { 10.0 } else { 5.0 };
    let ticks = ticks(lo, hi, step, if narrow { 20.0 } else { step }, x_of);
    let mut entries = vec![(LegendKind::Reference, 240.0), (LegendKind::Mark, 130.0)];
    if analysis.pairs.iter().any(|p| p.submission.cpu_only) {
        entries.push((LegendKind::MarkCpuOnly, 130.0));
    }
    let (legend, bottom) = legend(layout, axis_y + 46.0, &entries);
    // The highlighted systems, named in a row of their own: the span's system by a circle, any
    // other by a square.
    let mut named = Vec::new();
    let (mut kx, mut ky) = (10.0, bottom + 20.0);
    for (k, system) in systems.iter().enumerate() {
        let d = if k == 0 {
            circle(kx + 12.0, ky - 4.0, dot_hl)
        } else {
            square(kx + 12.0, ky - 4.0, dot_hl)
        };
        named.push(NamedKey {
            d,
            x: coord(kx + 24.0),
            y: coord(ky),
            label: format!("highlighted: {}", fit(system, if narrow { 34 } else { 40 })),
        });
        if narrow {
            ky += 18.0;
        } else {
            kx += 40.0 + 7.0 * (system.chars().count() as f64 + 13.0);
        }
    }
    let bottom = if named.is_empty() {
        bottom
    } else if narrow {
        ky - 18.0
    } else {
        ky
    };
    let note = clipped_note(clipped, bottom + 20.0);
    let title_text = template::render(
        &PairsTitle {
            low: stats.first().map_or("", |b| b.benchmark.as_str()),
        },
        "text/title-pairs.txt",
    )?;
    render(
        &PairsFigure {
            frame: Frame::new(
                6,
                layout,
                &title_text,
                coord(bottom + if note.is_some() { 40.0 } else { 22.0 }),
                scale.plot(axis_y),
                ticks,
                &rows,
            ),
            strip_height,
            dot_width: 2.0 * dot,
            bands,
            cpu_marks: marks.iter().filter(|m| m.cpu_only).count(),
            marks,
            legend,
            named,
            note,
        },
        "figure 6",
    )
}

#[cfg(test)]
mod tests {
    use super::{fit_width, text_em};

    /// A label that fits is kept whole; one that does not is cut at a character, ends with an
    /// ellipsis and fits, bold labels being cut sooner.
    #[test]
    fn a_label_is_cut_to_the_width_it_has() {
        assert_eq!(
            fit_width("ASUSTeK · XA NB3I-E12", 258.0, 13.0, false),
            "ASUSTeK · XA NB3I-E12"
        );
        let long = "CoreWeave · CoreWeave GB200 NVL72 (72x GB200-186GB_aarch64, TensorRT)";
        let cut = fit_width(long, 258.0, 13.0, false);
        assert!(
            cut.ends_with('…') && long.starts_with(cut.trim_end_matches('…')),
            "{cut}"
        );
        assert!(text_em(&cut, false) * 13.0 <= 258.0);
        let bold = fit_width(long, 258.0, 13.0, true);
        assert!(bold.chars().count() < cut.chars().count(), "{bold} / {cut}");
        assert_eq!(fit_width(long, 1.0, 13.0, false), "…");
    }
}
