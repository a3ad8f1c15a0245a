//! The article's configuration (`content/article.json`): page metadata and the selectors of the
//! highlighted pairs. Choices live here, not in code, so a reviewer sees every one of them.

use serde::{Deserialize, Serialize};

use ratios_base::error::{Error, Result};

/// Where the configuration lives in the project (read at run time, see [`crate::project`]).
pub const CONFIG_PATH: &str = "content/article.json";

/// Selects exactly one matched pair by the Offline row's organisation, platform and model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairSelector {
    /// Name of the highlight in the prose's placeholders, e.g. `b300_deepseek`.
    pub id: String,
    /// Short label shown in the figure and the tables.
    pub label: String,
    /// The `Organization` the pair's rows must have, exactly.
    pub organization: String,
    /// The `Platform` (results folder) the pair's rows must have, exactly.
    pub platform: String,
    /// The `Model` label the pair's rows must have, exactly.
    pub model: String,
}

/// Selects the highlights whose spread is reported as `span_pp`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpanSelector {
    /// The `Organization` of the system whose highlights form the span group.
    pub organization: String,
    /// That system's `Platform` (results folder).
    pub platform: String,
}

/// Everything the article takes from configuration.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArticleConfig {
    /// The page's title: its heading, `<title>`, and the citation and social tags.
    pub title: String,
    /// The page's summary: its meta description and the social tags' copies of it.
    pub description: String,
    /// Absolute URL the page is published at; every other absolute URL of the page derives from
    /// it (og:url, the JSON-LD, printed link addresses).
    pub canonical_url: String,
    /// The name of the site the page belongs to, in the site header and `og:site_name`.
    pub site_name: String,
    /// The author's name, in the byline and the citation metadata.
    pub author: String,
    /// What the author did, as the byline says it: `<credit> by <author>`.
    pub credit: String,
    /// Site-root path of the author's profile page.
    pub author_url: String,
    /// Site-root path of the site's home page.
    pub home_url: String,
    /// Publication date, YYYY-MM-DD.
    pub published: String,
    /// The date of the last revision, when the page has been revised since `published`
    /// (YYYY-MM-DD); the page's modified date is this, or `published`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated: Option<String>,
    /// The licence of the article and its code.
    pub license_name: String,
    /// Its SPDX identifier (`Apache-2.0`), for CITATION.cff and the RO-Crate.
    pub license_id: String,
    /// The address of the licence's text, which the footer links.
    pub license_url: String,
    /// The pairs the article highlights, in the order the figure and the tables show them.
    pub highlights: Vec<PairSelector>,
    /// The system whose highlights give the spread the lede reports.
    pub span: SpanSelector,
    /// The article's DOI (`10.<registrant>/<suffix>`), once one is registered: the reference
    /// line, BibTeX, JSON-LD, Google Scholar tags, CITATION.cff and the RO-Crate then carry it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doi: Option<String>,
    /// The author's minisign public key, when releases are signed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signing: Option<Signing>,
}

/// How the author signs `SHA256SUMS`: the public key the page prints and `verify` checks
/// against, and where else the author publishes it (a reader trusts the key they find there,
/// not the one a copy of the page shows).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Signing {
    /// The minisign public key (the second line of `minisign.pub`).
    pub public_key: String,
    /// Absolute https addresses where the author also publishes the key.
    pub also_published_at: Vec<String>,
}

/// A DOI as Crossref recommends them: `10.`, a registrant code of 4 to 9 digits, `/`, and a
/// suffix of letters, digits and `-._;()/:`.
fn check_doi(doi: &str) -> std::result::Result<(), String> {
    let ok = doi
        .strip_prefix("10.")
        .and_then(|r| r.split_once('/'))
        .is_some_and(|(registrant, suffix)| {
            (4..=9).contains(&registrant.len())
                && registrant.bytes().all(|b| b.is_ascii_digit())
                && !suffix.is_empty()
                && suffix
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-._;()/:".contains(c))
        });
    if ok {
        Ok(())
    } else {
        Err("must be a DOI such as 10.5281/zenodo.1234567 (10., 4 to 9 digits, /, then letters, digits and -._;()/:), without https://doi.org/".into())
    }
}

/// An absolute `https://host/...` URL made only of unreserved characters, `/`, `:` and `%`
/// (so it can be written into HTML, JSON and CSS without escaping).
fn check_absolute_url(url: &str) -> std::result::Result<(), String> {
    let rest = url
        .strip_prefix("https://")
        .ok_or("must be an absolute https URL")?;
    let host = rest.split('/').next().unwrap_or_default();
    let plain = url
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-._~/:%".contains(c));
    if host.is_empty() || !plain {
        return Err(
            "must be an absolute https URL with a host, of letters, digits and - . _ ~ / : % only"
                .into(),
        );
    }
    Ok(())
}

