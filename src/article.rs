//! Stage 6 of the pipeline: the article. The prose in `content/article.md` is Markdown with named
//! placeholders; this module computes every placeholder's value from the analysis, renders the
//! Markdown with pulldown-cmark, and wraps it in the Askama page template.
//!
//! Two kinds of placeholder exist. `{{name}}` inside text is replaced by an escaped value.
//! `{{block:name}}` standing alone as a paragraph is replaced by an HTML block (a figure or a
//! table) rendered from `templates/`. A placeholder the analysis does not provide, or a value the
//! prose does not use, fails the build with its name. Dotted names form families (`hl.<id>.ratio`,
//! `hl.<id>.model`, ...): a family is used when the prose uses any of its fields, so every
//! configured highlight must appear in the prose.

use std::collections::{BTreeMap, BTreeSet};

use askama::Template;
use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd, TextMergeStream};

use crate::analysis::{Analysis, Highlight, Pair, Step};
use crate::config::ArticleConfig;
use crate::error::{Error, Result};
use crate::evidence::{Check, CheckerFacts, Checks, Status};
use crate::figure::{self, BenchmarkStats, Svg};
use crate::format::{grouped, percent, points, tokens};
use crate::inputs::{InputKind, PinnedInput};

/// Where the prose lives in the repository (compiled into the binary).
pub const PROSE_PATH: &str = "content/article.md";
/// The committed prose.
pub const PROSE: &str = include_str!("../content/article.md");

/// Everything the article is rendered from.
pub struct ArticleData<'a> {
    pub config: &'a ArticleConfig,
    pub analysis: &'a Analysis,
    pub checks: &'a Checks,
    pub inputs: &'a [PinnedInput],
    pub facts: &'a CheckerFacts,
    /// Name and version of the generator, e.g. `scenario-ratios 0.1.0`.
    pub tool: &'a str,
}

/// The rendered article and its figures.
pub struct Rendered {
    pub html: String,
    pub highlights_svg: Svg,
    pub pairs_svg: Svg,
}

/// Values of the inline placeholders (plain text, escaped when inserted).
pub type Values = BTreeMap<String, String>;
/// HTML of the block placeholders.
pub type Blocks = BTreeMap<String, String>;

fn err(message: impl Into<String>) -> Error {
    Error::Config {
        file: PROSE_PATH.into(),
        message: message.into(),
    }
}

fn template<T: Template>(t: &T, name: &str) -> Result<String> {
    t.render()
        .map_err(|e| Error::invalid(name, format!("template failed: {e}")))
}

/// Renders the whole page from `prose`.
pub fn render(data: &ArticleData<'_>, prose: &str) -> Result<Rendered> {
    let highlights_svg = figure::highlights(data.analysis)?;
    let pairs_svg = figure::all_pairs(data.analysis)?;
    let values = values(data)?;
    let blocks = blocks(data, &highlights_svg, &pairs_svg)?;
    let body = render_prose(prose, &values, &blocks)?;
    let html = template(
        &Page {
            config: data.config,
            body: &body,
            tool: data.tool,
        },
        "templates/article.html",
    )?;
    Ok(Rendered {
        html,
        highlights_svg,
        pairs_svg,
    })
}

fn short(commit: &str) -> String {
    commit.chars().take(12).collect()
}

fn single(inputs: &[PinnedInput], kind: InputKind) -> Result<&PinnedInput> {
    inputs
        .iter()
        .find(|p| p.kind == kind)
        .ok_or_else(|| err(format!("the article needs an input of kind {kind:?}")))
}

fn pair_of<'a>(a: &'a Analysis, h: &Highlight) -> Result<&'a Pair> {
    a.pair(h.offline_id)
        .ok_or_else(|| err(format!("highlight {} has no pair", h.id)))
}

