//! The blocks of the story: the key numbers (a box the prose may place), figures 1 and 2 with
//! their tables,
//! and the data page's tables of the systems compared, the paired comparisons and every pair's
//! log check.

use askama::Template;

use super::{template, ArticleData};
use ratios_base::number::{percent, points};
use ratios_base::text::breakable;
use ratios_model::evidence::pair_logs::{BenchmarkFactors, PairLog};

#[derive(Template)]
#[template(path = "blocks/key-numbers.html")]
struct KeyNumbers {
    span: String,
    lowest: Option<(String, usize, usize)>,
    load: Option<(String, String)>,
    tpot: Option<(String, String)>,
}

/// The box of key numbers under the dek: the highlighted system's span, where the lowest
/// benchmark keeps the least, the lowest median load, and the median p99 TPOT nearest its
/// limit (medians by benchmark).
pub(crate) fn key_numbers(data: &ArticleData<'_>) -> ratios_base::error::Result<String> {
    let a = data.analysis;
    let lowest = a
        .benchmarks
        .first()
        .and_then(|b| a.split.lowest.iter().find(|l| l.benchmark == b.benchmark))
        .map(|l| (l.benchmark.clone(), l.lowest_on, l.systems));
    let load = data
        .logs
        .benchmarks
        .iter()
        .min_by(|x, y| x.median_load.total_cmp(&y.median_load))
        .map(|b| (b.benchmark.clone(), percent(b.median_load)));
    let tpot = data
        .logs
        .benchmarks
        .iter()
        .max_by(|x, y| x.median_tpot_share.total_cmp(&y.median_tpot_share))
        .map(|b| (b.benchmark.clone(), percent(b.median_tpot_share)));
    template(
        &KeyNumbers {
            span: points(data.highlights.span_pp),
            lowest,
            load,
            tpot,
        },
        "blocks/key-numbers.html",
    )
}

#[derive(Template)]
#[template(path = "blocks/figure-systems.html")]
struct FigureSystems<'a> {
    wide: &'a str,
    narrow: &'a str,
    benchmark: &'a str,
    systems: usize,
}

/// Figure 1 in its two layouts; its table is on the data page.
pub(crate) fn figure_systems(data: &ArticleData<'_>) -> ratios_base::error::Result<String> {
    let highlighted = highlighted_systems(data);
    template(
        &FigureSystems {
            wide: &data.figures.systems.0,
            narrow: &data.figures.systems_narrow.0,
            benchmark: data
                .analysis
                .benchmarks
                .first()
                .map_or("", |b| b.benchmark.as_str()),
            systems: crate::figure::systems::rows(data.analysis, &highlighted).len(),
        },
        "blocks/figure-systems.html",
    )
}

/// The highlighted systems of the span group: (organisation, platform).
fn highlighted_systems(data: &ArticleData<'_>) -> Vec<(String, String)> {
    data.highlights
        .highlights
        .iter()
        .filter(|h| h.in_span)
        .filter_map(|h| data.analysis.pair(h.offline_id))
        .map(|p| {
            (
                p.submission.organization.clone(),
                p.submission.platform.clone(),
            )
        })
        .collect()
}

/// One benchmark's factors, as figure 2's table prints them.
struct FactorRow<'a> {
    f: &'a BenchmarkFactors,
    ratio: String,
    load: String,
    drain: String,
    length: String,
    ttft: String,
    tpot: String,
}

/// One benchmark's further figures, as the data page prints them.
struct FactorMore {
    /// The benchmark, or the benchmark without its CPU-only pairs.
    label: String,
    /// The median ratio of its pairs within 5 % of a limit and of the others.
    near: String,
    drain_free: String,
    /// The median Server tokens per sample.
    tokens: String,
    /// The median step of a whole-number target, as a share of itself.
    step: String,
    /// The load's, the drain's and the length's shares of the gap.
    shares: [String; 3],
}

#[derive(Template)]
#[template(path = "blocks/figure-factors.html")]
struct FigureFactors<'a> {
    wide: &'a str,
    narrow: &'a str,
    rows: Vec<FactorRow<'a>>,
}

