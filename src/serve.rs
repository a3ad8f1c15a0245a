//! `scenario-ratios serve`: the author's live preview. It builds the article in memory (nothing
//! is written to the output folder), serves every output file at its published path, watches the
//! project's prose, settings, manifest and facts, rebuilds on a saved change and makes the open
//! page reload itself. A failed rebuild keeps the server and the last good build, and shows the
//! error at the top of the page until a fix builds.
//!
//! The reload script and the Content-Security-Policy that allows it exist only in served pages;
//! the published article has neither. Built only with the `serve` feature (HTTP: tiny_http; file
//! events: notify).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use askama::Template;
use notify::{RecursiveMode, Watcher};

use crate::dist::Dist;
use crate::error::{Error, Result};
use crate::layout::OutputFile;
use crate::pipeline::{self, BuildOptions, Timings};
use crate::project::Project;

/// How long the watcher waits for a burst of file events to settle before rebuilding.
const DEBOUNCE: Duration = Duration::from_millis(40);
/// How long a reload request waits for a new build before answering "no change".
const LONG_POLL: Duration = Duration::from_secs(25);
const RELOAD_JS: &str = include_str!("../templates/serve/reload.js");
/// Requests answered at once, each on its own thread, counted apart for reload polls (an open
/// page holds one for up to [`LONG_POLL`]) and for files; beyond either the server answers 503 at
/// once instead of starting another thread, and the page's script tries again later.
const MAX_IN_FLIGHT: usize = 32;

/// What is being served: the last good build, the last error, and a counter of builds.
#[derive(Default)]
struct Served {
    dist: Option<Dist>,
    error: Option<String>,
    version: u64,
}

type Shared = Arc<(Mutex<Served>, Condvar)>;

#[derive(Template)]
#[template(path = "serve/error.html")]
struct ErrorBanner<'a> {
    error: &'a str,
}

#[derive(Template)]
#[template(path = "serve/empty.html")]
struct Empty;

static STOP: AtomicBool = AtomicBool::new(false);
/// Requests being answered: files, then reload polls.
static IN_FLIGHT: [AtomicUsize; 2] = [AtomicUsize::new(0), AtomicUsize::new(0)];
/// The reload poll: answered with the build counter once it differs from the page's.
const WAIT_PATH: &str = "/__live/wait";
/// The type of the server's own short answers (not found, busy, method not allowed).
const TEXT: &str = "text/plain; charset=utf-8";

#[cfg(unix)]
extern "C" fn on_interrupt(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

fn catch_interrupt() {
    #[cfg(unix)]
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(
            libc::SIGINT,
            on_interrupt as *const () as libc::sighandler_t,
        );
        libc::signal(
            libc::SIGTERM,
            on_interrupt as *const () as libc::sighandler_t,
        );
    }
}

