//! The values of the story's claims: the dek, where one benchmark keeps the least system by
//! system, how firm the rest of the order is, how much the system and the benchmark each set,
//! and why, from the ratio taken apart in the LoadGen logs. Each sentence whose words depend on
//! the figures is rendered from `templates/text/`, its wording chosen by the figures, so a
//! sentence cannot outlive data that say otherwise.

use std::borrow::Borrow;

use askama::Template;

use super::catalogue::Values;
use super::words::list_words;
use super::{template, ArticleData};
use ratios_base::number::{percent, points};
use ratios_model::analysis::range;
use ratios_model::analysis::split::{Comparison, Lowest, Split};
use ratios_model::evidence::pair_logs::{row_logs, BenchmarkFactors, PairLogs};

/// A p-value as the prose prints it: `p < 0.001` below a thousandth, else to two significant
/// digits (`p = 0.0052`, `p = 0.27`).
pub fn p_value(p: f64) -> String {
    if p < 0.001 {
        "p < 0.001".into()
    } else {
        let digits = (1 - p.log10().floor() as i32).max(2) as usize;
        format!("p = {p:.digits$}")
    }
}

/// What the split says of the system and the benchmark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitVerdict {
    /// Each is significant given the other (at 1 %), and adjusted for their sizes neither
    /// explains more than twice the other's share.
    Both,
    /// Both significant, the system's adjusted share more than twice the benchmark's.
    SystemMore,
    /// Both significant, the benchmark's adjusted share more than twice the system's.
    BenchmarkMore,
    /// Only the system is significant given the other.
    SystemOnly,
    /// Only the benchmark is significant given the other.
    BenchmarkOnly,
    /// Neither is.
    Neither,
    /// Fewer than two systems ran two benchmarks or more, or the fit did not settle.
    Untested,
}

/// The level the split's F tests and the sign tests are read at.
pub(crate) const SIGNIFICANCE: f64 = 0.01;

/// The level a sign test counted by hardware configuration is read at: the units are few (a
/// clean sweep of six gives p = 0.031), so a comparison is firm when it clears this level by
/// configuration and [`SIGNIFICANCE`] by system.
pub(crate) const UNIT_SIGNIFICANCE: f64 = 0.05;

impl SplitVerdict {
    /// The verdict of the split `s`, its F tests read at 1 %; [`SplitVerdict::Untested`] when
    /// there is none.
    pub fn of(s: Option<&Split>) -> SplitVerdict {
        let Some(s) = s else {
            return SplitVerdict::Untested;
        };
        let system = s.system_given_benchmark.p_value < SIGNIFICANCE;
        let benchmark = s.benchmark_given_system.p_value < SIGNIFICANCE;
        let (a, b) = (s.system.adjusted_r_squared, s.benchmark.adjusted_r_squared);
        match (system, benchmark) {
            (true, true) if a > 2.0 * b => SplitVerdict::SystemMore,
            (true, true) if b > 2.0 * a => SplitVerdict::BenchmarkMore,
            (true, true) => SplitVerdict::Both,
            (true, false) => SplitVerdict::SystemOnly,
            (false, true) => SplitVerdict::BenchmarkOnly,
            (false, false) => SplitVerdict::Neither,
        }
    }
}

#[derive(Template)]
#[template(path = "text/dek.txt")]
struct Dek<'a> {
    lowest: &'a Lowest,
    round: &'a str,
    /// Its median ratio.
    median: String,
    /// The lowest and the highest median of the other benchmarks.
    others: Option<(String, String)>,
    /// Where it keeps the least in the earlier round, when one is declared.
    previous: Option<&'a ratios_model::across::RoundLowest>,
    /// The lowest benchmark's median load, when the load carries more than half of its gap to
    /// the other benchmarks of the same systems, on a log scale.
    load: Option<String>,
}

#[derive(Template)]
#[template(path = "text/lowest.txt")]
struct LowestWords<'a> {
    lowest: &'a Lowest,
    gap: Option<[String; 3]>,
    /// The systems on which it lies less than two points below the next lowest.
    close: usize,
    /// The maker of every accelerator of those systems, when they share one.
    vendor: Option<String>,
}

#[derive(Template)]
#[template(path = "text/systems-heading.txt")]
struct SystemsHeading<'a> {
    lowest: &'a Lowest,
}

#[derive(Template)]
#[template(path = "text/order.txt")]
struct OrderWords {
    /// Each comparison of two other benchmarks that ran on two systems or more: the one that
    /// keeps more more often first.
    items: Vec<OrderItem>,
}

/// One comparison of two other benchmarks, in words.
struct OrderItem {
    higher: String,
    lower: String,
    on: usize,
    of: usize,
    /// The same count by hardware configuration.
    configurations_on: usize,
    configurations: usize,
    close: usize,
    /// Significant at [`SIGNIFICANCE`] counted by system and at [`UNIT_SIGNIFICANCE`] counted by
    /// hardware configuration.
    firm: bool,
    /// The benchmark that keeps more on most systems has the lower median over all pairs.
    against_medians: bool,
}

#[derive(Template)]
#[template(path = "text/split.txt")]
struct SplitWords<'a> {
    s: &'a Split,
    verdict: SplitVerdict,
    /// The weaker of the two tests' p-values, as a bound (`p < 0.001`, `p ≤ 0.0046`).
    p: String,
}

