//! The article's configuration (`content/article.json`): page metadata and the selectors of the
//! highlighted pairs. Choices live here, not in code, so a reviewer sees every one of them.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Where the configuration lives in the repository (compiled into the binary).
pub const CONFIG_PATH: &str = "content/article.json";
const CONFIG_TEXT: &str = include_str!("../content/article.json");

/// Selects exactly one matched pair by the Offline row's organisation, platform and model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairSelector {
    /// Name of the highlight in the prose's placeholders, e.g. `b300_deepseek`.
    pub id: String,
    /// Short label shown in the figure and the tables.
    pub label: String,
    pub organization: String,
    pub platform: String,
    pub model: String,
}

/// Selects the highlights whose spread is reported as `span_pp`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpanSelector {
    pub organization: String,
    pub platform: String,
}

/// Everything the article takes from configuration.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArticleConfig {
    pub title: String,
    pub description: String,
    /// Absolute URL the page is published at.
    pub canonical_url: String,
    pub site_name: String,
    pub author: String,
    /// Site-root path of the author's profile page.
    pub author_url: String,
    /// Site-root path of the site's home page.
    pub home_url: String,
    /// Publication date, YYYY-MM-DD.
    pub published: String,
    pub highlights: Vec<PairSelector>,
    pub span: SpanSelector,
}

impl ArticleConfig {
    /// The configuration compiled into this binary.
    pub fn committed() -> Result<Self> {
        Self::parse(CONFIG_PATH, CONFIG_TEXT)
    }

    pub fn parse(file: &str, text: &str) -> Result<Self> {
        let err = |message: String| Error::Config {
            file: file.to_string(),
            message,
        };
        let config: ArticleConfig = serde_json::from_str(text).map_err(|e| err(e.to_string()))?;
        if !config.canonical_url.starts_with("https://") {
            return Err(err("canonical_url must be an absolute https URL".into()));
        }
        for (name, path) in [
            ("author_url", &config.author_url),
            ("home_url", &config.home_url),
        ] {
            if !path.starts_with('/') || path.starts_with("//") {
                return Err(err(format!("{name} must be a site-root path like /about/")));
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
                    "highlight id {:?} must be unique and made of a-z, 0-9 and _",
                    h.id
                )));
            }
        }
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn committed_config_parses() {
        let c = ArticleConfig::committed().unwrap();
        assert_eq!(c.highlights.len(), 4);
    }

    #[test]
    fn protocol_relative_profile_link_is_rejected() {
        let text = CONFIG_TEXT.replace("\"/about/\"", "\"//evil.example/\"");
        let err = ArticleConfig::parse("x.json", &text).unwrap_err();
        assert!(err.to_string().contains("author_url"), "{err}");
    }
}
