//! The earlier round on the page: the sentences that set it beside the article's round (each
//! worded by the figures, from `templates/text/rounds-*.txt`), figures 4 and 5, and the
//! tables of the Method and the data page: how each round's summary gives the schema's fields,
//! its filters step by step, its pairs, the results it submitted twice, and the systems found in
//! both rounds.

use askama::Template;

use super::catalogue::{Blocks, Values};
use super::{template, ArticleData};
use ratios_base::error::Result;
use ratios_base::number::{percent, tokens};
use ratios_base::text::breakable;
use ratios_model::across::{AcrossRounds, RoundResults};
use ratios_model::project::rounds::FieldSource;
use ratios_model::summary::Field;

#[derive(Template)]
#[template(path = "text/rounds-heading.txt")]
struct Heading<'a> {
    a: &'a AcrossRounds,
    benchmark: &'a str,
}

#[derive(Template)]
#[template(path = "text/rounds-finding.txt")]
struct Finding<'a> {
    a: &'a AcrossRounds,
    r: &'a RoundResults,
    benchmark: &'a str,
    /// The earlier round's lowest count, and the article's.
    before: Option<&'a ratios_model::across::RoundLowest>,
    /// The shared benchmarks by median, lowest first, in the earlier round.
    order: String,
}

#[derive(Template)]
#[template(path = "text/rounds-mechanism.txt")]
struct Mechanism<'a> {
    /// Words how the ratios moved between the rounds, rather than the load's share.
    change: bool,
    a: &'a AcrossRounds,
    benchmark: &'a str,
    /// The load's share of the lowest benchmark's gap in each round, earlier first.
    shares: Vec<(String, String)>,
    /// Its median load in each round, earlier first.
    loads: Vec<String>,
    /// The benchmark's median in each round, earlier first.
    medians: Option<[String; 2]>,
    /// Of the system-benchmark rows in both rounds, how many kept more in the article's round.
    rose: usize,
    rows: usize,
}

#[derive(Template)]
#[template(path = "text/rounds-split.txt")]
struct Split<'a> {
    /// Each round's split: its name, whether each factor is significant at 1 %.
    rounds: Vec<(&'a str, bool, bool)>,
}

#[derive(Template)]
#[template(path = "text/previous-logs.txt")]
struct PreviousLogs<'a> {
    logs: &'a ratios_model::evidence::pair_logs::PairLogs,
    round: &'a str,
    main: &'a str,
    /// Each failing row with what failed, in words.
    failing: Vec<String>,
}

