//! The values of the sections that test the title: the Interactive pairs, how robust the
//! per-benchmark picture is, how the other systems order the highlighted workloads, and the
//! verdict those figures support. The verdict's words live in `templates/text/`, chosen by
//! [`Verdict`], so a sentence that says the workload sets the ratio cannot outlive data that say
//! otherwise.

use std::collections::BTreeSet;

use askama::Template;
use serde::Serialize;

use super::catalogue::Values;
use super::words::{count_word, list_words};
use super::{template, ArticleData};
use ratios_base::number::{percent, points};
use ratios_model::analysis::robustness::NoiseGroup;
use ratios_model::analysis::{most_spelled, Analysis, Ratio};
use ratios_model::highlight::Agreement;

/// What the figures say of the title's claim, from the strongest reading to the weakest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Every other system orders the workloads alike, and the spread between them on one machine
    /// is wider than the gap between organisations in every group of one benchmark and hardware.
    Workload,
    /// Every other system gives the same workload the smallest share, but the full order or the
    /// size of the spread is not borne out.
    LowestEverywhere,
    /// Most other systems order the workloads alike.
    Majority,
    /// Most do not.
    NotShared,
    /// No other system ran all the highlighted benchmarks.
    Untested,
}

impl Verdict {
    /// The verdict of a spread of `span_pp` points, given how many groups of one benchmark and
    /// hardware spread wider between organisations (`wider`) and how the other systems order the
    /// workloads.
    pub fn of(wider: usize, a: &Agreement) -> Verdict {
        if a.systems == 0 {
            Verdict::Untested
        } else if a.same_order == a.systems && wider == 0 {
            Verdict::Workload
        } else if a.same_lowest == a.systems {
            Verdict::LowestEverywhere
        } else if 2 * a.same_order > a.systems {
            Verdict::Majority
        } else {
            Verdict::NotShared
        }
    }
}

/// The words a verdict template needs.
struct VerdictWords {
    verdict: Verdict,
    systems: usize,
    same_order: usize,
    count: String,
    lowest: String,
    /// Groups of one benchmark and hardware from several organisations, and how many of them
    /// spread wider than `span`.
    groups: usize,
    wider: usize,
    noise_max: Option<String>,
    /// The widest group, in words.
    widest: Option<String>,
    /// Whether the widest group holds one of the highlighted system's pairs.
    widest_holds_span: bool,
    /// The first word of the compared systems' accelerator names, when they all begin with it
    /// (compared ignoring case): the maker they share.
    vendor: Option<String>,
    /// How many of the compared systems list the software items most of them list, and how
    /// many items that is, in words; `None` when no item is listed by two systems.
    software: Option<(usize, String)>,
}

#[derive(Template)]
#[template(path = "text/span-verdict.txt")]
struct SpanVerdict<'a> {
    w: &'a VerdictWords,
}

#[derive(Template)]
#[template(path = "text/robustness-verdict.txt")]
struct RobustnessVerdict<'a> {
    w: &'a VerdictWords,
}

#[derive(Template)]
#[template(path = "text/accelerator-spellings.txt")]
struct AcceleratorSpellings {
    /// Each set of names that differ only in letter case, in words.
    sets: Vec<String>,
}

/// The accelerator names of the pairs (CPU-only ones aside) that differ from another only in
/// letter case: each such set sorted, the sets in the order of their first name.
pub fn case_variants(analysis: &Analysis) -> Vec<Vec<String>> {
    let mut by_folded: std::collections::BTreeMap<String, std::collections::BTreeSet<&str>> =
        Default::default();
    for p in &analysis.pairs {
        if let Some(name) = p.submission.accelerator_name() {
            by_folded
                .entry(name.to_lowercase())
                .or_default()
                .insert(name);
        }
    }
    let mut sets: Vec<Vec<String>> = by_folded
        .into_values()
        .filter(|s| s.len() > 1)
        .map(|s| s.into_iter().map(str::to_string).collect())
        .collect();
    sets.sort();
    sets
}

#[derive(Template)]
#[template(path = "text/agreement-hardware.txt")]
struct AgreementHardware {
    count: usize,
    names: String,
    /// How many systems were compared.
    systems: usize,
    /// How many of them list the software items most of them list, and those items in words.
    software: Option<(usize, String)>,
}

/// The word every accelerator name begins with, compared ignoring case, in the spelling most
/// names use (the first in sorted order on a tie); `None` when there are no names or they begin
/// with different words.
pub fn vendor(names: &[String]) -> Option<String> {
    let firsts: Vec<&str> = names
        .iter()
        .map(|n| n.split_whitespace().next().unwrap_or(""))
        .collect();
    let first = *firsts.first()?;
    if first.is_empty() || !firsts.iter().all(|f| f.eq_ignore_ascii_case(first)) {
        return None;
    }
    most_spelled(firsts.into_iter()).map(str::to_string)
}