#[derive(Template)]
#[template(path = "blocks/factors-more.html")]
struct FactorsMore {
    more: Vec<FactorMore>,
}

/// Figure 2 in its two layouts, with the medians of the factors by benchmark.
pub(crate) fn figure_factors(data: &ArticleData<'_>) -> ratios_base::error::Result<String> {
    let rows = data
        .logs
        .benchmarks
        .iter()
        .map(|f| FactorRow {
            f,
            ratio: percent(f.median_ratio),
            load: percent(f.median_load),
            drain: percent(f.median_drain),
            length: percent(f.median_length),
            ttft: percent(f.median_ttft_share),
            tpot: percent(f.median_tpot_share),
        })
        .collect();
    template(
        &FigureFactors {
            wide: &data.figures.factors.0,
            narrow: &data.figures.factors_narrow.0,
            rows,
        },
        "blocks/figure-factors.html",
    )
}

/// The further figures of figure 2 by benchmark, for the data page: the pairs near a limit, the
/// ratio without the drain, answer length, the target's step and each factor's share of the gap.
pub(crate) fn factors_more(data: &ArticleData<'_>) -> ratios_base::error::Result<String> {
    let dash = || "–".to_string();
    let shares =
        |s: Option<[f64; 3]>| s.map_or_else(|| [dash(), dash(), dash()], |s| s.map(percent));
    let mut more = Vec::new();
    for f in &data.logs.benchmarks {
        more.push(FactorMore {
            label: f.benchmark.clone(),
            near: format!(
                "{} / {}",
                f.median_ratio_near.map_or_else(dash, percent),
                f.median_ratio_other.map_or_else(dash, percent)
            ),
            drain_free: percent(f.median_drain_free),
            tokens: ratios_base::number::grouped(f.median_server_tokens_per_sample, 0),
            step: f.median_unit_share_whole.map_or_else(dash, percent),
            shares: shares(f.log_shares),
        });
        if let Some(without) = f.log_shares_without_cpu_only {
            more.push(FactorMore {
                label: format!(
                    "{}, without its {} CPU-only pairs",
                    f.benchmark, f.cpu_only_pairs
                ),
                near: dash(),
                drain_free: dash(),
                tokens: dash(),
                step: dash(),
                shares: shares(Some(without)),
            });
        }
    }
    template(&FactorsMore { more }, "blocks/factors-more.html")
}

/// One row of the systems table: a system and its ratio on each benchmark (a dash where it ran
/// none).
struct SystemRow {
    name: String,
    highlighted: bool,
    cells: Vec<String>,
}

#[derive(Template)]
#[template(path = "blocks/systems.html")]
struct Systems {
    benchmarks: Vec<String>,
    rows: Vec<SystemRow>,
}

/// Figure 1's numbers: each system compared, its ratio on each benchmark.
pub fn systems(data: &ArticleData<'_>) -> ratios_base::error::Result<String> {
    let benchmarks: Vec<String> = data
        .analysis
        .benchmarks
        .iter()
        .map(|b| b.benchmark.clone())
        .collect();
    let rows = crate::figure::systems::rows(data.analysis, &highlighted_systems(data))
        .into_iter()
        .map(|s| SystemRow {
            name: breakable(&s.name),
            highlighted: s.highlighted,
            cells: (0..benchmarks.len())
                .map(|b| {
                    s.ratios
                        .iter()
                        .find(|(k, _)| *k == b)
                        .map_or("–".to_string(), |(_, v)| percent(*v))
                })
                .collect(),
        })
        .collect();
    template(&Systems { benchmarks, rows }, "blocks/systems.html")
}

/// One paired comparison as the table prints it.
struct ComparisonRow<'a> {
    c: &'a ratios_model::analysis::split::Comparison,
    p: String,
    p_organizations: String,
    p_configurations: String,
}

/// One benchmark's effect as the table prints it: with one unit left out, its range at each
/// level (system, organisation, configuration), and whether its sign and place hold at all.
struct EffectRow<'a> {
    benchmark: &'a str,
    effect: String,
    levels: [String; 3],
    holds: &'static str,
}

