//! The article's data files: `results.json` (the analysis as the article and reviewers read it),
//! `selected_rows.json` (every source field of the highlighted rows), and `pairs.csv` and
//! `interactive_pairs.csv` (every matched pair as a spreadsheet row, with text cells made safe to
//! open).

use serde::Serialize;

use ratios_base::error::{Error, Result};
use ratios_base::json;
use ratios_base::layout::OutputFile;
use ratios_model::analysis::{Analysis, Submission};
use ratios_model::evidence::pair_logs::{PairLog, PairLogs, RowLog};
use ratios_model::evidence::Checks;
use ratios_model::highlight::Highlights;
use ratios_model::project::claims::Note;
use ratios_model::summary::{self, Summary};

/// `results.json`: the analysis, as the article and reviewers read it.
#[derive(Serialize)]
struct ResultsFile<'a> {
    title: &'a str,
    #[serde(flatten)]
    analysis: &'a Analysis,
    #[serde(flatten)]
    highlights: &'a Highlights,
    checks: &'a Checks,
    /// What the pairs' LoadGen logs show (each pair's figures are in `pairs.csv`).
    logs: &'a PairLogs,
    /// The claims the prose cites, each with the pinned lines that bear it out.
    claims: &'a [Note],
    /// Each earlier round, analysed as the article's own (its pairs' log figures are in
    /// `pairs.csv`).
    previous_rounds: Vec<PreviousRound<'a>>,
    /// The article's round against each earlier one.
    across_rounds: &'a [ratios_model::across::AcrossRounds],
}

/// An earlier round in `results.json`: its analysis and what its pairs' logs show.
#[derive(Serialize)]
struct PreviousRound<'a> {
    #[serde(flatten)]
    analysis: &'a Analysis,
    logs: &'a PairLogs,
}

/// `results.json` of the analysis, its highlights and checks, and the checked claims, under the
/// article's `title`; then each earlier round and the comparison with it.
#[allow(clippy::too_many_arguments)]
pub fn results_json(
    title: &str,
    analysis: &Analysis,
    highlights: &Highlights,
    checks: &Checks,
    logs: &PairLogs,
    claims: &[Note],
    previous: &[ratios_model::across::RoundResults],
    across: &[ratios_model::across::AcrossRounds],
) -> Result<Vec<u8>> {
    json::pretty(
        &ResultsFile {
            title,
            analysis,
            highlights,
            checks,
            logs,
            claims,
            previous_rounds: previous
                .iter()
                .map(|r| PreviousRound {
                    analysis: &r.analysis,
                    logs: &r.logs,
                })
                .collect(),
            across_rounds: across,
        },
        OutputFile::Results.path(),
    )
}

/// One highlighted row with every source field, for `selected_rows.json`.
#[derive(Serialize)]
struct SelectedRow<'a> {
    id: summary::RowId,
    highlight: &'a str,
    scenario: &'a str,
    /// Typed values as summary.json holds them.
    json: serde_json::Map<String, serde_json::Value>,
    /// Raw text as summary.csv holds it.
    csv: serde_json::Map<String, serde_json::Value>,
}

/// `selected_rows.json`: the Offline and the Server row of each highlight, with every field as
/// summary.json types it and as summary.csv writes it.
pub fn selected_rows_json(summary: &Summary, highlights: &Highlights) -> Result<Vec<u8>> {
    let mut selected = Vec::new();
    for h in &highlights.highlights {
        for id in [h.offline_id, h.server_id] {
            let row = &summary.rows[id.0 as usize];
            selected.push(SelectedRow {
                id,
                highlight: &h.label,
                scenario: row.raw(summary::Field::Scenario),
                json: row
                    .cells()
                    .map(|(f, c)| (f.name().to_string(), c.to_json()))
                    .collect(),
                csv: row
                    .cells()
                    .map(|(f, c)| (f.name().to_string(), c.raw.into()))
                    .collect(),
            });
        }
    }
    json::pretty(&selected, OutputFile::SelectedRows.path())
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

/// Where the results tree of a round lives: a repository and commit, for links to each row's
/// `Location` folder.
#[derive(Debug, Clone, Copy)]
pub struct ResultsTree<'a> {
    /// The GitHub repository of the round's summary, as `<owner>/<repo>`.
    pub repository: &'a str,
    /// The commit its summary is pinned at, at which the links open each folder.
    pub commit: &'a str,
}