#[derive(Template)]
#[template(path = "text/noise-group.txt")]
struct NoiseGroupWords<'a> {
    g: &'a NoiseGroup,
    organizations: String,
}

#[derive(Template)]
#[template(path = "text/cpu-only.txt")]
struct CpuOnly<'a> {
    pairs: usize,
    benchmarks: String,
    lowest: Option<String>,
    shifts: Vec<(&'a str, String, String)>,
    reorders: Option<(String, String)>,
}

#[derive(Template)]
#[template(path = "text/merged-labels.txt")]
struct MergedLabelsWords<'a> {
    merged: &'a [ratios_model::analysis::MergedLabels],
}

impl MergedLabelsWords<'_> {
    fn count_word(&self, n: usize) -> String {
        count_word(n).unwrap_or_else(|_| n.to_string())
    }
}

#[derive(Template)]
#[template(path = "text/rows.txt")]
struct RowsWords {
    n: usize,
    word: String,
}

/// "no rows", "one row", "12 rows".
pub(crate) fn rows_words(n: usize) -> ratios_base::error::Result<String> {
    template(
        &RowsWords {
            n,
            word: count_word(n)?,
        },
        "text/rows.txt",
    )
}

/// "all 33" when `n` is every one of `of`, else "12 of 33".
fn share(n: usize, of: usize) -> String {
    if n == of && of > 1 {
        format!("all {of}")
    } else {
        format!("{n} of {of}")
    }
}

#[derive(Template)]
#[template(path = "text/multi-node.txt")]
struct MultiNode<'a> {
    low: &'a ratios_model::analysis::robustness::BenchmarkRobustness,
    high: &'a ratios_model::analysis::robustness::BenchmarkRobustness,
    gap_all: String,
    gap_single: Option<String>,
}

/// Every value of the findings sections.
pub fn values(v: &mut Values, data: &ArticleData<'_>) -> ratios_base::error::Result<()> {
    let a = data.analysis;
    limits(v, data);
    scope(v, a)?;
    interactive(v, a)?;
    robustness(v, data)?;
    Ok(())
}

/// Whether the checker's Interactive limits are tighter than its Server limits, TTFT and TPOT,
/// for every benchmark that has pairs.
fn limits(v: &mut Values, data: &ArticleData<'_>) {
    let facts: Vec<_> = data
        .analysis
        .benchmarks
        .iter()
        .filter_map(|b| data.facts.models.get(&b.benchmark))
        .collect();
    let tighter = facts.iter().all(|m| {
        let s = &m.server_latency_limits;
        m.interactive_latency_limits
            .as_ref()
            .is_some_and(|i| i.ttft_ns < s.ttft_ns && i.tpot_ns < s.tpot_ns)
    });
    v.put(
        "limits_compared",
        if facts.is_empty() {
            "no benchmark with pairs has limits in the checker facts"
        } else if tighter {
            "both Interactive limits are tighter than the Server ones in every row"
        } else {
            "the Interactive limits are not tighter than the Server ones in every row"
        },
    );
}

/// Where the Interactive runs leave the scope, and what the `inferred` filter removes after.
fn scope(v: &mut Values, a: &Analysis) -> ratios_base::error::Result<()> {
    let at = |field: &str| {
        a.steps
            .iter()
            .position(|s| s.field.as_deref() == Some(field))
    };
    if let Some(k) = at("Scenario").filter(|&k| k > 0) {
        let (before, after) = (&a.steps[k - 1], &a.steps[k]);
        v.put(
            "interactive_at_scenario",
            before.interactive - after.interactive,
        );
    }
    if let Some(k) = at("inferred").filter(|&k| k > 0) {
        v.put(
            "inferred_removed_rows",
            rows_words(a.steps[k - 1].rows - a.steps[k].rows)?,
        );
    }
    if let Some(first) = a.steps.first() {
        v.put("interactive_rows_all", first.interactive);
    }
    let rows = 2 * a.pairs.len();
    let run1 = a
        .pairs
        .iter()
        .flat_map(|p| [&p.offline_location, &p.server_location])
        .filter(|l| l.ends_with("/run_1"))
        .count();
    v.put("pair_rows", rows);
    v.put("run1_pair_rows", run1);
    v.text(
        "merged_labels_sentence",
        &MergedLabelsWords {
            merged: &a.merged_labels,
        },
        "text/merged-labels.txt",
    )
}