/// The number formats the sentences' templates call as `self.pct(x)`, `self.p(x)`, ...
trait Formats {
    /// A share in percent.
    fn pct(&self, x: impl Borrow<f64>) -> String {
        percent(*x.borrow())
    }
    /// A p-value, as [`p_value`] prints it.
    fn p(&self, x: impl Borrow<f64>) -> String {
        p_value(*x.borrow())
    }
    /// A statistic to two decimals.
    fn f(&self, x: impl Borrow<f64>) -> String {
        format!("{:.2}", x.borrow())
    }
    /// A count with thousands separators.
    fn count(&self, n: impl Borrow<usize>) -> String {
        ratios_base::number::grouped(*n.borrow() as f64, 0)
    }
}

impl Formats for SplitWords<'_> {}
impl Formats for SplitDetail<'_> {}
impl Formats for LoadWords<'_> {}

#[derive(Template)]
#[template(path = "text/lowest-tests.txt")]
struct LowestTests<'a> {
    lowest: &'a Lowest,
    /// The sign tests by system, organisation and configuration, as the prose prints them.
    p: [String; 3],
}

#[derive(Template)]
#[template(path = "text/lowest-chance.txt")]
struct LowestChance<'a> {
    lowest: &'a Lowest,
    /// One in how many tries chance alone gives so lopsided a count, by organisation and by
    /// hardware configuration.
    one_in: [String; 2],
}

/// `x` milliseconds, in whole units, joined to `ms` by a no-break space.
fn ms(x: f64) -> String {
    format!(
        "{}{}ms",
        ratios_base::number::grouped(x, 0),
        ratios_base::text::NBSP
    )
}

/// The least and the greatest of `xs` (infinite when there is none), as `show` prints them.
fn extent(xs: &[f64], show: impl Fn(f64) -> String) -> [String; 2] {
    range(xs.iter().copied()).map(show)
}

/// One in how many tries an event of probability `p` comes up, in whole tries.
fn one_in(p: f64) -> String {
    if p > 0.0 {
        ratios_base::number::grouped((1.0 / p).round(), 0)
    } else {
        "more than a billion".into()
    }
}

#[derive(Template)]
#[template(path = "text/others.txt")]
struct Others {
    firm: bool,
}

#[derive(Template)]
#[template(path = "text/split-holds.txt")]
struct SplitHolds {
    /// The benchmarks whose effects keep their sign and place, in words, and how many.
    holding: String,
    holding_count: usize,
    /// The others, in words.
    moving: String,
}

#[derive(Template)]
#[template(path = "text/split-effect.txt")]
struct SplitEffect<'a> {
    benchmark: &'a str,
    effect: String,
    below: bool,
    /// The least and most the effect reaches with one unit left out, in points (as distances
    /// from the average), and whether it keeps its sign and place every time.
    range: Option<[String; 2]>,
    holds: bool,
}

#[derive(Template)]
#[template(path = "text/by-hardware.txt")]
struct ByHardware<'a> {
    l: &'a Lowest,
    /// The makers of its systems' accelerators (the first word of each name, in the spelling
    /// most of them use), sorted.
    makers: Vec<String>,
}

#[derive(Template)]
#[template(path = "text/node-split.txt")]
struct NodeSplit<'a> {
    single: &'a ratios_model::analysis::split::NodeCount,
    multi: &'a ratios_model::analysis::split::NodeCount,
    single_gap: Option<String>,
    multi_gap: Option<String>,
}

#[derive(Template)]
#[template(path = "text/shared-targets.txt")]
struct SharedTargetsWords<'a> {
    t: &'a ratios_model::evidence::pair_logs::SharedTargets,
}

#[derive(Template)]
#[template(path = "text/shared-target-example.txt")]
struct SharedTargetExample<'a> {
    /// The largest group of the lowest benchmark.
    group: Option<&'a ratios_model::evidence::pair_logs::TargetGroup>,
}

// Not [`Formats`]: the template's `if let Some(o)` hands `pct` a `&&f64`, which `Borrow` does not
// take.
impl SharedTargetExample<'_> {
    fn pct(&self, x: &f64) -> String {
        percent(*x)
    }
}

#[derive(Template)]
#[template(path = "text/drain.txt")]
struct DrainWords<'a> {
    follows: bool,
    /// The benchmarks with the longest and the shortest answers: name, median drain, median
    /// tokens per sample.
    longest: (String, String, String),
    shortest: (String, String, String),
    /// Where the lowest benchmark keeps the least on the drain-free ratio.
    without: Option<&'a Lowest>,
}

#[derive(Template)]
#[template(path = "text/interactive-within.txt")]
struct InteractiveWithin<'a> {
    w: &'a ratios_model::analysis::interactive::WithinSystems,
    /// The two benchmarks whose order the Interactive limits turn most, the one that keeps more
    /// under Server limits first.
    turned: Option<ratios_model::analysis::interactive::ScenarioComparison>,
}

#[derive(Template)]
#[template(path = "text/split-detail.txt")]
struct SplitDetail<'a> {
    s: &'a Split,
}