/// Every inline value the analysis provides.
pub fn values(data: &ArticleData<'_>) -> Result<Values> {
    let a = data.analysis;
    let c = &a.counts;
    let mut v = Values::new();
    let mut put = |k: &str, val: String| {
        v.insert(k.to_string(), val);
    };
    put("rows", c.rows.to_string());
    put("closed", c.closed.to_string());
    put("open", c.open.to_string());
    put("eligible", c.eligible.to_string());
    put("pairs", c.pairs.to_string());
    put("over_100", c.over_100.to_string());
    put("key_fields", a.key_fields.len().to_string());
    put("unmatched_sentence", unmatched_sentence(a));
    put("span_pp", points(a.span_pp));

    let min = a
        .pairs
        .iter()
        .map(|p| p.ratio)
        .min_by(|x, y| x.0.total_cmp(&y.0));
    let max = a
        .pairs
        .iter()
        .map(|p| p.ratio)
        .max_by(|x, y| x.0.total_cmp(&y.0));
    let (Some(min), Some(max)) = (min, max) else {
        return Err(err("the article needs at least one matched pair"));
    };
    put("all_min", percent(min));
    put("all_max", percent(max));
    let stats = figure::by_benchmark(a);
    let (low, high) = (&stats[0], &stats[stats.len() - 1]);
    put("median_low", percent(low.median));
    put("median_low_benchmark", low.benchmark.clone());
    put("median_high", percent(high.median));
    put("median_high_benchmark", high.benchmark.clone());

    for h in &a.highlights {
        let p = pair_of(a, h)?;
        let key = |f: &str| format!("hl.{}.{f}", h.id);
        put(&key("ratio"), percent(h.ratio));
        put(&key("loss"), format!("{:.2} %", 100.0 - h.ratio.percent()));
        put(&key("offline"), tokens(p.offline));
        put(&key("server"), tokens(p.server));
        put(&key("offline_id"), p.offline_id.to_string());
        put(&key("server_id"), p.server_id.to_string());
        put(&key("model"), p.model.clone());
        put(&key("system"), p.system_name.clone());
    }

    let checked_rows: BTreeSet<_> = data.checks.items.iter().map(|c| c.row).collect();
    put("checked_rows", checked_rows.len().to_string());
    put("checks_verdict", checks_verdict(data.checks));
    let src = &data.facts.source;
    put(
        "checker_source",
        format!(
            "{} at commit {}, {}",
            src.repository,
            short(&src.commit),
            src.path
        ),
    );

    let llama = data
        .analysis
        .highlights
        .iter()
        .filter_map(|h| a.pair(h.offline_id))
        .find(|p| p.benchmark.starts_with("llama2-70b"))
        .and_then(|p| data.facts.models.get(&p.benchmark))
        .ok_or_else(|| {
            err("the prose explains a llama2-70b target, but no llama2-70b pair is highlighted")
        })?;
    let target = |m: &str| llama.accuracy_targets.iter().find(|b| b.metric == m);
    let rouge1 = target("ROUGE1").ok_or_else(|| err("no ROUGE1 target in the checker facts"))?;
    let length_low = target("TOKENS_PER_SAMPLE")
        .ok_or_else(|| err("no TOKENS_PER_SAMPLE target in the checker facts"))?;
    let length_high = llama
        .accuracy_upper_limits
        .iter()
        .find(|b| b.metric == "TOKENS_PER_SAMPLE")
        .ok_or_else(|| err("no TOKENS_PER_SAMPLE upper limit in the checker facts"))?;
    let pct = |m: Option<f64>| {
        format!(
            "{} %",
            crate::evidence::round_sig(m.unwrap_or(1.0) * 100.0, 6)
        )
    };
    put("llama_multiplier", pct(rouge1.multiplier));
    put(
        "llama_rouge1_target",
        crate::evidence::round_sig(rouge1.value, 6),
    );
    put(
        "llama_rouge1_reference",
        crate::evidence::round_sig(rouge1.reference, 10),
    );
    put("llama_length_low", pct(length_low.multiplier));
    put("llama_length_high", pct(length_high.multiplier));

    let csv = single(data.inputs, InputKind::SummaryCsv)?;
    let json = single(data.inputs, InputKind::SummaryJson)?;
    put(
        "csv_url",
        format!(
            "https://github.com/{}/blob/{}/{}",
            csv.repository, csv.commit, csv.path
        ),
    );
    put("csv_repository", csv.repository.clone());
    put("csv_commit", short(&csv.commit));
    put("json_commit", short(&json.commit));
    // The logs behind the checks: the inputs the checks cite as evidence.
    let cited: BTreeSet<&str> = data
        .checks
        .items
        .iter()
        .flat_map(|c| c.evidence.iter().map(String::as_str))
        .collect();
    let log = data
        .inputs
        .iter()
        .find(|p| p.kind == InputKind::LoadgenSummary && cited.contains(p.name.as_str()))
        .ok_or_else(|| err("the prose cites the LoadGen logs, but no check used one"))?;
    put("logs_repository", log.repository.clone());
    put("logs_commit", short(&log.commit));
    put("input_count", data.inputs.len().to_string());
    put("tool", data.tool.to_string());
    Ok(v)
}