/// A date written YYYY-MM-DD.
fn check_date(date: &str) -> std::result::Result<(), String> {
    ratios_base::calendar::parse_rfc3339_utc(&format!("{date}T00:00:00Z"))
        .map(|_| ())
        .map_err(|_| {
            format!(
                "must be a real date written YYYY-MM-DD with a year from 1980 to 2107, not {:?}",
                ratios_base::text::excerpt(date, 40)
            )
        })
}

/// A site-root path such as `/about/`: it starts with one `/`, and holds no backslash (which
/// browsers read as `/`, so `/\\host` would leave the site), no scheme, space or quote.
fn check_site_path(path: &str) -> std::result::Result<(), String> {
    let ok = path.starts_with('/')
        && !path.starts_with("//")
        && !path.contains(['\\', ' ', '"', '<', '>', '`', ':']);
    if ok {
        Ok(())
    } else {
        Err("must be a site-root path like /about/ (one leading `/`, no backslash, colon, space or quote)".into())
    }
}

impl ArticleConfig {
    /// `https://host` of the canonical URL.
    pub fn origin(&self) -> &str {
        let after = self.canonical_url.trim_start_matches("https://");
        let host_len = after.find('/').unwrap_or(after.len());
        &self.canonical_url[..8 + host_len]
    }

    /// The address of the folder the page and its files are published in: the canonical URL up
    /// to its last `/`.
    pub fn folder_url(&self) -> &str {
        let end = self.canonical_url.rfind('/').map_or(0, |i| i + 1);
        &self.canonical_url[..end]
    }

    /// The date the page was last changed: `updated`, else `published`.
    pub fn modified(&self) -> &str {
        self.updated.as_deref().unwrap_or(&self.published)
    }

    /// The year of publication, `YYYY` (the date is checked to be `YYYY-MM-DD` when loaded).
    pub fn published_year(&self) -> &str {
        self.published.get(..4).unwrap_or(&self.published)
    }

    /// The DOI as a link, `https://doi.org/<doi>`.
    pub fn doi_url(&self) -> Option<String> {
        self.doi.as_ref().map(|d| format!("https://doi.org/{d}"))
    }

    /// The author's public key, read (checked when the settings are loaded).
    pub fn public_key(&self) -> Option<ratios_base::minisign::PublicKey> {
        self.signing
            .as_ref()
            .and_then(|s| ratios_base::minisign::PublicKey::parse(&s.public_key).ok())
    }

    /// The publication date as Google Scholar's `citation_publication_date` writes it,
    /// `YYYY/MM/DD`.
    pub fn published_slashed(&self) -> String {
        self.published.replace('-', "/")
    }

    /// The absolute URL of a site-root path such as `/about/`.
    pub fn absolute(&self, site_path: &str) -> String {
        format!("{}{site_path}", self.origin())
    }

    /// A round (`v6.1`) a setting names that is not `round`, the data's: the setting's name and
    /// the round it names. The description is written by hand, so it must not go stale.
    pub fn other_round(&self, round: &str) -> Option<(String, String)> {
        self.strings().find_map(|(name, text)| {
            rounds_named(text)
                .into_iter()
                .find(|r| r != round)
                .map(|r| (name, r))
        })
    }

    /// Every text setting with its name, for checks that apply to all of them.
    fn strings(&self) -> impl Iterator<Item = (String, &str)> {
        [
            ("title", Some(&self.title)),
            ("description", Some(&self.description)),
            ("canonical_url", Some(&self.canonical_url)),
            ("site_name", Some(&self.site_name)),
            ("author", Some(&self.author)),
            ("credit", Some(&self.credit)),
            ("author_url", Some(&self.author_url)),
            ("home_url", Some(&self.home_url)),
            ("published", Some(&self.published)),
            ("license_name", Some(&self.license_name)),
            ("license_id", Some(&self.license_id)),
            ("license_url", Some(&self.license_url)),
            ("updated", self.updated.as_ref()),
            ("doi", self.doi.as_ref()),
        ]
        .into_iter()
        .filter_map(|(n, v)| Some((n.to_string(), v?.as_str())))
        .chain(self.signing.iter().flat_map(|s| {
            std::iter::once(("signing public_key".to_string(), s.public_key.as_str())).chain(
                s.also_published_at
                    .iter()
                    .map(|u| ("signing also_published_at".to_string(), u.as_str())),
            )
        }))
        .chain(self.highlights.iter().flat_map(|h| {
            [
                ("id", &h.id),
                ("label", &h.label),
                ("organization", &h.organization),
                ("platform", &h.platform),
                ("model", &h.model),
            ]
            .into_iter()
            .map(move |(n, v)| {
                (
                    format!("highlight {} {n}", ratios_base::text::quoted(&h.id, 40)),
                    v.as_str(),
                )
            })
        }))
    }

