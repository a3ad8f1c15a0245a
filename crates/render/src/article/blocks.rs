//! The HTML blocks the prose places with `{{block:name}}`: the two figures with their data
//! tables, the scope walk-through, the evidence checks, all pairs, the pinned inputs, the
//! downloads and how to cite the article, each rendered from its template in `templates/blocks/`.

use std::collections::BTreeSet;

use askama::Template;

use super::catalogue::Blocks;
use super::words::list_words;
use super::{pair_of, template, ArticleData};
use ratios_base::error::Result;
use ratios_base::layout::OutputFile;
use ratios_base::number::{grouped, percent, points, tokens};
use ratios_base::text::{breakable, short_commit};
use ratios_model::analysis::{Pair, Step};
use ratios_model::evidence::{Check, CheckKind};
use ratios_model::inputs::PinnedInput;
use ratios_model::project::claims::{ClaimId, Note};

/// A highlight row of figure 3's data table.
pub(crate) struct HighlightRow {
    /// Escaped, with break opportunities.
    pub system: String,
    pub model: String,
    pub offline: String,
    pub server: String,
    pub ratio: String,
    pub ids: String,
}

#[derive(Template)]
#[template(path = "blocks/figure-highlights.html")]
struct FigureHighlightsBlock<'a> {
    wide: &'a str,
    narrow: &'a str,
}

#[derive(Template)]
#[template(path = "blocks/highlights.html")]
struct HighlightsBlock {
    rows: Vec<HighlightRow>,
}

pub(crate) struct BenchmarkRow {
    pub benchmark: String,
    pub pairs: usize,
    pub min: String,
    pub median: String,
    pub max: String,
}

#[derive(Template)]
#[template(path = "blocks/figure-pairs.html")]
struct FigurePairsBlock<'a> {
    wide: &'a str,
    narrow: &'a str,
    rows: Vec<BenchmarkRow>,
    pairs: usize,
}

#[derive(Template)]
#[template(path = "blocks/steps.html")]
struct StepsBlock<'a> {
    steps: &'a [Step],
}

/// One highlighted row of the checks table.
pub(crate) struct CheckRow<'a> {
    pub row: String,
    pub model: &'a str,
    pub scenario: &'a str,
    /// The checks of each column; `templates/blocks/checks.html` marks each with its outcome.
    pub valid: Vec<&'a Check>,
    pub throughput: Vec<&'a Check>,
    pub ttft: Vec<&'a Check>,
    pub tpot: Vec<&'a Check>,
    pub accuracy: Vec<&'a Check>,
}

#[derive(Template)]
#[template(path = "blocks/checks.html")]
struct ChecksBlock<'a> {
    rows: Vec<CheckRow<'a>>,
    items: &'a [Check],
}

pub(crate) struct PairRow<'a> {
    pub pair: &'a Pair,
    /// The system's label and the model label, escaped, with break opportunities.
    pub system: String,
    pub model: String,
    pub offline: String,
    pub server: String,
    pub ratio: String,
    pub highlighted: bool,
    /// The rows' folders in the results repository at the summary's commit.
    pub offline_url: Option<String>,
    pub server_url: Option<String>,
}

#[derive(Template)]
#[template(path = "blocks/pairs.html")]
struct PairsBlock<'a> {
    rows: Vec<PairRow<'a>>,
}

pub(crate) struct InputRow<'a> {
    pub pin: &'a PinnedInput,
    pub commit: String,
    pub size: String,
}

#[derive(Template)]
#[template(path = "blocks/inputs.html")]
struct InputsBlock<'a> {
    rows: Vec<InputRow<'a>>,
    lists: Vec<ListRow<'a>>,
}

/// The row of the manifest's list: how many files it pins, from where, and its own pin.
struct ListRow<'a> {
    count: usize,
    path: &'a str,
    repository: &'a str,
    commit: String,
    size: String,
    sha256: &'a ratios_base::digest::HexDigest,
}

