//! The values the prose may use: a catalogue computed from the results. Each value is plain text
//! (escaped when inserted). A name the data cannot provide is recorded with the reason, so a
//! placeholder that asks for it fails with that reason. Reader-facing sentences whose wording
//! depends on the data are rendered from `templates/text/`.

use std::collections::BTreeSet;

use askama::Template;

use super::catalogue::Values;
use super::words::{count_word, list_words};
use super::ArticleData;
use ratios_base::number::{percent, points, tokens};
use ratios_base::text::short_commit;
use ratios_model::analysis::{Analysis, Unmatched};
use ratios_model::evidence::{round_sig, Check, Checks, Status};
use ratios_model::highlight::Highlight;
use ratios_model::inputs::InputKind;

#[derive(Template)]
#[template(path = "text/unmatched.txt")]
struct UnmatchedSentence<'a> {
    unmatched: &'a [Unmatched],
    key_fields: usize,
}

#[derive(Template)]
#[template(path = "text/span-order.txt")]
struct SpanOrder {
    same: bool,
    count: String,
    by_ratio: Vec<String>,
    by_median: Vec<String>,
    own: Option<OwnOrder>,
}

/// The span group's benchmarks on the highlighted system's own hardware, in words.
struct OwnOrder {
    /// Whether their medians there order them as the system's own ratios do.
    same: bool,
    same_lowest: bool,
    /// The lowest benchmark on the highlighted system.
    lowest: String,
    pairs: usize,
    accelerator: String,
    per_node: i64,
    nodes: i64,
    nodes_word: String,
    /// Each benchmark with its median there, lowest first, in words.
    medians: String,
}

#[derive(Template)]
#[template(path = "text/licences.txt")]
struct Licences<'a> {
    single: Option<&'a str>,
    licences: Vec<(&'a str, usize)>,
    total: usize,
    /// The pinned licence texts: (repository, path).
    texts: Vec<(&'a str, &'a str)>,
    /// Repositories of the inputs that have no pinned licence text of their own.
    without_text: Vec<&'a str>,
}

impl<'a> Licences<'a> {
    /// From each licence and how many inputs carry it, and the pinned licence texts.
    fn new(
        licences: Vec<(&'a str, usize)>,
        manifest: &'a ratios_model::inputs::InputManifest,
    ) -> Self {
        let texts: Vec<(&str, &str)> = manifest
            .of_kind(InputKind::License)
            .map(|p| (p.repository.as_str(), p.path.as_str()))
            .collect();
        let mut without_text: Vec<&str> = manifest
            .inputs
            .iter()
            .map(|p| p.repository.as_str())
            .filter(|r| !texts.iter().any(|(t, _)| t == r))
            .collect();
        without_text.sort_unstable();
        without_text.dedup();
        Licences {
            single: match licences.as_slice() {
                [(id, _)] => Some(id),
                _ => None,
            },
            total: licences.iter().map(|(_, n)| n).sum(),
            licences,
            texts,
            without_text,
        }
    }
}

#[derive(Template)]
#[template(path = "text/checks-verdict.txt")]
struct ChecksVerdict<'a> {
    checks: &'a Checks,
    failed: Vec<&'a Check>,
}

/// Every value the results provide.
pub fn values(data: &ArticleData<'_>) -> ratios_base::error::Result<Values> {
    let mut v = Values::default();
    counts(&mut v, data.analysis)?;
    v.put("span_pp", points(data.highlights.span_pp));
    spread(&mut v, data.analysis)?;
    for h in &data.highlights.highlights {
        highlight(&mut v, data, h);
    }
    span_order(&mut v, data)?;
    super::findings::values(&mut v, data)?;
    super::story::values(&mut v, data)?;
    super::rounds::values(&mut v, data)?;
    checks(&mut v, data.checks)?;
    sources(&mut v, data)?;
    rebuild(&mut v, data)?;
    Ok(v)
}

/// The counts of the scope walk-through and the matching, and the sentence on unmatched rows.
fn counts(v: &mut Values, a: &Analysis) -> ratios_base::error::Result<()> {
    let c = &a.counts;
    v.put("round", a.round.clone());
    v.put("rows", c.rows);
    v.put("closed", c.closed);
    v.put("open", c.open);
    v.put("eligible", c.eligible);
    v.put("pairs", c.pairs);
    v.put("over_100", c.over_100);
    v.put("unmatched", c.unmatched);
    v.put("key_fields", a.key_fields.len());
    let non_key: Vec<String> = ratios_model::analysis::NON_KEY_FIELDS
        .iter()
        .map(|f| f.name().to_string())
        .collect();
    v.put("non_key_fields", list_words(&non_key)?);
    v.text(
        "unmatched_sentence",
        &UnmatchedSentence {
            unmatched: &a.unmatched,
            key_fields: a.key_fields.len(),
        },
        "text/unmatched.txt",
    )
}

