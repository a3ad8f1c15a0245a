//! The article's choice of pairs to show: each highlight of `content/article.json` selects exactly
//! one matched pair by organisation, platform and model, no two select the same pair, and the
//! highlights of one system (the span selector) give the spread the lede reports, and the order
//! its workloads take is compared with every other system that ran the same benchmarks.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::analysis::split::{system_of, System};
use crate::analysis::{by_benchmark, Analysis, BenchmarkStats, Pair, Ratio};
use crate::project::config::{ArticleConfig, PairSelector, CONFIG_PATH};
use crate::summary::RowId;
use ratios_base::error::{Error, Result};

/// A configured highlight and the pair it selected.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Highlight {
    /// The highlight's name in the prose's placeholders ([`PairSelector::id`], `b300_deepseek`).
    pub id: String,
    /// The short label the figure and the tables show (`B300 · deepseek-r1`).
    pub label: String,
    /// The Offline row of the pair it selected.
    pub offline_id: RowId,
    /// The Server row of the pair it selected.
    pub server_id: RowId,
    /// The pair's Server/Offline ratio.
    pub ratio: Ratio,
    /// True when the highlight belongs to the group whose spread is `span_pp`.
    pub in_span: bool,
}

/// The highlights and the spread of the span group.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Highlights {
    /// Every configured highlight with its pair, in the order of `content/article.json`.
    pub highlights: Vec<Highlight>,
    /// Largest minus smallest ratio among the span group's highlights, in percentage points.
    pub span_pp: f64,
    /// How the other systems order the span group's benchmarks.
    pub agreement: Agreement,
}

/// Whether the other systems that ran the span group's benchmarks order them as the span's system
/// does. A system is an organisation's results folder (`Organization`, `Platform`), as the span
/// selector names one.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Agreement {
    /// The span group's benchmarks, by the span system's ratio (lowest first).
    pub order: Vec<String>,
    /// Other systems with exactly one pair on each of those benchmarks.
    pub systems: usize,
    /// Of those, the systems whose ratios put the benchmarks in the same order.
    pub same_order: usize,
    /// Of those, the systems whose lowest ratio is on the same benchmark.
    pub same_lowest: usize,
    /// Other systems that ran every one of those benchmarks but one of them more than once, so
    /// their order is not defined; left out of the counts.
    pub ambiguous: usize,
    /// The accelerator names (`accelerator_model_name`, as written) of the pairs of the systems
    /// counted in `systems` on those benchmarks, each once, sorted; CPU-only pairs add none.
    pub accelerators: Vec<String>,
    /// The software items (of a pair's `framework`, split at `,` and `;`) that the most of
    /// those systems list, with how many do; `None` when no item is shared by two.
    pub shared_software: Option<SharedSoftware>,
    /// The medians of those benchmarks on the span system's own hardware; `None` when the span
    /// system names no accelerator, count per node or node count.
    pub own_hardware: Option<OwnHardware>,
}

/// The pairs of the span group's benchmarks on the span system's hardware (accelerator as
/// written, accelerators per node, node count, as the noise groups are keyed), from every
/// organisation, the span system's own pairs among them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OwnHardware {
    /// The span system's accelerator, as its own pairs spell it (`accelerator_model_name`).
    pub accelerator: String,
    /// The span system's accelerators per node.
    pub accelerators_per_node: i64,
    /// The span system's node count.
    pub nodes: i64,
    /// By median, lowest first.
    pub benchmarks: Vec<BenchmarkStats>,
}

impl OwnHardware {
    /// The benchmarks by their median on this hardware, lowest first.
    pub fn order(&self) -> Vec<&str> {
        self.benchmarks
            .iter()
            .map(|b| b.benchmark.as_str())
            .collect()
    }
}

pub use crate::analysis::units::{software_items, SharedSoftware};

fn config_error(message: String) -> Error {
    Error::Config {
        file: CONFIG_PATH.into(),
        message,
    }
}

/// Selects the configured highlights among the analysis's pairs.
pub fn select(analysis: &Analysis, config: &ArticleConfig) -> Result<Highlights> {
    let mut highlights: Vec<Highlight> = Vec::with_capacity(config.highlights.len());
    for sel in &config.highlights {
        let pair = select_one(&analysis.pairs, sel)?;
        if let Some(first) = highlights.iter().find(|h| h.offline_id == pair.offline_id) {
            return Err(config_error(format!(
                "highlights {:?} and {:?} select the same pair (rows {} and {}); each highlight must select its own",
                first.id, sel.id, pair.offline_id, pair.server_id
            )));
        }
        highlights.push(Highlight {
            id: sel.id.clone(),
            label: sel.label.clone(),
            offline_id: pair.offline_id,
            server_id: pair.server_id,
            ratio: pair.ratio,
            in_span: pair.submission.organization == config.span.organization
                && pair.submission.platform == config.span.platform,
        });
    }
    let span: Vec<f64> = highlights
        .iter()
        .filter(|h| h.in_span)
        .map(|h| h.ratio.percent())
        .collect();
    if span.len() < 2 {
        return Err(config_error(format!(
            "span selects {} highlights ({} {}); at least two are needed",
            span.len(),
            config.span.organization,
            config.span.platform
        )));
    }
    let [min, max] = crate::analysis::range(span.iter().copied());
    let agreement = agreement(analysis, &highlights, config);
    Ok(Highlights {
        highlights,
        span_pp: max - min,
        agreement,
    })
}