/// One row of the downloads table: a published file, with its size and SHA-256 from the bytes
/// written, where they can be known when the page is made.
pub struct Download {
    /// The published file the row links.
    pub file: OutputFile,
    /// Its size in bytes with thousands separators (`12,912,345`); `None` for the validation
    /// report, made after the page.
    pub size: Option<String>,
    /// The SHA-256 of its bytes; `None` for SHA256SUMS and the validation report, made after
    /// the page.
    pub sha256: Option<ratios_base::digest::HexDigest>,
}

#[derive(Template)]
#[template(path = "blocks/downloads.html")]
struct DownloadsBlock<'a> {
    files: &'a [Download],
    signing: Option<SigningView<'a>>,
}

/// The author's key as the downloads section prints it.
struct SigningView<'a> {
    key_id: String,
    public_key: &'a str,
    also_published_at: &'a [String],
}

/// The downloads table of the page: every published file but the page itself. The files made
/// before the page are given with their size and SHA-256; SHA256SUMS lists the page's own hash
/// and the validation report checks the page, so those two come after it: SHA256SUMS is given
/// with its size (fixed by the file names), both without a hash.
pub fn downloads(written: &ratios_base::dist::Dist, published: &[OutputFile]) -> Vec<Download> {
    let sums_size: usize = published
        .iter()
        .filter(|f| **f != OutputFile::Sums)
        .map(|f| ratios_base::sums::line_len(f.path()))
        .sum();
    published
        .iter()
        .filter(|f| **f != OutputFile::Article)
        .map(|&f| {
            let bytes = written.get(f.path());
            Download {
                file: f,
                size: match f {
                    OutputFile::Sums => Some(grouped(sums_size as f64, 0)),
                    _ => bytes.map(|b| grouped(b.len() as f64, 0)),
                },
                sha256: written.sha256(f.path()).cloned(),
            }
        })
        .collect()
}

#[derive(Template)]
#[template(path = "blocks/citation.html")]
struct CitationBlock<'a> {
    config: &'a ratios_model::project::config::ArticleConfig,
    bibtex: String,
}