impl ResultsTree<'_> {
    /// The folder `location` (`./closed/...`) at this commit on GitHub, when it is a safe
    /// relative path; else an empty cell.
    pub fn folder_url(&self, location: &str) -> String {
        let rel = location.strip_prefix("./").unwrap_or(location);
        if ratios_base::layout::is_safe_relative(rel) {
            format!(
                "https://github.com/{}/tree/{}/{}",
                self.repository,
                self.commit,
                ratios_base::text::url_path(rel)
            )
        } else {
            String::new()
        }
    }
}

/// A number's cell, empty without one.
fn int(x: Option<impl std::fmt::Display>) -> String {
    x.map_or(String::new(), |n| n.to_string())
}

/// The columns both CSV files give each submission, after the two row IDs.
const SUBMISSION_COLUMNS: [&str; 10] = [
    "organization",
    "system_name",
    "platform",
    "model",
    "benchmark",
    "accelerator",
    "nodes",
    "accelerators_per_node",
    "total_accelerators",
    "cpu_only",
];

fn submission_cells(s: &Submission) -> [String; 10] {
    [
        spreadsheet_safe(&s.organization),
        spreadsheet_safe(&s.system_name),
        spreadsheet_safe(&s.platform),
        spreadsheet_safe(&s.model),
        spreadsheet_safe(&s.benchmark),
        spreadsheet_safe(s.accelerator.as_deref().unwrap_or("")),
        int(s.nodes),
        int(s.accelerators_per_node),
        int(s.total_accelerators),
        s.cpu_only.to_string(),
    ]
}

/// Writes `header` then every record to a CSV in memory.
fn write_csv(
    file: &str,
    header: Vec<&str>,
    records: impl Iterator<Item = Vec<String>>,
) -> Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let fail = |message: String| Error::Serialise {
        file: file.into(),
        message,
    };
    w.write_record(header).map_err(|e| fail(e.to_string()))?;
    for r in records {
        w.write_record(r).map_err(|e| fail(e.to_string()))?;
    }
    w.into_inner().map_err(|e| fail(e.to_string()))
}

/// One round's pairs as the CSV files give them: its analysis, its pairs' logs and where its
/// results tree lives.
#[derive(Clone, Copy)]
pub struct RoundTable<'a> {
    /// The round's analysis: its pairs and their ratios.
    pub analysis: &'a Analysis,
    /// Its pairs checked against their LoadGen logs.
    pub logs: &'a PairLogs,
    /// Where its results tree lives, for each row's folder link.
    pub tree: ResultsTree<'a>,
}