/// The values of the earlier round (the first, when several are declared); none are put when
/// there is none, so prose that names them fails the build with the reason.
pub fn values(v: &mut Values, data: &ArticleData<'_>) -> Result<()> {
    let names = [
        "previous_round",
        "rounds_heading",
        "rounds_finding",
        "rounds_split",
        "rounds_mechanism",
        "rounds_change",
        "previous_pairs",
        "previous_duplicates",
        "previous_rows",
        "previous_logs_sentence",
        "same_model_lax",
        "same_model_strict",
    ];
    let (Some(a), Some(r)) = (data.across.first(), data.previous.first()) else {
        v.missing_all(names, "data/rounds.json declares no earlier round");
        return Ok(());
    };
    let benchmark = data
        .analysis
        .benchmarks
        .first()
        .map_or("", |b| b.benchmark.as_str());
    v.put("previous_round", a.previous.clone());
    v.text(
        "rounds_heading",
        &Heading { a, benchmark },
        "text/rounds-heading.txt",
    )?;
    let mut by_median: Vec<&ratios_model::across::SharedMedian> = a.medians.iter().collect();
    by_median.sort_by(|x, y| x.median[0].total_cmp(&y.median[0]));
    let order: Vec<String> = by_median.iter().map(|m| m.benchmark.clone()).collect();
    v.text(
        "rounds_finding",
        &Finding {
            a,
            r,
            benchmark,
            before: a.lowest.first().filter(|l| l.round == a.previous),
            order: super::words::list_words(&order)?,
        },
        "text/rounds-finding.txt",
    )?;
    let significant = |p: f64| p < super::story::SIGNIFICANCE;
    v.text(
        "rounds_split",
        &Split {
            rounds: a
                .split
                .iter()
                .map(|s| {
                    (
                        s.round.as_str(),
                        significant(s.system_p),
                        significant(s.benchmark_p),
                    )
                })
                .collect(),
        },
        "text/rounds-split.txt",
    )?;
    let rows: Vec<&ratios_model::across::BothRatios> =
        a.systems.iter().flat_map(|s| &s.benchmarks).collect();
    // One set of figures, worded twice: the load's share (`rounds_mechanism`) and how the
    // ratios moved (`rounds_change`).
    let mut words = Mechanism {
        change: false,
        a,
        benchmark,
        shares: a
            .mechanism
            .iter()
            .filter_map(|m| Some((m.round.clone(), percent(m.shares?[0]))))
            .collect(),
        loads: a
            .mechanism
            .iter()
            .filter_map(|m| m.median_load.map(percent))
            .collect(),
        medians: a
            .medians
            .iter()
            .find(|m| m.benchmark == benchmark)
            .map(|m| m.median.map(percent)),
        rose: rows.iter().filter(|b| b.current > b.previous).count(),
        rows: rows.len(),
    };
    v.text("rounds_mechanism", &words, "text/rounds-mechanism.txt")?;
    words.change = true;
    v.text("rounds_change", &words, "text/rounds-mechanism.txt")?;
    v.put("previous_pairs", r.analysis.counts.pairs);
    v.put("previous_duplicates", r.analysis.counts.duplicates);
    v.put(
        "previous_rows",
        ratios_base::number::grouped(r.analysis.counts.rows as f64, 0),
    );
    match r.spec.same_model.first() {
        Some([lax, strict]) => {
            v.put("same_model_lax", lax.clone());
            v.put("same_model_strict", strict.clone());
        }
        None => v.missing_all(
            ["same_model_lax", "same_model_strict"],
            "the earlier round declares no benchmarks that are one model",
        ),
    }
    v.text(
        "previous_logs_sentence",
        &PreviousLogs {
            logs: &r.logs,
            round: &r.analysis.round,
            main: &data.analysis.round,
            failing: super::story::failing_rows(&r.logs)?,
        },
        "text/previous-logs.txt",
    )
}

#[derive(Template)]
#[template(path = "blocks/figure-rounds.html")]
struct FigureRounds<'a> {
    wide: &'a str,
    narrow: &'a str,
    previous: &'a str,
    current: &'a str,
}

/// How each field of the schema is read in each round.
struct MappingRow {
    field: &'static str,
    /// One cell per round, in the declared order.
    sources: Vec<String>,
}

#[derive(Template)]
#[template(path = "blocks/round-mapping.html")]
struct Mapping<'a> {
    rounds: Vec<&'a str>,
    rows: Vec<MappingRow>,
    /// Each round's further key fields and ignored fields, in words.
    extra: Vec<(&'a str, String, String)>,
}

/// A pair of the earlier round as its table prints it.
struct PreviousPair<'a> {
    pair: &'a ratios_model::analysis::Pair,
    system: String,
    offline: String,
    server: String,
    ratio: String,
}

#[derive(Template)]
#[template(path = "blocks/previous-pairs.html")]
struct PreviousPairs<'a> {
    round: &'a str,
    rows: Vec<PreviousPair<'a>>,
    benchmarks: Vec<(String, usize, String, String, String)>,
    duplicates: &'a [ratios_model::analysis::Duplicate],
    interactive_duplicates: usize,
    steps: &'a [ratios_model::analysis::Step],
}

#[derive(Template)]
#[template(path = "blocks/across-systems.html")]
struct AcrossSystems<'a> {
    a: &'a AcrossRounds,
    rows: Vec<(String, String, String, String, String, String)>,
}

#[derive(Template)]
#[template(path = "blocks/figure-interactive.html")]
struct FigureInteractive<'a> {
    wide: &'a str,
    narrow: &'a str,
    /// Benchmark, pairs, Server median, Interactive median.
    rows: Vec<(String, usize, String, String)>,
}

/// Figure 5 with its numbers; empty when no benchmark has both Server and Interactive pairs.
fn figure_interactive(data: &ArticleData<'_>) -> Result<String> {
    let Some((wide, narrow)) = &data.figures.interactive else {
        return Ok(String::new());
    };
    let rows = data
        .analysis
        .interactive
        .server_alongside
        .both()
        .map(|(s, i)| {
            (
                s.benchmark.clone(),
                i.pairs,
                percent(s.median.0),
                percent(i.median.0),
            )
        })
        .collect();
    template(
        &FigureInteractive {
            wide: &wide.0,
            narrow: &narrow.0,
            rows,
        },
        "blocks/figure-interactive.html",
    )
}

