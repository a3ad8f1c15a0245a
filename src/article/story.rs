//! The values of the story's claims: the dek, where one benchmark keeps the least system by
//! system, how firm the rest of the order is, how much the system and the benchmark each set,
//! and why, from the ratio taken apart in the LoadGen logs. Each sentence whose words depend on
//! the figures is rendered from `templates/text/`, its wording chosen by the figures, so a
//! sentence cannot outlive data that say otherwise.

use askama::Template;

use super::catalogue::Values;
use super::words::list_words;
use super::{template, ArticleData};
use crate::analysis::split::{Comparison, Lowest, Split};
use crate::base::number::{percent, points};
use crate::evidence::pair_logs::{BenchmarkFactors, PairLogs};

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
pub const SIGNIFICANCE: f64 = 0.01;

impl SplitVerdict {
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
    split: SplitVerdict,
}

#[derive(Template)]
#[template(path = "text/lowest.txt")]
struct LowestWords<'a> {
    lowest: &'a Lowest,
    gap: Option<[String; 3]>,
    /// The sign test of the lowest benchmark against the one it was compared with on the most
    /// systems.
    test: Option<(&'a Comparison, String)>,
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
    close: usize,
    /// Significant at [`SIGNIFICANCE`].
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

#[derive(Template)]
#[template(path = "text/split-effect.txt")]
struct SplitEffect<'a> {
    benchmark: &'a str,
    effect: String,
    below: bool,
    /// The highest benchmark and its effect, in points, when it is another.
    highest: Option<(&'a str, String)>,
}

#[derive(Template)]
#[template(path = "text/split-detail.txt")]
struct SplitDetail<'a> {
    s: &'a Split,
}

impl SplitDetail<'_> {
    fn pct(&self, x: &f64) -> String {
        percent(*x)
    }
    fn p(&self, x: &f64) -> String {
        p_value(*x)
    }
    fn f(&self, x: &f64) -> String {
        format!("{x:.2}")
    }
}

#[derive(Template)]
#[template(path = "text/factors.txt")]
struct FactorsWords<'a> {
    logs: &'a PairLogs,
    /// The benchmarks' median completion and length factors: least and most, in words.
    completion: [String; 2],
    length: [String; 2],
}

#[derive(Template)]
#[template(path = "text/shares.txt")]
struct SharesWords {
    /// Over all pairs: the load's, the completion's and the length's share of the gap.
    all: [String; 3],
    /// The benchmark whose gap owes most to the completion factor, and that share.
    completion_most: Option<(String, String)>,
}

#[derive(Template)]
#[template(path = "text/why-heading.txt")]
struct WhyHeading {
    /// The factor with the largest share of the gap on a log scale: 0 the load, 1 the
    /// completion, 2 the length; none without logs.
    largest: Option<usize>,
}

/// The mechanism section's heading, from the three factors' shares of the gap.
fn why_heading(shares: Option<[f64; 3]>) -> crate::Result<String> {
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

impl LoadWords<'_> {
    fn pct(&self, x: &f64) -> String {
        percent(*x)
    }
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
    /// The median ratio of the pairs within 5 % of a limit, and of the others, when both exist.
    near_ratios: Option<[String; 2]>,
}

#[derive(Template)]
#[template(path = "text/target-step.txt")]
struct TargetStep {
    whole: usize,
    pairs: usize,
    median_step: Option<String>,
}

