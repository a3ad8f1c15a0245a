//! The article. The prose in `content/article.md` is Markdown with named
//! placeholders ([`prose`]); the values ([`values`], with the findings' wording in [`findings`])
//! and blocks ([`blocks`]) are computed from the results into the [`catalogue`], and the page is
//! wrapped in the Askama template `templates/article.html`. The data files beside it
//! (`results.json`, `selected_rows.json`, `pairs.csv`) are written by [`export`].

pub mod blocks;
pub mod catalogue;
pub mod export;
pub mod findings;
pub mod narrative;
pub mod prose;
pub mod raw_html;
pub mod rounds;
pub mod story;
pub mod story_blocks;
pub mod values;
pub mod words;

use askama::Template;

use crate::figure::Figures;
use ratios_base::error::{Error, Result};
use ratios_base::layout::OutputFile;
use ratios_model::analysis::{Analysis, Pair};
use ratios_model::evidence::Checks;
use ratios_model::highlight::{Highlight, Highlights};
use ratios_model::inputs::{InputKind, InputManifest};
use ratios_model::project::claims::Note;
use ratios_model::project::config::ArticleConfig;
use ratios_model::project::facts::CheckerFacts;

pub use export::{
    interactive_pairs_csv, pairs_csv, results_json, selected_rows_json, ResultsTree, RoundTable,
};

/// Everything the article is rendered from.
pub struct ArticleData<'a> {
    /// The article's settings (`content/article.json`): title, author, URLs, highlights.
    pub config: &'a ArticleConfig,
    /// The analysis of the article's round: its pairs, ratios and findings.
    pub analysis: &'a Analysis,
    /// The pairs the settings highlight (figure 3's bars) and the spread of the span group.
    pub highlights: &'a Highlights,
    /// The highlighted rows checked against their LoadGen logs, accuracy reports and the rules.
    pub checks: &'a Checks,
    /// Every pair checked against its LoadGen logs, and its ratio taken apart.
    pub logs: &'a ratios_model::evidence::pair_logs::PairLogs,
    /// The input manifest (`data/inputs.json`), whose pins the page lists.
    pub manifest: &'a InputManifest,
    /// The submission checker's facts the checks apply (`sources/mlperf-checker-facts.json`).
    pub facts: &'a CheckerFacts,
    /// The checked claims the prose may cite.
    pub notes: &'a [Note],
    /// The vendoring plan (`data/vendor.json`): the platforms the offline rebuild covers and
    /// the crates the bundle carries as stubs.
    pub vendor_plan: &'a ratios_model::project::vendor_plan::Plan,
    /// Both figures in both layouts.
    pub figures: &'a Figures,
    /// Every round `data/rounds.json` declares, the earlier rounds' results, and the article's
    /// round against each.
    pub rounds: &'a ratios_model::project::rounds::Rounds,
    /// Each earlier round's summary, analysis and pairs' logs.
    pub previous: &'a [ratios_model::across::RoundResults],
    /// The article's round against each earlier one, earlier round first.
    pub across: &'a [ratios_model::across::AcrossRounds],
    /// The rows of the downloads table.
    pub downloads: &'a [blocks::Download],
    /// Name and version of the generator, e.g. `scenario-ratios 0.1.0`.
    pub tool: &'a str,
}

/// A template rendered, a failure naming it (the building block's, under the name the article's
/// modules call it by).
pub(crate) use ratios_base::template::render as template;

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
    /// The inner HTML of the standfirst, the prose's first paragraph.
    standfirst: Option<&'a str>,
    body: &'a str,
    tool: &'a str,
    round: &'a str,
    origin: &'a str,
    author_profile: String,
    json_ld: String,
    /// The social card's absolute address, and its bars (label, value) for its text alternative.
    card_url: String,
    card_bars: Vec<(&'a str, String)>,
    /// The byline's reading time ("N min read"), from the narrative's words.
    reading_time: &'a str,
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
            // As the manifest records it, and as the RO-Crate names it.
            "license": format!("https://spdx.org/licenses/{}", csv.license),
        })
    });
    let mut doc = serde_json::json!({
        "@context": "https://schema.org",
        "@type": "Article",
        "headline": c.title,
        "description": c.description,
        "author": { "@type": "Person", "name": c.author, "url": c.absolute(&c.author_url) },
        "datePublished": c.published,
        "dateModified": c.modified(),
        "url": c.canonical_url,
        "mainEntityOfPage": c.canonical_url,
        "isBasedOn": based_on,
        "license": c.license_url,
        "image": card_url(c),
    });
    if let Some(url) = c.doi_url() {
        doc["identifier"] = serde_json::json!({
            "@type": "PropertyValue",
            "propertyID": "DOI",
            "value": c.doi,
            "url": url,
        });
        doc["sameAs"] = serde_json::json!(url);
    }
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

/// The social card's absolute address: beside the page.
fn card_url(config: &ArticleConfig) -> String {
    format!("{}{}", config.folder_url(), OutputFile::Card.path())
}

