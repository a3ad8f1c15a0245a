//! `pairs.csv`: every matched pair as a spreadsheet row, with text cells made safe to open.

use crate::analysis::Analysis;
use crate::error::{Error, Result};

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
