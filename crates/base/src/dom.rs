//! The page's tree as html5ever builds it: a small arena of nodes that html5ever's tree builder
//! fills through [`TreeSink`]. It keeps what the page check reads (elements with their names and
//! attributes, text, and where each node hangs) and holds every other node (comments, the
//! doctype, processing instructions) as a bare node, so that text on either side of one stays
//! two texts, as in a browser's tree.
//!
//! A `<template>`'s contents hang under one document-fragment node, the template's first child,
//! so that walking the tree reaches them. An element's attributes are kept sorted by their
//! qualified name. No `annotation-xml` element is taken for an HTML integration point. (These
//! three are how the tree read by the page check was built before, by scraper.)

use std::borrow::Cow;
use std::cell::{Ref, RefCell};

use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::{local_name, ns, Attribute, QualName};

/// What a node is.
#[derive(Debug)]
pub enum Data {
    /// The document: the root, node 0.
    Document,
    /// A `<template>`'s contents.
    Fragment,
    /// An element: its name and its attributes, sorted by name.
    Element {
        name: QualName,
        attrs: Vec<(QualName, StrTendril)>,
    },
    Text(StrTendril),
    /// A comment, the doctype or a processing instruction.
    Other,
}

#[derive(Debug)]
pub struct Node {
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    pub data: Data,
}

/// A parsed document: its nodes, the root first.
#[derive(Debug)]
pub struct Dom {
    pub nodes: Vec<Node>,
}

impl Dom {
    /// The tree of the document `html`, as a browser builds it (scripting on).
    pub fn parse(html: &str) -> Dom {
        html5ever::parse_document(Sink::default(), Default::default()).one(html)
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
                Data::Text(t) => Some(&**t),
                _ => None,
            })
            .collect()
    }
}

/// The tree being built. Handles are indices into `nodes`.
struct Sink {
    nodes: RefCell<Vec<Node>>,
}

impl Default for Sink {
    fn default() -> Self {
        Sink {
            nodes: RefCell::new(vec![Node {
                parent: None,
                children: Vec::new(),
                data: Data::Document,
            }]),
        }
    }
}

impl Sink {
    fn new_node(&self, data: Data) -> usize {
        let mut nodes = self.nodes.borrow_mut();
        nodes.push(Node {
            parent: None,
            children: Vec::new(),
            data,
        });
        nodes.len() - 1
    }
}

/// Takes `node` out of its parent's children, if it has a parent.
fn detach(nodes: &mut [Node], node: usize) {
    if let Some(parent) = nodes[node].parent.take() {
        nodes[parent].children.retain(|&c| c != node);
    }
}

/// Appends `text` to `node` if that is a text node.
fn extend_text(nodes: &mut [Node], node: Option<usize>, text: &StrTendril) -> bool {
    match node.map(|n| &mut nodes[n].data) {
        Some(Data::Text(t)) => {
            t.push_tendril(text);
            true
        }
        _ => false,
    }
}

impl TreeSink for Sink {
    type Handle = usize;
    type Output = Dom;
    type ElemName<'a> = Ref<'a, QualName>;

