//! The text `scenario-ratios explain` prints: the scope walk-through (rows left after each
//! filter), the matching outcome with the first unmatched rows and why, the highlights, the
//! pairs' LoadGen logs and factors, and the split between system and benchmark.

use askama::Template;

use ratios_base::error::Result;
use ratios_base::text::short_commit;
use ratios_model::analysis::split::SystemAndBenchmark;
use ratios_model::analysis::{self, Analysis};
use ratios_model::evidence::pair_logs::PairLogs;
use ratios_model::highlight::Highlights;
use ratios_model::inputs::{InputKind, InputManifest};

/// How many unmatched rows the text lists before counting the rest.
const SHOWN: usize = 20;

#[derive(Template)]
#[template(path = "explain.txt")]
struct Explain<'a> {
    csv: String,
    json: String,
    analysis: &'a Analysis,
    non_key: String,
    shown: &'a [analysis::Unmatched],
    hidden: usize,
    highlights: &'a Highlights,
    key_fields: usize,
    logs: &'a PairLogs,
    split: &'a SystemAndBenchmark,
}

impl Explain<'_> {
    /// Row ids in words: `none`, or the ids joined by commas.
    fn ids(&self, ids: &[ratios_model::summary::RowId]) -> String {
        if ids.is_empty() {
            return "none".into();
        }
        ids.iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The walk-through of `analysis` and `highlights`, naming the summaries as `manifest` pins
/// them.
pub fn render(
    analysis: &Analysis,
    highlights: &Highlights,
    logs: &PairLogs,
    manifest: &InputManifest,
) -> Result<String> {
    let a = analysis;
    let pin = |k: InputKind| {
        manifest.single(k).map_or(String::from("?"), |p| {
            format!("{} at {}", p.name, short_commit(&p.commit))
        })
    };
    let e = Explain {
        csv: pin(InputKind::SummaryCsv),
        json: pin(InputKind::SummaryJson),
        analysis: a,
        non_key: analysis::NON_KEY_FIELDS
            .iter()
            .map(|f| f.name())
            .collect::<Vec<_>>()
            .join(", "),
        shown: &a.unmatched[..a.unmatched.len().min(SHOWN)],
        hidden: a.unmatched.len().saturating_sub(SHOWN),
        highlights,
        key_fields: a.key_fields.len(),
        logs,
        split: &a.split,
    };
    ratios_base::template::render(&e, "templates/explain.txt")
}
