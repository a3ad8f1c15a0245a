//! The preview's HTTP side: a listening socket with a deep queue, an accept loop bounded in
//! connections and requests, and the answers (the served page with its reload script, every
//! built file at its published path, the reload poll).

use std::convert::Infallible;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use askama::Template;
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::{Method, Request, Response};

use super::State;
use ratios_base::layout::OutputFile;
use ratios_base::sys;

/// How long a reload request waits for a new build before answering "no change".
const LONG_POLL: Duration = Duration::from_secs(25);
const RELOAD_JS: &str = include_str!("../../templates/serve/reload.js");
/// Requests answered at once, counted apart for reload polls (an open page holds one for up to
/// [`LONG_POLL`]) and for files; beyond either the server answers 503 at once, and the page's
/// script tries again later.
const MAX_IN_FLIGHT: usize = 32;
/// Connections served at once; a connection beyond them is answered 503 and closed.
pub const MAX_CONNECTIONS: usize = 128;
/// The most bytes a request's line and headers may hold (hyper's read buffer: a longer line or
/// more headers end the connection).
pub const MAX_HEAD_BYTES: usize = 16 << 10;
/// The most headers a request may carry.
const MAX_HEADERS: usize = 64;
/// How long a client may take to send a request's line and headers.
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(5);
/// The longest a connection is kept, a reload poll included.
pub const CONNECTION_TIMEOUT: Duration = Duration::from_secs(40);
/// The longest pause after the process ran out of file descriptors, before accepting again.
const MAX_BACKOFF: Duration = Duration::from_secs(1);

#[derive(Template)]
#[template(path = "serve/error.html")]
struct ErrorBanner<'a> {
    error: &'a str,
}

#[derive(Template)]
#[template(path = "serve/empty.html")]
struct Empty;

/// Requests being answered: files, then reload polls.
static IN_FLIGHT: [AtomicUsize; 2] = [AtomicUsize::new(0), AtomicUsize::new(0)];
/// The reload poll: answered with the build counter once it differs from the page's.
const WAIT_PATH: &str = "/__live/wait";
/// The type of the server's own short answers (not found, busy, method not allowed).
const TEXT: &str = "text/plain; charset=utf-8";
/// The whole answer to a connection beyond [`MAX_CONNECTIONS`], written before it is closed.
const BUSY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 5\r\nCache-Control: no-store\r\nConnection: close\r\n\r\nbusy\n";

/// A listening socket on `bind:port` whose queue of connections not yet accepted holds
/// [`BACKLOG`]: a burst of connections waits there, instead of retrying its handshake for
/// seconds, while the server is at its limits.
pub(super) fn listen(bind: &str, port: u16) -> std::io::Result<tokio::net::TcpListener> {
    use std::net::ToSocketAddrs;
    let addr = (bind, port)
        .to_socket_addrs()?
        .next()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "no address"))?;
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(BACKLOG)
}

/// The kernel's queue of connections waiting to be accepted (capped by the system's somaxconn).
const BACKLOG: u32 = 1024;