/// The lowest and highest ratio of all pairs, and the benchmarks with the lowest and highest
/// median.
#[derive(Template)]
#[template(path = "text/medians.txt")]
struct Medians {
    /// The lowest and the highest median over all pairs: benchmark and median.
    low: (String, String),
    high: (String, String),
    /// The lowest median among single-node pairs and among multi-node pairs, where both exist.
    strata: Option<((String, String), (String, String))>,
    /// The benchmarks order alike by their single-node and their multi-node medians.
    same_order: bool,
}

fn spread(v: &mut Values, a: &Analysis) -> ratios_base::error::Result<()> {
    let ratios = a.pairs.iter().map(|p| p.ratio);
    match (
        ratios.clone().min_by(|x, y| x.0.total_cmp(&y.0)),
        ratios.max_by(|x, y| x.0.total_cmp(&y.0)),
    ) {
        (Some(min), Some(max)) => {
            v.put("all_min", percent(min));
            v.put("all_max", percent(max));
        }
        _ => v.missing_all(["all_min", "all_max"], "no pair was matched"),
    }
    match (a.benchmarks.first(), a.benchmarks.last()) {
        (Some(low), Some(high)) => {
            v.put("median_low", percent(low.median));
            v.put("median_low_benchmark", low.benchmark.clone());
            v.put("median_high", percent(high.median));
            v.put("median_high_benchmark", high.benchmark.clone());
            // The medians by node count, lowest first.
            let order = |get: fn(
                &ratios_model::analysis::robustness::BenchmarkRobustness,
            ) -> Option<ratios_model::analysis::Ratio>| {
                let mut v: Vec<(String, f64)> = a
                    .robustness
                    .benchmarks
                    .iter()
                    .filter_map(|b| Some((b.benchmark.clone(), get(b)?.0)))
                    .collect();
                v.sort_by(|x, y| x.1.total_cmp(&y.1).then_with(|| x.0.cmp(&y.0)));
                v
            };
            let (single, multi) = (
                order(|b| b.median_single_node),
                order(|b| b.median_multi_node),
            );
            let names = |v: &[(String, f64)]| v.iter().map(|x| x.0.clone()).collect::<Vec<_>>();
            let strata = single
                .first()
                .zip(multi.first())
                .map(|(s, m)| ((s.0.clone(), percent(s.1)), (m.0.clone(), percent(m.1))));
            v.text(
                "medians_sentence",
                &Medians {
                    low: (low.benchmark.clone(), percent(low.median)),
                    high: (high.benchmark.clone(), percent(high.median)),
                    strata,
                    same_order: names(&single) == names(&multi),
                },
                "text/medians.txt",
            )?;
        }
        _ => v.missing_all(
            [
                "median_low",
                "median_low_benchmark",
                "median_high",
                "median_high_benchmark",
                "medians_sentence",
            ],
            "no pair was matched",
        ),
    }
    Ok(())
}