#[derive(Template)]
#[template(path = "text/factors.txt")]
struct FactorsWords<'a> {
    logs: &'a PairLogs,
    /// The benchmarks' median drain and length factors: least and most, in words.
    drain: [String; 2],
    length: [String; 2],
}

#[derive(Template)]
#[template(path = "text/shares.txt")]
struct SharesWords<'a> {
    /// Over all pairs: the load's, the drain's and the length's share of the gap.
    all: [String; 3],
    /// The pairs of CPU-only systems, their share of the gap, and the shares without them.
    cpu_only: Option<(usize, String, [String; 3])>,
    /// The lowest benchmark's gap to the other benchmarks of the same systems, and its shares.
    deficit: Option<(&'a ratios_model::evidence::pair_logs::Deficit, [String; 3])>,
}

#[derive(Template)]
#[template(path = "text/why-heading.txt")]
struct WhyHeading {
    /// The factor with the largest share of the gap on a log scale: 0 the load, 1 the drain,
    /// 2 the length; none without logs.
    largest: Option<usize>,
}

/// The mechanism section's heading, from the three factors' shares of the gap.
fn why_heading(shares: Option<[f64; 3]>) -> ratios_base::error::Result<String> {
    let largest = shares.and_then(|s| {
        (0..3)
            .filter(|&i| s[i].is_finite())
            .max_by(|&a, &b| s[a].total_cmp(&s[b]))
    });
    template(&WhyHeading { largest }, "text/why-heading.txt")
}

#[derive(Template)]
#[template(path = "text/tpot-limits.txt")]
struct TpotLimits {
    /// Each limit, in ms, with the benchmarks it applies to, lowest first.
    limits: Vec<(String, Vec<String>)>,
}

#[derive(Template)]
#[template(path = "text/load.txt")]
struct LoadWords<'a> {
    low: &'a BenchmarkFactors,
    high: &'a BenchmarkFactors,
}

#[derive(Template)]
#[template(path = "text/latency.txt")]
struct LatencyWords<'a> {
    /// The benchmark whose median p99 TPOT is nearest its limit, and the others' range (none
    /// when it is the only one).
    nearest: &'a BenchmarkFactors,
    others: Option<[String; 2]>,
    /// Whether it is also the benchmark scheduled furthest below its Offline rate.
    also_lowest_load: bool,
    limit: Option<String>,
    near: usize,
    near_tpot: usize,
    pairs: usize,
    /// The benchmarks with pairs both near a limit and not, and in how many of them the pairs
    /// near a limit kept more at the median.
    compared: usize,
    higher: usize,
    /// The least and most by which they kept more, in points.
    range: [String; 2],
}

#[derive(Template)]
#[template(path = "text/nearest-limit.txt")]
struct NearestLimit<'a> {
    round: &'a str,
    nearest: &'a BenchmarkFactors,
    /// Its median p99 TPOT as a share of its limit.
    share: String,
    others: Option<[String; 2]>,
    also_lowest_load: bool,
    limit: Option<String>,
}

#[derive(Template)]
#[template(path = "text/target-step.txt")]
struct TargetStep {
    whole: usize,
    pairs: usize,
    /// The benchmarks with the smallest and the largest median step, with that step.
    steps: Option<((String, String), (String, String))>,
}

#[derive(Template)]
#[template(path = "text/logs-verdict.txt")]
struct LogsVerdict<'a> {
    logs: &'a PairLogs,
    /// Each failing row with what failed, in words.
    failing: Vec<String>,
}

#[derive(Template)]
#[template(path = "text/logs-errors.txt")]
struct LogsErrors {
    rows: Vec<String>,
    negative: Vec<(String, i64)>,
}

#[derive(Template)]
#[template(path = "text/logs-missing.txt")]
struct LogsMissing {
    /// The pairs' rows (`196/197`).
    rows: Vec<String>,
    /// Their organisations, each with its count of such pairs in words.
    organizations: Vec<(String, String)>,
}

