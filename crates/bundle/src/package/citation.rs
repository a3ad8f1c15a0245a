//! `CITATION.cff`: how to cite the article, in the Citation File Format 1.2.0 that GitHub,
//! Zenodo and reference managers read, made from the settings (`content/article.json`). Every
//! value is written as a JSON string, which YAML reads as the same double-quoted scalar, so no
//! title or name can break the file.

use ratios_base::error::{Error, Result};
use ratios_base::layout::OutputFile;
use ratios_model::project::config::ArticleConfig;

/// A YAML double-quoted scalar holding `s` exactly.
fn quoted(s: &str) -> Result<String> {
    serde_json::to_string(s).map_err(|e| Error::Serialise {
        file: OutputFile::Citation.path().into(),
        message: e.to_string(),
    })
}

/// The author's name as CFF wants a person's: given names, then the family name, split as
/// BibTeX splits `author = {...}`: `Family, Given`, else the last word is the family name.
fn person(name: &str) -> (String, String) {
    if let Some((family, given)) = name.split_once(',') {
        return (given.trim().to_string(), family.trim().to_string());
    }
    match name.trim().rsplit_once(char::is_whitespace) {
        Some((given, family)) => (given.trim().to_string(), family.to_string()),
        None => (String::new(), name.trim().to_string()),
    }
}

/// `CITATION.cff` for the article.
pub(crate) fn citation_cff(config: &ArticleConfig) -> Result<Vec<u8>> {
    let (given, family) = person(&config.author);
    let mut out = String::new();
    out.push_str("cff-version: 1.2.0\n");
    out.push_str(
        "message: \"To cite this article or the data and code published with it, cite it as below.\"\n",
    );
    out.push_str("type: dataset\n");
    out.push_str(&format!("title: {}\n", quoted(&config.title)?));
    out.push_str(&format!("abstract: {}\n", quoted(&config.description)?));
    out.push_str("authors:\n");
    out.push_str(&format!("  - family-names: {}\n", quoted(&family)?));
    if !given.is_empty() {
        out.push_str(&format!("    given-names: {}\n", quoted(&given)?));
    }
    out.push_str(&format!(
        "    website: {}\n",
        quoted(&config.absolute(&config.author_url))?
    ));
    out.push_str(&format!("date-released: {}\n", quoted(&config.published)?));
    out.push_str(&format!("url: {}\n", quoted(&config.canonical_url)?));
    out.push_str(&format!(
        "repository-artifact: {}\n",
        quoted(&format!(
            "{}{}",
            config.folder_url(),
            OutputFile::Bundle.path()
        ))?
    ));
    out.push_str(&format!("license: {}\n", quoted(&config.license_id)?));
    if let Some(doi) = &config.doi {
        out.push_str(&format!("doi: {}\n", quoted(doi)?));
    }
    out.push_str("identifiers:\n");
    out.push_str("  - type: url\n");
    out.push_str(&format!("    value: {}\n", quoted(&config.canonical_url)?));
    if let Some(doi) = &config.doi {
        out.push_str("  - type: doi\n");
        out.push_str(&format!("    value: {}\n", quoted(doi)?));
    }
    Ok(out.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> ArticleConfig {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../content/article.json");
        ArticleConfig::parse(path, &std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn names_split_as_bibtex_splits_them() {
        assert_eq!(person("Aryan Putta"), ("Aryan".into(), "Putta".into()));
        assert_eq!(person("Plato"), (String::new(), "Plato".into()));
        assert_eq!(person("Putta, Aryan"), ("Aryan".into(), "Putta".into()));
    }

    #[test]
    fn every_value_is_one_quoted_line_and_the_doi_appears_only_when_set() {
        let mut c = config();
        c.title = "A \"quoted\": title # not a comment".into();
        let text = String::from_utf8(citation_cff(&c).unwrap()).unwrap();
        assert!(text.contains("title: \"A \\\"quoted\\\": title # not a comment\"\n"));
        assert!(!text.contains("doi"));
        c.doi = Some("10.5281/zenodo.1234567".into());
        let text = String::from_utf8(citation_cff(&c).unwrap()).unwrap();
        assert!(text.contains("doi: \"10.5281/zenodo.1234567\"\n"));
        assert!(text.contains("  - type: doi\n    value: \"10.5281/zenodo.1234567\"\n"));
    }
}