/// The values of one highlight: its label, ratio, rates and rows, and the checker's bounds for
/// its benchmark.
fn highlight(v: &mut Values, data: &ArticleData<'_>, h: &Highlight) {
    let key = |f: &str| format!("hl.{}.{f}", h.id);
    let Some(p) = data.analysis.pair(h.offline_id) else {
        return;
    };
    v.put(key("label"), h.label.clone());
    v.put(key("ratio"), percent(h.ratio));
    // What the prose may say of the two rates: "loss" only where Server is below Offline, so
    // a sentence that says the system gives something up cannot outlive data that say not.
    for (name, holds, points, side) in [
        ("loss", h.ratio.0 < 1.0, 100.0 - h.ratio.percent(), "below"),
        ("gain", h.ratio.0 > 1.0, h.ratio.percent() - 100.0, "above"),
    ] {
        if holds {
            v.put(key(name), ratios_base::number::percent_value(points));
        } else {
            v.missing(
                key(name),
                format!("{}'s Server rate is not {side} its Offline rate", h.label),
            );
        }
    }
    v.put(
        key("relation"),
        match h.ratio.0.partial_cmp(&1.0) {
            Some(std::cmp::Ordering::Greater) => "above",
            Some(std::cmp::Ordering::Less) => "below",
            _ => "equal to",
        },
    );
    v.put(key("offline"), tokens(p.offline));
    v.put(key("server"), tokens(p.server));
    v.put(key("offline_id"), p.offline_id);
    v.put(key("server_id"), p.server_id);
    v.put(key("model"), p.submission.model.clone());
    v.put(key("system"), p.submission.system_name.clone());
    // The p99 time per output token of the Server run against its limit, from its log.
    let tpot = data
        .checks
        .items
        .iter()
        .find(|c| c.row == p.server_id && c.kind == ratios_model::evidence::CheckKind::P99Tpot)
        .and_then(|c| c.latency.as_ref());
    match tpot {
        Some(l) => {
            v.put(key("p99_tpot"), l.observed.clone());
            v.put(key("tpot_limit"), l.limit.clone());
        }
        None => v.missing_all(
            ["p99_tpot", "tpot_limit"].map(key),
            format!(
                "no pinned log gives {}'s Server p99 TPOT and its limit",
                h.label
            ),
        ),
    }
    match data.analysis.interactive.pair(p.offline_id) {
        Some(i) => {
            v.put(key("interactive_ratio"), percent(i.ratio));
            v.put(key("interactive_id"), i.interactive_id);
        }
        None => v.missing_all(
            ["interactive_ratio", "interactive_id"].map(key),
            format!(
                "{}'s submission has no Interactive run paired with its Offline run",
                h.label
            ),
        ),
    }
    // The checker's bounds for this highlight's benchmark, by metric name.
    let pct = |m: Option<f64>| {
        format!(
            "{}{}%",
            round_sig(m.unwrap_or(1.0) * 100.0, 6),
            ratios_base::text::NBSP
        )
    };
    match data.facts.models.get(&p.submission.benchmark) {
        None => v.missing(
            key("target.*"),
            format!(
                "the checker facts hold no bounds for {}",
                p.submission.benchmark
            ),
        ),
        Some(mf) => {
            for b in &mf.accuracy_targets {
                v.put(key(&format!("target.{}", b.metric)), round_sig(b.value, 6));
                v.put(
                    key(&format!("reference.{}", b.metric)),
                    round_sig(b.reference, 10),
                );
                v.put(key(&format!("multiplier.{}", b.metric)), pct(b.multiplier));
            }
            for b in &mf.accuracy_upper_limits {
                v.put(key(&format!("upper.{}", b.metric)), pct(b.multiplier));
                v.put(
                    key(&format!("upper_value.{}", b.metric)),
                    round_sig(b.value, 6),
                );
            }
        }
    }
}

/// Whether the span group orders its workloads as the benchmarks' medians do, as a sentence.
fn span_order(v: &mut Values, data: &ArticleData<'_>) -> ratios_base::error::Result<()> {
    let a = data.analysis;
    // The span group's benchmarks by the system's own ratio, as the agreement orders them.
    let by_ratio: Vec<String> = data.highlights.agreement.order.clone();
    let by_median: Vec<String> = a
        .benchmarks
        .iter()
        .filter(|s| by_ratio.contains(&s.benchmark))
        .map(|s| s.benchmark.clone())
        .collect();
    let own = match &data.highlights.agreement.own_hardware {
        Some(o) => {
            let order = o.order();
            let medians: Vec<String> = o
                .benchmarks
                .iter()
                .map(|b| format!("{} {}", b.benchmark, percent(b.median)))
                .collect();
            Some(OwnOrder {
                same: order == by_ratio,
                same_lowest: order.first().copied() == by_ratio.first().map(String::as_str),
                lowest: by_ratio.first().cloned().unwrap_or_default(),
                pairs: o.benchmarks.iter().map(|b| b.pairs).sum(),
                accelerator: o.accelerator.clone(),
                per_node: o.accelerators_per_node,
                nodes: o.nodes,
                nodes_word: match usize::try_from(o.nodes) {
                    Ok(n) => count_word(n)?,
                    Err(_) => o.nodes.to_string(),
                },
                medians: list_words(&medians)?,
            })
        }
        None => None,
    };
    v.text(
        "span_order_sentence",
        &SpanOrder {
            same: by_ratio == by_median,
            count: count_word(by_ratio.len())?,
            by_ratio,
            by_median,
            own,
        },
        "text/span-order.txt",
    )
}

/// How many rows were checked against their logs, and the verdict sentence.
fn checks(v: &mut Values, checks: &Checks) -> ratios_base::error::Result<()> {
    let checked_rows: BTreeSet<_> = checks.items.iter().map(|c| c.row).collect();
    v.put("checked_rows", checked_rows.len());
    v.text(
        "checks_verdict",
        &ChecksVerdict {
            checks,
            failed: checks
                .items
                .iter()
                .filter(|i| i.status == Status::Fail)
                .collect(),
        },
        "text/checks-verdict.txt",
    )
}