fn unmatched_sentence(a: &Analysis) -> String {
    let describe = |u: &crate::analysis::Unmatched| {
        format!(
            "ID {} (the {} row of {}'s “{}”, {}): {}",
            u.id, u.scenario, u.organization, u.system_name, u.model, u.reason
        )
    };
    match a.unmatched.as_slice() {
        [] => "Every eligible row found its partner.".into(),
        [u] => format!("Exactly one eligible row stays unmatched: {}.", describe(u)),
        many => format!(
            "{} eligible rows stay unmatched: {}.",
            many.len(),
            many.iter().map(describe).collect::<Vec<_>>().join("; ")
        ),
    }
}

fn checks_verdict(c: &Checks) -> String {
    let total = c.items.len();
    let mut s = if c.fail == 0 {
        format!("All {} checks that could be made pass.", c.pass)
    } else {
        let failed: Vec<String> = c
            .items
            .iter()
            .filter(|i| i.status == Status::Fail)
            .map(|i| format!("row {} {}", i.row, i.name))
            .collect();
        format!(
            "{} of {total} checks fail ({}); the table shows the numbers.",
            c.fail,
            failed.join(", ")
        )
    };
    if c.not_checked > 0 {
        s.push_str(&format!(
            " {} could not be made because the value or log they need is not in the pinned files; they are marked \"not checked\", not passed.",
            c.not_checked
        ));
    }
    s
}

/// Replaces the placeholders of one text, recording which names were used.
fn substitute(text: &str, values: &Values, used: &mut BTreeSet<String>) -> Result<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after.find("}}").ok_or_else(|| {
            err(format!(
                "unclosed placeholder near {:?}",
                truncate(&rest[start..])
            ))
        })?;
        let name = after[..end].trim();
        if name.starts_with("block:") {
            return Err(err(format!(
                "placeholder {{{{{name}}}}} must stand alone in its own paragraph"
            )));
        }
        let value = values.get(name).ok_or_else(|| {
            err(format!(
                "unknown placeholder {{{{{name}}}}}: the analysis provides no such value"
            ))
        })?;
        used.insert(name.to_string());
        out.push_str(value);
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

fn truncate(s: &str) -> String {
    s.chars().take(30).collect()
}

