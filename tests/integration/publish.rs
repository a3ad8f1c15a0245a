//! The author's publishing step, as a static web host meets it: the built `dist/` is copied as
//! one folder into a site tree at the path of the page's canonical URL (README's `cp -R` command), a plain static server
//! (Python's `http.server`, on 127.0.0.1) serves the tree, and the page's own address, and every
//! relative link of the page, answer with the bytes the build wrote. So the address the page
//! gives in `<link rel="canonical">`, `og:url` and its JSON-LD is one a reader can open, and no
//! download link is broken.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use crate::support;
use scenario_ratios::base::layout::OutputFile;

/// A static server over `root`, stopped when dropped.
struct StaticSite {
    child: Child,
    port: u16,
}

impl StaticSite {
    fn start(root: &Path) -> StaticSite {
        let mut child = Command::new("python3")
            .args(["-u", "-m", "http.server", "--bind", "127.0.0.1", "0"])
            .current_dir(root)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 runs");
        // "Serving HTTP on 127.0.0.1 port 40123 (http://127.0.0.1:40123/) ..."
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line
            .split(" port ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no port in {line:?}"));
        StaticSite { child, port }
    }

    /// GET `path`: the status code and the body.
    fn get(&self, path: &str) -> (u16, Vec<u8>) {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        write!(
            s,
            "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).unwrap();
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("an HTTP response");
        let head = String::from_utf8_lossy(&raw[..split]);
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap();
        (status, raw[split + 4..].to_vec())
    }
}

impl Drop for StaticSite {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn attr_values(html: &str, selector: &str, attr: &str) -> Vec<String> {
    let doc = scraper::Html::parse_document(html);
    let sel = scraper::Selector::parse(selector).unwrap();
    doc.select(&sel)
        .filter_map(|e| e.value().attr(attr).map(str::to_string))
        .collect()
}

#[test]
fn dist_copied_as_one_folder_to_the_site_serves_the_page_at_its_canonical_address() {
    let (tmp, dist) = support::built_copy();
    let page = std::fs::read(dist.join(OutputFile::Article.path())).unwrap();
    let html = String::from_utf8(page.clone()).unwrap();

    let canonical = attr_values(&html, "link[rel=canonical]", "href");
    assert_eq!(canonical.len(), 1, "one canonical link");
    let canonical = &canonical[0];
    assert_eq!(
        attr_values(&html, "meta[property=\"og:url\"]", "content"),
        std::slice::from_ref(canonical)
    );
    // The site path of the page, and the folder that holds it.
    let rest = canonical
        .strip_prefix("https://")
        .expect("an https address");
    let site_path = &rest[rest.find('/').expect("a path")..];
    let folder = &site_path[..=site_path.rfind('/').unwrap()];

    // README's command for a site kept as a folder.
    let site = tmp.path().join("site");
    let target = format!("site{folder}");
    let copied = Command::new("sh")
        .arg("-c")
        .arg(format!("mkdir -p {target} && cp -R dist/. {target}"))
        .current_dir(tmp.path())
        .status()
        .unwrap();
    assert!(copied.success());
    let server = StaticSite::start(&site);

    let (status, body) = server.get(site_path);
    assert_eq!(status, 200, "the canonical address {site_path} answers");
    assert!(
        body == page,
        "the page served at {site_path} is the built one"
    );

    // Every relative link of the page answers with the file the build wrote, and every
    // published file is linked.
    let mut linked = Vec::new();
    for href in attr_values(&html, "a[href]", "href") {
        if href.starts_with('#') || href.starts_with('/') || href.contains(':') {
            continue;
        }
        // A link into another page (data.html#pairs) fetches that page.
        let href = href.split('#').next().unwrap_or_default().to_string();
        let (status, body) = server.get(&format!("{folder}{href}"));
        assert_eq!(status, 200, "{folder}{href}");
        let built = std::fs::read(dist.join(&href)).unwrap();
        assert!(body == built, "{href} is served as built");
        linked.push(href);
    }
    for f in OutputFile::ALL {
        if *f != OutputFile::Article {
            assert!(
                linked.iter().any(|l| l == f.path()),
                "{} is linked",
                f.path()
            );
        }
    }
}