/// The two published pages: the article and its data page.
pub struct Pages {
    /// The HTML of `article.html`.
    pub article: String,
    /// The HTML of `data.html`, the article's companion page of long tables.
    pub data: String,
}

#[derive(Template)]
#[template(path = "data.html")]
struct DataPage<'a> {
    config: &'a ArticleConfig,
    standfirst: Option<&'a str>,
    body: &'a str,
    tool: &'a str,
    round: &'a str,
    origin: &'a str,
    path: &'a str,
    article: &'a str,
}

/// The prose's first paragraph, which stands under the title, and the rest of the body.
fn standfirst(body: &str) -> (Option<&str>, &str) {
    match body
        .strip_prefix("<p>")
        .and_then(|b| b.split_once("</p>\n"))
    {
        Some((first, rest)) => (Some(first), rest),
        None => (None, body),
    }
}

/// Words a minute the reading time assumes: a slow pace, for a text that asks its reader to look
/// at figures.
const READING_PACE: usize = 200;

/// The words of the narrative of the article's dek `lede` and `body`, as the page check counts
/// the page's: the narrative starts at the dek (`templates/article.html` writes it as
/// `<p class="lede">`, as here) and nothing before it on the page is narrative, so the two count
/// the same words. Counted before the page is made, which is then rendered once, with the
/// reading time in its byline.
pub fn narrative_words(lede: Option<&str>, body: &str) -> usize {
    let prose = match lede {
        Some(lede) => format!("<p class=\"lede\">{lede}</p>\n{body}"),
        None => body.to_string(),
    };
    narrative::units(&ratios_base::dom::Dom::parse(&prose))
        .iter()
        .filter(|u| u.narrative)
        .map(|u| ratios_base::readability::words(&u.text).count())
        .sum()
}

/// "N min read" for the dek `lede` and `body`: their narrative at [`READING_PACE`], rounded up.
fn reading_time(lede: Option<&str>, body: &str) -> String {
    format!(
        "{} min read",
        narrative_words(lede, body).div_ceil(READING_PACE).max(1)
    )
}

/// Renders the article from `prose` and its data page from `data_prose`.
pub fn render(data: &ArticleData<'_>, prose: &str, data_prose: &str) -> Result<Pages> {
    if let Some((name, round)) = data.config.other_round(&data.analysis.round) {
        return Err(Error::Config {
            file: ratios_model::project::config::CONFIG_PATH.into(),
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
    let (lede, body) = standfirst(&rendered.html);
    let article = template(
        &Page {
            config: data.config,
            standfirst: lede,
            body,
            tool: data.tool,
            round: &data.analysis.round,
            origin: data.config.origin(),
            author_profile: data.config.absolute(&data.config.author_url),
            json_ld: json_ld(data)?,
            card_url: card_url(data.config),
            card_bars: data
                .highlights
                .highlights
                .iter()
                .map(|h| (h.label.as_str(), ratios_base::number::percent(h.ratio)))
                .collect(),
            reading_time: &reading_time(lede, body),
        },
        "templates/article.html",
    )?;
    // The data page cites no claim and needs no highlight: its tables carry the numbers.
    let rendered = prose::render_page_prose(
        ratios_model::project::DATA_PROSE_PATH,
        data_prose,
        &values,
        &blocks,
        &[],
        &[],
    )?;
    let (lede, body) = standfirst(&rendered.html);
    let data_page = template(
        &DataPage {
            config: data.config,
            standfirst: lede,
            body,
            tool: data.tool,
            round: &data.analysis.round,
            origin: data.config.origin(),
            path: OutputFile::DataPage.path(),
            article: OutputFile::Article.path(),
        },
        "templates/data.html",
    )?;
    Ok(Pages {
        article,
        data: data_page,
    })
}

#[cfg(test)]
mod tests {
    use super::reading_time;

    /// The reading time counts the narrative only (from the dek to the Method appendix, figure
    /// captions included), at 200 words a minute rounded up: 400 words read in 2 minutes, 401 in
    /// 3; the drawings' labels and the appendix add nothing.
    #[test]
    fn the_reading_time_counts_the_narrative_at_200_words_a_minute() {
        let words = |n: usize, w: &str| vec![w; n].join(" ");
        let body = format!(
            "<figure><svg><text>{}</text></svg><figcaption>{}.</figcaption></figure>\
             <h2>Method</h2><p>{}.</p>",
            words(300, "label"),
            words(100, "caption"),
            words(900, "appendix")
        );
        let page = |narrative: usize| (format!("{}.", words(narrative - 100, "word")), &body);
        let time = |(lede, body): (String, &String)| reading_time(Some(&lede), body);
        assert_eq!(time(page(400)), "2 min read");
        assert_eq!(time(page(401)), "3 min read");
        assert_eq!(time(page(101)), "1 min read");
        // Without a dek, nothing is narrative: the least time.
        assert_eq!(reading_time(None, &body), "1 min read");
    }
}