/// Every value of the story.
pub fn values(v: &mut Values, data: &ArticleData<'_>) -> ratios_base::error::Result<()> {
    let a = data.analysis;
    let found = &a.split;
    let lowest = a
        .benchmarks
        .first()
        .and_then(|b| found.lowest.iter().find(|l| l.benchmark == b.benchmark));
    let verdict = SplitVerdict::of(found.split.as_ref());
    match lowest {
        Some(l) => {
            v.text(
                "dek",
                &Dek {
                    lowest: l,
                    round: &a.round,
                    median: a
                        .benchmarks
                        .first()
                        .map(|b| percent(b.median.0))
                        .unwrap_or_default(),
                    others: a.benchmarks.get(1..).and_then(|o| {
                        Some((percent(o.first()?.median.0), percent(o.last()?.median.0)))
                    }),
                    previous: data
                        .across
                        .first()
                        .and_then(|x| x.lowest.first())
                        .filter(|p| p.round != a.round),
                    load: data
                        .logs
                        .deficits
                        .iter()
                        .find(|d| d.benchmark == l.benchmark)
                        .and_then(|d| d.shares)
                        .filter(|s| s[0] > 0.5)
                        .and_then(|_| {
                            data.logs
                                .benchmarks
                                .iter()
                                .find(|b| b.benchmark == l.benchmark)
                        })
                        .map(|b| percent(b.median_load)),
                },
                "text/dek.txt",
            )?;
            v.put("lowest_benchmark", l.benchmark.clone());
            v.put("lowest_on", l.lowest_on);
            v.put("lowest_systems", l.systems);
            v.text(
                "lowest_verdict",
                &LowestWords {
                    lowest: l,
                    gap: l.gap_pp.map(|g| g.map(points)),
                    close: l.close,
                    vendor: super::findings::vendor(&l.accelerators),
                },
                "text/lowest.txt",
            )?;
            v.text(
                "lowest_tests",
                &LowestTests {
                    lowest: l,
                    p: [
                        p_value(l.units.systems.p_value),
                        p_value(l.units.organizations.p_value),
                        p_value(l.units.configurations.p_value),
                    ],
                },
                "text/lowest-tests.txt",
            )?;
            v.text(
                "lowest_chance",
                &LowestChance {
                    lowest: l,
                    one_in: [
                        one_in(l.units.organizations.p_value),
                        one_in(l.units.configurations.p_value),
                    ],
                },
                "text/lowest-chance.txt",
            )?;
            let others_firm = found.comparisons.iter().any(|c| {
                c.first != l.benchmark
                    && c.second != l.benchmark
                    && c.p_value < SIGNIFICANCE
                    && c.units.configurations.p_value < UNIT_SIGNIFICANCE
            });
            v.text(
                "others_sentence",
                &Others { firm: others_firm },
                "text/others.txt",
            )?;
            if let Some(h) = found
                .lowest_by_hardware
                .iter()
                .find(|h| h.benchmark == l.benchmark)
            {
                let mut makers: std::collections::BTreeMap<String, Vec<String>> =
                    Default::default();
                for name in &h.accelerators {
                    let first = name.split_whitespace().next().unwrap_or_default();
                    makers
                        .entry(first.to_lowercase())
                        .or_default()
                        .push(name.clone());
                }
                let makers = makers
                    .values()
                    .filter_map(|names| super::findings::vendor(names))
                    .collect();
                v.text(
                    "by_hardware_sentence",
                    &ByHardware { l: h, makers },
                    "text/by-hardware.txt",
                )?;
            }
            v.text(
                "node_split_sentence",
                &NodeSplit {
                    single: &l.single_node,
                    multi: &l.multi_node,
                    single_gap: l.single_node.gap_pp.map(|g| points(g[1])),
                    multi_gap: l.multi_node.gap_pp.map(|g| points(g[1])),
                },
                "text/node-split.txt",
            )?;
            let group = data
                .logs
                .shared_targets
                .groups
                .iter()
                .find(|g| g.benchmark == l.benchmark);
            v.text(
                "shared_targets_sentence",
                &SharedTargetsWords {
                    t: &data.logs.shared_targets,
                },
                "text/shared-targets.txt",
            )?;
            v.text(
                "shared_target_example",
                &SharedTargetExample { group },
                "text/shared-target-example.txt",
            )?;
            let medians: Vec<String> = a.benchmarks.iter().map(|b| b.benchmark.clone()).collect();
            order(v, &found.comparisons, &l.benchmark, &medians)?;
            v.text(
                "systems_heading",
                &SystemsHeading { lowest: l },
                "text/systems-heading.txt",
            )?;
        }
        None => v.missing_all(
            ["dek", "lowest_benchmark", "lowest_on", "lowest_systems"],
            "no benchmark has pairs",
        ),
    }
    match &found.split {
        Some(s) => split(v, s, verdict)?,
        None => v.missing_all(
            ["split_verdict", "split_effect_sentence", "split_detail"],
            "fewer than two systems ran two benchmarks or more, or the fit did not settle",
        ),
    }
    v.text(
        "over_100_sentence",
        &Over100 {
            n: a.counts.over_100,
            logged: data.logs.over_100,
            above: data.logs.over_100_load_above,
        },
        "text/over-100.txt",
    )?;
    v.text(
        "interactive_pairs_sentence",
        &InteractivePairs {
            n: a.interactive.pairs.len(),
        },
        "text/interactive-pairs.txt",
    )?;
    mechanism(v, data.logs, &data.analysis.round)?;
    tpot_limits(v, data)?;
    interactive_limits(v, data)?;
    logs(v, data)?;
    other_system(v, data)?;
    for h in &data.highlights.highlights {
        match data
            .logs
            .pair(h.offline_id)
            .and_then(|p| p.factors.as_ref())
        {
            Some(f) => {
                v.put(format!("hl.{}.target_qps", h.id), f.target_qps.clone());
                v.put(format!("hl.{}.scheduled", h.id), f.scheduled_samples_per_s);
            }
            None => v.missing_all(
                ["target_qps", "scheduled"].map(|name| format!("hl.{}.{name}", h.id)),
                format!("{}'s pair has no pinned log with a target", h.label),
            ),
        }
    }
    Ok(())
}

#[derive(Template)]
#[template(path = "text/other-gap.txt")]
struct OtherGap {
    wider: bool,
}