#[derive(Template)]
#[template(path = "text/interactive-hardware.txt")]
struct InteractiveHardware {
    /// Whether the benchmarks' pairs ran on different sets of accelerators.
    mixed: bool,
    /// The benchmark of the lowest median, its median and pairs.
    low: String,
    median: String,
    pairs: usize,
    groups: Vec<AcceleratorGroupWords>,
}

/// One accelerator's share of a benchmark's Interactive pairs, in words.
struct AcceleratorGroupWords {
    accelerator: Option<String>,
    pairs: usize,
    organizations: String,
    min: String,
    max: String,
}

/// What the lowest Interactive median rests on, and whether the benchmarks' hardware differs.
fn interactive_hardware(a: &Analysis) -> ratios_base::error::Result<Option<String>> {
    let i = &a.interactive;
    let (Some(low), Some(hw)) = (i.benchmarks.first(), i.hardware.first()) else {
        return Ok(None);
    };
    let sets: BTreeSet<Vec<Option<&str>>> = i
        .hardware
        .iter()
        .map(|h| {
            let mut names: Vec<Option<&str>> = h
                .accelerators
                .iter()
                .map(|g| g.accelerator.as_deref())
                .collect();
            names.sort();
            names
        })
        .collect();
    let groups = hw
        .accelerators
        .iter()
        .map(|g| -> ratios_base::error::Result<AcceleratorGroupWords> {
            Ok(AcceleratorGroupWords {
                accelerator: g.accelerator.clone(),
                pairs: g.pairs,
                organizations: list_words(&g.organizations)?,
                min: percent(g.min),
                max: percent(g.max),
            })
        })
        .collect::<ratios_base::error::Result<Vec<_>>>()?;
    template(
        &InteractiveHardware {
            mixed: sets.len() > 1,
            low: low.benchmark.clone(),
            median: percent(low.median),
            pairs: low.pairs,
            groups,
        },
        "text/interactive-hardware.txt",
    )
    .map(Some)
}

/// The Interactive pairs: counts, range and medians.
fn interactive(v: &mut Values, a: &Analysis) -> ratios_base::error::Result<()> {
    let i = &a.interactive;
    v.put("interactive_rows", i.counts.interactive_rows);
    v.put("interactive_inferred", i.counts.inferred);
    v.put("interactive_pairs", i.counts.pairs);
    v.put("interactive_offline_rows", i.counts.offline_rows);
    v.put("inferred_elsewhere", i.counts.inferred_elsewhere);
    v.put(
        "interactive_inferred_share",
        share(i.counts.inferred, i.counts.interactive_rows),
    );
    v.put(
        "interactive_pairs_share",
        share(i.counts.pairs, i.counts.interactive_rows),
    );
    v.put("interactive_unmatched", i.counts.unmatched);
    v.put("interactive_over_100", i.counts.over_100);
    v.put("server_alongside_pairs", i.server_alongside.pairs);
    match interactive_hardware(a)? {
        Some(s) => v.put("interactive_hardware_sentence", s),
        None => v.missing(
            "interactive_hardware_sentence",
            "no Interactive run was paired with its Offline run",
        ),
    }
    let ratios = || i.pairs.iter().map(|p| p.ratio.0);
    let alongside = &i.server_alongside.benchmarks;
    let same = &i.server_alongside.interactive;
    match (same.first(), same.last()) {
        (Some(low), Some(high)) => v.put(
            "interactive_alongside_spread",
            points(high.median.percent() - low.median.percent()),
        ),
        _ => v.missing(
            "interactive_alongside_spread",
            "no submission has both an Interactive and a Server pair",
        ),
    }
    match (
        ratios().reduce(f64::min),
        ratios().reduce(f64::max),
        i.benchmarks.first(),
        i.benchmarks.last(),
        alongside.first(),
        alongside.last(),
    ) {
        (Some(min), Some(max), Some(low), Some(high), Some(slow), Some(shigh)) => {
            v.put("interactive_min", percent(Ratio(min)));
            v.put("interactive_max", percent(Ratio(max)));
            v.put("interactive_median_low", percent(low.median));
            v.put("interactive_median_low_benchmark", low.benchmark.clone());
            v.put("interactive_median_high", percent(high.median));
            v.put("interactive_median_high_benchmark", high.benchmark.clone());
            v.put(
                "interactive_median_spread",
                points(high.median.percent() - low.median.percent()),
            );
            v.put(
                "server_median_spread",
                points(shigh.median.percent() - slow.median.percent()),
            );
        }
        _ => v.missing_all(
            [
                "interactive_min",
                "interactive_max",
                "interactive_median_low",
                "interactive_median_low_benchmark",
                "interactive_median_high",
                "interactive_median_high_benchmark",
                "interactive_median_spread",
                "server_median_spread",
            ],
            "no Interactive run was paired with its Offline run",
        ),
    }
    Ok(())
}