/// Where the checker facts, the summary and the logs come from.
fn sources(v: &mut Values, data: &ArticleData<'_>) -> ratios_base::error::Result<()> {
    v.text(
        "inputs_licence",
        &Licences::new(data.manifest.licences(), data.manifest),
        "text/licences.txt",
    )?;
    v.put("checker_source", super::blocks::checker_source(data));

    match (
        data.manifest.single(InputKind::SummaryCsv),
        data.manifest.single(InputKind::SummaryJson),
    ) {
        (Ok(csv), Ok(json)) => {
            v.put(
                "csv_url",
                format!(
                    "https://github.com/{}/blob/{}/{}",
                    csv.repository, csv.commit, csv.path
                ),
            );
            v.put("csv_repository", csv.repository.clone());
            v.put("csv_commit", short_commit(&csv.commit));
            v.put("json_commit", short_commit(&json.commit));
        }
        _ => v.missing_all(
            ["csv_url", "csv_repository", "csv_commit", "json_commit"],
            "the manifest pins no single summary.csv and summary.json",
        ),
    }
    // The logs behind the checks: the inputs the checks cite as evidence.
    let cited: BTreeSet<&str> = data
        .checks
        .items
        .iter()
        .flat_map(|c| c.evidence.iter().map(String::as_str))
        .collect();
    match data
        .manifest
        .of_kind(InputKind::LoadgenSummary)
        .find(|p| cited.contains(p.name.as_str()))
    {
        Some(log) => {
            v.put("logs_repository", log.repository.clone());
            v.put("logs_commit", short_commit(&log.commit));
        }
        None => v.missing_all(
            ["logs_repository", "logs_commit"],
            "no check used a pinned LoadGen log",
        ),
    }
    Ok(())
}

/// What the reader's rebuild needs and covers.
fn rebuild(v: &mut Values, data: &ArticleData<'_>) -> ratios_base::error::Result<()> {
    v.put("input_count", data.manifest.inputs.len());
    v.put("tool", data.tool);
    v.put("rust_version", env!("CARGO_PKG_RUST_VERSION"));
    v.put("python_version", ratios_model::notebook::min_python());
    v.put(
        "offline_platforms",
        list_words(&data.vendor_plan.platforms)?,
    );
    v.put("bundle_folder", ratios_base::layout::bundle_folder());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_licence_sentence_names_every_licence_and_every_pinned_text() {
        let render =
            |licences: Vec<(&str, usize)>, texts: Vec<(&str, &str)>, without_text: Vec<&str>| {
                Licences {
                    single: match licences.as_slice() {
                        [(id, _)] => Some(id),
                        _ => None,
                    },
                    total: licences.iter().map(|(_, n)| n).sum(),
                    licences: licences.clone(),
                    texts,
                    without_text,
                }
                .render()
                .unwrap()
            };
        assert_eq!(
            render(
                vec![("Apache-2.0", 21)],
                vec![("o/a", "LICENSE.md")],
                vec![]
            ),
            "The manifest records the licence Apache-2.0 for all 21 inputs. The licence text \
             pinned and bundled is LICENSE.md of o/a."
        );
        assert_eq!(
            render(
                vec![("Apache-2.0", 20), ("CC-BY-4.0", 1)],
                vec![("o/a", "LICENSE.md")],
                vec!["o/b", "o/c"]
            ),
            "The manifest records the licences of the 21 inputs as Apache-2.0 (20) and \
             CC-BY-4.0 (1). The licence text pinned and bundled is LICENSE.md of o/a; no licence \
             text of o/b or o/c is among them."
        );
        assert_eq!(
            render(vec![("A", 1), ("B", 2), ("C", 3)], vec![], vec!["o/a"]),
            "The manifest records the licences of the 6 inputs as A (1), B (2) and C (3). No \
             licence text is among the pinned inputs."
        );
    }

    #[test]
    fn lists_are_worded_as_prose_writes_them() {
        let words = |items: &[&str]| {
            super::super::words::list_words(
                &items.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            )
            .unwrap()
        };
        assert_eq!(words(&[]), "");
        assert_eq!(words(&["a"]), "a");
        assert_eq!(words(&["a", "b"]), "a and b");
        assert_eq!(words(&["a", "b", "c", "d"]), "a, b, c and d");
    }
}