/// How the gap of the highlighted system outside the span group compares with the span's, when
/// it has two highlights.
fn other_system(v: &mut Values, data: &ArticleData<'_>) -> ratios_base::error::Result<()> {
    let others: Vec<_> = data
        .highlights
        .highlights
        .iter()
        .filter(|h| !h.in_span)
        .filter_map(|h| Some((h, data.analysis.pair(h.offline_id)?)))
        .collect();
    let [(a, pa), (b, pb)] = others.as_slice() else {
        v.missing(
            "other_system_gap",
            "the highlights outside the span group are not two pairs",
        );
        return Ok(());
    };
    if (&pa.submission.organization, &pa.submission.platform)
        != (&pb.submission.organization, &pb.submission.platform)
    {
        v.missing(
            "other_system_gap",
            "the highlights outside the span group are of two systems",
        );
        return Ok(());
    }
    let spread = (a.ratio.0 - b.ratio.0).abs() * 100.0;
    v.text(
        "other_system_gap",
        &OtherGap {
            wider: spread > data.highlights.span_pp,
        },
        "text/other-gap.txt",
    )
}

/// How firm the order of the other benchmarks is: each of their comparisons, against the order
/// of their medians (`medians`, lowest first).
fn order(
    v: &mut Values,
    comparisons: &[Comparison],
    lowest: &str,
    medians: &[String],
) -> ratios_base::error::Result<()> {
    let rank = |b: &str| medians.iter().position(|m| m == b);
    let items: Vec<OrderItem> = comparisons
        .iter()
        .filter(|c| c.first != lowest && c.second != lowest && c.systems >= 2)
        .map(|c| {
            let by = &c.units.configurations;
            let (higher, lower, on, configurations_on) = if c.first_higher >= c.second_higher {
                (&c.first, &c.second, c.first_higher, by.first)
            } else {
                (&c.second, &c.first, c.second_higher, by.second)
            };
            OrderItem {
                higher: higher.clone(),
                lower: lower.clone(),
                on,
                of: c.systems,
                configurations_on,
                configurations: by.units,
                close: c.within_one_point,
                firm: c.p_value < SIGNIFICANCE && by.p_value < UNIT_SIGNIFICANCE,
                against_medians: rank(higher) < rank(lower),
            }
        })
        .collect();
    v.text("order_sentence", &OrderWords { items }, "text/order.txt")
}

/// The split's verdict, what the lowest benchmark's effect is, and the figures for the method.
fn split(v: &mut Values, s: &Split, verdict: SplitVerdict) -> ratios_base::error::Result<()> {
    v.put("split_pairs", s.pairs);
    v.put("split_systems", s.systems);
    v.text(
        "split_verdict",
        &SplitWords {
            s,
            verdict,
            p: {
                let weaker = s
                    .system_given_benchmark
                    .p_value
                    .max(s.benchmark_given_system.p_value);
                p_value(weaker).replace("p = ", "p ≤ ")
            },
        },
        "text/split.txt",
    )?;
    // The effect furthest from the benchmarks' average, how it fares with one unit left out,
    // and which other places hold.
    let furthest = s
        .benchmark_effects_pp
        .iter()
        .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()));
    if let Some((name, effect)) = furthest {
        let of = s.leave_one_out.iter().find(|r| &r.benchmark == name);
        let range = of.map(|r| {
            let levels = [&r.systems, &r.organizations, &r.configurations];
            let lo = levels
                .iter()
                .map(|x| x.min_pp)
                .fold(f64::INFINITY, f64::min);
            let hi = levels
                .iter()
                .map(|x| x.max_pp)
                .fold(f64::NEG_INFINITY, f64::max);
            // As distances from the average, nearest first.
            let (a, b) = (lo.abs(), hi.abs());
            [points(a.min(b)), points(a.max(b))]
        });
        let (holding, moving): (Vec<_>, Vec<_>) = s.leave_one_out.iter().partition(|r| r.holds());
        let names = |v: &[&ratios_model::analysis::split::EffectRange]| -> Vec<String> {
            v.iter().map(|r| r.benchmark.clone()).collect()
        };
        v.text(
            "split_holds",
            &SplitHolds {
                holding: list_words(&names(&holding))?,
                holding_count: holding.len(),
                moving: list_words(&names(&moving))?,
            },
            "text/split-holds.txt",
        )?;
        v.text(
            "split_effect_sentence",
            &SplitEffect {
                benchmark: name,
                effect: points(effect.abs()),
                below: *effect < 0.0,
                range,
                holds: of.is_some_and(|r| r.holds()),
            },
            "text/split-effect.txt",
        )?;
    }
    v.text("split_detail", &SplitDetail { s }, "text/split-detail.txt")
}