    fn finish(self) -> Dom {
        Dom {
            nodes: self.nodes.into_inner(),
        }
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> usize {
        0
    }

    fn elem_name<'a>(&'a self, target: &'a usize) -> Ref<'a, QualName> {
        Ref::map(self.nodes.borrow(), |nodes| match &nodes[*target].data {
            Data::Element { name, .. } => name,
            _ => panic!("not an element"),
        })
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, _: ElementFlags) -> usize {
        let template = name.ns == ns!(html) && name.local == local_name!("template");
        let mut attrs: Vec<(QualName, StrTendril)> =
            attrs.into_iter().map(|a| (a.name, a.value)).collect();
        attrs.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let element = self.new_node(Data::Element { name, attrs });
        if template {
            let contents = self.new_node(Data::Fragment);
            self.append(&element, NodeOrText::AppendNode(contents));
        }
        element
    }

    fn create_comment(&self, _text: StrTendril) -> usize {
        self.new_node(Data::Other)
    }

    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> usize {
        self.new_node(Data::Other)
    }

    fn append_doctype_to_document(&self, _: StrTendril, _: StrTendril, _: StrTendril) {
        let doctype = self.new_node(Data::Other);
        self.append(&0, NodeOrText::AppendNode(doctype));
    }

    fn append(&self, parent: &usize, child: NodeOrText<usize>) {
        let nodes = &mut *self.nodes.borrow_mut();
        match child {
            NodeOrText::AppendNode(child) => {
                if nodes[*parent].children.last() != Some(&child) {
                    detach(nodes, child);
                    nodes[child].parent = Some(*parent);
                    nodes[*parent].children.push(child);
                }
            }
            NodeOrText::AppendText(text) => {
                let last = nodes[*parent].children.last().copied();
                if !extend_text(nodes, last, &text) {
                    nodes.push(Node {
                        parent: Some(*parent),
                        children: Vec::new(),
                        data: Data::Text(text),
                    });
                    let new = nodes.len() - 1;
                    nodes[*parent].children.push(new);
                }
            }
        }
    }

    fn append_before_sibling(&self, sibling: &usize, new_node: NodeOrText<usize>) {
        let nodes = &mut *self.nodes.borrow_mut();
        if let NodeOrText::AppendNode(node) = new_node {
            detach(nodes, node);
        }
        let Some(parent) = nodes[*sibling].parent else {
            return;
        };
        let at = nodes[parent]
            .children
            .iter()
            .position(|&c| c == *sibling)
            .expect("a node is among its parent's children");
        let node = match new_node {
            NodeOrText::AppendNode(node) => node,
            NodeOrText::AppendText(text) => {
                let before = at.checked_sub(1).map(|i| nodes[parent].children[i]);
                if extend_text(nodes, before, &text) {
                    return;
                }
                nodes.push(Node {
                    parent: None,
                    children: Vec::new(),
                    data: Data::Text(text),
                });
                nodes.len() - 1
            }
        };
        nodes[node].parent = Some(parent);
        nodes[parent].children.insert(at, node);
    }

    fn append_based_on_parent_node(
        &self,
        element: &usize,
        prev_element: &usize,
        child: NodeOrText<usize>,
    ) {
        let has_parent = self.nodes.borrow()[*element].parent.is_some();
        if has_parent {
            self.append_before_sibling(element, child);
        } else {
            self.append(prev_element, child);
        }
    }

    fn get_template_contents(&self, target: &usize) -> usize {
        self.nodes.borrow()[*target].children[0]
    }

    fn same_node(&self, x: &usize, y: &usize) -> bool {
        x == y
    }

    fn set_quirks_mode(&self, _mode: QuirksMode) {}

    fn add_attrs_if_missing(&self, target: &usize, new: Vec<Attribute>) {
        let nodes = &mut *self.nodes.borrow_mut();
        let Data::Element { attrs, .. } = &mut nodes[*target].data else {
            panic!("not an element");
        };
        for a in new {
            if let Err(at) = attrs.binary_search_by(|(name, _)| name.cmp(&a.name)) {
                attrs.insert(at, (a.name, a.value));
            }
        }
    }

    fn remove_from_parent(&self, target: &usize) {
        detach(&mut self.nodes.borrow_mut(), *target);
    }

    fn reparent_children(&self, node: &usize, new_parent: &usize) {
        let nodes = &mut *self.nodes.borrow_mut();
        let children = std::mem::take(&mut nodes[*node].children);
        for &c in &children {
            nodes[c].parent = Some(*new_parent);
        }
        nodes[*new_parent].children.extend(children);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dom: &Dom) -> Vec<String> {
        dom.descendants(0)
            .into_iter()
            .filter_map(|n| match &dom.nodes[n].data {
                Data::Element { name, .. } => Some(name.local.to_string()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn template_contents_are_walked_in_place() {
        let dom = Dom::parse("<template><p>a</p></template><b>b</b>");
        assert_eq!(
            names(&dom),
            ["html", "head", "template", "p", "body", "b"].map(String::from)
        );
        assert_eq!(dom.text(0), "ab");
    }

    #[test]
    fn text_is_merged_but_not_across_a_comment() {
        let dom = Dom::parse("<p>a<!--c-->b</p><table>x<tr><td>y</td></tr></table>");
        let texts: Vec<String> = dom
            .nodes
            .iter()
            .filter_map(|n| match &n.data {
                Data::Text(t) if n.parent.is_some() => Some(t.to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(texts, ["a", "b", "x", "y"].map(String::from));
        assert_eq!(dom.text(0), "abxy");
    }

    #[test]
    fn attributes_are_sorted_by_name() {
        let dom = Dom::parse("<svg><a xlink:href=\"#x\" z=\"1\" b=\"2\"></a></svg>");
        let attrs: Vec<String> = dom
            .nodes
            .iter()
            .find_map(|n| match &n.data {
                Data::Element { name, attrs } if &*name.local == "a" => {
                    Some(attrs.iter().map(|(k, _)| k.local.to_string()).collect())
                }
                _ => None,
            })
            .unwrap();
        // `xlink:href` has a prefix (`xlink`), which sorts after none.
        assert_eq!(attrs, ["b", "z", "href"].map(String::from));
    }
}