/// CPU-only systems, node counts, the noise floor, the other systems' order and the verdict.
fn robustness(v: &mut Values, data: &ArticleData<'_>) -> ratios_base::error::Result<()> {
    let a = data.analysis;
    let r = &a.robustness;
    v.put("cpu_pairs", r.cpu_only_pairs);
    // How the lowest and highest medians' benchmarks split by node count.
    if let (Some(low), Some(high)) = (r.benchmarks.first(), r.benchmarks.last()) {
        v.text(
            "multi_node_sentence",
            &MultiNode {
                low,
                high,
                gap_all: points(high.median.percent() - low.median.percent()),
                gap_single: low
                    .median_single_node
                    .zip(high.median_single_node)
                    .map(|(l, h)| points(h.percent() - l.percent())),
            },
            "text/multi-node.txt",
        )?;
    } else {
        v.missing("multi_node_sentence", "no pair was matched");
    }
    // Each benchmark's median without the CPU-only pairs, where they have any, and whether
    // leaving them out changes the benchmarks' order by median.
    let shifts: Vec<(&str, String, String)> = r
        .benchmarks
        .iter()
        .filter(|b| b.cpu_only > 0)
        .filter_map(|b| {
            b.median_without_cpu_only
                .map(|w| (b.benchmark.as_str(), percent(w), percent(b.median)))
        })
        .collect();
    let order_with: Vec<&str> = r.benchmarks.iter().map(|b| b.benchmark.as_str()).collect();
    let mut without: Vec<(f64, &str)> = r
        .benchmarks
        .iter()
        .filter_map(|b| {
            b.median_without_cpu_only
                .map(|m| (m.0, b.benchmark.as_str()))
        })
        .collect();
    without.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(y.1)));
    let order_without: Vec<&str> = without.iter().map(|(_, b)| *b).collect();
    let reorders = (order_without.len() == order_with.len() && order_without != order_with)
        .then(|| -> ratios_base::error::Result<(String, String)> {
            let words =
                |o: &[&str]| list_words(&o.iter().map(|s| s.to_string()).collect::<Vec<_>>());
            Ok((words(&order_with)?, words(&order_without)?))
        })
        .transpose()?;
    let cpu_benchmarks: Vec<String> = r
        .benchmarks
        .iter()
        .filter(|b| b.cpu_only > 0)
        .map(|b| b.benchmark.clone())
        .collect();
    let lowest_is_cpu = a
        .pairs
        .iter()
        .min_by(|x, y| x.ratio.0.total_cmp(&y.ratio.0))
        .filter(|p| p.submission.cpu_only)
        .map(|p| percent(p.ratio));
    v.text(
        "cpu_sentence",
        &CpuOnly {
            pairs: r.cpu_only_pairs,
            benchmarks: list_words(&cpu_benchmarks)?,
            lowest: lowest_is_cpu,
            shifts,
            reorders,
        },
        "text/cpu-only.txt",
    )?;

    let noise = &r.noise;
    v.put("noise_groups", noise.groups.len());
    let quoted = |set: &Vec<String>| -> ratios_base::error::Result<String> {
        list_words(&set.iter().map(|n| format!("“{n}”")).collect::<Vec<_>>())
    };
    v.text(
        "accelerator_spellings",
        &AcceleratorSpellings {
            sets: case_variants(a)
                .iter()
                .map(quoted)
                .collect::<ratios_base::error::Result<_>>()?,
        },
        "text/accelerator-spellings.txt",
    )?;
    v.put(
        "noise_two_pair_groups",
        noise.groups.iter().filter(|g| g.pairs == 2).count(),
    );
    let span = data.highlights.span_pp;
    let wider = noise.groups.iter().filter(|g| g.spread_pp > span).count();
    v.put("noise_wider", wider);
    v.put("noise_narrower", noise.groups.len() - wider);
    let widest = noise
        .groups
        .first()
        .map(|g| {
            template(
                &NoiseGroupWords {
                    g,
                    organizations: count_word(g.organizations.len())?,
                },
                "text/noise-group.txt",
            )
        })
        .transpose()?;
    match (noise.median_spread_pp, &widest) {
        (Some(m), Some(w)) => {
            v.put("noise_median", points(m));
            v.put("noise_max", points(noise.max_spread_pp.unwrap_or(m)));
            v.put("noise_max_group", w.clone());
        }
        _ => v.missing_all(
            ["noise_median", "noise_max", "noise_max_group"],
            "no benchmark has pairs of one hardware configuration from two organisations",
        ),
    }

    // Whether the widest group holds a pair of the highlighted system (the span group).
    let widest_holds_span = noise.groups.first().is_some_and(|g| {
        data.highlights
            .highlights
            .iter()
            .filter(|h| h.in_span)
            .filter_map(|h| a.pair(h.offline_id))
            .any(|p| {
                p.submission.benchmark == g.benchmark
                    && p.submission.hardware()
                        == Some((
                            g.accelerator.to_lowercase(),
                            g.accelerators_per_node,
                            g.nodes,
                        ))
            })
    });
    let ag = &data.highlights.agreement;
    v.text(
        "agree_hardware",
        &AgreementHardware {
            count: ag.accelerators.len(),
            names: list_words(&ag.accelerators)?,
            systems: ag.systems,
            software: ag
                .shared_software
                .as_ref()
                .map(|s| -> ratios_base::error::Result<(usize, String)> {
                    let quoted: Vec<String> = s.items.iter().map(|i| format!("“{i}”")).collect();
                    Ok((s.systems, list_words(&quoted)?))
                })
                .transpose()?,
        },
        "text/agreement-hardware.txt",
    )?;
    v.put("agree_systems", ag.systems);
    v.put("agree_same_order", ag.same_order);
    v.put("agree_same_lowest", ag.same_lowest);
    v.put("agree_benchmarks", list_words(&ag.order)?);
    match ag.order.first() {
        Some(b) => v.put("agree_lowest", b.clone()),
        None => v.missing("agree_lowest", "the span group has no pair"),
    }
    let words = VerdictWords {
        verdict: Verdict::of(wider, &data.highlights.agreement),
        systems: ag.systems,
        same_order: ag.same_order,
        count: count_word(ag.order.len())?,
        lowest: ag.order.first().cloned().unwrap_or_default(),
        groups: noise.groups.len(),
        wider,
        noise_max: noise.max_spread_pp.map(points),
        widest,
        widest_holds_span,
        vendor: vendor(&ag.accelerators),
        software: ag
            .shared_software
            .as_ref()
            .map(|s| count_word(s.items.len()).map(|items| (s.systems, items)))
            .transpose()?,
    };
    v.text(
        "span_verdict",
        &SpanVerdict { w: &words },
        "text/span-verdict.txt",
    )?;
    v.text(
        "robustness_verdict",
        &RobustnessVerdict { w: &words },
        "text/robustness-verdict.txt",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agreement(systems: usize, same_order: usize, same_lowest: usize) -> Agreement {
        Agreement {
            order: vec!["a".into(), "b".into(), "c".into()],
            systems,
            same_order,
            same_lowest,
            ambiguous: 0,
            accelerators: Vec::new(),
            shared_software: None,
            own_hardware: None,
        }
    }

    #[test]
    fn the_verdict_follows_the_figures() {
        // Everyone agrees and no group of one benchmark and hardware spreads wider.
        assert_eq!(Verdict::of(0, &agreement(5, 5, 5)), Verdict::Workload);
        // Everyone agrees, but one group's organisations lie further apart.
        assert_eq!(
            Verdict::of(1, &agreement(5, 5, 5)),
            Verdict::LowestEverywhere
        );
        // The lowest agrees everywhere, the full order does not.
        assert_eq!(
            Verdict::of(0, &agreement(13, 8, 13)),
            Verdict::LowestEverywhere
        );
        assert_eq!(Verdict::of(0, &agreement(13, 8, 12)), Verdict::Majority);
        assert_eq!(Verdict::of(0, &agreement(4, 2, 3)), Verdict::NotShared);
        assert_eq!(Verdict::of(0, &agreement(0, 0, 0)), Verdict::Untested);
    }

    #[test]
    fn the_vendor_is_the_first_word_all_names_share() {
        let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            vendor(&names(&["NVIDIA B200", "Nvidia B300", "NVIDIA GB200"])),
            Some("NVIDIA".into())
        );
        assert_eq!(vendor(&names(&["Nvidia B300"])), Some("Nvidia".into()));
        assert_eq!(vendor(&names(&["NVIDIA B200", "AMD MI355X"])), None);
        assert_eq!(vendor(&names(&[])), None);
        assert_eq!(vendor(&names(&["", "NVIDIA B200"])), None);
    }
}