/// Renders Markdown with placeholders to HTML. Fails on an unknown placeholder and on any value or
/// block that the prose leaves unused.
pub fn render_prose(markdown: &str, values: &Values, blocks: &Blocks) -> Result<String> {
    let mut used_values = BTreeSet::new();
    let mut used_blocks = BTreeSet::new();
    let parser = TextMergeStream::new(Parser::new_ext(
        markdown,
        Options::ENABLE_TABLES | Options::ENABLE_HEADING_ATTRIBUTES,
    ));
    let events: Vec<Event> = parser.collect();
    let mut out: Vec<Event> = Vec::with_capacity(events.len());
    let mut i = 0;
    while i < events.len() {
        // A paragraph holding only `{{block:name}}` becomes the block's HTML.
        if let (
            Event::Start(Tag::Paragraph),
            Some(Event::Text(t)),
            Some(Event::End(TagEnd::Paragraph)),
        ) = (&events[i], events.get(i + 1), events.get(i + 2))
        {
            if let Some(name) = t
                .trim()
                .strip_prefix("{{")
                .and_then(|s| s.strip_suffix("}}"))
                .map(str::trim)
                .and_then(|s| s.strip_prefix("block:"))
            {
                let html = blocks
                    .get(name)
                    .ok_or_else(|| err(format!("unknown block {{{{block:{name}}}}}")))?;
                used_blocks.insert(name.to_string());
                out.push(Event::Html(CowStr::from(html.clone())));
                i += 3;
                continue;
            }
        }
        let event = match &events[i] {
            Event::Text(t) => Event::Text(substitute(t, values, &mut used_values)?.into()),
            Event::Code(t) => Event::Code(substitute(t, values, &mut used_values)?.into()),
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => Event::Start(Tag::Link {
                link_type: *link_type,
                dest_url: substitute(dest_url, values, &mut used_values)?.into(),
                title: title.clone(),
                id: id.clone(),
            }),
            other => other.clone(),
        };
        out.push(event);
        i += 1;
    }
    // A dotted name `family.field` belongs to a family (e.g. one highlight): the family counts as
    // used when the prose uses any of its fields. Every other value must be used itself.
    let family = |k: &str| {
        k.rsplit_once('.')
            .map_or(k.to_string(), |(f, _)| format!("{f}.*"))
    };
    let used_families: BTreeSet<String> = used_values.iter().map(|k| family(k)).collect();
    let unused: Vec<String> = values
        .keys()
        .map(|k| family(k))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .filter(|f| !used_families.contains(f))
        .map(|k| format!("{{{{{k}}}}}"))
        .chain(
            blocks
                .keys()
                .filter(|k| !used_blocks.contains(*k))
                .map(|k| format!("{{{{block:{k}}}}}")),
        )
        .collect();
    if !unused.is_empty() {
        return Err(err(format!(
            "computed values not used by the prose: {}",
            unused.join(", ")
        )));
    }
    let mut html = String::with_capacity(markdown.len() * 2);
    pulldown_cmark::html::push_html(&mut html, out.into_iter());
    Ok(html)
}

#[derive(Template)]
#[template(path = "article.html")]
struct Page<'a> {
    config: &'a ArticleConfig,
    body: &'a str,
    tool: &'a str,
}

/// A highlight row of figure 1's data table.
pub struct HighlightRow {
    pub label: String,
    pub offline: String,
    pub server: String,
    pub ratio: String,
    pub ids: String,
}

#[derive(Template)]
#[template(path = "blocks/figure-highlights.html")]
struct FigureHighlightsBlock<'a> {
    svg: &'a str,
    rows: Vec<HighlightRow>,
    span: String,
}

pub struct BenchmarkRow {
    pub benchmark: String,
    pub pairs: usize,
    pub min: String,
    pub median: String,
    pub max: String,
}

#[derive(Template)]
#[template(path = "blocks/figure-pairs.html")]
struct FigurePairsBlock<'a> {
    svg: &'a str,
    rows: Vec<BenchmarkRow>,
    pairs: usize,
}

#[derive(Template)]
#[template(path = "blocks/steps.html")]
struct StepsBlock<'a> {
    steps: &'a [Step],
}

/// One highlighted row of the checks table.
pub struct CheckRow<'a> {
    pub row: String,
    pub highlight: &'a str,
    pub scenario: &'a str,
    pub valid: String,
    pub throughput: String,
    pub ttft: String,
    pub tpot: String,
    pub accuracy: String,
}

#[derive(Template)]
#[template(path = "blocks/checks.html")]
struct ChecksBlock<'a> {
    rows: Vec<CheckRow<'a>>,
    items: &'a [Check],
}

pub struct PairRow<'a> {
    pub pair: &'a Pair,
    pub offline: String,
    pub server: String,
    pub ratio: String,
    pub highlighted: bool,
}

#[derive(Template)]
#[template(path = "blocks/pairs.html")]
struct PairsBlock<'a> {
    rows: Vec<PairRow<'a>>,
}

pub struct InputRow<'a> {
    pub pin: &'a PinnedInput,
    pub commit: String,
    pub size: String,
}