/// The article as a BibTeX `@online` entry. Its key is the author's last name, the year and the
/// title's first word that is not an article, in lower-case ASCII (`putta2026server`).
fn bibtex(config: &ratios_model::project::config::ArticleConfig) -> String {
    let ascii = |s: &str| -> String {
        s.chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    let family = config.author.split_whitespace().last().map(ascii);
    let word = config
        .title
        .split(|c: char| !c.is_alphanumeric())
        .map(ascii)
        .find(|w| !w.is_empty() && !["the", "a", "an"].contains(&w.as_str()));
    let key = format!(
        "{}{}{}",
        family
            .filter(|f| !f.is_empty())
            .as_deref()
            .unwrap_or("article"),
        config.published_year(),
        word.unwrap_or_default()
    );
    // Double braces keep the title's capitals as written; the site is named when it is not
    // the author's own name.
    let organization = if config.site_name == config.author {
        String::new()
    } else {
        format!(
            "  organization = {{{}}},\n",
            ratios_base::text::bibtex_escape(&config.site_name)
        )
    };
    let doi = config
        .doi
        .as_ref()
        .map(|d| format!("  doi = {{{d}}},\n"))
        .unwrap_or_default();
    format!(
        "@online{{{key},\n  author = {{{}}},\n  title = {{{{{}}}}},\n  year = {{{}}},\n  date = {{{}}},\n{organization}{doi}  url = {{{}}}\n}}",
        ratios_base::text::bibtex_escape(&config.author),
        ratios_base::text::bibtex_escape(&config.title),
        config.published_year(),
        config.published,
        config.canonical_url,
    )
}

/// How to cite the article: a reference line and its BibTeX entry.
fn citation(data: &ArticleData<'_>) -> Result<String> {
    template(
        &CitationBlock {
            config: data.config,
            bibtex: bibtex(data.config),
        },
        "blocks/citation.html",
    )
}

/// Every block the prose may place, by name.
pub fn blocks(data: &ArticleData<'_>) -> Result<Blocks> {
    type Render = fn(&ArticleData<'_>) -> Result<String>;
    let all: [(&str, Render); 21] = [
        ("key-numbers", super::story_blocks::key_numbers),
        ("figure-highlights", figure_highlights),
        ("highlights", highlight_table),
        ("figure-pairs", figure_pairs),
        ("figure-systems", super::story_blocks::figure_systems),
        ("figure-factors", super::story_blocks::figure_factors),
        ("factors-more", super::story_blocks::factors_more),
        ("systems", super::story_blocks::systems),
        ("comparisons", super::story_blocks::comparisons),
        ("logs", super::story_blocks::logs),
        ("rules", rules),
        ("interactive", interactive),
        ("robustness", robustness),
        ("noise", noise),
        ("shared-targets", shared_targets),
        ("steps", steps),
        ("checks", checks),
        ("pairs", pairs),
        ("inputs", inputs),
        ("downloads", download_list),
        ("citation", citation),
    ];
    let mut out: Blocks = all
        .into_iter()
        .map(|(name, render)| Ok((name.to_string(), render(data)?)))
        .collect::<Result<_>>()?;
    super::rounds::blocks(data, &mut out)?;
    Ok(out)
}

/// Figure 3 in its two layouts, with the table of its numbers.
fn figure_highlights(data: &ArticleData<'_>) -> Result<String> {
    let figures = data.figures;
    template(
        &FigureHighlightsBlock {
            wide: &figures.highlights.0,
            narrow: &figures.highlights_narrow.0,
        },
        "blocks/figure-highlights.html",
    )
}

/// Figure 3's numbers: each highlighted pair with its rows.
fn highlight_table(data: &ArticleData<'_>) -> Result<String> {
    let a = data.analysis;
    let rows = data
        .highlights
        .highlights
        .iter()
        .map(|h| {
            let p = pair_of(a, h)?;
            Ok(HighlightRow {
                system: breakable(&p.submission.system_name),
                model: ratios_base::text::short_unbroken(&p.submission.model),
                offline: tokens(p.offline),
                server: tokens(p.server),
                ratio: percent(h.ratio),
                ids: format!("{} / {}", p.offline_id, p.server_id),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    template(&HighlightsBlock { rows }, "blocks/highlights.html")
}

/// Figure 6 in its two layouts, with the medians by benchmark.
fn figure_pairs(data: &ArticleData<'_>) -> Result<String> {
    let figures = data.figures;
    let a = data.analysis;
    let stats = &a.benchmarks;
    template(
        &FigurePairsBlock {
            wide: &figures.pairs.0,
            narrow: &figures.pairs_narrow.0,
            rows: stats
                .iter()
                .map(|s| BenchmarkRow {
                    benchmark: s.benchmark.clone(),
                    pairs: s.pairs,
                    min: percent(s.min),
                    median: percent(s.median),
                    max: percent(s.max),
                })
                .collect(),
            pairs: a.pairs.len(),
        },
        "blocks/figure-pairs.html",
    )
}

/// The scope walk-through: rows left after each filter.
fn steps(data: &ArticleData<'_>) -> Result<String> {
    let a = data.analysis;
    template(&StepsBlock { steps: &a.steps }, "blocks/steps.html")
}

/// The checks of the highlighted rows: one line per row, then every check.
fn checks(data: &ArticleData<'_>) -> Result<String> {
    let mut check_rows = Vec::new();
    let mut seen = BTreeSet::new();
    for item in &data.checks.items {
        if !seen.insert(item.row) {
            continue;
        }
        let of_row: Vec<&Check> = data
            .checks
            .items
            .iter()
            .filter(|c| c.row == item.row)
            .collect();
        let of_kind = |keep: fn(&CheckKind) -> bool| -> Vec<&Check> {
            of_row.iter().copied().filter(|c| keep(&c.kind)).collect()
        };
        check_rows.push(CheckRow {
            row: item.row.to_string(),
            model: &item.model,
            scenario: item.scenario.as_str(),
            valid: of_kind(|k| matches!(k, CheckKind::ResultValid | CheckKind::RunConditions)),
            throughput: of_kind(|k| *k == CheckKind::Throughput),
            ttft: of_kind(|k| *k == CheckKind::P99Ttft),
            tpot: of_kind(|k| *k == CheckKind::P99Tpot),
            accuracy: of_kind(CheckKind::is_accuracy),
        });
    }
    // The details print times as `80 ms`: on the page, joined by a no-break space.
    template(
        &ChecksBlock {
            rows: check_rows,
            items: &data.checks.items,
        },
        "blocks/checks.html",
    )
    .map(|html| ratios_base::text::join_units(&html, false))
}

/// The Offline rows of the highlighted pairs.
fn highlighted(data: &ArticleData<'_>) -> BTreeSet<ratios_model::summary::RowId> {
    data.highlights
        .highlights
        .iter()
        .map(|h| h.offline_id)
        .collect()
}

/// Every matched pair, the highlighted ones marked.
fn pairs(data: &ArticleData<'_>) -> Result<String> {
    let a = data.analysis;
    let highlighted = highlighted(data);
    template(
        &PairsBlock {
            rows: a
                .pairs
                .iter()
                .map(|p| PairRow {
                    pair: p,
                    system: breakable(&p.submission.system_label()),
                    model: ratios_base::text::short_unbroken(&p.submission.model),
                    offline: tokens(p.offline),
                    server: tokens(p.server),
                    ratio: percent(p.ratio),
                    highlighted: highlighted.contains(&p.offline_id),
                    offline_url: folder_url(data, &p.offline_location),
                    server_url: folder_url(data, &p.server_location),
                })
                .collect(),
        },
        "blocks/pairs.html",
    )
}

/// A row's `Location` folder in the results repository at the commit of the pinned summary, when
/// the Location is a safe relative path.
pub fn folder_url(data: &ArticleData<'_>, location: &str) -> Option<String> {
    let csv = data
        .manifest
        .single(ratios_model::inputs::InputKind::SummaryCsv)
        .ok()?;
    let tree = super::ResultsTree {
        repository: &csv.repository,
        commit: &csv.commit,
    };
    Some(tree.folder_url(location)).filter(|u| !u.is_empty())
}

/// One benchmark's latency limits and result fields, as the checker facts give them.
pub(crate) struct RuleRow {
    pub benchmark: String,
    pub offline_field: String,
    pub server_field: String,
    pub server_ttft: String,
    pub server_tpot: String,
    pub interactive_ttft: String,
    pub interactive_tpot: String,
    pub lines: String,
}

#[derive(Template)]
#[template(path = "blocks/rules.html")]
struct RulesBlock {
    rows: Vec<RuleRow>,
    source: String,
}

fn ms(ns: u64) -> String {
    let ms = ns as f64 / 1e6;
    if ms.fract() == 0.0 {
        grouped(ms, 0)
    } else {
        format!("{ms:.2}")
    }
}

/// Where the checker facts come from: repository, commit and file.
pub(super) fn checker_source(data: &ArticleData<'_>) -> String {
    let src = &data.facts.source;
    format!(
        "{} at commit {}, {}",
        src.repository,
        short_commit(&src.commit),
        src.path
    )
}

/// The checker's latency limits and result fields of each benchmark that has pairs.
fn rules(data: &ArticleData<'_>) -> Result<String> {
    let rows = data
        .analysis
        .benchmarks
        .iter()
        .filter_map(|b| data.facts.models.get(&b.benchmark).map(|m| (b, m)))
        .map(|(b, m)| {
            let field = |s: &str| {
                m.throughput_log_field
                    .get(s)
                    .map(|f| (f.field.clone(), f.line))
            };
            let (offline_field, ol) = field("Offline").unwrap_or_default();
            let (server_field, sl) = field("Server").unwrap_or_default();
            let s = &m.server_latency_limits;
            let i = m.interactive_latency_limits.as_ref();
            let dash = || "–".to_string();
            RuleRow {
                benchmark: b.benchmark.clone(),
                offline_field,
                server_field,
                server_ttft: ms(s.ttft_ns),
                server_tpot: ms(s.tpot_ns),
                interactive_ttft: i.map_or_else(dash, |i| ms(i.ttft_ns)),
                interactive_tpot: i.map_or_else(dash, |i| ms(i.tpot_ns)),
                lines: format!(
                    "{ol}, {sl}; {}; {}",
                    s.line,
                    i.map_or_else(dash, |i| i.line.to_string())
                ),
            }
        })
        .collect();
    template(
        &RulesBlock {
            rows,
            source: checker_source(data),
        },
        "blocks/rules.html",
    )
}

/// One benchmark's Interactive ratios, beside its Server median.
pub(crate) struct InteractiveBenchmarkRow {
    pub benchmark: String,
    pub pairs: usize,
    /// Distinct organisations among its pairs.
    pub organizations: usize,
    pub min: String,
    pub median: String,
    pub max: String,
    /// The Server ÷ Offline median of the same submissions, and how many of them ran Server.
    pub server_median: String,
    pub server_pairs: usize,
    /// Each accelerator (escaped, with break points) and its pairs; `None` for no accelerator.
    pub accelerators: Vec<(Option<String>, usize)>,
}

/// One Interactive pair, with the Server ratio of the same submission where it has one.
pub(crate) struct InteractivePairRow<'a> {
    pub pair: &'a ratios_model::analysis::InteractivePair,
    pub system: String,
    pub model: String,
    pub offline: String,
    pub interactive: String,
    pub ratio: String,
    pub server_ratio: String,
    pub highlighted: bool,
}

#[derive(Template)]
#[template(path = "blocks/interactive.html")]
struct InteractiveBlock<'a> {
    benchmarks: Vec<InteractiveBenchmarkRow>,
    rows: Vec<InteractivePairRow<'a>>,
}

/// The Interactive pairs: each benchmark's spread, then every pair.
fn interactive(data: &ArticleData<'_>) -> Result<String> {
    let a = data.analysis;
    let highlighted = highlighted(data);
    let benchmarks = a
        .interactive
        .benchmarks
        .iter()
        .map(|b| {
            let server = a
                .interactive
                .server_alongside
                .benchmarks
                .iter()
                .find(|s| s.benchmark == b.benchmark);
            InteractiveBenchmarkRow {
                benchmark: b.benchmark.clone(),
                pairs: b.pairs,
                organizations: a
                    .interactive
                    .pairs
                    .iter()
                    .filter(|p| p.submission.benchmark == b.benchmark)
                    .map(|p| p.submission.organization.as_str())
                    .collect::<BTreeSet<_>>()
                    .len(),
                min: percent(b.min),
                median: percent(b.median),
                max: percent(b.max),
                server_median: server.map_or("–".into(), |s| percent(s.median)),
                server_pairs: server.map_or(0, |s| s.pairs),
                accelerators: a
                    .interactive
                    .hardware
                    .iter()
                    .find(|h| h.benchmark == b.benchmark)
                    .map(|h| {
                        h.accelerators
                            .iter()
                            .map(|g| (g.accelerator.as_deref().map(breakable), g.pairs))
                            .collect()
                    })
                    .unwrap_or_default(),
            }
        })
        .collect();
    let rows = a
        .interactive
        .pairs
        .iter()
        .map(|p| InteractivePairRow {
            pair: p,
            system: breakable(&p.submission.system_label()),
            model: ratios_base::text::short_unbroken(&p.submission.model),
            offline: tokens(p.offline),
            interactive: tokens(p.interactive),
            ratio: percent(p.ratio),
            server_ratio: a
                .pair(p.offline_id)
                .map_or("–".into(), |s| percent(s.ratio)),
            highlighted: highlighted.contains(&p.offline_id),
        })
        .collect();
    template(
        &InteractiveBlock { benchmarks, rows },
        "blocks/interactive.html",
    )
}

/// One benchmark's medians, whole and split.
pub(crate) struct RobustnessRow {
    pub benchmark: String,
    pub pairs: usize,
    pub organizations: usize,
    pub median: String,
    pub without_cpu: String,
    pub cpu_only: usize,
    pub single_node: String,
    pub single: usize,
    pub multi_node: String,
    pub multi: usize,
}

#[derive(Template)]
#[template(path = "blocks/robustness.html")]
struct RobustnessBlock {
    rows: Vec<RobustnessRow>,
}

/// Each benchmark's median with and without CPU-only systems and by node count.
fn robustness(data: &ArticleData<'_>) -> Result<String> {
    let opt = |r: Option<ratios_model::analysis::Ratio>| r.map_or("–".into(), percent);
    let rows = data
        .analysis
        .robustness
        .benchmarks
        .iter()
        .map(|b| RobustnessRow {
            benchmark: b.benchmark.clone(),
            pairs: b.pairs,
            organizations: b.organizations,
            median: percent(b.median),
            without_cpu: opt(b.median_without_cpu_only),
            cpu_only: b.cpu_only,
            single_node: opt(b.median_single_node),
            single: b.single_node,
            multi_node: opt(b.median_multi_node),
            multi: b.multi_node,
        })
        .collect();
    template(&RobustnessBlock { rows }, "blocks/robustness.html")
}

/// One group of the noise floor.
pub(crate) struct NoiseRow<'a> {
    pub group: &'a ratios_model::analysis::robustness::NoiseGroup,
    /// The accelerator and the organisations, escaped, with break opportunities.
    pub accelerator: String,
    pub organizations: String,
    pub min: String,
    pub max: String,
    pub spread: String,
}

#[derive(Template)]
#[template(path = "blocks/noise.html")]
struct NoiseBlock<'a> {
    rows: Vec<NoiseRow<'a>>,
}

/// Every group of one benchmark and hardware configuration from two or more organisations.
fn noise(data: &ArticleData<'_>) -> Result<String> {
    let rows = data
        .analysis
        .robustness
        .noise
        .groups
        .iter()
        .map(|g| {
            Ok(NoiseRow {
                group: g,
                accelerator: breakable(&g.accelerator),
                organizations: breakable(&list_words(&g.organizations)?),
                min: percent(g.min),
                max: percent(g.max),
                spread: points(g.spread_pp),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    template(&NoiseBlock { rows }, "blocks/noise.html")
}

/// One group of pairs at one shared target, as the table prints it.
struct SharedTargetRow<'a> {
    group: &'a ratios_model::evidence::pair_logs::TargetGroup,
    /// The configuration and the organisations, escaped, with break opportunities.
    configuration: String,
    organizations: String,
    ratios: String,
    others: String,
}

#[derive(Template)]
#[template(path = "blocks/shared-targets.html")]
struct SharedTargetsBlock<'a> {
    rows: Vec<SharedTargetRow<'a>>,
}

/// Every group of pairs of one configuration and benchmark at one Server target.
fn shared_targets(data: &ArticleData<'_>) -> Result<String> {
    let range = |a: f64, b: f64| format!("{} to {}", percent(a), percent(b));
    let rows = data
        .logs
        .shared_targets
        .groups
        .iter()
        .map(|g| {
            Ok(SharedTargetRow {
                group: g,
                configuration: breakable(&g.configuration),
                organizations: breakable(&list_words(&g.organizations)?),
                ratios: range(g.min_ratio, g.max_ratio),
                others: g.others.map_or("–".into(), |[a, b]| range(a, b)),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    template(&SharedTargetsBlock { rows }, "blocks/shared-targets.html")
}

/// The pinned inputs: those the manifest pins one by one, and its list of further files.
fn inputs(data: &ArticleData<'_>) -> Result<String> {
    let m = data.manifest;
    template(
        &InputsBlock {
            rows: m
                .hand_picked()
                .iter()
                .map(|pin| InputRow {
                    pin,
                    commit: short_commit(&pin.commit),
                    size: grouped(pin.size as f64, 0),
                })
                .collect(),
            lists: m
                .lists_read()
                .into_iter()
                .filter_map(|(list, files)| {
                    let first = files.first()?;
                    Some(ListRow {
                        count: files.len(),
                        path: &list.path,
                        repository: &first.repository,
                        commit: short_commit(&first.commit),
                        size: grouped(list.size as f64, 0),
                        sha256: &list.sha256,
                    })
                })
                .collect(),
        },
        "blocks/inputs.html",
    )
}

#[derive(Template)]
#[template(path = "blocks/contents.html")]
struct ContentsBlock<'a> {
    sections: &'a [(String, String)],
}

/// The page's contents: a link to each section, by its id and title (HTML-escaped text).
pub fn contents(sections: &[(String, String)]) -> Result<String> {
    template(&ContentsBlock { sections }, "blocks/contents.html")
}

/// One source note, in the order of first citation.
pub(crate) struct NoteRow<'a> {
    pub note: &'a Note,
    pub lines: String,
}

#[derive(Template)]
#[template(path = "blocks/notes.html")]
struct NotesBlock<'a> {
    notes: Vec<NoteRow<'a>>,
}

/// The source notes of the claims the prose cites, numbered in the order of `cited`.
pub fn notes(notes: &[Note], cited: &[ClaimId]) -> Result<String> {
    let rows = cited
        .iter()
        .filter_map(|id| notes.iter().find(|n| n.id == *id))
        .map(|note| NoteRow {
            note,
            lines: if note.first_line == note.last_line {
                format!("line {}", note.first_line)
            } else {
                format!("lines {}–{}", note.first_line, note.last_line)
            },
        })
        .collect();
    template(&NotesBlock { notes: rows }, "blocks/notes.html")
}

/// The published files, each with its size and SHA-256.
fn download_list(data: &ArticleData<'_>) -> Result<String> {
    template(
        &DownloadsBlock {
            files: data.downloads,
            signing: data.config.signing.as_ref().and_then(|s| {
                data.config.public_key().map(|key| SigningView {
                    key_id: key.id().to_string(),
                    public_key: &s.public_key,
                    also_published_at: &s.also_published_at,
                })
            }),
        },
        "blocks/downloads.html",
    )
}

#[cfg(test)]
mod tests {
    use super::bibtex;
    use crate::article::words::count_word;

    #[test]
    fn the_bibtex_entry_escapes_tex_and_keys_on_name_year_and_first_word() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../content/article.json");
        let text = std::fs::read_to_string(path).unwrap();
        let mut config =
            ratios_model::project::config::ArticleConfig::parse("article.json", &text).unwrap();
        config.author = "Ana O'Neil".into();
        config.title = "An 85% claim & {more}_x".into();
        config.site_name = "Notes #1".into();
        config.published = "2025-02-03".into();
        config.canonical_url = "https://example.org/a/article.html".into();
        assert_eq!(
            bibtex(&config),
            "@online{oneil202585,\n  author = {Ana O'Neil},\n  title = {{An 85\\% claim \\& \\{more\\}\\_x}},\n  year = {2025},\n  date = {2025-02-03},\n  organization = {Notes \\#1},\n  url = {https://example.org/a/article.html}\n}"
        );
        // The site is not named again when it is the author's own.
        config.site_name = config.author.clone();
        assert!(!bibtex(&config).contains("organization"));
    }

    #[test]
    fn small_counts_are_words_and_larger_ones_digits() {
        let words: Vec<String> = [0, 1, 3, 10, 11, 152]
            .into_iter()
            .map(|n| count_word(n).unwrap())
            .collect();
        assert_eq!(words, ["no", "one", "three", "ten", "11", "152"]);
    }
}