impl TargetStep {
    fn fractional(&self) -> usize {
        self.pairs - self.whole
    }
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
pub fn values(v: &mut Values, data: &ArticleData<'_>) -> crate::Result<()> {
    let a = data.analysis;
    let found = &a.split;
    let lowest = a
        .benchmarks
        .first()
        .and_then(|b| found.lowest.iter().find(|l| l.benchmark == b.benchmark));
    let verdict = SplitVerdict::of(found.split.as_ref());
    match lowest {
        Some(l) => {
            v.put(
                "dek",
                template(
                    &Dek {
                        lowest: l,
                        split: verdict,
                    },
                    "text/dek.txt",
                )?,
            );
            v.put("lowest_benchmark", l.benchmark.clone());
            v.put("lowest_on", l.lowest_on.to_string());
            v.put("lowest_systems", l.systems.to_string());
            let test = found
                .comparisons
                .iter()
                .filter(|c| (c.first == l.benchmark || c.second == l.benchmark) && c.systems > 0)
                .max_by_key(|c| (c.systems, std::cmp::Reverse(c.first.clone())))
                .map(|c| (c, p_value(c.p_value)));
            v.put(
                "lowest_verdict",
                template(
                    &LowestWords {
                        lowest: l,
                        gap: l.gap_pp.map(|g| g.map(points)),
                        test,
                        vendor: super::findings::vendor(&l.accelerators),
                    },
                    "text/lowest.txt",
                )?,
            );
            let medians: Vec<String> = a.benchmarks.iter().map(|b| b.benchmark.clone()).collect();
            order(v, &found.comparisons, &l.benchmark, &medians)?;
            v.put(
                "systems_heading",
                template(&SystemsHeading { lowest: l }, "text/systems-heading.txt")?,
            );
        }
        None => {
            for name in ["dek", "lowest_benchmark", "lowest_on", "lowest_systems"] {
                v.missing(name, "no benchmark has pairs");
            }
        }
    }
    match &found.split {
        Some(s) => split(v, s, verdict)?,
        None => {
            for name in ["split_verdict", "split_effect_sentence", "split_detail"] {
                v.missing(
                    name,
                    "fewer than two systems ran two benchmarks or more, or the fit did not settle",
                );
            }
        }
    }
    v.put(
        "over_100_sentence",
        template(
            &Over100 {
                n: a.counts.over_100,
            },
            "text/over-100.txt",
        )?,
    );
    v.put(
        "interactive_pairs_sentence",
        template(
            &InteractivePairs {
                n: a.interactive.pairs.len(),
            },
            "text/interactive-pairs.txt",
        )?,
    );
    mechanism(v, data.logs)?;
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
                v.put(
                    format!("hl.{}.scheduled", h.id),
                    format!("{}", f.scheduled_samples_per_s),
                );
            }
            None => {
                for name in ["target_qps", "scheduled"] {
                    v.missing(
                        format!("hl.{}.{name}", h.id),
                        format!("{}'s pair has no pinned log with a target", h.label),
                    );
                }
            }
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
fn other_system(v: &mut Values, data: &ArticleData<'_>) -> crate::Result<()> {
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
    v.put(
        "other_system_gap",
        template(
            &OtherGap {
                wider: spread > data.highlights.span_pp,
            },
            "text/other-gap.txt",
        )?,
    );
    Ok(())
}

/// How firm the order of the other benchmarks is: each of their comparisons, against the order
/// of their medians (`medians`, lowest first).
fn order(
    v: &mut Values,
    comparisons: &[Comparison],
    lowest: &str,
    medians: &[String],
) -> crate::Result<()> {
    let rank = |b: &str| medians.iter().position(|m| m == b);
    let items: Vec<OrderItem> = comparisons
        .iter()
        .filter(|c| c.first != lowest && c.second != lowest && c.systems >= 2)
        .map(|c| {
            let (higher, lower, on) = if c.first_higher >= c.second_higher {
                (&c.first, &c.second, c.first_higher)
            } else {
                (&c.second, &c.first, c.second_higher)
            };
            OrderItem {
                higher: higher.clone(),
                lower: lower.clone(),
                on,
                of: c.systems,
                close: c.within_one_point,
                firm: c.p_value < SIGNIFICANCE,
                against_medians: rank(higher) < rank(lower),
            }
        })
        .collect();
    v.put(
        "order_sentence",
        template(&OrderWords { items }, "text/order.txt")?,
    );
    Ok(())
}

/// The split's verdict, what the lowest benchmark's effect is, and the figures for the method.
fn split(v: &mut Values, s: &Split, verdict: SplitVerdict) -> crate::Result<()> {
    v.put("split_pairs", s.pairs.to_string());
    v.put("split_systems", s.systems.to_string());
    v.put(
        "split_verdict",
        template(
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
        )?,
    );
    // The effect furthest from the benchmarks' average, and the highest.
    let furthest = s
        .benchmark_effects_pp
        .iter()
        .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()));
    let highest = s
        .benchmark_effects_pp
        .iter()
        .max_by(|a, b| a.1.total_cmp(&b.1));
    if let Some((name, effect)) = furthest {
        v.put(
            "split_effect_sentence",
            template(
                &SplitEffect {
                    benchmark: name,
                    effect: points(effect.abs()),
                    below: *effect < 0.0,
                    highest: highest
                        .filter(|(h, e)| h != name && *e > 0.0)
                        .map(|(h, e)| (h.as_str(), points(*e))),
                },
                "text/split-effect.txt",
            )?,
        );
    }
    v.put(
        "split_detail",
        template(&SplitDetail { s }, "text/split-detail.txt")?,
    );
    Ok(())
}