    /// Reads the settings file `text`; `file` names it in errors. Every setting is a non-empty
    /// text of at most [`MAX_SETTING_CHARS`] characters ([`MAX_DESCRIPTION_CHARS`] for the
    /// description) without control, bidirectional or invisible characters.
    pub fn parse(file: &str, text: &str) -> Result<Self> {
        let err = |message: String| Error::Config {
            file: file.to_string(),
            message,
        };
        let config: ArticleConfig = serde_json::from_str(text).map_err(|e| err(e.to_string()))?;
        if let Some((name, _)) = config
            .strings()
            .find(|(_, v)| v.chars().any(char::is_control))
        {
            return Err(err(format!("{name} holds a control character")));
        }
        // Controls are refused above, so tab, line feed and carriage return never reach here.
        if let Some((name, c)) = config
            .strings()
            .find_map(|(name, v)| ratios_base::text::first_invisible(v).map(|(_, c)| (name, c)))
        {
            return Err(err(format!(
                "{name} holds U+{:04X}, an invisible, bidirectional-control or noncharacter code point, which would make the page show something other than its text; remove it",
                c as u32
            )));
        }
        if let Some((name, chars)) = config.strings().find_map(|(name, v)| {
            let chars = v.chars().count();
            let max = if name == "description" {
                MAX_DESCRIPTION_CHARS
            } else {
                MAX_SETTING_CHARS
            };
            (chars > max).then_some((name, (chars, max)))
        }) {
            return Err(err(format!(
                "{name} is {} characters long; at most {} are accepted",
                chars.0, chars.1
            )));
        }
        if let Some((name, _)) = config.strings().find(|(_, v)| v.trim().is_empty()) {
            return Err(err(format!("{name} is empty; every setting needs a value")));
        }
        for (name, url) in [
            ("canonical_url", &config.canonical_url),
            ("license_url", &config.license_url),
        ] {
            check_absolute_url(url).map_err(|why| err(format!("{name} {why}")))?;
        }
        // The page's own address: `dist/` published as one folder serves the page there.
        let page = ratios_base::layout::OutputFile::Article.path();
        let path = config.canonical_url["https://".len()..]
            .split_once('/')
            .map_or("", |(_, p)| p);
        if !path.ends_with(&format!("/{page}")) && path != page {
            return Err(err(format!(
                "canonical_url must be the page's own address, ending in /{page} (its name in dist/), \
                 so that dist/ copied to the site as one folder answers it"
            )));
        }
        check_date(&config.published).map_err(|why| err(format!("published {why}")))?;
        if let Some(updated) = &config.updated {
            check_date(updated).map_err(|why| err(format!("updated {why}")))?;
            // Both are YYYY-MM-DD, so they compare as text.
            if updated.as_str() < config.published.as_str() {
                return Err(err(format!(
                    "updated {} is before published {}; a revision comes after the first publication",
                    ratios_base::text::quoted(updated, 20),
                    ratios_base::text::quoted(&config.published, 20)
                )));
            }
        }
        for (name, path) in [
            ("author_url", &config.author_url),
            ("home_url", &config.home_url),
        ] {
            check_site_path(path).map_err(|why| err(format!("{name} {why}")))?;
        }
        if !config
            .license_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-.+".contains(&b))
        {
            return Err(err(
                "license_id must be an SPDX licence identifier such as Apache-2.0".into(),
            ));
        }
        if let Some(doi) = &config.doi {
            check_doi(doi).map_err(|why| err(format!("doi {why}")))?;
        }
        if let Some(signing) = &config.signing {
            ratios_base::minisign::PublicKey::parse(&signing.public_key)
                .map_err(|why| err(format!("signing public_key {why}")))?;
            if signing.also_published_at.is_empty() {
                return Err(err("signing also_published_at must name at least one other place the author publishes the key (a reader trusts the key found there, not the one a copy of the page shows)".into()));
            }
            for url in &signing.also_published_at {
                check_absolute_url(url)
                    .map_err(|why| err(format!("signing also_published_at {why}")))?;
            }
        }
        if config.highlights.is_empty() {
            return Err(err("highlights must select at least one pair".into()));
        }
        let mut ids = std::collections::BTreeSet::new();
        for h in &config.highlights {
            let well_formed = !h.id.is_empty()
                && h.id
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
            if !well_formed || !ids.insert(h.id.as_str()) {
                return Err(err(format!(
                    "highlight id {} must be unique and made of a-z, 0-9 and _",
                    ratios_base::text::quoted(&h.id, 40)
                )));
            }
        }
        Ok(config)
    }
}

/// The most characters a setting may hold (a title, a name, a URL).
pub const MAX_SETTING_CHARS: usize = 300;
/// The most characters the description may hold.
pub const MAX_DESCRIPTION_CHARS: usize = 1000;

