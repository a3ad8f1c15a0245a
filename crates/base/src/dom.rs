//! The page's tree, built from its tokens ([`crate::markup`]): a small arena of nodes holding
//! what the page check reads (elements with their names and attributes, text, and where each
//! node hangs) and every other node (comments, the doctype) as a bare node, so that text on
//! either side of one stays two texts.
//!
//! The build's pages close every element they open, in order (the page check verifies it from
//! the tags): so the tree is the one their tags write. An end tag closes the innermost open
//! element of its name, and those inside it; an end tag that matches none is left out; a void
//! element or a self-closing foreign one has no children. An element inside `<svg>` or `<math>`
//! is in that namespace, but for the contents of `<foreignObject>` and `<annotation-xml>`.
//! Attributes are kept sorted by name.

use crate::markup::{self, Token, VOID_ELEMENTS};

/// The namespace of an element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Namespace {
    /// HTML's: every element outside `<svg>` and `<math>`, and inside their `<foreignObject>`
    /// and `<annotation-xml>`.
    Html,
    /// SVG's: `<svg>` and the elements inside it (the figures inlined in the article).
    Svg,
    /// MathML's: `<math>` and the elements inside it.
    MathMl,
}

/// An element's name: its namespace and its local name, lower-cased.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    /// The namespace the element is in, from where it stands in the tree.
    pub ns: Namespace,
    /// The tag's name, lower-cased as the tokenizer gives it (`foreignobject`, not
    /// `foreignObject`).
    pub local: String,
}

/// What a node is.
#[derive(Debug)]
pub enum Data {
    /// The document: the root, node 0.
    Document,
    /// An element: its name and its attributes, sorted by name.
    Element {
        /// The element's namespace and lower-cased local name.
        name: Name,
        /// Its attributes as (name, value) pairs, names lower-cased and values decoded, sorted
        /// by name; a repeated one is left out.
        attrs: Vec<(String, String)>,
    },
    /// Text, its character references decoded.
    Text(String),
    /// A comment or a declaration.
    Other,
}

/// One node of a [`Dom`]: where it hangs in the tree and what it is.
#[derive(Debug)]
pub struct Node {
    /// The index in [`Dom::nodes`] of the node it hangs under; `None` for the document alone.
    pub parent: Option<usize>,
    /// The indices in [`Dom::nodes`] of the nodes hanging under it, in document order.
    pub children: Vec<usize>,
    /// What the node is: the document, an element, text, or a comment or declaration.
    pub data: Data,
}

/// A parsed document: its nodes, the root first.
#[derive(Debug)]
pub struct Dom {
    /// Every node in the order its token came, the document at index 0; nodes name one another
    /// by index into it.
    pub nodes: Vec<Node>,
}

impl Dom {
    /// The tree of the document `html`.
    pub fn parse(html: &str) -> Dom {
        let mut dom = Dom {
            nodes: vec![Node {
                parent: None,
                children: Vec::new(),
                data: Data::Document,
            }],
        };
        // The open elements, innermost last, each with its node.
        let mut open: Vec<(String, usize)> = Vec::new();
        for token in markup::tokens(html) {
            let parent = open.last().map_or(0, |(_, n)| *n);
            match token {
                Token::Tag(tag) if tag.end => {
                    if let Some(depth) = open.iter().rposition(|(name, _)| *name == tag.name) {
                        open.truncate(depth);
                    }
                }
                Token::Tag(tag) => {
                    let ns = match (&dom.nodes[parent].data, tag.name.as_str()) {
                        (Data::Element { name, .. }, _)
                            if name.ns != Namespace::Html
                                && !matches!(
                                    name.local.as_str(),
                                    "foreignobject" | "annotation-xml"
                                ) =>
                        {
                            name.ns
                        }
                        (_, "svg") => Namespace::Svg,
                        (_, "math") => Namespace::MathMl,
                        _ => Namespace::Html,
                    };
                    let mut attrs = tag.attributes;
                    attrs.sort();
                    let childless = if ns == Namespace::Html {
                        VOID_ELEMENTS.contains(&tag.name.as_str())
                    } else {
                        tag.self_closing
                    };
                    let name = tag.name.clone();
                    let node = dom.add(
                        parent,
                        Data::Element {
                            name: Name {
                                ns,
                                local: tag.name,
                            },
                            attrs,
                        },
                    );
                    if !childless {
                        open.push((name, node));
                    }
                }
                Token::Text { text, raw, .. } => {
                    let text = if raw {
                        text.to_string()
                    } else {
                        markup::decode(text).into_owned()
                    };
                    dom.add(parent, Data::Text(text));
                }
                Token::Comment { .. } | Token::Declaration { .. } => {
                    dom.add(parent, Data::Other);
                }
                Token::Unfinished { .. } => {}
            }
        }
        dom
    }