/// Accepts connections until Ctrl-C, each served on its own task within the bounds above.
pub(super) async fn accept_loop(listener: &tokio::net::TcpListener, state: &Arc<State>) {
    let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    let mut backoff = Duration::from_millis(10);
    let mut exhausted = false;
    while !sys::interrupted() {
        let accepted =
            match tokio::time::timeout(Duration::from_millis(200), listener.accept()).await {
                Err(_) => continue,
                Ok(a) => a,
            };
        let stream = match accepted {
            Ok((stream, _)) => {
                backoff = Duration::from_millis(10);
                exhausted = false;
                stream
            }
            // Out of file descriptors or memory: the connection waits in the kernel's queue;
            // pause, then try again (said once per shortage).
            Err(e) if sys::out_of_resources(&e) => {
                if !exhausted {
                    ratios_base::note!(
                        "warning: cannot accept a connection ({e}); waiting for some to close"
                    );
                    exhausted = true;
                }
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(MAX_BACKOFF);
                continue;
            }
            Err(_) => continue,
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            let _ = stream.try_write(BUSY);
            continue;
        };
        let state = state.clone();
        tokio::spawn(async move {
            let _slot = slot;
            let service = hyper::service::service_fn(move |request| {
                let state = state.clone();
                async move { Ok::<_, Infallible>(respond(request, &state).await) }
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEAD_TIMEOUT)
                .max_buf_size(MAX_HEAD_BYTES)
                .max_headers(MAX_HEADERS)
                .title_case_headers(true)
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service);
            let _ = tokio::time::timeout(CONNECTION_TIMEOUT, connection).await;
        });
    }
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

/// Counts one request of a kind (files or polls) for as long as it is answered.
struct InFlight(&'static AtomicUsize);

impl InFlight {
    fn enter(poll: bool) -> Option<InFlight> {
        let count = &IN_FLIGHT[usize::from(poll)];
        if count.fetch_add(1, Ordering::SeqCst) >= MAX_IN_FLIGHT {
            count.fetch_sub(1, Ordering::SeqCst);
            return None;
        }
        Some(InFlight(count))
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

async fn respond(request: Request<Incoming>, state: &State) -> Response<Full<Bytes>> {
    if !matches!(*request.method(), Method::GET | Method::HEAD) {
        let body = Bytes::from_static(b"only GET and HEAD are served\n");
        return reply(405, TEXT, body);
    }
    let path = request.uri().path();
    let query = request.uri().query().unwrap_or("");
    let poll = path == WAIT_PATH;
    let Some(_counted) = InFlight::enter(poll) else {
        return reply(503, TEXT, Bytes::from_static(b"busy\n"));
    };
    let (status, kind, body) = match path {
        "/__live/reload.js" => (
            200,
            "text/javascript",
            Bytes::from_static(RELOAD_JS.as_bytes()),
        ),
        WAIT_PATH => {
            let seen: u64 = query
                .strip_prefix("v=")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            let mut builds = state.version.subscribe();
            let _ = tokio::time::timeout(LONG_POLL, builds.wait_for(|v| *v != seen)).await;
            let now = *builds.borrow();
            (200, "text/plain", Bytes::from(now.to_string()))
        }
        _ => {
            let served = state.served.lock().unwrap_or_else(|p| p.into_inner());
            let rel = path.trim_start_matches('/');
            let rel = if rel.is_empty() {
                OutputFile::Article.path()
            } else {
                rel
            };
            let article = rel == OutputFile::Article.path();
            match (&served.files, article) {
                (None, true) => {
                    let empty = Empty.render().unwrap_or_default();
                    let page = served_page(&empty, served.version, served.error.as_deref());
                    (200, content_type(rel), Bytes::from(page))
                }
                (Some(files), true) => {
                    let html = files
                        .get(rel)
                        .map(|b| String::from_utf8_lossy(b).into_owned())
                        .unwrap_or_default();
                    let page = served_page(&html, served.version, served.error.as_deref());
                    (200, content_type(rel), Bytes::from(page))
                }
                (Some(files), false) => match files.get(rel) {
                    Some(bytes) => (200, content_type(rel), bytes.clone()),
                    None => (404, TEXT, Bytes::from_static(b"not found\n")),
                },
                (None, false) => (404, TEXT, Bytes::from_static(b"not found\n")),
            }
        }
    };
    reply(status, kind, body)
}

/// An answer; hyper leaves the body out of a HEAD answer.
fn reply(status: u16, kind: &'static str, body: Bytes) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(body));
    *r.status_mut() =
        hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    let headers = r.headers_mut();
    headers.insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static(kind),
    );
    headers.insert(
        hyper::header::CACHE_CONTROL,
        hyper::header::HeaderValue::from_static("no-store"),
    );
    if status == 405 {
        headers.insert(
            hyper::header::ALLOW,
            hyper::header::HeaderValue::from_static("GET, HEAD"),
        );
    }
    r
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