/// The rounds a text names, written as MLPerf writes them: `v` and two dotted numbers (`v6.1`).
fn rounds_named(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    for (i, _) in text.match_indices('v') {
        let starts_word = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        let rest = &text[i + 1..];
        let digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
        let major = digits(rest);
        if !starts_word || major == 0 || !rest[major..].starts_with('.') {
            continue;
        }
        let minor = digits(&rest[major + 1..]);
        let end = major + 1 + minor;
        let ends_word = rest[end..]
            .bytes()
            .next()
            .is_none_or(|b| !b.is_ascii_alphanumeric());
        if minor > 0 && ends_word {
            found.push(format!("v{}", &rest[..end]));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn committed_text() -> String {
        std::fs::read_to_string(
            std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(CONFIG_PATH),
        )
        .unwrap()
    }

    #[test]
    fn committed_config_parses() {
        let c = ArticleConfig::parse(CONFIG_PATH, &committed_text()).unwrap();
        let plain: serde_json::Value = serde_json::from_str(&committed_text()).unwrap();
        assert_eq!(
            c.highlights.len(),
            plain["highlights"].as_array().unwrap().len()
        );
    }

    #[test]
    fn rounds_are_found_as_whole_words() {
        assert_eq!(
            rounds_named("the v6.1 results, not v6.10x or nov6.1, and v5.0."),
            ["v6.1", "v5.0"]
        );
        let c = ArticleConfig::parse("x.json", &committed_text()).unwrap();
        assert_eq!(c.other_round("v6.1"), None);
        let (name, round) = c.other_round("v7.0").unwrap();
        assert_eq!((name.as_str(), round.as_str()), ("description", "v6.1"));
    }

    #[test]
    fn an_empty_setting_is_refused_by_name() {
        let config: serde_json::Value = serde_json::from_str(&committed_text()).unwrap();
        let blanked = |edit: &dyn Fn(&mut serde_json::Value)| {
            let mut c = config.clone();
            edit(&mut c);
            ArticleConfig::parse("x.json", &c.to_string())
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            blanked(&|c| c["title"] = "".into()),
            "x.json: title is empty; every setting needs a value"
        );
        assert_eq!(
            blanked(&|c| c["author"] = "  ".into()),
            "x.json: author is empty; every setting needs a value"
        );
        let err = blanked(&|c| c["highlights"][0]["label"] = "".into());
        assert!(
            err.ends_with("label is empty; every setting needs a value"),
            "{err}"
        );
    }

    #[test]
    fn links_that_could_leave_the_site_are_rejected() {
        for bad in [
            "//evil.example/",
            "/\\\\evil.example/",
            "javascript:alert(1)",
            "about/",
            "/a b/",
        ] {
            let text =
                committed_text().replace("\"/about/\"", &serde_json::to_string(bad).unwrap());
            let err = ArticleConfig::parse("x.json", &text).unwrap_err();
            assert!(err.to_string().contains("author_url"), "{bad}: {err}");
        }
        let text = committed_text().replacen("https://", "http://", 1);
        assert!(ArticleConfig::parse("x.json", &text).is_err());
        let text = committed_text().replacen("server-offline-ratio/", "x\\\"y/", 1);
        assert!(ArticleConfig::parse("x.json", &text).is_err());
    }

    #[test]
    fn absolute_urls_derive_from_the_canonical_one() {
        let c = ArticleConfig::parse(CONFIG_PATH, &committed_text()).unwrap();
        assert_eq!(c.origin(), "https://aryanputta.com");
        assert_eq!(c.absolute("/about/"), "https://aryanputta.com/about/");
        assert!(c.canonical_url.starts_with("https://aryanputta.com/"));
        assert_eq!(
            format!("{}article.html", c.folder_url()),
            c.canonical_url,
            "the folder holds the page"
        );
    }

    #[test]
    fn the_canonical_url_must_name_the_page_itself() {
        for bad in [
            "https://aryanputta.com/articles/server-offline-ratio/",
            "https://aryanputta.com/articles/server-offline-ratio/index.html",
            "https://aryanputta.com/articles/xarticle.html",
            "https://aryanputta.com",
        ] {
            let text = committed_text().replace(
                "https://aryanputta.com/articles/server-offline-ratio/article.html",
                bad,
            );
            let err = ArticleConfig::parse("x.json", &text)
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("canonical_url must be the page's own address"),
                "{bad}: {err}"
            );
        }
        let text = committed_text().replace(
            "https://aryanputta.com/articles/server-offline-ratio/article.html",
            "https://aryanputta.com/article.html",
        );
        let c = ArticleConfig::parse("x.json", &text).unwrap();
        assert_eq!(c.folder_url(), "https://aryanputta.com/");
    }
}