/// The ratio taken apart: the factors' medians, the drain, the load, the latency limits, the
/// target's step.
fn mechanism(v: &mut Values, logs: &PairLogs, round: &str) -> ratios_base::error::Result<()> {
    v.put("with_factors", logs.with_factors);
    v.put("why_heading", why_heading(logs.log_shares)?);
    let b = &logs.benchmarks;
    let range = |get: fn(&BenchmarkFactors) -> f64| -> Option<[String; 2]> {
        let lo = b.iter().map(get).reduce(f64::min)?;
        let hi = b.iter().map(get).reduce(f64::max)?;
        Some([percent(lo), percent(hi)])
    };
    let (Some(drain), Some(length)) = (range(|f| f.median_drain), range(|f| f.median_length))
    else {
        // No pair has both logs: the factors sentence says so, and the others say nothing.
        v.text("factors_sentence", &NoFactors, "text/no-factors.txt")?;
        for name in [
            "shares_sentence",
            "drain_sentence",
            "load_sentence",
            "latency_sentence",
            "target_step_sentence",
        ] {
            v.put(name, "");
        }
        return Ok(());
    };
    v.text(
        "factors_sentence",
        &FactorsWords {
            logs,
            drain,
            length,
        },
        "text/factors.txt",
    )?;
    let by_tokens = |x: &&BenchmarkFactors, y: &&BenchmarkFactors| {
        x.median_server_tokens_per_sample
            .total_cmp(&y.median_server_tokens_per_sample)
    };
    if let (Some(short), Some(long)) = (b.iter().min_by(by_tokens), b.iter().max_by(by_tokens)) {
        let words = |f: &BenchmarkFactors| {
            (
                f.benchmark.clone(),
                percent(f.median_drain),
                ratios_base::number::grouped(f.median_server_tokens_per_sample, 0),
            )
        };
        let lowest = b.first().map(|f| f.benchmark.as_str());
        v.text(
            "drain_sentence",
            &DrainWords {
                follows: logs.drain_follows_length,
                longest: words(long),
                shortest: words(short),
                without: logs
                    .drain_free_lowest
                    .iter()
                    .find(|l| Some(l.benchmark.as_str()) == lowest),
            },
            "text/drain.txt",
        )?;
    }
    let by_load =
        |x: &&BenchmarkFactors, y: &&BenchmarkFactors| x.median_load.total_cmp(&y.median_load);
    if let (Some(low), Some(high)) = (b.iter().min_by(by_load), b.iter().max_by(by_load)) {
        v.text("load_sentence", &LoadWords { low, high }, "text/load.txt")?;
        v.put("load_low", percent(low.median_load));
        v.put("load_low_benchmark", low.benchmark.clone());
        let nearest = b
            .iter()
            .max_by(|x, y| x.median_tpot_share.total_cmp(&y.median_tpot_share))
            .unwrap_or(low);
        let others: Vec<f64> = b
            .iter()
            .filter(|x| x.benchmark != nearest.benchmark)
            .map(|x| x.median_tpot_share)
            .collect();
        let others = (!others.is_empty()).then(|| extent(&others, percent));
        let limit = logs
            .pairs
            .iter()
            .filter(|p| p.benchmark == nearest.benchmark)
            .filter_map(|p| p.factors.as_ref().map(|f| f.tpot_limit_ms))
            .next()
            .map(ms);
        let compared: Vec<(f64, f64)> = b
            .iter()
            .filter_map(|f| f.median_ratio_near.zip(f.median_ratio_other))
            .collect();
        v.text(
            "nearest_limit_sentence",
            &NearestLimit {
                round,
                nearest,
                share: percent(nearest.median_tpot_share),
                others: others.clone(),
                also_lowest_load: nearest.benchmark == low.benchmark,
                limit: limit.clone(),
            },
            "text/nearest-limit.txt",
        )?;
        v.text(
            "latency_sentence",
            &LatencyWords {
                nearest,
                others,
                also_lowest_load: nearest.benchmark == low.benchmark,
                limit,
                near: logs.near_limit,
                near_tpot: b.iter().map(|x| x.near_tpot).sum(),
                pairs: logs.with_factors,
                compared: compared.len(),
                higher: compared.iter().filter(|(n, o)| n > o).count(),
                range: extent(
                    &compared
                        .iter()
                        .map(|(n, o)| (n - o) * 100.0)
                        .collect::<Vec<_>>(),
                    points,
                ),
            },
            "text/latency.txt",
        )?;
    }
    let with_step: Vec<(&BenchmarkFactors, f64)> = b
        .iter()
        .filter_map(|f| Some((f, f.median_unit_share_whole?)))
        .collect();
    let steps = with_step
        .iter()
        .min_by(|x, y| x.1.total_cmp(&y.1))
        .zip(with_step.iter().max_by(|x, y| x.1.total_cmp(&y.1)))
        .filter(|(lo, hi)| lo.0.benchmark != hi.0.benchmark)
        .map(|(lo, hi)| {
            (
                (lo.0.benchmark.clone(), percent(lo.1)),
                (hi.0.benchmark.clone(), percent(hi.1)),
            )
        });
    v.text(
        "target_step_sentence",
        &TargetStep {
            whole: logs.whole_targets,
            pairs: logs.with_factors,
            steps,
        },
        "text/target-step.txt",
    )?;
    match logs.log_shares {
        Some(all) => {
            let cpu_only = logs
                .cpu_only_share_of_gap
                .zip(logs.log_shares_without_cpu_only)
                .map(|(share, without)| {
                    (logs.cpu_only_pairs, percent(share), without.map(percent))
                });
            v.text(
                "shares_sentence",
                &SharesWords {
                    all: all.map(percent),
                    cpu_only,
                    deficit: b.first().and_then(|lowest| {
                        let d = logs
                            .deficits
                            .iter()
                            .find(|d| d.benchmark == lowest.benchmark)?;
                        Some((d, d.shares?.map(percent)))
                    }),
                },
                "text/shares.txt",
            )?;
        }
        None => v.put("shares_sentence", ""),
    }
    Ok(())
}

