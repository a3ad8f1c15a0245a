//! The code blocks of the built article's "Reproduce it" section, as an HTML parser reads them.

/// The text of every code block (`<pre>`) of the built article's "Reproduce it" section, in
/// the order the reader meets them, as an HTML parser reads it.
pub(crate) fn reproduce_blocks(html: &str) -> Vec<String> {
    let doc = scraper::Html::parse_document(html);
    let heading = scraper::Selector::parse("h2#reproduce").unwrap();
    let h2 = doc
        .select(&heading)
        .next()
        .expect("the article has a Reproduce section");
    let pre = scraper::Selector::parse("pre").unwrap();
    let mut blocks = Vec::new();
    for node in h2.next_siblings() {
        let Some(el) = scraper::ElementRef::wrap(node) else {
            continue;
        };
        if el.value().name() == "h2" {
            break;
        }
        let own = el.value().name() == "pre";
        for p in std::iter::once(el).filter(|_| own).chain(el.select(&pre)) {
            blocks.push(p.text().collect::<String>());
        }
    }
    assert!(!blocks.is_empty(), "the Reproduce section has code blocks");
    blocks
}

/// The code block of the Reproduce section that contains `command`; panics unless exactly one does.
pub(crate) fn reproduce_block(html: &str, command: &str) -> String {
    let found: Vec<String> = reproduce_blocks(html)
        .into_iter()
        .filter(|b| b.contains(command))
        .collect();
    assert_eq!(found.len(), 1, "one Reproduce block runs `{command}`");
    found.into_iter().next().unwrap()
}