/// How the other systems order the span group's benchmarks.
fn agreement(analysis: &Analysis, highlights: &[Highlight], config: &ArticleConfig) -> Agreement {
    let mut span: Vec<(f64, &str)> = highlights
        .iter()
        .filter(|h| h.in_span)
        .filter_map(|h| analysis.pair(h.offline_id))
        .map(|p| (p.ratio.0, p.submission.benchmark.as_str()))
        .collect();
    span.sort_by(|a, b| a.0.total_cmp(&b.0));
    let order: Vec<&str> = span.iter().map(|(_, b)| *b).collect();
    /// What one other system ran of those benchmarks, on what, with what.
    #[derive(Default)]
    struct Ran<'a> {
        ratios: BTreeMap<&'a str, Vec<f64>>,
        accelerators: BTreeSet<&'a str>,
        software: BTreeSet<&'a str>,
    }
    let span_system = (
        config.span.organization.as_str(),
        config.span.platform.as_str(),
    );
    let mut systems: BTreeMap<System, Ran> = BTreeMap::new();
    for p in &analysis.pairs {
        let s = &p.submission;
        if system_of(p) == span_system || !order.contains(&s.benchmark.as_str()) {
            continue;
        }
        let ran = systems.entry(system_of(p)).or_default();
        ran.ratios.entry(&s.benchmark).or_default().push(p.ratio.0);
        ran.accelerators.extend(s.accelerator_name());
        ran.software.extend(software_items(&s.framework));
    }
    let mut a = Agreement {
        order: order.iter().map(|b| b.to_string()).collect(),
        own_hardware: own_hardware(analysis, highlights, &order),
        ..Agreement::default()
    };
    let mut accelerators = BTreeSet::new();
    let mut software: Vec<&BTreeSet<&str>> = Vec::new();
    for ran in systems.values() {
        let by_benchmark = &ran.ratios;
        if by_benchmark.len() < order.len() {
            continue;
        }
        if by_benchmark.values().any(|v| v.len() != 1) {
            a.ambiguous += 1;
            continue;
        }
        let mut theirs: Vec<(f64, &str)> = by_benchmark.iter().map(|(b, v)| (v[0], *b)).collect();
        theirs.sort_by(|x, y| x.0.total_cmp(&y.0));
        let theirs: Vec<&str> = theirs.into_iter().map(|(_, b)| b).collect();
        a.systems += 1;
        a.same_order += usize::from(theirs == order);
        a.same_lowest += usize::from(theirs.first() == order.first());
        accelerators.extend(&ran.accelerators);
        software.push(&ran.software);
    }
    a.accelerators = accelerators.into_iter().map(str::to_string).collect();
    a.shared_software =
        crate::analysis::units::most_listed(software.into_iter().map(|s| s.iter().copied()));
    a
}

/// The span group's benchmarks on the span system's hardware.
fn own_hardware(
    analysis: &Analysis,
    highlights: &[Highlight],
    order: &[&str],
) -> Option<OwnHardware> {
    let own = highlights
        .iter()
        .filter(|h| h.in_span)
        .find_map(|h| analysis.pair(h.offline_id))?;
    let hardware = own.submission.hardware()?;
    let (_, per, nodes) = hardware;
    let benchmarks = by_benchmark(
        analysis
            .pairs
            .iter()
            .filter(|p| {
                p.submission.hardware().as_ref() == Some(&hardware)
                    && order.contains(&p.submission.benchmark.as_str())
            })
            .map(|p| (p.submission.benchmark.as_str(), p.ratio)),
    );
    Some(OwnHardware {
        accelerator: own.submission.accelerator_name()?.to_string(),
        accelerators_per_node: per,
        nodes,
        benchmarks,
    })
}

fn select_one<'a>(pairs: &'a [Pair], sel: &PairSelector) -> Result<&'a Pair> {
    let mut found = pairs.iter().filter(|p| {
        let s = &p.submission;
        s.organization == sel.organization && s.platform == sel.platform && s.model == sel.model
    });
    match (found.next(), found.next()) {
        (Some(p), None) => Ok(p),
        (first, second) => Err(config_error(format!(
            "highlight {:?} ({} / {} / {}) selects {} pairs; exactly one is required",
            sel.label,
            sel.organization,
            sel.platform,
            sel.model,
            match (first, second) {
                (None, _) => "no".to_string(),
                _ => format!("{}", 2 + found.count()),
            }
        ))),
    }
}