/// Builds once, then serves on `bind:port` until Ctrl-C.
pub fn run(opts: &BuildOptions, bind: &str, port: u16) -> Result<()> {
    let server = tiny_http::Server::http((bind, port))
        .map_err(|e| Error::invalid(format!("{bind}:{port}"), format!("cannot listen: {e}")))?;
    let addr = server
        .server_addr()
        .to_ip()
        .map_or(format!("{bind}:{port}"), |a| a.to_string());
    let shared: Shared = Arc::new((Mutex::new(Served::default()), Condvar::new()));
    rebuild(opts, &shared);

    let (tx, rx) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(tx)
        .map_err(|e| Error::invalid("serve", format!("cannot watch files: {e}")))?;
    let watched: Vec<PathBuf> = Project::WATCHED.iter().map(|p| opts.root.join(p)).collect();
    for path in &watched {
        // The manifest is a file: watch its folder, and keep only its own events below.
        let target = if path.is_file() {
            path.parent().unwrap_or(path)
        } else {
            path.as_path()
        };
        watcher
            .watch(target, RecursiveMode::Recursive)
            .map_err(|e| {
                Error::invalid(target.display().to_string(), format!("cannot watch: {e}"))
            })?;
    }
    {
        let opts = opts.clone();
        let shared = shared.clone();
        std::thread::spawn(move || watch_loop(&opts, &shared, &rx, &watched));
    }

    catch_interrupt();
    if !bind.starts_with("127.") && bind != "localhost" && bind != "::1" {
        eprintln!("warning: listening on {bind}: other machines can reach this preview");
    }
    println!("serving http://{addr}/ (Ctrl-C stops)");
    println!(
        "watching {} under {}",
        Project::WATCHED.join(", "),
        opts.root.display()
    );
    while !STOP.load(Ordering::SeqCst) {
        match server.recv_timeout(Duration::from_millis(200)) {
            Ok(Some(request)) => {
                let poll = path_and_query(request.url()).0 == WAIT_PATH;
                let count = &IN_FLIGHT[usize::from(poll)];
                if count.fetch_add(1, Ordering::SeqCst) >= MAX_IN_FLIGHT {
                    count.fetch_sub(1, Ordering::SeqCst);
                    reply(request, 503, TEXT, b"busy\n".to_vec());
                    continue;
                }
                let shared = shared.clone();
                std::thread::spawn(move || {
                    respond(request, &shared);
                    count.fetch_sub(1, Ordering::SeqCst);
                });
            }
            Ok(None) => {}
            Err(e) => eprintln!("warning: {e}"),
        }
    }
    drop(watcher);
    println!("stopped");
    Ok(())
}

/// Rebuilds after each burst of file events under the watched paths.
fn watch_loop(
    opts: &BuildOptions,
    shared: &Shared,
    rx: &mpsc::Receiver<notify::Result<notify::Event>>,
    watched: &[PathBuf],
) {
    let relevant = |event: &notify::Event| {
        !matches!(event.kind, notify::EventKind::Access(_))
            && event
                .paths
                .iter()
                .any(|p| watched.iter().any(|w| p.starts_with(w)))
    };
    while let Ok(first) = rx.recv() {
        if !first.as_ref().is_ok_and(relevant) {
            continue;
        }
        // Editors save in several steps; wait until the events stop.
        while rx.recv_timeout(DEBOUNCE).is_ok() {}
        rebuild(opts, shared);
    }
}

/// Builds in memory and publishes the result (or the error) to the server.
fn rebuild(opts: &BuildOptions, shared: &Shared) {
    let started = Instant::now();
    let result = pipeline::build_in_memory(opts, &mut Timings::new());
    let (lock, changed) = &**shared;
    let mut served = lock.lock().unwrap_or_else(|p| p.into_inner());
    match result {
        Ok(built) => {
            eprintln!("built in {:.0} ms", started.elapsed().as_secs_f64() * 1e3);
            served.dist = Some(built.dist);
            served.error = None;
        }
        Err(e) => {
            eprintln!("error: {e}");
            served.error = Some(e.to_string());
        }
    }
    served.version += 1;
    changed.notify_all();
}

/// A request's target split at its `?`: the path, and the query (empty when there is none).
fn path_and_query(url: &str) -> (&str, &str) {
    url.split_once('?').unwrap_or((url, ""))
}

fn content_type(path: &str) -> &'static str {
    match Path::new(path).extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("json") => "application/json",
        Some("csv") => "text/csv; charset=utf-8",
        Some("zip") => "application/zip",
        Some("js") => "text/javascript",
        _ => TEXT,
    }
}

/// The served form of the article: the live-reload script, a policy that lets it run and ask
/// for the next build, and the error banner when the last edit failed.
pub fn served_page(html: &str, version: u64, error: Option<&str>) -> String {
    let published_policy = "content=\"default-src 'none'; ";
    let policy = "content=\"default-src 'none'; script-src 'self'; connect-src 'self'; ";
    let mut page = html.replacen(published_policy, policy, 1);
    if let Some(e) = error {
        let banner = ErrorBanner { error: e }.render().unwrap_or_default();
        page = match page.find("<body>") {
            Some(i) => format!("{}{banner}{}", &page[..i + 6], &page[i + 6..]),
            None => format!("{banner}{page}"),
        };
    }
    let script = format!("<script src=\"/__live/reload.js?v={version}\"></script>\n</body>");
    page.replacen("</body>", &script, 1)
}