#[derive(Template)]
#[template(path = "blocks/comparisons.html")]
struct Comparisons<'a> {
    rows: Vec<ComparisonRow<'a>>,
    effects: Vec<EffectRow<'a>>,
}

/// The paired comparisons of every two benchmarks, and the split's benchmark effects.
pub fn comparisons(data: &ArticleData<'_>) -> ratios_base::error::Result<String> {
    let found = &data.analysis.split;
    template(
        &Comparisons {
            rows: found
                .comparisons
                .iter()
                .map(|c| ComparisonRow {
                    c,
                    p: super::story::p_value(c.p_value),
                    p_organizations: super::story::p_value(c.units.organizations.p_value),
                    p_configurations: super::story::p_value(c.units.configurations.p_value),
                })
                .collect(),
            effects: found
                .split
                .as_ref()
                .map(|s| {
                    s.leave_one_out
                        .iter()
                        .map(|r| {
                            let range = |x: &ratios_model::analysis::split::Refits| {
                                format!("{:+.2} to {:+.2}", x.min_pp, x.max_pp)
                            };
                            EffectRow {
                                benchmark: &r.benchmark,
                                effect: format!("{:+.2}", r.effect_pp),
                                levels: [
                                    range(&r.systems),
                                    range(&r.organizations),
                                    range(&r.configurations),
                                ],
                                holds: if r.holds() { "yes" } else { "no" },
                            }
                        })
                        .collect()
                })
                .unwrap_or_default(),
        },
        "blocks/comparisons.html",
    )
}

/// One pair's log check, as the table prints it.
struct LogRow<'a> {
    p: &'a PairLog,
    system: String,
    target: String,
    load: String,
    drain: String,
    length: String,
    ttft: String,
    tpot: String,
    near: &'static str,
    /// What the logs say beyond their checks: failed checks, errors, warnings, a negative
    /// minimum latency; or that no log is pinned.
    notes: String,
}

#[derive(Template)]
#[template(path = "blocks/logs.html")]
struct Logs<'a> {
    rows: Vec<LogRow<'a>>,
}

/// Every pair's log check and factors.
pub fn logs(data: &ArticleData<'_>) -> ratios_base::error::Result<String> {
    let rows = data
        .logs
        .pairs
        .iter()
        .map(|p| {
            let f = p.factors.as_ref();
            let pct = |get: fn(&ratios_model::evidence::pair_logs::Factors) -> f64| {
                f.map_or("–".to_string(), |f| percent(get(f)))
            };
            let mut notes = Vec::new();
            for (scenario, r) in [("Offline", &p.offline), ("Server", &p.server)] {
                match r {
                    None => notes.push(format!("no {scenario} log pinned")),
                    Some(r) => {
                        if !r.passes() {
                            notes.push(format!("{scenario} log fails a check"));
                        }
                        if let Some(n) = r.errors.filter(|n| *n > 0) {
                            notes.push(format!("{scenario} log: {n} errors"));
                        }
                        if let Some(n) = r.warnings.filter(|n| *n > 0) {
                            notes.push(format!("{scenario} log: {n} warnings"));
                        }
                        if r.negative_min_ttft {
                            notes.push(format!("{scenario} log: negative minimum TTFT"));
                        }
                    }
                }
            }
            let system = data
                .analysis
                .pair(p.offline_id)
                .map(|pair| pair.submission.system_label())
                .unwrap_or_default();
            LogRow {
                p,
                system: breakable(&system),
                target: f.map_or("–".to_string(), |f| f.target_qps.clone()),
                load: pct(|f| f.load),
                drain: pct(|f| f.drain),
                length: pct(|f| f.length),
                ttft: pct(|f| f.ttft_share),
                tpot: pct(|f| f.tpot_share),
                near: f.and_then(|f| f.binding).unwrap_or("–"),
                notes: if notes.is_empty() {
                    "✓".into()
                } else {
                    notes.join("; ")
                },
            }
        })
        .collect();
    template(&Logs { rows }, "blocks/logs.html")
}