#[derive(Template)]
#[template(path = "blocks/inputs.html")]
struct InputsBlock<'a> {
    rows: Vec<InputRow<'a>>,
}

/// The compact form of some checks: each check's key numbers with its outcome.
fn status_mark(items: &[&Check]) -> String {
    if items.is_empty() {
        return "–".into();
    }
    items
        .iter()
        .map(|c| match c.status {
            Status::Pass => format!("✓ {}", c.short),
            Status::Fail => format!("✗ FAIL {}", c.short),
            Status::NotChecked => format!("○ not checked: {}", c.short),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn blocks(data: &ArticleData<'_>, highlights_svg: &Svg, pairs_svg: &Svg) -> Result<Blocks> {
    let a = data.analysis;
    let mut b = Blocks::new();
    let rows = a
        .highlights
        .iter()
        .map(|h| {
            let p = pair_of(a, h)?;
            Ok(HighlightRow {
                label: h.label.clone(),
                offline: tokens(p.offline),
                server: tokens(p.server),
                ratio: percent(h.ratio),
                ids: format!("{} / {}", p.offline_id, p.server_id),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    b.insert(
        "figure-highlights".into(),
        template(
            &FigureHighlightsBlock {
                svg: &highlights_svg.0,
                rows,
                span: points(a.span_pp),
            },
            "blocks/figure-highlights.html",
        )?,
    );
    let stats: Vec<BenchmarkStats> = figure::by_benchmark(a);
    b.insert(
        "figure-pairs".into(),
        template(
            &FigurePairsBlock {
                svg: &pairs_svg.0,
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
        )?,
    );
    b.insert(
        "steps".into(),
        template(&StepsBlock { steps: &a.steps }, "blocks/steps.html")?,
    );

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
        let named =
            |n: &str| -> Vec<&Check> { of_row.iter().copied().filter(|c| c.name == n).collect() };
        let acc: Vec<&Check> = of_row
            .iter()
            .copied()
            .filter(|c| c.name.starts_with("accuracy"))
            .collect();
        let valid = named("result-valid");
        check_rows.push(CheckRow {
            row: item.row.to_string(),
            highlight: &item.highlight,
            scenario: &item.scenario,
            valid: status_mark(&valid),
            throughput: status_mark(&named("throughput")),
            ttft: status_mark(&named("p99-ttft")),
            tpot: status_mark(&named("p99-tpot")),
            accuracy: status_mark(&acc),
        });
    }
    b.insert(
        "checks".into(),
        template(
            &ChecksBlock {
                rows: check_rows,
                items: &data.checks.items,
            },
            "blocks/checks.html",
        )?,
    );

    let highlighted: BTreeSet<_> = a.highlights.iter().map(|h| h.offline_id).collect();
    b.insert(
        "pairs".into(),
        template(
            &PairsBlock {
                rows: a
                    .pairs
                    .iter()
                    .map(|p| PairRow {
                        pair: p,
                        offline: tokens(p.offline),
                        server: tokens(p.server),
                        ratio: percent(p.ratio),
                        highlighted: highlighted.contains(&p.offline_id),
                    })
                    .collect(),
            },
            "blocks/pairs.html",
        )?,
    );
    b.insert(
        "inputs".into(),
        template(
            &InputsBlock {
                rows: data
                    .inputs
                    .iter()
                    .map(|pin| InputRow {
                        pin,
                        commit: short(&pin.commit),
                        size: grouped(pin.size as f64, 0),
                    })
                    .collect(),
            },
            "blocks/inputs.html",
        )?,
    );
    Ok(b)
}

/// A text cell that a spreadsheet will not run as a formula: a cell starting with `=`, `+`, `-`,
/// `@`, tab or carriage return gets a leading `'`, as OWASP recommends for CSV exports.
pub fn spreadsheet_safe(cell: &str) -> String {
    if cell.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{cell}")
    } else {
        cell.to_string()
    }
}

/// `pairs.csv`: the rows of the pairs table. Text cells pass through [`spreadsheet_safe`].
pub fn pairs_csv(analysis: &Analysis) -> Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let fail = |e: csv::Error| Error::invalid("pairs.csv", e.to_string());
    w.write_record([
        "offline_id",
        "server_id",
        "organization",
        "system_name",
        "platform",
        "model",
        "benchmark",
        "offline_tokens_per_s",
        "server_tokens_per_s",
        "ratio",
        "ratio_percent",
    ])
    .map_err(fail)?;
    for p in &analysis.pairs {
        w.write_record([
            p.offline_id.to_string(),
            p.server_id.to_string(),
            spreadsheet_safe(&p.organization),
            spreadsheet_safe(&p.system_name),
            spreadsheet_safe(&p.platform),
            spreadsheet_safe(&p.model),
            spreadsheet_safe(&p.benchmark),
            format!("{}", p.offline),
            format!("{}", p.server),
            format!("{}", p.ratio.0),
            format!("{:.2}", p.ratio.percent()),
        ])
        .map_err(fail)?;
    }
    w.into_inner()
        .map_err(|e| Error::invalid("pairs.csv", e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vals(pairs: &[(&str, &str)]) -> Values {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn values_are_escaped_and_blocks_inserted_raw() {
        let v = vals(&[("org", "<script>alert(1)</script>")]);
        let b: Blocks = [("fig".to_string(), "<figure>x</figure>".to_string())].into();
        let html = render_prose("Org {{org}}.\n\n{{block:fig}}\n", &v, &b).unwrap();
        assert!(
            html.contains("Org &lt;script&gt;alert(1)&lt;/script&gt;."),
            "{html}"
        );
        assert!(html.contains("<figure>x</figure>"));
        assert!(!html.contains("<script>"));
    }

    #[test]
    fn unknown_and_unused_placeholders_fail_with_their_names() {
        let v = vals(&[("a", "1"), ("b", "2")]);
        let e = render_prose("{{a}} {{zzz}} {{b}}", &v, &Blocks::new()).unwrap_err();
        assert!(e.to_string().contains("unknown placeholder {{zzz}}"), "{e}");
        let e = render_prose("{{a}} only", &v, &Blocks::new()).unwrap_err();
        assert!(
            e.to_string().contains("not used by the prose: {{b}}"),
            "{e}"
        );
        let fam = vals(&[("h.x.r", "1"), ("h.x.m", "m"), ("h.y.r", "2")]);
        assert!(render_prose("{{h.x.r}} {{h.y.r}}", &fam, &Blocks::new()).is_ok());
        let e = render_prose("{{h.x.r}} {{h.x.m}}", &fam, &Blocks::new()).unwrap_err();
        assert!(
            e.to_string().contains("not used by the prose: {{h.y.*}}"),
            "{e}"
        );
        let e = render_prose("{{a}} {{b}} {{block:x}}", &v, &Blocks::new()).unwrap_err();
        assert!(e.to_string().contains("must stand alone"), "{e}");
        let e = render_prose("{{a}} {{b", &v, &Blocks::new()).unwrap_err();
        assert!(e.to_string().contains("unclosed placeholder"), "{e}");
    }

    #[test]
    fn formula_cells_are_neutralised() {
        assert_eq!(
            spreadsheet_safe("=HYPERLINK(\"http://x\")"),
            "'=HYPERLINK(\"http://x\")"
        );
        for c in ["+1", "-1", "@SUM(A1)", "\tx", "\rx"] {
            assert_eq!(spreadsheet_safe(c), format!("'{c}"));
        }
        assert_eq!(spreadsheet_safe("NVIDIA"), "NVIDIA");
        assert_eq!(spreadsheet_safe("a=b"), "a=b");
    }

    #[test]
    fn placeholders_work_in_links_code_and_emphasis() {
        let v = vals(&[("url", "https://e.org/?a=1&b=2"), ("c", "abc"), ("n", "12")]);
        let html = render_prose("[x]({{url}}) `{{c}}` *{{n}}*", &v, &Blocks::new()).unwrap();
        assert!(
            html.contains("href=\"https://e.org/?a=1&amp;b=2\""),
            "{html}"
        );
        assert!(html.contains("<code>abc</code>"));
        assert!(html.contains("<em>12</em>"));
    }
}
