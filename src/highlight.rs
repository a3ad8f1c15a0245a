//! The article's choice of pairs to show: each highlight of `content/article.json` selects exactly
//! one matched pair by organisation, platform and model, no two select the same pair, and the
//! highlights of one system (the span selector) give the spread the lede reports.

use serde::Serialize;

use crate::analysis::{Analysis, Pair, Ratio};
use crate::config::{ArticleConfig, PairSelector, CONFIG_PATH};
use crate::error::{Error, Result};
use crate::summary::RowId;

/// A configured highlight and the pair it selected.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Highlight {
    pub id: String,
    pub label: String,
    pub offline_id: RowId,
    pub server_id: RowId,
    pub ratio: Ratio,
    /// True when the highlight belongs to the group whose spread is `span_pp`.
    pub in_span: bool,
}

/// The highlights and the spread of the span group.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Highlights {
    pub highlights: Vec<Highlight>,
    /// Largest minus smallest ratio among the span group's highlights, in percentage points.
    pub span_pp: f64,
}

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
            in_span: pair.organization == config.span.organization
                && pair.platform == config.span.platform,
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
    let max = span.iter().copied().fold(f64::MIN, f64::max);
    let min = span.iter().copied().fold(f64::MAX, f64::min);
    Ok(Highlights {
        highlights,
        span_pp: max - min,
    })
}

fn select_one<'a>(pairs: &'a [Pair], sel: &PairSelector) -> Result<&'a Pair> {
    let mut found = pairs.iter().filter(|p| {
        p.organization == sel.organization && p.platform == sel.platform && p.model == sel.model
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