    fn add(&mut self, parent: usize, data: Data) -> usize {
        let node = self.nodes.len();
        self.nodes.push(Node {
            parent: Some(parent),
            children: Vec::new(),
            data,
        });
        self.nodes[parent].children.push(node);
        node
    }

    /// Every node under `node` (itself included), in tree order.
    pub fn descendants(&self, node: usize) -> Vec<usize> {
        let mut order = Vec::new();
        // An explicit stack: a page nested deeply must not exhaust the call stack.
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            order.push(n);
            stack.extend(self.nodes[n].children.iter().rev());
        }
        order
    }

    /// The text of every text node under `node`, in tree order.
    pub fn text(&self, node: usize) -> String {
        self.descendants(node)
            .into_iter()
            .filter_map(|n| match &self.nodes[n].data {
                Data::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dom: &Dom) -> Vec<String> {
        dom.descendants(0)
            .into_iter()
            .filter_map(|n| match &dom.nodes[n].data {
                Data::Element { name, .. } => Some(name.local.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn elements_nest_as_their_tags_write_them() {
        let dom = Dom::parse("<p>a<b>b</b><br>c</p><div><img src=x></div>");
        assert_eq!(names(&dom), ["p", "b", "br", "div", "img"]);
        assert_eq!(dom.text(0), "abc");
    }

    #[test]
    fn text_is_decoded_but_not_in_raw_text() {
        let dom = Dom::parse("<p>a &amp; b&nbsp;c &#8288;&#x41;</p><style>a&amp;b</style>");
        assert_eq!(dom.text(0), "a & b\u{a0}c \u{2060}Aa&amp;b");
    }

    #[test]
    fn foreign_elements_take_their_namespace_and_attributes_are_sorted() {
        let dom = Dom::parse(
            "<svg role=\"img\" class=\"f\"><title>t</title><rect/><foreignObject><p>x</p></foreignObject></svg>",
        );
        type Seen<'a> = (&'a str, Namespace, &'a Vec<(String, String)>);
        let elements: Vec<Seen<'_>> = dom
            .nodes
            .iter()
            .filter_map(|n| match &n.data {
                Data::Element { name, attrs } => Some((name.local.as_str(), name.ns, attrs)),
                _ => None,
            })
            .collect();
        assert_eq!(elements[0].0, "svg");
        assert_eq!(elements[0].1, Namespace::Svg);
        assert_eq!(
            elements[0].2,
            &vec![
                ("class".to_string(), "f".to_string()),
                ("role".to_string(), "img".to_string())
            ]
        );
        assert_eq!((elements[2].0, elements[2].1), ("rect", Namespace::Svg));
        assert_eq!((elements[4].0, elements[4].1), ("p", Namespace::Html));
        // The rectangle closed itself: the paragraph hangs under the foreign object.
        assert_eq!(dom.nodes[dom.nodes.len() - 2].parent, Some(6 - 1));
    }

    #[test]
    fn a_stray_end_tag_is_left_out_and_text_stays_apart_across_a_comment() {
        let dom = Dom::parse("<div>a</span>b<!-- c -->d</div>");
        let texts: Vec<&str> = dom
            .nodes
            .iter()
            .filter_map(|n| match &n.data {
                Data::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(texts, ["a", "b", "d"]);
    }
}