fn respond(request: tiny_http::Request, shared: &Shared) {
    if !matches!(
        request.method(),
        tiny_http::Method::Get | tiny_http::Method::Head
    ) {
        let body = b"only GET and HEAD are served\n".to_vec();
        return reply(request, 405, TEXT, body);
    }
    let url = request.url().to_string();
    let (path, query) = path_and_query(&url);
    let (lock, changed) = &**shared;
    let response = match path {
        "/__live/reload.js" => (200, "text/javascript", RELOAD_JS.as_bytes().to_vec()),
        WAIT_PATH => {
            let seen: u64 = query
                .strip_prefix("v=")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            let served = lock.lock().unwrap_or_else(|p| p.into_inner());
            let (served, _) = changed
                .wait_timeout_while(served, LONG_POLL, |s| s.version == seen)
                .unwrap_or_else(|p| p.into_inner());
            (200, "text/plain", served.version.to_string().into_bytes())
        }
        _ => {
            let served = lock.lock().unwrap_or_else(|p| p.into_inner());
            let rel = path.trim_start_matches('/');
            let rel = if rel.is_empty() {
                OutputFile::Article.path()
            } else {
                rel
            };
            let article = rel == OutputFile::Article.path();
            match (&served.dist, article) {
                (None, true) => {
                    let empty = Empty.render().unwrap_or_default();
                    let page = served_page(&empty, served.version, served.error.as_deref());
                    (200, content_type(rel), page.into_bytes())
                }
                (Some(dist), true) => {
                    let html = dist
                        .get(rel)
                        .map(|b| String::from_utf8_lossy(b).into_owned())
                        .unwrap_or_default();
                    let page = served_page(&html, served.version, served.error.as_deref());
                    (200, content_type(rel), page.into_bytes())
                }
                (Some(dist), false) => match dist.get(rel) {
                    Some(bytes) => (200, content_type(rel), bytes.to_vec()),
                    None => (404, TEXT, b"not found\n".to_vec()),
                },
                (None, false) => (404, TEXT, b"not found\n".to_vec()),
            }
        }
    };
    let (status, kind, body) = response;
    reply(request, status, kind, body);
}

/// Answers `request`; tiny_http leaves the body out of a HEAD answer.
fn reply(request: tiny_http::Request, status: u16, kind: &str, body: Vec<u8>) {
    let mut r = tiny_http::Response::from_data(body).with_status_code(status);
    let allow = (status == 405).then_some(("Allow", "GET, HEAD"));
    let headers = [("Content-Type", kind), ("Cache-Control", "no-store")];
    for (name, value) in headers.into_iter().chain(allow) {
        if let Ok(h) = tiny_http::Header::from_bytes(name, value) {
            r = r.with_header(h);
        }
    }
    let _ = request.respond(r);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_served_page_gets_the_script_and_the_looser_policy() {
        let html = "<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\"></head><body><p>x</p></body></html>";
        let page = served_page(html, 7, None);
        assert!(page.contains("<script src=\"/__live/reload.js?v=7\"></script>\n</body>"));
        assert!(page.contains("script-src 'self'; connect-src 'self'"));
        assert!(!html.contains("script"), "the published page is untouched");
        let broken = served_page(html, 8, Some("content/article.md: unknown <placeholder>"));
        assert!(broken.contains("id=\"serve-error\""));
        assert!(
            broken.contains("unknown &#60;placeholder&#62;")
                || broken.contains("unknown &lt;placeholder&gt;")
        );
    }
}
