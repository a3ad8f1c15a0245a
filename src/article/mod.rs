//! Stage 6 of the pipeline: the article. The prose in `content/article.md` is Markdown with named
//! placeholders ([`prose`]); the values ([`values`]) and blocks ([`blocks`]) are computed from the
//! results and the page is wrapped in the Askama template `templates/article.html`. `pairs.csv`
//! is written by [`export`].

pub mod blocks;
pub mod export;
pub mod prose;
pub mod values;

use askama::Template;

use crate::analysis::{Analysis, Pair};
use crate::config::ArticleConfig;
use crate::error::{Error, Result};
use crate::evidence::facts::CheckerFacts;
use crate::evidence::Checks;
use crate::figure::{self, Svg};
use crate::highlight::{Highlight, Highlights};
use crate::inputs::InputManifest;

pub use export::pairs_csv;

/// Everything the article is rendered from.
pub struct ArticleData<'a> {
    pub config: &'a ArticleConfig,
    pub analysis: &'a Analysis,
    pub highlights: &'a Highlights,
    pub checks: &'a Checks,
    pub manifest: &'a InputManifest,
    pub facts: &'a CheckerFacts,
    /// Name and version of the generator, e.g. `scenario-ratios 0.1.0`.
    pub tool: &'a str,
}

/// The rendered article and its figures.
pub struct Rendered {
    pub html: String,
    pub highlights_svg: Svg,
    pub pairs_svg: Svg,
}

pub(crate) fn template<T: Template>(t: &T, name: &str) -> Result<String> {
    t.render()
        .map_err(|e| Error::invalid(name, format!("template failed: {e}")))
}

pub(crate) fn pair_of<'a>(a: &'a Analysis, h: &Highlight) -> Result<&'a Pair> {
    a.pair(h.offline_id)
        .ok_or_else(|| Error::invalid("highlights", format!("highlight {} has no pair", h.id)))
}

#[derive(Template)]
#[template(path = "article.html")]
struct Page<'a> {
    config: &'a ArticleConfig,
    body: &'a str,
    tool: &'a str,
}

/// Renders the whole page from `prose`.
pub fn render(data: &ArticleData<'_>, prose: &str) -> Result<Rendered> {
    let highlights_svg = figure::highlights(data.analysis, data.highlights)?;
    let pairs_svg = figure::all_pairs(data.analysis, data.highlights)?;
    let values = values::values(data)?;
    let blocks = blocks::blocks(data, &highlights_svg, &pairs_svg)?;
    let ids: Vec<String> = data
        .config
        .highlights
        .iter()
        .map(|h| h.id.clone())
        .collect();
    let body = prose::render_prose(prose, &values, &blocks, &ids)?;
    let html = template(
        &Page {
            config: data.config,
            body: &body,
            tool: data.tool,
        },
        "templates/article.html",
    )?;
    Ok(Rendered {
        html,
        highlights_svg,
        pairs_svg,
    })
}
