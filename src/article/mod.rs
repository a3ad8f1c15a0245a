//! Stage 6 of the pipeline: the article. The prose in `content/article.md` is Markdown with named
//! placeholders ([`prose`]); the values ([`values`], with the findings' wording in [`findings`])
//! and blocks ([`blocks`]) are computed from the results into the [`catalogue`], and the page is
//! wrapped in the Askama template `templates/article.html`. The data files beside it
//! (`results.json`, `selected_rows.json`, `pairs.csv`) are written by [`export`].

pub mod blocks;
pub mod catalogue;
pub mod export;
pub mod findings;
pub mod prose;
pub mod sanitize;
pub mod values;
pub mod words;

use askama::Template;

use crate::analysis::{Analysis, Pair};
use crate::base::error::{Error, Result};
use crate::evidence::claims::Note;
use crate::evidence::facts::CheckerFacts;
use crate::evidence::Checks;
use crate::figure::Figures;
use crate::highlight::{Highlight, Highlights};
use crate::inputs::{InputKind, InputManifest};
use crate::project::config::ArticleConfig;

pub use export::{interactive_pairs_csv, pairs_csv, results_json, selected_rows_json, ResultsTree};

/// Everything the article is rendered from.
pub struct ArticleData<'a> {
    pub config: &'a ArticleConfig,
    pub analysis: &'a Analysis,
    pub highlights: &'a Highlights,
    pub checks: &'a Checks,
    pub manifest: &'a InputManifest,
    pub facts: &'a CheckerFacts,
    /// The checked claims the prose may cite.
    pub notes: &'a [Note],
    pub vendor_plan: &'a crate::vendor::Plan,
    /// Both figures in both layouts.
    pub figures: &'a Figures,
    /// The rows of the downloads table.
    pub downloads: &'a [blocks::Download],
    /// Name and version of the generator, e.g. `scenario-ratios 0.1.0`.
    pub tool: &'a str,
}

pub(crate) fn template<T: Template>(t: &T, name: &str) -> Result<String> {
    t.render().map_err(|e| Error::Template {
        template: name.into(),
        message: format!("template failed: {e}"),
    })
}

pub(crate) fn pair_of<'a>(a: &'a Analysis, h: &Highlight) -> Result<&'a Pair> {
    a.pair(h.offline_id).ok_or_else(|| Error::NoPair {
        context: "highlights",
        highlight: h.id.clone(),
    })
}

#[derive(Template)]
#[template(path = "article.html")]
struct Page<'a> {
    config: &'a ArticleConfig,
    body: &'a str,
    tool: &'a str,
    round: &'a str,
    origin: &'a str,
    author_profile: String,
    json_ld: String,
}

/// The schema.org `Article` of the page, as JSON safe to place inside `<script>`: data, not
/// code (the validator allows exactly this one script element, and checks it parses).
fn json_ld(data: &ArticleData<'_>) -> Result<String> {
    let c = data.config;
    let based_on = data.manifest.single(InputKind::SummaryCsv).ok().map(|csv| {
        serde_json::json!({
            "@type": "Dataset",
            "name": format!("MLPerf Inference {} results summary (summary.csv)", data.analysis.round),
            "url": format!("https://github.com/{}/blob/{}/{}", csv.repository, csv.commit, csv.path),
            "creator": { "@type": "Organization", "name": "MLCommons" },
            "license": "https://www.apache.org/licenses/LICENSE-2.0",
        })
    });
    let doc = serde_json::json!({
        "@context": "https://schema.org",
        "@type": "Article",
        "headline": c.title,
        "description": c.description,
        "author": { "@type": "Person", "name": c.author, "url": c.absolute(&c.author_url) },
        "datePublished": c.published,
        "url": c.canonical_url,
        "mainEntityOfPage": c.canonical_url,
        "isBasedOn": based_on,
        "license": c.license_url,
    });
    let text = serde_json::to_string(&doc).map_err(|e| Error::Serialise {
        file: "JSON-LD".into(),
        message: e.to_string(),
    })?;
    // `<`, `>` and `&` as JSON escapes, so no text can close the script element.
    Ok(text
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026"))
}

/// Renders the whole page from `prose`.
pub fn render(data: &ArticleData<'_>, prose: &str) -> Result<String> {
    if let Some((name, round)) = data.config.other_round(&data.analysis.round) {
        return Err(Error::Config {
            file: crate::project::config::CONFIG_PATH.into(),
            message: format!(
                "{name} names round {round}, but the results are round {}",
                data.analysis.round
            ),
        });
    }
    let values = values::values(data)?;
    let blocks = blocks::blocks(data)?;
    let ids: Vec<String> = data
        .config
        .highlights
        .iter()
        .map(|h| h.id.clone())
        .collect();
    let rendered = prose::render_prose(prose, &values, &blocks, &ids, data.notes)?;
    let notes = blocks::notes(data.notes, &rendered.cited)?;
    let body = rendered.html.replacen(prose::NOTES_MARKER, &notes, 1);
    template(
        &Page {
            config: data.config,
            body: &body,
            tool: data.tool,
            round: &data.analysis.round,
            origin: data.config.origin(),
            author_profile: data.config.absolute(&data.config.author_url),
            json_ld: json_ld(data)?,
        },
        "templates/article.html",
    )
}