/// The earlier round's blocks: figure 4, the field mapping, its pairs and the systems in both
/// rounds, each empty without an earlier round; and figure 5, the Interactive medians.
pub fn blocks(data: &ArticleData<'_>, out: &mut Blocks) -> Result<()> {
    out.insert("figure-interactive".into(), figure_interactive(data)?);
    let names = [
        "figure-rounds",
        "round-mapping",
        "previous-pairs",
        "across-systems",
    ];
    let (Some(a), Some(r)) = (data.across.first(), data.previous.first()) else {
        for name in names {
            out.insert(name.to_string(), String::new());
        }
        return Ok(());
    };
    let figure = match &data.figures.rounds {
        Some((wide, narrow)) => template(
            &FigureRounds {
                wide: &wide.0,
                narrow: &narrow.0,
                previous: &a.previous,
                current: &a.round,
            },
            "blocks/figure-rounds.html",
        )?,
        None => String::new(),
    };
    out.insert("figure-rounds".into(), figure);
    let specs: Vec<&ratios_model::project::rounds::RoundSpec> = std::iter::once(data.rounds.main())
        .chain(data.previous.iter().map(|r| &r.spec))
        .collect();
    let rows = Field::ALL
        .iter()
        .map(|f| MappingRow {
            field: f.name(),
            sources: specs
                .iter()
                .map(|spec| match spec.fields.get(f.name()) {
                    Some(FieldSource::Field(name)) => name.clone(),
                    Some(FieldSource::Product { product }) => {
                        format!("{} × {}", product[0], product[1])
                    }
                    _ => "–".into(),
                })
                .collect(),
        })
        .collect();
    let extra = specs
        .iter()
        .map(|spec| {
            (
                spec.round.as_str(),
                spec.extra_key_fields.join(", "),
                spec.ignored_fields
                    .keys()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", "),
            )
        })
        .collect();
    out.insert(
        "round-mapping".into(),
        template(
            &Mapping {
                rounds: specs.iter().map(|s| s.round.as_str()).collect(),
                rows,
                extra,
            },
            "blocks/round-mapping.html",
        )?,
    );
    out.insert(
        "previous-pairs".into(),
        template(
            &PreviousPairs {
                round: &r.analysis.round,
                rows: r
                    .analysis
                    .pairs
                    .iter()
                    .map(|p| PreviousPair {
                        pair: p,
                        system: breakable(&format!(
                            "{} ({})",
                            p.submission.system_label().trim(),
                            p.submission.platform
                        )),
                        offline: tokens(p.offline),
                        server: tokens(p.server),
                        ratio: percent(p.ratio),
                    })
                    .collect(),
                benchmarks: r
                    .analysis
                    .benchmarks
                    .iter()
                    .map(|b| {
                        (
                            b.benchmark.clone(),
                            b.pairs,
                            percent(b.min),
                            percent(b.median),
                            percent(b.max),
                        )
                    })
                    .collect(),
                duplicates: &r.analysis.duplicates,
                interactive_duplicates: r.analysis.interactive.duplicates.len(),
                steps: &r.analysis.steps,
            },
            "blocks/previous-pairs.html",
        )?,
    );
    out.insert(
        "across-systems".into(),
        template(
            &AcrossSystems {
                a,
                rows: a
                    .systems
                    .iter()
                    .map(|s| {
                        let shared: Vec<String> = s
                            .benchmarks
                            .iter()
                            .map(|b| {
                                format!(
                                    "{}: {} → {}",
                                    b.benchmark,
                                    percent(b.previous),
                                    percent(b.current)
                                )
                            })
                            .collect();
                        (
                            breakable(&s.organization),
                            breakable(s.system_name.trim()),
                            breakable(s.previous_system_name.trim()),
                            s.matched_by.to_string(),
                            breakable(&s.configuration),
                            if shared.is_empty() {
                                "no benchmark in both".into()
                            } else {
                                shared.join("; ")
                            },
                        )
                    })
                    .collect(),
            },
            "blocks/across-systems.html",
        )?,
    );
    Ok(())
}