/// `pairs.csv`: the rows of the pairs table, round by round (the article's first; a row names its
/// round, and its row ids are its round summary's), with each row's folder in the results tree
/// and the id of the highlight (figure 3's bar) a pair of the article's round is, if any. Text
/// cells pass through [`spreadsheet_safe`].
pub fn pairs_csv(
    rounds: &[RoundTable<'_>],
    highlights: &ratios_model::highlight::Highlights,
) -> Result<Vec<u8>> {
    let header: Vec<&str> = ["round", "offline_id", "server_id", "highlight"]
        .into_iter()
        .chain(SUBMISSION_COLUMNS)
        .chain([
            "offline_location",
            "server_location",
            "offline_url",
            "server_url",
            "offline_tokens_per_s",
            "server_tokens_per_s",
            "ratio",
            "ratio_percent",
        ])
        .chain(LOG_COLUMNS)
        .collect();
    write_csv(
        "pairs.csv",
        header,
        rounds.iter().enumerate().flat_map(|(k, r)| {
            let (analysis, logs, tree) = (r.analysis, r.logs, r.tree);
            analysis.pairs.iter().map(move |p| {
                let highlight = highlights
                    .highlights
                    .iter()
                    .filter(|_| k == 0)
                    .find(|h| h.offline_id == p.offline_id)
                    .map_or(String::new(), |h| h.id.clone());
                [
                    spreadsheet_safe(&analysis.round),
                    p.offline_id.to_string(),
                    p.server_id.to_string(),
                    highlight,
                ]
                .into_iter()
                .chain(submission_cells(&p.submission))
                .chain([
                    spreadsheet_safe(&p.offline_location),
                    spreadsheet_safe(&p.server_location),
                    tree.folder_url(&p.offline_location),
                    tree.folder_url(&p.server_location),
                    format!("{}", p.offline),
                    format!("{}", p.server),
                    format!("{}", p.ratio.0),
                    format!("{:.2}", p.ratio.percent()),
                ])
                .chain(log_cells(logs.pair(p.offline_id)))
                .collect()
            })
        }),
    )
}

/// The columns of `pairs.csv` read from the pair's two LoadGen summary logs (empty where the
/// pinned copy of the results tree holds no log): whether its logs were checked, what the
/// Server run was scheduled at and completed, the Offline run's rate, tokens per sample, the
/// p99 latencies against their limits, the three factors of the ratio, the ratio without the drain and what each log counts.
/// `docs` and the bundle's README give each column's unit.
pub(crate) const LOG_COLUMNS: [&str; 27] = [
    "logs",
    "target_qps",
    "scheduled_samples_per_s",
    "completed_samples_per_s",
    "offline_samples_per_s",
    "server_tokens_per_sample",
    "offline_tokens_per_sample",
    "load_factor",
    "drain_factor",
    "length_factor",
    "factor_product",
    "drain_free_ratio",
    "p99_ttft_ms",
    "ttft_limit_ms",
    "ttft_share",
    "p99_tpot_ms",
    "tpot_limit_ms",
    "tpot_share",
    "near_limit",
    "target_step_percent",
    "offline_log_errors",
    "offline_log_warnings",
    "server_log_errors",
    "server_log_warnings",
    "server_log_negative_min_ttft",
    "offline_log_agrees",
    "server_log_agrees",
];

/// The [`LOG_COLUMNS`] cells of one pair.
fn log_cells(log: Option<&PairLog>) -> Vec<String> {
    let Some(log) = log else {
        return vec![String::new(); LOG_COLUMNS.len()];
    };
    let row = |r: &Option<RowLog>| -> [String; 3] {
        match r {
            None => Default::default(),
            Some(r) => [int(r.errors), int(r.warnings), r.passes().to_string()],
        }
    };
    let [offline_errors, offline_warnings, offline_agrees] = row(&log.offline);
    let [server_errors, server_warnings, server_agrees] = row(&log.server);
    let status = match (&log.offline, &log.server) {
        (Some(_), Some(_)) => "both",
        (None, None) => "none",
        _ => "one",
    };
    let negative = log
        .server
        .as_ref()
        .map_or(String::new(), |r| r.negative_min_ttft.to_string());
    let mut cells = vec![status.to_string()];
    match &log.factors {
        None => cells.extend(std::iter::repeat_n(String::new(), 19)),
        Some(f) => cells.extend([
            f.target_qps.clone(),
            format!("{}", f.scheduled_samples_per_s),
            format!("{}", f.completed_samples_per_s),
            format!("{}", f.offline_samples_per_s),
            format!("{}", f.server_tokens_per_sample),
            format!("{}", f.offline_tokens_per_sample),
            format!("{}", f.load),
            format!("{}", f.drain),
            format!("{}", f.length),
            format!("{}", f.product),
            format!("{}", f.drain_free),
            format!("{}", f.p99_ttft_ms),
            format!("{}", f.ttft_limit_ms),
            format!("{}", f.ttft_share),
            format!("{}", f.p99_tpot_ms),
            format!("{}", f.tpot_limit_ms),
            format!("{}", f.tpot_share),
            f.binding.unwrap_or_default().to_string(),
            format!("{}", 100.0 * f.unit_share),
        ]),
    }
    cells.extend([
        offline_errors,
        offline_warnings,
        server_errors,
        server_warnings,
        negative,
        offline_agrees,
        server_agrees,
    ]);
    cells
}

/// `interactive_pairs.csv`: every Offline/Interactive pair, round by round, as `pairs.csv` gives
/// the Server pairs.
pub fn interactive_pairs_csv(rounds: &[RoundTable<'_>]) -> Result<Vec<u8>> {
    let header: Vec<&str> = ["round", "offline_id", "interactive_id"]
        .into_iter()
        .chain(SUBMISSION_COLUMNS)
        .chain([
            "offline_location",
            "interactive_location",
            "offline_url",
            "interactive_url",
            "offline_tokens_per_s",
            "interactive_tokens_per_s",
            "ratio",
            "ratio_percent",
        ])
        .collect();
    write_csv(
        "interactive_pairs.csv",
        header,
        rounds.iter().flat_map(|r| {
            let (analysis, tree) = (r.analysis, r.tree);
            analysis.interactive.pairs.iter().map(move |p| {
                [
                    spreadsheet_safe(&analysis.round),
                    p.offline_id.to_string(),
                    p.interactive_id.to_string(),
                ]
                .into_iter()
                .chain(submission_cells(&p.submission))
                .chain([
                    spreadsheet_safe(&p.offline_location),
                    spreadsheet_safe(&p.interactive_location),
                    tree.folder_url(&p.offline_location),
                    tree.folder_url(&p.interactive_location),
                    format!("{}", p.offline),
                    format!("{}", p.interactive),
                    format!("{}", p.ratio.0),
                    format!("{:.2}", p.ratio.percent()),
                ])
                .collect()
            })
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