/// The ratio taken apart: the factors' medians, the load, the latency limits, the target's step.
fn mechanism(v: &mut Values, logs: &PairLogs) -> crate::Result<()> {
    v.put("with_factors", logs.with_factors.to_string());
    v.put("why_heading", why_heading(logs.log_shares)?);
    let b = &logs.benchmarks;
    let range = |get: fn(&BenchmarkFactors) -> f64| -> Option<[String; 2]> {
        let lo = b.iter().map(get).reduce(f64::min)?;
        let hi = b.iter().map(get).reduce(f64::max)?;
        Some([percent(lo), percent(hi)])
    };
    let (Some(completion), Some(length)) =
        (range(|f| f.median_completion), range(|f| f.median_length))
    else {
        // No pair has both logs: the factors sentence says so, and the others say nothing.
        v.put(
            "factors_sentence",
            template(&NoFactors, "text/no-factors.txt")?,
        );
        for name in [
            "shares_sentence",
            "load_sentence",
            "latency_sentence",
            "target_step_sentence",
        ] {
            v.put(name, "");
        }
        return Ok(());
    };
    v.put(
        "factors_sentence",
        template(
            &FactorsWords {
                logs,
                completion,
                length,
            },
            "text/factors.txt",
        )?,
    );
    let by_load =
        |x: &&BenchmarkFactors, y: &&BenchmarkFactors| x.median_load.total_cmp(&y.median_load);
    if let (Some(low), Some(high)) = (b.iter().min_by(by_load), b.iter().max_by(by_load)) {
        v.put(
            "load_sentence",
            template(&LoadWords { low, high }, "text/load.txt")?,
        );
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
        let others = (!others.is_empty()).then(|| {
            [
                percent(others.iter().copied().fold(f64::INFINITY, f64::min)),
                percent(others.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
            ]
        });
        let limit = logs
            .pairs
            .iter()
            .filter(|p| p.benchmark == nearest.benchmark)
            .filter_map(|p| p.factors.as_ref().map(|f| f.tpot_limit_ms))
            .next()
            .map(|ms| {
                format!(
                    "{}{}ms",
                    crate::base::number::grouped(ms, 0),
                    crate::base::text::NBSP
                )
            });
        v.put(
            "latency_sentence",
            template(
                &LatencyWords {
                    nearest,
                    others,
                    also_lowest_load: nearest.benchmark == low.benchmark,
                    limit,
                    near: logs.near_limit,
                    near_tpot: b.iter().map(|x| x.near_tpot).sum(),
                    pairs: logs.with_factors,
                    near_ratios: logs
                        .median_ratio_near
                        .zip(logs.median_ratio_other)
                        .map(|(n, o)| [percent(n), percent(o)]),
                },
                "text/latency.txt",
            )?,
        );
    }
    v.put(
        "target_step_sentence",
        template(
            &TargetStep {
                whole: logs.whole_targets,
                pairs: logs.with_factors,
                median_step: logs.median_unit_share_whole.map(percent),
            },
            "text/target-step.txt",
        )?,
    );
    match logs.log_shares {
        Some(all) => {
            let completion_most = b
                .iter()
                .filter_map(|f| Some((f, f.log_shares?[1])))
                .max_by(|x, y| x.1.total_cmp(&y.1))
                .map(|(f, share)| (f.benchmark.clone(), percent(share)));
            v.put(
                "shares_sentence",
                template(
                    &SharesWords {
                        all: all.map(percent),
                        completion_most,
                    },
                    "text/shares.txt",
                )?,
            );
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
    /// The Interactive medians lie further apart than the Server medians of the same
    /// submissions.
    wider: bool,
}

/// How much the Interactive limits tighten the TPOT limit of each benchmark with Interactive
/// pairs, and the heading of the Interactive section.
fn interactive_limits(v: &mut Values, data: &ArticleData<'_>) -> crate::Result<()> {
    let ms = |ns: u64| {
        format!(
            "{}{}ms",
            crate::base::number::grouped(ns as f64 / 1e6, 0),
            crate::base::text::NBSP
        )
    };
    let i = &data.analysis.interactive;
    // Benchmarks whose limits fall alike are named together.
    let mut grouped: Vec<((u64, u64), Vec<String>)> = Vec::new();
    for b in &i.benchmarks {
        let Some(m) = data.facts.models.get(&b.benchmark) else {
            continue;
        };
        let key = (
            m.server_latency_limits.tpot_ns,
            m.interactive_latency_limits.tpot_ns,
        );
        match grouped.iter_mut().find(|(k, _)| *k == key) {
            Some((_, bs)) => bs.push(b.benchmark.clone()),
            None => grouped.push((key, vec![b.benchmark.clone()])),
        }
    }
    let limits = grouped
        .into_iter()
        .map(|((server, interactive), bs)| (bs, ms(server), ms(interactive)))
        .collect();
    let spread = |stats: &[crate::analysis::BenchmarkStats]| {
        let lo = stats
            .iter()
            .map(|b| b.median.0)
            .fold(f64::INFINITY, f64::min);
        let hi = stats
            .iter()
            .map(|b| b.median.0)
            .fold(f64::NEG_INFINITY, f64::max);
        hi - lo
    };
    let wider = spread(&i.server_alongside.interactive) > spread(&i.server_alongside.benchmarks);
    let words = InteractiveLimits { limits, wider };
    v.put(
        "interactive_limits_sentence",
        template(&words, "text/interactive-limits.txt")?,
    );
    v.put(
        "interactive_heading",
        template(
            &InteractiveHeading { wider: words.wider },
            "text/interactive-heading.txt",
        )?,
    );
    Ok(())
}

/// The Server TPOT limits of the benchmarks with pairs, each with its benchmarks.
fn tpot_limits(v: &mut Values, data: &ArticleData<'_>) -> crate::Result<()> {
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
        .map(|(ns, bs)| {
            (
                format!(
                    "{}{}ms",
                    crate::base::number::grouped(ns as f64 / 1e6, 0),
                    crate::base::text::NBSP
                ),
                bs,
            )
        })
        .collect();
    v.put(
        "tpot_limits_sentence",
        template(&TpotLimits { limits }, "text/tpot-limits.txt")?,
    );
    Ok(())
}

/// The checks of every paired row against its log: the verdict, the logs that count errors, and
/// the pairs without logs.
fn logs(v: &mut Values, data: &ArticleData<'_>) -> crate::Result<()> {
    let logs = data.logs;
    let failing = logs
        .pairs
        .iter()
        .flat_map(|p| [&p.offline, &p.server])
        .flatten()
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
        .collect::<crate::Result<Vec<_>>>()?;
    v.put("logs_checked", logs.rows_checked.to_string());
    v.put("logs_paired", logs.rows_paired.to_string());
    v.put(
        "logs_verdict",
        template(&LogsVerdict { logs, failing }, "text/logs-verdict.txt")?,
    );
    let negative = logs
        .pairs
        .iter()
        .flat_map(|p| [&p.offline, &p.server])
        .flatten()
        .filter_map(|r| {
            r.min_first_token_ns
                .filter(|n| *n < 0)
                .map(|n| (r.row.to_string(), n))
        })
        .collect();
    v.put(
        "logs_errors_sentence",
        template(
            &LogsErrors {
                rows: logs
                    .rows_with_errors
                    .iter()
                    .map(|r| r.to_string())
                    .collect(),
                negative,
            },
            "text/logs-errors.txt",
        )?,
    );
    let missing: Vec<&crate::analysis::Pair> = logs
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
        .collect::<crate::Result<Vec<_>>>()?;
    let missing = LogsMissing {
        rows: missing
            .iter()
            .map(|p| format!("{}/{}", p.offline_id, p.server_id))
            .collect(),
        organizations,
    };
    v.put(
        "logs_missing_sentence",
        template(&missing, "text/logs-missing.txt")?,
    );
    Ok(())
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
        assert!(heading(Some([0.2, 0.7, 0.1]))
            .ends_with("Server runs complete fewer samples than LoadGen schedules"));
        assert!(heading(Some([0.1, 0.2, 0.7]))
            .ends_with("Server answers are shorter than Offline ones"));
        assert_eq!(heading(None), "Where the gap appears");
    }

    #[test]
    fn the_sign_test_is_qualified_when_every_system_shares_one_accelerator_maker() {
        let lowest = Lowest {
            benchmark: "X".into(),
            systems: 3,
            lowest_on: 3,
            gap_pp: Some([1.0, 2.0, 3.0]),
            accelerators: vec!["ACME A1".into(), "Acme A2".into()],
        };
        let comparison = Comparison {
            first: "X".into(),
            second: "Y".into(),
            systems: 3,
            first_higher: 0,
            second_higher: 3,
            ties: 0,
            p_value: 0.25,
            within_one_point: 0,
        };
        let words = |vendor: Option<String>| {
            template(
                &LowestWords {
                    lowest: &lowest,
                    gap: None,
                    test: Some((&comparison, "p = 0.25".into())),
                    vendor,
                },
                "text/lowest.txt",
            )
            .unwrap()
        };
        let shared = words(super::super::findings::vendor(&lowest.accelerators));
        assert!(
            shared.ends_with(
                "by a sign test. All 3 systems carry ACME accelerators, so they are not independent draws. The p-value describes these systems, not hardware in general."
            ),
            "{shared}"
        );
        assert!(words(None).ends_with("by a sign test."));
    }
}