#[derive(Template)]
#[template(path = "text/no-factors.txt")]
struct NoFactors;

#[derive(Template)]
#[template(path = "text/over-100.txt")]
struct Over100 {
    n: usize,
    /// Of those, the pairs with logs, and those scheduled above the Offline rate.
    logged: usize,
    above: usize,
}

#[derive(Template)]
#[template(path = "text/interactive-pairs.txt")]
struct InteractivePairs {
    n: usize,
}

#[derive(Template)]
#[template(path = "text/interactive-heading.txt")]
struct InteractiveHeading {
    wider: bool,
}

#[derive(Template)]
#[template(path = "text/interactive-limits.txt")]
struct InteractiveLimits {
    /// Each set of benchmarks with its TPOT limit under Server and under Interactive, in ms.
    limits: Vec<(Vec<String>, String, String)>,
}

/// How much the Interactive limits tighten the TPOT limit of each benchmark with Interactive
/// pairs, and the heading of the Interactive section.
fn interactive_limits(v: &mut Values, data: &ArticleData<'_>) -> ratios_base::error::Result<()> {
    let ms = |ns: u64| ms(ns as f64 / 1e6);
    let i = &data.analysis.interactive;
    // Benchmarks whose limits fall alike are named together.
    let mut grouped: Vec<((u64, u64), Vec<String>)> = Vec::new();
    for b in &i.benchmarks {
        let Some((m, interactive)) = data
            .facts
            .models
            .get(&b.benchmark)
            .and_then(|m| Some((m, m.interactive_latency_limits.as_ref()?)))
        else {
            continue;
        };
        let key = (m.server_latency_limits.tpot_ns, interactive.tpot_ns);
        match grouped.iter_mut().find(|(k, _)| *k == key) {
            Some((_, bs)) => bs.push(b.benchmark.clone()),
            None => grouped.push((key, vec![b.benchmark.clone()])),
        }
    }
    let limits = grouped
        .into_iter()
        .map(|((server, interactive), bs)| (bs, ms(server), ms(interactive)))
        .collect();
    // The comparison whose order the Interactive limits turn most: oriented so that its first
    // benchmark keeps more under Server limits on most systems.
    let turned = i
        .within_systems
        .comparisons
        .iter()
        .filter(|c| c.systems >= 2)
        .map(|c| {
            if 2 * c.first_higher_server >= c.systems {
                c.clone()
            } else {
                ratios_model::analysis::interactive::ScenarioComparison {
                    first: c.second.clone(),
                    second: c.first.clone(),
                    systems: c.systems,
                    first_higher_server: c.systems - c.first_higher_server,
                    first_higher_interactive: c.systems - c.first_higher_interactive,
                }
            }
        })
        .filter(|c| {
            2 * c.first_higher_server > c.systems && 2 * c.first_higher_interactive < c.systems
        })
        .max_by_key(|c| {
            (
                c.first_higher_server - c.first_higher_interactive,
                c.systems,
            )
        });
    v.text(
        "interactive_within_sentence",
        &InteractiveWithin {
            w: &i.within_systems,
            turned,
        },
        "text/interactive-within.txt",
    )?;
    v.text(
        "interactive_limits_sentence",
        &InteractiveLimits { limits },
        "text/interactive-limits.txt",
    )?;
    let within = &i.within_systems;
    v.text(
        "interactive_heading",
        &InteractiveHeading {
            wider: 2 * within.interactive_wider > within.systems,
        },
        "text/interactive-heading.txt",
    )
}

/// The Server TPOT limits of the benchmarks with pairs, each with its benchmarks.
fn tpot_limits(v: &mut Values, data: &ArticleData<'_>) -> ratios_base::error::Result<()> {
    let mut limits: std::collections::BTreeMap<u64, Vec<String>> = Default::default();
    for b in &data.analysis.benchmarks {
        if let Some(m) = data.facts.models.get(&b.benchmark) {
            limits
                .entry(m.server_latency_limits.tpot_ns)
                .or_default()
                .push(b.benchmark.clone());
        }
    }
    let limits = limits
        .into_iter()
        .map(|(ns, bs)| (ms(ns as f64 / 1e6), bs))
        .collect();
    v.text(
        "tpot_limits_sentence",
        &TpotLimits { limits },
        "text/tpot-limits.txt",
    )
}

/// Each paired row whose log fails a check, with what failed, in words.
pub(crate) fn failing_rows(logs: &PairLogs) -> ratios_base::error::Result<Vec<String>> {
    row_logs(&logs.pairs)
        .filter(|r| !r.passes())
        .map(|r| {
            let mut what = Vec::new();
            if !r.scenario_agrees {
                what.push("another scenario".to_string());
            }
            if !r.valid {
                what.push("not VALID".to_string());
            }
            if !r.result_agrees {
                what.push(format!(
                    "a result of {} where the summary has {}",
                    r.log_result, r.summary_result
                ));
            }
            if r.limits_agree == Some(false) {
                what.push("limits other than the checker's".to_string());
            }
            Ok(format!("row {} ({})", r.row, list_words(&what)?))
        })
        .collect::<ratios_base::error::Result<Vec<_>>>()
}

/// The checks of every paired row against its log: the verdict, the logs that count errors, and
/// the pairs without logs.
fn logs(v: &mut Values, data: &ArticleData<'_>) -> ratios_base::error::Result<()> {
    let logs = data.logs;
    let failing = failing_rows(logs)?;
    v.put("logs_checked", logs.rows_checked);
    v.put("logs_paired", logs.rows_paired);
    v.text(
        "logs_verdict",
        &LogsVerdict { logs, failing },
        "text/logs-verdict.txt",
    )?;
    let negative = row_logs(&logs.pairs)
        .filter_map(|r| {
            r.min_first_token_ns
                .filter(|n| *n < 0)
                .map(|n| (r.row.to_string(), n))
        })
        .collect();
    v.text(
        "logs_errors_sentence",
        &LogsErrors {
            rows: logs
                .rows_with_errors
                .iter()
                .map(|r| r.to_string())
                .collect(),
            negative,
        },
        "text/logs-errors.txt",
    )?;
    let missing: Vec<&ratios_model::analysis::Pair> = logs
        .pairs_without_logs
        .iter()
        .filter_map(|id| data.analysis.pair(*id))
        .collect();
    let mut organizations: std::collections::BTreeMap<&str, usize> = Default::default();
    for p in &missing {
        *organizations.entry(&p.submission.organization).or_default() += 1;
    }
    let organizations = organizations
        .into_iter()
        .map(|(o, n)| Ok((o.to_string(), super::words::count_word(n)?)))
        .collect::<ratios_base::error::Result<Vec<_>>>()?;
    let missing = LogsMissing {
        rows: missing
            .iter()
            .map(|p| format!("{}/{}", p.offline_id, p.server_id))
            .collect(),
        organizations,
    };
    v.text("logs_missing_sentence", &missing, "text/logs-missing.txt")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p_values_are_printed_to_two_significant_digits_or_as_a_bound() {
        assert_eq!(p_value(0.0000019), "p < 0.001");
        assert_eq!(p_value(0.001), "p = 0.0010");
        assert_eq!(p_value(0.00521), "p = 0.0052");
        assert_eq!(p_value(0.2668), "p = 0.27");
        assert_eq!(p_value(1.0), "p = 1.00");
    }

    #[test]
    fn the_mechanism_heading_names_the_factor_with_the_largest_share() {
        let heading = |s| why_heading(s).unwrap();
        assert!(heading(Some([0.8, 0.19, 0.01]))
            .ends_with("the Server load is set below the Offline rate"));
        assert!(heading(Some([0.2, 0.7, 0.1])).ends_with("the last answers take long to finish"));
        assert!(heading(Some([0.1, 0.2, 0.7]))
            .ends_with("Server answers are shorter than Offline ones"));
        assert_eq!(heading(None), "Where the gap appears");
    }

    /// A test's counts, all one way.
    fn votes(units: usize, first: usize) -> ratios_model::analysis::units::Votes {
        ratios_model::analysis::units::Votes {
            units,
            first,
            second: units - first,
            ties: 0,
            p_value: 0.5,
        }
    }

    fn lowest(systems: usize, organizations: usize, configurations: usize) -> Lowest {
        let nodes = ratios_model::analysis::split::NodeCount {
            systems: 0,
            lowest_on: 0,
            gap_pp: None,
        };
        Lowest {
            benchmark: "X".into(),
            systems,
            lowest_on: systems,
            gap_pp: Some([1.0, 2.0, 3.0]),
            close: 1,
            left_out: 0,
            accelerators: vec!["ACME A1".into(), "Acme A2".into()],
            units: ratios_model::analysis::units::UnitVotes {
                systems: votes(systems, systems),
                organizations: votes(organizations, organizations),
                configurations: votes(configurations, configurations - 1),
            },
            single_node: nodes.clone(),
            multi_node: nodes,
            software: None,
        }
    }

    /// The systems behind a count are named by the units they stand for, and the makers they
    /// share qualify what the count can say.
    #[test]
    fn the_lowest_benchmark_is_counted_by_its_units_and_qualified_by_their_maker() {
        let l = lowest(5, 3, 2);
        let words = |vendor: Option<String>| {
            template(
                &LowestWords {
                    lowest: &l,
                    gap: Some(["1.00".into(), "2.00".into(), "3.00".into()]),
                    close: 1,
                    vendor,
                },
                "text/lowest.txt",
            )
            .unwrap()
        };
        let shared = words(super::super::findings::vendor(&l.accelerators));
        assert_eq!(
            shared,
            "X keeps the least on every one of the 5 systems that ran it beside another \
             benchmark. It falls 1.00 to 3.00 percentage points below each system's next-lowest \
             benchmark, 2.00 at the median; on 1 of them by less than two points. Those systems are not 5 independent tests: they come from 3 \
             organisations and 2 hardware configurations, and partners often reuse one maker's \
             settings. Counted once per organisation, X keeps the least for 3 of 3; once per \
             configuration, for 1 of 2. All carry ACME accelerators, so the figures describe \
             these systems, not hardware in general."
        );
        assert!(words(None).ends_with("once per configuration, for 1 of 2."));
    }
}
